// The replayer's action list (replayer.js): each step as a line, with the table's words for a
// decision under it (its `notes`: the time bank used, what the clock did, the day's protected
// all-ins), and the same words under the player's plate while the step is shown. `r` is the
// Replayer: its hand, its amounts and its names.

import { cardsHtml } from "./cards.js";
import { escapeHtml, streetName } from "./format.js";

const VERBS = { fold: "folds", check: "checks", call: "calls", bring_in: "brings in for", complete: "completes to", bet: "bets", raise: "raises to" };

/** A decision's notes under its player's plate, his name (the plate has it) left out. */
export function plateNote(r, seat, notes) {
  const name = `${r.nameOf(seat)} `;
  const note = document.createElement("div");
  note.className = "timeout-note replay-note";
  note.textContent = notes.map((n) => (n.startsWith(name) ? n.slice(name.length) : n)).join("; ");
  note.title = notes.join("\n");
  return note;
}

/** One step as a line of the action list (HTML), with its notes under it. */
export function stepText(r, step) {
  const notes = step.notes.map((n) => `<div class="replay-note muted small">${escapeHtml(n)}</div>`).join("");
  return stepLine(r, step) + notes;
}

function stepLine(r, step) {
  const who = (seat) => `<b>${escapeHtml(r.nameOf(seat))}</b>`;
  const pots = r.hand.result?.pots ?? [];
  const events = step.events;
  switch (step.kind) {
    case "post":
      return events
        .filter((e) => e.kind === "post_ante" || e.kind === "post_blind")
        .map((e) => `${who(e.seat)} posts ${e.kind === "post_ante" ? "the ante" : `the ${e.detail} blind`} ${escapeHtml(r.amount(e.amount))}`)
        .join(", ");
    case "deal": {
      const board = events.filter((e) => e.kind === "deal_board").flatMap((e) => e.cards ?? []);
      const mine = events.filter((e) => e.kind === "deal" && e.seat === r.hand.viewer).flatMap((e) => e.cards ?? []);
      const shown = board.length ? ` ${cardsHtml(board)}` : mine.length ? ` · you get ${cardsHtml(mine)}` : "";
      return `<span class="street">${escapeHtml(streetName(step.street))}</span>${shown}`;
    }
    case "action": {
      const amount = step.action === "call" ? step.added : step.amount;
      const paid = ["fold", "check"].includes(step.action) ? "" : ` ${escapeHtml(r.amount(amount))}`;
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
      return `Uncalled ${escapeHtml(r.amount(step.amount))} returned to ${who(step.seat)}`;
    case "award":
      return events
        .filter((e) => e.kind === "award")
        .map((e) => {
          const pot = pots.length > 1 ? (e.pot === 0 ? " from the main pot" : ` from side pot ${e.pot}`) : "";
          const half = e.detail === "high" || e.detail === "low" ? ` (${e.detail})` : "";
          return `${who(e.seat)} wins ${escapeHtml(r.amount(e.amount))}${pot}${half}`;
        })
        .join("; ");
    default:
      return escapeHtml(step.kind);
  }
}
