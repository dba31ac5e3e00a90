"""Simple bots: in-process clients that play through the same protocol as people.

A bot is a :class:`~studpoker.server.connections.Connection` whose ``send`` feeds its own
logic; it answers by writing client messages as JSON text into the room's ordinary entry point
(``Room.handle_raw``), so it goes through parsing, rate limits, dispatch and the table actor's
checks exactly as a browser does. It knows its table only from what it is sent (the table
state, the seat lists, the hands' results) and sits down with ``sit`` as a person does; its
account's bankroll and top-up come through :class:`BotAccounts`, as a person's come over REST.
It never reads a table actor or the store. It picks among the legal options it was sent by the
bots' policy (:func:`studpoker.bots.policy.choose_offered`, temper ``ROOM_BOT``): mostly check
or call, sometimes bet or raise, folding now and then, more often to big bets.

Between hands a bot tops its stack up to its buy-in (``add_chips``) when it has lost half of
it; busted, it buys in again. It never takes a table's last free seat (that one is for people),
and when the table is full and a person waits for a seat (the table's ``wait_list`` count), the
bot in the highest seat leaves after its hand (``leave_after_hand``): the seat it frees is
offered to the first person waiting. A bot that cannot buy in any more (its bankroll short of
the table's minimum and its daily top-up spent) gives up: it closes. :class:`BotKeeper` keeps
``serve --bots N`` bots at each table for as long as the room runs, replacing those that gave
up by a bot account of the table that can buy in again, or by a new one (docs/server.md "Bots").
In a cluster one gateway runs the keeper over its remote tables (docs/cluster.md "Shared state").
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
from typing import Any, Protocol

from studpoker.bots.policy import ROOM_BOT, choose_offered
from studpoker.store.errors import NameTakenError

from .connections import Connection
from .protocol import (
    AckMsg,
    ErrorMsg,
    EventMsg,
    HandFinishedMsg,
    HandStartedMsg,
    SeatInfo,
    ServerMsg,
    TableStateMsg,
    WaitListMsg,
    YourTurnMsg,
)
from .ratelimit import TokenBucket
from .settings import Settings

log = logging.getLogger(__name__)

# Seconds a bot waits for the answer to a seat command before it tries again.
ANSWER_SECONDS = 10.0
# Free seats a bot leaves at a table for people (it never sits in the last one).
PEOPLE_SEATS = 1


class BotHost(Protocol):
    """Where a bot's frames go: the room's entry point for every client."""

    async def handle_raw(self, conn: Connection, raw: str | bytes) -> None: ...


class BotAccounts(Protocol):
    """The bots' accounts, as a person's are over REST (``/api/register``, ``/api/me``,
    ``/api/topup``); the room's is ``store_adapter.StoreBotAccounts``."""

    async def open(self, name: str) -> tuple[int, str]:
        """The bot account ``name`` (id, name), made if missing; ``NameTakenError`` when the
        name is a person's."""
        ...

    async def bankroll(self, account_id: int) -> int: ...

    async def top_up(self, account_id: int) -> int:
        """The daily top-up: the amount granted (0 when none is due)."""
        ...


class BotRoom(BotHost, Protocol):
    """What keeping bots needs of the room: the tables (their lobby lines), the accounts, and
    the door every connection comes in (and goes out) by."""

    @property
    def settings(self) -> Settings: ...

    @property
    def bot_accounts(self) -> BotAccounts: ...

    def lobby_tables(self) -> list[dict[str, Any]]: ...

    def attach(self, conn: Connection) -> None: ...

    async def detach(self, conn: Connection) -> None: ...


class BotConnection(Connection):
    """One bot at one table: it knows the table only from the messages it is sent."""

    is_bot = True

    def __init__(
        self,
        host: BotHost,
        accounts: BotAccounts,
        account_id: int,
        name: str,
        table_id: int,
        *,
        delay: tuple[float, float],
        seed: int | None,
    ) -> None:
        super().__init__(account_id, name, TokenBucket(rate=200.0, burst=400.0))
        self.host = host
        self.accounts = accounts
        self.table_id = table_id
        self.delay = delay
        self.rng = random.Random(seed)
        self.stack = 0
        # The table as the last table_state gave it (None before the first), and its seats as the
        # last seat list had them (table_state, a seats event; a sit acknowledged).
        self.table: dict[str, Any] | None = None
        self.seats: dict[int, SeatInfo] = {}
        self._asked: tuple[str, asyncio.Future[ServerMsg]] | None = None
        self._asks = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self.hands_finished = 0
        self.errors: list[ErrorMsg] = []
        # People waiting for a seat at the table (its last wait_list message), whether the bot is
        # dealt into the hand being played, the buy-in it tops up to, and whether it is leaving
        # its seat for a person.
        self.waiting = 0
        self.in_hand = False
        self.target = 0
        self.giving_way = False
        # It gave up: it cannot buy in any more (the keeper replaces it).
        self.broke = False
        self._seat_lock = asyncio.Lock()

    # -- the client side of the protocol -------------------------------------------------------

    def send(self, message: ServerMsg) -> None:
        if self.closed:
            return
        if isinstance(message, YourTurnMsg):
            self._later(self._act(message))
        elif isinstance(message, TableStateMsg) and message.your_turn is not None:
            self._later(self._act(message.your_turn))
        elif isinstance(message, HandFinishedMsg):
            self.hands_finished += 1
            self._final_stack(message)
        elif isinstance(message, AckMsg | ErrorMsg):
            self._answered(message)
        if getattr(message, "table_id", None) == self.table_id:
            self._table_message(message)

    def _table_message(self, message: ServerMsg) -> None:
        """What a message of its own table tells it: the seats, the hand it is in, the people
        waiting for a seat."""
        if isinstance(message, EventMsg):
            kind = message.event.get("kind")
            if kind == "seats":
                self._seat_list([SeatInfo.model_validate(s) for s in message.event["seats"]])
            elif kind == "hand_voided":
                self.in_hand = False
        elif isinstance(message, TableStateMsg):
            self.table = message.table
            self._seat_list(message.seats)
        elif isinstance(message, HandStartedMsg):
            mine = self.my_seat()
            self.in_hand = mine is not None and mine.seat in message.seats
        elif isinstance(message, HandFinishedMsg):
            self.in_hand = False
            # Between hands: top up, or give the seat to a person waiting, before the next one.
            self._later(self.check_seat())
        elif isinstance(message, WaitListMsg):
            self.waiting = message.waiting

    def _seat_list(self, seats: list[SeatInfo]) -> None:
        self.seats = {s.seat: s for s in seats}
        mine = self.my_seat()
        if mine is not None:
            self.stack = mine.stack
        else:
            self.in_hand = self.giving_way = False

    def _final_stack(self, message: HandFinishedMsg) -> None:
        mine = self.my_seat()
        stacks = message.result.get("final_stacks")
        if message.table_id == self.table_id and mine is not None and isinstance(stacks, dict):
            stack = stacks.get(str(mine.seat))
            if isinstance(stack, int):
                self.stack = mine.stack = stack

    def _answered(self, message: AckMsg | ErrorMsg) -> None:
        if isinstance(message, ErrorMsg):
            self.errors.append(message)
            del self.errors[:-20]
            log.debug("%r: error %s: %s", self, message.code, message.message)
        if self._asked is not None and message.ref == self._asked[0]:
            future = self._asked[1]
            if not future.done():
                future.set_result(message)

    def my_seat(self) -> SeatInfo | None:
        """This bot's seat as the table last said, or None when it holds none."""
        return next((s for s in self.seats.values() if s.account_id == self.account_id), None)

    def _later(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _say(self, message: dict[str, Any]) -> None:
        await self.host.handle_raw(self, json.dumps(message))

    async def _ask(self, message: dict[str, Any]) -> ServerMsg | None:
        """Send ``message`` tagged with an id; its ack or error (None if none came in time)."""
        ref = f"bot{next(self._asks)}"
        future: asyncio.Future[ServerMsg] = asyncio.get_running_loop().create_future()
        self._asked = (ref, future)
        try:
            await self._say({**message, "id": ref})
            return await asyncio.wait_for(future, ANSWER_SECONDS)
        except TimeoutError:
            return None
        finally:
            self._asked = None

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
        option = choose_offered(turn.options, self.rng, ROOM_BOT, stack=self.stack)
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

    @property
    def gone(self) -> bool:
        """It gave up, was stopped, or its loop ended."""
        return self.closed or (self._loop_task is not None and self._loop_task.done())

    def stop(self) -> None:
        self.closed = True
        if self._loop_task is not None:
            self._loop_task.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def _keep_seated(self) -> None:
        # The table's state comes with the answer to the join (the seats, the buy-in limits).
        await self._ask({"type": "join_table", "table_id": self.table_id})
        while not self.closed:
            with contextlib.suppress(Exception):
                await self.check_seat()
            await asyncio.sleep(1.0 + self.rng.random())

    async def check_seat(self) -> None:
        """One round of staying seated (one at a time: the loop and the end of each hand ask)."""
        async with self._seat_lock:
            if not self.closed:
                await self._check_seat()

    async def _check_seat(self) -> None:
        """Seated: give the seat to a person waiting, or sit in again, or top up. Not seated,
        with a seat left for a person and nobody waiting: sit down with a third of the bankroll
        (within the buy-in limits; the daily top-up when broke), or give up when even that is
        short of the minimum."""
        table = self.table
        if table is None:
            return  # the table's state has not come yet
        mine = self.my_seat()
        if mine is not None:
            if self._gives_way(table, mine):
                self.giving_way = True
                await self._ask({"type": "leave_after_hand", "table_id": self.table_id})
            elif mine.sitting_out:
                await self._ask({"type": "sit_in", "table_id": self.table_id})
            elif not self.in_hand:
                await self._top_up(table, mine)
            return
        free = [s for s in range(1, int(table["max_seats"]) + 1) if s not in self.seats]
        if len(free) <= PEOPLE_SEATS or self.waiting:
            return
        low, high = int(table["min_buy_in"]), int(table["max_buy_in"])
        bankroll = await self._bankroll(low)
        if bankroll < low:
            log.info("%r gives up: its bankroll %s is short of the buy-in %s", self, bankroll, low)
            self.broke = True
            self.closed = True
            return
        seat, buy_in = self.rng.choice(free), min(high, max(low, bankroll // 3))
        answer = await self._ask({"type": "sit", "table_id": self.table_id, "seat": seat, "buy_in": buy_in})
        if isinstance(answer, AckMsg):
            self.target = buy_in
        if isinstance(answer, AckMsg) and self.my_seat() is None:
            # Seated: the seat list saying so may come a little later (seat lists are paced).
            self.seats[seat] = SeatInfo(
                seat=seat,
                account_id=self.account_id,
                name=self.name,
                stack=buy_in,
                sitting_out=False,
                connected=True,
                is_bot=True,
                bot=True,
            )
            self.stack = buy_in

    async def _bankroll(self, low: int) -> int:
        """The bankroll, after the daily top-up if it is short of ``low``."""
        bankroll = await self.accounts.bankroll(self.account_id)
        if bankroll < low:
            await self.accounts.top_up(self.account_id)
            bankroll = await self.accounts.bankroll(self.account_id)
        return bankroll

    def _gives_way(self, table: dict[str, Any], mine: SeatInfo) -> bool:
        """A person waits and the table is full: the bot in the highest seat leaves (after its
        hand), unless a bot is leaving already."""
        if self.giving_way or not self.waiting or len(self.seats) < int(table["max_seats"]):
            return False
        bots = [s for s in self.seats.values() if s.bot or s.is_bot]
        if any(s.leaving for s in bots):
            return False
        return max(s.seat for s in bots) == mine.seat

    async def _top_up(self, table: dict[str, Any], mine: SeatInfo) -> None:
        """Between hands, down to less than half its buy-in: chips added up to the buy-in (as far
        as the bankroll and the table's maximum allow)."""
        target = self.target or int(table["min_buy_in"])
        if mine.stack <= 0 or mine.stack * 2 >= target:
            return
        room = min(target, int(table["max_buy_in"])) - mine.stack
        amount = min(room, await self.accounts.bankroll(self.account_id))
        if amount <= 0:
            return
        answer = await self._ask({"type": "add_chips", "table_id": self.table_id, "amount": amount})
        if isinstance(answer, AckMsg) and self.my_seat() is mine:
            # The seat list saying so may come a little later: no second top-up meanwhile.
            mine.stack += amount
            self.stack = mine.stack


class BotKeeper:
    """``per_table`` bots at each of ``table_ids`` (every table: None) for as long as it runs
    (``serve --bots N``; at most all the seats but one): each round (``bot_check_seconds``) the
    bots that gave up are detached and replaced. A replacement is a bot account of the table
    that can buy in again (its daily top-up came), else the next new one, ``bot_t{table}_{n}``,
    opened with the starting grant: at most ``bot_accounts_per_table`` names per table over the
    room's life. A name a person registered (from before the bots' namespace was reserved) is
    skipped. ``bots`` is the room's list of the bots running (the room stops them)."""

    def __init__(
        self,
        room: BotRoom,
        per_table: int,
        *,
        table_ids: list[int] | None = None,
        bots: list[BotConnection] | None = None,
        seed: int | None = None,
    ) -> None:
        self.room = room
        self.per_table = per_table
        self.table_ids = table_ids
        self.bots = [] if bots is None else bots
        self.rng = random.Random(seed)
        self._seed = seed
        self._last_name: dict[int, int] = {}  # table -> the last bot number tried
        self._resting: dict[int, list[tuple[int, str]]] = {}  # table -> accounts that gave up
        self.replaced = 0

    async def run(self) -> None:
        """Keep the bots seated until cancelled (the room's stop)."""
        first = True
        while True:
            try:
                started = await self.check()
                if first:
                    tables = len({bot.table_id for bot in started})
                    log.info("%s bots playing at %s tables", len(started), tables)
                first = False
            except Exception:
                log.exception("the bots could not be kept")
            await asyncio.sleep(max(0.05, self.room.settings.bot_check_seconds))

    async def check(self) -> list[BotConnection]:
        """One round: the bots gone are detached, the tables short of bots get new ones (which
        are returned)."""
        started: list[BotConnection] = []
        for line in self.room.lobby_tables():
            table_id = int(line["id"])
            if self.table_ids is not None and table_id not in self.table_ids:
                continue
            here = [bot for bot in self.bots if bot.table_id == table_id]
            for bot in here:
                if bot.gone:
                    await self._retire(bot)
            missing = min(self.per_table, int(line["max_seats"]) - PEOPLE_SEATS) - sum(
                1 for bot in here if not bot.gone
            )
            for _ in range(missing):
                account = await self._account(table_id, int(line["min_buy_in"]))
                if account is None:
                    break
                started.append(self._start(table_id, account))
        return started

    async def _retire(self, bot: BotConnection) -> None:
        self.bots.remove(bot)
        bot.stop()
        await self.room.detach(bot)
        if bot.broke:
            self._resting.setdefault(bot.table_id, []).append((bot.account_id, bot.name))
        self.replaced += 1

    async def _account(self, table_id: int, low: int) -> tuple[int, str] | None:
        """A bot account for the table that can buy in (None: none this round)."""
        accounts = self.room.bot_accounts
        resting = self._resting.get(table_id, [])
        for account in list(resting):
            if await _can_buy_in(accounts, account[0], low):
                resting.remove(account)
                return account
        limit = self.room.settings.bot_accounts_per_table
        while self._last_name.get(table_id, 0) < limit:
            index = self._last_name[table_id] = self._last_name.get(table_id, 0) + 1
            name = f"bot_t{table_id}_{index}"
            try:
                account = await accounts.open(name)
            except NameTakenError as exc:
                log.warning("no bot %s: %s", name, exc)
                continue
            if await _can_buy_in(accounts, account[0], low):
                return account
            # Broke from an earlier run: it rests until a top-up; the next name next round.
            resting.append(account)
            self._resting[table_id] = resting
            return None
        return None

    def _start(self, table_id: int, account: tuple[int, str]) -> BotConnection:
        account_id, name = account
        bot = BotConnection(
            self.room,
            self.room.bot_accounts,
            account_id,
            name,
            table_id,
            delay=self.room.settings.bot_delay,
            seed=None if self._seed is None else self.rng.randrange(2**32),
        )
        self.room.attach(bot)
        bot.start()
        self.bots.append(bot)
        return bot


async def _can_buy_in(accounts: BotAccounts, account_id: int, low: int) -> bool:
    """Whether the account's bankroll (after its daily top-up, if due) covers ``low``."""
    if await accounts.bankroll(account_id) >= low:
        return True
    await accounts.top_up(account_id)
    return await accounts.bankroll(account_id) >= low


async def start_bots(
    room: BotRoom, per_table: int, *, table_ids: list[int] | None = None, seed: int | None = None
) -> list[BotConnection]:
    """Seat ``per_table`` bots at each table (leaving a seat free for people), once: each
    connects to the room as a client, joins its table and sits down with the messages a person
    sends (:class:`BotKeeper` goes on replacing those that give up)."""
    return await BotKeeper(room, per_table, table_ids=table_ids, seed=seed).check()
