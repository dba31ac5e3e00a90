"""Random sequences of buy-ins, top-ups, hands (finished, voided, crashed) and cash-outs keep the
books balanced after every step, and agree with a simple model of who holds what."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studpoker.cards import Deck
from studpoker.store import InsufficientFundsError, InvalidInputError, Store, StoreError, TableConfig

from .conftest import FakeClock, deck_reveal, open_store, put_in_pot, run_in_thread, write_one

PLAYERS = 4
SEATS = 4
_example = itertools.count()

player = st.integers(0, PLAYERS - 1)
seat = st.integers(1, SEATS)
amount = st.integers(1, 6_000)
ops = st.one_of(
    st.tuples(st.just("buy"), player, seat, amount),
    st.tuples(st.just("add"), player, amount),
    st.tuples(st.just("cash"), player),
    st.tuples(st.just("topup"), player),
    st.tuples(
        st.just("hand"),
        st.sampled_from(["finish", "pot_finish", "void", "crash"]),
        st.lists(st.integers(0, 3_000), min_size=SEATS, max_size=SEATS),
        st.lists(st.integers(0, 100), min_size=SEATS, max_size=SEATS),
    ),
)


@dataclass
class Model:
    bankroll: list[int] = field(default_factory=lambda: [10_000] * PLAYERS)
    seat_of: dict[int, int] = field(default_factory=dict)  # player -> seat
    stack: dict[int, int] = field(default_factory=dict)  # seat -> chips
    granted: int = 10_000 * PLAYERS


def split(total: int, weights: list[int], eligible: list[int]) -> dict[int, int]:
    """Share ``total`` among ``eligible`` seats by ``weights`` (integers, remainder to the first)."""
    w = [max(1, weights[s - 1]) for s in eligible]
    shares = {s: total * wi // sum(w) for s, wi in zip(eligible, w, strict=True)}
    shares[eligible[0]] += total - sum(shares.values())
    return {s: a for s, a in shares.items() if a}


async def run_sequence(url: str, steps: list[tuple[object, ...]]) -> None:
    n = next(_example)
    clock = FakeClock()
    store = await open_store(url, clock, starting_grant=10_000)
    try:
        ids = [(await store.register(f"p{n}x{i}", "secret-pass")).id for i in range(PLAYERS)]
        table = await store.create_table(
            TableConfig.derive(
                f"table {n}", "7S", 100, 200, max_seats=SEATS, min_buy_in=1_000, max_buy_in=8_000
            )
        )
        base = await store.audit()
        model = Model()
        for number, step in enumerate(steps):
            await apply(store, table.id, ids, model, step, hand_id=f"e{n}h{number}", clock=clock)
            report = await store.audit()
            assert report.balanced, (step, report.render())
            assert report.grants - base.grants == model.granted - 10_000 * PLAYERS
            for i, account_id in enumerate(ids):
                assert (await store.account(account_id)).bankroll == model.bankroll[i], step
            assert {s: r.stack for s, r in (await store.seats(table.id)).items()} == model.stack, step
    finally:
        await store.close()


# Over the complexity limits: one branch per random store operation.
async def apply(  # noqa: PLR0915
    store: Store,
    table_id: int,
    ids: list[int],
    model: Model,
    step: tuple[object, ...],
    *,
    hand_id: str,
    clock: FakeClock,
) -> None:
    kind = step[0]
    if kind == "buy":
        _, p, s, a = step
        assert isinstance(p, int) and isinstance(s, int) and isinstance(a, int)
        ok = (
            p not in model.seat_of and s not in model.stack and 1_000 <= a <= 8_000 and a <= model.bankroll[p]
        )
        try:
            await store.buy_in(ids[p], table_id, s, a)
        except (InsufficientFundsError, InvalidInputError, StoreError):
            assert not ok
            return
        assert ok
        model.bankroll[p] -= a
        model.seat_of[p] = s
        model.stack[s] = a
    elif kind == "add":
        _, p, a = step
        assert isinstance(p, int) and isinstance(a, int)
        s = model.seat_of.get(p)
        ok = s is not None and model.stack[s] + a <= 8_000 and a <= model.bankroll[p]
        try:
            await store.add_chips(ids[p], table_id, s or 1, a)
        except StoreError:
            assert not ok
            return
        assert ok and s is not None
        model.bankroll[p] -= a
        model.stack[s] += a
    elif kind == "cash":
        _, p = step
        assert isinstance(p, int)
        s = model.seat_of.get(p)
        if s is None:
            try:
                await store.cash_out(ids[p], table_id, 1)
            except StoreError:
                return
            raise AssertionError("cash-out from a seat not held")
        assert await store.cash_out(ids[p], table_id, s) == model.stack[s]
        model.bankroll[p] += model.stack.pop(s)
        del model.seat_of[p]
    elif kind == "topup":
        _, p = step
        assert isinstance(p, int)
        clock.advance(days=1)
        total = model.bankroll[p] + sum(model.stack[s] for q, s in model.seat_of.items() if q == p)
        got = await store.daily_topup(ids[p])
        assert got == (10_000 - total if total < 1_000 else 0)
        model.bankroll[p] += got
        model.granted += got
    else:
        _, how, wanted, weights = step
        assert isinstance(how, str) and isinstance(wanted, list) and isinstance(weights, list)
        players = {s: ids[p] for p, s in model.seat_of.items()}
        if len(players) < 2:
            return
        put = {s: min(wanted[s - 1], model.stack[s]) for s in players}
        deck = Deck()
        await write_one(store, store.start_hand_op(hand_id, table_id, deck.commitment, seats=players))
        early = {s: c // 2 for s, c in put.items()}
        if how in ("pot_finish", "void", "crash"):
            await put_in_pot(store, hand_id, early)
            assert (await store.audit()).in_hands == sum(early.values())
        if how == "void":
            assert await write_one(store, store.void_hand_op(hand_id, "test")) == {
                s: c for s, c in early.items() if c
            }
        elif how == "crash":
            assert await store.void_unfinished_hands() == [hand_id]
        else:
            won = split(sum(put.values()), weights, sorted(players))
            stacks = await write_one(
                store,
                store.finish_hand_op(
                    hand_id, contributions=put, awards=won, phh="", text="", **deck_reveal(deck)
                ),
            )
            for s in players:
                model.stack[s] += won.get(s, 0) - put[s]
            assert stacks == {s: model.stack[s] for s in players}


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(ops, min_size=1, max_size=12))
def test_random_sequences_keep_the_books(db_url: str, steps: list[tuple[object, ...]]) -> None:
    run_in_thread(lambda: run_sequence(db_url, steps))
