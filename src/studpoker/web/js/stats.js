// The statistics page: #/stats (yours: hands, results, bb/100, the figures per game and the
// plot of your cumulative results) and #/stats/NAME (another player's public figures: no money).
// From REST GET /api/me/stats and GET /api/players/{name}/stats (docs/client.md "Statistics").
// A switch reads the cash hands or the tournament hands (?kind=tournament): tournament amounts
// are tournament chips (the answer's units), never money, so they are shown as whole chips.

import { ApiError, getToken } from "./api.js";
import { escapeHtml, money } from "./format.js";
import { allGames, gameName, gameOf } from "./games.js";

const SVG = "http://www.w3.org/2000/svg";

// The figures in table order: the API's key, the column, and what it counts (the cell's title).
const FIGURES = [
  ["entry", "3rd-street entry", "put chips in voluntarily on 3rd street (called, completed or raised; the bring-in alone is not entry). board games: pre-flop, beyond the blinds"],
  ["completion", "Completion", "completed or raised on 3rd street, of the hands where he could. Board games: raised pre-flop"],
  ["saw_second_street", "Saw 4th street", "still in when 4th street (board games: the flop) was dealt"],
  ["showdown", "Went to showdown", "reached the showdown, of the hands that saw 4th street (board games: the flop)"],
  ["won_at_showdown", "Won at showdown", "won a share of a pot, of the showdowns"],
];

async function getJson(path) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { headers });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error?.message ?? `${response.status} ${response.statusText}`, data);
  return data;
}

// The kinds of hands the REST reads (?kind=), as the switch offers them.
const KINDS = [
  ["cash", "Cash tables"],
  ["tournament", "Tournaments"],
];

/** An amount in the answer's units: money (cents) or whole tournament chips. */
const amount = (value, units = "cents") => (units === "chips" ? `${Math.round(value)} chips` : money(value));
const signed = (value, units = "cents") => (value > 0 ? `+${amount(value, units)}` : amount(value, units));
const percent = (rate) => (rate === null || rate === undefined ? "–" : `${Math.round(rate * 100)}%`);

function figureCell(figure, title) {
  const text = `${percent(figure.rate)} <span class="muted small">${figure.count}/${figure.of}</span>`;
  return `<td class="num" title="${escapeHtml(title)}" data-count="${figure.count}" data-of="${figure.of}">${text}</td>`;
}

export class StatsPage {
  constructor(root, { me }) {
    this.root = root;
    this.me = me; // () => the logged-in account or null
    this.name = null; // null: the caller's own page
    this.game = "";
    this.kind = "cash"; // the hands read: cash or tournament
    this.serial = 0; // answers to an older request are dropped
  }

  /** Open the page: your own (name null) or a player's public figures. */
  async show(name) {
    if (name !== this.name) {
      this.game = "";
      this.kind = "cash";
    }
    this.name = name;
    const own = name === null;
    const serial = ++this.serial;
    if (!this.me()) {
      this.root.innerHTML = `<h2>Statistics</h2><p class="muted">Log in to see ${own ? "your statistics" : "the statistics of other players"}.</p>`;
      return;
    }
    this.root.innerHTML = `<h2>${own ? "Your statistics" : `Statistics of ${escapeHtml(name)}`}</h2><p class="muted">Loading…</p>`;
    const params = new URLSearchParams();
    if (this.game) params.set("game", this.game);
    if (this.kind !== "cash") params.set("kind", this.kind);
    const query = params.toString() ? `?${params}` : "";
    const path = own ? `/api/me/stats${query}` : `/api/players/${encodeURIComponent(name)}/stats${query}`;
    let data;
    try {
      data = await getJson(path);
    } catch (err) {
      if (serial !== this.serial) return;
      const text = err instanceof ApiError && err.status === 404 ? `No player is called ${escapeHtml(name)}.` : escapeHtml(err.message);
      this.root.innerHTML = `<h2>Statistics</h2><p class="error">${text}</p>${this.finder()}`;
      this.wire();
      return;
    }
    if (serial !== this.serial) return;
    this.render(data, own);
  }

  finder() {
    return `<form class="stats-find"><input name="player" placeholder="Player name" aria-label="Player name" maxlength="20" required> <button type="submit" class="small">Look up</button></form>`;
  }

  render(data, own) {
    const units = data.units ?? "cents";
    const tiles = [["hands", "Hands played", String(data.hands)]];
    if (own) {
      tiles.push(["net", "Net result", signed(data.net, units)]);
      tiles.push(["bb100", "Big bets / 100 hands", data.bb_per_100 === null ? "–" : data.bb_per_100.toFixed(2)]);
      tiles.push(["net100", "Per 100 hands", data.net_per_100 === null ? "–" : signed(data.net_per_100, units)]);
    }
    const kinds = KINDS.map(([kind, label]) => `<option value="${kind}"${kind === this.kind ? " selected" : ""}>${label}</option>`);
    const options = [`<option value="">All games</option>`, ...allGames().map(({ code }) => `<option value="${escapeHtml(code)}"${code === this.game ? " selected" : ""}>${escapeHtml(gameName(code))}</option>`)];
    const which = this.kind === "tournament" ? "tournament hand" : "cash hand";
    const span = data.limited ? `Over the last ${data.max_hands} ${which}s only.` : `Over every finished ${which} (up to the last ${data.max_hands}).`;
    const chips = units === "chips" ? " Tournament amounts are tournament chips, not money." : "";
    const privacy = own ? "Your figures are public; your results are shown to you only." : "Results stay private: only the figures of play are public.";
    this.root.innerHTML =
      `<div class="stats-head"><h2>${own ? "Your statistics" : `Statistics of ${escapeHtml(data.name)}`}</h2>` +
      `<label>Hands <select class="stats-kind" aria-label="Cash or tournament hands">${kinds.join("")}</select></label>` +
      `<label>Game <select class="stats-game">${options.join("")}</select></label>${this.finder()}</div>` +
      `<div class="stats-tiles">${tiles.map(([key, label, value]) => `<div class="stats-tile" data-stat="${key}"><span class="muted small">${label}</span><b>${escapeHtml(value)}</b></div>`).join("")}</div>` +
      `<p class="muted small stats-span" data-kind="${escapeHtml(data.kind ?? this.kind)}">${span}${chips} ${privacy}</p>` +
      this.gamesTable(data, own) +
      (own ? `<h3>Results over hands</h3><div class="stats-plot"></div>` : "");
    if (own) {
      const plot = this.root.querySelector(".stats-plot");
      if (data.results.length) drawPlot(plot, data.results, { units });
      else plot.innerHTML = `<p class="muted">No finished hands yet: play a few and come back.</p>`;
    }
    this.wire();
  }

  gamesTable(data, own) {
    const where = this.kind === "tournament" ? " in tournaments" : " at cash tables";
    if (!data.games.length) return `<p class="muted">No finished hands${this.game ? " of this game" : ""}${where}.</p>`;
    const head =
      `<th>Game</th><th class="num">Hands</th>` +
      FIGURES.map(([, label, title]) => `<th class="num" title="${escapeHtml(title)}">${label}</th>`).join("") +
      (own ? `<th class="num">Net</th><th class="num">bb/100</th>` : "");
    const rows = data.games.map((g) => {
      const money_ = own ? `<td class="num" data-net="${g.net}">${signed(g.net, data.units)}</td><td class="num">${g.bb_per_100 === null ? "–" : g.bb_per_100.toFixed(2)}</td>` : "";
      return `<tr data-game="${escapeHtml(g.game)}"><td>${escapeHtml(g.name)}</td><td class="num">${g.hands}</td>${FIGURES.map(([key, , title]) => figureCell(g[key], title)).join("")}${money_}</tr>`;
    });
    const boardGames = data.games.filter((g) => gameOf(g.game).board).map((g) => gameOf(g.game).short_name);
    const board = boardGames.length ? `<p class="muted small">In a game with a board (${escapeHtml(boardGames.join(", "))}), entry is pre-flop beyond the blinds, completion a pre-flop raise, and 4th street the flop.</p>` : "";
    return `<div class="stats-scroll"><table class="stats-games"><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table></div>${board}`;
  }

  wire() {
    this.root.querySelector(".stats-kind")?.addEventListener("change", (e) => {
      this.kind = e.target.value;
      this.show(this.name);
    });
    this.root.querySelector(".stats-game")?.addEventListener("change", (e) => {
      this.game = e.target.value;
      this.show(this.name);
    });
    this.root.querySelector(".stats-find")?.addEventListener("submit", (e) => {
      e.preventDefault();
      const name = e.target.player.value.trim();
      if (name) location.hash = `#/stats/${encodeURIComponent(name)}`;
    });
  }
}

// ------------------------------------------------------------------------------ the plot

/** Whole tick values covering [lo, hi]: about `count` of them, 1, 2 or 5 times a power of ten apart. */
export function niceTicks(lo, hi, count = 5) {
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const raw = (hi - lo) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  // amounts are whole cents and hands whole numbers: never a step below 1
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power);
  const ticks = [];
  const last = Math.ceil(hi / step);
  for (let k = Math.floor(lo / step); k <= last; k++) ticks.push(k * step);
  return ticks;
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * Draw the cumulative results into `host` as inline SVG: one path point per result point
 * ({hand, net}), hand numbers along x, money (or tournament chips: units) along y, the zero line, and on hover a marker
 * and a tooltip with the hand's number and the amount.
 */
export function drawPlot(host, points, { width = 760, height = 280, units = "cents" } = {}) {
  const pad = { left: 64, right: 16, top: 14, bottom: 34 };
  const lastHand = points[points.length - 1].hand;
  const nets = points.map((p) => p.net);
  const yTicks = niceTicks(Math.min(0, ...nets), Math.max(0, ...nets));
  const yLo = yTicks[0];
  const yHi = yTicks[yTicks.length - 1];
  const xTicks = niceTicks(0, lastHand, 6).filter((t) => t >= 0 && t <= lastHand && Number.isInteger(t));
  const x = (hand) => pad.left + ((width - pad.left - pad.right) * hand) / Math.max(1, lastHand);
  const y = (net) => pad.top + ((height - pad.top - pad.bottom) * (yHi - net)) / (yHi - yLo);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "stats-svg", role: "img", "aria-label": `Cumulative results over ${lastHand} hands` });
  const axes = el("g", { class: "axes" });
  for (const t of yTicks) {
    axes.append(el("line", { x1: pad.left, x2: width - pad.right, y1: y(t), y2: y(t), class: t === 0 ? "zero" : "grid" }));
    axes.append(el("text", { x: pad.left - 6, y: y(t) + 4, "text-anchor": "end", class: "tick" }, units === "chips" ? String(t) : money(t)));
  }
  for (const t of xTicks) {
    axes.append(el("line", { x1: x(t), x2: x(t), y1: height - pad.bottom, y2: height - pad.bottom + 4, class: "axis" }));
    axes.append(el("text", { x: x(t), y: height - pad.bottom + 16, "text-anchor": "middle", class: "tick" }, String(t)));
  }
  axes.append(el("line", { x1: pad.left, x2: pad.left, y1: pad.top, y2: height - pad.bottom, class: "axis" }));
  axes.append(el("line", { x1: pad.left, x2: width - pad.right, y1: height - pad.bottom, y2: height - pad.bottom, class: "axis" }));
  axes.append(el("text", { x: (pad.left + width - pad.right) / 2, y: height - 4, "text-anchor": "middle", class: "label" }, "Hands"));
  svg.append(axes);
  const d = points.map((p, i) => `${i ? "L" : "M"}${x(p.hand).toFixed(1)},${y(p.net).toFixed(1)}`).join(" ");
  svg.append(el("path", { d, class: "stats-curve", "data-points": points.length }));
  const marker = el("circle", { r: 4, class: "stats-marker", visibility: "hidden" });
  svg.append(marker);
  host.replaceChildren(svg);
  const tip = document.createElement("div");
  tip.className = "stats-tip";
  tip.hidden = true;
  host.append(tip);

  const nearest = (hand) => {
    let best = points[0];
    for (const p of points) if (Math.abs(p.hand - hand) < Math.abs(best.hand - hand)) best = p;
    return best;
  };
  const hover = (event) => {
    const box = svg.getBoundingClientRect();
    const scale = width / box.width;
    const hand = (((event.clientX - box.left) * scale - pad.left) / (width - pad.left - pad.right)) * Math.max(1, lastHand);
    const p = nearest(hand);
    marker.setAttribute("cx", x(p.hand));
    marker.setAttribute("cy", y(p.net));
    marker.setAttribute("visibility", "visible");
    tip.textContent = `Hand ${p.hand}: ${signed(p.net, units)}`;
    tip.dataset.hand = String(p.hand);
    tip.hidden = false;
    // centred over the point, kept inside the plot at both ends
    const half = tip.offsetWidth / 2;
    tip.style.left = `${Math.min(Math.max(x(p.hand) / scale, half), box.width - half)}px`;
    tip.style.top = `${y(p.net) / scale}px`;
  };
  svg.addEventListener("pointermove", hover);
  svg.addEventListener("pointerleave", () => {
    marker.setAttribute("visibility", "hidden");
    tip.hidden = true;
  });
}
