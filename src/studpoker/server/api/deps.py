"""What every REST router shares: the room the app serves and the account of the bearer token;
the error every route raises and the error answers are :mod:`.errors`' (re-exported here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from studpoker.store import Account
from studpoker.store.errors import AuthError

from .errors import RESPONSES, ApiError, ErrorOut

if TYPE_CHECKING:
    from studpoker.server.room import Room

# Re-exported: the routers import the error type and the error answers from here.
__all__ = [
    "RESPONSES",
    "ApiError",
    "CurrentAccount",
    "ErrorOut",
    "current_account",
    "current_token",
    "room_of",
]


bearer = HTTPBearer(auto_error=False)


def room_of(request: Request) -> Room:
    room: Room = request.app.state.room
    return room


async def current_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> str:
    if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
        raise ApiError(401, "unauthorized", "log in and send 'Authorization: Bearer <token>'")
    return credentials.credentials


async def current_account(request: Request, token: Annotated[str, Depends(current_token)]) -> Account:
    try:
        return await room_of(request).store.authenticate(token)
    except AuthError as exc:
        raise ApiError(401, "unauthorized", str(exc), {"WWW-Authenticate": "Bearer"}) from None


CurrentAccount = Annotated[Account, Depends(current_account)]
