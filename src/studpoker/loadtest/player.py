"""One load player: an account at one seat of one table, over its own WebSocket.

The player authenticates with a first ``auth`` message (a token in the URL would end up in
access logs), joins its table, sits, and then plays whatever it is asked (``your_turn``) after a
think time, choosing among the legal options it was sent. The latency of an action is the time
from sending it to receiving the engine event that records it (``event`` of kind ``action`` for
the player's seat).

A player whose connection drops (server killed, network storm) reconnects with backoff, joins
its table again and sits again if the server cleared its seat; everything is bounded by the
run's deadline. Optional chaos: a flaky player drops its socket at random moments.

A session is driven by its socket's messages and three timers (the action after the think
time, the ping when nothing was sent for 20 s, the chaos drop), and the run's deadline, which
:class:`~.config.Control` announces to every player at once: no task wakes up per message or
per player, so one process drives thousands of players (:mod:`.wire`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import orjson
from websockets.exceptions import InvalidHandshake

from studpoker.bots.policy import LOAD_PLAYER, choose_offered

from .config import Control, LoadConfig, ws_base
from .report import Metrics
from .wire import LightSocket


def choose(options: Sequence[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A mostly passive policy over the legal options: check / call, sometimes bet, rarely fold
    (the bots' policy, :func:`studpoker.bots.policy.choose_offered`, temper ``LOAD_PLAYER``)."""
    return choose_offered(options, rng, LOAD_PLAYER)


class SessionFatalError(Exception):
    """The server refused the player for good (e.g. its token)."""


class LoadPlayer:
    """One account at one seat of one table."""

    def __init__(
        self,
        *,
        index: int,
        name: str,
        token: str,
        table_id: int,
        seat: int,
        buy_in: int,
        min_buy_in: int | None = None,
        config: LoadConfig,
        metrics: Metrics,
        control: Control,
        http: httpx.AsyncClient,
        rng: random.Random,
        flaky: bool = False,
    ) -> None:
        self.index = index
        self.name = name
        self.token = token
        self.table_id = table_id
        self.seat = seat
        self.buy_in = buy_in
        self.min_buy_in = buy_in if min_buy_in is None else min_buy_in
        self.config = config
        self.metrics = metrics
        self.control = control
        self.http = http
        self.rng = rng
        self.flaky = flaky
        self.account_id: int | None = None
        self.ready = asyncio.Event()
        self.seated = False
        self.gave_up = False
        self.sessions = 0
        self.ws: LightSocket | None = None
        self._turn: dict[str, Any] | None = None
        self._pending: float | None = None
        self._next_ping = 0.0
        self._sit_sent = 0.0
        self._topped_up = False
        self._sit_in_due = False
        self._welcome: asyncio.Future[dict[str, Any]] | None = None
        self._leaving = False
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._dropped_on_purpose = False
        self.hands_seen: set[str] = set()

    # -- the run ----------------------------------------------------------------------------

    async def run(self) -> None:
        backoff = 0.1
        while not self.control.over and not self.gave_up:
            try:
                await self._session()
                if self.control.over:
                    break
                self.metrics.drops += 1
            except SessionFatalError as exc:
                self.metrics.error("fatal", f"{self.name}: {exc}")
                self.gave_up = True
                break
            except (OSError, InvalidHandshake, TimeoutError):
                if self.control.stopping:
                    break
                self.metrics.drops += 1
            away = backoff
            if self.flaky and self._dropped_on_purpose:
                away = self.rng.uniform(0.0, self.config.max_away)
            else:
                backoff = min(backoff * 2, 2.0)
            left = self.control.stop_at - time.monotonic()
            if left <= 0:
                break
            await asyncio.sleep(min(away, left))

    async def _session(self) -> None:
        """One connection, from the handshake until it closes (the run's end, a drop, the
        server)."""
        self._dropped_on_purpose = False
        url = f"{ws_base(self.config.url)}/ws"
        # The gate is held until the server has checked the token (a database read): thousands
        # of handshakes at once would queue on its connection pool until they time out.
        gate = self.control.connect_gate
        await gate.acquire()
        try:
            ws = await LightSocket.open(url, self._on_message, timeout=20, max_size=2**22)
        except BaseException:
            gate.release()
            raise
        self.ws = ws
        self.sessions += 1
        if self.sessions > 1:
            self.metrics.reconnects += 1
        self._turn = None
        self._pending = None
        self.seated = False
        self._leaving = False
        self._sit_sent = 0.0  # a sit sent on the last connection may never have been answered
        self._welcome = asyncio.get_running_loop().create_future()
        ws.closed.add_done_callback(self._closed_before_welcome)
        try:
            try:
                self._send({"type": "auth", "token": self.token})
                async with asyncio.timeout(20):
                    welcome = await asyncio.shield(self._welcome)
            finally:
                gate.release()
            if welcome.get("type") != "welcome":
                raise SessionFatalError(f"no welcome: {welcome}")
            self.account_id = int(welcome["account_id"])
            self._send({"type": "join_table", "table_id": self.table_id})
            self._schedule_drop()
            self.control.listen(self.index, self._on_stop)
            await ws.closed
        finally:
            self.control.unlisten(self.index)
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()
            self.ws = None
            self._welcome = None
            if not ws.closed.done():
                ws.close()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(2):
                        await ws.closed

    def _closed_before_welcome(self, _closed: asyncio.Future[None]) -> None:
        welcome = self._welcome
        if welcome is not None and not welcome.done():
            welcome.set_exception(ConnectionError("the server closed the socket before its welcome"))

    def _at(self, name: str, when: float, callback: Callable[[], None]) -> None:
        """(Re)arm the session's timer ``name`` for ``when`` (monotonic seconds)."""
        old = self._timers.pop(name, None)
        if old is not None:
            old.cancel()
        if when != math.inf:
            delay = max(0.0, when - time.monotonic())
            self._timers[name] = asyncio.get_running_loop().call_later(delay, callback)

    def _schedule_drop(self) -> None:
        if self.flaky and self.config.drop_every > 0:
            when = time.monotonic() + self.rng.expovariate(1.0 / self.config.drop_every)
            self._at("drop", when, self._drop)

    def _drop(self) -> None:
        if self.ws is not None and self.control.stop_at - time.monotonic() > 2 * self.config.max_away:
            self._dropped_on_purpose = True
            self.ws.abort()

    def _ping(self) -> None:
        self._timers.pop("ping", None)
        if time.monotonic() >= self._next_ping:
            self._send({"type": "ping"})
        else:
            self._at("ping", self._next_ping, self._ping)

    def _on_stop(self) -> None:
        """The run is over: stand up (cashed out at once, or after the hand), and close once
        the server has acknowledged it or after 3 s."""
        ws = self.ws
        if ws is None or self._leaving:
            return
        if not self.seated:
            ws.close()
            return
        self._leaving = True
        self._clear_turn()
        self._send({"type": "stand_up", "id": "bye", "table_id": self.table_id})
        self._at("leave", time.monotonic() + 3, self._left)

    def _left(self) -> None:
        self.seated = False
        if self.ws is not None:
            self.ws.close()

    def _send(self, message: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None:
            return
        self._next_ping = time.monotonic() + 20.0
        if "ping" not in self._timers:
            self._at("ping", self._next_ping, self._ping)
        ws.send(orjson.dumps(message))

    def _want_sit(self) -> bool:
        return not self.gave_up and self._sit_sent == 0.0 and not self.control.over

    def _sit(self) -> None:
        self._sit_sent = time.monotonic()
        self._send(
            {"type": "sit", "id": "sit", "table_id": self.table_id, "seat": self.seat, "buy_in": self.buy_in}
        )

    def _act(self) -> None:
        self._timers.pop("act", None)
        turn = self._turn
        self._turn = None
        if turn is None or self._leaving:
            return
        option = choose(turn["options"], self.rng)
        self._pending = time.perf_counter()
        if self.metrics.active:
            self.metrics.actions += 1
        self._send(
            {
                "type": "action",
                "table_id": self.table_id,
                "hand_id": turn["hand_id"],
                "kind": option["kind"],
                "amount": option.get("amount"),
                "version": turn["version"],
            }
        )

    def _clear_turn(self) -> None:
        self._turn = None
        timer = self._timers.pop("act", None)
        if timer is not None:
            timer.cancel()

    def _on_message(self, data: bytes, stamp: float) -> None:
        """Every message of the session, as it arrives."""
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            self.metrics.error("client", f"{self.name}: not JSON: {data[:100]!r}")
            return
        welcome = self._welcome
        if welcome is not None and not welcome.done():
            welcome.set_result(message)
            return
        if self._leaving:
            if message.get("ref") == "bye":
                self._left()
            return
        try:
            self._handle(message, stamp)
            if self.seated is False and self._want_sit():
                self._sit()
            elif self._sit_in_due and self.seated and not self.control.stopping:
                # Timed out (sat out by the clock rule): a present player comes back.
                self._sit_in_due = False
                self.metrics.sat_in += 1
                self._send({"type": "sit_in", "id": "back", "table_id": self.table_id})
        except Exception as exc:  # a bug here must show, not stall the player silently
            self.metrics.error("client", f"{self.name}: {exc!r} on {data[:200]!r}")
            if self.ws is not None:
                self.ws.abort()

    # -- messages ---------------------------------------------------------------------------

    def _handle(self, message: dict[str, Any], stamp: float) -> None:
        metrics = self.metrics
        metrics.messages_received += 1
        kind = message.get("type")
        if kind == "event":
            self._on_event(message.get("event") or {}, stamp)
        elif kind == "your_turn":
            self._on_turn(message)
        elif kind == "table_state":
            self.seated = message.get("your_seat") is not None
            self._check_sitting_out(message.get("seats") or ())
            if self.seated:
                self._sit_sent = 0.0
                self.ready.set()
            turn = message.get("your_turn")
            if turn:
                self._on_turn(turn)
        elif kind == "hand_finished":
            self._clear_turn()
            hand_id = str(message.get("hand_id"))
            if metrics.active and hand_id not in self.hands_seen:
                metrics.hands.add(hand_id)
            self.hands_seen.add(hand_id)
        elif kind == "ack":
            if message.get("request") == "sit":
                self.seated = True
                self._sit_sent = 0.0
                self.ready.set()
        elif kind == "error":
            self._on_error(message)

    def _on_turn(self, turn: dict[str, Any]) -> None:
        if turn.get("seat") != self.seat:
            return
        self._turn = turn
        think = self.config.think_time
        if think > 0:
            j = self.config.jitter
            think = self.rng.uniform(think * (1 - j), think * (1 + j))
        self._at("act", time.monotonic() + think, self._act)

    def _on_event(self, event: dict[str, Any], stamp: float) -> None:
        metrics = self.metrics
        kind = event.get("kind") or event.get("type")
        if kind in ("action", "timeout") and event.get("seat") == self.seat:
            if kind == "action" and self._pending is not None and metrics.active:
                metrics.latencies.append(stamp - self._pending)
            if kind == "timeout":
                if metrics.active:
                    metrics.timeouts += 1
                self._clear_turn()
            self._pending = None
        elif kind == "hand_voided":
            if metrics.active:
                metrics.voided.add(str(event.get("hand_id")))
            self._clear_turn()
            self._pending = None
        elif kind == "seats":
            mine = any(s.get("account_id") == self.account_id for s in event.get("seats") or ())
            if self.seated and not mine:
                self.seated = False  # busted (cashed out after the hand): sit again
            self._check_sitting_out(event.get("seats") or ())

    def _check_sitting_out(self, seats: Any) -> None:
        for info in seats:
            if info.get("account_id") == self.account_id:
                self._sit_in_due = bool(info.get("sitting_out"))

    def _on_error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        text = f"{self.name} seat {self.seat} table {self.table_id}: {code}: {message.get('message')}"
        if message.get("ref") == "sit":
            self._sit_sent = 0.0
            if code == "already_seated":
                self.seated = True
                self.ready.set()
                return
            if code == "insufficient_funds":
                # Broke after busting: buy in for the table minimum, then ask for the daily top-up,
                # then leave the table (a player out of money is not a server error).
                if self.buy_in > self.min_buy_in:
                    self.buy_in = self.min_buy_in
                    return
                if not self._topped_up:
                    self._topped_up = True
                    asyncio.get_running_loop().create_task(self._topup())
                    self._sit_sent = time.monotonic()  # hold the re-sit until the top-up is done
                    return
                self.gave_up = True
                self.metrics.busted += 1
                return
            if code == "seat_taken":
                self.gave_up = True
        if message.get("ref") == "bye":
            return
        self.metrics.error(code, text)

    async def _topup(self) -> None:
        with contextlib.suppress(Exception):
            await self.http.post("/api/topup", headers={"Authorization": f"Bearer {self.token}"})
        self._sit_sent = 0.0
