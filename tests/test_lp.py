"""kvlib.policies.wyz_lp: the three LP models agree where they should; the bucket approximation; bad input."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvlib.core.checker import check_schedule
from kvlib.policies.wyz_lp import auto_time_step, compare_lp_orders, lp_order, lp_relaxation
from kvlib.core.model import Instance
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate


@st.composite
def small_instances(draw):
    n = draw(st.integers(2, 7))
    M = draw(st.integers(12, 30))
    s = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    o = [draw(st.integers(1, M - x)) for x in s]
    a = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return Instance.from_arrays(a, s, o, M)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_instances(), st.integers(2, 4))
def test_models_agree(inst, step):
    H = int(inst.arrival.max() + inst.output.sum() + 2)
    v1 = {f: lp_relaxation(inst, horizon=H, time_step=1, formulation=f, solver="simplex")[0]
          for f in ("bucket", "per-time", "dense")}
    # step 1: all three are the exact relaxation
    assert v1["bucket"] == pytest.approx(v1["dense"], rel=1e-6, abs=1e-6)
    assert v1["per-time"] == pytest.approx(v1["dense"], rel=1e-6, abs=1e-6)
    # a coarser grid: running sums = dense per-time rows; both restrict the exact LP (value >=)
    vs = {f: lp_relaxation(inst, horizon=H, time_step=step, formulation=f, solver="simplex")[0]
          for f in ("bucket", "per-time", "dense")}
    assert vs["per-time"] == pytest.approx(vs["dense"], rel=1e-6, abs=1e-6)
    assert vs["dense"] >= v1["dense"] - 1e-6
    # averaging the memory rows over a bucket relaxes the grid-restricted per-time LP
    assert vs["bucket"] <= vs["dense"] + 1e-6


def test_ipm_without_crossover_gives_the_simplex_order():
    rng = np.random.default_rng(5)
    s, o = rng.integers(1, 20, 25), rng.integers(1, 40, 25)
    inst = Instance.at_zero(s, o, 120)
    r1 = lp_order(inst, time_step=2, solver="simplex")
    r2 = lp_order(inst, time_step=2, solver="ipm")
    assert sorted(r1.tolist()) == list(range(25))
    # interior point may split ties differently, never by much
    assert np.abs(r1 - r2).max() <= 3


def test_auto_time_step_respects_the_budget():
    o = np.full(500, 100)
    steps = [auto_time_step(np.zeros(500), o, 20_000, b) for b in (10**5, 10**6, 10**7)]
    assert steps[0] >= steps[1] >= steps[2] >= 1
    for D, b in zip(steps, (10**5, 10**6, 10**7)):
        assert (20_000 / D) * (o.sum() / D + 2 * 500) <= b


def test_compare_lp_orders():
    rng = np.random.default_rng(2)
    inst = Instance.at_zero(rng.integers(1, 10, 12), rng.integers(1, 25, 12), 60)
    rows = compare_lp_orders(inst, steps=[1, 5], solver="simplex")
    # step 1 of the bucket model is the exact relaxation (the optimal vertex may differ)
    assert rows[0]["approx_value"] == pytest.approx(rows[0]["exact_value"], rel=1e-7)
    assert rows[1]["step"] == 5 and rows[1]["exact_seconds"] == rows[0]["exact_seconds"]
    same = compare_lp_orders(inst, steps=[1], reference=dict(formulation="bucket", time_step=1, solver="simplex"),
                             solver="simplex")[0]
    assert same["kendall_tau"] == pytest.approx(1.0) and same["tel_change_sorted_lp"] == 0.0
    assert same["tel_change_lp_swap"] == 0.0 and same["max_rank_shift"] == 0


@pytest.mark.parametrize("name", ["sorted-lp", "lp-swap"])
def test_lp_policies_with_explicit_options(name):
    rng = np.random.default_rng(4)
    inst = Instance.at_zero(rng.integers(1, 10, 15), rng.integers(1, 30, 15), 70)
    for kw in ({"time_step": 3}, {"time_step": 1, "formulation": "per-time"}, {"max_nonzeros": 2_000}):
        res = simulate(inst, make_policy(name, **kw))
        assert check_schedule(inst, res.schedule).valid


def test_bad_lp_options_are_named():
    inst = Instance.at_zero([1, 2], [3, 4], 10)
    with pytest.raises(ValueError, match="formulation"):
        lp_relaxation(inst, formulation="nope")
    with pytest.raises(ValueError, match="time_step"):
        lp_relaxation(inst, time_step=0)
    with pytest.raises(ValueError, match="horizon"):
        lp_relaxation(inst, horizon=3, time_step=1)


def test_lp_after_other_highs_solves_with_other_thread_counts():
    # HiGHS's per-process thread pool: every kvlib solve goes through kvlib.core.highs.run, so solves
    # with different thread counts in one process must all succeed, in any order
    from kvlib.optimum.bounds import peak_conflict_bound, separation_lower_bound

    inst = Instance.at_zero([1, 2, 1, 3, 2, 1], [4, 3, 5, 2, 6, 3], 14)
    first = lp_relaxation(inst, threads=2)[0]
    separation_lower_bound(inst)
    assert peak_conflict_bound(inst, threads=1)["relaxation_solved"]
    for t in (2, 1, 2):
        assert lp_relaxation(inst, threads=t)[0] == pytest.approx(first)
    assert peak_conflict_bound(inst, threads=2)["relaxation_solved"]
