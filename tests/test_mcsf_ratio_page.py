"""The helpers of the chapter mcsf_ratio: presentation (kvlib.book.chapters.mcsf_ratio.page), the glued values of each
section (kvlib.book.chapters.mcsf_ratio.values) and the figures (kvlib.book.chapters.mcsf_ratio.figures)."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pandas as pd
import pytest

from kvlib import Instance
from kvlib.book.chapters.mcsf_ratio import page as P
from kvlib.book.chapters.mcsf_ratio import values as V
from kvlib.theory import thm43_paper as T43

# what the site check reports as raw TeX or as a snake_case identifier (book/check_site.py)
TEX = re.compile(r"\$|\\[A-Za-z]{2,}\b|\\\(|\\\)|[_^]\{")
IDENT = re.compile(r"(^|[^A-Za-z0-9_\/.-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![A-Za-z0-9_\/(])")


def test_every_step_of_the_chain_has_words():
    """Every step thm43_paper emits (chain with OPT, and Appendix B.3 with OPT) is described."""
    from kvlib.optimum.bruteforce import brute_force_opt

    inst = Instance.at_zero([1] * 4, [1, 2, 3, 3], 10)
    opt = brute_force_opt(inst)[0]
    rows = [T43.chain_inequalities(inst, opt=opt), T43.b3_row(5, 1, 2, 8, exact_opt=True)]
    steps = {k[: -len(".holds")] for r in rows for k in r if k.endswith(".holds")}
    assert steps <= set(P.STEP_WORDS), sorted(steps - set(P.STEP_WORDS))


def test_step_words_are_plain_text():
    for step, words in P.STEP_WORDS.items():
        assert words and not TEX.search(words), step
        assert not IDENT.search(words), (step, words)


def test_step_table_order_and_columns():
    steps = pd.DataFrame({"step": ["B2", "L45", "zzz", "eq8"], "instances": [3, 2, 1, 2],
                          "holds on": [0, 2, 1, 2], "largest lhs / rhs": [1.5, float("nan"), 0.25, 0.5]})
    t = P.step_table(steps)
    assert list(t.columns) == ["step", "what it checks", "applies on", "holds on", "largest left / right"]
    assert list(t.step) == ["L45", "eq8", "B2", "zzz"]  # the paper's order, unknown steps last
    assert list(t["largest left / right"]) == ["-", "0.5", "1.5", "0.25"]
    assert t.loc[t.step == "zzz", "what it checks"].item() == ""
    assert t["applies on"].dtype.kind == "i"
    assert P.step_words("B2.display").startswith("display before Lemma B.2") and P.step_words("zzz") == "step zzz"


def test_range_summary_keeps_each_row_format():
    df = pd.DataFrame({"n": [2, 4, 14], "r": [1.0, 1.25, 1.5]})
    s = P.range_summary(df, [("requests", "n", "{:,.0f}"), ("ratio", "r", "{:.3f}")])
    assert s.to_dict("records") == [
        {"quantity": "requests", "min": "2", "median": "4", "max": "14"},
        {"quantity": "ratio", "min": "1.000", "median": "1.250", "max": "1.500"}]


@pytest.mark.parametrize("label, expected", [
    ("stored full-mode results (results/mcsf_ratio/open_region.csv): all 189 rows",
     "stored full-mode results (`results/mcsf_ratio/open_region.csv`): all 189 rows"),
    ("quick mode, 6 rows computed live when this page was built",
     "quick mode, 6 rows computed live when this page was built"),
])
def test_label_md_puts_the_path_in_backticks(label, expected):
    assert P.label_text(label) == expected


def test_source_md():
    from types import SimpleNamespace

    stored = SimpleNamespace(policy="read", path="results/mcsf_ratio/chain.csv", n_rows=200)
    live = SimpleNamespace(policy="off", path="results/mcsf_ratio/chain.csv", n_rows=30)
    assert P.source_text(stored) == "stored table `results/mcsf_ratio/chain.csv`"
    assert P.source_text(live) == "30 rows computed live"
    if importlib.util.find_spec("IPython") is not None:  # the notebook's wrappers (book extra)
        assert P.source_md(stored).data == P.source_text(stored)
        assert P.label_md("x results/a/b.csv").data == "x `results/a/b.csv`"


# --- kvlib.book.chapters.mcsf_ratio.page: prose and schedule tables -------------------------------------------

def test_words_lists_items_in_prose():
    assert P.words([50, 100, 200], "tokens") == "50, 100 and 200 tokens"
    assert P.words([1000, 2500]) == "1,000 and 2,500"
    assert P.words([7]) == "7"
    assert P.words([0.5, "x"], "s") == "0.5 and x s"
    with pytest.raises(ValueError, match="nothing to list"):
        P.words([])


def test_table_sources_names_both_keys():
    from types import SimpleNamespace

    tab = SimpleNamespace(policy="off", path="results/mcsf_ratio/dense.csv", n_rows=4,
                          label="quick mode, 4 rows computed live when this page was built")
    out = P.table_sources("dense", tab)
    assert set(out) == {"lab_dense", "src_dense"}
    if importlib.util.find_spec("IPython") is not None:
        assert out["src_dense"].data == "4 rows computed live"
        assert out["lab_dense"].data == tab.label


def test_schedules_and_completions_tables():
    inst = Instance.at_zero([1, 1], [1, 2], 6)
    t = P.schedules_table(inst, {"both at 0": (0, 0), "one after the other": (0, 1)})
    assert list(t.schedule) == ["both at 0", "one after the other"]
    assert list(t.TEL) == [1 + 2, 1 + 3]
    # both at 0: memory 2 + 2 at t = 1, then 3 (the second request only) at t = 2
    assert t["memory (tokens) at t = 0, 1, 2, ..."].iloc[0] == "[0, 4, 3]"
    assert t.starts.iloc[1] == "(0, 1)"
    c = P.completions_table(inst, {"late": (2, 0)}, who="x, y")
    assert c.to_dict("records") == [{"schedule": "late", "starts (x, y)": "(2, 0)", "completions": "(3, 2)",
                                     "TEL": 5}]
    # the table shows what the schedule holds, even above M (the chapter checks feasibility in its teach cells)
    over = P.schedules_table(Instance.at_zero([1, 1], [2, 2], 4), {"both": (0, 0)})
    assert over["memory (tokens) at t = 0, 1, 2, ..."].item() == "[0, 4, 6]"


# --- kvlib.book.chapters.mcsf_ratio.values: the numbers each section glues -----------------------------------


def _chain_frame(**changes):
    df = pd.DataFrame({"n": [2, 4, 6], "M": [10, 20, 30], "mcsf": [10.0, 20.0, 33.0],
                       "opt_lower": [10.0, 20.0, 30.0], "opt_upper": [10.0, 20.0, 30.0], "optimal": [1, 1, 0],
                       "L44": [1000.0, 3000.0, 9900.0], "L47": [5.0, 10.0, 12.0], "OS": [8.0, 16.0, 24.0],
                       "LPcvxpy": [7.0, 15.0, 20.0], "LPgreedy": [7.0, 15.0, 20.0],
                       "tstar_sorted_greedy": [True] * 3, "tstar_sorted_cvxpy": [True] * 3, "claim48": [True] * 3,
                       "L45_need": [1.5, 2.25, 3.0]})
    for col, val in changes.items():
        df[col] = val
    return df


def test_chain_ratios_adds_columns_without_touching_the_input():
    raw = _chain_frame()
    df = V.chain_ratios(raw)
    assert "ratio_ub" not in raw.columns
    assert list(df.ratio_ub) == [1.0, 1.0, 1.1]
    assert list(df.L44_loose) == [100.0, 150.0, 300.0]
    assert list(df.L47_loose) == [2.0, 2.0, 2.5]
    assert list(df.OS_loose) == [1.25, 1.25, 1.25]


def test_chain_checks_flag_each_failing_inequality():
    assert all(V.chain_checks(_chain_frame()).values())
    assert not V.chain_checks(_chain_frame(L44=[1000.0, 19.0, 9900.0]))["MC-SF ≤ Lemma 4.4"]
    assert not V.chain_checks(_chain_frame(OS=[8.0, 9.0, 31.0]))["OPT ≥ OS ≥ LB₂ (ours)"]
    bad_lp = V.chain_checks(_chain_frame(LPgreedy=[7.0, 15.0, 20.1]))
    assert not bad_lp["our LP: cvxpy = greedy"] and bad_lp["OPT ≥ our LP"]
    assert not V.chain_checks(_chain_frame(claim48=[True, False, True]))["mean-slot upper bound (ours)"]


def test_random_values_on_a_hand_frame():
    am1 = {"exact matches": "114 of 200", "average": 1.005, "worst": 1.074}
    v = V.random_values(V.chain_ratios(_chain_frame()), am1)
    assert v["rand_trials"] == 3 and v["rand_certified"] == 2 and v["rand_exact_share"] == 2
    assert v["rand_all_hold"] == "all hold" and v["rand_ratio_max"] == "1.100"
    assert (v["rand_L44_min"], v["rand_L44_med"], v["rand_L47_max"]) == ("100", "150", "2.50")
    assert (v["rand_OS_max"], v["rand_L45_max"]) == ("1.250", "3.00")
    paper = v["mr-tab-paper"].data
    assert list(paper["ours"]) == ["3", "2", "≤ 1.033", "≤ 1.100"]
    assert list(paper["paper (001 Section 5.1, AM1)"]) == ["200", "114 of 200", "1.005", "1.074"]
    assert list(v["mr-tab-random"].data.quantity) == [q for q, _, _ in V.RANDOM_SUMMARY]
    failing = V.random_values(V.chain_ratios(_chain_frame(claim48=[True, True, False])), am1)
    assert failing["rand_all_hold"] == "NOT all hold"
    assert "NO" in list(failing["mr-tab-checks"].data["holds on every instance"])


def test_adversarial_values_interval_cells_and_worst_ratio():
    adf = _chain_frame(opt_lower=[10.0, 18.2, 30.0], opt_upper=[10.0, 20.0, 30.0])
    adf["restart"], adf["s"], adf["proxy"] = [0, 1, 2], [1, 2, 3], [1.25, 1.5, 1.375]
    adf["outputs"] = [(1, 2), (3,), (4, 4)]
    v = V.adversarial_values(adf, V.chain_ratios(_chain_frame()))
    assert list(v["mr-tab-adv"].data.OPT) == ["10", "19 to 20", "30"]
    assert v["adv_hold"] == "holds" and v["adv_proxy_max"] == "1.500"
    assert v["adv_max"] == "1.100" and v["worst_ratio"] == "1.100"  # 20 / 18.2 < 33 / 30
    assert list(v["mr-tab-adv-outputs"].data["outputs (tokens)"]) == ["(1, 2)", "(3,)", "(4, 4)"]
    adf.loc[1, "mcsf"] = 4000.0  # above Lemma 4.4's bound (3000)
    worse = V.adversarial_values(adf, V.chain_ratios(_chain_frame()))
    assert worse["adv_hold"] == "FAILS" and worse["worst_ratio"] == f"{4000 / 18.2:.3f}"


def test_b3_cases_and_paper_chain_glue(monkeypatch):
    cases = V._b3_cases(8)
    assert len(cases) == 18 and cases[:3] == [(5, 1, 1, 8), (9, 1, 1, 8), (16, 1, 1, 8)]
    assert all(M >= 2 * (s + o) for _, s, o, M in cases)
    monkeypatch.setattr(T43, "sympy_checks", lambda: {"a": True, "b": True, "c": False})
    v, steps = V.paper_chain(seed=0, trials=1, n_max=3, b3_M=8)
    assert (v["p43_trials"], v["p43_b3_n"], v["p43_nmax"], v["p43_b3_M"]) == (1, 18, 3, 8)
    assert v["p43_sympy"].startswith("2 of 3 identities hold")
    # the display before Lemma B.2 fails on every identical-request instance (001 errata)
    assert v["b2_display_fail"] == "18 of 18" and "display before Lemma B.2" in v["p43_fail"].data and "`" not in v["p43_fail"].data
    assert float(v["b2_corrected_max"]) <= 4
    assert v["eq8_derived"] > v["eq8_printed"]  # display (8) drops a term
    assert list(steps.columns) == ["step", "what it checks", "applies on", "holds on", "largest left / right"]
    assert v["mr-tab-steps"].data.equals(steps.drop(columns="step"))  # the page says each step in words


def test_claim46_frame_and_values():
    c46 = V.claim46_frame([(15, 3, 12)])
    assert c46[["n", "o", "M"]].values.tolist() == [[15, 3, 12]]
    v = V.claim46_values(c46)
    assert v["c46_n"] == 1 and v["c46_triples"] == int(c46["C46.cases"].iloc[0]) > 0
    assert v["c46_verdict"] == "held on every one of them"
    assert "M (tokens)" in v["mr-tab-c46"].data.columns and "Claim 4.6" in v["mr-tab-c46"].data.columns
    broken = c46.assign(**{"C46.only_group.holds": False})
    assert V.claim46_values(broken)["c46_verdict"].startswith("failed")
    assert len(V.CLAIM46_CASES) == 9


def _ident_frame():
    # (M, s, o, n): batch = o (k q(q+1)/2 + r(q+1)) with k = M // (s + o), n = qk + r
    rows = [dict(M=4, s=1, o=1, n=3, batch=4, mcsf=4, LP=3.0, opt=4, stagger=0),  # k = 2: 1 + 1 + 2
            dict(M=7, s=2, o=2, n=3, batch=12, mcsf=9, LP=8.0, opt=9, stagger=1),  # k = 1, M mod 4 = 3 > s
            dict(M=8, s=1, o=2, n=3, batch=8, mcsf=7, LP=5.0, opt=7, stagger=1),  # k = 2, M >= 2(s + o)
            dict(M=6, s=1, o=2, n=2, batch=4, mcsf=4, LP=2.5, opt=3, stagger=0)]  # OPT made up: MC-SF not optimal
    return pd.DataFrame(rows)


def test_identical_frame_and_batch_sum():
    idf = V.identical_frame(_ident_frame())
    assert list(zip(idf.M, idf.n)) == [(4, 3), (6, 2), (7, 3), (8, 3)]
    assert idf.stagger.dtype == bool and list(idf.ratio_opt) == [1.0, 4 / 3, 1.0, 1.0]
    assert V.batch_formula(7, 1, 2, 9) == 2 * (3 * 2 * 3 // 2 + 1 * 3)  # k = 3, q = 2, r = 1
    math = V.check_batch_sum(idf)
    assert "k o q" in math.data or "q" in math.data
    with pytest.raises(AssertionError, match=r"\(n, s, o, M\) = \[\(3, 1, 1, 4\)\]"):
        V.check_batch_sum(idf.assign(batch=[5, 4, 12, 8]))


def test_staggering_and_ratio_values():
    idf = V.identical_frame(_ident_frame())
    v = V.staggering_values(idf)
    assert (v["ident_cases"], v["ident_nostag"], v["ident_nostag_eq"]) == (4, 2, 2)
    assert (v["ident_stag"], v["ident_stag_diff"], v["ident_stag_below"]) == (2, 2, 2)
    assert v["ident_ex"] == "n = 3, s = 2, o = 2, M = 7" and (v["ident_ex_tel"], v["ident_ex_batch"]) == (9, 12)
    assert v["ident_ex_starts"] == "(0, 1, 2)"  # MC-SF re-simulated: each starts while the previous runs
    assert v["ident_ex43"] == "n = 3, s = 1, o = 2, M = 8" and (v["ident_ex43_tel"], v["ident_ex43_batch"]) == (7, 8)
    assert v["ident_ex43_starts"] == "(0, 0, 1)"
    r = V.identical_ratio_values(idf)
    assert r["ident_max_opt"] == "1.3333" and r["ident_nonopt"] == 1
    assert r["ident_worst"] == "n = 2, s = 1, o = 2, M = 6 (MC-SF 4, OPT 3)" and r["ident_max_lp"] == "1.600"
    with pytest.raises(IndexError):  # no case where MC-SF staggers below the batch formula
        V.staggering_values(idf.assign(mcsf=idf.batch))


def test_dense_values_and_the_one_at_a_time_cases():
    ddf = pd.DataFrame({"M": [50, 50, 100], "s": [1, 10, 2], "o": [49, 5, 3], "n": [3, 4, 5],
                        "q": [0.1, 0.1, 0.2], "ratio_lp": [2.5, 1.25, 1.5]})
    v = V.dense_values(ddf, [50, 100])
    assert v["dense_memories"] == "50 and 100 tokens" and v["dense_cases"] == 3
    assert v["dense_max"] == "2.500" and v["dense_argmax"] == "M = 50, s = 1, o = 49, n = 3"
    assert v["b3_seq_max"] == "2.500" and v["b3_dense_argmax_seq"] == "yes"
    assert V.dense_values(ddf.assign(o=[48, 5, 3]), [50])["b3_dense_argmax_seq"] == "no"


def test_volume_lp_sympy_confirms_our_lemmas():
    v = V.volume_lp_sympy()
    assert (v["b1_ok"], v["b2_ok"]) == ("all reduce to 0", "all positive")
    tab = v["mr-tab-sympy"].data
    assert len(tab) == 10 and list(tab.lemma).count("V.1") == 6
    assert list(tab["SymPy (simplified)"][:6]) == ["0"] * 6
    assert tab["SymPy (simplified)"].iloc[-1] == "j/3 - 4/3"
    assert "=" in v["b2_rho3"].data


def test_exact_grid_values():
    idf = pd.DataFrame({"D": [3.0, 4.0], "TI": [3.5, 4.0], "opt": [4, 5], "mcsf": [4, 6], "batch": [4, 6],
                        "rho": [2.0, 3.5], "comp_ok": [1, 1], "feas_ok": [1, 1], "strong_ok": [1, 1]})
    v = V.exact_grid_values(idf)
    assert (v["b3_grid_ok"], v["b3_ti_ok"]) == ("yes", "yes")
    assert (v["b3_grid_max_opt_dual"], v["b3_grid_max_mcsf_dual"]) == ("1.333", "1.500")
    assert (v["b3_grid_max_opt_ti"], v["b3_grid_max_ti_dual"]) == ("1.250", "1.167")
    assert V.exact_grid_values(idf.assign(feas_ok=[1, 0]))["b3_grid_ok"] == "NO"
    assert V.exact_grid_values(idf.assign(batch=[13, 6], mcsf=[4, 6]))["b3_grid_ok"] == "NO"  # U > 4D at rho <= 3
    assert V.exact_grid_values(idf.assign(TI=[2.0, 4.0]))["b3_ti_ok"] == "NO"


def test_batch_dual_values_on_a_hand_grid():
    b3 = pd.DataFrame({"s": [1, 1, 2, 3], "o": [10, 20, 5, 7], "M": [11, 61, 14, 30], "k": [1, 2, 2, 3],
                       "rho": [3.8, 2.9, 2.0, 1.5], "n_worst": [4, 30, 9, 12],
                       "U/D": [4.2, 3.01, 2.5, 2.0], "U/D at q >= 1": [1.0, 2.8, 2.4, 1.9]})
    v = V.batch_dual_values(b3, 500, [1, 2, 3], 3000)
    assert (v["b3_o_max"], v["b3_s_values"], v["b3_cases"], v["b3_points"]) == ("3,000", "1, 2 and 3", 4, 500)
    assert (v["b3_sup_proved"], v["b3_sup_assump"], v["b3_sup_open"]) == ("3.010", "3.010", "4.200")
    assert v["b3_sup_assump_at"] == "s = 1, o = 20, M = 61 (k = 2), n = 30"
    assert v["b3_sup_open_at"] == "s = 1, o = 10, M = 11, n = 4" and v["b3_open_cases"] == 1
    assert (v["b3_rho_max_assump"], v["b3_large_q"]) == ("2.9000", "2.800")
    by_k = v["mr-tab-b3k"].data
    assert list(by_k.k) == [1, 2, "3 or more"] and list(by_k["triples (s, o, M)"]) == [1, 2, 1]


def test_open_region_values():
    sdf = pd.DataFrame({"n": [2, 8], "MC-SF / D": [1.5, 2.25], "U / D": [3.0, 4.5]})
    assert V.open_region_values(sdf) == {"b3_sim_cases": 2, "b3_sim_max": "2.250", "b3_sim_U_max": "4.500"}


def test_timing_rows_and_values():
    rows = V.timing_rows([40, 48], np.random.default_rng(0))
    assert [(r["M"], r["n"]) for r in rows] == [(40, 120), (48, 144)]
    assert all(r["rounds"] == len(r["times"]) == len(r["waiting"]) > 0 for r in rows)
    # the same seed draws the same instances, hence the same rounds and queues (times differ)
    again = V.timing_rows([40, 48], np.random.default_rng(0))
    assert [r["rounds"] for r in again] == [r["rounds"] for r in rows]
    hand = [{"M": M, "n": 3 * M, "rounds": 10, "mean us": 0.01 * M ** 2, "max us": 0.02 * M ** 2,
             "mean running": 2.0, "mean waiting": M / 2, "times": np.ones(3), "waiting": np.ones(3)}
            for M in (100, 200, 400)]
    v = V.timing_values(hand)
    assert v["time_slope"] == "2.00" and v["time_maxM"] == 400
    assert (v["time_mean_maxM"], v["time_running_maxM"], v["time_waiting_maxM"]) == ("1600", "2.0", "200")
    assert "times" not in v["mr-tab-time"].data.columns and "mean (µs)" in v["mr-tab-time"].data.columns


def _sweep_frame(contradictions=0):
    return pd.DataFrame({"n": [4, 3], "M": [5, 6], "s": [1, 1], "instances": [40, 60], "thm43": [0, 2],
                         "highs_confirmed": [1, 0], "highs_contradictions": [contradictions, 0],
                         "cases": ['[[[1, 1, 3, 3], 17, 16, true]]', "[]"]})


def test_sweep_counterexamples_and_values():
    sw = _sweep_frame()
    bad = V.sweep_counterexamples(sw)
    assert bad.to_dict("records") == [dict(n=4, M=5, s=1, outputs=(1, 1, 3, 3), mcsf=17, opt=16, thm43=True)]
    v = V.sweep_values(sw, bad, 1)
    assert (v["sweep_n"], v["sweep_bad"], v["sweep_confirmed"], v["sweep_thm43"]) == (100, 1, 1, 2)
    assert (v["sweep_exact_pct"], v["sweep_worst"], v["sweep_bad_thm43"]) == ("99.0", "1.062", 1)
    assert v["sweep_confirm_scope"] == "the first 1 counterexample of every group (M, s, n) is"
    assert V.sweep_values(sw, bad, 3)["sweep_confirm_scope"].endswith("counterexamples of every group (M, s, n) are")
    assert V.sweep_values(sw, bad, None)["sweep_confirm_scope"] == "every counterexample is"
    assert list(v["mr-tab-sweep"].data["M ≥ 2(s + max o)"]) == ["yes"]
    none = V.sweep_values(sw, bad.iloc[:0], 1)
    assert (none["sweep_worst"], none["sweep_bad"], none["sweep_exact_pct"]) == ("1", 0, "100.0")
    with pytest.raises(AssertionError, match="HiGHS contradicts"):
        V.sweep_counterexamples(_sweep_frame(contradictions=1))


def _coupling_frame():
    return pd.DataFrame({"regime": ["stable", "stable", "overloaded"], "T": [8, 8, 6], "n": [3, 5, 6],
                         "times": [2, 4, 5], "differ": [0, 1, 2], "cp_pos": [0, 1, 1], "identity": [True, True, True],
                         "fail_lemma54_i": [0, 0, 1], "fail_lemma54_ii": [0, 1, 2], "fail_lemma54_iii": [0, 0, 0],
                         "fail_same_state": [0, 1, 1], "fail_eq7": [0, 1, 0], "fail_bound": [0, 0, 0],
                         "max_span": [1, 3, 2], "mcsf": [6, 12, 20], "opt": [6, 10, 17]})


def test_coupling_summary_and_values():
    cpl = _coupling_frame()
    s = V.coupling_summary(cpl)
    assert list(zip(s.regime, s["T"])) == [("stable", 8), ("overloaded", 6)]  # the table's order
    assert list(s.instances) == [2, 1] and list(s.requests) == [8, 6] and list(s.fail_ii) == [1, 2]
    assert list(s.regret) == [2 / 8, 3 / 6]
    v = V.coupling_values(cpl)
    assert v["cpl_identity"] == "holds on every instance"
    assert (v["cpl_times"], v["cpl_differ"], v["cpl_fail_i"], v["cpl_fail_ii"]) == (11, 3, 1, 3)
    assert (v["cpl_fail_iii"], v["cpl_fail_state"], v["cpl_fail_bound"], v["cpl_span_max"]) == (0, 2, 0, 3)
    assert list(v["mr-tab-cpl-terms"].data["Σ CP = TEL − OPT"]) == ["yes", "yes"]
    assert "largest t̂ − t" in v["mr-tab-cpl-fails"].data.columns
    cpl.loc[2, "identity"] = False
    assert V.coupling_values(cpl)["cpl_identity"] == "FAILS"
    assert list(V.coupling_values(cpl)["mr-tab-cpl-terms"].data["Σ CP = TEL − OPT"]) == ["yes", "NO"]


def test_load_hoeffding_and_min_output_values():
    loads = V.load_values()
    assert float(loads["oc_load_stable"]) < 1 < float(loads["oc_load_over"])
    v = V.hoeffding_values(10, [10, 100])
    assert v["hoeffding_window"] == 10 and v["hoef_holds"] == "holds" and v["hoef_T_last"] == 100
    assert v["hoef_prob_range"] == f"{v['hoef_prob_last']} at every horizon of the table"
    assert v["hoef_bound_last"].startswith("1 - ") and len(v["mr-tab-hoef"].data) == 2
    assert V._prob_range(pd.Series([0.25, 0.5])) == "between 0.250 and 0.500 over the horizons of the table"
    mo = V.min_output_values(20, 2, 0)
    assert mo["mo_setup"] == "2 overloaded instances of T = 20 rounds, computed live"
    assert 0 <= mo["mo_obs"] <= mo["mo_times"] and 0 <= float(mo["mo_exp"]) <= mo["mo_times"]


def test_regret_opt_summary_and_values():
    ro = pd.DataFrame({"regime": ["stable", "stable", "overloaded", "stable", "overloaded"],
                       "T": [10, 10, 10, 20, 20], "n": [4, 6, 10, 10, 20], "proved": [1, 1, 0, 1, 0],
                       "mcsf": [10, 20, 50, 30, 100], "opt_lower": [10, 14, 40, 30, 80],
                       "opt_upper": [10, 18, 45, 30, 90]})
    s = V.regret_opt_summary(ro)
    assert list(zip(s.regime, s["T"])) == [("stable", 10), ("overloaded", 10), ("stable", 20), ("overloaded", 20)]
    assert s.regret_lo.iloc[0] == pytest.approx((0 / 4 + 2 / 6) / 2)
    assert s.regret_hi.iloc[0] == pytest.approx((0 / 4 + 6 / 6) / 2)
    assert s["avg latency OPT"].iloc[0] == pytest.approx(28 / 10) and "aopt" not in s.columns
    v = V.regret_opt_values(s)
    assert (v["ro_st_first"], v["ro_st_last"]) == ("0.167", "0.000 to 0.000")
    assert (v["ro_ov_first"], v["ro_ov_last"]) == ("0.500", "0.500 to 1.000")
    assert (v["ro_T_first"], v["ro_T_last"]) == (10, 20)


def test_regret_summary_and_values():
    frame = pd.DataFrame({"load": [0.7, 0.7, 0.7, 1.3, 1.3], "T": [50, 50, 100, 50, 100], "rep": [0, 1, 0, 0, 0],
                          "n": [30, 34, 70, 60, 120], "avg mcsf": [5.0, 7.0, 6.0, 9.0, 15.0],
                          "avg LB": [4.0, 4.0, 5.0, 6.0, 8.0], "gap": [1.0, 3.0, 1.0, 3.0, 7.0]})
    rdf = V.regret_summary(frame)
    assert rdf.to_dict("records")[0] == {"load": 0.7, "T": 50, "seeds": 2, "n": 32.0, "avg mcsf": 6.0,
                                         "avg LB": 4.0, "gap": 2.0}
    v = V.regret_values(rdf, 2.5, 3)
    assert (v["reg_lo_first"], v["reg_lo_last"]) == ("2.00", "1.00")
    assert (v["reg_hi_first"], v["reg_hi_last"]) == ("3.00", "7.00")
    assert (v["reg_cap"], v["regret_seeds"], v["reg_T_first"], v["reg_T_last"]) == ("2.500", 3, 50, 100)
    assert "gap (rounds)" in v["mr-tab-reg"].data.columns


def test_sec82_arithmetic():
    from fractions import Fraction

    frame = V.sec82_frame({"high": (Fraction(1, 6), Fraction(1, 2)), "low": (Fraction(1, 800), Fraction(1, 100))})
    assert list(frame.ratio) == ["3", "8"]
    v = V.sec82_values(frame)
    assert (v["s82_ratio_hi"], v["s82_ratio_lo"], v["s82_rise_alg2"]) == ("3", "8", "1500")
    assert (v["s82_gap_hi"], v["s82_gap_lo"]) == ("3000", "78.8")
    assert V.sec82_frame({"x": (Fraction(1, 2), Fraction(1, 1))}, requests=10)["rise, benchmark (s)"].item() == 10.0


# --- kvlib.book.chapters.mcsf_ratio.figures -------------------------------------------------------------------

def test_figures_draw_their_panels():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvlib.book.chapters.mcsf_ratio import figures as F

    df = V.chain_ratios(_chain_frame())
    fig = F.looseness_figure(df)
    assert [a.get_title() for a in fig.axes] == ["Lemma 4.4 looseness", "lower bounds", "MC-SF / OPT"]
    assert len(fig.axes[1].collections) == 2
    plt.close(fig)
    ddf = pd.DataFrame({"M": [50, 100], "s": [1, 2], "o": [5, 3], "n": [3, 5], "q": [0.1, 0.2],
                        "ratio_lp": [1.5, 1.2]})
    fig = F.identical_figure(V.identical_frame(_ident_frame()), ddf)
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["q = 0.1", "q = 0.2"]
    plt.close(fig)
    b3 = pd.DataFrame({"k": [1, 2, 3], "rho": [3.5, 2.5, 1.5], "U/D": [4.1, 3.0, 2.0]})
    sdf = pd.DataFrame({"n": [2, 8], "MC-SF / D": [1.5, 2.25], "U / D": [3.0, 4.5]})
    fig = F.batch_dual_figure(b3, sdf)
    assert len(fig.axes[0].collections) == 3 and len(fig.axes[1].collections) == 2
    plt.close(fig)
    rows = [{"M": M, "mean us": float(M), "max us": 2.0 * M, "times": np.ones(2) * 1e-6, "waiting": np.arange(2)}
            for M in (10, 20)]
    fig = F.timing_figure(rows)
    assert len(fig.axes[0].lines) == 3 and len(fig.axes[1].collections) == 2
    plt.close(fig)
    ro_sum = pd.DataFrame({"regime": ["stable", "overloaded"], "T": [10, 10], "regret_lo": [0.1, 0.5],
                           "regret_hi": [0.2, 0.9]})
    fig = F.regret_opt_figure(ro_sum)
    assert [line.get_label() for line in fig.axes[0].lines] == ["stable", "overloaded"]
    plt.close(fig)
    rdf = pd.DataFrame({"load": [0.7, 0.7, 1.3], "T": [50, 100, 50], "gap": [1.0, 2.0, 3.0]})
    fig = F.regret_figure(rdf)
    assert [line.get_label() for line in fig.axes[0].lines] == ["load 0.7", "load 1.3"]
    plt.close(fig)
