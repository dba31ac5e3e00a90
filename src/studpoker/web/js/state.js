// The state of one table as this client knows it: the last snapshot plus the versioned events
// applied on top. Every versioned message must carry the next version; a gap (a lost message,
// a reconnection) asks the server for a fresh snapshot (resync) instead of guessing.
//
// The hand itself is a store of what the server said, in one shape: filled from the engine's
// per-seat view in a snapshot (modelFromView), or from the events (applyHandEvent): their cards,
// and the `changes` on the last event of each batch, which carry the pots, each seat's chips and
// flags and the seat to act as the server's engine has them. Nothing here works out a pot, a bet
// or a stack. The rest of the client never reads server messages directly: it reads `view()`
// (normalize), a plain picture of the table.

import { DealCheck, visibleCards } from "./deal_check.js";
import { gameName, gameOf } from "./games.js";
import { applyHandEvent, modelFromView } from "./hand_model.js";

// the hand model's functions, where the tests and the rest of the client have always found them
export { gameName };
export { applyChanges, applyHandEvent, modelFromView } from "./hand_model.js";

const TABLE_EVENTS = new Set(["seats", "clock", "hand_voided", "paused", "resumed", "deal_commitment", "timed_out"]);

export class TableState {
  constructor(tableId, { onGap } = {}) {
    this.tableId = tableId;
    this.onGap = onGap ?? (() => {});
    this.version = -1;
    this.table = {};
    this.seats = [];
    this.yourSeat = null;
    this.handId = null;
    this.hand = null;
    this.clock = null;
    this.yourTurn = null;
    this.commitment = null; // announced at hand start, for the deck check at the end
    this.nextDeal = null; // {handId, seedCommitment}: the next hand's seed commitment (deal_commitment)
    this.deal = null; // DealCheck of the hand in play (or just finished): its openings checked
    this.lastResult = null; // hand_finished of the last hand (showdown display)
    this.events = []; // recent events of the current hand, for the status line
    this.lastAction = null; // {seat, action, amount} of the last action event of this street
    this.timeouts = {}; // seat -> the timed_out event of this hand (protocol 1.6): its words
    this.paused = null; // the reason of a `paused` table event, until `resumed` (protocol 1.2)
    this.listeners = new Set();
    this.waitingResync = false;
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(reason) {
    for (const fn of this.listeners) fn(this, reason);
  }

  /** A full table_state: replaces everything. */
  applySnapshot(msg) {
    this.version = msg.version;
    this.table = msg.table ?? {};
    this.seats = msg.seats ?? [];
    this.yourSeat = msg.your_seat ?? null;
    if (msg.hand_id !== this.handId) this.events = [];
    if (msg.hand_id !== this.handId) this.lastAction = null;
    if (msg.hand_id !== this.handId) this.timeouts = {};
    this.handId = msg.hand_id ?? null;
    // the deck commitment of the hand in play comes with the snapshot (protocol 1.1): a reload
    // can still check the deal at the end of the hand
    if (msg.hand_id && (msg.deck_root ?? msg.commitment)) this.commitment = { handId: msg.hand_id, hash: msg.deck_root ?? msg.commitment };
    if (msg.hand?.seats) this.handSeats = msg.hand.seats.map((s) => s.seat);
    this.nextDeal = msg.next_deal?.hand_id ? { handId: msg.next_deal.hand_id, seedCommitment: msg.next_deal.seed_commitment } : null;
    if (msg.hand_id) {
      const root = msg.deck_root ?? msg.commitment;
      if (this.deal?.handId !== msg.hand_id || this.deal.root !== root) {
        this.startDeal(msg.hand_id, { root, verifiable: Boolean(msg.deck_root), seedCommitment: msg.seed_commitment ?? null, clientSeeds: msg.client_seeds ?? null });
      }
      this.deal.add(msg.openings);
    }
    this.hand = msg.hand ? modelFromView(msg.hand) : null;
    if (this.hand?.over && !this.lastResult && this.hand.result) {
      this.lastResult = { hand_id: this.handId, result: this.hand.result };
    }
    this.clock = msg.clock ?? null;
    this.yourTurn = msg.your_turn ?? null;
    if (this.hand && this.lastResult && this.lastResult.hand_id !== this.handId) this.lastResult = null;
    this.waitingResync = false;
    this.emit("snapshot");
  }

  /**
   * Check a versioned message against the version we hold. Returns "apply" for the next version,
   * "same" for a message about the version we already have (e.g. your_turn after its event),
   * "stale" for an old one, and "gap" (after asking for a resync) when messages were missed.
   */
  sequence(msg) {
    // Before the first snapshot (it follows the join's ack) there is nothing to apply to.
    if (this.version < 0) return "stale";
    if (typeof msg.version !== "number") return "apply";
    if (msg.version === this.version + 1) return "apply";
    if (msg.version === this.version) return "same";
    if (msg.version < this.version) return "stale";
    this.requestResync();
    return "gap";
  }

  /** Forget the version until the next snapshot (after a reconnection). */
  awaitSnapshot() {
    this.version = -1;
    this.waitingResync = false;
  }

  requestResync() {
    if (this.waitingResync) return;
    this.waitingResync = true;
    this.onGap(this.tableId);
  }

  /** A new hand's deal check (the one of the previous hand is dropped). */
  startDeal(handId, { root, verifiable, seedCommitment = null, clientSeeds = null, announced = null }) {
    this.deal = new DealCheck({
      handId, root, verifiable, seedCommitment, clientSeeds, announced,
      handSeats: this.handSeats ?? null,
      onChange: (deal) => deal === this.deal && this.emit("deal_check"),
    });
    return this.deal;
  }

  /**
   * Openings received (cards_opened, or riding on another message): checked against the deck
   * root of their hand. They change no version unless they carry the next one.
   */
  applyOpenings(msg) {
    if (!Array.isArray(msg.openings) || !this.deal || msg.hand_id !== this.deal.handId) return false;
    this.deal.add(msg.openings);
    return true;
  }

  /** A server message for this table other than a snapshot. Returns true if the state changed. */
  applyMessage(msg) {
    if (msg.type === "cards_opened") {
      if (typeof msg.version === "number" && this.sequence(msg) === "apply") this.version = msg.version;
      return this.applyOpenings(msg);
    }
    const changed = this.applyMessageBody(msg);
    if (changed) this.applyOpenings(msg);
    return changed;
  }

  applyMessageBody(msg) {
    switch (msg.type) {
      case "event":
        return this.applyEvent(msg);
      case "your_turn": {
        const seq = this.sequence(msg);
        if (seq === "stale" || seq === "gap") return false;
        if (seq === "apply") this.version = msg.version;
        this.yourTurn = msg;
        this.clock = withBank({ seat: msg.seat, think_ends: msg.think_ends, countdown_ends: msg.countdown_ends }, msg);
        this.emit("your_turn");
        return true;
      }
      case "hand_started": {
        const seq = this.sequence(msg);
        if (seq === "stale" || seq === "gap") return false;
        if (seq === "apply") this.version = msg.version;
        this.commitment = { handId: msg.hand_id, hash: msg.deck_root ?? msg.commitment };
        this.handId = msg.hand_id;
        this.handSeats = msg.seats;
        this.startDeal(msg.hand_id, {
          root: msg.deck_root ?? msg.commitment,
          verifiable: Boolean(msg.deck_root),
          seedCommitment: msg.seed_commitment ?? null,
          clientSeeds: msg.client_seeds ?? null,
          announced: this.nextDeal?.handId === msg.hand_id ? this.nextDeal.seedCommitment : null,
        });
        if (this.nextDeal?.handId === msg.hand_id) this.nextDeal = null;
        this.hand = null;
        this.lastResult = null;
        this.events = [];
        this.lastAction = null;
        this.timeouts = {};
        // a mixed-game table (protocol 1.6 rotation) deals this hand in msg.game: its forced
        // bets and hands left are the server's, so a fresh snapshot brings them
        if (this.table?.rotation) {
          this.table = { ...this.table, game: msg.game };
          this.requestResync();
        }
        this.emit("hand_started");
        return true;
      }
      case "hand_finished": {
        const seq = this.sequence(msg);
        if (seq === "stale" || seq === "gap") return false;
        if (seq === "apply") this.version = msg.version;
        this.lastResult = msg;
        this.yourTurn = null;
        // the stacks after the awards, for the seat list until the server sends seats again
        for (const p of this.hand?.players ?? []) {
          const seat = this.seats.find((s) => s.seat === p.seat);
          if (seat && p.stack !== null) seat.stack = p.stack;
        }
        this.clock = null;
        this.emit("hand_finished");
        return true;
      }
      default:
        return false;
    }
  }

  applyEvent(msg) {
    const seq = this.sequence(msg);
    if (seq !== "apply") return false;
    this.version = msg.version;
    const event = msg.event ?? {};
    this.events.push(event);
    if (this.events.length > 60) this.events.shift();
    // Table events (seats, clock, hand_voided) and engine events share the `kind` field.
    const kind = event.kind ?? event.type;
    const tableEvent = TABLE_EVENTS.has(kind);
    switch (kind) {
      case "seats":
        this.seats = event.seats ?? this.seats;
        if (this.myAccount !== undefined) {
          const mine = this.seats.find((s) => s.account_id === this.myAccount);
          this.yourSeat = mine ? mine.seat : null;
        }
        break;
      case "clock":
        this.clock = withBank({ seat: event.seat, think_ends: event.think_ends, countdown_ends: event.countdown_ends, extended: event.extended }, event);
        break;
      case "hand_voided":
        this.hand = null;
        this.handId = null;
        this.clock = null;
        this.yourTurn = null;
        break;
      case "hidden": // an event only another seat may see: nothing to apply
        break;
      case "paused": // the server cannot record hands (database unavailable): play waits
        this.paused = event.reason ?? "paused";
        break;
      case "resumed":
        this.paused = null;
        break;
      case "timed_out": // the clock rule played for a seat: the server's words say what (1.6)
        this.timeouts[event.seat] = event;
        this.lastAction = { seat: event.seat, action: "timed_out", text: event.text };
        break;
      case "deal_commitment": // the next hand's server seed is fixed: our seed may go in now
        this.nextDeal = event.hand_id ? { handId: event.hand_id, seedCommitment: event.seed_commitment ?? null } : null;
        break;
      default:
        if (kind) {
          if (msg.hand_id && msg.hand_id !== this.handId) {
            this.handId = msg.hand_id;
            this.hand = null;
          }
          this.hand = applyHandEvent(this.hand, msg, this.table?.game);
          if (kind === "action") this.lastAction = { seat: event.seat, action: event.action, amount: event.amount };
          else if (kind === "street" || kind === "hand_start") this.lastAction = null;
        }
    }
    // Protocol 1.2: the clock of the decision that starts with this event rides on it.
    if (msg.clock) {
      this.clock = withBank({ seat: msg.clock.seat, think_ends: msg.clock.think_ends, countdown_ends: msg.clock.countdown_ends, extended: !!msg.clock.extended }, msg.clock);
    }
    // A new decision or any move of the hand ends the turn we were offered (a clock extension
    // for the same decision does not; its your_turn follows anyway).
    const sameDecision = kind === "clock" && event.extended && this.yourTurn?.seat === event.seat;
    if ((kind === "clock" && !sameDecision) || (!tableEvent && kind !== "hidden") || kind === "hand_voided") this.yourTurn = null;
    this.emit("event");
    return true;
  }

  /** The normalized picture the table renderer draws. */
  view() {
    return normalize(this);
  }
}

/** A decision's clock with the end of the seat's time bank, when the server sends it (1.6). */
function withBank(clock, from) {
  return typeof from.bank_ends === "number" ? { ...clock, bank_ends: from.bank_ends } : clock;
}

// ------------------------------------------------------------------------------------ normalize

/** The picture the table draws: every seat of the table, with the hand's players filled in. */
function normalize(st) {
  const table = st.table ?? {};
  const hand = st.hand;
  const game = table.game ?? hand?.game;
  const maxSeats = table.max_seats ?? gameOf(game).max_seats;
  const seats = new Map();
  for (let i = 1; i <= maxSeats; i++) seats.set(i, { seat: i, occupied: false, cards: [], bet: 0 });
  for (const s of st.seats) {
    seats.set(s.seat, {
      seat: s.seat,
      occupied: true,
      accountId: s.account_id,
      name: s.name,
      stack: s.stack,
      sittingOut: Boolean(s.sitting_out),
      timedOut: Boolean(s.timed_out),
      sitOutNextHand: Boolean(s.sit_out_next_hand),
      leaving: Boolean(s.leaving),
      // board games: the blinds he owes to be dealt in, and his choice to post them (blinds.js)
      owesBigBlind: Boolean(s.owes_big_blind),
      owesSmallBlind: Boolean(s.owes_small_blind),
      postBlindNow: Boolean(s.post_blind_now),
      timeout: st.timeouts[s.seat] ?? null,
      connected: s.connected !== false,
      isBot: Boolean(s.bot ?? s.is_bot),
      cards: [],
      bet: 0,
    });
  }
  for (const p of hand?.players ?? []) {
    const seat = seats.get(p.seat) ?? { seat: p.seat, occupied: true, name: `Seat ${p.seat}` };
    Object.assign(seat, {
      inHand: true,
      cards: p.cards,
      bet: p.bet ?? 0,
      // the seat list's until the server tells the hand's, and again once the hand is over
      // (chips added during it land after it: top_up.py)
      stack: hand.over ? (seat.stack ?? p.stack) : (p.stack ?? seat.stack),
      folded: p.folded,
      allIn: p.all_in,
      protected: Boolean(p.protected),
      mucked: Boolean(p.mucked) || Boolean(hand.result?.mucked?.includes(p.seat)),
    });
    seats.set(p.seat, seat);
  }
  const toAct = hand?.to_act ?? st.clock?.seat ?? null;
  const list = [...seats.values()].sort((a, b) => a.seat - b.seat);
  for (const s of list) {
    s.isHero = s.seat === st.yourSeat;
    s.toAct = s.seat === toAct;
    s.bringIn = s.seat === hand?.bring_in_seat;
    s.button = s.seat === hand?.button;
  }
  return {
    tableId: st.tableId,
    version: st.version,
    name: table.name ?? `Table ${st.tableId}`,
    game,
    gameName: gameName(game),
    stakes: stakesOf(table),
    maxSeats,
    heroSeat: st.yourSeat,
    handId: st.handId,
    hand,
    street: hand?.street ?? null,
    seats: list,
    pots: drawnPots(hand?.pots),
    community: hand?.community ?? [],
    board: hand?.board ?? [],
    button: hand?.button ?? null,
    clock: st.clock,
    yourTurn: st.yourTurn,
    result: st.lastResult,
    commitment: st.commitment,
    deal: st.deal && st.deal.handId === st.handId ? st.deal.summary(visibleCards(hand, st.yourSeat, st.lastResult?.hand_id === st.handId ? st.lastResult.result : null)) : null,
  };
}

/**
 * The pots the server sent, labelled for the middle of the table: the chips gathered from the
 * betting rounds before this one, split at each all-in (server/table/encoding.py middle_pots);
 * this round's bets lie in front of the seats.
 */
export function drawnPots(pots) {
  const drawn = (pots ?? []).filter((p) => p.amount > 0);
  return drawn.map((p, i) => ({ ...p, label: i === 0 ? (drawn.length > 1 ? "Main pot" : "Pot") : `Side pot ${i}` }));
}

export function stakesOf(table) {
  return {
    small: table.small_bet,
    big: table.big_bet,
    ante: table.ante,
    bringIn: table.bring_in,
    smallBlind: table.small_blind,
    bigBlind: table.big_blind,
    minBuyIn: table.min_buy_in,
    maxBuyIn: table.max_buy_in,
  };
}
