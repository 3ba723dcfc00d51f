"""Tests for kvlib.ratio (001 Theorem 4.3 quantities) and kvlib.bruteforce."""

import numpy as np
import pytest
import sympy as sp

from kvlib import Instance, Schedule, check_schedule, make_policy, simulate
from kvlib.bruteforce import brute_force_opt, enumerate_opt
from kvlib.ratio import (claim48_upper, identical_batch_tel, identical_lp_value, identical_stagger_possible,
                         lemma44_bound, lemma47_bound, lp9_cvxpy, lp9_greedy, order_statistic_bound,
                         theorem43_assumptions, vol)


def _random_at_zero(rng, n_max=5, M_max=12, o_max=5, equal_s=True):
    M = int(rng.integers(4, M_max + 1))
    n = int(rng.integers(1, n_max + 1))
    s = int(rng.integers(1, min(3, M - 1) + 1))
    o = rng.integers(1, min(o_max, M - s) + 1, size=n)
    prompts = [s] * n if equal_s else rng.integers(1, s + 1, size=n).tolist()
    return Instance.at_zero(prompts, o.tolist(), M)


def test_bruteforce_matches_enumeration():
    rng = np.random.default_rng(11)
    for _ in range(25):
        inst = _random_at_zero(rng, n_max=3, M_max=9, o_max=3, equal_s=False)
        tel, starts, _ = brute_force_opt(inst)
        assert check_schedule(inst, Schedule(starts)).valid
        assert tel == enumerate_opt(inst)[0]


def test_bruteforce_with_arrivals_matches_enumeration():
    rng = np.random.default_rng(12)
    for _ in range(10):
        a = rng.integers(0, 3, size=3)
        o = rng.integers(1, 4, size=3)
        inst = Instance.from_arrays(a, [1, 2, 1], o, 7)
        assert brute_force_opt(inst)[0] == enumerate_opt(inst)[0]


def test_lower_bounds_below_bruteforce_opt_and_mcsf_not_better():
    rng = np.random.default_rng(13)
    for _ in range(40):
        inst = _random_at_zero(rng, n_max=6)
        mc = simulate(inst, make_policy("mc-sf")).tel
        opt, _, _ = brute_force_opt(inst, upper=mc)
        assert opt <= mc
        assert order_statistic_bound(inst) <= opt
        assert lemma47_bound(inst) <= opt + 1e-9
        assert lp9_greedy(inst).value <= opt + 1e-9


def test_smallest_004_counterexample():
    inst = Instance.at_zero([1] * 4, [1, 1, 3, 3], 5)
    assert simulate(inst, make_policy("mc-sf")).tel == 13
    assert brute_force_opt(inst)[0] == 12
    assert brute_force_opt(inst, sf_ordered=True)[0] == 13


def test_lemma44_bound_and_lp_structure_on_valid_instances():
    rng = np.random.default_rng(14)
    for _ in range(15):
        s = int(rng.integers(1, 4))
        M = int(rng.integers(12, 40))
        n = int(rng.integers(2, 25))
        inst = Instance.at_zero([s] * n, rng.integers(1, M // 2 - s + 1, size=n).tolist(), M)
        assert theorem43_assumptions(inst)
        mc = simulate(inst, make_policy("mc-sf")).tel
        assert mc <= lemma44_bound(inst)
        g = lp9_greedy(inst)
        assert np.all(np.diff(g.t_star) >= -1e-9)
        assert np.all(g.t_star >= g.outputs - 1e-9) and np.all(g.t_star <= claim48_upper(inst) + 1e-9)
        assert lemma47_bound(inst) <= order_statistic_bound(inst) + 1e-9
        assert g.value <= order_statistic_bound(inst) + 1e-9
    c = lp9_cvxpy(inst)
    assert c.value == pytest.approx(g.value, rel=1e-7, abs=1e-6)


def test_identical_closed_form_symbolic_and_simulation():
    n, k, o = sp.symbols("n k o", positive=True, integer=True)
    # batch b = 1..q of k requests completes at b o: sum = o k q (q + 1) / 2
    b, q = sp.symbols("b q", positive=True, integer=True)
    assert sp.simplify(sp.summation(k * b * o, (b, 1, q)) - o * k * q * (q + 1) / 2) == 0
    checked = 0
    for M in range(4, 25):
        for s_ in range(1, 4):
            for o_ in range(1, M - s_ + 1):
                for n_ in (1, 3, 7):
                    inst = Instance.at_zero([s_] * n_, [o_] * n_, M)
                    tel = simulate(inst, make_policy("mc-sf")).tel
                    if not identical_stagger_possible(s_, o_, M):
                        assert tel == identical_batch_tel(n_, s_, o_, M)
                        checked += 1
                    else:
                        assert tel <= identical_batch_tel(n_, s_, o_, M)
                    assert identical_lp_value(n_, s_, o_, M) <= tel + 1e-9
    assert checked > 100


def test_vol():
    assert vol(2, 3) == 2 * 3 + 6
