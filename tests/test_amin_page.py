"""The Aₘᵢₙ chapter's page modules: kvlib.book.chapters.amin.page (provenance notes with code-literal paths,
readable and narrow tables, the tables and glued values of the page), kvlib.book.chapters.amin.algebra (its
symbolic checks) and kvlib.book.chapters.amin.figures (its figures and the numbers behind them)."""

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kvlib.book.chapters.amin import algebra as aa
from kvlib.book.chapters.amin import figures as af
from kvlib.book.chapters.amin import page as pg
from kvlib.book.chapters.amin.page import as_fraction, joined, readable, rows_note, table, without_constant


def test_rows_note_puts_the_path_in_a_code_literal():
    tab = SimpleNamespace(path="results/amin/ec7_coupling.csv",
                          label="stored full-mode results (results/amin/ec7_coupling.csv): all 40 rows")
    assert rows_note(tab) == "stored full-mode results (`results/amin/ec7_coupling.csv`): all 40 rows"
    live = SimpleNamespace(path="results/amin/x.csv", label="quick mode, 6 rows computed live")
    assert rows_note(live) == "quick mode, 6 rows computed live"


def test_readable_renames_columns_and_policies():
    df = pd.DataFrame({"policy": ["a-min", "a-min-progress", "other"], "lam": [1.0, 2.0, 3.0]})
    out = readable(df, {"lam": "λₘₐₓ"})
    assert list(out.columns) == ["policy", "λₘₐₓ"]
    assert list(out.policy) == ["Aₘᵢₙ", "Aₘᵢₙ (progress reading)", "other"]
    assert list(readable(df, policies={"a-min": "literal"}).policy) == ["literal", "a-min-progress", "other"]


def test_joined_and_as_fraction():
    df = pd.DataFrame({"a": [1, 2], "l": [4.0, 5.0], "u": [16, 10], "z": [0.5, 0.25]})
    out = joined(df, ["l", "u"], "(l, u)", template="({}, {})")
    assert list(out.columns) == ["a", "(l, u)", "z"] and list(out["(l, u)"]) == ["(4,\u00a016)", "(5,\u00a010)"]
    assert list(joined(df, ["a", "u"], "a, u")["a, u"]) == ["1,\u00a016", "2,\u00a010"]
    assert [as_fraction(v) for v in (0.25, 1 / 9, 1.0, 0.5)] == ["1/4", "1/9", "1", "1/2"]


def test_table_adds_padding():
    html = table(pd.DataFrame({"x": [1, 2]})).to_html()
    assert "padding: 0.2em 0.55em" in html


def test_without_constant_and_font_size():
    df = pd.DataFrame({"x": [1, 2], "runs": [3, 3]})
    out, v = without_constant(df, "runs")
    assert list(out.columns) == ["x"] and v == 3
    out, v = without_constant(pd.DataFrame({"runs": [2, 3]}), "runs")
    assert v is None and list(out.columns) == ["runs"]
    assert "font-size: 0.85em" in table(df, font_size="0.85em").to_html()


# --------------------------------------------------------------------------- tables and glued values


def _html(styler) -> str:
    return styler.to_html()


def test_seeds_text():
    assert pg.seeds_text(3, "runs") == "3 seeds" and pg.seeds_text(1, "runs") == "1 seed"
    assert pg.seeds_text(None, "runs") == "the seeds of column “runs”"
    assert pg.seeds_text(0, "seeds") == "the seeds of column “seeds”"


def test_theorem2_tables_state_a_constant_seed_count_in_the_caption():
    from kvlib.theory import cyz_experiments as cx

    keys = cx.theorem2_keys([4, 9], [1], reps=1, seed=0)
    thm2 = cx.theorem2_summary(pd.DataFrame([dict(k, **cx.theorem2_row(**k)) for k in keys]))
    out = pg.theorem2_tables(thm2)
    assert out["thm2_seeds_s"] == "1 seed"
    inst = _html(out["amin-tab-thm2-inst"])
    assert "(l, u)" in inst and ">1/4<" in inst and ">1/9<" in inst and "seeds" not in inst
    assert "(2,\u00a08)" in inst  # l = 2, u = l / alpha at scale 1
    ratio = _html(out["amin-tab-thm2-ratio"])
    assert "batch Aₘₐₓ / H-SF (closed)" in ratio and "batch limit" in ratio and "(l, u)" not in ratio
    # unequal seed counts keep the column and point the caption at it
    two = thm2.copy()
    two.loc[two.index[0], "reps"] = 2
    out2 = pg.theorem2_tables(two)
    assert out2["thm2_seeds_s"] == "the seeds of column “seeds”" and "seeds" in _html(out2["amin-tab-thm2-inst"])


def _ec7(quotient=Fraction(9, 4), e_m=Fraction(8), e_small=Fraction(18)):
    return {"o": (2, 2, 2, 4), "s": 2, "M": 12, "small_M": 6, "E_tel_M": e_m, "E_tel_small": e_small,
            "quotient": quotient, "bound": 2, "holds": False}


def _readings(skip_q=Fraction(9, 4), eq3_q=Fraction(5, 2), holds=False, meeting=24):
    r = {("stop", "engine"): {"E_tel_M": Fraction(8), "E_tel_small": Fraction(18), "quotient": Fraction(9, 4)},
         ("skip", "engine"): {"quotient": skip_q},
         ("stop", "eq3"): {"E_tel_M": Fraction(10), "E_tel_small": Fraction(25), "quotient": eq3_q},
         ("skip", "eq3"): {"quotient": Fraction(5, 2)}}
    for v in r.values():
        v.update(holds=holds, pairs_meeting_definitions=meeting)
    return {"readings": r, "perms": 24}


def test_ec7_facts_compare_the_readings():
    f = pg.ec7_facts(_ec7(), _readings())
    assert f["ec7_quot"] == "9/4" and f["ec7_E_M"] == "8" and f["ec7_E_small"] == "18"
    assert f["ec7_skip_same"] == "True" and f["ec7_eq3_skip_same"] == "True" and f["ec7_defs_ok"] == "True"
    assert (f["ec7_eq3_M"], f["ec7_eq3_small"], f["ec7_eq3_quot"]) == ("10", "25", "5/2")
    g = pg.ec7_facts(_ec7(), _readings(skip_q=Fraction(2), eq3_q=Fraction(3), meeting=23))
    assert g["ec7_skip_same"] == "False" and g["ec7_eq3_skip_same"] == "False" and g["ec7_defs_ok"] == "False"
    with pytest.raises(ValueError, match="disagree"):
        pg.ec7_facts(_ec7(e_m=Fraction(9)), _readings())
    with pytest.raises(ValueError, match="holds"):
        pg.ec7_facts(_ec7(), _readings(holds=True))


def test_ec1_table_one_row_per_quantity():
    prop = {"o": (1, 1, 2), "s": 1, "M": 6, "beta": Fraction(1, 2), "tel_M": 7, "tel_betaM": 16, "packed": True,
            "same_order": True, "feasible": True, "holds": False}
    tab = pg.ec1_table(prop, _ec7())
    assert list(tab.columns) == ["quantity", "Proposition EC.1 (two schedules)", "eq. (EC.7) (A-random, all orders)"]
    rows = dict(zip(tab.quantity, zip(tab.iloc[:, 1], tab.iloc[:, 2])))
    assert rows["βM"] == ("3", "6") and rows["TEL under βM"] == ("16", "18") and rows["quotient"] == ("16/7", "9/4")
    assert rows["1/β"] == ("2", "2") and "beta M" not in rows


def test_coupling_table_and_facts_sum_over_rows():
    cpl = pd.DataFrame({"n": [8, 12], "M": [12, 20], "small_M": [6, 10], "instances": [2, 3], "pairs": [40, 60],
                        "violating": [1, 4], "violating_with_hypotheses": [0, 2], "instances_violating_mean": [0, 1],
                        "largest_pair_quotient": [2.5, 2.2], "largest_mean_quotient": [1.9, 2.1], "inv_beta": [2, 2]})
    tab = pg.coupling_table(cpl)
    nbsp = "\u00a0"
    assert list(tab.columns)[0] == "n; M → βM"
    assert list(tab.iloc[:, 0]) == [f"8;{nbsp}12{nbsp}→{nbsp}6", f"12;{nbsp}20{nbsp}→{nbsp}10"]
    assert "1/β" not in tab.columns and "pairs > 1/β" in tab.columns
    f = pg.coupling_facts(cpl, 20)
    assert f == {"cpl_perms_n": 20, "cpl_pairs": 100, "cpl_viol": 5, "cpl_viol_hyp": 2, "cpl_inst": 5,
                 "cpl_inst_mean": 1, "cpl_max_mean": 2.1}


def test_lemma_ec1_table_and_failures():
    lec1 = pd.DataFrame({"n": [3, 4], "l": [1, 1], "u": [3, 2], "s": [1, 1], "M": [12, 6], "alpha_M": [4, 3],
                         "instances": [10, 5], "pairs": [60, 120], "ec8_holds": [10, 4], "tel_worse": [0, 2],
                         "start_later": [1, 0], "max_quotient": [Fraction(1), Fraction(7, 8)]})
    f = pg.lemma_ec1_facts(lec1)
    assert f == {"lec1_inst": 15, "lec1_pairs": 180, "lec1_fail": 1 + 2 + 1, "lec1_max": "1"}
    assert pg.lemma_ec1_facts(lec1.assign(ec8_holds=[10, 5], tel_worse=[0, 0], start_later=[0, 0]))["lec1_fail"] == 0
    tab = pg.lemma_ec1_table(lec1)
    assert list(tab.columns[:2]) == ["n, l, u, s", "M → αM"] and list(tab["max quotient"]) == ["1", "7/8"]
    assert list(tab["M → αM"]) == ["12\u00a0→\u00a04", "6\u00a0→\u00a03"]


def test_ec5_facts_as_fractions():
    res = {pol: {"sup_all": Fraction(13, 6), "argmax_all": (1, 2, 3), "sup_ends": Fraction(2), "argmax_ends": (1, 1, 3),
                 "holds": False} for pol in ("a-max", "a-random")}
    f = pg.ec5_facts(res)
    assert f["ec5_amax_all"] == "13/6" and f["ec5_arand_end"] == "2/1"
    assert "sup over {1,2,3}³" in _html(f["amin-tab-ec5"]) and "A-random" in _html(f["amin-tab-ec5"])
    res["a-max"]["holds"] = True
    with pytest.raises(ValueError, match="holds"):
        pg.ec5_facts(res)


def test_ec6_table():
    s = pd.DataFrame({"l": [4, 5], "u": [16, 10], "alpha": [0.25, 0.5], "s": [0, 0], "M": [100, 100],
                      "worst": [1.5, 1.2], "runs": [3, 3], "ec6": [2.5, 1.5], "worst_over_bound": [0.6, 0.8]})
    tab = pg.ec6_table(s)
    assert list(tab["(l, u)"]) == ["(4,\u00a016)", "(5,\u00a010)"] and list(tab["α"]) == ["1/4", "1/2"]
    assert "(1 + 1/α)/2 (paper's)" in tab.columns


def _per_j(runs=(1, 1)):
    return pd.DataFrame({"policy": ["a-min", "a-min-progress"], "scale": [1, 1], "M": [200, 200], "s": [0, 0],
                         "load": [10, 10], "j": [2, 2], "first_share": [0.4, 0.5], "prop1_first": [0.5, 0.5],
                         "frac_inputs": [0.3, 0.4], "frac_requests": [0.4, 0.5], "inputs_per_request": [1.2, 1.1],
                         "runs": list(runs)})


def _per_sum(runs=(1, 1)):
    return pd.DataFrame({"policy": ["a-min", "a-min-progress"], "scale": [1, 1], "M": [200, 200], "s": [0, 0],
                         "evictions": [10.0, 12.5], "lemma1_dev_inputs": [0.1, 0.2], "lemma1_dev_requests": [0.1, 0.2],
                         "prop1_later_dev": [0.3, 0.4], "ratio": [1.2, 1.4], "lemma2": [1.25, 1.25], "runs": list(runs)})


def test_periods_tables_name_the_readings_and_drop_a_constant_seed_count():
    out = pg.periods_tables(_per_j(), _per_sum())
    assert out["per_seeds_s"] == "1 seed" and out["per_rows"] == 2
    first, every = _html(out["amin-tab-periods"]), _html(out["amin-tab-periods-sum"])
    assert ">literal<" in first and ">progress<" in first and "c, M, s" in first and ">runs<" not in first
    assert "Lemma 1, inputs" in every and "12.5" in every and ">runs<" not in every
    mixed = pg.periods_tables(_per_j(runs=(1, 2)), _per_sum(runs=(1, 2)))
    assert mixed["per_seeds_s"] == "the seeds of column “runs”" and ">runs<" in _html(mixed["amin-tab-periods-sum"])
    csv = pg.periods_csv_frame(_per_j())
    assert "n/M" in csv.columns and list(csv.policy) == ["Aₘᵢₙ", "Aₘᵢₙ (progress reading)"]


def test_single_length_facts():
    one = pd.DataFrame({"M": [240, 240, 201, 201], "k": [1, 2, 1, 2], "amin_over_hsf": [1.0, 1.0, 0.99, 1.02]})
    f = pg.single_length_facts(one, 240)
    assert f["one_len_equal"] == "True" and f["one_len_min"] == 0.99 and f["one_len_max"] == 1.02
    assert "Aₘᵢₙ / H-SF, M = 201" in _html(f["amin-tab-one"])
    assert pg.single_length_facts(one.assign(amin_over_hsf=[1.0, 1.01, 1.0, 1.0]), 240)["one_len_equal"] == "False"


def test_theorem6_table():
    tp = pd.DataFrame({"l": [1, 1, 2], "u": [4, 4, 8], "a-min": [1.3, 1.35, 1.37], "a-min-progress": [1.4, 1.5, 1.45],
                       "lemma2": [1.375] * 3})
    tab = pg.theorem6_table(tp)
    assert list(tab["(l, u)"]) == ["(1,\u00a04)", "(2,\u00a08)"] and list(tab.runs) == [2, 1]
    assert list(tab["progress reading (max)"]) == [1.5, 1.45]


def test_cross_terms_tables_and_facts():
    meas = pd.DataFrame({"i": [1, 1, 2], "j": [2, 3, 3], "reps": [2, 2, 2], "amin_measured": [1.0, 2.0, 3.0],
                         "A_corollary1": [1.1, 2.0, 2.9], "hsf_measured": [0.5, 0.5, 2.0], "B": [0.5, 0.5, 2.0],
                         "amin_rel_dev": [-0.09, 0.0, 0.03], "hsf_rel_dev": [0.0, 0.01, -0.02]})
    f = pg.cross_terms_facts(meas)
    assert f["meas_worst_pair"] == "{1, 2}" and f["meas_n_below"] == 1 and f["meas_n_pairs"] == 3
    assert f["meas_amin_dev"] == pytest.approx(0.09) and f["meas_amin_dev_mean"] == pytest.approx(0.04)
    assert f["meas_hsf_dev"] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="no cross terms"):
        pg.cross_terms_facts(meas.iloc[:0])
    pure = {(p, k): float(k * k) / 2 for p in ("a-min", "h-sf") for k in (1, 2)}
    t = pg.cross_terms_tables(meas, pure, 2)
    diag = _html(t["amin-tab-meas-diag"])
    assert "k²/2" in diag and ">0.5<" in diag and ">2.0<" in diag
    assert "(1,\u00a02)" in _html(t["amin-tab-meas"]) and "a(i,j) (Cor. 1, halved)" in _html(t["amin-tab-meas"])


def test_lemma2_distributions_are_distributions_scaled_by_c():
    d = pg.lemma2_distributions(4)
    assert len(d) == 4
    for support, p in d.values():
        assert p.sum() == pytest.approx(1.0) and len(support) == len(p) and (np.asarray(support) % 4 == 0).all()
    assert list(d["two-point c{1,4}, p=0.8"][0]) == [4, 16]


def test_lemma2_and_geometric_runs_and_corollary2_and_fig2_tables():
    lem2 = pd.DataFrame({"dist": ["a"], "M": [200], "n": [2000], "hsf_over_fluid": [1.01], "ratio_min": [1.2],
                         "ratio_max": [1.3], "lemma2": [1.31], "rel_dev_max": [-0.01]})
    assert "n" not in pg.lemma2_table(lem2).columns and "M (tokens)" in pg.lemma2_table(lem2).columns
    geo = pd.DataFrame({"q": [0.3, 0.6], "M": [300, 300], "n": [3000, 3000], "amin_over_hsf": [1.1, 1.3],
                        "lemma2": [1.15, 1.35], "seed": [0, 0]})
    g = pg.geometric_runs_facts(geo)
    assert g["geo_qs_s"] == "0.3, 0.6" and g["geo_M"] == 300 and g["geo_sim_max"] == 1.3 and g["geo_sim_l2"] == 1.35
    assert ">seed<" not in _html(g["amin-tab-geo"])
    cor2 = pd.DataFrame({"dist": ["x"], "M": [100], "multi": [1.1], "single": [1.2], "lemma2_single": [1.3],
                         "lambda_max": [1.6], "runs": [1]})
    assert "λₘₐₓ(A₈, B₈)" in pg.corollary2_table(cor2).columns
    worst = pd.DataFrame({"M": [200, 200], "alpha": [0.25, 0.5], "a-l": [1.1, 1.4], "a-min": [1.3, 1.2],
                          "theorem7": [1.17, 1.5], "runs": [5, 5]}).set_index(["M", "alpha"])
    flat = pg.figure2_table(worst)
    assert list(flat.columns) == ["M (tokens)", "α", "Aₗ (worst)", "Aₘᵢₙ (worst)", "Theorem 7 bound", "runs"]
    assert len(flat) == 2


def test_decision_time_facts_trend():
    t = pd.DataFrame({"M": [200, 3200], "rounds": [68, 63], "mean_us": [466.0, 8803.4], "per_MlogM_ns": [440.0, 341.0]})
    f = pg.decision_time_facts(t)
    assert f["t3_us"] == "8803" and f["t3_M"] == 3200 and f["t3_ratio"] == pytest.approx(341 / 440)
    assert f["t3_trend"].startswith("it does not grow")
    g = pg.decision_time_facts(t.assign(per_MlogM_ns=[100.0, 121.0]))
    assert g["t3_trend"].startswith("it grows with M")
    assert pg.decision_time_facts(t.assign(per_MlogM_ns=[100.0, 120.0]))["t3_trend"].startswith("it does not grow")
    with pytest.raises(ValueError, match="no timings"):
        pg.decision_time_facts(t.iloc[:0])


# --------------------------------------------------------------------------- kvlib.book.chapters.amin.algebra


def test_math_wraps_latex():
    m = aa.display_math(r"x^2")
    assert type(m).__name__ == "Math" and m.data == "x^2"


def test_theorem2_algebra_against_hand_values():
    f = aa.theorem2_algebra()
    # (1/sigma^2)(sigma + sigma^2)(sigma + 1)/(sigma^2 + 2 sigma^3 + 1) with sigma = alpha^(1/2):
    # alpha = 1/4: 4 (3/4)(3/2)/(3/2) = 3; alpha = 1/9: 9 (4/9)(4/3)/(32/27) = 9/2
    assert f["thm2_proof_a4"] == "3" and f["thm2_proof_a9"] == "9/2"
    assert f["thm2_formula_a9_half"] == pytest.approx(24.75)
    assert "1/4" in f["thm2_coinc"].split(", ")


def test_corollary1_identities_hold_and_catch_a_wrong_matrix(monkeypatch):
    assert aa.hsf_form_identity(3) and aa.amin_form_identity(3)
    assert aa.tridiagonal_inverse_ok(4) and aa.corollary1_halved(4)
    from kvlib.theory import rayleigh as ry

    monkeypatch.setattr(aa.ry, "A_sym", lambda u: ry.A_candidate_sym(u))
    assert not aa.amin_form_identity(3) and not aa.corollary1_halved(3)


def test_a_entry_from_theorem6_is_our_formula():
    f = aa.a_entry_from_theorem6()
    assert f["a_formula_ok"] == "True"
    assert f["lam_big_latex"].data.startswith(r"\lambda = ") and f["a_lu_latex"].data.startswith("a_{lu} = ")


def test_trace_identity_and_numerics():
    f = aa.trace_term_facts()
    assert f["trace_first"] == 1 and f["trace_term"].data.endswith(r"\frac{1}{k}")
    tab = aa.trace_table(3)
    assert list(tab.H_u) == ["1", "3/2", "11/6"] and list(tab.trace_A) == list(tab.H_u) and tab.equal.all()
    assert tab.loc[2, "trace_old_candidate"] != "11/6"
    n = aa.trace_numerics(1000, 40)
    assert n["tr_big_u"] == 1000 and n["tr_dense_u"] == 40
    assert n["tr_big_err"] < 1e-9 and n["tr_dense_err"] < 1e-9


def test_min_eigenvalues_positive():
    m = aa.min_eigenvalues((3, 5))
    assert list(m.columns) == ["u", "min eig G", "min eig Aᵤ", "min eig Bᵤ"] and list(m.u) == [3, 5]
    assert (m[["min eig G", "min eig Aᵤ", "min eig Bᵤ"]] > 0).all().all()


def test_theorem7_threshold_facts():
    import sympy as sp

    from kvlib.theory import rayleigh as ry

    f = aa.theorem7_threshold_facts(ry.theorem7_threshold())
    assert f["astar_ok"] == "True" and f["astar_f"] == pytest.approx((3 - 5 ** 0.5) / 2)
    assert f["astar"].data.startswith(r"\alpha^* = ")
    assert aa.theorem7_threshold_facts(sp.Rational(2, 5))["astar_ok"] == "False"


# --------------------------------------------------------------------------- kvlib.book.chapters.amin.figures


def test_theorem1_figure_draws_bounds_and_points():
    import matplotlib.pyplot as plt

    fig = af.theorem1_figure([0.5, 0.25], [1.1, 1.6])
    try:
        lines = fig.axes[0].get_lines()
        assert len(lines) == 4 and list(lines[-1].get_xdata()) == [2.0, 4.0] and list(lines[-1].get_ydata()) == [1.1, 1.6]
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="2 alphas but 1"):
        af.theorem1_figure([0.5, 0.25], [1.1])


def test_figure1_fits_recover_a_log_curve_and_facts():
    us = np.array([1, 2, 3, 5, 8, 13, 20, 40, 80, 150, 300, 600])
    lam = af.log_curve(us, 0.3, 0.5, 1.0)
    popt, popt10 = af.figure1_fits(us, lam)
    assert popt == pytest.approx([0.3, 0.5, 1.0], abs=1e-5) and popt10 == pytest.approx([0.3, 0.5, 1.0], abs=1e-4)
    paper = af.log_curve(us, *af.PAPER_FIT)
    f = af.figure1_facts(us, paper, [0.0] * len(us), popt, popt10)
    assert f["fig1_dev10"] == 0 and f["fig1_dev100"] == 0 and f["fig1_umax"] == 600
    assert f["fig1_fit"] == "0.3000 log(u +0.5000) +1.0000" and f["fig1_nonneg"] == "True"
    assert f["fig1_loose"] == pytest.approx(sum(1 / k for k in range(1, 601)) / paper[-1])
    assert af.figure1_facts(us, lam, [-1e-3] * len(us), popt, popt10)["fig1_nonneg"] == "False"
    assert af.figure1_facts(us, lam, [0.0] * len(us), popt, popt10)["fig1_r2"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="one length"):
        af.figure1_facts(us, lam[:-1], [0.0] * len(us), popt, popt10)
    tab = af.figure1_table(us[:3], lam[:3], [0.0, 0.1, 0.2])
    assert list(tab.columns) == ["u", "λₘₐₓ", "paper's fit", "Hᵤ", "min entry of v / max"]
    assert list(tab["Hᵤ"]) == pytest.approx([1.0, 1.5, 11 / 6])


def test_simplex_comparison_never_exceeds_the_eigenvalue():
    t = af.simplex_comparison((3, 5), iters=50)
    assert list(t.u) == [3, 5]
    assert (t["max over x ≥ 0"] <= t["λₘₐₓ"] + 1e-9).all()


def test_figure2_and_geometric_figures():
    import matplotlib.pyplot as plt

    worst = pd.DataFrame({"M": [100, 100, 200, 200], "alpha": [0.25, 0.5, 0.25, 0.5], "a-l": [1.1, 1.4, 1.1, 1.3],
                          "a-min": [1.3, 1.2, 1.3, 1.2]}).set_index(["M", "alpha"])
    fig = af.figure2_figure(worst, [100, 200], 0.38)
    geo = af.geometric_figure(dict(qgrid=np.linspace(0.1, 0.9, 5), R=np.ones(5), LG=np.ones(5), qs=[0.5], geo=[1.0],
                                   lg_num=[1.0], lim=1.68))
    try:
        labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
        assert r"$\mathcal{A}_{\ell}$, M=100" in labels and r"$\mathcal{A}_{\min}$, M=200" in labels and len(labels) == 4 + 2 + 1
        assert len(geo.axes[0].get_lines()) == 4 + 3
    finally:
        plt.close(fig)
        plt.close(geo)
