"""Server settings: one frozen record built by the CLI or by tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Settings:
    database_url: str = "sqlite+aiosqlite:///studpoker.sqlite3"
    host: str = "127.0.0.1"
    port: int = 8000
    # Bots seated at each default table (leaving at least one seat free for people).
    bots: int = 0
    # Seat the bots at the first N tables only (None: every table).
    bot_tables: int | None = None
    # Seconds a bot waits before acting (a random value in this range).
    bot_delay: tuple[float, float] = (0.6, 1.8)
    # The action clock: think time, then the visible countdown (also the reconnection extension).
    # None: each table's own setting (10 s + 20 s for the default tables); a number overrides
    # every table (tests use short clocks).
    think_seconds: float | None = None
    countdown_seconds: float | None = None
    # Pause between hands.
    hand_pause_seconds: float = 3.0
    # On shutdown, seconds the hands being played get to finish before they are voided.
    shutdown_grace_seconds: float = 0.0
    # Create the default tables when the store has none.
    default_tables: bool = True
    # Protected all-ins per account per day.
    protected_all_ins_per_day: int = 2
    # WebSocket: the client must send something (e.g. ping) at least this often, else it is dropped.
    heartbeat_seconds: float = 25.0
    heartbeat_timeout_seconds: float = 75.0
    # Protocol-level ping frames sent by uvicorn (browsers answer them by themselves).
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    max_message_bytes: int = 4096
    # Per-connection token bucket: messages per second and burst.
    message_rate: float = 10.0
    message_burst: float = 30.0
    # Login brute-force protection: failures per name+address within the window.
    login_max_failures: int = 5
    login_window_seconds: float = 300.0
    # Failed logins from one address over all names in the window (password spraying).
    login_max_failures_per_address: int = 50
    # --- Accounts: registration limits, free play money, password hashing (docs/server.md
    # "Accounts and logins"). An address is an IPv4 address or an IPv6 /64.
    # New accounts from one address in any hour (in memory: held off the hasher before it runs).
    registrations_per_address_per_hour: int = 5
    # New accounts from one address per UTC day, kept in the database (so across restarts): each
    # one is a starting grant, so this also caps the grants an address earns by farming accounts.
    registrations_per_address_per_day: int = 10
    # Daily top-ups claimed from one address per UTC day (each account still gets one a day).
    topups_per_address_per_day: int = 5
    # Threads hashing and checking passwords (argon2), off the event loop, and how many more
    # hashes may wait for them before a registration or login is answered 503 (busy).
    password_hash_workers: int = 1
    password_hash_max_waiting: int = 64
    # Outgoing queue per connection; a client that falls this far behind is disconnected.
    send_queue_size: int = 1000
    # Guests (``/ws?guest=1``: watching without an account): at most this many connections at
    # once, and at most this many from one address.
    max_guests: int = 500
    max_guests_per_address: int = 20
    # --- WebSocket fan-out caps and sessions (docs/server.md "Fan-out caps and sessions") ---
    # Sockets open at once per account (a player's tabs and devices; a lost socket lingers until
    # its heartbeat times out, so a few spare), and per client address, guests included (the
    # players of an office behind one NAT share one). Over either: error too_many_connections.
    max_sockets_per_account: int = 10
    max_sockets_per_address: int = 200
    # Watchers of one table; a seated player may always watch his own table. Over it:
    # join_table is refused with too_many_watchers.
    max_watchers_per_table: int = 200
    # Seat-state commands (sit, sit_out, sit_in, stand_up, add_chips) per account per table in
    # any window of this many seconds; more are refused with seat_rate_limited (bots are exempt).
    seat_commands_per_window: int = 10
    seat_command_window_seconds: float = 30.0
    # A table sends its seat list at most once per this many seconds: the first change at once,
    # the changes within the interval together when it ends (0: every change at once).
    seats_push_seconds: float = 0.25
    # How often the sockets of sessions that expired are closed (each message is checked too).
    session_sweep_seconds: float = 15.0
    # The lobby push: changed tables are sent to subscribers at most this often.
    lobby_push_seconds: float = 1.0
    # The lobby's average pot and hands per hour are over the hands of this last period.
    stats_window_seconds: float = 3600.0
    # --- Verifiable deals (docs/fairness.md) ---
    # Seconds after a hand ends from which GET /api/hands/{id}/seed gives its server seed to
    # anyone (a public audit of the shuffle). None (the default): never; only the operator reads
    # it, from the database (studpoker verify). The seed of a hand lets anyone rebuild its
    # folded and undealt cards: a house that publishes seeds should wait long enough.
    server_seed_public_after_seconds: float | None = None
    # Serve the browser client from this directory if it exists (None: the packaged web/ dir).
    web_dir: str | None = None
    # --- The HTTP layer (server/http.py, docs/server.md "The HTTP layer") ---
    # A request (head and body) must have arrived whole this many seconds after its connection
    # opened or after its first byte; a half-open request is closed. Browsers send a request in
    # one go; our request bodies are small JSON.
    http_request_timeout_seconds: float = 10.0
    # The largest request head (request line and headers); a longer one is answered 431 and
    # closed (httptools itself has no limit). Browsers send a few KiB (this client sets no
    # cookies); 64 KiB is four times uvicorn's h11 default.
    http_max_head_bytes: int = 65536
    # Open connections (HTTP and WebSocket) per client address (an IPv4 address or an IPv6 /64);
    # beyond it a new one is closed at once. A few hundred: the players of an office or campus
    # behind one NAT share an address, each with a WebSocket and a few short REST connections,
    # while one address can still hold only a small part of the process's file descriptors.
    # Trusted proxies are exempt.
    max_connections_per_address: int = 256
    # New connections per address: this many a second on average, up to a burst. A page load
    # opens a handful; an office behind one NAT a few dozen when everyone arrives at once. A
    # storm of handshakes beyond it is closed before it is read (the room's socket caps would
    # refuse them too, but only after reading and answering each one).
    new_connections_per_address_per_second: float = 20.0
    new_connections_burst_per_address: int = 100
    # Seconds an idle kept-alive HTTP connection stays open between requests (uvicorn's).
    http_keep_alive_seconds: int = 5
    # The listen backlog: connections the kernel queues before the server accepts them.
    listen_backlog: int = 2048
    # Reverse proxies (addresses or networks, e.g. "10.0.0.5", "10.0.0.0/24") whose
    # X-Forwarded-For / X-Forwarded-Proto give the client's address; none by default, so a
    # client cannot pick its own address (and dodge the per-address limits) with a header.
    trusted_proxies: tuple[str, ...] = ()
    # Hand-history downloads (GET /api/me/hands) running at once in the room; each replays every
    # hand it writes, so a few at a time keep the tables' share of the CPU (one per account).
    max_concurrent_exports: int = 2
