"""The hindsight optimum: the time-indexed integer program of 001 eq. (1)-(4).

Variables ``x[i, p] = 1`` iff request ``i`` starts at ``p`` (``a_i <= p <= L_i``).

* (1) objective: ``min sum_i sum_p (p + o_i - a_i) x[i, p]`` (TEL);
* (2) every request starts exactly once: ``sum_p x[i, p] = 1``;
* (3) memory at every integer time ``t = 1..T``:
  ``sum_i sum_{p = t - o_i}^{t - 1} (s_i + t - p) x[i, p] <= M``
  (the model convention of :mod:`kvlib.core.model`: a run started at ``p``
  occupies ``p+1 .. p+o`` holding ``s + t - p``);
* (4) ``x`` binary.

The latest starts ``L_i`` come from :func:`kvlib.optimum.bounds.latest_starts`
(provably no optimal schedule starts later); ``T = max_i (L_i + o_i)``.

Formulations (``formulation=``):

``"plain"``       constraint (3) written out row by row (``T * sum o`` non-zeros).
``"aggregated"``  the same polytope with two auxiliary continuous sequences,
                  the number of running requests ``K_t`` and the memory
                  ``Z_t``: ``K_t = K_{t-1} + sum_i (x[i,t-1] - x[i,t-1-o_i])``,
                  ``Z_t = Z_{t-1} + K_t + sum_i (s_i x[i,t-1] - (s_i+o_i) x[i,t-1-o_i])``,
                  ``Z_t <= M`` (about ``4 n T`` non-zeros; identical LP value).

Symmetry breaking (``symmetry=True``): requests with equal ``(a, s, o)`` are
interchangeable, so one may require their start times to be non-decreasing
in index (``sum_p p x[i,p] <= sum_p p x[j,p]`` for consecutive twins ``i < j``).

The model is built with cvxpy; :func:`solve` extracts cvxpy's problem data and
runs HiGHS (``highspy``) directly, so that it can inject the heuristic
incumbent (warm start), stop at a time limit and read the MIP dual bound.

:func:`solve` is the public entry: it checks its arguments, splits the instance into independent parts
(:mod:`kvlib.optimum.decompose`; :func:`_solve_parts`) and dispatches to
:func:`kvlib.optimum.pipeline.solve_pipeline` (default) or to :func:`solve_ip_after_search` (the primal
search, then :func:`solve_ip`: this IP in HiGHS).  :func:`solve_ip` runs its steps as functions sharing an
:class:`IpState`: :func:`ip_lower_bounds`, :func:`ip_cpsat_share` and :func:`ip_cpsat_phase` (optional CP-SAT
phase), :func:`ip_build`, :func:`ip_highs`, :func:`ip_result`.

:func:`solve` never raises on a time limit: it returns a :class:`SolveResult`
with a certified interval ``lower <= OPT <= upper``; ``optimal`` is True only
when ``lower == upper``.  The schedule reported is always validated by
:func:`kvlib.core.checker.check_schedule`.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from kvlib.optimum.bounds import latest_starts, peak_conflict_bound, separation_lower_bound, volume_lower_bound
from kvlib.core.checker import check_schedule
from kvlib.core.highs import run as run_highs
from kvlib.core.model import Instance, Schedule
from kvlib.policies import make_policy  # noqa: F401
from kvlib.core.simulate import simulate  # noqa: F401

from kvlib.optimum.heuristic import (INCUMBENT_POLICIES, _feasible_start, heuristic_incumbent,  # noqa: F401
                                     heuristic_incumbent_timed, left_shift)
from kvlib.optimum.result import (MAX_THREADS, Bounds, InfeasibleIncumbentError, InvalidThreadsError,  # noqa: F401
                                  InvalidTimeLimitError, SolveArgumentError, SolveResult, _check_incumbent,
                                  _validate_solve_args, unproved_status)
from kvlib.optimum.timelp import (ColumnIndex, SparseModel, _symmetry_matrix, _symmetry_pairs, build_sparse,  # noqa: F401
                                   lp_size, starts_from_values)

# ----------------------------------------------------------------------------
# model


@dataclass
class TimeIndexedModel(ColumnIndex):
    """The cvxpy problem and the map from columns to (request, start)."""

    problem: object
    x: object
    req: np.ndarray  #: request of each column
    start: np.ndarray  #: start time of each column
    cost: np.ndarray  #: latency of each column
    horizon: int
    latest: np.ndarray
    formulation: str


def build_model(
    instance: Instance,
    *,
    upper: int | None = None,
    latest: np.ndarray | None = None,
    formulation: str = "plain",
    symmetry: bool = True,
    relax: bool = False,
) -> TimeIndexedModel:
    """The time-indexed IP (or its LP relaxation with ``relax=True``) as a cvxpy problem.

    ``latest`` defaults to :func:`kvlib.optimum.bounds.latest_starts` with the
    incumbent value ``upper`` (``None``: left-shift horizon only).
    """
    import cvxpy as cp

    if formulation not in ("plain", "aggregated"):
        raise ValueError(f"formulation must be 'plain' or 'aggregated', got {formulation!r}")
    a, s, o, M = instance.arrival, instance.prompt, instance.output, instance.memory
    n = instance.n
    if latest is None:
        latest = latest_starts(instance, upper)
    latest = np.maximum(np.asarray(latest, dtype=np.int64), a)
    req = np.concatenate([np.full(int(latest[i] - a[i] + 1), i) for i in range(n)]).astype(np.int64)
    start = np.concatenate([np.arange(a[i], latest[i] + 1) for i in range(n)]).astype(np.int64)
    cost = (start + o[req] - a[req]).astype(float)
    N = len(req)
    T = int((latest + o).max())
    x = cp.Variable(N, nonneg=True) if relax else cp.Variable(N, boolean=True)
    cons = []
    # (2) assignment
    A2 = sp.csr_matrix((np.ones(N), (req, np.arange(N))), shape=(n, N))
    cons.append(A2 @ x == 1)
    if relax:
        cons.append(x <= 1)
    # (3) memory
    if formulation == "plain":
        rows, cols, vals = [], [], []
        for c in range(N):
            i, p = req[c], start[c]
            t = np.arange(p + 1, p + o[i] + 1)
            rows.append(t - 1)
            cols.append(np.full(len(t), c))
            vals.append(s[i] + t - p)
        A3 = sp.csr_matrix(
            (np.concatenate(vals).astype(float), (np.concatenate(rows), np.concatenate(cols))), shape=(T, N)
        )
        cons.append(A3 @ x <= M)
    else:
        # rows t = 1..T; D_start[t-1, c] = 1 if start == t-1; D_end[t-1, c] = 1 if start + o == t-1
        ts = start  # x[c] contributes to the start difference at t = start+1
        te = start + o[req]  # and to the end difference at t = start+o+1
        D_start = sp.csr_matrix((np.ones(N), (ts, np.arange(N))), shape=(T + 1, N))[:T]
        end_rows = te
        keep = end_rows < T
        D_end = sp.csr_matrix((np.ones(keep.sum()), (end_rows[keep], np.arange(N)[keep])), shape=(T, N))
        W_start = sp.csr_matrix((s[req].astype(float), (ts, np.arange(N))), shape=(T + 1, N))[:T]
        W_end = sp.csr_matrix(((s[req] + o[req])[keep].astype(float), (end_rows[keep], np.arange(N)[keep])),
                              shape=(T, N))
        K = cp.Variable(T, nonneg=True)
        Z = cp.Variable(T, nonneg=True)
        # shift operator: (S v)[t] = v[t-1], v[-1] = 0
        Sh = sp.eye(T, k=-1, format="csr")
        cons.append(K == Sh @ K + D_start @ x - D_end @ x)
        cons.append(Z == Sh @ Z + K + W_start @ x - W_end @ x)
        cons.append(Z <= M)
    # symmetry breaking among identical requests
    if symmetry:
        A4 = _symmetry_matrix(instance, req, start)
        if A4 is not None:
            cons.append(A4 @ x <= 0)
    prob = cp.Problem(cp.Minimize(cost @ x), cons)
    return TimeIndexedModel(prob, x, req, start, cost, T, latest, formulation)


def _highs_from_sparse(model: SparseModel, relax: bool = False):
    """A ``highspy.Highs`` object holding ``model``; returns (highs, n_x)."""
    import highspy as hp

    inf = hp.kHighsInf
    A = model.A
    N = A.shape[1]
    lp = hp.HighsLp()
    lp.num_col_ = N
    lp.num_row_ = A.shape[0]
    lp.col_cost_ = model.cost
    lp.col_lower_ = np.zeros(N)
    lp.col_upper_ = np.ones(N)
    lp.row_lower_ = np.where(np.isfinite(model.row_lower), model.row_lower, -inf)
    lp.row_upper_ = np.where(np.isfinite(model.row_upper), model.row_upper, inf)
    lp.a_matrix_.format_ = hp.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    if not relax:
        lp.integrality_ = [hp.HighsVarType.kInteger] * N
    h = hp.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(lp)
    return h, N


# ----------------------------------------------------------------------------
# solving


def _highs_from_cvxpy(model: TimeIndexedModel):
    """Build a ``highspy.Highs`` object from cvxpy's problem data; returns (highs, n_x)."""
    import cvxpy as cp
    import highspy as hp
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict

    data, _, inv = model.problem.get_problem_data(cp.HIGHS)
    # the column order of the solver vector: our x is the first variable
    offsets = inv[-1].var_offsets if hasattr(inv[-1], "var_offsets") else None
    if offsets is not None and offsets.get(model.x.id, 0) != 0:
        raise RuntimeError("unexpected cvxpy column order")
    c = data["c"]
    dims = dims_to_solver_dict(data["dims"])
    A = data["A"].tocsc()
    b = data["b"]
    inf = hp.kHighsInf
    neq = dims["f"]
    nleq = dims["l"]
    lower = np.concatenate([b[:neq], np.full(nleq, -inf)])
    h = hp.Highs()
    h.setOptionValue("output_flag", False)
    lb = data.get("lower_bounds")
    ub = data.get("upper_bounds")
    ncol = A.shape[1]
    col_lower = np.full(ncol, -inf) if lb is None else np.asarray(lb, float).copy()
    col_upper = np.full(ncol, inf) if ub is None else np.asarray(ub, float).copy()
    lp = hp.HighsLp()
    lp.num_col_ = ncol
    lp.num_row_ = A.shape[0]
    lp.col_cost_ = np.asarray(c, float)
    lp.row_lower_ = lower
    lp.row_upper_ = np.asarray(b, float)
    lp.a_matrix_.format_ = hp.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    nx = len(model.req)
    if model.x.attributes.get("boolean"):
        col_lower[:nx] = np.maximum(col_lower[:nx], 0)
        col_upper[:nx] = np.minimum(col_upper[:nx], 1)
        integrality = [hp.HighsVarType.kContinuous] * ncol
        for k in range(nx):
            integrality[k] = hp.HighsVarType.kInteger
        lp.integrality_ = integrality
    lp.col_lower_ = col_lower
    lp.col_upper_ = col_upper
    h.passModel(lp)
    if not np.allclose(np.asarray(c, float)[:nx], model.cost):
        raise RuntimeError("cvxpy reordered the columns; cannot map the solution back")
    return h, nx


def _skip_highs(remaining: float, nnz: int) -> bool:
    """True when HiGHS cannot usefully start: too little time left for its root LP.

    Measured on 2 shared cores (benchmarks/exact_suite.py): HiGHS needs about
    1 s per 100,000 non-zeros to set up and solve its root LP (n = 60: 1.07e6
    non-zeros, 9-11 s).  Skipping only loses bound quality, never soundness.
    """
    return remaining < 1.0 or remaining < nnz / 1e5 + 1.0


#: keyword arguments that only the time-indexed IP path (:func:`solve_ip`) understands
IP_OPTIONS = ("formulation", "symmetry", "windows", "warm_start", "cpsat", "builder", "presolve", "separation",
              "conflict_mip")


def solve(instance: Instance, *, time_limit: float = 60.0, threads: int = 2, method: str | None = None,
          incumbent=None, verbose: bool = False, split: bool = True, search: float | None = None,
          **options) -> SolveResult:
    """Certified interval for the optimal TEL of ``instance`` (never raises on a time limit).

    ``method="pipeline"`` (default): :func:`kvlib.optimum.pipeline.solve_pipeline` (cheap
    bounds, time-indexed LP with conflict-family rows, reduced-cost fixing, CP-SAT event
    model).  ``method="ip"``: :func:`solve_ip`, the time-indexed IP in HiGHS (with its
    ``options``).  When ``method`` is None and an IP-only option other than
    ``formulation="plain"`` is given, the IP path is used.  ``incumbent``: a feasible
    schedule ``(starts, tel, source)`` or a start vector (checked; an infeasible one raises
    :class:`InfeasibleIncumbentError`).  Bad ``time_limit`` / ``threads`` raise
    :class:`InvalidTimeLimitError` / :class:`InvalidThreadsError`.

    ``split`` (default): solve the independent parts of :mod:`kvlib.optimum.decompose` apart, so
    that nothing grows with the gaps between arrivals.  ``search``: the share of the time limit for
    the primal list search (:mod:`kvlib.optimum.search`; default the pipeline's ``SEARCH_SHARE``;
    0 skips it); with ``method="ip"`` its schedule is the IP's incumbent.
    """
    from kvlib.optimum.pipeline import solve_pipeline

    method, search = _solve_arguments(instance, time_limit, threads, method, search, options)
    if incumbent is not None:
        incumbent = _check_incumbent(instance, incumbent)
    if split and instance.n > 1:
        from kvlib.optimum.decompose import independent_parts

        mcsf = simulate(instance, make_policy("mc-sf"), seed=0).schedule.start_array()
        parts = independent_parts(instance, mcsf)
        if len(parts) > 1:
            return _solve_parts(instance, parts, mcsf, time_limit=time_limit, threads=threads, method=method,
                                incumbent=incumbent, verbose=verbose, search=search, options=options)
    if method == "ip":
        return solve_ip_after_search(instance, time_limit=time_limit, threads=threads, incumbent=incumbent,
                                     verbose=verbose, search=search, **options)
    return solve_pipeline(instance, time_limit=time_limit, threads=threads, incumbent=incumbent, verbose=verbose,
                          search=search)


def _solve_arguments(instance, time_limit, threads, method, search, options) -> tuple[str, float]:
    """:func:`solve`'s argument checks (named errors); returns the method and the search share it picks."""
    from kvlib.optimum.pipeline import SEARCH_SHARE

    if not isinstance(instance, Instance):
        raise SolveArgumentError(f"instance must be a kvlib Instance, got {type(instance).__name__}")
    _validate_solve_args(time_limit, threads)
    if search is None:
        search = SEARCH_SHARE
    elif isinstance(search, bool) or not isinstance(search, (int, float)) or not 0 <= float(search) <= 0.9:
        raise SolveArgumentError(f"search must be a share of the time limit in [0, 0.9], got {search!r}")
    unknown = set(options) - set(IP_OPTIONS)
    if unknown:
        raise TypeError(f"solve() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    if method is None:
        ip_only = {k: v for k, v in options.items() if not (k == "formulation" and v == "plain")}
        method = "ip" if ip_only else "pipeline"
    if method not in ("pipeline", "ip"):
        raise SolveArgumentError(f"method must be 'pipeline' or 'ip', got {method!r}")
    return method, search


def solve_ip_after_search(instance: Instance, *, time_limit: float, threads: int, incumbent, verbose: bool,
                          search: float, **options) -> SolveResult:
    """``method="ip"``: the primal list search (a ``search`` share of the limit) gives :func:`solve_ip` its
    incumbent when it beats the caller's; the IP gets the time left (at least 5% of the limit)."""
    from kvlib.optimum.pipeline import SEARCH_EVALUATIONS

    tic = time.perf_counter()
    if search and instance.n > 1:
        from kvlib.optimum.search import primal_search

        sr = primal_search(instance, evaluations=SEARCH_EVALUATIONS, windows=0,
                           incumbent=None if incumbent is None else incumbent[0],
                           time_limit=float(search) * time_limit)
        if incumbent is None or sr.tel < incumbent[1]:
            incumbent = (sr.starts, sr.tel, f"primal search ({sr.source}, {sr.seconds:.2f} s)")
    return solve_ip(instance, time_limit=max(0.05 * time_limit, time_limit - (time.perf_counter() - tic)),
                    threads=threads, incumbent=incumbent, verbose=verbose, **options)


#: a part not proved in the first pass is solved again while this many seconds are left ...
PART_RETRY_MIN_SECONDS = 1.0
#: ... each with at least this many seconds when they are left (the pipeline's exact search needs 2.5 s after
#: its earlier steps), or its share of the time left in proportion to its size when that is more
PART_RETRY_SECONDS = 4.0


@dataclass
class _Part:
    """One independent part: its request ids, its instance shifted to time 0, and its best result so far."""

    ids: np.ndarray
    sub: Instance
    offset: int
    result: SolveResult | None = None  #: None for a lone request (optimal at its arrival)
    lower: int = 0


def _solve_parts(instance: Instance, parts: list, mcsf: np.ndarray, *, time_limit: float, threads: int,
                 method: str, incumbent, verbose: bool, search: float, options: dict) -> SolveResult:
    """:func:`solve` on independent parts (:mod:`kvlib.optimum.decompose`), each shifted to time 0 and
    given the time left in proportion to its size (smallest first, so what they leave goes to the larger
    ones).  Then, while time is left, the parts not proved are solved again from their best schedule, with
    the time the others left (issue #50: parts that stop early unproved used to leave it unused).  The lower
    bounds add up; the parts' schedules are combined and checked, and a combination the
    checker rejects is replaced by the better of MC-SF's schedule ``mcsf`` (start times; the parts were cut
    from it) and the caller's incumbent.  ``extra`` holds the whole instance's bounds: ``volume_lb`` (of
    the whole instance) and ``separation_lb`` (the parts' separation bounds added up, a lone request's
    being its output, and at least ``volume_lb``)."""
    from kvlib.optimum.decompose import part_instance

    tic = time.perf_counter()
    deadline = tic + float(time_limit)
    todo = [_Part(ids, *part_instance(instance, ids)) for ids in sorted(parts, key=len)]

    def run(part: _Part, budget: float, inc) -> None:
        r = solve(part.sub, time_limit=budget, threads=threads, method=method, incumbent=inc, verbose=verbose,
                  split=False, search=search, **options)
        part.lower = max(part.lower, int(r.lower))
        if part.result is None or r.upper <= part.result.upper:
            part.result = r
        if verbose:
            print(f"[kvlib.solve] part of {len(part.ids)} requests from t={part.offset}: [{part.lower}, "
                  f"{r.upper}]", file=sys.stderr)

    left_n = instance.n
    for part in todo:
        if len(part.ids) == 1:  # alone, a request starts at its arrival (s + o <= M): optimal
            part.lower = int(instance.output[part.ids[0]])
        else:
            budget = max(0.05, (deadline - time.perf_counter()) * len(part.ids) / left_n)
            run(part, budget, None if incumbent is None else incumbent[0][part.ids] - part.offset)
        left_n -= len(part.ids)
    # second pass: the time left goes to the parts not proved, smallest first, while some part gains
    gained = True
    while gained and deadline - time.perf_counter() >= PART_RETRY_MIN_SECONDS:
        open_parts = [p for p in todo if p.result is not None and p.lower < p.result.upper]
        gained, open_n = False, sum(len(p.ids) for p in open_parts)
        for part in open_parts:
            left = deadline - time.perf_counter()
            if left < PART_RETRY_MIN_SECONDS:
                break
            before = (part.lower, part.result.upper)
            run(part, min(left, max(PART_RETRY_SECONDS, left * len(part.ids) / open_n)), part.result.starts)
            open_n -= len(part.ids)
            gained = gained or (part.lower, part.result.upper) != before
    return _combine_parts(instance, todo, mcsf, incumbent, method, options, tic, time_limit)


def _combine_parts(instance: Instance, todo: list, mcsf, incumbent, method: str, options: dict, tic: float,
                   time_limit: float) -> SolveResult:
    """The whole instance's result from its parts' (schedules combined and checked; lower bounds added)."""
    from kvlib.optimum.bounds import volume_lower_bound

    starts = np.zeros(instance.n, dtype=np.int64)
    lower = proved = warm = separation = 0  # warm: the parts' warm starts, summed (a lone request's is its optimum)
    warm_sources: set[str] = set()
    for part in todo:
        r = part.result
        if r is None:
            starts[part.ids] = instance.arrival[part.ids]
            out = int(instance.output[part.ids[0]])
            lower, warm, separation, proved = lower + out, warm + out, separation + out, proved + 1
            continue
        starts[part.ids] = np.asarray(r.starts, dtype=np.int64) + part.offset
        lower += part.lower
        separation += int(r.extra.get("separation_lb", r.extra.get("volume_lb", volume_lower_bound(part.sub))))
        proved += int(part.lower >= r.upper)
        warm += int(r.incumbent)
        warm_sources.add(r.incumbent_source.split(" (")[0])
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in starts)))
    source = f"each part's own: {', '.join(sorted(warm_sources)) or 'lone requests'}"
    if not rep.valid:  # a part's schedule ran past the next part's first arrival: take a whole schedule
        starts = np.asarray(mcsf, dtype=np.int64)
        rep = check_schedule(instance, Schedule(tuple(int(p) for p in starts)))
        source = "mc-sf (the parts' schedules overlap)"
    upper = int(rep.tel)
    if incumbent is not None and incumbent[1] < upper:
        starts, upper, source = incumbent[0], int(incumbent[1]), incumbent[2]
    volume = volume_lower_bound(instance)
    lower = min(max(lower, volume), upper)
    optimal = lower >= upper
    seconds = time.perf_counter() - tic
    sizes = sorted((len(part.ids) for part in todo), reverse=True)
    head = "Optimal" if optimal else unproved_status(seconds, time_limit).split(":")[0]
    status = (f"{head} ({len(todo)} independent parts of {', '.join(map(str, sizes[:8]))}"
              f"{', ...' if len(sizes) > 8 else ''} requests; {proved} proved)")
    if not optimal and head != "Time limit reached":
        status += f"; the parts not proved stopped after {seconds:.1f} s of the {float(time_limit):g} s limit"
    return SolveResult(lower=lower, upper=upper, optimal=optimal, starts=tuple(int(p) for p in starts),
                       status=status, seconds=seconds,
                       incumbent=warm if incumbent is None else int(incumbent[1]), incumbent_source=source,
                       horizon=int((np.asarray(starts) + instance.output).max()),
                       formulation="pipeline" if method == "pipeline" else options.get("formulation", "plain"),
                       extra={"parts": len(todo), "part_sizes": sizes, "parts_proved": proved, "volume_lb": volume,
                              "separation_lb": max(separation, volume)})


def solve_ip(
    instance: Instance,
    *,
    time_limit: float = 60.0,
    threads: int = 2,
    formulation: str = "plain",
    symmetry: bool = True,
    windows: bool = True,
    warm_start: bool = True,
    incumbent: tuple[np.ndarray, int, str] | None = None,
    cpsat: float | None = None,
    builder: str = "sparse",
    presolve: str = "off",
    separation: bool = True,
    conflict_mip: float | None = None,
    verbose: bool = False,
) -> SolveResult:
    """Certified interval for the optimal TEL of ``instance`` (never raises on a time limit).

    ``time_limit`` covers the whole call: heuristic incumbent, CP-SAT phase,
    model build and HiGHS (HiGHS itself can overrun the time left by a few
    seconds; ``seconds`` reports the true wall time, and ``extra`` the split).

    ``windows=False`` uses only the left-shift horizon (no incumbent-based
    latest starts); ``warm_start=False`` does not give HiGHS the incumbent
    (it is still used for ``upper``).  ``cpsat``: seconds given to the exact
    CP-SAT model of :mod:`kvlib.optimum.cpsat` before HiGHS, to improve the incumbent
    (its schedule is validated by the checker) and possibly the bound; ``None``
    means: 0 without OR-Tools or for ``n < 10``; else ``0.3 * time_limit`` if
    HiGHS keeps enough time for its root LP (:func:`_skip_highs`), 0 if it has
    enough only without CP-SAT, and all the time left if HiGHS would be skipped
    anyway.  HiGHS runs with presolve off: on these models its presolve
    reduces nothing and overran the time limit by up to 45 s (n = 60).
    ``builder``: ``"sparse"`` (:func:`build_sparse`, default) or ``"cvxpy"``
    (:func:`build_model`, the documented formulation; same matrix).

    Before any of this (unless ``separation=False``), :func:`kvlib.optimum.bounds.separation_lower_bound` (an LP over
    completion times with volume and peak-conflict inequalities; at most
    ``min(5, 0.1 * time_limit)`` s) gives a certified lower bound; ``lower`` is the
    largest of it, CP-SAT's bound and HiGHS's.  Then the MIP of
    :func:`kvlib.optimum.bounds.peak_conflict_bound` runs for ``conflict_mip`` seconds (``None``:
    ``min(5, 0.15 * time_limit)`` if ``n <= 12``, else skipped; HiGHS rarely solves it
    beyond ``n = 15``); when a bound meets the incumbent the call returns it as proved
    optimal without CP-SAT or HiGHS.
    """
    import highspy  # noqa: F401  (without HiGHS the call fails here, before any work)

    _validate_solve_args(time_limit, threads)
    if builder not in ("sparse", "cvxpy"):
        raise SolveArgumentError(f"builder must be 'sparse' or 'cvxpy', got {builder!r}")
    st = IpState(instance, float(time_limit), threads, time.perf_counter())
    if incumbent is None:
        incumbent = heuristic_incumbent_timed(instance, budget=0.25 * time_limit, notes=st.notes)
    else:
        incumbent = _check_incumbent(instance, incumbent)
    st.inc_starts, st.inc_tel, st.inc_src = np.asarray(incumbent[0], dtype=np.int64), int(incumbent[1]), incumbent[2]
    st.heur_tel = st.inc_tel
    st.timing["heuristic_seconds"] = time.perf_counter() - st.tic
    ip_lower_bounds(st, separation, conflict_mip)
    if cpsat is None:
        cpsat = ip_cpsat_share(st, windows)
    if st.lower_extra >= st.inc_tel:
        cpsat = 0.0
    if cpsat and cpsat > 0:
        ip_cpsat_phase(st, float(cpsat))
    upper_w = st.inc_tel if windows else None
    model = ip_build(st, upper_w, formulation, symmetry, builder)
    st.best_starts, st.best_tel, st.src = st.inc_starts, st.inc_tel, st.inc_src
    remaining = time_limit - (time.perf_counter() - st.tic)
    if st.lower_extra >= st.best_tel:
        st.status_name = f"Optimal ({st.lower_src})"
    elif model is not None and _skip_highs(remaining, max(st.nnz, 0)):
        st.notes.append(f"HiGHS skipped: {st.nnz} non-zeros, too many for the {max(0.0, remaining):.1f} s left")
    elif model is not None:
        ip_highs(st, model, verbose=verbose, presolve=presolve, warm_start=warm_start)
    return ip_result(st, model, upper_w, formulation)


#: the status of :func:`solve_ip` when HiGHS did not run and the time was spent
BEFORE_HIGHS = "Time limit reached (before HiGHS)"


@dataclass
class IpState:
    """What the steps of :func:`solve_ip` share: the clock, the incumbent, the bounds and the record."""

    instance: Instance
    time_limit: float
    threads: int
    tic: float
    notes: list = field(default_factory=list)
    timing: dict = field(default_factory=dict)
    inc_starts: np.ndarray | None = None  #: the incumbent before HiGHS (heuristic or caller, then CP-SAT's)
    inc_tel: int = 0
    inc_src: str = ""
    heur_tel: int = 0
    best_starts: np.ndarray | None = None  #: the best schedule (HiGHS's when it improves the incumbent)
    best_tel: int = 0
    src: str = ""
    lb0: int = 0  #: volume bound
    sep_bound: int = 0  #: the separation LP's bound (the volume bound when it did not run)
    lower_extra: int = 0  #: best lower bound of the steps before HiGHS
    lower_src: str = ""
    cp_status: str = ""
    nnz: int = 0
    status_name: str = "Time limit reached (before HiGHS)"  #: BEFORE_HIGHS
    nodes: int = 0
    dual: int | None = None
    ncol: int = 0
    nrow: int = 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.tic


def ip_lower_bounds(st: IpState, separation: bool, conflict_mip: float | None) -> None:
    """The volume bound, the separation LP (``min(5, 0.1 T)`` s) and the peak-conflict MIP (``conflict_mip``
    s; ``None``: ``min(5, 0.15 T)`` for ``n <= 12``, else none)."""
    instance, time_limit = st.instance, st.time_limit
    st.lb0 = volume_lower_bound(instance)
    t0 = time.perf_counter()
    sep = {"bound": st.lb0}
    if separation:
        sep = separation_lower_bound(instance, time_limit=max(0.05, min(5.0, 0.1 * time_limit,
                                                                      time_limit - (t0 - st.tic) - 0.5)))
        st.timing["separation_seconds"] = time.perf_counter() - t0
    st.sep_bound = int(sep["bound"])
    st.lower_extra = max(st.lb0, st.sep_bound)
    st.lower_src = "separation LP" if sep["bound"] > st.lb0 else "volume bound"
    if conflict_mip is None:
        conflict_mip = min(5.0, 0.15 * time_limit) if (separation and instance.n <= 12) else 0.0
    if conflict_mip > 0 and st.lower_extra < st.inc_tel:
        t0 = time.perf_counter()
        pc = peak_conflict_bound(instance, time_limit=min(float(conflict_mip), max(0.0, time_limit - (t0 - st.tic))),
                                 threads=st.threads)
        if int(pc["bound"]) > st.lower_extra:
            st.lower_extra, st.lower_src = int(pc["bound"]), "peak-conflict MIP"
        st.timing["conflict_mip_seconds"] = time.perf_counter() - t0


def ip_cpsat_share(st: IpState, windows: bool) -> float:
    """Seconds for the CP-SAT phase when the caller gave none: 0 without OR-Tools, for ``n < 10`` or a limit under
    3 s; else 30% of the limit if HiGHS still has time for its root LP afterwards; none if HiGHS has time for its
    root LP only without it (the LP bound is worth more at n >= 30 than CP-SAT's rare improvements there); all the
    time left if HiGHS would be skipped anyway."""
    import importlib.util

    if importlib.util.find_spec("ortools") is None or st.instance.n < 10 or st.time_limit < 3:
        return 0.0
    est_nnz = lp_size(st.instance, latest_starts(st.instance, st.inc_tel if windows else None))[1]
    left = st.time_limit - st.elapsed() - est_nnz / 1e6  # build time
    if not _skip_highs(left - 0.3 * st.time_limit, est_nnz):
        return 0.3 * st.time_limit
    if not _skip_highs(left, est_nnz):
        return 0.0
    return max(0.0, left - 0.2)


def ip_cpsat_phase(st: IpState, seconds: float) -> None:
    """CP-SAT's exact cumulative model before HiGHS (child process): a better checked schedule becomes the
    incumbent, its bound the lower bound when larger; not run with 1.5 s or less."""
    from kvlib.optimum.cpsat import cpsat_solve_subprocess

    t0 = time.perf_counter()
    budget = min(seconds, max(0.0, st.time_limit - (t0 - st.tic)))
    if budget > 1.5:
        cr = cpsat_solve_subprocess(st.instance, time_limit=budget, workers=st.threads, hint=st.inc_starts,
                                    upper=st.inc_tel)
        st.cp_status = cr.status
        if cr.starts is not None:
            rep = check_schedule(st.instance, Schedule(tuple(int(p) for p in cr.starts)))
            if rep.valid and rep.tel < st.inc_tel:
                st.inc_starts, st.inc_tel = cr.starts, int(rep.tel)
                st.inc_src = f"cp-sat (hint {st.inc_src} {st.heur_tel})"
        if int(cr.bound) > st.lower_extra:
            st.lower_extra, st.lower_src = int(cr.bound), "CP-SAT"
    st.timing["cpsat_seconds"] = time.perf_counter() - t0


def ip_build(st: IpState, upper_w, formulation: str, symmetry: bool, builder: str):
    """The IP (``None`` when the bounds already prove the incumbent, or when it is too large for the time left,
    with a note); sets ``st.nnz``."""
    t0 = time.perf_counter()
    est_nnz = lp_size(st.instance, latest_starts(st.instance, upper_w))[1]  # exact (int64 wrapped beyond 2**63)
    model = None
    if st.lower_extra >= st.inc_tel:
        pass
    elif _skip_highs(st.time_limit - (t0 - st.tic) - est_nnz / 1e6, est_nnz):
        st.notes.append(f"HiGHS skipped: the IP has about {est_nnz} non-zeros, too many for the "
                        f"{max(0.0, st.time_limit - (t0 - st.tic)):.1f} s left")
    elif builder == "sparse" and formulation == "plain":
        model = build_sparse(st.instance, upper=upper_w, symmetry=symmetry)
    else:
        model = build_model(st.instance, upper=upper_w, formulation=formulation, symmetry=symmetry)
    st.nnz = int(model.A.nnz) if isinstance(model, SparseModel) else (est_nnz if model is not None else 0)
    st.timing["build_seconds"] = time.perf_counter() - t0
    return model


def ip_highs(st: IpState, model, *, verbose: bool, presolve: str, warm_start: bool) -> None:
    """HiGHS on the IP for the time left, with the incumbent's TEL as cut-off (and as warm start)."""
    import highspy as hp

    t0 = time.perf_counter()
    h, nx = _highs_from_sparse(model) if isinstance(model, SparseModel) else _highs_from_cvxpy(model)
    st.ncol, st.nrow = h.getNumCol(), h.getNumRow()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("threads", int(st.threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1.0 - 1e-6)  # integer objective: a gap below 1 is closed
    h.setOptionValue("random_seed", 0)
    h.setOptionValue("presolve", presolve)
    h.setOptionValue("time_limit", float(max(0.1, st.time_limit - st.elapsed())))
    # objective cut-off: only strictly better schedules are interesting
    h.setOptionValue("objective_bound", float(st.best_tel) + 0.5)
    if warm_start:
        vec = _warm_vector(model, st.instance, st.best_starts, st.ncol)
        if vec is not None:
            sol = hp.HighsSolution()
            sol.col_value = vec.tolist()
            sol.value_valid = True
            h.setSolution(sol)
    run_status = run_highs(h, verbose=verbose)  # resets HiGHS's thread pool around the run (kvlib.core.highs)
    status = h.getModelStatus()
    info = h.getInfo()
    st.nodes = int(info.mip_node_count)
    if info.primal_solution_status == 2:  # kSolutionStatusFeasible
        starts = model.starts_from(np.asarray(h.getSolution().col_value)[:nx])
        if np.all(starts >= 0):
            rep = check_schedule(st.instance, Schedule(tuple(int(p) for p in starts)))
            if rep.valid and rep.tel < st.best_tel:
                st.best_starts, st.best_tel = starts, int(rep.tel)
                st.src = f"highs (warm start {st.inc_src} {st.inc_tel})"
    st.status_name = h.modelStatusToString(status)
    if run_status == hp.HighsStatus.kError:
        st.status_name = f"HiGHS error ({st.status_name})"
    d = info.mip_dual_bound
    if status == hp.HighsModelStatus.kOptimal:
        st.dual = st.best_tel if d is None or not math.isfinite(d) else math.ceil(d - 1e-6)
    elif status == hp.HighsModelStatus.kInfeasible:
        # infeasible under the cut-off "TEL <= incumbent + 0.5": the incumbent is optimal
        st.dual = st.best_tel
        st.status_name = "Optimal (incumbent; no better schedule exists)"
    elif d is not None and math.isfinite(d) and abs(d) < 1e15:
        st.dual = math.ceil(d - 1e-6)
    st.timing["highs_seconds"] = time.perf_counter() - t0


def ip_result(st: IpState, model, upper_w, formulation: str) -> SolveResult:
    """The :class:`SolveResult` of :func:`solve_ip` (its schedule checked once more)."""
    instance, best_tel, dual = st.instance, st.best_tel, st.dual
    lower = st.lower_extra if dual is None else max(int(dual), st.lower_extra)
    lower = int(min(lower, best_tel))
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in st.best_starts)))
    if not rep.valid or rep.tel != best_tel:  # pragma: no cover - defensive
        raise RuntimeError("internal error: reported schedule rejected by the checker")
    horizon = model.horizon if model is not None else int((latest_starts(instance, upper_w) + instance.output).max())
    if lower < best_tel and st.status_name == BEFORE_HIGHS:  # "Time limit" only when spent (issue #50)
        st.status_name = unproved_status(st.elapsed(), st.time_limit, bool(st.notes))
        if st.status_name == "Time limit reached":
            st.status_name = BEFORE_HIGHS
    return SolveResult(
        lower=lower, upper=best_tel, optimal=lower >= best_tel, starts=tuple(int(p) for p in st.best_starts),
        status=st.status_name + ("; " + "; ".join(st.notes) if st.notes else ""), seconds=st.elapsed(),
        incumbent=st.heur_tel, incumbent_source=st.src, horizon=horizon, num_vars=st.ncol, num_rows=st.nrow,
        formulation=formulation,
        extra={"nodes": st.nodes, "volume_lb": st.lb0, "separation_lb": st.sep_bound, "cpsat_status": st.cp_status,
               "lower_source": st.lower_src if dual is None or st.lower_extra >= dual else "HiGHS",
               "notes": st.notes, **st.timing},
    )


def _warm_vector(model: TimeIndexedModel, instance: Instance, starts: np.ndarray, ncol: int) -> np.ndarray | None:
    nxx = len(model.req)
    x = np.zeros(nxx)
    for i, p in enumerate(starts):
        c = model.column(i, int(p))
        if c < 0:
            return None
        x[c] = 1.0
    if model.formulation == "plain":
        return x if ncol == nxx else None
    T = model.horizon
    s, o = instance.prompt, instance.output
    K = np.zeros(T + 2)
    Z = np.zeros(T + 2)
    for i, p in enumerate(starts):
        t = np.arange(p + 1, p + o[i] + 1)
        K[t] += 1
        Z[t] += s[i] + t - p
    vec = np.concatenate([x, K[1 : T + 1], Z[1 : T + 1]])
    return vec if ncol == len(vec) else None


def lp_relaxation(instance: Instance, *, upper: int | None = None, formulation: str = "aggregated",
                  symmetry: bool = False, time_limit: float = 120.0) -> float:
    """Value of the LP relaxation of the time-indexed IP (x in [0, 1]; the Relax-LP of 002 Section 6).

    With ``upper=None`` the horizon is the left-shift one; passing the TEL of a
    feasible schedule shrinks it (still valid for optimal schedules, so the LP
    value remains a lower bound on OPT).
    """
    import cvxpy as cp

    model = build_model(instance, upper=upper, formulation=formulation, symmetry=symmetry, relax=True)
    model.problem.solve(solver=cp.HIGHS, time_limit=float(time_limit))
    if model.problem.status != "optimal":
        raise RuntimeError(f"LP relaxation not solved: {model.problem.status}")
    return float(model.problem.value)


# ----------------------------------------------------------------------------
# 001 Section 5.1 summary

#: the paper's numbers of 001 Section 5.1 ("Results for Arrival Model 1/2"; OPT by Gurobi, n in [40, 60]);
#: 001 reports no count of exact matches for Arrival Model 2.
PAPER_SECTION51 = {
    "AM1": {"best": 1.000, "worst": 1.074, "average": 1.005, "exact matches": "114 of 200"},
    "AM2": {"best": 1.000, "worst": 1.227, "average": 1.047, "exact matches": "not reported"},
}


def section51_summary(rows) -> "object":
    """Summary table of Section 5.1 trials with certified ratio intervals (a pandas DataFrame).

    ``rows``: a DataFrame (or list of dicts) with one row per trial and the
    columns ``model`` ("AM1"/"AM2"), ``mcsf``, ``lower``, ``upper``,
    ``optimal``, ``seconds``.  For each trial OPT lies in ``[lower, upper]``, so
    ``MC-SF / OPT`` lies in ``[mcsf / upper, mcsf / lower]``; best / worst /
    average are reported as intervals of those (the minimum, maximum and mean
    of interval-valued quantities are bracketed by the same statistic of the
    ends).  A trial is an *exact match proved* when ``mcsf == lower`` (then
    MC-SF is optimal).  The paper's values are in the columns "paper".
    """
    import pandas as pd

    df = pd.DataFrame(rows).copy()
    df["ratio_lo"] = df.mcsf / df.upper
    df["ratio_hi"] = df.mcsf / df.lower
    out = {}
    for m in ("AM1", "AM2"):
        d = df[df.model == m]
        if not len(d):
            continue
        p = PAPER_SECTION51[m]
        proved = d[d.optimal.astype(bool)]
        out[m] = {
            "trials": str(len(d)),
            "proved optimal": str(int(d.optimal.astype(bool).sum())),
            "best": f"[{d.ratio_lo.min():.3f}, {d.ratio_hi.min():.3f}]",
            "worst": f"[{d.ratio_lo.max():.3f}, {d.ratio_hi.max():.3f}]",
            "average": f"[{d.ratio_lo.mean():.3f}, {d.ratio_hi.mean():.3f}]",
            "exact matches proved": str(int((d.mcsf == d.lower).sum())),
            "MC-SF certified not optimal": str(int((d.mcsf > d.upper).sum())),
            "average over proved trials": f"{proved.ratio_lo.mean():.3f}" if len(proved) else "none proved",
            "solver seconds mean / max": f"{d.seconds.mean():.1f} / {d.seconds.max():.1f}",
        }
        out[m + " paper"] = {
            "trials": "200",
            "proved optimal": "(Gurobi)",
            "best": f"{p['best']:.3f}",
            "worst": f"{p['worst']:.3f}",
            "average": f"{p['average']:.3f}",
            "exact matches proved": p["exact matches"],
            "MC-SF certified not optimal": "",
            "average over proved trials": "",
            "solver seconds mean / max": "",
        }
    return pd.DataFrame(out)
