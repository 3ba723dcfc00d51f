"""How long one batch takes: a Llama-2-70B / 2 x A100 (tensor parallel 2) batch-time model.

The papers' real-data experiments (001 Section 5.2, 002 Section 7, 003 Section 6)
ran in the Vidur simulator, whose linear-regression predictor gives the time of
one batch of Llama-2-70B on two NVLink-linked A100 GPUs.  This module builds a
documented stand-in from Vidur's own profiling files (``../shared/data``):

* **Non-attention operators** (``a100_llama2_70b_mlp.csv``, rows with
  ``num_tensor_parallel_workers == 2``): per layer, the medians of
  ``input_layernorm, attn_pre_proj, attn_rope, attn_post_proj,
  post_attention_layernorm, mlp_up_proj, mlp_act, mlp_down_proj`` and twice
  ``add`` (two residual additions), summed, as a function of the number of
  tokens ``T`` in the batch.  Fitted by least squares on the *relative* error
  to a piecewise-linear function with one knee,
  ``f(T) = c0 + c1 T + c2 max(T - K, 0)`` (``K`` chosen on a grid).  The
  embedding (``emb``) is counted once per batch, linear in ``T``.
* **All-reduce** (``a100_pairwise_nvlink_all_reduce.csv``, ``num_workers == 2``):
  two all-reduces per layer of ``T * hidden * 2`` bytes (fp16 activations),
  fitted linearly in the message size ``g(B) = d0 + d1 B`` (sizes up to 64 MiB,
  which covers ``T <= 4096``).
* **Attention** (no Vidur profile is available here, so it is *derived*, not
  measured): decode attention is memory-bound and reads every cached token's
  K and V once per layer.  With grouped-query attention Llama-2-70B stores 8 KV
  heads of dimension 128 per layer, i.e. ``2 * 8 * 128 * 2 = 4096`` bytes per
  token per layer (fp16), split over the two GPUs (2,048 bytes each).  We assume
  an HBM bandwidth of **2.0e12 bytes/s per A100** (the A100-80GB SXM datasheet
  figure is 2.039 TB/s) at full efficiency, so decode attention costs
  ``kv_tokens * 2048 / 2.0e12`` seconds per layer.  Prefill attention is
  compute-bound: a causal prompt of ``s`` tokens costs ``2 s^2 d`` FLOPs per
  layer per GPU (``QK^T`` and ``PV``, half of each under the causal mask,
  ``d = 32 heads * 128 = 4096`` per GPU) at an assumed **156e12 FLOP/s**
  (half of the A100's 312 TFLOP/s fp16 peak).

All times are in **milliseconds**.  The fitted coefficients are embedded below
(:data:`EMBEDDED`) with their provenance (file names, SHA-256, fit date, R^2)
so that the model works without the CSV files; :func:`fit_from_csv` refits them
(the tests check that a refit reproduces the embedded numbers when the files
are present).

A batch is described by :class:`Batch`: the prompt sizes of the requests whose
prefill runs in it, the number of decode tokens (one per running request) and
the total KV length those decode tokens attend to.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "BatchTimeModel",
    "EMBEDDED",
    "HBM_BYTES_PER_S",
    "ATTN_FLOPS_PER_S",
    "KV_BYTES_PER_TOKEN_PER_LAYER",
    "MLP_CSV",
    "ALLREDUCE_CSV",
    "fit_from_csv",
    "default_model",
    "sha256_file",
]

MLP_CSV = "a100_llama2_70b_mlp.csv"
ALLREDUCE_CSV = "a100_pairwise_nvlink_all_reduce.csv"

#: Llama-2-70B shape (the rows of the MLP profile have exactly this shape).
N_LAYERS = 80
HIDDEN = 8192
N_HEADS = 64
N_KV_HEADS = 8
HEAD_DIM = HIDDEN // N_HEADS  # 128
DTYPE_BYTES = 2
TP = 2
#: K and V, 8 KV heads of dim 128, fp16: bytes per cached token per layer (whole model, both GPUs).
KV_BYTES_PER_TOKEN_PER_LAYER = 2 * N_KV_HEADS * HEAD_DIM * DTYPE_BYTES  # 4096
#: Assumed HBM bandwidth of one A100 (bytes/s); datasheet: 2.039e12 for the 80 GB SXM part.
HBM_BYTES_PER_S = 2.0e12
#: Assumed sustained fp16 throughput of one A100 for prefill attention (half of the 312e12 peak).
ATTN_FLOPS_PER_S = 156e12

_LAYER_OPS = (
    "input_layernorm",
    "attn_pre_proj",
    "attn_rope",
    "attn_post_proj",
    "post_attention_layernorm",
    "mlp_up_proj",
    "mlp_act",
    "mlp_down_proj",
    "add",
    "add",
)

#: Coefficients fitted by :func:`fit_from_csv` from the shared CSVs (see module docstring).
EMBEDDED: dict = {
    "layer_c0": 0.5620435597462162,
    "layer_c1": 0.0014995069760119248,
    "layer_c2": 0.002368036620374888,
    "layer_knee": 96,
    "emb_e0": 0.002375381481964357,
    "emb_e1": 0.00010434107814035455,
    "allreduce_d0": 0.03922084600729687,
    "allreduce_d1": 5.120543174632293e-09,
    "provenance": {
        "mlp_csv": MLP_CSV,
        "mlp_sha256": "d690ce601f94ab80586e1d5a6a92ea0d64114dc3e0895bf32b3bee270f3d9b7f",
        "allreduce_csv": ALLREDUCE_CSV,
        "allreduce_sha256": "27428d884ae095800e81366c7517af93fd7476633cfe5e55bdd155e004485dab",
        "source": "microsoft/vidur data/ (MIT License), via ../shared/data",
        "fit_date": "2026-11-23",
        "layer_r2": 0.9988,
        "layer_median_rel_err": 0.0189,
        "layer_max_rel_err": 0.1667,
        "allreduce_r2": 0.99157,
        "n_layer_rows": 261,
        "n_allreduce_rows": 994,
    },
}


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class BatchTimeModel:
    """Batch time (ms) of Llama-2-70B on two A100s (TP = 2); see the module docstring."""

    layer_c0: float
    layer_c1: float
    layer_c2: float
    layer_knee: int
    emb_e0: float
    emb_e1: float
    allreduce_d0: float
    allreduce_d1: float
    hbm_bytes_per_s: float = HBM_BYTES_PER_S
    attn_flops_per_s: float = ATTN_FLOPS_PER_S
    n_layers: int = N_LAYERS
    provenance: dict = field(default_factory=dict, compare=False)

    # -- components (ms) ------------------------------------------------------------
    def layer_linear_ms(self, tokens):
        """Non-attention operators of one layer for ``tokens`` tokens (fitted)."""
        T = np.asarray(tokens, dtype=float)
        return self.layer_c0 + self.layer_c1 * T + self.layer_c2 * np.maximum(T - self.layer_knee, 0.0)

    def allreduce_ms(self, nbytes):
        return self.allreduce_d0 + self.allreduce_d1 * np.asarray(nbytes, dtype=float)

    def decode_attention_ms(self, kv_tokens):
        """Memory-bound decode attention of one layer: KV bytes per GPU / HBM bandwidth."""
        per_gpu = np.asarray(kv_tokens, dtype=float) * KV_BYTES_PER_TOKEN_PER_LAYER / TP
        return 1e3 * per_gpu / self.hbm_bytes_per_s

    def prefill_attention_ms(self, sum_sq_prompt):
        """Compute-bound causal prefill attention of one layer: ``2 s^2 d`` FLOPs per GPU."""
        d = HIDDEN // TP
        return 1e3 * 2.0 * np.asarray(sum_sq_prompt, dtype=float) * d / self.attn_flops_per_s

    # -- the batch ----------------------------------------------------------------
    def batch_ms(self, prefill_tokens, decode_tokens, kv_tokens, sum_sq_prompt=None):
        """Time (ms) of one batch.

        ``prefill_tokens``: sum of prompt sizes prefilled in this batch;
        ``decode_tokens``: number of running requests decoding one token;
        ``kv_tokens``: total KV length those decode tokens attend to;
        ``sum_sq_prompt``: sum of squared prompt sizes (defaults to
        ``prefill_tokens**2``, i.e. one prompt, an upper bound).
        Vectorised over array arguments.  An empty batch takes 0 ms.
        """
        P = np.asarray(prefill_tokens, dtype=float)
        D = np.asarray(decode_tokens, dtype=float)
        if sum_sq_prompt is None:
            sum_sq_prompt = P**2
        T = P + D
        per_layer = (
            self.layer_linear_ms(T)
            + 2.0 * self.allreduce_ms(T * HIDDEN * DTYPE_BYTES)
            + self.decode_attention_ms(kv_tokens)
            + self.prefill_attention_ms(sum_sq_prompt)
        )
        total = self.n_layers * per_layer + self.emb_e0 + self.emb_e1 * T
        out = np.where(T > 0, total, 0.0)
        return float(out) if np.ndim(out) == 0 else out

    def describe(self) -> dict:
        d = asdict(self)
        return d


def default_model() -> BatchTimeModel:
    """The model with the embedded coefficients (no file access)."""
    e = dict(EMBEDDED)
    prov = e.pop("provenance")
    return BatchTimeModel(**e, provenance=dict(prov, origin="embedded coefficients"))


def _layer_table(mlp_csv: Path):
    import pandas as pd

    d = pd.read_csv(mlp_csv)
    need = ["num_tokens", "num_tensor_parallel_workers"] + [f"time_stats.{o}.median" for o in set(_LAYER_OPS) | {"emb"}]
    missing = [c for c in need if c not in d.columns]
    if missing:
        raise ValueError(f"{mlp_csv}: missing column(s) {', '.join(missing)}")
    d = d[d.num_tensor_parallel_workers == TP]
    if len(d) == 0:
        raise ValueError(f"{mlp_csv}: no rows with num_tensor_parallel_workers == {TP}")
    T = d["num_tokens"].to_numpy(dtype=float)
    y = sum(d[f"time_stats.{o}.median"].to_numpy(dtype=float) for o in _LAYER_OPS)
    emb = d["time_stats.emb.median"].to_numpy(dtype=float)
    return T, y, emb


def _allreduce_table(ar_csv: Path, max_bytes: float = 64 * 2**20):
    import pandas as pd

    a = pd.read_csv(ar_csv)
    for c in ("num_workers", "size", "time_stats.all_reduce.median"):
        if c not in a.columns:
            raise ValueError(f"{ar_csv}: missing column {c}")
    a = a[(a.num_workers == TP) & (a["size"] <= max_bytes)]
    return a["size"].to_numpy(dtype=float), a["time_stats.all_reduce.median"].to_numpy(dtype=float)


def _r2(y, yhat) -> float:
    return float(1.0 - ((y - yhat) ** 2).sum() / ((y - y.mean()) ** 2).sum())


def fit_from_csv(shared_dir: str | Path, knees=(16, 32, 48, 64, 96, 128, 192, 256)) -> BatchTimeModel:
    """Fit the model from Vidur's profiles in ``shared_dir`` (see the module docstring)."""
    shared_dir = Path(shared_dir)
    mlp_csv, ar_csv = shared_dir / MLP_CSV, shared_dir / ALLREDUCE_CSV
    for p in (mlp_csv, ar_csv):
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file (batch-time profile; use default_model() without it)")
    T, y, emb = _layer_table(mlp_csv)
    best = None
    for K in knees:
        X = np.c_[np.ones_like(T), T, np.maximum(T - K, 0.0)]
        W = X / y[:, None]  # relative-error least squares
        c, *_ = np.linalg.lstsq(W, np.ones_like(y), rcond=None)
        rel = np.abs(X @ c - y) / y
        score = float((rel**2).sum())
        if best is None or score < best[0]:
            best = (score, K, c, rel, _r2(y, X @ c))
    _, K, c, rel, r2 = best
    E = np.c_[np.ones_like(T), T]
    e, *_ = np.linalg.lstsq(E, emb, rcond=None)
    size, ar = _allreduce_table(ar_csv)
    A = np.c_[np.ones_like(size), size]
    dcoef, *_ = np.linalg.lstsq(A, ar, rcond=None)
    prov = {
        "mlp_csv": MLP_CSV,
        "mlp_sha256": sha256_file(mlp_csv),
        "allreduce_csv": ALLREDUCE_CSV,
        "allreduce_sha256": sha256_file(ar_csv),
        "source": "microsoft/vidur data/ (MIT License), via ../shared/data",
        "fit_date": _dt.date.today().isoformat(),
        "layer_r2": round(r2, 5),
        "layer_median_rel_err": round(float(np.median(rel)), 4),
        "layer_max_rel_err": round(float(rel.max()), 4),
        "allreduce_r2": round(_r2(ar, A @ dcoef), 5),
        "n_layer_rows": int(len(T)),
        "n_allreduce_rows": int(len(size)),
        "origin": f"fitted from {shared_dir}",
    }
    return BatchTimeModel(
        layer_c0=float(c[0]),
        layer_c1=float(c[1]),
        layer_c2=float(c[2]),
        layer_knee=int(K),
        emb_e0=float(e[0]),
        emb_e1=float(e[1]),
        allreduce_d0=float(dcoef[0]),
        allreduce_d1=float(dcoef[1]),
        provenance=prov,
    )


def profile_points(shared_dir: str | Path):
    """The measured per-layer non-attention times ``(T, ms)`` (for plots and tests)."""
    T, y, _ = _layer_table(Path(shared_dir) / MLP_CSV)
    return T, y
