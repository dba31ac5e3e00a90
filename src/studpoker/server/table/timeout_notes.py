"""What the table says when a player's clock runs out (R-TIMEOUT): the ``timed_out`` table event,
with the words the browser shows ("alice timed out: protected all-in (1 of 2 today)") and, when
the clock rule asked for a protected all-in, the counts of the account's day
(R-PROTECTED-ALL-INS-PER-DAY). The same words say a replayed hand's timeouts and time banks
(``server/replays``), which the history keeps without the day's counts."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from studpoker.engine import EventKind

from .ports import TableStore
from .seats import SeatState

if TYPE_CHECKING:
    from .hand import HandInPlay

log = logging.getLogger(__name__)

# The engine's TIMEOUT details (engine/events.py), as a sentence says them.
_OUTCOMES = {
    "check": "checked",
    "bring_in": "brought in",
    "fold": "folded",
    "protected_all_in": "protected all-in",
}


def outcome_of(events: Iterable[Any]) -> str:
    """What the clock rule did: the detail of the TIMEOUT event among the timeout's events."""
    for event in events:
        if event.kind is EventKind.TIMEOUT:
            return str(event.detail)
    return "fold"


def timeout_words(outcome: str) -> str:
    """What the clock rule did (the TIMEOUT event's detail), as a sentence says it."""
    return _OUTCOMES.get(outcome, outcome.replace("_", " "))


def time_bank_words(name: str, seconds: float) -> str:
    """A decision that used the time bank (R-TIME-BANK), in words, to the tenth of a second."""
    return f"{name} used {seconds:.1f} s of the time bank"


def timed_out_event(seat: int, name: str, outcome: str, protected: tuple[int, int] | None) -> dict[str, Any]:
    """The ``timed_out`` table event; ``protected``: (used, allowed) protected all-ins of the
    account's day, when the clock rule asked for one (None: it did not, or the store could not
    say)."""
    words = timeout_words(outcome)
    event: dict[str, Any] = {"kind": "timed_out", "seat": seat, "name": name, "outcome": outcome}
    if protected is not None:
        used, allowed = protected
        event["protected_used"] = used
        event["protected_per_day"] = allowed
        if outcome == "protected_all_in":
            words += f" ({used} of {allowed} today)"
        elif used >= allowed:
            # Protection was due (chips in the pot, a bet to face) but none is left today.
            words += f" (no protected all-in left: {used} of {allowed} used today)"
        else:
            # The store could not count one (it failed): the clock rule folds, as without any.
            words += " (the protected all-in could not be counted)"
    event["text"] = f"{name} timed out: {words}"
    return event


def counted_at(note: dict[str, Any], events: Iterable[Any]) -> dict[int, tuple[int, int]]:
    """The day's counts ``note`` says, by its timeout's engine event version (the hand's record
    keeps them: ``HandEnd.protected_counts``); empty when it says none."""
    if "protected_used" not in note:
        return {}
    version = next((e.version for e in events if e.kind is EventKind.TIMEOUT), None)
    return {} if version is None else {version: (note["protected_used"], note["protected_per_day"])}


async def timeout_note(
    store: TableStore, state: SeatState, events: Iterable[Any], *, counted: bool
) -> dict[str, Any]:
    """The ``timed_out`` event of ``state``'s timeout (its engine ``events``); ``counted``: the
    clock rule asked for a protected all-in, so the day's counts are read from the store (left
    out if it cannot say)."""
    protected = None
    if counted:
        try:
            protected = await store.protected_all_ins_today(state.account_id)
        except Exception:
            log.exception("could not count the protected all-ins of account %s", state.account_id)
    return timed_out_event(state.seat, state.name, outcome_of(events), protected)


async def note_timeout(
    playing: HandInPlay, store: TableStore, state: SeatState, events: Sequence[Any], *, counted: bool
) -> None:
    """The words of ``state``'s timeout (:func:`timeout_note`) go to the hand's notes (the
    watchers', the snapshot's) and the day's counts they say to its record (the histories')."""
    note = await timeout_note(store, state, events, counted=counted)
    playing.timeout_notes.append(note)
    playing.protected_counts.update(counted_at(note, events))
