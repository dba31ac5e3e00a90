// The wait list of a full table (issue 12; docs/rules.md R-WAIT-LIST-ORDER to R-WAIT-LIST-STAYS):
// join it from the lobby or at the table, see your place; when a seat frees and is offered to
// you, a banner with its countdown and a chime, wherever you are in the client. Take seat opens that seat's buy-in;
// Decline, or the time running out, hands it to the next player. Leaving the table page keeps
// your place; logging out gives it up (the server does both).

import { offerChime } from "./sound.js";

const $ = (sel) => document.querySelector(sel);

/** 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st. */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** The seconds left of an offer (never below 0), on the server's clock. */
export function secondsLeft(offer, now) {
  return Math.max(0, offer.expires_at - now);
}

export class WaitListUI {
  /**
   * send(message) returns the message id (null when the socket is down); me() the account or
   * null; serverNow() seconds on the server's clock; toast(text); takeSeat(tableId, seat) opens
   * the buy-in for that seat; nameOf(tableId) the table's name; changed() redraws the lobby and
   * the table.
   */
  constructor({ send, me, serverNow, toast, takeSeat, nameOf, changed }) {
    Object.assign(this, { send, me, serverNow, toast, takeSeat, nameOf, changed });
    this.lists = new Map(); // table id -> the last wait_list message (as this account sees it)
    this.banner = $("#seat-offer");
    this.ticker = null;
    this.button = $("#wait-btn");
    this.button.addEventListener("click", () => {
      const id = Number(this.button.dataset.table);
      if (this.lists.get(id)?.position) this.leave(id);
      else this.join(id);
    });
    $("#seat-offer-take").addEventListener("click", () => {
      const offer = this.offered();
      if (offer) this.takeSeat(offer.table_id, offer.offer.seat);
    });
    $("#seat-offer-decline").addEventListener("click", () => {
      const offer = this.offered();
      if (offer) this.leave(offer.table_id);
    });
  }

  /** A server message: true when it was a wait_list (handled here). */
  handle(msg) {
    if (msg.type !== "wait_list") return false;
    const before = this.lists.get(msg.table_id);
    this.lists.set(msg.table_id, msg);
    const newOffer = msg.offer && (!before?.offer || before.offer.expires_at !== msg.offer.expires_at);
    if (newOffer) offerChime();
    else if (msg.note && !/^you have your seat/.test(msg.note)) this.toast(`${this.nameOf(msg.table_id)}: ${msg.note}.`);
    this.showOffer();
    this.changed();
    return true;
  }

  join(tableId) {
    if (!this.me()) return this.toast("Log in or create an account to wait for a seat.");
    if (!this.send({ type: "join_wait_list", table_id: tableId })) this.toast("Not connected: try again in a moment.");
  }

  leave(tableId) {
    if (!this.send({ type: "leave_wait_list", table_id: tableId })) this.toast("Not connected: try again in a moment.");
  }

  /** The first offer standing for this account (one table at a time in practice). */
  offered() {
    for (const msg of this.lists.values()) if (msg.offer && secondsLeft(msg.offer, this.serverNow()) > 0) return msg;
    return null;
  }

  /** The banner over every page while a seat is offered, its countdown ticking. */
  showOffer() {
    const msg = this.offered();
    this.banner.hidden = !msg;
    clearInterval(this.ticker);
    this.ticker = null;
    if (!msg) return;
    const tick = () => {
      const left = secondsLeft(msg.offer, this.serverNow());
      // rounded: the page's idea of the server's clock is good to a fraction of a second
      $("#seat-offer-text").textContent = `Seat ${msg.offer.seat} at ${this.nameOf(msg.table_id)} is yours: take it within ${Math.round(left)} s.`;
      this.banner.dataset.table = String(msg.table_id);
      if (left <= 0) this.showOffer();
    };
    tick();
    this.ticker = setInterval(tick, 1000);
  }

  /** The table bar's button: join the list of a full table, or your place on it and leave. */
  render(view) {
    const me = this.me();
    const mine = view ? this.lists.get(view.tableId) : null;
    const full = view ? view.seats.every((s) => s.occupied) : false;
    const show = Boolean(view && me && view.heroSeat === null && (full || mine?.waiting || mine?.position));
    this.button.hidden = !show;
    if (!show) return;
    this.button.dataset.table = String(view.tableId);
    if (mine?.position) {
      this.button.textContent = `Leave wait list (${ordinal(mine.position)} of ${mine.waiting})`;
      this.button.title = mine.offer ? "A seat is yours: take it, or leave the list to decline it" : "You are offered the next seat that frees";
    } else {
      this.button.textContent = mine?.waiting ? `Join wait list (${mine.waiting} waiting)` : "Join wait list";
      this.button.title = "Be offered the next seat that frees";
    }
  }

  /** A lobby row (lobby.js): the count waiting, and for a full table the wait-list button. */
  decorateRow(tr, t, join) {
    const waiting = t.waiting ?? 0;
    const cell = tr.querySelector(".seats-count");
    if (waiting && cell) {
      const count = document.createElement("span");
      count.className = "waiting-count";
      count.title = "players on the wait list";
      count.textContent = `${waiting} waiting`;
      cell.insertBefore(count, cell.querySelector(".seats-bar"));
    }
    const mine = this.lists.get(t.id);
    if (!join.disabled && !mine?.position) return;
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "small wait";
    if (mine?.position) {
      btn.textContent = `Leave list (${ordinal(mine.position)})`;
      btn.addEventListener("click", () => this.leave(t.id));
    } else {
      btn.textContent = "Wait list";
      btn.title = "The table is full: be offered the next seat that frees";
      btn.addEventListener("click", () => this.join(t.id));
    }
    if (join.disabled) join.hidden = true;
    join.after(btn);
  }
}
