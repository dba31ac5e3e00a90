"""Load testing the room: many WebSocket bot players, latency and throughput, the audit at the end.

``studpoker loadtest`` drives a running server; :mod:`studpoker.loadtest.server` starts one
with enough tables for the run (see docs/load.md).
"""

from .client import LoadRun, run_load
from .config import LoadConfig
from .player import LoadPlayer, choose
from .report import LoadReport, Metrics, percentile

__all__ = [
    "LoadConfig",
    "LoadPlayer",
    "LoadReport",
    "LoadRun",
    "Metrics",
    "choose",
    "percentile",
    "run_load",
]
