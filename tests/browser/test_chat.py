"""The table's chat and dealer log, in one panel (issue 12): two players chat, a line is shown as
text (an <img onerror> in it runs nothing), a guest reads but may not write, a player mutes
another for himself (kept across a reload) and reports a line (stored for the operator with its
text); the dealer log has every action with its amount in the room's money format, the streets
and up cards, what was shown and who won what, filtered with the chat, and comes back on a
reload: the hand in progress from the snapshot's events, the hands before from the tab.
Writes chat.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, click_passive, register, take_seat

pytestmark = pytest.mark.browser

XSS = '<img src=x onerror="window.__pwned = 1">'
MONEY = re.compile(r"\d+\.\d\d")


def suffix() -> str:
    return str(int(time.time() * 1000) % 10**7)


def free_table(server: Server, game: str) -> dict[str, Any]:
    tables = [t for t in server.tables() if t["game"] == game and not t["seated"] and t["min_buy_in"] <= 5000]
    assert tables, f"no free {game} table"
    return tables[0]


def chat_texts(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#log-lines .log-line.chat",
        "els => els.map(e => e.querySelector('.who').textContent + ': '"
        " + e.querySelector('.text').textContent)",
    )
    return texts


def dealer_texts(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        "#log-lines .log-line.dealer", "els => els.map(e => e.textContent)"
    )
    return texts


def shown(page: Any, text: str) -> None:
    """Wait until a chat line with exactly this text is in the page's panel."""
    page.wait_for_function(
        "t => [...document.querySelectorAll('#log-lines .log-line.chat .text')]"
        ".some(e => e.textContent === t)",
        arg=text,
    )


def say(page: Any, text: str) -> None:
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")


def admin(server: Server, *args: str) -> Any:
    """``studpoker admin ... --json`` on the room's database (next to its log)."""
    url = f"sqlite+aiosqlite:///{server.log.parent / 'room.sqlite3'}"
    out = subprocess.run(
        [sys.executable, "-m", "studpoker", "admin", "--database-url", url, *args, "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def test_chat_as_text_muted_and_reported(browser: Any, server: Server) -> None:
    table = free_table(server, "7S8")
    tag = suffix()
    alice, bob = f"chia{tag}", f"chib{tag}"
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    a, b, g = (c.new_page() for c in contexts)
    errors: list[str] = []
    for page in (a, b, g):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    register(a, server, alice)
    register(b, server, bob)
    take_seat(a, table["id"])
    take_seat(b, table["id"])
    g.goto(server.url)
    g.click(f"tr[data-table='{table['id']}'] button.watch")
    g.wait_for_selector(f".seat .plate >> text={bob}")

    # a guest reads the chat but cannot write in it
    assert g.locator("#chat-input").is_disabled()
    assert g.get_attribute("#chat-input", "placeholder") == "Log in to chat"

    say(a, f"good luck {XSS}")
    line = f"{alice}: good luck {XSS}"
    for page in (a, b, g):
        shown(page, f"good luck {XSS}")
        assert line in chat_texts(page)
        # drawn as text: no element came out of it, nothing ran
        assert page.locator("#log-lines img").count() == 0
        assert page.evaluate("window.__pwned") is None
    assert a.input_value("#chat-input") == ""  # sent: the box is empty again

    # a clear error under the box, and the line kept to be put right: too fast
    for n in range(5):
        say(b, f"hi {n}")
        b.wait_for_function(
            "n => [...document.querySelectorAll('#log-lines .text')].some(e => e.textContent === `hi ${n}`)",
            arg=n,
        )
    say(b, "one more")
    b.wait_for_selector("#chat-note >> text=/chatting too fast/")
    assert b.input_value("#chat-input") == "one more"
    assert not any("one more" in t for t in chat_texts(a))

    # bob mutes alice, for himself only: her lines go from his panel, not from the guest's
    b.hover("#log-lines .log-line.chat[data-line='1']")
    b.click("#log-lines .log-line.chat[data-line='1'] button.mute")
    b.wait_for_selector(f"#chat-muted button.unmute[data-player='{alice}']")
    assert not any(t.startswith(f"{alice}:") for t in chat_texts(b))
    assert line in chat_texts(g)
    say(a, "can you hear me")
    shown(a, "can you hear me")
    shown(g, "can you hear me")
    assert not any("can you hear me" in t for t in chat_texts(b))
    # kept with his account: a reload still hides her
    b.reload()
    b.wait_for_selector(f"#chat-muted button.unmute[data-player='{alice}']")
    b.wait_for_selector("#log-lines .log-line.chat")
    assert not any(t.startswith(f"{alice}:") for t in chat_texts(b))
    assert f"{bob}: hi 4" in chat_texts(b)  # the snapshot's lines
    b.click(f"#chat-muted button.unmute[data-player='{alice}']")
    shown(b, "can you hear me")

    # the guest sees no mute or report button; bob reports her line
    assert g.locator("#log-lines button.report").count() == 0
    b.hover("#log-lines .log-line.chat[data-line='1']")
    b.click("#log-lines .log-line.chat[data-line='1'] button.report")
    b.wait_for_selector("#log-lines .log-line.chat[data-line='1'] .reported")
    reports = [r for r in admin(server, "reports") if r["speaker"] == alice]
    assert [(r["reporter"], r["text"], r["table_id"]) for r in reports] == [
        (bob, f"good luck {XSS}", table["id"])
    ]
    assert errors == []
    for context in contexts:
        context.close()


def test_the_dealer_log(browser: Any, server: Server) -> None:
    table = free_table(server, "7S")
    tag = suffix()
    alice, bob = f"dlra{tag}", f"dlrb{tag}"
    ctx_a, ctx_b = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    register(a, server, alice)
    register(b, server, bob)
    take_seat(a, table["id"])
    take_seat(b, table["id"])
    a.wait_for_function("() => window.studpoker.state?.handId && window.studpoker.state?.hand")
    hand_id = a.evaluate("window.studpoker.state.handId")

    def acted() -> None:
        """Each page acts (passively) once if it is its turn."""
        for page in (a, b):
            if page.locator("#actions button[data-kind]").count():
                click_passive(page)
                page.wait_for_timeout(300)

    # the bring-in and a call: the third-street lines
    deadline = time.monotonic() + 60
    while (
        time.monotonic() < deadline
        and len([t for t in dealer_texts(a) if " calls " in t or " checks" in t]) < 1
    ):
        acted()
    lines = dealer_texts(a)
    assert lines[0] == f"Hand {hand_id[:8]}: Seven Card Stud"
    assert f"{alice} posts the ante 0.10" in lines and f"{bob} posts the ante 0.10" in lines
    assert "3rd street" in lines
    assert any(t.startswith("Up cards: ") and alice in t and bob in t for t in lines)
    assert any(t.startswith("You get ") for t in lines)  # alice's own down cards, to her only
    assert any(t.endswith(" brings in for 0.25") or " completes to 1.00" in t for t in lines)
    calls = [t for t in lines if " calls " in t]
    assert all(MONEY.search(t) for t in calls)
    assert not any(t.startswith("You get ") for t in dealer_texts(b) if alice in t)

    # the filter: chat alone, dealer alone, both
    say(a, "nice hand")
    a.wait_for_selector("#log-lines .log-line.chat")
    a.click(".log-filters button[data-filter='chat']")
    assert (
        a.locator("#log-lines .log-line.dealer").count() == 0
        and a.locator("#log-lines .log-line.chat").count() == 1
    )
    a.click(".log-filters button[data-filter='dealer']")
    assert (
        a.locator("#log-lines .log-line.chat").count() == 0
        and a.locator("#log-lines .log-line.dealer").count() > 3
    )
    a.click(".log-filters button[data-filter='all']")
    assert a.locator("#log-lines .log-line.chat").count() == 1

    # a reload mid-hand, its tab storage gone too: the hand is written again from the snapshot
    before = dealer_texts(a)
    a.evaluate("sessionStorage.clear()")
    a.reload()
    a.wait_for_function(
        "n => document.querySelectorAll('#log-lines .log-line.dealer').length >= n", arg=len(before)
    )
    after = dealer_texts(a)
    assert after[: len(before)] == before

    # to the end of the hand: the showdown and the awards
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(" wins " in t for t in dealer_texts(a)):
        acted()
    lines = dealer_texts(a)
    wins = [t for t in lines if " wins " in t]
    assert wins and all(re.search(r" wins \d+\.\d\d from the pot", t) for t in wins)
    assert any(re.search(r" shows .+ \(.+\)$", t) for t in lines) or any(" folds" in t for t in lines)
    for street in ("4th street", "5th street", "6th street", "7th street"):
        if any(" shows " in t for t in lines):
            assert street in lines
    say(b, "gg, well played")
    shown(a, "gg, well played")
    a.screenshot(path=str(SCREENSHOTS / "chat.png"))

    # the next hand: the finished one stays in the log, also after a reload (kept in the tab)
    a.wait_for_function(
        "h => window.studpoker.state?.handId && window.studpoker.state.handId !== h",
        arg=hand_id,
        timeout=30000,
    )
    a.reload()
    a.wait_for_selector("#log-lines .log-line.dealer.hand")
    kept = dealer_texts(a)
    assert f"Hand {hand_id[:8]}: Seven Card Stud" in kept
    assert wins[0] in kept
    assert errors == []
    ctx_a.close()
    ctx_b.close()
