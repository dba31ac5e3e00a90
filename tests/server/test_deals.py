"""Verifiable deals in the room (docs/fairness.md): the seed commitment before the seeds, the
players' seeds in the deck, every opening checkable, seeds refused cleanly, ``studpoker verify``
and the house's seed endpoint."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from studpoker.cli import main
from studpoker.fairness import Opening, deck_from_seeds, seed_commitment, verify_deal, verify_opening
from studpoker.server.table import StartHand, TableActor, TablePhase
from studpoker.store.schema import hands
from tests.server.conftest import Client, Harness, autoplay, make_settings, running_server


def deal_commitments(client: Client) -> list[dict[str, Any]]:
    return [
        m["event"] for m in client.log if m["type"] == "event" and m["event"].get("kind") == "deal_commitment"
    ]


async def announced_table(
    h: Harness, names: tuple[str, ...]
) -> tuple[TableActor, list[Client], dict[str, Any]]:
    """A table whose first hand is announced but waits (a long pause) until ``start`` is called."""
    actor = await h.add_table("7S", 100, 200)
    actor.hand_pause_seconds = 600.0
    clients = [await h.player(name) for name in names]
    for seat, client in enumerate(clients, start=1):
        await h.seat(client, actor.table_id, seat, 4000)
    announced = await clients[0].wait_for(
        lambda m: m["type"] == "event" and m["event"].get("kind") == "deal_commitment"
    )
    return actor, clients, announced["event"]


def start(actor: TableActor) -> None:
    """Deal now instead of after the pause (``StartHand`` cancels the pending start timer)."""
    assert actor.phase is TablePhase.SCHEDULED
    actor.hand_pause_seconds = 0.0
    actor.submit(StartHand())


async def play_a_seeded_hand(h: Harness) -> tuple[list[Client], dict[str, Any], dict[str, bytes]]:
    actor, clients, announced = await announced_table(h, ("alice", "bob"))
    seeds = {"alice": b"alice's own randomness", "bob": bytes(range(64))}
    for client in clients:
        answer = await client.request(
            type="client_seed",
            table_id=actor.table_id,
            hand_id=announced["hand_id"],
            seed=seeds[client.name].hex(),
        )
        assert answer["type"] == "ack" and answer["request"] == "client_seed", answer
    start(actor)
    await asyncio.gather(*(autoplay(c) for c in clients))
    started = next(m for m in clients[0].log if m["type"] == "hand_started")
    return clients, started, seeds


async def test_every_opening_verifies_and_the_players_seeds_went_in(harness: Harness) -> None:
    clients, started, seeds = await play_a_seeded_hand(harness)
    announced = deal_commitments(clients[0])[0]
    # The seed was committed to before the seeds were taken; the hand is the one announced.
    assert started["hand_id"] == announced["hand_id"]
    assert started["seed_commitment"] == announced["seed_commitment"]
    assert started["client_seeds"] == [
        {"seat": 1, "seed": seeds["alice"].hex()},
        {"seat": 2, "seed": seeds["bob"].hex()},
    ]
    for client in clients:
        log = [m for m in client.log if m.get("hand_id") == started["hand_id"]]  # (the next hand may start)
        openings = [o for m in log if m["type"] == "cards_opened" for o in m["openings"]]
        shown = {
            c
            for m in log
            if m["type"] == "event" and m["event"]["kind"] in ("deal", "deal_board", "show", "expose")
            for c in m["event"].get("cards") or ()
        }
        shown.discard(None)
        assert all(verify_opening(started["deck_root"], Opening.from_json(o)) for o in openings)
        # Exactly the cards he was shown (dealt to him, face up, at the showdown), each once.
        assert sorted(o["card"] for o in openings) == sorted(shown) and len(shown) >= 5
    record = await harness.store.hand(started["hand_id"])
    assert record.server_seed is not None and record.deck_order is not None
    server_seed = bytes.fromhex(record.server_seed)
    assert seed_commitment(server_seed) == announced["seed_commitment"]
    pairs = [(1, seeds["alice"]), (2, seeds["bob"])]
    deal = deck_from_seeds(server_seed, pairs)
    assert record.deck_order == " ".join(str(c) for c in deal.order)
    assert verify_deal(started["deck_root"], started["seed_commitment"], server_seed, pairs)[0]
    # Without the players' seeds the server seed gives another deck: theirs went in.
    assert deck_from_seeds(server_seed).order != deal.order


async def test_client_seeds_late_twice_unseated_or_malformed_are_refused(harness: Harness) -> None:
    actor, (alice, bob), announced = await announced_table(harness, ("alice", "bob"))
    carol = await harness.player("carol")
    assert (await carol.request(type="join_table", table_id=actor.table_id))["type"] == "ack"
    hand_id, table_id = announced["hand_id"], actor.table_id
    seed = {"type": "client_seed", "table_id": table_id, "hand_id": hand_id}
    assert (await alice.request(**seed, seed="ab" * 32))["type"] == "ack"
    pending = actor.next_deal
    assert pending is not None
    before = (dict(pending.seeds), actor.version)
    refused = [
        (alice, {**seed, "seed": "cd" * 32}, "seed_already_sent"),
        (carol, {**seed, "seed": "cd"}, "not_seated"),
        (bob, {**seed, "hand_id": "not-the-next-hand", "seed": "cd"}, "too_late"),
        (bob, {**seed, "seed": "abc"}, "bad_message"),  # odd number of hex digits
        (bob, {**seed, "seed": "zz"}, "bad_message"),
        (bob, {**seed, "seed": ""}, "bad_message"),
        (bob, {**seed, "seed": "00" * 65}, "bad_message"),  # more than 64 bytes
        (bob, {**seed, "seed": 12}, "bad_message"),
        (bob, {"type": "client_seed", "table_id": table_id, "seed": "cd"}, "bad_message"),
    ]
    for client, message, code in refused:
        answer = await client.request(**message)
        assert answer["type"] == "error" and answer["code"] == code, (message, answer)
    assert (dict(pending.seeds), actor.version) == before
    start(actor)
    started = await bob.wait_for("hand_started")
    assert started["client_seeds"] == [{"seat": 1, "seed": "ab" * 32}]
    # Once the hand has started, its seeds are closed.
    late = await bob.request(**seed, seed="cd")
    assert late["type"] == "error" and late["code"] == "too_late", late
    assert started["client_seeds"] == [{"seat": 1, "seed": "ab" * 32}]
    await asyncio.gather(autoplay(alice), autoplay(bob))


def run_cli(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)


async def test_verify_passes_on_a_real_hand_and_catches_tampering(
    harness: Harness, capsys: pytest.CaptureFixture[str]
) -> None:
    _clients, started, _seeds = await play_a_seeded_hand(harness)
    hand_id, url = started["hand_id"], harness.settings.database_url
    assert await asyncio.to_thread(run_cli, "verify", hand_id, "--database-url", url) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "MISMATCH" not in out and started["deck_root"] in out
    assert await asyncio.to_thread(run_cli, "verify", hand_id, "--database-url", url, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    assert {c["name"] for c in report["checks"]} == {
        "server seed", "deck root", "deck order", "cards dealt", "openings",
    }  # fmt: skip
    record = await harness.store.hand(hand_id)
    assert record.deck_order is not None and record.server_seed is not None
    order = record.deck_order.split()
    order[0], order[51] = order[51], order[0]
    other_seed = bytes(32).hex()
    seeds = json.dumps([{"seat": 1, "seed": "00"}, {"seat": 2, "seed": bytes(range(64)).hex()}])
    tampered: list[tuple[dict[str, Any], str]] = [
        ({"deck_order": " ".join(order)}, "deck order"),
        ({"server_seed": other_seed}, "server seed"),
        ({"client_seeds": seeds}, "deck root"),
    ]
    for values, failing in tampered:
        async with harness.store.engine.begin() as conn:
            await conn.execute(update(hands).where(hands.c.id == hand_id).values(**values))
        assert await asyncio.to_thread(run_cli, "verify", hand_id, "--database-url", url, "--json") == 1
        checks = {c["name"]: c["ok"] for c in json.loads(capsys.readouterr().out)["checks"]}
        assert checks[failing] is False, (values, checks)
        original = {
            "deck_order": record.deck_order,
            "server_seed": record.server_seed,
            "client_seeds": json.dumps([{"seat": s, "seed": x} for s, x in record.client_seeds]),
        }
        async with harness.store.engine.begin() as conn:
            await conn.execute(update(hands).where(hands.c.id == hand_id).values(**original))
    assert await asyncio.to_thread(run_cli, "verify", hand_id, "--database-url", url) == 0


async def test_the_seed_endpoint_answers_only_after_the_house_delay(harness: Harness, tmp_path: Path) -> None:
    # By default the house never publishes a seed.
    _clients, started, _seeds = await play_a_seeded_hand(harness)
    answer = await harness.http.get(f"/api/hands/{started['hand_id']}/seed")
    assert answer.status_code == 403 and "does not publish" in answer.text, answer.text
    assert harness.settings.server_seed_public_after_seconds is None
    settings = make_settings(tmp_path / "delayed", server_seed_public_after_seconds=3600.0)
    (tmp_path / "delayed").mkdir()
    async with running_server(settings) as h:
        _clients, started, seeds = await play_a_seeded_hand(h)
        hand_id = started["hand_id"]
        assert (await h.http.get("/api/hands/nope/seed")).status_code == 404
        early = await h.http.get(f"/api/hands/{hand_id}/seed")
        assert early.status_code == 403 and "published in" in early.text, early.text
        async with h.store.engine.begin() as conn:
            ended = datetime.now(UTC) - timedelta(hours=2)
            await conn.execute(update(hands).where(hands.c.id == hand_id).values(finished_at=ended))
        body = (await h.http.get(f"/api/hands/{hand_id}/seed")).json()
        pairs = [(c["seat"], bytes.fromhex(c["seed"])) for c in body["client_seeds"]]
        assert pairs == [(1, seeds["alice"]), (2, seeds["bob"])]
        assert verify_deal(
            started["deck_root"], started["seed_commitment"], bytes.fromhex(body["server_seed"]), pairs
        )[0]


async def test_verify_player_checks_what_that_player_was_given(
    harness: Harness, capsys: pytest.CaptureFixture[str]
) -> None:
    _clients, started, seeds = await play_a_seeded_hand(harness)
    hand_id, url = started["hand_id"], harness.settings.database_url
    args = ("verify", hand_id, "--database-url", url, "--json")
    assert await asyncio.to_thread(run_cli, *args, "--player", "ALICE") == 0
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["player's openings"]["ok"] and checks["player's cards"]["ok"]
    assert seeds["alice"].hex() in checks["player's seed"]["detail"]
    # Someone who was not dealt in cannot be checked (exit 2), and says why.
    assert await asyncio.to_thread(run_cli, "verify", hand_id, "--database-url", url, "--player", "zed") == 2
    assert "was not dealt into" in capsys.readouterr().err
    # A stored root that is not the one the player's cards were opened against fails his check.
    async with harness.store.engine.begin() as conn:
        await conn.execute(update(hands).where(hands.c.id == hand_id).values(deck_root="00" * 32))
    assert await asyncio.to_thread(run_cli, *args, "--player", "alice") == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["player's openings"]["ok"] is False
