"""Small probes of this machine for the throwaway servers (services.py): a free port, whether
something listens, whether a process is there."""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

LOCALHOST = "127.0.0.1"


def free_port(host: str = LOCALHOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def listening(host: str, port: int) -> bool:
    """Whether something accepts TCP connections on ``host:port`` now."""
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


def alive(pid: int) -> bool:
    """Whether ``pid`` names a live process (a zombie is dead too: the postmaster is not ours
    to reap)."""
    if not exists(pid):
        return False
    with contextlib.suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    return True


def exists(pid: int) -> bool:
    """Whether ``pid`` names a process, a zombie included."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: it exists
        return True
    return True
