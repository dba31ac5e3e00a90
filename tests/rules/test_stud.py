"""Stud deal (docs/rules.md): one up card on each of 4th to 6th street, one down card on 7th."""

from __future__ import annotations

from studpoker.cards import parse_cards
from studpoker.engine import EventKind
from tests.engine.helpers import check_down, kinds_of, stud, stud_deck

CARDS = ("Ah Kh 9c 2d 3d 4d 5s", "Ad Kd 2c Kc 3c 4c 5c", "As Ks 7c 7d 3h 4h 6s")


def test_fourth_to_sixth_street_one_up_card_each_seventh_street_one_down_card() -> None:
    hand = stud("7S", stud_deck(*CARDS), [500, 500, 500])
    check_down(hand)
    deals = [e for e in kinds_of(hand.events, EventKind.DEAL) if e.street != "third"]
    by_street: dict[str, list[tuple[int | None, str | None]]] = {}
    for event in deals:
        by_street.setdefault(event.street or "", []).append((event.seat, event.detail))
    assert by_street == {
        street: [(seat, detail) for seat in (1, 2, 3)]
        for street, detail in (("fourth", "up"), ("fifth", "up"), ("sixth", "up"), ("seventh", "down"))
    }
    for seat, cards in enumerate(CARDS, start=1):
        down, up = hand.cards_of(seat)
        dealt = parse_cards(cards)
        assert down == (*dealt[:2], dealt[6]) and up == dealt[2:6]
    seventh = [e for e in deals if e.street == "seventh"]
    assert [e.visibility for e in seventh] == [1, 2, 3]  # each seventh card is seen by its owner only
