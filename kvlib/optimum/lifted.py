"""A level-one lifted (Sherali-Adams / RLT) form of the time-indexed LP (ours; a measurement tool).

The strengthened time-indexed LP of :mod:`kvlib.optimum.timelp` stays far below the optimum
(about 8% at ``n = 12``).  This module asks whether the first level of the lift-and-project
hierarchy closes that gap.  Over a set of columns ``x[c]`` (``c = (j, p)``: request ``j``
starts at ``p``; every column of some optimal schedule must be among them, e.g. the windows of
:func:`kvlib.optimum.bounds.latest_starts` after :func:`kvlib.optimum.timelp.reduced_cost_fixing`)
it adds a variable ``y[c, d]`` for every pair of columns of *different* requests standing for the
product ``x[c] x[d]``, and the rows

* **linking**: for every column ``c`` and every other request ``j``:
  ``sum_{d of j} y[c, d] = x[c]`` (given ``c``, request ``j`` starts somewhere);
* **conditional memory**: for every column ``c`` and every time ``t`` of a set ``T(c)``:
  ``sum_d w_d(t) y[c, d] <= (M - w_c(t)) x[c]``, with ``w_d(t) = s + t - q`` the tokens column
  ``d = (k, q)`` holds at ``t`` (0 when it is not running).  ``T(c)`` is ``{c's completion}``
  (``conditional="completion"``: memory at the completion rounds decides feasibility, see
  :func:`kvlib.optimum.cpsat.event_solve`) or every round ``c`` runs (``conditional="run"``,
  the full level-one product of the memory rows with ``x[c]``);
* pairs that cannot both run (memory exceeded at one of their two completions with nothing
  else running) get no variable, so they are ``0``;

besides the rows of the LP itself: assignment, memory at every round, and the family rows of
:func:`kvlib.optimum.bounds.tightened_families` (all their points, not lazily).

**Validity.**  For a feasible schedule set ``x`` to its 0/1 columns and ``y[c, d] = x[c] x[d]``:
exactly one column of ``j`` is 1, so the linking rows hold; a pair of used columns runs
together in the schedule, so it is compatible; and the conditional memory row is the memory row
at ``t`` multiplied by ``x[c]``.  So the LP value is at most the optimum over schedules inside the
column set.  The bound returned is not HiGHS's objective but the Lagrangian value of its duals
(:func:`kvlib.optimum.timelp._safe_dual`), rounded up (TEL is an integer).

Size: ``y`` has one variable per compatible pair of columns (about half a million at ``n = 12``
after reduced-cost fixing), so this is for small instances; ``benchmarks/lp_lifted.py`` runs it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from kvlib.core.model import Instance
from kvlib.optimum.bounds import tightened_families
from kvlib.optimum.exact import _highs_from_sparse
from kvlib.optimum.timelp import _family_intervals, _safe_dual

CONDITIONALS = ("none", "completion", "run")


@dataclass
class LiftedLPResult:
    """Outcome of :func:`lifted_lp`."""

    bound: int  #: certified TEL lower bound over the column set (safe dual, rounded up); 0 if unsolved
    value: float  #: HiGHS's objective (nan if unsolved)
    safe_value: float  #: the Lagrangian value of the duals
    status: str  #: HiGHS's model status
    columns: int  #: x columns
    pairs: int  #: y columns
    rows: int
    seconds: float


def _column_set(instance: Instance, columns) -> tuple[np.ndarray, np.ndarray]:
    n = instance.n
    if not isinstance(columns, dict):
        raise ValueError("columns must be a dict {request: starts}")
    missing = [j for j in range(n) if j not in columns]
    if missing:
        raise ValueError(f"columns: no starts given for request {missing[0]}")
    req, start = [], []
    for j in range(n):
        st = np.unique(np.asarray(columns[j], dtype=np.int64))
        if len(st) == 0:
            raise ValueError(f"columns: request {j} has no start (no schedule inside the column set)")
        if st[0] < instance.arrival[j]:
            raise ValueError(f"columns: request {j} starts at {int(st[0])}, before its arrival {int(instance.arrival[j])}")
        req.append(np.full(len(st), j, dtype=np.int64))
        start.append(st)
    return np.concatenate(req), np.concatenate(start)


def _holding(s: np.ndarray, start: np.ndarray, comp: np.ndarray, cols: np.ndarray, t) -> np.ndarray:
    """Tokens the columns ``cols`` hold at time(s) ``t`` (0 where not running)."""
    run = (start[cols] < t) & (t <= comp[cols])
    return np.where(run, s[cols] + t - start[cols], 0)


def lifted_lp(instance: Instance, columns: dict, *, conditional: str = "completion", families=None,
              time_limit: float = 600.0, threads: int = 1, solver: str = "ipm") -> LiftedLPResult:
    """The level-one lifted LP of the module docstring over ``columns`` (``{request: starts}``).

    ``conditional="none"`` gives the plain strengthened LP over the same columns (all family
    rows present), for comparison.
    """
    import highspy as hp

    from kvlib.core.highs import run as run_highs

    if conditional not in CONDITIONALS:
        raise ValueError(f"conditional must be one of {CONDITIONALS}, got {conditional!r}")
    if not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if solver not in ("ipm", "simplex"):
        raise ValueError(f"solver must be 'ipm' or 'simplex', got {solver!r}")
    tic = time.perf_counter()
    a, o, M = instance.arrival, instance.output, instance.memory
    req, start = _column_set(instance, columns)
    N = len(req)
    s_col = instance.prompt[req]
    comp = start + o[req]
    P_col = s_col + o[req]
    cost = (comp - a[req]).astype(float)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    lo: list[np.ndarray] = []
    hi: list[np.ndarray] = []
    nr = 0

    def add(r, c, v, lower, upper):
        nonlocal nr
        rows.append(np.asarray(r, dtype=np.int64) + nr)
        cols.append(np.asarray(c, dtype=np.int64))
        vals.append(np.asarray(v, dtype=float))
        lo.append(np.asarray(lower, dtype=float))
        hi.append(np.asarray(upper, dtype=float))
        nr += len(lower)

    # assignment rows
    add(req, np.arange(N), np.ones(N), np.ones(instance.n), np.ones(instance.n))
    # memory rows at every round t = 1..T
    T = int(comp.max())
    lens = o[req]
    colof = np.repeat(np.arange(N), lens)
    k = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens) + 1  # 1..o
    t = start[colof] + k
    add(t - 1, colof, s_col[colof] + k, np.full(T, -np.inf), np.full(T, float(M)))
    # family rows at every point they cover
    fam = tightened_families(instance) if families is None else families
    fr, fc = [], []
    nf = 0
    for fcols, klo, khi in _family_intervals(instance, req, start, fam, True):
        if not len(fcols):
            continue
        for kk in range(int(klo.min()), int(khi.max()) + 1):
            sel = fcols[(klo <= kk) & (kk <= khi)]
            if len(sel) > 1:
                fr.append(np.full(len(sel), nf))
                fc.append(sel)
                nf += 1
    if nf:
        add(np.concatenate(fr), np.concatenate(fc), np.ones(sum(len(x) for x in fc)), np.full(nf, -np.inf), np.ones(nf))
    n_pairs = 0
    if conditional != "none":
        # compatible pairs (c, d), c < d, of different requests
        pc, pd = [], []
        for c in range(N):
            d = np.arange(c + 1, N)
            d = d[req[d] != req[c]]
            ok = (P_col[c] + _holding(s_col, start, comp, d, comp[c]) <= M) & \
                 (P_col[d] + _holding(s_col, start, comp, np.full(len(d), c), comp[d]) <= M)
            pc.append(np.full(int(ok.sum()), c))
            pd.append(d[ok])
        pc, pd = np.concatenate(pc), np.concatenate(pd)
        n_pairs = len(pc)
        ycol = N + np.arange(n_pairs)
        # linking rows (c, j) -> index c * n + j
        n = instance.n
        own = np.repeat(np.arange(N), n) * n + np.tile(np.arange(n), N)
        keep_own = np.tile(np.arange(n), N) != np.repeat(req, n)
        own_r, own_c = own[keep_own], np.repeat(np.arange(N), n)[keep_own]
        link_r = np.concatenate([pc * n + req[pd], pd * n + req[pc], own_r])
        link_c = np.concatenate([ycol, ycol, own_c])
        link_v = np.concatenate([np.ones(2 * n_pairs), -np.ones(len(own_r))])
        used, link_r = np.unique(link_r, return_inverse=True)
        add(link_r, link_c, link_v, np.zeros(len(used)), np.zeros(len(used)))
        # conditional memory rows (u, t): pair k contributes w_v(t) for (u, v) in {(c, d), (d, c)}
        if conditional == "completion":
            r1, w1 = comp[pc], _holding(s_col, start, comp, pd, comp[pc])
            r2, w2 = comp[pd], _holding(s_col, start, comp, pc, comp[pd])
            keys = np.concatenate([pc, pd])
            w = np.concatenate([w1, w2])
            yk = np.concatenate([ycol, ycol])
            m = w > 0
            keys, w, yk = keys[m], w[m], yk[m]
            ru, rinv = np.unique(np.concatenate([keys, np.arange(N)]), return_inverse=True)
            own_w = -(M - P_col).astype(float)
            add(rinv, np.concatenate([yk, np.arange(N)]), np.concatenate([w, own_w]),
                np.full(len(ru), -np.inf), np.zeros(len(ru)))
        else:
            # every round t that both columns of a pair run: (max start, min completion]
            first = np.maximum(start[pc], start[pd]) + 1
            last = np.minimum(comp[pc], comp[pd])
            span = np.maximum(last - first + 1, 0)
            pk = np.repeat(np.arange(n_pairs), span)
            tt = np.repeat(first, span) + (np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span))
            cu, cv = pc[pk], pd[pk]
            Tmax = T + 1
            keys = np.concatenate([cu * Tmax + tt, cv * Tmax + tt])
            w = np.concatenate([s_col[cv] + tt - start[cv], s_col[cu] + tt - start[cu]])
            yk = np.concatenate([ycol[pk], ycol[pk]])
            # own coefficient w_u(t) - M for every round u runs
            own_keys = colof * Tmax + t
            own_w = (s_col[colof] + k - M).astype(float)
            ru, rinv = np.unique(np.concatenate([keys, own_keys]), return_inverse=True)
            add(rinv, np.concatenate([yk, colof]), np.concatenate([w, own_w]),
                np.full(len(ru), -np.inf), np.zeros(len(ru)))
    nv = N + n_pairs
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(nr, nv))
    rl, rh = np.concatenate(lo), np.concatenate(hi)
    c_full = np.concatenate([cost, np.zeros(n_pairs)])
    # _highs_from_sparse reads only A, cost and the row sides (columns in [0, 1])
    h, _ = _highs_from_sparse(SimpleNamespace(A=A, cost=c_full, row_lower=rl, row_upper=rh), relax=True)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("solver", solver)
    h.setOptionValue("time_limit", float(max(0.1, time_limit - (time.perf_counter() - tic))))
    run_highs(h)
    st = h.getModelStatus()
    status = h.modelStatusToString(st)
    if st == hp.HighsModelStatus.kOptimal:
        safe, _, _ = _safe_dual(A, c_full, rl, rh, np.asarray(h.getSolution().row_dual))
        value = float(h.getInfo().objective_function_value)
        bound = int(math.ceil(safe - 1e-6))
    else:
        safe, value, bound = -math.inf, math.nan, 0
    return LiftedLPResult(bound=bound, value=value, safe_value=safe, status=status, columns=N, pairs=n_pairs,
                          rows=nr, seconds=time.perf_counter() - tic)
