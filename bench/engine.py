"""Random-play speed of the engine beside PokerKit: 6 players, Seven Card Stud, one run.

Both sides play the same way: at every decision, one of the legal options picked uniformly
by a seeded ``random.Random`` (``options[int(random() * len(options))]``, cheaper than
``rng.choice``); our decks come from ``simulate.random_decks`` (numpy Fisher-Yates in batches,
seeded by the same generator), PokerKit deals from its own deck.
Run ``python -m bench engine`` (or ``python -m bench.engine --hands N``); under the table, what
a hand costs: its deck, ``Hand(...)`` up to the first decision, and the rest per decision. The
heading says whether the engine modules ran as compiled extensions (a mypyc build put first on
``PYTHONPATH``, docs/engine.md "Speed") or as Python.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES

from studpoker.cli.simulate import random_decks
from studpoker.engine import Hand, betting
from studpoker.games import Stakes, get_game

PLAYERS = 6
STACK = 1000


GAME = get_game("7S")
STAKES = Stakes(ante=2, bring_in=5, small_bet=10, big_bet=20)
SEATS = [(i, STACK) for i in range(1, PLAYERS + 1)]


def engine_hands(count: int, seed: int = 1, *, events: bool = False) -> int:
    """Our engine: ``act`` (no event objects) or ``apply`` (events built and returned); the
    number of decisions played."""
    rng = random.Random(seed)
    uniform = rng.random
    decks = random_decks(rng)
    decisions = 0
    for _ in range(count):
        hand = Hand(GAME, STAKES, SEATS, deck=next(decks))
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
            decisions += 1
    return decisions


def setups(count: int, seed: int = 1) -> None:
    """Only ``Hand(...)``: the antes, third street and the bring-in, up to the first decision."""
    deal = random_decks(random.Random(seed))
    for _ in range(count):
        Hand(GAME, STAKES, SEATS, deck=next(deal))


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


def rates(runs: dict[str, tuple[Callable[[int], object], int]], rounds: int = 3) -> dict[str, float]:
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
            "setup": (setups, hands),
        }
    )
    theirs = result["pokerkit"]
    built = "compiled" if betting.__file__.endswith(tuple(EXTENSION_SUFFIXES)) else "Python"
    print(f"Random play, {PLAYERS} players, 7S (hands per CPU second; higher is better; engine: {built})\n")
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
    decisions = engine_hands(hands) / hands
    deck, setup, act = (1e6 / result[name] for name in ("decks", "setup", "act"))
    print(
        f"A `Hand.act` hand: {act:.1f} us of CPU = the deck {deck:.1f} us + `Hand(...)` up to the first",
        f"decision {setup - deck:.1f} us + {decisions:.1f} decisions at {(act - setup) / decisions:.2f} us",
        "(the driver's pick, the later streets and the end of the hand included).",
    )


if __name__ == "__main__":
    main()
