"""The message bus between the room's processes (issue 15): one small interface, two buses.

- :class:`InProcessBus`: asyncio queues in one process, no broker (the embedded default);
- :class:`~studpoker.cluster.nats_bus.NatsBus`: core NATS through nats-py (no JetStream),
  reconnecting on its own.

Both keep the same contract, which tests/cluster/test_bus.py runs against each:

- subjects are dot-separated tokens; a subscription may use ``*`` (exactly one token) and ``>``
  (one or more tokens, last only), as NATS has them; a bad subject is a ValueError and changes
  nothing;
- once :meth:`Bus.subscribe` has returned, every message published afterwards on a matching
  subject reaches the handler, in publish order (per publisher), one at a time: a handler is
  awaited before the next message is handed to it; its exceptions are logged, never propagated;
- a subscription in a ``queue`` group shares the messages with the group's other members: each
  message reaches one of them;
- delivery is at most once: a subscriber more than ``pending_limit`` messages behind loses the
  newest (NATS calls it a slow consumer), logged;
- :meth:`Bus.request` waits for the first reply or raises :class:`BusTimeoutError`, or
  :class:`NoRespondersError` at once when no one subscribes to the subject;
- after :meth:`Bus.close`, publishing raises :class:`BusClosedError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, Self

log = logging.getLogger(__name__)

# nats-server's default max_payload, kept by the in-process bus too so that both refuse alike.
DEFAULT_MAX_PAYLOAD: Final = 1024 * 1024
# nats-py's default per-subscription backlog before it drops messages as a slow consumer.
DEFAULT_PENDING_LIMIT: Final = 512 * 1024


class BusError(Exception):
    """Something the bus could not do."""


class BusClosedError(BusError):
    """The bus was closed."""


class BusPermissionError(BusError):
    """The broker refused this user the subject (NATS: a permissions violation)."""


class BusTimeoutError(BusError, TimeoutError):
    """No reply (or no answer from the broker) in time."""


class NoRespondersError(BusError):
    """A request to a subject that no one subscribes to."""


@dataclass(frozen=True, slots=True)
class Message:
    subject: str
    payload: bytes
    # Where a request's answer goes (Bus.respond); None for a plain publish.
    reply: str | None = None


Handler = Callable[[Message], Awaitable[None]]


def _tokens(subject: str) -> list[str]:
    if not isinstance(subject, str) or not subject:
        raise ValueError(f"bad subject {subject!r}: empty")
    tokens = subject.split(".")
    if any(not token or any(ch.isspace() for ch in token) for token in tokens):
        raise ValueError(f"bad subject {subject!r}: empty token or white space")
    return tokens


def check_subject(subject: str) -> str:
    """A subject to publish on: tokens, no wildcard."""
    if any(token in ("*", ">") or "*" in token or ">" in token for token in _tokens(subject)):
        raise ValueError(f"bad subject {subject!r}: wildcards are for subscriptions only")
    return subject


def check_pattern(pattern: str) -> str:
    """A subject to subscribe to: ``*`` and ``>`` only as whole tokens, ``>`` only last."""
    tokens = _tokens(pattern)
    for index, token in enumerate(tokens):
        if token not in ("*", ">") and ("*" in token or ">" in token):
            raise ValueError(f"bad subject {pattern!r}: a wildcard must be a whole token")
        if token == ">" and index != len(tokens) - 1:
            raise ValueError(f"bad subject {pattern!r}: '>' must be the last token")
    return pattern


def matches(pattern: str, subject: str) -> bool:
    """Whether ``subject`` (no wildcards) falls under the subscription ``pattern``."""
    wanted, given = pattern.split("."), subject.split(".")
    for index, token in enumerate(wanted):
        if token == ">":
            return len(given) > index
        if index >= len(given) or (token != "*" and token != given[index]):
            return False
    return len(given) == len(wanted)


def check_payload(payload: bytes, limit: int) -> None:
    if not isinstance(payload, bytes):
        raise TypeError(f"a payload is bytes, not {type(payload).__name__}")
    if len(payload) > limit:
        raise ValueError(f"payload of {len(payload)} bytes is over the bus's limit of {limit}")


def check_queue(queue: str | None) -> None:
    if queue is not None and (not queue or any(ch.isspace() or ch in ".*>" for ch in queue)):
        raise ValueError(f"bad queue group {queue!r}")


def check_timeout(timeout: float) -> None:
    if not timeout > 0:
        raise ValueError(f"a time-out is positive, not {timeout!r}")


class Subscription(ABC):
    """One subscription; :meth:`unsubscribe` stops its deliveries (pending ones are dropped)."""

    def __init__(self, subject: str, queue: str | None) -> None:
        self.subject = subject
        self.queue = queue

    @abstractmethod
    async def unsubscribe(self) -> None: ...


class Bus(ABC):
    """Publish, subscribe, request, close: what the gateways and workers exchange."""

    @abstractmethod
    async def publish(self, subject: str, payload: bytes) -> None: ...

    @abstractmethod
    async def subscribe(
        self, subject: str, handler: Handler, *, queue: str | None = None
    ) -> Subscription: ...

    @abstractmethod
    async def request(self, subject: str, payload: bytes, *, timeout: float) -> Message: ...

    @abstractmethod
    async def flush(self, timeout: float = 5.0) -> None:
        """Return once everything published so far has left this process (reached the broker)."""

    @abstractmethod
    async def close(self) -> None: ...

    @property
    @abstractmethod
    def is_connected(self) -> bool: ...

    async def respond(self, message: Message, payload: bytes) -> None:
        """Answer a request."""
        if message.reply is None:
            raise ValueError(f"the message on {message.subject!r} is no request: it has no reply subject")
        await self.publish(message.reply, payload)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def deliver(handler: Handler, message: Message) -> None:
    try:
        await handler(message)
    except Exception:
        log.exception("bus handler for %r failed", message.subject)


class _LocalSubscription(Subscription):
    def __init__(
        self, bus: InProcessBus, subject: str, handler: Handler, queue: str | None, limit: int
    ) -> None:
        super().__init__(subject, queue)
        self._bus = bus
        self._handler = handler
        self._limit = limit
        self._pending: asyncio.Queue[Message] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def offer(self, message: Message) -> None:
        if self._pending.qsize() >= self._limit:
            log.warning("slow consumer on %r: message on %r dropped", self.subject, message.subject)
            return
        self._pending.put_nowait(message)

    async def _run(self) -> None:
        while True:
            await deliver(self._handler, await self._pending.get())

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def unsubscribe(self) -> None:
        self._bus._remove(self)
        await self.stop()


class InProcessBus(Bus):
    """The bus of one process: each subscription has its queue and a task feeding its handler."""

    def __init__(
        self, *, max_payload: int = DEFAULT_MAX_PAYLOAD, pending_limit: int = DEFAULT_PENDING_LIMIT
    ) -> None:
        self.max_payload = max_payload
        self._pending_limit = pending_limit
        # Literal subjects by name (most: one per table), wildcard ones scanned.
        self._exact: dict[str, list[_LocalSubscription]] = {}
        self._wild: list[_LocalSubscription] = []
        self._turns: dict[str, itertools.count[int]] = {}
        self._closed = False

    @property
    def is_connected(self) -> bool:
        return not self._closed

    def _matching(self, subject: str) -> list[_LocalSubscription]:
        found = list(self._exact.get(subject, ()))
        found.extend(sub for sub in self._wild if matches(sub.subject, subject))
        return found

    def _route(self, subject: str, payload: bytes, reply: str | None) -> int:
        message = Message(subject, payload, reply)
        groups: dict[str, list[_LocalSubscription]] = {}
        targets = 0
        for sub in self._matching(subject):
            if sub.queue is None:
                sub.offer(message)
                targets += 1
            else:
                groups.setdefault(sub.queue, []).append(sub)
        for queue, members in groups.items():
            turn = next(self._turns.setdefault(queue, itertools.count()))
            members[turn % len(members)].offer(message)
            targets += 1
        return targets

    async def publish(self, subject: str, payload: bytes) -> None:
        if self._closed:
            raise BusClosedError("the bus is closed")
        check_subject(subject)
        check_payload(payload, self.max_payload)
        self._route(subject, payload, None)

    async def subscribe(self, subject: str, handler: Handler, *, queue: str | None = None) -> Subscription:
        if self._closed:
            raise BusClosedError("the bus is closed")
        check_pattern(subject)
        check_queue(queue)
        sub = _LocalSubscription(self, subject, handler, queue, self._pending_limit)
        if "*" in subject or ">" in subject:
            self._wild.append(sub)
        else:
            self._exact.setdefault(subject, []).append(sub)
        return sub

    def _remove(self, sub: _LocalSubscription) -> None:
        if sub in self._wild:
            self._wild.remove(sub)
        subs = self._exact.get(sub.subject, [])
        if sub in subs:
            subs.remove(sub)
            if not subs:
                del self._exact[sub.subject]

    async def request(self, subject: str, payload: bytes, *, timeout: float) -> Message:
        if self._closed:
            raise BusClosedError("the bus is closed")
        check_subject(subject)
        check_payload(payload, self.max_payload)
        check_timeout(timeout)
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()

        async def on_reply(message: Message) -> None:
            if not answer.done():
                answer.set_result(message)

        inbox = await self.subscribe(f"_INBOX.{uuid.uuid4().hex}", on_reply)
        try:
            if self._route(subject, payload, inbox.subject) == 0:
                raise NoRespondersError(f"no one subscribes to {subject!r}")
            try:
                return await asyncio.wait_for(answer, timeout)
            except TimeoutError:
                raise BusTimeoutError(f"no reply on {subject!r} within {timeout} s") from None
        finally:
            await inbox.unsubscribe()

    async def flush(self, timeout: float = 5.0) -> None:
        # Publishing hands each message to its subscribers' queues at once: nothing is in flight.
        if self._closed:
            raise BusClosedError("the bus is closed")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        subs = [sub for group in self._exact.values() for sub in group] + self._wild
        self._exact, self._wild = {}, []
        for sub in subs:
            await sub.stop()
