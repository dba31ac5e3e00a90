"""Dropped PHH and PokerStars files: their format, point of view, hands and errors by line."""

from __future__ import annotations

import json
import re
from typing import Literal

from studpoker.cards import Card
from studpoker.history.phh import (
    EVERY_CARD,
    HandWithTimeBanks,
    PhhError,
    PhhHand,
    loads,
    replay_with_time_banks,
)
from studpoker.history.pokerstars.check import ReplayedHand, import_text
from studpoker.history.pokerstars.parsed import PokerStarsError, SkippedHand
from studpoker.history.pokerstars.read import decode, split_hands

from .equity import EquityBudget, EquitySolver
from .models import FileReplay, Replay, ReplayFileError, Viewer
from .steps import build_replay

_POKERSTARS_START = re.compile(r"^PokerStars ")


def file_format(text: str) -> Literal["phh", "pokerstars"]:
    """PokerStars text starts with its header; anything else is read as PHH (TOML)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return "pokerstars" if _POKERSTARS_START.match(first) else "phh"


def known_players(phh: PhhHand) -> list[int]:
    """The PHH players (0-based) whose every dealt card the file gives where it was dealt: the
    hero of a PokerStars history, or every player of a complete record (a card known only from
    a later show does not count: it was not seen at the deal)."""
    dealt: dict[int, list[Card | None]] = {}
    for act in phh.parsed_actions():
        if act.verb == "dh" and act.player is not None:
            dealt.setdefault(act.player, []).extend(act.cards)
    return sorted(p for p, cards in dealt.items() if cards and all(c is not None for c in cards))


def file_viewer(phh: PhhHand) -> Viewer:
    """The point of view of a file's hand: its one fully known player, everything when several
    are known, a watcher's when none is."""
    known = known_players(phh)
    seats = list(phh.seats or range(1, phh.player_count + 1))
    if len(known) == 1:
        return seats[known[0]]
    return EVERY_CARD if known else None


def _label(phh: PhhHand, fallback: str) -> str:
    hand = phh.extra.get("hand")
    return str(hand) if hand is not None else fallback


def _phh_names(phh: PhhHand) -> dict[int, str]:
    seats = list(phh.seats or range(1, phh.player_count + 1))
    names = phh.players or []
    return {seat: (names[i] if i < len(names) and names[i] else f"p{i + 1}") for i, seat in enumerate(seats)}


def _line_of_action(text: str, phh: PhhHand, action: int | None) -> int | None:
    """The file line of a PHH hand's action (1-based) when the file writes one action a line."""
    if action is None or not 1 <= action <= len(phh.actions):
        return None
    wanted = phh.actions[action - 1]
    lines = text.splitlines()
    section = re.search(r"\[(.+)\]$", phh.source)
    start = 0
    if section is not None:
        header = f"[{section.group(1)}]"
        start = next((i for i, line in enumerate(lines) if line.strip() == header), 0)
    seen = 0
    in_actions = False
    for i in range(start, len(lines)):
        stripped = lines[i].strip()
        if not in_actions:
            if stripped.startswith("actions") and "[" in stripped:
                in_actions = True
                rest = stripped.split("[", 1)[1]
                if rest.strip().strip(",").strip() and rest.strip() != "]":
                    return None  # actions on one line: no line per action
            continue
        if stripped.startswith("]"):
            return None
        if stripped.startswith(("'", '"')):
            seen += 1
            if seen == action:
                return i + 1 if wanted in stripped else None
    return None


def _phh_hands(
    text: str, source: str, max_hands: int, only: int | None
) -> tuple[list[tuple[int, PhhHand, HandWithTimeBanks]], list[str], int]:
    try:
        hands = loads(text, source=source)
    except PhhError as exc:
        raise ReplayFileError(str(exc)) from None
    if len(hands) > max_hands:
        raise ReplayFileError(f"{source}: {len(hands)} hands; a file may hold at most {max_hands}")
    good: list[tuple[int, PhhHand, HandWithTimeBanks]] = []
    problems: list[str] = []
    for number, phh in enumerate(hands, 1):
        if only is not None and number != only:
            continue
        try:
            good.append((number, phh, replay_with_time_banks(phh)))
        except PhhError as exc:
            line = _line_of_action(text, phh, exc.action)
            problems.append(f"{exc}" + (f" (line {line})" if line is not None else ""))
        except ValueError as exc:  # an engine refusal the PHH checks did not catch
            problems.append(f"{phh.source}: {exc}")
    return good, problems, len(hands)


def _pokerstars_hands(
    text: str, source: str, max_hands: int, only: int | None
) -> tuple[list[tuple[int, ReplayedHand]], list[str], int]:
    count = len(split_hands(text))
    if count > max_hands:
        raise ReplayFileError(f"{source}: {count} hands; a file may hold at most {max_hands}")
    good: list[tuple[int, ReplayedHand]] = []
    problems: list[str] = []
    for number, outcome in enumerate(import_text(text, source=source), 1):
        if only is not None and number != only:
            continue
        if isinstance(outcome, ReplayedHand):
            good.append((number, outcome))
        elif isinstance(outcome, PokerStarsError | SkippedHand):
            problems.append(str(outcome))
    return good, problems, count


def replay_file(
    text: str,
    solver: EquitySolver,
    budget: EquityBudget,
    *,
    max_hands: int,
    only: int | None = None,
    source: str = "upload",
) -> FileReplay:
    """The replays of a PHH or PokerStars file's hands (``only``: its Nth hand alone).

    Hands that cannot be replayed are left out with their error in ``problems``; a file none of
    whose hands replays raises :class:`ReplayFileError` with the errors."""
    fmt = file_format(text)
    replays: list[Replay] = []
    if fmt == "pokerstars":
        stars, problems, total = _pokerstars_hands(text, source, max_hands, only)
        for number, done in stars:
            phh, parsed = done.imported.phh, done.imported.parsed
            seats = list(phh.seats or range(1, phh.player_count + 1))
            replays.append(
                build_replay(
                    done.hand,
                    file_viewer(phh),
                    solver,
                    budget,
                    label=parsed.number,
                    names=_phh_names(phh),
                    table=parsed.table or None,
                    units="chips" if parsed.money.chips else "cents",
                    currency_symbol=parsed.money.symbol,
                    max_seats=parsed.seat_count,
                    rake=done.settlement.rake,
                    final_stacks=dict(zip(seats, done.settlement.finishing_stacks, strict=True)),
                    number=number,
                )
            )
    else:
        played, problems, total = _phh_hands(text, source, max_hands, only)
        for number, phh, replayed in played:
            seat_count = phh.extra.get("seat_count")
            table = phh.extra.get("table")
            replays.append(
                build_replay(
                    replayed.hand,
                    file_viewer(phh),
                    solver,
                    budget,
                    label=_label(phh, str(number)),
                    names=_phh_names(phh),
                    table=None if table is None else str(table),
                    units="chips",
                    currency_symbol=str(phh.extra.get("currency_symbol", "")),
                    max_seats=seat_count if isinstance(seat_count, int) else None,
                    number=number,
                    time_banks=replayed.time_banks,
                    protected_counts=replayed.protected_counts,
                )
            )
    if only is not None and only > total:
        raise ReplayFileError(f"{source}: there is no hand {only}: the file holds {total}")
    if not replays:
        shown = "; ".join(problems[:5]) or f"{source}: no hand in the file"
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise ReplayFileError(f"no hand of the file can be replayed: {shown}{more}")
    return FileReplay(format=fmt, hands=tuple(replays), problems=tuple(problems), total_hands=total)


def file_text(body: bytes, content_type: str) -> str:
    """The file's text from a request body: JSON ``{"text": ...}`` or the file itself (decoded
    as trackers decode hand histories: UTF-16 with a byte-order mark, UTF-8, cp1252...)."""
    if "json" in content_type:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise ReplayFileError(
                'the body is not valid JSON: send {"text": FILE} or the file as text/plain'
            ) from None
        text = data.get("text") if isinstance(data, dict) else None
        if not isinstance(text, str):
            raise ReplayFileError('the JSON body must be {"text": "<the PHH or PokerStars file>"}')
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return decode(body)
