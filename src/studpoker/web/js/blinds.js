// The blinds a seat owes at a board game (docs/rules.md R-O8-NEW-PLAYER-WAITS,
// R-O8-POST-TO-COME-IN, R-O8-MISSED-BLINDS): your own seat says what you owe and lets you wait
// for the big blind (the default) or post now (`post_blind`); the others' plates say "Waiting for
// BB". The flags are the seat list's (owes_big_blind, owes_small_blind, post_blind_now).

import { money } from "./format.js";

/** "You owe the big blind 1.00 (and a dead small blind 0.50) to come back", or "" owing nothing. */
export function owedText(seat, stakes) {
  if (!seat?.owesBigBlind) return "";
  const dead = seat.owesSmallBlind ? ` (and a dead small blind ${money(stakes.smallBlind)})` : "";
  return `You owe the big blind ${money(stakes.bigBlind)}${dead} to come back`;
}

/** The tag on another player's plate while he owes the big blind and is not in the hand. */
export function owedTag(seat) {
  if (!seat.owesBigBlind || seat.inHand || seat.isHero) return null;
  return seat.postBlindNow ? "Posts BB next hand" : "Waiting for BB";
}

// A click shows at once; the seat list's word wins when it agrees or after this many ms.
const PENDING_MS = 4000;

export class BlindsChoice {
  /** `root`: the element it goes in (the action bar); `send(message without table_id)`: sent? */
  constructor(root, { send }) {
    this.send = send;
    this.pending = null; // {now, at}: clicked, not yet in the seat list
    this.el = document.createElement("div");
    this.el.id = "blinds-owed";
    this.el.className = "blinds-owed";
    this.el.hidden = true;
    this.el.innerHTML =
      '<span id="blinds-owed-text" class="blinds-owed-text" role="status" aria-live="polite"></span>' +
      '<span class="blinds-choice" role="radiogroup" aria-label="The blinds you owe">' +
      '<label class="check"><input type="radio" name="post-blind" id="blind-wait" value="wait"> Wait for the big blind</label>' +
      '<label class="check"><input type="radio" name="post-blind" id="blind-post" value="post"> Post now</label>' +
      "</span>";
    root.appendChild(this.el);
    this.text = this.el.querySelector("#blinds-owed-text");
    this.choice = this.el.querySelector(".blinds-choice");
    this.wait = this.el.querySelector("#blind-wait");
    this.post = this.el.querySelector("#blind-post");
    this.wait.addEventListener("change", () => this.choose(false));
    this.post.addEventListener("change", () => this.choose(true));
  }

  choose(now) {
    if (!this.send({ type: "post_blind", now })) {
      this.draw(!now); // not sent: the choice stays as it was
      return;
    }
    this.pending = { now, at: Date.now() };
  }

  draw(now) {
    this.post.checked = now;
    this.wait.checked = !now;
  }

  /** Shown while your seat owes the big blind and is not in the hand; the choice while you play. */
  update(view) {
    const hero = view.seats.find((s) => s.isHero && s.occupied);
    const text = hero && !hero.inHand ? owedText(hero, view.stakes) : "";
    this.el.hidden = !text;
    if (!text) {
      this.pending = null;
      return;
    }
    this.text.textContent = text;
    // sitting out, he posts nothing: I'm back first, then the choice
    this.choice.hidden = hero.sittingOut;
    let now = hero.postBlindNow;
    if (this.pending && this.pending.now !== now && Date.now() - this.pending.at <= PENDING_MS) now = this.pending.now;
    else this.pending = null;
    this.draw(now);
  }
}
