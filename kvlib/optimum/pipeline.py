"""The certified solve pipeline for the hindsight optimum of 001 Section 3 (ours).

Steps, each valid on its own (the result records which step proved what):

0. **Incumbent**: the best checked schedule of the non-preemptive policies of
   :func:`kvlib.optimum.heuristic.heuristic_incumbent` (time-boxed), or the caller's
   (validated by :func:`kvlib.core.checker.check_schedule`; an infeasible one raises
   :class:`~kvlib.optimum.result.InfeasibleIncumbentError`).
0b. **Primal search**: the list scheduling with iterated local search of
   :func:`kvlib.optimum.search.primal_search` (at most ``SEARCH_EVALUATIONS`` lists, a
   ``SEARCH_SHARE`` of the time limit), seeded with the incumbent; its best schedule (checked)
   becomes the incumbent.  Measured in ``benchmarks/primal_search.py``: it beats the policies'
   schedules and the CP-SAT upper-bound search at equal time on the instances of 001 Section 5.1.
   When the time-indexed LP of step 2 will run, the search takes the slot of step 1b instead
   (``UPPER_SHARE`` of the limit; step 1b is then skipped), so that the LP, the source of the lower
   bound, keeps its share: with ``SEARCH_SHARE`` on top, the Section 5.1 rows lost up to 8% of their
   lower bound where the LP ran.
1. **Cheap bounds**: the volume bound and the completion-time LP of
   :func:`kvlib.optimum.bounds.separation_lower_bound` with the conflict families of
   :func:`kvlib.optimum.bounds.clique_families` (including the per-pair
   :func:`~kvlib.optimum.bounds.tightened_families`).
1b. **Upper-bound search**: CP-SAT on the exact cumulative encoding of
   :func:`kvlib.optimum.cpsat.cpsat_solve` (child process), hinted with the incumbent, for a
   share of the time limit (``UPPER_SHARE``; ``UPPER_SHARE_NO_LP`` when the LP will not fit);
   a better checked schedule becomes the incumbent, which tightens the windows of
   :func:`kvlib.optimum.bounds.latest_starts` for the LP and the fixing of step 3.
   Measured: from ``n = 20`` on, this model finds better schedules within seconds than the
   event model of step 4 does in the rest of the budget (``benchmarks/exact_scaling.py``).
2. **Time-indexed LP** with family rows, added lazily (:mod:`kvlib.optimum.timelp`);
   its safe dual value is a bound after every round.  The LP uses one thread; with
   ``threads >= 2`` a second upper-bound search runs beside it (:class:`kvlib.optimum.cpsat.CpSatJob`)
   and is stopped when the LP ends, keeping its best schedule.
3. **Reduced-cost fixing** (:func:`kvlib.optimum.timelp.reduced_cost_fixing`): starts
   that no schedule better than the incumbent can use are removed.
4. **Exact search** (for ``n <= EXACT_SEARCH_MAX_N``; above, the time left goes to a last
   upper-bound search as in step 1b) with the event-based CP-SAT model of
   :func:`kvlib.optimum.cpsat.event_solve` (child process) over the remaining starts with
   ``TEL <= UB - 1``: ``INFEASIBLE`` proves the incumbent optimal; a found schedule becomes
   the incumbent (checked); ``OPTIMAL`` proves it optimal.  The model also carries the
   LP's Lagrangian inequality (reduced costs; re-applied under every branching decision),
   one no-overlap per conflict family and the exact cumulative encoding of memory.

Budget (measured on 2 loaded cores, ``benchmarks/exact_scaling.py``): the separation LP gets
``min(5, 0.1 T)`` s, the upper-bound search ``0.15 T`` (``0.5 T`` without the LP), the time-indexed LP up to ``0.5 T`` (skipped when its estimated size
exceeds ``LP_NNZ_PER_SECOND`` non-zeros per second of budget), the exact search the rest.
The restarts after an improvement (``MAX_RESTARTS``) are off: at ``n = 15`` each cost
5-6 s of child start-up and presolve, more than the re-fixing saved.

Soundness of combining the steps: the windows ``L_j`` of
:func:`kvlib.optimum.bounds.latest_starts` contain every optimal schedule; if some
schedule beats ``UB`` then an optimal one does, lies in the windows and (as it beats
``UB``) keeps all its starts after step 3; permuting identical requests keeps all this, so
the ordered one is found by step 4.  Hence ``INFEASIBLE`` in step 4 means ``OPT = UB``,
and CP-SAT's bound ``b`` gives ``OPT >= min(b, UB)``.

Every stage gets a share of the time limit; stages that cannot fit (model too large for
the time left) are skipped and named in ``notes`` -- never silently.  The call returns
within the time limit (plus at most about a second of clean-up) at any ``n``.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule

#: share of the time limit given to the primal list search of step 0b (:mod:`kvlib.optimum.search`) ...
SEARCH_SHARE = 0.3
#: ... and at most this many list decodes (its list search only; no CP-SAT windows: their models are
#: slow to build when time values are large)
SEARCH_EVALUATIONS = 20_000
#: the time-indexed LP is skipped when its estimated non-zeros exceed this many per second of budget
LP_NNZ_PER_SECOND = 60_000
#: the CP-SAT event model has ``n (n - 1)`` pair blocks; above this ``n`` it is skipped
EVENT_MAX_N = 120
#: above this ``n`` the exact search of step 4 is not run and its time goes to the upper-bound search
#: (measured, ``benchmarks/exact_scaling.py``, 60 s: at ``n = 20`` it neither proved an instance nor moved a
#: bound, before or after step 1b, while the upper-bound search kept finding better schedules; it proved
#: instances at ``n = 10``-``15``)
EXACT_SEARCH_MAX_N = 15
#: the CP-SAT upper-bound search (step 1b) is skipped above this ``n`` (its model has ``sum o_i`` intervals)
UPPER_MAX_N = 400
#: ... and above this many intervals (``sum o_i``, one per round of every request)
UPPER_MAX_INTERVALS = 100_000
#: the event model of step 4 is skipped above this many candidate starts in all (its domains)
EVENT_MAX_STARTS = 1_000_000
#: its share of the time limit before the time-indexed LP (which then runs beside a second search)
UPPER_SHARE = 0.15
#: its share when the time-indexed LP will be skipped as too large
UPPER_SHARE_NO_LP = 0.5
#: how often the exact search restarts after an improvement (with re-fixed domains)
MAX_RESTARTS = 0  # restarts at every small improvement cost 5-6 s each on loaded cores (n = 15), more than they saved


def _have_ortools() -> bool:
    import importlib.util

    return importlib.util.find_spec("ortools") is not None


def solve_pipeline(instance: Instance, *, time_limit: float = 60.0, threads: int = 2, incumbent=None,
                   verbose: bool = False, lp: bool = True, event: bool = True, cumulative: int = 2,
                   lagrangian_cut: bool = True, cp_params: dict | None = None, cp_search: bool = False,
                   family_no_overlap: bool = True, upper_search: bool = True, search: float = SEARCH_SHARE):
    """Certified interval ``lower <= OPT <= upper`` by the pipeline of the module docstring.

    Returns a :class:`kvlib.optimum.result.SolveResult` (``formulation="pipeline"``); its
    ``extra`` holds ``proved_by`` (the step that closed the gap, or ``""``), ``notes`` (skipped
    stages and why), the bounds of every step and their times.  ``lp=False`` / ``event=False``
    switch steps 2-3 / 4 off (for measurements), ``upper_search=False`` step 1b; ``search`` is the share
    of the time limit for step 0b (0 skips it).  Progress goes to stderr when ``verbose``.
    """
    from kvlib.optimum.bounds import latest_starts, separation_lower_bound, volume_lower_bound
    from kvlib.optimum.heuristic import heuristic_incumbent_timed
    from kvlib.optimum.result import SolveResult, _validate_solve_args

    _validate_solve_args(time_limit, threads)
    tic = time.perf_counter()
    deadline = tic + float(time_limit)

    def left() -> float:
        return deadline - time.perf_counter()

    def log(msg: str) -> None:
        if verbose:
            print(f"[kvlib.solve {time.perf_counter() - tic:6.1f}s] {msg}", file=sys.stderr, flush=True)

    notes: list[str] = []
    timing: dict[str, float] = {}
    n = instance.n
    # step 0: incumbent
    if incumbent is None:
        inc_starts, inc_tel, inc_src = heuristic_incumbent_timed(instance, budget=0.25 * time_limit, notes=notes)
    else:
        from kvlib.optimum.result import _check_incumbent

        inc_starts, inc_tel, inc_src = _check_incumbent(instance, incumbent)
    heur_tel = int(inc_tel)
    timing["heuristic_seconds"] = time.perf_counter() - tic
    log(f"incumbent {inc_tel} ({inc_src})")
    best_starts, best_tel, src = np.asarray(inc_starts, dtype=np.int64), int(inc_tel), inc_src
    search_ub = None
    # step 0b: primal list search seeded with the incumbent (validated schedules only); when the LP will run,
    # in the slot of step 1b (skipped then), so that the LP keeps its time
    lp_slot = False
    if search and n > 1 and left() > 0.5:
        from kvlib.optimum.search import primal_search

        share = float(search)
        if lp and upper_search and n <= UPPER_MAX_N and sum(instance.output.tolist()) <= UPPER_MAX_INTERVALS \
                and _have_ortools():  # step 1b would run
            from kvlib.optimum.timelp import lp_size

            if lp_size(instance, latest_starts(instance, best_tel))[1] <= LP_NNZ_PER_SECOND * 0.5 * time_limit:
                share, lp_slot = min(share, UPPER_SHARE), True
                notes.append("primal search: in the slot of the CP-SAT upper-bound search (the time-indexed LP "
                             "will run)")
        t0 = time.perf_counter()
        sr = primal_search(instance, evaluations=SEARCH_EVALUATIONS, windows=0, incumbent=best_starts,
                           time_limit=max(0.05, min(share * time_limit, left() - 0.5)))
        timing["search_seconds"] = time.perf_counter() - t0
        search_ub = int(sr.tel)
        if sr.stopped_by == "horizon":
            notes.append("primal search: list search skipped (its profile would span too many rounds)")
        if sr.tel < best_tel:
            best_starts, best_tel, src = np.asarray(sr.starts, dtype=np.int64), int(sr.tel), \
                f"primal search ({sr.source}, from {heur_tel})"
        log(f"primal search: {sr.tel} ({sr.source}, {sr.evaluations} lists, {sr.seconds:.2f} s)")
    # step 1: cheap bounds
    lower, lower_src = volume_lower_bound(instance), "volume bound"
    bounds = {"volume_lb": lower, "separation_lb": lower}  # separation_lb: the volume bound if the LP did not run
    if search_ub is not None:
        bounds["search_ub"] = search_ub
    sep_budget = min(5.0, 0.1 * time_limit, max(0.0, left() - 0.5))
    if lower < best_tel and sep_budget > 0.2:
        t0 = time.perf_counter()
        sep = separation_lower_bound(instance, time_limit=sep_budget)
        timing["separation_seconds"] = time.perf_counter() - t0
        bounds["separation_lb"] = int(sep["bound"])
        if sep["bound"] > lower:
            lower, lower_src = int(sep["bound"]), "separation LP"
        log(f"separation LP bound {sep['bound']} ({'converged' if sep['converged'] else 'not converged'})")
    elif lower < best_tel:
        notes.append("separation LP skipped: no time left")
    proved_by = lower_src if lower >= best_tel else ""
    status = f"Optimal ({lower_src})" if proved_by else "Time limit reached"
    num_vars = 0
    domains = None
    lp_result = None
    latest = latest_starts(instance, best_tel)
    have_cpsat = _have_ortools()
    if upper_search and not have_cpsat:
        notes.append("CP-SAT upper-bound search skipped: OR-Tools is not installed")
    intervals = int(instance.output.sum())
    if upper_search and have_cpsat and n <= UPPER_MAX_N and intervals > UPPER_MAX_INTERVALS:
        notes.append(f"CP-SAT upper-bound search skipped: its model would hold {intervals:,} intervals (one per "
                     f"round of every request; limit {UPPER_MAX_INTERVALS:,})")
    upper_search = upper_search and have_cpsat and n <= UPPER_MAX_N and intervals <= UPPER_MAX_INTERVALS

    def take(cr, stage: str) -> None:
        """Adopt a CP-SAT schedule that the checker accepts and that beats the incumbent; record its bound."""
        nonlocal best_starts, best_tel, src, lower, lower_src, proved_by, status, latest
        if cr.starts is not None:
            rep = check_schedule(instance, Schedule(tuple(int(p) for p in cr.starts)))
            if rep.valid and rep.tel < best_tel:
                best_starts, best_tel, src = np.asarray(cr.starts, dtype=np.int64), int(rep.tel), \
                    f"cp-sat cumulative model (from {heur_tel})"
                latest = np.minimum(latest, latest_starts(instance, best_tel))
            elif not rep.valid:  # pragma: no cover - would be a modelling error
                notes.append(f"{stage}: schedule rejected by the checker (ignored)")
        if cr.status == "OPTIMAL" and cr.tel is not None and int(cr.tel) == best_tel:
            # CP-SAT's proved optimum is the incumbent's TEL (a rejected schedule proves nothing)
            lower, lower_src = best_tel, stage
        elif cr.bound > lower and cr.status in ("FEASIBLE", "OPTIMAL"):
            # the exact encoding over sound windows: its bound holds for OPT (capped by the incumbent)
            lower, lower_src = min(int(cr.bound), best_tel), stage
        if lower >= best_tel and not proved_by:
            proved_by, status = stage, f"Optimal ({stage})"
        bounds[stage_key[stage]] = best_tel

    stage_key = {"CP-SAT upper-bound search": "cpsat_upper", "CP-SAT upper-bound search beside the LP": "cpsat_upper_lp",
                 "CP-SAT upper-bound search after the LP": "cpsat_upper_end"}
    lp_plan = None
    # whether step 4 will run (above EXACT_SEARCH_MAX_N its time goes to the upper-bound search)
    exact_search = event and n <= EVENT_MAX_N and (n <= EXACT_SEARCH_MAX_N or not upper_search)
    if not proved_by and lp:
        from kvlib.optimum.timelp import lp_size

        share = 0.5 if exact_search or upper_search else 0.95
        ncols, nnz = lp_size(instance, latest)
        lp_plan = (share, ncols, nnz)
    # step 1b: upper-bound search (CP-SAT on the exact cumulative encoding, hinted with the incumbent)
    slot_taken = lp_slot and lp_plan is not None and lp_plan[2] <= LP_NNZ_PER_SECOND * lp_plan[0] * time_limit
    if not proved_by and upper_search and not slot_taken:  # skipped when step 0b searched in its slot
        lp_fits = lp_plan is not None and lp_plan[2] <= LP_NNZ_PER_SECOND * min(lp_plan[0] * time_limit, left())
        if lp_fits:
            ub_budget = UPPER_SHARE * time_limit
        elif exact_search:
            ub_budget = UPPER_SHARE_NO_LP * time_limit
        else:  # nothing else will run: the whole budget
            ub_budget = left()
        ub_budget = min(ub_budget, left() - 1.0)
        if ub_budget >= 2.0:
            from kvlib.optimum.cpsat import cpsat_solve_subprocess

            t0 = time.perf_counter()
            cr = cpsat_solve_subprocess(instance, time_limit=ub_budget, workers=threads, hint=best_starts,
                                        upper=best_tel)
            timing["upper_search_seconds"] = time.perf_counter() - t0
            if cr.status.startswith("cp-sat child failed"):
                notes.append(f"CP-SAT upper-bound search: {cr.status}")
            else:
                take(cr, "CP-SAT upper-bound search")
            log(f"CP-SAT upper-bound search: {cr.status}, incumbent {best_tel}, bound {cr.bound}")
    # step 2-3: time-indexed LP and reduced-cost fixing
    if not proved_by and lp:
        from kvlib.optimum.timelp import lp_size, reduced_cost_fixing, time_indexed_lp

        share = lp_plan[0]
        budget = min(share * time_limit, left() - 1.0)
        ncols, nnz = lp_size(instance, latest)
        num_vars = ncols
        planned = share * time_limit
        if nnz > LP_NNZ_PER_SECOND * planned:
            notes.append(f"time-indexed LP skipped: {nnz} non-zeros is too large for {planned:.1f} s "
                         f"(limit {LP_NNZ_PER_SECOND} per second)")
        elif budget <= 0.5:
            notes.append("time-indexed LP skipped: no time left")
        elif nnz > LP_NNZ_PER_SECOND * budget:
            notes.append(f"time-indexed LP skipped: {nnz} non-zeros is too large for {budget:.1f} s "
                         f"(limit {LP_NNZ_PER_SECOND} per second)")
        else:
            t0 = time.perf_counter()
            job = None
            if upper_search and threads >= 2 and budget >= 3.0:
                # the LP uses one thread: the other searches for better schedules meanwhile
                from kvlib.optimum.cpsat import CpSatJob

                job = CpSatJob(instance, time_limit=budget, workers=threads - 1, hint=best_starts, upper=best_tel,
                               seed=1)
            r = time_indexed_lp(instance, latest, time_limit=budget, threads=1, log=log if verbose else None)
            if job is not None:
                cr = job.result(stop=True)
                timing["upper_search_lp_seconds"] = time.perf_counter() - t0
                if cr.status.startswith("cp-sat child failed"):
                    notes.append(f"CP-SAT upper-bound search beside the LP: {cr.status}")
                else:
                    take(cr, "CP-SAT upper-bound search beside the LP")
                log(f"CP-SAT beside the LP: {cr.status}, incumbent {best_tel}")
            if r.rounds:
                lp_result = r
            timing["lp_seconds"] = time.perf_counter() - t0
            bounds["lp_lb"] = int(r.bound)
            bounds["lp_rounds"] = int(r.rounds)
            bounds["lp_family_rows"] = int(r.family_rows)
            bounds["lp_converged"] = bool(r.converged)
            log(f"time-indexed LP bound {r.bound} after {r.rounds} rounds ({r.status})")
            if r.rounds == 0:
                notes.append(f"time-indexed LP: no round solved ({r.status})")
            else:
                if r.bound > lower:
                    lower, lower_src = min(int(r.bound), best_tel), "time-indexed LP"
                if proved_by:
                    pass  # the search beside the LP closed the gap
                elif lower >= best_tel:
                    proved_by, status = lower_src, f"Optimal ({lower_src})"
                else:
                    allowed = reduced_cost_fixing(r, best_tel)
                    # within the windows of the incumbent (tighter if the search beside the LP improved it)
                    domains = [allowed[i][allowed[i] <= latest[i]] for i in range(n)]
                    kept = int(sum(len(d) for d in domains))
                    bounds["starts_after_fixing"] = kept
                    bounds["starts_before_fixing"] = int(len(r.req))
                    log(f"reduced-cost fixing keeps {kept} of {len(r.req)} starts")
                    if any(len(d) == 0 for d in domains):
                        lower, proved_by = best_tel, "reduced-cost fixing"
                        status = "Optimal (reduced-cost fixing: no start left for some request)"
    # above EXACT_SEARCH_MAX_N the time left goes to the upper-bound search instead of step 4
    if not proved_by and upper_search and event and not exact_search and left() - 1.0 >= 2.0:
        from kvlib.optimum.cpsat import cpsat_solve_subprocess

        t0 = time.perf_counter()
        cr = cpsat_solve_subprocess(instance, time_limit=left() - 1.0, workers=threads, hint=best_starts,
                                    upper=best_tel, seed=2)
        timing["upper_search_end_seconds"] = time.perf_counter() - t0
        if cr.status.startswith("cp-sat child failed"):
            notes.append(f"CP-SAT upper-bound search after the LP: {cr.status}")
        else:
            take(cr, "CP-SAT upper-bound search after the LP")
        log(f"CP-SAT upper-bound search after the LP: {cr.status}, incumbent {best_tel}")
    # step 4: exact search
    cp_status = ""
    if not proved_by and event:
        budget = left() - 0.5
        if n > EVENT_MAX_N:
            notes.append(f"CP-SAT event model skipped: n = {n} > {EVENT_MAX_N}")
        elif n > EXACT_SEARCH_MAX_N and upper_search:
            notes.append(f"CP-SAT event model not run: n = {n} > {EXACT_SEARCH_MAX_N}, its time went to the "
                         "upper-bound search")
        elif budget < 2.5:
            notes.append(f"CP-SAT event model skipped: {max(budget, 0):.1f} s left")
        else:
            if not have_cpsat:
                notes.append("CP-SAT event model skipped: OR-Tools is not installed")
            else:
                from kvlib.optimum.cpsat import event_solve_subprocess

                n_starts = (int(sum(len(d) for d in domains)) if domains is not None
                            else int((np.maximum(latest - instance.arrival, 0) + 1).sum()))
                if n_starts > EVENT_MAX_STARTS:
                    notes.append(f"CP-SAT event model skipped: {n_starts:,} candidate starts (limit "
                                 f"{EVENT_MAX_STARTS:,})")
                    domains = None
                elif domains is None:
                    domains = [np.arange(instance.arrival[i], latest[i] + 1) for i in range(n)]

                t0 = time.perf_counter()
                restarts = 0
                while domains is not None:
                    budget = left() - 0.5
                    if budget < 2.5:
                        break
                    ub0 = best_tel
                    # stop at the first improvement (then re-fix with the better bound and restart),
                    # at most MAX_RESTARTS times
                    stop_first = restarts < MAX_RESTARTS
                    cr = event_solve_subprocess(
                        instance, domains, upper=ub0, time_limit=budget - 0.5,
                        workers=threads, cumulative=cumulative, params=cp_params, search=cp_search,
                        family_no_overlap=family_no_overlap, stop_first=stop_first,
                        lagrangian=lp_result.lagrangian() if lp_result is not None and lagrangian_cut else None)
                    cp_status = cr.status
                    log(f"CP-SAT event model: {cr.status}, tel {cr.tel}, bound {cr.bound}")
                    improved = False
                    if cr.starts is not None:
                        rep = check_schedule(instance, Schedule(tuple(int(p) for p in cr.starts)))
                        if rep.valid and rep.tel < best_tel:
                            best_starts, best_tel, src = cr.starts, int(rep.tel), f"cp-sat event model (from {heur_tel})"
                            improved = True
                        elif not rep.valid:  # pragma: no cover - would be a modelling error
                            notes.append("CP-SAT event schedule rejected by the checker (ignored)")
                    if cr.status.startswith("cp-sat child failed"):
                        notes.append(cr.status)
                        break
                    if cr.status == "INFEASIBLE":
                        lower, proved_by = ub0, "CP-SAT event model"
                        status = "Optimal (CP-SAT event model: no better schedule)"
                        break
                    if cr.status == "OPTIMAL" and improved:
                        lower, proved_by, status = best_tel, "CP-SAT event model", "Optimal (CP-SAT event model)"
                        break
                    if cr.bound > lower and cr.status != "MODEL_INVALID":
                        # valid also when the search stopped early (stop_first): OPT >= min(bound, ub0)
                        lower, lower_src = min(int(cr.bound), ub0), "CP-SAT event model"
                    if not (stop_first and improved):
                        break
                    restarts += 1
                    # re-fix with the better incumbent: tighter windows and reduced-cost fixing
                    latest = np.minimum(latest, latest_starts(instance, best_tel))
                    if lp_result is not None:
                        from kvlib.optimum.timelp import reduced_cost_fixing

                        allowed = reduced_cost_fixing(lp_result, best_tel)
                        domains = [allowed[i][allowed[i] <= latest[i]] for i in range(n)]
                    else:
                        domains = [d[d <= latest[i]] for i, d in enumerate(domains)]
                    log(f"incumbent {best_tel}: {int(sum(len(d) for d in domains))} starts left; restart")
                    if lower >= best_tel:
                        proved_by = lower_src
                        break
                    if any(len(d) == 0 for d in domains):
                        lower, proved_by = best_tel, "reduced-cost fixing"
                        status = "Optimal (reduced-cost fixing: no start left for some request)"
                        break
                timing["event_seconds"] = time.perf_counter() - t0
                bounds["event_restarts"] = restarts
    lower = int(min(lower, best_tel))
    if lower >= best_tel and not proved_by:
        proved_by = lower_src
        status = f"Optimal ({lower_src})"
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in best_starts)))
    if not rep.valid or rep.tel != best_tel:  # pragma: no cover - defensive
        raise RuntimeError("internal error: reported schedule rejected by the checker")
    res = SolveResult(
        lower=lower, upper=best_tel, optimal=lower >= best_tel, starts=tuple(int(p) for p in best_starts),
        status=status + ("; " + "; ".join(notes) if notes else ""), seconds=time.perf_counter() - tic,
        incumbent=heur_tel, incumbent_source=src, horizon=int((latest + instance.output).max()),
        num_vars=num_vars, num_rows=0, formulation="pipeline",
        extra={"proved_by": proved_by, "lower_source": proved_by or lower_src, "notes": notes,
               "cpsat_status": cp_status, **bounds, **timing},
    )
    log(f"done: [{res.lower}, {res.upper}] {res.status}")
    return res
