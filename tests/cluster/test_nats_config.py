"""The NATS users (studpoker.cluster.nats_config): one per gateway and worker, files for each."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from studpoker.cluster.nats_config import NatsCredentials, write_nats_config


def test_each_process_gets_its_own_user_and_private_files(tmp_path: Path) -> None:
    files = write_nats_config(tmp_path, gateways=3, workers=2)
    assert sorted(files.gateways) == ["1", "2", "3"] and sorted(files.workers) == ["1", "2"]
    credentials = [NatsCredentials.read(path) for path in [*files.gateways.values(), *files.workers.values()]]
    assert [c.user for c in credentials] == ["gateway-1", "gateway-2", "gateway-3", "worker-1", "worker-2"]
    assert len({c.password for c in credentials}) == 5
    assert credentials[0].inbox_prefix == "_INBOX.gateway-1"
    for path in [files.config, *files.gateways.values(), *files.workers.values()]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = json.loads(files.config.read_text())
    users = {user["user"]: user for user in config["authorization"]["users"]}
    assert users["gateway-2"]["password"] == credentials[1].password
    assert users["gateway-2"]["permissions"]["subscribe"]["allow"] == [
        "gw.2.out", "lobby.table.*", "lobby.tournament.*", "room.*", "account.*.out", "_INBOX.gateway-2.>"
    ]  # fmt: skip
    assert users["gateway-2"]["permissions"]["publish"]["allow"] == [
        "table.*.cmd",
        "tournament.*.cmd",
        "room.*",
    ]
    assert users["worker-1"]["permissions"]["subscribe"]["allow"] == [
        "table.*.cmd",
        "tournament.*.cmd",
        "room.*",
        "_INBOX.worker-1.>",
    ]
    assert users["worker-1"]["permissions"]["publish"]["allow"] == [
        "gw.*.out", "lobby.table.*", "lobby.tournament.*", "room.*", "account.*.out"
    ]  # fmt: skip


def test_named_processes_and_a_listen_address(tmp_path: Path) -> None:
    files = write_nats_config(tmp_path, gateways=["eu", "us"], workers=["w0"], listen="127.0.0.1:4333")
    assert NatsCredentials.read(files.gateways["us"]).user == "gateway-us"
    assert json.loads(files.config.read_text())["listen"] == "127.0.0.1:4333"


@pytest.mark.parametrize(
    ("gateways", "workers", "message"),
    [(-1, 1, "bad number of gateways"), (1, True, "bad number of workers"), (["a", "a"], 1, "repeat"),
     (["a.b"], 1, "bad gateway name"), (1, ["w 1"], "bad worker name")],
)  # fmt: skip
def test_bad_counts_or_names_write_nothing(
    tmp_path: Path, gateways: object, workers: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        write_nats_config(tmp_path, gateways, workers)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "cannot read"), ("[]", "exactly"), ('{"user": "a", "password": "b"}', "exactly"),
     ('{"user": "a", "password": "", "inbox_prefix": "c"}', "non-empty string"),
     ('{"user": "a", "password": 1, "inbox_prefix": "c"}', "non-empty string")],
)  # fmt: skip
def test_a_bad_credentials_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "gateway-1.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        NatsCredentials.read(path)
    with pytest.raises(ValueError, match="cannot read"):
        NatsCredentials.read(tmp_path / "missing.json")
