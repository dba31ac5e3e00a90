"""A voided tournament hand is in the histories of the players dealt into it, as a voided cash
hand is: marked void with its reason, each stack as it was (every chip back: nothing in,
nothing won), in no one else's; it is no hand of the downloads or the statistics (finished
hands only). Its players are kept from its start (``tournament_hands.players``)."""

from __future__ import annotations

import random
from pathlib import Path

from studpoker.store import Store
from studpoker.store.exports import finished_tournament_hand_ids
from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)
from tests.server.conftest import make_settings, running_server
from tests.server.test_tournament_history import STACK, _get, any_store, auth, start_tournament

__all__ = ["PostgresServer", "any_store"]  # fixtures: SQLite and PostgreSQL stores


async def test_a_voided_tournament_hand_is_listed_for_its_players_marked_void(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        tokens = {name: await h.register(name) for name in ("ann", "bob", "cyd", "dan")}
        sng = await start_tournament(h.store, {1: {2: "ann", 5: "bob"}, 2: {1: "cyd", 3: "dan"}})
        rng = random.Random(7)
        finished = await sng.deal(1, rng)
        stacks = dict(sng.stacks)  # after the finished hand: the voided one starts from these
        await h.store.tournaments.start_hand(sng.id, "voided-1", 1, 1)
        await h.store.tournaments.void_hand("voided-1", "the table broke")
        # A restart voids the hand left in play at table 2.
        await h.store.tournaments.start_hand(sng.id, "voided-2", 2, 1)
        assert await h.store.tournaments.void_interrupted(sng.id) == 1

        listed = await _get(h, "/api/hands", tokens["ann"])
        assert [line["id"] for line in listed] == ["voided-1", finished]
        voided = listed[0]
        assert voided["status"] == "void" and voided["units"] == "chips"
        assert voided["tournament"]["id"] == sng.id and voided["tournament"]["table_no"] == 1
        ids = {name: (await h.store.account_by_name(name)).id for name in ("ann", "bob")}
        assert [(s["seat"], s["name"], s["starting_stack"], s["contribution"], s["award"], s["net"])
                for s in voided["seats"]] == [
            (2, "ann", stacks[ids["ann"]], 0, 0, 0),
            (5, "bob", stacks[ids["bob"]], 0, 0, 0),
        ]  # fmt: skip
        copy = await _get(h, "/api/hands/voided-1", tokens["bob"])
        assert (copy["status"], copy["void_reason"], copy["phh"], copy["text"]) == (
            "void",
            "the table broke",
            None,
            None,
        )
        replay = await h.http.get("/api/hands/voided-1/replay", headers=auth(tokens["ann"]))
        assert replay.status_code == 404 and "voided" in replay.text  # nothing to replay, as for cash
        # Not theirs at the other table, and theirs only there.
        refused = await h.http.get("/api/hands/voided-1", headers=auth(tokens["cyd"]))
        assert refused.status_code == 403
        assert [line["id"] for line in await _get(h, "/api/hands", tokens["cyd"])] == ["voided-2"]
        restarted = await _get(h, "/api/hands/voided-2", tokens["dan"])
        assert (restarted["status"], restarted["void_reason"]) == ("void", "server restart")

        # The downloads and the statistics count finished hands only.
        phh = await h.http.get("/api/me/hands", headers=auth(tokens["ann"]), params={"format": "phh"})
        assert phh.status_code == 200 and "voided-1" not in phh.text and finished in phh.text
        stats = await _get(h, "/api/me/stats", tokens["ann"], kind="tournament")
        assert stats["hands"] == 1


async def test_a_voided_hand_is_found_by_its_players_ids_exactly(any_store: Store) -> None:
    """On each backend: account 1 is not account 11 among a voided hand's players."""
    store = any_store
    names = [f"player{n}" for n in range(1, 13)]
    ids = {name: (await store.register(name, "password123")).id for name in names}
    assert ids["player1"] == 1 and ids["player11"] == 11
    sng = await start_tournament(store, {1: {1: "player1", 2: "player2"}, 2: {1: "player11", 2: "player12"}})
    finished = await sng.deal(1, random.Random(2))
    await store.tournaments.start_hand(sng.id, "v2", 2, 1)
    await store.tournaments.void_hand("v2", "test")
    # (his one hand fills a page of one: the newer voided hand at the other table is no candidate)
    assert [r.id for r in await store.hands_for_account(ids["player1"], limit=1)] == [finished]
    (mine,) = await store.hands_for_account(ids["player11"])
    assert mine.id == "v2" and mine.status == "void" and mine.void_reason == "test"
    assert {s.seat: (s.name, s.starting_stack, s.net) for s in mine.seats.values()} == {
        1: ("player11", STACK, 0),
        2: ("player12", STACK, 0),
    }
    # In no download and no statistics: finished hands only.
    assert [i async for i in finished_tournament_hand_ids(store, ids["player11"], None)] == []
    assert [i async for i in finished_tournament_hand_ids(store, None, None)] == [finished]
