"""The cyclic garbage collector of a room process (issue 17).

With Python's default thresholds a loaded room ran a full collection every second or two, each
stopping the event loop for 150-550 ms at 2,000 players (every hand's objects live long enough to
reach the oldest generation, then die), and that was the whole of the 250 x 8 load test's p99.
A room process collects the young generation less often (``gc_threshold0`` allocations) and
moves what exists once the room has started (modules, tables, the server itself) to the
permanent generation, which full collections no longer scan. Reference counting still frees
nearly everything at once; only cyclic garbage waits for a collection.

Only the process entry points (``studpoker serve``, the load-test server, the load client) apply
it: tests that build rooms in their own process keep Python's defaults.
"""

from __future__ import annotations

import gc

from .settings import Settings


def apply_thresholds(settings: Settings) -> None:
    """Set the collector's thresholds from ``settings`` (0 for gc_threshold0: Python's own)."""
    if settings.gc_threshold0 > 0:
        gc.set_threshold(settings.gc_threshold0, settings.gc_threshold1, settings.gc_threshold2)


def freeze_after_start(settings: Settings) -> None:
    """Once the room has started: what exists now is never scanned again by a full collection."""
    if settings.gc_freeze_after_start:
        gc.collect()
        gc.freeze()


def tune_load_client(enabled: bool, *, after_setup: bool) -> None:
    """The load client's collector, tuned as a room's (its own pauses would count in the
    latencies it measures): the thresholds before its setup, the freeze after it."""
    if not enabled:
        return
    settings = Settings(gc_freeze_after_start=True)
    if after_setup:
        freeze_after_start(settings)
    else:
        apply_thresholds(settings)
