// Chips at the table (issue 12, items 6 and 7): the Chips dialog adds chips to your stack or
// rebuys (at once between hands; during a hand you are in they wait and land when it ends: table
// stakes, docs/rules.md R-ADD-CHIPS-PENDING), with the amount the table still allows and your
// bankroll; the auto top-up tops your seat up to the buy-in you choose before each hand, on the
// server (it works while you are away), and the choice is kept with your account for the next
// seat. And why the header's "+" (the daily top-up) gave nothing.

import { api } from "./api.js";
import { money } from "./format.js";

const $ = (sel) => document.querySelector(sel);
// the panel that opened each dialog: the tile view's panels (one per tile, tiles.js) share the
// page's one dialog, and only its opener fills it and answers its buttons
const OPENER = new WeakMap();

/** Cents from the text of a money box ("12.50"), or null when it is not an amount. */
export function centsOf(text) {
  const m = String(text ?? "").trim().match(/^(\d+)(?:\.(\d{1,2}))?$/);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/**
 * What the table still lets you add: `room` (cents, never below 0), how much of it your bankroll
 * covers (`most`), and the sentence that says so. `stack` is your stack (during a hand: the chips
 * behind), `pending` the chips already on their way.
 */
export function addRoom({ stack, pending = 0, maxBuyIn, bankroll }) {
  const have = stack + pending;
  const room = Math.max(0, maxBuyIn - have);
  const most = Math.max(0, Math.min(room, bankroll ?? room));
  const way = pending ? ` (${money(pending)} of them on the way)` : "";
  let text;
  if (room === 0) text = `You can add chips up to the table's maximum buy-in: you have ${money(have)}${way} of ${money(maxBuyIn)}.`;
  else if (most < room) text = `You can add up to ${money(room)} (a stack may hold ${money(maxBuyIn)}), but your bankroll holds ${money(most)}.`;
  else text = `You can add up to ${money(room)}: a stack may hold ${money(maxBuyIn)} (the table's maximum buy-in) and you have ${money(have)}${way}.`;
  return { room, most, text };
}

/** Why the daily top-up ("+" in the header) granted nothing: it is for broke players, once a day. */
export function topupText(granted, bankroll, onTables = 0) {
  if (granted > 0) return `${money(granted)} added to your bankroll.`;
  const held = onTables ? `${money(bankroll)} in your bankroll and ${money(onTables)} on the table` : `${money(bankroll)} in your bankroll`;
  return `No top-up: the daily top-up is for broke players, once a day, and you have ${held}. To add chips to a seat, use Chips at the table.`;
}

export class ChipsPanel {
  /**
   * send(message) returns the message id (null when the socket is down); me() is the account
   * ({id, bankroll}); refreshMe() reads it again (a promise); view() the table's normalized view
   * (state.js) or null; toast(text); `button` the Chips button of this panel's table.
   */
  constructor(dialog, { send, me, refreshMe, view, toast, button = $("#chips-btn") }) {
    this.dialog = dialog;
    this.refreshMe = refreshMe;
    this.send = send;
    this.me = me;
    this.view = view;
    this.toast = toast;
    this.mine = new Map(); // table id -> {pending, auto_top_up} as the server told it
    this.requests = new Map(); // message id -> what it was ("add", "auto", or a sit's buy-in)
    this.autoPreferred = false; // the account's preference: top each new seat up to its buy-in
    this.button = button;
    this.button.addEventListener("click", () => this.open());
    // the dialog outlives a tile's panel: dispose() takes these listeners off it again
    this.listening = new AbortController();
    const on = { signal: this.listening.signal };
    dialog.querySelector("#chips-add").addEventListener("click", () => this.owns() && this.add(), on);
    dialog.querySelector("#chips-auto").addEventListener("change", () => this.owns() && this.setAuto(), on);
    dialog.querySelector("#chips-auto-amount").addEventListener("change", () => this.owns() && this.setAuto(), on);
    dialog.querySelector("#chips-amount").addEventListener("input", () => this.owns() && (this.error(""), this.fill()), on);
  }

  /** A closed tile's panel: the shared dialog closes if it was this panel's and lets go of it. */
  dispose() {
    if (this.owns()) this.dialog.close();
    this.listening.abort();
  }

  /** Whether the dialog is open for this panel's table. */
  owns() {
    return this.dialog.open && OPENER.get(this.dialog) === this;
  }

  /** The account's auto top-up preference (api.js): read once per login. */
  async load(loggedIn) {
    this.autoPreferred = false;
    if (!loggedIn) return;
    try {
      this.autoPreferred = Boolean((await api.autoTopUp()).auto_top_up);
    } catch {
      // the preference stays off for this page
    }
  }

  /** A server message: true when it was ours to handle (chips, or the answer to our request). */
  handle(msg) {
    if (msg.type === "table_state") {
      this.mine.set(msg.table_id, msg.your_chips ?? null);
      return false;
    }
    if (msg.type === "chips") {
      this.mine.set(msg.table_id, { pending: msg.pending, auto_top_up: msg.auto_top_up });
      if (msg.added > 0) this.toast(`${money(msg.added)} added to your stack.${msg.note ? ` ${capital(msg.note)}.` : ""}`);
      else if (msg.note) this.toast(`${capital(msg.note)}.`);
      const view = this.view();
      if (view?.tableId === msg.table_id) this.render(view);
      return true;
    }
    if ((msg.type !== "ack" && msg.type !== "error") || !this.requests.has(msg.ref)) return false;
    const what = this.requests.get(msg.ref);
    this.requests.delete(msg.ref);
    if (typeof what === "object") {
      // our sit: with the auto top-up preferred, the new seat tops up to this buy-in
      if (msg.type === "ack" && this.autoPreferred) this.request({ type: "auto_top_up", table_id: what.tableId, amount: what.buyIn }, "auto");
      return false; // the sit's error is the app's to show
    }
    if (msg.type === "error") {
      if (this.owns()) this.error(msg.message);
      else this.toast(msg.message);
      return true;
    }
    if (what === "add" && this.owns()) this.dialog.close();
    return true;
  }

  /** The app sent a sit (its message id): remembered for the auto top-up. */
  sat(id, tableId, buyIn) {
    if (id) this.requests.set(id, { tableId, buyIn });
  }

  /** The Chips button, shown while you hold a seat at the open table. */
  render(view) {
    const hero = view?.seats.find((s) => s.isHero);
    this.button.hidden = !hero;
    if (!hero) {
      if (this.owns()) this.dialog.close();
      return;
    }
    const mine = this.mine.get(view.tableId);
    const pending = mine?.pending ?? 0;
    this.button.textContent = pending ? `Chips (+${money(pending)})` : "Chips";
    this.button.title = mine?.auto_top_up ? `Add chips; auto top-up to ${money(mine.auto_top_up)} before each hand` : "Add chips or rebuy";
    if (this.owns()) this.fill();
  }

  open() {
    const view = this.view();
    if (!view?.seats.some((s) => s.isHero)) return;
    OPENER.set(this.dialog, this);
    this.error("");
    const mine = this.mine.get(view.tableId);
    const { most } = this.room(view);
    $("#chips-amount").value = most > 0 ? money(most) : "";
    const target = mine?.auto_top_up ?? null;
    $("#chips-auto").checked = target !== null;
    $("#chips-auto-amount").value = money(target ?? this.defaultTarget(view));
    this.fill();
    this.dialog.showModal();
    $("#chips-amount").focus();
    // the bankroll as the server has it now (a buy-in or a hand may have moved it)
    this.refreshMe?.().then(() => this.owns() && this.fill(), () => {});
  }

  stackOf(view) {
    return view.seats.find((s) => s.isHero)?.stack ?? 0;
  }

  room(view) {
    const mine = this.mine.get(view.tableId);
    return addRoom({ stack: this.stackOf(view), pending: mine?.pending ?? 0, maxBuyIn: view.stakes.maxBuyIn, bankroll: this.me()?.bankroll ?? 0 });
  }

  defaultTarget(view) {
    const stack = this.stackOf(view);
    return Math.min(view.stakes.maxBuyIn, Math.max(view.stakes.minBuyIn, stack));
  }

  /** The dialog's lines: stack, chips on the way, bankroll, the room left, the mid-hand rule. */
  fill() {
    const view = this.view();
    if (!view) return;
    const hero = view.seats.find((s) => s.isHero);
    if (!hero) return;
    const mine = this.mine.get(view.tableId);
    const { room, most, text } = this.room(view);
    $("#chips-stack").textContent = money(hero.stack);
    $("#chips-pending").textContent = mine?.pending ? ` · ${money(mine.pending)} on the way` : "";
    $("#chips-bankroll").textContent = money(this.me()?.bankroll ?? 0);
    $("#chips-range").textContent = text;
    $("#chips-when").textContent = hero.inHand && !view.result
      ? "You are in this hand: the chips are added to your stack when it ends (table stakes)."
      : "The chips are added to your stack now.";
    const box = $("#chips-amount");
    box.min = "0.01";
    box.max = String(most / 100);
    box.disabled = room === 0;
    const cents = centsOf(box.value);
    $("#chips-add").disabled = room === 0 || most === 0 || cents === null || cents <= 0 || cents > most;
    $("#chips-auto-range").textContent = `From ${money(view.stakes.minBuyIn)} to ${money(view.stakes.maxBuyIn)}; kept for your next seats.`;
  }

  error(text) {
    $("#chips-error").textContent = text;
  }

  add() {
    const view = this.view();
    const cents = centsOf($("#chips-amount").value);
    const { most, text } = this.room(view);
    if (cents === null || cents <= 0) return this.error("Enter an amount of money, such as 10.00.");
    if (cents > most) return this.error(text);
    this.request({ type: "add_chips", table_id: view.tableId, amount: cents }, "add");
  }

  /** The auto top-up box changed: the seat is told, and the account keeps the choice. */
  setAuto() {
    const view = this.view();
    const on = $("#chips-auto").checked;
    const target = centsOf($("#chips-auto-amount").value);
    if (on && (target === null || target < view.stakes.minBuyIn || target > view.stakes.maxBuyIn)) {
      return this.error(`Top up to a buy-in from ${money(view.stakes.minBuyIn)} to ${money(view.stakes.maxBuyIn)}.`);
    }
    this.error("");
    this.request({ type: "auto_top_up", table_id: view.tableId, amount: on ? target : null }, "auto");
    if (on !== this.autoPreferred) {
      this.autoPreferred = on;
      api.putAutoTopUp(on).catch((err) => this.toast(`Your auto top-up choice was not kept: ${err.message}`));
    }
  }

  request(message, what) {
    const id = this.send(message);
    if (!id) return this.error("Not connected: try again in a moment.");
    this.requests.set(id, what);
  }
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
