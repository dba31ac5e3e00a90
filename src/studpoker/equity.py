"""Equity for Seven Card Stud (7S), Stud Hi/Lo (7S8), Razz (RZ) and Omaha Hi/Lo (O8).

Give each player's known cards (``??`` for a card dealt but not seen), the dead cards and,
for O8, the board; every card a player still receives comes from the unseen cards. The
result is each player's share of the pot and how it is made up: ``win`` / ``tie`` (sole or
shared best hand of the main ranking: high, or low in razz), ``scoop`` (the whole pot
alone), ``high`` / ``low`` (expected share of the high half / of the low half won by a
qualifying low; split games only).

How it is computed (all on numpy arrays, hands scored by the batch evaluators):

* Stud: a player's final hand depends only on his own cards, so every possible completion
  of each player (``C(unseen, to_come)`` sets) is scored once, in one batch call, into a
  table indexed by the completion's colex rank.
* Heads-up stud is then **exact** by inclusion-exclusion over the cards both completions
  share: pairs of disjoint completions are counted as ``sum over T (-1)^|T|`` of the pairs
  that both contain ``T``, and within each ``T`` a comparison count is a sorted search.
  Heads-up 3rd street (18 billion deals) takes about a second.
* Multi-way positions are enumerated when the runouts are few (``EXACT_LIMIT``), otherwise
  sampled: random partial shuffles give each player's new cards, looked up in the tables
  (or scored directly when a table would be too big), until the 95 % interval of every
  player's equity is within the asked precision.
* O8: board runouts (and unknown hole cards) are enumerated or sampled; each hand's best
  2 + 3 high and low are taken over the 60 combinations in one batch call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from studpoker.cards import Card, CardError, parse_cards

__all__ = [
    "GAMES",
    "EquityError",
    "EquityResult",
    "PlayerEquity",
    "Position",
    "equity",
    "parse_hand",
    "position",
]

I64 = npt.NDArray[np.int64]
IntArray = npt.NDArray[np.integer[Any]]

GAMES: dict[str, str] = {
    "7S": "Seven Card Stud",
    "7S8": "Seven Card Stud Hi/Lo, eight or better",
    "RZ": "Razz",
    "O8": "Omaha Hi/Lo, eight or better",
}
SPLIT_GAMES = frozenset({"7S8", "O8"})
STUD_GAMES = frozenset({"7S", "7S8", "RZ"})

EXACT_LIMIT = 3_000_000  # enumerate when there are at most this many runouts
TABLE_LIMIT = 2_000_000  # score every completion of a player when there are at most this many
PAIR_ENTRY_LIMIT = 8_000_000  # inclusion-exclusion entries per player (heads-up exact)
BATCH = 200_000  # Monte Carlo deals per round
Z95 = 1.959963984540054


class EquityError(ValueError):
    """A position that cannot be evaluated: bad cards, impossible counts, unknown game."""


# --------------------------------------------------------------------------------------------
# Batch evaluation (the evaluators' numpy API, or the scalar one row by row until it lands)


def _scalar_rows(fn: Callable[[Sequence[int]], int]) -> Callable[[IntArray], I64]:
    def run(codes: IntArray) -> I64:
        rows = np.asarray(codes).tolist()
        return np.fromiter((fn(r) for r in rows), dtype=np.int64, count=len(rows))

    return run


def _evaluators() -> tuple[Callable[[IntArray], I64], Callable[[IntArray], I64], Callable[[IntArray], I64]]:
    import studpoker.evaluate as ev

    found: list[Callable[[IntArray], I64]] = []
    for batch_name, scalar_name in (
        ("batch_high", "high_value"),
        ("batch_low8", "low8_value"),
        ("batch_razz", "razz_value"),
    ):
        fn = getattr(ev, batch_name, None)
        if fn is None:
            fn = _scalar_rows(getattr(ev, scalar_name))
        found.append(fn)
    return found[0], found[1], found[2]


_EVAL_CACHE: list[tuple[Callable[[IntArray], I64], ...]] = []


def _eval() -> tuple[Callable[[IntArray], I64], ...]:
    if not _EVAL_CACHE:
        _EVAL_CACHE.append(_evaluators())
    return _EVAL_CACHE[0]


def score_stud(game: str, codes: IntArray) -> tuple[I64, I64]:
    """(main values, low8 values) of 5-7 card hands, rows of ``codes``; larger is better.

    Main values are high values (7S, 7S8) or razz values (RZ); low values are zeros outside 7S8.
    """
    high, low8, razz = _eval()
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    if len(codes) == 0:
        z = np.zeros(0, np.int64)
        return z, z
    if game == "RZ":
        main = np.asarray(razz(codes), dtype=np.int64)
        return main, np.zeros(len(main), np.int64)
    main = np.asarray(high(codes), dtype=np.int64)
    if game == "7S8":
        return main, np.asarray(low8(codes), dtype=np.int64)
    return main, np.zeros(len(main), np.int64)


_OMAHA_HOLE = np.array([(a, b) for a in range(4) for b in range(a + 1, 4)], dtype=np.int64)
_OMAHA_BOARD = np.array(
    [(a, b, c) for a in range(5) for b in range(a + 1, 5) for c in range(b + 1, 5)], dtype=np.int64
)


def score_omaha8(hole: IntArray, board: IntArray) -> tuple[I64, I64]:
    """(high, low8) values of Omaha hands: ``hole`` (N, 4) and ``board`` (N, 5) card codes."""
    import studpoker.evaluate as ev

    hole = np.asarray(hole, dtype=np.int64)
    board = np.asarray(board, dtype=np.int64)
    batch = getattr(ev, "batch_omaha8", None)
    if batch is not None:
        hi, lo = batch(hole, board)
        return np.asarray(hi, dtype=np.int64), np.asarray(lo, dtype=np.int64)
    high, low8, _ = _eval()
    n = len(hole)
    if n == 0:
        z = np.zeros(0, np.int64)
        return z, z
    h = hole[:, _OMAHA_HOLE]  # (n, 6, 2)
    b = board[:, _OMAHA_BOARD]  # (n, 10, 3)
    five = np.concatenate(
        [np.repeat(h[:, :, None, :], 10, axis=2), np.repeat(b[:, None, :, :], 6, axis=1)], axis=3
    ).reshape(n * 60, 5)
    hi = np.asarray(high(five), dtype=np.int64).reshape(n, 60).max(axis=1)
    lo = np.asarray(low8(five), dtype=np.int64).reshape(n, 60).max(axis=1)
    return hi, lo


# --------------------------------------------------------------------------------------------
# Positions


def parse_hand(text: str | Sequence[Any]) -> tuple[Card | None, ...]:
    """Cards written together or apart, ``??`` for an unknown card: ``"?? ?? 7s"``."""
    if not isinstance(text, str):
        return tuple(
            None if c is None or c == "??" else Card(c) if isinstance(c, int) else Card.parse(c) for c in text
        )
    compact = "".join(text.replace(",", " ").split())
    if len(compact) % 2:
        raise EquityError(f"{text!r} is not a list of cards: each card is two characters, like 'As' or '??'")
    out: list[Card | None] = []
    for i in range(0, len(compact), 2):
        token = compact[i : i + 2]
        if token == "??":
            out.append(None)
        else:
            try:
                out.append(Card.parse(token))
            except CardError as exc:
                raise EquityError(str(exc)) from None
    return tuple(out)


@dataclass(frozen=True)
class Position:
    """A validated position: known cards per player (``None`` unknown), board, dead cards."""

    game: str
    hands: tuple[tuple[Card | None, ...], ...]
    dead: tuple[Card, ...] = ()
    board: tuple[Card, ...] = ()
    receive: tuple[int, ...] | None = None  # stud: new cards each player still gets (default: to 7)

    @property
    def players(self) -> int:
        return len(self.hands)

    def known(self, player: int) -> tuple[int, ...]:
        return tuple(int(c) for c in self.hands[player] if c is not None)

    def to_come(self, player: int) -> int:
        """Cards still drawn from the unseen ones for this player (unknown ones included)."""
        if self.receive is not None:
            return len(self.hands[player]) - len(self.known(player)) + self.receive[player]
        size = 4 if self.game == "O8" else 7
        return size - len(self.known(player))

    def final_size(self, player: int) -> int:
        """Cards in the player's hand at showdown."""
        return len(self.known(player)) + self.to_come(player)

    def unseen(self) -> tuple[int, ...]:
        used = {int(c) for c in self.dead} | {int(c) for c in self.board}
        for p in range(self.players):
            used.update(self.known(p))
        return tuple(c for c in range(52) if c not in used)

    def cards_needed(self) -> int:
        n = sum(self.to_come(p) for p in range(self.players))
        if self.game == "O8":
            n += 5 - len(self.board)
        return n


def position(
    game: str,
    hands: Sequence[str | Sequence[Any]],
    dead: str | Sequence[Any] = "",
    board: str | Sequence[Any] = "",
    receive: int | Sequence[int] | None = None,
) -> Position:
    """Parse and check a position; raises :class:`EquityError` with a clear message.

    ``receive`` (stud only) is how many more cards each player gets (one number for all, or
    one per player); by default every hand is dealt to seven cards.
    """
    code = game.upper()
    if code not in GAMES:
        raise EquityError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")
    parsed = tuple(parse_hand(h) for h in hands)
    if len(parsed) < 2:
        raise EquityError("give at least two players' hands")
    try:
        dead_cards = (
            parse_cards(dead, allow_empty=True)
            if isinstance(dead, str)
            else parse_cards(list(dead), allow_empty=True)
        )
        board_cards = (
            parse_cards(board, allow_empty=True)
            if isinstance(board, str)
            else parse_cards(list(board), allow_empty=True)
        )
    except CardError as exc:
        raise EquityError(str(exc)) from None
    if code in STUD_GAMES:
        if board_cards:
            raise EquityError(f"{code} has no board: give each player's up cards with his hand")
        if len(parsed) > 8:
            raise EquityError(f"{code} seats at most 8 players, not {len(parsed)}")
        for i, h in enumerate(parsed, 1):
            if len(h) > 7:
                raise EquityError(f"player {i} has {len(h)} cards: a stud hand has at most 7")
    else:
        if len(parsed) > 10:
            raise EquityError(f"O8 seats at most 10 players, not {len(parsed)}")
        for i, h in enumerate(parsed, 1):
            if len(h) not in (0, 4):
                raise EquityError(
                    f"player {i} has {len(h)} cards: an Omaha hand is 4 cards (use ?? for unknown ones)"
                )
        if len(board_cards) > 5:
            raise EquityError(f"the board has {len(board_cards)} cards: at most 5")
        if len(board_cards) in (1, 2):
            raise EquityError("the board is dealt 3 cards at once (flop): give 0, 3, 4 or 5 board cards")
    seen: dict[int, str] = {}
    for label, cards in (
        *((f"player {i}", [c for c in h if c is not None]) for i, h in enumerate(parsed, 1)),
        ("the board", list(board_cards)),
        ("the dead cards", list(dead_cards)),
    ):
        for c in cards:
            if int(c) in seen:
                where = seen[int(c)]
                also = "twice" if where == label else f"in {where} and in {label}"
                raise EquityError(f"card {c} appears {also}")
            seen[int(c)] = label
    counts: tuple[int, ...] | None = None
    if receive is not None:
        if code not in STUD_GAMES:
            raise EquityError("the number of cards still to receive is given for stud games only")
        counts = (receive,) * len(parsed) if isinstance(receive, int) else tuple(receive)
        if len(counts) != len(parsed):
            raise EquityError(
                f"give one count of cards to receive per player ({len(parsed)}), not {len(counts)}"
            )
        for i, (h, n) in enumerate(zip(parsed, counts, strict=True), 1):
            if n < 0 or len(h) + n > 7:
                raise EquityError(
                    f"impossible counts: player {i} has {len(h)} cards and cannot receive {n} more"
                )
            if len(h) + n < 5:
                raise EquityError(
                    f"impossible counts: player {i} would end with {len(h) + n} cards, fewer than 5"
                )
    pos = Position(code, tuple(h if h else (None,) * 4 for h in parsed), dead_cards, board_cards, counts)
    need, left = pos.cards_needed(), len(pos.unseen())
    if need > left:
        raise EquityError(
            f"impossible counts: {need} cards still to deal but only {left} unseen "
            "(too many players or too many dead cards)"
        )
    return pos


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class PlayerEquity:
    """One player's figures (fractions of 1). ``high``/``low`` are ``None`` outside split games."""

    equity: float
    win: float
    tie: float
    scoop: float
    high: float | None
    low: float | None
    margin: float  # half-width of the 95 % interval of ``equity`` (0 when exact)

    def as_dict(self) -> dict[str, float | None]:
        return {
            "equity": self.equity,
            "win": self.win,
            "tie": self.tie,
            "scoop": self.scoop,
            "high": self.high,
            "low": self.low,
            "margin95": self.margin,
        }


@dataclass(frozen=True)
class EquityResult:
    position: Position
    players: tuple[PlayerEquity, ...]
    exact: bool
    deals: int  # runouts counted (exact) or sampled (Monte Carlo)
    seconds: float
    method: str
    extra: dict[str, Any] = field(default_factory=dict)
    cpu_seconds: float = 0.0  # process CPU time (the wall clock also counts other programs)

    def as_dict(self) -> dict[str, Any]:
        pos = self.position
        return {
            "game": pos.game,
            "hands": [" ".join("??" if c is None else str(c) for c in h) for h in pos.hands],
            "dead": " ".join(map(str, pos.dead)),
            "board": " ".join(map(str, pos.board)),
            "exact": self.exact,
            "method": self.method,
            "deals": self.deals,
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "players": [p.as_dict() for p in self.players],
        }


_STATS = ("equity", "win", "tie", "scoop", "high", "low")


class _Acc:
    """Sums (and sums of squares) of the per-deal figures of every player."""

    def __init__(self, players: int) -> None:
        self.n = 0
        self.sums = np.zeros((len(_STATS), players))
        self.squares = np.zeros((len(_STATS), players))

    def add(self, stats: npt.NDArray[np.float64], squares: npt.NDArray[np.float64], n: int) -> None:
        self.sums += stats
        self.squares += squares
        self.n += n

    def margins(self) -> npt.NDArray[np.float64]:
        if self.n < 2:
            return np.full(self.sums.shape, np.inf)
        mean = self.sums / self.n
        var = np.maximum(self.squares / self.n - mean**2, 0.0) * self.n / (self.n - 1)
        return np.asarray(Z95 * np.sqrt(var / self.n), dtype=np.float64)


def _deal_stats(
    main: npt.NDArray[np.int64], low: npt.NDArray[np.int64], split: bool
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per-deal figures for ``main`` / ``low`` values (P, N): sums and sums of squares (6, P)."""
    players = main.shape[0]
    best = np.maximum.reduce(main) if players > 1 else main[0]
    is_best = main == best
    nbest = np.add.reduce(is_best, dtype=np.int8) if players > 1 else np.ones(main.shape[1], np.int8)
    sole = nbest == 1
    sums = np.zeros((len(_STATS), players))
    squares = np.zeros((len(_STATS), players))
    win = (is_best & sole).sum(axis=1)
    tie = is_best.sum(axis=1) - win
    if not split:
        if sole.all():
            share_sum = share_sq = win.astype(np.float64)
        else:
            frac = is_best / nbest
            share_sum, share_sq = frac.sum(axis=1), (frac * frac).sum(axis=1)
        sums[0], squares[0] = share_sum, share_sq
        sums[1] = squares[1] = win
        sums[2] = squares[2] = tie
        sums[3] = squares[3] = win
        return sums, squares
    high_frac = is_best / nbest
    lbest = np.maximum.reduce(low) if players > 1 else low[0]
    has_low = lbest > 0
    is_low = (low == lbest) & has_low
    nlow = np.maximum(np.add.reduce(is_low, dtype=np.int8), 1)
    low_frac = is_low / nlow
    share = np.where(has_low, 0.5 * high_frac + 0.5 * low_frac, high_frac)
    scoop = (share == 1.0).sum(axis=1)
    sums[0], squares[0] = share.sum(axis=1), (share * share).sum(axis=1)
    sums[1] = squares[1] = win
    sums[2] = squares[2] = tie
    sums[3] = squares[3] = scoop
    sums[4], squares[4] = high_frac.sum(axis=1), (high_frac * high_frac).sum(axis=1)
    sums[5], squares[5] = low_frac.sum(axis=1), (low_frac * low_frac).sum(axis=1)
    return sums, squares


def _result(pos: Position, acc: _Acc, exact: bool, seconds: float, method: str) -> EquityResult:
    n = max(acc.n, 1)
    mean = acc.sums / n
    margins = np.zeros_like(mean) if exact else acc.margins()
    split = pos.game in SPLIT_GAMES
    players = tuple(
        PlayerEquity(
            equity=float(mean[0, p]),
            win=float(mean[1, p]),
            tie=float(mean[2, p]),
            scoop=float(mean[3, p]),
            high=float(mean[4, p]) if split else None,
            low=float(mean[5, p]) if split else None,
            margin=float(margins[0, p]),
        )
        for p in range(pos.players)
    )
    extra = {} if exact else {"margins95": {s: margins[i].tolist() for i, s in enumerate(_STATS)}}
    return EquityResult(pos, players, exact, acc.n, seconds, method, extra)


# --------------------------------------------------------------------------------------------
# Combinatorics


def _binom_table(n: int, k: int) -> I64:
    t = np.zeros((n + 1, k + 1), dtype=np.int64)
    for i in range(n + 1):
        for j in range(min(i, k) + 1):
            t[i, j] = math.comb(i, j)
    return t


def colex_combos(n: int, k: int) -> npt.NDArray[np.int8]:
    """All ``k``-subsets of ``range(n)`` as sorted rows, in colex order (row = colex rank)."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int8)
    if k > n:
        return np.zeros((0, k), dtype=np.int8)
    prev = colex_combos(n, k - 1)
    parts = []
    for top in range(k - 1, n):
        m = math.comb(top, k - 1)
        block = np.empty((m, k), dtype=np.int8)
        block[:, : k - 1] = prev[:m]
        block[:, k - 1] = top
        parts.append(block)
    return np.concatenate(parts)


def _colex_rank(sorted_idx: IntArray, binom: I64) -> I64:
    """Colex ranks of rows of sorted indices (N, k)."""
    k = sorted_idx.shape[1]
    rank = np.zeros(sorted_idx.shape[0], dtype=np.int64)
    for i in range(k):
        rank += binom[sorted_idx[:, i], i + 1]
    return rank


class _StudTables:
    """Per-player value tables over every completion (colex rank of the unseen-card indices)."""

    def __init__(self, pos: Position, table_limit: int = TABLE_LIMIT) -> None:
        self.pos = pos
        self.unseen = np.array(pos.unseen(), dtype=np.int64)
        self.r = len(self.unseen)
        self.need = [pos.to_come(p) for p in range(pos.players)]
        self.binom = _binom_table(self.r, max(*self.need, 1))
        self.main: list[I64 | None] = []
        self.low: list[I64 | None] = []
        self.combos: list[npt.NDArray[np.int8] | None] = []
        self._masks: dict[int, npt.NDArray[np.uint64]] = {}
        blocks: list[npt.NDArray[np.int64]] = []
        owners: list[tuple[int, int]] = []
        for p in range(pos.players):
            k = self.need[p]
            if math.comb(self.r, k) <= table_limit:
                combos = colex_combos(self.r, k)
                hands = np.empty((len(combos), pos.final_size(p)), dtype=np.int64)
                known = pos.known(p)
                hands[:, : len(known)] = known
                hands[:, len(known) :] = self.unseen[combos]
                blocks.append(hands)
                owners.append((p, len(combos)))
                self.combos.append(combos)
            else:
                self.combos.append(None)
            self.main.append(None)
            self.low.append(None)
        for width in sorted({b.shape[1] for b in blocks}):  # one batch call (per hand size)
            same = [i for i, b in enumerate(blocks) if b.shape[1] == width]
            main, low = score_stud(pos.game, np.concatenate([blocks[i] for i in same]))
            at = 0
            for i in same:
                p, m = owners[i]
                self.main[p] = main[at : at + m]
                self.low[p] = low[at : at + m]
                at += m

    def masks(self, p: int) -> npt.NDArray[np.uint64]:
        """Bit masks (bit i: unseen card i) of player ``p``'s completions, by table row."""
        cached = self._masks.get(p)
        if cached is None:
            combos = self.combos[p]
            assert combos is not None
            cached = np.zeros(len(combos), dtype=np.uint64)
            for j in range(combos.shape[1]):
                cached |= np.left_shift(np.uint64(1), combos[:, j].astype(np.uint64))
            self._masks[p] = cached
        return cached

    def sample(self, rng: np.random.Generator, n: int) -> tuple[I64, I64]:
        """Values (P, n) of ``n`` random deals, every player tabled.

        Each player's completion is a uniform table row, redrawn where it meets the cards
        already given to the players before him. The number of completions disjoint from any
        given earlier cards depends only on how many they are, so this is uniform over deals.
        """
        players = len(self.need)
        main = np.empty((players, n), dtype=np.int64)
        low = np.empty_like(main)
        used = np.zeros(n, dtype=np.uint64)
        for p in sorted(range(players), key=lambda q: -self.need[q]):
            masks = self.masks(p)
            m = len(masks)
            idx = rng.integers(0, m, n)
            got = masks[idx]
            redo = np.flatnonzero(got & used)
            while len(redo):
                fresh = rng.integers(0, m, len(redo))
                idx[redo] = fresh
                got[redo] = masks[fresh]
                redo = redo[(masks[fresh] & used[redo]) != 0]
            used |= got
            table, lows = self.main[p], self.low[p]
            assert table is not None and lows is not None
            main[p] = table[idx]
            low[p] = lows[idx]
        return main, low

    def values(self, p: int, idx: IntArray) -> tuple[I64, I64]:
        """Values of player ``p`` given his new cards as unseen indices (N, k), any order."""
        table = self.main[p]
        if table is not None:
            k = idx.shape[1]
            s = np.sort(idx, axis=1) if k > 1 else idx
            rank = _colex_rank(s, self.binom)
            low = self.low[p]
            assert low is not None
            return table[rank], low[rank]
        known = self.pos.known(p)
        hands = np.empty((idx.shape[0], self.pos.final_size(p)), dtype=np.int64)
        hands[:, : len(known)] = known
        hands[:, len(known) :] = self.unseen[idx]
        return score_stud(self.pos.game, hands)


# --------------------------------------------------------------------------------------------
# Heads-up stud, exact by inclusion-exclusion


class _Entries:
    """For every (completion, subset ``T`` of it with ``|T| <= max_t``): row, ``T`` index, sign."""

    def __init__(self, combos: npt.NDArray[np.int8], binom: I64, offsets: list[int], max_t: int) -> None:
        m, k = combos.shape
        # contribution of element i at position j of a subset: C(s_i, j + 1)
        contrib = {
            (i, j): binom[:, j + 1][combos[:, i].astype(np.intp)]
            for i in range(k)
            for j in range(min(i + 1, max_t))
        }
        rows_l: list[I64] = []
        tidx_l: list[I64] = []
        sign_l: list[I64] = []
        rows = np.arange(m, dtype=np.int64)
        for mask in range(1 << k):
            pick = [i for i in range(k) if mask >> i & 1]
            t = len(pick)
            if t > max_t:
                continue
            idx = np.full(m, offsets[t], dtype=np.int64)
            for j, i in enumerate(pick):
                idx += contrib[(i, j)]
            rows_l.append(rows)
            tidx_l.append(idx)
            sign_l.append(np.full(m, -1 if t % 2 else 1, dtype=np.int64))
        t_all = np.concatenate(tidx_l)
        order = np.argsort(t_all, kind="stable")  # by T: later searches then touch nearby memory
        self.rows = np.concatenate(rows_l)[order]
        self.t = t_all[order]
        self.sign = np.concatenate(sign_l)[order]
        self.groups = offsets[max_t + 1]


def _compare(
    a: _Entries,
    b: _Entries,
    a_val: I64,
    b_val: I64,
    *,
    a_keep: npt.NDArray[np.bool_] | None = None,
    b_keep: npt.NDArray[np.bool_] | None = None,
) -> tuple[int, int, int]:
    """Over disjoint pairs of kept completions: (pairs with a's value > b's, equal, all)."""
    vmax = int(max(a_val.max(initial=0), b_val.max(initial=0))) + 1
    a_rows, a_t, a_sign = a.rows, a.t, a.sign
    b_rows, b_t = b.rows, b.t
    if a_keep is not None:
        sel = a_keep[a_rows]
        a_rows, a_t, a_sign = a_rows[sel], a_t[sel], a_sign[sel]
    if b_keep is not None:
        sel = b_keep[b_rows]
        b_rows, b_t = b_rows[sel], b_t[sel]
    bkey = np.sort(b_t * vmax + b_val[b_rows], kind="stable")  # runs: entries come sorted by T
    starts = np.searchsorted(bkey, np.arange(a.groups + 1, dtype=np.int64) * vmax, "left")
    akey = a_t * vmax + a_val[a_rows]
    at = np.searchsorted(bkey, akey, "left")
    above = np.searchsorted(bkey, akey + 1, "left")
    lo = starts[a_t]
    gt = int(np.dot(a_sign, at - lo))
    eq = int(np.dot(a_sign, above - at))
    total = int(np.dot(a_sign, starts[a_t + 1] - lo))
    return gt, eq, total


def _dominate(a: _Entries, b: _Entries, a_vals: tuple[I64, I64], b_vals: tuple[I64, I64]) -> int:
    """Disjoint pairs with a's high > b's high and a's low > b's low (a two-dimensional count).

    Pairs where b has no low are one comparison; the rest is one sweep per low value of a,
    over b's completions that have a low.
    """
    (a_h, a_l), (b_h, b_l) = a_vals, b_vals
    total = _compare(a, b, a_h, b_h, a_keep=a_l > 0, b_keep=b_l == 0)[0]
    vmax = int(max(a_h.max(initial=0), b_h.max(initial=0))) + 1
    bsel = b_l[b.rows] > 0
    b_rows = b.rows[bsel]
    bkey_all = b.t[bsel] * vmax + b_h[b_rows]
    order = np.argsort(bkey_all, kind="stable")
    bkey = bkey_all[order]
    blow = b_l[b_rows][order]
    alow = a_l[a.rows]
    sel = alow > 0  # a needs a low to beat b's
    a_t, a_sign, alow = a.t[sel], a.sign[sel], alow[sel]
    lo = np.searchsorted(bkey, a_t * vmax, "left")
    at = np.searchsorted(bkey, a_t * vmax + a_h[a.rows[sel]], "left")
    floor = int(blow.min(initial=np.iinfo(np.int64).max))
    for lam in np.unique(alow):
        if lam <= floor:
            continue
        cum = np.concatenate(([0], np.cumsum(blow < lam)))
        pick = alow == lam
        total += int(np.dot(a_sign[pick], cum[at[pick]] - cum[lo[pick]]))
    return total


def _heads_up_exact(pos: Position, tables: _StudTables) -> _Acc:
    ca, cb = tables.combos
    assert ca is not None and cb is not None
    max_t = min(ca.shape[1], cb.shape[1])
    offsets = [0]
    for t in range(max_t + 1):
        offsets.append(offsets[-1] + math.comb(tables.r, t))
    ea = _Entries(ca, tables.binom, offsets, max_t)
    eb = _Entries(cb, tables.binom, offsets, max_t)
    h0, h1, l0, l1 = tables.main[0], tables.main[1], tables.low[0], tables.low[1]
    assert h0 is not None and h1 is not None and l0 is not None and l1 is not None
    acc = _Acc(2)
    gt, eq, total = _compare(ea, eb, h0, h1)
    lt = total - gt - eq
    acc.n = total
    if pos.game != "7S8":
        acc.sums[:, 0] = [gt + 0.5 * eq, gt, eq, gt, 0, 0]
        acc.sums[:, 1] = [lt + 0.5 * eq, lt, eq, lt, 0, 0]
        return acc
    lgt, leq, _ = _compare(ea, eb, l0, l1)
    llt = total - lgt - leq
    ngt, neq, nboth = _compare(ea, eb, h0, h1, a_keep=l0 == 0, b_keep=l1 == 0)  # nobody has a low
    nlt = nboth - ngt - neq
    scoop0 = _dominate(ea, eb, (h0, l0), (h1, l1)) + ngt
    scoop1 = _dominate(eb, ea, (h1, l1), (h0, l0)) + nlt
    # some low: half by high, half by low; no low: the high takes all
    for p, (hw, lw, nw, scoop) in enumerate(((gt, lgt, ngt, scoop0), (lt, llt, nlt, scoop1))):
        high_sum = hw + 0.5 * eq
        low_sum = lw + 0.5 * (leq - nboth)
        share = 0.5 * high_sum + 0.5 * low_sum + 0.5 * (nw + 0.5 * neq)
        acc.sums[:, p] = [share, hw, eq, scoop, high_sum, low_sum]
    return acc


# --------------------------------------------------------------------------------------------
# Enumeration and sampling


def _stud_runouts(tables: _StudTables, limit: int) -> int:
    """Number of stud runouts (each player's new cards, in player order)."""
    left, count = tables.r, 1
    for k in tables.need:
        count *= math.comb(left, k)
        left -= k
        if count > limit:
            return count
    return count


def _enumerate_disjoint(r: int, needs: list[int]) -> npt.NDArray[np.int8]:
    """Every assignment of disjoint subsets of ``range(r)`` to the players: (D, sum(needs))."""
    masks = np.zeros(1, dtype=np.uint64)
    idx = np.zeros((1, 0), dtype=np.int8)
    for k in needs:
        combos = colex_combos(r, k)
        cm = np.zeros(len(combos), dtype=np.uint64)
        for j in range(k):
            cm |= np.uint64(1) << combos[:, j].astype(np.uint64)
        ok = (masks[:, None] & cm[None, :]) == 0
        di, ci = np.nonzero(ok)
        masks = masks[di] | cm[ci]
        idx = np.concatenate([idx[di], combos[ci]], axis=1)
    return idx


def _stud_enumerate(pos: Position, tables: _StudTables) -> _Acc:
    acc = _Acc(pos.players)
    all_idx = _enumerate_disjoint(tables.r, tables.need)
    split = pos.game == "7S8"
    for start in range(0, len(all_idx), BATCH):
        chunk = all_idx[start : start + BATCH].astype(np.int64)
        main, low = _stud_values(tables, chunk)
        s, q = _deal_stats(main, low, split)
        acc.add(s, q, len(chunk))
    return acc


def _stud_values(tables: _StudTables, idx: I64) -> tuple[I64, I64]:
    n = idx.shape[0]
    main = np.empty((len(tables.need), n), dtype=np.int64)
    low = np.empty_like(main)
    at = 0
    for p, k in enumerate(tables.need):
        main[p], low[p] = tables.values(p, idx[:, at : at + k])
        at += k
    return main, low


def _partial_shuffle(rng: np.random.Generator, n: int, r: int, k: int) -> I64:
    """``n`` rows of ``k`` distinct indices from ``range(r)`` (uniform, ordered)."""
    deck = np.tile(np.arange(r, dtype=np.int8), (n, 1))
    rows = np.arange(n)
    for i in range(k):
        j = i + (rng.random(n) * (r - i)).astype(np.int64)
        picked = deck[rows, j]
        deck[rows, j] = deck[:, i]
        deck[:, i] = picked
    return deck[:, :k].astype(np.int64)


@dataclass(frozen=True)
class _Sampling:
    seed: int | None
    precision: float
    max_deals: int
    min_deals: int
    time_limit: float | None
    started: float


def _sample(pos: Position, draw: Callable[[int], tuple[I64, I64]], opts: _Sampling) -> _Acc:
    precision, max_deals, min_deals = opts.precision, opts.max_deals, opts.min_deals
    time_limit, started = opts.time_limit, opts.started
    acc = _Acc(pos.players)
    split = pos.game in SPLIT_GAMES
    while acc.n < max_deals:
        n = min(BATCH, max_deals - acc.n)
        main, low = draw(n)
        s, q = _deal_stats(main, low, split)
        acc.add(s, q, n)
        if acc.n >= min_deals and acc.margins()[0].max() <= precision:
            break
        if time_limit is not None and time.perf_counter() - started > time_limit:
            break
    return acc


# --------------------------------------------------------------------------------------------
# Omaha Hi/Lo


def _omaha(pos: Position, exact: bool | None, sampler: _Sampling) -> EquityResult:
    started = sampler.started
    unseen = np.array(pos.unseen(), dtype=np.int64)
    r = len(unseen)
    holes = [[-1 if c is None else int(c) for c in h] for h in pos.hands]
    unknown = [[i for i, c in enumerate(h) if c < 0] for h in holes]
    board_missing = 5 - len(pos.board)
    needs = [len(u) for u in unknown] + [board_missing]
    count, left = 1, r
    for k in needs:
        count *= math.comb(left, k)
        left -= k
    base_holes = np.array(holes, dtype=np.int64)  # (P, 4)
    base_board = np.array([*map(int, pos.board), *([-1] * board_missing)], dtype=np.int64)

    def values(idx: I64) -> tuple[I64, I64]:
        n = idx.shape[0]
        cards = unseen[idx]
        at = 0
        hole = np.broadcast_to(base_holes, (n, *base_holes.shape)).copy()
        for p, u in enumerate(unknown):
            for i in u:
                hole[:, p, i] = cards[:, at]
                at += 1
        board = np.broadcast_to(base_board, (n, 5)).copy()
        board[:, len(pos.board) :] = cards[:, at : at + board_missing]
        players = pos.players
        hi, lo = score_omaha8(hole.reshape(n * players, 4), np.repeat(board, players, axis=0))
        return hi.reshape(n, players).T.copy(), lo.reshape(n, players).T.copy()

    if exact is True and count > EXACT_LIMIT * 10:
        raise EquityError(f"{count:,} runouts are too many to enumerate; leave out --exact")
    # a 95 % interval of +/-0.1 % takes about a million deals: enumerate up to that much work
    if exact is True or (exact is None and count <= EXACT_LIMIT // 2):
        acc = _Acc(pos.players)
        idx_all = _enumerate_disjoint(r, needs)
        for start in range(0, len(idx_all), BATCH // 8):
            chunk = idx_all[start : start + BATCH // 8].astype(np.int64)
            s, q = _deal_stats(*values(chunk), split=True)
            acc.add(s, q, len(chunk))
        return _result(pos, acc, True, time.perf_counter() - started, "enumeration")
    rng = np.random.default_rng(sampler.seed)
    total = sum(needs)
    acc = _sample(pos, lambda n: values(_partial_shuffle(rng, n, r, total)), sampler)
    return _result(pos, acc, False, time.perf_counter() - started, "monte-carlo")


# --------------------------------------------------------------------------------------------
# Entry point


def equity(
    game: str | Position,
    hands: Sequence[str | Sequence[Any]] = (),
    dead: str | Sequence[Any] = "",
    board: str | Sequence[Any] = "",
    *,
    exact: bool | None = None,
    precision: float = 0.001,
    max_deals: int = 20_000_000,
    min_deals: int = 10_000,
    time_limit: float | None = None,
    seed: int | None = None,
    table_limit: int = TABLE_LIMIT,
    receive: int | Sequence[int] | None = None,
) -> EquityResult:
    """Each player's share of the pot; exact when the runouts are few, else Monte Carlo.

    ``precision`` is the target half-width of the 95 % interval of every player's equity
    (Monte Carlo stops there, or at ``max_deals`` / ``time_limit`` seconds). ``exact=True``
    insists on enumeration, ``exact=False`` forces sampling. ``table_limit=0`` scores sampled
    hands directly instead of tabling every completion first (cheaper for a few hundred deals).
    ``receive`` (stud) says how many more cards each player gets (default: up to seven).

    >>> r = equity("7S", ["AsKsQh", "7c7d2s"], dead="Qd2h")
    >>> r.exact, round(r.players[1].equity, 4)
    (True, 0.5503)
    """
    cpu = time.process_time()
    started = time.perf_counter()
    pos = game if isinstance(game, Position) else position(game, hands, dead, board, receive)
    sampler = _Sampling(seed, precision, max_deals, min_deals, time_limit, started)
    result = _solve(pos, sampler, exact=exact, seed=seed, table_limit=table_limit, started=started)
    return replace(result, cpu_seconds=time.process_time() - cpu)


def _solve(
    pos: Position,
    sampler: _Sampling,
    *,
    exact: bool | None,
    seed: int | None,
    table_limit: int,
    started: float,
) -> EquityResult:
    """Exact by inclusion-exclusion or enumeration when the position allows, else Monte Carlo."""
    if pos.game == "O8":
        return _omaha(pos, exact, sampler)
    tables = _StudTables(pos, table_limit)
    runouts = _stud_runouts(tables, EXACT_LIMIT)
    have_tables = all(t is not None for t in tables.main)
    if exact is not False and pos.players == 2 and have_tables:
        entries = sum(
            len(c) * sum(math.comb(c.shape[1], t) for t in range(min(tables.need) + 1))
            for c in tables.combos
            if c is not None
        )
        if entries <= PAIR_ENTRY_LIMIT:
            acc = _heads_up_exact(pos, tables)
            return _result(pos, acc, True, time.perf_counter() - started, "inclusion-exclusion")
    if exact is not False and (runouts <= EXACT_LIMIT or exact is True):
        if runouts > EXACT_LIMIT * 10:
            raise EquityError(f"{runouts:,} runouts are too many to enumerate; leave out --exact")
        acc = _stud_enumerate(pos, tables)
        return _result(pos, acc, True, time.perf_counter() - started, "enumeration")
    rng = np.random.default_rng(seed)
    total = sum(tables.need)
    if have_tables:
        acc = _sample(pos, lambda n: tables.sample(rng, n), sampler)
    else:
        acc = _sample(pos, lambda n: _stud_values(tables, _partial_shuffle(rng, n, tables.r, total)), sampler)
    return _result(pos, acc, False, time.perf_counter() - started, "monte-carlo")
