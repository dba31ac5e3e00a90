"""``studpoker verify HAND_ID``: check a stored hand's deck against the commitment published
before the deal. Exit 0 when it matches, 1 when it does not, 2 when it cannot be checked."""

from __future__ import annotations

import argparse
import asyncio
import sys

from studpoker.cli.audit import DB_HELP, missing_database


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check a stored hand's revealed deck against its commitment",
        description=(
            "Recompute SHA-256 over the revealed deck order and salt of a finished hand and compare "
            "it with the commitment stored (and sent to the players) when the hand started."
        ),
    )
    parser.add_argument("hand_id", metavar="HAND_ID", help="the hand's id")
    parser.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    parser.set_defaults(func=run)


async def _load(url: str, hand_id: str) -> tuple[str, str, str | None, str | None]:
    from studpoker.store import Store

    store = await Store.open(url)
    try:
        hand = await store.hand(hand_id)
    finally:
        await store.close()
    return hand.status, hand.commitment, hand.deck_order, hand.salt


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from studpoker.cards import CardError, commitment, parse_cards
    from studpoker.store import StoreError, database_url

    url = database_url(args.database_url)
    problem = missing_database(url)
    if problem is not None:
        print(f"studpoker verify: {problem}", file=sys.stderr)
        return 2
    try:
        status, committed, order, salt = asyncio.run(_load(url, args.hand_id))
    except (StoreError, SQLAlchemyError, OSError) as exc:
        print(f"studpoker verify: {exc}", file=sys.stderr)
        return 2
    print(f"hand        {args.hand_id} ({status})")
    print(f"commitment  {committed}")
    if order is None or salt is None:
        print(
            f"studpoker verify: hand {args.hand_id} is {status}: its deck was never revealed", file=sys.stderr
        )
        return 2
    print(f"deck        {order}")
    print(f"salt        {salt}")
    try:
        cards = parse_cards(order)
    except CardError as exc:
        print(f"MISMATCH: the stored deck order is not a deck ({exc})")
        return 1
    recomputed = commitment(cards, salt) if len(cards) == 52 else "(not 52 cards)"
    print(f"recomputed  {recomputed}")
    if len(cards) == 52 and recomputed == committed.lower():
        print("OK: the deck dealt is the deck committed to before the deal")
        return 0
    print("MISMATCH: the revealed deck does not match the commitment")
    return 1
