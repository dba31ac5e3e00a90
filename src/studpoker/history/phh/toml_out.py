"""A small TOML writer for the values a PHH file holds (no third-party dependency).

PHH files are flat tables of strings, integers, floats, booleans, local times and arrays of
those; a ``.phhs`` file is a sequence of such tables under ``[1]``, ``[2]``, ... headers.
Reading uses the standard library's :mod:`tomllib`.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    """A TOML key: bare when it can be, quoted otherwise."""
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def value(item: Any, *, multiline: bool = False) -> str:
    """One TOML value; ``multiline`` writes a long array one element per line."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(item)
    if isinstance(item, str):
        # A JSON string is a valid TOML basic string: the same escapes (\" \\ \n \t \uXXXX).
        return json.dumps(item, ensure_ascii=False)
    if isinstance(item, datetime.datetime | datetime.date | datetime.time):
        return item.isoformat()
    if isinstance(item, list | tuple):
        parts = [value(x) for x in item]
        if multiline and parts:
            return "[\n" + "".join(f"    {p},\n" for p in parts) + "]"
        return "[" + ", ".join(parts) + "]"
    if isinstance(item, Mapping):
        return "{" + ", ".join(f"{key(str(k))} = {value(v)}" for k, v in item.items()) + "}"
    raise TypeError(f"cannot write {item!r} ({type(item).__name__}) as a TOML value")


def table(fields: Mapping[str, Any], *, multiline: frozenset[str] = frozenset()) -> str:
    """Key/value lines of one table (``None`` values are left out)."""
    lines = [
        f"{key(name)} = {value(item, multiline=name in multiline)}"
        for name, item in fields.items()
        if item is not None
    ]
    return "\n".join(lines) + "\n"
