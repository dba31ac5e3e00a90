"""The optional numba kernels give exactly the numpy path's numbers and errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from studpoker.cards import CardError
from studpoker.evaluate import batch_high, batch_low8, batch_omaha8, batch_razz, jit_available

pytestmark = pytest.mark.skipif(not jit_available(), reason="numba is not installed")


def deal(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    return rng.random((n, 52)).argpartition(size, axis=1)[:, :size]


@pytest.mark.parametrize("size", [5, 6, 7])
@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
def test_jit_equals_numpy(size: int, dtype: type) -> None:
    rng = np.random.default_rng(70 + size)
    pool = np.array([c for c in range(52) if c & 3 < 2 or c >> 2 in (0, 1, 2, 12)])
    flushy = pool[rng.random((20_000, len(pool))).argpartition(size, axis=1)[:, :size]]
    codes: np.ndarray = np.concatenate([deal(rng, 50_000, size), flushy]).astype(dtype)
    for fn in (batch_high, batch_low8, batch_razz):
        expected = fn(codes)
        assert np.array_equal(fn(codes, jit=True), expected)
        assert np.array_equal(fn(codes, jit=True, check=False), expected)
        assert fn(codes, jit=True).dtype == expected.dtype


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_jit_omaha8_equals_numpy(board_size: int) -> None:
    rng = np.random.default_rng(80 + board_size)
    d = deal(rng, 30_000, 4 + board_size).astype(np.uint8)
    hi, lo = batch_omaha8(d[:, :4], d[:, 4:])
    hi_jit, lo_jit = batch_omaha8(d[:, :4], d[:, 4:], jit=True)
    assert np.array_equal(hi, hi_jit) and np.array_equal(lo, lo_jit)
    assert (lo > 0).sum() > 100


def test_jit_errors() -> None:
    with pytest.raises(CardError, match="row 1 has a card twice"):
        batch_high(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]), jit=True)
    with pytest.raises(CardError, match="52 is not a card code"):
        batch_low8(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 52]]), jit=True)
    with pytest.raises(CardError, match="row 0 has a card twice"):
        batch_omaha8(np.array([[0, 1, 2, 3]]), np.array([[3, 5, 6]]), jit=True)


def test_numba_is_not_imported_by_default() -> None:
    code = "import sys, studpoker.evaluate; print('numba' in sys.modules)"
    assert subprocess.check_output([sys.executable, "-c", code], text=True).strip() == "False"
