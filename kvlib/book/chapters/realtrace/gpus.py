"""The real-trace chapter's hardware comparison: which of the papers' real-data claims hold on A100, H100, H200.

The papers' real-data experiments ran on two A100s (in Vidur).  The chapter re-runs the experiments behind
their claims with the measured batch-time model of each GPU (:mod:`kvlib.serving.gpus`), at the papers'
arrival rates ("same arrival rate") and at the rates that load each GPU as the papers' rates load the A100
("same utilisation", :func:`kvlib.serving.gpus.equal_utilisation_rate` from stored capacity rows).

:data:`CLAIMS` lists each claim with the paper's numbers; :func:`verdict_rows` turns the stored runs into the
verdict table (one row per claim and comparison, one column per GPU).  A cell is ``holds`` or ``fails`` with
the number that decides it; for the two α thresholds ``matches`` (within one grid step of the paper's value)
or ``differs``.  Experiments whose requests all wait at ``t = 0`` (002 Section 7, 003 Section 6) have no
arrival rate: one row covers both comparisons.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["CLAIMS", "NEAR_HSF", "GPU_NAMES", "table1_cell", "alpha_cell", "mixed_cell", "intervals_cell",
           "splitwise_cell", "verdict_rows", "capacity_frame", "fit_quality_table", "files_table", "at_rates",
           "verdict_cells", "decided", "summary_table", "sensitivity_capacity_keys", "like_for_like_frame",
           "attention_error_frame", "like_for_like_values", "transposed"]

GPU_NAMES = {"a100": "A100", "h100": "H100", "h200": "H200"}

#: "Nearly identical" (003 Section 6, Aₘᵢₙ against H-SF with [1, 1000]) read as: within this factor.
NEAR_HSF = 1.10

#: (key, the claim as the verdict table states it, whether it depends on an arrival rate)
CLAIMS = [
    ("t1_sf", "001 Table 1: MC-SF lowest of the eight (paper: 32.1 s, next 46.5 s)", True),
    ("t1_mb", "001 Table 1: MC-Benchmark beats the six α-benchmarks (paper: 46.5 vs ≥ 50.4 s)", True),
    ("alpha_hi", "001 Section 5.2: smallest loop-free α, high demand (paper: 0.21)", True),
    ("alpha_lo", "001 Section 5.2: smallest loop-free α, low demand (paper: 0.24)", True),
    ("mixed", "002 Section 7: Sorted-F (swap) beats MC-SF and FCFS at every size", False),
    ("amin_amax", "003 Section 6, Experiment 1 ([1, 1000]): Aₘᵢₙ beats Aₘₐₓ at every size", False),
    ("amin_hsf", "003 Section 6, Experiment 1: Aₘᵢₙ nearly identical to H-SF (within 10 %)", False),
    ("sw_conv", "Splitwise conversation trace (ours): MC-SF beats MC-Benchmark and α = 0.3", True),
    ("sw_code", "Splitwise code trace (ours): the same", True),
]

#: In the Splitwise claims a relative difference below this counts as a tie (at light load no queue forms and
#: the policies run nearly the same schedule).
TIE = 1e-3


def _ok(flag: bool) -> str:
    return "holds" if flag else "fails"


def table1_cell(df: pd.DataFrame, which: str) -> str:
    """``df``: Table 1 runs of one GPU and rate (columns ``name``, ``avg_latency``, ``completed``)."""
    if not len(df):
        return "no runs"
    fin = df[df.completed.astype(bool)]
    m = fin.groupby("name")["avg_latency"].mean()
    runs = int(df.groupby("name").size().min())
    if which == "t1_sf":
        if "MC-SF" not in m:
            return "no runs"
        other = m.drop("MC-SF")
        return f"{_ok(bool((m['MC-SF'] < other).all()))}: {m['MC-SF']:.1f} vs {other.min():.1f} s ({runs} runs)"
    if "MC-Benchmark" not in m:
        return "no runs"
    bench = m.drop([k for k in ("MC-SF", "MC-Benchmark") if k in m])
    unfinished = int((~df.completed.astype(bool)).sum())
    extra = f" ({unfinished} unfinished)" if unfinished else ""
    return f"{_ok(bool((m['MC-Benchmark'] < bench).all()))}: {m['MC-Benchmark']:.1f} vs {bench.min():.1f} s{extra}"


def alpha_cell(df: pd.DataFrame, paper: float, step: float, smallest) -> str:
    """``df``: α-grid runs at one rate; ``smallest``: :func:`kvlib.serving.experiments.smallest_stable_alpha`."""
    if not len(df):
        return "no runs"
    rate = float(df.rate.iloc[0])
    a = smallest(df, rate)
    if isinstance(a, float) and math.isnan(a):
        return "differs: loops at every α of the grid"
    grid_min = float(df.alpha.min())
    # the grid's smallest value: the threshold may lie below it (none at all when that value is 0)
    shown = ("0 (no loop at any α)" if a == 0 else f"≤ {a:g}") if a == grid_min else f"{a:g}"
    same = abs(a - paper) <= step + 1e-9 and a != grid_min
    return f"{'matches' if same else 'differs'}: {shown} at {rate:g}/s"


def mixed_cell(df: pd.DataFrame) -> str:
    """``df``: 002 mixed-workload runs of one GPU (columns ``name``, ``n``, ``avg_latency``)."""
    t = df.pivot_table(index="n", columns="name", values="avg_latency")
    need = ["sorted-f(selector=swap)", "mc-sf", "fcfs"]
    if not len(t) or any(c not in t for c in need):
        return "no runs"
    t = t.dropna(subset=need)
    sf = t["sorted-f(selector=swap)"]
    ok = bool(((sf < t["mc-sf"]) & (sf < t["fcfs"])).all())
    n = int(t.index.max())
    return f"{_ok(ok)}: {sf.loc[n] / t.loc[n, 'mc-sf']:.2f} × MC-SF at {n:,}"


def intervals_cell(df: pd.DataFrame, which: str) -> str:
    """``df``: 003 runs with the interval [1, 1000] on one GPU (columns ``policy``, ``n``, ``avg_latency``)."""
    t = df.pivot_table(index="n", columns="policy", values="avg_latency")
    if not len(t) or any(c not in t for c in ("a-min", "a-max", "h-sf")):
        return "no runs"
    n = int(t.index.max())
    if which == "amin_amax":
        ok = bool((t["a-min"] < t["a-max"]).all())
        return f"{_ok(ok)}: {t.loc[n, 'a-min'] / t.loc[n, 'a-max']:.2f} × Aₘₐₓ at {n:,}"
    r = float(t.loc[n, "a-min"] / t.loc[n, "h-sf"])
    return f"{_ok(r <= NEAR_HSF)}: {r:.2f} × H-SF at {n:,}"


def splitwise_cell(df: pd.DataFrame) -> str:
    """``df``: runs of one trace and GPU over several rates (columns ``rate``, ``name``, ``avg_latency``)."""
    t = df.pivot_table(index="rate", columns="name", values="avg_latency")
    if not len(t) or "MC-SF" not in t or len(t.columns) < 2:
        return "no runs"
    other = t.drop(columns="MC-SF").min(axis=1)
    ratio = t["MC-SF"] / other
    tie = np.abs(ratio - 1.0) < TIE  # no queue forms: the policies run (nearly) the same schedule
    ok = bool(((ratio < 1) | tie).all() and (~tie).any())
    lo, hi = float(t.index.min()), float(t.index.max())
    ties = f"; ties (within 0.1 %) at {', '.join(f'{r:g}' for r in t.index[tie])}/s" if tie.any() else ""
    return f"{_ok(ok)}: {ratio.min():.2f}-{ratio.max():.2f} × next best, {lo:g}-{hi:g}/s{ties}"


def verdict_rows(cells: dict) -> pd.DataFrame:
    """The verdict table from ``cells[(claim key, comparison)][gpu] = text``; comparison is ``"rate"`` (same
    arrival rate), ``"load"`` (same utilisation) or ``"zero"`` (all requests at ``t = 0``)."""
    rows = []
    names = {"rate": "same rate", "load": "same load", "zero": "all at t = 0"}
    for key, text, rated in CLAIMS:
        for comp in (("rate", "load") if rated else ("zero",)):
            c = cells.get((key, comp), {})
            rows.append({"claim": text if comp != "load" else "", "comparison": names[comp],
                         **{GPU_NAMES[h]: c.get(h, "-") for h in GPU_NAMES}})
    return pd.DataFrame(rows)


def capacity_frame(cap: pd.DataFrame) -> pd.DataFrame:
    """Stored capacity rows (``workload``, ``hardware``, ``throughput``, ``mean_round_ms``) with each GPU's
    capacity relative to the A100's on the same workload."""
    cap = cap.copy()
    base = cap[cap.hardware == "a100"].set_index("workload")["throughput"]
    cap["relative to A100"] = [t / base.get(w, np.nan) for w, t in zip(cap.workload, cap.throughput)]
    return cap


_OPERATORS = (("layer", "non-attention layer"), ("allreduce", "all-reduce"),
              ("decode_attention", "decode attention"), ("prefill_attention", "prefill attention"))


def fit_quality_table(embedded: dict) -> pd.DataFrame:
    """Per GPU and operator: the fit's R², median and largest relative error and the measured rows it rests on
    (from :data:`kvlib.serving.measured.EMBEDDED`'s provenance; H200's layer from
    :data:`~kvlib.serving.likeforlike.LIKE_FOR_LIKE`, decode attention from the surface of
    :mod:`kvlib.serving.decode_grid`, which has no R²)."""
    from kvlib.serving.decode_grid import EMBEDDED_GRID
    from kvlib.serving.likeforlike import LIKE_FOR_LIKE

    rows = []
    for hw, entry in embedded.items():
        q = dict(entry["provenance"]["quality"])
        if hw in LIKE_FOR_LIKE:  # the layer the model uses (H200: Vidur's H100 scaled by measured ratios)
            q["layer"] = LIKE_FOR_LIKE[hw]["provenance"]["quality"]
        if hw in EMBEDDED_GRID:  # decode attention: the surface through the measured grid
            g = EMBEDDED_GRID[hw]["provenance"]["quality"]["grid"]
            q["decode_attention"] = {"median_rel_err": g["median_abs_rel_err"], "max_rel_err": g["max_abs_rel_err"],
                                     "n_rows": g["n_rows"]}
        for key, name in _OPERATORS:
            d = q.get(key, {})
            rows.append({"GPU": GPU_NAMES.get(hw, hw), "operator": name, "R²": d.get("r2", np.nan),
                         "median rel. error": d.get("median_rel_err", np.nan),
                         "max rel. error": d.get("max_rel_err", np.nan), "rows": d.get("n_rows", 0)})
    return pd.DataFrame(rows)


def files_table(embedded: dict, digits: int = 12) -> pd.DataFrame:
    """Per GPU: each input file of its batch-time model, its role and SHA-256 (first ``digits`` hex digits);
    H200's stand-ins are named as such."""
    roles = {"mlp": "non-attention operators", "allreduce": "all-reduce", "attention": "attention",
             "kernels": "attention and H200/H100 operator ratios"}
    rows = []
    for hw, entry in embedded.items():
        p = entry["provenance"]
        stand = p.get("stand_ins", {})
        for key, role in roles.items():
            f = p.get(f"{key}_csv")
            if not f:
                continue
            if hw == "h200" and key == "mlp":
                role = "non-attention operators (H100's, scaled) and embedding (H100 stand-in)"
            if hw == "h200" and key == "allreduce":
                role = "all-reduce (H100 stand-in)" if stand else role
            rows.append({"GPU": GPU_NAMES.get(hw, hw), "role": role, "file": f,
                         "SHA-256": str(p.get(f"{key}_sha256", ""))[:digits]})
    return pd.DataFrame(rows)


def at_rates(df: pd.DataFrame, rates) -> pd.DataFrame:
    """The rows of ``df`` whose ``rate`` is one of ``rates`` (to floating-point tolerance)."""
    if not len(df):
        return df
    r = np.asarray(list(rates), dtype=float)
    return df[np.isclose(df.rate.to_numpy(float)[:, None], r[None, :]).any(axis=1)]


def verdict_cells(gpus, rates_on, a100: dict, rows_on, *, rate_hi: float, rate_lo: float, grid, sizes,
                  sw_rates: dict, smallest, policy_label) -> dict:
    """Every cell of the verdict table: ``{(claim key, comparison): {gpu: text}}``.

    ``rates_on(workload, gpu, rates)`` gives the (comparison, rate) pairs run on a GPU (the papers' rates, and on
    H100/H200 the same-utilisation rates); ``a100`` holds the chapter's A100 frames (``table1``, ``alpha``,
    ``mixed`` with a ``name`` column, ``intervals`` with ``pred`` shown as ``[1,1000]``, ``splitwise``);
    ``rows_on(table, gpu)`` the rows of a ``gpu_*`` table for one GPU; ``sizes`` the request counts of the
    002 and 003 runs; ``sw_rates`` the rates per Splitwise trace; ``smallest`` is
    :func:`kvlib.serving.experiments.smallest_stable_alpha`, ``policy_label`` names a configuration."""
    cells: dict = {}

    def put(key, comp, h, text):
        cells.setdefault((key, comp), {})[h] = text

    step = float(np.min(np.diff(sorted(grid)))) if len(grid) > 1 else 0.01
    for h in gpus:
        for comp, r in rates_on("lmsys", h, [rate_hi]):  # 001 Table 1
            d = a100["table1"] if h == "a100" else at_rates(rows_on("gpu_table1", h), [r])
            for key in ("t1_sf", "t1_mb"):
                put(key, comp, h, table1_cell(d, key))
        for key, r0, paper in (("alpha_hi", rate_hi, 0.21), ("alpha_lo", rate_lo, 0.24)):  # 001 Section 5.2
            for comp, r in rates_on("lmsys", h, [r0]):
                d = at_rates(a100["alpha"] if h == "a100" else rows_on("gpu_alpha", h), [r])
                put(key, comp, h, alpha_cell(d, paper, step, smallest))
        if h == "a100":
            m2, m3 = a100["mixed"], a100["intervals"]
            m2 = m2[m2.n.isin(sizes)]
            m3 = m3[(m3.pred == "[1,1000]") & m3.n.isin(sizes)]
        else:
            m2, m3 = rows_on("gpu_mixed002", h).copy(), rows_on("gpu_intervals003", h)
            if len(m2):
                sel = m2["selector"] if "selector" in m2 else [None] * len(m2)
                m2["name"] = [policy_label(p, {"selector": s} if isinstance(s, str) else {})
                              for p, s in zip(m2["policy"], sel)]
        put("mixed", "zero", h, mixed_cell(m2))
        for key in ("amin_amax", "amin_hsf"):
            put(key, "zero", h, intervals_cell(m3, key))
        for key, wl in (("sw_conv", "splitwise"), ("sw_code", "splitwise-code")):
            src = a100["splitwise"] if (wl == "splitwise" and h == "a100") else rows_on("gpu_splitwise", h)
            src = src[src.workload == wl] if len(src) else src
            for comp in ("rate", "load"):
                rs = [r for c, r in rates_on(wl, h, sw_rates[wl]) if c == comp]
                put(key, comp, h, splitwise_cell(at_rates(src, rs)) if rs else "the reference")
    for key, _, rated in CLAIMS:
        if rated:
            put(key, "load", "a100", "the reference")
    return cells


def decided(verdicts: pd.DataFrame, gpus) -> tuple[int, int]:
    """(cells that state a verdict, cells that hold or match) over the GPU columns of the verdict table."""
    vals = verdicts[[GPU_NAMES[h] for h in gpus]].to_numpy().ravel().astype(str)
    return (int(sum(v.startswith(("holds", "fails", "matches", "differs")) for v in vals)),
            int(sum(v.startswith(("holds", "matches")) for v in vals)))


def summary_table(cells: dict, gpus) -> pd.DataFrame:
    """One row per claim, the verdict word only: A100 at the papers' set-up, then each other GPU at the papers'
    rate and at the same utilisation (experiments with every request at ``t = 0`` repeat their one verdict)."""
    cols = ["A100"] + [f"{GPU_NAMES[h]}, {w}" for h in gpus if h != "a100" for w in ("same rate", "same load")]
    rows = []
    for key, text, rated in CLAIMS:
        row = {"claim": text}
        for h in gpus:
            for comp, w in ((("rate", "same rate"), ("load", "same load")) if h != "a100" else (("rate", None),)):
                src = comp if rated else "zero"
                v = str(cells.get((key, src), {}).get(h, "-")).split(":")[0]
                row["A100" if h == "a100" else f"{GPU_NAMES[h]}, {w}"] = v
        rows.append(row)
    return pd.DataFrame(rows)[["claim", *[c for c in cols if c in rows[0]]]]


# ------------------------------------------------------------------------------- like for like


def sensitivity_capacity_keys(cap_keys: list[dict]) -> list[dict]:
    """The capacity keys of the sensitivity kind: each H100 and H200 key of ``cap_keys`` on the configuration
    timed by our PyTorch code alone (``h100-pytorch``, ``h200-pytorch``; no A100 was timed so)."""
    return [{**k, "hardware": f"{k['hardware']}-pytorch"} for k in cap_keys if k.get("hardware") in ("h100", "h200")]


_KIND_NAMES = {"vidur": "Vidur", "vidur-derived": "Vidur (H100 scaled)", "pytorch": "PyTorch"}


def like_for_like_frame(cap: pd.DataFrame | None, lm_label: str = "LMSYS-like") -> pd.DataFrame:
    """The capacity and round-time table of the two comparisons (:data:`kvlib.serving.gpus.COMPARISONS`, one
    kind of measurement each, checked): per configuration its kind, where its non-attention and attention times
    come from, the reference round (ms) and, from the capacity rows ``cap`` (both kinds), the capacity relative
    to the comparison's first GPU on each workload."""
    from kvlib.book.chapters.realtrace.page import WORKLOAD_NAMES
    from kvlib.serving.gpus import like_for_like_table

    t = like_for_like_table(cap)
    t["comparison"] = [c.split(":")[0] for c in t.comparison]
    t["kind"] = t.kind.map(_KIND_NAMES)
    cols = {"reference round (ms)": "reference round (ms)", "round relative": "round relative to the first"}
    for c in t.columns:
        if c.startswith("capacity x "):
            wl = c.removeprefix("capacity x ")
            cols[c] = f"capacity relative, {lm_label if wl == 'lmsys' else WORKLOAD_NAMES.get(wl, wl)}"
    keep = ["comparison", "GPU", "kind", "non-attention from", "attention from", *cols]
    return t[keep].rename(columns=cols)


def attention_error_frame() -> pd.DataFrame:
    """Decode attention, model against measured, per GPU (:func:`kvlib.serving.decode_grid.error_table`): the
    straight-line fit of earlier versions and the surface through the measured grid, |relative error| in %."""
    from kvlib.serving.decode_grid import error_table

    t = error_table()
    for c in t.columns:
        if c.endswith(("median", "pct.", "worst")):
            t[c] = 100 * t[c]
    return t.rename(columns={c: f"{c} (%)" for c in t.columns if c.endswith(("median", "pct.", "worst"))})


def like_for_like_values(cap: pd.DataFrame | None, lm_label: str) -> dict:
    """Glue values of the like-for-like section: the two tables (``rt-tab-lfl``, ``rt-tab-atterr``), each
    configuration's reference round (``rt_lfl_ref_<config>``, ms), H200 over H100 capacity in each kind
    (``rt_lfl_<kind>_<lm|code>``) and the decode-attention errors (``rt_atterr_<gpu>_<line|grid>_<median|p95>``,
    %)."""
    from kvlib.book.tables import styled
    from kvlib.serving.decode_grid import EMBEDDED_GRID
    from kvlib.serving.gpus import reference_round_ms
    from kvlib.serving.likeforlike import CONFIGS

    out = {f"rt_lfl_ref_{n.replace('-', '_')}": reference_round_ms(n) for n in CONFIGS}
    for kind, (h1, h2) in (("vidur", ("h100", "h200")), ("pytorch", ("h100-pytorch", "h200-pytorch"))):
        for wl, tag in (("lmsys", "lm"), ("splitwise-code", "code")):
            v = np.nan
            if cap is not None and len(cap):
                a = cap[(cap.workload == wl) & (cap.hardware == h1)].throughput
                b = cap[(cap.workload == wl) & (cap.hardware == h2)].throughput
                v = float(b.iloc[0] / a.iloc[0]) if len(a) and len(b) else np.nan
            out[f"rt_lfl_{kind}_{tag}"] = v
    for hw, c in EMBEDDED_GRID.items():
        q = c["provenance"]["quality"]
        for name in ("line", "grid"):
            out[f"rt_atterr_{hw}_{name}_median"] = 100 * q[name]["median_abs_rel_err"]
            out[f"rt_atterr_{hw}_{name}_p95"] = 100 * q[name]["p95_abs_rel_err"]
        out[f"rt_atterr_{hw}_grid_max"] = 100 * q["grid"]["max_abs_rel_err"]
    frame = like_for_like_frame(cap, lm_label)
    out["rt-tab-lfl"] = styled(transposed(frame, ["comparison", "GPU"], 2))
    out["rt-tab-atterr"] = styled(transposed(attention_error_frame(), ["GPU"], 1))
    return out


def transposed(frame: pd.DataFrame, keys: list[str], precision: int) -> pd.DataFrame:
    """``frame`` with one column per row (named by its ``keys`` values) and one row per other column, numbers
    formatted to ``precision`` decimals (a missing value as "-"): a wide table that fits the page's column."""
    f = frame.copy()
    for c in f.columns:
        if c not in keys and pd.api.types.is_float_dtype(f[c]):
            f[c] = f[c].map(lambda v: "-" if pd.isna(v) else f"{v:,.{precision}f}")
    f.index = [" ".join(str(x) for x in r) for r in f[keys].itertuples(index=False)]
    return f.drop(columns=keys).T.rename_axis("").reset_index().astype(str)
