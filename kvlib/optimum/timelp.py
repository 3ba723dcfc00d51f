"""The time-indexed LP relaxation of 001 eq. (1)-(4), strengthened with conflict-family rows (ours).

Columns ``x[j, p]`` (request ``j`` starts at ``p``, ``a_j <= p <= L_j``) with ``0 <= x <= 1``;
rows: the assignment (2) and memory (3) rows of :func:`build_sparse` below
(windows ``L_j`` from :func:`kvlib.optimum.bounds.latest_starts` with the incumbent value,
sound for every optimal schedule), plus *family rows*: for every family ``(K, tau)`` of
:func:`kvlib.optimum.bounds.tightened_families` and every half-integer point ``y``,

    ``sum_{j in K} sum_{p : c - tau_j <= y < c + tau_j, c = p + o_j} x[j, p] <= 1``.

They are valid because in every feasible schedule the intervals ``[c_j - tau_j, c_j + tau_j)``
(``j in K``) are pairwise disjoint (proof in :func:`~kvlib.optimum.bounds.tightened_families`),
so at most one of them contains ``y``.  The rows are added lazily (the most violated ones,
at most ``rows_per_round`` per round) and the LP is re-solved warm (dual simplex).  The LP
value after *any* round is the value of a relaxation, so it is a valid lower bound whether or
not the loop converged.

**Capacity rows** (:func:`capacity_rows`, ours): for an integer ``k >= 3`` and a time ``t``,

    ``sum_{j, p : p < t <= p + o_j} (ceil(k w_{j,p,t} / M) - 1) x[j, p] <= k - 1``,

with ``w_{j,p,t} = s_j + t - p`` the tokens request ``j`` started at ``p`` holds at ``t``.  With
``k = 3``: a request holding more than ``M/3`` counts 1, more than ``2M/3`` counts 2, and the total is
at most 2 (so at most two requests can hold more than ``M/3`` each).  ``k = 2`` is the half-memory
clique of :func:`_family_intervals`.  They are added lazily like the family rows when asked for
(``capacity_orders``); off by default: on the instances of ``benchmarks/exact_scaling.py`` at
``n = 10``-``40`` they are violated in the first rounds but not at the converged LP optimum (the
family rows already cut those points), so the bound did not move, and at ``n = 40`` the extra rows
slowed the time-limited rounds (``benchmarks/lp_variants_results.jsonl``).

**Safe rounding.** The bound is not HiGHS's reported objective but the Lagrangian value
``L(y) = sum_r y_r b_r + sum_c min(0, cost_c - (A^T y)_c)`` recomputed in double precision
from HiGHS's row duals after clipping their signs (``y_r <= 0`` on ``<=`` rows, free on the
equality rows), with ``b_r`` the finite side.  Weak duality makes ``L(y)`` a lower bound on the
LP for *any* such ``y``, so the only error left is floating-point summation (relative
``~1e-13`` here); the TEL bound is ``ceil(L - 1e-6) - 0`` (TEL is an integer).

**Reduced-cost fixing** (:func:`reduced_cost_fixing`): with ``d = cost - A^T y``, any
schedule using column ``(j, p)`` has value at least ``L(y) + max(0, d_c)`` (fix ``x_c = 1``
in the Lagrangian).  A schedule strictly better than the incumbent ``UB`` has TEL
``<= UB - 1``, so columns with ``L(y) + max(0, d_c) > UB - 1`` are used by no improving
schedule inside the windows and can be removed from any exact search for one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from kvlib.core.highs import run as run_highs
from kvlib.core.model import Instance
from kvlib.optimum.bounds import latest_starts, tightened_families


# ----------------------------------------------------------------------------
# the plain time-indexed model of 001 (1)-(4) as a sparse matrix (also used by kvlib.optimum.exact)


def starts_from_values(req: np.ndarray, start: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Start times from a (near-)integral column vector."""
    n = int(req.max()) + 1
    out = np.full(n, -1, dtype=np.int64)
    best = np.full(n, -1.0)
    for c in np.flatnonzero(values > 0.5):
        i = req[c]
        if values[c] > best[i]:
            best[i], out[i] = values[c], start[c]
    return out


def _symmetry_pairs(instance: Instance) -> list[tuple[int, int]]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, r in enumerate(instance.requests):
        groups.setdefault((r.arrival, r.prompt, r.output), []).append(i)
    return [(g[k], g[k + 1]) for g in groups.values() for k in range(len(g) - 1)]


def _symmetry_matrix(instance: Instance, req: np.ndarray, start: np.ndarray) -> sp.csr_matrix | None:
    """Rows ``sum_p p x[i,p] - sum_p p x[j,p] <= 0`` for consecutive twins ``i < j`` (None if no twins)."""
    pairs = _symmetry_pairs(instance)
    if not pairs:
        return None
    rows, cols, vals = [], [], []
    for k, (i, j) in enumerate(pairs):
        ci = np.flatnonzero(req == i)
        cj = np.flatnonzero(req == j)
        rows += [k] * (len(ci) + len(cj))
        cols += ci.tolist() + cj.tolist()
        vals += start[ci].tolist() + (-start[cj]).tolist()
    return sp.csr_matrix((np.asarray(vals, float), (rows, cols)), shape=(len(pairs), len(req)))


class ColumnIndex:
    """Columns ``(req[c], start[c])`` of a time-indexed model (``x_{i,p}``): shared by the sparse model
    here and the cvxpy model of :mod:`kvlib.optimum.exact`."""

    req: np.ndarray
    start: np.ndarray

    def column(self, i: int, p: int) -> int:
        """The column of request ``i`` started at ``p`` (-1 if the model has none)."""
        idx = np.flatnonzero((self.req == i) & (self.start == p))
        return int(idx[0]) if len(idx) else -1

    def starts_from(self, values: np.ndarray) -> np.ndarray:
        """Start times from a (near-)integral column vector."""
        return starts_from_values(self.req, self.start, values)


@dataclass
class SparseModel(ColumnIndex):
    """The plain model (1)-(4) as ``min cost @ x`` s.t. ``row_lower <= A @ x <= row_upper``.

    Rows: the ``n`` assignment rows (2), then the ``T`` memory rows (3) for
    ``t = 1..T``, then one row per symmetry pair.  :func:`build_model` with
    ``formulation="plain"`` produces the same matrix through cvxpy (checked by
    ``tests/test_exact.py``); this builder is vectorised and skips cvxpy's
    canonicalisation, which dominated the build time at ``n = 40-60``.
    """

    A: sp.csc_matrix
    cost: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    req: np.ndarray
    start: np.ndarray
    horizon: int
    latest: np.ndarray
    formulation: str = "plain"



def build_sparse(
    instance: Instance,
    *,
    upper: int | None = None,
    latest: np.ndarray | None = None,
    symmetry: bool = True,
) -> SparseModel:
    """The plain time-indexed IP of 001 (1)-(4) as a scipy CSC matrix (see :class:`SparseModel`)."""
    a, s, o, M = instance.arrival, instance.prompt, instance.output, instance.memory
    n = instance.n
    if latest is None:
        latest = latest_starts(instance, upper)
    latest = np.maximum(np.asarray(latest, dtype=np.int64), a)
    width = latest - a + 1
    req = np.repeat(np.arange(n, dtype=np.int64), width)
    start = (np.arange(int(width.sum()), dtype=np.int64) - np.repeat(np.cumsum(width) - width, width)
             + np.repeat(a, width))
    N = len(req)
    T = int((latest + o).max())
    cost = (start + o[req] - a[req]).astype(float)
    # column c: assignment row req[c] (value 1), then memory rows n + p + k - 1 (value s + k), k = 1..o
    lens = o[req] + 1
    indptr = np.concatenate([[0], np.cumsum(lens)])
    pos = np.arange(int(indptr[-1]), dtype=np.int64) - np.repeat(indptr[:-1], lens)  # 0..o within column
    colof = np.repeat(np.arange(N, dtype=np.int64), lens)
    first = pos == 0
    rows = np.where(first, req[colof], n + start[colof] + pos - 1)
    vals = np.where(first, 1.0, (s[req[colof]] + pos).astype(float))
    n_rows = n + T
    row_lower = np.concatenate([np.ones(n), np.full(T, -np.inf)])
    row_upper = np.concatenate([np.ones(n), np.full(T, float(M))])
    A = sp.csc_matrix((vals, rows, indptr), shape=(n_rows, N))
    if symmetry:
        A4 = _symmetry_matrix(instance, req, start)
        if A4 is not None:
            A = sp.vstack([A, A4], format="csc")
            row_lower = np.concatenate([row_lower, np.full(A4.shape[0], -np.inf)])
            row_upper = np.concatenate([row_upper, np.zeros(A4.shape[0])])
    return SparseModel(A, cost, row_lower, row_upper, req, start, T, latest)


@dataclass
class TimeLPResult:
    """Outcome of :func:`time_indexed_lp`."""

    bound: int  #: certified TEL lower bound (safe dual, rounded up)
    value: float  #: HiGHS's last LP objective
    safe_value: float  #: the Lagrangian value ``L(y)`` (see module docstring)
    rounds: int
    family_rows: int
    converged: bool
    seconds: float
    req: np.ndarray = field(repr=False)  #: request of each column
    start: np.ndarray = field(repr=False)  #: start of each column
    reduced: np.ndarray = field(repr=False)  #: reduced cost ``cost - A^T y`` of each column
    yb: float = -math.inf  #: ``sum_r y_r b_r`` (so ``safe_value = yb + sum min(0, reduced)``)
    status: str = ""
    highs: object = field(default=None, repr=False)  #: the HiGHS object (LP with the family rows) if kept

    def lagrangian(self) -> dict:
        """The data of the Lagrangian cut of :func:`kvlib.optimum.cpsat.event_solve`."""
        return {"yb": self.yb, "req": self.req, "start": self.start, "reduced": self.reduced}


def lp_size(instance: Instance, latest: np.ndarray) -> tuple[int, int]:
    """(columns, non-zeros) of the time-indexed model with latest starts ``latest``, as exact Python
    integers (with outputs near 2**53 the count passes 2**63: int64 would wrap and let the model be built)."""
    width = [max(int(L) - int(a) + 1, 1) for L, a in zip(latest, instance.arrival.tolist())]
    return sum(width), sum(w * (int(o) + 1) for w, o in zip(width, instance.output.tolist()))


def _family_intervals(instance: Instance, req: np.ndarray, start: np.ndarray, families, time_cliques: bool = True):
    """For each family: (columns, first k, last k) with ``y = k + 1/2`` covered by column's interval."""
    o = instance.output
    out = []
    for K, tau in families:
        t = np.full(instance.n, np.nan)
        t[K] = tau
        cols = np.flatnonzero(~np.isnan(t[req]))
        c = (start[cols] + o[req[cols]]).astype(float)
        tj = t[req[cols]]
        # y = k + 1/2 with c - tau <= y < c + tau
        k_lo = np.ceil(c - tj - 0.5 - 1e-9).astype(np.int64)
        k_hi = (np.ceil(c + tj - 0.5 - 1e-9) - 1).astype(np.int64)
        ok = k_hi >= k_lo
        out.append((cols[ok], k_lo[ok], k_hi[ok]))
    if time_cliques:
        # half-memory cliques: at integer time t at most one request holds more than M/2
        s, M = instance.prompt, instance.memory
        P = s + o
        cols = np.flatnonzero(2 * P[req] > M)
        c = start[cols] + o[req[cols]]
        # j at t (p < t <= c) holds P_j - (c - t) > M/2  <=>  t > c - P_j + M/2
        k_lo = np.maximum(start[cols] + 1, np.floor(c - P[req[cols]] + M / 2).astype(np.int64) + 1)
        ok = c >= k_lo
        out.append((cols[ok], k_lo[ok], c[ok]))
    return out


def _violated_rows(x: np.ndarray, intervals, limit: int, seen: set) -> list[tuple[int, int, np.ndarray]]:
    """Most violated family rows at solution ``x``: list of (family, k, columns)."""
    cand = []
    for f, (cols, lo, hi) in enumerate(intervals):
        if not len(cols):
            continue
        base = int(lo.min())
        span = int(hi.max()) - base + 2
        diff = np.zeros(span + 1)
        np.add.at(diff, lo - base, x[cols])
        np.add.at(diff, hi - base + 1, -x[cols])
        act = np.cumsum(diff)[:span]
        ks = np.flatnonzero(act > 1 + 1e-6)
        if not len(ks):
            continue
        # keep local maxima of the activity among violated points (neighbours give near-copies)
        left = np.concatenate([[-np.inf], act[:-1]])
        right = np.concatenate([act[1:], [-np.inf]])
        ks = ks[(act[ks] >= left[ks]) & (act[ks] >= right[ks])]
        for k in ks:
            if (f, int(k) + base) not in seen:
                cand.append((float(act[k]), f, int(k) + base))
    cand.sort(reverse=True)
    rows = []
    for _, f, k in cand[:limit]:
        cols, lo, hi = intervals[f]
        sel = cols[(lo <= k) & (k <= hi)]
        seen.add((f, k))
        rows.append((f, k, sel))
    return rows


def capacity_rows(memory_rows: sp.spmatrix, memory: int, k: int) -> sp.csr_matrix:
    """The capacity rows of order ``k`` (module docstring), one per memory row (3).

    ``memory_rows`` holds the memory rows of :func:`build_sparse` (row ``t - 1`` for time ``t``,
    entry ``w = s_j + t - p`` for column ``(j, p)``); the result has the same pattern with entries
    ``ceil(k w / M) - 1`` (zeros dropped) and right-hand side ``k - 1``.

    *Validity.*  Take any feasible schedule (integer ``x``) and a time ``t``; let ``S`` be the
    requests running at ``t`` (``p_j < t <= p_j + o_j``), holding ``w_j`` tokens, with
    ``sum_{j in S} w_j <= M`` by (3).  Since ``ceil(z) - 1 < z`` for every real ``z``,
    ``sum_{j in S} (ceil(k w_j / M) - 1) < sum_{j in S} k w_j / M <= k``; the left side is an
    integer, hence ``<= k - 1``.  The row's left side at ``x`` is exactly that sum (one column per
    running request).  So the row holds for every feasible schedule; for ``k = 2`` it says that at
    most one request holds more than ``M/2``, for ``k = 3`` that the requests holding more than
    ``M/3`` count at most 2 (one holding more than ``2M/3`` counts twice).  It is not implied by (3)
    in the LP: three columns at value 0.9 holding ``0.35 M`` each satisfy (3) (``0.945 M``) and
    violate the ``k = 3`` row (``2.7 > 2``).
    """
    if int(k) < 2:
        raise ValueError(f"capacity row order k must be >= 2, got {k!r}")
    B = sp.csr_matrix(memory_rows, copy=True)
    w = np.rint(B.data).astype(np.int64)
    B.data = ((int(k) * w + int(memory) - 1) // int(memory) - 1).astype(float)
    B.eliminate_zeros()
    return B


def _violated_capacity(x: np.ndarray, caps: list, limit: int, seen: set) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Most violated capacity rows at ``x``: list of (columns, coefficients, right-hand side)."""
    cand = []
    for k, B in caps:
        act = B @ x
        for t in np.flatnonzero(act > k - 1 + 1e-6):
            if (k, int(t)) not in seen:
                cand.append((float(act[t] - (k - 1)), k, int(t), B))
    cand.sort(key=lambda c: -c[0])
    out = []
    for _, k, t, B in cand[:limit]:
        seen.add((k, t))
        lo, hi = B.indptr[t], B.indptr[t + 1]
        out.append((B.indices[lo:hi].astype(np.int64), B.data[lo:hi].copy(), float(k - 1)))
    return out


def _safe_dual(A: sp.csc_matrix, cost: np.ndarray, row_lower: np.ndarray, row_upper: np.ndarray,
               y: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Lagrangian bound ``L(y)``, reduced costs and ``sum_r y_r b_r`` for ``min cost x, row_lower <= A x <= row_upper, 0 <= x <= 1``."""
    y = np.asarray(y, dtype=float).copy()
    eq = row_lower == row_upper
    up_only = ~eq & np.isfinite(row_upper) & ~np.isfinite(row_lower)
    lo_only = ~eq & np.isfinite(row_lower) & ~np.isfinite(row_upper)
    y[up_only] = np.minimum(y[up_only], 0.0)
    y[lo_only] = np.maximum(y[lo_only], 0.0)
    y[~(eq | up_only | lo_only)] = 0.0  # ranged or free rows are not used here
    b = np.where(eq | lo_only, row_lower, np.where(up_only, row_upper, 0.0))
    red = cost - A.T @ y
    yb = math.fsum((y * b).tolist())
    value = yb + math.fsum(np.minimum(red, 0.0).tolist())
    return value, red, yb


def time_indexed_lp(instance: Instance, latest: np.ndarray, *, time_limit: float = 30.0, threads: int = 1,
                    families=None, rows_per_round: int = 2000, max_rounds: int = 200,
                    solver: str = "simplex", verbose: bool = False, log=None, keep: bool = False,
                    time_cliques: bool = True, capacity_orders: tuple[int, ...] = ()) -> TimeLPResult:
    """The strengthened time-indexed LP (module docstring) within ``time_limit`` seconds.

    ``latest``: sound latest starts (e.g. :func:`kvlib.optimum.bounds.latest_starts` with the
    incumbent).  ``families``: ``(K, tau)`` pairs (default :func:`tightened_families`; ``[]``
    gives the plain LP).  ``capacity_orders``: the orders ``k`` of the capacity rows separated
    (:func:`capacity_rows`; ``()`` switches them off).  Returns the certified bound of the best
    solved round (work done is never lost: a time-out keeps the previous rounds' bound).
    """
    import highspy as hp

    tic = time.perf_counter()
    model = build_sparse(instance, latest=latest, symmetry=False)
    A = model.A.tocsc()
    cost = model.cost
    rl, ru = model.row_lower.copy(), model.row_upper.copy()
    N = A.shape[1]
    if families is None:
        families = tightened_families(instance)
    intervals = _family_intervals(instance, model.req, model.start, families, time_cliques)
    n_req = instance.n
    mem_rows = A[n_req:n_req + model.horizon, :]
    caps = [(int(k), capacity_rows(mem_rows, instance.memory, int(k))) for k in capacity_orders]
    h = hp.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("presolve", "off")
    if solver == "ipm":
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "on")
    lp = hp.HighsLp()
    lp.num_col_ = N
    lp.num_row_ = A.shape[0]
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(N)
    lp.col_upper_ = np.ones(N)
    lp.row_lower_ = rl
    lp.row_upper_ = ru
    lp.a_matrix_.format_ = hp.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    h.passModel(lp)
    extra_rows: list[tuple[np.ndarray, np.ndarray, float]] = []  # (columns, coefficients, upper side)
    seen: set = set()
    seen_cap: set = set()
    best = (-math.inf, 0.0, np.zeros(N), -math.inf)  # (safe value, lp value, reduced costs, y b)
    rounds, converged, status = 0, False, "not solved"
    while rounds < max_rounds:
        left = time_limit - (time.perf_counter() - tic)
        if left <= 0.05:
            status = "time limit"
            break
        # HiGHS measures time_limit on the object's cumulative run clock
        h.setOptionValue("time_limit", float(h.getRunTime() + left))
        run_highs(h)
        st = h.getModelStatus()
        if st != hp.HighsModelStatus.kOptimal:
            status = h.modelStatusToString(st)
            break
        if rounds == 0 and solver == "ipm":
            h.setOptionValue("solver", "simplex")  # warm re-solves after adding rows
        rounds += 1
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        y = np.asarray(sol.row_dual)
        if extra_rows:
            E = sp.csr_matrix((np.concatenate([r[1] for r in extra_rows]),
                               (np.repeat(np.arange(len(extra_rows)), [len(r[0]) for r in extra_rows]),
                                np.concatenate([r[0] for r in extra_rows]))), shape=(len(extra_rows), N)).tocsc()
            Afull = sp.vstack([A, E], format="csc")
            rlf = np.concatenate([rl, np.full(len(extra_rows), -np.inf)])
            ruf = np.concatenate([ru, np.array([r[2] for r in extra_rows])])
        else:
            Afull, rlf, ruf = A, rl, ru
        safe, red, yb = _safe_dual(Afull, cost, rlf, ruf, y)
        val = float(h.getInfo().objective_function_value)
        if safe > best[0]:
            best = (safe, val, red, yb)
        if log is not None:
            log(f"time-indexed LP round {rounds}: value {val:.2f} (safe {safe:.2f}), "
                f"{len(extra_rows)} family rows, {time.perf_counter() - tic:.1f} s")
        new = [(r[2].astype(np.int64), np.ones(len(r[2])), 1.0) for r in _violated_rows(x, intervals, rows_per_round, seen)]
        new += _violated_capacity(x, caps, rows_per_round, seen_cap)
        if not new:
            converged, status = True, "converged"
            break
        starts = np.concatenate([[0], np.cumsum([len(r[0]) for r in new])[:-1]]).astype(np.int32)
        idx = np.concatenate([r[0] for r in new]).astype(np.int32)
        h.addRows(len(new), np.full(len(new), -hp.kHighsInf), np.array([r[2] for r in new]), len(idx), starts, idx,
                  np.concatenate([r[1] for r in new]))
        extra_rows.extend(new)
    safe, val, red, yb = best
    bound = int(math.ceil(safe - 1e-6)) if math.isfinite(safe) else 0
    return TimeLPResult(bound=bound, value=val, safe_value=safe, rounds=rounds, family_rows=len(extra_rows),
                        converged=converged, seconds=time.perf_counter() - tic, req=model.req, start=model.start,
                        reduced=red, yb=yb, status=status, highs=h if keep else None)


def reduced_cost_fixing(res: TimeLPResult, upper: int) -> dict[int, np.ndarray]:
    """Starts each request may still take in a schedule of TEL ``<= upper - 1`` (module docstring).

    Returns ``{request: sorted allowed starts}``; an empty array for some request means
    no schedule better than ``upper`` exists inside the windows.
    """
    keep = res.safe_value + np.maximum(res.reduced, 0.0) <= upper - 1 + 1e-6
    out = {}
    for j in np.unique(res.req):
        m = res.req == j
        out[int(j)] = np.sort(res.start[m & keep])
    return out


def mip_on_lp(res: TimeLPResult, upper: int, *, time_limit: float, threads: int = 1, hint=None) -> dict:
    """Branch and bound (HiGHS) on the time-indexed IP kept in ``res.highs`` (family rows included),
    restricted to the columns that survive :func:`reduced_cost_fixing` with ``upper`` and cut off at
    ``TEL <= upper - 1``.

    Returns ``bound`` (``OPT >= min(bound, upper)``: every schedule better than ``upper`` is a
    feasible point of this IP, by the soundness of windows, family rows and fixing),
    ``starts`` (a schedule found, or None), ``status``.
    """
    import highspy as hp

    h = res.highs
    if h is None:
        raise ValueError("mip_on_lp: time_indexed_lp(..., keep=True) is needed")
    N = len(res.req)
    drop = np.flatnonzero(res.safe_value + np.maximum(res.reduced, 0.0) > upper - 1 + 1e-6).astype(np.int32)
    if len(drop):
        h.changeColsBounds(len(drop), drop, np.zeros(len(drop)), np.zeros(len(drop)))
    h.changeColsIntegrality(N, np.arange(N, dtype=np.int32), np.full(N, hp.HighsVarType.kInteger))
    h.setOptionValue("time_limit", float(max(0.1, time_limit)))
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1.0 - 1e-6)
    h.setOptionValue("objective_bound", float(upper) - 0.5)
    h.setOptionValue("random_seed", 0)
    run_highs(h)
    st = h.getModelStatus()
    info = h.getInfo()
    starts = None
    if info.primal_solution_status == 2:
        x = np.asarray(h.getSolution().col_value)
        n = int(res.req.max()) + 1
        starts = np.full(n, -1, dtype=np.int64)
        for c in np.flatnonzero(x > 0.5):
            starts[res.req[c]] = res.start[c]
        if np.any(starts < 0):
            starts = None
    if st == hp.HighsModelStatus.kInfeasible:
        bound = int(upper)
    elif st == hp.HighsModelStatus.kOptimal and starts is not None:
        bound = int(round(info.objective_function_value))
    else:
        d = info.mip_dual_bound
        bound = int(math.ceil(d - 1e-6)) if d is not None and math.isfinite(d) and abs(d) < 1e15 else 0
    return {"bound": bound, "starts": starts, "status": h.modelStatusToString(st),
            "nodes": int(info.mip_node_count)}
