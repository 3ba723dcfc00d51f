"""The real-trace experiments on a chosen GPU: measured batch times, equal-utilisation rates, the code trace.

:func:`run_on` runs one experiment spec (the plain ``dict`` of :func:`kvlib.serving.experiments.run_spec`) with
the batch-time model of one hardware configuration of :mod:`kvlib.serving.measured` (``a100``: every input is
Vidur's measurement; ``h100``, ``h200``: the measured kernels), or, for comparison, with the A100's *derived*
attention (``attention="derived"``, the assumption of :mod:`kvlib.serving.batchtime`).  It returns the same
flat ``dict`` as ``run_spec``, plus the hardware and the model's reference round.

A faster GPU at the same arrival rate serves a lighter load.  A GPU's *capacity* for a workload is the
throughput :func:`saturation_throughput` measures: requests per second served by MC-SF when every request
waits at ``t = 0``.  Utilisation is the arrival rate over the capacity, so the rate on hardware ``h`` that loads
it as the A100 is loaded at rate ``r`` is ``r * capacity_h / capacity_a100`` (:func:`equal_utilisation_rate`).
The capacity depends on the workload: long prompts (prefill attention) separate the GPUs more than decoding
does.  :func:`reference_round_ms` gives the decode-only *reference round* (:data:`REFERENCE_BATCH` requests
holding the papers' 16,492 cached tokens, ``kvlib convert``'s default round length) for comparison.

Workload ``"splitwise-code"``: the first ``n`` requests of the Splitwise production *code-completion* trace
(``splitwise_code.csv``: long prompts, short outputs) with their real arrival times, rescaled to mean ``rate``
per second (native times if ``rate`` is None).  Without the file, a labelled synthetic stand-in is drawn from
a clipped log-normal fitted to the trace's published-here statistics (:data:`CODE_FALLBACK`); the
conversation trace and the other workloads are those of :func:`kvlib.serving.experiments.build_workload`.

(``run_spec`` itself has no model argument: :mod:`kvlib.serving.experiments` is read by stored tables that do
not depend on the batch time, and gains one when it is next edited with their regeneration; until then
:func:`run_on` repeats its few lines.)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.errors import ParameterError
from kvlib.policies import make_policy
from kvlib.serving.experiments import build_workload, intervals
from kvlib.serving.measured import HARDWARE, MeasuredBatchTimeModel, measured_model
from kvlib.serving.realtime import PAPER_MEMORY, simulate_realtime
from kvlib.serving.workloads import (Workload, _draw, _read_columns, _sha256, _shared_file, rescale_trace)

__all__ = ["GPUS", "REFERENCE_BATCH", "CODE_CSV", "CODE_FALLBACK", "model_for", "reference_round_ms",
           "saturation_throughput", "equal_utilisation_rate", "load_splitwise_code", "build", "run_on"]

#: The hardware configurations, in the order the book shows them.
GPUS: tuple[str, ...] = tuple(HARDWARE)

#: Requests decoding in the reference round (with the papers' 16,492 cached tokens): ``kvlib convert``'s round.
REFERENCE_BATCH = 16

CODE_CSV = "splitwise_code.csv"

#: The embedded stand-in for ``splitwise_code.csv`` (used only without the file): range, median and mean of
#: its 8,819 rows (computed from the file, SHA-256 ``SHA256SUMS``), a clipped log-normal per column fitted to
#: mean and median (:func:`kvlib.serving.workloads.fit_lognormal`; the output's median lands on 14, the file's
#: 13), and the trace's span of 3,436 s (2.57 arrivals per second).
CODE_FALLBACK = {
    "prompt": {"lo": 3, "hi": 7437, "median": 1469.0, "mean": 2047.8, "mu": 7.29222, "sigma": 0.88429},
    "output": {"lo": 6, "hi": 1899, "median": 13.0, "mean": 27.9, "mu": 2.65591, "sigma": 1.14252},
    "span": 3436.0,
}
CODE_FALLBACK_LABEL = "synthetic stand-in (Splitwise code statistics)"


def _hw(hardware) -> str:
    if not isinstance(hardware, str) or hardware.strip().lower() not in GPUS:
        raise ParameterError(f"hardware: unknown hardware {hardware!r}; known: {', '.join(GPUS)}")
    return hardware.strip().lower()


@lru_cache(maxsize=None)
def model_for(hardware: str = "a100", attention: str = "measured") -> MeasuredBatchTimeModel:
    """The (embedded) batch-time model of ``hardware``; ``attention="derived"``: the A100's assumed attention."""
    return measured_model(_hw(hardware), attention=attention)


def reference_round_ms(hardware: str = "a100", attention: str = "measured") -> float:
    """Milliseconds of the reference round (:data:`REFERENCE_BATCH` requests decoding, 16,492 cached tokens)."""
    return float(model_for(hardware, attention).batch_ms(0, REFERENCE_BATCH, PAPER_MEMORY))


def saturation_throughput(spec: dict, hardware: str = "a100", attention: str = "measured") -> dict:
    """Requests per second that ``hardware`` serves when every request of ``spec``'s workload waits at ``t = 0``
    (MC-SF, no stop): ``n / makespan``.  This is the GPU's capacity for that workload, the denominator of its
    utilisation (arrival rate over capacity)."""
    r = run_on({**spec, "policy": "mc-sf", "opts": {}, "pred": None, "at_zero": True, "check": False},
               hardware, attention)
    if not r["completed"]:
        raise RuntimeError(f"saturation_throughput: MC-SF did not finish ({r['stall']})")
    return {"throughput": r["n_requests"] / r["makespan"], "makespan": float(r["makespan"]),
            "mean_round_ms": float(r["mean_round_ms"]), "rounds": int(r["rounds"])}


def equal_utilisation_rate(rate: float, capacity: float, base_capacity: float, digits: int = 2) -> float:
    """The arrival rate on a GPU of ``capacity`` (requests per second, :func:`saturation_throughput`) that loads
    it as ``rate`` loads a GPU of ``base_capacity``: ``rate * capacity / base_capacity``, rounded to ``digits``
    decimals (it becomes a key of a stored table)."""
    vals = {"rate": rate, "capacity": capacity, "base_capacity": base_capacity}
    for k, v in vals.items():
        try:
            ok = np.isfinite(float(v)) and float(v) > 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ParameterError(f"{k}: must be a positive number of requests per second, got {v!r}")
    return round(float(rate) * float(capacity) / float(base_capacity), digits)


def load_splitwise_code(shared_dir, *, fallback: bool = False, seed: int = 0) -> Workload:
    """The Splitwise code-completion trace with its arrival times (seconds) and SHA-256; without the file and
    with ``fallback``, the labelled stand-in of :data:`CODE_FALLBACK` (8,819 requests)."""
    path = _shared_file(shared_dir, CODE_CSV, fallback)
    if path is None:
        rng = np.random.default_rng([int(seed), 104729])
        n = 8819
        cols = {k: _draw(rng, n, c["mu"], c["sigma"], c["lo"], c["hi"])
                for k, c in ((k, CODE_FALLBACK[k]) for k in ("prompt", "output"))}
        arr = np.sort(rng.uniform(0.0, CODE_FALLBACK["span"], size=n))
        return Workload(arr, cols["prompt"], cols["output"], "splitwise-code", CODE_FALLBACK_LABEL, None,
                        "synthetic stand-in from the summary statistics of splitwise_code.csv (kvlib.serving.gpus)")
    c = _read_columns(path, {"arrived_at": "float", "num_prefill_tokens": "int", "num_decode_tokens": "int"})
    a = c["arrived_at"]
    if np.any(np.diff(a) < 0):
        from kvlib.core.errors import InstanceError

        i = int(np.flatnonzero(np.diff(a) < 0)[0]) + 1
        raise InstanceError(f"{path}, line {i + 2}, column arrived_at: arrival times must be non-decreasing")
    return Workload(a, c["num_prefill_tokens"], c["num_decode_tokens"], "splitwise-code",
                    f"real trace: {CODE_CSV}", _sha256(path), str(path))


def build(spec: dict) -> Workload:
    """The workload of ``spec``: ``"splitwise-code"`` here, every other kind by ``build_workload``; with
    ``spec["at_zero"]`` every arrival is moved to ``t = 0``."""
    if spec.get("at_zero"):
        return _at_zero(build({k: v for k, v in spec.items() if k != "at_zero"}))
    if spec["workload"] != "splitwise-code":
        return build_workload(spec)
    n = int(spec["n"])
    if n < 1:
        raise ParameterError(f"n: the number of requests must be >= 1, got {spec['n']!r}")
    w = load_splitwise_code(spec.get("shared_dir"), fallback=True, seed=int(spec.get("seed", 0)))
    w = w.take(np.arange(min(n, w.n)))
    rate = spec.get("rate")
    return rescale_trace(w, float(rate)) if rate else w


def _at_zero(w: Workload) -> Workload:
    out = w.take(np.arange(w.n))
    out.arrival_s = np.zeros(w.n)
    out.notes.append("all arrivals moved to t = 0")
    return out


def run_on(spec: dict, hardware: str = "a100", attention: str = "measured") -> dict:
    """``run_spec(spec)`` with the batch time of ``hardware`` (see the module docstring)."""
    model = model_for(_hw(hardware), attention)
    w = build(spec)
    pol = make_policy(spec["policy"], **spec.get("opts", {}))
    kw = {}
    pred = spec.get("pred")
    if pred is not None:
        lo, hi = intervals(w.output, pred)
        kw = dict(lower=lo, upper=hi, reveal_output=bool(getattr(pol, "hindsight", False)))
    r = simulate_realtime(w, pol, memory=int(spec.get("memory", PAPER_MEMORY)), model=model,
                          seed=int(spec.get("seed", 0)), on_stall="return", max_rounds=spec.get("max_rounds"),
                          stall_window=spec.get("stall_window"), **kw)
    valid = None
    if r.completed and spec.get("check", True):
        valid = check_schedule(r.instance, r.schedule, allow_cancellation=pol.preemptive).valid
    out = {k: v for k, v in spec.items() if k not in ("shared_dir", "user_csv", "workload")}
    out.update(
        kind=spec["workload"], hardware=model.hardware, attention=model.attention, label=w.label, sha256=w.sha256, n_requests=int(w.n),
        completed=r.completed, valid=valid, avg_latency=r.avg_latency, makespan=r.makespan_s, rounds=r.rounds,
        evictions=r.evictions, decision_s=r.decision_seconds, reset_s=r.reset_seconds, wall_s=r.wall_seconds,
        stall=r.stall_reason, peak_memory=int(r.memory_after.max()) if len(r.memory_after) else 0,
        mean_round_ms=float(np.mean(r.batch_ms)) if len(r.batch_ms) else 0.0,
    )
    if spec.get("keep_trace"):
        out["trace"] = (r.round_start_s, r.memory_after)
    if spec.get("keep_latency"):
        out["latency_s"] = np.asarray(r.latency_s, dtype=float)
        src = getattr(w, "is_arxiv", None)
        out["source"] = (np.where(np.asarray(src) == 1, "arXiv", "LMSYS-like") if src is not None
                         else np.full(w.n, w.label, dtype=object))
    out["workload"] = w  # the Workload object (the spec's "workload" names its kind, kept as "kind")
    return out
