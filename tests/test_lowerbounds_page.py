"""kvlib.book.chapters.lowerbounds.page: the tables, checks and glued values of the chapter "Lower-bound instances"."""

import math
from fractions import Fraction
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from kvlib.book.chapters.lowerbounds import page as lbp  # noqa: E402
from kvlib.theory import adversary as adv  # noqa: E402


def _html(styler) -> str:
    return styler.to_html()


# ---- styles and small helpers -------------------------------------------------------------------

def test_tbl_keeps_room_between_columns_and_hides_the_index():
    html = _html(lbp.tbl(pd.DataFrame({"a": [1234567], "b": [0.5]})))
    assert "padding-left: 0.4em" in html and "padding-right: 0.4em" in html
    assert "1,234,567" in html and "0.500" in html
    assert "row_heading" not in html  # the index is hidden


def test_checks_table_says_yes_or_no():
    t = lbp.checks_table({"first": True, "second": np.bool_(False), "third": 1})
    assert list(t.data["check"]) == ["first", "second", "third"]
    assert list(t.data["holds"]) == ["yes", "no", "yes"]


def test_yes_no_and_yes_no_cells():
    assert (lbp.yes_no(True), lbp.yes_no(np.bool_(False)), lbp.yes_no(0)) == ("yes", "no", "no")
    assert lbp.yes_no_cells([True, False, None, float("nan"), np.bool_(True)]) == ["yes", "no", "-", "-", "yes"]
    assert lbp.yes_no_cells([]) == []


def test_certified_columns_are_fresh_each_time():
    a, b = lbp.certified_columns(), lbp.certified_columns()
    assert a == {"interval": [("lower", "upper")], "timing": ["seconds"], "ignore": ["proved"]}
    a["timing"].append("other")
    assert b["timing"] == ["seconds"] and lbp.certified_columns()["timing"] == ["seconds"]


def test_three_partition_keys_order_and_content():
    keys = lbp.three_partition_keys([2, 3], 2, B=40, seed=7, time_limit=30.0)
    assert len(keys) == 2 * 2 * 2
    assert [(k["trial"], k["m"], k["yes"]) for k in keys[:4]] == [(0, 2, True), (0, 2, False), (0, 3, True), (0, 3, False)]
    assert keys[4]["trial"] == 1
    assert all(k["B"] == 40 and k["seed"] == 7 and k["time_limit"] == 30.0 for k in keys)
    assert lbp.three_partition_keys([2], 0, B=40, seed=0, time_limit=1.0) == []


# ---- the table of stored tables -----------------------------------------------------------------

def _table(name, n_rows, n_expected, label):
    return SimpleNamespace(name=name, n_rows=n_rows, n_expected=n_expected, complete=n_rows == n_expected, label=label)


def test_stored_values_without_the_wyz_optima():
    tables = [_table("thm41", 4, 4, "stored at abc"), _table("tp", 1, 2, "computed live")]
    v = lbp.stored_values(tables, mode="quick", time_limit=30.0)
    assert (v["lb_tables_n"], v["lb_tables_complete"], v["lb_time_limit"]) == (2, 1, "30")
    assert v["cap_thm41"] == "stored at abc" and v["cap_tp"] == "computed live"
    assert v["cap_wyz_opt"] == "none in quick mode"
    d = v["lb_tbl_stored"].data
    assert list(d["rows"]) == ["4 / 4", "1 / 2"]
    assert list(d["holds"]) == [lbp.STORED_HOLDS["thm41"], lbp.STORED_HOLDS["tp"]]


def test_stored_values_with_the_wyz_optima_and_an_unknown_table():
    v = lbp.stored_values([_table("wyz_opt", 2, 2, "L")], mode="full", time_limit=2.5)
    assert v["cap_wyz_opt"] == "L" and v["lb_time_limit"] == "2.5"
    with pytest.raises(KeyError):
        lbp.stored_values([_table("nonesuch", 1, 1, "L")], mode="full", time_limit=1.0)


# ---- 001 Theorem 4.1 ----------------------------------------------------------------------------

def _thm41_frame(rows):
    """The chapter's frame of the adversary's runs (its teaching cell), from stored-style rows."""
    t = pd.DataFrame(rows).rename(columns={
        "b_full": "b (full instance)", "tel": "TEL(policy)", "opt_upper": "OPT upper",
        "opt_upper_from": "OPT upper from", "opt_lower": "OPT lower (volume)"})
    t["b consistent"] = t["b"] == t["b (full instance)"]
    t["ratio >="] = t["TEL(policy)"] / t["OPT upper"]
    t["sqrt(M)/28 (paper's)"] = [adv.thm41_claimed_bound(M) for M in t["M"]]
    t["TEL lower (paper's)"] = t["M"] ** 1.5 / 8
    t["OPT upper (paper's (13))"] = 3.5 * t["M"]
    return t


def _run(M, policy, tel, opt_upper, closed=None, b_full=0):
    return dict(M=M, policy=policy, n=M // 2 + 1, b=0, b_full=b_full, r=M - 2, tel=tel, opt_upper=opt_upper,
                opt_upper_from="long first", opt_lower=opt_upper - 5, closed_form_alg=closed)


def test_thm41_section_on_hand_made_runs():
    thm41 = _thm41_frame([_run(16, "mc-sf", 31, 31, closed=31), _run(16, "fcfs", 31, 31, closed=31),
                          _run(64, "mc-sf", 300, 150, closed=None), _run(64, "fcfs", 300, 150, closed=None)])
    opt = pd.DataFrame({"M": [16], "lower": [31], "upper": [31], "proved": [True], "explicit_upper": [31],
                        "seconds": [2.61]})
    s = lbp.thm41_section(thm41, opt)
    plt.close(s.figure)
    v = s.values
    assert v["thm41_policies"] == "fcfs, mc-sf" and v["thm41_runs"] == 4
    assert (v["thm41_same"], v["thm41_consistent"], v["thm41_formula_ok"]) == ("yes", "yes", "yes")
    assert v["thm41_exact_M"] == "16" and (v["thm41_n_proved"], v["thm41_n_exact"]) == (1, 1)
    assert v["thm41_explicit_opt"] == "yes"
    assert (v["thm41_Mmin"], v["thm41_Mmax"], v["thm41_nM"], v["thm41_nmax"]) == (16, 64, 2, 33)
    assert v["thm41_ratio_max"] == "2.00" and v["thm41_claim_max"] == f"{8 / 28:.2f}"
    assert v["thm41_exp"] == f"{math.log(2.0) / math.log(4.0):.2f}"  # ratio 1 at M = 16, 2 at M = 64
    assert v["thm41_const"] == "0.250"
    # TEL >= the paper's (M/4)(sqrt(M)/2) = 8 and 64; OPT upper <= 3.5 M = 56 and 224
    assert (v["thm41_above"], v["thm41_lb_paper_ok"], v["thm41_ub_paper_ok"]) == ("yes", "yes", "yes")
    assert all(s.checks.values()) and len(s.checks) == 5
    assert "(2 runs with M = (2k)^2)" in " ".join(s.checks)
    assert s.summary[0]["verdict"] == "holds at every M" and "at M = 64" in s.summary[0]["measured"]
    exact = v["lb_tbl_thm41_exact"].data
    assert list(exact["proved optimal"]) == ["yes"] and list(exact["TEL (MC-SF)"]) == [31]


def test_thm41_section_reports_failures():
    # different TELs at one M, an inconsistent b, a wrong closed form, no proved optimum
    thm41 = _thm41_frame([_run(16, "mc-sf", 31, 31, closed=30), _run(16, "fcfs", 33, 31, b_full=1),
                          _run(36, "mc-sf", 80, 80), _run(36, "fcfs", 80, 80)])
    opt = pd.DataFrame({"M": [16, 36], "lower": [29, 70], "upper": [31, 85], "proved": [False, False],
                        "explicit_upper": [31, 80], "seconds": [30.0, 30.0]})
    s = lbp.thm41_section(thm41, opt)
    plt.close(s.figure)
    assert (s.values["thm41_same"], s.values["thm41_consistent"], s.values["thm41_formula_ok"]) == ("no", "no", "no")
    assert s.values["thm41_exact_M"] == "none" and s.values["thm41_explicit_opt"] == "no"
    assert [v for v in s.checks.values()] == [False, False, False, False, True]


def test_thm41_section_with_a_ratio_below_the_claim():
    thm41 = _thm41_frame([_run(16, "mc-sf", 3, 31), _run(64, "mc-sf", 300, 150)])
    s = lbp.thm41_section(thm41, pd.DataFrame(columns=["M", "lower", "upper", "proved", "explicit_upper", "seconds"]))
    plt.close(s.figure)
    assert s.values["thm41_above"] == "no" and s.summary[0]["verdict"] == "fails for some M"
    assert s.values["thm41_lb_paper_ok"] == "no"  # TEL 3 below the paper's (M/4)(sqrt(M)/2) = 8 at M = 16
    assert s.values["thm41_n_exact"] == 0 and s.values["thm41_explicit_opt"] == "no"


def test_thm41_steps_section_at_small_memories():
    s = lbp.thm41_steps_section([4, 16, 36], {"from the runs": True})
    steps = s.frames["thm41-steps"]
    assert sorted(set(steps["M"])) == [16, 36]  # M = 4 has sqrt(M)/2 = 1 < 2: skipped
    assert list(steps["b"]) == [0, 2, 0, 3]
    assert all(s.checks.values()) and s.values["t41s_all"] == "yes"
    assert s.values["t41s_rows"] == 4 and s.values["t41s_M"] == 36 and s.values["t41s_M4"] == 9
    checks = s.values["lb_checks_thm41"].data
    assert list(checks["check"])[0] == "from the runs" and len(checks) == 1 + len(s.checks)


# ---- 004 Theorems 6.2, 6.4 and Remark 6.3 -------------------------------------------------------

def test_thm62_section_small():
    s = lbp.thm62_section([16], 4)
    v = s.values
    assert (v["t62_k"], v["t62_maxM"], v["t62_claimed"], v["t62_a1lim"]) == (4, 16, 4, 9)
    assert v["t64_mass"] == str(Fraction(5, 4))  # c = 1, eps = 1/4: total 1 + eps/c
    assert v["t62_consistent"] == "yes"
    adv_t = v["lb_tbl_t62_adv"].data
    assert list(adv_t["policy"]) == ["MC-SF", "FCFS", "MC-Benchmark"]
    assert float(v["t62_ratio_max"]) == pytest.approx(adv_t["TEL / best known"].max(), abs=5e-4)
    assert "at M = 16" in s.summary[0]["measured"]


def _r63_rows(M, k, qs, low, high):
    return [{"M": M, "q": q, "q / (eps M)": q / (M // k), "ratio_low": lo, "ratio_high": hi}
            for q, lo, hi in zip(qs, low, high)]


def test_remark63_summary_on_hand_made_rows():
    r63 = pd.DataFrame(_r63_rows(16, 4, [1, 2, 4, 8], [1.1, 1.5, 1.3, 1.05], [1.2, 1.7, 1.4, 1.1])
                       + _r63_rows(64, 4, [1, 16, 32], [1.0, 1.2, 1.9], [1.1, 1.3, 2.0]))
    s = lbp.remark63_summary(r63, 4)
    assert list(s["M"]) == [16, 64] and list(s["eps M"]) == [4, 16]
    assert list(s["worst q (grid)"]) == [2, 32]
    assert list(s["ratio at q = 1 (at most)"]) == [1.2, 1.1]
    assert list(s["ratio at q = eps M (at most)"]) == [1.4, 1.3]
    assert list(s["largest q"]) == [8, 32] and list(s["ratio at largest q (at most)"]) == [1.1, 2.0]
    with pytest.raises(IndexError):  # a grid without eps M itself
        lbp.remark63_summary(pd.DataFrame(_r63_rows(16, 4, [1, 2], [1.0, 1.1], [1.1, 1.2])), 4)


def test_remark63_section_small():
    s = lbp.remark63_section([16], 4)
    plt.close(s.figure)
    v = s.values
    assert (v["r63_M"], v["r63_eM"], v["r63_Ms"]) == (16, 4, "16")
    assert v["r63_few"] == "yes"  # one short request: within 1/(1 - eps)
    assert float(v["r63_one"]) <= 1 / (1 - 1 / 4) + 1e-3
    assert v["r63_worst_all"] == v["r63_worst"]


# ---- 002 Theorems 1 and EC.1 --------------------------------------------------------------------

def _wyz(family, Ms, tel, upper, lower, closed=None):
    return pd.DataFrame({"family": family, "M": Ms, "n": [M + M * int(math.sqrt(M)) for M in Ms],
                         "tel_mc_sf": tel, "tel_mc_sf2": tel, "opt_upper": upper, "opt_lower": lower,
                         "closed_form_mcsf": closed if closed is not None else [np.nan] * len(Ms)})


def test_wyz_frame_brackets_and_certified_optima():
    wyz = _wyz("thm1", [9, 36], [369, 6000], [369, 5000], [321, 4000], closed=[369, 6000])
    w = lbp.wyz_frame(wyz, None, "thm1", "TEL(MC-SF)", "tel_mc_sf", "claim")
    assert list(w.columns) == ["n", "TEL(MC-SF)", "our closed form", "OPT upper", "OPT lower", "ratio >=", "ratio <=",
                               "claim"]
    assert w.loc[36, "ratio >="] == 6000 / 5000 and w.loc[36, "ratio <="] == 6000 / 4000
    assert w.loc[9, "claim"] == pytest.approx(2 / 13 * 3)
    opt = pd.DataFrame({"family": ["thm1", "ec1"], "M": [36, 36], "lower": [4500, 1], "upper": [5500, 1]})
    w2 = lbp.wyz_frame(wyz, opt, "thm1", "TEL(MC-SF)", "tel_mc_sf", "claim")
    assert (w2.loc[36, "OPT lower"], w2.loc[36, "OPT upper"]) == (4500, 5000)  # tightened below, kept above
    ec = lbp.wyz_frame(_wyz("ec1", [9], [394], [350], [317]), None, "ec1", "TEL(MC-SF2)", "tel_mc_sf2", "claim")
    assert "our closed form" not in ec.columns and ec.loc[9, "claim"] == pytest.approx(2.0)


def test_wyz_show_writes_the_bracket():
    w = lbp.wyz_frame(_wyz("ec1", [9], [394], [350], [317]), None, "ec1", "TEL(MC-SF2)", "tel_mc_sf2", "claim")
    d = lbp.wyz_show(w, "TEL(MC-SF2)", "claim", "paper's bound").data
    assert list(d.columns) == ["M", "TEL", "OPT ≥", "OPT ≤", "ratio", "paper's bound"]
    assert list(d["ratio"]) == [f"{394 / 350:.2f}–{394 / 317:.2f}"]


def test_wyz1_and_ec1_sections():
    wyz = pd.concat([_wyz("thm1", [9, 36, 81], [369, 6000, 30000], [369, 5000, 20000], [321, 4000, 19000],
                          closed=[369, 6000, 29999]),
                     _wyz("ec1", [9, 36, 81], [394, 4000, 20000], [350, 3000, 15000], [317, 2800, 14000])])
    heavy = pd.DataFrame({"M": [16, 64], "tel_mc_sf": [142, 808], "opt_upper": [110, 360], "opt_lower": [80, 274]})
    s = lbp.wyz1_section(wyz, None, heavy)
    plt.close(s.figure)
    v = s.values
    assert v["wyz1_formula_ok"] == "no"  # the closed form is off by one at M = 81
    assert (v["wyz1_nM"], v["wyz1_closed_n"], v["wyz1_Mmax"]) == (3, 3, 81)
    # ratio <= at M = 9: 369/321 = 1.15 > (2/13)*3 = 0.46; at M = 36: 1.5 > 0.92; at M = 81: 1.58 > 1.38
    assert v["wyz1_first_fail"] == "none" and "not refuted" in s.summary[0]["verdict"]
    assert list(v["lb_tbl_heavy"].data.columns) == ["M", "TEL (MC-SF)", "OPT ≤", "OPT ≥", "ratio ≥", "√M"]
    assert len(s.summary) == 2 and s.summary[1]["verdict"] == "unbounded (002's claim holds)"
    e = lbp.ec1_section(wyz, None)
    # (2/3) sqrt(M): 2 at M = 9 above 394/317 = 1.24, so the bound fails from M = 9 on
    assert e.values["ec1_first_fail"] == 9 and e.values["ec1_fail_tel"] == 394
    assert e.summary[0]["verdict"] == "fails from M = 9 on (errata)"
    assert e.values["ec1_last_bracket"] == f"[{20000 / 15000:.2f}, {20000 / 14000:.2f}]"


# ---- 002 Theorems 2 and EC.2 --------------------------------------------------------------------

def _tp_rows(paper: bool):
    base = {"m": [2, 2], "yes": [True, False], "trial": [0, 0], "b": ["14 12 13 15 12 14", "11 11 15 16 16 11"],
            "target": [9, 9], "has_triples": [True, False], "lower": [10, 10] if paper else [9, 10],
            "upper": [10, 10] if paper else [9, 10], "proved": [True, None]}
    if paper:
        base.update(triples_fit=[False, None], max_per_round=[3, 3])
    else:
        base.update(tel_triples=[9, None])
    return pd.DataFrame(base)


def test_three_partition_section():
    s = lbp.three_partition_section(_tp_rows(False), _tp_rows(True))
    v = s.values
    assert v["tp_ok"] == "yes" and (v["tp_count"], v["tp_ms"]) == (2, "2")
    assert (v["tpp_yes"], v["tpp_yes_fail"], v["tpp_fit"]) == (1, 1, 0)
    assert v["tp_gap_tel"] < v["tp_gap_target"] == 9
    assert list(s.frames["tp-ours"]["proved"]) == ["yes", "-"]
    assert list(s.frames["tp-paper"]["one triple per round fits"]) == ["no", "-"]
    assert list(s.frames["tp-ours"]["yes"]) == ["yes", "no"]
    assert [r["verdict"] for r in s.summary] == ["fails (errata)", "holds"]


def test_three_partition_section_detects_a_failing_reduction():
    ours = _tp_rows(False)
    ours.loc[1, "lower"] = 9  # a no-instance whose certified lower bound reaches the target
    s = lbp.three_partition_section(ours, _tp_rows(True))
    assert s.values["tp_ok"] == "no" and s.summary[1]["verdict"] == "fails"


def test_partition_section_is_seeded_and_consistent():
    a = lbp.partition_section(np.random.default_rng(0), n=4)
    b = lbp.partition_section(np.random.default_rng(0), n=4)
    assert a.values["lb_tbl_part"].data.equals(b.values["lb_tbl_part"].data)
    part = a.values["lb_tbl_part"].data
    assert a.values["part_n"] == 4 == len(part) and a.values["part_ok"] == "yes"
    assert set(part["partition exists"]) <= {"yes", "no"}
    ours = part["min makespan, ours"]
    assert ((ours == 2) == (part["partition exists"] == "yes")).all() and (ours >= 2).all()
    for x in part["x"]:
        items = [int(v) for v in x.split()]
        assert sum(items) % 2 == 0 and 2 * (max(items) + 1) <= sum(items)
    assert a.values["part_yes"] == int((part["partition exists"] == "yes").sum())
    assert len(a.summary) == 2


# ---- the smallest instances ---------------------------------------------------------------------

def test_small_table_and_smallest_section_when_nothing_was_found():
    assert list(lbp.small_table([]).data["result"]) == [lbp.NONE_FOUND]
    s = lbp.smallest_section([], [])
    assert all(s.values[k] == "none found" for k in ("small_eq", "small_eq_count", "small_gen", "small_gen_opt"))
    assert list(s.values["lb_tbl_small_sched"].data["result"]) == [lbp.NONE_FOUND]
    assert s.summary[0]["verdict"] == "no counterexample in range"


def _found(**kw):
    # two requests (s, o) = (1, 1) and (1, 2) at t = 0 with M = 4: both fit side by side, TEL 1 + 2
    row = {"n": 2, "M": 4, "prompts": (1, 1), "outputs": (1, 2), "TEL(MC-SF)": 4, "OPT": 3, "optimal starts": (0, 0)}
    row.update(kw)
    return row


def test_smallest_section_with_instances():
    s = lbp.smallest_section([_found(), _found()], [_found(prompts=(2, 1))])
    v = s.values
    assert v["small_eq"] == "n = 2, M = 4, s = 1, o = (1, 2)"
    assert (v["small_eq_alg"], v["small_eq_opt"], v["small_eq_count"]) == (4, 3, 2)
    assert v["small_gen"] == "n = 2, M = 4, (s, o) = ((2, 1), (1, 2))"
    assert list(v["lb_tbl_small_eq"].data["prompts"]) == ["(1, 1)", "(1, 1)"]
    sched = v["lb_tbl_small_sched"].data
    assert list(sched["schedule"]) == ["MC-SF", "optimal"] and sched["starts"].iloc[1] == "(0, 0)"
    assert s.summary[0]["measured"] == "equal prompts: n = 2, M = 4, TEL 4 vs OPT 3"


def test_smallest_section_rejects_an_invalid_optimal_schedule():
    # prompts of 3 tokens with M = 4: the two requests do not fit side by side at t = 0
    with pytest.raises(Exception):
        lbp.smallest_section([_found(prompts=(3, 3), outputs=(1, 1))], [])
