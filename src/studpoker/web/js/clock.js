// The countdown ring drawn around the plate of the seat to act: full and calm during the think
// time, then draining with the seconds shown during the visible countdown, then (protocol 1.6)
// blue while the seat's time bank runs (R-TIME-BANK), until `bank_ends`. The seconds of bank the
// seat holds show beside the ring until then, "time bank" while it runs.

import { hurryChime } from "./sound.js";

const NS = "http://www.w3.org/2000/svg";
const BANK_COLOUR = "#6fb7ff";

export class Clock {
  constructor(serverNow) {
    this.serverNow = serverNow;
    this.el = null;
    this.info = null;
    this.frame = null;
    this.mine = false;
    this.lastWhole = null;
  }

  /** Show the clock on `plate` (or hide it when info is null). */
  show(plate, info, { mine = false } = {}) {
    if (!plate || !info) {
      this.stop();
      return;
    }
    this.info = info;
    this.mine = mine;
    if (!this.el || this.el.parentElement !== plate) {
      this.el?.remove();
      this.el = build();
      plate.appendChild(this.el);
    }
    // Drawn at once: a ring just built (its plate redrawn) never shows a frame without its phase.
    if (this.frame) this.draw();
    else this.tick();
  }

  stop() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.el?.remove();
    this.el = null;
    this.info = null;
    this.lastWhole = null;
  }

  tick() {
    this.frame = requestAnimationFrame(() => this.tick());
    this.draw();
  }

  draw() {
    if (!this.el || !this.info) return;
    const now = this.serverNow();
    const { think_ends: thinkEnds, countdown_ends: countdownEnds } = this.info;
    // A server before 1.6 sends no bank: the decision ends with its countdown.
    const bankEnds = Math.max(countdownEnds, this.info.bank_ends ?? countdownEnds);
    const ring = this.el.querySelector(".ring");
    const secs = this.el.querySelector(".secs");
    const bank = this.el.querySelector(".bank");
    const inBank = now >= countdownEnds && bankEnds > countdownEnds;
    const bankLeft = Math.ceil(Math.max(0, bankEnds - Math.max(now, countdownEnds)));
    bank.hidden = bankLeft <= 0;
    bank.textContent = inBank ? "time bank" : `+${bankLeft}s bank`;
    this.el.dataset.bank = String(bankLeft);
    if (now < thinkEnds) {
      ring.style.strokeDashoffset = "0";
      ring.style.stroke = "#8ff0b1";
      secs.hidden = true;
      this.el.dataset.phase = "think";
      return;
    }
    // The countdown drains from the think time's end; the bank from the countdown's.
    const [from, to] = inBank ? [countdownEnds, bankEnds] : [Math.min(thinkEnds, countdownEnds), countdownEnds];
    const remaining = Math.max(0, to - now);
    const frac = Math.min(1, remaining / Math.max(1, to - from));
    ring.style.strokeDashoffset = String(100 * (1 - frac));
    if (inBank) ring.style.stroke = BANK_COLOUR;
    else ring.style.stroke = frac > 0.5 ? "#8ff0b1" : frac > 0.25 ? "#f2c14e" : "#ff5a4f";
    const whole = Math.ceil(remaining);
    secs.hidden = false;
    secs.textContent = String(whole);
    secs.style.color = ring.style.stroke;
    bank.style.color = BANK_COLOUR;
    this.el.dataset.phase = inBank ? "bank" : "countdown";
    // The hurry chime for the last seconds before the decision times out (the bank's, if any).
    const last = Math.ceil(Math.max(0, bankEnds - now));
    if (this.mine && last !== this.lastWhole && last <= 5 && last > 0) hurryChime();
    this.lastWhole = last;
  }
}

function build() {
  const wrap = document.createElement("div");
  wrap.className = "clock";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("viewBox", "0 0 100 100");
  for (const cls of ["track", "ring"]) {
    const rect = document.createElementNS(NS, "rect");
    rect.setAttribute("class", cls);
    rect.setAttribute("x", "1");
    rect.setAttribute("y", "2");
    rect.setAttribute("width", "98");
    rect.setAttribute("height", "96");
    rect.setAttribute("rx", "10");
    rect.setAttribute("pathLength", "100");
    rect.setAttribute("vector-effect", "non-scaling-stroke");
    if (cls === "ring") rect.style.strokeDasharray = "100";
    svg.appendChild(rect);
  }
  wrap.appendChild(svg);
  const secs = document.createElement("div");
  secs.className = "secs";
  secs.hidden = true;
  wrap.appendChild(secs);
  // The seat's time bank, under the plate (styled here: the ring owns it).
  const bank = document.createElement("div");
  bank.className = "bank";
  bank.hidden = true;
  Object.assign(bank.style, {
    position: "absolute", left: "50%", bottom: "0", transform: "translate(-50%, 110%)",
    fontSize: "max(10px, 1.1cqw)", fontWeight: "700", whiteSpace: "nowrap", color: BANK_COLOUR,
    background: "#0e1b15", borderRadius: "0.6em", padding: "0 0.5em",
  });
  wrap.appendChild(bank);
  return wrap;
}
