"""A player's statistics from his stored finished hands (``GET /api/me/stats``, docs/client.md
"Statistics").

The money comes from the ledger (``hand_seats``: his award minus his contribution, per hand);
the play figures from each hand's stored PHH, replayed through the engine
(:func:`studpoker.history.phh.replay`) and read off the engine's events, never off the text.
Voided hands count nowhere. The work is bounded: the last ``max_hands`` hands only, their
replays on worker threads (off the event loop) a page at a time, ``concurrent`` pages of
replays at once in the process, and each replayed hand's figures kept in a small LRU cache
(a finished hand never changes), so looking again replays only the new hands.

The figures, per game; the first street is 3rd street in the stud games, pre-flop in the board
games (Omaha Hi/Lo, Limit Hold'em); the second street is 4th street, or the flop. Each is
``count`` of ``of``:

* **entry** (3rd-street entry; board games: VPIP): of the hands in which he had a turn to act on the
  first street, those in which he put chips in voluntarily on it: he called, completed, bet or
  raised. Antes, the bring-in and the blinds are forced: bringing in and then folding (or the
  big blind checking) is no entry; the bring-in who calls a completion has entered.
* **completion** (board games: pre-flop raise): of the hands in which, at one of his turns on the
  first street, completing or raising was among his legal options (the engine's own legal
  actions: not when the raises were capped or his chips did not reach a raise), those in
  which he completed, bet or raised on it.
* **saw_second_street**: of the hands he was dealt, those in which he had not folded when
  the second street began (an all-in player sees it, and its run-out).
* **showdown** (went to showdown): of the hands in which he saw the second street, those that
  ended in a showdown with him still in (folding on 5th street is no showdown; neither is a
  hand everyone else folded to him).
* **won_at_showdown**: of his showdowns, those in which he won a share of a pot, however small
  (half of a split pot, the low half, a side pot).

A hand whose stored PHH does not replay (or not to the stacks the ledger settled) counts in
the hands and the money but in no figure (``unreplayed``). A hand is filed under the game it
was dealt in, the ``variant`` of its stored PHH (:func:`stored_game`), not its table's game: a
mixed (HORSE) cash table's row names only the first game of its rotation.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import random
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from studpoker.cards import Card, Deck
from studpoker.engine.actions import AGGRESSIVE, Action, ActionKind
from studpoker.engine.events import EventKind

if TYPE_CHECKING:
    from studpoker.engine import Hand

    from .core import Store

log = logging.getLogger(__name__)

# Chips put in by these actions on the first street are voluntary (the bring-in is forced).
VOLUNTARY = frozenset({ActionKind.CALL, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})
# Stored PHH texts read from the database, and replayed on one worker thread, this many at a time.
PAGE = 200
_T = TypeVar("_T")
# The ``variant`` line of a stored PHH (the room's writer quotes it so; a name holding these
# words is written with its quotes escaped, so it never matches).
_VARIANT = re.compile(r'^variant = "([^"\\]+)"$', re.MULTILINE)
# Cash hands count money; tournament hands (R-TOURNAMENT-CHIPS) count chips, never mixed in.
HandKind = Literal["cash", "tournament"]


# ---------------------------------------------------------------------------------------------
# One hand


@dataclass(frozen=True, slots=True)
class HandFigures:
    """What one replayed hand says about one seat's play (see the module docstring)."""

    had_first_turn: bool
    entered: bool
    could_raise: bool
    raised: bool
    saw_second_street: bool
    showdown: bool
    won_at_showdown: bool


# What a hand's replay left in the cache: the game its PHH names, and the seat's figures.
Figured = tuple[str | None, HandFigures | None]


def hand_figures(hand: Hand, seat: int) -> HandFigures:
    """The figures of ``seat`` in a finished engine hand, from its events."""
    streets = hand.game.streets
    first, second = streets[0].name, streets[1].name
    street: str | None = None
    had_turn = entered = raised = folded = saw_second = False
    for ev in hand.events:
        kind = ev.kind
        if kind is EventKind.STREET:
            street = ev.street
            if street == second:
                saw_second = not folded
        elif kind is EventKind.ACTION and ev.seat == seat:
            if street == first:
                had_turn = True
                entered = entered or ev.action in VOLUNTARY
                raised = raised or ev.action in AGGRESSIVE
            folded = folded or ev.action is ActionKind.FOLD
        elif kind is EventKind.TIMEOUT and ev.seat == seat and street == first:
            had_turn = True  # a protected all-in is a turn with no ACTION event
    result = hand.result
    showdown = result.showdown and not folded
    return HandFigures(
        had_first_turn=had_turn,
        entered=entered,
        # he completed or raised: it was legal (no need to play the street again)
        could_raise=raised or (had_turn and _could_raise_on_first_street(hand, seat)),
        raised=raised,
        saw_second_street=saw_second,
        showdown=showdown,
        won_at_showdown=showdown and result.won(seat) > 0,
    )


def _could_raise_on_first_street(hand: Hand, seat: int) -> bool:
    """Whether completing, betting or raising was legal at one of ``seat``'s turns on the
    first street. The finished hand keeps no legal options, so its first street is played
    again on a fresh engine hand dealt the same cards, asking it before each turn."""
    from studpoker.engine import Hand

    events = hand.events
    first = hand.game.streets[0].name
    end = len(events)
    dealt: list[Card | None] = []
    for k, ev in enumerate(events):
        if ev.kind is EventKind.STREET and ev.street != first:
            end = k
            break
        if ev.kind in (EventKind.DEAL, EventKind.BURN, EventKind.DEAL_BOARD):
            dealt.extend(ev.cards or ())
    # A replayed history may have forgotten cards it never knew: any unused card deals the same
    # first street (a down card decides nothing on it, and up cards are always known).
    known = {c for c in dealt if c is not None}
    spare = (c for c in map(Card, range(52)) if c not in known)
    top = [str(c if c is not None else next(spare)) for c in dealt]
    again = Hand(
        hand.game,
        hand.stakes,
        seats=[(s, hand.initial_stacks[s]) for s in hand.seat_numbers],
        deck=Deck.stacked(top, random.Random(0), salt=""),
        house=hand.house,
        button=hand.button,
        forced=hand.forced,
    )
    for ev in events[:end]:
        if ev.seat is None or ev.kind not in (EventKind.ACTION, EventKind.TIMEOUT):
            continue
        if again.to_act != ev.seat:  # never seen: the same cards and actions play the same
            raise ValueError(f"the first street played again has seat {again.to_act} to act, not {ev.seat}")
        if ev.seat == seat and any(o.kind in AGGRESSIVE for o in again.legal_actions()):
            return True
        if ev.kind is EventKind.ACTION:
            assert ev.action is not None
            again.apply(ev.seat, Action(kind=ev.action, amount=ev.amount))
        elif ev.detail == "protected_all_in":  # the other timeouts come with their ACTION
            again.timeout(ev.seat)
    return False


def stored_game(phh_text: str | None) -> str | None:
    """The code of the game a stored PHH names in its ``variant``; None without one we play."""
    from studpoker.games import UnknownGameError, game_of_phh_variant

    found = _VARIANT.search(phh_text or "")
    if found is None:
        return None
    try:
        return game_of_phh_variant(found.group(1)).code
    except UnknownGameError:
        return None


def replayed_figures(
    phh_text: str | None, house: str, seat: int, net: int, source: str
) -> HandFigures | None:
    """Replay one stored PHH (with its table's house switches) and read ``seat``'s figures;
    None when it does not replay or does not end with the ``net`` the ledger settled."""
    from studpoker.games import get_game
    from studpoker.history.phh import loads, replay

    if not phh_text:
        return None
    try:
        (phh,) = loads(phh_text, source=source)
        rules = get_game(phh.game_code).default_house
        hand = replay(phh, house=rules.with_overrides(house.split()) if house.strip() else rules)
        if hand.result.net.get(seat) != net:
            raise ValueError(f"seat {seat}'s result is not the {net} the ledger settled")
        return hand_figures(hand, seat)
    except Exception as exc:  # any unreadable history: counted in no figure, and said so
        log.warning("stats: %s left out of the figures: %s", source, exc)
        return None


# ---------------------------------------------------------------------------------------------
# Many hands


@dataclass(frozen=True, slots=True)
class StoredHand:
    """One finished hand of the account, as the ledger settled it, with its figures."""

    hand_id: str
    started_at: datetime.datetime
    game: str
    big_bet: int
    net: int
    figures: HandFigures | None


@dataclass(slots=True)
class Figure:
    """``count`` times out of ``of`` chances."""

    count: int = 0
    of: int = 0

    def add(self, chance: bool, happened: bool) -> None:
        if chance:
            self.of += 1
            self.count += happened

    @property
    def rate(self) -> float | None:
        return self.count / self.of if self.of else None


@dataclass(slots=True)
class Results:
    """Hands and money: ``big_bets`` is the sum of each hand's net in its table's big bets."""

    hands: int = 0
    net: int = 0
    big_bets: float = 0.0

    def add(self, hand: StoredHand) -> None:
        self.hands += 1
        self.net += hand.net
        self.big_bets += hand.net / hand.big_bet

    @property
    def net_per_100(self) -> float | None:
        return 100 * self.net / self.hands if self.hands else None

    @property
    def bb_per_100(self) -> float | None:
        return 100 * self.big_bets / self.hands if self.hands else None


@dataclass(slots=True)
class GameStats(Results):
    game: str = ""
    entry: Figure = field(default_factory=Figure)
    completion: Figure = field(default_factory=Figure)
    saw_second_street: Figure = field(default_factory=Figure)
    showdown: Figure = field(default_factory=Figure)
    won_at_showdown: Figure = field(default_factory=Figure)
    unreplayed: int = 0

    def add(self, hand: StoredHand) -> None:
        Results.add(self, hand)
        f = hand.figures
        if f is None:
            self.unreplayed += 1
            return
        self.entry.add(f.had_first_turn, f.entered)
        self.completion.add(f.could_raise, f.raised)
        self.saw_second_street.add(True, f.saw_second_street)
        self.showdown.add(f.saw_second_street, f.showdown)
        self.won_at_showdown.add(f.showdown, f.won_at_showdown)


@dataclass(frozen=True, slots=True)
class ResultPoint:
    """The cumulative net after the ``hand``-th hand (1 = the first one counted)."""

    hand: int
    net: int
    hand_id: str
    started_at: datetime.datetime


@dataclass(slots=True)
class PlayerStats:
    totals: Results
    games: dict[str, GameStats]
    results: list[ResultPoint]  # downsampled to the points asked for
    limited: bool  # there were more hands than the window holds: these are the latest


def downsample(items: Sequence[_T], limit: int) -> list[_T]:
    """At most ``limit`` (2 or more) of ``items``, evenly spread, the first and the last kept."""
    n = len(items)
    if n <= limit:
        return list(items)
    step = (n - 1) / (limit - 1)
    return [items[round(k * step)] for k in range(limit)]


def summarize(hands: Sequence[StoredHand], *, points: int, limited: bool = False) -> PlayerStats:
    """The statistics of ``hands`` (oldest first)."""
    totals = Results()
    games: dict[str, GameStats] = {}
    curve: list[ResultPoint] = []
    for hand in hands:
        totals.add(hand)
        games.setdefault(hand.game, GameStats(game=hand.game)).add(hand)
        curve.append(ResultPoint(totals.hands, totals.net, hand.hand_id, hand.started_at))
    return PlayerStats(totals, games, downsample(curve, max(2, points)), limited)


class HandFiguresCache:
    """The game and figures of replayed hands by (hand id, seat), least recently used out first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, int], Figured] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: tuple[str, int]) -> tuple[bool, Figured]:
        if key not in self._items:
            return False, (None, None)
        self._items.move_to_end(key)
        return True, self._items[key]

    def put(self, key: tuple[str, int], figures: Figured) -> None:
        self._items[key] = figures
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


class PlayerStatsReader:
    """Statistics of any account from a store, the work bounded (see the module docstring)."""

    def __init__(self, store: Store, *, max_hands: int, cache_hands: int, concurrent: int) -> None:
        self.store = store
        self.max_hands = max_hands
        self.cache = HandFiguresCache(cache_hands)
        self._replaying = asyncio.Semaphore(max(1, concurrent))
        self.replayed = 0  # hands replayed so far (the cache spares the others)

    async def stats(
        self,
        account_id: int,
        *,
        game: str | None = None,
        since: datetime.datetime | None = None,
        points: int = 500,
        kind: HandKind = "cash",
    ) -> PlayerStats:
        """The account's statistics over his last ``max_hands`` finished hands of ``kind`` (of
        ``game``, started at ``since`` or later, when given)."""
        hands, limited = await self.hands(account_id, game=game, since=since, kind=kind)
        return summarize(hands, points=points, limited=limited)

    async def hands(
        self,
        account_id: int,
        *,
        game: str | None = None,
        since: datetime.datetime | None = None,
        kind: HandKind = "cash",
    ) -> tuple[list[StoredHand], bool]:
        """His last ``max_hands`` finished hands of ``kind``, oldest first, and whether there
        were more: cash hands (their money from the ledger) or tournament hands (their chips
        from their histories)."""
        read = self._tournament_rows if kind == "tournament" else self._cash_rows
        rows, limited = await read(account_id, game, since)
        figures: dict[tuple[str, int], Figured] = {}
        missing = []
        for row in rows:
            found, value = self.cache.get((row.hand_id, row.seat))
            if found:
                figures[(row.hand_id, row.seat)] = value
            else:
                missing.append(row)
        for start in range(0, len(missing), PAGE):
            page = missing[start : start + PAGE]
            texts = await self._texts([r.hand_id for r in page if r.phh is None])
            jobs = [
                (r.phh or texts.get(r.hand_id), r.house, r.seat, r.net, f"hand {r.hand_id}") for r in page
            ]
            async with self._replaying:
                done = await asyncio.to_thread(_replay_page, jobs)
            self.replayed += len(done)
            for row, figured in zip(page, done, strict=True):
                figures[(row.hand_id, row.seat)] = figured
                self.cache.put((row.hand_id, row.seat), figured)
        counted = []
        for r in rows:
            dealt, of_hand = figures[(r.hand_id, r.seat)]
            played = dealt or r.game  # the hand's own game; the table's when its PHH names none
            if game is None or played == game:
                counted.append(StoredHand(r.hand_id, r.started_at, played, r.big_bet, r.net, of_hand))
        return counted, limited

    async def _cash_rows(
        self, account_id: int, game: str | None, since: datetime.datetime | None
    ) -> tuple[list[_Row], bool]:
        from sqlalchemy import and_, or_, select

        from .schema import hand_seats, hands, tables

        query = (
            select(
                hands.c.id,
                hands.c.started_at,
                tables.c.game,
                tables.c.big_bet,
                tables.c.house,
                hand_seats.c.seat,
                (hand_seats.c.award - hand_seats.c.contribution).label("net"),
            )
            .select_from(
                hand_seats.join(hands, hands.c.id == hand_seats.c.hand_id).join(
                    tables, tables.c.id == hands.c.table_id
                )
            )
            .where(hand_seats.c.account_id == account_id, hands.c.status == "finished")
        )
        if game is not None:
            # By the hand's PHH (a mixed table deals several games); the exact game is checked
            # again on each hand read (stored_game).
            from studpoker.games import GAMES

            known = GAMES.get(game)
            of_table = and_(hands.c.phh.is_(None), tables.c.game == game)
            query = query.where(
                of_table
                if known is None
                else or_(hands.c.phh.like(f'%variant = "{known.phh_variant}"%'), of_table)
            )
        if since is not None:
            query = query.where(hands.c.started_at >= since)
        query = query.order_by(hands.c.started_at.desc(), hands.c.id.desc()).limit(self.max_hands + 1)
        async with self.store.engine.connect() as conn:
            found = (await conn.execute(query)).all()
        rows = [
            _Row(str(r.id), r.started_at, r.game, int(r.big_bet), r.house or "", int(r.seat), int(r.net))
            for r in found
        ]
        return rows[: self.max_hands][::-1], len(rows) > self.max_hands

    async def _tournament_rows(
        self, account_id: int, game: str | None, since: datetime.datetime | None
    ) -> tuple[list[_Row], bool]:
        from .tournament_hand_reads import hands_played

        found, limited = await hands_played(
            self.store.engine, account_id, game=game, since=since, limit=self.max_hands
        )
        rows = [_Row(h.hand_id, h.started_at, h.game, h.big_bet, "", h.seat, h.net, h.phh) for h in found]
        return rows, limited

    async def _texts(self, ids: list[str]) -> dict[str, str | None]:
        from sqlalchemy import select

        from .schema import hands

        if not ids:
            return {}
        async with self.store.engine.connect() as conn:
            rows = (await conn.execute(select(hands.c.id, hands.c.phh).where(hands.c.id.in_(ids)))).all()
        return {str(r.id): r.phh for r in rows}


@dataclass(frozen=True, slots=True)
class _Row:
    """One finished hand of the account to count: its PHH when it came with it (tournaments)."""

    hand_id: str
    started_at: datetime.datetime
    game: str
    big_bet: int
    house: str
    seat: int
    net: int
    phh: str | None = None


def _replay_page(jobs: list[tuple[str | None, str, int, int, str]]) -> list[Figured]:
    """On a worker thread: replay each stored hand of a page and read its game and figures."""
    return [(stored_game(job[0]), replayed_figures(*job)) for job in jobs]
