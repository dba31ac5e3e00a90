// Cards drawn as inline SVG: crisp at any size, two- or four-colour suits.
//
// A card arrives from the server either as its code (an int, 4 * rank + suit, as in
// studpoker/cards.py) or as its two-character text ("As", "Td"). A hidden card is null.

export const RANKS = "23456789TJQKA";
export const SUITS = "cdhs";
const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
const RANK_LABEL = { T: "10" };

const SUIT_PATHS = [
  // clubs: three leaves and a stem
  "M50 6a19 19 0 0 1 16.5 28.4A19 19 0 1 1 56 64c0 12 4 22 12 30H32c8-8 12-18 12-30a19 19 0 1 1-10.5-29.6A19 19 0 0 1 50 6z",
  // diamonds
  "M50 3 88 50 50 97 12 50z",
  // hearts
  "M50 92C22 70 5 53 5 32 5 16 17 5 30 5c9 0 16 5 20 13 4-8 11-13 20-13 13 0 25 11 25 27 0 21-17 38-45 60z",
  // spades
  "M50 4c10 18 45 34 45 58 0 15-11 24-23 24-8 0-14-4-18-10 1 11 5 17 13 22H33c8-5 12-11 13-22-4 6-10 10-18 10-12 0-23-9-23-24C5 38 40 22 50 4z",
];

const TWO_COLOUR = ["#1b1b1b", "#c8102e", "#c8102e", "#1b1b1b"];
const FOUR_COLOUR = ["#1d7a36", "#1662c4", "#c8102e", "#1b1b1b"];

let fourColour = false;

/** Switch four-colour suits on or off (clubs green, diamonds blue). */
export function setFourColour(on) {
  fourColour = Boolean(on);
}

export function isFourColour() {
  return fourColour;
}

/** {rank, suit, text} of a card given as an int code or as text; null for a hidden card. */
export function parseCard(card) {
  if (card === null || card === undefined || card === "" || card === "??" || card === "xx") return null;
  if (typeof card === "object") {
    if ("code" in card) return parseCard(card.code);
    if ("card" in card) return parseCard(card.card);
    return null;
  }
  if (typeof card === "number") {
    if (!Number.isInteger(card) || card < 0 || card > 51) return null;
    const rank = card >> 2;
    const suit = card & 3;
    return { rank, suit, text: RANKS[rank] + SUITS[suit] };
  }
  const text = String(card).trim();
  if (text.length !== 2) return null;
  const rank = RANKS.indexOf(text[0].toUpperCase());
  const suit = SUITS.indexOf(text[1].toLowerCase());
  if (rank < 0 || suit < 0) return null;
  return { rank, suit, text: RANKS[rank] + SUITS[suit] };
}

/** The two-character text of a card ("As"), or "" for a hidden card. */
export function cardText(card) {
  const parsed = parseCard(card);
  return parsed ? parsed.text : "";
}

export function suitName(suit) {
  return SUIT_NAMES[suit];
}

export function suitColour(suit) {
  return (fourColour ? FOUR_COLOUR : TWO_COLOUR)[suit];
}

function suitPath(suit, x, y, size, colour) {
  const k = size / 100;
  return `<path transform="translate(${x} ${y}) scale(${k})" d="${SUIT_PATHS[suit]}" fill="${colour}"/>`;
}

/** A small inline suit icon (for text such as hand histories). */
export function suitIcon(suit) {
  return `<svg class="suit-icon" viewBox="0 0 100 100" aria-hidden="true">${suitPath(suit, 0, 0, 100, suitColour(suit))}</svg>`;
}

/**
 * The SVG markup of one card face (or of a card back when the card is hidden).
 * The face is 60 x 84 units: the rank and a small suit in the top-left corner (the part that
 * stays visible when cards overlap), a large suit in the lower right.
 */
export function cardSvg(card) {
  const parsed = parseCard(card);
  if (!parsed) return backSvg();
  const colour = suitColour(parsed.suit);
  const label = RANK_LABEL[RANKS[parsed.rank]] ?? RANKS[parsed.rank];
  const narrow = label.length > 1 ? ' textLength="21" lengthAdjust="spacingAndGlyphs"' : "";
  return (
    `<svg class="card-svg" viewBox="0 0 60 84" role="img" aria-label="${describe(parsed)}">` +
    `<rect x="0.75" y="0.75" width="58.5" height="82.5" rx="5.5" fill="#fdfdfb" stroke="#b9b9b0" stroke-width="1.5"/>` +
    `<text x="4" y="25" font-family="'DejaVu Sans','Liberation Sans',Arial,sans-serif" font-weight="700" font-size="25" fill="${colour}"${narrow}>${label}</text>` +
    suitPath(parsed.suit, 5, 30, 16, colour) +
    suitPath(parsed.suit, 25, 44, 31, colour) +
    `</svg>`
  );
}

// The lattice of the card back, clipped to its inner frame by hand (no ids: many cards share a page).
const BACK_LATTICE = (() => {
  const [x0, y0, w, h, step] = [5, 5, 50, 74, 6];
  const segments = [];
  for (let c = -h; c <= w; c += step) {
    // the line x - y = c and the line x + y = c + h, each clipped to the frame
    const a = [Math.max(0, c), Math.max(0, -c)];
    const b = [Math.min(w, h + c), Math.min(h, w - c)];
    if (b[0] > a[0]) segments.push(`M${x0 + a[0]} ${y0 + a[1]}L${x0 + b[0]} ${y0 + b[1]}`);
    const d = c + h;
    const p = [Math.max(0, d - h), Math.min(h, d)];
    const q = [Math.min(w, d), Math.max(0, d - w)];
    if (q[0] > p[0]) segments.push(`M${x0 + p[0]} ${y0 + p[1]}L${x0 + q[0]} ${y0 + q[1]}`);
  }
  return segments.join("");
})();

function backSvg() {
  return (
    `<svg class="card-svg" viewBox="0 0 60 84" role="img" aria-label="face-down card">` +
    `<rect x="0.75" y="0.75" width="58.5" height="82.5" rx="5.5" fill="#fdfdfb" stroke="#b9b9b0" stroke-width="1.5"/>` +
    `<rect x="4" y="4" width="52" height="76" rx="3.5" fill="#9e2236"/>` +
    `<path d="${BACK_LATTICE}" stroke="#c2414f" stroke-width="1.1" fill="none"/>` +
    `<rect x="4" y="4" width="52" height="76" rx="3.5" fill="none" stroke="#f3d9a4" stroke-width="1.2"/>` +
    `</svg>`
  );
}

const RANK_WORDS = [
  "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace",
];

function describe(parsed) {
  return `${RANK_WORDS[parsed.rank]} of ${SUIT_NAMES[parsed.suit]}`;
}

/**
 * A card element: <div class="card"> holding the SVG, with data-card set to its text for tests
 * and for highlighting. Options: hiddenFromOthers (your own down card), highlight, dim.
 */
export function cardElement(card, { hiddenFromOthers = false, highlight = false, dim = false, small = false } = {}) {
  const el = document.createElement("div");
  const parsed = parseCard(card);
  el.className = "card";
  if (!parsed) el.classList.add("back");
  if (hiddenFromOthers) {
    el.classList.add("hole");
    el.title = "Down card: only you can see it";
  }
  if (highlight) el.classList.add("win");
  if (dim) el.classList.add("dim");
  if (small) el.classList.add("small");
  if (parsed) el.dataset.card = parsed.text;
  el.innerHTML = cardSvg(card);
  return el;
}

/** Text with each card written with its suit icon, for logs: "A♠ K♦". */
export function cardsHtml(cards) {
  return cards
    .map(parseCard)
    .filter(Boolean)
    .map((c) => `<span class="ctext" style="color:${suitColour(c.suit)}">${RANK_LABEL[RANKS[c.rank]] ?? RANKS[c.rank]}${suitIcon(c.suit)}</span>`)
    .join(" ");
}
