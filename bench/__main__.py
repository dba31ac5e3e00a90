"""Run every benchmark module (``python -m bench``), the ones named on the command line, or one
with its own options (``python -m bench engine --hands 3000``)."""

from __future__ import annotations

import importlib
import inspect
import sys

# Each module defines ``main()`` that measures and prints its table; some take their options.
MODULES: tuple[str, ...] = ("engine", "load", "evaluators", "equity", "bots")


def main(argv: list[str]) -> int:
    first_option = next((i for i, a in enumerate(argv) if a.startswith("-")), len(argv))
    names, options = argv[:first_option], argv[first_option:]
    if options and len(names) != 1:
        print(
            "python -m bench: options go with one benchmark: python -m bench NAME [OPTIONS]", file=sys.stderr
        )
        return 2
    for name in names or MODULES:
        module = importlib.import_module(f"bench.{name}")
        print(f"\n## {name}\n", flush=True)
        if options:
            if not inspect.signature(module.main).parameters:
                print(f"python -m bench: {name} takes no options", file=sys.stderr)
                return 2
            module.main(options)
        else:
            module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
