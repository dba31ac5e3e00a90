"""The client's modules in the real browser: the versioned state (gap -> resync), the action
buttons, the event reducer and the card drawing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.scripted import handle, scripted_table

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
        ([("fold", 0), ("call", 500), ("raise", 1000)], 0, ["Fold", "Call 5.00", "Raise to 10.00"]),
        ([("bring_in", 250), ("complete", 500)], 0, ["Bring in 2.50", "Complete to 5.00"]),
        ([("check", 0), ("bet", 500), ("bet", 1000)], 0, ["Check", "Bet 5.00 (small)", "Bet 10.00 (big)"]),
        ([("fold", 0), ("call", 1000), ("raise", 2000)], 500, ["Fold", "Call 5.00", "Raise to 20.00"]),
        ([("fold", 0), ("call", 300, True)], 0, ["Fold", "Call 3.00 (all-in)"]),
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


def test_events_give_the_cards_and_their_changes_the_chips(page: Any) -> None:
    out = run(
        page,
        "state",
        """
        const seat = (seat, stack, bet, contributed, all_in = false) =>
          ({ seat, stack, bet, contributed, folded: false, all_in, protected: false });
        const frames = [
          { event: { kind: 'hand_start', detail: '7S' } },
          { event: { kind: 'deal', seat: 1, cards: ['As'], detail: 'down' } },
          { event: { kind: 'deal', seat: 2, cards: [null], detail: 'down' } },
          { event: { kind: 'deal', seat: 2, cards: ['Kd'], detail: 'up' },
            changes: { street: 'third', to_act: 2, bring_in_seat: 2, button: null, is_over: false,
                       pots: [{ amount: 30, eligible: [1, 2, 3] }],
                       seats: [seat(1, 990, 0, 10), seat(2, 290, 0, 10), seat(3, 990, 0, 10)] } },
          { event: { kind: 'action', seat: 2, action: 'call', amount: 290, all_in: true },
            changes: { to_act: 3, seats: [seat(2, 0, 290, 300, true)],
                       pots: [{ amount: 900, eligible: [1, 2, 3] }, { amount: 220, eligible: [1, 3] }] } },
        ];
        let h = null;
        for (const f of frames) h = m.applyHandEvent(h, f, '7S');
        return { pots: m.drawnPots(h.pots), p2: h.players[1], street: h.street, toAct: h.to_act };
        """,
    )
    assert out["street"] == "third" and out["toAct"] == 3
    assert out["p2"]["stack"] == 0 and out["p2"]["all_in"] is True and out["p2"]["bet"] == 290
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
        "pots": [{"amount": 800, "eligible": [1, 3, 6, 9]}],
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
    assert out["labels"] == ["FoldF", "Call 10.00C", "Raise to 15.00R"]
    assert out["sent"] == ["call:500", "raise:1500"]
    assert out["after"] == 0


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
    sitting out), antes, a bring-in, a short all-in, a side pot and a showdown. The last event
    of each batch carries the batch's ``changes`` (protocol 1.5): the chips, flags and pots the
    client draws."""
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

    def event(changes: dict[str, Any] | None = None, **e: Any) -> None:
        push({"type": "event", "hand_id": "h1", "event": e, **({"changes": changes} if changes else {})})

    def told(seat: int, stack: int, bet: int, put: int, **flags: bool) -> dict[str, Any]:
        return {"seat": seat, "stack": stack, "bet": bet, "contributed": put,
                **{"folded": False, "all_in": False, "protected": False, **flags}}  # fmt: skip

    def pots(*pots: tuple[int, list[int]]) -> list[dict[str, Any]]:
        return [{"amount": amount, "eligible": eligible} for amount, eligible in pots]

    everyone = [1, 2, 4, 5, 7]
    # What the server says after each action of third street: the pots in the middle hold the
    # antes until the street's bets are gathered (a fold changes who may win them).
    third_changes: list[dict[str, Any]] = [
        {"to_act": 4, "seats": [told(2, 14650, 250, 350)]},
        {"to_act": 5, "seats": [told(4, 8650, 250, 350)]},
        {"to_act": 7, "seats": [told(5, 29400, 500, 600)]},
        {"to_act": 1, "seats": [told(7, 0, 400, 500, all_in=True)]},
        {"to_act": 2, "seats": [told(1, 18900, 1000, 1100)]},
        {"to_act": 4, "seats": [told(2, 14650, 250, 350, folded=True)], "pots": pots((500, [1, 4, 5, 7]))},
        {"to_act": 5, "seats": [told(4, 8650, 250, 350, folded=True)], "pots": pots((500, [1, 5, 7]))},
        {},  # the call that ends the street: its batch goes on to fourth street's cards
    ]  # fmt: skip

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
    event(
        kind="bring_in_player",
        seat=2,
        changes={
            "street": "third", "to_act": 2, "button": None, "bring_in_seat": 2, "is_over": False,
            "pots": pots((500, everyone)),
            "seats": [told(s, stacks[s] - 100, 0, 100) for s in everyone],
        },
    )  # fmt: skip
    third: list[tuple[int, str, int | None]] = [
        (2, "bring_in", 250), (4, "call", 250), (5, "complete", 500), (7, "call", 400),
        (1, "raise", 1000), (2, "fold", None), (4, "fold", None), (5, "call", 1000),
    ]  # fmt: skip
    for (seat, action, amount), changes in zip(third, third_changes, strict=True):
        event(changes, kind="action", seat=seat, action=action, amount=amount, all_in=seat == 7)
    event(kind="street", street="fourth")
    fourth = {
        "street": "fourth", "to_act": 5, "pots": pots((2200, [1, 5, 7]), (1200, [1, 5])),
        "seats": [told(1, 18900, 0, 1100), told(2, 14650, 0, 350, folded=True),
                  told(4, 8650, 0, 350, folded=True), told(5, 28900, 0, 1100),
                  told(7, 0, 0, 500, all_in=True)],
    }  # fmt: skip
    for s in (1, 5, 7):
        event(fourth if s == 7 else None, kind="deal", seat=s, cards=[cards[s][3]], detail="up")
    bet = {"to_act": 1, "seats": [told(5, 27900, 1000, 2100)]}
    event(bet, kind="action", seat=5, action="bet", amount=1000)
    called = {"to_act": None, "seats": [told(1, 17900, 1000, 2100)]}
    event(called, kind="action", seat=1, action="call", amount=1000)
    shown: list[tuple[int, list[str], str, list[str]]] = [
        (5, ["2h", "3h", "8d", "8c", "Ac"], "Pair of Eights", ["8d", "8c", "Ac", "3h", "2h"]),
        (1, ["As", "Kd", "Qh", "Qs", "7c"], "Pair of Queens, Ace high", ["Qh", "Qs", "As", "Kd", "7c"]),
        (7, ["5c", "6c", "4s", "4d", "Kc"], "Pair of Fours", ["4s", "4d", "Kc", "6c", "5c"]),
    ]
    for seat, hand, name, _ in shown:
        event(kind="show", seat=seat, cards=hand, detail=name)
    event(kind="award", seat=1, amount=2200, pot=0, detail="whole")
    event(kind="award", seat=1, amount=3200, pot=1, detail="whole")
    end = {"is_over": True, "pots": [], "seats": [told(1, 23300, 0, 2100), told(5, 27900, 0, 2100)]}
    event(end, kind="hand_end")

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
    scripted_table(page, server)
    messages = six_handed_messages()
    before_showdown = next(i for i, m in enumerate(messages) if m.get("event", {}).get("kind") == "show")
    handle(page, *messages[:before_showdown])
    pots = page.locator("#center .pot").all_inner_texts()
    # main pot with erin all-in, side pot; the bets of 4th street are still in front of the players
    assert [p.split()[-1] for p in pots] == ["22.00", "12.00"]
    assert page.locator(".bet").all_inner_texts() == ["10.00", "10.00"]
    assert page.locator(".seat.disconnected").count() == 1
    assert page.locator(".seat.sitting-out").count() == 1
    assert page.locator(".seat.folded").count() == 2
    assert page.locator(".seat .tag.allin").count() == 1
    handle(page, *messages[before_showdown:])
    page.wait_for_timeout(1600)  # three hands turn up one after the other
    banner = page.inner_text(".result-banner")
    assert "Main pot 22.00: alice wins 22.00" in banner and "Side pot 1 32.00: alice wins 32.00" in banner
    assert page.locator(".seat .hand-name").count() == 3
    assert page.locator(".card.win").count() == 5
    page.screenshot(path=str(SCREENSHOTS / "showdown-6max.png"))
    context.close()
