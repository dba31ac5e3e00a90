"""One table's chat: who may speak, what a line may hold, how often, and the last lines kept.

A table holds its own :class:`TableChat` (in memory: the chat is not part of any hand's history
and does not outlive the server). A ``chat`` command reaches it through the table's queue, in
order with the seating commands (a player who just sat down may speak). The new line goes to
every watcher of the table at once, guests included, as one ``chat`` message encoded once; the
last ``chat_history_lines`` lines are in the table's snapshot.

Refusals are answered here with an ``error`` (nothing is kept, nothing sent); this module
imports nothing of the table package at run time, which imports it.
"""

from __future__ import annotations

import unicodedata
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..caps import SlidingWindow
from ..protocol import AckMsg, ChatLineInfo, ChatLineMsg, ErrorCode, ErrorMsg, encode

if TYPE_CHECKING:
    from ..settings import Settings
    from ..table.commands import Chat
    from ..table.hand import HandInPlay
    from ..table.ports import Viewer
    from ..table.seats import Seats

# Characters that are not text: the C0/C1 controls and DEL (category Cc), lone surrogates (Cs),
# and the bidirectional overrides and isolates, which turn the rest of a line (and what a
# browser draws after it) backwards.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class ChatRefusedError(Exception):
    """A line that is not sent: ``code`` and ``message`` of the ``error`` answer."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_text(text: str, max_chars: int) -> str:
    """The line as it is sent (surrounding spaces stripped), or :class:`ChatRefusedError`."""
    line = text.strip()
    if not line:
        raise ChatRefusedError(ErrorCode.CHAT_INVALID, "an empty line is not sent: write something")
    for char in line:
        if unicodedata.category(char) in ("Cc", "Cs") or char in _BIDI_CONTROLS:
            raise ChatRefusedError(
                ErrorCode.CHAT_INVALID,
                f"a chat line is text on one line: the control character U+{ord(char):04X} is not allowed",
            )
    if len(line) > max_chars:
        raise ChatRefusedError(
            ErrorCode.CHAT_TOO_LONG, f"a chat line is at most {max_chars} characters, not {len(line)}"
        )
    return line


class TableChat:
    """The chat of table ``table_id``: its last lines and each account's pace.

    ``watchers`` is the table's (the fan-out's) map of watching connections, ``now`` the table
    clock (Unix seconds): the lines' times and the rate limit run on it.
    """

    def __init__(
        self, table_id: int, settings: Settings, *, watchers: Mapping[int, Viewer], now: Callable[[], float]
    ) -> None:
        self.table_id = table_id
        self.max_chars = settings.chat_max_chars
        self.watchers_may_chat = settings.chat_watchers
        self.lines: deque[ChatLineInfo] = deque(maxlen=max(0, settings.chat_history_lines))
        self._watchers = watchers
        self._now = now
        self._pace = SlidingWindow(settings.chat_lines_per_window, settings.chat_window_seconds, clock=now)
        self._next_id = 1

    def snapshot(self) -> list[ChatLineInfo]:
        """The lines kept, oldest first (the snapshot's ``chat``)."""
        return list(self.lines)

    def find(self, line_id: int) -> ChatLineInfo | None:
        """A line still kept (a report names it by its id)."""
        return next((line for line in self.lines if line.id == line_id), None)

    async def lookup(self, line_id: int) -> ChatLineInfo | None:
        """:meth:`find` as the report route asks (in the cluster a gateway asks the owner)."""
        return self.find(line_id)

    async def on_chat(self, cmd: Chat, seats: Seats) -> None:
        """The table's handler of a ``chat`` command: the line to every watcher, or an error."""
        conn = cmd.conn
        assert conn is not None
        try:
            line = self._line(conn, cmd.text, seats)
        except ChatRefusedError as refused:
            conn.send(
                ErrorMsg(code=refused.code, message=refused.message, ref=cmd.ref, table_id=self.table_id)
            )
            return
        conn.send(AckMsg(ref=cmd.ref, request="chat", table_id=self.table_id))
        message = ChatLineMsg(table_id=self.table_id, line=line)
        text = encode(message)
        for viewer in list(self._watchers.values()):
            viewer.send_encoded(text, message)

    def _line(self, conn: Viewer, text: str, seats: Seats) -> ChatLineInfo:
        state = seats.of_account(conn.account_id)
        if state is None:
            if not self.watchers_may_chat:
                raise ChatRefusedError(
                    ErrorCode.CHAT_NOT_ALLOWED, "only the players seated at this table may chat here"
                )
            if conn.id not in self._watchers:
                raise ChatRefusedError(ErrorCode.NOT_JOINED, f"join table {self.table_id} first")
        checked = check_text(text, self.max_chars)
        # Counted only once the line is sound: a refused line costs nothing.
        if not self._pace.allow(conn.account_id):
            wait = int(self._pace.retry_after(conn.account_id)) + 1
            raise ChatRefusedError(
                ErrorCode.CHAT_RATE_LIMITED,
                f"you are chatting too fast: at most {self._pace.limit} lines in "
                f"{self._pace.window:g} s (try again in {wait} s)",
            )
        line = ChatLineInfo(
            id=self._next_id,
            at=self._now(),
            account_id=conn.account_id,
            name=conn.name,
            seat=None if state is None else state.seat,
            text=checked,
        )
        self._next_id += 1
        self.lines.append(line)
        return line


def hand_events(playing: HandInPlay | None, seat: int | None) -> list[dict[str, Any]]:
    """The events of the hand in progress as the viewer in ``seat`` may see them (the snapshot's
    ``hand_events``, from which a reloaded page writes its dealer log again): each as the live
    ``event`` carried it, the table's notes (``time_bank``) with it, so the log comes back the same."""
    if playing is None:
        return []
    return [playing.event_data(event) for event in playing.hand.events_for(playing.viewer(seat))]
