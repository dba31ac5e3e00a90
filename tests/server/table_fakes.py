"""Fakes of the table actor's ports (studpoker.server.table.ports): a table in the test's event
loop with no room, no database and no real time. The clock moves only when the test says so."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from studpoker.server.deals import DealInPlay
from studpoker.server.protocol import ErrorMsg, EventMsg, ServerMsg, YourTurnMsg
from studpoker.server.settings import Settings
from studpoker.server.table import Act, ClockExpired, SeatState, Sit, TableActor, TablePorts
from studpoker.server.table.ports import HandEnd, HandStatus
from studpoker.store.models import TableConfig, TableRecord

M = TypeVar("M", bound=ServerMsg)
_viewer_ids = itertools.count(10_000)


@dataclass
class ManualTimer:
    when: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """The Clock port, moved by :meth:`advance`: due timers run in the order they are due."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.t = now
        self.timers: list[ManualTimer] = []

    def now(self) -> float:
        return self.t

    def call_later(self, delay: float, callback: Callable[[], None]) -> ManualTimer:
        timer = ManualTimer(self.t + max(0.0, delay), callback)
        self.timers.append(timer)
        return timer

    def pending(self) -> list[float]:
        """When the timers still to run are due (seconds from now)."""
        return sorted(t.when - self.t for t in self.timers if not t.cancelled)

    def advance(self, seconds: float) -> None:
        target = self.t + seconds
        while True:
            due = [t for t in self.timers if not t.cancelled and t.when <= target]
            if not due:
                break
            timer = min(due, key=lambda t: t.when)
            self.timers.remove(timer)
            self.t = max(self.t, timer.when)
            timer.callback()
        self.timers = [t for t in self.timers if not t.cancelled]
        self.t = target


@dataclass
class RecordingStore:
    """The TableStore port in memory: records every call; ``refuse_finish`` / ``refuse_void``
    hold the exceptions the next writes raise (one per write), ``lose_reply`` makes the next
    end commit and still raise; ``hold_start`` keeps a hand's start waiting until it is set."""

    calls: list[tuple[Any, ...]] = field(default_factory=list)
    hands: dict[str, HandStatus] = field(default_factory=dict)
    ends: list[HandEnd] = field(default_factory=list)
    refuse_start: list[BaseException] = field(default_factory=list)
    refuse_finish: list[BaseException] = field(default_factory=list)
    refuse_void: list[BaseException] = field(default_factory=list)
    lose_reply: BaseException | None = None
    hold_start: asyncio.Event | None = None
    start_waiting: asyncio.Event = field(default_factory=asyncio.Event)
    on_finish: Callable[[HandEnd], None] | None = None
    # Protected all-ins: how many are left today of ``protected_per_day`` (none by default).
    protected_left: int = 0
    protected_per_day: int = 2

    def names(self) -> list[str]:
        return [call[0] for call in self.calls]

    async def buy_in(self, account_id: int, seat: int, amount: int) -> None:
        self.calls.append(("buy_in", account_id, seat, amount))

    async def add_chips(self, account_id: int, seat: int, amount: int) -> None:
        self.calls.append(("add_chips", account_id, seat, amount))

    async def cash_out(self, seat: SeatState) -> None:
        self.calls.append(("cash_out", seat.account_id, seat.seat, seat.stack))

    async def start_hand(self, hand_id: str, deal: DealInPlay, players: list[SeatState]) -> None:
        self.calls.append(("start_hand", hand_id, [p.seat for p in players]))
        if self.hold_start is not None:
            self.start_waiting.set()
            await self.hold_start.wait()
        if self.refuse_start:
            raise self.refuse_start.pop(0)
        self.hands[hand_id] = HandStatus("in_progress")

    async def finish_hand(self, end: HandEnd) -> None:
        self.calls.append(("finish_hand", end.hand_id))
        if self.on_finish is not None:
            self.on_finish(end)
        if self.refuse_finish:
            raise self.refuse_finish.pop(0)
        self.ends.append(end)
        self.hands[end.hand_id] = HandStatus("finished")
        if self.lose_reply is not None:
            exc, self.lose_reply = self.lose_reply, None
            raise exc

    async def void_hand(self, hand_id: str, reason: str) -> None:
        self.calls.append(("void_hand", hand_id, reason))
        if self.refuse_void:
            raise self.refuse_void.pop(0)
        self.hands[hand_id] = HandStatus("void", reason)

    async def hand_status(self, hand_id: str) -> HandStatus:
        self.calls.append(("hand_status", hand_id))
        return self.hands[hand_id]

    async def use_protected_all_in(self, account_id: int) -> bool:
        if self.protected_left <= 0:
            return False
        self.protected_left -= 1
        return True

    async def protected_all_ins_today(self, account_id: int) -> tuple[int, int]:
        return self.protected_per_day - self.protected_left, self.protected_per_day


class FakeViewer:
    """A connection: records what the table sends it."""

    def __init__(self, account_id: int, name: str, *, is_bot: bool = False) -> None:
        self.id = next(_viewer_ids)
        self.account_id = account_id
        self.name = name
        self.is_bot = is_bot
        self.tables: set[int] = set()
        self.messages: list[ServerMsg] = []

    def send(self, message: ServerMsg) -> None:
        self.messages.append(message)

    def send_encoded(self, text: str, message: ServerMsg) -> None:
        self.messages.append(message)

    def of_type(self, kind: type[M]) -> list[M]:
        return [m for m in self.messages if isinstance(m, kind)]

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [m.event for m in self.of_type(EventMsg) if m.event.get("kind") == kind]

    def errors(self) -> list[ErrorMsg]:
        return self.of_type(ErrorMsg)


class FakeRoom:
    """The lobby and presence ports: a viewer is connected while it watches the table."""

    def __init__(self) -> None:
        self.viewers: list[FakeViewer] = []
        self.lobby_changes: list[int] = []

    def lobby_changed(self, table_id: int) -> None:
        self.lobby_changes.append(table_id)

    def is_connected(self, account_id: int, table_id: int) -> bool:
        return any(v.account_id == account_id and table_id in v.tables for v in self.viewers)


@dataclass
class Table:
    actor: TableActor
    store: RecordingStore
    clock: ManualClock
    room: FakeRoom
    players: list[FakeViewer] = field(default_factory=list)

    async def flush(self) -> None:
        """Wait until every command submitted so far has been handled (a stale clock's expiry
        is handled as a no-op)."""
        await self.actor.call(ClockExpired(serial=-1))

    async def seat(self, count: int, buy_in: int = 4000) -> list[FakeViewer]:
        for n in range(1, count + 1):
            viewer = FakeViewer(n, f"player{n}")
            self.room.viewers.append(viewer)
            self.players.append(viewer)
            await self.actor.call(Sit(conn=viewer, seat=n, buy_in=buy_in))
        return self.players

    def turn(self) -> tuple[FakeViewer, YourTurnMsg] | None:
        """The player whose turn it is, and the your_turn he was sent last."""
        decision = self.actor.clock.current
        if decision is None:
            return None
        viewer = self.players[decision.seat - 1]
        return viewer, viewer.of_type(YourTurnMsg)[-1]

    async def act(self, pick: Callable[[YourTurnMsg], str] = lambda t: t.options[0].kind) -> None:
        """The player to act takes ``pick``'s option (the first one by default)."""
        found = self.turn()
        assert found is not None, "nobody is to act"
        viewer, turn = found
        option = next(o for o in turn.options if o.kind == pick(turn))
        await self.actor.call(
            Act(
                conn=viewer,
                hand_id=turn.hand_id,
                kind=option.kind,
                amount=option.amount,
                version=turn.version,
            )
        )

    async def play_out(self, limit: int = 200) -> None:
        """Check or call (never fold) until the hand being played is over."""
        for _ in range(limit):
            if self.actor.hand is None or self.actor.hand.is_over:
                return
            await self.act(passive)
        raise AssertionError("the hand did not end")


def passive(turn: YourTurnMsg) -> str:
    kinds = [o.kind for o in turn.options]
    for kind in ("check", "call", "bring_in"):
        if kind in kinds:
            return kind
    return kinds[0]


def make_table(
    game: str = "7S", *, store: RecordingStore | None = None, hand_pause_seconds: float = 1.0, **settings: Any
) -> Table:
    """A started table actor behind fake ports (call it inside the test's event loop)."""
    store = store or RecordingStore()
    clock = ManualClock()
    room = FakeRoom()
    record = TableRecord(id=7, config=TableConfig.derive(f"{game} test", game, 100, 200))
    actor = TableActor(
        record,
        TablePorts(store=store, lobby=room, presence=room, clock=clock),
        # Seat lists unthrottled: the only timers are the hand's (its start, its clock, a retry);
        # no time bank unless asked (a decision times out when its countdown ends).
        Settings(
            **{"default_tables": False, "seats_push_seconds": 0.0, "time_bank_max_seconds": 0.0, **settings}
        ),
        think_seconds=10.0,
        countdown_seconds=20.0,
        hand_pause_seconds=hand_pause_seconds,
    )
    actor.start()
    return Table(actor=actor, store=store, clock=clock, room=room)
