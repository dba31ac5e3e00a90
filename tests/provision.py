"""What the test suites need from the machine: Debian's Chromium, PostgreSQL's server binaries,
nats-server and haproxy.

``make test`` runs ``python -m tests.provision`` once, before pytest starts its workers, so the
packages are installed by one process (two workers running apt-get at once lose the dpkg lock:
that is how a fresh machine once skipped every browser test). The fixtures call the same
functions again; an exclusive file lock and apt's own lock time-out make a second call wait for
the first instead of failing. The installing itself is :mod:`studpoker.cluster.provision`, which
``studpoker cluster up`` uses too.

When something cannot be had, :func:`unavailable` skips the tests that need it on a developer's
machine and fails them under CI (``CI=true``): a suite that did not run must not look green.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from studpoker.cluster import provision as system

LOCK = system.LOCK
under_ci = system.under_ci


def unavailable(reason: str) -> NoReturn:
    """Skip (on a developer's machine) or fail (under CI) a test whose tool is missing."""
    if under_ci():
        pytest.fail(f"{reason} (CI=true: a suite that cannot run fails instead of skipping)", pytrace=False)
    pytest.skip(reason)


# LOCK, _apt_install and postgres_bin_dir are looked up here at each call, so a test can replace them.
def _apt_install(package: str) -> str | None:
    """``apt-get install package`` as root (an update first if the lists are stale); a reason on failure."""
    return system.apt_install(package)


def chromium() -> tuple[str | None, str]:
    """The path of Debian's chromium, installed when missing; (None, reason) when it cannot be."""
    return system.find_or_install(
        "chromium",
        lambda: shutil.which("chromium"),
        missing="chromium was installed but is not on PATH",
        lock=LOCK,
        install=_apt_install,
    )


postgres_bin_dir = system.postgres_bin_dir


def postgres() -> tuple[Path | None, str]:
    """PostgreSQL's server binaries, installed when missing; (None, reason) when they cannot be."""
    return system.find_or_install(
        "postgresql",
        postgres_bin_dir,
        missing="PostgreSQL was installed but initdb/pg_ctl are not found",
        lock=LOCK,
        install=_apt_install,
    )


def _tool(name: str) -> tuple[Path | None, str]:
    return system.find_or_install(
        name,
        lambda: system.executable(name),
        missing=f"{name} was installed but is not found",
        lock=LOCK,
        install=_apt_install,
    )


def nats_server() -> tuple[Path | None, str]:
    """nats-server (for tests/cluster), installed when missing; (None, reason) when it cannot be."""
    return _tool("nats-server")


def haproxy() -> tuple[Path | None, str]:
    """haproxy (for tests/cluster), installed when missing; (None, reason) when it cannot be."""
    return _tool("haproxy")


def main() -> int:
    """Install everything the suites need; under CI a failure stops ``make test`` here."""
    failures = []
    tools = (
        ("chromium", chromium()),
        ("postgresql", postgres()),
        ("nats-server", nats_server()),
        ("haproxy", haproxy()),
    )
    for name, (found, reason) in tools:
        print(f"provision: {name}: {found or 'MISSING: ' + reason}", flush=True)
        if found is None:
            failures.append(name)
    return 1 if failures and under_ci() else 0


if __name__ == "__main__":
    sys.exit(main())
