"""Checks behind the 003 (Chen, Ye, Zhou) entries of the errata page that the older modules do not make.

Nothing in the results store depends on this module (it is imported by the ``amin`` chapter and by
``tests/test_errata.py`` only), so the stored tables are unaffected by it.

* **Eq. (EC.7) on an instance inside its hypotheses.**  003 eq. (EC.7) compares A_random (Algorithm 4)
  under ``alpha M`` and under ``M`` with ``alpha = l/u`` and every ``o_i`` in ``[l, u]``.
  :func:`ec7_instance` evaluates it exactly (all ``n!`` permutations, Definition EC.3's coupling) on
  ``l = 2``, ``u = 4``, ``o = (2, 2, 2, 4)``, ``s = 2``, ``M = 12``, ``alpha M = 6``, under two
  readings of A_random and two readings of the memory rule:

  - *stop* (kvlib's ``ARandom(rule="prefix")``, the book's reading): admission in permutation order
    stops at the first request that does not fit; *skip* (``rule="scan"``) skips it and tries the
    next ones;
  - the engine's rule (a request started at ``p`` holds ``s + t' - p`` tokens at ``t' = p+1..p+o``,
    which is 001 eq. (5) and 003 eq. (1)), and 003 eq. (3) read literally, whose range
    ``t' in [t, t_max]`` also counts, at the start time ``t`` itself, the prompt ``s`` of each new
    request and the ``s + o_i`` of each request completing at ``t``.

  The engine-rule numbers come from kvlib's ``ARandom`` through the independent checker; the literal
  eq. (3) numbers from :func:`a_random_eq3`, a separate small simulator with its own feasibility test
  (:func:`eq3_feasible`).  Definitions EC.1 (corresponding order) and EC.2 (optimally packed) are
  checked on every coupled pair (:func:`ec7_hypotheses`).
* **Theorem 6's simulation and the bound update of a cancelled request.**  Algorithm 2 sets the bound
  of a cancelled request to the tokens it generated; kvlib's ``AMin`` keeps the larger of the old
  bound and those tokens.  :class:`AMinOverwrite` is Algorithm 2 with the line read literally;
  :func:`theorem6_readings` runs both on the two-point instance of the Theorem 6 entry.
* **Displayed steps** of the proofs the errata page names, evaluated exactly on the paper's
  definitions: the display of ``E[tau_k]`` in Lemma 2's proof (:func:`lemma2_tau_display`), Lemma 2's
  ratio at ``s > 0`` for the lengths of Theorem 8 (:func:`lemma2_ratio_exact`,
  :func:`lg_weights_exact`), and the pairing equality of Theorem EC.1's proof for A_max
  (:func:`ec5_pairing`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Sequence

import numpy as np
import sympy as sp

from kvlib.core.checker import check_schedule
from kvlib.core.lookahead import FutureMemory
from kvlib.core.protocol import Decision, Running
from kvlib.policies.cyz import AMin, ARandom, interval_instance, run_interval

__all__ = [
    "EC7_INSTANCE",
    "eq3_usage",
    "eq3_feasible",
    "a_random_eq3",
    "engine_a_random",
    "ec7_instance",
    "ec7_hypotheses",
    "AMinOverwrite",
    "theorem6_readings",
    "lemma2_tau_display",
    "lemma2_ratio_exact",
    "lg_weights_exact",
    "ec5_pairing",
]

#: the instance of the eq. (EC.7) entry: alpha = l/u = 1/2, every o_i in [l, u], s > 0, alpha M = s + u
EC7_INSTANCE = dict(o=(2, 2, 2, 4), s=2, l=2, u=4, M=12)

_RULES = {"stop": "prefix", "skip": "scan"}


def _check_rule(rule: str) -> None:
    if rule not in _RULES:
        raise ValueError(f"rule must be 'stop' or 'skip', got {rule!r}")


# --------------------------------------------------------------------------- the memory rule of eq. (3)


def eq3_usage(runs: Sequence[tuple[int, int]], s: int, t: int, *, at_start: bool) -> int:
    """Tokens held at time ``t`` by the runs ``(p, o)``: ``s + t - p`` while ``p < t <= p + o``, and
    also at ``t = p`` when ``at_start`` (003 eq. (3) read literally: ``t' in [t, t_max]``)."""
    tot = 0
    for p, o in runs:
        lo = p if at_start else p + 1
        if lo <= t <= p + o:
            tot += s + t - p
    return tot


def eq3_feasible(o: Sequence[int], s: int, M: int, starts: Sequence[int], *, at_start: bool) -> bool:
    """Whether non-preemptive start times keep every time's usage within ``M`` (rule of :func:`eq3_usage`)."""
    if len(o) != len(starts):
        raise ValueError(f"{len(o)} lengths but {len(starts)} start times")
    if any(int(p) < 0 for p in starts):
        raise ValueError(f"start times must be >= 0, got {tuple(starts)}")
    runs = [(int(p), int(q)) for p, q in zip(starts, o)]
    end = max(p + q for p, q in runs)
    return all(eq3_usage(runs, s, t, at_start=at_start) <= M for t in range(end + 1))


def a_random_eq3(o: Sequence[int], s: int, M: int, perm: Sequence[int], *, rule: str = "stop",
                 at_start: bool = True) -> tuple[int, list[int]]:
    """003 Algorithm 4 (A_random) for one permutation ``perm`` (request ids, first to last), all
    requests at 0, admission tested on every future time with :func:`eq3_usage`.  ``rule`` "stop"
    ends a round at the first request that does not fit, "skip" tries the later ones.  Returns
    ``(TEL, start times)``."""
    _check_rule(rule)
    o = [int(v) for v in o]
    n = len(o)
    if sorted(int(i) for i in perm) != list(range(n)):
        raise ValueError(f"perm must list each request id 0..{n - 1} once, got {tuple(perm)}")
    if M < s + max(o):
        raise ValueError(f"M = {M} cannot hold one request of length {max(o)} with s = {s}")
    waiting, runs, starts, t = [int(i) for i in perm], [], [None] * n, 0
    while waiting:
        kept, stopped = [], False
        for i in waiting:
            if stopped:
                kept.append(i)
                continue
            cand = runs + [(t, o[i])]
            end = max(p + q for p, q in cand)
            if all(eq3_usage(cand, s, tp, at_start=at_start) <= M for tp in range(t, end + 1)):
                runs, starts[i] = cand, t
            else:
                kept.append(i)
                stopped = rule == "stop"
        waiting = kept
        t += 1
    if not eq3_feasible(o, s, M, starts, at_start=at_start):
        raise AssertionError(f"a_random_eq3 produced an infeasible schedule {starts}")
    return sum(p + q for p, q in zip(starts, o)), starts


def engine_a_random(o: Sequence[int], s: int, M: int, perm: Sequence[int], *, rule: str = "stop"
                    ) -> tuple[int, list[int]]:
    """kvlib's ``ARandom`` (engine rule) for one permutation, through the independent checker."""
    _check_rule(rule)
    inst = interval_instance(list(o), M, s)
    res = run_interval(inst, ARandom(rule=_RULES[rule], permutation=list(perm)), min(o), max(o))
    rep = check_schedule(inst, res.schedule)
    if not (rep.valid and rep.tel == res.tel):
        raise AssertionError(f"ARandom's schedule rejected or TEL {res.tel} != checker's {rep.tel}")
    return int(res.tel), [int(p) for p in res.schedule.starts]


def _corresponding(a: Sequence[int], b: Sequence[int]) -> bool:
    return all((a[x] - a[y]) * (b[x] - b[y]) >= 0 for x in range(len(a)) for y in range(x + 1, len(a)))


def _packed(o, s, M, starts, at_start: bool) -> bool:
    """003 Definition EC.2 under the rule of :func:`eq3_usage` (as ``memory_scaling.optimally_packed``)."""
    for r, p in enumerate(starts):
        earlier = [q for q in starts if q < p]
        for k in range(max(earlier) if earlier else 0, p):
            moved = list(starts)
            moved[r] = k
            if eq3_feasible(o, s, M, moved, at_start=at_start):
                return False
    return True


def ec7_instance(o: Sequence[int] = EC7_INSTANCE["o"], s: int = EC7_INSTANCE["s"], l: int = EC7_INSTANCE["l"],
                 u: int = EC7_INSTANCE["u"], M: int = EC7_INSTANCE["M"]) -> dict:
    """Eq. (EC.7) exactly: ``E[TEL(A_random(alpha M))]`` and ``E[TEL(A_random(M))]`` over all ``n!``
    permutations with ``alpha = l/u``, for each reading ``(rule, memory)``: rule "stop"/"skip", memory
    "engine" (kvlib's ``ARandom`` and checker) or "eq3" (:func:`a_random_eq3` with ``at_start``).

    Raises ``ValueError`` unless the instance meets the hypotheses: ``0 < l < u``, every ``o_i`` in
    ``[l, u]``, ``s > 0``, ``alpha M`` an integer holding one request of length ``u``."""
    o = tuple(int(v) for v in o)
    n = len(o)
    if not 0 < l < u:
        raise ValueError(f"need 0 < l < u, got l = {l}, u = {u}")
    if any(not l <= v <= u for v in o):
        raise ValueError(f"every output must lie in [l, u] = [{l}, {u}], got {o}")
    if s <= 0:
        raise ValueError(f"003 Section 2 requires s > 0, got s = {s}")
    small = Fraction(M * l, u)
    if small.denominator != 1 or small < s + u:
        raise ValueError(f"alpha M = {M}*{l}/{u} = {small} must be an integer >= s + u = {s + u}")
    if n > 6:
        raise ValueError(f"exact enumeration of {n}! permutations is too large; use n <= 6")
    small_M = int(small)
    perms = list(itertools.permutations(range(n)))
    out = dict(o=o, s=s, l=l, u=u, M=M, small_M=small_M, alpha=Fraction(l, u), perms=len(perms), readings={})
    for rule in ("stop", "skip"):
        for memory in ("engine", "eq3"):
            if memory == "engine":
                run = lambda MM, p: engine_a_random(o, s, MM, p, rule=rule)
            else:
                run = lambda MM, p: a_random_eq3(o, s, MM, p, rule=rule, at_start=True)
            big = [run(M, p) for p in perms]
            little = [run(small_M, p) for p in perms]
            e_big = Fraction(sum(t for t, _ in big), len(perms))
            e_small = Fraction(sum(t for t, _ in little), len(perms))
            out["readings"][(rule, memory)] = dict(
                E_tel_M=e_big, E_tel_small=e_small, quotient=e_small / e_big, bound=Fraction(u, l),
                holds=e_small <= Fraction(u, l) * e_big,
                pairs_meeting_definitions=ec7_hypotheses(o, s, M, small_M, big, little, memory == "eq3"))
    return out


def ec7_hypotheses(o, s, M, small_M, big, little, at_start: bool) -> int:
    """How many coupled pairs (same permutation; ``big``/``little`` are lists of ``(TEL, starts)``)
    preserve the corresponding order (Definition EC.1) and are both optimally packed (Definition EC.2)."""
    return sum(_corresponding(a[1], b[1]) and _packed(o, s, M, a[1], at_start) and _packed(o, s, small_M, b[1], at_start)
               for a, b in zip(big, little))


# --------------------------------------------------------------------------- Theorem 6: the bound update


class AMinOverwrite(AMin):
    """003 Algorithm 2 with the bound update read literally: a cancelled request's bound becomes the
    number of tokens it had generated (``o-tilde <- tokens``), even when that is below its old bound
    (kvlib's :class:`AMin` keeps the larger of the two).  Every other reading choice is :class:`AMin`'s.
    Not registered; used by :func:`theorem6_readings`."""

    name = "a-min-overwrite"

    def decide(self, t: int, running: Running) -> Decision:
        ctx = self.ctx
        rng = ctx.rng
        ids, starts = running.ids, running.starts
        done = t - starts
        cur = np.maximum(self.bound[ids], done)
        hold = ctx.prompt[ids] + done + 1
        keep = np.ones(len(ids), dtype=bool)
        evict: list[int] = []
        excess = int(hold.sum()) - ctx.memory
        if excess > 0:
            order = np.lexsort((rng.random(len(ids)), self.bound[ids]))
            for j in order:
                if excess <= 0:
                    break
                keep[j] = False
                excess -= int(hold[j])
                i = int(ids[j])
                self.bound[i] = int(done[j])  # the literal update (AMin: max(old bound, done))
                evict.append(i)
            self.evictions += len(evict)
        k_ids, k_starts = ids[keep], starts[keep]
        est = np.maximum(cur[keep], done[keep] + 1)
        fm = FutureMemory(t, ctx.memory, ctx.prompt[k_ids], k_starts, k_starts + est)
        started = self._admit_prefix(fm, lambda i: int(self.bound[i]))
        for i in evict:
            self._push(i)
        return Decision(start=started, evict=evict)


def theorem6_readings(*, l: int = 8, u: int = 32, p_short: float = 0.76, M: int = 800, load: int = 12,
                      prompts: Sequence[int] = (0, 8), seed: int = 0) -> dict:
    """A_min / H-SF on the two-point instance of the Theorem 6 entry (lengths drawn with
    ``default_rng([0, M, s])``, ``n = load M``, all at 0, run seed ``seed``) for each prompt ``s``
    under both readings of the bound update: ``"max"`` (kvlib's ``AMin``, the book's) and
    ``"overwrite"`` (:class:`AMinOverwrite`).  Every schedule passes the independent checker."""
    from kvlib.theory.cyz_experiments import checked_tel

    out = {}
    for s in prompts:
        o = np.random.default_rng([0, M, s]).choice([l, u], size=load * M, p=[p_short, 1 - p_short])
        inst = interval_instance(o, M, s, allow_zero_prompt=(s == 0))
        h = checked_tel(inst, "h-sf", l, u, seed)
        out[s] = {"max": checked_tel(inst, "a-min", l, u, seed) / h,
                  "overwrite": checked_tel(inst, AMinOverwrite(), l, u, seed) / h}
    return dict(l=l, u=u, M=M, n=load * M, bound=(3 - Fraction(l, u)) / 2, ratios=out)


# --------------------------------------------------------------------------- displayed steps


def _prop1_completions(x: dict, s, i: int, j: int, lo: int) -> Fraction:
    """003 Proposition 1, eq. (5), in units of ``n``: ``E[c_ij] = (s+i)/(s+j) x_j`` if ``i = l``, else
    ``x_j/(s+j)``."""
    xj = Fraction(x.get(j, 0))
    return Fraction(s + i, s + j) * xj if i == lo else xj / (s + j)


def lemma2_tau_display(x: dict, s: int, k: int) -> tuple[Fraction, Fraction, Fraction]:
    """The display ``E[tau_k] = sum_{i>=k} i(s+i)/M E[c_ii] = delta(k)/M sum_{i>=k} i x_i n`` of the proof
    of 003 Lemma 2, in units ``n/M``, with Proposition 1's ``E[c]`` and ``x = {length: share}``.

    Returns ``(middle as printed, with E[c_ii], right side, middle with E[c_ki])``."""
    if not x or any(v < 0 for v in x.values()) or sum(Fraction(v) for v in x.values()) != 1:
        raise ValueError(f"x must be shares summing to 1, got {x}")
    lo, hi = min(x), max(x)
    if not lo <= k <= hi:
        raise ValueError(f"k = {k} must lie in [l, u] = [{lo}, {hi}]")
    delta = s + lo if k == lo else 1
    printed = sum(i * (s + i) * _prop1_completions(x, s, i, i, lo) for i in range(k, hi + 1))
    right = delta * sum(i * Fraction(x.get(i, 0)) for i in range(k, hi + 1))
    fixed = sum(i * (s + i) * _prop1_completions(x, s, k, i, lo) for i in range(k, hi + 1))
    return printed, right, fixed


def lg_weights_exact(q: Fraction, U: int) -> dict:
    """003 Section 5.3's ``LG(p)``: ``P(o = k) = k p^2 q^(k-1)``, ``p = 1 - q``, for ``k = 1..U``
    (exact; the weights beyond ``U`` are dropped and the rest are not renormalised)."""
    q = Fraction(q)
    if not 0 < q < 1:
        raise ValueError(f"q must lie in (0, 1), got {q}")
    p = 1 - q
    return {k: k * p * p * q ** (k - 1) for k in range(1, U + 1)}


def lemma2_ratio_exact(x: dict, s: int) -> Fraction:
    """003 Lemma 2's leading term (without ``O(1/M)``) exactly, for weights ``x = {length: weight}``
    (not necessarily normalised; the quotient is homogeneous), lengths ``l = min(x)..u = max(x)``:
    numerator ``sum_k delta(k) (sum_{i>=k} i x_i)(sum_{i>=k} delta(k) x_i/(s+i) + 2 sum_{i>k} (i-k) x_i/(s+i))``,
    denominator ``sum_k k (s+k) x_k (x_k + 2 sum_{i>k} x_i)``, ``delta(l) = s + l``, else 1."""
    lo, hi = min(x), max(x)
    xs = [Fraction(x.get(k, 0)) for k in range(lo, hi + 1)]
    m = len(xs)
    ks = list(range(lo, hi + 1))
    # suffix sums over i >= k (index j = k - lo)
    t_ix = [Fraction(0)] * (m + 1)
    t_x = [Fraction(0)] * (m + 1)
    t_w = [Fraction(0)] * (m + 1)
    t_iw = [Fraction(0)] * (m + 1)
    for j in range(m - 1, -1, -1):
        i = ks[j]
        w = xs[j] / (s + i)
        t_ix[j] = t_ix[j + 1] + i * xs[j]
        t_x[j] = t_x[j + 1] + xs[j]
        t_w[j] = t_w[j + 1] + w
        t_iw[j] = t_iw[j + 1] + i * w
    num = den = Fraction(0)
    for j, k in enumerate(ks):
        d = s + lo if k == lo else 1
        inner = d * t_w[j] + 2 * (t_iw[j + 1] - k * t_w[j + 1])
        num += d * t_ix[j] * inner
        den += k * (s + k) * xs[j] * (xs[j] + 2 * t_x[j + 1])
    return num / den


def ec5_pairing(o: Sequence[int], i: int, *, s: int, M: int, l: int, u: int) -> dict:
    """The pairing equality of 003 Theorem EC.1's proof (part 1),
    ``E[TEL(o-; pi)] + E[TEL(o+; pi)] = 2 E[TEL(o; pi)]``, for ``pi`` = A_max (Algorithm 1), where
    ``o-``/``o+`` lower/raise ``o_i`` by one.  A_max's random choice is a uniformly random order
    (``AMax(permutation=...)``), so each expectation is the exact mean over all ``n!`` orders; every
    schedule passes the independent checker."""
    from kvlib.policies.cyz import AMax
    from kvlib.theory.memory_scaling import checked_run

    o = [int(v) for v in o]
    if not l < o[i] < u:
        raise ValueError(f"o_{i} = {o[i]} must lie strictly inside (l, u) = ({l}, {u})")
    if any(not l <= v <= u for v in o):
        raise ValueError(f"every output must lie in [l, u] = [{l}, {u}], got {tuple(o)}")

    def mean(lengths):
        inst = interval_instance(lengths, M, s)
        tels = [checked_run(inst, AMax(permutation=p), l, u)[0] for p in itertools.permutations(range(len(o)))]
        return Fraction(sum(tels), len(tels))

    lower, upper = list(o), list(o)
    lower[i] -= 1
    upper[i] += 1
    e, e_minus, e_plus = mean(o), mean(lower), mean(upper)
    return dict(E_minus=e_minus, E=e, E_plus=e_plus, pair_sum=e_minus + e_plus, twice=2 * e,
                holds=e_minus + e_plus == 2 * e)
