// The hand model: the hand as the server said it, one shape however it came (a snapshot's
// engine view, modelFromView, or the event frames, applyHandEvent). A store of what the server
// said: nothing here works out a pot, a bet or a stack. TableState (state.js) keeps one.

import { gameOf } from "./games.js";

// The hand's public state as the server names it (a snapshot's engine view and the `changes` of
// an event frame alike, protocol 1.5) and where the model keeps it (`over`: the name the table
// and the tests read).
const HAND_FIELDS = { street: "street", to_act: "to_act", button: "button", bring_in_seat: "bring_in_seat", is_over: "over", pots: "pots" };
const SEAT_FIELDS = ["stack", "bet", "contributed", "folded", "all_in", "protected"];

/**
 * The hand as the server said it, one shape however it came (a snapshot or the events):
 * {game, street, to_act, button, bring_in_seat, over, pots: [{amount, eligible}],
 *  players: [{seat, stack, bet, contributed, folded, all_in, protected, mucked, cards: [{card, up}]}],
 *  board (the board games), community (the stud community card), shows: {seat: {cards, detail}}, show_order,
 *  awards: [{seat, amount, pot, detail}], result}. Chips, flags and pots are copied from the
 *  server, never worked out here; a player's chips are null until the server has told them.
 */
function emptyHand(game) {
  return {
    game,
    street: null,
    to_act: null,
    button: null,
    bring_in_seat: null,
    over: false,
    pots: [],
    players: [],
    board: [],
    community: [],
    shows: {},
    show_order: [],
    awards: [],
    result: null,
  };
}

function playerOf(hand, seat) {
  let p = hand.players.find((x) => x.seat === seat);
  if (!p) {
    p = { seat, stack: null, bet: null, contributed: null, folded: false, all_in: false, protected: false, mucked: false, cards: [] };
    hand.players.push(p);
    hand.players.sort((a, b) => a.seat - b.seat);
  }
  return p;
}

/** Copy what the server says of the hand's public state (`changes`, or a whole view) into it. */
export function applyChanges(hand, changes) {
  for (const [key, field] of Object.entries(HAND_FIELDS)) if (key in changes) hand[field] = changes[key];
  for (const s of changes.seats ?? []) {
    const p = playerOf(hand, s.seat);
    for (const key of SEAT_FIELDS) if (key in s) p[key] = s[key];
  }
  return hand;
}

/** The model of a snapshot's hand: the engine's view for this client (engine/views.py HandView). */
export function modelFromView(view) {
  const hand = applyChanges(emptyHand(view.game), view);
  for (const s of view.seats ?? []) playerOf(hand, s.seat).cards = cardsOf(s);
  const board = view.board ?? [];
  if (gameOf(view.game).board) hand.board = [...board];
  else hand.community = [...board];
  hand.result = view.result ?? null;
  for (const h of hand.result?.shown ?? []) {
    hand.shows[h.seat] = { cards: h.cards, detail: [h.high, h.low].filter(Boolean).join(" / ") };
    hand.show_order.push(h.seat);
  }
  for (const seat of hand.result?.mucked ?? []) playerOf(hand, seat).mucked = true;
  return hand;
}

/**
 * One engine event frame (studpoker/engine/events.py, with its `changes`) applied to the model:
 * the cards its deal, exposure and show events turn up (null: a card this viewer may not see),
 * the mucks and awards, and the changes of the batch it ends. Posts, actions, streets and
 * returns move chips: their changes say where they went.
 */
export function applyHandEvent(hand, msg, game) {
  const ev = msg.event ?? {};
  if (!hand || ev.kind === "hand_start") hand = emptyHand(ev.kind === "hand_start" && ev.detail ? ev.detail : (hand?.game ?? game));
  const p = ev.seat !== undefined && ev.seat !== null ? playerOf(hand, ev.seat) : null;
  switch (ev.kind) {
    case "deal":
      for (const card of ev.cards ?? [null]) p.cards.push({ card, up: ev.detail === "up" });
      break;
    case "deal_board":
      (gameOf(hand.game).board ? hand.board : hand.community).push(...(ev.cards ?? []));
      break;
    case "expose": {
      // down cards turned up for an all-in run-out: they take the places of the seat's down cards
      const shown = [...(ev.cards ?? [])];
      p.cards = p.cards.map((c) => (c.up ? c : { card: shown.shift() ?? c.card, up: false }));
      break;
    }
    case "show":
      // kept aside: the table turns the hands up one by one, in this order, at the showdown
      hand.shows[ev.seat] = { cards: (ev.cards ?? []).filter(Boolean), detail: ev.detail ?? "" };
      hand.show_order = [...hand.show_order.filter((x) => x !== ev.seat), ev.seat];
      break;
    case "muck":
      p.mucked = true;
      break;
    case "award":
      hand.awards.push({ seat: ev.seat, amount: ev.amount ?? 0, pot: ev.pot ?? 0, detail: ev.detail ?? "" });
      break;
    default:
      break;
  }
  if (msg.changes) applyChanges(hand, msg.changes);
  return hand;
}

/**
 * A seat's cards in dealing order from a SeatView (engine/views.py): in stud the two first down
 * cards, the up cards, then the 7th-street down card; in a board game the hole cards (Omaha 4, Hold'em 2).
 */
function cardsOf(seatView) {
  const down = seatView.down ?? [];
  const up = seatView.up ?? [];
  return [
    ...down.slice(0, 2).map((card) => ({ card, up: false })),
    ...up.map((card) => ({ card, up: true })),
    ...down.slice(2).map((card) => ({ card, up: false })),
  ];
}
