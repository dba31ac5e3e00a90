"""The bus over core NATS (nats-py; no JetStream): the contract of :mod:`.bus` across processes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Sequence
from typing import Final

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg as NatsMsg
from nats.aio.subscription import Subscription as NatsSubscription

from studpoker.cluster.bus import (
    Bus,
    BusClosedError,
    BusError,
    BusPermissionError,
    BusTimeoutError,
    Handler,
    Message,
    NoRespondersError,
    Subscription,
    check_pattern,
    check_payload,
    check_queue,
    check_subject,
    check_timeout,
    deliver,
)
from studpoker.cluster.nats_config import NatsCredentials

log = logging.getLogger(__name__)

_DEFAULT_INBOX: Final = "_INBOX"
_VIOLATION = re.compile(r'permissions violation for (subscription|publish) to "([^"]+)"')


class _NatsSubscription(Subscription):
    def __init__(self, sub: NatsSubscription, subject: str, queue: str | None) -> None:
        super().__init__(subject, queue)
        self._sub = sub

    async def unsubscribe(self) -> None:
        with contextlib.suppress(nats.errors.ConnectionClosedError, nats.errors.BadSubscriptionError):
            await self._sub.unsubscribe()


class NatsBus(Bus):
    """Core NATS through nats-py. Connect with :meth:`connect`; it reconnects for ever on its own:
    its subscriptions are renewed, and what is published while it knows it is cut off waits in
    nats-py's buffer (2 MiB) for the new connection. A message in flight when the server went is
    lost: delivery is at most once, so the roles above must not count on every frame arriving.

    Publishing is fire-and-forget, as in NATS: a publish the server refuses is logged and kept in
    :attr:`violations`; a refused subscription raises :class:`BusPermissionError`.
    """

    def __init__(self, name: str = "studpoker") -> None:
        """A bus not yet connected: use :meth:`connect`."""
        self._nc = NatsClient()
        self.name = name
        self.reconnections = 0
        # (kind, subject) of the permission violations the server reported, oldest first; the
        # subject in lower case, as nats-py gives the server's error.
        self.violations: list[tuple[str, str]] = []
        self._last_error = "no answer"
        self._refused = asyncio.Event()
        self._closing = False

    @classmethod
    async def connect(
        cls,
        servers: str | Sequence[str],
        credentials: NatsCredentials | None = None,
        *,
        name: str = "studpoker",
        first_connect_timeout: float = 10.0,
        reconnect_wait: float = 0.5,
    ) -> NatsBus:
        """Connect to ``servers`` (``nats://host:port``). Once connected it never gives up; the
        first connection does, after ``first_connect_timeout`` (BusError) or at once when the server
        refuses the user (BusPermissionError), so that a wrong address or password is told."""
        check_timeout(first_connect_timeout)
        bus = cls(name)
        connecting = asyncio.get_running_loop().create_task(
            bus._nc.connect(
                servers=[servers] if isinstance(servers, str) else list(servers),
                name=name,
                user=None if credentials is None else credentials.user,
                password=None if credentials is None else credentials.password,
                inbox_prefix=_DEFAULT_INBOX if credentials is None else credentials.inbox_prefix,
                # nats-py annotates these time-outs as int; it only sleeps and waits on them.
                connect_timeout=min(first_connect_timeout, 2.0),  # type: ignore[arg-type]
                reconnect_time_wait=reconnect_wait,  # type: ignore[arg-type]
                max_reconnect_attempts=-1,
                allow_reconnect=True,
                error_cb=bus._on_error,
                disconnected_cb=bus._on_disconnected,
                reconnected_cb=bus._on_reconnected,
            )
        )
        refused = asyncio.get_running_loop().create_task(bus._refused.wait())
        try:
            await asyncio.wait(
                {connecting, refused}, timeout=first_connect_timeout, return_when="FIRST_COMPLETED"
            )
        finally:
            refused.cancel()
        if connecting.done() and connecting.exception() is None:
            return bus
        connecting.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await connecting
        bus._closing = True
        await bus._nc.close()
        if bus._refused.is_set():
            raise BusPermissionError(f"NATS at {servers} refused the user: {bus._last_error}")
        raise BusError(
            f"cannot connect to NATS at {servers} within {first_connect_timeout} s: {bus._last_error}"
        )

    async def _on_error(self, error: Exception) -> None:
        self._last_error = str(error) or type(error).__name__
        if "authorization violation" in self._last_error.lower():
            self._refused.set()
        found = _VIOLATION.search(str(error))
        if found is not None:
            self.violations.append((found.group(1), found.group(2)))
            log.warning("NATS user of %s refused: %s", self.name, error)
        else:
            log.warning("NATS error on %s: %s", self.name, error)

    async def _on_disconnected(self) -> None:
        if self._closing:
            return
        log.warning("%s lost NATS; reconnecting", self.name)

    async def _on_reconnected(self) -> None:
        self.reconnections += 1
        log.warning("%s reconnected to NATS at %s", self.name, self._nc.connected_url)

    @property
    def is_connected(self) -> bool:
        return bool(self._nc.is_connected)

    def _check_open(self) -> None:
        if self._nc.is_closed:
            raise BusClosedError("the bus is closed")

    async def publish(self, subject: str, payload: bytes) -> None:
        self._check_open()
        check_subject(subject)
        check_payload(payload, self._nc.max_payload)
        await self._nc.publish(subject, payload)

    async def subscribe(self, subject: str, handler: Handler, *, queue: str | None = None) -> Subscription:
        self._check_open()
        check_pattern(subject)
        check_queue(queue)

        async def on_message(msg: NatsMsg) -> None:
            await deliver(handler, Message(msg.subject, msg.data, msg.reply or None))

        # nats-py lowercases the server's error text, subject and all.
        refused = ("subscription", subject.lower())
        refused_before = self.violations.count(refused)
        sub = await self._nc.subscribe(subject, queue=queue or "", cb=on_message)
        # The server answers a refused SUB with -ERR before the flush's PONG, so it is known here.
        try:
            await self.flush()
        except BusTimeoutError:
            await _NatsSubscription(sub, subject, queue).unsubscribe()  # no half-made subscription
            raise
        if self.violations.count(refused) > refused_before:
            await _NatsSubscription(sub, subject, queue).unsubscribe()
            raise BusPermissionError(f"NATS refused {self.name} a subscription to {subject!r}")
        return _NatsSubscription(sub, subject, queue)

    async def request(self, subject: str, payload: bytes, *, timeout: float) -> Message:
        self._check_open()
        check_subject(subject)
        check_payload(payload, self._nc.max_payload)
        check_timeout(timeout)
        try:
            msg = await self._nc.request(subject, payload, timeout=timeout)
        except nats.errors.NoRespondersError:
            raise NoRespondersError(f"no one subscribes to {subject!r}") from None
        except nats.errors.TimeoutError:
            raise BusTimeoutError(f"no reply on {subject!r} within {timeout} s") from None
        return Message(msg.subject, msg.data, msg.reply or None)

    async def flush(self, timeout: float = 5.0) -> None:
        self._check_open()
        check_timeout(timeout)
        try:
            # nats-py 2.16 writes a flush's PING straight to the socket, ahead of the commands still
            # in its buffer (a SUB, a PUB); during the first round trip its flusher sends them, so
            # the second PING follows them and its PONG comes after the server's answer to them.
            deadline = asyncio.get_running_loop().time() + timeout
            for _ in range(2):
                left = deadline - asyncio.get_running_loop().time()
                if left <= 0:
                    raise nats.errors.TimeoutError
                await self._nc.flush(timeout=left)  # type: ignore[arg-type]  # annotated int; a float works
        except nats.errors.TimeoutError:
            raise BusTimeoutError(f"NATS did not answer a flush within {timeout} s") from None

    async def close(self) -> None:
        if self._nc.is_closed:
            return
        self._closing = True
        if self._nc.is_connected:
            with contextlib.suppress(BusError, nats.errors.Error):
                await self.flush()
        await self._nc.close()
