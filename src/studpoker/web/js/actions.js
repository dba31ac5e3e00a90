// The action bar: one button for each legal option the server offered (never more), with its
// amount and keyboard shortcut; when it is not your turn, the pre-action boxes.
//
// An option's amount is the player's total bet this round after the action (engine convention);
// "Call" shows the chips to add, the others show the total ("Raise to 20").

import { money } from "./format.js";

const KIND_ORDER = ["fold", "check", "call", "bring_in", "complete", "bet", "raise"];

/** The buttons for a list of legal options: [{kind, amount, label, key, style}]. */
export function buttonsFor(options, currentBet = 0) {
  const out = [];
  const sorted = [...options].sort(
    (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.amount ?? 0) - (b.amount ?? 0),
  );
  // Several options of one kind (the small or big bet on 4th street after an open pair) get
  // a "(small)" / "(big)" label on their buttons.
  const counts = {};
  for (const o of sorted) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
  const maxOf = {};
  for (const o of sorted) maxOf[o.kind] = Math.max(maxOf[o.kind] ?? 0, o.amount ?? 0);
  for (const o of sorted) {
    const choice = counts[o.kind] > 1;
    const big = choice && o.amount === maxOf[o.kind];
    out.push({ kind: o.kind, amount: o.amount ?? null, allIn: Boolean(o.all_in), ...labelFor(o.kind, o.amount, currentBet, big, choice) });
  }
  for (const b of out) if (b.allIn && b.kind !== "fold" && b.kind !== "check") b.label += " (all-in)";
  return out;
}

function labelFor(kind, amount, currentBet, big, choice) {
  const size = choice ? (big ? " (big)" : " (small)") : "";
  switch (kind) {
    case "fold":
      return { label: "Fold", key: "f", style: "fold" };
    case "check":
      return { label: "Check", key: "c", style: "passive" };
    case "call":
      return { label: `Call ${money(Math.max(0, (amount ?? 0) - currentBet))}`, key: "c", style: "passive" };
    case "bring_in":
      return { label: `Bring in ${money(amount)}`, key: "b", style: "passive" };
    case "complete":
      return { label: `Complete to ${money(amount)}`, key: "r", style: "aggressive" };
    case "bet":
      return { label: `Bet ${money(amount)}${size}`, key: big ? "g" : "r", style: big ? "big" : "aggressive" };
    case "raise":
      return { label: `Raise to ${money(amount)}${size}`, key: big ? "g" : "r", style: big ? "big" : "aggressive" };
    default:
      return { label: `${kind.replace(/_/g, " ")}${amount ? ` ${money(amount)}` : ""}`, key: "", style: "" };
  }
}

const PRE_ACTIONS = [
  ["check_fold", "Check/Fold"],
  ["call_any", "Call any"],
  ["fold", "Fold"],
];

export class ActionBar {
  constructor(root, { onAction }) {
    this.root = root;
    this.actionsEl = root.querySelector("#actions");
    this.preEl = root.querySelector("#pre-actions");
    this.onAction = onAction;
    this.buttons = [];
    this.pre = null; // the ticked pre-action
    this.handId = null;
    addEventListener("keydown", (e) => this.key(e));
    for (const [value, label] of PRE_ACTIONS) {
      const l = document.createElement("label");
      l.className = "check";
      l.innerHTML = `<input type="checkbox" data-pre="${value}"> ${label}`;
      l.querySelector("input").addEventListener("change", (e) => {
        this.pre = e.target.checked ? value : null;
        for (const box of this.preEl.querySelectorAll("input")) if (box !== e.target) box.checked = false;
      });
      this.preEl.appendChild(l);
    }
  }

  clearPre() {
    this.pre = null;
    for (const box of this.preEl.querySelectorAll("input")) box.checked = false;
  }

  /**
   * Show the bar for the view: buttons when the server offered us a turn, pre-action boxes when
   * we are in the hand waiting, a note otherwise. Returns true if a pre-action fired.
   */
  update(view) {
    const hero = view.seats.find((s) => s.isHero);
    if (view.handId !== this.handId) {
      this.handId = view.handId;
      this.clearPre();
    }
    const turn = view.yourTurn;
    if (turn && hero) {
      this.preEl.hidden = true;
      const buttons = buttonsFor(turn.options, hero.bet ?? 0);
      const pre = this.pre && this.choosePre(buttons);
      this.clearPre();
      if (pre) {
        this.show([]);
        this.onAction(pre);
        return true;
      }
      this.show(buttons);
      return false;
    }
    this.show([]);
    const inHand = hero && hero.inHand && !hero.folded && !hero.allIn && view.hand && !view.result;
    this.preEl.hidden = !inHand;
    if (!inHand) {
      const note = document.createElement("span");
      note.className = "wait";
      note.textContent = !hero ? (view.heroSeat === null ? "Watching: pick an empty seat to play" : "") : hero.sittingOut ? "You are sitting out" : view.result ? "" : hero.folded ? "Folded: wait for the next hand" : hero.allIn ? "All-in" : "Waiting for the next hand…";
      this.actionsEl.replaceChildren(note);
    }
    return false;
  }

  choosePre(buttons) {
    const find = (kind) => buttons.find((b) => b.kind === kind);
    if (this.pre === "check_fold") return find("check") ?? find("fold");
    if (this.pre === "call_any") return find("check") ?? find("call") ?? find("bring_in");
    if (this.pre === "fold") return find("check") ? null : find("fold");
    return null;
  }

  show(buttons) {
    this.buttons = buttons;
    const used = new Set();
    const els = buttons.map((b) => {
      const btn = document.createElement("button");
      btn.type = "button";
      btn.className = `act ${b.style}`;
      btn.dataset.kind = b.kind;
      if (b.amount !== null && b.amount !== undefined) btn.dataset.amount = b.amount;
      const key = b.key && !used.has(b.key) ? b.key : "";
      if (key) used.add(key);
      b.boundKey = key;
      btn.innerHTML = `${b.label}${key ? `<span class="key">${key.toUpperCase()}</span>` : ""}`;
      btn.addEventListener("click", () => this.fire(b));
      return btn;
    });
    this.actionsEl.replaceChildren(...els);
  }

  fire(b) {
    if (!this.buttons.includes(b)) return;
    this.show([]);
    this.onAction(b);
  }

  key(e) {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    const b = this.buttons.find((x) => x.boundKey === k);
    if (b) {
      e.preventDefault();
      this.fire(b);
    }
  }
}
