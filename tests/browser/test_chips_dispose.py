"""A closed tile's Chips panel lets go of the page's chips dialog (issue 12): each tile's panel
listens on the one shared dialog, and closing the tile takes its listeners off again (counted
through DevTools, as test_tiles_more counts the keyboard's), so the tiles opened and closed over
a session do not pile listeners up. The tile left open still adds chips, once, for its table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.scripted import handle
from tests.browser.test_table_fixes import turn_snapshot
from tests.browser.test_tiles_more import FIRST, SECOND, scripted_tiles
from tests.browser.test_tiles_tools import WIDE, on_table, tile

pytestmark = pytest.mark.browser

# The dialog's controls a panel listens on, and the event it listens for (chips.js).
CONTROLS = {
    "#chips-add": "click",
    "#chips-auto": "change",
    "#chips-auto-amount": "change",
    "#chips-amount": "input",
}


def dialog_listeners(cdp: Any) -> dict[str, int]:
    """How many listeners each of the chips dialog's controls holds for its event."""
    counts = {}
    for selector, event in CONTROLS.items():
        found = cdp.send("Runtime.evaluate", {"expression": f"document.querySelector('{selector}')"})
        element = found["result"]["objectId"]
        listeners = cdp.send("DOMDebugger.getEventListeners", {"objectId": element})["listeners"]
        cdp.send("Runtime.releaseObject", {"objectId": element})
        counts[selector] = sum(1 for e in listeners if e["type"] == event)
    return counts


def plus(counts: dict[str, int], more: int) -> dict[str, int]:
    return {selector: n + more for selector, n in counts.items()}


def test_a_closed_tile_lets_go_of_the_chips_dialog(browser: Any, server: Server) -> None:
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
    alone = dialog_listeners(cdp)  # the single table's panel
    assert all(n >= 1 for n in alone.values()), alone
    scripted_tiles(page, server, load=False)
    handle(page, *on_table([turn_snapshot(10)], FIRST, "h10"))
    handle(page, *on_table([turn_snapshot(11)], SECOND, "h11"))
    page.wait_for_selector(f"{tile(SECOND)} .tile-chips:not([hidden])")
    assert dialog_listeners(cdp) == plus(alone, 2)  # one panel per tile

    # The first tile's panel opened the dialog; its tile closes: the dialog closes with it.
    page.click(f"{tile(FIRST)} .tile-chips")
    page.wait_for_selector("#chips-dialog[open]")
    page.evaluate(f"() => {{ location.hash = '#/tiles/{SECOND}'; }}")
    page.wait_for_selector(tile(FIRST), state="detached")
    page.wait_for_function("() => !document.querySelector('#chips-dialog').open")
    assert dialog_listeners(cdp) == plus(alone, 1)

    # The tile left answers the dialog for its own table, and one request goes for one change.
    page.click(f"{tile(SECOND)} .tile-chips")
    page.wait_for_selector("#chips-dialog[open]")
    del sent[:]
    page.evaluate("() => { document.querySelector('#chips-auto-amount').value = '100.00'; }")  # no event
    page.check("#chips-auto")
    # The room has no such table: its answer (an error in the dialog) comes after every request sent.
    page.wait_for_function("() => document.querySelector('#chips-error').textContent !== ''")
    tops = [m for m in sent if m.get("type") == "auto_top_up"]
    assert [(m["table_id"], m["amount"]) for m in tops] == [(SECOND, 10000)], tops
    page.click("#chips-dialog button[value='cancel']")

    page.evaluate("() => { location.hash = '#/'; }")
    page.wait_for_selector("#view-lobby:not([hidden])")
    assert dialog_listeners(cdp) == alone  # the tile view left: none of its panels listens
    assert not errors, errors
    context.close()
