"""Random hands played in studpoker and PokerKit 0.7.7 with the same cards and actions.

A few hundred hands per game here; 100,000 per game in ``make slow`` / ``make bench``. Every
hand must end with the same stacks, except where a difference listed in
``test_pokerkit_differences.py`` (and in RULES.md's PokerKit section) explains it.
"""

from __future__ import annotations

import pytest

from tests.differential.peer import MERGED_POTS, SIDE_POT_LOW, DivergenceError, play_both

GAMES = ["7S", "7S8", "RZ", "O8"]
FAST_HANDS = {"7S": 250, "7S8": 250, "RZ": 250, "O8": 150}
SLOW_HANDS = 100_000
SLOW_CHUNK = 10_000


def _run(code: str, seeds: range) -> tuple[int, int]:
    """Play the seeds; return (hands that agree, hands explained by a known difference)."""
    agree = known = 0
    for seed in seeds:
        outcome = play_both(code, seed)
        if outcome.agree:
            agree += 1
        else:
            assert outcome.known in (SIDE_POT_LOW, MERGED_POTS), (
                f"{code} seed {seed}: stacks ours {outcome.ours} PokerKit {outcome.theirs}\n  "
                + "\n  ".join(outcome.log)
            )
            known += 1
    return agree, known


@pytest.mark.parametrize("code", GAMES)
def test_random_hands_match_pokerkit(code: str) -> None:
    agree, known = _run(code, range(FAST_HANDS[code]))
    assert known <= FAST_HANDS[code] // 50
    assert agree + known == FAST_HANDS[code]


@pytest.mark.parametrize("code", ["7S", "RZ", "O8"])
def test_short_all_ins_are_the_only_betting_differences(code: str) -> None:
    """With short all-in bets and raises allowed (§129), the two sides may disagree on the
    options, but only after such an all-in (see test_pokerkit_differences)."""
    diverged = 0
    for seed in range(60):
        try:
            play_both(code, 10_000 + seed, short_all_ins=True)
        except DivergenceError as exc:
            assert exc.kind == "options" and exc.after_short_all_in, str(exc)
            diverged += 1
    assert diverged < 30


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
@pytest.mark.parametrize("chunk", range(SLOW_HANDS // SLOW_CHUNK))
def test_random_hands_match_pokerkit_100k(code: str, chunk: int) -> None:
    start = 1_000_000 + chunk * SLOW_CHUNK
    agree, known = _run(code, range(start, start + SLOW_CHUNK))
    assert known <= SLOW_CHUNK // 50
    assert agree + known == SLOW_CHUNK
