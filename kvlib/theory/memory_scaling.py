"""003's memory-preserving technique for A_max (Appendix EC.1 and EC.3 of Chen, Ye and Zhou).

003 bounds A_max's competitive ratio (Theorem 1) through an auxiliary hindsight policy A_random
(Algorithm 4, :class:`kvlib.policies.cyz.ARandom`) and three statements:

* Definitions EC.1 (two schedules *preserve the corresponding order*; one is *delayed* relative
  to the other) and EC.2 (*optimally packed*): :func:`corresponding_order`, :func:`delayed`,
  :func:`optimally_packed`.  Batch ``I_k`` of a schedule is the set of requests started at
  ``t = k`` (all requests arrive at 0), so a schedule is read through its start times.
* Proposition EC.1 (latency scaling under reduced memory): for two optimally packed schedules
  preserving the corresponding order, under ``M`` and ``beta M``, the TEL under ``beta M`` is at
  most ``1/beta`` times the other.  :func:`proposition_ec1_example` evaluates the three-request
  counterexample of ``book/errata.md`` (anchor ``errata-003-proposition-ec1``), and
  :func:`coupling_row` evaluates the inequality on the permutation coupling (Definition EC.3) of
  A_random under ``M`` and ``beta M``, the use that eq. (EC.7) makes of it.
* Lemma EC.1 (eq. (EC.8)): ``E[TEL(A_max)] <= E[TEL(A_random(alpha M))]`` with ``alpha = l/u``,
  proved through Definition EC.4's coupling (the same permutation for A_max under ``M`` and
  A_random under ``alpha M``) by the claim that every request starts no later under A_max.
  :func:`lemma_ec1_coupling` enumerates all ``n!`` permutations of one instance exactly;
  :func:`lemma_ec1_sweep` does so over every instance of a small grid.
* Theorem EC.1: eq. (EC.5) (the worst case of any policy lies on ``{l, u}^n``) and eq. (EC.6)
  (``CR(A_random) <= (1 + 1/alpha)/2 + O(1/M)``).  :func:`theorem_ec1_part1` evaluates exact
  expected TELs on three requests (A_max, and A_random over all ``3!`` permutations);
  :func:`ec6_proof_maximum` is the maximisation that closes the proof of eq. (EC.6) (SymPy);
  :func:`a_random_two_point_row` simulates A_random on two-point instances.

Every schedule is validated by the independent checker (:func:`kvlib.core.checker.check_schedule`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Sequence

import numpy as np
import sympy as sp

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.policies.cyz import AMax, ARandom, interval_instance, run_interval

__all__ = [
    "corresponding_order",
    "delayed",
    "feasible",
    "optimally_packed",
    "checked_run",
    "proposition_ec1_example",
    "coupling_row",
    "coupled_expectations",
    "lemma_ec1_coupling",
    "lemma_ec1_sweep",
    "lemma_ec1_summary",
    "theorem_ec1_part1",
    "ec6_bound",
    "ec6_proof_maximum",
    "a_random_two_point_row",
    "coupling_keys",
    "two_point_keys",
]


def _starts(starts) -> list[int]:
    out = [int(p) for p in starts]
    if any(p < 0 for p in out):
        raise ValueError(f"start times must be >= 0, got {out}")
    return out


def corresponding_order(starts_a, starts_b) -> bool:
    """003 Definition EC.1: for every two requests with batches ``i, j`` in one schedule and
    ``i', j'`` in the other, ``(i - j)(i' - j') >= 0``."""
    a, b = _starts(starts_a), _starts(starts_b)
    if len(a) != len(b):
        raise ValueError(f"the two schedules list {len(a)} and {len(b)} requests")
    return all((a[x] - a[y]) * (b[x] - b[y]) >= 0 for x in range(len(a)) for y in range(x + 1, len(a)))


def delayed(starts_a, starts_b) -> bool:
    """003 Definition EC.1: ``b`` is delayed relative to ``a`` (every request starts no earlier in ``b``)."""
    a, b = _starts(starts_a), _starts(starts_b)
    if len(a) != len(b):
        raise ValueError(f"the two schedules list {len(a)} and {len(b)} requests")
    return all(p <= q for p, q in zip(a, b))


def feasible(instance: Instance, starts) -> bool:
    """Whether non-preemptive start times pass the independent checker on ``instance``."""
    return check_schedule(instance, Schedule(tuple(_starts(starts)))).valid


def optimally_packed(instance: Instance, starts) -> bool:
    """003 Definition EC.2: no request can be moved into any batch ``k`` with ``j <= k < i``, where
    ``i`` is its own batch and ``j`` the latest non-empty batch before ``i`` (0 if none), without
    exceeding the memory limit (feasibility by the independent checker).

    Reading: "most recent time before ``i`` such that ``I_j`` is non-empty" is taken over the whole
    schedule; a request of batch 0 has nothing to check."""
    starts = _starts(starts)
    for r, p in enumerate(starts):
        earlier = [q for q in starts if q < p]
        lo = max(earlier) if earlier else 0
        for k in range(lo, p):
            moved = list(starts)
            moved[r] = k
            if feasible(instance, moved):
                return False
    return True


def checked_run(instance: Instance, policy, lower, upper, seed: int = 0):
    """Run an interval policy and validate its schedule with the independent checker; returns
    ``(tel, starts)`` (a rejected schedule or a TEL the checker disagrees with raises)."""
    res = run_interval(instance, policy, lower, upper, seed=seed)
    rep = check_schedule(instance, res.schedule, allow_cancellation=True)
    if not (rep.valid and rep.tel == res.tel):
        raise AssertionError(f"policy {policy!r}: schedule rejected or TEL {res.tel} != checker's {rep.tel}: "
                             f"{rep.violations[:3]}")
    return int(res.tel), [int(p) for p in res.schedule.starts]


# --------------------------------------------------------------------------- Proposition EC.1


def proposition_ec1_example() -> dict:
    """The three-request instance of ``errata-003-proposition-ec1``: ``s = 1``, ``o = (1, 1, 2)``,
    all at 0; ``I`` starts all three at 0 under ``M = 6``; ``I'`` under ``beta M = 3`` starts the
    ``o = 2`` request at 0 and the others at 2 and 3 (A_random's schedule for the permutation
    ``(2, 0, 1)``, recomputed here).  Returns the TELs, ``1/beta`` and the checks of both
    definitions."""
    o = (1, 1, 2)
    big, small = interval_instance(list(o), 6, 1), interval_instance(list(o), 3, 1)
    I = (0, 0, 0)
    tel_small, I2 = checked_run(small, ARandom(permutation=(2, 0, 1)), 1, 2)
    tel_big = checked_run(big, ARandom(permutation=(2, 0, 1)), 1, 2)
    if tuple(tel_big[1]) != I:
        raise AssertionError(f"A_random under M = 6 should start all three at 0, got {tel_big[1]}")
    return dict(
        o=o, s=1, M=6, beta=Fraction(1, 2), starts_M=I, starts_betaM=tuple(I2),
        tel_M=tel_big[0], tel_betaM=tel_small,
        feasible=feasible(big, I) and feasible(small, I2),
        packed=optimally_packed(big, I) and optimally_packed(small, I2),
        same_order=corresponding_order(I, I2),
        holds=Fraction(tel_small) <= 2 * tel_big[0],
    )


def coupling_row(*, n: int, l: int, u: int, s: int, M: int, beta: float, perms: int, seed: int) -> dict:
    """Eq. (EC.7)'s use of Proposition EC.1 on one random instance: A_random under ``M`` and under
    ``floor(beta M)`` with the *same* permutation (003 Definition EC.3), for ``perms`` permutations.

    The lengths are ``default_rng([seed, n, M, u]).integers(l, u + 1, n)``; permutation ``k`` is
    ``default_rng([seed, n, M, u, k]).permutation(n)``.  Returns the mean TELs, the largest
    ``TEL(beta M) / TEL(M)`` and the number of permutations whose pair violates the proposition's
    inequality ``TEL(beta M) <= TEL(M) / beta`` (``violations``), and how many of those violating
    pairs are both optimally packed and in corresponding order (``violations_meeting_hypotheses``,
    the ones that contradict the proposition as stated)."""
    if not 0 < beta < 1:
        raise ValueError(f"beta must lie in (0, 1), got {beta}")
    small_M = int(np.floor(beta * M))
    o = np.random.default_rng([seed, n, M, u]).integers(l, u + 1, n)
    if small_M < s + u:
        raise ValueError(f"floor(beta M) = {small_M} cannot hold one request of length u = {u} with s = {s}")
    big, small = interval_instance(o, M, s), interval_instance(o, small_M, s)
    b_eff = Fraction(small_M, M)
    tels, tels2, worst, viol, viol_hyp = [], [], 0.0, 0, 0
    for k in range(perms):
        perm = np.random.default_rng([seed, n, M, u, k]).permutation(n)
        t1, st1 = checked_run(big, ARandom(permutation=perm), l, u)
        t2, st2 = checked_run(small, ARandom(permutation=perm), l, u)
        tels.append(t1), tels2.append(t2)
        worst = max(worst, t2 / t1)
        if Fraction(t2) > Fraction(t1) / b_eff:
            viol += 1
            if corresponding_order(st1, st2) and optimally_packed(big, st1) and optimally_packed(small, st2):
                viol_hyp += 1
    return dict(small_M=small_M, beta_eff=float(b_eff), tel_M=float(np.mean(tels)), tel_betaM=float(np.mean(tels2)),
                mean_ratio=float(np.mean(tels2) / np.mean(tels)), max_ratio=worst, inv_beta=float(1 / b_eff),
                violations=viol, violations_meeting_hypotheses=viol_hyp)


def coupled_expectations(o: Sequence[int], s: int, M: int, small_M: int, l: int, u: int) -> dict:
    """Eq. (EC.7) exactly: the expected TELs of A_random under ``M`` and under ``small_M`` over all
    ``n!`` permutations of the same instance (``o``, prompt ``s``, all at 0), as :class:`Fraction`
    values, their quotient and ``M / small_M`` (the inequality asks quotient <= ``M / small_M``)."""
    n = len(o)
    if n > 7:
        raise ValueError(f"exact enumeration of {n}! permutations is too large; use n <= 7")
    big, small = interval_instance(list(o), M, s), interval_instance(list(o), small_M, s)
    perms = list(itertools.permutations(range(n)))
    e_big = Fraction(sum(checked_run(big, ARandom(permutation=p), l, u)[0] for p in perms), len(perms))
    e_small = Fraction(sum(checked_run(small, ARandom(permutation=p), l, u)[0] for p in perms), len(perms))
    return dict(o=tuple(int(v) for v in o), s=s, M=M, small_M=small_M, E_tel_M=e_big, E_tel_small=e_small,
                quotient=e_small / e_big, bound=Fraction(M, small_M),
                holds=e_small / e_big <= Fraction(M, small_M))


# --------------------------------------------------------------------------- Lemma EC.1


def lemma_ec1_coupling(o: Sequence[int], s: int, M: int, l: int, u: int) -> dict:
    """003 Lemma EC.1 and its proof exactly on one instance (``o``, prompt ``s``, all at 0).

    For every permutation ``sigma`` of the ``n`` requests (Definition EC.4): A_max (Algorithm 1,
    every length taken as ``u``, :class:`kvlib.policies.cyz.AMax` with ``permutation=sigma``) under
    ``M``, and A_random (Algorithm 4, true lengths, ``permutation=sigma``) under ``alpha M`` with
    ``alpha = l/u``.  The lemma prints ``alpha = l/n``; we read ``l/u``, the ``alpha`` of
    Theorem 1 and eq. (EC.7), which the lemma's proof uses.  ``alpha M`` must be an integer
    holding one request of length ``u``.  Both schedules pass the independent checker.

    Returns exact expectations (:class:`Fraction`, uniform over the ``n!`` permutations), whether
    eq. (EC.8) holds, the number of permutations where A_max's TEL exceeds A_random's
    (``tel_worse``: the proof's per-realisation inequality fails) and where some request starts
    later under A_max (``start_later``: the proof's "earlier or equal start times" fails), and the
    first permutation of each kind (``None`` if none)."""
    n = len(o)
    if n > 7:
        raise ValueError(f"exact enumeration of {n}! permutations is too large; use n <= 7")
    if not 0 < l < u:
        raise ValueError(f"need 0 < l < u, got l = {l}, u = {u}")
    if any(not l <= int(v) <= u for v in o):
        raise ValueError(f"every output must lie in [l, u] = [{l}, {u}], got o = {tuple(o)}")
    small = Fraction(M * l, u)
    if small.denominator != 1 or small < s + u:
        raise ValueError(f"alpha M = {M}*{l}/{u} = {small} must be an integer >= s + u = {s + u}")
    small_M = int(small)
    z = s == 0
    big = interval_instance(list(o), M, s, allow_zero_prompt=z)
    little = interval_instance(list(o), small_M, s, allow_zero_prompt=z)
    tm, tr, worse, later = [], [], [], []
    for perm in itertools.permutations(range(n)):
        t1, st1 = checked_run(big, AMax(permutation=perm), l, u)
        t2, st2 = checked_run(little, ARandom(permutation=perm), l, u)
        tm.append(t1), tr.append(t2)
        if t1 > t2:
            worse.append((perm, t1, t2))
        if not delayed(st1, st2):
            later.append((perm, tuple(st1), tuple(st2)))
    e_max, e_rand = Fraction(sum(tm), len(tm)), Fraction(sum(tr), len(tr))
    return dict(o=tuple(int(v) for v in o), s=s, M=M, small_M=small_M, perms=len(tm), E_tel_max=e_max,
                E_tel_random=e_rand, holds=e_max <= e_rand, tel_worse=len(worse), start_later=len(later),
                first_worse=worse[0] if worse else None, first_later=later[0] if later else None)


def lemma_ec1_sweep(n: int, l: int, u: int, s: int, M: int) -> list[dict]:
    """:func:`lemma_ec1_coupling` on every sorted ``o`` in ``{l, ..., u}^n`` (the order of ``o``
    does not matter: all ``n!`` permutations are enumerated)."""
    return [lemma_ec1_coupling(o, s, M, l, u)
            for o in itertools.combinations_with_replacement(range(l, u + 1), n)]


def lemma_ec1_summary(grid) -> list[dict]:
    """One row per ``(n, l, u, s, M)`` of ``grid``: :func:`lemma_ec1_sweep`'s instances, permutations
    (pairs), instances where eq. (EC.8) holds, pairs where the per-permutation TEL or start-time
    claim of the proof fails, and the largest ``E[TEL(A_max)] / E[TEL(A_random(alpha M))]``."""
    out = []
    for n, l, u, s, M in grid:
        rows = lemma_ec1_sweep(n, l, u, s, M)
        out.append(dict(n=n, l=l, u=u, s=s, M=M, alpha_M=rows[0]["small_M"], instances=len(rows),
                        pairs=sum(r["perms"] for r in rows), ec8_holds=sum(r["holds"] for r in rows),
                        tel_worse=sum(r["tel_worse"] for r in rows), start_later=sum(r["start_later"] for r in rows),
                        max_quotient=max(r["E_tel_max"] / r["E_tel_random"] for r in rows)))
    return out


# --------------------------------------------------------------------------- Theorem EC.1


def _exact_expected_tel(instance: Instance, policy: str, l: int, u: int) -> Fraction:
    n = instance.n
    if policy == "a-random":  # exact: the mean over all n! permutations
        tels = [checked_run(instance, ARandom(permutation=p), l, u)[0] for p in itertools.permutations(range(n))]
        return Fraction(sum(tels), len(tels))
    if policy == "a-max":
        # A_max takes every length as u; with M < 2(s + u) it runs one request at a time in a uniformly
        # random order, so E[TEL] = sum over positions of the expected completion time.  We assert
        # the one-at-a-time property on every seed tried and use the closed form
        # E[TEL] = sum_i o_i (n + 1) / 2, i.e. each o_i delays on average (n - 1)/2 others.
        if instance.memory >= 2 * (int(instance.prompt[0]) + u):
            raise ValueError("the A_max closed form needs M < 2 (s + u) (one request at a time)")
        o = [int(v) for v in instance.output]
        for seed in range(3 * n):
            _, st = checked_run(instance, "a-max", l, u, seed=seed)
            runs = sorted(zip(st, o))
            if any(runs[k + 1][0] != runs[k][0] + runs[k][1] for k in range(n - 1)):
                raise AssertionError(f"A_max overlapped two runs on o = {o} (seed {seed})")
        return Fraction(sum(o) * (n + 1), 2)
    raise ValueError(f"policy must be 'a-max' or 'a-random', got {policy!r}")


def theorem_ec1_part1(policy: str, *, l: int = 1, u: int = 3, s: int = 1, M: int = 5, n: int = 3) -> dict:
    """Eq. (EC.5) evaluated exactly on every ``o`` in ``{l, ..., u}^n`` (sorted; all at 0):
    ``E[TEL(o; policy)] / TEL(o; H-SF)`` as a :class:`Fraction`, the supremum over the end-point
    instances ``{l, u}^n`` and over all, and the instances attaining them.  ``policy`` is
    ``"a-max"`` (003 Algorithm 1; closed form, see :func:`_exact_expected_tel`) or ``"a-random"``
    (003 Algorithm 4; mean over all permutations)."""
    ratios = {}
    for o in itertools.combinations_with_replacement(range(l, u + 1), n):
        inst = interval_instance(list(o), M, s)
        hsf = checked_run(inst, "h-sf", l, u)[0]
        ratios[o] = _exact_expected_tel(inst, policy, l, u) / hsf
    ends = {o: r for o, r in ratios.items() if set(o) <= {l, u}}
    best_all = max(ratios, key=ratios.get)
    best_end = max(ends, key=ends.get)
    return dict(ratios=ratios, sup_all=ratios[best_all], argmax_all=best_all, sup_ends=ends[best_end],
                argmax_ends=best_end, holds=ratios[best_all] == ends[best_end])


def ec6_bound(alpha):
    """003 eq. (EC.6)'s leading term ``(1 + 1/alpha)/2``."""
    return (1 + 1 / alpha) / 2


def ec6_proof_maximum(s=0):
    """The last step of 003's proof of eq. (EC.6), by SymPy: the maximum over ``t = N_l/N_u >= 0``
    of ``(t + 1)(t w_l + w_u) / (w_l t^2 + 2 w_l t + w_u)`` with ``w_k = k (s + k)``, in terms of
    ``alpha = l/u`` (``u = 1``, homogeneity; ``s`` in units of ``u``).  Returns ``(maximum,
    maximiser)``; at ``s = 0`` the maximum is ``(1 + 1/alpha)/2`` at ``t = 1/alpha``."""
    t = sp.Symbol("t", nonnegative=True)
    a = sp.Symbol("alpha", positive=True)
    s = sp.sympify(s)
    wl, wu = a * (s + a), 1 * (s + 1)
    f = (t + 1) * (t * wl + wu) / (wl * t**2 + 2 * wl * t + wu)
    crit = [c for c in sp.solve(sp.diff(f, t), t) if c.is_positive is not False]
    if len(crit) != 1:
        raise AssertionError(f"expected one critical point, got {crit}")
    return sp.simplify(f.subs(t, crit[0])), sp.simplify(crit[0])


def a_random_two_point_row(*, l: int, u: int, s: int, M: int, load: int, p: float, rep: int, seed: int) -> dict:
    """A_random (003 Algorithm 4) on a two-point instance: ``round(p n)`` requests of length ``l`` and
    the rest of length ``u``, ``n = load M``, all at 0, prompt ``s``; run seed ``[seed, rep]``
    folded to one integer.  Returns the ratio to H-SF and eq. (EC.6)'s ``(1 + u/l)/2``."""
    n = load * M
    ns = int(round(p * n))
    o = np.array([l] * ns + [u] * (n - ns))
    inst = interval_instance(o, M, s, allow_zero_prompt=(s == 0))
    h = checked_run(inst, "h-sf", l, u)[0]
    run_seed = int(np.random.default_rng([seed, rep]).integers(2**31))
    r = checked_run(inst, "a-random", l, u, seed=run_seed)[0]
    return dict(n=n, ratio=r / h, ec6=float(ec6_bound(Fraction(l, u))))


def coupling_keys(sizes, instances: int, perms: int, seed: int, *, l: int = 1, u: int = 4, s: int = 1,
                  beta: float = 0.5) -> list[dict]:
    """Store keys of :func:`coupling_row`: for each ``(n, M)`` in ``sizes``, ``instances`` random
    instances (instance ``k`` uses seed ``[seed, k]`` folded to one integer)."""
    return [dict(n=int(n), l=l, u=u, s=s, M=int(M), beta=float(beta), perms=int(perms),
                 seed=int(np.random.default_rng([seed, k]).integers(2**31)))
            for n, M in sizes for k in range(instances)]


def two_point_keys(pairs, prompts, memories, reps: int, seed: int, *, load: int = 10) -> list[dict]:
    """Store keys of :func:`a_random_two_point_row`: each ``(l, u)`` in ``pairs``, prompt, memory and
    the short fractions ``0.5``, ``1/(1 + alpha)`` (the maximiser in :func:`ec6_proof_maximum` at
    ``s = 0``) and ``0.9``."""
    keys = []
    for l, u in pairs:
        for p in sorted({0.5, round(1 / (1 + l / u), 4), 0.9}):
            for s in prompts:
                for M in memories:
                    for r in range(reps):
                        keys.append(dict(l=int(l), u=int(u), s=int(s), M=int(M), load=load, p=float(p), rep=r,
                                         seed=seed))
    return keys
