// The tile view (#/tiles/1,2,3): two to four tables in one page, in a grid that fits the
// window, over the page's one socket. Each tile is a full table (seats, cards, pots, its own
// clock ring and action bar) with the single table's tools, one of each per tile: your seat's
// controls (sit out next hand, leave after this hand, I'm back at the seat: actions.js), the
// blinds a board game says you owe (blinds.js), the Chips button (the page's chips dialog:
// chips.js), the live-cards tray (live_cards.js), and the chat with the dealer log, collapsed in
// the tile's bar with a count of the lines you have not read (chat.js, dealer_log.js), the
// History button (the page's History panel with this table's hands, over this tile:
// histories.js), "Sit here" on an empty seat (the page's buy-in dialog; a guest logs in and is
// offered that seat again: sit_dialog.js, account.js), and a mute button: the page's one sound
// switch, so muting one tile mutes the turn chime of every table (sound.js).
//
// Every message of a tile's table (its chat lines and chips too) goes to that tile, and so does
// the answer (ack or error) to whatever a tile sent, found by the message's id. The table that
// needs you (the one whose turn reached you first) has the ring, the tab title and the keyboard;
// each table chimes on its own turns. The tables are in the URL, so a reload restores the tiles.
// A closed tile lets go of what it held in the page: its bar's keys, its mute button, its
// History panel.

import { SeatControls } from "./actions.js";
import { BlindsChoice } from "./blinds.js";
import { ChatPanel } from "./chat.js";
import { ChipsPanel } from "./chips.js";
import { ShowdownProgress, logContext } from "./dealer_log.js";
import { escapeHtml } from "./format.js";
import { LiveCardsTray } from "./live_cards.js";
import { wireMuteButton } from "./sound.js";
import { TableSession, statusText, structureText } from "./table_session.js";

export const MAX_TILES = 4;
// the server messages a table's state applies (state.js); the rest are the page's (wait lists)
const TABLE_MESSAGES = new Set(["table_state", "event", "your_turn", "hand_started", "hand_finished", "cards_opened"]);
// the ids of the tiles' messages kept to route their answers (a seed's answer is the page's and
// never comes back here: the oldest go first)
const SENT_KEPT = 400;

const TILE_HTML =
  '<div class="tile-bar"><a class="tile-name"></a><span class="tile-turn" hidden>▶ Your turn</span>' +
  '<button class="ghost small tile-chips" type="button" hidden aria-haspopup="dialog" title="Add chips or rebuy">Chips</button>' +
  '<button class="ghost small tile-live-btn" type="button" aria-pressed="true" hidden title="The up cards seen this hand and your live outs">Live cards</button>' +
  '<button class="ghost small tile-history" type="button" aria-controls="history" title="This table\'s finished hands">History</button>' +
  '<button class="ghost small tile-mute" type="button" aria-pressed="false">♪ On</button>' +
  '<details class="tile-log"><summary title="This table\'s chat and dealer log">Chat · log<span class="tile-unread" hidden></span></summary>' +
  '<div class="table-log tile-chat" aria-label="Chat and dealer log"><div class="log-filters" role="group" aria-label="Show">' +
  '<button class="ghost small" type="button" data-filter="all" aria-pressed="true">All</button>' +
  '<button class="ghost small" type="button" data-filter="chat" aria-pressed="false">Chat</button>' +
  '<button class="ghost small" type="button" data-filter="dealer" aria-pressed="false">Dealer</button></div>' +
  '<ol class="log-lines"></ol><p class="chat-muted small muted" hidden></p>' +
  '<form class="chat-form" autocomplete="off"><input type="text" maxlength="200" aria-label="Chat line" placeholder="Say something…"><button type="submit" class="small">Send</button></form>' +
  '<p class="chat-note small" role="status"></p></div></details>' +
  '<button class="ghost small icon tile-close" type="button" aria-label="Close this tile" title="Close this tile">✕</button></div>' +
  '<aside class="live-cards tile-live-cards" hidden aria-label="Live cards"></aside>' +
  '<div class="poker-table tile-table" aria-label="Poker table"><div class="felt"><div class="felt-inner"></div></div><div class="center"></div><div class="seats"></div></div>' +
  '<div class="status-line tile-status" aria-live="polite"></div>' +
  '<div class="action-bar tile-actions" aria-label="Actions"><div class="pre-actions" hidden></div><div class="actions"></div></div>';

/** The address of the tile view of these tables. */
export function tilesHash(ids) {
  return `#/tiles/${ids.join(",")}`;
}

/** The table ids of a #/tiles/ list: numbers, each once, at most MAX_TILES. */
export function tileIds(ids) {
  return [...new Set(ids.filter((id) => Number.isInteger(id) && id > 0))].slice(0, MAX_TILES);
}

/** Of the sessions waiting for you, the one whose turn came first (null: none waits). */
export function sessionThatNeedsYou(sessions) {
  let first = null;
  for (const s of sessions) if (s.needsYou() && (!first || s.turnSince < first.turnSince)) first = s;
  return first;
}

/**
 * The ids and radio groups a component drew in `root` made this tile's: the seat controls and the
 * blinds choice name their parts for the single table's page, where there is one of each.
 */
function ownParts(root, suffix) {
  for (const el of root.querySelectorAll("[id]")) el.id = `${el.id}-${suffix}`;
  for (const input of root.querySelectorAll("input[type=radio][name]")) input.name = `${input.name}-${suffix}`;
}

/** One table of the tile view: its session and its own copy of each of the single table's tools. */
class Tile {
  /**
   * `page`: what the tiles share: send(tableId, message) (the message id, or null), socket(),
   * seeds, toast, me(), decorateSeat, chipsDialog, refreshMe(), isActive(tile), changed(), name(id),
   * askSeat(seat, {view, send, sat, tableId}) (sit_dialog.js), histories (histories.js),
   * seatWanted() / seatTaken() (the seat a guest who logged in from this tile comes back to).
   */
  constructor(id, page) {
    this.id = id;
    this.page = page;
    this.unread = 0; // chat lines of others that came while the panel was closed
    this.seated = false;
    const el = document.createElement("section");
    el.className = "tile";
    el.dataset.table = String(id);
    el.innerHTML = TILE_HTML;
    this.el = el;
    const part = (sel) => el.querySelector(sel);
    const name = part(".tile-name");
    name.href = `#/table/${id}`;
    name.title = "Open this table on its own";
    name.textContent = page.name(id);
    // this tile's link to the page's socket: what it sends is remembered, to route the answer here
    const link = {
      send: (message) => page.send(id, message),
      serverNow: () => page.socket()?.serverNow() ?? Date.now() / 1000,
      isOpen: () => Boolean(page.socket()?.isOpen()),
    };
    const socket = () => (page.socket() ? link : null);
    const sendHere = (message) => Boolean(link.send({ ...message, table_id: id }));
    const bar = part(".tile-actions");
    this.seat = new SeatControls(bar, { send: sendHere });
    this.blinds = new BlindsChoice(bar, { send: sendHere });
    ownParts(bar, `t${id}`);
    this.showdown = new ShowdownProgress(); // this table's showdown, which its dealer log follows
    this.session = new TableSession({
      table: part(".tile-table"),
      bar,
      socket,
      seeds: page.seeds,
      toast: page.toast,
      onSit: (seat) => this.askSeat(seat),
      decorateSeat: (plate, seat) => (page.decorateSeat?.(plate, seat), this.seat.decoratePlate(plate, seat)),
      keys: () => page.isActive(this), // the keys act on the table that needs you
      showdown: this.showdown,
    });
    this.chips = new ChipsPanel(page.chipsDialog, {
      send: (message) => link.send(message),
      me: page.me,
      refreshMe: page.refreshMe,
      view: () => this.session.view,
      toast: page.toast,
      button: part(".tile-chips"),
    });
    this.tray = new LiveCardsTray(part(".tile-live-cards"), part(".tile-live-btn"));
    this.log = part(".tile-log");
    this.chat = new ChatPanel(part(".tile-chat"), { send: (message) => Boolean(link.send(message)), me: page.me, now: link.serverNow, showdown: this.showdown });
    this.chat.open(id);
    const loggedIn = Boolean(page.me());
    this.chat.loadMutes(loggedIn);
    this.chips.load(loggedIn);
    this.log.addEventListener("toggle", () => this.log.open && this.readChat());
    this.unmute = wireMuteButton(part(".tile-mute"));
    this.history = page.histories.panel(`Hand history · ${page.name(id)}`);
    part(".tile-history").addEventListener("click", () => page.histories.toggle(this.history, el));
    this.session.open(id, page.me()?.id, (st, reason) => this.onState(st, reason));
    if (page.socket()?.isOpen()) this.session.join();
  }

  close() {
    this.session.close();
    this.session.actionBar.dispose(); // its keys: a closed tile's bar must not act
    this.unmute();
    this.page.histories.drop(this.history);
    this.chips.dispose(); // the page's chips dialog outlives the tile
  }

  /** An empty seat's "Sit here": the buy-in dialog for this table (a guest: the log-in dialog). */
  askSeat(seat) {
    this.page.askSeat(seat, {
      view: this.session.view,
      send: (message) => this.page.send(this.id, message),
      sat: (sent, tableId, buyIn) => this.chips.sat(sent, tableId, buyIn), // the auto top-up follows it
      tableId: this.id,
    });
  }

  /** The page logged in as `accountId` (a guest's log-in dialog): this table's seat is his to take. */
  loggedIn(accountId) {
    if (this.session.state) this.session.state.myAccount = accountId;
    this.chat.loadMutes(true);
    this.chips.load(true);
  }

  /** A server message of this tile's table: applied here (true), or not a table message (false). */
  handle(msg) {
    if (msg.type === "chat") {
      this.chatLine(msg);
      return true;
    }
    if (msg.type === "chips") {
      this.chips.handle(msg);
      if (msg.added > 0) this.page.refreshMe?.(); // the header's bankroll paid for them
      return true;
    }
    if (!TABLE_MESSAGES.has(msg.type)) return false;
    if (msg.type === "table_state") this.chips.handle(msg); // the chips on their way, before drawing
    const applied = this.session.apply(msg);
    const st = this.session.state;
    if (applied === "snapshot") this.chat.snapshot(msg, logContext(st));
    else if (applied === "changed") this.chat.dealer.message(msg, logContext(st));
    if (applied === "changed" && msg.type === "hand_finished") this.page.histories.add(this.history, st, msg, this.page.seeds);
    return true;
  }

  /** The ack or error answering a message this tile sent: true when this tile dealt with it. */
  reply(msg) {
    if (this.chat.reply(msg) || this.chips.handle(msg) || msg.type === "ack") return true;
    if (msg.code === "stale") {
      this.session.state?.requestResync(); // our action met a newer table: its state again
      return true;
    }
    if (msg.code === "not_joined") {
      this.session.join();
      return true;
    }
    return false; // the page says it
  }

  /** A chat line: into the panel, and counted while the panel is closed (others' lines only). */
  chatLine(msg) {
    const line = msg.line;
    const fresh = Boolean(line) && !this.chat.chat.some((l) => l.id === line.id);
    this.chat.line(msg);
    if (!fresh || this.log.open || line.account_id === this.page.me()?.id || this.chat.muted.has(line.account_id)) return;
    this.unread += 1;
    this.renderUnread();
  }

  readChat() {
    this.unread = 0;
    this.renderUnread();
    this.chat.list.scrollTop = this.chat.list.scrollHeight; // the newest lines
  }

  renderUnread() {
    const badge = this.el.querySelector(".tile-unread");
    badge.hidden = this.unread === 0;
    badge.textContent = String(this.unread);
    badge.title = `${this.unread} new chat line${this.unread === 1 ? "" : "s"}`;
  }

  onState(st, reason) {
    if (!this.session.state) return;
    const { view } = this.session.render(st);
    const name = this.el.querySelector(".tile-name");
    this.history.title = `Hand history · ${view.name || this.page.name(st.tableId)}`;
    name.innerHTML = `${escapeHtml(view.name || this.page.name(st.tableId))} <span class="muted">· ${escapeHtml(view.gameName)} · ${escapeHtml(structureText(view, st.table ?? {}))}</span>`;
    this.el.querySelector(".tile-status").textContent = statusText(st, view);
    this.seat.update(view);
    this.blinds.update(view);
    this.chips.render(view);
    this.tray.render(view);
    // a seat left is cashed out: the header's bankroll has the chips back
    const seated = view.heroSeat !== null;
    if (this.seated && !seated) this.page.refreshMe?.();
    this.seated = seated;
    const wanted = this.page.seatWanted();
    if (reason === "snapshot" && wanted?.tableId === this.id && this.page.me()) {
      // back from the log-in dialog this tile's "Sit here" opened: that seat, if still free
      this.page.seatTaken();
      if (!seated && view.seats.some((s) => s.seat === wanted.seat && !s.occupied)) this.askSeat(wanted.seat);
      else if (!seated) this.page.toast(`Seat ${wanted.seat} was taken meanwhile: pick another one.`);
    }
    this.page.changed();
  }
}

export class Tiles {
  constructor(root, { socket, seeds, toast, me, tables, decorateSeat = null, chipsDialog, refreshMe = null, askSeat, histories }) {
    this.root = root;
    this.socket = socket;
    this.tables = tables; // the lobby's list: names for the "Add a table" choice
    this.grid = root.querySelector(".tiles-grid");
    this.addSelect = root.querySelector("#tiles-add");
    this.entries = new Map(); // table id -> Tile
    this.sentBy = new Map(); // message id -> the table of the tile that sent it
    this.ids = [];
    this.open = false;
    this.active = null; // the session that needs you, with the keyboard
    this.picked = new Set(); // the lobby's "Tile" boxes
    this.wanted = null; // {tableId, seat}: a guest's "Sit here", offered again once he has logged in
    this.toast = toast;
    this.page = {
      send: (tableId, message) => this.send(tableId, message),
      socket,
      seeds,
      toast,
      me,
      decorateSeat,
      chipsDialog,
      refreshMe,
      isActive: (tile) => this.active === tile.session,
      changed: () => this.focus(),
      name: (id) => this.tableName(id),
      askSeat,
      histories,
      seatWanted: () => this.wanted,
      seatTaken: () => (this.wanted = null),
    };
    this.addSelect.addEventListener("change", () => this.addPicked());
    addEventListener("resize", () => this.open && this.redraw());
  }

  sessions() {
    return this.ids.map((id) => this.entries.get(id).session);
  }

  /** Show these tables (already open ones keep their state; others are left). */
  show(ids) {
    ids = tileIds(ids);
    this.open = true;
    this.root.hidden = false;
    for (const [id, tile] of this.entries) {
      if (ids.includes(id)) continue;
      this.socket()?.send({ type: "leave_table", table_id: id });
      tile.close();
      tile.el.remove();
      this.entries.delete(id);
    }
    for (const id of ids) if (!this.entries.has(id)) this.entries.set(id, this.tile(id));
    this.ids = ids;
    this.grid.replaceChildren(...ids.map((id) => this.entries.get(id).el));
    // two side by side; three or four in two rows (CSS: .tiles-grid, --tile-rows)
    this.grid.style.setProperty("--tile-rows", String(ids.length > 2 ? 2 : 1));
    this.grid.style.setProperty("--tile-cols", String(ids.length > 1 ? 2 : 1));
    this.fillAddList();
    this.focus();
  }

  /** A guest logged in from tile `tableId`'s "Sit here": its snapshot offers him `seat` again. */
  loggedIn(accountId, tableId, seat) {
    for (const tile of this.entries.values()) tile.loggedIn(accountId);
    this.wanted = this.entries.has(tableId) ? { tableId, seat } : null;
  }

  /** The History shortcut: the History of the table that needs you (the one with the keyboard). */
  toggleHistory() {
    const tile = [...this.entries.values()].find((t) => t.session === this.active);
    if (tile) this.page.histories.toggle(tile.history, tile.el);
  }

  /** After a (re)connection: join every tile's table again (their snapshots restore them). */
  rejoin() {
    for (const session of this.sessions()) session.join();
  }

  close() {
    for (const [id, tile] of this.entries) {
      this.socket()?.send({ type: "leave_table", table_id: id });
      tile.close();
    }
    this.entries.clear();
    this.sentBy.clear();
    this.ids = [];
    this.grid.replaceChildren();
    this.open = false;
    this.active = null;
    this.root.hidden = true;
  }

  /** A message a tile sends: its id remembered with the tile's table (null: not sent). */
  send(tableId, message) {
    const id = this.socket()?.send(message) ?? null;
    if (id === null) return null;
    this.sentBy.set(id, tableId);
    if (this.sentBy.size > SENT_KEPT) this.sentBy.delete(this.sentBy.keys().next().value);
    return id;
  }

  /**
   * A server message: a message of one of the tiles' tables, or the answer to what a tile sent,
   * applied there (true); false when it is the page's.
   */
  handle(msg) {
    if (!this.open) return false;
    if (msg.type === "ack" || msg.type === "error") {
      const tableId = this.sentBy.get(msg.ref);
      if (tableId === undefined) return false;
      this.sentBy.delete(msg.ref);
      return this.entries.get(tableId)?.reply(msg) ?? false;
    }
    return this.entries.get(msg.table_id)?.handle(msg) ?? false;
  }

  tile(id) {
    const tile = new Tile(id, this.page);
    tile.el.querySelector(".tile-close").addEventListener("click", () => {
      location.hash = this.ids.length > 1 ? tilesHash(this.ids.filter((x) => x !== id)) : `#/table/${id}`;
    });
    return tile;
  }

  tableName(id) {
    return this.tables().find((t) => t.id === id)?.name ?? `Table ${id}`;
  }

  /** The ring, the keyboard and the tab title go to the table that needs you first. */
  focus() {
    const sessions = this.sessions();
    this.active = sessionThatNeedsYou(sessions);
    for (const id of this.ids) {
      const { el, session } = this.entries.get(id);
      el.classList.toggle("needs-you", session === this.active);
      el.classList.toggle("your-turn", session.needsYou());
      el.querySelector(".tile-turn").hidden = !session.needsYou();
    }
    const waiting = sessions.filter((s) => s.needsYou()).length;
    document.title = this.active
      ? `▶ Your turn: ${this.active.view?.name ?? this.tableName(this.active.tableId)}${waiting > 1 ? ` (+${waiting - 1})` : ""}`
      : `studpoker: ${sessions.length} table${sessions.length === 1 ? "" : "s"}`;
  }

  redraw() {
    for (const tile of this.entries.values()) if (tile.session.state) tile.onState(tile.session.state);
  }

  /** The "Add a table" list: the lobby's tables not tiled yet (none once there are four). */
  fillAddList() {
    const full = this.ids.length >= MAX_TILES;
    const options = this.tables()
      .filter((t) => !this.ids.includes(t.id))
      .map((t) => new Option(`${t.name ?? `Table ${t.id}`} (${t.game})`, String(t.id)));
    this.addSelect.replaceChildren(new Option(full ? `${MAX_TILES} tables: close one to add another` : "+ Add a table…", ""), ...options);
    this.addSelect.disabled = full;
  }

  addPicked() {
    const id = Number(this.addSelect.value);
    if (!id || this.ids.length >= MAX_TILES) return;
    location.hash = tilesHash([...this.ids, id]);
  }

  // ---------------------------------------------------------------------------- the lobby's side

  /** A "Tile" box on a lobby row: tick two to four, then "Open in tiles". */
  decorateRow(tr, t) {
    const go = tr.querySelector(".go");
    if (!go) return;
    const label = document.createElement("label");
    label.className = "check tile-pick";
    label.title = "Pick two to four tables, then Open in tiles";
    label.innerHTML = '<input type="checkbox"> Tile';
    const box = label.querySelector("input");
    box.dataset.table = String(t.id);
    box.checked = this.picked.has(t.id);
    box.addEventListener("change", () => {
      if (box.checked && this.picked.size >= MAX_TILES) {
        box.checked = false;
        this.toast(`At most ${MAX_TILES} tables in tiles.`);
        return;
      }
      if (box.checked) this.picked.add(t.id);
      else this.picked.delete(t.id);
      this.renderPicked();
    });
    go.prepend(label);
    this.renderPicked();
  }

  renderPicked() {
    const button = document.querySelector("#open-tiles");
    if (!button) return;
    const n = this.picked.size;
    button.disabled = n < 2;
    button.textContent = n ? `Open in tiles (${n})` : "Open in tiles";
  }

  /** The lobby's "Open in tiles": the picked tables, in the order of their ids. */
  openPicked() {
    if (this.picked.size < 2) return;
    const ids = [...this.picked].sort((a, b) => a - b);
    this.picked.clear();
    location.hash = tilesHash(ids);
  }
}
