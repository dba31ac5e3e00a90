"""The machine's tools for a trial cluster: nats-server, haproxy and PostgreSQL's server binaries,
installed with apt-get (as root) when missing.

The test suites install the same way (tests/provision.py builds on this). An exclusive file lock
makes several processes asking at once run one apt-get, the others waiting and then finding the
tool installed (two apt-gets at once lose dpkg's lock); apt's own lock time-out covers an apt-get
someone else started.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

LOCK = Path(tempfile.gettempdir()) / "studpoker-provision.lock"
_APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}
# apt waits this long for another apt/dpkg to release its lock instead of failing at once.
_APT_LOCK_WAIT = ["-o", "DPkg::Lock::Timeout=600"]

Found = TypeVar("Found")


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@contextlib.contextmanager
def exclusive(lock: Path | None = None) -> Iterator[None]:
    """Hold the provisioning lock (:data:`LOCK` unless given): one installer at a time."""
    with (lock or LOCK).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def apt_install(package: str) -> str | None:
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


def find_or_install(
    package: str,
    find: Callable[[], Found | None],
    *,
    missing: str,
    lock: Path | None = None,
    install: Callable[[str], str | None] | None = None,
) -> tuple[Found | None, str]:
    """``find()``, else install ``package`` under the lock and look again; (None, reason) when
    it cannot be had (``missing`` is the reason when the install said nothing but found nothing)."""
    found = find()
    if found is not None:
        return found, ""
    with exclusive(lock):
        found = find()  # another process may have installed it while this one waited
        if found is not None:
            return found, ""
        reason = (install or apt_install)(package)
        found = find()
        return found, "" if found is not None else (reason or missing)


def executable(name: str) -> Path | None:
    """Where the program ``name`` is, or None."""
    # Debian puts nats-server and haproxy in /usr/sbin, which a non-root PATH may lack.
    found = shutil.which(name) or next(
        (path for path in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(path, os.X_OK)), None
    )
    return Path(found) if found else None


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
    return find_or_install(
        "postgresql", postgres_bin_dir, missing="PostgreSQL was installed but initdb/pg_ctl are not found"
    )


def nats_server() -> tuple[Path | None, str]:
    """The nats-server binary, installed when missing; (None, reason) when it cannot be."""
    return find_or_install(
        "nats-server", lambda: executable("nats-server"), missing="nats-server was installed but is not found"
    )


def haproxy() -> tuple[Path | None, str]:
    """The haproxy binary, installed when missing; (None, reason) when it cannot be."""
    return find_or_install(
        "haproxy", lambda: executable("haproxy"), missing="haproxy was installed but is not found"
    )
