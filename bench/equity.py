"""Equity speed: studpoker.equity against poker-equity (Rust) and PokerKit, same positions.

Deals per second count runouts evaluated (enumerated or sampled), per second of the process's
CPU (the machine may be shared with other jobs, which stretches the wall clock). "To +/-0.1 %"
is the time to bring every player's 95 % interval half-width to 0.001: measured for studpoker and for
poker-equity (run with the sample count its own standard error says it needs), extrapolated
from a short run for PokerKit. poker-equity runs on one thread (its default is four).
"""

from __future__ import annotations

import math
import time
from typing import Any

from studpoker.cards import parse_cards
from studpoker.equity import equity
from studpoker.equity.sampling import KERNEL_MIN_DEALS
from studpoker.games import get_game

Z95 = 1.959963984540054
TARGET = 0.001

POSITIONS: list[dict[str, Any]] = [
    {"name": "7S heads-up 3rd street", "game": "7S", "pe": "stud",
     "hands": ["AsKsQh", "7c7d2s"], "dead": "Qd2h"},
    {"name": "7S 3-way 3rd street", "game": "7S", "pe": "stud",
     "hands": ["AsKsQh", "7c7d2s", "JhTh9h"], "dead": ""},
    {"name": "7S heads-up 4th street", "game": "7S", "pe": "stud",
     "hands": ["AsKsQhJh", "7c7d2s3s"], "dead": ""},
    {"name": "7S8 heads-up 3rd street", "game": "7S8", "pe": "stud_hi_lo",
     "hands": ["As2s3h", "7c7d8s"], "dead": ""},
    {"name": "RZ heads-up 3rd street", "game": "RZ", "pe": "razz",
     "hands": ["As2s3h", "7c7d8s"], "dead": ""},
    {"name": "7S8 3-way 5th street", "game": "7S8", "pe": "stud_hi_lo",
     "hands": ["As2s3h4d5c", "7c7d8s8h9d", "KcKdQsJcTc"], "dead": ""},
    {"name": "O8 3-way flop", "game": "O8", "pe": "omaha_hi_lo",
     "hands": ["As2s3h4h", "KcKdQsJs", "7c8c9dTd"], "dead": "", "board": "2c5h9h"},
    {"name": "O8 3-way pre-flop", "game": "O8", "pe": "omaha_hi_lo",
     "hands": ["As2s3h4h", "KcKdQsJs", "7c8c9dTd"], "dead": ""},
]  # fmt: skip


CPU: dict[str, float] = {}


def _timed(fn: Any) -> tuple[Any, float]:
    """(result, wall seconds); the process CPU seconds go to ``CPU["last"]``."""
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    CPU["last"] = time.process_time() - cpu
    return out, time.perf_counter() - start


def _cpu() -> float:
    """The CPU seconds of the last ``_timed`` call (at least a nanosecond: rates divide by it)."""
    return max(CPU["last"], 1e-9)


def ours(pos: dict[str, Any]) -> dict[str, Any]:
    board = pos.get("board", "")
    equity(pos["game"], pos["hands"], dead=pos["dead"], board=board, max_deals=20_000)  # warm-up
    # and of the Monte Carlo path, big enough for O8's compiled kernels (numba loads them once)
    warm = KERNEL_MIN_DEALS
    equity(
        pos["game"], pos["hands"], dead=pos["dead"], board=board, exact=False, precision=0.0,
        max_deals=warm, min_deals=warm, seed=0,
    )  # fmt: skip
    result, seconds = _timed(
        lambda: equity(pos["game"], pos["hands"], dead=pos["dead"], board=board, precision=TARGET, seed=1)
    )
    cpu = CPU["last"]
    sampled, _ = _timed(
        lambda: equity(
            pos["game"], pos["hands"], dead=pos["dead"], board=board, exact=False, precision=0.0,
            max_deals=1_000_000, min_deals=1_000_000, seed=2,
        )
    )  # fmt: skip
    return {
        "exact": result.exact,
        "seconds": seconds,
        "cpu": cpu,
        "deals": result.deals,
        "equity": [p.equity for p in result.players],
        "mc_rate": sampled.deals / _cpu(),
    }


def poker_equity(pos: dict[str, Any]) -> dict[str, Any] | None:
    try:
        import poker_equity as pe
    except ImportError:
        return None
    hands, dead, board = pos["hands"], pos["dead"], pos.get("board", "")
    exact, e_seconds = _timed(lambda: pe.exact_from_text(pos["pe"], hands, board=board, dead=dead))
    probe_n = 400_000
    probe, _ = _timed(
        lambda: pe.chunk_from_text(
            pos["pe"], hands, board=board, dead=dead, samples=probe_n, seed=1, threads=1
        )
    )
    sigma = max(p["std_error"] for p in probe["players"]) * math.sqrt(probe_n)  # per deal
    need = max(math.ceil((Z95 * sigma / TARGET) ** 2), 1) if sigma > 0 else probe_n
    run, r_seconds = _timed(
        lambda: pe.chunk_from_text(pos["pe"], hands, board=board, dead=dead, samples=need, seed=2, threads=1)
    )
    cpu = CPU["last"]
    return {
        "cpu": cpu,
        "exact": exact is not None,
        "exact_seconds": e_seconds if exact is not None else None,
        "rate": need / _cpu(),
        "target_seconds": r_seconds,
        "target_deals": need,
        "equity": [p["equity"] for p in run["players"]],
    }


def pokerkit(pos: dict[str, Any], sample_count: int = 2000) -> dict[str, Any] | None:
    game = get_game(pos["game"])
    if not game.is_stud or game.hand_types != ("high",):  # calculate_equities takes one hand type:
        return None  # stud high is the fair match
    try:
        from pokerkit import Card, Deck, StandardHighHand, calculate_equities
    except ImportError:
        return None
    known = [list(Card.parse(h)) for h in pos["hands"]]
    dead = {str(c) for c in parse_cards(pos["dead"], allow_empty=True)}
    deck: Any = tuple(c for c in Deck.STANDARD if repr(c) not in dead)
    _timed(
        lambda: calculate_equities(
            [[k] for k in known], (), 7, 0, deck, (StandardHighHand,), sample_count=sample_count
        )
    )
    return {"rate": sample_count / _cpu()}


def _fmt_rate(rate: float | None) -> str:
    if rate is None:
        return "—"
    if rate >= 1e9:
        return f"{rate / 1e9:,.1f} G/s"
    if rate >= 1e6:
        return f"{rate / 1e6:,.2f} M/s"
    if rate >= 1e3:
        return f"{rate / 1e3:,.1f} k/s"
    return f"{rate:,.0f}/s"


def main() -> None:
    print("| position | studpoker | time (CPU) | deals/s | MC deals/s | poker-equity (1 thread) to ±0.1 % "
          "(CPU) | its deals/s | its exact | PokerKit deals/s |")  # fmt: skip
    print("|---|---|--:|--:|--:|--:|--:|---|--:|")
    for pos in POSITIONS:
        mine = ours(pos)
        theirs = poker_equity(pos)
        kit = pokerkit(pos)
        how = "exact" if mine["exact"] else "±0.1 %"
        rate = mine["deals"] / max(mine["cpu"], 1e-9)
        pe_time = f"{theirs['target_seconds']:.2f} s ({theirs['cpu']:.2f})" if theirs else "—"
        pe_rate = _fmt_rate(theirs["rate"]) if theirs else "—"
        pe_exact = "—" if not theirs else (f"{theirs['exact_seconds']:.2f} s" if theirs["exact"] else "none")
        kit_rate = _fmt_rate(kit["rate"]) if kit else "—"
        print(
            f"| {pos['name']} | {how} | {mine['seconds']:.2f} s ({mine['cpu']:.2f}) | {_fmt_rate(rate)} | "
            f"{_fmt_rate(mine['mc_rate'])} | {pe_time} | {pe_rate} | {pe_exact} | {kit_rate} |",
            flush=True,
        )
    print(
        "\nTimes are wall clock with the process CPU seconds in brackets (the machine may be shared); "
        "every rate is per second of the process's CPU. studpoker 'deals/s' counts the runouts "
        "covered (an exact heads-up count covers every one of them); 'MC deals/s' is its Monte Carlo "
        "rate on the same position (1,000,000 deals)."
    )


if __name__ == "__main__":
    main()
