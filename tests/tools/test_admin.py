"""``studpoker admin``: the operator mutes, unmutes, bans and unbans accounts in the database,
reads an account's standing and the reported chat lines; a running room obeys (issue 12)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from studpoker.cli import main
from studpoker.store import Store, TableConfig
from studpoker.store.moderation import BannedError

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    """A SQLite room with alice, bob and one table, and one line of alice's reported by bob."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'room.sqlite3'}"

    async def make() -> None:
        store = await Store.open(url, password_hasher=FAST_HASHER)
        try:
            alice = await store.register("alice", "alice-password")
            bob = await store.register("bob", "bob-password")
            table = await store.create_table(TableConfig.derive("Stud 1/2", "7S", 100, 200))
            await store.moderation.report(
                reporter_id=bob.id,
                speaker_id=alice.id,
                table_id=table.id,
                line_id=3,
                text="\x1b[2Jgotcha",
                said_at=datetime(2026, 12, 1, 20, 15, tzinfo=UTC),
                reason="spam",
                per_hour=10,
            )
        finally:
            await store.close()

    asyncio.run(make())
    yield url


def login(url: str, name: str) -> None:
    async def attempt() -> None:
        store = await Store.open(url, password_hasher=FAST_HASHER)
        try:
            await store.login(name, f"{name}-password")
        finally:
            await store.close()

    asyncio.run(attempt())


def test_mute_ban_and_lift(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--database-url", db_url, "mute", "ALICE", "--reason", "flooding"]) == 0
    assert capsys.readouterr().out == "alice is muted: the room refuses its chat at every table (flooding)\n"
    login(db_url, "alice")  # muted, not banned
    # the URL may come after the action too
    assert main(["admin", "ban", "alice", "--database-url", db_url]) == 0
    assert "alice is banned" in capsys.readouterr().out
    with pytest.raises(BannedError):
        login(db_url, "alice")
    login(db_url, "bob")
    assert main(["admin", "--database-url", db_url, "status", "alice"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "alice (account 1): muted, banned"
    assert [line.split("UTC  ")[1] for line in out[1:]] == ["mute: flooding", "ban"]
    assert main(["admin", "--database-url", db_url, "unban", "alice"]) == 0
    assert main(["admin", "--database-url", db_url, "unmute", "alice"]) == 0
    capsys.readouterr()
    login(db_url, "alice")
    assert main(["admin", "--database-url", db_url, "status", "alice", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["name"], status["muted"], status["banned"]) == ("alice", False, False)
    assert [e["action"] for e in status["log"]] == ["mute", "ban", "unban", "unmute"]


def test_refusals(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--database-url", db_url, "ban", "nobody"]) == 1
    assert "no player named 'nobody'" in capsys.readouterr().err
    assert main(["admin", "--database-url", db_url, "mute", "alice", "--reason", "x" * 401]) == 1
    assert "at most 400" in capsys.readouterr().err
    login(db_url, "alice")  # nothing was written
    assert main(["admin", "--database-url", db_url, "status", "alice"]) == 0
    assert capsys.readouterr().out == "alice (account 1): in good standing\n"
    missing = f"sqlite+aiosqlite:///{tmp_path / 'none.sqlite3'}"
    assert main(["admin", "--database-url", missing, "ban", "alice"]) == 2
    assert "no database" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["admin", "--database-url", db_url, "kick", "alice"])


def test_reports(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--database-url", db_url, "reports"]) == 0
    out = capsys.readouterr().out
    # the player's text is quoted: the escape sequence in it reaches no terminal
    assert out == (
        "#1 2026-12-01 20:15:00 UTC Stud 1/2 (table 1): alice: '\\x1b[2Jgotcha' - reported by bob ('spam')\n"
    )
    assert "\x1b" not in out
    assert main(["admin", "--database-url", db_url, "reports", "--json"]) == 0
    [report] = json.loads(capsys.readouterr().out)
    assert (report["speaker"], report["reporter"], report["text"], report["line_id"]) == (
        "alice",
        "bob",
        "\x1b[2Jgotcha",
        3,
    )


async def test_a_running_room_obeys(tmp_path: Path) -> None:
    """The command writes to the database of a room that is running (another process, as far
    as the room knows): her chat is refused, then her socket closed."""
    from tests.server.conftest import make_settings, running_server

    settings = make_settings(tmp_path, hand_pause_seconds=10**6, moderation_refresh_seconds=0.0)
    async with running_server(settings) as h:
        actor = await h.add_table()
        alice = await h.player("alice")
        await h.seat(alice, actor.table_id, 1, 4000)
        url = settings.database_url
        assert await asyncio.to_thread(main, ["admin", "--database-url", url, "mute", "alice"]) == 0
        answer = await alice.request(type="chat", table_id=actor.table_id, text="hello")
        assert answer["code"] == "chat_muted", answer
        assert await asyncio.to_thread(main, ["admin", "--database-url", url, "ban", "alice"]) == 0
        await alice.send(type="ping")
        assert (await alice.wait_for("error"))["code"] == "banned"
        await asyncio.wait_for(alice.closed.wait(), 5)
