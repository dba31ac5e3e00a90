"""A tournament as the lobby lists it (``GET /api/tournaments``, web/js/tournaments.js): the
field, the pool and the payouts so far, the start time and the countdown of a scheduled one,
late registration and each player's entries and re-entries left, the level and tables of a
running one, the results of a finished one (each player's best place, and every entry's); a
rotation's games, and the game now and its hands left at each table (``rotation``)."""

from __future__ import annotations

from typing import Any

from studpoker.store.tournaments import EntryRecord, TournamentRecord
from studpoker.tournament.payouts import prize_amounts

from .creating import rotation_of
from .sit_and_go import SitAndGo
from .tables import table_id_of


def _player_entries(record: TournamentRecord) -> dict[str, dict[str, Any]]:
    """Each player's entries: how many, whether his latest is still in, the re-entries left."""
    players: dict[str, dict[str, Any]] = {}
    for name in record.player_names:
        mine = [e for e in record.entries if e.name == name]
        players[name] = {
            "entries": len(mine),
            "in_play": mine[-1].place is None,
            "reentries_left": max(0, record.reentries - (len(mine) - 1)),
        }
    return players


def _entry_line(entry: EntryRecord) -> dict[str, Any]:
    return {
        "entry": entry.entry_no,
        "name": entry.name,
        "account_id": entry.account_id,
        "place": entry.place,
        "tied": entry.tied,
        "prize": entry.prize,
    }


def _results(record: TournamentRecord) -> list[dict[str, Any]]:
    """One line per player: his best place (and its tie), his prizes over all his entries."""
    best: dict[int, dict[str, Any]] = {}
    for entry in sorted(record.entries, key=lambda e: (e.place or 0, e.entry_no)):
        line = best.get(entry.account_id)
        if line is None:
            best[entry.account_id] = {**_entry_line(entry), "entries": 1}
        else:
            line["prize"] += entry.prize
            line["entries"] += 1
    return sorted(best.values(), key=lambda line: (line["place"] or 0, line["name"]))


def _rotation(record: TournamentRecord, running: SitAndGo | None) -> dict[str, Any] | None:
    """A rotation's fields (a cash mixed table's: rotation, games, game_now, hands_left,
    hands_per_game), those of its first table while it runs here, with each table's in
    ``tables``; before the start its first game; no game now once over; None for one game."""
    rotation = rotation_of(record)
    if not rotation.mixed:
        return None
    tables = [] if running is None else [(n, running.rotation_info(n)) for n in sorted(running.tables)]
    each = [{"table_id": table_id_of(record.id, n), **info} for n, info in tables if info]
    if each:
        return {**{k: v for k, v in each[0].items() if k != "table_id"}, "tables": each}
    first = record.status == "registering"  # it starts with the first game; else none is dealt here
    return {
        "rotation": rotation.name, "games": [game.code for game in rotation.games],
        "game_now": rotation.game_for_hand(0).code if first else None,
        "hands_left": rotation.hands_left(0) if first else None,
        "hands_per_game": rotation.hands_per_game, "tables": [],
    }  # fmt: skip


def player_tables(running: SitAndGo) -> dict[str, int]:
    """Each seated entrant's table now (name to table id)."""
    return {seat.name: actor.table_id for actor in running.tables.values() for seat in actor.seats.values()}


def lobby_line(record: TournamentRecord, running: SitAndGo | None, now: float) -> dict[str, Any]:
    """The lobby line of ``record`` (``running``: its play in this room, if it runs here; ``now``
    in seconds of wall time, for the countdown to a scheduled start)."""
    entrants = len(record.entries)
    starts_at = record.starts_at
    countdown = None
    if starts_at is not None and record.status == "registering":
        countdown = max(0.0, starts_at.timestamp() - now)
    line: dict[str, Any] = {
        "id": record.id, "name": record.name, "game": record.game, "structure": record.structure,
        "buy_in": record.buy_in, "fee": record.fee, "seats": record.seats, "status": record.status,
        "starting_stack": record.starting_stack, "entrants": entrants,
        "players": record.player_names, "prize_pool": record.prize_pool,
        "payouts": list(prize_amounts(max(2, entrants), record.prize_pool)),
        "hands_played": record.hands_played, "level": None, "tables": [],
        "scheduled": record.scheduled,
        "starts_at": None if starts_at is None else starts_at.isoformat().replace("+00:00", "Z"),
        "seconds_to_start": countdown,
        "min_players": record.min_players, "max_players": record.seats,
        "late_levels": record.late_levels, "reentries": record.reentries,
        "late_registration_open": False, "player_entries": _player_entries(record),
        "hands_per_game": record.hands_per_game,
    }  # fmt: skip
    if running is not None and record.status == "running":
        line["level"] = running.info()
        line["tables"] = running.table_ids
        line["late_registration_open"] = running.late_registration_open()
    line["rotation"] = _rotation(record, running if record.status == "running" else None)
    # Every entry's place so far (a re-entered player has one per entry); once finished, each
    # player's best place as the results.
    placed = sorted((e for e in record.entries if e.place is not None), key=lambda e: (e.place, e.entry_no))
    line["entry_results"] = [_entry_line(e) for e in placed]
    if record.status == "finished":
        line["results"] = _results(record)
    return line
