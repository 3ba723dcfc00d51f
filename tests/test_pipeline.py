"""Tests of the certified solve pipeline (kvlib.optimum.pipeline) and its parts:
tightened conflict families, the time-indexed LP with family rows, reduced-cost fixing,
the event-based CP-SAT model, and the argument checks of solve()."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51, uniform
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import SimulationStalled, simulate
from kvlib.optimum.bounds import (clique_families, latest_starts, pair_separations, separation_lower_bound,
                                  tightened_families, volume_lower_bound)
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.cpsat import feasible_at_completions
from kvlib.optimum.exact import (InfeasibleIncumbentError, InvalidThreadsError, InvalidTimeLimitError,
                                 SolveArgumentError, heuristic_incumbent, solve)
from kvlib.optimum.timelp import build_sparse, capacity_rows, reduced_cost_fixing, time_indexed_lp
from kvlib.policies import make_policy


def small_family(k: int) -> Instance:
    """The seeded family of small instances (n <= 7) used against brute force."""
    rng = np.random.default_rng([4242, k])
    n = 4 + k % 4  # 4..7
    M = int(rng.integers(8, 12))
    return uniform(rng, n, M, prompt_max=3, output_max=M - 3 if n == 7 else M, arrival_max=3 * (k % 2))


SMALL = [small_family(k) for k in range(10)]
OPT = {}


def opt(k: int) -> int:
    if k not in OPT:
        OPT[k] = brute_force_opt(SMALL[k])[0]
    return OPT[k]


@pytest.mark.parametrize("k", range(len(SMALL)))
def test_pipeline_equals_brute_force(k):
    inst = SMALL[k]
    res = solve(inst, time_limit=30, threads=1)
    assert res.formulation == "pipeline"
    assert res.optimal and res.lower == res.upper == opt(k), (res.status, res.extra)
    assert res.extra["proved_by"]
    rep = check_schedule(inst, Schedule(res.starts))
    assert rep.valid and rep.tel == res.upper


@pytest.mark.parametrize("k", range(len(SMALL)))
def test_every_bound_is_below_the_optimum(k):
    inst = SMALL[k]
    o = opt(k)
    assert volume_lower_bound(inst) <= separation_lower_bound(inst)["bound"] <= o
    _, ub, _ = heuristic_incumbent(inst)
    r = time_indexed_lp(inst, latest_starts(inst, ub), time_limit=20)
    assert r.converged and r.bound <= o
    assert r.safe_value <= r.value + 1e-6  # the recomputed dual value never exceeds HiGHS's
    # reduced-cost fixing with UB = OPT + 1 keeps every start of some optimal schedule
    _, st, _ = brute_force_opt(inst)
    allowed = reduced_cost_fixing(r, o + 1)
    # brute force may return any optimal schedule; identical requests may need reordering,
    # so check the multiset of (request type, start) against the allowed starts per type
    assert all(int(p) in set(allowed[i].tolist()) or _twin_allows(inst, allowed, i, int(p)) for i, p in enumerate(st))


def _capacity_direct(inst, starts, k):
    """Left sides of the order-k capacity rows for a schedule, from the definition (not the matrix)."""
    s, o, M = inst.prompt, inst.output, inst.memory
    T = int(max(int(p) + int(o[j]) for j, p in enumerate(starts)))
    out = np.zeros(T)
    for j, p in enumerate(starts):
        for t in range(int(p) + 1, int(p) + int(o[j]) + 1):
            w = int(s[j]) + t - int(p)
            out[t - 1] += math.ceil(k * w / M) - 1
    return out


def _schedule_vector(model, starts):
    x = np.zeros(len(model.req))
    for j, p in enumerate(starts):
        c = model.column(j, int(p))
        assert c >= 0, (j, p)
        x[c] = 1.0
    return x


@pytest.mark.parametrize("k", range(len(SMALL)))
def test_capacity_rows_never_cut_off_a_brute_force_optimum(k):
    """The capacity rows (kvlib.optimum.timelp.capacity_rows, orders 2-6) hold at the brute-force optimum
    and at every policy schedule of the seeded n <= 7 family; the matrix equals the definition."""
    inst = SMALL[k]
    _, st, _ = brute_force_opt(inst)
    schedules = [tuple(int(p) for p in st)]
    for name in ("mc-sf", "mc-benchmark", "mc-sf2"):
        try:
            schedules.append(simulate(inst, make_policy(name), seed=0).schedule.starts)
        except SimulationStalled:
            pass
    horizon = max(max(int(p) for p in sc) for sc in schedules)
    model = build_sparse(inst, latest=np.full(inst.n, horizon), symmetry=False)
    mem = model.A.tocsr()[inst.n:inst.n + model.horizon]
    for order in range(2, 7):
        B = capacity_rows(mem, inst.memory, order)
        assert B.data.min() >= 1 and np.allclose(B.data, np.round(B.data))
        for sc in schedules:
            act = B @ _schedule_vector(model, sc)
            direct = _capacity_direct(inst, sc, order)
            assert np.allclose(act[:len(direct)], direct) and np.all(act[len(direct):] == 0)
            assert act.max() <= order - 1 + 1e-9, (order, sc)


def test_capacity_rows_exhaustive_on_tiny_instances():
    """Every feasible start vector (exhaustive over starts up to a + sum o, n = 4) satisfies the rows
    of orders 2-5."""
    from itertools import product

    from kvlib.core.model import memory_profile

    for seed in range(2):
        rng = np.random.default_rng([777, seed])
        M = int(rng.integers(5, 9))
        inst = uniform(rng, 4, M, prompt_max=3, output_max=3, arrival_max=2 * (seed % 2))
        span = int(inst.output.sum())
        feasible = 0
        for starts in product(*[range(int(a), int(a) + span + 1) for a in inst.arrival]):
            if int(memory_profile(inst, Schedule(starts)).max()) > M:
                continue
            feasible += 1
            for order in range(2, 6):
                assert _capacity_direct(inst, starts, order).max() <= order - 1, (seed, starts, order)
        assert feasible > 0


def test_capacity_row_cuts_a_fractional_point():
    """The docstring's example: three requests holding 7 of M = 20 at t = 1, each at 0.9, satisfy the
    memory row (18.9 <= 20) but not the order-3 capacity row (2.7 > 2)."""
    inst = Instance.at_zero([6, 6, 6], [1, 1, 1], 20)
    model = build_sparse(inst, latest=np.zeros(3, dtype=np.int64), symmetry=False)
    x = np.full(3, 0.9)
    mem = model.A.tocsr()[3:3 + model.horizon]
    assert (mem @ x)[0] == pytest.approx(18.9)
    assert (capacity_rows(mem, 20, 3) @ x)[0] == pytest.approx(2.7)
    with pytest.raises(ValueError, match="k must be >= 2"):
        capacity_rows(mem, 20, 1)


@pytest.mark.parametrize("k", range(0, len(SMALL), 3))
def test_capacity_rows_keep_the_lp_below_the_optimum(k):
    inst = SMALL[k]
    _, ub, _ = heuristic_incumbent(inst)
    lat = latest_starts(inst, ub)
    plain = time_indexed_lp(inst, lat, time_limit=20, capacity_orders=())
    cap = time_indexed_lp(inst, lat, time_limit=20, capacity_orders=(3, 4))
    assert plain.converged and cap.converged
    assert cap.value >= plain.value - 1e-6  # more valid rows: the LP minimum can only rise
    assert cap.bound <= opt(k)


def _twin_allows(inst, allowed, i, p):
    key = (inst.arrival[i], inst.prompt[i], inst.output[i])
    return any(p in set(allowed[j].tolist()) for j in range(inst.n)
               if (inst.arrival[j], inst.prompt[j], inst.output[j]) == key)


def test_tightened_families_are_pairwise_disjoint_in_every_schedule():
    checked = 0
    for seed in range(20):
        rng = np.random.default_rng([99, seed])
        M = int(rng.integers(10, 31))
        inst = uniform(rng, 12, M, prompt_max=4, output_max=M, arrival_max=5 * (seed % 2))
        D = pair_separations(inst)
        fams = tightened_families(inst)
        for K, tau in fams:
            assert np.all(tau > 0)
            S = tau[:, None] + tau[None, :]
            DK = D[np.ix_(K, K)]
            off = ~np.eye(len(K), dtype=bool)
            assert np.all(S[off] <= DK[off] + 1e-9)
            assert np.allclose(2 * tau, np.round(2 * tau))  # multiples of 1/2 (used by the CP-SAT model)
        for name in ("mc-sf", "mc-benchmark", "fcfs", "mc-sf2"):
            try:
                sched = simulate(inst, make_policy(name), seed=0).schedule
            except SimulationStalled:
                continue
            c = sched.start_array() + inst.output
            for K, tau in fams:
                lo, hi = c[K] - tau, c[K] + tau
                order = np.argsort(lo)
                assert np.all(hi[order][:-1] <= lo[order][1:] + 1e-9), (seed, name, K)
                checked += 1
    assert checked > 100


def test_tightened_families_lift_the_separation_bound():
    # the benchmark suite's AM1 n = 20 instance (benchmarks/exact_suite.py)
    inst = section51(np.random.default_rng([20250, 2]), 1, n_range=(20, 20))
    old = separation_lower_bound(inst, families=clique_families(inst, tightened=False), time_limit=30)
    new = separation_lower_bound(inst, time_limit=30)
    assert old["converged"] and new["converged"]
    assert new["bound"] > old["bound"]


def test_event_model_check_equals_the_checker():
    # memory checked at completion rounds only <=> feasible at every integer time
    rng = np.random.default_rng(5)
    agree = infeasible = 0
    for _ in range(400):
        M = int(rng.integers(6, 15))
        inst = uniform(rng, int(rng.integers(2, 6)), M, prompt_max=3, output_max=M, arrival_max=3)
        starts = inst.arrival + rng.integers(0, 6, size=inst.n)
        valid = check_schedule(inst, Schedule(tuple(int(p) for p in starts))).valid
        assert feasible_at_completions(inst, starts) == valid
        agree += 1
        infeasible += not valid
    assert infeasible > 50 and agree - infeasible > 50


@pytest.mark.skipif(__import__("importlib").util.find_spec("ortools") is None, reason="needs OR-Tools")
def test_event_model_is_exact_without_the_lp():
    from kvlib.optimum.pipeline import solve_pipeline

    for k in (0, 3):
        res = solve_pipeline(SMALL[k], time_limit=30, threads=1, lp=False)
        assert res.optimal and res.upper == opt(k)
        # and with a useless incumbent the event model must find the optimum itself
        inst = SMALL[k]
        late = np.full(inst.n, 0)
        t = int(inst.arrival.max())
        for i in range(inst.n):  # one after another: always feasible
            late[i] = t
            t += int(inst.output[i])
        res = solve_pipeline(inst, time_limit=30, threads=1, lp=False, incumbent=late)
        assert res.optimal and res.upper == opt(k)


def test_bad_arguments_raise_named_errors():
    inst = SMALL[0]
    for tl in (0, -1, float("nan"), float("inf"), "60", True):
        with pytest.raises(InvalidTimeLimitError, match="time_limit"):
            solve(inst, time_limit=tl)
    for th in (0, -2, 10**6, 1.5, True):
        with pytest.raises(InvalidThreadsError, match="threads"):
            solve(inst, threads=th)
    bad = np.zeros(inst.n, dtype=int)
    bad[:] = 0
    if check_schedule(inst, Schedule(tuple(bad.tolist()))).valid:  # pragma: no cover - depends on the draw
        bad[0] = -1
    with pytest.raises(InfeasibleIncumbentError, match="incumbent"):
        solve(inst, incumbent=bad)
    with pytest.raises(InfeasibleIncumbentError, match="incumbent"):
        solve(inst, incumbent=[0, 1])
    with pytest.raises(SolveArgumentError, match="method"):
        solve(inst, method="gurobi")
    for cls in (InvalidTimeLimitError, InvalidThreadsError, InfeasibleIncumbentError):
        assert issubclass(cls, ValueError)
    from kvlib.optimum.exact import solve_ip

    with pytest.raises(InvalidTimeLimitError):
        solve_ip(inst, time_limit=float("nan"))


def test_big_instance_returns_heuristic_and_cheap_bounds_with_visible_skips():
    rng = np.random.default_rng(11)
    inst = uniform(rng, 300, 5000, prompt_max=500, output_max=600, arrival_max=300)
    res = solve(inst, time_limit=4, threads=1)
    assert 0 < res.lower <= res.upper and not math.isnan(res.gap)
    assert check_schedule(inst, Schedule(res.starts)).tel == res.upper
    notes = " ".join(res.extra["notes"])
    assert "time-indexed LP skipped" in notes and "CP-SAT event model skipped" in notes
    assert "skipped" in res.status
    ip = solve(inst, time_limit=4, threads=1, method="ip", cpsat=0, separation=False)
    assert "HiGHS skipped" in ip.status and ip.lower <= ip.upper


def _one_after_another(inst: Instance) -> np.ndarray:
    """A feasible but poor schedule: every request alone, in index order, after the last arrival."""
    late = np.zeros(inst.n, dtype=np.int64)
    t = int(inst.arrival.max())
    for i in range(inst.n):
        late[i] = t
        t += int(inst.output[i])
    return late


def test_upper_search_alone_finds_and_proves_the_optimum_on_small_instances():
    from kvlib.optimum.pipeline import solve_pipeline

    for k in (1, 2, 5):
        inst = SMALL[k]
        late = _one_after_another(inst)
        res = solve_pipeline(inst, time_limit=20, threads=1, lp=False, event=False, incumbent=late, search=0)
        assert res.upper == opt(k) < check_schedule(inst, Schedule(tuple(late.tolist()))).tel
        assert res.optimal and res.extra["proved_by"] == "CP-SAT upper-bound search", res.extra
        assert res.extra["cpsat_upper"] == opt(k)
        assert check_schedule(inst, Schedule(res.starts)).tel == res.upper
        # switched off, the same call keeps the poor incumbent
        off = solve_pipeline(inst, time_limit=5, threads=1, lp=False, event=False, incumbent=late,
                             upper_search=False, search=0)
        assert off.upper > opt(k) and "cpsat_upper" not in off.extra
        # the primal search (step 0b) alone also finds the optimum from the poor incumbent
        ps = solve_pipeline(inst, time_limit=5, threads=1, lp=False, event=False, incumbent=late,
                            upper_search=False)
        assert ps.upper == opt(k) and ps.extra["search_ub"] == opt(k)


def test_upper_search_before_and_beside_the_lp():
    from kvlib.optimum.pipeline import solve_pipeline

    rng = np.random.default_rng([7, 1])
    inst = section51(rng, 1, n_range=(14, 14))
    late = _one_after_another(inst)
    late_tel = check_schedule(inst, Schedule(tuple(late.tolist()))).tel
    res = solve_pipeline(inst, time_limit=30, threads=2, event=False, incumbent=late, search=0)
    # the search before the LP improves the incumbent; the one beside the LP ran (and was stopped when
    # the LP converged) without making it worse
    assert res.extra["cpsat_upper"] < late_tel and res.extra["cpsat_upper_lp"] <= res.extra["cpsat_upper"]
    assert res.upper == res.extra["cpsat_upper_lp"] and res.incumbent_source.startswith("cp-sat cumulative model")
    assert res.lower <= res.upper and res.lower >= res.extra["lp_lb"] >= res.extra["separation_lb"]
    assert check_schedule(inst, Schedule(res.starts)).tel == res.upper


def test_the_primal_search_leaves_the_lp_its_time():
    """When the time-indexed LP will run, step 0b searches in the slot of step 1b (which is skipped), so the
    LP keeps its share; with 30% of the limit on top, Section 5.1 rows lost up to 8% of their lower bound
    where the LP ran.  When the LP is too large, the search keeps its 30%."""
    from kvlib.optimum.pipeline import UPPER_SHARE, solve_pipeline

    rng = np.random.default_rng([7, 1])
    inst = section51(rng, 1, n_range=(14, 14))
    res = solve_pipeline(inst, time_limit=20, threads=2, event=False)
    slot = "primal search: in the slot of the CP-SAT upper-bound search (the time-indexed LP will run)"
    assert slot in res.extra["notes"] and "cpsat_upper" not in res.extra and "lp_lb" in res.extra
    assert res.extra["search_seconds"] <= UPPER_SHARE * 20 + 0.5 and "upper_search_seconds" not in res.extra
    assert res.lower <= res.upper and check_schedule(inst, Schedule(res.starts)).tel == res.upper
    big = section51(np.random.default_rng([7, 3]), 1, n_range=(60, 60))
    wide = solve_pipeline(big, time_limit=4, threads=2, event=False)
    assert slot not in wide.extra["notes"] and any("time-indexed LP skipped" in x for x in wide.extra["notes"])


def test_background_cpsat_job_stops_with_its_best_streamed_schedule():
    import time

    from kvlib.optimum.cpsat import CpSatJob

    rng = np.random.default_rng([7, 2])
    inst = section51(rng, 1, n_range=(30, 30))
    late = _one_after_another(inst)
    late_tel = check_schedule(inst, Schedule(tuple(late.tolist()))).tel
    job = CpSatJob(inst, time_limit=60, workers=1, hint=late, upper=late_tel)
    time.sleep(6)
    r = job.result(stop=True)
    assert r.status == "STOPPED" and r.bound == 0 and r.seconds < 30
    assert r.starts is not None  # at least the hinted schedule was streamed
    rep = check_schedule(inst, Schedule(tuple(int(p) for p in r.starts)))
    assert rep.valid and rep.tel == r.tel <= late_tel
    # a job left to its time limit reports CP-SAT's own status and bound
    done = CpSatJob(SMALL[0], time_limit=10, workers=1).result()
    assert done.status == "OPTIMAL" and done.tel == done.bound == opt(0)


def _known_optimum_instances():
    """Larger instances whose optimum is known by hand (n = 12-30, beyond brute force).

    * ``serial``: every prompt exceeds ``(M - 2) / 2``, so two requests can never share a round
      (both would hold at least ``s + 1`` tokens); all arrive at 0, so the problem is one machine
      with total completion time and SPT is optimal: ``OPT = sum_k (n - k + 1) o_(k)`` over the
      outputs in ascending order.
    * ``roomy``: the peaks add up to at most ``M``, so every request starts on arrival:
      ``OPT = sum_i o_i``.
    """
    out = []
    for k, n in enumerate((12, 20, 30)):
        rng = np.random.default_rng([515, k])
        M = int(rng.integers(30, 51))
        s = rng.integers((M - 2) // 2 + 1, M - 2, size=n)
        o = np.array([rng.integers(1, M - si + 1) for si in s])
        opt = int(sum((n - r) * v for r, v in enumerate(np.sort(o))))
        out.append((f"serial n={n}", Instance.from_arrays(np.zeros(n, dtype=int), s, o, M), opt))
        # roomy: small requests, arrivals spread over time, peaks summing to at most M
        a = np.sort(rng.integers(0, 20, size=n))
        so = rng.integers(1, 3, size=(n, 2))
        Mr = int(so.sum()) + int(rng.integers(0, 5))
        out.append((f"roomy n={n}", Instance.from_arrays(a, so[:, 0], so[:, 1], Mr), int(so[:, 1].sum())))
    return out


@pytest.mark.parametrize("name,inst,opt", _known_optimum_instances(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_bound_is_below_a_hand_known_optimum(name, inst, opt):
    from kvlib.optimum.pipeline import solve_pipeline

    if name.startswith("serial"):  # the premise: no two requests fit together in any round
        assert all(int(inst.prompt[i]) + int(inst.prompt[j]) + 2 > inst.memory
                   for i in range(inst.n) for j in range(i + 1, inst.n))
    else:  # the premise: all peaks fit at once
        assert int((inst.prompt + inst.output).sum()) <= inst.memory
    assert volume_lower_bound(inst) <= separation_lower_bound(inst)["bound"] <= opt
    res = solve_pipeline(inst, time_limit=15, threads=1)
    assert res.lower <= opt <= res.upper, (name, res.lower, opt, res.upper, res.extra)
    for key in ("volume_lb", "separation_lb", "lp_lb"):
        if key in res.extra:
            assert res.extra[key] <= opt, (name, key, res.extra[key], opt)
    assert check_schedule(inst, Schedule(res.starts)).tel == res.upper
    # and these are easy: the pipeline proves the known optimum (in about 3 s at n = 30)
    assert res.optimal and res.upper == opt, (name, res.status)
