"""``cluster up`` supervises its gateways and workers (studpoker.cluster.supervise, docs/cluster.md
"Supervision"): the rules with fake children and a fake clock, then a real ``cluster up`` whose
worker and gateway are killed with SIGKILL and come back, until the gateway crashes too often
and the whole cluster stops."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from studpoker.cluster.supervise import (
    CrashLoopError,
    RestartPolicy,
    Supervisor,
    describe_exit,
    worker_restart_delay,
)
from studpoker.server import Settings
from tests.cluster.conftest import ClusterUp, LaunchCluster
from tests.cluster.test_roles import _owners, _until

# The real cluster's test runs in one xdist worker with its fixture (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_supervise")

# ----------------------------------------------------------------------------- the rules

_pids = itertools.count(1000)


class FakeChild:
    """A process that runs until the test ends it."""

    def __init__(self) -> None:
        self.pid = next(_pids)
        self.status: int | None = None

    def poll(self) -> int | None:
        return self.status


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Rig:
    supervisor: Supervisor[FakeChild]
    clock: FakeClock
    started: list[FakeChild]

    @property
    def child(self) -> Any:
        return self.supervisor.children[0]

    def crash(self, status: int = -signal.SIGKILL) -> None:
        self.child.process.status = status

    def at(self, seconds: float) -> list[Any]:
        """Move the clock to ``seconds`` after the start and let the supervisor look."""
        self.clock.now = 100.0 + seconds
        return self.supervisor.check()


def rig(policy: RestartPolicy | None = None, *, min_delay: float = 0.0) -> Rig:
    clock = FakeClock()
    supervisor: Supervisor[FakeChild] = Supervisor(policy or RestartPolicy(), clock=clock)
    started: list[FakeChild] = []

    def start() -> FakeChild:
        started.append(FakeChild())
        return started[-1]

    supervisor.add("worker", "1", start, min_delay=min_delay, log_file=Path("/d/logs/worker-1.log"))
    return Rig(supervisor, clock, started)


def test_a_crashed_child_is_restarted_after_a_back_off_that_doubles(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "studpoker.cluster.supervise")
    r = rig(RestartPolicy(backoff_seconds=0.5, backoff_max_seconds=30.0, limit=5, window_seconds=60.0))
    assert r.at(1.0) == [] and len(r.started) == 1  # running: nothing to do
    first = r.child.process
    r.crash()
    assert r.at(2.0) == []  # noticed; not yet
    assert r.at(2.49) == []
    assert r.at(2.5) == [r.child]
    assert len(r.started) == 2 and r.child.process is not first and r.child.restarts == 1
    crashed = f"worker-1 (pid {first.pid}) crashed (killed by SIGKILL): restarting in 0.5 s"
    assert f"{crashed} (crash 1 in 60 s; the cluster stops at 5)" in caplog.text
    assert f"worker-1 restarted as pid {r.child.process.pid}" in caplog.text
    r.crash(1)
    r.at(3.0)
    assert r.at(3.99) == [] and r.at(4.0) == [r.child]  # the second crash in the window: 1 s
    r.crash(1)
    r.at(5.0)
    assert r.at(6.99) == [] and r.at(7.0) == [r.child]  # the third: 2 s
    assert r.child.restarts == 3


def test_the_back_off_is_capped_and_forgets_crashes_older_than_the_window() -> None:
    policy = RestartPolicy(backoff_seconds=1.0, backoff_max_seconds=3.0, limit=10, window_seconds=60.0)
    assert [policy.delay(n) for n in range(1, 6)] == [1.0, 2.0, 3.0, 3.0, 3.0]
    assert policy.delay(10_000) == 3.0
    r = rig(policy)
    for start in (0.0, 10.0, 20.0):
        r.crash()
        r.at(start)
        assert r.at(start + 5.0) == [r.child]
    r.crash()
    r.at(200.0)  # the earlier crashes are out of the window: the first back-off again
    assert r.at(200.99) == [] and r.at(201.0) == [r.child]


def test_a_worker_waits_its_own_minimum_delay() -> None:
    settings = Settings(lease_seconds=5.0, restart_worker_leases=2.0)
    assert worker_restart_delay(settings) == 10.0
    r = rig(min_delay=worker_restart_delay(settings))
    r.crash()
    r.at(0.0)
    assert r.at(9.99) == [] and len(r.started) == 1
    assert r.at(10.0) == [r.child]


def test_a_child_crashing_again_and_again_stops_the_cluster_with_its_log() -> None:
    r = rig(RestartPolicy(backoff_seconds=0.5, limit=5, window_seconds=60.0))
    for crash in range(4):
        r.crash(3)
        r.at(crash * 10.0)
        assert r.at(crash * 10.0 + 9.0) == [r.child]
    r.crash(3)
    with pytest.raises(CrashLoopError) as raised:
        r.at(45.0)
    message = str(raised.value)
    assert "worker-1 crashed 5 times in 60 s" in message
    assert "exit status 3" in message and "stopping the cluster: see /d/logs/worker-1.log" in message


def test_five_crashes_spread_over_more_than_the_window_do_not_stop_it() -> None:
    r = rig(RestartPolicy(backoff_seconds=0.5, limit=5, window_seconds=60.0))
    for crash in range(8):
        r.crash()
        r.at(crash * 16.0)
        assert r.at(crash * 16.0 + 15.0) == [r.child]
    assert r.child.restarts == 8


def test_a_clean_exit_is_not_restarted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "studpoker.cluster.supervise")
    r = rig()
    r.crash(0)  # a SIGTERM someone sent on purpose: the worker drained and ended
    assert r.at(1.0) == [r.child]  # reported once, so that cluster.json says it is down
    assert r.child.left_down and not r.child.running
    assert r.at(100.0) == [] and len(r.started) == 1
    assert "exited cleanly: not restarted" in caplog.text


def test_nothing_is_restarted_once_stopping() -> None:
    r = rig()
    r.crash()
    r.at(0.0)  # a restart pending
    r.supervisor.stop()
    assert r.at(100.0) == [] and len(r.started) == 1
    r.child.process.status = None
    r.crash()
    assert r.at(200.0) == [] and len(r.started) == 1


@pytest.mark.parametrize(
    "policy",
    [
        {"backoff_seconds": -1.0},
        {"backoff_seconds": 5.0, "backoff_max_seconds": 1.0},
        {"limit": 0},
        {"limit": True},
        {"window_seconds": 0.0},
    ],
)
def test_a_bad_policy_is_refused(policy: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="restart_"):
        RestartPolicy(**policy)


def test_exits_are_described() -> None:
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(2) == "exit status 2"
    assert describe_exit(-200) == "killed by signal 200"


def test_cluster_up_refuses_a_bad_restart_setting(tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "studpoker", "cluster", "up", "--dir", str(tmp_path / "c"),
        "--set", "restart_limit=0",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "restart_limit is a whole number >= 1" in done.stderr
    assert not (tmp_path / "c").exists()  # nothing started


# ----------------------------------------------------------------------------- a real cluster

LEASE = 2.0


Up = ClusterUp


@pytest.fixture
def up(launch_cluster: LaunchCluster) -> Up:
    sets = {
        "lease_seconds": LEASE, "presence_seconds": 0.5, "gateway_timeout_seconds": 3,
        "shutdown_grace_seconds": 1, "restart_backoff_seconds": 0.5,
    }  # fmt: skip
    return launch_cluster(gateways=1, workers=2, sets=sets)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too (cluster up reaps its children only when it polls them).
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    return False


async def new_pid(up: Up, name: str, old: int, timeout: float) -> int:
    async def changed() -> int | None:
        pid = up.child(name)["pid"]
        return pid if pid not in (None, old) and alive(pid) else None

    pid: int = await _until(changed, f"{name} restarted with a new pid", timeout=timeout)
    return pid


async def health(base: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        async with httpx.AsyncClient(timeout=2) as http:
            return (await http.get(f"{base}api/health")).status_code == 200
    return False


async def test_a_killed_worker_and_gateway_come_back_until_one_crashes_too_often(up: Up) -> None:
    url = up.database_url

    async def both_own_tables() -> dict[int, tuple[str | None, int, bool]] | None:
        owners = await _owners(url)
        live = {owner for owner, _, ok in owners.values() if ok}
        return owners if live == {"worker-1", "worker-2"} and all(o for o, _, _ in owners.values()) else None

    await _until(both_own_tables, "the tables owned by both workers", timeout=30)

    # A worker killed: the survivor takes its tables, then it comes back under a new pid (no
    # sooner than restart_worker_leases leases) and takes its share again, by new claims.
    victim = up.child("worker-1")
    assert victim["restarts"] == 0
    epochs = {table: epoch for table, (_, epoch, _) in (await _owners(url)).items()}
    os.kill(victim["pid"], signal.SIGKILL)
    killed_at = time.monotonic()
    pid = await new_pid(up, "worker-1", victim["pid"], timeout=30)
    assert time.monotonic() - killed_at >= 2 * LEASE - 0.5  # the worker's minimum delay
    assert up.child("worker-1")["restarts"] == 1

    async def owns_again() -> bool:
        mine = [(t, e) for t, (o, e, live) in (await _owners(url)).items() if o == "worker-1" and live]
        return bool(mine) and all(epoch > epochs[table] for table, epoch in mine)

    await _until(owns_again, "the restarted worker owning tables again", timeout=40)
    assert alive(pid)
    assert f"worker-1 (pid {victim['pid']}) crashed (killed by SIGKILL)" in up.log.read_text()

    # The only gateway killed: HAProxy's room answers again once it is back, on the same port.
    room = str(up.info()["url"])
    gateway = up.child("gateway-1")
    os.kill(gateway["pid"], signal.SIGKILL)
    pid = await new_pid(up, "gateway-1", gateway["pid"], timeout=30)
    assert up.child("gateway-1")["address"] == gateway["address"]

    async def answers() -> bool:
        return await health(room)

    await _until(answers, "the room answering through the restarted gateway", timeout=60)

    # A gateway that keeps crashing (killed each time it is back): after restart_limit crashes
    # within the window cluster up stops everything, saying why.
    children = up.pids()
    for _ in range(10):
        if up.process.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError):  # the cluster may be stopping already
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(AssertionError, OSError, ValueError):
            pid = await new_pid(up, "gateway-1", pid, timeout=20)
    assert up.process.wait(90) == 1
    output = up.log.read_text()
    assert "error: gateway-1 crashed 5 times in 60 s" in output, output
    assert f"see {up.directory / 'logs' / 'gateway-1.log'}" in output
    assert not (up.directory / "cluster.json").exists()
    for child in children:
        await _until(lambda c=child: _dead(c), f"pid {child} stopped", timeout=10)


async def _dead(pid: int) -> bool:
    return not alive(pid)
