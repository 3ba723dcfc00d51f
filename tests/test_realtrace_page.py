"""Display helpers of the real-trace chapter's page (kvlib.book.realtrace_page)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from kvlib.book.realtrace_page import (COEFFICIENTS, coefficient_table, compress_points, data_files_display,
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
