"""The hypotheses of the papers' theorems as functions, and the computations an independent
reading of the errata page asked for (which instance lies inside which theorem's assumptions).

Hypotheses (each returns a :class:`Verdict`; bad input raises ``ValueError`` naming the culprit):

* :func:`regime_002`: 002 Section 2's standing assumption ``s_i, o_i = epsilon(M)`` (sizes
  asymptotically smaller than ``M``), all requests at ``t = 0``.  A limit in ``M`` needs a family:
  one instance is never inside; a family is inside when ``M`` grows strictly, the largest size over
  ``M`` falls strictly, and the last member's share is at most half the first's.
* :func:`theorem1_002`: 002 Theorem 1's own hypothesis ``s_i, o_i in [1, M]``, ``s_i + o_i <= M``.
* :func:`s_over_M_004`: 004 Section 2's ``s / M -> 0`` (one prompt size per instance), as a family
  in the same sense.
* :func:`model_003`: 003 Section 2 (prompt ``s > 0``, every length in ``[l, u]``), returning
  ``alpha = l / u``; ``two_point=True`` adds Section 5's family ``D_2`` (lengths in ``{l, u}``).
* :func:`theorem43_001`, :func:`b3_setting_001`, :func:`section51_001`: 001 Theorem 4.3 (one prompt
  size, all at 0), the setting of its Appendix B.3 (identical requests, ``M >= 2(s + o)``,
  ``n > floor(M/(s + o))``), and Section 5.1's distribution (``M`` in 30..50, ``s`` in 1..5,
  ``o <= M - s``; Arrival Model 1: ``n`` in 40..60 at 0; Model 2: horizon at most 60).
* :func:`stochastic_004`, :func:`theorem62_004`, :func:`theorem64_004`, :func:`predictions_004`: 004
  Section 5's arrivals (bounded support, i.i.d. outputs), the constructions of Theorems 6.2 and 6.4
  (``1/epsilon`` and ``epsilon M`` whole numbers), Section 8.1's ``|o - o_hat| <= delta``.
* :func:`three_partition_002`, :func:`partition_002`: the source instances of 002's reductions.

Computations (all exact unless said otherwise):

* :func:`theorem1_family`: a family of 002 Theorem 1's kind inside the regime: ``M = j^4``,
  ``M`` requests ``(sqrt(M) - 1, 1)`` and ``M j = M^(5/4)`` requests ``(1, 2)``; MC-SF's simulated
  TEL over a checked schedule's TEL (a lower bound on MC-SF / OPT).
* :func:`theorem5_copies`: ``k`` copies of the hand instance of the erratum to 002 Theorem 5 with
  ``M = 12 k``: the paper's expression for TEL(Sorted-F_separate), the true one, TEL(group), and the
  line after the ``epsilon`` line.
* :func:`theorem7_over_optima`: both sides of the two failing steps of 002 Theorem 7's display for
  *every* optimal schedule of an instance.
* :func:`theorem2_maximum`: the proof's expression of 003 Theorem 2 maximised over ``a / b`` (SymPy).
* :func:`lemma2_two_point`, :func:`lemma2_two_point_max`: 003 Lemma 2 on ``{l, u}`` as a rational
  function of ``t = x_l / x_u`` and its maximum over ``t > 0`` (SymPy; real roots isolated exactly).
* :func:`lemma54_family`: the two-request instance of the erratum to 004 Lemma 5.4 grown with
  ``M`` (``s = 1``, ``M = 2k + 2``, outputs ``k + 2`` and ``k``), Lemma 5.4 (ii) on each.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
import sympy as sp

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.core.simulate import simulate
from kvlib.policies.registry import make_policy

__all__ = ["Verdict", "regime_002", "theorem1_002", "s_over_M_004", "model_003", "theorem43_001", "b3_setting_001",
           "section51_001", "stochastic_004", "theorem62_004", "theorem64_004", "predictions_004",
           "three_partition_002", "partition_002", "kv_sizing_004", "theorem1_family",
           "theorem5_copies", "theorem7_over_optima", "theorem7_family_counts", "theorem2_maximum",
           "lemma2_two_point", "lemma2_two_point_max", "lemma54_family"]


@dataclass(frozen=True)
class Verdict:
    """Whether an instance (or family) satisfies a theorem's stated hypotheses, and why."""

    inside: bool
    why: str


def _family(instances) -> list[Instance]:
    fam = [instances] if isinstance(instances, Instance) else list(instances)
    if not fam:
        raise ValueError("empty family: give at least one instance")
    for k, inst in enumerate(fam):
        if not isinstance(inst, Instance):
            raise ValueError(f"member {k} is a {type(inst).__name__}, not an Instance")
    return fam


def _shrinking(Ms: list[int], shares: list[Fraction], what: str) -> Verdict:
    if len(Ms) == 1:
        return Verdict(False, f"one instance (M = {Ms[0]}) has no limit in M; its {what} is {shares[0]} of M")
    if any(b <= a for a, b in zip(Ms, Ms[1:])):
        return Verdict(False, f"M does not grow strictly along the family: {Ms}")
    if any(b >= a for a, b in zip(shares, shares[1:])):
        return Verdict(False, f"the {what} over M does not fall strictly: {[str(x) for x in shares]}")
    if 2 * shares[-1] > shares[0]:
        return Verdict(False, f"the {what} over M falls by less than half ({shares[0]} to {shares[-1]})")
    return Verdict(True, f"the {what} over M falls from {shares[0]} to {shares[-1]} as M grows to {Ms[-1]}")


def regime_002(instances) -> Verdict:
    """002 Section 2: every request at ``t = 0`` with ``s_i, o_i >= 1`` and ``s_i, o_i = epsilon(M)``."""
    fam = _family(instances)
    for k, inst in enumerate(fam):
        if np.any(inst.arrival != 0):
            return Verdict(False, f"member {k}: 002's model has every request at t = 0")
        if np.any(inst.prompt < 1) or np.any(inst.output < 1):
            return Verdict(False, f"member {k}: a size below 1")
    Ms = [int(i.memory) for i in fam]
    shares = [Fraction(int(max(i.prompt.max(), i.output.max())), int(i.memory)) for i in fam]
    return _shrinking(Ms, shares, "largest s_i or o_i")


def theorem1_002(instance: Instance) -> Verdict:
    """002 Theorem 1's hypothesis: ``s_i in [1, M]``, ``o_i in [1, M]``, ``s_i + o_i <= M``, all at 0."""
    (inst,) = _family(instance)
    M = int(inst.memory)
    if np.any(inst.arrival != 0):
        return Verdict(False, "002's model has every request at t = 0")
    bad = np.flatnonzero((inst.prompt < 1) | (inst.output < 1) | (inst.prompt + inst.output > M))
    if len(bad):
        return Verdict(False, f"request {int(bad[0])} breaks s, o >= 1, s + o <= M = {M}")
    return Verdict(True, f"s, o >= 1 and s + o <= M = {M} for every request")


def s_over_M_004(instances) -> Verdict:
    """004 Section 2: one prompt size ``s`` per instance, ``s / M -> 0`` along the family."""
    fam = _family(instances)
    for k, inst in enumerate(fam):
        if len(set(inst.prompt.tolist())) != 1:
            return Verdict(False, f"member {k}: 004 gives every request one prompt size s")
    Ms = [int(i.memory) for i in fam]
    return _shrinking(Ms, [Fraction(int(i.prompt[0]), int(i.memory)) for i in fam], "prompt size s")


def model_003(s, lengths: Sequence[int], l: int, u: int, *, two_point: bool = False) -> Verdict:
    """003 Section 2: prompt ``s > 0``, every output length in ``[l, u]`` with ``0 < l < u``
    (``alpha = l/u``); ``two_point``: Section 5's ``D_2``, lengths in ``{l, u}``."""
    if not 0 < l < u:
        raise ValueError(f"need 0 < l < u, got l = {l}, u = {u}")
    alpha = Fraction(l, u)
    if not s > 0:
        return Verdict(False, f"prompt s = {s}: 003 Section 2 assumes s > 0 (alpha = {alpha})")
    out = sorted(set(int(x) for x in lengths))
    if out and (out[0] < l or out[-1] > u):
        return Verdict(False, f"a length outside [{l}, {u}]: {out}")
    if two_point and not set(out) <= {l, u}:
        return Verdict(False, f"lengths {out} are not two-point on {{{l}, {u}}}")
    return Verdict(True, f"s = {s} > 0, lengths in [{l}, {u}], alpha = {alpha}")


def theorem43_001(instance: Instance) -> Verdict:
    """001 Theorem 4.3, first part (and 004 Section 3): one prompt size, every request at 0, ``s + o <= M``."""
    (inst,) = _family(instance)
    if np.any(inst.arrival != 0):
        return Verdict(False, "a request arrives after t = 0")
    if len(set(inst.prompt.tolist())) != 1:
        return Verdict(False, f"prompt sizes {sorted(set(inst.prompt.tolist()))}: the theorem has one size s")
    if np.any(inst.prompt + inst.output > inst.memory):
        return Verdict(False, f"a request needs more than M = {int(inst.memory)}")
    return Verdict(True, f"one prompt size {int(inst.prompt[0])}, all at 0, every s + o <= M = {int(inst.memory)}")


def b3_setting_001(n: int, s: int, o: int, M: int) -> Verdict:
    """001 Appendix B.3: ``n`` identical requests ``(s, o)`` at 0 with ``M >= 2(s + o)`` and
    ``n > floor(M / (s + o))`` (more requests than fit at once)."""
    if min(n, s, o, M) < 1:
        raise ValueError(f"n, s, o, M must be positive, got {(n, s, o, M)}")
    if M < 2 * (s + o):
        return Verdict(False, f"M = {M} < 2(s + o) = {2 * (s + o)}")
    if n <= M // (s + o):
        return Verdict(False, f"n = {n} <= floor(M/(s + o)) = {M // (s + o)}")
    return Verdict(True, f"M >= 2(s + o) and n = {n} > floor(M/(s + o)) = {M // (s + o)}")


def section51_001(instance: Instance, arrival_model: int) -> Verdict:
    """001 Section 5.1's distribution: ``M`` in 30..50, ``s`` in 1..5, ``1 <= o <= M - s``; Arrival
    Model 1: ``n`` in 40..60, all at 0; Model 2: arrivals in rounds ``0..59``."""
    (inst,) = _family(instance)
    M = int(inst.memory)
    if not 30 <= M <= 50:
        return Verdict(False, f"M = {M} outside 30..50")
    if np.any((inst.prompt < 1) | (inst.prompt > 5)) or np.any((inst.output < 1) | (inst.prompt + inst.output > M)):
        return Verdict(False, "a prompt outside 1..5 or an output outside 1..M - s")
    if arrival_model == 1:
        ok = bool(np.all(inst.arrival == 0)) and 40 <= inst.n <= 60
        return Verdict(ok, f"Arrival Model 1: n = {inst.n}, all at 0" if ok else "not Arrival Model 1")
    if arrival_model == 2:
        ok = bool(np.all((inst.arrival >= 0) & (inst.arrival < 60)))
        return Verdict(ok, "Arrival Model 2: arrivals in rounds 0..59" if ok else "an arrival after round 59")
    raise ValueError(f"arrival_model must be 1 or 2, got {arrival_model}")


def stochastic_004(B: int, p, o_support: Sequence[int]) -> Verdict:
    """004 Section 5: per round a number of arrivals with bounded support ``[0, B]`` (here
    ``Binomial(B, p)``), outputs i.i.d. on a finite support of positive lengths."""
    if int(B) < 1 or not 0 < float(p) <= 1:
        return Verdict(False, f"arrivals Binomial({B}, {p}) are not a proper bounded law")
    if not o_support or min(o_support) < 1:
        return Verdict(False, f"output support {list(o_support)} is not a finite set of positive lengths")
    return Verdict(True, f"arrivals bounded by {B}, outputs i.i.d. on {sorted(o_support)}")


def theorem62_004(M: int, eps: Fraction) -> Verdict:
    """004 Theorem 6.2's construction: ``0 < epsilon <= 1/4`` with ``1/epsilon`` and ``epsilon M`` whole."""
    eps = Fraction(eps)
    if not 0 < eps <= Fraction(1, 4):
        return Verdict(False, f"epsilon = {eps} outside (0, 1/4]")
    if (1 / eps).denominator != 1 or (eps * M).denominator != 1:
        return Verdict(False, f"1/epsilon = {1 / eps} or epsilon M = {eps * M} is not whole")
    return Verdict(True, f"epsilon = {eps}, epsilon M = {eps * M}")


def theorem64_004(c: int, eps: Fraction) -> Verdict:
    """004 Theorem 6.4's distribution: ``c >= 1`` whole, ``1/epsilon`` whole and at least 3."""
    eps = Fraction(eps)
    if int(c) != c or c < 1 or eps <= 0 or (1 / eps).denominator != 1 or 1 / eps < 3:
        return Verdict(False, f"(c, epsilon) = ({c}, {eps}) is not of the proof's kind")
    return Verdict(True, f"c = {c}, 1/epsilon = {1 / eps}")


def predictions_004(o: Sequence[int], o_hat: Sequence[int], delta: int) -> Verdict:
    """004 Section 8.1: every prediction within ``delta`` of the true length."""
    if len(o) != len(o_hat):
        raise ValueError(f"{len(o)} true lengths against {len(o_hat)} predictions")
    bad = [i for i, (a, b) in enumerate(zip(o, o_hat)) if abs(int(a) - int(b)) > delta]
    if bad:
        return Verdict(False, f"request {bad[0]}: |o - o_hat| > delta = {delta}")
    return Verdict(True, f"|o - o_hat| <= {delta} for every request")


def three_partition_002(x: Sequence[int], T: int) -> Verdict:
    """A 3-Partition instance: ``3m`` items, each strictly between ``T/4`` and ``T/2``, summing to ``mT``."""
    x = [int(v) for v in x]
    if len(x) % 3 or sum(x) != len(x) // 3 * T:
        return Verdict(False, f"{len(x)} items summing to {sum(x)}, not 3m items summing to mT")
    if not all(4 * v > T and 2 * v < T for v in x):
        return Verdict(False, f"an item not strictly between T/4 and T/2 (T = {T})")
    return Verdict(True, f"m = {len(x) // 3}, every item in (T/4, T/2)")


def partition_002(x: Sequence[int], T: int) -> Verdict:
    """A Partition instance as 002 Theorem EC.2 uses it: positive items summing to ``2T``."""
    x = [int(v) for v in x]
    if not x or min(x) < 1 or sum(x) != 2 * T:
        return Verdict(False, f"items {x} do not sum to 2T = {2 * T}")
    return Verdict(True, f"{len(x)} positive items summing to 2T")


def kv_sizing_004(layers: int, hidden: int, bytes_per_value: int, free_gb: int) -> Verdict:
    """004 Section 7's inputs to the KV-cache capacity: Llama-2-70B's ``L = 80`` layers, hidden size
    ``H = 8192``, ``D = 2`` bytes per value, and ``160 - 140 = 20`` GB free on two A100 GPUs."""
    stated = (80, 8192, 2, 20)
    got = (int(layers), int(hidden), int(bytes_per_value), int(free_gb))
    if got != stated:
        return Verdict(False, f"inputs {got} differ from 004 Section 7's {stated}")
    return Verdict(True, "the inputs 004 Section 7 states")


# --------------------------------------------------------------------------- 002 Theorem 1


def theorem1_family(j: int) -> dict:
    """``M = j^4``: ``M`` requests ``(j^2 - 1, 1)`` and ``M j`` requests ``(1, 2)``, all at 0.

    MC-SF's TEL by simulation; the upper bound on OPT is the schedule that pipelines the ``(1, 2)``
    requests first (:func:`kvlib.theory.adversary.pipelined_y_schedule`, checked).  ``ratio_lower``
    = TEL(MC-SF) / that bound <= MC-SF / OPT.
    """
    from kvlib.theory.adversary import pipelined_y_schedule

    if int(j) < 2:
        raise ValueError(f"j must be at least 2 (M = j^4 >= 16), got {j}")
    j = int(j)
    M, m = j ** 4, j * j
    nx, ny = M, M * j
    inst = Instance.at_zero([m - 1] * nx + [1] * ny, [1] * nx + [2] * ny, M)
    tel = int(simulate(inst, make_policy("mc-sf")).tel)
    rep = check_schedule(inst, pipelined_y_schedule(inst, list(range(nx, nx + ny)), list(range(nx))))
    upper = int(rep.raise_if_invalid().tel)
    return {"M": M, "n": inst.n, "instance": inst, "tel_mcsf": tel, "opt_upper": upper,
            "ratio_lower": Fraction(tel, upper)}


# --------------------------------------------------------------------------- 002 Theorems 5 and 7


def theorem5_copies(k: int) -> dict:
    """``k`` copies of ``s = (1, 1, 6)``, ``o = (5, 5, 1)`` with ``M = 12 k``, all at 0 (Sorted-F's
    batches by :func:`kvlib.theory.wyz_chain_paper.sf_run`; TEL(Sorted-F_separate) of its checked
    schedule)."""
    from kvlib.theory import wyz_chain_paper as wc
    from kvlib.theory.wyz_errata import theorem5_display

    if int(k) < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    k = int(k)
    inst = Instance.at_zero([1, 1, 6] * k, [5, 5, 1] * k, 12 * k)
    _, _, bl = wc.sf_run(inst)
    rep = check_schedule(inst, Schedule(tuple(int(x) for x in wc.separate_starts(bl, inst.output))))
    sep = int(rep.raise_if_invalid().tel)
    disp = theorem5_display(bl, inst.output, sep)
    return {"M": 12 * k, "instance": inst, "batches": [len(b) for b in bl], "groups": wc.groups(bl, inst.output),
            "expression": int(wc.separate_tel_paper(bl, inst.output)), "tel_separate": sep,
            "tel_group": int(wc.group_tel(bl, inst.output)), "epsilon_line": disp["L4"]}


def theorem7_over_optima(prompt, output, memory: int) -> dict:
    """Both sides of the ``<=`` that introduces ``sum (p_i - t_g)`` (``E7``, ``E8``) and of the last
    ``=`` (``E8``, ``E9 = 6 TEL``) of 002 Theorem 7's display, for every optimal schedule
    (:func:`kvlib.theory.wyz_errata.all_optimal_schedules`)."""
    from kvlib.theory.wyz_errata import all_optimal_schedules, theorem7_display

    inst = Instance.at_zero(list(prompt), list(output), int(memory))
    opt, starts = all_optimal_schedules(inst)
    rows = []
    for p in starts:
        r = theorem7_display(prompt, output, int(memory), p)
        rows.append({"starts": p, "E7": r["E7"], "E8": r["E8"], "E9": r["E9"],
                     "le_fails": not r["steps"]["E7<=E8"], "eq_fails": not r["steps"]["E8=E9"]})
    return {"opt": opt, "schedules": rows, "n_optimal": len(rows),
            "le_fails_all": all(r["le_fails"] for r in rows), "eq_fails_all": all(r["eq_fails"] for r in rows)}


def theorem7_family_counts(instances: Sequence[Instance]) -> dict:
    """Over ``instances``: on how many each of the two steps fails for every optimal schedule, and for some."""
    c = {"le_all": 0, "le_some": 0, "eq_all": 0, "eq_some": 0, "n": 0}
    for inst in instances:
        r = theorem7_over_optima(inst.prompt.tolist(), inst.output.tolist(), int(inst.memory))
        le = [x["le_fails"] for x in r["schedules"]]
        eq = [x["eq_fails"] for x in r["schedules"]]
        c["le_all"] += all(le)
        c["le_some"] += any(le)
        c["eq_all"] += all(eq)
        c["eq_some"] += any(eq)
        c["n"] += 1
    return c


# --------------------------------------------------------------------------- 003 Theorem 2 and Lemma 2


def theorem2_maximum() -> dict:
    """003 Theorem 2's proof bounds A_max's ratio by ``f(r) = (r + alpha)(r + 1) / (alpha (r^2 + 2 alpha r + 1))``
    with ``r = a / b`` (the proof's ``(u/l)(au + bl)(a + b)/(u a^2 + 2 l a b + u b^2)``).  Its maximum
    over ``r > 0`` is at ``r* = 1 + sqrt(2 + 2 alpha)``; ``alpha f(r*)`` tends to ``(1 + sqrt 2)/2`` as
    ``alpha -> 0`` and ``f(r) < (3 - alpha)/(2 alpha)`` for every r: the construction
    supports order ``alpha^-1``, not the stated ``alpha^-3/2``."""
    al, r = sp.symbols("alpha r", positive=True)
    f = (r + al) * (r + 1) / (al * (r ** 2 + 2 * al * r + 1))
    crit = sp.solve(sp.numer(sp.together(sp.diff(f, r))), r)
    (rstar,) = [c for c in crit if c.subs(al, sp.Rational(1, 4)).is_positive]
    fmax = sp.simplify(f.subs(r, rstar))
    lead = sp.limit(al * fmax, al, 0)
    stated = (1 + al ** sp.Rational(-1, 2)) / (2 * al)
    values = {a: (fmax.subs(al, a), f.subs({al: a, r: sp.sqrt(a)}), stated.subs(al, a), 1 / a)
              for a in (sp.Rational(1, 4), sp.Rational(1, 9), sp.Rational(1, 100))}
    return {"f": f, "r_star": rstar, "f_max": fmax, "alpha_f_max_limit": lead, "values": values,
            "symbols": (al, r), "stated": stated}


def lemma2_two_point(l: int, u: int, s) -> tuple[sp.Expr, sp.Symbol]:
    """003 Lemma 2's leading term on lengths ``{l, u}`` with ``x_l = t``, ``x_u = 1`` (the quotient is
    homogeneous), ``k`` over every integer of ``[l, u]`` as in :func:`kvlib.theory.cyz_errata.lemma2_ratio_exact`."""
    if not 0 < l < u:
        raise ValueError(f"need 0 < l < u, got l = {l}, u = {u}")
    if s < 0:
        raise ValueError(f"prompt s must be >= 0, got {s}")
    t = sp.Symbol("t", positive=True)
    s = sp.nsimplify(s)
    x = {l: t, u: sp.Integer(1)}
    num = den = sp.Integer(0)
    for k in range(l, u + 1):
        d = s + l if k == l else 1
        ge = [i for i in (l, u) if i >= k]
        gt = [i for i in (l, u) if i > k]
        inner = sum(d * x[i] / (s + i) for i in ge) + 2 * sum((i - k) * x[i] / (s + i) for i in gt)
        num += d * sum(i * x[i] for i in ge) * inner
        if k in x:
            den += k * (s + k) * x[k] * (x[k] + 2 * sum(x[i] for i in gt))
    return sp.cancel(num / den), t


def lemma2_two_point_max(l: int, u: int, s) -> dict:
    """The maximum over ``t = x_l / x_u > 0`` of :func:`lemma2_two_point`, against Theorem 6's
    ``(3 - alpha)/2``: the positive real roots of the derivative's numerator are isolated exactly
    (``sympy.Poly.real_roots``); ``t_star`` and ``value`` are floats of the exact maximiser."""
    ratio, t = lemma2_two_point(l, u, s)
    poly = sp.Poly(sp.numer(sp.together(sp.diff(ratio, t))), t)
    cands = [rt for rt in poly.real_roots() if rt.is_positive]
    if not cands:
        raise ValueError(f"no interior maximum of Lemma 2 on {{{l}, {u}}} with s = {s}")
    vals = [(float(ratio.subs(t, rt).evalf(30)), float(rt.evalf(30))) for rt in cands]
    value, tstar = max(vals)
    bound = Fraction(3 * u - l, 2 * u)
    return {"value": value, "t_star": tstar, "share_l": tstar / (1 + tstar), "bound": bound,
            "excess": value - float(bound)}


# --------------------------------------------------------------------------- 004 Lemma 5.4


def lemma54_family(k: int) -> dict:
    """``s = 1``, ``M = 2k + 2``: request A at 0 with ``o = k + 2``, B at 1 with ``o = k`` (``k = 2``
    is the erratum's hand instance).  MC-SF, the exact optimum, Off-Couple from ``t = 0`` and
    Lemma 5.4's checks (:mod:`kvlib.theory.offcouple`)."""
    from kvlib.theory import offcouple as oc

    if int(k) < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    k = int(k)
    inst = Instance.from_arrays([0, 1], [1, 1], [k + 2, k], 2 * k + 2)
    tel, on = oc.mcsf_starts(inst)
    opt, off = oc.residual_opt(inst, {}, 0)
    cr = oc.off_couple(inst, 0, on, off)
    chk = oc.lemma54_checks(inst, cr, off)
    return {"M": 2 * k + 2, "instance": inst, "mcsf": tel, "mcsf_starts": on, "opt": opt, "opt_starts": off,
            "t_hat": cr.t_hat, "off_B": int(off[1]) + k, "oc_B": int(cr.starts[1]) + k,
            "ii": chk["lemma54_ii"], "i": chk["lemma54_i"], "same_state": chk["same_state"]}
