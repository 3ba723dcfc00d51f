"""One real-trace experiment run from a plain ``dict`` spec (picklable, for parallel sweeps).

Used by the chapter ``notebooks/realtrace.py``.  A spec names a workload, a
policy and its options, predictions (003) and seeds; :func:`run_spec` builds
the workload, runs :func:`kvlib.serving.realtime.simulate_realtime`, validates the
round-level schedule with the independent checker and returns a flat ``dict``.

Workloads (``spec["workload"]``):

``"lmsys"``      ``n`` synthetic (LMSYS-like) requests, Poisson arrivals at
                 ``rate`` per second (all at ``t = 0`` if ``rate`` is None);
                 with ``user_csv`` the lengths are sampled from that file instead.
``"mixed002"``   002 Section 7: 80 % LMSYS-like + 20 % arXiv (real trace, or the
                 labelled fallback), mixed at random, all at ``t = 0``.
``"splitwise"``  the first ``n`` requests of the Splitwise conversation trace with
                 their real arrival times, rescaled to mean ``rate`` per second
                 (native times if ``rate`` is None).
``"splitwise-code"``  the same for the Splitwise code-completion trace.
``"sharegpt"``   ``n`` real ShareGPT V3 first turns (``spec["unit"]``: tokens or
                 words), Poisson arrivals at ``rate``; ``"mixed002"`` with
                 ``spec["short"] = "sharegpt"`` takes them as its short 80 %
                 (:mod:`kvlib.serving.sharegpt`; :func:`build_any_workload`, which
                 :func:`run_spec` builds through, sends such specs there).

``spec["at_zero"]`` moves every arrival to ``t = 0``.

Hardware (``spec["hardware"]``, default ``"a100"``): the GPU whose measured
batch-time model (:mod:`kvlib.serving.measured`) times the rounds: ``a100``
(Vidur's profiles, the papers' set-up), ``h100`` or ``h200``;
``spec["attention"] = "derived"`` takes the A100's assumed attention of
:mod:`kvlib.serving.batchtime` instead (the documented fallback).

Reading the results: :func:`policy_label` names a policy with its options,
:func:`smallest_stable_alpha` finds 001 Section 5.2's smallest alpha without endless
clearing in a grid of runs, :func:`slope_of` reads a fitted latency slope.

Predictions (``spec["pred"]``, 003 Section 6): ``None`` (true ``o`` known),
``"wide"`` (``[1, 1000]``), ``"buckets"`` (``[100k+1, 100k+100]`` containing
``o``) or a float ``x`` (``[floor((1-x) o), ceil((1+x) o)]``, lower at least 1).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.policies import make_policy
from kvlib.serving.realtime import PAPER_MEMORY, simulate_realtime
from kvlib.serving.workloads import (load_arxiv, load_splitwise, load_splitwise_code, load_user_csv, lmsys_like, mixed_002,
                                    poisson_arrivals, rescale_trace, sample)

__all__ = ["build_workload", "batch_model", "intervals", "run_spec", "policy_label", "smallest_stable_alpha", "format_alpha",
           "slope_of"]


@lru_cache(maxsize=None)
def batch_model(hardware: str = "a100", attention: str = "measured"):
    """The embedded batch-time model of ``hardware`` (:func:`kvlib.serving.measured.measured_model`), cached."""
    from kvlib.serving.measured import measured_model

    return measured_model(hardware, attention=attention)


def build_workload(spec: dict):
    if spec.get("at_zero"):
        w = build_workload({k: v for k, v in spec.items() if k != "at_zero"})
        out = w.take(np.arange(w.n))
        out.arrival_s = np.zeros(w.n)
        out.notes.append("all arrivals moved to t = 0")
        return out
    kind = spec["workload"]
    n = int(spec["n"])
    rng = np.random.default_rng([int(spec.get("seed", 0)), 7919])
    rate = spec.get("rate")
    shared = spec.get("shared_dir")
    if kind == "lmsys":
        if spec.get("user_csv"):
            w = sample(load_user_csv(spec["user_csv"]), rng, n)
        else:
            w = lmsys_like(rng, n)
        if rate:
            w.arrival_s = poisson_arrivals(rng, n, float(rate))
        return w
    if kind == "mixed002":
        ax = load_arxiv(shared, fallback=True, seed=int(spec.get("seed", 0)))
        lm = None
        if spec.get("user_csv"):
            lm = sample(load_user_csv(spec["user_csv"]), rng, int(round(0.8 * n)))
        return mixed_002(rng, n, ax, lm)
    if kind in ("splitwise", "splitwise-code"):
        loader = load_splitwise if kind == "splitwise" else load_splitwise_code
        sw = loader(shared, fallback=True, seed=int(spec.get("seed", 0)))
        w = sw.take(np.arange(min(n, sw.n)))
        return rescale_trace(w, float(rate)) if rate else w
    raise ValueError(f"unknown workload {kind!r}")


def build_any_workload(spec: dict):
    """The workload of ``spec``: :func:`kvlib.serving.sharegpt.build_sharegpt_workload` for the specs that read
    ShareGPT V3 (``"sharegpt"``, or ``"mixed002"`` with ``short = "sharegpt"``), else :func:`build_workload`."""
    from kvlib.serving.sharegpt import build_sharegpt_workload, is_sharegpt_spec

    return build_sharegpt_workload(spec) if is_sharegpt_spec(spec) else build_workload(spec)


def intervals(o: np.ndarray, pred) -> tuple[np.ndarray, np.ndarray]:
    o = np.asarray(o, dtype=np.int64)
    if pred == "wide":
        return np.ones_like(o), np.maximum(1000, o)
    if pred == "buckets":
        lo = 100 * ((o - 1) // 100) + 1
        return lo, lo + 99
    x = float(pred)
    return np.maximum(1, np.floor((1 - x) * o).astype(np.int64)), np.ceil((1 + x) * o).astype(np.int64)


def run_spec(spec: dict) -> dict:
    """Run one spec; returns the spec plus results (``avg_latency`` in seconds; NaN if stalled), the hardware
    and attention of the batch-time model, the number of requests and the mean round (ms).

    ``keep_trace``: also the round start times and memory held; ``keep_latency``: also
    every request's latency (``latency_s``) and its source (``"arXiv"`` or ``"LMSYS-like"``
    for ``mixed002``).
    """
    w = build_any_workload(spec)  # build_workload's, and the ShareGPT V3 workloads
    model = batch_model(spec.get("hardware") or "a100", spec.get("attention") or "measured")
    pol = make_policy(spec["policy"], **spec.get("opts", {}))
    kw = {}
    pred = spec.get("pred")
    if pred is not None:
        lo, hi = intervals(w.output, pred)
        kw = dict(lower=lo, upper=hi, reveal_output=bool(getattr(pol, "hindsight", False)))
    r = simulate_realtime(w, pol, memory=int(spec.get("memory", PAPER_MEMORY)), model=model, seed=int(spec.get("seed", 0)),
                          on_stall="return", max_rounds=spec.get("max_rounds"), stall_window=spec.get("stall_window"),
                          **kw)
    valid = None
    if r.completed and spec.get("check", True):
        valid = check_schedule(r.instance, r.schedule, allow_cancellation=pol.preemptive).valid
    out = {k: v for k, v in spec.items() if k not in ("shared_dir", "user_csv")}
    out.update(
        hardware=model.hardware, attention=model.attention, n_requests=int(w.n),
        mean_round_ms=float(np.mean(r.batch_ms)) if len(r.batch_ms) else 0.0,
        label=w.label, sha256=w.sha256, completed=r.completed, valid=valid, avg_latency=r.avg_latency,
        makespan=r.makespan_s, rounds=r.rounds, evictions=r.evictions, decision_s=r.decision_seconds,
        reset_s=r.reset_seconds, wall_s=r.wall_seconds, stall=r.stall_reason,
        peak_memory=int(r.memory_after.max()) if len(r.memory_after) else 0,
    )
    if spec.get("keep_trace"):
        out["trace"] = (r.round_start_s, r.memory_after)
    if spec.get("keep_latency"):
        out["latency_s"] = np.asarray(r.latency_s, dtype=float)
        src = getattr(w, "is_arxiv", None)
        out["source"] = (np.where(np.asarray(src) == 1, "arXiv", getattr(w, "short_source", "LMSYS-like"))
                         if src is not None
                         else np.full(w.n, w.label, dtype=object))
    return out


def policy_label(policy: str, opts: dict | None = None) -> str:
    """``"alpha-greedy(alpha=0.3)"``: the policy name with its options in order (just the name if none)."""
    return policy + ("" if not opts else "(" + ", ".join(f"{k}={v}" for k, v in opts.items()) + ")")


def smallest_stable_alpha(runs, rate) -> float:
    """Smallest ``alpha`` of the grid at and above which every run at ``rate`` completed (001 Section 5.2).

    ``runs`` is a table with columns ``rate``, ``alpha`` and ``completed`` (one row per run, e.g.
    several seeds per point).  A grid value counts only if all runs at it *and at every larger
    alpha* completed, so a single endless clearing loop above it disqualifies it.  Returns NaN when
    no grid value qualifies; raises ``KeyError`` naming ``rate`` if the table has no run at it.
    """
    ok = runs.groupby(["rate", "alpha"])["completed"].all().unstack(0)
    if rate not in ok.columns:
        raise KeyError(f"no run at rate {rate!r} (rates present: {list(ok.columns)})")
    good = [a for a in ok.index if ok.loc[ok.index >= a, rate].all()]
    return min(good) if good else float("nan")


def format_alpha(alpha, grid) -> str:
    """``"<= a"`` when ``alpha`` is the smallest grid value (the threshold may lie below the grid), else ``str(alpha)``."""
    return f"<= {alpha}" if alpha == min(grid) else str(alpha)


def slope_of(slopes, rate, policy, column: str = "slope (s per request)") -> float:
    """The fitted slope of ``policy`` at ``rate`` in a table with columns ``rate``, ``policy`` and
    ``column``; NaN when that pair was not fitted (fewer than two sizes)."""
    v = slopes[(slopes.rate == rate) & (slopes.policy == policy)][column]
    return float(v.iloc[0]) if len(v) else float("nan")
