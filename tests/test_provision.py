"""The suites' tools: installed once however many workers ask, and missing tools fail under CI."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from tests import provision


def test_a_missing_tool_skips_on_a_developers_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        provision.unavailable("no chromium")


@pytest.mark.parametrize("value", ["true", "1", "TRUE"])
def test_a_missing_tool_fails_under_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        provision.unavailable("no chromium")


def test_concurrent_workers_install_chromium_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Two pytest workers asking at once: one apt-get runs, the other waits and finds it installed."""
    monkeypatch.setattr(provision, "LOCK", tmp_path / "lock")
    installed = threading.Event()
    running = 0
    overlap = []
    calls = []

    def fake_install(package: str) -> str | None:
        nonlocal running
        running += 1
        overlap.append(running)
        calls.append(package)
        time.sleep(0.05)  # a slow apt-get, so the other thread arrives while it runs
        installed.set()
        running -= 1
        return None

    monkeypatch.setattr(provision, "_apt_install", fake_install)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/chromium" if installed.is_set() else None)
    results: list[tuple[str | None, str]] = []
    threads = [threading.Thread(target=lambda: results.append(provision.chromium())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["chromium"]
    assert max(overlap) == 1
    assert results == [("/usr/bin/chromium", "")] * 4


def test_a_failed_install_gives_its_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(provision, "LOCK", tmp_path / "lock")
    monkeypatch.setattr(provision, "_apt_install", lambda package: f"apt-get install {package} failed: E")
    monkeypatch.setattr(provision, "postgres_bin_dir", lambda: None)
    assert provision.postgres() == (None, "apt-get install postgresql failed: E")
