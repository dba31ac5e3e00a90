"""The engine's shortcuts give what the general code gives (docs/engine.md, "Speed").

Each shortcut skips work in the usual case: the options of a deep-stacked round, the single
pot of a showdown nobody is all-in for, the showing ranks as ints, one log record per round
of cards. These tests play random hands and compare each shortcut with the long way.
"""

from __future__ import annotations

import itertools
import random

from studpoker.cards import Deck
from studpoker.engine import EventKind, Hand
from studpoker.engine.pots import build_pots
from studpoker.engine.rounds import _BRING_IN_RANKS
from studpoker.engine.showing import (
    RANK_UNIT,
    bring_in_key,
    high_signature_key,
    high_signature_rank,
    low_signature_key,
    low_signature_rank,
)
from studpoker.games import GAMES, HouseRules, Stakes


def _random_hand(rng: random.Random, code: str, deep: bool) -> Hand:
    game = GAMES[code]
    n = rng.randint(2, game.max_players)
    seats = [(s, 10_000 if deep else rng.choice([5, 30, 60, 200, 10_000])) for s in range(1, n + 1)]
    house = game.default_house
    if rng.random() < 0.5:
        house = HouseRules(
            fourth_street_double_bet=rng.random() < 0.5,
            heads_up_uncapped=rng.random() < 0.5,
            max_raises=rng.randint(0, 5),
        )
    button = rng.choice(seats)[0] if not game.is_stud else None
    stakes = Stakes.from_bets(10, 20, game)
    return Hand(game, stakes, seats, deck=Deck.shuffled(rng), house=house, button=button)


def test_deep_round_options_equal_the_full_checks() -> None:
    rng = random.Random(17)
    deep_decisions = 0
    for number in range(400):
        hand = _random_hand(rng, sorted(GAMES)[number % len(GAMES)], deep=number % 2 == 0)
        while not hand.is_over:
            legal = hand.legal_actions()
            deep_decisions += hand.deep_round
            assert legal == hand.legal_actions_in_full(), (hand, legal)
            if rng.random() < 0.03:
                hand.timeout(legal.seat or 0, protection_allowed=True)
            else:
                option = legal.options[int(rng.random() * len(legal.options))]
                hand.act(legal.seat or 0, option.kind, option.amount)
    assert deep_decisions > 1000  # the shortcut was taken


def test_showdown_single_pot_equals_build_pots() -> None:
    rng = random.Random(5)
    single = side = 0
    for number in range(1200):
        hand = _random_hand(rng, sorted(GAMES)[number % len(GAMES)], deep=number % 3 == 0)
        while not hand.is_over:
            legal = hand.legal_actions()
            # Mostly calls and checks: hands that reach the showdown, with all-ins on the way.
            option = legal.options[1 if len(legal.options) > 1 and rng.random() < 0.8 else -1]
            hand.act(legal.seat or 0, option.kind, option.amount)
        if not hand.result.showdown:
            continue
        # The hands have no per-seat antes: no dead money.
        live = [seat.seat for seat in hand.view(None).seats if not seat.folded]
        pots = build_pots(hand.contributions, live)
        assert [(p.amount, p.eligible) for p in hand.result.pots] == [(p.amount, p.eligible) for p in pots]
        single += len(pots) == 1
        side += len(pots) > 1
    assert single > 100 and side > 100


def _signatures(most: int) -> list[int]:
    """The rank-count signature of every board of 1 to ``most`` up cards."""
    out = set()
    for count in range(1, most + 1):
        for ranks in itertools.combinations_with_replacement(range(13), count):
            if max(ranks.count(r) for r in ranks) <= 4:
                out.add(sum(RANK_UNIT[4 * r] for r in ranks))
    return sorted(out)


def test_showing_ranks_order_boards_as_the_keys() -> None:
    for size in range(1, 5):
        boards = [s for s in _signatures(4) if sum((s >> 4 * r) & 15 for r in range(13)) == size]
        for key_of, rank_of in (
            (high_signature_key, high_signature_rank),
            (low_signature_key, low_signature_rank),
        ):
            by_key = sorted(boards, key=key_of)
            by_rank = sorted(boards, key=rank_of)
            assert [key_of(s) for s in by_key] == [key_of(s) for s in by_rank]
            for a, b in itertools.pairwise(by_key):
                assert (key_of(a) < key_of(b)) == (rank_of(a) < rank_of(b))


def test_bring_in_ranks_order_cards_as_the_keys() -> None:
    for (razz, by_suit), ranks in _BRING_IN_RANKS.items():
        for a, b in itertools.product(range(52), repeat=2):
            key_a = bring_in_key(a, razz=razz, by_suit=by_suit)
            key_b = bring_in_key(b, razz=razz, by_suit=by_suit)
            assert (key_a < key_b) == (ranks[a] < ranks[b])
            assert (key_a == key_b) == (ranks[a] == ranks[b])


def test_deal_rounds_read_as_one_event_per_card() -> None:
    for number, code in enumerate(sorted(GAMES) * 5):
        hand = _random_hand(random.Random(number), code, deep=number % 2 == 0)
        same = _random_hand(random.Random(number), code, deep=number % 2 == 0)
        deals = [e for e in hand.events if e.kind == EventKind.DEAL]
        assert deals and all(e.cards is not None and len(e.cards) == 1 for e in deals)
        for seat in hand.seat_numbers:
            down, up = hand.cards_of(seat)
            assert [e.cards for e in deals if e.seat == seat] == [(c,) for c in (*down, *up)]
        for e in deals:
            assert e.visibility == (e.seat if e.detail == "down" else None)
        # Read after each action (apply) or only at the end: the same events, numbered 1, 2, ...
        read = list(hand.events)
        rng = random.Random(number)
        while not hand.is_over:
            legal = hand.legal_actions()
            option = legal.options[int(rng.random() * len(legal.options))]
            read += hand.apply(legal.seat or 0, option.action)
            same.act(legal.seat or 0, option.kind, option.amount)
        assert [e.version for e in read] == list(range(1, hand.version + 1))
        assert [e.to_dict() for e in read] == [e.to_dict() for e in same.events]
