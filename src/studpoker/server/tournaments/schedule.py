"""The operator's schedule file (``studpoker tournament schedule FILE``; docs/tournaments.md
"The schedule file"): TOML or JSON listing tournaments to create, each once.

A line has either ``start`` (one tournament at that time, UTC) or ``daily = "HH:MM"`` (one every
day at that time, UTC, created ahead for the next ``days`` days, today included, its name
followed by the date). Each tournament carries a schedule key, the line's name and its start
time, which the store keeps unique (R-TOURNAMENT-SCHEDULED-FILE): running the schedule again,
every day from cron say, creates the new days' tournaments and none twice.

The whole file is read and every tournament checked before any is created: a bad file changes
nothing.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studpoker.store.errors import InvalidInputError
from studpoker.store.tournaments import NewTournament

from .creating import operator_tournament

if TYPE_CHECKING:
    from studpoker.store import Store

DEFAULT_DAYS = 7
MAX_DAYS = 366
LINE_KEYS = {
    "name", "game", "structure", "buy_in", "fee", "start", "daily", "min_players", "max_players",
    "late_levels", "reentries", "hands_per_game",
}  # fmt: skip
# A schedule's tournaments are regular ones unless a line says; every other default (the game,
# the fee, the field, the hands per game of a rotation) is operator_tournament's, as the CLI's.
DEFAULTS: dict[str, Any] = {"structure": "regular"}
DAILY = re.compile(r"^(?P<hour>[01]\d|2[0-3]):(?P<minute>[0-5]\d)$")


def parse_start(text: object) -> datetime:
    """An ISO 8601 time as UTC (``2026-12-06T18:00Z``, ``...+01:00``; without a zone: UTC; a
    TOML date-time as it is read)."""
    if isinstance(text, datetime):
        return text.replace(tzinfo=UTC) if text.tzinfo is None else text.astimezone(UTC)
    if not isinstance(text, str):
        raise InvalidInputError(f"a start time is an ISO 8601 string, not {text!r}")
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInputError(f"{text!r} is not an ISO 8601 time (e.g. 2026-12-06T18:00Z)") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Planned:
    """One tournament the schedule asks for: what to create, or why it is not (``passed``)."""

    line: int
    new: NewTournament | None
    name: str
    start: datetime
    schedule_key: str


def read_schedule(path: Path) -> dict[str, Any]:
    """The file's contents: TOML (``.toml``) or JSON (``.json``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        if path.suffix == ".toml":
            data: object = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            raise InvalidInputError(f"a schedule file is .toml or .json, not {path.name!r}")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or set(data) - {"days", "tournament"}:
        raise InvalidInputError(f"{path}: a schedule has 'days' and a list of 'tournament', nothing else")
    return data


def _starts(line: Mapping[str, Any], number: int, now: datetime, days: int) -> list[tuple[str, datetime]]:
    """(name, start) of each tournament of one line."""
    name = line.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError(f"tournament {number}: a name is needed")
    if ("start" in line) == ("daily" in line):
        raise InvalidInputError(
            f"tournament {number} ({name}): give either start or daily, not both or neither"
        )
    if "start" in line:
        return [(name.strip(), parse_start(line["start"]))]
    given = line["daily"]
    daily = DAILY.match(given.strftime("%H:%M") if isinstance(given, time) else str(given))
    if daily is None:
        raise InvalidInputError(f"tournament {number} ({name}): daily is HH:MM in UTC, not {line['daily']!r}")
    at = time(int(daily["hour"]), int(daily["minute"]), tzinfo=UTC)
    today = now.astimezone(UTC).date()
    starts = [datetime.combine(today + timedelta(days=d), at) for d in range(days)]
    return [(f"{name.strip()} {start.date().isoformat()}", start) for start in starts if start > now]


def plan_schedule(data: Mapping[str, Any], now: datetime, *, days: int | None = None) -> list[Planned]:
    """Every tournament the schedule asks for from ``now`` on, each checked (a one-off whose
    time has passed is listed with ``new`` None); :class:`InvalidInputError` for a bad file."""
    ahead = data.get("days", DEFAULT_DAYS) if days is None else days
    if isinstance(ahead, bool) or not isinstance(ahead, int) or not 1 <= ahead <= MAX_DAYS:
        raise InvalidInputError(f"days ahead is a whole number from 1 to {MAX_DAYS}, not {ahead!r}")
    lines = data.get("tournament", [])
    if not isinstance(lines, list) or not all(isinstance(line, dict) for line in lines):
        raise InvalidInputError("'tournament' is a list of tables ([[tournament]] in TOML)")
    planned: list[Planned] = []
    for number, line in enumerate(lines, start=1):
        unknown = sorted(set(line) - LINE_KEYS)
        if unknown:
            raise InvalidInputError(
                f"tournament {number}: unknown keys {unknown}; known: {sorted(LINE_KEYS)}"
            )
        if "buy_in" not in line:
            raise InvalidInputError(f"tournament {number}: a buy_in (units) is needed")
        values = {**DEFAULTS, **line}
        for name, start in _starts(line, number, now, ahead):
            key = f"{line['name'].strip()}@{start.isoformat()}"
            if start <= now:
                planned.append(Planned(number, None, name, start, key))
                continue
            try:
                given = {k: values[k] for k in LINE_KEYS - {"name", "start", "daily"} if k in values}
                new = operator_tournament(name, now=now, starts_at=start, schedule_key=key, **given)
            except InvalidInputError as exc:
                raise InvalidInputError(f"tournament {number} ({name}): {exc}") from None
            planned.append(Planned(number, new, name, start, key))
    return planned


async def apply_schedule(store: Store, planned: list[Planned]) -> list[dict[str, Any]]:
    """Create what is planned and not created before (by its schedule key): one report line
    per tournament, ``status`` created, exists (by an earlier run), passed or failed."""
    report: list[dict[str, Any]] = []
    for item in planned:
        line: dict[str, Any] = {"name": item.name, "starts_at": item.start.isoformat(), "id": None}
        existing = await store.tournaments.find_scheduled(item.schedule_key)
        if existing is not None:
            report.append({**line, "status": "exists", "id": existing.id})
        elif item.new is None:
            report.append({**line, "status": "passed"})
        else:
            try:
                made = await store.tournaments.add(item.new)
            except InvalidInputError as exc:  # the name taken, or the time passed since the plan
                report.append({**line, "status": "failed", "error": str(exc)})
            else:
                report.append({**line, "status": "created", "id": made.id})
    return report
