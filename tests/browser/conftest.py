"""Browser tests: the real room server in a subprocess (temp SQLite, short clock) and Debian's
Chromium driven by Playwright. The Chromium package is installed with apt-get when missing
(:mod:`tests.provision`, which ``make test`` also runs once before the suites); if that fails the
tests skip, saying why, and fail under CI."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import provision

ROOT = Path(__file__).resolve().parents[2]
# Test runs write screenshots under build/ (ignored by git); `make screenshots` points this at
# docs/screenshots to refresh the pictures the README shows.
SCREENSHOTS = Path(os.environ.get("STUDPOKER_SCREENSHOT_DIR", ROOT / "build" / "screenshots"))
SCREENSHOTS.mkdir(parents=True, exist_ok=True)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path, reason = provision.chromium()
    if path is None:
        provision.unavailable(f"browser tests cannot run: {reason}")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    try:
        from playwright import sync_api
    except ImportError as exc:
        provision.unavailable(f"browser tests cannot run: {exc}")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def tables(self) -> list[dict[str, Any]]:
        """The room's tables of one game each (a mixed-game table changes game as it plays: the
        tests that pick a table by its game leave it out; ``mixed_tables`` lists those)."""
        return [t for t in self._lobby() if t.get("rotation") is None]

    def mixed_tables(self) -> list[dict[str, Any]]:
        return [t for t in self._lobby() if t.get("rotation") is not None]

    def _lobby(self) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.url}api/tables", timeout=10)
        response.raise_for_status()
        data: list[dict[str, Any]] = response.json()
        return data


@contextlib.contextmanager
def serve_room(
    tmp: Path,
    *,
    think: int,
    countdown: int,
    hand_pause: int,
    settings: Mapping[str, object] | None = None,
) -> Iterator[Server]:
    """`studpoker serve` in ``tmp`` on a free port (temp SQLite), with the clock given and any
    ``--set NAME=VALUE`` limits; stopped when the block ends. The suite registers its players
    from 127.0.0.1, more than the hourly and daily defaults allow: both are raised here."""
    port = _free_port()
    log = tmp / "server.log"
    limits: dict[str, object] = {
        "registrations_per_address_per_hour": 1000,
        "registrations_per_address_per_day": 1000,
        **(settings or {}),
    }
    cmd = [
        sys.executable, "-m", "studpoker", "serve",
        "--port", str(port),
        "--database-url", f"sqlite+aiosqlite:///{tmp / 'room.sqlite3'}",
        "--think-seconds", str(think),
        "--countdown-seconds", str(countdown),
        "--hand-pause", str(hand_pause),
        "--log-level", "warning",
    ]  # fmt: skip
    for name, value in limits.items():
        cmd += ["--set", f"{name}={value}"]
    with log.open("wb") as out:
        process = subprocess.Popen(cmd, cwd=tmp, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited early:\n{log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}api/health", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not start in time:\n{log.read_text()}")
            time.sleep(0.2)
        yield Server(url=url, process=process, log=log)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`studpoker serve` on a free port with its default tables, no bots and a short clock."""
    settings = {
        # Every test module finds empty tables of its own (5 copies: the suite outgrew 3).
        "default_table_copies": 5,
        # No time bank: a decision times out when its countdown ends (test_time_bank.py has one).
        "time_bank_max_seconds": 0,
    }
    with serve_room(
        tmp_path_factory.mktemp("room"), think=4, countdown=12, hand_pause=5, settings=settings
    ) as room:
        yield room
