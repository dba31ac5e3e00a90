"""Random hands played in studpoker and PokerKit 0.7.7 with the same cards and actions.

A few hundred hands per game here; 100,000 per game in ``make slow`` / ``make bench``. Every
hand must end with the same stacks, except where a difference listed in
``test_pokerkit_differences.py`` (and in the rule book's PokerKit section) explains it.
"""

from __future__ import annotations

import warnings

import pytest
from pokerkit.notation import HandHistory

import studpoker.games
from studpoker.history.phh import dump_hand, finishing_stacks, loads, replay
from tests.differential.peer import (
    BOTH,
    MERGED_POTS,
    SIDE_POT_LOW,
    DivergenceError,
    Outcome,
    compat_house,
    play_both,
    pokerkit_replays,
)

GAMES = list(studpoker.games.GAMES)
FAST_HANDS = {"7S": 200, "7S8": 200, "RZ": 200, "O8": 120, "LHE": 200}
SLOW_HANDS = 100_000
SLOW_CHUNK = 10_000
TINY_HANDS = 40
SLOW_TINY_HANDS = 20_000
SLOW_TINY_CHUNK = 5_000


def _histories_agree(code: str, outcome: Outcome) -> None:
    """PokerKit's file of the hand replays here, and ours loads there, to PokerKit's stacks."""
    seats = list(range(1, len(outcome.stacks) + 1))
    (theirs,) = loads(outcome.pokerkit_phh(), source="pokerkit.phh")
    assert finishing_stacks(replay(theirs, house=compat_house(code)), seats) == outcome.theirs, outcome.log
    assert outcome.hand is not None
    assert pokerkit_replays(dump_hand(outcome.hand)) == outcome.theirs, outcome.log


def _run(code: str, seeds: range, *, tiny_stacks: bool = False, histories: bool = False) -> tuple[int, int]:
    """Play the seeds; return (hands that agree, hands explained by a known difference).
    ``histories``: each agreeing hand's PHH files must also replay both ways."""
    agree = known = 0
    for seed in seeds:
        try:
            outcome = play_both(code, seed, tiny_stacks=tiny_stacks)
        except DivergenceError as exc:
            # 8 stud players reaching 7th street share a community card: PokerKit cannot.
            assert exc.kind == "community", str(exc)
            known += 1
            continue
        if outcome.agree:
            agree += 1
            if histories:
                _histories_agree(code, outcome)
        else:
            assert outcome.known in (SIDE_POT_LOW, MERGED_POTS, BOTH), (
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


@pytest.mark.parametrize("code", GAMES)
def test_random_tiny_stacks_match_pokerkit(code: str) -> None:
    """Short stacks down to one chip (all-in from the ante, all-in calls for no more than the big
    blind): neither side asks for a decision when betting is over, and the PHH files of the
    hands replay both ways (PokerKit's extra check, difference 10, is accepted here)."""
    agree, known = _run(code, range(70_000, 70_000 + TINY_HANDS), tiny_stacks=True, histories=True)
    assert known <= TINY_HANDS // 20
    assert agree + known == TINY_HANDS


@pytest.mark.parametrize("code", GAMES)
def test_pokerkit_replays_our_phh(code: str) -> None:
    """Our PHH export of each random hand, read by PokerKit's own HandHistory, ends with the
    stacks PokerKit reached when it played the hand (its FO/8 plays pot-limit here, which
    accepts every fixed-limit amount)."""
    for seed in range(500, 520):
        outcome = play_both(code, seed)
        assert outcome.hand is not None
        text = dump_hand(outcome.hand)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            final = list(HandHistory.loads(text))[-1]
        assert list(final.stacks) == outcome.theirs, f"{code} seed {seed}\n{text}"


@pytest.mark.parametrize("code", ["7S", "RZ", "O8", "LHE"])
def test_short_all_ins_are_the_only_betting_differences(code: str) -> None:
    """With short all-in bets and raises allowed (§129), the two sides may disagree on the
    options, but only after such an all-in (see test_pokerkit_differences)."""
    diverged = 0
    for seed in range(40):
        try:
            play_both(code, 10_000 + seed, short_all_ins=True)
        except DivergenceError as exc:
            assert exc.kind == "options" and exc.after_short_all_in, str(exc)
            diverged += 1
    assert diverged < 20


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
@pytest.mark.parametrize("chunk", range(SLOW_HANDS // SLOW_CHUNK))
def test_random_hands_match_pokerkit_100k(code: str, chunk: int) -> None:
    start = 1_000_000 + chunk * SLOW_CHUNK
    agree, known = _run(code, range(start, start + SLOW_CHUNK))
    assert known <= SLOW_CHUNK // 50
    assert agree + known == SLOW_CHUNK


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
@pytest.mark.parametrize("chunk", range(SLOW_TINY_HANDS // SLOW_TINY_CHUNK))
def test_random_tiny_stacks_match_pokerkit_20k(code: str, chunk: int) -> None:
    start = 2_000_000 + chunk * SLOW_TINY_CHUNK
    agree, known = _run(code, range(start, start + SLOW_TINY_CHUNK), tiny_stacks=True)
    assert known <= SLOW_TINY_CHUNK // 50
    assert agree + known == SLOW_TINY_CHUNK
