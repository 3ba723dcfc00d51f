"""Upper ends of 001 Section 5.1's optima from the primal search (row function of the results store).

:func:`search_trial` draws the instance of trial ``trial`` exactly as
:func:`kvlib.book.section51.certified_trial` does (same generator, same key), runs
:func:`kvlib.optimum.search.primal_search` with a deterministic budget and returns the best
schedule's TEL (checked by the independent checker) and its start times.  A schedule accepted by
the checker is an upper bound on OPT, so the chapter takes, trial by trial, the smaller of this
TEL and the exact pipeline's stored upper end; the pipeline's stored *lower* ends are kept.

Every output column is reproducible exactly (the search is deterministic in its arguments: seeded
random moves, CP-SAT with one worker and a deterministic time limit) except ``seconds``.
"""

from __future__ import annotations

import time

from kvlib.book.rows import instance_hash
from kvlib.book.section51 import _instance
from kvlib.core.checker import check_schedule
from kvlib.core.model import Schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.search import primal_search
from kvlib.policies import make_policy

__all__ = ["search_trial", "combine_with_pipeline", "parse_starts"]


def search_trial(*, model: int, trial: int, seed: int, n_range, horizon_range, evaluations: int, windows: int,
                 window: int = 10, window_time: float = 0.5, search_seed: int = 0) -> dict:
    """Primal search on trial ``trial`` of arrival model ``model`` (instance as in
    :func:`kvlib.book.section51.certified_trial`).

    Returns ``instance`` (hash), ``n``, ``M``, ``mcsf`` (MC-SF's TEL), ``seed_tel`` (best TEL among
    the search's seeds), ``search`` (TEL of the best schedule found), ``source`` (what found it),
    ``windows_improved`` (CP-SAT windows that improved it), ``starts`` (its start times, one
    integer per request separated by spaces) and ``seconds``.
    """
    t0 = time.perf_counter()
    inst = _instance(model, trial, seed, n_range, horizon_range)
    mc = simulate(inst, make_policy("mc-sf"), seed=0)
    if not check_schedule(inst, mc.schedule).valid:
        raise AssertionError(f"MC-SF schedule rejected by the checker on AM{model} trial {trial}")
    r = primal_search(inst, evaluations=int(evaluations), windows=int(windows), window=int(window),
                      window_time=float(window_time), seed=int(search_seed))
    if r.stopped_by != "budget":  # pragma: no cover - no time limit is given
        raise AssertionError(f"search on AM{model} trial {trial} stopped by {r.stopped_by}")
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in r.starts)))
    if not rep.valid or rep.tel != r.tel:
        raise AssertionError(f"search schedule on AM{model} trial {trial} rejected or its TEL differs")
    return dict(instance=instance_hash(inst), n=int(inst.n), M=int(inst.memory), mcsf=int(mc.tel),
                seed_tel=int(r.seed_tel), search=int(r.tel), source=str(r.source),
                windows_improved=int(r.window_improvements), starts=" ".join(str(int(x)) for x in r.starts),
                seconds=time.perf_counter() - t0)


def parse_starts(text: str) -> tuple[int, ...]:
    """The ``starts`` column of :func:`search_trial` as a tuple of ints."""
    return tuple(int(x) for x in str(text).split())


def combine_with_pipeline(pipeline, search, *, check: bool = True):
    """Trial by trial, OPT's certified interval from both tables (a pandas DataFrame).

    ``pipeline``: rows of :func:`kvlib.book.section51.certified_trial`; ``search``: rows of
    :func:`search_trial` for the same keys.  Rows are matched on ``(model, trial)``; the instance
    hashes and MC-SF's TELs must agree (else ``ValueError`` naming the trial).  ``lower`` stays the
    pipeline's; ``upper`` becomes the smaller of the two upper ends (the pipeline's is kept as
    ``upper_pipeline``, and ``upper_from`` says which one it is).  With ``check``, every stored
    search schedule is re-checked by the checker against a freshly drawn instance.
    """
    import numpy as np

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
            inst = _instance(m, int(row.trial), int(row.seed), _pair(row.n_range), _pair(row.horizon_range))
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
