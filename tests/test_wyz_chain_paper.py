"""002 Theorem 3's proof chain with the paper's definitions (kvlib.theory.wyz_chain_paper).

Hand checks (all requests at t = 0; a request started at p completes at p + o, peak s + o):

A. s = (1, 1), o = (1, 1), M = 4.  One Phase-1 batch {0, 1} (peak 2 + 2 = 4, F = 2/4); one group;
   every TEL is 1 + 1 = 2; OPT starts (0, 0): A_1 = {0, 1}, delta_1 = 1, Z_1 = W_1 = {0, 1}.

B. s = (1, 1, 6), o = (5, 5, 1), M = 12 (peaks 6, 6, 7).  Feasible pairs: only {0, 1} (peak 12).
   F: {2} = 1 < {0, 1} = 10/4 < {0} = 5, so X_1 = {2}, then X_2 = {0, 1}.  Group rule at k = 1:
   (1 + 5)/2^2 = 3/2 > 1/1, so X_1 is not terminal; the single group is {X_1, X_2}.
   separate: X_1 at 0 (length 1), X_2 at 1: TEL = 1 + 6 + 6 = 13.  The paper's formula for it:
   sum o = 11 plus o_{1,max} (b_1 - 1) = 1 -> 12 (it charges one request, not n_2 = 2, for the delay).
   group: sum o + 0 = 11 (no later group).

C. (Theorem 8 fails) s = (2, 3, 5), o = (4, 1, 5), M = 12 (peaks 6, 4, 10).  Feasible pairs: only
   {0, 1} (peak 10).  F: {1} = 1 < {0, 1} = 5/4 < {0} = 4 < {2} = 5, so X_1 = {1}; then {0} (4 < 5),
   then {2}.  Group rule: k = 1: (1 + 4)/4 = 5/4 > 1, not terminal; k = 2: (4 + 5)/4 = 9/4 <= 4,
   terminal.  Groups {X_1, X_2}, {X_3}.  TEL(group) = o_{2,max} N_{>2} + sum o = 4 * 1 + 10 = 14;
   align: X_2's average is 4, so TEL(align) = 14.  Sorted-F's Phase 2: r1, r0 at 0; r2 fits first at
   3 (at t = 4: r0 holds 6, r2 holds 6), TEL = 1 + 4 + 8 = 13 = OPT (starts (0, 0, 3)).
   Temporal groups: A_1 = {0, 1}, delta_1 = 4, Z_1 = {0, 1}; A_2 = {2} (runs 3 .. 8), delta_2 = 4,
   Z_2 = {2}.  W_1 = {0, 1} (peak 10 <= 12), obar_1 = 5/2; W_2 = {2}, obar_2 = 5.
   TEL(Optimal_align) = 5/2 * 1 + 10 = 25/2 < 14 = TEL(Sorted-F_align): Theorem 8 is violated.

D. (Theorem 7's last display line) s = (6, 2), o = (4, 5), M = 12 (peaks 10, 7; they never overlap
   enough: r1 can start at 4 at the earliest after r0).  OPT = 4 + 9 = 13, starts (0, 4).
   delta = (4, 5), Z = ({0}, {1}), t_1 = t_2 = 0 (empty sums from j = 2).  The printed final
   expression: sum_g delta_g N_{>g} + sum_i (p_i - t_g) + sum o = 4 + 4 + 9 = 17, not 13; with
   t_g = T_{g-1} (the unscaled cutting time) it is 4 + 0 + 9 = 13.

E. (Theorem 7's step before the last line) s = (4, 6, 3), o = (5, 5, 6), M = 12 (peaks 9, 11, 9: no
   two fit together).  OPT = 5 + 10 + 16 = 31, starts (0, 5, 10); delta = (5, 5, 6), Z_g = {g-th},
   t = (0, 0, 6 delta_2 = 30).  sum_g delta_g N_{>g} = 5*2 + 5*1 = 15; sum (p_i - t_g) = 0 + 5 - 20
   = -15; sum o = 16.  The step claims 6 * 15 + 16 = 106 <= 6 (15 - 15 + 16) = 96: false.  The
   theorem's conclusion still holds here (every W_h is one request: TEL(Optimal_align) = 31 = OPT).

F. (Theorem 8, the smallest counterexample we found: none with n = 2, s, o <= 4, M <= 10; with
   n = 3, s, o <= 4 the least M is 7) s = (1, 1, 1), o = (1, 4, 4), M = 7 (peaks 2, 5, 5; {1, 2} does
   not fit).  F: {0} = 1 < {0, 1} = {0, 2} = 5/4 < {1} = {2} = 4: X_1 = {0}, X_2 = {1}, X_3 = {2}.
   Group rule: k = 1: 5/4 > 1; k = 2: (4 + 4)/4 = 2 <= 4, terminal.  TEL(group) = TEL(align) =
   4 * 1 + 9 = 13.  Optimal schedules (TEL 12): starts (0, 0, 3) and (0, 3, 0); for either,
   delta = (4, 3), Z = ({0, long one started at 0}, {the other}), W_1 = Z_1 (peak 7), obar_1 = 5/2,
   TEL(Optimal_align) = 5/2 + 9 = 23/2 < 13.
"""

from fractions import Fraction

import numpy as np
import pytest

from kvlib.core.model import Instance
from kvlib.theory import wyz_chain_paper as wc

HOLDS = ("thm4_holds", "thm4_starts_dominated", "lemma1_holds", "thm5_terminal_blocked", "lemma2_holds",
         "lemma2_sum_le_4", "ec3_holds", "thm5_holds", "thm5_holds_paper_formula", "thm6_holds",
         "def1_eps_holds", "ineq2_eps_holds", "eq3_eps_holds",
         "thm7_window_holds", "thm7_group_sum_le_3delta", "thm7_identity_with_T_holds",
         "thm7_holds", "thm3_holds")


def test_hand_a_single_batch():
    inst = Instance.at_zero([1, 1], [1, 1], 4)
    tel, p, bl = wc.sf_run(inst)
    assert tel == 2 and [b.tolist() for b in bl] == [[0, 1]]
    r = wc.chain_values(inst)
    for k in ("tel_sf", "tel_separate", "tel_separate_paper", "tel_group", "tel_align", "tel_opt_align", "tel_opt"):
        assert r[k] == 2, k
    oa = wc.optimal_align([1, 1], [1, 1], 4, [0, 0])
    assert oa["deltas"] == [1] and oa["Z"] == [[0, 1]] and oa["W"] == [[0, 1]] and oa["tel"] == 2


def test_hand_b_separate_formula_of_the_paper_undercounts():
    """Erratum: the last line of 002 Theorem 5's display charges o_{l,n_l} (b_m - l) for the delay inside a
    group (one request per later batch); TEL(Sorted-F_separate) charges every request of those batches."""
    inst = Instance.at_zero([1, 1, 6], [5, 5, 1], 12)
    _, _, bl = wc.sf_run(inst)
    assert [b.tolist() for b in bl] == [[2], [0, 1]]
    assert wc.groups(bl, inst.output) == [[0, 1]]
    assert wc.separate_starts(bl, inst.output).tolist() == [1, 1, 0]
    assert wc.separate_tel_paper(bl, inst.output) == 12
    assert wc.group_tel(bl, inst.output) == 11
    r = wc.chain_values(inst)
    assert r["tel_separate"] == 13 and not r["thm5_separate_formula_exact"]
    assert r["thm5_holds"] and r["thm5_ratio"] == pytest.approx(13 / 11)


def test_hand_c_theorem8_counterexample():
    """Erratum: 002 Theorem 8 (TEL(Sorted-F_align) <= TEL(Optimal_align)) fails at n = 3 (hand check C)."""
    inst = Instance.at_zero([2, 3, 5], [4, 1, 5], 12)
    tel, p, bl = wc.sf_run(inst)
    assert tel == 13 and p.tolist() == [0, 0, 3]
    assert [b.tolist() for b in bl] == [[1], [0], [2]]
    assert wc.groups(bl, inst.output) == [[0, 1], [2]]
    assert wc.group_tel(bl, inst.output) == 14 and wc.align_tel(bl, inst.output) == 14
    oa = wc.optimal_align(inst.prompt, inst.output, 12, [0, 0, 3])
    assert oa["deltas"] == [4, 4] and oa["Z"] == [[0, 1], [2]] and oa["W"] == [[0, 1], [2]]
    assert oa["obar"] == [Fraction(5, 2), Fraction(5)] and oa["tel"] == Fraction(25, 2)
    r = wc.chain_values(inst, opt_starts=[0, 0, 3])
    assert r["tel_opt"] == 13 and r["tel_align"] == 14 and r["tel_opt_align"] == 12.5
    assert not r["thm8_holds"] and r["thm8_ratio"] == pytest.approx(28 / 25)
    assert r["thm3_holds"] and all(r[k] for k in HOLDS)  # every other link holds here
    # the brute-force optimum is this schedule, so the default path reproduces it
    assert not wc.chain_values(inst)["thm8_holds"]


def test_hand_f_smallest_theorem8_counterexample_for_every_optimal_schedule():
    """Erratum: 002 Theorem 8 fails at s = (1, 1, 1), o = (1, 4, 4), M = 7 (hand check F), whichever
    optimal schedule Theorem 7's transform starts from (all optimal start vectors enumerated)."""
    import itertools

    from kvlib.core.checker import check_schedule
    from kvlib.core.model import Schedule

    inst = Instance.at_zero([1, 1, 1], [1, 4, 4], 7)
    _, _, bl = wc.sf_run(inst)
    assert [b.tolist() for b in bl] == [[0], [1], [2]] and wc.groups(bl, inst.output) == [[0, 1], [2]]
    assert wc.align_tel(bl, inst.output) == 13
    tels = {}
    for p in itertools.product(*[range(10 - int(x)) for x in inst.output]):
        rep = check_schedule(inst, Schedule(p))
        if rep.valid:
            tels[p] = rep.tel
    best = min(tels.values())
    optimal = sorted(p for p, v in tels.items() if v == best)
    assert best == 12 and optimal == [(0, 0, 3), (0, 3, 0)]
    for p in optimal:
        oa = wc.optimal_align(inst.prompt, inst.output, 7, p)
        assert oa["deltas"] == [4, 3] and oa["tel"] == Fraction(23, 2)
        r = wc.chain_values(inst, opt_starts=p)
        assert not r["thm8_holds"] and r["tel_align"] == 13 and r["tel_opt_align"] == 11.5
    # two copies of every request, M doubled: still violated (26 vs 23); three copies: not with this optimal
    # schedule (35 vs 85/2), but with others (test_002_theorem8_every_optimal_schedule_as_the_instance_grows)
    r2 = wc.chain_values(Instance.at_zero([1] * 6, [1, 1, 4, 4, 4, 4], 14))
    assert (r2["tel_align"], r2["tel_opt_align"], r2["thm8_holds"]) == (26, 23, False)
    r3 = wc.chain_values(Instance.at_zero([1] * 9, [1] * 3 + [4] * 6, 21))
    assert (r3["tel_align"], r3["tel_opt_align"], r3["thm8_holds"]) == (35, 42.5, True)


def test_hand_d_theorem7_final_identity():
    """Erratum: the last equality of 002 Theorem 7's display, with the printed cutting times
    t_g = 6 sum_{j=2}^{g-1} delta_j, is not TEL(Optimal) (17 against 13); with t_g = T_{g-1} it is."""
    inst = Instance.at_zero([6, 2], [4, 5], 12)
    r = wc.chain_values(inst)
    assert r["tel_opt"] == 13
    assert r["thm7_final_expr"] == 17 and not r["thm7_final_identity_holds"]
    assert r["thm7_identity_with_T_holds"] and r["thm7_holds"]


def test_hand_e_theorem7_scaled_step():
    inst = Instance.at_zero([4, 6, 3], [5, 5, 6], 12)
    oa = wc.optimal_align(inst.prompt, inst.output, 12, [0, 5, 10])
    assert oa["deltas"] == [5, 5, 6] and oa["t"] == [0, 0, 30] and oa["tel"] == 31
    r = wc.chain_values(inst, opt_starts=[0, 5, 10])
    assert r["tel_opt"] == 31 and r["thm7_final_expr"] == 16
    assert not r["thm7_last_step_holds"] and r["thm7_holds"] and r["thm7_ratio"] == 1


def test_sympy_identities():
    ids = wc.sympy_identities()
    assert ids.pop("lemma2_middle_line_as_printed_bounds_sum") is False  # the display's middle line (a = 1: 1 > 0)
    assert all(ids.values()), ids


def test_lemma2_middle_line_is_below_the_sum_for_every_group_size():
    """Erratum: 002's display after Lemma 2, middle line 2 (1 - (1/2)^{floor((a-1)/2)}) / (1 - 1/2), is
    below the sum sum_{i=1}^{a} (1/2)^{floor((a-i)/2)} it should bound, for every a (gap 2^{2-k} at
    a = 2k, 2^{-k} at a = 2k + 1, SymPy in sympy_identities); the final bound 4 holds."""
    series = lambda a: sum(Fraction(1, 2 ** ((a - i) // 2)) for i in range(1, a + 1))
    middle = lambda a: 2 * (1 - Fraction(1, 2 ** ((a - 1) // 2))) / Fraction(1, 2)
    assert [(series(a), middle(a)) for a in (1, 2, 3, 4)] == [(1, 0), (2, 0), (Fraction(5, 2), 2), (3, 2)]
    assert all(middle(a) < series(a) < 4 for a in range(1, 60))
    ids = wc.sympy_identities()
    assert ids["lemma2_middle_gap_even"] and ids["lemma2_middle_gap_odd"] and ids["lemma2_middle_gap_matches_series"]


def test_spread_family_has_long_groups_and_lemma2_holds():
    """Lemma 2 has content only for groups of three or more batches; the spread family has them."""
    rows = [wc.sorted_f_side(wc.spread_instance(seed=0, trial=t)) for t in range(20)]
    assert sum(r["group_size_max"] >= 3 for r in rows) >= 10
    for r in rows:
        assert r["lemma2_holds"] and r["ec3_holds"] and r["lemma2_sum_le_4"]
        assert r["lemma2_worst"] != r["lemma2_worst"] or r["lemma2_worst"] <= 1  # NaN: no group of 3
        assert r["def1_eps_holds"] and r["ineq2_eps_holds"] and r["thm5_terminal_blocked"]
        assert r["thm4_holds"] and r["thm5_holds"] and r["thm6_holds"]


def test_finite_epsilon_and_definition1_hand_b():
    """Hand check B: eps = max(s + o) = 7; the only group has no successor, so Definition 1 and (2) are
    vacuous (NaN fills); sorted_f_side agrees with chain_values on every shared key."""
    inst = Instance.at_zero([1, 1, 6], [5, 5, 1], 12)
    assert wc.finite_epsilon(inst.prompt, inst.output) == 7
    side = wc.sorted_f_side(inst)
    full = wc.chain_values(inst)
    assert side["def1_eps_holds"] and side["def1_terminal_fill_min"] != side["def1_terminal_fill_min"]
    assert all(full[k] == v or (v != v and full[k] != full[k]) for k, v in side.items())


def test_paper_chain_ec1_row():
    from kvlib.book.chapters.sortedf.rows import paper_chain_ec1_row

    r = paper_chain_ec1_row(seed=0, trial=0, distribution="Uniform")
    assert r["n"] == 100 and r["M"] == 100 and r["eps"] <= 100
    assert all(r[k] for k in ("thm4_holds", "thm5_holds", "thm6_holds", "lemma1_holds", "lemma2_holds", "ec3_holds",
                              "thm5_terminal_blocked", "def1_eps_holds", "ineq2_eps_holds"))
    again = paper_chain_ec1_row(seed=0, trial=0, distribution="Uniform")
    assert all(again[k] == v or (v != v and again[k] != again[k]) for k, v in r.items())  # deterministic
    with pytest.raises(ValueError, match="unknown distribution"):
        paper_chain_ec1_row(seed=0, trial=0, distribution="Gamma")


def test_random_family_every_link_but_theorem8():
    """Seeded family, exact optimum by branch and bound: every claimed link except Theorem 8 holds."""
    fails8, rows = 0, 0
    for n in (2, 3, 4, 5):
        for M in (12, 16):
            for trial in range(12):
                r = wc.chain_row(seed=7, trial=trial, n=n, memory=M)
                rows += 1
                bad = [k for k in HOLDS if not r[k]]
                assert not bad, (n, M, trial, r["s"], r["o"], bad)
                assert r["thm4_ratio"] <= 1 and r["thm5_ratio"] < 4 and r["thm6_ratio"] < 2 and r["thm7_ratio"] <= 6
                fails8 += not r["thm8_holds"]
    assert rows == 96 and fails8 >= 1  # Theorem 8 fails on part of this family (pinned in hand check C)


def test_row_is_deterministic_and_flat():
    a = wc.chain_row(seed=3, trial=1, n=4, memory=16)
    b = wc.chain_row(seed=3, trial=1, n=4, memory=16)
    assert a.keys() == b.keys()
    assert all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in a)  # NaN (no such batch) equals NaN
    assert all(isinstance(v, (int, float, bool, str, np.integer)) for v in a.values())


def test_bad_input():
    with pytest.raises(ValueError, match="arrives at t = 0"):
        wc.sf_run(Instance.from_arrays([0, 1], [1, 1], [1, 1], 4))
    with pytest.raises(ValueError, match="partition"):
        wc.group_tel([[0]], [1, 1])
    with pytest.raises(ValueError, match="batch 1 is not sorted"):
        wc.group_tel([[1, 0]], [1, 2])
    with pytest.raises(ValueError, match="random_instance"):
        wc.random_instance(seed=0, trial=0, n=3, memory=5)
    with pytest.raises(ValueError, match="opt_starts is not a feasible"):
        wc.chain_values(Instance.at_zero([3, 3], [3, 3], 6), opt_starts=[0, 0])
