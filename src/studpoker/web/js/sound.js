// A short two-tone chime made with Web Audio (no sound files), played when it is your turn, and
// the sound switch: one for the whole page (the table's mute button, each tile's, and the settings
// checkbox all follow it).
//
// Browsers start an AudioContext only inside a user gesture, and not every event counts: a
// touch's pointerdown or an Escape key does not. So the page keeps listening to the gestures
// until the context actually runs (after a reload the first key press or tap unlocks it, no
// click needed), then stops; it listens again if the browser suspends the context later.

const STORAGE_KEY = "studpoker.sound";
const GESTURES = ["pointerdown", "pointerup", "keydown", "touchstart", "touchend", "click"];

let ctx = null;
let enabled = localStorage.getItem(STORAGE_KEY) !== "off";
let listening = false;
const watchers = new Set();

export function setSound(on) {
  enabled = Boolean(on);
  localStorage.setItem(STORAGE_KEY, enabled ? "on" : "off");
  for (const fn of watchers) fn(enabled);
}

export function soundOn() {
  return enabled;
}

/** Call fn(on) whenever the sound is switched on or off; returns the unsubscribe function. */
export function onSoundChange(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

/**
 * A mute button (the single table's, each tile's): pressed while the chime is muted, and a click
 * switches the page's one sound setting, which every such button and the settings checkbox show.
 * Returns the function that lets the button go (a closed tile's).
 */
export function wireMuteButton(button) {
  const draw = (on) => {
    button.setAttribute("aria-pressed", String(!on));
    button.textContent = on ? "♪ On" : "♪ Off";
    button.title = on ? "Turn chime on: mute it" : "Turn chime muted: sound it again";
    button.setAttribute("aria-label", button.title);
  };
  const click = () => setSound(!enabled);
  draw(enabled);
  button.addEventListener("click", click);
  const stop = onSoundChange(draw);
  return () => {
    stop();
    button.removeEventListener("click", click);
  };
}

/** Whether the chime can be heard now (the context runs). */
export function soundUnlocked() {
  return ctx?.state === "running";
}

function audioClass() {
  return window.AudioContext ?? window.webkitAudioContext ?? null;
}

function ensureContext() {
  if (ctx) return ctx;
  const Ctx = audioClass();
  if (!Ctx) return null;
  ctx = new Ctx();
  // a context the browser suspends again (a phone call, a backgrounded tab) waits for a gesture
  ctx.addEventListener?.("statechange", () => {
    if (ctx.state === "running") stopListening();
    else if (ctx.state !== "closed") listen();
  });
  return ctx;
}

/** Inside a gesture: create or resume the context; once it runs, the gestures are let go. */
function unlock() {
  const ac = ensureContext();
  if (!ac || ac.state === "running") {
    stopListening();
    return;
  }
  Promise.resolve(ac.resume?.())
    .then(() => ac.state === "running" && stopListening())
    .catch(() => {});
}

function listen() {
  if (listening) return;
  listening = true;
  for (const type of GESTURES) addEventListener(type, unlock, { capture: true, passive: true });
}

function stopListening() {
  if (!listening) return;
  listening = false;
  for (const type of GESTURES) removeEventListener(type, unlock, { capture: true });
}

function tone(ac, freq, start, length, gain) {
  const osc = ac.createOscillator();
  const amp = ac.createGain();
  osc.type = "sine";
  osc.frequency.value = freq;
  amp.gain.setValueAtTime(0, ac.currentTime + start);
  amp.gain.linearRampToValueAtTime(gain, ac.currentTime + start + 0.02);
  amp.gain.exponentialRampToValueAtTime(0.0001, ac.currentTime + start + length);
  osc.connect(amp).connect(ac.destination);
  osc.start(ac.currentTime + start);
  osc.stop(ac.currentTime + start + length + 0.05);
}

/** The context if sound is on and the context runs; a locked one plays nothing (no late chime). */
function playable() {
  if (!enabled) return null;
  const ac = ensureContext();
  return ac && ac.state === "running" ? ac : null;
}

export function yourTurnChime() {
  const ac = playable();
  if (!ac) return;
  tone(ac, 880, 0, 0.18, 0.12);
  tone(ac, 1318.5, 0.12, 0.28, 0.1);
}

/** A seat is offered to you from a wait list (wait_list.js): three rising notes. */
export function offerChime() {
  const ac = playable();
  if (!ac) return;
  tone(ac, 660, 0, 0.16, 0.11);
  tone(ac, 880, 0.14, 0.16, 0.11);
  tone(ac, 1174.7, 0.28, 0.3, 0.1);
}

export function hurryChime() {
  const ac = playable();
  if (!ac) return;
  tone(ac, 660, 0, 0.12, 0.1);
}

listen();
