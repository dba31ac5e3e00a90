"""The dealer log does not give the showdown away (issue 12): while the table turns the shown hands
up one by one (table.js), a shown hand's line comes only once the table has it face up and the
win lines only once the result banner is up. And a decision that used the time bank says so, the
same after the log is written again from a snapshot's events (a reload)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.scripted import handle, scripted_table
from tests.browser.test_client import six_handed_messages

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}

# The messages handled one by one in the page and, after each, the dealer log's lines: all in
# one task, so no timer of the page (the table's turning up) runs in between.
HANDLE_AND_READ = """
(messages) => {
  const texts = () => [...document.querySelectorAll('#log-lines .log-line.dealer')].map((e) => e.textContent);
  return messages.map((m) => { window.studpoker.handle(m); return texts(); });
}
"""

# Every change of the log from now on: its lines, whether the result banner is up, and how many
# cards of each seat are face down (a card back, or the hero's own down card shown to him only).
LOG_WATCH = """
() => {
  window.__log = [];
  const down = (seat) => [...document.querySelectorAll(`#seats .seat[data-seat="${seat}"] .card`)]
    .filter((c) => !c.dataset.card || c.classList.contains('hole')).length;
  new MutationObserver(() => {
    window.__log.push({
      texts: [...document.querySelectorAll('#log-lines .log-line.dealer')].map((e) => e.textContent),
      banner: Boolean(document.querySelector('#center .result-banner')),
      down: { 1: down(1), 5: down(5), 7: down(7) },
    });
  }).observe(document.querySelector('#log-lines'), { childList: true, subtree: true });
}
"""


def versioned_hand() -> list[dict[str, Any]]:
    """The scripted six-handed hand, each engine event with its engine version (the server's
    events have one; the dealer log writes only those)."""
    messages = six_handed_messages()
    events = [m["event"] for m in messages if m["type"] == "event"]
    for number, event in enumerate(events, start=1):
        event["version"] = number
    return messages


def log_texts(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#log-lines .log-line.dealer", "els => els.map(e => e.textContent)"
    )
    return texts


def open_scripted(browser: Any, server: Server) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    scripted_table(page, server)
    page.evaluate("() => { sessionStorage.clear(); window.studpoker.chat.open(1); }")
    return context, page, errors


def first(records: list[dict[str, Any]], starts: str) -> dict[str, Any]:
    """The first change of the log that showed a line starting with ``starts``."""
    return next(r for r in records if any(t.startswith(starts) for t in r["texts"]))


def test_the_log_names_no_winner_before_the_table_turns_the_hands_up(browser: Any, server: Server) -> None:
    """Scripted six-handed showdown: dave shows first, then alice (who wins both pots), then erin."""
    context, page, errors = open_scripted(browser, server)
    messages = versioned_hand()
    kinds = [m.get("event", {}).get("kind") for m in messages]
    showdown, end = kinds.index("show"), kinds.index("hand_end")
    handle(page, *messages[:showdown])
    page.evaluate(LOG_WATCH)
    logs = page.evaluate(HANDLE_AND_READ, messages[showdown : end + 1])
    # The show and award events are in, the table has not ended the hand: nothing of them yet.
    for texts in logs[:-1]:
        assert not any(" shows " in t or " wins " in t for t in texts), texts
    # The hand is over: the table turns up the first hand shown, dave's; nobody has won yet.
    at_end = logs[-1]
    assert any(t.startswith("dave shows ") for t in at_end), at_end
    assert not any(t.startswith(("alice shows ", "erin shows ")) or " wins " in t for t in at_end), at_end
    # After the reveal: every hand shown and the winner, each line once the table showed it.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log-lines .log-line.dealer')]"
        ".some((e) => e.textContent.includes(' wins '))",
        timeout=5000,
    )
    records: list[dict[str, Any]] = page.evaluate("() => window.__log")
    assert first(records, "alice shows ")["down"]["1"] == 0
    assert first(records, "erin shows ")["down"]["7"] == 0
    assert first(records, "alice wins ")["banner"]
    final = records[-1]["texts"]
    showdown_lines = [t for t in final if " shows " in t or " wins " in t]
    assert [t.split(" ")[0] + " " + t.split(" ")[1] for t in showdown_lines] == [
        "dave shows",
        "alice shows",
        "erin shows",
        "alice wins",
        "alice wins",
    ]
    assert "alice wins 22.00 from the pot" in final and "alice wins 32.00 from side pot 1" in final
    handle(page, *messages[end + 1 :])
    assert errors == []
    context.close()


def test_a_time_bank_used_is_in_the_log_and_the_log_comes_back_the_same(browser: Any, server: Server) -> None:
    context, page, errors = open_scripted(browser, server)
    messages = versioned_hand()
    for message in messages:
        event = message.get("event", {})
        if event.get("kind") == "action" and (event["seat"], event["action"]) in ((1, "raise"), (5, "bet")):
            event["time_bank"] = 12.4 if event["seat"] == 1 else 3.0
    showdown = [m.get("event", {}).get("kind") for m in messages].index("show")
    handle(page, *messages[:showdown])
    live = log_texts(page)
    assert "alice raises to 10.00 (time bank 12.4 s)" in live
    assert "dave bets 10.00 (time bank 3.0 s)" in live
    assert sum("time bank" in t for t in live) == 2
    # A reload: the log written again from the snapshot's events (protocol 1.6 hand_events).
    events = [m["event"] for m in messages[:showdown] if m["type"] == "event"]
    page.evaluate(
        """(events) => {
            const app = window.studpoker;
            const nameOf = (seat) => app.state.seats.find((s) => s.seat === seat)?.name ?? `Seat ${seat}`;
            app.chat.dealer.current = null;
            app.chat.dealer.hands = [];
            app.chat.dealer.snapshot({ hand_id: 'h1', table: { game: '7S' }, hand_events: events },
                                     { nameOf, me: 1, game: '7S' });
        }""",
        events,
    )
    assert log_texts(page) == live
    assert errors == []
    context.close()


def test_the_log_keeps_the_engines_order_whatever_order_the_events_come_in(
    browser: Any, server: Server
) -> None:
    """A seat's own cards and the table's events travel in different messages: on a loaded
    machine the bring-in came in before the up cards, and the live log said so while the log
    written again from the snapshot (a reload) did not. The lines follow the engine's versions."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(server.url)
    page.wait_for_selector("#tables-body tr")
    texts = page.evaluate(
        """async () => {
            const { HandLog } = await import('/js/dealer_log.js');
            const names = { 1: 'ann', 2: 'ben' };
            const events = [
              { version: 1, kind: 'street', street: 'third' },
              { version: 2, kind: 'deal', seat: 1, street: 'third', detail: 'down', cards: ['5c'] },
              { version: 3, kind: 'deal', seat: 1, street: 'third', detail: 'up', cards: ['3c'] },
              { version: 4, kind: 'deal', seat: 2, street: 'third', detail: 'up', cards: ['Ts'] },
              { version: 5, kind: 'action', seat: 1, action: 'bring_in', amount: 25 },
              { version: 6, kind: 'action', seat: 2, action: 'call', amount: 25 },
            ];
            const write = (order) => {
              const log = new HandLog('h1', { game: '7S', nameOf: (s) => names[s], me: 1 });
              for (const i of order) log.add(events[i], 0);
              return log.lines.map((l) => l.text);
            };
            return [write([0, 1, 2, 3, 4, 5]), write([0, 4, 1, 2, 5, 3]), write([0, 4, 3, 1, 5, 2])];
        }"""
    )
    in_order, *swapped = texts
    assert in_order[2].startswith("Up cards: ann") and "ben" in in_order[2], in_order
    assert in_order[3].startswith("ann brings in"), in_order
    for lines in swapped:
        assert lines == in_order
    page.context.close()


# The page's estimate of the server's clock (socket.js serverNow) is set again by every message
# with a `server_time`; one handled behind a backlog of events (a loaded machine) sets it back.
STEPPING_CLOCK = """
(stepAt) => {
  let handled = 0, t = 100;
  const app = window.studpoker;
  app.chat.dealer.now = () => (t += 0.01) - (handled >= stepAt ? 1.5 : 0);
  const texts = () => [...document.querySelectorAll('#log-lines .log-line.dealer')].map((e) => e.textContent);
  return { handle: (m) => { app.handle(m); handled++; }, texts };
}
"""


def test_the_panel_keeps_the_logs_order_when_the_pages_clock_steps_back(browser: Any, server: Server) -> None:
    """CI on a loaded machine: the live panel had the bring-in right after the hand's header,
    before the antes, the log written again after a reload did not. The lines' times come from
    the page's estimate of the server's clock, which a your_turn handled late set back; the panel
    sorted every line by its time. The dealer's lines keep the log's (the engine's) order, and a
    chat line goes among them by its time."""
    context, page, errors = open_scripted(browser, server)
    messages = versioned_hand()
    kinds = [m.get("event", {}).get("kind") for m in messages]
    bring_in = kinds.index("action")
    texts = page.evaluate(
        f"""(messages) => {{
            const clock = ({STEPPING_CLOCK})({bring_in});
            messages.forEach(clock.handle);
            return clock.texts();
        }}""",
        messages[: bring_in + 3],
    )
    log = page.evaluate("() => window.studpoker.chat.dealer.linesOf('h1').map((l) => l.text)")
    assert texts == log, texts
    assert texts[0].startswith("Hand h1") and texts[1] == "alice posts the ante 1.00", texts
    assert texts.index("bob brings in for 2.50") > texts.index("3rd street"), texts
    # chat lines by the server's time: one from before the hand, one from after these lines
    for number, at in ((1, 1.0), (2, 10_000.0)):
        line = {"id": number, "account_id": 2, "name": "bob", "seat": 2, "text": f"line {number}", "at": at}
        handle(page, {"type": "chat", "table_id": 1, "line": line})
    kinds_drawn = page.eval_on_selector_all(
        "#log-lines .log-line", "els => els.map((e) => e.classList.contains('chat') ? 'chat' : 'dealer')"
    )
    assert kinds_drawn == ["chat", *["dealer"] * len(log), "chat"], kinds_drawn
    assert log_texts(page) == log
    assert errors == []
    context.close()
