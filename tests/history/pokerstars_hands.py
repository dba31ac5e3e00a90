"""Seeded random hands for the PokerStars tests: every game, 2 to 8 (Omaha 10) players, stakes
that trackers accept, short stacks (antes and blinds all-in, side pots), timeouts (checks,
folds and protected all-ins) and, with eight players who stay in, the stud community card; and
stud hands dealt from a stacked deck with the actions given."""

from __future__ import annotations

import random
from collections.abc import Sequence

from studpoker.cards import ALL_CARDS, Deck, parse_cards
from studpoker.engine import Action, ActionKind, Hand
from studpoker.games import Stakes, get_game

# Small bets in units whose big bet is a key of FPDB's lim_blinds table ($0.02/$0.04 .. $50/$100).
SMALL_BETS = (2, 4, 10, 20, 50, 100, 200, 300, 500, 1000, 2500, 5000)


def random_stakes(rng: random.Random, code: str) -> Stakes:
    game = get_game(code)
    small = rng.choice(SMALL_BETS)
    stakes = Stakes.from_bets(small, 2 * small, game)
    if game.is_stud and rng.random() < 0.3:  # rooms set their own ante and bring-in
        return Stakes(
            ante=rng.choice([0, small // 5, small // 4]),
            bring_in=rng.choice([small // 4, small // 3, small // 2]) or 1,
            small_bet=small,
            big_bet=2 * small,
        )
    return stakes


def random_hand(code: str, seed: int, *, players: int | None = None, passive: bool = False) -> Hand:
    """A finished hand played at random (``passive``: nobody folds or raises, all to the end)."""
    rng = random.Random(seed)
    game = get_game(code)
    n = players or rng.randint(2, game.max_players)
    stakes = random_stakes(rng, code)
    unit = stakes.big_bet
    forced = max(stakes.ante, stakes.small_blind, stakes.big_blind, stakes.bring_in, 1)

    def stack() -> int:
        pick = rng.random()
        if pick < 0.08:
            return rng.randint(1, forced)  # all-in from the forced bet
        if pick < 0.3:
            return rng.randint(forced, 4 * unit)  # short: side pots
        return rng.randint(10 * unit, 60 * unit)

    seats = sorted(rng.sample(range(1, game.max_players + 1), n))
    hand = Hand(
        game,
        stakes,
        seats=[(seat, stack()) for seat in seats],
        deck=Deck.shuffled(rng, salt="ps"),
        button=None if game.is_stud else seats[rng.randrange(n)],
    )
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        options = hand.legal_actions().options
        if passive:
            calm = [o for o in options if o.kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN)]
            option = calm[0] if calm else options[0]
            hand.apply(seat, Action(kind=option.kind, amount=option.amount))
            continue
        if rng.random() < 0.06:
            hand.timeout(seat, protection_allowed=rng.random() < 0.7)
            continue
        roll = rng.random()
        folds = [o for o in options if o.kind is ActionKind.FOLD]
        raises = [o for o in options if o.kind in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE)]
        calls = [o for o in options if o not in folds and o not in raises]
        if roll < 0.12 and folds:
            option = folds[0]
        elif roll < 0.4 and raises:
            option = rng.choice(raises)
        else:
            option = rng.choice(calls or options)
        hand.apply(seat, Action(kind=option.kind, amount=option.amount))
    return hand


def names_of(hand: Hand) -> dict[int, str]:
    return {seat: f"Player{seat}" for seat in hand.seat_numbers}


def stacked_hand(
    cards: Sequence[str],
    stacks: Sequence[int],
    plays: Sequence[tuple[int, ActionKind, int | None]],
    *,
    stakes: Stakes | None = None,
    code: str = "7S",
) -> Hand:
    """A stud hand: ``cards`` is the deck's top in dealing order; ``plays`` (seat, kind, amount)."""
    top = list(parse_cards(" ".join(cards)))
    deck = Deck.stacked(top + [c for c in ALL_CARDS if c not in top])
    hand = Hand(
        get_game(code),
        stakes or Stakes(ante=100, bring_in=250, small_bet=500, big_bet=1000),
        seats=[(seat, stack) for seat, stack in enumerate(stacks, 1)],
        deck=deck,
    )
    for seat, kind, amount in plays:
        assert hand.to_act == seat, (seat, kind, hand.to_act)
        option = hand.legal_actions().find(kind, amount)
        assert option is not None, (seat, kind, amount, hand.legal_actions())
        hand.apply(seat, option.action)
    assert hand.is_over
    return hand
