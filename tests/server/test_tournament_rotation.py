"""Tournaments that play a rotation in the room (server/tournaments, issue 16): each table deals
the game of its own count of hands at the level's stakes for that game, the board games' button
frozen through the stud games (R-MIXED-BUTTON), the rotation in the lobby line and the table's
snapshot, a restart resuming each table's count (R-TOURNAMENT-ROTATION in docs/rules.md)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

from studpoker.history.phh import loads
from studpoker.server.tournaments import create_sit_and_go, table_id_of
from studpoker.server.tournaments.sit_and_go import level_config
from studpoker.store.schema import tournament_hands
from studpoker.store.tournaments import TournamentRecord
from studpoker.tournament.clock import read
from studpoker.tournament.positions import next_button
from studpoker.tournament.rotation import find_rotation
from studpoker.tournament.standard import find_structure

from .conftest import Client, Harness, make_settings, running_server
from .test_tournament_room import _entrants, auth, play_until, play_until_hand


async def _hands(h: Harness, tournament_id: int) -> list[tuple[str, int, str | None]]:
    """The tournament's hands that ended at table 1, in the order they were dealt: (status,
    level, PHH)."""
    t = tournament_hands
    async with h.store.database.read() as conn:
        rows = (
            await conn.execute(
                select(t.c.status, t.c.level, t.c.phh)
                .where(t.c.tournament_id == tournament_id, t.c.table_no == 1, t.c.status != "in_progress")
                .order_by(t.c.started_at, t.c.id)
            )
        ).all()
    return [(str(r.status), int(r.level), r.phh) for r in rows]


async def _play_passively(h: Harness, clients: list[Client], tournament_id: int, hands: int) -> None:
    """Check and call on every turn (no chip is bet beyond the forced ones: nobody busts) until
    table 1 has ended ``hands`` hands."""
    deadline = time.monotonic() + 300  # a guard for a loaded machine, not a timing check
    while len(await _hands(h, tournament_id)) < hands:
        assert time.monotonic() < deadline, "the hands were not played in time"
        await play_until_hand(h, clients)


def _check_games_and_stakes(record: TournamentRecord, hands: list[tuple[str, int, str | None]]) -> list[Any]:
    """Hand i of the table is the rotation's game for hand i (void ones count), its forced bets
    and limits the level's for that game; the finished hands' histories, in order."""
    rotation = find_rotation(record.game, hands_per_game=record.hands_per_game)
    structure = find_structure(record.structure)
    played = []
    for number, (status, level, phh_text) in enumerate(hands):
        if status != "finished":
            continue
        assert phh_text
        (phh,) = loads(phh_text)
        game = rotation.game_for_hand(number)
        assert phh.game.code == game.code, (number, phh.game.code, game.code)
        stakes = structure.level(level).stakes(game)
        small, big = structure.level(level).limits
        assert (phh.small_bet, phh.big_bet) == (small, big)
        if game.is_stud:
            assert (max(phh.antes), phh.bring_in) == (stakes.ante, stakes.bring_in), number
        else:
            assert phh.blinds_or_straddles is not None
            assert sorted(b for b in phh.blinds_or_straddles if b) == [stakes.small_blind, stakes.big_blind]
        played.append((number, game, phh))
    return played


async def _finish(h: Harness, clients: list[Client], tournament_id: int, pool: int) -> None:
    await play_until(h, clients, tournament_id, "finished", 300)
    result = (await h.http.get(f"/api/tournaments/{tournament_id}")).json()
    assert sum(r["prize"] for r in result["results"]) == result["prize_pool"] == pool
    assert result["rotation"]["game_now"] is None and result["rotation"]["tables"] == []  # over
    await h.audit()


async def test_r_tournament_rotation_a_horse_sit_and_go_plays_its_games_in_turn(tmp_path: Path) -> None:
    """Four players at HORSE, 2 hands a game: LHE, O8, Razz, Stud, Stud Hi/Lo, LHE again, each
    at the level's stakes for it; the button of the hold'em hands after the stud games moves on
    from the last board-game hand's (four players: six moves in the stud games would land
    elsewhere); the lobby and the snapshot say the game now; to the end."""
    async with running_server(make_settings(tmp_path)) as h:
        sng = await create_sit_and_go(
            h.store, "HORSE 4", "horse", "turbo", buy_in=1_000, fee=100, seats=4, hands_per_game=2
        )
        assert (sng.game, sng.hands_per_game) == ("HORSE", 2)
        registering = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        assert registering["rotation"]["games"] == ["LHE", "O8", "RZ", "7S", "7S8"]
        assert (registering["rotation"]["game_now"], registering["rotation"]["hands_left"]) == ("LHE", 2)
        tokens, clients = await _entrants(h, ["ann", "ben", "cyd", "dee"])
        for token in tokens:
            answer = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
            assert answer.status_code == 200, answer.text
        state = await clients[0].wait_for(lambda m: m["type"] == "table_state")
        table = state["table"]
        assert state["table_id"] == table_id_of(sng.id)
        assert table["max_seats"] == 8  # the fewest any game of HORSE seats (the stud games)
        assert table["rotation"]["rotation"] == "HORSE" and table["rotation"]["hands_per_game"] == 2
        assert table["rotation"]["game_now"] == table["game"]

        await _play_passively(h, clients, sng.id, 12)
        record = await h.store.tournaments.get(sng.id)
        hands = (await _hands(h, sng.id))[:12]
        played = _check_games_and_stakes(record, hands)
        assert [status for status, _, _ in hands] == ["finished"] * 12
        assert [game.code for _, game, _ in played] == [
            "LHE", "LHE", "O8", "O8", "RZ", "RZ", "7S", "7S", "7S8", "7S8", "LHE", "LHE",
        ]  # fmt: skip
        buttons = {n: phh.seats[-1] for n, game, phh in played if not game.is_stud and phh.seats}
        # The last O8 hand's button, then the stud games (no button), then LHE: one seat on.
        assert sorted(buttons) == [0, 1, 2, 3, 10, 11]
        assert buttons[1] == next_button(buttons[0], played[1][2].seats or [])
        assert buttons[10] == next_button(buttons[3], played[10][2].seats or [])

        line = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        running = h.room.tournaments.running[sng.id]
        now = running.rotation_info(1)
        assert now is not None and line["rotation"]["tables"][0]["table_id"] == table_id_of(sng.id)
        assert line["rotation"]["game_now"] == now["game_now"]
        count = running.hands_at[1]
        assert now["game_now"] == find_rotation("HORSE", hands_per_game=2).game_for_hand(count).code
        await _finish(h, clients, sng.id, 4_000)


async def test_a_restart_mid_rotation_resumes_each_tables_count(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with running_server(settings) as h:
        sng = await create_sit_and_go(
            h.store, "HOSE 2", "HOSE", "turbo", buy_in=500, fee=0, seats=2, hands_per_game=2
        )
        tokens, clients = await _entrants(h, ["ann", "ben"])
        for token in tokens:
            await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
        await _play_passively(h, clients, sng.id, 3)
    async with running_server(settings) as h:
        ended = len(await _hands(h, sng.id))  # the hand interrupted is void: it counts
        assert ended >= 3
        running = h.room.tournaments.running[sng.id]
        assert running.hands_at == {1: ended}
        clients = [await h.connect(token, name) for token, name in zip(tokens, ["ann", "ben"], strict=True)]
        state = await clients[0].wait_for(lambda m: m["type"] == "table_state")
        hose = find_rotation("HOSE", hands_per_game=2)
        info = state["table"]["rotation"]
        assert (info["game_now"], info["hands_left"]) == (
            hose.game_for_hand(ended).code,
            hose.hands_left(ended),
        )
        await _play_passively(h, clients, sng.id, ended + 3)
        record = await h.store.tournaments.get(sng.id)
        played = _check_games_and_stakes(record, await _hands(h, sng.id))
        assert any(number >= ended for number, _, _ in played)  # hands after the restart checked
        await _finish(h, clients, sng.id, 1_000)


def test_every_game_of_a_level_takes_its_stakes_from_the_levels_big_bet() -> None:
    """The config of a HORSE table's hand n: the game of hand n, its stakes Level.stakes(game)."""
    from datetime import UTC, datetime

    record = TournamentRecord(
        id=1, name="HORSE", game="HORSE", structure="turbo", buy_in=10, fee=0, seats=6,
        status="running", starting_stack=1_500, clock=None, hands_played=0,
        created_at=datetime.now(UTC), started_at=None, finished_at=None, hands_per_game=3,
    )  # fmt: skip
    structure = find_structure("turbo")
    reading = read(structure, 6 * 60.0)  # level 2
    level = structure.level(reading.level_number)
    rotation = find_rotation("HORSE", hands_per_game=3)
    for hand in range(16):
        config = level_config(record, reading, 10, 20, hands=hand)
        game = rotation.game_for_hand(hand)
        stakes = level.stakes(game)
        assert config.game == game.code
        assert (config.ante, config.bring_in) == (stakes.ante, stakes.bring_in)
        assert (config.small_blind, config.big_blind) == (stakes.small_blind, stakes.big_blind)
        assert (config.small_bet, config.big_bet) == level.limits
        assert config.max_seats == rotation.max_seats == 8
    assert [level_config(record, reading, 10, 20, hands=h).game for h in (0, 3, 6, 9, 12, 15)] == [
        "LHE", "O8", "RZ", "7S", "7S8", "LHE",
    ]  # fmt: skip
