"""How a bot chooses among its legal options: every bot's policy, in one engine-free module.

The policies read an option's ``kind`` (``"fold"``, ``"check"``, ``"call"``, ``"bring_in"``,
``"complete"``, ``"bet"``, ``"raise"``) and ``amount`` only, so they serve the engine's options
(:class:`~studpoker.engine.LegalOption`, whose kinds are string enums) and the protocol's
(``your_turn.options``) alike, and return the option they were given:

* :func:`choose_random`: uniformly at random (:class:`~studpoker.bots.RandomBot`);
* :func:`choose_calling`: check or call, never fold or raise (:class:`~studpoker.bots.CallingBot`);
* :func:`choose_by_equity`: bet for value, call on pot odds, fold the rest, from an equity
  estimate (:class:`~studpoker.bots.EquityBot`);
* :func:`choose_casual`: mostly check or call, sometimes bet, now and then fold, by a
  :class:`Temper`: the room's bots (:data:`ROOM_BOT`) and the load client's players
  (:data:`LOAD_PLAYER`), both through :func:`choose_offered`, which reads the protocol's options.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias, TypeVar

AGGRESSIVE = frozenset({"complete", "bet", "raise"})
_PASSIVE = ("check", "call", "bring_in")  # what a calling bot answers, in this order


class Option(Protocol):
    """What a policy reads of a legal option."""

    @property
    def kind(self) -> str: ...

    @property
    def amount(self) -> int | None: ...


OptionT = TypeVar("OptionT", bound=Option)


def choose_random(options: Sequence[OptionT], rng: random.Random) -> OptionT:
    """Uniformly random among the legal options."""
    return rng.choice(list(options))


def choose_calling(options: Sequence[OptionT]) -> OptionT:
    """Check, else call, else post the bring-in (the first option when none of them is legal)."""
    by_kind = {o.kind: o for o in options}
    for kind in _PASSIVE:
        if kind in by_kind:
            return by_kind[kind]
    return next(iter(options))


@dataclass(frozen=True)
class Style:
    """How :func:`choose_by_equity` turns equity into actions."""

    raise_edge: float = 1.5  # bet/raise when equity > raise_edge / players still in ...
    raise_floor: float = 0.55  # ... and above this
    call_margin: float = 1.0  # call when equity * call_margin >= the pot odds
    bluff: float = 0.03  # sometimes bet with nothing
    samples: int = 300  # deals of the equity estimate


def choose_by_equity(
    options: Sequence[OptionT],
    rng: random.Random,
    style: Style,
    *,
    equity: float,
    players_in: int,
    pot: int,
    bet: int,
) -> OptionT:
    """Bet or raise the smallest amount when ``equity`` beats the field (or, rarely, as a bluff
    when it could check), check when it can, call when the pot odds (``pot``: the chips in the
    middle; ``bet``: what the player has in this round) pay, and fold the rest."""
    by_kind = {o.kind: o for o in options}
    aggressive = [o for o in options if o.kind in AGGRESSIVE]
    strong = equity > max(style.raise_floor, style.raise_edge / max(players_in, 1))
    passive = by_kind.get("check") or by_kind.get("call") or by_kind.get("bring_in")
    if aggressive and (strong or (rng.random() < style.bluff and "check" in by_kind)):
        # the smallest raise (fixed limit; on 7S 4th street after an open pair, the small one)
        return min(aggressive, key=lambda o: o.amount or 0)
    if "check" in by_kind:
        return by_kind["check"]
    if passive is None:
        return options[0]
    to_call = max((passive.amount or 0) - bet, 0)
    odds = to_call / (pot + to_call) if pot + to_call else 0.0
    if "fold" in by_kind and equity * style.call_margin < odds:
        return by_kind["fold"]
    return passive


@dataclass(frozen=True)
class Temper:
    """How often :func:`choose_casual` leaves checking and calling (chances per decision)."""

    bet_when_checked_to: float  # bet (or raise) rather than check
    fold_to_bet: float  # fold rather than call
    fold_to_big_bet: float  # ... when the call is more than a third of the stack
    raise_when_bet_to: float  # raise rather than call


ROOM_BOT = Temper(bet_when_checked_to=0.2, fold_to_bet=0.08, fold_to_big_bet=0.35, raise_when_bet_to=0.1)
# The load client does not follow its stack: it never sees a bet as big.
LOAD_PLAYER = Temper(bet_when_checked_to=0.15, fold_to_bet=0.06, fold_to_big_bet=0.06, raise_when_bet_to=0.07)


def choose_casual(
    options: Sequence[OptionT], rng: random.Random, temper: Temper, *, stack: int = 0
) -> OptionT:
    """Mostly check or call, sometimes bet or raise, folding now and then, more often to a call
    above a third of ``stack`` (0: unknown). One roll of ``rng`` decides, then one pick among
    the aggressive options when it says so."""
    by_kind = {o.kind: o for o in options}
    aggressive = [o for o in options if o.kind in AGGRESSIVE]
    roll = rng.random()
    if "check" in by_kind:
        if aggressive and roll < temper.bet_when_checked_to:
            return rng.choice(aggressive)
        return by_kind["check"]
    passive = by_kind.get("bring_in") or by_kind.get("call")
    if passive is not None:
        big = passive.amount is not None and stack > 0 and passive.amount * 3 > stack
        if "fold" in by_kind and roll < (temper.fold_to_big_bet if big else temper.fold_to_bet):
            return by_kind["fold"]
        if aggressive and roll > 1 - temper.raise_when_bet_to:
            return rng.choice(aggressive)
        return passive
    return rng.choice(list(options))


# -- the protocol's options ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Offer:
    """One of the protocol's legal options (``your_turn.options``) as the policies read it;
    ``index`` is its place in the list it came from."""

    kind: str
    amount: int | None
    all_in: bool
    index: int


# A legal option as the protocol sends it: its JSON object, or the server's ``LegalOptionInfo``.
Offered: TypeAlias = Mapping[str, object] | Option
R = TypeVar("R", bound=Offered)


def offers(options: Sequence[Offered]) -> list[Offer]:
    """The protocol's legal options as the policies read them (``{"kind": "call", "amount": 20}``
    or an object with those attributes)."""
    return [_offer(raw, index) for index, raw in enumerate(options)]


def _offer(raw: Offered, index: int) -> Offer:
    if isinstance(raw, Mapping):
        kind, amount, all_in = raw["kind"], raw.get("amount"), raw.get("all_in", False)
    else:
        kind, amount, all_in = raw.kind, raw.amount, getattr(raw, "all_in", False)
    return Offer(str(kind), None if amount is None else int(str(amount)), bool(all_in), index)


def choose_offered(options: Sequence[R], rng: random.Random, temper: Temper, *, stack: int = 0) -> R:
    """:func:`choose_casual` over the protocol's legal options (see :func:`offers`); returns
    the chosen one of ``options`` itself."""
    return options[choose_casual(offers(options), rng, temper, stack=stack).index]
