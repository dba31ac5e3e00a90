"""Main pot and side pots from what each seat put in (table stakes).

Each level at which a live (not folded) player stopped putting chips in closes a pot; every
seat's chips up to that level go into it and the live seats that reached it are eligible.
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


def build_pots(contributions: Mapping[int, int], live: Sequence[int]) -> tuple[Pot, ...]:
    """Pots from ``contributions`` (seat -> chips put in) and the ``live`` seats (not folded).

    A top pot with a single eligible seat is an uncalled bet: it is still listed (the caller
    returns it). Chips above every live seat's contribution (only possible from folded seats)
    go to the last pot.
    """
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
    dead = sum(put - previous for put in contributions.values() if put > previous)
    if dead:
        if pots:
            last = pots[-1]
            pots[-1] = Pot(amount=last.amount + dead, eligible=last.eligible)
        else:
            pots.append(Pot(amount=dead, eligible=tuple(live)))
    return tuple(pots)
