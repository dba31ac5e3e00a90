"""A finished hand as steps seen by one viewer, and the whole replay built from them.

A decision's step carries the time bank it used (the hand's ``time_banks``: engine event version
-> seconds, as the room keeps them and the PHH notes them) and the table's words for it: the
bank used, what the clock did and, when the table counted them, the day's protected all-ins
(``protected_counts``: timeout version -> (used, allowed)), in the words of
``server/table/timeout_notes.py``: "alice timed out: protected all-in (1 of 2 today)"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from studpoker.engine import Event, EventKind, Hand
from studpoker.history.phh import EVERY_CARD
from studpoker.server.table.timeout_notes import time_bank_words, timed_out_event

from .equity import EquityBudget, EquitySolver
from .models import (
    PlayerEquity,
    Replay,
    ReplayPlayer,
    ReplayStakes,
    ReplayStep,
    Sees,
    StepEquity,
    StepEvent,
    Units,
    Viewer,
)
from .table import ReplayTable, card_text

_GROUPED = {
    EventKind.POST_ANTE: "post",
    EventKind.POST_BLIND: "post",
    EventKind.DEAL: "deal",
    EventKind.DEAL_BOARD: "deal",
    EventKind.EXPOSE: "expose",
    EventKind.AWARD: "award",
}
_SINGLE = {
    EventKind.ACTION: "action",
    EventKind.TIMEOUT: "timeout",  # a protected all-in (the others lead to their action)
    EventKind.SHOW: "show",
    EventKind.MUCK: "muck",
    EventKind.RETURN: "return",
}
# Steps after which the viewer learns cards: each street's deal and the hands turned up.
_EQUITY_KINDS = frozenset({"deal", "expose"})
# The steps of one decision, and the events that end one (its action, or the clock's timeout).
_DECISION_KINDS = frozenset({"action", "timeout"})
_DECISION_ENDS = frozenset({EventKind.ACTION, EventKind.TIMEOUT})


def _event_out(ev: Event) -> StepEvent:
    return StepEvent(
        kind=ev.kind.value,
        seat=ev.seat,
        street=ev.street,
        cards=None if ev.cards is None else tuple(card_text(c) for c in ev.cards),
        amount=ev.amount,
        action=None if ev.action is None else ev.action.value,
        all_in=ev.all_in,
        pot=ev.pot,
        detail=ev.detail if isinstance(ev.detail, str) else None,
    )


def viewer_events(hand: Hand, viewer: Viewer) -> tuple[Event, ...]:
    """The events ``viewer`` may read, burnt cards left out (nobody sees them)."""
    events = hand.events if isinstance(viewer, str) else hand.events_for(viewer)
    return tuple(e for e in events if e.kind is not EventKind.BURN)


@dataclass(slots=True)
class _Group:
    kind: str
    main: Event  # the event that made the step (the first of a group)
    events: list[Event] = field(default_factory=list)
    added: int | None = None


def _equity_of(table: ReplayTable, solver: EquitySolver, budget: EquityBudget) -> StepEquity | str:
    live = table.live()
    solved = solver.solve(table.position_key(), budget)
    if isinstance(solved, str):
        return solved
    exact, method, deals, figures = solved
    players = tuple(
        PlayerEquity(seat=s, equity=e, high=h, low=lo, margin95=m)
        for s, (e, h, lo, m) in zip(live, figures, strict=True)
    )
    return StepEquity(exact=exact, method=method, deals=deals, players=players)


def _result_shares(table: ReplayTable, hand: Hand) -> StepEquity:
    """The end: each player's share of the chips the pots paid out, side pots and split halves
    as they fell (every card that decided them was shown), for everyone who did not fold."""
    result = hand.result
    seats = [s for s in table.order if s not in table.folded]
    won = {s: result.won(s) for s in seats}
    total = sum(won.values())
    players = tuple(
        PlayerEquity(
            seat=s, equity=won[s] / total if total else 1 / len(seats), high=None, low=None, margin95=0.0
        )
        for s in seats
    )
    return StepEquity(exact=True, method="result", deals=0, players=players)


def _decision_notes(
    group: _Group,
    banks: Mapping[int, float],
    counts: Mapping[int, tuple[int, int]],
    names: Mapping[int, str],
) -> tuple[float | None, tuple[str, ...]]:
    """A decision's time bank and the table's words for it: the bank it used first (it ran
    before the clock rule), then what the clock did, with the day's protected all-ins it
    counted. Nothing for a step that is no decision."""
    seat = group.main.seat
    if group.kind not in _DECISION_KINDS or seat is None:
        return None, ()
    events = group.events
    ends = (e.version for e in events if e.kind in _DECISION_ENDS)
    used = next((banks[v] for v in ends if v in banks), None)
    name = names.get(seat) or f"Seat {seat}"
    notes = [] if used is None else [time_bank_words(name, used)]
    timeout = next((e for e in events if e.kind is EventKind.TIMEOUT), None)
    if timeout is not None:
        words = timed_out_event(seat, name, str(timeout.detail), counts.get(timeout.version))
        notes.append(str(words["text"]))
    return used, tuple(notes)


def replay_steps(
    hand: Hand,
    viewer: Viewer,
    solver: EquitySolver,
    budget: EquityBudget,
    *,
    time_banks: Mapping[int, float] | None = None,
    names: Mapping[int, str] | None = None,
    protected_counts: Mapping[int, tuple[int, int]] | None = None,
) -> tuple[ReplayStep, ...]:
    """The finished ``hand`` as ``viewer`` saw it, step by step (see the module docstring);
    ``time_banks`` and ``protected_counts`` as the hand's record has them, ``names`` for the
    notes (default "Seat N")."""
    banks = time_banks or {}
    counts = protected_counts or {}
    named = names or {}
    if not hand.is_over:
        raise ValueError("only a finished hand can be replayed")
    table = ReplayTable(hand)
    steps: list[ReplayStep] = []
    pending: list[Event] = []  # events that open the next step (hand start, street, a timeout)
    current: _Group | None = None

    def flush(final: bool = False) -> None:
        nonlocal current
        group = current
        current = None
        if group is None:
            return
        events, main = group.events, group.main
        made = [e for e in events if e.kind is main.kind]
        seats_in = {e.seat for e in made}
        single = group.kind in _SINGLE.values() or len(seats_in) == 1
        amount = main.amount
        if group.kind == "award" and single:
            amount = sum(e.amount or 0 for e in made)  # one winner of several pots
        timeout = next((e.detail for e in events if e.kind is EventKind.TIMEOUT), None)
        used, notes = _decision_notes(group, banks, counts, named)
        found: StepEquity | str | None = None
        if final:
            found = _result_shares(table, hand)
        elif group.kind in _EQUITY_KINDS:
            found = _equity_of(table, solver, budget)
        steps.append(
            ReplayStep(
                index=len(steps),
                version=events[-1].version,
                kind=group.kind,
                street=table.street,
                seat=main.seat if single else None,
                action=None if main.action is None else main.action.value,
                amount=amount if single else None,
                added=group.added,
                all_in=main.all_in,
                timeout=timeout,
                events=tuple(_event_out(e) for e in events),
                seats=table.seats(),
                pots=table.pots(),
                board=tuple(str(c) for c in table.board if c is not None),
                equity=found if isinstance(found, StepEquity) else None,
                equity_note=found if isinstance(found, str) else None,
                time_bank=used,
                notes=notes,
            )
        )

    for ev in viewer_events(hand, viewer):
        kind = ev.kind
        if kind in (EventKind.HAND_START, EventKind.STREET) or (
            kind is EventKind.TIMEOUT and ev.detail != "protected_all_in"
        ):
            flush()
            pending.append(ev)
            table.apply(ev)
            continue
        if kind in (EventKind.BRING_IN_PLAYER, EventKind.HAND_END):
            (current.events if current is not None else pending).append(ev)
            table.apply(ev)
            continue
        group = _GROUPED.get(kind)
        if group is not None and current is not None and current.kind == group:
            current.events.append(ev)
            table.apply(ev)
            continue
        flush()
        current = _Group(kind=group or _SINGLE.get(kind, kind.value), main=ev, events=[*pending, ev])
        pending = []
        added = table.apply(ev)
        if kind is EventKind.ACTION:
            current.added = added
    if current is not None:
        current.events.extend(pending)
    flush(final=True)
    return tuple(steps)


def build_replay(
    hand: Hand,
    viewer: Viewer,
    solver: EquitySolver,
    budget: EquityBudget,
    *,
    label: str,
    names: Mapping[int, str],
    table: str | None = None,
    units: Units = "cents",
    currency_symbol: str = "",
    max_seats: int | None = None,
    rake: int = 0,
    final_stacks: Mapping[int, int] | None = None,
    number: int | None = None,
    time_banks: Mapping[int, float] | None = None,
    protected_counts: Mapping[int, tuple[int, int]] | None = None,
) -> Replay:
    """The replay of a finished hand seen by ``viewer``. ``final_stacks`` (net of a file's rake)
    default to the engine's; ``time_banks`` (engine event version -> seconds) are the time bank
    its decisions used, ``protected_counts`` (timeout version -> (used, allowed)) the day's
    protected all-ins its timeouts counted."""
    game = hand.game
    skipped_before = budget.skipped
    players = {s: names.get(s) or f"Seat {s}" for s in hand.seat_numbers}
    steps = replay_steps(
        hand, viewer, solver, budget, time_banks=time_banks, names=players, protected_counts=protected_counts
    )
    stakes = hand.stakes
    seat = viewer if isinstance(viewer, int) else None
    sees: Sees = "seat" if seat is not None else "everything" if viewer == EVERY_CARD else "watcher"
    return Replay(
        hand=label,
        game=game.code,
        game_name=game.name,
        table=table,
        viewer=seat,
        sees=sees,
        units=units,
        currency_symbol=currency_symbol,
        stakes=ReplayStakes(
            small_bet=stakes.small_bet,
            big_bet=stakes.big_bet,
            ante=stakes.ante,
            bring_in=stakes.bring_in,
            small_blind=stakes.small_blind,
            big_blind=stakes.big_blind,
        ),
        max_seats=max(max_seats or game.max_players, *hand.seat_numbers),
        button=hand.button,
        bring_in_seat=_bring_in_of(steps),
        players=tuple(
            ReplayPlayer(seat=s, name=players[s], starting_stack=hand.initial_stacks[s])
            for s in hand.seat_numbers
        ),
        steps=steps,
        final_stacks=dict(final_stacks if final_stacks is not None else hand.result.final_stacks),
        result=hand.result.to_dict(),
        rake=rake,
        equity_complete=budget.skipped == skipped_before,
        number=number,
    )


def _bring_in_of(steps: Sequence[ReplayStep]) -> int | None:
    for step in steps:
        for e in step.events:
            if e.kind == "bring_in_player":
                return e.seat
    return None
