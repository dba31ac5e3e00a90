"""Every refusal of the store is a type carrying its code and HTTP status, and the server answers
those codes as they are (REST and the WebSocket protocol)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from studpoker.server.protocol import ErrorCode
from studpoker.store import errors
from studpoker.store.errors import StoreError

STORE_SOURCES = sorted(Path(errors.__file__).parent.glob("*.py"))


def refusal_types() -> list[type[StoreError]]:
    found: list[type[StoreError]] = []
    todo = list(StoreError.__subclasses__())
    while todo:
        kind = todo.pop()
        found.append(kind)
        todo += kind.__subclasses__()
    return sorted({k for k in found if k.__module__ == errors.__name__}, key=lambda k: k.__name__)


def test_every_refusal_has_its_own_code_and_status() -> None:
    kinds = refusal_types()
    assert len(kinds) >= 15
    for kind in kinds:
        assert "code" in vars(kind) and "status" in vars(kind), f"{kind.__name__} inherits its code"
        assert 400 <= kind.status <= 599
    codes = [kind.code for kind in kinds]
    assert len(set(codes)) == len(codes), codes


@pytest.mark.parametrize(
    "kind",
    [
        errors.SeatTakenError,
        errors.AlreadySeatedError,
        errors.NotYourSeatError,
        errors.SeatInHandError,
        errors.BadBuyInError,
        errors.InsufficientFundsError,
        errors.NotFoundError,
        errors.InvalidInputError,
        errors.AuthError,
        errors.LimitError,
        errors.StoreInternalError,
    ],
)
def test_the_refusals_a_table_forwards_are_protocol_codes(kind: type[StoreError]) -> None:
    protocol_codes = {value for name, value in vars(ErrorCode).items() if name.isupper()}
    assert kind.code in protocol_codes


def test_headers_for_a_retry() -> None:
    assert errors.LimitError("spent", retry_after=41.5).headers == {"Retry-After": "42"}
    assert errors.BusyError("busy").headers == {"Retry-After": "1"}
    assert errors.SeatTakenError("taken").headers is None
    assert errors.NameTakenError("taken").status == 409 and errors.NameTakenError("x").code == "name_taken"
    assert isinstance(errors.NameTakenError("x"), errors.InvalidInputError)


@pytest.mark.parametrize("path", STORE_SOURCES, ids=lambda p: p.name)
def test_no_module_raises_the_bare_base(path: Path) -> None:
    """``raise StoreError(...)`` would answer the vague 409 ``conflict``: each refusal names its type."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            called = node.exc.func
            assert not (isinstance(called, ast.Name) and called.id == "StoreError"), (
                f"{path.name}:{node.lineno} raises a bare StoreError"
            )


def test_the_refusal_types_are_exported() -> None:
    from studpoker import store

    for kind in refusal_types():
        assert getattr(store, kind.__name__) is kind
        assert inspect.getdoc(kind)


async def test_the_table_answers_the_stores_own_code(tmp_path: Path) -> None:
    """A seat taken in the database behind the table's back (as another process would take it)
    is ``seat_taken``; a player already seated there in the database is ``already_seated``, not
    ``seat_taken`` as the server once guessed. Nothing is moved by either refusal."""
    from tests.server.conftest import make_settings, running_server

    async with running_server(make_settings(tmp_path)) as h:
        actor = await h.add_table()
        alice = await h.player("alice")
        await h.player("bob")
        alice_id = (await h.store.account_by_name("alice")).id
        bob_id = (await h.store.account_by_name("bob")).id

        await h.store.buy_in(bob_id, actor.table_id, 1, 4000)
        answer = await alice.request(type="sit", table_id=actor.table_id, seat=1, buy_in=4000)
        assert (answer["type"], answer["code"]) == ("error", "seat_taken"), answer

        await h.store.buy_in(alice_id, actor.table_id, 2, 4000)
        bankroll = (await h.store.account(alice_id)).bankroll
        answer = await alice.request(type="sit", table_id=actor.table_id, seat=3, buy_in=4000)
        assert (answer["type"], answer["code"]) == ("error", "already_seated"), answer
        assert "already sit in seat 2" in answer["message"]
        assert (await h.store.account(alice_id)).bankroll == bankroll
        assert sorted(await h.store.seats(actor.table_id)) == [1, 2]
        await h.audit()
