"""Load the stored tables (``studpoker/data/evaluate.npz``) once, at import.

The file holds, for every rank multiset of 5, 6 and 7 cards (``counts5`` ... as 13 counts),
the best non-flush high value (``high5`` ...) and the best ace-to-five low value
(``razz5`` ...), plus ``flush`` (best flush value by 13-bit rank mask) and
``worst_qualifier`` (the low value of 8-7-6-5-4). See ``_build.py`` for how they are made.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

U16 = npt.NDArray[np.uint16]
I64 = npt.NDArray[np.int64]

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "evaluate.npz"

with np.load(DATA_FILE) as _npz:
    TABLES: dict[str, npt.NDArray[np.generic]] = {name: _npz[name] for name in _npz.files}

FLUSH: U16 = TABLES["flush"].astype(np.uint16)
WORST_QUALIFIER: int = int(TABLES["worst_qualifier"][0])

# ``RANK_KEYS[rank]`` summed over 5, 6 or 7 cards identifies their rank multiset (per size).
RANK_KEYS: I64 = TABLES["rank_keys"].astype(np.int64)
COUNT_SHIFT = 40  # the scalar dictionaries are keyed by rank-key sum + (size << COUNT_SHIFT)


def rank_sums(size: int) -> I64:
    """The rank-key sum of every rank multiset of ``size`` cards (in table order)."""
    sums: I64 = TABLES[f"counts{size}"].astype(np.int64) @ RANK_KEYS
    return sums


class _ScalarTable(dict[int, int]):
    """(rank-key sum + size << 40) to value; filled on the first lookup to keep import fast."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def __missing__(self, key: int) -> int:
        if self:
            raise KeyError(key)
        for size in (5, 6, 7):
            keys = (rank_sums(size) + (size << COUNT_SHIFT)).tolist()
            self.update(zip(keys, TABLES[f"{self.kind}{size}"].tolist(), strict=True))
        return self[key]


HIGH_BY_SUM = _ScalarTable("high")
RAZZ_BY_SUM = _ScalarTable("razz")


def _flush_suits() -> npt.NDArray[np.int8]:
    """For each 16-bit field of four 4-bit suit counters: 1 + the suit with 5 or more cards, else 0."""
    fields = np.arange(1 << 16, dtype=np.int64)
    out = np.zeros(1 << 16, dtype=np.int8)
    for suit in range(4):
        out[((fields >> (4 * suit)) & 15) >= 5] = suit + 1
    return out


FLUSH_SUIT_PLUS_ONE = _flush_suits()
FLUSH_LIST: list[int] = FLUSH.tolist()
