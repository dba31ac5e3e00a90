"""Limit Hold'em in the browser (docs/rules.md, the LHE rules): two players sit at an LHE table of the
room's defaults and play a hand to the end by clicking, betting every street. Each sees his own
two hole cards (and none of the other's before the showdown), the blinds posted, the board of 3,
4 and 5 cards, the action labels with the limits (the small bet before the flop and on it, the
big bet on the turn and the river), the dealer log's board lines, no live-cards tray (stud only),
and the showdown banner. Writes holdem.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, hole_cards, register, take_seat

pytestmark = pytest.mark.browser

BOARD_SIZES = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}


def money(units: int) -> str:
    """The client's money (format.js): always two decimals."""
    whole, cents = divmod(units, 100)
    return f"{whole}.{cents:02d}"


def labels(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#actions button.act", "els => els.map(e => e.innerText.split('\\n')[0])"
    )
    return texts


def board(page: Any) -> list[str]:
    cards: list[str] = page.eval_on_selector_all(
        "#table .board .card[data-card]", "els => els.map(e => e.dataset.card)"
    )
    return cards


def log_texts(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#log-lines .log-line.dealer", "els => els.map(e => e.textContent)"
    )
    return texts


def test_two_players_play_a_limit_holdem_hand_to_the_showdown(browser: Any, server: Server) -> None:
    table = next(t for t in server.tables() if t["game"] == "LHE" and not t["seated"])
    small, big = table["small_bet"], table["big_bet"]
    small_blind, big_blind = table["small_blind"], table["big_blind"]
    assert (small_blind, big_blind, table["ante"], table["bring_in"]) == (small // 2, small, 0, 0)
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(2)]
    a, b = (ctx.new_page() for ctx in contexts)
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    suffix = str(int(time.time() * 1000) % 10**7)
    register(a, server, f"hank{suffix}")
    register(b, server, f"hilda{suffix}")
    take_seat(a, table["id"])
    take_seat(b, table["id"])
    for page in (a, b):
        page.wait_for_selector(".seat.hero .card.hole[data-card]", timeout=20000)
    own = {page: hole_cards(page) for page in (a, b)}
    assert all(len(cards) == 2 for cards in own.values()), own
    for page, other in ((a, b), (b, a)):
        # the other's two cards are backs until the showdown; no stud tray at a board game
        seen = set(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
        assert not own[other] & seen, "a player sees the other's hole cards before the showdown"
        assert page.locator(".seat:not(.hero) .cards .card").count() == 2
        assert page.locator("#live-cards").is_hidden()

    # Heads-up the button posts the small blind and acts first before the flop (R-LHE-HEADS-UP).
    a.wait_for_function("() => window.studpoker.state?.hand?.street === 'preflop'")
    bets = sorted(a.eval_on_selector_all("#table .bet", "els => els.map(e => e.textContent)"))
    assert bets == sorted([money(small_blind), money(big_blind)]), bets
    posts = [line for line in log_texts(a) if "blind" in line]
    assert any(f"small blind {money(small_blind)}" in line for line in posts), posts
    assert any(f"big blind {money(big_blind)}" in line for line in posts), posts

    # Every street: the first to act bets (raises the blind before the flop), the other calls.
    seen_labels: dict[str, list[list[str]]] = {}
    seen_boards: dict[str, list[str]] = {}
    deadline = time.monotonic() + 120
    while not a.evaluate("() => Boolean(window.studpoker.state?.hand?.over)"):
        assert time.monotonic() < deadline, f"the hand did not finish: {seen_labels}"
        turn = next((p for p in (a, b) if p.locator("#actions button.act").count()), None)
        if turn is None:
            time.sleep(0.1)
            continue
        street = turn.evaluate("() => window.studpoker.state.hand.street")
        seen_boards[street] = board(turn)
        shown = labels(turn)
        seen_labels.setdefault(street, []).append(shown)
        kind = "call" if len(seen_labels[street]) > 1 else ("raise" if street == "preflop" else "bet")
        version = turn.evaluate("() => window.studpoker.state.version")
        turn.click(f"#actions button[data-kind='{kind}']")
        # the action is in (its event): the next buttons, the same player's on the next street
        # included, are a new decision
        turn.wait_for_function("(v) => window.studpoker.state.version > v", arg=version)

    # The board grows 3, 4, 5 and both see the same one.
    assert {street: len(cards) for street, cards in seen_boards.items()} == BOARD_SIZES
    assert seen_boards["river"][:3] == seen_boards["flop"] and seen_boards["river"][:4] == seen_boards["turn"]
    # The limits (R-LHE-LIMITS): the small bet before the flop and on it, the big bet after.
    assert seen_labels["preflop"] == [
        ["Fold", f"Call {money(small_blind)}", f"Raise to {money(big_blind + small)}"],
        ["Fold", f"Call {money(small)}", f"Raise to {money(big_blind + 2 * small)}"],
    ]
    for street, size in (("flop", small), ("turn", big), ("river", big)):
        assert seen_labels[street] == [
            ["Check", f"Bet {money(size)}"],
            ["Fold", f"Call {money(size)}", f"Raise to {money(2 * size)}"],
        ], street
    # The showdown: the banner on both pages; the hands shown (a beaten hand may be mucked) face
    # up on the other's page, their two cards each.
    for page in (a, b):
        page.wait_for_selector("#table .result-banner", timeout=15000)
        assert page.locator("#table .result-banner").inner_text().strip()
    shows: dict[str, dict[str, Any]] = a.evaluate("() => window.studpoker.state.hand.shows")
    assert shows and all(len(show["cards"]) == 2 for show in shows.values()), shows
    for page, other in ((a, b), (b, a)):
        if own[other] in ({*show["cards"]} for show in shows.values()):
            page.wait_for_function(
                "(cards) => cards.every((c) =>"
                " document.querySelector(`.seat:not(.hero) [data-card='${c}']`))",
                arg=sorted(own[other]),
            )
    log = log_texts(a)
    assert not [line for line in log if "timed out" in line], log  # every action was clicked
    boards = [line for line in log if line.startswith("Board:")]
    assert len(boards) == 3, log
    assert [len(line.removeprefix("Board:").split()) for line in boards] == [3, 1, 1], boards
    a.evaluate("() => window.scrollTo(0, 0)")
    a.screenshot(path=str(SCREENSHOTS / "holdem.png"))
    assert not errors, errors
    for ctx in contexts:
        ctx.close()
