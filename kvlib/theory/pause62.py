"""004 Theorems 6.2 and 6.4 (no constant competitive ratio under adversarial arrivals), checked.

004 Section 6 (the first version of 001) proves that no deterministic (Theorem 6.2) and no
randomized (Theorem 6.4) online algorithm has a competitive ratio independent of ``M``.

**The model these proofs assume.**  The proof of Theorem 6.2 lets the algorithm *interrupt* the
running long request to serve short ones (its choice (ii)).  001's model forbids that (every request
runs without interruption once started, 001 Section 2); 004's model statement does not say either
way.  We make the interruption explicit as a pause that keeps the request's KV cache
(:mod:`kvlib.core.pausable`), which is what the proof's memory count ("leaving eps M memory
available") describes.

**The construction** (proof of Theorem 6.2), with ``eps = 1/k`` so that every count is an integer
(``k**2`` must divide ``M``): a long request with prompt ``eps M`` and output ``(1 - eps) M`` at
``t = 0``; once the algorithm starts it at ``t'``, ``eps M`` requests with prompt ``eps M`` (the
proof's "s") and output 1 arrive at ``t' + (1 - 2 eps) M``.  Reading choices, each a careful
reader's: the short requests' prompt is the ``s = eps M`` defined at the start of the proof (the
text does not restate it); the long request's output is ``(1 - eps) M`` (one later sentence says
"output length M"; the OPT bound's ``(2 - 2 eps) M`` term uses that second value).

What the module computes:

* :func:`displays` - every displayed equality of the proof in SymPy, each side as printed, and
  whether they agree;
* :func:`paper_schedules` - the proof's three schedules A1 (continue), A2 (pause and serve the
  short requests), A3 (delay the long request: the OPT upper bound) as explicit pausable schedules,
  validated by :func:`kvlib.core.pausable.check_pausable`;
* :func:`adversary_run` - the adaptive adversary against a registered (non-preemptive) policy;
* :func:`thm64_support` - the distribution of the proof of Theorem 6.4 and its total mass;
* :func:`remark63_row` - Remark 6.3 (after Theorem 6.2): the construction with ``q`` short
  requests in place of ``eps M``, the exact TEL of an algorithm that keeps the long request
  running, the exact non-preemptive optimum and a lower bound on OPT valid with pauses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Request
from kvlib.core.pausable import check_pausable, runs_of_starts
from kvlib.policies import make_policy
from kvlib.core.simulate import simulate
from kvlib.theory.adversary import earliest_fit

__all__ = ["sizes", "long_request", "instance", "release", "displays", "paper_schedules",
           "adversary_run", "AdversaryResult", "thm64_support", "paper_ratio_bound", "plain",
           "remark63_row", "remark63_counts", "remark63_peak_estimate"]


def sizes(M: int, k: int) -> tuple[int, int, int]:
    """``(eps M, (1 - eps) M, eps^2 M)`` for ``eps = 1/k``; ``k >= 3`` and ``k**2`` must divide ``M``."""
    if not isinstance(k, (int, np.integer)) or k < 3:
        raise ValueError(f"k (eps = 1/k) must be an integer >= 3, got {k!r}")
    if M % (k * k):
        raise ValueError(f"M = {M} must be a multiple of k^2 = {k * k} (eps^2 M must be an integer)")
    return M // k, M - M // k, M // (k * k)


def long_request(M: int, k: int) -> Request:
    s, o, _ = sizes(M, k)
    return Request(0, s, o)


def release(M: int, k: int, t_prime: int) -> int:
    """Arrival of the short requests: ``t' + (1 - 2 eps) M``."""
    return int(t_prime) + M - 2 * (M // k)


def instance(M: int, k: int, t_prime: int, *, short_prompt: int | None = None) -> Instance:
    """Request 0 is the long one; requests ``1..eps M`` the short ones (prompt ``eps M`` unless given)."""
    s, o, _ = sizes(M, k)
    sp_ = s if short_prompt is None else int(short_prompt)
    r = release(M, k, t_prime)
    return Instance((Request(0, s, o), *(Request(r, sp_, 1) for _ in range(s))), M)


# --------------------------------------------------------------------------- the displays


def displays() -> list[dict]:
    """The proof's displayed equalities (each side as printed; ``e`` = eps, ``M`` symbolic)."""
    e, M, i = sp.symbols("epsilon M i", positive=True)
    tri = lambda n: n * (n + 1) / 2  # sum_{i=1}^{n} i
    rows = [
        ("TEL(A1) lower bound", (1 - e) * M + e**2 * M**2 + tri(e**2 * M) / e,
         (e**3 / 2 + e**2) * M**2 + (1 - e / 2) * M),
        ("TEL(A2) lower bound", tri(e * M) + e * M + (2 - 2 * e) * M, e**2 * M**2 / 2 + (2 - e / 2) * M),
        ("TEL(A3) = OPT upper bound", tri(e**2 * M) / e + e**2 * M + (2 - 2 * e) * M,
         e**3 / 2 * M**2 + (2 - 3 * e / 2) * M),
    ]
    out = []
    for name, lhs, rhs in rows:
        diff = sp.simplify(sp.expand(lhs - rhs))
        out.append({"display": name, "as summed": sp.expand(lhs), "as printed": sp.expand(rhs),
                    "difference": diff, "equal": diff == 0})
    return out


def plain(expr) -> str:
    """A SymPy expression as one line of plain text for a table (ε, M, superscripts, ·)."""
    txt = sp.sstr(sp.expand(expr), order="grlex")
    for a, b in (("epsilon", "ε"), ("**2", "²"), ("**3", "³"), ("**4", "⁴"), ("*", "·")):
        txt = txt.replace(a, b)
    return txt


def paper_ratio_bound(k: int) -> dict:
    """The proof's limits (``M -> oo``): TEL(A1)/OPT -> 1 + 2/eps, TEL(A2)/OPT -> 1/eps; min = 1/eps."""
    e = sp.Rational(1, k)
    a1 = (e**3 / 2 + e**2) / (e**3 / 2)
    a2 = (e**2 / 2) / (e**3 / 2)
    return {"A1/OPT": a1, "A2/OPT": a2, "claimed": min(a1, a2)}


# --------------------------------------------------------------------------- the schedules


def paper_schedules(M: int, k: int, t_prime: int = 0, *, short_prompt: int | None = None) -> dict:
    """The proof's three schedules on :func:`instance`, each checked in the pause model.

    * ``A1``: the long request runs from ``t'`` without a break; every short request starts at the
      earliest time it fits (after the long one ends: it leaves fewer than ``eps M + 1`` tokens);
    * ``A2``: the long request pauses when the short requests arrive and keeps its cache; short
      requests run whenever they fit beside it (one at a time in the proof's count); the long request
      resumes after the last one.  ``None`` when not a single short request fits beside the paused
      long request (then choice (ii) can serve nobody and is never better than (i));
    * ``A3``: the long request waits; the short requests run from their arrival (as many per round as
      fit), the long request starts at the earliest time after them.

    Returns ``{name: PausableReport or None}``; ``instance`` is included under ``"instance"``.
    """
    inst = instance(M, k, t_prime, short_prompt=short_prompt)
    n = inst.n
    shorts = list(range(1, n))
    r = release(M, k, t_prime)
    out: dict = {"instance": inst}
    a1 = earliest_fit(inst, shorts, fixed={0: int(t_prime)})
    out["A1"] = check_pausable(inst, runs_of_starts(inst, a1.starts))
    # A2: long runs t'+1 .. r, pauses holding s + (r - t'), shorts fill the rest, long resumes.
    s_long, o_long = int(inst.prompt[0]), int(inst.output[0])
    done = r - int(t_prime)
    held = s_long + done
    fit = (M - held) // (int(inst.prompt[1]) + 1) if n > 1 else 0
    if fit < 1:
        out["A2"] = None
    else:
        runs: list[list[int]] = [[]] + [[] for _ in shorts]
        t = r
        for j, i in enumerate(shorts):
            runs[i] = [r + 1 + j // fit]
            t = max(t, runs[i][0])
        runs[0] = list(range(int(t_prime) + 1, r + 1)) + list(range(t + 1, t + 1 + o_long - done))
        out["A2"] = check_pausable(inst, runs)
    a3 = earliest_fit(inst, shorts + [0])
    out["A3"] = check_pausable(inst, runs_of_starts(inst, a3.starts))
    for name in ("A1", "A3"):
        assert check_schedule(inst, a1 if name == "A1" else a3).tel == out[name].tel
    return out


# --------------------------------------------------------------------------- the adversary


@dataclass
class AdversaryResult:
    policy: str
    M: int
    k: int
    t_prime: int
    consistent: bool  # the policy starts the long request at t' again on the full instance
    tel: int
    opt_upper: int
    ratio_lower: float  # policy TEL / best known schedule: a lower bound on the policy's ratio here

    def row(self) -> dict:
        return {"policy": self.policy, "M": self.M, "k": self.k, "t_prime": self.t_prime,
                "consistent": self.consistent, "tel": self.tel, "opt_upper": self.opt_upper,
                "ratio_lower": self.ratio_lower}


def adversary_run(policy: str, M: int, k: int) -> AdversaryResult:
    """The adaptive adversary of Theorem 6.2 against a registered non-preemptive policy.

    The policy first sees the long request alone; the time ``t'`` at which it starts it fixes the
    short requests' arrival.  A deterministic online policy cannot tell the two inputs apart before
    then, so it starts the long request at ``t'`` again (``consistent``).  The OPT upper bound is the
    best of A3, A1 and the policy's own schedule (all checked).
    """
    pol = make_policy(policy)
    if pol.preemptive:
        raise ValueError(f"policy {policy!r} evicts requests (003's model); the adversary is for 004's")
    alone = Instance((long_request(M, k),), M)
    t_prime = int(simulate(alone, make_policy(policy)).schedule.starts[0])
    inst = instance(M, k, t_prime)
    res = simulate(inst, make_policy(policy))
    rep = check_schedule(inst, res.schedule)
    if not rep.valid or rep.tel != res.tel:
        raise AssertionError(f"{policy}: schedule rejected by the checker: {rep.violations[:3]}")
    sched = paper_schedules(M, k, t_prime)
    ub = min(sched["A3"].tel, sched["A1"].tel, int(res.tel))
    return AdversaryResult(pol.name, M, k, t_prime, int(res.schedule.starts[0]) == t_prime, int(res.tel),
                           int(ub), float(Fraction(int(res.tel), int(ub))))


# --------------------------------------------------------------------------- Theorem 6.4


def thm64_support(c: int, k: int) -> dict:
    """The distribution of the proof of Theorem 6.4 for ratio ``c`` and ``eps = 1/k``.

    The proof releases the short requests at ``t = k' M`` for ``k'`` in
    ``{1 - 2 eps, 1 - eps, ..., c + 1 - 2 eps}`` (step ``eps``), each with probability ``eps / c``,
    and says the probabilities sum to 1.  Returns the support size and the exact total mass.
    """
    e = Fraction(1, k)
    support = []
    x = 1 - 2 * e
    while x <= c + 1 - 2 * e:
        support.append(x)
        x += e
    mass = len(support) * e / c
    return {"c": c, "k": k, "support size": len(support), "total mass": mass, "first": support[0],
            "last": support[-1]}


# --------------------------------------------------------------------------- Remark 6.3


def _shorts_tel(M: int, s_long: int, o_long: int, p: int | None, r: int, q: int, s_short: int) -> int:
    """Sum of latencies of ``q`` requests ``(s_short, 1)`` released at ``r``, each started at the
    earliest round it fits beside the long request started at ``p`` (``None``: no long request).
    With a capacity fixed per round, this greedy order minimises the sum (identical unit requests)."""
    cap_full = M // (s_short + 1)
    if cap_full < 1:
        raise ValueError(f"a short request (prompt {s_short}) does not fit in M = {M}")
    end_long = -1 if p is None else p + o_long
    T = max(end_long, r) + -(-q // cap_full) + 1
    t = np.arange(r + 1, T + 1, dtype=np.int64)
    held = np.zeros_like(t)
    if p is not None:
        held = np.where((t >= p + 1) & (t <= p + o_long), s_long + t - p, 0)
    cap = np.maximum((M - held) // (s_short + 1), 0)
    cum = np.minimum(np.cumsum(cap), q)
    cnt = np.diff(np.concatenate([[0], cum]))
    return int(((t - r) * cnt).sum())


def remark63_row(M: int, k: int, q: int) -> dict:
    """Remark 6.3 (004, after Theorem 6.2) on one count: Theorem 6.2's instance (:func:`instance`,
    ``t' = 0``) with ``q`` short requests in place of ``eps M``.

    Columns: ``q``, ``q / (eps M)``; ``tel_continue`` - exact TEL of an algorithm that starts the long
    request at 0 and keeps it running (choice (i); in the pause model choice (ii) serves nobody, see
    :func:`paper_schedules`, so this is the least TEL of any algorithm that starts the long request
    at 0); ``opt`` - the exact non-preemptive optimum (every start ``p`` of the long request, the short
    requests greedily beside it); ``opt_lower`` - a lower bound on OPT in any model, pauses included
    (the long request's own output plus the short requests served alone); ``ratio_low`` =
    ``tel_continue / opt`` and ``ratio_high`` = ``tel_continue / opt_lower`` bracket the ratio.
    """
    e, o_long, _ = sizes(M, k)
    q = int(q)
    if q < 1:
        raise ValueError(f"q (number of short requests) must be >= 1, got {q}")
    r = release(M, k, 0)
    cont = o_long + _shorts_tel(M, e, o_long, 0, r, q, e)
    alone = _shorts_tel(M, e, o_long, None, r, q, e)
    cap_full = M // (e + 1)
    p_max = r + -(-q // cap_full)  # from here on the short requests never meet the long one
    opt = min(p + o_long + _shorts_tel(M, e, o_long, p, r, q, e) for p in range(0, p_max + 1))
    lower = o_long + alone
    if not lower <= opt <= cont:
        raise AssertionError(f"bracket out of order at M = {M}, k = {k}, q = {q}: {lower}, {opt}, {cont}")
    return {"M": int(M), "k": int(k), "q": q, "q / (eps M)": Fraction(q, e), "tel_continue": int(cont),
            "opt": int(opt), "opt_lower": int(lower), "ratio_low": cont / opt, "ratio_high": cont / lower}


def remark63_peak_estimate(M: int, k: int) -> float:
    """Our estimate of the worst count: ``sqrt(2 c (1 - eps) M)`` with ``c = floor(M / (eps M + 1))``
    short requests per round.  From ``TEL(continue) ~ (1-eps)M + q eps M + q^2/(2c)`` against
    ``OPT >= (1-eps)M + q^2/(2c)``: the quotient is largest at ``q^2 = 2c(1-eps)M``, where it is about
    ``1 + eps sqrt(c M / (2(1-eps)))``, growing like ``sqrt(M)``."""
    e, o_long, _ = sizes(M, k)
    c = M // (e + 1)
    return float(np.sqrt(2 * c * o_long))


def remark63_counts(M: int, k: int, max_factor: int = 32) -> list[int]:
    """The counts of the sweep: powers of two from 1 to ``max_factor * eps M``, ``eps M`` itself and
    :func:`remark63_peak_estimate` rounded."""
    e, _, _ = sizes(M, k)
    out = {e, max(1, round(remark63_peak_estimate(M, k)))}
    q = 1
    while q <= max_factor * e:
        out.add(q)
        q *= 2
    return sorted(out)
