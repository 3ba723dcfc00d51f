"""Column generation for the strengthened time-indexed LP of :mod:`kvlib.optimum.timelp` (ours).

The LP is the one of :func:`kvlib.optimum.timelp.time_indexed_lp`: columns ``x[j, p]``
(``a_j <= p <= L_j``), the assignment rows (2) and memory rows (3) of 001 eq. (1)-(4), and the
conflict-family rows added lazily.  At ``n = 50``-``60`` with ``M`` up to 50 its windows (the
left-shift horizon ``A + sum_i o_i`` binds long before the incumbent's windows do) hold some
90,000 columns and 2-3 million non-zeros: a single simplex solve takes seconds and the whole
LP minutes, so :func:`kvlib.optimum.pipeline.solve_pipeline` skips it there.  Here the master
LP holds only the columns that were needed so far (measured against the whole LP:
``benchmarks/lp_colgen.py`` and the hindsight chapter).

**Loop.**  Start with the columns of the incumbent schedule (feasible for every row, so the
master is feasible) and its neighbours (``initial_pad`` rounds each way), plus each request's
``initial_pad + 1`` earliest starts.  Repeat: solve the master (HiGHS, warm); price *every*
column of the universe with the master's row duals; add, per request, the
``columns_per_request`` columns of most negative reduced cost; when no column prices out, add
the most violated family rows (:func:`kvlib.optimum.timelp._violated_rows`, over all columns
of the universe); stop when neither is found (converged) or at the time limit.

**Bound after every round (valid whether or not the loop converged).**  Let ``y`` be the
master's row duals with their signs clipped (``<= 0`` on the ``<=`` rows; the assignment
duals ``pi`` free) and ``d = cost - A^T y`` over the universe (family rows included).
Relaxing every row except the assignment rows with these multipliers (Lagrangian relaxation)
leaves one independent choice of start per request, so for every schedule inside the
universe

    ``TEL = sum_j cost_{j,p_j} >= sum_r y_r b_r + sum_j d_{j,p_j} >= yb + sum_j min_p d_{j,p}``

(``yb`` over all rows with ``b`` their finite side; at an LP optimum this is the LP value).
Some optimal schedule lies in the windows ``L_j`` (:func:`kvlib.optimum.bounds.latest_starts`),
hence in the universe, so ``ceil`` of the right side (computed in double precision with
``math.fsum``; rounded as in :mod:`kvlib.optimum.timelp`) is a lower bound on the optimum.
The result is a :class:`kvlib.optimum.timelp.TimeLPResult` over the universe with
``reduced = d - min_p d`` (per request, so ``>= 0``) and ``yb`` the bound itself, so that
:func:`kvlib.optimum.timelp.reduced_cost_fixing` (``bound + reduced > UB - 1`` removes a start)
and the Lagrangian cut of :func:`kvlib.optimum.cpsat.event_solve`
(``TEL >= yb + sum_j reduced_{j,p_j}``) stay valid unchanged.

The universe also holds the incumbent's starts when they lie beyond the windows (an incumbent
need not be optimal): a larger universe only weakens the relaxation, never its validity.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from kvlib.core.highs import run as run_highs
from kvlib.core.model import Instance
from kvlib.optimum.bounds import tightened_families
from kvlib.optimum.exact import _highs_from_sparse
from kvlib.optimum.timelp import TimeLPResult, _family_intervals, _violated_rows, build_sparse


def _initial_columns(instance: Instance, latest: np.ndarray, incumbent: np.ndarray, first: np.ndarray,
                     pad: int) -> np.ndarray:
    a = instance.arrival
    cols = []
    for j in range(instance.n):
        lo, hi = int(a[j]), int(latest[j])
        q = np.arange(int(incumbent[j]) - pad, int(incumbent[j]) + pad + 1)
        q = np.concatenate([q, np.arange(lo, lo + pad + 1)])
        q = np.unique(q[(q >= lo) & (q <= hi)])
        cols.append(first[j] + q - lo)
    return np.unique(np.concatenate(cols)).astype(np.int64)


def column_generation_lp(instance: Instance, latest, incumbent, *, time_limit: float = 30.0, threads: int = 1,
                         families=None, time_cliques: bool = True, columns_per_request: int = 8,
                         rows_per_round: int = 2000, initial_pad: int = 15, log=None) -> TimeLPResult:
    """The time-indexed LP with family rows by column generation (module docstring).

    ``latest``: sound latest starts (:func:`kvlib.optimum.bounds.latest_starts` with the
    incumbent's value); ``incumbent``: the starts of a feasible schedule (checked by the caller).
    ``families`` as in :func:`kvlib.optimum.timelp.time_indexed_lp`.  Returns the best bound
    of all rounds (work done is never lost: a time-out keeps the previous rounds' bound).
    """
    import highspy as hp

    tic = time.perf_counter()
    n = instance.n
    a = instance.arrival
    incumbent = np.asarray(incumbent, dtype=np.int64)
    if incumbent.shape != (n,):
        raise ValueError(f"incumbent must hold one start per request ({n}), got shape {incumbent.shape}")
    if np.any(incumbent < a):
        j = int(np.flatnonzero(incumbent < a)[0])
        raise ValueError(f"incumbent starts request {j} at {int(incumbent[j])}, before its arrival {int(a[j])}")
    for name, v in (("time_limit", time_limit), ("columns_per_request", columns_per_request),
                    ("rows_per_round", rows_per_round)):
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v!r}")
    if initial_pad < 0:
        raise ValueError(f"initial_pad must be >= 0, got {initial_pad!r}")
    universe = np.maximum(np.maximum(np.asarray(latest, dtype=np.int64), a), incumbent)
    model = build_sparse(instance, latest=universe, symmetry=False)
    A = model.A.tocsc()
    cost, req, start = model.cost, model.req, model.start
    N, R0 = A.shape[1], A.shape[0]
    b0 = np.where(np.isfinite(model.row_upper), model.row_upper, model.row_lower)
    if families is None:
        families = tightened_families(instance)
    intervals = _family_intervals(instance, req, start, families, time_cliques)
    first = np.concatenate([[0], np.cumsum(np.bincount(req, minlength=n))[:-1]]).astype(np.int64)
    active = _initial_columns(instance, universe, incumbent, first, int(initial_pad))

    # the master: the model's rows over the active columns only
    h, _ = _highs_from_sparse(replace(model, A=A[:, active], cost=cost[active], req=req[active],
                                      start=start[active]), relax=True)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("presolve", "off")

    colmap = active.tolist()  # master column -> universe column
    is_active = np.zeros(N, dtype=bool)
    is_active[active] = True
    fam_cols: list[np.ndarray] = []  # family rows (universe columns, right-hand side 1)
    E = sp.csr_matrix((0, N))
    seen: set = set()
    best = (-math.inf, math.nan, np.zeros(N))  # (bound, master value, d - min d)
    rounds, converged, status = 0, False, "not solved"
    while True:
        left = time_limit - (time.perf_counter() - tic)
        if left <= 0.05:
            status = "time limit"
            break
        h.setOptionValue("time_limit", float(h.getRunTime() + left))
        run_highs(h)
        st = h.getModelStatus()
        if st != hp.HighsModelStatus.kOptimal:
            status = h.modelStatusToString(st)
            break
        rounds += 1
        sol = h.getSolution()
        y = np.asarray(sol.row_dual, dtype=float).copy()
        y[n:] = np.minimum(y[n:], 0.0)  # every row after the assignment rows is a "<=" row
        yA, yE = y[:R0], y[R0:]
        d = cost - A.T @ yA
        if len(yE):
            d = d - E.T @ yE
        dmin = np.full(n, np.inf)
        np.minimum.at(dmin, req, d)
        yb = math.fsum((yA * b0).tolist()) + math.fsum(yE.tolist())
        bound = yb + math.fsum(dmin.tolist())
        val = float(h.getInfo().objective_function_value)
        if bound > best[0]:
            best = (bound, val, d - dmin[req])
        # pricing: per request the most negative reduced costs among the columns not in the master
        neg = np.flatnonzero((d < -1e-7) & ~is_active)
        new_cols = np.zeros(0, dtype=np.int64)
        if len(neg):
            cand = neg[np.lexsort((d[neg], req[neg]))]
            rank = np.arange(len(cand)) - np.searchsorted(req[cand], req[cand], side="left")
            new_cols = cand[rank < int(columns_per_request)]
        new_rows = []
        if not len(new_cols):
            x = np.zeros(N)
            x[np.asarray(colmap)] = np.asarray(sol.col_value)
            new_rows = _violated_rows(x, intervals, int(rows_per_round), seen)
        if log is not None:
            log(f"column generation round {rounds}: master {val:.2f}, bound {bound:.2f}, {len(colmap)} columns, "
                f"{len(fam_cols)} family rows, +{len(new_cols)} columns, +{len(new_rows)} rows, "
                f"{time.perf_counter() - tic:.1f} s")
        if not len(new_cols) and not new_rows:
            converged, status = True, "converged"
            break
        if len(new_cols):
            block = A[:, new_cols]
            if fam_cols:
                block = sp.vstack([block, E[:, new_cols]], format="csc")
            else:
                block = block.tocsc()
            h.addCols(len(new_cols), cost[new_cols], np.zeros(len(new_cols)), np.ones(len(new_cols)), block.nnz,
                      block.indptr.astype(np.int32), block.indices.astype(np.int32), block.data.astype(float))
            colmap.extend(new_cols.tolist())
            is_active[new_cols] = True
        if new_rows:
            pos = np.full(N, -1, dtype=np.int64)
            pos[np.asarray(colmap)] = np.arange(len(colmap))
            parts = []
            for _, _, cols in new_rows:
                fam_cols.append(cols.astype(np.int64))
                pc = pos[cols]
                parts.append(pc[pc >= 0])
            starts = np.concatenate([[0], np.cumsum([len(p) for p in parts])[:-1]]).astype(np.int32)
            idx = np.concatenate(parts).astype(np.int32)
            h.addRows(len(parts), np.full(len(parts), -hp.kHighsInf), np.ones(len(parts)), len(idx), starts, idx,
                      np.ones(len(idx)))
            r = np.repeat(np.arange(len(fam_cols)), [len(c) for c in fam_cols])
            E = sp.csr_matrix((np.ones(len(r)), (r, np.concatenate(fam_cols))), shape=(len(fam_cols), N))
    bound, val, red = best
    return TimeLPResult(bound=int(math.ceil(bound - 1e-6)) if math.isfinite(bound) else 0, value=val,
                        safe_value=bound, rounds=rounds, family_rows=len(fam_cols), converged=converged,
                        seconds=time.perf_counter() - tic, req=req, start=start, reduced=red,
                        yb=bound if math.isfinite(bound) else -math.inf, status=status)
