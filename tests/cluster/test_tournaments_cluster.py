"""Tournaments in the cluster (docs/cluster.md "Tournaments", docs/tournaments.md "In the room"):
one ``studpoker cluster up`` (2 gateways, 2 workers, HAProxy, real nats-server and PostgreSQL)
with a short lease and quick clocks, and two sit-and-goes created before it starts. The first is
played to the end through HAProxy, its registrations forwarded from either gateway to its owner.
In the second the owner is killed (SIGKILL) in the middle of a hand: a survivor takes the
tournament, voids that hand once, seats the stacks of the last finished hand and plays on, to
players whose sockets never closed."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text

from studpoker.server.tournaments import create_sit_and_go, table_id_of
from studpoker.store import Store
from studpoker.store.schema import tournament_hands
from studpoker.store.tournaments import TournamentRecord
from tests.cluster.conftest import ClusterUp, running_cluster
from tests.cluster.test_failures import _connect, _register
from tests.cluster.test_roles import Player, _until
from tests.cluster.test_wait_list_cluster import gateways, seen
from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)
from tests.server.conftest import Client, passive_choice
from tests.server.test_tournament_room import aggressive_choice, auth, raise_on_turns

# One cluster for the module, started by a module fixture: its tests run in one xdist worker,
# in order (the Makefile runs pytest with --dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_tournaments_cluster")

LEASE = 3.0
SEATS, BUY_IN, FEE = 4, 1_000, 100
POOL = SEATS * BUY_IN
# A survivor's claim comes within a lease round (a third of the lease) of the lease's end; the
# rest is room for a machine shared with other tests.
TAKEOVER_BAR = LEASE + 5.0
# The tournament time played before the owner is killed: longer than a hand, so that a clock
# started afresh by the new owner shows.
CLOCK_BEFORE_KILL = 8.0
PLAY_LIMIT = 150.0  # seconds for a turbo of four raising players to end

SETS: dict[str, object] = {
    "lease_seconds": LEASE, "presence_seconds": 0.5, "gateway_timeout_seconds": 3.0,
    "hand_pause_seconds": 0.3, "shutdown_grace_seconds": 1, "think_seconds": 3, "countdown_seconds": 2,
    "time_bank_seconds": 0, "tournament_check_seconds": 1.0,
    # Every test player registers from this machine's one address.
    "registrations_per_address_per_hour": 10**6, "registrations_per_address_per_day": 10**6,
}  # fmt: skip

Choice = Callable[[list[dict[str, Any]]], dict[str, Any]]


@dataclass(frozen=True)
class Room:
    """The running cluster and its two sit-and-goes (one for each test)."""

    up: ClusterUp
    played: int
    taken_over: int
    two_tables: int

    @property
    def base(self) -> str:
        """HAProxy's address (host:port)."""
        return str(self.up.info()["url"]).removeprefix("http://").rstrip("/")


async def prepare(url: str) -> tuple[int, int, int]:
    """The sit-and-goes of the module, in the database before any role starts: two of four
    seats, and one of ten (two tables)."""
    store = await Store.open(url)
    try:
        ids = []
        for name, seats in (("Cluster SNG", SEATS), ("Cluster SNG takeover", SEATS), ("Cluster SNG 10", 10)):
            sng = await create_sit_and_go(store, name, "7S", "turbo", buy_in=BUY_IN, fee=FEE, seats=seats)
            ids.append(sng.id)
        return ids[0], ids[1], ids[2]
    finally:
        await store.close()


@pytest.fixture(scope="module")
def room(
    tmp_path_factory: pytest.TempPathFactory,
    postgres_server: PostgresServer,  # noqa: F811
    nats_binary: Path,
    haproxy_binary: Path,
) -> Iterator[Room]:
    url = asyncio.run(postgres_server.new_database())
    played, taken_over, two_tables = asyncio.run(prepare(url))
    where = tmp_path_factory.mktemp("tournaments")
    with running_cluster(where, url, gateways=2, workers=2, sets=SETS) as up:
        yield Room(up, played, taken_over, two_tables)


@contextlib.asynccontextmanager
async def opened(url: str) -> AsyncIterator[Store]:
    store = await Store.open(url, migrate_schema=False)
    try:
        yield store
    finally:
        await store.close()


class Entrant(Player):
    """A tournament player (test_roles' Player, with the hands it saw start): ``choose`` answers
    each decision; None leaves them waiting (in ``unanswered``)."""

    def __init__(self, client: Client) -> None:
        self.choose: Choice | None = passive_choice
        self.started: list[str] = []
        super().__init__(client)

    async def _play(self) -> None:
        while True:
            message = await self.client._queue.get()
            kind = message["type"]
            if kind == "hand_started":
                self.started.append(message["hand_id"])
            elif kind == "hand_finished":
                self.finished.append(message["hand_id"])
            elif kind == "table_state":
                self.states += 1
            elif kind == "event" and message["event"].get("kind") == "hand_voided":
                self.voided.append(message["event"]["hand_id"])
            elif kind == "your_turn":
                self.turns.append(message)
                if self.choose is None:
                    self.unanswered.append(message)
                else:
                    await self.answer(message, self.choose)

    async def answer(self, turn: dict[str, Any], choose: Choice) -> None:
        option = choose(turn["options"])
        await self.client.send(
            type="action", table_id=turn["table_id"], hand_id=turn["hand_id"],
            kind=option["kind"], amount=option["amount"], version=turn["version"],
        )  # fmt: skip

    async def play(self, choose: Choice) -> None:
        """Answer from now on, the decisions left waiting of live hands first."""
        self.choose = choose
        waiting, self.unanswered = self.unanswered, []
        for turn in waiting:
            if turn["hand_id"] not in self.voided and turn["hand_id"] not in self.finished:
                await self.answer(turn, choose)


def raise_if_done(players: list[Entrant]) -> None:
    """A player's task ends only by an error: raise it."""
    for player in players:
        if player._task.done():
            player._task.result()


async def line_of(address: str, tournament_id: int) -> dict[str, Any]:
    """``GET /api/tournaments/{id}`` at ``address`` (HAProxy or one gateway)."""
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as http:
        response = await http.get(f"/api/tournaments/{tournament_id}")
        assert response.status_code == 200, response.text
        line: dict[str, Any] = response.json()
        return line


async def enter_all(base: str, tournament_id: int, tokens: list[str]) -> list[dict[str, Any]]:
    """Each token's registration through HAProxy, the answers' lines in order: the first two at
    once (leastconn sends a request to the gateway with fewer in flight: one to each), then the
    others one by one, the line checked still registering before the last."""

    async def enter(token: str) -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=f"http://{base}", timeout=20) as http:
            response = await http.post(f"/api/tournaments/{tournament_id}/register", headers=auth(token))
            assert response.status_code == 200, response.text
            answer: dict[str, Any] = response.json()
            return answer

    answers = list(await asyncio.gather(*(enter(token) for token in tokens[:2])))
    answers += [await enter(token) for token in tokens[2:-1]]
    await _until(lambda: _registering(base, tournament_id, len(answers)), "all but one registered", 10)
    return [*answers, await enter(tokens[-1])]


def forwarded(up: ClusterUp, tournament_id: int) -> dict[str, int]:
    """How many registrations each gateway answered (its access log, in the cluster directory)."""
    request = f"POST /api/tournaments/{tournament_id}/register "
    names = sorted(p["name"] for p in up.info()["processes"] if p["role"] == "gateway")
    return {name: (up.directory / "logs" / f"{name}.log").read_text().count(request) for name in names}


async def _registering(base: str, tournament_id: int, entrants: int) -> bool:
    line = await line_of(base, tournament_id)
    assert line["status"] == "registering", line
    return bool(line["entrants"] == entrants)


async def running_line(address: str, tournament_id: int) -> dict[str, Any] | None:
    """The tournament's line at ``address`` once it says running with its level and table."""
    line = await line_of(address, tournament_id)
    table = table_id_of(tournament_id)
    if line["status"] == "running" and line["level"] is not None and line["tables"] == [table]:
        return line
    return None


async def accounts(base: str, names: list[str]) -> tuple[list[str], list[int]]:
    """New accounts (through HAProxy): their tokens and bankrolls."""
    tokens = [await _register(base, name) for name in names]
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=10) as http:
        bankrolls = [int((await http.get("/api/me", headers=auth(t))).json()["bankroll"]) for t in tokens]
    return tokens, bankrolls


def table_state_of(table_id: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "table_state" and m["table_id"] == table_id


async def play_out(
    store: Store, clients: list[Client], tournament_id: int, limit: float = PLAY_LIMIT
) -> TournamentRecord:
    """Every client raises on its turns (tests/server/test_tournament_room.py's way) until the
    tournament is finished."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(raise_on_turns(c, stop)) for c in clients]

    def check() -> None:
        for task in tasks:
            if task.done():
                task.result()

    try:
        return await until_finished(store, tournament_id, check, limit)
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def until_finished(
    store: Store, tournament_id: int, check: Callable[[], object], limit: float = PLAY_LIMIT
) -> TournamentRecord:
    deadline = time.monotonic() + limit
    while (record := await store.tournaments.get(tournament_id)).status != "finished":
        assert time.monotonic() < deadline, f"not finished: {record.status}, {record.hands_played} hands"
        check()
        await asyncio.sleep(0.2)
    return record


async def check_results(base: str, tournament_id: int, tokens: list[str], bankrolls: list[int]) -> None:
    """The prizes add up to the pool, and each bankroll is what it was less the buy-in and fee,
    plus its prize."""
    result = await line_of(base, tournament_id)
    assert result["status"] == "finished", result
    prizes = {r["name"]: r["prize"] for r in result["results"]}
    assert sum(prizes.values()) == result["prize_pool"] == POOL, result["results"]
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=10) as http:
        for token, before in zip(tokens, bankrolls, strict=True):
            me = (await http.get("/api/me", headers=auth(token))).json()
            assert me["bankroll"] == before - BUY_IN - FEE + prizes[me["name"]], (me, prizes)


async def audit(url: str) -> None:
    """``studpoker audit`` on the cluster's database: exit 0, the books balanced."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "studpoker", "audit", "--database-url", url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await process.communicate()
    assert process.returncode == 0, output.decode()


async def test_a_sit_and_go_plays_to_the_end_in_the_cluster_through_haproxy(room: Room) -> None:
    tournament_id, table_id = room.played, table_id_of(room.played)
    names = ["sng_ann", "sng_ben", "sng_cyd", "sng_dee"]
    tokens, bankrolls = await accounts(room.base, names)
    # Two sockets before the start (the start joins them to the table), two after it (they
    # rejoin their seat when they connect, as at a cash table).
    clients = [await _connect(room.base, t, n) for t, n in zip(tokens[:2], names[:2], strict=True)]
    try:
        answers = await enter_all(room.base, tournament_id, tokens)
        assert [a["status"] for a in answers] == ["registering"] * 3 + ["running"], answers
        assert all(forwarded(room.up, tournament_id).values()), forwarded(room.up, tournament_id)
        line = await _until(lambda: running_line(room.base, tournament_id), "the line running", 10)
        assert (line["entrants"], line["prize_pool"], line["level"]["level"]) == (SEATS, POOL, 1)
        for address in gateways(room.up):  # each gateway has the owner's line
            await _until(lambda a=address: running_line(a, tournament_id), f"running at {address}", 10)
        shown = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "studpoker", "cluster", "status", "--dir", str(room.up.directory),
            stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        status = (await asyncio.wait_for(shown.communicate(), 60))[0].decode()
        # Each active tournament is held by one worker (three in this module: spread over both).
        held = [line.split(": tournaments ") for line in status.splitlines() if ": tournaments " in line]
        mine = f"{tournament_id}@"
        holders = [worker for worker, ids in held if any(i.startswith(mine) for i in ids.split())]
        assert len(holders) == 1 and sum(len(ids.split()) for _, ids in held) == 3, status
        clients += [await _connect(room.base, t, n) for t, n in zip(tokens[2:], names[2:], strict=True)]
        for client in clients:
            state = await seen(client, table_state_of(table_id), timeout=20)
            assert {s["name"] for s in state["seats"]} == set(names), state["seats"]
            assert state["your_seat"] is not None and state["table"]["big_bet"] == 40
        async with opened(room.up.database_url) as store:
            record = await play_out(store, clients, tournament_id)
        assert sum(e.stack for e in record.entries) == SEATS * record.starting_stack
        await check_results(room.base, tournament_id, tokens, bankrolls)
    finally:
        for client in clients:
            await client.close()
    await audit(room.up.database_url)


# -- the takeover -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Killed:
    """The tournament's owner killed: the record before (the last finished hand's stacks and
    clock), the hand it interrupted, when (monotonic)."""

    before: TournamentRecord
    interrupted: str
    at: float


async def tournament_lease(store: Store, tournament_id: int) -> tuple[str | None, int, bool]:
    """The tournament's lease row: owner, epoch, and whether it is live (the database's clock)."""
    query = text(
        "SELECT owner, epoch, expires_at IS NOT NULL AND expires_at > clock_timestamp() AS live"
        " FROM tournament_leases WHERE tournament_id = :id"
    )
    async with store.database.read() as conn:
        row = (await conn.execute(query, {"id": tournament_id})).one()
    return row.owner, int(row.epoch), bool(row.live)


async def hand_rows(store: Store, tournament_id: int) -> dict[str, tuple[str, str | None]]:
    """Each hand of the tournament: its status and its stored PHH (a finished hand's only)."""
    h = tournament_hands
    async with store.database.read() as conn:
        rows = (
            await conn.execute(select(h.c.id, h.c.status, h.c.phh).where(h.c.tournament_id == tournament_id))
        ).all()
    return {str(r.id): (str(r.status), r.phh) for r in rows}


async def waiting_turn(players: list[Entrant]) -> dict[str, Any] | None:
    """A decision left waiting in a hand still in play."""
    return next((t for p in players for t in p.unanswered if t["hand_id"] not in p.finished), None)


async def fresh_state(client: Client, voided: str) -> dict[str, Any]:
    """The first ``table_state`` after the ``hand_voided`` of ``voided`` (waited for)."""

    async def found() -> dict[str, Any] | None:
        marks = [i for i, m in enumerate(client.log) if is_voided(m, voided)]
        if not marks:
            return None
        return next((m for m in client.log[marks[0] :] if m["type"] == "table_state"), None)

    state: dict[str, Any] = await _until(found, f"{client.name}: a table_state after hand_voided", 10)
    return state


def is_voided(message: dict[str, Any], hand_id: str) -> bool:
    event = message.get("event") if message["type"] == "event" else None
    return event is not None and event.get("kind") == "hand_voided" and event.get("hand_id") == hand_id


# Its players ping as a browser does (``_connect``'s keep_alive): the first to bust watches
# silently to the end, and once (2026-12-02) a loaded machine made that longer than the server's
# heartbeat time-out (75 s), which closed the socket as it should.
async def test_a_killed_tournament_owner_is_replaced_and_the_tournament_plays_on(room: Room) -> None:
    tournament_id, table_id = room.taken_over, table_id_of(room.taken_over)
    names = ["kill_kai", "kill_kim", "kill_kit", "kill_kye"]
    tokens, bankrolls = await accounts(room.base, names)
    clients = [await _connect(room.base, t, n) for t, n in zip(tokens, names, strict=True)]
    players = [Entrant(c) for c in clients]
    try:
        async with opened(room.up.database_url) as store:
            await enter_all(room.base, tournament_id, tokens)
            for client in clients:
                await seen(client, table_state_of(table_id), timeout=20)
            killed = await kill_owner_and_check_takeover(room, store, tournament_id, players)
            # A passive hand under the new owner (short beside the time played before the kill),
            # then raises to the end.
            for player in players:
                await player.play(passive_choice)
            await check_clock_resumed(store, killed)
            for player in players:
                await player.play(aggressive_choice)
            record = await until_finished(store, tournament_id, functools.partial(raise_if_done, players))
            await check_hands(store, record, killed.interrupted, players)
        assert sum(e.stack for e in record.entries) == SEATS * record.starting_stack
        await check_results(room.base, tournament_id, tokens, bankrolls)
        closed = {c.name: c.log[-3:] for c in clients if c.closed.is_set()}
        assert not closed, closed  # each closed socket's last words
    finally:
        for player in players:
            await player.stop()
            await player.client.close()
    await audit(room.up.database_url)


async def kill_owner_and_check_takeover(
    room: Room, store: Store, tournament_id: int, players: list[Entrant]
) -> Killed:
    """Passive play past a finished hand and ``CLOCK_BEFORE_KILL`` of tournament time; the next
    decision left waiting; its owner killed; the tournament taken by the other worker at a higher
    epoch, the hand void, the sockets told."""
    table_id = table_id_of(tournament_id)

    async def played_a_while() -> bool:
        record = await store.tournaments.get(tournament_id)
        played = 0.0 if record.clock is None else float(record.clock["played"])
        return record.hands_played >= 1 and played >= CLOCK_BEFORE_KILL

    await _until(played_a_while, "a finished hand, and time played", timeout=60)
    for player in players:
        player.choose = None
    turn = await _until(lambda: waiting_turn(players), "a decision left waiting", timeout=20)
    interrupted = str(turn["hand_id"])
    assert any(interrupted in p.started for p in players), "no hand_started for the hand in play"
    before = await store.tournaments.get(tournament_id)  # the stacks of the last finished hand
    assert (await hand_rows(store, tournament_id))[interrupted][0] == "in_progress"
    victim, epoch, live = await tournament_lease(store, tournament_id)
    assert victim is not None and live, (victim, epoch, live)
    os.kill(int(room.up.child(victim)["pid"]), signal.SIGKILL)
    killed_at = time.monotonic()

    async def taken() -> bool:
        owner, now, alive = await tournament_lease(store, tournament_id)
        return alive and owner not in (None, victim) and now > epoch

    await _until(taken, "the tournament owned by another worker", timeout=TAKEOVER_BAR)
    print(
        f"\ntournament taken over {time.monotonic() - killed_at:.2f} s after its owner was killed", flush=True
    )
    stacks = {e.account_id: e.stack for e in before.entries if e.stack > 0}
    assert sum(stacks.values()) == SEATS * before.starting_stack
    for player in players:
        state = await fresh_state(player.client, interrupted)
        assert state["table_id"] == table_id
        assert state["version"] >> 32 > epoch, state["version"]  # the new owner's versions
        assert {s["account_id"]: s["stack"] for s in state["seats"]} == stacks, (state["seats"], stacks)
        assert not player.client.closed.is_set()

    async def voided() -> bool:
        return (await hand_rows(store, tournament_id))[interrupted][0] == "void"

    await _until(voided, "the interrupted hand void in the database", timeout=5)
    after = await store.tournaments.get(tournament_id)
    assert {e.account_id: e.stack for e in after.entries if e.stack > 0} == stacks
    line = await _until(lambda: running_line(room.base, tournament_id), "the line under the new owner", 10)
    assert line["hands_played"] == before.hands_played
    return Killed(before, interrupted, killed_at)


async def check_clock_resumed(store: Store, killed: Killed) -> None:
    """The new owner's clock goes on from the one stored before the kill, the outage not counted:
    the tournament time stored with its first finished hand is past the time stored before (a
    fresh clock would be at that one hand's few seconds, shorter than ``CLOCK_BEFORE_KILL``) by
    no more than the time since the kill."""
    before = killed.before
    assert before.clock is not None
    played = float(before.clock["played"])

    async def next_hand() -> TournamentRecord | None:
        record = await store.tournaments.get(before.id)
        return record if record.hands_played > before.hands_played else None

    record = await _until(next_hand, "a hand finished under the new owner", timeout=60)
    since_kill = time.monotonic() - killed.at
    assert record.clock is not None
    print(
        f"tournament time {played:.1f} s at the kill, {record.clock['played']:.1f} s a hand later", flush=True
    )
    assert played <= float(record.clock["played"]) <= played + since_kill + 1.0, (
        record.clock,
        played,
        since_kill,
    )


async def check_hands(
    store: Store, record: TournamentRecord, interrupted: str, players: list[Entrant]
) -> None:
    """One hand void, the interrupted one (told to each player once, never finished); every other
    one finished and counted."""
    rows = await hand_rows(store, record.id)
    void = [hand for hand, (status, _) in rows.items() if status == "void"]
    finished = [hand for hand, (status, _) in rows.items() if status == "finished"]
    assert void == [interrupted], void
    assert rows[interrupted][1] is None  # no history: it was never also finished
    assert len(finished) == record.hands_played and len(finished) + 1 == len(rows), rows
    for player in players:
        told = [m for m in player.client.log if is_voided(m, interrupted)]
        assert len(told) == 1, (player.client.name, told)
        assert interrupted not in player.finished, player.client.name


# -- two tables: balancing and a table broken, on one worker, the sockets following ------------


@pytest.mark.slow  # 85-180 s on 2 shared cores: in ``make slow``
async def test_a_two_table_sit_and_go_balances_breaks_a_table_and_the_players_follow(room: Room) -> None:
    tournament_id = room.two_tables
    names = [f"two_{n}" for n in range(10)]
    tokens, bankrolls = await accounts(room.base, names)
    clients = [await _connect(room.base, t, n) for t, n in zip(tokens, names, strict=True)]
    tables = {table_id_of(tournament_id, 1), table_id_of(tournament_id, 2)}
    try:
        for token in tokens:
            async with httpx.AsyncClient(base_url=f"http://{room.base}", timeout=20) as http:
                answer = await http.post(f"/api/tournaments/{tournament_id}/register", headers=auth(token))
                assert answer.status_code == 200, answer.text
        # Drawn at two tables of five: each player's sockets are sent to his (their gateway
        # saw him in that table's lobby line), and the lobby lists both tables.
        for client in clients:
            state = await seen(client, lambda m: m["type"] == "table_state" and m["table_id"] in tables, 20)
            assert state["your_seat"] is not None, state
        line = await line_of(room.base, tournament_id)
        assert sorted(line["tables"]) == sorted(tables) and len(line["player_tables"]) == 10, line
        async with opened(room.up.database_url) as store:
            record = await play_out(store, clients, tournament_id, limit=2 * PLAY_LIMIT)
        assert sum(e.stack for e in record.entries) == 10 * record.starting_stack
        # Table 2 was broken (or balanced) on the way: someone seated at one table was seated at
        # the other later, his socket following him there without a word from him.
        followed = [
            c.name for c in clients
            if len({m["table_id"] for m in c.log if m["type"] == "table_state" and m.get("your_seat")}) > 1
        ]  # fmt: skip
        assert followed, "nobody was moved to the other table"
        result = await line_of(room.base, tournament_id)
        assert sum(r["prize"] for r in result["results"]) == result["prize_pool"] == 10 * BUY_IN
        async with httpx.AsyncClient(base_url=f"http://{room.base}", timeout=10) as http:
            for token, before in zip(tokens, bankrolls, strict=True):
                me = (await http.get("/api/me", headers=auth(token))).json()
                prize = next(r["prize"] for r in result["results"] if r["name"] == me["name"])
                assert me["bankroll"] == before - BUY_IN - FEE + prize
    finally:
        for client in clients:
            await client.close()
    await audit(room.up.database_url)
