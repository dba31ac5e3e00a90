"""An independent, deliberately plain brute-force equity count (no studpoker.evaluate, no numpy).

Hands are ranked with tuples (greater is better) from first principles; every runout is
dealt out one by one and the pot split by the rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from typing import Any


def _high5(cards: tuple[int, ...]) -> tuple[int, ...]:
    ranks = sorted((c >> 2 for c in cards), reverse=True)
    suits = {c & 3 for c in cards}
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    pattern = [c for _, c in groups]
    order = [r for r, _ in groups]
    flush = len(suits) == 1
    straight_top = -1
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight_top = 3
    if straight_top >= 0:
        return (8 if flush else 4, straight_top)
    if flush:
        return (5, *ranks)
    cat = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1, (1, 1, 1, 1, 1): 0}[
        tuple(pattern)
    ]
    return (cat, *order)


def _low5(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Ace-to-five: greater is better, so negate the 'badness' key."""
    ranks = [1 if c >> 2 == 12 else (c >> 2) + 2 for c in cards]
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    pattern = tuple(c for _, c in groups)
    patterns = [(1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1)]
    return (-patterns.index(pattern), *(-r for r, _ in groups))


def high(cards: tuple[int, ...]) -> tuple[int, ...]:
    return max(_high5(c) for c in combinations(cards, 5))


def razz(cards: tuple[int, ...]) -> tuple[int, ...]:
    return max(_low5(c) for c in combinations(cards, 5))


def low8(cards: tuple[int, ...]) -> tuple[int, ...] | None:
    best = None
    for combo in combinations(cards, 5):
        ranks = {1 if c >> 2 == 12 else (c >> 2) + 2 for c in combo}
        if len(ranks) == 5 and max(ranks) <= 8:
            key = tuple(sorted(-r for r in ranks))
            if best is None or key > best:
                best = key
    return best


def omaha8(hole: tuple[int, ...], board: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    hi = max(_high5(h + b) for h in combinations(hole, 2) for b in combinations(board, 3))
    lo = None
    for h in combinations(hole, 2):
        for b in combinations(board, 3):
            got = low8(h + b)
            if got is not None and (lo is None or got > lo):
                lo = got
    return hi, lo


def _shares(game: str, values: list[tuple[Any, Any]]) -> list[float]:
    mains = [v[0] for v in values]
    best = max(mains)
    winners = [i for i, m in enumerate(mains) if m == best]
    high = [1 / len(winners) if i in winners else 0.0 for i in range(len(values))]
    if game not in ("7S8", "O8"):
        return high
    lows = [v[1] for v in values]
    qual = [lo for lo in lows if lo is not None]
    if not qual:
        return high
    lbest = max(qual)
    lw = [i for i, lo in enumerate(lows) if lo == lbest]
    return [0.5 * high[i] + (0.5 / len(lw) if i in lw else 0.0) for i in range(len(values))]


def _deals(pool: list[int], needs: list[int]) -> Iterator[tuple[tuple[int, ...], ...]]:
    if not needs:
        yield ()
        return
    for combo in combinations(pool, needs[0]):
        rest = [c for c in pool if c not in combo]
        for tail in _deals(rest, needs[1:]):
            yield (combo, *tail)


def brute_equity(
    game: str,
    hands: list[list[int | None]],
    dead: list[int],
    board: list[int] | None = None,
    receive: list[int] | None = None,
) -> tuple[list[float], int]:
    """(each player's equity, number of runouts) by dealing every runout."""
    used = {c for h in hands for c in h if c is not None} | set(dead) | set(board or [])
    pool = [c for c in range(52) if c not in used]
    known = [[c for c in h if c is not None] for h in hands]
    size = {"O8": 4, "LHE": 2}.get(game, 7)
    needs = [size - len(k) for k in known]
    if receive is not None:
        needs = [len(h) - len(k) + r for h, k, r in zip(hands, known, receive, strict=True)]
    if game in ("O8", "LHE"):
        needs.append(5 - len(board or []))
    totals = [0.0] * len(hands)
    count = 0
    for deal in _deals(pool, needs):
        count += 1
        values: list[tuple[Any, Any]] = []
        for p, k in enumerate(known):
            cards = tuple(k) + tuple(deal[p])
            if game == "O8":
                values.append(omaha8(cards, tuple(board or []) + tuple(deal[-1])))
            elif game == "LHE":  # the best five of the two hole cards and the board, any combination
                values.append((high(cards + tuple(board or []) + tuple(deal[-1])), None))
            elif game == "RZ":
                values.append((razz(cards), None))
            elif game == "7S8":
                values.append((high(cards), low8(cards)))
            else:
                values.append((high(cards), None))
        for p, s in enumerate(_shares(game, values)):
            totals[p] += s
    return [t / count for t in totals], count
