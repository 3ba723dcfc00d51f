"""The quantities of 001 Theorem 4.3 (MC-SF's constant competitive ratio), for checking its proof.

Setting of the theorem's first part: all requests arrive at ``t = 0``, every
prompt has the same size ``s`` and ``M >= 2 max_i (s + o_i)``
(:func:`theorem43_assumptions`).  ``n_o`` is the number of requests with
output length ``o``.

From 001 Section 4 (the paper's definitions; the paper's own objects for the whole proof are in
:mod:`kvlib.theory.thm43_paper`):

* ``vol_o = s o + o (o + 1) / 2`` -- the memory volume (token-rounds) of a
  request of output ``o`` (:func:`vol`);
* Lemma 4.4: ``TEL(MC-SF) <= (1536 / M) X + 24 Y`` with
  ``X = sum_o n_o sum_{o' <= o} n_{o'} vol_{o'}`` and ``Y = sum_o n_o o``
  (:func:`lemma44_bound`).

Our variants (not 001's statements; the chapter proves each one used as a bound and says how it
differs from the paper):

* grouping by powers of two: ``U_l = {i : 2^(l-1) < o_i <= 2^l}``, ``U_0 = {o = 1}``
  (:func:`group_of`; 001 groups ``2^l <= o <= 2^(l+1) - 1``);
* a sharper lower bound than 001 Lemma 4.7 (``OPT >= X / (6M) + Y / 6``):
  ``OPT >= max(X / (2M), Y)`` (:func:`lemma47_bound`), which follows from the order-statistic bound
  ``OPT >= sum_k max(ceil(W_k / M), o_(k))`` (:func:`order_statistic_bound`;
  ``W_k`` = sum of the ``k`` smallest volumes);
* LP (9) with a release constraint (001's LP (9) has none): the fractional completion-slot relaxation
  ``min sum_{o,t} t y[o,t]`` s.t. ``sum_t y[o,t] = n_o``, ``y[o,t] = 0`` for
  ``t < o``, ``sum_o vol_o sum_{t <= tau} y[o,t] <= M tau`` for every ``tau``
  (:func:`lp9_cvxpy`), its greedy solution (:func:`lp9_greedy`, shortest
  output first, fractional) and the *mean* completion slot ``t*_o`` of type ``o`` (001 uses the first slot);
* an upper bound on those mean slots, ``o <= t*_o <= max(o, ceil(W_{<=o} / M))`` with ``W_{<=o}`` the
  total volume of the requests of output ``<= o`` (:func:`claim48_upper`; 001 Claim 4.8 is a lower
  bound on the first slots);
* a per-group span measurement: ``C_l - C_{l-1}`` in MC-SF's schedule, with ``C_l`` the last completion
  among groups ``<= l``, against ``V_l / M + 2^l`` (:func:`group_spans`); we report the
  constant it needs (001 Lemma 4.5 bounds the first-to-last processing span with constants 192 and 5).

Identical requests (001 Theorem 4.3 second part, Appendix B.3):
:func:`identical_batch_tel` is the full-batch closed form of the first line of 001's (15),
``o (k q (q + 1) / 2 + r (q + 1))`` with ``k = floor(M / (s + o))``, ``n = q k + r``
(001 writes ``m`` for ``k`` and ``k`` for ``q``); :func:`identical_lp_value` the value of our LP for one type.

Our volume-LP route to the ratio 4 (it plays the role of 001's Appendix B.3 but dualises a different
LP; the chapter numbers its lemmas V.1 and V.2):
:func:`identical_completion_bound` (MC-SF's ``i``-th completion ``<= o ceil(i/k)``,
so the batch form is an upper bound on MC-SF's TEL), :func:`identical_dual` /
:class:`IdenticalDual` (a dual solution of our LP with one type,
``lam = T``, ``mu_tau = 1/vol`` for ``o <= tau < T``), :func:`identical_dual_violation`
(an independent constraint-by-constraint feasibility check, Lemma V.1),
:func:`identical_lp_primal` (the matching primal), :func:`identical_rho` and
:func:`identical_ratio_table` (Lemma V.2: batch bound ``<= 4 D(T*)`` when
``rho = o M / (k vol) <= 3``), and :func:`identical_time_indexed_lp` (a stronger LP
with the memory constraint at every round, for comparison).
"""

from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass

import numpy as np

from kvlib.core.model import Instance

#: 001 Lemma 4.4's constants.
LEMMA44_C1 = 1536
LEMMA44_C2 = 24


def vol(s, o):
    """``vol_o = s o + o (o + 1) / 2``: token-rounds held by a request ``(s, o)`` over its run (001 Sec. 4)."""
    return s * o + o * (o + 1) // 2


def theorem43_assumptions(instance: Instance) -> bool:
    """All arrivals at 0, equal prompts, ``M >= 2 max(s + o)`` (001 Theorem 4.3, first part)."""
    return (
        bool(np.all(instance.arrival == 0))
        and len(set(instance.prompt.tolist())) == 1
        and instance.memory >= 2 * int((instance.prompt + instance.output).max())
    )


def type_counts(instance: Instance) -> tuple[int, np.ndarray, np.ndarray]:
    """``(s, outputs o ascending, counts n_o)`` of an equal-prompt instance."""
    ps = set(instance.prompt.tolist())
    if len(ps) != 1:
        raise ValueError("the Theorem 4.3 quantities need equal prompt sizes")
    o, n = np.unique(instance.output, return_counts=True)
    return ps.pop(), o.astype(np.int64), n.astype(np.int64)


def group_of(o):
    """Power-of-two group ``l`` with ``2^(l-1) < o <= 2^l`` (``o = 1`` -> 0)."""
    o = np.asarray(o, dtype=np.int64)
    return np.ceil(np.log2(o)).astype(np.int64)


def lemma44_terms(instance: Instance) -> tuple[float, float]:
    """``X = sum_o n_o sum_{o' <= o} n_{o'} vol_{o'}`` and ``Y = sum_o n_o o``."""
    s, o, n = type_counts(instance)
    v = vol(s, o)
    prefix = np.cumsum(n * v)
    return float(np.sum(n * prefix)), float(np.sum(n * o))


def lemma44_bound(instance: Instance) -> float:
    """001 Lemma 4.4: ``(1536 / M) X + 24 Y``, an upper bound on MC-SF's TEL."""
    X, Y = lemma44_terms(instance)
    return LEMMA44_C1 * X / instance.memory + LEMMA44_C2 * Y


def order_statistic_bound(instance: Instance) -> int:
    """``sum_k max(ceil(W_k / M), o_(k))`` (all arrivals at 0): a lower bound on OPT.

    ``W_k`` is the sum of the ``k`` smallest volumes and ``o_(k)`` the ``k``-th
    smallest output.  Written independently of :func:`kvlib.optimum.bounds.volume_lower_bound`
    (which it equals when all arrivals are 0).
    """
    if np.any(instance.arrival != 0):
        raise ValueError("order_statistic_bound is for instances with all arrivals at 0")
    w = np.sort(vol(instance.prompt, instance.output))
    W = np.cumsum(w)
    ck = np.maximum(-(-W // instance.memory), np.sort(instance.output))
    return int(ck.sum())


def lemma47_bound(instance: Instance) -> float:
    """Our lower bound ``OPT >= max(X / (2M), Y)`` (sharper than 001 Lemma 4.7's ``X / (6M) + Y / 6``)."""
    X, Y = lemma44_terms(instance)
    return max(X / (2 * instance.memory), Y)


#: ratio constant implied by 001 Lemma 4.4 and our lower bound max(X / (2M), Y): 2 * 1536 + 24.
IMPLIED_CONSTANT = 2 * LEMMA44_C1 + LEMMA44_C2


@dataclass
class LPSolution:
    value: float
    outputs: np.ndarray  #: the distinct outputs o, ascending
    counts: np.ndarray  #: n_o
    y: np.ndarray  #: y[type, t - 1] for t = 1..T
    t_star: np.ndarray  #: mean completion slot of each type

    @property
    def horizon(self) -> int:
        return self.y.shape[1]


def _lp_horizon(instance: Instance) -> int:
    s, o, n = type_counts(instance)
    return int(max(o.max(), math.ceil(float(np.sum(n * vol(s, o))) / instance.memory))) + 1


def lp9_greedy(instance: Instance) -> LPSolution:
    """Greedy solution of our LP (LP (9) with the release constraint ``y[o,t] = 0`` for ``t < o``): fill slots ``t = 1, 2, ...`` shortest output first.

    At slot ``t`` the cumulative capacity is ``M t``; types with ``o <= t`` are
    placed fractionally in increasing ``o`` until the capacity is used.  The
    chapter proves this is optimal (it maximises the number completed by every
    ``t`` simultaneously).
    """
    s, o, n = type_counts(instance)
    v = vol(s, o).astype(float)
    T = _lp_horizon(instance)
    M = float(instance.memory)
    rem = n.astype(float).copy()
    y = np.zeros((len(o), T))
    used = 0.0
    for t in range(1, T + 1):
        for j in range(len(o)):
            if rem[j] <= 1e-12:
                continue
            if o[j] > t:
                break
            amt = min(rem[j], max(0.0, (M * t - used) / v[j]))
            y[j, t - 1] += amt
            rem[j] -= amt
            used += amt * v[j]
            if rem[j] > 1e-12:
                break
    if np.any(rem > 1e-9):  # pragma: no cover - horizon is sufficient
        raise AssertionError("greedy did not place every request")
    ts = np.arange(1, T + 1)
    value = float(np.sum(y * ts))
    return LPSolution(value, o, n, y, (y * ts).sum(axis=1) / n)


def lp9_cvxpy(instance: Instance, solver: str | None = None) -> LPSolution:
    """Our LP (LP (9) with the release constraint) solved with cvxpy (HiGHS by default)."""
    import cvxpy as cp

    s, o, n = type_counts(instance)
    v = vol(s, o).astype(float)
    T = _lp_horizon(instance)
    ts = np.arange(1, T + 1, dtype=float)
    y = cp.Variable((len(o), T), nonneg=True)
    mask = (ts[None, :] >= o[:, None]).astype(float)
    cons = [cp.sum(y, axis=1) == n.astype(float), cp.multiply(1 - mask, y) == 0]
    cum = cp.cumsum(v @ y)  # volume completed by each tau
    cons.append(cum <= instance.memory * ts)
    prob = cp.Problem(cp.Minimize(cp.sum(y @ ts)), cons)
    prob.solve(solver=solver or cp.HIGHS)
    if prob.status != "optimal":
        raise RuntimeError(f"LP (9) not solved: {prob.status}")
    Y = np.maximum(np.asarray(y.value), 0.0)
    return LPSolution(float(prob.value), o, n, Y, (Y * ts).sum(axis=1) / n)


def claim48_upper(instance: Instance) -> np.ndarray:
    """Our upper bound on the mean slots (001 Claim 4.8 is a lower bound on the first slots): ``t*_o <= max(o, ceil(W_{<=o} / M))`` for each distinct ``o`` (ascending)."""
    s, o, n = type_counts(instance)
    W = np.cumsum(n * vol(s, o))
    return np.maximum(o, -(-W // instance.memory))


def group_spans(instance: Instance, starts) -> list[dict]:
    """Per power-of-two group: last completion ``C_l``, span ``C_l - C_{l-1}``, ``V_l / M + 2^l``.

    Groups are those of :func:`group_of`; empty groups are skipped (their span
    is 0).  ``need`` is ``span / (V_l / M + 2^l)``, the constant our form of
    Lemma 4.5 would need on this schedule.
    """
    p = np.asarray(starts, dtype=np.int64)
    o = instance.output
    c = p + o
    g = group_of(o)
    v = vol(instance.prompt, o)
    rows = []
    prev = 0
    for l in range(int(g.max()) + 1):
        sel = g <= l
        C = int(c[sel].max()) if sel.any() else prev
        mine = g == l
        if mine.any():
            V = float(v[mine].sum())
            scale = V / instance.memory + 2**l
            rows.append({"group": l, "size": int(mine.sum()), "C": C, "span": C - prev,
                         "V/M": V / instance.memory, "scale": scale, "need": (C - prev) / scale})
        prev = C
    return rows


# ---- identical requests (001 Theorem 4.3, second part) -------------------------------------


def identical_batch_tel(n: int, s: int, o: int, M: int) -> int:
    """Batch closed form: ``k = floor(M / (s + o))`` requests per batch, batch ``b`` completes at ``b o``.

    ``TEL = o (k q (q + 1) / 2 + r (q + 1))`` with ``n = q k + r``, ``0 <= r < k``.
    """
    k = M // (s + o)
    q, r = divmod(n, k)
    return o * (k * q * (q + 1) // 2 + r * (q + 1))


def identical_stagger_possible(s: int, o: int, M: int) -> bool:
    """Whether MC-SF can start a request while a full batch runs: ``M mod (s + o) > s``.

    With ``k`` requests started at 0, a new one started at ``t`` is admitted
    iff ``k (s + o) + s + o - t <= M`` (check-point ``o``), i.e. at some
    ``t <= o - 1`` iff ``M - k (s + o) >= s + 1``.
    """
    return M % (s + o) > s


def identical_lp_value(n: int, s: int, o: int, M: int) -> float:
    """LP (9) for ``n`` identical requests: ``sum_{t >= 0} (n - N(t))``, ``N(t) = min(n, M t / vol)`` for ``t >= o``."""
    v = vol(s, o)
    total = 0.0
    t = 0
    while True:
        N = 0.0 if t < o else min(float(n), M * t / v)
        if N >= n - 1e-12:
            return total
        total += n - N
        t += 1


# ---- identical requests: our volume-LP route to the ratio 4 (Lemmas V.1, V.2 of the chapter) ----
#
# Ours, not 001's Appendix B.3: 001 dualises the time-indexed LP (18)-(21) with the dual solution
# (25)-(27) (:mod:`kvlib.theory.thm43_paper`); we dualise the volume LP below, whose dual solution has a
# closed form and gives a complete proof of the ratio 4 when ``rho <= 3``.
#
# LP (V) -- our LP restricted to one type, i.e. the volume relaxation for ``n`` identical requests::
#
#     min  sum_{t >= o} t x_t   s.t.  sum_t x_t = n,   v sum_{o <= t <= tau} x_t <= M tau  (tau >= o),  x >= 0
#
# (``x_t`` = number of requests completing at ``t``; ``v = vol(s, o)``). Its dual::
#
#     max  n lam - M sum_tau tau mu_tau   s.t.  lam - v sum_{tau >= t} mu_tau <= t  (t >= o),  mu >= 0.


def identical_k(s: int, o: int, M: int) -> int:
    """``k = floor(M / (s + o))``: identical requests that fit side by side; error if ``s + o > M``."""
    for name, x in (("s", s), ("o", o), ("M", M)):
        if int(x) != x or x < 1:
            raise ValueError(f"{name} must be a positive integer, got {x!r}")
    if s + o > M:
        raise ValueError(f"s + o = {s + o} exceeds the memory M = {M}: no request fits")
    return M // (s + o)


def identical_completion_bound(n: int, s: int, o: int, M: int) -> np.ndarray:
    """Our lemma: MC-SF's ``i``-th completion (sorted) is at most ``o ceil(i / k)``, ``i = 1..n``.

    Proof (chapter): at every ``t = b o`` the requests MC-SF has started by then number at least
    ``min(n, (b + 1) k)``; they complete by ``(b + 1) o``.  The sum of this array is
    :func:`identical_batch_tel`.
    """
    k = identical_k(s, o, M)
    i = np.arange(1, n + 1, dtype=np.int64)
    return o * (-(-i // k))


def identical_rho(s: int, o: int, M: int) -> Fraction:
    """``rho = o M / (k vol)``: ratio of the volume throughput ``M / vol`` to the batch throughput ``k / o``.

    ``rho < 2 (M / (k (s + o)))`` and ``rho < 3`` when ``M >= 2 (s + o)`` (our Lemma V.2).
    """
    k = identical_k(s, o, M)
    return Fraction(o * M, k * vol(s, o))


def identical_dual_T(n: int, s: int, o: int, M: int) -> int:
    """``T* = max(o, ceil(n vol / M))``: the round of the last (fractional) completion in LP (V)."""
    identical_k(s, o, M)
    return max(o, -(-n * vol(s, o) // M))


@dataclass(frozen=True)
class IdenticalDual:
    """Our dual solution of LP (V) (not 001's (25)-(27)): ``lam = T``, ``mu_tau = 1/vol`` for ``o <= tau < T``."""

    n: int
    s: int
    o: int
    M: int
    T: int

    @property
    def v(self) -> int:
        return vol(self.s, self.o)

    @property
    def lam(self) -> Fraction:
        """``lam = T``."""
        return Fraction(self.T)

    def mu(self, tau: int) -> Fraction:
        """``mu_tau = 1 / vol`` for ``o <= tau <= T - 1``, else 0."""
        return Fraction(1, self.v) if self.o <= tau < self.T else Fraction(0)

    @property
    def value(self) -> Fraction:
        """``D(T) = n T - M (T (T - 1) - o (o - 1)) / (2 vol)``, a lower bound on OPT (weak duality)."""
        T, o = self.T, self.o
        return self.n * T - Fraction(self.M * (T * (T - 1) - o * (o - 1)), 2 * self.v)


def identical_dual(n: int, s: int, o: int, M: int, T: int | None = None) -> IdenticalDual:
    """Our dual solution of LP (V) for ``T`` (default ``T*``, where it is optimal)."""
    Ts = identical_dual_T(n, s, o, M)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    T = Ts if T is None else int(T)
    if T < o:
        raise ValueError(f"the dual needs T >= o = {o}, got T = {T}")
    return IdenticalDual(int(n), int(s), int(o), int(M), T)


def identical_dual_violation(dual: IdenticalDual, horizon: int | None = None) -> Fraction:
    """Largest violation (0 if feasible) of the dual constraints ``lam - vol sum_{tau >= t} mu_tau <= t``.

    Checked independently of the closed form, constraint by constraint, for ``t = o .. horizon``
    (default ``T + o + 5``; beyond ``T`` every ``mu`` is 0 and the left side stays ``lam``), and
    ``mu >= 0``.
    """
    H = dual.T + dual.o + 5 if horizon is None else int(horizon)
    worst = Fraction(0)
    tail = Fraction(0)  # sum_{tau >= t} mu_tau, built from the top
    for t in range(H, dual.o - 1, -1):
        m = dual.mu(t)
        if m < 0:
            worst = max(worst, -m)
        tail += m
        worst = max(worst, dual.lam - dual.v * tail - t)
    return worst


def identical_lp_primal(n: int, s: int, o: int, M: int) -> dict[int, Fraction]:
    """Optimal solution of LP (V): ``x_o = min(n, M o / vol)``, then ``M / vol`` per round until ``n`` is reached."""
    v = vol(s, o)
    identical_k(s, o, M)
    x: dict[int, Fraction] = {}
    done = Fraction(0)
    t = o
    while done < n:
        cap = Fraction(M * t, v)
        x[t] = min(Fraction(n), cap) - done
        done += x[t]
        t += 1
    return x


def identical_ratio_table(s, o, M, n):
    """Vectorised ``(batch TEL, D(T*), rho)`` for arrays of identical-request parameters (float64).

    ``batch`` is :func:`identical_batch_tel` (the MC-SF upper bound), ``D`` the dual value of
    :class:`IdenticalDual` at ``T*``.
    """
    s, o, M, n = (np.asarray(x, dtype=np.int64) for x in np.broadcast_arrays(s, o, M, n))
    if np.any(s + o > M) or np.any(np.minimum.reduce([s, o, n]) < 1):
        raise ValueError("need s, o, n >= 1 and s + o <= M for every entry")
    if np.any(n.astype(float) * (s * o + o * (o + 1) // 2) > 2.0**62):
        raise ValueError("n vol exceeds the int64 range; use smaller n or o")
    k = M // (s + o)
    q, r = np.divmod(n, k)
    batch = o * (k * q * (q + 1) // 2 + r * (q + 1))
    v = s * o + o * (o + 1) // 2
    T = np.maximum(o, -(-n * v // M)).astype(float)  # float from here: M T^2 overflows int64 at large o
    nf, of, Mf, vf = (x.astype(float) for x in (n, o, M, v))
    D = nf * T - Mf * (T * (T - 1) - of * (of - 1)) / (2.0 * vf)
    rho = of * Mf / (k * vf)
    return batch.astype(float), D, rho


def identical_time_indexed_lp(n: int, s: int, o: int, M: int) -> float:
    """LP (TI) for ``n`` identical requests: the memory constraint at every round, not only in volume.

    ``min sum_c c x_c`` over completions ``c >= o`` with ``sum_c x_c = n`` and, for every round ``tau``,
    ``sum_{j=0}^{o-1} (s + o - j) x_{tau + j} <= M`` (a request completing at ``c`` holds
    ``s + o - (c - tau)`` tokens at ``tau``).  A relaxation of the problem (OPT's completions are a
    feasible integer ``x``), at least as strong as LP (V) (summing its constraints over ``tau <= T``
    gives the volume constraint).  Horizon: the batch schedule's makespan.  Solved with HiGHS (scipy).
    Our construction, not the paper's.
    """
    from scipy.optimize import linprog
    from scipy.sparse import lil_matrix

    k = identical_k(s, o, M)
    H = o * (-(-n // k))  # the batch schedule completes everything by then
    cs = np.arange(o, H + 1)
    A = lil_matrix((H, len(cs)))
    for tau in range(1, H + 1):
        for j in range(o):
            c = tau + j
            if o <= c <= H:
                A[tau - 1, c - o] = s + o - j
    res = linprog(cs.astype(float), A_ub=A.tocsr(), b_ub=np.full(H, float(M)),
                  A_eq=np.ones((1, len(cs))), b_eq=[float(n)], bounds=(0, None), method="highs")
    if res.status != 0:  # pragma: no cover - the batch schedule is feasible
        raise RuntimeError(f"LP (TI) not solved: {res.message}")
    return float(res.fun)
