"""The replayer in Chromium (js/replayer.js): two players play a hand, one opens its Replay from
the History panel and steps through it (streets, equity bars, the result); the same hand's
public view logged out shows no down card before the showdown; a PokerStars file picked on
#/replay is replayed; the History panel's per-hand PokerStars download."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import click_passive, hole_cards, register, take_seat

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
STARS = Path(__file__).resolve().parents[1] / "data" / "pokerstars" / "stud_allin_sidepots.txt"


def replay_state(page: Any) -> dict[str, Any]:
    """What the replayer shows now: the step, the street, the equity rows, the cards."""
    state: dict[str, Any] = page.evaluate(
        """() => {
            const root = document.querySelector('#view-replay');
            return {
                step: Number(root.dataset.step), steps: Number(root.dataset.steps),
                street: document.querySelector('#replay-street').textContent,
                equity: [...document.querySelectorAll('#replay-equity .equity-row')].map(
                    r => [Number(r.dataset.seat), Number(r.dataset.equity)]),
                method: document.querySelector('[data-equity-method]')?.textContent ?? null,
                seatBars: document.querySelectorAll('#replay-seats .replay-seat-equity').length,
                current: document.querySelector('#replay-actions li.current')?.dataset.step ?? null,
                faces: [...document.querySelectorAll('#replay-seats .seat')].map(s => ({
                    seat: Number(s.dataset.seat), hero: s.classList.contains('hero'),
                    cards: [...s.querySelectorAll('.card')].map(c => c.dataset.card ?? null)})),
                banner: document.querySelector('#replay-center .result-banner')?.textContent ?? null,
            };
        }"""
    )
    return state


def step_through(page: Any) -> list[dict[str, Any]]:
    """Every step from the first, with the right arrow key."""
    page.keyboard.press("Home")
    seen = [replay_state(page)]
    while seen[-1]["step"] < seen[-1]["steps"] - 1:
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            f"() => Number(document.querySelector('#view-replay').dataset.step) === {seen[-1]['step'] + 1}"
        )
        seen.append(replay_state(page))
    return seen


def test_replay_a_hand_played_its_public_view_and_a_dropped_file(browser: Any, server: Server) -> None:
    table = next(t for t in server.tables() if t["game"] == "7S" and not t["seated"])
    ctx_a = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    ctx_b = browser.new_context(viewport=DESKTOP)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    suffix = str(int(time.time() * 1000) % 10**7)
    register(a, server, f"rita{suffix}")
    register(b, server, f"sam{suffix}")
    take_seat(a, table["id"])
    take_seat(b, table["id"])
    a.wait_for_selector(".seat.hero .card.hole[data-card]")
    mine: set[str] = set()
    deadline = time.monotonic() + 150
    while not a.locator(".result-banner").count():
        assert time.monotonic() < deadline, "the hand did not finish"
        mine |= hole_cards(a)
        for page in (a, b):
            click_passive(page)
        a.wait_for_timeout(150)
    theirs = hole_cards(b)

    # The History panel: the hand with its Replay, Public view and PokerStars download.
    a.click("#history-btn")
    a.wait_for_selector(".hand-entry pre", timeout=15000)  # the hand is stored
    hand_id = a.get_attribute(".hand-entry", "data-hand")
    assert hand_id
    with a.expect_download() as download:
        a.click(".hand-entry .download-pokerstars")
    text = Path(download.value.path()).read_text()
    assert text.startswith("PokerStars Hand #"), text[:80]
    assert f"Dealt to rita{suffix} [" in text

    with ctx_a.expect_page() as opened:
        a.click(".hand-entry .replay-link")
    r = opened.value
    r.on("pageerror", lambda exc: errors.append(str(exc)))
    r.wait_for_selector("#replay-body:not([hidden]) #replay-seats .seat")
    assert "saw it" in r.inner_text("#replay-sees")
    steps = step_through(r)
    streets = [s["street"] for s in steps]
    for street in ("3rd street", "4th street", "5th street", "6th street", "7th street"):
        assert street in streets, streets
    with_equity = [s for s in steps if s["equity"]]
    assert with_equity and all(abs(sum(e for _, e in s["equity"]) - 1) < 1e-6 for s in with_equity)
    assert len({str(s["equity"]) for s in with_equity}) >= 4, "the equity did not change by street"
    assert all(s["seatBars"] == len(s["equity"]) for s in with_equity)
    assert all(
        s["method"] and ("exact" in s["method"] or "sampled" in s["method"] or "result" in s["method"])
        for s in with_equity
    )
    assert [s["current"] for s in steps] == [str(s["step"]) for s in steps]  # the action list follows
    final = steps[-1]
    assert final["banner"] and "wins" in final["banner"]
    # Her own down cards face up all along; his hidden until the showdown turns them up.
    hero = next(f for f in final["faces"] if f["hero"])
    assert mine <= set(hero["cards"]), (mine, hero)
    other = next(f for f in steps[2]["faces"] if not f["hero"] and f["cards"])
    assert not theirs & set(other["cards"]), (theirs, other)
    fifth = next(s["step"] for s in steps if s["street"] == "5th street")
    r.keyboard.press("Home")
    for _ in range(fifth):
        r.click("#replay-next")
    r.wait_for_timeout(200)
    r.screenshot(path=str(SCREENSHOTS / "replayer.png"))
    r.click("#replay-play")  # plays on by itself to the end
    r.wait_for_function(
        "() => { const v = document.querySelector('#view-replay'); return Number(v.dataset.step) > "
        f"{fifth}; }}",
        timeout=10000,
    )

    # The public view, logged out: nobody's down card before the showdown, the result at the end.
    ctx_w = browser.new_context(viewport=DESKTOP)
    w = ctx_w.new_page()
    w.on("pageerror", lambda exc: errors.append(str(exc)))
    w.goto(f"{server.url}#/hand/{hand_id}")
    w.wait_for_selector("#replay-body:not([hidden]) #replay-seats .seat")
    assert "watcher" in w.inner_text("#replay-sees")
    public = step_through(w)
    shown_at = next(
        i
        for i, s in enumerate(public)
        if s["banner"] or any(c in (mine | theirs) for f in s["faces"] for c in f["cards"])
    )
    for s in public[:shown_at]:
        assert not any(f["hero"] for f in s["faces"])
        assert not (mine | theirs) & {c for f in s["faces"] for c in f["cards"]}, s
    assert public[-1]["banner"] and "wins" in public[-1]["banner"]
    assert w.locator("#replay-extras .download-phh").count() == 1

    # A PokerStars file picked on #/replay (the drop zone's file input): its two hands, the hero's view.
    w.goto(f"{server.url}#/replay")
    w.wait_for_selector("#replay-drop:not([hidden])")
    w.set_input_files("#replay-file", str(STARS))
    w.wait_for_selector("#replay-body:not([hidden]) #replay-seats .seat")
    assert w.locator("#replay-hand option").count() == 2
    assert "Bob" in w.inner_text("#replay-sees")
    dropped = step_through(w)
    assert {"3rd street", "7th street"} <= {s["street"] for s in dropped}
    assert any(s["equity"] for s in dropped) and dropped[-1]["banner"]
    w.select_option("#replay-hand", "1")
    w.wait_for_function("() => document.querySelector('#view-replay').dataset.hand === '1002'")
    assert replay_state(w)["step"] == 0

    assert not errors, errors
    for ctx in (ctx_a, ctx_b, ctx_w):
        ctx.close()


# A stud hand as the room writes it: bo brings in after 3.5 s of his time bank, cy's whole bank
# (7 s) runs before the clock makes him all-in, protected (R-TIME-BANK, R-TIMEOUT).
NOTED_PHH = """variant = "F7S"
ante_trimming_status = true
antes = [20, 20, 20]
bring_in = 50
small_bet = 100
big_bet = 200
starting_stacks = [3000, 3000, 3000]
actions = [
    "d dh p1 4sJhAd", "d dh p2 6hQsJc", "d dh p3 4d8sAh",
    "p2 pb # time bank 3.5 s",
    "# p3 time bank 7.0 s",
    "# p3 timed out: all-in under disconnect protection",
    "p1 cc",
    "d dh p1 As", "d dh p2 Ac", "d dh p3 8d", "p1 cc", "p2 cc",
    "d dh p1 Qc", "d dh p2 Tc", "d dh p3 9c", "p1 cc", "p2 cc",
    "d dh p1 9s", "d dh p2 6d", "d dh p3 7d", "p1 cc", "p2 cc",
    "d dh p1 5h", "d dh p2 7c", "d dh p3 6s", "p1 cc", "p2 cc",
    "p1 sm 4sJhAdAsQc9s5h", "p2 sm", "p3 sm",
]
seats = [1, 2, 3]
players = ["ann", "bo", "cy"]
finishing_stacks = [3090, 2930, 2980]
"""


def test_the_replayer_says_the_time_bank_used_and_the_timeout(
    browser: Any, server: Server, tmp_path: Path
) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    path = tmp_path / "noted.phh"
    path.write_text(NOTED_PHH)
    page.goto(f"{server.url}#/replay")
    page.wait_for_selector("#replay-drop:not([hidden])")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-body:not([hidden]) #replay-seats .seat")
    # The action list: each note under the line of its decision.
    lines = page.eval_on_selector_all(
        "#replay-actions li",
        "els => els.map(li => [li.dataset.kind,"
        " [...li.querySelectorAll('.replay-note')].map(n => n.textContent)])",
    )
    noted = [(kind, notes) for kind, notes in lines if notes]
    assert noted == [
        ("action", ["bo used 3.5 s of the time bank"]),
        ("timeout", ["cy used 7.0 s of the time bank", "cy timed out: protected all-in"]),
    ], lines
    # At that step the table says it under cy's plate (his name is on the plate already).
    step = next(i for i, (kind, _) in enumerate(lines) if kind == "timeout")
    page.click(f"#replay-actions li[data-step='{step}']")
    note = page.locator("#replay-seats .seat[data-seat='3'] .replay-note")
    note.wait_for(timeout=5000)
    assert note.inner_text() == "used 7.0 s of the time bank; timed out: protected all-in"
    assert page.locator("#replay-seats .replay-note").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "replayer-notes.png"))
    # The next step (ann calls) notes nothing.
    page.click(f"#replay-actions li[data-step='{step + 1}']")
    page.wait_for_function(
        "(step) => document.querySelector('#view-replay').dataset.step === String(step)", arg=step + 1
    )
    assert page.locator("#replay-seats .replay-note").count() == 0
    assert not errors, errors
    ctx.close()
