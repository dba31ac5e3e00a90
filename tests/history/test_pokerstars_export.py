"""PokerStars hand histories written from engine hands: every line in the trackers' grammar, the
money adding up, and each rule of the format (completion as a raise, uncalled bets on their
street, side pots first, the community card, who sees which cards, headers and dates)."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from studpoker.cards import ALL_CARDS, Deck, parse_cards
from studpoker.engine import Action, ActionKind, Hand
from studpoker.engine.events import EventKind
from studpoker.games import Stakes, get_game
from studpoker.history.pokerstars import Tournament, eastern_time, join_histories, pokerstars_history
from studpoker.history.pokerstars.format import (
    AmountError,
    Denomination,
    hand_number,
    level_number,
    roman,
)
from studpoker.money import format_money
from tests.history.pokerstars_grammar import check_hand, split_file
from tests.history.pokerstars_hands import names_of, random_hand, stacked_hand

GAMES = ["7S", "7S8", "RZ", "O8", "LHE"]


def _units(value: Decimal) -> int:
    return int(value * 100)


def _check_against_the_engine(hand: Hand, text: str) -> None:
    """The grammar reads the hand, and what it reads is what the engine did."""
    checked = check_hand(text)
    result = hand.result
    assert _units(checked.total_pot) == sum(p.amount for p in result.pots)
    names = names_of(hand)
    assert {n: _units(v) for n, v in checked.collected.items()} == {
        names[s]: result.won(s) for s in hand.seat_numbers if result.won(s)
    }
    lines = text.splitlines()
    awards = [e for e in hand.events if e.kind is EventKind.AWARD]
    collected = [line for line in lines if " collected " in line and not line.startswith("Seat ")]
    assert len(collected) == len(awards)  # one line per pot share (a hi/lo scoop: two)
    pots = [0 if line.endswith("from pot") or "main pot" in line else 1 for line in collected]
    assert pots == sorted(pots, reverse=True)  # side pots first
    timeouts = [e for e in hand.events if e.kind is EventKind.TIMEOUT]
    assert sum(" has timed out" in line for line in lines) == len(timeouts)
    assert not any("completes" in line for line in lines)


def _hands(code: str, count: int, start: int = 0) -> list[Hand]:
    return [random_hand(code, seed) for seed in range(start, start + count)]


@pytest.mark.parametrize("code", GAMES)
def test_random_hands_are_read_by_the_grammar(code: str) -> None:
    for seed, hand in enumerate(_hands(code, 300)):
        names = names_of(hand)
        viewer = hand.seat_numbers[seed % len(hand.seat_numbers)]
        for options in ({"reveal": True}, {"viewer": viewer}, {}):
            text = pokerstars_history(hand, players=names, hand_id=seed, table="Rio", **options)
            _check_against_the_engine(hand, text)
        assert check_hand(text).hero_lines == 0  # a spectator sees no down card


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
def test_thousands_of_random_hands_are_read_by_the_grammar(code: str) -> None:
    for seed, hand in enumerate(_hands(code, 5_000, start=1_000), start=1_000):
        viewer = hand.seat_numbers[seed % len(hand.seat_numbers)]
        for options in ({"reveal": True}, {"viewer": viewer}):
            text = pokerstars_history(hand, players=names_of(hand), hand_id=seed, **options)
            _check_against_the_engine(hand, text)


def test_a_file_of_hands_splits_as_trackers_split_it() -> None:
    hands = _hands("7S8", 20)
    text = join_histories(
        [pokerstars_history(h, players=names_of(h), hand_id=i) for i, h in enumerate(hands)]
    )
    chunks = split_file(text)
    assert len(chunks) == 20
    assert [check_hand(c).total_pot for c in chunks] == [
        Decimal(sum(p.amount for p in h.result.pots)) / 100 for h in hands
    ]


# ----------------------------------------------------------------------------------------------
# Hands dealt from a stacked deck


NAMES = {1: "Ann", 2: "Bob", 3: "Cyd"}


def test_the_completion_of_the_bring_in_is_a_raise() -> None:
    # Seat 1's 2c brings in; seat 2 completes to the small bet; seat 1 folds.
    hand = stacked_hand(
        ["As Ks", "Ad Kd", "2c Qh"],
        [10_000, 10_000],
        [(1, ActionKind.BRING_IN, 250), (2, ActionKind.COMPLETE, 500), (1, ActionKind.FOLD, None)],
    )
    lines = pokerstars_history(hand, players=NAMES, hand_id=1).splitlines()
    assert "Ann: brings in for 2.50" in lines
    assert "Bob: raises 2.50 to 5" in lines
    assert "Uncalled bet (2.50) returned to Bob" in lines
    assert lines.index("Uncalled bet (2.50) returned to Bob") == lines.index("Ann: folds") + 1
    assert "Bob collected 7 from pot" in lines
    check_hand("\n".join(lines))


def test_a_bring_in_player_who_completes_bets() -> None:
    hand = stacked_hand(
        ["As Ks", "Ad Kd", "2c Qh"],
        [10_000, 10_000],
        [(1, ActionKind.COMPLETE, 500), (2, ActionKind.FOLD, None)],
    )
    lines = pokerstars_history(hand, players=NAMES, hand_id=1).splitlines()
    assert "Ann: bets 5" in lines
    assert "Seat 2: Bob folded on the 3rd Street (didn't bet)" in lines
    check_hand("\n".join(lines))


def test_the_uncalled_bet_is_returned_on_the_street_where_it_was_made() -> None:
    # Bob calls all-in for less on 5th street; the hand runs out to the river; the uncalled part
    # of Ann's bet is written on 5th street, where trackers look for it.
    hand = stacked_hand(
        ["4s 5s", "4d 5d", "2c Kd", "3d 7h", "4h 9s", "Jc Jd", "Th Tc"],
        [100_000, 1_600],
        [
            (1, ActionKind.BRING_IN, 250),
            (2, ActionKind.CALL, None),
            (2, ActionKind.CHECK, None),  # 4th: Bob's king shows best
            (1, ActionKind.BET, 500),
            (2, ActionKind.CALL, None),
            (2, ActionKind.CHECK, None),
            (1, ActionKind.BET, 1000),
            (2, ActionKind.CALL, None),  # the 7.50 he has left
        ],
    )
    lines = pokerstars_history(hand, players=NAMES, hand_id=1).splitlines()
    uncalled = lines.index("Uncalled bet (2.50) returned to Ann")
    assert lines[uncalled - 1] == "Bob: calls 7.50 and is all-in"
    assert uncalled < lines.index("*** 6th STREET ***")
    check_hand("\n".join(lines))


def test_an_ante_nobody_can_match_is_returned_before_the_deal() -> None:
    # Bob is all-in from his ante: nobody can bet, the hand runs out, and the unmatched part of
    # Ann's ante goes back to her in the ante section, before 3rd street.
    hand = stacked_hand(["4s 5s", "4d 5d", "2c Kd"], [100_000, 50], [])
    lines = pokerstars_history(hand, players=NAMES, hand_id=1).splitlines()
    assert "Bob: posts the ante 0.50 and is all-in" in lines
    uncalled = lines.index("Uncalled bet (0.50) returned to Ann")
    assert uncalled == lines.index("*** 3rd STREET ***") - 1
    check_hand("\n".join(lines))


def test_the_stud_community_card_is_dealt_on_the_river_line() -> None:
    hand = random_hand("7S", 3, players=8, passive=True)
    assert hand.board, "eight players at 7th street share a community card"
    text = pokerstars_history(hand, players=names_of(hand), hand_id=3, reveal=True)
    lines = text.splitlines()
    river = next(line for line in lines if line.startswith("*** RIVER ***"))
    assert river == f"*** RIVER *** [{hand.board[0]}]"
    after = lines[lines.index(river) :]
    assert not any(line.startswith("Dealt to") for line in after)  # nobody gets a card of his own
    shows = [line for line in after if ": shows [" in line]
    assert shows and all(len(line.split("[")[1].split("]")[0].split()) == 6 for line in shows)
    _check_against_the_engine(hand, text)


@pytest.mark.parametrize("code", ["7S", "O8"])
def test_the_reader_decides_which_cards_are_printed(code: str) -> None:
    hand = random_hand(code, 11, players=4, passive=True)
    seats = hand.seat_numbers
    names = names_of(hand)
    viewer = seats[1]

    def cards(line: str) -> int:
        return len(line.split("[")[1].split())

    def dealt(text: str) -> list[str]:
        first = "*** 3rd STREET ***" if code == "7S" else "*** HOLE CARDS ***"
        lines = text.splitlines()
        block = lines[lines.index(first) + 1 :]
        return [line for line in block[: len(seats)] if line.startswith("Dealt to")]

    mine = dealt(pokerstars_history(hand, players=names, viewer=viewer))
    everyone = dealt(pokerstars_history(hand, players=names, reveal=True))
    nobody = dealt(pokerstars_history(hand, players=names))
    down, up = hand.cards_of(viewer)
    if code == "7S":
        assert f"Dealt to {names[viewer]} [{down[0]} {down[1]} {up[0]}]" in mine
        assert len(mine) == len(everyone) == len(nobody) == len(seats)  # up cards for all
        assert [cards(line) for line in mine].count(3) == 1  # one hero: FPDB's hero is him
        assert all(cards(line) == 3 for line in everyone)
        assert all(cards(line) == 1 for line in nobody)
    else:
        assert mine == [f"Dealt to {names[viewer]} [{' '.join(str(c) for c in down)}]"]
        assert len(everyone) == len(seats) and nobody == []


def test_a_timeout_is_written_before_what_it_does() -> None:
    game = get_game("7S")
    top = list(parse_cards("As Ks Qs Ad Kd Qd 2c 3h 4d 5h 6h 7h"))
    hand = Hand(
        game,
        Stakes(ante=100, bring_in=250, small_bet=500, big_bet=1000),
        seats=[(1, 10_000), (2, 10_000), (3, 10_000)],
        deck=Deck.stacked(top + [c for c in ALL_CARDS if c not in top]),
    )
    hand.apply(1, Action(kind=ActionKind.BRING_IN, amount=250))  # seat 1's 2c brings in
    hand.timeout(2, protection_allowed=False)  # no protected all-in left today: he folds
    hand.apply(3, Action(kind=ActionKind.COMPLETE, amount=500))
    hand.timeout(1)  # the bring-in is in: disconnect protection, all-in for what he put in
    lines = pokerstars_history(hand, players=NAMES, hand_id=9).splitlines()
    assert lines[lines.index("Bob has timed out") + 1] == "Bob: folds"
    assert "Ann has timed out: all-in under disconnect protection" in lines
    check_hand("\n".join(lines))


# ----------------------------------------------------------------------------------------------
# Headers, amounts, dates


def test_play_money_header() -> None:
    hand = random_hand("RZ", 2)
    lines = pokerstars_history(hand, players=names_of(hand), hand_id=77, table="Rio 3").splitlines()
    small, big = (format_money(a, trim=True) for a in (hand.stakes.small_bet, hand.stakes.big_bet))
    assert lines[0].startswith(f"PokerStars Hand #77:  Razz Limit ({small}/{big}) - ")
    assert lines[1] == "Table 'Rio 3' 8-max (Play Money)"


def test_real_money_header_and_amounts() -> None:
    hand = random_hand("O8", 4)
    text = pokerstars_history(
        hand, players=names_of(hand), hand_id=5, money=Denomination(symbol="€", iso="EUR"), seat_count=6
    )
    lines = text.splitlines()
    assert " Omaha Hi/Lo Limit (€" in lines[0] and lines[0].split(") - ")[0].endswith(" EUR")
    assert lines[1].startswith("Table 'studpoker' 6-max Seat #")
    assert "(Play Money)" not in text
    seat_lines = [line for line in lines if line.startswith("Seat ") and " in chips)" in line]
    assert seat_lines and all(" (€" in line for line in seat_lines)
    check_hand(text)


def test_tournament_header_in_chips() -> None:
    hand = random_hand("7S8", 6)
    text = pokerstars_history(
        hand, players=names_of(hand), hand_id=8, tournament=Tournament(123456, "$2.00+$0.20 USD", level=4)
    )
    first = text.splitlines()[0]
    small, big = hand.stakes.small_bet, hand.stakes.big_bet
    assert first.startswith(
        "PokerStars Hand #8: Tournament #123456, $2.00+$0.20 USD 7 Card Stud Hi/Lo Limit"
        f" - Level IV ({small}/{big}) - "
    )
    assert "(Play Money)" not in text
    check_hand(text)
    with pytest.raises(AmountError):
        pokerstars_history(hand, tournament=Tournament(1), money=Denomination(symbol="$", iso="USD"))


def test_a_room_tournament_s_play_money_buy_in_in_the_header() -> None:
    """The room's tournaments buy in with play money: written as PokerStars writes it, without a
    currency, whole amounts trimmed (FPDB's tournament buy-in pattern)."""
    assert Tournament.of_play_money(12, 500, 50, 2) == Tournament(12, "5+0.50", 2)
    assert Tournament.of_play_money(3, 1_000, 0, 1).buy_in == "10+0"
    hand = random_hand("RZ", 4)
    text = pokerstars_history(
        hand, players=names_of(hand), hand_id=9, tournament=Tournament.of_play_money(12, 500, 50, 2)
    )
    assert ": Tournament #12, 5+0.50 Razz Limit - Level II (" in text.splitlines()[0]
    check_hand(text)


def test_dates_are_written_in_eastern_time() -> None:
    winter = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    summer = datetime.datetime(2026, 7, 2, 13, 4, 5, tzinfo=datetime.UTC)
    assert eastern_time(winter) == "2026/01/01 22:04:05 ET"  # EST, UTC-5
    assert eastern_time(summer) == "2026/07/02 9:04:05 ET"  # EDT, UTC-4
    assert eastern_time(winter.replace(tzinfo=None)) == "2026/01/01 22:04:05 ET"  # naive is UTC
    assert eastern_time(None) == "2000/01/01 0:00:00 ET"  # FPDB's own default


def test_hand_numbers_are_digits() -> None:
    assert hand_number(42) == "42" and hand_number("007") == "007" and hand_number(None) == "0"
    uuid = "3f2c1a9be0d84c2f9a1b2c3d4e5f6a7b"
    assert hand_number(uuid).isdigit() and int(hand_number(uuid)) < 2**60
    assert hand_number(uuid) == hand_number(uuid) != hand_number(uuid[::-1])


def test_levels_in_roman_numerals() -> None:
    for level in range(1, 400):
        assert level_number(roman(level)) == level
    assert roman(14) == "XIV" and level_number("12") == 12
    with pytest.raises(ValueError):
        level_number("IIII")


def test_refused_hands() -> None:
    game = get_game("7S")
    unfinished = Hand(game, Stakes.from_bets(10, 20, game), seats=[(1, 500), (2, 500)])
    with pytest.raises(ValueError, match="finished"):
        pokerstars_history(unfinished)
    hand = random_hand("7S", 1)
    with pytest.raises(ValueError, match="viewer"):
        pokerstars_history(hand, viewer=99)
    with pytest.raises(ValueError, match="own name"):
        pokerstars_history(hand, players=dict.fromkeys(hand.seat_numbers, "Same"))
    with pytest.raises(ValueError, match="colon"):
        pokerstars_history(hand, players={hand.seat_numbers[0]: "a: b"})
    with pytest.raises(AmountError):
        Denomination(symbol="#")
