"""The tournament clock: the level and the time to the next from "now", breaks, pauses, and a
stored state taken back after a restart (R-TOURNAMENT-CLOCK)."""

from __future__ import annotations

import doctest
import json
import math

import pytest

import studpoker.tournament.clock as clock_module
from studpoker.tournament.clock import ClockError, ClockState, read
from studpoker.tournament.standard import REGULAR, TURBO

START = 1_700_000_000.0


def test_the_level_and_the_time_to_the_next_from_now() -> None:
    clock = ClockState.started(START)
    first = read(REGULAR, clock.played_at(START))
    assert (first.level_number, first.on_break, first.into, first.left) == (1, False, 0.0, 900.0)
    assert first.level is REGULAR.levels[0]
    late = read(REGULAR, clock.played_at(START + 3 * 900 + 899.5))
    assert (late.level_number, late.on_break, late.left) == (4, False, 0.5)


def test_a_break_comes_after_every_fourth_level_and_says_what_follows() -> None:
    pause = read(REGULAR, 4 * 900 + 60)
    assert pause.on_break and pause.period == 4 and (pause.into, pause.left) == (60.0, 240.0)
    assert pause.level_number == 5 and pause.level is REGULAR.levels[4]
    after = read(REGULAR, 4 * 900 + 300)
    assert (after.level_number, after.on_break, after.into) == (5, False, 0.0)
    assert read(REGULAR, 4 * 900 + 300).to_dict()["big_bet"] == REGULAR.levels[4].big_bet


def test_the_last_level_lasts_for_ever() -> None:
    end = sum(p.seconds for p in TURBO.periods)
    reading = read(TURBO, end + 10_000)
    assert reading.level_number == len(TURBO.levels) and reading.left is None
    assert reading.into == 10_000 + TURBO.levels[-1].seconds


def test_pauses_stop_the_clock() -> None:
    clock = ClockState.started(START)
    paused = clock.stopped(START + 100)
    assert not paused.running and paused.played_at(START + 5_000) == 100
    again = paused.resumed(START + 5_000)
    assert again.played_at(START + 5_050) == 150 and again.resumed(START + 6_000) is again


def test_a_stored_clock_resumes_after_a_restart() -> None:
    clock = ClockState.started(START)
    stored = json.loads(json.dumps(clock.checkpoint(START + 1_234).to_dict()))
    assert stored == {"played": 1234.0, "since": START + 1_234}
    back = ClockState.from_dict(stored)
    assert back == clock.checkpoint(START + 1_234)
    # down for ten minutes: the tournament resumes where it stopped, unless the outage counts
    assert back.restored(START + 1_834).played_at(START + 1_900) == 1234 + 66
    assert back.restored(START + 1_834, count_downtime=True).played_at(START + 1_900) == 1234 + 666
    paused = ClockState.from_dict({"played": 50, "since": None})
    assert paused.restored(START).played_at(START + 99) == 50
    assert read(TURBO, back.restored(START + 1_834).played_at(START + 1_834)).level_number == 5


@pytest.mark.parametrize(
    "stored",
    [
        {"played": -1, "since": None},
        {"played": math.inf, "since": None},
        {"played": "10", "since": None},
        {"played": 10, "since": "now"},
        {"played": 10, "since": math.nan},
        {"played": True, "since": None},
        {"played": 10},
        {"played": 10, "since": None, "level": 3},
        [],
    ],
)
def test_a_bad_stored_clock_is_refused(stored: object) -> None:
    with pytest.raises(ClockError):
        ClockState.from_dict(stored)  # type: ignore[arg-type]


def test_time_before_the_start_and_negative_time_are_refused() -> None:
    with pytest.raises(ClockError, match="before the clock's start"):
        ClockState.started(START).played_at(START - 1)
    with pytest.raises(ClockError):
        read(TURBO, -0.5)
    with pytest.raises(ClockError):
        read(TURBO, math.nan)


def test_docstring_examples() -> None:
    result = doctest.testmod(clock_module)
    assert result.attempted > 0 and result.failed == 0
