"""Simple bots: in-process clients that play through the same protocol as people.

A bot is a :class:`~studpoker.server.connections.Connection` whose ``send`` feeds its own
logic; it answers by writing client messages as JSON text into the room's ordinary entry point
(:meth:`Room.handle_raw`), so it goes through parsing, rate limits, dispatch and the table
actor's checks exactly as a browser does. It picks among the legal options it was sent:
mostly check or call, sometimes bet or raise, folding now and then, more often to big bets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from typing import TYPE_CHECKING, Any

from studpoker.store.errors import NameTakenError, StoreError

from .connections import Connection
from .protocol import (
    ErrorMsg,
    HandFinishedMsg,
    LegalOptionInfo,
    TableStateMsg,
    YourTurnMsg,
    _Out,
)
from .ratelimit import TokenBucket

if TYPE_CHECKING:
    from .lobby import Room

log = logging.getLogger(__name__)

AGGRESSIVE = ("complete", "bet", "raise")
# Names in the bots' namespace that people hold (from before it was reserved) skipped per table.
_MAX_SKIPPED_BOT_NAMES = 20


def choose(options: list[LegalOptionInfo], rng: random.Random, stack: int) -> LegalOptionInfo:
    """The bot's policy, from the legal options only."""
    by_kind = {o.kind: o for o in options}
    aggressive = [o for o in options if o.kind in AGGRESSIVE]
    roll = rng.random()
    if "check" in by_kind:
        if aggressive and roll < 0.2:
            return rng.choice(aggressive)
        return by_kind["check"]
    passive = by_kind.get("bring_in") or by_kind.get("call")
    if passive is not None:
        big = passive.amount is not None and stack > 0 and passive.amount * 3 > stack
        if "fold" in by_kind and roll < (0.35 if big else 0.08):
            return by_kind["fold"]
        if aggressive and roll > 0.9:
            return rng.choice(aggressive)
        return passive
    return rng.choice(options)


class BotConnection(Connection):
    """One bot at one table."""

    is_bot = True

    def __init__(
        self,
        room: Room,
        account_id: int,
        name: str,
        table_id: int,
        *,
        delay: tuple[float, float],
        seed: int | None,
    ) -> None:
        super().__init__(account_id, name, TokenBucket(rate=200.0, burst=400.0))
        self.room = room
        self.table_id = table_id
        self.delay = delay
        self.rng = random.Random(seed)
        self.stack = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self.hands_finished = 0
        self.errors: list[ErrorMsg] = []

    # -- the client side of the protocol -------------------------------------------------------

    def send(self, message: _Out) -> None:
        if self.closed:
            return
        if isinstance(message, YourTurnMsg):
            self._later(self._act(message))
        elif isinstance(message, TableStateMsg):
            for seat in message.seats:
                if seat.account_id == self.account_id:
                    self.stack = seat.stack
            if message.your_turn is not None:
                self._later(self._act(message.your_turn))
        elif isinstance(message, HandFinishedMsg):
            self.hands_finished += 1
        elif isinstance(message, ErrorMsg):
            self.errors.append(message)
            del self.errors[:-20]
            log.debug("%r: error %s: %s", self, message.code, message.message)

    def _later(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _say(self, message: dict[str, Any]) -> None:
        await self.room.handle_raw(self, json.dumps(message))

    async def _pause(self) -> None:
        low, high = self.delay
        if high > 0:
            await asyncio.sleep(self.rng.uniform(low, high))
        else:
            await asyncio.sleep(0)

    async def _act(self, turn: YourTurnMsg) -> None:
        await self._pause()
        if self.closed or not turn.options:
            return
        actor = self.room.actors.get(self.table_id)
        if actor is not None:
            state = actor.seat_of(self.account_id)
            if state is not None:
                self.stack = state.stack
        option = choose(turn.options, self.rng, self.stack)
        message: dict[str, Any] = {
            "type": "action",
            "table_id": turn.table_id,
            "hand_id": turn.hand_id,
            "kind": option.kind,
            "version": turn.version,
        }
        if option.amount is not None:
            message["amount"] = option.amount
        await self._say(message)

    # -- staying seated ------------------------------------------------------------------------

    def start(self) -> None:
        self._loop_task = asyncio.get_running_loop().create_task(self._keep_seated(), name=f"bot-{self.name}")

    def stop(self) -> None:
        self.closed = True
        if self._loop_task is not None:
            self._loop_task.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def _keep_seated(self) -> None:
        await self._say({"type": "join_table", "table_id": self.table_id})
        while not self.closed:
            with contextlib.suppress(Exception):
                await self._check_seat()
            await asyncio.sleep(1.0 + self.rng.random())

    async def _check_seat(self) -> None:
        actor = self.room.actors.get(self.table_id)
        if actor is None or actor.stopped:
            return
        state = actor.seat_of(self.account_id)
        if state is not None:
            if state.sitting_out and not state.leaving:
                await self._say({"type": "sit_in", "table_id": self.table_id})
            return
        cfg = actor.config
        free = [s for s in range(1, cfg.max_seats + 1) if s not in actor.seats]
        people_seats = 1  # leave a seat for a person
        if len(free) <= people_seats:
            return
        store = self.room.store
        account = await store.account(self.account_id)
        if account.bankroll < cfg.min_buy_in:
            with contextlib.suppress(StoreError):
                await store.daily_topup(self.account_id)
            account = await store.account(self.account_id)
            if account.bankroll < cfg.min_buy_in:
                return
        buy_in = min(cfg.max_buy_in, max(cfg.min_buy_in, account.bankroll // 3))
        await self._say(
            {"type": "sit", "table_id": self.table_id, "seat": self.rng.choice(free), "buy_in": buy_in}
        )


async def bot_account(room: Room, name: str) -> tuple[int, str]:
    """The bot's account, created if missing (:meth:`Store.create_bot_account`: marked a bot, no
    password, so nobody can log in as a bot and no argon2 hashing is spent on it)."""
    account = await room.store.create_bot_account(name)
    return account.id, account.name


async def _bot_accounts(room: Room, table_id: int, count: int) -> list[tuple[int, str]]:
    """``count`` bot accounts for a table: ``bot_t{table}_{n}`` for n = 1, 2, ... A name that a
    person registered before the bots' namespace was reserved is never taken for a bot: that
    number is skipped (with a warning), so that the table still gets ``count`` bots."""
    found: list[tuple[int, str]] = []
    index = 0
    while len(found) < count and index < count + _MAX_SKIPPED_BOT_NAMES:
        index += 1
        name = f"bot_t{table_id}_{index}"
        try:
            found.append(await bot_account(room, name))
        except NameTakenError as exc:
            log.warning("no bot %s: %s", name, exc)
    return found


async def start_bots(
    room: Room, per_table: int, *, table_ids: list[int] | None = None, seed: int | None = None
) -> list[BotConnection]:
    """Seat ``per_table`` bots at each table (leaving a seat free for people)."""
    rng = random.Random(seed)
    # Accounts first (plain inserts: a bot has no password to hash), then every bot starts.
    wanted: list[tuple[int, tuple[int, str]]] = []
    for table_id, actor in sorted(room.actors.items()):
        if table_ids is not None and table_id not in table_ids:
            continue
        count = min(per_table, actor.config.max_seats - 1)
        wanted += [(table_id, account) for account in await _bot_accounts(room, table_id, count)]
    bots: list[BotConnection] = []
    for table_id, (account_id, name) in wanted:
        bot = BotConnection(
            room,
            account_id,
            name,
            table_id,
            delay=room.settings.bot_delay,
            seed=None if seed is None else rng.randrange(2**32),
        )
        room.attach(bot)
        bot.start()
        bots.append(bot)
    return bots
