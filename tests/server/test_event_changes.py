"""The ``changes`` of the event frames (protocol 1.5): after every batch of engine events the
table tells its watchers the hand's public state as the engine has it (the pots in the middle,
each seat's chips and flags, the seat to act), so that the browser draws it and works none of
it out.

Random hands of every game are played at a table behind fake ports; after each command that
moved the hand, the state built from nothing but the ``changes`` received so far must be the
engine's (and a fresh snapshot's), no ``changes`` may hold a card, and every viewer's copy
carries the same ones."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from studpoker import fairness
from studpoker.engine import Hand
from studpoker.games import GAMES
from studpoker.server.protocol import EventMsg, YourTurnMsg
from studpoker.server.table import Sit, SitIn, Watch
from tests.server.table_fakes import FakeViewer, Table, make_table

HAND_KEYS = ("street", "to_act", "button", "bring_in_seat", "is_over", "pots")
SEAT_KEYS = ("seat", "stack", "bet", "contributed", "folded", "all_in", "protected")
CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")


def engine_state(hand: Hand) -> dict[str, Any]:
    """The hand's public state as the engine has it (the spectator's view, checked against the
    engine's own stacks and contributions), without the pots: see :func:`check_pots`."""
    view: Any = hand.view(None).to_dict()
    seats = {s["seat"]: {k: s[k] for k in SEAT_KEYS} for s in view["seats"]}
    assert {seat: s["stack"] for seat, s in seats.items()} == hand.stacks
    assert {seat: s["contributed"] for seat, s in seats.items()} == hand.contributions
    return {**{k: view[k] for k in HAND_KEYS if k != "pots"}, "seats": seats}


def check_pots(pots: list[dict[str, Any]], hand: Hand) -> None:
    """The pots in the middle: every chip put in before this betting round, no more, the main pot
    contested by every live seat, each side pot by fewer; the engine's own pots whenever no bet
    of the round is out (a street's start); none once the hand is paid."""
    view = hand.view(None)
    if hand.is_over:
        assert pots == []
        return
    bets = sum(seat.bet for seat in view.seats)
    assert sum(p["amount"] for p in pots) + bets == sum(hand.contributions.values())
    live = [seat.seat for seat in view.seats if not seat.folded]
    if pots:
        assert pots[0]["eligible"] == live
    for smaller, larger in itertools.pairwise(pots):
        assert set(larger["eligible"]) < set(smaller["eligible"])
    if not bets:
        assert pots == [p.to_dict() for p in hand.pots()]


@dataclass
class Model:
    """What a client knows of the hand from the ``changes`` alone (state.js does the same)."""

    hand_id: str | None = None
    state: dict[str, Any] = field(default_factory=dict)

    def apply(self, message: EventMsg) -> None:
        if message.hand_id != self.hand_id:
            self.hand_id, self.state = message.hand_id, {"seats": {}}
        for key, value in (message.changes or {}).items():
            if key == "seats":
                for seat in value:  # a seat's fields that changed
                    self.state["seats"].setdefault(seat["seat"], {}).update(seat)
            else:
                self.state[key] = value


@dataclass
class Run:
    """What one random session at a table sent its spectator and its players."""

    table: Table
    spectator: FakeViewer
    checked: int = 0  # batches whose changes were checked against the engine
    seen: set[str] = field(default_factory=set)  # what the checked states covered
    all_changes: list[dict[str, Any]] = field(default_factory=list)
    cards: set[str] = field(default_factory=set)  # every card dealt in the session


def pick(rng: random.Random, turn: YourTurnMsg) -> str:
    """A random option, folding now and then, raising often enough for all-ins."""
    kinds = [o.kind for o in turn.options]
    weights = [1 if kind == "fold" else 3 if kind in ("bet", "raise", "complete") else 4 for kind in kinds]
    return rng.choices(kinds, weights)[0]


def always(kind: str) -> Callable[[YourTurnMsg], str]:
    return lambda turn: kind


async def sit(table: Table, buy_ins: list[int]) -> None:
    for n, buy_in in enumerate(buy_ins, 1):
        viewer = FakeViewer(n, f"player{n}")
        table.room.viewers.append(viewer)
        table.players.append(viewer)
        await table.actor.call(Sit(conn=viewer, seat=n, buy_in=buy_in))


def new_events(viewer: FakeViewer, start: int) -> list[EventMsg]:
    return [m for m in viewer.messages[start:] if isinstance(m, EventMsg) and "version" in m.event]


async def random_session(game: str, seed: int, hands: int) -> Run:
    """``hands`` random hands of ``game`` (short and deep stacks: all-ins and side pots), each
    batch's changes checked as it arrives. The server seeds come from ``seed`` too, so that a
    session deals the same cards every run and what it covers does not change from run to run."""
    rng = random.Random(seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fairness, "new_server_seed", lambda: rng.randbytes(fairness.SEED_BYTES))
        return await _play(game, rng, hands)


async def _play(game: str, rng: random.Random, hands: int) -> Run:
    table = make_table(game, hand_pause_seconds=0.0)
    players = GAMES[game].max_players if rng.random() < 0.5 else rng.randint(2, GAMES[game].max_players)
    config = table.actor.config
    await sit(table, [rng.choice([config.min_buy_in, config.max_buy_in, 3000]) for _ in range(players)])
    spectator = FakeViewer(999, "spectator")
    await table.actor.call(Watch(conn=spectator))
    run = Run(table=table, spectator=spectator)
    model = Model()
    for _ in range(hands):
        for state in list(table.actor.seats.values()):
            if state.sitting_out:  # timed out in the last hand: back in
                await table.actor.call(SitIn(conn=table.players[state.seat - 1]))
        if len(table.actor.seats.eligible()) < 2:
            break
        start = len(spectator.messages)
        table.clock.advance(0.0)
        await table.flush()
        hand = table.actor.hand
        assert hand is not None
        check(run, model, hand, start)
        for _ in range(400):
            if hand.is_over:
                break
            start = len(spectator.messages)
            if rng.random() < 0.08:
                table.clock.advance(31.0)  # the clock rule plays this decision
                await table.flush()
            else:
                found = table.turn()
                assert found is not None
                choice = pick(rng, found[1])  # once: act() asks its picker once per option
                await table.act(always(choice))
            check(run, model, hand, start)
        assert hand.is_over
        for event in hand.events:
            run.cards.update(str(c) for c in event.cards or () if c is not None)
    await table.actor.stop()
    return run


def check(run: Run, model: Model, hand: Hand, start: int) -> None:
    """The batch the spectator just got: the changes on its last event only; the model built
    from every change so far is the engine's state; every player has the same changes."""
    batch = new_events(run.spectator, start)
    assert batch, "the hand moved: a batch of events was sent"
    assert all(m.changes is None for m in batch[:-1])
    last = batch[-1]
    assert last.changes is not None
    for message in batch:
        model.apply(message)
    expected = engine_state(hand)
    pots = model.state.pop("pots")
    assert model.state == expected
    check_pots(pots, hand)
    model.state["pots"] = pots
    if not hand.is_over:
        # a fresh snapshot has what the changes told, in the same names
        snapshot = run.table.actor.snapshot(run.spectator).hand
        assert snapshot is not None
        assert {k: snapshot[k] for k in HAND_KEYS} == {k: model.state[k] for k in HAND_KEYS}
        assert {s["seat"]: {k: s[k] for k in SEAT_KEYS} for s in snapshot["seats"]} == model.state["seats"]
    run.checked += 1
    run.all_changes.append(last.changes)
    for player in run.table.players:
        copies = [m for m in player.of_type(EventMsg) if m.version == last.version]
        assert [m.changes for m in copies] == [last.changes] * len(copies)
    if len(pots) > 1:
        run.seen.add("side pot")
    seats = expected["seats"].values()
    run.seen.update(flag for flag in ("folded", "all_in") if any(s[flag] for s in seats))
    if expected["is_over"]:
        run.seen.add("over")


def sessions() -> Iterator[Any]:
    for game in GAMES:
        yield pytest.param(game, id=game)


@pytest.mark.parametrize("game", list(sessions()))
async def test_changes_match_the_engine_after_every_batch_of_random_hands(game: str) -> None:
    seen: set[str] = set()
    checked = 0
    for seed in range(4):
        run = await random_session(game, seed, hands=6)
        checked += run.checked
        seen |= run.seen
    assert checked > 100
    # The random hands covered what the changes must tell: folds, all-ins, side pots, the end.
    assert seen == {"folded", "all_in", "side pot", "over"}


@pytest.mark.parametrize("game", list(sessions()))
async def test_no_card_in_any_changes(game: str) -> None:
    run = await random_session(game, seed=11, hands=5)
    assert run.cards and run.all_changes
    for changes in run.all_changes:
        text = json.dumps(changes)
        assert not CARD.search(text), text
        assert not any(card in text for card in run.cards)
        assert set(changes) <= {*HAND_KEYS, "seats"}
        for seat in changes.get("seats", []):
            assert "seat" in seat and set(seat) <= set(SEAT_KEYS)


async def test_one_public_view_per_batch_whatever_the_watchers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The changes cost one spectator's view per batch: a batch of bets builds exactly one view,
    with eight players and twenty spectators watching (the openings of a deal add one per viewer
    class, as before)."""
    table = make_table("7S", hand_pause_seconds=0.0)
    await sit(table, [4000] * 8)
    for n in range(20):
        await table.actor.call(Watch(conn=FakeViewer(500 + n, f"spectator{n}")))
    table.clock.advance(0.0)
    await table.flush()
    views: list[int | None] = []
    real_view = Hand.view

    def counted(hand: Hand, seat: int | None = None) -> Any:
        views.append(seat)
        return real_view(hand, seat)

    monkeypatch.setattr(Hand, "view", counted)
    spectator = table.players[0]
    for _ in range(4):  # the bring-in and three calls of third street: no card is dealt
        hand = table.actor.hand
        assert hand is not None and hand.street == "third"
        before, start = len(views), len(spectator.messages)
        seat = hand.to_act
        await table.act(lambda turn: "call" if "call" in [o.kind for o in turn.options] else "bring_in")
        changes = new_events(spectator, start)[-1].changes
        assert views[before:] == [None]
        # What changed, only: the seat to act and the chips of the one seat that put some in (the
        # pots in the middle wait for the round's end).
        assert changes is not None and set(changes) == {"to_act", "seats"}
        (told,) = changes["seats"]
        assert told["seat"] == seat and set(told) == {"seat", "stack", "bet", "contributed"}
