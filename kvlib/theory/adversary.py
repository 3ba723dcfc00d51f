"""Lower-bound instance families and adversaries of the four papers.

Every generator here builds an ordinary :class:`~kvlib.core.model.Instance` in the
model of :mod:`kvlib.core.model` (001 Section 2 and its IP (1)-(4): a request started at ``p``
occupies ``p+1..p+o`` holding ``s + t - p``; memory ``<= M`` at every integer time; 002 Section 2
states the same rule: the ``j``-th output token of request ``i`` needs ``s_i + j``).  Each
construction below is the one of the paper's proof; the few details the text leaves open are
named *reading* where they are fixed, and our own additions are called *ours*.

001 Theorem 4.1 (no deterministic online algorithm beats ``Omega(sqrt n)``; proof in 001 Appendix B.1)
    :func:`thm41_adversary`.  The paper's instance: every prompt is ``s = 1``; one long request
    ``(s, o) = (1, M - 1)`` at ``t = 0``; the adversary observes the time ``b`` at which the
    algorithm starts it and releases ``M / 2`` short requests ``(1, 1)`` at
    ``r = b + M - sqrt(M)/2``.  Reading: the text needs ``M / 2`` and ``sqrt(M) / 2`` to be
    integers (``M = (2k)^2``); for other ``M`` we use ``M // 2`` short requests and
    ``h = floor(sqrt(M)) // 2``.  The proof's OPT bound (13) uses two explicit schedules
    (:func:`thm41_paper_opt_schedule`: long request first when ``r >= M``, else the short requests
    at ``r`` and the long one at ``r + 2``); our tighter OPT upper bound is the best of three
    explicit schedules (:func:`thm41_opt_schedules`, ours), each validated by the checker.
    :func:`thm41_paper_check` evaluates every displayed step of the proof on one ``(M, b)``, and
    :func:`thm41_displays` its identities in SymPy.

002 Theorem 1 (MC-SF unbounded when prompt sizes vary)
    :func:`wyz_thm1_instance`: ``M`` requests ``(sqrt(M) - 1, 1)`` and
    ``M^1.5`` requests ``(1, 2)``, all at ``t = 0``.  For non-square ``M`` we use
    ``m = floor(sqrt(M))`` in place of ``sqrt(M)`` and ``M * m`` in place of
    ``M^1.5``.  :func:`wyz_thm1_mcsf_tel` is our closed form for MC-SF's TEL.

002 Theorem EC.1 (MC-SF2 unbounded)
    :func:`wyz_ec1_instance`: ``M`` requests ``(1, sqrt(M) - 1)`` and
    ``M^1.5`` requests ``(sqrt(M), 1)`` (same rounding).

002 Theorem 2 (NP-hardness from 3-Partition) and Theorem EC.2 (makespan, from Partition)
    The paper's reductions (002 Appendix EC.1), exactly: item ``x_i`` becomes a request
    ``(x_i, 1)`` at ``t = 0`` and ``M = T`` (:func:`three_partition_instance`,
    :func:`partition_instance`).  Under 002's own memory rule such a request holds ``x_i + 1`` in
    its round, so the proofs' "yes" schedules do not fit (erratum).  Our corrected reductions:
    :func:`three_partition_instance_ours` (``M = T + 3``) and :func:`partition_instance_ours`
    (``(2 x_i - 1, 1)``, ``M = 2T``).

Our own variant (not a paper's construction)
    :func:`heavy_short_instance`: ``m = sqrt(M)`` requests ``(M - 1, 1)`` and
    ``M`` requests ``(1, 2)``, on which MC-SF's ratio does grow like ``sqrt(M)``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Request, Schedule
from kvlib.core.protocol import Policy
from kvlib.policies import POLICIES, make_policy
from kvlib.core.simulate import SimResult, simulate

# --------------------------------------------------------------------------- helpers


def earliest_fit(instance: Instance, order: Sequence[int], fixed: dict[int, int] | None = None,
                 horizon: int | None = None) -> Schedule:
    """An explicit schedule: requests in ``fixed`` start where given; the others, in ``order``,
    each at the earliest time ``p >= a_i`` at which it fits on top of everything already placed.

    Always feasible when ``fixed`` is (every request fits alone, eq. ``s + o <= M``);
    used to build OPT upper bounds.  Callers validate the result with the checker.
    """
    a, s, o, M = instance.arrival, instance.prompt, instance.output, instance.memory
    fixed = dict(fixed or {})
    if horizon is None:
        horizon = int(a.max()) + int(o.sum()) + max(fixed.values(), default=0) + 2
    use = np.zeros(horizon + int(o.max()) + 2, dtype=np.int64)
    starts = np.full(instance.n, -1, dtype=np.int64)
    for i, p in fixed.items():
        use[p + 1: p + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
        starts[i] = p
    if np.any(use > M):
        raise ValueError("the fixed part of the schedule already exceeds M")
    for i in order:
        if starts[i] >= 0:
            continue
        prof = s[i] + np.arange(1, o[i] + 1)
        p = int(a[i])
        while True:
            if np.all(use[p + 1: p + o[i] + 1] + prof <= M):
                break
            p += 1
        use[p + 1: p + o[i] + 1] += prof
        starts[i] = p
    if np.any(starts < 0):
        raise ValueError("order does not cover every request")
    return Schedule(tuple(int(x) for x in starts))


def non_preemptive_policies() -> list[str]:
    """Names of the registered policies that never evict (the model of 001 Section 4 and 002)."""
    out = []
    for name in POLICIES:
        try:
            pol = make_policy(name)
        except Exception:  # pragma: no cover - a policy that needs options
            continue
        if not pol.preemptive:
            out.append(name)
    return out


def run_policy(instance: Instance, policy: Policy, *, seed: int = 0) -> SimResult:
    """Simulate ``policy``; the interval policies of 003 (class attribute ``lower``/``upper`` use,
    :mod:`kvlib.policies.cyz`) are given exact intervals ``l = u = o`` with ``o`` hidden, except
    H-SF, which is told ``o``.  Every other policy is told the true ``o``."""
    try:
        from kvlib.policies.cyz import INTERVAL_POLICIES
    except ImportError:  # pragma: no cover - module of another chapter
        INTERVAL_POLICIES = {}
    if type(policy) in tuple(INTERVAL_POLICIES.values()):
        o = np.asarray(instance.output)
        return simulate(instance, policy, seed=seed, reveal_output=bool(getattr(policy, "hindsight", False)),
                        lower=o.copy(), upper=o.copy())
    return simulate(instance, policy, seed=seed)


# --------------------------------------------------------------------------- 001 Theorem 4.1


def thm41_h(M: int) -> int:
    """``sqrt(M)/2``, rounded as ``floor(sqrt(M)) // 2`` (exact when ``M = (2k)^2``)."""
    return math.isqrt(M) // 2


def thm41_release(M: int, b: int) -> int:
    """Release time of the short requests, ``r = b + M - sqrt(M)/2`` (001 Appendix B.1, proof of Theorem 4.1)."""
    return b + M - thm41_h(M)


def thm41_long(M: int) -> Request:
    """The long request at ``t = 0``: ``(s, o) = (1, M - 1)`` (001 Appendix B.1: ``s_i = 1`` for all ``i``)."""
    if M < 4:
        raise ValueError(f"M must be at least 4, got {M}")
    return Request(0, 1, M - 1)


def thm41_instance(M: int, b: int) -> Instance:
    """001 Theorem 4.1's instance for an algorithm that starts the long request at ``b``:
    request 0 is the long one, requests ``1 .. M//2`` are the short ones ``(1, 1)`` released at ``r``."""
    r = thm41_release(M, b)
    reqs = [thm41_long(M)] + [Request(r, 1, 1)] * (M // 2)
    return Instance(tuple(reqs), M)


def _thm41_fill(M: int, r: int, n_short: int, p_long: int | None) -> list[int]:
    """Start times of ``n_short`` requests ``(1, 1)`` released at ``r``, each round taking as many
    as fit beside the long request ``(1, M - 1)`` started at ``p_long`` (``None``: no long request).
    Identical to :func:`earliest_fit` on these instances, in ``O(rounds)``."""
    out: list[int] = []
    t = r
    while len(out) < n_short:
        u = t + 1
        held = 0
        if p_long is not None and p_long < u <= p_long + M - 1:
            held = 1 + u - p_long
        k = min(n_short - len(out), (M - held) // 2)
        out += [t] * max(k, 0)
        t += 1
    return out


def thm41_opt_schedules(instance: Instance) -> dict[str, Schedule]:
    """Our explicit schedules of a Theorem 4.1 instance (request 0 long, the rest short at ``r``);
    ours, tighter than the two of the paper's bound (13) (:func:`thm41_paper_opt_schedule`).

    * ``"long first"``: long at 0, the short ones each at the earliest round they fit;
    * ``"short first"``: the short ones each at the earliest round they fit (all at ``r``:
      ``M//2`` requests of two tokens), then the long one at the earliest time it fits;
    * ``"long delayed"``: long at the ``p`` in ``[0, r + 1]`` that minimises the TEL of "long at
      ``p``, the short ones at the earliest round they fit" (a grid of about 40 points, then every
      ``p`` around the best; on small instances the optimum starts the long request near ``M/2``,
      so that it is still small when the short ones arrive and they need only two rounds).
    """
    M, n = instance.memory, instance.n
    n_short = n - 1
    r = int(instance.arrival[1:].min())
    out = {}
    out["long first"] = Schedule(tuple([0] + _thm41_fill(M, r, n_short, 0)))
    shorts_alone = _thm41_fill(M, r, n_short, None)
    out["short first"] = earliest_fit(instance, [0], fixed={i + 1: p for i, p in enumerate(shorts_alone)})

    def tel_at(p: int) -> int:
        return p + sum(_thm41_fill(M, r, n_short, p))

    step = max(1, (r + 2) // 40)
    grid = {p: tel_at(p) for p in range(0, r + 2, step)}
    best = min(grid, key=grid.__getitem__)
    for p in range(max(0, best - step), min(r + 1, best + step) + 1):
        if p not in grid:
            grid[p] = tel_at(p)
    best = min(grid, key=grid.__getitem__)
    out["long delayed"] = Schedule(tuple([best] + _thm41_fill(M, r, n_short, best)))
    return out


def thm41_opt_upper(instance: Instance) -> tuple[int, str, Schedule]:
    """Best explicit schedule (TEL, name, schedule), validated by the checker."""
    best = None
    for name, sch in thm41_opt_schedules(instance).items():
        rep = check_schedule(instance, sch).raise_if_invalid()
        if best is None or rep.tel < best[0]:
            best = (int(rep.tel), name, sch)
    assert best is not None
    return best


def thm41_claimed_bound(M: int) -> float:
    """The ratio 001 Theorem 4.1 claims every deterministic algorithm incurs: ``sqrt(M)/28``."""
    return math.sqrt(M) / 28.0


def thm41_paper_opt_schedule(instance: Instance) -> tuple[str, Schedule]:
    """The schedule behind 001's OPT bound (13) (Appendix B.1), on a Theorem 4.1 instance.

    * ``r >= M`` (case "r >= M"): the long request at 0 (it completes at ``M - 1 < r``), every short
      request at ``r`` (``M/2`` requests of two tokens fill the memory in one round);
    * ``r < M`` (case "r < M"): every short request at ``r``, the long request at ``r + 2``, as the
      proof writes (it would already fit at ``r + 1``).

    Returns ``(case, schedule)``; the caller validates it with the checker.
    """
    M, n = instance.memory, instance.n
    r = int(instance.arrival[1:].min())
    if r >= M:
        return "r >= M", Schedule(tuple([0] + [r] * (n - 1)))
    return "r < M", Schedule(tuple([r + 2] + [r] * (n - 1)))


def thm41_paper_opt_value(M: int, r: int, n_short: int | None = None) -> int:
    """The value the proof of 001 Theorem 4.1 writes for its schedule's TEL: ``M - 1 + M/2`` when
    ``r >= M``, ``M/2 + r + 1 + M`` when ``r < M`` (``M/2`` = the number of short requests)."""
    q = M // 2 if n_short is None else int(n_short)
    return (M - 1 + q) if r >= M else (q + r + 1 + M)


def thm41_min_alg_tel(M: int, b: int) -> int:
    """The least TEL of any non-preemptive algorithm that starts the long request at ``b`` on
    :func:`thm41_instance` ``(M, b)``: the long request is fixed, and the identical unit-length short
    requests are best started each at the earliest round they fit (with a capacity fixed per round,
    starting as many as possible as early as possible minimises the sum of completions).
    This is the quantity the proof bounds below by ``(M/4)(sqrt(M)/2)``."""
    r = thm41_release(M, b)
    starts = _thm41_fill(M, r, M // 2, b)
    return (b + M - 1) + sum(p + 1 - r for p in starts)


def thm41_window(M: int, b: int) -> dict[str, int]:
    """The counting step of the proof on :func:`thm41_instance` ``(M, b)``, in our time indexing.

    ``free``: tokens left beside the long request, summed over the rounds ``t`` in which a short
    request released at ``r`` could run while the long one still runs (``r + 1 <= t <= b + M - 1``;
    the proof bounds this by ``(sqrt(M)/2)^2 = M/4``).  ``early``: the most short requests any
    schedule with the long request at ``b`` completes before ``b + M`` (each needs two tokens), which
    the proof bounds by ``M/4``; all others have latency at least ``b + M - r = sqrt(M)/2``.
    """
    r = thm41_release(M, b)
    free = sum(M - (1 + t - b) for t in range(r + 1, b + M))
    starts = _thm41_fill(M, r, M // 2, b)
    early = sum(1 for p in starts if p + 1 < b + M)
    return {"free": int(free), "early": int(early), "late": int(M // 2 - early)}


def thm41_paper_check(M: int, b: int = 0) -> dict:
    """Every displayed step of the proof of 001 Theorem 4.1 (Appendix B.1) on one ``(M, b)``.

    Columns: ``M``, ``b``, ``h`` (``sqrt(M)/2``), ``r``, ``case`` of (13), ``paper_opt_tel`` (TEL of
    :func:`thm41_paper_opt_schedule`, checked), ``paper_opt_formula`` (:func:`thm41_paper_opt_value`),
    ``bound_13`` (``3.5 M``), ``our_opt_upper`` (best of :func:`thm41_opt_schedules`), ``min_alg_tel``
    (:func:`thm41_min_alg_tel`), ``paper_alg_lower`` (``(M/4) h``), ``free``/``early`` of
    :func:`thm41_window` beside the proof's ``M/4``, ``ratio`` (``min_alg_tel / paper_opt_tel``), and
    ``claimed`` (``sqrt(M)/28``).  Needs ``M = (2k)^2`` (``M/2``, ``sqrt(M)/2`` integral), ``k >= 2``.
    """
    h = thm41_h(M)
    if (2 * h) ** 2 != M or h < 2:
        raise ValueError(f"the proof's counts are integral for M = (2k)^2 with k >= 2, got M = {M}")
    if b < 0:
        raise ValueError(f"b (start of the long request) must be >= 0, got {b}")
    inst = thm41_instance(M, b)
    r = thm41_release(M, b)
    case, sch = thm41_paper_opt_schedule(inst)
    tel = int(check_schedule(inst, sch).raise_if_invalid().tel)
    ours, ours_name, _ = thm41_opt_upper(inst)
    w = thm41_window(M, b)
    alg = thm41_min_alg_tel(M, b)
    return {"M": int(M), "b": int(b), "h": int(h), "r": int(r), "case": case,
            "paper_opt_tel": tel, "paper_opt_formula": int(thm41_paper_opt_value(M, r)),
            "bound_13": 3.5 * M, "our_opt_upper": int(ours), "our_opt_from": ours_name,
            "min_alg_tel": int(alg), "paper_alg_lower": M * h // 4,
            "free": w["free"], "early": w["early"], "M/4": M // 4,
            "ratio": alg / tel, "claimed": thm41_claimed_bound(M)}


def thm41_displays() -> list[dict]:
    """The identities of the proof of 001 Theorem 4.1 in SymPy (``M``, ``b`` symbolic, positive).

    Each row: the step, the two sides as the proof writes them (``r`` symbolic in the rows of (13)),
    and ``rhs - lhs`` (zero for an identity; for an inequality ``lhs <= rhs`` it must be
    non-negative under the stated condition).  The last row compares the two definitions of ``r``
    the proof uses (``b + M - sqrt(M)/2`` where the instance is built, ``b + (M - 1) - sqrt(M)/2``
    where TEL is bounded).
    """
    import sympy as sp

    M, b, R = sp.symbols("M b r", positive=True)
    h = sp.sqrt(M) / 2
    r = b + M - h
    rows = [
        ("(13), case r >= M: M - 1 + M/2 <= 3.5 M", M - 1 + M / 2, sp.Rational(7, 2) * M, "M > 0"),
        ("(13), case r < M: M/2 + r + 1 + M <= 2.5 M + 1", M / 2 + R + 1 + M, sp.Rational(5, 2) * M + 1, "r < M"),
        ("(13), case r < M: 2.5 M + 1 <= 3.5 M", sp.Rational(5, 2) * M + 1, sp.Rational(7, 2) * M, "M >= 1"),
        ("free memory over the window: (sqrt M/2)(sqrt M/2) = M/4", h * h, M / 4, "identity"),
        ("short requests left: M/2 - M/4 = M/4", M / 2 - M / 4, M / 4, "identity"),
        ("their latency: b + M - r = sqrt M/2", b + M - r, h, "identity"),
        ("ratio: (M/4)(sqrt M/2) / (3.5 M) = sqrt M/28", (M / 4) * h / (sp.Rational(7, 2) * M), sp.sqrt(M) / 28,
         "identity"),
        ("r as restated in the TEL bound vs r as defined", r, b + (M - 1) - h, "one round apart"),
    ]
    out = []
    for name, lhs, rhs, cond in rows:
        d = sp.simplify(rhs - lhs)
        out.append({"step": name, "lhs": lhs, "rhs": rhs, "rhs - lhs": d, "condition": cond})
    return out


@dataclass
class AdversaryRun:
    """Outcome of the adaptive adversary of 001 Theorem 4.1 against one policy."""

    policy: str
    M: int
    b: int  #: start of the long request when it is alone
    b_full: int  #: start of the long request in the full instance (must equal ``b``)
    r: int
    instance: Instance
    sim: SimResult
    alg_tel: int
    opt_upper: int
    opt_upper_name: str
    lower: int  #: a lower bound on OPT (volume bound of kvlib.optimum.bounds)

    @property
    def consistent(self) -> bool:
        """The policy started the long request at the same time in both runs (online behaviour)."""
        return self.b == self.b_full

    @property
    def ratio_lower(self) -> float:
        """``TEL(policy) / OPT_upper``: a lower bound on the policy's ratio on this instance."""
        return self.alg_tel / self.opt_upper


def thm41_adversary(policy: str | Callable[[], Policy], M: int, *, seed: int = 0,
                    policy_options: dict | None = None) -> AdversaryRun:
    """Run the adaptive adversary of 001 Theorem 4.1 against ``policy``.

    1. simulate the policy on the long request alone and read its start ``b``;
    2. build the full instance with the short requests at ``r = b + M - sqrt(M)/2``;
    3. simulate again; a deterministic online policy cannot tell the two inputs
       apart before ``r`` and so starts the long request at ``b`` again
       (``b_full``; :attr:`AdversaryRun.consistent` records the check).
    """
    from kvlib.optimum.bounds import volume_lower_bound

    def fresh() -> Policy:
        if callable(policy) and not isinstance(policy, str):
            return policy()
        return make_policy(policy, **(policy_options or {}))

    alone = Instance((thm41_long(M),), M)
    s1 = run_policy(alone, fresh(), seed=seed)
    b = int(s1.schedule.starts[0])
    inst = thm41_instance(M, b)
    pol = fresh()
    s2 = run_policy(inst, pol, seed=seed)
    check_schedule(inst, s2.schedule, allow_cancellation=True).raise_if_invalid()
    ub, name, _ = thm41_opt_upper(inst)
    ub = min(ub, s2.tel) if not s2.schedule.cancelled else ub
    return AdversaryRun(
        policy=pol.name, M=M, b=b, b_full=int(s2.schedule.starts[0]), r=thm41_release(M, b),
        instance=inst, sim=s2, alg_tel=int(s2.tel), opt_upper=int(ub), opt_upper_name=name,
        lower=int(volume_lower_bound(inst)),
    )


def thm41_tel_formula(M: int) -> dict[str, int]:
    """Our closed forms for ``b = 0`` and ``M = (2k)^2``, ``k >= 2`` (derived in the chapter).

    * a policy that starts every short request as soon as it fits beside the long one
      (MC-SF, FCFS, MC-Benchmark, MC-SF2 all do) has
      ``TEL = (M - 1) + sum_j (c_j - r)`` where ``floor((k - 2 - j) / 2)`` short
      requests start at ``r + j`` (``j = 0 .. k - 3``) and the rest at ``M - 1``;
    * the "short first" schedule has ``TEL = M/2 + (r + M)`` with ``r = M - k``.
    """
    k = thm41_h(M)
    if (2 * k) ** 2 != M or k < 2:
        raise ValueError(f"closed form needs M = (2k)^2 with k >= 2, got M = {M}")
    r = M - k
    n_short = M // 2
    early = [(k - 2 - j) // 2 for j in range(k - 2)]
    tel_short = sum(cnt * (j + 1) for j, cnt in enumerate(early))
    tel_short += (n_short - sum(early)) * (M - r)
    return {"alg": (M - 1) + tel_short, "short_first": n_short + r + M}


# --------------------------------------------------------------------------- 002 Theorem 1 / EC.1


def _root(M: int) -> int:
    m = math.isqrt(M)
    if m < 2:
        raise ValueError(f"M must be at least 4, got {M}")
    return m


def wyz_thm1_instance(M: int) -> Instance:
    """002 Theorem 1: ``M`` requests ``(m - 1, 1)`` (the X's) then ``M m`` requests ``(1, 2)`` (the Y's),
    ``m = floor(sqrt(M))``; all arrive at 0.  Ids: X's ``0 .. M-1``, Y's after."""
    m = _root(M)
    if m < 2:
        raise ValueError("need sqrt(M) >= 2 so that the X prompt is positive")
    nx, ny = M, M * m
    return Instance.at_zero([m - 1] * nx + [1] * ny, [1] * nx + [2] * ny, M)


def wyz_ec1_instance(M: int) -> Instance:
    """002 Theorem EC.1: ``M`` requests ``(1, m - 1)`` (X) then ``M m`` requests ``(m, 1)`` (Y), ``m = floor(sqrt(M))``."""
    m = _root(M)
    if m < 2:
        raise ValueError("need sqrt(M) >= 2")
    nx, ny = M, M * m
    return Instance.at_zero([1] * nx + [m] * ny, [m - 1] * nx + [1] * ny, M)


def wyz_thm1_mcsf_tel(M: int) -> int:
    """Our closed form for MC-SF's TEL on :func:`wyz_thm1_instance`, valid for ``M = m^2`` with ``3 | m``.

    X phase: ``m`` X's per round (each holds ``m``), rounds ``1..m``: ``m * m(m+1)/2``.
    Y phase from ``t = m``: batches of ``M/3`` every two rounds (``3 M/3 = M`` at the
    batch's second round leaves no room), ``3m`` batches completing at ``m + 2 + 2i``:
    ``(M/3) sum_i (m + 2 + 2i) = 4 m^4 + m^3``.  Total ``4 M^2 + 1.5 M^1.5 + M/2``.
    """
    m = math.isqrt(M)
    if m * m != M or m % 3:
        raise ValueError(f"closed form needs M = m^2 with m divisible by 3, got M = {M}")
    return m * m * (m + 1) // 2 + 4 * m ** 4 + m ** 3


def pipelined_y_schedule(instance: Instance, ids_y: Sequence[int], others: Sequence[int]) -> Schedule:
    """Explicit schedule: the two-round requests ``ids_y`` (all ``(1, 2)``) pipelined, ``x = floor(M/5)``
    starting in every round (two overlapping cohorts hold ``2x + 3x <= M``); then ``others``, in the
    order given, each at the earliest time it fits (:func:`earliest_fit`)."""
    M = instance.memory
    x = M // 5
    fixed = {int(i): k // x for k, i in enumerate(ids_y)}
    return earliest_fit(instance, list(others), fixed=fixed)


def wyz_claimed_thm1(M: int) -> float:
    """The ratio the proof of 002 Theorem 1 derives for MC-SF (002 Appendix EC.1): ``(2/13) sqrt(M)``."""
    return 2.0 / 13.0 * math.sqrt(M)


def wyz_claimed_ec1(M: int) -> float:
    """The ratio the proof of 002 Theorem EC.1 derives for MC-SF2 (002 Appendix EC.1): ``(2/3) sqrt(M)``."""
    return 2.0 / 3.0 * math.sqrt(M)


def heavy_short_instance(M: int) -> Instance:
    """Our variant (not a paper's): ``m = floor(sqrt(M))`` requests ``(M - 1, 1)`` (each fills the
    memory for one round) and ``M`` requests ``(1, 2)``, all at 0.  MC-SF runs the heavy ones first
    (shorter output), delaying the ``M`` light ones by ``m`` rounds each: ratio ``Theta(sqrt(M))``."""
    m = _root(M)
    return Instance.at_zero([M - 1] * m + [1] * M, [1] * m + [2] * M, M)


# --------------------------------------------------------------------------- 002 Theorem 2 / EC.2


def _three_partition_conditions(b: Sequence[int], B: int) -> list[int]:
    b = [int(x) for x in b]
    if len(b) % 3:
        raise ValueError(f"3-Partition needs 3m numbers, got {len(b)}")
    m = len(b) // 3
    if sum(b) != m * B:
        raise ValueError(f"3-Partition needs sum b = m B = {m * B}, got {sum(b)}")
    bad = [x for x in b if not (4 * x > B and 2 * x < B)]
    if bad:
        raise ValueError(f"3-Partition needs B/4 < b_j < B/2 (B = {B}); violated by {bad}")
    return b


def three_partition_instance(x: Sequence[int], T: int, *, strict: bool = True) -> Instance:
    """002 Theorem 2's reduction (002 Appendix EC.1), exactly: item ``x_i`` -> request
    ``(s_i, o_i) = (x_i, 1)`` at ``t = 0``, memory ``M = T``.

    Under 002's memory rule (Section 2: the ``j``-th token needs ``s_i + j``) the request holds
    ``x_i + 1`` in its round, so a set of items shares a round iff their sum plus their number is at
    most ``T``; a triple summing to ``T`` does not fit (erratum "002 NP-hardness").  With ``strict``
    the 3-Partition conditions are enforced: ``len(x) = 3m``, ``sum x = m T``, ``T/4 < x_i < T/2``.
    """
    x = _three_partition_conditions(x, T) if strict else [int(v) for v in x]
    return Instance.at_zero(x, [1] * len(x), int(T))


def three_partition_instance_ours(b: Sequence[int], B: int, *, strict: bool = True) -> Instance:
    """Our corrected reduction for 002 Theorem 2: item ``b_j`` -> request ``(b_j, 1)`` at 0 and
    ``M = B + 3`` (the paper's ``M = B`` plus the three generated tokens of a full round).

    A request ``(b_j, 1)`` holds ``b_j + 1`` tokens in its only round, so three items
    share a round iff ``b_i + b_j + b_k <= B``.  With ``strict`` the 3-Partition
    conditions are enforced: ``len(b) = 3m``, ``sum b = m B``, ``B/4 < b_j < B/2``.
    """
    b = _three_partition_conditions(b, B) if strict else [int(x) for x in b]
    return Instance.at_zero(b, [1] * len(b), B + 3)


def three_partition_target(m: int) -> int:
    """TEL of a yes-instance (three requests complete at each of ``t = 1..m``): ``3 m (m + 1) / 2``."""
    return 3 * m * (m + 1) // 2


def three_partition_schedule(triples: Sequence[Sequence[int]]) -> Schedule:
    """Triple ``k`` (indices into ``b``) starts at ``t = k``."""
    n = sum(len(t) for t in triples)
    p = [0] * n
    for k, tr in enumerate(triples):
        for j in tr:
            p[j] = k
    return Schedule(tuple(p))


def find_three_partition(b: Sequence[int], B: int) -> list[tuple[int, int, int]] | None:
    """A 3-partition of ``b`` (triples of indices summing to ``B``) by backtracking, or None."""
    b = list(b)
    left = list(range(len(b)))

    def rec(left: list[int]) -> list[tuple[int, int, int]] | None:
        if not left:
            return []
        i = left[0]
        rest = left[1:]
        for j, k in itertools.combinations(range(len(rest)), 2):
            if b[i] + b[rest[j]] + b[rest[k]] == B:
                remaining = [x for q, x in enumerate(rest) if q not in (j, k)]
                sub = rec(remaining)
                if sub is not None:
                    return [(i, rest[j], rest[k])] + sub
        return None

    return rec(left)


def random_three_partition(rng: np.random.Generator, m: int, B: int, yes: bool = True,
                           max_tries: int = 10_000) -> list[int]:
    """Random 3-Partition numbers with ``B/4 < b_j < B/2`` and ``sum = m B``.

    ``yes=True``: built from ``m`` random triples summing to ``B``.  ``yes=False``:
    random numbers in the range, with the right sum, rejected until no 3-partition
    exists (checked by :func:`find_three_partition`).
    """
    lo, hi = B // 4 + 1, (B - 1) // 2  # integers strictly inside (B/4, B/2)
    if lo > hi:
        raise ValueError(f"no integer strictly between B/4 and B/2 for B = {B}")
    for _ in range(max_tries):
        if yes:
            out = []
            for _ in range(m):
                x = int(rng.integers(lo, hi + 1))
                y = int(rng.integers(lo, hi + 1))
                z = B - x - y
                if not lo <= z <= hi:
                    break
                out += [x, y, z]
            else:
                perm = rng.permutation(len(out))
                return [out[i] for i in perm]
        else:
            out = [int(x) for x in rng.integers(lo, hi + 1, size=3 * m - 1)]
            z = m * B - sum(out)
            if lo <= z <= hi:
                out.append(z)
                if find_three_partition(out, B) is None:
                    return out
    raise RuntimeError(f"no {'yes' if yes else 'no'}-instance found in {max_tries} tries (m = {m}, B = {B})")


def partition_instance(x: Sequence[int]) -> Instance:
    """002 Theorem EC.2's reduction (002 Appendix EC.1), exactly: ``x_i`` -> request ``(x_i, 1)`` at
    ``t = 0``, memory ``M = T`` where ``sum x = 2T``.

    The request holds ``x_i + 1`` in its round (002 Section 2), so a half summing to ``T`` does not
    fit in one round (erratum "002 NP-hardness").  Errors: a non-positive item, an odd total (no
    integer ``T``), or an item with ``x_i + 1 > T`` (002's hypothesis ``s_i + o_i <= M``).
    """
    x = [int(v) for v in x]
    bad = [v for v in x if v < 1]
    if bad:
        raise ValueError(f"Partition numbers must be positive; got {bad}")
    total = sum(x)
    if total % 2:
        raise ValueError(f"the Partition total must be even (2T) for the reduction's M = T; got {total}")
    T = total // 2
    big = [v for v in x if v + 1 > T]
    if big:
        raise ValueError(f"items {big} violate s_i + o_i <= M = T = {T} (002's hypothesis of Theorem EC.2)")
    return Instance.at_zero(x, [1] * len(x), T)


def partition_instance_ours(a: Sequence[int]) -> Instance:
    """Our corrected reduction for 002 Theorem EC.2: ``a_j`` -> request ``(2 a_j - 1, 1)`` at 0,
    ``M = sum a`` (= ``2T``).

    The request holds ``2 a_j`` in its only round; a round holds a set ``S`` iff
    ``2 sum_S a <= sum a``.  So makespan 2 iff ``a`` has a partition into two equal halves.
    (Doubling keeps the prompt ``2 a_j - 1`` positive even for ``a_j = 1``.)
    """
    a = [int(x) for x in a]
    if any(x < 1 for x in a):
        raise ValueError("Partition numbers must be positive")
    total = sum(a)
    if any(2 * x > total for x in a):
        raise ValueError("an item larger than half the total: trivially a no-instance (and too big for M)")
    return Instance.at_zero([2 * x - 1 for x in a], [1] * len(a), total)


def min_rounds_unit(instance: Instance) -> tuple[int, Schedule]:
    """Minimum makespan of an all-at-zero instance whose requests all have ``o = 1`` (bin packing
    of ``s_i + 1`` into rounds of capacity ``M``), by exhaustive search; ``n <= 14``."""
    if np.any(instance.output != 1) or np.any(instance.arrival != 0):
        raise ValueError("min_rounds_unit needs o = 1 and a = 0 for every request")
    n = instance.n
    if n > 14:
        raise ValueError("exhaustive search limited to n <= 14")
    w = [int(x) + 1 for x in instance.prompt]
    M = instance.memory
    order = sorted(range(n), key=lambda i: -w[i])
    for k in range(1, n + 1):
        loads = [0] * k
        assign = [-1] * n

        def place(q: int) -> bool:
            if q == n:
                return True
            i = order[q]
            seen = set()
            for r in range(k):
                if loads[r] + w[i] <= M and loads[r] not in seen:
                    seen.add(loads[r])
                    loads[r] += w[i]
                    assign[i] = r
                    if place(q + 1):
                        return True
                    loads[r] -= w[i]
            return False

        if place(0):
            return k, Schedule(tuple(assign))
    raise AssertionError("unreachable")  # pragma: no cover


def has_partition(a: Sequence[int]) -> bool:
    """Subset-sum check: can ``a`` be split into two halves of equal sum?"""
    total = sum(a)
    if total % 2:
        return False
    reach = {0}
    for x in a:
        reach |= {y + x for y in reach if y + x <= total // 2}
    return total // 2 in reach
