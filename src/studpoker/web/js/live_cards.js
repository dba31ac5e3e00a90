// The live-cards tray (stud games): every up card seen this hand, folded players' included,
// counted by rank and by suit, and for the viewer how many of his outs are still live. Pure
// display, computed from the hand model the table already drew (state.js); no rule of any game.
//
// A card is "seen" by the viewer when it is face up anywhere (any player's up cards, folded
// or not, and a stud community card) or in his own hand; the others are "live" (they may still
// come). His outs, defined simply (docs/client.md "Live cards"):
// - pair: for each rank he holds, the live cards of that rank;
// - flush: with three or four cards of one suit, the live cards of that suit;
// - straight: with three or four ranks of some five in a row (ace high or low), the live cards
//   of each rank missing from the rows he holds most of;
// - low: with three or four different ranks from ace to eight, the live cards of each rank from
//   ace to eight he lacks (razz, and the low half of stud hi/lo).

import { RANKS, SUITS, parseCard, suitIcon, suitColour } from "./cards.js";
import { gameOf } from "./games.js";

const ACE = 12;
// the ranks from ace to eight, ace first (low order)
const LOW_RANKS = [ACE, 0, 1, 2, 3, 4, 5, 6];
// every five ranks in a row: A-2-3-4-5 (the ace low) up to T-J-Q-K-A
const ROWS = Array.from({ length: 10 }, (_, lo) => [lo - 1, lo, lo + 1, lo + 2, lo + 3].map((r) => (r < 0 ? ACE : r)));

/** "A", "K", ..., "2" (ten as "T") for a rank index of cards.js (0 = deuce ... 12 = ace). */
export function rankText(rank) {
  return RANKS[rank];
}

/**
 * What the viewer has seen of a stud hand: `up` every face-up card ({seat, card, rank, suit,
 * folded}; seat null for the community card), `mine` his own cards (parsed), `byRank` / `bySuit`
 * how many up cards of each rank (index 0 = deuce) and suit (cards.js SUITS order), and `known`
 * the counts of every card he has seen, his own included.
 */
export function seenCards(hand, heroSeat) {
  const up = [];
  const mine = [];
  for (const p of hand?.players ?? []) {
    for (const c of p.cards ?? []) {
      const parsed = parseCard(c.card);
      if (!parsed) continue;
      if (c.up) up.push({ seat: p.seat, card: parsed.text, rank: parsed.rank, suit: parsed.suit, folded: Boolean(p.folded) });
      if (p.seat === heroSeat) mine.push(parsed);
    }
  }
  for (const card of hand?.community ?? []) {
    const parsed = parseCard(card);
    if (parsed) up.push({ seat: null, card: parsed.text, rank: parsed.rank, suit: parsed.suit, folded: false });
  }
  const byRank = new Array(13).fill(0);
  const bySuit = new Array(4).fill(0);
  for (const c of up) {
    byRank[c.rank] += 1;
    bySuit[c.suit] += 1;
  }
  // seen = every up card plus his own down cards (his up cards are among the up cards already)
  const seen = new Set(up.map((c) => c.card));
  for (const c of mine) seen.add(c.text);
  const known = { byRank: new Array(13).fill(0), bySuit: new Array(4).fill(0), total: seen.size };
  for (const text of seen) {
    const parsed = parseCard(text);
    known.byRank[parsed.rank] += 1;
    known.bySuit[parsed.suit] += 1;
  }
  return { up, mine, byRank, bySuit, known };
}

const liveOfRank = (known, rank) => 4 - known.byRank[rank];

/** A draw to the ranks missing: each with its live cards, and their sum. */
function rankDraw(ranks, known, extra) {
  const live = ranks.map((rank) => ({ rank, live: liveOfRank(known, rank) }));
  return { ...extra, ranks: live, live: live.reduce((sum, r) => sum + r.live, 0) };
}

/**
 * The viewer's outs from what he has seen (see the definitions above): `pairs` [{rank, held,
 * live}], `flushes` [{suit, held, live}], `straight` {held, ranks: [{rank, live}], live} or null,
 * `low` likewise or null. Null when he holds no cards. `hands`: how the game ranks hands (its
 * record's `hands`): flushes and straights only where a high hand counts, the low draw only
 * where a low does (razz, the low half of stud hi/lo).
 */
export function outsOf(seen, hands = ["high", "low8"]) {
  const mine = seen.mine;
  if (!mine.length) return null;
  const { known } = seen;
  const heldRanks = new Set(mine.map((c) => c.rank));
  const count = (pred) => mine.filter(pred).length;
  const pairs = [...heldRanks]
    .sort((a, b) => b - a)
    .map((rank) => ({ rank, held: count((c) => c.rank === rank), live: liveOfRank(known, rank) }));
  const high = hands.includes("high");
  const flushes = [];
  for (let suit = 0; suit < 4 && high; suit++) {
    const held = count((c) => c.suit === suit);
    if (held >= 3 && held < 5) flushes.push({ suit, held, live: 13 - known.bySuit[suit] });
  }
  let straight = null;
  const inRow = ROWS.map((row) => row.filter((r) => heldRanks.has(r)).length);
  const best = Math.max(...inRow);
  if (high && best >= 3 && best < 5) {
    const missing = new Set();
    ROWS.forEach((row, i) => inRow[i] === best && row.forEach((r) => !heldRanks.has(r) && missing.add(r)));
    straight = rankDraw([...missing].sort((a, b) => b - a), known, { held: best });
  }
  let low = null;
  const lowHeld = LOW_RANKS.filter((r) => heldRanks.has(r)).length;
  if ((hands.includes("low8") || hands.includes("razz")) && lowHeld >= 3 && lowHeld < 5) low = rankDraw(LOW_RANKS.filter((r) => !heldRanks.has(r)), known, { held: lowHeld });
  return { pairs, flushes, straight, low };
}

function suitHtml(suit) {
  return `<span class="lc-suit" style="color:${suitColour(suit)}">${suitIcon(suit)}</span>`;
}

function cardChip(c) {
  const folded = c.folded ? ' data-folded="1" title="a folded player\'s card"' : "";
  return `<span class="lc-card${c.folded ? " folded" : ""}" data-tray-card="${c.card}"${folded}>${rankText(c.rank)}${suitHtml(c.suit)}</span>`;
}

// "9: 3 · 6: 1": each rank with its live cards
const ranksText = (ranks) => ranks.map((r) => `<span data-rank="${rankText(r.rank)}" data-live="${r.live}">${rankText(r.rank)}: ${r.live}</span>`).join(" · ");

/** The tray under the table: shown for stud games, hidden by its toggle (remembered). */
export class LiveCardsTray {
  constructor(root, toggleButton) {
    this.root = root;
    this.button = toggleButton;
    this.wanted = localStorage.getItem("studpoker.liveCards") !== "off";
    this.stud = false;
    this.button?.addEventListener("click", () => this.toggle());
  }

  toggle() {
    this.wanted = !this.wanted;
    localStorage.setItem("studpoker.liveCards", this.wanted ? "on" : "off");
    this.apply();
  }

  apply() {
    this.root.hidden = !(this.stud && this.wanted);
    if (this.button) {
      this.button.hidden = !this.stud;
      this.button.setAttribute("aria-pressed", String(this.wanted));
    }
  }

  render(view) {
    this.stud = Boolean(view.game) && !gameOf(view.game).board;
    this.apply();
    if (!this.stud) return;
    const seen = seenCards(view.hand, view.heroSeat);
    const hero = view.seats.find((s) => s.isHero);
    const outs = hero?.inHand && !hero.folded ? outsOf(seen, gameOf(view.game).hands ?? ["high", "low8"]) : null;
    const sorted = [...seen.up].sort((a, b) => b.rank - a.rank || a.suit - b.suit);
    const ranks = [];
    for (let r = ACE; r >= 0; r--) {
      ranks.push(`<span class="lc-rank" data-rank="${rankText(r)}" data-count="${seen.byRank[r]}" title="${seen.byRank[r]} of 4 up, ${4 - seen.known.byRank[r]} live"><b>${rankText(r)}</b>${seen.byRank[r]}</span>`);
    }
    const suits = SUITS.split("").map((s, i) => `<span class="lc-suit-count" data-suit="${s}" data-count="${seen.bySuit[i]}">${suitHtml(i)}${seen.bySuit[i]}</span>`);
    this.root.dataset.up = String(seen.up.length);
    this.root.innerHTML =
      `<div class="lc-head"><b>Live cards</b> <span class="muted">${seen.up.length} up card${seen.up.length === 1 ? "" : "s"} seen${view.hand ? "" : " (no hand)"}</span></div>` +
      `<div class="lc-ranks" aria-label="Up cards by rank">${ranks.join("")}</div>` +
      `<div class="lc-suits" aria-label="Up cards by suit">${suits.join("")}</div>` +
      `<div class="lc-cards">${sorted.map(cardChip).join("") || '<span class="muted">none yet</span>'}</div>` +
      (outs ? outsHtml(outs) : "");
  }
}

function outsHtml(outs) {
  const lines = [];
  lines.push(`<li data-outs="pairs" data-live="${outs.pairs.reduce((s, p) => s + p.live, 0)}"><span class="lc-what">Your ranks, live</span> ${ranksText(outs.pairs)}</li>`);
  for (const f of outs.flushes) {
    lines.push(`<li data-outs="flush" data-live="${f.live}"><span class="lc-what">Flush, ${f.held} ${suitHtml(f.suit)} held</span> <b>${f.live}</b> live</li>`);
  }
  if (outs.straight) {
    lines.push(`<li data-outs="straight" data-live="${outs.straight.live}"><span class="lc-what">Straight, ${outs.straight.held} of 5</span> ${ranksText(outs.straight.ranks)} → <b>${outs.straight.live}</b> live</li>`);
  }
  if (outs.low) {
    lines.push(`<li data-outs="low" data-live="${outs.low.live}"><span class="lc-what">Low, ${outs.low.held} of A–8</span> ${ranksText(outs.low.ranks)} → <b>${outs.low.live}</b> live</li>`);
  }
  return `<ul class="lc-outs" aria-label="Your outs still live">${lines.join("")}</ul>`;
}
