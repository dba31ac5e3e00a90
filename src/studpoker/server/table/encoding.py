"""Engine values as JSON: for snapshots and results (``jsonable``) and for the ``event`` frames
the fan-out sends (encoded once per viewer class, not once per watcher), with the hand's public
state they carry (``public_fields``, ``public_seat``: the ``changes`` of a frame) and the pots
the table draws (``middle_pots``, in those changes and in a snapshot's hand)."""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from typing import Any

from studpoker.cards import Card
from studpoker.engine import HandView, SeatView
from studpoker.engine.pots import build_pots

from ..protocol import ClockInfo, EventMsg
from ..protocol.server import fast_encode


def jsonable(value: Any) -> Any:
    """Engine values (dataclasses, enums, cards, tuples, mappings) as plain JSON data."""
    if value is None or isinstance(value, bool | str | float):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, int):
        return int(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        return jsonable(to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            if f.name.startswith("_"):
                continue
            out[f.name] = jsonable(getattr(value, f.name))
        return out
    if isinstance(value, Mapping):
        return {str(jsonable(k)): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    return str(value)


def event_dict(event: Any) -> dict[str, Any]:
    data = jsonable(event)
    if not isinstance(data, dict):
        data = {"value": data}
    if "kind" not in data:
        data["kind"] = type(event).__name__
    return data


def dumps(data: Any) -> str:
    """Compact JSON text, as pydantic's ``model_dump_json`` writes it (orjson; the standard
    library for what orjson refuses, e.g. a lone surrogate, which the socket escapes)."""
    text = fast_encode(data)
    if text is None:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text


def middle_pots(view: HandView) -> list[dict[str, Any]]:
    """The pots in the middle of the table, as a dealer has gathered them: the chips of the
    betting rounds before this one, split at each all-in by ``engine/pots.py``; this round's
    bets lie in front of the seats (``bet``) until the round ends. None once the hand is over
    (they were paid).

    (The view's own ``pots`` count this round's bets too, cut at every seat's level while the
    bets differ, which is not a side pot anyone could draw. The room deals no per-seat antes,
    so there is no dead money to set apart: a replayed history's are the replayer's.)"""
    if view.is_over:
        return []
    gathered = {seat.seat: seat.contributed - seat.bet for seat in view.seats}
    live = [seat.seat for seat in view.seats if not seat.folded]
    return [{"amount": pot.amount, "eligible": list(pot.eligible)} for pot in build_pots(gathered, live)]


def public_fields(view: HandView) -> dict[str, Any]:
    """The hand's public state other than its seats, as a frame's ``changes`` name it: the same
    for every viewer."""
    return {
        "street": view.street,
        "to_act": view.to_act,
        "button": view.button,
        "bring_in_seat": view.bring_in_seat,
        "is_over": view.is_over,
        "pots": middle_pots(view),
    }


def public_seat(seat: SeatView) -> dict[str, Any]:
    """One seat's chips and flags in the hand (never its cards): public, as in every view."""
    return {
        "seat": seat.seat,
        "stack": seat.stack,
        "bet": seat.bet,
        "contributed": seat.contributed,
        "folded": seat.folded,
        "all_in": seat.all_in,
        "protected": seat.protected,
    }


def encoded_event(
    table_id: int,
    version: int,
    hand_id: str | None,
    data: dict[str, Any],
    clock: dict[str, Any] | None,
    *,
    changes: dict[str, Any] | None = None,
    clock_model: ClockInfo | None = None,
) -> tuple[str, EventMsg]:
    """An ``event`` message as JSON text (for the sockets) and as a model (for in-process bots).
    ``clock_model``: the model ``clock`` was dumped from, when the caller has it (the fan-out's
    batch does: not validated again for each copy)."""
    envelope: dict[str, Any] = {
        "type": "event",
        "table_id": table_id,
        "version": version,
        "hand_id": hand_id,
        "event": data,
    }
    if clock is not None:
        envelope["clock"] = clock
    if changes is not None:
        envelope["changes"] = changes
    message = EventMsg.model_construct(
        type="event",
        table_id=table_id,
        version=version,
        hand_id=hand_id,
        event=data,
        clock=None if clock is None else clock_model or ClockInfo(**clock),
        changes=changes,
    )
    return dumps(envelope), message


def cards_opened_frame(table_id: int, hand_id: str, version: int, openings: list[str]) -> str:
    """A ``cards_opened`` message's text from its openings' texts (``DealInPlay.opening_text``):
    what its model's ``model_dump_json`` writes, without building and validating the model
    (the same card's opening goes to every viewer class it is shown)."""
    head = f'{{"type":"cards_opened","table_id":{int(table_id)},"hand_id":{dumps(hand_id)},'
    return f'{head}"version":{int(version)},"openings":[{",".join(openings)}]}}'
