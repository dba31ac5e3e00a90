"""Run every benchmark module (``python -m bench``) or the ones named on the command line."""

from __future__ import annotations

import importlib
import sys

# Each module defines ``main() -> None`` that measures and prints its table.
MODULES: tuple[str, ...] = ("engine", "load", "evaluators", "equity", "bots")


def main(argv: list[str]) -> int:
    for name in argv or MODULES:
        module = importlib.import_module(f"bench.{name}")
        print(f"\n## {name}\n", flush=True)
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
