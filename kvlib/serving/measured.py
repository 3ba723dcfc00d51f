"""Batch time of Llama-2-70B (tensor parallel 2) with *measured* attention, for several GPUs.

:mod:`kvlib.serving.batchtime` fits the non-attention operators and the
all-reduce from Vidur's A100 profiles but *derives* attention from an
assumption (decode reads the KV cache at 2.0e12 bytes/s; prefill runs at half
of the A100's peak FLOP/s).  This module replaces the assumption by fits to
measured attention times, and makes the hardware a parameter.

Per layer and per GPU (all times in **milliseconds**):

* **non-attention operators, embedding, all-reduce**: as in
  :mod:`kvlib.serving.batchtime` (a relative-error least-squares fit with one
  knee, ``c0 + c1 T + c2 max(T - K, 0)`` in the batch's token count ``T``;
  all-reduce linear in the message size).  For Vidur-format profiles the fit
  *is* :func:`kvlib.serving.batchtime.fit_from_csv`; for a kernel file
  (``*_kernels.csv``, the format of ``kvlib profile``) the same knee fit runs on
  its ``layer_without_attention`` rows (one timed call of the whole
  non-attention layer: the sum of the separately timed operators counts every
  kernel-launch gap again and exceeds it by up to about 25 % below 512 tokens).
* **decode attention** of ``D`` decoding requests holding ``K`` cached tokens
  in all (``K = D * kv`` in a profile row of ``D`` requests of ``kv`` tokens
  each): a fixed cost ``a`` (kernel launch, an under-occupied GPU), a
  per-request cost ``b D`` and the cost ``c K`` of reading every cached token's
  K and V (the memory-bound term batchtime.py assumes; its coefficient is
  *fitted* here).  Two ways to combine them are fitted and the better one kept
  (``form`` in the coefficients): ``linear``, ``a + b D + c K`` (costs add up,
  as in Vidur's paged FlashAttention profile on A100), or ``roofline``,
  ``max(a, b D + c K)`` (a floor below which the kernel does not get faster, as
  in the H100 and H200 kernel timings: flat up to a few tens of thousands of
  cached tokens, linear beyond).
* **prefill attention** of one prompt of ``P`` tokens: ``a + b P + c P^2`` or
  ``max(a, b P + c P^2)`` (the causal ``QK^T`` and ``PV`` products grow as
  ``P^2``; the linear term absorbs the traffic of Q, K, V and the output).  A
  batch of ``n`` prompts costs ``n a + b sum(P) + c sum(P^2)`` (linear) or
  ``max(n a, b sum(P) + c sum(P^2))`` (roofline).

Both attention fits minimise the *relative* error (as the layer fit does):
least squares on ``(fit - y) / y`` over the median times of the profile rows,
with every coefficient constrained to be >= 0 (each term is a cost; an
unconstrained linear fit of the H100 kernel profile gives a negative
per-request term, which would make a large batch of short requests cost less
than nothing); the form with the smaller sum of squared relative errors wins.
Fit quality is reported per operator: R^2, median and maximum relative error.

Hardware configurations (:data:`HARDWARE`):

* ``a100``: every input is Vidur's own measurement: ``a100_llama2_70b_mlp.csv``,
  ``a100_pairwise_nvlink_all_reduce.csv`` and ``a100_llama2_70b_tp2_attention.csv``
  (decode rows: ``attn_decode``; prefill rows with no cached context,
  ``kv_cache_size == 0``: ``attn_prefill``; both plus Vidur's
  ``attn_input_reshape`` and ``attn_output_reshape``).
* ``h100``: Vidur's H100 profiles for the non-attention operators and the
  all-reduce; attention from ``h100_llama2_70b_tp2_kernels.csv`` (PyTorch's
  scaled-dot-product attention measured on one H100).
* ``h200``: attention from ``h200_llama2_70b_tp2_kernels.csv``.  No
  all-reduce was measured on H200s: **the H100 NVLink all-reduce stands in**
  (H100 SXM and H200 SXM share fourth-generation NVLink at 900 GB/s), and so
  does the H100 embedding fit (at most about 0.4 ms per batch).  :data:`EMBEDDED`
  fits its non-attention layer to the kernel file's ``layer_without_attention``
  rows (our PyTorch timing); :func:`measured_model` uses that only for
  ``h200-pytorch``.

**Like for like** (:data:`kvlib.serving.likeforlike.CONFIGS` and ``KINDS``).  Plain PyTorch operators are
slower than Vidur's serving kernels at small batches (launch gaps), so a
comparison of an H100 timed by Vidur with an H200 timed by PyTorch favours the
H100.  The model of ``h200`` therefore takes Vidur's H100 operators and scales
each by its H200/H100 ratio in our PyTorch timings of both GPUs
(:mod:`kvlib.serving.likeforlike`, kind ``vidur-derived``), so
that ``a100``, ``h100`` and ``h200`` all rest on Vidur's profiles; ``h100-pytorch``
and ``h200-pytorch`` rest on our PyTorch timings alone (kind ``pytorch``, the
sensitivity).  Each model carries its ``kind``.

**Decode attention** of the default model (``attention="measured"``) is the
surface through the measured grid of :mod:`kvlib.serving.decode_grid` (within a
few per cent of every measured row; the straight-line fit below missed the middle
of the grid by 8-14 %); ``attention="line"`` keeps the fit described above.

The coefficients are embedded (:data:`EMBEDDED`, with file names, SHA-256 from
``SHA256SUMS``, fit date and fit quality) so that the library works without
``../shared/data``; :func:`fit_hardware` refits them (a test checks the two agree).
Without attention measurements (:func:`measured_model` with ``attention=
"derived"``) the derived formula of batchtime.py is the documented fallback.
"""

from __future__ import annotations

import datetime as _dt
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kvlib.core.errors import InstanceError, ParameterError
import kvlib.serving.batchtime as _bt
from kvlib.serving.batchtime import BatchTimeModel, fit_from_csv, sha256_file

__all__ = [
    "HARDWARE",
    "EMBEDDED",
    "KERNEL_COLUMNS",
    "KERNEL_OPS",
    "MeasuredBatchTimeModel",
    "measured_model",
    "fit_hardware",
    "fit_kernels",
    "read_kernels",
    "attention_curve",
    "fit_decode",
    "fit_prefill",
    "fit_knee",
    "derived_vs_measured",
    "comparison_summary",
    "embedded_literal",
]

#: Hardware configurations and the files each is fitted from.
HARDWARE: dict[str, dict[str, str]] = {
    "a100": {
        "mlp_csv": "a100_llama2_70b_mlp.csv",
        "allreduce_csv": "a100_pairwise_nvlink_all_reduce.csv",
        "attention_csv": "a100_llama2_70b_tp2_attention.csv",
    },
    "h100": {
        "mlp_csv": "h100_llama2_70b_mlp.csv",
        "allreduce_csv": "h100_pairwise_nvlink_all_reduce.csv",
        "kernels_csv": "h100_llama2_70b_tp2_kernels.csv",
    },
    "h200": {
        "kernels_csv": "h200_llama2_70b_tp2_kernels.csv",
        # stand-ins (no H200 all-reduce or embedding measurement)
        "mlp_csv": "h100_llama2_70b_mlp.csv",
        "allreduce_csv": "h100_pairwise_nvlink_all_reduce.csv",
    },
}

#: Columns of a kernel-timing file (``h100_llama2_70b_tp2_kernels.csv``; written by ``kvlib profile``).
KERNEL_COLUMNS = ("gpu", "torch", "cuda", "op", "num_tokens", "batch_size", "kv_len", "prompt_len",
                  "time_ms_median", "time_ms_min")
#: Operators of a kernel-timing file (by ``num_tokens`` unless attention).
KERNEL_OPS = ("input_layernorm", "attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_act", "mlp_down_proj",
              "add", "layer_without_attention", "attn_decode", "attn_prefill")

KNEES = (16, 32, 48, 64, 96, 128, 192, 256)
SOURCE_VIDUR = "microsoft/vidur data/ (MIT License), via ../shared/data"
SOURCE_KERNELS = "PyTorch kernel timings of one TP-2 layer (../shared/data README), via ../shared/data"


# --------------------------------------------------------------------------- fitting


def _quality(y: np.ndarray, yhat: np.ndarray) -> dict:
    rel = np.abs(yhat - y) / y
    return {
        "r2": round(float(1.0 - ((y - yhat) ** 2).sum() / ((y - y.mean()) ** 2).sum()), 5),
        "median_rel_err": round(float(np.median(rel)), 4),
        "max_rel_err": round(float(rel.max()), 4),
        "n_rows": int(len(y)),
    }


def _fit_rel(X: np.ndarray, y: np.ndarray, what: str, nonneg: bool = False) -> tuple[np.ndarray, dict]:
    """Least squares on the relative error ``(X c - y) / y`` (with ``nonneg``: every coefficient >= 0)."""
    if len(y) < X.shape[1] + 1:
        raise InstanceError(f"{what}: {len(y)} measured row(s); at least {X.shape[1] + 1} are needed for the fit")
    if not np.all(np.isfinite(y)) or np.any(y <= 0):
        raise InstanceError(f"{what}: every measured time must be a positive finite number of ms")
    if nonneg:
        from scipy.optimize import nnls

        c, _ = nnls(X / y[:, None], np.ones_like(y))
    else:
        c, *_ = np.linalg.lstsq(X / y[:, None], np.ones_like(y), rcond=None)
    return c, _quality(y, X @ c)


def attention_curve(form: str, c: dict, x1, x2):
    """``a + b x1 + c x2`` (form ``linear``) or ``max(a, b x1 + c x2)`` (form ``roofline``), elementwise."""
    x1 = np.asarray(x1, dtype=float)
    x2 = np.asarray(x2, dtype=float)
    work = c["b"] * x1 + c["c"] * x2
    if form == "linear":
        return c["a"] + work
    if form == "roofline":
        return np.maximum(c["a"], work)
    raise ParameterError(f"attention form: must be 'linear' or 'roofline', got {form!r}")


def _fit_attention(x1, x2, y, what: str) -> tuple[dict, dict]:
    """Fit both forms of :func:`attention_curve` (relative error, coefficients >= 0); keep the one with the
    smaller sum of squared relative errors."""
    from scipy.optimize import least_squares

    x1 = np.asarray(x1, dtype=float)
    x2 = np.asarray(x2, dtype=float)
    y = np.asarray(y, dtype=float)
    X = np.c_[np.ones_like(x1), x1, x2]
    c, q = _fit_rel(X, y, what, nonneg=True)
    lin = {"form": "linear", "a": float(c[0]), "b": float(c[1]), "c": float(c[2])}
    # roofline: a fixed floor (launch, low occupancy) or the work term, whichever is larger
    scale = np.array([max(c[0], 1e-6), max(c[1], 1e-12) if x1.any() else 1.0, max(c[2], 1e-12)])
    r = least_squares(lambda p: np.maximum(p[0], p[1] * x1 + p[2] * x2) / y - 1.0, scale, bounds=(0.0, np.inf),
                      x_scale=scale, method="trf")
    roof = {"form": "roofline", "a": float(r.x[0]), "b": float(r.x[1]), "c": float(r.x[2])}
    best = None
    for cand in (lin, roof):
        yh = attention_curve(cand["form"], cand, x1, x2)
        sse = float((((yh - y) / y) ** 2).sum())
        if best is None or sse < best[0] - 1e-12:
            best = (sse, cand, _quality(y, yh))
    _, coef, qual = best
    qual["other_form_max_rel_err"] = round(float(np.max(np.abs(attention_curve(
        "roofline" if coef["form"] == "linear" else "linear", roof if coef["form"] == "linear" else lin, x1, x2)
        - y) / y)), 4)
    return coef, qual


def fit_decode(batch, kv_per_request, ms) -> tuple[dict, dict]:
    """Fit decode attention of ``D`` requests holding ``K = D * kv`` cached tokens: ``a + b D + c K`` or
    ``max(a, b D + c K)`` (see :func:`attention_curve`); returns ``({"form","a","b","c"}, quality)``."""
    D = np.asarray(batch, dtype=float)
    K = D * np.asarray(kv_per_request, dtype=float)
    coef, q = _fit_attention(D, K, ms, "decode attention")
    q.update(batch_range=[int(D.min()), int(D.max())],
             kv_range=[int(np.min(kv_per_request)), int(np.max(kv_per_request))])
    return coef, q


def fit_prefill(prompt_len, ms) -> tuple[dict, dict]:
    """Fit prefill attention of one prompt of ``P`` tokens: ``a + b P + c P^2`` or ``max(a, b P + c P^2)``;
    returns ``({"form","a","b","c"}, quality)``."""
    P = np.asarray(prompt_len, dtype=float)
    coef, q = _fit_attention(P, P * P, ms, "prefill attention")
    q.update(prompt_range=[int(P.min()), int(P.max())])
    return coef, q


def fit_knee(tokens, ms, knees=KNEES) -> tuple[dict, dict]:
    """batchtime.py's non-attention fit ``c0 + c1 T + c2 max(T - K, 0)`` (relative error, ``K`` on a grid).

    The same procedure as :func:`kvlib.serving.batchtime.fit_from_csv` (a test checks that both give the same
    coefficients on Vidur's A100 profile), for layer times that do not come in Vidur's file format."""
    T = np.asarray(tokens, dtype=float)
    y = np.asarray(ms, dtype=float)
    best = None
    for K in knees:
        X = np.c_[np.ones_like(T), T, np.maximum(T - K, 0.0)]
        c, q = _fit_rel(X, y, "non-attention layer")
        rel = np.abs(X @ c - y) / y
        score = float((rel**2).sum())
        if best is None or score < best[0]:
            best = (score, K, c, q)
    _, K, c, q = best
    return {"layer_c0": float(c[0]), "layer_c1": float(c[1]), "layer_c2": float(c[2]), "layer_knee": int(K)}, q


# --------------------------------------------------------------------------- files


def _sums(data_dir: Path) -> dict[str, str]:
    p = data_dir / "SHA256SUMS"
    if not p.exists():
        return {}
    out = {}
    for line in p.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2:
            out[parts[1]] = parts[0]
    return out


def _sha(path: Path, sums: dict[str, str]) -> str:
    """SHA-256 of ``path``, checked against ``SHA256SUMS`` where it lists the file."""
    h = sha256_file(path)
    want = sums.get(path.name)
    if want is not None and want != h:
        raise InstanceError(f"{path}: SHA-256 {h} differs from SHA256SUMS ({want}); the file changed")
    return h


def read_kernels(path: str | os.PathLike):
    """Read and check a kernel-timing file (columns :data:`KERNEL_COLUMNS`); returns a pandas DataFrame.

    Raises :class:`~kvlib.core.errors.InstanceError` naming the file (and the line) on a missing column, an
    unknown operator, a missing size or a time that is not a positive number."""
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise InstanceError(f"{path}: no such kernel-timing file")
    if path.is_dir():
        raise InstanceError(f"{path}: is a directory (name a kernel-timing CSV file)")
    try:
        k = pd.read_csv(path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as e:
        raise InstanceError(f"{path}: not a readable CSV file ({str(e).splitlines()[0][:200]})") from None
    missing = [c for c in KERNEL_COLUMNS if c not in k.columns]
    if missing:
        raise InstanceError(f"{path}: missing column(s) {', '.join(missing)} (a kernel-timing file has "
                            f"{','.join(KERNEL_COLUMNS)})")
    if len(k) == 0:
        raise InstanceError(f"{path}: no rows")
    bad = ~k["op"].isin(KERNEL_OPS)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InstanceError(f"{path}, line {i + 2}: unknown op {k['op'].iloc[i]!r} (known: {', '.join(KERNEL_OPS)})")
    need = {"attn_decode": ("batch_size", "kv_len"), "attn_prefill": ("prompt_len",)}
    for i, row in enumerate(k.itertuples(index=False)):
        cols = need.get(row.op, ("num_tokens",))
        for c in cols + ("time_ms_median",):
            v = pd.to_numeric(getattr(row, c), errors="coerce")
            if not (np.isfinite(v) and v > 0):
                raise InstanceError(f"{path}, line {i + 2}, column {c}: op {row.op} needs a positive number, "
                                    f"got {getattr(row, c)!r}")
    return k


def _attention_from_kernels(k, what: str):
    dec = k[k.op == "attn_decode"]
    pre = k[k.op == "attn_prefill"]
    if len(dec) == 0 or len(pre) == 0:
        raise InstanceError(f"{what}: needs attn_decode and attn_prefill rows (found {len(dec)} and {len(pre)})")
    d, dq = fit_decode(dec.batch_size.to_numpy(float), dec.kv_len.to_numpy(float), dec.time_ms_median.to_numpy(float))
    p, pq = fit_prefill(pre.prompt_len.to_numpy(float), pre.time_ms_median.to_numpy(float))
    return d, dq, p, pq


def _attention_from_vidur(path: Path):
    import pandas as pd

    a = pd.read_csv(path)
    a = a[a.num_tensor_parallel_workers == _bt.TP]
    ms = lambda df, op: (df[f"time_stats.attn_{op}.median"] + df["time_stats.attn_input_reshape.median"]  # noqa: E731
                         + df["time_stats.attn_output_reshape.median"]).to_numpy(float)
    dec = a[~a.is_prefill.astype(bool)]
    pre = a[a.is_prefill.astype(bool) & (a.kv_cache_size == 0)]
    d, dq = fit_decode(dec.batch_size.to_numpy(float), dec.kv_cache_size.to_numpy(float), ms(dec, "decode"))
    p, pq = fit_prefill(pre.prefill_chunk_size.to_numpy(float), ms(pre, "prefill"))
    return d, dq, p, pq


def _vidur_base(mlp_csv: Path, ar_csv: Path) -> dict:
    """batchtime.fit_from_csv on Vidur-format files of any GPU (it reads fixed names: linked in a scratch folder)."""
    with tempfile.TemporaryDirectory(prefix="kvlib-fit-") as tmp:
        os.symlink(mlp_csv.resolve(), Path(tmp) / _bt.MLP_CSV)
        os.symlink(ar_csv.resolve(), Path(tmp) / _bt.ALLREDUCE_CSV)
        m = fit_from_csv(tmp)
    p = m.provenance
    return {
        "layer_c0": m.layer_c0, "layer_c1": m.layer_c1, "layer_c2": m.layer_c2, "layer_knee": m.layer_knee,
        "emb_e0": m.emb_e0, "emb_e1": m.emb_e1, "allreduce_d0": m.allreduce_d0, "allreduce_d1": m.allreduce_d1,
        "quality": {
            "layer": {"r2": p["layer_r2"], "median_rel_err": p["layer_median_rel_err"],
                      "max_rel_err": p["layer_max_rel_err"], "n_rows": p["n_layer_rows"]},
            "allreduce": {"r2": p["allreduce_r2"], "n_rows": p["n_allreduce_rows"]},
        },
    }


def fit_hardware(hardware: str, data_dir: str | os.PathLike) -> dict:
    """Fit one configuration of :data:`HARDWARE` from the files in ``data_dir``; returns an :data:`EMBEDDED` entry."""
    hw = _check_hardware(hardware)
    data_dir = Path(data_dir)
    files = HARDWARE[hw]
    for f in files.values():
        if not (data_dir / f).exists():
            raise FileNotFoundError(f"{data_dir / f}: no such file (profile of {hw}; measured_model({hw!r}) works "
                                    "without it from the embedded coefficients)")
    sums = _sums(data_dir)
    base = _vidur_base(data_dir / files["mlp_csv"], data_dir / files["allreduce_csv"])
    quality = base.pop("quality")
    stand_ins = {}
    if "attention_csv" in files:
        d, dq, p, pq = _attention_from_vidur(data_dir / files["attention_csv"])
    else:
        k = read_kernels(data_dir / files["kernels_csv"])
        d, dq, p, pq = _attention_from_kernels(k, files["kernels_csv"])
        if hw == "h200":
            lay = k[k.op == "layer_without_attention"]
            coef, lq = fit_knee(lay.num_tokens.to_numpy(float), lay.time_ms_median.to_numpy(float))
            base.update(coef)
            quality["layer"] = lq
            stand_ins = {"allreduce": files["allreduce_csv"] + " (H100 NVLink: no H200 all-reduce measurement)",
                         "embedding": files["mlp_csv"] + " (H100 emb operator: not in the kernel file)"}
    quality["decode_attention"] = dq
    quality["prefill_attention"] = pq
    prov = {name: f for name, f in files.items()}
    prov.update({f"{name.removesuffix('_csv')}_sha256": _sha(data_dir / f, sums) for name, f in files.items()})
    prov.update(source=(SOURCE_VIDUR if hw == "a100" else
                        "non-attention and all-reduce: " + SOURCE_VIDUR + "; attention: " + SOURCE_KERNELS
                        if hw == "h100" else SOURCE_KERNELS + "; stand-ins from " + SOURCE_VIDUR),
                fit_date=_dt.date.today().isoformat(), quality=quality)
    if stand_ins:
        prov["stand_ins"] = stand_ins
    entry = {"base": base, "decode": d, "prefill": p, "provenance": prov}
    if hw == "a100":
        entry["provenance"]["derived_vs_measured"] = comparison_summary(
            derived_vs_measured(data_dir, model=_from_entry(hw, entry)))
    return entry


def fit_kernels(kernels_csv: str | os.PathLike, *, all_reduce_from: str = "h100") -> "MeasuredBatchTimeModel":
    """A model from one kernel-timing file (``kvlib profile --out``): non-attention layer and attention from the
    file; all-reduce and embedding (not measured on one GPU) from the embedded ``all_reduce_from`` configuration."""
    path = Path(kernels_csv)
    k = read_kernels(path)
    lay = k[k.op == "layer_without_attention"]
    if len(lay) < 4:
        raise InstanceError(f"{path}: needs at least 4 layer_without_attention rows (found {len(lay)})")
    coef, lq = fit_knee(lay.num_tokens.to_numpy(float), lay.time_ms_median.to_numpy(float))
    d, dq, p, pq = _attention_from_kernels(k, str(path))
    donor = EMBEDDED[_check_hardware(all_reduce_from)]["base"]
    base = dict(donor, **coef)
    gpu = str(k.gpu.iloc[0])
    prov = {
        "kernels_csv": str(path), "kernels_sha256": sha256_file(path), "gpu": gpu, "torch": str(k.torch.iloc[0]),
        "source": "kernel-timing file (kvlib profile format)", "fit_date": _dt.date.today().isoformat(),
        "quality": {"layer": lq, "decode_attention": dq, "prefill_attention": pq},
        "stand_ins": {"allreduce": f"embedded {all_reduce_from} all-reduce", "embedding": f"embedded {all_reduce_from} embedding"},
        "origin": f"fitted from {path}",
    }
    from kvlib.serving.decode_grid import fit_surface

    dec = k[k.op == "attn_decode"]
    prov["decode_grid"] = fit_surface(dec.batch_size, dec.kv_len, dec.time_ms_median,
                                      sorted({int(b) for b in dec.batch_size}), sorted({int(v) for v in dec.kv_len}))
    prov["kind"] = "pytorch"
    return _from_entry(f"kernels:{gpu}", {"base": base, "decode": d, "prefill": p, "provenance": prov}, "line")


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class MeasuredBatchTimeModel:
    """Batch time (ms) of Llama-2-70B, TP = 2, with fitted attention; see the module docstring.

    ``base`` carries the non-attention, embedding and all-reduce fits (a :class:`BatchTimeModel`, whose derived
    attention is used only when ``attention == "derived"``)."""

    hardware: str
    base: BatchTimeModel
    decode: dict
    prefill: dict
    attention: str = "measured"
    provenance: dict = field(default_factory=dict, compare=False)

    @property
    def kind(self) -> str:
        """Where the per-layer non-attention times come from (:data:`kvlib.serving.likeforlike.KINDS`, recorded in
        the provenance): ``vidur`` (Vidur's profile of this GPU), ``vidur-derived`` (Vidur's H100 profile scaled
        by measured H200/H100 ratios) or ``pytorch`` (our PyTorch timings); empty when not recorded."""
        return str(self.provenance.get("kind", ""))

    def decode_attention_ms(self, decode_requests, kv_tokens):
        """Decode attention of one layer (ms): the measured surface (:mod:`kvlib.serving.decode_grid`, form
        ``grid``) or :func:`attention_curve` at ``(D, K)``; 0 without decoding requests."""
        D = np.asarray(decode_requests, dtype=float)
        K = np.asarray(kv_tokens, dtype=float)
        if self.attention == "derived":
            return np.where(D > 0, self.base.decode_attention_ms(K), 0.0)
        if self.decode["form"] == "grid":
            from kvlib.serving.decode_grid import surface_ms

            return surface_ms(self.decode, D, K)
        return np.where(D > 0, attention_curve(self.decode["form"], self.decode, D, K), 0.0)

    def prefill_attention_ms(self, prefill_tokens, sum_sq_prompt=None, n_prompts=None):
        """Prefill attention of one layer (ms) for ``n_prompts`` prompts of ``prefill_tokens`` tokens in all whose
        squares sum to ``sum_sq_prompt`` (defaults: one prompt, ``prefill_tokens**2``)."""
        P = np.asarray(prefill_tokens, dtype=float)
        S = P**2 if sum_sq_prompt is None else np.asarray(sum_sq_prompt, dtype=float)
        N = (P > 0).astype(float) if n_prompts is None else np.asarray(n_prompts, dtype=float)
        if self.attention == "derived":
            return self.base.prefill_attention_ms(S)
        c = self.prefill
        floor, work = c["a"] * N, c["b"] * P + c["c"] * S
        t = floor + work if c["form"] == "linear" else np.maximum(floor, work)
        return np.where(P > 0, t, 0.0)

    def breakdown(self, prefill_tokens, decode_requests, kv_tokens, sum_sq_prompt=None, n_prompts=None) -> dict:
        """The batch's time split into its parts (ms, whole model: every layer plus the embedding)."""
        P = np.asarray(prefill_tokens, dtype=float)
        D = np.asarray(decode_requests, dtype=float)
        T = P + D
        on = T > 0
        L = self.base.n_layers
        parts = {
            "non_attention_ms": np.where(on, L * self.base.layer_linear_ms(T), 0.0),
            "allreduce_ms": np.where(on, L * 2.0 * self.base.allreduce_ms(T * _bt.HIDDEN * _bt.DTYPE_BYTES), 0.0),
            "decode_attention_ms": L * self.decode_attention_ms(D, kv_tokens),
            "prefill_attention_ms": L * self.prefill_attention_ms(P, sum_sq_prompt, n_prompts),
            # clipped at 0: the H100 emb fit has a -0.001 ms intercept
            "embedding_ms": np.where(on, np.maximum(self.base.emb_e0 + self.base.emb_e1 * T, 0.0), 0.0),
        }
        parts["total_ms"] = sum(parts.values())
        return {k: (float(v) if np.ndim(v) == 0 else v) for k, v in parts.items()}

    def batch_ms(self, prefill_tokens, decode_requests, kv_tokens, sum_sq_prompt=None, n_prompts=None):
        """Time (ms) of one batch, as :meth:`BatchTimeModel.batch_ms`: ``prefill_tokens`` prompt tokens prefilled
        (``n_prompts`` prompts, default one; ``sum_sq_prompt`` the sum of their squares, default
        ``prefill_tokens**2``), ``decode_requests`` requests decoding one token each and attending to
        ``kv_tokens`` cached tokens in all.  Vectorised; an empty batch takes 0 ms.  A drop-in for
        :class:`BatchTimeModel` in :func:`kvlib.serving.realtime.simulate_realtime`, which passes no prompt count:
        there a round that starts several requests counts one prompt's fixed prefill cost (the A100 fit's
        ``prefill["a"]``, under 0.01 ms per layer), not one per prompt."""
        if self.attention != "derived" and _scalars(prefill_tokens, decode_requests, kv_tokens, sum_sq_prompt,
                                                     n_prompts):
            return self._scalar_ms(float(prefill_tokens), float(decode_requests), float(kv_tokens),
                                   sum_sq_prompt, n_prompts)
        return self.breakdown(prefill_tokens, decode_requests, kv_tokens, sum_sq_prompt, n_prompts)["total_ms"]

    def _scalar_ms(self, P: float, D: float, K: float, sum_sq_prompt, n_prompts) -> float:
        """:meth:`batch_ms` of one batch in plain floats, the same operations in the same order as
        :meth:`breakdown` (so the same value to the last bit; ``tests/test_measured.py`` checks it): the
        real-time simulator calls it once per round, where NumPy's per-call overhead was most of the cost."""
        b = self.base
        T = P + D
        if T <= 0:
            return 0.0
        L = b.n_layers
        non_attention = L * (b.layer_c0 + b.layer_c1 * T + b.layer_c2 * max(T - b.layer_knee, 0.0))
        allreduce = L * 2.0 * (b.allreduce_d0 + b.allreduce_d1 * (T * _bt.HIDDEN * _bt.DTYPE_BYTES))
        decode = prefill = 0.0
        if D > 0:
            c = self.decode
            if c["form"] == "grid":
                decode = L * _surface_ms_scalar(c, D, K)
            else:
                work = c["b"] * D + c["c"] * K
                decode = L * (c["a"] + work if c["form"] == "linear" else max(c["a"], work))
        if P > 0:
            c = self.prefill
            S = P * P if sum_sq_prompt is None else float(sum_sq_prompt)
            N = 1.0 if n_prompts is None else float(n_prompts)
            floor, work = c["a"] * N, c["b"] * P + c["c"] * S
            prefill = L * (floor + work if c["form"] == "linear" else max(floor, work))
        embedding = max(b.emb_e0 + b.emb_e1 * T, 0.0)
        return 0 + non_attention + allreduce + decode + prefill + embedding

    def describe(self) -> dict:
        return {"hardware": self.hardware, "attention": self.attention, "kind": self.kind, "decode": dict(self.decode),
                "prefill": dict(self.prefill), "provenance": self.provenance}


def _surface_ms_scalar(c: dict, D: float, K: float) -> float:
    from kvlib.serving.decode_grid import surface_ms_scalar

    return surface_ms_scalar(c, D, K)


def _scalars(*values) -> bool:
    """Whether every value is a scalar (``None`` included): ``np.ndim(v) == 0``, with plain ``int`` / ``float``
    / ``None`` answered without NumPy's per-call overhead (the real-time simulator asks once per round)."""
    for v in values:
        if v is not None and type(v) is not int and type(v) is not float and np.ndim(v):
            return False
    return True


def _check_hardware(hardware) -> str:
    if not isinstance(hardware, str) or hardware.strip().lower() not in HARDWARE:
        raise ParameterError(f"hardware: unknown hardware {hardware!r}; known: {', '.join(HARDWARE)}")
    return hardware.strip().lower()


def _from_entry(hardware: str, entry: dict, attention: str = "measured") -> MeasuredBatchTimeModel:
    b = dict(entry["base"])
    base = BatchTimeModel(**{k: b[k] for k in ("layer_c0", "layer_c1", "layer_c2", "layer_knee", "emb_e0", "emb_e1",
                                               "allreduce_d0", "allreduce_d1")},
                          provenance=dict(entry["provenance"]))
    decode = entry.get("decode_grid") if attention == "measured" and entry.get("decode_grid") else entry["decode"]
    return MeasuredBatchTimeModel(hardware, base, dict(decode), dict(entry["prefill"]), attention,
                                  dict(entry["provenance"]))


def _check_config(name) -> str:
    from kvlib.serving.likeforlike import CONFIGS

    if not isinstance(name, str) or name.strip().lower() not in CONFIGS:
        raise ParameterError(f"hardware: unknown hardware {name!r}; known: {', '.join(CONFIGS)}")
    return name.strip().lower()


def measured_model(hardware: str = "a100", *, kernels_csv: str | os.PathLike | None = None,
                   data_dir: str | os.PathLike | None = None, attention: str = "measured") -> MeasuredBatchTimeModel:
    """The batch-time model of one GPU.

    ``hardware``: a configuration of :data:`kvlib.serving.likeforlike.CONFIGS` (``a100``, ``h100``, ``h200``; ``h100-pytorch``,
    ``h200-pytorch``), from embedded coefficients, no file access; ``data_dir``: refit it from the profile files
    there instead; ``kernels_csv``: a kernel-timing file of your own GPU (``kvlib profile --out``), see
    :func:`fit_kernels`.  ``attention`` (:data:`kvlib.serving.likeforlike.ATTENTION`): ``measured`` decodes on the surface through the
    measured grid (:mod:`kvlib.serving.decode_grid`), ``line`` on the straight-line fit, ``derived`` keeps
    batchtime.py's assumed attention (the documented fallback when no attention rows exist; A100 only, since its
    constants are the A100's).  Prefill attention is the fitted curve in every case."""
    from kvlib.serving.decode_grid import EMBEDDED_GRID
    from kvlib.serving.likeforlike import ATTENTION, CONFIGS, LIKE_FOR_LIKE

    if attention not in ATTENTION:
        raise ParameterError(f"attention: must be 'measured', 'line' or 'derived', got {attention!r}")
    if attention == "derived" and (kernels_csv is not None or _check_config(hardware) != "a100"):
        raise ParameterError("attention='derived' is batchtime.py's A100 assumption (2.0e12 bytes/s, 156e12 FLOP/s) "
                             "and exists only for hardware 'a100'")
    if kernels_csv is not None:
        m = fit_kernels(kernels_csv)
        decode = m.provenance["decode_grid"] if attention == "measured" else m.decode
        return MeasuredBatchTimeModel(m.hardware, m.base, decode, m.prefill, attention, m.provenance)
    name = _check_config(hardware)
    gpu, kind = CONFIGS[name]
    if data_dir is not None:
        entry = fit_hardware(gpu, data_dir)
        entry["decode_grid"] = fit_grid(gpu, data_dir, entry["decode"])
        if name in LIKE_FOR_LIKE:
            entry["base"] = {k: v for k, v in fit_like_for_like(name, data_dir)["base"].items()}
        entry["provenance"]["origin"] = f"fitted from {data_dir}"
    else:
        entry = dict(EMBEDDED[gpu], decode_grid=EMBEDDED_GRID[gpu])
        if name in LIKE_FOR_LIKE:
            entry["base"] = LIKE_FOR_LIKE[name]["base"]
        entry = dict(entry, provenance=dict(entry["provenance"], origin="embedded coefficients"))
    prov = dict(entry["provenance"], kind=kind, config=name)
    if name in LIKE_FOR_LIKE:
        prov["non_attention"] = (LIKE_FOR_LIKE[name] if data_dir is None else fit_like_for_like(name, data_dir))[
            "provenance"]
    return _from_entry(gpu, dict(entry, provenance=prov), attention)


# --------------------------------------------------------------------------- like for like, the decode grid
# (functions only: the data live in kvlib.serving.likeforlike and kvlib.serving.decode_grid, which import nothing
# of this module)


def _op_ratio(h100, h200, op: str, T) -> np.ndarray:
    """H200/H100 ratio of one kernel-file operator at token counts ``T`` (linear in log T between the measured
    sizes, the end values beyond them)."""
    a = h100[h100.op == op].groupby("num_tokens").time_ms_median.median()
    b = h200[h200.op == op].groupby("num_tokens").time_ms_median.median()
    common = a.index.intersection(b.index)
    if len(common) < 2:
        raise InstanceError(f"operator {op}: fewer than two token counts timed on both GPUs")
    r = (b.loc[common] / a.loc[common]).to_numpy(float)
    return np.interp(np.log(np.asarray(T, float)), np.log(common.to_numpy(float)), r)


def derived_layer_rows(data_dir: str | os.PathLike):
    """Vidur's H100 per-layer non-attention rows scaled operator by operator to the H200: ``(T, H100 ms, H200 ms)``
    with ``H200 = sum over operators of Vidur's H100 time x our measured H200/H100 ratio`` (:data:`kvlib.serving.likeforlike.VIDUR_TO_KERNEL`;
    both GPUs timed with the same PyTorch code, so the ratio compares like with like)."""
    import pandas as pd

    from kvlib.serving.likeforlike import VIDUR_TO_KERNEL

    data_dir = Path(data_dir)
    d = pd.read_csv(data_dir / HARDWARE["h100"]["mlp_csv"])
    d = d[d.num_tensor_parallel_workers == _bt.TP]
    k1 = read_kernels(data_dir / HARDWARE["h100"]["kernels_csv"])
    k2 = read_kernels(data_dir / HARDWARE["h200"]["kernels_csv"])
    T = d.num_tokens.to_numpy(float)
    h100 = np.zeros_like(T)
    h200 = np.zeros_like(T)
    for op in _bt._LAYER_OPS:  # "add" twice, as batchtime.py counts it
        t = d[f"time_stats.{op}.median"].to_numpy(float)
        h100 += t
        h200 += t * _op_ratio(k1, k2, VIDUR_TO_KERNEL[op], T)
    return T, h100, h200


def fit_like_for_like(name: str, data_dir: str | os.PathLike) -> dict:
    """The non-attention layer of configuration ``name`` of :data:`kvlib.serving.likeforlike.LIKE_FOR_LIKE` refitted from ``data_dir``:
    ``h200`` from :func:`derived_layer_rows` (kind ``vidur-derived``), ``h100-pytorch`` from the H100 kernel
    file's ``layer_without_attention`` rows (kind ``pytorch``); embedding and all-reduce: H100's (Vidur)."""
    if name not in ("h200", "h100-pytorch"):
        raise ParameterError(f"fit_like_for_like: {name!r} is not one of h200, h100-pytorch")
    data_dir = Path(data_dir)
    sums = _sums(data_dir)
    donor = dict(EMBEDDED["h100"]["base"])
    files = [HARDWARE["h100"]["kernels_csv"]]
    if name == "h200":
        T, _, y = derived_layer_rows(data_dir)
        files += [HARDWARE["h100"]["mlp_csv"], HARDWARE["h200"]["kernels_csv"]]
        how = ("Vidur's H100 non-attention operators, each scaled by its H200/H100 ratio in our PyTorch timings of "
               "both GPUs")
    else:
        k = read_kernels(data_dir / HARDWARE["h100"]["kernels_csv"])
        lay = k[k.op == "layer_without_attention"]
        T, y = lay.num_tokens.to_numpy(float), lay.time_ms_median.to_numpy(float)
        how = "our PyTorch timing of the whole non-attention layer on one H100"
    coef, q = fit_knee(T, y)
    base = dict(donor, **coef)
    prov = {"how": how, "files": {f: _sha(data_dir / f, sums) for f in files}, "quality": q,
            "layer_ms_at_64_tokens": round(float(_bt.BatchTimeModel(**{**base, "provenance": {}}).layer_linear_ms(64.0)),
                                           6),
            "stand_ins": "embedding and all-reduce: H100's (Vidur)"}
    return {"base": base, "provenance": prov}


def like_for_like_literal(data_dir: str | os.PathLike) -> str:
    """The :data:`kvlib.serving.likeforlike.LIKE_FOR_LIKE` literal refitted from ``data_dir`` (to paste there after
    a data change)."""
    import pprint

    return "LIKE_FOR_LIKE: dict = " + pprint.pformat({n: fit_like_for_like(n, data_dir) for n in ("h200", "h100-pytorch")},
                                                     width=116, sort_dicts=False)


def decode_rows(hardware: str, data_dir: str | os.PathLike):
    """The measured decode-attention rows of ``hardware`` (``a100``: Vidur's profile, ``attn_decode`` plus its
    two reshapes, tensor parallel 2; ``h100`` / ``h200``: the ``attn_decode`` rows of the kernel file):
    a DataFrame with ``batch``, ``kv`` (cached tokens per request) and ``ms`` (median, per layer)."""
    import pandas as pd

    from kvlib.serving.decode_grid import GRID_FILES

    if hardware not in GRID_FILES:
        raise ParameterError(f"hardware: unknown hardware {hardware!r}; known: {', '.join(GRID_FILES)}")
    path = Path(data_dir) / GRID_FILES[hardware]
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file (decode attention of {hardware})")
    if hardware == "a100":
        a = pd.read_csv(path)
        a = a[(a.num_tensor_parallel_workers == _bt.TP) & ~a.is_prefill.astype(bool)]
        ms = (a["time_stats.attn_decode.median"] + a["time_stats.attn_input_reshape.median"]
              + a["time_stats.attn_output_reshape.median"]).to_numpy(float)
        return pd.DataFrame({"batch": a.batch_size.to_numpy(float), "kv": a.kv_cache_size.to_numpy(float), "ms": ms})
    k = read_kernels(path)
    k = k[k.op == "attn_decode"]
    return pd.DataFrame({"batch": k.batch_size.to_numpy(float), "kv": k.kv_len.to_numpy(float),
                         "ms": k.time_ms_median.to_numpy(float)})


def fit_grid(hardware: str, data_dir: str | os.PathLike, line: dict | None = None) -> dict:
    """Fit the surface of ``hardware`` from ``data_dir``: a :data:`kvlib.serving.decode_grid.EMBEDDED_GRID` entry, with the error of the
    surface (and, given ``line``, the straight-line fit's decode dict) on every measured row."""
    from kvlib.serving.decode_grid import (A100_BATCH_KNOTS, A100_KV_KNOTS, GRID_FILES, error_stats, fit_surface,
                                           held_out_errors, surface_ms)

    rows = decode_rows(hardware, data_dir)
    if hardware == "a100":
        bk, kk = A100_BATCH_KNOTS, A100_KV_KNOTS
    else:
        bk, kk = tuple(sorted({int(b) for b in rows.batch})), tuple(sorted({int(k) for k in rows.kv}))
    c = fit_surface(rows.batch, rows.kv, rows.ms, bk, kk)
    quality = {}
    for name, pred in (("grid", surface_ms(c, rows.batch, rows.batch * rows.kv)),
                       ("line", None if line is None else
                        attention_curve(line["form"], line, rows.batch, rows.batch * rows.kv))):
        if pred is None:
            continue
        s = error_stats(pred, rows.ms)
        w = rows.iloc[s.pop("worst_index")]
        s["worst"] = {"batch": int(w.batch), "kv": int(w.kv), "measured_ms": round(float(w.ms), 5),
                      "model_ms": round(float(pred[int(np.flatnonzero((rows.batch == w.batch) & (rows.kv == w.kv)
                                                                       & (rows.ms == w.ms))[0])]), 5)}
        quality[name] = s
    h = held_out_errors(rows, bk, kk, c)
    quality["held_out"] = {"n_points": int(len(h)), "median_abs_rel_err": round(float(np.median(h)), 4),
                           "p95_abs_rel_err": round(float(np.quantile(h, 0.95)), 4),
                           "max_abs_rel_err": round(float(h.max()), 4)}
    path = Path(data_dir) / GRID_FILES[hardware]
    sums = _sums(Path(data_dir))
    return dict(c, provenance={"file": GRID_FILES[hardware], "sha256": _sha(path, sums) if sums else sha256_file(path),
                               "knots": "a subset of the measured grid" if hardware == "a100" else
                               "the measured grid", "quality": quality})


def embedded_grid_literal(data_dir: str | os.PathLike) -> str:
    """The :data:`kvlib.serving.decode_grid.EMBEDDED_GRID` literal refitted from ``data_dir`` (to paste below after a data change): the
    knot values one batch knot to a line, everything else as :mod:`pprint` writes it."""
    import pprint

    from kvlib.serving.decode_grid import GRID_FILES

    out = ["EMBEDDED_GRID: dict = {"]
    for hw in GRID_FILES:
        e = fit_grid(hw, data_dir, EMBEDDED[hw]["decode"])
        out.append(f"    {hw!r}: {{")
        import textwrap

        out.append("        'form': 'grid',")
        out += textwrap.wrap(f"'batch': {e['batch']!r},", 112, initial_indent=" " * 8, subsequent_indent=" " * 18)
        out.append(f"        'kv': {e['kv']!r},")
        out.append("        'log_ms': [")
        for row in e["log_ms"]:
            vals = [f"{v:.6f}" for v in row]
            for k in range(0, len(vals), 9):
                out.append("            " + ("[" if k == 0 else " ") + ", ".join(vals[k:k + 9])
                           + ("]," if k + 9 >= len(vals) else ","))
        out.append("        ],")
        prov = pprint.pformat(e["provenance"], width=100, sort_dicts=False).replace("\n", "\n" + " " * 22)
        out.append(f"        'provenance': {prov},")
        out.append("    },")
    out.append("}")
    return "\n".join(out)


# --------------------------------------------------------------------------- derived vs measured


def derived_vs_measured(data_dir: str | os.PathLike | None = None, *, model: MeasuredBatchTimeModel | None = None):
    """batchtime.py's derived attention against Vidur's measured A100 attention, one row per profile row.

    Columns: ``kind`` (decode / prefill), ``batch`` (requests), ``kv`` (cached tokens per request; for prefill the
    prompt length), ``measured_ms`` (per layer: Vidur's median, with the reshapes), ``derived_ms`` (batchtime.py's
    formula), ``rel_err`` = (derived - measured) / measured, ``share`` = the measured attention's share of the
    batch's time (all layers) under the measured A100 model.  Without ``data_dir`` (or its attention file) the
    measured column is the embedded A100 fit on Vidur's grid (``source`` column says which)."""
    import pandas as pd

    model = model or measured_model("a100")
    derived = _bt.default_model()
    path = None if data_dir is None else Path(data_dir) / HARDWARE["a100"]["attention_csv"]
    if path is not None and path.exists():
        a = pd.read_csv(path)
        a = a[a.num_tensor_parallel_workers == _bt.TP]
        ms = lambda df, op: (df[f"time_stats.attn_{op}.median"] + df["time_stats.attn_input_reshape.median"]  # noqa: E731
                             + df["time_stats.attn_output_reshape.median"]).to_numpy(float)
        dec = a[~a.is_prefill.astype(bool)]
        pre = a[a.is_prefill.astype(bool) & (a.kv_cache_size == 0)]
        db, dk, dm = dec.batch_size.to_numpy(float), dec.kv_cache_size.to_numpy(float), ms(dec, "decode")
        pp, pm = pre.prefill_chunk_size.to_numpy(float), ms(pre, "prefill")
        source = f"measured ({path.name})"
    else:
        B, Kv = np.meshgrid(np.arange(1, 129), np.arange(32, 4033, 32))
        db, dk = B.ravel().astype(float), Kv.ravel().astype(float)
        dm = model.decode_attention_ms(db, db * dk)
        pp = np.arange(64, 4097, 64, dtype=float)
        pm = model.prefill_attention_ms(pp)
        source = "embedded A100 fit (no attention file)"
    L = model.base.n_layers
    dd = derived.decode_attention_ms(db * dk)
    pd_ = derived.prefill_attention_ms(pp**2)
    rows = pd.DataFrame({
        "kind": ["decode"] * len(db) + ["prefill"] * len(pp),
        "batch": np.r_[db, np.ones_like(pp)].astype(int),
        "kv": np.r_[dk, pp].astype(int),
        "measured_ms": np.r_[dm, pm],
        "derived_ms": np.r_[dd, pd_],
    })
    rows["rel_err"] = (rows.derived_ms - rows.measured_ms) / rows.measured_ms
    round_ms = np.r_[model.batch_ms(0, db, db * dk), model.batch_ms(pp, 0, 0)]
    rows["share"] = L * rows.measured_ms / round_ms
    rows["source"] = source
    return rows


def comparison_summary(rows) -> dict:
    """Per kind: median and maximum |relative error| of the derived attention, where it errs most, and the
    measured attention's largest share of a batch."""
    out = {}
    for kind, g in rows.groupby("kind"):
        r = g.rel_err.abs().to_numpy()
        i = int(np.argmax(r))
        worst = g.iloc[i]
        out[kind] = {
            "n_rows": int(len(g)),
            "median_abs_rel_err": round(float(np.median(r)), 4),
            "max_abs_rel_err": round(float(r[i]), 4),
            "worst": {"batch": int(worst.batch), "kv": int(worst.kv), "measured_ms": round(float(worst.measured_ms), 5),
                      "derived_ms": round(float(worst.derived_ms), 5)},
            "share_of_underestimated": round(float((g.rel_err < 0).mean()), 4),
            "max_share": round(float(g.share.max()), 4),
        }
    return out


def embedded_literal(data_dir: str | os.PathLike) -> str:
    """The :data:`EMBEDDED` dict literal refitted from ``data_dir`` (to paste below after a data change)."""
    import pprint

    return "EMBEDDED: dict = " + pprint.pformat({hw: fit_hardware(hw, data_dir) for hw in HARDWARE},
                                                width=116, sort_dicts=False)


#: Coefficients fitted by :func:`fit_hardware` from ``../shared/data`` (``embedded_literal``); see the docstring.
EMBEDDED: dict = {'a100': {'base': {'layer_c0': 0.5620435597462162,
                   'layer_c1': 0.0014995069760119248,
                   'layer_c2': 0.002368036620374888,
                   'layer_knee': 96,
                   'emb_e0': 0.002375381481964357,
                   'emb_e1': 0.00010434107814035455,
                   'allreduce_d0': 0.03922084600729687,
                   'allreduce_d1': 5.120543174632293e-09},
          'decode': {'form': 'linear',
                     'a': 0.01536367304173158,
                     'b': 6.504893620343664e-06,
                     'c': 1.3096054707872846e-06},
          'prefill': {'form': 'linear',
                      'a': 0.008407112536424259,
                      'b': 8.342448749484232e-05,
                      'c': 1.2298391864272532e-07},
          'provenance': {'mlp_csv': 'a100_llama2_70b_mlp.csv',
                         'allreduce_csv': 'a100_pairwise_nvlink_all_reduce.csv',
                         'attention_csv': 'a100_llama2_70b_tp2_attention.csv',
                         'mlp_sha256': 'd690ce601f94ab80586e1d5a6a92ea0d64114dc3e0895bf32b3bee270f3d9b7f',
                         'allreduce_sha256': '27428d884ae095800e81366c7517af93fd7476633cfe5e55bdd155e004485dab',
                         'attention_sha256': '83f4bb3ac779878b98457d1e596b324206c6c39d8bf4b25f35a1f14ccbd8af24',
                         'source': 'microsoft/vidur data/ (MIT License), via ../shared/data',
                         'fit_date': '2026-11-27',
                         'quality': {'layer': {'r2': 0.9988,
                                               'median_rel_err': 0.0189,
                                               'max_rel_err': 0.1667,
                                               'n_rows': 261},
                                     'allreduce': {'r2': 0.99157, 'n_rows': 994},
                                     'decode_attention': {'r2': 0.97827,
                                                          'median_rel_err': 0.0893,
                                                          'max_rel_err': 0.602,
                                                          'n_rows': 10240,
                                                          'other_form_max_rel_err': 0.805,
                                                          'batch_range': [1, 128],
                                                          'kv_range': [32, 4032]},
                                     'prefill_attention': {'r2': 0.99929,
                                                           'median_rel_err': 0.0203,
                                                           'max_rel_err': 0.1699,
                                                           'n_rows': 84,
                                                           'other_form_max_rel_err': 0.3149,
                                                           'prompt_range': [64, 4096]}},
                         'derived_vs_measured': {'decode': {'n_rows': 10240,
                                                            'median_abs_rel_err': 0.3712,
                                                            'max_abs_rel_err': 0.998,
                                                            'worst': {'batch': 1,
                                                                      'kv': 32,
                                                                      'measured_ms': 0.016,
                                                                      'derived_ms': 3e-05},
                                                            'share_of_underestimated': 1.0,
                                                            'max_share': 0.4435},
                                                 'prefill': {'n_rows': 84,
                                                             'median_abs_rel_err': 0.7194,
                                                             'max_abs_rel_err': 0.9873,
                                                             'worst': {'batch': 1,
                                                                       'kv': 64,
                                                                       'measured_ms': 0.017,
                                                                       'derived_ms': 0.00022},
                                                             'share_of_underestimated': 1.0,
                                                             'max_share': 0.1219}}}},
 'h100': {'base': {'layer_c0': 0.31103209702790297,
                   'layer_c1': 0.0005810966112747592,
                   'layer_c2': 0.0007310460666128181,
                   'layer_knee': 192,
                   'emb_e0': -0.0010881639020846683,
                   'emb_e1': 5.690541569155341e-05,
                   'allreduce_d0': 0.017114653079721005,
                   'allreduce_d1': 5.061210278444812e-09},
          'decode': {'form': 'roofline',
                     'a': 0.03432343075440366,
                     'b': 4.000280209644826e-10,
                     'c': 7.478352749009332e-07},
          'prefill': {'form': 'roofline',
                      'a': 0.03383782911080694,
                      'b': 1.8373186084832864e-05,
                      'c': 1.1544360736987345e-08},
          'provenance': {'mlp_csv': 'h100_llama2_70b_mlp.csv',
                         'allreduce_csv': 'h100_pairwise_nvlink_all_reduce.csv',
                         'kernels_csv': 'h100_llama2_70b_tp2_kernels.csv',
                         'mlp_sha256': 'fb3581ade7c02caab8a0f7d1ca1ad06a7b0fbac3d9f32a9ed46ae55d95fd6bb3',
                         'allreduce_sha256': '8d68ee6979682726cd7c1d06b8a3656dea5bf53d074d62b3e080ed306b03c155',
                         'kernels_sha256': '80fc0acaa238ede7e788b1d4a4d1e711b2f3dc2d0498b2b4b749e93b5a3b31d1',
                         'source': 'non-attention and all-reduce: microsoft/vidur data/ (MIT License), via '
                                   '../shared/data; attention: PyTorch kernel timings of one TP-2 layer '
                                   '(../shared/data README), via ../shared/data',
                         'fit_date': '2026-11-27',
                         'quality': {'layer': {'r2': 0.99587,
                                               'median_rel_err': 0.03,
                                               'max_rel_err': 0.2886,
                                               'n_rows': 261},
                                     'allreduce': {'r2': 0.9988, 'n_rows': 994},
                                     'decode_attention': {'r2': 0.98609,
                                                          'median_rel_err': 0.0998,
                                                          'max_rel_err': 0.2406,
                                                          'n_rows': 54,
                                                          'other_form_max_rel_err': 0.482,
                                                          'batch_range': [1, 256],
                                                          'kv_range': [64, 4096]},
                                     'prefill_attention': {'r2': 0.99936,
                                                           'median_rel_err': 0.0094,
                                                           'max_rel_err': 0.0347,
                                                           'n_rows': 9,
                                                           'other_form_max_rel_err': 0.2821,
                                                           'prompt_range': [16, 4096]}}}},
 'h200': {'base': {'layer_c0': 0.37762791408504925,
                   'layer_c1': 7.87819788194092e-05,
                   'layer_c2': 0.0013747612785467887,
                   'layer_knee': 192,
                   'emb_e0': -0.0010881639020846683,
                   'emb_e1': 5.690541569155341e-05,
                   'allreduce_d0': 0.017114653079721005,
                   'allreduce_d1': 5.061210278444812e-09},
          'decode': {'form': 'roofline',
                     'a': 0.019381620096996455,
                     'b': 4.5262528516388695e-05,
                     'c': 4.7573330508704403e-07},
          'prefill': {'form': 'roofline',
                      'a': 0.02851663914000523,
                      'b': 2.000093008042024e-10,
                      'c': 1.7476506714296753e-08},
          'provenance': {'kernels_csv': 'h200_llama2_70b_tp2_kernels.csv',
                         'mlp_csv': 'h100_llama2_70b_mlp.csv',
                         'allreduce_csv': 'h100_pairwise_nvlink_all_reduce.csv',
                         'kernels_sha256': '9e597c04746bcc139dcf949ab09ed47f420a67f71ecda64b4db5da63fd1f02df',
                         'mlp_sha256': 'fb3581ade7c02caab8a0f7d1ca1ad06a7b0fbac3d9f32a9ed46ae55d95fd6bb3',
                         'allreduce_sha256': '8d68ee6979682726cd7c1d06b8a3656dea5bf53d074d62b3e080ed306b03c155',
                         'source': 'PyTorch kernel timings of one TP-2 layer (../shared/data README), via '
                                   '../shared/data; stand-ins from microsoft/vidur data/ (MIT License), via '
                                   '../shared/data',
                         'fit_date': '2026-11-27',
                         'quality': {'layer': {'r2': 0.99965,
                                               'median_rel_err': 0.0143,
                                               'max_rel_err': 0.0597,
                                               'n_rows': 24},
                                     'allreduce': {'r2': 0.9988, 'n_rows': 994},
                                     'decode_attention': {'r2': 0.9897,
                                                          'median_rel_err': 0.1205,
                                                          'max_rel_err': 0.4922,
                                                          'n_rows': 54,
                                                          'other_form_max_rel_err': 0.5423,
                                                          'batch_range': [1, 256],
                                                          'kv_range': [64, 4096]},
                                     'prefill_attention': {'r2': 0.97854,
                                                           'median_rel_err': 0.063,
                                                           'max_rel_err': 0.1315,
                                                           'n_rows': 9,
                                                           'other_form_max_rel_err': 0.2143,
                                                           'prompt_range': [16, 4096]}},
                         'stand_ins': {'allreduce': 'h100_pairwise_nvlink_all_reduce.csv (H100 NVLink: no H200 '
                                                    'all-reduce measurement)',
                                       'embedding': 'h100_llama2_70b_mlp.csv (H100 emb operator: not in the kernel '
                                                    'file)'}}}}

if __name__ == "__main__":  # pragma: no cover - refit: python -m kvlib.serving.measured ../shared/data
    import sys

    print(embedded_literal(sys.argv[1] if len(sys.argv) > 1 else "../shared/data"))
