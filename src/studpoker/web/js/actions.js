// The action bar: one button for each legal option the server offered (never more), with its
// amount and keyboard shortcut; when it is not your turn, the pre-action boxes.
//
// An option's amount is the player's total bet this round after the action (engine convention);
// "Call" shows the chips to add, the others show the total ("Raise to 20").

import { money } from "./format.js";
import { ignoreKey, keyFor } from "./shortcuts.js";

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
      return { label: "Fold", key: keyFor("fold"), style: "fold" };
    case "check":
      return { label: "Check", key: keyFor("call"), style: "passive" };
    case "call":
      return { label: `Call ${money(Math.max(0, (amount ?? 0) - currentBet))}`, key: keyFor("call"), style: "passive" };
    case "bring_in":
      return { label: `Bring in ${money(amount)}`, key: keyFor("bring_in"), style: "passive" };
    case "complete":
      return { label: `Complete to ${money(amount)}`, key: keyFor("raise"), style: "aggressive" };
    case "bet":
      return { label: `Bet ${money(amount)}${size}`, key: keyFor(big ? "raise_big" : "raise"), style: big ? "big" : "aggressive" };
    case "raise":
      return { label: `Raise to ${money(amount)}${size}`, key: keyFor(big ? "raise_big" : "raise"), style: big ? "big" : "aggressive" };
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
  constructor(root, { onAction, keys = () => true }) {
    this.root = root;
    // by class (the tile view has one bar per table: tiles.js), or by id
    this.actionsEl = root.querySelector(".actions, #actions");
    this.preEl = root.querySelector(".pre-actions, #pre-actions");
    this.onAction = onAction;
    this.keys = keys; // whether this bar takes the keyboard now (in tiles: the table that needs you)
    this.buttons = [];
    this.pre = null; // the ticked pre-action
    this.handId = null;
    this.keyboard = new AbortController(); // let go by dispose()
    addEventListener("keydown", (e) => this.key(e), { signal: this.keyboard.signal });
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

  /** Let the page's keyboard go (a closed tile's bar): its keys act nowhere any more. */
  dispose() {
    this.keyboard.abort();
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
      // (sitting out, and leaving, are said by the seat controls below: SeatControls)
      note.textContent = !hero ? (view.heroSeat === null ? "Watching: pick an empty seat to play" : "") : hero.sittingOut ? "" : view.result ? "" : hero.folded ? "Folded: wait for the next hand" : hero.allIn ? "All-in" : "Waiting for the next hand…";
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
    // the keys are the account's (shortcuts.js); none while typing or in a dialog
    if (ignoreKey(e)) return;
    // nor through a bar that is not on screen (the phone's open history panel hides it)
    if (!this.root.getClientRects().length || !this.keys()) return;
    const k = e.key.toLowerCase();
    const b = this.buttons.find((x) => x.boundKey === k);
    if (b) {
      e.preventDefault();
      this.fire(b);
    }
  }
}

// ------------------------------------------------------------------------------ the seat's own state

/**
 * What your seat goes through, from the server's seat list (protocol 1.6): a line saying it
 * ("You leave after this hand", "You timed out: sitting out"), the two boxes every room has
 * (Sit out next hand, Leave after this hand), and at your own seat a big I'm back button while
 * you sit out. The boxes show the server's flags; a click shows at once and stands until the
 * server's seat list says so (or a few seconds, if it refused).
 */
export class SeatControls {
  constructor(root, { send }) {
    this.send = send; // (message without table_id) => sent?
    this.pending = new Map(); // box -> {value, at}: clicked, not yet in the seat list
    this.el = document.createElement("div");
    this.el.id = "seat-options";
    this.el.className = "seat-options";
    this.el.hidden = true;
    this.el.innerHTML =
      '<span id="seat-notice" class="seat-notice" role="status" aria-live="polite"></span>' +
      '<label class="check"><input type="checkbox" id="sit-out-next"> Sit out next hand</label>' +
      '<label class="check"><input type="checkbox" id="leave-next"> Leave after this hand</label>';
    root.appendChild(this.el);
    this.notice = this.el.querySelector("#seat-notice");
    this.boxes = { sitOut: this.el.querySelector("#sit-out-next"), leave: this.el.querySelector("#leave-next") };
    this.boxes.sitOut.addEventListener("change", (e) => this.toggle("sitOut", e.target.checked, { type: e.target.checked ? "sit_out" : "sit_in" }));
    this.boxes.leave.addEventListener("change", (e) => this.toggle("leave", e.target.checked, { type: "leave_after_hand", leave: e.target.checked }));
  }

  toggle(box, value, message) {
    if (!this.send(message)) {
      this.boxes[box].checked = !value; // not sent: nothing changes
      return;
    }
    this.pending.set(box, { value, at: Date.now() });
  }

  /** The server's word for each box, unless a click of the last few seconds says otherwise. */
  shown(box, server) {
    const click = this.pending.get(box);
    if (!click) return server;
    if (click.value === server || Date.now() - click.at > 4000) {
      this.pending.delete(box);
      return server;
    }
    return click.value;
  }

  update(view) {
    const hero = view.seats.find((s) => s.isHero && s.occupied);
    this.el.hidden = !hero;
    if (!hero) {
      this.pending.clear();
      return;
    }
    this.boxes.sitOut.checked = this.shown("sitOut", hero.sittingOut || hero.sitOutNextHand);
    this.boxes.leave.checked = this.shown("leave", hero.leaving);
    this.notice.textContent = seatNotice(hero, view);
    this.notice.hidden = !this.notice.textContent;
  }

  /** Your own seat, while you sit out: a big I'm back. Any seat the clock played for: its words. */
  decoratePlate(plate, seat) {
    if (seat.isHero && seat.sittingOut) {
      const back = document.createElement("button");
      back.type = "button";
      back.className = "im-back primary";
      back.textContent = "I'm back";
      back.title = "Sit in again: you are dealt into the next hand";
      back.addEventListener("click", () => this.send({ type: "sit_in" }));
      plate.appendChild(back);
    }
    const words = seat.timeout?.text;
    if (words) {
      const note = document.createElement("div");
      note.className = "timeout-note";
      // the plate has his name already: "timed out: protected all-in (1 of 2 today)"
      const name = seat.name ?? "";
      note.textContent = name && words.startsWith(`${name} `) ? words.slice(name.length + 1) : words;
      note.title = words;
      plate.appendChild(note);
    }
  }
}

/** The line that says what your seat is doing, from the seat list's flags. */
export function seatNotice(hero, view) {
  const playing = Boolean(hero.inHand && view.hand && !view.result);
  if (hero.leaving) return playing ? "You leave after this hand" : "You are leaving the table";
  if (hero.sitOutNextHand) return "You sit out from the next hand";
  if (hero.sittingOut && hero.timedOut) return "You timed out and are sitting out: press I'm back to play the next hand";
  if (hero.sittingOut) return "You are sitting out: press I'm back to play";
  return "";
}
