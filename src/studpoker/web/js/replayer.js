// The hand replayer: #/replay/ID (a hand you played, from your seat), #/replay (a PHH or
// PokerStars file dropped on the page or picked) and #/hand/ID (a finished hand's public view,
// no login). The server builds the steps (server/replays.py): the table after each step as the
// viewer saw it, and each street's equity from the cards he saw; this module draws them and
// steps through them (buttons, arrow keys, play/pause), with the action list beside the table.
// A decision's step says what the table said of it (its `notes`: the time bank used, what the
// clock did), under its line in the list and under the player's plate while it is shown.
// The drawing is in replayer_table.js (the table), replayer_equity.js (the equity panel) and
// replayer_steps.js (the action list and the notes).

import { api, getToken } from "./api.js";
import { escapeHtml, money, streetName } from "./format.js";
import { renderEquity } from "./replayer_equity.js";
import { stepText } from "./replayer_steps.js";
import { renderTable } from "./replayer_table.js";

export { methodText } from "./replayer_equity.js";

const PLAY_MS = 1100; // one step per tick while playing

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
    renderTable(this, step, last);
    renderEquity(this);
    this.renderActions();
  }

  renderActions() {
    const list = this.$("#replay-actions");
    const h = this.hand;
    if (list.dataset.hand !== `${h.hand}:${this.hands.indexOf(h)}` || list.childElementCount !== h.steps.length) {
      list.dataset.hand = `${h.hand}:${this.hands.indexOf(h)}`;
      list.innerHTML = h.steps.map((s) => `<li data-step="${s.index}" data-kind="${s.kind}">${stepText(this, s)}</li>`).join("");
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
}
