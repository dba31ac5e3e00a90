"""The PHH records: :class:`PhhHand` (a file's fields), :class:`PhhAction` (one parsed entry of
``actions``), reading them from TOML (:func:`loads`, :func:`load_hands`, with every field
checked) and writing them back (:meth:`PhhHand.dumps`, :func:`dumps_all`)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studpoker.cards import Card, CardError
from studpoker.games import Game, UnknownGameError, game_of_phh_variant

from . import toml_out

# The fields this module reads (a game's PHH variant is on its record, studpoker.games); any
# other field is kept as it is and written back by dumps().
_REQUIRED_STUD = ("variant", "antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "actions")
_REQUIRED_BLINDS = (
    "variant", "antes", "blinds_or_straddles", "small_bet", "big_bet", "starting_stacks", "actions",
)  # fmt: skip
# The order dumps() writes the known fields in (others follow in their own order).
_FIELD_ORDER = (
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet",
    "big_bet", "starting_stacks", "actions", "author", "event", "url", "venue", "address", "city",
    "region", "postal_code", "country", "time", "time_zone", "time_zone_abbreviation", "day",
    "month", "year", "hand", "level", "seats", "seat_count", "table", "players",
    "finishing_stacks", "winnings", "currency", "currency_symbol", "time_limit", "time_banks",
)  # fmt: skip

# A protected all-in (the clock rule) has no PHH verb: studpoker writes it as this commentary
# (``# pN timed out: ...``), which the replay understands and other PHH readers skip.
PROTECTED_TEXT = "timed out: all-in under disconnect protection"
# The day's protected all-ins the table counted at a timeout (R-PROTECTED-ALL-INS-PER-DAY), after
# the protected all-in's commentary or a timed-out fold's: "(1 of 2 protected all-ins today)".
# A check, bring-in or fold the clock made has the bare ``# pN timed out`` before its action.
COUNTS_TEXT = " ({used} of {allowed} protected all-ins today)"
_COUNTS = r"(?: \(([0-9]+) of ([0-9]+) protected all-ins today\))?"
PROTECTED = re.compile(r"^p([1-9][0-9]*) " + re.escape(PROTECTED_TEXT) + _COUNTS + "$")
TIMED_OUT_TEXT = "timed out"
TIMED_OUT = re.compile(r"^p([1-9][0-9]*) " + TIMED_OUT_TEXT + _COUNTS + "$")
_PLAYER = re.compile(r"^p([1-9][0-9]*)$")


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
        return self.game.code

    @property
    def game(self) -> Game:
        """The game its variant names (:func:`studpoker.games.game_of_phh_variant`)."""
        try:
            return game_of_phh_variant(self.variant)
        except UnknownGameError as exc:
            raise PhhError(str(exc), file=self.source) from None

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
# Actions


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
    if not isinstance(text, str):
        raise PhhError(f"an action is a string, not {text!r}", file=file, action=number)
    body, sep, comment = text.partition("#")
    commentary = comment.strip() if sep else None
    words = body.split()
    if not words:
        return PhhAction(number, text, "", "", commentary=commentary)
    reader = _ActionReader(text, number, file, commentary)
    actor, verb, args = words[0], words[1] if len(words) > 1 else "", words[2:]
    if actor == "d":
        return reader.dealer(verb, args)
    return reader.player(actor, verb, args)


@dataclass(frozen=True, slots=True)
class _ActionReader:
    """The words of one action after its actor: one method for the dealer, one for a player."""

    text: str
    number: int
    file: str | None
    commentary: str | None

    def fail(self, reason: str) -> PhhError:
        return PhhError(reason, file=self.file, action=self.number)

    def player_of(self, word: str) -> int:
        match = _PLAYER.match(word)
        if match is None:
            raise self.fail(f"{word!r} is not a player (write p1, p2, ...) in {self.text!r}")
        return int(match.group(1)) - 1

    def cards_of(self, word: str) -> tuple[Card | None, ...]:
        try:
            cards = parse_cards_field(word)
        except CardError as exc:
            raise self.fail(f"bad card in {self.text!r}: {exc}") from None
        known = [c for c in cards if c is not None]
        if len(set(known)) != len(known):
            raise self.fail(f"a card appears twice in {self.text!r}")
        return cards

    def dealer(self, verb: str, args: list[str]) -> PhhAction:
        number, text, commentary = self.number, self.text, self.commentary
        if verb == "dh" and len(args) == 2:
            return PhhAction(
                number, text, "d", verb, self.player_of(args[0]), self.cards_of(args[1]), None, commentary
            )
        if verb == "db" and len(args) == 1:
            return PhhAction(number, text, "d", verb, None, self.cards_of(args[0]), None, commentary)
        raise self.fail(f"unknown dealer action {text!r} (expected 'd dh pN CARDS' or 'd db CARDS')")

    def player(self, actor: str, verb: str, args: list[str]) -> PhhAction:
        number, text, commentary = self.number, self.text, self.commentary
        player = self.player_of(actor)
        if verb in ("pb", "cc", "f") and not args:
            return PhhAction(number, text, actor, verb, player, commentary=commentary)
        if verb == "cbr" and len(args) == 1:
            try:
                amount = _parse_amount(args[0])
            except ValueError as exc:
                raise self.fail(f"bad amount in {text!r}: {exc}") from None
            return PhhAction(number, text, actor, verb, player, (), amount, commentary)
        if verb == "sm" and len(args) <= 1:
            dash = bool(args) and args[0] == "-"
            cards = self.cards_of(args[0]) if args and not dash else ()
            return PhhAction(number, text, actor, verb, player, cards, None, commentary, shows_dealt=dash)
        if verb == "sd":
            raise self.fail(f"{text!r}: standing pat or discarding is not part of the stud and Omaha games")
        raise self.fail(f"unknown action {text!r}")


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


# ----------------------------------------------------------------------------------------------
# Reading a file's fields


class _Fields:
    """The raw fields of one hand, taken out one by one and checked (what is left is ``extra``)."""

    def __init__(self, raw: Mapping[str, Any], source: str) -> None:
        self.data = dict(raw)
        self.source = source

    def fail(self, reason: str) -> PhhError:
        return PhhError(reason, file=self.source)

    def amounts(self, name: str) -> list[int]:
        items = self.data.pop(name)
        if not isinstance(items, list):
            raise self.fail(f"{name!r} must be an array of numbers, not {items!r}")
        try:
            return [_whole(x, f"{name}[{i + 1}]") for i, x in enumerate(items)]
        except ValueError as exc:
            raise self.fail(str(exc)) from None

    def optional_amounts(self, name: str) -> list[int] | None:
        return self.amounts(name) if name in self.data else None

    def amount(self, name: str) -> int | None:
        if name not in self.data:
            return None
        try:
            return _whole(self.data.pop(name), name)
        except ValueError as exc:
            raise self.fail(str(exc)) from None

    def array_of(self, name: str, kind: type, what: str) -> list[Any] | None:
        """An optional array whose items are all ``kind`` (never a bool)."""
        items = self.data.pop(name, None)
        if items is not None and (
            not isinstance(items, list)
            or not all(isinstance(x, kind) and not isinstance(x, bool) for x in items)
        ):
            raise self.fail(f"{name!r} must be an array of {what}, not {items!r}")
        return items


def _hand_from_table(raw: Mapping[str, Any], source: str) -> PhhHand:
    fields = _Fields(raw, source)
    data = fields.data
    variant = data.pop("variant", None)
    if not isinstance(variant, str):
        raise fields.fail("the 'variant' field is missing")
    try:
        game = game_of_phh_variant(variant)
    except UnknownGameError as exc:
        raise fields.fail(str(exc)) from None
    for name in _REQUIRED_STUD if game.is_stud else _REQUIRED_BLINDS:
        if name != "variant" and name not in data:
            raise fields.fail(f"the {name!r} field is missing (required for {variant})")
    stacks = fields.amounts("starting_stacks")
    antes = fields.amounts("antes")
    blinds = fields.optional_amounts("blinds_or_straddles")
    finishing = fields.optional_amounts("finishing_stacks")
    actions = data.pop("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise fields.fail("'actions' must be an array of strings")
    seats = fields.array_of("seats", int, "integers")
    players = fields.array_of("players", str, "strings")
    trimming = data.pop("ante_trimming_status", None)
    if trimming is not None and not isinstance(trimming, bool):
        raise fields.fail(f"'ante_trimming_status' must be true or false, not {trimming!r}")
    hand = PhhHand(
        variant=variant,
        antes=antes,
        starting_stacks=stacks,
        actions=list(actions),
        bring_in=fields.amount("bring_in"),
        small_bet=fields.amount("small_bet"),
        big_bet=fields.amount("big_bet"),
        blinds_or_straddles=blinds,
        ante_trimming_status=trimming,
        finishing_stacks=finishing,
        seats=seats,
        players=players,
        extra=data,
        source=source,
    )
    _check_player_count(hand, fields)
    return hand


def _check_player_count(hand: PhhHand, fields: _Fields) -> None:
    """Every per-player field has one entry per player, and every player has chips."""
    stacks = hand.starting_stacks
    n = len(stacks)
    if n < 2:
        raise fields.fail(f"a hand needs at least 2 players, 'starting_stacks' has {n}")
    for name, items in (
        ("antes", hand.antes),
        ("blinds_or_straddles", hand.blinds_or_straddles),
        ("finishing_stacks", hand.finishing_stacks),
        ("seats", hand.seats),
        ("players", hand.players),
    ):
        if items is not None and len(items) != n:
            raise fields.fail(f"{name!r} has {len(items)} entries for {n} players")
    if 0 in stacks:
        raise fields.fail(f"starting stack of p{stacks.index(0) + 1} is 0: every player needs chips")


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
