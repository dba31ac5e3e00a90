"""The wait list of a full table in the browser (issue 12): a player joins it from the lobby (the
lobby shows the count), another at the table; when a seat frees, the first is offered it
wherever he is, with a banner, its countdown and a chime; nobody else may take the seat held
for him; Take seat sits him with a buy-in; the next one offered a seat declines it."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, register
from tests.browser.test_table_fixes import AUDIO_SPY

pytestmark = pytest.mark.browser


def suffix() -> str:
    return str(int(time.time() * 1000) % 10**7)


class Filler:
    """A player over a bare socket who holds one seat of the table (sitting out: no hands)."""

    def __init__(self, server: Server, name: str) -> None:
        response = httpx.post(f"{server.url}api/register", json={"name": name, "password": "password123"})
        response.raise_for_status()
        self.sockets = contextlib.ExitStack()
        self.ws: ClientConnection = self.sockets.enter_context(
            connect(server.url.replace("http", "ws") + "ws")
        )
        self.request({"type": "auth", "token": response.json()["token"]}, "welcome")

    def request(self, message: dict[str, Any], answer: str = "ack") -> dict[str, Any]:
        self.ws.send(json.dumps({**message, "id": "f"}))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            reply: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
            if reply["type"] == answer or (reply["type"] == "error" and reply.get("ref") == "f"):
                assert reply["type"] == answer, reply
                return reply
        raise AssertionError(f"no {answer}")

    def sit(self, table_id: int, seat: int, buy_in: int) -> None:
        self.request({"type": "sit", "table_id": table_id, "seat": seat, "buy_in": buy_in})
        self.request({"type": "sit_out", "table_id": table_id})


@contextlib.contextmanager
def full_table(server: Server) -> Iterator[tuple[dict[str, Any], list[Filler]]]:
    """A free 8-seat table at 0.50/1, every seat taken by a filler."""
    tables = [t for t in server.tables() if t["game"] == "7S" and not t["seated"] and t["big_bet"] == 200]
    assert tables, "no free 7S 1/2 table"
    table = tables[-1]
    tag = suffix()
    fillers = [Filler(server, f"fill{n}x{tag}") for n in range(table["max_seats"])]
    try:
        for seat, filler in enumerate(fillers, start=1):
            filler.sit(table["id"], seat, table["min_buy_in"])
        yield table, fillers
    finally:
        for filler in fillers:
            with contextlib.suppress(Exception):
                filler.request({"type": "stand_up", "table_id": table["id"]})
            filler.sockets.close()


def banner(page: Any) -> str:
    page.wait_for_selector("#seat-offer:not([hidden])", timeout=15000)
    text: str = page.inner_text("#seat-offer-text")
    return text


def test_a_full_tables_wait_list_offers_the_freed_seat_in_turn(browser: Any, server: Server) -> None:
    with full_table(server) as (table, fillers):
        table_id = table["id"]
        contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
        contexts[0].add_init_script(AUDIO_SPY)
        walt, vera, sam = (c.new_page() for c in contexts)
        errors: list[str] = []
        for page in (walt, vera, sam):
            page.on("pageerror", lambda exc: errors.append(str(exc)))
        tag = suffix()
        for page, name in ((walt, "walt"), (vera, "vera"), (sam, "sam")):
            register(page, server, f"{name}{tag}")
        # Walt, in the lobby: the table is full, Join is replaced by the wait list.
        row = f"tr[data-table='{table_id}']"
        walt.wait_for_selector(f"{row} button.wait")
        assert walt.locator(f"{row} button.join").is_hidden()
        walt.click(f"{row} button.wait")
        walt.wait_for_selector(f"{row} button.wait >> text=Leave list (1st)")
        walt.wait_for_selector(f"{row} .waiting-count >> text=1 waiting")
        # Vera, at the table: she joins from there.
        vera.click(f"{row} button.watch")
        vera.wait_for_selector("#wait-btn:not([hidden])")
        assert vera.inner_text("#wait-btn") == "Join wait list (1 waiting)"
        vera.click("#wait-btn")
        vera.wait_for_function(
            "() => document.querySelector('#wait-btn').textContent === 'Leave wait list (2nd of 2)'"
        )
        # A seat frees: it is walt's, told in the lobby, with a chime.
        oscillators = walt.evaluate("() => __audio.oscillators")
        fillers[0].request({"type": "stand_up", "table_id": table_id})
        text = banner(walt)
        assert text.startswith(f"Seat 1 at {table['name']} is yours: take it within ")
        walt.wait_for_function("n => __audio.oscillators >= n + 3", arg=oscillators)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        walt.screenshot(path=str(SCREENSHOTS / "wait_list.png"))
        # Nobody else may take it: sam, off the list, is told why.
        sam.click(f"{row} button.watch")
        sam.click("#seats button.sit[data-seat='1']")
        sam.wait_for_selector("#sit-dialog[open]")
        sam.click("#sit-confirm")
        sam.wait_for_function(
            "() => !document.querySelector('#toast').hidden"
            " && document.querySelector('#toast').textContent.startsWith('the free seat is held')"
        )
        assert sam.evaluate("() => window.studpoker.state.yourSeat") is None
        # Walt takes it: to the table, the buy-in, seated.
        walt.click("#seat-offer-take")
        walt.wait_for_selector("#sit-dialog[open]", timeout=15000)
        assert walt.inner_text("#sit-seat") == "1"
        walt.click("#sit-confirm")
        walt.wait_for_selector(".seat.hero[data-seat='1'] .plate", timeout=15000)
        walt.wait_for_selector("#seat-offer", state="hidden")
        vera.wait_for_function(
            "() => document.querySelector('#wait-btn').textContent === 'Leave wait list (1st of 1)'"
        )
        # The next seat is vera's: she declines it, and the list is empty.
        fillers[1].request({"type": "stand_up", "table_id": table_id})
        assert banner(vera).startswith(f"Seat 2 at {table['name']} is yours")
        vera.click("#seat-offer-decline")
        vera.wait_for_selector("#seat-offer", state="hidden")
        vera.wait_for_function(
            "() => document.querySelector('#toast').textContent.includes('you declined the seat')"
        )
        line = next(t for t in server.tables() if t["id"] == table_id)
        assert line["waiting"] == 0
        walt.click("#standup-btn")
        assert not errors, errors
        for c in contexts:
            c.close()
