"""The life of a table as one state: :class:`TablePhase`, and the transitions it may take.

The actor used to keep this in flags (``stopped``, ``_starting``, ``hand is not None``,
``_start_timer is not None``, ``_settle_timer`` / ``_settle_failures``); each of them is now a
phase, or a field that is really independent of the phase:

==========================================  ====================================================
before                                      now
==========================================  ====================================================
``stopped``                                 ``STOPPED`` (terminal)
``_starting``                               ``STARTING``
``_start_timer is not None``                ``SCHEDULED`` (the timer handle is a field)
``hand is not None`` (being played)         ``PLAYING``
``_settle_failures`` / ``_settle_timer``    ``SETTLING`` (the count and the timer: ``Settlement``)
``draining``                                a field: shutting down, no new hand starts (any phase)
``paused``                                  a field: what the watchers were told (``paused`` /
                                            ``resumed`` events), set in ``IDLE`` or ``SETTLING``
``_next_deal`` (a hand announced)           a field: an announced deal outlives a ``SCHEDULED``
                                            that came to nothing (its seeds stay valid)
==========================================  ====================================================

The seats' own flags (``sitting_out``, ``timed_out``, ``leaving``) belong to each seat, not to
the table (``seats.SeatState``).

Transitions::

    IDLE ------> SCHEDULED ------> STARTING ------> PLAYING ------> IDLE
      ^   two can   |   timer /       |   store took    |   end (or void)
      |   play      |   StartHand     |   the start     |   written
      |             v                 v                 v
      +-------- IDLE (fewer than   IDLE (refused:    SETTLING --(written, or voided
                two, or draining)  tried again)        |  ^      instead)--> IDLE
                                                       +--+ refused again: backoff
    any phase --Stop--> STOPPED

``StartHand`` also starts a hand from ``IDLE`` (a command may ask for one). A stopped table
stays stopped: a transition out of ``STOPPED`` is ignored, never an error, since a hand's void
during the shutdown ends in it.
"""

from __future__ import annotations

import enum


class TablePhase(enum.Enum):
    IDLE = "idle"  # no hand, none scheduled
    SCHEDULED = "scheduled"  # the next hand is announced and its start timer runs
    STARTING = "starting"  # the start of a hand is being written: it exists once the store has it
    PLAYING = "playing"  # a hand is being played
    SETTLING = "settling"  # the store refused the hand's end (or void): retried with backoff
    STOPPED = "stopped"  # shut down: every command is refused


_P = TablePhase
TRANSITIONS: dict[TablePhase, frozenset[TablePhase]] = {
    _P.IDLE: frozenset({_P.SCHEDULED, _P.STARTING, _P.STOPPED}),
    _P.SCHEDULED: frozenset({_P.STARTING, _P.IDLE, _P.STOPPED}),
    _P.STARTING: frozenset({_P.PLAYING, _P.IDLE, _P.STOPPED}),
    _P.PLAYING: frozenset({_P.IDLE, _P.SETTLING, _P.STOPPED}),
    _P.SETTLING: frozenset({_P.IDLE, _P.STOPPED}),
    _P.STOPPED: frozenset(),
}


class PhaseError(RuntimeError):
    """A transition the table may not take (a bug in the actor, never a client's doing)."""


def next_phase(current: TablePhase, wanted: TablePhase) -> TablePhase:
    """The phase after moving from ``current`` to ``wanted``: ``wanted`` if the move is allowed
    (or no move), ``STOPPED`` if the table is stopped; :class:`PhaseError` otherwise."""
    if current is wanted or current is _P.STOPPED:
        return current
    if wanted not in TRANSITIONS[current]:
        raise PhaseError(f"a table cannot go from {current.value} to {wanted.value}")
    return wanted
