"""Row function of the real-trace chapter's stored tables (kvlib.book.chapters.realtrace.rows)."""

from __future__ import annotations

import math

import pytest

from kvlib.book.chapters.realtrace.rows import (PAPER_CONFIGS, PAPER_LENGTHS_001, PAPER_TABLE1, ROUND_CAP, TIMING_COLUMNS,
                                  paper_name, realtrace_row)
from kvlib.book.store import Table
from kvlib.serving.experiments import run_spec


def _strip(row):
    return {k: v for k, v in row.items() if k not in TIMING_COLUMNS}


def test_row_is_deterministic_and_checked():
    key = dict(workload="lmsys", policy="mc-sf", n=80, rate=50.0, seed=3)
    a, b = realtrace_row(**key), realtrace_row(**key)
    assert _strip(a) == _strip(b)
    assert a["n_requests"] == 80 and a["completed"] and a["valid"] is True
    assert len(a["instance"]) == 16 and a["avg_latency"] > 0 and a["max_rounds"] == 0
    # another seed is another instance
    assert realtrace_row(**{**key, "seed": 4})["instance"] != a["instance"]


def test_clearing_policy_gets_the_round_cap_of_mc_benchmark():
    key = dict(workload="lmsys", n=80, rate=50.0, seed=3)
    row = realtrace_row(policy="alpha-beta-clearing", alpha=0.2, beta=0.1, **key)
    ref = run_spec(dict(key, policy="mc-benchmark", check=False))
    assert row["max_rounds"] == ROUND_CAP * ref["rounds"] + 1000
    # the benchmark and MC-SF see the same instance
    assert row["instance"] == realtrace_row(policy="mc-sf", **key)["instance"]


def test_mixed_workload_reports_both_sources():
    row = realtrace_row(workload="mixed002", policy="mc-sf", n=50, seed=1, data="embedded")
    assert row["lmsys_count"] + row["arxiv_count"] == 50 and row["arxiv_count"] == 10
    assert row["arxiv_p90"] >= row["arxiv_median"] and not math.isnan(row["lmsys_mean"])


def test_bad_data_argument_is_named():
    with pytest.raises(ValueError, match="data"):
        realtrace_row(workload="mixed002", policy="mc-sf", n=20, seed=1, data="/some/path")


def test_paper_names_match_table1():
    assert [paper_name(*c) for c in PAPER_CONFIGS] == list(PAPER_TABLE1)
    assert paper_name("alpha-beta-clearing", 0.1, 0.2) == "Benchmark α = 0.1, β = 0.2"
    assert paper_name("sorted-f") == "sorted-f" and paper_name("x", 0.5) == "x (α = 0.5)"
    with pytest.raises(ValueError):
        paper_name("alpha-greedy")
    assert PAPER_LENGTHS_001["unit"] == "words"
    # 001 Table 1: the minimum never exceeds the average, the maximum never falls below it
    assert all(mn <= avg <= mx for avg, _, mx, mn in PAPER_TABLE1.values())


def test_table_summary_while_rows_are_computed():
    t = Table("c", "t", "write", "full", None, {}, 5)
    assert t.n_rows == 0 and t.commits == [] and t.summary()["rows"] == 0


def test_sweep_verdicts_minimiser_ties_and_missing_points():
    import pandas as pd

    from kvlib.book.chapters.realtrace.rows import PAPER_SWEEP_RANGES_001, sweep_point_latency, sweep_verdicts

    nan = float("nan")
    rows = []
    # high demand, beta = 0.1: alpha = 0.05 is stopped in one of its two runs (missing), minimum at 0.1
    for a, lats in ((0.05, (90.0, nan)), (0.1, (100.0, 102.0)), (0.2, (104.0, 104.0)), (0.3, (120.0, 120.0))):
        rows += [{"rate": 50.0, "alpha": a, "beta": 0.1, "avg_latency": x} for x in lats]
    # low demand, alpha = 0.2: a flat beta sweep (exact ties) with one inside 001's range
    rows += [{"rate": 10.0, "alpha": 0.2, "beta": b, "avg_latency": 5.0} for b in (0.01, 0.1, 0.5)]
    v = sweep_verdicts(pd.DataFrame(rows), {50.0: "high", 10.0: "low"}, fixed=(0.1, 0.2))
    assert len(v) == 8
    hi = v[(v.rate == 50.0) & (v.swept == "alpha") & (v.fixed == "beta = 0.1")].iloc[0]
    assert hi["minimiser"] == "0.1" and hi["min latency"] == 101.0 and hi["points"] == 3
    assert hi["missing"] == "0.05"
    assert hi["within tol"] == "0.1, 0.2"          # 104 <= 1.05 * 101 < 120
    assert hi["minimiser in range"] is False and hi["paper range"] == "[0.15, 0.25]"
    assert hi["range within tol"] is True          # the range's only grid point, 0.2, is within 5%
    lo = v[(v.rate == 10.0) & (v.swept == "beta") & (v.fixed == "alpha = 0.2")].iloc[0]
    assert lo["minimiser"] == "0.01, 0.1, 0.5" and lo["minimiser in range"] is True
    # the point (alpha 0.2, beta 0.1) of the beta sweep is also a point of the alpha sweep at beta = 0.1
    shared = v[(v.rate == 10.0) & (v.swept == "alpha") & (v.fixed == "beta = 0.1")].iloc[0]
    assert shared["minimiser"] == "0.2" and shared["points"] == 1
    empty = v[(v.rate == 10.0) & (v.swept == "alpha") & (v.fixed == "beta = 0.2")]
    assert (empty["minimiser"] == "none").all() and empty["minimiser in range"].isna().all()
    assert math.isnan(sweep_point_latency([1.0, nan])) and math.isnan(sweep_point_latency([]))
    assert sweep_point_latency([1.0, 3.0]) == 2.0
    assert PAPER_SWEEP_RANGES_001[("low", "beta")] == (0.05, 0.20)
    with pytest.raises(ValueError, match="rate 50"):
        sweep_verdicts(pd.DataFrame(rows), {50.0: "medium"})
    with pytest.raises(KeyError, match="avg_latency"):
        sweep_verdicts(pd.DataFrame({"rate": [1.0], "alpha": [0.1], "beta": [0.1]}), {1.0: "high"})


def test_memory_profile_stats_time_weighted():
    from kvlib.book.chapters.realtrace.rows import memory_profile_stats

    # 10 tokens for 1 s, 30 tokens for 3 s: mean 25 of M = 50; the last value (60) has no duration
    st = memory_profile_stats([0.0, 1.0, 4.0], [10, 30, 60], 50)
    assert st == {"peak": 60, "mean_fraction": 0.5, "within": False}
    assert memory_profile_stats([0.0, 2.0], [40, 0], 50)["within"] is True
    with pytest.raises(ValueError, match="equal count"):
        memory_profile_stats([0.0], [1], 10)
    with pytest.raises(ValueError, match="non-decreasing"):
        memory_profile_stats([1.0, 0.0], [1, 1], 10)
