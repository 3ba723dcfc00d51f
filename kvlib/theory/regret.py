"""004 Theorem 5.3 (constant regret of MC-SF under stochastic arrivals), measured against a lower bound.

:func:`poisson_instance` draws Poisson arrivals for ``T`` rounds (at least one request at ``t = 0``)
with ``s ~ U{1..s_max}``, ``o ~ U{1..o_max}``; :func:`volume_capacity` is the arrival rate
``M / E[vol]`` (requests per round) at which the expected memory volume arriving per round equals
``M``; :func:`regret_gap` is MC-SF's average latency minus the average of the certified volume
bound :func:`kvlib.optimum.bounds.volume_lower_bound` (an over-estimate of the regret, since the
bound is below the hindsight optimum).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance
from kvlib.core.simulate import simulate
from kvlib.optimum.bounds import volume_lower_bound
from kvlib.policies import make_policy


def volume_capacity(M: int, s_max: int, o_max: int) -> float:
    """``M / E[vol]`` with ``vol = s o + o (o + 1) / 2`` and ``s, o`` uniform on ``1..s_max``, ``1..o_max``."""
    s, o = np.meshgrid(np.arange(1, s_max + 1), np.arange(1, o_max + 1))
    return float(M / np.mean(s * o + o * (o + 1) / 2))


def poisson_instance(rng: np.random.Generator, rate: float, T: int, M: int, s_max: int, o_max: int) -> Instance:
    """Poisson(``rate``) arrivals in each of the rounds ``0..T-1`` (at least one at 0), then ``s`` and ``o`` draws."""
    if rate <= 0 or T < 1:
        raise ValueError(f"poisson_instance: need rate > 0 and T >= 1, got rate={rate}, T={T}")
    counts = rng.poisson(rate, size=T)
    counts[0] = max(counts[0], 1)
    a = np.repeat(np.arange(T), counts)
    return Instance.from_arrays(a, rng.integers(1, s_max + 1, size=len(a)), rng.integers(1, o_max + 1, size=len(a)), M)


def regret_gap(loads: Sequence[float], horizons: Sequence[int], seeds: int, *, seed: int = 0, M: int = 60,
               s_max: int = 5, o_max: int = 15) -> list[dict]:
    """One row per (load, T, replicate): ``n``, MC-SF's average latency, the volume bound's average and their gap.

    Replicate ``rep`` of ``(load, T)`` uses ``numpy.random.default_rng([seed, T, rep, int(10 load)])``.
    """
    cap = volume_capacity(M, s_max, o_max)
    rows = []
    for load in loads:
        for T in horizons:
            for rep in range(seeds):
                inst = poisson_instance(np.random.default_rng([seed, int(T), rep, int(load * 10)]), load * cap, int(T),
                                        M, s_max, o_max)
                res = simulate(inst, make_policy("mc-sf"))
                check_schedule(inst, res.schedule).raise_if_invalid()
                lb = volume_lower_bound(inst)
                rows.append({"load": load, "T": T, "n": inst.n, "avg mcsf": res.tel / inst.n, "avg LB": lb / inst.n,
                             "gap": (res.tel - lb) / inst.n})
    return rows
