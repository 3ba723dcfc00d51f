"""LP-based schedulers of Wang, Ye, Zhou (002 Section 5 / Appendix EC.3): Sorted-LP and LP-Swap.

Both start from the LP relaxation of the time-indexed integer program of the
hindsight problem (001 eq. (1)-(4) with 002's prompt sizes): ``x[i, t] >= 0`` is
the fraction of request ``i`` started at ``t``,

    min  sum_{i,t} (t + o_i - a_i) x[i,t]
    s.t. sum_t x[i,t] = 1                                   for every i,
         sum_{i,t: t < tau <= t + o_i} (s_i + tau - t) x[i,t] <= M   for every tau = 1..T,
         0 <= x <= 1,  x[i,t] = 0 for t < a_i or t + o_i > T.

The relaxation is built with scipy sparse matrices and solved by HiGHS through
cvxpy.  To keep it small at the paper's scale, start times may be restricted to
a grid of step ``time_step`` (memory is still checked at every integer time); the
LP is then a relaxation of the grid-restricted problem and serves only to order
the requests.

* :func:`sorted_lp` — Sorted-LP (002 Algorithm 6): sort the requests by their
  fractional LP completion time ``sum_t (t + o_i) x[i,t]`` (ties: ``o``, id) and run
  Phase 2 (the look-ahead prefix rule) on that list.
* :func:`lp_swap` — LP-Swap (002 Algorithm 7), *our reading*: Phase 1 of Sorted-F
  with the swap selector (Algorithm 4) where each local search starts from the
  greedy pack of the remaining requests in LP order; Phase 2 as usual.

:func:`tiny_optimum` solves the same model with integer ``x`` and step 1 (a
certified optimum for small instances; tests and chapters prefer
:mod:`kvlib.exact` when available).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .model import Instance
from .policies import Policy, PolicyContext
from .sortedf import order_from_batches, phase1, planned_policy


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


def lp_relaxation(instance_or_ctx, horizon: int | None = None, time_step: int | None = None,
                  max_vars: int = 8000):
    """Solve the LP relaxation; returns ``(value, x, var_request, var_start, horizon, time_step)``.

    ``horizon`` defaults to ``1.2 *`` the makespan of a Sorted-F schedule plus
    ``max o`` (doubled until feasible); ``time_step`` defaults to the smallest step
    keeping about ``max_vars`` variables.
    """
    import cvxpy as cp

    a, s, o, M = _arrays(instance_or_ctx)
    if horizon is None:
        horizon = _default_horizon(a, s, o, M)
    for _ in range(4):
        step = time_step or max(1, int(math.ceil(len(s) * horizon / max_vars)))
        cost, A, E, vi, vt = _model(a, s, o, M, horizon, step)
        x = cp.Variable(len(cost))
        prob = cp.Problem(cp.Minimize(cost @ x), [A @ x <= M, E @ x == 1, x >= 0, x <= 1])
        prob.solve(solver=cp.HIGHS)
        if prob.status in ("optimal", "optimal_inaccurate"):
            return float(prob.value), np.clip(np.asarray(x.value), 0, 1), vi, vt, horizon, step
        horizon *= 2
    raise RuntimeError(f"LP relaxation not solved (status {prob.status})")


def _arrays(obj):
    if isinstance(obj, Instance):
        return obj.arrival, obj.prompt, obj.output, obj.memory
    if isinstance(obj, PolicyContext):
        return obj.arrival, obj.prompt, obj.output, obj.memory
    raise TypeError("expected an Instance or a PolicyContext")


def _default_horizon(a, s, o, M) -> int:
    from .simulate import simulate
    from .sortedf import sorted_f

    inst = Instance.from_arrays(a, s, o, M)
    mk = simulate(inst, sorted_f("swap")).makespan
    return int(1.2 * mk) + int(np.max(o))


def lp_order(instance_or_ctx, **kw) -> np.ndarray:
    """Rank of every request by fractional LP completion time (ties: ``o``, then id)."""
    _, x, vi, vt, _, _ = lp_relaxation(instance_or_ctx, **kw)
    a, s, o, M = _arrays(instance_or_ctx)
    n = len(s)
    comp = np.bincount(vi, weights=x * (vt + o[vi]), minlength=n)
    comp = np.round(comp, 6)
    order = np.lexsort((np.arange(n), o, comp))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def sorted_lp(time_step: int | None = None, phase2: str = "prefix") -> Policy:
    """Sorted-LP, 002 Algorithm 6: the LP-completion-time order executed by Phase 2 (eq. (5) prefix)."""

    def plan(ctx: PolicyContext):
        return lp_order(ctx, time_step=time_step), None

    return planned_policy(plan, "sorted-lp", phase2)


def lp_swap(time_step: int | None = None, phase1_constraint: str = "peak", phase2: str = "prefix") -> Policy:
    """LP-Swap, 002 Algorithm 7 (our reading): swap-search Phase 1 seeded by the LP order."""

    def plan(ctx: PolicyContext):
        rank = lp_order(ctx, time_step=time_step)
        b = phase1(ctx.prompt, ctx.output, ctx.memory, "swap", phase1_constraint, init_order=rank)
        return order_from_batches(b, len(ctx.prompt)), b

    return planned_policy(plan, "lp-swap", phase2)


def tiny_optimum(instance: Instance, upper_tel: int | None = None, time_limit: float = 60.0):
    """Certified optimum TEL of a small instance by the time-indexed MILP (HiGHS, gap 0).

    The horizon is safe: with ``U`` the TEL of any feasible schedule (Sorted-F's by
    default), an optimal schedule has ``c_i - a_i <= U - sum_{j != i} (c_j - a_j) <= U - sum_{j != i} o_j``,
    so every completion is at most ``T = U - sum_j o_j + max_i (o_i + a_i)``.
    Returns ``(tel, starts)``.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    from .simulate import simulate
    from .sortedf import sorted_f

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
