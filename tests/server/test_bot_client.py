"""The room's bots are clients: they know their table only from the messages they are sent and
sit down with the messages a person sends. Here a bot talks to a fake room that answers its
frames as the real one would; the fake has no tables and no store to reach into."""

from __future__ import annotations

import json
from typing import Any

from studpoker.server.bots import BotConnection
from studpoker.server.connections import Connection
from studpoker.server.protocol import (
    AckMsg,
    EventMsg,
    HandFinishedMsg,
    SeatInfo,
    TableStateMsg,
)

TABLE = 3
BOT = 40
LIMITS = {"id": TABLE, "max_seats": 4, "min_buy_in": 1000, "max_buy_in": 5000}


def seat(number: int, account_id: int, stack: int = 4000, *, sitting_out: bool = False) -> SeatInfo:
    return SeatInfo(
        seat=number,
        account_id=account_id,
        name=f"#{account_id}",
        stack=stack,
        sitting_out=sitting_out,
        connected=True,
    )


class FakeRoom:
    """Takes the bot's frames as JSON text and acknowledges those with an id (as the table does);
    a join is answered with the table's state."""

    def __init__(self, seats: list[SeatInfo]) -> None:
        self.seats = seats
        self.frames: list[dict[str, Any]] = []

    async def handle_raw(self, conn: Connection, raw: str | bytes) -> None:
        frame = json.loads(raw)
        self.frames.append(frame)
        if "id" in frame:
            conn.send(AckMsg(ref=frame["id"], request=frame["type"], table_id=frame.get("table_id")))
        if frame["type"] == "join_table":
            conn.send(state(self.seats))

    def sent(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == kind]


class FakeAccounts:
    def __init__(self, bankroll: int, grant: int = 0) -> None:
        self.balance = bankroll
        self.grant = grant
        self.top_ups = 0

    async def open(self, name: str) -> tuple[int, str]:
        return BOT, name

    async def bankroll(self, account_id: int) -> int:
        return self.balance

    async def top_up(self, account_id: int) -> int:
        self.top_ups += 1
        self.balance += self.grant
        return self.grant


def state(seats: list[SeatInfo]) -> TableStateMsg:
    return TableStateMsg(
        table_id=TABLE,
        version=1,
        table=LIMITS,
        seats=seats,
        your_seat=None,
        hand_id=None,
        hand=None,
        clock=None,
    )


async def joined_bot(room: FakeRoom, accounts: FakeAccounts) -> BotConnection:
    bot = BotConnection(room, accounts, BOT, "bot_t3_1", TABLE, delay=(0.0, 0.0), seed=1)
    await room.handle_raw(bot, json.dumps({"type": "join_table", "table_id": TABLE}))
    return bot


async def test_a_bot_sits_with_a_third_of_its_bankroll_at_a_free_seat() -> None:
    room = FakeRoom([seat(1, 7)])
    bot = await joined_bot(room, FakeAccounts(bankroll=9000))
    await bot.check_seat()
    (sit,) = room.sent("sit")
    assert sit["table_id"] == TABLE and sit["seat"] in (2, 3, 4) and sit["buy_in"] == 3000
    # Acknowledged: the bot holds the seat before the paced seat list says so.
    mine = bot.my_seat()
    assert mine is not None and mine.seat == sit["seat"] and bot.stack == 3000
    await bot.check_seat()
    assert len(room.sent("sit")) == 1


async def test_a_bot_keeps_the_last_seat_for_a_person() -> None:
    room = FakeRoom([seat(1, 7), seat(2, 8), seat(3, 9)])
    bot = await joined_bot(room, FakeAccounts(bankroll=9000))
    await bot.check_seat()
    assert room.sent("sit") == []


async def test_a_broke_bot_takes_its_top_up_first() -> None:
    room = FakeRoom([])
    accounts = FakeAccounts(bankroll=500, grant=9500)
    bot = await joined_bot(room, accounts)
    await bot.check_seat()
    assert accounts.top_ups == 1
    assert [s["buy_in"] for s in room.sent("sit")] == [3333]


async def test_a_broke_bot_without_a_top_up_stays_out() -> None:
    room = FakeRoom([])
    bot = await joined_bot(room, FakeAccounts(bankroll=500))
    await bot.check_seat()
    assert room.sent("sit") == []


async def test_a_bot_sitting_out_sits_in_again() -> None:
    room = FakeRoom([seat(2, BOT, sitting_out=True)])
    bot = await joined_bot(room, FakeAccounts(bankroll=9000))
    await bot.check_seat()
    assert [(f["type"], f.get("table_id")) for f in room.frames[1:]] == [("sit_in", TABLE)]


async def test_a_bot_follows_its_stack_from_the_seat_lists_and_results() -> None:
    room = FakeRoom([seat(2, BOT, stack=4000)])
    bot = await joined_bot(room, FakeAccounts(bankroll=0))
    assert bot.stack == 4000
    bot.send(
        HandFinishedMsg(
            table_id=TABLE, version=5, hand_id="h1", result={"final_stacks": {"2": 1234}}, commitment="c"
        )
    )
    assert bot.stack == 1234
    seats = [seat(2, BOT, stack=999).model_dump(), seat(4, 8).model_dump()]
    bot.send(EventMsg(table_id=TABLE, version=6, hand_id=None, event={"kind": "seats", "seats": seats}))
    assert bot.stack == 999 and set(bot.seats) == {2, 4}
    # Busted and cashed out: the next seat list has no seat of his.
    bot.send(EventMsg(table_id=TABLE, version=7, hand_id=None, event={"kind": "seats", "seats": seats[1:]}))
    assert bot.my_seat() is None
