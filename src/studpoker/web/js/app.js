// The client's entry point: routing (#/ lobby, #/table/ID table), login, the socket, and the
// wiring between the table state and the views.

import { api, ApiError, getToken, setToken } from "./api.js";
import { setFourColour, isFourColour } from "./cards.js";
import { Clock } from "./clock.js";
import { ActionBar } from "./actions.js";
import { HistoryPanel } from "./history.js";
import { Lobby } from "./lobby.js";
import { SeedKeeper } from "./seeds.js";
import { visibleCards } from "./deal_check.js";
import { Socket } from "./socket.js";
import { setSound, soundOn, yourTurnChime } from "./sound.js";
import { TableState } from "./state.js";
import { TableView } from "./table.js";
import { money, stakesText, escapeHtml } from "./format.js";

const $ = (sel) => document.querySelector(sel);

const app = {
  me: null,
  socket: null,
  state: null, // TableState of the open table
  tableId: null,
  wantSeat: false, // opened with "Join": offer a seat
  lastTurnKey: null,
  lobbyLive: false, // the lobby push is on (subscribe_lobby answered): no polling needed
};

window.studpoker = app; // for the tests and the curious
const seeds = new SeedKeeper(); // our seed for each hand we are seated for (docs/fairness.md)
app.seeds = seeds;
app.handle = (msg) => onMessage(msg);
app.onState = (st, reason) => onState(st, reason);

// ------------------------------------------------------------------------------ small helpers

let toastTimer = null;
function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 4000);
}

function setConn(status) {
  if (status !== "open") app.lobbyLive = false;
  document.body.dataset.conn = status;
  $("#conn-banner").hidden = status === "open" || !app.tableId;
  $("#conn-banner").textContent = status === "connecting" ? "Connecting…" : "Connection lost: reconnecting…";
}

// ------------------------------------------------------------------------------ account

async function refreshMe() {
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
  renderMe();
  return app.me;
}

function renderMe() {
  const me = app.me;
  $("#me").hidden = !me;
  $("#logout").hidden = !me;
  $("#auth").hidden = Boolean(me);
  if (me) {
    $("#me-name").textContent = me.name;
    $("#me-bankroll").textContent = money(me.bankroll);
  }
}

async function authSubmit(kind) {
  const name = $("#auth-name").value.trim();
  const password = $("#auth-password").value;
  $("#auth-error").textContent = "";
  if (!$("#auth-form").reportValidity()) return;
  try {
    await (kind === "register" ? api.register(name, password) : api.login(name, password));
    await refreshMe();
    connect();
    loadTables();
  } catch (err) {
    $("#auth-error").textContent = err.message;
  }
}

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
      if (app.tableId) {
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
    if (msg.code === "unauthorized") {
      // the session ended: back to the lobby to log in again
      setToken(null);
      app.socket?.close();
      app.socket = null;
      refreshMe();
      connect(); // as a guest: the lobby push goes on
      location.hash = "#/";
      toast("Your session has ended: please log in again.");
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
  if (!st || msg.table_id !== st.tableId) return;
  if (msg.type === "your_turn") flashTitle();
  if (msg.type === "table_state") {
    st.applySnapshot(msg);
    // after a reload mid-hand: the snapshot lists the hand's seeds, ours among them?
    if (st.deal?.handId === msg.hand_id && !st.deal.seed && Array.isArray(msg.client_seeds)) {
      st.deal.checkSeed(seeds.recordFor(st.myAccount, msg.hand_id), st.yourSeat);
    }
    return;
  }
  const changed = st.applyMessage(msg);
  if (changed && msg.type === "hand_started" && st.deal?.handId === msg.hand_id) {
    // did our seed go in, under the seed commitment announced before we sent it?
    st.deal.checkSeed(seeds.recordFor(st.myAccount, msg.hand_id), st.yourSeat);
  }
  if (changed && msg.type === "hand_finished") {
    const names = Object.fromEntries(st.seats.map((s) => [s.seat, s.name]));
    const dealtIn = Boolean(st.yourSeat && st.handSeats?.includes(st.yourSeat));
    const visible = st.hand ? visibleCards(st.hand, st.yourSeat, msg.result) : null;
    const live = {
      deal: st.deal?.handId === msg.hand_id ? st.deal : null,
      mine: (visible ?? []).filter((v) => v.mine).map((v) => v.card),
      seen: visible?.map((v) => v.card) ?? null,
      sent: seeds.recordFor(st.myAccount, msg.hand_id),
      seat: st.yourSeat,
      handSeats: st.handSeats ?? null,
    };
    history.add(msg, { dealtIn, names, live });
    refreshMe();
  }
}

// ------------------------------------------------------------------------------ views

const lobby = new Lobby($("#view-lobby"), { onOpen: (id, join) => openTable(id, join), me: () => app.me });
const tableView = new TableView($("#table"), { onSit: (seat) => askSeat(seat) });
const clock = new Clock(() => (app.socket ? app.socket.serverNow() : Date.now() / 1000));
const actionBar = new ActionBar($("#action-bar"), { onAction: sendAction });
const history = new HistoryPanel($("#history"));

async function loadTables() {
  try {
    lobby.setTables(await api.tables());
  } catch (err) {
    $("#tables-body").innerHTML = `<tr><td colspan="7" class="error">${escapeHtml(err.message)}</td></tr>`;
  }
}

function route() {
  const m = location.hash.match(/^#\/table\/(\d+)/);
  if (m) {
    showTable(Number(m[1]));
  } else {
    showLobby();
  }
}

function showLobby() {
  if (app.tableId && app.socket) app.socket.send({ type: "leave_table", table_id: app.tableId });
  if (app.tableId !== null || !app.lobbyLive) app.socket?.send({ type: "subscribe_lobby" });
  app.tableId = null;
  app.state = null;
  clock.stop();
  $("#view-lobby").hidden = false;
  $("#view-table").hidden = true;
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
  $("#view-lobby").hidden = true;
  $("#view-table").hidden = false;
  if (app.tableId === id && app.state) return;
  app.tableId = id;
  app.lobbyLive = false;
  app.state = new TableState(id, { onGap: (tid) => app.socket?.send({ type: "resync", table_id: tid }) });
  app.state.myAccount = app.me?.id; // undefined for a guest: never seated
  app.state.subscribe(onState);
  if (!app.socket) connect();
  else if (app.socket.isOpen()) {
    app.socket.send({ type: "unsubscribe_lobby" });
    app.socket.send({ type: "join_table", table_id: id });
  }
  setConn(app.socket.isOpen() ? "open" : "connecting");
}

function onState(st, reason) {
  // the next hand's seed commitment is out and we hold a seat: our seed for its deck
  seeds.maybeSend(st, (m) => app.socket?.send(m) ?? null);
  const view = st.view();
  app.view = view;
  document.title = `${view.name}: ${view.gameName}`;
  $("#table-title").innerHTML = `${escapeHtml(view.name)} <span class="muted">· ${escapeHtml(view.gameName)} · ${escapeHtml(structureText(view))}</span>`;
  const hero = view.seats.find((s) => s.isHero);
  $("#sitout-btn").hidden = !hero || hero.sittingOut;
  $("#sitin-btn").hidden = !hero || !hero.sittingOut;
  $("#standup-btn").hidden = !hero;
  tableView.render(view);
  const fired = actionBar.update(view);
  // the clock ring on the seat to act
  const clockSeat = view.clock?.seat;
  const plate = clockSeat && !view.result ? tableView.plateOf(clockSeat) : null;
  clock.show(plate, plate ? view.clock : null, { mine: clockSeat === view.heroSeat });
  document.querySelectorAll(".seat.my-turn").forEach((el) => el.classList.remove("my-turn"));
  if (view.yourTurn && !fired) {
    tableView.plateOf(view.heroSeat)?.parentElement.classList.add("my-turn");
    const key = `${view.handId}:${view.yourTurn.version}`;
    if (app.lastTurnKey !== key) {
      app.lastTurnKey = key;
      yourTurnChime();
    }
  }
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
  if (reason === "snapshot" && app.wantSeat && view.heroSeat === null) {
    app.wantSeat = false;
    const free = view.seats.find((s) => !s.occupied);
    if (free) askSeat(free.seat);
  }
}

function structureText(view) {
  const t = app.state?.table ?? {};
  if (view.game === "O8") return `blinds ${money(t.small_blind)}/${money(t.big_blind)}, bets ${stakesText(view.stakes)}`;
  return `ante ${money(view.stakes.ante)}, bring-in ${money(view.stakes.bringIn)}, bets ${stakesText(view.stakes)}`;
}

// a visual alert in the tab title while it is your turn (the chime may be muted)
let titleTimer = null;
function flashTitle() {
  clearInterval(titleTimer);
  let on = false;
  titleTimer = setInterval(() => {
    if (!app.state?.yourTurn) {
      clearInterval(titleTimer);
      if (app.view) document.title = `${app.view.name}: ${app.view.gameName}`;
      return;
    }
    on = !on;
    document.title = on ? "▶ Your turn!" : `${app.view?.name ?? "studpoker"}`;
  }, 900);
}

function statusText(st, view) {
  if (st.paused) return "Paused: the server cannot record hands (" + st.paused + "); play resumes by itself";
  if (view.result) return "";
  const hand = view.hand;
  const last = hand?.last_action;
  if (!last) return view.hand ? "" : "";
  const seat = view.seats.find((s) => s.seat === last.seat);
  const who = seat?.name ?? `Seat ${last.seat}`;
  const amount = last.amount ? ` ${money(last.amount)}` : "";
  const verb = { fold: "folds", check: "checks", call: "calls", bring_in: "brings in for", complete: "completes to", bet: "bets", raise: "raises to" }[last.action] ?? last.action;
  return `${who} ${verb}${last.action === "call" || last.action === "fold" || last.action === "check" ? "" : amount}`;
}

function sendAction(button) {
  const st = app.state;
  const turn = st?.yourTurn;
  if (!turn) return;
  const msg = { type: "action", table_id: st.tableId, hand_id: turn.hand_id, kind: button.kind, version: turn.version };
  if (button.amount !== null && button.amount !== undefined) msg.amount = button.amount;
  if (!app.socket.send(msg)) toast("Not connected: your action was not sent");
}

// ------------------------------------------------------------------------------ seats

function askSeat(seat) {
  if (!app.me) {
    toast("Log in to take a seat.");
    location.hash = "#/";
    return;
  }
  const view = app.view;
  const stakes = view?.stakes ?? {};
  const big = stakes.big ?? 100;
  const min = stakes.minBuyIn ?? big * 10;
  const max = stakes.maxBuyIn ?? big * 100;
  const bankroll = app.me.bankroll;
  const suggested = Math.min(max, Math.max(min, Math.min(bankroll, big * 40)));
  $("#sit-seat").textContent = String(seat);
  $("#sit-buyin").value = String(suggested / 100);
  $("#sit-buyin").min = String(min / 100);
  $("#sit-buyin").max = String(Math.min(max, bankroll) / 100);
  $("#sit-range").textContent = `Between ${money(min)} and ${money(max)}; you have ${money(bankroll)}.`;
  const dialog = $("#sit-dialog");
  dialog.dataset.seat = String(seat);
  dialog.returnValue = "";
  dialog.showModal();
}

$("#sit-dialog").addEventListener("close", () => {
  const dialog = $("#sit-dialog");
  if (dialog.returnValue !== "ok" || !app.state) return;
  const buyIn = Math.round(Number($("#sit-buyin").value) * 100);
  app.socket.send({ type: "sit", table_id: app.state.tableId, seat: Number(dialog.dataset.seat), buy_in: buyIn });
});

for (const [id, type] of [["#sitout-btn", "sit_out"], ["#sitin-btn", "sit_in"], ["#standup-btn", "stand_up"]]) {
  $(id).addEventListener("click", () => app.state && app.socket.send({ type, table_id: app.state.tableId }));
}

// ------------------------------------------------------------------------------ settings and boot

function applySettings() {
  setFourColour(localStorage.getItem("studpoker.fourColour") === "on");
  $("#opt-fourcolour").checked = isFourColour();
  $("#opt-sound").checked = soundOn();
  const keys = localStorage.getItem("studpoker.keys") !== "off";
  $("#opt-keys").checked = keys;
  document.body.classList.toggle("no-keys", !keys);
}

$("#opt-fourcolour").addEventListener("change", (e) => {
  localStorage.setItem("studpoker.fourColour", e.target.checked ? "on" : "off");
  applySettings();
  if (app.state) onState(app.state, "settings");
});
$("#opt-sound").addEventListener("change", (e) => setSound(e.target.checked));
$("#opt-keys").addEventListener("change", (e) => {
  localStorage.setItem("studpoker.keys", e.target.checked ? "on" : "off");
  applySettings();
});
$("#settings-btn").addEventListener("click", () => $("#settings").showModal());
$("#history-btn").addEventListener("click", () => ($("#history").hidden = !$("#history").hidden));
$("#history-close").addEventListener("click", () => ($("#history").hidden = true));
$("#auth-form").addEventListener("submit", (e) => {
  e.preventDefault();
  authSubmit("login");
});
$("#register-btn").addEventListener("click", () => authSubmit("register"));
$("#logout").addEventListener("click", async () => {
  await api.logout();
  app.socket?.close();
  app.socket = null;
  await refreshMe();
  location.hash = "#/";
  connect();
});
$("#topup").addEventListener("click", async () => {
  try {
    await api.topup();
    await refreshMe();
  } catch (err) {
    toast(err.message);
  }
});
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

boot();
