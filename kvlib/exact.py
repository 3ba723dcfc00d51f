"""The hindsight optimum: the time-indexed integer program of 001 eq. (1)-(4).

Variables ``x[i, p] = 1`` iff request ``i`` starts at ``p`` (``a_i <= p <= L_i``).

* (1) objective: ``min sum_i sum_p (p + o_i - a_i) x[i, p]`` (TEL);
* (2) every request starts exactly once: ``sum_p x[i, p] = 1``;
* (3) memory at every integer time ``t = 1..T``:
  ``sum_i sum_{p = t - o_i}^{t - 1} (s_i + t - p) x[i, p] <= M``
  (the model convention of :mod:`kvlib.model`: a run started at ``p``
  occupies ``p+1 .. p+o`` holding ``s + t - p``);
* (4) ``x`` binary.

The latest starts ``L_i`` come from :func:`kvlib.bounds.latest_starts`
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

:func:`solve` never raises on a time limit: it returns a :class:`SolveResult`
with a certified interval ``lower <= OPT <= upper``; ``optimal`` is True only
when ``lower == upper``.  The schedule reported is always validated by
:func:`kvlib.checker.check_schedule`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .bounds import latest_starts, volume_lower_bound
from .checker import check_schedule
from .model import Instance, Schedule
from .policies import make_policy
from .simulate import simulate

#: policies tried for the incumbent (non-preemptive ones only).
INCUMBENT_POLICIES = ("mc-sf", "mc-sf2", "mc-benchmark", "fcfs")


@dataclass
class SolveResult:
    """A certified interval for the optimal TEL.

    ``lower <= OPT <= upper``; ``starts`` is a schedule of TEL ``upper`` checked
    by :func:`kvlib.checker.check_schedule`; ``optimal`` iff ``lower == upper``.
    """

    lower: int
    upper: int
    optimal: bool
    starts: tuple[int, ...]
    status: str
    seconds: float
    incumbent: int = 0  #: TEL of the heuristic warm start
    incumbent_source: str = ""
    horizon: int = 0
    num_vars: int = 0
    num_rows: int = 0
    formulation: str = "plain"
    extra: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """Relative gap ``(upper - lower) / upper`` (0 when optimal)."""
        return (self.upper - self.lower) / self.upper if self.upper else 0.0

    def as_dict(self) -> dict:
        return {
            "lower": int(self.lower),
            "upper": int(self.upper),
            "optimal": bool(self.optimal),
            "starts": [int(p) for p in self.starts],
            "seconds": float(self.seconds),
            "status": self.status,
            "gap": self.gap,
            "incumbent": int(self.incumbent),
            "incumbent_source": self.incumbent_source,
            "horizon": int(self.horizon),
            "formulation": self.formulation,
        }


#: The issue calls the result type "Bounds"; it is the same class.
Bounds = SolveResult


# ----------------------------------------------------------------------------
# incumbents


def _feasible_start(instance: Instance, usage: np.ndarray, i: int, lo: int, hi: int) -> int | None:
    """Earliest ``p`` in ``[lo, hi]`` at which request ``i`` fits on top of ``usage``."""
    s, o, M = int(instance.prompt[i]), int(instance.output[i]), instance.memory
    prof = s + np.arange(1, o + 1)
    for p in range(lo, hi + 1):
        seg = usage[p + 1 : p + o + 1]
        if np.all(seg + prof[: len(seg)] <= M):
            return p
    return None


def left_shift(instance: Instance, starts: np.ndarray, rounds: int = 20) -> np.ndarray:
    """Local search: repeatedly move each request to its earliest feasible start, others fixed.

    Every move keeps the schedule feasible and never increases TEL.
    """
    starts = np.array(starts, dtype=np.int64)
    s, o, a = instance.prompt, instance.output, instance.arrival
    H = int((starts + o).max()) + 2
    usage = np.zeros(H + 1, dtype=np.int64)
    for i, p in enumerate(starts):
        usage[p + 1 : p + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
    for _ in range(rounds):
        moved = False
        for i in np.argsort(starts, kind="stable"):
            p = int(starts[i])
            if p == a[i]:
                continue
            usage[p + 1 : p + o[i] + 1] -= s[i] + np.arange(1, o[i] + 1)
            q = _feasible_start(instance, usage, int(i), int(a[i]), p - 1)
            if q is None:
                q = p
            else:
                moved = True
            usage[q + 1 : q + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
            starts[i] = q
        if not moved:
            break
    return starts


def heuristic_incumbent(instance: Instance, policies=INCUMBENT_POLICIES) -> tuple[np.ndarray, int, str]:
    """Best checked schedule among ``policies`` (each followed by :func:`left_shift`)."""
    best = None
    for name in policies:
        res = simulate(instance, make_policy(name), seed=0)
        for label, st in ((name, res.schedule.start_array()),
                          (name + "+shift", left_shift(instance, res.schedule.start_array()))):
            rep = check_schedule(instance, Schedule(tuple(int(x) for x in st)))
            if rep.valid and (best is None or rep.tel < best[1]):
                best = (np.asarray(st, dtype=np.int64), int(rep.tel), label)
    assert best is not None
    return best


# ----------------------------------------------------------------------------
# model


@dataclass
class TimeIndexedModel:
    """The cvxpy problem and the map from columns to (request, start)."""

    problem: object
    x: object
    req: np.ndarray  #: request of each column
    start: np.ndarray  #: start time of each column
    cost: np.ndarray  #: latency of each column
    horizon: int
    latest: np.ndarray
    formulation: str

    def column(self, i: int, p: int) -> int:
        idx = np.flatnonzero((self.req == i) & (self.start == p))
        return int(idx[0]) if len(idx) else -1

    def starts_from(self, values: np.ndarray) -> np.ndarray:
        """Start times from a (near-)integral column vector."""
        n = int(self.req.max()) + 1
        out = np.full(n, -1, dtype=np.int64)
        best = np.full(n, -1.0)
        for c in np.flatnonzero(values > 0.5):
            i = self.req[c]
            if values[c] > best[i]:
                best[i], out[i] = values[c], self.start[c]
        return out


def _symmetry_pairs(instance: Instance) -> list[tuple[int, int]]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, r in enumerate(instance.requests):
        groups.setdefault((r.arrival, r.prompt, r.output), []).append(i)
    return [(g[k], g[k + 1]) for g in groups.values() for k in range(len(g) - 1)]


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

    ``latest`` defaults to :func:`kvlib.bounds.latest_starts` with the
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
        pairs = _symmetry_pairs(instance)
        if pairs:
            rows, cols, vals = [], [], []
            for k, (i, j) in enumerate(pairs):
                ci = np.flatnonzero(req == i)
                cj = np.flatnonzero(req == j)
                rows += [k] * (len(ci) + len(cj))
                cols += ci.tolist() + cj.tolist()
                vals += start[ci].tolist() + (-start[cj]).tolist()
            A4 = sp.csr_matrix((np.asarray(vals, float), (rows, cols)), shape=(len(pairs), N))
            cons.append(A4 @ x <= 0)
    prob = cp.Problem(cp.Minimize(cost @ x), cons)
    return TimeIndexedModel(prob, x, req, start, cost, T, latest, formulation)


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


def solve(
    instance: Instance,
    *,
    time_limit: float = 60.0,
    threads: int = 2,
    formulation: str = "plain",
    symmetry: bool = True,
    windows: bool = True,
    warm_start: bool = True,
    incumbent: tuple[np.ndarray, int, str] | None = None,
    verbose: bool = False,
) -> SolveResult:
    """Certified interval for the optimal TEL of ``instance`` (never raises on a time limit).

    ``windows=False`` uses only the left-shift horizon (no incumbent-based
    latest starts); ``warm_start=False`` does not give HiGHS the incumbent
    (it is still used for ``upper``).
    """
    import highspy as hp

    tic = time.perf_counter()
    if incumbent is None:
        incumbent = heuristic_incumbent(instance)
    inc_starts, inc_tel, inc_src = incumbent
    lb0 = volume_lower_bound(instance)
    model = build_model(instance, upper=inc_tel if windows else None, formulation=formulation, symmetry=symmetry)
    h, nx = _highs_from_cvxpy(model)
    ncol = h.getNumCol()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1.0 - 1e-6)  # integer objective: a gap below 1 is closed
    h.setOptionValue("random_seed", 0)
    remaining = max(0.1, time_limit - (time.perf_counter() - tic))
    h.setOptionValue("time_limit", float(remaining))
    # objective cut-off: only strictly better schedules are interesting
    h.setOptionValue("objective_bound", float(inc_tel) + 0.5)
    if warm_start:
        vec = _warm_vector(model, instance, inc_starts, ncol)
        if vec is not None:
            sol = hp.HighsSolution()
            sol.col_value = vec.tolist()
            sol.value_valid = True
            h.setSolution(sol)
    # HiGHS keeps one global thread pool per process; a solve with a different
    # thread count than the pool's (including solves made through cvxpy, e.g.
    # kvlib.lp, which we cannot see) makes run() fail unless the pool is reset.
    hp.Highs.resetGlobalScheduler(True)
    run_status = h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    best_starts, best_tel, src = np.asarray(inc_starts), int(inc_tel), inc_src
    if info.primal_solution_status == 2:  # kSolutionStatusFeasible
        vals = np.asarray(h.getSolution().col_value)[:nx]
        st = model.starts_from(vals)
        if np.all(st >= 0):
            rep = check_schedule(instance, Schedule(tuple(int(p) for p in st)))
            if rep.valid and rep.tel < best_tel:
                best_starts, best_tel, src = st, int(rep.tel), "highs"
    status_name = h.modelStatusToString(status)
    if run_status == hp.HighsStatus.kError:
        status_name = f"HiGHS error ({status_name})"
    dual = info.mip_dual_bound
    if status == hp.HighsModelStatus.kOptimal:
        lower = best_tel if dual is None or not math.isfinite(dual) else math.ceil(dual - 1e-6)
    elif status == hp.HighsModelStatus.kInfeasible:
        # infeasible under the cut-off "TEL <= incumbent + 0.5": the incumbent is optimal
        lower = best_tel
        status_name = "Optimal (incumbent; no better schedule exists)"
    else:
        lower = math.ceil(dual - 1e-6) if dual is not None and math.isfinite(dual) and abs(dual) < 1e15 else lb0
    lower = int(min(max(lower, lb0), best_tel))
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in best_starts)))
    if not rep.valid or rep.tel != best_tel:  # pragma: no cover - defensive
        raise AssertionError("internal error: reported schedule rejected by the checker")
    return SolveResult(
        lower=lower,
        upper=best_tel,
        optimal=lower >= best_tel,
        starts=tuple(int(p) for p in best_starts),
        status=status_name,
        seconds=time.perf_counter() - tic,
        incumbent=int(inc_tel),
        incumbent_source=src if src != "highs" else f"highs (warm start {inc_src} {inc_tel})",
        horizon=model.horizon,
        num_vars=ncol,
        num_rows=h.getNumRow(),
        formulation=formulation,
        extra={"nodes": int(info.mip_node_count), "volume_lb": lb0},
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
