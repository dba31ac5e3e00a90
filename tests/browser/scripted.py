"""A table page driven by scripted protocol messages: the tests hand the client what the server
would send (``window.studpoker.handle``), no server hand is played."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Server


def scripted_table(page: Any, server: Server) -> None:
    """The table view of table 1 for alice (account 1), fed only the messages :func:`handle` gives."""
    page.goto(server.url)
    # The page's own socket first (welcomed, the lobby pushed): taking over before it opens, its
    # onOpen would join the real table 1, whose hands then land in the scripted one (seen in CI
    # when another module was playing table 1 on a loaded machine).
    page.wait_for_function("() => window.studpoker?.socket?.isOpen() && window.studpoker.lobbyLive")
    page.evaluate(
        """async () => {
            const { TableState } = await import('/js/state.js');
            const app = window.studpoker;
            app.me = { id: 1, name: 'alice', bankroll: 100000 };
            document.querySelector('#view-lobby').hidden = true;
            document.querySelector('#view-table').hidden = false;
            app.tableId = 1;
            app.state = new TableState(1, {});
            app.state.myAccount = 1;
            app.state.subscribe((st, reason) => app.onState(st, reason));
        }"""
    )


def handle(page: Any, *messages: dict[str, Any]) -> None:
    """The client handles each message in turn, as if the server had sent it."""
    for message in messages:
        page.evaluate("(m) => window.studpoker.handle(m)", message)
