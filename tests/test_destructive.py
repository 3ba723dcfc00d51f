"""Destructive lower bounds (kvlib.optimum.destructive): refuted targets never exceed a known optimum,
a target at or below the optimum is never refuted, a target above it never cuts off every optimum,
and the solve wrapper returns a checked, certified interval."""

from __future__ import annotations

import numpy as np
import pytest

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51, uniform
from kvlib.core.model import Instance, Schedule
from kvlib.optimum.bounds import latest_starts
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.destructive import destructive_bound, solve_destructive, target_domains
from kvlib.optimum.exact import heuristic_incumbent
from kvlib.optimum.timelp import time_indexed_lp


def small(k: int):
    rng = np.random.default_rng([4343, k])
    n = 5 + k % 3  # 5..7
    M = int(rng.integers(8, 12))
    return uniform(rng, n, M, prompt_max=3, output_max=M - 3, arrival_max=2 * (k % 2))


SMALL = [small(k) for k in range(8)]


def _setup(inst):
    starts, ub, _ = heuristic_incumbent(inst)
    latest = latest_starts(inst, ub)
    lp = time_indexed_lp(inst, latest, time_limit=20)
    return starts, ub, latest, lp


@pytest.mark.parametrize("k", range(len(SMALL)))
def test_every_optimal_schedule_keeps_its_starts_for_targets_above_the_optimum(k):
    """For T > OPT the domains hold an optimal schedule (up to twins): the refutation is sound."""
    inst = SMALL[k]
    opt, best, _ = brute_force_opt(inst)
    starts, ub, latest, lp = _setup(inst)
    assert lp.bound <= opt
    for T in (opt + 1, opt + 2, ub + 1):
        doms = target_domains(inst, lp, latest, T)
        sets = [set(int(v) for v in d) for d in doms]
        if all(int(best[i]) in sets[i] for i in range(inst.n)):
            continue
        # else some permutation of identical requests of `best` must fit (the event model orders twins)
        key = [(int(inst.arrival[i]), int(inst.prompt[i]), int(inst.output[i])) for i in range(inst.n)]
        perm = np.array(best)
        for kk in set(key):
            idx = [i for i in range(inst.n) if key[i] == kk]
            perm[idx] = sorted(int(best[i]) for i in idx)
        assert all(int(perm[i]) in sets[i] for i in range(inst.n)), (k, T)


@pytest.mark.parametrize("k", range(len(SMALL)))
def test_destructive_bound_stays_below_the_brute_force_optimum(k):
    inst = SMALL[k]
    opt = brute_force_opt(inst)[0]
    starts, ub, latest, lp = _setup(inst)
    d = destructive_bound(inst, lp, latest, lp.bound, ub, starts, time_limit=30, workers=1, first_step=0.05)
    assert d.lower <= opt <= d.upper, (k, d)
    rep = check_schedule(inst, Schedule(tuple(int(p) for p in d.starts)))
    assert rep.valid and rep.tel == d.upper
    refuted = [a["target"] for a in d.attempts if a["status"].startswith("INFEASIBLE")]
    assert all(t <= opt for t in refuted), (k, d.attempts)
    # with this much time the gallop reaches the optimum on these tiny instances
    assert d.lower == d.upper == opt, (k, d.attempts)


def test_a_target_below_the_optimum_is_refuted_and_one_above_is_not():
    from kvlib.optimum.cpsat import event_solve_subprocess

    inst = SMALL[3]
    opt = brute_force_opt(inst)[0]
    starts, ub, latest, lp = _setup(inst)
    below = event_solve_subprocess(inst, target_domains(inst, lp, latest, opt), upper=opt, time_limit=20,
                                   workers=1, cumulative=2, lagrangian=lp.lagrangian())
    assert below.status == "INFEASIBLE"
    above = event_solve_subprocess(inst, target_domains(inst, lp, latest, opt + 1), upper=opt + 1, time_limit=20,
                                   workers=1, cumulative=2, lagrangian=lp.lagrangian())
    assert above.status in ("OPTIMAL", "FEASIBLE") and above.tel == opt


def test_solve_destructive_returns_a_checked_interval_around_the_optimum():
    inst = SMALL[5]
    opt = brute_force_opt(inst)[0]
    res = solve_destructive(inst, time_limit=20, threads=1)
    assert res.formulation == "pipeline+destructive"
    assert res.lower <= opt <= res.upper and res.optimal and res.upper == opt
    assert check_schedule(inst, Schedule(res.starts)).tel == res.upper
    assert {"pipeline_lower", "pipeline_upper", "destructive_attempts", "notes"} <= set(res.extra)


def test_solve_destructive_raises_the_pipelines_lower_bound_on_a_section51_instance():
    """An AM1 instance (n = 15) the minute's pipeline leaves open: the stage never lowers the bound and
    keeps a checked schedule."""
    rng = np.random.default_rng([20251, 1, 15, 2])
    inst = section51(rng, 1, n_range=(15, 15))
    res = solve_destructive(inst, time_limit=8, threads=2)  # 40 s cost 38 s of the suite; the bounds hold at any limit
    assert res.lower >= res.extra["pipeline_lower"] and res.upper <= res.extra["pipeline_upper"]
    assert res.lower <= 949 <= res.upper  # 949: this instance's optimum, proved in 900 s (exact_long_results)
    assert check_schedule(inst, Schedule(res.starts)).tel == res.upper


def test_bad_arguments_are_named():
    inst = SMALL[0]
    starts, ub, latest, lp = _setup(inst)
    with pytest.raises(ValueError, match="first_step"):
        destructive_bound(inst, lp, latest, lp.bound, ub, starts, time_limit=5, first_step=2.0)
    with pytest.raises(ValueError, match="exceeds upper"):
        destructive_bound(inst, lp, latest, ub + 1, ub, starts, time_limit=5)
    with pytest.raises(ValueError, match="starts"):
        destructive_bound(inst, lp, latest, lp.bound, ub, starts[:-1], time_limit=5)
    with pytest.raises(ValueError, match="time_limit"):
        destructive_bound(inst, lp, latest, lp.bound, ub, starts, time_limit=-1)
    with pytest.raises(ValueError, match="target"):
        target_domains(inst, lp, latest, 0)
    with pytest.raises(ValueError, match="pipeline_share"):
        solve_destructive(inst, time_limit=5, pipeline_share=0)


ROOMY = Instance.from_arrays(np.array([0, 0, 3]), np.array([1, 2, 1]), np.array([2, 1, 2]), 10)  # all peaks fit


@pytest.mark.parametrize("k,step", [(0, "destructive bound"), (5, "destructive bound"),
                                    ("roomy", "time-indexed LP of the destructive stage")])
def test_the_stage_closes_a_gap_the_pipeline_left_and_says_so(k, step, monkeypatch):
    """A pipeline cut short (lower bound 0): the stage's LP and destructive bound close the gap, and the
    status and ``proved_by`` name the step that did."""
    import dataclasses

    import kvlib.optimum.pipeline as kp

    real = kp.solve_pipeline

    def cut_short(*a, **kw):
        r = real(*a, **kw)
        return dataclasses.replace(r, lower=0, optimal=False, status="Time limit reached",
                                   extra={**r.extra, "proved_by": ""})

    monkeypatch.setattr(kp, "solve_pipeline", cut_short)
    inst = ROOMY if k == "roomy" else SMALL[k]
    opt = brute_force_opt(inst)[0]
    res = solve_destructive(inst, time_limit=30, threads=1)
    assert res.extra["pipeline_lower"] == 0
    assert res.optimal and res.lower == res.upper == opt
    assert res.extra["proved_by"] == step
    assert res.status.startswith(f"Optimal ({step})")
