"""Store rows for the real-trace chapter (``notebooks/realtrace.py``): one continuous-time simulation per row.

:func:`realtrace_row` runs one (configuration, rate, size, seed[, hardware]) simulation with
:func:`kvlib.serving.experiments.run_spec` (timed by the measured batch-time model of a GPU, A100 by default)
and returns flat output columns for the results store
(:mod:`kvlib.book.store`): the number of requests, a hash of the instance, the average latency
(seconds; NaN when the run was stopped), completion and checker verdict, makespan, rounds,
evictions, peak memory, the mean round (ms), and the scheduler's and the simulation's seconds (timing columns).

Endless clearing.  The alpha-protection baselines of 001 Section 5.2 can clear and re-admit
forever.  For them the row first runs MC-Benchmark (FCFS with the look-ahead test) on the same
workload and stops the baseline after ``ROUND_CAP`` times as many rounds plus 1,000; such a run
counts as an endless clearing loop (``completed`` False).  The simulator's own stall rule (no
request completes for ``4 max o + 100`` rounds) applies to every policy.

:data:`PAPER_CONFIGS` lists MC-SF, MC-Benchmark and the six benchmark configurations of
001 Section 5.2 in the order of 001 Appendix C Table 1; :data:`PAPER_TABLE1` holds the values
that table reports (the paper's numbers, for display beside ours); :func:`paper_name` names a
configuration as the paper does.

:data:`PAPER_SWEEP_RANGES_001` holds the parameter ranges 001 Appendix C recommends in the text
beside its Figures 7, 8, 10 and 11; :func:`sweep_verdicts` compares the minimiser of a stored
sweep with them.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

from kvlib.serving.experiments import run_spec
from kvlib.serving.realtime import PAPER_MEMORY

__all__ = ["ROUND_CAP", "PAPER_CONFIGS", "PAPER_TABLE1", "PAPER_LENGTHS_001", "PAPER_ALPHA_001", "paper_name", "config_opts",
           "workload_hash", "realtrace_row", "capacity_row", "TIMING_COLUMNS", "IGNORE_COLUMNS",
           "PAPER_SWEEP_RANGES_001", "sweep_point_latency", "sweep_verdicts", "memory_profile_stats"]

ROUND_CAP = 10
CLEARING = ("alpha-greedy", "alpha-beta-clearing")
TIMING_COLUMNS = ["scheduler_s", "sim_s"]
IGNORE_COLUMNS: list[str] = []

# (policy, alpha, beta) in the order of 001 Appendix C Table 1: MC-SF, MC-Benchmark and the six
# benchmark configurations named in 001 Section 5.2 (alpha = 0.3, 0.25; alpha, beta in {0.2, 0.1}).
PAPER_CONFIGS: list[tuple[str, float | None, float | None]] = [
    ("mc-sf", None, None), ("mc-benchmark", None, None),
    ("alpha-greedy", 0.3, None), ("alpha-greedy", 0.25, None),
    ("alpha-beta-clearing", 0.2, 0.2), ("alpha-beta-clearing", 0.2, 0.1),
    ("alpha-beta-clearing", 0.1, 0.2), ("alpha-beta-clearing", 0.1, 0.1),
]

# 001 Appendix C Table 1 (the paper's numbers): average latency in seconds over 50 runs of 1,000
# requests at lambda = 50 per second: average, standard deviation, maximum, minimum.
PAPER_TABLE1: dict[str, tuple[float, float, float, float]] = {
    "MC-SF": (32.112, 0.354, 33.097, 31.505),
    "MC-Benchmark": (46.472, 0.310, 47.135, 45.838),
    "Benchmark α = 0.3": (51.933, 0.324, 52.532, 51.204),
    "Benchmark α = 0.25": (51.046, 0.351, 51.757, 50.279),
    "Benchmark α = 0.2, β = 0.2": (50.401, 0.343, 51.035, 49.700),
    "Benchmark α = 0.2, β = 0.1": (50.395, 0.360, 51.083, 49.586),
    "Benchmark α = 0.1, β = 0.2": (53.393, 1.457, 56.357, 49.488),
    "Benchmark α = 0.1, β = 0.1": (50.862, 0.946, 53.978, 49.086),
}

# 001 Section 5.2 (dataset overview): the paper's length statistics of its LMSYS sample. The
# paper counts WORDS (it takes each word of the response as an output token, and its Appendix C
# Figure 5 plots word counts), not tokenizer tokens.
PAPER_LENGTHS_001 = {"unit": "words", "prompt_mean": 40.62, "prompt_median": 11.0,
                     "output_mean": 85.32, "output_median": 45.0}

# 001 Section 5.2 (the paper's numbers): the smallest alpha for which alpha-protection greedy avoids endless
# clearing loops, at high (lambda = 50/s) and low (lambda = 10/s) demand.
PAPER_ALPHA_001 = {"high": 0.21, "low": 0.24}

# 001 Appendix C, text beside Figures 7, 8 (high demand, lambda = 50/s) and 10, 11 (low demand,
# lambda = 10/s): the ranges of the swept parameter that the paper reports as minimising (alpha) or
# performing well (beta) for both fixed values of the other parameter (0.1 and 0.2). Keys: (demand, swept).
PAPER_SWEEP_RANGES_001: dict[tuple[str, str], tuple[float, float]] = {
    ("high", "alpha"): (0.15, 0.25), ("high", "beta"): (0.05, 0.25),
    ("low", "alpha"): (0.10, 0.25), ("low", "beta"): (0.05, 0.20),
}


def sweep_point_latency(values) -> float:
    """Mean latency of one sweep point over its runs; NaN (missing) when there is no run or any run
    was stopped as an endless clearing loop (its ``avg_latency`` is NaN)."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()) if v.size and not np.isnan(v).any() else float("nan")


def _fmt_points(xs) -> str:
    return ", ".join(f"{x:g}" for x in xs) if len(xs) else "none"


def sweep_verdicts(sw, demands: dict, fixed=(0.1, 0.2), tol: float = 0.05, ties: float = 1e-9):
    """Per demand rate and fixed value, the minimiser of a stored alpha or beta sweep against 001's range.

    ``sw``: the rows of the sweep table (columns ``rate``, ``alpha``, ``beta``, ``avg_latency``);
    ``demands``: rate -> ``"high"`` or ``"low"`` (the keys of :data:`PAPER_SWEEP_RANGES_001`);
    ``fixed``: the fixed values of the other parameter (001 uses 0.1 and 0.2).  For each (rate, swept
    parameter, fixed value) the latency of a grid point is :func:`sweep_point_latency` over its seeds;
    missing points (a run stopped as an endless clearing loop) are listed in ``missing`` and left out.  Returns one row per sweep: the minimisers (every point within a
    relative ``ties`` of the minimum, so exact ties all count), the minimum latency, the points within
    ``tol`` (relative) of it, the paper's range, whether a minimiser lies in that range, and whether
    every grid point inside the paper's range that has a value lies within ``tol`` of the minimum.
    A sweep with no finished point gets NaN/"none" and the verdicts None.
    """
    import pandas as pd

    missing = [c for c in ("rate", "alpha", "beta", "avg_latency") if c not in sw.columns]
    if missing:
        raise KeyError(f"sweep_verdicts: the sweep table has no column(s) {missing}")
    rows = []
    for rate, demand in demands.items():
        if demand not in ("high", "low"):
            raise ValueError(f"sweep_verdicts: demand of rate {rate!r} must be 'high' or 'low', got {demand!r}")
        d = sw[sw["rate"] == rate]
        for swept, other in (("alpha", "beta"), ("beta", "alpha")):
            lo, hi = PAPER_SWEEP_RANGES_001[(demand, swept)]
            for f in fixed:
                e = d[np.isclose(d[other], f)].groupby(swept)["avg_latency"].agg(sweep_point_latency)
                gone = [float(x) for x in e.index[e.isna()]]
                e = e.dropna()
                row = {"rate": float(rate), "demand": demand, "swept": swept, "fixed": f"{other} = {f:g}",
                       "points": int(len(e)), "missing": _fmt_points(gone), "paper range": f"[{lo:g}, {hi:g}]"}
                if len(e):
                    m = float(e.min())
                    mins = [float(x) for x in e.index[e <= m * (1 + ties)]]
                    near = [float(x) for x in e.index[e <= m * (1 + tol)]]
                    inside = e[(e.index >= lo - 1e-12) & (e.index <= hi + 1e-12)]
                    row.update({"minimiser": _fmt_points(mins), "min latency": m, "within tol": _fmt_points(near),
                                "minimiser in range": any(lo - 1e-12 <= x <= hi + 1e-12 for x in mins),
                                "range within tol": bool(len(inside)) and bool((inside <= m * (1 + tol)).all())})
                else:
                    row.update({"minimiser": "none", "min latency": float("nan"), "within tol": "none",
                                "minimiser in range": None, "range within tol": None})
                rows.append(row)
    return pd.DataFrame(rows)


def memory_profile_stats(ts, mem, memory: int) -> dict:
    """Peak, time-averaged fraction of ``memory`` and "never above ``memory``" of a memory trace.

    ``ts`` (seconds, non-decreasing) and ``mem`` (tokens held from ``ts[i]`` until ``ts[i+1]``) are a
    step function, as kept by the simulator; the last value has no duration.  Needs two points or more.
    """
    t, m = np.asarray(ts, dtype=float), np.asarray(mem, dtype=float)
    if t.shape != m.shape or t.size < 2:
        raise ValueError(f"memory_profile_stats: need two or more (time, memory) points of equal count, "
                         f"got {t.size} times and {m.size} values")
    if np.any(np.diff(t) < 0):
        raise ValueError("memory_profile_stats: times must be non-decreasing")
    if memory <= 0:
        raise ValueError(f"memory_profile_stats: memory must be positive, got {memory}")
    span = t[-1] - t[0]
    mean = float(np.sum(m[:-1] * np.diff(t)) / span) if span > 0 else float(m[0])
    return {"peak": int(m.max()), "mean_fraction": mean / memory, "within": bool(m.max() <= memory)}


def paper_name(policy: str, alpha: float | None = None, beta: float | None = None) -> str:
    """A configuration as 001 names it: ``MC-SF``, ``MC-Benchmark``, ``Benchmark α = 0.2, β = 0.1``.

    Other policies keep their registry name (with ``alpha``/``beta`` appended when given).
    """
    if policy == "mc-sf":
        return "MC-SF"
    if policy == "mc-benchmark":
        return "MC-Benchmark"
    if policy == "alpha-greedy":
        if alpha is None:
            raise ValueError("paper_name: alpha-greedy needs alpha")
        return f"Benchmark α = {alpha:g}"
    if policy == "alpha-beta-clearing":
        if alpha is None or beta is None:
            raise ValueError("paper_name: alpha-beta-clearing needs alpha and beta")
        return f"Benchmark α = {alpha:g}, β = {beta:g}"
    extra = ([f"α = {alpha:g}"] if alpha is not None else []) + ([f"β = {beta:g}"] if beta is not None else [])
    return policy + (f" ({', '.join(extra)})" if extra else "")


def config_opts(policy: str, alpha=None, beta=None, selector=None) -> dict:
    """The policy options of a row key (only those given)."""
    opts = {}
    if alpha is not None:
        opts["alpha"] = float(alpha)
    if beta is not None:
        opts["beta"] = float(beta)
    if selector is not None:
        opts["selector"] = str(selector)
    return opts


def workload_hash(w, memory: int) -> str:
    """First 16 hex digits of the SHA-256 of a continuous-time instance (M, arrival seconds, s, o)."""
    h = hashlib.sha256()
    h.update(str(int(memory)).encode())
    h.update(np.asarray(w.arrival_s, dtype=np.float64).tobytes())
    for arr in (w.prompt, w.output):
        h.update(np.asarray(arr, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def realtrace_row(*, workload: str, policy: str, n: int, seed: int, rate: float | None = None,
                  alpha: float | None = None, beta: float | None = None, selector: str | None = None,
                  pred=None, memory: int = PAPER_MEMORY, data: str | None = None,
                  user_csv: str | None = None, hardware: str = "a100", attention: str = "measured",
                  unit: str | None = None, short: str | None = None) -> dict:
    """One continuous-time simulation (see the module docstring); deterministic in its arguments.

    ``workload``, ``n``, ``rate``, ``seed`` and ``user_csv`` are those of
    :func:`kvlib.serving.experiments.build_workload`; ``alpha``, ``beta``, ``selector`` are the
    policy's options; ``pred`` the 003 interval prediction; ``hardware`` the GPU whose measured batch-time
    model times the rounds (:func:`kvlib.serving.experiments.run_spec`; ``a100``: Vidur's measured profiles, the
    papers' set-up), ``attention="derived"`` the A100 with batchtime.py's assumed attention instead.  ``data`` (for the arXiv and
    Splitwise files): ``"shared"`` reads them from the shared data directory (``$KVBOOK_SHARED_DIR``,
    else ``../shared/data`` beside the repository; an error if absent), ``"embedded"`` uses the
    labelled synthetic stand-ins.  The key holds no path, so stored rows do not depend on where
    the repository lies; the ``data_sha256`` column records which file was read.  For the mixed 002 workload the row also reports the mean, median and
    90th percentile of the latency of the LMSYS-like and of the arXiv requests.

    ShareGPT V3 (:mod:`kvlib.serving.sharegpt`, real conversations, not the papers' LMSYS sample):
    ``workload="sharegpt"`` with ``unit`` ``"words"`` (001 Section 5.2 counts words) or ``"tokens"``, and
    ``workload="mixed002"`` with ``short="sharegpt"`` (ShareGPT as the short 80 %; its per-source columns are
    ``sharegpt_*`` instead of ``lmsys_*``).  Such a row also records the file's SHA-256 (``sharegpt_sha256``;
    ``data_sha256`` stays the arXiv file's in the mixture).  With ``data="shared"`` the file must be present.
    """
    from kvlib.serving.workloads import default_shared_dir

    if data not in (None, "shared", "embedded"):
        raise ValueError(f"realtrace_row: data must be 'shared' or 'embedded', got {data!r}")
    sd = None
    if data == "shared":
        sd = default_shared_dir()
        if sd is None:
            raise FileNotFoundError("realtrace_row: data='shared' but no shared data directory was found "
                                    "(set KVBOOK_SHARED_DIR or place it at ../shared/data beside the repository)")
    spec = {"workload": workload, "n": int(n), "rate": rate, "seed": int(seed), "policy": policy,
            "opts": config_opts(policy, alpha, beta, selector), "memory": int(memory),
            "hardware": hardware, "attention": attention,
            "shared_dir": str(sd) if sd else None, "user_csv": user_csv}
    if pred is not None:
        spec["pred"] = pred
    for k, v in (("unit", unit), ("short", short)):
        if v is not None:
            spec[k] = v
    if policy in CLEARING:
        ref = run_spec(dict(spec, policy="mc-benchmark", opts={}, pred=None, check=False))
        if not ref["completed"]:
            raise RuntimeError(f"realtrace_row: the MC-Benchmark reference run did not finish ({ref['stall']})")
        spec["max_rounds"] = ROUND_CAP * int(ref["rounds"]) + 1000
    mixed = workload == "mixed002"
    spec["keep_latency"] = mixed
    from kvlib.serving.experiments import build_any_workload
    from kvlib.serving.sharegpt import SHORT_SOURCES

    r = run_spec(spec)
    w = build_any_workload(spec)
    out = {
        "n_requests": int(w.n), "instance": workload_hash(w, memory), "data_sha256": w.sha256 or "",
        "avg_latency": float(r["avg_latency"]), "completed": bool(r["completed"]),
        "valid": None if r["valid"] is None else bool(r["valid"]),
        "makespan": float(r["makespan"]), "rounds": int(r["rounds"]), "evictions": int(r["evictions"]),
        "peak_memory": int(r["peak_memory"]), "stall": r["stall"] or "", "mean_round_ms": float(r["mean_round_ms"]),
        "max_rounds": int(spec.get("max_rounds") or 0),
        "scheduler_s": float(r["reset_s"] + r["decision_s"]), "sim_s": float(r["wall_s"]),
    }
    if getattr(w, "sharegpt_sha256", None) is not None or workload == "sharegpt" or short == "sharegpt":
        out["sharegpt_sha256"] = getattr(w, "sharegpt_sha256", None) or ""
    if mixed:
        lat, src = np.asarray(r["latency_s"], dtype=float), np.asarray(r["source"])
        tag0 = short or "lmsys"
        for tag, name in ((tag0, SHORT_SOURCES[tag0]), ("arxiv", "arXiv")):
            v = lat[src == name]
            out[f"{tag}_count"] = int(v.size)
            for stat, f in (("mean", np.mean), ("median", np.median), ("p90", lambda x: np.quantile(x, 0.9))):
                out[f"{tag}_{stat}"] = float(f(v)) if v.size else float("nan")
    return out


def capacity_row(*, workload: str, n: int, seed: int, hardware: str = "a100", memory: int = PAPER_MEMORY,
                 data: str | None = None, user_csv: str | None = None, unit: str | None = None) -> dict:
    """A GPU's capacity for a workload (:func:`kvlib.serving.gpus.saturation_throughput`): the requests per
    second MC-SF serves on ``hardware`` when the first ``n`` requests of ``workload`` (drawn as in
    :func:`realtrace_row`) all wait at ``t = 0``; with the makespan (s), the mean round (ms) and the rounds."""
    from kvlib.serving.gpus import saturation_throughput
    from kvlib.serving.workloads import default_shared_dir

    if data not in (None, "shared", "embedded"):
        raise ValueError(f"capacity_row: data must be 'shared' or 'embedded', got {data!r}")
    sd = default_shared_dir() if data == "shared" else None
    if data == "shared" and sd is None:
        raise FileNotFoundError("capacity_row: data='shared' but no shared data directory was found")
    from kvlib.serving.experiments import build_any_workload

    spec = {"workload": workload, "n": int(n), "rate": None, "seed": int(seed), "memory": int(memory),
            "shared_dir": str(sd) if sd else None, "user_csv": user_csv, **({"unit": unit} if unit else {})}
    cap = saturation_throughput(spec, hardware)
    w = build_any_workload(spec)
    return {"n_requests": int(w.n), "instance": workload_hash(w, memory), "data_sha256": w.sha256 or "",
            "throughput": float(cap["throughput"]), "makespan": cap["makespan"],
            "mean_round_ms": cap["mean_round_ms"], "rounds": cap["rounds"]}
