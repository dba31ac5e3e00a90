"""PHH reading and writing: fields, actions, errors (no engine involved)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from studpoker.cards import Card
from studpoker.history.phh import (
    PhhError,
    deck_order,
    dumps_all,
    load_hands,
    loads,
    parse_action,
)

DATA = Path(__file__).parent.parent / "data" / "phh"

STUD = """
variant = "F7S"
antes = [1, 1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [100, 200, 300]
actions = ["d dh p1 AsKd2c", "d dh p2 3c4c5c", "d dh p3 6d7d8d", "p1 pb", "p2 f", "p3 f"]
players = ["Ann", "Bob", "Cy"]
hand = 7
"""


def test_parse_actions() -> None:
    a = parse_action("d dh p2 AsKd7c # nice", 1)
    assert (a.actor, a.verb, a.player, a.commentary) == ("d", "dh", 1, "nice")
    assert a.cards == (Card.parse("As"), Card.parse("Kd"), Card.parse("7c"))
    assert parse_action("d dh p1 ????7c", 2).cards[:2] == (None, None)
    b = parse_action("p3 cbr 250", 3)
    assert (b.player, b.verb, b.amount) == (2, "cbr", 250)
    assert parse_action("  p1   cc  ", 4).verb == "cc"
    assert parse_action("p2 sm", 5).cards == ()
    assert parse_action("p2 sm", 5).mucks
    dash = parse_action("p2 sm -", 5)  # PHH: shows the cards dealt to him
    assert (dash.cards, dash.shows_dealt, dash.mucks) == ((), True, False)
    assert not parse_action("p2 sm ????Ad", 5).mucks  # neither mucked nor shown (a cash game)
    assert parse_action("# just a comment", 6).verb == ""
    assert parse_action("d db 3s7hKs", 7).cards[2] == Card.parse("Ks")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("d dh p1 AsKx", "bad card"),
        ("d dh p1 AsAs", "appears twice"),
        ("d dh x1 AsKd", "not a player"),
        ("p1 cbr ten", "bad amount"),
        ("p1 cbr 2.5", "whole units"),
        ("p1 sd", "standing pat"),
        ("p1 jump", "unknown action"),
        ("d burn", "unknown dealer action"),
    ],
)
def test_bad_actions_name_the_action_number(text: str, reason: str) -> None:
    with pytest.raises(PhhError) as info:
        parse_action(text, 12, file="x.phh")
    assert info.value.action == 12
    assert info.value.file == "x.phh"
    assert reason in str(info.value)
    assert str(info.value).startswith("x.phh: action 12: ")


def test_load_fields_and_roundtrip() -> None:
    (hand,) = loads(STUD, source="s.phh")
    assert hand.variant == "F7S" and hand.game_code == "7S"
    assert hand.antes == [1, 1, 1] and hand.bring_in == 2 and hand.starting_stacks == [100, 200, 300]
    assert hand.players == ["Ann", "Bob", "Cy"] and hand.extra == {"hand": 7}
    text = hand.dumps()
    (again,) = loads(text)
    assert again.fields() == hand.fields()
    assert text.startswith('variant = "F7S"\n')


def test_phhs_sections() -> None:
    (hand,) = loads(STUD)
    text = dumps_all([hand, hand])
    hands = loads(text, source="two.phhs")
    assert [h.source for h in hands] == ["two.phhs [1]", "two.phhs [2]"]
    assert hands[1].fields() == hand.fields()


def test_pokerkit_reads_our_text() -> None:
    from pokerkit.notation import HandHistory

    (hand,) = loads(STUD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = HandHistory.loads(hand.dumps())
        assert list(theirs.actions) == hand.actions
        assert list(list(theirs)[-1].stacks) == [102, 199, 299]


def test_strings_are_escaped() -> None:
    (hand,) = loads(STUD)
    hand.players = ['Ann "the man"', "Bob\\", "Çy ♠"]
    (again,) = loads(hand.dumps())
    assert again.players == hand.players


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (('variant = "F7S"', 'variant = "NT"'), "unknown variant 'NT'"),
        (("bring_in = 2\n", ""), "'bring_in' field is missing"),
        (("antes = [1, 1, 1]", "antes = [1, 1]"), "'antes' has 2 entries for 3 players"),
        (("small_bet = 5", "small_bet = 5.5"), "whole units"),
        (
            ("starting_stacks = [100, 200, 300]", "starting_stacks = [0, 200, 300]"),
            "starting stack of p1 is 0",
        ),
        (("hand = 7", "hand = = 7"), "not a valid TOML"),
    ],
)
def test_bad_fields(change: tuple[str, str], reason: str) -> None:
    text = STUD.replace(*change)
    with pytest.raises(PhhError, match=reason):
        loads(text, source="bad.phh")


def test_missing_file_is_a_phh_error(tmp_path: Path) -> None:
    with pytest.raises(PhhError, match="cannot read"):
        load_hands(tmp_path / "nope.phh")


def test_deck_order_interleaves_rounds() -> None:
    (hand,) = loads(STUD)
    order = deck_order(hand, hand.parsed_actions())
    assert " ".join(map(str, order)) == "As 3c 6d Kd 4c 7d 2c 5c 8d"


def test_deck_order_deals_stand_ins_for_unknown_cards() -> None:
    """p2 folds on 3rd street with his cards unknown: stand-ins (cards the file never names) are
    dealt in their place; his door is one that cannot bring in (p1 brings in with 2c)."""
    (hand,) = loads(STUD.replace("d dh p2 3c4c5c", "d dh p2 ??????"))
    order = deck_order(hand, hand.parsed_actions())
    named = {"As", "Kd", "2c", "6d", "7d", "8d"}
    assert len(order) == 9 and len(set(order)) == 9
    stand_ins = [str(order[i]) for i in (1, 4, 7)]  # p2's three cards
    assert not named & set(stand_ins)
    assert stand_ins[2] == "Ah"  # the highest door left (As is p1's): it cannot bring in


def test_deck_order_rejects_repeated_cards() -> None:
    (hand,) = loads(STUD.replace("d dh p2 3c4c5c", "d dh p2 3c4cAs"))
    with pytest.raises(PhhError, match=r"action 2: card As is dealt twice \(first in action 1\)"):
        deck_order(hand, hand.parsed_actions())


def test_every_fixture_loads() -> None:
    files = sorted(DATA.glob("*.phh"))
    assert len(files) >= 20
    for path in files:
        (hand,) = load_hands(path)
        assert hand.source == str(path)
        assert hand.finishing_stacks is not None
