// The table WebSocket: connects, authenticates (or, without a token, connects as a guest who
// may only watch), reconnects with backoff, keeps a heartbeat, and hands every server message
// to one callback. Messages sent while the socket is down are
// not queued (a stale action must not be replayed later); table joins are re-sent on reconnect
// by the caller (onOpen).

export class Socket {
  constructor({ token, onMessage, onOpen, onStatus }) {
    this.token = token;
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus ?? (() => {});
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.heartbeat = 25;
    this.timer = null;
    this.seq = 0;
    this.serverOffset = 0; // server clock minus local clock, in seconds
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws${this.token ? "" : "?guest=1"}`;
  }

  connect() {
    this.closed = false;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.onStatus("connecting");
    ws.addEventListener("open", () => {
      this.retry = 0;
      if (this.token) this.send({ type: "auth", token: this.token });
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.server_time) this.serverOffset = message.server_time - Date.now() / 1000;
      if (message.type === "welcome") {
        this.heartbeat = message.heartbeat_seconds ?? this.heartbeat;
        this.startHeartbeat();
        this.onStatus("open");
        this.onOpen?.(message);
      }
      this.onMessage(message);
    });
    ws.addEventListener("close", () => {
      this.stopHeartbeat();
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.onStatus("reconnecting");
      const delay = Math.min(8000, 400 * 2 ** this.retry++) * (0.75 + Math.random() * 0.5);
      setTimeout(() => !this.closed && this.connect(), delay);
    });
    ws.addEventListener("error", () => ws.close());
  }

  /** Send one message; returns its id, or null when the socket is not open. */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = message.id ?? `c${++this.seq}`;
    this.ws.send(JSON.stringify({ ...message, id }));
    return id;
  }

  isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  /** Seconds on the server's clock now (deadlines are server Unix times). */
  serverNow() {
    return Date.now() / 1000 + this.serverOffset;
  }

  startHeartbeat() {
    this.stopHeartbeat();
    const every = Math.max(2, this.heartbeat * 0.6) * 1000;
    this.timer = setInterval(() => this.send({ type: "ping" }), every);
  }

  stopHeartbeat() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  close() {
    this.closed = true;
    this.stopHeartbeat();
    this.ws?.close();
    this.ws = null;
  }
}
