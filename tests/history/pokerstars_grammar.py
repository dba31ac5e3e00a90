"""A strict line grammar of PokerStars hand histories, written from ../shared/POKERSTARS_FORMAT.md.

It is the tests' oracle, kept apart from the importer: every line of an exported hand must be
one of the forms FPDB's PokerStars parser reads (its patterns, cited as PS:n in the format
description) or one of the lines it is documented to skip, in the place it must be; and the
money must add up the way FPDB adds it (``raises X to Y``: Y is the round total; blinds and the
bring-in count in the round, antes do not): everything put in, less the uncalled bet, is the
Total pot, which the ``collected`` lines share out, one summary line per seat with its total.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

LS = r"(?:\$|€|£|¥|₹|Rs\. )?"  # PS:179-191 ("LS" and "CUR": an optional currency symbol)
NUM = r"[,.\d]+"
ISO = r"(?:USD|EUR|GBP|CAD|FPP|SC|INR|CNY)"
# PS:194-253: a ring game's big bet must be a key of lim_blinds.
LIM_BLINDS = {"0.04", "0.08", "0.10", "0.20", "0.40", "0.50"} | {
    f"{n}{tail}"
    for n in (
        1,
        2,
        4,
        6,
        8,
        10,
        16,
        20,
        30,
        40,
        50,
        60,
        80,
        100,
        150,
        200,
        400,
        500,
        600,
        800,
        1000,
        2000,
        4000,
        10000,
        20000,
        40000,
    )
    for tail in ("", ".00")
}
GAMES = {"7 Card Stud": "7S", "7 Card Stud Hi/Lo": "7S8", "Razz": "RZ", "Omaha Hi/Lo": "O8", "Hold'em": "LHE"}
BOARD_GAMES = {"O8": 4, "LHE": 2}  # the board games and their hole cards

GAME_INFO = re.compile(  # PS:317-346, for the four games in fixed limit
    r"^PokerStars (?:Hand|Game|Home Game|Home Game Hand|Zoom Hand|Rush Hand|GAME) #(?P<hid>[0-9]+):\s+"
    rf"(?:Tournament #(?P<tourno>\d+), (?P<buyin>(?:{LS}[\d.]+\+?)+(?: {ISO})?|Freeroll) )?"
    r"(?P<game>7 Card Stud Hi/Lo|7 Card Stud|Razz|Omaha Hi/Lo|Hold'em) (?P<limit>Limit|Fixed Limit)"
    r" (?:- Level (?P<level>[IVXLC]+) )?"
    rf"\((?P<currency>{LS})(?P<sb>[.0-9]+)/{LS}(?P<bb>[.0-9]+)(?: (?P<iso>{ISO}))?\)"
    r" - (?P<date>.*)$"
)
DATE = re.compile(r"[0-9]{4}/[0-9]{2}/[0-9]{2}[\- ]+[0-9]+:[0-9]+:[0-9]+")  # PS:380-383
TABLE = re.compile(  # PS:359-367
    r"^Table '(?P<table>.+?)' (?:(?P<max>\d+)-max)?(?: \(Play Money\))?"
    r"(?: Seat #(?P<button>\d+) is the button)?$"
)
SEAT = re.compile(  # PS:348-357
    rf"^Seat (?P<seat>[0-9]+): (?P<name>.*) \({LS}(?P<cash>[,.0-9]+) in chips(?:, {LS}[,.0-9]+ bounty)?\)"
    r"(?: is sitting out)?$"
)
ANTE = re.compile(rf"^(?P<name>.+?): posts the ante {LS}(?P<amount>[,.0-9]+)(?: and is all-in)?$")  # PS:404
BRING_IN = re.compile(
    rf"^(?P<name>.+?): brings[- ]in(?: low|) for {LS}(?P<amount>[,.0-9]+)(?: and is all-in)?$"
)
BLIND = re.compile(
    rf"^(?P<name>.+?): posts (?P<which>small|big) blind {LS}(?P<amount>[,.0-9]+)(?: and is all-in)?$"
)
STUD_MARKER = re.compile(
    r"^\*\*\* (?P<street>3rd STREET|4th STREET|5th STREET|6th STREET|RIVER) \*\*\*(?P<board>.*)$"
)
OMAHA_MARKER = re.compile(
    r"^\*\*\* (?:(?P<hole>HOLE CARDS) \*\*\*|(?P<flop>FLOP) \*\*\* \[(?P<f>\S\S \S\S \S\S)\]"
    r"|(?P<turn>TURN) \*\*\* \[(?P<t0>\S\S \S\S \S\S)\] \[(?P<t>\S\S)\]"
    r"|(?P<river>RIVER) \*\*\* \[(?P<r0>\S\S \S\S \S\S \S\S)\] \[(?P<r>\S\S)\])$"
)
DEALT = re.compile(r"^Dealt to (?P<name>.+?)(?: \[(?P<old>.+?)\])? \[(?P<new>.+?)\]$")  # PS:808-811
ACTION = re.compile(  # PS:421-427
    rf"^\s?(?P<name>.+?):(?P<verb> bets| checks| raises| calls| folds)(?: {LS}(?P<bet>[,.\d]+))?"
    rf"(?: to {LS}(?P<to>[,.\d]+))?\s*(?P<all_in>and is all.in)?(?:and has reached the [\d.,]+ cap)?"
    r"(?: on| cards?)?(?: \(disconnect\))?(?: \[(?P<cards>.+?)\])?\s*$"
)
UNCALLED = re.compile(rf"^Uncalled bet \({LS}(?P<amount>[,.\d]+)\) returned to (?P<name>.+)$")  # PS:471-474
COLLECTED = re.compile(  # PS:444-447, one line per pot share
    rf"^(?P<name>.+?) collected {LS}(?P<amount>[,.\d]+) from (?:pot|main pot|side pot(?:-\d+)?)$"
)
SHOWS = re.compile(r"^(?P<name>.+?): shows \[(?P<cards>.*)\](?: \((?P<description>.+)\))?$")  # PS:430-433
MUCKS = re.compile(r"^(?P<name>.+?): mucks hand$")
# Lines FPDB skips (no "name: verb" form): documented as ignored, or the timeout notices.
SKIPPED = re.compile(
    r"^(?:No low hand qualified|(?P<name>.+?) has timed out(?:: all-in under disconnect protection)?)$"
)
TOTAL = re.compile(  # PS:498-504
    rf"^Total pot {LS}(?P<pot>[,.0-9]+)(?P<pots>(?: (?:Main pot|Side pot(?:-\d+)?) {LS}[,.0-9]+\.)*)"
    rf" \| Rake {LS}(?P<rake>[,.0-9]+)$"
)
BOARD = re.compile(r"^Board \[(?P<cards>\S\S(?: \S\S){2,4})\]$")  # PS:379
BRACKETS = (
    r"(?:\(button\) |\(small blind\) |\(big blind\) |\(button\) \(small blind\) |\(button\) \(big blind\) )?"
)
SUMMARY_SEAT = re.compile(
    rf"^Seat (?P<seat>[0-9]+): (?P<name>.+?) {BRACKETS}"
    r"(?:(?:collected|showed \[(?P<showed>.*)\] and (?:won|collected))"
    rf" \({LS}(?P<pot>[,.\d]+)\)(?: with .+)?"
    r"|showed \[(?P<lost>.*)\] and lost with .+"
    r"|mucked(?: \[(?P<mucked>.*)\])?"
    r"|folded (?:on the (?:3rd|4th|5th|6th|7th) Street|before Flop|on the (?:Flop|Turn|River))"
    r"(?: \(didn't bet\))?)$"
)
CARD = re.compile(r"^[23456789TJQKA][cdhs]$")


def amount(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


class GrammarError(AssertionError):
    pass


@dataclass
class Checked:
    """What the grammar read of one hand."""

    game: str
    total_pot: Decimal
    rake: Decimal
    collected: dict[str, Decimal] = field(default_factory=dict)
    uncalled: Decimal = Decimal(0)
    hero_lines: int = 0  # 3rd-street lines with three cards (FPDB's hero; the last one wins)
    lines: int = 0


def _cards(text: str, count: int | None = None) -> list[str]:
    cards = text.split(" ")
    if not all(CARD.match(c) for c in cards) or (count is not None and len(cards) != count):
        raise GrammarError(f"not {count or ''} cards: [{text}]")
    return cards


# Over the complexity limits: the grammar checker: one branch per kind of line.
def check_hand(text: str) -> Checked:  # noqa: C901, PLR0912, PLR0915
    """Read one hand with the strict grammar; raises :class:`GrammarError` on any line."""
    lines = text.rstrip("\n").split("\n")
    if any(not line.strip() for line in lines):
        raise GrammarError("an empty line inside a hand splits it in two (HHC:329-334)")
    if sum(line == "*** SUMMARY ***" for line in lines) != 1:
        raise GrammarError("exactly one *** SUMMARY *** per hand (PS:1329-1351)")
    if "Hand cancelled" in text:
        raise GrammarError("'Hand cancelled' rejects the hand")

    def fail(index: int, reason: str) -> GrammarError:
        return GrammarError(f"line {index + 1} {lines[index]!r}: {reason}")

    head = GAME_INFO.match(lines[0])
    if head is None or not DATE.search(head["date"]):
        raise fail(0, "not a PokerStars header of a stud, Omaha Hi/Lo or Hold'em limit game")
    game = GAMES[head["game"]]
    if head["tourno"] is None and head["bb"] not in LIM_BLINDS:
        raise fail(0, "a ring game's big bet must be a lim_blinds key (PS:1002-1010)")
    table = TABLE.match(lines[1])
    if table is None:
        raise fail(1, "not a table line")
    if (table["button"] is None) != (game not in BOARD_GAMES):
        raise fail(1, "Omaha names the button, stud does not")
    index = 2
    names: list[str] = []
    while index < len(lines) and SEAT.match(lines[index]):
        names.append(SEAT.match(lines[index])["name"])  # type: ignore[index]
        index += 1
    if len(names) < 2:
        raise fail(index, "a hand needs two seat lines")
    stud = game not in BOARD_GAMES
    markers = ["3rd STREET", "4th STREET", "5th STREET", "6th STREET", "RIVER"] if stud else []
    omaha_order = ["hole", "flop", "turn", "river"]
    seen_streets: list[str] = []
    put: dict[str, Decimal] = dict.fromkeys(names, Decimal(0))
    street_total: dict[str, Decimal] = dict.fromkeys(names, Decimal(0))
    checked = Checked(game=game, total_pot=Decimal(0), rake=Decimal(0))
    folded: set[str] = set()
    antes: dict[str, Decimal] = dict.fromkeys(names, Decimal(0))
    in_summary = False
    summary_won: dict[str, Decimal] = {}
    summary_seats: set[str] = set()
    board: list[str] = []
    for i in range(index, len(lines)):
        line = lines[i]
        if line == "*** SUMMARY ***":
            in_summary = True
            continue
        if in_summary:
            total = TOTAL.match(line)
            if total is not None:
                checked.total_pot = amount(total["pot"])
                checked.rake = amount(total["rake"])
                if total["pots"]:
                    parts = [amount(p) for p in re.findall(rf"{LS}([,.0-9]+)\.", total["pots"])]
                    if sum(parts) != checked.total_pot - checked.rake:
                        raise fail(i, "main and side pots do not add up to the pot less the rake")
                continue
            board_line = BOARD.match(line)
            if board_line is not None:
                if stud or _cards(board_line["cards"]) != board:
                    raise fail(i, "the Board line is Omaha's, and must be the board dealt")
                continue
            seat = SUMMARY_SEAT.match(line)
            if seat is None or seat["name"] not in names:
                raise fail(i, "not a summary seat line")
            if seat["name"] in summary_seats:
                raise fail(i, "one summary line per seat")
            summary_seats.add(seat["name"])
            if seat["pot"] is not None:
                summary_won[seat["name"]] = amount(seat["pot"])
            continue
        if line.startswith("*** "):
            if line == "*** SHOW DOWN ***":
                continue
            if stud:
                marker = STUD_MARKER.match(line)
                if marker is None or len(seen_streets) >= 5 or marker["street"] != markers[len(seen_streets)]:
                    raise fail(i, "not the next stud street marker")
                if marker["board"] and (
                    marker["street"] != "RIVER" or not re.fullmatch(r" \[\S\S\]", marker["board"])
                ):
                    raise fail(i, "only the RIVER may carry a card: the community card")
                seen_streets.append(marker["street"])
            else:
                marker = OMAHA_MARKER.match(line)
                kind = next((k for k in omaha_order if marker is not None and marker[k]), None)
                if kind is None or len(seen_streets) >= 4 or kind != omaha_order[len(seen_streets)]:
                    raise fail(i, "not the next Omaha street marker")
                if kind == "flop":
                    board = _cards(marker["f"], 3)  # type: ignore[index]
                elif kind == "turn":
                    if _cards(marker["t0"], 3) != board:  # type: ignore[index]
                        raise fail(i, "the turn line repeats the flop")
                    board.append(marker["t"])  # type: ignore[index]
                elif kind == "river":
                    if _cards(marker["r0"], 4) != board:  # type: ignore[index]
                        raise fail(i, "the river line repeats the board")
                    board.append(marker["r"])  # type: ignore[index]
                seen_streets.append(kind)
            street_total = dict.fromkeys(names, Decimal(0)) if seen_streets[-1] != "hole" else street_total
            continue
        if not seen_streets:  # forced bets come before the first street
            ante = ANTE.match(line)
            blind = BLIND.match(line)
            returned = UNCALLED.match(line)
            if ante is not None and ante["name"] in names:
                put[ante["name"]] += amount(ante["amount"])
                antes[ante["name"]] = amount(ante["amount"])
            elif returned is not None and stud and returned["name"] in names:  # nobody could act
                back = amount(returned["amount"])
                name = returned["name"]
                if checked.uncalled or antes[name] - max(v for n, v in antes.items() if n != name) != back:
                    raise fail(i, "an ante returned must be its unmatched part")
                checked.uncalled = back
                put[name] -= back
            elif blind is not None and blind["name"] in names and not stud:
                put[blind["name"]] += amount(blind["amount"])
                street_total[blind["name"]] = amount(blind["amount"])
            else:
                raise fail(i, "before the first street only antes and blinds")
            continue
        street = seen_streets[-1]
        dealt = DEALT.match(line)
        if dealt is not None:
            name = dealt["name"]
            if name not in names or name in folded:
                raise fail(i, "cards for a player who is not in")
            new = _cards(dealt["new"])
            old = _cards(dealt["old"]) if dealt["old"] else []
            if stud and street == "3rd STREET":
                if old or len(new) not in (1, 3):
                    raise fail(i, "3rd street: three cards for the hero, the up card for the others")
                checked.hero_lines += len(new) == 3
            elif stud and (len(new) != 1 or not old):
                raise fail(i, "4th street on: [cards so far] [the new card]")
            elif not stud and (street != "hole" or len(new) != BOARD_GAMES[game] or old):
                raise fail(i, f"{game}: {BOARD_GAMES[game]} hole cards after HOLE CARDS")
            continue
        bring = BRING_IN.match(line)
        if bring is not None:
            if not stud or street != "3rd STREET":
                raise fail(i, "the bring-in is stud's, on 3rd street")
            put[bring["name"]] += amount(bring["amount"])
            street_total[bring["name"]] = amount(bring["amount"])
            continue
        action = ACTION.match(line)
        if action is not None and action["name"] in names:
            name, verb = action["name"], action["verb"].strip()
            if verb in ("checks", "folds"):
                if action["bet"] or action["to"]:
                    raise fail(i, f"{verb} takes no amount")
                if verb == "folds":
                    folded.add(name)
            elif verb in ("calls", "bets"):
                if action["bet"] is None or action["to"] is not None:
                    raise fail(i, f"{verb} X")
                street_total[name] += amount(action["bet"])
                put[name] += amount(action["bet"])
            else:
                if action["bet"] is None or action["to"] is None:
                    raise fail(i, "raises X to Y: Y is the round total (Hand:1262)")
                to = amount(action["to"])
                highest = max(street_total.values())
                if amount(action["bet"]) != to - highest or to <= street_total[name]:
                    raise fail(i, "raises X to Y: X is Y less the bet faced")
                put[name] += to - street_total[name]
                street_total[name] = to
            continue
        uncalled = UNCALLED.match(line)
        if uncalled is not None:
            name = uncalled["name"]
            back = amount(uncalled["amount"])
            others = max(v for n, v in street_total.items() if n != name)
            if checked.uncalled or street_total[name] - others != back:
                raise fail(i, "the uncalled bet must be this street's unmatched part (PS:471-474)")
            checked.uncalled = back
            put[name] -= back
            street_total[name] -= back
            continue
        collected = COLLECTED.match(line)
        if collected is not None and collected["name"] in names:
            name = collected["name"]
            checked.collected[name] = checked.collected.get(name, Decimal(0)) + amount(collected["amount"])
            continue
        shows = SHOWS.match(line)
        if shows is not None and shows["name"] in names:
            _cards(shows["cards"])
            continue
        mucks = MUCKS.match(line)
        skipped = SKIPPED.match(line)
        if (mucks is not None and mucks["name"] in names) or (
            skipped is not None and (skipped["name"] is None or skipped["name"] in names)
        ):
            continue
        raise fail(i, "not a line of the grammar")
    expected = markers[:1] if stud else ["hole"]
    if seen_streets[: len(expected)] != expected:
        raise GrammarError("the hand deals no cards")
    if summary_seats != set(names):
        raise GrammarError(f"summary seat lines for {sorted(summary_seats)}, seats {sorted(names)}")
    if sum(put.values()) != checked.total_pot:
        raise GrammarError(f"put in {sum(put.values())} less the uncalled bet, Total pot {checked.total_pot}")
    if sum(checked.collected.values()) != checked.total_pot - checked.rake:
        raise GrammarError(f"collected {sum(checked.collected.values())} of the pot {checked.total_pot}")
    if {n: v for n, v in summary_won.items() if v} != checked.collected:
        raise GrammarError(f"summary totals {summary_won} are not the collected lines {checked.collected}")
    checked.lines = len(lines)
    return checked


def split_file(text: str) -> list[str]:
    """The hands of a file, split as trackers split them (PS:372, HHC:329-343)."""
    chunks = [c for c in re.split(r"(?:\s?\n){2,}", text) if c.strip()]
    if chunks and len(chunks[-1]) <= 50:
        chunks.pop()
    return chunks
