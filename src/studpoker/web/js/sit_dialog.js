// The buy-in dialog an empty seat's "Sit here" opens, for the single table and for a tile alike
// (one <dialog> in the page: the table it was opened for is remembered with it). A guest gets the
// log-in dialog instead and comes back to the same seat (account.js).

import { money } from "./format.js";

const $ = (sel) => document.querySelector(sel);

export class SitDialog {
  /** `me()`: the account (null: a guest); `login(seat, tableId)`: the guest's log-in dialog. */
  constructor({ me, login }) {
    this.me = me;
    this.login = login;
    this.target = null; // {tableId, send(message) -> sent?, sat(sent, buyIn)} of the open dialog
    this.dialog = $("#sit-dialog");
    this.dialog.addEventListener("close", () => this.closed());
  }

  /**
   * Offer `seat` of the table `view` draws. `send(message)` sends one message for that table,
   * `sat(sent, tableId, buyIn)` is told of the buy-in (the auto top-up follows it: chips.js);
   * `tableId` is the tile's (null: the single table's, whose guest comes back to the page).
   */
  ask(seat, { view, send, sat, tableId = null }) {
    const me = this.me();
    if (!me) {
      this.login(seat, tableId);
      return;
    }
    const stakes = view?.stakes ?? {};
    const big = stakes.big ?? 100;
    const min = stakes.minBuyIn ?? big * 10;
    const max = stakes.maxBuyIn ?? big * 100;
    const bankroll = me.bankroll;
    const suggested = Math.min(max, Math.max(min, Math.min(bankroll, big * 40)));
    $("#sit-seat").textContent = String(seat);
    $("#sit-buyin").value = money(suggested); // the same two decimals as everywhere
    $("#sit-buyin").min = String(min / 100);
    $("#sit-buyin").max = String(Math.min(max, bankroll) / 100);
    $("#sit-range").textContent = `Between ${money(min)} and ${money(max)}; you have ${money(bankroll)}.`;
    const dialog = this.dialog;
    dialog.dataset.seat = String(seat);
    dialog.returnValue = "";
    this.target = { tableId: view?.tableId ?? tableId, send, sat };
    dialog.showModal();
  }

  closed() {
    const target = this.target;
    this.target = null;
    if (this.dialog.returnValue !== "ok" || !target) return;
    const buyIn = Math.round(Number($("#sit-buyin").value) * 100);
    const sent = target.send({ type: "sit", table_id: target.tableId, seat: Number(this.dialog.dataset.seat), buy_in: buyIn });
    target.sat(sent, target.tableId, buyIn);
  }
}
