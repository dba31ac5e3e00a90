"""The gateway's courier (studpoker.cluster.courier): table commands delivered at least once, in
order per table, acted on once, on the in-process bus and on real NATS alike."""

from __future__ import annotations

import asyncio

from studpoker.cluster.bus import Bus, Message
from studpoker.cluster.courier import Courier, TakenCommands
from tests.cluster.conftest import BusPair, until

SUBJECT = "table.7.cmd"


class Owner:
    """A table's owner as the worker answers: it takes each command once (by its number) and
    answers every copy, after ``delay`` s for the first ``slow`` copies."""

    def __init__(self, bus: Bus, *, delay: float = 0.0, slow: int = 0) -> None:
        self.bus = bus
        self.copies: list[bytes] = []
        self.taken: list[bytes] = []
        self.delay = delay
        self.slow = slow
        self._numbers = TakenCommands()

    async def __call__(self, message: Message) -> None:
        self.copies.append(message.payload)
        number = int(message.payload)
        if self._numbers.first_time("gateway-1", "boot", number):
            self.taken.append(message.payload)
        if len(self.copies) <= self.slow:
            await asyncio.sleep(self.delay)
        assert message.reply is not None
        await self.bus.respond(message, b"")


def courier_on(buses: BusPair, *, reply_timeout: float = 0.5, give_up_seconds: float = 10.0) -> Courier:
    return Courier(buses[0], reply_timeout=reply_timeout, retry_seconds=0.05, give_up_seconds=give_up_seconds)


async def test_a_command_sent_while_the_table_has_no_owner_reaches_the_next_owner(buses: BusPair) -> None:
    """The takeover gap: nobody subscribes to the table's commands for a while; what was sent
    then is delivered once an owner subscribes, not lost."""
    courier = courier_on(buses)
    courier.send(7, SUBJECT, b"1")
    courier.send(7, SUBJECT, b"2")
    await until(lambda: courier.retries >= 3, "the courier trying again")
    owner = Owner(buses[1])
    await buses[1].subscribe(SUBJECT, owner)
    await until(lambda: courier.waiting == 0, "both commands taken")
    assert owner.taken == [b"1", b"2"]
    assert courier.undelivered == 0
    await courier.close()


async def test_the_commands_of_a_table_keep_their_order_and_a_late_answer_acts_once(buses: BusPair) -> None:
    """An owner that answers late (stopped, starved): the command is sent again and arrives
    twice, but is taken once, and no later command overtakes it."""
    owner = Owner(buses[1], delay=0.4, slow=1)
    await buses[1].subscribe(SUBJECT, owner)
    courier = courier_on(buses, reply_timeout=0.1)
    for number in range(1, 6):
        courier.send(7, SUBJECT, str(number).encode())
    await until(lambda: courier.waiting == 0, "every command taken")
    assert owner.taken == [b"1", b"2", b"3", b"4", b"5"]
    assert owner.copies.count(b"1") >= 2, owner.copies  # the first was sent again
    assert courier.retries >= 1
    await courier.close()


async def test_other_tables_are_not_held_up_by_one_without_an_owner(buses: BusPair) -> None:
    owner = Owner(buses[1])
    await buses[1].subscribe("table.8.cmd", owner)
    courier = courier_on(buses)
    courier.send(7, SUBJECT, b"1")  # no owner for table 7
    courier.send(8, "table.8.cmd", b"2")
    await until(lambda: owner.taken == [b"2"], "table 8's command")
    assert courier.waiting == 1
    await courier.close(timeout=0.1)


async def test_a_command_no_owner_takes_in_time_is_dropped_and_its_sender_told(buses: BusPair) -> None:
    courier = courier_on(buses, give_up_seconds=0.3)
    told: list[str] = []
    courier.send(7, SUBJECT, b"1", on_undelivered=lambda: told.append("1"))
    courier.send(7, SUBJECT, b"2", on_undelivered=lambda: told.append("2"))
    await until(lambda: told == ["1", "2"], "both senders told")
    assert courier.undelivered == 2 and courier.waiting == 0
    await courier.close()


def test_taken_commands_count_per_gateway_run() -> None:
    taken = TakenCommands()
    assert taken.first_time("gateway-1", "a", 1)
    assert not taken.first_time("gateway-1", "a", 1)  # sent again
    assert taken.first_time("gateway-2", "b", 1)  # another gateway numbers its own
    assert taken.first_time("gateway-1", "c", 1)  # the gateway started again: a new run
    assert taken.first_time("gateway-1", "a", 5) and not taken.first_time("gateway-1", "a", 3)
    assert taken.first_time("gateway-1", "a", 0) and taken.first_time("gateway-1", "a", 0)  # unnumbered
