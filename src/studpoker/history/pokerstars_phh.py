"""A PokerStars hand (as :mod:`~studpoker.history.pokerstars_import` reads it) as a PHH record.

The players are the seats that take part (a seated player with no line at all sat out); the
stakes come from the header and the forced bets. A deal writes the cards the file gives on that
street's ``Dealt to`` lines and ``??`` for the others; a card the reader saw only later (turned up
for an all-in run-out, shown at the showdown) stays ``??`` in the deal and is written where it is
shown (``sm``), the convention of a seat's copy (``hand_to_phh(hand, seen_by=SEAT)``) and of
PokerKit's WSOP files. Every card the file gives must agree with the others.
The amounts the file states are kept beside the record, with the line each came from, so that
:mod:`~studpoker.history.pokerstars_check` can hold them against the replay.

What the text does not say is filled in by the rule book (docs/rules.md): a bring-in that was never
posted (the low card completed) is half the small bet (below his completion, when he completed
all-in for less than the small bet); an Omaha blind posted short is the table's blind (half the
small bet, the small bet).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from studpoker.cards import Card
from studpoker.games import get_game
from studpoker.history.phh import VARIANT_OF_GAME, PhhHand
from studpoker.history.pokerstars_import import Entry, ParsedHand, PokerStarsError

# PHH has no notation for a protected all-in: studpoker writes this commentary (history.phh).
PHH_PROTECTED = "timed out: all-in under disconnect protection"

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
class ImportedHand:
    """The PHH record of a PokerStars hand, and what the file states, line by line."""

    parsed: ParsedHand
    phh: PhhHand
    action_lines: list[int]  # the file line of each PHH action
    stated: list[Stated]
    forced: dict[int, list[tuple[str, int, int]]]  # seat -> (ante | small | big, amount, line)
    uncalled: tuple[int, int, int] | None  # (seat, amount, line)
    collected: dict[int, int]  # seat -> chips collected (net of rake)
    collected_line: dict[int, int]
    seats: list[int]  # table seats in PHH player order
    rake: int = 0

    def line_of(self, action: int | None) -> int:
        """The file line of a PHH action number (1-based), or the hand's first line."""
        if action is not None and 1 <= action <= len(self.action_lines):
            return self.action_lines[action - 1]
        return self.parsed.first_line


@dataclass(slots=True)
class _Deal:
    """The cards dealt on one street, written once every card of the hand is known."""

    street: str
    players: list[str]
    line: int


@dataclass(slots=True)
class _Converter:
    hand: ParsedHand
    stud: bool
    order: list[str]  # player names in PHH order
    seat_of: dict[str, int]
    slots: dict[str, list[Card | None]] = field(default_factory=dict)  # every card the file gives
    at_deal: dict[str, list[Card | None]] = field(default_factory=dict)  # those given when dealt
    actions: list[str | _Deal] = field(default_factory=list)
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

    def fail(self, line: int, reason: str) -> PokerStarsError:
        return self.hand.error(reason, line)

    def label(self, name: str) -> str:
        return f"p{self.order.index(name) + 1}"

    def emit(self, action: str | _Deal, line: int) -> None:
        self.actions.append(action)
        self.lines.append(line)

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
            if self.street != "preflop" or len(e.cards) != 4 or e.old is not None:
                raise self.fail(e.line, "Omaha deals four hole cards, once, after '*** HOLE CARDS ***'")
            for i, card in enumerate(e.cards):
                self.place(name, i, card, e.line, dealt=True)
            return
        k = _STUD_ORDER.index(self.street or "third") + 2  # index of this street's card
        if self.street == "third":
            if e.old is not None or len(e.cards) not in (1, 3):
                raise self.fail(e.line, "3rd street deals three cards (the up card alone for an opponent)")
            start = 3 - len(e.cards)
            for i, card in enumerate(e.cards):
                self.place(name, start + i, card, e.line, dealt=True)
            return
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
                    1 if e.street not in ("third", "preflop") else 3 if self.stud else 4
                )
            self.emit(_Deal(e.street or "", live, e.line), e.line)
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

    def entry(self, e: Entry) -> None:
        kind = e.kind
        if kind == "street":
            self.street_starts(e)
        elif kind == "dealt":
            self.dealt(e)
        elif kind == "ante":
            self.forced_bet(e, "ante")
        elif kind == "blind":
            if self.stud:
                raise self.fail(e.line, "stud has a bring-in, not blinds")
            self.forced_bet(e, e.verb or "")
        elif kind == "bring_in":
            name = e.player
            assert name is not None and e.amount is not None
            if not self.stud or self.street != "third":
                raise self.fail(e.line, "the bring-in is posted on 3rd street of a stud game")
            self.add(name, e.amount)
            self.round_bet[name] = e.amount
            self.emit(f"{self.label(name)} pb", e.line)
            self.stated.append(Stated(e.line, self.seat_of[name], name, "bring_in", e.amount, None, e.all_in))
        elif kind == "action":
            self.action(e)
        elif kind == "protected":
            assert e.player is not None
            self.emit(f"# {self.label(e.player)} {PHH_PROTECTED}", e.line)
        elif kind == "uncalled":
            assert e.player is not None and e.amount is not None
            if self.uncalled is not None:
                raise self.fail(e.line, "a second uncalled bet: only one bet can go uncalled")
            if e.amount > self.put[e.player]:
                raise self.fail(e.line, f"{e.player} gets back {e.amount}, more than he put in")
            self.uncalled = (e.player, e.amount, e.line)
            self.add(e.player, -e.amount)
        elif kind == "collected":
            assert e.player is not None and e.amount is not None
            self.collected[e.player] = self.collected.get(e.player, 0) + e.amount
            self.collected_line.setdefault(e.player, e.line)
        elif kind == "show":
            assert e.player is not None
            self.show(e.player, e.cards, e.line)
        elif kind == "muck":
            assert e.player is not None
            self.emit(f"{self.label(e.player)} sm", e.line)
        # "timeout" (the action follows on its own line) and "showdown" write nothing.

    def render(self, action: str | _Deal) -> str | list[str]:
        if isinstance(action, str):
            return action
        if action.street == "preflop":
            indices = range(4)
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


def _players(hand: ParsedHand) -> list[str]:
    """The names of the players dealt in, in PHH order (stud: seat order; Omaha: left of the
    button round to the button)."""
    active = {e.player for e in hand.entries if e.player is not None}
    seats = sorted((s for s in hand.seats if s.name in active), key=lambda s: s.seat)
    if len(seats) < 2:
        raise hand.error("fewer than two players take part in the hand", hand.first_line)
    if hand.game != "O8":
        return [s.name for s in seats]
    if hand.button is None:
        raise hand.error("an Omaha hand needs 'Seat #N is the button' on the table line", hand.first_line + 1)
    numbers = [s.seat for s in seats]
    if hand.button not in numbers:
        raise hand.error(f"the button (seat {hand.button}) is not a player of the hand", hand.first_line + 1)
    start = numbers.index(hand.button) + 1
    ordered = seats[start:] + seats[:start]
    return [s.name for s in ordered]


def _stud_stakes(hand: ParsedHand, conv: _Converter) -> dict[str, int]:
    bring = next((e for e in hand.entries if e.kind == "bring_in"), None)
    derived = hand.small_bet // 2  # R-STAKES: half the small bet, when the text cannot tell
    if bring is None:
        bring_in = derived
        first = conv.stated[0] if conv.stated else None
        if (
            first is not None
            and first.verb == "bets"
            and first.all_in
            and (first.added or 0) < hand.small_bet
        ):
            # The low card completed all-in for less than the small bet: that is a completion only
            # above the bring-in, whose size the text never gives.
            bring_in = min(derived, (first.added or 0) - 1)
    elif not bring.all_in:
        bring_in = bring.amount or 0
    else:  # posted short: the others still enter for the full bring-in (R-PARTIAL-BRING-IN, §217)
        bring_in = max(derived, bring.amount or 0)
        for later in (s for s in conv.stated if s.line > bring.line):
            if later.verb in ("bets", "raises"):
                break
            if later.verb == "calls" and later.added and not later.all_in:  # a full call shows its size
                bring_in = later.added
                break
    if sum(1 for e in hand.entries if e.kind == "bring_in") > 1:
        second = [e for e in hand.entries if e.kind == "bring_in"][1]
        raise hand.error("a second bring-in", second.line)
    return {"bring_in": bring_in, "small_bet": hand.small_bet, "big_bet": hand.big_bet}


def _omaha_blinds(hand: ParsedHand, conv: _Converter) -> list[int]:
    posts = [(kind, amount, line, seat) for seat, bets in conv.forced.items() for kind, amount, line in bets]
    small = [p for p in posts if p[0] == "small"]
    big = [p for p in posts if p[0] == "big"]
    if len(small) != 1 or len(big) != 1:
        line = (small[1:] or big[1:] or [("", 0, hand.first_line, 0)])[0][2]
        raise hand.error(
            "an Omaha hand has one small blind and one big blind (dead blinds are not played)", line
        )
    order = [conv.seat_of[name] for name in conv.order]
    n = len(order)
    # Heads-up the button posts the small blind; otherwise the two players left of the button.
    want_small, want_big = (order[-1], order[0]) if n == 2 else (order[0], order[1])
    if small[0][3] != want_small or big[0][3] != want_big:
        raise hand.error(
            f"the blinds are posted by seats {small[0][3]} and {big[0][3]}, but the button "
            f"(seat {order[-1]}) puts them on seats {want_small} and {want_big}",
            small[0][2],
        )
    stacks = {s.seat: s.stack for s in hand.seats}

    def nominal(post: tuple[str, int, int, int], default: int) -> int:
        _, amount, _, seat = post
        return default if amount == stacks[seat] and amount < default else amount

    return [nominal(small[0], hand.small_bet // 2), nominal(big[0], hand.small_bet)]


def _ante(hand: ParsedHand, conv: _Converter) -> int:
    stacks = {s.seat: s.stack for s in hand.seats}
    antes = {seat: [b for b in bets if b[0] == "ante"] for seat, bets in conv.forced.items()}
    posted = [a for bets in antes.values() for a in bets]
    if not posted:
        return 0
    ante = max(a[1] for a in posted)
    for name in conv.order:
        seat = conv.seat_of[name]
        mine = antes.get(seat, [])
        if len(mine) != 1:
            line = mine[1][2] if mine else next(s.line for s in hand.seats if s.seat == seat)
            raise hand.error(f"{name} must post the ante once: everyone antes the same", line)
        if mine[0][1] < ante and mine[0][1] != stacks[seat]:
            raise hand.error(f"{name} posts an ante of {mine[0][1]}, the others {ante}", mine[0][2])
    return ante


def _metadata(hand: ParsedHand) -> dict[str, Any]:
    number = int(hand.number)
    extra: dict[str, Any] = {
        "venue": "PokerStars",
        "hand": number if number < 2**63 else hand.number,  # TOML integers are 64-bit
        "table": hand.table,
    }
    if hand.seat_count is not None:
        extra["seat_count"] = hand.seat_count
    if hand.time is not None:
        extra["time"] = datetime.time(hand.time.hour, hand.time.minute, hand.time.second)
        extra["day"], extra["month"], extra["year"] = hand.time.day, hand.time.month, hand.time.year
        if hand.time_zone:
            extra["time_zone_abbreviation"] = hand.time_zone
    if hand.money.iso:
        extra["currency"] = hand.money.iso
        extra["currency_symbol"] = hand.money.symbol
    if hand.tournament is not None:
        extra["event"] = hand.tournament
    if hand.level is not None:
        extra["level"] = hand.level
    return extra


def to_phh(hand: ParsedHand) -> ImportedHand:
    """The PHH record of a parsed PokerStars hand; raises :class:`PokerStarsError`."""
    game = get_game(hand.game)
    order = _players(hand)
    seat_of = {s.name: s.seat for s in hand.seats if s.name in order}
    size = 7 if game.is_stud else 4
    conv = _Converter(hand=hand, stud=game.is_stud, order=order, seat_of=seat_of)
    conv.slots = {name: [None] * size for name in order}
    conv.at_deal = {name: [None] * size for name in order}
    conv.put = dict.fromkeys(order, 0)
    conv.round_bet = dict.fromkeys(order, 0)
    for e in hand.entries:
        if e.player is not None and e.player not in seat_of:
            raise hand.error(f"{e.player} is not in the hand", e.line)
        conv.entry(e)
    if conv.street is None:
        raise hand.error("the hand deals no cards (no street marker)", hand.first_line)
    shown_down = {e.player for e in hand.entries if e.kind in ("show", "muck")}
    for name, summary in hand.summary_seats.items():
        if summary.cards and name in seat_of and len(summary.cards) > 1:
            if name in shown_down or summary.mucked:
                conv.shown(name, summary.cards, summary.line)
            else:  # shown in the summary only: his show is written there
                conv.show(name, summary.cards, summary.line)
    n = len(order)
    ante = _ante(hand, conv)  # the forced bets first: their errors point at their own lines
    stud_stakes = _stud_stakes(hand, conv) if game.is_stud else None
    blinds = None if game.is_stud else _omaha_blinds(hand, conv) + [0] * (n - 2)
    # Collections: the "collected" lines, else the summary's seat lines; both must agree.
    summary_won = {name: sum(s.won) for name, s in hand.summary_seats.items() if s.won}
    if not conv.collected:
        conv.collected = dict(summary_won)
        conv.collected_line = {name: hand.summary_seats[name].line for name in summary_won}
    for name, amount in summary_won.items():
        if conv.collected.get(name, 0) != amount:
            raise hand.error(
                f"the summary says {name} won {amount}, the collected lines {conv.collected.get(name, 0)}",
                hand.summary_seats[name].line,
            )
    total_put = sum(conv.put.values())
    summary_line = hand.summary_line or hand.first_line
    if hand.total_pot != total_put:
        raise hand.error(f"Total pot {hand.total_pot}, but the lines above put in {total_put}", summary_line)
    if sum(conv.collected.values()) + hand.rake != total_put:
        raise hand.error(
            f"the players collect {sum(conv.collected.values())} and the rake is {hand.rake}: "
            f"together not the pot of {total_put}",
            summary_line,
        )
    actions: list[str] = []
    lines: list[int] = []
    for action, line in zip(conv.actions, conv.lines, strict=True):
        rendered = conv.render(action)
        for text in [rendered] if isinstance(rendered, str) else rendered:
            actions.append(text)
            lines.append(line)
    stacks = {s.name: s.stack for s in hand.seats}
    phh = PhhHand(
        variant=VARIANT_OF_GAME[game.code],
        antes=[ante] * n,
        starting_stacks=[stacks[name] for name in order],
        actions=actions,
        ante_trimming_status=True,
        finishing_stacks=[stacks[name] - conv.put[name] + conv.collected.get(name, 0) for name in order],
        seats=[seat_of[name] for name in order],
        players=list(order),
        source=f"{hand.source} [#{hand.number}]",
    )
    phh.small_bet, phh.big_bet = hand.small_bet, hand.big_bet
    if stud_stakes is not None:
        phh.bring_in = stud_stakes["bring_in"]
    else:
        phh.blinds_or_straddles = blinds
    extra = _metadata(hand)
    extra["winnings"] = [conv.collected.get(name, 0) for name in order]
    if hand.rake:
        extra["_rake"] = hand.rake  # a user-defined PHH field (leading underscore)
    phh.extra = extra
    uncalled = None
    if conv.uncalled is not None:
        who, amount, line = conv.uncalled
        uncalled = (seat_of[who], amount, line)
    return ImportedHand(
        parsed=hand,
        phh=phh,
        action_lines=lines,
        stated=conv.stated,
        forced=conv.forced,
        uncalled=uncalled,
        collected={seat_of[name]: amount for name, amount in conv.collected.items()},
        collected_line={seat_of[name]: line for name, line in conv.collected_line.items()},
        seats=[seat_of[name] for name in order],
        rake=hand.rake,
    )
