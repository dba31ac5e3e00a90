"""NATS users for the room (issue 15): each gateway its own, allowed only its own subjects.

Frames carry hole cards, so a gateway's user may subscribe to ``gw.<itself>.out`` and to nothing
another gateway receives; it publishes only table commands and broadcasts. Workers, which deal
the cards, have a user each with the worker's subjects. Every user's request replies come back
on an inbox of its own (``_INBOX.<user>.>``), so no one reads another's answers either.

:func:`write_nats_config` writes, in one directory, the nats-server configuration and one
credentials file per process (mode 0600). The passwords are plain text in both, which is fine
for a trial on one machine; a deployment would put bcrypt hashes (nats-server takes ``$2a$...``
passwords) in the server's file and keep the plain ones only with each process.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from studpoker.cluster import subjects


@dataclass(frozen=True, slots=True)
class NatsCredentials:
    """What one process needs to log in to NATS."""

    user: str
    password: str
    inbox_prefix: str

    @classmethod
    def for_user(cls, user: str) -> NatsCredentials:
        return cls(user, secrets.token_urlsafe(24), subjects.inbox_prefix(user))

    @classmethod
    def read(cls, path: Path) -> NatsCredentials:
        """A credentials file written by :func:`write_nats_config`; ValueError naming what is wrong."""
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read NATS credentials {path}: {exc}") from exc
        fields = ("user", "password", "inbox_prefix")
        if not isinstance(data, dict) or sorted(data) != sorted(fields):
            raise ValueError(f"NATS credentials {path} must hold exactly {', '.join(fields)}")
        if not all(isinstance(data[name], str) and data[name] for name in fields):
            raise ValueError(f"NATS credentials {path}: every field is a non-empty string")
        return cls(data["user"], data["password"], data["inbox_prefix"])

    def write(self, path: Path) -> None:
        _write_private(path, json.dumps(asdict(self), indent=2) + "\n")


@dataclass(frozen=True, slots=True)
class Permissions:
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]


def gateway_user(gateway: str) -> str:
    return f"gateway-{subjects.check_name(gateway)}"


def worker_user(worker: str) -> str:
    return f"worker-{subjects.check_name(worker, 'worker name')}"


def gateway_permissions(gateway: str, credentials: NatsCredentials) -> Permissions:
    """Table and tournament commands and broadcasts out; its own frames, the lobby (tables and
    tournaments), broadcasts and the accounts' wait-list messages (no cards: every gateway hears
    them, none may publish them) in."""
    inbox = f"{credentials.inbox_prefix}.>"
    return Permissions(
        publish=(subjects.TABLE_COMMANDS, subjects.TOURNAMENT_COMMANDS, subjects.BROADCASTS),
        subscribe=(
            subjects.gateway_out(gateway),
            subjects.LOBBY_SUMMARIES,
            subjects.TOURNAMENT_SUMMARIES,
            subjects.BROADCASTS,
            subjects.ALL_ACCOUNTS_OUT,
            inbox,
        ),
    )


def worker_permissions(credentials: NatsCredentials) -> Permissions:
    """Frames to any gateway, summaries (tables and tournaments), broadcasts and wait-list
    messages out; commands for any table or tournament in."""
    inbox = f"{credentials.inbox_prefix}.>"
    return Permissions(
        publish=(
            subjects.ALL_GATEWAYS_OUT,
            subjects.LOBBY_SUMMARIES,
            subjects.TOURNAMENT_SUMMARIES,
            subjects.BROADCASTS,
            subjects.ALL_ACCOUNTS_OUT,
        ),
        subscribe=(subjects.TABLE_COMMANDS, subjects.TOURNAMENT_COMMANDS, subjects.BROADCASTS, inbox),
    )


def render_config(users: list[tuple[NatsCredentials, Permissions]], *, listen: str | None = None) -> str:
    """A nats-server configuration (JSON, which nats-server reads) with these users only.

    ``allow_responses`` lets a user answer the requests it received (to their one reply subject,
    once) without a publish permission on every inbox."""
    config: dict[str, object] = {
        "authorization": {
            "users": [
                {
                    "user": credentials.user,
                    "password": credentials.password,
                    "permissions": {
                        "publish": {"allow": list(permissions.publish)},
                        "subscribe": {"allow": list(permissions.subscribe)},
                        "allow_responses": True,
                    },
                }
                for credentials, permissions in users
            ]
        }
    }
    if listen is not None:
        config = {"listen": listen, **config}
    return json.dumps(config, indent=2) + "\n"


@dataclass(frozen=True, slots=True)
class NatsFiles:
    """Where :func:`write_nats_config` put the server's file and each process's credentials."""

    config: Path
    gateways: dict[str, Path]
    workers: dict[str, Path]


def _write_private(path: Path, text: str) -> None:
    # Created 0600 from the start: the passwords are never readable by others, not even briefly.
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    path.chmod(0o600)


def write_nats_config(
    directory: Path, gateways: int | list[str], workers: int | list[str], *, listen: str | None = None
) -> NatsFiles:
    """Fresh users for these gateways and workers (a count names them 1..n): ``nats.conf`` and
    ``credentials/gateway-<name>.json`` / ``credentials/worker-<name>.json`` in ``directory``."""
    gateway_names = _names(gateways, "gateway")
    worker_names = _names(workers, "worker")
    users: list[tuple[NatsCredentials, Permissions]] = []
    files = NatsFiles(directory / "nats.conf", {}, {})
    for gateway in gateway_names:
        credentials = NatsCredentials.for_user(gateway_user(gateway))
        users.append((credentials, gateway_permissions(gateway, credentials)))
        files.gateways[gateway] = directory / "credentials" / f"{credentials.user}.json"
        credentials.write(files.gateways[gateway])
    for worker in worker_names:
        credentials = NatsCredentials.for_user(worker_user(worker))
        users.append((credentials, worker_permissions(credentials)))
        files.workers[worker] = directory / "credentials" / f"{credentials.user}.json"
        credentials.write(files.workers[worker])
    _write_private(files.config, render_config(users, listen=listen))
    return files


def _names(given: int | list[str], what: str) -> list[str]:
    if isinstance(given, bool):
        raise ValueError(f"bad number of {what}s: {given!r}")
    if isinstance(given, int):
        if given < 0:
            raise ValueError(f"bad number of {what}s: {given}")
        return [str(n) for n in range(1, given + 1)]
    names = [subjects.check_name(name, f"{what} name") for name in given]
    if len(set(names)) != len(names):
        raise ValueError(f"{what} names repeat: {names}")
    return names
