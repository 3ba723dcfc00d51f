"""Sorted-F of Wang, Ye, Zhou (002) for requests that all arrive at ``t = 0``.

The quality metric of a batch ``X`` (002 Section 4) is

    F(X) = sum_{i in X} o_i / |X|^2 .

**Sorted-F (002 Algorithm 1).**  *Phase 1* repeatedly selects, among the
requests not yet selected, a batch ``X`` minimising ``(F(X), -|X|)`` subject to a
memory constraint, sorts it by ``o`` and appends it to a list.  *Phase 2*
executes the list with the look-ahead admission test of 001 eq. (5): at every
decision time the longest prefix of the remaining list that keeps eq. (5) is
started (:class:`PlannedOrderPolicy`; ``phase2="scan"`` skips a request that
does not fit instead of stopping).

**The Phase-1 memory constraint.**  Two readings appear in 002:

* ``"peak"``: ``sum_{i in X} (s_i + o_i) <= M`` — the peaks of all members
  added together.  This is the constraint of the exact DP (002 Algorithm 2) and
  of the variants used in 002's experiments, so it is our default.
* ``"lookahead"``: the batch started together fits at each of its completion
  times, ``sum_{j in X, o_j >= o_i} (s_j + o_i) <= M`` for every ``i in X``
  (Algorithm 1's ``M(X, p_i + o_i) <= M``).  It is weaker (admits more batches).

**Selectors** (002 Section 5 and Appendix EC.3), all returning indices into the
arrays they are given:

* :func:`dp_argmin` — exact DP (Algorithm 2), ``O(n^2 M)``: for every batch size
  ``k`` and memory ``W`` the least total output; the answer is the ``(k, W)``
  minimising ``D[k, W] / k^2`` (ties: larger ``k``).
* :func:`scaled_dp_argmin` — scaled DP (Algorithm 3).  *Our reading*: the DP of
  Algorithm 2 with memory weights rounded **up** to a unit ``u = ceil(epsilon M /
  B_ref)`` and batch sizes capped at ``B``; rounding up keeps every selected batch
  feasible, the cost is ``O(n B M / u)``.  The paper's exact parameterisation is
  not reproduced here.
* :func:`swap_argmin` — local swap search (Algorithm 4): from a greedy batch,
  apply the best improving add / remove / one-for-one swap until none improves.
* :func:`quantile_argmin` — quantile greedy (Algorithm 5): for output-length
  quantile thresholds, greedily pack the requests below the threshold in several
  seeded random orders (and by ``s + o``), keeping the best prefix seen.
* :func:`brute_force_argmin` — exhaustive argmin for small ``n`` (tests only).

The LP-based Sorted-LP / LP-Swap (Algorithms 6, 7) live in :mod:`kvlib.lp`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from .policies import LookaheadPrefix, LookaheadScan, Policy, PolicyContext

CONSTRAINTS = ("peak", "lookahead")
_INF = np.iinfo(np.int64).max // 4


# ---------------------------------------------------------------------------
# metric and feasibility


def F(o: Sequence[int] | np.ndarray) -> float:
    """The quality metric ``F(X) = sum o / |X|^2`` (002 Section 4)."""
    o = np.asarray(o)
    return float(o.sum()) / len(o) ** 2


def F_exact(o: Sequence[int] | np.ndarray) -> Fraction:
    o = np.asarray(o)
    return Fraction(int(o.sum()), len(o) ** 2)


def _key(sum_o: int, k: int) -> tuple[Fraction, int]:
    return (Fraction(int(sum_o), k * k), -k)


def batch_feasible(s: np.ndarray, o: np.ndarray, memory: int, constraint: str = "peak") -> bool:
    """Does the batch ``(s, o)`` (arrays over its members) satisfy the Phase-1 constraint?"""
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    if len(s) == 0:
        return True
    if constraint == "peak":
        return int((s + o).sum()) <= memory
    if constraint == "lookahead":
        order = np.argsort(-o, kind="stable")
        so, oo = s[order], o[order]
        # at completion time o_c of the members with o_j >= o_c: sum s_j + count * o_c
        cum_s = np.cumsum(so)
        cnt = np.arange(1, len(so) + 1)
        return bool(np.all(cum_s + cnt * oo <= memory))
    raise ValueError(f"constraint must be one of {CONSTRAINTS}, got {constraint!r}")


def _lookahead_ok(sl: list, ol: list, members: list, memory: int) -> bool:
    """Pure-Python ``batch_feasible(..., "lookahead")`` for small batches (hot loop of the heuristics)."""
    pairs = sorted(((ol[j], sl[j]) for j in members), reverse=True)
    cum = 0
    for cnt, (oj, sj) in enumerate(pairs, 1):
        cum += sj
        if cum + cnt * oj > memory:
            return False
    return True


def batch_start_usage(s: np.ndarray, o: np.ndarray) -> int:
    """Peak memory of the batch when all members start together (max over completion times)."""
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    return int(max(int(s[o >= c].sum() + (o >= c).sum() * c) for c in np.unique(o)))


def _check(constraint: str) -> None:
    if constraint not in CONSTRAINTS:
        raise ValueError(f"constraint must be one of {CONSTRAINTS}, got {constraint!r}")


# ---------------------------------------------------------------------------
# selectors


def brute_force_argmin(s, o, memory: int, constraint: str = "peak") -> np.ndarray:
    """Exhaustive argmin of ``(F(X), -|X|)`` over all feasible non-empty subsets (``n <= 18``)."""
    _check(constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    n = len(s)
    if n > 18:
        raise ValueError(f"brute force is for n <= 18, got {n}")
    best, best_key = None, None
    for k in range(1, n + 1):
        for X in itertools.combinations(range(n), k):
            X = list(X)
            if not batch_feasible(s[X], o[X], memory, constraint):
                continue
            key = _key(int(o[X].sum()), k)
            if best_key is None or key < best_key:
                best, best_key = X, key
    return np.asarray(best, dtype=np.int64)


def _best_cell(D: np.ndarray) -> tuple[int, int]:
    """``(k, w)`` minimising ``(D[k, w] / k^2, -k)`` over finite cells with ``k >= 1``."""
    mins = D[1:].min(axis=1)
    best_k, best_key = None, None
    for k in range(1, D.shape[0]):
        m = int(mins[k - 1])
        if m >= _INF:
            continue
        key = _key(m, k)
        if best_key is None or key < best_key:
            best_k, best_key = k, key
    if best_k is None:
        raise ValueError("no feasible batch (every request exceeds the memory?)")
    return best_k, int(np.argmin(D[best_k]))


def _dp(weights: np.ndarray, o: np.ndarray, cap: int, kmax: int, row_ok: Callable[[int], np.ndarray] | None):
    """Knapsack-by-count DP: ``D[k, w]`` = least sum of ``o`` over ``k`` items of total weight ``w``.

    Items are processed in the given order; ``row_ok(idx)``, if given, is a
    boolean ``(kmax + 1, cap + 1)`` mask of the states allowed right after adding
    item ``idx``.  Returns the chosen item positions.
    """
    n = len(weights)
    D = np.full((kmax + 1, cap + 1), _INF, dtype=np.int64)
    D[0, 0] = 0
    take = np.zeros((n, kmax + 1, cap + 1), dtype=bool)
    for idx in range(n):
        w = int(weights[idx])
        if w > cap:
            continue
        cand = np.full_like(D, _INF)
        src = D[:-1, : cap + 1 - w]
        cand[1:, w:] = np.where(src < _INF, src + int(o[idx]), _INF)
        if row_ok is not None:
            cand[~row_ok(idx)] = _INF
        better = cand < D
        take[idx] = better
        D = np.where(better, cand, D)
    k, w = _best_cell(D)
    chosen = []
    for idx in range(n - 1, -1, -1):
        if k == 0:
            break
        if take[idx, k, w]:
            chosen.append(idx)
            k -= 1
            w -= int(weights[idx])
    assert k == 0 and w == 0, "DP reconstruction failed"
    return np.asarray(sorted(chosen), dtype=np.int64)


def _kmax(s: np.ndarray, o: np.ndarray, memory: int, cap: int | None = None) -> int:
    k = min(len(s), memory // max(1, int(s.min() + o.min())))
    return max(1, min(k, cap) if cap else k)


def dp_argmin(s, o, memory: int, constraint: str = "peak") -> np.ndarray:
    """Exact DP, 002 Algorithm 2: the argmin of ``(F(X), -|X|)``; ``O(n * kmax * M)`` time.

    ``constraint="peak"``: state (size ``k``, total ``sum (s + o)``).
    ``constraint="lookahead"``: items in decreasing ``o``; state (size ``k``,
    ``sum s``); adding item ``i`` (the shortest so far) is allowed iff
    ``sum s + k o_i <= M`` — the batch's usage at the completion time ``o_i``.
    """
    _check(constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    kmax = _kmax(s, o, memory)
    if constraint == "peak":
        return _dp(s + o, o, memory, kmax, None)
    order = np.argsort(-o, kind="stable")
    so, oo = s[order], o[order]
    kk = np.arange(kmax + 1)[:, None]
    ww = np.arange(memory + 1)[None, :]
    chosen = _dp(so, oo, memory, kmax, lambda idx: ww + kk * int(oo[idx]) <= memory)
    return np.sort(order[chosen])


def scaled_dp_argmin(s, o, memory: int, constraint: str = "peak", epsilon: float = 0.05,
                     B: int | None = None) -> np.ndarray:
    """Scaled DP, 002 Algorithm 3 (our reading): weights rounded up to a unit, sizes capped at ``B``.

    The unit is ``u = max(1, floor(epsilon * M))``; each weight (``s + o``, or ``s``
    under ``"lookahead"``, where the check ``sum s + k o <= M`` is done in units
    rounded up) becomes ``ceil(w / u)`` and the capacity ``floor(M / u)``, so every
    batch it returns is feasible.  ``B`` caps the batch size (default: no cap
    beyond ``M // min(s + o)``).  Cost ``O(n * B * M / u)``.
    """
    _check(constraint)
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    u = max(1, int(math.floor(epsilon * memory)))
    cap = memory // u
    kmax = _kmax(s, o, memory, B)
    single = np.asarray([int(np.lexsort((np.arange(len(o)), o))[0])], dtype=np.int64)
    try:
        if constraint == "peak":
            X = _dp(-(-(s + o) // u), o, cap, kmax, None)
        else:
            order = np.argsort(-o, kind="stable")
            so, oo = s[order], o[order]
            kk = np.arange(kmax + 1)[:, None]
            ww = np.arange(cap + 1)[None, :]
            X = np.sort(order[_dp(-(-so // u), oo, cap, kmax, lambda idx: ww * u + kk * int(oo[idx]) <= memory)])
    except ValueError:  # rounding made every request too large: fall back to the best singleton
        return single
    # a singleton is always feasible; rounding may have excluded the best one
    if _key(int(o[single].sum()), 1) < _key(int(o[X].sum()), len(X)):
        return single
    return X


def _greedy_pack(s, o, memory, constraint, order) -> list[int]:
    X: list[int] = []
    for i in order:
        Y = X + [int(i)]
        if batch_feasible(s[Y], o[Y], memory, constraint):
            X = Y
    return X


def _best_prefix(s, o, memory, constraint, order) -> tuple[list[int], tuple]:
    """Greedy pack in ``order`` (skip what does not fit); best ``(F, -k)`` among the packs seen."""
    X: list[int] = []
    best, best_key = None, None
    sum_o = 0
    W = 0
    peak = constraint == "peak"
    sl, ol = s.tolist(), o.tolist()
    for i in np.asarray(order).tolist():
        if peak:
            ok = W + sl[i] + ol[i] <= memory
        else:
            ok = _lookahead_ok(sl, ol, X + [i], memory)
        if ok:
            X.append(i)
            W += sl[i] + ol[i]
            sum_o += ol[i]
            k = len(X)
            # compare sum_o / k^2 exactly with integers
            if best_key is None or (sum_o * best_key[1] ** 2 < best_key[0] * k * k) or (
                sum_o * best_key[1] ** 2 == best_key[0] * k * k and k > best_key[1]
            ):
                best, best_key = list(X), (sum_o, k)
    if best is None:
        return None, None
    return best, _key(best_key[0], best_key[1])


def swap_argmin(s, o, memory: int, constraint: str = "peak", init: Sequence[int] | None = None,
                max_iter: int = 1000) -> np.ndarray:
    """Local swap search, 002 Algorithm 4.

    Start from ``init`` (default: the better of the greedy packings by increasing
    ``o`` and by increasing ``s + o``, each cut at its best prefix); repeatedly apply the move — add one request, remove one, or
    swap one member for one non-member — that most improves ``(F, -|X|)`` while
    keeping the Phase-1 constraint; stop at a local optimum (or after
    ``max_iter`` moves).  Removal moves make every local optimum satisfy Lemma 1.
    """
    _check(constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    n = len(s)
    if init is None:
        # the better of two greedy packs: by increasing o, and by increasing s + o
        X, kx = _best_prefix(s, o, memory, constraint, np.lexsort((s, o)))
        Y, ky = _best_prefix(s, o, memory, constraint, np.lexsort((o, s + o)))
        if ky < kx:
            X = Y
    else:
        X = [int(i) for i in init]
        if not X or not batch_feasible(s[X], o[X], memory, constraint):
            raise ValueError("swap_argmin: init must be a non-empty feasible batch")
    w = s + o
    for _ in range(max_iter):
        inX = np.zeros(n, dtype=bool)
        inX[X] = True
        k = len(X)
        O = int(o[X].sum())
        W = int(w[X].sum())
        cur = _key(O, k)
        best_move, best_key = None, cur
        outs = np.flatnonzero(~inX)
        ins = np.asarray(X, dtype=np.int64)
        # add
        if len(outs):
            if constraint == "peak":
                cand = outs[W + w[outs] <= memory]
            else:
                sl, ol = s.tolist(), o.tolist()
                cand = [j for j in outs.tolist() if _lookahead_ok(sl, ol, X + [j], memory)]
            if len(cand):
                j = int(cand[np.argmin(o[cand])]) if constraint == "peak" else int(min(cand, key=lambda j: (o[j], j)))
                key = _key(O + int(o[j]), k + 1)
                if key < best_key:
                    best_move, best_key = ("add", None, j), key
        # remove
        if k > 1:
            i = int(ins[np.argmax(o[ins])])
            key = _key(O - int(o[i]), k - 1)
            if key < best_key:
                best_move, best_key = ("remove", i, None), key
        # swap: improves iff the newcomer has a smaller o
        if len(outs) and k >= 1:
            delta_o = o[outs][None, :] - o[ins][:, None]  # (in, out)
            ok = delta_o < 0
            if constraint == "peak":
                ok &= (W - w[ins][:, None] + w[outs][None, :]) <= memory
            cand = np.argwhere(ok)
            if len(cand):
                order = np.argsort(delta_o[ok], kind="stable")
                for a, b in cand[order]:
                    i, j = int(ins[a]), int(outs[b])
                    Y = [x for x in X if x != i] + [j]
                    if constraint == "peak" or _lookahead_ok(s.tolist(), o.tolist(), Y, memory):
                        key = _key(O - int(o[i]) + int(o[j]), k)
                        if key < best_key:
                            best_move, best_key = ("swap", i, j), key
                        break
        if best_move is None:
            break
        kind, i, j = best_move
        if kind == "add":
            X = X + [j]
        elif kind == "remove":
            X = [x for x in X if x != i]
        else:
            X = [x for x in X if x != i] + [j]
    return np.asarray(sorted(X), dtype=np.int64)


def quantile_argmin(s, o, memory: int, constraint: str = "peak", rng: np.random.Generator | None = None,
                    quantiles: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                    samples: int = 4) -> np.ndarray:
    """Quantile greedy, 002 Algorithm 5 (our reading; seeded sampling).

    For each quantile ``q`` of the remaining output lengths, the candidates are
    the requests with ``o <= quantile_q(o)``; they are packed greedily (skipping
    those that do not fit) by increasing ``s + o`` and in ``samples`` random
    orders drawn from ``rng``; the best ``(F, -|X|)`` among all packs is returned.
    """
    _check(constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    if rng is None:
        rng = np.random.default_rng(0)
    best, best_key = None, None
    for q in quantiles:
        thr = np.quantile(o, q)
        cand = np.flatnonzero(o <= thr)
        if len(cand) == 0:
            continue
        orders = [cand[np.lexsort((o[cand], s[cand] + o[cand]))]]
        orders += [rng.permutation(cand) for _ in range(samples)]
        for order in orders:
            X, key = _best_prefix(s, o, memory, constraint, order)
            if X is not None and (best_key is None or key < best_key):
                best, best_key = X, key
    return np.asarray(sorted(best), dtype=np.int64)


SELECTORS: dict[str, Callable[..., np.ndarray]] = {
    "dp": dp_argmin,
    "scaled-dp": scaled_dp_argmin,
    "swap": swap_argmin,
    "quantile": quantile_argmin,
    "brute": brute_force_argmin,
}


def select(s, o, memory: int, selector: str = "dp", constraint: str = "peak", *, rng=None,
           epsilon: float = 0.05, B: int | None = None, quantiles=None, samples: int = 4,
           init=None) -> np.ndarray:
    """Run one selector by name (options that do not apply are ignored)."""
    if selector == "dp":
        return dp_argmin(s, o, memory, constraint)
    if selector == "scaled-dp":
        return scaled_dp_argmin(s, o, memory, constraint, epsilon=epsilon, B=B)
    if selector == "swap":
        return swap_argmin(s, o, memory, constraint, init=init)
    if selector == "quantile":
        kw = {} if quantiles is None else {"quantiles": quantiles}
        return quantile_argmin(s, o, memory, constraint, rng=rng, samples=samples, **kw)
    if selector == "brute":
        return brute_force_argmin(s, o, memory, constraint)
    raise ValueError(f"unknown selector {selector!r}; known: {', '.join(SELECTORS)}")


# ---------------------------------------------------------------------------
# Phase 1


def phase1(prompt, output, memory: int, selector: str = "dp", constraint: str = "peak", *,
           seed: int = 0, init_order: np.ndarray | None = None, **options) -> list[np.ndarray]:
    """Phase 1 of Sorted-F (002 Algorithm 1): the list of batches, each sorted by ``o`` (then id).

    ``init_order`` (a rank per request, used by LP-Swap) seeds each swap search
    with the greedy pack of the remaining requests in that order.
    """
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    rng = np.random.default_rng(seed)
    remaining = np.arange(len(s))
    batches: list[np.ndarray] = []
    while len(remaining):
        rs, ro = s[remaining], o[remaining]
        init = None
        if init_order is not None and selector == "swap":
            order = np.argsort(np.asarray(init_order)[remaining], kind="stable")
            init, _ = _best_prefix(rs, ro, memory, constraint, order)
        X = select(rs, ro, memory, selector, constraint, rng=rng, init=init, **options)
        ids = remaining[X]
        ids = ids[np.lexsort((ids, o[ids]))]
        batches.append(ids)
        keep = np.ones(len(remaining), dtype=bool)
        keep[X] = False
        remaining = remaining[keep]
    return batches


def order_from_batches(batches: Sequence[np.ndarray], n: int) -> np.ndarray:
    """Rank of every request in the concatenated list."""
    rank = np.empty(n, dtype=np.int64)
    rank[np.concatenate(batches)] = np.arange(n)
    return rank


def lemma1_holds(o_batch: np.ndarray) -> bool:
    """002 Lemma 1: the average output exceeds half the maximum, ``2 sum o > |X| max o``."""
    o_batch = np.asarray(o_batch, dtype=np.int64)
    return bool(2 * int(o_batch.sum()) > len(o_batch) * int(o_batch.max()))


# ---------------------------------------------------------------------------
# Phase 2 as a policy


class _Planned:
    """Mixin: compute a rank per request at :meth:`reset` with ``plan(ctx) -> (rank, batches)``."""

    def _setup(self, plan: Callable[[PolicyContext], tuple[np.ndarray, list[np.ndarray] | None]]):
        self._plan = plan
        self.rank = None
        self.batches = None

    def reset(self, ctx: PolicyContext) -> None:  # type: ignore[override]
        if ctx.output is None:
            raise ValueError(f"{self.name}: needs the output lengths (Sorted-F is an offline / known-o policy)")
        self.rank, self.batches = self._plan(ctx)
        super().reset(ctx)  # type: ignore[misc]


class PlannedPrefix(_Planned, LookaheadPrefix):
    """Phase 2 (002 Algorithm 1): longest prefix of the planned list keeping eq. (5)."""

    def __init__(self, plan, name: str) -> None:
        LookaheadPrefix.__init__(self, lambda c, i: (int(self.rank[i]),), name)
        self._setup(plan)


class PlannedScan(_Planned, LookaheadScan):
    """Variant of Phase 2: scan the planned list, starting every request that fits eq. (5)."""

    def __init__(self, plan, name: str) -> None:
        LookaheadScan.__init__(self, lambda c, i: (int(self.rank[i]),), name)
        self._setup(plan)


def planned_policy(plan, name: str, phase2: str = "prefix") -> Policy:
    if phase2 == "prefix":
        return PlannedPrefix(plan, name)
    if phase2 == "scan":
        return PlannedScan(plan, name)
    raise ValueError(f"phase2 must be 'prefix' or 'scan', got {phase2!r}")


def sorted_f(selector: str = "dp", phase1_constraint: str = "peak", epsilon: float = 0.05,
             B: int | None = None, samples: int = 4, phase2: str = "prefix", seed: int = 0) -> Policy:
    """Sorted-F, 002 Algorithm 1, with a Phase-1 selector (Algorithms 2-5) by name.

    ``selector``: ``dp`` (Alg. 2), ``scaled-dp`` (Alg. 3; ``epsilon``, ``B``),
    ``swap`` (Alg. 4), ``quantile`` (Alg. 5; ``samples``, ``seed``).
    ``phase1_constraint``: ``peak`` (default, ``sum (s + o) <= M``) or ``lookahead``.
    """
    if selector not in SELECTORS:
        raise ValueError(f"unknown selector {selector!r}; known: {', '.join(SELECTORS)}")
    _check(phase1_constraint)

    def plan(ctx: PolicyContext):
        b = phase1(ctx.prompt, ctx.output, ctx.memory, selector, phase1_constraint, seed=seed,
                   epsilon=epsilon, B=B, samples=samples)
        return order_from_batches(b, len(ctx.prompt)), b

    return planned_policy(plan, "sorted-f" if selector == "dp" else f"sorted-f[{selector}]", phase2)


# ---------------------------------------------------------------------------
# schedules used by the proof chain


def separate_starts(batches: Sequence[np.ndarray], output: np.ndarray) -> np.ndarray:
    """Sorted-F_separate (002 Theorem 4): batch ``b`` starts, all members together, when batch ``b-1`` ends."""
    o = np.asarray(output, dtype=np.int64)
    n = sum(len(b) for b in batches)
    p = np.zeros(n, dtype=np.int64)
    t = 0
    for b in batches:
        p[b] = t
        t += int(o[b].max())
    return p
