"""Three players (one at phone width) register, sit at the same table and play a hand to showdown
by clicking; a fourth account watches and must never get another player's down card, in its page
or in its WebSocket frames, before the showdown; a reload and a dropped connection in the middle
of the hand bring the table back."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PASSIVE = ("check", "call", "bring_in")


def register(page: Any, server: Server, name: str) -> None:
    page.goto(server.url)
    page.fill("#auth-name", name)
    page.fill("#auth-password", "password123")
    page.click("#register-btn")
    page.wait_for_selector("#me:not([hidden])")
    page.wait_for_selector("#tables-body tr[data-table]")


def take_seat(page: Any, table_id: int) -> None:
    page.click(f"tr[data-table='{table_id}'] button.join")
    page.wait_for_selector("#sit-dialog[open]")
    page.click("#sit-confirm")
    page.wait_for_selector(".seat.hero .plate")


def hole_cards(page: Any) -> set[str]:
    """The hero's own down cards (drawn face up, marked as hidden from the others)."""
    cards: list[str] = page.eval_on_selector_all(
        ".seat.hero .card.hole[data-card]", "els => els.map(e => e.dataset.card)"
    )
    return set(cards)


def click_passive(page: Any) -> str | None:
    """Check, call or bring in if it is this page's turn; the label clicked, else None."""
    for kind in PASSIVE:
        button = page.locator(f"#actions button[data-kind='{kind}']")
        if button.count():
            label: str = button.first.inner_text().split("\n")[0]
            button.first.click()
            return label
    return None


def watcher_dom(page: Any) -> dict[str, Any]:
    """In one go: whether the showdown is on screen, and every face-up card in the page."""
    # (the hands turn up from the hand's end; the result banner follows once they are all up)
    result: dict[str, Any] = page.evaluate(
        """() => ({
            showdown: Boolean(document.querySelector('.result-banner') || window.studpoker.state?.hand?.over),
            cards: [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
            labels: [...document.querySelectorAll('svg[aria-label]')].map(e => e.getAttribute('aria-label')),
        })"""
    )
    return result


def label_of(card: str) -> str:
    ranks = "23456789TJQKA"
    words = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    words += ["jack", "queen", "king", "ace"]
    suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
    return f"{words[ranks.index(card[0])]} of {suits[card[1]]}"


def test_players_play_a_hand_to_showdown_watched(browser: Any, server: Server) -> None:
    table = next(t for t in server.tables() if t["game"] == "7S" and not t["seated"])
    table_id = table["id"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    ctx_a = browser.new_context(viewport=DESKTOP)
    ctx_b = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    ctx_c = browser.new_context(viewport=DESKTOP)
    ctx_w = browser.new_context(viewport=DESKTOP)
    a, b, c, w = ctx_a.new_page(), ctx_b.new_page(), ctx_c.new_page(), ctx_w.new_page()
    errors: list[str] = []
    for page in (a, b, c, w):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    frames: list[str] = []  # what the watcher receives
    frames_a: list[str] = []  # what alice receives (across her reconnection)

    def recorder(into: list[str]) -> Any:
        def on_socket(ws: Any) -> None:
            ws.on("framereceived", lambda payload: into.append(payload if isinstance(payload, str) else ""))

        return on_socket

    w.on("websocket", recorder(frames))
    a.on("websocket", recorder(frames_a))

    suffix = str(int(time.time() * 1000) % 10**7)
    for page, name in ((a, "alice"), (c, "carol"), (b, "bob"), (w, "walt")):
        register(page, server, f"{name}{suffix}")
    take_seat(a, table_id)
    w.click(f"tr[data-table='{table_id}'] button.watch")
    w.wait_for_selector(".seat .plate >> text=alice")
    # the next two sit at once, so that all three are dealt into the first hand
    take_seat(c, table_id)
    take_seat(b, table_id)
    b.wait_for_selector(".seat.hero .card.hole[data-card]")
    assert c.locator(".seat.hero .card.hole[data-card]").count() > 0, "carol was not dealt in"

    hole: set[str] = set()
    others: set[str] = set()  # bob's and carol's down cards, which alice must not get either
    reloaded = False
    dropped = False
    table_shot = False
    actions: list[str] = []
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, f"the hand did not finish; actions so far: {actions}"
        others |= hole_cards(b) | hole_cards(c)
        hole |= hole_cards(a) | others
        seen = watcher_dom(w)
        if seen["showdown"]:
            break
        leaked = hole & set(seen["cards"]) or {label_of(c) for c in hole} & set(seen["labels"])
        assert not leaked, f"the watcher's page shows a player's down card before the showdown: {leaked}"
        b_turn = b.locator("#actions button.act").count() > 0
        street = b.evaluate("() => window.studpoker.state?.hand?.street ?? null")
        if b_turn and not reloaded and street in ("fourth", "fifth"):
            # A reload mid-hand, on this player's turn: the table, the down cards and the turn
            # (with the clock) come back.
            before = hole_cards(b)
            b.reload()
            b.wait_for_selector(".seat.hero .card.hole[data-card]")
            b.wait_for_selector("#actions button.act", timeout=10000)
            assert hole_cards(b) == before
            assert b.locator(".seat.hero .clock").count() == 1
            # back while his clock ran: the server gave him the reconnection extension
            assert b.evaluate("() => window.studpoker.state.clock.extended") is True
            # the deck commitment of the hand in play comes back with the snapshot (protocol 1.1)
            b.wait_for_function(
                "() => { const s = window.studpoker.state; return s.commitment?.handId === s.handId; }"
            )
            # and the snapshot's openings: every card he sees is checked again, none fails
            b.wait_for_function(
                "() => { const d = document.querySelector('.deal-badge'); "
                "return d && d.dataset.total > 0 && d.dataset.checked === d.dataset.total; }"
            )
            assert b.locator(".deal-warning").count() == 0
            reloaded = True
        if b_turn:
            # at phone width the action buttons stay on screen
            box = b.locator("#actions button.act").first.bounding_box()
            assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
        if not dropped and street == "fourth":
            # The network drops: the client reconnects by itself and the table comes back.
            a.evaluate("() => window.studpoker.socket.ws.close()")
            a.wait_for_selector("body[data-conn='reconnecting'], body[data-conn='connecting']")
            a.wait_for_selector("body[data-conn='open']", timeout=15000)
            a.wait_for_selector(".seat.hero .card.hole[data-card]")
            dropped = True
        a_turn = a.locator("#actions button.act").count() > 0
        if a_turn and not table_shot and street in ("fifth", "sixth"):
            a.wait_for_timeout(300)
            a.screenshot(path=str(SCREENSHOTS / "table.png"))
            table_shot = True
        for page in (a, b, c):
            label = click_passive(page)
            if label:
                actions.append(label)
        a.wait_for_timeout(150)

    # The showdown: both hands face up with their names, the pot awarded, the winning cards lit.
    # (The next hand starts after the server's pause: look quickly.)
    a.wait_for_selector(".result-banner")
    banner = a.inner_text(".result-banner")
    finished = json.loads(next(f for f in frames if '"hand_finished"' in f))
    shown = finished["result"]["shown"]
    # The hands turn up one after the other: wait for them all (not a fixed time, which a loaded
    # machine can stretch past the server's pause before the next hand clears them).
    a.wait_for_function(
        "n => document.querySelectorAll('.seat .hand-name').length >= n"
        " && document.querySelectorAll('.card.win').length >= 5",
        arg=len(shown),
    )
    names = a.locator(".seat .hand-name").count()
    lit = a.locator(".card.win").count()
    a.screenshot(path=str(SCREENSHOTS / "showdown.png"))
    b.screenshot(path=str(SCREENSHOTS / "phone.png"))
    assert re.search(r"wins \d", banner), banner
    assert len(shown) >= 1 and len(shown) + len(finished["result"]["mucked"]) == 3
    assert names >= len(shown)
    assert lit >= 5
    assert reloaded, "the hand ended before the reload could be tried"
    assert dropped
    assert len(hole) >= 6, hole
    assert any(x.startswith("Bring in") for x in actions), actions
    assert any(x.startswith("Call") for x in actions) and "Check" in actions, actions

    # The watcher's frames: no down card of a player before the first show / expose / result.
    def reveals(frame: str) -> bool:
        data = json.loads(frame)
        event = data.get("event") or {}
        return data.get("type") == "hand_finished" or event.get("kind") in ("show", "expose")

    first_reveal = next(i for i, f in enumerate(frames) if f and reveals(f))
    assert first_reveal > 10
    for frame in frames[:first_reveal]:
        for card in hole:
            assert f'"{card}"' not in frame, f"watcher frame carries the down card {card}: {frame[:300]}"
    # Nor does a player get the others' down cards.
    first_reveal_a = next(i for i, f in enumerate(frames_a) if f and reveals(f))
    for frame in frames_a[:first_reveal_a]:
        for card in others:
            assert f'"{card}"' not in frame, (
                f"alice's frame carries another player's card {card}: {frame[:300]}"
            )

    # The hand history: the openings of the cards alice was shown check against the deck root
    # published at the deal, in the browser (tests/browser/test_deal_check.py has the details).
    a.click("#history-btn")
    a.wait_for_selector(".hand-entry .verify.ok", timeout=10000)
    assert "Deal checked: your 7 cards" in a.inner_text(".hand-entry .verify")
    a.wait_for_selector(".hand-entry pre", timeout=10000)  # the readable text of the hand
    assert "studpoker" in a.inner_text(".hand-entry pre").lower()
    w.click("#history-btn")
    w.wait_for_selector(".hand-entry .verify.ok", timeout=10000)

    # Sitting out and back in, then standing up. (On a loaded machine the next hand may have
    # begun by now: carol plays it out, dealt in, and sits out when it ends; everyone plays it.)
    c.click("#sitout-btn")
    deadline = time.monotonic() + 90
    while not c.locator(".seat.hero.sitting-out").count():
        assert time.monotonic() < deadline, "sit out did not happen"
        for page in (a, b, c):
            click_passive(page)
        c.wait_for_timeout(200)
    c.click("#sitin-btn")
    c.wait_for_selector(".seat.hero:not(.sitting-out)")
    c.click("#standup-btn")
    # (if the next hand has begun, the seat is given up at its end: the others play it out)
    deadline = time.monotonic() + 60
    while not c.evaluate("() => window.studpoker.state.yourSeat === null"):
        assert time.monotonic() < deadline, "stand up did not happen"
        for page in (a, b):
            click_passive(page)
        c.wait_for_timeout(200)
    c.wait_for_selector("#seats button.sit")  # a watcher again: the empty seats offer a place

    # Back in the lobby the table shows its players.
    w.click("#history-close")
    w.click("a.back-link")
    w.wait_for_selector(f"tr[data-table='{table_id}'] td.num >> text=/^2\\/8/")
    w.screenshot(path=str(SCREENSHOTS / "lobby.png"))

    assert not errors, errors
    for ctx in (ctx_a, ctx_b, ctx_c, ctx_w):
        ctx.close()
