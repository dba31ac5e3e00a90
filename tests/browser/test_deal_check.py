"""The client's side of verifiable deals (docs/fairness.md, docs/client.md): its seed sent once
per hand (and a refusal handled), every opening checked against the deck root with the card the
table showed, a tampered opening, salt or root shown as a failed check naming the card, and the
history panel's check of the reader's openings. Messages are fed to the client's own handler
(`window.studpoker.handle`), as the server would send them; the socket is a recorder."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from studpoker.fairness import Deal, deck_from_seeds, seed_commitment
from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import click_passive, register, take_seat

pytestmark = pytest.mark.browser

SERVER_SEED = bytes(range(32))
SEED_COMMITMENT = seed_commitment(SERVER_SEED)
HAND = "h-deal"
NEXT = "h-next"
# A three-seat stud deal from the top of the deck: two down cards and an up card each, seats 1,
# 3, 5 in turn; we are seat 1 (account 1).
SEATS = [1, 3, 5]


@pytest.fixture
def page(browser: Any, server: Server) -> Any:
    context = browser.new_context(viewport={"width": 1024, "height": 700})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_function("() => window.studpoker && window.studpoker.seeds")
    page.evaluate(
        """async () => {
            const { TableState } = await import('/js/state.js');
            const app = window.studpoker;
            localStorage.removeItem('studpoker.seeds');
            app.socket?.close();
            // a recorder in place of the socket: every message the client sends, with its id
            const sent = [];
            const send = (m) => { const id = `t${sent.length + 1}`; sent.push({ ...m, id }); return id; };
            app.socket = { sent, send, isOpen: () => true, close() {}, serverNow: () => Date.now() / 1000 };
            app.me = { id: 1, name: 'alice', bankroll: 100000 };
            document.querySelector('#view-lobby').hidden = true;
            document.querySelector('#view-table').hidden = false;
            app.tableId = 1;
            app.state = new TableState(1, {});
            app.state.myAccount = 1;
            app.state.subscribe((st, reason) => app.onState(st, reason));
        }"""
    )
    yield page
    assert not errors, errors
    context.close()


def handle(page: Any, *messages: dict[str, Any]) -> None:
    for message in messages:
        page.evaluate("(m) => window.studpoker.handle(m)", message)


def sent_seeds(page: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = page.evaluate(
        "() => window.studpoker.socket.sent.filter(m => m.type === 'client_seed')"
    )
    return out


def snapshot(version: int, *, next_deal: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    seats = [
        {"seat": s, "account_id": s, "name": f"p{s}", "stack": 10000, "sitting_out": False, "connected": True}
        for s in SEATS
    ]
    table = {
        "id": 1,
        "name": "Stud 1/2",
        "game": "7S",
        "max_seats": 8,
        "small_bet": 100,
        "big_bet": 200,
        "ante": 20,
        "bring_in": 50,
    }
    return {
        "type": "table_state", "table_id": 1, "version": version, "table": table, "seats": seats,
        "your_seat": 1, "hand_id": None, "hand": None, "clock": None, "next_deal": next_deal, **extra,
    }  # fmt: skip


def hand_start(version: int, deal: Deal, **extra: Any) -> dict[str, Any]:
    root = extra.pop("deck_root", deal.tree().root.hex())
    return {
        "type": "hand_started", "table_id": 1, "version": version, "hand_id": HAND, "game": "7S",
        "commitment": root, "deck_root": root, "seed_commitment": SEED_COMMITMENT, "client_seeds": [],
        "seats": SEATS, **extra,
    }  # fmt: skip


def deal_events(
    version: int, deal: Deal, *, fake: dict[int, str] | None = None, viewer: int | None = 1
) -> list[dict[str, Any]]:
    """Third street as ``viewer`` sees it: positions 0..8, seats in turn; other down cards hidden.
    ``fake`` puts another card on the table at a position (what a cheating server would deal)."""
    out: list[dict[str, Any]] = [
        {"type": "event", "table_id": 1, "version": version, "hand_id": HAND,
         "event": {"version": 1, "kind": "hand_start", "detail": "7S"}},
    ]  # fmt: skip
    for position in range(9):
        seat = SEATS[position % 3]
        up = position >= 6
        card: str | None = (fake or {}).get(position, str(deal.order[position]))
        if not up and seat != viewer:
            card = None
        out.append({
            "type": "event", "table_id": 1, "version": version + 1 + position, "hand_id": HAND,
            "event": {"version": 2 + position, "kind": "deal", "seat": seat, "street": "third",
                      "cards": [card], "detail": "up" if up else "down"},
        })  # fmt: skip
    return out


SEEN = [0, 3, 6, 7, 8]  # seat 1's down cards and the three up cards


def openings(deal: Deal, positions: list[int] = SEEN) -> list[dict[str, Any]]:
    tree = deal.tree()
    return [deal.opening(p, tree).to_json() for p in positions]


def opened(version: int, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "cards_opened", "table_id": 1, "hand_id": HAND, "version": version, "openings": items}


def badge(page: Any) -> dict[str, Any]:
    # every opening received is verified and the table redrawn after the last batch
    page.wait_for_function(
        "() => { const b = document.querySelector('.deal-badge'); return b && b.dataset.total > 0 && "
        "b.dataset.pending === '0' && window.studpoker.state.deal.pending.size === 0; }"
    )
    out: dict[str, Any] = page.evaluate(
        """() => ({
            text: document.querySelector('.deal-badge').textContent,
            cls: document.querySelector('.deal-badge').className,
            checked: [...document.querySelectorAll('.card.checked')].map(e => e.dataset.card),
            failed: [...document.querySelectorAll('.card.check-failed')].map(e => e.dataset.card),
            warning: document.querySelector('.deal-warning')?.textContent ?? null,
            warningCard: document.querySelector('.deal-warning')?.dataset.card ?? null,
        })"""
    )
    return out


def test_the_seed_is_sent_once_per_hand_and_checked_at_the_deal(page: Any) -> None:
    announce = {"hand_id": NEXT, "seed_commitment": SEED_COMMITMENT}
    handle(page, snapshot(10, next_deal=announce))
    first = sent_seeds(page)
    assert len(first) == 1
    seed = first[0]
    assert seed["hand_id"] == NEXT and seed["table_id"] == 1
    assert len(seed["seed"]) == 32 and int(seed["seed"], 16) >= 0  # 16 random bytes, hex
    # the same announcement again (the event, another snapshot, a seat change): nothing more
    commitment_event = {
        "type": "event", "table_id": 1, "version": 11, "hand_id": None,
        "event": {"kind": "deal_commitment", "hand_id": NEXT, "seed_commitment": SEED_COMMITMENT},
    }  # fmt: skip
    handle(page, commitment_event, snapshot(11, next_deal=announce))
    assert len(sent_seeds(page)) == 1
    handle(page, {"type": "ack", "ref": seed["id"]})
    record = page.evaluate(f"() => window.studpoker.seeds.recordFor(1, '{NEXT}')")
    assert record == {"seed": seed["seed"], "status": "taken"}
    # a new page (a reload, a second window) remembers it: it sends none
    fresh = page.evaluate(
        """async (next) => {
            const { SeedKeeper } = await import('/js/seeds.js');
            const keeper = new SeedKeeper();
            const sent = [];
            const st = { tableId: 1, yourSeat: 1, myAccount: 1, nextDeal: { handId: next } };
            return keeper.maybeSend(st, (m) => (sent.push(m), 'x1')) === null && sent.length === 0;
        }""",
        NEXT,
    )
    assert fresh is True
    # the hand starts with our seed in: the table says so, in the badge
    deal = deck_from_seeds(SERVER_SEED, [(1, bytes.fromhex(seed["seed"]))])
    start = hand_start(12, deal, hand_id=NEXT, client_seeds=[{"seat": 1, "seed": seed["seed"]}])
    handle(page, start)
    verdict = page.evaluate("() => window.studpoker.state.deal.seed")
    assert verdict == {"state": "ok", "text": "your seed went in"}


def test_a_seed_refused_as_already_sent_or_too_late_is_handled_quietly(page: Any) -> None:
    announce = {"hand_id": NEXT, "seed_commitment": SEED_COMMITMENT}
    handle(page, snapshot(10, next_deal=announce))
    (seed,) = sent_seeds(page)
    refused = {
        "type": "error",
        "code": "seed_already_sent",
        "message": "a seed for this hand was already sent",
    }
    handle(page, {**refused, "ref": seed["id"], "table_id": 1})
    assert page.evaluate("() => document.querySelector('#toast').hidden") is True  # no alarm
    assert page.evaluate(f"() => window.studpoker.seeds.recordFor(1, '{NEXT}').status") == "already"
    handle(page, snapshot(11, next_deal=announce))
    assert len(sent_seeds(page)) == 1  # refused once: never sent again for that hand
    # the seed that went in for our seat is another window's: no warning, no false "it went in"
    other = "ab" * 16
    start = hand_start(
        12, deck_from_seeds(SERVER_SEED), hand_id=NEXT, client_seeds=[{"seat": 1, "seed": other}]
    )
    handle(page, start)
    assert page.evaluate("() => window.studpoker.state.deal.seed.state") == "info"
    # too late for the next hand: recorded as late, nothing shown as wrong
    announce_3 = {"kind": "deal_commitment", "hand_id": "h-3", "seed_commitment": SEED_COMMITMENT}
    handle(page, {"type": "event", "table_id": 1, "version": 13, "hand_id": NEXT, "event": announce_3})
    late = [s for s in sent_seeds(page) if s["hand_id"] == "h-3"]
    assert len(late) == 1
    handle(
        page, {"type": "error", "code": "too_late", "message": "the hand has started", "ref": late[0]["id"]}
    )
    assert page.evaluate("() => window.studpoker.seeds.recordFor(1, 'h-3').status") == "late"
    assert page.evaluate("() => document.querySelector('#toast').hidden") is True


def test_a_seed_accepted_but_left_out_or_a_changed_seed_commitment_is_a_warning(page: Any) -> None:
    announce = {"hand_id": HAND, "seed_commitment": SEED_COMMITMENT}
    handle(page, snapshot(10, next_deal=announce))
    (seed,) = sent_seeds(page)
    handle(page, {"type": "ack", "ref": seed["id"]})
    deal = deck_from_seeds(SERVER_SEED)
    handle(page, hand_start(11, deal, client_seeds=[]), *deal_events(12, deal))
    handle(page, opened(21, openings(deal)))
    shown = badge(page)
    assert "not among the seeds of the deal" in (shown["warning"] or "")
    assert "bad" in shown["cls"]
    # a second table state: a hand whose seed commitment is not the one announced
    page.evaluate("() => { window.studpoker.state.deal = null; }")
    handle(page, snapshot(30, next_deal={"hand_id": "h-4", "seed_commitment": "00" * 32}))
    (second,) = [s for s in sent_seeds(page) if s["hand_id"] == "h-4"]
    handle(page, {"type": "ack", "ref": second["id"]})
    start = hand_start(31, deal, hand_id="h-4", client_seeds=[{"seat": 1, "seed": second["seed"]}])
    handle(page, start)
    verdict = page.evaluate("() => window.studpoker.state.deal.seed")
    assert verdict["state"] == "bad" and "differs from the one announced" in verdict["text"]


def test_every_card_shown_is_checked_against_the_deck_root(page: Any) -> None:
    deal = deck_from_seeds(SERVER_SEED, [(1, b"alice")])
    handle(page, snapshot(10), hand_start(11, deal), *deal_events(12, deal))
    handle(page, opened(21, openings(deal, [0, 3])))  # our down cards come first
    partial = badge(page)
    assert partial["text"] == "deal checked: 2 of 5 cards" and "partial" in partial["cls"]
    handle(page, opened(21, openings(deal, [6, 7, 8])))  # then the up cards
    shown = badge(page)
    assert shown["text"] == "✔ deal checked: 5 of 5 cards" and "ok" in shown["cls"]
    assert sorted(shown["checked"]) == sorted(str(deal.order[p]) for p in SEEN)
    assert shown["failed"] == [] and shown["warning"] is None
    # the same openings again (a reload's snapshot repeats them): still 5 of 5, nothing doubled
    handle(page, opened(21, openings(deal)))
    assert badge(page)["text"] == "✔ deal checked: 5 of 5 cards"


def test_a_reload_rechecks_the_openings_of_the_snapshot(page: Any) -> None:
    deal = deck_from_seeds(SERVER_SEED)
    hand_view = {
        "viewer": 1, "game": "7S", "street": "third", "version": 10, "button": None, "bring_in_seat": 3,
        "board": [], "pots": [], "to_act": 3, "legal": None, "is_over": False, "result": None,
        "seats": [
            {"seat": s, "stack": 9900, "bet": 0, "contributed": 100, "folded": False, "all_in": False,
             "protected": False, "shown": False, "up": [str(deal.order[6 + i])],
             "down": [str(deal.order[i]), str(deal.order[3 + i])] if s == 1 else [None, None]}
            for i, s in enumerate(SEATS)
        ],
    }  # fmt: skip
    root = deal.tree().root.hex()
    state = snapshot(
        40, hand=hand_view, hand_id=HAND, commitment=root, deck_root=root, openings=openings(deal)
    )
    handle(page, state)
    shown = badge(page)
    assert shown["text"] == "✔ deal checked: 5 of 5 cards"
    assert len(shown["checked"]) == 5


@pytest.mark.parametrize("tamper", ["card", "salt", "root", "path", "unseen"])
def test_a_tampered_opening_salt_or_root_is_a_failed_check_naming_the_card(page: Any, tamper: str) -> None:
    deal = deck_from_seeds(SERVER_SEED, [(1, b"alice")])
    items = openings(deal)
    fake: dict[int, str] = {}
    start: dict[str, Any] = {}
    named = str(deal.order[0])
    if tamper == "card":
        # the server dealt us a card that is not the one at its position in the committed deck
        named = next(str(c) for c in deal.order[9:])
        fake[0] = named
        items[0] = {**items[0], "card": named}
    elif tamper == "salt":
        items[0] = {**items[0], "salt": "00" * 16}
    elif tamper == "path":
        items[0] = {**items[0], "path": ["11" * 32, *items[0]["path"][1:]]}
    elif tamper == "root":
        start["deck_root"] = "ee" * 32
    elif tamper == "unseen":
        # a valid opening of a card the table never showed us (position 20: undealt)
        named = str(deal.order[20])
        items.append(deal.opening(20).to_json())
    handle(page, snapshot(10), hand_start(11, deal, **start), *deal_events(12, deal, fake=fake))
    handle(page, opened(21, items))
    shown = badge(page)
    assert "bad" in shown["cls"], shown
    assert shown["warning"] and shown["warning"].startswith("✘ Deal check failed:"), shown
    assert shown["warningCard"] == named
    sign = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}[named[1]]
    assert f"{'10' if named[0] == 'T' else named[0]}{sign}" in shown["warning"]
    if tamper == "root":
        assert shown["checked"] == [] and len(shown["failed"]) == 5
    elif tamper == "unseen":
        assert shown["text"] == "deal checked: 5 of 5 cards" and "never showed it to you" in shown["warning"]
    else:
        assert shown["failed"] == [named] and len(shown["checked"]) == 4
    if tamper == "card":
        page.screenshot(path=str(SCREENSHOTS / "deal-check-failed.png"))


def test_the_history_checks_the_readers_openings(page: Any) -> None:
    mine_seed = b"\x01" * 16
    deal = deck_from_seeds(SERVER_SEED, [(1, mine_seed), (3, b"carol")])
    tree = deal.tree()
    everything = [deal.opening(p, tree).to_json() for p in SEEN]
    record = {
        "deck_root": tree.root.hex(), "seed_commitment": SEED_COMMITMENT, "openings": everything,
        "client_seeds": [{"seat": 1, "seed": mine_seed.hex()}, {"seat": 3, "seed": b"carol".hex()}],
    }  # fmt: skip
    mine = [str(deal.order[0]), str(deal.order[3])]
    seen = [str(deal.order[p]) for p in SEEN]
    script = """async (arg) => {
        const m = await import('/js/history.js');
        const sent = { seed: arg.seed, status: 'taken' };
        const base = { record: arg.record, announcedRoot: arg.record.deck_root, mine: arg.mine,
                       seen: arg.seen, sent, seat: 1, handSeats: [1, 3, 5] };
        const out = {};
        out.good = await m.checkHandRecord(base);
        out.tampered = await m.checkHandRecord({ ...base, record: { ...arg.record,
            openings: arg.record.openings.map((o, i) => i === 2 ? { ...o, salt: '00'.repeat(16) } : o) } });
        out.otherRoot = await m.checkHandRecord({ ...base, announcedRoot: 'ee'.repeat(32) });
        out.noSeed = await m.checkHandRecord({ ...base, record: { ...arg.record, client_seeds: [] } });
        const four = arg.record.openings.slice(0, 4);
        out.missing = await m.checkHandRecord({ ...base, record: { ...arg.record, openings: four } });
        out.none = await m.checkHandRecord({ ...base, record: { deck_root: arg.record.deck_root } });
        return out;
    }"""
    arg = {"record": record, "mine": mine, "seen": seen, "seed": mine_seed.hex()}
    out = page.evaluate(script, arg)
    assert out["good"]["ok"] is True
    assert out["good"]["reason"] == (
        "your 2 cards and the 3 cards you saw opened: all match the deck fixed before the deal;"
        " your seed went in"
    )
    assert out["tampered"]["ok"] is False and "does not match the deck" in out["tampered"]["reason"]
    assert out["otherRoot"]["ok"] is False and "deck root differs" in out["otherRoot"]["reason"]
    assert out["noSeed"]["ok"] is False and "not among the seeds" in out["noSeed"]["reason"]
    assert out["missing"]["ok"] == "partial" and "not opened to you" in out["missing"]["reason"]
    assert out["none"]["ok"] is None


def test_the_history_panel_shows_a_watchers_check(page: Any) -> None:
    """A watcher (not dealt in) has no REST record: the panel checks the openings the table got."""
    deal = deck_from_seeds(SERVER_SEED)
    page.evaluate("() => { window.studpoker.state.myAccount = 99; }")
    watcher = snapshot(10)
    watcher["your_seat"] = None
    handle(page, watcher, hand_start(11, deal), *deal_events(12, deal, viewer=None))
    up = [6, 7, 8]
    handle(page, opened(21, openings(deal, up)))
    badge(page)
    finished = {"type": "hand_finished", "table_id": 1, "version": 22, "hand_id": HAND, "voided": False,
                "result": {"pots": [], "shown": [], "mucked": []}}  # fmt: skip
    handle(page, finished)
    page.click("#history-btn")
    page.wait_for_selector(".hand-entry .verify.ok")
    text = page.inner_text(".hand-entry .verify")
    assert text == "✔ Deal checked: the 3 cards you saw opened: all match the deck fixed before the deal"


def test_a_played_hand_shows_every_card_checked(browser: Any, server: Server) -> None:
    """End to end against the real server: two players sit, both send their seed, play a hand
    to the end by clicking; every card each of them was shown is checked against the deck root
    (no warning ever), their seeds went in, and the history panel says what it checked."""
    table_id = next(t["id"] for t in server.tables() if t["game"] == "7S8" and not t["seated"])
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    a, b = (ctx.new_page() for ctx in contexts)
    errors: list[str] = []
    sent: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for name, page in (("a", a), ("b", b)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        def on_socket(ws: Any, into: list[dict[str, Any]] = sent[name]) -> None:
            ws.on(
                "framesent",
                lambda payload: into.append(json.loads(payload)) if '"client_seed"' in payload else None,
            )

        page.on("websocket", on_socket)
    suffix = str(int(time.time() * 1000) % 10**7)
    register(a, server, f"dana{suffix}")
    register(b, server, f"eli{suffix}")
    take_seat(a, table_id)
    take_seat(b, table_id)
    for page in (a, b):
        page.wait_for_selector(".seat.hero .card.hole[data-card]", timeout=30000)
    hand_id = a.evaluate("() => window.studpoker.state.handId")
    deadline = time.monotonic() + 120
    while not a.locator(".result-banner").count():
        assert time.monotonic() < deadline, "the hand did not finish"
        for page in (a, b):
            assert page.locator(".deal-warning").count() == 0, page.inner_text(".deal-warning")
            click_passive(page)
        a.wait_for_timeout(150)
    checks = []
    for page in (a, b):
        # the last openings (the hands shown) are checked before the next hand starts
        page.wait_for_selector(".deal-badge.ok", timeout=10000)
        checks.append(page.evaluate(
            """() => ({
                hand: window.studpoker.state.handId,
                badge: document.querySelector('.deal-badge').textContent,
                checked: Number(document.querySelector('.deal-badge').dataset.checked),
                total: Number(document.querySelector('.deal-badge').dataset.total),
                faces: document.querySelectorAll('#seats .card[data-card]').length,
                ticks: document.querySelectorAll('#seats .card.checked').length,
                warnings: document.querySelectorAll('.deal-warning, .card.check-failed').length,
                seed: window.studpoker.state.deal.seed,
            })"""
        ))  # fmt: skip
    for name, check in zip("ab", checks, strict=True):
        assert check["hand"] == hand_id, check
        # seven cards of his own, at least the other's four up cards (the showdown shows more)
        assert check["total"] >= 11 and check["checked"] == check["total"], check
        assert check["ticks"] == check["faces"] and check["warnings"] == 0, check
        assert check["badge"].startswith("✔ deal checked:"), check
        assert check["seed"] == {"state": "ok", "text": "your seed went in"}, check
        seeds = [m for m in sent[name] if m["hand_id"] == hand_id]
        assert len(seeds) == 1, sent[name]  # one seed per hand, never twice
    a.click("#history-btn")
    a.wait_for_selector(".hand-entry .verify.ok", timeout=15000)
    verdict = a.inner_text(".hand-entry .verify")
    assert verdict.startswith("✔ Deal checked: your 7 cards and the ") and verdict.endswith(
        "your seed went in"
    ), verdict
    a.screenshot(path=str(SCREENSHOTS / "deal-checked.png"))
    assert not errors, errors
    for ctx in contexts:
        ctx.close()
