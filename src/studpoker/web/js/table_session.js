// One open table in the page: its TableState, the TableView that draws it, its action bar, its
// clock ring and the turn chime. The single-table page is one session (app.js); the tile view
// holds two to four (tiles.js). The socket is the page's: one socket joins several tables and
// every table message carries its table_id, so a session takes only its own table's messages.

import { ActionBar } from "./actions.js";
import { Clock } from "./clock.js";
import { lastSaid } from "./dealer_log.js";
import { gameOf } from "./games.js";
import { money, stakesText } from "./format.js";
import { yourTurnChime } from "./sound.js";
import { TableState } from "./state.js";
import { TableView } from "./table.js";

export class TableSession {
  /**
   * `table`: the .poker-table element (with .seats and .center); `bar`: the action bar element
   * (with .actions and .pre-actions). `socket()` is the page's socket (or null), `seeds` the
   * page's SeedKeeper; `keys()` says whether this session's bar takes the keyboard now.
   */
  constructor({ table, bar, socket, seeds = null, toast = () => {}, onSit = null, decorateSeat = null, keys = () => true, reportShowdown = true, showdown = undefined }) {
    this.socket = socket;
    this.seeds = seeds;
    this.toast = toast;
    // `showdown`: the ShowdownProgress the drawings go to (dealer_log.js; by default the page's)
    this.tableView = new TableView(table, { onSit, decorateSeat, reportShowdown, showdown });
    this.clock = new Clock(() => this.socket()?.serverNow() ?? Date.now() / 1000);
    this.actionBar = new ActionBar(bar, { onAction: (button) => this.sendAction(button), keys });
    this.state = null;
    this.view = null;
    this.lastTurnKey = null; // the turn last chimed for: one chime per turn
    this.turnSince = null; // when the current turn reached us (performance.now()), or null
  }

  get tableId() {
    return this.state?.tableId ?? null;
  }

  /** A fresh state for table `id`; `onState(state, reason)` runs on each change. */
  open(id, myAccount, onState) {
    this.state = new TableState(id, { onGap: (tid) => this.socket()?.send({ type: "resync", table_id: tid }) });
    this.state.myAccount = myAccount; // undefined for a guest: never seated
    this.state.subscribe(onState);
    this.lastTurnKey = null;
    this.turnSince = null;
    return this.state;
  }

  close() {
    this.state = null;
    this.view = null;
    this.turnSince = null;
    this.clock.stop();
  }

  /** Ask the server for the table (again): its snapshot restores everything. */
  join() {
    if (!this.state) return;
    this.state.awaitSnapshot();
    this.socket()?.send({ type: "join_table", table_id: this.state.tableId });
  }

  /**
   * Apply one server message of this session's table: "snapshot", "changed", "unchanged", or
   * null when the message is not this table's. Our seed for the deal is checked on the way.
   */
  apply(msg) {
    const st = this.state;
    if (!st || msg.table_id !== st.tableId) return null;
    if (msg.type === "table_state") {
      st.applySnapshot(msg);
      // the status line says again what it said last: an action, or a timeout in the table's words
      if (Array.isArray(msg.hand_events)) st.lastAction = lastSaid(msg.hand_events, msg.timeout_notes);
      // the words the table said of this hand's timeouts (protocol 1.7): a reload says them again
      if (msg.timeout_notes?.length) {
        for (const note of msg.timeout_notes) st.timeouts[note.seat] = note;
        st.emit("timeouts");
      } else if (st.lastAction) {
        st.emit("said"); // drawn again with it (the snapshot was drawn before)
      }
      // after a reload mid-hand: the snapshot lists the hand's seeds, ours among them?
      if (this.seeds && st.deal?.handId === msg.hand_id && !st.deal.seed && Array.isArray(msg.client_seeds)) {
        st.deal.checkSeed(this.seeds.recordFor(st.myAccount, msg.hand_id), st.yourSeat);
      }
      return "snapshot";
    }
    const changed = st.applyMessage(msg);
    if (changed && this.seeds && msg.type === "hand_started" && st.deal?.handId === msg.hand_id) {
      // did our seed go in, under the seed commitment announced before we sent it?
      st.deal.checkSeed(this.seeds.recordFor(st.myAccount, msg.hand_id), st.yourSeat);
    }
    return changed ? "changed" : "unchanged";
  }

  /**
   * Draw `st` (the session's state unless the page swapped it): seats, cards and pots, the
   * action bar, the clock ring, the pulse on your plate and the chime on your turn. Returns the
   * view and whether a pre-action fired.
   */
  render(st = this.state) {
    // the next hand's seed commitment is out and we hold a seat: our seed for its deck
    this.seeds?.maybeSend(st, (m) => this.socket()?.send(m) ?? null);
    const view = st.view();
    this.view = view;
    const tableView = this.tableView;
    tableView.render(view);
    const fired = this.actionBar.update(view);
    // the clock ring on the seat to act
    const clockSeat = view.clock?.seat;
    const plate = clockSeat && !view.result ? tableView.plateOf(clockSeat) : null;
    this.clock.show(plate, plate ? view.clock : null, { mine: clockSeat === view.heroSeat });
    tableView.root.querySelectorAll(".seat.my-turn").forEach((el) => el.classList.remove("my-turn"));
    const waiting = Boolean(view.yourTurn && !fired);
    if (waiting) {
      tableView.plateOf(view.heroSeat)?.parentElement.classList.add("my-turn");
      const key = `${view.handId}:${view.yourTurn.version}`;
      if (this.lastTurnKey !== key) {
        this.lastTurnKey = key;
        this.turnSince = performance.now();
        yourTurnChime();
      }
    } else {
      this.turnSince = null;
    }
    return { view, fired };
  }

  /** Whether the table waits for our action now. */
  needsYou() {
    return this.turnSince !== null && Boolean(this.state?.yourTurn);
  }

  sendAction(button) {
    const st = this.state;
    const turn = st?.yourTurn;
    if (!turn) return;
    const msg = { type: "action", table_id: st.tableId, hand_id: turn.hand_id, kind: button.kind, version: turn.version };
    if (button.amount !== null && button.amount !== undefined) msg.amount = button.amount;
    if (!this.socket()?.send(msg)) this.toast("Not connected: your action was not sent");
  }
}

/** The table's stakes in a line: "ante 0.10, bring-in 0.25, bets 0.50/1.00". */
export function structureText(view, table = {}) {
  const stakes = gameOf(view.game).board
    ? `blinds ${money(table.small_blind)}/${money(table.big_blind)}, bets ${stakesText(view.stakes)}`
    : `ante ${money(view.stakes.ante)}, bring-in ${money(view.stakes.bringIn)}, bets ${stakesText(view.stakes)}`;
  // a mixed-game table (protocol 1.6): the header's game is the game now; say how long it lasts
  const left = table.rotation?.hands_left;
  if (left === undefined || left === null) return stakes;
  return `${stakes} · ${table.rotation.rotation}: ${left} ${left === 1 ? "hand" : "hands"} left`;
}

/** The line under the table: the last action, or the server's pause. */
export function statusText(st, view) {
  if (st.paused) return "Paused: the server cannot record hands (" + st.paused + "); play resumes by itself";
  if (view.result) return "";
  const last = st.lastAction; // what the last action event said (state.js)
  if (!last) return "";
  if (last.text) return last.text; // the server's words (a timeout: "bob timed out: ...")
  const seat = view.seats.find((s) => s.seat === last.seat);
  const who = seat?.name ?? `Seat ${last.seat}`;
  const amount = last.amount ? ` ${money(last.amount)}` : "";
  const verb = { fold: "folds", check: "checks", call: "calls", bring_in: "brings in for", complete: "completes to", bet: "bets", raise: "raises to" }[last.action] ?? last.action;
  return `${who} ${verb}${last.action === "call" || last.action === "fold" || last.action === "check" ? "" : amount}`;
}
