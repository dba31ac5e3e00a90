"""Evaluator speed: studpoker batch and scalar beside treys, phevaluator, eval7, poker-equity
and PokerKit, on the same random 7-card hands, for high and for the eight-or-better low.

Each peer gets the hands in its own card type, converted before the clock starts. Slow peers
run on a prefix of the hands. Every timing is the best of a few repeats, in CPU time of this
process (single thread), so that time spent waiting for a shared machine's cores does not
count; contention for caches still does, so on a busy machine the numbers are low.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from studpoker.cards import Card, format_cards
from studpoker.evaluate import (
    batch_high,
    batch_low8,
    batch_omaha8,
    high,
    high_value,
    jit_available,
    low8,
    low8_value,
    omaha8,
)

SEED = 2026


def best_rate(run: Callable[[], Any], hands: int, repeats: int = 3) -> float:
    """Hands per second of the fastest of ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return hands / best


def each(f: Callable[[Any], Any], items: list[Any]) -> None:
    """Call ``f`` on every item, keeping no results (so the garbage collector has nothing to scan)."""
    for x in items:
        f(x)


def each_star(f: Callable[..., Any], items: list[Any]) -> None:
    for x in items:
        f(*x)


def import_time(module: str, runs: int = 5) -> float:
    code = f"import time; t = time.process_time(); import {module}; print(time.process_time() - t)"
    return min(float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(runs))


def deal(n: int) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    out = np.empty((n, 7), dtype=np.uint8)
    step = 1 << 16
    for start in range(0, n, step):
        m = min(step, n - start)
        out[start : start + m] = rng.random((m, 52)).argpartition(7, axis=1)[:, :7]
    return out


def fmt(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.1f} M/s"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f} k/s"
    return f"{rate:.0f} /s"


def measure(
    n_batch: int = 4_000_000, n_fast: int = 200_000, n_slow: int = 20_000, n_kit: int = 2_000
) -> None:
    import eval7
    import phevaluator
    import poker_equity
    import treys
    from pokerkit import EightOrBetterLowHand, StandardHighHand

    codes = deal(n_batch)
    rows = [tuple(r) for r in codes[:n_fast].tolist()]
    texts = [format_cards(r) for r in rows]
    batch_high(codes[:1000])  # build the lookup tables outside the clock
    batch_low8(codes[:1000])
    high_value(rows[0])
    low8_value(rows[0])

    results: dict[str, dict[str, float]] = {"high": {}, "low8": {}}
    hi, lo = results["high"], results["low8"]
    if jit_available():
        batch_high(codes[:1000], jit=True)  # compile (or load the cached kernels) outside the clock
        batch_low8(codes[:1000], jit=True)
        hi["studpoker batch_high (numba jit, check=False)"] = best_rate(
            lambda: batch_high(codes, check=False, jit=True), n_batch
        )
        hi["studpoker batch_high (numba jit, checked)"] = best_rate(
            lambda: batch_high(codes, jit=True), n_batch
        )
        lo["studpoker batch_low8 (numba jit, check=False)"] = best_rate(
            lambda: batch_low8(codes, check=False, jit=True), n_batch
        )
        lo["studpoker batch_low8 (numba jit, checked)"] = best_rate(
            lambda: batch_low8(codes, jit=True), n_batch
        )
    hi["studpoker batch_high (numpy, check=False)"] = best_rate(
        lambda: batch_high(codes, check=False), n_batch
    )
    hi["studpoker batch_high (numpy, checked)"] = best_rate(lambda: batch_high(codes), n_batch)
    hi["studpoker high() → HighHand"] = best_rate(lambda: each(high, rows), n_fast)
    card_rows = [tuple(Card(c) for c in r) for r in rows]
    hi["studpoker high() on Card objects → HighHand"] = best_rate(lambda: each(high, card_rows), n_fast)
    hi["studpoker high_value() → int"] = best_rate(lambda: each(high_value, rows), n_fast)
    lo["studpoker batch_low8 (numpy, check=False)"] = best_rate(
        lambda: batch_low8(codes, check=False), n_batch
    )
    lo["studpoker batch_low8 (numpy, checked)"] = best_rate(lambda: batch_low8(codes), n_batch)
    lo["studpoker low8() → LowHand or None"] = best_rate(lambda: each(low8, rows), n_fast)
    lo["studpoker low8_value() → int"] = best_rate(lambda: each(low8_value, rows), n_fast)

    e7 = [[eval7.Card(t[i : i + 2]) for i in range(0, 14, 2)] for t in texts]
    hi["eval7 evaluate (C)"] = best_rate(lambda: each(eval7.evaluate, e7), n_fast)
    pe_texts = texts
    hi["poker-equity score_batch('high') (Rust, batch)"] = best_rate(
        lambda: poker_equity.score_batch("high", pe_texts), n_fast
    )
    lo["poker-equity score_batch('low_a5') (Rust, batch, no qualifier)"] = best_rate(
        lambda: poker_equity.score_batch("low_a5", pe_texts), n_fast
    )
    ph = rows  # phevaluator's integer card ids are the same rank * 4 + suit codes
    hi["phevaluator evaluate_cards (C)"] = best_rate(
        lambda: each_star(phevaluator.evaluate_cards, ph), n_fast
    )
    evaluator = treys.Evaluator()
    tr: list[tuple[list[int], list[int]]] = [
        ([treys.Card.new(t[i : i + 2]) for i in range(0, 14, 2)], []) for t in texts[:n_slow]
    ]
    hi["treys Evaluator.evaluate (Python)"] = best_rate(lambda: each_star(evaluator.evaluate, tr), n_slow)
    kit = texts[:n_kit]
    hi["PokerKit StandardHighHand.from_game (Python)"] = best_rate(
        lambda: each(StandardHighHand.from_game, kit), n_kit, repeats=1
    )
    lo["PokerKit EightOrBetterLowHand.from_game_or_none (Python)"] = best_rate(
        lambda: each(EightOrBetterLowHand.from_game_or_none, kit), n_kit, repeats=1
    )

    for kind, title in (("high", "7-card high"), ("low8", "7-card eight-or-better low")):
        table = results[kind]
        ours_batch = next(v for k, v in table.items() if "numpy, check=False" in k)
        ours_scalar = next(v for k, v in table.items() if k.startswith("studpoker") and "→ int" in k)
        print(f"\n### {title} ({len(codes):,} random hands for batch, fewer for slower peers)\n")
        print(
            "| evaluator | hands/s | studpoker numpy batch is × faster | studpoker scalar (int) is × faster |"
        )
        print("|---|---:|---:|---:|")
        for name, rate in sorted(table.items(), key=lambda kv: -kv[1]):
            print(f"| {name} | {fmt(rate)} | {ours_batch / rate:.1f} | {ours_scalar / rate:.2f} |")

    omaha(n_fast, n_kit)

    print("\n### import time\n")
    print("| module | CPU seconds (best of 5, fresh interpreter) |")
    print("|---|---:|")
    for module in ("numpy", "studpoker.evaluate"):
        print(f"| `import {module}` | {import_time(module):.3f} |")


def omaha(n: int, n_kit: int) -> None:
    """Omaha hi/lo (4 hole + 5 board cards): batch, scalar and PokerKit."""
    from pokerkit import OmahaEightOrBetterLowHand, OmahaHoldemHand

    rng = np.random.default_rng(SEED + 1)
    deals = rng.random((n, 52)).argpartition(9, axis=1)[:, :9].astype(np.uint8)
    hole, board = deals[:, :4], deals[:, 4:]
    pairs = [(tuple(r[:4]), tuple(r[4:])) for r in deals.tolist()]
    kit = [(format_cards(h), format_cards(b)) for h, b in pairs[:n_kit]]

    def pokerkit_both(h: str, b: str) -> None:
        OmahaHoldemHand.from_game(h, b)
        OmahaEightOrBetterLowHand.from_game_or_none(h, b)

    rates: dict[str, float] = {}
    batch_omaha8(hole[:100], board[:100])
    rates["studpoker batch_omaha8 (numpy, check=False)"] = best_rate(
        lambda: batch_omaha8(hole, board, check=False), n
    )
    if jit_available():
        batch_omaha8(hole[:100], board[:100], jit=True)
        rates["studpoker batch_omaha8 (numba jit, check=False)"] = best_rate(
            lambda: batch_omaha8(hole, board, check=False, jit=True), n
        )
    few = pairs[: n // 10]
    rates["studpoker omaha8() → (HighHand, LowHand or None)"] = best_rate(
        lambda: each_star(omaha8, few), len(few)
    )
    rates["PokerKit OmahaHoldemHand + OmahaEightOrBetterLowHand (Python)"] = best_rate(
        lambda: each_star(pokerkit_both, kit), len(kit), repeats=1
    )
    ours = rates["studpoker batch_omaha8 (numpy, check=False)"]
    print(f"\n### Omaha hi/lo, 4 hole + 5 board cards ({n:,} random deals for batch)\n")
    print("| evaluator | deals/s | studpoker numpy batch is × faster |")
    print("|---|---:|---:|")
    for name, rate in sorted(rates.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {fmt(rate)} | {ours / rate:.1f} |")


def main() -> None:
    measure()


if __name__ == "__main__":
    main()
