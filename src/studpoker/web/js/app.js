// The client's entry point: routing (#/ lobby, #/table/ID table), the socket and its messages,
// the single table's page, and the wiring between the table state and the views. The header's
// account and the log-in dialogs are account.js's, the buy-in dialog sit_dialog.js's, the
// settings page_settings.js's, the toast and the tab title's turn alert notices.js's.

import { api, getToken, setToken } from "./api.js";
import { Account } from "./account.js";
import { SeatControls } from "./actions.js";
import { BlindsChoice } from "./blinds.js";
import { Histories } from "./histories.js";
import { Replayer } from "./replayer.js";
import { Lobby } from "./lobby.js";
import { SeedKeeper } from "./seeds.js";
import { StatsPage } from "./stats.js";
import { Socket } from "./socket.js";
import { applySettings, wireSettings } from "./page_settings.js";
import { SitDialog } from "./sit_dialog.js";
import { TableSession, statusText, structureText } from "./table_session.js";
import { Tiles, tilesHash } from "./tiles.js";
import { LiveCardsTray } from "./live_cards.js";
import { LobbyTags, NotesBook } from "./notes.js";
import { Shortcuts, loadShortcuts, onShortcutsChange } from "./shortcuts.js";
import { escapeHtml } from "./format.js";
import { flashTitle, toast } from "./notices.js";
import { ChatPanel } from "./chat.js";
import { logContext } from "./dealer_log.js";
import { ChipsPanel } from "./chips.js";
import { WaitListUI } from "./wait_list.js";
import { Tournaments, movedTo } from "./tournaments.js";

const $ = (sel) => document.querySelector(sel);

const app = {
  me: null,
  socket: null,
  // the open table's TableState: the single-table page's session holds it (table_session.js)
  get state() {
    return main.state;
  },
  set state(st) {
    main.state = st;
  },
  tableId: null,
  wantSeat: false, // opened with "Join": offer a seat
  seatWanted: null, // the seat a guest clicked "Sit here" on, offered again once he is logged in
  lobbyLive: false, // the lobby push is on (subscribe_lobby answered): no polling needed
};

window.studpoker = app; // for the tests and the curious
const seeds = new SeedKeeper(); // our seed for each hand we are seated for (docs/fairness.md)
app.seeds = seeds;
app.handle = (msg) => onMessage(msg);
app.onState = (st, reason) => onState(st, reason);

// ------------------------------------------------------------------------------ small helpers

function setConn(status) {
  if (status !== "open") app.lobbyLive = false;
  document.body.dataset.conn = status;
  $("#conn-banner").hidden = status === "open" || !app.tableId;
  $("#conn-banner").textContent = status === "connecting" ? "Connecting…" : "Connection lost: reconnecting…";
}

// ------------------------------------------------------------------------------ account

// the header's account and bankroll, the log-in form and dialog, Log out and + (account.js)
const account = new Account(app, {
  toast,
  loaded: (me) => loadPlayerTools(me),
  connect: () => connect(),
  loadTables: () => loadTables(),
  heroStack: () => app.view?.seats.find((s) => s.isHero)?.stack ?? 0,
  loggedIn: (seat, tableId) => {
    // back to the seat the guest clicked: the socket reconnects as the account (see onState)
    if (tableId === null) {
      if (app.state) app.state.myAccount = app.me.id;
      app.seatWanted = seat;
    } else {
      tiles.loggedIn(app.me.id, tableId, seat);
    }
    connect();
  },
});
const refreshMe = () => account.refresh();

// ------------------------------------------------------------------------------ socket

// Logged in, the socket is authenticated with the session token; logged out, it is a guest's
// (watching only: tables and the lobby push).
function connect() {
  app.socket?.close();
  app.socket = null;
  app.lobbyLive = false;
  const token = getToken();
  app.socket = new Socket({
    token,
    onMessage,
    onStatus: setConn,
    onOpen: () => {
      // after a (re)connection: join the open table again; its snapshot restores everything
      // (until it arrives, table messages have nothing to apply to). In the lobby: its push.
      if (tiles.open) {
        tiles.rejoin();
      } else if (app.tableId) {
        app.state?.awaitSnapshot();
        app.socket.send({ type: "join_table", table_id: app.tableId });
      } else {
        app.socket.send({ type: "subscribe_lobby" });
      }
    },
  });
  app.socket.connect();
}

function onMessage(msg) {
  // the answer to a client_seed: recorded quietly (too late or already sent are no trouble)
  if ((msg.type === "ack" || msg.type === "error") && seeds.onReply(msg)) return;
  // a tile's table, its chat and chips, the answers to what a tile sent (tiles.js)
  if (tiles.handle(msg)) return;
  // the answer to a chat line: the panel shows it under the line (chat.js)
  if ((msg.type === "ack" || msg.type === "error") && chatPanel.reply(msg)) return;
  // your chips at the table and the wait lists you are on (chips.js, wait_list.js)
  if (chipsPanel.handle(msg) || waitList.handle(msg)) return;
  if (msg.type === "chat") return chatPanel.line(msg);
  if (msg.type === "lobby" || msg.type === "lobby_update") {
    if (app.tableId) return;
    app.lobbyLive = true;
    if (msg.type === "lobby") lobby.setTables(msg.tables);
    else lobby.updateTables(msg.tables);
    return;
  }
  if (msg.type === "error") {
    if (msg.code === "login_required") {
      toast("Log in or create an account to play: guests may only watch.");
      return;
    }
    if (msg.code === "unauthorized" || msg.code === "banned") {
      // the session ended (or the operator banned the account): back to the lobby
      setToken(null);
      app.socket?.close();
      app.socket = null;
      refreshMe();
      connect(); // as a guest: the lobby push goes on
      location.hash = "#/";
      toast(msg.code === "banned" ? msg.message : "Your session has ended: please log in again.");
      return;
    }
    if (msg.code === "stale" && app.state) app.state.requestResync();
    if (msg.code === "not_joined" && app.state && app.socket) {
      app.state.awaitSnapshot();
      app.socket.send({ type: "join_table", table_id: app.state.tableId });
      return;
    }
    if (msg.code !== "stale") toast(msg.message);
    return;
  }
  if (msg.type === "pong" || msg.type === "ack" || msg.type === "welcome") return;
  const st = app.state;
  // moved to another table of the tournament (balancing): the page follows (tournaments.js)
  if (st && !tiles.open && movedTo(msg, st.tableId)) {
    app.socket?.send({ type: "leave_table", table_id: st.tableId }); // no longer seated there
    location.hash = `#/table/${msg.table_id}`;
    return;
  }
  if (!st || msg.table_id !== st.tableId) return;
  if (msg.type === "your_turn") flashTitle(app); // a visual alert in the tab title (notices.js)
  const applied = main.apply(msg);
  if (applied === "snapshot") {
    chatPanel.snapshot(msg, logContext(st));
    return;
  }
  const changed = applied === "changed";
  if (changed) chatPanel.dealer.message(msg, logContext(st));
  if (changed && msg.type === "hand_finished") {
    histories.add(histories.main, st, msg, seeds);
    refreshMe();
  }
}

// ------------------------------------------------------------------------------ views

const lobby = new Lobby($("#view-lobby"), { onOpen: (id, join) => openTable(id, join), me: () => app.me, decorateRow: (tr, t, join) => (waitList.decorateRow(tr, t, join), tiles.decorateRow(tr, t)) });
// the single-table page: one session (table_session.js); the tile view has its own (tiles.js)
const main = new TableSession({
  table: $("#table"),
  bar: $("#action-bar"),
  socket: () => app.socket,
  seeds,
  toast,
  onSit: (seat) => askSeat(seat),
  decorateSeat: (plate, seat) => (notes.decoratePlate(plate, seat), seatControls.decoratePlate(plate, seat)),
});
const clock = main.clock;
// the History panel: the single table's hands, or a tile's (histories.js)
const histories = new Histories($("#history"));
const tiles = new Tiles($("#view-tiles"), {
  socket: () => app.socket,
  seeds,
  toast,
  me: () => app.me,
  tables: () => lobby.tables,
  decorateSeat: (plate, seat) => notes.decoratePlate(plate, seat),
  chipsDialog: $("#chips-dialog"),
  refreshMe: () => refreshMe(),
  askSeat: (seat, how) => sitDialog.ask(seat, how),
  histories,
});
app.sessions = () => (tiles.open ? tiles.sessions() : app.state ? [main] : []); // the open tables' sessions
app.tiles = tiles; // for the tests
// your seat's own state: sit out next hand, leave after this hand, I'm back (actions.js)
const seatControls = new SeatControls($("#action-bar"), {
  send: (m) => Boolean(app.state && app.socket?.send({ ...m, table_id: app.state.tableId })),
});
// board games: the blinds your seat owes, wait for the big blind or post now (blinds.js)
const blindsChoice = new BlindsChoice($("#action-bar"), {
  send: (m) => Boolean(app.state && app.socket?.send({ ...m, table_id: app.state.tableId })),
});
const replayer = new Replayer($("#view-replay"));
const statsPage = new StatsPage($("#stats"), { me: () => app.me });

// Player notes and tags, the live-cards tray, the shortcuts (notes.js, live_cards.js, shortcuts.js)
const redrawTable = () => app.state && onState(app.state, "player_tools");
const notes = new NotesBook($("#note-dialog"), { onChange: () => (redrawTable(), lobbyTags.decorate()) });
const lobbyTags = new LobbyTags($("#tables-body"), () => lobby.tables, notes);
const tray = new LiveCardsTray($("#live-cards"), $("#live-cards-btn"));
const shortcuts = new Shortcuts({
  help: $("#help-overlay"),
  settings: $("#shortcut-settings"),
  handlers: {
    // in tiles: the History of the table that has the keyboard (tiles.js)
    history: () => (tiles.open ? tiles.toggleHistory() : app.tableId && setHistoryOpen($("#history").hidden)),
    live_cards: () => app.tableId && tray.toggle(),
  },
});
shortcuts.wireSettings();
onShortcutsChange(redrawTable);
let toolsFor; // the account whose notes and shortcuts are loaded (null: a guest's defaults)
function loadPlayerTools(me) {
  const id = me?.id ?? null;
  if (id === toolsFor) return;
  toolsFor = id;
  notes.load(Boolean(me));
  chatPanel.loadMutes(Boolean(me));
  chipsPanel.load(Boolean(me));
  loadShortcuts(Boolean(me));
}
app.notes = notes; // for the tests

// The table's chat and dealer log, one panel (chat.js, dealer_log.js); the Chat button shows or
// hides it (kept in localStorage).
const chatPanel = new ChatPanel($("#table-log"), {
  send: (m) => Boolean(app.socket?.send(m)),
  me: () => app.me,
  now: () => (app.socket ? app.socket.serverNow() : Date.now() / 1000),
});
app.chat = chatPanel; // for the tests

// Chips at your seat and the auto top-up (chips.js); the full tables' wait lists (wait_list.js).
const chipsPanel = new ChipsPanel($("#chips-dialog"), {
  send: (m) => app.socket?.send(m) ?? null,
  me: () => app.me,
  refreshMe,
  view: () => (app.state ? app.view : null),
  toast,
});
const waitList = new WaitListUI({
  send: (m) => app.socket?.send(m) ?? null,
  me: () => app.me,
  serverNow: () => (app.socket ? app.socket.serverNow() : Date.now() / 1000),
  toast,
  takeSeat: (tableId, seat) => {
    if (app.tableId === tableId && app.state) return askSeat(seat);
    app.seatWanted = seat; // offered once the table's snapshot is in (onState)
    location.hash = `#/table/${tableId}`;
  },
  nameOf: (id) => lobby.tables.find((t) => t.id === id)?.name ?? (app.state?.tableId === id ? app.state.table?.name : null) ?? `table ${id}`,
  changed: () => (app.tableId ? app.state && onState(app.state, "wait_list") : lobby.render()),
});
app.chips = chipsPanel; // for the tests
app.waitList = waitList;
function setLogOpen(open) {
  $("#table-log").hidden = !open;
  $("#log-btn").setAttribute("aria-pressed", String(open));
  localStorage.setItem("studpoker.log", open ? "on" : "off");
}
setLogOpen(localStorage.getItem("studpoker.log") !== "off");
$("#log-btn").addEventListener("click", () => setLogOpen($("#table-log").hidden));

async function loadTables() {
  try {
    lobby.setTables(await api.tables());
  } catch (err) {
    $("#tables-body").innerHTML = `<tr><td colspan="7" class="error">${escapeHtml(err.message)}</td></tr>`;
  }
}

function route() {
  const replay = location.hash.match(/^#\/(replay|hand)(?:\/([^/]+))?\/?$/);
  if (replay) return showReplay(replay[1], replay[2] ? decodeURIComponent(replay[2]) : null);
  replayer.close();
  const tiled = location.hash.match(/^#\/tiles\/([\d,]*)\/?$/);
  if (tiled) return showTiles(tiled[1]);
  if (tiles.open) tiles.close(); // leaving the tile view: its tables are left
  const m = location.hash.match(/^#\/table\/(\d+)/);
  const stats = location.hash.match(/^#\/stats(?:\/([^/]+))?\/?$/);
  if (m) {
    showTable(Number(m[1]));
  } else if (stats) {
    showStats(stats[1] ? decodeURIComponent(stats[1]) : null);
  } else {
    showLobby();
  }
}

// #/stats: yours; #/stats/NAME: a player's public figures (stats.js)
function showStats(name) {
  if (app.tableId && app.socket) app.socket.send({ type: "leave_table", table_id: app.tableId });
  app.tableId = null;
  app.state = null;
  clock.stop();
  $("#view-lobby").hidden = true;
  $("#view-table").hidden = true;
  $("#view-stats").hidden = false;
  $("#conn-banner").hidden = true;
  document.title = name === null ? "studpoker: your statistics" : `studpoker: ${name}`;
  statsPage.show(name);
}

// #/replay/ID: a hand you played, from your seat; #/replay: a dropped file; #/hand/ID: a
// finished hand's public view, no login needed (replayer.js)
function showReplay(kind, id) {
  if (app.tableId && app.socket) app.socket.send({ type: "leave_table", table_id: app.tableId });
  app.tableId = null;
  app.state = null;
  clock.stop();
  for (const view of document.querySelectorAll("main.view")) view.hidden = view.id !== "view-replay";
  $("#conn-banner").hidden = true;
  if (kind === "hand" && id) replayer.openPublic(id);
  else if (id) replayer.openHand(id);
  else replayer.openDrop();
}

// #/tiles/1,2,3: two to four tables in one page (tiles.js)
function showTiles(list) {
  if (app.tableId && app.socket) app.socket.send({ type: "leave_table", table_id: app.tableId });
  app.tableId = null;
  app.state = null;
  chatPanel.open(null);
  clock.stop();
  for (const view of document.querySelectorAll("main.view")) view.hidden = view.id !== "view-tiles";
  $("#conn-banner").hidden = true;
  if (!app.socket) connect();
  else if (app.socket.isOpen()) app.socket.send({ type: "unsubscribe_lobby" });
  app.lobbyLive = false;
  tiles.show(list.split(",").filter(Boolean).map(Number));
  if (!lobby.tables.length) loadTables(); // the names the "Add a table" list offers
}

function showLobby() {
  if (app.tableId && app.socket) app.socket.send({ type: "leave_table", table_id: app.tableId });
  if (app.tableId !== null || !app.lobbyLive) app.socket?.send({ type: "subscribe_lobby" });
  app.tableId = null;
  app.state = null;
  chatPanel.open(null);
  clock.stop();
  $("#view-lobby").hidden = false;
  $("#view-table").hidden = true;
  $("#view-stats").hidden = true;
  $("#conn-banner").hidden = true;
  document.title = "studpoker: lobby";
  loadTables();
}

function openTable(id, join) {
  if (!app.me && join) {
    // watching needs no account; playing does
    toast("Log in or create an account to play (or Watch without one).");
    $("#auth-name").focus();
    return;
  }
  app.wantSeat = join;
  location.hash = `#/table/${id}`;
}

function showTable(id) {
  for (const view of document.querySelectorAll("main.view")) view.hidden = view.id !== "view-table";
  if (app.tableId === id && app.state) return;
  app.tableId = id;
  app.lobbyLive = false;
  chatPanel.open(id);
  main.open(id, app.me?.id, onState);
  if (!app.socket) connect();
  else if (app.socket.isOpen()) {
    app.socket.send({ type: "unsubscribe_lobby" });
    app.socket.send({ type: "join_table", table_id: id });
  }
  setConn(app.socket.isOpen() ? "open" : "connecting");
}

function onState(st, reason) {
  // seats, cards, pots, the action bar, the clock ring and the turn chime (table_session.js)
  const { view, fired } = main.render(st);
  app.view = view;
  document.title = `${view.name}: ${view.gameName}`;
  $("#table-title").innerHTML = `${escapeHtml(view.name)} <span class="muted">· ${escapeHtml(view.gameName)} · ${escapeHtml(structureText(view, st.table ?? {}))}</span>`;
  const hero = view.seats.find((s) => s.isHero);
  $("#sitout-btn").hidden = !hero || hero.sittingOut || hero.sitOutNextHand;
  $("#sitin-btn").hidden = !hero || !hero.sittingOut;
  $("#standup-btn").hidden = !hero;
  tray.render(view);
  seatControls.update(view);
  blindsChoice.update(view);
  account.follow(st);
  chipsPanel.render(view);
  waitList.render(view);
  // the history panel covers the table on a phone (and hides the action bar): it says your turn
  $("#history-turn").hidden = !(view.yourTurn && !fired && !$("#history").hidden);
  $("#status-line").textContent = statusText(st, view);
  if (reason === "snapshot" && st.handId && st.commitment?.handId !== st.handId && view.heroSeat !== null && app.me) {
    // joined mid-hand (a reload) on a server whose snapshot has no commitment (before protocol
    // 1.1): the commitment published at the deal is in the hand's record
    const handId = st.handId;
    api.hand(handId).then(
      (h) => h.commitment && st.handId === handId && st.commitment?.handId !== handId && (st.commitment = { handId, hash: h.commitment }),
      () => {},
    );
  }
  if (reason === "snapshot" && app.seatWanted !== null && app.me) {
    // back from the log-in dialog a guest opened with "Sit here": that seat, if still free
    const seat = app.seatWanted;
    app.seatWanted = null;
    app.wantSeat = false;
    if (view.heroSeat === null) {
      if (view.seats.some((s) => s.seat === seat && !s.occupied)) askSeat(seat);
      else toast(`Seat ${seat} was taken meanwhile: pick another one.`);
    }
  }
  if (reason === "snapshot" && app.wantSeat && view.heroSeat === null) {
    app.wantSeat = false;
    const free = view.seats.find((s) => !s.occupied);
    if (free) askSeat(free.seat);
  }
}


// ------------------------------------------------------------------------------ seats

// the buy-in dialog, or for a guest the log-in dialog (sit_dialog.js, account.js)
const sitDialog = new SitDialog({ me: () => app.me, login: (seat, tableId) => account.openLogin(seat, tableId) });
function askSeat(seat) {
  sitDialog.ask(seat, {
    view: app.view,
    send: (m) => (app.state && m.table_id === app.state.tableId ? app.socket.send(m) : null),
    sat: (sent, tableId, buyIn) => chipsPanel.sat(sent, tableId, buyIn), // the auto top-up follows the buy-in
  });
}

for (const [id, type] of [["#sitout-btn", "sit_out"], ["#sitin-btn", "sit_in"], ["#standup-btn", "stand_up"]]) {
  $(id).addEventListener("click", () => app.state && app.socket.send({ type, table_id: app.state.tableId }));
}

// ------------------------------------------------------------------------------ settings and boot

wireSettings({ shortcuts, redraw: () => app.state && onState(app.state, "settings") });
// On a phone the open history panel is modal (CSS: body.history-open hides the action bar);
// on your turn it shows a cue that brings you back to the table.
function setHistoryOpen(open) {
  histories.setOpen(open);
  if (open && app.state) onState(app.state, "history");
}
$("#history-btn").addEventListener("click", () => setHistoryOpen($("#history").hidden));
$("#history-close").addEventListener("click", () => setHistoryOpen(false));
$("#history-turn").addEventListener("click", () => setHistoryOpen(false));
// the tile view: the lobby's ticked tables, or this table and the ones added there (tiles.js)
$("#open-tiles").addEventListener("click", () => tiles.openPicked());
$("#tile-btn").addEventListener("click", () => app.tableId && (location.hash = tilesHash([app.tableId])));
addEventListener("hashchange", route);
addEventListener("resize", () => app.state && onState(app.state, "resize"));

async function boot() {
  applySettings();
  await refreshMe();
  connect();
  route();
  // the lobby push keeps the list up to date; polling is the fallback while it is not live
  setInterval(() => !app.tableId && !(app.lobbyLive && app.socket?.isOpen()) && loadTables(), 15000);
}

// the tournament lobby and the tournament table's bar (tournaments.js)
app.refreshMe = refreshMe;
app.tournaments = new Tournaments({ app, toast });
boot();
