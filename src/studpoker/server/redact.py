"""Keep session tokens out of the logs.

The browser and the load client send their token in a first ``auth`` message, but the server
still accepts ``/ws?token=...`` (docs/protocol.md), and uvicorn logs the path with its query
string (the access log, the WebSocket ``[accepted]`` line, the ASGI trace). A logging filter
rewrites any record that carries a token before a handler sees it.
"""

from __future__ import annotations

import logging
import re

REDACTED = "[redacted]"

# token=VALUE (query strings, also access_token=), token='VALUE' (reprs), "token": "VALUE"
# (JSON), and Bearer VALUE (headers).
_SECRETS = re.compile(
    r"""(?ix)
    ( token ["']? \s* [=:] \s* ["']? )   # the key, its separator and an opening quote
    [^&\s"',;)}\]]+                      # the value
    | ( bearer \s+ ) [^\s"',;)}\]]+
    """
)

# Where uvicorn logs requests: the access log, connection / WebSocket events, the ASGI trace.
UVICORN_LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn.asgi")


def redact(text: str) -> str:
    """``text`` with every token value replaced by ``[redacted]``."""
    return _SECRETS.sub(lambda m: (m.group(1) or m.group(2)) + REDACTED, text)


class TokenRedactingFilter(logging.Filter):
    """Rewrites a record whose message holds a token; lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: the handler reports it as usual
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


TOKEN_FILTER = TokenRedactingFilter()


def install_token_redaction() -> None:
    """Put the filter on uvicorn's loggers (records that start there) and on the handlers of
    the root logger (records of every other logger that reach them). Idempotent."""
    for name in UVICORN_LOGGERS:
        logging.getLogger(name).addFilter(TOKEN_FILTER)
    for handler in logging.getLogger().handlers:
        handler.addFilter(TOKEN_FILTER)
