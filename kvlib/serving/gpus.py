"""The real-trace experiments on a chosen GPU: the hardware's model, its capacity, equal-utilisation rates.

The experiment specs of :func:`kvlib.serving.experiments.run_spec` carry the hardware (``spec["hardware"]``:
``a100``, ``h100`` or ``h200``, the measured batch-time models of :mod:`kvlib.serving.measured`);
:func:`run_on` sets it.

A faster GPU at the same arrival rate serves a lighter load.  A GPU's *capacity* for a workload is the
throughput :func:`saturation_throughput` measures: requests per second served by MC-SF when every request
waits at ``t = 0``.  Utilisation is the arrival rate over the capacity, so the rate on hardware ``h`` that loads
it as the A100 is loaded at rate ``r`` is ``r * capacity_h / capacity_a100`` (:func:`equal_utilisation_rate`).
The capacity depends on the workload: long prompts (prefill attention) separate the GPUs more than decoding
does.  :func:`reference_round_ms` gives the decode-only *reference round* (:data:`REFERENCE_BATCH` requests
holding the papers' 16,492 cached tokens, ``kvlib convert``'s default round length) for comparison.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.errors import ParameterError
from kvlib.serving.experiments import batch_model, run_spec
from kvlib.serving.measured import HARDWARE, MeasuredBatchTimeModel
from kvlib.serving.realtime import PAPER_MEMORY

__all__ = ["GPUS", "REFERENCE_BATCH", "model_for", "reference_round_ms", "saturation_throughput",
           "equal_utilisation_rate", "run_on"]

#: The hardware configurations, in the order the book shows them.
GPUS: tuple[str, ...] = tuple(HARDWARE)

#: Requests decoding in the reference round (with the papers' 16,492 cached tokens): ``kvlib convert``'s round.
REFERENCE_BATCH = 16


def _hw(hardware) -> str:
    if not isinstance(hardware, str) or hardware.strip().lower() not in GPUS:
        raise ParameterError(f"hardware: unknown hardware {hardware!r}; known: {', '.join(GPUS)}")
    return hardware.strip().lower()


def model_for(hardware: str = "a100", attention: str = "measured") -> MeasuredBatchTimeModel:
    """The (embedded) batch-time model of ``hardware``; ``attention="derived"``: the A100's assumed attention."""
    return batch_model(_hw(hardware), attention)


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


def run_on(spec: dict, hardware: str = "a100", attention: str = "measured") -> dict:
    """``run_spec(spec)`` on ``hardware`` (the spec's own ``hardware``/``attention`` keys replaced)."""
    return run_spec({**spec, "hardware": _hw(hardware), "attention": attention})
