// The hand history panel: the readable text of the last hands, a PHH download, and for every
// finished hand the deck check: the SHA-256 of the revealed order and salt, recomputed here,
// must equal the commitment published before the deal (studpoker/cards.py `commitment()`).

import { api } from "./api.js";
import { cardText } from "./cards.js";
import { escapeHtml, money } from "./format.js";

export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Check a revealed deck against its commitment: 52 distinct cards, and
 * sha256("studpoker-deck-v1:{salt}:{cards}") equal to the commitment (and to the one announced
 * at the start of the hand, when this client saw it). Returns {ok, computed, reason}.
 */
export async function verifyDeck({ order, salt, commitment, announced }) {
  const cards = (order ?? []).map(cardText);
  if (cards.length !== 52 || cards.some((c) => !c) || new Set(cards).size !== 52) {
    return { ok: false, computed: null, reason: "the revealed deck is not 52 distinct cards" };
  }
  const computed = await sha256Hex(`studpoker-deck-v1:${salt}:${cards.join("")}`);
  if (computed !== String(commitment).toLowerCase()) {
    return { ok: false, computed, reason: "the revealed deck does not match the commitment" };
  }
  if (announced && announced.toLowerCase() !== computed) {
    return { ok: false, computed, reason: "the commitment differs from the one announced at the deal" };
  }
  return { ok: true, computed, reason: announced ? "matches the commitment announced before the deal" : "matches the commitment" };
}

const KEEP = 20;

export class HistoryPanel {
  constructor(root) {
    this.root = root;
    this.list = root.querySelector("#history-list");
    this.entries = [];
  }

  /** A hand finished at the table: check its deck, then fetch its text. */
  async add(finished, announced, { dealtIn = true, names = {} } = {}) {
    if (this.entries.some((e) => e.handId === finished.hand_id)) return;
    const entry = { handId: finished.hand_id, finished, announced, check: null, text: null, phh: null, dealtIn, names, loaded: false, at: new Date() };
    this.entries.unshift(entry);
    this.entries.length = Math.min(this.entries.length, KEEP);
    this.render();
    entry.check = finished.voided
      ? { ok: null, reason: "hand voided" }
      : await verifyDeck({ order: finished.deck_order, salt: finished.salt, commitment: finished.commitment, announced });
    this.render();
    if (dealtIn) this.fetchText(entry);
  }

  async fetchText(entry, attempt = 0) {
    try {
      const data = await api.hand(entry.handId);
      entry.text = data.text ?? data.readable ?? null;
      entry.phh = data.phh ?? null;
      entry.loaded = true;
      this.render();
    } catch {
      // the history may be stored a moment after the hand ends
      if (attempt < 3) setTimeout(() => this.fetchText(entry, attempt + 1), 800 * (attempt + 1));
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
    const cls = !check ? "pending" : check.ok ? "ok" : check.ok === null ? "pending" : "bad";
    const verdict = !check ? "checking the deck…" : check.ok ? `✔ Deck verified: ${check.reason}` : check.ok === null ? check.reason : `✘ ${check.reason}`;
    const summary = resultSummary(e.finished.result, e.names);
    const text = e.text
      ? `<pre>${escapeHtml(e.text)}</pre>`
      : `<p class="muted small">${!e.dealtIn ? "You watched this hand: its history is for the players." : e.loaded ? "No text stored for this hand." : "Loading the hand's text…"}</p>`;
    el.innerHTML =
      `<header><b>Hand ${escapeHtml(e.handId.slice(0, 8))}</b><span class="muted small">${e.at.toLocaleTimeString()}</span></header>` +
      (summary ? `<div class="small">${summary}</div>` : "") +
      `<div class="verify ${cls}" data-verified="${check?.ok ?? ""}">${escapeHtml(verdict)}</div>` +
      `<details class="hash"><summary>commitment ${escapeHtml(e.finished.commitment.slice(0, 16))}…</summary>` +
      `commitment ${escapeHtml(e.finished.commitment)}<br>salt ${escapeHtml(e.finished.salt)}<br>` +
      `computed ${escapeHtml(check?.computed ?? "")}<br>deck ${escapeHtml((e.finished.deck_order ?? []).join(" "))}</details>` +
      text;
    if (e.phh) {
      const a = document.createElement("a");
      a.className = "small download-phh";
      a.textContent = "Download PHH";
      a.download = `hand-${e.handId}.phh`;
      a.href = URL.createObjectURL(new Blob([e.phh], { type: "text/plain" }));
      el.appendChild(a);
    }
    return el;
  }
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
