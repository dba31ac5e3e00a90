"""Play the same hand in studpoker and in PokerKit 0.7.7 and compare them step by step.

The cards come from studpoker's deck: every card the engine deals is dealt to the same player in
PokerKit (``deal_hole`` / ``deal_board`` with explicit cards; PokerKit burns unknown cards). The
actions are chosen at random among studpoker's legal actions and translated to PokerKit calls;
before each one the two sides must agree on who acts, on every player's stack and on the legal
options (kinds and exact amounts). At the end the finishing stacks must be equal.

Our house switches follow PokerKit's behaviour (``HouseRules.pokerkit_compat`` plus the 4th
street double bet off, which PokerKit does not have). PokerKit's
``FixedLimitOmahaHoldemHighLowSplitEightOrBetter`` inherits the pot-limit mixin in 0.7.7; it is
corrected here to the fixed-limit structure (:class:`FixedLimitOmahaEight`). Limit hold'em is
``FixedLimitTexasHoldem`` with the same pre-flop cap (:class:`FixedLimitHoldem`).
"""

from __future__ import annotations

import dataclasses
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pokerkit import Automation
from pokerkit.games import (
    FixedLimitOmahaHoldemHighLowSplitEightOrBetter,
    FixedLimitPokerMixin,
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    FixedLimitTexasHoldem,
)
from pokerkit.notation import HandHistory
from pokerkit.utilities import Card as PkCard

from studpoker.cards import Card, Deck
from studpoker.engine import Action, ActionKind, Hand
from studpoker.engine.actions import LegalOption
from studpoker.engine.events import EventKind
from studpoker.games import HouseRules, Stakes, get_game


def _cap_preflop_at_three_raises(game: Any) -> None:
    """Pre-flop PokerKit does not count the big blind as the bet, so it allows the blind and four
    raises; the rule book counts the big blind as the bet (blind and three raises), so the pre-flop
    street is capped at three raises here."""
    preflop, *rest = game.streets
    assert preflop.max_completion_betting_or_raising_count is not None
    cap = preflop.max_completion_betting_or_raising_count - 1
    game.streets = (dataclasses.replace(preflop, max_completion_betting_or_raising_count=cap), *rest)


class FixedLimitOmahaEight(FixedLimitPokerMixin, FixedLimitOmahaHoldemHighLowSplitEightOrBetter):
    """PokerKit's FO/8 with fixed-limit betting, as its name says (0.7.7 inherits pot-limit), and
    the pre-flop cap of the rule book (:func:`_cap_preflop_at_three_raises`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _cap_preflop_at_three_raises(self)


class FixedLimitHoldem(FixedLimitTexasHoldem):
    """PokerKit's FT with the pre-flop cap of the rule book (:func:`_cap_preflop_at_three_raises`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _cap_preflop_at_three_raises(self)


AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

STUD_CLASSES: dict[str, Any] = {
    "7S": FixedLimitSevenCardStud,
    "7S8": FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    "RZ": FixedLimitRazz,
}


def compat_house(code: str) -> HouseRules:
    """Our switches set to PokerKit's behaviour (docs/rules.md, R-POKERKIT-COMPAT)."""
    return HouseRules.pokerkit_compat(code).with_overrides(["fourth_street_double_bet=off"])


def pokerkit_game(code: str, stakes: Stakes, *, notation: bool = False) -> Any:
    """PokerKit's game for ours. ``notation``: the class PokerKit's ``HandHistory`` knows (its
    own FO/8, whose fields are the same), to write a state it played as PHH."""
    if not get_game(code).is_stud:
        if code == "O8":
            cls: Any = FixedLimitOmahaHoldemHighLowSplitEightOrBetter if notation else FixedLimitOmahaEight
        else:
            cls = FixedLimitTexasHoldem if notation else FixedLimitHoldem
        return cls(
            AUTOMATIONS,
            True,
            stakes.ante,
            (stakes.small_blind, stakes.big_blind),
            stakes.small_bet,
            stakes.big_bet,
        )
    return STUD_CLASSES[code](
        AUTOMATIONS, True, stakes.ante, stakes.bring_in, stakes.small_bet, stakes.big_bet
    )


def pokerkit_state(code: str, stakes: Stakes, stacks: list[int]) -> Any:
    """A PokerKit state for the game; player i is our seat i + 1 (a board game's button: the last seat)."""
    return pokerkit_game(code, stakes)(stacks, len(stacks))


def pokerkit_history(code: str, stakes: Stakes, state: Any) -> str:
    """The PHH text PokerKit writes for a hand it played (``HandHistory.from_game_state``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return HandHistory.from_game_state(pokerkit_game(code, stakes, notation=True), state).dumps()


def pokerkit_replays(text: str) -> list[int]:
    """The finishing stacks PokerKit's ``HandHistory`` reaches from a PHH text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(list(HandHistory.loads(text))[-1].stacks)


def _pk(card: Card) -> Any:
    return next(iter(PkCard.parse(str(card))))


class DivergenceError(AssertionError):
    """The two sides disagree; ``kind`` names what (``options``, ``actor``, ``stacks``...)."""

    def __init__(self, kind: str, detail: str, log: list[str], *, after_short_all_in: bool = False) -> None:
        self.kind = kind
        self.detail = detail
        self.log = log
        self.after_short_all_in = after_short_all_in
        super().__init__(f"{kind}: {detail}\n  " + "\n  ".join(log))


@dataclass
class Outcome:
    code: str
    stacks: list[int]
    ours: list[int]
    theirs: list[int]
    log: list[str] = field(default_factory=list)
    short_all_in: bool = False
    known: str | None = None  # a documented difference explains unequal stacks
    hand: Hand | None = None  # our finished hand
    stakes: Stakes | None = None
    state: Any = None  # PokerKit's finished state
    idle_checks: int = 0  # PokerKit's checks where betting is over here (see pokerkit_idle_check)

    def pokerkit_phh(self) -> str:
        """PokerKit's own PHH text of the hand it played."""
        assert self.stakes is not None
        return pokerkit_history(self.code, self.stakes, self.state)

    @property
    def agree(self) -> bool:
        return self.ours == self.theirs


def our_options(hand: Hand) -> set[Any]:
    out: set[Any] = set()
    for option in hand.legal_actions().options:
        if option.kind is ActionKind.FOLD:
            out.add("f")
        elif option.kind in (ActionKind.CHECK, ActionKind.CALL):
            out.add(("cc", option.amount))
        elif option.kind is ActionKind.BRING_IN:
            out.add("pb")
        else:
            out.add(("cbr", option.amount))
    return out


def their_options(state: Any) -> set[Any]:
    out: set[Any] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if state.can_fold():
            out.add("f")
        if state.can_check_or_call():
            actor = state.actor_index
            out.add(("cc", state.bets[actor] + state.checking_or_calling_amount))
        if state.can_post_bring_in():
            out.add("pb")
        if state.can_complete_bet_or_raise_to():
            low = state.min_completion_betting_or_raising_to_amount
            high = state.max_completion_betting_or_raising_to_amount
            out.add(("cbr", low))
            out.add(("cbr", high))
        if "pb" in out:
            # A bring-in player who has no more than the bring-in may "complete" all-in for the
            # same chips in PokerKit; for us that is the (all-in) bring-in itself.
            actor = state.actor_index
            everything = state.stacks[actor] + state.bets[actor]
            if everything <= state.effective_bring_in_amount:
                out.discard(("cbr", everything))
    return out


def full_amount(hand: Hand, kind: ActionKind) -> int:
    """The "to" amount of a full completion, bet or raise for the player to act."""
    stakes = hand.stakes
    street = next(s for s in hand.game.streets if s.name == hand.street)
    unit = stakes.big_bet if street.big_bet else stakes.small_bet
    legal = hand.legal_actions()
    if kind is ActionKind.COMPLETE:
        return stakes.small_bet
    if kind is ActionKind.BET:
        return unit
    facing = legal.find(ActionKind.CALL) or legal.find(ActionKind.CHECK)
    assert facing is not None
    return facing.amount + unit


def scripted_option(hand: Hand, notation: str) -> LegalOption:
    """Our legal option for an action written in PHH notation (``f``, ``cc``, ``pb``, ``cbr N``)."""
    legal = hand.legal_actions()
    verb, _, amount = notation.partition(" ")
    option = None
    if verb == "f":
        option = legal.find(ActionKind.FOLD)
    elif verb == "cc":
        option = legal.find(ActionKind.CHECK) or legal.find(ActionKind.CALL)
    elif verb == "pb":
        option = legal.find(ActionKind.BRING_IN)
    elif verb == "cbr":
        for kind in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
            option = option or legal.find(kind, int(amount))
    if option is None:
        raise AssertionError(f"script: {notation!r} is not legal for seat {hand.to_act}: {legal.options}")
    return option


def is_short_all_in(hand: Hand, option: LegalOption) -> bool:
    """An all-in completion, bet or raise for less than the full amount (the §129 case of docs/rules.md)."""
    if not option.all_in or option.kind not in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
        return False
    return option.amount < full_amount(hand, option.kind)


_WEIGHTS = {
    ActionKind.FOLD: 1.0,
    ActionKind.CHECK: 3.0,
    ActionKind.CALL: 3.0,
    ActionKind.BRING_IN: 2.0,
    ActionKind.COMPLETE: 1.5,
    ActionKind.BET: 1.5,
    ActionKind.RAISE: 1.5,
}


def random_stacks(
    rng: random.Random, n: int, stakes: Stakes, *, short_ratio: float, big_blind_seat: int | None = None
) -> list[int]:
    """Deep stacks, with some short ones (all-ins and side pots) at ``short_ratio``.

    The short ones are above the big blind, unless ``big_blind_seat`` is given: then only that
    seat is kept covered (a short big blind is a known difference, see
    test_pokerkit_differences) and the others may be as short as one chip (all-in for no more
    than the big blind: no decision when betting is over).
    """
    deep = stakes.ante + stakes.bring_in + 8 * stakes.small_bet + 12 * stakes.big_bet + stakes.big_blind
    stacks = []
    for seat in range(1, n + 1):
        least = 1 if big_blind_seat is not None and seat != big_blind_seat else stakes.big_blind + 1
        if rng.random() < short_ratio:
            stack = rng.randint(least, deep)
            if stakes.ante < stack < stakes.ante + stakes.bring_in:
                # A bring-in short of the full amount is a known difference (PokerKit sizes the
                # calls from the chips posted); all-in from the ante stays in play.
                stack = stakes.ante + stakes.bring_in
            stacks.append(stack)
        else:
            stacks.append(rng.randint(deep, 3 * deep))
    return stacks


def pokerkit_idle_check(state: Any, hand: Hand) -> bool:
    """PokerKit's player to act is asked only to check, and for us betting is over: he is the
    only player left with chips and owes nothing (the others went all-in during the round
    without betting more than him, or folded). PokerKit drops such a player from the round only
    when the round begins; the rule book gives him no decision at all (docs/histories.md, difference
    10). True when ``state`` waits for such a check."""
    actor = state.actor_index
    if actor is None or hand.to_act == actor + 1:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not state.can_check_or_call() or state.checking_or_calling_amount:
            return False
    others = [i for i in range(state.player_count) if i != actor and state.statuses[i]]
    return bool(others) and all(not state.stacks[i] for i in others)


# Over the complexity limits: drives both engines in lockstep, one branch per outcome.
def play_both(  # noqa: C901, PLR0912, PLR0915
    code: str,
    seed: int,
    *,
    players: int | None = None,
    stakes: Stakes | None = None,
    short_ratio: float = 0.3,
    compare_options: bool = True,
    short_all_ins: bool = False,
    stacks: list[int] | None = None,
    cards: str | None = None,
    script: list[str] | None = None,
    chooser: Callable[[Hand], LegalOption] | None = None,
    tiny_stacks: bool = False,
) -> Outcome:
    """Play one random hand on both sides; raise :class:`DivergenceError` at the first difference.

    ``stacks``, ``cards`` (the top of the deck, in dealing order) and ``script`` (actions in PHH
    notation: ``f``, ``cc``, ``pb``, ``cbr N``, one per decision, then random ones) set up a
    chosen situation instead of a random one; ``chooser`` picks every unscripted action.
    PokerKit's extra check where betting is over for us (:func:`pokerkit_idle_check`) is made
    on its side and counted in ``Outcome.idle_checks``. ``tiny_stacks``: random short stacks
    may be as short as one chip, except the big blind's (see :func:`random_stacks`).
    """
    rng = random.Random(seed)
    game = get_game(code)
    max_players = game.max_players
    n = len(stacks) if stacks else players or rng.randint(2, max_players)
    if stakes is None:
        if game.is_stud:
            stakes = Stakes(
                ante=rng.choice([0, 1, 2, 5]), bring_in=rng.choice([2, 3, 5]), small_bet=10, big_bet=20
            )
        else:
            stakes = Stakes(small_blind=rng.choice([5, 3]), big_blind=10, small_bet=10, big_bet=20)
    if stacks is None:
        big_blind_seat = None
        if tiny_stacks:
            big_blind_seat = 0 if game.is_stud else (1 if n == 2 else 2)  # the button is seat n
        stacks = random_stacks(rng, n, stakes, short_ratio=short_ratio, big_blind_seat=big_blind_seat)
    deck = Deck.shuffled(rng, salt="differential") if cards is None else Deck.stacked(cards, rng)
    scripted = list(script or ())
    house = compat_house(code)
    hand = Hand(
        game,
        stakes,
        seats=[(i + 1, s) for i, s in enumerate(stacks)],
        deck=deck,
        house=house,
        button=None if game.is_stud else n,
    )
    state = pokerkit_state(code, stakes, stacks)
    log: list[str] = [f"{code} seed={seed} stakes={stakes} stacks={stacks}"]
    seen = 0
    short_all_in = False
    idle_checks = 0

    def sync() -> None:
        nonlocal seen, idle_checks
        events = hand.events
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if pokerkit_idle_check(state, hand):
                log.append(
                    f"PokerKit: seat {state.actor_index + 1} checks (no decision here: betting is over)"
                )
                state.check_or_call()
                idle_checks += 1
            for event in events[seen:]:
                if event.kind is EventKind.DEAL:
                    assert event.seat is not None and event.cards and event.cards[0] is not None
                    state.deal_hole((_pk(event.cards[0]),), event.seat - 1)
                    log.append(f"deal seat {event.seat} {event.cards[0]}")
                elif event.kind is EventKind.DEAL_BOARD:
                    assert event.cards
                    if game.is_stud:
                        raise DivergenceError("community", "PokerKit has no stud community card", log)
                    state.deal_board(tuple(_pk(c) for c in event.cards if c is not None))
                    log.append(f"board {' '.join(str(c) for c in event.cards)}")
        seen = len(events)

    while True:
        sync()
        if hand.is_over:
            break
        seat = hand.to_act
        assert seat is not None
        if state.actor_index != seat - 1:
            raise DivergenceError(
                "actor",
                f"we have seat {seat} to act, PokerKit player {state.actor_index}",
                log,
                after_short_all_in=short_all_in,
            )
        ours_now = [hand.stacks[i + 1] for i in range(n)]
        if ours_now != list(state.stacks):
            raise DivergenceError(
                "stacks",
                f"before seat {seat} acts: ours {ours_now}, PokerKit {list(state.stacks)}",
                log,
                after_short_all_in=short_all_in,
            )
        ours = our_options(hand)
        if compare_options:
            theirs = their_options(state)
            if ours != theirs:
                raise DivergenceError(
                    "options",
                    f"seat {seat}: ours {sorted(map(str, ours))}, PokerKit {sorted(map(str, theirs))}",
                    log,
                    after_short_all_in=short_all_in,
                )
        options = hand.legal_actions().options
        if scripted:
            option = scripted_option(hand, scripted.pop(0))
        elif chooser is not None:
            option = chooser(hand)
        else:
            if not short_all_ins:
                options = tuple(o for o in options if not is_short_all_in(hand, o))
            option = rng.choices(options, weights=[_WEIGHTS[o.kind] for o in options])[0]
        log.append(f"seat {seat} {option.kind.value} {option.amount}{' all-in' if option.all_in else ''}")
        if is_short_all_in(hand, option):
            short_all_in = True
        hand.apply(seat, Action(kind=option.kind, amount=option.amount))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if option.kind is ActionKind.FOLD:
                state.fold()
            elif option.kind in (ActionKind.CHECK, ActionKind.CALL):
                state.check_or_call()
            elif option.kind is ActionKind.BRING_IN:
                state.post_bring_in()
            else:
                state.complete_bet_or_raise_to(option.amount)
    if state.status:
        raise DivergenceError("unfinished", f"PokerKit still waits: actor {state.actor_index}", log)
    result = hand.result
    assert result is not None
    final = dict(result.final_stacks)
    ours_final = [final[i + 1] for i in range(n)]
    theirs_final = list(state.stacks)
    known = None
    if ours_final != theirs_final:
        if explained_by_side_pot_low(result, ours_final, theirs_final):
            known = SIDE_POT_LOW
        elif explained_by_merged_pots(result, ours_final, theirs_final):
            known = MERGED_POTS
        elif explained_by_merged_pots(result, pokerkit_side_pot_lows(result, ours_final), theirs_final):
            known = BOTH  # a low-less side pot split PokerKit's way, then odd units of merged pots
    return Outcome(
        code, stacks, ours_final, theirs_final, log, short_all_in, known, hand, stakes, state, idle_checks
    )


SIDE_POT_LOW = "a pot without a qualifying low while another pot has one"


def explained_by_side_pot_low(result: Any, ours: list[int], theirs: list[int]) -> bool:
    """PokerKit 0.7.7 decides once per hand whether there is a low half (when any hand has a
    low) and then, in a pot where none of the eligible hands has a low, gives that pot's low half
    to all of them equally (``max_or_none`` of no lows is ``None``, and every ``None`` ties).
    The rule book awards each pot independently: no low in that pot, the high hand scoops it.
    True when the totals agree and every difference is between seats eligible for such a pot.
    """
    if sum(ours) != sum(theirs):
        return False
    lows = {h.seat for h in result.shown if h.low is not None}
    if not lows:
        return False
    involved: set[int] = set()
    for pot in result.pots:
        if len(pot.eligible) > 1 and not lows & set(pot.eligible):
            involved.update(pot.eligible)
    differing = {i + 1 for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b}
    return bool(differing) and differing <= involved


def pokerkit_side_pot_lows(result: Any, ours: list[int]) -> list[int]:
    """Our final stacks with each pot that has no qualifying low among its hands (in a hand where
    some pot has one) paid PokerKit's way (see :func:`explained_by_side_pot_low`): the low half
    taken from that pot's high winners and shared equally among its eligible hands that PokerKit
    does not kill (those that win some pot), the remainder to the first. Only for pots with one
    high winner, the case met; others unchanged."""
    lows = {h.seat for h in result.shown if h.low is not None}
    adjusted = list(ours)
    if not lows:
        return adjusted
    winning = {s.seat for pot in result.pots for s in pot.shares}
    for pot in result.pots:
        winners = {s.seat for s in pot.shares}
        sharing = [seat for seat in pot.eligible if seat in winning]
        if len(sharing) < 2 or lows & set(pot.eligible) or len(winners) != 1:
            continue
        low_half = pot.amount // 2
        adjusted[winners.pop() - 1] -= low_half
        each, remainder = divmod(low_half, len(sharing))
        for n, seat in enumerate(sharing):
            adjusted[seat - 1] += each + (remainder if n == 0 else 0)
    return adjusted


MERGED_POTS = "odd units: PokerKit merges pots and gives a whole remainder to one player"
BOTH = "both: a low-less side pot split PokerKit's way and odd units of merged pots"


def explained_by_merged_pots(result: Any, ours: list[int], theirs: list[int]) -> bool:
    """Two PokerKit ways with odd units that the rule book does not follow:

    * it merges the pots that the same hands contest (once the hands that cannot win are
      killed) and splits the sum, where the rule book splits each side pot on its own;
    * it gives the whole remainder of a split to the first player (two odd units of a three-way
      split both go to him), where we give one unit each in the ``odd_chip`` order.

    True when the totals agree and only seats that shared a split pot differ, by no more than
    the number of split pots times the number of tied hands.
    """
    if sum(ours) != sum(theirs):
        return False
    split = [p for p in result.pots if len({s.seat for s in p.shares}) > 1]
    if not split:
        return False
    sharing = {s.seat for p in split for s in p.shares}
    bound = sum(len(p.shares) for p in split)
    differing = {i + 1: abs(a - b) for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b}
    return set(differing) <= sharing and max(differing.values()) <= bound
