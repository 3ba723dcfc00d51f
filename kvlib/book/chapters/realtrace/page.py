"""Display helpers of the chapter "Real-trace experiments in continuous time" (notebooks/realtrace.py).

Only the page's layout: readable names, units and compact cells for tables whose numbers the chapter
computes elsewhere (``kvlib.book.chapters.realtrace.rows``, ``kvlib.serving``).  Nothing here changes a number.
"""

from __future__ import annotations

import re

__all__ = ["FILE_RE", "files_as_code", "short_hash", "data_files_display", "COEFFICIENTS", "coefficient_table",
           "PROVENANCE", "provenance_table", "POLICY_NAMES", "policy_display", "POLICY_MATH", "policy_math", "WORKLOAD_NAMES",
           "workload_table", "fit_statistics_table", "fit_mixture_table", "compress_points", "sweep_table"]

#: A data file name as it appears in the labels of ``kvlib.serving.workloads`` ("real trace: FILE").
FILE_RE = re.compile(r"(?<![\w./-])([\w.-]+\.(?:csv|json|txt|parquet))(?![\w])")


def files_as_code(text: str, html: bool = False) -> str:
    """``text`` with every file name (``*.csv``, ...) as a code literal: Markdown backticks, or ``<code>``
    for an HTML table cell (``html=True``)."""
    if html:
        return FILE_RE.sub(r"<code>\1</code>", str(text))
    return FILE_RE.sub(r"`\1`", str(text))


def short_hash(h, digits: int = 12) -> str:
    """The first ``digits`` hex digits of a SHA-256 followed by an ellipsis; "-" for a missing hash."""
    if h is None or not isinstance(h, str) or not re.fullmatch(r"[0-9a-fA-F]{16,}", h):
        return "-"
    return h[:digits] + "…"


def data_files_display(df, digits: int = 12):
    """The table of ``kvlib.book.provenance.data_files`` with readable headers, the file names as code
    and the SHA-256 shortened to its first ``digits`` hex digits (the full hashes go to a CSV)."""
    import pandas as pd

    return pd.DataFrame({
        "file": [files_as_code(f, html=True) if FILE_RE.search(str(f)) else f"<code>{f}</code>" for f in df["file"]],
        "beside the repository at build time": ["yes" if p else "no" for p in df["present"]],
        f"SHA-256 (first {digits} hex digits)": [short_hash(h, digits) for h in df["sha256"]],
    })


#: The batch-time model's coefficients (``kvlib.serving.batchtime.EMBEDDED``): readable name with unit.
COEFFICIENTS = {
    "layer_c0": "layer time f: intercept c0 (ms)",
    "layer_c1": "layer time f: slope c1 (ms per token)",
    "layer_c2": "layer time f: added slope above the knee c2 (ms per token)",
    "layer_knee": "layer time f: knee K (tokens)",
    "emb_e0": "embedding e: intercept (ms)",
    "emb_e1": "embedding e: slope (ms per token)",
    "allreduce_d0": "all-reduce g: intercept d0 (ms)",
    "allreduce_d1": "all-reduce g: slope d1 (ms per byte)",
}


def coefficient_table(coef):
    """``coef`` (index: coefficient keys; columns: "value" and optionally "refit from CSV") with readable
    names; unknown keys keep their name as a code literal."""
    out = coef.copy()
    out.index = [COEFFICIENTS.get(k, f"<code>{k}</code>") for k in out.index]
    return out.rename_axis("coefficient").reset_index()


#: The provenance record of the embedded fit: readable name of each entry.
PROVENANCE = {
    "mlp_csv": "layer profile: file",
    "mlp_sha256": "layer profile: SHA-256",
    "allreduce_csv": "all-reduce profile: file",
    "allreduce_sha256": "all-reduce profile: SHA-256",
    "source": "source of the profiles",
    "fit_date": "date of the fit",
    "layer_r2": "layer time: R²",
    "layer_median_rel_err": "layer time: median relative error",
    "layer_max_rel_err": "layer time: largest relative error",
    "allreduce_r2": "all-reduce: R²",
    "n_layer_rows": "layer profile: rows used",
    "n_allreduce_rows": "all-reduce profile: rows used",
}


def provenance_table(prov: dict, keys=None, digits: int = 12):
    """Readable two-column table of the provenance record ``prov`` (file names as code, hashes shortened
    to ``digits`` hex digits, relative errors in percent); ``keys`` picks and orders the entries."""
    import pandas as pd

    rows = []
    for k in (keys if keys is not None else prov):
        v = prov[k]
        if k.endswith("_sha256"):
            shown = short_hash(v, digits)
        elif k.endswith("_csv"):
            shown = f"<code>{v}</code>"
        elif k.endswith("_rel_err"):
            shown = f"{100 * float(v):.2f} %"
        elif k == "source":
            shown = files_as_code(str(v), html=True).replace("../shared/data", "<code>../shared/data</code>")
        else:
            shown = str(v)
        rows.append({"entry": PROVENANCE.get(k, f"<code>{k}</code>"), "value": shown})
    return pd.DataFrame(rows)


#: Policy labels of ``kvlib.serving.experiments.policy_label`` as the papers write them.
POLICY_NAMES = {
    "fcfs": "FCFS",
    "mc-sf": "MC-SF",
    "mc-benchmark": "MC-Benchmark",
    "mc-sf2": "MC-SF2",
    "sorted-f(selector=swap)": "Sorted-F (swap)",
    "sorted-f(selector=quantile)": "Sorted-F (quantile)",
    "sorted-lp": "Sorted-LP",
    "lp-swap": "LP-Swap",
    "a-max": "Aₘₐₓ",
    "a-min": "Aₘᵢₙ",
    "h-sf": "H-SF",
}


def policy_display(name: str) -> str:
    """The paper's name of a policy label (unknown labels are returned unchanged)."""
    return POLICY_NAMES.get(name, name)


#: 003's policies as the book writes them in figures (Matplotlib mathtext, as in the prose).
POLICY_MATH = {"a-max": r"$\mathcal{A}_{\max}$", "a-min": r"$\mathcal{A}_{\min}$"}


def policy_math(name: str) -> str:
    """A figure legend's name of a policy label: 003's policies in the book's notation, others as
    :func:`policy_display` names them."""
    return POLICY_MATH.get(name, policy_display(name))


#: Workload names of ``kvlib.serving.workloads`` as a reader knows them.
WORKLOAD_NAMES = {"lmsys-like": "LMSYS-like", "arxiv": "arXiv summarization", "splitwise-conv": "Splitwise conversation",
                  "splitwise": "Splitwise conversation", "splitwise-code": "Splitwise code",
                  "sharegpt-words": "ShareGPT V3 first turns (words)", "sharegpt-tokens": "ShareGPT V3 first turns (tokens)",
                  "sharegpt": "ShareGPT V3 first turns (words)"}


def workload_table(summaries, lm_label: str):
    """Compact table of ``Workload.summary()`` dicts: name, source ("real trace" for a trace file, whose
    name and checksum are in the data-files table; otherwise the label, file names as code), requests and
    the mean and median lengths in tokens."""
    import pandas as pd

    rows = []
    for d in summaries:
        label = lm_label if d["name"] == "lmsys-like" else d["label"]
        source = "real trace" if str(label).startswith("real trace: ") else files_as_code(label, html=True)
        rows.append({"workload": WORKLOAD_NAMES.get(d["name"], d["name"]), "source": source,
                     "requests": int(d["n"]),
                     "prompt mean": d["prompt_mean"], "prompt median": d["prompt_median"],
                     "output mean": d["output_mean"], "output median": d["output_median"]})
    return pd.DataFrame(rows)


def fit_statistics_table(fit):
    """The published statistics against those of the fitted mixture (``lmsys_fit_table``), transposed:
    one row per statistic, one column per length and source."""
    import pandas as pd

    labels = {"range": "range (tokens)", "mean": "mean (tokens)", "median": "median (tokens)",
              "variance": "variance (tokens²)"}
    rows = []
    for stat, label in labels.items():
        row = {"statistic": label}
        for _, r in fit.iterrows():
            for src in ("published", "fit"):
                row[f"{r['length']}: {src}"] = r["range"] if stat == "range" else f"{r[f'{stat} ({src})']:,.2f}"
        rows.append(row)
    return pd.DataFrame(rows)


def fit_mixture_table(fit):
    """The parameters of the two-component mixture of discretised log-normals, one row per length."""
    return fit[["length", "w", "mu1", "sigma1", "mu2", "sigma2"]].rename(columns={
        "w": "weight of component 1", "mu1": "μ1 (log tokens)", "sigma1": "σ1", "mu2": "μ2 (log tokens)",
        "sigma2": "σ2"})


def _num(x: str) -> float:
    return float(x.strip())


def compress_points(text: str, grid) -> str:
    """A comma-separated list of grid points (as ``sweep_verdicts`` writes them) with every run of two or
    more consecutive points of ``grid`` written "a–b"; "none" and "" are returned unchanged."""
    if not isinstance(text, str) or text.strip() in ("", "none", "-"):
        return text
    pts = [_num(x) for x in text.split(",")]
    g = sorted(float(x) for x in grid)
    pos = []
    for p in pts:
        hits = [i for i, x in enumerate(g) if abs(x - p) <= 1e-9 * max(1.0, abs(p))]
        if not hits:
            return text  # a point off the grid: leave the list as it is
        pos.append(hits[0])
    parts, i = [], 0
    while i < len(pos):
        j = i
        while j + 1 < len(pos) and pos[j + 1] == pos[j] + 1:
            j += 1
        parts.append(f"{g[pos[i]]:g}" if j == i else f"{g[pos[i]]:g}–{g[pos[j]]:g}")
        i = j + 1
    return ", ".join(parts)


def sweep_table(sv, grids: dict):
    """Compact display of ``kvlib.book.chapters.realtrace.rows.sweep_verdicts``: Greek names, grid runs written
    "a–b" (``grids``: swept parameter -> its grid), yes/no verdicts."""
    import pandas as pd

    greek = {"alpha": "α", "beta": "β"}
    yn = {True: "yes", False: "no", None: "-"}

    def fixed(s):
        name, _, val = str(s).partition(" = ")
        return f"{greek.get(name, name)} = {val}" if val else s

    rows = []
    for _, r in sv.iterrows():
        grid = grids[r["swept"]]
        rows.append({"λ (1/s)": f"{r['rate']:g}", "swept": greek.get(r["swept"], r["swept"]), "fixed": fixed(r["fixed"]),
                     "our minimiser(s)": compress_points(r["minimiser"], grid), "min latency (s)": r["min latency"],
                     "within 5 % of min": compress_points(r["within tol"], grid),
                     "missing": compress_points(r["missing"], grid) or "none", "001's range": r["paper range"],
                     "minimiser in range": yn.get(_bool(r["minimiser in range"]), "-"),
                     "range within 5 %": yn.get(_bool(r["range within tol"]), "-")})
    return pd.DataFrame(rows)


def _bool(v):
    """``None`` for a missing verdict (None or NaN), else the verdict as a bool."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    return bool(v)
