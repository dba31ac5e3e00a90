"""What the test suites need from the machine: Debian's Chromium and PostgreSQL's server binaries.

``make test`` runs ``python -m tests.provision`` once, before pytest starts its workers, so the
packages are installed by one process (two workers running apt-get at once lose the dpkg lock:
that is how a fresh machine once skipped every browser test). The fixtures call the same
functions again; an exclusive file lock and apt's own lock time-out make a second call wait for
the first instead of failing.

When something cannot be had, :func:`unavailable` skips the tests that need it on a developer's
machine and fails them under CI (``CI=true``): a suite that did not run must not look green.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

LOCK = Path(tempfile.gettempdir()) / "studpoker-provision.lock"
_APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}
# apt waits this long for another apt/dpkg to release its lock instead of failing at once.
_APT_LOCK_WAIT = ["-o", "DPkg::Lock::Timeout=600"]


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> NoReturn:
    """Skip (on a developer's machine) or fail (under CI) a test whose tool is missing."""
    if under_ci():
        pytest.fail(f"{reason} (CI=true: a suite that cannot run fails instead of skipping)", pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def _exclusive() -> Iterator[None]:
    with LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _apt_install(package: str) -> str | None:
    """``apt-get install package`` as root (an update first if the lists are stale); a reason on failure."""
    if os.geteuid() != 0:
        return f"{package} is not installed and this user is not root to apt-get it"
    if shutil.which("apt-get") is None:
        return f"{package} is not installed and there is no apt-get"
    env = {**os.environ, **_APT_ENV}
    install = ["apt-get", *_APT_LOCK_WAIT, "install", "-y", "-q", "--no-install-recommends", package]
    result = subprocess.run(install, env=env, capture_output=True, text=True, timeout=1200, check=False)
    if result.returncode != 0:  # perhaps stale package lists
        update = ["apt-get", *_APT_LOCK_WAIT, "update", "-q"]
        subprocess.run(update, env=env, capture_output=True, timeout=900, check=False)
        result = subprocess.run(install, env=env, capture_output=True, text=True, timeout=1200, check=False)
    if result.returncode != 0:
        return f"apt-get install {package} failed: {(result.stderr or result.stdout)[-400:]}"
    return None


def chromium() -> tuple[str | None, str]:
    """The path of Debian's chromium, installed when missing; (None, reason) when it cannot be."""
    found = shutil.which("chromium")
    if found:
        return found, ""
    with _exclusive():
        found = shutil.which("chromium")
        if found:
            return found, ""
        reason = _apt_install("chromium")
        found = shutil.which("chromium")
        return found, "" if found else (reason or "chromium was installed but is not on PATH")


def postgres_bin_dir() -> Path | None:
    """The directory holding initdb and pg_ctl (Debian keeps them out of PATH); newest first."""

    def version(path: str) -> tuple[int, ...]:
        part = Path(path).parent.name
        return tuple(int(x) for x in part.split(".") if x.isdigit()) or (0,)

    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        if all(os.access(os.path.join(directory, tool), os.X_OK) for tool in ("initdb", "pg_ctl")):
            return Path(directory)
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return Path(pg_ctl).resolve().parent
    return None


def postgres() -> tuple[Path | None, str]:
    """PostgreSQL's server binaries, installed when missing; (None, reason) when they cannot be."""
    found = postgres_bin_dir()
    if found is not None:
        return found, ""
    with _exclusive():
        found = postgres_bin_dir()
        if found is not None:
            return found, ""
        reason = _apt_install("postgresql")
        found = postgres_bin_dir()
        return found, "" if found else (reason or "PostgreSQL was installed but initdb/pg_ctl are not found")


def main() -> int:
    """Install everything the suites need; under CI a failure stops ``make test`` here."""
    failures = []
    for name, (found, reason) in (("chromium", chromium()), ("postgresql", postgres())):
        print(f"provision: {name}: {found or 'MISSING: ' + reason}", flush=True)
        if found is None:
            failures.append(name)
    return 1 if failures and under_ci() else 0


if __name__ == "__main__":
    sys.exit(main())
