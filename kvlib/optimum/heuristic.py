"""Heuristic incumbents for the exact solves: policy schedules followed by a left shift."""

from __future__ import annotations

import time

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy

#: policies tried for the incumbent (non-preemptive ones only).
INCUMBENT_POLICIES = ("mc-sf", "mc-sf2", "mc-benchmark", "fcfs")


def _feasible_start(instance: Instance, usage: np.ndarray, i: int, lo: int, hi: int) -> int | None:
    """Earliest ``p`` in ``[lo, hi]`` at which request ``i`` fits on top of ``usage``."""
    s, o, M = int(instance.prompt[i]), int(instance.output[i]), instance.memory
    prof = s + np.arange(1, o + 1)
    for p in range(lo, hi + 1):
        seg = usage[p + 1 : p + o + 1]
        if np.all(seg + prof[: len(seg)] <= M):
            return p
    return None


def left_shift(instance: Instance, starts: np.ndarray, rounds: int = 20) -> np.ndarray:
    """Local search: repeatedly move each request to its earliest feasible start, others fixed.

    Every move keeps the schedule feasible and never increases TEL.
    """
    starts = np.array(starts, dtype=np.int64)
    s, o, a = instance.prompt, instance.output, instance.arrival
    H = int((starts + o).max()) + 2
    usage = np.zeros(H + 1, dtype=np.int64)
    for i, p in enumerate(starts):
        usage[p + 1 : p + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
    for _ in range(rounds):
        moved = False
        for i in np.argsort(starts, kind="stable"):
            p = int(starts[i])
            if p == a[i]:
                continue
            usage[p + 1 : p + o[i] + 1] -= s[i] + np.arange(1, o[i] + 1)
            q = _feasible_start(instance, usage, int(i), int(a[i]), p - 1)
            if q is None:
                q = p
            else:
                moved = True
            usage[q + 1 : q + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
            starts[i] = q
        if not moved:
            break
    return starts


#: :func:`left_shift` costs about (horizon) x (longest output) array operations: above this it is skipped
LEFT_SHIFT_MAX_WORK = 200_000_000


def left_shift_work(instance: Instance, starts) -> int:
    """The size of :func:`left_shift`'s work on ``starts``: (last completion) x (longest output)."""
    return int((np.asarray(starts, dtype=np.int64) + instance.output).max()) * int(instance.output.max())


def heuristic_incumbent_timed(instance: Instance, budget: float, policies=INCUMBENT_POLICIES,
                              notes: list | None = None) -> tuple[np.ndarray, int, str]:
    """:func:`heuristic_incumbent` that stops trying further policies (and the left shift)
    once ``budget`` seconds are spent; the first policy always runs.  Skips go to ``notes``, as does a
    left shift skipped because its arrays would span a long horizon (``LEFT_SHIFT_MAX_WORK``)."""
    tic = time.perf_counter()
    best = None
    for k, name in enumerate(policies):
        if k and time.perf_counter() - tic > budget:
            if notes is not None:
                notes.append(f"incumbent: policies {', '.join(policies[k:])} skipped (time)")
            break
        res = simulate(instance, make_policy(name), seed=0)
        cands = [(name, res.schedule.start_array())]
        if left_shift_work(instance, cands[0][1]) > LEFT_SHIFT_MAX_WORK:
            if notes is not None and k == 0:
                notes.append(f"incumbent: left shift skipped (horizon {int(res.makespan):,} rounds x longest output "
                             f"{int(instance.output.max()):,} > {LEFT_SHIFT_MAX_WORK:,})")
        elif time.perf_counter() - tic < 0.5 * budget:
            cands.append((name + "+shift", left_shift(instance, res.schedule.start_array())))
        elif notes is not None:
            notes.append(f"incumbent: left shift of {name} skipped (time)")
        for label, st in cands:
            rep = check_schedule(instance, Schedule(tuple(int(x) for x in st)))
            if rep.valid and (best is None or rep.tel < best[1]):
                best = (np.asarray(st, dtype=np.int64), int(rep.tel), label)
    if best is None:  # pragma: no cover - the policies always produce feasible schedules
        raise RuntimeError("no policy produced a feasible schedule")
    return best


def heuristic_incumbent(instance: Instance, policies=INCUMBENT_POLICIES) -> tuple[np.ndarray, int, str]:
    """Best checked schedule among ``policies`` (each followed by :func:`left_shift`)."""
    best = None
    for name in policies:
        res = simulate(instance, make_policy(name), seed=0)
        for label, st in ((name, res.schedule.start_array()),
                          (name + "+shift", left_shift(instance, res.schedule.start_array()))):
            rep = check_schedule(instance, Schedule(tuple(int(x) for x in st)))
            if rep.valid and (best is None or rep.tel < best[1]):
                best = (np.asarray(st, dtype=np.int64), int(rep.tel), label)
    assert best is not None
    return best
