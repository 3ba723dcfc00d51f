"""Decode attention from the measured grid: a piecewise-bilinear surface in log batch and log context.

:mod:`kvlib.serving.measured` first fitted decode attention with a straight line (``a + b D + c K``) or a
roofline (``max(a, b D + c K)``) in the batch ``D`` and the cached tokens ``K``.  Both miss the measured
profiles in the middle of the grid (at 64 requests of 1,000 cached tokens each by 8-14 %).  This module
replaces them by the measured grid itself:

* **the surface**: ``log t`` is bilinear in ``(log D, log kv)`` between knots (``kv = K / D``, the cached
  tokens per request); a power law ``t ~ D^p kv^q`` is reproduced exactly between knots, so doubling steps of
  the measured grid cost no accuracy where the kernel is bound by memory traffic (``t ~ D kv``).
* **the knot values** are least squares on ``log t`` over every measured row (that is, on the relative error
  to first order).  Where the knots are the measured grid itself (H100 and H200: 9 batch sizes x 6 context
  lengths, one row each) the surface passes through every measurement; for Vidur's dense A100 profile
  (128 x 80 rows) the knots are a subset, 39 x 17, (:data:`A100_BATCH_KNOTS` x :data:`A100_KV_KNOTS`) and the other
  rows test it.
* **beyond the grid** (more requests or longer contexts than measured) the surface continues linearly in
  time with the slope of its last segment (never negative, so never faster with more work); below the
  smallest measured context it stays at the edge value.

Vidur's A100 profile has 1 µs resolution, jumps where one more request adds a wave of thread blocks, and
small steps every 128 cached tokens: the surface follows the large jumps (knots on both sides) but not every
small step, and the error table (:func:`error_table`) reports its median, 95th percentile and worst row.

:data:`EMBEDDED_GRID` holds the fitted knots (with file names, SHA-256 and error statistics), so the library
works without ``../shared/data``; :func:`kvlib.serving.measured.fit_grid` refits them from the files (a test
checks that the two agree; :func:`kvlib.serving.measured.embedded_grid_literal` writes the literal).  This module
reads no file and imports nothing of :mod:`kvlib.serving.measured` (which uses it).
"""

from __future__ import annotations

import bisect
import math
import numpy as np

from kvlib.core.errors import InstanceError, ParameterError

__all__ = ["A100_BATCH_KNOTS", "A100_KV_KNOTS", "GRID_FILES", "EMBEDDED_GRID", "fit_surface",
           "surface_ms", "surface_ms_scalar", "error_stats", "held_out_errors", "error_table"]

#: Knots of the A100 surface (Vidur's profile: batch 1-128, 32-4,032 cached tokens per request).
#: Batch knots sit on both sides of each jump of the profile: the A100's 108 streaming multiprocessors run the
#: kernel's thread blocks in waves, and one more request can add a wave (at 14, 22, 28, 56 and 112 requests).
#: Context knots sit on both sides of the steps at 256 and 1,024 tokens.
A100_BATCH_KNOTS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18, 19, 21, 22, 24, 26, 27, 28, 32, 40, 48,
                    52, 54, 55, 56, 60, 64, 80, 96, 104, 108, 111, 112, 128)
A100_KV_KNOTS = (32, 64, 96, 128, 192, 224, 256, 384, 480, 512, 768, 992, 1024, 1536, 2048, 3072, 4032)

#: The measured decode-attention file of each GPU.
GRID_FILES = {"a100": "a100_llama2_70b_tp2_attention.csv", "h100": "h100_llama2_70b_tp2_kernels.csv",
              "h200": "h200_llama2_70b_tp2_kernels.csv"}


# --------------------------------------------------------------------------- the surface


def _segment(x: float, knots) -> tuple[int, float]:
    """Index ``i`` of the segment ``[knots[i], knots[i+1]]`` holding ``x`` (clamped) and the position in it."""
    i = min(max(bisect.bisect_right(knots, x) - 1, 0), len(knots) - 2)
    t = (x - knots[i]) / (knots[i + 1] - knots[i])
    return i, min(max(t, 0.0), 1.0)


#: Logs of each surface's knots, by the surface dict's identity (the dict is kept, so its id is not reused).
_LOGS: dict[int, tuple] = {}


def _logs(c: dict) -> tuple[list, list]:
    hit = _LOGS.get(id(c))
    if hit is not None and hit[0] is c:
        return hit[1], hit[2]
    if c.get("form") != "grid":
        raise ParameterError(f"decode surface: form must be 'grid', got {c.get('form')!r}")
    lb, lk = [math.log(b) for b in c["batch"]], [math.log(k) for k in c["kv"]]
    _LOGS[id(c)] = (c, lb, lk)
    return lb, lk


def _inside(c: dict, lD: float, lk: float) -> float:
    """The surface at ``(log D, log kv)`` clamped into the knot box (ms)."""
    lbs, lks = _logs(c)
    i, u = _segment(lD, lbs)
    j, v = _segment(lk, lks)
    g = c["log_ms"]
    return math.exp((1 - u) * ((1 - v) * g[i][j] + v * g[i][j + 1]) + u * ((1 - v) * g[i + 1][j] + v * g[i + 1][j + 1]))


def _along_kv(c: dict, D: float, kv: float) -> float:
    """Inside in ``D`` (clamped); beyond the longest measured context linear in ``kv`` (last segment's slope >= 0)."""
    lD = math.log(D)
    kmax, kprev = c["kv"][-1], c["kv"][-2]
    if kv <= kmax:
        return _inside(c, lD, math.log(max(kv, c["kv"][0])))
    lks = _logs(c)[1]
    edge = _inside(c, lD, lks[-1])
    slope = max((edge - _inside(c, lD, lks[-2])) / (kmax - kprev), 0.0)
    return edge + slope * (kv - kmax)


def _fast_inside(c: dict, D: float, kv: float) -> float:
    """:func:`_inside` for a point inside the knot box (the simulator's usual case), in fewer calls: the same
    formula, so the same value up to the last bit or two."""
    lbs, lks = _logs(c)
    b, k = c["batch"], c["kv"]
    lD, lk = math.log(D), math.log(kv)
    i = min(bisect.bisect_right(b, D) - 1, len(b) - 2)
    j = min(bisect.bisect_right(k, kv) - 1, len(k) - 2)
    u = (lD - lbs[i]) / (lbs[i + 1] - lbs[i])
    v = (lk - lks[j]) / (lks[j + 1] - lks[j])
    g0, g1 = c["log_ms"][i], c["log_ms"][i + 1]
    return math.exp((1 - u) * ((1 - v) * g0[j] + v * g0[j + 1]) + u * ((1 - v) * g1[j] + v * g1[j + 1]))


def surface_ms_scalar(c: dict, D: float, K: float) -> float:
    """The surface ``c`` (``{"form": "grid", "batch", "kv", "log_ms"}``) for ``D`` requests holding ``K`` cached
    tokens in all (ms per layer; 0 without requests)."""
    if D <= 0:
        return 0.0
    kv = max(K / D, 1.0)
    b, k = c["batch"], c["kv"]
    if b[0] <= D <= b[-1] and k[0] <= kv <= k[-1]:
        return _fast_inside(c, D, kv)
    bmax, bprev = b[-1], b[-2]
    if D <= bmax:
        return _along_kv(c, max(D, c["batch"][0]), kv)
    edge = _along_kv(c, bmax, kv)
    slope = max((edge - _along_kv(c, bprev, kv)) / (bmax - bprev), 0.0)
    return edge + slope * (D - bmax)


def surface_ms(c: dict, D, K):
    """:func:`surface_ms_scalar` elementwise over arrays ``D``, ``K`` (broadcast)."""
    D, K = np.broadcast_arrays(np.asarray(D, dtype=float), np.asarray(K, dtype=float))
    out = np.fromiter((surface_ms_scalar(c, d, k) for d, k in zip(D.ravel(), K.ravel())), float, D.size)
    return out.reshape(D.shape) if D.ndim else float(out[0])


def _design(D, kv, batch_knots, kv_knots) -> np.ndarray:
    """Bilinear hat weights in ``(log D, log kv)`` (clamped into the knot box): one row per point."""
    lb, lk = np.log(np.asarray(batch_knots, float)), np.log(np.asarray(kv_knots, float))

    def hat(x, k):
        i = np.clip(np.searchsorted(k, x, side="right") - 1, 0, len(k) - 2)
        t = np.clip((x - k[i]) / (k[i + 1] - k[i]), 0.0, 1.0)
        return i, t

    i, u = hat(np.log(D), lb)
    j, v = hat(np.log(kv), lk)
    n, nk = len(D), len(lk)
    X = np.zeros((n, len(lb) * nk))
    r = np.arange(n)
    for di, wi in ((0, 1 - u), (1, u)):
        for dj, wj in ((0, 1 - v), (1, v)):
            np.add.at(X, (r, (i + di) * nk + j + dj), wi * wj)
    return X


def fit_surface(batch, kv_per_request, ms, batch_knots, kv_knots) -> dict:
    """Knot values of the surface by least squares on ``log ms`` over the measured rows.

    Raises :class:`~kvlib.core.errors.InstanceError` on a non-positive time or size, knots that are not
    increasing, or a knot cell with no measured row nearby (the fit would be undetermined)."""
    D, kv, y = (np.asarray(a, dtype=float) for a in (batch, kv_per_request, ms))
    for name, a in (("batch size", D), ("cached tokens per request", kv), ("time", y)):
        if not len(a) or not np.all(np.isfinite(a)) or np.any(a <= 0):
            raise InstanceError(f"decode grid: every {name} must be a positive finite number")
    for name, k in (("batch", batch_knots), ("kv", kv_knots)):
        if len(k) < 2 or np.any(np.diff(np.asarray(k, float)) <= 0) or min(k) <= 0:
            raise InstanceError(f"decode grid: {name} knots must be at least two increasing positive numbers, "
                                f"got {list(k)}")
    X = _design(D, kv, batch_knots, kv_knots)
    if np.linalg.matrix_rank(X) < X.shape[1]:
        raise InstanceError("decode grid: some knots have no measured rows around them (choose knots inside "
                            f"the measured range: batch {int(D.min())}-{int(D.max())}, "
                            f"kv {int(kv.min())}-{int(kv.max())})")
    theta, *_ = np.linalg.lstsq(X, np.log(y), rcond=None)
    g = theta.reshape(len(batch_knots), len(kv_knots))
    return {"form": "grid", "batch": [int(b) for b in batch_knots], "kv": [int(k) for k in kv_knots],
            "log_ms": [[round(float(x), 6) for x in row] for row in g]}


# --------------------------------------------------------------------------- the measured rows


def error_stats(model_ms, measured_ms) -> dict:
    """Median, 95th percentile and worst |relative error| of ``model_ms`` against ``measured_ms``, and the
    signed error of the worst row."""
    m, y = np.asarray(model_ms, float), np.asarray(measured_ms, float)
    rel = (m - y) / y
    a = np.abs(rel)
    i = int(np.argmax(a))
    return {"n_rows": int(len(y)), "median_abs_rel_err": round(float(np.median(a)), 4),
            "p95_abs_rel_err": round(float(np.quantile(a, 0.95)), 4), "max_abs_rel_err": round(float(a[i]), 4),
            "worst_index": i}


def held_out_errors(rows, batch_knots, kv_knots, surface: dict) -> np.ndarray:
    """|Relative error| where the surface was not told the answer.  Where the knots are a subset of the measured
    grid (A100): the surface on every row off the knots.  Where they are the grid itself (H100, H200): each
    interior measured point predicted from its two neighbours along one axis (log-log linear), so at twice the
    grid's spacing: a pessimistic measure of the error between measured points."""
    on_knots = np.isin(rows.batch, batch_knots) & np.isin(rows.kv, kv_knots)
    if not on_knots.all():
        off = rows[~on_knots]
        return np.abs(surface_ms(surface, off.batch, off.batch * off.kv) / off.ms.to_numpy(float) - 1.0)
    m = np.log(rows.pivot_table(index="batch", columns="kv", values="ms", aggfunc="median"))
    out = []
    for grid, x in ((m.to_numpy(), np.log(m.columns.to_numpy(float))), (m.to_numpy().T, np.log(m.index.to_numpy(float)))):
        for y in grid:
            for j in range(1, len(x) - 1):
                p = y[j - 1] + (y[j + 1] - y[j - 1]) * (x[j] - x[j - 1]) / (x[j + 1] - x[j - 1])
                out.append(abs(math.exp(p - y[j]) - 1.0))
    return np.array(out)


def error_table(grids: dict | None = None):
    """Model against measured decode attention per GPU (from the fits' provenance): rows measured, median,
    95th percentile and worst |relative error| of the straight-line fit (before), of the surface (after) and
    where the surface was not told the answer (:func:`held_out_errors`)."""
    import pandas as pd

    grids = grids or EMBEDDED_GRID
    rows = []
    for hw, c in grids.items():
        q = c["provenance"]["quality"]
        row = {"GPU": hw.upper(), "measured rows": q["grid"]["n_rows"], "knots": f"{len(c['batch'])} x {len(c['kv'])}"}
        for name, label in (("line", "straight line"), ("grid", "surface"), ("held_out", "held out")):
            s = q.get(name, {})
            for key, col in (("median_abs_rel_err", "median"), ("p95_abs_rel_err", "95th pct."),
                             ("max_abs_rel_err", "worst")):
                row[f"{label}: {col}"] = s.get(key, np.nan)
        w = q["grid"]["worst"]
        row["surface's worst row"] = (f"{w['batch']} x {w['kv']:,}: {1000 * w['model_ms']:.1f} vs "
                                      f"{1000 * w['measured_ms']:.1f} µs" if q["grid"]["max_abs_rel_err"] > 1e-3
                                      else "none: the knots are the measured points")
        rows.append(row)
    return pd.DataFrame(rows)


#: Surfaces fitted by :func:`kvlib.serving.measured.fit_grid` from ``../shared/data``
#: (:func:`kvlib.serving.measured.embedded_grid_literal`).
EMBEDDED_GRID: dict = {
    'a100': {
        'form': 'grid',
        'batch': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18, 19, 21, 22, 24, 26, 27, 28, 32, 40, 48,
                  52, 54, 55, 56, 60, 64, 80, 96, 104, 108, 111, 112, 128],
        'kv': [32, 64, 96, 128, 192, 224, 256, 384, 480, 512, 768, 992, 1024, 1536, 2048, 3072, 4032],
        'log_ms': [
            [-4.135167, -4.135167, -4.135167, -3.963316, -3.963316, -3.963316, -4.029648, -3.982852, -3.957920,
             -4.008593, -3.991646, -3.969334, -4.005506, -3.986690, -3.990321, -3.992194, -3.971887],
            [-4.199705, -4.199705, -4.199705, -4.017384, -4.017384, -4.017384, -3.852166, -3.894394, -3.916893,
             -3.906373, -3.883694, -3.922784, -3.876380, -3.900774, -3.896306, -3.883313, -3.864958],
            [-4.268698, -4.268698, -4.268698, -4.074542, -4.074542, -4.017384, -3.941491, -3.812221, -3.734720,
             -3.628561, -3.692696, -3.687430, -3.676607, -3.687169, -3.652889, -3.611708, -3.595669],
            [-4.268698, -4.268698, -4.268698, -4.066863, -4.007985, -4.017384, -3.913460, -3.800237, -3.719722,
             -3.627290, -3.529564, -3.593019, -3.575794, -3.566248, -3.569054, -3.541051, -3.412178],
            [-4.268698, -4.268698, -4.268698, -4.074542, -4.074542, -4.074542, -3.943725, -3.822761, -3.758311,
             -3.689462, -3.468934, -3.465752, -3.476623, -3.465200, -3.449978, -3.346080, -3.161027],
            [-4.342806, -4.199705, -4.268698, -4.007985, -4.063040, -3.963316, -3.891050, -3.804128, -3.736956,
             -3.653202, -3.451882, -3.292770, -3.361998, -3.339344, -3.320182, -3.176224, -3.035687],
            [-4.268698, -4.199705, -4.135167, -4.010120, -3.954426, -3.963316, -3.868285, -3.746280, -3.673023,
             -3.567494, -3.672427, -3.630059, -3.624025, -3.606952, -3.392971, -2.993360, -2.942563],
            [-4.268698, -4.268698, -4.268698, -4.136420, -4.018918, -4.017384, -3.936680, -3.825768, -3.760029,
             -3.667327, -3.473078, -3.315709, -3.241115, -3.073317, -3.054709, -2.907587, -2.833540],
            [-4.268698, -4.268698, -4.268698, -4.074542, -4.074542, -4.017384, -3.941491, -3.812221, -3.734720,
             -3.683071, -3.449794, -3.293482, -3.216442, -3.060666, -3.006043, -2.885554, -2.798691],
            [-4.199705, -4.199705, -4.199705, -4.026273, -3.974197, -3.963316, -3.868285, -3.746280, -3.673023,
             -3.614021, -3.404035, -3.407856, -3.422096, -3.334099, -3.041254, -2.763853, -2.719899],
            [-4.268698, -4.268698, -4.268698, -4.074542, -4.074542, -4.017384, -3.941491, -3.812221, -3.734720,
             -3.657895, -3.449456, -3.286606, -3.252157, -2.880973, -2.700737, -2.628398, -2.583699],
            [-4.268698, -4.268698, -4.268698, -4.083940, -4.028886, -4.017384, -3.941491, -3.812221, -3.734720,
             -3.659068, -3.446831, -3.283031, -3.232813, -2.869490, -2.695354, -2.617559, -2.556627],
            [-4.268698, -4.268698, -4.268698, -4.074542, -4.074542, -4.017384, -3.941491, -3.812221, -3.734720,
             -3.663249, -3.437480, -3.242040, -3.199178, -2.833861, -2.680934, -2.579325, -2.513250],
            [-4.017384, -4.017384, -4.018836, -3.783415, -3.785912, -3.771048, -3.652906, -3.501415, -3.423842,
             -3.346246, -3.049571, -3.057642, -3.089381, -2.945625, -2.870493, -2.547062, -2.241664],
            [-4.017384, -4.017384, -4.010207, -3.770344, -3.769915, -3.778253, -3.626944, -3.470232, -3.392579,
             -3.304999, -3.054047, -2.903869, -2.845286, -2.664044, -2.646469, -2.489930, -2.340736],
            [-4.017384, -4.017384, -3.954057, -3.772640, -3.772724, -3.737432, -3.608870, -3.473958, -3.361980,
             -3.292242, -3.043253, -2.846316, -2.765038, -2.611363, -2.581611, -2.453208, -2.294408],
            [-4.026387, -4.026387, -3.980884, -3.779348, -3.779348, -3.779348, -3.610583, -3.478927, -3.383138,
             -3.309040, -3.031211, -2.820890, -2.856367, -2.769223, -2.670783, -2.235562, -2.138085],
            [-3.972782, -3.972782, -3.981786, -3.737152, -3.737152, -3.737152, -3.615852, -3.452091, -3.335919,
             -3.257986, -2.984545, -2.887351, -2.868117, -2.785649, -2.480154, -2.227265, -2.100451],
            [-4.509860, -4.507377, -4.422849, -4.257725, -4.188685, -4.199705, -4.080909, -3.914792, -3.804126,
             -3.772953, -3.425739, -3.144340, -3.105703, -2.830806, -2.619528, -2.292995, -2.061630],
            [-4.509860, -4.522176, -4.422849, -4.267883, -4.186756, -4.199705, -4.045672, -3.927150, -3.815353,
             -3.742474, -3.342488, -3.097877, -3.071281, -2.797297, -2.577183, -2.254777, -2.021832],
            [-4.509860, -4.438367, -4.422849, -4.210357, -4.197682, -4.199705, -4.056914, -3.893379, -3.789753,
             -3.722025, -3.274343, -3.054170, -3.034658, -2.754812, -2.540540, -2.208682, -1.977132],
            [-4.509860, -4.422849, -4.422849, -4.199705, -4.199705, -4.199705, -4.052926, -3.898658, -3.766395,
             -3.699165, -3.236505, -3.042291, -2.999574, -2.734062, -2.517002, -2.185886, -1.955353],
            [-4.358274, -4.268673, -4.269801, -4.036778, -3.974375, -3.961167, -3.807089, -3.598611, -3.481896,
             -3.369303, -2.970722, -2.799995, -2.751865, -2.474382, -2.240895, -1.895021, -1.648382],
            [-4.269198, -4.268771, -4.265459, -3.971478, -3.969533, -3.969624, -3.774514, -3.566904, -3.431814,
             -3.287614, -2.939240, -2.775952, -2.733492, -2.448233, -2.215369, -1.869546, -1.628973],
            [-4.268566, -4.268488, -4.277952, -3.970781, -3.944814, -3.927186, -3.753274, -3.508700, -3.260672,
             -3.156557, -2.890324, -2.731773, -2.686209, -2.403210, -2.171427, -1.831672, -1.595685],
            [-4.268742, -4.269489, -4.196837, -3.961310, -3.935700, -3.899576, -3.717304, -3.312821, -3.106571,
             -3.042040, -2.800578, -2.624953, -2.581833, -2.285963, -2.048502, -1.700244, -1.456045],
            [-4.268685, -4.237090, -4.200560, -3.966996, -3.895530, -3.876027, -3.672363, -3.209241, -3.086913,
             -2.997511, -2.738776, -2.572423, -2.527022, -2.213166, -1.979926, -1.626280, -1.379679],
            [-4.268701, -4.192257, -4.199535, -3.931490, -3.888401, -3.860684, -3.627875, -3.157882, -3.057027,
             -2.968301, -2.721113, -2.546264, -2.501874, -2.204888, -1.956106, -1.601073, -1.354816],
            [-3.963316, -3.963316, -3.912023, -3.617898, -3.582869, -3.575551, -3.329810, -2.975568, -2.853769,
             -2.754344, -2.485387, -2.297771, -2.241158, -1.926783, -1.674276, -1.290919, -1.050129],
            [-3.971323, -3.908929, -3.910531, -3.620205, -3.560036, -3.535953, -3.328856, -2.926898, -2.809066,
             -2.730601, -2.489409, -2.290730, -2.259242, -1.905146, -1.607246, -1.207493, -0.931707],
            [-3.919572, -3.921200, -3.916449, -3.599297, -3.526523, -3.513494, -3.196649, -2.833546, -2.728100,
             -2.631275, -2.385426, -2.206218, -2.127574, -1.787186, -1.516703, -1.148782, -0.894901],
            [-3.882288, -3.837494, -3.818403, -3.609333, -3.532796, -3.399751, -3.107531, -2.826494, -2.704245,
             -2.620451, -2.353992, -2.153716, -2.100909, -1.769202, -1.516780, -1.147442, -0.894289],
            [-3.802056, -3.785669, -3.763226, -3.455766, -3.322929, -3.182042, -2.980835, -2.765399, -2.660969,
             -2.565083, -2.295359, -2.107407, -2.059066, -1.743900, -1.497215, -1.133890, -0.883399],
            [-3.766878, -3.767518, -3.713876, -3.378833, -3.161645, -3.059368, -2.900269, -2.683954, -2.550296,
             -2.478300, -2.200153, -2.019457, -1.969046, -1.652625, -1.405760, -1.046421, -0.798538],
            [-3.779779, -3.739119, -3.705748, -3.340450, -3.076303, -2.999260, -2.849987, -2.618628, -2.508350,
             -2.428509, -2.154673, -1.961390, -1.921699, -1.598396, -1.347449, -0.985057, -0.710185],
            [-3.734203, -3.701125, -3.633946, -3.275719, -3.033677, -2.942029, -2.806118, -2.584147, -2.454239,
             -2.382078, -2.101781, -1.909627, -1.866683, -1.541023, -1.293862, -0.916373, -0.640272],
            [-3.530400, -3.502295, -3.470304, -3.084969, -2.946026, -2.876973, -2.695089, -2.479397, -2.343973,
             -2.252895, -1.969784, -1.773372, -1.711613, -1.376375, -1.075227, -0.674018, -0.398885],
            [-3.588987, -3.554502, -3.468874, -3.115726, -2.944806, -2.872886, -2.709152, -2.479322, -2.344833,
             -2.270342, -1.990575, -1.777801, -1.723745, -1.364928, -1.084171, -0.711202, -0.426889],
            [-3.487291, -3.435354, -3.340478, -2.945355, -2.834046, -2.772810, -2.610871, -2.379783, -2.256360,
             -2.162634, -1.879934, -1.677083, -1.633813, -1.301590, -1.053999, -0.674310, -0.396574],
        ],
        'provenance': {'file': 'a100_llama2_70b_tp2_attention.csv',
                       'sha256': '83f4bb3ac779878b98457d1e596b324206c6c39d8bf4b25f35a1f14ccbd8af24',
                       'knots': 'a subset of the measured grid',
                       'quality': {'grid': {'n_rows': 10240,
                                            'median_abs_rel_err': 0.0118,
                                            'p95_abs_rel_err': 0.048,
                                            'max_abs_rel_err': 0.1297,
                                            'worst': {'batch': 60,
                                                      'kv': 1472,
                                                      'measured_ms': 0.143,
                                                      'model_ms': 0.16155}},
                                   'line': {'n_rows': 10240,
                                            'median_abs_rel_err': 0.0893,
                                            'p95_abs_rel_err': 0.2732,
                                            'max_abs_rel_err': 0.602,
                                            'worst': {'batch': 25, 'kv': 64, 'measured_ms': 0.011, 'model_ms': 0.01762}},
                                   'held_out': {'n_points': 9538,
                                                'median_abs_rel_err': 0.0118,
                                                'p95_abs_rel_err': 0.048,
                                                'max_abs_rel_err': 0.1297}}},
    },
    'h100': {
        'form': 'grid',
        'batch': [1, 2, 4, 8, 16, 32, 64, 128, 256],
        'kv': [64, 256, 512, 1024, 2048, 4096],
        'log_ms': [
            [-3.435441, -3.464623, -3.542503, -3.254710, -3.149910, -3.121713],
            [-3.392848, -3.398960, -3.387294, -3.126698, -3.115093, -3.096764],
            [-3.415572, -3.371281, -3.435193, -3.126552, -3.145737, -3.146332],
            [-3.423541, -3.387626, -3.427525, -3.178809, -3.128304, -3.126990],
            [-3.453080, -3.447333, -3.423443, -3.215920, -3.206513, -2.851071],
            [-3.437729, -3.483258, -3.476766, -3.487488, -2.945830, -2.335455],
            [-3.477595, -3.490685, -3.474749, -2.921115, -2.328683, -1.690717],
            [-3.475990, -3.458047, -2.907575, -2.314739, -1.684041, -1.025075],
            [-3.513999, -2.877274, -2.304299, -1.675125, -1.018359, -0.342179],
        ],
        'provenance': {'file': 'h100_llama2_70b_tp2_kernels.csv',
                       'sha256': '80fc0acaa238ede7e788b1d4a4d1e711b2f3dc2d0498b2b4b749e93b5a3b31d1',
                       'knots': 'the measured grid',
                       'quality': {'grid': {'n_rows': 54,
                                            'median_abs_rel_err': 0.0,
                                            'p95_abs_rel_err': 0.0,
                                            'max_abs_rel_err': 0.0,
                                            'worst': {'batch': 2, 'kv': 512, 'measured_ms': 0.0338, 'model_ms': 0.0338}},
                                   'line': {'n_rows': 54,
                                            'median_abs_rel_err': 0.0998,
                                            'p95_abs_rel_err': 0.2189,
                                            'max_abs_rel_err': 0.2406,
                                            'worst': {'batch': 2,
                                                      'kv': 4096,
                                                      'measured_ms': 0.0452,
                                                      'model_ms': 0.03432}},
                                   'held_out': {'n_points': 78,
                                                'median_abs_rel_err': 0.0281,
                                                'p95_abs_rel_err': 0.3157,
                                                'max_abs_rel_err': 0.5204}}},
    },
    'h200': {
        'form': 'grid',
        'batch': [1, 2, 4, 8, 16, 32, 64, 128, 256],
        'kv': [64, 256, 512, 1024, 2048, 4096],
        'log_ms': [
            [-4.111450, -3.744815, -3.683327, -3.715338, -3.265842, -3.629193],
            [-4.057928, -4.086186, -4.093353, -3.774908, -3.730102, -3.772470],
            [-4.051469, -4.078408, -4.099220, -3.733442, -3.779032, -3.713894],
            [-4.023804, -4.104831, -4.068256, -3.755019, -3.734245, -3.670490],
            [-4.023715, -4.086376, -4.050182, -3.722924, -3.658932, -3.214804],
            [-4.053955, -4.028107, -4.046606, -3.852321, -3.312659, -2.724619],
            [-4.039675, -4.045783, -3.816058, -3.298872, -2.719702, -2.088261],
            [-4.055524, -3.701438, -3.247646, -2.690250, -2.074691, -1.422859],
            [-4.004401, -3.187765, -2.660678, -2.060989, -1.416618, -0.751814],
        ],
        'provenance': {'file': 'h200_llama2_70b_tp2_kernels.csv',
                       'sha256': '9e597c04746bcc139dcf949ab09ed47f420a67f71ecda64b4db5da63fd1f02df',
                       'knots': 'the measured grid',
                       'quality': {'grid': {'n_rows': 54,
                                            'median_abs_rel_err': 0.0,
                                            'p95_abs_rel_err': 0.0,
                                            'max_abs_rel_err': 0.0,
                                            'worst': {'batch': 64,
                                                      'kv': 512,
                                                      'measured_ms': 0.02201,
                                                      'model_ms': 0.02201}},
                                   'line': {'n_rows': 54,
                                            'median_abs_rel_err': 0.1205,
                                            'p95_abs_rel_err': 0.2419,
                                            'max_abs_rel_err': 0.4922,
                                            'worst': {'batch': 1,
                                                      'kv': 2048,
                                                      'measured_ms': 0.03816,
                                                      'model_ms': 0.01938}},
                                   'held_out': {'n_points': 78,
                                                'median_abs_rel_err': 0.0442,
                                                'p95_abs_rel_err': 0.2292,
                                                'max_abs_rel_err': 0.4069}}},
    },
}

