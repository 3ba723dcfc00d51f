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

**One kind of measurement per comparison.**  The non-attention times of a GPU's model come from Vidur's
profiles (A100, H100), from Vidur's H100 profile scaled operator by operator by our measured H200/H100 ratios
(H200: both GPUs timed by the same PyTorch code), or from our PyTorch timings alone (H100 and H200; no A100
was timed so).  :data:`COMPARISONS` groups the configurations of :data:`kvlib.serving.likeforlike.CONFIGS` into a
like-for-like comparison of all three GPUs (Vidur family) and a sensitivity comparison of the other kind;
:func:`like_for_like_table` gives each configuration's reference round (and, from stored capacity rows, its
capacity) with its kind, and :func:`check_like_for_like` refuses a table whose comparison mixes kinds.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.errors import ParameterError
from kvlib.serving.experiments import batch_model, run_spec
from kvlib.serving.likeforlike import CONFIGS, KINDS
from kvlib.serving.measured import HARDWARE, MeasuredBatchTimeModel
from kvlib.serving.realtime import PAPER_MEMORY

__all__ = ["GPUS", "REFERENCE_BATCH", "COMPARISONS", "model_for", "reference_round_ms", "saturation_throughput",
           "equal_utilisation_rate", "run_on", "like_for_like_table", "check_like_for_like"]

#: The hardware configurations, in the order the book shows them.
GPUS: tuple[str, ...] = tuple(HARDWARE)

#: Requests decoding in the reference round (with the papers' 16,492 cached tokens): ``kvlib convert``'s round.
REFERENCE_BATCH = 16


#: The comparisons of the book: name -> configurations (:data:`kvlib.serving.likeforlike.CONFIGS`), the first the
#: base of the relative columns.  Every configuration of one comparison has non-attention times of one family.
COMPARISONS: dict[str, tuple[str, ...]] = {
    "like for like: Vidur's profiles (H200: Vidur's H100 x measured H200/H100 ratios)": ("a100", "h100", "h200"),
    "sensitivity: our PyTorch timings (no A100 timing of this kind)": ("h100-pytorch", "h200-pytorch"),
}


def _hw(hardware) -> str:
    if not isinstance(hardware, str) or hardware.strip().lower() not in CONFIGS:
        raise ParameterError(f"hardware: unknown hardware {hardware!r}; known: {', '.join(CONFIGS)}")
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


_FROM = {"vidur": "Vidur's profile of this GPU", "vidur-derived": "Vidur's H100 profile x H200/H100 operator ratios",
         "pytorch": "our PyTorch timing of the layer"}


def like_for_like_table(cap=None, comparisons: dict | None = None):
    """One row per configuration of each comparison (:data:`COMPARISONS`): its kind (``kind``, ``family``),
    where its non-attention and attention times come from, the reference round (ms) and that round relative
    to the comparison's first configuration; with ``cap`` (stored capacity rows: ``workload``, ``hardware``,
    ``throughput``) also each workload's capacity relative to the first configuration (column ``capacity x
    WORKLOAD``).  Checked by :func:`check_like_for_like` before it is returned."""
    import pandas as pd

    rows = []
    for comp, names in (comparisons or COMPARISONS).items():
        base_ms = reference_round_ms(names[0])
        for name in names:
            m = model_for(name)
            ms = reference_round_ms(name)
            row = {"comparison": comp, "hardware": name, "GPU": CONFIGS[name][0].upper(), "kind": m.kind,
                   "family": KINDS[m.kind], "non-attention from": _FROM[m.kind],
                   "attention from": "Vidur's profile" if CONFIGS[name][0] == "a100" else "our PyTorch timings",
                   "reference round (ms)": ms, "round relative": ms / base_ms}
            if cap is not None and len(cap):
                for wl in dict.fromkeys(cap.workload):
                    mine = cap[(cap.workload == wl) & (cap.hardware == name)].throughput
                    ref = cap[(cap.workload == wl) & (cap.hardware == names[0])].throughput
                    row[f"capacity x {wl}"] = (float(mine.iloc[0]) / float(ref.iloc[0])
                                               if len(mine) and len(ref) else np.nan)
            rows.append(row)
    table = pd.DataFrame(rows)
    check_like_for_like(table)
    return table


def check_like_for_like(table) -> None:
    """Raise :class:`~kvlib.core.errors.ParameterError` if a comparison of ``table`` (columns ``comparison``,
    ``hardware``, ``kind``) mixes kinds of measurement (families of :data:`kvlib.serving.likeforlike.KINDS`), or if
    a row's kind is not its configuration's, naming the rows."""
    for comp, g in table.groupby("comparison", sort=False):
        for name, kind in zip(g.hardware, g.kind):
            if name in CONFIGS and model_for(name).kind != kind:
                raise ParameterError(f"comparison {comp!r}: row {name} says kind {kind!r}, its model is "
                                     f"{model_for(name).kind!r}")
        fams = {KINDS.get(k, k) for k in g.kind}
        if len(fams) > 1:
            which = ", ".join(f"{h} ({k})" for h, k in zip(g.hardware, g.kind))
            raise ParameterError(f"comparison {comp!r} mixes kinds of measurement: {which}")
