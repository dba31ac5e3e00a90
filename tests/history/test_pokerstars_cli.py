"""The command line: ``studpoker replay`` of PokerStars files, ``studpoker import`` into PHH, and
the operator's ``studpoker export`` of the store's hands."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from studpoker.cards import Deck, format_cards
from studpoker.cli import main
from studpoker.engine import Action, Hand
from studpoker.games import HouseRules, Stakes, get_game
from studpoker.history.phh import PhhHand, dump_hand, load_hands, replay
from studpoker.history.pokerstars.check import ReplayedHand, import_file
from studpoker.store import Store, TableConfig
from tests.history.pokerstars_grammar import check_hand, split_file
from tests.store.conftest import write_one

DATA = Path(__file__).parent.parent / "data" / "pokerstars"
GOOD = DATA / "stud8_quartering_rake.txt"
BAD = DATA / "bad_hand_in_middle.txt"


def _json(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def test_replay_reads_pokerstars_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GOOD)]) == 0
    lines = _json(capsys.readouterr().out)
    assert lines == [
        {
            "file": f"{GOOD} [#2001]",
            "variant": "F7S/8",
            "finishing_stacks": [1883, 1382, 2015],
            "winnings": [293, 292, 585],
            "rake": 60,
        },
        {
            "file": f"{GOOD} [#2002]",
            "variant": "F7S/8",
            "finishing_stacks": [2198, 1347, 1965],
            "winnings": [80, 0, 0],
            "rake": 0,
        },
    ]


def test_replay_reports_a_bad_hand_and_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(BAD), str(GOOD)]) == 1
    captured = capsys.readouterr()
    files = [line["file"] for line in _json(captured.out)]
    assert files == [f"{BAD} [#7001]", f"{BAD} [#7004]", f"{GOOD} [#2001]", f"{GOOD} [#2002]"]
    errors = captured.err.splitlines()
    assert errors[0].startswith(f"{BAD}: hand #7002, line 34: 'Jon: raises 30 to 40' cannot be replayed")
    assert errors[1].startswith(f"{BAD}: hand #7003, line 45: skipped: Hold'em No Limit is not fixed limit")
    assert errors[2] == f"{BAD}: hand #7005, line 91: not understood: Ida: 'raises big'"
    assert errors[3] == f"{BAD}: hand #7006, line 100: skipped: the hand was cancelled"


def test_replay_text_of_a_pokerstars_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(DATA / "tournaments.txt")]) == 0
    out = capsys.readouterr().out
    assert "studpoker Hand #5001: Razz" in out and "Hero collected 600 from main pot" in out


def test_import_writes_phh_that_replays_to_the_same_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    files = sorted(DATA.glob("*.txt"))
    assert main(["import", *map(str, files), "--out", str(out)]) == 1  # the file with bad hands
    reports = {Path(str(r["file"])).name: r for r in _json(capsys.readouterr().out)}
    assert reports["bad_hand_in_middle.txt"] == {
        "file": str(BAD),
        "out": str(out / "bad_hand_in_middle.phhs"),
        "hands": 2,
        "errors": 2,
        "skipped": 2,
    }
    assert reports["stud_community_card.txt"]["hands"] == 1
    for path in files:
        written = out / f"{path.stem}.phhs"
        expected = [
            (o.imported.phh.source, o.settlement.finishing_stacks)
            for o in import_file(path)
            if isinstance(o, ReplayedHand)
        ]
        assert len(load_hands(written)) == len(expected)
        assert main(["replay", str(written)]) == 0  # with the rake, settled from _rake and winnings
        replayed = _json(capsys.readouterr().out)
        assert [r["finishing_stacks"] for r in replayed] == [stacks for _, stacks in expected]


def test_import_beside_the_file_and_names_that_collide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = tmp_path / "a" / "hands.txt"
    there = tmp_path / "b" / "hands.txt"
    for path in (here, there):
        path.parent.mkdir()
        shutil.copy(GOOD, path)
    assert main(["import", str(here)]) == 0
    assert (tmp_path / "a" / "hands.phhs").exists()
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["import", str(here), str(there), "--out", str(out), "--no-replay"]) == 0
    assert [r["out"] for r in _json(capsys.readouterr().out)] == [
        str(out / "hands.phhs"),
        str(out / "hands-2.phhs"),
    ]


def test_import_refuses_a_bad_switch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(GOOD), "--house", "nonsense=1"]) == 2
    assert "unknown house switch" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# The operator's export


FAST = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
DAY_ONE = datetime(2026, 3, 1, 22, 0, tzinfo=UTC)


class _Clock:
    def __init__(self) -> None:
        self.now = DAY_ONE

    def __call__(self) -> datetime:
        return self.now


async def _play_room(url: str) -> dict[str, int]:
    """Two tables (stud for three players with a house switch that its hands need, Omaha for
    two), hands on two days, and one Omaha hand stored with a broken history."""
    clock = _Clock()
    store = await Store.open(url, clock=clock, password_hasher=FAST, starting_grant=100_000)
    rng = random.Random(7)
    try:
        accounts = {
            name: (await store.register(name, "correct horse battery")).id
            for name in ("alice", "bobby", "carol")
        }
        stud = await store.create_table(TableConfig.derive("Rio 1", "7S", 10, 20, house="max_raises=4"))
        omaha = await store.create_table(TableConfig.derive("Rio/2", "O8", 10, 20))
        for table, names in ((stud, ["alice", "bobby", "carol"]), (omaha, ["alice", "bobby"])):
            for seat, name in enumerate(names, 1):
                await store.buy_in(accounts[name], table.id, seat, 1_000)
        number = 0
        for day in range(2):
            clock.now = DAY_ONE + timedelta(days=day)
            for table in (stud, omaha) * 3:
                number += 1
                clock.now += timedelta(minutes=5)
                config = table.config
                game = get_game(config.game)
                seated = await store.seats(table.id)
                deck = Deck.shuffled(rng, salt=f"salt-{number}")
                hand = Hand(
                    game,
                    Stakes(
                        ante=config.ante, bring_in=config.bring_in, small_bet=config.small_bet,
                        big_bet=config.big_bet, small_blind=config.small_blind, big_blind=config.big_blind,
                    ),
                    seats=sorted((s, r.stack) for s, r in seated.items()),
                    deck=deck,
                    house=game.default_house.with_overrides(config.house.split()) if config.house else None,
                    button=None if game.is_stud else 1 + number % 2,
                )  # fmt: skip
                hand_id = f"hand{number:02d}"
                await write_one(
                    store,
                    store.start_hand_op(
                        hand_id, table.id, deck.commitment, {s: r.account_id for s, r in seated.items()}
                    ),
                )
                while not hand.is_over:
                    options = hand.legal_actions().options
                    raises = [o for o in options if o.kind in ("complete", "raise")]
                    # stud's 3rd street raised to the cap: five bets, which only this table allows
                    staying = [o for o in options if o.kind != "fold"]  # showdowns: hands are shown
                    option = raises[0] if raises and hand.street == "third" else rng.choice(staying)
                    actor = hand.to_act
                    assert actor is not None
                    hand.apply(actor, Action(kind=option.kind, amount=option.amount))
                players = {s: r.name for s, r in seated.items()}
                broken = number == 6
                await write_one(
                    store,
                    store.finish_hand_op(
                        hand_id,
                        contributions=hand.contributions,
                        awards={s: hand.result.won(s) for s in hand.seat_numbers},
                        phh="not toml ["
                        if broken
                        else dump_hand(hand, players=players, hand_id=hand_id, table=table.name),
                        text="",
                        deck_order=format_cards(deck.order, " "),
                        salt=deck.salt or "",
                    ),
                )
        return accounts
    finally:
        await store.close()


def _house(phh: PhhHand) -> HouseRules:
    """The house rules of the room's tables: the stud table allows four raises."""
    rules = get_game(phh.game_code).default_house
    return rules.with_overrides(["max_raises=4"]) if phh.variant == "F7S" else rules


@pytest.fixture
def room(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'room.sqlite3'}"
    asyncio.run(_play_room(url))
    return url


def test_export_pokerstars_files_per_table_and_day(
    room: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "export"
    assert (
        main(["export", "--format", "pokerstars", "--database-url", room, str(out)]) == 1
    )  # one broken hand
    captured = capsys.readouterr()
    written = {Path(str(r["file"])).name: r["hands"] for r in _json(captured.out)}
    assert written == {
        "Rio_1-2026-03-01.txt": 3,
        "Rio_1-2026-03-02.txt": 3,
        "Rio_2-2026-03-01.txt": 2,  # hand06 was stored with a broken history
        "Rio_2-2026-03-02.txt": 3,
    }
    assert captured.err.startswith("studpoker export: hand hand06: ")
    for path in out.iterdir():
        text = path.read_text(encoding="utf-8")
        hands = split_file(text)
        assert len(hands) == written[path.name]
        for hand_text in hands:
            check_hand(hand_text)  # every line as trackers read it
            assert "(Play Money)" in hand_text.splitlines()[1]
        # every card is written: the hands import back and replay to the ledger's stacks
        outcomes = list(import_file(path, house=_house))
        assert all(isinstance(o, ReplayedHand) for o in outcomes), outcomes
        assert all(
            "??" not in " ".join(o.imported.phh.actions) for o in outcomes if isinstance(o, ReplayedHand)
        )


def test_export_an_accounts_hands_as_he_saw_them(
    room: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "carol"
    assert (
        main(["export", "--format", "pokerstars", "--account", "carol", "--database-url", room, str(out)])
        == 0
    )
    assert sorted(p.name for p in out.iterdir()) == ["Rio_1-2026-03-01.txt", "Rio_1-2026-03-02.txt"]
    for path in out.iterdir():
        for hand_text in split_file(path.read_text(encoding="utf-8")):
            checked = check_hand(hand_text)
            assert checked.hero_lines == 1  # FPDB takes carol as the hero
            assert "Dealt to carol [" in hand_text
    capsys.readouterr()
    phh_out = tmp_path / "carol-phh"
    assert (
        main(["export", "--format", "phh", "--account", "carol", "--database-url", room, str(phh_out)]) == 0
    )
    hands = [h for p in sorted(phh_out.iterdir()) for h in load_hands(p)]
    assert len(hands) == 6
    assert any("??" in " ".join(h.actions) for h in hands)  # the others' down cards are theirs
    shown_by_others = 0
    for phh in hands:
        assert phh.players is not None and "carol" in phh.players
        assert phh.extra["time_zone_abbreviation"] == "UTC" and phh.extra["year"] == 2026
        hand = replay(phh, house=_house(phh))  # the cards she never saw are ??: stand-ins
        assert hand.is_over
        # Her copy (hand_to_phh's seen_by): the others' down cards stay ?? where they were dealt,
        # also when they are shown at the showdown (then in full in their sm).
        carol = f"p{phh.players.index('carol') + 1}"
        for line in phh.actions:
            words = line.split()
            if line.startswith("d dh") and words[2] != carol and len(words[3]) == 6:
                assert words[3].startswith("????"), line
            if words[0] != carol and words[1:2] == ["sm"] and len(words) == 3:
                shown_by_others += 1
    assert shown_by_others  # the rule above was put to the test


def test_export_phh_since_a_date(room: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "phh"
    assert main(["export", "--format", "phh", "--since", "2026-03-02", "--database-url", room, str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["Rio_1-2026-03-02.phhs", "Rio_2-2026-03-02.phhs"]
    stud = load_hands(out / "Rio_1-2026-03-02.phhs")
    assert [h.source.rsplit(" ", 1)[1] for h in stud] == ["[1]", "[2]", "[3]"]
    for phh in stud:
        with pytest.raises(ValueError, match="is not legal"):  # five bets on 3rd street...
            replay(phh)
        replay(phh, house=_house(phh))  # ...as the table's switch allows: the export used it
        assert "??" not in " ".join(phh.actions)


def test_export_refuses_bad_arguments(room: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["export", "--format", "phh", "--since", "yesterday", "--database-url", room, str(tmp_path)])
        == 2
    )
    assert "--since 'yesterday' is not a date" in capsys.readouterr().err
    assert (
        main(["export", "--format", "phh", "--account", "nobody", "--database-url", room, str(tmp_path)]) == 2
    )
    assert "nobody" in capsys.readouterr().err
    missing = f"sqlite+aiosqlite:///{tmp_path / 'none.sqlite3'}"
    assert main(["export", "--format", "phh", "--database-url", missing, str(tmp_path)]) == 2
    assert "no database" in capsys.readouterr().err


def test_replay_text_hides_the_stand_ins_for_unseen_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--text", str(GOOD)]) == 0
    first, second = capsys.readouterr().out.split("studpoker Hand #")[1:]
    assert "Dealt to Ann [As 2d 4h]" in first  # #2001: every card was shown
    assert "Dealt to Hero [Ts Jc 9c]" not in second and "Dealt to Ann [2h]" in second  # #2002: only up cards
