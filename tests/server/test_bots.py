"""Bots play many hands through the protocol; no message to a seat (or a spectator) ever
contains another seat's down card before that card is shown."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

import pytest

from studpoker.server.bots import BotConnection, start_bots
from studpoker.server.protocol import ServerMsg, encode
from studpoker.server.store_adapter import StoreTableAdapter
from studpoker.server.table.ports import HandEnd
from studpoker.store import Store
from tests.server.conftest import make_settings, running_server

CARD = re.compile(r'"([2-9TJQKA][cdhs])"')


def leaks(messages: list[str], own: int | None, hands: dict[str, dict[int, set[str]]]) -> list[str]:
    """Messages (in the order received by one account; ``own`` its account id) that show a down
    card of another player of the hand before it was exposed or shown."""
    public: dict[str, set[str]] = {}
    over: set[str] = set()
    exposed: set[str] = set()
    found = []
    for text in messages:
        message = json.loads(text)
        hand_id = message.get("hand_id")
        if hand_id is None or hand_id not in hands or hand_id in over:
            continue
        if message["type"] == "hand_finished":
            over.add(hand_id)
            continue
        event = message.get("event") or {}
        kind = event.get("kind")
        if kind == "expose":
            exposed.add(hand_id)
        # Shown cards are public; so are down cards dealt after an all-in run-out turned the
        # hands face up (the engine deals them to everyone, without a visibility).
        if kind in ("expose", "show") or (
            kind == "deal" and hand_id in exposed and "visibility" not in event
        ):
            public.setdefault(hand_id, set()).update(c for c in event.get("cards") or [] if c)
        hidden = set()
        for account, down in hands[hand_id].items():
            if account != own:
                hidden |= down
        hidden -= public.get(hand_id, set())
        shown = set(CARD.findall(text)) & hidden
        if shown:
            found.append(f"{sorted(shown)} in {text[:300]}")
    return found


async def test_bots_never_see_hidden_cards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hands: dict[str, dict[int, set[str]]] = {}
    received: dict[int, list[str]] = {}
    original_finish = StoreTableAdapter.finish_hand
    original_send = BotConnection.send

    async def spy_finish(self: StoreTableAdapter, end: HandEnd) -> None:
        # The tables' store port: every finished hand passes here with its seats.
        hands[end.hand_id] = {
            account: {str(c) for c in end.hand.cards_of(seat)[0]} for seat, account in end.accounts.items()
        }
        await original_finish(self, end)

    def spy_send(self: BotConnection, message: ServerMsg) -> None:
        received.setdefault(self.account_id, []).append(encode(message))
        original_send(self, message)

    monkeypatch.setattr(StoreTableAdapter, "finish_hand", spy_finish)
    monkeypatch.setattr(BotConnection, "send", spy_send)
    settings = make_settings(tmp_path, think_seconds=3.0, countdown_seconds=3.0)
    async with running_server(settings) as h:
        actors = [await h.add_table(game, 50, 100) for game in ("7S", "7S8", "RZ", "O8")]
        spectator = await h.player("watcher")
        for actor in actors:
            assert (await spectator.request(type="join_table", table_id=actor.table_id))["type"] == "ack"
        bots = await start_bots(h.room, 4, seed=7)
        h.room.bots.extend(bots)
        deadline = time.monotonic() + 75
        while sum(a.hands_played for a in actors) < 100 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        played = sum(a.hands_played for a in actors)
        assert played >= 100, played
        assert all(a.hands_played > 0 for a in actors)
        for bot in bots:
            bot.stop()
        await asyncio.sleep(0.1)
    assert len(hands) >= 100
    problems: list[str] = []
    for account, messages in received.items():
        problems += leaks(messages, account, hands)
    problems += leaks(spectator.raw, None, hands)
    assert not problems, problems[:5]
    # The spy sees real cards: each seat's own down cards do reach it.
    own_deals = [
        text
        for messages in received.values()
        for text in messages
        if '"kind":"deal"' in text and '"visibility"' in text and CARD.search(text)
    ]
    assert len(own_deals) > 100


def test_leak_detector_catches_a_leak() -> None:
    hands = {"h1": {1: {"As", "Kd"}, 2: {"2c", "3c"}}}
    clean = [json.dumps({"type": "event", "hand_id": "h1", "event": {"kind": "deal", "cards": ["As"]}})]
    assert leaks(clean, 1, hands) == []
    leak = [json.dumps({"type": "event", "hand_id": "h1", "event": {"kind": "deal", "cards": ["2c"]}})]
    assert leaks(leak, 1, hands)
    shown = [
        json.dumps({"type": "event", "hand_id": "h1", "event": {"kind": "show", "cards": ["2c", "3c"]}}),
        *leak,
    ]
    assert leaks(shown, 1, hands) == []
    run_out = [
        json.dumps(
            {"type": "event", "hand_id": "h1", "event": {"kind": "expose", "seat": 2, "cards": ["2c"]}}
        ),
        json.dumps({"type": "event", "hand_id": "h1", "event": {"kind": "deal", "seat": 2, "cards": ["3c"]}}),
    ]
    assert leaks(run_out, 1, hands) == []
    assert leaks(run_out[1:], 1, hands)


async def test_shutdown_lets_hands_finish(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, shutdown_grace_seconds=10.0, bot_delay=(0.01, 0.02))
    async with running_server(settings) as h:
        actor = await h.add_table("7S", 50, 100)
        h.room.bots.extend(await start_bots(h.room, 3, seed=1))
        deadline = time.monotonic() + 30
        while actor.hands_played < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert actor.hand is not None or actor.hands_played >= 3
    store = await Store.open(settings.database_url)
    try:
        records = await store.hands_for_table(actor.table_id, limit=500)
        assert len(records) >= 3
        assert {r.status for r in records} == {"finished"}, [(r.status, r.void_reason) for r in records]
    finally:
        await store.close()
