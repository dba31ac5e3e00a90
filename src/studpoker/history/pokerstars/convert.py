"""The lines of a PokerStars hand turned into PHH actions, one handler per kind of line.

:class:`Converter` walks a :class:`ParsedHand`'s entries in order: street markers and ``Dealt
to`` lines become deals (written once every card of the hand is known, ``??`` for the cards the
file never gives at the deal), the players' actions ``pb``, ``f``, ``cc`` and ``cbr``, shows and
mucks ``sm``; the forced bets, the uncalled bet and the collections are kept with their lines for
:mod:`~studpoker.history.pokerstars.check` to hold against the replay. Every card the file gives
must agree with the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from studpoker.cards import Card
from studpoker.games import get_game
from studpoker.history.pokerstars.parsed import Entry, ParsedHand, PokerStarsError

# PHH has no notation for a protected all-in: studpoker writes this commentary (history.phh).
PHH_PROTECTED = "timed out: all-in under disconnect protection"
PHH_TIMED_OUT = "timed out"  # before the check, bring-in or fold the clock made (phh/model.py)

_STUD_ORDER = ("third", "fourth", "fifth", "sixth", "seventh")
_OMAHA_ORDER = ("preflop", "flop", "turn", "river")
_BOARD_CARDS = {"flop": 3, "turn": 1, "river": 1}


@dataclass(frozen=True, slots=True)
class Stated:
    """A player action as the file states it: ``added`` chips, or a raise ``to`` a round total."""

    line: int
    seat: int
    name: str
    verb: str  # bring_in | folds | checks | calls | bets | raises
    added: int | None
    to: int | None
    all_in: bool


@dataclass(slots=True)
class Deal:
    """The cards dealt on one street, written once every card of the hand is known."""

    street: str
    players: list[str]
    line: int


@dataclass(slots=True)
class Converter:
    hand: ParsedHand
    stud: bool
    order: list[str]  # player names in PHH order
    seat_of: dict[str, int]
    slots: dict[str, list[Card | None]] = field(default_factory=dict)  # every card the file gives
    at_deal: dict[str, list[Card | None]] = field(default_factory=dict)  # those given when dealt
    actions: list[str | Deal] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    stated: list[Stated] = field(default_factory=list)
    forced: dict[int, list[tuple[str, int, int]]] = field(default_factory=dict)
    put: dict[str, int] = field(default_factory=dict)
    round_bet: dict[str, int] = field(default_factory=dict)
    folded: set[str] = field(default_factory=set)
    collected: dict[str, int] = field(default_factory=dict)
    collected_line: dict[str, int] = field(default_factory=dict)
    uncalled: tuple[str, int, int] | None = None
    street: str | None = None
    dealt_on: dict[str, str] = field(default_factory=dict)  # who was dealt on the current street
    holding: dict[str, int] = field(default_factory=dict)  # how many cards of his own each holds
    community: list[Card] = field(default_factory=list)
    board: list[Card] = field(default_factory=list)

    def hole_cards(self) -> int:
        """The board game's hole cards (Omaha 4, hold'em 2)."""
        return get_game(self.hand.game).hole_cards

    def fail(self, line: int, reason: str) -> PokerStarsError:
        return self.hand.error(reason, line)

    def label(self, name: str) -> str:
        return f"p{self.order.index(name) + 1}"

    def emit(self, action: str | Deal, line: int) -> None:
        self.actions.append(action)
        self.lines.append(line)

    def entry(self, e: Entry) -> None:
        """One line of the hand; the showdown marker writes nothing, a timeout (its action follows
        on its own line) the bare ``# pN timed out`` the PHH replay makes that action with."""
        handler = _HANDLERS.get(e.kind)
        if handler is not None:
            handler(self, e)

    # ------------------------------------------------------------------ cards
    def place(self, name: str, index: int, card: Card, line: int, *, dealt: bool = False) -> None:
        """Card ``index`` of ``name`` is ``card``; ``dealt``: the file gives it as it is dealt."""
        slots = self.slots[name]
        if index >= len(slots):
            raise self.fail(line, f"{name} is given more cards than the game deals")
        if slots[index] is not None and slots[index] != card:
            raise self.fail(
                line, f"{name}'s card {index + 1} is {slots[index]} earlier in the hand, not {card}"
            )
        slots[index] = card
        if dealt:
            self.at_deal[name][index] = card

    def dealt(self, e: Entry) -> None:
        name = e.player
        assert name is not None
        if name not in self.seat_of or name in self.folded or self.dealt_on.get(name) != self.street:
            raise self.fail(e.line, f"{name} is not dealt cards on this street")
        if not self.stud:
            self._dealt_omaha(name, e)
        elif self.street == "third":
            self._dealt_third_street(name, e)
        else:
            self._dealt_stud_street(name, e)

    def _dealt_omaha(self, name: str, e: Entry) -> None:
        game = get_game(self.hand.game)
        if self.street != "preflop" or len(e.cards) != game.hole_cards or e.old is not None:
            raise self.fail(
                e.line,
                f"{game.short_name} deals {game.hole_cards} hole cards, once, after '*** HOLE CARDS ***'",
            )
        for i, card in enumerate(e.cards):
            self.place(name, i, card, e.line, dealt=True)

    def _dealt_third_street(self, name: str, e: Entry) -> None:
        if e.old is not None or len(e.cards) not in (1, 3):
            raise self.fail(e.line, "3rd street deals three cards (the up card alone for an opponent)")
        start = 3 - len(e.cards)
        for i, card in enumerate(e.cards):
            self.place(name, start + i, card, e.line, dealt=True)

    def _dealt_stud_street(self, name: str, e: Entry) -> None:
        k = _STUD_ORDER.index(self.street or "third") + 2  # index of this street's card
        if len(e.cards) != 1:
            raise self.fail(e.line, "a stud street deals one card")
        self.place(name, k, e.cards[0], e.line, dealt=True)
        if e.old:
            ups = k - 2
            if len(e.old) == k:  # the player's own cards: all of them
                start = 0
            elif len(e.old) == ups:  # an opponent's up cards
                start = 2
            else:
                raise self.fail(e.line, f"the first bracket holds {len(e.old)} cards: expected {k} or {ups}")
            for i, card in enumerate(e.old):
                self.place(name, start + i, card, e.line)

    def shown(self, name: str, cards: Sequence[Card], line: int) -> None:
        own = [c for c in cards if c not in self.community]
        count = self.holding.get(name, 0)
        if len(own) != count:
            raise self.fail(line, f"{name} shows {len(own)} cards of his own, not the {count} he holds")
        for i, card in enumerate(own):
            self.place(name, i, card, line)

    def show(self, name: str, cards: Sequence[Card], line: int) -> None:
        """``name`` shows ``cards``: checked against his others, written as his ``sm``."""
        self.shown(name, cards, line)
        own = "".join(str(c) for c in cards if c not in self.community)
        self.emit(f"{self.label(name)} sm {own}", line)

    def show_line(self, e: Entry) -> None:
        assert e.player is not None
        self.show(e.player, e.cards, e.line)

    def muck(self, e: Entry) -> None:
        assert e.player is not None
        self.emit(f"{self.label(e.player)} sm", e.line)

    # ------------------------------------------------------------------ streets
    def street_starts(self, e: Entry) -> None:
        sequence = _STUD_ORDER if self.stud else _OMAHA_ORDER
        expected = sequence[0] if self.street is None else None
        if self.street is not None:
            position = sequence.index(self.street) + 1
            expected = sequence[position] if position < len(sequence) else None
        if e.street != expected:
            raise self.fail(e.line, f"'{e.street}' street comes out of order (expected {expected})")
        self.street = e.street
        if not (self.stud and e.street == "third") and e.street != "preflop":
            self.round_bet = dict.fromkeys(self.order, 0)
        live = [name for name in self.order if name not in self.folded]
        if self.stud and e.cards:  # the community card
            if e.street != "seventh" or len(e.cards) != 1:
                raise self.fail(e.line, "the stud community card is one card, on 7th street")
            self.community.extend(e.cards)
            self.emit(f"d db {e.cards[0]}", e.line)
            return
        if self.stud or e.street == "preflop":
            for name in live:
                self.dealt_on[name] = e.street or ""
                self.holding[name] = self.holding.get(name, 0) + (
                    1 if e.street not in ("third", "preflop") else 3 if self.stud else self.hole_cards()
                )
            self.emit(Deal(e.street or "", live, e.line), e.line)
            return
        street = e.street or ""
        if len(e.cards) != _BOARD_CARDS[street]:
            raise self.fail(e.line, f"the {street} brings {_BOARD_CARDS[street]} board card(s)")
        self.board.extend(e.cards)
        self.emit("d db " + "".join(str(c) for c in e.cards), e.line)

    # ------------------------------------------------------------------ money
    def add(self, name: str, amount: int) -> None:
        self.put[name] += amount

    def action(self, e: Entry) -> None:
        name = e.player
        assert name is not None and e.verb is not None
        if self.street is None:
            raise self.fail(e.line, f"{name} acts before the cards are dealt")
        if name in self.folded:
            raise self.fail(e.line, f"{name} acts after folding")
        p = self.label(name)
        verb = e.verb
        added: int | None = None
        to: int | None = None
        if verb == "folds":
            self.folded.add(name)
            self.emit(f"{p} f", e.line)
        elif verb == "checks":
            self.emit(f"{p} cc", e.line)
        elif verb == "calls":
            added = e.amount
            self.emit(f"{p} cc", e.line)
        elif verb == "bets":
            added = e.amount
            to = self.round_bet[name] + (added or 0)
            self.emit(f"{p} cbr {to}", e.line)
        else:  # raises X to Y: Y is the round total
            to = e.to
            assert to is not None
            added = to - self.round_bet[name]
            if added <= 0:
                raise self.fail(
                    e.line, f"{name} raises to {to}, no more than the {self.round_bet[name]} in already"
                )
            self.emit(f"{p} cbr {to}", e.line)
        if added:
            self.add(name, added)
            self.round_bet[name] += added
        self.stated.append(Stated(e.line, self.seat_of[name], name, verb, added, to, e.all_in))

    def forced_bet(self, e: Entry, kind: str) -> None:
        name = e.player
        assert name is not None and e.amount is not None
        if name not in self.seat_of:
            raise self.fail(e.line, f"{name} posts but is not in the hand")
        self.forced.setdefault(self.seat_of[name], []).append((kind, e.amount, e.line))
        self.add(name, e.amount)
        if kind != "ante":
            self.round_bet[name] = e.amount

    def ante(self, e: Entry) -> None:
        self.forced_bet(e, "ante")

    def blind(self, e: Entry) -> None:
        if self.stud:
            raise self.fail(e.line, "stud has a bring-in, not blinds")
        self.forced_bet(e, e.verb or "")

    def bring_in(self, e: Entry) -> None:
        name = e.player
        assert name is not None and e.amount is not None
        if not self.stud or self.street != "third":
            raise self.fail(e.line, "the bring-in is posted on 3rd street of a stud game")
        self.add(name, e.amount)
        self.round_bet[name] = e.amount
        self.emit(f"{self.label(name)} pb", e.line)
        self.stated.append(Stated(e.line, self.seat_of[name], name, "bring_in", e.amount, None, e.all_in))

    def timeout(self, e: Entry) -> None:
        assert e.player is not None
        self.emit(f"# {self.label(e.player)} {PHH_TIMED_OUT}", e.line)

    def protected(self, e: Entry) -> None:
        assert e.player is not None
        self.emit(f"# {self.label(e.player)} {PHH_PROTECTED}", e.line)

    def uncalled_bet(self, e: Entry) -> None:
        assert e.player is not None and e.amount is not None
        if self.uncalled is not None:
            raise self.fail(e.line, "a second uncalled bet: only one bet can go uncalled")
        if e.amount > self.put[e.player]:
            raise self.fail(e.line, f"{e.player} gets back {e.amount}, more than he put in")
        self.uncalled = (e.player, e.amount, e.line)
        self.add(e.player, -e.amount)

    def collect(self, e: Entry) -> None:
        assert e.player is not None and e.amount is not None
        self.collected[e.player] = self.collected.get(e.player, 0) + e.amount
        self.collected_line.setdefault(e.player, e.line)

    # ------------------------------------------------------------------ the PHH text
    def render(self, action: str | Deal) -> str | list[str]:
        if isinstance(action, str):
            return action
        if action.street == "preflop":
            indices = range(self.hole_cards())
        elif action.street == "third":
            indices = range(3)
        else:
            indices = range(_STUD_ORDER.index(action.street) + 2, _STUD_ORDER.index(action.street) + 3)
        out = []
        for name in action.players:
            cards = self.at_deal[name]
            text = "".join("??" if cards[i] is None else str(cards[i]) for i in indices)
            out.append(f"d dh {self.label(name)} {text}")
        return out


# The handler of each kind of line (Entry.kind).
_HANDLERS: dict[str, Callable[[Converter, Entry], None]] = {
    "street": Converter.street_starts,
    "dealt": Converter.dealt,
    "ante": Converter.ante,
    "blind": Converter.blind,
    "bring_in": Converter.bring_in,
    "action": Converter.action,
    "timeout": Converter.timeout,
    "protected": Converter.protected,
    "uncalled": Converter.uncalled_bet,
    "collected": Converter.collect,
    "show": Converter.show_line,
    "muck": Converter.muck,
}
