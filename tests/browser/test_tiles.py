"""The tile view (issue 12): a player seated at two tables plays both from one page. Each time
the server hands him a turn, the tile of that table is the highlighted one (the ring, the tab
title), the keyboard acts there and the action reaches that table; a reload restores both tiles."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import click_passive, register, take_seat

pytestmark = pytest.mark.browser

WIDE = {"width": 1440, "height": 900}

# What the page says about its tiles, in one go: the highlighted tile, the tiles waiting for the
# player (with when each turn reached him) and each tile's action buttons.
TILES_JS = """() => {
    const tiles = [...document.querySelectorAll('#view-tiles .tile')];
    const sessions = window.studpoker.tiles.sessions();
    return {
        ids: tiles.map(t => Number(t.dataset.table)),
        highlighted: tiles.filter(t => t.classList.contains('needs-you')).map(t => Number(t.dataset.table)),
        waiting: sessions.filter(s => s.needsYou()).map(s => [s.tableId, s.turnSince]),
        turns: sessions.filter(s => s.state?.yourTurn).map(s => s.tableId),
        buttons: Object.fromEntries(tiles.map(t => [t.dataset.table,
            [...t.querySelectorAll('.actions button.act')].map(b => b.dataset.kind)])),
        title: document.title,
    };
}"""


def test_one_player_plays_two_tables_in_tiles(browser: Any, server: Server) -> None:
    free = [t for t in server.tables() if t["game"] == "7S" and not t["seated"]]
    assert len(free) >= 2, "two empty Seven Card Stud tables are needed"
    first, second = free[0]["id"], free[1]["id"]
    ctx_h, ctx_1, ctx_2 = (browser.new_context(viewport=WIDE) for _ in range(3))
    hero, opp1, opp2 = ctx_h.new_page(), ctx_1.new_page(), ctx_2.new_page()
    errors: list[str] = []
    for page in (hero, opp1, opp2):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    sent: list[dict[str, Any]] = []  # the hero's action messages, as they left the page

    def on_socket(ws: Any) -> None:
        def record(payload: Any) -> None:
            message = json.loads(payload) if isinstance(payload, str) else {}
            if message.get("type") == "action":
                sent.append(message)

        ws.on("framesent", record)

    hero.on("websocket", on_socket)
    suffix = str(int(time.time() * 1000) % 10**7)
    register(hero, server, f"tina{suffix}")
    register(opp1, server, f"otto{suffix}")
    register(opp2, server, f"olga{suffix}")

    # The hero sits at both tables (one after the other, from the lobby), then opens them in tiles.
    take_seat(hero, first)
    hero.click("#view-table a.back-link")
    hero.wait_for_selector(f"tr[data-table='{second}'] button.join")
    take_seat(hero, second)
    hero.click("#view-table a.back-link")
    hero.wait_for_selector(f"tr[data-table='{first}'] .tile-pick input")
    assert hero.is_disabled("#open-tiles")
    hero.check(f"tr[data-table='{first}'] .tile-pick input")
    hero.check(f"tr[data-table='{second}'] .tile-pick input")
    hero.click("#open-tiles")
    hero.wait_for_url(f"**#/tiles/{first},{second}")
    hero.wait_for_selector("#view-tiles .tile .seat.hero .plate")
    assert hero.locator("#view-tiles .tile .seat.hero").count() == 2
    assert hero.is_hidden("#view-table")

    # An opponent at each table: the hands start.
    take_seat(opp1, first)
    take_seat(opp2, second)

    acted: dict[int, int] = {first: 0, second: 0}
    shot = False
    deadline = time.monotonic() + 150
    while acted[first] < 2 or acted[second] < 2:
        assert time.monotonic() < deadline, f"the hero did not get to act at both tables: {acted}"
        for page in (opp1, opp2):
            click_passive(page)
        tiles = hero.evaluate(TILES_JS)
        assert tiles["ids"] == [first, second]
        if not tiles["waiting"]:
            assert tiles["highlighted"] == [], tiles
            hero.wait_for_timeout(150)
            continue
        # the highlighted tile is the table whose turn reached him first, and only that one
        table_id = min(tiles["waiting"], key=lambda w: w[1])[0]
        assert tiles["highlighted"] == [table_id], tiles
        assert set(tiles["turns"]) >= {w[0] for w in tiles["waiting"]}
        name = next(t["name"] for t in server.tables() if t["id"] == table_id)
        assert tiles["title"].startswith(f"▶ Your turn: {name}"), tiles["title"]
        if not shot:
            hero.wait_for_timeout(300)
            hero.screenshot(path=str(SCREENSHOTS / "tiles.png"))
            shot = True
        # the keyboard acts on the highlighted table: bring in (B) or check / call (C)
        kinds = tiles["buttons"][str(table_id)]
        before = len(sent)
        hero.keyboard.press("b" if "bring_in" in kinds else "c")
        for _ in range(40):
            if len(sent) > before:
                break
            hero.wait_for_timeout(50)
        assert len(sent) == before + 1, f"one action per key press: {sent[before:]}"
        assert sent[-1]["table_id"] == table_id, (sent[-1], table_id)
        acted[table_id] += 1
        # the server took it: that table's turn is over (or a new one came)
        hero.wait_for_function(
            "([id, v]) => { const s = window.studpoker.tiles.sessions().find(x => x.tableId === id);"
            " return !s.state.yourTurn || s.state.yourTurn.version !== v; }",
            arg=[table_id, sent[-1]["version"]],
        )

    # A reload restores both tiles, each with the hero's seat and cards.
    hero.reload()
    hero.wait_for_selector("#view-tiles .tile .seat.hero .plate")
    hero.wait_for_function("() => document.querySelectorAll('#view-tiles .tile .seat.hero').length === 2")
    assert hero.evaluate(TILES_JS)["ids"] == [first, second]
    assert hero.is_hidden("#view-lobby")
    assert not errors, errors
    for ctx in (ctx_h, ctx_1, ctx_2):
        ctx.close()
