"""Browser tests: the real room server in a subprocess (temp SQLite, short clock) and Debian's
Chromium driven by Playwright. The Chromium package is installed here with apt-get when missing;
the tests skip, saying why, only if that fails."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

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


def _install_chromium() -> str | None:
    """Debian's chromium package, installed with apt-get as root if it is not there yet."""
    found = shutil.which("chromium")
    if found:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]):
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            subprocess.run(cmd, check=False, env=env, capture_output=True, timeout=900)
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = _install_chromium()
    if path is None:
        pytest.skip("Chromium is not installed and `apt-get install -y chromium` did not work (needs root)")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
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
        response = httpx.get(f"{self.url}api/tables", timeout=10)
        response.raise_for_status()
        data: list[dict[str, Any]] = response.json()
        return data


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`studpoker serve` on a free port with its default tables, no bots and a short clock."""
    tmp = tmp_path_factory.mktemp("room")
    port = _free_port()
    log = tmp / "server.log"
    cmd = [
        sys.executable, "-m", "studpoker", "serve",
        "--port", str(port),
        "--database-url", f"sqlite+aiosqlite:///{tmp / 'room.sqlite3'}",
        "--think-seconds", "4",
        "--countdown-seconds", "12",
        "--hand-pause", "5",
        "--log-level", "warning",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(cmd, cwd=tmp, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        if process.poll() is not None:
            pytest.fail(f"the server exited early:\n{log.read_text()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}api/health", timeout=2).status_code == 200:
                break
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the server did not start in time:\n{log.read_text()}")
        time.sleep(0.2)
    try:
        yield Server(url=url, process=process, log=log)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
