"""``studpoker play``: scripted terminal sessions through a pipe (no terminal needed)."""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time

import pytest

from studpoker.cards import Card
from studpoker.engine import ActionKind, LegalOption
from studpoker.tools.play import card_text, option_keys

ENV = {**os.environ, "COLUMNS": "100", "TERM": "dumb"}


def _play(args: list[str], script: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studpoker", "play", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
        check=False,
    )


@pytest.mark.parametrize("game", ["7S8", "O8"])
def test_scripted_session_plays_to_showdown(game: str) -> None:
    # "c" checks, calls or posts the bring-in; a bad key is refused and asked again;
    # an empty line after a hand deals the next one
    script = "x\n" + "c\n" * 12 + "\n" + "c\n" * 12 + "\n" + "c\n" * 12
    proc = _play(["--game", game, "--seed", "7", "--hands", "2", "--clock", "30"], script)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "'x' is not one of" in out
    assert out.count("your action>") >= 3
    assert "hand 2:" in out
    assert any(sym in out for sym in "♣♦♥♠")
    assert "[c]" in out and "[q] quit" in out
    assert "⏱ 30 s to act" in out
    assert "wins" in out and "2 hands played" in out


def test_showdown_names_the_hands() -> None:
    # calling everything down until someone shows a hand
    for seed in range(1, 12):
        args = ["--game", "7S", "--bots", "calling", "--seed", str(seed), "--hands", "1", "--clock", "0"]
        proc = _play(args, "c\n" * 20)
        if "showdown" in proc.stdout:
            assert any(name in proc.stdout for name in ("Pair", "High Card", "Two Pair", "Three of a Kind",
                                                         "Straight", "Flush", "Full House"))  # fmt: skip
            return
    pytest.fail("no showdown in eleven called-down hands")


def test_quit_and_end_of_input() -> None:
    proc = _play(["--game", "RZ", "--seed", "1", "--clock", "0"], "q\n")
    assert proc.returncode == 0, proc.stderr
    assert "0 hands played" in proc.stdout or "1 hands played" in proc.stdout
    proc = _play(["--game", "RZ", "--seed", "1", "--clock", "0"], "")  # end of input quits
    assert proc.returncode == 0, proc.stderr


def test_clock_runs_out() -> None:
    """With nothing typed the clock runs out and the engine's timeout rule acts."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "studpoker", "play", "--game", "7S", "--seed", "3", "--hands", "1",
         "--clock", "1.5", "--bots", "calling"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = proc.stdout

    def pump() -> None:
        for line in stdout:
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 90
        while not any("s to act" in line for line in seen):  # the first decision is on screen
            assert time.monotonic() < deadline, "".join(seen)
            seen.append(lines.get(timeout=90))
        time.sleep(3.0)  # its clock is 1.5 s
        with contextlib.suppress(BrokenPipeError):  # every decision may have timed out already
            proc.stdin.write("c\n" * 20)
            proc.stdin.close()
        proc.wait(timeout=90)
    finally:
        proc.kill()
    reader.join(timeout=10)
    while not lines.empty():
        seen.append(lines.get())
    out = "".join(seen)
    assert "time is up" in out
    assert "clock ran out" in out


def test_keys_and_cards() -> None:
    options = (
        LegalOption(kind=ActionKind.FOLD, amount=0),
        LegalOption(kind=ActionKind.CALL, amount=10),
        LegalOption(kind=ActionKind.RAISE, amount=20),
        LegalOption(kind=ActionKind.RAISE, amount=30),
    )
    keys = option_keys(options)
    assert list(keys) == ["f", "c", "r", "R"] and keys["R"].amount == 30
    assert card_text(Card.parse("Ah")).plain == "A♥"
    assert "red" in str(card_text(Card.parse("Ah")).style)
    assert card_text(None).plain.startswith("🂠")


def test_unknown_game_and_bot() -> None:
    proc = _play(["--game", "DRAW"], "")
    assert proc.returncode == 2 and "unknown game" in proc.stderr, proc.stderr
    proc = _play(["--bots", "oracle"], "")
    assert proc.returncode == 2 and "unknown bot" in proc.stderr, proc.stderr
