// Checks a card's opening against the deck root published before the deal, in the browser, as
// studpoker/fairness.py builds it (docs/fairness.md): the leaf is
// SHA-256("studpoker-card-v2" | position | card | salt), the tree is hashed as RFC 6962 does
// (0x00 before a leaf, 0x01 before two children).

const enc = new TextEncoder();
const DECK_SIZE = 52;

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-f]/i.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The commitment to one deck position.
export async function leafHash(position, card, saltHex) {
  const salt = fromHex(saltHex);
  if (!Number.isInteger(position) || position < 0 || position >= DECK_SIZE) throw new Error("position");
  if (salt.length !== 16) throw new Error("salt");
  if (!/^[2-9TJQKA][cdhs]$/.test(card)) throw new Error("card");
  return sha256(concat(enc.encode("studpoker-card-v2"), new Uint8Array([position]), enc.encode(card), salt));
}

function split(n) {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

// The root that leaf `index` of a `size`-leaf tree and its audit path (nearest sibling first) give.
export async function rootFromPath(index, size, leafData, path) {
  const sides = [];
  let lo = 0;
  let n = size;
  while (n > 1) {
    const k = split(n);
    if (index - lo < k) {
      sides.push(false);
      n = k;
    } else {
      sides.push(true);
      lo += k;
      n -= k;
    }
  }
  if (sides.length !== path.length) throw new Error("path length");
  let digest = await sha256(concat(new Uint8Array([0]), leafData));
  sides.reverse();
  for (let i = 0; i < path.length; i++) {
    const sibling = fromHex(path[i]);
    if (sibling.length !== 32) throw new Error("path hash");
    const pair = sides[i] ? concat(sibling, digest) : concat(digest, sibling);
    digest = await sha256(concat(new Uint8Array([1]), pair));
  }
  return digest;
}

// {ok, reason}: does the opening put its card at its position under the published root?
export async function verifyOpening(rootHex, opening) {
  try {
    const { position, card, salt, path } = opening;
    const leaf = await leafHash(position, card, salt);
    const root = toHex(await rootFromPath(position, DECK_SIZE, leaf, path));
    if (root === String(rootHex).toLowerCase()) return { ok: true, reason: "" };
    return { ok: false, reason: `card ${card} at position ${position} does not match the deck root` };
  } catch (err) {
    return { ok: false, reason: `malformed opening (${err.message})` };
  }
}
