"""The entry point: :func:`equity` checks the position and hands it to the stud or the board-game solver."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .omaha import solve_omaha
from .position import Position, position
from .result import EquityResult
from .sampling import Sampling
from .stud import solve_stud
from .tables import TABLE_LIMIT


def equity(
    game: str | Position,
    hands: Sequence[str | Sequence[Any]] = (),
    dead: str | Sequence[Any] = "",
    board: str | Sequence[Any] = "",
    *,
    exact: bool | None = None,
    precision: float = 0.001,
    max_deals: int = 20_000_000,
    min_deals: int = 10_000,
    time_limit: float | None = None,
    seed: int | None = None,
    table_limit: int = TABLE_LIMIT,
    receive: int | Sequence[int] | None = None,
) -> EquityResult:
    """Each player's share of the pot; exact when the runouts are few, else Monte Carlo.

    ``precision`` is the target half-width of the 95 % interval of every player's equity
    (Monte Carlo stops there, or at ``max_deals`` / ``time_limit`` seconds). ``exact=True``
    insists on enumeration, ``exact=False`` forces sampling. ``table_limit=0`` scores sampled
    hands directly instead of tabling every completion first (cheaper for a few hundred deals).
    ``receive`` (stud) says how many more cards each player gets (default: up to seven).

    >>> r = equity("7S", ["AsKsQh", "7c7d2s"], dead="Qd2h")
    >>> r.exact, round(r.players[1].equity, 4)
    (True, 0.5503)
    """
    cpu = time.process_time()
    started = time.perf_counter()
    pos = game if isinstance(game, Position) else position(game, hands, dead, board, receive)
    sampler = Sampling(seed, precision, max_deals, min_deals, time_limit, started)
    if pos.game_record.is_stud:
        result = solve_stud(pos, sampler, exact=exact, table_limit=table_limit)
    else:
        result = solve_omaha(pos, exact, sampler)
    return replace(result, cpu_seconds=time.process_time() - cpu)
