// The state of one table as this client knows it: the last snapshot plus the versioned events
// applied on top. Every versioned message must carry the next version; a gap (a lost message,
// a reconnection) asks the server for a fresh snapshot (resync) instead of guessing.
//
// The hand itself is a small model: built from the engine's per-seat view in a snapshot
// (modelFromView), then moved on by the engine events (reduceEvent). The rest of the client
// never reads server messages directly: it reads `view()` (normalize), a plain picture of the
// table.

import { DealCheck, visibleCards } from "./deal_check.js";

const TABLE_EVENTS = new Set(["seats", "clock", "hand_voided", "paused", "resumed", "deal_commitment"]);

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
        this.clock = { seat: msg.seat, think_ends: msg.think_ends, countdown_ends: msg.countdown_ends };
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
          if (seat) seat.stack = p.stack;
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
        this.clock = { seat: event.seat, think_ends: event.think_ends, countdown_ends: event.countdown_ends, extended: event.extended };
        if (this.hand) this.hand.to_act = event.seat;
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
      case "deal_commitment": // the next hand's server seed is fixed: our seed may go in now
        this.nextDeal = event.hand_id ? { handId: event.hand_id, seedCommitment: event.seed_commitment ?? null } : null;
        break;
      default:
        if (kind) {
          if (msg.hand_id && msg.hand_id !== this.handId) {
            this.handId = msg.hand_id;
            this.hand = null;
          }
          this.hand = reduceEvent(this.hand, event, this);
        }
    }
    // Protocol 1.2: the clock of the decision that starts with this event rides on it.
    if (msg.clock) {
      this.clock = { seat: msg.clock.seat, think_ends: msg.clock.think_ends, countdown_ends: msg.clock.countdown_ends, extended: !!msg.clock.extended };
      if (this.hand) this.hand.to_act = msg.clock.seat;
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

// ------------------------------------------------------------------------------------ the hand model

/**
 * The client's model of the hand, from the engine's per-seat view (engine/views.py HandView) in a
 * snapshot; engine events then move it on (reduceEvent).
 */
export function modelFromView(view) {
  const game = view.game;
  const players = (view.seats ?? []).map((s) => ({
    seat: s.seat,
    stack: s.stack,
    bet: s.bet ?? 0,
    total: s.contributed ?? 0,
    cards: cardsOf(s),
    folded: Boolean(s.folded),
    all_in: Boolean(s.all_in),
    protected: Boolean(s.protected),
  }));
  const board = view.board ?? [];
  const shows = {};
  for (const h of view.result?.shown ?? []) shows[h.seat] = { cards: h.cards, detail: [h.high, h.low].filter(Boolean).join(" / ") };
  return {
    game,
    street: view.street,
    players,
    board: game === "O8" ? [...board] : [],
    community: game === "O8" ? [] : [...board],
    to_act: view.to_act ?? null,
    bring_in_seat: view.bring_in_seat ?? null,
    button: view.button ?? null,
    shows,
    awards: [],
    over: Boolean(view.is_over),
    result: view.result ?? null,
    started: true,
  };
}

// ------------------------------------------------------------------------------------ events

function player(hand, seat) {
  let p = hand.players.find((x) => x.seat === seat);
  if (!p) {
    p = { seat, stack: 0, bet: 0, total: 0, cards: [], folded: false, all_in: false };
    hand.players.push(p);
    hand.players.sort((a, b) => a.seat - b.seat);
  }
  return p;
}

function newHand(st) {
  const players = (st.seats ?? []).map((s) => ({ seat: s.seat, stack: s.stack, bet: 0, total: 0, cards: [], folded: false, all_in: false }));
  return {
    game: st.table?.game,
    street: null,
    players,
    board: [],
    community: [],
    to_act: null,
    bring_in_seat: null,
    button: null,
    shows: {},
    show_order: [],
    awards: [],
    over: false,
    started: false,
  };
}

/** Omaha: the button sits right before the small blind (heads-up the button posts it). */
function buttonFromSmallBlind(hand, sbSeat) {
  const seats = hand.players.map((p) => p.seat).sort((a, b) => a - b);
  if (seats.length === 2) return sbSeat;
  const i = seats.indexOf(sbSeat);
  return i < 0 ? null : seats[(i - 1 + seats.length) % seats.length];
}

/**
 * Apply one engine event (studpoker/engine/events.py) to the client's model of the hand.
 * Cards the viewer may not see arrive as null and stay card backs.
 */
export function reduceEvent(hand, ev, st) {
  if (!hand || ev.kind === "hand_start") hand = newHand(st);
  if (!hand.started && hand.players.length && st.handSeats) {
    hand.players = hand.players.filter((p) => st.handSeats.includes(p.seat));
  }
  hand.started = true;
  const p = ev.seat !== undefined && ev.seat !== null ? player(hand, ev.seat) : null;
  const pay = (amount, toBet) => {
    if (!p || !amount) return;
    p.stack -= amount;
    p.total += amount;
    if (toBet) p.bet += amount;
  };
  switch (ev.kind) {
    case "hand_start":
      if (ev.detail) hand.game = ev.detail;
      break;
    case "post_ante":
      pay(ev.amount, false);
      if (ev.all_in) p.all_in = true;
      break;
    case "post_blind":
      pay(ev.amount, true);
      if (ev.all_in) p.all_in = true;
      if (ev.detail === "small" && hand.button === null) hand.button = buttonFromSmallBlind(hand, ev.seat);
      break;
    case "deal":
      for (const c of ev.cards ?? [null]) p.cards.push({ card: c, up: ev.detail === "up" });
      break;
    case "deal_board":
      if (hand.game === "O8") hand.board.push(...(ev.cards ?? []));
      else hand.community.push(...(ev.cards ?? []));
      break;
    case "street":
      for (const q of hand.players) q.bet = 0;
      hand.street = ev.street ?? hand.street;
      hand.to_act = ev.seat ?? null;
      hand.last_action = null;
      break;
    case "bring_in_player":
      hand.bring_in_seat = ev.seat;
      hand.to_act = ev.seat;
      break;
    case "action": {
      if (ev.action === "fold") p.folded = true;
      else if (ev.amount !== undefined && ev.amount !== null && ev.amount > p.bet) pay(ev.amount - p.bet, true);
      if (ev.all_in) p.all_in = true;
      hand.last_action = { seat: ev.seat, action: ev.action, amount: ev.amount };
      break;
    }
    case "timeout":
      hand.last_timeout = { seat: ev.seat, detail: ev.detail };
      if (ev.detail === "protected_all_in") p.all_in = true;
      break;
    case "expose": {
      // down cards turned up for an all-in run-out: they stay up for the rest of the hand
      const shown = (ev.cards ?? []).filter(Boolean);
      const known = new Set(p.cards.map((c) => c.card).filter(Boolean));
      const extra = shown.filter((c) => !known.has(c));
      p.cards = p.cards.map((c) => (c.card ? { card: c.card, up: true } : { card: extra.shift() ?? null, up: true }));
      break;
    }
    case "show":
      // kept aside: the table turns the hands up one by one, in this order, at the showdown
      hand.shows[ev.seat] = { cards: (ev.cards ?? []).filter(Boolean), detail: ev.detail ?? "" };
      hand.show_order = [...(hand.show_order ?? []).filter((x) => x !== ev.seat), ev.seat];
      break;
    case "muck":
      p.mucked = true;
      break;
    case "return":
      p.stack += ev.amount ?? 0;
      p.total -= ev.amount ?? 0;
      p.bet = Math.max(0, p.bet - (ev.amount ?? 0));
      break;
    case "award":
      p.stack += ev.amount ?? 0;
      hand.awards.push({ seat: ev.seat, amount: ev.amount ?? 0, pot: ev.pot ?? 0, detail: ev.detail ?? "" });
      break;
    case "hand_end":
      hand.over = true;
      hand.to_act = null;
      break;
    default:
      break;
  }
  return hand;
}

// ------------------------------------------------------------------------------------ normalize

const GAME_NAMES = {
  "7S": "Seven Card Stud",
  "7S8": "Stud Hi/Lo",
  RZ: "Razz",
  O8: "Omaha Hi/Lo",
};

export function gameName(code) {
  return GAME_NAMES[code] ?? code ?? "";
}

/**
 * A seat's cards in dealing order from a SeatView (engine/views.py): in stud the two first down
 * cards, the up cards, then the 7th-street down card; in Omaha the four down cards.
 */
function cardsOf(seatView) {
  const down = seatView.down ?? [];
  const up = seatView.up ?? [];
  return [
    ...down.slice(0, 2).map((card) => ({ card, up: false })),
    ...up.map((card) => ({ card, up: true })),
    ...down.slice(2).map((card) => ({ card, up: false })),
  ];
}

/** The picture the table draws: every seat of the table, with the hand's players filled in. */
function normalize(st) {
  const table = st.table ?? {};
  const hand = st.hand;
  const game = table.game ?? hand?.game;
  const maxSeats = table.max_seats ?? (game === "O8" ? 10 : 8);
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
      bet: p.bet,
      stack: p.stack,
      folded: p.folded,
      allIn: p.all_in,
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
    pots: potsOf(hand),
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
 * The pots in the middle (bets of the current round not included: they are drawn in front of
 * each seat), split into main and side pots at each all-in level like engine/pots.py.
 */
export function potsOf(hand) {
  const players = hand?.players ?? [];
  if (!players.length) return [];
  const put = new Map(players.map((p) => [p.seat, Math.max(0, p.total - (p.bet ?? 0))]));
  const live = players.filter((p) => !p.folded).map((p) => p.seat);
  const levels = [...new Set(players.filter((p) => !p.folded && p.all_in).map((p) => p.total))].sort((a, b) => a - b);
  const pots = [];
  let previous = 0;
  for (const level of [...levels, Infinity]) {
    let amount = 0;
    for (const v of put.values()) if (v > previous) amount += Math.min(v, level) - previous;
    const totalOf = (seat) => players.find((p) => p.seat === seat).total;
    const eligible = live.filter((seat) => (level === Infinity ? totalOf(seat) > previous : totalOf(seat) >= level));
    if (amount > 0) pots.push({ amount, eligible });
    if (level === Infinity) break;
    previous = level;
  }
  return pots.map((p, i) => ({ ...p, label: i === 0 ? (pots.length > 1 ? "Main pot" : "Pot") : `Side pot ${i}` }));
}

export function stakesOf(table) {
  return {
    small: table.small_bet,
    big: table.big_bet,
    ante: table.ante,
    bringIn: table.bring_in,
    minBuyIn: table.min_buy_in,
    maxBuyIn: table.max_buy_in,
  };
}
