"""The two readings of 001's memory rule, and the second one reduced to the first.

001 Section 3 (the hindsight integer program) says two things about a request ``i`` started at
round ``k``.  Constraint (3) counts it as *active* at ``k + 1 <= t <= k + o_i``; two sentences later
it "contributes to memory usage at time ``t in [k, k + o_i]``" with ``s_i + t - k`` tokens.  The book
(like 001's integer program and Algorithm 1's eq. (5) as the rest of kvlib implements them) uses the
first reading, **start-exclusive**: the request holds ``s_i + j`` tokens in its ``j``-th round,
``j = 1 .. o_i``.  Under the second reading, **start-inclusive**, it also holds ``s_i`` tokens at its
start round ``k`` (``j = 0``).  Completion is ``k + o_i`` under both, so a schedule's total latency is
the same number under both readings; only feasibility differs, and every start-inclusive schedule is
start-exclusive feasible (its memory at every round is at least as large), so
``OPT(exclusive) <= OPT(inclusive)``.

* :func:`check_schedule_start_inclusive` checks a schedule under the second reading.  It is written
  on its own (an event sweep over exact integers), not through the reduction below, so that it can
  check what the reduction produces.
* :func:`shifted_instance` reduces the second reading to the first: request ``(a, s, o)`` under the
  start-inclusive rule holds, at round ``k + j`` (``j = 0 .. o``), exactly what request
  ``(a, s - 1, o + 1)`` started at the same round holds at round ``k + j + 1`` under the
  start-exclusive rule (``s - 1 + (j + 1) = s + j``).  So the start times feasible for one are the
  start times feasible for the other, every policy and search of kvlib runs unchanged on the shifted
  instance, and a schedule's total latency there is the original's plus ``n`` (every completion is
  one round later).  Algorithm 1 (MC-SF) keeps its order (shortest output first is the same order
  with ``o + 1``) and its eq. (5) check becomes the check under the second reading.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.checker import CheckReport
from kvlib.core.model import Instance, Request, Schedule

__all__ = ["READINGS", "check_schedule_start_inclusive", "shifted_instance", "inclusive_tel"]

#: the two readings of 001 Section 3's memory rule, in the book's words
READINGS = {
    "start-exclusive": "a request started at round k holds s + j tokens in rounds k + 1 .. k + o "
                       "(001 Section 3, constraint (3))",
    "start-inclusive": "a request started at round k holds s + (t - k) tokens at every round t in [k, k + o], "
                       "so s tokens at its start round too (001 Section 3, the sentence after constraint (3))",
}


def check_schedule_start_inclusive(instance: Instance, schedule: Schedule | tuple | list) -> CheckReport:
    """Check ``schedule`` (start times, no cancelled runs) under the start-inclusive reading.

    Verifies one integer start per request with ``start >= a_i`` and, at every integer round ``t``,
    ``sum over i with k_i <= t <= k_i + o_i of (s_i + t - k_i) <= M``; returns the report with total
    latency ``sum (k_i + o_i - a_i)``, makespan and peak memory (under this reading).
    """
    starts = tuple(schedule.starts) if isinstance(schedule, Schedule) else tuple(schedule)
    if isinstance(schedule, Schedule) and schedule.cancelled:
        return CheckReport(False, ["the start-inclusive check takes schedules without cancelled runs"])
    n = instance.n
    if len(starts) != n:
        return CheckReport(False, [f"{len(starts)} start times for {n} requests"])
    bad = []
    events: dict[int, list[int]] = {}
    for i, (k, r) in enumerate(zip(starts, instance.requests)):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            bad.append(f"request {i}: start {k!r} is not an integer")
            continue
        k = int(k)
        if k < r.arrival:
            bad.append(f"request {i}: starts at {k}, before its arrival {r.arrival}")
            continue
        # held at rounds k .. k + o: usage s + t - k = (s - k) + t
        ev = events.setdefault(k, [0, 0])
        ev[0] += r.prompt - k
        ev[1] += 1
        ev = events.setdefault(k + r.output + 1, [0, 0])
        ev[0] -= r.prompt - k
        ev[1] -= 1
    if bad:
        return CheckReport(False, bad)
    times = sorted(events)
    A = K = 0
    peak = 0
    for j, t in enumerate(times[:-1]):
        A += events[t][0]
        K += events[t][1]
        last = times[j + 1] - 1  # usage A + t K grows between events: its maximum is at the last round
        if K:
            use = A + last * K
            peak = max(peak, use)
            if use > instance.memory:
                bad.append(f"memory {use} > M = {instance.memory} at round {last} (start-inclusive reading)")
                break
    tel = sum(int(k) + r.output - r.arrival for k, r in zip(starts, instance.requests))
    makespan = max(int(k) + r.output for k, r in zip(starts, instance.requests))
    return CheckReport(not bad, bad, tel=tel, makespan=makespan, peak_memory=peak)


def shifted_instance(instance: Instance) -> Instance:
    """The start-exclusive instance equivalent to ``instance`` under the start-inclusive reading:
    request ``(a, s, o)`` becomes ``(a, s - 1, o + 1)`` with the same ``M`` (see the module text).

    A prompt of one token becomes zero tokens, which :class:`~kvlib.core.model.Instance` rejects as
    user input (a real request has a prompt); here it is the bookkeeping of the reduction, so the
    instance is assembled field by field, with the constructor's other guarantees kept (read-only
    ``int64`` columns, ``s + o <= M``).
    """
    if not isinstance(instance, Instance):
        raise TypeError(f"shifted_instance takes an Instance, got {type(instance).__name__}")
    reqs = tuple(Request(r.arrival, r.prompt - 1, r.output + 1) for r in instance.requests)
    obj = object.__new__(Instance)
    object.__setattr__(obj, "requests", reqs)
    object.__setattr__(obj, "memory", int(instance.memory))
    for name in ("arrival", "prompt", "output"):
        arr = np.array([getattr(r, name) for r in reqs], dtype=np.int64)
        arr.setflags(write=False)
        object.__setattr__(obj, name, arr)
    return obj


def inclusive_tel(instance: Instance, shifted_tel: int) -> int:
    """Total latency under the original instance of a schedule whose total latency on
    :func:`shifted_instance` is ``shifted_tel`` (one round less per request)."""
    return int(shifted_tel) - int(instance.n)
