"""A whole tournament of bots in the engine, without a server (``studpoker tournament simulate``).

The simulated clock: play goes in **rounds**, every table dealing one hand at the same time; a
round takes ``1 / hands_per_level`` of its level's time (default 10 hands a level), and breaks
pass with no hand dealt (:mod:`.clock` reads the structure). The game of a rotation changes
every ``hands_per_game`` rounds at every table alike. Busts of one hand at a table finish by the
tie rule of :mod:`.standings`; busts at different tables in one round finish in table order (the
simulation's stand-in for the hand that ended first), except hand for hand, where they bust
together. After each round the busted leave and :func:`~.balancing.rebalance` breaks and
balances the tables. Every player is present (none sits out), and the chips are checked after
every hand: the tournament chips in play always equal the entrants times the starting stack.
One ``random.Random(seed)`` draws the seats, the decks, the bots' seeds and the moves, so a seed
replays the same tournament.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from studpoker.bots import Bot, make_bot, play_hand
from studpoker.cards import Deck
from studpoker.engine import Hand
from studpoker.games import Game, Stakes

from .balancing import hand_for_hand, rebalance
from .clock import read
from .payouts import prize_amounts, split_ties
from .positions import next_button
from .rotation import Rotation
from .seating import PlayerId, SeatingError, TableSeats, draw_seats
from .standings import Bust, Standings, bust_groups
from .structure import Level, Structure

DEFAULT_HANDS_PER_LEVEL = 10
MAX_ROUNDS = 100_000  # a guard: the last level repeats, the antes end any tournament well before


class SimulationError(RuntimeError):
    """Raised when the simulation breaks an invariant (chips created or lost) or never ends."""


@dataclass(frozen=True, slots=True)
class HandPlayed:
    """One hand of the simulation, for ``on_hand``: every entrant's chips after it (0: out)."""

    round: int
    table: int
    game: str
    level: int
    hand_for_hand: bool
    seats: Mapping[int, PlayerId]  # the table's seats at the hand
    button: int | None  # board games: the hand's button
    stacks: Mapping[PlayerId, int]


@dataclass(frozen=True, slots=True)
class Place:
    place: int
    player: PlayerId
    bot: str
    payout: int
    tied: int = 1

    def to_dict(self) -> dict[str, object]:
        return {
            "place": self.place,
            "player": self.player,
            "bot": self.bot,
            "payout": self.payout,
            "tied": self.tied,
        }


@dataclass(frozen=True, slots=True)
class TournamentResult:
    play: str
    games: tuple[str, ...]
    skipped: tuple[str, ...]
    entrants: int
    seed: int
    structure: str
    table_size: int
    tables: int
    buy_in: int
    prize_pool: int
    paid: int
    hands: int
    rounds: int
    last_level: int
    moves: int
    hand_for_hand_rounds: int
    places: tuple[Place, ...]

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            name: getattr(self, name) for name in self.__slots__ if name not in ("places", "games", "skipped")
        }
        data["games"] = list(self.games)
        data["skipped"] = list(self.skipped)
        data["places"] = [p.to_dict() for p in self.places]
        return data


def simulate_tournament(
    rotation: Rotation,
    entrants: int,
    *,
    seed: int,
    structure: Structure,
    bots: Sequence[str] = ("equity",),
    hands_per_level: int = DEFAULT_HANDS_PER_LEVEL,
    buy_in: int = 100,
    table_size: int | None = None,
    on_hand: Callable[[HandPlayed], None] | None = None,
) -> TournamentResult:
    """Play the tournament to its winner and pay the places (module docstring)."""
    run = _Run(
        rotation,
        entrants,
        seed=seed,
        structure=structure,
        bots=bots,
        hands_per_level=hands_per_level,
        buy_in=buy_in,
        table_size=table_size,
        on_hand=on_hand,
    )
    return run.run()


class _Run:
    def __init__(
        self,
        rotation: Rotation,
        entrants: int,
        *,
        seed: int,
        structure: Structure,
        bots: Sequence[str],
        hands_per_level: int,
        buy_in: int,
        table_size: int | None,
        on_hand: Callable[[HandPlayed], None] | None,
    ) -> None:
        _check_numbers(entrants, hands_per_level, buy_in)
        size = rotation.max_seats if table_size is None else table_size
        if not isinstance(size, int) or not 2 <= size <= rotation.max_seats:
            raise SeatingError(f"{rotation.name} tables seat 2 to {rotation.max_seats} players, not {size!r}")
        if not bots:
            raise ValueError("name at least one bot")
        self.rotation, self.structure, self.seed = rotation, structure, seed
        self.hands_per_level, self.buy_in, self.on_hand = hands_per_level, buy_in, on_hand
        self.rng = random.Random(seed)
        players = range(1, entrants + 1)
        self.bot_names = {p: bots[(p - 1) % len(bots)] for p in players}
        self.bots: dict[PlayerId, Bot] = {
            p: make_bot(self.bot_names[p], self.rng.randrange(2**32)) for p in players
        }
        self.stacks = dict.fromkeys(players, structure.starting_stack)
        self.total = entrants * structure.starting_stack
        self.seating = draw_seats(
            list(players), size, seed=self.rng.randrange(2**32), uses_button=rotation.uses_button
        )
        self.first_tables = len(self.seating.tables)
        self.standings = Standings(entrants)
        self.amounts = prize_amounts(entrants, entrants * buy_in)
        self.played = Fraction(0)
        self.period_starts = _period_starts(structure)
        self.rounds = self.hands = self.moves = self.h4h_rounds = 0
        self.level_number = 1
        self.stakes: dict[tuple[int, str], Stakes] = {}

    def run(self) -> TournamentResult:
        while self.standings.remaining > 1:
            if self.rounds >= MAX_ROUNDS:
                raise SimulationError(f"no winner after {MAX_ROUNDS} rounds of hands")
            self._play_round()
        (winner,) = self.seating.players
        self.standings.win(winner)
        finishes = self.standings.finishes
        paid = split_ties(finishes, self.amounts)
        places = tuple(
            Place(f.place, f.player, self.bot_names[f.player], paid[f.player], f.tied) for f in finishes
        )
        if sum(paid.values()) != self.buy_in * self.standings.entrants:  # pragma: no cover - payouts.py
            raise SimulationError("the payouts do not add up to the prize pool")
        return TournamentResult(
            play=self.rotation.describe(),
            games=tuple(g.code for g in self.rotation.games),
            skipped=self.rotation.skipped,
            entrants=self.standings.entrants,
            seed=self.seed,
            structure=self.structure.name,
            table_size=self.seating.size,
            tables=self.first_tables,
            buy_in=self.buy_in,
            prize_pool=self.buy_in * self.standings.entrants,
            paid=len(self.amounts),
            hands=self.hands,
            rounds=self.rounds,
            last_level=self.level_number,
            moves=self.moves,
            hand_for_hand_rounds=self.h4h_rounds,
            places=places,
        )

    def _level(self) -> Level:
        """The level of the next round, past any break."""
        reading = read(self.structure, float(self.played))
        if reading.on_break:
            self.played = Fraction(self.period_starts[reading.period + 1])
            reading = read(self.structure, float(self.played))
        self.level_number = reading.level_number
        return reading.level

    def _play_round(self) -> None:
        level = self._level()
        game = self.rotation.game_for_hand(self.rounds)
        together = hand_for_hand(self.standings.remaining, len(self.amounts), len(self.seating.tables))
        self.h4h_rounds += together
        groups: list[list[Bust]] = []
        tables: list[TableSeats] = []
        for table in self.seating.tables:
            if len(table) < 2:  # a lone player waits for the balancing (tables of 2 seats only)
                continue
            busts, played = self._play_hand(table, game, self._stakes(level, game), together)
            groups.append(busts)
            tables.append(played)
        for group in bust_groups(groups, hand_for_hand=together):
            self.standings.bust(group)
        busted = [b.player for group in groups for b in group]
        seating = self.seating.replace(*tables).remove(busted)
        self.seating, moves = rebalance(seating, seed=self.rng.randrange(2**32))
        self.moves += len(moves)
        self.played += Fraction(level.seconds, self.hands_per_level)
        self.rounds += 1

    def _stakes(self, level: Level, game: Game) -> Stakes:
        key = (self.level_number, game.code)
        if key not in self.stakes:
            self.stakes[key] = level.stakes(game)
        return self.stakes[key]

    def _play_hand(
        self, table: TableSeats, game: Game, stakes: Stakes, together: bool
    ) -> tuple[list[Bust], TableSeats]:
        seats = [(seat, self.stacks[player]) for seat, player in sorted(table.seats.items())]
        button = None if game.is_stud else next_button(table.last_button, table.occupied)
        hand = Hand(game, stakes, seats, deck=Deck.shuffled(self.rng, salt=""), button=button)
        play_hand(hand, {seat: self.bots[player] for seat, player in table.seats.items()})
        assert hand.result is not None
        for seat, player in table.seats.items():
            self.stacks[player] = hand.result.final_stacks[seat]
        self.hands += 1
        chips = sum(self.stacks.values())
        if chips != self.total:
            raise SimulationError(
                f"round {self.rounds}, table {table.number}: {chips} chips, not {self.total}"
            )
        if self.on_hand is not None:
            snapshot = MappingProxyType(dict(self.stacks))
            self.on_hand(
                HandPlayed(
                    self.rounds,
                    table.number,
                    game.code,
                    self.level_number,
                    together,
                    MappingProxyType(table.seats),
                    button,
                    snapshot,
                )
            )
        busts = [
            Bust(player, start, table.number, seat)
            for seat, start in seats
            if self.stacks[player := table.seats[seat]] == 0
        ]
        return busts, table if button is None else table.with_button(button)


def _period_starts(structure: Structure) -> list[int]:
    starts = [0]
    for period in structure.periods:
        starts.append(starts[-1] + period.seconds)
    return starts


def _check_numbers(entrants: int, hands_per_level: int, buy_in: int) -> None:
    for name, value, least in (
        ("entrants", entrants, 2),
        ("hands per level", hands_per_level, 1),
        ("buy-in", buy_in, 0),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be a whole number {least} or more, not {value!r}")
