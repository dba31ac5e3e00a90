"""The operator's ``studpoker export --kind cash|tournament|all``: tournament hands are exported
too (by default after the cash ones), one file per tournament table and day, in chips with the
PokerStars tournament header a player's download writes, or PHH naming the tournament."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from studpoker.cli import main
from studpoker.history.phh import load_hands
from studpoker.history.pokerstars.parsed import ParsedHand
from studpoker.history.pokerstars.read import read_pokerstars
from studpoker.store import Store
from tests.server.test_tournament_history import start_tournament
from tests.store.conftest import FAST_HASHER
from tests.store.test_stats import BRING_IN_DECK, BRING_IN_SCRIPT, config, play, seat_all, store_hand


async def _room(url: str) -> int:
    """A cash hand at 'Rio 1' (alice, bob, carol) and two at table 1 of a sit-and-go (alice and
    bob); the tournament's id."""
    store = await Store.open(url, password_hasher=FAST_HASHER)
    try:
        players = [await store.register(name, f"{name}-password") for name in ("alice", "bob", "carol")]
        table = await store.create_table(config("7S", "Rio 1"))
        await seat_all(store, table, players)
        await store_hand(store, table, "cash-1", play(config("7S"), BRING_IN_DECK, BRING_IN_SCRIPT))
        sng = await start_tournament(store, {1: {1: "alice", 2: "bob"}})
        rng = random.Random(4)
        for _ in range(2):
            await sng.deal(1, rng)
        return sng.id
    finally:
        await store.close()


@pytest.fixture
def room(tmp_path: Path) -> tuple[str, int]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'room.sqlite3'}"
    return url, asyncio.run(_room(url))


def export(capsys: pytest.CaptureFixture[str], url: str, out: Path, *args: str) -> dict[str, int]:
    assert main(["export", *args, "--database-url", url, str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = map(json.loads, captured.out.splitlines())
    return {Path(str(r["file"])).name: int(str(r["hands"])) for r in lines}


def test_tournament_hands_are_exported_by_kind(
    room: tuple[str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, tournament = room
    everything = export(capsys, url, tmp_path / "all", "--format", "pokerstars")
    cash_file = next(name for name in everything if name.startswith("Rio_1-"))
    day = cash_file.removeprefix("Rio_1-").removesuffix(".txt")
    table_file = f"Sunday_7S_{tournament}_T1-{day}.txt"
    assert everything == {cash_file: 1, table_file: 2}  # the default is all: cash, then tournament
    parsed = list(read_pokerstars((tmp_path / "all" / table_file).read_text(encoding="utf-8"), source="x"))
    assert len(parsed) == 2 and all(isinstance(hand, ParsedHand) for hand in parsed), parsed
    assert all(getattr(hand, "tournament", None) == f"Tournament #{tournament}, 5+0.50" for hand in parsed)
    # Every card (the room's record): both players' down cards.
    text = (tmp_path / "all" / table_file).read_text(encoding="utf-8")
    assert text.count("Dealt to alice [") >= 2 and text.count("Dealt to bob [") >= 2

    cash = export(capsys, url, tmp_path / "cash", "--format", "pokerstars", "--kind", "cash")
    assert cash == {cash_file: 1}
    only = export(capsys, url, tmp_path / "t", "--format", "phh", "--kind", "tournament", "--account", "bob")
    assert only == {table_file.replace(".txt", ".phhs"): 2}
    hands = load_hands(tmp_path / "t" / table_file.replace(".txt", ".phhs"))
    assert all(str(h.extra["event"]).startswith(f"Sunday 7S (tournament {tournament}") for h in hands)
    # carol played no tournament: nothing of hers
    hers = export(
        capsys, url, tmp_path / "c", "--format", "phh", "--kind", "tournament", "--account", "carol"
    )
    assert hers == {}


def test_a_bad_kind_is_refused(room: tuple[str, int], tmp_path: Path) -> None:
    url, _ = room
    with pytest.raises(SystemExit) as refused:
        main(["export", "--format", "phh", "--kind", "money", "--database-url", url, str(tmp_path / "x")])
    assert refused.value.code == 2
    assert not (tmp_path / "x").exists()
