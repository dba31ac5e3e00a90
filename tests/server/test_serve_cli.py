"""``studpoker serve --set NAME=VALUE``: any plain server setting from the command line, typed,
and a clear refusal (nothing started) for a name or value that is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from studpoker.cli import main as cli_main
from studpoker.cli.serve import parse_settings


def test_set_converts_each_value_to_its_settings_type() -> None:
    assert parse_settings(
        [
            "registrations_per_address_per_day=50",
            "seats_push_seconds=0.5",
            "bot_tables=3",
            "think_seconds=none",
            "default_tables=off",
        ]
    ) == {
        "registrations_per_address_per_day": 50,
        "seats_push_seconds": 0.5,
        "bot_tables": 3,
        "think_seconds": None,
        "default_tables": False,
    }


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("nope=1", "not a setting"),
        ("registrations_per_address_per_day", "not a setting"),
        ("port=1", "not a setting"),  # has a flag of its own
        ("bot_delay=1", "not a setting"),  # not a plain value
        ("registrations_per_address_per_day=many", "takes int"),
        ("bot_tables=1.5", "takes int or none"),
        ("default_tables=maybe", "takes bool"),
    ],
)
def test_set_refuses_what_is_not_a_setting(pair: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_settings([pair])


def test_serve_refuses_a_bad_set_before_starting(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    database = tmp_path / "never.sqlite3"
    code = cli_main(
        ["serve", "--port", "0", "--database-url", f"sqlite+aiosqlite:///{database}", "--set", "x=1"]
    )
    assert code == 2
    assert "--set 'x=1': not a setting" in capsys.readouterr().err
    assert not database.exists()
