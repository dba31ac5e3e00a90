"""``studpoker replay`` and the readable text history."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from studpoker.cards import Deck
from studpoker.cli import main
from studpoker.engine import Action, ActionKind, Hand
from studpoker.games import HouseRules, Stakes, get_game
from studpoker.history.phh import load_hands, replay
from studpoker.history.text import text_history
from studpoker.money import format_money

DATA = Path(__file__).parent.parent / "data" / "phh"
STUD = DATA / "wsop2023-e43-06-stud.phh"
OMAHA = DATA / "wsop2023-e43-79-omaha8.phh"
RAZZ = DATA / "wsop2023-e43-85-razz.phh"


def test_replay_prints_one_json_line_per_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(STUD), str(OMAHA), "--compat", "pokerkit"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["file"] for o in out] == [str(STUD), str(OMAHA)]
    assert out[0] == {
        "file": str(STUD),
        "variant": "F7S",
        "finishing_stacks": [2150000, 9750000, 4675000, 8225000, 4900000],
    }
    assert out[1]["variant"] == "FO/8"


def test_replay_phhs_and_bad_files_keep_going(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    two = tmp_path / "two.phhs"
    body = STUD.read_text()
    two.write_text(f"[1]\n{body}\n[2]\n{body}")
    bad = tmp_path / "bad.phh"
    bad.write_text(body.replace('"p2 cbr 400000",\n    "p3 f"', '"p2 cbr 300000",\n    "p3 f"', 1))
    status = main(["replay", str(bad), str(two), str(tmp_path / "missing.phh")])
    captured = capsys.readouterr()
    assert status == 1
    lines = captured.out.splitlines()
    assert [json.loads(line)["file"] for line in lines] == [f"{two} [1]", f"{two} [2]"]
    errors = captured.err.splitlines()
    assert errors[0].startswith(f"{bad}: action 10: 'p2 cbr 300000' is not legal now")
    assert errors[1].startswith(f"{tmp_path / 'missing.phh'}: cannot read the file")


def test_replay_house_switch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RAZZ), "--house", "max_raises=0", "--house", "heads_up_uncapped=off"]) == 1
    assert "is not legal now" in capsys.readouterr().err
    assert main(["replay", str(RAZZ), "--house", "nonsense=1"]) == 2
    assert "unknown house switch" in capsys.readouterr().err


def test_replay_text(capsys: pytest.CaptureFixture[str]) -> None:
    # the WSOP file counts tournament chips: --chips writes them whole
    assert main(["replay", str(RAZZ), "--text", "--chips"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("studpoker Hand #85: Razz (300000/600000, ante 100000, bring-in 100000)")
    for needle in (
        "*** 3rd STREET ***",
        "Dealt to Player 1 [8c 2h 4c]",
        "Player 2: brings in for 100000",
        "Player 1: completes to 300000",
        "Player 2: raises 300000 to 600000",
        "Player 1: calls 300000",
        "*** 4th STREET ***",
        "Dealt to Player 1 [8c 2h 4c] [Ad]",
        "*** SHOW DOWN ***",
        "*** SUMMARY ***",
    ):
        assert needle in out, needle
    # by default a PHH file's amounts are the room's units, money with two decimals
    assert main(["replay", str(RAZZ), "--text"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("studpoker Hand #85: Razz (3000.00/6000.00, ante 1000.00, bring-in 1000.00)")
    assert "Player 2: raises 3000.00 to 6000.00" in out and "won (53000.00)" in out


def _hand(reveal_seat: int | None = None) -> Hand:
    game = get_game("7S")
    # seat 1: As Ks / Qs; seat 2: 2d 3d / 2c (brings in); seat 3: 7h 8h / 9h
    deck = Deck.stacked("As 2d 7h Ks 3d 8h Qs 2c 9h Ah 4d Th", salt="x")
    hand = Hand(
        game,
        Stakes(ante=1, bring_in=2, small_bet=10, big_bet=20),
        seats=[(1, 100), (2, 100), (3, 40)],
        deck=deck,
    )
    hand.apply(2, Action(kind=ActionKind.BRING_IN, amount=2))
    hand.apply(3, Action(kind=ActionKind.COMPLETE, amount=10))
    hand.apply(1, Action(kind=ActionKind.RAISE, amount=20))
    hand.apply(2, Action(kind=ActionKind.FOLD))
    hand.apply(3, Action(kind=ActionKind.CALL, amount=20))
    return hand


def test_text_views_hide_down_cards() -> None:
    hand = _hand()
    mine = text_history(hand, viewer=1, players={1: "Ann", 2: "Bob", 3: "Cy"}, hand_id=12, table="Rio")
    assert "Table 'Rio' 8-max" in mine
    assert "Seat 1: Ann (1.00 in chips)" in mine
    assert "Dealt to Ann [As Ks Qs]" in mine
    assert "Dealt to Cy [9h]" in mine  # only the up card
    assert "Bob: brings in for 0.02" in mine and "Cy: completes to 0.10" in mine
    assert "Ann: raises 0.10 to 0.20" in mine and "Cy: calls 0.10" in mine
    spectator = text_history(hand)
    assert "Dealt to Player 1 [Qs]" in spectator and "As" not in spectator
    everything = text_history(hand, reveal=True)
    assert "Dealt to Player 3 [7h 8h 9h]" in everything
    assert "*** SUMMARY ***" not in everything  # the hand is not over


def test_text_summary_with_side_pot_and_showdown() -> None:
    hand = _hand()
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        options = hand.legal_actions()
        choice = (
            options.find(ActionKind.BET) or options.find(ActionKind.CALL) or options.find(ActionKind.CHECK)
        )
        assert choice is not None
        hand.apply(seat, choice.action)
    text = text_history(hand, viewer=3)
    assert "*** SHOW DOWN ***" in text
    summary = text[text.index("*** SUMMARY ***") :]
    assert summary.splitlines()[1].startswith("Total pot ")
    assert "Seat 2: Player 2 folded on 3rd street" in summary
    assert "showed [" in summary
    total = sum(e.amount or 0 for e in hand.events if e.kind.value == "award")
    assert f"Total pot {format_money(total)}" in summary


def test_text_omaha_board() -> None:
    (phh,) = load_hands(OMAHA)
    hand = replay(phh, house=HouseRules.pokerkit_compat("O8"))
    text = text_history(hand, reveal=True)
    assert "Table 10-max Seat #3 is the button" in text
    assert "Player 1: posts small blind 1250.00" in text
    assert "*** FLOP *** [4s 3h Qh]" in text
    assert "*** TURN *** [4s 3h Qh] [5s]" in text
    assert "*** RIVER *** [4s 3h Qh 5s] [5d]" in text
    assert "Player 2: raises 500.00 to 8000.00 and is all-in" in text
    assert "Main pot 39000.00. Side pot-1 20000.00." in text
    assert "Board [4s 3h Qh 5s 5d]" in text


def test_text_amounts_are_money_with_two_decimals() -> None:
    """One money format: the table's 0.50/1.00 and 40.00, never the units 50/100 and 4000."""
    hand = Hand(
        get_game("7S"),
        Stakes(ante=10, bring_in=25, small_bet=50, big_bet=100),
        seats=[(1, 4000), (2, 4000)],
        deck=Deck.stacked("As 2d Ks 3d Qs 2c", salt="x"),
    )
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        options = hand.legal_actions()
        choice = (
            options.find(ActionKind.BRING_IN)
            or options.find(ActionKind.BET)
            or options.find(ActionKind.CALL)
            or options.find(ActionKind.CHECK)
        )
        assert choice is not None
        hand.apply(seat, choice.action)
    text = text_history(hand, reveal=True, players={1: "Ann", 2: "Bob"})
    assert "(0.50/1.00, ante 0.10, bring-in 0.25)" in text.splitlines()[0]
    assert "Seat 1: Ann (40.00 in chips)" in text and "Ann: posts the ante 0.10" in text
    assert "Bob: brings in for 0.25" in text and "Ann: calls 0.25" in text
    assert "bets 0.50" in text and "calls 1.00" in text
    won = sum(e.amount or 0 for e in hand.events if e.kind.value == "award")
    assert f"Total pot {format_money(won)}" in text and "." in format_money(won)
    # every amount after a money word has two decimals (cards in brackets and seat numbers aside)
    amounts = re.findall(r"(?:ante|for|calls|bets|to|collected|pot|chips|won) \(?(\d[\d.]*)", text)
    assert amounts and all(re.fullmatch(r"\d+\.\d\d", a) for a in amounts), amounts


def test_replay_text_of_pokerstars_files_keeps_their_denomination(capsys: pytest.CaptureFixture[str]) -> None:
    """A cash game's money in two decimals, a tournament's chips whole: as each file says."""
    stars = Path(__file__).parent.parent / "data" / "pokerstars"
    assert main(["replay", "--text", str(stars / "stud8_quartering_rake.txt")]) == 0
    cash = capsys.readouterr().out
    assert "(0.50/1.00, ante 0.10, bring-in 0.25)" in cash and "Seat 5: Ben (18.40 in chips)" in cash
    assert main(["replay", "--text", str(stars / "tournaments.txt")]) == 0
    tournament = capsys.readouterr().out
    assert "Razz (40/80, ante 10, bring-in 15)" in tournament and "Seat 1: Hero (1200 in chips)" in tournament
