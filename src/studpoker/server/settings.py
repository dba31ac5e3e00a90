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
    # How often the room checks that every bot table has its bots (one that went broke is
    # replaced), and the bot accounts it opens per table at most over its life (docs/server.md
    # "Bots").
    bot_check_seconds: float = 5.0
    bot_accounts_per_table: int = 100
    # The action clock: think time, then the visible countdown (also the reconnection extension).
    # None: each table's own setting (10 s + 20 s for the default tables); a number overrides
    # every table (tests use short clocks).
    think_seconds: float | None = None
    countdown_seconds: float | None = None
    # The time bank (R-TIME-BANK, docs/server.md "The time bank"): seconds each seat holds when
    # it is taken, more every so many hands it plays, never more than the cap (0: no bank). It
    # runs after a decision's countdown; what ran is spent.
    time_bank_seconds: float = 30.0
    time_bank_add_seconds: float = 5.0
    time_bank_every_hands: int = 10
    time_bank_max_seconds: float = 60.0
    # A player who gives his seat up gets the bank he left back if he sits at that table again
    # within this many seconds (R-TIME-BANK-KEPT: standing up does not refill it); 0: never.
    time_bank_kept_seconds: float = 86_400.0
    # Pause between hands.
    hand_pause_seconds: float = 3.0
    # On shutdown, seconds the hands being played get to finish before they are voided.
    shutdown_grace_seconds: float = 0.0
    # Create the default tables when the store has none.
    default_tables: bool = True
    # The garbage collector of a room process (server/gc_policy.py; applied by the process entry
    # points only): young-generation threshold (0: Python's defaults), the two older ones, and
    # whether what exists once the room has started is frozen out of full collections.
    gc_threshold0: int = 50_000
    gc_threshold1: int = 20
    gc_threshold2: int = 20
    gc_freeze_after_start: bool = False
    # Default tables of each game and stake (the second is named "... #2", and so on).
    default_table_copies: int = 1
    # Protected all-ins per account per day.
    protected_all_ins_per_day: int = 2
    # The wait list of a full table (R-WAIT-LIST-OFFER): a freed seat is offered to the first
    # player waiting for this many seconds (held for him), then to the next; a table's list
    # holds at most this many players.
    seat_offer_seconds: float = 30.0
    wait_list_max: int = 50
    # A seat whose player is disconnected and sitting out is cashed out and freed after this
    # many seconds of it (R-IDLE-SEAT-FREED; a reconnect or sit_in before then keeps it).
    # None: never.
    idle_seat_seconds: float | None = 600.0
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
    # Count the login attempts and the registrations per address in the database
    # (``login_attempts``) rather than in memory: a cluster's gateways set it, so that they share
    # one count (docs/cluster.md "Shared state").
    shared_login_limits: bool = False
    # --- Accounts: registration limits, free play money, password hashing (docs/server.md
    # "Accounts and logins"). An address is an IPv4 address or an IPv6 /64.
    # New accounts from one address in any hour (counted before the hasher runs; in memory, or in
    # the database with shared_login_limits).
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
    # Seat-state commands (sit, sit_out, sit_in, stand_up, leave_after_hand, add_chips) per
    # account per table in any window of this many seconds; more are refused with
    # seat_rate_limited (bots are exempt).
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
    # WebSocket text frames shorter than this many bytes leave uncompressed even when the client
    # asked for permessage-deflate (compressing an event of a few hundred bytes cost more CPU
    # than the rest of its send); 0 compresses every frame the client lets us.
    ws_compress_min_bytes: int = 1024
    # Messages from one client that may wait for the app before its socket is no longer read
    # (uvicorn stopped reading after each one: two system calls a frame).
    ws_receive_queue_pause: int = 8
    # Reverse proxies (addresses or networks, e.g. "10.0.0.5", "10.0.0.0/24") whose
    # X-Forwarded-For / X-Forwarded-Proto give the client's address; none by default, so a
    # client cannot pick its own address (and dodge the per-address limits) with a header.
    trusted_proxies: tuple[str, ...] = ()
    # Hand-history downloads (GET /api/me/hands) running at once in the room; each replays every
    # hand it writes, so a few at a time keep the tables' share of the CPU (one per account).
    max_concurrent_exports: int = 2
    # --- The replayer (server/replays/; docs/histories.md "The replayer") ---
    # Each street's equity: the sampler stops at this many deals or seconds per position, or
    # once the 95 % interval of every player's equity is this narrow (exact positions are
    # counted out whatever these say: about a second at most).
    replay_equity_max_deals: int = 100_000
    replay_equity_max_seconds: float = 1.0
    replay_equity_precision: float = 0.002
    # One request's equity time in all: positions after it come without equity (a dropped file
    # of many hands: POST /api/replay?hand=N replays its Nth hand with the whole budget).
    replay_equity_budget_seconds: float = 15.0
    # A dropped file (POST /api/replay): at most this many bytes (else 413) and hands (else 422).
    replay_max_bytes: int = 1_048_576
    replay_max_hands: int = 200
    # Replays computed at once (CPU work in worker threads); past it 503 busy with Retry-After.
    max_concurrent_replays: int = 2
    # Stored hands' replays and equity positions kept in memory (a finished hand never changes).
    replay_cache_hands: int = 64
    replay_cache_positions: int = 4096
    # --- Player statistics (GET /api/me/stats, /api/players/{name}/stats; docs/client.md) ---
    # The figures are over a player's last this many finished hands (each one replayed once).
    stats_max_hands: int = 5000
    # At most this many points of the results curve (evenly spread over the hands).
    stats_plot_points: int = 500
    # Replayed hands whose figures are kept (by hand and seat; a finished hand never changes),
    # so that looking again replays only the new hands.
    stats_cache_hands: int = 50_000
    # Pages of replays running at once in the room (on worker threads); others wait their turn.
    max_concurrent_stats: int = 2
    # --- Player notes and colour tags (GET/PUT /api/notes/{name}; docs/client.md "Player notes") ---
    # A note's text is at most this many characters; an account keeps at most this many notes
    # (one per player it wrote about; past it a new one is refused, editing an old one is not).
    note_max_chars: int = 500
    notes_per_account: int = 1000
    # --- Table chat and moderation (server/chat/; docs/server.md "Table chat") ---
    # A line is at most this many characters; an account says at most this many lines at a
    # table in any window of that many seconds (more: chat_rate_limited).
    chat_max_chars: int = 200
    chat_lines_per_window: int = 5
    chat_window_seconds: float = 10.0
    # The lines a table keeps (in memory, for its snapshot; never across a restart).
    chat_history_lines: int = 50
    # Whether watchers without a seat may chat (seated players always may; guests never do).
    chat_watchers: bool = False
    # The players one account may mute for itself, and the lines it may report in any hour.
    chat_mutes_per_account: int = 500
    chat_reports_per_hour: int = 20
    # How often the room reads the operator's mutes and bans again (studpoker admin writes them
    # from another process); a banned account's sockets close at their next message after that.
    moderation_refresh_seconds: float = 5.0
    # How often the room looks again at its scheduled tournaments (docs/tournaments.md
    # "Scheduled tournaments"): it also wakes at the next start time it knows, but one created
    # meanwhile by `studpoker tournament create` or `schedule` (another process) is seen by then,
    # and so is the end of a late registration.
    tournament_check_seconds: float = 5.0
    # --- The cluster roles (studpoker gateway / worker; docs/cluster.md "Roles") ---
    # A worker's lease on each table it owns lasts this long and is renewed every third of it;
    # a dead worker's tables are taken over about this long after it stopped renewing.
    lease_seconds: float = 5.0
    # A worker beats its heartbeat and waits this long before its first claim, so that workers
    # started together count each other in the fair share (else the first takes every table).
    worker_settle_seconds: float = 1.5
    # How many workers a launcher started together (``cluster up`` sets its --workers): after the
    # settle a worker waits, up to worker_settle_max_seconds, until that many beat (1: no wait).
    expected_workers: int = 1
    worker_settle_max_seconds: float = 15.0
    # A gateway announces itself and its connections on room.presence this often; a worker
    # forgets the watchers of a gateway it has not heard from in gateway_timeout_seconds (one
    # killed), so their players stop counting as connected.
    presence_seconds: float = 2.0
    # A gateway's table command is a request its table's owner answers once it has it; while
    # no owner answers (a takeover: no subscriber, or one stopped) it is sent again every
    # command_retry_seconds, and dropped with an ``unavailable`` error to its client after
    # command_give_up_seconds (a lease and a claim round past a dead owner, with room to spare).
    command_reply_timeout_seconds: float = 2.0
    command_retry_seconds: float = 0.2
    command_give_up_seconds: float = 20.0
    # A gateway's tournament registration is a request to the tournament's owner
    # (cluster/gateway_tournaments.py): asked again while nobody answers (a takeover), refused
    # ``unavailable`` after this many seconds.
    tournament_request_seconds: float = 10.0
    gateway_timeout_seconds: float = 10.0
    # --- cluster up's supervision of its gateways and workers (docs/cluster.md "Supervision") ---
    # A role that crashes is started again after this back-off, doubled for each earlier crash
    # within the window, at most the maximum; a crashed worker waits at least this many leases
    # (the survivors take its tables over first, as from any dead worker).
    restart_backoff_seconds: float = 0.5
    restart_backoff_max_seconds: float = 30.0
    restart_worker_leases: float = 2.0
    # A role that crashes this many times within the window stops the whole cluster.
    restart_limit: int = 5
    restart_window_seconds: float = 60.0
