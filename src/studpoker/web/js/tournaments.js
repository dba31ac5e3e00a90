// The tournament lobby (a panel of the lobby) and the tournament table's bar: the sit-and-goes and
// scheduled tournaments registering, running, finished and cancelled (entrants, prize pool,
// payouts, start time and countdown, late registration, re-entries left, level, time to the next),
// Register / Unregister / Re-enter, the results; at a tournament table the level, the next level,
// the average stack and your rank. Tournament tables have ids from TABLE_ID_BASE (server/tournaments).

import { getToken } from "./api.js";
import { count, escapeHtml, money } from "./format.js";

export const TABLE_ID_BASE = 2_000_000_000;
const REFRESH_MS = 2000;
const COUNTDOWN_MS = 1000;

export function isTournamentTable(id) {
  return Number(id) >= TABLE_ID_BASE;
}

async function call(method, path) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Error(data?.error?.message ?? `${response.status} ${response.statusText}`);
  return data;
}

function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "last level";
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "Level 2 · 30/60 · next in 3:12" */
export function levelText(level) {
  if (!level) return "";
  const next = level.seconds_left === null ? "last level" : `next level in ${clockText(level.seconds_left)}`;
  const stakes = `${count(level.small_bet)}/${count(level.big_bet)}`;
  return `Level ${level.level}${level.on_break ? " (break)" : ""} · ${stakes} · ${next}`;
}

/** "2:05:09" to a scheduled start (seconds), "starting" once it is due. */
export function countdownText(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const s = Math.max(0, Math.round(seconds));
  if (s === 0) return "starting";
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

/** A start time in the viewer's own time zone, e.g. "Sun 6 Dec 18:00". */
export function startText(iso) {
  const when = new Date(iso);
  return when.toLocaleString(undefined, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
  });
}

/** What ``name`` may do in tournament ``t``: register, unregister, reenter, play, watch or
 * nothing (a full or closed tournament he is not in). */
export function actionFor(t, name) {
  const mine = name ? t.player_entries?.[name] : undefined;
  const room = t.entrants < t.seats;
  if (t.status === "registering") {
    if (mine) return "unregister";
    return room ? "register" : null;
  }
  if (t.status !== "running") return null;
  if (mine?.in_play) return "play";
  if (t.late_registration_open && room) {
    if (!mine) return "register";
    if (mine.reentries_left > 0) return "reenter";
  }
  return "watch";
}

/** The state column of a scheduled tournament before its start: when, the countdown, the field. */
function scheduleText(t, secondsLeft) {
  const parts = [`starts ${escapeHtml(startText(t.starts_at))}`];
  parts.push(`<span class="countdown" data-starts="${escapeHtml(t.starts_at)}">${countdownText(secondsLeft)}</span>`);
  parts.push(`${t.min_players} to ${t.max_players} players`);
  return parts.join(" · ");
}

/** Late registration and re-entries, as the lobby says them (empty when it has none). */
function lateText(t, mine) {
  if (!t.late_levels) return "";
  let text = `late registration to level ${t.late_levels}`;
  if (t.status === "running") text = t.late_registration_open ? "late registration open" : "late registration closed";
  if (t.reentries) {
    const left = mine ? mine.reentries_left : t.reentries;
    text += ` · ${mine ? `re-entries left ${left}` : `re-entries ${left}`}`;
  }
  return text;
}

/** Your rank by stack among the seats of a tournament table (1: the biggest stack). */
export function rankOf(seats, yourSeat) {
  const mine = seats.find((s) => s.seat === yourSeat);
  if (!mine) return null;
  return 1 + seats.filter((s) => s.stack > mine.stack).length;
}

/** The table to open for a running tournament: the one ``name`` sits at (several tables: the
 * REST line's player_tables), else its first. */
export function tableOf(t, name) {
  return (name && t.player_tables?.[name]) || t.tables[0];
}

/** A snapshot of another tournament table that seats you: balancing moved you there (the server
 * joined your socket to it), so the page should follow. */
export function movedTo(msg, currentTableId) {
  return (
    msg.type === "table_state" &&
    isTournamentTable(msg.table_id) &&
    isTournamentTable(currentTableId) &&
    msg.table_id !== currentTableId &&
    msg.your_seat !== null &&
    msg.your_seat !== undefined
  );
}

export class Tournaments {
  constructor({ app, toast }) {
    this.app = app;
    this.toast = toast;
    this.list = [];
    this.panel = document.querySelector("#tournaments");
    this.body = document.querySelector("#tournaments-body");
    this.bar = document.querySelector("#tournament-bar");
    this.seen = new Map(); // id -> status: a tournament of mine that starts opens its table
    this.body?.addEventListener("click", (e) => this.onClick(e));
    setInterval(() => this.refresh(), REFRESH_MS);
    setInterval(() => this.tickCountdowns(), COUNTDOWN_MS);
    this.refresh();
  }

  /** The countdowns to the scheduled starts, every second between the lobby's refreshes. */
  tickCountdowns() {
    for (const el of this.body?.querySelectorAll(".countdown[data-starts]") ?? []) {
      el.textContent = countdownText((Date.parse(el.dataset.starts) - Date.now()) / 1000);
    }
  }

  lobbyShown() {
    const lobby = document.querySelector("#view-lobby");
    return lobby && !lobby.hidden;
  }

  async refresh() {
    const tableId = this.app.tableId;
    if (!this.lobbyShown() && !isTournamentTable(tableId)) {
      if (this.bar) this.bar.hidden = true;
      return;
    }
    try {
      this.list = await call("GET", "/api/tournaments");
    } catch {
      return;
    }
    const meName = this.app.me?.name;
    for (const t of this.list) {
      const was = this.seen.get(t.id);
      this.seen.set(t.id, t.status);
      // Mine just started: to its table (from the lobby only: never away from another table).
      const mine = meName && t.players.includes(meName);
      if (mine && was === "registering" && t.status === "running" && this.lobbyShown() && t.tables.length) {
        location.hash = `#/table/${tableOf(t, meName)}`;
      }
    }
    this.render();
    this.renderBar();
  }

  render() {
    if (!this.body) return;
    if (!this.list.length) {
      this.body.innerHTML = `<tr><td colspan="7" class="muted">No tournaments yet.</td></tr>`;
      return;
    }
    const meName = this.app.me?.name;
    this.body.innerHTML = this.list
      .map((t) => {
        const mine = meName ? t.player_entries?.[meName] : undefined;
        const act = actionFor(t, meName);
        const watch = t.tables.length ? `<a class="small" href="#/table/${tableOf(t, meName)}">Watch</a>` : "";
        const buttons = {
          register: `<button class="small primary" data-act="register" data-id="${t.id}">Register</button>`,
          unregister: `<button class="small" data-act="unregister" data-id="${t.id}">Unregister</button>`,
          reenter: `<button class="small primary" data-act="register" data-reenter="1" data-id="${t.id}">Re-enter</button>`,
          play: t.tables.length ? `<a class="small" href="#/table/${tableOf(t, meName)}">Play</a>` : "",
          watch,
        };
        let action = act ? buttons[act] : "";
        if (t.status === "running" && (act === "register" || act === "reenter")) action += ` ${watch}`;
        let state = t.status;
        if (t.status === "registering" && t.scheduled) {
          const left = t.starts_at ? (Date.parse(t.starts_at) - Date.now()) / 1000 : t.seconds_to_start;
          state = scheduleText(t, left);
        }
        if (t.status === "running") state = levelText(t.level);
        if (t.status === "cancelled") state = "cancelled: buy-ins refunded";
        const late = lateText(t, mine);
        if (late && (t.status === "registering" || t.status === "running")) {
          state += ` <span class="late muted">· ${late}</span>`;
        }
        if (t.status === "finished") {
          state = (t.results ?? [])
            .filter((r) => r.prize > 0)
            .map((r) => `${r.place}. ${escapeHtml(r.name)} ${money(r.prize)}`)
            .join(", ");
        }
        const payouts = t.payouts.map((p) => money(p)).join(" / ");
        return `<tr data-tournament="${t.id}" data-status="${t.status}">
          <td>${escapeHtml(t.name)}</td><td>${escapeHtml(t.game)} ${escapeHtml(t.structure)}</td>
          <td class="num">${money(t.buy_in)} + ${money(t.fee)}</td>
          <td class="num entrants">${t.entrants}/${t.seats}</td>
          <td class="num">${money(t.prize_pool)} <span class="muted">(${payouts})</span></td>
          <td class="state">${state}</td><td>${action}</td></tr>`;
      })
      .join("");
  }

  renderBar() {
    if (!this.bar) return;
    const tableId = this.app.tableId;
    const t = isTournamentTable(tableId) ? this.list.find((x) => x.tables.includes(tableId)) : null;
    if (!t) {
      this.bar.hidden = true;
      return;
    }
    const st = this.app.state;
    const seats = st?.seats ?? [];
    const rank = st ? rankOf(seats, st.yourSeat) : null;
    const average = t.level?.average_stack ?? 0;
    const parts = [
      escapeHtml(t.name),
      levelText(t.level),
      `average stack ${count(average)}`,
      `${t.level?.players_left ?? seats.length} left`,
    ];
    if (rank !== null) parts.push(`your rank ${rank} of ${seats.length}`);
    this.bar.innerHTML = parts.map((p) => `<span>${p}</span>`).join(" · ");
    this.bar.hidden = false;
  }

  async onClick(event) {
    const button = event.target.closest("button[data-act]");
    if (!button) return;
    if (!this.app.me) {
      this.toast("Log in or create an account to register.");
      return;
    }
    button.disabled = true;
    try {
      const line = await call("POST", `/api/tournaments/${button.dataset.id}/${button.dataset.act}`);
      await this.app.refreshMe?.();
      // A late entry or a re-entry is seated at once: to its table.
      if (line?.status === "running" && button.dataset.act === "register" && line.tables?.length) {
        location.hash = `#/table/${tableOf(line, this.app.me?.name)}`;
      }
    } catch (err) {
      this.toast(err.message);
    } finally {
      button.disabled = false;
      this.refresh();
    }
  }
}
