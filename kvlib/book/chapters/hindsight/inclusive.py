"""001 Section 5.1 under the second reading of the memory rule (row function of the results store).

001 Section 3 can be read two ways (see :mod:`kvlib.core.memory_rules`): a request started at round
``k`` holds memory in rounds ``k + 1 .. k + o_i`` (constraint (3); the book's reading everywhere
else) or in rounds ``k .. k + o_i`` (the sentence after it), holding ``s_i`` tokens at its start
round too.  :func:`inclusive_trial` redoes a Section 5.1 trial under the second reading: MC-SF as
001 Algorithm 1 prints it, with its eq. (5) check under that rule, and the primal search under that
rule, both on the reduction :func:`kvlib.core.memory_rules.shifted_instance`, and both schedules
checked on the original instance by :func:`kvlib.core.memory_rules.check_schedule_start_inclusive`.

Every start-inclusive schedule is start-exclusive feasible, so the exact pipeline's certified lower
bound under the first reading (table ``section51``) is a lower bound on OPT under the second too;
the chapter pairs it with this table's checked schedule for a certified interval.
"""

from __future__ import annotations

import time

from kvlib.book.rows import instance_hash
from kvlib.book.section51_trials import trial_instance
from kvlib.core.memory_rules import check_schedule_start_inclusive, inclusive_tel, shifted_instance
from kvlib.core.simulate import simulate
from kvlib.optimum.search import primal_search
from kvlib.policies import make_policy

__all__ = ["inclusive_trial"]


def inclusive_trial(*, model: int, trial: int, seed: int, n_range, horizon_range, evaluations: int, windows: int,
                    window: int = 10, window_time: float = 0.5, search_seed: int = 0) -> dict:
    """Trial ``trial`` of arrival model ``model`` under the start-inclusive memory rule (the instance of
    :func:`kvlib.book.chapters.hindsight.rows.certified_trial` with the same key).

    Returns ``instance`` (hash), ``n``, ``M``, ``mcsf`` (MC-SF's total latency under this rule),
    ``mcsf_exclusive`` (MC-SF's total latency under the book's rule, as in ``section51``),
    ``exclusive_schedule_ok`` (whether MC-SF's schedule under the book's rule also satisfies this
    rule), ``seed_tel``, ``search`` (total latency of the best schedule found under this rule),
    ``source``, ``windows_improved``, ``starts`` (its start times, space-separated) and ``seconds``.
    """
    t0 = time.perf_counter()
    inst = trial_instance(model, trial, seed, n_range, horizon_range)
    shifted = shifted_instance(inst)
    mc = simulate(shifted, make_policy("mc-sf"), seed=0)
    rep = check_schedule_start_inclusive(inst, mc.schedule.starts)
    if not rep.valid or rep.tel != inclusive_tel(inst, mc.tel):
        raise AssertionError(f"MC-SF under the start-inclusive rule on AM{model} trial {trial}: schedule rejected "
                             f"by the start-inclusive checker or its total latency differs ({rep.violations[:1]})")
    mc_ex = simulate(inst, make_policy("mc-sf"), seed=0)
    ex_ok = check_schedule_start_inclusive(inst, mc_ex.schedule.starts).valid
    r = primal_search(shifted, evaluations=int(evaluations), windows=int(windows), window=int(window),
                      window_time=float(window_time), seed=int(search_seed))
    if r.stopped_by != "budget":  # pragma: no cover - no time limit is given
        raise AssertionError(f"search on AM{model} trial {trial} stopped by {r.stopped_by}")
    starts = tuple(int(x) for x in r.starts)
    rep = check_schedule_start_inclusive(inst, starts)
    if not rep.valid or rep.tel != inclusive_tel(inst, r.tel):
        raise AssertionError(f"search schedule on AM{model} trial {trial} rejected by the start-inclusive checker "
                             f"or its total latency differs ({rep.violations[:1]})")
    return dict(instance=instance_hash(inst), n=int(inst.n), M=int(inst.memory), mcsf=inclusive_tel(inst, mc.tel),
                mcsf_exclusive=int(mc_ex.tel), exclusive_schedule_ok=bool(ex_ok),
                seed_tel=inclusive_tel(inst, r.seed_tel), search=int(rep.tel), source=str(r.source),
                windows_improved=int(r.window_improvements), starts=" ".join(map(str, starts)),
                seconds=time.perf_counter() - t0)
