"""Player statistics over REST (docs/client.md "Statistics"; the figures are defined in
:mod:`studpoker.store.stats` and docs/histories.md).

``GET /api/me/stats`` gives the caller everything: hands, money (net, per 100 hands, in big
bets) and the curve of his results. ``?kind=tournament`` reads his tournament hands instead of
his cash hands: the same figures, the amounts in tournament chips (``units``), never mixed with
money. ``GET /api/players/{name}/stats`` gives anyone logged in
another player's public figures: hands and the play frequencies, no money (a play-money room
still keeps what a player won or lost his own business). Both need a session: each answer may
replay up to ``stats_max_hands`` hands.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from studpoker.games import get_game
from studpoker.store.models import GAMES
from studpoker.store.stats import Figure, GameStats, HandKind, PlayerStats, PlayerStatsReader

from .deps import RESPONSES, ApiError, CurrentAccount, room_of

router = APIRouter(tags=["stats"])


class FigureOut(BaseModel):
    count: int = Field(description="times it happened")
    of: int = Field(description="times it could have (the figure's chances)")
    rate: float | None = Field(description="count / of; null without a chance")


class PublicGameStatsOut(BaseModel):
    game: str
    name: str
    hands: int
    entry: FigureOut = Field(description="3rd-street entry (Omaha: VPIP pre-flop)")
    completion: FigureOut = Field(description="completed or raised on 3rd street (Omaha: pre-flop raise)")
    saw_second_street: FigureOut = Field(description="still in when 4th street (Omaha: the flop) began")
    showdown: FigureOut = Field(description="went to showdown, of the hands that saw 4th street / the flop")
    won_at_showdown: FigureOut = Field(description="won a share of a pot, of the showdowns")
    unreplayed: int = Field(description="hands whose history did not replay: in no figure")


class GameStatsOut(PublicGameStatsOut):
    net: int
    net_per_100: int | None = Field(description="net per 100 hands, in units")
    big_bets: float = Field(description="net in big bets (each hand in its table's big bet)")
    bb_per_100: float | None = Field(description="big bets won per 100 hands")


class ResultPointOut(BaseModel):
    hand: int = Field(description="the hand's number in the window, 1 = the oldest")
    net: int = Field(description="cumulative net after it")
    hand_id: str
    started_at: datetime


class PublicStatsOut(BaseModel):
    name: str
    kind: HandKind = Field(description="the hands counted: cash hands or tournament hands")
    units: Literal["cents", "chips"] = Field(description="the amounts: money in cents, or tournament chips")
    hands: int
    max_hands: int = Field(description="the window: the last this many hands at most")
    limited: bool = Field(description="there are more hands than the window holds")
    game: str | None
    since: datetime | None
    games: list[PublicGameStatsOut]


class StatsOut(BaseModel):
    name: str
    kind: HandKind = Field(description="the hands counted: cash hands or tournament hands")
    units: Literal["cents", "chips"] = Field(description="the amounts: money in cents, or tournament chips")
    hands: int
    max_hands: int
    limited: bool
    game: str | None
    since: datetime | None
    net: int
    net_per_100: int | None
    big_bets: float
    bb_per_100: float | None
    games: list[GameStatsOut]
    results: list[ResultPointOut] = Field(
        description="cumulative net after each hand, oldest first, downsampled to ?points"
    )


GameQuery = Annotated[str | None, Query(description=f"only this game: {', '.join(GAMES)}")]
SinceQuery = Annotated[
    datetime | None, Query(description="only hands started at or after (ISO 8601; UTC without a zone)")
]
KindQuery = Annotated[
    HandKind, Query(description="cash hands (money) or tournament hands (chips); never mixed")
]
PointsQuery = Annotated[
    int | None, Query(ge=2, description="at most this many points of results (the room's limit caps it)")
]


def _reader(request: Request) -> PlayerStatsReader:
    """The app's one reader (its cache and its bound on replays), made on first use."""
    store = room_of(request).store
    state = request.app.state
    reader: PlayerStatsReader | None = getattr(state, "player_stats", None)
    if reader is None or reader.store is not store:
        settings = state.settings
        reader = PlayerStatsReader(
            store,
            max_hands=settings.stats_max_hands,
            cache_hands=settings.stats_cache_hands,
            concurrent=settings.max_concurrent_stats,
        )
        state.player_stats = reader
    return reader


async def _stats(
    request: Request,
    account_id: int,
    *,
    game: str | None,
    since: datetime | None,
    points: int | None,
    kind: HandKind,
) -> tuple[PlayerStatsReader, PlayerStats, datetime | None]:
    if game is not None and game not in GAMES:
        raise ApiError(422, "invalid", f"game must be one of {', '.join(GAMES)}, not {game!r}")
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    limit = request.app.state.settings.stats_plot_points
    reader = _reader(request)
    stats = await reader.stats(
        account_id, game=game, since=since, points=limit if points is None else min(points, limit), kind=kind
    )
    return reader, stats, since


def _units(kind: HandKind) -> Literal["cents", "chips"]:
    return "chips" if kind == "tournament" else "cents"


def _figure(figure: Figure) -> FigureOut:
    return FigureOut(count=figure.count, of=figure.of, rate=figure.rate)


def _public_game(stats: GameStats) -> PublicGameStatsOut:
    return PublicGameStatsOut(
        game=stats.game,
        name=get_game(stats.game).name,
        hands=stats.hands,
        entry=_figure(stats.entry),
        completion=_figure(stats.completion),
        saw_second_street=_figure(stats.saw_second_street),
        showdown=_figure(stats.showdown),
        won_at_showdown=_figure(stats.won_at_showdown),
        unreplayed=stats.unreplayed,
    )


def _two_places(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _per_100(value: float | None) -> int | None:
    return None if value is None else round(value)


@router.get("/api/me/stats", response_model=StatsOut, responses=RESPONSES)
async def my_stats(
    request: Request,
    account: CurrentAccount,
    *,
    game: GameQuery = None,
    since: SinceQuery = None,
    points: PointsQuery = None,
    kind: KindQuery = "cash",
) -> StatsOut:
    """Your statistics over your last ``stats_max_hands`` finished hands: hands and results
    (total, per game, per 100 hands, in big bets), the figures of your play per game, and
    your cumulative results hand after hand (at most ``points`` of them, evenly spread)."""
    reader, stats, start = await _stats(request, account.id, game=game, since=since, points=points, kind=kind)
    totals = stats.totals
    games = [
        GameStatsOut(
            **_public_game(g).model_dump(),
            net=g.net,
            net_per_100=_per_100(g.net_per_100),
            big_bets=round(g.big_bets, 2),
            bb_per_100=_two_places(g.bb_per_100),
        )
        for g in sorted(stats.games.values(), key=lambda g: GAMES.index(g.game))
    ]
    return StatsOut(
        name=account.name,
        kind=kind,
        units=_units(kind),
        hands=totals.hands,
        max_hands=reader.max_hands,
        limited=stats.limited,
        game=game,
        since=start,
        net=totals.net,
        net_per_100=_per_100(totals.net_per_100),
        big_bets=round(totals.big_bets, 2),
        bb_per_100=_two_places(totals.bb_per_100),
        games=games,
        results=[
            ResultPointOut(hand=p.hand, net=p.net, hand_id=p.hand_id, started_at=p.started_at)
            for p in stats.results
        ],
    )


@router.get("/api/players/{name}/stats", response_model=PublicStatsOut, responses=RESPONSES)
async def player_stats(
    name: str,
    request: Request,
    account: CurrentAccount,
    *,
    game: GameQuery = None,
    since: SinceQuery = None,
    kind: KindQuery = "cash",
) -> PublicStatsOut:
    """Another player's public figures (yours too): hands and the frequencies of his play per
    game over his last ``stats_max_hands`` hands. No money: net results are his own business."""
    if not 0 < len(name) <= 40:
        raise ApiError(404, "not_found", "no such player")
    player = await room_of(request).store.account_by_name(name)  # NotFoundError: 404
    reader, stats, start = await _stats(request, player.id, game=game, since=since, points=2, kind=kind)
    return PublicStatsOut(
        name=player.name,
        kind=kind,
        units=_units(kind),
        hands=stats.totals.hands,
        max_hands=reader.max_hands,
        limited=stats.limited,
        game=game,
        since=start,
        games=[_public_game(g) for g in sorted(stats.games.values(), key=lambda g: GAMES.index(g.game))],
    )
