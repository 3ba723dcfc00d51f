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
from kvlib.core.simulate import PolicyError, SimulationStalled, check_decision
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
    n = workload.n
    M = int(memory)
    # number requests by arrival time (stable), map back at the end
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
    tic = _time.perf_counter()
    policy.reset(ctx)
    reset_seconds = _time.perf_counter() - tic
    if stall_window is None:
        stall_window = 4 * int(o.max()) + 100
    if max_rounds is None:
        max_rounds = 50 * (int(o.sum()) + n) + 1000

    state = np.zeros(n, dtype=np.int8)  # 0 future, 1 waiting, 2 running, 3 done
    start = np.full(n, -1, dtype=np.int64)
    completion = np.full(n, np.nan)
    running: dict[int, int] = {}
    ends: list[tuple[int, int, int]] = []  # heap (p + o, i, p); lazily invalidated
    S = 0  # sum of s over running
    P = 0  # sum of p over running
    cancelled: list[tuple[int, int, int]] = []
    rec_tau: list[float] = []
    rec_t: list[int] = []
    rec_mem: list[int] = []
    rec_ms: list[float] = []
    done = 0
    nxt = 0  # next request (in arrival order) not yet visible
    t = 0
    tau = float(arr_s[0]) if n else 0.0
    last_completion_round = 0
    decisions = 0
    decision_seconds = 0.0
    stall_reason = None
    clearings = 0

    while done < n:
        # 1. completions at the start of round t (end of round t - 1)
        fin = []
        while ends and ends[0][0] <= t:
            e, i, p = heapq.heappop(ends)
            if running.get(i) == p and state[i] == 2:
                fin.append(i)
        if fin:
            for i in fin:
                p = running.pop(i)
                S -= int(s[i])
                P -= p
                state[i] = 3
                completion[i] = tau
            done += len(fin)
            last_completion_round = t
            policy.on_complete(t, np.asarray(fin, dtype=np.int64))
            if done == n:
                break
        # 2. arrivals visible at tau
        hi = int(np.searchsorted(arr_s, tau, side="right"))
        if hi > nxt:
            ids = np.arange(nxt, hi, dtype=np.int64)
            vis_round[ids] = t
            state[ids] = 1
            nxt = hi
            policy.on_arrival(t, ids)
        waiting = policy.waiting_count()
        if waiting == 0 and not running:
            if nxt >= n:
                raise PolicyError(f"{policy.name}: nothing waits or runs at round {t} but {n - done} requests are not done")
            tau = max(tau, float(arr_s[nxt]))  # idle: jump to the next arrival, no round spent
            continue
        if t - last_completion_round > stall_window or t >= max_rounds:
            stall_reason = (f"no completion in {t - last_completion_round} rounds" if t < max_rounds
                            else f"more than {max_rounds} rounds")
            stall_reason += f" at round {t} ({n - done} unfinished, {len(running)} running, {waiting} waiting)"
            if on_stall == "raise":
                raise SimulationStalled(f"{policy.name}: {stall_reason}")
            break
        # 3. decide
        prefill = 0
        sumsq = 0
        if waiting or (policy.every_round and running):
            ids_run = np.fromiter(running.keys(), dtype=np.int64, count=len(running))
            starts_run = np.fromiter(running.values(), dtype=np.int64, count=len(running))
            tic = _time.perf_counter()
            dec: Decision = policy.decide(t, Running(ids_run, starts_run))
            decision_seconds += _time.perf_counter() - tic
            decisions += 1
            if dec.evict:
                clearings += 1
            check_decision(policy, dec, f"round {t}", running, state)
            for i in dec.evict:
                p = running.pop(i)
                S -= int(s[i])
                P -= p
                cancelled.append((int(i), p, t - p))
                state[i] = 1
            for i in dec.start:
                state[i] = 2
                running[i] = t
                start[i] = t
                si = int(s[i])
                S += si
                P += t
                prefill += si
                sumsq += si * si
                heapq.heappush(ends, (t + int(o[i]), int(i), t))
            n_new = len(dec.start)
        else:
            n_new = 0
        if not running:
            if waiting:
                raise PolicyError(f"{policy.name}: {waiting} requests wait at round {t}, nothing runs, and none was started")
            continue
        # 4. the batch and the memory at t + 1
        k = len(running)
        k_old = k - n_new
        kv_old = (S - prefill) - (P - n_new * t) + k_old * t  # sum over old runs of s_i + t - p_i
        held = S - P + k * (t + 1)
        if held > M:
            raise PolicyError(f"{policy.name}: memory {held} > M = {M} at round {t + 1} after decisions at round {t}")
        ms = model.batch_ms(prefill, k_old, kv_old, sumsq)
        rec_tau.append(tau)
        rec_t.append(t)
        rec_mem.append(held)
        rec_ms.append(ms)
        tau += ms / 1000.0
        t += 1

    completed = done == n
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.arange(n)
    lat = completion - arr_s
    inst = sched = None
    if completed:
        inst = Instance.from_arrays(vis_round[inv], s[inv], o[inv], M)
        canc = tuple((int(order[i]), p, r) for i, p, r in cancelled)
        sched = Schedule(tuple(int(x) for x in start[inv]), canc)
    return RealtimeResult(
        policy=policy.name,
        label=workload.label,
        n=n,
        completed=completed,
        latency_s=lat[inv],
        arrival_s=arr_s[inv],
        completion_s=completion[inv],
        instance=inst,
        schedule=sched,
        round_start_s=np.asarray(rec_tau),
        round_index=np.asarray(rec_t, dtype=np.int64),
        memory_after=np.asarray(rec_mem, dtype=np.int64),
        batch_ms=np.asarray(rec_ms),
        rounds=len(rec_t),
        decisions=decisions,
        evictions=len(cancelled),
        clearings=clearings,
        decision_seconds=decision_seconds,
        reset_seconds=reset_seconds,
        wall_seconds=_time.perf_counter() - tic_all,
        stall_reason=stall_reason,
    )
