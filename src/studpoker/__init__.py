"""studpoker: an open-source room for Seven Card Stud, Stud Hi/Lo, Razz and Omaha Hi/Lo."""

from studpoker.cards import Card, CardError, Deck, parse_cards

__all__ = ["Card", "CardError", "Deck", "parse_cards"]
__version__ = "0.1.0"
