"""The NATS bus against a real nats-server: it comes back after the server restarts, and each
gateway's user gets its own frames only (issue 15: cards cross the broker)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import nats
import nats.errors
import pytest
from nats.aio.msg import Msg

from studpoker.cluster import services, subjects
from studpoker.cluster.bus import BusError, BusPermissionError, Message
from studpoker.cluster.nats_bus import NatsBus
from studpoker.cluster.nats_config import NatsCredentials, NatsFiles, write_nats_config
from tests.cluster.conftest import start_open_nats, until
from tests.cluster.test_bus import Inbox


async def test_publishing_after_nats_restarts_reaches_the_subscriber(
    nats_binary: Path, tmp_path: Path
) -> None:
    server = start_open_nats(tmp_path)
    publisher = await NatsBus.connect(server.url, name="worker")
    subscriber = await NatsBus.connect(server.url, name="gateway")
    try:
        inbox = Inbox()
        await subscriber.subscribe(subjects.gateway_out("1"), inbox)
        await publisher.publish(subjects.gateway_out("1"), b"before")
        await until(lambda: inbox.payloads == [b"before"], "the message before the restart")

        server.stop()
        server = services.start_nats(tmp_path, server.config, port=server.port)
        await until(
            lambda: all(bus.reconnections == 1 and bus.is_connected for bus in (publisher, subscriber)),
            "both buses to reconnect",
        )
        await subscriber.flush()  # its renewed subscription is at the server
        await publisher.publish(subjects.gateway_out("1"), b"after")
        await until(lambda: inbox.payloads == [b"before", b"after"], "the message after the restart")
    finally:
        await publisher.close()
        await subscriber.close()
        server.stop()


async def test_connecting_to_no_server_says_so(tmp_path: Path) -> None:
    port = services.free_port()
    with pytest.raises(BusError, match=f"cannot connect to NATS at nats://127.0.0.1:{port}"):
        await NatsBus.connect(f"nats://127.0.0.1:{port}", first_connect_timeout=1.0)


@dataclass
class SecuredNats:
    server: services.NatsService
    files: NatsFiles

    def gateway(self, name: str) -> NatsCredentials:
        return NatsCredentials.read(self.files.gateways[name])

    def worker(self, name: str) -> NatsCredentials:
        return NatsCredentials.read(self.files.workers[name])

    async def connect(self, credentials: NatsCredentials) -> NatsBus:
        return await NatsBus.connect(self.server.url, credentials, name=credentials.user)


@pytest.fixture
async def secured(nats_binary: Path, tmp_path: Path) -> AsyncIterator[SecuredNats]:
    files = write_nats_config(tmp_path, gateways=2, workers=1)
    server = services.start_nats(tmp_path, files.config)
    try:
        yield SecuredNats(server, files)
    finally:
        server.stop()


async def test_a_wrong_password_is_refused_at_connect(secured: SecuredNats) -> None:
    real = secured.gateway("1")
    wrong = NatsCredentials(real.user, real.password + "x", real.inbox_prefix)
    with pytest.raises(BusPermissionError, match="refused the user"):
        await NatsBus.connect(secured.server.url, wrong, first_connect_timeout=30)
    with pytest.raises(BusPermissionError):
        await NatsBus.connect(secured.server.url, None, first_connect_timeout=30)  # no user at all


async def test_gateway_one_cannot_read_gateway_twos_frames(secured: SecuredNats) -> None:
    gateway_1 = await secured.connect(secured.gateway("1"))
    gateway_2 = await secured.connect(secured.gateway("2"))
    worker = await secured.connect(secured.worker("1"))
    # A plain nats-py client with gateway 1's password, so that the server's refusal is what is
    # tested, not our bus giving up on its own.
    errors: list[str] = []

    async def on_error(error: Exception) -> None:
        errors.append(str(error))

    creds = secured.gateway("1")
    raw = await nats.connect(
        secured.server.url, user=creds.user, password=creds.password, error_cb=on_error, allow_reconnect=False
    )
    try:
        for pattern in ("gw.2.out", "gw.*.out", "gw.>", ">", "table.*.cmd"):
            with pytest.raises(BusPermissionError, match="refused gateway-1 a subscription"):
                await gateway_1.subscribe(pattern, Inbox())
        assert [subject for kind, subject in gateway_1.violations if kind == "subscription"] == [
            "gw.2.out", "gw.*.out", "gw.>", ">", "table.*.cmd"
        ]  # fmt: skip
        own_1, own_2 = Inbox(), Inbox()
        await gateway_1.subscribe("gw.1.out", own_1)
        await gateway_2.subscribe("gw.2.out", own_2)
        raw_got: list[str] = []

        async def raw_handler(msg: Msg) -> None:
            raw_got.append(msg.subject)

        await raw.subscribe("gw.1.out", cb=raw_handler)
        await raw.subscribe("gw.2.out", cb=raw_handler)  # refused after gw.1.out is in place
        await until(lambda: any('subscription to "gw.2.out"' in error for error in errors), "the refusal")

        await worker.publish("gw.2.out", b"gateway 2's hole cards")
        await worker.publish("gw.1.out", b"gateway 1's frame")
        await until(lambda: own_2.payloads == [b"gateway 2's hole cards"], "gateway 2's frame")
        # Gateway 1 gets its own frame, published after gateway 2's: anything of gateway 2's
        # it were sent would have come first.
        await until(lambda: own_1.payloads == [b"gateway 1's frame"] and raw_got == ["gw.1.out"], "its own")
    finally:
        await raw.close()
        for bus in (gateway_1, gateway_2, worker):
            await bus.close()


async def test_a_gateway_cannot_forge_frames_for_another(secured: SecuredNats) -> None:
    gateway_1 = await secured.connect(secured.gateway("1"))
    gateway_2 = await secured.connect(secured.gateway("2"))
    try:
        own_2 = Inbox()
        await gateway_2.subscribe("gw.2.out", own_2)
        await gateway_2.subscribe("room.*", own_2)
        await gateway_1.publish("gw.2.out", b"a forged frame")
        await gateway_1.publish("room.logout", b"a broadcast it may send")
        await gateway_1.flush()
        await until(lambda: own_2.payloads == [b"a broadcast it may send"], "the broadcast")
        assert ("publish", "gw.2.out") in gateway_1.violations
    finally:
        await gateway_1.close()
        await gateway_2.close()


async def test_the_roles_can_do_their_work(secured: SecuredNats) -> None:
    """Not too tight either: commands and requests reach a worker, frames, summaries and
    broadcasts reach the gateways, and the worker answers a gateway's request on its inbox."""
    gateway = await secured.connect(secured.gateway("2"))
    worker = await secured.connect(secured.worker("1"))
    try:
        commands, heard = Inbox(), Inbox()

        async def owner(message: Message) -> None:
            commands.messages.append(message)
            if message.reply is not None:
                await worker.respond(message, b"seated")

        await worker.subscribe(subjects.TABLE_COMMANDS, owner)
        await worker.subscribe(subjects.BROADCASTS, heard)
        await gateway.subscribe(subjects.LOBBY_SUMMARIES, heard)
        await gateway.subscribe(subjects.gateway_out("2"), heard)
        await gateway.publish(subjects.table_commands(9), b"fold")
        reply = await gateway.request(subjects.table_commands(9), b"sit", timeout=10)
        assert reply.payload == b"seated"
        await gateway.publish(subjects.broadcast("presence"), b"bob")
        await worker.publish(subjects.lobby_summary(9), b"summary")
        await worker.publish(subjects.gateway_out("2"), b"frame")
        await until(lambda: len(heard.messages) == 3, "the broadcast, the summary and the frame")
        assert sorted(heard.subjects) == ["gw.2.out", "lobby.table.9", "room.presence"]
        assert commands.payloads == [b"fold", b"sit"]
        assert gateway.violations == [] and worker.violations == []
    finally:
        await gateway.close()
        await worker.close()


async def test_a_gateways_reply_inbox_is_its_own(secured: SecuredNats) -> None:
    gateway_1 = await secured.connect(secured.gateway("1"))
    try:
        with pytest.raises(BusPermissionError):
            await gateway_1.subscribe(f"{secured.gateway('2').inbox_prefix}.>", Inbox())
        with pytest.raises(BusPermissionError):
            await gateway_1.subscribe("_INBOX.>", Inbox())
    finally:
        await gateway_1.close()
