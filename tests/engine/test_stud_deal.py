"""Stud deal, antes, bring-in and first to act (docs/rules.md, "Stud: deal and action")."""

from __future__ import annotations

import random

from studpoker.cards import Deck, parse_cards
from studpoker.engine import ActionKind, EventKind
from studpoker.games import HouseRules, Stakes, get_game

from .helpers import check_down, kinds_of, options, play, stud, stud_deck

X = "2c 3d"  # filler down cards are chosen per test to stay distinct


def test_antes_then_two_down_one_up_clockwise_from_seat_1() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 8c", "As Ks 7c")
    hand = stud("7S", deck, {2: 100, 5: 100, 9: 100})
    events = hand.events
    antes = kinds_of(events, EventKind.POST_ANTE)
    assert [(e.seat, e.amount) for e in antes] == [(2, 1), (5, 1), (9, 1)]
    deals = kinds_of(events, EventKind.DEAL)
    assert [(e.seat, e.detail) for e in deals] == [
        (2, "down"), (5, "down"), (9, "down"),
        (2, "down"), (5, "down"), (9, "down"),
        (2, "up"), (5, "up"), (9, "up"),
    ]  # fmt: skip
    assert hand.cards_of(5) == (tuple(parse_cards("Ad Kd")), tuple(parse_cards("8c")))
    assert hand.to_act == 9  # 7c is the lowest door card


def test_short_ante_puts_player_all_in() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c")
    stakes = Stakes(ante=3, bring_in=5, small_bet=10, big_bet=20)
    hand = stud("7S", deck, [100, 2, 100], stakes=stakes)
    antes = kinds_of(hand.events, EventKind.POST_ANTE)
    assert [(e.seat, e.amount, e.all_in) for e in antes] == [(1, 3, False), (2, 2, True), (3, 3, False)]
    # Seat 2 (2c) would bring in but is all-in from the ante: seat 3 brings in.
    assert hand.to_act == 3
    play(hand, "3:bi 1:c")
    check_down(hand)
    main = hand.result.pots[0]
    assert main.amount == 3 * 2  # everyone's first 2 units of ante
    assert main.eligible == (1, 2, 3)
    assert hand.result.pots[1].amount == 2 * 1 + 2 * 5
    assert hand.result.pots[1].eligible == (1, 3)
    assert sum(hand.result.final_stacks.values()) == 202


def test_bring_in_lowest_door_card_clubs_lowest() -> None:
    for doors, expected in [
        (("2d", "2c", "2h"), 2),
        (("2s", "2h", "2d"), 3),
        (("3s", "2s", "2h"), 3),
        (("4c", "4d", "3s"), 3),
    ]:
        deck = stud_deck(
            *(
                f"{a} {b} {d}"
                for (a, b), d in zip([("Ah", "Kh"), ("Ad", "Kd"), ("As", "Ks")], doors, strict=True)
            )
        )
        hand = stud("7S", deck, [100, 100, 100])
        assert hand.to_act == expected, doors
        assert options(hand) == [("bring_in", 5), ("complete", 10)]
        event = kinds_of(hand.events, EventKind.BRING_IN_PLAYER)[0]
        assert event.seat == expected


def test_bring_in_ace_counts_high_in_stud() -> None:
    deck = stud_deck("Kh Qh Ac", "Kd Qd Kc")
    assert stud("7S", deck, [100, 100]).to_act == 2
    deck = stud_deck("Kh Qh Ac", "Kd Qd Kc")
    assert stud("7S8", deck, [100, 100]).to_act == 2


def test_bring_in_razz_highest_card_king_high_spades_highest() -> None:
    deck = stud_deck("2h 3h Kc", "2d 3d Ks", "2s 3s Qd")
    assert stud("RZ", deck, [100, 100, 100]).to_act == 2
    deck = stud_deck("2h 3h Kc", "2d 3d Kh", "2s 3s Qd")
    assert stud("RZ", deck, [100, 100, 100]).to_act == 2


def test_bring_in_razz_ace_is_lowest() -> None:
    deck = stud_deck("4h 3h As", "4d 3d 2c")
    assert stud("RZ", deck, [100, 100]).to_act == 2


def test_bring_in_tie_position() -> None:
    house = HouseRules(bring_in_tie="position")
    deck = stud_deck("Ah Kh 2s", "Ad Kd 5c", "As Ks 2c")
    assert stud("7S", deck, [100, 100, 100], house=house).to_act == 1
    deck = stud_deck("Ah Kh 2s", "Ad Kd 5c", "As Ks 2c")
    assert stud("7S", deck, [100, 100, 100]).to_act == 3


def test_bring_in_all_in_from_ante_passes_to_next_player() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c", "Qs Qh 8d")
    hand = stud("7S", deck, [100, 1, 100, 100])
    # Seat 2 has the lowest card but is all-in from the ante: seat 3 brings in, whatever his card.
    assert hand.to_act == 3
    assert kinds_of(hand.events, EventKind.BRING_IN_PLAYER)[0].seat == 3


def test_partial_bring_in_stands_others_enter_for_full_bring_in() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c")
    hand = stud("7S", deck, [100, 4, 100])
    assert hand.to_act == 2
    assert options(hand) == [("bring_in", 3)]  # all he has after the ante
    play(hand, "2:bi")
    assert hand.legal_actions().options[-1].all_in is False
    assert options(hand) == [("fold", 0), ("call", 5), ("complete", 10)]
    play(hand, "3:c 1:c")
    assert hand.street == "fourth"
    check_down(hand)
    assert hand.result.pots[0].amount == 3 + 3 * 3
    assert hand.result.pots[1].amount == 2 * 2
    assert hand.result.pots[1].eligible == (1, 3)


def test_bring_in_player_may_complete() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 2c")
    hand = stud("7S", deck, [100, 100])
    play(hand, "2:co")
    assert options(hand) == [("fold", 0), ("call", 10), ("raise", 20)]


def test_after_bring_in_fold_call_or_complete_then_raises_in_small_bets() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c")
    hand = stud("7S", deck, [100, 100, 100])
    play(hand, "2:bi")
    assert options(hand) == [("fold", 0), ("call", 5), ("complete", 10)]
    play(hand, "3:co")
    assert options(hand) == [("fold", 0), ("call", 10), ("raise", 20)]


def test_no_completion_round_ends_at_bring_in_player() -> None:
    deck = stud_deck("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c")
    hand = stud("7S", deck, [100, 100, 100])
    events = play(hand, "2:bi 3:c 1:c")
    assert hand.street == "fourth"
    assert kinds_of(events, EventKind.STREET)[0].street == "fourth"


def test_first_to_act_best_showing_high() -> None:
    deck = stud_deck("Ah Kh 9c 2d", "Ad Kd 2c Kc", "As Ks 7c 7d")
    hand = stud("7S", deck, [100, 100, 100])
    play(hand, "2:bi 3:c 1:c")
    assert hand.to_act == 3  # open pair of sevens beats K-2 and 9-2
    assert options(hand)[0] == ("check", 0)


def test_first_to_act_exact_tie_lowest_seat() -> None:
    deck = stud_deck("2h 3h Kc 7d", "2d 3d 4c 9s", "2s 3s Ks 7h")
    hand = stud("7S", deck, [100, 100, 100])
    play(hand, "2:bi 3:c 1:c")
    assert hand.to_act == 1  # K-7 against K-7: the lowest seat


def test_first_to_act_razz_best_low_board_pairs_count_against() -> None:
    deck = stud_deck("9h Th 2c 2d", "9d Td Kc Qs", "9s Ts 7d 4h")
    hand = stud("RZ", deck, [100, 100, 100])
    assert hand.to_act == 2  # the king brings in
    play(hand, "2:bi 3:c 1:c")
    assert hand.to_act == 3  # 7-4 is the best low board; the pair of deuces the worst
    deck = stud_deck("9h Th 2c 2d", "9d Td Kc Qs", "9s Ts Kh Jh")
    hand = stud("RZ", deck, [100, 100, 100])
    play(hand, "3:bi 1:c 2:c")  # Kh outranks Kc: spades, hearts, diamonds, clubs
    assert hand.to_act == 3  # K-J beats K-Q; both beat a pair


def test_seventh_street_same_first_player_as_sixth() -> None:
    deck = stud_deck("2h 3h 9c 4d 6h 9h 8c", "2d 3d Tc 5s 7h Ks 8d", "2s 3s Jc 4s 6d Kd 8h")
    hand = stud("7S", deck, [100, 100, 100])
    play(hand, "1:bi 2:c 3:c")
    first = []
    while not hand.is_over:
        first.append((hand.street, hand.to_act))
        play(hand, f"{hand.to_act}:x")
        play(hand, f"{hand.to_act}:x")
        play(hand, f"{hand.to_act}:x")
    assert first == [("fourth", 3), ("fifth", 3), ("sixth", 1), ("seventh", 1)]


def test_first_to_act_all_in_passes_to_next_active_player() -> None:
    deck = stud_deck("Ah Kh 9c 2d", "Ad Kd 2c Kc", "As Ks 7c 7d")
    hand = stud("7S", deck, [100, 100, 6])
    play(hand, "2:bi 3:c 1:c")
    assert hand.street == "fourth"
    assert hand.to_act == 1  # seat 3 shows the best board but is all-in


def test_community_card_with_eight_players() -> None:
    rng = random.Random(3)
    hand = stud("7S", Deck.shuffled(rng), [1000] * 8)
    check_down(hand)
    events = hand.events
    community = kinds_of(events, EventKind.DEAL_BOARD)
    assert len(community) == 1 and community[0].street == "seventh"
    assert hand.board == community[0].cards
    seventh = [e for e in kinds_of(events, EventKind.DEAL) if e.street == "seventh"]
    assert seventh == []
    assert hand.deck.dealt == 49
    for seat in range(1, 9):
        down, up = hand.cards_of(seat)
        assert len(down) == 2 and len(up) == 4
    assert hand.result.showdown
    assert sum(hand.result.final_stacks.values()) == 8000


def test_no_community_card_when_the_deck_covers_seventh_street() -> None:
    hand = stud("7S", Deck.shuffled(random.Random(4)), [1000] * 7)
    check_down(hand)
    assert hand.board == ()
    assert hand.deck.dealt == 49


def test_burn_cards_switch() -> None:
    house = get_game("7S").default_house.with_overrides(["burn_cards=on"])
    hand = stud("7S", Deck.shuffled(random.Random(5)), [1000] * 8, house=house)
    check_down(hand)
    burns = kinds_of(hand.events, EventKind.BURN)
    assert [e.street for e in burns] == ["fourth", "fifth", "sixth"]  # no card left to burn on 7th
    assert len(hand.board) == 1
    assert hand.deck.dealt == 52
    hand = stud("7S", Deck.shuffled(random.Random(5)), [1000] * 3, house=house)
    check_down(hand)
    assert [e.street for e in kinds_of(hand.events, EventKind.BURN)] == [
        "fourth",
        "fifth",
        "sixth",
        "seventh",
    ]
    for seat in (None, 1, 2, 3):
        assert all(e.cards == (None,) for e in hand.events_for(seat) if e.kind == EventKind.BURN)


def test_first_player_may_check_or_bet() -> None:
    deck = stud_deck("Ah Kh 9c 2d", "Ad Kd 2c Kc", "As Ks 7c 8d")
    hand = stud("7S8", deck, [100, 100, 100])
    play(hand, "2:bi 3:c 1:c")
    assert [k for k in hand.legal_actions().kinds()] == [ActionKind.CHECK, ActionKind.BET]


def test_two_to_eight_players_in_stud() -> None:
    import pytest

    with pytest.raises(ValueError, match="2 to 8 players"):
        stud("7S", Deck.shuffled(random.Random(1)), [100] * 9)
    with pytest.raises(ValueError, match="2 to 8 players"):
        stud("RZ", Deck.shuffled(random.Random(1)), [100])


def test_all_in_runout_turns_hands_face_up_and_deals_the_rest() -> None:
    deck = stud_deck("Ah Kh 9c 2d 3d 4d 5s", "Ad Kd 2c Kc 3c 4c 5c", "As Ks 7c 7d 3h 4h 5h")
    hand = stud("7S", deck, [500, 500, 11])
    play(hand, "2:bi 3:co 1:c 2:c")  # seat 3 all-in for the completion; seats 1 and 2 still bet
    assert hand.street == "fourth" and not kinds_of(hand.events, EventKind.EXPOSE)
    play(hand, f"{hand.to_act}:b=10")
    legal = hand.legal_actions()
    play(hand, f"{legal.seat}:f")  # all but one of the players left are all-in
    assert hand.is_over
    exposed = kinds_of(hand.events, EventKind.EXPOSE)
    assert [e.seat for e in exposed] == sorted(e.seat or 0 for e in exposed)
    assert len(exposed) == 2
    view = hand.view(None)
    for seat in view.seats:
        if not seat.folded:
            assert len(seat.down) == 3 and all(c is not None for c in seat.down)
    later = [e for e in kinds_of(hand.events, EventKind.DEAL) if e.street in ("fifth", "sixth", "seventh")]
    assert later and all(e.visibility is None for e in later)  # dealt face up to everyone
    assert sum(hand.result.final_stacks.values()) == 1011
