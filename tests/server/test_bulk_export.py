"""``GET /api/me/hands?format=phh|pokerstars&since=...``: a player's own finished hands, streamed,
each as his seat saw it (issue 13's bulk download)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from studpoker.history.phh import loads, replay
from studpoker.history.pokerstars.parsed import ParsedHand
from studpoker.history.pokerstars.phh_record import to_phh
from studpoker.history.pokerstars.read import read_pokerstars
from tests.server.conftest import Harness, autoplay


async def played(harness: Harness, hands: int = 2) -> tuple[dict[str, str], list[str]]:
    actor = await harness.add_table("7S", 100, 200)
    tokens = {name: await harness.register(name) for name in ("kim", "lee")}
    clients = [await harness.connect(t, n) for n, t in tokens.items()]
    actor.hand_pause_seconds = 0.2
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 3000)
    finished = (await asyncio.gather(*(autoplay(c, hands=hands) for c in clients)))[0]
    await asyncio.sleep(0.1)
    return tokens, [m["hand_id"] for m in finished]


async def test_a_player_downloads_his_hands_as_phh_as_he_saw_them(harness: Harness) -> None:
    tokens, hand_ids = await played(harness)
    auth = {"Authorization": f"Bearer {tokens['kim']}"}
    answer = await harness.http.get("/api/me/hands", params={"format": "phh"}, headers=auth)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    assert "attachment" in answer.headers["content-disposition"]
    hands = loads(answer.text, source="download")
    assert len(hands) >= len(hand_ids)
    for phh in hands:
        replay(phh)  # his copy replays (the opponent's unseen down cards are unknown)
    # Each record is his seat's copy: the same end, the opponent's down cards unknown.
    by_id = {str(h.extra.get("hand")): h for h in hands}
    for hand_id in hand_ids:
        record = await harness.store.hand(hand_id)
        full = loads(record.phh or "", source="full")[0]
        mine = by_id[hand_id]
        assert mine.finishing_stacks == full.finishing_stacks
        first_deal = {a.split()[2]: a for a in reversed(mine.actions) if a.startswith("d dh ")}
        assert "??" in first_deal["p2"] and "??" not in first_deal["p1"], first_deal


async def test_a_player_downloads_his_hands_as_pokerstars_text(harness: Harness) -> None:
    tokens, hand_ids = await played(harness)
    auth = {"Authorization": f"Bearer {tokens['lee']}"}
    answer = await harness.http.get("/api/me/hands", params={"format": "pokerstars"}, headers=auth)
    assert answer.status_code == 200, answer.text
    parsed = [h for h in read_pokerstars(answer.text, source="download") if isinstance(h, ParsedHand)]
    assert len(parsed) >= len(hand_ids)
    for hand in parsed:
        replay(to_phh(hand).phh)
    # The downloader is the hero of every hand: his down cards are written, the opponent's not.
    for hand in parsed:
        dealt = [line.strip() for line in hand.text if line.startswith("Dealt to ")]
        mine = next(line for line in dealt if line.startswith("Dealt to lee "))
        theirs = next(line for line in dealt if line.startswith("Dealt to kim "))
        assert len(mine.split("[")[1].split()) == 3, dealt  # his two down cards and his door card
        assert len(theirs.split("[")[1].split()) == 1, dealt  # the opponent's door card only


async def test_since_and_bad_requests(harness: Harness) -> None:
    tokens, _ = await played(harness, hands=1)
    auth = {"Authorization": f"Bearer {tokens['kim']}"}
    later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    empty = await harness.http.get("/api/me/hands", params={"format": "phh", "since": later}, headers=auth)
    assert empty.status_code == 200 and empty.text == ""
    assert (await harness.http.get("/api/me/hands", params={"format": "phh"})).status_code == 401
    bad = await harness.http.get("/api/me/hands", params={"format": "csv"}, headers=auth)
    assert bad.status_code == 422 and "format" in bad.text
    # Someone else's download holds none of these hands.
    other = await harness.register("moe")
    none = await harness.http.get(
        "/api/me/hands", params={"format": "phh"}, headers={"Authorization": f"Bearer {other}"}
    )
    assert none.status_code == 200 and none.text == ""
