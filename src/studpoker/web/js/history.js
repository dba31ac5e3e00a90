// The hand history panel: the readable text of the last hands, a PHH download, and for every
// finished hand the deal check: the openings of the reader's cards (REST GET /api/hands/{id},
// or for a watcher the openings the table received) verified against the deck root published
// before the deal, his cards among them, and his seed among the seeds that made the deck.

import { api } from "./api.js";
import { cardText } from "./cards.js";
import { cardName, DealCheck, seedVerdict } from "./deal_check.js";
import { escapeHtml, money } from "./format.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The check of a hand's record: {ok: true | false | null, reason, root, openings}.
 * record: {deck_root, openings, client_seeds?, seed_commitment?} (REST, or the live openings);
 * announcedRoot: the deck root hand_started published to this client (null if it did not see it);
 * announcedSeed: the seed commitment deal_commitment announced to it (null if it did not see it);
 * mine: this client's own cards; seen: every card the table showed it (null: not known);
 * sent/seat: this client's seed record (SeedKeeper) and seat, for "your seed went in".
 */
export async function checkHandRecord({ record, announcedRoot = null, announcedSeed = null, mine = [], seen = null, sent = null, seat = null, handSeats = null }) {
  const root = record?.deck_root ?? null;
  const openings = Array.isArray(record?.openings) ? record.openings : [];
  if (!root || !openings.length) return { ok: null, reason: "no openings for this hand: nothing to check", root, openings };
  if (announcedRoot && announcedRoot.toLowerCase() !== String(root).toLowerCase()) {
    return { ok: false, reason: "the deck root differs from the one published before the deal", root, openings };
  }
  const deal = new DealCheck({ handId: null, root });
  deal.add(openings);
  await deal.settled();
  const mineSet = new Set(mine.map(cardText).filter(Boolean));
  const opened = [...deal.openings.values()].map((r) => r.opening);
  const visible = seen
    ? [...new Set([...seen, ...mine].map(cardText).filter(Boolean))].map((card) => ({ card, seat: null, mine: mineSet.has(card) }))
    : opened.map((o) => ({ card: o.card, seat: null, mine: mineSet.has(o.card) }));
  const summary = deal.summary(visible);
  const seed = seedVerdict({ sent, seat, handSeats, clientSeeds: record.client_seeds, seedCommitment: record.seed_commitment, announced: announcedSeed });
  const problems = [...summary.failures.map((f) => f.text), ...(seed?.state === "bad" ? [seed.text] : [])];
  if (problems.length) return { ok: false, reason: problems.join("; "), root, openings };
  const yours = opened.filter((o) => mineSet.has(o.card)).length;
  const others = opened.length - yours;
  const what = mineSet.size
    ? `your ${plural(yours, "card")}${others ? ` and the ${plural(others, "card")} you saw opened` : ""}`
    : `the ${plural(others, "card")} you saw opened`;
  const missing = visible.filter((v) => summary.cards.get(v.card) !== "ok").map((v) => cardName(v.card));
  const seedText = seed?.state === "ok" ? `; ${seed.text}` : "";
  const reason = `${what}: all match the deck fixed before the deal${seedText}`;
  if (missing.length) return { ok: "partial", reason: `${reason}; not opened to you: ${missing.join(" ")}`, root, openings };
  return { ok: true, reason, root, openings };
}

const KEEP = 20;

export class HistoryPanel {
  constructor(root) {
    this.root = root;
    this.list = root.querySelector("#history-list");
    this.entries = [];
  }

  /**
   * A hand finished at the table: fetch its record (a player's) and check it. live: what the
   * table knew: {deal (DealCheck), mine, seen, sent, seat, handSeats}.
   */
  async add(finished, { dealtIn = true, names = {}, live = {} } = {}) {
    if (this.entries.some((e) => e.handId === finished.hand_id)) return;
    const entry = { handId: finished.hand_id, finished, live, check: null, text: null, phh: null, dealtIn, names, loaded: false, at: new Date() };
    this.entries.unshift(entry);
    this.entries.length = Math.min(this.entries.length, KEEP);
    this.render();
    if (finished.voided) {
      entry.check = { ok: null, reason: "hand voided" };
      this.render();
    } else if (!dealtIn) {
      await this.checkLive(entry);
    }
    if (dealtIn) this.fetchText(entry);
  }

  /** A watcher's check (or a player's when his record cannot be fetched): the openings the table got. */
  async checkLive(entry) {
    const deal = entry.live.deal;
    if (!deal?.verifiable) {
      entry.check = { ok: null, reason: "no openings for this hand: nothing to check" };
    } else {
      await deal.settled();
      const record = { deck_root: deal.root, openings: [...deal.openings.values()].map((r) => r.opening), client_seeds: deal.clientSeeds };
      entry.check = await checkHandRecord({ record, mine: entry.live.mine ?? [], seen: entry.live.seen ?? null, sent: entry.live.sent, seat: entry.live.seat, handSeats: entry.live.handSeats });
    }
    this.render();
  }

  async fetchText(entry, attempt = 0) {
    let data;
    try {
      data = await api.hand(entry.handId);
    } catch {
      // the history may be stored a moment after the hand ends
      if (attempt < 3) setTimeout(() => this.fetchText(entry, attempt + 1), 800 * (attempt + 1));
      else if (!entry.check) await this.checkLive(entry);
      return;
    }
    entry.text = data.text ?? data.readable ?? null;
    entry.phh = data.phh ?? null;
    entry.loaded = true;
    this.render();
    if (!entry.check) {
      const live = entry.live;
      // A record without openings (a tournament hand keeps no seeds): check the table's openings.
      if (!data.deck_root) {
        await this.checkLive(entry);
        return;
      }
      entry.check = await checkHandRecord({
        record: data, announcedRoot: live.deal?.verifiable ? live.deal.root : null, announcedSeed: live.deal?.announced ?? null, mine: live.mine ?? [], seen: live.seen ?? null,
        sent: live.sent, seat: live.seat, handSeats: live.handSeats,
      });
      this.render();
    }
  }

  render() {
    if (!this.entries.length) return;
    this.list.replaceChildren(...this.entries.map((e) => this.entryElement(e)));
  }

  entryElement(e) {
    const el = document.createElement("article");
    el.className = "hand-entry";
    el.dataset.hand = e.handId;
    const check = e.check;
    const cls = !check || check.ok === null ? "pending" : check.ok === true ? "ok" : check.ok === "partial" ? "partial" : "bad";
    const verdict = !check ? "checking the deal…" : check.ok === true ? `✔ Deal checked: ${check.reason}` : check.ok === "partial" ? `Deal partly checked: ${check.reason}` : check.ok === null ? check.reason : `✘ Deal check failed: ${check.reason}`;
    const summary = resultSummary(e.finished.result, e.names);
    const text = e.text
      ? `<pre>${escapeHtml(e.text)}</pre>`
      : `<p class="muted small">${!e.dealtIn ? "You watched this hand: its history is for the players." : e.loaded ? "No text stored for this hand." : "Loading the hand's text…"}</p>`;
    const root = check?.root ?? "";
    const openings = (check?.openings ?? []).map((o) => `${escapeHtml(cardName(o.card))} at ${escapeHtml(String(o.position))}`).join(", ");
    el.innerHTML =
      `<header><b>Hand ${escapeHtml(e.handId.slice(0, 8))}</b><span class="muted small">${e.at.toLocaleTimeString()}</span></header>` +
      (summary ? `<div class="small">${summary}</div>` : "") +
      `<div class="verify ${cls}" data-verified="${check?.ok ?? ""}">${escapeHtml(verdict)}</div>` +
      (root
        ? `<details class="hash"><summary>deck root ${escapeHtml(root.slice(0, 16))}…</summary>` +
          `deck root ${escapeHtml(root)}<br>cards opened to you: ${openings}</details>`
        : "") +
      text;
    if (e.phh) {
      const a = document.createElement("a");
      a.className = "small download-phh";
      a.textContent = "Download PHH";
      a.download = `hand-${e.handId}.phh`;
      a.href = URL.createObjectURL(new Blob([e.phh], { type: "text/plain" }));
      el.appendChild(a);
    }
    if (!e.finished.voided) el.appendChild(replayLinks(e));
    return el;
  }
}

/**
 * The hand's replayer links (js/replayer.js), opened in a new tab so the table stays: "Replay"
 * from your seat and "Download PokerStars" for a hand you played, the "Public view" for anyone.
 */
function replayLinks(e) {
  const id = encodeURIComponent(e.handId);
  const box = document.createElement("div");
  box.className = "replay-links small";
  const link = (cls, text, href) => {
    const a = document.createElement("a");
    a.className = cls;
    a.textContent = text;
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener";
    return a;
  };
  if (e.dealtIn) box.appendChild(link("replay-link", "Replay", `#/replay/${id}`));
  box.appendChild(link("public-link", "Public view", `#/hand/${id}`));
  if (e.dealtIn) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "ghost small download-pokerstars";
    button.textContent = "Download PokerStars";
    button.addEventListener("click", async () => {
      try {
        const text = await api.handPokerStars(e.handId);
        const a = document.createElement("a");
        a.download = `hand-${e.handId}.txt`;
        a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
        a.click();
        setTimeout(() => URL.revokeObjectURL(a.href), 10000);
      } catch (err) {
        button.textContent = `Download PokerStars: ${err.message}`;
      }
    });
    box.appendChild(button);
  }
  return box;
}

/** "alice wins 5.40 (Pair of Queens)" from a hand result. */
function resultSummary(result, names) {
  if (!result?.pots) return "";
  const won = new Map();
  for (const pot of result.pots) for (const s of pot.shares ?? []) won.set(s.seat, (won.get(s.seat) ?? 0) + s.amount);
  const hands = new Map((result.shown ?? []).map((h) => [h.seat, [h.high, h.low].filter(Boolean).join(" / ")]));
  return [...won]
    .map(([seat, amount]) => `${escapeHtml(names[seat] ?? `Seat ${seat}`)} wins ${money(amount)}${hands.get(seat) ? ` (${escapeHtml(hands.get(seat))})` : ""}`)
    .join("; ");
}
