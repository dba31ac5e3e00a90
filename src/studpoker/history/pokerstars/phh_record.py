"""A PokerStars hand (as :mod:`~studpoker.history.pokerstars.read` reads it) as a PHH record.

The players are the seats that take part (a seated player with no line at all sat out); the
stakes come from the header and the forced bets (:mod:`~studpoker.history.pokerstars.forced`).
A deal writes the cards the file gives on that street's ``Dealt to`` lines and ``??`` for the
others; a card the reader saw only later (turned up for an all-in run-out, shown at the
showdown) stays ``??`` in the deal and is written where it is shown (``sm``), the convention of
a seat's copy (``hand_to_phh(hand, seen_by=SEAT)``) and of PokerKit's WSOP files; the lines are
turned into actions by :mod:`~studpoker.history.pokerstars.convert`. The amounts the file states
are kept beside the record, with the line each came from, so that
:mod:`~studpoker.history.pokerstars.check` can hold them against the replay.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from studpoker.games import Game, get_game
from studpoker.history.phh import PhhHand
from studpoker.history.pokerstars.convert import Converter, Stated
from studpoker.history.pokerstars.forced import common_ante, omaha_blinds, stud_stakes
from studpoker.history.pokerstars.parsed import ParsedHand


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


def _players(hand: ParsedHand) -> list[str]:
    """The names of the players dealt in, in PHH order (stud: seat order; Omaha: left of the
    button round to the button)."""
    active = {e.player for e in hand.entries if e.player is not None}
    seats = sorted((s for s in hand.seats if s.name in active), key=lambda s: s.seat)
    if len(seats) < 2:
        raise hand.error("fewer than two players take part in the hand", hand.first_line)
    if get_game(hand.game).is_stud:
        return [s.name for s in seats]
    if hand.button is None:
        raise hand.error("an Omaha hand needs 'Seat #N is the button' on the table line", hand.first_line + 1)
    numbers = [s.seat for s in seats]
    if hand.button not in numbers:
        raise hand.error(f"the button (seat {hand.button}) is not a player of the hand", hand.first_line + 1)
    start = numbers.index(hand.button) + 1
    ordered = seats[start:] + seats[:start]
    return [s.name for s in ordered]


def _metadata(hand: ParsedHand) -> dict[str, Any]:
    """The header's facts as PHH's optional fields."""
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


def _converted(hand: ParsedHand, game: Game) -> Converter:
    """Every line of the hand through the converter, then the cards shown in the summary only."""
    order = _players(hand)
    seat_of = {s.name: s.seat for s in hand.seats if s.name in order}
    size = game.cards_per_player
    conv = Converter(hand=hand, stud=game.is_stud, order=order, seat_of=seat_of)
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
    return conv


def _check_collections(hand: ParsedHand, conv: Converter) -> None:
    """The "collected" lines, else the summary's seat lines (both must agree), against the pot."""
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


def _rendered(conv: Converter) -> tuple[list[str], list[int]]:
    """The PHH actions, each deal written out now that every card is known, and their lines."""
    actions: list[str] = []
    lines: list[int] = []
    for action, line in zip(conv.actions, conv.lines, strict=True):
        rendered = conv.render(action)
        for text in [rendered] if isinstance(rendered, str) else rendered:
            actions.append(text)
            lines.append(line)
    return actions, lines


def to_phh(hand: ParsedHand) -> ImportedHand:
    """The PHH record of a parsed PokerStars hand; raises :class:`PokerStarsError`."""
    game = get_game(hand.game)
    conv = _converted(hand, game)
    order = conv.order
    n = len(order)
    ante = common_ante(hand, conv)  # the forced bets first: their errors point at their own lines
    stakes = stud_stakes(hand, conv) if game.is_stud else None
    blinds = None if game.is_stud else omaha_blinds(hand, conv) + [0] * (n - 2)
    _check_collections(hand, conv)
    actions, lines = _rendered(conv)
    seat_of = conv.seat_of
    stacks = {s.name: s.stack for s in hand.seats}
    phh = PhhHand(
        variant=game.phh_variant,
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
    if stakes is not None:
        phh.bring_in = stakes["bring_in"]
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
