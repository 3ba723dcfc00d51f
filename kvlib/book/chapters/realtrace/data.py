"""Rows of the real-trace chapter that read the shared data directly (stored, so reading needs no data).

The real-trace chapter's simulations are rows of :func:`kvlib.book.chapters.realtrace.rows.realtrace_row`.  A few
more of its numbers are computed from the shared data files themselves: the files' checksums, the
traces' length statistics, and the exact-against-approximate LP comparison on 002's mixed workload.
In full mode these are stored rows too (keys with ``data = "shared"``), so that a reader without
``../shared/data`` reads them like every other stored row; in quick mode they are computed live from
whatever is there (``data = "embedded"``: the embedded stand-ins when the files are absent).

The shared data directory holds public files: the traces and hardware profiles of the Vidur
repository's ``data/`` folder (``../shared/data/README.md`` says where each file comes from, and
``SHA256SUMS`` lists their checksums).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHARED_DATA_HELP", "data_file_row", "trace_summary_row", "attention_check_row", "ATTENTION_GROUPS", "lp_horizon_row", "lp_orders_row",
           "lp_orders_frame", "files_frame"]

SHARED_DATA_HELP = ("the shared data directory (../shared/data beside the repository, or $KVBOOK_SHARED_DIR): "
                    "the public traces and profiles of the Vidur repository's data/ folder, listed with their "
                    "sources in ../shared/data/README.md and their checksums in SHA256SUMS")


def _shared(data: str) -> Path | None:
    """The shared data directory for ``data = "shared"`` (an error naming what is missing if absent);
    ``None`` for ``"embedded"``."""
    from kvlib.serving.workloads import default_shared_dir

    if data == "embedded":
        return None
    if data != "shared":
        raise ValueError(f"data must be 'shared' or 'embedded', got {data!r}")
    d = default_shared_dir()
    if d is None:
        raise FileNotFoundError(f"this row is computed from {SHARED_DATA_HELP}; it is not present here")
    return Path(d)


def data_file_row(file: str, data: str = "shared") -> dict:
    """One data file: its size in bytes and SHA-256 (computed from the file)."""
    from kvlib.book.provenance import file_sha256

    d = _shared(data)
    p = d / file if d else None
    if p is None or not p.is_file():
        raise FileNotFoundError(f"{file}: not in {SHARED_DATA_HELP}")
    return {"bytes": p.stat().st_size, "sha256": file_sha256(p)}


def trace_summary_row(workload: str, seed: int, data: str = "shared", unit: str | None = None) -> dict:
    """Length statistics of one trace (``arxiv``, ``splitwise``, ``splitwise-code``, or ``sharegpt`` with ``unit``
    ``tokens`` or ``words``: the ShareGPT V3 first turns kept by vLLM's filter), as ``Workload.summary()``."""
    from functools import partial

    from kvlib.serving.sharegpt import load_sharegpt
    from kvlib.serving.workloads import load_arxiv, load_splitwise, load_splitwise_code

    loaders = {"arxiv": load_arxiv, "splitwise": load_splitwise, "splitwise-code": load_splitwise_code,
               "sharegpt": partial(load_sharegpt, unit=unit or "tokens")}
    if workload not in loaders:
        raise ValueError(f"workload must be one of {sorted(loaders)}, got {workload!r}")
    if unit is not None and workload != "sharegpt":
        raise ValueError(f"unit applies to the sharegpt workload only, got unit={unit!r} for {workload!r}")
    d = _shared(data)
    w = loaders[workload](d, fallback=d is None, seed=seed)
    out = w.summary()
    out["data_sha256"] = out.pop("sha256") or ""
    out["trace"] = out.pop("name") + (f"-{unit or 'tokens'}" if workload == "sharegpt" else "")
    return out


def _mixed_workload(n: int, seed: int, data: str, user_csv: str | None = None):
    from kvlib.serving.experiments import build_workload

    d = _shared(data)
    return build_workload({"workload": "mixed002", "n": n, "seed": seed, "shared_dir": str(d) if d else None,
                           "user_csv": user_csv})


def lp_horizon_row(n: int, seed: int, memory: int, data: str = "shared", user_csv: str | None = None) -> dict:
    """The LP horizon of 002's mixed workload with ``n`` requests at time 0, the number of variables of
    the per-round LP (millions) and the automatic time step."""
    import numpy as np

    from kvlib.policies.wyz_lp import auto_time_step, default_horizon

    w = _mixed_workload(n, seed, data, user_csv)
    zeros = np.zeros(w.n, dtype=np.int64)
    H = int(default_horizon(zeros, w.prompt, w.output, memory))
    return {"horizon": H, "lp_variables_millions": float(n * H - int(w.output.sum())) / 1e6,
            "auto_step": int(auto_time_step(zeros, w.output, H)), "label": w.label,
            "data_sha256": w.sha256 or ""}


#: columns of one :func:`kvlib.policies.wyz_lp.compare_lp_orders` row that are solve times
LP_TIMING = ("exact_seconds", "approx_seconds")


def lp_orders_row(n: int, seed: int, memory: int, steps: list, data: str = "shared",
                  user_csv: str | None = None) -> dict:
    """:func:`kvlib.policies.wyz_lp.compare_lp_orders` on 002's mixed workload (``n`` requests at time 0),
    one exact LP against the bucket LP at each of ``steps`` (``None``: automatic), flattened into one
    row: columns ``s{k}_{field}`` for the k-th step."""
    import numpy as np

    from kvlib.core.model import Instance
    from kvlib.policies.wyz_lp import compare_lp_orders

    w = _mixed_workload(n, seed, data, user_csv)
    inst = Instance.from_arrays(np.zeros(w.n, dtype=np.int64), w.prompt, w.output, memory)
    rows = compare_lp_orders(inst, steps=list(steps))
    out: dict = {"label": w.label, "data_sha256": w.sha256 or "", "n_steps": len(rows)}
    for k, r in enumerate(rows):
        for c, v in r.items():
            out[f"s{k}_{c}"] = v
    return out


def lp_orders_timing(steps: list) -> list[str]:
    """The timing columns of :func:`lp_orders_row` for ``steps`` (not compared by a recomputation)."""
    return [f"s{k}_{c}" for k in range(len(steps)) for c in LP_TIMING]


def lp_orders_frame(row: dict):
    """The rows of :func:`compare_lp_orders` back from a stored :func:`lp_orders_row`."""
    import pandas as pd

    n = int(row["n_steps"])
    recs = []
    for k in range(n):
        prefix = f"s{k}_"
        recs.append({c[len(prefix):]: v for c, v in row.items() if isinstance(c, str) and c.startswith(prefix)})
    return pd.DataFrame(recs)


def files_frame(rows: list[dict]):
    """The data-files table (``file``, ``present``, ``sha256``) from stored :func:`data_file_row` rows: the
    checksums recorded when the rows were computed (``present`` says whether the file is here now)."""
    import pandas as pd

    from kvlib.serving.workloads import default_shared_dir

    here = default_shared_dir()
    return pd.DataFrame([{"file": r["file"], "present": bool(here and (Path(here) / r["file"]).is_file()),
                          "sha256": r["sha256"]} for r in rows], columns=["file", "present", "sha256"])


def shared_dir_note() -> str:
    """One sentence: where the shared data comes from (for pages and error messages)."""
    return SHARED_DATA_HELP[0].upper() + SHARED_DATA_HELP[1:] + "."



#: Groups of Vidur's A100 attention rows compared in :func:`attention_check_row`: (kind, smallest and largest
#: batch size); prefill rows are one prompt each.
ATTENTION_GROUPS = (("decode", 1, 8), ("decode", 9, 32), ("decode", 33, 64), ("decode", 65, 128),
                    ("prefill", 1, 1))


def attention_check_row(kind: str, batch_lo: int, batch_hi: int, data: str = "shared") -> dict:
    """batchtime.py's derived attention against Vidur's measured A100 attention on the profile rows of ``kind``
    (``decode`` or ``prefill``) with ``batch_lo`` to ``batch_hi`` requests
    (:func:`kvlib.serving.measured.derived_vs_measured`).

    Columns: the number of profile rows; the median and largest |relative error| of the derived attention per
    layer; the share of rows where it is too fast; the measured attention's median share of its batch's time
    (all 80 layers, under the measured A100 model); and the error as a fraction of that batch's time (median
    and largest |(derived - measured) x 80 / batch time|), i.e. how much of a round the assumption misses; the
    attention file's SHA-256."""
    import numpy as np

    from kvlib.book.provenance import file_sha256
    from kvlib.serving.measured import HARDWARE, derived_vs_measured, measured_model

    if kind not in ("decode", "prefill"):
        raise ValueError(f"kind must be 'decode' or 'prefill', got {kind!r}")
    d = _shared(data)
    name = HARDWARE["a100"]["attention_csv"]
    if d is None or not (d / name).is_file():
        raise FileNotFoundError(f"{name}: not in {SHARED_DATA_HELP}")
    rows = derived_vs_measured(d)
    g = rows[(rows.kind == kind) & (rows.batch >= int(batch_lo)) & (rows.batch <= int(batch_hi))]
    if not len(g):
        raise ValueError(f"no {kind} rows with batch sizes {batch_lo} to {batch_hi} in {name}")
    L = measured_model("a100").base.n_layers
    round_ms = L * g.measured_ms / g.share  # the batch's time under the measured model
    round_err = (L * (g.derived_ms - g.measured_ms) / round_ms).to_numpy()
    r = g.rel_err.abs().to_numpy()
    return {"rows": int(len(g)), "kv_min": int(g.kv.min()), "kv_max": int(g.kv.max()),
            "median_abs_rel_err": float(np.median(r)), "max_abs_rel_err": float(r.max()),
            "too_fast_share": float((g.rel_err < 0).mean()), "median_attention_share": float(np.median(g.share)),
            "median_round_err": float(np.median(np.abs(round_err))), "max_round_err": float(np.abs(round_err).max()),
            "data_sha256": file_sha256(d / name)}
