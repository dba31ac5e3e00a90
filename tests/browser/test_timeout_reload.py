"""The table's words for a timeout come back with the page (R-TIMEOUT-SAID, protocol 1.7): a tab
opened on a table mid-hand, with nothing kept in its sessionStorage, has them in its status line
and its dealer log, drawn from the snapshot's ``timeout_notes``, as the table said them live."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import Server, serve_room
from tests.browser.test_play import DESKTOP, take_seat
from tests.browser.test_seat_life import first_to_act, free_table, hero_seat, players

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A room with no time bank and a clock of 3 s + 12 s: long enough for the next player's
    decision to outlast two pages opening on a loaded machine."""
    settings = {"default_table_copies": 2, "time_bank_seconds": 0, "time_bank_max_seconds": 0}
    with serve_room(
        tmp_path_factory.mktemp("timeout_room"), think=3, countdown=12, hand_pause=2, settings=settings
    ) as server:
        yield server


DEALER_LINES = "els => els.map(e => e.textContent)"


def said(page: Any) -> tuple[str, list[str]]:
    """The status line and the dealer log's lines now."""
    lines: list[str] = page.eval_on_selector_all("#log-lines .log-line.dealer", DEALER_LINES)
    return page.inner_text("#status-line"), lines


def test_a_fresh_tab_says_the_timeout_in_its_status_line_and_its_dealer_log(
    browser: Any, room: Server
) -> None:
    """Three at a stud table (3 s + 12 s, no bank): the player facing the bring-in lets his clock
    run out and is protected all-in; while the next player thinks, the one who timed out opens
    the table in a new tab and a watcher opens it: both say it in the table's words."""
    table_id = free_table(room)
    contexts, pages, names, errors = players(browser, room, "ada", "ben", "cal")
    for page in pages:
        take_seat(page, table_id)
    bringer = first_to_act(pages, time.monotonic() + 30)
    bringer.locator("#actions button[data-kind='bring_in']").click()
    late = first_to_act([p for p in pages if p is not bringer], time.monotonic() + 15)
    words = f"{names[pages.index(late)]} timed out: protected all-in (1 of 2 today)"
    late_seat = hero_seat(late)
    bringer.wait_for_selector(f".seat[data-seat='{late_seat}'] .timeout-note", timeout=30000)
    # Live, the table says it (state.js): the status line and the log's timeout line.
    bringer.wait_for_function("(w) => document.querySelector('#status-line').textContent === w", arg=words)
    assert words in said(bringer)[1]
    # A new tab of the player who timed out (its sessionStorage empty), and a watcher's page.
    fresh = late.context.new_page()
    watcher = browser.new_context(viewport=DESKTOP).new_page()
    for page in (fresh, watcher):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{room.url}#/table/{table_id}")
    for page in (fresh, watcher):
        page.wait_for_function(
            "() => window.studpoker.state?.hand && !window.studpoker.state.hand.over", timeout=15000
        )
        # Nobody has acted since (the next player is still thinking): the timeout is the last word.
        page.wait_for_function(
            "(w) => document.querySelector('#status-line').textContent === w", arg=words, timeout=5000
        )
        assert words in said(page)[1], said(page)
    assert said(bringer)[0] == words  # still the table's last word: the next player has not acted
    assert not errors, errors
    watcher.context.close()
    for ctx in contexts:
        ctx.close()


# A snapshot of a hand in which bob's clock folded him (no protected all-in left), then carl
# called: the status line is carl's call, the log has bob's words on his timeout's line.
SNAPSHOT_CHECK = """
async () => {
  const { DealerLog, lastSaid } = await import('/js/dealer_log.js');
  const note = { kind: 'timed_out', seat: 2, name: 'bob', outcome: 'fold', protected_used: 2,
    protected_per_day: 2, text: 'bob timed out: folded (no protected all-in left: 2 of 2 used today)' };
  const events = [
    { version: 1, kind: 'hand_start', detail: '7S' },
    { version: 2, kind: 'street', street: 'third' },
    { version: 3, kind: 'action', seat: 1, action: 'bring_in', amount: 25 },
    { version: 4, kind: 'timeout', seat: 2, detail: 'fold' },
    { version: 5, kind: 'action', seat: 2, action: 'fold', amount: 0 },
  ];
  const names = { 1: 'ann', 2: 'bob', 3: 'carl' };
  const context = { nameOf: (s) => names[s], me: null, game: '7S' };
  const log = new DealerLog({ storage: null, now: () => 1 });
  log.open(1);
  const msg = { type: 'table_state', table_id: 1, hand_id: 'h1', hand_events: events, timeout_notes: [note] };
  log.snapshot(msg, context);
  const afterFold = lastSaid(events, [note]);
  const called = [...events, { version: 6, kind: 'action', seat: 3, action: 'call', amount: 25 }];
  return { lines: log.linesOf('h1').map((l) => l.text), afterFold, afterCall: lastSaid(called, [note]),
    noWords: lastSaid(events, []) };
}
"""


def test_the_snapshot_puts_the_words_on_the_timeouts_line_and_the_status(
    browser: Any, server: Server
) -> None:
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(server.url)
    got = page.evaluate(SNAPSHOT_CHECK)
    words = "bob timed out: folded (no protected all-in left: 2 of 2 used today)"
    assert words in got["lines"] and "bob folds" in got["lines"]
    assert not any(line == "bob timed out: folded" for line in got["lines"])
    assert got["afterFold"] == {"seat": 2, "action": "timed_out", "text": words}
    assert got["afterCall"] == {"seat": 3, "action": "call", "amount": 25}
    assert got["noWords"] == {"seat": 2, "action": "fold", "amount": 0}
    page.context.close()
