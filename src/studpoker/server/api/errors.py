"""Every refusal the REST API answers, mapped to its JSON in one place.

Whatever refuses a request, the answer is ``{"error": {"code", "message"}}`` with the HTTP
status (the codes are the protocol's, docs/protocol.md): an :class:`ApiError` a route raises, a
store refusal (each :class:`~studpoker.store.errors.StoreError` carries its code, status and
headers), a request that fails validation (422 ``invalid``) and Starlette's own HTTP errors (an
unknown path, a wrong method). ``create_app`` installs :data:`EXCEPTION_HANDLERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from studpoker.store.errors import StoreError

from ..protocol import ErrorCode

# A validation error lists at most this many of its problems.
_PROBLEMS_SHOWN = 5


class ApiError(Exception):
    """A refusal with its HTTP status and the protocol's error code ({"error": {code, message}})."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut} for status in (401, 403, 404, 409, 422, 429, 503)
}
"""The error answers a route may give, for its OpenAPI ``responses``."""


def rate_limited(message: str, wait: float) -> ApiError:
    """429 with Retry-After; ``message`` ends with the seconds to wait."""
    seconds = int(wait) + 1
    return ApiError(
        429, ErrorCode.RATE_LIMITED, f"{message}: try again in {seconds} s", {"Retry-After": str(seconds)}
    )


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


async def api_error(request: Request, exc: ApiError) -> JSONResponse:
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def store_error(request: Request, exc: StoreError) -> JSONResponse:
    # Each refusal carries its code, status and headers (studpoker.store.errors).
    return error_response(exc.status, exc.code, str(exc), exc.headers)


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg')}"
        for err in exc.errors()[:_PROBLEMS_SHOWN]
    )
    return error_response(422, ErrorCode.INVALID, problems)


_HTTP_CODES = {404: ErrorCode.NOT_FOUND, 405: "method_not_allowed"}


async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail), getattr(exc, "headers", None))


ExceptionHandler = Callable[[Request, Any], Coroutine[Any, Any, Response]]

EXCEPTION_HANDLERS: dict[int | type[Exception], ExceptionHandler] = {
    ApiError: api_error,
    StoreError: store_error,
    RequestValidationError: validation_error,
    StarletteHTTPException: http_error,
}
"""Exception type -> handler, as ``FastAPI(exception_handlers=...)`` takes them."""
