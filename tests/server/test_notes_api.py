"""``/api/notes`` and ``/api/me/preferences``: a player's private notes, colour tags and keyboard
shortcuts over REST, with the room's limits from the settings (the rules themselves are tested
in tests/store/test_notes.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from studpoker.store.notes import DEFAULT_SHORTCUTS, PALETTE
from tests.server.conftest import Harness, make_settings, running_server


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def error_code(answer: Any) -> str:
    code: str = answer.json()["error"]["code"]
    return code


async def test_notes_are_private_to_their_writer(harness: Harness) -> None:
    alice, bob = await harness.register("alice"), await harness.register("bob")
    await harness.register("carol")
    put = await harness.http.put(
        "/api/notes/carol", json={"text": "slowplays sets", "colour": "red"}, headers=auth(alice)
    )
    assert put.status_code == 200, put.text
    carol_id = (await harness.store.account_by_name("carol")).id
    assert put.json() | {"updated_at": None} == {
        "player": "carol",
        "account_id": carol_id,
        "text": "slowplays sets",
        "colour": "red",
        "updated_at": None,
    }
    assert (
        await harness.http.put("/api/notes/Bob", json={"colour": "blue"}, headers=auth(alice))
    ).status_code == 200

    mine = (await harness.http.get("/api/notes", headers=auth(alice))).json()
    assert [(n["player"], n["text"], n["colour"]) for n in mine["notes"]] == [
        ("bob", "", "blue"),
        ("carol", "slowplays sets", "red"),
    ]
    assert mine["palette"] == list(PALETTE) and mine["max_chars"] == 500 and mine["max_notes"] == 1000
    assert (await harness.http.get("/api/notes/carol", headers=auth(alice))).json()[
        "text"
    ] == "slowplays sets"
    # bob sees none of it: not in his list, not by asking for the player
    assert (await harness.http.get("/api/notes", headers=auth(bob))).json()["notes"] == []
    answer = await harness.http.get("/api/notes/carol", headers=auth(bob))
    assert answer.status_code == 404 and error_code(answer) == "not_found"
    # deleting
    assert (await harness.http.delete("/api/notes/carol", headers=auth(alice))).status_code == 204
    assert (await harness.http.get("/api/notes/carol", headers=auth(alice))).status_code == 404
    assert (await harness.http.delete("/api/notes/carol", headers=auth(alice))).status_code == 404
    assert [
        n["player"] for n in (await harness.http.get("/api/notes", headers=auth(alice))).json()["notes"]
    ] == ["bob"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/notes"),
        ("GET", "/api/notes/bob"),
        ("PUT", "/api/notes/bob"),
        ("DELETE", "/api/notes/bob"),
        ("GET", "/api/me/preferences"),
        ("PUT", "/api/me/preferences"),
    ],
)
async def test_every_route_needs_a_session(harness: Harness, method: str, path: str) -> None:
    await harness.register("bob")
    body: dict[str, Any] = {"text": "x"} if path.startswith("/api/notes/") else {"shortcuts": {}}
    for headers in ({}, auth("not-a-token")):
        answer = await harness.http.request(
            method, path, json=body if method == "PUT" else None, headers=headers
        )
        assert answer.status_code == 401 and error_code(answer) == "unauthorized", answer.text


async def test_unknown_players_are_404(harness: Harness) -> None:
    alice = await harness.register("alice")
    for method in ("GET", "PUT", "DELETE"):
        answer = await harness.http.request(
            method, "/api/notes/nobody", json={"text": "x"} if method == "PUT" else None, headers=auth(alice)
        )
        assert answer.status_code == 404 and error_code(answer) == "not_found", answer.text
        assert "no player named" in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    ("player", "body"),
    [
        ("bob", {"text": "x" * 501}),
        ("bob", {"text": "x", "colour": "pink"}),
        ("bob", {"text": ""}),
        ("bob", {"text": "x", "colour": 3}),
        ("bob", {"text": ["x"]}),
        ("alice", {"text": "me"}),
    ],
)
async def test_bad_notes_are_422_and_change_nothing(
    harness: Harness, player: str, body: dict[str, Any]
) -> None:
    alice = await harness.register("alice")
    await harness.register("bob")
    await harness.http.put("/api/notes/bob", json={"text": "kept", "colour": "green"}, headers=auth(alice))
    answer = await harness.http.put(f"/api/notes/{player}", json=body, headers=auth(alice))
    assert answer.status_code == 422 and error_code(answer) == "invalid", answer.text
    notes = (await harness.http.get("/api/notes", headers=auth(alice))).json()["notes"]
    assert [(n["player"], n["text"], n["colour"]) for n in notes] == [("bob", "kept", "green")]


async def test_the_limits_are_the_rooms_settings(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, note_max_chars=10, notes_per_account=1)
    async with running_server(settings) as harness:
        alice = await harness.register("alice")
        await harness.register("bob")
        await harness.register("carol")
        long = await harness.http.put("/api/notes/bob", json={"text": "x" * 11}, headers=auth(alice))
        assert long.status_code == 422 and "at most 10 characters" in long.text
        assert (
            await harness.http.put("/api/notes/bob", json={"text": "x" * 10}, headers=auth(alice))
        ).status_code == 200
        second = await harness.http.put("/api/notes/carol", json={"text": "y"}, headers=auth(alice))
        assert second.status_code == 409 and error_code(second) == "too_many_notes", second.text
        listed = (await harness.http.get("/api/notes", headers=auth(alice))).json()
        assert (listed["max_chars"], listed["max_notes"]) == (10, 1)
        assert [n["player"] for n in listed["notes"]] == ["bob"]


async def test_shortcuts_are_kept_per_account(harness: Harness) -> None:
    alice, bob = await harness.register("alice"), await harness.register("bob")
    first = (await harness.http.get("/api/me/preferences", headers=auth(alice))).json()
    assert first == {"shortcuts": dict(DEFAULT_SHORTCUTS), "defaults": dict(DEFAULT_SHORTCUTS)}
    put = await harness.http.put(
        "/api/me/preferences", json={"shortcuts": {"call": "X"}}, headers=auth(alice)
    )
    assert put.status_code == 200, put.text
    assert put.json()["shortcuts"] == {**DEFAULT_SHORTCUTS, "call": "x"}
    assert (await harness.http.get("/api/me/preferences", headers=auth(alice))).json()["shortcuts"][
        "call"
    ] == "x"
    assert (await harness.http.get("/api/me/preferences", headers=auth(bob))).json()["shortcuts"] == dict(
        DEFAULT_SHORTCUTS
    )


@pytest.mark.parametrize(
    "body",
    [
        {"shortcuts": {"jump": "j"}},
        {"shortcuts": {"call": "cc"}},
        {"shortcuts": {"call": "f"}},
        {"shortcuts": {"call": 1}},
        {"shortcuts": ["call"]},
        {},
    ],
)
async def test_bad_shortcuts_are_422_and_change_nothing(harness: Harness, body: dict[str, Any]) -> None:
    alice = await harness.register("alice")
    await harness.http.put("/api/me/preferences", json={"shortcuts": {"call": "x"}}, headers=auth(alice))
    answer = await harness.http.put("/api/me/preferences", json=body, headers=auth(alice))
    assert answer.status_code == 422 and error_code(answer) == "invalid", answer.text
    kept = (await harness.http.get("/api/me/preferences", headers=auth(alice))).json()["shortcuts"]
    assert kept == {**DEFAULT_SHORTCUTS, "call": "x"}
