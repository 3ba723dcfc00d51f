"""001 Section 5.1's trials as the book stores them: the draw of trial ``k`` and the combination of two tables.

Shared by the hindsight chapter (its row functions in :mod:`kvlib.book.chapters.hindsight.rows` and
:mod:`kvlib.book.chapters.hindsight.search` draw their instances with :func:`trial_instance`) and by
the verdicts on the paper's ratios (:mod:`kvlib.book.section51_verdict`), which the mission table reads
too: :func:`combine_with_pipeline` joins the exact pipeline's stored intervals with the primal search's
schedules, re-checking each schedule on a freshly drawn instance.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51
from kvlib.core.model import Schedule

__all__ = ["trial_instance", "parse_starts", "combine_with_pipeline", "combine_inclusive", "recheck_stored"]


def trial_instance(model: int, k: int, seed: int, n_range=None, horizon_range=None):
    """Trial ``k`` of 001 Section 5.1's arrival model ``model`` (1 or 2) as the hindsight chapter's stored tables
    draw it: :func:`kvlib.core.instances.section51` from ``numpy.random.default_rng([seed, model, k])``."""
    if model not in (1, 2):
        raise ValueError(f"arrival model must be 1 or 2, got {model!r}")
    kw = {}
    if n_range is not None:
        kw["n_range"] = tuple(n_range)
    if horizon_range is not None:
        kw["horizon_range"] = tuple(horizon_range)
    return section51(np.random.default_rng([seed, model, k]), model, **kw)


def parse_starts(text: str) -> tuple[int, ...]:
    """The ``starts`` column of :func:`kvlib.book.chapters.hindsight.search.search_trial` as a tuple of ints."""
    return tuple(int(x) for x in str(text).split())


def combine_with_pipeline(pipeline, search, *, check: bool = True):
    """Trial by trial, OPT's certified interval from both tables (a pandas DataFrame).

    ``pipeline``: rows of :func:`kvlib.book.chapters.hindsight.rows.certified_trial`; ``search``: rows of
    :func:`kvlib.book.chapters.hindsight.search.search_trial` for the same keys.  Rows are matched on
    ``(model, trial)``; the instance hashes and MC-SF's TELs must agree (else ``ValueError`` naming the trial).  ``lower`` stays the
    pipeline's; ``upper`` becomes the smaller of the two upper ends (the pipeline's is kept as
    ``upper_pipeline``, and ``upper_from`` says which one it is).  With ``check``, every stored schedule
    (the search's ``starts``, and the pipeline's when its table stores them) is re-checked by the checker
    against a freshly drawn instance; ``upper_checked`` says whether the schedule behind ``upper`` is a
    stored, re-checked one.
    """
    left = pipeline.copy()
    if "starts" in left.columns:
        left = left.rename(columns={"starts": "pipeline_starts"})
    right = search[["model", "trial", "instance", "mcsf", "seed_tel", "search", "source", "starts"]].rename(
        columns={"instance": "instance_search", "mcsf": "mcsf_search", "source": "search_source"})
    df = _join(left, right, "search", "instance_search", "mcsf_search")
    has_pipe = "pipeline_starts" in df.columns
    if check:
        for row in df.itertuples():
            m = int(str(row.model).removeprefix("AM"))
            inst = trial_instance(m, int(row.trial), int(row.seed), _pair(row.n_range), _pair(row.horizon_range))
            _recheck(inst, row.starts, int(row.search), f"arrival model {m} trial {row.trial}: the stored search schedule")
            if has_pipe:
                _recheck(inst, row.pipeline_starts, int(row.upper),
                         f"arrival model {m} trial {row.trial}: the stored pipeline schedule")
    df["search"] = df.search.astype(int)
    df["upper_pipeline"] = df.upper
    df["upper"] = np.minimum(df.upper, df.search)
    df["upper_from"] = np.where(df.search < df.upper_pipeline, "search", "pipeline")
    df["upper_checked"] = bool(check) & ((df.search <= df.upper_pipeline) | has_pipe)
    return df.drop(columns=["instance_search", "mcsf_search"])


def _join(left, right, what: str, instance_col: str, mcsf_col: str, value: str | None = None):
    """``left`` joined with the ``what`` rows ``right`` on ``(model, trial)``; ``ValueError`` naming the first trial
    without a ``what`` row (its column ``value``, default ``what``, is empty) or whose ``what`` row is for another
    instance (``instance_col`` or ``mcsf_col``, MC-SF's TEL under the book's rule, differs from ``left``'s)."""
    df = left.merge(right, on=["model", "trial"], how="left", validate="one_to_one")
    missing = df[df[value or what].isna()]
    if len(missing):
        first = missing.iloc[0]
        raise ValueError(f"no {what} row for arrival model {first.model} trial {first.trial} "
                         f"({len(missing)} trials missing)")
    bad = df[(df.instance != df[instance_col]) | (df.mcsf != df[mcsf_col])]
    if len(bad):
        first = bad.iloc[0]
        raise ValueError(f"arrival model {first.model} trial {first.trial}: the {what} row is for another instance "
                         "than the pipeline row (instance hash or MC-SF TEL differs)")
    return df


def _recheck(inst, starts, tel: int, what: str) -> None:
    rep = check_schedule(inst, Schedule(parse_starts(starts)))
    if not rep.valid or rep.tel != tel:
        raise ValueError(f"{what} is rejected by the checker or its TEL is not {tel}")


def combine_inclusive(combined, inclusive, *, check: bool = True):
    """Rows for the verdicts under the start-inclusive memory rule (see :mod:`kvlib.core.memory_rules`).

    ``combined``: :func:`combine_with_pipeline`'s rows (the book's rule); ``inclusive``: rows of
    :func:`kvlib.book.chapters.hindsight.inclusive.inclusive_trial` for the same keys.  Returns one row per
    trial with ``mcsf`` (MC-SF under the start-inclusive rule), ``upper`` (the best checked start-inclusive
    schedule), ``lower`` (the pipeline's certified lower bound under the book's rule, a lower bound under
    the start-inclusive rule too, since every start-inclusive schedule is start-exclusive feasible) and
    ``mcsf_exclusive``.  With ``check``, every stored schedule is re-checked under the start-inclusive rule.
    """
    from kvlib.core.memory_rules import check_schedule_start_inclusive

    cols = ["model", "trial", "instance", "mcsf", "mcsf_exclusive", "exclusive_schedule_ok", "search", "starts"]
    right = inclusive[cols].rename(columns={"instance": "instance_inclusive", "mcsf": "mcsf_inclusive",
                                            "search": "search_inclusive", "starts": "starts_inclusive"})
    base = combined[["model", "trial", "seed", "n_range", "horizon_range", "instance", "mcsf", "lower"]]
    df = _join(base, right, "start-inclusive", "instance_inclusive", "mcsf_exclusive", value="search_inclusive")
    if check:
        for row in df.itertuples():
            m = int(str(row.model).removeprefix("AM"))
            inst = trial_instance(m, int(row.trial), int(row.seed), _pair(row.n_range), _pair(row.horizon_range))
            rep = check_schedule_start_inclusive(inst, parse_starts(row.starts_inclusive))
            if not rep.valid or rep.tel != int(row.search_inclusive):
                raise ValueError(f"arrival model {m} trial {row.trial}: the stored start-inclusive schedule is "
                                 f"rejected by the start-inclusive checker or its TEL is not {int(row.search_inclusive)}")
    out = df.assign(mcsf=df.mcsf_inclusive.astype(int), upper=df.search_inclusive.astype(int))
    return out.drop(columns=["instance_inclusive", "mcsf_inclusive", "search_inclusive"])


def recheck_stored(results_dir="results") -> list[str]:
    """Re-check every stored schedule of 001 Section 5.1 (``RESULTS_DIR/hindsight/section51*.csv``) with the
    checker of its memory rule; returns one line per table (``ValueError`` naming the first bad row).
    Used by ``book/verify_results.py``."""
    from pathlib import Path

    import pandas as pd

    base = Path(results_dir) / "hindsight"
    out = []
    pipe_path, search_path = base / "section51.csv", base / "section51_search.csv"
    if not (pipe_path.exists() and search_path.exists()):
        return out
    pipe, search = pd.read_csv(pipe_path), pd.read_csv(search_path)
    combined = combine_with_pipeline(pipe, search, check=True)
    n_pipe = len(pipe) if "starts" in pipe.columns else 0
    out.append(f"results/hindsight/section51_search: {len(search)} stored schedules re-checked")
    out.append(f"results/hindsight/section51: {n_pipe} stored schedules re-checked"
               + ("" if n_pipe else " (this table stores no schedules)"))
    out.append(f"results/hindsight (both tables): {int(combined.upper_checked.sum())} of {len(combined)} upper ends "
               "are stored, re-checked schedules")
    incl_path = base / "section51_inclusive.csv"
    if incl_path.exists():
        incl = pd.read_csv(incl_path)
        combine_inclusive(combined, incl, check=True)
        out.append(f"results/hindsight/section51_inclusive: {len(incl)} stored schedules re-checked under the "
                   "start-inclusive memory rule")
    return out


def _pair(x):
    import json

    return tuple(json.loads(x)) if isinstance(x, str) else tuple(x)
