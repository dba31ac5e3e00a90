"""Batch evaluators: same numbers as the scalar path, input checks, Omaha hi/lo."""

from __future__ import annotations

import numpy as np
import pytest

from studpoker.cards import CardError
from studpoker.evaluate import (
    batch_high,
    batch_low8,
    batch_omaha8,
    batch_razz,
    high,
    low8,
    omaha8,
    razz,
)


def deal(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    return rng.random((n, 52)).argpartition(size, axis=1)[:, :size]


@pytest.mark.parametrize("size", [5, 6, 7])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int64])
def test_batch_equals_scalar(size: int, dtype: type) -> None:
    rng = np.random.default_rng(size)
    codes: np.ndarray = deal(rng, 20_000, size).astype(dtype)  # more than one chunk
    hi, lo8, rz = batch_high(codes), batch_low8(codes), batch_razz(codes)
    assert hi.shape == (20_000,)
    assert np.array_equal(hi, batch_high(codes, check=False))
    for i in range(0, 20_000, 7):
        row = codes[i].tolist()
        assert hi[i] == high(row).value
        assert rz[i] == razz(row).value
        low = low8(row)
        assert lo8[i] == (0 if low is None else low.value)
    assert (lo8 > 0).sum() > 0


def test_batch_flushes_and_lows_agree() -> None:
    """Hands drawn from few suits and low ranks, so flushes and qualifying lows are common."""
    rng = np.random.default_rng(9)
    pool = np.array([c for c in range(52) if c & 3 < 2 or c >> 2 in (0, 1, 2, 12)])
    idx = rng.random((5000, len(pool))).argpartition(7, axis=1)[:, :7]
    codes = pool[idx]
    hi, lo8 = batch_high(codes), batch_low8(codes)
    assert np.array_equal(hi, [high(r).value for r in codes.tolist()])
    assert np.array_equal(lo8, [0 if (x := low8(r)) is None else x.value for r in codes.tolist()])
    assert (hi >= 5864).sum() > 500 and (lo8 > 0).sum() > 500


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_batch_omaha8_equals_scalar(board_size: int) -> None:
    rng = np.random.default_rng(40 + board_size)
    low_pool = np.array([c for c in range(52) if c >> 2 <= 6 or c >> 2 == 12])
    d = np.concatenate(
        [deal(rng, 1500, 4 + board_size), low_pool[deal(rng, 1500, 4 + board_size) % len(low_pool)]]
    )
    d = d[[len(set(r)) == len(r) for r in d.tolist()]]
    hi, lo = batch_omaha8(d[:, :4], d[:, 4:])
    for i, row in enumerate(d.tolist()):
        h, low = omaha8(row[:4], row[4:])
        assert hi[i] == h.value
        assert lo[i] == (0 if low is None else low.value)
    assert (lo > 0).sum() > 200


def test_batch_empty_and_errors() -> None:
    assert batch_high(np.zeros((0, 7), dtype=np.uint8)).shape == (0,)
    with pytest.raises(CardError, match=r"shape \(N, 5\) or \(N, 6\) or \(N, 7\)"):
        batch_high(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(CardError, match="integer card codes"):
        batch_low8(np.zeros((3, 5), dtype=float))
    with pytest.raises(CardError, match="52 is not a card code"):
        batch_razz(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(CardError, match="-1 is not a card code"):
        batch_high(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(CardError, match="row 1 has a card twice"):
        batch_high(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 3]]))
    with pytest.raises(CardError, match="row 0 has a card twice"):
        batch_omaha8(np.array([[0, 1, 2, 3]]), np.array([[3, 5, 6]]))
    with pytest.raises(CardError, match="2 hole rows but 1 board rows"):
        batch_omaha8(np.array([[0, 1, 2, 3], [4, 5, 6, 7]]), np.array([[8, 9, 10]]))
