"""Results: each player's figures (:class:`PlayerEquity`), the whole answer (:class:`EquityResult`)
and the running sums they come from (:class:`Tally`, filled deal by deal by :func:`deal_stats`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .arrays import F64, I64
from .position import Position

Z95 = 1.959963984540054  # the 95 % quantile of the normal distribution, two-sided
STATS = ("equity", "win", "tie", "scoop", "high", "low")  # the rows of a Tally


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


class Tally:
    """Sums (and sums of squares) of the per-deal figures of every player: (len(STATS), players)."""

    def __init__(self, players: int) -> None:
        self.n = 0
        self.sums = np.zeros((len(STATS), players))
        self.squares = np.zeros((len(STATS), players))

    def add(self, stats: F64, squares: F64, n: int) -> None:
        self.sums += stats
        self.squares += squares
        self.n += n

    def margins(self) -> F64:
        if self.n < 2:
            return np.full(self.sums.shape, np.inf)
        mean = self.sums / self.n
        var = np.maximum(self.squares / self.n - mean**2, 0.0) * self.n / (self.n - 1)
        return np.asarray(Z95 * np.sqrt(var / self.n), dtype=np.float64)


def deal_stats(main: I64, low: I64, split: bool) -> tuple[F64, F64]:
    """Per-deal figures for ``main`` / ``low`` values (P, N): sums and sums of squares (6, P)."""
    players = main.shape[0]
    best = np.maximum.reduce(main) if players > 1 else main[0]
    is_best = main == best
    nbest = np.add.reduce(is_best, dtype=np.int8) if players > 1 else np.ones(main.shape[1], np.int8)
    sole = nbest == 1
    sums = np.zeros((len(STATS), players))
    squares = np.zeros((len(STATS), players))
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


def make_result(pos: Position, tally: Tally, exact: bool, seconds: float, method: str) -> EquityResult:
    """The result of a finished count (exact) or sample (with 95 % margins)."""
    n = max(tally.n, 1)
    mean = tally.sums / n
    margins = np.zeros_like(mean) if exact else tally.margins()
    split = pos.game_record.hi_lo
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
    extra = {} if exact else {"margins95": {s: margins[i].tolist() for i, s in enumerate(STATS)}}
    return EquityResult(pos, players, exact, tally.n, seconds, method, extra)
