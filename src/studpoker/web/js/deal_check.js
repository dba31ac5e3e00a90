// The check of one hand's deal as this client sees it (docs/fairness.md): every card opened to
// it must sit, under the deck root published before the deal, at the position its opening names
// (js/fairness.js), and must be a card the table showed it; its own seed must be among the
// seeds that made the deck, under the seed commitment announced before it sent the seed.

import { cardText } from "./cards.js";
import { verifyOpening } from "./fairness.js";

const SUIT_SIGNS = { c: "♣", d: "♦", h: "♥", s: "♠" };

/** "Q♥", "10♠": a card named the way a player reads it. */
export function cardName(card) {
  const text = cardText(card);
  if (!text) return String(card ?? "?");
  return `${text[0] === "T" ? "10" : text[0]}${SUIT_SIGNS[text[1]]}`;
}

/**
 * The cards the table shows this client in the hand model (state.js): own down cards, every up
 * card, the stud community card or the board, and the hands shown at the showdown.
 * [{card, seat, mine}], one per card (seat null for the board).
 */
export function visibleCards(hand, yourSeat, result = null) {
  const out = new Map();
  const add = (card, seat) => {
    const text = cardText(card);
    if (text && !out.has(text)) out.set(text, { card: text, seat, mine: seat !== null && seat === yourSeat });
  };
  for (const p of hand?.players ?? []) for (const c of p.cards) add(c.card, p.seat);
  for (const card of [...(hand?.community ?? []), ...(hand?.board ?? [])]) add(card, null);
  for (const [seat, shown] of Object.entries(hand?.shows ?? {})) for (const c of shown.cards ?? []) add(c, Number(seat));
  for (const h of result?.shown ?? hand?.result?.shown ?? []) for (const c of h.cards ?? []) add(c, h.seat);
  return [...out.values()];
}

function sameOpening(a, b) {
  return a.card === b.card && a.salt === b.salt && JSON.stringify(a.path) === JSON.stringify(b.path);
}

export class DealCheck {
  /**
   * root: the deck root hand_started published (hex). verifiable: the server speaks the
   * per-card protocol (hand_started had `deck_root`): without it there is nothing to check.
   * announced: the seed commitment of the deal_commitment this client saw for the hand, if any.
   */
  constructor({ handId, root, verifiable = true, seedCommitment = null, announced = null, clientSeeds = null, handSeats = null, onChange = () => {} }) {
    this.handId = handId;
    this.root = root ?? null;
    this.verifiable = Boolean(verifiable && root);
    this.seedCommitment = seedCommitment;
    this.announced = announced;
    this.clientSeeds = clientSeeds;
    this.handSeats = handSeats;
    this.onChange = onChange;
    this.openings = new Map(); // position -> {opening, result: null | {ok, reason}}
    this.conflicts = []; // {card, reason}: a position opened twice to different cards
    this.pending = new Set();
    this.seed = null; // {state: "ok" | "bad" | "info", text}
  }

  /** Record openings (from cards_opened, a snapshot or a REST record) and verify them. */
  add(openings) {
    const jobs = [];
    for (const raw of Array.isArray(openings) ? openings : []) {
      if (!raw || typeof raw !== "object") continue;
      const opening = { ...raw, card: cardText(raw.card) || String(raw.card) };
      const known = this.openings.get(opening.position);
      if (known) {
        if (!sameOpening(known.opening, opening)) {
          this.conflicts.push({ card: opening.card, reason: `position ${opening.position} was opened as ${cardName(known.opening.card)} and as ${cardName(opening.card)}` });
          this.onChange(this);
        }
        continue;
      }
      const record = { opening, result: null };
      this.openings.set(opening.position, record);
      const job = verifyOpening(this.root ?? "", opening).then((result) => {
        record.result = result;
        this.pending.delete(job);
      });
      this.pending.add(job);
      jobs.push(job);
    }
    // one change per batch, when all of it is checked: the table redraws once
    if (jobs.length) Promise.all(jobs).then(() => this.onChange(this));
  }

  /** Resolves when every opening recorded so far has been verified. */
  async settled() {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /**
   * The seed check at hand_started. sent: the SeedKeeper's record for this hand ({seed, status}
   * or null); seat: this client's seat.
   */
  checkSeed(sent, seat) {
    this.seed = seedVerdict({ sent, seat, handSeats: this.handSeats, clientSeeds: this.clientSeeds, seedCommitment: this.seedCommitment, announced: this.announced });
    this.onChange(this);
    return this.seed;
  }

  /**
   * What the table shows: against the cards visible to this client ([{card, seat, mine}]),
   * {verifiable, checked, total, pendingCount, cards: Map(card -> "ok" | "bad"), failures: [{card, text}]}.
   */
  summary(visible) {
    const byCard = new Map();
    const failures = [...this.conflicts.map((c) => ({ card: c.card, text: c.reason }))];
    for (const { opening, result } of this.openings.values()) {
      if (!result) continue;
      const seen = visible.find((v) => v.card === opening.card);
      if (!result.ok) {
        const where = result.reason.startsWith("malformed") ? result.reason : `deck position ${opening.position}`;
        failures.push({ card: opening.card, text: `${cardName(opening.card)} does not match the deck fixed before the deal (${where})` });
        byCard.set(opening.card, "bad");
      } else if (byCard.get(opening.card) === "ok") {
        failures.push({ card: opening.card, text: `${cardName(opening.card)} is committed at two deck positions` });
        byCard.set(opening.card, "bad");
      } else if (!seen) {
        failures.push({ card: opening.card, text: `${cardName(opening.card)} was opened but the table never showed it to you` });
      } else if (opening.seat !== undefined && opening.seat !== null && seen.seat !== null && opening.seat !== seen.seat) {
        failures.push({ card: opening.card, text: `${cardName(opening.card)} was opened for seat ${opening.seat} but dealt to seat ${seen.seat}` });
        byCard.set(opening.card, "bad");
      } else if (!byCard.has(opening.card)) {
        byCard.set(opening.card, "ok");
      }
    }
    const checked = visible.filter((v) => byCard.get(v.card) === "ok").length;
    return { verifiable: this.verifiable, checked, total: visible.length, pendingCount: this.pending.size, cards: byCard, failures, seed: this.seed };
  }
}

/** The seed verdict ({state, text}) shared by the table and the history panel. */
export function seedVerdict({ sent, seat, handSeats, clientSeeds, seedCommitment, announced }) {
  if (announced && seedCommitment && announced.toLowerCase() !== String(seedCommitment).toLowerCase()) {
    return { state: "bad", text: "the seed commitment differs from the one announced before the seeds were sent" };
  }
  if (!sent || seat === null || seat === undefined) return null;
  if (handSeats && !handSeats.includes(seat)) return null; // not dealt in: a seed is simply not used
  if (sent.status === "late") return { state: "info", text: "your seed came after the deal had started" };
  if (!Array.isArray(clientSeeds)) return null;
  const entry = clientSeeds.find((s) => s.seat === seat);
  const went = entry && String(entry.seed).toLowerCase() === sent.seed.toLowerCase();
  if (went) return { state: "ok", text: "your seed went in" };
  if (sent.status === "taken") return { state: "bad", text: "your seed, accepted by the server, is not among the seeds of the deal" };
  if (sent.status === "already") return entry ? { state: "info", text: "a seed for your seat went in (sent from another window)" } : null;
  return { state: "info", text: "your seed was not taken" };
}
