"""What a player keeps for himself (issue 12): notes and colour tags on opponents, shown at the
seat and in the lobby and kept across a reload; the live-cards tray of a stud hand, counted from
the up cards on the table (a folded player's included) and the viewer's outs; shortcuts rebound,
kept with the account across a reload, pressed at the table and listed in the help overlay.
Writes live_cards.png and notes.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, click_passive, register, take_seat

pytestmark = pytest.mark.browser


def suffix() -> str:
    return str(int(time.time() * 1000) % 10**7)


def free_table(server: Server, game: str) -> dict[str, Any]:
    """The last free table of the game at the lowest stakes (the other suites take the first)."""
    tables = [t for t in server.tables() if t["game"] == game and not t["seated"] and t["min_buy_in"] <= 5000]
    assert tables, f"no free {game} table"
    return tables[-1]


def api(page: Any, method: str, path: str) -> Any:
    return page.evaluate(
        """async ([method, path]) => {
            const token = localStorage.getItem('studpoker.token');
            const r = await fetch(path, { method, headers: { Authorization: `Bearer ${token}` } });
            return { status: r.status, body: await r.json().catch(() => null) };
        }""",
        [method, path],
    )


# ------------------------------------------------------------------------- live cards, as a unit


def counted(
    page: Any, hand: dict[str, Any], hero: int | None, hands: list[str] | None = None
) -> dict[str, Any]:
    """The tray's counts and the hero's outs; ``hands``: the game's hand rankings (its record's
    ``hands``), by default high and eight-or-better low."""
    result: dict[str, Any] = page.evaluate(
        """async ([hand, hero, hands]) => {
            const m = await import('/js/live_cards.js');
            const seen = m.seenCards(hand, hero);
            const outs = hands ? m.outsOf(seen, hands) : m.outsOf(seen);
            const r = (rank) => m.rankText(rank);
            const draw = (d) => d && [d.held, d.ranks.map(x => `${r(x.rank)}:${x.live}`), d.live];
            return {
                up: seen.up.map(c => c.card + (c.folded ? '*' : '')),
                byRank: Object.fromEntries(seen.byRank.map((n, i) => [r(i), n]).filter(([, n]) => n)),
                bySuit: seen.bySuit,
                outs: outs && {
                    pairs: outs.pairs.map(p => `${r(p.rank)}:${p.held}:${p.live}`),
                    flushes: outs.flushes.map(f => `${f.suit}:${f.held}:${f.live}`),
                    straight: draw(outs.straight),
                    low: draw(outs.low),
                },
            };
        }""",
        [hand, hero, hands],
    )
    return result


def cards(*spec: tuple[str | None, bool]) -> list[dict[str, Any]]:
    return [{"card": card, "up": up} for card, up in spec]


def test_live_cards_count_the_up_cards_and_the_outs(browser: Any, server: Server) -> None:
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(server.url)
    page.wait_for_selector("#tables-body tr")
    # the hero holds A K of spades down and Q J of spades up; a folded player showed T T, another A 2
    hand: dict[str, Any] = {
        "players": [
            {
                "seat": 1,
                "folded": False,
                "cards": cards(("As", False), ("Ks", False), ("Qs", True), ("Js", True)),
            },
            {
                "seat": 2,
                "folded": True,
                "cards": cards((None, False), (None, False), ("Ts", True), ("Th", True)),
            },
            {
                "seat": 3,
                "folded": False,
                "cards": cards((None, False), (None, False), ("Ac", True), ("2d", True)),
            },
        ],
        "community": [],
    }
    out = counted(page, hand, 1)
    assert Counter(out["up"]) == Counter(["Qs", "Js", "Ts*", "Th*", "Ac", "2d"])
    assert out["byRank"] == {"2": 1, "T": 2, "J": 1, "Q": 1, "A": 1}
    assert out["bySuit"] == [1, 1, 1, 3]  # clubs, diamonds, hearts, spades
    # his ranks: one ace seen elsewhere; his four spades: 5 spades seen (his and the folded T)
    assert out["outs"]["pairs"] == ["A:1:2", "K:1:3", "Q:1:3", "J:1:3"]
    assert out["outs"]["flushes"] == ["3:4:8"]
    # four to the broadway straight: the tens fill it, two of them are dead
    assert out["outs"]["straight"] == [4, ["T:2"], 2]
    assert out["outs"]["low"] is None
    # at razz flushes and straights do not count: only the ranks are outs
    razz = counted(page, hand, 1, ["razz"])["outs"]
    assert razz["flushes"] == [] and razz["straight"] is None and razz["pairs"] == out["outs"]["pairs"]

    # a low draw (2 4 7), a folded player's 4 and 8 up, the stud community card 3h
    hand = {
        "players": [
            {"seat": 4, "folded": False, "cards": cards(("2c", False), ("4d", False), ("7h", True))},
            {
                "seat": 6,
                "folded": True,
                "cards": cards((None, False), (None, False), ("4s", True), ("8c", True)),
            },
        ],
        "community": ["3h"],
    }
    out = counted(page, hand, 4)
    assert Counter(out["up"]) == Counter(["7h", "4s*", "8c*", "3h"])
    assert out["outs"]["low"] == [3, ["A:4", "3:3", "5:4", "6:4", "8:3"], 18]
    assert out["outs"]["pairs"] == ["7:1:3", "4:1:2", "2:1:3"]
    assert out["outs"]["straight"] is None and out["outs"]["flushes"] == []
    # the same cards at Seven Card Stud (high only): no low draw to count
    assert counted(page, hand, 4, ["high"])["outs"]["low"] is None
    assert counted(page, hand, 4, ["razz"])["outs"]["low"] == out["outs"]["low"]
    # a watcher sees the up cards and has no outs
    assert counted(page, hand, None)["outs"] is None
    page.context.close()


# ------------------------------------------------------------------------- notes and tags


def test_a_note_and_tag_at_the_seat_and_in_the_lobby(browser: Any, server: Server) -> None:
    table = free_table(server, "O8")
    ctx_a, ctx_b = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    tag = suffix()
    alice, bob = f"nora{tag}", f"olaf{tag}"
    register(a, server, alice)
    register(b, server, bob)
    take_seat(b, table["id"])
    a.click(f"tr[data-table='{table['id']}'] button.watch")
    a.wait_for_selector(f".seat .plate >> text={bob}")

    # alice writes a note on bob and tags him red
    plate = a.locator(f".seat:has(.plate .name:text-is('{bob}')) .plate")
    assert plate.locator(".tag-dot").count() == 0
    plate.locator(".note-btn").click()
    a.wait_for_selector("#note-dialog[open]")
    assert a.inner_text("#note-player") == bob
    a.fill("#note-text", "raises light from late position")
    a.click("#note-colours label[title='red']")
    a.click("#note-save")
    a.wait_for_selector("#note-dialog", state="hidden")
    dot = plate.locator(".tag-dot[data-colour='red']")
    dot.wait_for()
    assert dot.get_attribute("title") == "raises light from late position"

    # kept in the database: after a reload the dot is back, and the dialog holds the note
    a.reload()
    a.wait_for_selector(f".seat .plate >> text={bob}")
    plate.locator(".tag-dot[data-colour='red']").wait_for()
    plate.locator(".note-btn").click()
    a.wait_for_selector("#note-dialog[open]")
    assert a.input_value("#note-text") == "raises light from late position"
    assert a.is_checked("#note-colours input[value='red']")
    a.screenshot(path=str(SCREENSHOTS / "notes.png"))
    a.click("#note-dialog button[value='cancel']")

    # the lobby: bob's name with the dot on the line of the table he sits at
    a.click(".back-link")
    noted = a.locator(f"tr[data-table='{table['id']}'] .lobby-note[data-player='{bob}']")
    noted.wait_for()
    assert noted.locator(".tag-dot[data-colour='red']").count() == 1
    assert a.locator(f".lobby-note[data-player='{bob}']").count() == 1  # at his table only
    # the filters draw the rows again: the dot stays
    a.check("#filter-open")
    a.uncheck("#filter-open")
    noted.wait_for()

    # private: bob's page and bob's API know nothing of it
    assert b.locator(".tag-dot").count() == 0
    assert api(b, "GET", "/api/notes")["body"]["notes"] == []
    assert api(b, "GET", f"/api/notes/{bob}")["status"] == 404

    # deleting it takes the dot away
    a.click(f"tr[data-table='{table['id']}'] button.watch")
    plate.locator(".note-btn").click()
    a.click("#note-delete")
    a.wait_for_selector("#note-dialog", state="hidden")
    plate.locator(".tag-dot").wait_for(state="detached")
    assert api(a, "GET", "/api/notes")["body"]["notes"] == []
    b.click("#standup-btn")
    assert not errors, errors
    ctx_a.close()
    ctx_b.close()


# ------------------------------------------------------------------------- the live-cards tray


def up_cards_on_table(page: Any) -> list[str]:
    drawn: list[str] = page.eval_on_selector_all(
        "#seats .seat .cards .card[data-up='1'][data-card], #center .board .card[data-card]",
        "els => els.map(e => e.dataset.card)",
    )
    return drawn


def tray(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => {
            const root = document.querySelector('#live-cards');
            const all = (sel) => [...root.querySelectorAll(sel)];
            const sum = (sel) => all(sel).reduce((n, e) => n + Number(e.dataset.count), 0);
            return {
                shown: !root.hidden,
                up: Number(root.dataset.up),
                cards: all('[data-tray-card]').map(e => e.dataset.trayCard),
                folded: all('[data-tray-card][data-folded]').map(e => e.dataset.trayCard),
                ranks: sum('.lc-rank'),
                suits: sum('.lc-suit-count'),
                outs: all('[data-outs]').map(e => e.dataset.outs),
            };
        }"""
    )
    return result


def pairs_live(page: Any) -> dict[str, int]:
    found: list[list[str]] = page.eval_on_selector_all(
        "#live-cards [data-outs='pairs'] [data-rank]", "els => els.map(e => [e.dataset.rank, e.dataset.live])"
    )
    return {rank: int(live) for rank, live in found}


def folded_up_cards(page: Any) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#seats .seat.folded .cards .card[data-up='1'][data-card]", "els => els.map(e => e.dataset.card)"
    )
    return found


def test_the_tray_counts_the_up_cards_of_a_hand_in_play(browser: Any, server: Server) -> None:
    table = free_table(server, "RZ")
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    tag = suffix()
    for page, name in zip(pages, ("pia", "quin", "rolf"), strict=True):
        register(page, server, f"{name}{tag}")
    for page in pages:
        take_seat(page, table["id"])
    # one of the three folds on his first turn; the other two play on passively
    folder = None
    deadline = time.monotonic() + 120
    while folder is None:
        assert time.monotonic() < deadline, "nobody could fold"
        for page in pages:
            fold = page.locator("#actions button[data-kind='fold']")
            if fold.count():
                fold.first.click()
                folder = page
                break
            click_passive(page)
        pages[0].wait_for_timeout(150)
    others = [p for p in pages if p is not folder]
    watcher = others[0]
    watcher.wait_for_function("() => document.querySelectorAll('#seats .seat.folded').length === 1")
    watcher.wait_for_selector("#live-cards:not([hidden])")
    for attempt in range(2):  # as it played, then after a reload (from the snapshot)
        drawn = up_cards_on_table(watcher)
        seen = tray(watcher)
        assert seen["shown"] and seen["up"] == len(drawn) >= 3, (seen, drawn)
        assert Counter(seen["cards"]) == Counter(drawn)
        assert seen["ranks"] == seen["suits"] == len(drawn)
        assert seen["folded"] and Counter(seen["folded"]) == Counter(folded_up_cards(watcher))
        # the viewer's ranks, each with its cards neither up nor in his hand
        mine: list[str] = watcher.eval_on_selector_all(
            "#seats .seat.hero .cards .card[data-card]", "els => els.map(e => e.dataset.card)"
        )
        known = set(drawn) | set(mine)
        expected = {rank: 4 - sum(1 for c in known if c[0] == rank) for rank in {c[0] for c in mine}}
        assert pairs_live(watcher) == expected and mine
        if attempt == 0:
            watcher.screenshot(path=str(SCREENSHOTS / "live_cards.png"), full_page=True)
            watcher.reload()
            watcher.wait_for_selector("#seats .seat.folded .cards .card[data-up='1']")
            watcher.wait_for_selector("#live-cards:not([hidden]) [data-tray-card]")
    # the toggle hides it, and it stays hidden after a reload
    watcher.click("#live-cards-btn")
    assert watcher.locator("#live-cards").is_hidden()
    watcher.reload()
    watcher.wait_for_selector("#seats .seat .plate")
    watcher.wait_for_timeout(300)
    assert watcher.locator("#live-cards").is_hidden() and watcher.locator("#live-cards-btn").is_visible()
    watcher.click("#live-cards-btn")
    assert watcher.locator("#live-cards").is_visible()
    for page in pages:
        page.click("#standup-btn")
    assert not errors, errors
    for context in contexts:
        context.close()


# ------------------------------------------------------------------------- shortcuts


def test_call_rebound_kept_pressed_and_listed(browser: Any, server: Server) -> None:
    table = free_table(server, "7S8")
    ctx_a, ctx_b = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    sent: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        ws.on(
            "framesent",
            lambda payload: sent.append(json.loads(payload)) if isinstance(payload, str) else None,
        )

    a.on("websocket", on_socket)
    tag = suffix()
    register(a, server, f"sam{tag}")
    register(b, server, f"tia{tag}")
    # the page's defaults for guests are the room's
    assert (
        a.evaluate("async () => (await import('/js/shortcuts.js')).FALLBACK_SHORTCUTS")
        == (api(a, "GET", "/api/me/preferences")["body"]["defaults"])
    )

    # rebind "check or call" to X in the settings and save it with the account
    a.click("#settings-btn")
    key = a.locator("#shortcut-settings input.shortcut-key[data-action='call']")
    assert key.input_value() == "c"
    key.press("x")
    assert key.input_value() == "x"
    # a key already taken is refused before it is sent
    fold = a.locator("#shortcut-settings input.shortcut-key[data-action='fold']")
    fold.press("x")
    a.click("#shortcut-settings .shortcut-save")
    assert "both" in a.inner_text("#shortcut-settings .shortcut-message")
    fold.press("f")
    a.click("#shortcut-settings .shortcut-save")
    a.wait_for_selector("#shortcut-settings .shortcut-message >> text=Saved.")
    a.click("#settings button[value='ok']")
    assert api(a, "GET", "/api/me/preferences")["body"]["shortcuts"]["call"] == "x"

    take_seat(a, table["id"])
    take_seat(b, table["id"])
    a.reload()  # the binding comes back from the server
    a.wait_for_selector(".seat.hero .plate")
    passive = "#actions button[data-kind='call'], #actions button[data-kind='check']"
    deadline = time.monotonic() + 120
    while not a.locator(passive).count():
        assert time.monotonic() < deadline, "alice was never offered check or call"
        click_passive(b)
        if a.locator("#actions button[data-kind='bring_in']").count():
            click_passive(a)  # bringing in is its own key: not the test
        a.wait_for_timeout(150)
    button = a.locator(passive).first
    assert button.locator(".key").inner_text() == "X"
    kind = button.get_attribute("data-kind")
    before = len([m for m in sent if m.get("type") == "action"])
    a.keyboard.press("c")  # the old key does nothing now
    a.wait_for_timeout(400)
    assert len([m for m in sent if m.get("type") == "action"]) == before
    assert a.locator(passive).count() == 1
    a.keyboard.press("x")
    a.locator(passive).wait_for(state="detached")
    actions = [m for m in sent if m.get("type") == "action"]
    assert len(actions) == before + 1 and actions[-1]["kind"] == kind

    # ? opens the help overlay: every action with its key, call on X
    a.keyboard.press("?")
    a.wait_for_selector("#help-overlay[open]")
    assert a.inner_text("#help-overlay tr[data-action='call'] kbd") == "X"
    assert a.inner_text("#help-overlay tr[data-action='fold'] kbd") == "F"
    assert a.locator("#help-overlay tr[data-action]").count() == 8
    a.keyboard.press("Escape")
    a.wait_for_selector("#help-overlay", state="hidden")
    # bob kept the defaults
    assert api(b, "GET", "/api/me/preferences")["body"]["shortcuts"]["call"] == "c"
    for page in (a, b):
        page.click("#standup-btn")
    assert not errors, errors
    ctx_a.close()
    ctx_b.close()
