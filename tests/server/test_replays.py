"""The replayer (server/replays/, server/api/replays.py; issue 13): steps that follow the engine
from every seat without a card the seat did not see, each street's equity, a finished hand's
public view, a dropped PHH or PokerStars file, one hand as PokerStars text."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import pytest

from studpoker.cards import Deck
from studpoker.engine import EventKind, Hand, HandView
from studpoker.equity import equity
from studpoker.games import Stakes, get_game
from studpoker.history.phh import loads
from studpoker.history.pokerstars.check import ReplayedHand, import_text
from studpoker.server.replays import (
    EquityBudget,
    EquityLimits,
    EquitySolver,
    Replay,
    ReplayStep,
    build_replay,
    replay_file,
)
from tests.server.conftest import Harness, make_settings, running_server

DATA = Path(__file__).resolve().parents[1] / "data"
FAST = EquityLimits(max_deals=3000, max_seconds=0.3, precision=0.01, budget_seconds=120.0)


# ----------------------------------------------------------------------------- engine hands


def play(
    game_code: str, seed: int, players: int
) -> tuple[Hand, list[tuple[int, dict[int | None, HandView]]]]:
    """A random hand (short stacks now and then, for all-ins and run-outs) and, after the deal
    and after every decision, each seat's and a watcher's view with the engine's version."""
    rng = random.Random(seed)
    game = get_game(game_code)
    seats = sorted(rng.sample(range(1, game.max_players + 1), players))
    stacks = [(s, rng.choice([150, 400, 900, 3000, 6000])) for s in seats]
    hand = Hand(
        game,
        Stakes.from_bets(100, 200, game),
        seats=stacks,
        deck=Deck.shuffled(rng),
        button=seats[-1] if game.has_button else None,
    )
    viewers: list[int | None] = [*seats, None]
    views = [(hand.version, {v: hand.view(v) for v in viewers})]
    while not hand.is_over:
        options = hand.legal_actions().options
        weights = [1 if o.kind.value == "fold" else 3 for o in options]
        option = rng.choices(options, weights)[0]
        seat = hand.to_act
        assert seat is not None
        hand.apply(seat, option.action)
        views.append((hand.version, {v: hand.view(v) for v in viewers}))
    return hand, views


def revealed_at(hand: Hand) -> dict[int, int]:
    """Seat -> the version at which his down cards became public (turned up or shown)."""
    out: dict[int, int] = {}
    for ev in hand.events:
        if ev.kind in (EventKind.EXPOSE, EventKind.SHOW) and ev.seat is not None:
            out.setdefault(ev.seat, ev.version)
    return out


def cards(values: Any) -> list[str | None]:
    return [None if c is None else str(c) for c in values]


def check_against_engine(
    hand: Hand, views: list[tuple[int, dict[int | None, HandView]]], viewer: int | None, replay: Replay
) -> None:
    steps = replay.steps
    by_version = {s.version: s for s in steps}
    over_at = hand.version
    # At every decision (and the end) the step's table is the engine's view for that seat.
    for version, seen in views:
        view = seen[viewer]
        step = by_version.get(version)
        assert step is not None, f"no step ends at version {version}: {[s.version for s in steps]}"
        for mine, theirs in zip(step.seats, view.seats, strict=True):
            assert mine.seat == theirs.seat
            assert (mine.stack, mine.contributed, mine.folded, mine.all_in) == (
                theirs.stack,
                theirs.contributed,
                theirs.folded,
                theirs.all_in,
            ), (version, mine, theirs)
            assert list(mine.down) == cards(theirs.down), (version, mine, theirs)
            assert list(mine.up) == cards(theirs.up), (version, mine, theirs)
            if version != over_at:
                assert mine.bet == theirs.bet
        assert list(step.board) == [str(c) for c in view.board]
        if version != over_at:
            assert [(p.amount, p.eligible) for p in step.pots] == [(p.amount, p.eligible) for p in view.pots]
    # Between decisions too: never a down card of another seat before it was turned up or shown,
    # and every card shown is the card dealt.
    public = revealed_at(hand)
    for step in steps:
        for s in step.seats:
            down, up = hand.cards_of(s.seat)
            for shown, real in zip(s.down, down, strict=False):
                if shown is None:
                    continue
                assert shown == str(real)
                if s.seat != viewer:
                    assert public.get(s.seat, over_at + 1) <= step.version, (viewer, s.seat, step.index)
            assert [c for c in s.up if c is not None] == [str(c) for c in up[: len(s.up)]]
    # The actions, with their exact amounts and streets, are the engine's.
    street = None
    engine_actions = []
    for ev in hand.events:
        if ev.kind is EventKind.STREET:
            street = ev.street
        if ev.kind is EventKind.ACTION:
            assert ev.action is not None
            engine_actions.append((ev.seat, ev.action.value, ev.amount, street))
    assert [(s.seat, s.action, s.amount, s.street) for s in steps if s.kind == "action"] == engine_actions
    assert {s.seat: s.stack for s in steps[-1].seats} == hand.result.final_stacks == replay.final_stacks
    check_equities(steps)


def check_equities(steps: tuple[ReplayStep, ...]) -> None:
    """Every street's deal and the end have equity (or say why not), summing to 1 over the
    players still in."""
    for step in steps:
        if step.kind == "deal" or step is steps[-1]:
            assert step.equity is not None or step.equity_note, step
        if step.equity is None:
            continue
        if step is steps[-1]:  # what each player won, of all the pots
            assert step.equity.method == "result"
            live = [s.seat for s in step.seats if not s.folded]
        else:
            live = [s.seat for s in step.seats if not s.folded and not s.mucked]
        assert [p.seat for p in step.equity.players] == live
        assert sum(p.equity for p in step.equity.players) == pytest.approx(1.0, abs=1e-9)
        assert all(0.0 <= p.equity <= 1.0 for p in step.equity.players)
        if step.equity.exact:
            assert all(p.margin95 == 0 for p in step.equity.players)


@pytest.mark.parametrize(
    ("game", "seed", "players"),
    # mucks and shows, run-outs, split pots, heads-up, five-handed Omaha and hold'em
    [
        ("7S", 10, 4),
        ("7S", 18, 4),
        ("7S8", 2, 4),
        ("RZ", 3, 2),
        ("O8", 4, 5),
        ("O8", 12, 4),
        ("O8", 6, 2),
        ("LHE", 4, 5),
        ("LHE", 12, 4),
        ("LHE", 6, 2),
    ],
)
def test_steps_follow_the_engine_from_every_seat(game: str, seed: int, players: int) -> None:
    solver = EquitySolver(FAST, 1000)
    for attempt in range(2):
        hand, views = play(game, seed * 10 + attempt, players)
        names = {s: f"P{s}" for s in hand.seat_numbers}
        for viewer in [*hand.seat_numbers, None]:
            replay = build_replay(
                hand, viewer, solver, EquityBudget(FAST.budget_seconds), label="t", names=names
            )
            assert replay.viewer == viewer and replay.sees == ("watcher" if viewer is None else "seat")
            check_against_engine(hand, views, viewer, replay)


def test_a_run_out_turns_the_hands_up_with_their_equity() -> None:
    """All-in on 3rd street: the hands are turned up at once (an expose step with equity from the
    cards now known), then every street is dealt face up."""
    game = get_game("7S")
    hand = Hand(
        game,
        Stakes.from_bets(100, 200, game),
        seats=[(1, 150), (2, 3000)],
        deck=Deck.shuffled(random.Random(9)),
    )
    while not hand.is_over:
        options = hand.legal_actions().options
        seat = hand.to_act
        assert seat is not None
        hand.apply(seat, max(options, key=lambda o: o.amount).action)
    replay = build_replay(hand, 2, EquitySolver(FAST, 10), EquityBudget(60), label="t", names={})
    exposes = [s for s in replay.steps if s.kind == "expose"]
    assert exposes and exposes[0].equity is not None
    after = exposes[0].index
    assert all(c is not None for s in replay.steps[after:] for seat in s.seats for c in seat.down)


def test_eight_players_to_7th_street_share_a_community_card() -> None:
    """The deck runs short: the community card is on the board, and the equity says why it is
    not computed rather than guessing."""
    game = get_game("7S")
    seats = [(s, 5000) for s in range(1, 9)]
    hand = Hand(game, Stakes.from_bets(100, 200, game), seats=seats, deck=Deck.shuffled(random.Random(2)))
    views = [(hand.version, {v: hand.view(v) for v in (3, None)})]
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        option = next(
            o for o in hand.legal_actions().options if o.kind.value in ("check", "call", "bring_in")
        )
        hand.apply(seat, option.action)
        views.append((hand.version, {v: hand.view(v) for v in (3, None)}))
    assert len(hand.board) == 1
    for viewer in (3, None):
        replay = build_replay(hand, viewer, EquitySolver(FAST, 10), EquityBudget(60), label="t", names={})
        check_against_engine(hand, [(v, {viewer: seen[viewer]}) for v, seen in views], viewer, replay)
        seventh = next(s for s in replay.steps if s.kind == "deal" and s.street == "seventh")
        assert seventh.board == (str(hand.board[0]),)
        assert seventh.equity is None and seventh.equity_note and "community card" in seventh.equity_note


def test_exact_equity_is_studpoker_equity_of_the_cards_seen() -> None:
    """Heads-up 5th street from a seat: the step's exact equity is ``studpoker.equity`` of the
    seat's view at that moment (his cards, the opponent's up cards, his down cards unknown)."""
    game = get_game("7S")
    hand = Hand(
        game,
        Stakes.from_bets(100, 200, game),
        seats=[(3, 5000), (6, 5000)],
        deck=Deck.shuffled(random.Random(4)),
    )
    views: dict[int, HandView] = {}
    while not hand.is_over:
        views[hand.version] = hand.view(3)
        seat = hand.to_act
        assert seat is not None
        option = next(
            o for o in hand.legal_actions().options if o.kind.value in ("check", "call", "bring_in")
        )
        hand.apply(seat, option.action)
    replay = build_replay(hand, 3, EquitySolver(FAST, 10), EquityBudget(60), label="t", names={})
    step = next(s for s in replay.steps if s.kind == "deal" and s.street == "fifth")
    assert step.equity is not None and step.equity.exact, step.equity
    view = views[step.version]
    hands = ["".join("??" if c is None else str(c) for c in (*s.down, *s.up)) for s in view.seats]
    direct = equity("7S", hands, exact=True)
    assert direct.exact and "??" in hands[1] and "??" not in hands[0]
    assert [p.equity for p in step.equity.players] == [p.equity for p in direct.players]
    assert step.equity.deals == direct.deals


def test_a_limit_holdem_hand_replays_with_every_streets_equity() -> None:
    """Heads-up LHE checked down: from a seat, every street's deal has its equity (none a note),
    the board grows 3, 4, 5, and the river's exact figures are ``studpoker.equity`` of the seat's
    two hole cards against two unknown ones on that board."""
    game = get_game("LHE")
    hand = Hand(
        game,
        Stakes.from_bets(100, 200, game),
        seats=[(2, 5000), (7, 5000)],
        deck=Deck.shuffled(random.Random(5)),
        button=7,
    )
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        option = next(o for o in hand.legal_actions().options if o.kind.value in ("check", "call"))
        hand.apply(seat, option.action)
    replay = build_replay(hand, 2, EquitySolver(FAST, 10), EquityBudget(60), label="t", names={})
    deals = {s.street: s for s in replay.steps if s.kind == "deal"}
    assert list(deals) == ["preflop", "flop", "turn", "river"]
    assert [len(deals[street].board) for street in deals] == [0, 3, 4, 5]
    for step in deals.values():
        assert step.equity is not None, (step.street, step.equity_note)
        assert [p.seat for p in step.equity.players] == [2, 7]
    river = deals["river"]
    assert river.equity is not None and river.equity.exact
    hero = next(s for s in river.seats if s.seat == 2)
    assert len(hero.down) == 2 and None not in hero.down
    assert list(next(s for s in river.seats if s.seat == 7).down) == [None, None]
    mine = "".join(c or "" for c in hero.down)
    direct = equity("LHE", [mine, "????"], board=" ".join(river.board), exact=True)
    assert [p.equity for p in river.equity.players] == [p.equity for p in direct.players]
    check_equities(replay.steps)


def test_the_request_budget_bounds_the_equity_work() -> None:
    """Once a request's equity time is spent, later positions carry a note instead."""
    hand, _ = play("7S", 11, 4)
    replay = build_replay(hand, None, EquitySolver(FAST, 0), EquityBudget(0.0), label="t", names={})
    wanted = [s for s in replay.steps if s.kind in ("deal", "expose")]
    assert wanted and not replay.equity_complete
    assert all(s.equity is None and "spent" in (s.equity_note or "") for s in wanted)
    assert replay.steps[-1].equity is not None  # the end is the result: no equity work


# ----------------------------------------------------------------------------- dropped files


def test_a_dropped_pokerstars_file_replays_from_the_hero_seat() -> None:
    text = (DATA / "pokerstars" / "stud_allin_sidepots.txt").read_text()
    done = replay_file(text, EquitySolver(FAST, 100), EquityBudget(60), max_hands=200)
    imported = [o for o in import_text(text) if isinstance(o, ReplayedHand)]
    assert done.format == "pokerstars" and not done.problems
    assert len(done.hands) == len(imported) == done.total_hands
    for replay, original in zip(done.hands, imported, strict=True):
        phh, parsed = original.imported.phh, original.imported.parsed
        # The hero: the player dealt three cards on 3rd street ("Dealt to Bob [3h 3c 3d]").
        hero = next(
            line.split()[2]
            for line in parsed.text
            if line.startswith("Dealt to ") and len(line.split("[")[1].split()) == 3
        )
        seats = list(phh.seats or [])
        assert replay.sees == "seat" and replay.viewer == seats[(phh.players or []).index(hero)]
        assert replay.hand == parsed.number
        assert replay.final_stacks == dict(zip(seats, original.settlement.finishing_stacks, strict=True))
        # Before the showdown, nobody else's down card is known to the hero.
        first_show = next((s.index for s in replay.steps if s.kind in ("show", "expose")), len(replay.steps))
        for step in replay.steps[:first_show]:
            for s in step.seats:
                if s.seat != replay.viewer:
                    assert all(c is None for c in s.down), (step.index, s)
        check_equities(replay.steps)


def test_a_dropped_phh_file_with_every_card_uses_everything() -> None:
    text = (DATA / "phh" / "wsop2023-e43-06-stud.phh").read_text()
    done = replay_file(text, EquitySolver(FAST, 100), EquityBudget(60), max_hands=200)
    (replay,) = done.hands
    assert done.format == "phh" and replay.sees == "everything" and replay.hand == "6"
    (phh,) = loads(text)
    seats = list(range(1, phh.player_count + 1))
    assert [replay.final_stacks[s] for s in seats] == phh.finishing_stacks
    assert all(c is not None for s in replay.steps[1].seats for c in s.down)


# ----------------------------------------------------------------------------- the REST routes


def aggressive(turns: list[int]) -> Any:
    """Passive on the first turn, then bet or raise whenever possible."""

    def choose(options: list[dict[str, Any]]) -> dict[str, Any]:
        turns.append(1)
        kinds = {o["kind"]: o for o in options}
        if len(turns) > 1:
            for kind in ("raise", "bet", "complete"):
                if kind in kinds:
                    return kinds[kind]
        for kind in ("check", "call", "bring_in", "complete"):
            if kind in kinds:
                return kinds[kind]
        return options[0]

    return choose


def folder(turns: list[int]) -> Any:
    """Passive on the first turn, then folds whenever he may."""

    def choose(options: list[dict[str, Any]]) -> dict[str, Any]:
        turns.append(1)
        kinds = {o["kind"]: o for o in options}
        if len(turns) > 1 and "fold" in kinds:
            return kinds["fold"]
        for kind in ("check", "call", "bring_in", "complete"):
            if kind in kinds:
                return kinds[kind]
        return options[0]

    return choose


async def one_folded_hand(harness: Harness) -> tuple[dict[str, str], str, dict[str, int]]:
    """kim and lee play one 7S hand that lee folds: nobody's down cards are ever shown."""
    from tests.server.conftest import autoplay

    actor = await harness.add_table("7S", 100, 200)
    tokens = {name: await harness.register(name) for name in ("kim", "lee")}
    kim = await harness.connect(tokens["kim"], "kim")
    lee = await harness.connect(tokens["lee"], "lee")
    await harness.seat(kim, actor.table_id, 1, 3000)
    await harness.seat(lee, actor.table_id, 2, 3000)
    actor.hand_pause_seconds = 30  # one hand only
    finished = await asyncio.gather(autoplay(kim, choose=aggressive([])), autoplay(lee, choose=folder([])))
    hand_id = finished[0][0]["hand_id"]
    await asyncio.sleep(0.2)  # the hand is written a moment after it ends
    return tokens, hand_id, {"kim": 1, "lee": 2}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_player_replays_his_hand_and_anyone_sees_its_public_view(harness: Harness) -> None:
    tokens, hand_id, seats = await one_folded_hand(harness)
    record = await harness.store.hand(hand_id)
    full = loads(record.phh or "")[0]
    answer = await harness.http.get(f"/api/hands/{hand_id}/replay", headers=bearer(tokens["kim"]))
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["viewer"] == seats["kim"] and data["sees"] == "seat" and data["units"] == "cents"
    steps = data["steps"]
    # his own down cards are there, lee's never (lee folded: nothing was shown)
    kim_down = next(s for s in steps[-1]["seats"] if s["seat"] == 1)["down"]
    assert kim_down and all(c is not None for c in kim_down)
    for step in steps:
        lee = next(s for s in step["seats"] if s["seat"] == 2)
        assert all(c is None for c in lee["down"]), step
    actions = [a for a in full.actions if a.startswith(("p1 ", "p2 "))]
    assert len([s for s in steps if s["kind"] == "action"]) == len(actions)
    ledger = {s: p.starting_stack - p.contribution + p.award for s, p in record.seats.items()}
    assert {int(k): v for k, v in data["final_stacks"].items()} == ledger
    assert {s["seat"]: s["stack"] for s in steps[-1]["seats"]} == ledger
    for step in steps:
        if step["equity"] is not None:
            assert sum(p["equity"] for p in step["equity"]["players"]) == pytest.approx(1.0)
    end = steps[-1]["equity"]
    assert end["method"] == "result" and [(p["seat"], p["equity"]) for p in end["players"]] == [(1, 1.0)]

    # The public view, logged out: no down card at all (none was shown), in the replay, the PHH or the text.
    public = await harness.http.get(f"/api/hands/{hand_id}/public")
    assert public.status_code == 200, public.text
    view = public.json()
    assert view["replay"]["viewer"] is None and view["replay"]["sees"] == "watcher"
    down_cards = set()
    for seat, number in seats.items():
        own = (await harness.http.get(f"/api/hands/{hand_id}/replay", headers=bearer(tokens[seat]))).json()
        down_cards |= {c for s in own["steps"][-1]["seats"] if s["seat"] == number for c in s["down"]}
    assert len(down_cards) >= 4
    for step in view["replay"]["steps"]:
        for s in step["seats"]:
            assert all(c is None for c in s["down"]), step
    public_actions = " ".join(loads(view["phh"])[0].actions)
    text_body = "\n".join(view["text"].splitlines()[1:])  # the first line holds the hand id
    for card in down_cards:
        assert card not in public_actions and card not in text_body, card
    assert "????" in view["phh"]
    assert loads(view["phh"])[0].finishing_stacks == full.finishing_stacks

    # Not a player: no replay from a seat (the public view is his); no token: 401; no hand: 404.
    other = await harness.register("zed")
    assert (await harness.http.get(f"/api/hands/{hand_id}/replay", headers=bearer(other))).status_code == 403
    assert (
        await harness.http.get(f"/api/hands/{hand_id}/pokerstars", headers=bearer(other))
    ).status_code == 403
    assert (await harness.http.get(f"/api/hands/{hand_id}/replay")).status_code == 401
    for path in ("replay", "public", "pokerstars"):
        missing = await harness.http.get(f"/api/hands/nosuchhand/{path}", headers=bearer(tokens["kim"]))
        assert missing.status_code == 404, (path, missing.text)
        assert missing.json()["error"]["code"] == "not_found"

    # One hand as PokerStars text, a download with kim as the hero.
    stars = await harness.http.get(f"/api/hands/{hand_id}/pokerstars", headers=bearer(tokens["kim"]))
    assert stars.status_code == 200, stars.text
    assert stars.text.startswith("PokerStars Hand #")
    assert stars.headers["content-type"].startswith("text/plain")
    assert "attachment" in stars.headers["content-disposition"]
    dealt = [line for line in stars.text.splitlines() if line.startswith("Dealt to kim ")]
    assert dealt and len(dealt[0].split("[")[1].split()) == 3


async def test_a_limit_holdem_hand_played_at_a_table_replays_with_equities(harness: Harness) -> None:
    """kim and lee check and call an LHE hand down at a real table: kim's replay over REST has
    his two hole cards, the board of 3, 4 and 5 cards, each street's equity, and his PokerStars
    download deals him two cards."""
    from tests.server.conftest import autoplay

    actor = await harness.add_table("LHE", 100, 200)
    tokens = {name: await harness.register(name) for name in ("kim", "lee")}
    clients = [await harness.connect(tokens[name], name) for name in tokens]
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 3000)
    actor.hand_pause_seconds = 30  # one hand only
    finished = await asyncio.gather(*(autoplay(c) for c in clients))
    hand_id = finished[0][0]["hand_id"]
    await asyncio.sleep(0.2)  # the hand is written a moment after it ends
    answer = await harness.http.get(f"/api/hands/{hand_id}/replay", headers=bearer(tokens["kim"]))
    assert answer.status_code == 200, answer.text
    steps = answer.json()["steps"]
    deals = {s["street"]: s for s in steps if s["kind"] == "deal"}
    assert [(street, len(step["board"])) for street, step in deals.items()] == [
        ("preflop", 0),
        ("flop", 3),
        ("turn", 4),
        ("river", 5),
    ]
    for step in deals.values():
        assert step["equity"] is not None, (step["street"], step["equity_note"])
        assert sum(p["equity"] for p in step["equity"]["players"]) == pytest.approx(1.0)
    kim = next(s for s in steps[-1]["seats"] if s["seat"] == 1)
    assert len(kim["down"]) == 2 and None not in kim["down"]
    assert steps[-1]["equity"]["method"] == "result"
    stars = await harness.http.get(f"/api/hands/{hand_id}/pokerstars", headers=bearer(tokens["kim"]))
    assert stars.status_code == 200, stars.text
    assert "Hold'em Limit" in stars.text.splitlines()[0]
    dealt = [line for line in stars.text.splitlines() if line.startswith("Dealt to kim ")]
    assert dealt and dealt[0].split("[")[1].rstrip("]").split() == kim["down"]


async def test_a_hand_in_progress_has_no_replay_and_a_busy_replayer_says_so(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    tokens = {name: await harness.register(name) for name in ("amy", "bea")}
    amy = await harness.connect(tokens["amy"], "amy")
    bea = await harness.connect(tokens["bea"], "bea")
    await harness.seat(amy, actor.table_id, 1, 3000)
    await harness.seat(bea, actor.table_id, 2, 3000)
    started = await amy.wait_for("hand_started")
    hand_id = started["hand_id"]
    for path in ("public", "replay", "pokerstars"):
        answer = await harness.http.get(f"/api/hands/{hand_id}/{path}", headers=bearer(tokens["amy"]))
        assert answer.status_code == 403 and "not over" in answer.text, (path, answer.text)
    from tests.server.conftest import autoplay

    actor.hand_pause_seconds = 30
    await asyncio.gather(autoplay(amy), autoplay(bea))
    await asyncio.sleep(0.2)
    assert (await harness.http.get(f"/api/hands/{hand_id}/public")).status_code == 200
    file = (DATA / "phh" / "wsop2023-e43-06-stud.phh").read_text()
    service = harness.app.state.replays
    async with service.slots, service.slots:  # both replay slots taken
        busy = await harness.http.post("/api/replay", content=file)
    assert busy.status_code == 503 and busy.headers["retry-after"], busy.text
    assert (await harness.http.post("/api/replay", content=file)).status_code == 200


async def test_dropped_files_over_rest(harness: Harness) -> None:
    stars = (DATA / "pokerstars" / "stud_allin_sidepots.txt").read_text()
    plain = await harness.http.post("/api/replay", content=stars, headers={"Content-Type": "text/plain"})
    assert plain.status_code == 200, plain.text
    data = plain.json()
    assert data["format"] == "pokerstars" and len(data["hands"]) == data["total_hands"] >= 2
    as_json = await harness.http.post("/api/replay", json={"text": stars}, params={"hand": 2})
    assert as_json.status_code == 200, as_json.text
    (second,) = as_json.json()["hands"]
    assert second == data["hands"][1] and second["number"] == 2

    # A file with bad hands among good ones: the good ones, and each bad one named with its line.
    mixed = (DATA / "pokerstars" / "bad_hand_in_middle.txt").read_text()
    answer = await harness.http.post("/api/replay", content=mixed, headers={"Content-Type": "text/plain"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["hands"] and any("line" in p for p in answer.json()["problems"])

    # Nothing replayable: 422 naming the hand and the line.
    lines = stars.split("\n\n")[0].splitlines()
    raise_at = next(i for i, line in enumerate(lines) if ": raises " in line)
    lines[raise_at] = re.sub(r" to (\d+)$", lambda m: f" to {int(m.group(1)) + 1}", lines[raise_at])
    bad = await harness.http.post(
        "/api/replay", content="\n".join(lines), headers={"Content-Type": "text/plain"}
    )
    assert bad.status_code == 422, bad.text
    message = bad.json()["error"]["message"]
    assert "hand #1001" in message and f"line {raise_at + 1}" in message, message

    phh = (DATA / "phh" / "wsop2023-e43-06-stud.phh").read_text()
    illegal = phh.replace('"p2 cbr 400000",', '"p2 cbr 300000",', 1)
    wrong = await harness.http.post("/api/replay", content=illegal, headers={"Content-Type": "text/plain"})
    assert wrong.status_code == 422, wrong.text
    line = illegal.splitlines().index('    "p2 cbr 300000",') + 1
    assert "action 10" in wrong.text and f"line {line}" in wrong.text, wrong.text
    for junk in ("not a hand history", '{"text": 5}'):
        refused = await harness.http.post(
            "/api/replay", content=junk, headers={"Content-Type": "application/json"}
        )
        assert refused.status_code == 422, refused.text
    garbage = await harness.http.post("/api/replay", content="x = [", headers={"Content-Type": "text/plain"})
    assert garbage.status_code == 422 and "TOML" in garbage.text
    assert (
        await harness.http.post("/api/replay", json={"text": stars}, params={"hand": 99})
    ).status_code == 422


async def test_dropped_files_are_bounded(tmp_path: Path) -> None:
    stars = (DATA / "pokerstars" / "stud_allin_sidepots.txt").read_text()
    settings = make_settings(tmp_path, replay_max_bytes=len(stars.encode()), replay_max_hands=1)
    async with running_server(settings) as harness:
        big = await harness.http.post(
            "/api/replay", content=stars + "\n", headers={"Content-Type": "text/plain"}
        )
        assert big.status_code == 413 and big.json()["error"]["code"] == "too_large", big.text

        async def chunked() -> Any:  # no Content-Length: the size is counted as it arrives
            yield stars.encode()
            yield b"\n"

        streamed = await harness.http.post(
            "/api/replay", content=chunked(), headers={"Content-Type": "text/plain"}
        )
        assert streamed.status_code == 413, streamed.text
        two = stars  # its two hands, within the size limit
        many = await harness.http.post("/api/replay", content=two, headers={"Content-Type": "text/plain"})
        assert many.status_code == 422 and "at most 1" in many.text, many.text
