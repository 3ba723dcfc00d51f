"""Tests for kvlib.theory.ratio (001 Theorem 4.3 quantities) and kvlib.optimum.bruteforce."""

import numpy as np
import pytest
import sympy as sp

from kvlib import Instance, Schedule, check_schedule, make_policy, simulate
from kvlib.optimum.bruteforce import brute_force_opt, enumerate_opt
from kvlib.theory.ratio import (claim48_upper, identical_batch_tel, identical_lp_value, identical_stagger_possible,
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


# ---- our reconstruction of Appendix B.3 (dual (25)-(27), Lemmas B.1, B.2) ----

from fractions import Fraction

from kvlib.theory.ratio import (identical_completion_bound, identical_dual, identical_dual_T, identical_dual_violation,
                         identical_lp_primal, identical_ratio_table, identical_rho,
                         identical_time_indexed_lp)


def test_identical_dual_feasible_and_strongly_dual():
    rng = np.random.default_rng(21)
    for _ in range(60):
        s, o = int(rng.integers(1, 6)), int(rng.integers(1, 12))
        M = int(rng.integers(s + o, 6 * (s + o) + 1))
        n = int(rng.integers(1, 40))
        d = identical_dual(n, s, o, M)
        assert d.T == identical_dual_T(n, s, o, M) == max(o, -(-n * vol(s, o) // M))
        assert identical_dual_violation(d) == 0
        x = identical_lp_primal(n, s, o, M)
        assert sum(x.values()) == n and all(v >= 0 for v in x.values())
        v = vol(s, o)
        for tau in range(o, max(x) + 1):  # primal feasibility, exactly
            assert v * sum(val for t, val in x.items() if t <= tau) <= M * tau
        assert sum(t * val for t, val in x.items()) == d.value  # equal objectives: both optimal
        assert float(d.value) == pytest.approx(identical_lp_value(n, s, o, M), rel=1e-9)
        for T in (o, d.T + 3):  # any T >= o is feasible and not better than T*
            other = identical_dual(n, s, o, M, T=T)
            assert identical_dual_violation(other) == 0 and other.value <= d.value


def test_identical_dual_violation_detects_an_infeasible_solution():
    d = identical_dual(10, 1, 3, 10)
    # same mu, but a larger lam breaks the constraints by exactly 1
    lam_too_big = type("D", (), {"o": d.o, "T": d.T, "v": d.v, "lam": d.lam + 1, "mu": d.mu})()
    assert identical_dual_violation(lam_too_big) == 1
    with pytest.raises(ValueError, match="T >= o"):
        identical_dual(10, 1, 3, 10, T=2)
    with pytest.raises(ValueError, match="exceeds the memory"):
        identical_dual(10, 3, 8, 10)


def test_identical_dual_below_certified_opt_and_mcsf_completions():
    for M in range(4, 11):
        for s in (1, 2):
            for o in range(1, M - s + 1):
                for n in (1, 2, 4, 5):
                    inst = Instance.at_zero([s] * n, [o] * n, M)
                    res = simulate(inst, make_policy("mc-sf"))
                    opt = brute_force_opt(inst, upper=res.tel)[0]
                    d = identical_dual(n, s, o, M).value
                    assert d <= opt
                    if n in (2, 5):
                        assert float(d) - 1e-6 <= identical_time_indexed_lp(n, s, o, M) <= opt + 1e-6
                    comp = np.sort(np.asarray(res.schedule.starts) + o)
                    assert np.all(comp <= identical_completion_bound(n, s, o, M))
                    assert identical_completion_bound(n, s, o, M).sum() == identical_batch_tel(n, s, o, M)


def test_lemma_b2_ours_ratio_at_most_4_when_rho_at_most_3():
    s = np.arange(1, 13)[:, None, None]
    o = np.arange(1, 40)[None, :, None]
    for mult in (2, 3, 5):
        M = mult * (s + o) + np.array([0, 1, 5])[None, None, :] % (s + o)
        for n in (1, 3, 10, 37, 200):
            b, D, rho = identical_ratio_table(s, o, M, n)
            assert np.all(rho < 3) and np.all(b <= 4 * D + 1e-9)
    assert identical_rho(1, 3, 10) == Fraction(3 * 10, 2 * 9)


def test_batch_route_exceeds_4_with_one_request_per_batch_but_mcsf_does_not():
    # k = 1, M = 2(s + o) - 1: the batch upper bound is above 4 x dual; MC-SF staggers and stays far below
    s, o, M, n = 1, 3000, 6001, 32
    b, D, rho = identical_ratio_table(s, o, M, n)
    assert b[()] > 4 * D[()] and rho[()] > 3
    s, o, M, n = 1, 40, 81, 32
    tel = simulate(Instance.at_zero([s] * n, [o] * n, M), make_policy("mc-sf")).tel
    assert tel <= 4 * identical_dual(n, s, o, M).value


def test_lemma_b1_ours_symbolic_induction_step():
    n, s, o, t, T, tau, M = sp.symbols("n s o t T tau M", positive=True)
    v = s * o + o * (o + 1) / 2
    L = lambda x: T - v * sp.summation(1 / v, (tau, x, T - 1))  # lam = T, mu = 1/v on [o, T-1]
    assert sp.simplify(L(o) - o) == 0
    assert sp.simplify(L(t + 1) - (L(t) + 1)) == 0  # the step reduces to t + 1
    D = n * T - M * sp.summation(tau / v, (tau, o, T - 1))
    assert sp.simplify(D - (n * T - M * (T * (T - 1) - o * (o - 1)) / (2 * v))) == 0


def test_ratio_table_matches_exact_dual_at_large_sizes():
    # M T^2 exceeds int64 here; the table must still agree with the exact rational dual value
    for s, o, M, n in ((100, 10000, 40 * 10100, 4 * 40 * 10100), (1, 3000, 6001, 32), (30, 2999, 121170, 484680)):
        b, D, rho = identical_ratio_table(s, o, M, n)
        assert D[()] == pytest.approx(float(identical_dual(n, s, o, M).value), rel=1e-12)
        assert b[()] == identical_batch_tel(n, s, o, M)
        assert rho[()] == pytest.approx(float(identical_rho(s, o, M)), rel=1e-12)


def test_bruteforce_size_guard_and_force(monkeypatch):
    """Twelve distinct requests ran past 60 s with no guard (#50): more than BRUTE_FORCE_MAX_ORDERS placement
    orders is a named error before any search, unless force=True; many interchangeable requests stay allowed."""
    from kvlib.core.errors import ParameterError
    from kvlib.optimum import bruteforce

    twelve = Instance.at_zero([1] * 12, list(range(1, 13)), 20)
    with pytest.raises(ParameterError, match=r"n = 12 requests have 479,001,600 placement orders .*more than "
                       r"BRUTE_FORCE_MAX_ORDERS = 3,628,800 .*force=True"):
        brute_force_opt(twelve)
    assert bruteforce.placement_orders(Instance.at_zero([1] * 12, [2] * 6 + [3] * 6, 20)) == 924
    assert brute_force_opt(Instance.at_zero([1] * 12, [2] * 12, 10))[0] > 0  # one kind: one order, allowed
    monkeypatch.setattr(bruteforce, "BRUTE_FORCE_MAX_ORDERS", 2)
    inst = Instance.at_zero([1] * 4, [1, 1, 3, 3], 5)  # 4! / (2! 2!) = 6 orders
    with pytest.raises(ParameterError, match="n = 4 requests have 6 placement orders"):
        brute_force_opt(inst)
    assert brute_force_opt(inst, force=True)[0] == 12
    assert brute_force_opt(inst, upper=12, force=True)[0] == 12  # the repeated search without cut-off keeps force
