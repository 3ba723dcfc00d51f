"""The 003 experiment helpers of kvlib.theory.cyz_experiments and the Figure 1 / Figure 3 numerics of
kvlib.theory.rayleigh used by the A_min chapter."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from kvlib.policies.cyz import interval_instance
from kvlib.theory import cyz_experiments as cx
from kvlib.theory import rayleigh as ry


def test_checked_tel_example_1_by_hand():
    # 003 Section 3.2, Example 1: n = 5, s = 1, o = 1, interval [1, 4], M = 10.
    # H-SF starts all five (each holds 2 tokens): TEL 5.  A_max reserves s + u = 5 tokens per
    # request, so two run per round: latencies 1, 1, 2, 2, 3 -> 9.  A_min starts from l = 1: 5.
    ex1 = interval_instance([1] * 5, 10, 1)
    assert [cx.checked_tel(ex1, p, 1, 4, 0) for p in ("h-sf", "a-max", "a-min")] == [5, 9, 5]


def test_theorem2_table_hsf_closed_form_and_limits():
    t = cx.theorem2_table([4, 9], [1], reps=1, seed=0)
    assert list(t.alpha) == pytest.approx([0.25, 1 / 9])
    for _, r in t.iterrows():
        l, u = int(r.l), int(r.u)
        a = 4
        b = int(round(a * np.sqrt(u // l)))
        assert r.hsf == ry.thm2_hsf_tel(l, u, a, b)
        assert r.N_l == a * u and r.N_u == b * l and r.M == l * u
        assert r.ratio_ours == pytest.approx(r.amax / r.hsf)
    assert t.paper_formula.iloc[0] == pytest.approx(6.0)
    assert t.batch_limit.iloc[0] == pytest.approx(ry.thm2_batch_ratio_limit(0.25))


def test_theorem1_worst_ratio_within_bound():
    alphas = [1 / 2, 1 / 4]
    worst = cx.theorem1_worst_ratios(alphas, reps=1, seed=0, l=3, n=20)
    assert len(worst) == 2
    for w, a in zip(worst, alphas):
        assert 1.0 <= w <= ry.amax_theorem1_bound(a)


def test_single_length_amin_equals_hsf_when_k_divides_M():
    df = cx.single_length_ratios([12], [1, 2, 3, 4], seed=0, load=6)
    assert list(df.k) == [1, 2, 3, 4]
    assert (df.amin_over_hsf == 1.0).all()


def test_run_distribution_reproducible_and_lemma2_of_empirical_distribution():
    sup = np.array([2, 8])
    a = cx.run_distribution(sup, np.array([0.8, 0.2]), 40, 200, 3, seed=1, policies=("a-min", "a-min-progress"))
    b = cx.run_distribution(sup, np.array([0.8, 0.2]), 40, 200, 3, seed=1, policies=("a-min", "a-min-progress"))
    assert a == b
    o = np.random.default_rng([1, 3, 40, 8]).choice(sup, size=200, p=[0.8, 0.2])
    xs = np.array([np.mean(o == k) for k in sup])
    assert a["lemma2"] == pytest.approx(ry.cr_amin(xs, sup))
    assert set(a) == {"hsf_over_fluid", "lemma2", "a-min", "a-min-progress"}
    # one length only: A_min loses nothing against H-SF
    one = cx.run_distribution(np.array([4]), np.array([1.0]), 40, 200, 0, seed=0)
    assert one["a-min"] == 1.0 and one["lemma2"] == pytest.approx(1.0)


def test_two_point_runs_rows_and_seeds():
    df = cx.two_point_runs([1, 2], memory=40, load=4, runs=2, seed=5, policies=("a-min",))
    assert list(zip(df.l, df.u, df.seed)) == [(1, 4, 5), (1, 4, 6), (2, 8, 5), (2, 8, 6)]
    assert (df["a-min"] > 0).all()


def test_measured_cross_terms_diagonal_and_deviations():
    meas, pure = cx.measured_cross_terms(2, 4, 40, 160, 1, 0)
    assert list(zip(meas.i, meas.j)) == [(1, 2)]
    assert set(pure) == {(p, k) for p in ("a-min", "h-sf") for k in (1, 2)}
    r = meas.iloc[0]
    assert r.A_corollary1 == pytest.approx(float(ry.a_entry(1, 2)))
    assert r.B == 0.5
    assert r.hsf_rel_dev == pytest.approx(r.hsf_measured / r.B - 1)
    # one length, one policy: the pure runs equal each other (A_min = H-SF on a single length)
    assert pure[("a-min", 1)] == pytest.approx(pure[("h-sf", 1)])


def test_lemma2_runs_summary():
    dists = {"two-point": (np.array([4, 16]), np.array([0.8, 0.2]))}
    runs, summ = cx.lemma2_runs(dists, [40], load=4, runs=2, seed=0)
    assert len(runs) == 2 and len(summ) == 1
    s = summ.iloc[0]
    assert s.ratio_min == runs["a-min"].min() and s.ratio_max == runs["a-min"].max()
    assert s.rel_dev_max == pytest.approx(s.ratio_max / s.lemma2 - 1)


def test_two_point_sweep_worst_and_theorem7():
    runs, worst = cx.two_point_sweep([20], [10], 5, (0.5,), ("a-min",), reps=1, seed=0, load=4)
    assert len(runs) == 1
    assert worst.loc[(20, 0.5), "a-min"] == runs.ratio.max()
    assert worst.loc[(20, 0.5), "theorem7"] == pytest.approx(1 + 2 * 0.5**2)  # both branches: 1.5


def test_geometric_runs_and_decision_times_use_the_given_rng():
    g1 = cx.geometric_runs((0.5,), 4, 40, 120, 2, np.random.default_rng(0), 0)
    g2 = cx.geometric_runs((0.5,), 4, 40, 120, 2, np.random.default_rng(0), 0)
    assert g1.equals(g2) and list(g1.columns) == ["q", "M", "n", "amin_over_hsf", "lemma2"]
    t = cx.decision_times([20], np.random.default_rng(0), 0)
    assert list(t.M) == [20] and t.rounds.iloc[0] > 0 and t.mean_us.iloc[0] > 0


def test_lambda_max_lanczos_matches_dense():
    lv_dense, v_dense = ry.lambda_max(320, dense_max=400)
    lv_lanczos, v_lanczos = ry.lambda_max(320, dense_max=300)
    assert lv_lanczos == pytest.approx(lv_dense, rel=1e-9)
    assert np.allclose(v_lanczos / np.abs(v_lanczos).max(), v_dense / np.abs(v_dense).max(), atol=1e-6)
    lam, vmin = ry.lambda_max_curve([1, 2])
    assert lam[0] == pytest.approx(1.0) and len(vmin) == 2
    with pytest.raises(ValueError, match="u must be"):
        ry.lambda_max(0)


def test_geometric_truncated_matches_closed_form():
    _, _, R = ry.geometric_forms_sym()
    q = sorted(R.free_symbols, key=str)[0]
    for qq in (0.2, 0.5, 0.9):
        assert ry.geometric_ratio_truncated(qq) == pytest.approx(float(R.subs(q, qq)), rel=1e-9)
    with pytest.raises(ValueError, match="q must lie"):
        ry.geometric_ratio_truncated(1.0)


def test_exponential_pair_expectation():
    # min of two Exp(1) is Exp(2): E min^2 = 1/2
    assert ry.exponential_pair_expectation(lambda m, M: m**2) == sp.Rational(1, 2)
    # min * max = X Y, E XY = 1
    assert sp.simplify(ry.exponential_pair_expectation(lambda m, M: m * M)) == 1
    lim = sp.simplify(ry.exponential_pair_expectation(lambda m, M: m * M / 4 + m**2 / 2 - m**3 / (4 * M))
                      / ry.exponential_pair_expectation(lambda m, M: m**2 / 2))
    assert sp.simplify(lim - (10 - 12 * sp.log(2))) == 0


# --------------------------------------------------------------------------- store rows (results store)


def _frame(row, keys):
    import pandas as pd
    return pd.DataFrame([dict(k, **row(**k)) for k in keys])


def test_store_rows_are_deterministic_and_flat():
    cases = [
        (cx.theorem2_row, dict(alpha_inv=4, scale=1, rep=0, seed=0)),
        (cx.theorem1_row, dict(l=3, u=9, n=20, n_short=10, rep=1, seed=0)),
        (cx.single_length_row, dict(M=12, k=3, load=6, upper=8, seed=0)),
        (cx.distribution_row, dict(support=[2, 8], probs=[0.8, 0.2], M=40, n=200, run_seed=3, seed=1,
                                   policies=["a-min"])),
        (cx.cross_term_row, dict(i=1, j=2, rep=0, u_max=2, scale=4, M=40, n=160, seed=0)),
        (cx.sweep_row, dict(M=20, u=10, l=5, frac=0.5, load=4, policies=["a-l", "a-min"], rep=0, seed=0)),
        (cx.geometric_row, dict(q=0.5, u=4, scale=2, M=40, n=120, seed=0)),
    ]
    for fn, key in cases:
        a, b = fn(**key), fn(**key)
        assert a == b, fn.__name__
        assert all(np.isscalar(v) for v in a.values()), fn.__name__
    d = cx.decision_time_row(M=20, load=3, max_length=8, seed=0)
    assert d["rounds"] > 0 and d["tel"] == cx.decision_time_row(M=20, load=3, max_length=8, seed=0)["tel"]
    # distribution_row is run_distribution plus the instance fingerprint
    r = cx.distribution_row(support=[2, 8], probs=[0.8, 0.2], M=40, n=200, run_seed=3, seed=1, policies=["a-min"])
    o = np.random.default_rng([1, 3, 40, 8]).choice([2, 8], size=200, p=[0.8, 0.2])
    assert r["instance"] == cx.lengths_hash(o, 40) and r["instance"].startswith("x")
    assert {k: v for k, v in r.items() if k != "instance"} == cx.run_distribution(
        np.array([2, 8]), np.array([0.8, 0.2]), 40, 200, 3, seed=1, policies=("a-min",))
    with pytest.raises(ValueError, match="rep = 0"):
        cx.cross_term_row(i=2, j=2, rep=1, u_max=2, scale=4, M=40, n=160, seed=0)


def test_store_keys_are_seed_major_and_summaries_accept_partial_tables():
    keys = cx.theorem2_keys([4, 9], [1, 2], reps=2, seed=0)
    assert [k["rep"] for k in keys] == [0] * 4 + [1] * 4
    keys = cx.sweep_keys([20], [10, 20], 5, (0.0, 0.5), ("a-min",), reps=2, seed=0, load=4)
    assert len(keys) == 8 and [k["rep"] for k in keys[:4]] == [0] * 4
    rows = _frame(cx.sweep_row, keys[:5])  # a partial table: one seed plus one row of the next
    w = cx.sweep_worst(rows, ["a-min"])
    assert list(w.runs) == [2, 3]  # alpha = 0.25: two rows; alpha = 0.5: three
    assert w.loc[(20, 0.5), "a-min"] == rows[rows.u == 10]["a-min"].max()
    ck = cx.cross_term_keys(2, 4, 40, 160, reps=2, seed=0)
    assert [(k["i"], k["j"], k["rep"]) for k in ck] == [(1, 1, 0), (2, 2, 0), (1, 2, 0), (1, 2, 1)]
    meas, pure = cx.cross_terms_summary(_frame(cx.cross_term_row, ck))
    ref, ref_pure = cx.measured_cross_terms(2, 4, 40, 160, 2, 0)
    assert pure == ref_pure and meas.amin_measured.iloc[0] == ref.amin_measured.iloc[0] and meas.reps.iloc[0] == 2
    # without the pure runs no cross term can be formed
    assert cx.cross_terms_summary(_frame(cx.cross_term_row, ck[2:]))[0].empty
    t1 = cx.theorem1_worst(_frame(cx.theorem1_row, cx.theorem1_keys([1 / 2, 1 / 4], 1, 0, n=20)))
    assert list(t1.u) == [6, 12] and list(t1.runs) == [6, 6]
    lk = cx.lemma2_keys({"a": ([4, 16], [0.8, 0.2]), "b": ([4], [1.0])}, [40], load=4, runs=2, seed=0)
    assert [(k["dist"], k["run_seed"]) for k in lk] == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
    summ = cx.lemma2_summary(_frame(cx.lemma2_row, lk[:3]))
    assert list(summ.runs) == [2, 1]
    tp = cx.two_point_frame(_frame(cx.distribution_row, cx.two_point_keys([1, 2], 40, 4, 2, 5,
                                                                         policies=("a-min",))))
    assert list(zip(tp.l, tp.u, tp.seed)) == [(1, 4, 5), (1, 4, 6), (2, 8, 5), (2, 8, 6)]


def test_bin_lower_ends_algorithm5():
    # 003 Algorithm 5: l_i = max{l_k : l_k <= o_i}; a shared end opens the next bin
    assert cx.bin_lower_ends([1, 2, 3, 4, 7, 8], [1, 2, 4, 8]).tolist() == [1, 2, 2, 4, 4, 4]
    with pytest.raises(ValueError, match="request 1: length 9"):
        cx.bin_lower_ends([1, 9], [1, 2, 4, 8])
    with pytest.raises(ValueError, match="increasing"):
        cx.bin_lower_ends([1], [1, 1])


def test_corollary2_row_bins_help_two_point():
    p = [8 / 9, 0, 0, 0, 0, 0, 0, 1 / 9]
    r = cx.corollary2_row(edges=[1, 2, 4, 8], probs=p, scale=2, M=60, load=5, run_seed=0, seed=0)
    assert r["lambda_max"] == pytest.approx(ry.lambda_max(8)[0])
    assert 0 < r["multi_over_hsf"] <= r["single_over_hsf"]
    with pytest.raises(ValueError, match="probs"):
        cx.corollary2_row(edges=[1, 2], probs=[1.0], scale=2, M=60, load=5, run_seed=0, seed=0)
    with pytest.raises(ValueError, match="start at 1"):
        cx.corollary2_row(edges=[2, 4], probs=[0.5, 0.5, 0], scale=2, M=60, load=5, run_seed=0, seed=0)
