"""The time-indexed LP by column generation (kvlib.optimum.colgen) against the full LP and known optima."""

from __future__ import annotations

import numpy as np
import pytest

from kvlib.core.instances import section51
from kvlib.optimum.bounds import latest_starts
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.colgen import column_generation_lp
from kvlib.optimum.heuristic import heuristic_incumbent
from kvlib.optimum.timelp import reduced_cost_fixing, time_indexed_lp

from test_pipeline import SMALL, _known_optimum_instances, _twin_allows, opt


def _setup(inst):
    st, ub, _ = heuristic_incumbent(inst)
    return np.asarray(st), ub, latest_starts(inst, ub)


def _mid(k: int):
    """Section 5.1 instances (Arrival Model 1) with n = 10-16, seeded."""
    return section51(np.random.default_rng([77, k]), 1, n_range=(10, 16))


@pytest.mark.parametrize("inst", [SMALL[k] for k in range(10)] + [_mid(k) for k in range(4)])
def test_converged_value_equals_the_full_lp(inst):
    st, ub, L = _setup(inst)
    full = time_indexed_lp(inst, L, time_limit=60)
    cg = column_generation_lp(inst, L, st, time_limit=60)
    assert full.converged and cg.converged
    # the same LP (same rows; the family rows found in another order): the same optimum
    assert cg.safe_value == pytest.approx(full.safe_value, abs=1e-5)
    assert cg.bound == full.bound


@pytest.mark.parametrize("k", range(len(SMALL)))
def test_bound_fixing_and_lagrangian_hold_at_a_brute_force_optimum(k):
    inst = SMALL[k]
    o = opt(k)
    st, ub, L = _setup(inst)
    r = column_generation_lp(inst, L, st, time_limit=30)
    assert r.bound <= o
    assert np.all(r.reduced >= 0)
    _, best, _ = brute_force_opt(inst)
    # reduced-cost fixing with UB = OPT + 1 keeps every start of an optimal schedule (up to twins)
    allowed = reduced_cost_fixing(r, o + 1)
    assert all(int(p) in set(allowed[i].tolist()) or _twin_allows(inst, allowed, i, int(p))
               for i, p in enumerate(best))
    # the Lagrangian inequality TEL >= yb + sum_j reduced[j, p_j] at every optimal schedule in the windows
    lag = r.lagrangian()
    col = {(int(j), int(p)): c for c, (j, p) in enumerate(zip(lag["req"], lag["start"]))}
    assert all((i, int(p)) in col for i, p in enumerate(best))  # the windows hold every optimal schedule
    assert lag["yb"] + sum(lag["reduced"][col[(i, int(p))]] for i, p in enumerate(best)) <= o + 1e-6


@pytest.mark.parametrize("name,inst,known", _known_optimum_instances(), ids=lambda v: v if isinstance(v, str) else "")
def test_bound_below_a_hand_known_optimum(name, inst, known):
    st, ub, L = _setup(inst)
    r = column_generation_lp(inst, L, st, time_limit=30)
    assert r.bound <= known, (name, r.bound, known)


def test_every_round_is_a_bound_and_the_time_limit_is_kept():
    """Cut short after a fraction of a second, the bound is still below the optimum (and below the
    converged value); the call returns within about the time limit."""
    import time

    inst = _mid(1)
    st, ub, L = _setup(inst)
    full = column_generation_lp(inst, L, st, time_limit=60)
    assert full.converged
    for limit in (0.05, 0.2):
        tic = time.perf_counter()
        r = column_generation_lp(inst, L, st, time_limit=limit)
        assert time.perf_counter() - tic < limit + 2.0
        assert r.bound <= full.bound
        assert r.rounds == 0 or r.safe_value <= full.safe_value + 1e-6


def test_bad_arguments_name_the_culprit():
    inst = SMALL[3]
    st, ub, L = _setup(inst)
    with pytest.raises(ValueError, match="one start per request"):
        column_generation_lp(inst, L, st[:-1])
    bad = st.copy()
    bad[2] = int(inst.arrival[2]) - 1
    with pytest.raises(ValueError, match="request 2"):
        column_generation_lp(inst, L, bad)
    with pytest.raises(ValueError, match="time_limit"):
        column_generation_lp(inst, L, st, time_limit=0)
    with pytest.raises(ValueError, match="columns_per_request"):
        column_generation_lp(inst, L, st, columns_per_request=0)
    with pytest.raises(ValueError, match="initial_pad"):
        column_generation_lp(inst, L, st, initial_pad=-1)
