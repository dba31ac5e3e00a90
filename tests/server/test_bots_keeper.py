"""The room's bots stay at their tables (issue 12, item 3): a bot tops up between hands, buys in
again when busted, gives up when it cannot, and gives its seat to a person waiting at a full
table; the keeper replaces the bots that gave up. Here the bots talk to a fake room that answers
their frames as the real one would (tests/server/test_bot_client.py); tests/server/
test_bots_room.py plays them in a real room."""

from __future__ import annotations

import asyncio
from typing import Any

from studpoker.server.bots import BotConnection, BotKeeper
from studpoker.server.connections import Connection
from studpoker.server.protocol import HandFinishedMsg, HandStartedMsg, SeatInfo, WaitListMsg
from studpoker.server.settings import Settings
from tests.server.test_bot_client import BOT, LIMITS, TABLE, FakeAccounts, FakeRoom, joined_bot


def seat(
    number: int, account_id: int, stack: int = 4000, *, bot: bool = False, leaving: bool = False
) -> SeatInfo:
    return SeatInfo(
        seat=number,
        account_id=account_id,
        name=f"#{account_id}",
        stack=stack,
        sitting_out=False,
        connected=True,
        is_bot=bot,
        bot=bot,
        leaving=leaving,
    )


def finished(stack: int, seat_number: int) -> HandFinishedMsg:
    return HandFinishedMsg(
        table_id=TABLE,
        version=9,
        hand_id="h1",
        result={"final_stacks": {str(seat_number): stack}},
        commitment="c",
    )


async def settle() -> None:
    """Let the checks the bot scheduled for itself run."""
    for _ in range(5):
        await asyncio.sleep(0)


async def seated_bot(accounts: FakeAccounts) -> tuple[FakeRoom, BotConnection, int]:
    """A bot that sat down (a third of its bankroll) at the fake table; its seat number."""
    room = FakeRoom([seat(1, 7)])
    bot = await joined_bot(room, accounts)
    await bot.check_seat()
    mine = bot.my_seat()
    assert mine is not None
    return room, bot, mine.seat


async def test_a_bot_down_to_less_than_half_its_buy_in_tops_up_between_hands() -> None:
    room, bot, number = await seated_bot(FakeAccounts(bankroll=9000))
    assert bot.target == 3000
    bot.send(
        HandStartedMsg(
            table_id=TABLE,
            version=3,
            hand_id="h1",
            game="7S",
            commitment="c",
            seats=[1, number],
            deck_root="c",
            seed_commitment="s",
            client_seeds=[],
        )
    )
    assert bot.in_hand
    await bot.check_seat()
    assert room.sent("add_chips") == []  # not during a hand
    bot.send(finished(1000, number))
    await settle()
    assert [f["amount"] for f in room.sent("add_chips")] == [2000]
    assert bot.stack == 3000
    await bot.check_seat()  # topped up already (the seat list saying so may come later)
    assert len(room.sent("add_chips")) == 1


async def test_a_bot_with_half_its_buy_in_or_a_short_bankroll_adds_what_it_can() -> None:
    accounts = FakeAccounts(bankroll=9000)
    room, bot, number = await seated_bot(accounts)
    bot.send(finished(1500, number))
    await settle()
    assert room.sent("add_chips") == []  # half the buy-in left: it plays on
    accounts.balance = 700
    bot.send(finished(1400, number))
    await settle()
    assert [f["amount"] for f in room.sent("add_chips")] == [700]


async def test_a_bot_that_cannot_buy_in_gives_up() -> None:
    room = FakeRoom([seat(1, 7)])
    accounts = FakeAccounts(bankroll=900, grant=0)
    bot = await joined_bot(room, accounts)
    await bot.check_seat()
    assert accounts.top_ups == 1  # its daily top-up first (none was due)
    assert room.sent("sit") == []
    assert bot.broke and bot.gone


async def test_a_bot_gives_its_seat_to_a_person_waiting_at_a_full_table() -> None:
    full = [seat(1, 7), seat(2, 50, bot=True), seat(3, BOT, bot=True), seat(4, 8)]
    room = FakeRoom(full)
    bot = await joined_bot(room, FakeAccounts(bankroll=9000))
    await bot.check_seat()
    assert room.sent("leave_after_hand") == []  # nobody waits
    bot.send(WaitListMsg(table_id=TABLE, waiting=1))
    await bot.check_seat()
    await bot.check_seat()
    assert [f["table_id"] for f in room.sent("leave_after_hand")] == [TABLE]  # once
    # Not the bot in the highest seat, or one is leaving already, or a seat is free: it stays.
    for seats in (
        [seat(1, 7), seat(2, BOT, bot=True), seat(3, 50, bot=True), seat(4, 8)],
        [seat(1, 7), seat(2, 50, bot=True, leaving=True), seat(3, BOT, bot=True), seat(4, 8)],
        [seat(1, 7), seat(3, BOT, bot=True), seat(4, 8)],
    ):
        room = FakeRoom(seats)
        other = await joined_bot(room, FakeAccounts(bankroll=9000))
        other.send(WaitListMsg(table_id=TABLE, waiting=2))
        await other.check_seat()
        assert room.sent("leave_after_hand") == [], seats


async def test_a_bot_takes_no_seat_while_people_wait() -> None:
    room = FakeRoom([seat(1, 7)])
    bot = await joined_bot(room, FakeAccounts(bankroll=9000))
    bot.send(WaitListMsg(table_id=TABLE, waiting=1))
    await bot.check_seat()
    assert room.sent("sit") == []
    bot.send(WaitListMsg(table_id=TABLE, waiting=0))
    await bot.check_seat()
    assert len(room.sent("sit")) == 1


class KeeperRoom(FakeRoom):
    """The room a keeper needs: one table's lobby line, bot accounts by name, attach / detach."""

    def __init__(self, **settings: Any) -> None:
        super().__init__([])
        self.settings = Settings(bot_check_seconds=0.01, **settings)
        self.bot_accounts = NamedAccounts()
        self.attached: list[Connection] = []
        self.detached: list[Connection] = []

    def lobby_tables(self) -> list[dict[str, Any]]:
        return [LIMITS]

    def attach(self, conn: Connection) -> None:
        self.attached.append(conn)

    async def detach(self, conn: Connection) -> None:
        self.detached.append(conn)


class NamedAccounts(FakeAccounts):
    """Bot accounts by name: each made with 10000, broke ones set by the test."""

    def __init__(self) -> None:
        super().__init__(bankroll=0)
        self.ids: dict[str, int] = {}
        self.balances: dict[int, int] = {}

    async def open(self, name: str) -> tuple[int, str]:
        if name not in self.ids:
            self.ids[name] = 100 + len(self.ids)
            self.balances[self.ids[name]] = 10000
        return self.ids[name], name

    async def bankroll(self, account_id: int) -> int:
        return self.balances[account_id]

    async def top_up(self, account_id: int) -> int:
        return 0


async def test_the_keeper_replaces_a_bot_that_gave_up_by_one_that_can_buy_in() -> None:
    room = KeeperRoom()
    accounts = room.bot_accounts
    keeper = BotKeeper(room, 2, seed=1)
    try:
        first = await keeper.check()
        assert [b.name for b in first] == ["bot_t3_1", "bot_t3_2"]
        assert await keeper.check() == []  # the table has its bots
        gone = first[0]
        accounts.balances[gone.account_id] = 0
        gone.broke = gone.closed = True
        (new,) = await keeper.check()
        assert new.name == "bot_t3_3" and room.detached == [gone] and gone not in keeper.bots
        # Its top-up came: the account that gave up buys in again before any new one is opened.
        accounts.balances[gone.account_id] = 5000
        new.broke = new.closed = True
        (again,) = await keeper.check()
        assert again.account_id == gone.account_id
        assert {b.name for b in keeper.bots} == {"bot_t3_1", "bot_t3_2"}
        assert keeper.replaced == 2
    finally:
        for bot in keeper.bots:
            bot.stop()


async def test_the_keeper_skips_broke_accounts_and_stops_at_the_names_per_table() -> None:
    room = KeeperRoom(bot_accounts_per_table=3)
    accounts = room.bot_accounts
    for name in ("bot_t3_1", "bot_t3_2"):  # from an earlier run, broke
        account_id, _ = await accounts.open(name)
        accounts.balances[account_id] = 0
    keeper = BotKeeper(room, 2, seed=1)
    try:
        # One broke name a round per table: it rests, and the next round tries the next name.
        assert await keeper.check() == []
        assert [b.name for b in await keeper.check()] == []
        assert [b.name for b in await keeper.check()] == ["bot_t3_3"]
        # Three names tried: no fourth account, the table waits for a top-up.
        assert await keeper.check() == []
        assert len(accounts.ids) == 3
        accounts.balances[accounts.ids["bot_t3_1"]] = 10000
        assert [b.name for b in await keeper.check()] == ["bot_t3_1"]
    finally:
        for bot in keeper.bots:
            bot.stop()


async def test_the_keeper_runs_until_cancelled_and_leaves_a_seat_for_people() -> None:
    room = KeeperRoom()
    keeper = BotKeeper(room, 9, seed=1)  # more than the table's 4 seats
    task = asyncio.get_running_loop().create_task(keeper.run())
    try:
        for _ in range(200):
            if len(keeper.bots) == 3:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        assert len(keeper.bots) == 3  # all the seats but one
    finally:
        task.cancel()
        for bot in keeper.bots:
            bot.stop()
