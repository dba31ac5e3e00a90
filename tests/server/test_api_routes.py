"""The HTTP API's shape: every (method, path) the app serves, the operations its OpenAPI
document lists, and the refusals mapped to ``{"error": {code, message}}`` in one place
(:mod:`studpoker.server.api.errors`). Adding, moving or dropping a route is a change to make
here on purpose."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute, APIWebSocketRoute, iter_route_contexts
from starlette.routing import Mount, Route

from studpoker.server import create_app
from studpoker.store.errors import LimitError
from tests.server.conftest import make_settings

# The REST operations, as the OpenAPI document lists them.
OPERATIONS = {
    ("POST", "/api/register"),
    ("POST", "/api/login"),
    ("POST", "/api/logout"),
    ("GET", "/api/me"),
    ("POST", "/api/topup"),
    ("GET", "/api/tables"),
    ("GET", "/api/tables/{table_id}"),
    ("GET", "/api/health"),
    ("GET", "/api/games"),
    ("GET", "/api/me/hands"),
    ("GET", "/api/hands"),
    ("GET", "/api/hands/{hand_id}"),
    ("GET", "/api/hands/{hand_id}/seed"),
    ("GET", "/api/hands/{hand_id}/replay"),
    ("GET", "/api/hands/{hand_id}/public"),
    ("GET", "/api/hands/{hand_id}/pokerstars"),
    ("POST", "/api/replay"),
    ("GET", "/api/me/stats"),
    ("GET", "/api/players/{name}/stats"),
    ("GET", "/api/notes"),
    ("GET", "/api/notes/{player_name}"),
    ("PUT", "/api/notes/{player_name}"),
    ("DELETE", "/api/notes/{player_name}"),
    ("GET", "/api/me/preferences"),
    ("PUT", "/api/me/preferences"),
    ("GET", "/api/me/preferences/auto-top-up"),
    ("PUT", "/api/me/preferences/auto-top-up"),
    ("GET", "/api/me/chat/mutes"),
    ("PUT", "/api/me/chat/mutes/{player_name}"),
    ("DELETE", "/api/me/chat/mutes/{player_name}"),
    ("POST", "/api/tables/{table_id}/chat/{line_id}/report"),
    ("GET", "/api/tournaments"),
    ("GET", "/api/tournaments/{tournament_id}"),
    ("POST", "/api/tournaments/{tournament_id}/register"),
    ("POST", "/api/tournaments/{tournament_id}/unregister"),
}

# What the app serves besides them: FastAPI's documents, the table WebSocket, the browser client.
UNDOCUMENTED = {
    ("GET", "/openapi.json"),
    ("HEAD", "/openapi.json"),
    ("GET", "/docs"),
    ("HEAD", "/docs"),
    ("GET", "/docs/oauth2-redirect"),
    ("HEAD", "/docs/oauth2-redirect"),
    ("GET", "/redoc"),
    ("HEAD", "/redoc"),
    ("WEBSOCKET", "/ws"),
}


def route_table(app: FastAPI) -> set[tuple[str, str]]:
    """Every (method, path) of the app, the included routers' routes among them; a mount is
    ("MOUNT", its path)."""
    table: set[tuple[str, str]] = set()
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIWebSocketRoute):
            table.add(("WEBSOCKET", context.path or ""))
        elif isinstance(route, Mount):
            table.add(("MOUNT", route.path or "/"))
        else:
            assert isinstance(route, APIRoute | Route), route
            table |= {(method, context.path or "") for method in context.methods or ()}
    return table


def test_route_table_with_the_browser_client(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, web_dir=str(tmp_path)))
    assert route_table(app) == OPERATIONS | UNDOCUMENTED | {("MOUNT", "/")}


def test_route_table_without_it(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, web_dir=str(tmp_path / "none")))
    assert route_table(app) == OPERATIONS | UNDOCUMENTED | {("GET", "/")}


def test_openapi_lists_every_operation(tmp_path: Path) -> None:
    doc = create_app(make_settings(tmp_path)).openapi()
    listed = {(method.upper(), path) for path, item in doc["paths"].items() for method in item}
    assert listed == OPERATIONS


async def test_refusals_answer_one_json_shape(tmp_path: Path) -> None:
    """Starlette's 404 and 405, a body that fails validation, an ``ApiError`` and a store refusal
    (with its headers): none of them needs the room, so no lifespan runs. No browser client is
    mounted at /, so that the route added here is reached."""
    app = create_app(make_settings(tmp_path, web_dir=str(tmp_path / "none")))

    async def spent() -> None:
        raise LimitError("no more today", retry_after=30.2)

    app.add_api_route("/test/spent", spent)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        unknown = await http.get("/api/nowhere")
        wrong_method = await http.delete("/api/me")
        malformed = await http.post("/api/login", json={"name": "", "password": 3})
        unauthenticated = await http.get("/api/me")
        refused = await http.get("/test/spent")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "not_found")
    assert (wrong_method.status_code, wrong_method.json()["error"]["code"]) == (405, "method_not_allowed")
    assert wrong_method.headers["allow"] == "GET"
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (422, "invalid")
    assert "body.name" in malformed.json()["error"]["message"]
    assert unauthenticated.status_code == 401
    assert unauthenticated.json() == {
        "error": {"code": "unauthorized", "message": "log in and send 'Authorization: Bearer <token>'"}
    }
    assert refused.status_code == 429 and refused.headers["retry-after"] == "31"
    assert refused.json() == {"error": {"code": "rate_limited", "message": "no more today"}}
