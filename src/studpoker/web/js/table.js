// Draws the oval table from the normalized view (state.js): seats around an ellipse with your
// own seat at the bottom, each with its plate (name, stack), cards, bet and markers; the pots,
// the stud community card or the board (Omaha, Hold'em) in the centre; the showdown result.

import { owedTag } from "./blinds.js";
import { cardElement, cardText, parseCard } from "./cards.js";
import { tableShowdown } from "./dealer_log.js";
import { cardName } from "./deal_check.js";
import { escapeHtml, money, streetName } from "./format.js";

/** Where seat `index` of `n` sits, hero first at the bottom, going clockwise. Percentages. */
export function seatPosition(index, n, narrow) {
  const angle = Math.PI / 2 + (index * 2 * Math.PI) / n;
  const rx = narrow ? 38 : 41.5;
  const ry = narrow ? 41 : 40;
  // upright (phone) table: your seat a little lower, leaving room for its bigger cards
  const y = 50 + ry * Math.sin(angle) + (narrow && index === 0 ? 3 : 0) - (narrow ? 1.5 : 0);
  return { x: 50 + rx * Math.cos(angle), y, top: Math.sin(angle) < -0.2 };
}

function betPosition(pos) {
  // between the seat and the centre of the table
  return { x: 50 + (pos.x - 50) * 0.58, y: 50 + (pos.y - 50) * 0.5 };
}

/**
 * What the showdown shows, from the hand_finished result (engine/result.py HandResult) or, before
 * it arrives, from the show and award events: per seat the cards shown, the hand names, the
 * winning cards, and what it won; one line per pot. Null while the hand is running.
 */
export function showdownInfo(view) {
  const hand = view.hand;
  const res = view.result?.result ?? hand?.result ?? null;
  if (!res && !hand?.over) return null;
  const info = { shown: new Map(), won: new Map(), lines: [], order: [] };
  const nameOf = (seat) => view.seats.find((s) => s.seat === seat)?.name ?? `Seat ${seat}`;
  const shown =
    res?.shown ??
    (hand?.show_order ?? []).map((seat) => ({ seat, cards: hand.shows[seat].cards, high: hand.shows[seat].detail }));
  for (const h of shown) {
    info.order.push(h.seat);
    const best = new Set([...(h.high_cards ?? []), ...(h.low_cards ?? [])].map(cardText));
    const names = [h.high, h.low].filter(Boolean);
    info.shown.set(h.seat, { cards: h.cards, handName: names.join(" / "), best });
  }
  const pots = res?.pots;
  if (pots) {
    for (const pot of pots) {
      const label = pots.length > 1 ? (pot.index === 0 ? "Main pot" : `Side pot ${pot.index}`) : "Pot";
      const shares = (pot.shares ?? []).map((s) => ({ seat: s.seat, amount: s.amount, half: s.half }));
      for (const share of shares) info.won.set(share.seat, (info.won.get(share.seat) ?? 0) + share.amount);
      const text = sharesText(shares, nameOf);
      if (text) info.lines.push(`${label} ${money(pot.amount)}: ${text}`);
    }
  } else {
    // before hand_finished: the award events, pot by pot
    const byPot = new Map();
    for (const a of hand?.awards ?? []) {
      info.won.set(a.seat, (info.won.get(a.seat) ?? 0) + a.amount);
      if (!byPot.has(a.pot)) byPot.set(a.pot, []);
      byPot.get(a.pot).push({ seat: a.seat, amount: a.amount, half: a.detail });
    }
    for (const shares of byPot.values()) info.lines.push(sharesText(shares, nameOf));
  }
  return info;
}

/**
 * One pot's winners: "alice scoops <b>16.00</b> (high and low)" when one player takes both
 * halves, else one "NAME wins AMOUNT (half)" per player, split by "; ".
 */
export function sharesText(shares, nameOf) {
  const bySeat = new Map();
  for (const s of shares) {
    const entry = bySeat.get(s.seat) ?? { seat: s.seat, amount: 0, halves: new Set() };
    entry.amount += s.amount;
    if (s.half === "high" || s.half === "low") entry.halves.add(s.half);
    bySeat.set(s.seat, entry);
  }
  const winners = [...bySeat.values()];
  return winners
    .map((w) => {
      const both = w.halves.has("high") && w.halves.has("low");
      const verb = both && winners.length === 1 ? "scoops" : "wins";
      const half = both ? " (high and low)" : w.halves.size ? ` (${[...w.halves][0]})` : "";
      return `${escapeHtml(nameOf(w.seat))} ${verb} <b>${money(w.amount)}</b>${half}`;
    })
    .join("; ");
}

/** The seat's cards in their places with the hidden ones filled in from the shown hand. */
export function revealCards(cards, shownCards) {
  const known = new Set(cards.map((c) => cardText(c.card)).filter(Boolean));
  const rest = shownCards.map(cardText).filter((c) => c && !known.has(c));
  const out = cards.map((c) => (cardText(c.card) ? { card: c.card, up: true } : { card: rest.shift() ?? null, up: true }));
  for (const c of rest) out.push({ card: c, up: true });
  return out;
}

export class TableView {
  constructor(root, { onSit, decorateSeat = null, reportShowdown = true, showdown = tableShowdown }) {
    this.root = root;
    this.decorateSeat = decorateSeat; // (plate, seat): the notes' tag dot and button (notes.js)
    // by class (the tile view draws several tables in one page: tiles.js), or by id
    this.seatsEl = root.querySelector(".seats, #seats");
    this.centerEl = root.querySelector(".center, #center");
    this.reportShowdown = reportShowdown; // the page's one dealer log follows only its main table
    this.showdown = showdown; // whom it reports to: the page's table, or a tile's own (tiles.js)
    this.onSit = onSit;
    this.known = new Set(); // cards already drawn, to animate only new ones
    this.revealed = new Map(); // seat -> time its showdown cards may appear
  }

  narrow() {
    return this.root.clientWidth < 560 || matchMedia("(max-width: 720px)").matches;
  }

  plateOf(seat) {
    return this.seatsEl.querySelector(`.seat[data-seat="${seat}"] .plate`);
  }

  render(view) {
    const n = view.maxSeats;
    const narrow = this.narrow();
    const hero = view.heroSeat ?? 1;
    const showdown = showdownInfo(view);
    const now = performance.now();
    if (showdown && !this.revealed.size) {
      // turn the hands up one after the other, in showdown order
      showdown.order.forEach((seat, i) => this.revealed.set(seat, now + 650 * i));
    }
    if (!showdown) this.revealed.clear();
    const frag = document.createDocumentFragment();
    const handKey = view.handId ?? "";
    for (const s of view.seats) {
      const index = (s.seat - hero + n) % n;
      const pos = seatPosition(index, n, narrow);
      frag.appendChild(this.seatElement(s, pos, view, showdown, handKey, now));
      if (s.bet > 0 && !showdown) {
        const bp = betPosition(pos);
        const bet = document.createElement("div");
        bet.className = "bet";
        bet.dataset.seat = s.seat;
        bet.style.left = `${bp.x}%`;
        bet.style.top = `${bp.y}%`;
        bet.innerHTML = `<span class="chip"></span>${money(s.bet)}`;
        frag.appendChild(bet);
      }
      if (s.button) {
        const mp = { x: 50 + (pos.x - 50) * 0.74 + (pos.x < 50 ? 3.5 : -3.5), y: 50 + (pos.y - 50) * 0.72 };
        const marker = document.createElement("div");
        marker.className = "marker button";
        marker.textContent = "D";
        marker.title = "Button";
        marker.style.left = `${mp.x}%`;
        marker.style.top = `${mp.y}%`;
        frag.appendChild(marker);
      }
    }
    this.seatsEl.replaceChildren(frag);
    // the result banner waits until every hand shown is face up: it must not name the winner
    // before his down cards turn
    const pending = [...this.revealed.values()].some((t) => t > now);
    this.renderCenter(view, showdown, pending);
    // the dealer log's showdown lines follow what was just drawn (dealer_log.js)
    const up = new Set(showdown ? [...showdown.shown.keys()].filter((seat) => this.faceUp(seat, now)) : []);
    if (this.reportShowdown) this.showdown.report(view.handId ?? null, up, Boolean(showdown) && !pending);
    // only the view drawn last is drawn again: an older one's timer (the last hand's showdown)
    // would draw that hand over the next one
    clearTimeout(this.revealTimer);
    if (pending) this.revealTimer = setTimeout(() => this.render(view), 660);
  }

  /** Whether the showdown has turned seat `seat`'s shown hand face up at time `now`. */
  faceUp(seat, now) {
    const revealAt = this.revealed.get(seat);
    return revealAt === undefined || revealAt <= now;
  }

  seatElement(s, pos, view, showdown, handKey, now) {
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = s.seat;
    el.style.left = `${pos.x}%`;
    el.style.top = `${pos.y}%`;
    if (pos.top) el.classList.add("top");
    if (!s.occupied) {
      el.classList.add("empty");
      const plate = document.createElement("div");
      plate.className = "plate";
      if (view.heroSeat === null && this.onSit) {
        const btn = document.createElement("button");
        btn.className = "sit small";
        btn.type = "button";
        btn.textContent = `Sit here`;
        btn.dataset.seat = s.seat;
        btn.addEventListener("click", () => this.onSit(s.seat));
        plate.appendChild(btn);
      } else {
        plate.textContent = `Seat ${s.seat}`;
      }
      el.appendChild(plate);
      return el;
    }
    for (const [flag, cls] of [
      [s.isHero, "hero"], [s.toAct && !showdown, "to-act"], [s.folded, "folded"], [s.allIn, "all-in"],
      [s.sittingOut, "sitting-out"], [!s.connected, "disconnected"],
    ]) if (flag) el.classList.add(cls);
    const shown = showdown?.shown.get(s.seat);
    const revealNow = shown && this.faceUp(s.seat, now);
    const won = showdown?.won.get(s.seat);
    if (won) el.classList.add("winner");

    const cards = document.createElement("div");
    cards.className = "cards";
    const showCards = revealNow && shown.cards ? revealCards(s.cards, shown.cards) : s.cards;
    for (const c of showCards) {
      const text = cardText(c.card);
      const hiddenFromOthers = Boolean(s.isHero && !c.up && parseCard(c.card) && !revealNow);
      // the winning cards light up; the rest of a winner's cards step back
      const highlight = Boolean(revealNow && won && shown.best.has(text));
      const dim = Boolean(revealNow && won && shown.best.size && !highlight);
      const cardEl = cardElement(c.card, { hiddenFromOthers, highlight, dim });
      cardEl.dataset.up = c.up ? "1" : "0";
      markChecked(cardEl, text, view.deal);
      const key = `${handKey}:${s.seat}:${text || "x"}:${cards.childElementCount}`;
      if (!this.known.has(key)) {
        this.known.add(key);
        cardEl.classList.add("deal-in");
      }
      cards.appendChild(cardEl);
    }
    if (this.known.size > 2000) this.known.clear();

    const plate = document.createElement("div");
    plate.className = "plate";
    plate.innerHTML =
      `<div class="name">${escapeHtml(s.name ?? `Seat ${s.seat}`)}${s.isBot ? ' <span class="bot-badge" title="a bot plays this seat">bot</span>' : ""}</div>` +
      `<div class="stack">${money(s.stack)}</div>`;
    const mucked = showdown && s.inHand && !s.folded && !shown && s.mucked;
    // a protected all-in (the clock rule) says so: chips behind, no claim on later bets
    const allIn = s.protected ? "All-in (protected)" : "All-in";
    // once his hand is over (or he is in none), sitting out is what the seat is doing
    const out = s.sittingOut && (!s.inHand || view.hand?.over || view.result);
    const owed = owedTag(s); // board games: "Waiting for BB" (blinds.js)
    const tag = mucked ? ["Mucked", ""] : out ? ["Sitting out", ""] : s.allIn ? [allIn, "allin"] : s.folded ? ["Folded", ""] : s.sittingOut ? ["Sitting out", ""] : s.leaving ? ["Leaving", ""] : owed ? [owed, "owes-bb"] : null;
    if (tag) {
      const t = document.createElement("span");
      t.className = `tag ${tag[1]}`;
      t.textContent = tag[0];
      plate.appendChild(t);
    }
    if (s.bringIn && !showdown && view.street === "third") {
      // on the plate of the seat that brought in, not out on the felt between two seats
      const marker = document.createElement("span");
      marker.className = "marker bring-in";
      marker.textContent = "Bring-in";
      marker.title = "Brought in";
      plate.appendChild(marker);
    }
    this.decorateSeat?.(plate, s);
    el.append(cards, plate);
    if (revealNow && shown.handName) {
      const hn = document.createElement("div");
      hn.className = "hand-name";
      hn.innerHTML = escapeHtml(shown.handName) + (won ? ` · <span class="won">+${money(won)}</span>` : "");
      el.appendChild(hn);
    } else if (won && (!shown || revealNow)) {
      const hn = document.createElement("div");
      hn.className = "hand-name";
      hn.innerHTML = `<span class="won">wins ${money(won)}</span>`;
      el.appendChild(hn);
    }
    return el;
  }

  renderCenter(view, showdown, revealing = false) {
    const c = this.centerEl;
    c.replaceChildren();
    if (view.pots.length && !showdown) {
      const pots = document.createElement("div");
      pots.className = "pots";
      for (const p of view.pots) {
        const el = document.createElement("div");
        el.className = "pot";
        el.title = "Gathered from the betting rounds before this one: this round's bets lie in front of the seats";
        el.innerHTML = `<span class="chip"></span><span class="label">${escapeHtml(p.label)}</span> ${money(p.amount)}`;
        pots.appendChild(el);
      }
      c.appendChild(pots);
    }
    const boardCards = view.board.length ? view.board : view.community;
    if (boardCards.length) {
      const board = document.createElement("div");
      board.className = "board";
      const best = new Set();
      if (showdown) for (const [seat, s] of showdown.shown) if (showdown.won.get(seat)) for (const b of s.best) best.add(b);
      for (const card of boardCards) {
        const cardEl = cardElement(card, { highlight: best.has(cardText(card)) });
        markChecked(cardEl, cardText(card), view.deal);
        board.appendChild(cardEl);
      }
      if (!view.board.length) {
        const label = document.createElement("div");
        label.className = "board-label";
        label.textContent = "Community card";
        c.appendChild(label);
      }
      c.appendChild(board);
    }
    if (showdown && showdown.lines.length && revealing) {
      const s = document.createElement("div");
      s.className = "street-label";
      s.textContent = streetName("showdown");
      c.appendChild(s);
    } else if (showdown && showdown.lines.length) {
      const banner = document.createElement("div");
      banner.className = "result-banner";
      banner.innerHTML = showdown.lines.join("<br>");
      c.appendChild(banner);
    } else if (view.street && view.hand) {
      const s = document.createElement("div");
      s.className = "street-label";
      s.textContent = streetName(view.street);
      c.appendChild(s);
    }
    if (!view.hand && !showdown) {
      const logo = document.createElement("div");
      logo.className = "logo";
      logo.textContent = view.gameName || "studpoker";
      c.appendChild(logo);
      const wait = document.createElement("div");
      wait.className = "street-label";
      const seated = view.seats.filter((s) => s.occupied && !s.sittingOut).length;
      wait.textContent = seated < 2 ? "Waiting for players…" : "Next hand soon…";
      c.appendChild(wait);
    }
    if (view.commitment?.hash && view.hand) {
      const line = document.createElement("div");
      line.className = "commit-line";
      line.title = "SHA-256 commitment to this hand's deck, published before the deal";
      line.textContent = `deck ${view.commitment.hash.slice(0, 16)}…`;
      c.appendChild(line);
    }
    if (view.hand && view.deal?.verifiable) c.append(...dealCheckElements(view.deal));
  }
}

/** A tick on a card whose opening checked out, a red mark on one whose opening failed. */
function markChecked(cardEl, text, deal) {
  const mark = text && deal?.cards.get(text);
  if (mark === "ok") {
    cardEl.classList.add("checked");
    cardEl.title = cardEl.title ? `${cardEl.title}; checked against the deck fixed before the deal` : "Checked against the deck fixed before the deal";
  } else if (mark === "bad") {
    cardEl.classList.add("check-failed");
    cardEl.title = "This card does not match the deck fixed before the deal";
  }
}

/**
 * The deal check in the centre: "✔ deal checked: 7 of 7 cards" (with the seed's verdict), and
 * a red warning naming each card (or the seed) that failed.
 */
export function dealCheckElements(deal) {
  const out = [];
  const badge = document.createElement("div");
  const failed = deal.failures.length > 0 || deal.seed?.state === "bad";
  const complete = deal.total > 0 && deal.checked === deal.total && !failed;
  badge.className = `deal-badge ${failed ? "bad" : complete ? "ok" : "partial"}`;
  const seed = deal.seed?.state === "ok" ? " · your seed is in" : "";
  badge.textContent = `${complete ? "✔ " : ""}deal checked: ${deal.checked} of ${deal.total} card${deal.total === 1 ? "" : "s"}${seed}`;
  badge.dataset.checked = deal.checked;
  badge.dataset.total = deal.total;
  badge.dataset.pending = deal.pendingCount;
  out.push(badge);
  const problems = [...deal.failures.map((f) => f.text), ...(deal.seed?.state === "bad" ? [deal.seed.text] : [])];
  if (problems.length) {
    const warn = document.createElement("div");
    warn.className = "deal-warning";
    warn.setAttribute("role", "alert");
    const first = deal.failures[0];
    warn.textContent = `✘ Deal check failed: ${problems.join("; ")}`;
    if (first) warn.dataset.card = first.card;
    out.push(warn);
  }
  return out;
}
