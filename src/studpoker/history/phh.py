"""Hand histories in the PHH format (Poker Hand History, TOML; spec: uoftcprg/phh-std).

* :func:`load_hands` reads a ``.phh`` file (one hand) or a ``.phhs`` file (hands under ``[1]``,
  ``[2]``, ...) into :class:`PhhHand` records.
* :func:`replay` plays a :class:`PhhHand` through the engine: the file's dealt cards become a
  stacked deck in the engine's dealing order, each player action is applied and checked, and the
  finishing stacks (when the file gives them) must come out the same.
* :func:`dump_hand` writes a finished engine hand as PHH text.

Anything illegal or inconsistent raises :class:`PhhError` naming the file, the action number
(1-based index in ``actions``) and the reason.

Player ``pN`` is the N-th player in PHH order: for the stud games the players in seat order
(dealing starts at the lowest seat); for Omaha the player left of the button first, so that the
button is the last player (heads-up: p1 is the big blind, p2 the button and small blind). The table
seat numbers are kept in the ``seats`` field.
"""

from __future__ import annotations

import datetime
import random
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from studpoker.cards import Card, CardError, Deck, format_cards
from studpoker.engine.actions import Action, ActionKind, IllegalActionError, LegalActions, LegalOption
from studpoker.engine.events import EventKind
from studpoker.engine.forced import ForcedBets
from studpoker.games import HouseRules, Stakes, get_game
from studpoker.history import toml_out

if TYPE_CHECKING:
    from studpoker.engine import Hand

# studpoker game code -> PHH variant code, and back.
VARIANT_OF_GAME: dict[str, str] = {"7S": "F7S", "7S8": "F7S/8", "RZ": "FR", "O8": "FO/8"}
GAME_OF_VARIANT: dict[str, str] = {v: k for k, v in VARIANT_OF_GAME.items()}
STUD_VARIANTS = frozenset({"F7S", "F7S/8", "FR"})

# The fields this module reads; any other field is kept as it is and written back by dumps().
_REQUIRED = {
    "F7S": ("variant", "antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "actions"),
    "F7S/8": ("variant", "antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "actions"),
    "FR": ("variant", "antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "actions"),
    "FO/8": ("variant", "antes", "blinds_or_straddles", "small_bet", "big_bet", "starting_stacks", "actions"),
}
# The order dumps() writes the known fields in (others follow in their own order).
_FIELD_ORDER = (
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet",
    "big_bet", "starting_stacks", "actions", "author", "event", "url", "venue", "address", "city",
    "region", "postal_code", "country", "time", "time_zone", "time_zone_abbreviation", "day",
    "month", "year", "hand", "level", "seats", "seat_count", "table", "players",
    "finishing_stacks", "winnings", "currency", "currency_symbol", "time_limit", "time_banks",
)  # fmt: skip


class PhhError(ValueError):
    """An illegal or inconsistent hand history: ``FILE: action N: reason``."""

    def __init__(self, reason: str, *, file: str | None = None, action: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.action = action
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.file or "<phh>"]
        if self.action is not None:
            parts.append(f"action {self.action}")
        parts.append(self.reason)
        return ": ".join(parts)


@dataclass(frozen=True, slots=True)
class PhhAction:
    """One parsed entry of ``actions``.

    ``actor`` is ``"d"`` (the dealer) or ``"pN"``; ``player`` the 0-based player index (``None``
    for the dealer, or for ``d db``); ``cards`` holds ``None`` for an unknown card (``??``).
    ``shows_dealt``: ``pN sm -``, showing the cards the file has dealt him (PHH's dash).
    """

    number: int
    text: str
    actor: str
    verb: str
    player: int | None = None
    cards: tuple[Card | None, ...] = ()
    amount: int | None = None
    commentary: str | None = None
    shows_dealt: bool = False

    @property
    def mucks(self) -> bool:
        """``pN sm`` without cards: the player mucks (``sm -`` and ``sm CARDS`` show)."""
        return self.verb == "sm" and not self.cards and not self.shows_dealt


@dataclass(slots=True)
class PhhHand:
    """One hand history: the PHH fields (amounts in integer units) and where it came from."""

    variant: str
    antes: list[int]
    starting_stacks: list[int]
    actions: list[str]
    bring_in: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    blinds_or_straddles: list[int] | None = None
    ante_trimming_status: bool | None = None
    finishing_stacks: list[int] | None = None
    seats: list[int] | None = None
    players: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    source: str = "<phh>"

    @property
    def game_code(self) -> str:
        """The studpoker game code (``7S``, ``7S8``, ``RZ``, ``O8``)."""
        try:
            return GAME_OF_VARIANT[self.variant]
        except KeyError:
            known = ", ".join(sorted(GAME_OF_VARIANT))
            raise PhhError(
                f"unknown variant {self.variant!r} (studpoker plays {known})", file=self.source
            ) from None

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)

    def fields(self) -> dict[str, Any]:
        """All PHH fields in the order :meth:`dumps` writes them."""
        known: dict[str, Any] = {
            "variant": self.variant,
            "ante_trimming_status": self.ante_trimming_status,
            "antes": self.antes,
            "blinds_or_straddles": self.blinds_or_straddles,
            "bring_in": self.bring_in,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "starting_stacks": self.starting_stacks,
            "actions": self.actions,
            "seats": self.seats,
            "players": self.players,
            "finishing_stacks": self.finishing_stacks,
        }
        merged = {**self.extra, **{k: v for k, v in known.items() if v is not None}}
        ordered = {name: merged.pop(name) for name in _FIELD_ORDER if name in merged}
        ordered.update(merged)
        return ordered

    def dumps(self) -> str:
        """The hand as PHH text (TOML); :func:`loads` reads it back."""
        return toml_out.table(self.fields(), multiline=frozenset({"actions"}))

    def parsed_actions(self) -> list[PhhAction]:
        """The ``actions`` entries parsed (syntax only); raises :class:`PhhError`."""
        return [parse_action(text, number, file=self.source) for number, text in enumerate(self.actions, 1)]


# ----------------------------------------------------------------------------------------------
# Reading


_PLAYER = re.compile(r"^p([1-9][0-9]*)$")
# A protected all-in (the clock rule) has no PHH verb: studpoker writes it as this commentary.
_PROTECTED_TEXT = "timed out: all-in under disconnect protection"
_PROTECTED = re.compile(r"^p([1-9][0-9]*) " + re.escape(_PROTECTED_TEXT) + "$")


def parse_cards_field(text: str) -> tuple[Card | None, ...]:
    """Cards written together (``AsKd7c``); ``??`` is an unknown card (``None``)."""
    if len(text) % 2:
        raise CardError(f"{text!r} is not a list of cards: each card is two characters, like 'As'")
    cards: list[Card | None] = []
    for i in range(0, len(text), 2):
        pair = text[i : i + 2]
        cards.append(None if pair == "??" else Card.parse(pair))
    return tuple(cards)


def parse_action(text: str, number: int, *, file: str | None = None) -> PhhAction:
    """Parse one action notation (``d dh p1 AsKd7c``, ``p2 cbr 10``, ``p3 cc # comment``...)."""

    def fail(reason: str) -> PhhError:
        return PhhError(reason, file=file, action=number)

    if not isinstance(text, str):
        raise fail(f"an action is a string, not {text!r}")
    body, sep, comment = text.partition("#")
    commentary = comment.strip() if sep else None
    words = body.split()
    if not words:
        return PhhAction(number, text, "", "", commentary=commentary)

    def player_of(word: str) -> int:
        match = _PLAYER.match(word)
        if match is None:
            raise fail(f"{word!r} is not a player (write p1, p2, ...) in {text!r}")
        return int(match.group(1)) - 1

    def cards_of(word: str) -> tuple[Card | None, ...]:
        try:
            cards = parse_cards_field(word)
        except CardError as exc:
            raise fail(f"bad card in {text!r}: {exc}") from None
        known = [c for c in cards if c is not None]
        if len(set(known)) != len(known):
            raise fail(f"a card appears twice in {text!r}")
        return cards

    actor, verb, args = words[0], words[1] if len(words) > 1 else "", words[2:]
    if actor == "d":
        if verb == "dh" and len(args) == 2:
            return PhhAction(
                number, text, actor, verb, player_of(args[0]), cards_of(args[1]), None, commentary
            )
        if verb == "db" and len(args) == 1:
            return PhhAction(number, text, actor, verb, None, cards_of(args[0]), None, commentary)
        raise fail(f"unknown dealer action {text!r} (expected 'd dh pN CARDS' or 'd db CARDS')")
    player = player_of(actor)
    if verb in ("pb", "cc", "f") and not args:
        return PhhAction(number, text, actor, verb, player, commentary=commentary)
    if verb == "cbr" and len(args) == 1:
        try:
            amount = _parse_amount(args[0])
        except ValueError as exc:
            raise fail(f"bad amount in {text!r}: {exc}") from None
        return PhhAction(number, text, actor, verb, player, (), amount, commentary)
    if verb == "sm" and len(args) <= 1:
        dash = bool(args) and args[0] == "-"
        cards = cards_of(args[0]) if args and not dash else ()
        return PhhAction(number, text, actor, verb, player, cards, None, commentary, shows_dealt=dash)
    if verb == "sd":
        raise fail(f"{text!r}: standing pat or discarding is not part of the stud and Omaha games")
    raise fail(f"unknown action {text!r}")


def _parse_amount(text: str) -> int:
    try:
        number = float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    return _whole(number, text)


def _whole(number: Any, what: str) -> int:
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise ValueError(f"{what} must be a number, not {number!r}")
    if isinstance(number, float):
        if not number.is_integer():
            raise ValueError(f"{what} = {number!r}: amounts must be whole units (write cents, not dollars)")
        number = int(number)
    if number < 0:
        raise ValueError(f"{what} = {number!r} is negative")
    return int(number)


def _hand_from_table(raw: Mapping[str, Any], source: str) -> PhhHand:
    def fail(reason: str) -> PhhError:
        return PhhError(reason, file=source)

    data = dict(raw)
    variant = data.pop("variant", None)
    if not isinstance(variant, str):
        raise fail("the 'variant' field is missing")
    if variant not in _REQUIRED:
        known = ", ".join(sorted(_REQUIRED))
        raise fail(f"unknown variant {variant!r} (studpoker plays {known})")
    for name in _REQUIRED[variant]:
        if name != "variant" and name not in data:
            raise fail(f"the {name!r} field is missing (required for {variant})")

    def amounts(name: str) -> list[int]:
        items = data.pop(name)
        if not isinstance(items, list):
            raise fail(f"{name!r} must be an array of numbers, not {items!r}")
        try:
            return [_whole(x, f"{name}[{i + 1}]") for i, x in enumerate(items)]
        except ValueError as exc:
            raise fail(str(exc)) from None

    def amount(name: str) -> int | None:
        if name not in data:
            return None
        try:
            return _whole(data.pop(name), name)
        except ValueError as exc:
            raise fail(str(exc)) from None

    stacks = amounts("starting_stacks")
    antes = amounts("antes")
    blinds = amounts("blinds_or_straddles") if "blinds_or_straddles" in data else None
    finishing = amounts("finishing_stacks") if "finishing_stacks" in data else None
    actions = data.pop("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise fail("'actions' must be an array of strings")
    seats = data.pop("seats", None)
    if seats is not None and (
        not isinstance(seats, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats)
    ):
        raise fail(f"'seats' must be an array of integers, not {seats!r}")
    players = data.pop("players", None)
    if players is not None and (
        not isinstance(players, list) or not all(isinstance(p, str) for p in players)
    ):
        raise fail(f"'players' must be an array of strings, not {players!r}")
    trimming = data.pop("ante_trimming_status", None)
    if trimming is not None and not isinstance(trimming, bool):
        raise fail(f"'ante_trimming_status' must be true or false, not {trimming!r}")
    hand = PhhHand(
        variant=variant,
        antes=antes,
        starting_stacks=stacks,
        actions=list(actions),
        bring_in=amount("bring_in"),
        small_bet=amount("small_bet"),
        big_bet=amount("big_bet"),
        blinds_or_straddles=blinds,
        ante_trimming_status=trimming,
        finishing_stacks=finishing,
        seats=seats,
        players=players,
        extra=data,
        source=source,
    )
    n = len(stacks)
    if n < 2:
        raise fail(f"a hand needs at least 2 players, 'starting_stacks' has {n}")
    for name, items in (
        ("antes", antes),
        ("blinds_or_straddles", blinds),
        ("finishing_stacks", finishing),
        ("seats", seats),
        ("players", players),
    ):
        if items is not None and len(items) != n:
            raise fail(f"{name!r} has {len(items)} entries for {n} players")
    if 0 in stacks:
        raise fail(f"starting stack of p{stacks.index(0) + 1} is 0: every player needs chips")
    return hand


def loads(text: str, *, source: str = "<phh>") -> list[PhhHand]:
    """Hands from PHH or PHHS text (a ``.phhs`` holds one table per hand: ``[1]``, ``[2]``...)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not a valid TOML file: {exc}", file=source) from None
    if "variant" in document or not document:
        return [_hand_from_table(document, source)]
    hands: list[PhhHand] = []
    for name, section in document.items():
        if not isinstance(section, dict):
            raise PhhError(f"{name!r} is neither a PHH field nor a [section] of a .phhs file", file=source)
        hands.append(_hand_from_table(section, f"{source} [{name}]"))
    return hands


def load_hands(path_or_text: str | Path) -> list[PhhHand]:
    """Read the hands of a ``.phh``/``.phhs`` file, given its path or its text."""
    if isinstance(path_or_text, Path) or ("\n" not in path_or_text and "=" not in path_or_text):
        path = Path(path_or_text)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PhhError(f"cannot read the file: {exc}", file=str(path)) from None
        return loads(text, source=str(path))
    return loads(path_or_text)


def dumps_all(hands: Iterable[PhhHand]) -> str:
    """Several hands as one ``.phhs`` text."""
    return "\n".join(f"[{i}]\n{hand.dumps()}" for i, hand in enumerate(hands, 1))


# ----------------------------------------------------------------------------------------------
# Replaying


def _seat_numbers(phh: PhhHand, *, stud: bool) -> list[int]:
    """The table seat of each PHH player, checked against the player order of the variant."""
    n = phh.player_count
    seats = list(phh.seats) if phh.seats is not None else list(range(1, n + 1))
    if len(set(seats)) != n or min(seats) < 1:
        raise PhhError(f"'seats' must be {n} distinct seat numbers from 1, not {seats}", file=phh.source)
    ordered = sorted(seats)
    if stud:
        if seats != ordered:
            raise PhhError(
                f"'seats' {seats} must be increasing: p1, p2, ... are in seat order", file=phh.source
            )
    else:
        button = seats[-1]
        start = ordered.index(button) + 1
        expected = ordered[start:] + ordered[:start]
        if seats != expected:
            raise PhhError(
                f"'seats' {seats} must go clockwise from the seat left of the button (the last player)",
                file=phh.source,
            )
    return seats


def deck_order(phh: PhhHand, actions: Sequence[PhhAction], *, burn_cards: bool = False) -> list[Card]:
    """The cards of the file in the order the engine deals them (the top of a stacked deck),
    with stand-ins for unknown cards: see :func:`studpoker.history.phh_deal.plan_deal`."""
    from studpoker.history.phh_deal import plan_deal

    return plan_deal(phh, actions, house=HouseRules(burn_cards=burn_cards)).order


def _usual_blinds(blinds: Sequence[int]) -> bool:
    """``[small, big, 0, ...]`` with both blinds posted: the table's usual blinds."""
    return len(blinds) >= 2 and 0 < blinds[0] <= blinds[1] and not any(blinds[2:])


def stakes_of(phh: PhhHand) -> Stakes:
    """The engine stakes of a PHH hand. Antes that differ between players and blinds other
    than ``[small, big, 0, ...]`` are posted seat by seat (:func:`forced_bets_of`): the stakes
    then carry no ante, and as big blind the largest blind."""
    fail = partial(PhhError, file=phh.source)
    antes = set(phh.antes)
    ante = antes.pop() if len(antes) == 1 else 0
    if phh.small_bet is None or phh.big_bet is None:
        raise fail("'small_bet' and 'big_bet' are required")
    try:
        if phh.variant in STUD_VARIANTS:
            if phh.bring_in is None:
                raise fail("'bring_in' is required in stud")
            if phh.blinds_or_straddles and any(phh.blinds_or_straddles):
                raise fail("stud has a bring-in, not blinds: 'blinds_or_straddles' must be empty or zero")
            return Stakes(ante=ante, bring_in=phh.bring_in, small_bet=phh.small_bet, big_bet=phh.big_bet)
        blinds = phh.blinds_or_straddles or []
        if len(blinds) != phh.player_count:
            raise fail(f"blinds_or_straddles {blinds} must give one blind (or 0) for each of the players")
        if any(b > phh.small_bet for b in blinds):
            raise fail(
                f"blinds_or_straddles {blinds}: a blind above the small bet {phh.small_bet} is a straddle, "
                "which fixed-limit Omaha Hi/Lo does not play here"
            )
        if phh.bring_in:
            raise fail("Omaha has blinds, not a bring-in")
        usual = _usual_blinds(blinds)
        return Stakes(
            ante=ante,
            small_bet=phh.small_bet,
            big_bet=phh.big_bet,
            small_blind=blinds[0] if usual else 0,
            big_blind=blinds[1] if usual else max(blinds),
        )
    except ValueError as exc:
        if isinstance(exc, PhhError):
            raise
        raise fail(f"stakes cannot be played: {exc}") from None


def forced_bets_of(phh: PhhHand, seats: Sequence[int]) -> ForcedBets | None:
    """Per-seat antes and blinds of a PHH hand whose forced bets are not the table's usual ones
    (None when they are). ``seats`` are the players' table seats in PHH order; heads-up, PHH
    assigns the antes and blinds in reverse (p1 posts the second entry), as PokerKit does."""

    def per_seat(values: Sequence[int]) -> dict[int, int]:
        ordered = list(values)[::-1] if len(seats) == 2 else list(values)
        return {seat: amount for seat, amount in zip(seats, ordered, strict=True) if amount}

    antes = per_seat(phh.antes) if len(set(phh.antes)) > 1 else None
    blinds = None
    if phh.variant not in STUD_VARIANTS and not _usual_blinds(phh.blinds_or_straddles or []):
        blinds = per_seat(phh.blinds_or_straddles or [])
    if antes is None and blinds is None:
        return None
    return ForcedBets(antes=antes, blinds=blinds)


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


def _engine_action(act: PhhAction, legal: LegalActions) -> Action | None:
    """The engine action for a PHH player action, or None when it is not legal."""
    option: LegalOption | None = None
    if act.verb == "pb":
        option = legal.find(ActionKind.BRING_IN)
    elif act.verb == "f":
        option = legal.find(ActionKind.FOLD)
    elif act.verb == "cc":
        option = legal.find(ActionKind.CHECK) or legal.find(ActionKind.CALL)
    elif act.verb == "cbr":
        for kind in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
            option = legal.find(kind, act.amount)
            if option is not None:
                break
        else:
            # PokerKit lets a bring-in player who has no more than the bring-in "complete" all-in
            # for those chips: here that is the all-in bring-in.
            bring_in = legal.find(ActionKind.BRING_IN, act.amount)
            if bring_in is not None and bring_in.all_in:
                option = bring_in
    return None if option is None else option.action


def replay(phh: PhhHand, *, house: HouseRules | None = None, check_finishing_stacks: bool = True) -> Hand:
    """Play the hand of a PHH file through the engine and return the finished :class:`Hand`.

    ``house`` sets the house rules (default: the game's defaults; ``HouseRules.pokerkit_compat``
    for hands played by PokerKit's rules). Unknown cards (``??``) are filled in from the
    player's later ``sm`` or dealt as stand-ins (:mod:`studpoker.history.phh_deal`), which the
    returned hand has forgotten (its events and views carry None for them); a hand the file
    mucks with unknown cards is mucked unseen at the showdown. Raises :class:`PhhError` for any
    illegal or inconsistent input, a showdown that needs an unknown card included: the file,
    the action number and the reason.
    """
    from studpoker.engine import Hand
    from studpoker.history.phh_deal import plan_deal

    game = get_game(phh.game_code)
    stud = game.is_stud
    source = phh.source
    actions = phh.parsed_actions()
    seats = _seat_numbers(phh, stud=stud)
    stakes = stakes_of(phh)
    rules = game.default_house if house is None else house
    n = phh.player_count
    if phh.ante_trimming_status is False and any(
        s < a for s, a in zip(phh.starting_stacks, phh.antes, strict=True)
    ):
        raise PhhError(
            "ante_trimming_status = false with a stack below the ante: studpoker always trims "
            "(a short ante puts the player all-in for what he has)",
            file=source,
        )
    for act in actions:
        if act.player is not None and act.player >= n:
            raise PhhError(f"{act.text!r}: there are only {n} players", file=source, action=act.number)
    plan = plan_deal(phh, actions, house=rules)
    stand_ins = plan.stand_ins
    mucked = {act.player for act in actions if act.mucks}
    conceding = [seats[player] for player in plan.unknown if player in mucked]
    deck = Deck.stacked(plan.order, random.Random(0), salt="phh")
    try:
        hand = Hand(
            game,
            stakes,
            seats=sorted(zip(seats, phh.starting_stacks, strict=True)),
            deck=deck,
            house=rules,
            button=None if stud else seats[-1],
            forced=forced_bets_of(phh, seats),
            concede=conceding,
        )
    except ValueError as exc:
        raise PhhError(f"the hand cannot start: {exc}", file=source) from None

    def label(seat: int | None) -> str:
        return "nobody" if seat is None else f"p{seats.index(seat) + 1} (seat {seat})"

    given = [0] * n  # how many of each player's cards the file has dealt so far
    board: list[Card] = []
    last_played: PhhAction | None = None  # the last player action applied
    idle_check_seen = False
    for act in actions:
        fail = partial(PhhError, file=source, action=act.number)
        if not act.verb:
            protected = _PROTECTED.match(act.commentary or "")
            if protected is not None:  # our own notation for a protected all-in (no PHH verb)
                player = int(protected.group(1)) - 1
                seat = seats[player] if player < n else -1
                if hand.is_over or hand.to_act != seat:
                    raise fail(f"{act.text!r}: {label(hand.to_act)} is to act")
                if not any(e.detail == "protected_all_in" for e in hand.timeout(seat)):
                    raise fail(f"{act.text!r}: p{player + 1} cannot be protected all-in now")
            continue
        if act.verb == "dh":
            assert act.player is not None
            seat = seats[act.player]
            given[act.player] += len(act.cards)
            dealt = _engine_cards(hand, seat)
            if dealt[: given[act.player]] != plan.hole[act.player][: given[act.player]]:
                shown = format_cards([c for c in dealt if c not in stand_ins], " ")
                raise fail(
                    f"{act.text!r} does not match the deal: {label(seat)} has been dealt "
                    f"{shown or 'nothing'} by now"
                )
            continue
        if act.verb == "db":
            board.extend(c for c in act.cards if c is not None)
            dealt = _engine_board(hand)
            if dealt[: len(board)] != board:
                shown = format_cards(dealt, " ") or "empty"
                raise fail(f"{act.text!r} does not match the deal: the board is {shown} by now")
            continue
        assert act.player is not None
        seat = seats[act.player]
        if act.verb == "sm":
            own = set(_engine_cards(hand, seat)) | set(_engine_board(hand))
            wrong = [c for c in act.cards if c is not None and c not in own]
            if wrong:
                raise fail(f"{act.text!r}: {label(seat)} does not hold {format_cards(wrong, ' ')}")
            continue
        if (
            act.verb == "cc"
            and hand.to_act != seat
            and not idle_check_seen
            and _only_one_with_chips(hand, seat)
        ):
            # PokerKit asks the last player with chips to check when the others went all-in during
            # the round without betting more than him; here betting is over (no decision).
            idle_check_seen = True
            continue
        if hand.is_over:
            raise fail(f"{act.text!r}: the hand is already over")
        if hand.to_act != seat:
            raise fail(f"{act.text!r} is out of turn: {label(hand.to_act)} is to act")
        legal = hand.legal_actions()
        action = _engine_action(act, legal)
        if action is None:
            raise fail(f"{act.text!r} is not legal now; {label(seat)} may: {_describe(legal.options)}")
        try:
            hand.apply(seat, action)
        except IllegalActionError as exc:
            raise fail(f"{act.text!r} is not legal: {exc}") from None
        last_played = act
    if not hand.is_over:
        raise PhhError(
            f"the actions end before the hand is over ({label(hand.to_act)} is to act)",
            file=source,
        )
    for index, seat in enumerate(seats):
        dealt = _engine_cards(hand, seat)
        if dealt != plan.hole[index][: given[index]]:
            wanted = [c for c in plan.hole[index][: given[index]] if c not in stand_ins]
            raise PhhError(
                f"the file deals p{index + 1} {format_cards(wanted, ' ') or 'nothing'} but the hand "
                f"deals {format_cards([c for c in dealt if c not in stand_ins], ' ')}: "
                "a deal is missing or extra",
                file=source,
            )
    if _engine_board(hand) != board:
        raise PhhError(
            f"the file's board {format_cards(board, ' ') or '(none)'} is not the hand's "
            f"{format_cards(_engine_board(hand), ' ') or '(none)'}",
            file=source,
        )
    _check_unknown_hands_not_needed(
        hand,
        phh,
        actions=actions,
        seats=seats,
        unknown=plan.unknown,
        conceding=set(conceding),
        last_played=last_played,
    )
    hand.forget_cards(stand_ins)
    if check_finishing_stacks and phh.finishing_stacks is not None:
        final = finishing_stacks(hand, seats)
        if final != phh.finishing_stacks:
            raise PhhError(
                f"finishing_stacks {phh.finishing_stacks} differ from the replay's {final}",
                file=source,
            )
    return hand


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


def finishing_stacks(hand: Hand, seats: Sequence[int]) -> list[int]:
    """The stacks at the end of a finished hand, in the order of ``seats``."""
    result = hand.result
    assert result is not None
    stacks = dict(result.final_stacks)
    return [stacks[seat] for seat in seats]


# ----------------------------------------------------------------------------------------------
# Writing


def player_order(hand: Hand) -> list[int]:
    """The table seats in PHH player order (p1 first): seat order in stud; in Omaha from the
    seat left of the button round to the button (heads-up: the big blind, then the button)."""
    seats = list(hand.seat_numbers)
    if hand.game.is_stud or hand.button is None:
        return seats
    b = seats.index(hand.button)
    return seats[b + 1 :] + seats[: b + 1]


EVERY_CARD: Literal["all"] = "all"  # hand_to_phh(seen_by=...): the complete record


def _cards_text(cards: Iterable[Card | None]) -> str:
    """Cards written together, ``??`` for one the reader does not know."""
    return "".join("??" if card is None else str(card) for card in cards)


_ACTION_NOTATION = {
    ActionKind.FOLD: "f",
    ActionKind.CHECK: "cc",
    ActionKind.CALL: "cc",
    ActionKind.BRING_IN: "pb",
}


def hand_to_phh(
    hand: Hand,
    *,
    players: Mapping[int, str] | None = None,
    hand_id: str | int | None = None,
    table: str | int | None = None,
    time: datetime.datetime | None = None,
    event: str | None = None,
    currency: str | None = None,
    seen_by: int | Literal["all"] | None = EVERY_CARD,
) -> PhhHand:
    """The PHH record of a finished engine hand (``players`` maps seat numbers to names).

    ``seen_by`` chooses whose history it is: ``"all"`` (:data:`EVERY_CARD`, the default) writes
    every card; a seat number writes the hand as that player saw it and ``None`` as a spectator
    did: the down cards the reader never saw (other players' cards unless shown at the
    showdown or turned up for an all-in run-out) are written ``??``. Such a file still replays
    to the same stacks: every hand the showdown needs is shown in it.

    Deals are written one ``d dh`` per player and street (cards in dealing order), the showdown
    as ``sm`` (shown cards) or a bare ``sm`` (mucked); hands turned up for an all-in run-out are
    written as ``sm`` before the run-out and, when the run-out gave them more cards (stud), again
    at the showdown, as PokerKit does. A timeout that makes a player all-in (disconnect
    protection) has no PHH notation: it is written as the commentary
    ``# pN timed out: all-in under disconnect protection``, which :func:`replay` understands
    (other PHH readers do not).
    """
    if not hand.is_over:
        raise ValueError("only a finished hand can be written as PHH")
    game = hand.game
    stakes = hand.stakes
    order = player_order(hand)
    n = len(order)
    label = {seat: f"p{i + 1}" for i, seat in enumerate(order)}
    actions: list[str] = []
    dealt: dict[int, list[Card | None]] = {seat: [] for seat in order}  # None: not seen (??)
    run: dict[int, list[Card | None]] = {}
    exposed: dict[int, int] = {}  # seat -> how many cards he had when turned up
    down_at: dict[int, list[int]] = {seat: [] for seat in order}  # positions of his down cards
    events = hand.events if seen_by == EVERY_CARD else hand.events_for(seen_by)

    def flush() -> None:
        for seat in order:
            cards = run.get(seat)
            if cards:
                actions.append(f"d dh {label[seat]} {_cards_text(cards)}")
        run.clear()

    for ev in events:
        kind = ev.kind
        if kind is EventKind.DEAL:
            assert ev.seat is not None and ev.cards
            run.setdefault(ev.seat, []).append(ev.cards[0])
            if ev.detail == "down":
                down_at[ev.seat].append(len(dealt[ev.seat]))
            dealt[ev.seat].append(ev.cards[0])
            continue
        if run:
            flush()
        if kind is EventKind.DEAL_BOARD:
            cards = [c for c in ev.cards or () if c is not None]
            actions.append(f"d db {format_cards(cards)}")
        elif kind is EventKind.ACTION:
            assert ev.seat is not None and ev.action is not None
            notation = _ACTION_NOTATION.get(ev.action)
            if notation is None:
                notation = f"cbr {ev.amount}"
            actions.append(f"{label[ev.seat]} {notation}")
        elif kind is EventKind.TIMEOUT and ev.detail == "protected_all_in":
            assert ev.seat is not None
            actions.append(f"# {label[ev.seat]} {_PROTECTED_TEXT}")
        elif kind is EventKind.EXPOSE:
            assert ev.seat is not None
            held = dealt[ev.seat]
            # His down cards, turned up in dealing order, are public now (also in a reader's history).
            for position, card in zip(down_at[ev.seat], ev.cards or (), strict=False):
                held[position] = card
            exposed[ev.seat] = len(held)
            actions.append(f"{label[ev.seat]} sm {_cards_text(held)}")
        elif kind is EventKind.SHOW:
            assert ev.seat is not None
            shown = [c for c in ev.cards or () if c not in hand.board]
            if exposed.get(ev.seat) != len(dealt[ev.seat]):  # not already shown as they are
                actions.append(f"{label[ev.seat]} sm {_cards_text(shown)}")
        elif kind is EventKind.MUCK:
            assert ev.seat is not None
            actions.append(f"{label[ev.seat]} sm")
    flush()

    result = hand.result
    forced = hand.forced

    def per_player(amounts: Mapping[int, int]) -> list[int]:
        values = [amounts.get(seat, 0) for seat in order]
        return values[::-1] if n == 2 else values  # PHH assigns forced bets in reverse heads-up

    phh = PhhHand(
        variant=VARIANT_OF_GAME[game.code],
        antes=[stakes.ante] * n if forced is None or forced.antes is None else per_player(forced.antes),
        starting_stacks=[hand.initial_stacks[seat] for seat in order],
        actions=actions,
        ante_trimming_status=True,
        finishing_stacks=[result.final_stacks[seat] for seat in order],
        seats=order,
    )
    if game.is_stud:
        phh.bring_in, phh.small_bet, phh.big_bet = stakes.bring_in, stakes.small_bet, stakes.big_bet
    else:
        if forced is None or forced.blinds is None:
            phh.blinds_or_straddles = [stakes.small_blind, stakes.big_blind] + [0] * (n - 2)
        else:
            phh.blinds_or_straddles = per_player(forced.blinds)
        phh.small_bet, phh.big_bet = stakes.small_bet, stakes.big_bet
    if players:
        phh.players = [players.get(seat, "") for seat in order]
    extra: dict[str, Any] = {}
    if event is not None:
        extra["event"] = event
    if time is not None:
        extra["time"] = time.time().replace(microsecond=0, tzinfo=None)
        extra["day"], extra["month"], extra["year"] = time.day, time.month, time.year
        if time.tzinfo is not None:
            extra["time_zone_abbreviation"] = time.tzname()
    if hand_id is not None:
        extra["hand"] = hand_id
    if table is not None:
        extra["table"] = table
    extra["seat_count"] = game.max_players
    if currency is not None:
        extra["currency"] = currency
    phh.extra = extra
    return phh


def dump_hand(hand: Hand, **metadata: Any) -> str:
    """The PHH text of a finished engine hand; ``metadata`` as for :func:`hand_to_phh`."""
    return hand_to_phh(hand, **metadata).dumps()
