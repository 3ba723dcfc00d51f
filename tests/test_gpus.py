"""The real-trace experiments on a chosen GPU (kvlib.serving.gpus) and the hardware verdicts (kvlib.book.chapters.realtrace.gpus)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kvlib.core.errors import InstanceError, ParameterError
from kvlib.policies import make_policy
from kvlib.serving import gpus
from kvlib.serving.experiments import build_workload, run_spec, smallest_stable_alpha
from kvlib.serving.measured import measured_model
from kvlib.serving.realtime import simulate_realtime
from kvlib.serving.workloads import default_shared_dir

from kvlib.serving.workloads import CODE_CSV, _FALLBACK_STATS, load_splitwise_code

SHARED = default_shared_dir()
CODE = _FALLBACK_STATS["splitwise-code"]  # (lo, hi, median, mean) per column
needs_shared = pytest.mark.skipif(SHARED is None or not (SHARED / CODE_CSV).exists(),
                                  reason="needs ../shared/data")

SPEC = {"workload": "lmsys", "n": 120, "rate": 50.0, "seed": 3, "policy": "mc-sf"}


def test_run_on_uses_the_hardware_model():
    w = build_workload(SPEC)
    for hw in gpus.GPUS:
        direct = simulate_realtime(w, make_policy("mc-sf"), memory=16492, seed=3, model=measured_model(hw),
                                   on_stall="return")
        r = gpus.run_on(SPEC, hw)
        assert r["hardware"] == hw and r["attention"] == "measured"
        assert r["avg_latency"] == direct.avg_latency and r["rounds"] == direct.rounds
        assert r["valid"] is True and r["completed"]
        assert r["mean_round_ms"] == pytest.approx(float(np.mean(direct.batch_ms)))


def test_default_is_the_measured_a100_and_derived_is_batchtime_s_model():
    """run_spec and simulate_realtime default to the measured A100; attention='derived' is batchtime.py's
    assumption (its default_model)."""
    from kvlib.serving.batchtime import default_model

    w = build_workload(SPEC)
    a = gpus.run_on(SPEC, "a100", "derived")
    b = simulate_realtime(w, make_policy("mc-sf"), memory=16492, seed=3, model=default_model(), on_stall="return")
    assert a["avg_latency"] == pytest.approx(b.avg_latency, rel=1e-9) and a["rounds"] == b.rounds
    m = run_spec(dict(SPEC))
    assert m["hardware"] == "a100" and m["attention"] == "measured"
    assert m["avg_latency"] == gpus.run_on(SPEC, "a100")["avg_latency"]
    assert m["avg_latency"] == simulate_realtime(w, make_policy("mc-sf"), memory=16492, seed=3).avg_latency
    assert m["avg_latency"] != pytest.approx(a["avg_latency"], rel=1e-6)  # the point of the change


def test_faster_gpu_has_more_capacity_and_equal_utilisation_scales():
    spec = {"workload": "lmsys", "n": 200, "seed": 1}
    cap = {hw: gpus.saturation_throughput(spec, hw)["throughput"] for hw in gpus.GPUS}
    assert cap["h100"] > 1.5 * cap["a100"] and cap["h200"] > 1.5 * cap["a100"]
    r = gpus.equal_utilisation_rate(50, cap["h100"], cap["a100"])
    assert r == round(50 * cap["h100"] / cap["a100"], 2)
    assert gpus.equal_utilisation_rate(10, 3.0, 2.0) == 15.0


@pytest.mark.parametrize("bad", [
    dict(rate=0, capacity=1, base_capacity=1), dict(rate=1, capacity=-2, base_capacity=1),
    dict(rate=1, capacity=1, base_capacity=float("nan")), dict(rate="x", capacity=1, base_capacity=1)])
def test_equal_utilisation_rate_names_the_bad_argument(bad):
    culprit = next(k for k, v in bad.items() if not (isinstance(v, (int, float)) and v == v and v > 0))
    with pytest.raises(ParameterError, match=culprit):
        gpus.equal_utilisation_rate(**bad)


def test_unknown_hardware_is_named():
    with pytest.raises(ParameterError, match="hardware.*'b200'"):
        gpus.run_on(SPEC, "b200")
    with pytest.raises(ParameterError, match="hardware"):
        gpus.reference_round_ms(None)


def test_reference_round_is_convert_s_round():
    from kvlib.cli import default_round_seconds

    for hw in gpus.GPUS:
        assert round(gpus.reference_round_ms(hw), 1) / 1000 == pytest.approx(default_round_seconds(hw))


def test_at_zero_moves_every_arrival():
    w = build_workload({**SPEC, "at_zero": True})
    assert np.all(w.arrival_s == 0) and w.n == 120
    assert np.array_equal(w.prompt, build_workload(SPEC).prompt)


def test_code_trace_fallback_is_labelled_and_matches_its_statistics():
    w = load_splitwise_code(None, fallback=True, seed=0)
    assert w.sha256 is None and "fallback" in w.label and w.n == 8819 and w.name == "splitwise-code"
    assert np.all(np.diff(w.arrival_s) >= 0) and w.arrival_s.max() <= CODE["span"]
    for col, arr in (("prompt", w.prompt), ("output", w.output)):
        lo, hi, _, mean = CODE[col]
        assert lo <= arr.min() and arr.max() <= hi
        assert np.mean(arr) == pytest.approx(mean, rel=0.08)
    with pytest.raises(InstanceError, match="splitwise_code.csv"):
        load_splitwise_code("/nonexistent-dir", fallback=False)


def test_code_trace_rejects_decreasing_arrivals(tmp_path):
    (tmp_path / CODE_CSV).write_text("arrived_at,num_prefill_tokens,num_decode_tokens\n0,5,3\n2,4,4\n1,3,3\n")
    with pytest.raises(InstanceError, match=r"line 4, column arrived_at"):
        load_splitwise_code(tmp_path)


@needs_shared
def test_code_trace_from_the_file():
    w = load_splitwise_code(SHARED)
    assert w.n == 8819 and w.label == f"real trace: {CODE_CSV}" and len(w.sha256) == 64
    for col, arr in (("prompt", w.prompt), ("output", w.output)):  # the stand-in's statistics are the file's
        lo, hi, median, mean = CODE[col]
        assert (arr.min(), arr.max(), float(np.median(arr)), round(float(arr.mean()), 1)) == (lo, hi, median, mean)
    spec = {"workload": "splitwise-code", "n": 100, "rate": 0.5, "seed": 0, "shared_dir": str(SHARED)}
    b = build_workload(spec)
    assert b.n == 100 and (b.n - 1) / (b.arrival_s.max() - b.arrival_s.min()) == pytest.approx(0.5)


@needs_shared
def test_attention_check_rows_cover_vidur_s_profile(monkeypatch):
    from kvlib.book.chapters.realtrace.data import ATTENTION_GROUPS, attention_check_row

    monkeypatch.setenv("KVBOOK_SHARED_DIR", str(SHARED))
    rows = [attention_check_row(*g) for g in ATTENTION_GROUPS]
    assert sum(r["rows"] for r in rows) == 10240 + 84
    for r in rows:  # the assumption is too fast on every row, and misses part of a round
        assert r["too_fast_share"] == 1.0
        assert 0 < r["median_round_err"] <= r["max_round_err"] < 1
    with pytest.raises(ValueError, match="kind"):
        attention_check_row("both", 1, 2)


# --------------------------------------------------------------------------- verdict cells


def _t1(sf, mb, others, unfinished=0):
    rows = [("MC-SF", sf), ("MC-Benchmark", mb)] + [(f"Benchmark α = {i}", v) for i, v in enumerate(others)]
    df = pd.DataFrame([{"name": n, "avg_latency": float(v), "completed": True} for n, v in rows for _ in range(2)])
    if unfinished:
        df.loc[len(df)] = {"name": "Benchmark α = 0", "avg_latency": np.nan, "completed": False}
    return df


def test_table1_cells():
    from kvlib.book.chapters.realtrace.gpus import table1_cell

    assert table1_cell(_t1(10, 12, [13, 14]), "t1_sf").startswith("holds: 10.0 vs 12.0 s")
    assert table1_cell(_t1(13, 12, [13, 14]), "t1_sf").startswith("fails")
    assert table1_cell(_t1(10, 12, [13, 14]), "t1_mb") == "holds: 12.0 vs 13.0 s"
    assert table1_cell(_t1(10, 13.5, [13, 14], unfinished=1), "t1_mb") == "fails: 13.5 vs 13.0 s (1 unfinished)"
    assert table1_cell(_t1(10, 12, [13])[:0], "t1_sf") == "no runs"


def test_alpha_cell():
    from kvlib.book.chapters.realtrace.gpus import alpha_cell

    grid = [0.19, 0.2, 0.21, 0.22]
    df = pd.DataFrame({"rate": 50.0, "alpha": grid, "completed": [False, True, True, True]})
    assert alpha_cell(df, 0.21, 0.01, smallest_stable_alpha) == "matches: 0.2 at 50/s"
    assert alpha_cell(df, 0.24, 0.01, smallest_stable_alpha).startswith("differs: 0.2")
    df["completed"] = True  # below the grid: "≤", never a match
    assert alpha_cell(df, 0.19, 0.01, smallest_stable_alpha) == "differs: ≤ 0.19 at 50/s"
    z = pd.DataFrame({"rate": 10.0, "alpha": [0.0, 0.01], "completed": True})
    assert alpha_cell(z, 0.24, 0.01, smallest_stable_alpha) == "differs: 0 (no loop at any α) at 10/s"
    df["completed"] = False
    assert alpha_cell(df, 0.21, 0.01, smallest_stable_alpha).startswith("differs: loops")


def test_mixed_intervals_and_splitwise_cells():
    from kvlib.book.chapters.realtrace.gpus import intervals_cell, mixed_cell, splitwise_cell

    m = pd.DataFrame([{"n": n, "name": nm, "avg_latency": v * n} for n in (400, 800)
                      for nm, v in (("sorted-f(selector=swap)", 1.0), ("mc-sf", 2.0), ("fcfs", 3.0))])
    assert mixed_cell(m) == "holds: 0.50 × MC-SF at 800"
    m.loc[(m.n == 400) & (m.name == "fcfs"), "avg_latency"] = 1.0
    assert mixed_cell(m).startswith("fails")
    i = pd.DataFrame([{"n": 400, "policy": p, "avg_latency": v} for p, v in (("a-min", 11.0), ("a-max", 30.0), ("h-sf", 10.0))])
    assert intervals_cell(i, "amin_amax") == "holds: 0.37 × Aₘₐₓ at 400"
    assert intervals_cell(i, "amin_hsf") == "holds: 1.10 × H-SF at 400"
    i.loc[i.policy == "a-min", "avg_latency"] = 11.5
    assert intervals_cell(i, "amin_hsf").startswith("fails: 1.15")
    s = pd.DataFrame([{"rate": r, "name": nm, "avg_latency": v * r} for r in (0.5, 1.0)
                      for nm, v in (("MC-SF", 1.0), ("MC-Benchmark", 2.0), ("Benchmark α = 0.3", 4.0))])
    assert splitwise_cell(s) == "holds: 0.50-0.50 × next best, 0.5-1/s"
    s.loc[(s.rate == 1.0) & (s.name == "MC-SF"), "avg_latency"] = 2.0  # ties MC-Benchmark: no queue
    assert splitwise_cell(s) == "holds: 0.50-1.00 × next best, 0.5-1/s; ties (within 0.1 %) at 1/s"
    s.loc[(s.rate == 1.0) & (s.name == "MC-SF"), "avg_latency"] = 2.001  # 0.05 % worse: still a tie
    assert splitwise_cell(s).startswith("holds")
    s.loc[(s.rate == 1.0) & (s.name == "MC-SF"), "avg_latency"] = 2.1
    assert splitwise_cell(s).startswith("fails")
    s.loc[s.name == "MC-SF", "avg_latency"] = s.loc[s.name == "MC-Benchmark", "avg_latency"].to_numpy()
    assert splitwise_cell(s).startswith("fails")  # ties everywhere: nothing shown


def test_verdict_rows_layout():
    from kvlib.book.chapters.realtrace.gpus import CLAIMS, verdict_rows

    v = verdict_rows({("t1_sf", "rate"): {"a100": "holds: x"}})
    rated = sum(1 for _, _, r in CLAIMS if r)
    assert len(v) == 2 * rated + (len(CLAIMS) - rated)
    assert list(v.columns) == ["claim", "comparison", "A100", "H100", "H200"]
    assert v.loc[0, "A100"] == "holds: x" and v.loc[0, "H100"] == "-"
    assert v.loc[1, "claim"] == ""  # the same-utilisation row continues the claim above


def test_summary_table_keeps_the_verdict_word_and_repeats_t0_claims():
    from kvlib.book.chapters.realtrace.gpus import CLAIMS, summary_table

    cells = {("t1_sf", "rate"): {"a100": "holds: 1 vs 2 s", "h100": "fails: 3 vs 2 s"},
             ("t1_sf", "load"): {"h100": "holds: 1 vs 2 s"}, ("mixed", "zero"): {"h100": "holds: 0.5 × MC-SF at 400"}}
    t = summary_table(cells, ["a100", "h100"])
    assert list(t.columns) == ["claim", "A100", "H100, same rate", "H100, same load"] and len(t) == len(CLAIMS)
    assert t.iloc[0, 1:].tolist() == ["holds", "fails", "holds"]
    mixed = t[t.claim.str.startswith("002")].iloc[0]
    assert mixed["H100, same rate"] == mixed["H100, same load"] == "holds" and mixed["A100"] == "-"
