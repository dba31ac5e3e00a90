"""Positions: the cards each player holds (``??`` unknown), the board and the dead cards, checked
against the game's record (:mod:`studpoker.games`: seats, cards per player, board sizes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from studpoker.cards import Card, CardError, parse_cards
from studpoker.games import Game, UnknownGameError, find_game

HAND_SIZE = 5  # the cards a ranked hand is made of: a stud player needs at least this many
Hands = tuple[tuple[Card | None, ...], ...]  # each player's cards, None for an unknown one


class EquityError(ValueError):
    """A position that cannot be evaluated: bad cards, impossible counts, unknown game."""


def parse_hand(text: str | Sequence[Any]) -> tuple[Card | None, ...]:
    """Cards written together or apart, ``??`` for an unknown card: ``"?? ?? 7s"``."""
    if not isinstance(text, str):
        return tuple(
            None if c is None or c == "??" else Card(c) if isinstance(c, int) else Card.parse(c) for c in text
        )
    compact = "".join(text.replace(",", " ").split())
    if len(compact) % 2:
        raise EquityError(f"{text!r} is not a list of cards: each card is two characters, like 'As' or '??'")
    out: list[Card | None] = []
    for i in range(0, len(compact), 2):
        token = compact[i : i + 2]
        if token == "??":
            out.append(None)
        else:
            try:
                out.append(Card.parse(token))
            except CardError as exc:
                raise EquityError(str(exc)) from None
    return tuple(out)


@dataclass(frozen=True)
class Position:
    """A validated position: known cards per player (``None`` unknown), board, dead cards."""

    game: str
    hands: tuple[tuple[Card | None, ...], ...]
    dead: tuple[Card, ...] = ()
    board: tuple[Card, ...] = ()
    receive: tuple[int, ...] | None = None  # stud: new cards each player still gets (default: to 7)

    @property
    def game_record(self) -> Game:
        """The game's record (:data:`studpoker.games.GAMES`)."""
        return find_game(self.game)

    @property
    def players(self) -> int:
        return len(self.hands)

    def known(self, player: int) -> tuple[int, ...]:
        return tuple(int(c) for c in self.hands[player] if c is not None)

    def to_come(self, player: int) -> int:
        """Cards still drawn from the unseen ones for this player (unknown ones included)."""
        if self.receive is not None:
            return len(self.hands[player]) - len(self.known(player)) + self.receive[player]
        return self.game_record.cards_per_player - len(self.known(player))

    def final_size(self, player: int) -> int:
        """Cards in the player's hand at showdown."""
        return len(self.known(player)) + self.to_come(player)

    def unseen(self) -> tuple[int, ...]:
        used = {int(c) for c in self.dead} | {int(c) for c in self.board}
        for p in range(self.players):
            used.update(self.known(p))
        return tuple(c for c in range(52) if c not in used)

    def board_to_come(self) -> int:
        """Board cards still to be dealt (none in stud)."""
        return self.game_record.board_sizes[-1] - len(self.board)

    def cards_needed(self) -> int:
        return sum(self.to_come(p) for p in range(self.players)) + self.board_to_come()


def position(
    game: str,
    hands: Sequence[str | Sequence[Any]],
    dead: str | Sequence[Any] = "",
    board: str | Sequence[Any] = "",
    receive: int | Sequence[int] | None = None,
) -> Position:
    """Parse and check a position; raises :class:`EquityError` with a clear message.

    ``game`` is a code or an alias (:func:`studpoker.games.find_game`). ``receive`` (stud only)
    is how many more cards each player gets (one number for all, or one per player); by default
    every hand is dealt to seven cards.
    """
    try:
        record = find_game(game)
    except UnknownGameError as exc:
        raise EquityError(str(exc)) from None
    parsed = tuple(parse_hand(h) for h in hands)
    if len(parsed) < 2:
        raise EquityError("give at least two players' hands")
    dead_cards, board_cards = _cards(dead), _cards(board)
    if record.is_stud:
        _check_stud(record, parsed, board_cards)
    else:
        _check_board_game(record, parsed, board_cards)
    _check_each_card_once(parsed, board_cards, dead_cards)
    counts = None if receive is None else _receive_counts(record, parsed, receive)
    hole = record.cards_per_player
    # a board game's hand left empty is all unknown cards
    filled = tuple(h if h or record.is_stud else (None,) * hole for h in parsed)
    pos = Position(record.code, filled, dead_cards, board_cards, counts)
    need, left = pos.cards_needed(), len(pos.unseen())
    if need > left:
        raise EquityError(
            f"impossible counts: {need} cards still to deal but only {left} unseen "
            "(too many players or too many dead cards)"
        )
    return pos


def _cards(text: str | Sequence[Any]) -> tuple[Card, ...]:
    try:
        cards = parse_cards(text if isinstance(text, str) else list(text), allow_empty=True)
    except CardError as exc:
        raise EquityError(str(exc)) from None
    return tuple(cards)


def _check_seats(record: Game, hands: Hands) -> None:
    if len(hands) > record.max_players:
        raise EquityError(f"{record.code} seats at most {record.max_players} players, not {len(hands)}")


def _check_stud(record: Game, hands: Hands, board: tuple[Card, ...]) -> None:
    if board:
        raise EquityError(f"{record.code} has no board: give each player's up cards with his hand")
    _check_seats(record, hands)
    most = record.cards_per_player
    for i, h in enumerate(hands, 1):
        if len(h) > most:
            raise EquityError(f"player {i} has {len(h)} cards: a stud hand has at most {most}")


def _check_board_game(record: Game, hands: Hands, board: tuple[Card, ...]) -> None:
    _check_seats(record, hands)
    hole = record.cards_per_player
    for i, h in enumerate(hands, 1):
        if len(h) not in (0, hole):
            raise EquityError(
                f"player {i} has {len(h)} cards: a {record.short_name} hand is {hole} cards "
                "(use ?? for unknown ones)"
            )
    sizes = record.board_sizes
    if len(board) > sizes[-1]:
        raise EquityError(f"the board has {len(board)} cards: at most {sizes[-1]}")
    if len(board) not in sizes:
        first = next(s for s in record.streets if s.board)
        allowed = ", ".join(map(str, sizes[:-1])) + f" or {sizes[-1]}"
        raise EquityError(
            f"the board is dealt {first.board} cards at once ({first.name}): give {allowed} board cards"
        )


def _check_each_card_once(hands: Hands, board: tuple[Card, ...], dead: tuple[Card, ...]) -> None:
    seen: dict[int, str] = {}
    for label, cards in (
        *((f"player {i}", [c for c in h if c is not None]) for i, h in enumerate(hands, 1)),
        ("the board", list(board)),
        ("the dead cards", list(dead)),
    ):
        for c in cards:
            if int(c) in seen:
                where = seen[int(c)]
                also = "twice" if where == label else f"in {where} and in {label}"
                raise EquityError(f"card {c} appears {also}")
            seen[int(c)] = label


def _receive_counts(record: Game, hands: Hands, receive: int | Sequence[int]) -> tuple[int, ...]:
    if not record.is_stud:
        raise EquityError("the number of cards still to receive is given for stud games only")
    counts = (receive,) * len(hands) if isinstance(receive, int) else tuple(receive)
    if len(counts) != len(hands):
        raise EquityError(f"give one count of cards to receive per player ({len(hands)}), not {len(counts)}")
    most = record.cards_per_player
    for i, (h, n) in enumerate(zip(hands, counts, strict=True), 1):
        if n < 0 or len(h) + n > most:
            raise EquityError(f"impossible counts: player {i} has {len(h)} cards and cannot receive {n} more")
        if len(h) + n < HAND_SIZE:
            raise EquityError(
                f"impossible counts: player {i} would end with {len(h) + n} cards, fewer than {HAND_SIZE}"
            )
    return counts
