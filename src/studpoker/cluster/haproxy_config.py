"""HAProxy in front of the gateways (issue 15): ``balance leastconn``, WebSocket tunnels, health
checks on ``/api/health``.

No sticky routing: any gateway serves any client, since what a seat is lives in PostgreSQL and
with the table's worker. ``leastconn`` suits long-lived WebSockets better than round robin (a
restarted gateway fills up again). ``timeout tunnel`` governs a WebSocket once upgraded, so idle
watchers are not cut at the client/server time-outs meant for plain HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studpoker.cluster.subjects import check_name


@dataclass(frozen=True, slots=True)
class Backend:
    """One gateway: a name for HAProxy's logs and stats, and where it listens."""

    name: str
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class ProxyTimeouts:
    """HAProxy's time-outs, in seconds (the defaults suit the room's 30 s action clock)."""

    connect: float = 5.0
    client: float = 60.0
    server: float = 60.0
    # A WebSocket idle this long is closed; the room's clients ping well within it.
    tunnel: float = 3600.0
    check_interval: float = 2.0


def _ms(seconds: float) -> str:
    return f"{round(seconds * 1000)}ms"


def _check_port(port: int) -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ValueError(f"bad port {port!r}")
    return port


def _check_host(host: str) -> str:
    if not host or any(ch.isspace() or ch in "#'\"\\" for ch in host):
        raise ValueError(f"bad host {host!r}")
    return host


def render_haproxy_config(
    backends: Sequence[Backend],
    *,
    bind_host: str = "127.0.0.1",
    port: int,
    timeouts: ProxyTimeouts | None = None,
    max_connections: int | None = None,
) -> str:
    """The whole haproxy.cfg for these gateways; ValueError for a bad name, host or port.

    Without ``max_connections`` HAProxy sets its maxconn from the file descriptors it may open
    (``ulimit -n``), each proxied connection holding two."""
    if not backends:
        raise ValueError("HAProxy needs at least one gateway")
    names = [check_name(backend.name, "backend name") for backend in backends]
    if len(set(names)) != len(names):
        raise ValueError(f"backend names repeat: {names}")
    for backend in backends:
        _check_host(backend.host)
        _check_port(backend.port)
    _check_host(bind_host)
    _check_port(port)
    if max_connections is not None and (isinstance(max_connections, bool) or max_connections < 1):
        raise ValueError(f"bad max_connections {max_connections!r}")
    times = timeouts or ProxyTimeouts()
    maxconn = "" if max_connections is None else f"    maxconn {max_connections}\n"
    servers = "\n".join(
        f"    server {backend.name} {backend.host}:{backend.port} check inter {_ms(times.check_interval)}"
        " fall 2 rise 1"
        for backend in backends
    )
    return f"""\
# Written by studpoker (studpoker.cluster.haproxy_config): HAProxy in front of the gateways.
global
{maxconn}
defaults
    mode http
    option forwardfor
    # A gateway that died refuses connections before the health checks mark it down: send
    # each retry elsewhere, so a client reconnecting at once reaches a live one.
    retries 3
    option redispatch 1
    timeout connect {_ms(times.connect)}
    timeout client {_ms(times.client)}
    timeout server {_ms(times.server)}
    timeout tunnel {_ms(times.tunnel)}
    timeout client-fin 5s

frontend room
    bind {bind_host}:{port}
    default_backend gateways

backend gateways
    balance leastconn
    option httpchk GET /api/health
    http-check expect status 200
{servers}
"""
