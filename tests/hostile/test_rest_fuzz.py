"""Fuzz the REST API from its own OpenAPI document (/openapi.json).

A hypothesis fuzzer rather than schemathesis: it walks every operation of the document, builds
path and query parameters and JSON bodies from their schemas (valid values, values just outside
the bounds, wrong types, markup and SQL text), with no token, a live token, a junk token or a
revoked one. Every answer must be below 500 and JSON; an answer of 400 or more must leave the
room unchanged (:meth:`LiveRoom.fingerprint`).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.conftest import LiveRoom, live_room
from tests.hostile.test_ws_fuzz import JSON_LEAVES, JSON_VALUES, NASTY_TEXT

EXAMPLES = int(os.environ.get("STUDPOKER_REST_FUZZ_EXAMPLES", "300"))
REST_COUNTS: Counter[str] = Counter()


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        parts = schema["$ref"].lstrip("#/").split("/")
        node: Any = doc
        for part in parts:
            node = node[part]
        schema = node
    return schema


def value_strategy(doc: dict[str, Any], schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    schema = resolve(doc, schema)
    options = schema.get("anyOf") or schema.get("oneOf") or [schema]
    out: list[st.SearchStrategy[Any]] = [JSON_LEAVES]
    for raw in options:
        option = resolve(doc, raw)
        kind = option.get("type")
        if kind == "integer":
            lo, hi = option.get("minimum", -(2**33)), option.get("maximum", 2**33)
            out += [st.integers(lo, hi), st.sampled_from([lo - 1, hi + 1, 0, -1, 2**63, 1])]
        elif kind == "string":
            top = option.get("maxLength", 60)
            out += [
                st.text(max_size=min(top, 30)),
                st.text(alphabet="abcdefghij0123456789_-", min_size=3, max_size=12),
                st.text(min_size=top + 1, max_size=top + 2) if top < 300 else st.just("y" * 301),
                NASTY_TEXT,
            ]
        elif kind == "object" and depth < 3:
            props = option.get("properties", {})
            fields = {k: value_strategy(doc, v, depth + 1) for k, v in props.items()}
            out.append(st.fixed_dictionaries({}, optional=fields))
            out.append(st.fixed_dictionaries(fields))
        elif kind == "array" and depth < 3:
            out.append(st.lists(value_strategy(doc, option.get("items", {}), depth + 1), max_size=3))
    return st.one_of(out)


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    ops = []
    for path, item in sorted(doc["paths"].items()):
        for method, op in sorted(item.items()):
            if method in ("get", "post", "put", "delete", "patch"):
                ops.append((method, path, op))
    return ops


@st.composite
def requests(draw: st.DrawFn, doc: dict[str, Any]) -> dict[str, Any]:
    method, path, op = draw(st.sampled_from(operations(doc)))
    url = path
    query: dict[str, Any] = {}
    for param in op.get("parameters", []):
        value = draw(value_strategy(doc, param.get("schema", {})))
        if param["in"] == "path":
            url = url.replace("{" + param["name"] + "}", urllib.parse.quote(str(value), safe="") or "x")
        elif param["in"] == "query" and (param.get("required") or draw(st.booleans())):
            query[param["name"]] = value if isinstance(value, int | str) else json.dumps(value)
    body: Any = None
    content = (op.get("requestBody") or {}).get("content", {})
    if "application/json" in content:
        schema = content["application/json"].get("schema", {})
        body = draw(st.one_of(value_strategy(doc, schema), JSON_VALUES))
    auth = draw(st.sampled_from(["none", "live", "junk", "revoked", "scheme"]))
    if draw(st.integers(0, 20)) == 0:
        method = draw(st.sampled_from(["put", "delete", "patch"]))
    return {"method": method, "url": url, "query": query, "body": body, "auth": auth, "op": path}


@pytest.fixture(scope="module")
def rest_room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveRoom, dict[str, str]]]:
    with live_room(tmp_path_factory.mktemp("restfuzz")) as live:
        live.add_table()
        live_token, _ = live.register("restfuzz")
        revoked, _ = live.register("revoked")
        assert (
            live.http.post("/api/logout", headers={"Authorization": f"Bearer {revoked}"}).status_code == 204
        )
        tokens = {"live": live_token, "junk": "not-a-token", "revoked": revoked}
        yield live, tokens
        print(f"\nREST fuzz: {dict(REST_COUNTS)}")


def test_rest_fuzz(rest_room: tuple[LiveRoom, dict[str, str]]) -> None:
    run_rest_fuzz(*rest_room, examples=EXAMPLES, derandomize=os.environ.get("STUDPOKER_FUZZ_RANDOM") is None)


@pytest.mark.slow
def test_rest_fuzz_long(rest_room: tuple[LiveRoom, dict[str, str]]) -> None:
    run_rest_fuzz(*rest_room, examples=4000, derandomize=False)


def run_rest_fuzz(live: LiveRoom, tokens: dict[str, str], *, examples: int, derandomize: bool) -> None:
    doc = live.http.get("/openapi.json").json()
    assert len(operations(doc)) >= 8
    baseline = [live.fingerprint()]
    start = REST_COUNTS["requests"]

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(requests(doc))
    def one(req: dict[str, Any]) -> None:
        headers = {}
        if req["auth"] in tokens:
            headers["Authorization"] = f"Bearer {tokens[req['auth']]}"
        elif req["auth"] == "scheme":
            headers["Authorization"] = "Basic Zm9vOmJhcg=="
        kwargs: dict[str, Any] = {"params": req["query"], "headers": headers}
        if req["body"] is not None:
            kwargs["content"] = json.dumps(req["body"])
            headers["Content-Type"] = "application/json"
        response = live.http.request(req["method"].upper(), req["url"], **kwargs)
        REST_COUNTS["requests"] += 1
        REST_COUNTS[f"{response.status_code}"] += 1
        assert response.status_code < 500, (req, response.status_code, response.text[:300])
        if response.status_code < 300 and response.headers.get("content-type", "").startswith("text/plain"):
            response.text.encode("utf-8")  # a download (GET /api/me/hands): text, declared so
        elif response.status_code != 204:
            response.json()  # every other answer is JSON, errors included
        after = live.fingerprint()
        if response.status_code >= 400:
            assert after == baseline[0], (req, response.status_code, response.text[:300])
        else:
            baseline[0] = after
        if req["op"] == "/api/logout" and response.status_code == 204 and req["auth"] == "live":
            # The live token was just revoked: it is now a revoked one; log in a fresh live token.
            login = live.http.post("/api/login", json={"name": "restfuzz", "password": "password123"})
            if login.status_code == 200:
                tokens["live"] = login.json()["token"]
                baseline[0] = live.fingerprint()

    one()
    assert REST_COUNTS["requests"] - start >= examples * 0.9
    assert live.actors_alive()
    assert live.audit_balanced()


def test_huge_offset_is_refused(rest_room: tuple[LiveRoom, dict[str, str]]) -> None:
    """The fuzzer's first find: offset=2**63 was a 500 (SQLite overflow); now bounded."""
    live, tokens = rest_room
    headers = {"Authorization": f"Bearer {tokens['live']}"}
    response = live.http.get("/api/hands", params={"offset": 2**63}, headers=headers)
    assert response.status_code == 422, response.text
