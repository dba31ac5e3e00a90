// The page's one History panel (#history, history.js) shared by the single table and the tiles:
// each tile keeps its own table's finished hands, and the tile's History button shows them in
// the same panel, over that tile; the single table's page keeps the hands it saw, as before.
// Only the panel on show draws into the page, so a hand checked late at one table never lands in
// another table's list.

import { visibleCards } from "./deal_check.js";
import { HistoryPanel } from "./history.js";

/** One table's hands (or the single page's): a HistoryPanel that draws only while it is shown. */
class SharedPanel extends HistoryPanel {
  constructor(root, board, title) {
    super(root);
    this.board = board;
    this.title = title;
  }

  render() {
    if (this.board.shown === this) super.render();
  }
}

/** What the History panel records of a finished hand at table state `st` (the deal check's facts). */
export function finishedHand(st, msg, seeds) {
  const names = Object.fromEntries(st.seats.map((s) => [s.seat, s.name]));
  const dealtIn = Boolean(st.yourSeat && st.handSeats?.includes(st.yourSeat));
  const visible = st.hand ? visibleCards(st.hand, st.yourSeat, msg.result) : null;
  const live = {
    deal: st.deal?.handId === msg.hand_id ? st.deal : null,
    mine: (visible ?? []).filter((v) => v.mine).map((v) => v.card),
    seen: visible?.map((v) => v.card) ?? null,
    sent: seeds.recordFor(st.myAccount, msg.hand_id),
    seat: st.yourSeat,
    handSeats: st.handSeats ?? null,
  };
  return { dealtIn, names, live };
}

export class Histories {
  constructor(root) {
    this.root = root;
    this.home = root.parentElement; // the single table's layout, where the panel lives
    this.after = root.nextElementSibling;
    this.list = root.querySelector("#history-list");
    this.heading = root.querySelector("h3");
    this.placeholder = this.list.innerHTML;
    this.homeTitle = this.heading.textContent;
    this.shown = null;
    this.main = new SharedPanel(root, this, this.homeTitle); // the single table's page
    this.show(this.main);
  }

  /** A panel for one tile's table, named `title` in the panel's heading. */
  panel(title) {
    return new SharedPanel(this.root, this, title);
  }

  /** Draw `panel`'s hands in the page's panel, moved into `place` (a tile) or back home. */
  show(panel, place = null) {
    this.shown = panel;
    if (place && this.root.parentElement !== place) place.appendChild(this.root);
    if (!place && this.root.parentElement !== this.home) this.home.insertBefore(this.root, this.after);
    this.heading.textContent = panel.title;
    this.list.innerHTML = this.placeholder;
    panel.render();
  }

  isOpen() {
    return !this.root.hidden;
  }

  /** Open or close the panel (on a phone it is modal: CSS body.history-open hides the action bar). */
  setOpen(open) {
    this.root.hidden = !open;
    document.body.classList.toggle("history-open", open);
    if (!open) this.root.querySelector("#history-turn").hidden = true;
  }

  /** A tile's History button: its table's hands over that tile, or the panel closed again. */
  toggle(panel, place) {
    if (this.isOpen() && this.shown === panel) return this.setOpen(false);
    this.show(panel, place);
    this.setOpen(true);
  }

  /** A tile closed: its panel goes, and the page's panel is the single table's again. */
  drop(panel) {
    if (this.shown !== panel) return;
    this.setOpen(false);
    this.show(this.main);
  }

  /** `panel`'s table finished a hand: into its list. */
  add(panel, st, msg, seeds) {
    return panel.add(msg, finishedHand(st, msg, seeds));
  }
}
