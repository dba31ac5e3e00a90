"""Accounts over REST: register, log in and out, the account, the daily top-up (docs/server.md
"Accounts and logins"). What one address may do is bounded by the limiters and budgets of
:class:`~.state.ApiState`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from studpoker.store.errors import BusyError
from studpoker.store.names import lookup_key

from ..ratelimit import address_key
from .deps import CurrentAccount, current_token, room_of
from .errors import RESPONSES, rate_limited
from .models import AccountOut, SessionOut, TopupOut, account_out
from .state import api_state

router = APIRouter(tags=["accounts"])


class Credentials(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=40, examples=["alice"])]
    password: Annotated[str, Field(min_length=1, max_length=256, examples=["correct horse"])]


def client_address(request: Request) -> str:
    """The unit the per-address limits count for a REST caller (ratelimit.address_key)."""
    return address_key(request.client.host if request.client else None)


@router.post("/api/register", status_code=201, response_model=SessionOut, responses=RESPONSES)
async def register(body: Credentials, request: Request) -> SessionOut:
    """Open an account with the starting play-money grant; returns a session (logged in).
    One address opens at most a few accounts an hour and a UTC day (settings
    ``registrations_per_address_per_hour``/``_per_day``): past them 429 with Retry-After."""
    limits = api_state(request)
    address = client_address(request)
    store = room_of(request).store
    shared = limits.shared_registrations
    # Counted before the password is hashed; given back when no account is opened.
    if shared is not None:  # a cluster's gateway: the count is in the database, for all of them
        counted = await shared.begin(store.login_attempts, address)
        allowed, retry_after = counted.allowed, counted.retry_after
    else:
        attempt = limits.registrations.begin(address)
        allowed, retry_after = attempt.allowed, attempt.retry_after
    if not allowed:
        raise rate_limited("too many new accounts from your address", retry_after)
    budget = limits.registration_budget(address)
    try:
        account = await store.register(body.name, body.password, budget=budget)
    except BaseException:
        if shared is not None:
            await shared.failed(store.login_attempts, counted)
        else:
            limits.registrations.failed(attempt)
        raise
    session = await store.open_session(account.id)  # the password was just set: no second check
    return SessionOut(token=session.token, expires_at=session.expires_at, account=account_out(account))


@router.post("/api/login", response_model=SessionOut, responses=RESPONSES)
async def login(body: Credentials, request: Request) -> SessionOut:
    """Log in. At most 5 attempts for a name from one address, and 50 from one address over
    all names (password spraying), in 5 minutes, each counted when it starts and given back
    when it succeeds: past them 429 with Retry-After."""
    store = room_of(request).store
    shared = api_state(request).shared_logins
    if shared is not None:  # a cluster's gateway: the count is in the database, for all of them
        counted = await shared.begin(store.login_attempts, lookup_key(body.name), client_address(request))
        if not counted.allowed:
            raise rate_limited("too many failed logins", counted.retry_after)
        try:
            session = await store.login(body.name, body.password)
        except BusyError:
            await shared.not_checked(store.login_attempts, counted)
            raise
        await shared.succeeded(store.login_attempts, counted)
        account = await store.account(session.account_id)
        return SessionOut(token=session.token, expires_at=session.expires_at, account=account_out(account))
    logins = api_state(request).logins
    # Counted before the password is checked: however many arrive at once, no more than the
    # budget is ever checked. A success gives its count back; a failure keeps it.
    attempt = logins.begin(lookup_key(body.name), client_address(request))
    if not attempt.allowed:
        raise rate_limited("too many failed logins", attempt.retry_after)
    try:
        session = await store.login(body.name, body.password)
    except BusyError:
        logins.not_checked(attempt)
        raise
    logins.succeeded(attempt)
    account = await store.account(session.account_id)
    return SessionOut(token=session.token, expires_at=session.expires_at, account=account_out(account))


@router.post("/api/logout", status_code=204, responses=RESPONSES)
async def logout(request: Request, token: Annotated[str, Depends(current_token)]) -> Response:
    """Revoke the session of the bearer token."""
    room = room_of(request)
    await room.store.revoke(token)
    room.close_session(token)
    return Response(status_code=204)


@router.get("/api/me", response_model=AccountOut, responses=RESPONSES)
async def me(account: CurrentAccount) -> AccountOut:
    """The logged-in account and its bankroll (chips off the tables)."""
    return account_out(account)


@router.post("/api/topup", response_model=TopupOut, responses=RESPONSES)
async def topup(request: Request, account: CurrentAccount) -> TopupOut:
    """The daily top-up for a broke player (0 when not eligible). One address claims at most
    ``topups_per_address_per_day`` top-ups a UTC day, over all accounts: past it 429."""
    store = room_of(request).store
    budget = api_state(request).topup_budget(client_address(request))
    granted = await store.daily_topup(account.id, budget=budget)
    return TopupOut(granted=granted, account=account_out(await store.account(account.id)))
