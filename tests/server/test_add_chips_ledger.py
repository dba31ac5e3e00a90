"""Chips added during a hand and auto top-ups in the real room: every chip through the ledger
(R-NOTHING-CREATED-OR-LOST), the store's seats the table's, the audit balanced; an auto top-up
the bankroll cannot cover is turned off and said; the preference is kept with the account."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import select

from studpoker.server.table import StartHand
from studpoker.store.schema import ledger_entries, ledger_transactions
from tests.server.conftest import Client, Harness, autoplay, make_settings, running_server


async def add_chips_moves(harness: Harness, account_id: int) -> list[int]:
    """What each ``add_chips`` ledger transaction of the account moved onto its seat."""
    query = (
        select(ledger_entries.c.amount)
        .join(ledger_transactions, ledger_transactions.c.id == ledger_entries.c.txn_id)
        .where(
            ledger_transactions.c.kind == "add_chips",
            ledger_transactions.c.account_id == account_id,
            ledger_entries.c.book == "seat",
        )
        .order_by(ledger_transactions.c.id)
    )
    async with harness.store.database.read() as conn:
        return [int(amount) for amount in (await conn.execute(query)).scalars()]


def told(client: Client) -> list[dict[str, Any]]:
    return [m for m in client.log if m["type"] == "chips"]


async def test_chips_during_a_hand_and_auto_top_ups_go_through_the_ledger(tmp_path: Path) -> None:
    # A long pause after the hand: the seats are read before the next one starts.
    async with running_server(make_settings(tmp_path, hand_pause_seconds=60.0)) as harness:
        await chips_through_the_ledger(harness)


async def chips_through_the_ledger(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    table_id = actor.table_id
    token = await harness.register("alice")
    alice = await harness.connect(token, "alice")
    # Her second socket (not at the table) sends the add: her table socket's messages stay
    # for autoplay.
    phone = await harness.connect(token, "alice's phone")
    bob = await harness.player("bob")
    await harness.seat(bob, table_id, 2, 3000)
    # Bob keeps his seat at his buy-in before the hand starts; then alice sits.
    assert (await bob.request(type="auto_top_up", table_id=table_id, amount=3000))["type"] == "ack"
    ids = {name: (await harness.store.account_by_name(name)).id for name in ("alice", "bob")}
    await harness.seat(alice, table_id, 1, 3000)
    # The hand is dealt now (not after the pause), and the chips are added during it.
    await actor.call(StartHand())
    assert actor.hand is not None
    answer = await phone.request(type="add_chips", table_id=table_id, amount=1200)
    assert answer["type"] == "ack", answer
    finished = await asyncio.gather(autoplay(alice), autoplay(bob))
    final = {int(k): v for k, v in finished[0][0]["result"]["final_stacks"].items()}
    await alice.wait_for(lambda m: m["type"] == "chips" and m["added"] > 0)
    if final[2] < 3000:
        await bob.wait_for(lambda m: m["type"] == "chips" and m["added"] > 0)
    assert actor.hand is None
    assert [m["pending"] for m in told(alice)][:1] == [1200]
    await harness.audit()
    # The stacks the table has are the store's, and the chips came out of the bankrolls.
    seats = await harness.store.seats(table_id)
    for seat in (1, 2):
        assert seats[seat].stack == actor.seats[seat].stack
    assert actor.seats[1].stack == min(final[1] + 1200, 10000)
    assert await add_chips_moves(harness, ids["alice"]) == [actor.seats[1].stack - final[1]]
    topped = max(0, 3000 - final[2])
    assert await add_chips_moves(harness, ids["bob"]) == ([topped] if topped else [])
    assert actor.seats[2].stack == max(final[2], 3000)
    for name, seat in (("alice", 1), ("bob", 2)):
        account = await harness.store.account_by_name(name)
        moved = sum(await add_chips_moves(harness, ids[name]))
        assert account.bankroll == harness.store.starting_grant - 3000 - moved, name
        assert seats[seat].stack == final[seat] + moved


async def test_an_auto_top_up_the_bankroll_cannot_cover_is_turned_off(harness: Harness) -> None:
    first = await harness.add_table("7S", 100, 200)
    second = await harness.add_table("7S", 100, 200)
    carol = await harness.player("carol")
    # 80.00 at one table and 20.00 at the other: nothing left in the bankroll.
    await harness.seat(carol, first.table_id, 1, 8000)
    await harness.seat(carol, second.table_id, 1, 2000)
    answer = await carol.request(type="auto_top_up", table_id=second.table_id, amount=4000)
    assert answer["type"] == "ack"
    note = await carol.wait_for(lambda m: m["type"] == "chips" and m["table_id"] == second.table_id)
    assert note["auto_top_up"] is None and note["added"] == 0
    assert note["note"] == "auto top-up to 40.00 turned off: your bankroll holds less than 20.00"
    assert second.seats[1].stack == 2000 and second.seats[1].auto_top_up is None
    await harness.audit()


async def test_the_auto_top_up_preference_is_kept_with_the_account(harness: Harness) -> None:
    token = await harness.register("dora")
    auth = {"Authorization": f"Bearer {token}"}
    path = "/api/me/preferences/auto-top-up"
    assert (await harness.http.get(path, headers=auth)).json() == {"auto_top_up": False}
    await harness.http.put("/api/me/preferences", json={"shortcuts": {"call": "x"}}, headers=auth)
    assert (await harness.http.put(path, json={"auto_top_up": True}, headers=auth)).json() == {
        "auto_top_up": True
    }
    # Shortcuts and the top-up are kept side by side: changing one keeps the other.
    await harness.http.put("/api/me/preferences", json={"shortcuts": {"fold": "z"}}, headers=auth)
    assert (await harness.http.get(path, headers=auth)).json() == {"auto_top_up": True}
    shortcuts = (await harness.http.get("/api/me/preferences", headers=auth)).json()["shortcuts"]
    assert shortcuts["fold"] == "z" and shortcuts["call"] == "c"
    refused = await harness.http.put(path, json={"auto_top_up": "yes"}, headers=auth)
    assert refused.status_code == 422
    assert (await harness.http.get(path, headers=auth)).json() == {"auto_top_up": True}
