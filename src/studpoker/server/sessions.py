"""The sockets the room holds, by client address and by session token, and those still checking
their token (issue 10, points 2 and 4): the socket caps are counted here, and a logout finds
here every socket of its session, also one between its token check and its attach."""

from __future__ import annotations

from dataclasses import dataclass

from .connections import Connection
from .protocol import ErrorCode


class AdmissionError(Exception):
    """A new connection the room does not take: ``code`` for the ``error`` sent before the
    socket is closed with ``close_code``."""

    def __init__(self, code: str, message: str, close_code: int) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.close_code = close_code


@dataclass(eq=False)
class Handshake:
    """A socket between the check of its token and its attach: a logout of the token in
    between marks it ``revoked`` (the check may have read the session just before the logout
    committed), and the attach refuses it."""

    token: str
    address: str = ""
    revoked: bool = False


def _count_up(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _count_down(counts: dict[str, int], key: str) -> None:
    left = counts.get(key, 0) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class SocketRegistry:
    """WebSockets (not bots) counted per address and indexed by session token, plus the
    handshakes in progress; ``max_per_account`` and ``max_per_address`` are the caps."""

    def __init__(self, max_per_account: int, max_per_address: int) -> None:
        self.max_per_account = max_per_account
        self.max_per_address = max_per_address
        self.by_address: dict[str, int] = {}
        self.by_token: dict[str, dict[int, Connection]] = {}
        self.handshakes: dict[str, set[Handshake]] = {}
        self._handshakes_by_address: dict[str, int] = {}

    # -- the token check -------------------------------------------------------------------------

    def begin_handshake(self, token: str, address: str) -> Handshake:
        """A socket from ``address`` is about to check ``token`` (before the store reads the
        session). The caps count the sockets still being checked, so a burst with one token or
        from one address is refused (:class:`AdmissionError`) before any of it reads the
        database."""
        if len(self.by_token.get(token, ())) + len(self.handshakes.get(token, ())) >= self.max_per_account:
            raise self.too_many_for_account()
        if self._held_by(address) >= self.max_per_address:
            raise self.too_many_for_address()
        handshake = Handshake(token, address)
        self.handshakes.setdefault(token, set()).add(handshake)
        _count_up(self._handshakes_by_address, address)
        return handshake

    def end_handshake(self, handshake: Handshake) -> None:
        waiting = self.handshakes.get(handshake.token)
        if waiting is None or handshake not in waiting:
            return
        waiting.discard(handshake)
        if not waiting:
            del self.handshakes[handshake.token]
        _count_down(self._handshakes_by_address, handshake.address)

    # -- the sockets -----------------------------------------------------------------------------

    def check(self, conn: Connection, account_sockets: int, handshake: Handshake | None) -> None:
        """Raise :class:`AdmissionError` if ``conn`` (whose account holds ``account_sockets``
        sockets) may not be added: its handshake was revoked, or a cap is reached."""
        if handshake is not None and handshake.revoked:
            raise AdmissionError(ErrorCode.UNAUTHORIZED, "this session was logged out: log in again", 4401)
        if account_sockets >= self.max_per_account:
            raise self.too_many_for_account()
        if self._held_by(conn.address) >= self.max_per_address:
            raise self.too_many_for_address()

    def add(self, conn: Connection) -> None:
        _count_up(self.by_address, conn.address)
        if conn.token is not None:
            self.by_token.setdefault(conn.token, {})[conn.id] = conn

    def remove(self, conn: Connection) -> None:
        _count_down(self.by_address, conn.address)
        if conn.token is not None:
            sockets = self.by_token.get(conn.token)
            if sockets is not None:
                sockets.pop(conn.id, None)
                if not sockets:
                    del self.by_token[conn.token]

    def revoke(self, token: str) -> list[Connection]:
        """A logout of ``token`` committed: its handshakes are marked; its sockets returned."""
        for handshake in self.handshakes.get(token, ()):
            handshake.revoked = True
        return list(self.by_token.get(token, {}).values())

    def with_session(self) -> list[Connection]:
        return [conn for sockets in self.by_token.values() for conn in sockets.values()]

    # -- helpers ---------------------------------------------------------------------------------

    def _held_by(self, address: str) -> int:
        return self.by_address.get(address, 0) + self._handshakes_by_address.get(address, 0)

    def too_many_for_account(self) -> AdmissionError:
        return AdmissionError(
            ErrorCode.TOO_MANY_CONNECTIONS,
            f"this account has {self.max_per_account} connections open already: close one first",
            1013,
        )

    def too_many_for_address(self) -> AdmissionError:
        return AdmissionError(
            ErrorCode.TOO_MANY_CONNECTIONS,
            f"{self.max_per_address} connections are open from your address already: try again later",
            1013,
        )
