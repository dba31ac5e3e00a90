"""The bus contract (studpoker.cluster.bus), run on the in-process bus and on real NATS alike.

A message that must not arrive is checked after a later one that must: each subscription gets
one publisher's messages in order, so once the later one is in, the earlier one would be too."""

from __future__ import annotations

import asyncio

import pytest

from studpoker.cluster.bus import (
    DEFAULT_MAX_PAYLOAD,
    BusClosedError,
    BusTimeoutError,
    InProcessBus,
    Message,
    NoRespondersError,
)
from tests.cluster.conftest import BusPair, until


class Inbox:
    """A handler that keeps what it got."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def __call__(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def subjects(self) -> list[str]:
        return [message.subject for message in self.messages]

    @property
    def payloads(self) -> list[bytes]:
        return [message.payload for message in self.messages]


async def test_a_published_message_reaches_the_subscriber_whole(buses: BusPair) -> None:
    publisher, subscriber = buses
    inbox = Inbox()
    await subscriber.subscribe("gw.1.out", inbox)
    payload = bytes(range(256)) * 4  # any bytes, NULs and all
    await publisher.publish("gw.1.out", payload)
    await until(lambda: len(inbox.messages) == 1, "the message")
    assert inbox.messages[0] == Message("gw.1.out", payload, None)


async def test_star_matches_one_token_and_greater_than_one_or_more(buses: BusPair) -> None:
    publisher, subscriber = buses
    star, rest, done = Inbox(), Inbox(), Inbox()
    await subscriber.subscribe("table.*.cmd", star)
    await subscriber.subscribe("lobby.>", rest)
    await subscriber.subscribe("done", done)
    for subject in ("table.1.cmd", "table.1.2.cmd", "table.cmd", "table.7.cmd.x", "table.22.cmd"):
        await publisher.publish(subject, b"")
    for subject in ("lobby", "lobby.table.3", "lobby.x", "lobbyist.x"):
        await publisher.publish(subject, b"")
    await publisher.publish("done", b"")
    await until(lambda: len(done.messages) == 1, "the last message")
    await until(lambda: len(star.messages) >= 2 and len(rest.messages) >= 2, "the matching messages")
    assert star.subjects == ["table.1.cmd", "table.22.cmd"]
    assert rest.subjects == ["lobby.table.3", "lobby.x"]


async def test_messages_come_in_order_one_at_a_time(buses: BusPair) -> None:
    publisher, subscriber = buses
    seen: list[bytes] = []
    running = 0
    most = 0

    async def slow(message: Message) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0)  # let the bus hand over the next message if it would
        seen.append(message.payload)
        running -= 1

    await subscriber.subscribe("gw.1.out", slow)
    sent = [str(n).encode() for n in range(200)]
    for payload in sent:
        await publisher.publish("gw.1.out", payload)
    await until(lambda: len(seen) == len(sent), "every message")
    assert seen == sent
    assert most == 1


async def test_every_subscription_gets_its_copy(buses: BusPair) -> None:
    publisher, subscriber = buses
    first, second = Inbox(), Inbox()
    await subscriber.subscribe("room.logout", first)
    await subscriber.subscribe("room.*", second)
    await publisher.publish("room.logout", b"alice")
    await until(lambda: first.payloads == [b"alice"] and second.payloads == [b"alice"], "both copies")


async def test_unsubscribe_stops_the_deliveries(buses: BusPair) -> None:
    publisher, subscriber = buses
    gone, kept = Inbox(), Inbox()
    subscription = await subscriber.subscribe("gw.1.out", gone)
    await subscriber.subscribe("gw.2.out", kept)
    await publisher.publish("gw.1.out", b"before")
    await until(lambda: gone.payloads == [b"before"], "the first message")
    await subscription.unsubscribe()
    await subscriber.flush()  # the broker has the UNSUB before the next publish
    await publisher.publish("gw.1.out", b"after")
    await publisher.publish("gw.2.out", b"later")
    await until(lambda: kept.payloads == [b"later"], "the later message")
    assert gone.payloads == [b"before"]
    await subscription.unsubscribe()  # twice is harmless


async def test_a_failing_handler_does_not_stop_its_subscription(buses: BusPair) -> None:
    publisher, subscriber = buses
    good: list[bytes] = []

    async def fussy(message: Message) -> None:
        if message.payload == b"bad":
            raise RuntimeError("a handler bug")
        good.append(message.payload)

    await subscriber.subscribe("table.1.cmd", fussy)
    for payload in (b"bad", b"one", b"bad", b"two"):
        await publisher.publish("table.1.cmd", payload)
    await until(lambda: good == [b"one", b"two"], "the good messages")


async def test_a_queue_group_shares_the_messages(buses: BusPair) -> None:
    publisher, subscriber = buses
    member_a, member_b, everyone = Inbox(), Inbox(), Inbox()
    await subscriber.subscribe("table.*.cmd", member_a, queue="owners")
    await subscriber.subscribe("table.*.cmd", member_b, queue="owners")
    await subscriber.subscribe("table.*.cmd", everyone)
    sent = [str(n).encode() for n in range(40)]
    for payload in sent:
        await publisher.publish("table.5.cmd", payload)
    await until(lambda: len(everyone.messages) == len(sent), "the plain subscriber's copies")
    await until(lambda: len(member_a.messages) + len(member_b.messages) >= len(sent), "the group's")
    assert sorted(member_a.payloads + member_b.payloads) == sorted(sent)


async def test_a_request_gets_the_reply(buses: BusPair) -> None:
    publisher, subscriber = buses

    async def owner(message: Message) -> None:
        await subscriber.respond(message, message.payload.upper())

    await subscriber.subscribe("table.3.cmd", owner)
    reply = await publisher.request("table.3.cmd", b"sit", timeout=10)
    assert reply.payload == b"SIT"


async def test_a_request_no_one_hears_fails_at_once(buses: BusPair) -> None:
    publisher, _subscriber = buses
    with pytest.raises(NoRespondersError, match=r"table\.404\.cmd"):
        await publisher.request("table.404.cmd", b"sit", timeout=30)


async def test_a_request_no_one_answers_times_out(buses: BusPair) -> None:
    publisher, subscriber = buses
    await subscriber.subscribe("table.3.cmd", Inbox())
    with pytest.raises(BusTimeoutError, match=r"table\.3\.cmd"):
        await publisher.request("table.3.cmd", b"sit", timeout=0.2)


async def test_respond_needs_a_request(buses: BusPair) -> None:
    publisher, _subscriber = buses
    with pytest.raises(ValueError, match="no reply subject"):
        await publisher.respond(Message("gw.1.out", b""), b"x")


@pytest.mark.parametrize("subject", ["", "a..b", ".a", "a.", "a b", "a.*", "a.>", "a*", "gw.\t.out"])
async def test_a_bad_subject_to_publish_is_refused_and_sends_nothing(buses: BusPair, subject: str) -> None:
    publisher, subscriber = buses
    everything = Inbox()
    await subscriber.subscribe(">", everything)
    with pytest.raises(ValueError, match="bad subject"):
        await publisher.publish(subject, b"x")
    await publisher.publish("done", b"")
    await until(lambda: everything.subjects == ["done"], "the last message")


@pytest.mark.parametrize("pattern", ["", "a..b", "a.>.b", "a*", "a.b>", ">.a", "a b"])
async def test_a_bad_pattern_to_subscribe_is_refused(buses: BusPair, pattern: str) -> None:
    _publisher, subscriber = buses
    with pytest.raises(ValueError, match="bad subject"):
        await subscriber.subscribe(pattern, Inbox())


async def test_a_bad_queue_group_is_refused(buses: BusPair) -> None:
    _publisher, subscriber = buses
    with pytest.raises(ValueError, match="bad queue group"):
        await subscriber.subscribe("a", Inbox(), queue="two words")


async def test_a_payload_is_bytes_and_not_too_big(buses: BusPair) -> None:
    publisher, subscriber = buses
    everything = Inbox()
    await subscriber.subscribe(">", everything)
    with pytest.raises(TypeError, match="bytes"):
        await publisher.publish("a", "text")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="over the bus's limit"):
        await publisher.publish("a", b"x" * (DEFAULT_MAX_PAYLOAD + 1))
    await publisher.publish("a", b"x" * DEFAULT_MAX_PAYLOAD)  # the limit itself is fine
    await until(lambda: len(everything.messages) == 1, "the largest message")


async def test_a_closed_bus_publishes_nothing(buses: BusPair) -> None:
    publisher, _subscriber = buses
    assert publisher.is_connected
    await publisher.close()
    assert not publisher.is_connected
    with pytest.raises(BusClosedError):
        await publisher.publish("a", b"x")
    with pytest.raises(BusClosedError):
        await publisher.subscribe("a", Inbox())
    await publisher.close()  # twice is harmless


async def test_the_in_process_bus_drops_what_a_slow_subscriber_cannot_hold() -> None:
    bus = InProcessBus(pending_limit=2)
    release = asyncio.Event()
    got: list[bytes] = []

    async def blocked(message: Message) -> None:
        await release.wait()
        got.append(message.payload)

    await bus.subscribe("a", blocked)
    for payload in (b"1", b"2", b"3", b"4"):
        await bus.publish("a", payload)  # no await yields: the handler has not started
    release.set()
    await until(lambda: len(got) == 2, "the kept messages")
    await bus.publish("a", b"5")
    await until(lambda: len(got) == 3, "a message after the backlog cleared")
    assert got == [b"1", b"2", b"5"]
    await bus.close()
