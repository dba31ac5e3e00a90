"""Account names (issue 10, point 8): whole-string checks, NFKC + case folding, look-alike
skeletons kept unique by the database, the bots' namespace, and the migration of older names."""

from __future__ import annotations

import unicodedata

import pytest
from alembic import command
from sqlalchemy import insert, select, text
from sqlalchemy.exc import IntegrityError

from studpoker.store import AuthError, InvalidInputError, NameTakenError, Store
from studpoker.store import names as account_names
from studpoker.store.migrate import alembic_config, head_revision
from studpoker.store.schema import accounts

from .conftest import FAST_HASHER, FakeClock, open_store

CYRILLIC_A = "\u0430"


# ----------------------------------------------------------------------------- the keys


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("alice", f"{CYRILLIC_A}lice"),  # Cyrillic а
        ("ape", "\u0430\u0440\u0435"),  # "аре": a whole-script Cyrillic look-alike
        ("bob", "b0b"),  # zero and o
        ("lan", "Ian"),  # capital I and small l
        ("player1", "playerl"),  # one and l
        ("mary", "rnary"),  # rn and m
        ("ALICE", "AL1CE"),
        ("alice", "ａｌｉｃｅ"),  # full-width
    ],
)
def test_look_alikes_share_a_skeleton(one: str, other: str) -> None:
    assert account_names.skeleton(unicodedata.normalize("NFKC", one)) == account_names.skeleton(
        unicodedata.normalize("NFKC", other)
    )


@pytest.mark.parametrize(
    ("one", "other"), [("alice", "alise"), ("bob", "bop"), ("ian", "lan"), ("anna", "arma")]
)
def test_different_names_keep_different_skeletons(one: str, other: str) -> None:
    assert account_names.skeleton(one) != account_names.skeleton(other)


def test_the_key_is_nfkc_and_case_folded() -> None:
    assert account_names.check_name("ＡＬＩＣＥ").key == "alice"
    assert account_names.check_name("ＡＬＩＣＥ").display == "ALICE"
    assert account_names.check_name("Straße").key == "strasse"
    assert account_names.lookup_key("Alice") == "alice"


@pytest.mark.parametrize(
    "name",
    [
        "alice\n",  # `$` matched before a final newline
        "alice\r\n",
        "al ice",
        "alice\u200b",  # zero-width space
        "al\u3164ice",  # Hangul filler: a "letter" that shows nothing
        "alice\ufe0f",  # variation selector
        "\u0301abc",  # a mark with no letter under it
        "p\u0430ypal",  # Latin with a Cyrillic а: mixed scripts that look alike
    ],
)
def test_whole_string_is_checked(name: str) -> None:
    with pytest.raises(InvalidInputError, match="not allowed"):
        account_names.check_name(name)


@pytest.mark.parametrize("name", ["bot_t1_1", "BOT_x", "Bot-x", "b0t_x", "bot＿x", "B0T-1"])
def test_the_bots_namespace(name: str) -> None:
    assert account_names.check_name(name).is_bot_name


@pytest.mark.parametrize("name", ["botanist", "bottle", "robot_x", "abbot_x"])
def test_names_merely_with_bot_in_them_are_people_names(name: str) -> None:
    assert not account_names.check_name(name).is_bot_name


# ----------------------------------------------------------------------------- registration


async def test_a_name_with_a_final_newline_is_no_second_account(store: Store) -> None:
    await store.register("alice", "secret-pass")
    with pytest.raises(InvalidInputError):
        await store.register("alice\n", "secret-pass")
    async with store.engine.connect() as conn:
        assert await conn.scalar(text("select count(*) from accounts")) == 1


@pytest.mark.parametrize("other", ["ALICE", "ａｌｉｃｅ", "AL1CE", "ALlCE"])
async def test_normalised_and_look_alike_names_are_taken(store: Store, other: str) -> None:
    await store.register("ALICE", "secret-pass")
    with pytest.raises(NameTakenError):
        await store.register(other, "secret-pass")
    assert (await store.audit()).grants == store.starting_grant  # the refusal granted nothing


async def test_a_whole_script_look_alike_is_taken(store: Store) -> None:
    await store.register("copy", "secret-pass")
    with pytest.raises(NameTakenError, match="looks too much like 'copy'"):
        await store.register("\u0441\u043e\u0440\u0443", "secret-pass")  # Cyrillic "сору"
    await store.register("Алиса", "secret-pass")  # Cyrillic that looks like nobody is fine


async def test_full_width_name_is_stored_normalised_and_logs_in(store: Store) -> None:
    account = await store.register("ａｌｉｃｅ", "secret-pass")
    assert account.name == "alice"
    assert (await store.login("ALICE", "secret-pass")).account_id == account.id
    assert (await store.account_by_name("Ａｌｉｃｅ")).id == account.id
    with pytest.raises(AuthError):
        await store.login(f"{CYRILLIC_A}lice", "secret-pass")


async def test_people_cannot_register_in_the_bots_namespace(store: Store) -> None:
    for name in ("bot_t1_1", "Bot_t1_1", "b0t_t1_1", "bot-1"):
        with pytest.raises(InvalidInputError, match="kept for the room's bots"):
            await store.register(name, "secret-pass")
    assert (await store.audit()).grants == 0


async def test_the_database_keeps_names_and_look_alikes_unique(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unique indexes, not only the check in Python: with the check skipped, the second
    registration of a look-alike still fails, as NameTakenError, with nothing written."""
    await store.register("bob", "secret-pass")

    async def no_check(conn: object, checked: object) -> None:
        return None

    monkeypatch.setattr(store.accounts, "check_name_free", no_check)
    for other in ("BOB", "b0b"):
        with pytest.raises(NameTakenError):
            await store.register(other, "secret-pass")
    async with store.engine.connect() as conn:
        assert await conn.scalar(text("select count(*) from accounts")) == 1
        with pytest.raises(IntegrityError):
            await conn.execute(
                insert(accounts).values(
                    name="B0B",
                    name_key="b0b",
                    name_skeleton=account_names.skeleton("B0B"),
                    password_hash="x",
                    bankroll=0,
                    created_at=store.now(),
                    protected_count=0,
                )
            )
    assert (await store.audit()).grants == store.starting_grant


# ----------------------------------------------------------------------------- the migration


async def test_migration_keeps_older_names_working(fresh_db_url: str, clock: FakeClock) -> None:
    """A database of revision 0001 (names as older versions allowed them) migrated to head:
    every person's account still logs in; of two older names that look alike the older holds
    the skeleton (so a third look-alike is refused); a server-made bot account (no session)
    becomes a bot that cannot log in, a person's claim of a bot name (with a session) stays a
    person's."""
    old = await Store.open(fresh_db_url, migrate_schema=False, password_hasher=FAST_HASHER, clock=clock)
    try:
        async with old.engine.begin() as conn:

            def to_0001(sync_conn: object) -> None:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.upgrade(config, "0001")

            await conn.run_sync(to_0001)
            password_hash = FAST_HASHER.hash("secret-pass")
            for name in ("alice", "bobo", "bob0", "bot_t1_1", "bot_t2_1", "alice\n"):
                await conn.execute(
                    text(
                        "insert into accounts (name, name_key, password_hash, bankroll, created_at,"
                        " protected_count) values (:n, :k, :h, 0, :t, 0)"
                    ),
                    {"n": name, "k": name.lower(), "h": password_hash, "t": clock()},
                )
            claimed = await conn.scalar(text("select id from accounts where name = 'bot_t2_1'"))
            await conn.execute(
                text(
                    "insert into sessions (token_hash, account_id, created_at, expires_at, revoked)"
                    " values ('x', :a, :t, :t, false)"
                ),
                {"a": claimed, "t": clock()},
            )
    finally:
        await old.close()

    store = await open_store(fresh_db_url, clock)  # migrates to head
    try:
        async with store.engine.connect() as conn:
            assert await conn.scalar(text("select version_num from alembic_version")) == head_revision()
            rows = {
                r.name: r
                for r in (
                    await conn.execute(
                        select(
                            accounts.c.name,
                            accounts.c.name_skeleton,
                            accounts.c.is_bot,
                            accounts.c.password_hash,
                        )
                    )
                ).all()
            }
        assert rows["bobo"].name_skeleton == "bobo" and rows["bob0"].name_skeleton is None
        assert rows["bot_t1_1"].is_bot and rows["bot_t1_1"].password_hash == "!bot"
        assert not rows["bot_t2_1"].is_bot
        for name in ("alice", "bobo", "bob0", "bot_t2_1", "alice\n"):
            await store.login(name, "secret-pass")
        with pytest.raises(AuthError):
            await store.login("bot_t1_1", "secret-pass")
        with pytest.raises(NameTakenError):
            await store.register("b0bo", "secret-pass")
        with pytest.raises(NameTakenError, match="belongs to a person"):
            await store.create_bot_account("bot_t2_1")
        assert (await store.create_bot_account("bot_t1_1")).name == "bot_t1_1"
    finally:
        await store.close()


async def test_migration_0002_downgrades_and_upgrades_again(fresh_db_url: str, clock: FakeClock) -> None:
    store = await open_store(fresh_db_url, clock)
    try:
        await store.register("alice", "secret-pass")
        await store.create_bot_account("bot_t1_1")
        async with store.engine.begin() as conn:

            def to_0001(sync_conn: object) -> None:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0001")

            await conn.run_sync(to_0001)
    finally:
        await store.close()
    store = await open_store(fresh_db_url, clock)  # to head again
    try:
        await store.login("alice", "secret-pass")
        with pytest.raises(AuthError):
            await store.login("bot_t1_1", "!bot")
        assert (await store.audit()).balanced
    finally:
        await store.close()
