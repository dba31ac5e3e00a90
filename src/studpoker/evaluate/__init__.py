"""Hand evaluators: high, ace-to-five low (razz), eight-or-better low and Omaha hi/lo.

Scalar functions return :class:`HighHand` / :class:`LowHand` values that compare with
``<`` and ``==``; the ``batch_*`` functions take numpy arrays of card codes and return the
same values as ints.
"""

from studpoker.evaluate.batch import batch_high, batch_low8, batch_omaha8, batch_razz, jit_available
from studpoker.evaluate.core import (
    Category,
    HighHand,
    LowHand,
    high,
    high_value,
    low8,
    low8_value,
    omaha8,
    razz,
    razz_value,
)

__all__ = [
    "Category",
    "HighHand",
    "LowHand",
    "batch_high",
    "batch_low8",
    "batch_omaha8",
    "batch_razz",
    "high",
    "high_value",
    "jit_available",
    "low8",
    "low8_value",
    "omaha8",
    "razz",
    "razz_value",
]
