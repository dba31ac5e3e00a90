// The dealer log (issue 12, item 5): every line of what happened in the hand, written from the
// events the server sends: each street's start and the up cards dealt (and your own down
// cards), every post and action with its amount in the room's money format, timeouts, what was
// shown at the showdown, what was mucked or returned, and who won what from which pot.
//
// The last hands are kept in the page, and in sessionStorage so that a reload of the tab finds
// them again. The hand in progress is written again from the snapshot's `hand_events` (the
// server's own event list for this viewer, protocol 1.6): exact whatever was missed, and the
// lines already seen keep the time they came at. Lines are plain {v, cls, text, at} records: the
// panel (chat.js) draws them as text, never as HTML. A decision that used the player's time bank
// says so ("bob calls 1.00 (time bank 12.4 s)": the event's `time_bank`, R-TIME-BANK). A
// timeout's line has the table's words ("bob timed out: protected all-in (1 of 2 today)"), from
// its `timed_out` event or, in a snapshot (a reload, a tab just opened), its `timeout_notes`.
//
// The showdown is not given away early: the table turns the shown hands up one by one and puts
// the result banner up after the last (table.js), and it reports each drawing to
// `tableShowdown`. A shown hand's line appears once the table has it face up, the win lines once
// the banner is up; the lines after a held one wait with it (the log keeps its order).

import { cardName } from "./deal_check.js";
import { money, streetName } from "./format.js";
import { gameOf } from "./games.js";

const KEEP_HANDS = 10;

const cards = (list) => (list ?? []).map((c) => (c ? cardName(c) : "??")).join(" ");
const POTS = (pot) => (!pot ? "the pot" : `side pot ${pot}`);
const HALVES = { high: " (high)", low: " (low)", scoop: " (high and low)", uncontested: " (uncontested)" };
const TIMEOUTS = { check: "checked", bring_in: "brought in", fold: "folded", protected_all_in: "protected all-in" };
const bankNote = (seconds) => (typeof seconds === "number" && seconds > 0 ? ` (time bank ${seconds.toFixed(1)} s)` : "");
const RESULT = "result"; // a line's `reveal`: it waits for the banner (a shown hand's waits for its seat)

/**
 * How far the table has turned up a showdown, as table.js last drew it: the hand, the seats
 * whose shown hands are face up, and whether all are (`done`: the result banner is up). The
 * dealer logs listen; a drawing that changes nothing tells nobody.
 */
export class ShowdownProgress {
  constructor() {
    this.handId = null;
    this.up = new Set();
    this.done = false;
    this.listeners = new Set();
  }

  listen(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The table drew hand `handId` with the shown hands of `up` face up; `done`: all of them. */
  report(handId, up, done) {
    const same = handId === this.handId && done === this.done && up.size === this.up.size && [...up].every((s) => this.up.has(s));
    if (same) return;
    this.handId = handId;
    this.up = new Set(up);
    this.done = done;
    for (const fn of this.listeners) fn();
  }

  /** Whether the table shows what line `line` of hand `handId` says (a line with no `reveal` waits for nothing). */
  shows(handId, line) {
    if (line.reveal === undefined) return true;
    if (handId !== this.handId) return false;
    return this.done || (line.reveal !== RESULT && this.up.has(line.reveal));
  }
}

/** The page's table (table.js reports to it). */
export const tableShowdown = new ShowdownProgress();

/**
 * One hand being written: the bets of the round (to say what a call adds), the lines so far.
 * `nameOf(seat)` names a seat; `me` is the viewer's seat (null: a watcher).
 */
export class HandLog {
  constructor(handId, { game = null, nameOf = (seat) => `Seat ${seat}`, me = null } = {}) {
    this.handId = handId;
    this.game = game;
    this.nameOf = nameOf;
    this.me = me;
    this.lines = [];
    this.bets = new Map();
    this.versions = new Set();
  }

  who(seat) {
    return this.nameOf(seat);
  }

  /** Where a line of engine event version `v` goes: the lines keep the engine's order, whatever
   *  order the messages came in (a seat's own cards and the table's events travel apart, and a
   *  loaded machine can swap them); a line without a version goes last. */
  insertAt(v) {
    let i = this.lines.length;
    if (typeof v !== "number") return i;
    while (i > 0 && typeof this.lines[i - 1].v === "number" && this.lines[i - 1].v > v) i--;
    return i;
  }

  push(v, cls, text, at) {
    const line = { v, cls, text, at };
    this.lines.splice(this.insertAt(v), 0, line);
    return line;
  }

  /** One engine event (engine/events.py to_dict) at server time `at`; false if already written. */
  add(ev, at) {
    if (typeof ev.version === "number") {
      if (this.versions.has(ev.version)) return false;
      this.versions.add(ev.version);
    }
    const v = ev.version ?? null;
    const seat = ev.seat ?? null;
    const allIn = ev.all_in ? ", all-in" : "";
    switch (ev.kind) {
      case "hand_start":
        if (ev.detail) this.game = ev.detail;
        this.push(v, "hand", `Hand ${String(this.handId ?? "").slice(0, 8)}: ${gameOf(this.game).name}`, at);
        break;
      case "post_ante":
        this.push(v, "post", `${this.who(seat)} posts the ante ${money(ev.amount)}${allIn}`, at);
        break;
      case "post_blind":
        this.bets.set(seat, ev.amount ?? 0);
        this.push(v, "post", `${this.who(seat)} posts the ${ev.detail ?? ""} blind ${money(ev.amount)}${allIn}`.replace("  ", " "), at);
        break;
      case "street":
        this.bets.clear();
        this.push(v, "street", streetName(ev.street), at);
        break;
      case "deal":
        this.deal(v, seat, ev, at);
        break;
      case "deal_board": {
        const what = gameOf(this.game).board ? "Board" : "Community card";
        this.push(v, "deal", `${what}: ${cards(ev.cards)}`, at);
        break;
      }
      case "action":
        this.push(v, "action", this.actionText(seat, ev) + allIn + bankNote(ev.time_bank), at);
        break;
      case "timeout": {
        const what = TIMEOUTS[ev.detail] ?? String(ev.detail ?? "").replace(/_/g, " ");
        const line = this.push(v, "timeout", `${this.who(seat)} timed out: ${what}${bankNote(ev.time_bank)}`, at);
        line.seat = seat; // a snapshot's words for it find it by its seat
        if (ev.time_bank) line.bank = ev.time_bank;
        break;
      }
      case "expose":
        this.push(v, "show", `${this.who(seat)} turns up ${cards(ev.cards)} (all-in)`, at);
        break;
      case "show":
        this.push(v, "show", `${this.who(seat)} shows ${cards(ev.cards)}${ev.detail ? ` (${ev.detail})` : ""}`, at).reveal = seat;
        break;
      case "muck":
        this.push(v, "show", `${this.who(seat)} mucks`, at);
        break;
      case "return":
        this.push(v, "award", `${money(ev.amount)} returned to ${this.who(seat)} (not called)`, at);
        break;
      case "award":
        this.push(v, "award", `${this.who(seat)} wins ${money(ev.amount)} from ${POTS(ev.pot)}${HALVES[ev.detail] ?? ""}`, at).reveal = RESULT;
        break;
      default:
        return false; // hand_end, bring_in_player, burn: nothing to say
    }
    return true;
  }

  /** "alice calls 1.00" says the chips a call adds; the other amounts are the round totals. */
  actionText(seat, ev) {
    const before = this.bets.get(seat) ?? 0;
    const amount = ev.amount ?? 0;
    if (ev.action !== "fold" && ev.action !== "check") this.bets.set(seat, amount);
    const name = this.who(seat);
    switch (ev.action) {
      case "fold":
        return `${name} folds`;
      case "check":
        return `${name} checks`;
      case "call":
        return `${name} calls ${money(Math.max(0, amount - before))}`;
      case "bring_in":
        return `${name} brings in for ${money(amount)}`;
      case "complete":
        return `${name} completes to ${money(amount)}`;
      case "bet":
        return `${name} bets ${money(amount)}`;
      case "raise":
        return `${name} raises to ${money(amount)}`;
      default:
        return `${name} ${String(ev.action ?? "acts").replace(/_/g, " ")} ${money(amount)}`;
    }
  }

  /** The cards of a round on one line: "Up cards: alice J♦, bob Q♦"; your own: "You get 3♦ K♣". */
  deal(v, seat, ev, at) {
    const card = ev.cards?.[0] ?? null;
    const up = ev.detail === "up";
    if (!up && (card === null || seat !== this.me)) return; // others' down cards: nothing to see
    const cls = up ? "deal up" : "deal down";
    const i = this.insertAt(v);
    const [last, next] = [this.lines[i - 1], this.lines[i]];
    if (last && last.cls === cls && last.street === ev.street) {
      last.text += up ? `, ${this.who(seat)} ${cardName(card)}` : ` ${cardName(card)}`;
      return;
    }
    if (next && next.cls === cls && next.street === ev.street) {
      // a card that came in after a later one of its round: it goes first on that line
      const head = up ? "Up cards: " : "You get ";
      next.text = head + (up ? `${this.who(seat)} ${cardName(card)}, ` : `${cardName(card)} `) + next.text.slice(head.length);
      next.v = v;
      return;
    }
    const line = this.push(v, cls, up ? `Up cards: ${this.who(seat)} ${cardName(card)}` : `You get ${cardName(card)}`, at);
    line.street = ev.street;
  }

  /** The table's words for a timeout (protocol 1.6 `timed_out`), in place of the engine's. */
  timedOut(event, at) {
    const line = [...this.lines].reverse().find((l) => l.cls === "timeout");
    if (line && event.text) line.text = event.text + bankNote(line.bank);
    else if (event.text) this.push(null, "timeout", event.text, at);
  }

  /** A snapshot's words for the hand's timeouts (`timeout_notes`, protocol 1.7, oldest first):
   *  each on the next timeout line of its seat (a seat leaving the table gets no words). */
  timeoutNotes(notes) {
    const open = this.lines.filter((l) => l.cls === "timeout" && l.seat !== undefined);
    for (const note of notes ?? []) {
      const i = open.findIndex((l) => l.seat === note.seat);
      if (i < 0 || !note.text) continue;
      open[i].text = note.text + bankNote(open[i].bank);
      open.splice(i, 1);
    }
  }
}

/**
 * What the status line says after the events of a snapshot (`hand_events`) as it said it live
 * (state.js `lastAction`): the street's last action, or the table's words for the timeout that
 * made it (`timeout_notes`: "bob timed out: folded"); null at a street's start.
 */
export function lastSaid(events, notes) {
  const words = new Map(); // seat -> its timeouts' words not yet placed, oldest first
  for (const note of notes ?? []) words.set(note.seat, [...(words.get(note.seat) ?? []), note]);
  let last = null;
  let timedOut = null; // the words of a timeout, said after the action the clock made
  for (const ev of events ?? []) {
    if (ev.kind === "street" || ev.kind === "hand_start") {
      last = null;
    } else if (ev.kind === "timeout") {
      const note = words.get(ev.seat)?.shift();
      timedOut = note?.text ? { seat: ev.seat, action: "timed_out", text: note.text } : null;
      if (ev.detail === "protected_all_in") [last, timedOut] = [timedOut ?? last, null];
    } else if (ev.kind === "action") {
      last = timedOut?.seat === ev.seat ? timedOut : { seat: ev.seat, action: ev.action, amount: ev.amount };
      timedOut = null;
    }
  }
  return last;
}

/** What the log needs of table state `st` (state.js): seat names, the viewer's seat, the game. */
export function logContext(st) {
  return { nameOf: (seat) => st.seats.find((s) => s.seat === seat)?.name ?? `Seat ${seat}`, me: st.yourSeat, game: st.table?.game ?? null };
}

/** The dealer log of one table: the hand in progress and the last hands, oldest first. */
export class DealerLog {
  constructor({ now = () => Date.now() / 1000, storage = globalThis.sessionStorage ?? null, onChange = () => {}, showdown = tableShowdown } = {}) {
    this.now = now;
    this.storage = storage;
    this.onChange = onChange;
    this.showdown = showdown; // the table's showdown, which the log's showdown lines follow
    showdown.listen(() => this.onChange());
    this.tableId = null;
    this.hands = []; // [{handId, lines}] of the hands before the current one
    this.current = null; // HandLog
  }

  key() {
    return `studpoker.dealerLog.${this.tableId}`;
  }

  /** A table opened: its log as this tab kept it (a reload), else empty. */
  open(tableId) {
    this.tableId = tableId;
    this.hands = [];
    this.current = null;
    try {
      const kept = JSON.parse(this.storage?.getItem(this.key()) ?? "null");
      if (Array.isArray(kept?.hands)) this.hands = kept.hands.filter((h) => h && Array.isArray(h.lines)).slice(-KEEP_HANDS);
    } catch {
      this.hands = [];
    }
    this.onChange();
  }

  save() {
    if (!this.storage || this.tableId === null) return;
    const hands = [...this.hands, ...(this.current ? [{ handId: this.current.handId, lines: this.current.lines }] : [])];
    try {
      this.storage.setItem(this.key(), JSON.stringify({ hands: hands.slice(-KEEP_HANDS) }));
    } catch {
      // storage full or refused: the log lives in the page only
    }
  }

  /** Every line of the hands kept and the hand in progress that the table lets it show, oldest first. */
  lines() {
    const out = [];
    for (const h of this.hands) out.push(...this.shown(h.handId, h.lines, false));
    if (this.current) out.push(...this.shown(this.current.handId, this.current.lines, true));
    return out;
  }

  /**
   * A hand's lines up to the first the table does not show yet: the showdown of the hand the
   * table is drawing, or of the hand in progress (`live`) before the table has turned anything
   * up. An older hand (one kept from before a reload) waits for nothing.
   */
  shown(handId, lines, live) {
    if (!live && this.showdown.handId !== handId) return lines;
    const out = [];
    for (const line of lines) {
      if (!this.showdown.shows(handId, line)) break;
      out.push(line);
    }
    return out;
  }

  /** The lines of hand `handId` in this log (tests and the curious). */
  linesOf(handId) {
    if (this.current?.handId === handId) return this.current.lines;
    return this.hands.find((h) => h.handId === handId)?.lines ?? [];
  }

  begin(handId, context) {
    if (this.current && this.current.handId !== handId) this.retire();
    if (!this.current) {
      // a hand this tab had kept before a reload: its lines come back to be written again
      const kept = this.hands.find((h) => h.handId === handId);
      this.hands = this.hands.filter((h) => h.handId !== handId);
      this.current = new HandLog(handId, context);
      this.current.kept = kept?.lines ?? [];
    }
    Object.assign(this.current, { nameOf: context.nameOf, me: context.me });
    return this.current;
  }

  retire() {
    if (!this.current) return;
    this.hands.push({ handId: this.current.handId, lines: this.current.lines });
    this.hands = this.hands.slice(-KEEP_HANDS);
    this.current = null;
  }

  /**
   * A snapshot (table_state): the hand in progress written again from its events; the lines
   * this tab had already shown keep their times (and the table's words for a timeout).
   */
  snapshot(msg, context) {
    if (!msg.hand_id) {
      this.retire();
    } else {
      const previous = this.current?.handId === msg.hand_id ? this.current.lines : null;
      if (this.current?.handId === msg.hand_id) this.current = null;
      const hand = this.begin(msg.hand_id, { ...context, game: msg.table?.game ?? null });
      const seen = new Map([...(previous ?? hand.kept ?? [])].filter((l) => l.v !== null).map((l) => [l.v, l]));
      const now = this.now();
      for (const ev of msg.hand_events ?? []) hand.add(ev, seen.get(ev.version)?.at ?? now);
      for (const line of hand.lines) {
        const old = seen.get(line.v);
        if (old && old.cls === "timeout" && line.cls === "timeout") line.text = old.text;
      }
      hand.timeoutNotes(msg.timeout_notes); // the table's words, for a tab that never had them
    }
    this.save();
    this.onChange();
  }

  /** A table message the table state applied (event, hand_finished). */
  message(msg, context) {
    const at = this.now();
    if (msg.type === "event") {
      const ev = msg.event ?? {};
      if (ev.kind === "timed_out") {
        if (this.current) this.current.timedOut(ev, at);
      } else if (ev.kind === "hand_voided") {
        if (this.current) this.current.push(null, "award", "Hand voided: every chip put in goes back", at);
        this.retire();
      } else if (msg.hand_id && typeof ev.version === "number") {
        const hand = this.begin(msg.hand_id, { ...context, game: context.game ?? null });
        if (!hand.add(ev, at)) return;
      } else {
        return;
      }
    } else if (msg.type === "hand_finished") {
      if (msg.voided && this.current?.handId === msg.hand_id) this.current.push(null, "award", "Hand voided: every chip put in goes back", at);
      if (this.current?.handId === msg.hand_id) this.retire();
    } else {
      return;
    }
    this.save();
    this.onChange();
  }
}
