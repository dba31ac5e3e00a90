// The lobby: the list of tables with filters by game and stakes, join (sit) or watch. Money
// columns (stakes, average pot) in the room's units with two decimals, counts as whole numbers.

import { gameName, gameOf } from "./games.js";
import { stakesOf } from "./state.js";
import { count, escapeHtml, money, stakesText } from "./format.js";

export class Lobby {
  constructor(root, { onOpen, me, decorateRow = null }) {
    this.me = me ?? (() => null);
    this.decorateRow = decorateRow; // (tr, table, join): the wait list's count and button (wait_list.js)
    this.root = root;
    this.body = root.querySelector("#tables-body");
    this.gameSel = root.querySelector("#filter-game");
    this.stakesSel = root.querySelector("#filter-stakes");
    this.openBox = root.querySelector("#filter-open");
    this.onOpen = onOpen;
    this.tables = [];
    for (const el of [this.gameSel, this.stakesSel, this.openBox]) el.addEventListener("change", () => this.render());
  }

  /** Some tables changed (the lobby push: lobby_update): replace those lines, keep the rest. */
  updateTables(changed) {
    const byId = new Map(this.tables.map((t) => [t.id, t]));
    for (const t of changed ?? []) byId.set(t.id, t);
    this.setTables([...byId.values()].sort((a, b) => a.id - b.id));
  }

  setTables(tables) {
    this.tables = (tables ?? []).map((t) => ({ ...t, stakes: stakesOf(t) }));
    this.fillSelect(this.gameSel, [...new Set(this.tables.map((t) => t.game))], (g) => gameName(g), "All games");
    this.fillSelect(this.stakesSel, [...new Set(this.tables.map((t) => stakesText(t.stakes)))], (s) => s, "All stakes");
    // Columns the server does not give stay out of the way.
    const hasAvg = this.tables.some((t) => (t.average_pot ?? t.avg_pot) !== undefined);
    const hasRate = this.tables.some((t) => t.hands_per_hour !== undefined);
    this.root.querySelector("#tables").classList.toggle("no-avg", !hasAvg);
    this.root.querySelector("#th-hands").textContent = hasRate ? "Hands/h" : "Hands";
    this.render();
  }

  fillSelect(sel, values, label, all) {
    const current = sel.value;
    sel.replaceChildren(new Option(all, ""), ...values.sort().map((v) => new Option(label(v), v)));
    if (values.includes(current)) sel.value = current;
  }

  render() {
    const game = this.gameSel.value;
    const stakes = this.stakesSel.value;
    const open = this.openBox.checked;
    const rows = this.tables.filter(
      (t) => (!game || t.game === game) && (!stakes || stakesText(t.stakes) === stakes) && (!open || seatsTaken(t) < maxSeats(t)),
    );
    if (!rows.length) {
      this.body.innerHTML = `<tr><td colspan="7" class="muted">${this.tables.length ? "No table matches the filters." : "No tables yet."}</td></tr>`;
      return;
    }
    this.body.replaceChildren(...rows.map((t) => this.row(t)));
  }

  row(t) {
    const tr = document.createElement("tr");
    tr.dataset.table = t.id;
    const taken = seatsTaken(t);
    const max = maxSeats(t);
    const avg = t.average_pot ?? t.avg_pot;
    const hph = t.hands_per_hour;
    const myId = this.me()?.id;
    const mine = myId !== undefined && Array.isArray(t.seats) && t.seats.some((s) => s.account_id === myId);
    tr.innerHTML =
      `<td>${escapeHtml(t.name ?? `Table ${t.id}`)}${mine ? '<span class="you-here">you sit here</span>' : ""}</td>` +
      `<td><span class="game-tag" data-game="${escapeHtml(t.game)}">${escapeHtml(t.game)}</span><span class="game-name">${escapeHtml(gameName(t.game))}</span></td>` +
      `<td class="money stakes">${escapeHtml(stakesText(t.stakes))}</td>` +
      `<td class="num seats-count">${count(taken)}/${count(max)}${botBadge(t)}<span class="seats-bar"><span style="width:${(100 * taken) / max}%"></span></span></td>` +
      `<td class="num avg${avg === undefined || avg === null ? "" : " money"}">${avg === undefined || avg === null ? "–" : money(avg)}</td>` +
      `<td class="num hands">${hph === undefined || hph === null ? count(t.hands_played) : `${count(hph)}/h`}</td>` +
      `<td class="go"></td>`;
    const go = tr.querySelector(".go");
    const watch = document.createElement("button");
    watch.className = "ghost small watch";
    watch.type = "button";
    watch.textContent = "Watch";
    watch.addEventListener("click", () => this.onOpen(t.id, false));
    const join = document.createElement("button");
    join.className = "primary small join";
    join.type = "button";
    join.textContent = mine ? "Return" : "Join";
    join.disabled = !mine && taken >= max;
    join.addEventListener("click", () => this.onOpen(t.id, true));
    go.append(watch, join);
    this.decorateRow?.(tr, t, join);
    return tr;
  }
}

function botsAt(t) {
  if (typeof t.bots === "number") return t.bots;
  return Array.isArray(t.seats) ? t.seats.filter((s) => s.bot ?? s.is_bot).length : 0;
}

function botBadge(t) {
  const n = botsAt(t);
  return n ? ` <span class="bot-badge" title="${n} of the seats are bots">${n} bot${n > 1 ? "s" : ""}</span>` : "";
}

function seatsTaken(t) {
  return t.seated ?? t.seats_taken ?? (Array.isArray(t.seats) ? t.seats.length : 0);
}

function maxSeats(t) {
  return t.max_seats ?? (typeof t.seats === "number" ? t.seats : gameOf(t.game).max_seats);
}
