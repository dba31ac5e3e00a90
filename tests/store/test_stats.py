"""Player statistics (studpoker.store.stats): each figure on a hand that counts and one that does
not, read off the engine's events; then hands played through a Store, with their money, their
windows, their filters and the cache."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from studpoker.cards import Deck, format_cards
from studpoker.engine import Action, ActionKind, Hand
from studpoker.games import Stakes, get_game
from studpoker.history.phh import dump_hand
from studpoker.store import Account, Store, TableConfig, TableRecord
from studpoker.store.stats import (
    HandFigures,
    PlayerStatsReader,
    StoredHand,
    downsample,
    hand_figures,
    summarize,
)

from .conftest import FakeClock, write_one

Script = list[tuple[int, str]]  # (seat, action kind); the amount is the legal option's
STACK = 3000  # each player buys in for this at each of three tables (his grant is 10,000)

# 7S, seats 1 2 3: up cards Ks, 2c (bob brings in), Qh; 4th street 3d and 4s.
BRING_IN_DECK = "As 7c 9h Ad 8d Th Ks 2c Qh 3d 4s 5h 6c"
# bob brings in, carol calls, alice completes, bob folds, carol calls; alice bets 5th, carol folds.
BRING_IN_SCRIPT: Script = [
    (2, "bring_in"), (3, "call"), (1, "complete"), (2, "fold"), (3, "call"),
    (1, "check"), (3, "check"), (1, "bet"), (3, "fold"),
]  # fmt: skip
# 7S to a showdown: alice (As Ad Kc ...) makes a straight, bob has king high; carol folds 3rd.
SHOWDOWN_DECK = "As 7c 9h Ad 8d Th Kc 2c 3s Qd 4h Jc 5d 3c Jd Tc Ks"
SHOWDOWN_SCRIPT: Script = [
    (2, "bring_in"), (3, "fold"), (1, "call"),
    (1, "check"), (2, "check"), (1, "check"), (2, "check"),
    (1, "check"), (2, "check"), (1, "check"), (2, "check"),
]  # fmt: skip
# Played with max_raises=0: carol completes and alice may only call or fold.
CAPPED_SCRIPT: Script = [
    (2, "bring_in"), (3, "complete"), (1, "call"), (2, "fold"),
    (1, "check"), (3, "bet"), (1, "fold"),
]  # fmt: skip
CAPPED = "max_raises=0"
# O8, button seat 3 (alice small blind, bob big blind): carol folds, alice calls, bob checks,
# then checked down; bob's T9 makes a straight on Ah Kh 2c Qs Jd, alice's aces trips: no low.
OMAHA_DECK = "As 7c 2h Ad 8c 3h Ks 9d 4s Kd Td 5s Ah Kh 2c Qs Jd"
OMAHA_SCRIPT: Script = [
    (3, "fold"), (1, "call"), (2, "check"),
    (1, "check"), (2, "check"), (1, "check"), (2, "check"), (1, "check"), (2, "check"),
]  # fmt: skip


def config(game: str, name: str = "", house: str = "") -> TableConfig:
    return TableConfig.derive(name or f"{game} 1/2 {house}".strip(), game, 100, 200, house=house)


def play(
    cfg: TableConfig,
    deck: str,
    script: Script,
    stacks: dict[int, int] | None = None,
    *,
    button: int = 3,
    to_the_end: bool = True,
) -> Hand:
    """A hand of ``cfg``'s game and stakes dealt from ``deck``, played by ``script``."""
    stakes = Stakes(
        ante=cfg.ante,
        bring_in=cfg.bring_in,
        small_bet=cfg.small_bet,
        big_bet=cfg.big_bet,
        small_blind=cfg.small_blind,
        big_blind=cfg.big_blind,
    )
    house = get_game(cfg.game).default_house.with_overrides(cfg.house.split()) if cfg.house else None
    hand = Hand(
        cfg.game,
        stakes,
        seats=sorted((stacks or {1: STACK, 2: STACK, 3: STACK}).items()),
        deck=Deck.stacked(deck, random.Random(7)),
        house=house,
        button=None if cfg.game != "O8" else button,
    )
    for seat, kind in script:
        assert hand.to_act == seat, f"{kind}: seat {hand.to_act} is to act, not {seat}"
        option = hand.legal_actions().find(ActionKind(kind))
        assert option is not None, f"seat {seat} may not {kind}: {hand.legal_actions()}"
        hand.apply(seat, Action(kind=option.kind, amount=option.amount))
    assert hand.is_over or not to_the_end
    return hand


def figures(cfg: TableConfig, deck: str, script: Script, **kw: object) -> dict[int, HandFigures]:
    hand = play(cfg, deck, script, **kw)  # type: ignore[arg-type]
    return {seat: hand_figures(hand, seat) for seat in hand.seat_numbers}


# ---------------------------------------------------------------------------------------------
# One hand


def test_bring_in_alone_is_no_entry_a_call_or_a_completion_is() -> None:
    f = figures(config("7S"), BRING_IN_DECK, BRING_IN_SCRIPT)
    alice, bob, carol = f[1], f[2], f[3]
    assert (alice.had_first_turn, alice.entered, alice.could_raise, alice.raised) == (True, True, True, True)
    # bob brought in and folded to the completion: a turn (he could have completed), no entry
    assert (bob.had_first_turn, bob.entered, bob.could_raise, bob.raised) == (True, False, True, False)
    # carol called the bring-in and then the completion: entered, never completed
    assert (carol.entered, carol.could_raise, carol.raised) == (True, True, False)


def test_a_fold_on_fifth_is_no_showdown_and_the_fold_on_third_never_saw_fourth() -> None:
    f = figures(config("7S"), BRING_IN_DECK, BRING_IN_SCRIPT)
    assert [f[s].saw_second_street for s in (1, 2, 3)] == [True, False, True]
    # carol folded on 5th, alice won uncontested: neither went to showdown
    assert [f[s].showdown for s in (1, 2, 3)] == [False, False, False]
    assert not any(f[s].won_at_showdown for s in (1, 2, 3))


def test_showdown_won_and_lost() -> None:
    hand = play(config("7S"), SHOWDOWN_DECK, SHOWDOWN_SCRIPT)
    assert hand.result.showdown and hand.result.won(1) > 0 and hand.result.won(2) == 0
    alice, bob, carol = (hand_figures(hand, s) for s in (1, 2, 3))
    assert (alice.saw_second_street, alice.showdown, alice.won_at_showdown) == (True, True, True)
    assert (bob.saw_second_street, bob.showdown, bob.won_at_showdown) == (True, True, False)
    assert (carol.saw_second_street, carol.showdown) == (False, False)
    # alice called the bring-in: entered, able to complete, did not
    assert (alice.entered, alice.could_raise, alice.raised) == (True, True, False)
    assert (carol.had_first_turn, carol.entered, carol.could_raise) == (True, False, True)


def test_no_completion_chance_when_the_raises_are_capped() -> None:
    f = figures(config("7S", house=CAPPED), BRING_IN_DECK, CAPPED_SCRIPT)
    alice, bob, carol = f[1], f[2], f[3]
    # alice's only turn on 3rd came after the completion, with no raise left: no chance
    assert (alice.had_first_turn, alice.entered, alice.could_raise, alice.raised) == (
        True,
        True,
        False,
        False,
    )
    assert (bob.could_raise, bob.raised) == (True, False)  # he could complete instead of bringing in
    assert (carol.could_raise, carol.raised, carol.entered) == (True, True, True)
    # the same first street with the raises open: alice could have raised
    open_ = figures(config("7S"), BRING_IN_DECK, CAPPED_SCRIPT)
    assert open_[1].could_raise


def test_all_in_on_the_ante_has_no_first_turn_and_still_goes_to_showdown() -> None:
    cfg = config("7S")
    script: Script = [
        (2, "bring_in"), (3, "call"),
        (3, "check"), (2, "check"), (3, "check"), (2, "check"),
        (3, "check"), (2, "check"), (3, "check"), (2, "check"),
    ]  # fmt: skip
    deck = "Qs 7c 9h Qd 8d Th Kh 2c Ah 3d 4s 5h 6c 7h 8h 9s Jd"
    f = figures(cfg, deck, script, stacks={1: cfg.ante, 2: STACK, 3: STACK})
    alice = f[1]
    assert (alice.had_first_turn, alice.entered, alice.could_raise) == (False, False, False)
    assert alice.saw_second_street and alice.showdown


def test_omaha_vpip_is_beyond_the_blinds_and_a_showdown_is_lost_or_won() -> None:
    hand = play(config("O8"), OMAHA_DECK, OMAHA_SCRIPT)
    alice, bob, carol = (hand_figures(hand, s) for s in (1, 2, 3))
    # the small blind called: entry; the big blind checked: his turn, no entry, no raise
    assert (alice.had_first_turn, alice.entered, alice.raised) == (True, True, False)
    assert (bob.had_first_turn, bob.entered, bob.could_raise, bob.raised) == (True, False, True, False)
    assert (carol.had_first_turn, carol.entered, carol.saw_second_street) == (True, False, False)
    assert alice.showdown and bob.showdown
    assert (alice.won_at_showdown, bob.won_at_showdown) == (False, True)


def test_a_protected_all_in_is_a_turn_without_entry() -> None:
    hand = play(config("7S"), BRING_IN_DECK, [(2, "bring_in")], to_the_end=False)
    hand.timeout(3)  # carol's clock ran out facing the bring-in, her ante in: all-in, protected
    for seat, kind in [(1, "complete"), (2, "fold")]:
        option = hand.legal_actions().find(ActionKind(kind))
        assert hand.to_act == seat and option is not None
        hand.apply(seat, option.action)
    while not hand.is_over:
        assert hand.to_act is not None
        hand.apply(hand.to_act, Action(kind=ActionKind.CHECK))
    assert any(e.detail == "protected_all_in" for e in hand.events)
    carol, alice = hand_figures(hand, 3), hand_figures(hand, 1)
    assert (carol.had_first_turn, carol.entered, carol.raised) == (True, False, False)
    assert carol.could_raise  # she could have completed before the clock ran out
    assert carol.showdown and alice.showdown  # all-in, she is still in to the end
    # after her timeout, the first street played again lets alice complete as she did
    assert (alice.could_raise, alice.raised) == (True, True)


def test_each_figure_counts_over_its_own_chances() -> None:
    def stored(n: int, **flags: bool) -> StoredHand:
        values = dict.fromkeys(HandFigures.__slots__, False) | flags
        return StoredHand(f"h{n}", datetime(2026, 1, 1, tzinfo=UTC), "RZ", 200, 100, HandFigures(**values))

    hands = [
        stored(1),  # no turn on 3rd (all-in on the ante), folded before 4th
        stored(2, had_first_turn=True),  # brought in and folded
        stored(3, had_first_turn=True, entered=True, could_raise=True, raised=True, saw_second_street=True),
        stored(4, had_first_turn=True, entered=True, saw_second_street=True, showdown=True),
        stored(
            5,
            had_first_turn=True,
            could_raise=True,
            saw_second_street=True,
            showdown=True,
            won_at_showdown=True,
        ),
    ]
    razz = summarize(hands, points=10).games["RZ"]
    got = {
        name: (getattr(razz, name).count, getattr(razz, name).of)
        for name in ("entry", "completion", "saw_second_street", "showdown", "won_at_showdown")
    }
    assert got == {
        "entry": (2, 4),
        "completion": (1, 2),
        "saw_second_street": (3, 5),
        "showdown": (2, 3),
        "won_at_showdown": (1, 2),
    }
    assert (razz.hands, razz.net, razz.big_bets) == (5, 500, 2.5)


def test_downsample_keeps_the_ends_and_spreads_the_rest() -> None:
    assert downsample([1, 2, 3], 5) == [1, 2, 3]
    assert downsample(list(range(10)), 4) == [0, 3, 6, 9]
    assert downsample(list(range(1001)), 2) == [0, 1000]
    assert len(downsample(list(range(5000)), 500)) == 500


# ---------------------------------------------------------------------------------------------
# Through a store


async def seat_all(store: Store, table: TableRecord, players: list[Account]) -> None:
    for seat, player in enumerate(players, start=1):
        await store.buy_in(player.id, table.id, seat, STACK)


async def store_hand(
    store: Store, table: TableRecord, hand_id: str, hand: Hand, *, phh: str | None = None
) -> None:
    """Record ``hand`` (played from the seats' stacks) as the room does: start, then settle."""
    seats = await store.seats(table.id)
    assert {s: r.stack for s, r in seats.items()} == hand.initial_stacks
    deck = hand.deck
    owners = {s: r.account_id for s, r in seats.items()}
    await write_one(store, store.start_hand_op(hand_id, table.id, deck.commitment, seats=owners))
    put = hand.contributions
    final = hand.result.final_stacks
    names = {s: r.name for s, r in seats.items()}
    settle = store.finish_hand_op(
        hand_id,
        contributions=put,
        awards={s: final[s] - hand.initial_stacks[s] + put[s] for s in put},
        phh=dump_hand(hand, players=names, hand_id=hand_id) if phh is None else phh,
        text="",
        deck_order=format_cards(deck.order, " "),
        salt=deck.salt,
    )
    await write_one(store, settle)


def stacks_of(hand: Hand) -> dict[int, int]:
    return dict(hand.result.final_stacks)


@pytest.fixture
async def room(store: Store, clock: FakeClock, players: list[Account]) -> dict[str, Hand]:
    """alice, bob and carol play the bring-in hand and the showdown hand at a 7S table, then
    the capped hand at a 7S table with max_raises=0 and the Omaha hand, an hour apart each;
    one more hand at the first table is voided."""
    stud = await store.create_table(config("7S", "Stud"))
    capped = await store.create_table(config("7S", "Capped", CAPPED))
    omaha = await store.create_table(config("O8", "Omaha"))
    for table in (stud, capped, omaha):
        await seat_all(store, table, players)
    first = play(config("7S"), BRING_IN_DECK, BRING_IN_SCRIPT)
    await store_hand(store, stud, "h1", first)
    clock.advance(hours=1)
    second = play(config("7S"), SHOWDOWN_DECK, SHOWDOWN_SCRIPT, stacks=stacks_of(first))
    await store_hand(store, stud, "h2", second)
    clock.advance(hours=1)
    third = play(config("7S", house=CAPPED), BRING_IN_DECK, CAPPED_SCRIPT)
    await store_hand(store, capped, "h3", third)
    clock.advance(hours=1)
    fourth = play(config("O8"), OMAHA_DECK, OMAHA_SCRIPT)
    await store_hand(store, omaha, "h4", fourth)
    clock.advance(hours=1)
    owners = {1: players[0].id, 2: players[1].id}
    await write_one(store, store.start_hand_op("void", stud.id, Deck().commitment, seats=owners))
    await write_one(store, store.void_hand_op("void", "a test"))
    return {"h1": first, "h2": second, "h3": third, "h4": fourth}


def reader(store: Store, max_hands: int = 100) -> PlayerStatsReader:
    return PlayerStatsReader(store, max_hands=max_hands, cache_hands=1000, concurrent=1)


async def test_hands_and_money_from_the_ledger_voided_not_counted(
    store: Store, players: list[Account], room: dict[str, Hand]
) -> None:
    alice = players[0]
    stats = await reader(store).stats(alice.id)
    nets = [room[h].result.net[1] for h in ("h1", "h2", "h3", "h4")]
    assert stats.totals.hands == 4 and not stats.limited  # the voided hand is not one of them
    assert stats.totals.net == sum(nets)
    assert stats.totals.net_per_100 == pytest.approx(100 * sum(nets) / 4)
    assert stats.totals.big_bets == pytest.approx(sum(nets) / 200)
    assert stats.totals.bb_per_100 == pytest.approx(100 * sum(nets) / 200 / 4)
    assert [p.net for p in stats.results] == [sum(nets[: k + 1]) for k in range(4)]
    assert [p.hand for p in stats.results] == [1, 2, 3, 4]
    assert [p.hand_id for p in stats.results] == ["h1", "h2", "h3", "h4"]
    assert set(stats.games) == {"7S", "O8"}
    stud, omaha = stats.games["7S"], stats.games["O8"]
    assert (stud.hands, stud.net, omaha.hands, omaha.net) == (3, sum(nets[:3]), 1, nets[3])


async def test_the_figures_per_game_from_the_replayed_histories(
    store: Store, players: list[Account], room: dict[str, Hand]
) -> None:
    alice, bob = players[0], players[1]
    stud = (await reader(store).stats(alice.id)).games["7S"]

    def pair(figure: object) -> tuple[int, int]:
        return (figure.count, figure.of)  # type: ignore[attr-defined]

    # h1: completed; h2: called the bring-in; h3: called a capped completion (no chance to raise:
    # the table's house switch went into the replay)
    assert pair(stud.entry) == (3, 3)
    assert pair(stud.completion) == (1, 2)
    assert pair(stud.saw_second_street) == (3, 3)
    assert pair(stud.showdown) == (1, 3)  # only h2 went to showdown
    assert pair(stud.won_at_showdown) == (1, 1)
    assert stud.unreplayed == 0 and stud.completion.rate == 0.5
    bobs = await reader(store).stats(bob.id)
    assert pair(bobs.games["7S"].entry) == (0, 3)  # he only ever brought in
    assert pair(bobs.games["7S"].showdown) == (1, 1) and pair(bobs.games["7S"].won_at_showdown) == (0, 1)
    assert pair(bobs.games["O8"].entry) == (0, 1) and pair(bobs.games["O8"].won_at_showdown) == (1, 1)


async def test_game_since_and_the_window_of_the_last_hands(
    store: Store, clock: FakeClock, players: list[Account], room: dict[str, Hand]
) -> None:
    alice = players[0]
    only_omaha = await reader(store).stats(alice.id, game="O8")
    assert only_omaha.totals.hands == 1 and set(only_omaha.games) == {"O8"}
    later = await reader(store).stats(alice.id, since=clock.now - timedelta(hours=2, minutes=30))
    assert [p.hand_id for p in later.results] == ["h3", "h4"]
    last_two = await reader(store, max_hands=2).stats(alice.id)
    assert last_two.limited and [p.hand_id for p in last_two.results] == ["h3", "h4"]
    assert last_two.totals.net == room["h3"].result.net[1] + room["h4"].result.net[1]
    assert not (await reader(store, max_hands=4).stats(alice.id)).limited
    points = await reader(store).stats(alice.id, points=2)
    assert [p.hand for p in points.results] == [1, 4]


async def test_the_cache_replays_only_new_hands(
    store: Store, players: list[Account], room: dict[str, Hand]
) -> None:
    shared = reader(store)
    await shared.stats(players[0].id)
    assert shared.replayed == 4
    again = await shared.stats(players[0].id, game="7S")
    assert shared.replayed == 4 and again.games["7S"].entry.of == 3
    await shared.stats(players[1].id)  # bob's seats are other keys
    assert shared.replayed == 8


async def test_a_history_that_does_not_replay_counts_money_but_no_figure(
    store: Store, players: list[Account]
) -> None:
    table = await store.create_table(config("7S", "Broken"))
    await seat_all(store, table, players)
    hand = play(config("7S"), BRING_IN_DECK, BRING_IN_SCRIPT)
    await store_hand(store, table, "broken", hand, phh="variant = 'F7S'\n")
    # another hand's history: it replays, but not to the stacks this hand settled
    other = play(config("7S"), SHOWDOWN_DECK, SHOWDOWN_SCRIPT, stacks=stacks_of(hand))
    await store_hand(store, table, "other", other, phh=dump_hand(hand))
    stats = await reader(store).stats(players[0].id)
    stud = stats.games["7S"]
    assert (stats.totals.hands, stats.totals.net) == (2, hand.result.net[1] + other.result.net[1])
    assert stud.unreplayed == 2 and stud.entry.of == 0 and stud.saw_second_street.of == 0
