"""A specialised simulation of MC-SF (001 Algorithm 1, eq. (5)), equal to the generic engine's.

:func:`simulate_mcsf_fast` returns what ``simulate(instance, mc_sf(tie_break))``
(:func:`kvlib.core.simulate.simulate` with :func:`kvlib.policies.jaillet.mc_sf`) returns: the same start
times, TEL, average latency, makespan, peak memory and number of decision rounds, in the same
:class:`~kvlib.core.simulate.SimResult` type (``tests/test_fast_mcsf.py`` compares them, and the schedules
with :func:`kvlib.core.reference.simulate_reference` and the independent checker).  Only the time it
reports as ``decision_seconds`` differs: here the whole computation (there is no separate policy call),
and ``decision_times`` stays empty.

**The memory test over all future times.**  Let ``U(tau)`` be the tokens the started runs hold at time
``tau``.  A request ``(s, o)`` started at ``t`` holds ``s + tau - t`` at every ``tau`` in ``(t, t + o]``,
so eq. (5) for it, at its own completion time and at every completion time before it, reads
``U(tau) + s + tau - t <= M``.  Between two completion times ``U(tau) + tau`` only grows, so requiring the
inequality at every integer ``tau`` in ``(t, t + o]`` is the same test (001 Section 4 gives this argument
for checking only the completion times), and it needs no list of completion times:

    a request ``(s, o)`` fits at ``t``  iff  ``max F(tau) over tau in (t, t + o]  <=  M + t - s``,

with ``F(tau) = U(tau) + tau`` kept as one NumPy array over absolute time.  A start adds
``s + 1, ..., s + o`` to ``F`` on ``(t, t + o]`` (one slice addition); a completion changes nothing
(``F`` beyond a run's end never counted it); time moving on changes nothing.  A test is one slice
maximum.  The array covers a window of a few times the largest output and is shifted when the time
reaches its end; the part shifted out is final, and its largest ``U`` is the schedule's peak memory.

**The queue.**  MC-SF's order (output, then arrival, then the request id or, with
``tie_break="random"``, a permutation drawn from ``numpy.random.default_rng(seed)`` as the policy draws
it) is a fixed total order, so it is computed once (``numpy.lexsort``) and the waiting requests are a heap
of their ranks.  Each round starts the longest prefix of the queue that passes the test (001 Algorithm 1:
stop at the first request that does not fit).

**The rounds visited** are the generic engine's: a round that starts something is followed by the next
time; a round that starts nothing by the next time as well when an arrival or a completion comes within
two, else by the first time at which the head of the queue fits with the running set fixed (the
engine asks :meth:`kvlib.policies.base.LookaheadPrefix.idle_until`; here a sliding maximum of ``F``),
capped at the next arrival or completion; nobody waiting, the next arrival.  So ``rounds_decided``
is the engine's, and ``max_rounds`` stops at the same round.  MC-SF evicts nothing and completes a
run within ``max o`` rounds, so the engine's stall limit (``10 max o + 1000`` rounds without a completion)
never applies and is not a parameter here.

Scope: the true output lengths are the ones the policy is told (no ``known_output`` predictions, no
intervals); outputs above :data:`MAX_FAST_OUTPUT` (where the window array would be large and a start
costly) go to the generic engine, whose result this function returns unchanged.
"""

from __future__ import annotations

import heapq
import time as _time

import numpy as np

from kvlib.core.errors import ParameterError, ScheduleError, SimulationStalled
from kvlib.core.model import MAX_VALUE, Instance, Schedule
from kvlib.core.simulate import SimResult, simulate, validate_inputs
from kvlib.policies.jaillet import mc_sf

__all__ = ["simulate_mcsf_fast", "MAX_FAST_OUTPUT"]

#: above this largest output length :func:`simulate_mcsf_fast` hands the instance to the generic engine
MAX_FAST_OUTPUT = 2**18
#: the ramp ``0, 1, 2, ...`` added on a start is one array up to this length (else two additions a start)
_RAMP_LIMIT = 2**22
_INT32 = 2**31 - 1
#: the window over absolute time holds at least this many times (and 8 times the largest output)
_MIN_WINDOW = 1 << 16
#: up to this window length a test reads the maximum with Python's max (cheaper than a NumPy call)
_SHORT = 32


def simulate_mcsf_fast(instance: Instance, *, tie_break: str = "index", seed: int = 0,
                       max_rounds: int | None = None, progress=None, known_output=None, lower=None, upper=None,
                       reveal_output: bool = True, stall_rounds: int | None = None,
                       record_decision_times: bool = False) -> SimResult:
    """``simulate(instance, mc_sf(tie_break), seed=seed, max_rounds=max_rounds)``, computed faster.

    The arguments are checked as :func:`~kvlib.core.simulate.simulate` checks them (it calls
    :func:`~kvlib.core.simulate.validate_inputs`); ``tie_break`` is ``"index"`` or ``"random"`` (a
    ``ValueError`` naming it otherwise); ``seed`` matters only with ``"random"``.  ``progress``, if given, is
    called once at the end with the number of requests (the loop does not count completions).  Exceeding
    ``max_rounds`` raises :class:`~kvlib.core.errors.SimulationStalled` at the round the engine would, a
    start past ``2**53`` :class:`~kvlib.core.errors.ScheduleError`.  The other arguments of ``simulate``
    (told outputs, intervals, a stall limit, per-decision times) are refused with a
    :class:`~kvlib.core.errors.ParameterError` naming them: use the generic engine for those.
    """
    given = {"known_output": known_output is not None, "lower": lower is not None, "upper": upper is not None,
             "reveal_output": reveal_output is not True, "stall_rounds": stall_rounds is not None,
             "record_decision_times": bool(record_decision_times)}
    refused = [k for k, v in given.items() if v]
    if refused:
        raise ParameterError(f"simulate_mcsf_fast does not take {', '.join(refused)} (it runs MC-SF told the true "
                             "output lengths, which never evicts and so needs no stall limit); use "
                             "kvlib.simulate(instance, mc_sf(), ...) for that")
    policy = mc_sf(tie_break)
    seed, told, _, _, max_rounds = validate_inputs(instance, policy, seed=seed, known_output=None, lower=None,
                                                   upper=None, reveal_output=True, max_rounds=max_rounds)
    del told  # the true outputs: the policy is told instance.output
    if int(instance.output.max()) > MAX_FAST_OUTPUT:
        return simulate(instance, policy, seed=seed, max_rounds=max_rounds, progress=progress)
    tic = _time.perf_counter()
    tables = _Tables(instance, tie_break, seed)
    start, rounds, makespan, peak = _run(tables, instance, max_rounds, policy.name)
    seconds = _time.perf_counter() - tic
    del tables
    if progress is not None:
        progress(instance.n)
    return _result(instance, policy.name, start, rounds, makespan, peak, seconds)


class _Tables:
    """The instance as compact read-only columns (``memoryview`` of NumPy arrays, read one entry at a time
    as Python ints): by arrival order, ``arrival`` and the queue ``rank``; by rank, ``ids``, ``prompt`` and
    ``output``."""

    def __init__(self, instance: Instance, tie_break: str, seed: int) -> None:
        n = instance.n
        a, s, o = instance.arrival, instance.prompt, instance.output
        if tie_break == "random":  # the permutation LookaheadPrefix.reset draws from the same generator
            tb = np.random.default_rng(seed).permutation(n)
            order = np.lexsort((tb, a, o))
            del tb
        else:  # a stable sort: equal (output, arrival) keep id order
            order = np.lexsort((np.arange(n), a, o))
        small = np.int32 if n <= _INT32 else np.int64
        self.ids = memoryview(order.astype(small))
        self.max_prompt, self.max_output = int(s.max()), int(o.max())
        self.prompt = memoryview(s[order].astype(np.int32 if self.max_prompt <= _INT32 else np.int64))
        self.output = memoryview(o[order].astype(np.int32 if self.max_output <= _INT32 else np.int64))
        rank = np.empty(n, dtype=small)
        rank[order] = np.arange(n, dtype=small)
        del order
        by_arrival = np.argsort(a, kind="stable")
        self.rank = memoryview(rank[by_arrival])
        del rank
        self.arrival = memoryview(np.ascontiguousarray(a[by_arrival], dtype=np.int64))


class _Window:
    """``F(tau) = U(tau) + tau`` over the absolute times ``base .. base + L - 1`` (``F``, int64) and a mark
    for every time at which a run completes (``ends``, a ``bytearray``); ``peak`` is the largest ``U`` over
    the times already shifted out."""

    def __init__(self, t0: int, max_prompt: int, max_output: int) -> None:
        self.L = max(8 * (max_output + 2), _MIN_WINDOW)
        self.base = t0
        self.F = t0 + np.arange(self.L, dtype=np.int64)
        self.ends = bytearray(self.L)
        self.peak = 0
        size = max_prompt + max_output + 2
        self.ramp = np.arange(size if size <= _RAMP_LIMIT else max_output + 1, dtype=np.int64)
        self.long_prompts = size > _RAMP_LIMIT

    def last_index(self, max_output: int) -> int:
        """The largest index ``t + 1 - base`` at which a round may read ``F`` without a shift."""
        return self.L - 2 * max_output - 4

    def shift(self, new_base: int) -> int:
        """Drop the times before ``new_base`` (in place, so references to ``F`` and ``ends`` stay valid)."""
        F, L = self.F, self.L
        k = new_base - self.base
        gone = F[:min(k, L)] - (self.base + np.arange(min(k, L), dtype=np.int64))
        self.peak = max(self.peak, int(gone.max()))
        if k >= L:
            F[:] = new_base + np.arange(L, dtype=np.int64)
            self.ends[:] = bytes(L)
        else:
            F[:L - k] = F[k:].copy()
            F[L - k:] = new_base + np.arange(L - k, L, dtype=np.int64)
            self.ends[:L - k] = self.ends[k:]
            self.ends[L - k:] = bytes(k)
        self.base = new_base
        return new_base

    def final_peak(self) -> int:
        return max(self.peak, int((self.F - (self.base + np.arange(self.L, dtype=np.int64))).max()))


def _run(tab: _Tables, instance: Instance, max_rounds: int, name: str) -> tuple[list, int, int, int]:
    """The loop over the times the generic engine visits; returns the start times (a list indexed by request,
    equal start times sharing one int object), the decision rounds, the makespan and the peak memory."""
    A, RK, ID, S, O = tab.arrival, tab.rank, tab.ids, tab.prompt, tab.output
    n, M, max_o = len(A), instance.memory, tab.max_output
    win = _Window(A[0], tab.max_prompt, max_o)
    F, ends, ramp, long_prompts = win.F, win.ends, win.ramp, win.long_prompts
    fmax, view = np.maximum.reduce, memoryview(F)  # view[i]: F[i] as a Python int; shares F's buffer
    push, pop = heapq.heappush, heapq.heappop
    heap: list[int] = []
    start: list = [-1] * n
    rounds = makespan = k = 0
    base, last = win.base, win.last_index(max_o)
    t = A[0]
    while True:
        while k < n and A[k] <= t:
            push(heap, RK[k])
            k += 1
        if not heap:
            if k == n:
                break
            t = A[k]  # nobody waits: the next arrival
            continue
        if t > MAX_VALUE:
            raise _late_start(name, t, heap, ID)
        rounds += 1
        if rounds > max_rounds:
            raise _round_limit(name, max_rounds, t, start, instance, len(heap))
        i0 = t + 1 - base
        if i0 > last:
            base = win.shift(t + 1)
            i0 = 0
        room = M + t  # the head (s, o) fits iff max F over (t, t + o] <= room - s
        r = heap[0]
        s, o = S[r], O[r]
        # F at t + 1 first (often decides alone); a short window's maximum is cheaper in Python than in NumPy
        if view[i0] <= room - s and (max(view[i0:i0 + o]) if o <= _SHORT else fmax(F[i0:i0 + o])) <= room - s:
            while True:  # start the longest prefix of the queue that fits (001 Algorithm 1)
                pop(heap)
                seg = F[i0:i0 + o]
                if long_prompts:
                    seg += s
                    seg += ramp[1:o + 1]
                else:
                    seg += ramp[s + 1:s + o + 1]
                ends[i0 + o - 1] = 1
                start[ID[r]] = t
                if t + o > makespan:
                    makespan = t + o
                if not heap:
                    break
                r = heap[0]
                s, o = S[r], O[r]
                if view[i0] > room - s or (max(view[i0:i0 + o]) if o <= _SHORT else fmax(F[i0:i0 + o])) > room - s:
                    break
            t += 1
        else:
            t = _wake(t, i0, base, F, ends, A[k] if k < n else None, M, s, o)
    return start, rounds, makespan, win.final_peak()


def _wake(t: int, i0: int, base: int, F: np.ndarray, ends: bytearray, arrival: int | None, M: int, s: int,
          o: int) -> int:
    """The next time the generic engine visits after a round at ``t`` that started nothing, the head of the
    queue being ``(s, o)`` (:meth:`kvlib.core.simulate._Engine.skip_idle` with
    :meth:`~kvlib.policies.base.LookaheadPrefix.idle_until`): ``t + 1`` when an arrival or a completion
    comes by ``t + 2``; else the first time before the next one at which the head fits, or that next event."""
    if (arrival is not None and arrival <= t + 2) or ends[i0] or ends[i0 + 1]:
        return t + 1
    j = ends.find(1, i0 + 2, len(ends) if arrival is None else min(len(ends), arrival - base))
    nxt = arrival if j < 0 else base + j
    if nxt is None:  # nothing runs: the head fits at once (s + o <= M), never reached after a failed test
        return t + 1
    g = nxt - 1 - t  # candidate times t + 1 .. nxt - 1; at t + 1 + m the window is F[i0 + 1 + m : i0 + 1 + m + o]
    fits = np.flatnonzero(_window_max(F[i0 + 1:i0 + g + o], o) - np.arange(g) <= M + t + 1 - s)
    return t + 1 + int(fits[0]) if len(fits) else nxt


def _window_max(x: np.ndarray, w: int) -> np.ndarray:
    """``y[i] = max(x[i:i + w])`` for ``i = 0 .. len(x) - w`` (doubling: ``O(len(x) log w)``)."""
    y, span = x, 1
    while 2 * span <= w:
        y = np.maximum(y[:-span], y[span:])  # y[i] = max(x[i:i + 2 span])
        span *= 2
    if span < w:
        d = w - span
        y = np.maximum(y[:-d], y[d:])
    return y


def _late_start(name: str, t: int, heap: list[int], ids) -> ScheduleError:
    """The engine's error for a round past ``2**53`` with requests waiting."""
    waiting, j = len(heap), min(ids[r] for r in heap)
    who = f"{waiting} requests still wait (request {j} among them)" if waiting > 1 else f"request {j} still waits"
    return ScheduleError(f"{name}: at t = {t}, {who}: a start time would be too large (kvlib accepts values up "
                         f"to 2**53 = {MAX_VALUE})")


def _round_limit(name: str, max_rounds: int, t: int, start: list, instance: Instance,
                 waiting: int) -> SimulationStalled:
    """The engine's error for more than ``max_rounds`` decision rounds (same counts, same advice)."""
    p = np.asarray(start, dtype=np.int64)
    begun = p >= 0
    done = int((begun & (p + instance.output <= t)).sum())
    running = int(begun.sum()) - done
    return SimulationStalled(
        f"{name}: more than {max_rounds} decision rounds at t={t} "
        f"({instance.n - done} requests unfinished, {running} running, {waiting} waiting). Raise the round "
        "limit (max_rounds=..., CLI --max-rounds) if the run is making progress, or change the policy's "
        "options (alpha-greedy / alpha-beta-clearing: a larger --alpha keeps more memory free and clears less "
        "often) or the policy"
    )


def _exact_sum(x: np.ndarray) -> int:
    """``sum(x)`` as an exact Python int (NumPy's int64 sum when it cannot wrap)."""
    if len(x) * max(int(x.max()), 1) < 2**62:
        return int(x.sum())
    return sum(x.tolist())


def _result(instance: Instance, name: str, start: list, rounds: int, makespan: int, peak: int,
            seconds: float) -> SimResult:
    starts = tuple(start)
    del start
    tel = sum(starts) + _exact_sum(instance.output) - _exact_sum(instance.arrival)
    return SimResult(policy=name, schedule=Schedule(starts, ()), tel=tel, avg_latency=tel / instance.n,
                     makespan=makespan, peak_memory=peak, rounds_decided=rounds, evictions=0,
                     decision_seconds=seconds, decision_times=[])
