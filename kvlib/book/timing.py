"""Wall-clock timing for the chapters' running-time tables (machine dependent, never asserted in tests)."""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np


def best_of(fn: Callable[[], Any], reps: int = 3) -> tuple[float, Any]:
    """``(fastest wall time in seconds over reps calls, the last call's result)``."""
    if reps < 1:
        raise ValueError(f"best_of: reps must be >= 1, got {reps}")
    best, out = np.inf, None
    for _ in range(reps):
        tic = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - tic)
    return float(best), out
