"""Hands as writes: start, finish (settle) and void a hand.

A hand is written in two transactions: :meth:`Hands.start_hand_op` records it ``in_progress``
with its deck commitment and starting stacks; :meth:`Hands.finish_hand_op` settles it in one
``hand`` ledger transaction (or :meth:`Hands.void_hand_op` voids it). Each ``*_op`` checks its
input at once and returns a :data:`WriteOp`, which :meth:`Hands.write_batch` runs: the server's
group commit puts the writes of many tables in one transaction, each in its own savepoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from studpoker import cards, fairness

from . import ledger
from .database import Database
from .errors import (
    HandStateError,
    InvalidInputError,
    LeaseLost,
    NotFoundError,
    SettlementError,
    StoreInternalError,
)
from .leases import Fence, Takeover, check_fence
from .models import DealSeeds
from .schema import hand_seats, hands, ledger_entries, seats
from .tables import load_table, lock_seat, occupied_seats

_T = TypeVar("_T")
# One write of a group commit (Hands.write_batch): run on the batch's connection, in a savepoint.
WriteOp = Callable[[AsyncConnection], Awaitable[_T]]

_HAND_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_HEX64_RE = re.compile(r"^[0-9a-f]{64}$")


def canonical_order(order: str | Sequence[int | str]) -> str:
    """The 52 cards as ``"As Kd ..."``; raises :class:`InvalidInputError` unless it is a full deck."""
    try:
        parsed = cards.parse_cards(order)
    except cards.CardError as exc:
        raise InvalidInputError(f"deck order is not a deck: {exc}") from None
    if len(parsed) != 52:
        raise InvalidInputError(f"deck order must list 52 cards, not {len(parsed)}")
    return cards.format_cards(parsed, " ")


def deal_values(deal: DealSeeds, commitment: str) -> dict[str, Any]:
    """The columns of a verifiable deal, checked: the seeds must give ``commitment`` as root."""
    try:
        root = fairness.deck_from_seeds(deal.server_seed, deal.client_seeds).tree().root.hex()
    except fairness.FairnessError as exc:
        raise InvalidInputError(f"the deal's seeds are not usable: {exc}") from None
    if root != commitment:
        raise InvalidInputError("the commitment is not the deck root the deal's seeds give")
    return {
        "server_seed": deal.server_seed.hex(),
        "seed_commitment": fairness.seed_commitment(deal.server_seed),
        "deck_root": root,
        "client_seeds": json.dumps([{"seat": seat, "seed": seed.hex()} for seat, seed in deal.client_seeds]),
    }


def parse_client_seeds(stored: str | None) -> list[tuple[int, bytes]]:
    """The ``client_seeds`` column (JSON) as ``(seat, seed)`` pairs; a column that is not such
    a list reads as a :class:`StoreInternalError` (``studpoker verify`` reports it)."""
    if not stored:
        return []
    try:
        return [(int(item["seat"]), bytes.fromhex(str(item["seed"]))) for item in json.loads(stored)]
    except (ValueError, TypeError, KeyError) as exc:
        raise StoreInternalError(f"the stored client seeds are not readable: {exc}") from None


class Hands:
    """The writes of a hand, and the group commit that runs them."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def start_hand_op(
        self,
        hand_id: str,
        table_id: int,
        commitment: str,
        seats: Mapping[int, int],
        *,
        deal: DealSeeds | None = None,
        fence: Fence | None = None,
    ) -> WriteOp[dict[int, int]]:
        """Record a hand in progress: its deck commitment and each seat's starting stack.
        ``seats`` maps seat -> account id. The write returns seat -> starting stack.
        ``fence``: the table owner's lease in the cluster (:class:`LeaseLost` unless it still
        holds it); the hand records its epoch, and only a write under that epoch finishes it.

        ``deal``: the seeds of a verifiable deal (docs/fairness.md); ``commitment`` must then be
        the deck root they give. The seeds, the seed commitment and the root are stored with
        the hand. Without ``deal``, ``commitment`` is an older whole-deck commitment.
        The input is checked now (:class:`InvalidInputError`), the database when it runs."""
        if not isinstance(hand_id, str) or not _HAND_ID_RE.match(hand_id):
            raise InvalidInputError(f"hand id must be 1 to 64 of [A-Za-z0-9_.:-], not {hand_id!r}")
        if not isinstance(commitment, str) or not _HEX64_RE.match(commitment.lower()):
            raise InvalidInputError("the commitment must be a SHA-256 in hex (64 characters)")
        if len(seats) < 2:
            raise InvalidInputError("a hand needs at least two players")
        players = dict(seats)
        values: dict[str, Any] = {"commitment": commitment.lower()}
        if deal is not None:
            values.update(deal_values(deal, commitment.lower()))
        if fence is not None:
            values["epoch"] = fence.epoch
        return lambda conn: self._start(conn, hand_id, table_id, values, players, fence=fence)

    def finish_hand_op(
        self,
        hand_id: str,
        *,
        contributions: Mapping[int, int],
        awards: Mapping[int, int],
        phh: str,
        text: str,
        deck_order: str | Sequence[int | str],
        salt: str | None = None,
        fence: Fence | None = None,
    ) -> WriteOp[dict[int, int]]:
        """Settle a hand in ONE transaction: a ``hand`` ledger transaction moving each seat's
        contribution into the pot and each award out of it, the new stacks, the PHH and text
        histories, and the deck dealt (which must be the one its seeds give; for a hand dealt
        before verifiable deals, the order and ``salt`` must match its whole-deck commitment).
        ``contributions`` are each seat's total for the hand; awards must sum to them exactly,
        else :class:`SettlementError` and nothing is written. The write returns seat -> new
        stack for the hand's seats. ``fence``: the lease the hand was started under, still held
        (else :class:`LeaseLost`)."""
        put = ledger.check_chips(contributions, "contribution")
        won = ledger.check_chips(awards, "award")
        if sum(put.values()) != sum(won.values()):
            raise SettlementError(
                f"hand {hand_id}: awards ({sum(won.values())}) must equal contributions ({sum(put.values())})"
            )
        order = canonical_order(deck_order)
        if salt is not None and (not isinstance(salt, str) or not 0 < len(salt) <= 200):
            raise InvalidInputError("the salt must be 1 to 200 characters")
        return lambda conn: self._finish(
            conn, hand_id, put=put, won=won, phh=phh, text=text, order=order, salt=salt, fence=fence
        )

    def void_hand_op(
        self, hand_id: str, reason: str, *, fence: Fence | None = None
    ) -> WriteOp[dict[int, int]]:
        """Void a hand in progress: every chip in its pot goes back to its owner (seat, or bankroll
        if he no longer holds the seat) and the hand is recorded as ``void``. The write returns
        the refunds, seat -> chips. ``fence``: the table owner's lease, still held (else
        :class:`LeaseLost`); the hand may be of an earlier epoch."""
        return lambda conn: self._void(conn, hand_id, reason, fence)

    async def write_batch(self, ops: Sequence[WriteOp[Any]]) -> list[Any]:
        """Group commit: run several writes (``*_op`` methods) in ONE transaction, each in its own
        savepoint, so that one write refused (its exception is returned in its place) leaves the
        others whole. When the transaction itself fails (BEGIN or COMMIT: a full disk, a locked
        database), nothing is written and every write gets that exception."""
        results: list[Any] = []
        if len(ops) == 1:  # alone: the transaction is its savepoint
            try:
                async with self.db.write() as conn:
                    return [await ops[0](conn)]
            except Exception as exc:
                return [exc]
        try:
            async with self.db.write() as conn:
                for op in ops:
                    try:
                        async with conn.begin_nested():
                            results.append(await op(conn))
                    except Exception as exc:  # this write is rolled back alone
                        results.append(exc)
        except Exception as exc:
            return [exc] * len(ops)
        return results

    async def void_unfinished_hands(self, reason: str = "the server restarted during the hand") -> list[str]:
        """At startup: void every hand still in progress (refunding its pot). Returns their ids."""
        async with self.db.write() as conn:
            ids = list(
                (
                    await conn.scalars(
                        select(hands.c.id).where(hands.c.status == "in_progress").order_by(hands.c.started_at)
                    )
                ).all()
            )
            for hand_id in ids:
                await self._void(conn, hand_id, reason)
        return [str(i) for i in ids]

    async def void_interrupted(
        self, table_id: int, fence: Fence, reason: str = "the table's worker stopped during the hand"
    ) -> Takeover:
        """For a table's new owner, after its claim: void the hand still in progress from an
        earlier lease (refunding its pot), if there is one, and read the seats as they then stand,
        in one transaction under ``fence`` (:class:`LeaseLost` unless it holds the lease). A hand
        of the fence's own epoch is not interrupted and is left alone. Idempotent: a hand
        finished or voided already is not touched, so an interrupted hand is voided exactly once."""
        async with self.db.write() as conn:
            await check_fence(conn, fence, table_id)
            # FOR UPDATE re-checks the status after waiting: two callers cannot both void it.
            interrupted = await conn.scalar(
                select(hands.c.id)
                .where(
                    hands.c.table_id == table_id,
                    hands.c.status == "in_progress",
                    (hands.c.epoch < fence.epoch) | hands.c.epoch.is_(None),
                )
                .with_for_update()
            )
            refunds = {} if interrupted is None else await self._void(conn, str(interrupted), reason)
            return Takeover(
                table_id,
                None if interrupted is None else str(interrupted),
                refunds,
                await occupied_seats(conn, table_id),
            )

    async def _start(
        self,
        conn: AsyncConnection,
        hand_id: str,
        table_id: int,
        values: dict[str, Any],
        players: Mapping[int, int],
        *,
        fence: Fence | None,
    ) -> dict[int, int]:
        if fence is not None:
            await check_fence(conn, fence, table_id)
        await load_table(conn, table_id)
        if await conn.scalar(select(hands.c.id).where(hands.c.id == hand_id)) is not None:
            raise HandStateError(f"hand {hand_id} already exists")
        busy = await conn.scalar(
            select(hands.c.id).where(hands.c.table_id == table_id, hands.c.status == "in_progress").limit(1)
        )
        if busy is not None:
            raise HandStateError(f"table {table_id} already has hand {busy} in progress")
        rows = {
            int(r.seat): r
            for r in (
                await conn.execute(
                    select(seats.c.seat, seats.c.account_id, seats.c.stack)
                    .where(seats.c.table_id == table_id, seats.c.seat.in_(list(players)))
                    .with_for_update()
                )
            ).all()
        }
        starting: dict[int, int] = {}
        for seat, account_id in players.items():
            row = rows.get(seat)
            if row is None or row.account_id != account_id:
                raise HandStateError(f"seat {seat} at table {table_id} is not held by account {account_id}")
            starting[seat] = int(row.stack)
        await conn.execute(
            insert(hands).values(
                id=hand_id, table_id=table_id, status="in_progress", started_at=self.db.now(), **values
            )
        )
        await conn.execute(
            insert(hand_seats),
            [
                {
                    "hand_id": hand_id,
                    "seat": seat,
                    "account_id": account_id,
                    "starting_stack": starting[seat],
                    "contribution": 0,
                    "award": 0,
                }
                for seat, account_id in sorted(players.items())
            ],
        )
        return starting

    async def _open_hand(
        self, conn: AsyncConnection, hand_id: str, fence: Fence | None = None
    ) -> tuple[Any, dict[int, Any], dict[int, int]]:
        """Lock an in-progress hand; returns it, its seats and the chips each seat has in its pot
        (none unless a writer moved chips during the hand: the server settles them all at once).
        With a fence, its lease (the hand's table's) is checked and locked first."""
        if fence is not None:
            table_id = await conn.scalar(select(hands.c.table_id).where(hands.c.id == hand_id))
            if table_id is None:
                raise NotFoundError(f"no hand {hand_id!r}")
            await check_fence(conn, fence, int(table_id))
        hand = (await conn.execute(select(hands).where(hands.c.id == hand_id).with_for_update())).first()
        if hand is None:
            raise NotFoundError(f"no hand {hand_id!r}")
        if hand.status != "in_progress":
            raise HandStateError(f"hand {hand_id} is already {hand.status}")
        players = {
            int(r.seat): r
            for r in (await conn.execute(select(hand_seats).where(hand_seats.c.hand_id == hand_id))).all()
        }
        in_pot: dict[int, int] = {}
        for r in (
            await conn.execute(
                select(ledger_entries.c.seat, func.sum(ledger_entries.c.amount).label("amount"))
                .where(ledger_entries.c.book == "pot", ledger_entries.c.hand_id == hand_id)
                .group_by(ledger_entries.c.seat)
            )
        ).all():
            if r.amount:
                in_pot[int(r.seat)] = int(r.amount)
        return hand, players, in_pot

    async def _finish(
        self,
        conn: AsyncConnection,
        hand_id: str,
        *,
        put: dict[int, int],
        won: dict[int, int],
        phh: str,
        text: str,
        order: str,
        salt: str | None,
        fence: Fence | None,
    ) -> dict[int, int]:
        hand, players, in_pot = await self._open_hand(conn, hand_id, fence)
        if fence is not None and hand.epoch != fence.epoch:
            # The lease it was started under lapsed since: the next owner voids it.
            raise LeaseLost(
                f"hand {hand_id} was started under epoch {hand.epoch}, not {fence.epoch}: void it"
            )
        salt = _check_deck(hand, hand_id, order, salt)
        for seat in (*put, *won):
            if seat not in players:
                raise SettlementError(f"seat {seat} is not in hand {hand_id}")
        table_id = int(hand.table_id)
        stacks = {
            int(r.seat): r
            for r in (
                await conn.execute(
                    select(seats.c.seat, seats.c.account_id, seats.c.stack)
                    .where(seats.c.table_id == table_id, seats.c.seat.in_(list(players)))
                    .with_for_update()
                )
            ).all()
        }
        entries, deltas = _settlement(
            hand_id, table_id, players=players, stacks=stacks, in_pot=in_pot, put=put, won=won
        )
        now = self.db.now()
        await ledger.post(conn, now, "hand", entries, table_id=table_id, hand_id=hand_id)
        await ledger.move_seats(conn, table_id, deltas)
        await conn.execute(
            update(hand_seats)
            .where(hand_seats.c.hand_id == hand_id, hand_seats.c.seat == bindparam("s"))
            .values(contribution=bindparam("c"), award=bindparam("a")),
            [{"s": seat, "c": put.get(seat, 0), "a": won.get(seat, 0)} for seat in sorted(players)],
        )
        await conn.execute(
            update(hands)
            .where(hands.c.id == hand_id)
            .values(status="finished", finished_at=now, phh=phh, text=text, deck_order=order, salt=salt)
        )
        return {seat: int(stacks[seat].stack) + deltas.get(seat, 0) for seat in sorted(players)}

    async def _void(
        self, conn: AsyncConnection, hand_id: str, reason: str, fence: Fence | None = None
    ) -> dict[int, int]:
        hand, players, in_pot = await self._open_hand(conn, hand_id, fence)
        table_id = int(hand.table_id)
        entries: list[ledger.Entry] = []
        back_to_seat: dict[int, int] = {}
        for seat, amount in sorted(in_pot.items()):
            account_id = int(players[seat].account_id)
            entries.append(ledger.pot(hand_id, table_id, seat, account_id, -amount))
            row = await lock_seat(conn, table_id, seat)
            if row.account_id == account_id:
                entries.append(ledger.seat(table_id, seat, account_id, amount))
                back_to_seat[seat] = amount
            else:  # pragma: no cover - cash_out refuses during a hand
                entries.append(ledger.bankroll(account_id, amount))
                await ledger.credit_bankroll(conn, account_id, amount)
        await ledger.move_seats(conn, table_id, back_to_seat)
        # Always recorded, with no entries when nothing had reached the pot (the batched design:
        # the stacks were never debited, so every contribution is back with its owner already).
        now = self.db.now()
        memo = str(reason)[:400]
        await ledger.post(conn, now, "void", entries, table_id=table_id, hand_id=hand_id, memo=memo)
        await conn.execute(
            update(hands)
            .where(hands.c.id == hand_id)
            .values(status="void", finished_at=now, void_reason=memo)
        )
        return dict(in_pot)


def _check_deck(hand: Any, hand_id: str, order: str, salt: str | None) -> str | None:
    """The salt to store once the revealed deck is the one the hand was committed to (a deal
    from seeds keeps none); :class:`SettlementError` if it is not."""
    if hand.server_seed is not None:
        seeds = parse_client_seeds(hand.client_seeds)
        dealt = fairness.deck_from_seeds(bytes.fromhex(hand.server_seed), seeds).order
        if order.split() != [str(c) for c in dealt]:
            raise SettlementError(f"hand {hand_id}: the deck order is not the one its seeds give")
        return None
    if salt is None or not cards.verify(hand.commitment, order.split(), salt):
        raise SettlementError(f"hand {hand_id}: the deck order and salt do not match the commitment")
    return salt


def _settlement(
    hand_id: str,
    table_id: int,
    *,
    players: Mapping[int, Any],
    stacks: Mapping[int, Any],
    in_pot: Mapping[int, int],
    put: Mapping[int, int],
    won: Mapping[int, int],
) -> tuple[list[ledger.Entry], dict[int, int]]:
    """The ``hand`` ledger entries (each contribution not yet in the pot: seat -> pot; each
    award: pot -> seat) and each seat's stack change; :class:`SettlementError` for a
    contribution below what is in the pot already or above the stack."""
    entries: list[ledger.Entry] = []
    deltas: dict[int, int] = {}
    for seat, player in sorted(players.items()):
        account_id = int(player.account_id)
        already = in_pot.get(seat, 0)
        more = put.get(seat, 0) - already
        if more < 0:
            raise SettlementError(
                f"seat {seat} already put {already} in the pot, more than {put.get(seat, 0)}"
            )
        row = stacks[seat]
        if row.account_id != account_id:  # pragma: no cover - cash_out refuses during a hand
            raise HandStateError(f"seat {seat} changed hands during hand {hand_id}")
        if more > int(row.stack):
            raise SettlementError(f"seat {seat} has {row.stack} units, cannot put {more} more in the pot")
        if more:
            entries += [
                ledger.seat(table_id, seat, account_id, -more),
                ledger.pot(hand_id, table_id, seat, account_id, more),
            ]
        award = won.get(seat, 0)
        if award:
            entries += [
                ledger.pot(hand_id, table_id, seat, account_id, -award),
                ledger.seat(table_id, seat, account_id, award),
            ]
        if award - more:
            deltas[seat] = award - more
    return entries, deltas
