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

__all__ = ["trial_instance", "parse_starts", "combine_with_pipeline"]


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
    ``upper_pipeline``, and ``upper_from`` says which one it is).  With ``check``, every stored
    search schedule is re-checked by the checker against a freshly drawn instance.
    """
    left = pipeline.copy()
    right = search[["model", "trial", "instance", "mcsf", "seed_tel", "search", "source", "starts"]].rename(
        columns={"instance": "instance_search", "mcsf": "mcsf_search", "source": "search_source"})
    df = left.merge(right, on=["model", "trial"], how="left", validate="one_to_one")
    missing = df[df.search.isna()]
    if len(missing):
        first = missing.iloc[0]
        raise ValueError(f"no search row for arrival model {first.model} trial {first.trial} "
                         f"({len(missing)} trials missing)")
    bad = df[(df.instance != df.instance_search) | (df.mcsf != df.mcsf_search)]
    if len(bad):
        first = bad.iloc[0]
        raise ValueError(f"arrival model {first.model} trial {first.trial}: the search row is for another instance "
                         "than the pipeline row (instance hash or MC-SF TEL differs)")
    if check:
        for row in df.itertuples():
            m = int(str(row.model).removeprefix("AM"))
            inst = trial_instance(m, int(row.trial), int(row.seed), _pair(row.n_range), _pair(row.horizon_range))
            rep = check_schedule(inst, Schedule(parse_starts(row.starts)))
            if not rep.valid or rep.tel != int(row.search):
                raise ValueError(f"arrival model {m} trial {row.trial}: the stored search schedule is rejected by "
                                 f"the checker or its TEL is not {int(row.search)}")
    df["search"] = df.search.astype(int)
    df["upper_pipeline"] = df.upper
    df["upper"] = np.minimum(df.upper, df.search)
    df["upper_from"] = np.where(df.search < df.upper_pipeline, "search", "pipeline")
    return df.drop(columns=["instance_search", "mcsf_search"])


def _pair(x):
    import json

    return tuple(json.loads(x)) if isinstance(x, str) else tuple(x)
