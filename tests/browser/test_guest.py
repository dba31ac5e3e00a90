"""Watching without an account, and the lobby push: a visitor who has not logged in sees the
lobby update by itself (no polling) when someone sits down, watches a table as a guest, and is
asked to log in when he tries to sit."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.test_play import DESKTOP, register, take_seat

pytestmark = pytest.mark.browser


def test_guest_watches_and_the_lobby_updates_itself(browser: Any, server: Server) -> None:
    table = next(t for t in server.tables() if t["game"] == "RZ" and not t["seated"])
    table_id = table["id"]
    ctx_g = browser.new_context(viewport=DESKTOP)
    ctx_p = browser.new_context(viewport=DESKTOP)
    g, p = ctx_g.new_page(), ctx_p.new_page()
    errors: list[str] = []
    for page in (g, p):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    frames: list[str] = []
    g.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda data: frames.append(data if isinstance(data, str) else "")),
    )

    g.goto(server.url)
    g.wait_for_selector(f"tr[data-table='{table_id}']")
    assert g.locator("#me").is_hidden()  # not logged in
    # the guest socket subscribes to the lobby push
    g.wait_for_function("() => window.studpoker.lobbyLive === true", timeout=10000)
    assert g.locator(f"tr[data-table='{table_id}'] td.num").first.inner_text().startswith("0/")

    register(p, server, f"gina{int(time.time() * 1000) % 10**7}")
    take_seat(p, table_id)
    # pushed within a second or so (the polling fallback would take 15 s)
    started = time.monotonic()
    g.wait_for_selector(f"tr[data-table='{table_id}'] td.num >> text=/^1\\//", timeout=8000)
    assert time.monotonic() - started < 8
    assert any('"lobby_update"' in f for f in frames)

    # Watch without an account: the table and its player, no seat, no action bar.
    g.click(f"tr[data-table='{table_id}'] button.watch")
    g.wait_for_selector(".seat .plate >> text=gina")
    assert g.evaluate("() => window.studpoker.state.yourSeat") is None
    assert any('"guest": true' in f or '"guest":true' in f for f in frames)
    # Joining (sitting) needs an account: the guest is asked to log in, at the table.
    g.locator("#seats button.sit").first.click()
    g.wait_for_selector("#login-dialog[open]")
    assert "log in" in g.locator("#login-dialog h3").inner_text().lower()
    g.click("#login-dialog button[value='cancel']")
    assert not any('"type":"sit"' in f for f in frames)

    p.click("#standup-btn")
    p.wait_for_function("() => window.studpoker.state.yourSeat === null", timeout=15000)
    assert not errors, errors
    for ctx in (ctx_g, ctx_p):
        ctx.close()
