"""Lower bounds on the hindsight optimum that need no solver, and a sound horizon.

``volume_lower_bound`` (the memory-volume argument behind 001 Lemma 4.7)
--------------------------------------------------------------------------
Order any feasible schedule's completions ``c_(1) <= ... <= c_(n)``.  By time
``c_(k)`` at least ``k`` requests have completed, so

* ``c_(k) >= (a + o)_(k)``, the ``k``-th smallest ``a_i + o_i`` (each completed
  request has ``c_i >= a_i + o_i``, so ``k`` of the values ``a_i + o_i`` are
  ``<= c_(k)``);
* ``c_(k) >= a_min + ceil(W_k / M)``, where ``W_k`` is the sum of the ``k``
  smallest work volumes ``w_i = s_i o_i + o_i (o_i + 1) / 2``: the ``k``
  completed requests held exactly ``w_i`` token-rounds each, all at times in
  ``(a_min, c_(k)]``, and at most ``M`` tokens are held per time.

Hence ``TEL = sum_k c_(k) - sum_i a_i >= sum_k max(...) - sum_i a_i``.  The
time-indexed LP relaxation implies these volume inequalities (they are sums of
its memory rows), so this bound is never better than the LP; it is free.

``latest_starts`` (a provably sufficient horizon)
-------------------------------------------------
Two arguments, both about *optimal* schedules (proofs in the chapter
"The hindsight optimum"):

1. Left shift: in an optimal schedule every time in ``(A, C_max]`` is occupied
   by some run (``A = max a_i``), else shifting every later run one step left
   is feasible and lowers TEL.  So ``C_max <= A + sum_i o_i``.
2. Incumbent: if some schedule has TEL ``U`` then an optimal schedule has
   ``c_i - a_i = TEL - TEL(others) <= U - LB(I \\ {i})``, because the other
   requests' runs form a feasible schedule of the instance without ``i``.

So an optimal schedule exists (all of them, in fact) with
``p_i <= min(A + sum o, a_i + U - LB(I \\ {i})) - o_i``.
"""

from __future__ import annotations

import math

import numpy as np

from kvlib.core.highs import run as run_highs
from kvlib.core.model import Instance


#: sums of work volumes below this fit in int64 with room to add; above it they are Python integers
_INT64_SAFE = 2**62


def _exact(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """``arrays`` as int64, or as Python-integer object arrays when a product of two of their values,
    summed over every request, could pass ``_INT64_SAFE`` (outputs beyond about 2**30)."""
    top = max((int(np.abs(x).max()) for x in arrays if len(x)), default=0)
    n = max((len(x) for x in arrays), default=0)
    if (top + 1) * (top + 1) * max(n, 1) < _INT64_SAFE:
        return tuple(np.asarray(x, dtype=np.int64) for x in arrays)
    return tuple(np.array([int(v) for v in x], dtype=object) for x in arrays)


def work_volumes(instance: Instance) -> np.ndarray:
    """Token-rounds ``w_i = s_i o_i + o_i (o_i + 1) / 2`` held by each request over its run (exact: an
    object array of Python integers when int64 could overflow)."""
    s, o = _exact(instance.prompt, instance.output)
    return s * o + o * (o + 1) // 2


def _volume_bound_arrays(a: np.ndarray, s: np.ndarray, o: np.ndarray, M: int) -> int:
    if len(a) == 0:
        return 0
    a, s, o = _exact(a, s, o)  # exact arithmetic: o (o + 1) / 2 passes 2**63 from o of about 3e9
    w = np.sort(s * o + o * (o + 1) // 2)
    W = np.cumsum(w)
    vol = int(a.min()) + -(-W // int(M))  # ceil division
    ao = np.sort(a + o)
    ck = np.maximum(vol, ao)
    return int(ck.sum() - a.sum())


def volume_lower_bound(instance: Instance) -> int:
    """A lower bound on the optimal TEL from completion order statistics and memory volume."""
    return _volume_bound_arrays(instance.arrival, instance.prompt, instance.output, instance.memory)


def volume_lower_bound_without(instance: Instance) -> np.ndarray:
    """``LB(I \\ {i})`` for every ``i`` (the volume bound of the instance with request ``i`` removed)."""
    a, s, o, M = instance.arrival, instance.prompt, instance.output, instance.memory
    out = np.empty(instance.n, dtype=_exact(o)[0].dtype)  # object (Python integers) for huge outputs
    mask = np.ones(instance.n, dtype=bool)
    for i in range(instance.n):
        mask[i] = False
        out[i] = _volume_bound_arrays(a[mask], s[mask], o[mask], M)
        mask[i] = True
    return out


def left_shift_horizon(instance: Instance) -> int:
    """``A + sum_i o_i``: no optimal schedule completes a request later (argument 1 above); an exact
    Python integer."""
    return int(instance.arrival.max()) + sum(instance.output.tolist())


def latest_starts(instance: Instance, upper: int | None = None) -> np.ndarray:
    """Latest start ``L_i`` such that every optimal schedule has ``p_i <= L_i``.

    ``upper`` is the TEL of any feasible schedule (``None``: only the left-shift
    horizon is used).  Every schedule with TEL ``<= upper`` that is optimal
    satisfies the bound, so an incumbent of value ``upper`` need not satisfy
    it; callers keep the incumbent separately.
    """
    a, o = instance.arrival, instance.output
    latest_c = np.full(instance.n, left_shift_horizon(instance), dtype=np.int64)
    if upper is not None:
        latest_c = np.minimum(latest_c, a + int(upper) - volume_lower_bound_without(instance))
    return np.maximum(latest_c - o, a)


# ---------------------------------------------------------------- peak-conflict relaxation


def conflict_delays(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Pairs that cannot complete together and their separations.

    With peaks ``P_i = s_i + o_i``, a pair ``i < j`` with ``P_i + P_j > M`` is returned with
    ``d_ij = min(o_j, P_i + P_j - M)`` and ``d_ji = min(o_i, P_i + P_j - M)`` (columns
    ``i, j, d_ij, d_ji``).  In every feasible schedule, ``c_i <= c_j`` implies
    ``c_j >= c_i + d_ij`` (proof in :func:`peak_conflict_bound`).
    """
    s, o, M = instance.prompt, instance.output, instance.memory
    P = s + o
    i, j = np.triu_indices(instance.n, k=1)
    keep = P[i] + P[j] > M
    i, j = i[keep], j[keep]
    excess = P[i] + P[j] - M
    return np.column_stack([i, j]), np.column_stack([np.minimum(o[j], excess), np.minimum(o[i], excess)])


def clique_families(instance: Instance, thetas=tuple(np.round(np.arange(0.5, 0.96, 0.05), 2)),
                    tightened: bool = True) -> list[tuple]:
    """Families of pairwise-conflicting requests for :func:`separation_lower_bound` (ours).

    For each ``theta``, ``K = {j : P_j > theta M}`` (``theta >= 1/2``, so every pair in ``K``
    conflicts) with half-widths ``tau_j = min(P_j - M/2, o_min(K)/2)``.  Then
    ``tau_i + tau_j <= min(o_min(K), P_i + P_j - M) <= min(d_ij, d_ji)`` for ``i != j`` in ``K``,
    so by the peak-conflict lemma (:func:`peak_conflict_bound`) the intervals
    ``[c_j - tau_j, c_j + tau_j)`` are pairwise disjoint: if ``c_i <= c_j`` then
    ``c_j - c_i >= d_ij >= tau_i + tau_j``.  They start no earlier than
    ``r_j = a_j + o_j - tau_j``: a single-machine schedule with processing times ``2 tau_j``.
    Each family is ``(members, p, shift, release)`` over all ``n`` requests with
    ``E_j = c_j + shift_j`` its completion; the volume family (``p = w/M``, ``E = c``,
    ``r = a``) comes first.  With ``tightened=True`` (default) the families of
    :func:`tightened_families` follow (per-request half-widths; same format).
    """
    a = instance.arrival.astype(float)
    o = instance.output.astype(float)
    M = float(instance.memory)
    P = instance.prompt.astype(float) + o
    n = instance.n
    fams = [(np.arange(n), work_volumes(instance).astype(float) / M, np.zeros(n), a.copy())]
    seen = set()
    for th in thetas:
        if th < 0.5:
            raise ValueError(f"clique_families: theta must be >= 1/2 (pairs must conflict), got {th}")
        K = np.where(P > th * M)[0]
        if len(K) < 2 or tuple(K) in seen:
            continue
        seen.add(tuple(K))
        tau = np.minimum(P[K] - M / 2, o[K].min() / 2)
        p = np.zeros(n)
        shift = np.zeros(n)
        rel = np.full(n, np.inf)
        p[K], shift[K], rel[K] = 2 * tau, tau, a[K] + o[K] - tau
        fams.append((K, p, shift, rel))
    if tightened:
        for K, tau in tightened_families(instance, thetas):
            key = (tuple(K), tuple(np.round(tau, 6)))
            if key in seen:
                continue
            seen.add(key)
            p = np.zeros(n)
            shift = np.zeros(n)
            rel = np.full(n, np.inf)
            p[K], shift[K], rel[K] = 2 * tau, tau, a[K] + o[K] - tau
            fams.append((K, p, shift, rel))
    return fams


def pair_separations(instance: Instance) -> np.ndarray:
    """``D[i, j] = min(d_ij, d_ji)`` of :func:`conflict_delays` (``0`` for pairs that do not conflict,
    ``inf`` on the diagonal): conflicting requests complete at least ``D[i, j]`` rounds apart."""
    n = instance.n
    D = np.zeros((n, n))
    pairs, d = conflict_delays(instance)
    if len(pairs):
        m = np.minimum(d[:, 0], d[:, 1]).astype(float)
        D[pairs[:, 0], pairs[:, 1]] = m
        D[pairs[:, 1], pairs[:, 0]] = m
    np.fill_diagonal(D, np.inf)
    return D


def tightened_families(instance: Instance, thetas=tuple(np.round(np.arange(0.5, 0.96, 0.05), 2))
                       ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Conflict families ``(K, tau)`` with per-pair half-widths (ours; stronger than :func:`clique_families`).

    For each ``theta >= 1/2``, ``K = {j : P_j > theta M}`` (``P_j = s_j + o_j``) and
    ``D_ij = min(d_ij, d_ji)`` from :func:`conflict_delays` (every pair of ``K`` conflicts:
    ``P_i + P_j > 2 theta M >= M``).  Start from
    ``tau_j = min(P_j - M/2, min_{i in K, i != j} D_ij / 2)``, then raise each ``tau_j`` in turn
    to ``min(P_j - M/2, min_{i in K, i != j} (D_ij - tau_i))`` -- once in order of decreasing
    ``P``, once in order of increasing ``P`` (two families per ``theta``).

    **Invariant** ``tau_i + tau_j <= D_ij`` for all ``i != j`` in ``K`` (asserted): it holds
    at the start (both halves are at most ``D_ij / 2``), and raising ``tau_j`` to at most
    ``D_ij - tau_i`` keeps it for every pair containing ``j`` (the raise never lowers
    ``tau_j``, since the old value already satisfied both caps).  ``tau_j > 0`` because
    ``P_j > M/2`` and ``D_ij >= 1``.

    **Validity** (the intervals ``[c_j - tau_j, c_j + tau_j)``, ``j in K``, are pairwise
    disjoint in every feasible schedule): take ``i != j`` in ``K`` with ``c_i <= c_j``.  As
    ``P_i + P_j > M``, the peak-conflict lemma of :func:`peak_conflict_bound` gives
    ``c_j - c_i >= d_ij >= D_ij >= tau_i + tau_j``, i.e. ``c_i + tau_i <= c_j - tau_j``:
    the interval of ``i`` ends before that of ``j`` begins.  (The cap ``P_j - M/2`` is not
    needed for disjointness; it is the share of ``P_i + P_j - M`` a symmetric split gives
    and keeps the widths from growing beyond what the pairwise excess supports.)  Each
    interval also starts no earlier than ``a_j + o_j - tau_j``, since ``c_j >= a_j + o_j``.
    So the ``(c_j + tau_j)`` are the completion times of a single machine processing jobs
    of length ``2 tau_j`` released at ``a_j + o_j - tau_j``.
    """
    M = float(instance.memory)
    P = (instance.prompt + instance.output).astype(float)
    D = pair_separations(instance)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for th in thetas:
        if th < 0.5:
            raise ValueError(f"tightened_families: theta must be >= 1/2 (pairs must conflict), got {th}")
        K = np.where(P > th * M)[0]
        if len(K) < 2:
            continue
        DK = D[np.ix_(K, K)]
        cap = P[K] - M / 2
        base = np.minimum(cap, DK.min(axis=1) / 2)
        for order in (np.argsort(-P[K], kind="stable"), np.argsort(P[K], kind="stable")):
            tau = base.copy()
            for j in order:
                others = DK[j] - tau  # inf at j itself
                others[j] = np.inf
                tau[j] = max(tau[j], min(cap[j], others.min()))
            S = tau[:, None] + tau[None, :]
            np.fill_diagonal(S, -np.inf)
            assert np.all(S <= DK + 1e-9), "tightened_families: tau_i + tau_j > D_ij"
            assert np.all(tau > 0)
            out.append((K.copy(), tau))
    return out


def _separate(c: np.ndarray, families: list[tuple]) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Most violated Queyranne-type inequality per family and release level:
    ``sum_{j in S} p_j c_j >= r p(S) + (p(S)^2 + sum p_j^2)/2 - sum_{j in S} p_j shift_j``."""
    cuts = []
    for members, p, shift, rel in families:
        for r0 in np.unique(rel[members]):
            mem = members[rel[members] >= r0]
            order = mem[np.argsort(c[mem] + shift[mem], kind="stable")]
            po = p[order]
            ps = np.cumsum(po)
            rhs = r0 * ps + 0.5 * (ps**2 + np.cumsum(po**2)) - np.cumsum(po * shift[order])
            viol = rhs - np.cumsum(po * c[order])
            k = int(np.argmax(viol))
            if viol[k] > 1e-6 * max(1.0, abs(rhs[k])):
                S = order[: k + 1]
                keep = p[S] > 0
                cuts.append((S[keep].astype(np.int32), p[S][keep], float(rhs[k])))
    return cuts


def _completion_time_model(instance: Instance):
    """HiGHS model ``min sum_i c_i`` over ``a_i + o_i <= c_i <= A + sum o`` (the left-shift horizon:
    some optimal schedule completes every request by then), the base of both relaxations below."""
    import highspy as hp

    n = instance.n
    h = hp.Highs()
    h.setOptionValue("output_flag", False)
    h.addVars(n, (instance.arrival + instance.output).astype(float), np.full(n, float(left_shift_horizon(instance))))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), np.ones(n))
    return h


def separation_lower_bound(instance: Instance, *, time_limit: float = 5.0, max_rounds: int = 1000,
                           families: list | None = None) -> dict:
    """A lower bound on the optimal TEL from an LP over completion times (ours; no time index).

    ``min sum_i c_i`` subject to ``c_i >= a_i + o_i`` and, for every family of
    :func:`clique_families` and every subset, the single-machine inequalities of
    :func:`_separate` (valid by the arguments there and in :func:`volume_lower_bound`),
    added by a cutting-plane loop.  The LP value after any round is a relaxation of the
    full LP, so the bound is valid whether or not the loop converged (``families``: default
    :func:`clique_families`, tightened families included).  It is at least
    the volume bound (reported as the maximum of both).  Returns ``bound``,
    ``lp_bound`` (the LP's own), ``rounds``, ``converged``, ``seconds``.
    """
    import time

    import highspy as hp

    t0 = time.perf_counter()
    a = instance.arrival.astype(float)
    n = instance.n
    fams = clique_families(instance) if families is None else families
    h = _completion_time_model(instance)
    value, rounds, converged = float(np.sum(a + instance.output)), 0, False
    while rounds < max_rounds and time.perf_counter() - t0 < time_limit:
        run_highs(h)  # thread-pool safe (kvlib.core.highs)
        if h.getModelStatus() != hp.HighsModelStatus.kOptimal:  # pragma: no cover - defensive
            break
        value = float(h.getInfo().objective_function_value)
        rounds += 1
        cuts = _separate(np.asarray(h.getSolution().col_value[:n]), fams)
        if not cuts:
            converged = True
            break
        for S, coef, rhs in cuts:
            h.addRow(rhs, hp.kHighsInf, len(S), S, coef)
    lp_bound = int(math.ceil(value - 1e-6 * max(1.0, abs(value))) - a.sum())
    return dict(bound=max(lp_bound, volume_lower_bound(instance)), lp_bound=lp_bound, rounds=rounds,
                converged=converged, seconds=time.perf_counter() - t0)


def peak_conflict_bound(instance: Instance, *, time_limit: float = 30.0, threads: int = 2,
                        max_rounds: int = 50) -> dict:
    """A lower bound on the optimal TEL from a small MIP over completion times (ours).

    **Relaxation.** Variables: integer completion times ``c_i >= a_i + o_i`` and, for every
    conflicting pair of :func:`conflict_delays`, a binary order ``y_ij``; objective
    ``sum_i c_i - sum_i a_i``.  Constraints, each valid for every feasible schedule:

    * *Peak conflict*: if ``c_i <= c_j`` then ``c_j >= c_i + d_ij``.  At round ``c_i``
      request ``i`` holds ``P_i`` tokens.  If ``j`` runs in that round it holds
      ``s_j + (c_i - p_j) <= M - P_i`` tokens, so it has made at most ``M - P_i - s_j``
      rounds of progress and ``c_j = p_j + o_j >= c_i + o_j - (M - P_i - s_j)
      = c_i + P_i + P_j - M``; if it does not run then (as ``c_j >= c_i``)
      ``p_j >= c_i`` and ``c_j >= c_i + o_j``.  Either way ``c_j >= c_i + d_ij``,
      and ``d_ij >= 1``, so conflicting requests never complete in the same round.
      Written with ``y_ij`` and the big-M ``H`` (the left-shift horizon).
    * *Volume* (Queyranne-type, the argument of :func:`volume_lower_bound` per subset):
      for every set ``S`` with ``r = min_{j in S} a_j``, ordering ``S`` by completion
      gives ``c_(k) >= r + sum_{i <= k} w_(i)/M``, hence
      ``sum_{j in S} p_j c_j >= r p(S) + (p(S)^2 + sum p_j^2)/2`` with ``p_j = w_j/M``;
      and the same inequalities for the disjoint intervals of :func:`clique_families`.
      Added lazily: after each MIP solve the most violated prefix (by completion
      order, for every distinct release date and family) is cut, until none is violated.

    The MIP's dual bound is a valid lower bound on the relaxation, hence on OPT,
    whether or not it is solved; ``bound`` is its ceiling minus ``sum a``.  The
    relaxation ignores interactions among three or more requests, so it is not
    exact; it is strongest when many requests have peaks above ``M/2``.

    Returns ``bound`` (a certified TEL lower bound, at least the volume bound),
    ``relaxation_solved`` (the relaxation's optimum was reached), ``pairs``,
    ``cuts``, ``seconds``.
    """
    import time

    import highspy as hp

    t0 = time.perf_counter()
    a = instance.arrival.astype(float)
    o = instance.output.astype(float)
    w = work_volumes(instance).astype(float) / instance.memory
    n = instance.n
    H = float(left_shift_horizon(instance))
    pairs, d = conflict_delays(instance)
    families = clique_families(instance)
    h = _completion_time_model(instance)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    inf = hp.kHighsInf
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.full(n, hp.HighsVarType.kInteger))
    m = len(pairs)
    if m:
        ycols = np.arange(n, n + m, dtype=np.int32)
        h.addVars(m, np.zeros(m), np.ones(m))
        h.changeColsIntegrality(m, ycols, np.full(m, hp.HighsVarType.kInteger))
        i, j = pairs[:, 0].astype(np.int32), pairs[:, 1].astype(np.int32)
        # y = 1 (i first): c_j - c_i - H y >= d_ij - H ;  y = 0 (j first): c_i - c_j + H y >= d_ji
        idx = np.concatenate([np.column_stack([j, i, ycols]), np.column_stack([i, j, ycols])]).ravel()
        val = np.concatenate([np.tile([1.0, -1.0, -H], (m, 1)), np.tile([1.0, -1.0, H], (m, 1))]).ravel()
        lo = np.concatenate([d[:, 0] - H, d[:, 1]]).astype(float)
        h.addRows(2 * m, lo, np.full(2 * m, inf), 6 * m, np.arange(0, 6 * m, 3, dtype=np.int32), idx.astype(np.int32), val)
    best = float(np.sum(a + o))
    solved, cuts = False, 0
    for _ in range(max_rounds):
        remaining = time_limit - (time.perf_counter() - t0)
        if remaining <= 0:
            break
        h.setOptionValue("time_limit", float(h.getRunTime() + remaining))  # cumulative run clock
        run_highs(h)  # thread-pool safe (kvlib.core.highs)
        info = h.getInfo()
        status = h.getModelStatus()
        if np.isfinite(info.mip_dual_bound):
            best = max(best, float(info.mip_dual_bound))
        if status != hp.HighsModelStatus.kOptimal:
            break
        c = np.asarray(h.getSolution().col_value[:n])
        found = _separate(c, families)
        for S, coef, rhs in found:
            h.addRow(rhs, inf, len(S), S, coef)
        added = len(found)
        cuts += added
        if added == 0:
            solved = True
            best = max(best, float(info.objective_function_value))
            break
    bound = int(np.ceil(best - 1e-6) - a.sum())
    return dict(bound=max(bound, volume_lower_bound(instance)), relaxation_solved=solved, pairs=int(m),
                cuts=cuts, seconds=time.perf_counter() - t0)
