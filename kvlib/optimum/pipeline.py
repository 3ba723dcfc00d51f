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

Code: :func:`solve_pipeline` calls one function per step, which share a :class:`PipelineState` (clock,
incumbent, lower bound, notes): :func:`step_incumbent` (0), :func:`step_primal_search` (0b),
:func:`step_cheap_bounds` (1), :func:`step_upper_search` (1b), :func:`step_time_indexed_lp` (2-3),
:func:`step_upper_search_end` and :func:`step_exact_search` (4), :func:`step_peak_conflict` (5: the
peak-conflict MIP for the time the others left unused, ``n <= PEAK_MIP_MAX_N``); :func:`pipeline_result`
builds the result (its status says "Time limit reached" only when the time was spent).

Every stage gets a share of the time limit; stages that cannot fit (model too large for
the time left) are skipped and named in ``notes`` -- never silently.  The call returns
within the time limit (plus at most about a second of clean-up) at any ``n``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

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
#: the peak-conflict MIP of :func:`kvlib.optimum.bounds.peak_conflict_bound` (step 5) runs up to this ``n``
#: (as in :func:`kvlib.optimum.exact.solve_ip`; HiGHS rarely solves it beyond ``n = 15``)
PEAK_MIP_MAX_N = 12
#: how often the exact search restarts after an improvement (with re-fixed domains)
MAX_RESTARTS = 0  # restarts at every small improvement cost 5-6 s each on loaded cores (n = 15), more than they saved


def _have_ortools() -> bool:
    import importlib.util

    return importlib.util.find_spec("ortools") is not None



#: the stage names of the CP-SAT upper-bound searches and the key of ``extra`` that records their incumbent
STAGE_KEY = {"CP-SAT upper-bound search": "cpsat_upper", "CP-SAT upper-bound search beside the LP": "cpsat_upper_lp",
             "CP-SAT upper-bound search after the LP": "cpsat_upper_end"}


@dataclass
class PipelineState:
    """What the steps of :func:`solve_pipeline` share: the clock, the incumbent, the lower bound and the
    record (``notes``, ``bounds``, ``timing``) that becomes the result's ``extra``."""

    instance: Instance
    time_limit: float
    threads: int
    verbose: bool
    tic: float
    notes: list = field(default_factory=list)
    timing: dict = field(default_factory=dict)
    bounds: dict = field(default_factory=dict)
    best_starts: np.ndarray | None = None
    best_tel: int = 0
    src: str = ""
    heur_tel: int = 0
    lower: int = 0
    lower_src: str = ""
    proved_by: str = ""
    status: str = ""
    latest: np.ndarray | None = None
    num_vars: int = 0
    domains: list | None = None
    lp_result: object = None
    cp_status: str = ""

    def left(self) -> float:
        """Seconds left of the time limit."""
        return self.tic + float(self.time_limit) - time.perf_counter()

    def log(self, msg: str) -> None:
        if self.verbose:
            print(f"[kvlib.solve {time.perf_counter() - self.tic:6.1f}s] {msg}", file=sys.stderr, flush=True)

    def prove(self, stage: str, status: str | None = None) -> None:
        """The incumbent is optimal, proved by ``stage``."""
        self.lower, self.proved_by = self.best_tel, stage
        self.status = status or f"Optimal ({stage})"


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
    from kvlib.optimum.result import _validate_solve_args

    _validate_solve_args(time_limit, threads)
    st = PipelineState(instance, time_limit, threads, verbose, time.perf_counter())
    step_incumbent(st, incumbent)
    lp_slot = step_primal_search(st, search, lp and upper_search) if search and instance.n > 1 and st.left() > 0.5 \
        else False
    step_cheap_bounds(st)
    upper_search = _upper_search_runs(st, upper_search)
    n = instance.n
    # whether step 4 will run (above EXACT_SEARCH_MAX_N its time goes to the upper-bound search)
    exact_search = event and n <= EVENT_MAX_N and (n <= EXACT_SEARCH_MAX_N or not upper_search)
    lp_plan = None
    if not st.proved_by and lp:
        from kvlib.optimum.timelp import lp_size

        lp_plan = (0.5 if exact_search or upper_search else 0.95, *lp_size(instance, st.latest))
    # step 1b is skipped when step 0b searched in its slot
    slot_taken = lp_slot and lp_plan is not None and lp_plan[2] <= LP_NNZ_PER_SECOND * lp_plan[0] * time_limit
    if not st.proved_by and upper_search and not slot_taken:
        step_upper_search(st, lp_plan, exact_search)
    if not st.proved_by and lp:
        step_time_indexed_lp(st, lp_plan[0], upper_search)
    # above EXACT_SEARCH_MAX_N the time left goes to the upper-bound search instead of step 4
    if not st.proved_by and upper_search and event and not exact_search and st.left() - 1.0 >= 2.0:
        step_upper_search_end(st)
    if not st.proved_by and event:
        step_exact_search(st, upper_search, cumulative=cumulative, params=cp_params, search=cp_search,
                          family_no_overlap=family_no_overlap, lagrangian_cut=lagrangian_cut)
    if not st.proved_by and instance.n <= PEAK_MIP_MAX_N and st.left() > 1.0:
        step_peak_conflict(st)
    return pipeline_result(st)


def step_incumbent(st: PipelineState, incumbent) -> None:
    """Step 0: the heuristics' best checked schedule (a quarter of the limit), or the caller's (checked)."""
    from kvlib.optimum.heuristic import heuristic_incumbent_timed

    if incumbent is None:
        inc_starts, inc_tel, inc_src = heuristic_incumbent_timed(st.instance, budget=0.25 * st.time_limit,
                                                                 notes=st.notes)
    else:
        from kvlib.optimum.result import _check_incumbent

        inc_starts, inc_tel, inc_src = _check_incumbent(st.instance, incumbent)
    st.heur_tel = int(inc_tel)
    st.timing["heuristic_seconds"] = time.perf_counter() - st.tic
    st.log(f"incumbent {inc_tel} ({inc_src})")
    st.best_starts, st.best_tel, st.src = np.asarray(inc_starts, dtype=np.int64), int(inc_tel), inc_src


def step_primal_search(st: PipelineState, search: float, lp_and_upper: bool) -> bool:
    """Step 0b: the primal list search seeded with the incumbent (checked schedules only).  Returns whether it
    ran in the slot of step 1b (when the time-indexed LP will run, so that the LP keeps its time)."""
    from kvlib.optimum.bounds import latest_starts
    from kvlib.optimum.search import primal_search

    instance, time_limit = st.instance, st.time_limit
    share, lp_slot = float(search), False
    if lp_and_upper and instance.n <= UPPER_MAX_N and sum(instance.output.tolist()) <= UPPER_MAX_INTERVALS \
            and _have_ortools():  # step 1b would run
        from kvlib.optimum.timelp import lp_size

        if lp_size(instance, latest_starts(instance, st.best_tel))[1] <= LP_NNZ_PER_SECOND * 0.5 * time_limit:
            share, lp_slot = min(share, UPPER_SHARE), True
            st.notes.append("primal search: in the slot of the CP-SAT upper-bound search (the time-indexed LP "
                            "will run)")
    t0 = time.perf_counter()
    sr = primal_search(instance, evaluations=SEARCH_EVALUATIONS, windows=0, incumbent=st.best_starts,
                       time_limit=max(0.05, min(share * time_limit, st.left() - 0.5)))
    st.timing["search_seconds"] = time.perf_counter() - t0
    st.bounds["search_ub"] = int(sr.tel)
    if sr.stopped_by == "horizon":
        st.notes.append("primal search: list search skipped (its profile would span too many rounds)")
    if sr.tel < st.best_tel:
        st.best_starts, st.best_tel = np.asarray(sr.starts, dtype=np.int64), int(sr.tel)
        st.src = f"primal search ({sr.source}, from {st.heur_tel})"
    st.log(f"primal search: {sr.tel} ({sr.source}, {sr.evaluations} lists, {sr.seconds:.2f} s)")
    return lp_slot


def step_cheap_bounds(st: PipelineState) -> None:
    """Step 1: the volume bound and the separation LP (at most ``min(5, 0.1 T)`` s); sets the windows."""
    from kvlib.optimum.bounds import latest_starts, separation_lower_bound, volume_lower_bound

    st.lower, st.lower_src = volume_lower_bound(st.instance), "volume bound"
    search_ub = st.bounds.pop("search_ub", None)
    # separation_lb: the volume bound if the LP did not run
    st.bounds.update({"volume_lb": st.lower, "separation_lb": st.lower})
    if search_ub is not None:
        st.bounds["search_ub"] = search_ub
    sep_budget = min(5.0, 0.1 * st.time_limit, max(0.0, st.left() - 0.5))
    if st.lower < st.best_tel and sep_budget > 0.2:
        t0 = time.perf_counter()
        sep = separation_lower_bound(st.instance, time_limit=sep_budget)
        st.timing["separation_seconds"] = time.perf_counter() - t0
        st.bounds["separation_lb"] = int(sep["bound"])
        if sep["bound"] > st.lower:
            st.lower, st.lower_src = int(sep["bound"]), "separation LP"
        st.log(f"separation LP bound {sep['bound']} ({'converged' if sep['converged'] else 'not converged'})")
    elif st.lower < st.best_tel:
        st.notes.append("separation LP skipped: no time left")
    st.proved_by = st.lower_src if st.lower >= st.best_tel else ""
    st.status = f"Optimal ({st.lower_src})" if st.proved_by else "Time limit reached"
    st.latest = latest_starts(st.instance, st.best_tel)


def _upper_search_runs(st: PipelineState, upper_search: bool) -> bool:
    """Whether the CP-SAT upper-bound searches may run (OR-Tools present, model small enough); a skip is noted."""
    have_cpsat = _have_ortools()
    if upper_search and not have_cpsat:
        st.notes.append("CP-SAT upper-bound search skipped: OR-Tools is not installed")
    n, intervals = st.instance.n, int(st.instance.output.sum())
    if upper_search and have_cpsat and n <= UPPER_MAX_N and intervals > UPPER_MAX_INTERVALS:
        st.notes.append(f"CP-SAT upper-bound search skipped: its model would hold {intervals:,} intervals (one "
                        f"per round of every request; limit {UPPER_MAX_INTERVALS:,})")
    return upper_search and have_cpsat and n <= UPPER_MAX_N and intervals <= UPPER_MAX_INTERVALS


def take(st: PipelineState, cr, stage: str) -> None:
    """Adopt a CP-SAT schedule that the checker accepts and that beats the incumbent; record its bound."""
    from kvlib.optimum.bounds import latest_starts

    if cr.starts is not None:
        rep = check_schedule(st.instance, Schedule(tuple(int(p) for p in cr.starts)))
        if rep.valid and rep.tel < st.best_tel:
            st.best_starts, st.best_tel = np.asarray(cr.starts, dtype=np.int64), int(rep.tel)
            st.src = f"cp-sat cumulative model (from {st.heur_tel})"
            st.latest = np.minimum(st.latest, latest_starts(st.instance, st.best_tel))
        elif not rep.valid:  # pragma: no cover - would be a modelling error
            st.notes.append(f"{stage}: schedule rejected by the checker (ignored)")
    if cr.status == "OPTIMAL" and cr.tel is not None and int(cr.tel) == st.best_tel:
        # CP-SAT's proved optimum is the incumbent's TEL (a rejected schedule proves nothing)
        st.lower, st.lower_src = st.best_tel, stage
    elif cr.bound > st.lower and cr.status in ("FEASIBLE", "OPTIMAL"):
        # the exact encoding over sound windows: its bound holds for OPT (capped by the incumbent)
        st.lower, st.lower_src = min(int(cr.bound), st.best_tel), stage
    if st.lower >= st.best_tel and not st.proved_by:
        st.proved_by, st.status = stage, f"Optimal ({stage})"
    st.bounds[STAGE_KEY[stage]] = st.best_tel


def _take_or_note(st: PipelineState, cr, stage: str) -> None:
    if cr.status.startswith("cp-sat child failed"):
        st.notes.append(f"{stage}: {cr.status}")
    else:
        take(st, cr, stage)


def step_upper_search(st: PipelineState, lp_plan, exact_search: bool) -> None:
    """Step 1b: CP-SAT on the exact cumulative encoding, hinted with the incumbent, for its share of the limit."""
    time_limit = st.time_limit
    lp_fits = lp_plan is not None and lp_plan[2] <= LP_NNZ_PER_SECOND * min(lp_plan[0] * time_limit, st.left())
    if lp_fits:
        ub_budget = UPPER_SHARE * time_limit
    elif exact_search:
        ub_budget = UPPER_SHARE_NO_LP * time_limit
    else:  # nothing else will run: the whole budget
        ub_budget = st.left()
    ub_budget = min(ub_budget, st.left() - 1.0)
    if ub_budget < 2.0:
        return
    from kvlib.optimum.cpsat import cpsat_solve_subprocess

    t0 = time.perf_counter()
    cr = cpsat_solve_subprocess(st.instance, time_limit=ub_budget, workers=st.threads, hint=st.best_starts,
                                upper=st.best_tel)
    st.timing["upper_search_seconds"] = time.perf_counter() - t0
    _take_or_note(st, cr, "CP-SAT upper-bound search")
    st.log(f"CP-SAT upper-bound search: {cr.status}, incumbent {st.best_tel}, bound {cr.bound}")


def step_time_indexed_lp(st: PipelineState, share: float, upper_search: bool) -> None:
    """Steps 2-3: the time-indexed LP with family rows (a second upper-bound search beside it when
    ``threads >= 2``), then reduced-cost fixing; skipped, with a note, when its size does not fit."""
    from kvlib.optimum.timelp import lp_size, time_indexed_lp

    time_limit = st.time_limit
    budget = min(share * time_limit, st.left() - 1.0)
    ncols, nnz = lp_size(st.instance, st.latest)
    st.num_vars = ncols
    planned = share * time_limit
    if nnz > LP_NNZ_PER_SECOND * planned:
        st.notes.append(f"time-indexed LP skipped: {nnz} non-zeros is too large for {planned:.1f} s "
                        f"(limit {LP_NNZ_PER_SECOND} per second)")
        return
    if budget <= 0.5:
        st.notes.append("time-indexed LP skipped: no time left")
        return
    if nnz > LP_NNZ_PER_SECOND * budget:
        st.notes.append(f"time-indexed LP skipped: {nnz} non-zeros is too large for {budget:.1f} s "
                        f"(limit {LP_NNZ_PER_SECOND} per second)")
        return
    t0 = time.perf_counter()
    job = None
    if upper_search and st.threads >= 2 and budget >= 3.0:
        # the LP uses one thread: the other searches for better schedules meanwhile
        from kvlib.optimum.cpsat import CpSatJob

        job = CpSatJob(st.instance, time_limit=budget, workers=st.threads - 1, hint=st.best_starts,
                       upper=st.best_tel, seed=1)
    r = time_indexed_lp(st.instance, st.latest, time_limit=budget, threads=1, log=st.log if st.verbose else None)
    if job is not None:
        cr = job.result(stop=True)
        st.timing["upper_search_lp_seconds"] = time.perf_counter() - t0
        _take_or_note(st, cr, "CP-SAT upper-bound search beside the LP")
        st.log(f"CP-SAT beside the LP: {cr.status}, incumbent {st.best_tel}")
    if r.rounds:
        st.lp_result = r
    st.timing["lp_seconds"] = time.perf_counter() - t0
    st.bounds.update(lp_lb=int(r.bound), lp_rounds=int(r.rounds), lp_family_rows=int(r.family_rows),
                     lp_converged=bool(r.converged))
    st.log(f"time-indexed LP bound {r.bound} after {r.rounds} rounds ({r.status})")
    if r.rounds == 0:
        st.notes.append(f"time-indexed LP: no round solved ({r.status})")
    else:
        _use_lp_bound(st, r)


def _use_lp_bound(st: PipelineState, r) -> None:
    """The LP's bound, and step 3: reduced-cost fixing within the incumbent's windows."""
    from kvlib.optimum.timelp import reduced_cost_fixing

    if r.bound > st.lower:
        st.lower, st.lower_src = min(int(r.bound), st.best_tel), "time-indexed LP"
    if st.proved_by:
        return  # the search beside the LP closed the gap
    if st.lower >= st.best_tel:
        st.proved_by, st.status = st.lower_src, f"Optimal ({st.lower_src})"
        return
    allowed = reduced_cost_fixing(r, st.best_tel)
    # within the windows of the incumbent (tighter if the search beside the LP improved it)
    st.domains = [allowed[i][allowed[i] <= st.latest[i]] for i in range(st.instance.n)]
    kept = int(sum(len(d) for d in st.domains))
    st.bounds["starts_after_fixing"] = kept
    st.bounds["starts_before_fixing"] = int(len(r.req))
    st.log(f"reduced-cost fixing keeps {kept} of {len(r.req)} starts")
    if any(len(d) == 0 for d in st.domains):
        st.prove("reduced-cost fixing", "Optimal (reduced-cost fixing: no start left for some request)")


def step_upper_search_end(st: PipelineState) -> None:
    """Above ``EXACT_SEARCH_MAX_N``: the time left goes to a last upper-bound search instead of step 4."""
    from kvlib.optimum.cpsat import cpsat_solve_subprocess

    t0 = time.perf_counter()
    cr = cpsat_solve_subprocess(st.instance, time_limit=st.left() - 1.0, workers=st.threads, hint=st.best_starts,
                                upper=st.best_tel, seed=2)
    st.timing["upper_search_end_seconds"] = time.perf_counter() - t0
    _take_or_note(st, cr, "CP-SAT upper-bound search after the LP")
    st.log(f"CP-SAT upper-bound search after the LP: {cr.status}, incumbent {st.best_tel}")


def step_exact_search(st: PipelineState, upper_search: bool, **event_options) -> None:
    """Step 4: the CP-SAT event model over the remaining starts with ``TEL <= UB - 1``; skipped, with a note,
    above ``EVENT_MAX_N`` requests, ``EVENT_MAX_STARTS`` starts or with under 2.5 s left."""
    n = st.instance.n
    budget = st.left() - 0.5
    if n > EVENT_MAX_N:
        st.notes.append(f"CP-SAT event model skipped: n = {n} > {EVENT_MAX_N}")
    elif n > EXACT_SEARCH_MAX_N and upper_search:
        st.notes.append(f"CP-SAT event model not run: n = {n} > {EXACT_SEARCH_MAX_N}, its time went to the "
                        "upper-bound search")
    elif budget < 2.5:
        st.notes.append(f"CP-SAT event model skipped: {max(budget, 0):.1f} s left")
    elif not _have_ortools():
        st.notes.append("CP-SAT event model skipped: OR-Tools is not installed")
    else:
        n_starts = (int(sum(len(d) for d in st.domains)) if st.domains is not None
                    else int((np.maximum(st.latest - st.instance.arrival, 0) + 1).sum()))
        if n_starts > EVENT_MAX_STARTS:
            st.notes.append(f"CP-SAT event model skipped: {n_starts:,} candidate starts (limit "
                            f"{EVENT_MAX_STARTS:,})")
            st.domains = None
        elif st.domains is None:
            st.domains = [np.arange(st.instance.arrival[i], st.latest[i] + 1) for i in range(n)]
        t0 = time.perf_counter()
        restarts = _event_rounds(st, **event_options) if st.domains is not None else 0
        st.timing["event_seconds"] = time.perf_counter() - t0
        st.bounds["event_restarts"] = restarts


def _event_rounds(st: PipelineState, *, lagrangian_cut: bool, **options) -> int:
    """The event model's runs (a restart after an improvement, at most ``MAX_RESTARTS``); returns the restarts."""
    from kvlib.optimum.cpsat import event_solve_subprocess

    restarts = 0
    while st.domains is not None:
        budget = st.left() - 0.5
        if budget < 2.5:
            break
        ub0 = st.best_tel
        # stop at the first improvement (then re-fix with the better bound and restart), at most MAX_RESTARTS times
        stop_first = restarts < MAX_RESTARTS
        lagrangian = st.lp_result.lagrangian() if st.lp_result is not None and lagrangian_cut else None
        cr = event_solve_subprocess(st.instance, st.domains, upper=ub0, time_limit=budget - 0.5, workers=st.threads,
                                    stop_first=stop_first, lagrangian=lagrangian, **options)
        st.cp_status = cr.status
        st.log(f"CP-SAT event model: {cr.status}, tel {cr.tel}, bound {cr.bound}")
        if _event_outcome(st, cr, ub0) or not stop_first or st.best_tel == ub0:
            break
        restarts += 1
        if _refix(st):
            break
    return restarts


def _event_outcome(st: PipelineState, cr, ub0: int) -> bool:
    """Adopt the event model's schedule (checked) and bound; True when the search is over (proof or failure)."""
    improved = False
    if cr.starts is not None:
        rep = check_schedule(st.instance, Schedule(tuple(int(p) for p in cr.starts)))
        if rep.valid and rep.tel < st.best_tel:
            st.best_starts, st.best_tel = cr.starts, int(rep.tel)
            st.src = f"cp-sat event model (from {st.heur_tel})"
            improved = True
        elif not rep.valid:  # pragma: no cover - would be a modelling error
            st.notes.append("CP-SAT event schedule rejected by the checker (ignored)")
    if cr.status.startswith("cp-sat child failed"):
        st.notes.append(cr.status)
        return True
    if cr.status == "INFEASIBLE":
        st.lower, st.proved_by = ub0, "CP-SAT event model"
        st.status = "Optimal (CP-SAT event model: no better schedule)"
        return True
    if cr.status == "OPTIMAL" and improved:
        st.prove("CP-SAT event model")
        return True
    if cr.bound > st.lower and cr.status != "MODEL_INVALID":
        # valid also when the search stopped early (stop_first): OPT >= min(bound, ub0)
        st.lower, st.lower_src = min(int(cr.bound), ub0), "CP-SAT event model"
    return False


def _refix(st: PipelineState) -> bool:
    """Re-fix the domains with the better incumbent (tighter windows, reduced-cost fixing) before a restart;
    True when that proves the incumbent optimal."""
    from kvlib.optimum.bounds import latest_starts

    n = st.instance.n
    st.latest = np.minimum(st.latest, latest_starts(st.instance, st.best_tel))
    if st.lp_result is not None:
        from kvlib.optimum.timelp import reduced_cost_fixing

        allowed = reduced_cost_fixing(st.lp_result, st.best_tel)
        st.domains = [allowed[i][allowed[i] <= st.latest[i]] for i in range(n)]
    else:
        st.domains = [d[d <= st.latest[i]] for i, d in enumerate(st.domains)]
    st.log(f"incumbent {st.best_tel}: {int(sum(len(d) for d in st.domains))} starts left; restart")
    if st.lower >= st.best_tel:
        st.proved_by = st.lower_src
        return True
    if any(len(d) == 0 for d in st.domains):
        st.prove("reduced-cost fixing", "Optimal (reduced-cost fixing: no start left for some request)")
        return True
    return False


def step_peak_conflict(st: PipelineState) -> None:
    """Step 5, when the time left is unused (the steps before were skipped or ended early) and ``n <=
    PEAK_MIP_MAX_N``: the peak-conflict MIP of :func:`kvlib.optimum.bounds.peak_conflict_bound` for the time
    left.  Its size does not grow with the time values, so it proves instances of long outputs on which the
    time-indexed models are skipped (issue #50: two requests of output ``10**6``)."""
    from kvlib.optimum.bounds import peak_conflict_bound

    t0 = time.perf_counter()
    pc = peak_conflict_bound(st.instance, time_limit=st.left() - 0.5, threads=st.threads)
    st.timing["conflict_mip_seconds"] = time.perf_counter() - t0
    st.bounds["conflict_mip_lb"] = int(pc["bound"])
    st.log(f"peak-conflict MIP bound {pc['bound']}")
    if int(pc["bound"]) > st.lower:
        st.lower, st.lower_src = min(int(pc["bound"]), st.best_tel), "peak-conflict MIP"
    if st.lower >= st.best_tel:
        st.prove("peak-conflict MIP")


def pipeline_result(st: PipelineState):
    """The :class:`~kvlib.optimum.result.SolveResult` of the pipeline (its schedule checked once more)."""
    from kvlib.optimum.result import SolveResult, unproved_status

    instance, best_tel = st.instance, st.best_tel
    lower = int(min(st.lower, best_tel))
    if lower >= best_tel and not st.proved_by:
        st.proved_by = st.lower_src
        st.status = f"Optimal ({st.lower_src})"
    if lower < best_tel:  # "Time limit reached" only when the time was spent (issue #50)
        st.status = unproved_status(time.perf_counter() - st.tic, st.time_limit, bool(st.notes))
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in st.best_starts)))
    if not rep.valid or rep.tel != best_tel:  # pragma: no cover - defensive
        raise RuntimeError("internal error: reported schedule rejected by the checker")
    notes = st.notes
    res = SolveResult(
        lower=lower, upper=best_tel, optimal=lower >= best_tel, starts=tuple(int(p) for p in st.best_starts),
        status=st.status + ("; " + "; ".join(notes) if notes else ""), seconds=time.perf_counter() - st.tic,
        incumbent=st.heur_tel, incumbent_source=st.src, horizon=int((st.latest + instance.output).max()),
        num_vars=st.num_vars, num_rows=0, formulation="pipeline",
        extra={"proved_by": st.proved_by, "lower_source": st.proved_by or st.lower_src, "notes": notes,
               "cpsat_status": st.cp_status, **st.bounds, **st.timing},
    )
    st.log(f"done: [{res.lower}, {res.upper}] {res.status}")
    return res
