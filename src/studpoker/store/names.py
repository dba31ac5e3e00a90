"""Account names: what a name may be, the two keys that keep names apart, and the bots' namespace.

A name is checked whole, after Unicode NFKC normalisation (so a full-width ``ａｌｉｃｅ`` is
``alice``): 3 to 20 characters, each a letter, a digit, ``_`` or ``-`` (combining marks may
follow a letter), none of the invisible fillers that count as letters. It is stored as that
NFKC form and kept apart from every other name by two keys, each under a unique index:

- ``key``: NFKC + case folding. Logins look names up by it, so ``Alice`` logs in as ``alice``.
- ``skeleton``: a look-alike key after Unicode TR39 (the confusable skeleton, case folded and
  taken again until it no longer changes): Cyrillic ``а`` and Latin ``a``, ``0`` and ``O``,
  ``1``/``I`` and ``l``, ``rn`` and ``m`` give the same skeleton, so a name that looks like an
  existing one is refused.

The confusables data is the Unicode consortium's ``confusables.txt`` as shipped by the
``confusable-homoglyphs`` package, which keeps it symmetric (each pair both ways); the one-way
prototype map of TR39 is rebuilt from it (see :func:`_prototypes`). A name that mixes scripts
and holds letters that look like another script's (``pаypal`` with a Cyrillic ``а``) is
refused outright, as that package's ``is_dangerous`` does (Japanese, Chinese with zhuyin and
Korean count as one script each, as in TR39's "highly restrictive" level).

Names whose skeleton starts with ``bot_`` or ``bot-`` are the room's bots' (created by the
server only, :meth:`Store.create_bot_account`): people cannot register them, look-alikes
(``b0t_``, Cyrillic ``о``) included.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache

from .errors import InvalidInputError

MIN_LENGTH = 3
MAX_LENGTH = 20
# Column sizes: ``accounts.name_key`` is String(20), ``accounts.name_skeleton`` String(80).
MAX_KEY_LENGTH = 20
MAX_SKELETON_LENGTH = 80
BOT_PREFIXES = ("bot_", "bot-")
ALLOWED = f"use {MIN_LENGTH} to {MAX_LENGTH} letters, digits, '_' or '-'"

# Letters and marks that show nothing (Default_Ignorable_Code_Point in Unicode): a name could
# differ from another by them alone. Their categories (Lo, Mn) would otherwise let them in.
_INVISIBLE = frozenset(
    [chr(c) for c in (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0)]
    + [chr(c) for c in range(0x180B, 0x1810)]
    + [chr(c) for c in range(0xFE00, 0xFE10)]
    + [chr(c) for c in range(0xE0100, 0xE01F0)]
)


@dataclass(frozen=True, slots=True)
class AccountName:
    """A checked name: ``display`` (stored, shown), ``key`` and ``skeleton`` (both unique)."""

    display: str
    key: str
    skeleton: str

    @property
    def is_bot_name(self) -> bool:
        return is_reserved_skeleton(self.skeleton)


def fold(text: str) -> str:
    """NFKC + case folding (NFKC again, as casefold can leave a form NFKC would change)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def lookup_key(name: str) -> str:
    """The key a login looks a name up by; no check (an unknown name simply matches nothing)."""
    return fold(name)


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the string that stands for its class (TR39's prototype).

    ``confusable-homoglyphs`` lists every line ``source -> prototype`` of confusables.txt both
    ways. The classes are stars: a prototype (one character or a sequence) with its sources,
    each source listing that prototype alone. So a character listing exactly one other maps to
    it when the other is a sequence or lists more than one; two characters that list only each
    other form a class of two and both map to the smaller. When this was written it was
    checked against confusables.txt itself (Unicode 13): every source and its prototype got the
    same representative; tests/store/test_names.py checks the classes names rely on.
    """
    from confusable_homoglyphs import confusables  # ~0.1 s: loaded on the first name checked

    def clean(text: str) -> str:  # the data wraps right-to-left characters in U+200E marks
        return text.replace("\u200e", "")

    data: dict[str, list[dict[str, str]]] = confusables.confusables_data
    graph = {clean(char): {clean(entry["c"]) for entry in entries} for char, entries in data.items()}
    table: dict[str, str] = {}
    for char, others in graph.items():
        if len(char) != 1 or len(others) != 1:
            continue
        (other,) = others
        if len(other) > 1 or len(graph.get(other, ())) > 1 or other < char:
            table[char] = other
    return table


def _skeleton_once(text: str) -> str:
    table = _prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def skeleton(text: str) -> str:
    """The look-alike key: TR39 skeleton, case folded, repeated until it no longer changes
    (``"Ian"`` -> ``"lan"``, ``"Аlice"`` with a Cyrillic ``А`` -> ``"alice"``, ``"b0b"`` -> ``"bob"``)."""
    current = text
    for _ in range(5):
        following = _skeleton_once(_skeleton_once(current).casefold())
        if following == current:
            break
        current = following
    return current


@cache
def _reserved_prefixes() -> tuple[str, ...]:
    return tuple(skeleton(prefix) for prefix in BOT_PREFIXES)


def is_reserved_skeleton(name_skeleton: str) -> bool:
    return name_skeleton.startswith(_reserved_prefixes())


def is_reserved(name: str) -> bool:
    """Whether ``name`` (or a look-alike of it) is in the bots' namespace."""
    return is_reserved_skeleton(skeleton(unicodedata.normalize("NFKC", name)))


def _allowed(char: str, first: bool) -> bool:
    if char in "_-":
        return True
    if char in _INVISIBLE:
        return False
    category = unicodedata.category(char)
    return category[0] == "L" or category == "Nd" or (category[0] == "M" and not first)


# Scripts written together (TR39's "highly restrictive" level): these mixes are one writing.
_WRITINGS = (
    frozenset({"HAN", "HIRAGANA", "KATAKANA"}),  # Japanese
    frozenset({"HAN", "BOPOMOFO"}),  # Chinese with zhuyin
    frozenset({"HAN", "HANGUL"}),  # Korean
)


def _mixes_look_alike_scripts(name: str) -> bool:
    """Whether ``name`` mixes scripts (Common and Inherited characters aside, the writings of
    :data:`_WRITINGS` counting as one) and holds a character that looks like one of another
    script's: ``confusable_homoglyphs.is_dangerous``, with those writings allowed."""
    from confusable_homoglyphs import categories, confusables

    scripts = categories.unique_aliases(name) - {"COMMON", "INHERITED"}
    if len(scripts) <= 1 or any(scripts <= writing for writing in _WRITINGS):
        return False
    return bool(confusables.is_confusable(name))


def check_name(name: object) -> AccountName:
    """The checked name, or :class:`InvalidInputError` saying what is wrong with it."""
    if not isinstance(name, str):
        raise InvalidInputError(f"a name is text: {ALLOWED}")
    display = unicodedata.normalize("NFKC", name)
    if not MIN_LENGTH <= len(display) <= MAX_LENGTH or not all(
        _allowed(char, index == 0) for index, char in enumerate(display)
    ):
        raise InvalidInputError(f"name {name!r} is not allowed: {ALLOWED}")
    if _mixes_look_alike_scripts(display):
        raise InvalidInputError(
            f"name {name!r} is not allowed: it mixes scripts with letters that look like another script's"
        )
    key = fold(display)
    look_alike = skeleton(display)
    if len(key) > MAX_KEY_LENGTH or len(look_alike) > MAX_SKELETON_LENGTH:
        raise InvalidInputError(f"name {name!r} is not allowed: it is too long once normalised")
    return AccountName(display, key, look_alike)
