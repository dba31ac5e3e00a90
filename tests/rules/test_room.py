"""The room (docs/rules.md): the action clock, the Omaha button, a fresh committed deck per hand,
and what a player may see of a finished hand. The last three run a real server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from studpoker.fairness import verify_deal
from studpoker.server.clock import ActionClock
from studpoker.store import TableConfig
from tests.server.conftest import Client, Harness, autoplay, make_settings, passive_choice, running_server

CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
TEXT_CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")


class FakeTime:
    """A settable clock for :class:`ActionClock` (it schedules real timers, which we cancel)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_action_clock_is_ten_seconds_then_a_twenty_second_countdown_reconnection_adds_twenty() -> None:
    config = TableConfig.derive("t", "7S", 100, 200)
    assert (config.think_seconds, config.countdown_seconds) == (10, 20)
    now = FakeTime(1000.0)
    clock = ActionClock(config.think_seconds, config.countdown_seconds, lambda serial: None, now=now)
    decision = clock.start("hand", 3)
    assert (decision.think_ends, decision.countdown_ends) == (1010.0, 1030.0)
    now.now = 1025.0  # he reconnects five seconds before his time runs out: 20 s more from now
    assert clock.extend()
    assert decision.countdown_ends == 1045.0
    now.now = 1040.0
    assert not clock.extend()  # once per decision
    assert decision.countdown_ends == 1045.0
    clock.cancel()


def events_of(client: Client, kind: str) -> list[dict[str, Any]]:
    return [m for m in client.log if m["type"] == "event" and m["event"].get("kind") == kind]


async def seat_players(h: Harness, game: str, players: int) -> tuple[int, list[Client]]:
    actor = await h.add_table(game, 100, 200)
    clients = [await h.player(f"player{i}") for i in range(1, players + 1)]
    actor.hand_pause_seconds = 0.5  # (usually) everyone seated before the first deal
    for seat, client in enumerate(clients, start=1):
        await h.seat(client, actor.table_id, seat, 4000)
    actor.hand_pause_seconds = 0.0  # (the first deal is already scheduled) then no pause
    return actor.table_id, clients


def button_of(seats: list[int], small_blind: int) -> int:
    """Heads-up the button posts the small blind; otherwise he sits just before it."""
    if len(seats) == 2:
        return small_blind
    return seats[seats.index(small_blind) - 1]


async def test_o8_button_moves_one_seat_left_each_hand(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        _table, clients = await seat_players(h, "O8", 3)
        await asyncio.gather(*(autoplay(c, hands=4) for c in clients))
        watcher = clients[0]
        started = [m for m in watcher.log if m["type"] == "hand_started"][:4]
        small_blinds = {
            m["hand_id"]: m["event"]["seat"]
            for m in events_of(watcher, "post_blind")
            if m["event"]["detail"] == "small"
        }
        buttons = [button_of(m["seats"], small_blinds[m["hand_id"]]) for m in started]
        for k in range(1, len(started)):
            later = [s for s in started[k]["seats"] if s > buttons[k - 1]]
            assert buttons[k] == (later[0] if later else started[k]["seats"][0]), buttons
        assert len(set(buttons[-3:])) == 3  # three players: the button went round the table


async def test_every_hand_is_dealt_from_a_fresh_secure_deck_committed_before_the_deal(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        _table, clients = await seat_players(h, "7S", 2)
        await asyncio.gather(*(autoplay(c, hands=3) for c in clients))
        log = clients[0].log
        started = [(i, m) for i, m in enumerate(log) if m["type"] == "hand_started"][:3]
        orders = set()
        for index, message in started:
            hand_id = message["hand_id"]
            first_deal = min(
                i
                for i, m in enumerate(log)
                if m.get("hand_id") == hand_id and m["type"] == "event" and m["event"]["kind"] == "deal"
            )
            assert index < first_deal  # the commitment is out before the first card
            record = await h.store.hand(hand_id)  # the auditor's copy of the deck
            assert record.deck_order is not None and record.server_seed is not None
            seeds = [(s, bytes.fromhex(seed)) for s, seed in record.client_seeds]
            server_seed = bytes.fromhex(record.server_seed)
            assert verify_deal(message["deck_root"], message["seed_commitment"], server_seed, seeds)[0]
            assert message["commitment"] == message["deck_root"]
            orders.add(record.deck_order)
        assert len(orders) == 3 and len({m["commitment"] for _, m in started}) == 3


def card_strings(value: object) -> set[str]:
    if isinstance(value, str):  # one card, or cards separated by spaces
        return {word for word in value.split() if CARD.match(word)}
    if isinstance(value, dict):
        return set().union(*(card_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_strings(v) for v in value)) if value else set()
    return set()


def phh_hole_cards(phh: str) -> set[str]:
    """The cards the PHH deals to players (``d dh pN AhKd``); ``??`` are unknown cards."""
    cards: set[str] = set()
    for dealt in re.findall(r'"d dh p\d+ ([^"\s]+)', phh):
        cards.update(c for c in (dealt[k : k + 2] for k in range(0, len(dealt), 2)) if "?" not in c)
    return cards


def fold_when_possible(options: list[dict[str, Any]]) -> dict[str, Any]:
    return next((o for o in options if o["kind"] == "fold"), None) or passive_choice(options)


async def test_folded_and_undealt_cards_are_never_revealed_to_the_other_players(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        tokens = {name: await h.register(name) for name in ("ann", "ben")}
        clients = [await h.connect(token, name) for name, token in tokens.items()]
        actor = await h.add_table("7S", 100, 200)
        actor.hand_pause_seconds = 0.5
        for seat, client in enumerate(clients, start=1):
            await h.seat(client, actor.table_id, seat, 4000)
        # The bring-in player has nothing to call; the other one folds to him.
        finished = await asyncio.gather(*(autoplay(c, choose=fold_when_possible) for c in clients))
        hand_id = finished[0][0]["hand_id"]
        assert finished[0][0]["result"]["showdown"] is False
        for me, client in enumerate(clients):
            # What he saw during the hand: his own cards and the up cards. The other player's
            # down cards and the undealt cards: nothing at the end may show them to him.
            seen = {c for m in events_of(client, "deal") for c in m["event"].get("cards") or [] if c}
            assert len(seen) == 4
            assert card_strings(finished[me][0]) <= seen
            answer = await h.http.get(
                f"/api/hands/{hand_id}", headers={"Authorization": f"Bearer {tokens[client.name]}"}
            )
            body = answer.json()
            assert card_strings(body.get("deck_order") or []) <= seen
            assert card_strings(body) <= seen  # the openings too: of his cards and the up cards
            assert card_strings(body["openings"]) == seen
            assert phh_hole_cards(body["phh"]) <= seen
            assert set(TEXT_CARD.findall(body["text"] or "")) <= seen
