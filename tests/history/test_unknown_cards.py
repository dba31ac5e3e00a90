"""PHH unknown cards (``??``): real hands write the cards of players who folded or mucked so.

The replay never needs an unknown card unless it is shown: a card shown later is known, the
others are dealt as stand-ins and forgotten; a hand the file mucks with unknown cards wins
nothing; a showdown that needs an unknown card is an error naming the action. Our writer writes
``??`` for the down cards a reader did not see (``seen_by``), and such a file replays to the
same stacks.
"""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest
from pokerkit.notation import HandHistory

from studpoker.cards import Deck
from studpoker.engine import ActionKind, EventKind, Hand
from studpoker.games import HouseRules, Stakes, get_game
from studpoker.history.phh import PhhError, dump_hand, finishing_stacks, hand_to_phh, loads, replay

DATA = Path(__file__).parent.parent / "data" / "phh"
WITH_UNKNOWN = sorted(p for p in DATA.glob("wsop*.phh") if "??" in p.read_text())
STUD = Stakes(ante=1, bring_in=2, small_bet=10, big_bet=20)


def _check_down(hand: Hand) -> Hand:
    while not hand.is_over:
        legal = hand.legal_actions()
        option = (
            legal.find(ActionKind.BRING_IN) or legal.find(ActionKind.CHECK) or legal.find(ActionKind.CALL)
        )
        assert option is not None and legal.seat is not None
        hand.apply(legal.seat, option.action)
    return hand


def _kings_showing() -> Hand:
    """Heads-up 7S checked down: p1 has jack high, p2 kings full of aces (Kings up: Ks Kh)."""
    deck = Deck.stacked("2c Ad 3d Ac 4h Ks 8s Kh 9h 2d Jd 3c 7c As", random.Random(1))
    return _check_down(Hand("7S", STUD, [(1, 100), (2, 100)], deck=deck))


def test_fixtures_with_unknown_cards() -> None:
    assert len(WITH_UNKNOWN) == 10


@pytest.mark.parametrize("path", WITH_UNKNOWN, ids=[p.stem for p in WITH_UNKNOWN])
def test_unknown_cards_stay_unknown_in_the_replay_and_its_histories(path: Path) -> None:
    (phh,) = loads(path.read_text(), source=path.name)
    house = HouseRules.pokerkit_compat(phh.game_code)
    hand = replay(phh, house=house)
    unknown_players = {int(a.split()[2][1:]) for a in phh.actions if a.startswith("d dh") and "??" in a}
    assert len(hand.unknown_cards) == sum(a.count("??") for a in phh.actions if a.startswith("d dh"))
    for player in unknown_players:
        seat = player  # the WSOP files have seats 1..n in player order
        deals = [e for e in hand.events if e.kind is EventKind.DEAL and e.seat == seat]
        assert deals and all(e.cards == (None,) for e in deals)
        view = hand.view(seat)
        assert all(c is None for c in (*view.seat(seat).down, *view.seat(seat).up))
    text = dump_hand(hand)
    for line in phh.actions:
        if line.startswith("d dh") and "??" in line:
            assert f'"{line}"' in text  # written back as the file had it
    (again,) = loads(text, source="dumped")
    assert (
        finishing_stacks(replay(again, house=house), list(range(1, phh.player_count + 1)))
        == phh.finishing_stacks
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(list(HandHistory.loads(text))[-1].stacks) == phh.finishing_stacks


def test_cards_shown_later_fill_the_unknown_ones() -> None:
    hand = _kings_showing()
    text = dump_hand(hand, seen_by=1)  # p2's down cards unknown until he shows them
    assert '"d dh p2 ????Ks"' in text and '"p2 sm AdAcKsKh2d3cAs"' in text
    (phh,) = loads(text)
    again = replay(phh)
    assert again.cards_of(2) == hand.cards_of(2)
    assert [e.cards for e in again.events if e.kind is EventKind.DEAL and e.seat == 2] == [
        e.cards for e in hand.events if e.kind is EventKind.DEAL and e.seat == 2
    ]
    assert again.result.final_stacks == {1: 97, 2: 103}


def test_an_unknown_hand_mucked_at_the_showdown_wins_nothing() -> None:
    """The file has p2 muck his unknown cards: p1 wins, though p2 shows a pair of kings (the
    stand-ins are not looked at)."""
    text = dump_hand(_kings_showing(), seen_by=1)
    text = text.replace('"p2 sm AdAcKsKh2d3cAs"', '"p2 sm"').replace("[97, 103]", "[103, 97]")
    (phh,) = loads(text, source="muck.phh")
    hand = replay(phh)
    assert hand.result.final_stacks == {1: 103, 2: 97}
    assert hand.result.mucked == (2,) and [h.seat for h in hand.result.shown] == [1]
    assert all(c is None for c in hand.view(None).seat(2).down)


@pytest.mark.parametrize(
    ("show", "action", "reason"),
    [
        ('"p2 sm ????KsKh2d3c??"', 22, "'p2 sm ????KsKh2d3c??': the showdown needs p2's cards"),
        ("", 20, "'p1 cc': the showdown needs p2's cards, but 3 of them are unknown"),
    ],
)
def test_a_showdown_that_needs_an_unknown_card_is_an_error(show: str, action: int, reason: str) -> None:
    text = dump_hand(_kings_showing(), seen_by=1)
    text = text.replace('    "p2 sm AdAcKsKh2d3cAs",\n', f"    {show},\n" if show else "")
    (phh,) = loads(text, source="needs.phh")
    with pytest.raises(PhhError) as info:
        replay(phh)
    assert info.value.action == action
    assert str(info.value).startswith(f"needs.phh: action {action}: {reason}")


def test_a_show_of_a_card_dealt_to_another_player_is_an_error() -> None:
    """p2's down cards are ?? where they were dealt; his show names p1's 2c: the card would be
    dealt twice (before, the show was silently not used and the replay failed at the show)."""
    text = dump_hand(_kings_showing(), seen_by=1)
    assert '"d dh p1 2c3d4h"' in text
    (phh,) = loads(text.replace('"p2 sm AdAcKsKh2d3cAs"', '"p2 sm 2cAcKsKh2d3cAs"'), source="twice.phh")
    with pytest.raises(PhhError) as info:
        replay(phh)
    assert str(info.value) == "twice.phh: action 22: card 2c is dealt twice (first in action 1)"


def test_a_pot_that_only_unknown_mucked_hands_contest_is_an_error() -> None:
    text = dump_hand(_kings_showing(), seen_by=None)  # a spectator: both players' down cards unknown
    text = re.sub(r'"p(\d) sm [^"]*"', r'"p\1 sm"', text)
    (phh,) = loads(text, source="both.phh")
    with pytest.raises(
        PhhError, match=r"both.phh: action 22: 'p2 sm': every hand in the main pot \(p1, p2\)"
    ):
        replay(phh)


@pytest.mark.parametrize(
    ("old", "new", "action", "reason"),
    [
        ('"d dh p2 ????Ks"', '"d dh p2 ??????"', 2, "p2's door card is unknown (??) but he plays on"),
        ('"d dh p2 Kh"', '"d dh p2 ??"', 6, "p2's 4th street up card is unknown (??)"),
    ],
)
def test_unknown_up_cards_that_decide_the_order_are_errors(
    old: str, new: str, action: int, reason: str
) -> None:
    """Not shown later (p2 mucks): the door decided the bring-in, the 4th street card who acts
    first on 4th street."""
    text = dump_hand(_kings_showing(), seen_by=1).replace(old, new)
    text = text.replace('"p2 sm AdAcKsKh2d3cAs"', '"p2 sm"')
    (phh,) = loads(text, source="up.phh")
    with pytest.raises(PhhError) as info:
        replay(phh)
    assert (info.value.action, reason in info.value.reason) == (action, True), str(info.value)


def test_an_unknown_board_card_is_an_error() -> None:
    hand = _check_down(Hand("O8", Stakes.from_bets(10, 20, "O8"), [(1, 100), (2, 100)], button=2))
    text = dump_hand(hand)
    board = next(a for a in hand_to_phh(hand).actions if a.startswith("d db"))
    (phh,) = loads(text.replace(board, "d db ??????"), source="board.phh")
    with pytest.raises(
        PhhError, match=r"board.phh: action \d+: 'd db \?\?\?\?\?\?' has unknown cards \(\?\?\): board"
    ):
        replay(phh)


def _random_hand(code: str, seed: int) -> Hand:
    rng = random.Random(seed)
    game = get_game(code)
    n = rng.randint(2, 6)
    seats = sorted(rng.sample(range(1, 9), n))
    hand = Hand(
        game,
        Stakes.from_bets(10, 20, game),
        seats=[(s, rng.choice([30, 150, 400])) for s in seats],
        deck=Deck.shuffled(rng, salt="seen-by"),
        button=None if game.is_stud else seats[rng.randrange(n)],
    )
    while not hand.is_over:
        options = hand.legal_actions().options
        staying = [o for o in options if o.kind is not ActionKind.FOLD]
        option = rng.choice(staying if staying and rng.random() < 0.8 else options)
        assert hand.to_act is not None
        hand.apply(hand.to_act, option.action)
    return hand


@pytest.mark.parametrize("code", ["7S", "7S8", "RZ", "O8", "LHE"])
def test_a_readers_history_writes_what_he_did_not_see_as_unknown_and_replays(code: str) -> None:
    """``seen_by``: a player's (or a spectator's) history has ``??`` for the down cards he did
    not see; it replays to the same stacks, actions, shows and mucks."""
    unknown_written = 0
    for seed in range(15):
        hand = _random_hand(code, seed)
        for viewer in (None, *hand.seat_numbers):
            phh = hand_to_phh(hand, seen_by=viewer)
            dealt = {seat: "" for seat in hand.seat_numbers}
            for line in phh.actions:
                if line.startswith("d dh p"):
                    player, cards = line.split()[2:]
                    dealt[phh.seats[int(player[1:]) - 1]] += cards  # type: ignore[index]
            for seat, cards in dealt.items():
                down, up = hand.cards_of(seat)
                if seat == viewer:  # the others' down cards were not seen when dealt: "sm" shows them
                    assert "??" not in cards, (seed, viewer, seat, cards)
                unknown_written += cards.count("??")
                assert len(cards) == 2 * (len(down) + len(up))
            (again,) = loads(phh.dumps(), source=f"{code}-{seed}-{viewer}")
            replayed = replay(again)
            assert replayed.result.final_stacks == hand.result.final_stacks
            assert [
                (e.kind, e.seat, e.amount, e.action) for e in replayed.events if e.kind is not EventKind.DEAL
            ] == [(e.kind, e.seat, e.amount, e.action) for e in hand.events if e.kind is not EventKind.DEAL]
            assert [h.cards for h in replayed.result.shown] == [h.cards for h in hand.result.shown]
    assert unknown_written > 0
