"""Every exported hand imports back to the same PHH: the actions, the cards, the stacks.

With every card printed (the room's record) the imported PHH is the engine's own record of the
hand; seen from one seat it is that seat's record, the cards he never saw written ``??``, and
it replays to the stacks the hand ended with."""

from __future__ import annotations

from pathlib import Path

import pytest

from studpoker.engine import ActionKind, Hand
from studpoker.engine.events import EventKind
from studpoker.games import Stakes
from studpoker.history.phh import PhhHand, hand_to_phh
from studpoker.history.pokerstars import Tournament, pokerstars_history
from studpoker.history.pokerstars.check import ReplayedHand, import_file, import_text
from studpoker.history.pokerstars.phh_record import ImportedHand
from tests.history.pokerstars_hands import names_of, random_hand, stacked_hand

GAMES = ["7S", "7S8", "RZ", "O8", "LHE"]
DATA = Path(__file__).parent.parent / "data" / "pokerstars"


def _play(actions: list[str]) -> list[str]:
    """The deals and the decisions; shows and mucks are notation (a run-out's early show has no
    PokerStars line: the cards are in the deals and at the showdown)."""
    return [a for a in actions if " sm" not in a]


def _one(text: str, *, check: bool = True) -> ImportedHand | ReplayedHand:
    (outcome,) = list(import_text(text, check=check))
    assert isinstance(outcome, ImportedHand | ReplayedHand), outcome
    return outcome


def _same_record(imported: PhhHand, hand: Hand, original: PhhHand) -> None:
    assert _play(imported.actions) == _play(original.actions)
    assert imported.variant == original.variant
    assert imported.seats == original.seats and imported.players == original.players
    assert imported.starting_stacks == original.starting_stacks
    assert imported.finishing_stacks == original.finishing_stacks
    assert (imported.small_bet, imported.big_bet) == (original.small_bet, original.big_bet)
    assert imported.blinds_or_straddles == original.blinds_or_straddles
    # The text gives the ante and the bring-in only as posted: when nobody posts them in full
    # (everyone all-in from the ante, the low card completing) they cannot come back.
    if any(e.kind is EventKind.POST_ANTE and not e.all_in for e in hand.events):
        assert imported.antes == original.antes
    if any(e.kind is EventKind.ACTION and e.action == "bring_in" and not e.all_in for e in hand.events):
        assert imported.bring_in == original.bring_in

    def showdown(actions: list[str]) -> dict[str, str]:  # each player's last show
        return {a.split()[0]: a for a in actions if " sm " in a}

    assert showdown(imported.actions) == showdown(original.actions)


def _round_trip(code: str, seeds: range) -> None:
    for seed in seeds:
        hand = random_hand(code, seed)
        names = names_of(hand)
        original = hand_to_phh(hand, players=names)
        replayed = _one(pokerstars_history(hand, players=names, hand_id=seed, reveal=True))
        assert isinstance(replayed, ReplayedHand)
        _same_record(replayed.imported.phh, hand, original)
        assert replayed.settlement.finishing_stacks == original.finishing_stacks


def _seen_from_each_seat(code: str, seeds: range) -> None:
    for seed in seeds:
        hand = random_hand(code, seed)
        names = names_of(hand)
        full = hand_to_phh(hand, players=names)
        viewer = hand.seat_numbers[seed % len(hand.seat_numbers)]
        text = pokerstars_history(hand, players=names, hand_id=seed, viewer=viewer)
        converted = _one(text, check=False)
        assert isinstance(converted, ImportedHand)
        seat_copy = hand_to_phh(hand, players=names, seen_by=viewer)
        assert _play(converted.phh.actions) == _play(seat_copy.actions)
        replayed = _one(text)  # replayed with stand-ins for the cards the seat never saw
        assert isinstance(replayed, ReplayedHand)
        assert replayed.settlement.finishing_stacks == full.finishing_stacks


@pytest.mark.parametrize("code", GAMES)
def test_exported_hands_import_back_to_the_same_phh(code: str) -> None:
    _round_trip(code, range(150))


@pytest.mark.parametrize("code", GAMES)
def test_a_hand_seen_from_a_seat_imports_to_that_seats_phh(code: str) -> None:
    _seen_from_each_seat(code, range(100))


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
def test_thousands_of_hands_round_trip(code: str) -> None:
    _round_trip(code, range(1_000, 4_000))
    _seen_from_each_seat(code, range(1_000, 3_000))


def test_the_stud_community_card_round_trips() -> None:
    hand = random_hand("7S8", 3, players=8, passive=True)
    assert hand.board
    names = names_of(hand)
    replayed = _one(pokerstars_history(hand, players=names, hand_id=1, reveal=True))
    assert isinstance(replayed, ReplayedHand)
    assert f"d db {hand.board[0]}" in replayed.imported.phh.actions
    _same_record(replayed.imported.phh, hand, hand_to_phh(hand, players=names))


def test_tournament_and_real_money_hands_round_trip() -> None:
    # The hand-written files' hands, replayed and written again in their own denomination.
    for path in sorted(DATA.glob("*.txt")):
        for outcome in import_file(path):
            if not isinstance(outcome, ReplayedHand):
                continue
            parsed = outcome.imported.parsed
            if "??" in " ".join(outcome.imported.phh.actions):
                continue  # stand-ins for unseen cards would be printed as if dealt
            tournament = None
            if parsed.tournament is not None:
                tournament = Tournament(
                    int(parsed.tournament.split("#")[1].split(",")[0]), level=parsed.level or 1
                )
            phh = outcome.imported.phh
            assert phh.seats is not None and phh.players is not None
            text = pokerstars_history(
                outcome.hand,
                players=dict(zip(phh.seats, phh.players, strict=True)),
                hand_id=parsed.number,
                table=parsed.table,
                money=None if tournament else parsed.money,
                tournament=tournament,
                reveal=True,
            )
            again = _one(text)
            assert isinstance(again, ReplayedHand)
            assert _play(again.imported.phh.actions) == _play(phh.actions)
            assert again.imported.parsed.money == parsed.money
            won = [outcome.hand.result.won(s) for s in phh.seats]
            assert again.settlement.winnings == won  # written without rake: every award


def test_a_short_bring_in_takes_its_size_from_a_full_call() -> None:
    # Ann brings in all-in for 1 of 2.50; Bob calls all-in for 0.50; Cyd calls the full 2.50,
    # which is the only line that tells the bring-in's size (Bob's call does not).
    hand = stacked_hand(
        ["As Ks Qs", "Ad Kd Qd", "2c 8h 9h"],
        [200, 150, 10_000],
        [(1, ActionKind.BRING_IN, None), (2, ActionKind.CALL, None), (3, ActionKind.CALL, None)],
    )
    names = {1: "Ann", 2: "Bob", 3: "Cyd"}
    text = pokerstars_history(hand, players=names, hand_id=1, reveal=True)
    assert "Ann: brings in for 1 and is all-in" in text and "Bob: calls 0.50 and is all-in" in text
    replayed = _one(text)
    assert isinstance(replayed, ReplayedHand)
    assert replayed.imported.phh.bring_in == 250
    _same_record(replayed.imported.phh, hand, hand_to_phh(hand, players=names))


def test_a_low_card_completing_all_in_for_less_than_the_small_bet() -> None:
    # Razz, bring-in 5 of a small bet of 20: the king completes all-in for 6. The text says
    # "bets 0.06 and is all-in" and never gives the bring-in; the import takes one below 6.
    hand = stacked_hand(
        ["As 2s", "Kd 3d", "4c Kh"],
        [28, 10],
        [(2, ActionKind.COMPLETE, None), (1, ActionKind.CALL, None)],
        stakes=Stakes(ante=4, bring_in=5, small_bet=20, big_bet=40),
        code="RZ",
    )
    names = {1: "Ann", 2: "Bob"}
    text = pokerstars_history(hand, players=names, hand_id=1, reveal=True)
    assert "Bob: bets 0.06 and is all-in" in text
    replayed = _one(text)
    assert isinstance(replayed, ReplayedHand)
    assert replayed.imported.phh.bring_in == 5
    _same_record(replayed.imported.phh, hand, hand_to_phh(hand, players=names))
