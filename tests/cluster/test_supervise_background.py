"""A server's restart does not hold ``cluster up``'s supervising loop (docs/cluster.md
"Supervision"): it runs in a thread, one at a time per server, with the usual back-off; a role
that crashes meanwhile is restarted, and a stop (SIGTERM) during the restart ends the loop and
stops every process, the one the restart was starting included. With fake children and a fake
clock, then with real processes (a fake server that never listens again) under ``_Cluster``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studpoker.cli.cluster import _Cluster, _stop_on_signals, _supervise
from studpoker.cluster import services
from studpoker.cluster.services import Server, Service, ServiceError
from studpoker.cluster.supervise import RestartPolicy, Supervisor
from tests.cluster.test_supervise import FakeChild, FakeClock

# How long a slow start blocks at most: the test fails, rather than hangs, if the loop waits on it.
_BLOCK = 15.0


class SlowStart:
    """A start that blocks until ``release`` is set (or, when it honours ``cancel``, until that
    is); then it fails with ``failure`` or returns a new child."""

    def __init__(self, cancel: threading.Event | None = None) -> None:
        self.cancel = cancel
        self.release = threading.Event()
        self.finished = threading.Event()
        self.failure: str | None = None
        self.calls = 0
        self.started: list[FakeChild] = []

    def __call__(self) -> FakeChild:
        self.calls += 1
        try:
            deadline = time.monotonic() + _BLOCK
            while not self.release.wait(0.01) and time.monotonic() < deadline:
                if self.cancel is not None and self.cancel.is_set():
                    raise ServiceError("stopped while starting")
            if self.failure is not None:
                raise ServiceError(self.failure)
            self.started.append(FakeChild())
            return self.started[-1]
        finally:
            self.finished.set()


def _until(check: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"no {what} in {timeout:g} s"
        time.sleep(0.01)


def _servers(slow: SlowStart, clock: FakeClock, policy: RestartPolicy | None = None) -> Supervisor[FakeChild]:
    servers: Supervisor[FakeChild] = Supervisor(policy or RestartPolicy(), clock=clock, background=True)
    servers.watch("postgres", "postgres", FakeChild(), slow)
    return servers


def test_a_slow_restart_holds_no_check_and_a_crashed_role_is_restarted_meanwhile() -> None:
    clock = FakeClock()
    slow = SlowStart()
    servers = _servers(slow, clock)
    roles: Supervisor[FakeChild] = Supervisor(RestartPolicy(), clock=clock)
    roles.add("gateway", "1", FakeChild)
    postgres, gateway = servers.children[0], roles.children[0]
    first_gateway = gateway.process
    postgres.process.status = -signal.SIGKILL
    assert servers.check() == []  # noticed: the back-off first (0.5 s)
    clock.now += 0.5
    assert servers.check() == []  # its start begins, in a thread...
    _until(lambda: slow.calls == 1, "start called")
    assert not slow.finished.is_set()  # ...and the check did not wait for it
    assert not postgres.running and postgres.restarts == 0
    first_gateway.status = -signal.SIGKILL  # a role crashes while the server comes up
    roles.check()
    clock.now += 0.5
    assert roles.check() == [gateway] and gateway.process is not first_gateway
    for _ in range(5):  # one restart in flight per server, however often the loop looks
        clock.now += 10.0
        assert servers.check() == []
    assert slow.calls == 1
    slow.release.set()
    _until(slow.finished.is_set, "start finished")
    assert servers.check() == [postgres]  # taken up by the next check
    assert postgres.process is slow.started[0] and postgres.restarts == 1 and postgres.running


def test_a_slow_restart_that_fails_is_a_crash_with_the_next_back_off() -> None:
    clock = FakeClock()
    slow = SlowStart()
    servers = _servers(slow, clock, RestartPolicy(backoff_seconds=1.0, limit=5, window_seconds=60.0))
    postgres = servers.children[0]
    postgres.process.status = 1
    servers.check()
    clock.now += 1.0
    servers.check()  # begins
    slow.failure = "pg_ctl start failed"
    slow.release.set()
    _until(slow.finished.is_set, "start finished")
    assert servers.check() == [] and postgres.restart_at == clock.now + 2.0  # crash 2: 2 s
    slow.failure, slow.finished = None, threading.Event()
    clock.now += 1.99
    assert servers.check() == [] and slow.calls == 1
    clock.now += 0.01
    changed = servers.check()  # begins it (and takes it up, if the thread was that quick)
    _until(slow.finished.is_set, "second start finished")
    changed += servers.check()
    assert changed == [postgres] and slow.calls == 2 and postgres.restarts == 1


def test_a_stop_tells_a_restart_in_flight_which_gives_up() -> None:
    clock = FakeClock()
    slow = SlowStart()
    servers = _servers(slow, clock)
    slow.cancel = servers.stopped  # as services' cancel=
    postgres = servers.children[0]
    dead = postgres.process
    dead.status = -signal.SIGKILL
    servers.check()
    clock.now += 0.5
    servers.check()
    _until(lambda: slow.calls == 1, "start called")
    servers.stop()  # returns once the start gave up (before its release: it never comes)
    assert slow.finished.is_set() and slow.started == []
    assert postgres.process is dead and postgres.starting is None  # nothing of it to stop
    assert servers.check() == [] and slow.calls == 1


def test_what_a_restart_starts_while_stopping_is_left_for_the_stop() -> None:
    clock = FakeClock()
    slow = SlowStart()  # deaf to the stop: it finishes when released
    servers = _servers(slow, clock)
    postgres = servers.children[0]
    postgres.process.status = -signal.SIGKILL
    servers.check()
    clock.now += 0.5
    servers.check()
    _until(lambda: slow.calls == 1, "start called")
    threading.Timer(0.3, slow.release.set).start()
    servers.stop()  # waits for it
    assert postgres.process is slow.started[0]  # the caller's stop stops it with the rest
    assert servers.check() == [] and slow.calls == 1


# ----------------------------------------------------------------------------- real processes

# A stand-in server: writes its pid to argv[1]; listens on argv[2] only when argv[3] says so.
_SERVER = """
import os, socket, sys, time
open(sys.argv[1] + ".tmp", "w").write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
if sys.argv[3] == "listen":
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(sys.argv[2])))
    sock.listen()
time.sleep(600)
"""


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return None


@pytest.fixture
def signals_restored() -> Iterator[None]:
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


class Operator:
    """What an operator (or a fault) does to the running loop, from a thread: kills the server,
    then the gateway while the server's restart is still starting, then sends SIGTERM."""

    def __init__(self, cluster: _Cluster, slow_pid: Path) -> None:
        self.cluster = cluster
        self.slow_pid = slow_pid
        self.gateway_back_during_restart = False
        self.error: BaseException | None = None
        self.sigterm_at = 0.0

    def __call__(self) -> None:
        try:
            self._act()
        except BaseException as exc:  # reported by the test, after the loop ended
            self.error = exc
        finally:
            self.sigterm_at = time.monotonic()
            os.kill(os.getpid(), signal.SIGTERM)

    def _act(self) -> None:
        server = self.cluster.servers.children[0]
        gateway = self.cluster.children("gateway")[0]
        os.kill(server.process.pid, signal.SIGKILL)
        _until(lambda: _read_pid(self.slow_pid) is not None, "slow restart launched", timeout=20.0)
        first = gateway.process
        first.kill()
        _until(lambda: gateway.process is not first, "gateway restarted", timeout=20.0)
        # Still starting the server: the gateway came back while its restart was in flight.
        self.gateway_back_during_restart = server.starting is not None and not server.running


@pytest.mark.usefixtures("signals_restored")
def test_sigterm_during_a_slow_server_restart_stops_cluster_up_with_every_child(tmp_path: Path) -> None:
    cluster = _Cluster.create(tmp_path, RestartPolicy(backoff_seconds=0.1))
    port = services.free_port()
    first_pid, slow_pid = tmp_path / "first.pid", tmp_path / "slow.pid"
    first_process = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(first_pid), str(port), "listen"], start_new_session=True
    )
    _until(lambda: services.listening(services.LOCALHOST, port), "stand-in server listening")
    first = Service("nats-server", first_process, services.LOCALHOST, port, tmp_path / "nats-server.log")
    outcomes: list[str] = []

    def restart() -> Server:  # never listens: waits on its port until the stop
        def command(chosen: int) -> list[str]:
            return [sys.executable, "-c", _SERVER, str(slow_pid), str(chosen), "quiet"]

        try:
            process, chosen, log = services._start(
                "nats-server",
                command,
                tmp_path,
                host=services.LOCALHOST,
                port=port,
                ready_timeout=3 * _BLOCK,
                cancel=cluster.servers.stopped,
            )
        except ServiceError as exc:
            outcomes.append(str(exc))
            raise
        return Service("nats-server", process, services.LOCALHOST, chosen, log)

    cluster.watch_server(first, restart, first.log, lambda status: f"status {status}")
    roles: list[subprocess.Popen[bytes]] = []

    def gateway() -> subprocess.Popen[bytes]:
        roles.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]))
        return roles[-1]

    cluster.supervisor.add("gateway", "1", gateway)
    operator = Operator(cluster, slow_pid)
    stop = _stop_on_signals()
    threading.Thread(target=operator, name="operator", daemon=True).start()
    try:
        _supervise(cluster, stop, "http://127.0.0.1:1/", "postgresql+asyncpg://x@h/db")
    finally:
        cluster.stop()
    stopped_in = time.monotonic() - operator.sigterm_at
    if operator.error is not None:
        raise operator.error
    assert operator.gateway_back_during_restart
    assert len(roles) == 2 and all(role.poll() is not None for role in roles)
    assert first_process.poll() == -signal.SIGKILL
    # The restart gave up at the stop (not at its own time-out) and killed what it launched.
    assert outcomes == ["nats-server: stopped while starting"], outcomes
    slow = _read_pid(slow_pid)
    assert slow is not None and not _exists(slow)
    assert not (tmp_path / "cluster.json").exists()
    print(f"SIGTERM to everything stopped: {stopped_in:.2f} s")


def test_a_cancelled_launch_kills_its_process(tmp_path: Path) -> None:
    """services' own part: the wait for a port gives up at ``cancel`` and leaves nothing."""
    cancel = threading.Event()
    pid_file = tmp_path / "server.pid"
    port = services.free_port()  # the stand-in never listens on it

    def stop_once_launched() -> None:
        _until(lambda: _read_pid(pid_file) is not None, "launch")
        cancel.set()

    threading.Thread(target=stop_once_launched, daemon=True).start()
    with pytest.raises(ServiceError, match="stopped while starting"):
        services._start(
            "stand-in",
            lambda chosen: [sys.executable, "-c", _SERVER, str(pid_file), str(chosen), "quiet"],
            tmp_path,
            host=services.LOCALHOST,
            port=port,
            ready_timeout=3 * _BLOCK,
            cancel=cancel,
        )
    pid = _read_pid(pid_file)
    assert pid is not None and not _exists(pid)
