// The games the room plays, loaded once at start from GET /api/games (the server's registry,
// studpoker/games.py): code, names, board or stud, split, seats, streets. No game fact is
// written in the client: every module asks here. Importing this module waits for the load
// (top-level await), so a game is known before anything is drawn.

import { api } from "./api.js";

const byCode = new Map();

try {
  for (const game of await api.games()) byCode.set(game.code, game);
} catch (error) {
  // The room still works without them: names fall back to the codes, seats to the table's.
  console.warn("studpoker: the list of games could not be loaded", error);
}

/** Every game, in the server's (the lobby's) order. */
export function allGames() {
  return [...byCode.values()];
}

/** A game's record; an unknown code gives a stud-like record named by its code. */
export function gameOf(code) {
  return byCode.get(code) ?? { code, name: code ?? "", short_name: code ?? "", board: false, split: false, max_seats: undefined, streets: [] };
}

/** The short name the lobby shows ("Stud Hi/Lo"). */
export function gameName(code) {
  return gameOf(code).short_name;
}
