"""Random-play speed of the engine beside PokerKit: 6 players, Seven Card Stud, one run.

Both sides play the same way: at every decision, one of the legal options picked uniformly
by a seeded ``random.Random`` (``options[int(random() * len(options))]``, cheaper than
``rng.choice``); our decks come from ``simulate.random_decks`` (numpy Fisher-Yates in batches,
seeded by the same generator), PokerKit deals from its own deck.
Run ``python -m bench engine`` (optionally ``--hands N``).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from studpoker.cli.simulate import random_decks
from studpoker.engine import Hand
from studpoker.games import Stakes, get_game

PLAYERS = 6
STACK = 1000


def engine_hands(count: int, seed: int = 1, *, events: bool = False) -> None:
    """Our engine: ``act`` (no event objects) or ``apply`` (events built and returned)."""
    game = get_game("7S")
    stakes = Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20)
    seats = [(i, STACK) for i in range(1, PLAYERS + 1)]
    rng = random.Random(seed)
    uniform = rng.random
    decks = random_decks(rng)
    for _ in range(count):
        hand = Hand(game, stakes, seats, deck=next(decks))
        while True:
            seat = hand.to_act
            if seat is None:
                break
            options = hand.legal_actions().options
            option = options[int(uniform() * len(options))]
            if events:
                hand.apply(seat, option.action)
            else:
                hand.act(seat, option.kind, option.amount)


def pokerkit_hands(count: int, seed: int = 1) -> None:
    """PokerKit's FixedLimitSevenCardStud with the same random policy."""
    import pokerkit
    from pokerkit import Automation

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    uniform = random.Random(seed).random
    for _ in range(count):
        state = pokerkit.FixedLimitSevenCardStud.create_state(
            automations, True, 2, 5, 10, 20, (STACK,) * PLAYERS, PLAYERS
        )
        while state.status:
            moves: list[Callable[[], object]] = []
            if state.can_post_bring_in():
                moves.append(state.post_bring_in)
            if state.can_fold():
                moves.append(state.fold)
            if state.can_check_or_call():
                moves.append(state.check_or_call)
            if state.can_complete_bet_or_raise_to():
                moves.append(state.complete_bet_or_raise_to)
            if not moves:
                raise RuntimeError(f"PokerKit state with no move: {state}")
            moves[int(uniform() * len(moves))]()


def decks(count: int, seed: int = 1) -> None:
    """Only the per-hand deck, as the engine runs get them."""
    deal = random_decks(random.Random(seed))
    for _ in range(count):
        next(deal)


def rate(run: Callable[[int], None], count: int, repeat: int = 2) -> float:
    """Hands per second of this process's CPU time (the machine is shared: wall time is noisy)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run(count)
        best = min(best, time.process_time() - start)
    return count / best


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    hands = int(args[args.index("--hands") + 1]) if "--hands" in args else 3000
    ours_fast = rate(engine_hands, hands)
    ours_events = rate(lambda n: engine_hands(n, events=True), hands)
    theirs = rate(pokerkit_hands, max(100, hands // 10))
    deck_rate = rate(decks, hands)
    print(f"Random play, {PLAYERS} players, 7S (hands per CPU second; higher is better)\n")
    print("| engine | hands/s | vs PokerKit |")
    print("|---|---:|---:|")
    print(f"| studpoker `Hand.act` | {ours_fast:,.0f} | {ours_fast / theirs:.1f}x |")
    print(f"| studpoker `Hand.apply` (events) | {ours_events:,.0f} | {ours_events / theirs:.1f}x |")
    print(f"| PokerKit 0.7 FixedLimitSevenCardStud | {theirs:,.0f} | 1.0x |")
    share = ours_fast / deck_rate
    print(f"\n`Deck.shuffled` alone: {deck_rate:,.0f} decks/s, {share:.0%} of the `Hand.act` time.")


if __name__ == "__main__":
    main()
