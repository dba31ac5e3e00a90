"""numpy batch evaluators: ``batch_high``, ``batch_low8``, ``batch_razz``, ``batch_omaha8``.

Each card code maps to one 64-bit key with three fields:

* bits 0-22: the rank key ``RANK_KEYS[rank]``; the sum over 5, 6 or 7 cards identifies the
  rank multiset (see ``_build.rank_keys``), so it indexes a direct lookup table;
* bits 24-39: a 4-bit counter per suit; a counter of 5 or more means a flush;
* bits 40-52: the rank's bit; for five cards of one suit the sum is their rank mask.

The hands go through in chunks of 32,768 rows, column by column (``np.take`` into
preallocated buffers), so the working set stays in the CPU cache. Rows with a flush (about
3 % of random 7-card hands) are finished separately from the rank mask of the flush suit.
The values are the scalar ones: ``batch_high(a)[i] == high(a[i]).value``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from studpoker.cards import CardError
from studpoker.evaluate._tables import FLUSH, FLUSH_SUIT_PLUS_ONE, TABLES, WORST_QUALIFIER

__all__ = ["batch_high", "batch_low8", "batch_omaha8", "batch_razz", "jit_available"]

IntArray = npt.NDArray[np.integer[Any]]
U16 = npt.NDArray[np.uint16]
I64 = npt.NDArray[np.int64]

CHUNK = 1 << 15
RANK_KEYS: I64 = TABLES["rank_keys"].astype(np.int64)
_RANK_BITS = (1 << 23) - 1
_SUIT_SHIFT = 24
_MASK_SHIFT = 40
_CODES = np.arange(52, dtype=np.int64)
KEYS: I64 = (
    RANK_KEYS[_CODES >> 2] + (1 << (_SUIT_SHIFT + 4 * (_CODES & 3))) + (1 << (_MASK_SHIFT + (_CODES >> 2)))
).astype(np.int64)
# Rank key alone (for the lows, which ignore suits), per card code.
CARD_RANK_KEYS: I64 = RANK_KEYS[_CODES >> 2].astype(np.int64)
_ONE_HOT: npt.NDArray[np.uint64] = (np.uint64(1) << _CODES.astype(np.uint64)).astype(np.uint64)

# For each 16-bit suit-counter field: the suit with five or more cards, or -1.
FLUSH_SUIT: npt.NDArray[np.int8] = FLUSH_SUIT_PLUS_ONE - np.int8(1)

_direct: dict[tuple[str, int], U16] = {}


def _table(kind: str, size: int) -> U16:
    """A direct table from rank-key sum to value (built on first use, ~15 MB for 7 cards)."""
    table = _direct.get((kind, size))
    if table is None:
        sums = TABLES[f"counts{size}"].astype(np.int64) @ RANK_KEYS
        values = TABLES[f"{'high' if kind == 'high' else 'razz'}{size}"].astype(np.uint16)
        if kind == "low8":
            values = np.where(values >= WORST_QUALIFIER, values, 0).astype(np.uint16)
        table = np.zeros(int(sums.max()) + 1, dtype=np.uint16)
        table[sums] = values
        _direct[(kind, size)] = table
    return table


def _shape_check(codes: IntArray, sizes: tuple[int, ...], what: str) -> npt.NDArray[np.integer[Any]]:
    array = np.asarray(codes)
    if array.ndim != 2 or array.shape[1] not in sizes:
        shape = " or ".join(f"(N, {s})" for s in sizes)
        raise CardError(f"{what} takes an array of shape {shape}, not {array.shape}")
    if array.dtype.kind not in "iu":
        raise CardError(f"{what} takes integer card codes, not {array.dtype}")
    return array


def _validate(chunk: npt.NDArray[np.integer[Any]], what: str, start: int) -> None:
    """Raise CardError for a code outside 0..51 or a row holding a card twice."""
    low, top = int(chunk.min()), int(chunk.max())
    if low < 0 or top > 51:
        bad = low if low < 0 else top
        raise CardError(f"{what}: {bad} is not a card code (0 to 51)")
    sums = _ONE_HOT[chunk[:, 0]]
    bits = np.empty_like(sums)
    for j in range(1, chunk.shape[1]):
        np.take(_ONE_HOT, chunk[:, j], out=bits)
        sums += bits  # a repeated card carries, leaving fewer bits set
    dup = np.flatnonzero(np.bitwise_count(sums) != chunk.shape[1])
    if len(dup):
        row = start + int(dup[0])
        raise CardError(f"{what}: row {row} has a card twice: {chunk[dup[0]].tolist()}")


def _key_sums(chunk: npt.NDArray[np.integer[Any]], keys: I64, out: I64, buf: I64) -> None:
    """out = the sum over the row's cards of ``keys[code]`` (column by column, no temporaries)."""
    np.take(keys, chunk[:, 0], out=out)
    for j in range(1, chunk.shape[1]):
        np.take(keys, chunk[:, j], out=buf)
        out += buf


_FLUSH_ADD = 0x3333 << _SUIT_SHIFT  # a 4-bit suit counter of 5..7 plus 3 sets its top bit
_FLUSH_TOP = 0x8888 << _SUIT_SHIFT


def _flush_fix(chunk: npt.NDArray[np.integer[Any]], sums: I64, buf: I64, values: U16) -> None:
    """Replace the value of the rows holding five or more cards of one suit."""
    np.add(sums, _FLUSH_ADD, out=buf)
    np.bitwise_and(buf, _FLUSH_TOP, out=buf)
    rows = np.flatnonzero(buf)
    if not len(rows):
        return
    suit = FLUSH_SUIT[(sums[rows] >> _SUIT_SHIFT) & 0xFFFF]
    cards = chunk[rows].astype(np.intp)
    bits = np.where((cards & 3) == suit[:, None], 1 << (cards >> 2), 0)
    values[rows] = FLUSH[bits.sum(axis=1)]


def jit_available() -> bool:
    """True when numba is installed, so that ``jit=True`` can be used."""
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def _jit_module() -> Any:
    try:
        from studpoker.evaluate import _jit
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("jit=True needs numba (pip install numba==0.68.1)") from exc
    return _jit


def _run(codes: IntArray, kind: str, what: str, check: bool, jit: bool) -> U16:
    array = _shape_check(codes, (5, 6, 7), what)
    n, size = array.shape
    table = _table(kind, size)
    keys = KEYS if kind == "high" else CARD_RANK_KEYS
    if jit:
        out_jit = np.empty(n, dtype=np.uint16)
        bad = _jit_module().evaluate(array, keys, table, FLUSH, kind == "high", check, out_jit)
        if bad >= 0:
            _validate(array[bad : bad + 1], what, bad)
        return out_jit
    out = np.empty(n, dtype=np.uint16)
    sums = np.empty(CHUNK, dtype=np.int64)
    buf = np.empty(CHUNK, dtype=np.int64)
    for start in range(0, n, CHUNK):
        chunk = array[start : start + CHUNK]
        if check:
            _validate(chunk, what, start)
        m = len(chunk)
        s, b = sums[:m], buf[:m]
        _key_sums(chunk, keys, s, b)
        values = out[start : start + m]
        if kind == "high":
            np.bitwise_and(s, _RANK_BITS, out=b)
            np.take(table, b, out=values)
            _flush_fix(chunk, s, b, values)
        else:
            np.take(table, s, out=values)
    return out


def batch_high(codes: IntArray, *, check: bool = True, jit: bool = False) -> U16:
    """Best high-hand values (1 to 7,462) of each row of an (N, 5), (N, 6) or (N, 7) code array.

    ``check=False`` skips the range and repeated-card checks (about twice as fast).
    ``jit=True`` runs the same algorithm as a numba kernel (needs numba; compiled on first
    use and cached on disk; several times faster for large batches).

    >>> import numpy as np
    >>> batch_high(np.array([[51, 47, 43, 39, 35], [0, 1, 2, 3, 4]])).tolist()
    [7462, 7297]
    """
    return _run(codes, "high", "batch_high", check, jit)


def batch_razz(codes: IntArray, *, check: bool = True, jit: bool = False) -> U16:
    """Best ace-to-five low values (1 to 6,175; the wheel is 6,175) of each row."""
    return _run(codes, "razz", "batch_razz", check, jit)


def batch_low8(codes: IntArray, *, check: bool = True, jit: bool = False) -> U16:
    """Best eight-or-better low values of each row, 0 where there is no qualifying low."""
    return _run(codes, "low8", "batch_low8", check, jit)


_PAIRS = np.array([(i, j) for i in range(4) for j in range(i + 1, 4)], dtype=np.intp)


def _triples(n: int) -> npt.NDArray[np.intp]:
    return np.array(
        [(i, j, k) for i in range(n) for j in range(i + 1, n) for k in range(j + 1, n)], dtype=np.intp
    )


def batch_omaha8(
    hole: IntArray, board: IntArray, *, check: bool = True, jit: bool = False
) -> tuple[U16, U16]:
    """Omaha hi/lo for each row: (high values, eight-or-better low values with 0 for none).

    ``hole`` is (N, 4), ``board`` (N, 3) to (N, 5); each hand uses exactly two hole cards
    and three board cards. Values are those of :func:`studpoker.evaluate.omaha8`.
    """
    h = _shape_check(hole, (4,), "batch_omaha8 hole")
    b = _shape_check(board, (3, 4, 5), "batch_omaha8 board")
    if len(h) != len(b):
        raise CardError(f"batch_omaha8: {len(h)} hole rows but {len(b)} board rows")
    high5 = _table("high", 5)
    low5 = _table("low8", 5)
    triples = _triples(b.shape[1])
    n = len(h)
    out_high = np.empty(n, dtype=np.uint16)
    out_low = np.empty(n, dtype=np.uint16)
    if jit:
        bad = _jit_module().evaluate_omaha(h, b, KEYS, high5, low5, FLUSH, check, out_high, out_low)
        if bad >= 0:
            _validate(np.hstack([h[bad : bad + 1], b[bad : bad + 1]]), "batch_omaha8", bad)
        return out_high, out_low
    step = CHUNK // 32
    for start in range(0, n, step):
        if check:
            both = np.hstack([h[start : start + step], b[start : start + step]])
            if len(both):
                _validate(both, "batch_omaha8", start)
        hk = KEYS[h[start : start + step]]
        bk = KEYS[b[start : start + step]]
        pair_sums = hk[:, _PAIRS[:, 0]] + hk[:, _PAIRS[:, 1]]
        triple_sums = bk[:, triples[:, 0]] + bk[:, triples[:, 1]] + bk[:, triples[:, 2]]
        s = (pair_sums[:, :, None] + triple_sums[:, None, :]).reshape(len(hk), -1)
        ranks = s & _RANK_BITS
        flush = FLUSH_SUIT[(s >> _SUIT_SHIFT) & 0xFFFF] >= 0
        hi = np.where(flush, FLUSH[(s >> _MASK_SHIFT) & 0x1FFF], high5[ranks])
        out_high[start : start + step] = hi.max(axis=1)
        out_low[start : start + step] = low5[ranks].max(axis=1)
    return out_high, out_low
