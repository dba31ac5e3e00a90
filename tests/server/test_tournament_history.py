"""A player's tournament hands in his history, the replayer, the downloads and the statistics
(store/tournament_hand_reads.py, docs/tournaments.md "Hand histories"): marked with their
tournament and table, in chips, his only when he was dealt into them. The hands are written as
the room writes them (``start_hand``, then ``finish_hand`` with the operator's histories) and
read over REST."""

from __future__ import annotations

import asyncio
import random
import re
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from studpoker.cards import Deck
from studpoker.engine import Hand
from studpoker.games import find_game
from studpoker.history.phh import loads, replay
from studpoker.history.pokerstars.parsed import ParsedHand
from studpoker.history.pokerstars.read import read_pokerstars
from studpoker.server.hand_views import player_copy
from studpoker.server.store_adapter import operator_histories
from studpoker.server.tournaments import create_sit_and_go, table_id_of
from studpoker.store import NotFoundError, Store, TableConfig
from studpoker.store.exports import finished_tournament_hand_ids
from studpoker.store.models import HandRecord, HandSeat
from studpoker.store.stats import PlayerStatsReader
from studpoker.tournament.structure import Level
from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)
from tests.store.conftest import FAST_HASHER, deck_reveal, write_one

from .conftest import Harness, make_settings, running_server

STACK = 1500
LEVELS = {1: Level(big_bet=40, seconds=60), 2: Level(big_bet=80, seconds=60)}


def played(game: str, stacks: dict[int, int], rng: random.Random, level: int = 1) -> Hand:
    """A hand of ``game`` at ``level``'s stakes, played to its end with random legal actions."""
    record = find_game(game)
    hand = Hand(
        record,
        LEVELS[level].stakes(record),
        sorted(stacks.items()),
        deck=Deck.shuffled(rng, salt=""),
        button=min(stacks) if record.has_button else None,
    )
    while (seat := hand.legal_actions().seat) is not None:
        options = hand.legal_actions().options
        option = options[rng.randrange(len(options))]
        hand.act(seat, option.kind, option.amount)
    return hand


@dataclass
class Tournament:
    """A running tournament in the store, its tables' seats and its players' chips."""

    store: Store
    id: int
    name: str
    tables: dict[int, dict[int, tuple[int, str]]]  # table -> seat -> (account, name)
    stacks: dict[int, int] = field(default_factory=dict)
    hands: dict[str, Hand] = field(default_factory=dict)

    async def deal(self, table_no: int, rng: random.Random, level: int = 1) -> str:
        """One hand at the table, stored as the room stores it; its id."""
        seats = self.tables[table_no]
        hand = played("7S", {s: self.stacks[a] for s, (a, _) in seats.items()}, rng, level)
        hand_id = uuid.uuid4().hex
        await self.store.tournaments.start_hand(self.id, hand_id, table_no, level)
        names = {s: name for s, (_, name) in seats.items()}
        phh, text = operator_histories(hand, hand_id, names, f"{self.name} T{table_no} L{level}")
        final = {a: hand.result.final_stacks[s] for s, (a, _) in seats.items()}
        await self.store.tournaments.finish_hand(self.id, hand_id, final, {}, phh=phh, text=text)
        self.stacks.update(final)
        self.hands[hand_id] = hand
        return hand_id


async def start_tournament(store: Store, seating: dict[int, dict[int, str]]) -> Tournament:
    """A 7S sit-and-go (buy-in 5.00, fee 0.50) with these players at these tables and seats."""
    players = [name for seats in seating.values() for name in seats.values()]
    record = await store.tournaments.create(
        "Sunday 7S", "7S", "turbo", buy_in=500, fee=50, seats=len(players), starting_stack=STACK
    )
    ids = {name: (await store.account_by_name(name)).id for name in players}
    for name in players:
        await store.tournaments.register(record.id, ids[name])
    where = {ids[name]: (table, seat) for table, seats in seating.items() for seat, name in seats.items()}
    await store.tournaments.start(record.id, where, {"played": 0.0, "since": 0.0})
    tables = {t: {s: (ids[n], n) for s, n in seats.items()} for t, seats in seating.items()}
    return Tournament(store, record.id, record.name, tables, dict.fromkeys(ids.values(), STACK))


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _get(h: Harness, path: str, token: str, **params: Any) -> Any:
    answer = await h.http.get(path, headers=auth(token), params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_tournament_hands_are_in_the_history_marked_with_their_tournament_in_chips(
    tmp_path: Path,
) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        tokens = {name: await h.register(name) for name in ("ann_1", "annx1", "bob", "cyd", "dan")}
        # ann_1's "_" must not match annx1 in the search of her hands (a LIKE wildcard)
        sng = await start_tournament(h.store, {1: {2: "ann_1", 5: "bob"}, 2: {1: "annx1", 3: "cyd"}})
        rng = random.Random(5)
        first = await sng.deal(1, rng)
        other = await sng.deal(2, rng)
        second = await sng.deal(1, rng, level=2)

        listed = await _get(h, "/api/hands", tokens["ann_1"])
        assert [hand["id"] for hand in listed] == [second, first]  # newest first, table 1 only
        page = await _get(h, "/api/hands", tokens["ann_1"], limit=2)  # annx1's hand is no candidate
        assert [hand["id"] for hand in page] == [second, first]
        for line in listed:
            engine = sng.hands[line["id"]]
            assert line["units"] == "chips" and line["status"] == "finished"
            assert line["table_id"] == table_id_of(sng.id, 1)
            assert {k: line["tournament"][k] for k in ("id", "name", "table_no")} == {
                "id": sng.id, "name": "Sunday 7S", "table_no": 1
            }  # fmt: skip
            seats = {
                s["seat"]: (s["name"], s["starting_stack"], s["contribution"], s["award"])
                for s in line["seats"]
            }
            assert seats == {
                seat: (
                    name,
                    engine.initial_stacks[seat],
                    engine.contributions.get(seat, 0),
                    engine.result.won(seat),
                )
                for seat, name in ((2, "ann_1"), (5, "bob"))
            }
        assert [line["tournament"]["level"] for line in listed] == [2, 1]
        assert [hand["id"] for hand in await _get(h, "/api/hands", tokens["annx1"])] == [other]
        assert await _get(h, "/api/hands", tokens["dan"]) == []

        # His copy of one: the text in whole chips, the PHH naming the tournament.
        copy = await _get(h, f"/api/hands/{first}", tokens["bob"])
        assert f"Seat 5: bob ({sng.hands[first].initial_stacks[5]} in chips)" in copy["text"]
        assert not re.search(r"\d\.\d\d", copy["text"]), "a tournament's amounts are chips, not money"
        assert f'event = "Sunday 7S (tournament {sng.id}, level 1)"' in copy["phh"]
        assert copy["units"] == "chips" and copy["tournament"]["id"] == sng.id
        refused = await h.http.get(f"/api/hands/{first}", headers=auth(tokens["dan"]))
        assert refused.status_code == 403

        replayed = await _get(h, f"/api/hands/{second}/replay", tokens["ann_1"])
        assert replayed["units"] == "chips" and replayed["hand"] == second
        assert (await _get(h, f"/api/hands/{second}/public", tokens["dan"]))["replay"]["units"] == "chips"

        stars = await h.http.get(f"/api/hands/{second}/pokerstars", headers=auth(tokens["ann_1"]))
        assert stars.status_code == 200
        header, table_line = stars.text.splitlines()[:2]
        assert f": Tournament #{sng.id}, 5+0.50 7 Card Stud Limit - Level II (40/80) - " in header
        assert table_line == f"Table '{sng.id} 1' 8-max"


async def test_the_download_and_the_statistics_hold_his_tournament_hands(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        tokens = {name: await h.register(name) for name in ("ann", "bob", "dan")}
        sng = await start_tournament(h.store, {1: {1: "ann", 2: "bob"}})
        rng = random.Random(11)
        ids = [await sng.deal(1, rng) for _ in range(3)]

        stars = await h.http.get(
            "/api/me/hands", headers=auth(tokens["ann"]), params={"format": "pokerstars"}
        )
        assert stars.status_code == 200
        parsed = list(read_pokerstars(stars.text, source="download"))
        assert len(parsed) == 3 and all(isinstance(hand, ParsedHand) for hand in parsed), parsed
        assert all(getattr(hand, "tournament", None) == f"Tournament #{sng.id}, 5+0.50" for hand in parsed)
        phh = await h.http.get("/api/me/hands", headers=auth(tokens["ann"]), params={"format": "phh"})
        hands = loads(phh.text)
        assert [hand.extra["hand"] for hand in hands] == ids  # by table, then as they were dealt
        assert all(hand.extra["event"].startswith(f"Sunday 7S (tournament {sng.id}") for hand in hands)
        assert [replay(hand).result.final_stacks for hand in hands] == [
            sng.hands[i].result.final_stacks for i in ids
        ]

        cash = await _get(h, "/api/me/stats", tokens["ann"])
        assert (cash["kind"], cash["units"], cash["hands"]) == ("cash", "cents", 0)
        mine = await _get(h, "/api/me/stats", tokens["ann"], kind="tournament")
        assert (mine["kind"], mine["units"], mine["hands"]) == ("tournament", "chips", 3)
        assert mine["net"] == sum(sng.hands[i].result.net[1] for i in ids)
        assert [g["game"] for g in mine["games"]] == ["7S"] and mine["games"][0]["unreplayed"] == 0
        seen = await _get(h, "/api/players/bob/stats", tokens["dan"], kind="tournament")
        assert (seen["hands"], seen["units"]) == (3, "chips")
        assert (await _get(h, "/api/me/stats", tokens["dan"], kind="tournament"))["hands"] == 0
        bad = await h.http.get("/api/me/stats", headers=auth(tokens["ann"]), params={"kind": "money"})
        assert bad.status_code == 422


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A store on each backend (a player's hands are searched in SQL: LIKE, UNION, keysets), its
    clock a second later at every reading, so that each hand starts after the one before."""
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite3'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = await server.new_database()
    clock = Ticking(datetime(2026, 5, 1, tzinfo=UTC))
    opened = await Store.open(url, password_hasher=FAST_HASHER, clock=clock)
    try:
        yield opened
        assert (await opened.audit()).balanced
    finally:
        await opened.close()


async def test_cash_and_tournament_hands_come_newest_first_a_page_at_a_time(any_store: Store) -> None:
    store = any_store
    for name in ("ann_1", "annx1", "bob", "cyd"):
        await store.register(name, "password123")
    sng = await start_tournament(store, {1: {1: "ann_1", 2: "bob"}, 2: {1: "annx1", 2: "cyd"}})
    ann, bob = [await store.account_by_name(name) for name in ("ann_1", "bob")]
    table = await store.create_table(TableConfig.derive("7S cash", "7S", 20, 40))
    for seat, who in ((1, ann), (2, bob)):
        await store.buy_in(who.id, table.id, seat, 1_000)
    rng = random.Random(3)
    order = []
    for n in range(5):  # tournament, cash, tournament, cash, tournament; annx1's between
        cash = n % 2 == 1
        order.append(
            await _cash_hand(store, table.id, {1: ann.id, 2: bob.id}, n) if cash else await sng.deal(1, rng)
        )
        await sng.deal(2, rng)
    # a voided tournament hand is in its players' histories only (annx1's and cyd's here)
    await store.tournaments.start_hand(sng.id, "voided", 2, 1)
    await store.tournaments.void_hand("voided", "test")
    pages = [await store.hands_for_account(ann.id, limit=2, offset=k) for k in (0, 2, 4)]
    assert [[r.id for r in page] for page in pages] == [order[:2:-1], order[2:0:-1], order[:1]]
    assert [r.tournament is not None for page in pages for r in page] == [True, False, True, False, True]
    record = await store.hand(order[0])
    assert record.tournament is not None and record.tournament.table_no == 1
    assert set(record.seats) == {1, 2} and record.seats[1].account_id == ann.id
    assert {s.name for s in (await store.hand("voided")).seats.values()} == {"annx1", "cyd"}
    with pytest.raises(NotFoundError):
        await store.hand("no such hand")
    downloaded = [i async for i in finished_tournament_hand_ids(store, ann.id, None)]
    assert downloaded == order[::2]
    reader = PlayerStatsReader(store, max_hands=2, cache_hands=10, concurrent=1)
    played, limited = await reader.hands(ann.id, kind="tournament")
    assert [h.hand_id for h in played] == order[2::2] and limited  # the window: his last two
    for seat, who in ((1, ann), (2, bob)):
        await store.cash_out(who.id, table.id, seat)


class Ticking:
    """A store clock a second later at every reading."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


async def _cash_hand(store: Store, table_id: int, players: dict[int, int], n: int) -> str:
    """A finished cash hand the account was dealt into (no play needed: the ledger's record)."""
    deck = Deck()
    hand_id = f"cash-{n}"
    await write_one(store, store.start_hand_op(hand_id, table_id, deck.commitment, seats=players))
    finish = store.finish_hand_op(
        hand_id, contributions=dict.fromkeys(players, 0), awards={}, phh="", text="", **deck_reveal(deck)
    )
    await write_one(store, finish)
    return hand_id


def test_a_hand_replays_by_its_own_game_s_rules_at_a_mixed_table() -> None:
    """A mixed table's (or a rotation's) config names one game: a 7S hand there replays by the
    7S rules (the 4th-street double bet), not by those of the game the config names."""
    rng = random.Random(1)
    lhe = find_game("LHE").default_house
    for _ in range(3000):
        hand = played("7S", {1: STACK, 2: STACK, 3: STACK}, rng)
        phh, _text = operator_histories(hand, "h", {1: "ann", 2: "bob", 3: "cyd"}, "HORSE 0.50/1")
        try:
            replay(loads(phh)[0], house=lhe)
        except Exception:
            break  # a hand the LHE house rules cannot replay: its 4th-street double bet
    else:
        raise AssertionError("no 7S hand with a 4th-street double bet was dealt")
    seats = {s: HandSeat(s, s, n, STACK) for s, n in ((1, "ann"), (2, "bob"), (3, "cyd"))}
    record = HandRecord("h", 1, "finished", "", datetime(2026, 5, 1, tzinfo=UTC), None, seats, phh=phh)
    config = TableConfig.derive("HORSE 0.50/1", "LHE", 50, 100, max_seats=8)  # the table's first game
    copy = player_copy(record, 1, config)
    assert copy.text is not None and copy.phh is not None


async def test_a_sit_and_go_s_hands_are_in_its_players_histories(tmp_path: Path) -> None:
    """The room's own tournament tables: two absent players, the clock playing for them."""
    async with running_server(make_settings(tmp_path, think_seconds=0.2, countdown_seconds=0.2)) as h:
        tokens = {name: await h.register(name) for name in ("ann", "ben")}
        sng = await create_sit_and_go(h.store, "SNG history", "7S", "turbo", buy_in=500, fee=0, seats=2)
        for token in tokens.values():
            answer = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
            assert answer.status_code == 200, answer.text
        deadline = time.monotonic() + 120
        while (await h.store.tournaments.get(sng.id)).hands_played < 2:
            assert time.monotonic() < deadline, "the tournament's tables dealt no two hands in time"
            await asyncio.sleep(0.2)
        listed = await _get(h, "/api/hands", tokens["ben"])
        assert len(listed) >= 2
        for line in listed[-2:]:  # the first two hands, finished
            assert line["tournament"]["id"] == sng.id and line["units"] == "chips"
            assert line["table_id"] == table_id_of(sng.id, 1)
            assert sorted(s["name"] for s in line["seats"]) == ["ann", "ben"]
            assert sum(s["net"] for s in line["seats"]) == 0
        copy = await _get(h, f"/api/hands/{listed[-1]['id']}", tokens["ann"])
        assert "ann: posts the ante" in copy["text"] and "(1500 in chips)" in copy["text"]
