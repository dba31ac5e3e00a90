"""The games registry (studpoker.games): one record per game with every fact, found by code or
alias, and no copy of a game table anywhere else in the code (server, browser included)."""

from __future__ import annotations

import ast
import dataclasses
import doctest
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import studpoker.evaluate
import studpoker.games
from studpoker.games import (
    GAMES,
    Game,
    HouseRules,
    Stakes,
    UnknownGameError,
    find_game,
    game_of_phh_variant,
    game_of_pokerstars_title,
    get_game,
    pokerstars_titles,
)
from tests.server.conftest import make_settings, running_server

SRC = Path(studpoker.games.__file__).parent
REGISTRY = SRC / "games.py"


@pytest.mark.parametrize("code", list(GAMES))
def test_every_game_has_every_fact(code: str) -> None:
    game = GAMES[code]
    assert game.code == code and game.code == game.code.upper()
    for name in ("name", "short_name", "phh_variant"):
        assert isinstance(getattr(game, name), str) and getattr(game, name).strip(), name
    assert game.aliases and all(a == a.lower() and a.strip() for a in game.aliases)
    assert game.pokerstars_titles and game.pokerstars_title == game.pokerstars_titles[0]
    assert game.kind in ("stud", "omaha", "holdem") and game.is_stud == (game.kind == "stud")
    assert game.has_button == game.board and game.two_plus_three == (game.kind == "omaha")
    assert game.streets and game.cards_per_player > 0
    assert game.board == (not game.is_stud) == (game.board_sizes[-1] > 0)
    assert 2 <= game.min_players <= game.max_players
    assert isinstance(game.default_house, HouseRules)
    assert game.hand_types
    for hand_type in game.hand_types:  # each hand type names its evaluators
        for name in (hand_type, f"{hand_type}_value", f"batch_{hand_type}"):
            assert callable(getattr(studpoker.evaluate, name)), name
    assert game.hi_lo == (game.low_kind == "eight_or_better")
    forced = game.forced_bets.amounts(100, 200)
    stakes = Stakes.from_bets(100, 200, game)
    assert {k: getattr(stakes, k) for k in forced} == forced
    assert (stakes.bring_in > 0) == game.is_stud and (stakes.big_blind > 0) == game.board


def test_facts_that_name_a_game_name_one_game() -> None:
    records = list(GAMES.values())
    names = [name for game in records for name in game.names()]
    assert len(names) == len(set(names)), "a code or alias names two games"
    assert len({g.phh_variant for g in records}) == len(records)
    titles = [t for g in records for t in g.pokerstars_titles]
    assert len(titles) == len(set(titles))
    assert len(pokerstars_titles()) == 2 * len(titles)  # each also in capitals


def test_aliases_and_codes_resolve_in_any_case() -> None:
    for game in GAMES.values():
        for name in (game.code, game.code.lower(), *game.aliases, *(a.upper() for a in game.aliases)):
            assert find_game(name) is game, name
        assert game_of_phh_variant(game.phh_variant) is game
        for title in game.pokerstars_titles:
            assert game_of_pokerstars_title(title) is game
            assert game_of_pokerstars_title(title.upper()) is game
    assert find_game("stud").code == "7S" and find_game("7cs").code == "7S"
    assert find_game("razz").code == "RZ" and find_game("omaha8").code == "O8"
    assert get_game is find_game


@pytest.mark.parametrize("name", ["draw", "", "7S ", "F7S", "Razz Limit"])
def test_unknown_names_quote_the_input_and_list_the_codes(name: str) -> None:
    with pytest.raises(UnknownGameError) as caught:
        find_game(name)
    assert repr(name) in str(caught.value)
    assert ", ".join(GAMES) in str(caught.value)
    assert issubclass(UnknownGameError, ValueError)


def test_unknown_history_names_quote_the_input() -> None:
    with pytest.raises(UnknownGameError, match=r"'NT' \(studpoker plays F7S, F7S/8, FO/8, FR, FT\)"):
        game_of_phh_variant("NT")
    with pytest.raises(UnknownGameError, match=re.escape(repr("Hold'em No Limit"))):
        game_of_pokerstars_title("Hold'em No Limit")


def test_records_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        GAMES["7S"].max_players = 9  # type: ignore[misc]


def test_docstring_examples() -> None:
    result = doctest.testmod(studpoker.games)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------------------------------
# No copies: a game fact is written in games.py only.

OLD_TABLES = (
    "VARIANT_OF_GAME", "GAME_OF_VARIANT", "STUD_VARIANTS", "GAME_NAMES", "DEFAULT_GAMES",
    "SPLIT_GAMES", "STUD_GAMES", "GAME_TITLES", "GAME_OF_TITLE",
)  # fmt: skip


def _fact_strings() -> set[str]:
    """The strings that name a game: codes, PHH variants, PokerStars game strings."""
    facts = set(GAMES)
    for game in GAMES.values():
        facts.add(game.phh_variant)
        facts.update(t for title in game.pokerstars_titles for t in (title, title.upper()))
    return facts


def _strings(nodes: list[ast.expr | None]) -> set[str]:
    return {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def game_table_copies(source: str, facts: set[str]) -> Iterator[str]:
    """Where Python source keeps game facts of its own: a dict, list, tuple or set naming two or
    more games, a comparison with a game name (``game == "O8"``), an old table's name."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in OLD_TABLES:
                yield f"line {node.lineno}: {name}"
        elif isinstance(node, ast.Dict):
            named = (_strings(node.keys) | _strings(list(node.values))) & facts
            if len(named) >= 2:
                yield f"line {node.lineno}: a dict of games {sorted(named)}"
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            named = _strings(list(node.elts)) & facts
            if len(named) >= 2:
                yield f"line {node.lineno}: a list of games {sorted(named)}"
        elif isinstance(node, ast.Compare):
            named = _strings([node.left, *node.comparators]) & facts
            if named:
                yield f"line {node.lineno}: a comparison with {sorted(named)}"


def test_the_copy_finder_finds_copies() -> None:
    facts = _fact_strings()
    copies = [
        'GAME_NAMES = {"7S": "Stud"}',
        'NAMES = {"7S": "Stud", "RZ": "Razz"}',
        'GAMES = ("7S", "7S8", "RZ", "O8")',
        'omaha = view.game == "O8"',
        'split = game in ("7S8", "O8")',
        'title = {"Razz": 1, "7 Card Stud": 2}',
        'razz = phh.variant == "FR"',
    ]
    for source in copies:
        assert list(game_table_copies(source, facts)), source
    innocent = [
        'parser.add_argument("--game", default="7S")',
        'def prepare(game: str = "7S") -> None: ...',
        'kinds = {"stud": 1, "omaha": 2}',
        'parts = ("Seat 1", "Seat 2")',
        'note = "7S and O8 tables"',
    ]
    for source in innocent:
        assert not list(game_table_copies(source, facts)), source


def test_no_module_outside_games_py_keeps_a_game_table() -> None:
    facts = _fact_strings()
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == REGISTRY:
            continue
        for where in game_table_copies(path.read_text(encoding="utf-8"), facts):
            found.append(f"{path.relative_to(SRC)} {where}")
    assert not found, "game facts copied outside studpoker/games.py:\n" + "\n".join(found)


_CODE = "|".join(re.escape(code) for code in GAMES)
_JS_COPIES = (
    re.compile(rf"""[!=]==?\s*["'](?:{_CODE})["']|["'](?:{_CODE})["']\s*[!=]==?"""),  # game === "O8"
    re.compile(rf"""(?:^|[{{,])\s*["']?(?:{_CODE})["']?\s*:""", re.MULTILINE),  # { O8: ... }
    re.compile(rf"""\[[^\]]*["'](?:{_CODE})["'][^\]]*["'](?:{_CODE})["'][^\]]*\]"""),  # ["7S", "O8"]
    re.compile(r"\bGAME_NAMES\b"),
)


def test_the_browser_keeps_no_game_table() -> None:
    for source in ('if (game === "O8") x();', "const N = {\n  RZ: 'Razz',\n};", 'const G = ["7S", "RZ"];'):
        assert any(p.search(source) for p in _JS_COPIES), source
    assert not any(p.search('const t = { game: "7S", max_seats: 8 };') for p in _JS_COPIES)
    found = [
        f"{path.name}: {match.group(0).strip()!r}"
        for path in sorted((SRC / "web" / "js").glob("*.js"))
        for pattern in _JS_COPIES
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found, "game facts copied in the browser (use js/games.js):\n" + "\n".join(found)


# ---------------------------------------------------------------------------------------------
# GET /api/games


def _public(game: Game) -> dict[str, object]:
    return {
        "code": game.code,
        "name": game.name,
        "short_name": game.short_name,
        "board": game.board,
        "split": game.hi_lo,
        "hands": list(game.hand_types),
        "max_seats": game.max_players,
        "streets": [dataclasses.asdict(street) for street in game.streets],
    }


async def test_api_games_answers_the_registry(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as server:
        response = await server.http.get("/api/games")
    assert response.status_code == 200
    assert response.json() == [_public(game) for game in GAMES.values()]
