"""Hand histories in the PHH format (Poker Hand History, TOML; spec: uoftcprg/phh-std).

* :func:`load_hands` reads a ``.phh`` file (one hand) or a ``.phhs`` file (hands under ``[1]``,
  ``[2]``, ...) into :class:`PhhHand` records (:mod:`.model`, with :func:`loads` and
  :func:`dumps_all`).
* :func:`replay` plays a :class:`PhhHand` through the engine (:mod:`.replaying`): the file's dealt
  cards become a stacked deck in the engine's dealing order (:mod:`.deal`), each player action
  is applied and checked, and the finishing stacks (when the file gives them) must come out the
  same. :mod:`.stakes` turns the file's forced bets and seats into the engine's.
  :func:`replay_with_time_banks` also reads back the time bank each decision used (the
  commentaries :func:`hand_to_phh` writes).
* :func:`dump_hand` and :func:`hand_to_phh` write a finished engine hand as PHH (:mod:`.write`),
  :mod:`.toml_out` the TOML text.

Anything illegal or inconsistent raises :class:`PhhError` naming the file, the action number
(1-based index in ``actions``) and the reason.

Player ``pN`` is the N-th player in PHH order: for the stud games the players in seat order
(dealing starts at the lowest seat); for Omaha the player left of the button first, so that the
button is the last player (heads-up: p1 is the big blind, p2 the button and small blind). The table
seat numbers are kept in the ``seats`` field.
"""

from .deal import DealPlan, deck_order, plan_deal
from .model import (
    PROTECTED_TEXT,
    PhhAction,
    PhhError,
    PhhHand,
    dumps_all,
    load_hands,
    loads,
    parse_action,
    parse_cards_field,
)
from .replaying import HandWithTimeBanks, finishing_stacks, replay, replay_with_time_banks
from .stakes import forced_bets_of, stakes_of
from .write import EVERY_CARD, dump_hand, hand_to_phh, player_order

__all__ = [
    "EVERY_CARD",
    "PROTECTED_TEXT",
    "DealPlan",
    "HandWithTimeBanks",
    "PhhAction",
    "PhhError",
    "PhhHand",
    "deck_order",
    "dump_hand",
    "dumps_all",
    "finishing_stacks",
    "forced_bets_of",
    "hand_to_phh",
    "load_hands",
    "loads",
    "parse_action",
    "parse_cards_field",
    "plan_deal",
    "player_order",
    "replay",
    "replay_with_time_banks",
    "stakes_of",
]
