"""Display helpers of the real-trace chapter's page (kvlib.book.chapters.realtrace.page)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kvlib.book.chapters.realtrace.page import (COEFFICIENTS, coefficient_table, compress_points, data_files_display,
                                       files_as_code, fit_mixture_table, fit_statistics_table, policy_display,
                                       provenance_table, short_hash, sweep_table, workload_table)
from kvlib.serving.batchtime import EMBEDDED


def test_files_as_code_wraps_file_names_only():
    assert files_as_code("real trace: splitwise_conv.csv") == "real trace: `splitwise_conv.csv`"
    assert files_as_code("a.csv + b_c.csv", html=True) == "<code>a.csv</code> + <code>b_c.csv</code>"
    assert files_as_code("synthetic (LMSYS-like)") == "synthetic (LMSYS-like)"


def test_short_hash():
    h = "d690ce601f94ab80586e1d5a6a92ea0d64114dc3e0895bf32b3bee270f3d9b7f"
    assert short_hash(h) == "d690ce601f94…"
    assert short_hash(h, 8) == "d690ce60…"
    assert short_hash("-") == "-" and short_hash(None) == "-" and short_hash(float("nan")) == "-"


def test_data_files_display_keeps_every_file():
    df = pd.DataFrame({"file": ["x_y.csv", "z.csv"], "present": [True, False], "sha256": ["ab" * 32, "-"]})
    out = data_files_display(df)
    assert list(out["file"]) == ["<code>x_y.csv</code>", "<code>z.csv</code>"]
    assert list(out["beside the repository at build time"]) == ["yes", "no"]
    assert list(out.iloc[:, 2]) == ["abababababab…", "-"]


def test_coefficient_and_provenance_tables_name_every_entry():
    coef = pd.DataFrame({"value": [v for k, v in EMBEDDED.items() if k != "provenance"]},
                        index=[k for k in EMBEDDED if k != "provenance"])
    t = coefficient_table(coef)
    assert set(coef.index) <= set(COEFFICIENTS)
    assert not any("_" in c for c in t["coefficient"])  # no raw key left
    assert np.allclose(t["value"].astype(float), coef["value"].astype(float))  # values untouched
    p = provenance_table(EMBEDDED["provenance"])
    assert len(p) == len(EMBEDDED["provenance"])
    assert not any("<code>" in e for e in p["entry"])  # every key has a readable name
    row = dict(zip(p["entry"], p["value"]))
    assert row["layer time: R²"] == str(EMBEDDED["provenance"]["layer_r2"])
    assert row["layer time: median relative error"] == f"{100 * EMBEDDED['provenance']['layer_median_rel_err']:.2f} %"
    assert row["layer profile: SHA-256"] == EMBEDDED["provenance"]["mlp_sha256"][:12] + "…"


def test_policy_display():
    assert policy_display("sorted-f(selector=swap)") == "Sorted-F (swap)"
    assert policy_display("something-new") == "something-new"


def test_workload_table():
    s = [{"name": "lmsys-like", "label": "synthetic (LMSYS-like)", "n": 5, "prompt_mean": 1.0, "prompt_median": 1.0,
          "output_mean": 2.0, "output_median": 2.0, "sha256": None},
         {"name": "arxiv", "label": "real trace: arxiv_x.csv", "n": 7, "prompt_mean": 3.0, "prompt_median": 3.0,
          "output_mean": 4.0, "output_median": 4.0, "sha256": "ab" * 32}]
    t = workload_table(s, "user CSV: mine.csv")
    assert list(t["workload"]) == ["LMSYS-like", "arXiv summarization"]
    assert list(t["source"]) == ["user CSV: <code>mine.csv</code>", "real trace"]
    assert list(t["requests"]) == [5, 7]


def test_fit_tables():
    fit = pd.DataFrame([{"length": "prompt", "range": "1-468", "mean (published)": 41.0, "mean (fit)": 41.0015,
                         "median (published)": 11.0, "median (fit)": 11.0, "variance (published)": 4961.0,
                         "variance (fit)": 4961.01, "w": 0.5, "mu1": 3.9, "sigma1": 1.0, "mu2": 0.8, "sigma2": 1.0}])
    s = fit_statistics_table(fit)
    assert list(s.columns) == ["statistic", "prompt: published", "prompt: fit"]
    assert list(s["prompt: fit"]) == ["1-468", "41.00", "11.00", "4,961.01"]
    m = fit_mixture_table(fit)
    assert m.shape == (1, 6) and m.iloc[0, 1] == 0.5


def test_compress_points():
    grid = [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]
    assert compress_points("0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4", grid) == "0.01–0.4"
    assert compress_points("0.05, 0.1, 0.15, 0.3", grid) == "0.05–0.15, 0.3"
    assert compress_points("0.1", grid) == "0.1"
    assert compress_points("0.01, 0.5", grid) == "0.01, 0.5"
    assert compress_points("none", grid) == "none"
    assert compress_points("0.07", grid) == "0.07"  # off the grid: unchanged


def test_sweep_table():
    sv = pd.DataFrame([{"rate": 50.0, "demand": "high", "swept": "alpha", "fixed": "beta = 0.1", "points": 3,
                        "missing": "none", "paper range": "[0.15, 0.25]", "minimiser": "0.1", "min latency": 2.5,
                        "within tol": "0.05, 0.1, 0.15", "minimiser in range": False, "range within tol": True},
                       {"rate": 10.0, "demand": "low", "swept": "beta", "fixed": "alpha = 0.2", "points": 0,
                        "missing": "0.05", "paper range": "[0.05, 0.2]", "minimiser": "none",
                        "min latency": float("nan"), "within tol": "none", "minimiser in range": None,
                        "range within tol": None}])
    t = sweep_table(sv, {"alpha": [0.05, 0.1, 0.15, 0.2], "beta": [0.05, 0.1]})
    assert list(t["swept"]) == ["α", "β"]
    assert list(t["fixed"]) == ["β = 0.1", "α = 0.2"]
    assert list(t["within 5 % of min"]) == ["0.05–0.15", "none"]
    assert list(t["minimiser in range"]) == ["no", "-"]
    assert list(t["range within 5 %"]) == ["yes", "-"]


# ---------------------------------------------------------------- the chapter's plan (kvlib.book.chapters.realtrace.plan)
from types import SimpleNamespace  # noqa: E402

import pytest  # noqa: E402

from kvlib.book.chapters.realtrace import plan as RP  # noqa: E402
from kvlib.book.chapters.realtrace import values as RR  # noqa: E402


def _tiny_parameters(**over):
    P = RP.defaults(True)
    P.update({"alpha_grid": [0.1, 0.2], "alpha_grid_seeds": 1, "fig3_sizes": [10, 20], "fig3_runs": 1,
              "table1_runs": 2, "sweep_alphas": [0.05, 0.1, 0.2], "sweep_betas": [0.1, 0.5], "sweep_seeds": 1,
              "sizes_002": [20, 40], "lp_sizes_002": [40, 60], "sizes_003": [30], "splitwise_rates": [1.0],
              "gpus": ["a100", "h100", "h100"], "gpu_runs": 1, "gpu_sizes": [40], "code_rates": [0.5]})
    P.update(over)
    return P


def test_defaults_of_both_modes():
    q, f = RP.defaults(True), RP.defaults(False)
    assert set(q) == set(f)
    assert q["alpha_grid"] == [0.1, 0.2, 0.3, 0.4]
    assert len(f["alpha_grid"]) == 41 and f["alpha_grid"][0] == 0.0 and f["alpha_grid"][-1] == 0.4
    assert f["alpha_grid"][7] == 0.07  # rounded, not 0.07000000000000001
    assert f["table1_n"] == 1000 and f["table1_runs"] == 50 and q["table1_n"] == 500
    assert f["fig3_sizes"] == list(range(1000, 10001, 1000))


def test_cfg_and_optional_column():
    assert RP.cfg("mc-sf") == {"policy": "mc-sf"}
    assert RP.cfg("alpha-greedy", 0.3) == {"policy": "alpha-greedy", "alpha": 0.3}
    assert RP.cfg("x", beta=0.0, pred=0.5) == {"policy": "x", "beta": 0.0, "pred": 0.5}  # 0.0 is kept
    df = pd.DataFrame({"alpha": [0.1, np.nan], "sel": ["swap", None]})
    assert RP.optional_column(df, "alpha") == [0.1, None]
    assert RP.optional_column(df, "sel") == ["swap", None]
    assert RP.optional_column(df, "beta") == [None, None]


def test_policy_sets_lists_what_is_missing():
    pol = RP.policy_sets({"fcfs", "mc-sf", "sorted-f", "a-min"})
    assert pol.p002 == [("fcfs", {}), ("mc-sf", {}), ("sorted-f", {"selector": "swap"}),
                        ("sorted-f", {"selector": "quantile"})]
    assert pol.lp002 == [] and pol.p003 == ["a-min"]
    assert pol.pending == ["sorted-lp", "lp-swap", "a-max", "h-sf"]


def test_experiment_keys_on_a_tiny_plan():
    P = _tiny_parameters()
    pol = RP.policy_sets({"fcfs", "mc-sf", "sorted-f", "sorted-lp", "lp-swap", "a-max", "a-min", "h-sf"})
    lmk, datak = {"workload": "lmsys", "memory": 100}, {"memory": 100, "data": "embedded"}
    keys = RP.experiment_keys(P, 7, lmk, datak, pol, n_all=50)
    assert len(keys["alpha_grid"]) == 2 * 2  # rates x grid
    assert keys["alpha_grid"][0] == {"workload": "lmsys", "memory": 100, "policy": "alpha-greedy", "alpha": 0.1,
                                     "n": 500, "rate": 50.0, "seed": 7}
    assert len(keys["fig3"]) == 2 * 2 * 8  # rates x sizes x the eight configurations
    assert [k["seed"] for k in keys["table1"]] == [1007] * 8 + [1008] * 8
    assert {k["rate"] for k in keys["table1"]} == {50.0}
    # sweeps: per rate 3 alphas x 2 fixed betas + 2 betas x 2 fixed alphas, less the points of both sweeps,
    # (alpha, beta) = (0.1, 0.1) and (0.2, 0.1)
    sw = keys["sweeps"]
    assert len(sw) == 2 * (6 + 4 - 2)
    assert len({(k["rate"], k["alpha"], k["beta"]) for k in sw}) == len(sw)
    # 002: LP schedulers only at their sizes, the others only at theirs; sizes ascending
    m2 = keys["mixed002"]
    assert [k["n"] for k in m2] == sorted(k["n"] for k in m2)
    assert {k["n"] for k in m2 if k["policy"] == "sorted-lp"} == {40, 60}
    assert {k["n"] for k in m2 if k["policy"] == "fcfs"} == {20, 40}
    assert len(keys["intervals003"]) == len(RP.PREDICTIONS) * 3
    assert len(keys["splitwise"]) == len(RP.SPLITWISE_CONFIGS)
    every = keys["allpolicies"]
    assert all(k["n"] == 50 for k in every)
    assert sum(k["policy"] == "a-min" and k["pred"] == 0.5 for k in every) == 1
    assert set(keys) | {"gpu_table1", "gpu_alpha", "gpu_mixed002", "gpu_intervals003", "gpu_splitwise"} | \
        set(RP.SHAREGPT_TABLES) == set(RP.PLAN_ORDER)


CAP = pd.DataFrame({"workload": ["lmsys", "lmsys", "splitwise-code", "splitwise-code"],
                    "hardware": ["a100", "h100", "a100", "h100"], "throughput": [10.0, 25.0, 2.0, 3.0],
                    "mean_round_ms": [40.0, 20.0, 50.0, 30.0], "n_requests": [100] * 4})


def test_capacity_keys_and_comparison_rates():
    P = _tiny_parameters(gpus=["h100", "a100", "h100"])
    keys = RP.capacity_keys(P, 0, {"workload": "lmsys"}, {"data": "x", "user_csv": "u.csv"})
    assert [k["hardware"] for k in keys] == ["a100", "h100"] * 4  # A100 first, no GPU twice
    sg = [k for k in keys if k["workload"] == "sharegpt"]  # ShareGPT V3 in words, no user CSV (not read)
    assert len(sg) == 2 and all(k["unit"] == "words" and "user_csv" not in k and k["data"] == "x" for k in sg)
    assert RP.overloaded(CAP, "lmsys", "h100", 25.5) and not RP.overloaded(CAP, "lmsys", "h100", 25.0)
    assert RP.capacity(CAP, "lmsys", "h100") == 25.0
    with pytest.raises(KeyError, match="splitwise"):
        RP.capacity(CAP, "splitwise", "h100")
    assert RP.comparison_rates(CAP, "lmsys", "a100", [50]) == [("rate", 50.0)]
    assert RP.comparison_rates(CAP, "lmsys", "h100", [50, 10]) == [("rate", 50.0), ("rate", 10.0),
                                                                   ("load", 125.0), ("load", 25.0)]
    assert RP.comparison_rates(CAP, "splitwise-code", "h100", [1]) == [("rate", 1.0), ("load", 1.5)]


def test_gpu_keys_skip_the_a100_conversation_trace():
    P = _tiny_parameters()
    pol = RP.policy_sets({"fcfs", "mc-sf", "a-max", "a-min", "h-sf"})
    rates_on = lambda wl, h, rates: [("rate", float(r)) for r in rates] + (  # noqa: E731
        [("load", 2.0 * r) for r in rates] if h != "a100" else [])
    keys = RP.gpu_keys(P, 0, {"workload": "lmsys"}, {"data": "x"}, pol, rates_on)
    sw = keys["gpu_splitwise"]
    assert not any(k["workload"] == "splitwise" and k["hardware"] == "a100" for k in sw)
    assert {(k["workload"], k["hardware"], k["rate"]) for k in sw} == {
        ("splitwise", "h100", 1.0), ("splitwise", "h100", 2.0), ("splitwise-code", "a100", 0.5),
        ("splitwise-code", "h100", 0.5), ("splitwise-code", "h100", 1.0)}
    t1 = keys["gpu_table1"]
    assert sum(k.get("attention") == "derived" for k in t1) == 8  # the A100 with the assumed attention
    assert {k["rate"] for k in t1 if k.get("hardware") == "h100"} == {50.0, 100.0}
    assert all(k["hardware"] == "h100" for k in keys["gpu_alpha"] + keys["gpu_mixed002"] + keys["gpu_intervals003"])
    assert {k["pred"] for k in keys["gpu_intervals003"]} == {"wide"}
    # a same-load rate equal to one of the papers' rates is one run, not two (the store refuses a repeated key)
    twice = RP.gpu_keys(_tiny_parameters(splitwise_rates=[0.25, 0.5], code_rates=[0.5]), 0, {"workload": "lmsys"},
                        {"data": "x"}, pol, rates_on)["gpu_splitwise"]
    conv = [k["rate"] for k in twice if k["workload"] == "splitwise" and k["policy"] == "mc-sf"]
    assert sorted(conv) == [0.25, 0.5, 1.0]  # 0.25 and 0.5, and the loads 0.5 (already there) and 1.0


def test_stored_names_configurations_as_the_paper():
    frame = pd.DataFrame({"policy": ["mc-sf", "alpha-beta-clearing"], "alpha": [np.nan, 0.2], "beta": [np.nan, 0.1]})
    calls = []

    class FakeStore:
        def table(self, name, row, keys, **kw):
            calls.append((name, list(keys), kw))
            return SimpleNamespace(frame=frame if name == "full" else pd.DataFrame())

    tab, df = RP.stored(FakeStore(), "full", [{"a": 1}], jobs=3)
    assert list(df["name"]) == ["MC-SF", "Benchmark α = 0.2, β = 0.1"]
    assert "name" not in frame  # the stored frame itself is left alone
    assert calls[0][2]["jobs"] == 3 and calls[0][2]["timing"] == ["scheduler_s", "sim_s"]
    _, empty = RP.stored(FakeStore(), "empty", [], jobs=1)
    assert "name" not in empty and len(empty) == 0


def test_rows_on_gpu_and_plan_table():
    df = pd.DataFrame({"hardware": ["h100", "h200", "h100"], "x": [1, 2, 3]})
    tabs = {"t": (SimpleNamespace(n_rows=3, label="live"), df), "plain": (None, pd.DataFrame({"x": [1]}))}
    assert list(RP.rows_on_gpu(tabs, "t", "h100")["x"]) == [1, 3]
    assert len(RP.rows_on_gpu(tabs, "t", "a100")) == 0
    assert len(RP.rows_on_gpu(tabs, "plain", "h100")) == 0  # no hardware column: no rows
    t = RP.plan_table(tabs, [("t", [{}] * 5)])
    assert t.to_dict("records") == [{"table": "<code>t</code>", "rows": 5, "stored or computed": 3,
                                     "where from": "live"}]


def test_data_note_and_parameter_values(tmp_path):
    assert RP.data_note(tmp_path, True) == "shared data directory: found; user CSV: none (LMSYS-like generator)"
    assert RP.data_note(None, True, "/x/y/mine.csv").endswith("synthetic stand-ins; user CSV: mine.csv")
    assert "stored rows are read" in RP.data_note(None, False)
    v = RP.parameter_values("full", "lab", {"fig3_runs": 3, "table1_n": 1000, "splitwise_n": 2000,
                                           "fig3_sizes": [1000, 2000], "sizes_002": [200], "sizes_003": []})
    assert v == {"rt_mode": "full", "rt_lmlabel": "lab", "rt_fig3_runs": 3, "rt_table1_n": 1000,
                 "rt_splitwise_n": 2000, "rt_fig3_sizes": "1,000, 2,000", "rt_sizes_002": "200", "rt_sizes_003": ""}
    assert len(RP.data_file_names()) == len(set(RP.data_file_names()))


# ---------------------------------------------------------- values and tables (kvlib.book.chapters.realtrace.values)
def test_refit_note_and_provenance_frame():
    assert RR.refit_note(True).endswith("(checked in this build)")
    assert "NOT in this build" in RR.refit_note(False)
    assert "not checked in this build" in RR.refit_note(None)
    f = RR.provenance_frame({"a": 1.5, "b": "x", "c": 0}, keys=("b", "a"))
    assert f.to_dict("records") == [{"entry": "b", "value": "x"}, {"entry": "a", "value": "1.5"}]


def test_batchtime_values_read_the_model():
    class Model:
        def batch_ms(self, P, D, K, Q=0):
            return P + 10 * D + K + Q

    v = RR.batchtime_values(Model(), {"layer_r2": 0.99, "layer_median_rel_err": 0.02})
    assert v == {"rt_r2": 0.99, "rt_relerr": 2.0, "rt_ms1": 110, "rt_ms200": 18000, "rt_ms_pre": 2000 + 2000**2}


def test_attention_values():
    missing = RR.attention_values(None)
    assert missing["rt_att_text"].data == RR.ATTENTION_UNAVAILABLE and "not computed" in missing["cap_attcheck"]
    att = pd.DataFrame({"kind": ["decode", "decode", "prefill"], "batch_lo": [1, 9, 1], "batch_hi": [8, 32, 1],
                        "rows": [1000, 2000, 500], "too_fast_share": [1.0, 1.0, 0.9],
                        "median_abs_rel_err": [0.5, 0.3, 0.2], "max_abs_rel_err": [0.9, 0.8, 0.4],
                        "median_attention_share": [0.1, 0.2, 0.3], "median_round_err": [0.01, 0.02, 0.03],
                        "max_round_err": [0.05, 0.123, 0.04]})
    v = RR.attention_values(att, "cap")
    assert v["rt_att_text"].data == ("On Vidur's 3,500 A100 attention rows the assumption is too fast on most rows, "
                                     "by a median 30-50 % per layer for decode (from large to small batches) and "
                                     "20 % for prefill, missing up to 12.3 % of a batch's time")
    assert v["cap_attcheck"] == "cap"
    t = RR.attention_table(att)
    assert list(t["rows"]) == ["decode 1-8 requests", "decode 9-32 requests", "prefill, one prompt"]
    assert list(t["median error (%)"]) == [50.0, 30.0, 20.0]
    assert len(RR.attention_keys()) >= 2 and all(k["data"] == "shared" for k in RR.attention_keys())


def test_lengths_table_puts_ours_last():
    lm = SimpleNamespace(n=4, prompt=np.array([1, 2, 3, 10]), output=np.array([5, 5, 6, 8]))
    t = RR.lengths_table(lm, "synthetic", seed=3)
    assert len(t) == 4 and t.source.iloc[0].startswith("paper 001")
    last = t.iloc[-1]
    assert last.source == "ours: synthetic, 4 requests (seed 3)"
    assert (last.prompt_mean, last.prompt_median, last.output_mean, last.output_median) == (4.0, 2.5, 6.0, 5.5)


def _grid_runs():
    # rate 50: alpha 0.1 loops once, 0.2 and 0.3 always finish; rate 10: 0.3 loops
    return pd.DataFrame({"rate": [50.0] * 4 + [10.0] * 3, "alpha": [0.1, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3],
                         "completed": [True, False, True, True, True, True, False]})


def test_alpha_text_and_values():
    G, grid = _grid_runs(), [0.1, 0.2, 0.3]
    assert RR.alpha_text(G, grid, 50.0) == "0.2"
    assert RR.alpha_text(G, grid, 10.0) == "not reached on the grid"
    assert RR.alpha_text(G, grid, 25.0) == "no stored run"
    assert RR.alpha_text(G.iloc[:0], grid, 50.0) == "no stored run"
    ok = pd.DataFrame({"rate": [50.0, 50.0], "alpha": [0.1, 0.2], "completed": [True, True]})
    assert RR.alpha_text(ok, [0.1, 0.2], 50.0) == "≤ 0.1"
    zero = pd.DataFrame({"rate": [50.0, 50.0], "alpha": [0.0, 0.1], "completed": [True, True]})
    assert RR.alpha_text(zero, [0.0, 0.1], 50.0) == "0 (no loop at any α of the grid)"
    v = RR.alpha_values(G, grid, 100, 50.0, 10.0, "lab")
    assert (v["rt_alpha_hi"], v["rt_alpha_lo"], v["rt_alpha_grid_txt"]) == ("0.2", "not reached on the grid",
                                                                              "0.1, 0.2, ..., 0.3")
    assert RR.alpha_values(G, [0.1, 0.2], 100, 50.0, 10.0, "lab")["rt_alpha_grid_txt"] == "0.1, 0.2"
    tab = v["rt-tab-alpha"].data.set_index("")  # one column per rate
    assert list(tab.loc["runs"]) == ["4", "3"]


def _fig3_rows():
    rows = []
    for name, slope in (("MC-SF", 0.01), ("MC-Benchmark", 0.5), ("Benchmark α = 0.3", 0.25)):
        for n in (100, 200, 300):
            for seed in (0, 1):  # two runs per point, averaged
                rows.append({"rate": 50.0, "name": name, "n": n, "avg_latency": 1 + slope * n + (seed - 0.5)})
    rows.append({"rate": 10.0, "name": "MC-SF", "n": 100, "avg_latency": 3.0})  # one point: no slope
    return pd.DataFrame(rows)


def test_slope_table_and_fig3_values():
    order = ["MC-SF", "MC-Benchmark", "Benchmark α = 0.3", "Benchmark α = 0.25"]
    S = RR.slope_table(_fig3_rows(), [50.0, 10.0], order)
    assert list(S.policy) == order[:3]  # in the paper's order; no slope from a single point
    assert np.allclose(S["slope (s per request)"], [0.01, 0.5, 0.25])
    assert list(S["paper (001)"]) == ["1/6", "best benchmark ~1/2", "best benchmark ~1/2"]
    assert RR.best_benchmark_slope(S, 50.0, order[1:]) == pytest.approx(0.25)
    assert np.isnan(RR.best_benchmark_slope(S, 10.0, order[1:]))
    v = RR.fig3_values(S, order, 50.0, 10.0, quick=True)
    assert v["rt_s_sf_hi"] == pytest.approx(100.0) and v["rt_s_b_hi"] == pytest.approx(4.0)
    assert np.isnan(v["rt_s_sf_lo"]) and np.isnan(v["rt_s_b_lo"])
    assert v["rt_fig3_sizes_note"].startswith("fewer")


def test_table1_frame_and_values():
    from kvlib.book.chapters.realtrace.rows import PAPER_TABLE1

    order = RP.paper_configs()[1]
    T1 = pd.DataFrame({"name": ["MC-SF", "MC-SF", "MC-Benchmark", "MC-Benchmark", "Benchmark α = 0.3"],
                       "avg_latency": [10.0, 12.0, 20.0, np.nan, 30.0],
                       "completed": [True, True, True, False, True]})
    tab1 = RR.table1_frame(T1, order)
    assert list(tab1.index) == order
    assert tab1.loc["MC-SF", "mean"] == 11.0 and tab1.loc["MC-Benchmark", "mean"] == 20.0
    assert list(tab1["runs"][:3]) == [2, 2, 1] and tab1["runs"].iloc[3] == 0
    assert list(tab1["unfinished runs"][:3]) == [0, 1, 0]
    assert tab1.loc["MC-SF", "paper mean"] == PAPER_TABLE1["MC-SF"][0]
    v = RR.table1_values(tab1, 500, 50.0, "lab")
    assert v["rt_t1_order_short"] == "in the paper's order" and v["rt_t1_order"].startswith("agrees")
    assert v["rt_t1_unfinished"] == 1 and v["rt_t1_unfinished_cfg"] == "MC-Benchmark (1)"
    assert v["rt_t1_runs"] == 0 and v["rt_t1_scale_note"] == "with 500 requests per run against the paper's 1,000"
    ratio = np.nanmean([11.0 / PAPER_TABLE1["MC-SF"][0], 20.0 / PAPER_TABLE1["MC-Benchmark"][0],
                        30.0 / PAPER_TABLE1["Benchmark α = 0.3"][0]])
    assert v["rt_t1_ratio"] == pytest.approx(ratio)
    swapped = tab1.copy()
    swapped.loc["MC-SF", "mean"] = 25.0
    assert RR.table1_values(swapped, 1000, 50.0, "lab")["rt_t1_order_short"] == "in a different order from the paper's"


def test_memory_values():
    mem = pd.DataFrame([{"policy": "mc-sf", "rate": 50.0, "trace": ([0, 1, 2], [50, 100, 0])},
                        {"policy": "mc-benchmark", "rate": 50.0, "trace": ([0, 1], [1000, 0])},
                        {"policy": "mc-sf", "rate": 10.0, "trace": ([0, 2, 4], [90, 10, 0])}])
    v = RR.memory_values(mem, 100, 50.0)
    assert v == {"rt_mem_hi_peak": 100, "rt_mem_hi_mean": 75.0, "rt_mem_hi_within": "yes",
                 "rt_mem_lo_peak": 90, "rt_mem_lo_mean": 50.0, "rt_mem_lo_within": "yes",
                 "rt_mem_lo_verdict": "well below the near-full use 001 reads in its Figure 9"}


def _sweep_rows():
    rows = []
    for rate in (50.0, 10.0):
        for b in (0.1, 0.2):
            for a in (0.1, 0.2, 0.3):
                lat = 10 + 10 * abs(a - 0.2) + b
                rows.append({"rate": rate, "alpha": a, "beta": b, "avg_latency": lat, "completed": True})
        for a in (0.1, 0.2):
            for b in (0.05, 0.5):
                rows.append({"rate": rate, "alpha": a, "beta": b, "avg_latency": 12 + b, "completed": True})
    rows.append({"rate": 50.0, "alpha": 0.3, "beta": 0.1, "avg_latency": np.nan, "completed": False})
    return pd.DataFrame(rows)


def test_sweep_values():
    SW = _sweep_rows()
    grids = {"alpha": [0.1, 0.2, 0.3], "beta": [0.05, 0.1, 0.2, 0.5]}
    v = RR.sweep_values(SW, [50.0, 10.0], grids, (0.1, 0.2), "lab", 500)
    assert v["rt_sw_best_0"] == "α = 0.2, β = 0.1 (10.1 s)"  # (0.3, 0.1) has a looped run: not a candidate
    assert v["rt_sw_best_1"] == "α = 0.2, β = 0.1 (10.1 s)"
    assert v["rt_sv_total"] == 8 and 0 <= v["rt_sv_inside"] <= 8
    assert v["rt_sv_alpha_0"].startswith("β = 0.1: 0.2 (10.10 s), inside 001's [0.15, 0.25]")
    assert v["rt-tab-sweep-verdicts"].data.columns[3] == "argmin"
    empty = RR.sweep_values(SW.iloc[:0], [50.0, 10.0], grids, (0.1, 0.2), "lab", 500)
    assert empty["rt_sw_best_0"] == "no stored run yet" and empty["rt_sv_alpha_1"] == "no stored run yet"
    assert (empty["rt_sv_inside"], empty["rt_sv_total"], empty["rt_sv_outside"]) == (0, 0, "no stored run yet")
    looped = SW[(SW.rate == 50.0)].assign(completed=False)
    assert RR.sweep_values(looped, [50.0, 10.0], grids, (0.1, 0.2), "lab", 500)["rt_sw_best_0"] == \
        "no point with every run finished"
    assert RR.sweep_sentence(None, 50.0, "alpha", grids) == "no stored run yet"


def _mixed_rows():
    rows = []
    for n in (20, 40):
        for p, sel, lat in (("fcfs", None, 9.0), ("mc-sf", None, 5.0), ("sorted-f", "swap", 4.0),
                            ("sorted-f", "quantile", 6.0)):
            rows.append({"policy": p, "selector": sel, "n": n, "avg_latency": lat * n / 20, "scheduler_s": 0.1,
                         "valid": True, "lmsys_mean": 1.0, "lmsys_median": 1.0, "lmsys_p90": 2.0, "lmsys_count": n - 5,
                         "arxiv_mean": 3.0, "arxiv_median": 3.0, "arxiv_p90": 4.0, "arxiv_count": 5})
    rows.append({"policy": "sorted-lp", "selector": None, "n": 60, "avg_latency": 30.0, "scheduler_s": 5.0,
                 "valid": True})
    return pd.DataFrame(rows)


def test_mixed002_frames_and_values():
    pol = RP.policy_sets({"fcfs", "mc-sf", "sorted-f", "sorted-lp", "lp-swap"})
    M2 = RR.mixed002_frame(_mixed_rows())
    order, non_lp = RR.schedulers002(M2, pol)
    assert order == ["fcfs", "mc-sf", "sorted-f(selector=swap)", "sorted-f(selector=quantile)", "sorted-lp"]
    assert non_lp == order[:4]  # lp-swap has no row: left out
    T2 = M2.pivot_table(index="n", columns="name", values="avg_latency")[order]
    n = RR.largest_complete_size(T2, non_lp)
    assert n == 40  # 60 has only Sorted-LP
    with pytest.raises(ValueError, match="no row"):
        RR.largest_complete_size(T2.iloc[:0], non_lp)
    v = RR.mixed002_values(T2, n, False, "lab")
    assert (v["rt_002_fcfs"], v["rt_002_sf"], v["rt_002_sorted"], v["rt_002_quant"]) == (18.0, 10.0, 8.0, 12.0)
    assert v["rt_002_quant_ratio"] == 1.5 and v["rt_sizes_002_note"] == "002's"
    assert np.isnan(RR.mixed002_values(T2.drop(columns=["sorted-f(selector=quantile)"]), n, True, "l")["rt_002_quant"])
    big = RR.rows_at_size(M2, n, order)
    assert list(big.index) == non_lp
    ec2 = RR.per_source_table(big)
    assert list(ec2.columns) == ["LMSYS-like mean", "LMSYS-like median", "LMSYS-like p90", "arXiv mean",
                                 "arXiv median", "arXiv p90", "scheduler time (s)"]
    pv = RR.per_source_values(ec2)
    assert (pv["rt_ec2_sf_lm"], pv["rt_ec2_sf_ax"], pv["rt_ec2_fcfs_ax"]) == (1.0, 3.0, 3.0)
    TS = M2.pivot_table(index="n", columns="name", values="scheduler_s")[order]
    assert RR.largest_lp_size(TS, [40, 60]) == 60  # lp-swap is missing everywhere
    TS["lp-swap"] = [np.nan, np.nan, 7.0]
    assert RR.largest_lp_size(TS, [40, 60]) == 60
    TS["lp-swap"] = [np.nan, 7.0, np.nan]
    assert RR.largest_lp_size(TS, [40, 60]) == 60  # the largest of the sizes when no size has both


def test_lp_values():
    hr = pd.Series({"horizon": 900.0, "auto_step": 25.0, "lp_variables_millions": 1.25})
    TS = pd.DataFrame({"sorted-lp": [2.0], "lp-swap": [3.0]}, index=[60])
    T2 = pd.DataFrame({"sorted-lp": [20.0], "lp-swap": [21.0]}, index=[60])
    v = RR.lp_size_values(hr, 60, TS, T2)
    assert (v["rt_lp_H"], v["rt_lp_step"], v["rt_lp_nmax"], v["rt_lp_mvars"]) == (900, 25, 60, 1.25)
    assert (v["rt_002_t_slp"], v["rt_002_lps"]) == (2.0, 21.0) and np.isnan(v["rt_002_sfs"])
    lpx = pd.DataFrame({"step": [1, 25], "horizon": [300, 300], "exact_seconds": [4.0, 4.0],
                        "kendall_tau": [1.0, 0.95], "tel_change_sorted_lp": [0.0, -0.012],
                        "tel_change_lp_swap": [0.0, 0.004], **{c: [0.0, 0.0] for c in RR.LPX_COLUMNS if c not in
                                                               ("step", "kendall_tau", "tel_change_sorted_lp",
                                                                "tel_change_lp_swap")}})
    c = RR.lp_check_values(lpx, "real trace: a.csv", 25, 60)
    assert (c["rt_lpx_tau_min"], c["rt_lpx_dslp_max"], c["rt_lpx_dslp_big"]) == (0.95, 1.2, -1.2)
    assert c["rt_lpx_dlps_big"] == pytest.approx(0.4) and c["rt_lpx_H"] == 300
    assert c["rt_lpx_label"].data == "real trace: `a.csv`"


def test_intervals003():
    rows = [{"policy": p, "pred": pr, "n": n, "avg_latency": lat + n / 100, "valid": True}
            for n in (400, 200) for pr in RP.PREDICTIONS
            for p, lat in (("a-max", 9.0), ("a-min", 5.0 if pr != "buckets" else 9.5), ("h-sf", 4.0))]
    M3 = RR.intervals003_frame(pd.DataFrame(rows[:-1]))  # the last row (h-sf, 0.99, n = 200) is missing
    assert list(M3.n) == sorted(M3.n)
    assert set(M3.pred) == {"[1,1000]", "10 buckets", "x=0.1", "x=0.95", "x=0.99"}
    T3 = M3.pivot_table(index=["pred", "n"], columns="policy", values="avg_latency")
    assert RR.largest_full_size(M3, T3, len(RP.PREDICTIONS) * 3) == 400
    v = RR.intervals003_values(T3, 400)
    assert v["rt_003_wide_amin"] == 9.0 and v["rt_003_buckets_amax"] == 13.0
    assert v["rt_003_wide_ratio"] == pytest.approx(9.0 / 8.0)
    assert v["rt_003_amin_better"] == "[1,1000], x=0.1, x=0.95, x=0.99"


def test_splitwise_and_every_policy():
    SP = pd.DataFrame({"rate": [1.0, 1.0, 2.0], "name": ["MC-SF", "MC-Benchmark", "MC-SF"],
                       "avg_latency": [3.0, 4.0, 5.0]})
    t = RR.splitwise_values(SP, "lab")["rt-tab-splitwise"].data
    assert list(t.columns) == ["rate (requests/s)", "MC-Benchmark", "MC-SF"] and np.isnan(t.loc[1, "MC-Benchmark"])
    C = pd.DataFrame({"name": ["MC-SF", "sorted-f", "a-min"], "policy": ["mc-sf", "sorted-f", "a-min"],
                      "selector": [np.nan, "swap", np.nan], "pred": [np.nan, np.nan, 0.5],
                      "completed": [True] * 3, "valid": [True] * 3, "avg_latency": [5.0, 4.0, 7.0],
                      "makespan": [1.0] * 3, "evictions": [0] * 3, "scheduler_s": [0.1] * 3})
    v = RR.all_policies_values(C, 200, 16492, "lab")
    assert list(C["name"]) == ["MC-SF", "Sorted-F (swap)", "Aₘᵢₙ"]
    assert v["rt_all_best"] == "Sorted-F (swap)'s, 4.0 s" and v["rt_all_worst"] == "Aₘᵢₙ's, 7.0 s"
    t = v["rt-tab-all"].data  # sorted by average latency; x only for the 003 policies
    assert list(t["policy"]) == ["Sorted-F (swap)", "MC-SF", "Aₘᵢₙ"]
    assert list(t["x"].fillna(-1)) == [-1, -1, 0.5]


def test_capacity_and_gpu_values():
    v = RR.capacity_values(CAP, "synthetic")
    assert v["rt_cap_h100_lm"] == 2.5 and v["rt_cap_h100_code"] == 1.5
    assert np.isnan(v["rt_cap_h200_lm"])
    assert list(v["rt-tab-capacity"].data["workload"]) == ["synthetic", "synthetic", "Splitwise code", "Splitwise code"]
    T1 = pd.DataFrame({"name": ["MC-SF", "MC-SF"], "avg_latency": [10.0, 30.0], "completed": [True, False]})
    gpu = pd.DataFrame({"name": ["MC-SF"] * 3, "avg_latency": [5.0, 6.0, 20.0], "completed": [True] * 3,
                        "rate": [50.0, 80.0, 50.0], "hardware": ["h100", "h100", None],
                        "attention": [None, None, "derived"]})
    tabs = {nm: (SimpleNamespace(label=f"label of {nm}"), gpu) for nm in
            ("gpu_capacity", "gpu_table1", "gpu_mixed002", "gpu_intervals003", "gpu_splitwise", "gpu_alpha")}
    rows_on = lambda name, h: RP.rows_on_gpu(tabs, name, h)  # noqa: E731
    runs = RR.table1_on_gpus(T1, gpu, rows_on, lambda wl, h, r: [("rate", 50.0), ("load", 80.0)], ["h100"], 50.0)
    assert list(runs) == ["A100", "H100, 50/s", "H100, 80/s", "A100, assumed attention"]
    assert list(runs["H100, 80/s"].avg_latency) == [6.0]
    g = RR.gpu_values(runs, ["MC-SF", "MC-Benchmark"], tabs)
    assert g["rt_att_t1_sf"] == 20.0
    t = g["rt-tab-gpu-t1"].data
    assert list(t.columns) == ["configuration", *runs]
    assert t.loc[0, "A100"] == "10.00 (1 unfinished)"  # the finished runs' mean, and how many it leaves out
    assert t.loc[0, "H100, 80/s"] == "6.00" and g["rt_gpu_t1_unfinished"] == 1
    assert g["cap_gpu"].data.startswith("`gpu_capacity`: label of gpu_capacity; `gpu_table1`")
    no_att = RR.table1_on_gpus(T1, gpu.drop(columns=["attention"]), rows_on, lambda *a: [], [], 50.0)
    assert len(no_att["A100, assumed attention"]) == 0
    assert np.isnan(RR.gpu_values(no_att, ["MC-SF"], tabs)["rt_att_t1_sf"])


# --------------------------------------------------------------- figures (kvlib.book.chapters.realtrace.figures)
def test_figures_draw_one_curve_per_configuration():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvlib.book.chapters.realtrace import figures as RF

    order = ["MC-SF", "MC-Benchmark", "Benchmark α = 0.3"]
    fig = RF.fig3_figure(_fig3_rows(), [50.0, 10.0], order)
    assert [len(a.lines) for a in fig.axes] == [3, 1]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == order  # one legend below both panels
    plt.close(fig)
    sw = _sweep_rows()
    curve = RF.sweep_curve(sw[sw.rate == 50.0], "alpha", 0.1, [0.1, 0.2, 0.3])
    assert np.isnan(curve.loc[0.3]) and curve.loc[0.2] == pytest.approx(10.1)  # a looped run hides the point
    fig = RF.sweeps_figure(sw, [50.0, 10.0], [0.1, 0.2, 0.3], [0.05, 0.1, 0.2, 0.5], (0.1, 0.2))
    assert [len(a.lines) for a in fig.axes] == [2, 2, 2, 2]
    plt.close(fig)
    M2 = RR.mixed002_frame(_mixed_rows())
    fig = RF.mixed002_figure(M2, ["fcfs", "mc-sf"], "scheduler_s", "scheduler time (s)", log=True)
    assert fig.axes[0].get_yscale() == "log" and len(fig.axes[0].lines) == 2
    plt.close(fig)
    big = RR.rows_at_size(M2, 40, ["fcfs", "mc-sf"])
    fig = RF.per_source_figure(big, 40)
    assert len(fig.axes[0].patches) == 2 * len(RF.STATISTICS)
    assert fig.axes[1].get_title() == "arXiv requests (5 of 40)"
    plt.close(fig)
    mem = pd.DataFrame([{"policy": "mc-sf", "opts": {}, "rate": 50.0, "completed": True, "trace": ([0, 1], [5, 0])},
                        {"policy": "alpha-greedy", "opts": {"alpha": 0.3}, "rate": 50.0, "completed": False,
                         "trace": ([0, 1], [9, 0])}])
    fig = RF.memory_figure(mem, 10)
    assert fig.axes[1].get_title() == "Benchmark α = 0.3, λ = 50/s\nendless clearing: stopped"
    plt.close(fig)


# ------------------------------------------------- seeds, overloaded runs and ShareGPT V3 (values and plan)
def _seed_grid(thresholds, rate=50.0, grid=(0.1, 0.2, 0.3, 0.4)):
    """Runs of one rate: seed k loops below thresholds[k] (None: at every alpha) and finishes from it on."""
    return pd.DataFrame([{"rate": rate, "alpha": a, "seed": k, "completed": t is not None and a >= t - 1e-12}
                         for k, t in enumerate(thresholds) for a in grid])


def test_alpha_spread_and_its_verdict():
    sp = RR.alpha_spread(_seed_grid([0.2, 0.3, 0.2]), 50.0)
    assert (sp["seeds"], sp["values"], sp["lo"], sp["hi"]) == (3, [0.2, 0.3, 0.2], 0.2, 0.3)
    assert RR.alpha_spread_text(sp) == "0.2 to 0.3 (3 seeds)"
    assert RR.alpha_spread_verdict(sp, 0.21) == "matches" and RR.alpha_spread_verdict(sp, 0.3) == "matches"
    assert RR.alpha_spread_verdict(sp, 0.31) == "differs" and RR.alpha_spread_verdict(sp, 0.19) == "differs"
    one = RR.alpha_spread(_seed_grid([0.2, 0.2, 0.2]), 50.0)  # no spread: the paper's value must be ours
    assert RR.alpha_spread_text(one) == "0.2 (3 seeds)" and RR.alpha_spread_verdict(one, 0.21) == "differs"
    low = RR.alpha_spread(_seed_grid([0.1, 0.2]), 50.0)  # a threshold at the grid's start may lie below it
    assert RR.alpha_spread_text(low) == "≤ 0.1 to 0.2 (2 seeds)" and RR.alpha_spread_verdict(low, 0.05) == "matches"
    never = RR.alpha_spread(_seed_grid([0.3, None]), 50.0)  # a seed that loops at every alpha: above the grid
    assert never["hi"] == float("inf") and RR.alpha_spread_text(never) == "0.3 to > 0.4 (2 seeds)"
    assert RR.alpha_spread_verdict(never, 0.5) == "matches" and RR.alpha_spread_verdict(never, 0.25) == "differs"
    assert RR.alpha_spread_verdict(RR.alpha_spread(_seed_grid([0.2]).iloc[:0], 50.0), 0.2) is None
    assert RR.alpha_spread_cell(_seed_grid([0.2, 0.3]), 0.24) == "matches: 0.2 to 0.3 (2 seeds) at 50/s"
    v = RR.alpha_values(pd.concat([_seed_grid([0.2, 0.3]), _seed_grid([0.1, 0.1], rate=10.0)]), [0.1, 0.2, 0.3, 0.4],
                        100, 50.0, 10.0, "lab", load=lambda rs: f"load {rs[0]:g}")
    # low demand: both seeds finish from the grid's start (≤ 0.1), so 001's 0.24 lies above our range
    assert (v["rt_alpha_verdict_hi"], v["rt_alpha_verdict_lo"]) == ("matches", "differs")
    assert v["rt_alpha_verdict"] == "reproduced at high demand only" and v["rt_alpha_seeds"] == 2
    assert list(v["rt-tab-alpha"].data.set_index("").loc["load"]) == ["load 50", "load 10"]


def test_alpha_spread_cells_and_merge():
    G = pd.concat([_seed_grid([0.2, 0.2]), _seed_grid([0.3, 0.3], rate=10.0)])
    G["hardware"] = "h100"
    rates_on = lambda wl, h, rates: [("rate", float(r)) for r in rates]  # noqa: E731
    cells = RR.alpha_spread_cells(["h100"], rates_on, lambda h: G[G.hardware == h], "lmsys", 50.0, 10.0)
    assert cells[("alpha_hi", "rate")]["h100"].startswith("differs: 0.2 (2 seeds)")  # 0.21 outside [0.2, 0.2]
    assert cells[("alpha_lo", "rate")]["h100"].startswith("differs: 0.3")
    old = {("alpha_hi", "rate"): {"a100": "kept", "h100": "replaced"}}
    RR.merge_cells(old, cells)
    assert old[("alpha_hi", "rate")]["a100"] == "kept" and old[("alpha_hi", "rate")]["h100"].startswith("differs")


def test_overloaded_splitwise_rates_are_left_out_of_the_verdict():
    cap = pd.DataFrame({"workload": ["splitwise", "splitwise-code"], "hardware": ["a100", "a100"],
                        "throughput": [0.6, 1.0]})
    rows = []
    for r, sf, mb in ((0.25, 10.0, 11.0), (0.5, 20.0, 21.0), (1.0, 90.0, 80.0)):  # MC-SF loses only when overloaded
        rows += [{"workload": wl, "rate": r, "name": nm, "avg_latency": x} for wl in ("splitwise", "splitwise-code")
                 for nm, x in (("MC-SF", sf), ("MC-Benchmark", mb))]
    SP = pd.DataFrame(rows)
    rates_on = lambda wl, h, rates: [("rate", float(r)) for r in rates]  # noqa: E731
    cells = RR.steady_splitwise_cells(["a100"], rates_on, SP, lambda t, h: SP, {"splitwise": [0.25, 0.5, 1.0],
                                                                                 "splitwise-code": [0.25, 1.0]}, cap)
    conv = cells[("sw_conv", "rate")]["a100"]
    assert conv.startswith("holds") and conv.endswith("overloaded, left out: 1/s")
    assert cells[("sw_code", "rate")]["a100"].startswith("fails")  # 1.0/s is not above the code trace's capacity
    assert cells[("sw_conv", "load")]["a100"] == "the reference"
    only_over = RR.steady_splitwise_cells(["a100"], rates_on, SP, lambda t, h: SP,
                                          {"splitwise": [1.0], "splitwise-code": [0.25]}, cap)
    assert only_over[("sw_conv", "rate")]["a100"] == "no steady-state rate; overloaded, left out: 1/s"
    t = RR.splitwise_values(SP[SP.workload == "splitwise"], "lab", cap)
    assert list(t["rt-tab-splitwise"].data["overloaded"]) == ["no", "no", "yes"] and t["rt_sw_overloaded"].startswith("1 ")
    assert RR.load_text(cap, "splitwise", "a100", [0.3, 1.2]) == "0.3/s = 0.50 × capacity; 1.2/s = 2.00 × capacity, overloaded"


def test_unfinished_note():
    df = pd.DataFrame({"name": ["a", "a", "b", "b"], "rate": [50.0, 10.0, 50.0, 50.0],
                       "completed": [True, False, False, False]})
    assert RR.unfinished_note(df, ("name", "rate")) == "3 of 4 (a, 10/s: 1; b, 50/s: 2)"
    assert RR.unfinished_note(df[df.completed]) == "none" and RR.unfinished_note(df.iloc[:0]) == "none"


def test_sharegpt_keys():
    P = _tiny_parameters(sg_table1_runs=2, alpha_grid_seeds=3, sg_alpha_grid=[0.2, 0.5])
    pol = RP.policy_sets({"fcfs", "mc-sf", "sorted-f", "a-max", "a-min", "h-sf"})
    rates_on = lambda wl, h, rates: [("rate", float(r)) for r in rates] + (  # noqa: E731
        [("load", 2.0 * r) for r in rates] if h != "a100" else [])
    keys = RP.sharegpt_keys(P, 0, {"memory": 100, "data": "shared", "user_csv": "u.csv"}, pol, rates_on)
    assert set(keys) == set(RP.SHAREGPT_TABLES)
    assert all("user_csv" not in k and k["data"] == "shared" for ks in keys.values() for k in ks)
    t1 = keys["sg_table1"]  # 2 runs x (A100 at 50/s + H100 at 50 and 100/s) x 8 configurations
    assert len(t1) == 2 * 3 * 8 and {k["unit"] for k in t1} == {"words"} and {k["rate"] for k in t1} == {50.0, 100.0}
    al = keys["sg_alpha"]  # 3 seeds x (A100: 2 rates, H100: 4) x 2 alphas
    assert len(al) == 3 * 6 * 2 and sorted({k["seed"] for k in al}) == [0, 1, 2]
    assert {k["hardware"] for k in al} == {"a100", "h100"} and {k["alpha"] for k in al} == {0.2, 0.5}
    m2 = keys["sg_mixed002"]
    assert {(k["hardware"], k["n"]) for k in m2} == {("a100", 20), ("a100", 40), ("h100", 40)}
    assert all(k["short"] == "sharegpt" and k["workload"] == "mixed002" for k in m2) and len(m2) == 3 * 4
    m3 = keys["sg_intervals003"]
    assert {k["pred"] for k in m3} == {"wide"} and {k["unit"] for k in m3} == {"tokens"} and len(m3) == 2 * 3
    gk = RP.gpu_keys(P, 0, {"workload": "lmsys"}, {"data": "x"}, pol, rates_on)["gpu_alpha"]
    assert sorted({k["seed"] for k in gk}) == [0, 1, 2] and len(gk) == 3 * 4 * 2  # three seeds on every GPU


def test_sharegpt_cells_and_values():
    from kvlib.serving.sharegpt import REAL_CONVERSATIONS

    names = RP.paper_configs()[1]
    t1 = pd.DataFrame([{"hardware": h, "rate": 50.0, "name": nm, "avg_latency": 10.0 + j, "completed": True}
                       for h in ("a100", "h100") for j, nm in enumerate(names)])
    al = _seed_grid([0.2, 0.3])
    al["hardware"] = "a100"
    mixed = pd.DataFrame([{"hardware": "a100", "n": 40, "policy": p, "selector": s, "avg_latency": x}
                          for p, s, x in (("fcfs", None, 9.0), ("mc-sf", None, 8.0), ("sorted-f", "swap", 5.0))])
    inter = pd.DataFrame([{"hardware": "a100", "n": 40, "policy": p, "avg_latency": x}
                          for p, x in (("a-max", 9.0), ("a-min", 6.0), ("h-sf", 5.0))])
    tabs = {f"sg_{t}": (SimpleNamespace(label=t), df) for t, df in
            (("table1", t1), ("alpha", al), ("mixed002", mixed), ("intervals003", inter))}
    fr = RR.sharegpt_frames(tabs)
    rates_on = lambda wl, h, rates: [("rate", float(r)) for r in rates]  # noqa: E731
    cells = RR.sharegpt_cells(["a100", "h100"], rates_on, fr, 50.0, 10.0)
    assert cells[("t1_sf", "rate")]["a100"].startswith("holds: 10.0 vs 11.0 s")
    assert cells[("alpha_hi", "rate")]["a100"].startswith("matches: 0.2 to 0.3")
    assert cells[("alpha_hi", "load")]["a100"] == "the reference"
    assert cells[("mixed", "zero")]["a100"].startswith("holds") and cells[("amin_hsf", "zero")]["a100"].startswith("fails")
    assert cells[("mixed", "zero")]["h100"] == "no runs"
    empty = {k: pd.DataFrame() for k in fr}  # nothing stored yet: every cell says so
    none = RR.sharegpt_cells(["a100"], rates_on, empty, 50.0, 10.0)
    assert {none[(k, c)]["a100"] for k, c in none if c != "load"} == {"no runs"}
    lm = {("t1_sf", "rate"): {"a100": "lmsys verdict"}}
    tab1_lm = pd.DataFrame({"mean": [1.0] * len(names)}, index=names)
    v = RR.sharegpt_values(fr, names, cells, lm, ["a100", "h100"], tab1_lm, {"sg_table1": "lab"}, 50.0)
    verdict = v["rt-tab-sg-verdict"].data
    assert verdict.loc[0, "A100, synthetic (LMSYS-like)"] == "lmsys verdict" and "H100" in verdict
    assert v["rt_sg_label"] == REAL_CONVERSATIONS and v["rt_sg_t1_sf"] == "10.0 s"
    assert (v["rt_sg_cells"], v["rt_sg_held"]) == _decided(verdict)
    assert list(v["rt-tab-sg-table1"].data["LMSYS-like mean (s)"]) == [1.0] * len(names)


def _decided(verdict):
    from kvlib.book.chapters.realtrace import gpus as RG

    return RG.decided(verdict, ["a100", "h100"])


def test_sharegpt_source_note_names_the_stand_in():
    from kvlib.serving.workloads import FALLBACK_LABEL

    assert FALLBACK_LABEL in RR.sharegpt_source_note(FALLBACK_LABEL)
    assert "file itself" in RR.sharegpt_source_note("real trace: sharegpt_v3_llama2_lengths.csv (tokens)")


def test_policy_names_write_003_policies_as_the_book_does():
    """Tables and verdict text say Aₘᵢₙ and Aₘₐₓ (subscripts, no code name), figure legends the book's
    mathtext; no label of the page carries an underscore."""
    from kvlib.book.chapters.realtrace.gpus import CLAIMS, intervals_cell
    from kvlib.book.chapters.realtrace.page import POLICY_NAMES, policy_math

    assert policy_display("a-min") == "Aₘᵢₙ" and policy_display("a-max") == "Aₘₐₓ"
    assert policy_math("a-min") == r"$\mathcal{A}_{\min}$" and policy_math("mc-sf") == "MC-SF"
    assert not [v for v in POLICY_NAMES.values() if "_" in v]
    assert not [c for _, c, _ in CLAIMS if "_" in c]
    df = pd.DataFrame({"policy": ["a-min", "a-max", "h-sf"], "n": [100] * 3, "avg_latency": [2.0, 4.0, 1.0]})
    assert intervals_cell(df, "amin_amax") == "holds: 0.50 × Aₘₐₓ at 100"


def test_round_budget_as_the_page_states_it():
    """The page says an α-protection run is stopped after ten times MC-Benchmark's rounds plus 1,000
    (book/typed_numbers.yml allows the typed 1,000): the row code must say the same."""
    import inspect

    from kvlib.book.chapters.realtrace import rows

    assert rows.ROUND_CAP == 10
    assert 'ROUND_CAP * int(ref["rounds"]) + 1000' in inspect.getsource(rows.realtrace_row)


def test_setting_values_follow_the_code():
    """The settings the prose restates are read from the modules that use them."""
    from kvlib.book.chapters.realtrace.prose import BATCH_EXAMPLES, paper_table1_values, setting_values
    from kvlib.serving.sharegpt import VLLM_FILTER

    v = setting_values()
    assert (v["rt_sg_min_tokens"], v["rt_sg_max_prompt"], v["rt_sg_max_total"]) == (
        VLLM_FILTER["min_tokens"], VLLM_FILTER["max_prompt_tokens"], VLLM_FILTER["max_total_tokens"])
    assert v["rt_mix_short_pct"] + v["rt_mix_long_pct"] == 100 and v["rt_mix_short_pct"] == 80
    assert v["rt_ref_batch"] == 16 and v["rt_ref_tokens"] == 16492 and v["rt_sha_digits"] == 12
    assert v["rt_lp_nnz_max_m"] == 1.5 and v["rt_kv_bytes"] == 4096
    assert paper_table1_values() == {"rt_paper_t1_sf": 32.112, "rt_paper_t1_mb": 46.472, "rt_paper_t1_a3": 51.933}

    class Model:  # records the batches timed
        def __init__(self):
            self.calls = []

        def batch_ms(self, *a):
            self.calls.append(a)
            return 1.0

    m = Model()
    RR.batchtime_values(m, {"layer_r2": 1.0, "layer_median_rel_err": 0.0})
    assert (0, BATCH_EXAMPLES["decode_n"], BATCH_EXAMPLES["decode_kv"]) in m.calls
    assert m.calls[-1][0] == BATCH_EXAMPLES["prefill_tokens"]


def test_share_status_is_the_findings_verdict():
    from kvlib.book.chapters.realtrace.prose import share_status

    assert share_status(5, 5) == "reproduced" and share_status(0, 5) == "not reproduced"
    assert share_status(3, 5) == "partly reproduced" and share_status(0, 0) == "not checked"
    with pytest.raises(ValueError, match="held = 6"):
        share_status(6, 5)


def test_figures_write_legends_at_a_readable_size():
    """Every legend and tick label of the chapter's figures is at least 10 pt (about 8 px or more once the
    page scales a 10-inch figure to its column), and Figure 3 draws MC-SF above the other curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvlib.book import figtext
    from kvlib.book.chapters.realtrace import figures as RF

    rows = [{"name": nm, "rate": r, "n": n, "avg_latency": float(n) / (2 if nm == "MC-SF" else 1)}
            for nm in ("MC-SF", "MC-Benchmark") for r in (50, 10) for n in (100, 200)]
    fig = RF.fig3_figure(pd.DataFrame(rows), [50, 10], ["MC-SF", "MC-Benchmark"])
    rec = figtext.smallest_text(fig)
    assert rec["px"] >= 10 * fig.dpi / 72 - 1e-9, rec
    sf = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "MC-SF"][0]
    assert sf.get_zorder() > max(ln.get_zorder() for ln in fig.axes[0].get_lines() if ln is not sf)
    plt.close(fig)
    M3 = pd.DataFrame([{"pred": p, "policy": pol, "n": n, "avg_latency": 1.0 + n}
                       for p in ("[1,1000]", "x=0.1") for pol in ("a-min", "a-max", "h-sf") for n in (10, 20)])
    fig = RF.intervals003_figure(M3)
    assert figtext.smallest_text(fig)["px"] >= 10 * fig.dpi / 72 - 1e-9
    labels = [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]
    assert r"$\mathcal{A}_{\min}$" in labels and not [x for x in labels if "_" in x and "$" not in x]
    plt.close(fig)
