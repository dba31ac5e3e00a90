"""The cluster's tools are installed when missing (studpoker.cluster.provision), and a cluster
test whose tool cannot be had fails under CI instead of skipping."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from studpoker.cluster import provision as system
from tests import provision
from tests.cluster.conftest import need

Tool = Callable[[], tuple[Path | None, str]]


@pytest.mark.parametrize(
    ("tool", "package"), [(system.nats_server, "nats-server"), (system.haproxy, "haproxy")]
)
def test_a_missing_tool_is_installed_then_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tool: Tool, package: str
) -> None:
    installed: list[str] = []
    monkeypatch.setattr(system, "LOCK", tmp_path / "lock")
    monkeypatch.setattr(system, "executable", lambda name: Path(f"/usr/sbin/{name}") if installed else None)
    monkeypatch.setattr(system, "apt_install", installed.append)
    assert tool() == (Path(f"/usr/sbin/{package}"), "")
    assert installed == [package]


def test_a_tool_that_cannot_be_installed_gives_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(system, "LOCK", tmp_path / "lock")
    monkeypatch.setattr(system, "executable", lambda name: None)
    monkeypatch.setattr(system, "apt_install", lambda name: f"apt-get install {name} failed: E")
    assert system.nats_server() == (None, "apt-get install nats-server failed: E")
    monkeypatch.setattr(system, "apt_install", lambda name: None)  # "installed", yet not there
    assert system.haproxy() == (None, "haproxy was installed but is not found")


@pytest.mark.parametrize("tool", [provision.nats_server, provision.haproxy])
def test_a_missing_cluster_tool_fails_under_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tool: Tool
) -> None:
    monkeypatch.setattr(provision, "LOCK", tmp_path / "lock")
    monkeypatch.setattr(system, "executable", lambda name: None)
    monkeypatch.setattr(provision, "_apt_install", lambda name: f"apt-get install {name} failed: E")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        need(tool, "it")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="failed: E"):
        need(tool, "it")
