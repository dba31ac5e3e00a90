"""What a seat goes through, seen in the browser by everyone at once (issue 12): a timeout sits the
player out (the "Sitting out" tag for all, a big I'm back at his own seat, Sit out hidden) and the
table says why a timeout made him all-in (the protected all-in with the day's count); standing up
mid-hand says "You leave after this hand" and can be called off; the Sit out next hand and Leave
after this hand boxes; the header bankroll follows a buy-in and a cash-out at once; the seat of a
player disconnected and sitting out is freed after the house's time.

The room is its own here: a short clock (3 s + 6 s) so that a timeout takes seconds, no time bank,
and idle seats freed after 4 s."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server, serve_room
from tests.browser.test_play import DESKTOP, click_passive, register, take_seat

pytestmark = pytest.mark.browser

IDLE_SEAT_SECONDS = 4


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {
        "default_table_copies": 2,
        "idle_seat_seconds": IDLE_SEAT_SECONDS,
        "time_bank_seconds": 0,
        "time_bank_max_seconds": 0,
    }
    tmp = tmp_path_factory.mktemp("seat_room")
    with serve_room(tmp, think=3, countdown=6, hand_pause=2, settings=settings) as server:
        yield server


def free_table(room: Server, game: str = "7S") -> int:
    table_id: int = next(t for t in room.tables() if t["game"] == game and not t["seated"])["id"]
    return table_id


def players(browser: Any, room: Server, *names: str) -> tuple[list[Any], list[Any], list[str], list[str]]:
    """A page per player, registered; their contexts, pages, names and page errors."""
    suffix = str(int(time.time() * 1000) % 10**7)
    contexts = [browser.new_context(viewport=DESKTOP) for _ in names]
    pages = [ctx.new_page() for ctx in contexts]
    errors: list[str] = []
    full = [f"{name}{suffix}" for name in names]
    for page, name in zip(pages, full, strict=True):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        register(page, room, name)
    return contexts, pages, full, errors


def hero_seat(page: Any) -> int:
    seat: int = page.evaluate("() => window.studpoker.state.yourSeat")
    return seat


def header_bankroll(page: Any) -> str:
    text: str = page.inner_text("#me-bankroll")
    return text


def api_bankroll(page: Any) -> int:
    """The bankroll as the database has it now."""
    value: int = page.evaluate(
        "async () => (await (await fetch('/api/me', {headers: {Authorization: 'Bearer ' + "
        "localStorage.getItem('studpoker.token')}})).json()).bankroll"
    )
    return value


def header_is(page: Any, want: str) -> None:
    """The header bankroll becomes ``want`` within a few seconds, with no reload."""
    page.wait_for_function(
        "(want) => document.querySelector('#me-bankroll').textContent === want", arg=want, timeout=10000
    )


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def my_turn(page: Any) -> bool:
    return bool(page.locator("#actions button.act").count())


def first_to_act(pages: list[Any], deadline: float) -> Any:
    while True:
        for page in pages:
            if my_turn(page):
                return page
        assert time.monotonic() < deadline, "nobody was asked to act"
        pages[0].wait_for_timeout(100)


def play_out(pages: list[Any], hand_over: Any, deadline: float) -> None:
    """Check or call on every page until ``hand_over()`` holds."""
    while not hand_over():
        assert time.monotonic() < deadline, "the hand did not end"
        for page in pages:
            click_passive(page)
        pages[0].wait_for_timeout(120)


def hand_over(page: Any) -> bool:
    return bool(page.evaluate("() => { const s = window.studpoker.state; return !s.hand || s.hand.over; }"))


def test_a_timeout_sits_him_out_for_all_at_once_and_says_why_he_is_all_in(browser: Any, room: Server) -> None:
    table_id = free_table(room)
    contexts, (a, b), (alice, bob), errors = players(browser, room, "alice", "bob")
    take_seat(a, table_id)
    take_seat(b, table_id)
    # The bring-in is posted by whoever must; the other, antes in, faces it and lets his clock
    # run out: the clock rule makes him all-in, protected, and he sits out.
    bringer = first_to_act([a, b], time.monotonic() + 30)
    bringer.locator("#actions button[data-kind='bring_in']").click()
    late, other = (b, a) if bringer is a else (a, b)
    late_name = bob if late is b else alice
    late_seat = hero_seat(late)
    late.wait_for_function("() => window.studpoker.state.yourTurn !== null", timeout=10000)
    # No reload anywhere: the pages see it as it happens.
    other.wait_for_selector(f".seat.sitting-out[data-seat='{late_seat}']", timeout=20000)
    late.wait_for_selector(".seat.hero .im-back", timeout=5000)
    assert late.locator("#sitout-btn").is_hidden()
    assert late.locator("#sitin-btn").is_visible()
    words = f"{late_name} timed out: protected all-in (1 of 2 today)"
    for page in (a, b):
        note = page.locator(f".seat[data-seat='{late_seat}'] .timeout-note")
        note.wait_for(timeout=5000)
        assert note.get_attribute("title") == words
        assert note.inner_text() == "timed out: protected all-in (1 of 2 today)"
    assert "timed out and are sitting out" in late.inner_text("#seat-notice")
    # The hand is run out (one opponent left); then the seat says Sitting out, for everyone.
    other.wait_for_function("() => window.studpoker.state.hand?.over === true", timeout=15000)
    tag = other.locator(f".seat[data-seat='{late_seat}'] .plate .tag")
    tag.filter(has_text="Sitting out").wait_for(timeout=5000)
    late.wait_for_timeout(300)
    late.screenshot(path=str(SCREENSHOTS / "sitting-out.png"))
    # I'm back, at his seat: back in for everyone, and the next hand deals him in.
    late.click(".seat.hero .im-back")
    other.wait_for_selector(f".seat[data-seat='{late_seat}']:not(.sitting-out)", timeout=10000)
    late.wait_for_selector(".seat.hero .im-back", state="detached", timeout=10000)
    late.locator("#sitout-btn").wait_for(state="visible", timeout=5000)
    late.wait_for_selector(".seat.hero .card.hole[data-card]", timeout=15000)
    for page in (a, b):
        page.locator("#standup-btn").click()
    assert not errors, errors
    for ctx in contexts:
        ctx.close()


def test_the_seat_boxes_stand_up_feedback_and_the_header_bankroll(browser: Any, room: Server) -> None:
    table_id = free_table(room)
    contexts, (a, b), _, errors = players(browser, room, "cleo", "dan")
    grant = api_bankroll(a)
    assert header_bankroll(a) == money(grant)
    take_seat(a, table_id)
    # Alone at the table, no hand ends: the header follows the buy-in at once.
    buy_in = a.evaluate("() => window.studpoker.view.seats.find((s) => s.isHero).stack")
    header_is(a, money(grant - buy_in))
    take_seat(b, table_id)
    b.wait_for_selector(".seat.hero .card.hole[data-card]", timeout=15000)

    # Sit out next hand, ticked in the hand: it plays on (no Sitting out yet), then he sits out.
    assert a.locator("#seat-options").is_visible()
    a.check("#sit-out-next")
    a.wait_for_function("() => window.studpoker.view.seats.find((s) => s.isHero).sitOutNextHand")
    assert a.locator(".seat.hero.sitting-out").count() == 0
    assert a.inner_text("#seat-notice") == "You sit out from the next hand"
    play_out([a, b], lambda: hand_over(a), time.monotonic() + 90)
    a.wait_for_selector(".seat.hero.sitting-out", timeout=10000)
    assert a.is_checked("#sit-out-next")
    a.wait_for_selector(".seat.hero .im-back")
    # Unticked: back, and the next hand deals him in.
    a.uncheck("#sit-out-next")
    a.wait_for_selector(".seat.hero:not(.sitting-out)", timeout=10000)
    b.wait_for_function(
        "() => { const s = window.studpoker.state; "
        "return s.hand && !s.hand.over && s.handSeats?.length === 2; }",
        timeout=15000,
    )

    # Stand up in the hand, while the other player decides (a stand-up's own decisions are
    # made at once): said at once, and called off by unticking the box.
    deadline = time.monotonic() + 30
    while not my_turn(a):
        assert time.monotonic() < deadline, "cleo was not asked to act"
        click_passive(b)
        a.wait_for_timeout(100)
    b.click("#standup-btn")
    b.wait_for_function(
        "() => document.querySelector('#seat-notice').textContent === 'You leave after this hand'"
    )
    assert b.is_checked("#leave-next")
    b.uncheck("#leave-next")
    b.wait_for_function("() => !window.studpoker.view.seats.find((s) => s.isHero).leaving")
    assert b.inner_text("#seat-notice") == ""
    # Leave after this hand: he plays it out (his buttons keep coming), then is cashed out.
    b.check("#leave-next")
    b.wait_for_function("() => window.studpoker.view.seats.find((s) => s.isHero).leaving")
    assert b.inner_text("#seat-notice") == "You leave after this hand"
    acted = {"b": False}

    def over() -> bool:
        if my_turn(b):
            acted["b"] = True
        return bool(b.evaluate("() => window.studpoker.state.yourSeat === null"))

    play_out([a, b], over, time.monotonic() + 90)
    assert acted["b"], "he was not asked for his decisions"
    # The header has his bankroll as the database has it, with no reload.
    header_is(b, money(api_bankroll(b)))
    a.click("#standup-btn")
    a.wait_for_function("() => window.studpoker.state.yourSeat === null", timeout=30000)
    header_is(a, money(api_bankroll(a)))
    assert not errors, errors
    for ctx in contexts:
        ctx.close()


def test_a_disconnected_player_sitting_out_loses_his_seat_after_the_house_time(
    browser: Any, room: Server
) -> None:
    table_id = free_table(room, "RZ")
    contexts, (a, b), (_, gone), errors = players(browser, room, "eve", "fay")
    take_seat(a, table_id)
    a.check("#sit-out-next")  # no hand of hers: she sits out at once
    a.wait_for_selector(".seat.hero.sitting-out")
    take_seat(b, table_id)
    b.check("#sit-out-next")
    b.wait_for_selector(".seat.hero.sitting-out")
    seat = hero_seat(b)
    contexts[1].close()  # she goes away
    plate = f".seat[data-seat='{seat}']"
    a.wait_for_selector(f"{plate}.disconnected.sitting-out", timeout=10000)
    a.wait_for_selector(f"{plate}.empty", timeout=(IDLE_SEAT_SECONDS + 15) * 1000)
    # Her chips went back to her bankroll: the lobby no longer lists her at the table.
    line = next(t for t in room.tables() if t["id"] == table_id)
    assert gone not in [s["name"] for s in line["seats"]]
    # Eve, connected and sitting out, keeps hers.
    assert a.locator(".seat.hero").count() == 1
    a.click("#standup-btn")
    assert not errors, errors
    contexts[0].close()
