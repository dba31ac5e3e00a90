"""The time bank in the browser (R-TIME-BANK): two players at a room whose clock is short (1 s
think, 2 s countdown) and whose banks hold 4 s; the player to act lets his clock run. Both pages
draw the ring's think time, the countdown with the bank waiting beside it, then the ring turning
blue while the bank runs; the timeout that follows says the bank was used, and the seat's bank
is empty. And the words of a timeout survive a reload (R-TIMEOUT-SAID, protocol 1.7)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server, serve_room
from tests.browser.test_play import DESKTOP, click_passive, register, take_seat
from tests.browser.test_seat_life import (
    first_to_act,
    free_table,
    hero_seat,
    players,
    room,  # noqa: F401  (the fixture: a room with a short clock and no bank)
)

pytestmark = pytest.mark.browser

BANK_SECONDS = 4
BANK_BLUE = "rgb(111, 183, 255)"  # clock.js BANK_COLOUR

# What the ring on each plate shows now: its phase, its colour, its seconds and the bank label.
RINGS = """
() => [...document.querySelectorAll('.seat')].flatMap((seat) => {
  const clock = seat.querySelector('.clock');
  if (!clock) return [];
  const bank = clock.querySelector('.bank');
  return [{
    hero: seat.classList.contains('hero'),
    phase: clock.dataset.phase ?? null,
    stroke: clock.querySelector('.ring').style.stroke,
    secs: clock.querySelector('.secs').hidden ? null : clock.querySelector('.secs').textContent,
    bank: bank && !bank.hidden ? bank.textContent : null,
  }];
})
"""


@pytest.fixture(scope="module")
def bank_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`studpoker serve` as the suite's server has it, but with a short clock and a bank."""
    tmp = tmp_path_factory.mktemp("bank-room")
    settings = {"time_bank_seconds": BANK_SECONDS}
    with serve_room(tmp, think=1, countdown=2, hand_pause=1, settings=settings) as server:
        yield server


def test_the_ring_runs_the_time_bank_after_the_countdown(browser: Any, bank_server: Server) -> None:
    server = bank_server
    table_id = next(t["id"] for t in server.tables() if t["game"] == "7S")
    pages = [browser.new_context(viewport=DESKTOP).new_page() for _ in range(2)]
    errors: list[str] = []
    suffix = str(int(time.time() * 1000) % 10**7)
    for page, name in zip(pages, ("tina", "tom"), strict=True):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        register(page, server, f"{name}{suffix}")
        take_seat(page, table_id)
    # The first decision of the hand: nobody acts, so that its clock runs out.
    deadline = time.monotonic() + 30
    while not any(p.locator("#actions button.act").count() for p in pages):
        assert time.monotonic() < deadline, "no decision came"
        time.sleep(0.05)
    hero = next(p for p in pages if p.locator("#actions button.act").count())
    other = next(p for p in pages if p is not hero)
    seat = hero.evaluate("() => window.studpoker.state.yourSeat")
    seen: dict[str, list[dict[str, Any]]] = {"hero": [], "other": []}
    shot = False
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, f"the clock never ran out: {seen['hero'][-3:]}"
        timed_out = hero.evaluate(
            "(seat) => window.studpoker.state.events.find((e) => e.kind === 'timeout' && e.seat === seat)"
            " ?? null",
            seat,
        )
        if timed_out is not None:
            break
        for key, page in (("hero", hero), ("other", other)):
            seen[key] += [ring for ring in page.evaluate(RINGS) if ring["hero"] == (key == "hero")]
        if not shot and any(r["phase"] == "bank" for r in seen["hero"]):
            hero.screenshot(path=str(Path(SCREENSHOTS) / "time_bank.png"))
            shot = True
        time.sleep(0.1)
    phases = [r["phase"] for r in seen["hero"]]
    # Think time (1 s: a busy machine may miss it), then the countdown, then the bank, in order.
    order = [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p]
    assert order in (["think", "countdown", "bank"], ["countdown", "bank"]), order
    # Until the bank runs, the seconds it holds wait beside the ring; then it says so, in blue.
    waiting = {r["bank"] for r in seen["hero"] if r["phase"] in ("think", "countdown")}
    assert waiting == {f"+{BANK_SECONDS}s bank"}, waiting
    banked = [r for r in seen["hero"] if r["phase"] == "bank"]
    assert all(r["stroke"] == BANK_BLUE and r["bank"] == "time bank" for r in banked), banked
    assert max(int(r["secs"]) for r in banked) > 2  # the bank's seconds, not the countdown's
    # The opponent's page draws the same ring on the hero's plate.
    assert "bank" in [r["phase"] for r in seen["other"]]
    # The timeout says the bank went first; the seat list has it empty.
    assert timed_out["time_bank"] == BANK_SECONDS
    hero.wait_for_function(
        "(seat) => window.studpoker.state.seats.find((s) => s.seat === seat)?.time_bank === 0", arg=seat
    )
    assert not errors, errors


def test_the_words_of_a_timeout_come_back_with_a_reload(browser: Any, room: Server) -> None:  # noqa: F811
    """Three at a stud table (the seat-life room: 3 s + 6 s, no bank): the player facing the
    bring-in lets his clock run out and is protected all-in; the hand goes on between the other
    two while he reloads his page and a watcher opens the table: both say why he is all-in, in
    the table's words (protocol 1.7, table_state.timeout_notes)."""
    table_id = free_table(room)
    contexts, pages, names, errors = players(browser, room, "amy", "bea", "cid")
    for page in pages:
        take_seat(page, table_id)
    bringer = first_to_act(pages, time.monotonic() + 30)
    bringer.locator("#actions button[data-kind='bring_in']").click()
    late = first_to_act([p for p in pages if p is not bringer], time.monotonic() + 15)
    late_seat = hero_seat(late)
    words = f"{names[pages.index(late)]} timed out: protected all-in (1 of 2 today)"
    note = f".seat[data-seat='{late_seat}'] .timeout-note"
    bringer.wait_for_selector(note, timeout=20000)
    assert bringer.get_attribute(note, "title") == words
    # The hand goes on between the other two (each acting at once, inside his clock) while the
    # one who timed out reloads and a watcher comes.
    playing = [p for p in pages if p is not late]

    def keep_going() -> None:
        first_to_act(playing, time.monotonic() + 15)
        for page in playing:
            click_passive(page)

    keep_going()
    assert not bringer.evaluate("() => window.studpoker.state.hand.over")
    late.reload()
    late.wait_for_selector(note, timeout=15000)
    assert late.get_attribute(note, "title") == words
    assert late.inner_text(note) == "timed out: protected all-in (1 of 2 today)"
    keep_going()
    watcher = browser.new_context(viewport=DESKTOP).new_page()
    watcher.on("pageerror", lambda exc: errors.append(str(exc)))
    watcher.goto(f"{room.url}#/table/{table_id}")
    watcher.wait_for_selector(note, timeout=15000)
    assert watcher.get_attribute(note, "title") == words
    assert watcher.evaluate("() => window.studpoker.state.hand && !window.studpoker.state.hand.over")
    assert not errors, errors
    watcher.context.close()
    for ctx in contexts:
        ctx.close()
