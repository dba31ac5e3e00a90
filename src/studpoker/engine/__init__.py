"""The pure rules engine: a synchronous, deterministic hand state machine (see docs/engine.md).

>>> from studpoker.cards import Deck
>>> from studpoker.games import Stakes, get_game
>>> game = get_game("7S")
>>> hand = Hand(game, Stakes.from_bets(10, 20, game), seats=[(1, 500), (2, 500)],
...             deck=Deck.stacked("2c 3c 4c 5c 9s Kd"))
>>> hand.to_act, [str(o.kind) for o in hand.legal_actions()]
(1, ['bring_in', 'complete'])
"""

from studpoker.engine.actions import (
    Action,
    ActionKind,
    IllegalActionError,
    LegalActions,
    LegalOption,
)
from studpoker.engine.events import Event, EventKind
from studpoker.engine.forced import ForcedBets, ForcedBetsError
from studpoker.engine.pots import Pot
from studpoker.engine.result import HandResult, PotResult, Share, ShownHand
from studpoker.engine.state import Hand
from studpoker.engine.views import HandView, SeatView

__all__ = [
    "Action",
    "ActionKind",
    "Event",
    "EventKind",
    "ForcedBets",
    "ForcedBetsError",
    "Hand",
    "HandResult",
    "HandView",
    "IllegalActionError",
    "LegalActions",
    "LegalOption",
    "Pot",
    "PotResult",
    "SeatView",
    "Share",
    "ShownHand",
]
