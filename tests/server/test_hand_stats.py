"""``GET /api/me/stats`` and ``GET /api/players/{name}/stats``: a player's statistics over REST,
from hands played at a real table (issue 13). The figures themselves are tested in
tests/store/test_stats.py."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.server.conftest import Harness, autoplay, make_settings, running_server

MONEY = ("net", "net_per_100", "big_bets", "bb_per_100", "results")


async def played(harness: Harness, hands: int = 2, game: str = "7S") -> tuple[dict[str, str], list[str]]:
    actor = await harness.add_table(game, 100, 200)
    tokens = {name: await harness.register(name) for name in ("kim", "lee")}
    clients = [await harness.connect(t, n) for n, t in tokens.items()]
    actor.hand_pause_seconds = 0.2
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 3000)
    finished = (await asyncio.gather(*(autoplay(c, hands=hands) for c in clients)))[0]
    await asyncio.sleep(0.2)  # the last hand's record is written after hand_finished went out
    return tokens, [m["hand_id"] for m in finished]


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def keys(value: Any) -> set[str]:
    """Every key of a JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


async def test_a_player_reads_his_hands_results_and_figures(harness: Harness) -> None:
    tokens, hand_ids = await played(harness)
    answer = await harness.http.get("/api/me/stats", headers=auth(tokens["kim"]))
    assert answer.status_code == 200, answer.text
    stats = answer.json()
    records = [await harness.store.hand(h) for h in hand_ids]
    nets = [next(s.net for s in r.seats.values() if s.name == "kim") for r in records]
    assert stats["name"] == "kim" and stats["hands"] == 2 and not stats["limited"]
    assert stats["net"] == sum(nets)
    assert stats["net_per_100"] == round(100 * sum(nets) / 2)
    assert stats["bb_per_100"] == round(100 * sum(nets) / 200 / 2, 2)
    assert [(p["hand"], p["net"], p["hand_id"]) for p in stats["results"]] == [
        (1, nets[0], hand_ids[0]),
        (2, nets[0] + nets[1], hand_ids[1]),
    ]
    [stud] = stats["games"]
    assert (stud["game"], stud["name"], stud["hands"], stud["net"]) == ("7S", "Seven Card Stud", 2, sum(nets))
    assert stud["unreplayed"] == 0
    # passive play (check, call, bring in) to the river: every hand saw 4th street and a showdown
    assert stud["saw_second_street"] == {"count": 2, "of": 2, "rate": 1.0}
    assert stud["showdown"] == {"count": 2, "of": 2, "rate": 1.0}
    assert stud["completion"]["count"] == 0 and stud["completion"]["of"] == 2
    assert stud["won_at_showdown"]["of"] == 2


async def test_limit_holdem_hands_replay_into_the_figures(harness: Harness) -> None:
    """Two LHE hands heads-up, checked and called down: every hand replays (none unreplayed),
    the first street is pre-flop (the button's call of the big blind is entry, the big blind's
    check is not) and the second the flop."""
    tokens, _ = await played(harness, game="LHE")
    stats = (await harness.http.get("/api/me/stats", headers=auth(tokens["kim"]))).json()
    [holdem] = stats["games"]
    assert (holdem["game"], holdem["name"], holdem["hands"]) == ("LHE", "Fixed-limit Texas Hold'em", 2)
    assert holdem["unreplayed"] == 0
    # the button moves: kim is the small blind once (calls: entry) and the big blind once (checks)
    assert holdem["entry"] == {"count": 1, "of": 2, "rate": 0.5}
    assert holdem["completion"] == {"count": 0, "of": 2, "rate": 0.0}
    assert holdem["saw_second_street"] == {"count": 2, "of": 2, "rate": 1.0}
    assert holdem["showdown"] == {"count": 2, "of": 2, "rate": 1.0}


async def test_the_public_figures_of_a_player_have_no_money(harness: Harness) -> None:
    tokens, _ = await played(harness)
    own = (await harness.http.get("/api/me/stats", headers=auth(tokens["kim"]))).json()
    answer = await harness.http.get("/api/players/KIM/stats", headers=auth(tokens["lee"]))
    assert answer.status_code == 200, answer.text
    public = answer.json()
    assert public["name"] == "kim" and public["hands"] == 2
    assert not keys(public) & set(MONEY), keys(public)
    [game] = public["games"]
    figures = ("entry", "completion", "saw_second_street", "showdown", "won_at_showdown")
    assert {f: game[f] for f in figures} == {f: own["games"][0][f] for f in figures}


async def test_refusals_and_filters(harness: Harness) -> None:
    tokens, _ = await played(harness, hands=1)
    for path in ("/api/me/stats", "/api/players/kim/stats"):
        refused = await harness.http.get(path)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    kim = auth(tokens["kim"])
    unknown = await harness.http.get("/api/players/nobody_here/stats", headers=kim)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    bad_game = await harness.http.get("/api/me/stats", params={"game": "NLHE"}, headers=kim)
    assert bad_game.status_code == 422 and "7S" in bad_game.json()["error"]["message"]
    too_few = await harness.http.get("/api/me/stats", params={"points": 1}, headers=kim)
    assert too_few.status_code == 422
    omaha = (await harness.http.get("/api/me/stats", params={"game": "O8"}, headers=kim)).json()
    assert (omaha["hands"], omaha["games"], omaha["results"], omaha["net"]) == (0, [], [], 0)
    assert omaha["game"] == "O8" and omaha["bb_per_100"] is None
    later = (datetime.now(UTC) + timedelta(hours=1)).replace(tzinfo=None).isoformat()
    none = (await harness.http.get("/api/me/stats", params={"since": later}, headers=kim)).json()
    assert none["hands"] == 0 and none["since"].startswith(later[:16])
    stud = (await harness.http.get("/api/me/stats", params={"game": "7S"}, headers=kim)).json()
    assert stud["hands"] == 1


async def test_the_settings_bound_the_window_and_the_points(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, stats_max_hands=3, stats_plot_points=2)
    async with running_server(settings) as harness:
        tokens, hand_ids = await played(harness, hands=4)
        lee = auth(tokens["lee"])
        stats = (await harness.http.get("/api/me/stats", headers=lee)).json()
        assert (stats["hands"], stats["max_hands"], stats["limited"]) == (3, 3, True)
        # the last three hands, their curve in two points: the first and the last
        assert [(p["hand"], p["hand_id"]) for p in stats["results"]] == [(1, hand_ids[1]), (3, hand_ids[3])]
        many = await harness.http.get("/api/me/stats", params={"points": 50}, headers=lee)
        assert len(many.json()["results"]) == 2  # the room's limit caps what is asked
