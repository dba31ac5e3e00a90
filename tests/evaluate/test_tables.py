"""The stored tables are what ``_build`` computes, and the rank keys do their job."""

from __future__ import annotations

import numpy as np
import pytest

from studpoker.evaluate import _build
from studpoker.evaluate._tables import TABLES


def test_stored_tables_match_a_rebuild() -> None:
    rebuilt = _build.build_values()
    assert set(rebuilt) | {"rank_keys"} == set(TABLES)
    for name, array in rebuilt.items():
        assert np.array_equal(array, TABLES[name].astype(np.int64)), name


def test_multiset_counts() -> None:
    assert [len(TABLES[f"counts{n}"]) for n in (5, 6, 7)] == [6175, 18395, 49205]


def test_rank_keys_identify_every_multiset() -> None:
    keys = TABLES["rank_keys"].astype(np.int64)
    for n in (5, 6, 7):
        sums = TABLES[f"counts{n}"].astype(np.int64) @ keys
        assert len(np.unique(sums)) == len(sums)
        assert sums.max() < 1 << 23  # the batch key's rank field


@pytest.mark.slow
def test_rank_key_search_reproduces_the_stored_keys() -> None:
    assert _build.rank_keys() == TABLES["rank_keys"].tolist()
