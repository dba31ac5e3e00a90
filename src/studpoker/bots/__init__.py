"""Bots: small objects with ``choose(view, legal_options) -> Action`` that see only a seat's view.

* :mod:`.policy`: how every bot chooses among its legal options, engine-free: the engine's bots
  below, the room's bots (:mod:`studpoker.server.bots`) and the load client's players
  (:mod:`studpoker.loadtest.client`), the last two from the protocol's ``your_turn.options``
  through :func:`~studpoker.bots.policy.choose_offered`.
* :mod:`.players`: :class:`RandomBot`, :class:`CallingBot` and :class:`EquityBot` (equity
  against the visible cards, pot odds, value bets), :func:`make_bot` by name, and
  :func:`play_hand` through the engine.
* :mod:`.remote`: an engine bot behind the server protocol (:func:`choose_from_protocol`; it
  only needs the per-seat view and the legal options the server sends).
"""

from .players import BOTS, STYLES, Bot, CallingBot, EquityBot, RandomBot, estimate_equity, make_bot, play_hand
from .policy import Style
from .remote import choose_from_protocol, view_from_dict

__all__ = [
    "BOTS",
    "STYLES",
    "Bot",
    "CallingBot",
    "EquityBot",
    "RandomBot",
    "Style",
    "choose_from_protocol",
    "estimate_equity",
    "make_bot",
    "play_hand",
    "view_from_dict",
]
