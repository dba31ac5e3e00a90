"""A mixed-game cash table's schedule (server/table/rotation.py, R-MIXED-ROTATION): HORSE deals
8 hands of each game in order, every game's stakes from the table's one level, and says the game
now and the hands left in it."""

from __future__ import annotations

from studpoker.games import GAMES
from studpoker.server.protocol import HandStartedMsg
from studpoker.server.settings import Settings
from studpoker.server.table import TableActor, TablePorts
from studpoker.server.table.mixed_seats import MixedSeats
from studpoker.server.table.rotation import MixedSchedule
from studpoker.server.table.time_bank import TimeBankPolicy
from studpoker.store.models import TableConfig, TableRecord
from studpoker.tournament.rotation import find_rotation
from studpoker.tournament.structure import Level
from tests.server.table_fakes import FakeRoom, ManualClock, RecordingStore, Table, make_table


def _base() -> TableConfig:
    return TableConfig.derive("Mixed 2/4", "7S", 200, 400, max_seats=8)


def test_r_mixed_rotation_a_horse_table_deals_eight_hands_of_each_game_in_order() -> None:
    schedule = MixedSchedule(find_rotation("HORSE"), _base())
    played = []
    for _ in range(5 * 8 * 2):  # two laps of the rotation
        played.append(schedule.config_now().game)
        schedule.dealt()
    lap = [code for code in ("LHE", "O8", "RZ", "7S", "7S8") for _ in range(8)]
    assert played == lap + lap


def test_every_game_of_the_rotation_takes_its_stakes_from_the_one_level() -> None:
    schedule = MixedSchedule(find_rotation("HORSE"), _base())
    level = Level(big_bet=400, small_bet=200, seconds=0)
    for code in ("LHE", "O8", "RZ", "7S", "7S8"):
        config = schedule.config_now()
        assert config.game == code
        expected = level.stakes(GAMES[code])
        assert (config.ante, config.bring_in) == (expected.ante, expected.bring_in)
        assert (config.small_blind, config.big_blind) == (expected.small_blind, expected.big_blind)
        assert (config.small_bet, config.big_bet) == (200, 400)
        assert config.max_seats == 8  # the stud games seat eight, the fewest of the rotation
        for _ in range(8):
            schedule.dealt()


def test_the_table_says_the_game_now_and_the_hands_left_in_it() -> None:
    schedule = MixedSchedule(find_rotation("7S,RZ", hands_per_game=3), _base())
    seen = []
    for _ in range(4):
        info = schedule.info()
        seen.append((info["game_now"], info["hands_left"]))
        schedule.dealt()
    assert seen == [("7S", 3), ("7S", 2), ("7S", 1), ("RZ", 3)]
    assert schedule.info()["rotation"] == "7S,RZ" and schedule.info()["games"] == ["7S", "RZ"]


# -- the schedule wired to a table (server/table/mixed_seats.py), behind fake ports --------------------


def _mixed_table(rotation: str, hands_per_game: int, *, max_seats: int = 8) -> Table:
    """A started table actor whose seats follow ``rotation`` (built as the room builds one)."""
    store, clock, room = RecordingStore(), ManualClock(), FakeRoom()
    settings = Settings(default_tables=False, seats_push_seconds=0.0, time_bank_max_seconds=0.0)
    base = TableConfig.derive("Mixed 1/2", "7S", 100, 200, max_seats=max_seats)
    seats = MixedSeats(
        TimeBankPolicy.of(settings),
        MixedSchedule(find_rotation(rotation, hands_per_game=hands_per_game), base),
    )
    actor = TableActor(
        TableRecord(id=7, config=base),
        TablePorts(store=store, lobby=room, presence=room, clock=clock),
        settings,
        think_seconds=10.0,
        countdown_seconds=20.0,
        hand_pause_seconds=1.0,
        seats=seats,
    )
    seats.attach(actor)
    actor.start()
    return Table(actor=actor, store=store, clock=clock, room=room)


async def _deal(table: Table) -> None:
    table.clock.advance(5.0)
    await table.flush()
    assert table.actor.hand is not None and not table.actor.hand.is_over


async def test_r_mixed_rotation_a_mixed_table_deals_each_game_of_its_rotation_in_turn() -> None:
    table = _mixed_table("7S,RZ", 3)
    try:
        await table.seat(3)
        games, rotation = [], []
        for _ in range(9):
            await _deal(table)
            games.append(table.players[0].of_type(HandStartedMsg)[-1].game)
            info = table.actor.snapshot(table.players[0]).table["rotation"]
            rotation.append((info["game_now"], info["hands_left"]))
            assert table.actor.summary()["rotation"] == info
            await table.play_out()
            await table.flush()
        assert games == ["7S"] * 3 + ["RZ"] * 3 + ["7S"] * 3
        # The hand in play is one of the hands left of its game.
        lap = [("7S", 3), ("7S", 2), ("7S", 1), ("RZ", 3), ("RZ", 2), ("RZ", 1)]
        assert rotation == (lap + lap)[:9]
        assert table.actor.table_info()["rotation"]["games"] == ["7S", "RZ"]
    finally:
        await table.actor.stop()


async def test_a_mixed_table_takes_the_blinds_of_its_board_games_and_seats_the_fewest() -> None:
    table = _mixed_table("7S,LHE", 1, max_seats=10)
    try:
        assert table.actor.config.max_seats == 8  # stud seats eight, hold'em ten
        await table.seat(3)
        await _deal(table)
        assert table.actor.config.game == "7S" and table.actor.hand is not None
        await table.play_out()
        await table.flush()
        await _deal(table)
        config = table.actor.config
        assert config.game == "LHE" and (config.small_blind, config.big_blind) == (50, 100)
        assert table.actor.dealer.blinds.has_button and table.actor.dealer.blinds.stakes.big_blind == 100
    finally:
        await table.actor.stop()


async def test_a_table_of_one_game_has_no_rotation() -> None:
    table = make_table("7S")
    try:
        assert table.actor.table_info()["rotation"] is None and table.actor.summary()["rotation"] is None
    finally:
        await table.actor.stop()
