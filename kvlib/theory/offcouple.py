"""004 Section 5 (fully online stochastic setting): Theorem 5.3's proof objects, Algorithm 3 (Off-Couple).

004 (the first version of 001) claims in Theorem 5.3 that the regret ``E[AEL(MC-SF) - OPT/n]`` of its
Algorithm 2 (MC-SF; :mod:`kvlib.policies.jaillet`) is bounded by a constant independent of the
horizon ``T``.  Its assumptions (004 Section 3, arrival model 2): in every round the number of
arrivals is drawn i.i.d. from a distribution ``D`` with bounded support ``[0, B]`` and mean
``lambda``; every output length is drawn i.i.d. from a CDF ``F`` and is known on arrival; all
prompts have one size ``s``.  :func:`stochastic_instance` draws such an instance with
``D = Binomial(B, p)`` and ``F`` uniform on ``1..o_max`` (our choices of ``D`` and ``F``).

The proof (004 Section 5.1) telescopes the regret into the *compensated values*
``CP_(t+1) = L^OFF_(t+1)(online state at t+1) - L^OFF_(t+1)(state at t+1 of OFF started from the
online state at t)``, where ``OFF`` is the hindsight optimum from a given state.  Here every term is
exact: :func:`residual_opt` is an exact branch and bound for the optimum from a state (requests
started before ``t0`` keep their starts), so ``CP_(t+1)`` is the difference of two certified optima
and the identity ``sum_t CP_(t+1) = TEL(MC-SF) - OPT`` is checked to the integer
(:func:`coupling_trace`).  All latencies are totals over every request of the instance; two
schedules that agree before round ``t + 1`` have accrued the same latency, so differences of totals
are the paper's differences of ``L_(t+1)``.

Algorithm 3 (Off-Couple, :func:`off_couple`), as we read it.  Conventions: a decision at time
``tau`` starts requests that are processed in rounds ``tau + 1 .. tau + o`` (001 Section 3); 004's
"process at round ``t + 1``" is a decision at ``t``.

* at ``t``: start MC-SF's batch ``U^(t)`` (the requests MC-SF starts at ``t``); the running
  requests ``S_ON^(t)`` keep running;
* ``t_hat``: the first time at which OFF has completed every request of ``S_ON^(t) u U^(t)``;
* at ``t < tau < t_hat``: continue the running requests and choose among the requests OFF has
  started by ``tau`` but OC has not, by 004's Equation (2); *reading*: Equation (2) is applied as
  004's Algorithm 1 implements it (ascending output length, ties by arrival then index, add while
  the memory check of Equation (1) passes, stop at the first that fails);
* at ``tau >= t_hat``: replicate OFF: start every request that OFF starts at ``tau`` (no memory
  check: the text replicates decisions); *reading* for requests OFF started before ``tau`` that OC
  has not started ("leftovers", which the text does not mention): they are added by Equation (2)
  after the replicated ones, so that OC is a complete schedule.  Whether leftovers occur, and
  whether replication overflows memory, is reported (``leftovers``, ``lemma54_i``).

Lemma 5.4 (:func:`lemma54_checks`): (i) OC never exceeds ``M`` (the independent checker
:func:`kvlib.core.checker.check_schedule` on OC's start vector); (ii) by ``t_hat`` OC has completed
every request OFF completes by ``t_hat``; (iii) OC's memory at time ``t_hat`` (tokens held in
round ``t_hat``, :func:`kvlib.core.model.memory_profile`) is at most OFF's.  Also reported: whether
OC's state at ``t_hat`` (running requests with their starts, waiting requests) equals OFF's, which
the text after Algorithm 3 asserts, and display (7)'s reduction of ``L^OC - L^OFF`` to the rounds
``t + 1 .. t_hat``.

Lemmas 5.5 and 5.6 (004 Appendix B.3, B.4): :func:`hoeffding_display` evaluates the displayed
concentration step exactly for ``D = Binomial(B, p)`` (the count of short arrivals in a window is
then ``Binomial(B C, p q)``); :func:`min_output_display` compares Lemma 5.6's display
``Pr(o_min <= x) = 1 - (1 - F(x))^|R|`` with MC-SF's waiting queues.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule, memory_profile
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy

__all__ = ["stochastic_instance", "load_factor", "residual_opt", "mcsf_starts", "off_couple", "CoupleResult",
           "lemma54_checks", "coupling_trace", "hoeffding_display", "min_output_display", "regret_point"]


# ------------------------------------------------------------------------------------ instances


def _check_params(T: int, M: int, s: int, B: int, p: float, o_max: int) -> None:
    for name, v, lo in (("T", T, 1), ("M", M, 1), ("s", s, 1), ("B", B, 1), ("o_max", o_max, 1)):
        if int(v) != v or v < lo:
            raise ValueError(f"stochastic_instance: {name} must be an integer >= {lo}, got {v!r}")
    if not 0 < p <= 1:
        raise ValueError(f"stochastic_instance: p must be in (0, 1], got {p!r}")
    if s + o_max > M:
        raise ValueError(f"stochastic_instance: a request (s, o_max) = ({s}, {o_max}) does not fit in M = {M}")


def stochastic_instance(rng: np.random.Generator, T: int, M: int, s: int, B: int, p: float, o_max: int) -> Instance:
    """004's arrival model 2: ``Binomial(B, p)`` arrivals in each round ``0..T-1``, ``o ~ U{1..o_max}``, prompt ``s``.

    Bounded support ``[0, B]`` and mean ``lambda = B p`` as Theorem 5.3 assumes.  Draws come from ``rng`` only;
    an instance with no arrival gets one request at ``t = 0`` (so that it is not empty).
    """
    _check_params(T, M, s, B, p, o_max)
    counts = rng.binomial(int(B), float(p), size=int(T))
    if counts.sum() == 0:
        counts[0] = 1
    a = np.repeat(np.arange(int(T)), counts)
    o = rng.integers(1, int(o_max) + 1, size=len(a))
    return Instance.from_arrays(a, [int(s)] * len(a), o, int(M))


def load_factor(M: int, s: int, B: int, p: float, o_max: int) -> float:
    """``lambda E[vol_o] / M``: expected token-rounds arriving per round over the memory (``> 1``: overloaded).

    Above 1 every schedule's queue grows (the volume arriving exceeds what ``M`` can hold); below 1 it is
    a necessary condition for 004's stable regime, whose threshold ``mu*`` the paper does not compute.
    """
    o = np.arange(1, int(o_max) + 1)
    return float(B * p * np.mean(s * o + o * (o + 1) / 2) / M)


# ------------------------------------------------------------------------- exact optimum from a state


def residual_opt(instance: Instance, fixed: dict[int, int], t0: int, *, upper: Optional[Sequence[int]] = None,
                 node_limit: int = 2_000_000) -> tuple[int, tuple[int, ...]]:
    """Hindsight optimum from a state: requests in ``fixed`` keep their starts, every other starts at ``>= t0``.

    Exact branch and bound (requests placed in non-decreasing start order, equal starts in increasing
    index; bound: every unplaced request completes no earlier than ``max(p, a_j) + o_j``).  ``upper``: a feasible start vector agreeing with
    ``fixed`` (its TEL is the cut-off; it is returned if nothing is strictly better).  Returns
    ``(TEL, starts)`` over all requests; raises ``RuntimeError`` beyond ``node_limit`` nodes.
    """
    n = instance.n
    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    M = int(instance.memory)
    for i, p in fixed.items():
        if not 0 <= i < n:
            raise ValueError(f"residual_opt: fixed request {i} is not in the instance (n = {n})")
        if p < a[i] or p >= t0:
            raise ValueError(f"residual_opt: fixed request {i} starts at {p}, not in [arrival {a[i]}, t0 = {t0})")
    H = max(max((a[i] for i in range(n)), default=0), t0) + sum(o) + 2
    usage = np.zeros(H + max(o, default=0) + 2, dtype=np.int64)
    ramp = {oi: np.arange(1, oi + 1, dtype=np.int64) for oi in set(o)}
    base = 0
    for i, p in fixed.items():
        usage[p + 1: p + o[i] + 1] += s[i] + ramp[o[i]]
        base += p + o[i] - a[i]
    if np.any(usage > M):
        raise ValueError("residual_opt: the fixed requests alone exceed the memory")
    free = [i for i in range(n) if i not in fixed]
    twin = {}
    for k, i in enumerate(free):
        for j in reversed(free[:k]):
            if (a[j], s[j], o[j]) == (a[i], s[i], o[i]):
                twin[i] = j
                break
    starts = [-1] * n
    for i, p in fixed.items():
        starts[i] = p
    best: list = [10 ** 18, None]
    if upper is not None:
        up = [int(x) for x in upper]
        if any(up[i] != p for i, p in fixed.items()) or any(up[i] < max(a[i], t0) for i in free):
            raise ValueError("residual_opt: the upper schedule does not agree with the state")
        rep = check_schedule(instance, Schedule(tuple(up)))
        if not rep.valid:
            raise ValueError(f"residual_opt: the upper schedule is infeasible: {rep.violations[:2]}")
        best = [int(rep.tel), tuple(up)]
    nodes = [0]
    lo0 = [max(a[i], t0) for i in range(n)]

    def dfs(placed: int, last: int, last_i: int, tel: int) -> None:
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise RuntimeError(f"residual_opt: more than {node_limit} nodes")
        if placed == len(free):
            if tel < best[0]:
                best[0], best[1] = tel, tuple(starts)
            return
        for i in free:
            if starts[i] >= 0 or (i in twin and starts[twin[i]] < 0):
                continue
            # requests with equal starts are placed in increasing index (one order per set of starts)
            for p in range(max(lo0[i], last + (1 if i < last_i else 0)), H - o[i] + 1):
                rest = sum(max(p, lo0[j]) + o[j] - a[j] for j in free if starts[j] < 0 and j != i)
                if tel + p + o[i] - a[i] + rest >= best[0]:
                    break
                seg = usage[p + 1: p + o[i] + 1]
                if np.any(seg + s[i] + ramp[o[i]] > M):
                    continue
                seg += s[i] + ramp[o[i]]
                starts[i] = p
                dfs(placed + 1, p, i, tel + p + o[i] - a[i])
                starts[i] = -1
                seg -= s[i] + ramp[o[i]]

    dfs(0, t0, -1, base)
    if best[1] is None:  # pragma: no cover - every request fits alone, so a schedule exists
        raise RuntimeError("residual_opt: no feasible schedule found")
    rep = check_schedule(instance, Schedule(best[1]))
    if not rep.valid or rep.tel != best[0]:  # pragma: no cover - defensive
        raise AssertionError("residual_opt produced a schedule the checker rejects")
    return int(best[0]), tuple(int(x) for x in best[1])


def mcsf_starts(instance: Instance) -> tuple[int, tuple[int, ...]]:
    """MC-SF (004's Algorithm 2) simulated and checked: ``(TEL, starts)``."""
    res = simulate(instance, make_policy("mc-sf"))
    rep = check_schedule(instance, res.schedule)
    rep.raise_if_invalid()
    return int(rep.tel), tuple(int(x) for x in res.schedule.starts)


# -------------------------------------------------------------------------------- Algorithm 3


@dataclass(frozen=True)
class CoupleResult:
    """Off-Couple started at ``t``: its start vector, ``t_hat``, leftovers and replicated starts."""

    t: int
    t_hat: int
    starts: tuple[int, ...]
    leftovers: int  # requests OFF had started before a replication time that OC had not started
    replicated: int  # requests OC started by replicating OFF (at times >= t_hat)


def _fits(usage: np.ndarray, p: int, s: int, o: int, M: int) -> bool:
    return bool(np.all(usage[p + 1: p + o + 1] + s + np.arange(1, o + 1) <= M))


def off_couple(instance: Instance, t: int, online: Sequence[int], off: Sequence[int]) -> CoupleResult:
    """004 Algorithm 3 (Off-Couple) started at time ``t`` from the online state (reading: module docstring).

    ``online``: the online algorithm's (MC-SF's) start vector; ``off``: OFF's start vector from the online
    state at ``t`` (it must agree with ``online`` on every request started before ``t``).
    """
    n = instance.n
    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    M = int(instance.memory)
    online = [int(x) for x in online]
    off = [int(x) for x in off]
    if len(online) != n or len(off) != n:
        raise ValueError(f"off_couple: need {n} starts, got {len(online)} (online) and {len(off)} (OFF)")
    for i in range(n):
        if (online[i] < t or off[i] < t) and online[i] != off[i]:
            raise ValueError(f"off_couple: request {i} started before t = {t} differs (online {online[i]}, "
                             f"OFF {off[i]}): OFF must start from the online state")
    oc = {i: online[i] for i in range(n) if online[i] <= t}  # fixed before t, and MC-SF's batch U^(t) at t
    batch = [i for i in oc if online[i] + o[i] > t]  # S_ON^(t) u U^(t)
    t_hat = max([t] + [off[i] + o[i] for i in batch])
    H = max(max(a, default=0), max(off, default=0), t) + sum(o) + max(o, default=0) + 2
    usage = np.zeros(H + 2, dtype=np.int64)
    for i, p in oc.items():
        usage[p + 1: p + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
    leftovers = replicated = 0
    tau = t
    while len(oc) < n:
        tau += 1
        if tau > H:  # pragma: no cover - every request fits alone
            raise RuntimeError("off_couple: did not finish")
        if tau >= t_hat:
            for i in range(n):
                if i not in oc and off[i] == tau:
                    oc[i] = tau
                    usage[tau + 1: tau + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
                    replicated += 1
            cand = [i for i in range(n) if i not in oc and off[i] < tau]
            leftovers += len(cand)
        else:
            cand = [i for i in range(n) if i not in oc and off[i] <= tau]
        for i in sorted(cand, key=lambda j: (o[j], a[j], j)):  # Equation (2) as Algorithm 1 implements it
            if not _fits(usage, tau, s[i], o[i], M):
                break
            oc[i] = tau
            usage[tau + 1: tau + o[i] + 1] += s[i] + np.arange(1, o[i] + 1)
    return CoupleResult(t, t_hat, tuple(oc[i] for i in range(n)), leftovers, replicated)


def _in_system(instance: Instance, starts: Sequence[int], rounds: np.ndarray) -> np.ndarray:
    """Requests accruing latency in each round ``tau`` (``a_i < tau <= c_i``); TEL is their sum over rounds."""
    a = instance.arrival.astype(np.int64)
    c = np.asarray(starts, dtype=np.int64) + instance.output.astype(np.int64)
    return ((a[None, :] < rounds[:, None]) & (rounds[:, None] <= c[None, :])).sum(axis=1)


def _state(instance: Instance, starts: Sequence[int], tau: int) -> tuple[frozenset, frozenset]:
    """(running requests with their starts, waiting requests) at decision time ``tau``."""
    p = np.asarray(starts)
    o = instance.output
    a = instance.arrival
    run = frozenset((int(i), int(p[i])) for i in range(instance.n) if p[i] < tau < p[i] + o[i])
    wait = frozenset(int(i) for i in range(instance.n) if a[i] <= tau <= p[i])
    return run, wait


def lemma54_checks(instance: Instance, cr: CoupleResult, off: Sequence[int]) -> dict:
    """Lemma 5.4 (i)-(iii), "same state at ``t_hat``" and display (7)'s reduction, for one Off-Couple run."""
    rep = check_schedule(instance, Schedule(cr.starts))
    rep_off = check_schedule(instance, Schedule(tuple(int(x) for x in off)))
    o = instance.output
    c_oc = np.asarray(cr.starts) + o
    c_off = np.asarray(off) + o
    th = cr.t_hat
    done_off = c_off <= th
    mem_oc = int(memory_profile(instance, Schedule(cr.starts), times=[th])[0])
    mem_off = int(memory_profile(instance, Schedule(tuple(int(x) for x in off)), times=[th])[0])
    rounds = np.arange(cr.t + 1, th + 1)
    seg = int((_in_system(instance, cr.starts, rounds) - _in_system(instance, off, rounds)).sum()) if len(rounds) else 0
    diff = (int(rep.tel) - int(rep_off.tel)) if rep.valid else None
    return {
        "lemma54_i": bool(rep.valid),
        "lemma54_ii": bool(np.all(c_oc[done_off] <= th)),
        "lemma54_iii": mem_oc <= mem_off,
        "same_state": _state(instance, cr.starts, th) == _state(instance, off, th),
        "oc_minus_off": diff,
        "eq7_rounds": seg,
        "eq7": diff is not None and diff == seg,
        "mem_oc": mem_oc, "mem_off": mem_off,
    }


def coupling_trace(instance: Instance, *, node_limit: int = 2_000_000) -> dict:
    """Every term of 004's proof of Theorem 5.3 on one instance, exactly.

    For every decision time ``t`` of MC-SF up to its last start: OFF from the online state at ``t``
    (:func:`residual_opt` with MC-SF's continuation as the cut-off), ``CP_(t+1)``, Off-Couple and
    :func:`lemma54_checks`.  Returns ``{"mcsf", "opt", "cp_sum", "rows"}`` where ``rows`` has one dict
    per ``t`` (``t, t_hat, span = t_hat - t, CP, differ`` (OFF starts something else at ``t``), the
    Lemma 5.4 keys, ``bound`` (``L^OC - L^OFF >= CP``), ``leftovers``, ``replicated``, ``o_hat``).
    """
    tel_on, on = mcsf_starts(instance)
    last = max(on)
    offs = {}
    for t in range(0, last + 2):
        fixed = {i: p for i, p in enumerate(on) if p < t}
        offs[t] = residual_opt(instance, fixed, t, upper=on, node_limit=node_limit)
    opt = offs[0][0]
    rows = []
    cp_sum = 0
    o = instance.output
    for t in range(0, last + 1):
        off_tel, off = offs[t]
        cp = offs[t + 1][0] - off_tel  # OFF from the online state at t+1 minus OFF from the online state at t
        cp_sum += cp
        cr = off_couple(instance, t, on, off)
        chk = lemma54_checks(instance, cr, off)
        batch = [i for i in range(instance.n) if on[i] <= t < on[i] + o[i]]
        rows.append({"t": t, "t_hat": cr.t_hat, "span": cr.t_hat - t, "CP": cp,
                     "differ": any((on[i] == t) != (off[i] == t) for i in range(instance.n)),
                     "bound": chk["oc_minus_off"] is not None and chk["oc_minus_off"] >= cp,
                     "leftovers": cr.leftovers, "replicated": cr.replicated,
                     "o_hat": int(max((o[i] for i in batch), default=0)), **chk})
    return {"mcsf": tel_on, "opt": opt, "cp_sum": cp_sum, "rows": rows}


# -------------------------------------------------------------------- Lemmas 5.5 and 5.6 displays


def hoeffding_display(B: int, p: Fraction, q: Fraction, C: int, T: int) -> dict:
    """004 Lemma 5.5's concentration display, exactly, for ``Binomial(B, p)`` arrivals.

    ``q = Pr(o < o_hat)``; the count of short arrivals in a window of ``C`` rounds is ``Binomial(B C, p q)``
    with mean ``E = lambda C q``.  Returns the exact probability of the displayed bad event
    ``N >= (1 + 1/T) E`` (``prob``), the displayed right-hand side ``exp(-2 delta^2 E^2 / (C B^2))`` with
    ``delta = 1/T`` (``bound``), whether the display holds, and ``1 - bound`` (what the proof then calls
    ``O(1/T)``).
    """
    p, q = Fraction(p), Fraction(q)
    if not (0 < p <= 1 and 0 < q <= 1) or B < 1 or C < 1 or T < 1:
        raise ValueError(f"hoeffding_display: need B, C, T >= 1 and p, q in (0, 1], got B={B}, p={p}, q={q}, "
                         f"C={C}, T={T}")
    N, r = B * C, p * q
    E = N * r
    thr = (1 + Fraction(1, T)) * E
    k0 = math.ceil(thr)
    prob = sum((Fraction(math.comb(N, k)) * r ** k * (1 - r) ** (N - k) for k in range(k0, N + 1)), Fraction(0))
    bound = math.exp(-2 * float(E) ** 2 / (T ** 2 * C * B ** 2))
    return {"T": T, "C": C, "E": float(E), "prob": float(prob), "bound": bound, "holds": float(prob) <= bound,
            "one_minus_bound": 1 - bound}


def min_output_display(instance: Instance, x: int, o_max: int) -> dict:
    """004 Lemma 5.6's display ``Pr(o_min^(t) <= x) = 1 - (1 - F(x))^|R^(t)|`` against MC-SF's waiting queues.

    ``F`` is the uniform CDF on ``1..o_max`` of :func:`stochastic_instance`, so ``F(x) = x / o_max``.  For every
    decision time ``t`` of MC-SF with a non-empty waiting set ``R^(t)`` (arrived by ``t``, not started
    before ``t``): the display's probability and whether the shortest waiting output is ``<= x``.  Returns
    their sums over the times (``expected`` by the display, ``observed``) and the number of ``times``.
    """
    if not 1 <= x <= o_max:
        raise ValueError(f"min_output_display: need 1 <= x <= o_max, got x={x}, o_max={o_max}")
    _, on = mcsf_starts(instance)
    a, o = instance.arrival, instance.output
    Fx = x / o_max
    exp_sum, obs, times = 0.0, 0, 0
    for t in range(0, max(on) + 1):
        R = [i for i in range(instance.n) if a[i] <= t <= on[i]]
        if not R:
            continue
        times += 1
        exp_sum += 1 - (1 - Fx) ** len(R)
        obs += int(min(o[i] for i in R) <= x)
    return {"x": x, "F(x)": Fx, "times": times, "expected": exp_sum, "observed": obs}


def regret_point(instance: Instance, *, node_limit: int = 5_000_000) -> dict:
    """MC-SF's TEL and the exact hindsight optimum (:func:`residual_opt` from the empty state), with AEL and regret."""
    tel, on = mcsf_starts(instance)
    opt, _ = residual_opt(instance, {}, 0, upper=on, node_limit=node_limit)
    n = instance.n
    return {"n": n, "mcsf": tel, "opt": opt, "regret": (tel - opt) / n, "aopt": opt / n}
