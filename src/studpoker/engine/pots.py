"""Main pot and side pots from what each seat put in (table stakes).

Each level at which a live (not folded) player stopped putting chips in closes a pot; every
seat's chips up to that level go into it and the live seats that reached it are eligible.
Dead money (antes posted seat by seat: a button ante, a dead blind) is no part of any level: it
goes to the main pot, which every live seat contests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # seat numbers, in seat order

    def to_dict(self) -> dict[str, object]:
        return {"amount": self.amount, "eligible": list(self.eligible)}


def build_pots(
    contributions: Mapping[int, int], live: Sequence[int], *, dead: Mapping[int, int] | None = None
) -> tuple[Pot, ...]:
    """Pots from ``contributions`` (seat -> chips put in) and the ``live`` seats (not folded).

    A top pot with a single eligible seat is an uncalled bet: it is still listed (the caller
    returns it). Chips above every live seat's contribution (only possible from folded seats)
    go to the last pot. ``dead`` (seat -> dead money, part of his contribution) goes to the
    main pot.
    """
    if dead:
        return _with_dead_money(contributions, live, dead)
    levels = sorted({contributions[s] for s in live if contributions[s] > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = 0
        for put in contributions.values():
            if put > previous:
                amount += (put if put < level else level) - previous
        eligible = tuple(s for s in live if contributions[s] >= level)
        if amount:
            pots.append(Pot(amount=amount, eligible=eligible))
        previous = level
    beyond = sum(put - previous for put in contributions.values() if put > previous)
    if beyond:
        if pots:
            last = pots[-1]
            pots[-1] = Pot(amount=last.amount + beyond, eligible=last.eligible)
        else:
            pots.append(Pot(amount=beyond, eligible=tuple(live)))
    return tuple(pots)


def _with_dead_money(
    contributions: Mapping[int, int], live: Sequence[int], dead: Mapping[int, int]
) -> tuple[Pot, ...]:
    """The pots of the live chips, with the dead money in the main pot: every live seat's, so a
    pot of its own first when a seat is all-in with no live chips in (from his ante)."""
    pots = list(build_pots({s: put - dead.get(s, 0) for s, put in contributions.items()}, live))
    money = sum(dead.values())
    everyone = tuple(live)
    if pots and pots[0].eligible == everyone:
        pots[0] = Pot(amount=pots[0].amount + money, eligible=everyone)
    elif money:
        pots.insert(0, Pot(amount=money, eligible=everyone))
    return tuple(pots)
