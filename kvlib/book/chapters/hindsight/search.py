"""Upper ends of 001 Section 5.1's optima from the primal search (row function of the results store).

:func:`search_trial` draws the instance of trial ``trial`` exactly as
:func:`kvlib.book.chapters.hindsight.rows.certified_trial` does (same generator, same key), runs
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
from kvlib.book.section51_trials import trial_instance
from kvlib.core.checker import check_schedule
from kvlib.core.model import Schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.search import primal_search
from kvlib.policies import make_policy

__all__ = ["search_trial"]


def search_trial(*, model: int, trial: int, seed: int, n_range, horizon_range, evaluations: int, windows: int,
                 window: int = 10, window_time: float = 0.5, search_seed: int = 0) -> dict:
    """Primal search on trial ``trial`` of arrival model ``model`` (instance as in
    :func:`kvlib.book.chapters.hindsight.rows.certified_trial`).

    Returns ``instance`` (hash), ``n``, ``M``, ``mcsf`` (MC-SF's TEL), ``seed_tel`` (best TEL among
    the search's seeds), ``search`` (TEL of the best schedule found), ``source`` (what found it),
    ``windows_improved`` (CP-SAT windows that improved it), ``starts`` (its start times, one
    integer per request separated by spaces) and ``seconds``.
    """
    t0 = time.perf_counter()
    inst = trial_instance(model, trial, seed, n_range, horizon_range)
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
