"""Irregular forced bets against PokerKit 0.7.7: hands played here with Omaha blinds seat by seat
(a single blind, no small blind, two big blinds; heads-up too) or per-seat antes are written as
PHH (``blinds_or_straddles`` and ``antes`` seat by seat); PokerKit's ``HandHistory`` plays the
file to the same finishing stacks (antes: see the test), and the file replays here to the same
hand. (A hand with no forced bet at all PokerKit refuses to play.)"""

from __future__ import annotations

import random

import pytest

from studpoker.cards import Deck
from studpoker.engine import ActionKind, ForcedBets, Hand
from studpoker.games import Stakes, get_game
from studpoker.history.phh import dump_hand, finishing_stacks, hand_to_phh, loads, replay
from tests.differential.peer import compat_house, pokerkit_replays

STUD = Stakes(ante=0, bring_in=2, small_bet=10, big_bet=20)
OMAHA = Stakes(small_blind=0, big_blind=10, small_bet=10, big_bet=20)

BLINDS = [
    ("O8", 4, ForcedBets(blinds={1: 10})),  # a single blind (WSOP 2023 #43 hand 76)
    ("O8", 3, ForcedBets(blinds={2: 10})),  # no small blind
    ("O8", 4, ForcedBets(blinds={1: 5, 2: 10, 3: 10})),  # a second big blind
    ("O8", 2, ForcedBets(blinds={2: 10})),  # heads-up, the button posts the only blind
]
ANTES = [
    ("7S", 3, ForcedBets(antes={3: 5})),  # a button ante
    ("7S8", 4, ForcedBets(antes={1: 1, 2: 1, 3: 1, 4: 3})),  # one player antes more (a dead blind)
    ("RZ", 2, ForcedBets(antes={1: 1})),  # heads-up: PHH writes it reversed
]


def _play(code: str, players: int, forced: ForcedBets, seed: int) -> Hand:
    game = get_game(code)
    rng = random.Random(seed)
    hand = Hand(
        game,
        STUD if game.is_stud else OMAHA,
        [(s, 1000) for s in range(1, players + 1)],
        deck=Deck.shuffled(rng, salt="forced"),
        house=compat_house(code),
        button=None if game.is_stud else players,
        forced=forced,
    )
    while not hand.is_over:
        options = hand.legal_actions().options
        staying = [o for o in options if o.kind is not ActionKind.FOLD]
        option = rng.choice(staying if rng.random() < 0.9 else options)
        assert hand.to_act is not None
        hand.apply(hand.to_act, option.action)
    return hand


def _ids(cases: list[tuple[str, int, ForcedBets]]) -> list[str]:
    return [f"{code}-{n}p-{i}" for i, (code, n, _) in enumerate(cases)]


@pytest.mark.parametrize(("code", "players", "forced"), BLINDS, ids=_ids(BLINDS))
def test_irregular_blinds_play_as_in_pokerkit(code: str, players: int, forced: ForcedBets) -> None:
    for seed in range(4):
        hand = _play(code, players, forced, seed)
        phh = hand_to_phh(hand)
        assert pokerkit_replays(phh.dumps()) == phh.finishing_stacks, f"seed {seed}\n{phh.dumps()}"
        (again,) = loads(dump_hand(hand), source=f"{code}-{seed}")
        replayed = replay(again, house=compat_house(code))
        assert replayed.forced == hand.forced
        assert [e.to_dict() for e in replayed.events] == [e.to_dict() for e in hand.events]


@pytest.mark.parametrize(("code", "players", "forced"), ANTES, ids=_ids(ANTES))
def test_antes_seat_by_seat_are_dead_money_pokerkit_returns_the_unmatched_part(
    code: str, players: int, forced: ForcedBets
) -> None:
    """Antes that differ between players are dead money here (they go to the main pot: a
    button ante, a dead blind). PokerKit treats them as bets: the part of the largest ante that
    nobody else posted goes back to its player at once (difference 11 in docs/histories.md).
    Written with that part taken off, the same hand reaches PokerKit's stacks here too."""
    for seed in range(4):
        hand = _play(code, players, forced, seed)
        phh = hand_to_phh(hand)
        (again,) = loads(phh.dumps(), source=f"{code}-{seed}")
        assert replay(again, house=compat_house(code)).forced == hand.forced
        antes = sorted(phh.antes)
        unmatched = antes[-1] - antes[-2]
        as_pokerkit = phh.dumps().replace(f"antes = {phh.antes}", f"antes = {_trimmed(phh.antes, unmatched)}")
        (theirs,) = loads(as_pokerkit, source=f"{code}-{seed}-trimmed")
        ours = finishing_stacks(
            replay(theirs, house=compat_house(code), check_finishing_stacks=False), phh.seats or []
        )
        assert pokerkit_replays(phh.dumps()) == ours, f"seed {seed}\n{phh.dumps()}"
        assert sum(ours) == sum(phh.finishing_stacks or [])


def _trimmed(antes: list[int], unmatched: int) -> list[int]:
    top = antes.index(max(antes))
    return [a - unmatched if i == top else a for i, a in enumerate(antes)]
