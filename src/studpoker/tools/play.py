"""Terminal play: one person against bots, drawn with rich, driven by lines on stdin.

Each decision shows the table (cards with suit symbols and colours, hidden cards as a back),
the pot, and the legal actions with their keys; the player types a key and Enter. The action
clock of the rule book (docs/rules.md, R-ACTION-CLOCK) runs: a visible countdown, and when it
runs out the engine's timeout rule decides (check if free, else fold or the protected all-in).
Reading lines from stdin (not raw keys) keeps it scriptable: a test pipes a session through it.
"""

from __future__ import annotations

import os
import random
import select
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from studpoker.bots import Bot, make_bot
from studpoker.cards import Card, Deck
from studpoker.engine import Action, ActionKind, Hand, HandView, IllegalActionError, LegalOption
from studpoker.games import Stakes, get_game

__all__ = ["KEYS", "Session", "card_text", "option_keys"]

SUIT_STYLE = ("green", "blue", "red", "white")  # four-colour deck: clubs, diamonds, hearts, spades
BACK = "🂠"

# Keys for the legal actions ("c" is the passive choice: check, call, or post the bring-in).
KEYS = {
    ActionKind.FOLD: "f",
    ActionKind.CHECK: "c",
    ActionKind.CALL: "c",
    ActionKind.BRING_IN: "c",
    ActionKind.COMPLETE: "o",
    ActionKind.BET: "b",
    ActionKind.RAISE: "r",
}


def card_text(card: Card | None) -> Text:
    """A card with its suit symbol and colour; a hidden card as a card back."""
    if card is None:
        return Text(BACK + " ", style="bold magenta")
    return Text(f"{card.symbol}", style=f"bold {SUIT_STYLE[card.suit]} on grey11")


def cards_text(down: Sequence[Card | None], up: Sequence[Card | None]) -> Text:
    out = Text()
    for c in down:
        out.append_text(card_text(c))
        out.append(" ")
    if down and up:
        out.append("| ", style="dim")
    for c in up:
        out.append_text(card_text(c))
        out.append(" ")
    return out


def option_keys(options: Sequence[LegalOption]) -> dict[str, LegalOption]:
    """Key -> option; a second option of the same kind (7S open pair: the big bet) gets the capital."""
    keys: dict[str, LegalOption] = {}
    for o in options:
        key = KEYS[o.kind]
        if key in keys:
            key = key.upper()
        keys[key] = o
    return keys


def describe(option: LegalOption | Action) -> str:
    kind = option.kind
    amount = option.amount
    words = {
        ActionKind.FOLD: "fold",
        ActionKind.CHECK: "check",
        ActionKind.CALL: "call",
        ActionKind.BRING_IN: "bring in",
        ActionKind.COMPLETE: "complete to",
        ActionKind.BET: "bet",
        ActionKind.RAISE: "raise to",
    }[kind]
    if kind in (ActionKind.FOLD, ActionKind.CHECK) or amount is None:
        return words
    return f"{words} {amount}"


@dataclass
class Session:
    """A table: the player in seat 1, bots in the other seats; stacks carry over between hands."""

    game_code: str = "7S8"
    bots: Sequence[str] = ("equity", "equity")
    small_bet: int = 10
    stack: int = 1000
    clock: float = 30.0  # seconds per decision (the last 20 s counted down)
    seed: int | None = None
    out: IO[str] = field(default_factory=lambda: sys.stdout)
    inp: IO[str] = field(default_factory=lambda: sys.stdin)
    hands_played: int = 0

    def __post_init__(self) -> None:
        self.game = get_game(self.game_code)
        self.stakes = Stakes.from_bets(self.small_bet, 2 * self.small_bet, self.game)
        self.rng = random.Random(self.seed)
        self.console = Console(file=self.out, highlight=False, width=100)
        self.names = {1: "you"} | {i + 2: name for i, name in enumerate(self.bots)}
        self.players: dict[int, Bot] = {
            i + 2: make_bot(name, self.rng.randrange(2**32)) for i, name in enumerate(self.bots)
        }
        self.stacks = {seat: self.stack for seat in self.names}
        self._buffer = ""

    # -- reading the player ------------------------------------------------------------------

    def _readline(self, timeout: float | None) -> str | None:
        """A line from the input, '' at end of input, None when ``timeout`` passes first.

        Reads the file descriptor itself (no hidden buffer), so the clock works on a pipe too.
        """
        while "\n" not in self._buffer:
            try:
                fd = self.inp.fileno()
            except (OSError, ValueError, AttributeError):  # StringIO and friends: no clock
                return self.inp.readline()
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                rest, self._buffer = self._buffer, ""
                return rest
            self._buffer += chunk.decode("utf-8", "replace")
        line, _, self._buffer = self._buffer.partition("\n")
        return line + "\n"

    def ask(self, prompt: str, keys: dict[str, LegalOption] | None) -> str | None:
        """The key typed; None when the clock ran out; 'q' at end of input."""
        deadline = time.monotonic() + self.clock if self.clock > 0 else None
        marks = [m for m in (20, 10, 5) if m < self.clock]
        self.out.write(prompt)
        self.out.flush()
        while True:
            wait: float | None = None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.console.print("\n[bold red]⏱ time is up[/]")
                    return None
                while marks and left <= marks[0]:
                    marks.pop(0)
                    self.console.print(f"\n[yellow]⏱ {left:.0f} s left[/]")
                    self.out.write(prompt)
                    self.out.flush()
                wait = left - marks[0] if marks else left
            line = self._readline(wait)
            if line is None:
                continue
            if line == "":
                return "q"
            key = line.strip()
            if key == "q" or keys is None:
                return key
            if key in keys:
                return key
            if key.lower() in keys and key.upper() not in keys:
                return key.lower()
            self.console.print(f"[red]{key!r} is not one of {', '.join(keys)}[/]")
            self.out.write(prompt)
            self.out.flush()

    # -- drawing -----------------------------------------------------------------------------

    def draw(self, view: HandView) -> None:
        table = Table(title=f"{self.game.name} — {view.street} street" if self.game.is_stud else
                      f"{self.game.name} — {view.street}", show_lines=False)  # fmt: skip
        table.add_column("seat", justify="right")
        table.add_column("player")
        table.add_column("cards")
        table.add_column("stack", justify="right")
        table.add_column("bet", justify="right")
        for s in view.seats:
            status = " (folded)" if s.folded else " (all-in)" if s.all_in else ""
            mark = "▶ " if view.to_act == s.seat else ""
            table.add_row(
                f"{mark}{s.seat}",
                self.names.get(s.seat, "?") + status,
                cards_text(s.down, s.up),
                str(s.stack),
                str(s.bet) if s.bet else "",
                style="dim" if s.folded else ("bold" if s.seat == 1 else ""),
            )
        self.console.print(table)
        if view.board:
            board = Text("board: ")
            for c in view.board:
                board.append_text(card_text(c))
                board.append(" ")
            self.console.print(board)
        self.console.print(f"pot {sum(p.amount for p in view.pots)}")

    def show_result(self, hand: Hand) -> None:
        result = hand.result
        assert result is not None
        self.console.rule("[bold]showdown" if result.showdown else "[bold]hand over")
        for shown in result.shown:
            line = Text(f"seat {shown.seat} {self.names.get(shown.seat, '?')}: ")
            for c in shown.cards:
                line.append_text(card_text(c))
                line.append(" ")
            parts = [p for p in (shown.high, shown.low and f"low: {shown.low}") if p]
            line.append(" — " + ("; ".join(parts) if parts else "no hand"), style="bold")
            self.console.print(line)
        for pot in result.pots:
            for share in pot.shares:
                half = "" if share.half in ("whole", "uncontested") else f" ({share.half} half)"
                label = "main pot" if pot.index == 0 else f"side pot {pot.index}"
                self.console.print(
                    f"[green]seat {share.seat} {self.names.get(share.seat, '?')} wins {share.amount} "
                    f"from the {label}{half}[/]"
                )
        net = result.net.get(1, 0)
        self.console.print(f"your result this hand: [bold]{net:+d}[/], stack {result.final_stacks.get(1, 0)}")

    # -- playing -----------------------------------------------------------------------------

    def play_hand(self) -> bool:
        """Play one hand; False when the player quits."""
        for number, chips in self.stacks.items():
            if chips < self.stakes.big_bet:
                self.stacks[number] = self.stack  # re-buy
        seats = sorted(self.stacks.items())
        button = seats[self.hands_played % len(seats)][0] if self.game.has_button else None
        hand = Hand(self.game, self.stakes, seats, deck=Deck.shuffled(self.rng), button=button)
        self.hands_played += 1
        self.console.rule(
            f"[bold]hand {self.hands_played}: {self.game.name}, bets {self.small_bet}/{2 * self.small_bet}"
        )
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None
            view = hand.view(seat)
            legal = view.legal.options if view.legal is not None else hand.legal_actions().options
            if seat != 1:
                action = self.players[seat].choose(view, legal)
                hand.act(seat, action.kind, action.amount)
                self.console.print(f"seat {seat} {self.names[seat]}: {describe(action)}")
                continue
            self.draw(view)
            keys = option_keys(legal)
            menu = "  ".join(f"[{k}] {describe(o)}" for k, o in keys.items())
            self.console.print(f"{menu}  [q] quit", markup=False)
            self.console.print(f"[dim]⏱ {self.clock:.0f} s to act[/]" if self.clock > 0 else "")
            key = self.ask("your action> ", keys)
            if key == "q":
                return False
            if key is None:
                before = len(hand.events)
                hand.timeout(1)
                what = [e for e in hand.events[before:] if str(e.kind) == "timeout"]
                self.console.print(f"[red]clock ran out: {what[0].detail if what else 'timeout'}[/]")
                continue
            option = keys[key]
            try:
                hand.act(1, option.kind, option.amount)
            except IllegalActionError as error:  # pragma: no cover - options come from the engine
                self.console.print(f"[red]{error}[/]")
        self.show_result(hand)
        assert hand.result is not None
        self.stacks = dict(hand.result.final_stacks)
        return True

    def run(self, hands: int | None = None) -> int:
        self.console.print(
            f"[bold]studpoker[/] {self.game.name}: you are seat 1 against "
            + ", ".join(f"seat {s} ({n})" for s, n in self.names.items() if s != 1)
        )
        while hands is None or self.hands_played < hands:
            if not self.play_hand():
                break
            if hands is not None and self.hands_played >= hands:
                break
            key = self.ask("Enter for the next hand, q to quit> ", None)
            if key == "q":
                break
        start = self.stack * len(self.names)
        self.console.print(
            f"[bold]{self.hands_played} hands played; you finish with {self.stacks.get(1, 0)} "
            f"(started {self.stack}, table {start})[/]"
        )
        return 0


def main_args(args: Any) -> int:
    from studpoker.tools.match import parse_bots

    session = Session(
        game_code=args.game,
        bots=parse_bots(args.bots),
        small_bet=args.small_bet,
        stack=args.stack,
        clock=args.clock,
        seed=args.seed,
    )
    return session.run(args.hands)
