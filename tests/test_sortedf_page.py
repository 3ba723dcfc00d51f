"""The page modules of the chapter "Sorted-F and the ratio 48": kvlib.book.chapters.sortedf.page (wording and table
helpers), kvlib.book.chapters.sortedf.chain (the proof-chain sections) and kvlib.book.chapters.sortedf.experiments (002's
experiments), on small hand-made frames in the columns of the stored tables."""

import math

import matplotlib
import pandas as pd
import pytest

from kvlib.book.chapters.sortedf import chain as SC
from kvlib.book.chapters.sortedf import experiments as SE
from kvlib.book.chapters.sortedf.page import cell, dropped_sentence, fallback_sentence, percent_phrase, plain, summary_table, transposed
from kvlib.book.chapters.sortedf.synthetic import EC1_DISTRIBUTIONS
from kvlib.policies.wyz import CHAIN_LINKS

matplotlib.use("Agg")


def test_plain_spells_out_kvlib_labels():
    assert plain("Thm 4: SF / separate") == "Theorem 4: Sorted-F / separate"
    assert plain("bridge: align / Optimal_align") == "bridge: align / Optimal (align)"
    assert plain("Optimal_align / OPT") == "Optimal (align) / OPT"
    assert plain("Sorted-F_separate") == "Sorted-F (separate)"
    assert plain("Sorted-F / OPT") == "Sorted-F / OPT"  # already plain: unchanged
    for label, *_ in CHAIN_LINKS:  # no identifier and no abbreviation survives in a link label
        out = plain(label)
        assert "_" not in out and "Thm" not in out and " SF " not in f" {out} "


def test_cell():
    assert cell(float("nan")) == "-"
    assert cell(None) == "-"
    assert cell(1234.0, 0) == "1,234"
    assert cell(1.00371, 4) == "1.0037"
    assert cell("n/a") == "n/a"


def test_summary_table_is_readable_and_correct():
    tel = pd.Series([10, 20, 30, 40])
    ratio = pd.Series([0.95, 1.0, 1.05, 1.0])
    t = summary_table({"TEL (rounds)": (tel, 0), "ratio": (ratio, 4)})
    assert list(t.columns) == ["quantity", "instances", "mean", "smallest", "largest"]
    row = t.iloc[0]
    assert (row["instances"], row["mean"], row["smallest"], row["largest"]) == ("4", "25.0", "10", "40")
    assert t.iloc[1]["mean"] == "1.0000" and t.iloc[1]["largest"] == "1.0500"
    assert not any("." in v for v in t["instances"])  # counts are integers, never "200.0000"


def test_transposed_keeps_every_value():
    f = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, math.nan]}, index=["x", "y"])
    t = transposed(f, [("A", "a", 0), ("B", "b", 2)])
    assert list(t.columns) == ["quantity", "x", "y"]
    assert t.to_dict("list") == {"quantity": ["A", "B"], "x": ["1", "0.50"], "y": ["2", "-"]}


def test_sentences_follow_the_counts():
    none = dropped_sentence(0, 0.0, 10.0)
    assert "none was dropped" in none and "at most" not in none
    some = dropped_sentence(2, 1.23456, 10.0)
    assert some.startswith("2 instances") and "1.2346" in some
    assert dropped_sentence(1, 1.0, 10.0).startswith("1 instance the IP")
    assert fallback_sentence(0, 20) == "The LP-based policies never needed the fallback time grid."
    assert "20 rounds on 3 runs" in fallback_sentence(3, 20)
    assert fallback_sentence(1, 20).endswith("on 1 run.")


def test_percent_phrase():
    assert percent_phrase(-8.16) == "8.16% below"
    assert percent_phrase(0.774) == "0.77% above"
    assert percent_phrase(0.001).startswith("equal to")


# --- kvlib.book.chapters.sortedf.chain: the proof-chain sections ------------------------------------------------------


def _theorem3_frame():
    """Three instances of the stored ``theorem3`` table, the last not closed by the IP."""
    return pd.DataFrame({"proved": [1, 1, 0], "upper": [10, 20, 30], "lower": [10, 20, 25],
                         "tel_sorted_f": [12, 20, 35], "tel_sorted_f_lookahead": [11, 22, 35], "tel_mc_sf": [15, 20, 40],
                         "separate": [12, 21, 36], "M": [10, 12, 14], "s": ["[1, 2]", "[3]", "[4]"], "o": ["[2, 1]", "[5]", "[6]"]})


def _adversarial_frame():
    """Two restarts of the search on Sorted-F / OPT and one of the search on separate / group (no optimum)."""
    return pd.DataFrame({"objective": ["Sorted-F / OPT", "Sorted-F / OPT", "separate / group"],
                         "restart": [0, 1, 0], "steps": [5, 5, 5], "unclosed": [0, 1, 0],
                         "best_value": [1.1, 1.3, 1.05], "best_tel_sorted_f": [11, 13, 9], "best_opt": [10, 10, -1],
                         "best_M": [8, 9, 7], "best_s": ["[1]", "[2]", "[3]"], "best_o": ["[4]", "[5]", "[6]"],
                         "visited": [5, 6, 7], "max_thm_4": [1.0, 0.9, 1.0], "max_thm_5": [1.2, 1.1, 1.6]})


def test_theorem3_small_keeps_the_proved_rows_with_their_ratios():
    small = SC.theorem3_small(_theorem3_frame())
    assert len(small) == 2 and list(small["OPT"]) == [10, 20]
    assert list(small["Sorted-F / OPT"]) == [1.2, 1.0]
    assert list(small["MC-SF / OPT"]) == [1.5, 1.0]
    summary = SC.ratio_summary(small)
    assert list(summary.columns) == ["ratio of TELs", "mean", "largest"]
    assert list(summary["ratio of TELs"]) == ["Sorted-F / OPT", "Sorted-F (look-ahead) / OPT", "MC-SF / OPT"]
    assert summary.loc[0, "mean"] == pytest.approx(1.1) and summary.loc[2, "largest"] == 1.5


def test_theorem3_values_count_the_dropped_instance_and_name_the_worst():
    opt_f = _theorem3_frame()
    best = SC.best_of_each_search(_adversarial_frame())
    v = SC.theorem3_values(opt_f, SC.theorem3_small(opt_f), best, 20.0)
    assert v["opt_n"] == 2 and v["ratio_max"] == "1.2000" and v["ratio_mean"] == "1.1000"
    assert v["ratio_max_la"] == "1.1000" and v["ratio_max_mcsf"] == "1.5000"
    assert v["ratio_worst_inst"] == "M = 10, s = [1, 2], o = [2, 1]"
    assert v["opt_dropped_text"].startswith("1 instance the IP did not close") and "1.4000" in v["opt_dropped_text"]
    assert (v["adv_ratio"], v["adv_tel"], v["adv_opt"]) == ("1.3000", 13, 10)  # the better of the two restarts
    assert v["adv_inst"] == "M = 9, s = [2], o = [5]"
    every_closed = opt_f.assign(proved=1)
    assert "none was dropped" in SC.theorem3_values(every_closed, SC.theorem3_small(every_closed), best, 20.0)["opt_dropped_text"]


def test_adversarial_tables_say_when_no_optimum_is_needed():
    best = SC.best_of_each_search(_adversarial_frame())
    assert list(best.index) == ["Sorted-F / OPT", "separate / group"] and best.loc["Sorted-F / OPT", "restart"] == 1
    result, instances = SC.adversarial_tables(best)
    assert list(result["OPT (rounds)"]) == ["10", "not needed"]
    assert list(result["search maximises"]) == ["Sorted-F / OPT", "separate / group"]
    assert list(instances["prompts s (tokens)"]) == ["[2]", "[3]"]
    with pytest.raises(KeyError):  # theorem3_values needs the search on Sorted-F / OPT
        SC.theorem3_values(_theorem3_frame(), SC.theorem3_small(_theorem3_frame()), best.drop("Sorted-F / OPT"), 20.0)


def _w58_frame():
    """Two small instances in the columns of ``wyz_chain_paper.chain_row``: Theorem 8 fails on the second."""
    out = {}
    for key, ratios in (("thm4", [1.0, 0.9]), ("thm5", [1.5, 1.2]), ("thm6", [1.1, 1.3]), ("thm8", [0.9, 1.2]),
                        ("thm7", [2.0, 1.5]), ("thm3", [1.4, 1.6])):
        out[f"{key}_ratio"] = ratios
        out[f"{key}_holds"] = [True, key != "thm8"]
    out.update({"thm7_final_identity_holds": [True, False], "thm7_identity_with_T_holds": [True, True],
                "eps": [6, 6], "M": [12, 12], "def1_terminal_fill_min": [0.7, 0.6], "def1_eps_holds": [True, True],
                "ineq2_eta_min": [0.45, 0.55], "ineq2_holds": [False, True], "ineq2_eps_holds": [True, True],
                "eq3_W_fill_min": [0.5, 0.8], "eq3_eps_holds": [True, True]})
    return pd.DataFrame(out)


def test_paper_links_table_and_values():
    w58 = _w58_frame()
    links = SC.paper_links_table(w58)
    assert list(links["link (002's objects)"]) == [SC.PAPER_LINK_NAMES[k] for k in ("thm4", "thm5", "thm6", "thm8", "thm7", "thm3")]
    assert list(links["violations"]) == [0, 0, 0, 1, 0, 0]
    assert list(links["claimed"])[:2] == ["≤ 1", "&lt; 4"]
    assert links.loc[3, "largest measured"] == 1.2
    cex = {"tel_align": 13, "tel_opt_align": 11.5, "tel_opt": 11}
    v = SC.paper_chain_values(w58, links, cex, "quick")
    assert (v["w58_n"], v["w58_thm8_bad"], v["w58_other_bad"], v["w58_mode"]) == (2, 1, 0, "quick")
    assert (v["w58_thm3_max"], v["w58_cex_align"], v["w58_cex_optalign"], v["w58_cex_opt"]) == ("1.6000", "13", "11.5", 11)


def _side_frame():
    """Three Table EC.1 rows in the columns of ``paper_chain_ec1_row``; Lemma 2 fails on the last."""
    return pd.DataFrame({"distribution": ["Uniform", "Uniform", "Normal"], "n": [100, 100, 100], "K": [10, 12, 8],
                         "groups": [9, 12, 8], "group_size_max": [2, 1, 1], "thm4_ratio": [0.98, 1.0, 0.99],
                         "thm5_ratio": [1.12346, 1.0, 1.0], "thm6_ratio": [1.2, 1.25, 1.1],
                         "thm4_holds": [True] * 3, "thm5_holds": [True] * 3, "thm6_holds": [True] * 3,
                         "lemma1_holds": [True] * 3, "lemma2_holds": [True, True, False], "ec3_holds": [True] * 3,
                         "eps": [99, 99, 99], "M": [100, 100, 100], "def1_terminal_fill_min": [0.6, 0.5, 0.7],
                         "def1_eps_holds": [True] * 3, "ineq2_eta_min": [0.4, 0.6, 0.7], "ineq2_holds": [False, True, True],
                         "ineq2_eps_holds": [True] * 3, "thm5_separate_formula_exact": [True, False, False],
                         "thm5_holds_paper_formula": [True, True, True]})


def test_side_table_and_values():
    side = _side_frame()
    t = SC.side_table(side)
    assert list(t.columns) == ["quantity", "Uniform", "Normal"]  # the distributions in the rows' order
    rows = dict(zip(t["quantity"], t["Uniform"]))
    assert rows["instances"] == "2" and rows["Phase-1 batches (mean)"] == "11.0" and rows["Lemma 2 holds (instances)"] == "2"
    assert dict(zip(t["quantity"], t["Normal"]))["Lemma 2 holds (instances)"] == "0"
    v = SC.side_values(side)
    assert (v["side_n"], v["side_bad"], v["side_amax"], v["side_l5"], v["side_l6"]) == (3, 1, 2, 1.1235, 1.25)
    assert v["side_single"] == f"{29 / 30:.3f}" and isinstance(v["side_l4"], float)


def test_spread_table_and_values():
    spread = pd.DataFrame({"group_size_max": [3, 1, 4], "lemma2_worst": [0.5, 0.25, 0.75], "lemma2_holds": [True] * 3,
                           "ec3_holds": [True] * 3, "lemma2_sum_le_4": [True, True, False], "thm4_holds": [True] * 3,
                           "thm5_holds": [True] * 3, "thm6_holds": [True] * 3, "thm5_ratio": [1.5, 1.0, 2.25],
                           "thm6_ratio": [1.1, 1.0, 1.2]})
    t = SC.spread_table(spread)
    values = dict(zip(t["quantity"], t["value"]))
    assert values["with a group of ≥ 3 batches"] == "2" and values["largest group (batches)"] == "4"
    assert values["largest ρ (claimed ≤ 1)"] == "0.7500" and values["sum ≤ 4 · terminal holds (instances)"] == "2"
    v = SC.spread_values(spread)
    assert (v["spread_n"], v["spread_long"], v["spread_amax"], v["spread_rho"], v["spread_bad"], v["spread_l5"]) == \
        (3, 2, 4, "0.7500", 1, 2.25)


def test_lemma2_series_and_middle_line():
    import sympy as sp

    assert (SC.lemma2_series(1), SC.lemma2_middle_line(1)) == (1, 0)
    assert SC.lemma2_series(3) == sp.Rational(5, 2) and SC.lemma2_middle_line(3) == 2
    for k in range(1, 5):  # the sum exceeds the middle line by 2^(2-k) (a = 2k) and 2^(-k) (a = 2k + 1)
        assert SC.lemma2_series(2 * k) - SC.lemma2_middle_line(2 * k) == sp.Rational(2) ** (2 - k)
        assert SC.lemma2_series(2 * k + 1) - SC.lemma2_middle_line(2 * k + 1) == sp.Rational(1, 2 ** k)
        assert SC.lemma2_series(2 * k) < 4
    t = SC.lemma2_series_table(4)
    assert list(t["group size a"]) == [1, 2, 3, 4]
    assert list(t["sum of (1/2)^⌊(a−i)/2⌋ over i ≤ a"]) == ["1", "2", "5/2", "3"]
    assert list(t["sum minus middle line"]) == ["1", "2", "1/2", "1"]


def test_eps_table_and_values():
    w58, side = _w58_frame(), _side_frame()
    spread = side.drop(columns=["distribution"]).iloc[:1]
    t = SC.eps_table(w58, side, spread)
    assert list(t.columns) == ["quantity (family →)", "small (optimum known)", "Table EC.1", "spread"]
    rows = {q: (a, b) for q, a, b in zip(t["quantity (family →)"], t["small (optimum known)"], t["Table EC.1"])}
    assert rows["instances"] == ("2", "3") and rows["ε / M, largest"] == ("0.500", "0.990")
    assert rows["(3) with ε holds (instances)"] == ("2", "-")  # (3) needs the temporal groups of an optimum
    v = SC.eps_values(w58, side, spread)
    assert (v["eps_small_half"], v["eps_small_n"], v["eps_ec1_half"], v["eps_ec1_n"], v["eps_spread_n"]) == (1, 2, 2, 3, 1)
    assert v["eps_all_ok"] == "all" and v["eps_ec1_eta"] == "0.400"
    w58.loc[1, "eq3_eps_holds"] = False
    assert SC.eps_values(w58, side, spread)["eps_all_ok"] == "not all"


def test_equalities():
    hb = {"tel_separate": 24, "tel_separate_paper": 23, "tel_group": 20}
    hd = {"tel_opt": 16, "thm7_final_expr": 22}
    t = SC.equalities_table(hb, hd)
    assert list(t["002's expression"]) == [23, 22] and list(t["true value"]) == [24, 16]
    v = SC.equality_values(hb, hd, _w58_frame(), _side_frame())
    assert (v["hb_sep"], v["hb_sep_paper"], v["hb_group"], v["hd_opt"], v["hd_expr"]) == (24, 23, 20, 16, 22)
    assert (v["w58_thm7_identity"], v["w58_thm7_identity_T"], v["sep_formula_off"], v["sep_formula_bound"]) == (1, 2, 2, 3)


def _chain():
    """Three instances in the columns of ``chain_frame``; the second has align = 2 group."""
    return pd.DataFrame({"Sorted-F": [10, 12, 9], "separate": [10, 13, 9], "group": [8, 10, 9], "align": [8, 20, 12],
                         "Optimal_align": [8, 16, 12], "OPT": [8, 12, 9], "M": [10, 11, 12],
                         "s": [[1, 2], [3, 4], [5]], "o": [[2, 2], [4, 1], [3]]})


def test_variant_links_and_values():
    from kvlib.theory.chain48 import link_table, telescoped

    chain = _chain()
    link7 = {"objective": "Optimal_align / OPT", "restart": 0, "steps": 5, "unclosed": 0, "best_value": 1.123456,
             "best_tel_sorted_f": 9, "best_opt": 8, "best_M": 6, "best_s": "[1]", "best_o": "[2]", "visited": 4}
    adv_f = pd.concat([_adversarial_frame(), pd.DataFrame([link7])], ignore_index=True)
    links, ratios = link_table(chain)
    links["searches' max"] = SC.searches_max(links, adv_f)
    assert links["searches' max"].iloc[0] == 1.0 and links["searches' max"].iloc[1] == 1.6
    assert links["searches' max"].iloc[2:].isna().all()  # no search column for these links
    t = SC.variant_links_table(links)
    assert list(t.columns) == ["link of our variant", "Theorem 4", "Theorem 5", "Theorem 6", "bridge", "Theorem 7"]
    remark = dict(zip(t["link of our variant"], t["Theorem 6"]))["remark"]
    assert "≤" in remark and "<=" not in remark
    v = SC.variant_values(links, chain, telescoped(chain), adv_f, SC.best_of_each_search(adv_f))
    assert v["chain_inst"] == 3 and v["chain_inst_all"] == 3 + 22
    assert v["chain_l5_max"] == 1.6 and v["chain_l4_max"] == 1.0  # the searches' value where larger
    assert (v["chain_l4_n"], v["chain_l4_viol"], v["chain_lb_max"]) == (3, 0, 1.25)
    assert v["chain_l6_rev"] == 2.0 and v["chain_failures"] == "none"
    assert v["chain_sfopt_max"] == 1.25 and v["adv5_val"] == 1.05 and v["adv5_inst"] == "M = 7, s = [3], o = [6]"
    assert (v["adv7_val"], v["adv7_inst"]) == (1.1235, "M = 6, s = [1], o = [2]")
    with pytest.raises(KeyError):  # both searches on single links are needed
        SC.variant_values(links, chain, telescoped(chain), adv_f, SC.best_of_each_search(_adversarial_frame()))
    links.loc["Thm 7: Optimal_align / OPT", "violations"] = 2
    assert SC.variant_values(links, chain, telescoped(chain), adv_f,
                             SC.best_of_each_search(adv_f))["chain_failures"] == "Theorem 7: Optimal (align) / OPT"


def test_chain_links_figure_has_one_panel_per_link():
    import matplotlib.pyplot as plt
    from kvlib.theory.chain48 import link_table

    fig = SC.chain_links_figure(link_table(_chain())[1])
    try:
        titles = [ax.get_title() for ax in fig.axes]
        assert titles[:5] == [plain(label) for label, *_ in CHAIN_LINKS] and len(fig.axes) == 6
        assert not fig.axes[5].axison  # the spare panel is blank
        assert fig.axes[3].get_legend() is None and fig.axes[0].get_legend() is not None  # the bridge has no constant
    finally:
        plt.close(fig)


def test_rev6_values_and_table():
    chain = _chain()
    v = SC.rev6_values(chain)
    assert v == {"rev6_inst": "M = 11, s = [3, 4], o = [4, 1]", "rev6_tels": "group 10, align 20", "rev6_count": 1}
    t = SC.rev6_table(chain)
    assert list(t["schedule"]) == ["group", "align"] and list(t["TEL (rounds)"]) == [10, 20]
    assert t.loc[0, "batches (group order)"] == t.loc[1, "batches (group order)"]
    starts = [eval(s) for s in t["starts"]]  # one start per request, the align starts never earlier
    assert all(len(s) == 2 for s in starts) and all(a >= g for g, a in zip(*starts))


def test_chain_sweep_runs_table_and_theorem4():
    mid_f = pd.DataFrame({"tel_peak": [10, 12], "separate_peak": [10, 11], "group_peak": [5, 11], "align_peak": [5, 22],
                          "tel_lookahead": [9, 12], "separate_lookahead": [10, 12], "group_lookahead": [10, 12],
                          "align_lookahead": [10, 12]})
    mid = SC.chain_sweep_runs(mid_f)
    assert list(mid["constraint"]) == ["peak", "peak", "lookahead", "lookahead"]
    assert list(mid["holds"]) == [True, False, True, True]
    t = SC.chain_sweep_table(mid)
    assert list(t.columns) == ["quantity (constraint →)", "look-ahead", "peak"]
    rows = {q: (la, pk) for q, la, pk in zip(t["quantity (constraint →)"], t["look-ahead"], t["peak"])}
    assert rows["Theorem 4 holds on every run"] == ("yes", "no") and rows["Theorem 4 holds on some run"] == ("yes", "yes")
    assert rows["Theorem 4 holds: share of the runs"] == ("1.0000", "0.5000")
    assert rows["align / group, largest"] == ("1.0000", "2.0000")
    v = SC.theorem4_values(SC.theorem3_small(_theorem3_frame()), mid)
    assert (v["th4_small_holds"], v["th4_small_n"], v["th4_mid_holds"], v["th4_mid_n"]) == (2, 2, 3, 4)
    assert (v["th4_mid_ratio"], v["mid_l5_max"], v["mid_l6_rev"]) == (f"{12 / 11:.4f}", 2.0, 2.0)


# --- kvlib.book.chapters.sortedf.experiments: 002's experiments ------------------------------------------------------

class _Result:
    def __init__(self, tel):
        self.tel = tel


def test_two_type_runs_skip_the_dp_above_its_limit():
    calls = []

    def fake_run(inst, name, **opts):
        calls.append((inst.memory, name, opts))
        tel = {"mc-sf": 30, "mc-sf2": 20, "sorted-f": 20 if opts else 10}[name]
        return _Result(tel * inst.memory), None

    two = SE.two_type_runs(fake_run, [9, 16], dp_max=9)
    assert list(two["family"]) == ["Theorem 1", "Theorem EC.1"] * 2 and list(two["n"]) == [36, 36, 80, 80]
    assert two["Sorted-F (DP)"].isna().tolist() == [False, False, True, True]
    assert [c[1] for c in calls].count("sorted-f") == 6  # the DP runs only at M = 9
    assert list(two["MC-SF / Sorted-F"]) == [1.5] * 4
    t = SE.two_type_table(two)
    assert list(t["DP"]) == ["90", "90", "not run", "not run"] and t["Swap"].dtype != object
    v = SE.two_type_values(two)
    assert (v["two_rows"], v["two_swap_eq_mcsf2"], v["two_dp_M"], v["two_M"]) == (4, 4, 9, 16)
    assert (v["two_dp_e1_mcsf"], v["two_dp_e1_swap"], v["two_t1_ratio"], v["two_e1_ratio"]) == ("3.000", "2.000", "1.500", "1.000")


def _table3_frame():
    """Two instances of the stored ``table3`` table (n = 100 and n = 200, M = 100)."""
    f = pd.DataFrame({"M": [100, 100], "n": [100, 200], "tel_exact_dp": [1000, 2000]})
    for sel, ms, ratio in (("exact_dp", 5.0, 1.0), ("scaled_dp", 3.0, 0.99), ("swap", 1.0, 1.0), ("quantile", 0.5, 1.2)):
        f[f"ms_{sel}"] = [ms, 2 * ms]
        f[f"f_ratio_{sel}"] = [ratio, 1.0 if sel == "swap" else ratio + 0.01]
        f[f"tel_{sel}"] = [1000 * ratio, 2000]
        f[f"sf_s_{sel}"] = [ms / 10, ms / 5]
    return f


def test_table3_long_pivot_and_values():
    t3f = _table3_frame()
    tab3 = SE.table3_long(t3f)
    assert len(tab3) == 8 and set(tab3.selector) == set(SE.table3_long(t3f).selector)
    swap = tab3[tab3.selector == "swap (Alg. 4)"]
    assert list(swap["ms"]) == [1.0, 2.0] and list(swap["Sorted-F TEL / TEL(DP)"]) == [1.0, 1.0]
    piv = SE.table3_pivot(tab3, "ms")
    assert list(piv.columns)[:2] == ["M (tokens)", "n"] and len(piv) == 2
    beside = SE.table3_beside_paper(tab3)
    assert list(beside["scale (paper); our n"]) == ["n ≤ 100; 100", "n ≤ 200; 200", "n ≤ 500; 500", "n ≥ 1000; 200"]
    assert beside.loc[0, "one selection (ms)"] == 5.0 and beside.loc[3, "F / F(DP)"] == pytest.approx(1.21)
    assert beside.loc[1, "one selection (ms)"] == 6.0 and pd.isna(beside.loc[2, "one selection (ms)"])  # no n = 500 here
    v = SE.table3_values(tab3, t3f)
    assert (v["t3_n"], v["t3_M"], v["t3_dp_ms"], v["t3_swap_ms"], v["t3_grid"]) == (200, 100, "10.0", "2.0", 2)
    assert (v["t3_worst_q"], v["t3_min_sc"], v["t3_worst_sc"], v["t3_swap_match"], v["t3_q_match"]) == \
        ("1.2100", "0.9900", "1.0000", 2, 0)


def _ec1_frame():
    """One stored ``ec1`` row per distribution; Sorted-F (Swap) is 100 everywhere, LP-Swap best on Mixed."""
    rows = []
    for i, d in enumerate(EC1_DISTRIBUTIONS):
        n = 200 if d == "Mixed" else 100
        tels = {"sorted_lp": 110, "sorted_f_swap": 100, "lp_swap": 90 if d == "Mixed" else 105, "sorted_f_dp": 95,
                "mc_sf": 120 + i, "fcfs": 300}
        row = {"distribution": d, "n": n, "trial": 0, "lp_step_sorted_lp": 20 if d == "Normal" else 0}
        for k, tel in tels.items():
            row[f"tel_{k}"] = tel * n
            row[f"s_{k}"] = 0.5
        row.update({"batches_sorted_f_dp": 3, "lemma1_bad_sorted_f_dp": 0, "batches_sorted_f_swap": 4,
                    "lemma1_bad_sorted_f_swap": 1})
        rows.append(row)
    return pd.DataFrame(rows)


def test_ec1_tables_and_values():
    ec1_f = _ec1_frame()
    ec1 = SE.ec1_long(ec1_f)
    assert len(ec1) == 30 and set(ec1["avg latency"][ec1.policy == "Sorted-F (Swap)"]) == {100.0}
    ratio, absolute, ours_tel = SE.ec1_paper_tables(ec1, ec1_f)
    assert list(ratio["distribution"]) == list(EC1_DISTRIBUTIONS) and list(ratio["trials (ours)"]) == [1] * 5
    assert ratio.loc[4, "LP-Swap: ours"] == pytest.approx(0.9) and ratio.loc[4, "n"] == 200
    assert absolute.loc[0, "Sorted-LP: paper"] == "9,763.0" and absolute.loc[4, "Sorted-F (Swap): ours"] == 20000
    ci_tab = SE.ec1_ci_table(ec1)
    assert list(ci_tab["policy"]) == list(SE.EC1_POLICIES) and ci_tab.loc[0, "Uniform"] == "110.00"
    means = SE.ec1_means(ec1)
    assert SE.ec1_time_table(ec1)["mean time per instance (s)"].tolist() == [0.5] * 6
    order = dict(SE.ec1_order_table(means).values)
    assert order["Mixed"].startswith("LP-Swap < Sorted-F (DP) < Sorted-F (Swap)") and order["Uniform"].endswith("FCFS")
    v = SE.ec1_values(ec1_f, ours_tel, means, 20)
    assert (v["ec1_ue_ours"], v["ec1_trials"], v["ec1_n"], v["ec1_fcfs_ratio"]) == ("1.0", 1, 100, "3.00")
    assert v["ec1_best"].startswith("Binomial: Sorted-F (DP)") and "Mixed: LP-Swap" in v["ec1_best"]
    assert v["ec1_group_spread"] == pytest.approx(100 * (110 / 90 - 1), abs=0.005)
    assert (v["ec1_mcsf_vs_group"], v["ec1_mcsf_ratio"]) == (20.0, "1.220")  # MC-SF 120 against 100 on Uniform
    assert v["ec1_mcsf_vs_group_max"] == round(100 * (124 / 90 - 1), 2)  # and 124 against 90 on Mixed
    assert v["ec1_paper_spread"] == 2.6 and v["ec1_ue_paper"] == f"{9748.3 / 6016.9:.2f}"
    assert v["ec1_fallback_text"].endswith("20 rounds on 1 run.")


def test_observation_values_follow_the_counts():
    order = pd.DataFrame({"distribution": ["Uniform", "Mixed"], "rho_o_sorted_lp": [0.9, 0.2], "rho_s_sorted_lp": [0.1, 0.4],
                          "rho_o_lp_swap": [0.5, 0.5], "rho_s_lp_swap": [0.3, 0.5], "rho_o_sorted_f_swap": [0.5, 0.5],
                          "rho_s_sorted_f_swap": [0.0, 0.1], "early_s_sorted_lp": [1.0, 1.2], "early_s_lp_swap": [0.8, 0.9],
                          "early_s_sorted_f_swap": [0.7, 0.6]})
    t = SE.order_table(order)
    assert len(t) == 3 * len(EC1_DISTRIBUTIONS) and list(t.columns) == ["distribution", "measure", *SE.EC1_ORDER_POLICIES]
    assert t.loc[0, "Sorted-LP"] == 0.9 and t.loc[3, "Sorted-LP"] != t.loc[3, "Sorted-LP"]  # Normal: no rows, NaN
    means = SE.ec1_means(SE.ec1_long(_ec1_frame()))
    v = SE.observation_values(order, means)
    assert (v["order_n"], v["order_lp_o_gt_s"], v["order_lp_o_min"]) == (2, 1, "0.20")
    assert (v["order_swap_s_gt_lp"], v["order_lpswap_s_gt_lp"]) == (0, 2)
    assert (v["obs1_verdict"], v["obs2_verdict"]) == ("does not hold on most instances", "supports")
    assert (v["obs3_mixed"], v["obs3_verdict"]) == (f"{100 / 90:.4f}", "not better")
    order["rho_o_sorted_lp"] = 1.0
    assert SE.observation_values(order, means)["obs1_verdict"] == "holds on every instance"


def _section7_frame():
    """Two seeds at 200 requests and one at 400 in the columns of ``section7_row``."""
    f = pd.DataFrame({"n": [200, 200, 400], "workload": ["LMSYS + real trace: arxiv.csv"] * 2 + ["LMSYS + synthetic arXiv"]})
    for p, lat, sec in (("fcfs", 50, 0.1), ("mc_sf", 40, 0.1), ("sorted_f_swap", 30, 0.2), ("sorted_f_quantile", 33, 0.1),
                        ("sorted_lp", 31, 1.0), ("lp_swap", 30.1, 2.0)):
        f[f"avg_{p}"] = [lat, lat + 2, lat * 2]
        f[f"s_{p}"] = [sec, sec, 2 * sec]
    return f


def test_section7_means_claims_and_values():
    import matplotlib.pyplot as plt

    s7 = _section7_frame()
    lat, sec = SE.section7_means(s7)
    assert list(lat.columns) == list(SE.SECTION7_POLICIES) and list(lat.index) == [200, 400]
    assert lat.loc[200, "FCFS"] == 51 and sec.loc[400, "LP-Swap"] == 4.0
    assert SE.workload_text(s7) == "its arXiv part is the real trace `arxiv.csv`; its arXiv part is synthetic arXiv"
    assert list(SE.section7_table(lat, s7)["seeds"]) == [2, 1]
    claims = SE.section7_claims(lat, sec)
    assert dict(SE.claims_table(claims).values)["LP-Swap below Sorted-LP"] == "2 of 2"
    assert dict(SE.claims_table(claims).values)["quantile faster than swap"] == "2 of 2"
    v = SE.section7_values(lat, claims)
    assert (v["s7_sizes"], v["s7_nmax"], v["s7_lpswap_lp"], v["s7_q_gap"]) == (2, 400, 2, 1.1)
    assert v["s7_lps_gap"] == round(100 * (60.2 / 60 - 1), 2) and v["s7_lps_gap_text"] == "0.33% above"
    assert v["s7_lp_gap_text"] == f"{abs(100 * (60.2 / 62 - 1)):.2f}% below"
    fig = SE.section7_figure(lat)
    try:
        assert len(fig.axes[0].get_lines()) == 6 and fig.axes[0].get_ylabel() == "average latency (rounds)"
    finally:
        plt.close(fig)


def test_lemma1_values_add_the_stored_counts():
    opt_f = pd.DataFrame({"batches": [2, 3], "lemma1_bad": [0, 0]})
    mid_f = pd.DataFrame({"batches_peak": [4], "lemma1_bad_peak": [0], "batches_lookahead": [5], "lemma1_bad_lookahead": [1]})
    v = SE.lemma1_values((10, [], 7, 2), opt_f, mid_f, _ec1_frame())
    assert v == {"lemma1_batches": 10 + 5 + 4 + 5 + 15, "lemma1_bad": 1, "lemma1_heur_batches": 7 + 20, "lemma1_heur_bad": 2 + 5}
    assert all(type(x) is int for x in v.values())  # glued as plain integers
