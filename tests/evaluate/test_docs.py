"""The examples in docs/evaluators.md and the evaluator docstrings run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import studpoker.evaluate.batch
import studpoker.evaluate.core

DOC = Path(__file__).resolve().parents[2] / "docs" / "evaluators.md"


def test_docs_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


@pytest.mark.parametrize("module", [studpoker.evaluate.core, studpoker.evaluate.batch])
def test_docstrings(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
