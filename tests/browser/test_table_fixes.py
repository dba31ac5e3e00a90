"""The small things a player met at the table (issue 12): a guest's Sit here logs in and comes back
to that seat; the turn chime unlocks on the first real gesture (a key press, a tap) and obeys the
mute button; the result banner waits for the winner's cards; on a phone the History panel is modal
and the buttons carry no keyboard letters; the bring-in marker sits on its seat; the lobby's money
has two decimals; a hi/lo scoop reads as one."""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.scripted import handle, scripted_table
from tests.browser.test_client import six_handed_messages
from tests.browser.test_play import DESKTOP, PASSIVE, PHONE, register, take_seat

pytestmark = pytest.mark.browser

MONEY = re.compile(r"\d+\.\d\d")

# Web Audio as a browser with an autoplay policy has it (headless Chromium has none, and
# Playwright's evaluate counts as a gesture): a context starts, or resumes, only inside an
# activating gesture: a key press other than Escape, a mouse press, the end of a touch
# (a touch's pointerdown does not count; see the HTML standard's "activation-triggering input
# event"). It counts what it is asked to do.
AUDIO_SPY = """
(() => {
  const Real = window.AudioContext;
  const audio = { created: 0, resumes: [], oscillators: 0, contexts: [] };
  window.__audio = audio;
  let gesture = null;
  const activating = (e) =>
    (e.type === 'keydown' && e.key !== 'Escape') || e.type === 'mousedown' || e.type === 'touchend' ||
    (e.type === 'pointerdown' && e.pointerType === 'mouse') ||
    (e.type === 'pointerup' && e.pointerType !== 'mouse');
  for (const type of ['keydown', 'mousedown', 'pointerdown', 'pointerup', 'touchend']) {
    addEventListener(type, (e) => {
      if (!e.isTrusted || !activating(e)) return;
      gesture = type;
      setTimeout(() => { gesture = null; });
    }, true);
  }
  class SpyContext extends Real {
    constructor(...args) {
      super(...args);
      audio.created += 1;
      audio.contexts.push(this);
      this.spyState = gesture ? 'running' : 'suspended';
    }
    get state() { return this.spyState; }
    resume() {
      audio.resumes.push(gesture);
      if (gesture && this.spyState !== 'running') {
        this.spyState = 'running';
        this.dispatchEvent(new Event('statechange'));
      }
      return Promise.resolve();
    }
    createOscillator() {
      audio.oscillators += 1;
      return super.createOscillator();
    }
  }
  window.AudioContext = SpyContext;
  window.webkitAudioContext = SpyContext;
})();
"""

# Every time the centre of the table changes: is the banner up, and how many of each winner's
# cards are still face down (a card back, or his own down card shown only to him)?
BANNER_WATCH = """
() => {
  window.__banner = [];
  const check = () => {
    const banner = document.querySelector('#center .result-banner');
    if (!banner) return;
    const winners = [...document.querySelectorAll('#seats .seat.winner')].map((el) => ({
      seat: Number(el.dataset.seat),
      down: [...el.querySelectorAll('.card')]
        .filter((c) => !c.dataset.card || c.classList.contains('hole')).length,
    }));
    window.__banner.push({ text: banner.textContent, winners });
  };
  new MutationObserver(check).observe(document.querySelector('#table'), { childList: true, subtree: true });
}
"""


# What the page sends from now on (message types), recorded as it sends them.
SENT_SPY = """
() => {
  const socket = window.studpoker.socket;
  const send = socket.send.bind(socket);
  window.__sent = [];
  socket.send = (message) => { window.__sent.push(message.type); return send(message); };
}
"""


def turn_snapshot(version: int) -> dict[str, Any]:
    """A snapshot of alice (seat 1) facing a decision: the client chimes once per new turn."""
    table = {"id": 1, "name": "Chime", "game": "7S", "small_bet": 100, "big_bet": 200, "ante": 10,
             "bring_in": 25, "max_seats": 8, "min_buy_in": 2000, "max_buy_in": 20000}  # fmt: skip
    seats = [
        {"seat": s, "account_id": s, "name": n, "stack": 4000, "sitting_out": False, "connected": True}
        for s, n in ((1, "alice"), (2, "bob"))
    ]
    hand = {
        "game": "7S", "street": "third", "to_act": 1, "bring_in_seat": 2, "is_over": False, "board": [],
        "seats": [{"seat": s, "stack": 3990, "bet": 0, "contributed": 10, "folded": False, "all_in": False,
                   "down": ["As", "Kd"] if s == 1 else [None, None], "up": ["Qh" if s == 1 else "2c"]}
                  for s in (1, 2)],
    }  # fmt: skip
    turn = {"type": "your_turn", "table_id": 1, "version": version, "hand_id": f"h{version}", "seat": 1,
            "options": [{"kind": "fold"}, {"kind": "call", "amount": 25},
                        {"kind": "complete", "amount": 100}],
            "think_ends": time.time() + 30, "countdown_ends": time.time() + 50,
            "server_time": time.time()}  # fmt: skip
    return {"type": "table_state", "table_id": 1, "version": version, "table": table, "seats": seats,
            "your_seat": 1, "hand_id": f"h{version}", "hand": hand, "clock": None,
            "your_turn": turn}  # fmt: skip


def audio(page: Any) -> dict[str, Any]:
    out: dict[str, Any] = page.evaluate(
        "() => ({ created: __audio.created, resumes: __audio.resumes, oscillators: __audio.oscillators,"
        " states: __audio.contexts.map((c) => c.state) })"
    )
    return out


def act_passive(page: Any) -> None:
    """Check, call or bring in if it is this page's turn; a turn gone meanwhile is no error."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for kind in PASSIVE:
        button = page.locator(f"#actions button[data-kind='{kind}']")
        if button.count():
            with contextlib.suppress(PlaywrightTimeout):
                button.first.click(timeout=1500)
            return


def free_table(server: Server, game: str) -> int:
    table_id: int = next(t["id"] for t in server.tables() if t["game"] == game and not t["seated"])
    return table_id


def box_inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def bring_in_inside_its_seat(page: Any) -> bool | None:
    """None when no bring-in marker is drawn; else whether it lies inside the box of its seat."""
    marker = page.locator("#seats .marker.bring-in")
    if not marker.count():
        return None
    box = marker.first.bounding_box()
    owner = page.evaluate(
        "() => document.querySelector('#seats .marker.bring-in').closest('.seat')?.dataset.seat ?? null"
    )
    seat = view_bring_in_seat(page)
    if owner is None or seat is None or int(owner) != seat:
        return False
    seat_box = page.locator(f"#seats .seat[data-seat='{seat}']").bounding_box()
    return box is not None and seat_box is not None and box_inside(box, seat_box)


def view_bring_in_seat(page: Any) -> int | None:
    seat: int | None = page.evaluate("() => window.studpoker.state?.hand?.bring_in_seat ?? null")
    return seat


# ------------------------------------------------------------------------------ 10. Sit here


def test_a_guest_who_clicks_sit_here_logs_in_and_gets_that_seat(browser: Any, server: Server) -> None:
    table_id = free_table(server, "7S8")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.click(f"tr[data-table='{table_id}'] button.watch")
    page.wait_for_selector("#seats button.sit[data-seat='3']")
    page.click("#seats button.sit[data-seat='3']")
    # the log-in dialog opens over the table (no trip back to the lobby)
    page.wait_for_selector("#login-dialog[open]")
    assert page.evaluate("() => location.hash") == f"#/table/{table_id}"
    assert page.inner_text("#login-seat") == "3"
    name = f"sam{int(time.time() * 1000) % 10**7}"
    page.fill("#login-name", name)
    page.fill("#login-password", "short")
    page.click("#login-register")  # refused by the form: the dialog stays, nothing is sent
    assert page.locator("#login-dialog[open]").count() == 1
    page.fill("#login-password", "password123")
    page.click("#login-register")
    # logged in, back at the same table, and seat 3 is offered
    page.wait_for_selector("#sit-dialog[open]", timeout=15000)
    assert page.inner_text("#sit-seat") == "3"
    assert page.inner_text("#me-name") == name
    assert page.evaluate("() => location.hash") == f"#/table/{table_id}"
    page.click("#sit-confirm")
    page.wait_for_selector(".seat.hero[data-seat='3'] .plate", timeout=15000)
    assert page.evaluate("() => window.studpoker.state.yourSeat") == 3
    page.click("#standup-btn")
    page.wait_for_function("() => window.studpoker.state.yourSeat === null", timeout=15000)
    assert not errors, errors
    context.close()


# ------------------------------------------------------------------------------ 13. the chime


def test_the_chime_unlocks_on_the_first_key_press_and_the_mute_button_silences_it(
    browser: Any, server: Server
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(AUDIO_SPY)
    page = context.new_page()
    scripted_table(page, server)  # a fresh page, as after a reload: no gesture yet
    handle(page, turn_snapshot(10))  # a turn before any gesture: nothing can sound yet
    assert audio(page)["oscillators"] == 0
    # Escape is no gesture for the browser's audio; the next key press is, and no click is needed
    page.keyboard.press("Escape")
    assert audio(page)["states"] in ([], ["suspended"])
    page.keyboard.press("x")
    page.wait_for_function("() => __audio.contexts.some((c) => c.state === 'running')", timeout=3000)
    spied = audio(page)
    assert spied["created"] == 1 and spied["states"] == ["running"] and spied["resumes"][-1] == "keydown"
    handle(page, turn_snapshot(11))
    assert audio(page)["oscillators"] == 2  # the two tones of the chime

    # The table's mute button: silent, and the settings checkbox follows it (and back).
    assert page.get_attribute("#mute-btn", "aria-pressed") == "false"
    page.click("#mute-btn")
    assert page.get_attribute("#mute-btn", "aria-pressed") == "true"
    assert page.evaluate("() => document.querySelector('#opt-sound').checked") is False
    assert page.evaluate("() => localStorage.getItem('studpoker.sound')") == "off"
    handle(page, turn_snapshot(12))
    assert audio(page)["oscillators"] == 2
    page.click("#settings-btn")
    page.check("#opt-sound")
    page.click("#settings button[value='ok']")
    assert page.get_attribute("#mute-btn", "aria-pressed") == "false"
    handle(page, turn_snapshot(13))
    assert audio(page)["oscillators"] == 4
    context.close()


def test_a_tap_unlocks_the_chime_on_a_phone(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_init_script(AUDIO_SPY)
    page = context.new_page()
    scripted_table(page, server)
    handle(page, turn_snapshot(10))
    page.tap("#table-title")  # a tap anywhere: its pointerdown does not count, its touchend does
    page.wait_for_function("() => __audio.contexts.some((c) => c.state === 'running')", timeout=3000)
    handle(page, turn_snapshot(11))
    assert audio(page)["oscillators"] == 2
    context.close()


# ------------------------------------------------------------------------------ 14. the banner


def test_the_result_banner_waits_until_the_winners_cards_are_up(browser: Any, server: Server) -> None:
    """Scripted: alice (the hero, who wins) shows second, after dave: the banner naming her must
    not come before her down cards turn up."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    scripted_table(page, server)
    page.evaluate(BANNER_WATCH)
    messages = six_handed_messages()
    end = next(i for i, m in enumerate(messages) if m.get("event", {}).get("kind") == "hand_end")
    handle(page, *messages[: end + 1])
    assert page.locator(".result-banner").count() == 0  # the hands are turning up
    page.wait_for_selector(".result-banner", timeout=5000)
    first = page.evaluate("() => window.__banner[0]")
    assert "alice wins" in first["text"]
    assert first["winners"] == [{"seat": 1, "down": 0}], first
    handle(page, *messages[end + 1 :])
    assert page.locator(".seat[data-seat='1'] .card.hole").count() == 0
    context.close()


# ------------------------------------------------------------------------------ 16. scoop and split


def test_a_scoop_reads_as_one_and_a_split_names_each_half(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url)
    lines = page.evaluate(
        """async () => {
            const m = await import('/js/table.js');
            const seats = [{ seat: 1, name: 'alice' }, { seat: 2, name: 'bob' }, { seat: 3, name: 'cy' }];
            const pot = (...shares) =>
              ({ index: 0, amount: shares.reduce((t, s) => t + s.amount, 0), shares });
            const lines = (p) =>
              m.showdownInfo({ seats, hand: null, result: { result: { pots: [p], shown: [] } } }).lines;
            return [
              lines(pot({ seat: 1, amount: 800, half: 'high' }, { seat: 1, amount: 800, half: 'low' })),
              lines(pot({ seat: 1, amount: 800, half: 'high' }, { seat: 2, amount: 800, half: 'low' })),
              lines(pot({ seat: 1, amount: 800, half: 'high' }, { seat: 1, amount: 400, half: 'low' },
                        { seat: 3, amount: 400, half: 'low' })),
              lines(pot({ seat: 2, amount: 1650, half: 'whole' })),
            ];
        }"""
    )
    assert lines[0] == ["Pot 16.00: alice scoops <b>16.00</b> (high and low)"]
    assert lines[1] == ["Pot 16.00: alice wins <b>8.00</b> (high); bob wins <b>8.00</b> (low)"]
    assert lines[2] == ["Pot 16.00: alice wins <b>12.00</b> (high and low); cy wins <b>4.00</b> (low)"]
    assert lines[3] == ["Pot 16.50: bob wins <b>16.50</b>"]
    context.close()


# ------------------------------------------------------------------------------ 4, 16. the lobby


def test_the_lobby_writes_money_with_two_decimals_and_counts_as_integers(
    browser: Any, server: Server
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("#tables-body tr[data-table]")
    cells: dict[str, list[str]] = page.evaluate(
        """() => {
            const rows = [...document.querySelectorAll('#tables-body tr[data-table]')];
            const col = (i) => rows.map((r) => r.children[i].textContent.trim());
            const shown = !document.querySelector('#tables').classList.contains('no-avg');
            const options = [...document.querySelectorAll('#filter-stakes option')].slice(1);
            return { stakes: col(2), seats: col(3), avg: shown ? col(4) : [], hands: col(5),
                     filters: options.map((o) => o.textContent) };
        }"""
    )
    assert len(cells["stakes"]) >= 16
    for stakes in cells["stakes"] + cells["filters"]:
        assert re.fullmatch(rf"{MONEY.pattern}/{MONEY.pattern}", stakes), stakes
    assert "0.50/1.00" in cells["stakes"]
    for avg in cells["avg"]:
        assert avg == "–" or MONEY.fullmatch(avg), avg
    for seats in cells["seats"]:
        assert re.match(r"^\d+/\d+(\s|$)", seats), seats
    for hands in cells["hands"]:
        assert re.fullmatch(r"\d+(/h)?|–", hands), hands
    context.close()


# ------------------------------------------------------------------------------ 14, 15. a hand on a phone


def test_a_hand_on_a_phone_history_modal_no_key_letters_bring_in_on_its_seat(
    browser: Any, server: Server
) -> None:
    """Two players play a hand to showdown, bob on a phone: his History panel is modal on his turn
    (the action bar gone, a "your turn" cue that brings him back), his buttons carry no shortcut
    letters, the bring-in marker is on its seat, and alice's banner waits for the winner's cards."""
    table_id = free_table(server, "7S")
    ctx_a = browser.new_context(viewport=DESKTOP)
    ctx_b = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    suffix = str(int(time.time() * 1000) % 10**7)
    register(a, server, f"ann{suffix}")
    register(b, server, f"ben{suffix}")
    take_seat(a, table_id)
    a.evaluate(BANNER_WATCH)
    take_seat(b, table_id)

    bring_in_checked = {"a": False, "b": False}
    history_checked = False
    deadline = time.monotonic() + 150
    while not a.locator(".result-banner").count() and not a.evaluate("() => window.__banner.length"):
        assert time.monotonic() < deadline, "the hand did not reach its showdown"
        for key, page in (("a", a), ("b", b)):
            inside = bring_in_inside_its_seat(page)
            if inside is not None:
                assert inside, f"{key}: the bring-in marker is not on its seat"
                bring_in_checked[key] = True
        b_turn = b.locator("#actions button.act").count() > 0
        if b_turn and not history_checked:
            # no keyboard letters on a touch screen's buttons
            keys = b.eval_on_selector_all(
                "#actions button .key", "els => els.filter(e => e.offsetParent).length"
            )
            assert keys == 0
            b.tap("#history-btn")
            b.wait_for_selector("#history:not([hidden])")
            assert not b.locator("#action-bar").is_visible()
            b.wait_for_selector("#history-turn:not([hidden])", timeout=3000)
            # no shortcut acts through the hidden bar: nothing is sent
            b.evaluate(SENT_SPY)
            b.keyboard.press("c")
            assert "action" not in b.evaluate("() => window.__sent")
            b.tap("#history-turn")
            b.wait_for_selector("#history", state="hidden")
            assert b.locator("#actions button.act").first.is_visible()
            history_checked = True
        for page in (a, b):
            act_passive(page)
        a.wait_for_timeout(120)
    a.wait_for_selector(".result-banner", timeout=10000)
    # a played hand: the banner came once every winner who showed had his cards up
    first = a.evaluate("() => window.__banner[0]")
    shown = a.evaluate("() => (window.studpoker.state.lastResult?.result?.shown ?? []).map((h) => h.seat)")
    for winner in first["winners"]:
        if winner["seat"] in shown:
            assert winner["down"] == 0, first
    assert bring_in_checked == {"a": True, "b": True}
    assert history_checked, "bob's turn never came"
    # The next hand: bob's panel, now with the hand he played, on his turn (docs/client.md).
    deadline = time.monotonic() + 60
    b.wait_for_function(
        "() => window.studpoker.state.hand && !window.studpoker.state.hand.over", timeout=30000
    )
    while not b.locator("#actions button.act").count():
        assert time.monotonic() < deadline, "bob's turn never came in the second hand"
        act_passive(a)
        b.wait_for_timeout(150)
    b.tap("#history-btn")
    b.wait_for_selector("#history-turn:not([hidden])", timeout=3000)
    b.wait_for_selector(".hand-entry pre", timeout=10000)
    b.wait_for_timeout(300)
    b.screenshot(path=str(SCREENSHOTS / "phone-history.png"))
    b.tap("#history-turn")
    for page in (a, b):
        page.click("#standup-btn")
    # (if the next hand has begun, the seats are given up at its end: play it out)
    deadline = time.monotonic() + 90
    while not all(p.evaluate("() => window.studpoker.state.yourSeat === null") for p in (a, b)):
        assert time.monotonic() < deadline, "stand up did not happen"
        for page in (a, b):
            act_passive(page)
        a.wait_for_timeout(200)
    assert not errors, errors
    ctx_a.close()
    ctx_b.close()
