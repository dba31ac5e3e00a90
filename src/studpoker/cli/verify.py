"""``studpoker verify HAND_ID``: the operator's check of a stored deal (docs/fairness.md).

For a verifiable deal: the server seed against the commitment published before any client seed,
the deck the server seed and the client seeds give against the stored deck root and deck order,
the cards dealt (the stored history replayed) against the top of that deck, and the opening of
every card dealt against the root. For a hand dealt before verifiable deals: the revealed deck
order and salt against its whole-deck commitment. Exit 0 when everything matches, 1 on any
mismatch, 2 when it cannot be checked (no such hand, no database, a deck never revealed).

HAND_ID is a hand's full id or any unique prefix of at least ``SHORT_ID_DIGITS`` hex digits, such
as the short id the History panel shows (an ambiguous prefix lists the hands it matches).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from studpoker.cli.audit import DB_HELP, missing_database

if TYPE_CHECKING:
    from studpoker.store import Store
    from studpoker.store.models import HandRecord, TableConfig

# The History panel shows a hand's id by its first 8 digits (web/js/history.js); fewer than that
# is too likely to match several of a busy room's hands.
SHORT_ID_DIGITS = 8
# An ambiguous prefix names at most this many of the hands it matches.
CANDIDATES_SHOWN = 10
_HEX = re.compile(r"[0-9a-f]+")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check a stored hand's deck, seeds and card openings",
        description=(
            "Check a stored hand's deal: the server seed against its commitment, the deck from the "
            "server and client seeds against the deck root and the stored order, and the opening "
            "of every card dealt (a hand dealt before verifiable deals: its deck order and salt "
            "against its commitment). Exit 0 when it all matches, 1 on a mismatch, 2 when it "
            "cannot be checked."
        ),
    )
    parser.add_argument(
        "hand_id",
        metavar="HAND_ID",
        help=f"the hand's id, or a unique prefix of it ({SHORT_ID_DIGITS} digits or more, as the"
        " History panel shows)",
    )
    parser.add_argument(
        "--player",
        metavar="NAME",
        default=None,
        help="check what that player of the hand was given: every card he was shown opened and"
        " checked against the deck root, and no other card",
    )
    parser.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    parser.add_argument("--json", action="store_true", help="print the checks as one JSON object")
    parser.set_defaults(func=run)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


class UncheckableError(Exception):
    """The hand cannot be checked (exit 2), as opposed to a check that fails (exit 1)."""


async def resolve_hand_id(store: Store, given: str) -> str:
    """The id of the one stored hand that ``given`` names: its whole id, or a unique prefix of
    at least ``SHORT_ID_DIGITS`` hex digits. Raises :class:`UncheckableError` otherwise."""
    from sqlalchemy import select

    from studpoker.store.schema import hands

    async with store.engine.connect() as conn:
        if await conn.scalar(select(hands.c.id).where(hands.c.id == given)) is not None:
            return given
        prefix = given.strip().lower()
        if not _HEX.fullmatch(prefix):
            raise UncheckableError(f"no hand {given!r}")
        if len(prefix) < SHORT_ID_DIGITS:
            raise UncheckableError(
                f"hand id {given!r} is too short: give at least {SHORT_ID_DIGITS} digits of it"
                " (the History panel shows the first 8)"
            )
        found = list(
            await conn.scalars(
                select(hands.c.id)
                .where(hands.c.id.like(prefix + "%"))  # hex digits only: no LIKE wildcard in it
                .order_by(hands.c.id)
                .limit(CANDIDATES_SHOWN + 1)
            )
        )
    if not found:
        raise UncheckableError(f"no hand {given!r}: no hand id starts with {prefix}")
    if len(found) > 1:
        more = len(found) > CANDIDATES_SHOWN
        count = f"more than {CANDIDATES_SHOWN}" if more else str(len(found))
        listed = ", ".join(found[:CANDIDATES_SHOWN]) + (", ..." if more else "")
        raise UncheckableError(
            f"hand id {given!r} is ambiguous: {count} hands' ids start with it ({listed}); give more digits"
        )
    return str(found[0])


async def _load(url: str, given: str) -> tuple[HandRecord, TableConfig]:
    from studpoker.store import Store

    store = await Store.open(url)
    try:
        hand = await store.hand(await resolve_hand_id(store, given))
        table = await store.table(hand.table_id)
    finally:
        await store.close()
    return hand, table.config


def legacy_checks(record: HandRecord) -> list[Check]:
    """A hand dealt under the whole-deck commitment (before migration 0003)."""
    from studpoker.cards import CardError, commitment, parse_cards

    if record.deck_order is None or record.salt is None:
        raise UncheckableError(f"hand {record.id} is {record.status}: its deck was never revealed")
    try:
        cards = parse_cards(record.deck_order)
    except CardError as exc:
        return [Check("deck order", False, f"the stored deck order is not a deck ({exc})")]
    recomputed = commitment(cards, record.salt) if len(cards) == 52 else "(not 52 cards)"
    ok = len(cards) == 52 and recomputed == record.commitment.lower()
    detail = f"order {record.deck_order}, salt {record.salt}, recomputed {recomputed}"
    return [Check("whole-deck commitment", ok, detail)]


def deal_checks(record: HandRecord, config: TableConfig) -> list[Check]:
    """Every check of a verifiable deal (see the module's docstring)."""
    from studpoker import fairness
    from studpoker.server.hand_views import replayed_hand

    assert record.server_seed is not None
    try:
        server_seed = bytes.fromhex(record.server_seed)
        seeds = [(seat, bytes.fromhex(seed)) for seat, seed in record.client_seeds]
        deal = fairness.deck_from_seeds(server_seed, seeds)
    except (ValueError, fairness.FairnessError) as exc:
        return [Check("seeds", False, f"the stored seeds are not usable: {exc}")]
    commitment = fairness.seed_commitment(server_seed)
    checks = [
        Check(
            "server seed",
            commitment == (record.seed_commitment or "").lower(),
            f"SHA-256 of the server seed {commitment}, published {record.seed_commitment}",
        )
    ]
    tree = deal.tree()
    root = tree.root.hex()
    checks.append(
        Check(
            "deck root",
            root == (record.deck_root or "").lower() == record.commitment.lower(),
            f"the seeds ({len(seeds)} client seeds) give root {root}; stored {record.deck_root},"
            f" published {record.commitment}",
        )
    )
    order = " ".join(str(c) for c in deal.order)
    if record.deck_order is not None:
        checks.append(Check("deck order", record.deck_order == order, f"the seeds give {order}"))
    hand = replayed_hand(record, config)
    if hand is not None:
        dealt = [*hand.board]
        for seat in hand.seat_numbers:
            down, up = hand.cards_of(seat)
            dealt += [*down, *up]
        top = set(deal.order[: len(dealt)])
        checks.append(
            Check(
                "cards dealt",
                set(dealt) == top and len(set(dealt)) == len(dealt),
                f"the {len(dealt)} cards of the stored history are the top of the deck",
            )
        )
        positions = sorted(deal.order.index(c) for c in dealt if c in deal.order)
    else:
        # No history to replay (a hand in progress or voided): every position is checked.
        positions = list(range(52))
    bad = [p for p in positions if not fairness.verify_opening(root, deal.opening(p, tree))]
    checks.append(
        Check(
            "openings",
            not bad and len(positions) > 0,
            f"{len(positions) - len(bad)} of {len(positions)} openings verify against the root"
            + (f" (failing: positions {bad})" if bad else ""),
        )
    )
    return checks


def player_checks(record: HandRecord, config: TableConfig, name: str) -> list[Check]:
    """What one player was given: the openings of his copy of the hand (the cards his view of the
    replayed hand shows him, no other) against the deck root, and his seed among the deal's."""
    from studpoker import fairness
    from studpoker.server.hand_views import player_copy, replayed_hand
    from studpoker.store.names import lookup_key

    seats = [s for s in record.seats.values() if lookup_key(s.name) == lookup_key(name)]
    if not seats:
        raise UncheckableError(f"{name!r} was not dealt into hand {record.id}")
    seat = seats[0].seat
    hand = replayed_hand(record, config)
    if hand is None or record.server_seed is None:
        raise UncheckableError(f"hand {record.id} is {record.status}: no finished verifiable deal to check")
    copy = player_copy(record, seat, config)
    root = (record.deck_root or record.commitment).lower()
    openings = [fairness.Opening.from_json(o) for o in copy.openings]
    bad = [str(o.card) for o in openings if not fairness.verify_opening(root, o)]
    view = hand.view(seat)
    # Every card his view shows: his down cards, every up card, the board, hands shown.
    shown = {int(c) for other in view.seats for c in (*other.down, *other.up) if c is not None}
    shown |= {int(c) for c in view.board}
    opened = {int(o.card) for o in openings}
    checks = [
        Check(
            "player's openings",
            not bad and bool(openings),
            f"{len(openings) - len(bad)} of {len(openings)} cards {name} was shown open to the deck root"
            + (f" (failing: {' '.join(bad)})" if bad else ""),
        ),
        Check(
            "player's cards",
            opened == shown,
            f"the openings are exactly the {len(shown)} cards his view shows him"
            + (
                ""
                if opened == shown
                else f" (opened but not shown: {sorted(opened - shown)}, shown but not opened:"
                f" {sorted(shown - opened)})"
            ),
        ),
    ]
    sent = dict(record.client_seeds).get(seat)
    checks.append(
        Check(
            "player's seed",
            True,
            f"his seed {sent} went into the deal" if sent else "he sent no seed for this hand",
        )
    )
    return checks


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from studpoker.store import StoreError, database_url

    url = database_url(args.database_url)
    problem = missing_database(url)
    if problem is not None:
        print(f"studpoker verify: {problem}", file=sys.stderr)
        return 2
    try:
        record, config = asyncio.run(_load(url, args.hand_id))
        checks = legacy_checks(record) if record.server_seed is None else deal_checks(record, config)
        if args.player is not None:
            checks += player_checks(record, config, args.player)
    except (StoreError, SQLAlchemyError, OSError, UncheckableError) as exc:
        print(f"studpoker verify: {exc}", file=sys.stderr)
        return 2
    ok = all(c.ok for c in checks)
    if args.json:
        out = {
            "hand_id": record.id,
            "status": record.status,
            "commitment": record.commitment,
            "ok": ok,
            "checks": [asdict(c) for c in checks],
        }
        print(json.dumps(out, indent=2))
        return 0 if ok else 1
    print(f"hand        {record.id} ({record.status})")
    print(f"commitment  {record.commitment}")
    for check in checks:
        print(f"{'ok' if check.ok else 'MISMATCH':9} {check.name}: {check.detail}")
    if ok:
        print("OK: the deck dealt is the deck committed to before the deal")
        return 0
    print("MISMATCH: the stored deal does not match what was committed to")
    return 1
