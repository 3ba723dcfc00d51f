"""002 (Wang, Ye, Zhou): the computations behind the errata entries of paper 002 that
:mod:`kvlib.theory.wyz_chain_paper` does not already provide.

* :func:`all_optimal_schedules`: every optimal start vector of a small instance (all requests at
  ``t = 0``), by a branch and bound that keeps every schedule of TEL equal to the optimum (not one).
* :func:`theorem8_over_optima`: 002 Theorem 8 (TEL(Sorted-F_align) <= TEL(Optimal_align)) against
  every optimal schedule *and* every order of the requests that start at the same time (002 sorts
  a temporal group "by original initiation times" and does not say how ties are cut, so every tie
  order is tried): the smallest and the largest TEL(Optimal_align) over all of them.
* :func:`theorem5_display`, :func:`theorem7_display`, :func:`lemma2_steps`: every line of the
  displays in the proofs of Theorem 5, Theorem 7 and Lemma 2 (Appendix EC.2) evaluated exactly
  (Fractions) with 002's objects, ``epsilon(.)`` terms evaluated as the finite quantity the next
  line replaces them with.
* :func:`theorem1_display_ratio` / :func:`theorem_ec1_display_ratio`: the last display of the proofs
  of Theorem 1 and Theorem EC.1 with the paper's own (printed) numerator and denominator.
* :func:`three_partition_round_bound`: the counting argument that 002's reduction for Theorem 2
  (``M = T``, requests ``(x_i, 1)``) cannot reach ``3m(m+1)/2`` on any instance.

Everything is exact (integers and Fractions); every function rejects bad input with ``ValueError``.
Read-only use of :mod:`kvlib.theory.wyz_chain_paper` and :mod:`kvlib.optimum.bruteforce`.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Sequence

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.theory import wyz_chain_paper as wc

__all__ = ["all_optimal_schedules", "theorem8_over_optima", "theorem8_scan", "theorem5_display",
           "theorem7_display", "lemma2_steps", "theorem1_display_ratio", "theorem_ec1_display_ratio",
           "three_partition_round_bound"]


def _check_zero(instance: Instance) -> None:
    if np.any(instance.arrival != 0):
        raise ValueError("002's model (Section 2): every request arrives at t = 0")


def all_optimal_schedules(instance: Instance, node_limit: int = 2_000_000) -> tuple[int, list[tuple[int, ...]]]:
    """``(OPT, every optimal start vector)`` of a small instance with all requests at 0.

    Depth-first placement in order of start times (ties by index), interchangeable requests (equal
    ``(s, o)``) in index order only; every schedule of TEL at most the optimum is kept, so every
    optimal schedule is listed up to a relabelling of interchangeable requests (which changes no
    start time multiset of any ``(s, o)``; :func:`theorem8_over_optima` tries every tie order anyway).
    Each vector is checked by :func:`kvlib.core.checker.check_schedule`.  ``RuntimeError`` after
    ``node_limit`` nodes.
    """
    _check_zero(instance)
    from kvlib.optimum.bruteforce import brute_force_opt

    opt, _, _ = brute_force_opt(instance)
    n, M = instance.n, int(instance.memory)
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    H = int(sum(o))
    usage = np.zeros(H + 2, dtype=np.int64)
    twin = [-1] * n
    for i in range(n):
        for j in range(i - 1, -1, -1):
            if (s[j], o[j]) == (s[i], o[i]):
                twin[i] = j
                break
    ramp = {oi: np.arange(1, oi + 1, dtype=np.int64) for oi in set(o)}
    starts, found, nodes = [-1] * n, [], [0]

    def dfs(placed: int, last: int, tel: int) -> None:
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise RuntimeError(f"all_optimal_schedules: more than {node_limit} nodes")
        if placed == n:
            if tel == opt:
                found.append(tuple(starts))
            return
        for i in range(n):
            if starts[i] >= 0 or (twin[i] >= 0 and starts[twin[i]] < 0):
                continue
            for p in range(last, H - o[i] + 1):
                rest = sum(p + o[j] for j in range(n) if starts[j] < 0 and j != i)
                if tel + p + o[i] + rest > opt:
                    break
                seg = usage[p + 1: p + o[i] + 1]
                if np.any(seg + s[i] + ramp[o[i]] > M):
                    continue
                seg += s[i] + ramp[o[i]]
                starts[i] = p
                dfs(placed + 1, p, tel + p + o[i])
                starts[i] = -1
                seg -= s[i] + ramp[o[i]]

    dfs(0, 0, 0)
    # A schedule is reached once per order of its equal-start requests that respects the twin rule:
    # keep each start vector once.
    found = sorted(set(found))
    for p in found:
        rep = check_schedule(instance, Schedule(p))
        if not rep.valid or rep.tel != opt:  # pragma: no cover - defensive
            raise AssertionError("all_optimal_schedules produced a schedule the checker rejects")
    return int(opt), found


def _distinct_orders(items: list[int], key) -> list[list[int]]:
    """The orders of ``items`` that differ in the sequence of ``key`` values (one per sequence)."""
    seen, out = set(), []
    for perm in itertools.permutations(items):
        k = tuple(key(i) for i in perm)
        if k not in seen:
            seen.add(k)
            out.append(list(perm))
    return out


def _align_tel_from_orders(s, o, M: int, Z_orders: Sequence[Sequence[int]]) -> Fraction:
    """TEL(Optimal_align) (002 Theorem 7) with each temporal group given as an ordered list."""
    W = []
    for z in Z_orders:
        rem = list(z)
        while rem:
            take, mem = [], 0
            for i in rem:
                if mem + s[i] + o[i] > M:
                    break
                take.append(i)
                mem += s[i] + o[i]
            if not take:
                raise ValueError(f"optimal_align: request {rem[0]} does not fit the memory alone")
            W.append(take)
            rem = rem[len(take):]
    left = sum(len(w) for w in W)
    tel = Fraction(sum(o))
    for w in W:
        left -= len(w)
        tel += Fraction(sum(o[i] for i in w), len(w)) * left
    return tel


def theorem8_over_optima(instance: Instance, max_orders: int = 200_000) -> dict:
    """002 Theorem 8 on ``instance`` against every optimal schedule and every tie order.

    Returns ``tel_align`` (TEL(Sorted-F_align), 002's formula), ``opt``, ``n_optima`` (optimal start
    vectors), ``n_variants`` (optimal schedules times tie orders tried), ``oa_min`` / ``oa_max``
    (smallest / largest TEL(Optimal_align)), ``fails_all`` (Theorem 8 violated for every variant:
    ``tel_align > oa_max``), ``fails_some`` (violated for some: ``tel_align > oa_min``), and
    ``peak_ratio`` = ``M / max_i (s_i + o_i)`` (how far the instance is inside 002's regime).
    """
    _check_zero(instance)
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    M = int(instance.memory)
    _, _, bl = wc.sf_run(instance)
    tel_al = wc.align_tel(bl, o)
    opt, optima = all_optimal_schedules(instance)
    vals, count = [], 0
    for p in optima:
        _, Z = wc.temporal_groups(p, o)
        per_group = []
        for z in Z:
            classes = {}
            for i in sorted(z):
                classes.setdefault(p[i], []).append(i)
            choices = [_distinct_orders(classes[t], key=lambda i: (s[i], o[i])) for t in sorted(classes)]
            per_group.append([sum(c, []) for c in itertools.product(*choices)])
        for combo in itertools.product(*per_group):
            count += 1
            if count > max_orders:
                raise RuntimeError(f"theorem8_over_optima: more than {max_orders} variants")
            vals.append(_align_tel_from_orders(s, o, M, combo))
    return {"tel_align": tel_al, "opt": opt, "n_optima": len(optima), "n_variants": count,
            "oa_min": min(vals), "oa_max": max(vals), "fails_all": tel_al > max(vals),
            "fails_some": tel_al > min(vals), "peak_ratio": Fraction(M, max(a + b for a, b in zip(s, o)))}


def theorem8_scan(prompt, output, memory: int, copies: Sequence[int]) -> list[dict]:
    """:func:`theorem8_over_optima` on ``k`` copies of every request with the memory ``k * memory``,
    for each ``k`` in ``copies`` (each row also carries ``k`` and ``M``)."""
    if not copies or min(copies) < 1:
        raise ValueError(f"theorem8_scan: copies must be positive integers, got {list(copies)}")
    out = []
    for k in copies:
        inst = Instance.at_zero([x for x in prompt for _ in range(k)], [x for x in output for _ in range(k)],
                                k * memory)
        row = theorem8_over_optima(inst)
        row.update({"k": int(k), "M": int(k * memory)})
        out.append(row)
    return out


def _frac_rows(batches, output):
    bl, o = wc._arrays(batches, output)
    return bl, o


def theorem5_display(batches, output, tel_separate: int | None = None) -> dict:
    """Every line of the display in the proof of 002 Theorem 5 (after Lemma 2), exact.

    ``L1`` TEL(Sorted-F_group) = ``sum_m o_{b_m,n} N_{>b_m} + sum o``; ``L2`` the Lemma-2 bound
    ``(1/4) sum_m (sum_{l in Y_m} o_{l,n_l}) N_{>b_m} + sum o``; ``L4`` the line after the
    ``epsilon`` line, ``(1/4) sum_m sum_{l in Y_m} o_{l,n_l} (N_{>b_m} + |Y_m|) + sum o`` (the
    inner sum's upper limit read as ``b_m``, so that it counts the group's requests; the line
    between, with ``epsilon(N_{>b_m})``, equals ``L4`` once ``epsilon`` is given the value the next
    line gives it); ``L5`` = ``L6`` (the last two lines before the ``=``, which differ only in
    brackets) ``(1/4) sum_m (sum_l o_{l,n_l} N_{>b_m} + sum_{l < b_m} o_{l,n_l} (b_m - l)) + sum o``;
    ``L7`` = ``TEL(Sorted-F_separate) / 4`` (``tel_separate`` if given, else the checker's value is
    not known and ``L7`` is the paper's own expression for it over 4).
    """
    bl, o = _frac_rows(batches, output)
    later = wc._later_counts([len(b) for b in bl])
    mx = [int(o[b].max()) for b in bl]
    so = Fraction(int(o.sum()))
    L1, L2, L4, L5 = so, so, so, so
    for g in wc.groups(bl, o):
        last = g[-1]
        size = sum(len(bl[k]) for k in g)
        L1 += mx[last] * later[last]
        L2 += Fraction(sum(mx[k] for k in g) * later[last], 4)
        L4 += Fraction(sum(mx[k] for k in g) * (later[last] + size), 4)
        L5 += Fraction(sum(mx[k] for k in g) * later[last] + sum(mx[k] * (last - k) for k in g[:-1]), 4)
    sep = tel_separate if tel_separate is not None else wc.separate_tel_paper(bl, o)
    return {"L1": L1, "L2": L2, "L4": L4, "L5": L5, "L6": L5, "L7": Fraction(sep, 4),
            "steps": {"L1>=L2": L1 >= L2, "L2=L4": L2 == L4, "L1>=L4": L1 >= L4, "L4>L5": L4 > L5,
                      "L5>L6": L5 > L5, "L6=L7": L5 == Fraction(sep, 4), "L6>=L7": L5 >= Fraction(sep, 4)}}


def theorem7_display(prompt, output, memory: int, starts) -> dict:
    """Every line of the display in the proof of 002 Theorem 7, exact, for the schedule ``starts``.

    ``E1`` TEL(Optimal_transform) = ``sum_h obar_h N_{>h} + sum o``; ``E2`` the same split into
    the within-group and later-group counts (an identity); ``E4`` the line after the ``epsilon`` line,
    ``sum_g (sum_{h in g} obar_h) N_{>d_g} + sum o`` (the within-group count dropped);
    ``E5`` ``sum_g 3 (delta_{g-1} + delta_g) N_{>d_g} + sum o``; ``E6`` as printed,
    ``3 sum_g delta_g (N_{>d_g} + N_{>d_g}) + sum o``; ``E6_reindexed`` the re-indexing of ``E5``,
    ``3 sum_g delta_g (N_{>d_g} + N_{>d_{g+1}}) + sum o``; ``E7`` ``6 sum_g delta_g N_{>d_g} + sum o``;
    ``E8`` ``6 (sum_g (delta_g N_{>d_g} + sum_{Z_g} (p_i - t_g)) + sum o)`` with the printed
    ``t_g``; ``E9`` = 6 TEL(schedule).  ``within`` is ``E1 - E4``.
    """
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    p = np.asarray(starts, dtype=np.int64)
    M = int(memory)
    inst = Instance.at_zero(s.tolist(), o.tolist(), M)
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in p)))
    if not rep.valid:
        raise ValueError(f"theorem7_display: starts is not a feasible schedule: {rep.violations[:3]}")
    oa = wc.optimal_align(s, o, M, p)
    d, Z, W, obar, gof, t = oa["deltas"], oa["Z"], oa["W"], oa["obar"], oa["group_of_W"], oa["t"]
    so = Fraction(int(o.sum()))
    later_Z = wc._later_counts([len(z) for z in Z])
    nxt = later_Z[1:] + [0]  # N_{>d_{g+1}}
    E1 = oa["tel"]
    E4 = so + sum((sum((obar[h] for h in range(len(W)) if gof[h] == g), Fraction(0)) * later_Z[g]
                   for g in range(len(Z))), Fraction(0))
    dprev = [0] + d[:-1]
    E5 = so + sum(3 * (dprev[g] + d[g]) * later_Z[g] for g in range(len(Z)))
    E6 = so + sum(3 * d[g] * 2 * later_Z[g] for g in range(len(Z)))
    E6r = so + sum(3 * d[g] * (later_Z[g] + nxt[g]) for g in range(len(Z)))
    E7 = so + 6 * sum(d[g] * later_Z[g] for g in range(len(Z)))
    E8 = 6 * (sum(d[g] * later_Z[g] + sum(int(p[i]) - t[g] for i in Z[g]) for g in range(len(Z))) + so)
    E9 = 6 * int(rep.tel)
    return {"E1": E1, "E2": E1, "E4": E4, "E5": Fraction(E5), "E6": Fraction(E6), "E6_reindexed": Fraction(E6r),
            "E7": Fraction(E7), "E8": Fraction(E8), "E9": Fraction(E9), "within": E1 - E4, "tel": int(rep.tel),
            "steps": {"E2=E4": E1 == E4, "E4<=E5": E4 <= E5, "E5=E6": E5 == E6, "E5<=E6": E5 <= E6,
                      "E6<=E7": E6 <= E7, "E7<=E8": E7 <= E8, "E8=E9": E8 == E9, "E1<=E9": E1 <= E9}}


def lemma2_steps(prompt, output, memory: int, batches) -> list[dict]:
    """The steps of the proof of 002 Lemma 2 (Appendix EC.2) at every non-terminal batch ``X_k`` of a group.

    Per batch: ``k`` (1-based), ``q`` = ``q_{k+1}`` (the most requests ``r_{k+1,1..q}`` that fit with
    ``X_k`` under the peak constraint ``sum (s + o) <= M``), ``group_rule`` (the first display,
    ``(S_k + o_{k+1,1}) / (n_k + 1)^2 > S_k / n_k^2``), ``critical`` (the "critical inequality"
    ``(S_k + sum_{j<=q} o_{k+1,j}) / (n_k + q)^2 > S_k / n_k^2``, with its two sides ``critical_lhs``,
    ``critical_rhs``), ``ec1`` ((EC.1), ``None`` when ``q = 0``: its left side divides by ``q``),
    ``ec3`` (the conclusion of (EC.3), ``o_{k+1,n} > o_{k,n}``) and ``lemma1`` (mean above half the max).
    """
    s = np.asarray(prompt, dtype=np.int64)
    bl, o = wc._arrays(batches, output)
    M = int(memory)
    out = []
    for g in wc.groups(bl, o):
        for k in g[:-1]:
            b, nb = bl[k], bl[k + 1]
            S, n = int(o[b].sum()), len(b)
            base = int((s[b] + o[b]).sum())
            q, mem = 0, base
            for r in nb:
                if mem + int(s[r] + o[r]) > M:
                    break
                mem += int(s[r] + o[r])
                q += 1
            Q = int(o[nb[:q]].sum())
            lhs, rhs = Fraction(S + Q, (n + q) ** 2), Fraction(S, n * n)
            ec1 = None if q == 0 else Fraction(Q, q) > (2 + Fraction(q, n)) * Fraction(S, n)
            out.append({"k": k + 1, "n_k": n, "q": q,
                        "group_rule": Fraction(S + int(o[nb[0]]), (n + 1) ** 2) > Fraction(S, n * n),
                        "critical": lhs > rhs, "critical_lhs": lhs, "critical_rhs": rhs, "ec1": ec1,
                        "ec3": int(o[nb].max()) > int(o[b].max()), "lemma1": 2 * S > n * int(o[b].max())})
    return out


def three_partition_round_bound(x: Sequence[int], T: int) -> dict:
    """Why 002's reduction for Theorem 2 (requests ``(x_i, 1)``, ``M = T``) never reaches ``3m(m+1)/2``.

    Every request runs one round and holds ``x_i + 1`` in it (002 Section 2).  With ``T/4 < x_i``,
    four items never share a round, so the ``j``-th completion (in sorted order) is at least
    ``ceil(j / 3)`` and TEL ``= 3m(m+1)/2`` forces each of rounds ``1..m`` to run exactly three
    requests; a round with three needs their sizes to sum to at most ``T - 3``; summed over the
    ``m`` rounds, ``m T <= m (T - 3)``: impossible.  Returns the pieces, computed on ``x``:
    ``max_per_round`` (the most requests any round can hold: the smallest sizes first),
    ``fits_triples_sum_max`` (the largest size sum of a triple that fits, at most ``T - 3``),
    ``needed_total`` (``m T``, what the ``m`` rounds must carry) and ``carried_max`` (``m (T - 3)``),
    and ``tel_floor`` (``3m(m+1)/2``).  ``ValueError`` unless ``x`` satisfies 3-Partition's conditions.
    """
    from kvlib.theory.adversary import _three_partition_conditions

    x = _three_partition_conditions(x, T)
    m = len(x) // 3
    srt = sorted(x)
    per, mem = 0, 0
    for v in srt:
        if mem + v + 1 > T:
            break
        mem += v + 1
        per += 1
    fits = [a + b + c for a, b, c in itertools.combinations(x, 3) if a + b + c + 3 <= T]
    return {"m": m, "max_per_round": per, "fits_triples_sum_max": max(fits) if fits else None,
            "needed_total": m * T, "carried_max": m * (T - 3), "tel_floor": 3 * m * (m + 1) // 2}


def _quarter_root(expr_in_u, M):
    """Largest real root ``u`` of ``expr_in_u`` (a polynomial in ``u = M^{1/4}``), as ``M = u^4``."""
    import sympy as sp

    u = sp.symbols("u", positive=True)
    roots = [r for r in sp.Poly(expr_in_u(u), u).real_roots() if r > 0]
    return max(roots) ** 4


def theorem1_display_ratio(M) -> dict:
    """The last display of the proof of 002 Theorem 1 with the paper's own (printed) terms, exact:
    ``(M^{1.5}/2 + 3 M^{1.25} + M^2) / (M^{1.5}/2 + 3 M^{1.25} + 6 M^{1.5})`` against the claimed
    lower bound ``(2/13) M^{0.5}``.  ``M`` a positive number (SymPy exact).  ``threshold`` is the
    ``M`` above which the printed inequality fails (the positive root of ``6u^2 - 6.5u - 39``,
    ``u = M^{1/4}``, to the fourth power)."""
    import sympy as sp

    M = sp.nsimplify(M)
    if not M > 0:
        raise ValueError(f"theorem1_display_ratio: M must be positive, got {M}")
    r = sp.Rational
    num = M ** r(3, 2) / 2 + 3 * M ** r(5, 4) + M**2
    den = M ** r(3, 2) / 2 + 3 * M ** r(5, 4) + 6 * M ** r(3, 2)
    claim = r(2, 13) * sp.sqrt(M)
    thr = _quarter_root(lambda u: 6 * u**2 - r(13, 2) * u - 39, M)
    return {"ratio": num / den, "claim": claim, "holds": bool(num / den >= claim), "threshold": thr}


def theorem_ec1_display_ratio(M) -> dict:
    """The last display of the proof of 002 Theorem EC.1 with the paper's own terms, exact:
    ``(M^2/2 + M^{2.5} + M^{1.75}/2) / (M^2/2 + M^2 + M^{1.75}/2)`` against ``(2/3) M^{0.5}``;
    ``threshold`` the ``M`` above which it fails (root of ``u^2 - 1.5u - 1.5``, ``u = M^{1/4}``)."""
    import sympy as sp

    M = sp.nsimplify(M)
    if not M > 0:
        raise ValueError(f"theorem_ec1_display_ratio: M must be positive, got {M}")
    r = sp.Rational
    num = M**2 / 2 + M ** r(5, 2) + M ** r(7, 4) / 2
    den = M**2 / 2 + M**2 + M ** r(7, 4) / 2
    claim = r(2, 3) * sp.sqrt(M)
    thr = _quarter_root(lambda u: u**2 - r(3, 2) * u - r(3, 2), M)
    return {"ratio": num / den, "claim": claim, "holds": bool(num / den >= claim), "threshold": thr}
