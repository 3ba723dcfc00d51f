"""Schedules in which a running request may be paused and resumed, keeping its KV cache.

001's model is non-preemptive: a request started at ``p`` decodes in the rounds ``p+1, ..., p+o``
without a break (001 Section 2; :mod:`kvlib.core.model`).  The earlier version 004 states no such
rule (a batch "may include any unprocessed prompt or output token", 004 Section 2), and the proof of
004 Theorem 6.2 lets an algorithm *interrupt* a running request to serve others.  This module makes
that model explicit, as a reading of 004: a request's ``o`` decode rounds are any ``o`` distinct
times ``t_1 < ... < t_o`` with ``t_1 - 1 >= a`` (its first round starts no earlier than its
arrival); from ``t_1`` to ``t_o`` it holds ``s + (number of its rounds up to t)`` tokens, *including
while paused* (the cache of the tokens generated so far stays in memory; the alternative, evicting
it and recomputing later, is 003's cancellation model, not this one).  Memory must be at most ``M``
at every time; the completion time is ``t_o``.  With consecutive rounds this is exactly the model of
:mod:`kvlib.core.model` (checked by a test against :func:`kvlib.core.checker.check_schedule`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from kvlib.core.errors import ScheduleError
from kvlib.core.model import Instance

__all__ = ["PausableReport", "check_pausable", "runs_of_starts"]


@dataclass
class PausableReport:
    valid: bool
    tel: int
    completion: list[int]
    peak: int
    pauses: int  # total number of gaps between consecutive decode rounds, over all requests
    violations: list[str] = field(default_factory=list)


def runs_of_starts(instance: Instance, starts: Sequence[int]) -> list[list[int]]:
    """The decode rounds ``p+1..p+o`` of a non-preemptive schedule given by its start times."""
    return [list(range(int(p) + 1, int(p) + int(o) + 1)) for p, o in zip(starts, instance.output)]


def check_pausable(instance: Instance, runs: Sequence[Sequence[int]], *, max_violations: int = 10) -> PausableReport:
    """Check a pausable schedule (``runs[i]`` = the decode rounds of request ``i``) and return its TEL.

    Raises :class:`~kvlib.core.errors.ScheduleError` naming the request when ``runs`` is malformed
    (wrong count, a repeated or non-integer round); memory and arrival violations are reported in
    the result (``valid = False``), the first ``max_violations`` of them named.
    """
    n = instance.n
    if len(runs) != n:
        raise ScheduleError(f"pausable schedule has {len(runs)} rows for {n} requests")
    violations: list[str] = []
    starts, ends, pauses = [], [], 0
    for i, r in enumerate(runs):
        try:
            rr = [int(x) for x in r]
        except (TypeError, ValueError):
            raise ScheduleError(f"request {i}: rounds must be integers, got {r!r}") from None
        o = int(instance.output[i])
        if len(rr) != o or len(set(rr)) != o:
            raise ScheduleError(f"request {i}: needs {o} distinct decode rounds, got {len(set(rr))}")
        rr.sort()
        if rr[0] - 1 < int(instance.arrival[i]):
            violations.append(f"request {i}: first round {rr[0]} starts before its arrival {int(instance.arrival[i])}")
        pauses += sum(1 for a, b in zip(rr, rr[1:]) if b != a + 1)
        starts.append(rr[0])
        ends.append(rr[-1])
    t0, t1 = min(starts), max(ends)
    held = np.zeros(t1 - t0 + 2, dtype=np.int64)
    for i, r in enumerate(runs):
        rr = np.sort(np.asarray(r, dtype=np.int64)) - t0
        s = int(instance.prompt[i])
        # between consecutive rounds the holding is constant: s + (rounds done so far)
        counts = np.arange(1, len(rr) + 1, dtype=np.int64)
        seg_start, seg_end = rr, np.append(rr[1:], rr[-1] + 1)
        for a, b, c in zip(seg_start, seg_end, counts):
            held[a:b] += s + c
    peak = int(held.max()) if held.size else 0
    over = np.flatnonzero(held > instance.memory)
    for k in over[:max_violations]:
        violations.append(f"time {int(k) + t0}: memory {int(held[k])} > M = {instance.memory}")
    if len(over) > max_violations:
        violations.append(f"... and {len(over) - max_violations} more times over M")
    tel = int(sum(e - int(a) for e, a in zip(ends, instance.arrival)))
    return PausableReport(not violations, tel, ends, peak, pauses, violations)
