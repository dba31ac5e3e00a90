"""``cluster up`` as a process manager (docs/cluster.md "Supervision"): the gateways and workers
it started, and the nats-server, HAProxy and throwaway PostgreSQL it started, are restarted when
they crash, as systemd's ``Restart=on-failure`` would.

A child that exits with an error or is killed by a signal is started again after a back-off
(``restart_backoff_seconds``, doubled for each earlier crash within ``restart_window_seconds``,
at most ``restart_backoff_max_seconds``), and no sooner than its own ``min_delay`` (a worker's:
see :func:`worker_restart_delay`). A child that crashes ``restart_limit`` times within the window
keeps crashing whatever we do: :meth:`Supervisor.check` raises :class:`CrashLoopError` and the
cluster stops. A restart whose start fails (a server that does not listen again) counts as a
crash too, and is tried again after the next back-off. A child that exits cleanly (status 0:
someone stopped it with SIGTERM, on purpose) stays down. After :meth:`Supervisor.stop` nothing
is restarted.

The supervisor owns no timer: the launcher calls :meth:`Supervisor.check` in its loop, which keeps
it testable with a fake clock and fake children. A ``background`` supervisor (``cluster up``'s
servers': a PostgreSQL restart can take seconds) runs each restart's start in a thread of its
own, one at a time per child, so that :meth:`~Supervisor.check` never waits on it: the loop goes
on restarting the other children and answering a stop meanwhile. The start's outcome is taken up
by a later :meth:`~Supervisor.check` (its new process, or a failure counted as a crash), and
:meth:`~Supervisor.stop` sets :attr:`~Supervisor.stopped`, which a start may watch to give up,
then waits for the starts in flight so that what they started is the caller's to stop.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import wait as wait_for
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from studpoker.server.settings import Settings

log = logging.getLogger(__name__)


class Child(Protocol):
    """What the supervisor needs of a process (``subprocess.Popen`` is one)."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...


ChildT = TypeVar("ChildT", bound=Child)


class CrashLoopError(RuntimeError):
    """A child crashed too often within the window; the message says which and where its log is."""


@dataclass(frozen=True)
class RestartPolicy:
    """When a crashed child is started again, and when to give up (Settings ``restart_*``)."""

    backoff_seconds: float = 0.5
    backoff_max_seconds: float = 30.0
    limit: int = 5
    window_seconds: float = 60.0

    def __post_init__(self) -> None:
        if not 0 <= self.backoff_seconds <= self.backoff_max_seconds:
            raise ValueError(
                "restart_backoff_seconds must be >= 0 and at most restart_backoff_max_seconds,"
                f" not {self.backoff_seconds!r} and {self.backoff_max_seconds!r}"
            )
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 1:
            raise ValueError(f"restart_limit is a whole number >= 1, not {self.limit!r}")
        if not self.window_seconds > 0:
            raise ValueError(f"restart_window_seconds must be more than 0, not {self.window_seconds!r}")

    @classmethod
    def from_settings(cls, settings: Settings) -> RestartPolicy:
        return cls(
            backoff_seconds=settings.restart_backoff_seconds,
            backoff_max_seconds=settings.restart_backoff_max_seconds,
            limit=settings.restart_limit,
            window_seconds=settings.restart_window_seconds,
        )

    def delay(self, recent_crashes: int) -> float:
        """The back-off after the ``recent_crashes``-th crash within the window (1: the first)."""
        doublings = min(max(0, recent_crashes - 1), 62)  # 2**62 s is past any maximum
        return float(min(self.backoff_max_seconds, self.backoff_seconds * 2**doublings))


def worker_restart_delay(settings: Settings) -> float:
    """A crashed worker comes back only after ``restart_worker_leases`` leases. Back sooner, its
    heartbeat (the same name's) would still count it as live: the survivors would leave its
    tables to it, and the takeover would wait on its start (seconds of imports and the settle)
    rather than on the lease. Later, the survivors have taken its tables over as from any dead
    worker, and it takes its share back by moves between hands."""
    if not settings.restart_worker_leases >= 0:
        raise ValueError(f"restart_worker_leases must be >= 0, not {settings.restart_worker_leases!r}")
    return settings.restart_worker_leases * settings.lease_seconds


def describe_exit(status: int) -> str:
    """``subprocess`` style: a negative status is the signal that killed the process."""
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


@dataclass(eq=False)
class Supervised(Generic[ChildT]):
    """One supervised child: its current process and what is known of its crashes."""

    role: str
    name: str
    process: ChildT
    start: Callable[[], ChildT]
    min_delay: float = 0.0
    log_file: Path | None = None
    # How an exit status reads in the log (a postmaster we did not start has no real status).
    describe: Callable[[int], str] = describe_exit
    crashes: list[float] = field(default_factory=list)  # monotonic times within the window
    restarts: int = 0
    restart_at: float | None = None  # crashed: when it is started again
    starting: Future[ChildT] | None = None  # its restart's start, in flight (a background one)
    left_down: bool = False  # exited cleanly: not restarted

    @property
    def label(self) -> str:
        # A server is one of its kind (nats-server); a role has many (worker-1, worker-2).
        return self.role if self.name == self.role else f"{self.role}-{self.name}"

    @property
    def running(self) -> bool:
        return self.restart_at is None and self.starting is None and not self.left_down


class Supervisor(Generic[ChildT]):
    """Restarts the children :meth:`add` started, when :meth:`check` finds them crashed."""

    def __init__(
        self, policy: RestartPolicy, *, clock: Callable[[], float] = time.monotonic, background: bool = False
    ) -> None:
        self.policy = policy
        self.clock = clock
        self.background = background  # each restart's start in a thread: check() never waits on it
        self.children: list[Supervised[ChildT]] = []
        # Set by stop(); a start in flight may watch it to give up (services' cancel=).
        self.stopped = threading.Event()

    @property
    def stopping(self) -> bool:
        return self.stopped.is_set()

    def add(
        self,
        role: str,
        name: str,
        start: Callable[[], ChildT],
        *,
        min_delay: float = 0.0,
        log_file: Path | None = None,
    ) -> Supervised[ChildT]:
        """Start a child with ``start`` and supervise it from now on."""
        return self.watch(role, name, start(), start, min_delay=min_delay, log_file=log_file)

    def watch(
        self,
        role: str,
        name: str,
        process: ChildT,
        start: Callable[[], ChildT],
        *,
        min_delay: float = 0.0,
        log_file: Path | None = None,
        describe: Callable[[int], str] = describe_exit,
    ) -> Supervised[ChildT]:
        """Supervise ``process``, started already (a server on a port chosen at its first
        start); ``start`` starts it again."""
        child = Supervised(
            role, name, process, start, min_delay=min_delay, log_file=log_file, describe=describe
        )
        self.children.append(child)
        return child

    def stop(self, timeout: float = 120.0) -> None:
        """Shutting down: nothing is restarted from now on (a pending restart is dropped). A
        start in flight is told (:attr:`stopped`) and waited for, at most ``timeout`` seconds:
        what it started becomes the child's process, for the caller to stop with the rest."""
        self.stopped.set()
        for child in self.children:
            child.restart_at = None
        starting = [child for child in self.children if child.starting is not None]
        wait_for([child.starting for child in starting if child.starting is not None], timeout)
        for child in starting:
            self._settle_on_stop(child)

    def _settle_on_stop(self, child: Supervised[ChildT]) -> None:
        future, child.starting = child.starting, None
        if future is None:
            return
        if not future.done():
            log.error(
                "%s was still starting after the stop's wait: what it starts is left running", child.label
            )
            return
        error = future.exception()
        if error is not None:
            log.warning("%s: its restart ended while stopping (%s)", child.label, error)
            return
        child.process = future.result()
        log.warning(
            "%s started as pid %s while stopping: stopped with the rest", child.label, child.process.pid
        )

    def check(self) -> list[Supervised[ChildT]]:
        """Notice crashes, start what is due; the children whose process changed or that stay
        down (so that the caller rewrites what it lists). :class:`CrashLoopError` when one
        crashed ``limit`` times within the window."""
        if self.stopping:
            return []
        now = self.clock()
        changed: list[Supervised[ChildT]] = []
        for child in self.children:
            if child.running:
                status = child.process.poll()
                if status is not None:
                    self._exited(child, status, now)
                    if child.left_down:
                        changed.append(child)
            if child.restart_at is not None and child.restart_at <= now:
                child.restart_at = None
                child.starting = self._begin(child)
            if child.starting is not None and child.starting.done() and self._started(child, now):
                changed.append(child)
        return changed

    def _begin(self, child: Supervised[ChildT]) -> Future[ChildT]:
        """Run the child's start, in a thread of its own when ``background``."""
        future: Future[ChildT] = Future()

        def run() -> None:
            try:
                future.set_result(child.start())
            except BaseException as exc:  # whatever it is, the loop learns of it
                future.set_exception(exc)

        if self.background:
            threading.Thread(target=run, name=f"restart {child.label}", daemon=True).start()
        else:
            run()
        return future

    def _started(self, child: Supervised[ChildT], now: float) -> bool:
        """Take up a finished start: the new process (True), or a failure counted as a crash."""
        future, child.starting = child.starting, None
        assert future is not None
        error = future.exception()
        if error is not None and not isinstance(error, Exception):
            raise error  # a KeyboardInterrupt or SystemExit is not a failed start
        if error is not None:  # any failed start: as systemd, a failure to retry
            self._crashed(child, f"its restart failed: {error}", now)
            return False
        child.process = future.result()
        child.restarts += 1
        log.warning("%s restarted as pid %s", child.label, child.process.pid)
        return True

    def _exited(self, child: Supervised[ChildT], status: int, now: float) -> None:
        if status == 0:
            child.left_down = True
            log.warning("%s (pid %s) exited cleanly: not restarted", child.label, child.process.pid)
            return
        self._crashed(child, child.describe(status), now)

    def _crashed(self, child: Supervised[ChildT], what: str, now: float) -> None:
        child.crashes = [t for t in child.crashes if now - t < self.policy.window_seconds] + [now]
        seconds = f"{self.policy.window_seconds:g}"
        if len(child.crashes) >= self.policy.limit:
            where = f": see {child.log_file}" if child.log_file is not None else ""
            raise CrashLoopError(
                f"{child.label} crashed {len(child.crashes)} times in {seconds} s (last: pid"
                f" {child.process.pid}, {what}); stopping the cluster{where}"
            )
        delay = max(child.min_delay, self.policy.delay(len(child.crashes)))
        child.restart_at = now + delay
        log.warning(
            "%s (pid %s) crashed (%s): restarting in %.1f s (crash %d in %s s; the cluster stops at %d)",
            child.label,
            child.process.pid,
            what,
            delay,
            len(child.crashes),
            seconds,
            self.policy.limit,
        )
