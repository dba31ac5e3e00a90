"""Equity: exact results against an independent brute-force count, against poker-equity, errors."""

from __future__ import annotations

import json
import random

import pytest

from studpoker.cards import Card, format_cards, parse_cards
from studpoker.equity import EquityError, equity, position
from tests.tools.reference import brute_equity


def _codes(text: str) -> list[int | None]:
    out: list[int | None] = []
    compact = text.replace(" ", "")
    for i in range(0, len(compact), 2):
        tok = compact[i : i + 2]
        out.append(None if tok == "??" else int(Card.parse(tok)))
    return out


def _small_dead(hands: list[str], board: str, pool: int, seed: int) -> str:
    """Dead cards that leave exactly ``pool`` unseen cards (a small, brute-forceable position)."""
    used = {c for h in hands for c in _codes(h) if c is not None} | {
        int(c) for c in parse_cards(board, allow_empty=True)
    }
    rest = [c for c in range(52) if c not in used]
    random.Random(seed).shuffle(rest)
    return format_cards(sorted(rest[: len(rest) - pool]), " ")


CASES = [
    # game, hands, board, unseen cards left
    ("7S", ["AsKsQhJh", "7c7d2s3s"], "", 9),  # heads-up 4th street: inclusion-exclusion, |T| <= 3
    ("7S", ["AsKs Qh Jh 9h", "7c7d 2s 3s 7h"], "", 12),
    ("7S8", ["As2s3h4h", "7c7d2c3s"], "", 9),
    ("7S8", ["As2s 3h 4h 8d", "Ac3c 5c 6c Kd"], "", 11),
    ("7S8", ["Ah2h 3d 4d 5c Kc", "Ad2d 3c 4c 5s Ks"], "", 16),  # equal lows, quartering
    ("RZ", ["As2s3h4h", "7c7d2c3s"], "", 9),
    ("RZ", ["?? ?? 3h 4h 5h", "7c7d 2c 3s 9d"], "", 10),  # unknown down cards
    ("7S", ["AsKs Qh Jh 9h 2c", "7c7d 2s 3s 7h 4d", "8c8d 9c Tc Jc 4h"], "", 16),  # 3-way enumeration
    ("7S8", ["As2s 3h 4h 8d 9d", "Ac3c 5c 6c Kd 7h", "Qh Qd 5d 6d 7s 8h"], "", 14),
    ("O8", ["As2s3h4h", "7c7d8s9s"], "2c 4d 9h", 20),
    ("O8", ["As2s3h4h", "7c7d8s9s", "Ah 2d Kc Kh"], "2c 4d 9h Td", 25),
    ("LHE", ["AsKs", "7c7d"], "2s 4s 9h", 20),
    ("LHE", ["AsKs", "7c7d", "????"], "2s 4s 9h Td", 25),  # an unknown hand
    ("LHE", ["AhKh", "AdKd"], "", 12),  # pre-flop, mostly split pots
]


@pytest.mark.parametrize(("game", "hands", "board", "pool"), CASES)
def test_exact_matches_brute_force(game: str, hands: list[str], board: str, pool: int) -> None:
    dead = _small_dead(hands, board, pool, seed=len(hands) * pool)
    result = equity(game, hands, dead=dead, board=board)
    assert result.exact
    expected, runouts = brute_equity(
        game,
        [_codes(h) for h in hands],
        [int(c) for c in parse_cards(dead, allow_empty=True)],
        [int(c) for c in parse_cards(board, allow_empty=True)],
    )
    assert result.deals == runouts
    for got, want in zip(result.players, expected, strict=True):
        assert got.equity == pytest.approx(want, abs=1e-12)
    assert sum(p.equity for p in result.players) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("game", "hands", "receive"),
    [
        ("7S", ["AsKs Qh Jh", "7c7d 2s 3s", "9h9d Tc Jc"], 1),  # one more card each: six-card hands
        ("7S8", ["As2s 3h 4h", "7c7d 8s 6s"], [2, 1]),
        ("RZ", ["?? ?? 3h 4h", "7c7d 2c 3s"], 1),
    ],
)
def test_cards_to_receive(game: str, hands: list[str], receive: int | list[int]) -> None:
    dead = _small_dead(hands, "", 12, seed=5)
    result = equity(game, hands, dead=dead, receive=receive)
    counts = [receive] * len(hands) if isinstance(receive, int) else receive
    expected, runouts = brute_equity(
        game, [_codes(h) for h in hands], [int(c) for c in parse_cards(dead, allow_empty=True)], [], counts
    )
    assert result.exact and result.deals == runouts
    for got, want in zip(result.players, expected, strict=True):
        assert got.equity == pytest.approx(want, abs=1e-12)


def test_heads_up_split_details_match_enumeration() -> None:
    """Inclusion-exclusion and plain enumeration agree on every figure (win, tie, scoop, halves)."""
    hands = ["As2s3h4h", "7c7d2c3s"]
    dead = _small_dead(hands, "", 14, seed=3)
    fast = equity("7S8", hands, dead=dead)
    assert fast.method == "inclusion-exclusion"
    from studpoker.equity.result import make_result
    from studpoker.equity.stud import enumerate_stud
    from studpoker.equity.tables import StudTables

    pos = position("7S8", hands, dead=dead)
    slow = make_result(pos, enumerate_stud(pos, StudTables(pos)), True, 0.0, "enumeration")
    assert fast.deals == slow.deals
    for a, b in zip(fast.players, slow.players, strict=True):
        for name in ("equity", "win", "tie", "scoop", "high", "low"):
            assert getattr(a, name) == pytest.approx(getattr(b, name), abs=1e-12), name


def test_monte_carlo_interval_covers_exact() -> None:
    hands = ["AsKs Qh Jh 9h 2d", "7c7d 2s 3s 7h 5d", "8c8d 9c Tc 4h 6d"]
    exact = equity("7S", hands, exact=True)
    sampled = equity("7S", hands, exact=False, precision=0.004, seed=7)
    assert not sampled.exact
    for e, s in zip(exact.players, sampled.players, strict=True):
        assert 0 < s.margin <= 0.004
        assert abs(e.equity - s.equity) <= 1.5 * s.margin


def test_heads_up_third_street_is_exact_and_matches_poker_equity() -> None:
    pe = pytest.importorskip("poker_equity")
    result = equity("7S", ["AsKs Qh", "7c7d 2s"], dead="Qd 2h")
    assert result.exact and result.deals == 135751 * 91390
    ref = pe.chunk_from_text("stud", ["AsKsQh", "7c7d2s"], dead="Qd2h", samples=400_000, seed=1, threads=1)
    for mine, theirs in zip(result.players, ref["players"], strict=True):
        assert abs(mine.equity - theirs["equity"]) < 4 * theirs["std_error"] + 1e-9


@pytest.mark.parametrize(
    ("game", "pe_game", "hands", "board"),
    [
        ("7S", "stud", ["AsKsQhJh2c3c", "7c7d2s5h6h9c"], ""),
        ("7S8", "stud_hi_lo", ["As2s3h4h9c", "7c7d2c3s8h"], ""),
        ("RZ", "razz", ["As2s3h4hKd", "7c7d2c3s5s"], ""),
        ("O8", "omaha_hi_lo", ["AsKs2h3h", "7c7d8s9s"], "2c4d9h"),
        ("LHE", "holdem", ["AsKs", "7c7d"], "2s4s9h"),
        ("LHE", "holdem", ["AhKh", "QsJs", "7c7d"], "2s4s9hTd"),
    ],
)
def test_exact_matches_poker_equity(game: str, pe_game: str, hands: list[str], board: str) -> None:
    pe = pytest.importorskip("poker_equity")
    mine = equity(game, hands, board=board)
    theirs = pe.exact_from_text(pe_game, hands, board=board)
    assert mine.exact and theirs is not None and theirs["exact"]
    for a, b in zip(mine.players, theirs["players"], strict=True):
        assert a.equity == pytest.approx(b["equity"], abs=1e-9)
        assert a.scoop == pytest.approx(b["scoop"], abs=1e-9)
        if game in ("7S8", "O8"):
            assert a.low is not None
            assert a.low / 2 == pytest.approx(b["low_equity"], abs=1e-9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("7S", ["AsKs", "As2c"]), "As appears in player 1 and in player 2"),
        (("7S", ["AsKsAs", "2c3c4c"]), "As appears twice"),
        (("7S", ["AsKs", "2c3c"], "Ks"), "Ks appears in player 1 and in the dead cards"),
        (("DRAW", ["AsKs", "2c3c"]), "unknown game"),
        (("LHE", ["AsKs2c", "2d3d"]), "2 cards"),
        (("7S", ["AsKs2c3c4c5c6c7c", "2d"]), "at most 7"),
        (("7S", ["AsKs"]), "at least two"),
        (("O8", ["AsKs2c", "2d3d4d5d"]), "4 cards"),
        (("7S", ["AsKsQs"] * 1 + ["??????"] * 7), "impossible counts"),
        (("7S", ["AsKs", "Xx"]), "unknown rank"),
    ],
)
def test_errors(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(EquityError, match=message):
        equity(*args)  # type: ignore[arg-type]


def test_cli_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    from studpoker.cli import main

    assert main(["equity", "--game", "7S", "AsKs Qh Jh", "7c7d 2s 3s", "--dead", "Qd 2h"]) == 0
    out = capsys.readouterr().out
    assert "As Ks Qh Jh" in out and "exact" in out
    assert main(["equity", "--game", "7S8", "As2s3h4h", "7c7d2c3s", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exact"] is True and len(data["players"]) == 2
    assert abs(sum(p["equity"] for p in data["players"]) - 1) < 1e-9
    assert main(["equity", "--game", "7S", "AsKs", "As2c"]) == 2
    assert "appears" in capsys.readouterr().err
    assert main(["equity", "--game", "7S", "AsKsQhJh", "7c7d2s3s", "--receive", "1,2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"] is True
    assert main(["equity", "--game", "7S", "AsKsQhJh", "7c7d2s3s", "--receive", "x"]) == 2
    assert "--receive" in capsys.readouterr().err


def test_permuting_players_permutes_the_result() -> None:
    hands = ["AsKs Qh Jh 9h 2d", "7c7d 2s 3s 7h 5d", "8c8d 9c Tc 4h 6d"]
    base = equity("7S8", hands, exact=True)
    for order in ([1, 2, 0], [2, 0, 1], [1, 0, 2]):
        moved = equity("7S8", [hands[i] for i in order], exact=True)
        for j, i in enumerate(order):
            for name in ("equity", "win", "tie", "scoop", "high", "low"):
                assert getattr(moved.players[j], name) == pytest.approx(
                    getattr(base.players[i], name), abs=1e-12
                )
    assert sum(p.equity for p in base.players) == pytest.approx(1.0)
