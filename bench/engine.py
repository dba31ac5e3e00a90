"""Random-play speed of the engine beside PokerKit: 6 players, Seven Card Stud, one run.

Both sides play the same way: at every decision, one of the legal options picked uniformly
by a seeded ``random.Random`` (``options[int(random() * len(options))]``, cheaper than
``rng.choice``); our decks come from ``simulate.random_decks`` (numpy Fisher-Yates in batches,
seeded by the same generator), PokerKit deals from its own deck.
Run ``python -m bench engine`` (or ``python -m bench.engine --hands N``).
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
            legal = hand.legal_actions()
            seat = legal.seat
            if seat is None:
                break
            options = legal.options
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


def rates(runs: dict[str, tuple[Callable[[int], None], int]], rounds: int = 3) -> dict[str, float]:
    """Hands per second of this process's CPU time, best of ``rounds``.

    The machine is shared, so wall time is noisy and even CPU time drifts with the load: the
    runs take turns within each round, so every engine sees the same conditions.
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, (run, count) in runs.items():
            start = time.process_time()
            run(count)
            best[name] = min(best[name], (time.process_time() - start) / count)
    return {name: 1 / seconds for name, seconds in best.items()}


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    hands = int(args[args.index("--hands") + 1]) if "--hands" in args else 3000
    result = rates(
        {
            "act": (engine_hands, hands),
            "apply": (lambda n: engine_hands(n, events=True), hands),
            "pokerkit": (pokerkit_hands, max(100, hands // 10)),
            "decks": (decks, hands),
        }
    )
    theirs = result["pokerkit"]
    print(f"Random play, {PLAYERS} players, 7S (hands per CPU second; higher is better)\n")
    print("| engine | hands/s | vs PokerKit |")
    print("|---|---:|---:|")
    print(f"| studpoker `Hand.act` | {result['act']:,.0f} | {result['act'] / theirs:.1f}x |")
    print(f"| studpoker `Hand.apply` (events) | {result['apply']:,.0f} | {result['apply'] / theirs:.1f}x |")
    print(f"| PokerKit 0.7 FixedLimitSevenCardStud | {theirs:,.0f} | 1.0x |")
    share = result["act"] / result["decks"]
    print(
        f"\nThe decks alone (`random_decks`): {result['decks']:,.0f} decks/s,",
        f"{share:.0%} of the `Hand.act` time.",
    )


if __name__ == "__main__":
    main()
