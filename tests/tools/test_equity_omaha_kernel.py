"""The compiled O8 equity kernels (numba): the scorer against the scalar and batch evaluators,
counts against brute force and the numpy path, samples against exact counts, seeds."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from studpoker.cards import parse_cards
from studpoker.equity import equity, position
from studpoker.evaluate import batch_omaha8, jit_available, omaha8
from tests.tools.reference import brute_equity
from tests.tools.test_equity import _codes, _small_dead

pytestmark = pytest.mark.skipif(not jit_available(), reason="numba is not installed")

FIGURES = ("equity", "win", "tie", "scoop", "high", "low")


def _deal(rng: np.random.Generator, n: int, size: int, pool: list[int] | None = None) -> np.ndarray:
    cards = np.arange(52) if pool is None else np.array(pool)
    return cards[rng.random((n, len(cards))).argpartition(size, axis=1)[:, :size]]


@pytest.fixture
def kernel_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every O8 job runs in the kernels, however small."""
    from studpoker.equity import omaha

    monkeypatch.setattr(omaha, "KERNEL_MIN_DEALS", 0)


@pytest.fixture
def kernel_never(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every O8 job runs on the numpy path."""
    from studpoker.equity import omaha

    monkeypatch.setattr(omaha, "KERNEL_MIN_DEALS", 10**18)


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_kernel_scorer_equals_the_scalar_and_batch_evaluators(board_size: int) -> None:
    from studpoker.evaluate.omaha_kernel import omaha8_values

    rng = np.random.default_rng(90 + board_size)
    # random hands, hands from two suits (flushes, straight flushes) and from low ranks (lows)
    suited = [c for c in range(52) if c & 3 < 2]
    low = [c for c in range(52) if c >> 2 in (0, 1, 2, 3, 4, 5, 6, 12)]
    size = 4 + board_size
    rows = np.concatenate(
        [_deal(rng, 60_000, size), _deal(rng, 20_000, size, suited), _deal(rng, 20_000, size, low)]
    )
    hi, lo = omaha8_values(rows[:, :4], rows[:, 4:])
    want_hi, want_lo = batch_omaha8(rows[:, :4], rows[:, 4:])
    assert np.array_equal(hi, want_hi) and np.array_equal(lo, want_lo)
    assert (lo > 0).sum() > 1000 and (hi >= 5864).sum() > 100  # lows and flushes or better were met
    for i in range(0, len(rows), 97):  # the scalar evaluator on a share of them
        high, low_hand = omaha8(rows[i, :4].tolist(), rows[i, 4:].tolist())
        assert (int(hi[i]), int(lo[i])) == (high.value, 0 if low_hand is None else low_hand.value)


O8_CASES = [
    # hands, board, unseen cards left
    (["As2s3h4h", "7c7d8s9s"], "2c 4d 9h", 20),
    (["As2s3h4h", "7c7d8s9s", "Ah 2d Kc Kh"], "2c 4d 9h Td", 25),
    (["As2s3h4h", "Ad2d3c4c"], "5s 6d Kh", 14),  # equal lows: quartering and split highs
    (["As2s 3h ??", "7c7d8s9s"], "2c 4d 9h", 12),  # unknown hole cards
    (["AsKsQsJs", "2s3s4s5s", "Ah2h3h4h"], "Ts 9s 8h", 12),  # flushes and straight flushes
    (["As2s3h4h", "KcKdQsJs"], "", 11),  # pre-flop: the whole board to come
]


@pytest.mark.parametrize(("hands", "board", "pool"), O8_CASES)
def test_kernel_count_matches_brute_force(
    kernel_always: None, hands: list[str], board: str, pool: int
) -> None:
    dead = _small_dead(hands, board, pool, seed=len(hands) * pool)
    result = equity("O8", hands, dead=dead, board=board, exact=True)
    assert result.exact
    expected, runouts = brute_equity(
        "O8",
        [_codes(h) for h in hands],
        [int(c) for c in parse_cards(dead, allow_empty=True)],
        [int(c) for c in parse_cards(board, allow_empty=True)],
    )
    assert result.deals == runouts
    for got, want in zip(result.players, expected, strict=True):
        assert got.equity == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("hands", "board", "pool"), O8_CASES)
def test_kernel_count_equals_the_numpy_count(
    monkeypatch: pytest.MonkeyPatch, hands: list[str], board: str, pool: int
) -> None:
    """Every figure (win, tie, scoop, halves), not only the equity."""
    from studpoker.equity import omaha

    dead = _small_dead(hands, board, pool, seed=pool)
    monkeypatch.setattr(omaha, "KERNEL_MIN_DEALS", 10**18)
    slow = equity("O8", hands, dead=dead, board=board, exact=True)
    monkeypatch.setattr(omaha, "KERNEL_MIN_DEALS", 0)
    fast = equity("O8", hands, dead=dead, board=board, exact=True)
    assert fast.deals == slow.deals
    for a, b in zip(fast.players, slow.players, strict=True):
        for name in FIGURES:
            assert getattr(a, name) == pytest.approx(getattr(b, name), abs=1e-12), name


def test_kernel_exact_matches_poker_equity(kernel_always: None) -> None:
    pe = pytest.importorskip("poker_equity")
    hands, board = ["AsKs2h3h", "7c7d8s9s", "Qh Jh Td 5d"], "2c4d9h"
    mine = equity("O8", hands, board=board, exact=True)
    theirs = pe.exact_from_text("omaha_hi_lo", hands, board=board)
    assert theirs is not None and theirs["exact"]
    for a, b in zip(mine.players, theirs["players"], strict=True):
        assert a.equity == pytest.approx(b["equity"], abs=1e-9)
        assert a.scoop == pytest.approx(b["scoop"], abs=1e-9)
        assert a.low is not None and a.low / 2 == pytest.approx(b["low_equity"], abs=1e-9)


@pytest.mark.parametrize(
    ("hands", "board"),
    [
        (["As2s3h4h", "KcKdQsJs", "7c8c9dTd"], ""),  # the benchmark's pre-flop position
        (["As2s3h4h", "KcKdQsJs", "7c8c9dTd"], "2c5h9h"),
        (["Ah2h ????", "KcKdQsJs"], "3c5h9h"),  # unknown hole cards drawn with the board
    ],
)
def test_kernel_sample_agrees_with_the_exact_count(hands: list[str], board: str) -> None:
    """300,000 deals with a fixed seed: every figure within 2.5 of its 95 % half-widths (4.9
    standard errors) of the exact value, and the half-widths what 300,000 deals give."""
    exact = equity("O8", hands, board=board, exact=True)
    sampled = equity(
        "O8", hands, board=board, exact=False, precision=0.0, min_deals=300_000, max_deals=300_000, seed=11
    )
    assert sampled.method == "monte-carlo" and sampled.deals == 300_000
    margins = sampled.extra["margins95"]
    for p, (e, s) in enumerate(zip(exact.players, sampled.players, strict=True)):
        assert 0 < s.margin < 0.004
        for name in FIGURES:
            margin = margins[name][p]
            assert abs(getattr(e, name) - getattr(s, name)) <= 2.5 * margin + 1e-12, (p, name)


def test_kernel_sample_is_reproducible_for_a_seed() -> None:
    hands, board = ["As2s3h4h", "KcKdQsJs", "7c8c9dTd"], "2c5h9h"
    kwargs = {"board": board, "exact": False, "precision": 0.0, "min_deals": 60_000, "max_deals": 60_000}
    first = equity("O8", hands, seed=5, **kwargs)  # type: ignore[arg-type]
    again = equity("O8", hands, seed=5, **kwargs)  # type: ignore[arg-type]
    other = equity("O8", hands, seed=6, **kwargs)  # type: ignore[arg-type]
    assert [p.as_dict() for p in first.players] == [p.as_dict() for p in again.players]
    assert [p.equity for p in first.players] != [p.equity for p in other.players]


def test_kernel_deals_are_uniform() -> None:
    """Which unseen card the shuffle puts on the river, one deal at a time: a chi-square."""
    from studpoker.equity.omaha_jit import OmahaDeals

    pos = position("O8", ["2c3c4c5c", "2d3d4d5d"], board="KhQhJs8s")
    unseen = np.array(pos.unseen(), dtype=np.int64)
    holes = np.array([pos.known(p) for p in range(pos.players)], dtype=np.int64)
    deals = OmahaDeals(unseen, holes, np.array([int(c) for c in pos.board]), seed=3)
    seen = np.zeros(52, dtype=np.int64)
    for _ in range(20_000):
        deals.sample(1)
        seen[deals.cards[-1]] += 1
    counts = seen[unseen]
    expected = 20_000 / len(unseen)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 85  # 43 degrees of freedom: p < 1e-4 above 85
    assert counts.min() > 0


def test_small_jobs_do_not_load_numba() -> None:
    """The equity bot's few hundred deals stay on the numpy path (loading numba costs 0.3 s)."""
    code = (
        "import sys\n"
        "from studpoker.equity import equity\n"
        "equity('O8', ['As2s3h4h', 'KcKdQsJs'], board='2c5h9h', exact=False, max_deals=300, seed=1)\n"
        "equity('O8', ['As2s3h4h', 'KcKdQsJs'], board='2c5h9h')\n"  # 903 runouts, exact
        "print('numba' in sys.modules)\n"
        "equity('O8', ['As2s3h4h', 'KcKdQsJs'], max_deals=60_000, seed=1)\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.check_output([sys.executable, "-c", code], text=True).split()
    assert out == ["False", "True"]


def test_numpy_path_still_samples(kernel_never: None) -> None:
    """Without the kernels (no numba) sampling still agrees with the exact count."""
    hands, board = ["As2s3h4h", "KcKdQsJs", "7c8c9dTd"], "2c5h9h"
    exact = equity("O8", hands, board=board, exact=True)
    sampled = equity("O8", hands, board=board, exact=False, precision=0.004, seed=7)
    for e, s in zip(exact.players, sampled.players, strict=True):
        assert abs(e.equity - s.equity) <= 2.5 * s.margin
