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
the policy's ``decide``; the running set's arrays are built only when a policy
reads them (:class:`RunningView`; MC-SF and the other eq. (5) prefix policies
keep their own check-point profile, :class:`kvlib.core.lookahead.LiveProfile`,
and read only its size), and the peak memory is the largest usage step 0 saw.
:func:`kvlib.core.reference.simulate_reference` is the plain, slower engine the
tests compare this one against (``tests/test_engine_equality.py``,
``tests/test_volume.py``); the steps are the methods of :class:`_Engine`.

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
from array import array
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from kvlib.core.errors import (InstanceError, KvlibError, ParameterError, PolicyError, ScheduleError,
                               SimulationStalled)
from kvlib.core.model import MAX_VALUE, Instance, Schedule
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


def _ints(a: np.ndarray) -> array:
    """``a`` as a standard-library ``array`` of int64."""
    return array("q", np.ascontiguousarray(a, dtype=np.int64).tobytes())


def _running_text(running: dict[int, int], s: np.ndarray, t: int, limit: int = 8) -> str:
    items = list(running.items())
    shown = ", ".join(f"{i} (started {p}, holds {int(s[i]) + t - p})" for i, p in items[:limit])
    more = f", ... {len(items) - limit} more" if len(items) > limit else ""
    return f"running requests: {shown}{more}"


class RunningView(Running):
    """The :class:`Running` handed to a policy by an engine with a ``running`` dict (id -> start, in start
    order) and a cached ``running_arrays()`` (:class:`_Engine`, and ``simulate_realtime``'s engine): the
    arrays (read-only, in start order) are built only when the policy reads them, and cached until the
    running set changes.
    ``len()`` costs nothing (:class:`~kvlib.policies.base.LookaheadPrefix` keeps its own profile and
    reads only that).  Valid for the call it is passed to."""

    def __init__(self, engine) -> None:  # noqa: D107 - no dataclass fields of its own
        self._engine = engine

    @property
    def ids(self) -> np.ndarray:  # type: ignore[override]
        return self._engine.running_arrays()[0]

    @property
    def starts(self) -> np.ndarray:  # type: ignore[override]
        return self._engine.running_arrays()[1]

    def __len__(self) -> int:
        return len(self._engine.running)


class _Engine:
    """The state of one :func:`simulate` run and its five steps (module docstring), one method each.

    ``running`` maps each running request to its start (insertion order = start order); ``ends`` is a
    heap of ``(end, id, start)`` whose stale entries (evicted runs) are skipped; the tokens held at
    ``t`` are ``W + t * len(running)`` with ``W = sum (s_i - p_i)`` over the running requests.
    """

    def __init__(self, instance: Instance, policy: Policy, *, max_rounds: int, stall_rounds: int,
                 record_decision_times: bool, progress: Callable[[int], None] | None) -> None:
        self.instance, self.policy = instance, policy
        self.n, self.M = instance.n, instance.memory
        self.s = instance.prompt
        # per-request values as int64 arrays of the standard library: read one at a time as Python ints, at
        # 8 bytes an entry (a list of ints costs about 36)
        self.s_list, self.o_list = _ints(instance.prompt), _ints(instance.output)
        self.order = np.argsort(instance.arrival, kind="stable")
        self.arr_sorted = instance.arrival[self.order]
        self.arr_sorted_list = _ints(self.arr_sorted)
        self.next_arrival = 0  # index into order
        self.state = bytearray(self.n)  # 0 future, 1 waiting, 2 running, 3 done
        self.start = array("q", [-1]) * self.n
        self.running: dict[int, int] = {}
        self.ends: list[tuple[int, int, int]] = []
        self.W = 0
        self.cancelled: list[tuple[int, int, int]] = []
        self.done = self.rounds = 0
        self.decision_seconds = 0.0
        self.times: list[float] = []
        self.record_times, self.progress = record_decision_times, progress
        self.max_rounds, self.stall_rounds = max_rounds, stall_rounds
        self.checked = self.arr_sorted_list[0]  # memory is known to be <= M up to this time
        self.since_progress = 0  # decision rounds with something running since the last completion
        # the largest usage seen by step 0: between two times the engine visits the running set is fixed and
        # grows, and step 0 sees the usage at every visited time before that time's completions, so this
        # is the schedule's peak memory (tests/test_engine_equality.py compares it with peak_memory)
        self.peak = 0
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None  # running_arrays() cache
        self.view = RunningView(self)

    def running_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The running ids and their starts as read-only arrays in start order (cached)."""
        if self._arrays is None:
            running, k = self.running, len(self.running)
            self._arrays = (_frozen(np.fromiter(running.keys(), dtype=np.int64, count=k)),
                            _frozen(np.fromiter(running.values(), dtype=np.int64, count=k)))
        return self._arrays

    def check_memory(self, t: int) -> None:
        """Step 0: the tokens held at ``t``, covering the rounds skipped since the last check."""
        running = self.running
        if running:
            K = len(running)
            held = self.W + t * K
            if held > self.peak:
                self.peak = held
            if held > self.M:
                W, M = self.W, self.M
                first = max(self.checked + 1, (M - W) // K + 1)  # first time over M since the last check
                raise PolicyError(
                    f"{self.policy.name}: memory {W + first * K} > M = {M} at t={first} (round {first}; {held} at "
                    f"t={t}) with no decision in between; " + _running_text(running, self.s, first)
                )
        self.checked = t

    def complete(self, t: int) -> None:
        """Step 1: runs whose last round ended by ``t`` complete."""
        ends = self.ends
        if not ends or ends[0][0] > t:
            return
        running, state, s_list = self.running, self.state, self.s_list
        fin = []
        while ends and ends[0][0] <= t:
            _, i, p = heapq.heappop(ends)
            if running.get(i) == p and state[i] == 2:
                del running[i]
                self.W -= s_list[i] - p
                state[i] = 3
                fin.append(i)
        if fin:
            self._arrays = None
            self.since_progress = 0
            self.done += len(fin)
            self.policy.on_complete(t, np.asarray(fin, dtype=np.int64))
            if self.progress is not None:
                self.progress(len(fin))

    def arrive(self, t: int) -> None:
        """Step 2: requests with ``a_i <= t`` join the queue."""
        nxt = self.next_arrival
        if nxt < self.n and self.arr_sorted_list[nxt] <= t:
            hi = int(np.searchsorted(self.arr_sorted, t, side="right"))
            ids = self.order[nxt:hi]
            state = self.state
            for i in ids.tolist():
                state[i] = 1
            self.next_arrival = hi
            self.policy.on_arrival(t, ids)

    def next_event(self) -> int | None:
        """The next arrival or completion after the current time (evicted requests' heap entries are dropped)."""
        ends, running = self.ends, self.running
        while ends and (running.get(ends[0][1]) != ends[0][2]):
            heapq.heappop(ends)
        nxt = self.arr_sorted_list[self.next_arrival] if self.next_arrival < self.n else None
        if ends and (nxt is None or ends[0][0] < nxt):
            nxt = ends[0][0]
        return nxt

    def jump(self, t: int) -> int:
        """Nothing to decide at ``t``: the next arrival or completion."""
        nxt = self.next_event()
        if nxt is None:
            raise PolicyError(f"{self.policy.name}: no request waiting or running at t={t} but "
                              f"{self.n - self.done} not done")
        return max(t + 1, nxt)

    def count_round(self, t: int, waiting: int) -> None:
        """Step 3's limits: a start time past ``MAX_VALUE``, ``max_rounds``, ``stall_rounds``."""
        name, n, running = self.policy.name, self.n, self.running
        if waiting and t > MAX_VALUE:  # every start from now on would be refused by Schedule: say so now
            j = self.state.index(1)
            who = f"{waiting} requests still wait (request {j} among them)" if waiting > 1 else f"request {j} still waits"
            raise ScheduleError(f"{name}: at t = {t}, {who}: a start time would be too large (kvlib accepts "
                                f"values up to 2**53 = {MAX_VALUE})")
        self.rounds += 1
        if self.rounds > self.max_rounds:
            raise SimulationStalled(
                f"{name}: more than {self.max_rounds} decision rounds at t={t} "
                f"({n - self.done} requests unfinished, {len(running)} running, {waiting} waiting). Raise the round "
                "limit (max_rounds=..., CLI --max-rounds) if the run is making progress, or change the policy's "
                "options (alpha-greedy / alpha-beta-clearing: a larger --alpha keeps more memory free and clears less "
                "often) or the policy"
            )
        if running:
            self.since_progress += 1
            if self.since_progress > self.stall_rounds:
                raise SimulationStalled(
                    f"{name}: no request completed in {self.stall_rounds} decision rounds up to t={t} "
                    f"({n - self.done} requests unfinished, {len(running)} running, {waiting} waiting, "
                    f"{len(self.cancelled)} evictions so far): the policy keeps evicting what it started. Change the "
                    "policy's options (alpha-greedy / alpha-beta-clearing: a larger --alpha keeps more memory "
                    "free and clears less often) or the policy, or raise the limit (stall_rounds=..., CLI "
                    "--stall-rounds)"
                )

    def decide(self, t: int) -> Decision:
        """Step 3: ask the policy (timed) and check its answer."""
        tic = _time.perf_counter()
        dec: Decision = self.policy.decide(t, self.view)
        dt = _time.perf_counter() - tic
        self.decision_seconds += dt
        if self.record_times:
            self.times.append(dt)
        if dec.evict or dec.start:
            check_decision(self.policy, dec, f"t={t}", self.running, self.state)
        return dec

    def apply(self, t: int, dec: Decision) -> None:
        """Step 3's effect: evictions (the run is cancelled, the request waits again), then starts."""
        running, state, s_list, o_list = self.running, self.state, self.s_list, self.o_list
        for i in dec.evict:
            i = int(i)
            p = running.pop(i)
            self.W -= s_list[i] - p
            self.cancelled.append((i, p, t - p))
            state[i] = 1
        start, ends = self.start, self.ends
        for i in dec.start:
            i = int(i)
            state[i] = 2
            running[i] = t
            start[i] = t
            self.W += s_list[i] - t
            heapq.heappush(ends, (t + o_list[i], i, t))
        if dec.evict or dec.start:
            self._arrays = None

    def check_after(self, t: int, dec: Decision, waiting: int) -> None:
        """Step 4: the tokens held at ``t + 1``; a policy that leaves requests waiting with nothing running
        would wait forever."""
        running = self.running
        if running:
            held = self.W + (t + 1) * len(running)
            self.checked = t + 1
            if held > self.M:
                raise PolicyError(f"{self.policy.name}: memory {held} > M = {self.M} at t={t + 1} after decisions "
                                  f"at t={t}; " + _running_text(running, self.s, t + 1))
        elif not dec.start and waiting:
            raise PolicyError(f"{self.policy.name}: {waiting} requests wait at t={t}, nothing runs, and none was "
                              "started")

    def skip_idle(self, t: int) -> int:
        """Nothing started at ``t``: skip the rounds in which the policy says it would start nothing either.
        Skipped rounds with something running count toward the stall limit as if the policy had been asked
        in each, so the limit fires at the round it would have fired at."""
        nxt = self.next_event()
        if nxt is None or nxt <= t + 2:
            return t + 1
        wake = min(max(int(self.policy.idle_until(t, self.view, nxt - 1)), t + 1), nxt)
        if self.running and wake > t + 1:
            wake = min(wake, t + self.stall_rounds + 1 - self.since_progress)
            self.since_progress += wake - t - 1
        return wake

    def result(self) -> SimResult:
        instance, start = self.instance, self.start
        sched = Schedule(tuple(start), tuple(self.cancelled))
        comp = np.frombuffer(start, dtype=np.int64) + instance.output
        # exact: a sum of latencies near 2**53 overflows int64
        tel = sum(start) + sum(self.o_list) - sum(_ints(instance.arrival))
        return SimResult(
            policy=self.policy.name,
            schedule=sched,
            tel=tel,
            avg_latency=tel / self.n,
            makespan=int(comp.max()),
            peak_memory=self.peak,
            rounds_decided=self.rounds,
            evictions=len(self.cancelled),
            decision_seconds=self.decision_seconds,
            decision_times=self.times,
        )


def _run(engine: _Engine) -> None:
    """The loop over times ``t`` (module docstring): steps 0-4, skipping rounds with nothing to decide."""
    policy, n = engine.policy, engine.n
    every_round = bool(policy.every_round)
    t = engine.arr_sorted_list[0]
    while engine.done < n:
        engine.check_memory(t)
        engine.complete(t)
        if engine.done == n:
            break
        engine.arrive(t)
        waiting = policy.waiting_count()
        if waiting == 0 and not (every_round and engine.running):
            t = engine.jump(t)  # nothing to decide: jump to the next arrival or completion
            continue
        engine.count_round(t, waiting)
        dec = engine.decide(t)
        engine.apply(t, dec)
        engine.check_after(t, dec, waiting)
        t = t + 1 if dec.start or dec.evict else engine.skip_idle(t)


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
    ctx = PolicyContext(memory=instance.memory, arrival=instance.arrival, prompt=instance.prompt, output=told,
                        rng=np.random.default_rng(seed), lower=lower, upper=upper)
    _reset(policy, ctx)
    engine = _Engine(instance, policy, max_rounds=max_rounds, stall_rounds=int(stall_rounds),
                     record_decision_times=record_decision_times, progress=progress)
    _run(engine)
    return engine.result()


def check_decision(policy: Policy, dec: Decision, when: str, running: dict[int, int], state: np.ndarray) -> None:
    """Raise :class:`PolicyError` if ``dec`` evicts a request that is not running (or the policy is
    non-preemptive) or starts one that is not waiting.  ``state`` (an array or a ``bytearray``): 0 future,
    1 waiting, 2 running, 3 done (evicted requests count as waiting again).  Shared by the simulators."""
    n = len(state)
    if not dec.evict:  # the common case, checked cheaply: distinct waiting ids
        for i in dec.start:
            if not (type(i) is int or isinstance(i, np.integer)) or not 0 <= i < n or state[i] != 1:
                break
        else:
            if len(dec.start) == 1 or len(set(dec.start)) == len(dec.start):
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
