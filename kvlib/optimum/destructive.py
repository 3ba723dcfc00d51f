"""Destructive lower bounds for the hindsight optimum: refute a target just above the LP (ours).

A *destructive* bound (a term from makespan scheduling) proves ``OPT >= T`` by showing that no
schedule has TEL ``<= T - 1``.  Here the refutation is the event model of
:func:`kvlib.optimum.cpsat.event_solve` with ``TEL <= T - 1``, over the starts that survive
:func:`kvlib.optimum.timelp.reduced_cost_fixing` with ``T`` inside the windows of
:func:`kvlib.optimum.bounds.latest_starts` for the incumbent and for ``T - 1``.

**Why an infeasible answer proves ``OPT >= T``.**  Suppose ``OPT <= T - 1`` and take an optimal
schedule.  It lies in the windows for the incumbent (they hold every optimal schedule) and in the
windows for ``T - 1`` (they hold every optimal schedule of TEL at most ``T - 1``).  Weak duality
gives ``LP + sum_j d_{j, p_j} <= TEL <= T - 1`` with every reduced cost ``d >= 0`` (the LP's
safe dual value ``LP``; :mod:`kvlib.optimum.timelp`), so each of its starts has
``LP + d_{j, p_j} <= T - 1`` and survives the fixing.  Permuting identical requests gives another
optimal schedule with the same properties, so the one the event model's twin ordering admits is
a solution: the model is feasible.  Contrapositive: ``INFEASIBLE`` means ``OPT >= T``.  A schedule
the model finds instead has TEL ``<= T - 1``: it is checked by :func:`kvlib.core.checker.check_schedule`
and becomes the incumbent.

The lower ``T``, the more starts the fixing removes and the less the event model has to search;
but the LP bound it carries (its Lagrangian cut) prunes a branch only once the branch costs more
than ``T - LP``, so targets close to the LP are not always the cheap ones.
:func:`destructive_bound` therefore gallops: it starts ``first_step`` (a fraction of the lower
bound) above it, doubles the step after every refuted target and halves it after every target left
open (time limit), until the step is below one, the target reaches the incumbent (then a refutation
proves the incumbent optimal), or the time is up.

:func:`solve_destructive` runs :func:`kvlib.optimum.pipeline.solve_pipeline` for a share of the time
limit and, if the gap is still open, the LP again (windows of the pipeline's incumbent) and the
galloping search in the time left.  ``benchmarks/beyond_lp.py`` measures fixed targets (``n = 15``,
``20``): a target above the LP was refuted on 6 of 20 instances, none at ``n = 20``.
``benchmarks/exact_scaling.py`` (solver ``destructive``) measures :func:`solve_destructive` against the
pipeline alone (60 s, two threads, ``n = 12, 15``): 7 of 20 proved against 12, mean gaps 2.9% / 7.5%
against 0.7% / 6.2% -- the proofs and schedules the shortened pipeline loses cost more than the
refuted targets gain.  So :func:`kvlib.optimum.exact.solve` does not use it: this module is a
measurement tool.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule

#: the share of :func:`solve_destructive`'s time limit given to the pipeline first
PIPELINE_SHARE = 0.6
#: a refutation attempt gets at most this share of the time left (and at least MIN_TRY seconds)
TRY_SHARE = 0.5
#: the shortest refutation attempt worth starting (child start-up and model build take 1-2 s)
MIN_TRY = 4.0


@dataclass
class DestructiveResult:
    """Outcome of :func:`destructive_bound`: ``lower <= OPT <= upper``; ``starts`` a checked schedule of
    TEL ``upper`` (the caller's unless a better one was found); ``attempts`` one dict per target tried
    (target, starts kept, status, seconds)."""

    lower: int
    upper: int
    starts: np.ndarray
    attempts: list = field(default_factory=list)


def target_domains(instance: Instance, lp, latest: np.ndarray, target: int) -> list[np.ndarray]:
    """Starts per request that a schedule of TEL ``<= target - 1`` can use (module docstring):
    reduced-cost fixing of ``lp`` with ``target``, inside ``latest`` and the windows for ``target - 1``."""
    from kvlib.optimum.bounds import latest_starts
    from kvlib.optimum.timelp import reduced_cost_fixing

    if int(target) < 1:
        raise ValueError(f"target must be a positive TEL, got {target}")
    allowed = reduced_cost_fixing(lp, int(target))
    cap = np.minimum(np.asarray(latest, dtype=np.int64), latest_starts(instance, int(target) - 1))
    none = np.zeros(0, dtype=np.int64)
    return [d[d <= cap[i]] for i, d in ((i, allowed.get(i, none)) for i in range(instance.n))]


def destructive_bound(instance: Instance, lp, latest: np.ndarray, lower: int, upper: int, starts, *,
                      time_limit: float, workers: int = 2, first_step: float = 0.01,
                      log=None) -> DestructiveResult:
    """Raise ``lower`` by refuting targets between it and ``upper`` (module docstring).

    ``lp``: a :class:`kvlib.optimum.timelp.TimeLPResult` whose windows contain ``latest``'s (e.g. the LP
    solved with ``latest``); ``latest``: sound latest starts for the incumbent ``starts`` of TEL
    ``upper``.  Never returns a bound above ``upper``.  Raises ``ValueError`` naming a bad argument.
    """
    from kvlib.optimum.cpsat import event_solve_subprocess

    if not (isinstance(first_step, (int, float)) and 0 < first_step < 1):
        raise ValueError(f"first_step must be a fraction in (0, 1), got {first_step!r}")
    if not (isinstance(time_limit, (int, float)) and math.isfinite(time_limit) and time_limit >= 0):
        raise ValueError(f"time_limit must be a non-negative number of seconds, got {time_limit!r}")
    lower, upper = int(lower), int(upper)
    if lower > upper:
        raise ValueError(f"lower ({lower}) exceeds upper ({upper})")
    best = np.asarray(starts, dtype=np.int64)
    if len(best) != instance.n:
        raise ValueError(f"starts: expected {instance.n} start times, got {len(best)}")
    tic = time.perf_counter()
    attempts: list[dict] = []
    step = max(1, int(math.ceil(first_step * max(lower, 1))))
    lagr = lp.lagrangian()
    while lower < upper:
        left = time_limit - (time.perf_counter() - tic)
        if left < MIN_TRY:
            break
        target = min(lower + step, upper)
        doms = target_domains(instance, lp, latest, target)
        t0 = time.perf_counter()
        if any(len(d) == 0 for d in doms):
            status, found = "INFEASIBLE (a request has no start left)", None
        else:
            budget = min(left, max(MIN_TRY, TRY_SHARE * left))
            cr = event_solve_subprocess(instance, doms, upper=target, time_limit=budget, workers=workers,
                                        cumulative=2, lagrangian=lagr)
            status, found = cr.status, cr.starts
        attempts.append(dict(target=int(target), starts=int(sum(len(d) for d in doms)), status=status,
                             seconds=round(time.perf_counter() - t0, 2)))
        if log is not None:
            log(f"destructive target {target}: {status} ({attempts[-1]['seconds']:.1f} s)")
        if found is not None:
            rep = check_schedule(instance, Schedule(tuple(int(p) for p in found)))
            if rep.valid and rep.tel < upper:
                best, upper = np.asarray(found, dtype=np.int64), int(rep.tel)
                if log is not None:
                    log(f"destructive search found a schedule of TEL {upper}")
                if status == "OPTIMAL":  # optimal among TEL <= target - 1, and OPT >= lower: proved
                    lower = upper
                continue
            if not rep.valid:  # pragma: no cover - would be a modelling error
                attempts[-1]["status"] += " (schedule rejected by the checker)"
        if status.startswith("INFEASIBLE"):
            lower = target
            step *= 2
        else:
            step //= 2
            if step < 1:
                break
    return DestructiveResult(lower=min(lower, upper), upper=upper, starts=best, attempts=attempts)


def solve_destructive(instance: Instance, *, time_limit: float = 60.0, threads: int = 2, incumbent=None,
                      pipeline_share: float = PIPELINE_SHARE, verbose: bool = False):
    """The pipeline for ``pipeline_share`` of ``time_limit``, then destructive bounds in the rest.

    Returns a :class:`kvlib.optimum.result.SolveResult` (``formulation="pipeline+destructive"``) with the
    pipeline's ``extra`` plus ``destructive_attempts``, ``pipeline_lower`` and ``pipeline_upper``; ``proved_by``
    names this stage's step (its LP or the destructive bound) when it closed the gap.  ``incumbent`` goes to
    the pipeline (checked there).  Skips the stage (named in ``notes``) when the LP is too large for the time
    left.
    """
    from kvlib.optimum.bounds import latest_starts
    from kvlib.optimum.pipeline import LP_NNZ_PER_SECOND, solve_pipeline
    from kvlib.optimum.result import SolveResult, _validate_solve_args, unproved_status
    from kvlib.optimum.timelp import lp_size, time_indexed_lp

    _validate_solve_args(time_limit, threads)
    if not (isinstance(pipeline_share, (int, float)) and 0 < pipeline_share <= 1):
        raise ValueError(f"pipeline_share must be in (0, 1], got {pipeline_share!r}")
    tic = time.perf_counter()

    def left() -> float:
        return float(time_limit) - (time.perf_counter() - tic)

    def log(msg: str) -> None:
        if verbose:
            print(f"[kvlib.solve {time.perf_counter() - tic:6.1f}s] {msg}", file=sys.stderr, flush=True)

    res = solve_pipeline(instance, time_limit=pipeline_share * float(time_limit), threads=threads,
                         incumbent=incumbent, verbose=verbose)
    extra = dict(res.extra)
    notes = list(extra.get("notes", []))
    extra.update(pipeline_lower=int(res.lower), pipeline_upper=int(res.upper), destructive_attempts=[])
    lower, upper, starts, status = int(res.lower), int(res.upper), np.asarray(res.starts), res.status
    if not res.optimal:
        latest = latest_starts(instance, upper)
        _, nnz = lp_size(instance, latest)
        budget = left() - 1.0
        if nnz > LP_NNZ_PER_SECOND * max(budget, 0.0) * 0.5:
            notes.append(f"destructive bounds skipped: the LP ({nnz} non-zeros) is too large for {budget:.1f} s")
        else:
            lp = time_indexed_lp(instance, latest, time_limit=0.5 * budget, threads=1)
            log(f"destructive stage: LP bound {lp.bound} ({lp.status})")
            if not lp.rounds:
                notes.append(f"destructive bounds skipped: the LP solved no round ({lp.status})")
            else:
                source = "time-indexed LP of the destructive stage"
                if lp.bound > lower:
                    lower = min(int(lp.bound), upper)
                    extra["lower_source"] = source
                if lower < upper:
                    d = destructive_bound(instance, lp, latest, lower, upper, starts, time_limit=left() - 0.5,
                                          workers=threads, log=log if verbose else None)
                    extra["destructive_attempts"] = d.attempts
                    if d.upper < upper:
                        starts, upper = d.starts, d.upper
                    if d.lower > lower:
                        lower, source = d.lower, "destructive bound"
                        extra["lower_source"] = source
                if lower >= upper and not extra.get("proved_by"):  # whichever step of this stage closed the gap
                    extra["proved_by"] = source
                    status = f"Optimal ({source})"
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in starts)))
    if not rep.valid or rep.tel != upper:  # pragma: no cover - defensive
        raise RuntimeError("internal error: reported schedule rejected by the checker")
    extra["notes"] = notes
    # "Time limit reached" only when the time was spent (issue #50)
    base_status = (status.split("; ")[0] if lower >= upper
                   else unproved_status(time.perf_counter() - tic, time_limit, bool(notes)))
    return SolveResult(
        lower=lower, upper=upper, optimal=lower >= upper, starts=tuple(int(p) for p in starts),
        status=base_status + ("; " + "; ".join(notes) if notes else ""), seconds=time.perf_counter() - tic,
        incumbent=res.incumbent, incumbent_source=res.incumbent_source, horizon=res.horizon,
        num_vars=res.num_vars, num_rows=0, formulation="pipeline+destructive", extra=extra)
