"""The button of the board games at a tournament table, and the seats it makes good or bad.

A table keeps the seat its last board-game hand had the button on (``last_button``, None before
its first). The next board hand's button is the first occupied seat clockwise from there (the
lowest occupied seat for the first hand: the seats were drawn at random), so it moves one player
a hand and skips empty seats; the engine puts the blinds on the two players after it (heads-up
the button posts the small blind). Through the stud games of a rotation ``last_button`` does not
change: the button is frozen where it would be for the next board hand and starts from there when
the board games come back (TDA, R-MIXED-BUTTON).

>>> next_button(None, [2, 5, 7]), next_button(5, [2, 5, 7]), next_button(7, [2, 5, 7])
(2, 7, 2)
>>> blinds(7, [2, 5, 7]), blinds(2, [2, 5])
((2, 5), (2, 5))
"""

from __future__ import annotations

from collections.abc import Collection


def clockwise_after(seat: int, occupied: Collection[int]) -> int:
    """The first of ``occupied`` clockwise after ``seat`` (which need not be occupied)."""
    ordered = sorted(occupied)
    if not ordered:
        raise ValueError("no occupied seat")
    return next((s for s in ordered if s > seat), ordered[0])


def next_button(last_button: int | None, occupied: Collection[int]) -> int:
    """The button of the table's next board-game hand."""
    if last_button is None:
        return min(occupied)
    return clockwise_after(last_button, occupied)


def blinds(button: int, occupied: Collection[int]) -> tuple[int, int]:
    """The small and big blind seats of a hand with this button (heads-up: the button is small)."""
    small = button if len(occupied) == 2 else clockwise_after(button, occupied)
    return small, clockwise_after(small, occupied)


def next_big_blind(last_button: int | None, occupied: Collection[int]) -> int:
    """The seat to post the big blind in the next board hand (in stud: would post it)."""
    return blinds(next_button(last_button, occupied), occupied)[1]


def hands_until_big_blind(last_button: int | None, occupied: Collection[int], seat: int) -> int:
    """How many board hands are dealt before ``seat`` posts the big blind (0: the next one)."""
    if seat not in occupied:
        raise ValueError(f"seat {seat} is empty")
    button = next_button(last_button, occupied)
    for hands in range(len(occupied)):
        if blinds(button, occupied)[1] == seat:
            return hands
        button = clockwise_after(button, occupied)
    raise AssertionError("every seat posts the big blind once an orbit")  # pragma: no cover


def worst_seat(last_button: int | None, occupied: Collection[int], empty: Collection[int]) -> int:
    """The empty seat a player moved in should take (TDA, R-TOURNAMENT-BALANCE): the one where he
    posts the big blind soonest, never the small blind of the next hand while another seat is
    free; of equal seats, the first clockwise from the next button."""
    if not empty:
        raise ValueError("no empty seat")
    if not occupied:
        return min(empty)
    start = next_button(last_button, occupied)

    def cost(seat: int) -> tuple[bool, int, int]:
        taken = {*occupied, seat}
        small = blinds(next_button(last_button, taken), taken)[0]
        distance = (seat - start) % (max(taken) + 1)  # clockwise from the next button
        return small == seat, hands_until_big_blind(last_button, taken, seat), distance

    return min(empty, key=cost)
