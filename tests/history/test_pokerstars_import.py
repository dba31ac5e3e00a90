"""Hand-written PokerStars files of each game and each hard case, imported and replayed; and
every way a hand can be wrong, each reported with its hand and line while the file goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from studpoker.engine.events import EventKind
from studpoker.history.phh import loads, replay
from studpoker.history.pokerstars.check import ReplayedHand, import_file, import_text
from studpoker.history.pokerstars.parsed import PokerStarsError, SkippedHand
from studpoker.history.pokerstars.read import decode, split_hands
from studpoker.history.settle import settle

DATA = Path(__file__).parent.parent / "data" / "pokerstars"


def _hands(name: str) -> dict[str, ReplayedHand]:
    out = {}
    for outcome in import_file(DATA / name):
        assert isinstance(outcome, ReplayedHand), str(outcome)
        out[outcome.imported.parsed.number] = outcome
    return out


def _hand(name: str, number: str) -> ReplayedHand:
    return _hands(name)[number]


# file, hand: (PHH seats, finishing stacks net of rake, winnings, rake), in PHH player order
EXPECTED = {
    ("stud_allin_sidepots.txt", "1001"): ([2, 4, 6, 8], [0, 8000, 28200, 11800], [0, 8000, 16400, 0], 0),
    ("stud_allin_sidepots.txt", "1002"): ([2, 4, 6, 8], [14800, 9100, 27500, 11600], [0, 1800, 0, 0], 0),
    ("stud8_quartering_rake.txt", "2001"): ([1, 3, 5], [1883, 1382, 2015], [293, 292, 585], 60),
    ("stud8_quartering_rake.txt", "2002"): ([1, 3, 5], [2198, 1347, 1965], [80, 0, 0], 0),
    ("stud_community_card.txt", "3001"): (list(range(1, 9)), [47600] * 5 + [66800, 47600, 47600], None, 0),
    ("omaha8_real_money.txt", "4001"): ([2, 3, 5, 1], [32, 165, 110, 397], [32, 0, 110, 77], 11),
    ("omaha8_real_money.txt", "4002"): ([7, 4], [47, 98], [47, 48], 5),
    ("tournaments.txt", "5001"): ([1, 2], [1500, 0], [600, 0], 0),
    ("tournaments.txt", "5002"): ([5, 1, 3], [660, 360, 1200], [660, 160, 0], 0),
    ("timeouts.txt", "6001"): ([1, 2, 3], [54600, 36800, 88600], [16000, 10200, 0], 0),
    ("timeouts.txt", "6002"): ([1, 2], [55000, 9800], [800, 0], 0),
}


@pytest.mark.parametrize(("name", "number"), list(EXPECTED), ids=[f"{n}#{h}" for n, h in EXPECTED])
def test_hand_written_hands_replay_to_the_stacks_the_file_gives(name: str, number: str) -> None:
    seats, finishing, winnings, rake = EXPECTED[name, number]
    replayed = _hand(name, number)
    assert replayed.imported.phh.seats == seats
    assert replayed.settlement.finishing_stacks == finishing == replayed.imported.phh.finishing_stacks
    assert replayed.settlement.rake == rake
    if winnings is not None:
        assert replayed.settlement.winnings == winnings
    # no chip is created or lost: what the players end with and the rake is what they began with
    assert sum(finishing) + rake == sum(replayed.imported.phh.starting_stacks)
    # the PHH written is itself a replayable record, with the same end net of rake
    (again,) = loads(replayed.imported.phh.dumps(), source="again")
    assert settle(again, replay(again, check_finishing_stacks=False)).finishing_stacks == finishing


def test_all_in_hands_make_side_pots() -> None:
    hand = _hand("stud_allin_sidepots.txt", "1001").hand
    assert [p.amount for p in hand.result.pots] == [8000, 12000, 4400]
    assert [p.winners for p in hand.result.pots] == [(4,), (6,), (6,)]


def test_hi_lo_quartering_with_rake() -> None:
    replayed = _hand("stud8_quartering_rake.txt", "2001")
    shares = [(s.seat, s.amount, s.half) for s in replayed.hand.result.pots[0].shares]
    # Ben's high half; the low half shared by the two 8-5-4-2-A: the odd unit to the lowest
    # card by suit (Ah before As).
    assert shares == [(5, 615, "high"), (1, 308, "low"), (3, 307, "low")]
    assert replayed.imported.phh.extra["currency"] == "EUR"
    assert replayed.imported.phh.extra["currency_symbol"] == "€"
    assert replayed.imported.phh.extra["_rake"] == 60


def test_omaha_side_pots_quartering_and_a_sitting_out_player() -> None:
    replayed = _hand("omaha8_real_money.txt", "4001")
    assert replayed.imported.phh.players == ["Pia", "Quin", "Rex", "Hero"]  # Sal sat out
    assert replayed.imported.phh.blinds_or_straddles == [5, 10, 0, 0]
    assert "d dh p2 ????????" in replayed.imported.phh.actions  # Quin's cards were never shown
    pots = replayed.hand.result.pots
    assert [p.amount for p in pots] == [140, 90]
    assert sorted((s.seat, s.amount) for s in pots[0].shares) == [(1, 35), (2, 35), (5, 70)]


def test_the_stud_community_card() -> None:
    replayed = _hand("stud_community_card.txt", "3001")
    assert [str(c) for c in replayed.hand.board] == ["5s"]
    actions = replayed.imported.phh.actions
    assert "d db 5s" in actions
    # Cal's copy: the others' down cards are ?? where they were dealt and come with their shows
    # (the community card apart); every card was shown, so the replay needs no stand-in.
    assert "d dh p1 ????2c" in actions and "p1 sm AhKh2c9d4hJc" in actions
    assert "d dh p3 KdQs6d" in actions
    assert not replayed.hand.unknown_cards


def test_a_hand_shown_in_the_summary_only_is_written_as_its_show() -> None:
    """Alice's show line left out: her cards, given only by the summary, are her ``sm`` (her deal
    keeps ``??``), so the showdown still has them."""
    text = HAND_1001.replace("Alice: shows [As 7d 7c 7h Qd 9s 2h] (three of a kind, Sevens)\n", "")
    (replayed,) = list(import_text(text, source="summary.txt"))
    assert isinstance(replayed, ReplayedHand), replayed
    actions = replayed.imported.phh.actions
    assert "d dh p1 ????7c" in actions and actions[-1] == "p1 sm As7d7c7hQd9s2h"
    summary = "Seat 2: Alice showed [As 7d 7c 7h Qd 9s 2h] and lost with three of a kind, Sevens"
    assert replayed.imported.line_of(len(actions)) == _line_of(text, summary)
    whole = _hand("stud_allin_sidepots.txt", "1001")
    assert replayed.settlement.finishing_stacks == whole.settlement.finishing_stacks


def test_uncalled_bets_come_back() -> None:
    for name, number, seat, amount in [
        ("stud_allin_sidepots.txt", "1002", 4, 500),
        ("stud8_quartering_rake.txt", "2002", 1, 25),
        ("tournaments.txt", "5001", 1, 30),
        ("timeouts.txt", "6002", 1, 1000),
    ]:
        hand = _hand(name, number).hand
        assert [(e.seat, e.amount) for e in hand.events if e.kind is EventKind.RETURN] == [(seat, amount)]


def test_timed_out_players() -> None:
    protected = _hand("timeouts.txt", "6001")
    assert "# p2 timed out: all-in under disconnect protection" in protected.imported.phh.actions
    timeouts = [e for e in protected.hand.events if e.kind is EventKind.TIMEOUT]
    # "Amy has timed out" before her check is the clock's check too (the replay's timeout event).
    assert [(e.seat, e.detail) for e in timeouts] == [(1, "check"), (2, "protected_all_in")]
    folded = _hand("timeouts.txt", "6002")
    # "has timed out while disconnected", then folds
    assert folded.imported.phh.actions[-2:] == ["# p2 timed out", "p2 f"]


def test_tournament_hands_count_chips() -> None:
    razz, omaha = _hand("tournaments.txt", "5001"), _hand("tournaments.txt", "5002")
    assert razz.imported.phh.variant == "FR" and omaha.imported.phh.variant == "FO/8"
    assert razz.imported.phh.starting_stacks == [1200, 300]  # "1,200 in chips": one unit a chip
    assert razz.imported.phh.extra["event"] == "Tournament #900001, $2.00+$0.20 USD"
    assert razz.imported.phh.extra["level"] == 3
    assert omaha.imported.phh.extra["level"] == 1 and "currency" not in omaha.imported.phh.extra
    assert (razz.imported.phh.bring_in, razz.imported.phh.small_bet, razz.imported.phh.big_bet) == (
        15,
        40,
        80,
    )


def test_the_header_date_is_the_eastern_time_one() -> None:
    phh = _hand("stud_allin_sidepots.txt", "1001").imported.phh
    assert str(phh.extra["time"]) == "15:05:33" and phh.extra["time_zone_abbreviation"] == "ET"
    assert (phh.extra["day"], phh.extra["month"], phh.extra["year"]) == (14, 2, 2026)


def test_a_bad_hand_in_the_middle_leaves_the_rest_of_the_file() -> None:
    outcomes = list(import_file(DATA / "bad_hand_in_middle.txt"))
    kinds = [type(o).__name__ for o in outcomes]
    assert kinds == [
        "ReplayedHand",
        "PokerStarsError",
        "SkippedHand",
        "ReplayedHand",
        "PokerStarsError",
        "SkippedHand",
    ]
    illegal, garbled = outcomes[1], outcomes[4]
    assert isinstance(illegal, PokerStarsError) and isinstance(garbled, PokerStarsError)
    assert (illegal.hand, illegal.line) == ("7002", 34)
    lines = (DATA / "bad_hand_in_middle.txt").read_text().splitlines()
    assert lines[33] == "Jon: raises 30 to 40"
    assert str(illegal).startswith(
        f"{DATA / 'bad_hand_in_middle.txt'}: hand #7002, line 34: 'Jon: raises 30 to 40' cannot be replayed"
    )
    assert (garbled.hand, garbled.line) == ("7005", 91) and lines[90] == "Ida: raises big"
    skipped = outcomes[2]
    assert isinstance(skipped, SkippedHand) and "Hold'em No Limit" in skipped.reason
    assert isinstance(outcomes[5], SkippedHand) and "cancelled" in outcomes[5].reason
    good = outcomes[3]
    assert isinstance(good, ReplayedHand) and good.settlement.finishing_stacks == [10100, 9900]


# ----------------------------------------------------------------------------------------------
# Files: encodings and splitting


def test_encodings_line_ends_and_spaces_are_read_as_trackers_read_them() -> None:
    text = (DATA / "stud8_quartering_rake.txt").read_text(encoding="utf-8")
    expected = [o.settlement for o in import_text(text) if isinstance(o, ReplayedHand)]
    crlf = text.replace("\n", "\r\n").replace("Seat 1: Hero", "Seat 1:\xa0Hero")
    for data in (
        b"\xef\xbb\xbf" + text.encode("utf-8"),
        crlf.encode("utf-16"),  # with its byte-order mark
        crlf.encode("cp1252"),  # the euro sign is byte 0x80 there, not valid UTF-8
    ):
        decoded = decode(data)
        assert [o.settlement for o in import_text(decoded) if isinstance(o, ReplayedHand)] == expected


def test_hands_are_split_on_blank_lines() -> None:
    text = "A1\nA2\n \nB1\n\n\n\nC1 is a hand of more than fifty characters, or it is a footer\n\nend\n"
    assert split_hands(text) == [
        (1, "A1\nA2"),
        (4, "B1"),
        (8, "C1 is a hand of more than fifty characters, or it is a footer"),
    ]  # a last chunk of 50 characters or less is dropped


# ----------------------------------------------------------------------------------------------
# What is wrong, and where


HAND_1001 = (DATA / "stud_allin_sidepots.txt").read_text().split("\n\n\n\n")[0] + "\n"
HAND_1002 = (DATA / "stud_allin_sidepots.txt").read_text().split("\n\n\n\n")[1] + "\n"
HAND_4002 = (DATA / "omaha8_real_money.txt").read_text().split("\n\n\n\n")[1] + "\n"


def _error(text: str) -> PokerStarsError:
    (outcome,) = list(import_text(text, source="bad.txt"))
    assert isinstance(outcome, PokerStarsError), outcome
    return outcome


def _line_of(text: str, wanted: str) -> int:
    return text.splitlines().index(wanted) + 1


def _edit(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def test_the_good_hands_are_good() -> None:
    for text in (HAND_1001, HAND_1002, HAND_4002):
        assert isinstance(next(iter(import_text(text))), ReplayedHand)


def test_a_call_the_replay_does_not_make() -> None:
    # Internally consistent (the pot adds up) but the call of 10 is written 5.
    bad = _edit(
        HAND_1001,
        ("Carol: calls 10", "Carol: calls 5"),
        ("Total pot 244", "Total pot 239"),
        ("Carol collected 44 from side pot-2", "Carol collected 39 from side pot-2"),
        ("won (164)", "won (159)"),
    )
    error = _error(bad)
    assert error.line == _line_of(bad, "Carol: calls 5")
    assert "Carol calls: 500, but the replay puts in 1000" in error.reason


def test_an_uncalled_bet_the_file_forgets() -> None:
    bad = _edit(
        HAND_1002,
        ("Uncalled bet (5) returned to Bob\n", ""),
        ("Bob collected 18 from pot", "Bob collected 23 from pot"),
        ("Total pot 18", "Total pot 23"),
        ("Seat 4: Bob collected (18)", "Seat 4: Bob collected (23)"),
    )
    error = _error(bad)
    assert "the file returns no uncalled bet; the replay returns 500 to seat 4" in error.reason
    assert error.line == _line_of(bad, "Total pot 23 | Rake 0")


def test_a_collection_the_replay_does_not_award() -> None:
    bad = _edit(
        HAND_1001,
        ("Bob collected 80 from main pot", "Alice collected 80 from main pot"),
        ("and lost with three of a kind, Sevens", "and won (80) with three of a kind, Sevens"),
        ("and won (80) with four of a kind", "and lost with four of a kind"),
    )
    error = _error(bad)
    assert error.line == _line_of(bad, "Alice collected 80 from main pot")
    assert "seat 2 collects 8000, the replay awards 0" in error.reason


@pytest.mark.parametrize(
    ("old", "new", "line", "reason"),
    [
        ("Total pot 244 ", "Total pot 250 ",
         "Total pot 250 Main pot 80. Side pot-1 120. Side pot-2 44. | Rake 0",
         "Total pot 25000, but the lines above put in 24400"),
        ("Dave: checks", "Dave: dances", "Dave: dances", "not understood"),
        ("Dealt to Bob [3h 3c 3d]", "Dealt to Bob [3h 3c 3x]", "Dealt to Bob [3h 3c 3x]", "bad cards"),
        ("Bob: shows [3h 3c 3d Jc 6h Tc 3s]", "Bob: shows [3h 3c 3d Jc 6h Tc 2c]",
         "Bob: shows [3h 3c 3d Jc 6h Tc 2c] (four of a kind, Threes)", "is 3s earlier in the hand, not 2c"),
        ("[As 7d", "[3s 7d", "Alice: shows [3s 7d 7c 7h Qd 9s 2h] (three of a kind, Sevens)",
         "card 3s is dealt twice"),  # Bob's 3s (dealt on the river) in Alice's show
        ("Alice: posts the ante 2", "Alice: posts the ante 1", "Alice: posts the ante 1",
         "posts an ante of 100, the others 200"),
        ("*** 5th STREET ***", "*** 6th STREET ***", "*** 6th STREET ***", "out of order"),
        ("Seat 6: Carol (200 in chips)", "Seat 6: Carol (200 in chips)\nCarol: posts small & big blinds 3",
         "Carol: posts small & big blinds 3", "dead small blind"),
        ("Dave said, \"nh\"", "Dave: raises", "Dave: raises", "not understood"),
        ("Bob: brings in for 5", "Bob: brings in for 5\nBob: brings in for 5", "Bob: brings in for 5",
         "a second bring-in"),
    ],
)  # fmt: skip
def test_errors_name_the_line(old: str, new: str, line: str, reason: str) -> None:
    assert old in HAND_1001
    bad = HAND_1001.replace(old, new)  # everywhere: the summary line too
    error = _error(bad)
    assert reason in error.reason
    wanted = [i + 1 for i, text in enumerate(bad.splitlines()) if text == line]
    assert error.line in wanted
    assert str(error).startswith(f"bad.txt: hand #1001, line {error.line}: ")


def test_blinds_posted_by_the_wrong_players() -> None:
    bad = _edit(
        HAND_4002,
        ("Hero: posts small blind $0.05\nZed: posts big blind $0.10",
         "Zed: posts small blind $0.05\nHero: posts big blind $0.10"),
    )  # fmt: skip
    error = _error(bad)
    assert (
        "the blinds are posted by seats 7 and 4, but the button (seat 4) puts them on seats 4 and 7"
        in error.reason
    )


def test_hands_that_are_not_whole() -> None:
    no_summary = HAND_1002.split("*** SUMMARY ***")[0]
    assert "exactly one '*** SUMMARY ***'" in _error(no_summary).reason
    glued = HAND_1001.rstrip("\n") + "\n" + HAND_1002
    assert "more than one header" in _error(glued).reason
    two_flops = _edit(HAND_4002, ("*** FLOP *** [5s 7d Tc]", "*** FIRST FLOP *** [5s 7d Tc]"))
    assert "not a street of Omaha" in _error(two_flops).reason


def test_other_games_are_skipped_not_failed() -> None:
    pot_limit = _edit(HAND_4002, ("Omaha Hi/Lo Limit", "Omaha Hi/Lo Pot Limit"))
    (outcome,) = list(import_text(pot_limit))
    assert isinstance(outcome, SkippedHand) and "not fixed limit" in outcome.reason


def test_a_rake_that_takes_more_than_the_replay_awards() -> None:
    raked = (DATA / "omaha8_real_money.txt").read_text().split("\n\n\n\n")[1] + "\n"
    bad = _edit(
        raked,
        ("Hero collected $0.48 from pot", "Hero collected $0.53 from pot"),
        ("Zed collected $0.47 from pot", "Zed collected $0.42 from pot"),
        ("won ($0.48)", "won ($0.53)"),
        ("won ($0.47)", "won ($0.42)"),
    )
    error = _error(bad)
    assert "collects 53, the replay awards 50" in error.reason


@pytest.mark.parametrize(
    ("name", "header", "event"),
    [
        (
            "stud8_quartering_rake.txt",
            "PokerStars Hand #2001:  8-Game (7 Card Stud Hi/Lo Limit, €0.50/€1 EUR) - 2026/03/02 20:11:45 ET",
            None,
        ),
        (
            "stud8_quartering_rake.txt",
            "PokerStars Hand #2001:  7 CARD STUD HI/LO LIMIT (€0.50/€1) - 2026/03/02 20:11:45 ET",
            None,
        ),
        (
            "tournaments.txt",
            "PokerStars Hand #5001: Tournament #900001, $2.00+$0.20 USD HORSE (Razz Limit)"
            " - Level III (40/80) - 2026/05/01 18:02:11 ET",
            "Tournament #900001, $2.00+$0.20 USD",
        ),
        (
            "tournaments.txt",
            "PokerStars Hand #5001: Tournament #900001, Freeroll  8-Game (Razz Limit) - Level III (40/80)"
            " - 2026/05/01 18:02:11 ET",
            "Tournament #900001, Freeroll",
        ),
    ],
)
def test_mixed_game_and_capital_headers(name: str, header: str, event: str | None) -> None:
    text = (DATA / name).read_text().split("\n\n\n\n")[0] + "\n"
    original = next(iter(import_text(text)))
    again = next(iter(import_text(header + text[text.index("\n") :])))
    assert isinstance(original, ReplayedHand) and isinstance(again, ReplayedHand), again
    assert again.settlement == original.settlement
    assert again.imported.phh.extra.get("event") == event


def test_the_rake_must_account_for_the_awards() -> None:
    replayed = _hand("omaha8_real_money.txt", "4002")  # awards 50 and 50, collected 47 and 48, rake 5
    phh = replayed.imported.phh
    hand = replayed.hand
    assert settle(phh, hand).finishing_stacks == [47, 98]
    changes: list[tuple[dict[str, object], str]] = [
        ({"winnings": None}, "needs 'winnings'"),
        ({"winnings": [47, 49]}, "leave 4 of the awards [50, 50], but the rake is 5"),
        ({"winnings": [51, 44]}, "p1 collects 51, more than the 50"),
        ({"winnings": [47]}, "must be 2 whole numbers"),
        ({"_rake": -1}, "_rake must be a whole number"),
    ]
    for change, message in changes:
        extra = {**phh.extra, **change}
        if extra.get("winnings") is None:
            extra.pop("winnings")
        phh.extra, saved = extra, phh.extra
        try:
            with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
                settle(phh, hand)
        finally:
            phh.extra = saved
    phh.finishing_stacks, saved_stacks = [48, 97], phh.finishing_stacks
    with pytest.raises(ValueError, match="net of rake 5"):
        settle(phh, hand)
    phh.finishing_stacks = saved_stacks
