// This client's share of the shuffle (docs/fairness.md): when the next hand's seed commitment is
// announced (deal_commitment, or next_deal in a snapshot) and we hold a seat, send one random
// seed for that hand, once, and remember it (in localStorage: a reload or a second window must
// neither send another nor forget it) so that hand_started can show it went into the deck.

const STORAGE_KEY = "studpoker.seeds";
const KEEP = 40; // hands remembered
export const SEED_BYTES = 16;

export function newSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(SEED_BYTES));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function memoryStorage() {
  const data = new Map();
  return { getItem: (k) => data.get(k) ?? null, setItem: (k, v) => data.set(k, String(v)) };
}

export class SeedKeeper {
  constructor({ storage = globalThis.localStorage ?? memoryStorage(), random = newSeed } = {}) {
    this.storage = storage;
    this.random = random;
    this.replies = new Map(); // message id -> key of the record it sent
  }

  key(account, handId) {
    return `${account ?? "guest"}:${handId}`;
  }

  load() {
    try {
      const data = JSON.parse(this.storage.getItem(STORAGE_KEY) ?? "{}");
      return data && typeof data === "object" ? data : {};
    } catch {
      return {};
    }
  }

  save(key, record) {
    const data = this.load();
    data[key] = { ...record, at: Date.now() };
    const keys = Object.keys(data).sort((a, b) => data[b].at - data[a].at);
    for (const old of keys.slice(KEEP)) delete data[old];
    try {
      this.storage.setItem(STORAGE_KEY, JSON.stringify(data));
    } catch {
      // storage full or refused: the record lives in this page only
    }
  }

  /** {seed, status} this browser sent for the hand ("sent", "taken", "already", "late", "refused"), or null. */
  recordFor(account, handId) {
    const rec = this.load()[this.key(account, handId)];
    return rec ? { seed: rec.seed, status: rec.status } : null;
  }

  /**
   * Send the seed for the announced next hand if we are seated and have not sent one (this page
   * or another). send(message) returns the message id, or null when the socket is not open (we
   * try again at the next change). Returns the id sent, or null.
   */
  maybeSend(st, send) {
    const next = st.nextDeal;
    if (!next?.handId || st.yourSeat === null || st.yourSeat === undefined) return null;
    const key = this.key(st.myAccount, next.handId);
    if (this.load()[key]) return null;
    const seed = this.random();
    const id = send({ type: "client_seed", table_id: st.tableId, hand_id: next.handId, seed });
    if (id === null || id === undefined) return null;
    this.save(key, { seed, status: "sent" });
    this.replies.set(id, key);
    return id;
  }

  /** An ack or error: true when it answers a client_seed of ours (then it is handled here). */
  onReply(msg) {
    const key = msg.ref !== undefined ? this.replies.get(msg.ref) : undefined;
    if (key === undefined) return false;
    this.replies.delete(msg.ref);
    const rec = this.load()[key];
    if (!rec) return true;
    if (msg.type === "ack") {
      this.save(key, { seed: rec.seed, status: "taken" });
    } else if (msg.code === "seed_already_sent") {
      // this page before a reload, or another window, got there first; a record another window
      // saved since with its accepted seed stays as it is
      if (rec.status !== "taken") this.save(key, { seed: rec.seed, status: "already" });
    } else {
      this.save(key, { seed: rec.seed, status: msg.code === "too_late" ? "late" : "refused" });
    }
    return true;
  }
}
