"""The store behind the room's ports, in one process.

- :class:`StoreTableAdapter` is a table's ``TableStore`` port (``table/ports.py``) over the
  :class:`~studpoker.store.Store`: seat writes in their own transactions, the hands' writes
  through the group commit (``writer.py``). A refusal carries its protocol code
  (``studpoker.store.errors``: ``exc.code``), which the player is answered with.
- :func:`operator_histories` writes a finished hand's PHH and readable text, the operator's
  complete record that is stored with it.
- :class:`StoreBotAccounts` is the bots' ``BotAccounts`` port (``bots.py``): their accounts,
  bankrolls and daily top-ups, what a person does over REST.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from studpoker.engine import Hand
from studpoker.history.phh import dump_hand
from studpoker.history.text import text_history
from studpoker.store import Store
from studpoker.store.errors import StoreError
from studpoker.store.leases import Fence
from studpoker.store.models import DealSeeds

from .deals import DealInPlay
from .table import SeatState, TableError
from .table.ports import HandEnd, HandStatus
from .writer import GroupCommitter

log = logging.getLogger(__name__)


def operator_histories(
    hand: Hand,
    hand_id: str,
    players: dict[int, str] | None = None,
    table: str | None = None,
    time_banks: Mapping[int, float] | None = None,
    *,
    protected_counts: Mapping[int, tuple[int, int]] | None = None,
) -> tuple[str, str]:
    """The PHH and the readable text of a finished hand (empty when its writer fails: a history
    that cannot be rendered is logged, and the hand is stored without it; the table goes on).

    Both are the operator's complete record (every card): a player reads them as his seat saw
    the hand (``server/hand_views.py``, docs/fairness.md). ``time_banks`` (engine event version
    -> seconds, ``HandEnd.time_banks``) notes the time bank each decision used on its action;
    ``protected_counts`` (``HandEnd.protected_counts``) the day's protected all-ins at a timeout.
    """
    phh = text = ""
    try:
        phh = dump_hand(
            hand,
            players=players,
            hand_id=hand_id,
            table=table,
            time_banks=time_banks,
            protected_counts=protected_counts,
        )
    except Exception:
        log.exception("hand %s: the PHH writer failed; stored without its PHH", hand_id)
    try:
        text = text_history(
            hand,
            reveal=True,
            players=players,
            hand_id=hand_id,
            table=table,
            time_banks=time_banks,
            protected_counts=protected_counts,
        )
    except Exception:
        log.exception("hand %s: the text writer failed; stored without its text", hand_id)
    return phh, text


class StoreTableAdapter:
    """The ``TableStore`` port of table ``table_id``. ``name_of`` names the players in the
    histories (an account's name as the room knows it). ``fence`` (a cluster worker's lease on
    the table) goes with every chip-moving write; None in the one-process room."""

    def __init__(
        self,
        store: Store,
        writer: GroupCommitter,
        table_id: int,
        *,
        name_of: Callable[[int], str],
        protected_all_ins_per_day: int,
        fence: Fence | None = None,
    ) -> None:
        self.fence = fence
        self.store = store
        self.writer = writer
        self.table_id = table_id
        self.name_of = name_of
        self.protected_all_ins_per_day = protected_all_ins_per_day

    async def buy_in(self, account_id: int, seat: int, amount: int) -> None:
        try:
            await self.store.buy_in(account_id, self.table_id, seat, amount, fence=self.fence)
        except StoreError as exc:
            raise TableError(exc.code, str(exc)) from None

    async def add_chips(self, account_id: int, seat: int, amount: int) -> None:
        try:
            await self.store.add_chips(account_id, self.table_id, seat, amount, fence=self.fence)
        except StoreError as exc:
            raise TableError(exc.code, str(exc)) from None

    async def cash_out(self, seat: SeatState) -> None:
        # Not a refusal a player can cause: the table only cashes out the seats it holds, so any
        # error here is the store failing (or disagreeing with the table), answered as such.
        await self.store.cash_out(seat.account_id, self.table_id, seat.seat, fence=self.fence)

    async def start_hand(self, hand_id: str, deal: DealInPlay, players: list[SeatState]) -> None:
        seeds = DealSeeds(server_seed=deal.server_seed, client_seeds=deal.client_seeds)
        op = self.store.start_hand_op(
            hand_id,
            self.table_id,
            deal.root,
            {p.seat: p.account_id for p in players},
            deal=seeds,
            fence=self.fence,
        )
        starting = await self.writer.write(op)
        for p in players:
            if starting.get(p.seat) != p.stack:
                log.error(
                    "table %s seat %s: store stack %s, table stack %s",
                    self.table_id,
                    p.seat,
                    starting.get(p.seat),
                    p.stack,
                )

    async def finish_hand(self, end: HandEnd) -> None:
        names = {seat: self.name_of(account_id) for seat, account_id in end.accounts.items()}
        phh, text = operator_histories(
            end.hand,
            end.hand_id,
            names,
            end.table_name,
            end.time_banks,
            protected_counts=end.protected_counts,
        )
        await self.writer.write(
            self.store.finish_hand_op(
                end.hand_id,
                contributions=end.contributions,
                awards=end.awards,
                phh=phh,
                text=text,
                deck_order=" ".join(str(c) for c in end.deck_order),
                fence=self.fence,
            )
        )

    async def void_hand(self, hand_id: str, reason: str) -> None:
        await self.writer.write(self.store.void_hand_op(hand_id, reason, fence=self.fence))

    async def hand_status(self, hand_id: str) -> HandStatus:
        record = await self.store.hand(hand_id)
        return HandStatus(record.status, record.void_reason)

    async def use_protected_all_in(self, account_id: int) -> bool:
        try:
            return bool(await self.store.use_protected_all_in(account_id, self.protected_all_ins_per_day))
        except StoreError:
            log.exception("protected all-in check failed for account %s", account_id)
            return False

    async def protected_all_ins_today(self, account_id: int) -> tuple[int, int]:
        allowed = self.protected_all_ins_per_day
        left = await self.store.protected_all_ins_left(account_id, allowed)
        return max(0, allowed - left), allowed


class StoreBotAccounts:
    """The bots' accounts in the store: no password (nobody can log in as a bot), made with the
    starting grant (:meth:`Store.create_bot_account`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def open(self, name: str) -> tuple[int, str]:
        """The bot account ``name`` (id, name), created if missing; ``NameTakenError`` if the
        name is a person's."""
        account = await self.store.create_bot_account(name)
        return account.id, account.name

    async def bankroll(self, account_id: int) -> int:
        return (await self.store.account(account_id)).bankroll

    async def top_up(self, account_id: int) -> int:
        """The daily top-up of a broke bot: the amount granted, 0 if none is due or it is refused."""
        try:
            return await self.store.daily_topup(account_id)
        except StoreError:
            return 0
