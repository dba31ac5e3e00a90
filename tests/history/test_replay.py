"""Replaying PHH files through the engine; writing engine hands as PHH; bad files."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest

from studpoker.cards import Deck
from studpoker.engine import Action, ActionKind, Hand
from studpoker.games import HouseRules, Stakes, get_game
from studpoker.history.phh import (
    PhhError,
    dump_hand,
    finishing_stacks,
    hand_to_phh,
    load_hands,
    loads,
    replay,
)

DATA = Path(__file__).parent.parent / "data" / "phh"
WSOP = sorted(DATA.glob("wsop*.phh"))


def _compat(code: str) -> HouseRules:
    return HouseRules.pokerkit_compat(code)


@pytest.mark.parametrize("path", WSOP, ids=[p.stem for p in WSOP])
def test_televised_hand_replays_to_the_same_stacks(path: Path) -> None:
    (phh,) = load_hands(path)
    hand = replay(phh, house=_compat(phh.game_code))
    assert hand.is_over
    assert finishing_stacks(hand, list(range(1, phh.player_count + 1))) == phh.finishing_stacks


def test_fixtures_cover_every_game() -> None:
    assert len(WSOP) == 50  # every stud-family and FO/8 hand of PokerKit 0.7.7's WSOP tests
    variants = {load_hands(p)[0].variant for p in WSOP}
    assert variants == {"F7S", "F7S/8", "FR", "FO/8"}


@pytest.mark.parametrize("path", WSOP[::4], ids=[p.stem for p in WSOP[::4]])
def test_round_trip_through_our_dump_and_pokerkit(path: Path) -> None:
    from pokerkit.notation import HandHistory

    (phh,) = load_hands(path)
    house = _compat(phh.game_code)
    text = dump_hand(replay(phh, house=house))
    (again,) = loads(text, source="dumped")
    assert again.finishing_stacks == phh.finishing_stacks
    replay(again, house=house)  # checks the finishing stacks again
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = list(HandHistory.loads(text))[-1]
    assert list(theirs.stacks) == phh.finishing_stacks


def _random_hand(code: str, seed: int) -> Hand:
    rng = random.Random(seed)
    game = get_game(code)
    n = rng.randint(2, 6)
    stakes = Stakes.from_bets(10, 20, game)
    stacks = [rng.choice([30, 150, 400]) for _ in range(n)]
    seats = sorted(rng.sample(range(1, 9), n))
    hand = Hand(
        game,
        stakes,
        seats=list(zip(seats, stacks, strict=True)),
        deck=Deck.shuffled(rng, salt="t"),
        button=None if game.is_stud else seats[rng.randrange(n)],
    )
    while not hand.is_over:
        option = rng.choice(hand.legal_actions().options)
        seat = hand.to_act
        assert seat is not None
        hand.apply(seat, Action(kind=option.kind, amount=option.amount))
    return hand


@pytest.mark.parametrize("code", ["7S", "7S8", "RZ", "O8", "LHE"])
def test_engine_hands_dump_and_replay_identically(code: str) -> None:
    for seed in range(25):
        hand = _random_hand(code, seed)
        phh = hand_to_phh(hand, players={s: f"P{s}" for s in hand.seat_numbers}, hand_id=seed)
        (again,) = loads(phh.dumps())
        replayed = replay(again)  # the same (default) house rules
        assert again.seats is not None
        assert finishing_stacks(replayed, again.seats) == again.finishing_stacks
        assert [e.kind for e in replayed.events] == [e.kind for e in hand.events]


def test_omaha_players_start_left_of_the_button() -> None:
    hand = _random_hand("O8", 3)
    phh = hand_to_phh(hand)
    assert phh.seats is not None and phh.seats[-1] == hand.button
    assert phh.blinds_or_straddles is not None and phh.blinds_or_straddles[:2] == [
        hand.stakes.small_blind,
        hand.stakes.big_blind,
    ]


def test_metadata_fields_are_written() -> None:
    import datetime

    hand = _random_hand("7S", 1)
    when = datetime.datetime(2026, 11, 29, 12, 30, 5, tzinfo=datetime.UTC)
    text = dump_hand(hand, hand_id="H-1", table="Rio 3", time=when, event="test", currency="USD")
    (phh,) = loads(text)
    assert phh.extra["hand"] == "H-1" and phh.extra["table"] == "Rio 3"
    assert phh.extra["time"] == datetime.time(12, 30, 5)
    assert (phh.extra["day"], phh.extra["month"], phh.extra["year"]) == (29, 11, 2026)
    assert phh.ante_trimming_status is True


# ----------------------------------------------------------------------------------------------
# Bad files: each names the file, the action number and the reason.

GOOD = """
variant = "F7S"
antes = [1, 1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [100, 100, 100]
actions = [
    "d dh p1 AsKd2c",
    "d dh p2 3c4c5h",
    "d dh p3 6d7d8d",
    "p1 pb",
    "p2 cbr 5",
    "p3 f",
    "p1 cc",
    "d dh p1 Ah",
    "d dh p2 Qs",
    "p1 cc",
    "p2 cc",
    "d dh p1 Kh",
    "d dh p2 Qd",
    "p2 cbr 10",
    "p1 f",
]
finishing_stacks = [94, 107, 99]
"""


def test_the_good_file_replays() -> None:
    (phh,) = loads(GOOD, source="good.phh")
    hand = replay(phh)
    assert finishing_stacks(hand, [1, 2, 3]) == [94, 107, 99]


@pytest.mark.parametrize(
    ("old", "new", "action", "reason"),
    [
        ('"p2 cbr 5"', '"p3 cbr 5"', 5, "out of turn: p2 (seat 2) is to act"),
        (
            '"p2 cbr 5"',
            '"p2 cbr 7"',
            5,
            "'p2 cbr 7' is not legal now; p2 (seat 2) may: fold, call 2, complete 5",
        ),
        ('"p1 pb"', '"p1 cc"', 4, "not legal now"),
        (
            '"d dh p1 Ah"',
            '"d dh p1 AhAc"',
            8,
            "does not match the deal: p1 (seat 1) has been dealt As Kd 2c Ah",
        ),
        ('"d dh p2 Qs"', '"d dh p3 Qs"', 9, "does not match the deal"),
        ('"d dh p2 Qd"', '"d dh p2 Kd"', 13, "card Kd is dealt twice (first in action 1)"),
        ('"d dh p2 Qd"', '"d dh p2 Qx"', 13, "bad card"),
        ('"d dh p2 Qd"', '"d dh p2 ??"', 13, "p2's 5th street up card is unknown (??)"),
        ('"p1 f",', '"p1 f", "p2 cc",', 16, "the hand is already over"),
        ('"p1 f",', '"p1 f", "p9 cc",', 16, "there are only 3 players"),
    ],
)
def test_bad_actions(old: str, new: str, action: int, reason: str) -> None:
    assert old in GOOD
    (phh,) = loads(GOOD.replace(old, new), source="bad.phh")
    with pytest.raises(PhhError) as info:
        replay(phh)
    assert (info.value.file, info.value.action) == ("bad.phh", action)
    assert reason in info.value.reason
    assert str(info.value).startswith(f"bad.phh: action {action}: ")


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("finishing_stacks = [94, 107, 99]", "finishing_stacks = [94, 106, 100]", "differ from the replay's"),
        ('    "p1 f",\n', "", "the actions end before the hand is over (p1 (seat 1) is to act)"),
        ('variant = "F7S"', 'variant = "NT"', "unknown variant 'NT'"),
        (
            "bring_in = 2",
            "bring_in = 5",
            "the hand cannot start: the bring-in 5 must be below the small bet 5",
        ),
        (
            "starting_stacks = [100, 100, 100]",
            "starting_stacks = [100, 100, 100]\nseats = [3, 1, 2]",
            "increasing",
        ),
    ],
)
def test_bad_files(old: str, new: str, reason: str) -> None:
    assert old in GOOD
    with pytest.raises(PhhError) as info:
        (phh,) = loads(GOOD.replace(old, new), source="bad.phh")
        replay(phh)
    assert info.value.file == "bad.phh"
    assert reason in info.value.reason


def test_truncated_file_with_missing_deals() -> None:
    text = GOOD.replace('    "d dh p1 Kh",\n    "d dh p2 Qd",\n', "")
    (phh,) = loads(text, source="cut.phh")
    with pytest.raises(PhhError, match=r"cut.phh: the file deals p1 As Kd 2c Ah but the hand deals"):
        replay(phh)


def test_seat_numbers_are_kept() -> None:
    text = GOOD.replace("finishing_stacks", "seats = [2, 5, 7]\nfinishing_stacks")
    (phh,) = loads(text)
    hand = replay(phh)
    assert hand.seat_numbers == (2, 5, 7)
    assert hand_to_phh(hand).seats == [2, 5, 7]


def test_ante_trimming_off_with_a_short_ante_is_refused() -> None:
    text = GOOD.replace("starting_stacks = [100, 100, 100]", "starting_stacks = [1, 100, 100]")
    text = text.replace("antes = [1, 1, 1]", "ante_trimming_status = false\nantes = [2, 2, 2]")
    (phh,) = loads(text)
    with pytest.raises(PhhError, match="ante_trimming_status = false"):
        replay(phh)


def test_pokerkit_style_all_in_bring_in_completion_is_the_bring_in() -> None:
    # PokerKit writes an all-in "completion" by a player who has no more than the bring-in.
    text = """
variant = "F7S"
antes = [1, 1]
bring_in = 5
small_bet = 10
big_bet = 20
starting_stacks = [4, 100]
actions = ["d dh p1 AsKd2c", "d dh p2 3c4c5h", "p1 cbr 3", "p2 cc",
           "d dh p1 Ah", "d dh p2 Qs", "d dh p1 Kh", "d dh p2 Qd", "d dh p1 Ac", "d dh p2 Qc",
           "d dh p1 Ad", "d dh p2 Jd"]
"""
    (phh,) = loads(text)
    hand = replay(phh)
    assert finishing_stacks(hand, [1, 2]) == [8, 96]


def test_house_switches_change_the_replay() -> None:
    # Heads-up, the rule book lets the raising go on (heads_up_uncapped); PokerKit caps it.
    actions = ["d dh p1 AsKd2c", "d dh p2 3c4c5h", "p1 pb", "p2 cbr 5"]
    actions += ["p1 cbr 10", "p2 cbr 15", "p1 cbr 20", "p2 cbr 25", "p1 f"]
    text = GOOD.replace("finishing_stacks = [94, 107, 99]", "")
    text = text.replace("starting_stacks = [100, 100, 100]", "starting_stacks = [100, 100]")
    text = text.replace("antes = [1, 1, 1]", "antes = [1, 1]")
    start, end = text.index("actions = ["), text.index("]\n", text.index("actions = [")) + 2
    text = text[:start] + "actions = " + repr(actions).replace("'", '"') + "\n" + text[end:]
    (phh,) = loads(text, source="hu.phh")
    hand = replay(phh)
    assert finishing_stacks(hand, [1, 2]) == [79, 121]
    with pytest.raises(PhhError, match=r"hu.phh: action 8: 'p2 cbr 25' is not legal now"):
        replay(phh, house=_compat("7S"))


SWITCHES = {
    "burn_cards": ["on", "off"],
    "bring_in_tie": ["suit", "position"],
    "fourth_street_double_bet": ["on", "off"],
    "heads_up_uncapped": ["on", "off"],
    "max_raises": ["2", "3", "4"],
    "showdown_first": ["seat", "board"],
    "odd_chip": ["high_card_by_suit", "seat_order"],
}


def _events_without_burnt_cards(hand: Hand) -> list[object]:
    return [
        (e.kind, e.seat, e.cards if e.kind.value != "burn" else None, e.amount, e.action) for e in hand.events
    ]


@pytest.mark.parametrize("code", ["7S", "7S8", "RZ", "O8", "LHE"])
def test_any_house_rules_round_trip(code: str) -> None:
    """Hands played under random house switches (burnt cards included: the file does not have
    them, the replay burns filler cards) replay to the same events under the same switches."""
    rng = random.Random(code)
    game = get_game(code)
    community = 0
    for seed in range(12):
        house = game.default_house.with_overrides([f"{k}={rng.choice(v)}" for k, v in SWITCHES.items()])
        n = game.max_players if seed % 2 else rng.randint(2, game.max_players)  # full tables too
        seats = sorted(rng.sample(range(1, 11), n))
        hand = Hand(
            game,
            Stakes.from_bets(10, 20, game),
            seats=[(s, rng.choice([25, 90, 300, 1000])) for s in seats],
            deck=Deck.shuffled(rng, salt="h"),
            house=house,
            button=None if game.is_stud else rng.choice(seats),
        )
        while not hand.is_over:
            options = hand.legal_actions().options
            staying = [o for o in options if o.kind.value != "fold"]
            option = rng.choice(staying if staying and rng.random() < 0.85 else options)
            assert hand.to_act is not None
            hand.apply(hand.to_act, option.action)
        if game.is_stud and hand.board:
            community += 1
        (phh,) = loads(dump_hand(hand), source=f"{code}-{seed}")
        again = replay(phh, house=house)
        assert _events_without_burnt_cards(again) == _events_without_burnt_cards(hand), (seed, house)
    assert community or not game.is_stud  # some stud hands reach the community card


def test_timeouts_round_trip() -> None:
    """A timeout that checks or folds is written as that action; a protected all-in as our
    commentary, which replay turns back into the timeout."""
    game = get_game("7S")
    deck = Deck.stacked("As 2d 7h Ks 3d 8h Qs 2c 9h", random.Random(1))
    hand = Hand(
        game,
        Stakes(ante=1, bring_in=2, small_bet=10, big_bet=20),
        seats=[(1, 100), (2, 100), (3, 100)],
        deck=deck,
    )
    hand.apply(2, Action(kind=ActionKind.BRING_IN, amount=2))
    hand.apply(3, Action(kind=ActionKind.COMPLETE, amount=10))
    hand.timeout(1)  # nothing in the pot but the ante: protected all-in for what he put in
    while not hand.is_over:
        assert hand.to_act is not None
        if hand.to_act == 2:
            hand.timeout(2)
        else:
            hand.apply(hand.to_act, hand.legal_actions().options[-1].action)
    text = dump_hand(hand)
    assert "# p1 timed out: all-in under disconnect protection" in text
    (phh,) = loads(text)
    again = replay(phh)
    assert again.result.final_stacks == hand.result.final_stacks
    protected = [e.seat for e in hand.events if e.detail == "protected_all_in"]
    assert protected and [e.seat for e in again.events if e.detail == "protected_all_in"] == protected
    (bad,) = loads(text.replace("# p1 timed out", "# p2 timed out"), source="t.phh")
    with pytest.raises(PhhError, match=r"t.phh: action \d+: .*p1 \(seat 1\) is to act"):
        replay(bad)


# ----------------------------------------------------------------------------------------------
# Irregular forced bets: antes and blinds seat by seat (real tournament hands).


def test_antes_that_differ_are_posted_seat_by_seat() -> None:
    """p3 antes 2 (a dead blind, say): dead money in the pot; written back the same."""
    (phh,) = loads(
        GOOD.replace("antes = [1, 1, 1]", "antes = [1, 1, 2]").replace("[94, 107, 99]", "[94, 108, 98]")
    )
    hand = replay(phh)
    assert [(e.seat, e.amount) for e in hand.events if e.kind.value == "post_ante"] == [
        (1, 1),
        (2, 1),
        (3, 2),
    ]
    assert hand_to_phh(hand).antes == [1, 1, 2]


def test_heads_up_forced_bets_are_assigned_in_reverse() -> None:
    """PHH (and PokerKit) assign antes and blinds in reverse heads-up: ``antes = [1, 0]`` is p2's."""
    text = """
variant = "FR"
antes = [1, 0]
bring_in = 2
small_bet = 10
big_bet = 20
starting_stacks = [100, 100]
actions = ["d dh p1 2c3d4h", "d dh p2 5c6dKs", "p2 pb", "p1 f"]
"""
    (phh,) = loads(text)
    hand = replay(phh)
    assert [(e.seat, e.amount) for e in hand.events if e.kind.value == "post_ante"] == [(2, 1)]
    assert finishing_stacks(hand, [1, 2]) == [100, 100]
    assert hand_to_phh(hand).antes == [1, 0]


SINGLE_BLIND = """
variant = "FO/8"
antes = [0, 0, 0]
blinds_or_straddles = [10, 0, 0]
small_bet = 10
big_bet = 20
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AcKd5s3d", "d dh p2 AsQsTh9c", "d dh p3 AhJh7s6d", "p2 cbr 20", "p3 f", "p1 f"]
finishing_stacks = [90, 110, 100]
"""


def test_a_single_blind_is_posted_as_the_big_blind() -> None:
    """One blind, of the small bet, left of the button (WSOP 2023 #43 hand 76 has one): the
    next player acts first and raises it."""
    (phh,) = loads(SINGLE_BLIND, source="single.phh")
    hand = replay(phh)
    blinds = [(e.seat, e.amount, e.detail) for e in hand.events if e.kind.value == "post_blind"]
    assert blinds == [(1, 10, "big")]
    assert hand_to_phh(hand).blinds_or_straddles == [10, 0, 0]


@pytest.mark.parametrize(
    ("blinds", "reason"),
    [
        ("[5, 10, 20]", "a blind above the small bet 10 is a straddle"),
        ("[5, 10]", "'blinds_or_straddles' has 2 entries for 3 players"),
    ],
)
def test_straddles_and_short_blind_lists_are_refused(blinds: str, reason: str) -> None:
    with pytest.raises(PhhError, match=reason):
        (phh,) = loads(SINGLE_BLIND.replace("[10, 0, 0]", blinds), source="straddle.phh")
        replay(phh)


def test_a_hand_without_forced_bets_replays() -> None:
    """No blinds at all (PokerKit refuses such a hand): the player left of the button bets first."""
    text = SINGLE_BLIND.replace("[10, 0, 0]", "[0, 0, 0]").replace(
        '"p2 cbr 20", "p3 f", "p1 f"', '"p1 cbr 10", "p2 f", "p3 f"'
    )
    (phh,) = loads(text.replace("[90, 110, 100]", "[100, 100, 100]"), source="none.phh")
    hand = replay(phh)
    assert hand.result.returned == {1: 10}
