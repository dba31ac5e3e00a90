"""Chat moderation in the store (studpoker.store.moderation): the operator's mutes and bans (a
ban refuses the login and every session), each account's own mutes, reported lines; every
refusal leaves what was stored as it was. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from studpoker.store import (
    Account,
    AuthError,
    InvalidInputError,
    LimitError,
    NotFoundError,
    Store,
    TableRecord,
)
from studpoker.store.moderation import BannedError, Moderated, MuteLimitError
from studpoker.store.schema import chat_mutes, chat_reports, moderation_log
from tests.store.conftest import FakeClock, open_store


async def count(store: Store, table: Any) -> int:
    async with store.engine.connect() as conn:
        return int(await conn.scalar(select(func.count()).select_from(table)) or 0)


async def test_the_operator_mutes_and_unmutes(store: Store, players: list[Account], clock: FakeClock) -> None:
    alice, bob, _ = players
    moderation = store.moderation
    assert await moderation.moderated() == Moderated(frozenset(), frozenset())
    status = await moderation.moderate("ALICE", "mute", reason="  spam  ")
    assert (status.account_id, status.name, status.muted, status.banned, status.reason) == (
        alice.id,
        "alice",
        True,
        False,
        "spam",
    )
    assert await moderation.moderated() == Moderated(frozenset({alice.id}), frozenset())
    clock.advance(minutes=1)
    await moderation.moderate("alice", "unmute")
    assert await moderation.moderated() == Moderated(frozenset(), frozenset())
    now, log = await moderation.status("alice")
    assert (now.muted, now.banned) == (False, False)
    assert [(e.action, e.reason) for e in log] == [("mute", "spam"), ("unmute", None)]
    assert log[1].created_at - log[0].created_at == timedelta(minutes=1)
    # a muted account still logs in: only its chat is refused (by the server)
    await moderation.moderate("alice", "mute")
    await store.login("alice", "alice-password")
    untouched, history = await moderation.status("bob")
    assert (untouched.account_id, untouched.muted, untouched.banned, history) == (bob.id, False, False, [])


async def test_a_ban_refuses_the_login_and_every_session(store: Store, players: list[Account]) -> None:
    alice, bob, _ = players
    session = await store.login("alice", "alice-password")
    other = await store.login("bob", "bob-password")
    status = await store.moderation.moderate("alice", "ban", reason="collusion")
    assert status.banned and not status.muted
    assert await store.moderation.moderated() == Moderated(frozenset(), frozenset({alice.id}))
    with pytest.raises(BannedError, match="banned") as refused:
        await store.authenticate(session.token)
    assert (refused.value.code, refused.value.status) == ("banned", 403)
    assert isinstance(refused.value, AuthError)  # whoever checks sessions refuses it already
    with pytest.raises(BannedError, match="banned"):
        await store.login("alice", "alice-password")
    # a wrong password learns nothing about the ban
    with pytest.raises(AuthError, match="wrong name or password") as wrong:
        await store.login("alice", "not-her-password")
    assert not isinstance(wrong.value, BannedError)
    assert (await store.authenticate(other.token)).id == bob.id  # others keep theirs
    # unbanned: the old sessions stay revoked, a new login works
    await store.moderation.moderate("alice", "unban")
    with pytest.raises(AuthError, match="logged out"):
        await store.authenticate(session.token)
    again = await store.login("alice", "alice-password")
    assert (await store.authenticate(again.token)).id == alice.id


async def test_operator_refusals_change_nothing(store: Store, players: list[Account]) -> None:
    with pytest.raises(NotFoundError, match="no player named"):
        await store.moderation.moderate("nobody", "ban")
    with pytest.raises(InvalidInputError, match="unknown action"):
        await store.moderation.moderate("alice", "kick")
    with pytest.raises(InvalidInputError, match="at most 400"):
        await store.moderation.moderate("alice", "ban", reason="x" * 401)
    with pytest.raises(InvalidInputError, match="control"):
        await store.moderation.moderate("alice", "ban", reason="a\x07b")
    assert await count(store, moderation_log) == 0
    assert await store.moderation.moderated() == Moderated(frozenset(), frozenset())
    await store.login("alice", "alice-password")


async def test_an_account_mutes_players_for_itself(store: Store, players: list[Account]) -> None:
    alice, bob, carol = players
    moderation = store.moderation
    first = await moderation.mute_player(alice.id, "Bob", limit=2)
    assert (first.account_id, first.name) == (bob.id, "bob")
    assert (await moderation.mute_player(alice.id, "bob", limit=2)).created_at == first.created_at
    await moderation.mute_player(alice.id, "carol", limit=2)
    assert [(m.account_id, m.name) for m in await moderation.chat_mutes(alice.id)] == [
        (bob.id, "bob"),
        (carol.id, "carol"),
    ]
    assert await moderation.chat_mutes(bob.id) == []  # nobody else's list
    await moderation.unmute_player(alice.id, "bob")
    assert [m.name for m in await moderation.chat_mutes(alice.id)] == ["carol"]
    with pytest.raises(NotFoundError, match="not muted bob"):
        await moderation.unmute_player(alice.id, "bob")


async def test_mute_refusals_change_nothing(store: Store, players: list[Account]) -> None:
    alice = players[0]
    await store.moderation.mute_player(alice.id, "bob", limit=1)
    with pytest.raises(MuteLimitError, match="already mute 1"):
        await store.moderation.mute_player(alice.id, "carol", limit=1)
    with pytest.raises(InvalidInputError, match="yourself"):
        await store.moderation.mute_player(alice.id, "alice", limit=5)
    with pytest.raises(NotFoundError, match="no player named"):
        await store.moderation.mute_player(alice.id, "nobody", limit=5)
    with pytest.raises(NotFoundError, match="no account"):
        await store.moderation.mute_player(999, "bob", limit=5)
    assert await count(store, chat_mutes) == 1


async def test_a_report_keeps_the_line_for_the_operator(
    store: Store, players: list[Account], table: TableRecord, clock: FakeClock
) -> None:
    alice, bob, carol = players
    said = clock.now - timedelta(seconds=30)
    line: dict[str, Any] = {
        "speaker_id": bob.id,
        "table_id": table.id,
        "line_id": 7,
        "text": "<b>rude</b>",
        "said_at": said,
    }
    first = await store.moderation.report(reporter_id=alice.id, reason="abuse", per_hour=2, **line)
    # the same line again is the same report, and is not counted again
    assert await store.moderation.report(reporter_id=alice.id, per_hour=2, **line) == first
    await store.moderation.report(reporter_id=carol.id, per_hour=2, **line)
    [newest, oldest] = await store.moderation.reports()
    assert oldest.id == first
    assert (oldest.reporter, oldest.speaker, oldest.speaker_id, oldest.table, oldest.line_id) == (
        "alice",
        "bob",
        bob.id,
        "Stud 1/2",
        7,
    )
    assert (oldest.text, oldest.said_at, oldest.reason, oldest.created_at) == (
        "<b>rude</b>",
        said,
        "abuse",
        clock.now,
    )
    assert newest.reporter == "carol"
    assert [r.id for r in await store.moderation.reports(limit=1)] == [newest.id]


async def test_report_refusals_change_nothing(
    store: Store, players: list[Account], table: TableRecord, clock: FakeClock
) -> None:
    alice, bob, _ = players

    def line(n: int) -> dict[str, Any]:
        return {"speaker_id": bob.id, "table_id": table.id, "line_id": n, "text": "hi", "said_at": clock.now}

    await store.moderation.report(reporter_id=alice.id, per_hour=2, **line(1))
    await store.moderation.report(reporter_id=alice.id, per_hour=2, **line(2))
    with pytest.raises(LimitError, match="2 lines in the last hour"):
        await store.moderation.report(reporter_id=alice.id, per_hour=2, **line(3))
    with pytest.raises(InvalidInputError, match="your own line"):
        await store.moderation.report(reporter_id=bob.id, per_hour=2, **line(4))
    with pytest.raises(InvalidInputError, match="at most 400"):
        await store.moderation.report(reporter_id=bob.id + 1, per_hour=9, reason="x" * 401, **line(5))
    assert await count(store, chat_reports) == 2
    clock.advance(hours=1, seconds=1)  # an hour later the budget is back
    await store.moderation.report(reporter_id=alice.id, per_hour=2, **line(3))


async def test_migration_0005_downgrades_and_upgrades_again(fresh_db_url: str, clock: FakeClock) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from studpoker.store.migrate import alembic_config

    store = await open_store(fresh_db_url, clock)
    try:
        alice = await store.register("alice", "secret-pass")
        await store.register("bob", "secret-pass")
        await store.moderation.moderate("bob", "ban")
        await store.moderation.mute_player(alice.id, "bob", limit=5)
        async with store.engine.begin() as conn:

            def to_0004(sync_conn: Any) -> list[str]:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0004")
                return list(inspect(sync_conn).get_table_names())

            left = await conn.run_sync(to_0004)
        gone = {"account_moderation", "moderation_log", "chat_mutes", "chat_reports"}
        assert not gone & set(left) and "player_notes" in left
    finally:
        await store.close()
    store = await open_store(fresh_db_url, clock)  # to head again: the ban is gone with 0005
    try:
        await store.login("bob", "secret-pass")
        assert await store.moderation.chat_mutes(alice.id) == []
    finally:
        await store.close()
