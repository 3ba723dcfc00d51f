"""ShareGPT V3 first turns: a real-conversation workload beside the synthetic LMSYS-like one.

The papers' LMSYS-Chat-1M samples are not available (``../shared/data/README.md``), so the real-trace
experiments of 001 Section 5.2, 002 Section 7 and 003 Section 6 run on a synthetic LMSYS-like mixture
(:func:`kvlib.serving.workloads.lmsys_like`).  The shared data directory also holds the first-turn
lengths of 11,135 real user-chatbot conversations of ShareGPT V3 (:data:`SHAREGPT_CSV`: the data set of
vLLM's serving benchmark), in Llama-2 tokens and in whitespace-separated words.  They are real
conversations of the same kind, **not** the papers' LMSYS sample (their replies are much longer:
median 278 tokens against LMSYS's 43); every result computed from them says so
(:data:`REAL_CONVERSATIONS`).

:func:`load_sharegpt` reads the file through the same checked reader as the other traces
(:func:`kvlib.serving.workloads._read_columns`: errors name the file, the column and the line), records
its SHA-256, and keeps the conversations that pass vLLM's benchmark filter (:data:`VLLM_FILTER`: prompt
and output at least 4 tokens, prompt at most 1,024 tokens, prompt plus output at most 2,048 tokens;
9,774 of the 11,135, and every kept one has a non-empty prompt and reply in words too).  The filter is
applied in tokens whatever the unit, so both units describe the same conversations.  001 Section 5.2
counts *words* (each word of a reply is one output token), 002 and 003 tokenizer tokens: ``unit``
picks which lengths the requests get.  Without the file, ``fallback=True`` draws a labelled synthetic
stand-in (:data:`kvlib.serving.workloads.FALLBACK_LABEL`) from single clipped log-normals fitted to the
filtered file's range, median and mean (:data:`FALLBACK_FIT`); no data is copied into the repository.

:func:`build_sharegpt_workload` builds the workload of an experiment spec that reads the file
(:func:`is_sharegpt_spec`; :func:`kvlib.serving.experiments.build_any_workload` sends it here and every other
spec to :func:`kvlib.serving.experiments.build_workload`): ``"sharegpt"`` (``n`` conversations drawn without
replacement, Poisson arrivals at ``rate`` or all at ``t = 0``) and ``"mixed002"`` with ``short = "sharegpt"``
(002 Section 7's mixture with ShareGPT, in tokens, as its short 80 %).
"""

from __future__ import annotations

import numpy as np

from kvlib.core.model import InstanceError
from kvlib.serving.workloads import FALLBACK_LABEL, Workload

__all__ = ["SHAREGPT_CSV", "UNITS", "VLLM_FILTER", "REAL_CONVERSATIONS", "SHORT_SOURCES", "FALLBACK_FIT",
           "load_sharegpt", "vllm_keep", "is_sharegpt_spec", "build_sharegpt_workload"]

SHAREGPT_CSV = "sharegpt_v3_llama2_lengths.csv"
#: The length units of the file: Llama-2 tokens (002, 003) and whitespace-separated words (001 Section 5.2).
UNITS = ("tokens", "words")
#: vLLM's serving-benchmark filter, in tokens (benchmarks/benchmark_serving.py's ShareGPT sampling).
VLLM_FILTER = {"min_tokens": 4, "max_prompt_tokens": 1024, "max_total_tokens": 2048}
#: How every result on this workload is labelled.
REAL_CONVERSATIONS = "real conversations (ShareGPT V3), not the papers' LMSYS sample"
#: The short half of 002's mixed workload: spec value -> the source name of its requests.
SHORT_SOURCES = {"lmsys": "LMSYS-like", "sharegpt": "ShareGPT"}
#: The stand-in without the file: (lo, hi, median, mean, mu, sigma) per unit and length, computed from the
#: 9,774 filtered conversations of ``sharegpt_v3_llama2_lengths.csv`` (SHA-256 9bd7e302...) and fitted by
#: ``kvlib.serving.workloads.fit_lognormal(lo, hi, mean, median)`` (two targets, matched exactly).
FALLBACK_FIT = {
    ("tokens", "prompt"): (4, 1023, 31.0, 111.9, 3.4359, 1.77535),
    ("tokens", "output"): (4, 1611, 287.0, 326.8, 5.6607, 0.50774),
    ("words", "prompt"): (1, 830, 22.0, 65.3, 3.09206, 1.54711),
    ("words", "output"): (1, 737, 183.0, 197.4, 5.2094, 0.38961),
}
_COLUMNS = ("prompt_tokens", "output_tokens", "prompt_words", "output_words")


def vllm_keep(prompt_tokens, output_tokens, prompt_words, output_words) -> np.ndarray:
    """The conversations kept: vLLM's filter (:data:`VLLM_FILTER`, in tokens) and at least one word each way."""
    f = VLLM_FILTER
    pt, ot = np.asarray(prompt_tokens), np.asarray(output_tokens)
    return ((pt >= f["min_tokens"]) & (ot >= f["min_tokens"]) & (pt <= f["max_prompt_tokens"])
            & (pt + ot <= f["max_total_tokens"]) & (np.asarray(prompt_words) >= 1) & (np.asarray(output_words) >= 1))


def _stand_in(unit: str, rng: np.random.Generator, n: int) -> Workload:
    from kvlib.serving.workloads import _draw

    cols = {}
    for what in ("prompt", "output"):
        lo, hi, _median, _mean, mu, sigma = FALLBACK_FIT[(unit, what)]
        cols[what] = _draw(rng, n, mu, sigma, lo, hi)
    return Workload(np.zeros(n), cols["prompt"], cols["output"], "sharegpt", FALLBACK_LABEL, None,
                    f"synthetic stand-in from the statistics of the filtered ShareGPT V3 file ({unit})")


def _sharegpt_path(shared_dir, fallback: bool):
    """The ShareGPT file in ``shared_dir`` (found as the other traces are, and also in a directory holding only
    this file, or its ``data`` subdirectory); ``None`` when absent and ``fallback`` is allowed, else an error."""
    from pathlib import Path

    from kvlib.serving.workloads import _shared_file

    path = _shared_file(shared_dir, SHAREGPT_CSV, True)
    if path is None and shared_dir is not None:
        path = next((p for p in (Path(shared_dir) / SHAREGPT_CSV, Path(shared_dir) / "data" / SHAREGPT_CSV)
                     if p.is_file()), None)
    if path is None and not fallback:
        raise InstanceError(f"{shared_dir}/{SHAREGPT_CSV}: no such file (pass fallback=True for the embedded stand-in)")
    return path


def load_sharegpt(shared_dir, *, unit: str = "tokens", fallback: bool = False, fallback_n: int = 9774,
                  seed: int = 0) -> Workload:
    """The ShareGPT V3 first turns kept by :func:`vllm_keep`, lengths in ``unit`` (``tokens`` or ``words``),
    all at ``t = 0``, with the file's SHA-256.  Zero counts are allowed in the file (an empty first message;
    the filter drops them); a missing column, a value that is not a non-negative integer or an empty file is
    an :class:`~kvlib.core.model.InstanceError` naming the file, the column and the line."""
    from kvlib.serving.workloads import _read_columns, _sha256

    if unit not in UNITS:
        raise ValueError(f"load_sharegpt: unit must be one of {', '.join(UNITS)}, got {unit!r}")
    path = _sharegpt_path(shared_dir, fallback)
    if path is None:
        return _stand_in(unit, np.random.default_rng(seed), fallback_n)
    c = _read_columns(path, {k: "float" for k in _COLUMNS})  # numbers >= 0, errors with file, column, line
    for k in _COLUMNS:
        frac = np.flatnonzero(c[k] != np.round(c[k]))
        if len(frac):
            i = int(frac[0])
            raise InstanceError(f"{path}, line {i + 2}, column {k}: {c[k][i]:g} is not an integer")
        c[k] = c[k].astype(np.int64)
    keep = vllm_keep(*(c[k] for k in _COLUMNS))
    if not keep.any():
        raise InstanceError(f"{path}: no conversation passes vLLM's filter ({VLLM_FILTER})")
    s, o = c[f"prompt_{unit}"][keep], c[f"output_{unit}"][keep]
    return Workload(np.zeros(len(s)), s, o, "sharegpt", f"real trace: {SHAREGPT_CSV} ({unit})", _sha256(path),
                    str(path), [f"{int(keep.sum())} of {len(keep)} conversations kept by vLLM's filter"])


def is_sharegpt_spec(spec: dict) -> bool:
    """Whether an experiment spec reads the ShareGPT file (``"sharegpt"``, or ``"mixed002"`` with it as the short half)."""
    short = spec.get("short")
    if short is not None and short not in SHORT_SOURCES:
        raise ValueError(f"short must be one of {', '.join(SHORT_SOURCES)}, got {short!r}")
    return spec.get("workload") == "sharegpt" or (spec.get("workload") == "mixed002" and short == "sharegpt")


def build_sharegpt_workload(spec: dict) -> Workload:
    """The workload of an experiment spec that reads the ShareGPT file (:func:`is_sharegpt_spec`; module
    docstring).  With a shared directory the file must be there (an error otherwise); without one
    (``shared_dir`` None) the labelled stand-in is used."""
    from kvlib.serving.workloads import load_arxiv, mixed_002, poisson_arrivals, sample

    if not is_sharegpt_spec(spec):
        raise ValueError(f"build_sharegpt_workload: the spec does not read ShareGPT V3 (workload "
                         f"{spec.get('workload')!r}, short {spec.get('short')!r})")
    if spec.get("at_zero"):
        w = build_sharegpt_workload({k: v for k, v in spec.items() if k != "at_zero"})
        w.arrival_s = np.zeros(w.n)
        w.notes.append("all arrivals moved to t = 0")
        return w
    n, seed, shared = int(spec["n"]), int(spec.get("seed", 0)), spec.get("shared_dir")
    rng = np.random.default_rng([seed, 7919])
    if spec["workload"] == "sharegpt":
        sg = load_sharegpt(shared, unit=spec.get("unit") or "tokens", fallback=shared is None, seed=seed)
        w = sample(sg, rng, n)
        if spec.get("rate"):
            w.arrival_s = poisson_arrivals(rng, n, float(spec["rate"]))
    else:  # 002's mixture: ShareGPT (tokens, as 002 counts) as the short 80 %, arXiv as the long 20 %
        if (spec.get("unit") or "tokens") != "tokens":
            raise ValueError("the mixed 002 workload counts tokens (002 Section 7); unit must be 'tokens'")
        sg = load_sharegpt(shared, unit="tokens", fallback=shared is None, seed=seed)
        ax = load_arxiv(shared, fallback=shared is None, seed=seed)
        w = mixed_002(rng, n, ax, sg)
    w.sharegpt_sha256 = sg.sha256  # type: ignore[attr-defined]
    w.short_source = SHORT_SOURCES["sharegpt"]  # type: ignore[attr-defined]
    return w
