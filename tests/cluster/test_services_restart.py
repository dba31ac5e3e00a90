"""The servers ``cluster up`` started come back when they crash (docs/cluster.md "Supervision"):
a real PostgreSQL whose postmaster is killed is started again on its data directory and port
(and a store open on it works again); a real ``cluster up`` whose nats-server, then HAProxy, are
killed with SIGKILL restarts each on its port, says so in ``cluster.json`` and ``cluster
status``, and a hand is then played through HAProxy with the books balanced."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from studpoker.cluster import services
from studpoker.cluster.services import Server
from studpoker.cluster.supervise import RestartPolicy, Supervisor
from studpoker.server import Settings
from studpoker.server.room import default_table_configs
from studpoker.store import Store
from tests import provision
from tests.cluster.conftest import ClusterUp, LaunchCluster, need
from tests.cluster.test_roles import RunningCluster, _finished, _owners, _until, players
from tests.cluster.test_supervise import new_pid

# The real cluster's test runs in one xdist worker with its fixture (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_services_restart")


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A directory the ``postgres`` user can reach (pytest's own are root's alone, mode 0700)."""
    directory = Path(tempfile.mkdtemp(prefix="studpoker-test-"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


async def _answers(store: Store) -> bool:
    """The store reads again. The first use of a connection the restart closed fails (as any
    write failure does) and makes the pool connect afresh."""
    try:
        await store.list_tables()
    except Exception:
        return False
    return True


@pytest.mark.postgres
async def test_a_killed_postgres_is_started_again_and_the_store_goes_on(reachable_dir: Path) -> None:
    bin_dir = need(provision.postgres, "PostgreSQL")
    server = services.start_postgres(reachable_dir / "postgres", bin_dir=bin_dir)
    try:
        url = await server.new_database("studpoker")
        store = await Store.open(url)
        try:
            first_config, second_config = default_table_configs(Settings())[:2]
            await store.create_table(first_config)  # committed just before the crash
            supervisor: Supervisor[Server] = Supervisor(RestartPolicy(backoff_seconds=0.1))
            first = services.postmaster(server)
            supervisor.watch("postgres", "postgres", first, lambda: services.restart_postgres(server))
            os.kill(first.pid, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while not supervisor.check():
                assert time.monotonic() < deadline, "postgres not restarted"
                await asyncio.sleep(0.05)
            again = supervisor.children[0].process
            assert again.pid != first.pid and again.poll() is None
            assert services.listening(server.host, server.port)  # the same port
            await _until(lambda: _answers(store), "the store answering again", timeout=10)
            # What was committed before the crash is there (synchronous_commit on); writes work.
            await store.create_table(second_config)
            names = [table.config.name for table in await store.list_tables()]
            assert names == [first_config.name, second_config.name]
        finally:
            await store.close()
    finally:
        services.stop_postgres(server)


# ----------------------------------------------------------------------------- a real cluster


@pytest.fixture
def up(launch_cluster: LaunchCluster) -> ClusterUp:
    sets = {"hand_pause_seconds": 0.3, "shutdown_grace_seconds": 1, "restart_backoff_seconds": 0.5}
    return launch_cluster(gateways=1, workers=1, sets=sets)


async def _kill_and_see_back(up: ClusterUp, name: str) -> int:
    """SIGKILL ``name``; its new pid once cluster.json names it, on the same address."""
    before = up.child(name)
    assert before["restarts"] == 0
    os.kill(before["pid"], signal.SIGKILL)
    pid = await new_pid(up, name, before["pid"], timeout=30)
    after = up.child(name)
    assert after["address"] == before["address"] and after["restarts"] == 1
    host, _, port = str(after["address"]).rpartition(":")
    await _until(lambda: _true(services.listening(host, int(port))), f"{name} listening", timeout=10)
    assert f"{name} (pid {before['pid']}) crashed (killed by SIGKILL)" in up.log.read_text()
    return pid


async def _true(value: bool) -> bool:
    return value


async def test_killed_nats_server_and_haproxy_come_back_and_play_goes_on(up: ClusterUp) -> None:
    url = up.database_url

    async def owned() -> dict[int, tuple[str | None, int, bool]] | None:
        owners = await _owners(url)
        return owners if owners and all(o == "worker-1" and live for o, _, live in owners.values()) else None

    owners = await _until(owned, "the tables owned", timeout=30)
    nats = await _kill_and_see_back(up, "nats-server")
    proxy = await _kill_and_see_back(up, "haproxy")
    status = subprocess.run(
        [sys.executable, "-m", "studpoker", "cluster", "status", "--dir", str(up.directory)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert status.returncode == 0, status.stderr
    assert f"nats-server: pid {nats} on " in status.stdout and f"haproxy: pid {proxy} on " in status.stdout
    assert status.stdout.count(", 1 restart\n") == 2, status.stdout
    # The gateway and the worker reconnected to the new nats-server: a hand is played through
    # the new HAProxy, the gateway and the table's worker.
    cluster = RunningCluster(up.directory, up.process, up.info(), url)
    async with players(cluster, min(owners), ["alice", "bob"]) as (alice, _bob):
        await _until(lambda: _finished(alice, 1), "a hand played after the restarts", timeout=40)
    assert up.process.poll() is None  # cluster up still runs
    store = await Store.open(url, migrate_schema=False)
    try:
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()
