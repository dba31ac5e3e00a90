"""The deck of a PHH replay: the file's cards in the engine's dealing order, with stand-ins for
the cards the file does not know (``??``).

Real hand histories write the hole cards of players who folded or mucked as ``??`` (PHH's
unknown card). Such a card is filled in from the player's own ``sm`` (show) when he shows it
later; otherwise a stand-in (a card the file never names) is dealt in its place, and the replay
forgets it afterwards. A stand-in must not decide anything:

* down cards decide nothing before a showdown (the replay refuses a showdown that needs one);
* a stud door card decides the bring-in: it may be unknown only for a player who gets no card
  after 3rd street, and its stand-in is then a card that brings in only if the file has that
  player bring in (the highest door for the others, the lowest for him);
* the other stud up cards decide who acts first, and the board is everyone's: both must be known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from studpoker.cards import Card
from studpoker.engine.showing import bring_in_key
from studpoker.games import HouseRules

from .model import PhhAction, PhhError, PhhHand

# Stud positions of a player's cards in dealing order: two down, the door, 4th-6th up, 7th down.
DOOR = 2
_STUD_UP = frozenset({2, 3, 4, 5})
_STUD_STREET = ("3rd", "3rd", "3rd", "4th", "5th", "6th", "7th")


@dataclass(frozen=True, slots=True)
class DealPlan:
    """What a replay deals.

    ``order``: the top of the stacked deck (burnt filler cards included). ``hole``: each
    player's cards in the file's order as the engine will deal them (unknown ones that the file
    shows later filled in, stand-ins for the rest). ``unknown``: each player's stand-ins (a
    player who needs none is not listed). ``stand_ins``: all of them.
    """

    order: list[Card]
    hole: list[list[Card]]
    board: list[Card]
    unknown: dict[int, list[Card]]

    @property
    def stand_ins(self) -> frozenset[Card]:
        return frozenset(card for cards in self.unknown.values() for card in cards)


def plan_deal(phh: PhhHand, actions: Sequence[PhhAction], *, house: HouseRules | None = None) -> DealPlan:
    """The cards of the file in the order the engine deals them (see the module docstring).

    The engine deals stud one card at a time clockwise from the lowest seat (three rounds on
    3rd street, then one card per street to each player still in; a community card when the
    deck runs short), Omaha the four hole cards one at a time from the player left of the button
    (p1) and then the flop, turn and river. Players' cards are taken in file order, so a file may
    give them per street or all at once; ``house.burn_cards`` puts a filler card before each
    street after the first (the burnt cards are not in PHH files). Raises :class:`PhhError`.
    """
    stud = phh.game.is_stud

    def fail(reason: str, number: int | None = None) -> PhhError:
        return PhhError(reason, file=phh.source, action=number)

    cards = _file_cards(phh, actions, fail)
    hole = cards.hole
    unknown: dict[int, list[Card]] = {}
    pool = [Card(code) for code in range(52) if code not in cards.seen]
    if stud:
        _check_stud_up_cards(cards, fail)
        razz = phh.game.bring_in == "highest_up_ace_low"  # razz: the highest up card brings in
        by_suit = house is None or house.bring_in_tie == "suit"
        pool.sort(key=lambda c: bring_in_key(c, razz=razz, by_suit=by_suit))  # first: brings in
        bring_in_player = _first_actor(actions)
        for player, held in enumerate(hole):
            if len(held) > DOOR and held[DOOR] is None:
                # Only the file's bring-in player gets a door that brings in.
                stand_in = pool.pop(0) if player == bring_in_player else pool.pop()
                held[DOOR] = stand_in
                unknown.setdefault(player, []).append(stand_in)
    middle = len(pool) // 2  # down-card stand-ins from the middle: away from the doors' extremes
    for player, held in enumerate(hole):
        for position, card in enumerate(held):
            if card is None:
                if not pool:
                    raise fail(
                        "no card is left to stand in for an unknown one: the file deals too many cards"
                    )
                stand_in = pool.pop(min(middle, len(pool) - 1))
                held[position] = stand_in
                unknown.setdefault(player, []).append(stand_in)
    filled: list[list[Card]] = [[c for c in held if c is not None] for held in hole]
    used = {int(c) for held in filled for c in held} | {int(c) for c in cards.board}
    filler = iter([Card(code) for code in range(52) if code not in used])
    burn_cards = house is not None and house.burn_cards
    return DealPlan(
        _deck_top(filled, cards.board, stud=stud, burn_cards=burn_cards, filler=filler, phh=phh),
        filled,
        cards.board,
        unknown,
    )


@dataclass(slots=True)
class _FileCards:
    """The cards the file deals: each player's (``None`` for ``??``) with the action that dealt
    each, the board, and each known card's first action (by card code)."""

    hole: list[list[Card | None]]
    dealt_by: list[list[int]]
    board: list[Card]
    seen: dict[int, int]


def _file_cards(
    phh: PhhHand, actions: Sequence[PhhAction], fail: Callable[[str, int | None], PhhError]
) -> _FileCards:
    """What the file deals, every card once; unknown cards the player shows later filled in."""
    n = phh.player_count
    cards = _FileCards([[] for _ in range(n)], [[] for _ in range(n)], [], {})
    shows: list[list[tuple[int, tuple[Card | None, ...]]]] = [[] for _ in range(n)]  # (action, cards)
    seen = cards.seen
    for act in actions:
        if act.actor == "d":
            known = [c for c in act.cards if c is not None]
            for card in known:
                if int(card) in seen:
                    raise fail(f"card {card} is dealt twice (first in action {seen[int(card)]})", act.number)
                seen[int(card)] = act.number
            if act.verb == "db":
                if len(known) != len(act.cards):
                    raise fail(
                        f"{act.text!r} has unknown cards (??): board cards are dealt face up", act.number
                    )
                cards.board.extend(known)
                continue
            assert act.player is not None
            if act.player >= n:
                raise fail(f"{act.text!r}: there are only {n} players", act.number)
            cards.hole[act.player].extend(act.cards)
            cards.dealt_by[act.player].extend([act.number] * len(act.cards))
        elif act.verb == "sm" and act.cards and act.player is not None and act.player < n:
            shows[act.player].append((act.number, act.cards))
    for player in range(n):
        if None in cards.hole[player]:
            _fill_from_shows(cards.hole[player], shows[player], seen, fail)
    return cards


def _check_stud_up_cards(cards: _FileCards, fail: Callable[[str, int | None], PhhError]) -> None:
    """Stud's up cards decide who acts: only a door card may be unknown, and only for a player
    who gets no card after 3rd street."""
    for player, held in enumerate(cards.hole):
        for position, card in enumerate(held):
            if card is not None or position not in _STUD_UP:
                continue
            number = cards.dealt_by[player][position]
            if position != DOOR:
                raise fail(
                    f"p{player + 1}'s {_STUD_STREET[position]} street up card is unknown (??): "
                    "the up cards decide who acts first, so they must be known",
                    number,
                )
            if len(held) > DOOR + 1:
                raise fail(
                    f"p{player + 1}'s door card is unknown (??) but he plays on after 3rd street, "
                    "where the up cards decide who acts first",
                    number,
                )


def deck_order(phh: PhhHand, actions: Sequence[PhhAction], *, burn_cards: bool = False) -> list[Card]:
    """The cards of the file in the order the engine deals them (the top of a stacked deck),
    with stand-ins for unknown cards: see :func:`plan_deal`."""
    return plan_deal(phh, actions, house=HouseRules(burn_cards=burn_cards)).order


def _fill_from_shows(
    cards: list[Card | None],
    shows: list[tuple[int, tuple[Card | None, ...]]],
    seen: dict[int, int],
    fail: Callable[[str, int | None], PhhError],
) -> None:
    """Put the cards a player shows later in place of his unknown ones: by position when the
    show lists his cards in dealing order (as PokerKit and studpoker write it), else the shown
    cards he was not dealt as known go to his unknown positions in order. A shown card that the
    file gives another player (dealt, or shown before) is an error: no card is dealt twice."""
    for number, shown in shows:
        own = set(cards)
        for card in shown:
            if card is not None and card not in own and int(card) in seen:
                raise fail(f"card {card} is dealt twice (first in action {seen[int(card)]})", number)
        if len(shown) <= len(cards) and all(
            s is None or c is None or s == c for s, c in zip(shown, cards, strict=False)
        ):
            for position, card in enumerate(shown):
                if card is not None and cards[position] is None:
                    cards[position] = card
                    seen[int(card)] = number
            continue
        known = set(cards)
        extra = [c for c in shown if c is not None and c not in known and int(c) not in seen]
        for position, card in enumerate(cards):
            if card is None and extra:
                new = extra.pop(0)
                cards[position] = new
                seen[int(new)] = number


def _first_actor(actions: Sequence[PhhAction]) -> int | None:
    """The player of the first player action: in stud, the one who brings in (or acts first)."""
    for act in actions:
        if act.actor != "d" and act.verb and act.verb != "sm" and act.player is not None:
            return act.player
    return None


def _deck_top(
    hole: list[list[Card]],
    board: list[Card],
    *,
    stud: bool,
    burn_cards: bool,
    filler: Iterator[Card],
    phh: PhhHand,
) -> list[Card]:
    order: list[Card] = []

    def burn() -> None:
        # The engine burns a card before each street after the first while two cards are left.
        if burn_cards and 52 - len(order) >= 2:
            card = next(filler, None)
            if card is None:
                raise PhhError("no card is left to burn: the file deals too many cards", file=phh.source)
            order.append(card)

    most = max(len(cards) for cards in hole)
    if stud:
        for index in range(most):
            if index > DOOR:  # 4th to 7th street
                burn()
            order.extend(cards[index] for cards in hole if len(cards) > index)
        if board:
            if most < 7:
                burn()
            order.extend(board)
    else:
        for index in range(most):
            order.extend(cards[index] for cards in hole if len(cards) > index)
        for index, card in enumerate(board):
            if index in (0, 3, 4):
                burn()
            order.append(card)
    return order
