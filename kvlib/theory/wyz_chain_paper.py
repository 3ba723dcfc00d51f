"""002 Theorem 3 (Sorted-F's ratio < 48): the proof chain with the paper's own definitions.

002 (Wang, Ye, Zhou) Section 4 proves Theorem 3 through five transformed objects: Sorted-F_separate
(Theorem 4), Sorted-F_group (Theorem 5, with Lemma 2 of Appendix EC.2), Sorted-F_align (Theorem 6),
Optimal_align (Theorem 7, built from the temporal groups Z_g and the batches W_h) and the bridge
Theorem 8.  The model is 002 Section 2: all ``n`` requests arrive at ``t = 0``; a request started at
``p`` occupies rounds ``p+1 .. p+o`` holding ``s + (t - p)`` and completes at ``p + o``
(:mod:`kvlib.core.model`).  The chain as printed in the proof of Theorem 3 (the paper's display):
TEL(SF) <= TEL(sep) < 4 TEL(group) < 8 TEL(align) <= 8 TEL(Opt_align) <= 48 TEL(Opt).

Notation (the paper's).  Sorted-F's Phase-1 batches ``X_1 .. X_K`` (Algorithm 1 lines 1-7), each
sorted by increasing ``o``: ``r_{k,1} .. r_{k,n_k}``, ``o_{k,n_k}`` its longest output, ``S_k`` its
output sum, ``obar_k = S_k / n_k``, ``N_{>k}`` the number of requests in batches after ``k``.

The objects, as 002 defines them
--------------------------------

* **Sorted-F_separate** (before Theorem 4): batch ``X_k`` starts as a whole when ``X_{k-1}`` has
  completed.  A feasible schedule (each Phase-1 batch fits ``M`` under the peak constraint), so
  :func:`separate_starts` returns start times and its TEL is the checker's.  The proof of Theorem 5
  also *writes* a formula for TEL(separate) (the last line of its display, counting the delay
  inside a group as ``o_{l,n_l} (b_m - l)``: one request per later batch); we evaluate that formula
  separately (:func:`separate_tel_paper`), and it is not TEL(separate) unless every batch of a
  group after the first has one request.
* **Sorted-F_group** (Theorem 5): consecutive batches merged into groups ``Y_m = X_{b_{m-1}+1} +
  .. + X_{b_m}``, all requests of a group started together, where ``b_m`` is the smallest
  ``k > b_{m-1}`` with ``(S_k + o_{k+1,1}) / (n_k + 1)^2 <= S_k / n_k^2``; the last group ends at
  ``X_K`` (no ``o_{K+1,1}`` exists: our reading).  **Not a feasible schedule** (a group holds
  several batches that each fill the memory), so it is evaluated by the paper's formula
  ``sum_m o_{b_m,n_{b_m}} N_{>b_m} + sum_i o_i`` (:func:`group_tel`), never by the checker.
* **Sorted-F_align** (before Theorem 6): in each terminal batch ``X_{b_m}`` every output replaced
  by the batch average ``obar_{b_m}``.  **Not a schedule of the instance** (outputs changed); TEL
  by the paper's formula ``sum_m obar_{b_m} N_{>b_m} + sum_i o_i`` (:func:`align_tel`).
* **Temporal groups** (proof of Theorem 7), from an optimal schedule with starts ``p``:
  ``T_0 = 0``; ``A_g`` = requests initiated but not completed by ``T_{g-1}`` (``p_i <= T_{g-1} <
  p_i + o_i``; for ``g = 1`` exactly the requests started at 0); ``delta_g = max_{A_g}(p_i + o_i) -
  T_{g-1}``; ``T_g = T_{g-1} + delta_g``; ``Z_g`` = requests completing in ``(T_{g-1}, T_g]``.  If
  ``A_g`` is empty (the schedule idles at ``T_{g-1}``; 002 does not say), we take the requests
  started first after ``T_{g-1}`` (our reading, extending the rule for ``A_1``).  The scaled
  cutting times ``t_g = 6 sum_{j=2}^{g-1} delta_j`` and the delay ``5 sum_{j=2}^{g-1} delta_j`` of
  ``Z_g`` are the paper's (index ``j`` from 2 as printed).
* **Optimal_align** (Theorem 7; the proof calls its value OPT_transform, and the proof of Theorem
  8 uses both names for one object, which is our reading): each ``Z_g`` sorted by original start
  (ties: request id), cut greedily into batches ``W_h``, each the longest prefix of the remaining
  requests with ``sum (s_i + o_i) <= M``; then every output of ``W_h`` replaced by its average
  ``obar_h``.  **Not a schedule of the instance**; TEL by the paper's formula
  ``sum_h obar_h N_{>h} + sum_i o_i`` (:func:`optimal_align`).

Every link, every intermediate claim we can state on a finite instance, and the paper's
identities (in SymPy, :func:`sympy_identities`) are evaluated by :func:`chain_values` (any
instance) and :func:`chain_row` (a seeded random instance; a row function for the results store).
``epsilon(M)`` terms (Definition 1) cannot be evaluated on a finite instance: we report the exact
memory fill of the batches Definition 1 speaks about, and check Definition 1, Inequality (2) and
Inequality (3) with our finite stand-in ``epsilon(M) = max_i (s_i + o_i)`` (:func:`finite_epsilon`).
:func:`sorted_f_side` is the part that needs no optimum (Theorems 4-6, Lemmas 1-2, Definition 1,
Inequality (2)), cheap at the Table EC.1 size.

Differences from our variant in :mod:`kvlib.policies.wyz` (``proof_chain``, ``CHAIN_LINKS``)
-----------------------------------------------------------------------------------------

* separate: the same object (batches back to back in Phase-1 order).
* group: there, batches sorted into geometric length classes ``ceil(log2 max o)`` and serialised;
  here (002), consecutive batches merged by the F-based rule above and started *together* — not a
  feasible schedule, evaluated by 002's formula.
* align: there, every batch's length rounded up to a power of two and its start aligned to a
  multiple of it (a feasible, later schedule, so ``group <= align`` by construction); here (002),
  the outputs of each group's *terminal batch* replaced by their average (``align <= group``).
* Optimal_align: there, the best aligned batched schedule over all partitions (a DP, ``>= OPT``);
  here (002), one optimal schedule cut into temporal groups ``Z_g`` and greedy batches ``W_h`` with
  averaged outputs (can be below OPT).
* the bridge: there, a step "not among 002's theorems"; in 002 it is Theorem 8.
* 002's chain also has Lemma 2 / (EC.3), Definition 1 and Inequalities (2), (3), checked here.

Keys of :func:`chain_values`
----------------------------

``tel_*`` the objects' TELs (``tel_separate`` by the checker, ``tel_separate_paper`` by the formula
the proof of Theorem 5 writes, the others by 002's formulas); ``thm{3..8}_ratio`` and ``*_holds``
the links with the paper's constants (:data:`CLAIMS`); ``thm4_starts_dominated`` the proof's
``p_{k,j} <= p'_{k,j}``; ``lemma1_holds``, ``lemma2_holds``, ``lemma2_sum_le_4``, ``ec3_holds``;
``thm5_terminal_blocked`` (each non-final terminal batch plus ``r_{b_m+1,1}`` violates the
constraint: the finite content of "nearly saturates"); ``def1_terminal_fill_min`` and
``ineq2_eta_min`` / ``ineq2_holds`` (Definition 1 and Inequality (2) *without* the ``epsilon(M)``
slack: on small ``M`` they fail routinely, which says nothing about the asymptotic claim);
``eq3_W_fill_min`` (Inequality (3), same caveat); ``eps`` (:func:`finite_epsilon`) and
``def1_eps_holds``, ``ineq2_eps_holds``, ``eq3_eps_holds`` (the three with ``epsilon(M) = eps``);
``lemma2_worst`` and ``group_size_max`` (:func:`lemma2_checks`); Theorem 7's steps: ``thm7_window_holds``
(window of ``Z_g`` shorter than ``delta_{g-1} + delta_g``), ``thm7_group_sum_le_3delta`` (the
display's ``sum_{h in g} obar_h <= 3 (delta_{g-1} + delta_g)``), ``thm7_dropped_within_group``
(the within-group term the display sets to ``epsilon``), ``thm7_last_step_holds`` (the display's
second-to-last ``<=``), ``thm7_final_expr`` / ``thm7_final_identity_holds`` (its last ``=``, with
``t_g`` as printed) and ``thm7_identity_with_T_holds`` (the same with ``t_g = T_{g-1}``).

Reading choices: Sorted-F uses Phase-1 selector ``"exact"`` (Algorithm 1 line 4's argmin, ties to
the larger ``|X|``) with the peak constraint ``sum (s + o) <= M`` that the proof and Definition 1
use, and Phase 2 of :func:`kvlib.policies.wyz.sorted_f`.  Optimal is one optimal schedule
(``kvlib.optimum.bruteforce.brute_force_opt``, deterministic); Theorem 7's objects depend on which
optimal schedule is taken, and the theorem is stated for "the" optimal schedule.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np
import sympy as sp

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.policies.wyz import F_exact, batch_feasible, lemma1_holds, sorted_f

__all__ = ["sf_run", "separate_starts", "separate_tel_paper", "groups", "group_tel", "align_tel",
           "lemma2_checks", "temporal_groups", "optimal_align", "finite_epsilon", "sorted_f_side", "chain_values",
           "chain_row", "spread_instance",
           "random_instance", "sympy_identities", "CLAIMS"]

#: The links of the proof of Theorem 3 as claimed: (key of the ratio in the row, relation, constant).
CLAIMS = (
    ("thm4_ratio", "<=", 1),   # TEL(SF) <= TEL(separate)
    ("thm5_ratio", "<", 4),    # TEL(separate) < 4 TEL(group)
    ("thm6_ratio", "<", 2),    # TEL(group) < 2 TEL(align)
    ("thm8_ratio", "<=", 1),   # TEL(align) <= TEL(Optimal_align)
    ("thm7_ratio", "<=", 6),   # TEL(Optimal_align) <= 6 TEL(Optimal)
    ("thm3_ratio", "<", 48),   # TEL(SF) < 48 TEL(Optimal)
)


def _arrays(batches, output):
    o = np.asarray(output, dtype=np.int64)
    bl = [np.asarray(b, dtype=np.int64) for b in batches]
    if not bl or any(len(b) == 0 for b in bl):
        raise ValueError("batches: need a non-empty list of non-empty batches")
    ids = np.concatenate(bl)
    if sorted(ids.tolist()) != list(range(len(o))):
        raise ValueError("batches: must partition the requests 0..n-1")
    for k, b in enumerate(bl):
        if np.any(np.diff(o[b]) < 0):
            raise ValueError(f"batches: batch {k + 1} is not sorted by increasing output")
    return bl, o


def sf_run(instance: Instance, selector: str = "exact", constraint: str = "peak"):
    """Sorted-F (002 Algorithm 1) on ``instance``: ``(TEL, starts, Phase-1 batches)``."""
    if np.any(instance.arrival != 0):
        raise ValueError("002's model (Section 2): every request arrives at t = 0")
    pol = sorted_f(selector=selector, phase1_constraint=constraint)
    res = simulate(instance, pol)
    return int(res.tel), np.asarray(res.schedule.starts, dtype=np.int64), [np.asarray(b) for b in pol.batches]


def separate_starts(batches, output) -> np.ndarray:
    """Sorted-F_separate (before 002 Theorem 4): batch ``k`` starts at ``sum_{l<k} o_{l,n_l}``."""
    bl, o = _arrays(batches, output)
    p = np.zeros(len(o), dtype=np.int64)
    t = 0
    for b in bl:
        p[b] = t
        t += int(o[b].max())
    return p


def groups(batches, output) -> list[list[int]]:
    """002 Theorem 5's groups as lists of 0-based batch indices (``Y_m``; the last index is ``b_m - 1``).

    ``b_m`` is the smallest ``k > b_{m-1}`` with ``(S_k + o_{k+1,1}) / (n_k+1)^2 <= S_k / n_k^2``
    (exact rational arithmetic); the last group ends with the last batch.
    """
    bl, o = _arrays(batches, output)
    out, cur = [], []
    for k, b in enumerate(bl):
        cur.append(k)
        if k + 1 == len(bl):
            out.append(cur)
            break
        S, n = int(o[b].sum()), len(b)
        nxt = int(o[bl[k + 1]][0])
        if Fraction(S + nxt, (n + 1) ** 2) <= Fraction(S, n * n):
            out.append(cur)
            cur = []
    return out


def _later_counts(sizes: Sequence[int]) -> list[int]:
    tot, out = sum(sizes), []
    for x in sizes:
        tot -= x
        out.append(tot)
    return out


def separate_tel_paper(batches, output) -> int:
    """The formula the proof of 002 Theorem 5 writes for TEL(Sorted-F_separate) (its display's last line):
    ``sum_m [sum_{l in Y_m} o_{l,n_l} N_{>b_m} + sum_{l in Y_m, l < b_m} o_{l,n_l} (b_m - l)] + sum o``."""
    bl, o = _arrays(batches, output)
    later = _later_counts([len(b) for b in bl])
    tot = int(o.sum())
    for g in groups(bl, o):
        last = g[-1]
        for l in g:
            tot += int(o[bl[l]].max()) * later[last]
            if l < last:
                tot += int(o[bl[l]].max()) * (last - l)
    return tot


def group_tel(batches, output) -> int:
    """TEL(Sorted-F_group) by 002's formula (proof of Theorem 5): ``sum_m o_{b_m,n_{b_m}} N_{>b_m} + sum o``.

    Not a feasible schedule (all batches of a group start together); never passed to the checker.
    """
    bl, o = _arrays(batches, output)
    later = _later_counts([len(b) for b in bl])
    return int(o.sum()) + sum(int(o[bl[g[-1]]].max()) * later[g[-1]] for g in groups(bl, o))


def align_tel(batches, output) -> Fraction:
    """TEL(Sorted-F_align) by 002's formula (proof of Theorem 6): ``sum_m obar_{b_m} N_{>b_m} + sum o``.

    Outputs of terminal batches replaced by their average: not a schedule of the instance; exact rational.
    """
    bl, o = _arrays(batches, output)
    later = _later_counts([len(b) for b in bl])
    return Fraction(int(o.sum())) + sum((Fraction(int(o[bl[g[-1]]].sum()), len(bl[g[-1]])) * later[g[-1]]
                                         for g in groups(bl, o)), Fraction(0))


def lemma2_checks(batches, output) -> dict:
    """002 Lemma 2 and (EC.3) on every group: ``o_{b_{m-1}+i, max} 2^{floor((a_m - i)/2)} <= o_{b_m, max}``,
    the summed bound ``sum_i o_{b_{m-1}+i, max} <= 4 o_{b_m, max}``, and (EC.3) ``o_{k+1,max} > o_{k,max}``
    for every non-terminal batch ``k`` of a group.  ``lemma2_worst`` is the largest
    ``o_{b_{m-1}+i, max} 2^{floor((a_m - i)/2)} / o_{b_m, max}`` (Lemma 2 claims at most 1) over the batches with ``i <= a_m - 2``, where the factor is at least 2 (NaN if no group
    has ``a_m >= 3``); ``group_size_max`` the largest ``a_m``."""
    bl, o = _arrays(batches, output)
    mx = [int(o[b].max()) for b in bl]
    l2 = sum4 = ec3 = True
    worst, a_max = None, 0
    for g in groups(bl, o):
        a, top = len(g), mx[g[-1]]
        a_max = max(a_max, a)
        for i, k in enumerate(g, start=1):
            l2 &= mx[k] * 2 ** ((a - i) // 2) <= top
            if i <= a - 2:  # where the factor 2^{floor((a-i)/2)} is at least 2
                v = Fraction(mx[k] * 2 ** ((a - i) // 2), top)
                worst = v if worst is None else max(worst, v)
        sum4 &= sum(mx[k] for k in g) <= 4 * top
        ec3 &= all(mx[k + 1] > mx[k] for k in g[:-1])
    return {"lemma2_holds": bool(l2), "lemma2_sum_le_4": bool(sum4), "ec3_holds": bool(ec3),
            "lemma2_worst": float(worst) if worst is not None else float("nan"), "group_size_max": int(a_max)}


def temporal_groups(starts, output) -> tuple[list[int], list[list[int]]]:
    """002 Theorem 7's temporal groups of a schedule: ``(delta_1.., [Z_1, Z_2, ..])`` (``Z_g`` lists of ids)."""
    p = np.asarray(starts, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    c = p + o
    deltas, Z, T = [], [], 0
    while T < int(c.max()):
        A = np.flatnonzero((p <= T) & (c > T))
        if len(A) == 0:  # idle at T: the requests started first after T (our reading)
            nxt = int(p[p > T].min())
            A = np.flatnonzero(p == nxt)
        d = int(c[A].max()) - T
        Z.append(np.flatnonzero((c > T) & (c <= T + d)).tolist())
        deltas.append(d)
        T += d
    return deltas, Z


def optimal_align(prompt, output, memory: int, starts) -> dict:
    """002 Theorem 7's transform of the schedule ``starts`` (an optimal one in the theorem).

    Returns the temporal groups (``deltas``, ``Z``), the batches ``W`` (lists of ids, group by
    group), their averages ``obar`` (Fractions), ``group_of_W``, the scaled cutting times ``t_g``,
    and ``tel`` = ``sum_h obar_h N_{>h} + sum o`` (exact; not a schedule of the instance).
    """
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    p = np.asarray(starts, dtype=np.int64)
    deltas, Z = temporal_groups(p, o)
    W, gof = [], []
    for g, z in enumerate(Z):
        rem = sorted(z, key=lambda i: (int(p[i]), i))
        while rem:
            take, mem = [], 0
            for i in rem:
                if mem + int(s[i] + o[i]) > memory:
                    break
                take.append(i)
                mem += int(s[i] + o[i])
            if not take:
                raise ValueError(f"optimal_align: request {rem[0]} does not fit the memory alone")
            W.append(take)
            gof.append(g)
            rem = rem[len(take):]
    obar = [Fraction(int(o[w].sum()), len(w)) for w in W]
    later = _later_counts([len(w) for w in W])
    tel = Fraction(int(o.sum())) + sum((ob * n for ob, n in zip(obar, later)), Fraction(0))
    t_g = [6 * sum(deltas[1:g]) for g in range(len(Z))]  # g is 0-based: t_{g+1} = 6 sum_{j=2}^{g} delta_j
    return {"deltas": deltas, "Z": Z, "W": W, "obar": obar, "group_of_W": gof, "t": t_g, "tel": tel}


def _cmp(x, rel: str, y) -> bool:
    return bool(x < y) if rel == "<" else bool(x <= y)


def finite_epsilon(prompt, output) -> int:
    """Our finite stand-in for Definition 1's ``epsilon(M)``: the largest request peak ``max_i (s_i + o_i)``.

    Both places where 002 invokes Definition 1 stop a batch because one more request would not fit
    (the terminal batch ``X_{b_m}`` and ``r_{b_m+1,1}``, proof of Theorem 5; a non-final ``W_h`` and the
    next request of its group, proof of Theorem 7), so such a batch fills more than ``M`` minus that
    request's peak, hence more than ``M - finite_epsilon``; 002's regime (Section 2: ``s_i, o_i``
    asymptotically smaller than ``M``) makes it ``o(M)``.
    """
    return int(np.max(np.asarray(prompt, dtype=np.int64) + np.asarray(output, dtype=np.int64)))


def sorted_f_side(instance: Instance, selector: str = "exact", constraint: str = "peak") -> dict:
    """The links of 002 Theorem 3's proof that need no optimum, on ``instance``: a flat dict of scalars.

    Theorem 4 (TEL(SF) <= TEL(separate), by the checker), Theorem 5 (TEL(separate) < 4 TEL(group)),
    Theorem 6 (TEL(group) < 2 TEL(align)), Lemma 1, Lemma 2 and (EC.3), Definition 1 for the terminal
    batches and Inequality (2), each both without slack and with :func:`finite_epsilon` as
    ``epsilon(M)`` (keys ``*_eps_holds``).  Cheap at the Table EC.1 size (``n = 100``, ``M = 100``).
    """
    row, _, _ = _side(instance, selector, constraint)
    return row


def _side(instance: Instance, selector: str, constraint: str):
    """(row of :func:`sorted_f_side`, Phase-1 batches, TEL(align) as a Fraction)."""
    s, o, M = instance.prompt, instance.output, int(instance.memory)
    tel_sf, p_sf, bl = sf_run(instance, selector, constraint)
    p_sep = separate_starts(bl, o)
    rep_sep = check_schedule(instance, Schedule(tuple(int(x) for x in p_sep)))
    if not rep_sep.valid:  # only with a selector that returns batches over M
        raise ValueError(f"chain_values: Sorted-F_separate is infeasible: {rep_sep.violations[:3]}")
    tel_sep = int(rep_sep.tel)
    tel_sep_paper = separate_tel_paper(bl, o)
    gr = groups(bl, o)
    tel_grp = group_tel(bl, o)
    tel_al = align_tel(bl, o)
    eps = finite_epsilon(s, o)
    # Definition 1 / Inequality (2): fill of the terminal batches of all groups but the last.
    fills = [int((s[bl[g[-1]]] + o[bl[g[-1]]]).sum()) for g in gr[:-1]]
    eta = [Fraction(sum(int((2 * s[bl[k]] + o[bl[k]]).sum()) for k in g), 2 * M) for g in gr[:-1]]
    blocked = all(not batch_feasible(s[np.append(bl[g[-1]], bl[g[-1] + 1][0])],
                                     o[np.append(bl[g[-1]], bl[g[-1] + 1][0])], M, constraint) for g in gr[:-1])
    r = {
        "n": int(instance.n), "M": M, "K": len(bl), "groups": len(gr), "eps": eps,
        "tel_sf": tel_sf, "tel_separate": tel_sep, "tel_separate_paper": tel_sep_paper, "tel_group": tel_grp,
        "tel_align": float(tel_al),
        "thm4_ratio": tel_sf / tel_sep, "thm4_starts_dominated": bool(np.all(p_sf <= p_sep)),
        "lemma1_holds": all(lemma1_holds(o[b]) for b in bl),
        "thm5_terminal_blocked": bool(blocked),
        "def1_terminal_fill_min": float(Fraction(min(fills), M)) if fills else float("nan"),
        "def1_eps_holds": all(f > M - eps for f in fills),
        "ineq2_eta_min": float(min(eta)) if eta else float("nan"),
        "ineq2_holds": all(e > Fraction(1, 2) for e in eta),
        "ineq2_eps_holds": all(e > Fraction(M - eps, 2 * M) for e in eta),
        **lemma2_checks(bl, o),
        "thm5_separate_formula_exact": tel_sep == tel_sep_paper,
        "thm5_ratio": tel_sep / tel_grp, "thm5_ratio_paper_formula": tel_sep_paper / tel_grp,
        "thm6_ratio": float(tel_grp / tel_al),
    }
    exact = {"thm4_ratio": Fraction(tel_sf, tel_sep), "thm5_ratio": Fraction(tel_sep, tel_grp),
             "thm6_ratio": Fraction(tel_grp) / tel_al}
    for key, rel, const in CLAIMS:
        if key in exact:
            r[key.replace("_ratio", "_holds")] = _cmp(exact[key], rel, const)
    r["thm5_holds_paper_formula"] = Fraction(tel_sep_paper, tel_grp) < 4
    return r, bl, tel_al


def chain_values(instance: Instance, opt_starts=None, selector: str = "exact", constraint: str = "peak") -> dict:
    """Every link of 002 Theorem 3's proof on ``instance``: a flat dict of scalars (see the module text).

    ``opt_starts``: an optimal schedule (start times); default: ``brute_force_opt`` (small ``n``).
    Ratios are floats of exact rationals; ``*_holds`` are the claims with the paper's constants.
    The keys of :func:`sorted_f_side` plus the optimum's side (Theorems 7, 8, 3 and Inequality (3)).
    """
    s, o, M = instance.prompt, instance.output, int(instance.memory)
    r, bl, tel_al = _side(instance, selector, constraint)
    tel_sf = r["tel_sf"]
    if opt_starts is None:
        from kvlib.optimum.bruteforce import brute_force_opt
        _, opt_starts, _ = brute_force_opt(instance)
    rep = check_schedule(instance, Schedule(tuple(int(x) for x in opt_starts)))
    if not rep.valid:
        raise ValueError(f"chain_values: opt_starts is not a feasible schedule: {rep.violations[:3]}")
    tel_opt = int(rep.tel)
    p_opt = np.asarray(opt_starts, dtype=np.int64)
    oa = optimal_align(s, o, M, p_opt)
    tel_oa = oa["tel"]

    # Theorem 7's intermediate claims, group by group (delta_0 = 0).
    d, Z, W, obar, gof = oa["deltas"], oa["Z"], oa["W"], oa["obar"], oa["group_of_W"]
    window_ok = per_group_3 = True
    for g, z in enumerate(Z):
        lo = d[g - 1] if g else 0
        win = max(int(p_opt[i] + o[i]) for i in z) - min(int(p_opt[i]) for i in z)
        window_ok &= win < lo + d[g] if g else win <= d[g]
        per_group_3 &= sum((obar[h] for h in range(len(W)) if gof[h] == g), Fraction(0)) <= 3 * (lo + d[g])
    nZ = [len(z) for z in Z]
    later_Z = _later_counts(nZ)
    dN = sum(d[g] * later_Z[g] for g in range(len(Z)))
    e7 = dN + sum(int(p_opt[i]) - oa["t"][g] for g, z in enumerate(Z) for i in z) + int(o.sum())
    T_prev = [sum(d[:g]) for g in range(len(Z))]
    e7_T = dN + sum(int(p_opt[i]) - T_prev[g] for g, z in enumerate(Z) for i in z) + int(o.sum())
    w_fill = [int((s[w] + o[w]).sum()) for h, w in enumerate(W)
              if h + 1 < len(W) and gof[h + 1] == gof[h]]  # non-final batches of a group
    w_eta = [Fraction(int((2 * s[w] + o[w]).sum()), 2 * M) for h, w in enumerate(W)
             if h + 1 < len(W) and gof[h + 1] == gof[h]]
    later_W = _later_counts([len(w) for w in W])
    dropped = sum((obar[h] * (later_W[h] - later_Z[gof[h]]) for h in range(len(W))), Fraction(0))
    eps = r["eps"]

    r.update({
        "temporal_groups": len(Z), "W": len(W), "tel_opt_align": float(tel_oa), "tel_opt": tel_opt,
        "thm7_ratio": float(tel_oa / tel_opt),
        "thm7_window_holds": bool(window_ok), "thm7_group_sum_le_3delta": bool(per_group_3),
        "thm7_dropped_within_group": float(dropped),
        "eq3_W_fill_min": float(Fraction(min(w_fill), M)) if w_fill else float("nan"),
        "eq3_eps_holds": all(f > M - eps for f in w_fill) and all(e > Fraction(M - eps, 2 * M) for e in w_eta),
        "thm7_final_expr": float(e7), "thm7_final_identity_holds": bool(e7 == tel_opt),
        "thm7_last_step_holds": bool(6 * dN + int(o.sum()) <= 6 * e7),
        "thm7_identity_with_T_holds": bool(e7_T == tel_opt),
        "thm8_ratio": float(tel_al / tel_oa),
        "thm3_ratio": tel_sf / tel_opt,
    })
    exact = {"thm8_ratio": tel_al / tel_oa, "thm7_ratio": tel_oa / tel_opt, "thm3_ratio": Fraction(tel_sf, tel_opt)}
    for key, rel, const in CLAIMS:
        if key in exact:
            r[key.replace("_ratio", "_holds")] = _cmp(exact[key], rel, const)
    return r


def random_instance(*, seed: int, trial: int, n: int, memory: int, max_prompt: int = 6,
                    max_output: int = 6) -> Instance:
    """A seeded instance of the random family: ``s ~ U{1..max_prompt}``, ``o ~ U{1..max_output}``, all at 0."""
    if n < 1 or memory < max_prompt + max_output:
        raise ValueError(f"random_instance: need n >= 1 and memory >= max_prompt + max_output, got n={n}, "
                         f"memory={memory}")
    rng = np.random.default_rng([seed, trial, n, memory])
    return Instance.at_zero(rng.integers(1, max_prompt + 1, n).tolist(), rng.integers(1, max_output + 1, n).tolist(),
                            memory)


def spread_instance(*, seed: int, trial: int, n: int = 12, memory: int = 400) -> Instance:
    """A seeded instance with long groups (our family for Lemma 2): ``s`` and ``o`` log-uniform on
    ``[1, memory/2]``, rounded, all at 0.  Outputs spread over two decades make consecutive Phase-1
    batches more than double their outputs, so 002's groups hold three or more batches (where Lemma 2
    says more than (EC.3)); the Table EC.1 distributions rarely give groups of more than two."""
    if n < 1 or memory < 4:
        raise ValueError(f"spread_instance: need n >= 1 and memory >= 4, got n={n}, memory={memory}")
    rng = np.random.default_rng([seed, 12, trial, n, memory])
    hi = np.log(memory / 2)
    return Instance.at_zero(np.round(np.exp(rng.uniform(0, hi, n))).astype(np.int64).tolist(),
                            np.round(np.exp(rng.uniform(0, hi, n))).astype(np.int64).tolist(), memory)


def chain_row(*, seed: int, trial: int, n: int, memory: int, max_prompt: int = 6, max_output: int = 6) -> dict:
    """Row function (results store): :func:`chain_values` on :func:`random_instance`, plus the instance."""
    inst = random_instance(seed=seed, trial=trial, n=n, memory=memory, max_prompt=max_prompt, max_output=max_output)
    row = chain_values(inst)
    row["s"] = " ".join(str(int(x)) for x in inst.prompt)
    row["o"] = " ".join(str(int(x)) for x in inst.output)
    return row


def sympy_identities() -> dict:
    """The constant arithmetic of 002 Section 4 and Appendix EC.2 in SymPy: ``{name: bool}`` (all should be
    True except the entries named ``*_as_printed``, which record what the paper's display says)."""
    n, S, Q, q, om, o1 = sp.symbols("n S Q q o_max o1", positive=True)
    a = sp.symbols("a", integer=True, positive=True)
    i, j = sp.symbols("i j", integer=True, positive=True)
    out = {}
    # Theorem 3: the constants multiply to 48.
    out["product_is_48"] = sp.Integer(1) * 4 * 2 * 1 * 6 == 48
    # Lemma 1: (S - om)/(n-1)^2 >= S/n^2  <=>  S/n >= n/(2n-1) om   (n >= 2), and n/(2n-1) > 1/2.
    lhs = sp.expand((S - om) * n**2 - S * (n - 1) ** 2)
    out["lemma1_rearrangement"] = sp.simplify(lhs - ((2 * n - 1) * S - n**2 * om)) == 0
    out["lemma1_constant_gt_half"] = sp.simplify(n / (2 * n - 1) - sp.Rational(1, 2) - 1 / (2 * (2 * n - 1))) == 0
    # (EC.1): (S+Q)/(n+q)^2 > S/n^2  <=>  Q/q > (2 + q/n) S/n.
    out["ec1_rearrangement"] = sp.simplify(((S + Q) * n**2 - S * (n + q) ** 2) / (q * n**2)
                                           - (Q / q - (2 + q / n) * S / n)) == 0
    # Theorem 5's group rule: (S + o1)/(n+1)^2 <= S/n^2  <=>  o1 <= (2 + 1/n) S/n.
    out["group_rule_rearrangement"] = sp.simplify(((S + o1) * n**2 - S * (n + 1) ** 2) / n**2
                                                  - (o1 - (2 + 1 / n) * S / n)) == 0
    # Lemma 2's series: sum_{i=1}^{a} 2^{-floor((a-i)/2)} = 4 - 2^{2-k} (a = 2k), 4 - 3 2^{-k} (a = 2k+1): < 4.
    k = sp.symbols("k", integer=True, nonnegative=True)
    even = sp.summation(2 * sp.Rational(1, 2) ** j, (j, 0, k - 1))
    odd = even + sp.Rational(1, 2) ** k
    out["lemma2_series_even"] = sp.simplify(even - (4 - 2 ** (2 - k))) == 0
    out["lemma2_series_odd"] = sp.simplify(odd - (4 - 3 * 2 ** (-k))) == 0
    series = lambda aa: sum(sp.Rational(1, 2) ** ((aa - ii) // 2) for ii in range(1, aa + 1))
    middle = lambda aa: 2 * (1 - sp.Rational(1, 2) ** ((aa - 1) // 2)) / (1 - sp.Rational(1, 2))
    out["lemma2_series_below_4"] = all(series(aa) < 4 for aa in range(1, 40))
    # The middle line in closed form: 4 - 2^{3-k} (a = 2k) and 4 - 4 2^{-k} (a = 2k + 1), so the sum exceeds
    # it by exactly 2^{2-k} (a = 2k, k >= 1) and 2^{-k} (a = 2k + 1): the middle "<=" fails for every a >= 1.
    mid_even = 2 * (1 - sp.Rational(1, 2) ** (k - 1)) / (1 - sp.Rational(1, 2))
    mid_odd = 2 * (1 - sp.Rational(1, 2) ** k) / (1 - sp.Rational(1, 2))
    out["lemma2_middle_gap_even"] = sp.simplify((even - mid_even) - 2 ** (2 - k)) == 0
    out["lemma2_middle_gap_odd"] = sp.simplify((odd - mid_odd) - 2 ** (-k)) == 0
    out["lemma2_middle_gap_matches_series"] = all(
        series(aa) - middle(aa) == (sp.Integer(2) ** (2 - aa // 2) if aa % 2 == 0 else sp.Integer(2) ** (-(aa // 2)))
        for aa in range(1, 40))
    # The display's middle line (2 (1 - (1/2)^{floor((a-1)/2)}) / (1 - 1/2)) is below the sum it should bound:
    out["lemma2_middle_line_as_printed_bounds_sum"] = all(series(aa) <= middle(aa) for aa in range(1, 40))
    # Theorem 7's reindexing: sum_g (delta_{g-1} + delta_g) N_g <= 2 sum_g delta_g N_g for N non-increasing.
    d1, d2, d3, N1, N2, N3 = sp.symbols("d1 d2 d3 N1 N2 N3", nonnegative=True)
    diff = 2 * (d1 * N1 + d2 * N2 + d3 * N3) - ((d1) * N1 + (d1 + d2) * N2 + (d2 + d3) * N3)
    out["thm7_reindex_identity"] = sp.expand(diff - (d1 * (N1 - N2) + d2 * (N2 - N3) + d3 * N3)) == 0
    return out
