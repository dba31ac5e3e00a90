"""The scalar API: names, cards, ordering, errors and properties."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studpoker.cards import Card, CardError, parse_cards
from studpoker.evaluate import (
    Category,
    HighHand,
    LowHand,
    high,
    high_value,
    low8,
    low8_value,
    omaha8,
    razz,
    razz_value,
)


def p(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


@pytest.mark.parametrize(
    ("text", "name", "category", "cards"),
    [
        ("As Ks Qs Js Ts 9s 2c", "Royal Flush", Category.STRAIGHT_FLUSH, "AsKsQsJsTs"),
        ("9h 8h 7h 6h 5h Ah Ad", "Straight Flush, Nine high", Category.STRAIGHT_FLUSH, "9h8h7h6h5h"),
        ("5d 4d 3d 2d Ad Ac", "Straight Flush, Five high", Category.STRAIGHT_FLUSH, "5d4d3d2dAd"),
        ("Ac Ad Ah As Kc Kd Ks", "Four of a Kind, Aces", Category.FOUR_OF_A_KIND, "AsAhAdAcKs"),
        ("Kh Kd 7s 7c Ks 2d 3h", "Full House, Kings full of Sevens", Category.FULL_HOUSE, "KsKhKd7s7c"),
        ("Kh Kd 7s 7c Ks 7d 3h", "Full House, Kings full of Sevens", Category.FULL_HOUSE, "KsKhKd7s7d"),
        ("Ah Qh 9h 7h 4h 3c 2h", "Flush, Ace high", Category.FLUSH, "AhQh9h7h4h"),
        ("Ah 2d 3c 4s 5h Kd", "Straight, Five high", Category.STRAIGHT, "5h4s3c2dAh"),
        ("Th Jd Qc Ks Ah 9d", "Straight, Ace high", Category.STRAIGHT, "AhKsQcJdTh"),
        ("Qc Qd Qh 7d 4s 3c 2h", "Three of a Kind, Queens", Category.THREE_OF_A_KIND, "QhQdQc7d4s"),
        ("Jc Jd 4h 4s 2c 2d 9h", "Two Pair, Jacks and Fours", Category.TWO_PAIR, "JdJc4s4h9h"),
        ("Tc Td 8h 6d 4s 3c 2h", "Pair of Tens", Category.PAIR, "TdTc8h6d4s"),
        ("Ac Qd 9h 7d 4s 3c 2h", "High Card, Ace", Category.HIGH_CARD, "AcQd9h7d4s"),
    ],
)
def test_high_names_and_cards(text: str, name: str, category: Category, cards: str) -> None:
    hand = high(p(text))
    assert hand.name == name
    assert str(hand) == name
    assert hand.category is category
    assert hand.cards == p(cards)
    assert all(type(c) is Card for c in hand.cards)
    assert hand.value == high_value(p(text))


def test_category_display() -> None:
    assert Category.FULL_HOUSE.display == "Full House"
    assert int(Category.HIGH_CARD) == 0 and int(Category.STRAIGHT_FLUSH) == 8
    assert [c.display for c in Category][4] == "Straight"


def test_high_ordering_and_ties() -> None:
    ladder = [
        "7c 5d 4h 3s 2c",
        "Ac Kd Qh Js 9c",
        "2c 2d 3h 4s 5c",
        "Ac Ad Kh Ks Qc",
        "2c 2d 2h 3s 4c",
        "Ac 2d 3h 4s 5c",
        "Tc Jd Qh Ks Ac",
        "2c 3c 4c 5c 7c",
        "2c 2d 2h 3s 3c",
        "2c 2d 2h 2s 3c",
        "Ac 2c 3c 4c 5c",
        "Tc Jc Qc Kc Ac",
    ]
    hands = [high(p(t)) for t in ladder]
    assert hands == sorted(hands)
    assert all(a < b and not b < a and a != b for a, b in itertools.pairwise(hands))
    assert high(p("Ac Kd Qh Js 9c")) == high(p("As Kh Qd Jc 9s"))
    assert hash(high(p("Ac Kd Qh Js 9c"))) == hash(high(p("As Kh Qd Jc 9s")))
    assert high(p("Ac Kd Qh Js 9c 2c")) == high(p("As Kh Qd Jc 9s"))
    assert high(p("2c 2d 2h 3s 4c")) <= high(p("2c 2d 2h 3s 4d"))
    assert high(p("2c 2d 2h 3s 4c")) >= high(p("2c 2d 2h 3s 4d"))
    assert high(p("2c 2d 2h 3s 5c")) > high(p("2c 2d 2h 3s 4d"))


@pytest.mark.parametrize(
    ("text", "name", "ranks", "qualifies"),
    [
        ("7c 5d 4h 2s Ac Kd Kh", "Seven-Five low", (7, 5, 4, 2, 1), True),
        ("5c 4d 3h 2s Ac 5d", "Wheel", (5, 4, 3, 2, 1), True),
        ("8c 7d 6h 5s 4c", "Eight-Seven low", (8, 7, 6, 5, 4), True),
        ("6c 4d 3h 2s Ac 6d 4s", "Six-Four low", (6, 4, 3, 2, 1), True),
        ("9c 5d 4h 2s Ac Kd Kh", "Nine-Five low", (9, 5, 4, 2, 1), False),
        ("Kc Qd Jh Ts 9c 9d 9h", "King-Queen low", (13, 12, 11, 10, 9), False),
        ("9c 9d Kh Qs Jc", "Pair of Nines", (13, 12, 11, 9, 9), False),
        ("Ac Ad 2h 2s 3c", "Two Pair, Deuces and Aces", (3, 2, 2, 1, 1), False),
        ("Ac Ad Ah 2s 3c", "Three of a Kind, Aces", (3, 2, 1, 1, 1), False),
        ("Kc Kd Kh Ks Qc", "Four of a Kind, Kings", (13, 13, 13, 13, 12), False),
        ("Kc Kd Kh Qs Qc", "Full House, Kings full of Queens", (13, 13, 13, 12, 12), False),
    ],
)
def test_low_names(text: str, name: str, ranks: tuple[int, ...], qualifies: bool) -> None:
    r = razz(p(text))
    assert r.name == name and r.ranks == ranks and r.qualifies is qualifies
    assert r.value == razz_value(p(text))
    low = low8(p(text))
    assert (low is not None) is qualifies
    if low is not None:
        assert low == r and low.name == name and low.cards == r.cards
    assert low8_value(p(text)) == (r.value if qualifies else 0)


def test_low_cards_and_order() -> None:
    r = razz(p("Ah 2c 2d 3h 4s 5c 7d"))
    assert r.name == "Wheel"
    assert r.cards == p("5c 4s 3h 2c Ah")  # the deuce of the lowest suit is used
    assert razz(p("5c 4d 3h 2s Ac")) > razz(p("6c 4d 3h 2s Ac")) > razz(p("6c 5d 3h 2s Ac"))
    assert razz(p("Kc Qd Jh Ts 8c")) > razz(p("Ac Ad 2h 3s 4c"))  # any no-pair beats a pair
    assert razz(p("Ac Ad 2h 3s 4c")) > razz(p("2c 2d Ah 3s 4c"))  # aces are the lowest pair
    assert razz(p("Kc Kd Qh Qs Jc")) > razz(p("2c 2d 2h 3s 4c"))  # two pair beats trips
    assert razz(p("8c 7d 6h 5s 4c")) == low8(p("8c 7d 6h 5s 4c 8d"))
    assert LowHand(1, ()) != HighHand(1, ())


def test_omaha8() -> None:
    hi, lo = omaha8(p("Ac 2d Kh Ks"), p("3c 4d 5h Kd Qc"))
    assert hi.name == "Straight, Five high" and lo is not None and lo.name == "Wheel"
    assert set(lo.cards) == set(p("Ac 2d 3c 4d 5h"))
    # four to a flush on the board but one hole heart: no flush in Omaha
    hi, lo = omaha8(p("Ah Kd Qc Jc"), p("2h 8h 9h Th 3s"))
    assert hi.name == "Straight, Queen high" and lo is None
    hi, lo = omaha8(p("Ah Kh Qc Jc"), p("2h 5h 9h Ts 3s"))
    assert hi.name == "Flush, Ace high"
    # three low board cards but the hole has only one low card: no low
    hi, lo = omaha8(p("Ac Kd Kh Ks"), p("3c 4d 5h"))
    assert lo is None and hi.name == "Pair of Kings"
    hi, lo = omaha8(p("Ac 2d Kh Ks"), p("3c 4d 9h"))
    assert lo is None
    hi, lo = omaha8(p("Ac 2d Kh Ks"), p("3c 4d 8h"))
    assert lo is not None and lo.name == "Eight-Four low"
    assert len(hi.cards) == 5


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: high(p("As Ks Qs Js")), "5 to 7 cards, not 4"),
        (lambda: high(p("As Ks Qs Js Ts 9s 8s 7s")), "5 to 7 cards, not 8"),
        (lambda: high([51, 50, 49, 48, 51]), "As appears twice"),
        (lambda: razz([51, 50, 49, 48, 52]), "52 is not a card"),
        (lambda: low8([51, 50, 49, 48, -1]), "-1 is not a card"),
        (
            lambda: high([51, 50, 49, 48, "Ks"]),  # type: ignore[list-item]
            "'Ks' is not a card",
        ),
        (
            lambda: high([51, 50, 49, 48, 3.0]),  # type: ignore[list-item]
            "3.0 is not a card",
        ),
        (
            lambda: high("AsKsQsJsTs"),  # type: ignore[arg-type]
            "parse_cards",
        ),
        (lambda: omaha8(p("As Ks Qs"), p("2c 3c 4c")), "4 hole cards"),
        (lambda: omaha8(p("As Ks Qs Js"), p("2c 3c")), "3 to 5"),
        (lambda: omaha8(p("As Ks Qs Js"), p("2c 3c As")), "As appears twice"),
    ],
)
def test_errors(call: object, message: str) -> None:
    with pytest.raises(CardError, match=message):
        call()  # type: ignore[operator]


def test_immutable() -> None:
    hand = high(p("As Ks Qs Js Ts"))
    with pytest.raises(AttributeError):
        hand.value = 3  # type: ignore[misc]


def test_import_is_fast() -> None:
    # CPU time of the import (numpy included), so that other jobs on a shared machine count less
    code = "import time; t = time.process_time(); import studpoker.evaluate; print(time.process_time() - t)"
    times = [float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(5)]
    assert min(times) < 0.5


hands7 = st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True)


@settings(max_examples=300, deadline=None)
@given(hands7, st.randoms())
def test_order_does_not_matter(cards: list[int], rnd: object) -> None:
    shuffled = list(cards)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert high(cards) == high(shuffled)
    assert razz(cards) == razz(shuffled)
    assert low8_value(cards) == low8_value(shuffled)
    assert high(cards).cards == high(shuffled).cards
    assert razz(cards).cards == razz(shuffled).cards


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=6, max_size=7, unique=True))
def test_adding_a_card_never_hurts(cards: list[int]) -> None:
    before = cards[:-1]
    assert high(cards) >= high(before)
    assert razz(cards) >= razz(before)
    assert low8_value(cards) >= low8_value(before)


@settings(max_examples=200, deadline=None)
@given(hands7)
def test_cards_are_the_best_five(cards: list[int]) -> None:
    hand = high(cards)
    assert len(hand.cards) == 5 and set(hand.cards) <= set(cards)
    assert high(hand.cards) == hand
    assert max(high(c) for c in itertools.combinations(cards, 5)) == hand
    low = razz(cards)
    assert set(low.cards) <= set(cards) and razz(low.cards) == low
    assert max(razz(c) for c in itertools.combinations(cards, 5)) == low


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=7, max_size=9, unique=True), st.randoms())
def test_omaha8_order_does_not_matter(cards: list[int], rnd: object) -> None:
    hole, board = cards[:4], cards[4:]
    hi, lo = omaha8(hole, board)
    hole2, board2 = list(hole), list(board)
    rnd.shuffle(hole2)  # type: ignore[attr-defined]
    rnd.shuffle(board2)  # type: ignore[attr-defined]
    hi2, lo2 = omaha8(hole2, board2)
    assert hi == hi2 and hi.cards == hi2.cards
    assert lo == lo2 and (lo is None or lo2 is None or lo.cards == lo2.cards)
    # two hole cards and three board cards: never better than the best of all the cards
    if len(cards) <= 7:
        assert hi <= high(cards)
