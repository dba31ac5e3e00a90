"""The forced bets of a PokerStars hand in PHH terms: the ante, the stud bring-in, the Omaha blinds.

The text gives each forced bet only as posted. What it does not say is filled in by the rule
book (docs/rules.md): a bring-in that was never posted (the low card completed) is half the
small bet (below his completion, when he completed all-in for less than the small bet); an
Omaha blind posted short is the table's blind (half the small bet, the small bet). Each error
points at the line of the post it is about.
"""

from __future__ import annotations

from studpoker.history.pokerstars.convert import Converter
from studpoker.history.pokerstars.parsed import ParsedHand


def stud_stakes(hand: ParsedHand, conv: Converter) -> dict[str, int]:
    """A stud hand's bring-in, small bet and big bet."""
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


def omaha_blinds(hand: ParsedHand, conv: Converter) -> list[int]:
    """An Omaha hand's small and big blind, posted by the seats the button puts them on."""
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


def common_ante(hand: ParsedHand, conv: Converter) -> int:
    """The ante every player posts once (less only all-in), or 0."""
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
