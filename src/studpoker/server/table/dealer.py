"""The life of the hands at one table: scheduling the next one, dealing it once the store has
its start, each decision and its clock, and settling it (its end written, or its void).

The dealer owns the table's :class:`TablePhase` and the state that lives with the hands: the
hand being played, the deal announced for the next one, the button, the start timer, the
action clock and the settlement. It is driven by the actor (one command at a time) and posts
commands back to it for its timers (``StartHand``, ``ClockExpired``, ``RetrySettle``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from studpoker.engine import Action, ActionKind, Hand, IllegalActionError
from studpoker.games import get_game
from studpoker.store.models import TableConfig

from ..clock import ActionClock
from ..deals import PendingDeal
from ..protocol import ClientSeedInfo, ClockInfo, ErrorCode, HandFinishedMsg, HandStartedMsg, YourTurnMsg
from .blinds_owed import OwedBlinds
from .commands import Act, ClockExpired, Command, RetrySettle, StartHand, TableError
from .encoding import jsonable
from .fanout import Fanout
from .hand import HandInPlay, bank_of, deal_hand, stakes_of
from .phase import TablePhase, next_phase
from .ports import Clock, LobbyNotifier, TableStore, Timer
from .seats import Seats, SeatState
from .settlement import Retry, Settlement, is_database_error
from .stats import RecentPots
from .timeout_notes import note_timeout

log = logging.getLogger(__name__)

_P = TablePhase


class Dealer:
    """The hands of one table (see the module docstring)."""

    def __init__(
        self,
        table_id: int,
        config: TableConfig,
        *,
        seats: Seats,
        fanout: Fanout,
        store: TableStore,
        lobby: LobbyNotifier,
        clock: Clock,
        pots: RecentPots,
        submit: Callable[[Command], None],
        seats_changed: Callable[[str, int | None], None],
        hand_over: Callable[[], Awaitable[None]],
        think_seconds: float,
        countdown_seconds: float,
        hand_pause_seconds: float,
    ) -> None:
        self.table_id = table_id
        self.config = config
        self.seats = seats
        self.fanout = fanout
        self.store = store
        self.lobby = lobby
        self.time = clock
        self.pots = pots
        self._submit = submit
        self._seats_changed = seats_changed
        self._hand_over = hand_over
        self.phase = _P.IDLE
        # Shutting down: no new hand starts; the one being played may finish.
        self.draining = False
        # Set while the store refuses writes (a ``paused`` table event told the watchers).
        self.paused: str | None = None
        self.playing: HandInPlay | None = None
        # The next hand announced (its server seed committed to): it outlives a start that
        # came to nothing, so that the seeds sent for it still count.
        self.next_deal: PendingDeal | None = None
        self._button: int | None = None
        self.blinds = OwedBlinds(seats, stakes_of(config), has_button=get_game(config.game).has_button)
        self.hands_played = 0
        self.hand_pause_seconds = hand_pause_seconds
        self.clock = ActionClock(
            think_seconds, countdown_seconds, self._on_clock_due, now=clock.now, call_later=clock.call_later
        )
        self.settlement = Settlement(table_id, store, clock, self._on_settle_due)
        self._start_timer: Timer | None = None

    @property
    def hand(self) -> Hand | None:
        return None if self.playing is None else self.playing.hand

    @property
    def hand_id(self) -> str | None:
        return None if self.playing is None else self.playing.hand_id

    @property
    def last_button(self) -> int | None:
        """The button of the last board-game hand dealt (None before the first), where the next
        one moves on from; tournament balancing seats players by it (R-TOURNAMENT-BALANCE-BUTTON)."""
        return self._button

    @property
    def busy(self) -> bool:
        """A hand is being played, or its start or end is being written (shutdown waits)."""
        return self.phase in (_P.STARTING, _P.PLAYING, _P.SETTLING)

    def in_hand(self, seat: int) -> bool:
        return self.playing is not None and seat in self.playing.accounts

    def _enter(self, phase: TablePhase) -> None:
        self.phase = next_phase(self.phase, phase)

    def _lobby_changed(self) -> None:
        self.lobby.lobby_changed(self.table_id)

    # -- the deal announced ---------------------------------------------------------------------------

    def schedule(self, delay: float | None = None) -> None:
        """Schedule the next hand if two can play (after ``delay``, else the pause)."""
        if self.phase is not _P.IDLE or self.draining or len(self.seats.eligible()) < 2:
            return
        pause = self.hand_pause_seconds if delay is None else delay
        self._start_timer = self.time.call_later(pause, self._on_start_due)
        self._enter(_P.SCHEDULED)
        if self.next_deal is None:
            # The next hand's server seed is committed to now, before any client seed for it
            # can arrive: the server cannot pick a deck after seeing the players' seeds.
            self.next_deal = PendingDeal.draw()
            self.fanout.table_event({"kind": "deal_commitment", **self.next_deal.announcement()})

    def take_seed(self, state: SeatState, hand_id: str, seed: bytes) -> None:
        """A seated player's seed for the announced next hand; refused, changing nothing, when
        it is late (the hand started, or another id) or a second one for that hand."""
        pending = self.next_deal
        if pending is None or hand_id != pending.hand_id:
            announced = "no hand is announced" if pending is None else f"the next hand is {pending.hand_id}"
            raise TableError(ErrorCode.TOO_LATE, f"hand {hand_id} takes no more seeds ({announced})")
        sent = pending.seeds.get(state.seat)
        if sent is not None and sent[0] == state.account_id:
            raise TableError(ErrorCode.SEED_ALREADY_SENT, f"you sent your seed for hand {hand_id} already")
        pending.seeds[state.seat] = (state.account_id, seed)

    def _on_start_due(self) -> None:
        self._start_timer = None
        self._submit(StartHand())

    def _cancel_start_timer(self) -> None:
        if self._start_timer is not None:
            self._start_timer.cancel()
            self._start_timer = None

    # -- starting -------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Deal the next hand now (``StartHand``), if the table is free and two can play."""
        self._cancel_start_timer()
        if self.phase not in (_P.IDLE, _P.SCHEDULED):
            return
        plan = self.blinds.plan(self.seats.eligible(), self._button)  # R-O8-NEW-PLAYER-WAITS
        players = plan.players
        if self.draining or len(players) < 2:
            self._enter(_P.IDLE)
            return
        self._enter(_P.STARTING)
        try:
            # The announced deal is taken now: a client seed that arrives from here on is late.
            pending = self.next_deal or PendingDeal.draw()
            self.next_deal = None
            playing = deal_hand(self.config, players, pending, self._button, plan.forced)
            self._button = playing.hand.button if playing.hand.button is not None else self._button
            await self.store.start_hand(playing.hand_id, playing.deal, players)
            if self.blinds.dealt(plan):
                self._seats_changed("blinds", None)
        except Exception as exc:
            # Nothing was dealt (the hand is kept only once the store has it): try again later.
            log.exception("table %s: could not start a hand", self.table_id)
            self._enter(_P.IDLE)
            self._pause(exc)
            self.schedule(max(2.0, self.hand_pause_seconds))
            return
        self.playing = playing
        self._enter(_P.PLAYING)
        self._resume()
        deal, hand_id = playing.deal, playing.hand_id
        seat_numbers = [s.seat for s in players]
        client_seeds = [ClientSeedInfo(**c) for c in deal.client_seeds_json()]
        self.fanout.broadcast(
            lambda version: HandStartedMsg(
                table_id=self.table_id,
                version=version,
                hand_id=hand_id,
                game=self.config.game,
                commitment=deal.root,
                seats=seat_numbers,
                deck_root=deal.root,
                seed_commitment=deal.seed_commitment,
                client_seeds=client_seeds,
            )
        )
        self._lobby_changed()
        await self.after_change()

    # -- decisions --------------------------------------------------------------------------------------

    def apply(self, state: SeatState, cmd: Act) -> None:
        """A seated player's action, applied to the hand; a refusal changes nothing."""
        playing = self.playing
        if playing is None:
            raise TableError(ErrorCode.NO_HAND, "no hand is being played at this table")
        if cmd.hand_id != playing.hand_id:
            raise TableError(
                ErrorCode.STALE, f"hand {cmd.hand_id} is not the hand being played ({playing.hand_id})"
            )
        if state.seat not in playing.accounts:
            raise TableError(ErrorCode.NOT_YOUR_TURN, "you are not dealt into this hand")
        hand = playing.hand
        decision = self.clock.current
        if decision is None or decision.seat != state.seat or hand.to_act != state.seat:
            raise TableError(ErrorCode.NOT_YOUR_TURN, f"it is not your turn (seat {hand.to_act} to act)")
        if cmd.version is not None and cmd.version != playing.decision_version:
            raise TableError(
                ErrorCode.STALE,
                f"the table moved on: you acted on version {cmd.version},"
                f" the decision is at {playing.decision_version}",
            )
        try:
            kind = ActionKind(cmd.kind)
        except ValueError:
            known = ", ".join(o.kind for o in playing.options())
            raise TableError(
                ErrorCode.ILLEGAL_ACTION, f"{cmd.kind!r} is not an action here (legal: {known})"
            ) from None
        try:
            hand.apply(state.seat, Action(kind=kind, amount=cmd.amount))
        except (IllegalActionError, ValueError, TypeError) as exc:
            raise TableError(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
        if playing.spend_time_bank(state, decision, self.time.now()):
            self._seats_changed("time_bank", state.seat)
        self.clock.cancel()
        if state.acted():
            # Back from a timeout by acting (R-SIT-OUT-AFTER-TIMEOUT): everyone sees it at once.
            self._seats_changed("sat_in", state.seat)

    def clock_info(self) -> ClockInfo | None:
        d = self.clock.current
        return None if d is None else d.info()

    def your_turn_for(self, seat: int | None) -> YourTurnMsg | None:
        decision = self.clock.current
        playing = self.playing
        if seat is None or decision is None or decision.seat != seat or playing is None:
            return None
        return YourTurnMsg(
            table_id=self.table_id,
            hand_id=playing.hand_id,
            version=playing.decision_version,
            seat=seat,
            options=playing.options(),
            think_ends=decision.think_ends,
            countdown_ends=decision.countdown_ends,
            server_time=self.time.now(),
            bank_ends=decision.bank_ends,
        )

    def _publish_engine_events(self, playing: HandInPlay, clock: ClockInfo | None = None) -> None:
        seat_of_account = {s.account_id: s.seat for s in self.seats.values()}
        self.fanout.engine_events(playing, seat_of_account, clock)
        for note in playing.untold_notes():  # the words of a timeout follow what the clock did
            self.fanout.table_event(note)

    async def after_change(self) -> None:
        """After the hand moved: publish its events, then finish it or start the next decision.

        The new decision's clock rides on the last event. A seat that is leaving has each of its
        decisions timed out at once: a loop, one turn per decision (no recursion).
        """
        while True:
            playing = self.playing
            if playing is None:
                return
            hand = playing.hand
            if hand.is_over:
                self._publish_engine_events(playing)
                await self._finish_hand()
                return
            seat = hand.to_act
            assert seat is not None
            state = self.seats.get(seat)
            # His time bank runs after the countdown (R-TIME-BANK).
            decision = self.clock.start(playing.hand_id, seat, bank=bank_of(state))
            self._publish_engine_events(playing, decision.info())
            playing.decision_version = self.fanout.version
            if state is not None and state.leaving:
                await self._time_out(playing, seat, allow_protection=False)
                continue
            turn = self.your_turn_for(seat)
            if turn is not None and state is not None:
                self.fanout.to_account(state.account_id, turn)
            return

    async def leaving(self, seat: int) -> None:
        """``seat`` stands up during the hand: if it is his turn, his decision is timed out now."""
        playing = self.playing
        decision = self.clock.current
        if (
            playing is not None
            and not playing.hand.is_over
            and decision is not None
            and decision.seat == seat
        ):
            await self._apply_timeout(playing, seat, allow_protection=False)

    async def clock_expired(self, serial: int) -> None:
        playing = self.playing
        if not self.clock.is_current(serial) or playing is None:
            return
        decision = self.clock.current
        assert decision is not None
        if playing.hand.to_act == decision.seat:
            await self._apply_timeout(playing, decision.seat, allow_protection=True)

    def _on_clock_due(self, serial: int) -> None:
        self._submit(ClockExpired(serial=serial))

    async def _apply_timeout(self, playing: HandInPlay, seat: int, *, allow_protection: bool) -> None:
        await self._time_out(playing, seat, allow_protection=allow_protection)
        await self.after_change()

    async def _time_out(self, playing: HandInPlay, seat: int, *, allow_protection: bool) -> None:
        """Apply the clock rule to ``seat``'s decision (the caller publishes what follows)."""
        state = self.seats.get(seat)
        protection = False
        asked = allow_protection and state is not None and playing.needs_protection(seat)
        if asked and state is not None:
            protection = await self.store.use_protected_all_in(state.account_id)
        # The clock ran out: his bank went first, whole (R-TIME-BANK); a leaver's is what ran.
        if playing.spend_time_bank(state, self.clock.current, self.time.now(), ran_out=allow_protection):
            self._seats_changed("time_bank", seat)
        self.clock.cancel()
        events = playing.hand.timeout(seat, protection_allowed=protection)
        if state is None or state.leaving:
            return
        if state.timed_out_now():
            self._seats_changed("timed_out", seat)
        await note_timeout(playing, self.store, state, events, counted=asked)

    # -- settling -----------------------------------------------------------------------------------

    def _end_hand(self) -> None:
        """The hand is settled (written, or voided): the table is free for the next one."""
        self.playing = None
        self._enter(_P.IDLE)

    async def _finish_hand(self, *, recorded: bool = False) -> None:
        """Write the end of the hand (unless the database has it already: ``recorded``), then
        apply it to the seats and tell everyone."""
        playing = self.playing
        assert playing is not None
        self.clock.cancel()
        end = playing.end(self.config.name)
        try:
            if recorded:
                self.settlement.settled()
            else:
                await self.settlement.finish(end)
        except Exception as exc:
            # The finished hand stays pending, the table waits, and the end is written again
            # later (or the hand voided).
            log.exception("table %s: could not write the end of hand %s", self.table_id, end.hand_id)
            self._settle_later(exc)
            return
        self._resume()
        result = playing.hand.result
        self.seats.set_stacks(result.final_stacks, playing.accounts)
        if playing.grow_time_banks(self.seats, self.seats.banks):
            self._seats_changed("time_bank", None)
        result_data = jsonable(result)
        if not isinstance(result_data, dict):
            result_data = {"value": result_data}
        result_data.setdefault("contributions", {str(k): v for k, v in end.contributions.items()})
        result_data.setdefault("awards", {str(k): v for k, v in end.awards.items()})
        root = playing.deal.root
        # No deck order and no salt: the cards nobody was shown stay unknown (docs/fairness.md).
        self.fanout.broadcast(
            lambda version: HandFinishedMsg(
                table_id=self.table_id,
                version=version,
                hand_id=end.hand_id,
                result=result_data,
                commitment=root,
            )
        )
        self._end_hand()
        self.hands_played += 1
        self.pots.record(sum(end.contributions.values()), self.time.now())
        self._lobby_changed()
        await self._after_hand()

    async def _void_hand(self, reason: str, *, recorded: bool = False) -> None:
        """Abandon the hand in progress: the store returns every contribution; stacks as before.
        ``recorded``: the database voided it already (only the table's side is left to do)."""
        self.clock.cancel()
        playing = self.playing
        if playing is None:
            return
        if recorded:
            self.settlement.settled()
        else:
            await self.settlement.void(playing.hand_id, reason)
        self._resume()
        self.seats.set_stacks(playing.hand.initial_stacks, playing.accounts)
        self._end_hand()
        self.fanout.table_event({"kind": "hand_voided", "hand_id": playing.hand_id, "reason": reason})
        self._lobby_changed()

    async def _void_or_retry(self, reason: str) -> None:
        """Void the hand and go on; if the store refuses the void too, retry it later."""
        try:
            await self._void_hand(reason)
        except Exception as exc:
            log.exception("table %s: could not void hand %s", self.table_id, self.hand_id)
            self._settle_later(exc)
            return
        await self._after_hand()

    async def _after_hand(self) -> None:
        """The seats' turn (sit-outs asked during the hand, leavers and busted players cashed
        out: ``Seating.after_hand``), then the next hand is scheduled."""
        await self._hand_over()
        self.schedule()

    def _pause(self, exc: BaseException) -> None:
        """Tell the watchers (once) that hands cannot go on while the store fails."""
        reason = "database unavailable" if is_database_error(exc) else "internal error"
        if self.paused is None:
            self.paused = reason
            self.fanout.table_event({"kind": "paused", "reason": reason})

    def _resume(self) -> None:
        if self.paused is not None:
            self.paused = None
            self.fanout.table_event({"kind": "resumed"})

    def _settle_later(self, exc: BaseException) -> None:
        """The store refused the end (or the void) of the hand: it stays pending, retried."""
        self.clock.cancel()
        self._pause(exc)
        playing = self.playing
        if playing is not None:
            self.settlement.refused(playing.hand_id, exc)
            self._enter(_P.SETTLING)

    def _on_settle_due(self, hand_id: str) -> None:
        self._submit(RetrySettle(hand_id=hand_id))

    async def retry_settle(self, hand_id: str) -> None:
        """Write the end of a finished hand again, or void it (``Settlement.plan`` decides)."""
        playing = self.playing
        if playing is None or playing.hand_id != hand_id:
            return
        try:
            over = playing.hand.is_over
        except Exception:
            over = False
        plan, reason = await self.settlement.plan(hand_id, over=over)
        if plan is Retry.RECORDED:
            await self._finish_hand(recorded=True)
        elif plan is Retry.WRITE_END:
            await self._finish_hand()
        elif plan is Retry.VOIDED:
            await self._void_hand(reason or "", recorded=True)
            await self._after_hand()
        else:
            await self._void_or_retry(reason or "")

    async def recover(self) -> None:
        """After an unexpected error: if the hand is broken, void it so the table goes on."""
        playing = self.playing
        if playing is None:
            self.schedule()
            return
        try:
            ok = not playing.hand.is_over and playing.hand.to_act is not None
        except Exception:
            ok = False
        if not ok:
            await self._void_or_retry("internal error")

    async def stop(self) -> None:
        """Shut down: no timer left, the hand being played (if any) voided."""
        self._enter(_P.STOPPED)
        self.settlement.stop()
        self._cancel_start_timer()
        if self.playing is not None:
            await self._void_hand("server shutdown")
        self.clock.cancel()
