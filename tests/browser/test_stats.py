"""The statistics page: two players play a few hands in Chromium, then open #/stats from the
name in the top bar: hands played, the figures per game, and the plot of results (one path
point per hand, a tooltip on hover); the other player's public view of the first has no money.
Writes docs/screenshots/stats.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, click_passive, register, take_seat

pytestmark = pytest.mark.browser

HANDS = 3
# In the page: whether every point of a plot's path lies between its lowest and highest y tick.
POINTS_INSIDE = """(svg) => {
    const ys = [...svg.querySelectorAll('line.grid, line.zero')].map(l => Number(l.getAttribute('y1')));
    const d = svg.querySelector('path.stats-curve').getAttribute('d');
    const points = d.split(/[ML]/).filter(Boolean).map(p => Number(p.split(',')[1]));
    return points.every(y => y >= Math.min(...ys) - 0.01 && y <= Math.max(...ys) + 0.01);
}"""


def finished_hands(page: Any) -> int:
    """Hands this page saw finish (its hand history panel has one entry each; none voided)."""
    count: int = page.evaluate(
        "() => window.studpoker && document.querySelectorAll('#history-list .hand-entry').length"
    )
    return count


def complete_if_offered(page: Any) -> bool:
    button = page.locator("#actions button[data-kind='complete']")
    if button.count():
        button.first.click()
        return True
    return False


def api_stats(page: Any, path: str) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """async (path) => {
            const token = localStorage.getItem('studpoker.token');
            const r = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
            return await r.json();
        }""",
        path,
    )
    return result


def test_the_statistics_page_after_a_few_hands(browser: Any, server: Server) -> None:
    candidates = [
        t for t in server.tables() if t["game"] == "7S" and not t["seated"] and t["min_buy_in"] <= 5000
    ]
    table = candidates[-1]  # the other browser tests take the first free one
    ctx_a, ctx_b = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    errors: list[str] = []
    for page in (a, b):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    suffix = str(int(time.time() * 1000) % 10**7)
    alice, bob = f"sara{suffix}", f"tom{suffix}"
    register(a, server, alice)
    register(b, server, bob)
    # the lobby links to the statistics too
    assert a.locator("#lobby-stats").is_visible()
    take_seat(a, table["id"])
    take_seat(b, table["id"])

    completed = False
    deadline = time.monotonic() + 240
    while finished_hands(a) < HANDS or finished_hands(b) < HANDS:
        assert time.monotonic() < deadline, f"{finished_hands(a)} hands finished in time"
        if finished_hands(b) == 1 and not completed:
            completed = complete_if_offered(b)  # bob completes 3rd street in the second hand
        for page in (a, b):
            click_passive(page)
        a.wait_for_timeout(150)
    # leave before another hand (the next one would be dealt after the server's pause)
    for page in (a, b):
        page.click("#standup-btn")
    deadline = time.monotonic() + 90
    while any(p.evaluate("() => window.studpoker.state?.yourSeat ?? null") is not None for p in (a, b)):
        assert time.monotonic() < deadline, "stand up did not happen"
        for page in (a, b):
            click_passive(page)
        a.wait_for_timeout(200)
    played = finished_hands(a)
    assert played >= HANDS

    # The name in the top bar opens your statistics.
    a.click("#me-name")
    a.wait_for_selector("#view-stats:not([hidden]) .stats-tile[data-stat='hands']")
    assert a.locator("#view-lobby").is_hidden() and a.locator("#view-table").is_hidden()
    own = api_stats(a, "/api/me/stats")
    assert own["hands"] == played
    assert a.inner_text(".stats-tile[data-stat='hands'] b") == str(played)
    assert a.locator(".stats-tile[data-stat='net']").count() == 1
    assert a.locator(".stats-tile[data-stat='bb100']").count() == 1
    # the figures table: a row for the game, each figure as the API counts it
    row = a.locator("table.stats-games tr[data-game='7S']")
    assert row.count() == 1
    cells = row.locator("td[data-of]")
    assert cells.count() == 5
    game = own["games"][0]
    figures = ["entry", "completion", "saw_second_street", "showdown", "won_at_showdown"]
    for k, name in enumerate(figures):
        cell = cells.nth(k)
        assert (cell.get_attribute("data-count"), cell.get_attribute("data-of")) == (
            str(game[name]["count"]),
            str(game[name]["of"]),
        ), name
    assert game["saw_second_street"]["of"] == played
    # the plot: one path point per hand, the zero line, labelled axes
    path = a.locator(".stats-plot svg path.stats-curve")
    assert path.get_attribute("data-points") == str(played)
    d = path.get_attribute("d") or ""
    assert d.count("M") + d.count("L") == played
    assert a.locator(".stats-plot svg line.zero").count() == 1
    assert a.locator(".stats-plot svg text.tick").count() >= 4
    # every point inside the plot: the y ticks cover the results
    assert a.evaluate(f"() => ({POINTS_INSIDE})(document.querySelector('.stats-plot svg'))")
    # hovering the right end shows the last hand and where it left the results
    box = a.locator(".stats-plot svg").bounding_box()
    assert box is not None
    a.mouse.move(box["x"] + box["width"] - 20, box["y"] + box["height"] / 2)
    a.wait_for_selector(".stats-tip:not([hidden])")
    tip = a.inner_text(".stats-tip")
    assert tip.startswith(f"Hand {played}:"), tip
    a.screenshot(path=str(SCREENSHOTS / "stats.png"), full_page=True)

    # bob looks alice up: her figures, no money, no plot
    b.goto(f"{server.url}#/stats/{alice}")
    b.wait_for_selector("#view-stats:not([hidden]) .stats-tile[data-stat='hands']")
    assert b.inner_text("#stats h2") == f"Statistics of {alice}"
    assert b.inner_text(".stats-tile[data-stat='hands'] b") == str(played)
    assert b.locator(".stats-tile[data-stat='net']").count() == 0
    assert b.locator(".stats-plot").count() == 0
    assert b.locator("table.stats-games td[data-net]").count() == 0
    assert b.locator("table.stats-games tr[data-game='7S'] td[data-of]").count() == 5
    # an unknown name is said so; the game filter asks again
    b.fill(".stats-find input", "nobody_at_all")
    b.press(".stats-find input", "Enter")
    b.wait_for_selector("#stats p.error")
    assert "No player is called" in b.inner_text("#stats p.error")
    b.click("a.me-name")
    b.wait_for_selector("#stats h2 >> text=Your statistics")
    b.select_option(".stats-game", "O8")
    b.wait_for_selector(".stats-tile[data-stat='hands'] b >> text=0")
    assert b.locator("table.stats-games").count() == 0

    assert not errors, errors
    for ctx in (ctx_a, ctx_b):
        ctx.close()


def test_the_plot_covers_every_point_with_labelled_ticks(browser: Any, server: Server) -> None:
    """drawPlot alone, on results whose top (+0.70) is no round number: the y ticks still
    cover it, the zero line is drawn, the path has a point per result."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(server.url)
    out = page.evaluate(
        """async () => {
            const POINTS_INSIDE = """
        + POINTS_INSIDE
        + """;
            const m = await import('/js/stats.js');
            const host = document.createElement('div');
            host.className = 'stats-plot';
            document.body.appendChild(host);
            m.drawPlot(host, [{ hand: 1, net: 70 }, { hand: 2, net: -50 }, { hand: 3, net: 20 }]);
            const svg = host.querySelector('svg');
            const d = svg.querySelector('path.stats-curve').getAttribute('d');
            return {
                inside: (POINTS_INSIDE)(svg),
                points: d.split(/[ML]/).filter(Boolean).length,
                zero: svg.querySelectorAll('line.zero').length,
                labels: [...svg.querySelectorAll('text.tick')].map(t => t.textContent),
                ticks: m.niceTicks(0, 1),
            };
        }"""
    )
    context.close()
    assert out["inside"] and out["points"] == 3 and out["zero"] == 1
    # money ticks with two decimals (js/format.js), hand numbers as integers
    assert set(out["labels"]) == {"-0.50", "0.00", "0.50", "1.00", "0", "1", "2", "3"}, out["labels"]
    assert out["ticks"] == [0, 1]  # whole cents: no half-cent tick
