"""Bots through the engine, the bot-match runner and ``studpoker simulate --bots``."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from studpoker.bots import Bot, CallingBot, EquityBot, RandomBot, estimate_equity, make_bot, play_hand
from studpoker.cards import Deck
from studpoker.engine import Action, ActionKind, Hand, HandView, LegalOption
from studpoker.games import Stakes, get_game
from studpoker.tools.match import parse_bots, run_match

GAMES = ["7S", "7S8", "RZ", "O8"]


class Spy:
    """Wraps a bot and checks it is only ever shown its own seat's view."""

    def __init__(self, inner: EquityBot) -> None:
        self.inner = inner
        self.name = "spy"
        self.calls = 0

    def choose(self, view: HandView, legal: Sequence[LegalOption]) -> Action:
        self.calls += 1
        assert view.viewer is not None
        for s in view.seats:
            if s.seat != view.viewer and not view.is_over:
                assert all(c is None for c in s.down) or s.shown or s.folded is False
        action = self.inner.choose(view, legal)
        assert any(o.kind is action.kind and o.amount == action.amount for o in legal)
        return action


@pytest.mark.parametrize("code", GAMES)
def test_bots_play_legal_hands_through_the_engine(code: str) -> None:
    game = get_game(code)
    stakes = Stakes.from_bets(10, 20, game)
    rng = random.Random(1)
    spy = Spy(EquityBot(seed=2))
    for i in range(15):
        seats = [(1, 500), (2, 500), (4, 500)]
        hand = Hand(
            game, stakes, seats, deck=Deck.shuffled(rng), button=seats[i % 3][0] if code == "O8" else None
        )
        play_hand(hand, {1: spy, 2: RandomBot(seed=i), 4: CallingBot()})
        assert hand.is_over and hand.result is not None
        assert sum(hand.result.net.values()) == 0
    assert spy.calls > 0


def test_estimate_equity_uses_visible_cards() -> None:
    game = get_game("7S")
    hand = Hand(
        game, Stakes.from_bets(10, 20, game), [(1, 500), (2, 500)], deck=Deck.stacked("As 2c Ad 7h Ac 8d")
    )
    # one card at a time: seat 1 gets As Ad and the Ac up, seat 2 gets 2c 7h and the 8d up
    view = hand.view(1)
    assert estimate_equity(view, samples=2000, seed=1) > 0.75


@pytest.mark.parametrize("code", GAMES)
def test_equity_bot_beats_random_quick(code: str) -> None:
    result = run_match(code, ["equity", "random"], 150, seed=11)
    seats = result.seats()
    assert result.hands == 150
    assert seats[0].net == -seats[1].net
    assert seats[0].per100 > 0


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
def test_equity_bot_beats_random_over_10000_hands(code: str) -> None:
    result = run_match(code, ["equity", "random"], 10_000, seed=2026)
    bot = result.seats()[0]
    # a clear margin: at least 10 big bets per 100 hands, and the 95 % interval above zero
    assert bot.per100 > 10
    assert bot.per100 - bot.ci95 > 0


def test_parse_bots_and_unknown_bot() -> None:
    assert parse_bots("equity*2, random") == ["equity", "equity", "random"]
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("oracle")


def test_simulate_bots_json_plot_and_plain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from studpoker.cli import main

    png = tmp_path / "bank.png"
    assert main(["simulate", "--game", "RZ", "--bots", "equity,random", "--hands", "40", "--seed", "3",
                 "--json", "--plot", str(png)]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 40 and [s["bot"] for s in data["seats"]] == ["equity", "random"]
    assert {"bb_per_100", "ci95", "net"} <= set(data["seats"][0])
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert (
        main(["simulate", "--game", "7S8", "--bots", "equity,random*2", "--hands", "20", "--seed", "3"]) == 0
    )
    out = capsys.readouterr().out
    assert "BB/100" in out and "hands/s" in out
    # the random-play mode keeps its own output
    assert main(["simulate", "--game", "7S", "--hands", "10", "--seed", "1", "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert set(played) == {"hands", "seconds", "hands_per_second", "game", "hands_per_game", "games"}
    assert [g["game"] for g in played["games"]] == ["7S"] and played["games"][0]["hands"] == 10
    assert main(["simulate", "--bots", "equity,oracle", "--hands", "1"]) == 2
    assert "unknown bot" in capsys.readouterr().err


def test_simulate_bots_keep_histories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("studpoker.history.phh").dump_hand  # noqa: B018
    from studpoker.cli import main

    assert main(["simulate", "--game", "7S8", "--bots", "equity,random", "--hands", "3", "--seed", "5",
                 "--phh", str(tmp_path), "--json"]) == 0  # fmt: skip
    files = sorted(tmp_path.glob("*.phh"))
    assert len(files) == 3
    assert 'variant = "F7S/8"' in files[0].read_text()


@pytest.mark.parametrize("code", GAMES)
def test_bots_answer_through_the_protocol_json(code: str) -> None:
    """The same bots answer from the JSON a server sends (the seat's view and the options)."""
    from studpoker.bots import choose_from_protocol, view_from_dict

    game = get_game(code)
    rng = random.Random(3)
    bots: dict[int, Bot] = {1: EquityBot(seed=1), 2: RandomBot(seed=2)}
    for i in range(6):
        seats = [(1, 500), (2, 500)]
        hand = Hand(game, Stakes.from_bets(10, 20, game), seats, deck=Deck.shuffled(rng),
                    button=seats[i % 2][0] if code == "O8" else None)  # fmt: skip
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            view = hand.view(seat)
            data = json.loads(json.dumps(view.to_dict()))
            rebuilt = view_from_dict(data)
            assert rebuilt.seats == view.seats and rebuilt.board == view.board and rebuilt.pots == view.pots
            assert data["legal"] is not None
            answer = choose_from_protocol(bots[seat], data, data["legal"]["options"])
            hand.act(seat, ActionKind(str(answer["kind"])), answer.get("amount"))  # type: ignore[arg-type]
