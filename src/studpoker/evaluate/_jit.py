"""Optional numba kernels for the batch evaluators (``batch_high(codes, jit=True)`` ...).

The algorithm is the numpy path's, one row at a time in compiled code: sum the card keys,
look the sum up in the same direct table, and for high hands with five or more cards of one
suit look up the flush suit's rank mask instead. The repeated-card and range checks ride
along in the same loop. This module imports numba, so it is imported only when asked for;
compiled kernels are cached on disk (``cache=True``) for later processes.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _kernel(  # noqa: PLR0917
    codes: Any, keys: Any, table: Any, flush: Any, with_flush: bool, check: bool, out: Any
) -> int:  # pragma: no cover - compiled
    n, k = codes.shape
    for i in range(n):
        s = np.int64(0)
        seen = np.int64(0)
        for j in range(k):
            c = np.int64(codes[i, j])
            if check:
                if c < 0 or c > 51:
                    return i
                bit = np.int64(1) << c
                if seen & bit:
                    return i
                seen |= bit
            s += keys[c]
        if with_flush:
            f = ((s >> 24) + 0x3333) & 0x8888
            if f:
                suit = 0
                while not (f >> (4 * suit + 3)) & 1:
                    suit += 1
                mask = np.int64(0)
                for j in range(k):
                    c = np.int64(codes[i, j])
                    if c & 3 == suit:
                        mask |= 1 << (c >> 2)
                out[i] = flush[mask]
            else:
                out[i] = table[s & 0x7FFFFF]
        else:
            out[i] = table[s]
    return -1


def evaluate(  # noqa: PLR0917
    codes: np.ndarray[Any, Any],
    keys: np.ndarray[Any, Any],
    table: np.ndarray[Any, Any],
    flush: np.ndarray[Any, Any],
    with_flush: bool,
    check: bool,
    out: np.ndarray[Any, Any],
) -> int:
    """Fill ``out``; return -1, or with ``check`` the first row with a bad or repeated card."""
    return int(_kernel(codes, keys, table, flush, with_flush, check, out))


@numba.njit(cache=True, nogil=True)
def _omaha_kernel(  # noqa: PLR0917
    hole: Any,
    board: Any,
    keys: Any,
    high5: Any,
    low5: Any,
    flush: Any,
    check: bool,
    out_high: Any,
    out_low: Any,
) -> int:  # pragma: no cover - compiled
    n = hole.shape[0]
    nb = board.shape[1]
    for i in range(n):
        if check:
            seen = np.int64(0)
            for j in range(4 + nb):
                c = np.int64(hole[i, j]) if j < 4 else np.int64(board[i, j - 4])
                if c < 0 or c > 51:
                    return i
                bit = np.int64(1) << c
                if seen & bit:
                    return i
                seen |= bit
        best_high = 0
        best_low = 0
        for a in range(4):
            for b in range(a + 1, 4):
                ca = np.int64(hole[i, a])
                cb = np.int64(hole[i, b])
                pair = keys[ca] + keys[cb]
                for x in range(nb):
                    for y in range(x + 1, nb):
                        for z in range(y + 1, nb):
                            cx = np.int64(board[i, x])
                            cy = np.int64(board[i, y])
                            cz = np.int64(board[i, z])
                            s = pair + keys[cx] + keys[cy] + keys[cz]
                            r = s & 0x7FFFFF
                            flushed = ((s >> 24) + 0x3333) & 0x8888
                            v = flush[(s >> 40) & 0x1FFF] if flushed else high5[r]
                            best_high = max(best_high, v)
                            lv = low5[r]
                            best_low = max(best_low, lv)
        out_high[i] = best_high
        out_low[i] = best_low
    return -1


def evaluate_omaha(  # noqa: PLR0917
    hole: np.ndarray[Any, Any],
    board: np.ndarray[Any, Any],
    keys: np.ndarray[Any, Any],
    high5: np.ndarray[Any, Any],
    low5: np.ndarray[Any, Any],
    flush: np.ndarray[Any, Any],
    check: bool,
    out_high: np.ndarray[Any, Any],
    out_low: np.ndarray[Any, Any],
) -> int:
    """Fill both outputs; return -1, or with ``check`` the first row with a bad or repeated card."""
    return int(_omaha_kernel(hole, board, keys, high5, low5, flush, check, out_high, out_low))
