"""The browser draws, the server decides (issue 14, point 7): the hand model in state.js is a
store of what the server said. A fresh snapshot mid-hand and the events since the hand began
give the same model; the pots, bets, stacks and flags drawn are the ``changes`` the server sent,
even where a client working them out from the events would have drawn something else; the
replayer draws the pots its steps carry."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.test_play import click_passive, register, take_seat

pytestmark = pytest.mark.browser

TABLE = 9999  # the scripted hand's table: none of the server's (nothing real reaches it)
STARS = Path(__file__).resolve().parents[1] / "data" / "pokerstars" / "stud_allin_sidepots.txt"

# Per game: the street on which a fresh snapshot is asked for, and the one the test stops at.
STREETS = {"RZ": ("fifth", "seventh"), "O8": ("turn", "river")}

# In the page: the hand models a TableState builds from every message since the hand began, and
# from the fresh snapshot asked for on `street`, with what the table would draw of each.
BOTH_MODELS = """async ({ frames, street }) => {
    const { TableState } = await import('/js/state.js');
    const messages = frames.filter(Boolean).map((f) => JSON.parse(f));
    const snapshots = messages.filter((m) => m.type === 'table_state');
    const first = snapshots[0];
    const fresh = snapshots.find((m) => m.hand && m.hand.street === street);
    const live = new TableState(first.table_id);
    live.applySnapshot(first);
    for (const m of messages) {
        if (m.type === 'table_state' || m.table_id !== first.table_id) continue;
        if (typeof m.version === 'number' && m.version > fresh.version) break;
        live.applyMessage(m);
    }
    const snap = new TableState(fresh.table_id);
    snap.applySnapshot(fresh);
    return {
        firstHand: first.hand, version: live.version, freshVersion: fresh.version,
        live: live.hand, snap: snap.hand, liveView: live.view().pots, snapView: snap.view().pots,
    };
}"""


def record_frames(page: Any, into: list[str]) -> None:
    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: into.append(payload if isinstance(payload, str) else ""))

    page.on("websocket", on_socket)


def free_table(server: Server, game: str) -> int:
    """The last free table of the game at the low stakes (the other suites take the first)."""
    tables = [t for t in server.tables() if t["game"] == game and not t["seated"] and t["min_buy_in"] <= 5000]
    assert tables, f"no free {game} table"
    table_id: int = tables[-1]["id"]
    return table_id


@pytest.mark.parametrize("game", list(STREETS))
def test_a_snapshot_mid_hand_and_the_events_make_one_model(browser: Any, server: Server, game: str) -> None:
    """Two players play a hand; mid-hand a player and a guest watching ask for a fresh snapshot
    (resync). The model built from that snapshot equals the one built from every message since
    the hand began, for the player (his own down cards) and for the guest (the public copy)."""
    resync_on, stop_on = STREETS[game]
    table_id = free_table(server, game)
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(3)]
    a, b, w = (ctx.new_page() for ctx in contexts)
    errors: list[str] = []
    for page in (a, b, w):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    frames: dict[str, list[str]] = {"player": [], "guest": []}
    record_frames(a, frames["player"])
    record_frames(w, frames["guest"])
    suffix = str(int(time.time() * 1000) % 10**7)
    register(a, server, f"ann{suffix}")
    register(b, server, f"ben{suffix}")
    w.goto(server.url)
    w.wait_for_selector(f"tr[data-table='{table_id}'] button.watch")
    w.click(f"tr[data-table='{table_id}'] button.watch")
    w.wait_for_selector("#view-table:not([hidden])")
    take_seat(a, table_id)
    take_seat(b, table_id)
    a.wait_for_selector(".seat.hero .card.hole[data-card]")
    asked = False
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, f"the hand did not reach {stop_on}"
        street = a.evaluate("() => window.studpoker.state?.hand?.street ?? null")
        if street == resync_on and not asked:
            resync = "(id) => window.studpoker.socket.send({ type: 'resync', table_id: id })"
            for page in (a, w):
                page.evaluate(resync, table_id)
            asked = True
        if street == stop_on:
            break
        for page in (a, b):
            click_passive(page)
        a.wait_for_timeout(120)
    for name, page in (("player", a), ("guest", w)):
        out = page.evaluate(BOTH_MODELS, {"frames": frames[name], "street": resync_on})
        assert out["firstHand"] is None, "joined before the hand: the live model came from its events"
        assert out["version"] == out["freshVersion"]
        assert out["live"] == out["snap"], name
        assert out["liveView"] == out["snapView"]
        hand = out["snap"]
        assert hand["street"] == resync_on and len(hand["players"]) == 2 and hand["pots"]
        assert all(p["stack"] is not None and p["contributed"] > 0 for p in hand["players"])
        known_down = [c["card"] for p in hand["players"] for c in p["cards"] if not c["up"] and c["card"]]
        assert len(known_down) == ({"RZ": 2, "O8": 4}[game] if name == "player" else 0), (name, hand)
        if game == "O8":
            assert hand["button"] in (p["seat"] for p in hand["players"]) and len(hand["board"]) == 4
    assert not errors, errors
    for ctx in contexts:
        ctx.close()


def told(seat: int, stack: int, bet: int, put: int, **flags: bool) -> dict[str, Any]:
    """One seat as the ``changes`` of a frame tell it."""
    seat_flags = {"folded": False, "all_in": False, "protected": False, **flags}
    return {"seat": seat, "stack": stack, "bet": bet, "contributed": put, **seat_flags}


def scripted_hand() -> list[dict[str, Any]]:
    """A scripted stud hand in the server's messages whose ``changes`` are not what the events
    suggest (no server would send these): a client doing arithmetic on the events, as the old
    reducer did, would draw other numbers and flags."""
    seats = [
        {"seat": s, "account_id": s, "name": n, "stack": 5000, "sitting_out": False, "connected": True,
         "is_bot": False}
        for s, n in ((1, "alice"), (3, "bob"), (5, "carol"))
    ]  # fmt: skip
    table = {"id": TABLE, "name": "Lyon", "game": "7S", "small_bet": 100, "big_bet": 200, "ante": 20,
             "bring_in": 50, "max_seats": 8, "min_buy_in": 2000, "max_buy_in": 10000}  # fmt: skip
    snapshot = {"type": "table_state", "table_id": TABLE, "version": 1, "table": table, "seats": seats,
                "your_seat": None, "hand_id": None, "hand": None, "clock": None}  # fmt: skip
    out: list[dict[str, Any]] = [snapshot]

    def push(message: dict[str, Any]) -> None:
        out.append({**message, "table_id": TABLE, "version": out[-1]["version"] + 1, "hand_id": "h4"})

    pots = [{"amount": 2200, "eligible": [1, 3, 5]}, {"amount": 1200, "eligible": [3, 5]}]
    push({"type": "hand_started", "game": "7S", "commitment": "cd" * 32, "seats": [1, 3, 5]})
    push({"type": "event", "event": {"kind": "hand_start", "detail": "7S"}})
    push({
        "type": "event",
        "event": {"kind": "action", "seat": 3, "action": "bet", "amount": 1000},
        "changes": {
            "street": "fourth", "to_act": 5, "button": None, "bring_in_seat": 3, "is_over": False,
            "pots": pots,
            "seats": [told(1, 0, 0, 700, all_in=True), told(3, 3777, 777, 1900), told(5, 4100, 300, 1400)],
        },
    })  # fmt: skip
    # a fold event, but the server says seat 5 is still in: the client believes the server
    push({
        "type": "event",
        "event": {"kind": "action", "seat": 5, "action": "fold"},
        "changes": {"to_act": 3, "seats": [told(5, 4000, 400, 1500)]},
    })  # fmt: skip
    return out


DRAWN = """() => {
    const seatOf = (e) => e.closest('[data-seat]').dataset.seat;
    const all = (selector) => [...document.querySelectorAll(selector)];
    return {
        pots: all('#center .pot').map((e) => e.textContent.trim()),
        bets: Object.fromEntries(all('.bet').map((e) => [e.dataset.seat, e.textContent])),
        stacks: Object.fromEntries(all('.seat[data-seat] .stack').map((e) => [seatOf(e), e.textContent])),
        folded: all('.seat.folded').map((e) => e.dataset.seat),
        allIn: all('.seat.all-in').map((e) => e.dataset.seat),
        toAct: all('.seat.to-act').map((e) => e.dataset.seat),
        street: document.querySelector('#center .street-label')?.textContent ?? null,
    };
}"""


def test_a_pot_and_a_side_pot_are_drawn_as_the_server_said(browser: Any, server: Server) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(server.url)
    # the page's own socket first: when it opens it joins the table in app.state
    page.wait_for_function("() => window.studpoker?.socket?.isOpen()")
    page.evaluate(
        """async (id) => {
            const { TableState } = await import('/js/state.js');
            const app = window.studpoker;
            document.querySelector('#view-lobby').hidden = true;
            document.querySelector('#view-table').hidden = false;
            app.tableId = id;
            app.state = new TableState(id, {});
            app.state.subscribe((st, reason) => app.onState(st, reason));
        }""",
        TABLE,
    )
    messages = scripted_hand()
    for message in messages[:-1]:
        page.evaluate("(m) => window.studpoker.handle(m)", message)
    out = page.evaluate(DRAWN)
    # the server's main pot and side pot, whatever the contributions would have made of them
    assert out["pots"] == ["Main pot 22.00", "Side pot 1 12.00"]
    assert out["bets"] == {"3": "7.77", "5": "3.00"}  # not the 10.00 the bet event names
    assert out["stacks"] == {"1": "0.00", "3": "37.77", "5": "41.00"}
    assert out["allIn"] == ["1"] and out["folded"] == [] and out["toAct"] == ["5"]
    assert out["street"] == page.evaluate("async () => (await import('/js/format.js')).streetName('fourth')")
    page.evaluate("(m) => window.studpoker.handle(m)", messages[-1])
    out = page.evaluate(DRAWN)
    assert out["folded"] == []  # the fold event changes nothing the server did not say
    assert out["bets"] == {"3": "7.77", "5": "4.00"} and out["stacks"]["5"] == "40.00"
    assert out["pots"] == ["Main pot 22.00", "Side pot 1 12.00"] and out["toAct"] == ["3"]
    model = page.evaluate("() => window.studpoker.state.hand")
    assert model["pots"] == messages[3]["changes"]["pots"]  # the server's list, as it came
    context.close()


def test_the_replayer_draws_the_pots_its_steps_carry(browser: Any, server: Server) -> None:
    """The replayer's pots are its steps' (server/replays.py), drawn as the table draws them: at
    each step the pots of the street's start (the last step with no bet out: a step's own pots
    count the bets in front of the seats too). A PokerStars hand with all-ins and side pots."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{server.url}#/replay")
    page.wait_for_selector("#replay-drop:not([hidden])")
    expected = page.evaluate(
        """async (text) => {
            const { api } = await import('/js/api.js');
            const { drawnPots } = await import('/js/state.js');
            const data = await api.replayFile(new File([text], 'hands.txt'));
            const hand = data.hands[0];
            const { money } = await import('/js/format.js');
            // the replayer's amounts: chips, or money with the file's currency
            const shown = (amount) => (hand.units === 'chips' ? Number(amount).toLocaleString('en-US')
                : `${hand.currency_symbol ?? ''}${money(amount)}`);
            let gathered = [];
            return hand.steps.map((step, i) => {
                if (step.seats.every((s) => !s.bet)) gathered = step.pots;
                // the last step draws the result instead of the pots
                if (i === hand.steps.length - 1) return [];
                return drawnPots(gathered).map((p) => `${p.label} ${shown(p.amount)}`);
            });
        }""",
        STARS.read_text(),
    )
    page.set_input_files("#replay-file", str(STARS))
    page.wait_for_selector("#replay-body:not([hidden]) #replay-seats .seat")
    page.keyboard.press("Home")
    drawn: list[list[str]] = []
    for i in range(len(expected)):
        if i:
            page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => Number(document.querySelector('#view-replay').dataset.step) === {i}")
        texts = page.eval_on_selector_all("#replay-center .pot", "els => els.map(e => e.textContent.trim())")
        drawn.append([" ".join(t.split()) for t in texts])
    assert drawn == expected
    assert any(len(pots) > 1 for pots in expected), "the hand has a side pot"
    context.close()
