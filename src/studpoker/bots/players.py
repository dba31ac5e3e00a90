"""The engine's bots: ``choose(view, legal_options) -> Action`` from a seat's view only, each
deciding by its policy in :mod:`studpoker.bots.policy`.

* :class:`RandomBot` picks uniformly among the legal options (fuzzing, a baseline).
* :class:`CallingBot` checks or calls (a calibration opponent).
* :class:`EquityBot` estimates its equity against the cards it can see (its own cards, the
  others' up cards, folded up cards as dead, the board) with a cheap Monte Carlo run, then
  bets for value, calls when the pot odds pay, and folds the rest. One class serves every
  game; :func:`make_bot` builds one by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from studpoker.cards import Card
from studpoker.engine import Action, Hand, HandView, LegalOption
from studpoker.equity import EquityError, equity
from studpoker.games import GAMES, get_game

from .policy import Style, choose_by_equity, choose_calling, choose_random


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
        return choose_random(legal, self.rng).action


class CallingBot:
    """Never folds, never raises: checks or calls (posts the bring-in). A calibration opponent."""

    def __init__(self, seed: int | None = None, name: str = "calling") -> None:
        self.name = name

    def choose(self, view: HandView, legal: Sequence[LegalOption]) -> Action:
        return choose_calling(legal).action


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
    board_game = get_game(view.game).board
    dead = [] if board_game else [c for s in view.seats if s.folded for c in s.up]
    if not board_game and view.board:
        # the stud community card (too few cards for 7th street): it is everyone's 7th card,
        # so it cannot tell the hands apart; leave it out and compare six-card hands.
        dead += list(view.board)
    hands = [_cards([*mine.down, *mine.up])]
    hands += [_cards([*s.down, *s.up]) for s in others]
    board = _cards(view.board) if board_game else ""
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


_SPLIT_POT_STYLE = Style(raise_edge=1.6, raise_floor=0.58)  # split pots: equity overstates scooping
STYLES: Mapping[str, Style] = {
    code: _SPLIT_POT_STYLE if game.hi_lo else Style() for code, game in GAMES.items()
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
        style = self.style or STYLES.get(view.game, Style())
        me = view.seat(view.viewer) if view.viewer is not None else None
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
        option = choose_by_equity(
            list(legal),
            self.rng,
            style,
            equity=eq,
            players_in=sum(1 for s in view.seats if not s.folded),
            pot=sum(p.amount for p in view.pots),
            bet=me.bet if me is not None else 0,
        )
        return option.action


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
