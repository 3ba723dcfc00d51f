"""Tests of the hindsight-optimal IP (kvlib.optimum.exact) and the solver-free bounds (kvlib.optimum.bounds)."""

from __future__ import annotations

import importlib.util
import itertools
import json

import numpy as np
import pytest

from kvlib.optimum.bounds import latest_starts, left_shift_horizon, separation_lower_bound, volume_lower_bound
from kvlib.core.checker import check_schedule
from kvlib.cli import main as cli_main
from kvlib.optimum.exact import heuristic_incumbent, left_shift, lp_relaxation, solve
from kvlib.core.instances import section51, uniform
from kvlib.core.model import Instance, Schedule
from kvlib.policies import POLICIES, make_policy
from kvlib.core.simulate import SimulationStalled, simulate


def brute_force(inst: Instance) -> int:
    """Minimum TEL by enumerating every start tuple in a generous horizon (independent of kvlib)."""
    a = [int(x) for x in inst.arrival]
    s = [int(x) for x in inst.prompt]
    o = [int(x) for x in inst.output]
    M = inst.memory
    H = max(a) + 2 * sum(o) + 2  # twice the left-shift horizon
    best = None
    for ps in itertools.product(*[range(a[i], H) for i in range(len(a))]):
        tel = sum(p + o[i] - a[i] for i, p in enumerate(ps))
        if best is not None and tel >= best:
            continue
        use = [0] * (H + max(o) + 2)
        ok = True
        for i, p in enumerate(ps):
            for t in range(p + 1, p + o[i] + 1):
                use[t] += s[i] + t - p
                if use[t] > M:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            best = tel
    assert best is not None
    return best


TINY = [
    Instance.at_zero([2, 1, 3], [3, 4, 2], 8),
    Instance.at_zero([1, 1, 2], [5, 3, 3], 9),
    Instance.from_arrays([0, 1, 1], [2, 3, 1], [3, 2, 4], 8),
    Instance.from_arrays([0, 0, 2], [1, 2, 2], [4, 3, 3], 7),
    Instance.at_zero([1, 1, 1], [3, 3, 2], 8),  # two identical requests (symmetry breaking)
]


@pytest.mark.parametrize("k", range(len(TINY)))
def test_ip_equals_brute_force(k):
    inst = TINY[k]
    res = solve(inst, time_limit=30, threads=1)
    assert res.optimal and res.lower == res.upper
    assert res.upper == brute_force(inst)
    rep = check_schedule(inst, Schedule(res.starts))
    assert rep.valid and rep.tel == res.upper


def test_aggregated_formulation_same_optimum():
    inst = TINY[1]
    a = solve(inst, time_limit=30, threads=1, formulation="plain")
    b = solve(inst, time_limit=30, threads=1, formulation="aggregated", symmetry=False)
    assert a.optimal and b.optimal and a.upper == b.upper


def test_ip_below_every_policy_and_lp_below_ip():
    rng = np.random.default_rng(7)
    inst = section51(rng, 1, n_range=(7, 7), memory_range=(20, 20))
    res = solve(inst, time_limit=60, threads=2)
    assert res.optimal
    for name, (factory, _) in POLICIES.items():
        pol = make_policy(name)
        try:
            # interval policies (003) get exact intervals [o, o]; the others ignore them
            sim = simulate(inst, pol, seed=0, lower=inst.output, upper=inst.output)
        except SimulationStalled:  # alpha-greedy can clear forever on some instances
            continue
        rep = check_schedule(inst, sim.schedule, allow_cancellation=pol.preemptive)
        assert rep.valid
        assert res.upper <= rep.tel, name
    lp = lp_relaxation(inst)
    assert volume_lower_bound(inst) <= lp + 1e-6
    assert lp <= res.upper + 1e-6


def test_time_limit_returns_interval():
    rng = np.random.default_rng(3)
    inst = section51(rng, 1, n_range=(25, 25))
    res = solve(inst, time_limit=1.0, threads=1)
    assert res.lower <= res.upper
    assert res.seconds < 30
    rep = check_schedule(inst, Schedule(res.starts))
    assert rep.valid and rep.tel == res.upper
    if not res.optimal:
        assert res.lower < res.upper


def test_windows_contain_incumbent_tel_bound():
    rng = np.random.default_rng(5)
    inst = section51(rng, 2)
    starts, tel, _ = heuristic_incumbent(inst)
    L = latest_starts(inst, tel)
    # the incumbent satisfies the incumbent-based windows (argument 2)
    c = starts + inst.output
    assert np.all(c - inst.arrival <= tel - 0)
    assert np.all(L + inst.output <= left_shift_horizon(inst))
    assert np.all(L >= inst.arrival)


def test_left_shift_keeps_feasibility():
    rng = np.random.default_rng(11)
    inst = section51(rng, 1, n_range=(30, 30))
    res = simulate(inst, make_policy("fcfs"), seed=0)
    st = left_shift(inst, res.schedule.start_array())
    rep = check_schedule(inst, Schedule(tuple(int(p) for p in st)))
    assert rep.valid and rep.tel <= res.tel


def test_cli_solve_json(tmp_path, capsys):
    f = tmp_path / "r.csv"
    f.write_text("arrival,prompt,output\n0,2,3\n0,1,4\n0,3,2\n")
    assert cli_main(["solve", "--memory", "8", str(f), "--time-limit", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("lower", "upper", "optimal", "starts", "seconds"):
        assert key in out
    assert out["optimal"] and out["lower"] == out["upper"] == brute_force(TINY[0])
    assert cli_main(["solve", "--memory", "8", str(f)]) == 0
    assert "optimal" in capsys.readouterr().out


# ---------------------------------------------------------------------------
# the sparse builder, CP-SAT, redundant constraints, the Section 5.1 summary


@pytest.mark.parametrize("k", [0, 2, 4])
def test_sparse_builder_equals_cvxpy_matrix(k):
    """build_sparse gives exactly cvxpy's problem data of build_model (plain formulation)."""
    import cvxpy as cp

    from kvlib.optimum.exact import build_model, build_sparse

    inst = TINY[k]
    sm = build_sparse(inst, upper=None, symmetry=True)
    cm = build_model(inst, upper=None, formulation="plain", symmetry=True)
    assert np.array_equal(sm.req, cm.req) and np.array_equal(sm.start, cm.start)
    assert np.allclose(sm.cost, cm.cost)
    data, _, _ = cm.problem.get_problem_data(cp.HIGHS)
    A = data["A"].toarray()[:, : len(cm.req)]
    b = data["b"]
    # cvxpy: A x (==|<=) b with the equality rows (2) first, then (3), then the symmetry rows
    assert np.allclose(A, sm.A.toarray())
    assert np.allclose(b, sm.row_upper)
    assert np.allclose(b[: inst.n], sm.row_lower[: inst.n])


# do not import ortools here: it cannot share a process with highspy (see kvlib.optimum.cpsat)
needs_ortools = pytest.mark.skipif(importlib.util.find_spec("ortools") is None, reason="ortools not installed")


@needs_ortools
@pytest.mark.parametrize("k", [0, 2, 4])
def test_cpsat_equals_brute_force(k):
    from kvlib.optimum.cpsat import cpsat_solve_subprocess

    inst = TINY[k]
    r = cpsat_solve_subprocess(inst, time_limit=20, workers=1)
    assert r.status == "OPTIMAL", r.status
    rep = check_schedule(inst, Schedule(tuple(int(p) for p in r.starts)))
    assert rep.valid and rep.tel == r.tel == r.bound == brute_force(inst)


@needs_ortools
def test_solve_with_cpsat_phase_is_certified():
    rng = np.random.default_rng(2)
    inst = section51(rng, 1, n_range=(12, 12))
    res = solve(inst, time_limit=4, threads=1, cpsat=2.5)
    rep = check_schedule(inst, Schedule(res.starts))
    assert rep.valid and rep.tel == res.upper
    assert volume_lower_bound(inst) <= res.lower <= res.upper
    assert res.optimal == (res.lower == res.upper)
    assert res.extra["cpsat_status"] in ("OPTIMAL", "FEASIBLE", "UNKNOWN")  # the CP-SAT phase ran
    assert res.seconds < 4 + 20  # the limit covers the whole call (HiGHS may overrun a little)


def test_non_overlap_cliques_hold_in_every_feasible_schedule():
    from kvlib.optimum.cpsat import non_overlap_cliques

    found = 0
    for seed in range(30):
        inst = section51(np.random.default_rng([99, seed]), 1, n_range=(12, 12), memory_range=(10, 14))
        cl = non_overlap_cliques(inst)
        found += len(cl)
        for name in ("mc-sf", "fcfs", "mc-benchmark"):
            st = simulate(inst, make_policy(name), seed=0).schedule.start_array()
            for c in cl:
                for i, j in itertools.combinations(c, 2):
                    ri = set(range(st[i] + 1, st[i] + inst.output[i] + 1))
                    rj = set(range(st[j] + 1, st[j] + inst.output[j] + 1))
                    assert not ri & rj, (seed, name, i, j)
    assert found > 0  # the test exercises some cliques


def test_section51_summary_intervals():
    import pandas as pd

    from kvlib.optimum.exact import section51_summary

    rows = pd.DataFrame([
        dict(model="AM1", mcsf=100, lower=100, upper=100, optimal=True, seconds=1.0),
        dict(model="AM1", mcsf=110, lower=90, upper=100, optimal=False, seconds=3.0),
        dict(model="AM2", mcsf=50, lower=50, upper=50, optimal=True, seconds=2.0),
    ])
    t = section51_summary(rows)
    assert t.loc["proved optimal", "AM1"] == "1"
    assert t.loc["exact matches proved", "AM1"] == "1"
    assert t.loc["MC-SF certified not optimal", "AM1"] == "1"
    assert t.loc["worst", "AM1"] == f"[{1.1:.3f}, {110 / 90:.3f}]"
    assert t.loc["average", "AM1"] == f"[{1.05:.3f}, {(1 + 110 / 90) / 2:.3f}]"
    assert t.loc["average", "AM1 paper"] == "1.005"


def test_peak_conflict_separation_holds_and_is_attained():
    from kvlib.optimum.bounds import clique_families, conflict_delays

    checked = tight = 0
    for seed in range(25):
        rng = np.random.default_rng([98, seed])
        M = int(rng.integers(10, 17))
        inst = uniform(rng, 12, M, prompt_max=4, output_max=M, arrival_max=6 * (seed % 2))
        pairs, d = conflict_delays(inst)
        for name in ("mc-sf", "mc-benchmark", "fcfs", "mc-sf2", "alpha-greedy", "sorted-f"):
            try:
                sched = simulate(inst, make_policy(name), seed=0).schedule
            except SimulationStalled:
                continue
            assert check_schedule(inst, sched).valid
            c = sched.start_array() + inst.output
            for (i, j), (dij, dji) in zip(pairs, d):
                gap, need = (c[j] - c[i], dij) if c[i] <= c[j] else (c[i] - c[j], dji)
                assert gap >= need, (seed, name, i, j, gap, need)
                checked += 1
                tight += gap == need
            # the families' intervals [c - tau, c + tau) are pairwise disjoint (clique_families)
            for members, p, shift, rel in clique_families(inst)[1:]:
                lo, hi = c[members] - shift[members], c[members] + shift[members]
                order = np.argsort(lo)
                assert np.all(hi[order][:-1] <= lo[order][1:] + 1e-9), (seed, name, members)
                assert np.all(lo >= rel[members] - 1e-9)
    assert checked > 500 and tight > 0


@pytest.mark.parametrize("seed", range(8))
def test_peak_conflict_bound_is_below_the_optimum(seed):
    from kvlib.optimum.bounds import peak_conflict_bound, separation_lower_bound
    from kvlib.optimum.bruteforce import brute_force_opt

    rng = np.random.default_rng([97, seed])
    M = int(rng.integers(8, 13))
    inst = uniform(rng, 5 + seed % 2, M, prompt_max=3, output_max=M, arrival_max=4 * (seed % 2))
    opt, _, _ = brute_force_opt(inst)
    res = peak_conflict_bound(inst, time_limit=20, threads=1)
    assert volume_lower_bound(inst) <= res["bound"] <= opt
    assert res["relaxation_solved"]
    sep = separation_lower_bound(inst)
    assert sep["converged"] and volume_lower_bound(inst) <= sep["bound"] <= opt
    for inst in TINY:
        assert peak_conflict_bound(inst, time_limit=20, threads=1)["bound"] <= brute_force(inst)
        assert separation_lower_bound(inst)["bound"] <= brute_force(inst)


def test_peak_conflict_bound_does_not_depend_on_earlier_highs_solves():
    # HiGHS keeps one thread pool per process: a run with another thread count than an earlier
    # solve's failed silently (the bound fell back to the volume bound) before the pool was reset
    from kvlib.optimum.bounds import peak_conflict_bound, separation_lower_bound

    inst = section51(np.random.default_rng([0, 7, 0]), 1, n_range=(6, 6))
    results = [peak_conflict_bound(inst, time_limit=20, threads=t) for t in (1, 2, 1)]
    assert all(r["relaxation_solved"] for r in results)
    assert len({r["bound"] for r in results}) == 1
    assert results[0]["bound"] > separation_lower_bound(inst)["bound"]


def test_separation_bound_beats_volume_where_big_requests_dominate():
    # many requests with peaks above M/2: the clique families must lift the bound above the volume bound
    inst = Instance.at_zero([1] * 8, [8] * 8, 12)  # P = 9 > 6; any two complete >= min(8, 6) = 6 apart
    sep = separation_lower_bound(inst)
    assert sep["bound"] > volume_lower_bound(inst)
    # starts 0, 6, 12, ...: each request overlaps the next by 2 rounds (9 + 3 <= 12 at the peak)
    rep = check_schedule(inst, Schedule(tuple(6 * k for k in range(8))))
    assert rep.valid and sep["bound"] == rep.tel == 232  # here the relaxation is exact
