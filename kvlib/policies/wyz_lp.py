"""LP-based schedulers of Wang, Ye, Zhou (002 Section 6, Appendix EC.4.1): Sorted-LP and LP-Swap.

Both start from 002's Relax-LP (eqs. (8)-(11), the relaxation of the time-indexed
integer program (4)-(7) that 002 attributes to 001, with 002's prompt sizes):
``x[i, t] >= 0`` is the fraction of request ``i`` started at ``t``,

    min  sum_{i,t} (t + o_i - a_i) x[i,t]
    s.t. sum_t x[i,t] = 1                                   for every i,
         sum_{i,t: t < tau <= t + o_i} (s_i + tau - t) x[i,t] <= M   for every tau = 1..T,
         0 <= x <= 1,  x[i,t] = 0 for t < a_i or t + o_i > T.

(Our additions to eqs. (8)-(11): arrivals ``a_i`` (002 has all ``a_i = 0``), ``x <= 1``
(implied) and no start with ``t + o_i > T``; 002 gives no rule for the horizon ``T``,
ours is :func:`default_horizon`.)

The LP is built as one sparse matrix and solved by HiGHS directly (``highspy``;
interior point without crossover by default; 002 names no solver, and a degenerate
LP may have several optima, hence several orders).  Three models (``formulation``):

* ``"bucket"`` (default) -- **our coarse approximation** of the Relax-LP for
  large instances: start times restricted to multiples of ``time_step = D`` and
  the memory constraint *averaged* over each bucket ``(kD, (k+1)D]``
  (``(1/D) sum_{tau in bucket} memory(tau) <= M``, one row per bucket, about
  ``o_i / D + 1`` nonzeros per column).  The grid restriction tightens and the
  averaging loosens the LP, so its value is neither a bound on the exact LP
  nor on OPT.  With ``time_step = 1`` it **is** the Relax-LP above.
* ``"per-time"`` -- start times on the grid, memory at every integer time,
  written with running sums (active count ``K[tau]`` and memory ``Z[tau] <= M``,
  five nonzeros per column), so it is exact for ``time_step = 1`` at sizes
  where the per-time rows would have ``o_i`` nonzeros per column.  For
  ``time_step > 1`` it is the relaxation of the grid-restricted problem.
* ``"dense"`` -- the same model as ``"per-time"`` with the memory rows written
  out (``o_i`` nonzeros per column); the original implementation, kept for
  reference and small instances.

``time_step=None`` picks the smallest step keeping the bucket model below
about ``max_nonzeros`` nonzeros (:func:`auto_time_step`; default
:func:`default_nonzeros`: ``750 n``, between 0.2 and 1.5 million -- about 230
buckets over the horizon of the 2,000-request experiment of 002 Section 7); the
chapter and ``benchmarks/lp_scaling.py`` measure how much the ordering and the
resulting TEL move against ``time_step = 1``.

002's algorithms, as written:

* :func:`sorted_lp` -- Sorted-LP (002 Algorithm 6): sort the requests by their
  LP expected start time ``y_i = sum_t t x[i,t]`` and run Phase 2 (the look-ahead
  prefix rule) on that list.
* :func:`lp_swap` -- LP-Swap (002 Algorithm 7): ``y`` once; then, while requests
  remain, first-fit pack of the remaining requests in ``y`` order (peak test), the
  swap loop of Algorithm 4 from that pack (:func:`kvlib.policies.wyz.local_swap`),
  the batch sorted by ``o`` appended to the list; Phase 2 as usual.

Our variants (the former implementations, not 002's pseudocode):

* :func:`sorted_lp_completion` (``sorted-lp-completion``) -- Sorted-LP ordered by the
  fractional LP **completion** time ``y_i + o_i``.
* :func:`lp_swap_ours` (``lp-swap-ours``) -- the completion order, each Phase-1 search
  started from the pack in that order cut at its best-``F`` prefix, then our
  add / remove / swap search (selector ``swap-ours``).

Ties of the sort key (``y``, or ``y + o``, compared after rounding to ``1e-6``) are
broken by ``o``, then request id -- our choice, 002 leaves them open.

:func:`tiny_optimum` solves the dense model with integer ``x`` and step 1 (a
certified optimum for small instances; tests and chapters prefer
:mod:`kvlib.optimum.exact` when available).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from kvlib.core.errors import ParameterError
from kvlib.core.highs import run as run_highs
from kvlib.core.model import Instance
from kvlib.core.protocol import Policy, PolicyContext
from kvlib.policies.wyz import first_fit, local_swap, order_from_batches, phase1, planned_policy


def _model(arrival, prompt, output, memory: int, horizon: int, time_step: int = 1):
    """Sparse time-indexed model: returns (cost, A_mem, A_eq, var_request, var_start)."""
    a = np.asarray(arrival, dtype=np.int64)
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    n = len(s)
    var_i, var_t = [], []
    for i in range(n):
        first = int(math.ceil(a[i] / time_step) * time_step)
        ts = np.arange(first, horizon - o[i] + 1, time_step, dtype=np.int64)
        if len(ts) == 0:
            raise ValueError(f"horizon {horizon} too short for request {i}")
        var_i.append(np.full(len(ts), i, dtype=np.int64))
        var_t.append(ts)
    vi = np.concatenate(var_i)
    vt = np.concatenate(var_t)
    nv = len(vi)
    cost = (vt + o[vi] - a[vi]).astype(float)
    rows, cols, vals = [], [], []
    for i in range(n):
        idx = np.flatnonzero(vi == i)
        j = np.arange(1, o[i] + 1, dtype=np.int64)
        r = vt[idx][:, None] + j[None, :]  # times tau occupied (1-based), <= horizon
        rows.append((r - 1).ravel())
        cols.append(np.repeat(idx, len(j)))
        vals.append(np.broadcast_to(s[i] + j, r.shape).ravel().astype(float))
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(horizon, nv))
    E = sp.csr_matrix((np.ones(nv), (vi, np.arange(nv))), shape=(n, nv))
    return cost, A, E, vi, vt


FORMULATIONS = ("bucket", "per-time", "dense")


def _grid(a, o, horizon: int, step: int):
    """Start-time grid: (var_request, var_grid_index) for starts ``j * step`` with ``a_i <= j step <= T - o_i``."""
    first = -(-a // step)
    last = (horizon - o) // step
    cnt = last - first + 1
    if (cnt <= 0).any():
        i = int(np.flatnonzero(cnt <= 0)[0])
        raise ValueError(f"horizon {horizon} too short for request {i}")
    vi = np.repeat(np.arange(len(a), dtype=np.int64), cnt)
    j = first[vi] + (np.arange(int(cnt.sum()), dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt))
    return vi, j


def _model_bucket(a, s, o, horizon: int, step: int):
    """Bucket-averaged model: returns (cost, A_mem, E, var_request, var_start); rows of A_mem = buckets."""
    vi, j = _grid(a, o, horizon, step)
    vt = j * step
    nv = len(vi)
    nb = -(-horizon // step)
    mlen = -(-o // step)  # buckets touched by a request started on the grid
    rows, cols, vals = [], [], []
    for L in np.unique(mlen):
        ids = np.flatnonzero(mlen == L)
        m = np.arange(L, dtype=np.int64)
        lo = m[None, :] * step + 1
        hi = np.minimum((m[None, :] + 1) * step, o[ids][:, None])
        k = hi - lo + 1
        pat = (k * s[ids][:, None] + (lo + hi) * k / 2.0) / step  # mean over the bucket of s_i + (tau - t)
        cidx = np.flatnonzero(np.isin(vi, ids))
        pos = np.searchsorted(ids, vi[cidx])
        rows.append((j[cidx][:, None] + m[None, :]).ravel())
        cols.append(np.repeat(cidx, L))
        vals.append(pat[pos].ravel())
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(nb, nv))
    E = sp.csc_matrix((np.ones(nv), (vi, np.arange(nv))), shape=(len(a), nv))
    return (vt + o[vi] - a[vi]).astype(float), A, E, vi, vt


def _model_running(a, s, o, horizon: int, step: int):
    """Per-time model with running sums.  Columns: x, K[1..T], Z[1..T]; rows (all ``>= 0``):

    ``K[tau] - K[tau-1] - #starts(tau-1) + #ends(tau-1) >= 0`` and
    ``Z[tau] - Z[tau-1] - K[tau] - sum s (starts) + sum (s + o) (ends) >= 0``, ``Z <= M``.
    Any feasible ``K, Z`` bound the true active count and memory from above, and the
    true values are feasible, so the projection on ``x`` is the per-time LP.
    """
    vi, j = _grid(a, o, horizon, step)
    vt = j * step
    nv, T, n = len(vi), horizon, len(a)
    cols = np.arange(nv)
    en = vt + o[vi]
    keep = en < T
    tau = np.arange(T)
    Kc, Zc = nv + tau, nv + T + tau
    r = [n + vt, n + T + vt, n + en[keep], n + T + en[keep], n + tau, n + tau[1:], n + T + tau, n + T + tau[1:],
         n + T + tau]
    c = [cols, cols, cols[keep], cols[keep], Kc, Kc[:-1], Zc, Zc[:-1], Kc]
    v = [-np.ones(nv), -s[vi].astype(float), np.ones(int(keep.sum())), (s + o)[vi][keep].astype(float),
         np.ones(T), -np.ones(T - 1), np.ones(T), -np.ones(T - 1), -np.ones(T)]
    A = sp.csc_matrix((np.concatenate(v), (np.concatenate(r) - n, np.concatenate(c))), shape=(2 * T, nv + 2 * T))
    E = sp.csc_matrix((np.ones(nv), (vi, cols)), shape=(n, nv + 2 * T))
    return (vt + o[vi] - a[vi]).astype(float), A, E, vi, vt


#: HiGHS refuses a model with a matrix coefficient of this size or more (its ``large_matrix_value``)
LP_MAX_COEFFICIENT = 10**15


def default_nonzeros(n: int) -> int:
    """The default size budget of the bucket model: ``750 n`` nonzeros, at least 200,000 and at most 1,500,000."""
    return int(min(1_500_000, max(200_000, 750 * int(n))))


def auto_time_step(arrival, output, horizon: int, max_nonzeros: int | None = None) -> int:
    """Smallest step ``D`` with ``(T/D) (sum_i o_i / D + 2n) <= max_nonzeros`` (``None``: :func:`default_nonzeros`).

    The bucket model has about ``(T/D)(sum_i o_i/D + n)`` nonzeros; the margin covers
    the bucket boundaries.
    """
    o = np.asarray(output, dtype=np.int64)
    n, so = len(o), float(o.sum())
    if max_nonzeros is None:
        max_nonzeros = default_nonzeros(n)
    D = 1
    while (horizon / D) * (so / D + 2 * n) > max_nonzeros:
        D = max(D + 1, int(D * 1.1))
    return D


def _solve_highs(cost, A_le, E, M: float, upper_x: int, solver: str, threads: int, extra_ub=None,
                 row_lower=None, time_limit: float | None = None):
    import highspy

    nv_all = A_le.shape[1]
    c = np.zeros(nv_all)
    c[: len(cost)] = cost
    ub = np.full(nv_all, np.inf)
    ub[:upper_x] = 1.0
    if extra_ub is not None:
        ub[upper_x:] = extra_ub
    Af = sp.vstack([E, A_le]).tocsc()
    n = E.shape[0]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if solver in ("ipm", "ipx", "hipo"):
        try:
            h.setOptionValue("solver", solver)
        except Exception:  # pragma: no cover - older HiGHS without hipo
            h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
    else:
        h.setOptionValue("solver", solver)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = Af.shape[1], Af.shape[0]
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = c, np.zeros(nv_all), ub
    rl = np.r_[np.ones(n), row_lower if row_lower is not None else np.full(A_le.shape[0], -np.inf)]
    ru = np.r_[np.ones(n), np.full(A_le.shape[0], float(M)) if row_lower is None else np.full(A_le.shape[0], np.inf)]
    lp.row_lower_, lp.row_upper_ = rl, ru
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = Af.indptr, Af.indices, Af.data
    h.passModel(lp)
    run_highs(h)  # thread-pool safe (kvlib.core.highs)
    status = h.modelStatusToString(h.getModelStatus())
    x = np.asarray(h.getSolution().col_value)[: len(cost)]
    return status, float(h.getInfo().objective_function_value), x


def lp_relaxation(instance_or_ctx, horizon: int | None = None, time_step: int | None = None,
                  max_vars: int | None = None, *, formulation: str = "bucket", max_nonzeros: int | None = None,
                  solver: str = "ipm", threads: int = 1, time_limit: float | None = None):
    """Solve the (approximate, see the module docstring) LP relaxation.

    Returns ``(value, x, var_request, var_start, horizon, time_step)``.
    ``horizon`` defaults to ``1.2 *`` the makespan of a Sorted-F (swap) schedule plus
    ``max o`` (doubled until feasible).  ``time_step`` defaults to
    :func:`auto_time_step` (``max_nonzeros``), or, if ``max_vars`` is given, to the
    smallest step keeping about ``max_vars`` start variables (the former default).
    ``solver``: a HiGHS solver name (``"ipm"`` = interior point without crossover,
    ``"simplex"``, ...); ``threads``: HiGHS threads.
    """
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    a, s, o, M = _arrays(instance_or_ctx)
    a, s, o = (np.asarray(v, dtype=np.int64) for v in (a, s, o))
    if time_step is not None and int(time_step) < 1:
        raise ValueError(f"time_step must be a positive integer, got {time_step!r}")
    if len(s) and int((s + o).max()) >= LP_MAX_COEFFICIENT:
        i = int(np.argmax(s + o))
        raise ParameterError(f"the LP relaxation's memory rows hold s + o; request {i} has s + o = {int(s[i] + o[i])}, "
                             f"and HiGHS rejects coefficients from {LP_MAX_COEFFICIENT:.0e} on (the LP policies take "
                             "requests with s + o below it)")
    if horizon is None:
        horizon = _default_horizon(a, s, o, M)
    status = "not run"
    for _ in range(4):
        if time_step is not None:
            step = int(time_step)
        elif max_vars is not None:
            step = max(1, int(math.ceil(len(s) * horizon / max_vars)))
        else:
            step = auto_time_step(a, o, horizon, max_nonzeros)
        if formulation == "bucket":
            cost, A, E, vi, vt = _model_bucket(a, s, o, horizon, step)
            status, value, x = _solve_highs(cost, A, E, M, len(cost), solver, threads, time_limit=time_limit)
        elif formulation == "per-time":
            cost, A, E, vi, vt = _model_running(a, s, o, horizon, step)
            T = horizon
            status, value, x = _solve_highs(cost, A, E, M, len(cost), solver, threads,
                                            extra_ub=np.r_[np.full(T, np.inf), np.full(T, float(M))],
                                            row_lower=np.zeros(2 * T), time_limit=time_limit)
        else:
            cost, A, E, vi, vt = _model(a, s, o, M, horizon, step)
            status, value, x = _solve_highs(cost, A.tocsc(), E.tocsc(), M, len(cost), solver, threads,
                                            time_limit=time_limit)
        if status == "Optimal":
            return value, np.clip(x, 0, 1), vi, vt, horizon, step
        if status not in ("Infeasible", "Primal infeasible or unbounded"):
            break
        horizon *= 2
    if horizon > LP_SPLIT_SPAN:
        raise ParameterError(f"the LP relaxation over a horizon of {horizon:,} rounds was not solved (HiGHS status "
                             f"{status!r}): time values this far apart, with no idle gap to split the LP at, are "
                             "beyond the LP's numerics; pass a coarser time_step (--time-step), or use a policy "
                             "without an LP (sorted-f, mc-sf)")
    raise RuntimeError(f"LP relaxation not solved (HiGHS status {status!r})")


def _arrays(obj):
    if isinstance(obj, Instance):
        return obj.arrival, obj.prompt, obj.output, obj.memory
    if isinstance(obj, PolicyContext):
        return obj.arrival, obj.prompt, obj.output, obj.memory
    raise TypeError("expected an Instance or a PolicyContext")


def default_horizon(a, s, o, M) -> int:
    """The default LP horizon (ours; 002 gives no rule): ``1.2 *`` the makespan of Sorted-F with our
    ``swap-ours`` selector plus ``max o`` (rounds); :func:`lp_relaxation` doubles it until feasible."""
    return _default_horizon(a, s, o, M)


def _default_horizon(a, s, o, M) -> int:
    from kvlib.core.simulate import simulate
    from kvlib.policies.wyz import sorted_f

    inst = Instance.from_arrays(a, s, o, M)
    mk = simulate(inst, sorted_f("swap-ours")).makespan
    return int(1.2 * mk) + int(np.max(o))


LP_KEYS = ("start", "completion")


#: :func:`lp_order` splits the LP at idle gaps (:func:`idle_groups`) when the arrivals span more rounds than this
#: (and no ``horizon`` is given): one LP over a span of 10**10 rounds has costs and a horizon HiGHS's interior
#: point cannot resolve (status 'Unknown', or seconds per request).  Below it the single LP is kept as it was.
LP_SPLIT_SPAN = 10**6


def idle_groups(arrival, output) -> list[np.ndarray]:
    """The requests split where nothing need wait: in arrival order (ties by id), a new group starts at a
    request arriving no earlier than the moment the one-at-a-time schedule of all earlier requests (each
    started at ``max(arrival, previous completion)``, feasible since every ``s + o <= M``) has completed them.
    Requests arriving together are never split."""
    a = np.asarray(arrival, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    order = np.argsort(a, kind="stable")
    groups: list[list[int]] = []
    end = None
    for i in order.tolist():
        if end is None or a[i] >= end:
            groups.append([])
            end = int(a[i])
        groups[-1].append(i)
        end = max(end, int(a[i])) + int(o[i])
    return [np.asarray(g, dtype=np.int64) for g in groups]


def lp_order(instance_or_ctx, key: str = "start", **kw) -> np.ndarray:
    """Rank of every request by its LP expected start ``y_i = sum_t t x[i,t]`` (``key="start"``, 002
    Algorithm 6 line 5) or by its fractional completion ``y_i + o_i`` (``key="completion"``, ours);
    ties: ``o``, then id.  ``kw`` go to :func:`lp_relaxation`.

    Arrivals spanning more than :data:`LP_SPLIT_SPAN` rounds (no ``horizon`` given): one LP per
    :func:`idle_groups` group, its arrivals shifted to start at 0, ranked group after group (a group
    of one request needs no LP)."""
    if key not in LP_KEYS:
        raise ValueError(f"key must be one of {LP_KEYS}, got {key!r}")
    a, s, o, M = _arrays(instance_or_ctx)
    a = np.asarray(a, dtype=np.int64)
    if kw.get("horizon") is None and len(a) and int(a.max()) - int(a.min()) > LP_SPLIT_SPAN:
        groups = idle_groups(a, o)
        if len(groups) > 1:
            return _split_order(groups, a, s, o, M, key, kw)
    _, x, vi, vt, _, _ = lp_relaxation(instance_or_ctx, **kw)
    return _rank_from_solution(x, vi, vt, o, key)


def _split_order(groups, a, s, o, M, key: str, kw: dict) -> np.ndarray:
    """:func:`lp_order` over :func:`idle_groups`: each group's ranks, offset by the sizes of the groups before."""
    s, o = np.asarray(s, dtype=np.int64), np.asarray(o, dtype=np.int64)
    rank = np.empty(len(a), dtype=np.int64)
    done = 0
    for g in groups:
        if len(g) == 1:
            local = np.zeros(1, dtype=np.int64)
        else:
            sub = Instance.from_arrays(a[g] - a[g].min(), s[g], o[g], M)
            local = lp_order(sub, key=key, **kw)
        rank[g] = done + local
        done += len(g)
    return rank


def _lp_options(formulation, max_nonzeros, solver) -> dict:
    if formulation not in FORMULATIONS:
        raise ValueError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    return dict(formulation=formulation, max_nonzeros=max_nonzeros, solver=solver)


def sorted_lp(time_step: int | None = None, phase2: str = "prefix", formulation: str = "bucket",
              max_nonzeros: int | None = None, solver: str = "ipm") -> Policy:
    """Sorted-LP, 002 Algorithm 6 (Section 6, Appendix EC.4.1), as written.

    Solve the Relax-LP, ``y_i = sum_t t x*[i,t]`` (the expected start time), sort ascending by
    ``y`` and run Algorithm 1's Phase 2 on that list (longest prefix keeping 001 eq. (5)).

    Reading choices 002 leaves open: the horizon ``T`` (:func:`default_horizon`); the time
    grid -- ``time_step=1`` with ``formulation="per-time"`` or ``"bucket"`` is the Relax-LP
    itself, while the default ``time_step=None`` is our bucket approximation at large sizes
    (module docstring); the solver (HiGHS interior point without crossover by default, so
    ``y`` is that of the optimum it returns when the LP has several); ties of ``y``
    (compared after rounding to ``1e-6``): ``o``, then id; the clock as in
    :func:`kvlib.policies.wyz.sorted_f`.  ``phase2="scan"`` is our variant.
    """
    lp_options = _lp_options(formulation, max_nonzeros, solver)

    def plan(ctx: PolicyContext):
        return lp_order(ctx, key="start", time_step=time_step, **lp_options), None

    return planned_policy(plan, "sorted-lp", phase2)


def sorted_lp_completion(time_step: int | None = None, phase2: str = "prefix", formulation: str = "bucket",
                         max_nonzeros: int | None = None, solver: str = "ipm") -> Policy:
    """Our variant of Sorted-LP (not 002 Algorithm 6): the list sorted by the fractional LP
    completion time ``y_i + o_i`` (ties ``o``, id), then Phase 2.  Options as :func:`sorted_lp`."""
    lp_options = _lp_options(formulation, max_nonzeros, solver)

    def plan(ctx: PolicyContext):
        return lp_order(ctx, key="completion", time_step=time_step, **lp_options), None

    return planned_policy(plan, "sorted-lp-completion", phase2)


def lp_swap_phase1(prompt, output, memory: int, rank) -> list[np.ndarray]:
    """Phase 1 of LP-Swap, 002 Algorithm 7 lines 5-18, given the rank of every request by ``y``.

    While requests remain: the remaining requests in rank order (line 7); first-fit pack with
    the peak test ``mem + s + o <= M`` (lines 8-14, skipping what does not fit); the swap loop of
    002 Algorithm 4 (lines 9-32) from that pack with the remaining requests as candidates,
    both scanned in rank order (line 15, :func:`kvlib.policies.wyz.local_swap`); the batch
    sorted by ``o`` (ties: id) is appended and removed (lines 16-17).
    """
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    rank = np.asarray(rank)
    remaining = np.arange(len(s))
    batches: list[np.ndarray] = []
    while len(remaining):
        order = remaining[np.argsort(rank[remaining], kind="stable")]
        X = local_swap(s, o, memory, first_fit(s, o, memory, order), order)
        X = X[np.lexsort((X, o[X]))]
        batches.append(X)
        remaining = remaining[~np.isin(remaining, X)]
    return batches


def lp_swap(time_step: int | None = None, phase1_constraint: str = "peak", phase2: str = "prefix",
            formulation: str = "bucket", max_nonzeros: int | None = None, solver: str = "ipm") -> Policy:
    """LP-Swap, 002 Algorithm 7 (Section 6, Appendix EC.4.1), as written.

    ``y`` from the Relax-LP as in :func:`sorted_lp`; Phase 1 by :func:`lp_swap_phase1`
    (first-fit pack in ``y`` order, then Algorithm 4's one-for-one first-improvement swaps;
    the batch size is that of the pack); Phase 2 as Algorithm 1.

    Reading choices: those of :func:`sorted_lp` for the LP and ``y``; "LocalSwap(X_init, I, M)"
    (line 15) is read as Algorithm 4's improvement loop (its lines 9-32) started from
    ``X_init``, with members and candidates scanned in ``y`` order.  The pseudocode uses the
    peak test only, so ``phase1_constraint`` must be ``"peak"`` (``lp-swap-ours`` accepts both).
    """
    if phase1_constraint != "peak":
        raise ValueError("lp-swap is 002 Algorithm 7, which packs with the peak test sum(s + o) <= M only; "
                         f"got phase1_constraint={phase1_constraint!r} (lp-swap-ours accepts 'lookahead')")
    lp_options = _lp_options(formulation, max_nonzeros, solver)

    def plan(ctx: PolicyContext):
        rank = lp_order(ctx, key="start", time_step=time_step, **lp_options)
        b = lp_swap_phase1(ctx.prompt, ctx.output, ctx.memory, rank)
        return order_from_batches(b, len(ctx.prompt)), b

    return planned_policy(plan, "lp-swap", phase2)


def lp_swap_ours(time_step: int | None = None, phase1_constraint: str = "peak", phase2: str = "prefix",
                 formulation: str = "bucket", max_nonzeros: int | None = None, solver: str = "ipm") -> Policy:
    """Our variant of LP-Swap (not 002 Algorithm 7): the LP **completion** order; each Phase-1 search
    starts from the greedy pack of the remaining requests in that order cut at its best-``F`` prefix
    and runs our add / remove / swap search (selector ``swap-ours``).  Options as :func:`lp_swap`."""
    lp_options = _lp_options(formulation, max_nonzeros, solver)

    def plan(ctx: PolicyContext):
        rank = lp_order(ctx, key="completion", time_step=time_step, **lp_options)
        b = phase1(ctx.prompt, ctx.output, ctx.memory, "swap-ours", phase1_constraint, init_order=rank)
        return order_from_batches(b, len(ctx.prompt)), b

    return planned_policy(plan, "lp-swap-ours", phase2)


def tiny_optimum(instance: Instance, upper_tel: int | None = None, time_limit: float = 60.0):
    """Certified optimum TEL of a small instance by the time-indexed MILP (HiGHS, gap 0).

    The horizon is safe: with ``U`` the TEL of any feasible schedule (Sorted-F's by
    default), an optimal schedule has ``c_i - a_i <= U - sum_{j != i} (c_j - a_j) <= U - sum_{j != i} o_j``,
    so every completion is at most ``T = U - sum_j o_j + max_i (o_i + a_i)``.
    Returns ``(tel, starts)``.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    from kvlib.core.simulate import simulate
    from kvlib.policies.wyz import sorted_f

    a, s, o = instance.arrival, instance.prompt, instance.output
    if upper_tel is None:
        upper_tel = simulate(instance, sorted_f()).tel
    T = int(upper_tel - o.sum() + (o + a).max())
    cost, A, E, vi, vt = _model(a, s, o, instance.memory, T, 1)
    res = milp(
        cost,
        constraints=[LinearConstraint(A, -np.inf, instance.memory), LinearConstraint(E, 1, 1)],
        integrality=np.ones(len(cost)),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0, "time_limit": time_limit},
    )
    if res.status != 0:
        raise RuntimeError(f"MILP not solved to optimality: {res.message}")
    xs = np.round(res.x).astype(bool)
    starts = np.zeros(instance.n, dtype=np.int64)
    starts[vi[xs]] = vt[xs]
    return int(round(res.fun)), starts


def _policy_from_rank(rank: np.ndarray, name: str, swap: bool, variant: str = "paper",
                      phase1_constraint: str = "peak") -> Policy:
    """The Sorted-LP (``swap=False``) or LP-Swap (``swap=True``) policy from a given rank; ``variant``
    ``"paper"`` is Algorithm 7's Phase 1 (:func:`lp_swap_phase1`), ``"ours"`` that of :func:`lp_swap_ours`."""
    def plan(ctx: PolicyContext):
        if not swap:
            return rank, None
        if variant == "paper":
            b = lp_swap_phase1(ctx.prompt, ctx.output, ctx.memory, rank)
        else:
            b = phase1(ctx.prompt, ctx.output, ctx.memory, "swap-ours", phase1_constraint, init_order=rank)
        return order_from_batches(b, len(ctx.prompt)), b

    return planned_policy(plan, name)


def compare_lp_orders(instance: Instance, steps=(None,), reference: dict | None = None, variant: str = "paper",
                      **approx_kw) -> list[dict]:
    """How much the bucket approximation moves the Sorted-LP / LP-Swap orders and TELs against a reference LP.

    ``variant="paper"``: 002's Algorithms 6 and 7 (order by ``y``); ``"ours"``: the
    completion-time variants :func:`sorted_lp_completion` and :func:`lp_swap_ours`.

    ``reference`` is a :func:`lp_relaxation` keyword set (default: the exact relaxation,
    ``formulation="per-time", time_step=1``, dual simplex); every entry of ``steps`` is a
    ``time_step`` of the default bucket model (``None`` = automatic), with
    ``approx_kw`` passed on.  All LPs use the same horizon.  One row per step: LP
    values, steps, solve seconds, Kendall's tau between the two LP orders, the
    largest rank displacement, and the TEL (discrete rounds,
    :func:`kvlib.core.simulate.simulate`, every schedule checked by
    :func:`kvlib.core.checker.check_schedule`) of Sorted-LP and LP-Swap under each order.
    """
    import time

    from scipy.stats import kendalltau

    from kvlib.core.checker import check_schedule
    from kvlib.core.simulate import simulate

    if variant not in ("paper", "ours"):
        raise ValueError(f"variant must be 'paper' or 'ours', got {variant!r}")
    key = "start" if variant == "paper" else "completion"
    reference = dict(formulation="per-time", time_step=1, solver="simplex") if reference is None else dict(reference)
    H = _default_horizon(instance.arrival, instance.prompt, instance.output, instance.memory)

    def run(kw):
        t0 = time.perf_counter()
        value, x, vi, vt, _, step = lp_relaxation(instance, horizon=H, **kw)
        r = {"seconds": time.perf_counter() - t0, "value": value, "step": step,
             "rank": _rank_from_solution(x, vi, vt, instance.output, key)}
        for pname, swap in (("sorted_lp", False), ("lp_swap", True)):
            res = simulate(instance, _policy_from_rank(r["rank"], pname, swap, variant))
            rep = check_schedule(instance, res.schedule)
            if not rep.valid:  # pragma: no cover - a bug, not a measurement
                raise RuntimeError(f"{pname} schedule invalid: {rep.violations[:3]}")
            r[f"tel_{pname}"] = int(res.tel)
        return r

    ex = run(reference)
    rows = []
    for st in steps:
        ap = run(dict(approx_kw, time_step=st))
        row = {"n": instance.n, "horizon": H, "exact_seconds": ex["seconds"], "exact_value": ex["value"],
               "exact_tel_sorted_lp": ex["tel_sorted_lp"], "exact_tel_lp_swap": ex["tel_lp_swap"],
               "step": ap["step"], "approx_seconds": ap["seconds"], "approx_value": ap["value"],
               "approx_tel_sorted_lp": ap["tel_sorted_lp"], "approx_tel_lp_swap": ap["tel_lp_swap"],
               "kendall_tau": float(kendalltau(ex["rank"], ap["rank"]).statistic),
               "max_rank_shift": int(np.abs(ex["rank"] - ap["rank"]).max())}
        for pname in ("sorted_lp", "lp_swap"):
            row[f"tel_change_{pname}"] = row[f"approx_tel_{pname}"] / row[f"exact_tel_{pname}"] - 1.0
        rows.append(row)
    return rows


def _rank_from_solution(x, vi, vt, output, key: str = "start") -> np.ndarray:
    """Rank by ``y_i = sum_t t x[i,t] / sum_t x[i,t]`` (``key="start"``) or ``y_i + o_i``
    (``"completion"``), compared after rounding to ``1e-6``; ties: ``o``, then id.

    (``sum_t x[i,t] = 1`` in the LP; dividing by it removes the solver's tolerance.)
    """
    if key not in LP_KEYS:
        raise ValueError(f"key must be one of {LP_KEYS}, got {key!r}")
    o = np.asarray(output, dtype=np.int64)
    n = len(o)
    shift = o[vi] if key == "completion" else 0
    val = np.bincount(vi, weights=x * (vt + shift), minlength=n) / np.maximum(np.bincount(vi, weights=x, minlength=n), 1e-12)
    order = np.lexsort((np.arange(n), o, np.round(val, 6)))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank
