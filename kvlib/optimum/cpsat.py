"""The hindsight-optimal schedule (001 Section 3) as a CP-SAT model with an exact interval encoding.

The time-indexed IP of :mod:`kvlib.optimum.exact` has one binary per (request, start).
Here each request ``i`` has a single integer start variable ``p_i`` in
``[a_i, L_i]`` (``L_i`` from :func:`kvlib.optimum.bounds.latest_starts`) and the memory
constraint (3) of 001 is written *exactly* as one cumulative constraint of
capacity ``M`` over ``o_i + 1`` intervals per request, all sharing ``p_i``:

* one interval ``[p_i + 1, p_i + o_i + 1)`` of height ``s_i`` (the prompt), and
* for ``k = 1..o_i`` one interval ``[p_i + k, p_i + o_i + 1)`` of height 1
  (the ``k``-th generated token, held from the time it is produced to the end).

At an integer time ``t`` with ``p_i + 1 <= t <= p_i + o_i`` the request holds
``s_i`` (first interval) plus one for every ``k <= t - p_i``, i.e.
``s_i + t - p_i`` -- the model convention of :mod:`kvlib.core.model` -- and nothing
outside its run.  So the cumulative constraint is *equivalent* to (3) at every
integer time, and the objective ``sum_i (p_i + o_i - a_i)`` is (1).  (The
unit-height intervals for ``k = o_i`` and the prompt interval start together;
the encoding is exact, not a relaxation, so CP-SAT's optimum is OPT and its
objective bound is a valid lower bound on OPT, provided the horizon ``L_i`` is
sound -- it is, by :func:`kvlib.optimum.bounds.latest_starts`.)

:func:`cpsat_solve` returns CP-SAT's best schedule (the caller validates it
with :func:`kvlib.core.checker.check_schedule`) and its proved objective bound.
Requires the optional dependency ``ortools`` (extra ``cpsat``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kvlib.optimum.bounds import latest_starts
from kvlib.core.model import Instance


def non_overlap_cliques(instance: Instance) -> list[list[int]]:
    """Sets of requests no two of which can run at a common integer time.

    Requests ``i`` and ``j`` cannot overlap if ``s_i + o_i + s_j + 1 > M`` and
    ``s_j + o_j + s_i + 1 > M``.  Proof: if both run at some time ``t``, let
    ``c = min(c_i, c_j) >= t`` and say ``c = c_i``.  Both run at ``c`` (``j``
    started before ``t`` and ends at ``c_j >= c``), ``i`` holds ``s_i + o_i``
    (its last step) and ``j`` at least ``s_j + 1``: more than ``M``.  The
    cliques of this conflict graph are found greedily (largest peak first); any
    set of pairwise conflicting requests is a valid no-overlap set.
    """
    s, o, M = instance.prompt, instance.output, instance.memory
    h = s + o
    n = instance.n
    conflict = (h[:, None] + s[None, :] + 1 > M) & (h[None, :] + s[:, None] + 1 > M)
    np.fill_diagonal(conflict, False)
    order = np.argsort(-h, kind="stable")
    cliques: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    for i in order:
        if not conflict[i].any():
            continue
        clique = [int(i)]
        for j in order:
            if j != i and all(conflict[j, c] for c in clique):
                clique.append(int(j))
        key = tuple(sorted(clique))
        if len(clique) >= 2 and key not in seen:
            seen.add(key)
            cliques.append(list(key))
    return cliques


def _twin_order_and_cliques(m, instance: Instance, p) -> list:
    """Constraints valid in every CP-SAT model here: (i) identical requests are interchangeable, so
    their starts are ordered; (ii) runs that can never share an integer time (see
    :func:`non_overlap_cliques`) do not overlap.  Returns the run intervals ``[p_i + 1, p_i + o_i]``."""
    a, s, o = (instance.arrival.tolist(), instance.prompt.tolist(), instance.output.tolist())
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i in range(instance.n):
        groups.setdefault((a[i], s[i], o[i]), []).append(i)
    for g in groups.values():
        for i, j in zip(g, g[1:]):
            m.Add(p[i] <= p[j])
    runs = [m.NewIntervalVar(p[i] + 1, o[i], p[i] + o[i] + 1, f"R{i}") for i in range(instance.n)]
    for clique in non_overlap_cliques(instance):
        m.AddNoOverlap([runs[i] for i in clique])
    return runs


@dataclass
class CpSatResult:
    starts: np.ndarray | None  #: best start times found (None if none)
    tel: int | None  #: TEL of ``starts`` as computed by CP-SAT
    bound: int  #: proved lower bound on OPT (ceil of CP-SAT's objective bound)
    status: str
    seconds: float


def _model_and_arrays(instance: Instance):
    """OR-Tools' ``cp_model`` module (a clear error without OR-Tools) and the instance as Python ints:
    ``(cp_model, a, s, o, n, M)``."""
    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:  # pragma: no cover - exercised only without ortools
        raise ImportError("kvlib.optimum.cpsat needs OR-Tools: pip install 'kvlib[cpsat]' (or ortools)") from exc
    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    return cp_model, a, s, o, instance.n, int(instance.memory)


def cpsat_solve(
    instance: Instance,
    *,
    time_limit: float = 10.0,
    workers: int = 2,
    hint: np.ndarray | None = None,
    upper: int | None = None,
    latest: np.ndarray | None = None,
    seed: int = 0,
    redundant: bool = True,
    stream: bool = False,
) -> CpSatResult:
    """Solve (or improve) the hindsight schedule with CP-SAT within ``time_limit`` seconds.

    ``hint``: start times of a feasible schedule (solution hint); ``upper``: TEL
    of a known schedule (used for the latest starts of
    :func:`kvlib.optimum.bounds.latest_starts`; ``latest`` overrides them).
    ``redundant``: add the sound redundant constraints (start order of identical
    requests; no-overlap of the cliques of :func:`non_overlap_cliques`).
    ``stream``: print every improving schedule as a JSON line on stdout (for the child-process
    runners, which keep the last one when they stop the search early).
    """
    cp_model, a, s, o, n, M = _model_and_arrays(instance)
    if latest is None:
        latest = latest_starts(instance, upper)
    L = [max(int(x), a[i]) for i, x in enumerate(latest)]
    m = cp_model.CpModel()
    p = [m.NewIntVar(a[i], L[i], f"p{i}") for i in range(n)]
    intervals, demands = [], []
    for i in range(n):
        # affine start/end expressions of the single variable p_i (no auxiliary variables,
        # so a hint of the p_i is a complete solution hint)
        intervals.append(m.NewIntervalVar(p[i] + 1, o[i], p[i] + o[i] + 1, f"P{i}"))
        demands.append(s[i])
        for k in range(1, o[i] + 1):
            intervals.append(m.NewIntervalVar(p[i] + k, o[i] - k + 1, p[i] + o[i] + 1, f"T{i}_{k}"))
            demands.append(1)
    m.AddCumulative(intervals, demands, M)
    if redundant:
        _twin_order_and_cliques(m, instance, p)
    const = sum(o[i] - a[i] for i in range(n))
    m.Minimize(sum(p) + const)
    if upper is not None:
        m.Add(sum(p) + const <= int(upper))
    if hint is not None:
        for i in range(n):
            if a[i] <= int(hint[i]) <= L[i]:
                m.AddHint(p[i], int(hint[i]))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed)
    if stream:
        st = solver.Solve(m, _streaming_callback(cp_model, p))
    else:
        st = solver.Solve(m)
    name = solver.StatusName(st)
    bound = int(np.ceil(solver.BestObjectiveBound() - 1e-6))
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        starts = np.array([solver.Value(v) for v in p], dtype=np.int64)
        tel = int(round(solver.ObjectiveValue()))
        if st == cp_model.OPTIMAL:
            bound = tel
        return CpSatResult(starts, tel, bound, name, solver.WallTime())
    if st == cp_model.INFEASIBLE and upper is not None:
        # no schedule with TEL <= upper inside the (sound) windows: OPT > upper is impossible
        # for a feasible ``upper``; report the bound upper + 1 (the caller caps it by its incumbent).
        return CpSatResult(None, None, int(upper) + 1, name, solver.WallTime())
    return CpSatResult(None, None, bound, name, solver.WallTime())


def _streaming_callback(cp_model, p, stop_first: bool = False):
    """A solution callback printing ``{"sol": starts, "tel": objective}`` for every improving schedule
    (``stop_first``: and stopping the search after the first)."""
    import json as _json
    import sys as _sys

    class _Printer(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            print(_json.dumps({"sol": [int(self.Value(v)) for v in p], "tel": int(round(self.ObjectiveValue()))}),
                  flush=True)
            _sys.stdout.flush()
            if stop_first:
                self.StopSearch()

    return _Printer()


# ----------------------------------------------------------------------------
# the event-based model (memory checked at completion rounds only)


def feasible_at_completions(instance: Instance, starts) -> bool:
    """Memory checked only at the completion rounds ``c_i`` (the test of :func:`event_solve`).

    By the argument in :func:`event_solve` this equals feasibility at every integer time
    (checked against :func:`kvlib.core.checker.check_schedule` by the tests).
    """
    p = np.asarray(starts, dtype=np.int64)
    s, o, M = instance.prompt, instance.output, instance.memory
    if np.any(p < instance.arrival):
        return False
    c = p + o
    for t in np.unique(c):
        occ = (p < t) & (t <= c)
        if int(np.sum(s[occ] + t - p[occ])) > M:
            return False
    return True


def event_solve(
    instance: Instance,
    domains: list,
    *,
    upper: int | None = None,
    time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
    cumulative: int = 1,
    hint=None,
    lagrangian: dict | None = None,
    stream: bool = False,
    params: dict | None = None,
    search: bool = False,
    family_no_overlap: bool = True,
    stop_first: bool = False,
    deadline: float | None = None,
) -> CpSatResult:
    """Search for a schedule of TEL ``<= upper - 1`` with starts in ``domains`` (CP-SAT, event model; ours).

    **Why checking memory at the completion rounds suffices.**  Request ``j`` occupies the
    integer times ``p_j + 1 .. c_j`` holding ``s_j + t - p_j`` (:mod:`kvlib.core.model`).
    Take any time ``t`` with some occupant and let ``t'`` be the smallest completion time
    ``c_i >= t`` over all requests.  Every occupant ``j`` of ``t`` has ``c_j >= t``, hence
    ``c_j >= t'``, and ``p_j < t <= t'``, so ``j`` occupies ``t'`` too and holds
    ``s_j + t' - p_j >= s_j + t - p_j`` there: memory at ``t`` is at most memory at ``t'``.
    (Between two completions no request leaves and every running one grows, so the maximum
    over such a stretch is at its last round, a completion round.)  So a start vector is
    feasible iff for every ``i``: ``P_i + sum_{j != i, p_j < c_i <= c_j} (s_j + c_i - p_j) <= M``
    (``i`` itself holds ``P_i = s_i + o_i`` at ``c_i``).

    The model is built in this order (CP-SAT's search can depend on it): start ``p_i`` over
    ``domains[i]``; the exact memory test at every completion round
    (:func:`_event_memory_constraints`); the redundant constraints (:func:`_twin_order_and_cliques`,
    :func:`_event_redundant_constraints`, :func:`_event_cumulative`); the Lagrangian cut
    (:func:`_lagrangian_cut`, with ``lagrangian`` from :mod:`kvlib.optimum.timelp`); the objective.
    ``cumulative >= 1``: a cumulative of the runs with height ``s_i + 1``; ``>= 2``: instead the
    exact interval encoding of :func:`cpsat_solve`.  ``family_no_overlap``: the no-overlap
    constraints of :func:`kvlib.optimum.bounds.tightened_families`.

    Objective ``min TEL`` with ``TEL <= upper - 1`` when ``upper`` is given: status
    ``INFEASIBLE`` then proves that no schedule inside the domains beats ``upper``.
    ``stop_first=True`` stops the search at the first solution found (status ``FEASIBLE``).
    ``stream=True`` prints every improving solution as a JSON line (the child-process
    wrapper recovers the last one if the child is stopped).  ``params``: extra CP-SAT
    parameters; ``search``: list-scheduling decision strategy; ``deadline``: wall clock
    (``time.time()``) at which the search must end at the latest.
    """
    cp_model, a, s, o, n, M = _model_and_arrays(instance)
    doms = [sorted(int(v) for v in d) for d in domains]
    const = sum(o[i] - a[i] for i in range(n))
    if any(len(d) == 0 for d in doms):
        return CpSatResult(None, None, int(upper) if upper is not None else 0, "INFEASIBLE", 0.0)
    m = cp_model.CpModel()
    p = [m.NewIntVarFromDomain(cp_model.Domain.FromValues(doms[i]), f"p{i}") for i in range(n)]
    _event_memory_constraints(m, instance, p, doms)
    runs = _twin_order_and_cliques(m, instance, p)
    _event_redundant_constraints(m, instance, p, family_no_overlap)
    _event_cumulative(m, instance, p, runs, cumulative)
    obj = sum(p) + const
    if lagrangian is not None:
        _lagrangian_cut(m, p, doms, lagrangian, obj)
    m.Minimize(obj)
    if upper is not None:
        m.Add(obj <= int(upper) - 1)
    if hint is not None:
        for i in range(n):
            m.AddHint(p[i], int(hint[i]))
    solver = _event_solver(cp_model, time_limit, workers, seed, params, deadline)
    if search:
        # list-scheduling order: the earliest possible start first, at its smallest value
        m.AddDecisionStrategy(p, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    if stream:
        st = solver.Solve(m, _streaming_callback(cp_model, p, stop_first=stop_first))
    elif stop_first:
        st = solver.Solve(m, _stopping_callback(cp_model))
    else:
        st = solver.Solve(m)
    return _event_result(cp_model, solver, st, p, upper)


def _event_memory_constraints(m, instance: Instance, p, doms: list) -> None:
    """The exact memory test of :func:`event_solve` at every completion round ``c_i = p_i + o_i``.

    For each ordered pair ``(i, j)`` with ``j`` able to occupy ``c_i`` within the domains: Booleans
    ``before`` (``c_j < c_i``) and ``after`` (``p_j >= c_i``); if ``P_i + s_j + 1 > M``, ``j``
    cannot occupy ``c_i`` (``before or after``); otherwise a Boolean ``r_ij`` with
    ``r_ij or before or after`` and an integer ``u_ij in [0, M - P_i]`` with
    ``r_ij => u_ij >= s_j + c_i - p_j``, and ``sum_j u_ij <= M - P_i``.  Every feasible schedule
    satisfies this with ``r_ij`` = "``j`` occupies ``c_i``" and ``u_ij`` its memory there (0
    otherwise); conversely any solution bounds the true memory at every ``c_i`` by ``M``, so by the
    argument of :func:`event_solve` the start vector is feasible.  The model is exact.
    """
    s, o, n, M = instance.prompt.tolist(), instance.output.tolist(), instance.n, int(instance.memory)
    P = [s[i] + o[i] for i in range(n)]
    c = [p[i] + o[i] for i in range(n)]
    pmin = [d[0] for d in doms]
    pmax = [d[-1] for d in doms]
    for i in range(n):
        terms = []
        for j in range(n):
            if j == i:
                continue
            # can j occupy c_i at all (p_j < c_i <= c_j) within the domains?
            if pmin[j] >= pmax[i] + o[i] or pmax[j] + o[j] < pmin[i] + o[i]:
                continue
            before = m.NewBoolVar(f"b{i}_{j}")  # c_j < c_i
            after = m.NewBoolVar(f"f{i}_{j}")  # p_j >= c_i
            m.Add(c[j] <= c[i] - 1).OnlyEnforceIf(before)
            m.Add(p[j] >= c[i]).OnlyEnforceIf(after)
            if P[i] + s[j] + 1 > M:
                m.AddBoolOr([before, after])
                continue
            r = m.NewBoolVar(f"r{i}_{j}")
            m.AddBoolOr([r, before, after])
            u = m.NewIntVar(0, M - P[i], f"u{i}_{j}")
            m.Add(u >= s[j] + c[i] - p[j]).OnlyEnforceIf(r)
            terms.append(u)
        if terms:
            m.Add(sum(terms) <= M - P[i])


def _event_redundant_constraints(m, instance: Instance, p, family_no_overlap: bool) -> None:
    """Sound redundant constraints of :func:`event_solve`, added after :func:`_twin_order_and_cliques`.

    (That one orders the starts of identical requests, equal ``(a, s, o)``, by index: permuting
    identical requests changes neither feasibility nor TEL, and the callers' domains are symmetric in
    identical requests.  Only identical requests may be ordered: "shortest first among equal prompts"
    is not a valid dominance rule for this objective.)  Here: the peak-conflict disjunctions
    ``c_j >= c_i + d_ij`` or ``c_i >= c_j + d_ji`` of :func:`kvlib.optimum.bounds.conflict_delays`;
    with ``family_no_overlap`` one no-overlap constraint per family of
    :func:`kvlib.optimum.bounds.tightened_families` over its pairwise disjoint intervals
    ``[c_j - tau_j, c_j + tau_j)`` (time doubled, so the ends are integers).
    """
    from kvlib.optimum.bounds import conflict_delays

    o = instance.output.tolist()
    c = [p[i] + o[i] for i in range(instance.n)]
    pairs, d = conflict_delays(instance)
    for (i, j), (dij, dji) in zip(pairs.tolist(), d.tolist()):
        y = m.NewBoolVar(f"y{i}_{j}")
        m.Add(c[j] >= c[i] + dij).OnlyEnforceIf(y)
        m.Add(c[i] >= c[j] + dji).OnlyEnforceIf(y.Not())
    if family_no_overlap:
        from kvlib.optimum.bounds import tightened_families

        # the disjoint intervals [c_j - tau_j, c_j + tau_j) of every family, on a doubled time
        # axis (2 tau_j is an integer: taus are multiples of 1/2)
        for K, tau in tightened_families(instance):
            two = np.round(2 * tau).astype(np.int64)
            if not np.allclose(two, 2 * tau):
                continue
            ivs = [m.NewIntervalVar(2 * p[j] + 2 * o[j] - int(t2), 2 * int(t2), 2 * p[j] + 2 * o[j] + int(t2),
                                    f"F{j}") for j, t2 in zip(K.tolist(), two.tolist())]
            m.AddNoOverlap(ivs)


def _event_cumulative(m, instance: Instance, p, runs: list, cumulative: int) -> None:
    """The redundant cumulative of :func:`event_solve`: with ``cumulative >= 2`` the exact interval
    encoding of :func:`cpsat_solve` over the run intervals ``runs``; with ``cumulative == 1`` a
    cumulative of capacity ``M`` over the runs with height ``s_i + 1`` (a request holds at least that
    at every time it occupies); none with ``cumulative <= 0``."""
    s, o, n, M = instance.prompt.tolist(), instance.output.tolist(), instance.n, int(instance.memory)
    if cumulative >= 2:
        intervals, demands = [], []
        for i in range(n):
            intervals.append(runs[i])
            demands.append(s[i])
            for k in range(1, o[i] + 1):
                intervals.append(m.NewIntervalVar(p[i] + k, o[i] - k + 1, p[i] + o[i] + 1, f"T{i}_{k}"))
                demands.append(1)
        m.AddCumulative(intervals, demands, M)
    elif cumulative >= 1:
        m.AddCumulative(runs, [s[i] + 1 for i in range(n)], M)


def _lagrangian_cut(m, p, doms: list, lagrangian: dict, obj) -> None:
    """The Lagrangian cut of :func:`event_solve` (``lagrangian`` from :mod:`kvlib.optimum.timelp`).

    Keys ``yb`` (the dual's row part ``sum_r y_r b_r``), ``req``, ``start``, ``reduced`` (per column
    ``(j, p)`` the reduced cost ``d_{j,p}``).  For every feasible schedule ``x`` (0/1 columns) weak
    duality gives ``TEL = c x = y A x + d x >= y b + sum_j d_{j, p_j}``; with ``S = 100``,
    ``sum_j floor(S d_{j,p_j}) <= S TEL - floor(S y b - 1)`` holds for every schedule inside the
    LP's windows (the floors only loosen it), so it is added through one element constraint per
    request.  It is the LP bound re-applied by CP-SAT under every branching decision.  No cut when
    the LP's columns do not cover some request's domain.
    """
    S = 100
    req = np.asarray(lagrangian["req"], dtype=np.int64)
    start = np.asarray(lagrangian["start"], dtype=np.int64)
    red = np.asarray(lagrangian["reduced"], dtype=float)
    fterms = []
    for i in range(len(p)):
        sel = req == i
        st_i, red_i = start[sel], red[sel]
        lo, hi = doms[i][0], doms[i][-1]
        if len(st_i) == 0 or st_i.min() > lo or st_i.max() < hi:
            fterms = None  # the LP does not cover the domain: no cut
            break
        table = {int(q): int(math.floor(S * r)) for q, r in zip(st_i, red_i)}
        vals = [table.get(q, 0) for q in range(lo, hi + 1)]
        idx = m.NewIntVar(0, hi - lo, f"k{i}")
        m.Add(idx == p[i] - lo)
        f = m.NewIntVar(min(vals), max(vals), f"f{i}")
        m.AddElement(idx, vals, f)
        fterms.append(f)
    if fterms:
        m.Add(sum(fterms) <= S * obj - int(math.floor(S * float(lagrangian["yb"]) - 1)))


def _event_solver(cp_model, time_limit: float, workers: int, seed: int, params: dict | None,
                  deadline: float | None):
    """A ``CpSolver`` with the parameters of :func:`event_solve` (the time limit cut to ``deadline``,
    a wall-clock ``time.time()``, when given; then the extra ``params``)."""
    solver = cp_model.CpSolver()
    if deadline is not None:  # wall clock (time.time()) at which the search must end
        import time as _time

        time_limit = min(float(time_limit), max(0.05, deadline - _time.time()))
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed)
    for key, value in (params or {}).items():
        setattr(solver.parameters, key, value)
    return solver


def _stopping_callback(cp_model):
    """A solution callback that stops the search at the first solution."""

    class _Stopper(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            self.StopSearch()

    return _Stopper()


def _event_result(cp_model, solver, st, p, upper: int | None) -> CpSatResult:
    """:func:`event_solve`'s result from the solver's status ``st``: with ``upper`` given, ``INFEASIBLE``
    proves the bound ``upper``; ``OPTIMAL`` proves the schedule's TEL."""
    name = solver.StatusName(st)
    bound = int(np.ceil(solver.BestObjectiveBound() - 1e-6))
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        starts = np.array([solver.Value(v) for v in p], dtype=np.int64)
        tel = int(round(solver.ObjectiveValue()))
        return CpSatResult(starts, tel, tel if st == cp_model.OPTIMAL else bound, name, solver.WallTime())
    if st == cp_model.INFEASIBLE and upper is not None:
        return CpSatResult(None, None, int(upper), name, solver.WallTime())
    return CpSatResult(None, None, bound, name, solver.WallTime())


# ----------------------------------------------------------------------------
# out-of-process use
#
# The OR-Tools wheel bundles its own build of HiGHS; in one Python process
# ``ortools`` and ``highspy`` cannot both be loaded (whichever comes second
# fails with an undefined-symbol ImportError).  kvlib.optimum.exact uses highspy, so
# it runs CP-SAT in a child process through :func:`cpsat_solve_subprocess`.


def _child_env() -> dict:
    """The environment of a CP-SAT child: this repository first on ``PYTHONPATH``, and this process's id
    (``KVLIB_PARENT_PID``) so that the child ends when its parent does (:func:`_die_with_parent`)."""
    import os
    import threading

    env = dict(os.environ)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository root
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["KVLIB_PARENT_PID"] = str(os.getpid())
    # Linux's parent-death signal fires when the creating *thread* ends: ask for it only from the main thread
    env["KVLIB_PDEATHSIG"] = "1" if threading.current_thread() is threading.main_thread() else "0"
    return env


def _die_with_parent(poll: float = 0.2) -> None:  # pragma: no cover - runs in the child
    """End this child process when the process that started it ends (SIGTERM, SIGKILL, crash): on Linux
    by the parent-death signal, everywhere by a daemon thread that watches the parent's id."""
    import os
    import signal
    import sys
    import threading
    import time

    parent = int(os.environ.get("KVLIB_PARENT_PID", "0") or 0)
    if not parent:
        return
    if sys.platform.startswith("linux") and os.environ.get("KVLIB_PDEATHSIG") == "1":
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent ended before the signal was armed
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def cpsat_solve_subprocess(
    instance: Instance,
    *,
    time_limit: float = 10.0,
    workers: int = 2,
    hint: np.ndarray | None = None,
    upper: int | None = None,
    seed: int = 0,
) -> CpSatResult:
    """:func:`cpsat_solve` in a child Python process (wall time ``time_limit`` including start-up).

    Never raises on failure of the child: returns ``starts=None`` and bound 0
    with the failure in ``status``.
    """
    import json
    import os
    import subprocess
    import sys
    import time

    tic = time.perf_counter()
    payload = {
        "arrival": [int(x) for x in instance.arrival],
        "prompt": [int(x) for x in instance.prompt],
        "output": [int(x) for x in instance.output],
        "memory": int(instance.memory),
        # about 1 s of the budget goes to starting Python and importing OR-Tools
        "time_limit": max(0.1, float(time_limit) - 1.0),
        "workers": int(workers),
        "hint": None if hint is None else [int(x) for x in hint],
        "upper": None if upper is None else int(upper),
        "seed": int(seed),
    }
    env = _child_env()
    try:
        proc = subprocess.run([sys.executable, "-m", "kvlib.optimum.cpsat"], input=json.dumps(payload), text=True,
                              capture_output=True, env=env, timeout=float(time_limit) + 30.0)
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError, OSError) as exc:
        return CpSatResult(None, None, 0, f"cp-sat child failed: {type(exc).__name__}", time.perf_counter() - tic)
    starts = None if out["starts"] is None else np.asarray(out["starts"], dtype=np.int64)
    return CpSatResult(starts, out["tel"], int(out["bound"]), out["status"], time.perf_counter() - tic)


def _last_streamed(text) -> tuple:
    """The last ``{"sol", "tel"}`` line a streaming child printed: ``(starts, tel)`` or ``(None, None)``."""
    import json

    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    for line in reversed((text or "").strip().splitlines()):
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(d, dict) and "sol" in d:
            return np.asarray(d["sol"], dtype=np.int64), int(d["tel"])
    return None, None


class CpSatJob:
    """:func:`cpsat_solve` running in a child process *in the background* (the caller keeps working).

    ``CpSatJob(instance, time_limit=..., workers=..., hint=..., upper=...)`` starts the child;
    :meth:`result` waits for it (``stop=True``: ends the search now and keeps the best schedule streamed
    so far; its bound is then 0, i.e. no bound).  Never raises on failure of the child.
    """

    def __init__(self, instance: Instance, *, time_limit: float = 10.0, workers: int = 1,
                 hint: np.ndarray | None = None, upper: int | None = None, seed: int = 0):
        import json
        import os
        import subprocess
        import sys
        import time

        self._tic = time.perf_counter()
        self.time_limit = float(time_limit)
        payload = {
            "arrival": [int(x) for x in instance.arrival],
            "prompt": [int(x) for x in instance.prompt],
            "output": [int(x) for x in instance.output],
            "memory": int(instance.memory),
            "time_limit": max(0.1, float(time_limit) - 1.0),
            "workers": int(workers),
            "hint": None if hint is None else [int(x) for x in hint],
            "upper": None if upper is None else int(upper),
            "seed": int(seed),
            "stream": True,
        }
        env = _child_env()
        # stdout goes to a file, not a pipe: a full pipe would block the child's solution callback
        import tempfile

        self._out = tempfile.TemporaryFile(mode="w+", encoding="utf8")
        self._proc = subprocess.Popen([sys.executable, "-m", "kvlib.optimum.cpsat"], stdin=subprocess.PIPE,
                                      stdout=self._out, stderr=subprocess.DEVNULL, text=True, env=env)
        self._proc.stdin.write(json.dumps(payload))
        self._proc.stdin.close()

    def result(self, stop: bool = False) -> CpSatResult:
        """The child's result; ``stop``: terminate it first (its last streamed schedule, no bound)."""
        import json
        import subprocess
        import time

        stopped = False
        if stop and self._proc.poll() is None:
            self._proc.terminate()
            stopped = True
        try:
            self._proc.wait(timeout=self.time_limit + 30.0)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            stopped = True
        self._out.seek(0)
        out_text = self._out.read()
        self._out.close()
        secs = time.perf_counter() - self._tic
        if not stopped:
            try:
                out = json.loads(out_text.strip().splitlines()[-1])
                if "status" in out:
                    starts = None if out["starts"] is None else np.asarray(out["starts"], dtype=np.int64)
                    return CpSatResult(starts, out["tel"], int(out["bound"]), out["status"], secs)
            except (json.JSONDecodeError, IndexError):
                pass
        starts, tel = _last_streamed(out_text)
        return CpSatResult(starts, tel, 0, "STOPPED" if stopped else "cp-sat child failed", secs)


def event_solve_subprocess(
    instance: Instance,
    domains: list,
    *,
    upper: int | None = None,
    time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
    cumulative: int = 1,
    lagrangian: dict | None = None,
    params: dict | None = None,
    search: bool = False,
    family_no_overlap: bool = True,
    stop_first: bool = False,
) -> CpSatResult:
    """:func:`event_solve` in a child Python process; returns within about ``time_limit + 3`` s (the child stops its search at ``time_limit - 0.7`` s after the call, its own start-up included).

    Never raises on failure of the child: returns the last streamed solution (if any), bound 0
    and the failure in ``status``.
    """
    import json
    import os
    import subprocess
    import sys
    import time

    tic = time.perf_counter()
    payload = {
        "model": "event",
        "arrival": [int(x) for x in instance.arrival],
        "prompt": [int(x) for x in instance.prompt],
        "output": [int(x) for x in instance.output],
        "memory": int(instance.memory),
        "domains": [[int(v) for v in d] for d in domains],
        "time_limit": max(0.1, float(time_limit) - 1.0),
        # wall-clock deadline: the child subtracts its own start-up and model-build time
        "deadline": time.time() + max(0.1, float(time_limit) - 0.7),
        "workers": int(workers),
        "upper": None if upper is None else int(upper),
        "seed": int(seed),
        "cumulative": int(cumulative),
        "params": params or {},
        "search": bool(search),
        "family_no_overlap": bool(family_no_overlap),
        "stop_first": bool(stop_first),
        "lagrangian": None if lagrangian is None else {
            "yb": float(lagrangian["yb"]), "req": [int(v) for v in lagrangian["req"]],
            "start": [int(v) for v in lagrangian["start"]], "reduced": [float(v) for v in lagrangian["reduced"]]},
    }
    env = _child_env()
    try:
        proc = subprocess.run([sys.executable, "-m", "kvlib.optimum.cpsat"], input=json.dumps(payload), text=True,
                              capture_output=True, env=env, timeout=float(time_limit) + 3.0)
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired as exc:
        starts, tel = _last_streamed(exc.stdout)
        return CpSatResult(starts, tel, 0, "cp-sat child failed: TimeoutExpired", time.perf_counter() - tic)
    except (json.JSONDecodeError, IndexError, OSError) as exc:
        return CpSatResult(None, None, 0, f"cp-sat child failed: {type(exc).__name__}", time.perf_counter() - tic)
    starts = None if out["starts"] is None else np.asarray(out["starts"], dtype=np.int64)
    return CpSatResult(starts, out["tel"], int(out["bound"]), out["status"], time.perf_counter() - tic)


def _main() -> None:  # pragma: no cover - run as a child process
    import json
    import sys

    _die_with_parent()
    d = json.loads(sys.stdin.read())
    inst = Instance.from_arrays(d["arrival"], d["prompt"], d["output"], d["memory"])
    if d.get("model") == "event":
        r = event_solve(inst, d["domains"], upper=d["upper"], time_limit=d["time_limit"], workers=d["workers"],
                        seed=d["seed"], cumulative=d.get("cumulative", 1), lagrangian=d.get("lagrangian"),
                        stream=True, params=d.get("params"), search=d.get("search", False),
                        family_no_overlap=d.get("family_no_overlap", True), stop_first=d.get("stop_first", False),
                        deadline=d.get("deadline"))
        print(json.dumps({"starts": None if r.starts is None else [int(x) for x in r.starts], "tel": r.tel,
                          "bound": int(r.bound), "status": r.status}))
        return
    r = cpsat_solve(inst, time_limit=d["time_limit"], workers=d["workers"],
                    hint=None if d["hint"] is None else np.asarray(d["hint"]), upper=d["upper"], seed=d["seed"],
                    stream=d.get("stream", False))
    print(json.dumps({"starts": None if r.starts is None else [int(x) for x in r.starts], "tel": r.tel,
                      "bound": int(r.bound), "status": r.status}))


if __name__ == "__main__":  # pragma: no cover
    _main()
