"""Scoring hands in bulk with the batch evaluators (:mod:`studpoker.evaluate`): each game's hand
types (:data:`studpoker.games.HandType`) name the evaluators, ``batch_<type>``."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from studpoker.games import HandType, find_game

from .arrays import I64, IntArray

BatchEvaluator = Callable[[IntArray], I64]


@cache
def batch_evaluator(hand_type: HandType) -> BatchEvaluator:
    """The batch evaluator of a hand type: rows of 5-7 card codes to values, larger is better."""
    import studpoker.evaluate as ev  # loaded on first use: importing equity stays cheap

    found: BatchEvaluator = getattr(ev, f"batch_{hand_type}")
    return found


def score_stud(game: str, codes: IntArray) -> tuple[I64, I64]:
    """(main values, low values) of 5-7 card hands, rows of ``codes``; larger is better.

    Main values rank by the game's first hand type (high in 7S and 7S8, razz in RZ); low values
    by its second (eight or better in 7S8), zeros when it has none.
    """
    types = find_game(game).hand_types
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    if len(codes) == 0:
        z = np.zeros(0, np.int64)
        return z, z
    main = np.asarray(batch_evaluator(types[0])(codes), dtype=np.int64)
    if len(types) > 1:
        return main, np.asarray(batch_evaluator(types[1])(codes), dtype=np.int64)
    return main, np.zeros(len(main), np.int64)


def score_holdem(hole: IntArray, board: IntArray) -> tuple[I64, I64]:
    """(high values, zeros) of hold'em hands: the best five of ``hole`` (N, 2) and ``board`` (N, 5)."""
    import studpoker.evaluate as ev

    cards = np.hstack([np.asarray(hole, dtype=np.int64), np.asarray(board, dtype=np.int64)])
    hi = np.asarray(ev.batch_high(cards), dtype=np.int64)
    return hi, np.zeros(len(hi), np.int64)


def score_omaha8(hole: IntArray, board: IntArray) -> tuple[I64, I64]:
    """(high, low8) values of Omaha hands: ``hole`` (N, 4) and ``board`` (N, 5) card codes."""
    import studpoker.evaluate as ev

    hi, lo = ev.batch_omaha8(np.asarray(hole, dtype=np.int64), np.asarray(board, dtype=np.int64))
    return np.asarray(hi, dtype=np.int64), np.asarray(lo, dtype=np.int64)
