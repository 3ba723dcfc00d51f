"""Discrete-time simulation of an online policy (001 Section 2).

The engine owns the truth (true output lengths, arrivals still in the future)
and shows a policy only :class:`~kvlib.core.protocol.PolicyContext` plus the
running set.  At each integer time ``t``:

0. the engine verifies that the tokens held at ``t`` are ``<= M``;
1. runs whose last round ended at ``t`` complete (``p_i + o_i <= t``);
2. requests with ``a_i <= t`` join the queue;
3. the policy returns evictions and starts; started requests hold
   ``s_i + 1`` at ``t + 1``;
4. the engine verifies that the tokens held at ``t + 1`` are ``<= M``.

A policy that breaks the limit raises :class:`PolicyError` naming the round,
the memory held and the running requests.  Rounds in which nobody waits are
skipped (to the next arrival or completion) unless the policy asks to be
consulted every round; the memory check of step 0 still covers them: between
two events the running set is fixed and every running request grows by one
token per round, so the largest usage over the skipped rounds is at the time
the engine jumps to, which step 0 checks.  (A policy told too-short output
lengths, ``known_output``, keeps requests running longer than it planned; this
check is what catches the overflow.)

Cost per round: ``O(log n)`` for completions (a heap of end times), ``O(1)``
for the memory check (the running set's usage is ``W + t K`` with
``W = sum (s_i - p_i)`` and ``K`` running requests, kept incrementally), plus
the policy's ``decide``.  :func:`kvlib.core.reference.simulate_reference` is
the plain, slower engine the tests compare this one against.

Rounds in which requests wait but the policy starts nothing are skipped too
when the policy can say until when it would start nothing
(:meth:`kvlib.core.protocol.Policy.idle_until`; the eq. (5) prefix and scan
policies of :mod:`kvlib.policies.base`, hence 001's and 002's, and 003's H-SF,
A_max, A_random, A_min and A_lower answer exactly, A_min and A_lower including
their next eviction or removal; the alpha-protection baselines of 001 Section 5.2
say when their next overflow comes), so a run's cost grows with its events
(arrivals, completions, starts, evictions), not with its time values.  Skipped
rounds with something running count toward the stall limit (``stall_rounds``)
as if the policy had been asked in each, so a clearing loop is declared at the
round it would be without the skip.

The resulting schedule is an ordinary :class:`~kvlib.core.model.Schedule`;
callers are expected to validate it with the independent
:func:`kvlib.core.checker.check_schedule` (the tests always do).
"""

from __future__ import annotations

import heapq
import time as _time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from kvlib.core.errors import (InstanceError, KvlibError, ParameterError, PolicyError, ScheduleError,
                               SimulationStalled)
from kvlib.core.model import MAX_VALUE, Instance, Schedule, peak_memory
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running

__all__ = ["PolicyError", "SimulationStalled", "SimResult", "simulate", "check_decision", "validate_inputs",
           "default_max_rounds", "default_stall_rounds"]


@dataclass
class SimResult:
    """Outcome of :func:`simulate`.  ``schedule`` is what the checker validates."""

    policy: str
    schedule: Schedule
    tel: int
    avg_latency: float
    makespan: int
    peak_memory: int
    rounds_decided: int
    evictions: int
    decision_seconds: float
    decision_times: list[float] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        return {
            "policy": self.policy,
            "tel": self.tel,
            "avg_latency": self.avg_latency,
            "makespan": self.makespan,
            "peak_memory": self.peak_memory,
            "starts": list(self.schedule.starts),
            "evictions": self.evictions,
        }


#: the default round limit never exceeds this (about an hour of a policy consulted every round)
MAX_DEFAULT_ROUNDS = 100_000_000


def default_max_rounds(instance: Instance) -> int:
    """``10 * (sum o + n) + 1000`` decision rounds, at most ``MAX_DEFAULT_ROUNDS``.

    A policy that never clears decides only at times when someone waits; while
    someone waits, something runs (an eq. (5) policy starts a request when
    nothing runs), so it decides at most ``sum o + n`` times.  The factor 10
    leaves room for clearing policies (001 Section 5.2) that redo work.  The cap
    stops a policy consulted every round on outputs near ``2**53`` (where the
    formula means never) with :class:`SimulationStalled`, which names
    ``max_rounds``; the eq. (5) policies skip idle rounds and stay far below it.
    """
    return min(MAX_DEFAULT_ROUNDS, 10 * (sum(instance.output.tolist()) + instance.n) + 1000)  # exact: no int64 wrap


def default_stall_rounds(instance: Instance) -> int:
    """``10 * max o + 1000`` decision rounds in a row without a completion (see :func:`simulate`)."""
    return 10 * int(instance.output.max()) + 1000


def _int_vector(x, n: int, what: str, *, minimum: int | None = 1) -> np.ndarray:
    """``x`` as an int64 vector of length ``n`` with every entry an integer >= ``minimum``."""
    try:
        arr = np.asarray(x)
    except Exception as e:  # ragged lists, ...
        raise ParameterError(f"{what}: cannot be read as a vector ({e})") from None
    if arr.shape != (n,):
        raise ParameterError(f"{what} has shape {arr.shape}, expected ({n},) (one entry per request)")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise ParameterError(f"{what} must hold integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) > 2.0**53))
        if len(bad):
            i = int(bad[0])
            raise ParameterError(f"{what}: request {i} has {arr[i].item()!r}, not an integer")
    arr = arr.astype(np.int64)
    if minimum is not None:
        low = np.flatnonzero(arr < minimum)
        if len(low):
            i = int(low[0])
            raise ParameterError(f"{what}: request {i} has {int(arr[i])}, must be >= {minimum}")
    return arr


def validate_inputs(instance: Instance, policy: Policy, *, seed, known_output, lower, upper, reveal_output,
                    max_rounds) -> tuple:
    """Check :func:`simulate`'s arguments; returns ``(seed, told, lower, upper, max_rounds)`` or raises a
    :class:`ParameterError` / :class:`InstanceError` naming the argument and the request."""
    if not isinstance(instance, Instance):
        raise ParameterError(f"instance must be a kvlib Instance, got {type(instance).__name__}")
    if not isinstance(policy, Policy):
        raise ParameterError(f"policy must be a kvlib Policy (see make_policy), got {type(policy).__name__}")
    n = instance.n
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    if seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed}")
    seed = int(seed)
    needs_output = getattr(policy, "needs_output", getattr(policy, "hindsight", True) is not False)
    told = None
    if reveal_output:
        told = _int_vector(known_output if known_output is not None else instance.output, n, "known_output")
    elif known_output is not None:
        raise ParameterError("known_output was given but reveal_output=False hides output lengths from the policy")
    elif needs_output:
        raise ParameterError(
            f"policy {policy.name} needs output lengths (or predictions of them), but reveal_output=False hides "
            "them; only the 003 interval policies (a-max, a-min, ...) run on lower/upper alone"
        )
    if (lower is None) != (upper is None):
        raise ParameterError("give both lower and upper interval predictions, or neither")
    if lower is not None:
        lower = _int_vector(lower, n, "lower")
        upper = _int_vector(upper, n, "upper")
        bad = np.flatnonzero(lower > upper)
        if len(bad):
            i = int(bad[0])
            raise InstanceError(f"request {i}: interval prediction lower = {int(lower[i])} exceeds upper = "
                                f"{int(upper[i])}")
        o = instance.output
        bad = np.flatnonzero((o < lower) | (o > upper))
        if len(bad):
            i = int(bad[0])
            raise InstanceError(f"request {i}: output = {int(o[i])} is outside its interval [lower, upper] = "
                                f"[{int(lower[i])}, {int(upper[i])}]")
    elif getattr(policy, "hindsight", None) is False:
        raise ParameterError(f"policy {policy.name} needs interval predictions: pass lower= and upper=")
    if max_rounds is None:
        max_rounds = default_max_rounds(instance)
    elif isinstance(max_rounds, (bool, np.bool_)) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise ParameterError(f"max_rounds must be a positive integer, got {max_rounds!r}")
    return seed, told, lower, upper, int(max_rounds)


def _reset(policy: Policy, ctx: PolicyContext) -> None:
    """``policy.reset(ctx)``; a ``ValueError`` about the instance (e.g. a request alpha-protection can never
    admit) becomes a :class:`ParameterError` naming the policy."""
    try:
        policy.reset(ctx)
    except KvlibError:
        raise
    except ValueError as e:
        raise ParameterError(f"{policy.name}: {e}") from None


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _running_text(running: dict[int, int], s: np.ndarray, t: int, limit: int = 8) -> str:
    items = list(running.items())
    shown = ", ".join(f"{i} (started {p}, holds {int(s[i]) + t - p})" for i, p in items[:limit])
    more = f", ... {len(items) - limit} more" if len(items) > limit else ""
    return f"running requests: {shown}{more}"


def simulate(
    instance: Instance,
    policy: Policy,
    *,
    seed: int = 0,
    known_output: np.ndarray | None = None,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
    reveal_output: bool = True,
    max_rounds: int | None = None,
    record_decision_times: bool = False,
    progress: Callable[[int], None] | None = None,
    stall_rounds: int | None = None,
) -> SimResult:
    """Run ``policy`` on ``instance``.

    ``known_output`` replaces the output lengths the policy is told (predictions);
    with ``reveal_output=False`` the policy is told none (interval models of 003
    pass ``lower``/``upper`` instead, checked ``1 <= lower <= output <= upper``).
    ``seed`` (a non-negative integer) seeds the generator handed to the policy
    (tie-breaking, random clearing).  ``max_rounds`` bounds the number of
    decision rounds (default :func:`default_max_rounds`); exceeding it raises
    :class:`SimulationStalled`.  ``stall_rounds`` (default
    :func:`default_stall_rounds`) bounds the decision rounds in a row with
    something running and no request completing: a policy that never evicts
    completes a request within ``max o`` rounds, so only a clearing loop (001
    Section 5.2's baselines) can reach it; it also raises
    :class:`SimulationStalled`.  ``progress``, if given, is called with the
    number of requests that completed since its last call.
    """
    seed, told, lower, upper, max_rounds = validate_inputs(
        instance, policy, seed=seed, known_output=known_output, lower=lower, upper=upper,
        reveal_output=reveal_output, max_rounds=max_rounds)
    if stall_rounds is None:
        stall_rounds = default_stall_rounds(instance)
    elif isinstance(stall_rounds, (bool, np.bool_)) or not isinstance(stall_rounds, (int, np.integer)) \
            or stall_rounds < 1:
        raise ParameterError(f"stall_rounds must be a positive integer, got {stall_rounds!r}")
    n = instance.n
    M = instance.memory
    arr = instance.arrival
    s = instance.prompt
    o = instance.output
    ctx = PolicyContext(memory=M, arrival=arr, prompt=s, output=told, rng=np.random.default_rng(seed),
                        lower=lower, upper=upper)
    _reset(policy, ctx)

    s_list = s.tolist()
    o_list = o.tolist()
    order = np.argsort(arr, kind="stable")
    arr_sorted = arr[order]
    arr_sorted_list = arr_sorted.tolist()
    next_arrival = 0  # index into order
    state = np.zeros(n, dtype=np.int8)  # 0 future, 1 waiting, 2 running, 3 done
    start = [-1] * n
    running: dict[int, int] = {}  # id -> start, in start order
    ends: list[tuple[int, int, int]] = []  # heap of (end, id, start); stale entries skipped
    W = 0  # sum over running of (s_i - p_i): usage at time t is W + t * len(running)
    cancelled: list[tuple[int, int, int]] = []
    done = 0
    rounds = 0
    decision_seconds = 0.0
    times: list[float] = []
    t = arr_sorted_list[0]
    checked = t  # memory is known to be <= M up to this time
    since_progress = 0  # decision rounds with something running since the last completion
    # the running set as read-only arrays in start order (what Running hands the policy), kept incrementally
    ids_run = _frozen(np.zeros(0, dtype=np.int64))
    starts_run = _frozen(np.zeros(0, dtype=np.int64))
    stale_rows = False
    every_round = bool(policy.every_round)
    perf = _time.perf_counter

    def next_event() -> int | None:
        """The next arrival or completion after the current time (evicted requests' heap entries are dropped)."""
        while ends and (running.get(ends[0][1]) != ends[0][2]):
            heapq.heappop(ends)
        nxt = arr_sorted_list[next_arrival] if next_arrival < n else None
        if ends and (nxt is None or ends[0][0] < nxt):
            nxt = ends[0][0]
        return nxt

    while done < n:
        # 0. memory at t (covers rounds skipped since the last check)
        if running:
            K = len(running)
            held = W + t * K
            if held > M:
                first = max(checked + 1, (M - W) // K + 1)  # first time over M since the last check
                raise PolicyError(
                    f"{policy.name}: memory {W + first * K} > M = {M} at t={first} (round {first}; {held} at "
                    f"t={t}) with no decision in between; " + _running_text(running, s, first)
                )
        checked = t
        # 1. completions
        if ends and ends[0][0] <= t:
            fin = []
            while ends and ends[0][0] <= t:
                _, i, p = heapq.heappop(ends)
                if running.get(i) == p and state[i] == 2:
                    del running[i]
                    W -= s_list[i] - p
                    state[i] = 3
                    fin.append(i)
            if fin:
                stale_rows = True
                since_progress = 0
                done += len(fin)
                policy.on_complete(t, np.asarray(fin, dtype=np.int64))
                if progress is not None:
                    progress(len(fin))
                if done == n:
                    break
        # 2. arrivals
        if next_arrival < n and arr_sorted_list[next_arrival] <= t:
            hi = int(np.searchsorted(arr_sorted, t, side="right"))
            ids = order[next_arrival:hi]
            state[ids] = 1
            next_arrival = hi
            policy.on_arrival(t, ids)
        waiting = policy.waiting_count()
        if waiting == 0 and not (every_round and running):
            # nothing to decide: jump to the next arrival or completion
            nxt = next_event()
            if nxt is None:
                raise PolicyError(f"{policy.name}: no request waiting or running at t={t} but {n - done} not done")
            t = max(t + 1, nxt)
            continue
        # 3. decide
        if waiting and t > MAX_VALUE:  # every start from now on would be refused by Schedule: say so now
            j = int(np.flatnonzero(state == 1)[0])
            who = f"{waiting} requests still wait (request {j} among them)" if waiting > 1 else f"request {j} still waits"
            raise ScheduleError(f"{policy.name}: at t = {t}, {who}: a start time would be too large (kvlib accepts "
                                f"values up to 2**53 = {MAX_VALUE})")
        rounds += 1
        if rounds > max_rounds:
            raise SimulationStalled(
                f"{policy.name}: more than {max_rounds} decision rounds at t={t} "
                f"({n - done} requests unfinished, {len(running)} running, {waiting} waiting). Raise the round "
                "limit (max_rounds=..., CLI --max-rounds) if the run is making progress, or change the policy's "
                "options (alpha-greedy / alpha-beta-clearing: a larger --alpha keeps more memory free and clears less "
                "often) or the policy"
            )
        if running:
            since_progress += 1
            if since_progress > stall_rounds:
                raise SimulationStalled(
                    f"{policy.name}: no request completed in {stall_rounds} decision rounds up to t={t} "
                    f"({n - done} requests unfinished, {len(running)} running, {waiting} waiting, "
                    f"{len(cancelled)} evictions so far): the policy keeps evicting what it started. Change the "
                    "policy's options (alpha-greedy / alpha-beta-clearing: a larger --alpha keeps more memory "
                    "free and clears less often) or the policy, or raise the limit (stall_rounds=..., CLI "
                    "--stall-rounds)"
                )
        if stale_rows:  # drop completed requests from the running arrays (start order is kept)
            keep = state[ids_run] == 2
            ids_run, starts_run = _frozen(ids_run[keep]), _frozen(starts_run[keep])
            stale_rows = False
        tic = perf()
        dec: Decision = policy.decide(t, Running(ids_run, starts_run))
        dt = perf() - tic
        decision_seconds += dt
        if record_decision_times:
            times.append(dt)
        if dec.evict or dec.start:
            check_decision(policy, dec, f"t={t}", running, state)
        for i in dec.evict:
            i = int(i)
            p = running.pop(i)
            W -= s_list[i] - p
            cancelled.append((i, p, t - p))
            state[i] = 1
        for i in dec.start:
            i = int(i)
            state[i] = 2
            running[i] = t
            start[i] = t
            W += s_list[i] - t
            heapq.heappush(ends, (t + o_list[i], i, t))
        if dec.evict:  # rare: rebuild the arrays handed to the policy from the running dict
            ids_run = _frozen(np.fromiter(running.keys(), dtype=np.int64, count=len(running)))
            starts_run = _frozen(np.fromiter(running.values(), dtype=np.int64, count=len(running)))
        elif dec.start:
            ids_run = _frozen(np.concatenate((ids_run, np.asarray(dec.start, dtype=np.int64))))
            starts_run = _frozen(np.concatenate((starts_run, np.full(len(dec.start), t, dtype=np.int64))))
        # 4. memory at t + 1
        if running:
            held = W + (t + 1) * len(running)
            checked = t + 1
            if held > M:
                raise PolicyError(f"{policy.name}: memory {held} > M = {M} at t={t + 1} after decisions at t={t}; "
                                  + _running_text(running, s, t + 1))
        elif not dec.start and waiting:
            raise PolicyError(f"{policy.name}: {waiting} requests wait at t={t}, nothing runs, and none was started")
        if dec.start or dec.evict:
            t += 1
            continue
        # nothing started: skip the rounds in which the policy says it would start nothing either
        nxt = next_event()
        if nxt is None or nxt <= t + 2:
            t += 1
            continue
        wake = min(max(int(policy.idle_until(t, Running(ids_run, starts_run), nxt - 1)), t + 1), nxt)
        if running and wake > t + 1:
            # the skipped rounds count as decision rounds without a completion, as if the policy had been
            # asked each round: the stall limit fires at the round it would have fired at
            wake = min(wake, t + stall_rounds + 1 - since_progress)
            since_progress += wake - t - 1
        t = wake

    start_arr = np.asarray(start, dtype=np.int64)
    sched = Schedule(tuple(start), tuple(cancelled))
    comp = start_arr + o
    tel = sum(start) + sum(o_list) - sum(arr.tolist())  # exact: a sum of latencies near 2**53 overflows int64
    return SimResult(
        policy=policy.name,
        schedule=sched,
        tel=tel,
        avg_latency=tel / n,
        makespan=int(comp.max()),
        peak_memory=peak_memory(instance, sched),
        rounds_decided=rounds,
        evictions=len(cancelled),
        decision_seconds=decision_seconds,
        decision_times=times,
    )


def check_decision(policy: Policy, dec: Decision, when: str, running: dict[int, int], state: np.ndarray) -> None:
    """Raise :class:`PolicyError` if ``dec`` evicts a request that is not running (or the policy is
    non-preemptive) or starts one that is not waiting.  ``state``: 0 future, 1 waiting, 2 running,
    3 done (evicted requests count as waiting again).  Shared by both simulators."""
    n = len(state)
    if not dec.evict and len(dec.start) == 1:  # the common case, checked cheaply
        i = dec.start[0]
        if isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) and 0 <= i < n \
                and state[i] == 1:
            return
    for i in dec.evict:
        if not policy.preemptive:
            raise PolicyError(f"{policy.name}: evicted request {i} at {when} but the policy is non-preemptive")
        if i not in running:
            raise PolicyError(f"{policy.name}: evicted request {i} at {when}, which is not running")
    evicted = set(dec.evict)
    started: set[int] = set()
    for i in dec.start:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
            raise PolicyError(f"{policy.name}: started {i!r} at {when}, which is not a request id (0..{n - 1})")
        st = 2 if i in started else 1 if i in evicted else int(state[i])
        started.add(i)
        if st != 1:
            what = {0: "has not arrived", 2: "is already running", 3: "is already done"}[st]
            raise PolicyError(f"{policy.name}: started request {i} at {when}, which {what}")
