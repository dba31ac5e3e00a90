"""Player notes, colour tags and keyboard shortcuts (studpoker.store.notes): each account's own,
never another's; every refusal leaves what was stored as it was. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from studpoker.store import Account, InvalidInputError, NotFoundError, Store
from studpoker.store.notes import (
    DEFAULT_SHORTCUTS,
    PALETTE,
    NoteLimitError,
    PlayerNotes,
    Preferences,
    effective_shortcuts,
)
from tests.store.conftest import FakeClock, open_store


def notes_of(store: Store, *, max_chars: int = 500, max_notes: int = 1000) -> PlayerNotes:
    return PlayerNotes(store.database, max_chars=max_chars, max_notes=max_notes)


async def summary(notes: PlayerNotes, account: Account) -> list[tuple[str, str, str | None]]:
    return [(n.player, n.text, n.colour) for n in await notes.notes(account.id)]


async def test_a_note_is_its_writers_alone(store: Store, players: list[Account], clock: FakeClock) -> None:
    alice, bob, carol = players
    notes = notes_of(store)
    written = await notes.set_note(alice.id, "carol", text="  calls down light  ", colour="red")
    assert (written.player, written.player_id, written.text, written.colour) == (
        "carol",
        carol.id,
        "calls down light",
        "red",
    )
    assert written.updated_at == clock.now
    await notes.set_note(alice.id, "BOB", text="", colour="blue")  # names are looked up as logins are
    await notes.set_note(bob.id, "carol", text="bob's own view", colour=None)

    assert await summary(notes, alice) == [("bob", "", "blue"), ("carol", "calls down light", "red")]
    assert await summary(notes, bob) == [("carol", "bob's own view", None)]
    assert await summary(notes, carol) == []
    # bob asking about carol gets his note, never alice's; about alice, nothing
    assert (await notes.note(bob.id, "carol")).text == "bob's own view"
    with pytest.raises(NotFoundError, match="no note on alice"):
        await notes.note(bob.id, "alice")
    with pytest.raises(NotFoundError, match="no player named"):
        await notes.note(alice.id, "nobody")


async def test_a_note_is_replaced_and_deleted(store: Store, players: list[Account], clock: FakeClock) -> None:
    alice, bob, _ = players
    notes = notes_of(store)
    await notes.set_note(alice.id, "bob", text="tight", colour="green")
    clock.advance(minutes=5)
    again = await notes.set_note(alice.id, "bob", text="loose now", colour=None)
    assert (again.text, again.colour, again.updated_at) == ("loose now", None, clock.now)
    assert await summary(notes, alice) == [("bob", "loose now", None)]
    await notes.delete_note(alice.id, "bob")
    assert await summary(notes, alice) == []
    with pytest.raises(NotFoundError):
        await notes.delete_note(alice.id, "bob")
    with pytest.raises(NotFoundError):
        await notes.delete_note(alice.id, "nobody")
    # deleting is the writer's: bob's note on alice survives alice deleting hers on bob
    await notes.set_note(bob.id, "alice", text="bluffs", colour="purple")
    await notes.set_note(alice.id, "bob", text="x", colour=None)
    await notes.delete_note(alice.id, "bob")
    assert await summary(notes, bob) == [("alice", "bluffs", "purple")]


@pytest.mark.parametrize(
    ("player", "fields", "refusal"),
    [
        ("bob", {"text": "x" * 41, "colour": None}, "at most 40 characters"),
        ("bob", {"text": "ok", "colour": "pink"}, "colour must be one of"),
        ("bob", {"text": "ok", "colour": "RED"}, "colour must be one of"),
        ("bob", {"text": "   ", "colour": None}, "needs a text or a colour"),
        ("bob", {"text": "a\x00b", "colour": None}, "control character"),
        ("bob", {"text": 5, "colour": None}, "must be a string"),
        ("alice", {"text": "me", "colour": "red"}, "not on yourself"),
    ],
)
async def test_refusals_change_nothing(
    store: Store, players: list[Account], player: str, fields: dict[str, Any], refusal: str
) -> None:
    alice, _, _ = players
    notes = notes_of(store, max_chars=40)
    await notes.set_note(alice.id, "bob", text="before", colour="yellow")
    with pytest.raises(InvalidInputError, match=refusal):
        await notes.set_note(alice.id, player, **fields)
    assert await summary(notes, alice) == [("bob", "before", "yellow")]


async def test_a_text_of_the_limit_and_every_colour_are_taken(store: Store, players: list[Account]) -> None:
    alice, _, _ = players
    notes = notes_of(store, max_chars=40)
    for colour in PALETTE:
        await notes.set_note(alice.id, "bob", text="é" * 40 + "\n", colour=colour)
        assert (await notes.note(alice.id, "bob")).colour == colour
    assert (await notes.note(alice.id, "bob")).text == "é" * 40


async def test_the_notes_per_account_limit(store: Store, players: list[Account]) -> None:
    alice, _, _ = players
    notes = notes_of(store, max_notes=1)
    await notes.set_note(alice.id, "bob", text="one", colour=None)
    with pytest.raises(NoteLimitError, match="already keep 1 notes"):
        await notes.set_note(alice.id, "carol", text="two", colour=None)
    await notes.set_note(alice.id, "bob", text="one, edited", colour=None)  # editing is not a new note
    assert await summary(notes, alice) == [("bob", "one, edited", None)]


async def test_shortcuts_default_and_are_kept_per_account(store: Store, players: list[Account]) -> None:
    alice, bob, _ = players
    preferences = Preferences(store.database)
    assert await preferences.shortcuts(alice.id) == dict(DEFAULT_SHORTCUTS)
    mine = await preferences.set_shortcuts(alice.id, {"call": "X", "help": "/"})
    assert mine == {**DEFAULT_SHORTCUTS, "call": "x", "help": "/"}
    assert await preferences.shortcuts(alice.id) == mine
    assert await preferences.shortcuts(bob.id) == dict(DEFAULT_SHORTCUTS)
    # a binding moved back, another key freed; {} restores the defaults
    again = await preferences.set_shortcuts(alice.id, {"call": "c", "fold": ""})
    assert again == {**DEFAULT_SHORTCUTS, "fold": ""}
    assert await preferences.set_shortcuts(alice.id, {}) == dict(DEFAULT_SHORTCUTS)
    assert await preferences.shortcuts(alice.id) == dict(DEFAULT_SHORTCUTS)


@pytest.mark.parametrize(
    ("shortcuts", "refusal"),
    [
        ({"dance": "d"}, "unknown action"),
        ({"call": "xy"}, "one printable character"),
        ({"call": " "}, "one printable character"),
        ({"call": "\t"}, "one printable character"),
        ({"call": "f"}, "bound to both"),  # fold keeps its default f
        ({"call": "k", "raise": "K"}, "bound to both"),
        ({"call": 3}, "must be a string"),
        (["call"], "must be an object"),
    ],
)
async def test_shortcut_refusals_change_nothing(
    store: Store, players: list[Account], shortcuts: Any, refusal: str
) -> None:
    alice, _, _ = players
    preferences = Preferences(store.database)
    kept = await preferences.set_shortcuts(alice.id, {"call": "x"})
    with pytest.raises(InvalidInputError, match=refusal):
        await preferences.set_shortcuts(alice.id, shortcuts)
    assert await preferences.shortcuts(alice.id) == kept


def test_a_later_default_never_shares_a_key_with_a_binding() -> None:
    # an account that bound "l" before live_cards took it as its default keeps it; live_cards has none
    assert effective_shortcuts({"fold": "l"}) == {**DEFAULT_SHORTCUTS, "fold": "l", "live_cards": ""}
    assert effective_shortcuts({"gone": "z"}) == dict(DEFAULT_SHORTCUTS)


async def test_an_unknown_account_writes_nothing(store: Store, players: list[Account]) -> None:
    with pytest.raises(NotFoundError, match="no account"):
        await Preferences(store.database).set_shortcuts(999, {"call": "x"})
    with pytest.raises(NotFoundError, match="no account"):
        await notes_of(store).set_note(999, "bob", text="x", colour=None)


async def test_migration_0004_downgrades_and_upgrades_again(fresh_db_url: str, clock: FakeClock) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from studpoker.store.migrate import alembic_config

    store = await open_store(fresh_db_url, clock)
    try:
        alice, _ = await store.register("alice", "secret-pass"), await store.register("bob", "secret-pass")
        await notes_of(store).set_note(alice.id, "bob", text="gone after the downgrade", colour="red")
        await Preferences(store.database).set_shortcuts(alice.id, {"call": "x"})
        async with store.engine.begin() as conn:

            def to_0003(sync_conn: Any) -> list[str]:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0003")
                return list(inspect(sync_conn).get_table_names())

            left = await conn.run_sync(to_0003)
        assert "player_notes" not in left and "account_preferences" not in left and "accounts" in left
    finally:
        await store.close()
    store = await open_store(fresh_db_url, clock)  # to head again
    try:
        assert await summary(notes_of(store), alice) == []
        assert await Preferences(store.database).shortcuts(alice.id) == dict(DEFAULT_SHORTCUTS)
    finally:
        await store.close()
