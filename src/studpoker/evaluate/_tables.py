"""Load the stored tables (``studpoker/data/evaluate.npz``) once, at import.

The file holds, for every rank multiset of 5, 6 and 7 cards (``counts5`` ... as 13 counts),
the best non-flush high value (``high5`` ...) and the best ace-to-five low value
(``razz5`` ...), plus ``flush`` (best flush value by 13-bit rank mask) and
``worst_qualifier`` (the low value of 8-7-6-5-4). See ``_build.py`` for how they are made.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from studpoker.evaluate._build import DATA_FILE

U16 = npt.NDArray[np.uint16]
I64 = npt.NDArray[np.int64]

with np.load(DATA_FILE) as _npz:
    TABLES: dict[str, npt.NDArray[np.generic]] = {name: _npz[name] for name in _npz.files}

FLUSH: U16 = TABLES["flush"].astype(np.uint16)
WORST_QUALIFIER: int = int(TABLES["worst_qualifier"][0])

# Scalar hash: each rank owns 3 bits (counts 0..4), so the sum of ``8 ** rank`` over the
# cards identifies the rank multiset.
OCTAL_WEIGHTS: I64 = (8 ** np.arange(13, dtype=np.int64)).astype(np.int64)


def octal_keys(size: int) -> I64:
    counts = TABLES[f"counts{size}"].astype(np.int64)
    keys: I64 = counts @ OCTAL_WEIGHTS
    return keys


def _scalar_dicts() -> tuple[dict[int, int], dict[int, int]]:
    high: dict[int, int] = {}
    low: dict[int, int] = {}
    for size in (5, 6, 7):
        keys = octal_keys(size).tolist()
        high.update(zip(keys, TABLES[f"high{size}"].tolist(), strict=True))
        low.update(zip(keys, TABLES[f"razz{size}"].tolist(), strict=True))
    return high, low


HIGH_BY_OCTAL, RAZZ_BY_OCTAL = _scalar_dicts()
FLUSH_LIST: list[int] = FLUSH.tolist()
