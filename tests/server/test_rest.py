"""REST: accounts, login rate limit, lobby, hand histories access, OpenAPI, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from studpoker.cli import main
from studpoker.games import GAMES
from studpoker.server.room import DEFAULT_MIXED_TABLES, DEFAULT_STAKES
from tests.server.conftest import Harness, make_settings, running_server


async def test_register_login_me_logout(harness: Harness) -> None:
    http = harness.http
    r = await http.post("/api/register", json={"name": "alice", "password": "password123"})
    assert r.status_code == 201, r.text
    body = r.json()
    token = body["token"]
    assert body["account"]["name"] == "alice" and body["account"]["bankroll"] > 0
    again = await http.post("/api/register", json={"name": "ALICE", "password": "password123"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "name_taken"
    weak = await http.post("/api/register", json={"name": "bob", "password": "x"})
    assert weak.status_code == 422 and "error" in weak.json()

    me = await http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200 and me.json()["name"] == "alice"
    assert (await http.get("/api/me")).status_code == 401
    assert (await http.get("/api/me", headers={"Authorization": "Bearer nope"})).status_code == 401

    login = await http.post("/api/login", json={"name": "alice", "password": "password123"})
    assert login.status_code == 200
    token2 = login.json()["token"]
    out = await http.post("/api/logout", headers={"Authorization": f"Bearer {token2}"})
    assert out.status_code == 204
    gone = await http.get("/api/me", headers={"Authorization": f"Bearer {token2}"})
    assert gone.status_code == 401 and gone.json()["error"]["code"] == "unauthorized"
    # The first session is still good; top-up is refused (not broke) with granted 0.
    top = await http.post("/api/topup", headers={"Authorization": f"Bearer {token}"})
    assert top.status_code == 200 and top.json()["granted"] == 0


async def test_login_rate_limit(harness: Harness) -> None:
    http = harness.http
    await harness.register("carol")
    for _ in range(harness.settings.login_max_failures):
        bad = await http.post("/api/login", json={"name": "carol", "password": "wrong-password"})
        assert bad.status_code == 401
    blocked = await http.post("/api/login", json={"name": "carol", "password": "password123"})
    assert blocked.status_code == 429
    assert blocked.json()["error"]["code"] == "rate_limited" and int(blocked.headers["Retry-After"]) > 0
    # Another name from the same address is not blocked.
    await harness.register("dave")
    ok = await http.post("/api/login", json={"name": "dave", "password": "password123"})
    assert ok.status_code == 200


async def test_tables_and_filters(harness: Harness) -> None:
    await harness.add_table("7S", 100, 200)
    await harness.add_table("O8", 300, 600)
    await harness.add_table("RZ", 100, 200)
    http = harness.http
    tables = (await http.get("/api/tables")).json()
    assert [t["game"] for t in tables] == ["7S", "O8", "RZ"]
    seven = tables[0]
    assert seven["ante"] == 20 and seven["bring_in"] == 50 and seven["max_seats"] == 8
    assert tables[1]["max_seats"] == 10 and tables[1]["big_blind"] == 300
    assert [t["game"] for t in (await http.get("/api/tables", params={"game": "rz"})).json()] == ["RZ"]
    by_stakes = (await http.get("/api/tables", params={"stakes": "100/200"})).json()
    assert sorted(t["game"] for t in by_stakes) == ["7S", "RZ"]
    one = await http.get(f"/api/tables/{seven['id']}")
    assert one.status_code == 200 and one.json()["name"] == seven["name"]
    missing = await http.get("/api/tables/9999")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_openapi_and_index(harness: Harness) -> None:
    spec = (await harness.http.get("/openapi.json")).json()
    for path in ("/api/register", "/api/login", "/api/logout", "/api/me", "/api/topup", "/api/tables",
                 "/api/tables/{table_id}", "/api/hands", "/api/hands/{hand_id}"):  # fmt: skip
        assert path in spec["paths"], path
    index = await harness.http.get("/")
    assert index.status_code == 200 and "studpoker" in index.text


async def test_hand_history_access(harness: Harness) -> None:
    token = await harness.register("erin")
    headers = {"Authorization": f"Bearer {token}"}
    assert (await harness.http.get("/api/hands", headers=headers)).json() == []
    missing = await harness.http.get("/api/hands/nope", headers=headers)
    assert missing.status_code == 404
    assert (await harness.http.get("/api/hands")).status_code == 401


async def test_default_tables(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, default_tables=True)) as h:
        tables = (await h.http.get("/api/tables")).json()
        assert len(tables) == len(GAMES) * len(DEFAULT_STAKES) + len(DEFAULT_MIXED_TABLES)
        horse = next(t for t in tables if t["name"] == "HORSE 0.50/1")  # R-MIXED-ROTATION
        assert horse["rotation"]["game_now"] == horse["game"] == "LHE" and horse["max_seats"] == 8
        assert horse["rotation"]["hands_left"] == 8
        assert all(t["rotation"] is None for t in tables if t is not horse)
        assert {t["game"] for t in tables} == set(GAMES) == {"7S", "7S8", "RZ", "O8", "LHE"}
        five_ten = next(t for t in tables if t["game"] == "7S" and t["big_bet"] == 1000)
        assert (five_ten["ante"], five_ten["bring_in"], five_ten["small_bet"]) == (100, 250, 500)
        holdem = next(t for t in tables if t["game"] == "LHE" and t["big_bet"] == 1000)
        assert (holdem["small_blind"], holdem["big_blind"], holdem["ante"]) == (250, 500, 0)


def test_serve_help_lists_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for option in ("--host", "--port", "--database-url", "--bots", "--think-seconds", "--countdown-seconds"):
        assert option in out
