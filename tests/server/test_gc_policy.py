"""A room process tunes its garbage collector (server/gc_policy.py); tests keep Python's defaults."""

from __future__ import annotations

import gc

from studpoker.server.gc_policy import apply_thresholds, freeze_after_start
from studpoker.server.settings import Settings


def test_thresholds_come_from_the_settings_and_zero_keeps_pythons() -> None:
    before = gc.get_threshold()
    try:
        apply_thresholds(Settings(gc_threshold0=12_345, gc_threshold1=7, gc_threshold2=9))
        assert gc.get_threshold() == (12_345, 7, 9)
        gc.set_threshold(*before)
        apply_thresholds(Settings(gc_threshold0=0))
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)


def test_the_freeze_happens_only_when_asked() -> None:
    assert Settings().gc_freeze_after_start is False
    gc.unfreeze()
    try:
        freeze_after_start(Settings())
        assert gc.get_freeze_count() == 0
        freeze_after_start(Settings(gc_freeze_after_start=True))
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
