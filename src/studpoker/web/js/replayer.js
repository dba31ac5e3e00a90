// The hand replayer: #/replay/ID (a hand you played, from your seat), #/replay (a PHH or
// PokerStars file dropped on the page or picked) and #/hand/ID (a finished hand's public view,
// no login). The server builds the steps (server/replays.py): the table after each step as the
// viewer saw it, and each street's equity from the cards he saw; this module draws them and
// steps through them (buttons, arrow keys, play/pause), with the action list beside the table.
// A decision's step says what the table said of it (its `notes`: the time bank used, what the
// clock did), under its line in the list and under the player's plate while it is shown.

import { api, getToken } from "./api.js";
import { cardElement, cardsHtml } from "./cards.js";
import { escapeHtml, money, streetName } from "./format.js";
import { drawnPots } from "./state.js";
import { seatPosition } from "./table.js";

const PLAY_MS = 1100; // one step per tick while playing

const VERBS = { fold: "folds", check: "checks", call: "calls", bring_in: "brings in for", complete: "completes to", bet: "bets", raise: "raises to" };

/** A seat's cards in dealing order: in stud two down, the up cards, then the 7th-street card. */
function seatCards(s) {
  const down = s.down.map((card) => ({ card, up: false }));
  return [...down.slice(0, 2), ...s.up.map((card) => ({ card, up: true })), ...down.slice(2)];
}

/** Equity as a percentage with one decimal ("37.2%"). */
function percent(value) {
  return `${(value * 100).toFixed(1)}%`;
}

/** How the equity was worked out: "exact", "sampled 100,000 deals", "result". */
export function methodText(equity) {
  if (equity.method === "result") return "result: the share of the pots each player won";
  return equity.exact ? "exact" : `sampled ${equity.deals.toLocaleString("en-US")} deals`;
}

export class Replayer {
  constructor(root) {
    this.root = root;
    this.$ = (sel) => root.querySelector(sel);
    this.hands = []; // the replays (one hand, or a dropped file's hands)
    this.hand = null; // the replay shown
    this.index = 0; // the step shown
    this.timer = null;
    this.file = null; // a dropped file, kept to ask for one hand's full equity
    this.serial = 0; // answers to an older request are dropped
    this.$("#replay-first").addEventListener("click", () => this.go(0));
    this.$("#replay-prev").addEventListener("click", () => this.go(this.index - 1));
    this.$("#replay-next").addEventListener("click", () => this.go(this.index + 1));
    this.$("#replay-last").addEventListener("click", () => this.go(Infinity));
    this.$("#replay-play").addEventListener("click", () => (this.timer ? this.pause() : this.play()));
    this.$("#replay-hand").addEventListener("change", (e) => this.select(Number(e.target.value)));
    this.$("#replay-actions").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-step]");
      if (li) this.go(Number(li.dataset.step));
    });
    const input = this.$("#replay-file");
    input.addEventListener("change", () => input.files[0] && this.openFile(input.files[0]));
    const drop = this.$("#replay-drop");
    for (const type of ["dragenter", "dragover"]) {
      drop.addEventListener(type, (e) => {
        e.preventDefault();
        drop.classList.add("dragging");
      });
    }
    drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("dragging");
      const file = e.dataTransfer?.files?.[0];
      if (file) this.openFile(file);
    });
    document.addEventListener("keydown", (e) => this.onKey(e));
    addEventListener("resize", () => this.hand && !this.root.hidden && this.render());
  }

  // ------------------------------------------------------------------------------ opening

  /** A hand the logged-in player played, from his seat. */
  async openHand(handId) {
    this.reset({ drop: false, title: `Hand ${handId.slice(0, 8)}` });
    if (!getToken()) {
      this.message("Log in to replay the hands you played (the public view of a hand needs no account).");
      return;
    }
    await this.load(() => api.replay(handId), (data) => ({ hands: [data] }));
  }

  /** A finished hand as a watcher saw it: anyone may open it. */
  async openPublic(handId) {
    this.reset({ drop: false, title: `Hand ${handId.slice(0, 8)} · public view` });
    await this.load(() => api.publicHand(handId), (data) => ({ hands: [data.replay], extras: data }));
  }

  /** The drop zone, waiting for a file. */
  openDrop() {
    this.file = null;
    this.reset({ drop: true, title: "Replay a hand history" });
  }

  async openFile(file) {
    this.file = file;
    this.reset({ drop: true, title: file.name });
    await this.load(() => api.replayFile(file), (data) => ({ hands: data.hands, problems: data.problems }));
  }

  async load(fetcher, unpack) {
    const serial = ++this.serial;
    this.message("Replaying the hand and working out each street's equity…");
    let data;
    try {
      data = await fetcher();
    } catch (err) {
      if (serial === this.serial) this.message(err.message, true);
      return;
    }
    if (serial !== this.serial) return;
    const { hands, problems = [], extras = null } = unpack(data);
    this.hands = hands;
    this.message("");
    this.renderProblems(problems);
    this.renderExtras(extras);
    const select = this.$("#replay-hand");
    select.replaceChildren(
      ...hands.map((h, i) => {
        const option = document.createElement("option");
        option.value = String(i);
        option.textContent = `#${h.hand} · ${h.game_name}${h.table ? ` · ${h.table}` : ""}`;
        return option;
      }),
    );
    this.$("#replay-pick").hidden = hands.length < 2;
    this.select(0);
  }

  /** Show hand `i` of the list; a dropped file's hand without all its equity is asked for alone. */
  async select(i) {
    this.pause();
    this.hand = this.hands[i];
    this.$("#replay-hand").value = String(i);
    this.$("#replay-body").hidden = false;
    this.go(0);
    const hand = this.hand;
    if (!hand.equity_complete && this.file && hand.number) {
      const serial = this.serial;
      try {
        const data = await api.replayFile(this.file, hand.number);
        if (serial !== this.serial || this.hands[i] !== hand) return;
        this.hands[i] = data.hands[0];
        if (this.hand === hand) {
          this.hand = this.hands[i];
          this.render();
        }
      } catch {
        // the steps are there; only some equity is missing (it says so)
      }
    }
  }

  reset({ drop, title }) {
    this.pause();
    this.serial++;
    this.hands = [];
    this.hand = null;
    if (!drop) this.file = null;
    this.$("#replay-drop").hidden = !drop;
    this.$("#replay-drop").classList.toggle("compact", Boolean(this.file)); // a file is open: room for the table
    this.$("#replay-body").hidden = true;
    this.$("#replay-title").textContent = title;
    this.$("#replay-sees").textContent = "";
    this.$("#replay-problems").replaceChildren();
    this.$("#replay-extras").replaceChildren();
    this.message("");
    document.title = `studpoker: ${title}`;
  }

  /** Leaving the view: stop playing. */
  close() {
    this.pause();
    this.root.hidden = true;
  }

  message(text, error = false) {
    const el = this.$("#replay-message");
    el.textContent = text;
    el.classList.toggle("error", error);
    el.hidden = !text;
  }

  renderProblems(problems) {
    const box = this.$("#replay-problems");
    if (!problems.length) return box.replaceChildren();
    box.innerHTML =
      `<details class="replay-problem-list"><summary>${problems.length} hand${problems.length === 1 ? "" : "s"} left out</summary>` +
      `<ul>${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul></details>`;
  }

  /** The public view's PHH copy (a download) and readable text. */
  renderExtras(extras) {
    const box = this.$("#replay-extras");
    box.replaceChildren();
    if (!extras) return;
    const a = document.createElement("a");
    a.className = "small download-phh";
    a.textContent = "Download PHH (a watcher's copy)";
    a.download = `hand-${extras.id}.phh`;
    a.href = URL.createObjectURL(new Blob([extras.phh], { type: "text/plain" }));
    const details = document.createElement("details");
    details.innerHTML = `<summary class="small">The hand's text</summary><pre class="replay-text">${escapeHtml(extras.text)}</pre>`;
    box.append(a, details);
  }

  // ------------------------------------------------------------------------------ stepping

  go(index) {
    if (!this.hand) return;
    const last = this.hand.steps.length - 1;
    this.index = Math.max(0, Math.min(last, index));
    if (this.index === last) this.pause();
    this.render();
  }

  play() {
    if (!this.hand) return;
    if (this.index >= this.hand.steps.length - 1) this.index = -1;
    this.timer = setInterval(() => this.go(this.index + 1), PLAY_MS);
    this.go(this.index + 1);
    this.$("#replay-play").textContent = "Pause";
    this.$("#replay-play").title = "Pause (space)";
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    const button = this.$("#replay-play");
    button.textContent = "Play";
    button.title = "Play (space)";
  }

  onKey(e) {
    if (this.root.hidden || !this.hand || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest?.("input, select, textarea")) return;
    const moves = { ArrowLeft: () => this.go(this.index - 1), ArrowRight: () => this.go(this.index + 1), Home: () => this.go(0), End: () => this.go(Infinity) };
    if (moves[e.key]) {
      e.preventDefault();
      moves[e.key]();
    } else if (e.key === " ") {
      e.preventDefault();
      if (this.timer) this.pause();
      else this.play();
    }
  }

  // ------------------------------------------------------------------------------ drawing

  amount(units) {
    const h = this.hand;
    if (units === null || units === undefined) return "";
    if (h.units === "chips") return Number(units).toLocaleString("en-US");
    return `${h.currency_symbol ?? ""}${money(units)}`;
  }

  nameOf(seat) {
    return this.hand.players.find((p) => p.seat === seat)?.name ?? `Seat ${seat}`;
  }

  /** The latest equity at or before the step shown, and the step it belongs to. */
  equityNow() {
    for (let i = this.index; i >= 0; i--) {
      const step = this.hand.steps[i];
      if (step.equity || step.equity_note) return step;
    }
    return null;
  }

  render() {
    const h = this.hand;
    const step = h.steps[this.index];
    this.root.dataset.step = String(this.index);
    this.root.dataset.steps = String(h.steps.length);
    this.root.dataset.hand = h.hand;
    const last = this.index === h.steps.length - 1;
    this.$("#replay-position").textContent = `step ${this.index + 1} of ${h.steps.length}`;
    this.$("#replay-street").textContent = last && h.result?.showdown ? "Showdown" : streetName(step.street);
    this.$("#replay-street").dataset.street = step.street;
    this.$("#replay-first").disabled = this.$("#replay-prev").disabled = this.index === 0;
    this.$("#replay-next").disabled = this.$("#replay-last").disabled = last;
    const sees = { seat: `as ${this.nameOf(h.viewer)} saw it`, watcher: "as a watcher saw it", everything: "every card the file gives" }[h.sees];
    this.$("#replay-sees").textContent = `${h.game_name} · ${sees}`;
    this.renderTable(step, last);
    this.renderEquity();
    this.renderActions();
  }

  renderTable(step, last) {
    const h = this.hand;
    const table = this.$("#replay-table");
    const narrow = table.clientWidth < 560 || matchMedia("(max-width: 720px)").matches;
    const n = h.max_seats;
    const bottom = h.viewer ?? h.players[0]?.seat ?? 1;
    const equity = this.equityNow()?.equity;
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
        `<div class="name">${escapeHtml(this.nameOf(s.seat))}</div><div class="stack">${escapeHtml(this.amount(s.stack))}</div>` +
        (tag ? `<span class="tag ${tag === "All-in" ? "allin" : ""}">${tag}</span>` : "");
      el.append(cards, plate);
      if (step.seat === s.seat && step.notes.length) plate.appendChild(this.plateNote(s.seat, step.notes));
      if (share.has(s.seat)) {
        const bar = document.createElement("div");
        bar.className = "replay-seat-equity";
        bar.innerHTML = `<span style="width:${(share.get(s.seat) * 100).toFixed(1)}%"></span><b>${percent(share.get(s.seat))}</b>`;
        el.appendChild(bar);
      }
      if (last && (won.get(s.seat) || (shownNow.has(s.seat) && names.get(s.seat)))) {
        const hn = document.createElement("div");
        hn.className = "hand-name";
        hn.innerHTML = [names.get(s.seat) ? escapeHtml(names.get(s.seat)) : "", won.get(s.seat) ? `<span class="won">+${escapeHtml(this.amount(won.get(s.seat)))}</span>` : ""].filter(Boolean).join(" · ");
        el.appendChild(hn);
      }
      frag.appendChild(el);
      if (s.bet > 0 && !last) {
        const bet = document.createElement("div");
        bet.className = "bet";
        bet.style.left = `${50 + (pos.x - 50) * 0.58}%`;
        bet.style.top = `${50 + (pos.y - 50) * 0.5}%`;
        bet.innerHTML = `<span class="chip"></span>${escapeHtml(this.amount(s.bet))}`;
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
    this.$("#replay-seats").replaceChildren(frag);
    this.renderCenter(step, last);
  }

  /** The pots of the last step up to `step` with no bet in front of any seat (none: no pot yet). */
  gatheredPots(step) {
    const steps = this.hand.steps;
    for (let i = steps.indexOf(step); i >= 0; i--) {
      if (steps[i].seats.every((s) => !s.bet)) return steps[i].pots;
    }
    return [];
  }

  renderCenter(step, last) {
    const h = this.hand;
    const c = this.$("#replay-center");
    c.replaceChildren();
    if (!last) {
      // the pots in the middle: those a step carried (server/replays.py) when no bet was out, at
      // this street's start (a step's own pots count the bets in front of the seats too)
      const pots = drawnPots(this.gatheredPots(step));
      if (pots.length) {
        const box = document.createElement("div");
        box.className = "pots";
        for (const p of pots) {
          const el = document.createElement("div");
          el.className = "pot";
          el.innerHTML = `<span class="chip"></span><span class="label">${escapeHtml(p.label)}</span> ${escapeHtml(this.amount(p.amount))}`;
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
          const shares = pot.shares.map((s) => `${escapeHtml(this.nameOf(s.seat))} wins <b>${escapeHtml(this.amount(s.amount))}</b>${s.half === "high" || s.half === "low" ? ` (${s.half})` : ""}`);
          return `${label} ${escapeHtml(this.amount(pot.amount))}: ${shares.join(", ")}`;
        })
        .join("<br>") + (h.rake ? `<br><span class="muted">rake ${escapeHtml(this.amount(h.rake))}</span>` : "");
      c.appendChild(banner);
    } else {
      const label = document.createElement("div");
      label.className = "street-label";
      label.textContent = streetName(step.street);
      c.appendChild(label);
    }
  }

  renderEquity() {
    const box = this.$("#replay-equity");
    const at = this.equityNow();
    if (!at) {
      box.innerHTML = `<p class="muted small">Each player's equity appears once the cards are dealt.</p>`;
      return;
    }
    const when = at.equity?.method === "result" ? "the result" : at.kind === "expose" ? "the hands turned up" : streetName(at.street);
    if (!at.equity) {
      box.innerHTML = `<p class="muted small">${escapeHtml(when)}: ${escapeHtml(at.equity_note)}</p>`;
      return;
    }
    const rows = at.equity.players
      .map((p) => {
        const split = p.high !== null && p.low !== null ? `<span class="muted small"> high ${percent(p.high)} · low ${percent(p.low)}</span>` : "";
        return (
          `<div class="equity-row" data-seat="${p.seat}" data-equity="${p.equity}">` +
          `<span class="who">${escapeHtml(this.nameOf(p.seat))}</span>` +
          `<span class="equity-bar"><span style="width:${(p.equity * 100).toFixed(1)}%"></span></span>` +
          `<span class="pct">${percent(p.equity)}</span>${split}</div>`
        );
      })
      .join("");
    box.innerHTML =
      `<div class="equity-when small">at ${escapeHtml(when)}, from the cards ${this.hand.sees === "everything" ? "the file gives" : this.hand.sees === "watcher" ? "a watcher saw" : "you saw"}</div>` +
      rows +
      `<div class="equity-method small muted" data-equity-method="${escapeHtml(at.equity.method)}">${escapeHtml(methodText(at.equity))}</div>`;
  }

  renderActions() {
    const list = this.$("#replay-actions");
    const h = this.hand;
    if (list.dataset.hand !== `${h.hand}:${this.hands.indexOf(h)}` || list.childElementCount !== h.steps.length) {
      list.dataset.hand = `${h.hand}:${this.hands.indexOf(h)}`;
      list.innerHTML = h.steps.map((s) => `<li data-step="${s.index}" data-kind="${s.kind}">${this.stepText(s)}</li>`).join("");
    }
    for (const li of list.children) {
      li.classList.toggle("current", Number(li.dataset.step) === this.index);
      li.classList.toggle("future", Number(li.dataset.step) > this.index);
    }
    // keep the current line in sight by scrolling the list only (not the page)
    const li = list.children[this.index];
    const box = list;
    if (li && box.scrollHeight > box.clientHeight) {
      const line = li.getBoundingClientRect();
      const frame = box.getBoundingClientRect();
      if (line.top < frame.top) box.scrollTop -= frame.top - line.top;
      else if (line.bottom > frame.bottom) box.scrollTop += line.bottom - frame.bottom;
    }
  }

  /** A decision's notes under its player's plate, his name (the plate has it) left out. */
  plateNote(seat, notes) {
    const name = `${this.nameOf(seat)} `;
    const note = document.createElement("div");
    note.className = "timeout-note replay-note";
    note.textContent = notes.map((n) => (n.startsWith(name) ? n.slice(name.length) : n)).join("; ");
    note.title = notes.join("\n");
    return note;
  }

  /** One step as a line of the action list (HTML), with its notes under it. */
  stepText(step) {
    const notes = step.notes.map((n) => `<div class="replay-note muted small">${escapeHtml(n)}</div>`).join("");
    return this.stepLine(step) + notes;
  }

  stepLine(step) {
    const who = (seat) => `<b>${escapeHtml(this.nameOf(seat))}</b>`;
    const pots = this.hand.result?.pots ?? [];
    const events = step.events;
    switch (step.kind) {
      case "post":
        return events
          .filter((e) => e.kind === "post_ante" || e.kind === "post_blind")
          .map((e) => `${who(e.seat)} posts ${e.kind === "post_ante" ? "the ante" : `the ${e.detail} blind`} ${escapeHtml(this.amount(e.amount))}`)
          .join(", ");
      case "deal": {
        const board = events.filter((e) => e.kind === "deal_board").flatMap((e) => e.cards ?? []);
        const mine = events.filter((e) => e.kind === "deal" && e.seat === this.hand.viewer).flatMap((e) => e.cards ?? []);
        const shown = board.length ? ` ${cardsHtml(board)}` : mine.length ? ` · you get ${cardsHtml(mine)}` : "";
        return `<span class="street">${escapeHtml(streetName(step.street))}</span>${shown}`;
      }
      case "action": {
        const amount = step.action === "call" ? step.added : step.amount;
        const paid = ["fold", "check"].includes(step.action) ? "" : ` ${escapeHtml(this.amount(amount))}`;
        // a timeout's words are in the step's notes ("bob timed out: folded")
        return `${who(step.seat)} ${VERBS[step.action] ?? escapeHtml(step.action)}${paid}${step.all_in ? " and is all-in" : ""}`;
      }
      case "timeout":
        return `${who(step.seat)} is all-in under disconnect protection`;
      case "expose":
        return "The hands are turned up for the all-in run-out";
      case "show": {
        const e = events.find((x) => x.kind === "show");
        return `${who(step.seat)} shows ${cardsHtml(e?.cards ?? [])}${e?.detail ? ` (${escapeHtml(e.detail)})` : ""}`;
      }
      case "muck":
        return `${who(step.seat)} mucks`;
      case "return":
        return `Uncalled ${escapeHtml(this.amount(step.amount))} returned to ${who(step.seat)}`;
      case "award":
        return events
          .filter((e) => e.kind === "award")
          .map((e) => {
            const pot = pots.length > 1 ? (e.pot === 0 ? " from the main pot" : ` from side pot ${e.pot}`) : "";
            const half = e.detail === "high" || e.detail === "low" ? ` (${e.detail})` : "";
            return `${who(e.seat)} wins ${escapeHtml(this.amount(e.amount))}${pot}${half}`;
          })
          .join("; ");
      default:
        return escapeHtml(step.kind);
    }
  }
}
