"""What an account keeps for itself: notes and colour tags on other players, and its keyboard
shortcuts. Nothing here is ever shown to anyone but the account that wrote it.

- A **note** is one account's (the writer's) text and colour tag about another player, one per
  pair: the text at most ``max_chars`` characters (may be empty when a colour is set), the colour
  one of :data:`PALETTE` or none. An account holds at most ``max_notes`` notes; past it a new
  one is refused (:class:`NoteLimitError`) while the old ones can still be edited. Every query
  is keyed by the writer: there is no call that reads another account's notes.
- **Shortcuts** bind each client action of :data:`DEFAULT_SHORTCUTS` to one key. An account
  stores only the bindings it changed; :func:`effective_shortcuts` lays them over the defaults.
- **Auto top-up** (issue 12): whether the seats the account takes are topped up to their buy-in
  before each hand (the client asks each table for it when it sits; server/table/top_up.py).

Every refusal is raised before anything is written (docs/store.md, "Refusals").
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from . import names
from .database import Database
from .errors import InvalidInputError, NotFoundError, StoreError
from .schema import account_preferences, accounts, player_notes

# The colour tags a note may carry (the client draws each as a dot of that colour).
PALETTE: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "purple")

# Every action the client binds to a key, with its default key. Keys are single characters,
# compared in lower case; "" leaves an action without a key.
DEFAULT_SHORTCUTS: Mapping[str, str] = MappingProxyType(
    {
        "fold": "f",
        "call": "c",  # check or call
        "bring_in": "b",
        "raise": "r",  # complete, bet or raise (the small one when there is a choice)
        "raise_big": "g",  # the big bet or raise on 4th street after an open pair
        "history": "h",  # show or hide the hand history
        "live_cards": "l",  # show or hide the live-cards tray
        "help": "?",  # the list of shortcuts
    }
)

# Names longer than this are no account's (names are at most 20 characters): not looked up.
_MAX_LOOKUP = 40
# Characters a note may hold besides the printable ones.
_ALLOWED_CONTROLS = frozenset("\n\t")


class NoteLimitError(StoreError):
    """The account already holds its ``max_notes`` notes: a note on a new player is refused."""

    code = "too_many_notes"
    status = 409


@dataclass(frozen=True, slots=True)
class PlayerNote:
    """What the writer keeps about one player: ``text`` (may be empty) and ``colour`` (or None)."""

    player_id: int
    player: str
    text: str
    colour: str | None
    updated_at: datetime


def check_note(text: object, colour: object, max_chars: int) -> tuple[str, str | None]:
    """The note as it will be stored (text stripped), or :class:`InvalidInputError`."""
    if not isinstance(text, str):
        raise InvalidInputError("a note's text must be a string")
    text = text.strip()
    if len(text) > max_chars:
        raise InvalidInputError(f"a note is at most {max_chars} characters, not {len(text)}")
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cs") and char not in _ALLOWED_CONTROLS:
            raise InvalidInputError(f"a note may not hold the control character U+{ord(char):04X}")
    if colour is not None and colour not in PALETTE:
        raise InvalidInputError(f"colour must be one of {', '.join(PALETTE)} (or null), not {colour!r}")
    if not text and colour is None:
        raise InvalidInputError("a note needs a text or a colour (delete it to remove it)")
    return text, colour


def check_key(action: str, key: object) -> str:
    """One binding's key in the form stored (lower case), or :class:`InvalidInputError`."""
    if not isinstance(key, str):
        raise InvalidInputError(f"the key of {action!r} must be a string")
    if key == "":
        return key
    lowered = key.lower()
    if len(lowered) != 1 or not lowered.isprintable() or lowered.isspace():
        raise InvalidInputError(f"the key of {action!r} must be one printable character, not {key!r}")
    return lowered


def check_shortcuts(given: object) -> dict[str, str]:
    """The bindings an account asks for, checked: known actions only, single keys, and no key
    bound to two actions once they are laid over the defaults. Returns the bindings that differ
    from the defaults (what is stored)."""
    if not isinstance(given, Mapping):
        raise InvalidInputError("shortcuts must be an object {action: key}")
    changed: dict[str, str] = {}
    for action, key in given.items():
        if action not in DEFAULT_SHORTCUTS:
            raise InvalidInputError(
                f"unknown action {action!r}; the actions are {', '.join(DEFAULT_SHORTCUTS)}"
            )
        checked = check_key(action, key)
        if checked != DEFAULT_SHORTCUTS[action]:
            changed[action] = checked
    owner: dict[str, str] = {}
    for action, key in {**DEFAULT_SHORTCUTS, **changed}.items():
        if not key:
            continue
        if key in owner:
            raise InvalidInputError(f"the key {key!r} is bound to both {owner[key]!r} and {action!r}")
        owner[key] = action
    return changed


def effective_shortcuts(changed: Mapping[str, str]) -> dict[str, str]:
    """Every action's key: the account's bindings over the defaults. A default whose key the
    account gave to another action (possible once a later version adds or moves a default) is
    left without a key, so no key ever fires two actions."""
    mine = {action: key for action, key in changed.items() if action in DEFAULT_SHORTCUTS}
    taken = {key for key in mine.values() if key}
    return {
        action: mine.get(action, "" if default in taken else default)
        for action, default in DEFAULT_SHORTCUTS.items()
    }


async def _player(conn: AsyncConnection, name: str) -> tuple[int, str]:
    """The id and shown name of the account named ``name``; :class:`NotFoundError` if none."""
    if not 0 < len(name) <= _MAX_LOOKUP:
        raise NotFoundError(f"no player named {name!r}")
    row = (
        await conn.execute(
            select(accounts.c.id, accounts.c.name).where(accounts.c.name_key == names.lookup_key(name))
        )
    ).first()
    if row is None:
        raise NotFoundError(f"no player named {name!r}")
    return int(row.id), str(row.name)


class PlayerNotes:
    """Notes and colour tags, each read and written by its writer only."""

    def __init__(self, db: Database, *, max_chars: int, max_notes: int) -> None:
        self.db = db
        self.max_chars = max_chars
        self.max_notes = max_notes

    async def notes(self, account_id: int) -> list[PlayerNote]:
        """Every note the account wrote, by player name."""
        query = (
            select(player_notes, accounts.c.name)
            .join(accounts, accounts.c.id == player_notes.c.player_id)
            .where(player_notes.c.account_id == account_id)
            .order_by(accounts.c.name_key)
        )
        async with self.db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [PlayerNote(int(r.player_id), str(r.name), str(r.text), r.colour, r.updated_at) for r in rows]

    async def note(self, account_id: int, player_name: str) -> PlayerNote:
        """The account's note on the player; :class:`NotFoundError` for an unknown player or
        when there is no note on him."""
        async with self.db.read() as conn:
            player_id, shown = await _player(conn, player_name)
            row = (
                await conn.execute(
                    select(player_notes).where(
                        player_notes.c.account_id == account_id, player_notes.c.player_id == player_id
                    )
                )
            ).first()
        if row is None:
            raise NotFoundError(f"you have no note on {shown}")
        return PlayerNote(player_id, shown, str(row.text), row.colour, row.updated_at)

    async def set_note(
        self, account_id: int, player_name: str, *, text: object, colour: object
    ) -> PlayerNote:
        """Write (or replace) the account's note on the player."""
        text, checked_colour = check_note(text, colour, self.max_chars)
        async with self.db.write() as conn:
            player_id, shown = await _player(conn, player_name)
            if player_id == account_id:
                raise InvalidInputError("notes are on other players, not on yourself")
            # The writer's row locked: two notes of one account are written one after the other,
            # so the count below holds (PostgreSQL; SQLite writes are serialized anyway).
            owner = await conn.scalar(
                select(accounts.c.id).where(accounts.c.id == account_id).with_for_update()
            )
            if owner is None:
                raise NotFoundError(f"no account with id {account_id!r}")
            now = self.db.now()
            values = {"text": text, "colour": checked_colour, "updated_at": now}
            changed = await conn.execute(
                update(player_notes)
                .where(player_notes.c.account_id == account_id, player_notes.c.player_id == player_id)
                .values(**values)
            )
            if changed.rowcount == 0:
                held = await conn.scalar(
                    select(func.count())
                    .select_from(player_notes)
                    .where(player_notes.c.account_id == account_id)
                )
                if int(held or 0) >= self.max_notes:
                    raise NoteLimitError(
                        f"you already keep {self.max_notes} notes: delete one to write about {shown}"
                    )
                await conn.execute(
                    insert(player_notes).values(account_id=account_id, player_id=player_id, **values)
                )
        return PlayerNote(player_id, shown, text, checked_colour, now)

    async def delete_note(self, account_id: int, player_name: str) -> None:
        """Remove the account's note on the player; :class:`NotFoundError` if there is none."""
        async with self.db.write() as conn:
            player_id, shown = await _player(conn, player_name)
            removed = await conn.execute(
                delete(player_notes).where(
                    player_notes.c.account_id == account_id, player_notes.c.player_id == player_id
                )
            )
        if removed.rowcount == 0:
            raise NotFoundError(f"you have no note on {shown}")


# The preference kept beside the bindings in the account's preferences document (not an action).
AUTO_TOP_UP = "auto_top_up"


class Preferences:
    """An account's client preferences: its keyboard shortcuts and its auto top-up. They are one
    JSON object in the account's preferences row: the changed bindings by action (strings), and
    ``auto_top_up: true`` when that is on (no schema change: the row's text holds both)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def _document(self, account_id: int) -> dict[str, object]:
        async with self.db.read() as conn:
            stored = await conn.scalar(
                select(account_preferences.c.shortcuts).where(account_preferences.c.account_id == account_id)
            )
        return _document(stored)

    async def shortcuts(self, account_id: int) -> dict[str, str]:
        """Every action's key for the account (:func:`effective_shortcuts`)."""
        return effective_shortcuts(_bindings(await self._document(account_id)))

    async def auto_top_up(self, account_id: int) -> bool:
        """Whether the account's seats top up to their buy-in before each hand (off by default)."""
        return (await self._document(account_id)).get(AUTO_TOP_UP) is True

    async def set_auto_top_up(self, account_id: int, on: object) -> bool:
        """Turn the auto top-up on or off (``on`` a boolean, else :class:`InvalidInputError`)."""
        if not isinstance(on, bool):
            raise InvalidInputError(f"auto_top_up must be true or false, not {on!r}")
        await self._write(account_id, lambda document: {**document, AUTO_TOP_UP: on})
        return on

    async def set_shortcuts(self, account_id: int, shortcuts: object) -> dict[str, str]:
        """Bind the actions given (the others keep their defaults); returns every action's key.
        ``{}`` restores the defaults."""
        changed = check_shortcuts(shortcuts)
        # The bindings are replaced; the other preferences (not strings) are kept.
        await self._write(account_id, lambda document: {**_others(document), **changed})
        return effective_shortcuts(changed)

    async def _write(self, account_id: int, change: Callable[[dict[str, object]], dict[str, object]]) -> None:
        """Replace the account's preferences document by ``change`` of it, in one transaction."""
        async with self.db.write() as conn:
            # The account's row locked first: two first writes of one account's preferences
            # run one after the other, and the second updates what the first inserted.
            exists = await conn.scalar(
                select(accounts.c.id).where(accounts.c.id == account_id).with_for_update()
            )
            if exists is None:
                raise NotFoundError(f"no account with id {account_id!r}")
            stored = await conn.scalar(
                select(account_preferences.c.shortcuts).where(account_preferences.c.account_id == account_id)
            )
            encoded = json.dumps(change(_document(stored)), sort_keys=True)
            now = self.db.now()
            updated = await conn.execute(
                update(account_preferences)
                .where(account_preferences.c.account_id == account_id)
                .values(shortcuts=encoded, updated_at=now)
            )
            if updated.rowcount == 0:
                await conn.execute(
                    insert(account_preferences).values(
                        account_id=account_id, shortcuts=encoded, updated_at=now
                    )
                )


def _document(stored: str | None) -> dict[str, object]:
    """The stored preferences document; a record that is not a JSON object counts as empty."""
    if stored is None:
        return {}
    try:
        value = json.loads(stored)
    except ValueError:
        return {}
    return {str(k): v for k, v in value.items()} if isinstance(value, dict) else {}


def _bindings(document: Mapping[str, object]) -> dict[str, str]:
    """The document's bindings: its string values (the other preferences are not strings)."""
    return {k: v for k, v in document.items() if isinstance(v, str)}


def _others(document: Mapping[str, object]) -> dict[str, object]:
    """The document's preferences other than the bindings."""
    return {k: v for k, v in document.items() if not isinstance(v, str)}
