"""The room writes its event frames with orjson (``protocol/server.py`` ``fast_encode``, through
``table/encoding.py``) rather than building and dumping a pydantic model per copy: the text must
be byte for byte what the model's ``model_dump_json`` gives for the same message, whatever the
event holds, and a value orjson would write otherwise (or not at all) is refused, not mangled.
The ``cards_opened`` frames are put together from each card's opening text, made once a deal."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studpoker.engine import Event, Hand
from studpoker.fairness import Opening, seed_commitment, verify_opening
from studpoker.server import deals
from studpoker.server.deals import DealInPlay, PendingDeal
from studpoker.server.protocol import CardsOpenedMsg, ClockInfo, EventMsg
from studpoker.server.protocol.server import fast_encode
from studpoker.server.table import Watch
from studpoker.server.table.encoding import cards_opened_frame, dumps, encoded_event
from tests.server.table_fakes import make_table, passive

# JSON values as an engine event, a table event or a frame's changes may hold them: any text
# (control characters, markup, emoji, the line separators), 64-bit integers, any finite float
# (exponents, negative zero, the smallest subnormal), nested lists and objects.
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
EVENTS = st.dictionaries(TEXT, VALUES, max_size=6).map(lambda d: {"version": 1, "kind": "action", **d})
TIMES = st.floats(min_value=0, max_value=4e9, allow_nan=False)
CLOCKS = st.none() | st.builds(
    lambda seat, think, countdown, extended, bank: {
        "seat": seat,
        "think_ends": think,
        "countdown_ends": countdown,
        "extended": extended,
        "bank_ends": bank,
    },
    st.integers(1, 8),
    TIMES,
    TIMES,
    st.booleans(),
    st.none() | TIMES,
)


@settings(max_examples=300, deadline=None)
@given(
    table_id=st.integers(1, 10**6),
    version=st.integers(0, 10**9),
    hand_id=st.none() | st.text("0123456789abcdef", min_size=32, max_size=32),
    event=EVENTS,
    clock=CLOCKS,
    changes=st.none() | st.dictionaries(TEXT, VALUES, max_size=4),
)
def test_an_event_frame_is_the_text_its_model_dumps(  # noqa: PLR0917 (hypothesis's arguments)
    table_id: int,
    version: int,
    hand_id: str | None,
    event: dict[str, Any],
    clock: dict[str, Any] | None,
    changes: dict[str, Any] | None,
) -> None:
    text, message = encoded_event(table_id, version, hand_id, event, clock, changes=changes)
    model = EventMsg(
        table_id=table_id,
        version=version,
        hand_id=hand_id,
        event=event,
        clock=None if clock is None else ClockInfo(**clock),
        changes=changes,
    )
    # (A frame leaves out a clock and changes it has not: the wire format of protocol 1.2/1.5.)
    absent = {name for name in ("clock", "changes") if getattr(model, name) is None}
    assert text == model.model_dump_json(exclude=absent) == message.model_dump_json(exclude=absent)


@settings(max_examples=300, deadline=None)
@given(value=VALUES)
def test_fast_encode_writes_what_pydantic_writes(value: Any) -> None:
    wrapped = EventMsg(table_id=1, version=1, hand_id=None, event={"value": value})
    assert fast_encode(wrapped.model_dump(mode="python")) == wrapped.model_dump_json()


def test_floats_with_exponents_are_written_as_pydantic_writes_them() -> None:
    # The standard library writes 1e-07 where pydantic (and a browser's JSON.stringify) write
    # 1e-7: the frames used to differ from their models there.
    data = {"big": 1e16, "small": 1e-7, "time": 1796147680.9409928, "bank": 30.0}
    assert dumps(data) == '{"big":1e+16,"small":1e-7,"time":1796147680.9409928,"bank":30.0}'


def test_what_orjson_cannot_write_as_pydantic_does_is_refused() -> None:
    for odd in ("\ud800", 2**64, b"bytes", {1, 2}, {1: "integer key"}):
        assert fast_encode({"odd": odd}) is None, odd
    # The event frame still goes out (the standard library's text; the socket escapes a lone
    # surrogate), never an exception in the table's fan-out.
    text, _ = encoded_event(1, 1, None, {"kind": "note", "n": 2**70, "s": "\ud800"}, None)
    assert json.loads(text)["event"]["n"] == 2**70


async def test_only_a_batch_with_a_secret_asks_the_engine_for_each_seat_s_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A batch of bets is the same for every watcher: one copy, and no seat's list built for it
    # (8 engine calls an action, once); a deal with down cards still gives each seat its own.
    table = make_table()
    players = await table.seat(3)
    for player in players:
        await table.actor.call(Watch(conn=player))
    table.clock.advance(1.0)
    await table.flush()
    asked: list[int | None] = []
    events_for = Hand.events_for

    def counted(hand: Hand, seat: int | None, after_version: int = 0) -> tuple[Event, ...]:
        asked.append(seat)
        return events_for(hand, seat, after_version)

    monkeypatch.setattr(Hand, "events_for", counted)
    before = {p.account_id: len(p.messages) for p in players}
    await table.act(passive)  # the bring-in: no card dealt
    assert asked == [None]
    copies = [[m for m in p.messages[before[p.account_id] :] if isinstance(m, EventMsg)] for p in players]
    assert all(c and c[0].event["kind"] == "action" for c in copies)
    assert all(c[0].model_dump_json() == copies[0][0].model_dump_json() for c in copies)
    asked.clear()
    while table.actor.hand is not None and table.actor.hand.street == "third":
        await table.act(passive)
    # Fourth street deals up cards only; no seat is asked for its own copy of those either.
    assert set(asked) == {None}


def test_a_clock_model_given_is_the_frame_s_clock_not_validated_again() -> None:
    clock = ClockInfo(seat=2, think_ends=1796147680.25, countdown_ends=1796147700.5, bank_ends=None)
    text, message = encoded_event(3, 9, "ab" * 16, {"kind": "action"}, clock.model_dump(), clock_model=clock)
    assert message.clock is clock
    again, validated = encoded_event(3, 9, "ab" * 16, {"kind": "action"}, clock.model_dump())
    assert (text, message.model_dump_json()) == (again, validated.model_dump_json())


@settings(max_examples=60, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    positions=st.lists(st.integers(0, 51), min_size=1, max_size=12, unique=True),
    table_id=st.integers(1, 10**6),
    version=st.integers(0, 10**9),
)
def test_a_cards_opened_frame_is_the_text_its_model_dumps(
    seed: bytes, positions: list[int], table_id: int, version: int
) -> None:
    deal = DealInPlay(PendingDeal("cd" * 16, seed, seed_commitment(seed)), ())
    text = cards_opened_frame(table_id, deal.hand_id, version, [deal.opening_text(p) for p in positions])
    model = CardsOpenedMsg(
        table_id=table_id,
        hand_id=deal.hand_id,
        version=version,
        openings=[deal.opening(p) for p in positions],
    )
    assert text == model.model_dump_json()
    # And every opening in it checks against the deck root, as the browser checks it.
    openings = [Opening.from_json(o) for o in json.loads(text)["openings"]]
    assert all(verify_opening(deal.root, o) for o in openings)


async def test_each_card_s_opening_is_written_once_a_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same up card is opened to every viewer class (9 at a full table): its text is made once.
    written: list[Any] = []
    encode_one = fast_encode

    def counted(data: Any) -> str | None:
        written.append(data["position"])
        return encode_one(data)

    monkeypatch.setattr(deals, "fast_encode", counted)
    table = make_table()
    players = await table.seat(3)
    for player in players:
        await table.actor.call(Watch(conn=player))
    table.clock.advance(1.0)
    await table.flush()
    await table.play_out()
    frames = [m for p in players for m in p.of_type(CardsOpenedMsg)]
    sent = [o["position"] for m in frames for o in m.openings]
    assert len(sent) > len(set(sent)) and sorted(written) == sorted(set(sent))
