// The table's chat and dealer log, in one panel (issue 12): the chat lines of the table (the
// snapshot's last lines, then each `chat` message), the dealer log (dealer_log.js), a filter
// (all / chat / dealer), the line to send, and on each other player's line a mute (for you
// alone, kept with your account: GET/PUT/DELETE /api/me/chat/mutes) and a report to the
// operator (POST /api/tables/{id}/chat/{line}/report). Every line is drawn as text
// (textContent), never as HTML: a line is whatever a player typed.

import { api } from "./api.js";
import { DealerLog } from "./dealer_log.js";

const FILTERS = ["all", "chat", "dealer"];
const SHOWN_LINES = 400; // the panel draws the newest lines only

export class ChatPanel {
  /**
   * root: the panel (#table-log, or a tile's: its parts found by class, so that a page holds
   * several); send(message) puts a client message on the socket (false when it could not); me()
   * is the account logged in (null: a guest); now() the server's time; `showdown` the table's
   * ShowdownProgress the dealer log follows (dealer_log.js; by default the page's table).
   */
  constructor(root, { send, me, now = () => Date.now() / 1000, showdown = undefined }) {
    this.root = root;
    this.send = send;
    this.me = me;
    this.list = root.querySelector(".log-lines");
    this.form = root.querySelector(".chat-form");
    this.input = this.form.querySelector("input");
    this.note = root.querySelector(".chat-note");
    this.mutedEl = root.querySelector(".chat-muted");
    this.filter = "all";
    this.tableId = null;
    this.chat = []; // the table's chat lines, by id
    this.muted = new Map(); // account id -> name, for the account logged in
    this.reported = new Set(); // "table:line" this page reported
    this.pending = new Map(); // request id -> text sent
    this.seq = 0;
    this.dealer = new DealerLog({ now, onChange: () => this.render(), showdown });
    for (const button of root.querySelectorAll("[data-filter]")) {
      button.addEventListener("click", () => this.setFilter(button.dataset.filter));
    }
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.say();
    });
  }

  /** The panel follows table `tableId` (null: no table open). */
  open(tableId) {
    if (tableId === this.tableId) return;
    this.tableId = tableId;
    this.chat = [];
    this.pending.clear();
    this.note.textContent = "";
    if (tableId !== null) this.dealer.open(tableId);
    this.renderInput();
    this.render();
  }

  setFilter(filter) {
    if (!FILTERS.includes(filter)) return;
    this.filter = filter;
    for (const button of this.root.querySelectorAll("[data-filter]")) {
      button.setAttribute("aria-pressed", String(button.dataset.filter === filter));
    }
    this.render();
  }

  /** A table_state: its last chat lines (the page's own are replaced: the server's are exact). */
  snapshot(msg, context) {
    if (msg.table_id !== this.tableId) return;
    this.chat = [...(msg.chat ?? [])];
    this.dealer.snapshot(msg, context);
    this.renderInput();
    this.render();
  }

  /** A `chat` message: one new line (a line seen already, after a snapshot, is not added twice). */
  line(msg) {
    if (msg.table_id !== this.tableId || !msg.line) return;
    if (this.chat.some((l) => l.id === msg.line.id)) return;
    this.chat.push(msg.line);
    if (this.chat.length > 200) this.chat.shift();
    this.render();
  }

  say() {
    const text = this.input.value.trim();
    if (!text || this.tableId === null) return;
    const id = `chat-${++this.seq}`;
    if (!this.send({ type: "chat", table_id: this.tableId, text, id })) {
      this.note.textContent = "Not connected: your line was not sent.";
      return;
    }
    this.pending.set(id, text);
  }

  /** The ack or error answering a chat line; true when it was one. */
  reply(msg) {
    if (!this.pending.has(msg.ref)) return false;
    this.pending.delete(msg.ref);
    if (msg.type === "ack") {
      this.input.value = "";
      this.note.textContent = "";
    } else {
      // the line stays in the box, to be put right
      this.note.textContent = msg.code === "login_required" ? "Log in to chat." : msg.message;
    }
    return true;
  }

  renderInput() {
    const loggedIn = Boolean(this.me());
    this.input.disabled = !loggedIn;
    this.form.querySelector("button").disabled = !loggedIn;
    this.input.placeholder = loggedIn ? "Say something…" : "Log in to chat";
  }

  // -- muting and reporting ------------------------------------------------------------------

  async loadMutes(loggedIn) {
    this.muted.clear();
    if (loggedIn) {
      try {
        for (const m of (await api.chatMutes()).muted) this.muted.set(m.account_id, m.player);
      } catch {
        // no list: nobody hidden
      }
    }
    this.renderInput();
    this.render();
  }

  async mute(line) {
    try {
      const muted = await api.muteChat(line.name);
      this.muted.set(muted.account_id, muted.player);
      this.note.textContent = `${muted.player} is muted: you no longer see his lines.`;
    } catch (err) {
      this.note.textContent = err.message;
    }
    this.render();
  }

  async unmute(accountId, name) {
    try {
      await api.unmuteChat(name);
    } catch (err) {
      this.note.textContent = err.message;
      if (err.status !== 404) return;
    }
    this.muted.delete(accountId);
    this.render();
  }

  async report(line) {
    const key = `${this.tableId}:${line.id}`;
    try {
      await api.reportChat(this.tableId, line.id);
      this.reported.add(key);
      this.note.textContent = `Reported: the operator sees ${line.name}'s line as the table had it.`;
    } catch (err) {
      this.note.textContent = err.message;
    }
    this.render();
  }

  // -- drawing ---------------------------------------------------------------------------------

  /**
   * The lines the filter shows, oldest first: {kind: "chat"|"dealer", at, line}. The dealer's
   * lines keep the log's order (the engine's), never re-sorted by their times: those are the
   * page's estimate of the server's clock when each came in (socket.js serverNow), which steps
   * back when a message handled late sets it again (issue 12: the bring-in drawn before the
   * antes). Each chat line (the server's time) goes before the first dealer line after it.
   */
  entries() {
    const chat = this.filter === "dealer" ? [] : this.chat.filter((line) => !this.muted.has(line.account_id));
    const dealer = this.filter === "chat" ? [] : this.dealer.lines();
    // a stable sort: chat lines of one moment keep the order they came in
    chat.sort((a, b) => a.at - b.at);
    const out = [];
    let c = 0;
    for (const line of dealer) {
      while (c < chat.length && !(chat[c].at > line.at)) out.push({ kind: "chat", at: chat[c].at, line: chat[c++] });
      out.push({ kind: "dealer", at: line.at, line });
    }
    for (const line of chat.slice(c)) out.push({ kind: "chat", at: line.at, line });
    return out.slice(-SHOWN_LINES);
  }

  render() {
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    const me = this.me();
    const items = this.entries().map((e) => (e.kind === "chat" ? this.chatItem(e.line, me) : dealerItem(e.line)));
    if (!items.length) {
      const empty = document.createElement("li");
      empty.className = "log-empty muted";
      empty.textContent = this.filter === "dealer" ? "The dealer's lines appear here." : "No chat yet.";
      items.push(empty);
    }
    this.list.replaceChildren(...items);
    if (atBottom) this.list.scrollTop = this.list.scrollHeight;
    this.renderMuted();
  }

  chatItem(line, me) {
    const li = document.createElement("li");
    li.className = "log-line chat";
    li.dataset.line = String(line.id);
    li.dataset.account = String(line.account_id);
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = line.seat ? line.name : `${line.name} (watching)`;
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = line.text;
    li.append(who, text);
    if (me && me.id !== line.account_id) {
      const tools = document.createElement("span");
      tools.className = "line-tools";
      tools.append(
        toolButton("mute", "🔇", `Mute ${line.name} (for you only)`, () => this.mute(line)),
        this.reported.has(`${this.tableId}:${line.id}`)
          ? Object.assign(document.createElement("span"), { className: "reported", textContent: "reported" })
          : toolButton("report", "⚑", "Report this line to the operator", () => this.report(line)),
      );
      li.append(tools);
    }
    return li;
  }

  renderMuted() {
    const el = this.mutedEl;
    el.replaceChildren();
    el.hidden = this.muted.size === 0;
    if (el.hidden) return;
    el.append("Muted: ");
    for (const [accountId, name] of this.muted) {
      const b = toolButton("unmute", `${name} ✕`, `Unmute ${name}`, () => this.unmute(accountId, name));
      b.dataset.player = name;
      el.append(b, " ");
    }
  }
}

function toolButton(cls, label, title, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `ghost small ${cls}`;
  b.textContent = label;
  b.title = title;
  b.setAttribute("aria-label", title);
  b.addEventListener("click", onClick);
  return b;
}

function dealerItem(line) {
  const li = document.createElement("li");
  li.className = `log-line dealer ${line.cls}`;
  li.textContent = line.text;
  return li;
}
