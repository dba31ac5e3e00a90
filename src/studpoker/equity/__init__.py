"""Equity for Seven Card Stud (7S), Stud Hi/Lo (7S8), Razz (RZ), Omaha Hi/Lo (O8) and limit
hold'em (LHE).

Give each player's known cards (``??`` for a card dealt but not seen), the dead cards and,
for the board games (O8, LHE), the board; every card a player still receives comes from the unseen cards. The
result is each player's share of the pot and how it is made up: ``win`` / ``tie`` (sole or
shared best hand of the main ranking: high, or low in razz), ``scoop`` (the whole pot
alone), ``high`` / ``low`` (expected share of the high half / of the low half won by a
qualifying low; split games only).

How it is computed (all on numpy arrays, hands scored by the batch evaluators):

* Stud: a player's final hand depends only on his own cards, so every possible completion
  of each player (``C(unseen, to_come)`` sets) is scored once, in one batch call, into a
  table indexed by the completion's colex rank.
* Heads-up stud is then **exact** by inclusion-exclusion over the cards both completions
  share: pairs of disjoint completions are counted as ``sum over T (-1)^|T|`` of the pairs
  that both contain ``T``, and within each ``T`` a comparison count is a sorted search.
  Heads-up 3rd street (18 billion deals) takes about a second.
* Multi-way positions are enumerated when the runouts are few (``EXACT_LIMIT``), otherwise
  sampled: random partial shuffles give each player's new cards, looked up in the tables
  (or scored directly when a table would be too big), until the 95 % interval of every
  player's equity is within the asked precision.
* O8: board runouts (and unknown hole cards) are enumerated or sampled; each hand's best
  2 + 3 high and low are taken over the 60 combinations, for big jobs in numba kernels that
  deal, score and count each batch in one loop (:mod:`.omaha_jit`, when numba is installed),
  else in one ``batch_omaha8`` call per batch.
* LHE: the same runouts, each hand the best five of its two hole cards and the board (one
  ``batch_high`` call per batch on the seven cards), high only.

The modules, each owning one step (none imports from this ``__init__``, so no cycle):

* :mod:`.position`: parsing (:func:`parse_hand`, :func:`position`) and :class:`Position`,
  checked against the game's record (:mod:`studpoker.games`);
* :mod:`.scoring`: hands scored in bulk by the batch evaluators the game's hand types name;
* :mod:`.tables`: the stud value tables; :mod:`.heads_up`: heads-up stud by
  inclusion-exclusion; :mod:`.stud`: the stud solver (exact or sampled);
* :mod:`.omaha`: the board-game solver (O8 and LHE), :mod:`.omaha_jit` its compiled kernels; :mod:`.sampling`:
  the Monte Carlo loop and its limits;
* :mod:`.combinatorics`: colex subsets, disjoint assignments, partial shuffles;
* :mod:`.result`: :class:`EquityResult`, :class:`PlayerEquity` and the running sums;
* :mod:`.solve`: :func:`equity`, the entry point.
"""

from __future__ import annotations

from studpoker.games import GAMES as _GAME_RECORDS

# Imported "as" themselves: public names of the single module this package replaced, kept.
from .combinatorics import colex_combos as colex_combos
from .position import EquityError, Position, parse_hand, position
from .result import EquityResult, PlayerEquity
from .sampling import EXACT_LIMIT as EXACT_LIMIT
from .scoring import score_omaha8 as score_omaha8
from .scoring import score_stud as score_stud
from .solve import equity
from .tables import TABLE_LIMIT as TABLE_LIMIT

__all__ = [
    "GAMES",
    "EquityError",
    "EquityResult",
    "PlayerEquity",
    "Position",
    "equity",
    "parse_hand",
    "position",
]

GAMES: dict[str, str] = {code: game.name for code, game in _GAME_RECORDS.items()}
"""The games equity is computed for: code -> full name (the records are :data:`studpoker.games.GAMES`)."""
