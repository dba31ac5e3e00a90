"""Bots: small objects with ``choose(view, legal_options) -> Action`` that see only a seat's view.

* :class:`RandomBot` picks uniformly among the legal options (fuzzing, a baseline).
* :class:`EquityBot` estimates its equity against the cards it can see (its own cards, the
  others' up cards, folded up cards as dead, the board) with a cheap Monte Carlo run, then
  bets for value, calls when the pot odds pay, and folds the rest. One class serves all four
  games; :func:`make_bot` builds the per-game defaults by name.

A bot never needs the engine's full state, so the same object plays through the engine
directly (:func:`play_hand`) or behind the server protocol (it only needs the per-seat view
and the legal options the server sends).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from studpoker.cards import Card
from studpoker.engine import Action, ActionKind, Hand, HandView, LegalOption, Pot, SeatView
from studpoker.equity import EquityError, equity

__all__ = [
    "BOTS",
    "Bot",
    "CallingBot",
    "EquityBot",
    "RandomBot",
    "choose_from_protocol",
    "estimate_equity",
    "make_bot",
    "play_hand",
    "view_from_dict",
]

AGGRESSIVE = (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE)


class Bot(Protocol):
    """What a seat needs from a bot."""

    name: str

    def choose(self, view: HandView, legal: Sequence[LegalOption]) -> Action: ...


class RandomBot:
    """Uniformly random among the legal options."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.rng = random.Random(seed)
        self.name = name

    def choose(self, view: HandView, legal: Sequence[LegalOption]) -> Action:
        return self.rng.choice(list(legal)).action


class CallingBot:
    """Never folds, never raises: checks or calls (posts the bring-in). A calibration opponent."""

    def __init__(self, seed: int | None = None, name: str = "calling") -> None:
        self.name = name

    def choose(self, view: HandView, legal: Sequence[LegalOption]) -> Action:
        by_kind = {o.kind: o for o in legal}
        for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN):
            if kind in by_kind:
                return by_kind[kind].action
        return next(iter(legal)).action


def _cards(cards: Sequence[Card | None]) -> str:
    return " ".join("??" if c is None else str(c) for c in cards)


def estimate_equity(view: HandView, *, samples: int = 300, seed: int | None = None) -> float:
    """The viewer's equity against every player still in, from what the view shows."""
    me = view.viewer
    if me is None:
        raise ValueError("estimate_equity needs a seat's view, not a spectator's")
    mine = view.seat(me)
    others = [s for s in view.seats if s.seat != me and not s.folded]
    if not others:
        return 1.0
    omaha = view.game == "O8"
    dead = [] if omaha else [c for s in view.seats if s.folded for c in s.up]
    if not omaha and view.board:
        # the stud community card (too few cards for 7th street): it is everyone's 7th card,
        # so it cannot tell the hands apart; leave it out and compare six-card hands.
        dead += list(view.board)
    hands = [_cards([*mine.down, *mine.up])]
    hands += [_cards([*s.down, *s.up]) for s in others]
    board = _cards(view.board) if omaha else ""
    while True:
        try:
            result = equity(
                view.game,
                hands,
                dead=" ".join(map(str, dead)),
                board=board,
                exact=False,
                max_deals=samples,
                min_deals=samples,
                seed=seed,
                table_limit=0,
            )
            return result.players[0].equity
        except EquityError:
            if len(hands) <= 2:  # pragma: no cover - a two-player position always fits the deck
                raise
            hands.pop()  # eight-handed stud can need more cards than the deck holds


@dataclass(frozen=True)
class Style:
    """How an :class:`EquityBot` turns equity into actions."""

    raise_edge: float = 1.5  # bet/raise when equity > raise_edge / players still in ...
    raise_floor: float = 0.55  # ... and above this
    call_margin: float = 1.0  # call when equity * call_margin >= the pot odds
    bluff: float = 0.03  # sometimes bet with nothing
    samples: int = 300


STYLES: Mapping[str, Style] = {
    "7S": Style(),
    "7S8": Style(raise_edge=1.6, raise_floor=0.58),  # split pots: equity overstates scooping
    "RZ": Style(),
    "O8": Style(raise_edge=1.6, raise_floor=0.58),
}


class EquityBot:
    """A rule-based bot: equity against the visible cards, pot odds, value bets."""

    def __init__(self, seed: int | None = None, name: str = "equity", style: Style | None = None) -> None:
        self.rng = random.Random(seed)
        self.name = name
        self.style = style
        self.last_equity: float | None = None
        self._cache_key: object = None

    def choose(self, view: HandView, legal: Sequence[LegalOption]) -> Action:
        options = list(legal)
        style = self.style or STYLES.get(view.game, Style())
        by_kind = {o.kind: o for o in options}
        aggressive = [o for o in options if o.kind in AGGRESSIVE]
        me = view.seat(view.viewer) if view.viewer is not None else None
        live = sum(1 for s in view.seats if not s.folded)
        key = (
            view.game,
            view.street,
            tuple((s.seat, s.folded, s.down, s.up) for s in view.seats),
            view.board,
        )
        if key == self._cache_key and self.last_equity is not None:
            eq = self.last_equity  # the same cards as the last decision (e.g. facing a raise)
        else:
            eq = estimate_equity(view, samples=style.samples, seed=self.rng.randrange(2**32))
            self._cache_key, self.last_equity = key, eq
        strong = eq > max(style.raise_floor, style.raise_edge / max(live, 1))
        passive = (
            by_kind.get(ActionKind.CHECK) or by_kind.get(ActionKind.CALL) or by_kind.get(ActionKind.BRING_IN)
        )
        if aggressive and (strong or (self.rng.random() < style.bluff and ActionKind.CHECK in by_kind)):
            # the smallest raise (fixed limit; on 7S 4th street after an open pair, the small one)
            return min(aggressive, key=lambda o: o.amount).action
        if ActionKind.CHECK in by_kind:
            return by_kind[ActionKind.CHECK].action
        if passive is None:
            return options[0].action
        bet = me.bet if me is not None else 0
        to_call = max(passive.amount - bet, 0)
        pot = sum(p.amount for p in view.pots)
        odds = to_call / (pot + to_call) if pot + to_call else 0.0
        if ActionKind.FOLD in by_kind and eq * style.call_margin < odds:
            return by_kind[ActionKind.FOLD].action
        return passive.action


BOTS: Mapping[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "calling": CallingBot,
    "equity": EquityBot,
}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by name (``random``, ``calling``, ``equity``)."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: use one of {', '.join(BOTS)}") from None
    return factory(seed)


def play_hand(hand: Hand, bots: Mapping[int, Bot]) -> Hand:
    """Play ``hand`` to the end, each seat's bot deciding from that seat's view."""
    while not hand.is_over:
        seat = hand.to_act
        if seat is None:  # pragma: no cover - the engine deals on until someone acts or it ends
            break
        view = hand.view(seat)
        legal = view.legal.options if view.legal is not None else hand.legal_actions().options
        action = bots[seat].choose(view, legal)
        hand.act(seat, action.kind, action.amount)
    return hand


# -- behind the server protocol ------------------------------------------------------------------


def _card_or_none(text: object) -> Card | None:
    return None if text is None else Card.parse(str(text))


def view_from_dict(data: Mapping[str, object]) -> HandView:
    """Rebuild a seat's :class:`HandView` from its JSON form (``HandView.to_dict()``, which is
    what the server sends as a table state's ``hand``)."""

    def items(key: str) -> list[Any]:
        value = data.get(key) or []
        return list(value) if isinstance(value, list | tuple) else []

    seats = tuple(
        SeatView(
            seat=int(s["seat"]),
            stack=int(s.get("stack", 0)),
            bet=int(s.get("bet", 0)),
            contributed=int(s.get("contributed", 0)),
            folded=bool(s.get("folded", False)),
            all_in=bool(s.get("all_in", False)),
            protected=bool(s.get("protected", False)),
            down=tuple(_card_or_none(c) for c in s.get("down", [])),
            up=tuple(Card.parse(str(c)) for c in s.get("up", [])),
            shown=bool(s.get("shown", False)),
        )
        for s in items("seats")
    )
    pots = tuple(
        Pot(amount=int(p["amount"]), eligible=tuple(int(e) for e in p.get("eligible", [])))
        for p in items("pots")
    )
    viewer, to_act = data.get("viewer"), data.get("to_act")
    return HandView(
        viewer=None if viewer is None else int(str(viewer)),
        game=str(data["game"]),
        street=str(data.get("street", "")),
        version=int(str(data.get("version", 0))),
        button=None,
        bring_in_seat=None,
        seats=seats,
        board=tuple(Card.parse(str(c)) for c in items("board")),
        pots=pots,
        to_act=None if to_act is None else int(str(to_act)),
        legal=None,
        is_over=bool(data.get("is_over", False)),
        result=None,
    )


def choose_from_protocol(
    bot: Bot, hand: Mapping[str, object], options: Sequence[Mapping[str, object]]
) -> dict[str, object]:
    """A bot's answer to the server's ``your_turn``: ``{"kind": ..., "amount": ...}``.

    ``hand`` is the seat's view as JSON (the table state's ``hand``), ``options`` the legal
    options sent with the turn (``kind``, ``amount``, ``all_in``).
    """
    legal = tuple(
        LegalOption(
            kind=ActionKind(str(o["kind"])),
            amount=int(str(o["amount"])) if o.get("amount") is not None else 0,
            all_in=bool(o.get("all_in", False)),
        )
        for o in options
    )
    action = bot.choose(view_from_dict(hand), legal)
    out: dict[str, object] = {"kind": action.kind.value}
    if action.amount is not None and action.kind not in (ActionKind.FOLD, ActionKind.CHECK):
        out["amount"] = action.amount
    return out
