"""The blinds a new player owes at an Omaha table, in the browser (issue 12; docs/rules.md
R-O8-NEW-PLAYER-WAITS, R-O8-POST-TO-COME-IN): four regular players, and two newcomers who sit
down during a hand. Each sees what he owes and that he waits for the big blind (the default); the
others see "Waiting for BB" on their plates. One ticks Post now: the next hand deals him in at
once, posting, while the other is still waiting for the big blind.

Four regulars, because with three every seat the newcomers could take is passed by the button,
the small or the big blind at the next hand (a poster would wait one more hand, or both be dealt
in by the big blind), and with two the short-handed rule deals everyone in
(R-O8-SHORT-HANDED-NO-DEBT); the newcomers take seats where, the button moving on from the hand
being played, the big blind does not reach the waiter and the poster is neither the button nor
a blind. Writes blinds.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import click_passive
from tests.browser.test_seat_life import (
    free_table,
    hand_over,
    money,
    play_out,
    players,
)

pytestmark = pytest.mark.browser

# Every other seat, so that a free seat follows each regular's.
REGULAR_SEATS = (1, 3, 5, 7)


def seat_flag(page: Any, seat: int, flag: str) -> bool:
    """The seat list's ``flag`` for ``seat`` as this page last heard it."""
    value: bool = page.evaluate(
        "([seat, flag]) => Boolean(window.studpoker.state.seats.find((s) => s.seat === seat)?.[flag])",
        [seat, flag],
    )
    return value


def sit_at(page: Any, server: Server, table_id: int, seat: int) -> None:
    """Open the table and take ``seat`` with its Sit here (the dialog's buy-in as it comes)."""
    page.goto(f"{server.url}#/table/{table_id}")
    button = page.locator(f".seat[data-seat='{seat}'] button.sit")
    button.wait_for(timeout=15000)
    button.click()
    page.wait_for_selector("#sit-dialog[open]")
    page.click("#sit-confirm")
    page.wait_for_selector(f".seat.hero[data-seat='{seat}'] .plate", timeout=10000)


def hand_in_play(page: Any) -> tuple[str | None, int | None, list[int]]:
    """The hand being played as this page has it: its id, its button and the seats dealt in
    (no id once it is over)."""
    found: list[Any] = page.evaluate(
        """() => { const s = window.studpoker.state; const h = s.hand;
                   if (!h || h.over) return [null, null, []];
                   return [s.handId, h.button, h.players.map((p) => p.seat)]; }"""
    )
    return found[0], found[1], sorted(found[2])


def table_drawn(page: Any, post_seat: int, wait_seat: int) -> dict[str, Any]:
    """What the page's table shows now: the poster's cards, the waiter's tag, a result banner."""
    drawn: dict[str, Any] = page.evaluate(
        """([post, wait]) => ({
            poster_cards: document.querySelectorAll(`#seats .seat[data-seat='${post}'] .card`).length > 0,
            waiter_tag:
                document.querySelector(`#seats .seat[data-seat='${wait}'] .plate .tag`)?.textContent ?? null,
            banner: Boolean(document.querySelector('#center .result-banner')),
        })""",
        [post_seat, wait_seat],
    )
    return drawn


# A table view of its own in the page draws a showdown (two hands turning up, one after the other)
# and then the hand in play; a moment later, is the hand in play still what it shows?
REDRAWN_AFTER_A_SHOWDOWN = """async () => {
    const { TableView } = await import("/js/table.js");
    const view = window.studpoker.view;
    const mine = view.seats.find((s) => s.isHero).cards.map((c) => c.card);
    const shown = view.seats.filter((s) => s.inHand).map((s) => s.seat).slice(0, 2);
    const shows = Object.fromEntries(shown.map((seat) => [seat, { cards: mine, detail: "a pair" }]));
    const hand = { ...view.hand, over: true, show_order: shown, shows };
    const last = { ...view, handId: "the last hand", result: null, hand };
    const root = document.createElement("div");
    root.innerHTML = '<div class="seats"></div><div class="center"></div>';
    const table = new TableView(root, { onSit: null, reportShowdown: false });
    table.render(last);
    table.render(view);
    const drawn = root.innerHTML;
    await new Promise((done) => setTimeout(done, 1500));
    return root.innerHTML === drawn;
}"""


def newcomers_places(button: int) -> tuple[int, int]:
    """The waiter's and the poster's seats for the hand after the one whose button is ``button``
    (a regular): the button moves on to the next regular and the blinds to the two after it. The
    waiter sits just after this hand's button, which only the button passes: the big blind does
    not reach him. The poster sits just after the next big blind, which no button or blind
    passes: only his post deals him in (he is neither the button nor a blind)."""
    at = REGULAR_SEATS.index(button)
    next_big_blind = REGULAR_SEATS[(at + 3) % len(REGULAR_SEATS)]
    return button + 1, next_big_blind + 1


def test_a_newcomer_waits_for_the_big_blind_while_one_who_posts_is_dealt_in_at_once(
    browser: Any, server: Server
) -> None:
    # The suite's room: its 4 s + 12 s clock leaves time for the clicks of six pages on a busy
    # machine (a regular timing out would sit out and change the next hand's blinds).
    room = server
    table_id = free_table(room, "O8")
    table = next(t for t in room.tables() if t["id"] == table_id)
    contexts, pages, _, errors = players(browser, room, "ann", "ben", "cal", "dee", "eve", "fay")
    regulars, (waiter, poster) = pages[:4], pages[4:]
    for page, seat in zip(regulars, REGULAR_SEATS, strict=True):
        sit_at(page, room, table_id, seat)

    def keep_playing() -> None:
        for page in regulars:
            click_passive(page)

    # Played until a hand deals all four regulars in (the first ones may deal fewer).
    deadline = time.monotonic() + 240
    while True:
        hand_id, button, dealt = hand_in_play(regulars[0])
        if hand_id is not None and dealt == list(REGULAR_SEATS):
            break
        assert time.monotonic() < deadline, f"no hand dealt the four regulars in: {dealt}"
        keep_playing()
        regulars[0].wait_for_timeout(120)
    assert button is not None
    wait_seat, post_seat = newcomers_places(button)

    # During that hand both newcomers sit down: each owes the big blind and waits for it by default.
    for page, seat in ((waiter, wait_seat), (poster, post_seat)):
        sit_at(page, room, table_id, seat)
        keep_playing()
        line = page.locator("#blinds-owed-text")
        line.wait_for(state="visible", timeout=5000)
        assert line.inner_text() == f"You owe the big blind {money(table['big_blind'])} to come back"
        assert page.is_checked("#blind-wait") and not page.is_checked("#blind-post")
        assert page.locator(".seat.hero .card").count() == 0
        regulars[0].locator(f".seat[data-seat='{seat}'] .plate .tag").filter(
            has_text="Waiting for BB"
        ).wait_for(timeout=5000)
        keep_playing()
    waiter.evaluate("() => window.scrollTo(0, 0)")
    waiter.screenshot(path=str(SCREENSHOTS / "blinds.png"))

    # One ticks Post now: the server has his choice (the seat list says so to all).
    poster.check("#blind-post")
    poster.wait_for_function(
        "(seat) => window.studpoker.state.seats.find((s) => s.seat === seat)?.post_blind_now", arg=post_seat
    )
    assert seat_flag(regulars[0], post_seat, "post_blind_now")
    assert not seat_flag(regulars[0], wait_seat, "post_blind_now")
    assert hand_in_play(regulars[0])[0] == hand_id, "the hand ended before the newcomers had chosen"

    # The next hand: the poster is dealt in at once, the waiter is not (the big blind has not
    # reached him), and everyone sees both.
    play_out(regulars, lambda: hand_over(regulars[0]), time.monotonic() + 90)
    deadline = time.monotonic() + 30
    while True:
        next_id, _, dealt = hand_in_play(regulars[0])
        if next_id is not None and next_id != hand_id:
            break
        assert time.monotonic() < deadline, "the next hand was not dealt"
        regulars[0].wait_for_timeout(100)
    assert post_seat in dealt and wait_seat not in dealt, dealt
    poster.wait_for_selector(".seat.hero .card.hole[data-card]", timeout=20000)
    poster.locator("#blinds-owed").wait_for(state="hidden", timeout=5000)
    assert not seat_flag(poster, post_seat, "owes_big_blind")
    assert waiter.locator(".seat.hero .card").count() == 0
    assert waiter.locator("#blinds-owed-text").is_visible()
    assert seat_flag(regulars[0], wait_seat, "owes_big_blind")
    # The others' tables draw the new hand, and only it (not the last hand's showdown again, as
    # a reveal timer of the last hand did: table.js): the poster's cards, the waiter's tag.
    regulars[0].wait_for_selector(f".seat[data-seat='{post_seat}'] .card", timeout=20000)
    for _ in range(20):
        drawn = table_drawn(regulars[0], post_seat, wait_seat)
        assert drawn == {"poster_cards": True, "waiter_tag": "Waiting for BB", "banner": False}, drawn
        regulars[0].wait_for_timeout(100)
    assert regulars[0].evaluate(REDRAWN_AFTER_A_SHOWDOWN), "the last showdown was drawn over the hand in play"
    assert not errors, errors
    for ctx in contexts:
        ctx.close()
