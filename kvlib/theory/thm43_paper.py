"""001 Theorem 4.3 checked with the paper's own objects (Section 4 and Appendix B.3).

Setting (001 Theorem 4.3): all requests arrive at ``t = 0``, every prompt has the same size ``s``
and ``M >= 2 max_i (s + o_i)``; ``n_o`` counts the requests of output length ``o`` and
``vol_o = s o + o (o + 1) / 2`` (001 Section 4).  Every object below follows the definition the
paper gives (cited by number); where the text leaves a choice open, the reading is stated.

Conventions (001 Section 3, constraint (3)): a request started at ``p`` holds ``s + t - p`` tokens
at the times ``t = p + 1, ..., p + o`` and completes at ``p + o``; "MC-SF processes request ``i``
at time ``t``" means ``i`` holds memory at ``t``.

Section 4 (first part of the theorem)

* groups ``U_l = {i : 2^l <= o_i <= 2^(l+1) - 1}``, ``l = 0 .. floor(log2 o_max)``, with
  ``o_lo = 2^l``, ``o_hi = 2^(l+1) - 1`` (:func:`group_index`, :func:`group_bounds`);
* ``vol_l(I)`` (the memory held by ``U_l`` summed over ``I``), ``peak(I)`` (MC-SF's total memory
  peak over ``I``), the first/last processing times ``t_lo, t_hi`` of ``U_l`` and the partition
  of ``{t_lo .. t_hi}`` into ``I_1 .. I_w`` of length ``o_hi`` (:func:`lemma45_objects`);
* Lemma 4.4's ``t_l``: the first start of a request of a group ``>= l`` (reading for empty groups;
  for a non-empty group it is the paper's "first time a request in ``U_l`` starts"), and
  ``t_(lmax+1)`` the last time MC-SF processes anything (:func:`lemma44_objects`);
* LP (9) over completion-count variables ``a_o^t`` (no constraint ``a_o^t = 0`` for ``t < o``:
  the paper has none), solved with HiGHS (:func:`lp9_highs`) and by the exact greedy fill the
  paper describes (:func:`lp9_greedy_exact`); ``t*_o`` is the *first* time with ``a_o^{*t} > 0``;
  ``t*`` of "``o + 1``" is read as the next distinct output present, and after the largest one
  the last time with positive mass (the paper's ``t*_(o_max + 1)``).

Appendix B.3 (identical requests ``(s, o)``, ratio 4)

* ``m = floor(M / (s + o))``, ``n = k m + p`` and the upper-bound chain (15)-(17)
  (:func:`b3_upper_chain`);
* the LP relaxation (18)-(21) of IP (1) with horizon ``T_bar = n o`` (:func:`b3_primal_lp`), its
  dual (22)-(24), the dual solution (25)-(27) (:func:`b3_dual_solution`), Lemma B.1's base case
  and induction step (:func:`b3_lemma_b1`), the display before Lemma B.2 and Lemma B.2's ratio
  (:func:`b3_row`).

:func:`chain_inequalities` and :func:`b3_inequalities` evaluate every displayed inequality on one
instance and return a flat dict ``STEP.lhs, STEP.rhs, STEP.holds`` (``STEP.cases`` where a step
quantifies over groups, intervals or times: the values are then those of the tightest case).
:func:`chain_row` and :func:`b3_row` are the corresponding results-store row functions.
:func:`sympy_checks` verifies the algebra of both proofs symbolically.

Findings (asserted by ``tests/test_thm43_paper.py``):

* display (8) drops the term ``sum_l |U_l| o_hi_l`` of the latency bound ``t_(l+1) + o_hi_l``;
  the step is unjustified as printed (it held numerically on every instance tried), the bound with
  ``7 B`` follows (Lemma 4.4's 24 becomes 28), and the ratio constant ``6 * 1536 = 9216`` that
  Lemmas 4.4 and 4.7 give together is unchanged;
* the sentence "every interval other than ``I_w`` has peak above ``M - (s + o_hi)``" and the
  premise of Claim 4.6 (only ``U_l`` is processed in ``I_(j+1)``) are stated without proof; both
  held on every instance tried (they are evaluated as ``L45.peak_full`` and ``C46.only_group``);
* the display before Lemma B.2 (dual objective ``>= n o + n ybar - M lam1^2 / (2 d)``) is false on
  every instance: the staircase (27) sums to *more* than the triangle (:func:`staircase_excess`);
  Lemma B.2's conclusion survives with the exact sum (:func:`b2_corrected_ratio`, and
  ``b2_repaired_case1/2`` in :func:`sympy_checks`);
* in Lemma B.2 Case 1 the display "``(s + o) alpha / (beta o) = (2/3)(3s^2 + 5so + 5s + 2o^2 + 2o)
  / beta^2``" is an inequality (``<=``), not an equality; the bound ``4/3`` it feeds holds;
* Lemma B.1's induction step replaces every ``lam_tau`` by its linear formula; for the positively
  weighted terms this is not valid where the formula is negative (``lam_tau = 0``), but the
  inequality the step needs (increment ``<= 1``) holds at every ``t`` (``B1.step``).

How these objects differ from :mod:`kvlib.theory.ratio` (the readings the chapter "MC-SF's constant
ratio" used so far): groups ``2^(l-1) < o <= 2^l`` there, ``2^l <= o <= 2^(l+1) - 1`` here; Lemma 4.5
there is the span between last completions against ``V_l/M + 2^l``, here the first-to-last
processing span against ``(192/M) sum n_o vol_o + 5 o_hi``; Lemma 4.7 there is
``max(X/(2M), Y)``, here ``X/(6M) + Y/6`` (constants 3096 vs 9216); LP (9) there forbids completion
before ``o`` and ``t*_o`` is a mean completion slot, here neither; Claim 4.8 there is an upper bound
on ``t*_o``, here the paper's lower bound on the next first time; for B.3 the LP there is LP (9)
with one type and its dual ``lam = T, mu = 1/vol``, here the LP (18)-(21) and the dual (25)-(27).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy

#: 001 Lemma 4.5's constants and the ones derived from them in Lemma 4.4 / Lemma 4.7.
C45, C45_ADD = 192, 5
C44_X, C44_Y = 1536, 24
#: Lemma 4.4's second constant once display (8) keeps the dropped term (7 * 4).
C44_Y_CORRECTED = 28
#: Lemma 4.7: ``6 OPT >= X / M + Y``.
C47 = 6
#: the ratio constant Lemma 4.4 and Lemma 4.7 give together: ``6 * max(1536, 24)``.
THEOREM43_CONSTANT = C47 * max(C44_X, C44_Y)
#: Lemma B.2's bound on the identical-request ratio.
B2_RATIO = 4


# ---------------------------------------------------------------------------------- basics


def vol(s: int, o: int) -> int:
    """``vol_o = s o + o (o + 1) / 2`` (001 Section 4): the token-rounds a request ``(s, o)`` holds."""
    return int(s) * int(o) + int(o) * (int(o) + 1) // 2


def check_setting(instance: Instance) -> int:
    """Return ``s`` if ``instance`` meets Theorem 4.3's assumptions, else raise ``ValueError`` naming the culprit."""
    if not isinstance(instance, Instance):
        raise ValueError(f"expected a kvlib Instance, got {type(instance).__name__}")
    bad = np.flatnonzero(instance.arrival != 0)
    if bad.size:
        raise ValueError(f"Theorem 4.3 needs all arrivals at 0: request {int(bad[0])} arrives at "
                         f"{int(instance.arrival[bad[0]])}")
    s = int(instance.prompt[0])
    bad = np.flatnonzero(instance.prompt != s)
    if bad.size:
        raise ValueError(f"Theorem 4.3 needs equal prompt sizes: request {int(bad[0])} has s = "
                         f"{int(instance.prompt[bad[0]])}, request 0 has s = {s}")
    peak = int((instance.prompt + instance.output).max())
    if instance.memory < 2 * peak:
        i = int(np.argmax(instance.prompt + instance.output))
        raise ValueError(f"Theorem 4.3 needs M >= 2 max(s + o): M = {instance.memory}, request {i} has "
                         f"s + o = {peak}")
    return s


def group_index(o: int) -> int:
    """``l`` with ``2^l <= o <= 2^(l+1) - 1`` (001 Lemma 4.4's grouping)."""
    o = int(o)
    if o < 1:
        raise ValueError(f"output length must be >= 1, got {o}")
    return o.bit_length() - 1


def group_bounds(l: int) -> tuple[int, int]:
    """``(o_lo, o_hi) = (2^l, 2^(l+1) - 1)`` (001 Lemma 4.5)."""
    return 2 ** l, 2 ** (l + 1) - 1


def type_counts(instance: Instance) -> tuple[list[int], list[int]]:
    """The distinct outputs ``o`` (ascending) and their counts ``n_o``."""
    o, n = np.unique(instance.output, return_counts=True)
    return [int(x) for x in o], [int(x) for x in n]


def xy_terms(instance: Instance) -> tuple[int, int, int]:
    """``X = sum_o n_o sum_{o'<=o} n_o' vol_o'``, ``Y = sum_o n_o o``, ``S = sum_o n_o^2 vol_o`` (exact)."""
    s = int(instance.prompt[0])
    outs, cnt = type_counts(instance)
    X, Y, S, W = 0, 0, 0, 0
    for o, n in zip(outs, cnt):
        W += n * vol(s, o)
        X += n * W
        Y += n * o
        S += n * n * vol(s, o)
    return X, Y, S


def mcsf_schedule(instance: Instance) -> np.ndarray:
    """MC-SF's start times (``make_policy("mc-sf")``, :func:`kvlib.core.simulate.simulate`), checked."""
    res = simulate(instance, make_policy("mc-sf"))
    rep = check_schedule(instance, res.schedule)
    if not rep.valid or rep.tel != res.tel:  # pragma: no cover - engine and checker disagree
        raise AssertionError(f"MC-SF's schedule fails the checker: {rep.violations[:3]}")
    return res.schedule.start_array()


def _step(out: dict, name: str, lhs, rhs, holds: bool, cases: Optional[int] = None) -> None:
    out[f"{name}.lhs"] = float(lhs) if lhs is not None else math.nan
    out[f"{name}.rhs"] = float(rhs) if rhs is not None else math.nan
    out[f"{name}.holds"] = bool(holds)
    if cases is not None:
        out[f"{name}.cases"] = int(cases)


class _Worst:
    """Collects ``(lhs, rhs)`` of a quantified step; keeps the case with the smallest slack."""

    def __init__(self, strict: bool = False, direction: str = "le"):
        self.strict, self.direction = strict, direction
        self.cases, self.best, self.ok = 0, None, True

    def add(self, lhs, rhs) -> None:
        lhs, rhs = Fraction(lhs), Fraction(rhs)
        slack = (rhs - lhs) if self.direction == "le" else (lhs - rhs)
        ok = slack > 0 if self.strict else slack >= 0
        self.cases += 1
        self.ok &= ok
        if self.best is None or slack < self.best[0]:
            self.best = (slack, lhs, rhs)

    def emit(self, out: dict, name: str) -> None:
        if self.best is None:
            _step(out, name, None, None, True, 0)
        else:
            _step(out, name, self.best[1], self.best[2], self.ok, self.cases)


# ----------------------------------------------------------------------- Lemma 4.5, Claim 4.6


def memory_matrix(instance: Instance, starts) -> np.ndarray:
    """``mem[i, t]``: tokens request ``i`` holds at time ``t`` (``s + t - p_i`` for ``p_i < t <= p_i + o_i``)."""
    p = np.asarray(starts, dtype=np.int64)
    o = instance.output
    H = int((p + o).max())
    t = np.arange(H + 1)[None, :]
    active = (t > p[:, None]) & (t <= (p + o)[:, None])
    return np.where(active, instance.prompt[:, None] + t - p[:, None], 0).astype(np.int64)


def lemma45_objects(instance: Instance, starts) -> list[dict]:
    """Lemma 4.5 and Claim 4.6 on MC-SF's schedule, one dict per non-empty group ``U_l``.

    Keys: ``l, o_lo, o_hi, size, t_lo, t_hi, span, rhs`` (Lemma 4.5's right side
    ``(192/M) sum_{o in O_l} n_o vol_o + 5 o_hi``, a Fraction), ``w``, ``intervals`` (list of
    ``(first, last)``), ``peaks``, ``vol_l`` (``vol_l`` of each interval), ``vol_total``
    (``vol_l({t_lo..t_hi})``) and ``triples``: for every 3 consecutive intervals of full length
    ``o_hi`` a dict with Claim 4.6's two sides and its proof's objects (``t~`` the first time of
    the peak in the middle interval, ``k`` the requests of ``U_l`` holding memory at ``t~``,
    ``others`` those of other groups, ``in_proof`` whether the triple is one of the first
    ``floor((w-1)/3)`` disjoint ones the proof uses).
    """
    s = check_setting(instance)
    M = instance.memory
    mem = memory_matrix(instance, starts)
    total = mem.sum(axis=0)
    p = np.asarray(starts, dtype=np.int64)
    o = instance.output
    g = np.array([group_index(x) for x in o])
    out = []
    for l in sorted(set(g.tolist())):
        lo, hi = group_bounds(l)
        mine = g == l
        meml = mem[mine].sum(axis=0)
        t_lo, t_hi = int(p[mine].min()) + 1, int((p + o)[mine].max())
        span = t_hi - t_lo
        rhs = Fraction(C45, M) * sum(vol(s, int(x)) for x in o[mine]) + C45_ADD * hi
        w = -(-(span + 1) // hi)
        iv = [(t_lo + j * hi, min(t_lo + (j + 1) * hi - 1, t_hi)) for j in range(w)]
        peaks = [int(total[a:b + 1].max()) for a, b in iv]
        vols = [int(meml[a:b + 1].sum()) for a, b in iv]
        triples = []
        for j in range(w - 2):
            if iv[j + 2][1] - iv[j + 2][0] + 1 < hi:
                continue
            a, b = iv[j + 1]
            tt = a + int(np.argmax(total[a:b + 1]))
            act = mem[:, tt] > 0
            triples.append({"j": j + 1, "lhs": vols[j] + vols[j + 1] + vols[j + 2],
                            "rhs": Fraction(peaks[j + 1] * vol(s, hi), 4 * (s + hi)),
                            "t_tilde": tt, "peak": peaks[j + 1], "k": int((act & mine).sum()),
                            "others": int((act & ~mine).sum()),
                            "in_proof": (j % 3 == 0) and (j // 3 < (w - 1) // 3)})
        out.append({"l": l, "o_lo": lo, "o_hi": hi, "size": int(mine.sum()), "t_lo": t_lo, "t_hi": t_hi,
                    "span": span, "rhs": rhs, "w": w, "intervals": iv, "peaks": peaks, "vol_l": vols,
                    "vol_total": int(meml.sum()), "triples": triples,
                    "vol_sum": sum(vol(s, int(x)) for x in o[mine])})
    return out


# ----------------------------------------------------------------------------- Lemma 4.4


def lemma44_objects(instance: Instance, starts) -> dict:
    """Lemma 4.4's objects: ``t_l`` for ``l = 0 .. lmax + 1``, ``|U_l|``, ``o_hi_l``, ``A``, ``B``, ``X``, ``Y``.

    ``t_l`` is the first start among requests of groups ``>= l`` (for a non-empty ``U_l`` the
    paper's first start of ``U_l``, because MC-SF starts requests in order of ``o`` when all arrive
    at 0; for an empty group it makes ``t_(l+1) - t_l = 0``), ``t_(lmax+1)`` the last time MC-SF
    processes anything (its makespan).  ``A``, ``B`` as in display (8).
    """
    s = check_setting(instance)
    p = np.asarray(starts, dtype=np.int64)
    o = instance.output
    g = np.array([group_index(x) for x in o])
    lmax = int(g.max())
    t = [int(p[g >= l].min()) for l in range(lmax + 1)] + [int((p + o).max())]
    size = [int((g == l).sum()) for l in range(lmax + 1)]
    ohi = [group_bounds(l)[1] for l in range(lmax + 1)]
    vhi = [vol(s, h) for h in ohi]
    A = sum(size[l] * sum(size[k] * vhi[k] for k in range(l + 1)) for l in range(lmax + 1))
    B = sum(size[l] * sum(ohi[k] for k in range(l + 1)) for l in range(lmax + 1))
    X, Y, _ = xy_terms(instance)
    return {"lmax": lmax, "t": t, "size": size, "o_hi": ohi, "vol_hi": vhi, "A": A, "B": B, "X": X, "Y": Y,
            "group": g, "starts": p}


# ------------------------------------------------------------------------------ LP (9)


def lp9_greedy_exact(instance: Instance) -> tuple[Fraction, dict[int, dict[int, Fraction]]]:
    """LP (9)'s optimum by the fill 001 describes: time 1, 2, ... receive the smallest ``o`` first.

    Returns ``(value, a)`` with ``a[o][t]`` exact.  Capacity of time ``t`` is ``M`` (cumulative ``t M``).
    """
    s = check_setting(instance)
    outs, cnt = type_counts(instance)
    M = instance.memory
    a: dict[int, dict[int, Fraction]] = {o: {} for o in outs}
    t, room, value = 1, Fraction(M), Fraction(0)
    for o, n in zip(outs, cnt):
        left = Fraction(n)
        v = vol(s, o)
        while left > 0:
            put = min(left, room / v)
            if put > 0:
                a[o][t] = a[o].get(t, Fraction(0)) + put
                value += t * put
                left -= put
                room -= put * v
            if left > 0:
                t, room = t + 1, room + M
    return value, a


def lp9_highs(instance: Instance) -> dict:
    """LP (9) solved with HiGHS (``scipy.optimize.linprog``): ``min sum_t t sum_o a_o^t`` s.t.
    ``sum_{t'<=t} sum_o a_o^{t'} vol_o <= t M`` for every ``t``, ``sum_t a_o^t = n_o``, ``a >= 0``.

    Times ``t = 1 .. T`` with ``T = ceil(sum_o n_o vol_o / M) + 1`` (the greedy fill ends by
    ``ceil(.)``).  Returns ``value, outputs, counts, a`` (array types x times) and ``t_star``
    (first time with ``a > 1e-9``; ``t_star_last`` the last time with positive mass).
    """
    from scipy.optimize import linprog
    from scipy.sparse import lil_matrix

    s = check_setting(instance)
    outs, cnt = type_counts(instance)
    M = instance.memory
    W = sum(n * vol(s, o) for o, n in zip(outs, cnt))
    T = -(-W // M) + 1
    K = len(outs)
    nv = K * T  # variable (k, t) at k * T + (t - 1)
    c = np.tile(np.arange(1, T + 1, dtype=float), K)
    A_ub = lil_matrix((T, nv))
    for tau in range(1, T + 1):
        for k, o in enumerate(outs):
            for t in range(1, tau + 1):
                A_ub[tau - 1, k * T + t - 1] = vol(s, o)
    A_eq = lil_matrix((K, nv))
    for k in range(K):
        A_eq[k, k * T:(k + 1) * T] = 1.0
    res = linprog(c, A_ub=A_ub.tocsr(), b_ub=M * np.arange(1, T + 1, dtype=float), A_eq=A_eq.tocsr(),
                  b_eq=np.asarray(cnt, float), bounds=(0, None), method="highs")
    if res.status != 0:  # pragma: no cover - the greedy fill is feasible
        raise RuntimeError(f"LP (9) not solved by HiGHS: {res.message}")
    a = np.maximum(res.x.reshape(K, T), 0.0)
    tol = 1e-9 * max(1, max(cnt))
    first = [int(np.flatnonzero(a[k] > tol)[0]) + 1 for k in range(K)]
    last = int(np.flatnonzero(a.sum(axis=0) > tol)[-1]) + 1
    return {"value": float(res.fun), "outputs": outs, "counts": cnt, "a": a, "t_star": first, "t_star_last": last}


# ------------------------------------------------------------------ the chain on one instance


def chain_inequalities(instance: Instance, opt: Optional[int] = None, starts=None) -> dict:
    """Every displayed inequality of 001 Theorem 4.3's first-part proof, on one instance.

    ``starts``: MC-SF's start times (simulated when omitted); ``opt``: the optimal TEL (exact,
    e.g. :func:`kvlib.optimum.bruteforce.brute_force_opt`); the steps about OPT are evaluated
    only when it is given.  Returns a flat dict (see the module docstring).  Step names:

    ``L45`` Lemma 4.5 (``t_hi - t_lo <= rhs``) per group; ``L45.vol_lo`` ``vol_o >= vol_ohi / 4``;
    ``L45.peak_full`` "every ``I_j``, ``j < w``, has peak ``> M - (s + o_hi)``"; ``C46`` Claim 4.6 for
    all triples of full intervals, ``C46.proof`` for those the proof uses; ``C46.only_group``
    (``others = 0`` at ``t~``), ``C46.k`` (``k >= peak / (s + o_hi)``), ``C46.kvol``
    (``vol_l(triple) >= k vol_olo``); ``L45.vol_cap`` (``vol_l({t_lo..t_hi}) <= |U_l| vol_ohi``);
    ``L44.latency`` (``c_i <= t_(l+1) + o_hi_l``), ``L44.sum``, ``L44.gap_span``
    (``t_(l+1) - t_l <= t_hi - t_lo + 1``), ``L44.gap`` (``<= (192/M)|U_l| vol_ohi + 5 o_hi + 1``),
    ``L44.gap6``, ``L44.t`` (telescoped), ``eq8`` (display (8) as printed), ``eq8.corrected`` (with
    ``+ sum |U_l| o_hi``), ``L44.A_same``, ``L44.A_cross``, ``L44.A_l``, ``L44.A``, ``L44.B_sum``,
    ``L44.B``, ``L44`` (Lemma 4.4); with ``opt``: ``LP9`` (``OPT_LP <= OPT``), ``LP9.greedy``
    (HiGHS value = exact greedy fill), ``LP9.sorted`` (``t*`` non-decreasing), ``C48`` (Claim 4.8),
    ``eq10.a`` (``sum_t t a_o^t >= t*_o n_o``), ``eq10`` (``OPT_LP >= sum n_o (1/M) sum_{o'<o}``),
    ``eq11``, ``OPT.Y``, ``eq12``, ``L47``, ``T43`` (``MC-SF <= 9216 OPT``).
    """
    s = check_setting(instance)
    M = instance.memory
    if starts is None:
        starts = mcsf_schedule(instance)
    p = np.asarray(starts, dtype=np.int64)
    o = instance.output
    tel = int((p + o).sum())
    out: dict = {"n": instance.n, "M": M, "s": s, "mcsf": tel}

    groups = _lemma45_steps(out, instance, p, s)
    _lemma44_steps(out, instance, p, s, tel, groups)
    if opt is not None:  # Lemma 4.7 needs OPT
        _lemma47_steps(out, instance, s, tel, opt)
    return out


def _lemma45_steps(out: dict, instance: Instance, p: np.ndarray, s: int) -> list:
    """Lemma 4.5 and Claim 4.6 of :func:`chain_inequalities` into ``out``; returns the groups."""
    M = instance.memory
    groups = lemma45_objects(instance, p)
    w45, wvol, wpeak, w46, w46p = _Worst(), _Worst(direction="ge"), _Worst(strict=True, direction="ge"), \
        _Worst(direction="ge"), _Worst(direction="ge")
    wonly, wk, wkvol, wcap = _Worst(), _Worst(direction="ge"), _Worst(direction="ge"), _Worst()
    for G in groups:
        w45.add(G["span"], G["rhs"])
        lo, hi = G["o_lo"], G["o_hi"]
        for x in range(lo, hi + 1):
            wvol.add(4 * vol(s, x), vol(s, hi))
        for j in range(G["w"] - 1):
            wpeak.add(G["peaks"][j], M - (s + hi))
        for tr in G["triples"]:
            w46.add(tr["lhs"], tr["rhs"])
            if tr["in_proof"]:
                w46p.add(tr["lhs"], tr["rhs"])
            wonly.add(tr["others"], 0)
            wk.add(tr["k"], Fraction(tr["peak"], s + hi))
            wkvol.add(tr["lhs"], tr["k"] * vol(s, lo))
        wcap.add(G["vol_total"], G["size"] * vol(s, hi))
    w45.emit(out, "L45")
    wvol.emit(out, "L45.vol_lo")  # lhs = 4 vol_o, rhs = vol_ohi
    wpeak.emit(out, "L45.peak_full")
    w46.emit(out, "C46")
    w46p.emit(out, "C46.proof")
    wonly.emit(out, "C46.only_group")
    wk.emit(out, "C46.k")
    wkvol.emit(out, "C46.kvol")
    wcap.emit(out, "L45.vol_cap")
    return groups


def _lemma44_steps(out: dict, instance: Instance, p: np.ndarray, s: int, tel: int, groups: list) -> None:
    """Lemma 4.4 and display (8) of :func:`chain_inequalities` into ``out``."""
    M = instance.memory
    o = instance.output
    L = lemma44_objects(instance, p)
    t, size, ohi, vhi = L["t"], L["size"], L["o_hi"], L["vol_hi"]
    g = L["group"]
    lat = _Worst()
    for i in range(instance.n):
        lat.add(int(p[i] + o[i]), t[g[i] + 1] + ohi[g[i]])
    lat.emit(out, "L44.latency")
    bound_sum = sum(size[l] * (t[l + 1] + ohi[l]) for l in range(L["lmax"] + 1))
    _step(out, "L44.sum", tel, bound_sum, tel <= bound_sum)
    span = {G["l"]: G["span"] for G in groups}
    wgs, wg, wg6, wt = _Worst(), _Worst(), _Worst(), _Worst()
    for l in range(L["lmax"] + 1):
        gap = t[l + 1] - t[l]
        if size[l]:
            wgs.add(gap, span[l] + 1)
        r = Fraction(C45, M) * size[l] * vhi[l] + C45_ADD * ohi[l] + 1
        wg.add(gap, r)
        wg6.add(r, Fraction(C45, M) * size[l] * vhi[l] + 6 * ohi[l])
        wt.add(t[l + 1], Fraction(C45, M) * sum(size[k] * vhi[k] for k in range(l + 1))
               + 6 * sum(ohi[k] for k in range(l + 1)))
    wgs.emit(out, "L44.gap_span")
    wg.emit(out, "L44.gap")
    wg6.emit(out, "L44.gap6")
    wt.emit(out, "L44.t")
    A, B, X, Y = L["A"], L["B"], L["X"], L["Y"]
    eq8 = Fraction(C45, M) * A + 6 * B
    dropped = sum(size[l] * ohi[l] for l in range(L["lmax"] + 1))
    _step(out, "eq8", tel, eq8, tel <= eq8)
    _step(out, "eq8.corrected", bound_sum, eq8 + dropped, bound_sum <= eq8 + dropped)
    # the per-group displays bounding A
    s_o, n_o = type_counts(instance)
    vol_of = {x: vol(s, x) for x in s_o}
    cnt = dict(zip(s_o, n_o))
    grp_types = {l: [x for x in s_o if group_index(x) == l] for l in range(L["lmax"] + 1)}
    wsame, wsame2, wcross, wl = _Worst(), _Worst(), _Worst(), _Worst()
    for l in range(L["lmax"] + 1):
        Ol = grp_types[l]
        pair_cnt = sum(cnt[x] * sum(cnt[y] for y in Ol if y <= x) for x in Ol)
        pair_vol = sum(cnt[x] * sum(cnt[y] * vol_of[y] for y in Ol if y <= x) for x in Ol)
        wsame.add(size[l] ** 2 * vhi[l], 2 * pair_cnt * vhi[l])
        wsame2.add(2 * pair_cnt * vhi[l], 8 * pair_vol)
        for k in range(l):
            Ok = grp_types[k]
            wcross.add(size[l] * size[k] * vhi[k], 4 * sum(cnt[x] for x in Ol) * sum(cnt[y] * vol_of[y] for y in Ok))
        full = sum(cnt[x] * sum(cnt[y] * vol_of[y] for y in s_o if y <= x) for x in Ol)
        wl.add(size[l] * sum(size[k] * vhi[k] for k in range(l + 1)), 8 * full)
    wsame.emit(out, "L44.A_same")      # |U_l|^2 vol_ohi <= 2 (pairs) vol_ohi
    wsame2.emit(out, "L44.A_same2")    # ... <= 8 sum n_o sum n_o' vol_o'
    wcross.emit(out, "L44.A_cross")
    wl.emit(out, "L44.A_l")
    _step(out, "L44.A", A, 8 * X, A <= 8 * X)
    wb = _Worst()
    for l in range(L["lmax"] + 1):
        wb.add(sum(ohi[k] for k in range(l + 1)), 2 * ohi[l])
    wb.emit(out, "L44.B_sum")
    _step(out, "L44.B", B, 4 * Y, B <= 4 * Y)
    l44 = Fraction(C44_X, M) * X + C44_Y * Y
    _step(out, "L44", tel, l44, tel <= l44)


def _lemma47_steps(out: dict, instance: Instance, s: int, tel: int, opt: int) -> None:
    """Lemma 4.7, LP (9), displays (10)-(12) and Theorem 4.3 of :func:`chain_inequalities` into ``out``."""
    M = instance.memory
    lp = lp9_highs(instance)
    gv, _ = lp9_greedy_exact(instance)
    _step(out, "LP9", lp["value"], opt, lp["value"] <= opt + 1e-7)
    _step(out, "LP9.greedy", lp["value"], gv, abs(lp["value"] - float(gv)) <= 1e-6 * max(1.0, float(gv)))
    ts = lp["t_star"]
    srt = _Worst()
    for k in range(len(ts) - 1):
        srt.add(ts[k], ts[k + 1])
    srt.emit(out, "LP9.sorted")
    outs, cnts = lp["outputs"], lp["counts"]
    c48 = _Worst(direction="ge")
    Wcum = 0
    nxt = ts[1:] + [lp["t_star_last"]]
    for k, (x, nx) in enumerate(zip(outs, cnts)):
        Wcum += nx * vol(s, x)
        c48.add(nxt[k], Fraction(Wcum, M))
    c48.emit(out, "C48")
    tt = np.arange(1, lp["a"].shape[1] + 1)
    e10a = _Worst(direction="ge")
    for k in range(len(outs)):
        e10a.add(Fraction(float(lp["a"][k] @ tt)) + Fraction(1, 10**7), ts[k] * cnts[k])
    e10a.emit(out, "eq10.a")
    below = Fraction(0)
    rhs10 = Fraction(0)
    for x, nx in zip(outs, cnts):
        rhs10 += nx * below / M
        below += nx * vol(s, x)
    _step(out, "eq10", lp["value"], rhs10, lp["value"] >= float(rhs10) - 1e-7)
    X, Y, S = xy_terms(instance)
    _step(out, "eq10.identity", rhs10, Fraction(X - S, M), rhs10 == Fraction(X - S, M))
    _step(out, "eq11", opt, Fraction(S, 4 * M), opt >= Fraction(S, 4 * M))
    _step(out, "OPT.Y", opt, Y, opt >= Y)
    _step(out, "eq12", C47 * opt, Fraction(X, M) + Y, C47 * opt >= Fraction(X, M) + Y)
    _step(out, "L47", opt, Fraction(X, C47 * M) + Fraction(Y, C47), opt >= Fraction(X, C47 * M) + Fraction(Y, C47))
    _step(out, "T43", tel, THEOREM43_CONSTANT * opt, tel <= THEOREM43_CONSTANT * opt)
    out["opt"] = int(opt)
    out["ratio"] = tel / opt


def random_instance(rng: np.random.Generator, n_max: int = 8, M_max: int = 40) -> Instance:
    """``s ~ U{1..3}``, ``M ~ U{2(s+1) .. M_max}``, ``n ~ U{1..n_max}``, ``o_i ~ U{1 .. floor(M/2) - s}``, all at 0.

    Every draw meets Theorem 4.3's assumptions; draws come from ``rng`` only.
    """
    if n_max < 1 or M_max < 4:
        raise ValueError(f"random_instance: need n_max >= 1 and M_max >= 4, got n_max={n_max}, M_max={M_max}")
    s = int(rng.integers(1, min(3, M_max // 2 - 1) + 1))
    M = int(rng.integers(2 * (s + 1), M_max + 1))
    n = int(rng.integers(1, n_max + 1))
    o = rng.integers(1, M // 2 - s + 1, size=n)
    return Instance.at_zero([s] * n, o.tolist(), M)


def chain_row(seed: int, n_max: int = 8, M_max: int = 40) -> dict:
    """Results-store row function: the instance :func:`random_instance` draws from ``seed``, OPT by
    brute force (:func:`kvlib.optimum.bruteforce.brute_force_opt`, so keep ``n_max <= 8``), and
    :func:`chain_inequalities`; also ``all_hold`` over the steps the paper's argument asserts
    unconditionally (see :data:`UNCONDITIONAL_STEPS`)."""
    from kvlib.optimum.bruteforce import brute_force_opt

    inst = random_instance(np.random.default_rng(seed), n_max, M_max)
    p = mcsf_schedule(inst)
    opt, _, _ = brute_force_opt(inst, upper=int((p + inst.output).sum()))
    row = chain_inequalities(inst, opt=opt, starts=p)
    row["outputs"] = " ".join(str(int(x)) for x in inst.output)
    row["all_hold"] = all(row[f"{k}.holds"] for k in UNCONDITIONAL_STEPS)
    return row


#: Steps the paper states as facts on every instance (not only inside the proof by contradiction
#: of Lemma 4.5, and not display (8), whose derivation drops a term).
UNCONDITIONAL_STEPS = ("L45", "L45.vol_lo", "C46.k", "C46.kvol", "L45.vol_cap", "L44.latency", "L44.sum",
                       "L44.gap_span", "L44.gap", "L44.gap6", "L44.t", "eq8.corrected", "L44.A_same",
                       "L44.A_same2", "L44.A_cross", "L44.A_l", "L44.A", "L44.B_sum", "L44.B", "L44", "LP9",
                       "LP9.greedy", "LP9.sorted", "C48", "eq10.a", "eq10", "eq10.identity", "eq11", "OPT.Y",
                       "eq12", "L47", "T43")


# ------------------------------------------------------------------------- Appendix B.3


def _b3_check(n: int, s: int, o: int, M: int) -> int:
    for name, x in (("n", n), ("s", s), ("o", o), ("M", M)):
        if not isinstance(x, (int, np.integer)) or x < 1:
            raise ValueError(f"Appendix B.3: {name} must be a positive integer, got {x!r}")
    if M < 2 * (s + o):
        raise ValueError(f"Appendix B.3 (Theorem 4.3) needs M >= 2 (s + o): M = {M}, s + o = {s + o}")
    return M // (s + o)


def b3_batch_tel(n: int, s: int, o: int, M: int) -> int:
    """The first line of (15): ``m o sum_{i<=k} i + p o (k + 1)`` with ``m = floor(M/(s+o))``, ``n = k m + p``."""
    m = _b3_check(n, s, o, M)
    k, p = divmod(n, m)
    return m * o * k * (k + 1) // 2 + p * o * (k + 1)


def b3_upper_chain(n: int, s: int, o: int, M: int) -> list[tuple[str, Fraction, str]]:
    """The lines of the chain (15)-(17) as ``(label, value, relation to the previous line)``, exact.

    The chain ends with ``o (s+o) n^2 / M + 5 o n / 8``; it assumes ``n > m`` (the paper's w.l.o.g.).
    """
    m = _b3_check(n, s, o, M)
    k, p = divmod(n, m)
    F = Fraction
    x = F(s + o, M)
    lines = [
        ("batch", F(m * o * k * (k + 1), 2) + p * o * (k + 1), "<="),
        ("o(mk(k+1)/2 + p(k+1))", o * (F(m * k * (k + 1), 2) + p * (k + 1)), "="),
        ("o(m/2 (n-p)/m (n+m-p)/m + p (n+m-p)/m)",
         o * (F(m, 2) * F(n - p, m) * F(n + m - p, m) + p * F(n + m - p, m)), "="),
        ("o((n-p)(n+m-p)/(2m) + p(n+m-p)/m)", o * (F((n - p) * (n + m - p), 2 * m) + F(p * (n + m - p), m)), "="),
        ("o(n^2 + nm + p(m-p))/(2m)", o * F(n * n + n * m + p * (m - p), 2 * m), "="),
        ("(14) o/(2m)(n^2 + nm + m^2/4)", F(o, 2 * m) * (n * n + n * m + F(m * m, 4)), "<="),
        ("on^2/(2m) + on/2 + om/8", F(o * n * n, 2 * m) + F(o * n, 2) + F(o * m, 8), "<="),
        ("on^2/(2m) + on/2 + on/8", F(o * n * n, 2 * m) + F(o * n, 2) + F(o * n, 8), "<="),
        ("(15) on^2/(2m) + 5on/8", F(o * n * n, 2 * m) + F(5 * o * n, 8), "<="),
        ("on^2/2 / (M/(s+o) - 1) + 5on/8", F(o * n * n, 2) / (F(M, s + o) - 1) + F(5 * o * n, 8), "<="),
        ("on^2/2 x / (1 - x) + 5on/8", F(o * n * n, 2) * x / (1 - x) + F(5 * o * n, 8), "="),
        ("(16) on^2/2 x (1 + 2x) + 5on/8", F(o * n * n, 2) * x * (1 + 2 * x) + F(5 * o * n, 8), "<="),
        ("o(s+o)n^2/(2M) + o(s+o)^2 n^2/M^2 + 5on/8",
         F(o * (s + o) * n * n, 2 * M) + F(o * (s + o) ** 2 * n * n, M * M) + F(5 * o * n, 8), "="),
        ("(17) o(s+o)n^2/(2M) + o(s+o)n^2/(2M) + 5on/8",
         F(o * (s + o) * n * n, 2 * M) * 2 + F(5 * o * n, 8), "<="),
        ("o(s+o)n^2/M + 5on/8", F(o * (s + o) * n * n, M) + F(5 * o * n, 8), "<="),
    ]
    return lines


def b3_ub(n: int, s: int, o: int, M: int) -> Fraction:
    """The end of the chain (17): ``5 o n / 8 + o (s + o) n^2 / M`` (Lemma B.2's numerator)."""
    _b3_check(n, s, o, M)
    return Fraction(5 * o * n, 8) + Fraction(o * (s + o) * n * n, M)


def b3_primal_lp(n: int, s: int, o: int, M: int, *, per_request: bool = False, horizon: Optional[int] = None) -> float:
    """OPT-Primal, the LP (18)-(21) (IP (1) with ``x >= 0``), solved with HiGHS; horizon ``T_bar = n o``.

    ``per_request=False`` solves the equivalent aggregated LP in ``X_t = sum_i x_(i,t)`` (every
    constraint of (18)-(21) is a function of the ``X_t`` and the requests are identical, so an
    aggregate optimum split equally over ``i`` is optimal for (18)-(21)); ``True`` solves (18)-(21)
    with one variable per request and start time (tiny ``n`` only).
    """
    from scipy.optimize import linprog
    from scipy.sparse import lil_matrix

    _b3_check(n, s, o, M)
    T = n * o if horizon is None else int(horizon)
    R = n if per_request else 1
    nt = T + 1  # start times 0..T
    c = np.tile(np.arange(nt, dtype=float), R)
    A_ub = lil_matrix((T, R * nt))
    for t in range(1, T + 1):
        for kk in range(max(0, t - o), t):
            for i in range(R):
                A_ub[t - 1, i * nt + kk] = s + t - kk
    A_eq = lil_matrix((R, R * nt))
    for i in range(R):
        A_eq[i, i * nt:(i + 1) * nt] = 1.0
    b_eq = np.ones(R) if per_request else np.array([float(n)])
    res = linprog(c, A_ub=A_ub.tocsr(), b_ub=np.full(T, float(M)), A_eq=A_eq.tocsr(), b_eq=b_eq,
                  bounds=(0, None), method="highs")
    if res.status != 0:  # pragma: no cover - sequential processing is feasible
        raise RuntimeError(f"LP (18)-(21) not solved by HiGHS: {res.message}")
    return float(n * o + res.fun)


def b3_dual_solution(n: int, s: int, o: int, M: int) -> dict:
    """The dual solution (25)-(27), exact: ``ybar``, ``lam1``, ``d = 2/((2s+o+1) o)``, ``lam`` (``lam[t-1]`` for
    ``t = 1 .. K``, the positive entries; ``lam_t = 0`` for ``t > K``), ``alpha_term`` ``(o-1)(3s+2o+2)/(3(2s+o+1))``."""
    _b3_check(n, s, o, M)
    beta = 2 * s + o + 1
    at = Fraction((o - 1) * (3 * s + 2 * o + 2), 3 * beta)
    ybar = max(Fraction(beta * o * n, 2 * M) - at, Fraction(0))
    lam1 = (2 * ybar + 2 * at) / (beta * o)
    d = Fraction(2, beta * o)
    lam, t = [], 1
    while lam1 - (t - 1) * d > 0:
        lam.append(lam1 - (t - 1) * d)
        t += 1
    return {"ybar": ybar, "lam1": lam1, "d": d, "lam": lam, "alpha_term": at, "beta": beta}


def _lam(D: dict, t: int) -> Fraction:
    return D["lam"][t - 1] if 1 <= t <= len(D["lam"]) else Fraction(0)


def b3_dual_objective(n: int, s: int, o: int, M: int) -> Fraction:
    """(22) at (25)-(27): ``n o + n ybar - M sum_t lam_t`` (exact)."""
    D = b3_dual_solution(n, s, o, M)
    return n * o + n * D["ybar"] - M * sum(D["lam"], Fraction(0))


def b3_display_b2(n: int, s: int, o: int, M: int) -> Fraction:
    """The display before Lemma B.2: ``n o + n ybar - M lam1 (lam1 / d) / 2``."""
    D = b3_dual_solution(n, s, o, M)
    return n * o + n * D["ybar"] - M * D["lam1"] * (D["lam1"] / D["d"]) / 2


def staircase_excess(lam1: Fraction, d: Fraction) -> Fraction:
    """``sum_t (lam1 - (t-1) d)^+ - lam1^2 / (2 d)``: equals ``(d/2)(K - (K - x)^2)`` with ``x = lam1/d``,
    ``K = ceil(x)``; positive whenever ``lam1 > 0`` and at most ``lam1/2 + d/8``."""
    x = lam1 / d
    K = math.ceil(x)
    return d / 2 * (K - (K - x) ** 2)


def b3_lemma_b1(n: int, s: int, o: int, M: int, horizon: Optional[int] = None) -> dict:
    """Lemma B.1 on one instance: the constraints (23) for ``t = 0 .. T_bar`` (default ``n o``) and the
    induction step.

    ``max_violation``: ``max_t (ybar - sum_{tau=t+1}^{t+o} (s + tau - t) lam_tau - t)`` (``<= 0`` iff (23)
    holds); ``base``: that expression at ``t = 0``; ``step_max``: the largest increment
    ``Delta(t) = (s+1) lam_(t+1) + sum_{tau=t+2}^{t+o} lam_tau - (s+o) lam_(t+1+o)`` (the display's bound
    is its linearised value, identically 1); ``step_termwise_fail``: the number of ``t`` at which a
    positively weighted ``lam_tau`` is 0 while its linear formula is negative (the termwise
    replacement in the display is then not valid; the inequality ``Delta <= 1`` is checked
    directly); ``support``: the last ``t`` with ``lam_t > 0`` (must be ``<= T_bar``).
    """
    D = b3_dual_solution(n, s, o, M)
    T = n * o if horizon is None else int(horizon)
    y, d, lam1 = D["ybar"], D["d"], D["lam1"]
    worst, base = None, None
    step_max, fails = None, 0
    for t in range(0, T + 1):
        lhs = y - sum((s + tau - t) * _lam(D, tau) for tau in range(t + 1, t + o + 1) if tau <= T) - t
        base = lhs if t == 0 else base
        worst = lhs if worst is None or lhs > worst else worst
        delta = ((s + 1) * _lam(D, t + 1) + sum(_lam(D, tau) for tau in range(t + 2, t + o + 1))
                 - (s + o) * _lam(D, t + 1 + o))
        step_max = delta if step_max is None or delta > step_max else step_max
        if any(lam1 - (tau - 1) * d < 0 for tau in range(t + 1, t + o + 1)):
            fails += 1
    return {"max_violation": worst, "base": base, "step_max": step_max, "step_termwise_fail": fails,
            "support": len(D["lam"]), "horizon": T}


def b2_ratio(n: int, s: int, o: int, M: int, *, corrected: bool = False) -> Fraction:
    """Lemma B.2's ratio ``(5on/8 + o(s+o)n^2/M) / denominator``; the denominator is the display before
    Lemma B.2 (paper) or, with ``corrected=True``, the dual objective itself (:func:`b3_dual_objective`)."""
    den = b3_dual_objective(n, s, o, M) if corrected else b3_display_b2(n, s, o, M)
    return b3_ub(n, s, o, M) / den


def b2_corrected_ratio(n: int, s: int, o: int, M: int) -> Fraction:
    """:func:`b2_ratio` with the exact dual objective: ``TEL bound / OPT-Dual`` (Lemma B.2 repaired)."""
    return b2_ratio(n, s, o, M, corrected=True)


def b3_inequalities(n: int, s: int, o: int, M: int, opt: Optional[int] = None, tel: Optional[int] = None,
                    lp: Optional[float] = None) -> dict:
    """Every displayed inequality of Appendix B.3 on one identical-request instance, as a flat dict.

    ``tel``: MC-SF's TEL (simulated when omitted); ``opt``: the optimum (optional); ``lp``:
    OPT-Primal (solved with HiGHS when omitted and ``n o <= 400``).  Steps: ``B3.mcsf``
    (``TEL <= `` the batch sum), ``B3.chain`` (every line of (15)-(17) against the previous one,
    tightest reported), ``B3.chain_end`` (``TEL <= 5on/8 + o(s+o)n^2/M``), ``B3.weak`` (dual
    objective ``<=`` OPT-Primal), ``B3.primal`` (OPT-Primal ``<=`` OPT), ``B1`` ((23), max violation
    ``<= 0``), ``B1.base``, ``B1.step`` (``Delta(t) <= 1``), ``B1.support``, ``B2.display`` (dual
    objective ``>=`` the display: the errata), ``B2`` (the paper's ratio ``<= 4``), ``B2.corrected``
    (ratio with the exact dual objective ``<= 4``), ``T43.identical`` (``TEL <= 4 OPT``).
    """
    m = _b3_check(n, s, o, M)
    out: dict = {"n": n, "s": s, "o": o, "M": M, "m": m, "n_gt_m": n > m}
    if tel is None:
        inst = Instance.at_zero([s] * n, [o] * n, M)
        p = mcsf_schedule(inst)
        tel = int((p + o).sum())
    out["mcsf"] = tel
    batch = b3_batch_tel(n, s, o, M)
    _step(out, "B3.mcsf", tel, batch, tel <= batch)
    chain = b3_upper_chain(n, s, o, M)
    wc = _Worst()
    eq_ok = True
    for (_, prev, _), (_, cur, rel) in zip(chain, chain[1:]):
        wc.add(prev, cur)
        if rel == "=":
            eq_ok &= prev == cur
    wc.emit(out, "B3.chain")
    out["B3.chain.equalities_hold"] = bool(eq_ok)
    ub = b3_ub(n, s, o, M)
    _step(out, "B3.chain_end", tel, ub, tel <= ub)
    dual = b3_dual_objective(n, s, o, M)
    disp = b3_display_b2(n, s, o, M)
    if lp is None and n * o <= 400:
        lp = b3_primal_lp(n, s, o, M)
    if lp is not None:
        _step(out, "B3.weak", dual, lp, float(dual) <= lp + 1e-7)
        if opt is not None:
            _step(out, "B3.primal", lp, opt, lp <= opt + 1e-7)
    B1 = b3_lemma_b1(n, s, o, M)
    _step(out, "B1", B1["max_violation"], 0, B1["max_violation"] <= 0)
    _step(out, "B1.base", B1["base"], 0, B1["base"] <= 0)
    _step(out, "B1.step", B1["step_max"], 1, B1["step_max"] <= 1)
    out["B1.step_termwise_fail"] = B1["step_termwise_fail"]
    _step(out, "B1.support", B1["support"], B1["horizon"], B1["support"] <= B1["horizon"])
    _step(out, "B2.display", dual, disp, dual >= disp)
    r = ub / disp if disp > 0 else Fraction(10**9)
    _step(out, "B2", r, B2_RATIO, disp > 0 and r <= B2_RATIO)
    rc = ub / dual if dual > 0 else Fraction(10**9)
    _step(out, "B2.corrected", rc, B2_RATIO, dual > 0 and rc <= B2_RATIO)
    out["dual"] = float(dual)
    out["display"] = float(disp)
    if opt is not None:
        out["opt"] = int(opt)
        _step(out, "B3.dual_le_opt", dual, opt, dual <= opt)
        _step(out, "B2.display_le_opt", disp, opt, disp <= opt)
        _step(out, "T43.identical", tel, B2_RATIO * opt, tel <= B2_RATIO * opt)
    return out


def b3_row(n: int, s: int, o: int, M: int, exact_opt: bool = False) -> dict:
    """Results-store row function for :func:`b3_inequalities`; ``exact_opt=True`` adds OPT by brute force
    (:func:`kvlib.optimum.bruteforce.brute_force_opt`; tiny ``n`` only)."""
    opt = None
    inst = Instance.at_zero([s] * n, [o] * n, M)
    p = mcsf_schedule(inst)
    tel = int((p + o).sum())
    if exact_opt:
        from kvlib.optimum.bruteforce import brute_force_opt

        opt = brute_force_opt(inst, upper=tel)[0]
    return b3_inequalities(n, s, o, M, opt=opt, tel=tel)


# ----------------------------------------------------------------------------- SymPy


def sympy_checks() -> dict[str, bool]:
    """Symbolic checks of the algebra in 001 Section 4 (Lemmas 4.4-4.7) and Appendix B.3.

    Every entry is ``True`` when the identity or inequality holds for all admissible symbols;
    entries ending in ``_as_printed`` are the paper's displays that do *not* hold as printed
    (they are ``False``; the neighbouring entry shows what holds instead).
    """
    import sympy as sp

    s, ol, l = sp.symbols("s o_lo l", nonnegative=True)
    u, Mx, U, V, oh = sp.symbols("u M U V o_hi", positive=True)
    r: dict[str, bool] = {}
    vol_ = lambda S, O: S * O + O * (O + 1) / 2  # noqa: E731

    # vol_o >= vol_ohi / 4 for o >= o_lo = (o_hi + 1)/2: 4 vol(o_lo) - vol(2 o_lo - 1), o_lo = 1 + u
    e = sp.expand((4 * vol_(s, 1 + u) - vol_(s, 2 * (1 + u) - 1)))
    r["vol_lo_quarter"] = all(c >= 0 for c in sp.Poly(e, s, u).coeffs())
    # vol_ohi > o_hi (s + o_hi) / 2
    r["vol_gt_half"] = sp.simplify(vol_(s, oh) - oh * (s + oh) / 2 - (s * oh + oh) / 2) == 0
    # the constants of Lemma 4.5: from the assumption span > 48 U V / M + 5 o_hi ...
    Xs = 48 * U * V / Mx + 5 * oh
    r["w_floor_step"] = sp.simplify(Xs / oh - 1 - (48 * U * V / (Mx * oh) + 4)) == 0
    # (w - 1)/3 >= 16 U V/(M o_hi) + 1, so floor((w-1)/3) >= 16 U V/(M o_hi); times (1/4)(M/2)(o_hi/2) = U V
    r["w_third"] = sp.simplify((48 * U * V / (Mx * oh) + 3) / 3 - (16 * U * V / (Mx * oh) + 1)) == 0
    r["eq7_constants"] = sp.simplify(16 * U * V / (Mx * oh) * sp.Rational(1, 4) * Mx / 2 * oh / 2 - U * V) == 0
    # (7)'s displayed middle: 4/M U V/o_hi * M/2 * V/(s+o_hi) > U V  iff 2 V > o_hi (s + o_hi)
    r["eq7_last"] = sp.simplify(4 / Mx * U * V / oh * Mx / 2 - 2 * U * V / oh) == 0
    r["c192"] = C45 == 4 * 48 and 48 == 3 * 16 and 16 == 4 * 2 * 2
    r["c5"] = C45_ADD == 4 + 1
    r["c6"] = C45_ADD + 1 == 6
    r["c1536"] = C44_X == C45 * 8
    r["c24"] = C44_Y == 6 * 4
    r["c28_corrected"] = C44_Y_CORRECTED == (6 + 1) * 4
    r["c47_six"] = C47 == 1 + 4 + 1
    r["theorem_constant"] = THEOREM43_CONSTANT == 9216 == C47 * C44_X and C47 * C44_Y <= THEOREM43_CONSTANT
    # sum_{l' <= l} (2^(l'+1) - 1) <= 2 (2^(l+1) - 1)
    k = sp.symbols("k", integer=True, nonnegative=True)
    lsym = sp.symbols("L", integer=True, nonnegative=True)
    ssum = sp.simplify(sp.summation(2 ** (k + 1) - 1, (k, 0, lsym)))
    r["ohi_geometric"] = sp.simplify(2 * (2 ** (lsym + 1) - 1) - ssum - (lsym + 1)) == 0  # slack L + 1 >= 0
    # o_hi <= 2 o for o in O_l
    r["ohi_le_2o"] = sp.simplify(2 * 2 ** lsym - (2 ** (lsym + 1) - 1)) == 1
    # |U|^2 <= 2 sum_o n_o sum_{o'<=o} n_o' (four types)
    n1, n2, n3, n4 = sp.symbols("n1:5", nonnegative=True)
    ns = [n1, n2, n3, n4]
    pairs = sum(ns[i] * sum(ns[: i + 1]) for i in range(4))
    r["pairs_half_square"] = sp.expand(2 * pairs - sum(ns) ** 2 - sum(x ** 2 for x in ns)) == 0
    # (10): sum n_o sum_{o'<o} n_o' v_o' = sum n_o sum_{o'<=o} n_o' v_o' - sum n_o^2 v_o
    v = sp.symbols("v1:5", positive=True)
    lhs10 = sum(ns[i] * sum(ns[j] * v[j] for j in range(i)) for i in range(4))
    rhs10 = sum(ns[i] * sum(ns[j] * v[j] for j in range(i + 1)) for i in range(4)) - sum(ns[i] ** 2 * v[i] for i in range(4))
    r["eq10_identity"] = sp.expand(lhs10 - rhs10) == 0
    # (12): (10) + 4 (11) + (OPT >= Y)
    Xa, Sa, Ya, Ma = sp.symbols("X S Y M", positive=True)
    r["eq12"] = sp.simplify((Xa / Ma - Sa / Ma) + 4 * Sa / (4 * Ma) + Ya - (Xa / Ma + Ya)) == 0

    # ---- B.3
    so, oo, mm, kk, pp, nn = sp.symbols("s o m k p n", positive=True)
    batch = mm * oo * kk * (kk + 1) / 2 + pp * oo * (kk + 1)
    r["b3_eq15_identity"] = sp.simplify(batch.subs(kk, (nn - pp) / mm)
                                        - oo * (nn ** 2 + nn * mm + pp * (mm - pp)) / (2 * mm)) == 0
    r["b3_eq14"] = sp.expand(mm ** 2 / 4 - pp * (mm - pp) - (mm / 2 - pp) ** 2) == 0
    x = sp.symbols("x", nonnegative=True)
    r["b3_taylor"] = sp.factor((1 + 2 * x) * (1 - x) - 1) == -x * (2 * x - 1)  # >= 0 on [0, 1/2]
    r["b3_eq16_identity"] = sp.simplify(oo * nn ** 2 / 2 / (1 / x - 1) - oo * nn ** 2 / 2 * x / (1 - x)) == 0
    # Lemma B.1 base case
    tau = sp.symbols("tau", integer=True, positive=True)
    beta = 2 * so + oo + 1
    d = 2 / (beta * oo)
    lam1 = sp.symbols("lambda1")
    at = (oo - 1) * (3 * so + 2 * oo + 2) / (3 * beta)
    base = sp.summation((so + tau) * (lam1 - (tau - 1) * d), (tau, 1, oo))
    r["b1_base_expand"] = sp.simplify(base - (beta * oo / 2 * lam1 - at)) == 0
    yb = sp.symbols("ybar", nonnegative=True)
    r["b1_base_zero"] = sp.simplify(yb - (beta * oo / 2) * ((2 * yb + 2 * at) / (beta * oo)) + at) == 0
    # Lemma B.1 induction step: the linearised increment is exactly 1
    t = sp.symbols("t", nonnegative=True)
    L = lambda T: lam1 - 2 * (T - 1) / (beta * oo)  # noqa: E731
    inc = (so + 1) * L(t + 1) + sp.summation(L(tau), (tau, t + 2, t + oo)) - (so + oo) * L(t + 1 + oo)
    r["b1_step_is_one"] = sp.simplify(inc - 1) == 0
    # the display before Lemma B.2: staircase sum vs triangle
    K, xx = sp.symbols("K x", positive=True)
    dd = sp.symbols("d", positive=True)
    stair = sp.summation(xx * dd - (tau - 1) * dd, (tau, 1, K))
    r["stair_excess_form"] = sp.simplify(stair - (xx * dd) ** 2 / (2 * dd) - dd / 2 * (K - (K - xx) ** 2)) == 0
    # with K = ceil(x) = x + f, 0 <= f < 1: excess = (d/2)(x + f - f^2) in (0, (d/2)(x + 1/4)]
    f = sp.symbols("f", nonnegative=True)
    exc = sp.expand(dd / 2 * ((xx + f) - f ** 2))
    r["stair_excess_bounds"] = sp.simplify(dd / 2 * (xx + sp.Rational(1, 4)) - exc - dd / 2 * (f - sp.Rational(1, 2)) ** 2) == 0
    # Lemma B.2: reduction of the ratio, q = n / M
    q, al = sp.symbols("q alpha", positive=True)
    bt = sp.symbols("beta", positive=True)
    ybs = sp.symbols("ybar", nonnegative=True)
    l1 = (2 * ybs + al) / (bt * oo)
    ratio_full = (sp.Rational(5, 8) * oo * nn + oo * (so + oo) * nn ** 2 / Mx) / (
        nn * oo + nn * ybs - Mx * l1 * (l1 / (2 / (bt * oo))) / 2)
    ratio_red = oo * (sp.Rational(5, 8) + (so + oo) * q) / (oo + ybs - (2 * ybs + al) ** 2 / (4 * q * bt * oo))
    r["b2_reduction"] = sp.simplify(ratio_full.subs(nn, q * Mx) - ratio_red) == 0
    alpha = 2 * (oo - 1) * (3 * so + 2 * oo + 2) / (3 * beta)
    # Case 1: alpha <= (4/3) o  (printed garbled; (4/3) o is what the next line needs)
    r["b2_alpha_le_4o3"] = _nonneg_shift(4 * oo * beta - 2 * (oo - 1) * (3 * so + 2 * oo + 2), so, oo)
    case1 = (so + oo) * alpha / (beta * oo)
    printed = sp.Rational(2, 3) * (3 * so ** 2 + 5 * so * oo + 5 * so + 2 * oo ** 2 + 2 * oo) / beta ** 2
    r["b2_case1_equality_as_printed"] = sp.simplify(case1 - printed) == 0
    r["b2_case1_le_printed"] = _nonneg_shift(sp.numer(sp.together(printed - case1)), so, oo)
    r["b2_case1_printed_le_4_3"] = _nonneg_shift(sp.numer(sp.together(sp.Rational(4, 3) - printed)), so, oo)
    r["b2_141_40"] = (sp.Rational(5, 8) + sp.Rational(4, 3)) / (1 - sp.Rational(4, 9)) == sp.Rational(141, 40)
    # Case 2: ybar = (q beta o - alpha)/2 reduces the ratio to (5/8 + (s+o)q)/(1 + q beta/4 - alpha/(2o))
    y2 = (q * bt * oo - al) / 2
    r["b2_case2_reduction"] = sp.simplify(ratio_red.subs(ybs, y2) - (sp.Rational(5, 8) + (so + oo) * q)
                                          / (1 + q * bt / 4 - al / (2 * oo))) == 0
    r["b2_case2_alpha_2o"] = _nonneg_shift(sp.numer(sp.together(sp.Rational(2, 3) - alpha / (2 * oo))), so, oo)
    r["b2_case2_final"] = sp.expand(sp.Rational(4, 3) + q * beta - (sp.Rational(5, 8) + q * (so + oo))
                                    - (sp.Rational(17, 24) + q * (so + 1))) == 0
    # Repaired Lemma B.2 (exact dual): the extra term M (lam1/2 + d/8)/n relative to o
    # Case 2 (lam1 = q): 4 (1 + q beta/4 - alpha/(2o) - 1/(2o) - 1/(4 q beta o^2)) >= 5/8 + q (s+o) given q beta >= 1
    c2 = 4 - 2 * alpha / oo - 2 / oo - 1 / oo ** 2 - sp.Rational(5, 8)  # q beta >= 1, q beta - q(s+o) >= 0
    r["b2_repaired_case2"] = _nonneg_shift(sp.numer(sp.together(c2)), so, oo)
    # Case 1 (ybar = 0): denominator / o = 1 - (alpha + 1)^2 / (4 q beta o^2) >= 1 - (alpha+1)^2/(4 o^2) >= 5/9
    c1 = sp.Rational(4, 9) - (alpha + 1) ** 2 / (4 * oo ** 2)
    r["b2_repaired_case1"] = _nonneg_shift(sp.numer(sp.together(c1)), so, oo)
    return r


def _nonneg_shift(expr, s, o) -> bool:
    """``expr >= 0`` for all ``s >= 0``, ``o >= 1`` (sufficient test: with ``o = 1 + u`` every coefficient of the
    polynomial in ``s, u`` is ``>= 0``, after multiplying by the sign-fixed denominator if any)."""
    import sympy as sp

    u = sp.symbols("u_shift", nonnegative=True)
    num, den = sp.fraction(sp.together(sp.expand(expr)))
    e = sp.expand(num.subs(o, 1 + u) * den.subs(o, 1 + u))
    poly = sp.Poly(e, s, u)
    return all(c >= 0 for c in poly.coeffs())


def summarize_steps(rows: list[dict]):
    """One line per displayed step over many rows of :func:`chain_row` / :func:`b3_row`: on how many
    instances it applied, on how many it held, and the largest ``lhs / rhs`` (``pandas.DataFrame``)."""
    import pandas as pd

    steps = sorted({k[: -len(".holds")] for r in rows for k in r if k.endswith(".holds")})
    out = []
    for st in steps:
        applied = [r for r in rows if r.get(st + ".holds") is not None
                   and (r.get(st + ".cases") is None or r.get(st + ".cases", 1) > 0)]
        ratios = [float(r[st + ".lhs"]) / float(r[st + ".rhs"]) for r in applied
                  if r.get(st + ".rhs") not in (None, 0) and r.get(st + ".lhs") is not None]
        out.append({"step": st, "instances": len(applied),
                    "holds on": sum(bool(r[st + ".holds"]) for r in applied),
                    "largest lhs / rhs": max(ratios) if ratios else float("nan")})
    return pd.DataFrame(out)
