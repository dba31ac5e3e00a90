// REST calls to the room server. The session token is kept in localStorage so a reload keeps you in.

const TOKEN_KEY = "studpoker.token";

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function getToken() {
  return localStorage.getItem(TOKEN_KEY);
}

export function setToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

async function request(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = response.headers.get("content-type") ?? "";
  const data = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) throw new ApiError(response.status, errorText(data, response), data);
  return data;
}

// A file sent as it is (the replayer's dropped hand history: the server decodes it).
async function sendFile(path, file) {
  const headers = { Accept: "application/json", "Content-Type": "text/plain" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method: "POST", headers, body: file });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, errorText(data, response), data);
  return data;
}

// Errors come as {"error": {"code", "message"}} (docs/server.md).
function errorText(data, response) {
  const message = data?.error?.message;
  return typeof message === "string" ? message : `${response.status} ${response.statusText}`;
}

function takeToken(data) {
  if (data?.token) setToken(data.token);
  return data;
}

export const api = {
  register: (name, password) => request("POST", "/api/register", { name, password }).then(takeToken),
  login: (name, password) => request("POST", "/api/login", { name, password }).then(takeToken),
  logout: () => {
    const done = request("POST", "/api/logout").catch(() => null);
    setToken(null);
    return done;
  },
  me: () => request("GET", "/api/me"),
  topup: () => request("POST", "/api/topup", {}),
  tables: () => request("GET", "/api/tables"),
  games: () => request("GET", "/api/games"),
  hands: (params = {}) => request("GET", `/api/hands?${new URLSearchParams(params)}`),
  hand: (id) => request("GET", `/api/hands/${encodeURIComponent(id)}`),
  // the replayer (js/replayer.js) and the history panel's per-hand PokerStars text
  replay: (id) => request("GET", `/api/hands/${encodeURIComponent(id)}/replay`),
  publicHand: (id) => request("GET", `/api/hands/${encodeURIComponent(id)}/public`),
  replayFile: (file, hand = null) => sendFile(`/api/replay${hand ? `?hand=${hand}` : ""}`, file),
  handPokerStars: (id) => request("GET", `/api/hands/${encodeURIComponent(id)}/pokerstars`),
  // what the account keeps for itself: notes and colour tags on players, its shortcuts
  notes: () => request("GET", "/api/notes"),
  putNote: (name, text, colour) => request("PUT", `/api/notes/${encodeURIComponent(name)}`, { text, colour }),
  deleteNote: (name) => request("DELETE", `/api/notes/${encodeURIComponent(name)}`),
  preferences: () => request("GET", "/api/me/preferences"),
  putPreferences: (shortcuts) => request("PUT", "/api/me/preferences", { shortcuts }),
  // the auto top-up of your seats, kept with the account (chips.js)
  autoTopUp: () => request("GET", "/api/me/preferences/auto-top-up"),
  putAutoTopUp: (on) => request("PUT", "/api/me/preferences/auto-top-up", { auto_top_up: on }),
  // table chat (chat.js): the players you muted for yourself, reporting a line to the operator
  chatMutes: () => request("GET", "/api/me/chat/mutes"),
  muteChat: (name) => request("PUT", `/api/me/chat/mutes/${encodeURIComponent(name)}`),
  unmuteChat: (name) => request("DELETE", `/api/me/chat/mutes/${encodeURIComponent(name)}`),
  reportChat: (tableId, lineId, reason = null) => request("POST", `/api/tables/${tableId}/chat/${lineId}/report`, { reason }),
};
