// Player notes and colour tags: private to each account and kept by the server
// (GET/PUT/DELETE /api/notes/NAME). A player you tagged has a dot of his colour beside his name
// at the table and in the lobby (a hollow dot for a note without a colour; the note itself on
// hover); every opponent's plate has a ✎ button that opens the note dialog.

import { api } from "./api.js";

// The palette as the server has it (store/notes.py PALETTE), until GET /api/notes answers.
const FALLBACK_PALETTE = ["red", "orange", "yellow", "green", "blue", "purple"];

/** A dot for a note: its colour, or hollow for a note with no colour; its text on hover. */
export function tagDot(note) {
  const dot = document.createElement("span");
  dot.className = "tag-dot";
  dot.dataset.colour = note.colour ?? "none";
  dot.title = note.text || `tagged ${note.colour}`;
  dot.setAttribute("aria-label", note.text ? `your note: ${note.text}` : `tagged ${note.colour}`);
  return dot;
}

export class NotesBook {
  /**
   * `dialog`: the note dialog (index.html #note-dialog); `onChange`: called after the notes
   * changed (loaded, saved, deleted), to draw the table and the lobby again.
   */
  constructor(dialog, { onChange }) {
    this.dialog = dialog;
    this.onChange = onChange;
    this.byAccount = new Map(); // account id -> {player, account_id, text, colour}
    this.palette = FALLBACK_PALETTE;
    this.maxChars = 500;
    this.enabled = false; // logged in
    this.editing = null; // the note dialog's player {name, accountId}
    dialog.querySelector("#note-save").addEventListener("click", () => this.save());
    dialog.querySelector("#note-delete").addEventListener("click", () => this.remove());
  }

  /** Every note of the account (none for a guest). */
  async load(loggedIn) {
    this.enabled = Boolean(loggedIn);
    this.byAccount.clear();
    if (this.enabled) {
      try {
        const answer = await api.notes();
        this.palette = answer.palette;
        this.maxChars = answer.max_chars;
        for (const note of answer.notes) this.byAccount.set(note.account_id, note);
      } catch (err) {
        console.warn("studpoker: notes not loaded", err);
      }
    }
    this.onChange();
  }

  of(accountId) {
    return this.byAccount.get(accountId) ?? null;
  }

  /** The dot and the ✎ button on an opponent's plate (TableView calls this for each seat). */
  decoratePlate(plate, seat) {
    if (!this.enabled || seat.isHero || seat.accountId === undefined) return;
    const note = this.of(seat.accountId);
    if (note) plate.querySelector(".name")?.prepend(tagDot(note));
    const button = document.createElement("button");
    button.type = "button";
    button.className = "note-btn";
    button.dataset.player = seat.name;
    button.textContent = "✎";
    button.title = note ? `Your note on ${seat.name}` : `Write a note on ${seat.name}`;
    button.setAttribute("aria-label", button.title);
    button.addEventListener("click", (e) => {
      e.stopPropagation();
      this.open(seat.name, seat.accountId);
    });
    plate.appendChild(button);
  }

  /** The note dialog for a player: his note (if any) to edit, the palette to pick from. */
  open(name, accountId) {
    this.editing = { name, accountId };
    const note = this.of(accountId);
    const d = this.dialog;
    d.querySelector("#note-player").textContent = name;
    const text = d.querySelector("#note-text");
    text.value = note?.text ?? "";
    text.maxLength = this.maxChars;
    const colours = d.querySelector("#note-colours");
    colours.replaceChildren(...["", ...this.palette].map((colour) => this.swatch(colour, (note?.colour ?? "") === colour)));
    d.querySelector("#note-delete").hidden = !note;
    d.querySelector("#note-error").textContent = "";
    d.showModal();
    text.focus();
  }

  swatch(colour, checked) {
    const label = document.createElement("label");
    label.className = "note-swatch";
    label.title = colour || "no colour";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "note-colour";
    input.value = colour;
    input.checked = checked;
    const dot = document.createElement("span");
    dot.className = "tag-dot";
    dot.dataset.colour = colour || "none";
    label.append(input, dot);
    return label;
  }

  async save() {
    const d = this.dialog;
    const text = d.querySelector("#note-text").value;
    const colour = d.querySelector("input[name='note-colour']:checked")?.value || null;
    try {
      const note = await api.putNote(this.editing.name, text, colour);
      this.byAccount.set(note.account_id, note);
      d.close();
      this.onChange();
    } catch (err) {
      d.querySelector("#note-error").textContent = err.message;
    }
  }

  async remove() {
    const d = this.dialog;
    try {
      await api.deleteNote(this.editing.name);
      this.byAccount.delete(this.editing.accountId);
      d.close();
      this.onChange();
    } catch (err) {
      d.querySelector("#note-error").textContent = err.message;
    }
  }
}

/**
 * The lobby's side of the notes: each table's line names the players you keep a note on who sit
 * there, each with his dot. It follows the lobby's own drawing (every time the rows are drawn
 * again: a filter, the lobby push) by watching the table body.
 */
export class LobbyTags {
  constructor(body, tablesOf, book) {
    this.body = body;
    this.tablesOf = tablesOf; // () => the lobby's tables, each with its seats
    this.book = book;
    new MutationObserver(() => this.decorate()).observe(body, { childList: true });
  }

  decorate() {
    const byId = new Map(this.tablesOf().map((t) => [String(t.id), t]));
    for (const row of this.body.querySelectorAll("tr[data-table]")) {
      row.querySelector(".lobby-notes")?.remove();
      const seats = byId.get(row.dataset.table)?.seats ?? [];
      const noted = seats.map((s) => ({ seat: s, note: this.book.of(s.account_id) })).filter((x) => x.note);
      if (!noted.length) continue;
      const list = document.createElement("span");
      list.className = "lobby-notes";
      for (const { seat, note } of noted) {
        const who = document.createElement("span");
        who.className = "lobby-note";
        who.dataset.player = seat.name;
        who.title = note.text || `tagged ${note.colour}`;
        who.append(tagDot(note), document.createTextNode(seat.name));
        list.appendChild(who);
      }
      row.querySelector("td")?.appendChild(list);
    }
  }
}
