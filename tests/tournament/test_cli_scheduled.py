"""``studpoker tournament create --start ...`` and ``studpoker tournament schedule FILE`` end to
end on a SQLite file: what they create, their refusals (status 2, a message, nothing created),
and a schedule run twice creating each tournament once (R-TOURNAMENT-SCHEDULED-FILE)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from studpoker.cli import main
from studpoker.store import Store


def _url(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'room.sqlite3'}"

    async def make() -> None:
        await (await Store.open(url)).close()

    asyncio.run(make())
    return url


def _names(url: str) -> list[str]:
    async def read() -> list[str]:
        store = await Store.open(url)
        try:
            return [t.name for t in await store.tournaments.list()]
        finally:
            await store.close()

    return asyncio.run(read())


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_create_a_scheduled_tournament_and_its_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _url(tmp_path)
    status, out, err = _run(
        capsys, "tournament", "create", "--name", "Sunday", "--buy-in", "1000", "--fee", "100",
        "--start", "2030-01-06T19:00+01:00", "--min-players", "4", "--max-players", "60",
        "--late-levels", "3", "--reentries", "2", "--structure", "regular", "--database-url", url, "--json",
    )  # fmt: skip
    assert (status, err) == (0, "")
    made = json.loads(out)
    assert made["starts_at"] == "2030-01-06T18:00:00+00:00" and made["status"] == "registering"
    assert (made["min_players"], made["max_players"], made["late_levels"], made["reentries"]) == (4, 60, 3, 2)
    for bad, says in [
        (["--start", "2020-01-01T00:00Z"], "has passed"),
        (["--start", "tomorrow"], "ISO 8601"),
        (["--start", "2030-01-01T00:00Z", "--seats", "9"], "not --seats"),
        (["--max-players", "9"], "give --start"),
        (["--late-levels", "2"], "scheduled tournaments"),
        (["--start", "2030-01-01T00:00Z", "--min-players", "70", "--max-players", "60"], "smallest field"),
    ]:
        status, out, err = _run(
            capsys, "tournament", "create", "--name", "Bad", "--buy-in", "10", "--database-url", url, *bad
        )
        assert status == 2 and says in err and out == "", (bad, err)
    assert _names(url) == ["Sunday"]


def test_the_schedule_command_creates_each_tournament_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _url(tmp_path)
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps({"tournament": [
        {"name": "New Year", "start": "2030-01-01T18:00Z", "buy_in": 500, "late_levels": 2, "reentries": 1},
        {"name": "Gone", "start": "2020-01-01T18:00Z", "buy_in": 500},
    ]}))  # fmt: skip
    status, out, err = _run(capsys, "tournament", "schedule", str(path), "--database-url", url, "--json")
    assert (status, err) == (0, "")
    assert [(line["name"], line["status"]) for line in json.loads(out)] == [
        ("New Year", "created"),
        ("Gone", "passed"),
    ]
    status, out, _ = _run(capsys, "tournament", "schedule", str(path), "--database-url", url)
    assert status == 0 and "exists" in out and "created" not in out
    assert _names(url) == ["New Year"]
    # A bad line anywhere: nothing of the file is created.
    path.write_text(json.dumps({"tournament": [
        {"name": "Fine", "start": "2030-02-01T18:00Z", "buy_in": 500},
        {"name": "Broken", "start": "2030-02-02T18:00Z", "buy_in": 500, "seats": 9},
    ]}))  # fmt: skip
    status, out, err = _run(capsys, "tournament", "schedule", str(path), "--database-url", url)
    assert status == 2 and "tournament 2: unknown keys ['seats']" in err
    assert _names(url) == ["New Year"]
