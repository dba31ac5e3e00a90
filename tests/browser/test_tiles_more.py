"""The tile view has the single table's remaining tools (issue 12): a guest clicks "Sit here" at a
tile, logs in from the dialog and is offered that seat there; a tile's mute button is the page's
one sound switch (and a key press after a reload unlocks the chime in the tile view too); a
tile's History button opens the page's History panel with that table's hands only; a closed
tile lets go of its keyboard listener, and a key pressed after it closed sends nothing for it
(the History key opens the History of the table that has the keyboard).
Writes tiles_tools.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.scripted import handle
from tests.browser.test_client import six_handed_messages
from tests.browser.test_table_fixes import AUDIO_SPY, audio, turn_snapshot
from tests.browser.test_tiles_tools import WIDE, free_stud_tables, on_table, seat_box, tile

pytestmark = pytest.mark.browser

# Two tables only the script speaks for (the room has no such ids).
FIRST, SECOND = 9201, 9202


def scripted_tiles(page: Any, server: Server, *, load: bool = True) -> None:
    """The tile view of FIRST and SECOND for alice (account 1), fed only what the tests hand it
    (``load``: in a freshly loaded page)."""
    if load:
        page.goto(server.url)
        page.wait_for_function("() => window.studpoker && window.studpoker.socket")
    page.evaluate(
        """([a, b]) => {
            sessionStorage.clear();
            const app = window.studpoker;
            app.me = { id: 1, name: 'alice', bankroll: 100000 };
            document.querySelector('#view-lobby').hidden = true;
            location.hash = `#/tiles/${a},${b}`;
        }""",
        [FIRST, SECOND],
    )
    page.wait_for_selector(f"{tile(FIRST)} .tile-bar")
    page.wait_for_selector(f"{tile(SECOND)} .tile-bar")


def test_a_guest_sits_at_a_tile_after_logging_in_from_it(browser: Any, server: Server) -> None:
    first, second = free_stud_tables(server, 2)
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_selector("#tables-body tr[data-table]")
    page.evaluate("h => { location.hash = h; }", f"#/tiles/{first},{second}")
    sit_here = f"{tile(second)} .seat button.sit[data-seat='3']"
    page.wait_for_selector(sit_here)
    assert page.locator(f"{tile(first)} .seat button.sit").count() > 0  # a guest: every empty seat
    page.click(sit_here)
    # The log-in dialog over the tiles: the page stays where it is.
    page.wait_for_selector("#login-dialog[open]")
    assert page.inner_text("#login-seat") == "3"
    assert page.evaluate("() => location.hash") == f"#/tiles/{first},{second}"
    name = f"tes{int(time.time() * 1000) % 10**7}"
    page.fill("#login-name", name)
    page.fill("#login-password", "password123")
    page.click("#login-register")
    # Logged in and the tiles joined again as the account: that tile's seat 3 is offered.
    page.wait_for_selector("#sit-dialog[open]", timeout=15000)
    assert page.inner_text("#sit-seat") == "3"
    assert page.inner_text("#me-name") == name
    page.click("#sit-confirm")
    page.wait_for_selector(f"{tile(second)} .seat.hero[data-seat='3'] .plate", timeout=15000)
    assert page.locator(f"{tile(first)} .seat.hero").count() == 0
    # Seated at the second table: its empty seats offer nothing more, the first's still do.
    assert page.locator(f"{tile(second)} .seat button.sit").count() == 0
    assert page.locator(f"{tile(first)} .seat button.sit").count() > 0
    seat_box(page, second, "Leave after this hand").check()
    page.wait_for_selector(f"{tile(second)} .seat.hero", state="detached", timeout=15000)
    assert not errors, errors
    context.close()


def test_a_tiles_mute_button_is_the_pages_sound_switch(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=WIDE)
    context.add_init_script(AUDIO_SPY)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    scripted_tiles(page, server)  # a fresh page, as after a reload: no gesture yet
    handle(page, *on_table([turn_snapshot(10)], FIRST, "h10"))
    assert audio(page)["oscillators"] == 0
    page.keyboard.press("x")  # the first key press unlocks the chime in the tile view too
    page.wait_for_function("() => __audio.contexts.some((c) => c.state === 'running')", timeout=3000)
    handle(page, *on_table([turn_snapshot(11)], SECOND, "h11"))
    assert audio(page)["oscillators"] == 2

    mutes = "#view-tiles .tile-mute"
    assert page.eval_on_selector_all(mutes, "els => els.map(e => e.getAttribute('aria-pressed'))") == [
        "false",
        "false",
    ]
    page.click(f"{tile(SECOND)} .tile-mute")
    # One switch for the page: both tiles' buttons, the table's button and the setting follow it.
    assert page.eval_on_selector_all(mutes, "els => els.map(e => e.getAttribute('aria-pressed'))") == [
        "true",
        "true",
    ]
    assert page.inner_text(f"{tile(FIRST)} .tile-mute") == "♪ Off"
    assert page.get_attribute("#mute-btn", "aria-pressed") == "true"
    assert page.evaluate("() => localStorage.getItem('studpoker.sound')") == "off"
    handle(page, *on_table([turn_snapshot(12)], FIRST, "h12"))
    assert audio(page)["oscillators"] == 2  # muted: no chime at either table
    page.click(f"{tile(FIRST)} .tile-mute")
    assert page.get_attribute(f"{tile(SECOND)} .tile-mute", "aria-pressed") == "false"
    handle(page, *on_table([turn_snapshot(13)], SECOND, "h13"))
    assert audio(page)["oscillators"] == 4
    assert not errors, errors
    context.close()


def test_a_tiles_history_button_shows_that_tables_hands(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    scripted_tiles(page, server)
    handle(page, *on_table(six_handed_messages(), FIRST, "h9201"))
    handle(page, *on_table(six_handed_messages()[:1], SECOND, "h9202"))  # seated, no hand yet
    assert page.locator("#history").is_hidden()
    page.click(f"{tile(FIRST)} .tile-history")
    # The page's History panel, over that tile, with the first table's hand.
    page.wait_for_selector(f"{tile(FIRST)} > #history:not([hidden])")
    assert page.inner_text("#history h3") == "Hand history · Marseille"
    entries = "#history .hand-entry"
    assert page.eval_on_selector_all(entries, "els => els.map(e => e.dataset.hand)") == ["h9201"]
    assert "alice wins" in page.inner_text(f"{entries} >> nth=0")
    page.evaluate("() => { document.querySelector('#toast').hidden = true; }")  # the scripted ids' errors
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / "tiles_tools.png"))
    # The second tile's button: the same panel with its own table's hands (none yet).
    page.click(f"{tile(SECOND)} .tile-history")
    assert page.locator(entries).count() == 0
    assert page.locator(f"{tile(SECOND)} > #history").is_visible()
    page.click(f"{tile(SECOND)} .tile-history")  # pressed again: closed
    assert page.locator("#history").is_hidden()
    # Opened for the first tile, which then closes: the panel goes with it.
    page.click(f"{tile(FIRST)} .tile-history")
    assert page.locator(entries).count() == 1
    page.click(f"{tile(FIRST)} .tile-close")
    page.wait_for_selector(tile(FIRST), state="detached")
    assert page.locator("#history").is_hidden()
    assert not errors, errors
    context.close()


def keydown_listeners(cdp: Any) -> int:
    """How many keydown listeners the page's window holds (DevTools' getEventListeners), but the
    capturing ones: the chime's unlock listens so until the first gesture (sound.js)."""
    win = cdp.send("Runtime.evaluate", {"expression": "window"})["result"]["objectId"]
    listeners = cdp.send("DOMDebugger.getEventListeners", {"objectId": win})["listeners"]
    cdp.send("Runtime.releaseObject", {"objectId": win})
    return sum(1 for e in listeners if e["type"] == "keydown" and not e["useCapture"])


def test_a_closed_tile_lets_go_of_the_keyboard(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sent: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda p: sent.append(json.loads(p) if isinstance(p, str) else {})),
    )
    page.goto(server.url)
    page.wait_for_function("() => window.studpoker && window.studpoker.socket")
    cdp = context.new_cdp_session(page)
    alone = keydown_listeners(cdp)
    scripted_tiles(page, server, load=False)
    handle(page, *on_table([turn_snapshot(10)], FIRST, "h10"))
    handle(page, *on_table([turn_snapshot(11)], SECOND, "h11"))
    page.wait_for_selector(f"{tile(FIRST)} .actions button[data-kind='fold']")
    tiled = keydown_listeners(cdp)
    assert tiled == alone + 2  # one action bar per tile

    page.click(f"{tile(FIRST)} .tile-close")
    page.wait_for_selector(tile(FIRST), state="detached")
    assert keydown_listeners(cdp) == alone + 1
    # The second table waits for you: its fold key acts there, and nothing goes for the first.
    del sent[:]
    page.keyboard.press("f")
    page.wait_for_function("() => !document.querySelector(\"#view-tiles .actions button[data-kind='fold']\")")
    actions = [m for m in sent if m.get("type") == "action"]
    assert [m["table_id"] for m in actions] == [SECOND], actions
    # The History key opens the History of the table with the keyboard (the second's), over it.
    handle(page, *on_table([turn_snapshot(12)], SECOND, "h12"))
    page.keyboard.press("h")
    page.wait_for_selector(f"{tile(SECOND)} > #history:not([hidden])")
    page.evaluate("() => { location.hash = '#/'; }")
    page.wait_for_selector("#view-lobby:not([hidden])")
    assert keydown_listeners(cdp) == alone  # the tile view left: no bar of it listens
    assert not errors, errors
    context.close()
