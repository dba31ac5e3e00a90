// The replayer's table (replayer.js): the seats after the step shown (cards as the viewer knew
// them, stacks, bets, the button, each live player's equity bar, the decision's notes under its
// plate) and the middle (the pots gathered, the board, the result banner at the end). `r` is
// the Replayer.

import { cardElement } from "./cards.js";
import { escapeHtml, streetName } from "./format.js";
import { percent } from "./replayer_equity.js";
import { plateNote } from "./replayer_steps.js";
import { drawnPots } from "./state.js";
import { seatPosition } from "./table.js";

/** A seat's cards in dealing order: in stud two down, the up cards, then the 7th-street card. */
function seatCards(s) {
  const down = s.down.map((card) => ({ card, up: false }));
  return [...down.slice(0, 2), ...s.up.map((card) => ({ card, up: true })), ...down.slice(2)];
}

export function renderTable(r, step, last) {
  const h = r.hand;
  const table = r.$("#replay-table");
  const narrow = table.clientWidth < 560 || matchMedia("(max-width: 720px)").matches;
  const n = h.max_seats;
  const bottom = h.viewer ?? h.players[0]?.seat ?? 1;
  const equity = r.equityNow()?.equity;
  const share = new Map((equity?.players ?? []).map((p) => [p.seat, p.equity]));
  const won = new Map();
  if (last) for (const pot of h.result?.pots ?? []) for (const s of pot.shares) won.set(s.seat, (won.get(s.seat) ?? 0) + s.amount);
  const names = new Map((h.result?.shown ?? []).map((s) => [s.seat, [s.high, s.low].filter(Boolean).join(" / ")]));
  const shownNow = new Set(step.seats.filter((s) => s.shown).map((s) => s.seat));
  const frag = document.createDocumentFragment();
  for (const s of step.seats) {
    const pos = seatPosition((s.seat - bottom + n) % n, n, narrow);
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = String(s.seat);
    el.style.left = `${pos.x}%`;
    el.style.top = `${pos.y}%`;
    for (const [flag, cls] of [[pos.top, "top"], [s.seat === h.viewer, "hero"], [s.folded, "folded"], [s.all_in, "all-in"], [step.seat === s.seat, "to-act"], [won.get(s.seat) > 0, "winner"]]) {
      if (flag) el.classList.add(cls);
    }
    const cards = document.createElement("div");
    cards.className = "cards";
    for (const c of seatCards(s)) {
      const hiddenFromOthers = s.seat === h.viewer && !c.up && c.card !== null && !s.shown;
      cards.appendChild(cardElement(c.card, { hiddenFromOthers }));
    }
    const plate = document.createElement("div");
    plate.className = "plate";
    const tag = s.mucked ? "Mucked" : s.folded ? "Folded" : s.all_in ? "All-in" : null;
    plate.innerHTML =
      `<div class="name">${escapeHtml(r.nameOf(s.seat))}</div><div class="stack">${escapeHtml(r.amount(s.stack))}</div>` +
      (tag ? `<span class="tag ${tag === "All-in" ? "allin" : ""}">${tag}</span>` : "");
    el.append(cards, plate);
    if (step.seat === s.seat && step.notes.length) plate.appendChild(plateNote(r, s.seat, step.notes));
    if (share.has(s.seat)) {
      const bar = document.createElement("div");
      bar.className = "replay-seat-equity";
      bar.innerHTML = `<span style="width:${(share.get(s.seat) * 100).toFixed(1)}%"></span><b>${percent(share.get(s.seat))}</b>`;
      el.appendChild(bar);
    }
    if (last && (won.get(s.seat) || (shownNow.has(s.seat) && names.get(s.seat)))) {
      const hn = document.createElement("div");
      hn.className = "hand-name";
      hn.innerHTML = [names.get(s.seat) ? escapeHtml(names.get(s.seat)) : "", won.get(s.seat) ? `<span class="won">+${escapeHtml(r.amount(won.get(s.seat)))}</span>` : ""].filter(Boolean).join(" · ");
      el.appendChild(hn);
    }
    frag.appendChild(el);
    if (s.bet > 0 && !last) {
      const bet = document.createElement("div");
      bet.className = "bet";
      bet.style.left = `${50 + (pos.x - 50) * 0.58}%`;
      bet.style.top = `${50 + (pos.y - 50) * 0.5}%`;
      bet.innerHTML = `<span class="chip"></span>${escapeHtml(r.amount(s.bet))}`;
      frag.appendChild(bet);
    }
    if (s.seat === h.button) {
      const marker = document.createElement("div");
      marker.className = "marker button";
      marker.textContent = "D";
      marker.style.left = `${50 + (pos.x - 50) * 0.74 + (pos.x < 50 ? 3.5 : -3.5)}%`;
      marker.style.top = `${50 + (pos.y - 50) * 0.72}%`;
      frag.appendChild(marker);
    }
  }
  r.$("#replay-seats").replaceChildren(frag);
  renderCenter(r, step, last);
}

/** The pots of the last step up to `step` with no bet in front of any seat (none: no pot yet). */
function gatheredPots(r, step) {
  const steps = r.hand.steps;
  for (let i = steps.indexOf(step); i >= 0; i--) {
    if (steps[i].seats.every((s) => !s.bet)) return steps[i].pots;
  }
  return [];
}

function renderCenter(r, step, last) {
  const h = r.hand;
  const c = r.$("#replay-center");
  c.replaceChildren();
  if (!last) {
    // the pots in the middle: those a step carried (server/replays.py) when no bet was out, at
    // this street's start (a step's own pots count the bets in front of the seats too)
    const pots = drawnPots(gatheredPots(r, step));
    if (pots.length) {
      const box = document.createElement("div");
      box.className = "pots";
      for (const p of pots) {
        const el = document.createElement("div");
        el.className = "pot";
        el.innerHTML = `<span class="chip"></span><span class="label">${escapeHtml(p.label)}</span> ${escapeHtml(r.amount(p.amount))}`;
        box.appendChild(el);
      }
      c.appendChild(box);
    }
  }
  if (step.board.length) {
    const board = document.createElement("div");
    board.className = "board";
    for (const card of step.board) board.appendChild(cardElement(card));
    if (h.button === null) {
      // stud has no board: a card on it is the community card (the deck ran short)
      const label = document.createElement("div");
      label.className = "board-label";
      label.textContent = "Community card";
      c.appendChild(label);
    }
    c.appendChild(board);
  }
  if (last) {
    const banner = document.createElement("div");
    banner.className = "result-banner";
    const pots = h.result?.pots ?? [];
    banner.innerHTML = pots
      .map((pot) => {
        const label = pots.length > 1 ? (pot.index === 0 ? "Main pot" : `Side pot ${pot.index}`) : "Pot";
        const shares = pot.shares.map((s) => `${escapeHtml(r.nameOf(s.seat))} wins <b>${escapeHtml(r.amount(s.amount))}</b>${s.half === "high" || s.half === "low" ? ` (${s.half})` : ""}`);
        return `${label} ${escapeHtml(r.amount(pot.amount))}: ${shares.join(", ")}`;
      })
      .join("<br>") + (h.rake ? `<br><span class="muted">rake ${escapeHtml(r.amount(h.rake))}</span>` : "");
    c.appendChild(banner);
  } else {
    const label = document.createElement("div");
    label.className = "street-label";
    label.textContent = streetName(step.street);
    c.appendChild(label);
  }
}
