"""A whole tournament of bots in the engine: chips conserved after every hand, places and
payouts, balancing on the way, the rotation and its button, replays by seed
(R-TOURNAMENT-CHIPS, R-MIXED-ROTATION, R-MIXED-BUTTON)."""

from __future__ import annotations

from collections import defaultdict

import pytest

import studpoker.tournament.simulate as simulate_module
from studpoker.bots import play_hand
from studpoker.engine import Hand
from studpoker.tournament.positions import next_button
from studpoker.tournament.rotation import find_rotation
from studpoker.tournament.simulate import HandPlayed, SimulationError, TournamentResult, simulate_tournament
from studpoker.tournament.standard import REGULAR, TURBO
from studpoker.tournament.standings import Bust, bust_groups

RANDOM = ("random",)


def _check_places(result: TournamentResult) -> None:
    places = [p.place for p in result.places]
    assert sorted(p.player for p in result.places) == list(range(1, result.entrants + 1))
    assert places == sorted(places) and places[0] == 1 and places.count(1) == 1
    for place in set(places):  # unique except ties, and a tie spans as many places as players
        assert places.count(place) == next(p.tied for p in result.places if p.place == place)
    assert sum(p.payout for p in result.places) == result.prize_pool == result.entrants * result.buy_in
    assert [p.payout for p in result.places] == sorted((p.payout for p in result.places), reverse=True)


@pytest.mark.parametrize("game", ["7S", "7S8", "RZ", "O8", "LHE", "HORSE", "HOSE"])
def test_chips_are_conserved_after_every_hand_to_the_winner(game: str) -> None:
    hands: list[HandPlayed] = []
    result = simulate_tournament(
        find_rotation(game), 11, seed=4, structure=TURBO, bots=RANDOM, table_size=5, on_hand=hands.append
    )
    total = 11 * TURBO.starting_stack
    assert hands and all(sum(h.stacks.values()) == total for h in hands)
    assert len(hands) == result.hands and hands[-1].round == result.rounds - 1
    winner = result.places[0].player
    assert hands[-1].stacks[winner] == total
    assert result.tables == 3 and result.moves > 0  # 11 players at 5 seats: balanced and broken
    _check_places(result)
    assert [p.payout for p in result.places[:3]] == [600, 300, 200]  # 1,100 on the curve: 6/11, 3/11, 2/11


def test_a_field_of_fifty_balances_breaks_and_plays_hand_for_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    together: list[bool] = []

    def recording(per_table: list[list[Bust]], *, hand_for_hand: bool) -> list[list[Bust]]:
        together.append(hand_for_hand)
        return bust_groups(per_table, hand_for_hand=hand_for_hand)

    monkeypatch.setattr(simulate_module, "bust_groups", recording)
    for seed in range(1, 11):  # the first seed whose bubble lasts a hand (most do)
        hands: list[HandPlayed] = []
        together.clear()
        result = simulate_tournament(
            find_rotation("7S"),
            50,
            seed=seed,
            structure=REGULAR,
            bots=RANDOM,
            hands_per_level=4,
            on_hand=hands.append,
        )
        if result.hand_for_hand_rounds:
            break
    _check_places(result)
    assert result.tables == 7 and result.paid == 8
    bubble = [h for h in hands if h.hand_for_hand]
    assert result.hand_for_hand_rounds == len({h.round for h in bubble}) == together.count(True)
    assert all(sum(1 for s in h.stacks.values() if s > 0) <= result.paid + 1 for h in bubble)
    assert all(len({h.table for h in bubble if h.round == r}) > 1 for r in {h.round for h in bubble})
    per_round: dict[int, set[int]] = defaultdict(set)
    for hand in hands:
        per_round[hand.round].add(hand.table)
    assert len(per_round[0]) == 7 and len(per_round[result.rounds - 1]) == 1  # down to the final table


def test_the_rotation_changes_game_every_eight_hands_and_freezes_the_button_through_stud() -> None:
    hands: list[HandPlayed] = []
    simulate_tournament(find_rotation("HORSE"), 9, seed=2, structure=TURBO, bots=RANDOM, on_hand=hands.append)
    order = ["LHE", "O8", "RZ", "7S", "7S8"]
    assert all(h.game == order[(h.round // 8) % 5] for h in hands)
    assert all((h.button is None) == (h.game not in ("LHE", "O8")) for h in hands)
    last: dict[int, int] = {}
    returns = 0
    for hand in hands:
        if hand.button is None:
            continue
        if hand.table in last:  # the button moves on from where the last board hand had it
            assert hand.button == next_button(last[hand.table], list(hand.seats))
            returns += hand.round % 40 == 0
        last[hand.table] = hand.button
    assert returns > 0  # the board games after a stud round started from the frozen button


def test_the_same_seed_plays_the_same_tournament() -> None:
    def play(seed: int) -> TournamentResult:
        return simulate_tournament(
            find_rotation("HOSE"), 10, seed=seed, structure=TURBO, bots=RANDOM, table_size=6
        )

    assert play(8) == play(8)
    assert play(8).places != play(9).places


def test_levels_follow_the_simulated_clock() -> None:
    hands: list[HandPlayed] = []
    simulate_tournament(
        find_rotation("RZ"),
        4,
        seed=1,
        structure=REGULAR,
        bots=RANDOM,
        hands_per_level=3,
        on_hand=hands.append,
    )
    assert all(h.level == min(h.round // 3 + 1, len(REGULAR.levels)) for h in hands)


def test_a_chip_created_stops_the_simulation(monkeypatch: pytest.MonkeyPatch) -> None:

    def generous(hand: Hand, bots: object) -> Hand:
        play_hand(hand, bots)  # type: ignore[arg-type]
        assert hand.result is not None
        seat = next(iter(hand.result.final_stacks))
        hand.result.final_stacks[seat] += 1
        return hand

    monkeypatch.setattr(simulate_module, "play_hand", generous)
    with pytest.raises(SimulationError, match=r"round 0, table 1: 13501 chips, not 13500"):
        simulate_tournament(find_rotation("7S"), 9, seed=1, structure=TURBO, bots=RANDOM)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"entrants": 1}, "entrants must be a whole number 2 or more"),
        ({"hands_per_level": 0}, "hands per level"),
        ({"buy_in": -5}, "buy-in"),
        ({"table_size": 9}, "tables seat 2 to 8 players"),
        ({"table_size": 1}, "tables seat 2 to 8 players"),
        ({"bots": ()}, "at least one bot"),
        ({"bots": ("shark",)}, "unknown bot 'shark'"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    settings: dict[str, object] = {"entrants": 6, "seed": 1, "structure": TURBO, "bots": RANDOM}
    settings.update(kwargs)
    entrants = settings.pop("entrants")
    with pytest.raises(ValueError, match=message):
        simulate_tournament(find_rotation("7S"), entrants, **settings)  # type: ignore[arg-type]
