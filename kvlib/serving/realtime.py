"""Continuous-time simulation: the round model of 001 Section 2 in wall-clock seconds.

The papers' real-data experiments (001 Section 5.2, 002 Section 7, 003 Section 6)
ran in the Vidur simulator, where one *batch* (one round of the discrete model)
takes as long as the hardware needs for it.  This engine keeps the round model
of :mod:`kvlib.core.simulate` and the :class:`~kvlib.policies.Policy` protocol
unchanged (policies reason in rounds and tokens) and maps each round to wall
clock with a batch-time model (by default the A100 model of
:mod:`kvlib.serving.measured`, every input one of Vidur's measurements; any
object with the ``batch_ms`` method of :class:`kvlib.serving.batchtime.BatchTimeModel`,
e.g. ``measured_model("h100")`` or the derived-attention ``default_model()``):

* Round ``t`` starts at wall-clock time ``tau_t``.  Requests whose arrival time
  (seconds) is ``<= tau_t`` and that were not yet visible join the queue at
  round ``t`` -- the first batch boundary at or after their arrival.  If
  nothing runs and nothing waits, the clock jumps to the next arrival (no round
  is spent).
* The policy decides (evictions, starts) exactly as in :func:`kvlib.core.simulate.simulate`.
* The batch of round ``t`` holds the prefill of every request started at ``t``
  (``s_i`` tokens each; a restarted request prefills again) and one decode token
  of every request started before ``t`` and still running, which attends to
  ``s_i + t - p_i`` cached tokens.  It lasts ``batch_ms`` milliseconds;
  ``tau_{t+1} = tau_t + batch_ms / 1000``.
* A request started at ``p`` with output ``o`` completes at the end of round
  ``p + o - 1``, i.e. at ``tau_{p+o}``; its latency is ``tau_{p+o} - arrival``
  (seconds).

The round-level record is an ordinary instance/schedule pair: the
:class:`~kvlib.core.model.Instance` whose arrivals are the rounds at which requests
became visible, and the :class:`~kvlib.core.model.Schedule` of start rounds (and
cancelled runs), so :func:`kvlib.core.checker.check_schedule` validates memory and
non-preemption independently.

Policies are told ``ctx.arrival[i]`` = the round at which request ``i`` became
visible (filled in when it does; a large sentinel before; requests present at
the first instant are 0 from the start, so offline planners -- Sorted-F,
Sorted-LP, LP-Swap of 002, meant for all-at-zero workloads -- see the whole
instance at ``reset``), so arrival order is
the wall-clock order; within one round ties are broken by request id, and
:func:`simulate_realtime` numbers requests by arrival time.
"""

from __future__ import annotations

import heapq
import time as _time
from dataclasses import dataclass, field

import numpy as np

from kvlib.serving.batchtime import BatchTimeModel
from kvlib.core.model import Instance, Schedule
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running
from kvlib.core.simulate import PolicyError, RunningView, SimulationStalled, check_decision
from kvlib.serving.workloads import Workload

PAPER_MEMORY = 16492
_NOT_YET = np.iinfo(np.int64).max // 4


@dataclass
class RealtimeResult:
    """Outcome of :func:`simulate_realtime` (times in seconds unless noted)."""

    policy: str
    label: str
    n: int
    completed: bool
    latency_s: np.ndarray = field(repr=False)
    arrival_s: np.ndarray = field(repr=False)
    completion_s: np.ndarray = field(repr=False)
    instance: Instance | None = field(repr=False)
    schedule: Schedule | None = field(repr=False)
    round_start_s: np.ndarray = field(repr=False)  # tau_t of every executed round
    round_index: np.ndarray = field(repr=False)  # t of every executed round
    memory_after: np.ndarray = field(repr=False)  # tokens held at the end of each executed round
    batch_ms: np.ndarray = field(repr=False)
    rounds: int = 0
    decisions: int = 0
    evictions: int = 0
    clearings: int = 0
    decision_seconds: float = 0.0
    reset_seconds: float = 0.0  # policy.reset (offline planning of Sorted-F / Sorted-LP / LP-Swap)
    wall_seconds: float = 0.0
    stall_reason: str | None = None

    @property
    def avg_latency(self) -> float:
        return float(np.mean(self.latency_s)) if self.completed else float("nan")

    @property
    def makespan_s(self) -> float:
        return float(np.max(self.completion_s)) if self.completed else float("nan")

    def summary(self) -> dict:
        return {
            "policy": self.policy, "label": self.label, "n": self.n, "completed": self.completed,
            "avg_latency_s": self.avg_latency, "makespan_s": self.makespan_s,
            "peak_memory": int(self.memory_after.max()) if len(self.memory_after) else 0,
            "rounds": self.rounds, "evictions": self.evictions, "decision_s": self.decision_seconds, "reset_s": self.reset_seconds,
            "wall_s": self.wall_seconds, "stall_reason": self.stall_reason,
        }


class _RealtimeEngine:
    """The state of one :func:`simulate_realtime` run (requests numbered by arrival) and its steps.

    ``running`` maps each running request to its start round (insertion order = start order); ``ends`` is
    a heap ``(p + o, i, p)``, lazily invalidated; ``S`` and ``P`` are the sums of ``s`` and ``p`` over the
    running requests, so the tokens held at round ``t`` are ``S - P + t * len(running)``.
    """

    def __init__(self, policy: Policy, arr_s: np.ndarray, s: np.ndarray, o: np.ndarray, vis_round: np.ndarray,
                 memory: int, model) -> None:
        self.policy, self.model, self.M = policy, model, memory
        self.n = n = len(arr_s)
        self.arr_s, self.arr_list = arr_s, arr_s.tolist()
        self.s_list, self.o_list = s.tolist(), o.tolist()
        self.vis_round = vis_round
        self.state = bytearray(n)  # 0 future, 1 waiting, 2 running, 3 done
        self.start = np.full(n, -1, dtype=np.int64)
        self.completion = np.full(n, np.nan)
        self.running: dict[int, int] = {}
        self.ends: list[tuple[int, int, int]] = []
        self.S = self.P = 0
        self.cancelled: list[tuple[int, int, int]] = []
        self.rec_tau: list[float] = []
        self.rec_t: list[int] = []
        self.rec_mem: list[int] = []
        self.rec_ms: list[float] = []
        self.done = self.nxt = 0  # nxt: the next request (in arrival order) not yet visible
        self.last_completion_round = 0
        self.decisions = self.clearings = 0
        self.decision_seconds = 0.0
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None
        self.view = RunningView(self)  # what the policy sees of the running set

    def running_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The running ids and their start rounds as read-only arrays in start order (cached)."""
        if self._arrays is None:
            running, k = self.running, len(self.running)
            ids = np.fromiter(running.keys(), dtype=np.int64, count=k)
            starts = np.fromiter(running.values(), dtype=np.int64, count=k)
            ids.flags.writeable = starts.flags.writeable = False
            self._arrays = (ids, starts)
        return self._arrays

    def complete(self, t: int, tau: float) -> None:
        """Completions at the start of round ``t`` (the end of round ``t - 1``), at wall-clock ``tau``."""
        ends, running, state = self.ends, self.running, self.state
        fin = []
        while ends and ends[0][0] <= t:
            e, i, p = heapq.heappop(ends)
            if running.get(i) == p and state[i] == 2:
                fin.append(i)
        if fin:
            for i in fin:
                p = running.pop(i)
                self.S -= self.s_list[i]
                self.P -= p
                state[i] = 3
                self.completion[i] = tau
            self._arrays = None
            self.done += len(fin)
            self.last_completion_round = t
            self.policy.on_complete(t, np.asarray(fin, dtype=np.int64))

    def arrive(self, t: int, tau: float) -> None:
        """Requests that arrived by ``tau`` become visible at round ``t``."""
        nxt = self.nxt
        if nxt < self.n and self.arr_list[nxt] <= tau:
            hi = int(np.searchsorted(self.arr_s, tau, side="right"))
            ids = np.arange(nxt, hi, dtype=np.int64)
            self.vis_round[ids] = t
            self.state[nxt:hi] = b"\x01" * (hi - nxt)
            self.nxt = hi
            self.policy.on_arrival(t, ids)

    def stall(self, t: int, waiting: int, stall_window: int, max_rounds: int) -> str | None:
        """Why the run counts as stalled at round ``t`` (see :func:`simulate_realtime`), or ``None``."""
        if t - self.last_completion_round > stall_window or t >= max_rounds:
            reason = (f"no completion in {t - self.last_completion_round} rounds" if t < max_rounds
                      else f"more than {max_rounds} rounds")
            return reason + (f" at round {t} ({self.n - self.done} unfinished, {len(self.running)} running, "
                             f"{waiting} waiting)")
        return None

    def decide(self, t: int) -> tuple[int, int, int]:
        """Ask the policy at round ``t`` and apply its evictions and starts; returns the round's prefill
        tokens, the sum of their squares and the number of requests started."""
        policy, running, state = self.policy, self.running, self.state
        tic = _time.perf_counter()
        dec: Decision = policy.decide(t, self.view)
        self.decision_seconds += _time.perf_counter() - tic
        self.decisions += 1
        if dec.evict:
            self.clearings += 1
        if dec.evict or dec.start:
            check_decision(policy, dec, f"round {t}", running, state)
        s_list = self.s_list
        for i in dec.evict:
            p = running.pop(i)
            self.S -= s_list[i]
            self.P -= p
            self.cancelled.append((int(i), p, t - p))
            state[i] = 1
        prefill = sumsq = 0
        for i in dec.start:
            state[i] = 2
            running[i] = t
            self.start[i] = t
            si = s_list[i]
            self.S += si
            self.P += t
            prefill += si
            sumsq += si * si
            heapq.heappush(self.ends, (t + self.o_list[i], int(i), t))
        if dec.evict or dec.start:
            self._arrays = None
        return prefill, sumsq, len(dec.start)

    def batch(self, t: int, tau: float, prefill: int, sumsq: int, n_new: int) -> float:
        """Round ``t``'s batch: check the memory at ``t + 1``, record the round; returns the next ``tau``."""
        k = len(self.running)
        k_old = k - n_new
        S, P = self.S, self.P
        kv_old = (S - prefill) - (P - n_new * t) + k_old * t  # sum over old runs of s_i + t - p_i
        held = S - P + k * (t + 1)
        if held > self.M:
            raise PolicyError(f"{self.policy.name}: memory {held} > M = {self.M} at round {t + 1} after decisions "
                              f"at round {t}")
        ms = self.model.batch_ms(prefill, k_old, kv_old, sumsq)
        self.rec_tau.append(tau)
        self.rec_t.append(t)
        self.rec_mem.append(held)
        self.rec_ms.append(ms)
        return tau + ms / 1000.0

    def run(self, tau: float, stall_window: int, max_rounds: int, on_stall: str) -> str | None:
        """The loop over rounds; returns the stall reason (``None`` when every request completed)."""
        policy, n = self.policy, self.n
        every_round = policy.every_round
        t = 0
        while self.done < n:
            self.complete(t, tau)
            if self.done == n:
                break
            self.arrive(t, tau)
            waiting = policy.waiting_count()
            if waiting == 0 and not self.running:
                if self.nxt >= n:
                    raise PolicyError(f"{policy.name}: nothing waits or runs at round {t} but {n - self.done} "
                                      "requests are not done")
                tau = max(tau, self.arr_list[self.nxt])  # idle: jump to the next arrival, no round spent
                continue
            reason = self.stall(t, waiting, stall_window, max_rounds)
            if reason is not None:
                if on_stall == "raise":
                    raise SimulationStalled(f"{policy.name}: {reason}")
                return reason
            if waiting or (every_round and self.running):
                prefill, sumsq, n_new = self.decide(t)
            else:
                prefill = sumsq = n_new = 0
            if not self.running:
                if waiting:
                    raise PolicyError(f"{policy.name}: {waiting} requests wait at round {t}, nothing runs, and none "
                                      "was started")
                continue
            tau = self.batch(t, tau, prefill, sumsq, n_new)
            t += 1
        return None


def _prepare(workload: Workload, memory: int, known_output, lower, upper, reveal_output: bool, seed: int):
    """Number the requests by arrival (stable) and build the policy's context; returns
    ``(order, arrival seconds, s, o, visible round, context)`` in that numbering."""
    n = workload.n
    M = int(memory)
    order = np.argsort(workload.arrival_s, kind="stable")
    arr_s = np.asarray(workload.arrival_s, dtype=float)[order]
    s = np.asarray(workload.prompt, dtype=np.int64)[order]
    o = np.asarray(workload.output, dtype=np.int64)[order]
    if np.any(s <= 0) or np.any(o <= 0):
        raise ValueError("prompt and output sizes must be positive")
    big = np.flatnonzero(s + o > M)
    if len(big):
        i = int(order[big[0]])
        raise ValueError(f"request {i}: prompt + output = {int(s[big[0]] + o[big[0]])} exceeds M = {M}; it can never run")

    def reorder(x):
        return None if x is None else np.asarray(x, dtype=np.int64)[order]

    told = None
    if reveal_output:
        told = reorder(known_output) if known_output is not None else o
    vis_round = np.full(n, _NOT_YET, dtype=np.int64)
    # requests present at the first instant are visible at round 0 already at reset
    # (offline planners such as Sorted-F / Sorted-LP read ctx.arrival at reset)
    vis_round[arr_s <= arr_s[0]] = 0
    ctx = PolicyContext(memory=M, arrival=vis_round, prompt=s, output=told, rng=np.random.default_rng(seed),
                        lower=reorder(lower), upper=reorder(upper))
    return order, arr_s, s, o, vis_round, ctx


def _result(engine: _RealtimeEngine, workload: Workload, order: np.ndarray, s: np.ndarray, o: np.ndarray,
            stall_reason: str | None, reset_seconds: float, tic_all: float) -> RealtimeResult:
    """The :class:`RealtimeResult` in the workload's own numbering."""
    n = engine.n
    completed = engine.done == n
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.arange(n)
    lat = engine.completion - engine.arr_s
    inst = sched = None
    if completed:
        inst = Instance.from_arrays(engine.vis_round[inv], s[inv], o[inv], engine.M)
        canc = tuple((int(order[i]), p, r) for i, p, r in engine.cancelled)
        sched = Schedule(tuple(int(x) for x in engine.start[inv]), canc)
    return RealtimeResult(
        policy=engine.policy.name,
        label=workload.label,
        n=n,
        completed=completed,
        latency_s=lat[inv],
        arrival_s=engine.arr_s[inv],
        completion_s=engine.completion[inv],
        instance=inst,
        schedule=sched,
        round_start_s=np.asarray(engine.rec_tau),
        round_index=np.asarray(engine.rec_t, dtype=np.int64),
        memory_after=np.asarray(engine.rec_mem, dtype=np.int64),
        batch_ms=np.asarray(engine.rec_ms),
        rounds=len(engine.rec_t),
        decisions=engine.decisions,
        evictions=len(engine.cancelled),
        clearings=engine.clearings,
        decision_seconds=engine.decision_seconds,
        reset_seconds=reset_seconds,
        wall_seconds=_time.perf_counter() - tic_all,
        stall_reason=stall_reason,
    )


def simulate_realtime(
    workload: Workload,
    policy: Policy,
    *,
    memory: int = PAPER_MEMORY,
    model: BatchTimeModel | None = None,
    seed: int = 0,
    known_output: np.ndarray | None = None,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
    reveal_output: bool = True,
    stall_window: int | None = None,
    max_rounds: int | None = None,
    on_stall: str = "raise",
) -> RealtimeResult:
    """Run ``policy`` on ``workload`` in continuous time (see the module docstring).

    ``known_output`` / ``lower`` / ``upper`` / ``reveal_output`` are as in
    :func:`kvlib.core.simulate.simulate` (indexed like ``workload``).  The run is
    declared *stalled* (an endless clearing loop) when no request completes for
    ``stall_window`` consecutive rounds (default ``4 * max(o) + 100``; a request
    running uninterrupted for ``max(o)`` rounds always completes) or after
    ``max_rounds`` rounds; ``on_stall="raise"`` raises
    :class:`~kvlib.core.simulate.SimulationStalled`, ``"return"`` returns a result with
    ``completed=False`` and ``stall_reason`` set.
    """
    if on_stall not in ("raise", "return"):
        raise ValueError(f"on_stall must be 'raise' or 'return', got {on_stall!r}")
    tic_all = _time.perf_counter()
    if model is None:  # the A100 with every input measured (Vidur's profiles); kvlib.serving.measured
        from kvlib.serving.measured import measured_model

        model = measured_model("a100")
    order, arr_s, s, o, vis_round, ctx = _prepare(workload, memory, known_output, lower, upper, reveal_output,
                                                  seed)
    tic = _time.perf_counter()
    policy.reset(ctx)
    reset_seconds = _time.perf_counter() - tic
    n = workload.n
    if stall_window is None:
        stall_window = 4 * int(o.max()) + 100
    if max_rounds is None:
        max_rounds = 50 * (int(o.sum()) + n) + 1000
    engine = _RealtimeEngine(policy, arr_s, s, o, vis_round, int(memory), model)
    tau = float(arr_s[0]) if n else 0.0
    stall_reason = engine.run(tau, stall_window, max_rounds, on_stall)
    return _result(engine, workload, order, s, o, stall_reason, reset_seconds, tic_all)
