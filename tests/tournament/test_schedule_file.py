"""The schedule file read and planned (server/tournaments/schedule.py): one-off and daily lines,
the days ahead, the keys that keep each tournament once, and bad files refused whole
(R-TOURNAMENT-SCHEDULED-FILE; the store side is tests/store/test_tournaments_scheduled.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studpoker.server.tournaments.schedule import parse_start, plan_schedule, read_schedule
from studpoker.store.errors import InvalidInputError

NOW = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)

TOML = """
days = 3

[[tournament]]
name = "Daily Razz"
game = "RZ"
daily = "20:00"
buy_in = 500
fee = 50
late_levels = 2
reentries = 1

[[tournament]]
name = "Morning Stud"
daily = "08:15"
buy_in = 200

[[tournament]]
name = "Sunday Special"
structure = "turbo"
start = 2026-12-06T18:00:00Z
buy_in = 2000
min_players = 10
max_players = 200
"""


def test_r_tournament_scheduled_file_plans_daily_and_one_off_tournaments(tmp_path: Path) -> None:
    path = tmp_path / "schedule.toml"
    path.write_text(TOML)
    planned = plan_schedule(read_schedule(path), NOW)
    names = [(p.name, p.start.isoformat()) for p in planned]
    assert names == [
        ("Daily Razz 2026-12-01", "2026-12-01T20:00:00+00:00"),  # today's is still to come
        ("Daily Razz 2026-12-02", "2026-12-02T20:00:00+00:00"),
        ("Daily Razz 2026-12-03", "2026-12-03T20:00:00+00:00"),
        ("Morning Stud 2026-12-02", "2026-12-02T08:15:00+00:00"),  # today's 08:15 has passed
        ("Morning Stud 2026-12-03", "2026-12-03T08:15:00+00:00"),
        ("Sunday Special", "2026-12-06T18:00:00+00:00"),
    ]
    razz = planned[0].new
    assert razz is not None
    assert (razz.game, razz.structure, razz.buy_in, razz.fee, razz.late_levels, razz.reentries) == (
        "RZ", "regular", 500, 50, 2, 1,
    )  # fmt: skip
    assert (razz.min_players, razz.seats) == (2, 100)  # the defaults
    special = planned[-1].new
    assert special is not None and (special.min_players, special.seats, special.structure) == (
        10,
        200,
        "turbo",
    )
    # The key is the line's name and the start: the same on every run, distinct per tournament.
    assert planned[0].schedule_key == "Daily Razz@2026-12-01T20:00:00+00:00"
    assert len({p.schedule_key for p in planned}) == len(planned)
    assert [p.schedule_key for p in plan_schedule(read_schedule(path), NOW)] == [
        p.schedule_key for p in planned
    ]
    # --days overrides the file's; the next day's run reaches one day further.
    assert len(plan_schedule(read_schedule(path), NOW, days=1)) == 2
    later = plan_schedule(read_schedule(path), datetime(2026, 12, 2, 21, 0, tzinfo=UTC))
    assert [p.name for p in later][:3] == [
        "Daily Razz 2026-12-03",
        "Daily Razz 2026-12-04",
        "Morning Stud 2026-12-03",
    ]


def test_a_json_schedule_and_a_passed_one_off(tmp_path: Path) -> None:
    path = tmp_path / "schedule.json"
    path.write_text(
        json.dumps({"tournament": [{"name": "Gone", "start": "2026-11-30T18:00Z", "buy_in": 100}]})
    )
    [gone] = plan_schedule(read_schedule(path), NOW)
    assert gone.new is None and gone.start == datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('[[tournament]]\nname = "x"\ndaily = "20:00"\n', "buy_in"),
        ('[[tournament]]\nname = "x"\nbuy_in = 1\n', "either start or daily"),
        ('[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "25:00"\n', "HH:MM"),
        (
            '[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "20:00"\nstart = "2027-01-01T00:00Z"\n',
            "not both",
        ),
        ('[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "20:00"\nprize = 3\n', "unknown keys ['prize']"),
        ('[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "20:00"\ngame = "chess"\n', "unknown game"),
        (
            '[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "20:00"\nmin_players = 9\nmax_players = 8\n',
            "smallest",
        ),
        ('[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "20:00"\nreentries = 1\n', "re-entry"),
        ('[[tournament]]\nname = "x"\nbuy_in = 1\nstart = "soon"\n', "ISO 8601"),
        ('days = 0\n[[tournament]]\nname = "x"\nbuy_in = 1\ndaily = "20:00"\n', "days ahead"),
        ("seats = 3\n", "nothing else"),
        ("[[tournament]\n", "schedule.toml"),
    ],
)
def test_a_bad_schedule_is_refused_naming_the_problem(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "schedule.toml"
    path.write_text(text)
    with pytest.raises(InvalidInputError) as refused:
        plan_schedule(read_schedule(path), NOW)
    assert says in str(refused.value)


def test_only_toml_or_json_files() -> None:
    with pytest.raises(InvalidInputError, match=r"toml or \.json"):
        read_schedule(Path(__file__))


def test_start_times_are_utc() -> None:
    assert parse_start("2026-12-06T18:00Z") == datetime(2026, 12, 6, 18, 0, tzinfo=UTC)
    assert parse_start("2026-12-06T19:00+01:00") == datetime(2026, 12, 6, 18, 0, tzinfo=UTC)
    assert parse_start("2026-12-06 18:00") == datetime(2026, 12, 6, 18, 0, tzinfo=UTC)
