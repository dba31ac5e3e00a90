// The account in the page's header: who is logged in and his bankroll (read again from /api/me
// when chips move between it and a seat), the lobby's log-in form, Log out, the + top-up, and
// the log-in dialog a guest's "Sit here" opens over a table (the single table's or a tile's).

import { api, ApiError, getToken, setToken } from "./api.js";
import { topupText } from "./chips.js";
import { money } from "./format.js";

const $ = (sel) => document.querySelector(sel);

export class Account {
  /**
   * `app`: the page's object (its `me` is kept here); `loaded(me)` runs after each read of the
   * account; `connect()` opens the page's socket again (as the account, or as a guest);
   * `loadTables()` reads the lobby; `heroStack()` is your stack at the open table (0: none);
   * `loggedIn(seat, tableId)` runs once the log-in dialog has logged a guest in.
   */
  constructor(app, { toast, loaded, connect, loadTables, heroStack, loggedIn }) {
    this.app = app;
    this.toast = toast;
    this.loaded = loaded;
    this.connect = connect;
    this.loadTables = loadTables;
    this.heroStack = heroStack;
    this.loggedIn = loggedIn;
    this.bankrollKey = undefined;
    this.bankrollTimer = null;
    this.wire();
  }

  /** Read the account again (a guest: none) and draw the header. */
  async refresh() {
    const app = this.app;
    if (!getToken()) {
      app.me = null;
    } else {
      try {
        app.me = await api.me();
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) setToken(null);
        app.me = null;
      }
    }
    this.render();
    this.loaded(app.me);
    return app.me;
  }

  render() {
    const me = this.app.me;
    $("#me").hidden = !me;
    $("#logout").hidden = !me;
    $("#auth").hidden = Boolean(me);
    $("#lobby-stats").hidden = !me;
    if (me) {
      $("#me-name").textContent = me.name;
      $("#me-bankroll").textContent = money(me.bankroll);
    }
  }

  /**
   * The header bankroll moves when chips go between it and your seat (a buy-in, chips added, a
   * cash-out): each shows as a change of your seat in the seat list (the server sends it once the
   * move is in the database), and the bankroll is then read again from /api/me, which cannot be
   * wrong. (In a hand the seat list keeps the stack the hand began with.)
   */
  follow(st) {
    const me = this.app.me;
    const mine = me ? st.seats.find((s) => s.account_id === me.id) : null;
    const key = `${st.tableId}:${mine ? `${mine.seat}:${mine.stack}` : "-"}`;
    if (this.bankrollKey !== undefined && this.bankrollKey !== key && this.bankrollKey.startsWith(`${st.tableId}:`)) {
      clearTimeout(this.bankrollTimer);
      this.bankrollTimer = setTimeout(() => this.refresh(), 60); // one read for the changes of a moment
    }
    this.bankrollKey = key;
  }

  async authSubmit(kind) {
    const name = $("#auth-name").value.trim();
    const password = $("#auth-password").value;
    $("#auth-error").textContent = "";
    if (!$("#auth-form").reportValidity()) return;
    try {
      await (kind === "register" ? api.register(name, password) : api.login(name, password));
      await this.refresh();
      this.connect();
      this.loadTables();
    } catch (err) {
      $("#auth-error").textContent = err.message;
    }
  }

  /**
   * A guest's "Sit here": log in (or create an account) in a dialog over the table, then the
   * same seat is offered (the socket reconnects as the account and joins the table again).
   * `tableId`: the tile's table (null: the single table's page).
   */
  openLogin(seat, tableId = null) {
    const dialog = $("#login-dialog");
    dialog.dataset.seat = String(seat);
    dialog.dataset.table = tableId === null ? "" : String(tableId);
    $("#login-seat").textContent = String(seat);
    $("#login-error").textContent = "";
    dialog.showModal();
    $("#login-name").focus();
  }

  async loginSubmit(e) {
    const kind = e.submitter?.value;
    if (kind !== "login" && kind !== "register") return; // Cancel: the dialog closes
    e.preventDefault();
    const name = $("#login-name").value.trim();
    const password = $("#login-password").value;
    $("#login-error").textContent = "";
    try {
      await (kind === "register" ? api.register(name, password) : api.login(name, password));
    } catch (err) {
      $("#login-error").textContent = err.message;
      return;
    }
    const dialog = $("#login-dialog");
    dialog.close();
    await this.refresh();
    if (!this.app.me) return;
    const table = dialog.dataset.table;
    this.loggedIn(Number(dialog.dataset.seat), table ? Number(table) : null);
  }

  wire() {
    $("#login-form").addEventListener("submit", (e) => this.loginSubmit(e));
    $("#auth-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.authSubmit("login");
    });
    $("#register-btn").addEventListener("click", () => this.authSubmit("register"));
    $("#logout").addEventListener("click", async () => {
      const app = this.app;
      await api.logout();
      app.socket?.close();
      app.socket = null;
      await this.refresh();
      location.hash = "#/";
      this.connect();
    });
    $("#topup").addEventListener("click", async () => {
      try {
        const { granted } = await api.topup();
        await this.refresh();
        // nothing granted: say why (it is for broke players, once a day)
        if (!granted) this.toast(topupText(granted, this.app.me?.bankroll ?? 0, this.heroStack()));
      } catch (err) {
        this.toast(err.message);
      }
    });
  }
}
