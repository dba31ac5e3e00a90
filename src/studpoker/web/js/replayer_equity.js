// The replayer's equity panel (replayer.js): each live player's equity at the step shown (the
// latest street's, from the cards the viewer saw), how it was worked out, or why there is none.
// `r` is the Replayer.

import { escapeHtml, streetName } from "./format.js";

/** Equity as a percentage with one decimal ("37.2%"). */
export function percent(value) {
  return `${(value * 100).toFixed(1)}%`;
}

/** How the equity was worked out: "exact", "sampled 100,000 deals", "result". */
export function methodText(equity) {
  if (equity.method === "result") return "result: the share of the pots each player won";
  return equity.exact ? "exact" : `sampled ${equity.deals.toLocaleString("en-US")} deals`;
}

export function renderEquity(r) {
  const box = r.$("#replay-equity");
  const at = r.equityNow();
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
        `<span class="who">${escapeHtml(r.nameOf(p.seat))}</span>` +
        `<span class="equity-bar"><span style="width:${(p.equity * 100).toFixed(1)}%"></span></span>` +
        `<span class="pct">${percent(p.equity)}</span>${split}</div>`
      );
    })
    .join("");
  box.innerHTML =
    `<div class="equity-when small">at ${escapeHtml(when)}, from the cards ${r.hand.sees === "everything" ? "the file gives" : r.hand.sees === "watcher" ? "a watcher saw" : "you saw"}</div>` +
    rows +
    `<div class="equity-method small muted" data-equity-method="${escapeHtml(at.equity.method)}">${escapeHtml(methodText(at.equity))}</div>`;
}
