"""001 Theorem 4.3 with the paper's objects (kvlib.theory.thm43_paper): hand-checked cases, a seeded
random family with exact optima, Appendix B.3 on a grid, and the SymPy algebra."""

from fractions import Fraction

import numpy as np
import pytest

from kvlib.core.model import Instance
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.theory import thm43_paper as T


def test_groups_are_the_papers():
    """U_l = {2^l <= o <= 2^(l+1) - 1}: o = 1 -> 0, 2..3 -> 1, 4..7 -> 2, 8 -> 3."""
    assert [T.group_index(o) for o in (1, 2, 3, 4, 7, 8, 15, 16)] == [0, 1, 1, 2, 2, 3, 3, 4]
    assert T.group_bounds(0) == (1, 1) and T.group_bounds(2) == (4, 7)
    with pytest.raises(ValueError, match="output length"):
        T.group_index(0)


def test_setting_errors_name_the_culprit():
    with pytest.raises(ValueError, match="equal prompt sizes: request 1"):
        T.check_setting(Instance.at_zero([1, 2], [1, 1], 10))
    with pytest.raises(ValueError, match="M >= 2 max"):
        T.check_setting(Instance.at_zero([1, 1], [1, 3], 7))
    with pytest.raises(ValueError, match="arrivals at 0: request 1"):
        T.check_setting(Instance.from_arrays([0, 2], [1, 1], [1, 1], 10))
    with pytest.raises(ValueError, match="o must be a positive integer"):
        T.b3_dual_solution(3, 1, 0, 10)
    with pytest.raises(ValueError, match="M >= 2"):
        T.b3_inequalities(3, 1, 2, 5)


def test_chain_hand_instance():
    """n = 2, s = 1, o = (1, 2), M = 6.  MC-SF starts both at 0 (memory 2 + 2 at t = 1, 3 at t = 2): TEL 3 = OPT.

    vol_1 = 2, vol_2 = 5, vol_3 = 9 (o_hi of U_1).  X = 1*2 + 1*(2 + 5) = 9, Y = 3, S = 2 + 5 = 7.
    Lemma 4.5: U_0 spans t = 1..1, bound 192/6*2 + 5 = 69; U_1 spans 1..2 (span 1), bound 192/6*5 + 15 = 175.
    Lemma 4.4: t_0 = t_1 = 0, t_2 = 2 (makespan); latency bounds 0 + 1 = 1 (tight) and 2 + 3 = 5;
    sum |U_l|(t_(l+1) + o_hi) = 6.  A = 1*1*2 + 1*(2 + 9) = 13, B = 1*1 + 1*(1 + 3) = 5, display (8):
    32*13 + 6*5 = 446; with the dropped term sum |U_l| o_hi = 1 + 3: 450.  Lemma 4.4: 256*9 + 72 = 2376.
    LP (9) by the paper's fill: t = 1 takes o = 1 (vol 2) and 4/5 of o = 2, t = 2 the last 1/5:
    value 1 + 4/5 + 2/5 = 11/5; t*_1 = t*_2 = 1, last time 2.  Claim 4.8: 1 >= 2/6 and 2 >= 7/6.
    (10): sum n_o (1/M) sum_{o'<o} = 2/6 = (X - S)/M.  (11): 3 >= 7/24.  (12): 18 >= 9/6 + 3.
    """
    inst = Instance.at_zero([1, 1], [1, 2], 6)
    assert list(T.mcsf_schedule(inst)) == [0, 0]
    assert T.xy_terms(inst) == (9, 3, 7)
    g = T.lemma45_objects(inst, [0, 0])
    assert [(G["l"], G["t_lo"], G["t_hi"], G["rhs"]) for G in g] == [(0, 1, 1, 69), (1, 1, 2, 175)]
    L = T.lemma44_objects(inst, [0, 0])
    assert L["t"] == [0, 0, 2] and (L["A"], L["B"]) == (13, 5)
    value, a = T.lp9_greedy_exact(inst)
    assert value == Fraction(11, 5) and a[2] == {1: Fraction(4, 5), 2: Fraction(1, 5)}
    lp = T.lp9_highs(inst)
    assert lp["value"] == pytest.approx(2.2) and lp["t_star"] == [1, 1] and lp["t_star_last"] == 2
    r = T.chain_inequalities(inst, opt=3)
    assert r["mcsf"] == 3
    assert (r["L45.lhs"], r["L45.rhs"]) == (0, 69)        # the tighter of the two groups
    assert (r["L44.latency.lhs"], r["L44.latency.rhs"]) == (1, 1)
    assert (r["L44.sum.lhs"], r["L44.sum.rhs"]) == (3, 6)
    assert (r["eq8.rhs"], r["eq8.corrected.rhs"]) == (446, 450)
    assert r["L44.rhs"] == 2376
    assert (r["C48.lhs"], r["C48.rhs"]) == (1, pytest.approx(1 / 3))
    assert r["eq10.rhs"] == pytest.approx(1 / 3) and r["eq10.identity.holds"]
    assert r["eq11.rhs"] == pytest.approx(7 / 24) and r["eq12.rhs"] == pytest.approx(4.5)
    assert all(r[f"{k}.holds"] for k in T.UNCONDITIONAL_STEPS)


def test_claim46_on_a_long_group():
    """Nine requests o = 4 (one group, o_lo = 4, o_hi = 7), s = 1, M = 10: MC-SF runs two at a time
    (2 * 5 = 10), so starts 0,0,4,4,8,8,12,12,16; U_2 is processed at t = 1..20 (span 19), w = 3
    intervals [1,7], [8,14], [15,20]; the last is short, so Claim 4.6 has no full triple.  Peaks:
    10, 10 (> M - (s + 7) = 2).  vol_l of all = 9 * vol_4 = 9 * 14 = 126 <= 9 * vol_7 = 9 * 35.
    Lemma 4.5's bound: 192/10 * 126 + 35 = 2454.2."""
    inst = Instance.at_zero([1] * 9, [4] * 9, 10)
    p = T.mcsf_schedule(inst)
    assert list(p) == [0, 0, 4, 4, 8, 8, 12, 12, 16]
    (G,) = T.lemma45_objects(inst, p)
    assert (G["t_lo"], G["t_hi"], G["w"]) == (1, 20, 3)
    assert G["intervals"] == [(1, 7), (8, 14), (15, 20)] and G["peaks"][:2] == [10, 10]
    assert G["vol_total"] == 126 and G["rhs"] == Fraction(192 * 126, 10) + 35 and G["triples"] == []
    r = T.chain_inequalities(inst)
    assert r["L45.peak_full.holds"] and r["L45.peak_full.cases"] == 2 and r["C46.cases"] == 0


@pytest.mark.parametrize("seed", range(16))
def test_random_family_every_claimed_step_holds(seed):
    """Seeded instances (n <= 7, exact OPT by brute force): every inequality the paper asserts holds,
    and so do display (8) as printed and the two unproved sentences of Lemma 4.5 / Claim 4.6."""
    row = T.chain_row(seed, n_max=7)
    assert row["all_hold"], {k: row[k] for k in row if k.endswith(".holds") and not row[k]}
    for k in ("eq8", "L45.peak_full", "C46", "C46.proof", "C46.only_group"):
        assert row[f"{k}.holds"], k
    assert row["ratio"] <= T.THEOREM43_CONSTANT


def test_row_functions_are_deterministic():
    """Row functions for the results store: same keywords, same flat dict of scalars."""
    a, b = T.chain_row(0, n_max=5), T.chain_row(0, n_max=5)
    assert a == b and all(np.isscalar(v) for v in a.values())
    assert T.b3_row(4, 1, 2, 6) == T.b3_row(4, 1, 2, 6)


def test_eq8_drops_a_term():
    """Display (8) is the latency bound sum |U_l| (t_(l+1) + o_hi_l) after telescoping, minus the term
    sum |U_l| o_hi_l: on the hand instance that term is 1 + 3 = 4 (446 printed, 450 derived)."""
    r = T.chain_inequalities(Instance.at_zero([1, 1], [1, 2], 6))
    assert r["eq8.corrected.rhs"] - r["eq8.rhs"] == 4
    assert T.C44_Y_CORRECTED == 28 and T.THEOREM43_CONSTANT == 9216


def test_b3_hand_instance_errata_example():
    """n = 10, s = o = 1, M = 4 (the errata's example): m = 2, k = 5, p = 0, batch TEL 2*1*15 = 30 = MC-SF.
    beta = 4, alpha term 0, ybar = 4*1*10/8 = 5, lam1 = 10/4 = 5/2, d = 1/2: lam = 5/2, 2, 3/2, 1, 1/2,
    sum 15/2.  Dual objective 10 + 50 - 4 * 15/2 = 30 = OPT; display 10 + 50 - 4 (5/2)(5)/2 = 35 > OPT.
    Staircase excess 15/2 - 25/4 = 5/4 = (d/2)(K - (K - x)^2) with x = K = 5.
    Lemma B.2: 56.25 / 35 (paper) and 56.25 / 30 = 1.875 (exact dual)."""
    D = T.b3_dual_solution(10, 1, 1, 4)
    assert (D["ybar"], D["lam1"], D["d"]) == (5, Fraction(5, 2), Fraction(1, 2))
    assert D["lam"] == [Fraction(5, 2), 2, Fraction(3, 2), 1, Fraction(1, 2)]
    assert T.b3_dual_objective(10, 1, 1, 4) == 30 and T.b3_display_b2(10, 1, 1, 4) == 35
    assert T.staircase_excess(D["lam1"], D["d"]) == Fraction(5, 4)
    assert T.b3_batch_tel(10, 1, 1, 4) == 30 and T.b3_ub(10, 1, 1, 4) == Fraction(225, 4)
    r = T.b3_row(10, 1, 1, 4, exact_opt=True)
    assert r["opt"] == 30 and r["mcsf"] == 30
    assert not r["B2.display.holds"] and not r["B2.display_le_opt.holds"]
    assert r["B2.lhs"] == pytest.approx(225 / 4 / 35) and r["B2.corrected.lhs"] == pytest.approx(1.875)
    assert r["B3.weak.rhs"] == pytest.approx(30) and r["B1.holds"] and r["B1.step.holds"]
    assert r["B1.step_termwise_fail"] > 0


def test_b3_smallest_display_counterexample():
    """The smallest instance (n > m, M >= 2(s + o)) on which the display before Lemma B.2 exceeds OPT:
    n = 3, s = o = 1, M = 4.  ybar = 4*3/8 = 3/2, lam1 = 3/4, d = 1/2, lam = 3/4, 1/4.  Dual objective
    3 + 9/2 - 4 = 7/2 <= OPT = 4 (MC-SF: 1 + 1 + 2); display 3 + 9/2 - 4 (9/16) = 21/4 > 4."""
    assert T.b3_dual_objective(3, 1, 1, 4) == Fraction(7, 2)
    assert T.b3_display_b2(3, 1, 1, 4) == Fraction(21, 4)
    r = T.b3_row(3, 1, 1, 4, exact_opt=True)
    assert r["opt"] == 4 and r["B3.dual_le_opt.holds"] and not r["B2.display_le_opt.holds"]
    smaller = [(n, s, o, M) for M in range(4, 5) for s in (1,) for o in (1,) for n in range(1, 3)]
    for n, s, o, M in smaller:  # n <= m = 2: outside B.3's w.l.o.g. case
        assert n <= M // (s + o)


def test_b3_o2_hand_instance():
    """n = 3, s = 1, o = 2, M = 6: m = 2, k = 1, p = 1, batch 2*2*1 + 1*2*2 = 8 = MC-SF (2, 2, 4).
    beta = 5, alpha term 1*9/15 = 3/5, ybar = 30/12 - 3/5 = 19/10, lam1 = (19/5 + 6/5)/10 = 1/2,
    d = 1/5: lam = 1/2, 3/10, 1/10 (sum 9/10).  Dual 6 + 57/10 - 54/10 = 63/10; display
    6 + 57/10 - 6 (1/4)/(2/5) = 159/20."""
    D = T.b3_dual_solution(3, 1, 2, 6)
    assert (D["ybar"], D["lam1"], D["d"]) == (Fraction(19, 10), Fraction(1, 2), Fraction(1, 5))
    assert D["lam"] == [Fraction(1, 2), Fraction(3, 10), Fraction(1, 10)]
    assert T.b3_dual_objective(3, 1, 2, 6) == Fraction(63, 10)
    assert T.b3_display_b2(3, 1, 2, 6) == Fraction(159, 20)
    r = T.b3_row(3, 1, 2, 6, exact_opt=True)
    assert r["mcsf"] == 8 and r["B1.holds"] and r["T43.identical.holds"]
    assert T.b3_primal_lp(3, 1, 2, 6, per_request=True) == pytest.approx(T.b3_primal_lp(3, 1, 2, 6))


def test_b3_grid():
    """All n > m, M <= 12, s <= 2, n <= 8: every step of B.3 holds except the display before Lemma B.2,
    which fails on every case; Lemma B.2 with the exact dual objective still gives ratio <= 4."""
    cases = 0
    for M in range(4, 13):
        for s in (1, 2):
            for o in range(1, M // 2 - s + 1):
                m = M // (s + o)
                for n in range(m + 1, 9):
                    r = T.b3_inequalities(n, s, o, M)
                    cases += 1
                    bad = [k for k in r if k.endswith(".holds") and not r[k]]
                    assert bad == ["B2.display.holds"], (n, s, o, M, bad)
                    assert r["B3.chain.equalities_hold"]
                    assert r["B2.corrected.lhs"] <= 4 and r["B2.lhs"] <= 4
                    assert T.staircase_excess(*(lambda D: (D["lam1"], D["d"]))(T.b3_dual_solution(n, s, o, M))) > 0
    assert cases > 50


@pytest.mark.parametrize("n,s,o,M", [(3, 1, 1, 4), (5, 1, 1, 6), (4, 1, 2, 6), (5, 2, 1, 6), (3, 1, 3, 8)])
def test_b3_against_brute_force(n, s, o, M):
    """Dual objective <= OPT-Primal <= OPT, and MC-SF <= 4 OPT, with OPT by brute force."""
    r = T.b3_row(n, s, o, M, exact_opt=True)
    assert r["B3.weak.holds"] and r["B3.primal.holds"] and r["B3.dual_le_opt.holds"] and r["T43.identical.holds"]


def test_sympy_algebra():
    r = T.sympy_checks()
    printed_false = {k for k in r if k.endswith("_as_printed")}
    assert printed_false == {"b2_case1_equality_as_printed"}
    assert not r["b2_case1_equality_as_printed"]
    assert all(v for k, v in r.items() if k not in printed_false), [k for k, v in r.items() if not v]
