// Keyboard shortcuts: each client action bound to one key, kept per account on the server
// (GET/PUT /api/me/preferences, store/notes.py DEFAULT_SHORTCUTS). A guest, or a page whose
// load failed, uses the room's defaults. The action bar asks keyFor() for its buttons' keys;
// the other actions (history, live cards, help) are dispatched here. The help overlay lists
// every binding; the settings dialog rebinds them.

import { api } from "./api.js";

/** Every action, in the order the help overlay and the settings list them. */
export const ACTIONS = [
  ["fold", "Fold"],
  ["call", "Check or call"],
  ["bring_in", "Bring in"],
  ["raise", "Complete, bet or raise (the small one when there is a choice)"],
  ["raise_big", "The big bet or raise (4th street after an open pair)"],
  ["history", "Show or hide the hand history"],
  ["live_cards", "Show or hide the live-cards tray"],
  ["help", "This list of shortcuts"],
];

// The room's defaults as the server has them, for guests; a logged-in page takes the server's.
const FALLBACK = Object.freeze({ fold: "f", call: "c", bring_in: "b", raise: "r", raise_big: "g", history: "h", live_cards: "l", help: "?" });

let defaults = { ...FALLBACK };
let bindings = { ...FALLBACK };
let loggedIn = false;
const listeners = new Set();

/** The key bound to an action ("" for none). */
export function keyFor(action) {
  return bindings[action] ?? "";
}

export function currentBindings() {
  return { ...bindings };
}

export function defaultBindings() {
  return { ...defaults };
}

/** Call fn whenever the bindings change (loaded, saved, logged out). */
export function onShortcutsChange(fn) {
  listeners.add(fn);
}

function set(next, nextDefaults = defaults) {
  bindings = { ...next };
  defaults = { ...nextDefaults };
  for (const fn of listeners) fn(bindings);
}

/** The account's bindings from the server; the defaults for a guest or when the call fails. */
export async function loadShortcuts(isLoggedIn) {
  loggedIn = Boolean(isLoggedIn);
  if (!loggedIn) return set(defaults);
  try {
    const answer = await api.preferences();
    set(answer.shortcuts, answer.defaults);
  } catch (err) {
    console.warn("studpoker: shortcuts not loaded, using the defaults", err);
    set(defaults);
  }
}

/** Save bindings on the server (it refuses unknown actions, long keys and duplicates). */
export async function saveShortcuts(next) {
  const answer = await api.putPreferences(next);
  set(answer.shortcuts, answer.defaults);
  return bindings;
}

/**
 * Whether a key press is not a shortcut: typing in a field, with a modifier (Shift aside: "?"
 * needs it), or while a dialog is open (its own buttons and fields have the keys).
 */
export function ignoreKey(e) {
  const t = e.target;
  if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return true;
  if (t instanceof HTMLElement && t.isContentEditable) return true;
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return true;
  return Boolean(document.querySelector("dialog[open]"));
}

/** The action a key press fires, or null. */
export function actionOfKey(e) {
  const key = e.key.length === 1 ? e.key.toLowerCase() : "";
  if (!key) return null;
  return ACTIONS.find(([action]) => bindings[action] === key)?.[0] ?? null;
}

/**
 * The page's shortcuts outside the action bar: `handlers` maps an action (history, live_cards,
 * help) to what it does. The help overlay and the settings section are drawn here too.
 */
export class Shortcuts {
  constructor({ help, settings, handlers }) {
    this.help = help; // <dialog>: the list of bindings
    this.settings = settings; // the settings dialog's shortcuts section
    this.handlers = { ...handlers, help: () => this.openHelp() };
    addEventListener("keydown", (e) => {
      if (ignoreKey(e)) return;
      const action = actionOfKey(e);
      const run = action && this.handlers[action];
      if (run) {
        e.preventDefault();
        run();
      }
    });
    onShortcutsChange(() => this.renderSettings());
    this.renderSettings();
  }

  openHelp() {
    const rows = ACTIONS.map(
      ([action, label]) => `<tr data-action="${action}"><td><kbd>${keyLabel(bindings[action])}</kbd></td><td>${label}</td></tr>`,
    ).join("");
    this.help.querySelector(".help-bindings").innerHTML = rows;
    this.help.querySelector(".help-where").textContent = loggedIn
      ? "Change them in ⚙ Settings: they are kept with your account."
      : "Log in to choose your own keys (⚙ Settings).";
    this.help.showModal();
  }

  /** One line per action with the key it is bound to; a key press in a line rebinds it. */
  renderSettings() {
    const root = this.settings;
    if (!root) return;
    const list = root.querySelector(".shortcut-list");
    list.replaceChildren(
      ...ACTIONS.map(([action, label]) => {
        const row = document.createElement("label");
        row.className = "shortcut-row";
        const input = document.createElement("input");
        input.className = "shortcut-key";
        input.dataset.action = action;
        input.value = bindings[action] ?? "";
        input.maxLength = 1;
        input.disabled = !loggedIn;
        input.setAttribute("aria-label", `Key for ${label}`);
        input.addEventListener("keydown", (e) => {
          if (e.key === "Tab" || e.key === "Enter" || e.key === "Escape") return;
          e.preventDefault();
          if (e.key === "Backspace" || e.key === "Delete") input.value = "";
          else if (e.key.length === 1 && e.key.trim()) input.value = e.key.toLowerCase();
        });
        const text = document.createElement("span");
        text.textContent = label;
        row.append(input, text);
        return row;
      }),
    );
    root.querySelector(".shortcut-save").disabled = !loggedIn;
    root.querySelector(".shortcut-defaults").disabled = !loggedIn;
    root.querySelector(".shortcut-message").textContent = loggedIn ? "" : "Log in to choose your own keys.";
  }

  /** The bindings typed in the settings section. */
  typed() {
    const out = {};
    for (const input of this.settings.querySelectorAll(".shortcut-key")) out[input.dataset.action] = input.value;
    return out;
  }

  wireSettings() {
    const root = this.settings;
    const message = root.querySelector(".shortcut-message");
    root.querySelector(".shortcut-defaults").addEventListener("click", () => {
      for (const input of root.querySelectorAll(".shortcut-key")) input.value = defaults[input.dataset.action] ?? "";
    });
    root.querySelector(".shortcut-save").addEventListener("click", async () => {
      const typed = this.typed();
      const clash = duplicateKey(typed);
      if (clash) {
        message.textContent = clash;
        return;
      }
      try {
        await saveShortcuts(typed);
        message.textContent = "Saved.";
      } catch (err) {
        message.textContent = err.message;
      }
    });
  }
}

function keyLabel(key) {
  if (!key) return "—";
  return key === " " ? "Space" : key.toUpperCase();
}

/** A message naming the first key typed for two actions, or "". */
export function duplicateKey(map) {
  const owner = new Map();
  for (const [action, key] of Object.entries(map)) {
    if (!key) continue;
    if (owner.has(key)) return `The key ${keyLabel(key)} is set for both "${owner.get(key)}" and "${action}".`;
    owner.set(key, action);
  }
  return "";
}

export const FALLBACK_SHORTCUTS = FALLBACK;
