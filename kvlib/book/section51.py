"""One trial of 001 Section 5.1 (Jaillet et al.): MC-SF against the hindsight optimum.

Two kinds of trial, both on an instance drawn by :func:`kvlib.core.instances.section51` from
``numpy.random.default_rng([seed, model, k])`` (``model`` is the arrival model, 1 or 2, and ``k``
the trial index), so trial ``k`` of either function sees the same instance:

* :func:`certified_trial` simulates MC-SF, solves the time-indexed IP with
  :func:`kvlib.optimum.exact.solve` and returns the certified interval
  ``MC-SF / upper <= MC-SF / OPT <= MC-SF / lower``;
* :func:`best_policy_trial` needs no solver: the smallest TEL among a few look-ahead policies is
  an upper bound on OPT, so ``MC-SF / best`` is a certified *lower* end of ``MC-SF / OPT``.

Every schedule is re-checked by the independent checker; a rejected schedule raises
``AssertionError`` naming the policy and trial.
"""

from __future__ import annotations

import time

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51
from kvlib.core.model import Schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.exact import solve
from kvlib.policies import make_policy

__all__ = ["certified_trial", "best_policy_trial", "SCAN_POLICIES"]

#: The look-ahead policies whose best TEL bounds OPT from above in :func:`best_policy_trial`.
SCAN_POLICIES = ("mc-sf", "mc-sf2", "mc-benchmark", "mc-benchmark-scan")  # fcfs = mc-benchmark (001 Alg. 2)


def _instance(model: int, k: int, seed: int, n_range=None, horizon_range=None):
    if model not in (1, 2):
        raise ValueError(f"arrival model must be 1 or 2, got {model!r}")
    kw = {}
    if n_range is not None:
        kw["n_range"] = tuple(n_range)
    if horizon_range is not None:
        kw["horizon_range"] = tuple(horizon_range)
    return section51(np.random.default_rng([seed, model, k]), model, **kw)


def certified_trial(model: int, k: int, *, seed: int, n_range: tuple[int, int], horizon_range: tuple[int, int],
                    time_limit: float, threads: int = 2) -> dict:
    """MC-SF's TEL and the certified interval of OPT on trial ``k`` of arrival model ``model``.

    Returns one flat row: ``model`` (``"AM1"``/``"AM2"``), ``trial``, ``n``, ``M``, ``mcsf``,
    ``heuristic`` (best heuristic TEL before the solvers), ``lower``, ``upper`` (OPT lies in
    ``[lower, upper]``), ``volume_lb``, ``separation_lb``, ``optimal`` (proved), ``seconds`` (the
    solve), ``trial_seconds``, ``source`` (of the best schedule), ``status``, ``ratio_lo =
    mcsf/upper``, ``ratio_hi = mcsf/lower`` and ``match`` (MC-SF = OPT proved, i.e. ``mcsf ==
    lower``).
    """
    t0 = time.perf_counter()
    inst = _instance(model, k, seed, n_range, horizon_range)
    mc = simulate(inst, make_policy("mc-sf"), seed=0)
    if not check_schedule(inst, mc.schedule).valid:
        raise AssertionError(f"MC-SF schedule rejected by the checker on AM{model} trial {k}")
    r = solve(inst, time_limit=time_limit, threads=threads)
    if check_schedule(inst, Schedule(r.starts)).tel != r.upper:
        raise AssertionError(f"solver schedule on AM{model} trial {k} does not have the reported TEL {r.upper}")
    return dict(model=f"AM{model}", trial=k, n=inst.n, M=inst.memory, mcsf=mc.tel, heuristic=r.incumbent,
                lower=r.lower, upper=r.upper, volume_lb=r.extra["volume_lb"],
                separation_lb=r.extra["separation_lb"], optimal=r.optimal,
                seconds=r.seconds, trial_seconds=time.perf_counter() - t0, source=r.incumbent_source,
                status=r.status, ratio_lo=mc.tel / r.upper, ratio_hi=mc.tel / r.lower, match=bool(mc.tel == r.lower))


def best_policy_trial(model: int, k: int, *, seed: int, policies=SCAN_POLICIES) -> dict:
    """Solver-free certified lower end of MC-SF / OPT on trial ``k`` (paper-scale ranges of 001).

    ``policies`` must include ``"mc-sf"``.  Returns ``model``, ``trial``, ``n``, ``M``, ``mc-sf``
    (its TEL), ``best`` (smallest TEL; ties favour MC-SF, then the earlier entry of ``policies``), ``best policy`` and
    ``ratio lower end = mc-sf / best``.
    """
    if "mc-sf" not in policies:
        raise ValueError(f"policies must include 'mc-sf', got {policies!r}")
    inst = _instance(model, k, seed)
    tels = {}
    for name in policies:
        r = simulate(inst, make_policy(name), seed=0)
        if not check_schedule(inst, r.schedule).valid:
            raise AssertionError(f"{name} schedule rejected by the checker on AM{model} trial {k}")
        tels[name] = r.tel
    best_name = min(tels, key=lambda k_: (tels[k_], k_ != "mc-sf"))
    return {"model": f"AM{model}", "trial": k, "n": inst.n, "M": inst.memory,
            "mc-sf": tels["mc-sf"], "best": tels[best_name], "best policy": best_name,
            "ratio lower end": tels["mc-sf"] / tels[best_name]}
