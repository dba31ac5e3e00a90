"""``cluster up`` supervises the servers it started too (docs/cluster.md "Supervision"):
nats-server, HAProxy and its throwaway PostgreSQL. The supervisor's new rules (a server adopted
once started, a failed restart counting as a crash), the postmaster watched by its pid, and
what ``cluster.json`` and ``cluster status`` say, with fake servers and a fake clock."""

from __future__ import annotations

import itertools
import json
import logging
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from studpoker.cli.cluster import _Cluster, _process_lines, _write_cluster_file
from studpoker.cluster import services
from studpoker.cluster.services import PostgresServer, Postmaster, Server
from studpoker.cluster.supervise import CrashLoopError, RestartPolicy, Supervisor, describe_exit
from tests.cluster.test_supervise import FakeClock

_pids = itertools.count(5000)


@dataclass
class FakeServer:
    """A server that runs until the test ends it; ``stopped`` records the order of stops."""

    name: str
    stopped: list[str] = field(default_factory=list)
    pid: int = field(default_factory=lambda: next(_pids))
    status: int | None = None
    address: str = "127.0.0.1:4222"

    def poll(self) -> int | None:
        return self.status

    def stop(self, timeout: float = 10.0) -> int:
        self.stopped.append(self.name)
        return 0


@dataclass
class ServerRig:
    supervisor: Supervisor[Server]
    clock: FakeClock
    first: FakeServer
    started: list[FakeServer]
    failures: list[str]  # the next starts raise these, in order

    def at(self, seconds: float) -> list[object]:
        self.clock.now = 100.0 + seconds
        return list(self.supervisor.check())

    @property
    def current(self) -> FakeServer:
        process = self.supervisor.children[0].process
        assert isinstance(process, FakeServer)
        return process


def server_rig(name: str = "nats-server", policy: RestartPolicy | None = None) -> ServerRig:
    clock = FakeClock()
    supervisor: Supervisor[Server] = Supervisor(policy or RestartPolicy(), clock=clock)
    first = FakeServer(name)
    started: list[FakeServer] = []
    failures: list[str] = []

    def start() -> Server:
        if failures:
            raise services.ServiceError(failures.pop(0))
        started.append(FakeServer(name))
        return started[-1]

    supervisor.watch(name, name, first, start, log_file=Path(f"/d/{name}.log"))
    return ServerRig(supervisor, clock, first, started, failures)


def test_a_watched_server_is_adopted_not_started_and_restarted_when_it_crashes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "studpoker.cluster.supervise")
    r = server_rig()
    assert r.started == [] and r.current is r.first  # started already: adopted as it is
    assert r.at(1.0) == []
    r.first.status = -signal.SIGKILL
    assert r.at(2.0) == []  # noticed; the back-off first
    assert r.at(2.5) == [r.supervisor.children[0]]
    assert r.current is r.started[0] and r.supervisor.children[0].restarts == 1
    # A server is one of its kind: named alone, not "nats-server-nats-server".
    assert f"nats-server (pid {r.first.pid}) crashed (killed by SIGKILL): restarting in 0.5 s" in caplog.text
    assert f"nats-server restarted as pid {r.current.pid}" in caplog.text
    assert "nats-server-nats-server" not in caplog.text


def test_a_restart_that_fails_counts_as_a_crash_and_is_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "studpoker.cluster.supervise")
    r = server_rig("haproxy", RestartPolicy(backoff_seconds=1.0, limit=5, window_seconds=60.0))
    r.failures.append("haproxy did not listen")
    r.first.status = 1
    r.at(0.0)
    assert r.at(1.0) == []  # its start failed: nothing changed, the second back-off (2 s) begins
    assert r.started == [] and r.supervisor.children[0].restarts == 0
    assert "haproxy (pid" in caplog.text and "its restart failed: haproxy did not listen" in caplog.text
    assert r.at(2.99) == [] and r.started == []
    assert r.at(3.0) == [r.supervisor.children[0]] and len(r.started) == 1
    assert r.supervisor.children[0].restarts == 1


def test_restarts_that_keep_failing_stop_the_cluster() -> None:
    r = server_rig("nats-server", RestartPolicy(backoff_seconds=0.5, limit=3, window_seconds=60.0))
    r.failures += ["port taken", "port taken", "port taken"]
    r.first.status = -signal.SIGKILL
    r.at(0.0)  # crash 1
    r.at(0.5)  # its restart fails: crash 2
    with pytest.raises(CrashLoopError) as raised:
        r.at(1.5)  # and again: crash 3
    message = str(raised.value)
    assert "nats-server crashed 3 times in 60 s" in message
    assert "its restart failed: port taken" in message and "see /d/nats-server.log" in message


def test_a_server_that_exits_cleanly_stays_down() -> None:
    r = server_rig("haproxy")
    r.first.status = 0  # an operator's SIGTERM
    assert r.at(1.0) == [r.supervisor.children[0]]
    assert r.at(100.0) == [] and r.started == []


def test_an_own_description_of_the_exit_is_used(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "studpoker.cluster.supervise")
    clock = FakeClock()
    supervisor: Supervisor[Server] = Supervisor(RestartPolicy(), clock=clock)
    first = FakeServer("postgres")
    supervisor.watch("postgres", "postgres", first, lambda: FakeServer("postgres"), describe=lambda _: "gone")
    first.status = 1
    supervisor.check()
    assert f"postgres (pid {first.pid}) crashed (gone)" in caplog.text
    assert describe_exit(1) not in caplog.text


# ----------------------------------------------------------------------------- the postmaster


def _server(directory: Path) -> PostgresServer:
    return PostgresServer("127.0.0.1", 5999, "postgres", None, "postgres", directory, Path("/nowhere"))


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()  # reaped: its pid names nobody now
    return done.pid


def test_the_postmaster_is_watched_by_its_pid_and_its_lock_file(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    lock = tmp_path / "data" / "postmaster.pid"
    running = Postmaster(_server(tmp_path), os.getpid())
    assert running.poll() is None and running.address == "127.0.0.1:5999"
    pid = _dead_pid()
    lock.write_text(f"{pid}\n{tmp_path / 'data'}\n")
    assert Postmaster(_server(tmp_path), pid).poll() == 1  # killed: its lock file left behind
    lock.unlink()
    assert Postmaster(_server(tmp_path), pid).poll() == 0  # a clean stop removes it


def test_the_postmaster_is_read_from_its_lock_file(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    with pytest.raises(services.ServiceError, match="no PostgreSQL running"):
        services.postmaster(_server(tmp_path))
    (tmp_path / "data" / "postmaster.pid").write_text(f"{os.getpid()}\n")
    assert services.postmaster(_server(tmp_path)).pid == os.getpid()


def test_a_postgres_we_did_not_start_is_not_restarted() -> None:
    theirs = PostgresServer("db.example", 5432, "studpoker", "secret", "postgres")
    with pytest.raises(services.ServiceError, match="not its to restart"):
        services.restart_postgres(theirs)


# ----------------------------------------------------------------------------- cluster.json


def test_cluster_json_and_status_show_each_servers_new_pid_and_restarts(tmp_path: Path) -> None:
    cluster = _Cluster(tmp_path, Supervisor(RestartPolicy()), Supervisor(RestartPolicy(backoff_seconds=0.0)))
    stops: list[str] = []
    nats = FakeServer("nats-server", stops)
    proxy = FakeServer("haproxy", stops, address="127.0.0.1:8000")
    again: list[FakeServer] = []

    def start_nats() -> Server:
        again.append(FakeServer("nats-server", stops))
        return again[-1]

    cluster.watch_server(nats, start_nats, tmp_path / "nats.log", describe_exit)
    cluster.watch_server(proxy, lambda: FakeServer("haproxy", stops), tmp_path / "haproxy.log", describe_exit)
    nats.status = -signal.SIGKILL
    assert cluster.servers.check()  # no back-off here: noticed and started again at once
    _write_cluster_file(cluster, "http://127.0.0.1:8000/", "postgresql+asyncpg://x@h/db")
    processes = {p["name"]: p for p in json.loads((tmp_path / "cluster.json").read_text())["processes"]}
    assert processes["nats-server"]["pid"] == again[0].pid != nats.pid
    assert processes["nats-server"]["restarts"] == 1 and processes["nats-server"]["role"] == "nats-server"
    assert processes["haproxy"] == {
        "role": "haproxy", "name": "haproxy", "pid": proxy.pid, "address": "127.0.0.1:8000", "restarts": 0,
    }  # fmt: skip
    lines = _process_lines({"processes": list(processes.values())})
    assert f"nats-server: pid {again[0].pid} on 127.0.0.1:4222, 1 restart" in lines
    assert f"haproxy: pid {proxy.pid} on 127.0.0.1:8000, 0 restarts" in lines
    # Stopping: nothing is restarted any more; HAProxy goes before nats-server (after the workers).
    cluster.stop()
    assert stops == ["haproxy", "nats-server"]
    again[0].status = -signal.SIGKILL
    assert cluster.servers.check() == [] and len(again) == 1
    assert not (tmp_path / "cluster.json").exists()


def test_status_says_a_server_left_down() -> None:
    info = {"processes": [{"role": "nats-server", "name": "nats-server", "pid": None, "restarts": 2}]}
    assert _process_lines(info) == ["nats-server: down, 2 restarts"]
