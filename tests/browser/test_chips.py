"""Chips at the table in the browser (issue 12, items 6 and 7): the header's "+" says why it gave
nothing; the Chips dialog shows the stack, the bankroll and what the table still allows, adds
chips between hands at once and says so when the stack is at the maximum buy-in; during a hand
the chips wait and land when it ends, the stack in play unchanged; the auto top-up tops the
seat up, is kept with the account, and follows the buy-in at the next table."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, click_passive, register

pytestmark = pytest.mark.browser


def suffix() -> str:
    return str(int(time.time() * 1000) % 10**7)


def free_tables(server: Server, game: str, count: int = 1) -> list[int]:
    """Free tables of the game at 0.50/1 (buy-ins from 10.00 to 50.00), the last ones first (the
    other suites take the first)."""
    tables = [
        t["id"] for t in server.tables() if t["game"] == game and not t["seated"] and t["big_bet"] == 100
    ]
    assert len(tables) >= count, f"not {count} free {game} tables"
    return tables[::-1][:count]


def sit(page: Any, table_id: int, buy_in: str = "40.00") -> None:
    """From the lobby: Join, the buy-in, Sit down."""
    page.goto(page.url.split("#")[0] + "#/")
    page.wait_for_selector(f"tr[data-table='{table_id}'] button.join")
    page.click(f"tr[data-table='{table_id}'] button.join")
    page.wait_for_selector("#sit-dialog[open]")
    page.fill("#sit-buyin", buy_in)
    page.click("#sit-confirm")
    page.wait_for_selector(".seat.hero .plate")


def hero_stack(page: Any) -> str:
    text: str = page.inner_text(".seat.hero .plate .stack")
    return text


def closed(page: Any) -> None:
    page.wait_for_function("() => !document.querySelector('#chips-dialog').open")


def toast(page: Any, starts: str) -> str:
    page.wait_for_function(
        "t => { const el = document.querySelector('#toast');"
        " return !el.hidden && el.textContent.startsWith(t); }",
        arg=starts,
        timeout=15000,
    )
    text: str = page.inner_text("#toast")
    return text


def test_the_plus_says_why_and_the_chips_dialog_adds_up_to_the_maximum(browser: Any, server: Server) -> None:
    (table_id,) = free_tables(server, "7S")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    register(page, server, f"chip{suffix()}")
    # Not broke: the daily top-up gives nothing, and the page says why.
    page.click("#topup")
    said = toast(page, "No top-up:")
    assert "for broke players, once a day" in said and "100.00 in your bankroll" in said
    sit(page, table_id)
    assert page.is_visible("#chips-btn")
    page.click("#chips-btn")
    page.wait_for_selector("#chips-dialog[open]")
    page.wait_for_function("() => document.querySelector('#chips-bankroll').textContent === '60.00'")
    assert page.inner_text("#chips-stack") == "40.00"
    assert page.inner_text("#chips-range").startswith("You can add up to 10.00: a stack may hold 50.00")
    assert page.input_value("#chips-amount") == "10.00"
    assert page.inner_text("#chips-when") == "The chips are added to your stack now."
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "chips.png"))
    page.fill("#chips-amount", "12.00")  # past the maximum: the button is off, the line says why
    assert page.is_disabled("#chips-add")
    page.fill("#chips-amount", "10.00")
    page.click("#chips-add")
    closed(page)
    toast(page, "10.00 added to your stack.")
    page.wait_for_function("() => document.querySelector('.seat.hero .plate .stack').textContent === '50.00'")
    # At the maximum now: the dialog says so and adds nothing.
    page.click("#chips-btn")
    page.wait_for_selector("#chips-dialog[open]")
    assert page.inner_text("#chips-range") == (
        "You can add chips up to the table's maximum buy-in: you have 50.00 of 50.00."
    )
    assert page.is_disabled("#chips-add")
    page.click("#chips-dialog button[value='cancel']")
    page.click("#standup-btn")
    page.wait_for_function("() => window.studpoker.state.yourSeat === null", timeout=15000)
    assert not errors, errors
    context.close()


def test_chips_added_during_a_hand_land_when_it_ends(browser: Any, server: Server) -> None:
    (table_id,) = free_tables(server, "RZ")
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(2)]
    alice, bob = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (alice, bob):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    tag = suffix()
    register(alice, server, f"amy{tag}")
    register(bob, server, f"bo{tag}")
    sit(alice, table_id)
    sit(bob, table_id)
    alice.wait_for_selector(".seat.hero .card[data-card]", timeout=20000)  # dealt in
    # The deal's batch is in (its changes carry the stacks after the antes, its last event the
    # clock): the stack in play from here on moves only if alice acts, and she does not yet.
    alice.wait_for_function(
        "() => { const st = window.studpoker.state;"
        " return st.clock && st.hand?.players.find((p) => p.seat === st.yourSeat)?.stack != null; }"
    )
    before = hero_stack(alice)
    alice.click("#chips-btn")
    alice.wait_for_selector("#chips-dialog[open]")
    assert alice.inner_text("#chips-when") == (
        "You are in this hand: the chips are added to your stack when it ends (table stakes)."
    )
    alice.fill("#chips-amount", "5.00")
    alice.click("#chips-add")
    closed(alice)
    toast(alice, "5.00 will be added to your stack when this hand ends.")
    assert alice.inner_text("#chips-btn") == "Chips (+5.00)"
    assert hero_stack(alice) == before  # the stack in play is the hand's
    # Bob leaves: his decisions are timed out at once and the hand ends.
    bob.click("#standup-btn")
    deadline = time.monotonic() + 60
    while not alice.evaluate("() => Boolean(window.studpoker.state.lastResult)"):
        assert time.monotonic() < deadline, "the hand did not end"
        click_passive(alice)
        time.sleep(0.3)
    toast(alice, "5.00 added to your stack.")
    seat = alice.evaluate("() => window.studpoker.state.yourSeat")
    final = alice.evaluate(f"() => window.studpoker.state.lastResult.result.final_stacks['{seat}']")
    expected = f"{(final + 500) // 100}.{(final + 500) % 100:02d}"
    alice.wait_for_function(
        "t => document.querySelector('.seat.hero .plate .stack').textContent === t",
        arg=expected,
        timeout=15000,
    )
    assert alice.inner_text("#chips-btn") == "Chips"
    alice.click("#standup-btn")
    assert not errors, errors
    for c in contexts:
        c.close()


def test_the_auto_top_up_tops_up_is_kept_and_follows_the_next_buy_in(browser: Any, server: Server) -> None:
    first, second = free_tables(server, "7S8", 2)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    register(page, server, f"auto{suffix()}")
    sit(page, first, "30.00")
    page.click("#chips-btn")
    page.wait_for_selector("#chips-dialog[open]")
    page.fill("#chips-auto-amount", "45.00")
    page.check("#chips-auto")
    # Between hands the seat is topped up at once, from the bankroll.
    toast(page, "15.00 added to your stack.")
    page.wait_for_function("() => document.querySelector('.seat.hero .plate .stack').textContent === '45.00'")
    page.wait_for_function(f"() => window.studpoker.chips.mine.get({first})?.auto_top_up === 4500")
    kept = page.evaluate("async () => (await (await import('/js/api.js')).api.autoTopUp()).auto_top_up")
    assert kept is True
    page.click("#chips-dialog button[value='cancel']")
    page.click("#standup-btn")
    page.wait_for_function("() => window.studpoker.state.yourSeat === null", timeout=15000)
    # A reload, another table: the new seat tops up to the buy-in it sat down with.
    page.reload()
    page.wait_for_selector("#me:not([hidden])")
    sit(page, second, "25.00")
    page.wait_for_function(f"() => window.studpoker.chips.mine.get({second})?.auto_top_up === 2500")
    page.click("#chips-btn")
    page.wait_for_selector("#chips-dialog[open]")
    assert page.is_checked("#chips-auto") and page.input_value("#chips-auto-amount") == "25.00"
    page.uncheck("#chips-auto")
    page.wait_for_function(f"() => window.studpoker.chips.mine.get({second})?.auto_top_up === null")
    page.click("#chips-dialog button[value='cancel']")
    page.click("#standup-btn")
    assert not errors, errors
    context.close()
