// The countdown ring drawn around the plate of the seat to act: full and calm during the think
// time, then draining with the seconds shown during the visible countdown.

import { hurryChime } from "./sound.js";

const NS = "http://www.w3.org/2000/svg";

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
    if (!this.frame) this.tick();
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
    if (!this.el || !this.info) return;
    const now = this.serverNow();
    const { think_ends: thinkEnds, countdown_ends: countdownEnds } = this.info;
    const ring = this.el.querySelector(".ring");
    const secs = this.el.querySelector(".secs");
    const remaining = Math.max(0, countdownEnds - now);
    if (now < thinkEnds) {
      ring.style.strokeDashoffset = "0";
      ring.style.stroke = "#8ff0b1";
      secs.hidden = true;
      this.el.dataset.phase = "think";
      return;
    }
    const total = Math.max(1, countdownEnds - Math.min(thinkEnds, countdownEnds));
    const frac = Math.min(1, remaining / total);
    ring.style.strokeDashoffset = String(100 * (1 - frac));
    ring.style.stroke = frac > 0.5 ? "#8ff0b1" : frac > 0.25 ? "#f2c14e" : "#ff5a4f";
    const whole = Math.ceil(remaining);
    secs.hidden = false;
    secs.textContent = String(whole);
    secs.style.color = ring.style.stroke;
    this.el.dataset.phase = "countdown";
    if (this.mine && whole !== this.lastWhole && whole <= 5 && whole > 0) hurryChime();
    this.lastWhole = whole;
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
  return wrap;
}
