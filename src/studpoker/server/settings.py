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
    # Outgoing queue per connection; a client that falls this far behind is disconnected.
    send_queue_size: int = 1000
    # Guests (``/ws?guest=1``: watching without an account): at most this many connections at
    # once, and at most this many from one address.
    max_guests: int = 500
    max_guests_per_address: int = 20
    # The lobby push: changed tables are sent to subscribers at most this often.
    lobby_push_seconds: float = 1.0
    # The lobby's average pot and hands per hour are over the hands of this last period.
    stats_window_seconds: float = 3600.0
    # Serve the browser client from this directory if it exists (None: the packaged web/ dir).
    web_dir: str | None = None
