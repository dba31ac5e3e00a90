"""Replaying a PHH hand through the engine (:func:`replay`).

The file's dealt cards become a stacked deck in the engine's dealing order (:mod:`.deal`); then
each entry of ``actions`` goes to the function its verb names in :data:`_VERBS` (``d dh``,
``d db``, ``sm``, ``pb``, ``f``, ``cc``, ``cbr``, and a bare ``# commentary``), which checks it
against the engine's hand or applies it. At the end every deal, the board and (when the file
gives them) the finishing stacks must come out as the file says.

:func:`replay_with_time_banks` also reads back the time bank studpoker notes on a decision (the
commentary :func:`~studpoker.history.phh.write.hand_to_phh` writes from ``time_banks``), keyed
by the engine event that ended the decision, as the room's ``HandEnd.time_banks`` are.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from studpoker.cards import Card, Deck, format_cards
from studpoker.engine import Hand
from studpoker.engine.actions import ActionKind, IllegalActionError, LegalActions, LegalOption
from studpoker.engine.events import Event, EventKind
from studpoker.games import HouseRules

from .deal import DealPlan, plan_deal
from .model import PROTECTED, TIMED_OUT, PhhAction, PhhError, PhhHand
from .stakes import forced_bets_of, seat_numbers, stakes_of

# The time bank a decision used, as write.TIME_BANK_TEXT writes it: "time bank 12.4 s" after the
# action, or bare as "p2 time bank 30.0 s" before a protected all-in (itself a bare commentary).
TIME_BANK = re.compile(r"^(?:p([1-9][0-9]*) )?time bank ([0-9]+(?:\.[0-9]+)?) s$")


@dataclass(frozen=True, slots=True)
class HandWithTimeBanks:
    """A replayed hand and the time bank its decisions used: engine event version (the action
    that ended the decision, or a protected all-in's timeout) -> seconds, the shape of the room's
    ``HandEnd.time_banks`` (what ``hand_to_phh`` and ``text_history`` take to write them)."""

    hand: Hand
    time_banks: dict[int, float]
    # A timeout's engine event version -> the day's protected all-ins (used, allowed) the table
    # counted then, as the file's timeout commentaries say (``hand_to_phh(protected_counts=)``).
    protected_counts: dict[int, tuple[int, int]] = field(default_factory=dict)


def replay(phh: PhhHand, *, house: HouseRules | None = None, check_finishing_stacks: bool = True) -> Hand:
    """Play the hand of a PHH file through the engine and return the finished :class:`Hand`
    (:func:`replay_with_time_banks` without the time banks)."""
    return replay_with_time_banks(phh, house=house, check_finishing_stacks=check_finishing_stacks).hand


def replay_with_time_banks(
    phh: PhhHand, *, house: HouseRules | None = None, check_finishing_stacks: bool = True
) -> HandWithTimeBanks:
    """Play the hand of a PHH file through the engine: the finished :class:`Hand`, with the
    time bank each decision used as the file's commentaries say (:data:`TIME_BANK`).

    ``house`` sets the house rules (default: the game's defaults; ``HouseRules.pokerkit_compat``
    for hands played by PokerKit's rules). Unknown cards (``??``) are filled in from the
    player's later ``sm`` or dealt as stand-ins (:mod:`studpoker.history.phh.deal`), which the
    returned hand has forgotten (its events and views carry None for them); a hand the file
    mucks with unknown cards is mucked unseen at the showdown. Raises :class:`PhhError` for any
    illegal or inconsistent input, a showdown that needs an unknown card included: the file,
    the action number and the reason.
    """
    game = phh.game
    actions = phh.parsed_actions()
    seats = seat_numbers(phh, stud=game.is_stud)
    stakes = stakes_of(phh)
    rules = game.default_house if house is None else house
    _check_players(phh, actions)
    plan = plan_deal(phh, actions, house=rules)
    mucked = {act.player for act in actions if act.mucks}
    conceding = [seats[player] for player in plan.unknown if player in mucked]
    try:
        hand = Hand(
            game,
            stakes,
            seats=sorted(zip(seats, phh.starting_stacks, strict=True)),
            deck=Deck.stacked(plan.order, random.Random(0), salt="phh"),
            house=rules,
            button=None if game.is_stud else seats[-1],
            forced=forced_bets_of(phh, seats),
            concede=conceding,
        )
    except ValueError as exc:
        raise PhhError(f"the hand cannot start: {exc}", file=phh.source) from None
    run = _Replay(hand, phh.source, seats, plan, given=[0] * phh.player_count)
    for act in actions:
        _VERBS[act.verb](run, act)
    run.check_finished()
    _check_unknown_hands_not_needed(
        hand,
        phh,
        actions=actions,
        seats=seats,
        unknown=plan.unknown,
        conceding=set(conceding),
        last_played=run.last_played,
    )
    hand.forget_cards(plan.stand_ins)
    if check_finishing_stacks and phh.finishing_stacks is not None:
        final = finishing_stacks(hand, seats)
        if final != phh.finishing_stacks:
            raise PhhError(
                f"finishing_stacks {phh.finishing_stacks} differ from the replay's {final}",
                file=phh.source,
            )
    return HandWithTimeBanks(hand, run.time_banks, run.protected_counts)


def finishing_stacks(hand: Hand, seats: Sequence[int]) -> list[int]:
    """The stacks at the end of a finished hand, in the order of ``seats``."""
    result = hand.result
    assert result is not None
    stacks = dict(result.final_stacks)
    return [stacks[seat] for seat in seats]


def _check_players(phh: PhhHand, actions: Sequence[PhhAction]) -> None:
    """Checks of the file that need no engine: trimmed antes, and players that exist."""
    n = phh.player_count
    if phh.ante_trimming_status is False and any(
        s < a for s, a in zip(phh.starting_stacks, phh.antes, strict=True)
    ):
        raise PhhError(
            "ante_trimming_status = false with a stack below the ante: studpoker always trims "
            "(a short ante puts the player all-in for what he has)",
            file=phh.source,
        )
    for act in actions:
        if act.player is not None and act.player >= n:
            raise PhhError(f"{act.text!r}: there are only {n} players", file=phh.source, action=act.number)


@dataclass
class _Replay:
    """A replay in progress: the engine's hand and what the file has dealt so far."""

    hand: Hand
    source: str
    seats: list[int]  # each PHH player's table seat
    plan: DealPlan
    given: list[int]  # how many of each player's cards the file has dealt so far
    board: list[Card] = field(default_factory=list)  # the board the file has dealt so far
    last_played: PhhAction | None = None  # the last player action applied
    idle_check_seen: bool = False
    # Engine event version -> the time bank used on the decision that event ended; and the bare
    # notes ("# p2 time bank 30.0 s") waiting for their seat's next decision.
    time_banks: dict[int, float] = field(default_factory=dict)
    banks_before: dict[int, float] = field(default_factory=dict)
    # Seats whose next decision the clock made (a bare "# p2 timed out"), with the day's counts
    # noted there; and each timeout's counts by its engine event version.
    timing_out: dict[int, tuple[int, int] | None] = field(default_factory=dict)
    protected_counts: dict[int, tuple[int, int]] = field(default_factory=dict)

    def fail(self, act: PhhAction, reason: str) -> PhhError:
        return PhhError(reason, file=self.source, action=act.number)

    def label(self, seat: int | None) -> str:
        return "nobody" if seat is None else f"p{self.seats.index(seat) + 1} (seat {seat})"

    def seat_of(self, act: PhhAction) -> int:
        assert act.player is not None
        return self.seats[act.player]

    def note_time_bank(self, seat: int, ended_by: Event, commentary: str | None) -> None:
        """The decision ``ended_by`` ended used the time bank its own commentary says, or the
        bare note written before it."""
        used = self.banks_before.pop(seat, None)
        noted = TIME_BANK.match(commentary or "")
        if noted is not None and noted.group(1) is None:
            used = float(noted.group(2))
        if used is not None:
            self.time_banks[ended_by.version] = used

    def known_cards(self, cards: Iterable[Card]) -> list[Card]:
        """``cards`` without the stand-ins (the file does not know those)."""
        return [c for c in cards if c not in self.plan.stand_ins]

    def check_finished(self) -> None:
        """The hand is over and the file dealt every card the engine did, the board included."""
        hand = self.hand
        if not hand.is_over:
            raise PhhError(
                f"the actions end before the hand is over ({self.label(hand.to_act)} is to act)",
                file=self.source,
            )
        for index, seat in enumerate(self.seats):
            dealt = _engine_cards(hand, seat)
            wanted = self.plan.hole[index][: self.given[index]]
            if dealt != wanted:
                raise PhhError(
                    f"the file deals p{index + 1} {format_cards(self.known_cards(wanted), ' ') or 'nothing'} "
                    f"but the hand deals {format_cards(self.known_cards(dealt), ' ')}: "
                    "a deal is missing or extra",
                    file=self.source,
                )
        if _engine_board(hand) != self.board:
            raise PhhError(
                f"the file's board {format_cards(self.board, ' ') or '(none)'} is not the hand's "
                f"{format_cards(_engine_board(hand), ' ') or '(none)'}",
                file=self.source,
            )


# ----------------------------------------------------------------------------------------------
# The verbs: one function each (``_VERBS``); each checks its entry or plays it, or raises.


def _commentary(run: _Replay, act: PhhAction) -> None:
    """A bare ``# ...``: nothing, unless it is studpoker's notation for a protected all-in or
    the time bank a player used before his next decision."""
    banked = TIME_BANK.match(act.commentary or "")
    if banked is not None and banked.group(1) is not None:
        player = int(banked.group(1)) - 1
        if player < len(run.seats):
            run.banks_before[run.seats[player]] = float(banked.group(2))
        return
    timed_out = TIMED_OUT.match(act.commentary or "")
    if timed_out is not None:
        player = int(timed_out.group(1)) - 1
        if player < len(run.seats):
            run.timing_out[run.seats[player]] = _counts(timed_out)
        return
    protected = PROTECTED.match(act.commentary or "")
    if protected is None:
        return
    hand = run.hand
    player = int(protected.group(1)) - 1
    seat = run.seats[player] if player < len(run.seats) else -1
    if hand.is_over or hand.to_act != seat:
        raise run.fail(act, f"{act.text!r}: {run.label(hand.to_act)} is to act")
    timeout = next((e for e in hand.timeout(seat) if e.kind is EventKind.TIMEOUT), None)
    if timeout is None or timeout.detail != "protected_all_in":
        raise run.fail(act, f"{act.text!r}: p{player + 1} cannot be protected all-in now")
    run.note_time_bank(seat, timeout, None)
    counts = _counts(protected)
    if counts is not None:
        run.protected_counts[timeout.version] = counts


def _counts(noted: re.Match[str]) -> tuple[int, int] | None:
    """The day's protected all-ins a timeout's commentary says (its last two groups), if any."""
    used, allowed = noted.group(2), noted.group(3)
    return None if used is None or allowed is None else (int(used), int(allowed))


def _deal_hole(run: _Replay, act: PhhAction) -> None:
    """``d dh pN CARDS``: the engine has dealt him the file's cards so far."""
    assert act.player is not None
    seat = run.seat_of(act)
    run.given[act.player] += len(act.cards)
    count = run.given[act.player]
    dealt = _engine_cards(run.hand, seat)
    if dealt[:count] != run.plan.hole[act.player][:count]:
        shown = format_cards(run.known_cards(dealt), " ")
        raise run.fail(
            act,
            f"{act.text!r} does not match the deal: {run.label(seat)} has been dealt "
            f"{shown or 'nothing'} by now",
        )


def _deal_board(run: _Replay, act: PhhAction) -> None:
    """``d db CARDS``: the engine's board so far is the file's."""
    run.board.extend(c for c in act.cards if c is not None)
    dealt = _engine_board(run.hand)
    if dealt[: len(run.board)] != run.board:
        shown = format_cards(dealt, " ") or "empty"
        raise run.fail(act, f"{act.text!r} does not match the deal: the board is {shown} by now")


def _show(run: _Replay, act: PhhAction) -> None:
    """``pN sm [CARDS]``: the engine shows or mucks by itself; the cards must be his."""
    hand = run.hand
    seat = run.seat_of(act)
    own = set(_engine_cards(hand, seat)) | set(_engine_board(hand))
    wrong = [c for c in act.cards if c is not None and c not in own]
    if wrong:
        raise run.fail(act, f"{act.text!r}: {run.label(seat)} does not hold {format_cards(wrong, ' ')}")


def _check_or_call(run: _Replay, act: PhhAction) -> None:
    """``pN cc``, which PokerKit also writes for a check that is no decision (see below)."""
    seat = run.seat_of(act)
    if run.hand.to_act != seat and not run.idle_check_seen and _only_one_with_chips(run.hand, seat):
        # PokerKit asks the last player with chips to check when the others went all-in during
        # the round without betting more than him; here betting is over (no decision).
        run.idle_check_seen = True
        return
    _play(run, act)


def _play(run: _Replay, act: PhhAction) -> None:
    """A player's decision (``pb``, ``f``, ``cc``, ``cbr``): legal now, and applied."""
    hand = run.hand
    seat = run.seat_of(act)
    if hand.is_over:
        raise run.fail(act, f"{act.text!r}: the hand is already over")
    if hand.to_act != seat:
        raise run.fail(act, f"{act.text!r} is out of turn: {run.label(hand.to_act)} is to act")
    legal = hand.legal_actions()
    option = _ENGINE_OPTIONS[act.verb](act, legal)
    if option is None:
        raise run.fail(
            act, f"{act.text!r} is not legal now; {run.label(seat)} may: {_describe(legal.options)}"
        )
    if seat in run.timing_out:
        _time_out(run, act, seat, option)
        return
    try:
        events = hand.apply(seat, option.action)
    except IllegalActionError as exc:
        raise run.fail(act, f"{act.text!r} is not legal: {exc}") from None
    run.note_time_bank(seat, events[0], act.commentary)  # the action's own event comes first
    run.last_played = act


def _time_out(run: _Replay, act: PhhAction, seat: int, option: LegalOption) -> None:
    """A decision the clock made (the bare ``# pN timed out`` before it): the engine's timeout,
    with no protection (the file says a protected all-in apart), must make the file's action."""
    counts = run.timing_out.pop(seat)
    events = run.hand.timeout(seat, protection_allowed=False)
    timeout = events[0]
    made = next((e.action for e in events if e.kind is EventKind.ACTION), None)
    if timeout.kind is not EventKind.TIMEOUT or made is not option.kind:
        raise run.fail(act, f"{act.text!r}: the clock cannot make that decision ({timeout.detail})")
    # Keyed by the timeout, as the room keys the bank a timed-out decision used.
    run.note_time_bank(seat, timeout, act.commentary)
    if counts is not None:
        run.protected_counts[timeout.version] = counts
    run.last_played = act


_VERBS: Mapping[str, Callable[[_Replay, PhhAction], None]] = {
    "": _commentary,
    "dh": _deal_hole,
    "db": _deal_board,
    "sm": _show,
    "pb": _play,
    "f": _play,
    "cc": _check_or_call,
    "cbr": _play,
}


# The engine option a player verb stands for (None: not legal now).


def _bring_in(act: PhhAction, legal: LegalActions) -> LegalOption | None:
    return legal.find(ActionKind.BRING_IN)


def _fold(act: PhhAction, legal: LegalActions) -> LegalOption | None:
    return legal.find(ActionKind.FOLD)


def _check_or_call_option(act: PhhAction, legal: LegalActions) -> LegalOption | None:
    return legal.find(ActionKind.CHECK) or legal.find(ActionKind.CALL)


def _complete_bet_or_raise(act: PhhAction, legal: LegalActions) -> LegalOption | None:
    for kind in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
        option = legal.find(kind, act.amount)
        if option is not None:
            return option
    # PokerKit lets a bring-in player who has no more than the bring-in "complete" all-in for
    # those chips: here that is the all-in bring-in.
    bring_in = legal.find(ActionKind.BRING_IN, act.amount)
    return bring_in if bring_in is not None and bring_in.all_in else None


_ENGINE_OPTIONS: Mapping[str, Callable[[PhhAction, LegalActions], LegalOption | None]] = {
    "pb": _bring_in,
    "f": _fold,
    "cc": _check_or_call_option,
    "cbr": _complete_bet_or_raise,
}


# ----------------------------------------------------------------------------------------------
# Reading the engine's hand


def _engine_cards(hand: Hand, seat: int) -> list[Card]:
    return [
        e.cards[0]
        for e in hand.events
        if e.kind is EventKind.DEAL and e.seat == seat and e.cards and e.cards[0] is not None
    ]


def _engine_board(hand: Hand) -> list[Card]:
    return [
        c for e in hand.events if e.kind is EventKind.DEAL_BOARD and e.cards for c in e.cards if c is not None
    ]


def _describe(options: Iterable[LegalOption]) -> str:
    parts = []
    for option in options:
        if option.kind in (ActionKind.FOLD, ActionKind.CHECK):
            parts.append(option.kind.value)
        else:
            parts.append(f"{option.kind.value} {option.amount}")
    return ", ".join(parts) or "nothing"


def _only_one_with_chips(hand: Hand, seat: int) -> bool:
    """``seat`` is the only player still in with chips, and another player is still in (all-in)."""
    view = hand.view(None)
    me = view.seat(seat)
    others = [s for s in view.seats if s.seat != seat and not s.folded]
    return not me.folded and not me.all_in and bool(others) and all(s.all_in for s in others)


def _check_unknown_hands_not_needed(
    hand: Hand,
    phh: PhhHand,
    *,
    actions: Sequence[PhhAction],
    seats: Sequence[int],
    unknown: Mapping[int, list[Card]],
    conceding: set[int],
    last_played: PhhAction | None,
) -> None:
    """A showdown may not need a card the file does not know: a hand still in with unknown
    cards must be mucked in the file, and every pot needs a hand that is known."""
    result = hand.result
    if not result.showdown or not unknown:
        return
    in_showdown = {h.seat for h in result.shown} | set(result.mucked)
    last_sm = {act.player: act for act in actions if act.verb == "sm" and act.player is not None}

    def fail(reason: str, act: PhhAction | None) -> PhhError:
        return PhhError(reason, file=phh.source, action=None if act is None else act.number)

    for player, stand_ins in unknown.items():
        seat = seats[player]
        if seat in in_showdown and seat not in conceding:
            act = last_sm.get(player, last_played)
            where = f"{act.text!r}: " if act is not None else ""
            raise fail(
                f"{where}the showdown needs p{player + 1}'s cards, but {len(stand_ins)} of them are "
                "unknown (??) and the file does not muck his hand",
                act,
            )
    for pot in result.pots:
        if len(pot.eligible) > 1 and all(seat in conceding for seat in pot.eligible):
            players = ", ".join(f"p{seats.index(s) + 1}" for s in pot.eligible)
            act = last_sm.get(seats.index(pot.eligible[-1]))
            where = f"{act.text!r}: " if act is not None else ""
            name = "the main pot" if pot.index == 0 else f"side pot {pot.index}"
            raise fail(
                f"{where}every hand in {name} ({players}) is mucked with unknown cards (??): "
                "the file does not say who wins it",
                act,
            )
