"""The client's modules in the real browser: the versioned state (gap -> resync), the action
buttons, the event reducer and the card drawing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser: Any, server: Server) -> Any:
    context = browser.new_context(viewport={"width": 1024, "height": 700})
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("#tables-body tr")
    yield page
    context.close()


def run(page: Any, module: str, body: str, arg: Any = None) -> Any:
    """Import js/<module>.js as `m` in the page and evaluate `body` (an async function body)."""
    script = f"async (arg) => {{ const m = await import('/js/{module}.js'); {body} }}"
    return page.evaluate(script, arg)


def test_state_versions_gap_asks_for_resync(page: Any) -> None:
    out = run(
        page,
        "state",
        """
        const gaps = [];
        const st = new m.TableState(7, { onGap: (id) => gaps.push(id) });
        const seats = (version) => ({ type: 'event', table_id: 7, version, event: { kind: 'seats' } });
        const early = st.applyMessage(seats(3));
        st.applySnapshot({ type: 'table_state', table_id: 7, version: 5, table: { game: '7S', max_seats: 8 },
                           seats: [], your_seat: null, hand_id: null, hand: null, clock: null });
        const stale = st.applyMessage(seats(5));
        const next = st.applyMessage({ type: 'event', table_id: 7, version: 6,
          event: { kind: 'clock', seat: 2, think_ends: 1, countdown_ends: 2 } });
        const turn = st.applyMessage({ type: 'your_turn', table_id: 7, version: 6, hand_id: 'h', seat: 2,
          options: [], think_ends: 1, countdown_ends: 2, server_time: 0 });
        const gap = st.applyMessage(seats(9));
        const gap2 = st.applyMessage(seats(10));
        return { early, stale, next, turn, gap, gap2, gaps, version: st.version, clock: st.clock.seat };
        """,
    )
    assert out["early"] is False  # before the snapshot: ignored, no resync
    assert out["stale"] is False and out["next"] is True and out["turn"] is True
    assert out["gap"] is False and out["gap2"] is False
    assert out["gaps"] == [7]  # one resync request, not one per message
    assert out["version"] == 6 and out["clock"] == 2


def test_clock_rides_on_the_event_and_paused_resumed(page: Any) -> None:
    out = run(
        page,
        "state",
        """
        const st = new m.TableState(7, {});
        st.applySnapshot({ type: 'table_state', table_id: 7, version: 5, table: { game: '7S', max_seats: 8 },
                           seats: [], your_seat: null, hand_id: null, hand: null, clock: null });
        const paused = st.applyMessage({ type: 'event', table_id: 7, version: 6, hand_id: null,
          event: { kind: 'paused', reason: 'database unavailable' } });
        const whilePaused = st.paused;
        st.applyMessage({ type: 'event', table_id: 7, version: 7, hand_id: null,
          event: { kind: 'resumed' } });
        const acted = st.applyMessage({ type: 'event', table_id: 7, version: 8, hand_id: 'h',
          event: { version: 3, kind: 'action', seat: 1, action: 'bring_in', amount: 50 },
          clock: { seat: 2, think_ends: 10, countdown_ends: 30, extended: false } });
        return { paused, whilePaused, after: st.paused, acted, clock: st.clock, version: st.version };
        """,
    )
    assert out["paused"] is True and out["whilePaused"] == "database unavailable" and out["after"] is None
    assert out["acted"] is True and out["version"] == 8
    assert out["clock"] == {"seat": 2, "think_ends": 10, "countdown_ends": 30, "extended": False}


def test_action_buttons_for_legal_options(page: Any) -> None:
    cases: list[tuple[list[tuple[Any, ...]], int, list[str]]] = [
        ([("fold", 0), ("call", 500), ("raise", 1000)], 0, ["Fold", "Call 5", "Raise to 10"]),
        ([("bring_in", 250), ("complete", 500)], 0, ["Bring in 2.50", "Complete to 5"]),
        ([("check", 0), ("bet", 500), ("bet", 1000)], 0, ["Check", "Bet 5 (small)", "Bet 10 (big)"]),
        ([("fold", 0), ("call", 1000), ("raise", 2000)], 500, ["Fold", "Call 5", "Raise to 20"]),
        ([("fold", 0), ("call", 300, True)], 0, ["Fold", "Call 3 (all-in)"]),
    ]
    for options, current, labels in cases:
        opts = [{"kind": o[0], "amount": o[1], "all_in": len(o) > 2} for o in options]
        got = run(page, "actions", "return m.buttonsFor(arg.opts, arg.current).map(b => b.label);",
                  {"opts": opts, "current": current})  # fmt: skip
        assert got == labels
    fold_call_raise = [
        {"kind": "fold", "amount": 0},
        {"kind": "call", "amount": 5},
        {"kind": "raise", "amount": 9},
    ]
    keys = run(page, "actions", "return m.buttonsFor(arg).map(b => b.key);", fold_call_raise)
    assert keys == ["f", "c", "r"]


def test_events_build_the_hand_and_pots(page: Any) -> None:
    out = run(
        page,
        "state",
        """
        const seats = [{ seat: 1, stack: 1000 }, { seat: 2, stack: 300 }, { seat: 3, stack: 1000 }];
        const st = { table: { game: '7S' }, seats, handSeats: [1, 2, 3] };
        let h = null;
        const evs = [
          { kind: 'hand_start', detail: '7S' },
          ...[1, 2, 3].map(seat => ({ kind: 'post_ante', seat, amount: 10 })),
          { kind: 'deal', seat: 1, cards: ['As'], detail: 'down' },
          { kind: 'deal', seat: 2, cards: [null], detail: 'down' },
          { kind: 'deal', seat: 2, cards: ['Kd'], detail: 'up' },
          { kind: 'street', street: 'third', seat: 2 },
          { kind: 'action', seat: 2, action: 'bring_in', amount: 25 },
          { kind: 'action', seat: 3, action: 'complete', amount: 50 },
          { kind: 'action', seat: 1, action: 'raise', amount: 400 },
          { kind: 'action', seat: 2, action: 'call', amount: 290, all_in: true },
          { kind: 'action', seat: 3, action: 'call', amount: 400 },
          { kind: 'street', street: 'fourth', seat: 1 },
        ];
        for (const ev of evs) h = m.reduceEvent(h, ev, st);
        const pots = m.potsOf(h);
        return { pots, p2: h.players[1], street: h.street, toAct: h.to_act };
        """,
    )
    assert out["street"] == "fourth" and out["toAct"] == 1
    assert out["p2"]["stack"] == 0 and out["p2"]["all_in"] is True
    assert out["p2"]["cards"] == [{"card": None, "up": False}, {"card": "Kd", "up": True}]
    assert [p["amount"] for p in out["pots"]] == [900, 220]
    assert out["pots"][0]["eligible"] == [1, 2, 3] and out["pots"][1]["eligible"] == [1, 3]


def test_cards_draw_and_four_colour(page: Any) -> None:
    out = run(
        page,
        "cards",
        """
        const face = (c) => {
          const d = document.createElement('div');
          d.innerHTML = m.cardSvg(c);
          return d.firstChild;
        };
        const fill = (c) => face(c).querySelector('text').getAttribute('fill');
        const two = [fill('Ad'), fill('Ac')];
        m.setFourColour(true);
        const four = [fill('Ad'), fill('Ac'), fill('Ah'), fill('As')];
        m.setFourColour(false);
        const label = (c) => face(c).getAttribute('aria-label');
        const ten = face('Td').querySelector('text').textContent;
        return { two, four, back: label(null), label: label(51), ten, parsed: m.parseCard(0).text };
        """,
    )
    assert out["two"][0] == "#c8102e" and out["two"][1] == "#1b1b1b"
    assert len(set(out["four"])) == 4
    assert out["back"] == "face-down card" and out["label"] == "ace of spades"
    assert out["ten"] == "10" and out["parsed"] == "2c"


def test_omaha_table_has_ten_seats_a_board_and_the_button(page: Any) -> None:
    hand = {
        "viewer": 1,
        "game": "O8",
        "street": "flop",
        "version": 30,
        "button": 3,
        "bring_in_seat": None,
        "board": ["Ah", "7d", "2c"],
        "pots": [],
        "to_act": 1,
        "legal": None,
        "is_over": False,
        "result": None,
        "seats": [
            {"seat": s, "stack": 5000, "bet": 0, "contributed": 200, "folded": False, "all_in": False,
             "protected": False, "down": ["As", "Kd", "3h", "4h"] if s == 1 else [None] * 4, "up": [],
             "shown": False}
            for s in (1, 3, 6, 9)
        ],
    }  # fmt: skip
    seats = [
        {"seat": s, "account_id": s, "name": f"p{s}", "stack": 5000, "sitting_out": False, "connected": True}
        for s in (1, 3, 6, 9)
    ]
    snapshot = {
        "type": "table_state",
        "table_id": 13,
        "version": 40,
        "table": {
            "id": 13,
            "name": "Omaha Hi/Lo 1/2",
            "game": "O8",
            "max_seats": 10,
            "small_bet": 100,
            "big_bet": 200,
        },
        "seats": seats,
        "your_seat": 1,
        "hand_id": "h",
        "hand": hand,
        "clock": None,
    }
    out = page.evaluate(
        """async (snapshot) => {
            const { TableState } = await import('/js/state.js');
            const { TableView } = await import('/js/table.js');
            document.querySelector('#view-lobby').hidden = true;
            document.querySelector('#view-table').hidden = false;
            const st = new TableState(13);
            st.applySnapshot(snapshot);
            const view = new TableView(document.querySelector('#table'), { onSit: null });
            view.render(st.view());
            const q = (sel) => [...document.querySelectorAll(sel)];
            return {
                seats: q('#seats .seat').length,
                board: q('#center .board .card').map(e => e.dataset.card),
                button: q('.marker.button').length,
                mine: q('.seat.hero .card.hole').map(e => e.dataset.card),
                backs: q('.seat:not(.hero) .card.back').length,
                pot: document.querySelector('#center .pot').textContent,
            };
        }""",
        snapshot,
    )
    assert out["seats"] == 10
    assert out["board"] == ["Ah", "7d", "2c"]
    assert out["button"] == 1
    assert out["mine"] == ["As", "Kd", "3h", "4h"]
    assert out["backs"] == 12
    assert "8" in out["pot"]


def test_pre_action_boxes_and_keyboard(page: Any) -> None:
    out = page.evaluate(
        """async () => {
            const { ActionBar } = await import('/js/actions.js');
            const root = document.createElement('div');
            root.innerHTML = '<div id="pre-actions"></div><div id="actions"></div>';
            document.body.appendChild(root);
            const sent = [];
            const bar = new ActionBar(root, { onAction: (b) => sent.push(`${b.kind}:${b.amount}`) });
            const hero = { seat: 2, isHero: true, inHand: true, bet: 0 };
            const waiting = { handId: 'h', hand: {}, seats: [hero], yourTurn: null, result: null };
            bar.update(waiting);
            const boxes = root.querySelector('#pre-actions').hidden ? 'hidden' : 'shown';
            root.querySelector('input[data-pre="call_any"]').click();
            const turn = (options) => ({ ...waiting, yourTurn: { options } });
            const fired = bar.update(turn([{ kind: 'fold', amount: 0 }, { kind: 'call', amount: 500 },
                                           { kind: 'raise', amount: 1000 }]));
            bar.update(turn([{ kind: 'fold', amount: 0 }, { kind: 'call', amount: 1000 },
                             { kind: 'raise', amount: 1500 }]));
            const labels = [...root.querySelectorAll('button')].map(b => b.textContent);
            document.dispatchEvent(new KeyboardEvent('keydown', { key: 'r', bubbles: true }));
            const after = root.querySelectorAll('button').length;
            root.remove();
            return { boxes, fired, sent, labels, after };
        }"""
    )
    assert out["boxes"] == "shown"
    assert out["fired"] is True  # "call any" answered the first offer by itself, once
    assert out["labels"] == ["FoldF", "Call 10C", "Raise to 15R"]
    assert out["sent"] == ["call:500", "raise:1500"]
    assert out["after"] == 0


def test_omaha_button_from_the_blinds(page: Any) -> None:
    out = run(
        page,
        "state",
        """
        const button = (seats, sb) => {
          const table = { game: 'O8' };
          const st = { table, seats: seats.map(seat => ({ seat, stack: 1000 })), handSeats: seats };
          let h = m.reduceEvent(null, { kind: 'hand_start', detail: 'O8' }, st);
          h = m.reduceEvent(h, { kind: 'post_blind', seat: sb, amount: 25, detail: 'small' }, st);
          return h.button;
        };
        return [button([1, 5, 8], 8), button([1, 5, 8], 1), button([3, 6], 3)];
        """,
    )
    assert out == [5, 8, 3]


def test_card_sheet_screenshot(page: Any) -> None:
    """All 52 faces and a back, two-colour then four-colour (docs/screenshots/cards.png)."""
    page.set_viewport_size({"width": 940, "height": 520})
    page.evaluate(
        """async () => {
            const m = await import('/js/cards.js');
            document.body.innerHTML = '';
            document.body.style.padding = '14px';
            const sheet = (four) => {
                m.setFourColour(four);
                const wrap = document.createElement('div');
                wrap.style.cssText = 'display:grid;grid-template-columns:repeat(14,60px);gap:6px';
                wrap.style.marginBottom = '14px';
                for (let suit = 3; suit >= 0; suit--) {
                    for (let rank = 12; rank >= 0; rank--) {
                        const el = m.cardElement(4 * rank + suit);
                        el.style.setProperty('--cw', '60px');
                        wrap.appendChild(el);
                    }
                    const back = m.cardElement(null);
                    back.style.setProperty('--cw', '60px');
                    wrap.appendChild(back);
                }
                document.body.appendChild(wrap);
            };
            sheet(false);
            sheet(true);
            m.setFourColour(false);
        }"""
    )
    assert page.locator(".card[data-card]").count() == 104
    page.screenshot(path=str(SCREENSHOTS / "cards.png"), full_page=True)


def six_handed_messages() -> list[dict[str, Any]]:
    """A scripted 7-stud hand in the server's message format: six seats (one disconnected, one
    sitting out), antes, a bring-in, a short all-in, a side pot and a showdown."""
    names = {1: "alice", 2: "bob", 4: "carol", 5: "dave", 7: "erin", 8: "frank"}
    stacks = {1: 20000, 2: 15000, 4: 9000, 5: 30000, 7: 500, 8: 12000}
    seats = [
        {"seat": s, "account_id": s, "name": n, "stack": stacks[s], "sitting_out": s == 8,
         "connected": s != 4, "is_bot": False}
        for s, n in names.items()
    ]  # fmt: skip
    table = {"id": 1, "name": "Marseille", "game": "7S", "small_bet": 500, "big_bet": 1000, "ante": 100,
             "bring_in": 250, "max_seats": 8, "min_buy_in": 10000, "max_buy_in": 50000}  # fmt: skip
    out: list[dict[str, Any]] = [
        {"type": "table_state", "table_id": 1, "version": 10, "table": table, "seats": seats, "your_seat": 1,
         "hand_id": None, "hand": None, "clock": None}
    ]  # fmt: skip

    def push(message: dict[str, Any]) -> None:
        out.append({**message, "table_id": 1, "version": out[-1]["version"] + 1})

    def event(**e: Any) -> None:
        push({"type": "event", "hand_id": "h1", "event": e})

    players = [1, 2, 4, 5, 7]
    push({"type": "hand_started", "hand_id": "h1", "game": "7S", "commitment": "ab" * 32, "seats": players})
    event(kind="hand_start", detail="7S")
    for s in players:
        event(kind="post_ante", seat=s, amount=100)
    cards: dict[int, list[str | None]] = {
        1: ["As", "Kd", "Qh", "Qs", "7c"], 2: [None, None, "3c"], 4: [None, None, "Jh"],
        5: [None, None, "8d", "8c", "Ac"], 7: [None, None, "4s", "4d", "Kc"],
    }  # fmt: skip
    for i in range(3):
        for s in players:
            event(kind="deal", seat=s, cards=[cards[s][i]], detail="up" if i == 2 else "down")
    event(kind="street", street="third", seat=2)
    event(kind="bring_in_player", seat=2)
    third: list[tuple[int, str, int | None]] = [
        (2, "bring_in", 250), (4, "call", 250), (5, "complete", 500), (7, "call", 400),
        (1, "raise", 1000), (2, "fold", None), (4, "fold", None), (5, "call", 1000),
    ]  # fmt: skip
    for seat, action, amount in third:
        event(kind="action", seat=seat, action=action, amount=amount, all_in=seat == 7)
    event(kind="street", street="fourth", seat=5)
    for s in (1, 5, 7):
        event(kind="deal", seat=s, cards=[cards[s][3]], detail="up")
    event(kind="action", seat=5, action="bet", amount=1000)
    event(kind="action", seat=1, action="call", amount=1000)
    shown: list[tuple[int, list[str], str, list[str]]] = [
        (5, ["2h", "3h", "8d", "8c", "Ac"], "Pair of Eights", ["8d", "8c", "Ac", "3h", "2h"]),
        (1, ["As", "Kd", "Qh", "Qs", "7c"], "Pair of Queens, Ace high", ["Qh", "Qs", "As", "Kd", "7c"]),
        (7, ["5c", "6c", "4s", "4d", "Kc"], "Pair of Fours", ["4s", "4d", "Kc", "6c", "5c"]),
    ]
    for seat, hand, name, _ in shown:
        event(kind="show", seat=seat, cards=hand, detail=name)
    event(kind="award", seat=1, amount=2200, pot=0, detail="whole")
    event(kind="award", seat=1, amount=3200, pot=1, detail="whole")
    event(kind="hand_end")

    def pot(index: int, amount: int, eligible: list[int]) -> dict[str, Any]:
        share = {"seat": 1, "amount": amount, "half": "whole"}
        return {"index": index, "amount": amount, "eligible": eligible, "shares": [share]}

    result = {
        "pots": [pot(0, 2200, [1, 5, 7]), pot(1, 3200, [1, 5])],
        "shown": [
            {"seat": s, "cards": h, "high": n, "high_cards": b, "low": None, "low_cards": []}
            for s, h, n, b in shown
        ],
        "mucked": [],
    }
    push({"type": "hand_finished", "hand_id": "h1", "result": result, "commitment": "ab" * 32})
    return out


def test_scripted_six_handed_showdown(browser: Any, server: Server) -> None:
    """The table drawn from a scripted stream of protocol messages (no server hand): seat states,
    side pots and the showdown; writes docs/screenshots/showdown-6max.png."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_function("() => window.studpoker")
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
    messages = six_handed_messages()
    before_showdown = next(i for i, m in enumerate(messages) if m.get("event", {}).get("kind") == "show")
    for message in messages[:before_showdown]:
        page.evaluate("(m) => window.studpoker.handle(m)", message)
    pots = page.locator("#center .pot").all_inner_texts()
    # main pot with erin all-in, side pot; the bets of 4th street are still in front of the players
    assert [p.split()[-1] for p in pots] == ["22", "12"]
    assert page.locator(".bet").all_inner_texts() == ["10", "10"]
    assert page.locator(".seat.disconnected").count() == 1
    assert page.locator(".seat.sitting-out").count() == 1
    assert page.locator(".seat.folded").count() == 2
    assert page.locator(".seat .tag.allin").count() == 1
    for message in messages[before_showdown:]:
        page.evaluate("(m) => window.studpoker.handle(m)", message)
    page.wait_for_timeout(1600)  # three hands turn up one after the other
    banner = page.inner_text(".result-banner")
    assert "Main pot 22: alice wins 22" in banner and "Side pot 1 32: alice wins 32" in banner
    assert page.locator(".seat .hand-name").count() == 3
    assert page.locator(".card.win").count() == 5
    page.screenshot(path=str(SCREENSHOTS / "showdown-6max.png"))
    context.close()
