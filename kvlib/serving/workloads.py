"""Request-length workloads for the real-trace experiments (001 Sec. 5.2, 002 Sec. 7, 003 Sec. 6).

Three sources:

* **LMSYS-like (synthetic).**  The LMSYS-Chat-1M per-request lengths the
  papers used are not available here.  :func:`lmsys_like` draws prompt and
  output lengths from *discretised, clipped log-normal* distributions fitted to
  the published summary statistics of Chen-Ye-Zhou (003 Section 6, 2,000
  conversations): prompt 1-468 tokens, mean 41, median 11, variance 4,961;
  output 1-883, mean 85, median 43, variance 9,702.  A single clipped
  log-normal cannot match mean, median and variance at once on these ranges
  (best fit: prompt mean 36.6, output mean 77.6), so each length is a
  two-component mixture ``(1 - w) LN(mu1, sigma1) + w LN(mu2, sigma2)``,
  discretised by rounding and clipped to the published range (clipped mass
  goes to the end points).  The five parameters minimise the summed squared
  relative errors of mean, median and variance of the exact pmf, which are
  then matched to within 1e-6 (the fit is :func:`fit_lmsys`; its result is
  embedded in :data:`LMSYS_FIT`).  The mixture is one of many distributions
  with these statistics: its shape beyond them is an assumption.
  Prompt and output are drawn independently (no published correlation).
  Every result computed from it must be labelled **synthetic (LMSYS-like)**.
* **Real traces** beside the repository (``../shared/data``, from Vidur):
  :func:`load_arxiv` (arXiv summarization token counts) and
  :func:`load_splitwise` (Splitwise production conversation trace with arrival
  times) and :func:`load_splitwise_code` (Splitwise production code-completion
  trace: long prompts, short outputs).  Each records the file's SHA-256.
* **User CSV** (:func:`load_user_csv`): columns ``prompt,output``, for a reader
  who has the real LMSYS lengths.

When ``../shared/data`` is absent the loaders can fall back
(``fallback=True``) to an **embedded synthetic stand-in** generated from the
summary statistics in ``../shared/data/README.md`` (same log-normal recipe),
labelled ``"embedded fallback (synthetic, not the trace)"``; no trace data is
copied into the repository.

Errors name the file, the column and the (1-based, header = line 1) line.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kvlib.core.model import InstanceError

__all__ = [
    "Workload",
    "LMSYS_TARGETS",
    "LMSYS_FIT",
    "SYNTHETIC_LABEL",
    "FALLBACK_LABEL",
    "ARXIV_CSV",
    "SPLITWISE_CSV",
    "lognormal_pmf",
    "fit_lognormal",
    "fit_lmsys",
    "fit_mixture",
    "mixture_pmf",
    "lmsys_fit_table",
    "lmsys_like",
    "load_arxiv",
    "load_splitwise",
    "load_splitwise_code",
    "CODE_CSV",
    "load_user_csv",
    "resolve_shared_dir",
    "default_shared_dir",
    "poisson_arrivals",
    "mixed_002",
]

SYNTHETIC_LABEL = "synthetic (LMSYS-like)"
FALLBACK_LABEL = "embedded fallback (synthetic, not the trace)"
ARXIV_CSV = "arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv"
SPLITWISE_CSV = "splitwise_conv.csv"
CODE_CSV = "splitwise_code.csv"

#: Published summary statistics (003 Section 6, 2,000 LMSYS conversations).
LMSYS_TARGETS = {
    "prompt": {"lo": 1, "hi": 468, "mean": 41.0, "median": 11.0, "var": 4961.0},
    "output": {"lo": 1, "hi": 883, "mean": 85.0, "median": 43.0, "var": 9702.0},
}

#: Result of :func:`fit_lmsys` (embedded so that no optimisation runs at import):
#: two-component mixtures ``(1 - w) LN(mu1, sigma1) + w LN(mu2, sigma2)`` (discretised, clipped).
LMSYS_FIT = {
    "prompt": {"mu1": 3.89916, "sigma1": 0.99363, "mu2": 0.84374, "sigma2": 1.03818, "w": 0.50127},
    "output": {"mu1": 2.69039, "sigma1": 0.60618, "mu2": 4.83960, "sigma2": 0.60991, "w": 0.50062},
}

#: Summary statistics of the shared traces (../shared/data/README.md), used only
#: for the embedded fallback when the files are absent.
_FALLBACK_STATS = {
    "arxiv": {"prompt": (1, 4054, 2730.0, 2588.1), "output": (5, 4056, 167.0, 291.4)},
    "splitwise": {"prompt": (2, 14050, 1020.0, 1154.7), "output": (7, 1000, 129.0, 211.1), "rate": 5.5, "span": 3502.0},
    # computed from splitwise_code.csv (8,819 rows; SHA-256 in ../shared/data/SHA256SUMS): range, median, mean
    "splitwise-code": {"prompt": (3, 7437, 1469.0, 2047.8), "output": (6, 1899, 13.0, 27.9), "rate": 2.57,
                       "span": 3436.0},
}
#: ``fit_lognormal(lo, hi, mean, median)`` of the statistics above (single clipped log-normal:
#: two parameters, two targets, matched exactly).
_FALLBACK_FIT = {
    ("arxiv", "prompt"): (7.91206, 1.16863), ("arxiv", "output"): (5.11857, 1.0619),
    ("splitwise", "prompt"): (6.92753, 0.49812), ("splitwise", "output"): (4.85787, 1.07421),
    # the output's fitted median lands on 14 (the file's: 13): the discretised log-normal cannot hit both
    ("splitwise-code", "prompt"): (7.29222, 0.88429), ("splitwise-code", "output"): (2.65591, 1.14252),
}


@dataclass
class Workload:
    """Requests in wall-clock time: arrival (seconds), prompt and output sizes (tokens)."""

    arrival_s: np.ndarray
    prompt: np.ndarray
    output: np.ndarray
    name: str
    label: str  # "real trace: FILE", SYNTHETIC_LABEL, FALLBACK_LABEL, "user CSV: FILE"
    sha256: str | None = None
    source: str | None = None
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.arrival_s = np.asarray(self.arrival_s, dtype=float)
        self.prompt = np.asarray(self.prompt, dtype=np.int64)
        self.output = np.asarray(self.output, dtype=np.int64)
        if not (len(self.arrival_s) == len(self.prompt) == len(self.output)):
            raise InstanceError(f"{self.name}: columns have different lengths")

    @property
    def n(self) -> int:
        return len(self.prompt)

    def take(self, idx) -> "Workload":
        idx = np.asarray(idx)
        return Workload(self.arrival_s[idx], self.prompt[idx], self.output[idx], self.name, self.label,
                        self.sha256, self.source, list(self.notes))

    def summary(self) -> dict:
        return {
            "name": self.name, "label": self.label, "n": self.n,
            "prompt_mean": float(self.prompt.mean()), "prompt_median": float(np.median(self.prompt)),
            "output_mean": float(self.output.mean()), "output_median": float(np.median(self.output)),
            "sha256": self.sha256,
        }


# --------------------------------------------------------------------------- LMSYS-like


def lognormal_pmf(mu: float, sigma: float, lo: int, hi: int) -> np.ndarray:
    """pmf on ``lo..hi`` of ``clip(round(exp(mu + sigma Z)), lo, hi)``."""
    from scipy.stats import norm

    k = np.arange(lo, hi + 1, dtype=float)
    edges = np.log(np.r_[k - 0.5, hi + 0.5].clip(min=1e-300))
    cdf = norm.cdf((edges - mu) / sigma)
    cdf[0] = 0.0
    cdf[-1] = 1.0
    return np.diff(cdf)


def _stats(pmf: np.ndarray, lo: int) -> tuple[float, float, float]:
    k = np.arange(lo, lo + len(pmf), dtype=float)
    mean = float((k * pmf).sum())
    var = float(((k - mean) ** 2 * pmf).sum())
    median = float(k[np.searchsorted(np.cumsum(pmf), 0.5)])
    return mean, median, var


def fit_lognormal(lo: int, hi: int, mean: float, median: float, var: float | None = None) -> dict:
    """Fit ``(mu, sigma)`` of the clipped discretised log-normal to the given statistics."""
    from scipy.optimize import minimize

    def loss(x):
        mu, ls = x
        m, md, v = _stats(lognormal_pmf(mu, np.exp(ls), lo, hi), lo)
        err = ((m - mean) / mean) ** 2 + ((md - median) / median) ** 2
        if var is not None:
            err += ((v - var) / var) ** 2
        return err

    best = None
    for s0 in (0.5, 1.0, 1.5, 2.0):
        r = minimize(loss, x0=[np.log(median), np.log(s0)], method="Nelder-Mead",
                     options={"xatol": 1e-5, "fatol": 1e-10, "maxiter": 2000})
        if best is None or r.fun < best.fun:
            best = r
    mu, sigma = float(best.x[0]), float(np.exp(best.x[1]))
    m, md, v = _stats(lognormal_pmf(mu, sigma, lo, hi), lo)
    return {"mu": mu, "sigma": sigma, "mean": m, "median": md, "var": v, "loss": float(best.fun)}


def mixture_pmf(p: dict, lo: int, hi: int) -> np.ndarray:
    """pmf on ``lo..hi`` of the clipped discretised log-normal mixture with parameters ``p``."""
    return (1 - p["w"]) * lognormal_pmf(p["mu1"], p["sigma1"], lo, hi) + p["w"] * lognormal_pmf(p["mu2"], p["sigma2"], lo, hi)


def fit_mixture(lo: int, hi: int, mean: float, median: float, var: float) -> dict:
    """Fit the five mixture parameters to mean, median and variance (Nelder-Mead, a few starts)."""
    from scipy.optimize import minimize

    def unpack(x):
        return {"mu1": x[0], "sigma1": float(np.exp(x[1])), "mu2": x[2], "sigma2": float(np.exp(x[3])),
                "w": float(1 / (1 + np.exp(-x[4])))}

    def loss(x):
        m, md, v = _stats(mixture_pmf(unpack(x), lo, hi), lo)
        return ((m - mean) / mean) ** 2 + ((md - median) / median) ** 2 + ((v - var) / var) ** 2

    best = None
    for w0 in (-2.0, -1.0, 0.0):
        for s0 in (0.5, 1.0):
            r = minimize(loss, [np.log(median) - 0.3, np.log(s0), np.log(mean) + 1, np.log(0.5), w0],
                         method="Nelder-Mead", options={"maxiter": 4000, "xatol": 1e-7, "fatol": 1e-14})
            if best is None or r.fun < best.fun:
                best = r
    p = {k: float(v) for k, v in unpack(best.x).items()}
    m, md, v = _stats(mixture_pmf(p, lo, hi), lo)
    return dict(p, mean=m, median=md, var=v, loss=float(best.fun))


def lmsys_fit_table(refit: bool = False):
    """Published statistics against those of the (embedded or refitted) LMSYS-like mixture."""
    import pandas as pd

    rows = []
    for what, t in LMSYS_TARGETS.items():
        if refit:
            p = fit_mixture(t["lo"], t["hi"], t["mean"], t["median"], t["var"])
        else:
            p = dict(LMSYS_FIT[what])
        m, md, v = _stats(mixture_pmf(p, t["lo"], t["hi"]), t["lo"])
        rows.append({"length": what, "range": f"{t['lo']}-{t['hi']}",
                     "mean (published)": t["mean"], "mean (fit)": m,
                     "median (published)": t["median"], "median (fit)": md,
                     "variance (published)": t["var"], "variance (fit)": v,
                     **{k: p[k] for k in ("w", "mu1", "sigma1", "mu2", "sigma2")}})
    return pd.DataFrame(rows)


fit_lmsys = lmsys_fit_table


def _draw_pmf(rng: np.random.Generator, n: int, pmf: np.ndarray, lo: int) -> np.ndarray:
    return lo + rng.choice(len(pmf), size=n, p=pmf / pmf.sum())


def _draw(rng: np.random.Generator, n: int, mu: float, sigma: float, lo: int, hi: int) -> np.ndarray:
    return _draw_pmf(rng, n, lognormal_pmf(mu, sigma, lo, hi), lo)


def lmsys_like(rng: np.random.Generator, n: int, arrival_s=None) -> Workload:
    """``n`` synthetic (LMSYS-like) requests; arrivals default to all at ``t = 0``."""
    tp, to = LMSYS_TARGETS["prompt"], LMSYS_TARGETS["output"]
    s = _draw_pmf(rng, n, mixture_pmf(LMSYS_FIT["prompt"], tp["lo"], tp["hi"]), tp["lo"])
    o = _draw_pmf(rng, n, mixture_pmf(LMSYS_FIT["output"], to["lo"], to["hi"]), to["lo"])
    a = np.zeros(n) if arrival_s is None else np.asarray(arrival_s, dtype=float)
    return Workload(a, s, o, "lmsys-like", SYNTHETIC_LABEL, None, "kvlib.serving.workloads.lmsys_like")


# --------------------------------------------------------------------------- files


def resolve_shared_dir(shared_dir: str | os.PathLike | None, repo_root: str | os.PathLike | None = None) -> Path | None:
    """Find the shared data directory: as given (also relative to the repository root, with or
    without a trailing ``data``), or, only when no directory is given, from ``$KVBOOK_SHARED_DIR``.
    An explicit directory is never replaced by the environment's.  ``None`` if not found."""
    root = Path(repo_root) if repo_root is not None else Path(__file__).resolve().parents[2]
    cands: list[Path] = []
    bases = [shared_dir] if shared_dir else ([os.environ["KVBOOK_SHARED_DIR"]] if os.environ.get("KVBOOK_SHARED_DIR") else [])
    for base in bases:
        p = Path(base)
        cands += [p, p / "data"] if p.is_absolute() else [p, root / p, p / "data", root / p / "data"]
    for c in cands:
        if any((c / f).exists() for f in (ARXIV_CSV, SPLITWISE_CSV, CODE_CSV, "a100_llama2_70b_mlp.csv")):
            return c.resolve()
    return None


def default_shared_dir() -> Path | None:
    """The shared data directory the book uses: ``$KVBOOK_SHARED_DIR`` if set, else
    ``../shared/data`` (beside the repository); ``None`` when neither holds a data file.  Every row
    function and the store's check for available data use this one lookup, so a row is recomputed
    from the same files it was stored from."""
    return resolve_shared_dir(os.environ.get("KVBOOK_SHARED_DIR") or "../shared/data")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_columns(path: Path, columns: dict[str, str]) -> dict[str, np.ndarray]:
    """Read ``columns`` (name -> "int" | "float") from a CSV; errors name file, column and line."""
    import pandas as pd

    if not path.exists():
        raise InstanceError(f"{path}: no such file")
    try:
        df = pd.read_csv(path, dtype=str, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InstanceError(f"{path}: file is empty (expected a header line with {', '.join(columns)})") from None
    except pd.errors.ParserError as e:
        raise InstanceError(f"{path}: cannot parse CSV ({e})") from None
    df.columns = [str(c).strip().lower() for c in df.columns]
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InstanceError(f"{path}, line 1: missing column(s) {', '.join(missing)}; found {', '.join(df.columns)}")
    if len(df) == 0:
        raise InstanceError(f"{path}: no rows (only a header line)")
    out = {}
    for c, kind in columns.items():
        raw = df[c]
        vals = pd.to_numeric(raw.str.strip(), errors="coerce")
        bad = np.flatnonzero(vals.isna().to_numpy())
        if len(bad):
            i = int(bad[0])
            raise InstanceError(f"{path}, line {i + 2}, column {c}: {raw.iloc[i]!r} is not a number")
        arr = vals.to_numpy(dtype=float)
        if kind == "int":
            nonint = np.flatnonzero(arr != np.round(arr))
            if len(nonint):
                i = int(nonint[0])
                raise InstanceError(f"{path}, line {i + 2}, column {c}: {raw.iloc[i]!r} is not an integer")
            neg = np.flatnonzero(arr <= 0)
            if len(neg):
                i = int(neg[0])
                raise InstanceError(f"{path}, line {i + 2}, column {c}: token count must be positive, got {raw.iloc[i]!r}")
            arr = arr.astype(np.int64)
        else:
            neg = np.flatnonzero(arr < 0)
            if len(neg):
                i = int(neg[0])
                raise InstanceError(f"{path}, line {i + 2}, column {c}: must be >= 0, got {raw.iloc[i]!r}")
        out[c] = arr
    return out


def _fallback(kind: str, rng: np.random.Generator, n: int) -> Workload:
    st = _FALLBACK_STATS[kind]
    cols = {}
    for what in ("prompt", "output"):
        lo, hi, median, mean = st[what]
        mu, sigma = _FALLBACK_FIT[(kind, what)]
        cols[what] = _draw(rng, n, mu, sigma, lo, hi)
    if "span" in st:  # a trace with arrival times: uniform over its span
        arr = np.sort(rng.uniform(0.0, st["span"], size=n))
    else:
        arr = np.zeros(n)
    return Workload(arr, cols["prompt"], cols["output"], kind, FALLBACK_LABEL, None,
                    f"synthetic stand-in from the summary statistics of {kind} (../shared/data/README.md)")


def _shared_file(shared_dir, name: str, fallback: bool) -> Path | None:
    """``shared_dir/name`` if it exists; ``None`` when it does not and ``fallback`` is allowed."""
    d = resolve_shared_dir(shared_dir) if shared_dir is not None else None
    path = None if d is None else d / name
    if path is not None and path.exists():
        return path
    if fallback:
        return None
    raise InstanceError(f"{shared_dir}/{name}: no such file (pass fallback=True for the embedded stand-in)")


def load_arxiv(shared_dir, *, fallback: bool = False, fallback_n: int = 2000, seed: int = 0) -> Workload:
    """The arXiv summarization token counts (all at ``t = 0``), with SHA-256."""
    path = _shared_file(shared_dir, ARXIV_CSV, fallback)
    if path is None:
        return _fallback("arxiv", np.random.default_rng(seed), fallback_n)
    c = _read_columns(path, {"num_prefill_tokens": "int", "num_decode_tokens": "int"})
    s, o = c["num_prefill_tokens"], c["num_decode_tokens"]
    return Workload(np.zeros(len(s)), s, o, "arxiv", f"real trace: {ARXIV_CSV}", _sha256(path), str(path))


def _load_trace(shared_dir, name: str, kind: str, trace: str, fallback: bool, fallback_n: int,
                seed: int) -> Workload:
    path = _shared_file(shared_dir, name, fallback)
    if path is None:
        return _fallback(kind, np.random.default_rng(seed), fallback_n)
    c = _read_columns(path, {"arrived_at": "float", "num_prefill_tokens": "int", "num_decode_tokens": "int"})
    a = c["arrived_at"]
    if np.any(np.diff(a) < 0):
        i = int(np.flatnonzero(np.diff(a) < 0)[0]) + 1
        raise InstanceError(f"{path}, line {i + 2}, column arrived_at: arrival times must be non-decreasing")
    return Workload(a, c["num_prefill_tokens"], c["num_decode_tokens"], trace, f"real trace: {name}",
                    _sha256(path), str(path))


def load_splitwise(shared_dir, *, fallback: bool = False, fallback_n: int = 19366, seed: int = 0) -> Workload:
    """The Splitwise conversation trace with its arrival times (seconds), with SHA-256."""
    return _load_trace(shared_dir, SPLITWISE_CSV, "splitwise", "splitwise-conv", fallback, fallback_n, seed)


def load_splitwise_code(shared_dir, *, fallback: bool = False, fallback_n: int = 8819, seed: int = 0) -> Workload:
    """The Splitwise code-completion trace (long prompts, short outputs) with its arrival times (seconds), with
    SHA-256; its stand-in without the file is drawn from the statistics in ``_FALLBACK_STATS``."""
    return _load_trace(shared_dir, CODE_CSV, "splitwise-code", "splitwise-code", fallback, fallback_n, seed)


def load_user_csv(path) -> Workload:
    """A reader's CSV with columns ``prompt,output`` (e.g. the real LMSYS lengths); all at ``t = 0``."""
    path = Path(path)
    c = _read_columns(path, {"prompt": "int", "output": "int"})
    return Workload(np.zeros(len(c["prompt"])), c["prompt"], c["output"], path.stem, f"user CSV: {path.name}",
                    _sha256(path), str(path))


# --------------------------------------------------------------------------- composition


def poisson_arrivals(rng: np.random.Generator, n: int, rate: float) -> np.ndarray:
    """Arrival times (s) of a Poisson process of ``rate`` per second (first arrival at the first gap)."""
    if rate <= 0:
        raise ValueError(f"rate must be positive, got {rate}")
    return np.cumsum(rng.exponential(1.0 / rate, size=n))


def sample(w: Workload, rng: np.random.Generator, n: int, replace: bool | None = None) -> Workload:
    """``n`` requests drawn from ``w`` (without replacement when possible)."""
    if replace is None:
        replace = n > w.n
    idx = rng.choice(w.n, size=n, replace=replace)
    return w.take(np.sort(idx) if np.any(w.arrival_s) else idx)


def with_poisson(w: Workload, rng: np.random.Generator, rate: float) -> Workload:
    out = w.take(np.arange(w.n))
    out.arrival_s = poisson_arrivals(rng, w.n, rate)
    out.notes.append(f"Poisson arrivals, rate {rate}/s")
    return out


def rescale_trace(w: Workload, rate: float) -> Workload:
    """Compress/stretch the trace's arrival times so that its mean rate is ``rate`` per second."""
    span = float(w.arrival_s.max() - w.arrival_s.min())
    native = (w.n - 1) / span if span > 0 else float("inf")
    out = w.take(np.arange(w.n))
    out.arrival_s = (w.arrival_s - w.arrival_s.min()) * (native / rate)
    out.notes.append(f"arrival times rescaled from {native:.2f}/s to {rate}/s")
    return out


def mixed_002(rng: np.random.Generator, n: int, arxiv: Workload, lmsys: Workload | None = None,
              frac_lmsys: float = 0.8) -> Workload:
    """002 Section 7: ``0.8 n`` LMSYS-like + ``0.2 n`` arXiv requests, mixed at random, all at ``t = 0``."""
    n_l = int(round(frac_lmsys * n))
    n_a = n - n_l
    L = lmsys if lmsys is not None else lmsys_like(rng, n_l)
    if L.n != n_l:
        L = sample(L, rng, n_l)
    A = sample(arxiv, rng, n_a)
    perm = rng.permutation(n)
    s = np.r_[L.prompt, A.prompt][perm]
    o = np.r_[L.output, A.output][perm]
    src = np.r_[np.zeros(n_l, int), np.ones(n_a, int)][perm]
    w = Workload(np.zeros(n), s, o, "mixed-002", f"{L.label} + {A.label}", A.sha256, A.source,
                 [f"{n_l} {L.label} + {n_a} {A.label}, mixed at random"])
    w.is_arxiv = src  # type: ignore[attr-defined]
    return w
