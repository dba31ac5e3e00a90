"""What the hand reads from its game on every street, worked out once per game, not per hand.

A :class:`~studpoker.games.Game` says how the game is dealt and won in general terms (a kind,
street records, hand type names); the hand's hot paths want plain flags and tuples: the
streets as tuples, their STREET events ready-made, which evaluator the showdown calls. The
plan is cached per game record (the registry's, or any other one a caller builds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from studpoker.engine.events import EventKind, RawEvent
from studpoker.games import Game

Ranking = Literal["high", "high_low8", "razz", "omaha8"]
"""What the showdown evaluates: a high hand; a high hand and an eight-or-better low; an
ace-to-five low alone (razz); Omaha's two-plus-three high and low."""


@dataclass(frozen=True, slots=True)
class StreetPlan:
    """One street: its name, cards (down, up, board) and bet size, and its STREET event."""

    name: str
    down: int
    up: int
    board: int
    rounds: tuple[bool, ...]  # the players' rounds of cards in deal order: True face up (the down ones first)
    big_bet: bool
    last: bool  # the hand's last street: its round ends the hand
    short_deal: bool  # one down card only (stud 7th street): a community card when the deck runs short
    event: RawEvent  # the STREET event, one shared immutable record


@dataclass(frozen=True, slots=True)
class GamePlan:
    game: Game
    stud: bool
    razz: bool  # razz's bring-in and first to act (the best low board)
    hi_lo: bool
    ranking: Ranking
    streets: tuple[StreetPlan, ...]
    hand_start: RawEvent  # the HAND_START event, shared


def _ranking(game: Game) -> Ranking:
    if game.two_plus_three:
        return "omaha8"
    if game.hand_types == ("razz",):
        return "razz"
    return "high_low8" if "low8" in game.hand_types else "high"


def _plan(game: Game) -> GamePlan:
    count = len(game.streets)
    streets = tuple(
        StreetPlan(
            name=s.name,
            down=s.down,
            up=s.up,
            board=s.board,
            rounds=(False,) * s.down + (True,) * s.up,
            big_bet=s.big_bet,
            last=k == count - 1,
            short_deal=s.down == 1 and s.up == 0,
            event=(EventKind.STREET, None, None, s.name, None, None, None, False, None, None),
        )
        for k, s in enumerate(game.streets)
    )
    return GamePlan(
        game=game,
        stud=game.is_stud,
        razz=game.first_to_act == "best_low_board",
        hi_lo=game.hi_lo,
        ranking=_ranking(game),
        streets=streets,
        hand_start=(EventKind.HAND_START, None, None, None, None, None, None, False, None, game.code),
    )


# By ``id(game)``: a plan holds its game, so the id cannot be reused while the entry lives.
_PLANS: dict[int, GamePlan] = {}
_MOST_PLANS = 64  # games built on the fly (tests) must not grow the cache for ever


def plan_of(game: Game) -> GamePlan:
    """The plan of ``game``, made on first use."""
    plan = _PLANS.get(id(game))
    if plan is None or plan.game is not game:
        if len(_PLANS) >= _MOST_PLANS:
            _PLANS.clear()
        plan = _PLANS[id(game)] = _plan(game)
    return plan
