"""The tile view does what a table does (issue 12): a player seated at two tables in tiles sits out
at one and comes back (I'm back at his seat), adds chips at the other from the chips dialog (the
header's bankroll follows), leaves both; with opponents dealt in, he reads one table's dealer log
(that table's lines only), is told of a chat line at the other by a count on its collapsed panel,
answers there (his line reaches that table, the box clears), is told in that panel when he chats
too fast, and sees each stud table's live-card counts, hidden at one tile by its own toggle. And
(scripted) each tile's dealer log follows its own table's showdown, not the other tile's drawing.
Writes tiles_chat.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.scripted import handle
from tests.browser.test_chat import say, shown
from tests.browser.test_chips import closed, sit, toast
from tests.browser.test_dealer_log import versioned_hand
from tests.browser.test_play import register

pytestmark = pytest.mark.browser

WIDE = {"width": 1440, "height": 900}
STUD = ("7S", "7S8", "RZ")


def suffix() -> str:
    return str(int(time.time() * 1000) % 10**7)


def free_stud_tables(server: Server, count: int) -> list[int]:
    """Free stud tables at 0.50/1 (buy-ins from 10.00 to 50.00): two of them fit a new bankroll."""
    tables = [
        t["id"] for t in server.tables() if t["game"] in STUD and t["big_bet"] == 100 and not t["seated"]
    ]
    assert len(tables) >= count, f"not {count} free stud tables at 0.50/1"
    return tables[:count]


def tile(table_id: int) -> str:
    return f"#view-tiles .tile[data-table='{table_id}']"


def open_tiles(page: Any, *table_ids: int) -> None:
    page.evaluate("h => { location.hash = h; }", "#/tiles/" + ",".join(map(str, table_ids)))
    for table_id in table_ids:
        page.wait_for_selector(f"{tile(table_id)} .seat.hero .plate")


def seat_box(page: Any, table_id: int, label: str) -> Any:
    return page.locator(f"{tile(table_id)} .seat-options label", has_text=label).locator("input")


def bankroll(page: Any, text: str) -> None:
    page.wait_for_function(
        "t => document.querySelector('#me-bankroll').textContent === t", arg=text, timeout=15000
    )


def stack(page: Any, table_id: int) -> str:
    text: str = page.inner_text(f"{tile(table_id)} .seat.hero .plate .stack")
    return text


def log_texts(page: Any, table_id: int, kind: str) -> list[str]:
    """The lines of a tile's chat and dealer panel (open or not): its dealer or chat lines."""
    texts: list[str] = page.eval_on_selector_all(
        f"{tile(table_id)} .tile-chat .log-line.{kind}", "els => els.map(e => e.textContent)"
    )
    return texts


def test_sit_out_and_back_add_chips_and_leave_at_one_tile(browser: Any, server: Server) -> None:
    first, second = free_stud_tables(server, 2)
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    register(page, server, f"tile{suffix()}")
    sit(page, first, "40.00")
    sit(page, second, "40.00")
    open_tiles(page, first, second)
    bankroll(page, "20.00")
    # Each tile's seat controls are its own: no id twice in the page, one radio group per tile.
    parts = page.evaluate(
        """() => {
            const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);
            return {
                twice: ids.filter((id, i) => ids.indexOf(id) !== i),
                radios: [...document.querySelectorAll('#view-tiles input[type=radio]')].map((e) => e.name),
            };
        }"""
    )
    assert parts["twice"] == [], parts
    assert len(parts["radios"]) == 4 and len(set(parts["radios"])) == 2, parts

    # Sit out at the first tile (no hand there: at once); I'm back comes at his seat there only.
    seat_box(page, first, "Sit out next hand").check()
    page.wait_for_selector(f"{tile(first)} .seat.hero .im-back")
    assert (
        page.locator(f"{tile(first)} .seat-notice").inner_text()
        == "You are sitting out: press I'm back to play"
    )
    assert page.locator(f"{tile(first)} .seat.hero .plate .tag").inner_text() == "Sitting out"
    assert page.locator(f"{tile(second)} .seat.hero .im-back").count() == 0
    assert not seat_box(page, second, "Sit out next hand").is_checked()
    page.click(f"{tile(first)} .seat.hero .im-back")
    page.wait_for_selector(f"{tile(first)} .seat.hero .im-back", state="detached", timeout=10000)
    page.wait_for_selector(f"{tile(first)} .seat.hero:not(.sitting-out)")
    assert not seat_box(page, first, "Sit out next hand").is_checked()

    # Chips at the second tile: the dialog is that table's, the chips land there only.
    page.click(f"{tile(second)} .tile-chips")
    page.wait_for_selector("#chips-dialog[open]")
    page.wait_for_function("() => document.querySelector('#chips-bankroll').textContent === '20.00'")
    assert page.inner_text("#chips-stack") == "40.00"
    assert page.inner_text("#chips-range").startswith("You can add up to 10.00: a stack may hold 50.00")
    page.fill("#chips-amount", "10.00")
    page.click("#chips-add")
    closed(page)
    toast(page, "10.00 added to your stack.")
    page.wait_for_function(
        "s => document.querySelector(s).textContent === '50.00'",
        arg=f"{tile(second)} .seat.hero .plate .stack",
    )
    assert stack(page, first) == "40.00"
    bankroll(page, "10.00")  # the header follows the chips bought

    # Leave the second table (no hand: at once): the seat is cashed out into the header's bankroll.
    seat_box(page, second, "Leave after this hand").check()
    page.wait_for_selector(f"{tile(second)} .seat.hero", state="detached", timeout=15000)
    bankroll(page, "60.00")
    assert page.locator(f"{tile(second)} .tile-chips").is_hidden()
    assert page.locator(f"{tile(first)} .tile-chips").is_visible()
    seat_box(page, first, "Leave after this hand").check()
    page.wait_for_selector(f"{tile(first)} .seat.hero", state="detached", timeout=15000)
    bankroll(page, "100.00")
    assert not errors, errors
    context.close()


def test_one_tiles_dealer_log_chat_with_unread_count_and_live_cards(browser: Any, server: Server) -> None:
    first, second = free_stud_tables(server, 2)
    contexts = [browser.new_context(viewport=WIDE) for _ in range(3)]
    hero, opp1, opp2 = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (hero, opp1, opp2):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    tag = suffix()
    names = {"hero": f"tia{tag}", "opp1": f"ott{tag}", "opp2": f"ola{tag}"}
    register(hero, server, names["hero"])
    register(opp1, server, names["opp1"])
    register(opp2, server, names["opp2"])
    sit(hero, first, "20.00")
    sit(hero, second, "20.00")
    open_tiles(hero, first, second)
    sit(opp1, first, "20.00")
    sit(opp2, second, "20.00")

    # Each stud tile counts the up cards it shows; the toggle hides one tile's tray only. (Nobody
    # acts: the first hand at each table ends when the clock has folded someone, and the player
    # timed out sits out, so the counts are read while the first hands are dealt.)
    for table_id in (first, second):
        hero.wait_for_function(
            """s => { const t = document.querySelector(s);
                      const tray = t.querySelector('.tile-live-cards');
                      const up = t.querySelectorAll('.seats .card[data-up="1"]').length;
                      return !tray.hidden && up >= 2 && Number(tray.dataset.up) === up; }""",
            arg=tile(table_id),
            timeout=30000,
        )
    assert hero.locator(f"{tile(first)} .tile-live-cards .lc-outs").count() == 1  # his outs, live
    hero.click(f"{tile(first)} .tile-live-btn")
    assert hero.locator(f"{tile(first)} .tile-live-cards").is_hidden()
    assert hero.locator(f"{tile(second)} .tile-live-cards").is_visible()
    hero.click(f"{tile(first)} .tile-live-btn")
    assert hero.locator(f"{tile(first)} .tile-live-cards").is_visible()

    # The second table's log, opened on demand: its hand, its antes, nobody of the first table.
    hero.wait_for_function(
        "([s, name]) => [...document.querySelectorAll(s)]"
        ".some(e => e.textContent.startsWith(name + ' posts the ante'))",
        arg=[f"{tile(second)} .tile-chat .log-line.dealer", names["opp2"]],
        timeout=30000,
    )
    hero.click(f"{tile(second)} .tile-log summary")
    assert hero.locator(f"{tile(second)} .tile-chat").is_visible()
    assert hero.locator(f"{tile(first)} .tile-chat").is_hidden()
    lines = log_texts(hero, second, "dealer")
    assert any(re.fullmatch(r"Hand [0-9a-f]{8}: .+", line) for line in lines), lines
    assert any(
        re.fullmatch(re.escape(names["opp2"]) + r" posts the ante \d+\.\d\d", line) for line in lines
    ), lines
    assert not any(names["opp1"] in line for line in lines), lines
    hero.click(f"{tile(second)} .tile-chat [data-filter='dealer']")
    assert hero.locator(f"{tile(second)} .tile-chat .log-line.chat").count() == 0
    hero.click(f"{tile(second)} .tile-log summary")  # closed again

    # A line at the first table: its collapsed panel counts it, the other tile's does not.
    say(opp1, "hi from the first table")
    unread = f"{tile(first)} .tile-unread"
    hero.wait_for_selector(f"{unread}:not([hidden])", timeout=15000)
    assert hero.inner_text(unread) == "1"
    assert hero.locator(f"{tile(second)} .tile-unread").is_hidden()
    hero.click(f"{tile(first)} .tile-log summary")
    hero.wait_for_selector(unread, state="hidden")  # read: the count goes
    said = hero.eval_on_selector_all(
        f"{tile(first)} .log-line.chat",
        "els => els.map(e => e.querySelector('.who').textContent + ': '"
        " + e.querySelector('.text').textContent)",
    )
    assert f"{names['opp1']}: hi from the first table" in said, said
    # His answer, from that tile: it reaches that table, and the box clears (the ack came back here).
    box = f"{tile(first)} .chat-form input"
    hero.fill(box, "hello from the tiles")
    hero.press(box, "Enter")
    shown(opp1, "hello from the tiles")
    hero.wait_for_function("s => document.querySelector(s).value === ''", arg=box)
    assert not opp2.locator("#log-lines .text", has_text="hello from the tiles").count()
    hero.wait_for_timeout(300)
    hero.screenshot(path=str(SCREENSHOTS / "tiles_chat.png"))
    # Too fast (5 lines in 10 s): the refusal is said in that tile's panel, the line kept.
    for n in range(4):
        hero.fill(box, f"line {n}")
        hero.press(box, "Enter")
        hero.wait_for_function("s => document.querySelector(s).value === ''", arg=box)
    hero.fill(box, "one too many")
    hero.press(box, "Enter")
    note = f"{tile(first)} .chat-note"
    hero.wait_for_function("s => document.querySelector(s).textContent.includes('too fast')", arg=note)
    assert hero.input_value(box) == "one too many"
    assert hero.locator(f"{tile(second)} .chat-note").inner_text() == ""

    for page in (opp1, opp2):
        page.click("#standup-btn")
    for table_id in (first, second):
        seat_box(hero, table_id, "Leave after this hand").check()
    for table_id in (first, second):
        hero.wait_for_selector(f"{tile(table_id)} .seat.hero", state="detached", timeout=30000)
    assert not errors, errors
    for c in contexts:
        c.close()


def on_table(messages: list[dict[str, Any]], table_id: int, hand_id: str) -> list[dict[str, Any]]:
    """The scripted hand's messages as table ``table_id``'s, its hand named ``hand_id``."""
    out = []
    for message in messages:
        moved = {**message, "table_id": table_id}
        if "hand_id" in moved and moved["hand_id"] is not None:
            moved["hand_id"] = hand_id
        if "table" in moved:
            moved["table"] = {**moved["table"], "id": table_id}
        out.append(moved)
    return out


def test_each_tiles_dealer_log_follows_its_own_tables_showdown(browser: Any, server: Server) -> None:
    """Two scripted tables in tiles (ids the room does not have: only the script speaks for them):
    the first shows down while the second, mid-hand, is drawn (a resize draws every tile). The
    first tile's log names no winner before its own table has turned the hands up."""
    first, second = 9101, 9102
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_function("() => window.studpoker && window.studpoker.socket")
    page.evaluate(
        """([a, b]) => {
            sessionStorage.clear();
            const app = window.studpoker;
            app.me = { id: 1, name: 'alice', bankroll: 100000 };
            document.querySelector('#view-lobby').hidden = true;
            app.tiles.show([a, b]);
        }""",
        [first, second],
    )
    hand = versioned_hand()
    showdown = [m.get("event", {}).get("kind") for m in hand].index("show")
    handle(page, *on_table(hand[:showdown], second, "h2"))
    dealer_lines = f"{tile(first)} .tile-chat .log-line.dealer"
    # The first table's showdown comes in and every tile is drawn, in one task (no timer between).
    at_end: list[str] = page.evaluate(
        """([messages, lines]) => {
            for (const m of messages) window.studpoker.handle(m);
            dispatchEvent(new Event('resize'));
            return [...document.querySelectorAll(lines)].map((e) => e.textContent);
        }""",
        [on_table(hand, first, "h1"), dealer_lines],
    )
    assert any(line.startswith("dave shows ") for line in at_end), at_end
    assert not any(" wins " in line for line in at_end), at_end
    page.wait_for_function(
        "s => [...document.querySelectorAll(s)].some((e) => e.textContent.startsWith('alice wins '))",
        arg=dealer_lines,
        timeout=10000,
    )
    shown_down = log_texts(page, first, "dealer")
    assert "alice wins 22.00 from the pot" in shown_down, shown_down
    assert sum(" shows " in line for line in shown_down) == 3, shown_down
    mid_hand = log_texts(page, second, "dealer")
    assert mid_hand and not any(" shows " in line or " wins " in line for line in mid_hand), mid_hand
    # A tile's message met a newer table (stale): the answer reaches that tile, whose table asks
    # for its state again, and the page shows nothing of it.
    sent = page.evaluate(
        """(a) => {
            const app = window.studpoker;
            const sent = [];
            const send = app.socket.send.bind(app.socket);
            app.socket.send = (m) => (sent.push(m), send(m));
            const ref = app.tiles.entries.get(a).session.socket().send({ type: 'ping' });
            app.handle({ type: 'error', code: 'stale', message: 'a stale action', ref });
            app.socket.send = send;
            return sent;
        }""",
        first,
    )
    assert {"type": "resync", "table_id": first} in [
        {k: m[k] for k in ("type", "table_id") if k in m} for m in sent
    ]
    assert "a stale action" not in page.inner_text("#toast")
    assert not errors, errors
    context.close()
