"""Table chat and its moderation (docs/server.md "Table chat", docs/protocol.md).

- ``lines.py``: :class:`TableChat`, one table's chat (who may speak, the text, the pace, the last
  lines kept for the snapshot), and :func:`hand_events`, the hand's events for the dealer log of
  a snapshot.
- ``moderation.py``: :class:`RoomModeration`, the operator's mutes and bans as the room holds
  them (read again from the store now and then: ``studpoker admin`` is another process).

The accounts' own mutes and the reports are REST (``server/api/chat.py``) over
:mod:`studpoker.store.moderation`.
"""

from .lines import ChatRefusedError, TableChat, check_text, hand_events
from .moderation import RoomModeration

__all__ = ["ChatRefusedError", "RoomModeration", "TableChat", "check_text", "hand_events"]
