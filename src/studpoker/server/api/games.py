"""``GET /api/games``: the public facts of every game, from the registry (:mod:`studpoker.games`),
so that the browser names games, draws boards and counts seats without copies of its own."""

from __future__ import annotations

import dataclasses

from fastapi import APIRouter
from pydantic import BaseModel

from studpoker.games import GAMES, Game

router = APIRouter()


class StreetOut(BaseModel):
    name: str
    down: int  # cards each player gets face down
    up: int  # ... and face up
    board: int  # community cards
    big_bet: bool  # bet in big bets


class GameOut(BaseModel):
    code: str
    name: str
    short_name: str
    board: bool  # a board game (community cards), else stud
    split: bool  # hi/lo: half the pot to the best qualifying low
    hands: list[str]  # how the hands are ranked: "high", "low8" (eight or better), "razz"
    max_seats: int
    streets: list[StreetOut]


def game_out(game: Game) -> GameOut:
    return GameOut(
        code=game.code,
        name=game.name,
        short_name=game.short_name,
        board=game.board,
        split=game.hi_lo,
        hands=list(game.hand_types),
        max_seats=game.max_players,
        streets=[StreetOut(**dataclasses.asdict(street)) for street in game.streets],
    )


@router.get("/api/games", response_model=list[GameOut], tags=["lobby"])
async def list_games() -> list[GameOut]:
    """Every game the room plays, in the lobby's order."""
    return [game_out(game) for game in GAMES.values()]
