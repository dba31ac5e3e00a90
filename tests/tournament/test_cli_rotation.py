"""``studpoker tournament create --game HORSE --hands-per-game N`` and a schedule file's
rotation (server/tournaments/creating.py ``operator_tournament``, which both go through): what is
stored, and the refusals (status 2, a message, nothing created)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from studpoker.server.tournaments.creating import operator_tournament
from studpoker.store import InvalidInputError, Store
from studpoker.store.tournaments import TournamentRecord

from .test_cli_scheduled import _run, _url


def _tournaments(url: str) -> list[TournamentRecord]:
    async def read() -> list[TournamentRecord]:
        store = await Store.open(url)
        try:
            return await store.tournaments.list()
        finally:
            await store.close()

    return asyncio.run(read())


def test_create_takes_a_rotation_and_its_hands_per_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = _url(tmp_path)
    status, out, err = _run(
        capsys, "tournament", "create", "--name", "Horse", "--buy-in", "500", "--game", "horse",
        "--hands-per-game", "4", "--seats", "9", "--database-url", url, "--json",
    )  # fmt: skip
    assert (status, err) == (0, "")
    made = json.loads(out)
    assert (made["game"], made["hands_per_game"], made["seats"]) == ("HORSE", 4, 9)
    status, out, err = _run(
        capsys, "tournament", "create", "--name", "Mixed", "--buy-in", "500", "--game", "stud, razz",
        "--database-url", url,
    )  # fmt: skip
    assert (status, err) == (0, "") and "7S,RZ (8 hands a game)" in out
    status, out, _ = _run(
        capsys,
        "tournament",
        "create",
        "--name",
        "Plain",
        "--buy-in",
        "500",
        "--game",
        "razz",
        "--database-url",
        url,
    )
    assert status == 0 and "RZ turbo" in out and "hands a game" not in out
    stored = {t.name: (t.game, t.hands_per_game) for t in _tournaments(url)}
    assert stored == {"Horse": ("HORSE", 4), "Mixed": ("7S,RZ", 8), "Plain": ("RZ", 8)}
    for bad, says in [
        (["--game", "HORSE", "--hands-per-game", "0"], "1 hand or more"),
        (["--game", "7S,CHESS"], "unknown game"),
        (["--game", "7S,,RZ"], "empty game name"),
        (["--game", "7S,7S8,RZ,O8,LHE,7S"], "at most 16 characters"),
        (["--game", "HOSE", "--hands-per-game", "5000"], "hands per game"),
    ]:
        status, out, err = _run(
            capsys, "tournament", "create", "--name", "Bad", "--buy-in", "10", "--database-url", url, *bad
        )
        assert status == 2 and says in err and out == "", (bad, err)
    assert len(_tournaments(url)) == 3


def test_a_schedule_line_takes_a_rotation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = _url(tmp_path)
    path = tmp_path / "schedule.toml"
    path.write_text(
        '[[tournament]]\nname = "HOSE night"\nstart = 2030-01-01T18:00:00Z\nbuy_in = 500\n'
        'game = "HOSE"\nhands_per_game = 6\n'
        '[[tournament]]\nname = "Stud"\nstart = 2030-01-02T18:00:00Z\nbuy_in = 500\n'
    )
    status, _, err = _run(capsys, "tournament", "schedule", str(path), "--database-url", url, "--json")
    assert (status, err) == (0, ""), err
    stored = {t.name: (t.game, t.hands_per_game, t.seats) for t in _tournaments(url)}
    assert stored == {"HOSE night": ("HOSE", 6, 100), "Stud": ("7S", 8, 100)}
    path.write_text(
        '[[tournament]]\nname = "Bad"\nstart = 2030-01-03T18:00:00Z\nbuy_in = 500\n'
        'game = "HORSE"\nhands_per_game = "eight"\n'
    )
    status, _, err = _run(capsys, "tournament", "schedule", str(path), "--database-url", url)
    assert status == 2 and "tournament 1 (Bad): hands per game is a whole number" in err
    assert len(_tournaments(url)) == 2


def test_create_and_the_schedule_share_one_check_of_the_field() -> None:
    """The sit-and-go's seats and the scheduled one's largest field, checked in one place."""
    from datetime import UTC, datetime

    now = datetime(2029, 1, 1, tzinfo=UTC)
    start = datetime(2030, 1, 1, tzinfo=UTC)
    sng = operator_tournament("S", now=now, structure="turbo", buy_in=10, game="HOSE")
    assert (sng.seats, sng.game, sng.hands_per_game, sng.starts_at) == (6, "HOSE", 8, None)
    mtt = operator_tournament("M", now=now, structure="regular", buy_in=10, starts_at=start, hands_per_game=3)
    assert (mtt.seats, mtt.game, mtt.hands_per_game) == (100, "7S", 3)
    with pytest.raises(InvalidInputError, match="not --seats"):
        operator_tournament("M", now=now, structure="regular", buy_in=10, starts_at=start, seats=9)
    with pytest.raises(InvalidInputError, match="give --start"):
        operator_tournament("S", now=now, structure="turbo", buy_in=10, max_players=9)
