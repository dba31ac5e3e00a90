"""The ``studpoker`` command: each subcommand lives in its own module of this package.

A subcommand module defines ``register(subparsers)`` that adds its parser and sets
``func`` (a callable taking the parsed arguments and returning the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that provide subcommands, in the order ``--help`` lists them.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "serve",
    "audit",
    "admin",
    "verify",
    "loadtest",
    "simulate",
    "tournament",
    "equity",
    "play",
    "replay",
    "import_hands",
    "export",
    "cluster",
    "gateway",
    "worker",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="studpoker",
        description="studpoker: a Seven Card Stud room and its tools.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        module = importlib.import_module(f"studpoker.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    status: int = func(args)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
