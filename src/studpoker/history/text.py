"""The readable hand history, in the style players know from online rooms.

Built from the engine's event log only. The reader decides which cards are printed: a seat sees
its own down cards and everyone's up cards, a spectator (``viewer=None``) only the up cards,
and ``reveal=True`` prints every card (a replayed PHH file, an audit); cards shown at the
showdown (or turned up for an all-in run-out) are printed for everyone.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from studpoker.cards import Card
from studpoker.engine.actions import ActionKind
from studpoker.engine.events import Event, EventKind

if TYPE_CHECKING:
    from studpoker.engine import Hand

STREET_TITLES = {
    "third": "3rd STREET",
    "fourth": "4th STREET",
    "fifth": "5th STREET",
    "sixth": "6th STREET",
    "seventh": "7th STREET",
    "preflop": "HOLE CARDS",
    "flop": "FLOP",
    "turn": "TURN",
    "river": "RIVER",
}
STREET_NAMES = {
    "third": "3rd street",
    "fourth": "4th street",
    "fifth": "5th street",
    "sixth": "6th street",
    "seventh": "7th street",
    "preflop": "pre-flop",
    "flop": "the flop",
    "turn": "the turn",
    "river": "the river",
}


def _cards(cards: Sequence[Card | None]) -> str:
    return "[" + " ".join(str(c) for c in cards if c is not None) + "]"


def _pot_name(index: int | None) -> str:
    return "main pot" if not index else f"side pot-{index}"


def text_history(
    hand: Hand,
    *,
    viewer: int | None = None,
    reveal: bool = False,
    players: Mapping[int, str] | None = None,
    hand_id: str | int | None = None,
    table: str | None = None,
    time: datetime.datetime | None = None,
    room: str = "studpoker",
) -> str:
    """The hand's history as text lines (a finished hand, or one in progress up to now).

    ``players`` maps seat numbers to names (default ``Player N``); ``viewer`` is the seat whose
    down cards may be printed; ``reveal`` prints every card.
    """
    game = hand.game
    stakes = hand.stakes
    names = {seat: (players or {}).get(seat) or f"Player {seat}" for seat in hand.seat_numbers}
    lines: list[str] = []

    stake_text = f"{stakes.small_bet}/{stakes.big_bet}"
    if game.is_stud:
        extras = []
        if stakes.ante:
            extras.append(f"ante {stakes.ante}")
        if stakes.bring_in:
            extras.append(f"bring-in {stakes.bring_in}")
        if extras:
            stake_text += ", " + ", ".join(extras)
    else:
        stake_text += f", blinds {stakes.small_blind}/{stakes.big_blind}"
    head = f"{room} Hand"
    if hand_id is not None:
        head += f" #{hand_id}"
    head += f": {game.name} ({stake_text})"
    if time is not None:
        head += f" - {time.strftime('%Y/%m/%d %H:%M:%S')}" + (f" {time.tzname()}" if time.tzinfo else "")
    lines.append(head)
    table_line = f"Table '{table}'" if table is not None else "Table"
    table_line += f" {game.max_players}-max"
    if hand.button is not None:
        table_line += f" Seat #{hand.button} is the button"
    lines.append(table_line)
    for number in hand.seat_numbers:
        lines.append(f"Seat {number}: {names[number]} ({hand.initial_stacks[number]} in chips)")

    def visible(event: Event) -> bool:
        return reveal or event.visibility is None or (viewer is not None and event.visibility == viewer)

    shown: dict[int, list[Card | None]] = {seat: [] for seat in hand.seat_numbers}  # what the reader saw
    board: list[Card] = []
    pending: dict[int, list[Card | None]] = {}
    held: dict[int, list[Card | None]] = {seat: [] for seat in hand.seat_numbers}  # the true cards
    round_bet: dict[int, int] = dict.fromkeys(hand.seat_numbers, 0)
    current = 0
    street = ""
    folded_on: dict[int, str] = {}
    showed: dict[int, tuple[list[Card | None], str | None]] = {}
    mucked: set[int] = set()
    won: dict[int, int] = {}
    won_how: dict[int, list[str]] = {}
    pots: dict[int, int] = {}
    showdown_started = False

    def flush_deals() -> None:
        for who in hand.seat_numbers:
            new = pending.get(who)
            if not new:
                continue
            old = shown[who]
            seen_new = [c for c in new if c is not None]
            if game.is_stud and old and seen_new:
                lines.append(f"Dealt to {names[who]} {_cards(old)} {_cards(seen_new)}")
            elif seen_new:
                lines.append(f"Dealt to {names[who]} {_cards(seen_new)}")
            old.extend(seen_new)
        pending.clear()

    blind_lines = [
        f"{names[e.seat]}: posts {e.detail} blind {e.amount}" + (" and is all-in" if e.all_in else "")
        for e in hand.events
        if e.kind is EventKind.POST_BLIND and e.seat is not None
    ]
    for event in hand.events:
        kind = event.kind
        seat = event.seat
        if kind is not EventKind.DEAL and pending:
            flush_deals()
        if kind is EventKind.POST_ANTE:
            assert seat is not None
            tail = " and is all-in" if event.all_in else ""
            lines.append(f"{names[seat]}: posts the ante {event.amount}{tail}")
        elif kind is EventKind.POST_BLIND:
            assert seat is not None and event.amount is not None
            round_bet[seat] = event.amount
            current = max(current, event.amount)
            # Printed before the hole cards, as rooms do (the engine posts them after the deal).
        elif kind is EventKind.STREET:
            street = event.street or ""
            round_bet = dict.fromkeys(hand.seat_numbers, 0)
            current = 0
            if street in ("flop", "turn", "river"):
                continue  # the title comes with the board cards
            if street == "preflop":
                lines.extend(blind_lines)
            lines.append(f"*** {STREET_TITLES.get(street, street.upper())} ***")
        elif kind is EventKind.DEAL:
            assert seat is not None and event.cards
            held[seat].append(event.cards[0])
            card = event.cards[0] if visible(event) else None
            pending.setdefault(seat, []).append(card)
        elif kind is EventKind.DEAL_BOARD:
            cards = [c for c in event.cards or () if c is not None]
            if game.is_stud:
                lines.append(f"Community card {_cards(cards)} (every player's 7th card)")
            else:
                title = STREET_TITLES.get(street, street.upper())
                if board:
                    lines.append(f"*** {title} *** {_cards(board)} {_cards(cards)}")
                else:
                    lines.append(f"*** {title} *** {_cards(cards)}")
            board.extend(cards)
        elif kind is EventKind.ACTION:
            assert seat is not None and event.action is not None
            amount = event.amount or 0
            action = event.action
            tail = " and is all-in" if event.all_in else ""
            who = names[seat]
            if action is ActionKind.FOLD:
                folded_on[seat] = street
                lines.append(f"{who}: folds")
            elif action is ActionKind.CHECK:
                lines.append(f"{who}: checks")
            elif action is ActionKind.CALL:
                lines.append(f"{who}: calls {amount - round_bet[seat]}{tail}")
            elif action is ActionKind.BRING_IN:
                lines.append(f"{who}: brings in for {amount}{tail}")
            elif action is ActionKind.COMPLETE:
                lines.append(f"{who}: completes to {amount}{tail}")
            elif action is ActionKind.BET:
                lines.append(f"{who}: bets {amount - round_bet[seat]}{tail}")
            else:
                lines.append(f"{who}: raises {amount - current} to {amount}{tail}")
            if action is not ActionKind.FOLD:
                round_bet[seat] = amount
                current = max(current, amount)
        elif kind is EventKind.TIMEOUT:
            assert seat is not None
            if event.detail == "protected_all_in":
                lines.append(f"{names[seat]}: has timed out and is all-in (disconnect protection)")
            else:
                lines.append(f"{names[seat]}: has timed out")
        elif kind is EventKind.EXPOSE:
            assert seat is not None
            turned = held[seat] if game.is_stud else list(event.cards or ())
            lines.append(f"{names[seat]}: shows {_cards(turned)} (all-in)")
        elif kind is EventKind.RETURN:
            assert seat is not None
            lines.append(f"Uncalled bet ({event.amount}) returned to {names[seat]}")
        elif kind in (EventKind.SHOW, EventKind.MUCK):
            assert seat is not None
            if not showdown_started:
                lines.append("*** SHOW DOWN ***")
                showdown_started = True
            if kind is EventKind.SHOW:
                shown_cards = list(event.cards or ())
                showed[seat] = (shown_cards, event.detail)
                tail = f" ({event.detail})" if event.detail else ""
                lines.append(f"{names[seat]}: shows {_cards(shown_cards)}{tail}")
            else:
                mucked.add(seat)
                lines.append(f"{names[seat]}: mucks hand")
        elif kind is EventKind.AWARD:
            assert seat is not None and event.amount is not None
            pot = event.pot or 0
            pots[pot] = pots.get(pot, 0) + event.amount
            won[seat] = won.get(seat, 0) + event.amount
            how = f" ({event.detail})" if event.detail in ("high", "low") else ""
            won_how.setdefault(seat, []).append(f"{event.amount} from {_pot_name(pot)}{how}")
            lines.append(f"{names[seat]} collected {event.amount} from {_pot_name(pot)}{how}")
    if pending:
        flush_deals()

    if not hand.is_over:
        return "\n".join(lines) + "\n"
    lines.append("*** SUMMARY ***")
    total = sum(pots.values())
    pot_line = f"Total pot {total}"
    if len(pots) > 1:
        parts = [f"Main pot {pots.get(0, 0)}."] + [f"Side pot-{i} {pots[i]}." for i in sorted(pots) if i]
        pot_line += " | " + " ".join(parts)
    lines.append(pot_line)
    if board:
        lines.append(f"Board {_cards(board)}")
    for seat in hand.seat_numbers:
        who = f"Seat {seat}: {names[seat]}"
        if seat in folded_on:
            lines.append(f"{who} folded on {STREET_NAMES.get(folded_on[seat], folded_on[seat])}")
        elif seat in showed:
            hole, detail = showed[seat]
            with_text = f" with {detail}" if detail else ""
            if seat in won:
                lines.append(f"{who} showed {_cards(hole)} and won ({won[seat]}){with_text}")
            else:
                lines.append(f"{who} showed {_cards(hole)} and lost{with_text}")
        elif seat in mucked:
            lines.append(f"{who} mucked")
        elif seat in won:
            lines.append(f"{who} collected ({won[seat]})")
        else:
            lines.append(f"{who} lost")
    return "\n".join(lines) + "\n"
