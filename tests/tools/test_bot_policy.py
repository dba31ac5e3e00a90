"""The bots' one policy module: the engine's options and the protocol's (JSON or the server's
models) are chosen from alike, and each policy does what its docstring says."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from studpoker.bots.policy import (
    LOAD_PLAYER,
    ROOM_BOT,
    Style,
    choose_by_equity,
    choose_calling,
    choose_casual,
    choose_offered,
)
from studpoker.engine import ActionKind, LegalOption
from studpoker.server.protocol import LegalOptionInfo

FACING_A_BET: list[dict[str, Any]] = [
    {"kind": "fold"},
    {"kind": "call", "amount": 200},
    {"kind": "raise", "amount": 400, "all_in": False},
]
CHECKED_TO: list[dict[str, Any]] = [{"kind": "check"}, {"kind": "bet", "amount": 20}]


def _engine(options: list[dict[str, Any]]) -> list[LegalOption]:
    return [LegalOption(kind=ActionKind(o["kind"]), amount=o.get("amount", 0)) for o in options]


def test_json_options_and_the_servers_models_are_chosen_alike() -> None:
    models = [LegalOptionInfo(**o) for o in FACING_A_BET]
    for seed in range(300):
        from_json = choose_offered(FACING_A_BET, random.Random(seed), ROOM_BOT, stack=500)
        from_models = choose_offered(models, random.Random(seed), ROOM_BOT, stack=500)
        assert any(from_json is o for o in FACING_A_BET)  # the option itself, not a copy
        assert any(from_models is o for o in models)
        assert from_models.kind == from_json["kind"] and from_models.amount == from_json.get("amount")


def test_engine_options_and_protocol_options_get_the_same_choice() -> None:
    for options in (FACING_A_BET, CHECKED_TO):
        engine = _engine(options)
        for seed in range(300):
            offered = choose_offered(options, random.Random(seed), LOAD_PLAYER)
            chosen = choose_casual(engine, random.Random(seed), LOAD_PLAYER)
            assert (chosen.kind, chosen.amount) == (offered["kind"], offered.get("amount", 0))


def test_casual_policy_mostly_checks_and_calls_and_folds_more_to_a_big_call() -> None:
    rng = random.Random(7)
    checked = Counter(choose_offered(CHECKED_TO, rng, ROOM_BOT)["kind"] for _ in range(2000))
    assert checked["check"] > 3 * checked["bet"] > 0
    deep = Counter(choose_offered(FACING_A_BET, rng, ROOM_BOT, stack=10_000)["kind"] for _ in range(2000))
    short = Counter(choose_offered(FACING_A_BET, rng, ROOM_BOT, stack=500)["kind"] for _ in range(2000))
    assert deep["call"] > deep["fold"] > 0 and deep["raise"] > 0
    assert short["fold"] > 2 * deep["fold"]  # 200 to call is more than a third of 500


def test_calling_policy_never_folds_or_raises() -> None:
    assert choose_calling(_engine(FACING_A_BET)).kind == "call"
    assert choose_calling(_engine(CHECKED_TO)).kind == "check"
    bring_in = [{"kind": "complete", "amount": 20}, {"kind": "bring_in", "amount": 5}]
    assert choose_calling(_engine(bring_in)).kind == "bring_in"


def test_equity_policy_raises_strong_calls_on_odds_and_folds_weak() -> None:
    engine = _engine([*FACING_A_BET, {"kind": "raise", "amount": 600}])
    never_bluff = Style(bluff=0.0)
    rng = random.Random(1)

    def choice(equity: float, pot: int) -> tuple[str, int]:
        option = choose_by_equity(engine, rng, never_bluff, equity=equity, players_in=2, pot=pot, bet=0)
        return option.kind, option.amount

    assert choice(0.9, pot=300) == ("raise", 400)  # the smallest raise
    assert choice(0.3, pot=800) == ("call", 200)  # 200 to win 1,000: 20 % is enough
    assert choice(0.1, pot=300) == ("fold", 0)
    checked_to = _engine(CHECKED_TO)
    weak = choose_by_equity(checked_to, rng, never_bluff, equity=0.1, players_in=3, pot=60, bet=0)
    assert weak.kind == "check"
