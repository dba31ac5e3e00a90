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
  hands: (params = {}) => request("GET", `/api/hands?${new URLSearchParams(params)}`),
  hand: (id) => request("GET", `/api/hands/${encodeURIComponent(id)}`),
};
