"""kvlib.book.chapters.hindsight.scaling.scaling_table: the exact-scaling summary shown in the hindsight chapter."""

import json
from pathlib import Path

import pandas as pd
import pytest

from kvlib.book.chapters.hindsight.scaling import (beyond_lp_counts, beyond_lp_table, lift_closed, lift_table, longer_limit_table,
                                lp_method_table, scaling_table)

ROOT = Path(__file__).resolve().parents[1]


def test_cells_count_proofs_and_gaps_over_seeds():
    rows = pd.DataFrame([
        dict(model="AM1", n=10, seed=0, solver="a", optimal=True, gap=0.0, seconds=4.0),
        dict(model="AM1", n=10, seed=1, solver="a", optimal=True, gap=0.0, seconds=10.0),
        dict(model="AM1", n=10, seed=0, solver="b", optimal=False, gap=0.10, seconds=60.0),
        dict(model="AM1", n=10, seed=1, solver="b", optimal=True, gap=0.0, seconds=50.0),
        dict(model="AM2", n=20, seed=0, solver="a", optimal=False, gap=0.125, seconds=60.0),
        dict(model="AM2", n=30, seed=0, solver="b", optimal=True, gap=0.0, seconds=12.4),
    ])
    t = scaling_table(rows, ["a", "b"])
    assert list(t.columns) == ["arrival model", "n", "seeds", "a", "b"]
    am1 = t.iloc[0]
    assert am1["a"] == "2/2 proved, median 7 s" and am1["seeds"] == 2
    assert am1["b"] == "1/2 proved; gap mean 5.0%, max 10.0%"
    am2 = t.iloc[1]
    assert am2["a"] == "12.5%" and am2["b"] == "not run"
    assert t.iloc[2]["b"] == "proved in 12 s" and t.iloc[2]["a"] == "not run"


def test_a_solver_run_on_fewer_seeds_is_counted_not_summarised():
    rows = pd.DataFrame([
        dict(model="AM1", n=20, seed=k, solver="a", optimal=False, gap=0.1 * (k + 1), seconds=60.0)
        for k in range(3)] + [
        dict(model="AM1", n=20, seed=0, solver="b", optimal=False, gap=0.2, seconds=60.0),
        dict(model="AM1", n=12, seed=0, solver="b", optimal=True, gap=0.0, seconds=7.0),
        dict(model="AM1", n=12, seed=1, solver="a", optimal=True, gap=0.0, seconds=3.0),
    ])
    t = scaling_table(rows, ["a", "b"]).set_index("n")
    assert t.loc[20, "seeds"] == 3 and t.loc[20, "a"] == "0/3 proved; gap mean 20.0%, max 30.0%"
    assert t.loc[20, "b"] == "0/1 proved; gap 20.0%"
    assert t.loc[12, "b"] == "1/1 proved in 7 s" and t.loc[12, "a"] == "1/1 proved in 3 s"


def test_bad_rows_are_named():
    rows = pd.DataFrame([dict(model="AM1", n=10, seed=0, solver="zz", optimal=True, gap=0.0, seconds=1.0)])
    with pytest.raises(ValueError, match=r"solver\(s\) \['zz'\]"):
        scaling_table(rows, ["a"])
    with pytest.raises(ValueError, match="seconds"):
        scaling_table(rows.drop(columns="seconds"), ["zz"])


def test_the_committed_benchmark_file_is_readable():
    path = ROOT / "benchmarks" / "exact_scaling_results.jsonl"
    rows = pd.DataFrame([json.loads(line) for line in path.read_text().splitlines() if line.strip()])
    t = scaling_table(rows, ["pipeline", "pipeline-v1", "highs", "cpsat", "scip"])
    assert len(t) >= 2 and not t.isna().any().any()


def _row(solver, seed, optimal, gap, seconds, limit, lower, upper, mcsf=110, n=15):
    return dict(model="AM1", n=n, seed=seed, solver=solver, optimal=optimal, gap=gap, seconds=seconds,
                time_limit=limit, lower=lower, upper=upper, mcsf=mcsf)


def test_longer_limit_table_pairs_instances_and_states_intervals():
    short = pd.DataFrame([_row("pipeline", 0, False, 0.04, 60.0, 60.0, 96, 100),
                          _row("pipeline", 1, True, 0.0, 20.0, 60.0, 100, 100),
                          _row("highs", 0, False, 0.5, 60.0, 60.0, 50, 100)])
    long = pd.DataFrame([_row("pipeline", 1, True, 0.0, 19.0, 900.0, 100, 100),
                         _row("pipeline", 0, True, 0.0, 611.4, 900.0, 100, 100),
                         _row("pipeline", 2, False, 0.02, 900.0, 900.0, 98, 100)])
    t = longer_limit_table(short, long)
    assert list(t.columns) == ["arrival model", "n", "seed", "60 s", "900 s", "certified TEL", "MC-SF / OPT"]
    assert t.seed.tolist() == [0, 1, 2]
    assert t.iloc[0]["60 s"] == "gap 4.0%" and t.iloc[0]["900 s"] == "proved in 611 s"
    assert t.iloc[0]["certified TEL"] == "OPT = 100" and t.iloc[0]["MC-SF / OPT"] == "1.1000"
    assert t.iloc[2]["60 s"] == "not run" and t.iloc[2]["certified TEL"] == "[98, 100]"
    assert t.iloc[2]["MC-SF / OPT"] == "[1.1000, 1.1224]"


def test_longer_limit_table_names_bad_input():
    good = pd.DataFrame([_row("pipeline", 0, True, 0.0, 5.0, 60.0, 100, 100)])
    with pytest.raises(ValueError, match=r"long exact-scaling rows lack the column\(s\) \['mcsf'\]"):
        longer_limit_table(good, good.drop(columns="mcsf"))
    with pytest.raises(ValueError, match="must exceed"):
        longer_limit_table(good, good)
    mixed = pd.concat([good, good.assign(seed=1, time_limit=120.0)])
    with pytest.raises(ValueError, match=r"short rows of 'pipeline' must have one time limit"):
        longer_limit_table(mixed, good.assign(time_limit=900.0))


def _lp(n, seed, method, bound, sep=100, converged=False, nnz=1000, budget=30.0):
    return dict(model="AM1", n=n, seed=seed, method=method, budget=budget, bound=bound, separation_lb=sep,
                converged=converged, nonzeros=nnz)


def test_lp_method_table_compares_the_two_ways_per_size():
    rows = pd.DataFrame([
        _lp(40, 0, "full", 120, converged=True), _lp(40, 0, "colgen", 120, converged=True),
        _lp(40, 1, "full", 110, nnz=3000), _lp(40, 1, "colgen", 105, nnz=3000),
        _lp(60, 0, "full", 90, sep=100, nnz=5000), _lp(60, 0, "colgen", 110, sep=100, nnz=5000),
        _lp(60, 1, "colgen", 130),  # no whole-LP run: left out
    ])
    t = lp_method_table(rows).set_index("n")
    assert list(t.index) == [40, 60]
    assert t.loc[40, "instances"] == 2 and t.loc[60, "instances"] == 1
    assert t.loc[40, "converged: whole / CG"] == "1 / 1"
    assert t.loc[40, "above separation: whole / CG"] == "+15.0% / +12.5%"  # (20% + 10%) / 2, (20% + 5%) / 2
    assert t.loc[40, "CG vs whole: higher / equal / lower"] == "0 / 1 / 1"
    # below the separation bound: shown, not hidden
    assert t.loc[60, "above separation: whole / CG"] == "-10.0% / +10.0%"
    assert t.loc[60, "CG vs whole: higher / equal / lower"] == "1 / 0 / 0"
    assert t.loc[40, "budget"] == "30 s"
    assert t.loc[40, "non-zeros (median)"] == "2,000"


def test_lp_method_table_names_bad_input():
    rows = pd.DataFrame([_lp(40, 0, "full", 120)])
    with pytest.raises(ValueError, match=r"method\(s\) \['colgen'\]"):
        lp_method_table(rows)
    with pytest.raises(ValueError, match="separation_lb"):
        lp_method_table(rows.drop(columns="separation_lb"))


def test_the_committed_lp_method_file_is_readable():
    path = ROOT / "benchmarks" / "lp_colgen_results.jsonl"
    rows = pd.DataFrame([json.loads(line) for line in path.read_text().splitlines() if line.strip()])
    t = lp_method_table(rows)
    assert len(t) >= 3 and not t.isna().any().any()


def _lift(n, seed, cond, value, opt=100, status="Optimal", pairs=0, seconds=1.0, model="AM1"):
    return dict(model=model, n=n, seed=seed, conditional=cond, opt=opt, value=value, status=status,
                pairs=pairs, seconds=seconds)


def test_lift_table_shows_values_and_the_share_of_the_gap_closed():
    rows = pd.DataFrame([
        _lift(10, 0, "none", 80.0), _lift(10, 0, "completion", 85.0, pairs=1000),
        _lift(10, 0, "run", 90.0, pairs=1000),
        _lift(12, 0, "none", 90.0), _lift(12, 0, "completion", 90.5, pairs=5000),
        _lift(12, 0, "run", float("nan"), status="Time limit reached", pairs=5000, seconds=1800.0),
        _lift(12, 1, "completion", 95.0),  # no LP row: left out
        _lift(14, 0, "none", 90.0), _lift(14, 0, "completion", 91.0, pairs=7000),  # no every-round lift
    ])
    t = lift_table(rows).set_index("n")
    assert list(t.index) == [10, 12, 14]
    assert t.loc[14, "lift at every round"] == "no result"
    assert t.loc[10, "LP"] == "80.00" and t.loc[10, "LP gap"] == "20.0%"
    assert t.loc[10, "lift at completions"] == "85.00 (25%)"
    assert t.loc[10, "lift at every round"] == "90.00 (50%)"
    assert t.loc[12, "lift at every round"] == "time limit reached after 1800 s"
    assert t.loc[12, "pairs"] == "5,000"
    assert not t.isna().any().any()
    c = lift_closed(rows, "completion").set_index("n")
    assert list(c.index) == [10, 12, 14]
    assert c.loc[10, "closed"] == pytest.approx(0.25) and c.loc[12, "closed"] == pytest.approx(0.05)
    assert c.loc[10, "lp_gap"] == pytest.approx(0.20)
    assert list(lift_closed(rows, "run").n) == [10]  # the unsolved lift is left out


def test_lift_table_names_bad_input():
    rows = pd.DataFrame([_lift(10, 0, "none", 80.0)])
    with pytest.raises(ValueError, match="opt"):
        lift_table(rows.drop(columns="opt"))
    with pytest.raises(ValueError, match="conditional must be"):
        lift_closed(rows, "all")
    assert lift_closed(rows, "run").empty


def _beyond(n, seed, ub, lp, targets, bb, proved=False, upper_long=None):
    row = dict(model="AM1", n=n, seed=seed, ub=ub, ub_proved=proved, lp=lp, targets=targets,
               destructive=max([lp] + [t["target"] for t in targets if t["status"].startswith("INFEASIBLE")]),
               bb=bb, bb_nodes=0, event_seconds=30.0, bb_time_limit=60.0, upper_time_limit=120.0)
    if upper_long is not None:
        row["upper_long"] = upper_long
    return row


def test_beyond_lp_table_shows_what_was_proved_above_the_lp():
    t1 = dict(fraction=0.01, target=101, status="INFEASIBLE", seconds=3.0)
    t2 = dict(fraction=0.02, target=102, status="UNKNOWN", seconds=30.0)
    rows = pd.DataFrame([
        _beyond(20, 0, 120, 100, [t1, t2], 100, upper_long=118.0),
        _beyond(15, 0, 110, 100, [dict(t2, fraction=0.01, target=101)], 101, proved=True),
        _beyond(15, 1, 100, 100, [], 100, proved=True),
    ])
    t = beyond_lp_table(rows)
    assert list(zip(t.n, t.seed)) == [(15, 0), (15, 1), (20, 0)]  # sorted by n, model, seed
    t = t.set_index(["n", "seed"])
    assert t.loc[(15, 0), "best TEL"] == "110 (optimal)" and t.loc[(20, 0), "best TEL"] == "120"
    assert t.loc[(15, 0), "LP gap"] == "9.1%"
    assert t.loc[(20, 0), "event model above the LP"] == "+1% (101); 102 (+2%) open after 30 s"
    assert t.loc[(15, 0), "event model above the LP"] == "nothing; 101 (+1%) open after 30 s"
    assert t.loc[(15, 1), "event model above the LP"] == "no target below the best TEL"
    assert t.loc[(15, 0), "B&B after 60 s"] == "101 (+1; 0 nodes)"
    assert t.loc[(20, 0), "long CP-SAT search"] == "118 in 120 s" and t.loc[(15, 0), "long CP-SAT search"] == "-"
    c = beyond_lp_counts(rows)
    assert c == dict(instances=3, raised=1, raised_max=pytest.approx(1.0), targets_open=1, bb_raised=1,
                     bb_max=pytest.approx(1.0), bb_nodes_max=0, bb_root_only=3, long_runs=1, long_better=1, long_worse=0)


def test_beyond_lp_table_names_bad_input():
    rows = pd.DataFrame([_beyond(15, 0, 110, 100, [], 100)])
    with pytest.raises(ValueError, match="targets"):
        beyond_lp_table(rows.drop(columns="targets"))
    with pytest.raises(ValueError, match="bb"):
        beyond_lp_counts(rows.drop(columns="bb"))
    assert beyond_lp_counts(rows)["long_runs"] == 0 and "long CP-SAT search" not in beyond_lp_table(rows)


def test_paired_solver_table_counts_per_size():
    from kvlib.book.chapters.hindsight.scaling import paired_solver_table

    def r(n, seed, lower, upper):
        return dict(model="AM1", n=n, seed=seed, lower=lower, upper=upper, optimal=lower >= upper,
                    gap=(upper - lower) / upper)

    a = pd.DataFrame([r(15, 0, 90, 100), r(15, 1, 50, 50), r(20, 0, 80, 100), r(30, 0, 1, 2)])
    b = pd.DataFrame([r(15, 0, 95, 100), r(15, 1, 50, 50), r(20, 0, 79, 98)])
    t = paired_solver_table(a, b, ("A", "B")).set_index("n")
    assert list(t.index) == [15, 20]  # n = 30 ran only in A
    assert t.loc[15, "instances"] == 2 and t.loc[15, "proved (A / B)"] == "1 / 1"
    assert t.loc[15, "mean gap (A / B)"] == "5.0% / 2.5%"
    assert t.loc[15, "B: lower bound higher / lower"] == "1 / 0" and t.loc[20, "B: lower bound higher / lower"] == "0 / 1"
    assert t.loc[20, "B: schedule better / worse"] == "1 / 0"
    with pytest.raises(ValueError, match="gap"):
        paired_solver_table(a.drop(columns="gap"), b, ("A", "B"))
