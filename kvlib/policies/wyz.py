"""Sorted-F of Wang, Ye, Zhou (002) for requests that all arrive at ``t = 0``.

The quality metric of a batch ``X`` (002 Section 3) is

    F(X) = sum_{i in X} o_i / |X|^2 .

**Sorted-F (002 Algorithm 1, Section 3).**  *Phase 1* repeatedly selects, among the
requests not yet selected, a batch ``X`` minimising ``(F(X), -|X|)`` subject to a
memory constraint, sorts it by ``o`` and appends it to a list.  *Phase 2*
executes the list with the look-ahead admission test of 001 eq. (5): at every
decision time the longest prefix of the remaining list that keeps eq. (5) is
started (:class:`PlannedPrefix`; ``phase2="scan"``, ours, skips a request that
does not fit instead of stopping).  :func:`sorted_f` lists the reading choices.

**The Phase-1 memory constraint.**  Two readings appear in 002:

* ``"peak"``: ``sum_{i in X} (s_i + o_i) <= M`` -- the peaks of all members
  added together.  This is the constraint of Algorithms 2-5 and of the proof, so it
  is our default.
* ``"lookahead"``: the batch started together fits at each of its completion
  times, ``sum_{j in X, o_j >= o_i} (s_j + o_i) <= M`` for every ``i in X``
  (Algorithm 1 line 4's ``M(X, p_i + o_i) <= M``).  It is weaker (admits more batches).

**Selectors** (002 Section 5, Appendix EC.3), all returning indices into the
arrays they are given.  002's pseudocode, as written (peak constraint only):

* :func:`dp_argmin` (``"dp"``) -- Algorithm 2, exact DP; ties in ``F`` to the smaller ``|X|``.
* :func:`scaled_dp_argmin` (``"scaled-dp"``) -- Algorithm 3, weights rounded down by
  ``lambda = max(1, epsilon M / B)``; may return a batch exceeding ``M``.
* :func:`swap_argmin` (``"swap"``) -- Algorithm 4, first-fit by ``s + o`` then
  first-improvement one-for-one swaps (batch size fixed).
* :func:`quantile_argmin` (``"quantile"``) -- Algorithm 5, 0.3-quantile thresholds of a
  half sample on ``s + o`` and ``o``, then a fill pass by ``o / (s + o)``.

Not 002's pseudocode:

* :func:`exact_argmin` (``"exact"``) -- Algorithm 1 line 4's argmin (ties to the larger
  ``|X|``), both constraints; ``"auto"`` (the default of :func:`sorted_f`) uses it where
  the DP fits :data:`AUTO_DP_CELLS`, else ``"swap"``.
* our variants ``"scaled-dp-ours"`` (rounded up, always feasible), ``"swap-ours"``
  (add / remove / swap, best improvement; satisfies Lemma 1) and ``"quantile-ours"``
  (ten thresholds on ``o``, several orders, best-``F`` prefix);
* :func:`brute_force_argmin` -- exhaustive argmin for small ``n`` (tests only).

The DP selectors raise :class:`SelectorTooLarge` (a ``ValueError``) when their table
would exceed :data:`DP_MAX_CELLS` cells, naming the selectors that can run.
The LP-based Sorted-LP / LP-Swap (Algorithms 6, 7) live in :mod:`kvlib.policies.wyz_lp`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from kvlib.core.protocol import Policy, PolicyContext
from kvlib.policies.base import LookaheadPrefix, LookaheadScan

CONSTRAINTS = ("peak", "lookahead")
_INF = np.iinfo(np.int64).max // 4


# ---------------------------------------------------------------------------
# metric and feasibility


def F(o: Sequence[int] | np.ndarray) -> float:
    """The quality metric ``F(X) = sum o / |X|^2`` (002 Section 3)."""
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
# size guard


class SelectorTooLarge(ValueError):
    """A Phase-1 selector cannot run at this instance size (its table would not fit the memory budget)."""


#: A DP selector refuses to run when its table has more cells than this: the traceback is one bit
#: per (item, size, weight) cell, so 2**33 cells are 1 GiB.
DP_MAX_CELLS = 2 ** 33
#: ``selector="auto"`` uses the exact DP while its table has at most this many cells (about 25 MiB
#: of traceback, well under a second per selection), and 002 Algorithm 4 (``swap``) above.
AUTO_DP_CELLS = 2 * 10 ** 8


def dp_cells(n: int, kmax: int, capacity: int) -> int:
    """Cells of a DP table over ``n`` items, sizes ``0..kmax`` and weights ``0..capacity``."""
    return int(n) * (int(kmax) + 1) * (int(capacity) + 1)


def _guard(name: str, n: int, kmax: int, capacity: int, memory: int, hint: str = "") -> None:
    cells = dp_cells(n, kmax, capacity)
    if cells > DP_MAX_CELLS:
        raise SelectorTooLarge(
            f"selector {name!r} cannot run at n = {n}, M = {memory}: its DP table has "
            f"n * (kmax + 1) * (capacity + 1) = {n} * {kmax + 1} * {capacity + 1} = {cells:.3g} cells "
            f"(about {cells / 8 / 2 ** 30:.1f} GiB of traceback bits; limit {DP_MAX_CELLS:.3g} cells). "
            "Use selector 'swap' (002 Algorithm 4) or 'quantile' (Algorithm 5), which run at any size, "
            "or 'auto', which picks the exact DP only where it fits." + hint
        )


# ---------------------------------------------------------------------------
# selectors: exact argmin (Algorithm 1 line 4, Algorithm 2)


def brute_force_argmin(s, o, memory: int, constraint: str = "peak", prefer: str = "larger") -> np.ndarray:
    """Exhaustive argmin of ``F(X)`` over all feasible non-empty subsets (``n <= 18``; tests only).

    Ties in ``F``: ``prefer="larger"`` takes the largest ``|X|`` (002 Algorithm 1 line 4),
    ``"smaller"`` the smallest (002 Algorithm 2's final scan); then the first subset in
    lexicographic order of the indices.
    """
    _check(constraint)
    if prefer not in ("larger", "smaller"):
        raise ValueError(f"prefer must be 'larger' or 'smaller', got {prefer!r}")
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    n = len(s)
    if n > 18:
        raise SelectorTooLarge(f"selector 'brute' is for n <= 18, got n = {n}; use 'auto', 'exact' or 'dp'")
    sign = -1 if prefer == "larger" else 1
    best, best_key = None, None
    for k in range(1, n + 1):
        for X in itertools.combinations(range(n), k):
            X = list(X)
            if not batch_feasible(s[X], o[X], memory, constraint):
                continue
            key = (Fraction(int(o[X].sum()), k * k), sign * k)
            if best_key is None or key < best_key:
                best, best_key = X, key
    return np.asarray(best, dtype=np.int64)


def _best_cell(D: np.ndarray, prefer: str) -> tuple[int, int]:
    """The cell ``(k, w)``, ``k >= 1``, minimising ``D[k, w] / k^2``; among equal values the
    largest (``prefer="larger"``) or smallest (``"smaller"``) ``k``, then the smallest ``w``."""
    mins = D[1:].min(axis=1)
    best_k, best_key = None, None
    sign = -1 if prefer == "larger" else 1
    for k in range(1, D.shape[0]):
        m = int(mins[k - 1])
        if m >= _INF:
            continue
        key = (Fraction(m, k * k), sign * k)
        if best_key is None or key < best_key:
            best_k, best_key = k, key
    if best_k is None:
        raise ValueError("no feasible batch (every request exceeds the memory?)")
    return best_k, int(np.argmin(D[best_k]))


def _dp(weights: np.ndarray, o: np.ndarray, cap: int, kmax: int, row_ok: Callable[[int], np.ndarray] | None,
        prefer: str = "larger"):
    """Knapsack-by-count DP: ``D[k, w]`` = least sum of ``o`` over ``k`` items of total weight ``w``.

    Items are processed in the given order, a cell is replaced only on a strict
    improvement (002 Algorithm 2 lines 4-19; the reverse-``k`` loop is the same as
    computing every candidate from the table before the item).  ``row_ok(idx)``, if
    given, is a boolean ``(kmax + 1, cap + 1)`` mask of the states allowed right after
    adding item ``idx``.  The traceback keeps one bit per cell and item (memory
    ``n (kmax + 1) (cap + 1) / 8`` bytes); walking it backwards returns exactly the set
    Algorithm 2 would have stored in ``path``.  Returns the chosen item positions.
    """
    n = len(weights)
    D = np.full((kmax + 1, cap + 1), _INF, dtype=np.int64)
    D[0, 0] = 0
    take = np.zeros((n, kmax + 1, (cap + 8) // 8), dtype=np.uint8)
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
        take[idx] = np.packbits(better, axis=1)
        D = np.where(better, cand, D)
    k, w = _best_cell(D, prefer)
    chosen = []
    for idx in range(n - 1, -1, -1):
        if k == 0:
            break
        if (take[idx, k, w >> 3] >> (7 - (w & 7))) & 1:
            chosen.append(idx)
            k -= 1
            w -= int(weights[idx])
    assert k == 0 and w == 0, "DP reconstruction failed"
    return np.asarray(sorted(chosen), dtype=np.int64)


def _kmax(s: np.ndarray, o: np.ndarray, memory: int, cap: int | None = None) -> int:
    """The largest size of a peak-feasible batch, ``min(n, M // min(s + o))`` (optionally capped)."""
    k = min(len(s), memory // max(1, int(s.min() + o.min())))
    return max(1, min(k, cap) if cap else k)


def exact_argmin(s, o, memory: int, constraint: str = "peak") -> np.ndarray:
    """The exact Phase-1 argmin of 002 Algorithm 1 line 4: least ``F``, ties to the **larger** ``|X|``.

    Computed by the DP of Algorithm 2 with line 4's tie rule in the final scan
    (Algorithm 2 itself keeps the smaller ``|X|``, see :func:`dp_argmin`); among
    equal ``(F, |X|)`` the batch of least total memory, then Algorithm 2's path.
    ``O(n * kmax * M)`` time, ``n * kmax * M / 8`` bytes; :class:`SelectorTooLarge`
    above :data:`DP_MAX_CELLS`.

    ``constraint="peak"``: state (size ``k``, total ``sum (s + o)``), as in Algorithm 2.
    ``constraint="lookahead"`` (line 4 read literally; our extension of the DP): items in
    decreasing ``o``; state (size ``k``, ``sum s``); adding item ``i`` (the shortest so far)
    is allowed iff ``sum s + k o_i <= M`` -- the batch's usage at the completion time ``o_i``.
    """
    _check(constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    kmax = _kmax(s, o, memory)
    _guard("exact", len(s), kmax, memory, memory)
    if constraint == "peak":
        return _dp(s + o, o, memory, kmax, None, "larger")
    order = np.argsort(-o, kind="stable")
    so, oo = s[order], o[order]
    kk = np.arange(kmax + 1)[:, None]
    ww = np.arange(memory + 1)[None, :]
    chosen = _dp(so, oo, memory, kmax, lambda idx: ww + kk * int(oo[idx]) <= memory, "larger")
    return np.sort(order[chosen])


def _peak_only(name: str, constraint: str) -> None:
    _check(constraint)
    if constraint != "peak":
        raise ValueError(
            f"selector {name!r} is 002's pseudocode, which uses the peak constraint sum(s + o) <= M only; "
            f"for constraint {constraint!r} use 'exact' (or 'auto', 'brute', 'scaled-dp-ours', 'swap-ours', "
            "'quantile-ours')"
        )


def dp_argmin(s, o, memory: int, constraint: str = "peak") -> np.ndarray:
    """Exact DP, 002 Algorithm 2 (Appendix EC.3, Section 5.1), as written.

    ``dp[k][m]`` = least ``sum o`` over ``k`` requests of total peak ``sum (s + o) = m <= M``,
    requests in input order (in :func:`phase1`: the remaining requests by id),
    strict-improvement relaxation, ``path`` as the set stored with the cell; the final scan over
    ``k = 1..n``, ``m = 0..M`` keeps the first strictly smaller ``dp[k][m] / k^2``, so
    among batches of equal ``F`` the **smallest** ``|X|`` wins, then the smallest ``m``
    (Algorithm 1 line 4 breaks the same tie toward the larger ``|X|``: that is
    :func:`exact_argmin`).  Peak constraint only (``ValueError`` otherwise);
    :class:`SelectorTooLarge` above :data:`DP_MAX_CELLS` cells.
    """
    _peak_only("dp", constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    kmax = _kmax(s, o, memory)  # sizes above kmax have no finite cell; pruning them changes nothing
    _guard("dp", len(s), kmax, memory, memory)
    return _dp(s + o, o, memory, kmax, None, "smaller")


# ---------------------------------------------------------------------------
# selectors: 002 Algorithms 3-5 as written


def _scale(epsilon, memory: int, B: int) -> Fraction:
    """``lambda = max(1, epsilon M / B)`` exactly (``epsilon`` read as the decimal it prints as)."""
    return max(Fraction(1), Fraction(repr(float(epsilon))) * int(memory) / int(B))


def scaled_parameters(s, o, memory: int, epsilon: float = 0.05, B: int | None = None) -> dict:
    """The quantities of 002 Algorithm 3 lines 1-2 and 6 for a request set (see :func:`scaled_dp_argmin`).

    Returns ``lambda`` (a ``Fraction``), ``M_hat``, the scaled weights ``w_hat`` and ``B`` used.
    """
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    if B is None:
        B = _kmax(s, o, memory)
    if int(B) != B or B < 1:
        raise ValueError(f"B must be a positive integer, got {B!r}")
    lam = _scale(epsilon, memory, int(B))
    num, den = lam.numerator, lam.denominator
    # floor((s_i + o_i) / lambda) in Python integers: lambda's denominator can be ~1e18, and the
    # product with s_i + o_i overflows int64 (negative weights, a wrong batch) if done in numpy.
    w_hat = np.fromiter(((int(w) * den) // num for w in (s + o)), dtype=np.int64, count=len(s))
    return {"lambda": lam, "B": int(B), "M_hat": int(memory) * den // num, "w_hat": w_hat}


def scaled_dp_argmin(s, o, memory: int, constraint: str = "peak", epsilon: float = 0.05,
                     B: int | None = None) -> np.ndarray:
    """Scaled DP, 002 Algorithm 3 (Appendix EC.3, Section 5.2), as written.

    ``lambda = max(1, epsilon M / B)``, ``M_hat = floor(M / lambda)``, weights
    ``floor((s_i + o_i) / lambda)`` (rounded **down**); then Algorithm 2's DP on the
    scaled weights with capacity ``M_hat`` and its final scan (ties: smaller ``|X|``,
    then smaller scaled weight).

    Reading choices (002 leaves them open):

    * ``epsilon`` and ``B`` have no values in 002; our defaults are ``epsilon = 0.05`` and
      ``B`` = the largest size of a peak-feasible batch, ``min(n, M // min(s + o))``, so
      that ``B lambda = epsilon M`` bounds the rounding error of a batch of at most ``B``
      requests.  ``lambda`` is computed exactly (``epsilon`` as its decimal).
    * Because weights are rounded down, every peak-feasible batch is feasible for the
      scaled problem, so the result has ``F <= F*`` (the exact optimum), and it may
      **exceed the memory**: its true peak sum is below ``M + lambda |X|`` only.
      This function returns it as is; :func:`phase1` appends it as is and Phase 2's
      eq. (5) admission keeps the executed schedule within ``M`` (see :func:`sorted_f`).

    Peak constraint only (``ValueError`` otherwise); :class:`SelectorTooLarge` when the
    table ``n (kmax + 1)(M_hat + 1)`` exceeds :data:`DP_MAX_CELLS`.
    """
    _peak_only("scaled-dp", constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    par = scaled_parameters(s, o, memory, epsilon, B)
    wh, cap = par["w_hat"], par["M_hat"]
    n = len(s)
    kmax = n if int(wh.min()) == 0 else max(1, min(n, cap // int(wh.min())))
    _guard("scaled-dp", n, kmax, cap, memory,
           f" (Here lambda = {par['lambda']}; a larger epsilon or a smaller B shrinks the table.)")
    return _dp(wh, o, cap, kmax, None, "smaller")


def local_swap(s, o, memory: int, X: Sequence[int], order: Sequence[int]) -> np.ndarray:
    """The improvement loop of 002 Algorithm 4 (lines 9-32) from the batch ``X``.

    Repeat: for each member ``r_out``, for each non-member ``r_in``, skip the pair if
    ``mem - (s_out + o_out) + (s_in + o_in) > M``; otherwise, if the swap lowers ``F``
    (with ``|X|`` fixed: ``o_in < o_out``), apply it and start a new pass (first
    improvement).  Stop after a pass without an improving swap.  The size of ``X`` never
    changes.  Reading choice: both loops scan the requests in ``order`` (the sorted
    list ``I`` of the calling algorithm), members for ``r_out`` and non-members for ``r_in``.
    Terminates because ``sum o`` strictly decreases.
    """
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    order = np.asarray(order, dtype=np.int64)
    w = s + o
    inX = np.zeros(len(s), dtype=bool)
    inX[np.asarray(X, dtype=np.int64)] = True
    mem = int(w[inX].sum())
    wo = w[order]
    if len(wo) > 1 and bool((wo[1:] >= wo[:-1]).all()):  # Algorithm 4's own order: ascending s + o
        return _local_swap_sorted(w, o, memory, inX, order, mem)
    return _local_swap_scan(w, o, memory, inX, order, mem)


def _local_swap_scan(w: np.ndarray, o: np.ndarray, memory: int, inX: np.ndarray, order: np.ndarray,
                     mem: int) -> np.ndarray:
    """:func:`local_swap`'s loop as written: each member against every non-member."""
    while True:
        members = order[inX[order]]
        outs = order[~inX[order]]
        if len(outs) == 0:
            break
        wo, oo = w[outs], o[outs]
        swapped = False
        for r_out in members.tolist():
            ok = (wo - int(w[r_out]) <= memory - mem) & (oo < int(o[r_out]))
            hit = np.flatnonzero(ok)
            if len(hit):
                r_in = int(outs[hit[0]])
                inX[r_out], inX[r_in] = False, True
                mem += int(w[r_in]) - int(w[r_out])
                swapped = True
                break
        if not swapped:
            break
    return np.sort(np.flatnonzero(inX)).astype(np.int64)


def _local_swap_sorted(w: np.ndarray, o: np.ndarray, memory: int, inX: np.ndarray, order: np.ndarray,
                       mem: int) -> np.ndarray:
    """:func:`local_swap` when ``order`` ascends in ``w = s + o``: the same swaps, each pass in
    ``O(P + |X| log P)`` instead of ``O(|X| n)``, ``P`` the requests light enough to replace some member.

    Positions are taken in ``order``.  The non-members that fit in place of a member
    (``w_in - w_out <= M - mem``) are then a prefix of the non-members, found by binary search, inside
    the first ``P`` positions (those with ``w <= M - mem + max w_out``); the first one with
    ``o_in < o_out`` is where the running minimum of their ``o`` first drops below ``o_out``, also a
    binary search.  The first member (in ``order``) with such a partner inside its prefix gives the swap
    the scan would make (``tests/test_engine_equality.py`` compares both on random inputs)."""
    ws, os_ = w[order], o[order]
    in_pos = inX[order]
    members = np.flatnonzero(in_pos)  # positions of the members, ascending
    while len(members):
        bound = (memory - mem) + ws[members]
        P = int(np.searchsorted(ws, bound.max(), side="right"))
        outs = np.flatnonzero(~in_pos[:P])
        if len(outs) == 0:
            break
        neg_min_o = -np.minimum.accumulate(os_[outs])  # non-decreasing
        fit = np.searchsorted(ws[outs], bound, side="right")  # outs[:fit] fit in place of the member
        first_shorter = np.searchsorted(neg_min_o, -os_[members], side="right")  # first o_in < o_out
        hit = np.flatnonzero(first_shorter < fit)
        if len(hit) == 0:
            break
        k = int(hit[0])
        p_out, p_in = int(members[k]), int(outs[first_shorter[k]])
        in_pos[p_out], in_pos[p_in] = False, True
        mem += int(ws[p_in]) - int(ws[p_out])
        members = np.delete(members, k)
        members = np.insert(members, int(np.searchsorted(members, p_in)), p_in)
    return np.sort(order[in_pos]).astype(np.int64)


def first_fit(s, o, memory: int, order: Sequence[int]) -> list[int]:
    """Scan ``order`` and add every request whose peak still fits, ``mem + s + o <= M`` (skip the others)."""
    X, mem = [], 0
    sl, ol = np.asarray(s).tolist(), np.asarray(o).tolist()
    for i in np.asarray(order).tolist():
        if mem + sl[i] + ol[i] <= memory:
            X.append(int(i))
            mem += sl[i] + ol[i]
    return X


def swap_argmin(s, o, memory: int, constraint: str = "peak") -> np.ndarray:
    """Local swap search, 002 Algorithm 4 (Appendix EC.3, Section 5.3), as written.

    Lines 1-8: sort by ascending ``s + o`` (ties: input order -- our choice) and pack
    first-fit (a request that does not fit is skipped); lines 9-32: :func:`local_swap`
    (one-for-one swaps only, first improvement, ``|X|`` fixed by the packing).  The
    result is a local optimum for swaps, not an ``F``-argmin, and need not satisfy
    002 Lemma 1 (tests/test_sortedf.py, instance D1).  Peak constraint only.
    """
    _peak_only("swap", constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    order = np.argsort(s + o, kind="stable")
    return local_swap(s, o, memory, first_fit(s, o, memory, order), order)


def quantile_argmin(s, o, memory: int, constraint: str = "peak",
                    rng: np.random.Generator | None = None) -> np.ndarray:
    """Quantile greedy, 002 Algorithm 5 (Appendix EC.3, Section 5.4), as written.

    Sort by ascending ``o``; draw a random sample of ``max(1, floor(n / 2))`` requests;
    ``Q_p``, ``Q_o`` = 0.3-quantiles of the sample's ``s + o`` and ``o``; core pass in
    ``o`` order: add ``r`` if ``s + o <= Q_p`` and ``o <= Q_o`` and it fits
    (``mem + s + o <= M``); fill pass: the rest by ascending ``o / (s + o)``, add
    whatever fits.  ``F`` is never computed.

    Reading choices: the sample is drawn without replacement from ``rng`` (seeded by
    :func:`phase1`); the quantile is numpy's default (linear interpolation); ties of
    ``o`` keep the input order, ties of ``o / (s + o)`` keep the ``o`` order.  Peak
    constraint only.
    """
    _peak_only("quantile", constraint)
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    if rng is None:
        rng = np.random.default_rng(0)
    n = len(s)
    w = s + o
    order = np.argsort(o, kind="stable")
    sample = rng.choice(n, size=max(1, n // 2), replace=False)
    Qp = float(np.quantile(w[sample], 0.3))
    Qo = float(np.quantile(o[sample], 0.3))
    inX = np.zeros(n, dtype=bool)
    mem = 0
    for r in order.tolist():
        if w[r] <= Qp and o[r] <= Qo and mem + int(w[r]) <= memory:
            inX[r] = True
            mem += int(w[r])
    rest = order[~inX[order]]
    rest = rest[np.argsort(o[rest] / w[rest], kind="stable")]  # equal rationals give equal doubles
    for r in rest.tolist():
        if mem + int(w[r]) <= memory:
            inX[r] = True
            mem += int(w[r])
    return np.flatnonzero(inX).astype(np.int64)


# ---------------------------------------------------------------------------
# selectors: our variants (not 002's pseudocode)


def scaled_dp_ours_argmin(s, o, memory: int, constraint: str = "peak", epsilon: float = 0.05,
                          B: int | None = None) -> np.ndarray:
    """Our rounded-up DP (``scaled-dp-ours``; not 002 Algorithm 3): every batch it returns fits.

    The unit is ``u = max(1, floor(epsilon * M))``; each weight (``s + o``, or ``s``
    under ``"lookahead"``, where the check ``sum s + k o <= M`` is done in units
    rounded up) becomes ``ceil(w / u)`` and the capacity ``floor(M / u)``.  ``B`` caps
    the batch size (default: ``M // min(s + o)``); ties go to the larger ``|X|``; the best
    singleton is returned if it beats the rounded optimum.  Cost ``O(n * B * M / u)``.
    """
    _check(constraint)
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    u = max(1, int(math.floor(epsilon * memory)))
    cap = memory // u
    kmax = _kmax(s, o, memory, B)
    _guard("scaled-dp-ours", len(s), kmax, cap, memory)
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


def swap_ours_argmin(s, o, memory: int, constraint: str = "peak", init: Sequence[int] | None = None,
                     max_iter: int = 1000) -> np.ndarray:
    """Our local search (``swap-ours``; a stronger variant of 002 Algorithm 4, not its pseudocode).

    Start from ``init`` (default: the better of the greedy packings by increasing
    ``o`` and by increasing ``s + o``, each cut at its best-``F`` prefix); repeatedly apply
    the move -- add one request, remove one, or swap one member for one non-member --
    that most improves ``(F, -|X|)`` while keeping the Phase-1 constraint; stop at a
    local optimum (or after ``max_iter`` moves).  Removal moves make every local
    optimum satisfy 002 Lemma 1 (which Algorithm 4's output need not).
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
            raise ValueError("swap_ours_argmin: init must be a non-empty feasible batch")
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


def quantile_ours_argmin(s, o, memory: int, constraint: str = "peak", rng: np.random.Generator | None = None,
                         quantiles: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                         samples: int = 4) -> np.ndarray:
    """Our multi-threshold greedy (``quantile-ours``; not 002 Algorithm 5).

    For each quantile ``q`` of the remaining output lengths, the candidates are
    the requests with ``o <= quantile_q(o)``; they are packed greedily (skipping
    those that do not fit) by increasing ``s + o`` and in ``samples`` random
    orders drawn from ``rng``; the best ``(F, -|X|)`` among all packs (each cut at its
    best prefix) is returned.
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
    # 002's pseudocode
    "dp": dp_argmin,
    "scaled-dp": scaled_dp_argmin,
    "swap": swap_argmin,
    "quantile": quantile_argmin,
    # Algorithm 1 line 4's exact argmin, and our variants
    "exact": exact_argmin,
    "scaled-dp-ours": scaled_dp_ours_argmin,
    "swap-ours": swap_ours_argmin,
    "quantile-ours": quantile_ours_argmin,
    "brute": brute_force_argmin,
}
#: The selectors that are 002's pseudocode (Algorithms 2-5); they use the peak constraint only.
PAPER_SELECTORS = ("dp", "scaled-dp", "swap", "quantile")
#: Everything :func:`sorted_f` accepts: the selectors and ``"auto"``.
SELECTOR_NAMES = ("auto",) + tuple(SELECTORS)


def auto_selector(s, o, memory: int) -> str:
    """``selector="auto"``: ``"exact"`` (Algorithm 1 line 4's argmin) while the DP table has at most
    :data:`AUTO_DP_CELLS` cells, else ``"swap"`` (002 Algorithm 4, the selector 002 Section 7 found
    best among those that scale).  A choice of ours, made once per Phase 1 from the whole request set."""
    s = np.asarray(s, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    if len(s) == 0:
        return "exact"
    return "exact" if dp_cells(len(s), _kmax(s, o, memory), memory) <= AUTO_DP_CELLS else "swap"


def _check_selector(selector: str, constraint: str) -> None:
    if selector not in SELECTOR_NAMES:
        raise ValueError(f"unknown selector {selector!r}; known: {', '.join(SELECTOR_NAMES)}")
    _check(constraint)
    if selector in PAPER_SELECTORS:
        _peak_only(selector, constraint)


def select(s, o, memory: int, selector: str = "exact", constraint: str = "peak", *, rng=None,
           epsilon: float = 0.05, B: int | None = None, quantiles=None, samples: int = 4,
           init=None) -> np.ndarray:
    """Run one selector by name (options that do not apply are ignored)."""
    _check_selector(selector, constraint)
    if selector == "auto":
        selector = auto_selector(s, o, memory)
    if selector in ("dp", "exact", "brute"):
        return SELECTORS[selector](s, o, memory, constraint)
    if selector in ("scaled-dp", "scaled-dp-ours"):
        return SELECTORS[selector](s, o, memory, constraint, epsilon=epsilon, B=B)
    if selector == "swap":
        return swap_argmin(s, o, memory, constraint)
    if selector == "swap-ours":
        return swap_ours_argmin(s, o, memory, constraint, init=init)
    if selector == "quantile":
        return quantile_argmin(s, o, memory, constraint, rng=rng)
    kw = {} if quantiles is None else {"quantiles": quantiles}
    return quantile_ours_argmin(s, o, memory, constraint, rng=rng, samples=samples, **kw)


# ---------------------------------------------------------------------------
# Phase 1


def phase1(prompt, output, memory: int, selector: str = "exact", constraint: str = "peak", *,
           seed: int = 0, init_order: np.ndarray | None = None, **options) -> list[np.ndarray]:
    """Phase 1 of Sorted-F (002 Algorithm 1 lines 1-7): the list of batches, each sorted by ``o`` (then id).

    Each iteration runs the selector on the remaining requests (in id order), sorts the
    batch by ``o`` (ties: id) and removes it.  ``selector="auto"`` is resolved once, from
    the whole request set (:func:`auto_selector`).  A batch is appended as the selector
    returns it, even if it exceeds the memory (only 002 Algorithm 3 can return one,
    :func:`scaled_dp_argmin`).  ``seed`` seeds one generator used by every random draw
    (the quantile selectors).  ``init_order`` (a rank per request; only with
    ``swap-ours``, used by ``lp-swap-ours``) seeds each search with the greedy pack of
    the remaining requests in that order, cut at its best-``F`` prefix.
    """
    _check_selector(selector, constraint)
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    if init_order is not None and selector != "swap-ours":
        raise ValueError(f"init_order is only used by selector 'swap-ours', got {selector!r}")
    if selector == "auto":
        selector = auto_selector(s, o, memory)
    rng = np.random.default_rng(seed)
    remaining = np.arange(len(s))
    batches: list[np.ndarray] = []
    while len(remaining):
        rs, ro = s[remaining], o[remaining]
        init = None
        if init_order is not None:
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


#: Phase-1 selectors whose batches 002 Lemma 1 covers: minimisers of ``F`` (Algorithm 2's ``dp`` and
#: Algorithm 1 line 4's ``exact``) and our ``swap-ours``, whose moves include removals (the proof only
#: uses that removing the longest request does not lower ``F``).  002's heuristics (``swap``,
#: ``quantile``, LP-Swap's Algorithm 7) need not satisfy it.
LEMMA1_SELECTORS = ("exact", "dp", "swap-ours")


def phase1_selector(policy: str, options: dict, prompt, output, memory: int) -> str:
    """The Phase-1 selector a registered 002 policy uses on an instance: ``sorted-f``'s ``selector``
    option with ``"auto"`` resolved (:func:`auto_selector`), else the policy's name (e.g. ``"lp-swap"``)."""
    if policy != "sorted-f":
        return policy
    selector = options.get("selector", "auto")
    return auto_selector(np.asarray(prompt), np.asarray(output), memory) if selector == "auto" else selector


def lemma1_tally(records) -> tuple[int, list, int, int]:
    """002 Lemma 1 over recorded Phase-1 batches ``(selector, o of the batch)``.

    Returns ``(batches covered by the lemma, the covered ones that violate it as (selector, o list),
    batches of other selectors, how many of those violate it)``.
    """
    covered = [(sel, np.asarray(o)) for sel, o in records if sel in LEMMA1_SELECTORS]
    others = [np.asarray(o) for sel, o in records if sel not in LEMMA1_SELECTORS]
    bad = [(sel, o.tolist()) for sel, o in covered if not lemma1_holds(o)]
    return len(covered), bad, len(others), sum(not lemma1_holds(o) for o in others)


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


def sorted_f(selector: str = "auto", phase1_constraint: str = "peak", epsilon: float = 0.05,
             B: int | None = None, samples: int = 4, phase2: str = "prefix", seed: int = 0) -> Policy:
    """Sorted-F, 002 Algorithm 1 (Section 3), with a Phase-1 selector by name.

    Phase 1 (lines 1-7): :func:`phase1`; Phase 2 (lines 8-20): at every decision time
    start the longest prefix of the remaining list that keeps 001 eq. (5)
    (:class:`PlannedPrefix`; ``phase2="scan"`` is our variant that skips a request
    that does not fit instead of stopping).

    ``selector`` (002 Section 5, Appendix EC.3):

    * ``"auto"`` (default, ours): ``"exact"`` where the DP table has at most
      :data:`AUTO_DP_CELLS` cells, else ``"swap"`` (:func:`auto_selector`);
    * ``"exact"``: line 4's argmin, ties to the larger ``|X|`` (:func:`exact_argmin`);
    * 002's pseudocode, peak constraint only: ``"dp"`` (Alg. 2), ``"scaled-dp"``
      (Alg. 3; ``epsilon``, ``B``), ``"swap"`` (Alg. 4), ``"quantile"`` (Alg. 5; ``seed``);
    * our variants: ``"scaled-dp-ours"`` (``epsilon``, ``B`` = size cap),
      ``"swap-ours"``, ``"quantile-ours"`` (``samples``, ``seed``); ``"brute"`` (tests).

    Reading choices 002 leaves open:

    * **Phase-1 constraint.** Line 4 writes ``M(X, p_i + o_i) <= M`` (the batch started
      together fits at each member's completion; ``"lookahead"``), Algorithms 2-5 and
      the proof use ``sum (s + o) <= M`` (``"peak"``, our default).
    * **Batch boundaries.** Phase 2 treats the list as one queue (lines 12-18 never
      refer to batches): a request of the next batch starts as soon as everything before
      it has started and it fits, even while members of the previous batch still run.
    * **Ties.** Equal ``(F, |X|)``: the DP's choice (least memory, then Algorithm 2's
      path); equal ``o`` inside a batch: request id.
    * **Clock.** Admissions start at ``t = 0`` and a request started at ``p`` completes at
      ``p + o`` (002's Examples 1 and 2 count this way; line 11's ``t <- t + 1`` before the
      first admission would add one to every completion).  Finished requests leave the
      active set and the candidate is included in line 13's check.
    * **A batch that exceeds the memory** (possible only with ``"scaled-dp"``, Algorithm 3
      rounds weights down): 002 does not say what Sorted-F does with it.  We append it
      as returned; Phase 2 admits its members only while eq. (5) holds, so the
      schedule always respects ``M`` and the batch's members merely do not all start
      together.
    """
    _check_selector(selector, phase1_constraint)

    def plan(ctx: PolicyContext):
        b = phase1(ctx.prompt, ctx.output, ctx.memory, selector, phase1_constraint, seed=seed,
                   epsilon=epsilon, B=B, samples=samples)
        return order_from_batches(b, len(ctx.prompt)), b

    return planned_policy(plan, "sorted-f" if selector == "auto" else f"sorted-f[{selector}]", phase2)


# ---------------------------------------------------------------------------
# schedules used by the proof chain




# ---------------------------------------------------------------------------
# the proof chain of 002 Theorem 3: OUR VARIANT (feasible batched schedules)
#
# 002 Section 4 proves TEL(Sorted-F) < 48 OPT through Sorted-F_separate (Theorem 4),
# Sorted-F_group (Theorem 5), Sorted-F_align (Theorem 6), Optimal_align (Theorem 7) and the
# bridge Theorem 8.  002's own objects are built in kvlib.theory.wyz_chain_paper; apart from
# Sorted-F_separate they are not schedules of the instance (a group starts several batches that
# each fill the memory at once, align changes outputs) and are evaluated by 002's TEL formulas.
# The functions below are OUR VARIANT of the chain, in which every object is a *batched*
# schedule of the original instance (disjoint batches, each started as a whole and fitting the
# memory alone, run one after another), so every object passes the checker and the five link
# ratios of CHAIN_LINKS multiply to TEL(Sorted-F) / OPT exactly.  How it differs from 002:
#   separate       the same object as 002's;
#   group          ours: batches sorted into length classes ceil(log2 max o), serialised;
#                  002: consecutive batches merged by an F-based rule and started together;
#   align          ours: each batch in a slot of power-of-two length at an aligned start;
#                  002: the outputs of each group's terminal batch replaced by their average;
#   Optimal_align  ours: the best aligned batched schedule (DP, >= OPT);
#                  002: one optimal schedule cut into temporal groups and averaged batches;
#   bridge         ours: align / Optimal_align, not a theorem of 002 (>= 1 by construction);
#                  002's Theorem 8 compares its own align and Optimal_align objects.
# The stored tables theorem3, chain_sweep and adversarial of the chapter "Sorted-F and the ratio
# 48" hold this variant's TELs.


def pow2_up(x: int) -> int:
    """The smallest power of two ``>= x`` (``x >= 1``)."""
    x = int(x)
    if x < 1:
        raise ValueError(f"pow2_up needs x >= 1, got {x}")
    return 1 << (x - 1).bit_length()


def length_class(x: int) -> int:
    """``ceil(log2 x)``: the geometric class of a length ``x >= 1`` (``pow2_up(x) = 2**class``)."""
    return pow2_up(x).bit_length() - 1


def _batches_checked(batches: Sequence[np.ndarray], output: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    o = np.asarray(output, dtype=np.int64)
    bl = [np.asarray(b, dtype=np.int64) for b in batches]
    if any(len(b) == 0 for b in bl):
        raise ValueError("batched schedule: empty batch")
    allids = np.concatenate(bl) if bl else np.zeros(0, dtype=np.int64)
    if sorted(allids.tolist()) != list(range(len(o))):
        raise ValueError("batched schedule: the batches must partition the requests 0..n-1")
    return bl, o


def batched_starts(batches: Sequence[np.ndarray], output: np.ndarray, *, aligned: bool = False) -> np.ndarray:
    """Start times of the batches run one after another, in the given order.

    ``aligned=False``: batch ``b`` occupies ``[t, t + max o_b)`` and the next starts at its end.
    ``aligned=True``: batch ``b`` gets a slot of the rounded length ``L_b = pow2_up(max o_b)``
    starting at the first multiple of ``L_b`` not before the previous slot's end (our
    variant of "aligned", not 002's; the members still run their true ``o_i <= L_b`` rounds).
    """
    bl, o = _batches_checked(batches, output)
    p = np.zeros(len(o), dtype=np.int64)
    t = 0
    for b in bl:
        d = int(o[b].max())
        if aligned:
            L = pow2_up(d)
            t = -(-t // L) * L
            d = L
        p[b] = t
        t += d
    return p


def separate_starts(batches: Sequence[np.ndarray], output: np.ndarray) -> np.ndarray:
    """Sorted-F_separate (002, defined before Theorem 4; the paper's object): the Phase-1 batches in
    Phase-1 order, batch ``b`` started as a whole when batch ``b-1`` has completed."""
    return batched_starts(batches, output)


def group_order(batches: Sequence[np.ndarray], output: np.ndarray) -> list[np.ndarray]:
    """Our variant's group order (not 002 Theorem 5's grouping, which merges consecutive batches by
    an F-based rule, :func:`kvlib.theory.wyz_chain_paper.groups`): the Phase-1 batches grouped
    by the geometric class ``ceil(log2 max o_b)`` of their length, classes in increasing
    order, Phase-1 order kept inside a class (the batches of a class are serialised)."""
    bl, o = _batches_checked(batches, output)
    keys = [length_class(int(o[b].max())) for b in bl]
    order = sorted(range(len(bl)), key=lambda j: (keys[j], j))
    return [bl[j] for j in order]


def group_starts(batches: Sequence[np.ndarray], output: np.ndarray) -> np.ndarray:
    """Our variant's group schedule: :func:`group_order`, batches back to back (a feasible schedule)."""
    return batched_starts(group_order(batches, output), output)


def align_starts(batches: Sequence[np.ndarray], output: np.ndarray) -> np.ndarray:
    """Our variant's align schedule (002's Sorted-F_align instead averages the outputs of each group's
    terminal batch, :func:`kvlib.theory.wyz_chain_paper.align_tel`): the group order, every batch's
    length rounded up to a power of two ``L`` and its start aligned to a multiple of ``L``."""
    return batched_starts(group_order(batches, output), output, aligned=True)


def optimal_aligned(prompt, output, memory: int, max_n: int = 10) -> tuple[int, list[np.ndarray]]:
    """Our variant's Optimal_align (002 Theorem 7 instead transforms one optimal schedule,
    :func:`kvlib.theory.wyz_chain_paper.optimal_align`): the least TEL over all *aligned
    batched schedules* — ordered partitions into batches that fit the memory when started
    together (``batch_start_usage <= M``), each batch in a slot of length ``L = pow2_up(max o)``
    starting at a multiple of ``L`` — by dynamic programming over (remaining set, time).

    Waiting longer than the next multiple of ``L`` never helps (the optimum from a later
    time is never smaller), so the DP starts every batch at the earliest aligned time.
    Exact; for ``n <= max_n`` (``3^n`` subset pairs).  Returns ``(tel, batches)``.
    """
    s = [int(x) for x in prompt]
    o = [int(x) for x in output]
    n = len(o)
    if n > max_n:
        raise ValueError(f"optimal_aligned is exact by subset DP, for n <= {max_n}; got n = {n}")
    if n == 0:
        return 0, []
    full = (1 << n) - 1
    feas: dict[int, tuple[int, int]] = {}  # mask -> (slot length L, sum of o)
    for mask in range(1, full + 1):
        mem = [i for i in range(n) if mask >> i & 1]
        if batch_start_usage(np.array([s[i] for i in mem]), np.array([o[i] for i in mem])) <= memory:
            feas[mask] = (pow2_up(max(o[i] for i in mem)), sum(o[i] for i in mem))
    memo: dict[tuple[int, int], tuple[int, int]] = {}

    def f(rem: int, t: int) -> int:
        if rem == 0:
            return 0
        key = (rem, t)
        if key in memo:
            return memo[key][0]
        k_rem = bin(rem).count("1")
        best, arg = None, 0
        sub = rem
        while sub:
            if sub in feas:
                L, so = feas[sub]
                q = -(-t // L) * L
                k = bin(sub).count("1")
                c = k * q + so
                if best is None or c + (k_rem - k) * (q + L) < best:  # lower bound prune
                    c += f(rem & ~sub, q + L)
                    if best is None or c < best:
                        best, arg = c, sub
            sub = (sub - 1) & rem
        if best is None:
            raise ValueError("optimal_aligned: some request does not fit the memory alone")
        memo[key] = (best, arg)
        return best

    tel = f(full, 0)
    batches, rem, t = [], full, 0
    while rem:
        sub = memo[(rem, t)][1]
        L = feas[sub][0]
        q = -(-t // L) * L
        batches.append(np.array([i for i in range(n) if sub >> i & 1], dtype=np.int64))
        rem &= ~sub
        t = q + L
    return int(tel), batches


CHAIN_LINKS = (
    ("Thm 4: SF / separate", "Sorted-F", "separate", 1.0),
    ("Thm 5: separate / group", "separate", "group", 4.0),
    ("Thm 6: group / align", "group", "align", 2.0),
    ("bridge: align / Optimal_align", "align", "Optimal_align", None),
    ("Thm 7: Optimal_align / OPT", "Optimal_align", "OPT", 6.0),
)


def proof_chain(instance, batches: Sequence[np.ndarray], sf_tel: int, opt_tel: int | None = None,
                with_optimal_align: bool = True) -> dict[str, int]:
    """TELs of the objects of our variant of the proof chain (see the comment above) for one instance.

    ``batches``: Sorted-F's Phase-1 batches; ``sf_tel``: TEL of Sorted-F's Phase 2;
    ``opt_tel``: a certified optimum (or ``None``).  The separate, group and align
    schedules and the DP's Optimal_align schedule are validated by
    :func:`kvlib.core.checker.check_schedule` (``ValueError`` naming the object if one is
    rejected).  The product of the five link ratios of :data:`CHAIN_LINKS` telescopes to
    TEL(Sorted-F) / OPT.
    """
    from kvlib.core.checker import check_schedule
    from kvlib.core.model import Schedule

    out = {"Sorted-F": int(sf_tel)}
    objs = {
        "separate": separate_starts(batches, instance.output),
        "group": group_starts(batches, instance.output),
        "align": align_starts(batches, instance.output),
    }
    if with_optimal_align:
        tel_oa, b_oa = optimal_aligned(instance.prompt, instance.output, instance.memory)
        objs["Optimal_align"] = batched_starts(b_oa, instance.output, aligned=True)
    for name, p in objs.items():
        rep = check_schedule(instance, Schedule(tuple(int(x) for x in p)))
        if not rep.valid:
            raise ValueError(f"proof_chain: the {name} schedule is invalid: {rep.violations[:3]}")
        out[name] = int(rep.tel)
    if with_optimal_align and out["Optimal_align"] != tel_oa:  # pragma: no cover - defensive
        raise AssertionError("optimal_aligned: DP value differs from its schedule's TEL")
    if opt_tel is not None:
        out["OPT"] = int(opt_tel)
    return out


def mc_sf2(tie_break: str = "index") -> Policy:
    """MC-SF2, 002 Theorem EC.1: the longest prefix by ``s + o`` (then arrival) under 001 eq. (5)."""
    return LookaheadPrefix(lambda c, i: (int(c.prompt[i] + c.output[i]), int(c.arrival[i])), "mc-sf2", tie_break)
