// A short two-tone chime made with Web Audio (no sound files), played when it is your turn.

let ctx = null;
let enabled = localStorage.getItem("studpoker.sound") !== "off";

export function setSound(on) {
  enabled = Boolean(on);
  localStorage.setItem("studpoker.sound", enabled ? "on" : "off");
}

export function soundOn() {
  return enabled;
}

function context() {
  if (!ctx) {
    const Ctx = window.AudioContext ?? window.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
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

export function yourTurnChime() {
  if (!enabled) return;
  const ac = context();
  if (!ac) return;
  tone(ac, 880, 0, 0.18, 0.12);
  tone(ac, 1318.5, 0.12, 0.28, 0.1);
}

export function hurryChime() {
  if (!enabled) return;
  const ac = context();
  if (!ac) return;
  tone(ac, 660, 0, 0.12, 0.1);
}

// Browsers only let a page play sound after a user gesture: unlock on the first one.
addEventListener("pointerdown", () => context(), { once: true });
addEventListener("keydown", () => context(), { once: true });
