"""Ranking the up cards: who acts first from 4th street (docs/rules.md, R-STUD-FIRST-TO-ACT)."""

from __future__ import annotations

from studpoker.cards import parse_cards
from studpoker.engine.showing import bring_in_key, high_showing_key, low_showing_key


def high(text: str) -> tuple[int, ...]:
    return high_showing_key(parse_cards(text))


def low(text: str) -> tuple[int, ...]:
    return low_showing_key(parse_cards(text))


def test_high_showing_order_quads_trips_two_pair_pair_high_cards() -> None:
    boards = ["2c 2d 2h 2s", "Ac Ad Ah Ks", "3c 3d 4h 4s", "Kc Kd Ah Qs", "Ac Kd Qh Js"]
    keys = [high(b) for b in boards]
    assert keys == sorted(keys, reverse=True)


def test_high_showing_kickers_and_no_straights_or_flushes() -> None:
    assert high("Kc Kd 9h") > high("Ks Kh 8c")
    assert high("Ac 7d") > high("Kc Qd")
    assert high("5h 6h 7h 8h") < high("9c 2d 3h 4s")  # no straight or flush on board
    assert high("Ks 7d") == high("Kh 7c")  # suits never break the tie


def test_low_showing_pairs_count_against() -> None:
    boards = ["Ac 2d 3h 4s", "Ac 2d 3h 5s", "7c 4d", "Kc Qd", "Ac Ad", "2c 2d"]
    keys_two = [low(b) for b in boards[2:]]
    assert keys_two == sorted(keys_two, reverse=True)  # 7-4, K-Q, pair of aces, pair of deuces
    assert low(boards[0]) > low(boards[1])
    assert low("Ac Ad 2h 3s") > low("Kc Kd Qh Js") > low("2c 2d 3h 3s") > low("4c 4d 4h 2s")


def test_bring_in_keys() -> None:
    cards = parse_cards("2c 2d 2h 2s Ac Kc")
    order = sorted(cards, key=lambda c: bring_in_key(c, razz=False, by_suit=True))
    assert [str(c) for c in order] == ["2c", "2d", "2h", "2s", "Kc", "Ac"]
    order = sorted(cards, key=lambda c: bring_in_key(c, razz=True, by_suit=True))
    assert [str(c) for c in order] == ["Kc", "2s", "2h", "2d", "2c", "Ac"]
