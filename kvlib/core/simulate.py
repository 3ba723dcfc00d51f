"""Discrete-time simulation of an online policy (001 Section 2).

The engine owns the truth (true output lengths, arrivals still in the future)
and shows a policy only :class:`~kvlib.policies.PolicyContext` plus the running
set.  At each integer time ``t``:

1. runs whose last round ended at ``t`` complete (``p_i + o_i <= t``);
2. requests with ``a_i <= t`` join the queue;
3. the policy returns evictions and starts; started requests hold
   ``s_i + 1`` at ``t + 1``;
4. the engine verifies that the tokens held at ``t + 1`` are ``<= M``
   (a policy that breaks this raises :class:`PolicyError`).

Rounds in which nobody waits are skipped (to the next arrival) unless the
policy asks to be consulted every round.  The resulting schedule is an ordinary
:class:`~kvlib.core.model.Schedule`; callers are expected to validate it with the
independent :func:`kvlib.core.checker.check_schedule` (the tests always do).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field

import numpy as np

from kvlib.core.model import Instance, Schedule
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running


class PolicyError(RuntimeError):
    """The policy made an illegal decision (names policy, time and request)."""


class SimulationStalled(RuntimeError):
    """The simulation exceeded ``max_rounds`` (e.g. an endless clearing loop)."""


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
) -> SimResult:
    """Run ``policy`` on ``instance``.

    ``known_output`` replaces the output lengths the policy is told (predictions);
    with ``reveal_output=False`` the policy is told none (interval models of 003
    pass ``lower``/``upper`` instead).  ``seed`` seeds the generator handed to
    the policy (tie-breaking, random clearing).  ``max_rounds`` bounds the number
    of decision rounds (default: generous, ``50 * (sum o + max a + n) + 1000``).
    """
    n = instance.n
    M = instance.memory
    arr = instance.arrival
    s = instance.prompt
    o = instance.output
    told = None
    if reveal_output:
        told = np.asarray(known_output if known_output is not None else o, dtype=np.int64)
        if told.shape != (n,):
            raise ValueError(f"known_output has shape {told.shape}, expected ({n},)")
    ctx = PolicyContext(
        memory=M,
        arrival=arr,
        prompt=s,
        output=told,
        rng=np.random.default_rng(seed),
        lower=None if lower is None else np.asarray(lower, dtype=np.int64),
        upper=None if upper is None else np.asarray(upper, dtype=np.int64),
    )
    policy.reset(ctx)
    if max_rounds is None:
        max_rounds = 50 * (int(o.sum()) + int(arr.max()) + n) + 1000

    order = np.argsort(arr, kind="stable")
    arr_sorted = arr[order]
    next_arrival = 0  # index into order
    state = np.zeros(n, dtype=np.int8)  # 0 future, 1 waiting, 2 running, 3 done
    start = np.full(n, -1, dtype=np.int64)
    running: dict[int, int] = {}
    cancelled: list[tuple[int, int, int]] = []
    done = 0
    rounds = 0
    decision_seconds = 0.0
    times: list[float] = []
    t = int(arr_sorted[0])

    while done < n:
        # 1. completions
        if running:
            fin = [i for i, p in running.items() if p + o[i] <= t]
            if fin:
                for i in fin:
                    del running[i]
                    state[i] = 3
                done += len(fin)
                policy.on_complete(t, np.asarray(fin, dtype=np.int64))
                if done == n:
                    break
        # 2. arrivals
        hi = int(np.searchsorted(arr_sorted, t, side="right"))
        if hi > next_arrival:
            ids = order[next_arrival:hi]
            state[ids] = 1
            next_arrival = hi
            policy.on_arrival(t, ids)
        waiting = policy.waiting_count()
        if waiting == 0 and not (policy.every_round and running):
            # nothing to decide: jump to the next arrival or completion
            nxt = [int(arr_sorted[next_arrival])] if next_arrival < n else []
            if running:
                nxt.append(min(p + int(o[i]) for i, p in running.items()))
            if not nxt:
                raise PolicyError(f"{policy.name}: no request waiting or running at t={t} but {n - done} not done")
            t = max(t + 1, min(nxt))
            continue
        # 3. decide
        rounds += 1
        if rounds > max_rounds:
            raise SimulationStalled(
                f"{policy.name}: more than {max_rounds} decision rounds at t={t} "
                f"({n - done} requests unfinished, {len(running)} running)"
            )
        ids_run = np.fromiter(running.keys(), dtype=np.int64, count=len(running))
        starts_run = np.fromiter(running.values(), dtype=np.int64, count=len(running))
        tic = _time.perf_counter()
        dec: Decision = policy.decide(t, Running(ids_run, starts_run))
        dt = _time.perf_counter() - tic
        decision_seconds += dt
        if record_decision_times:
            times.append(dt)
        check_decision(policy, dec, f"t={t}", running, state)
        for i in dec.evict:
            p = running.pop(i)
            cancelled.append((i, p, t - p))
            state[i] = 1
        for i in dec.start:
            state[i] = 2
            running[i] = t
            start[i] = t
        # 4. memory at t + 1
        if running:
            held = sum(int(s[i]) + t + 1 - p for i, p in running.items())
            if held > M:
                raise PolicyError(f"{policy.name}: memory {held} > M = {M} at t={t + 1} after decisions at t={t}")
        if not running and not dec.start and waiting:
            raise PolicyError(f"{policy.name}: {waiting} requests wait at t={t}, nothing runs, and none was started")
        t += 1

    sched = Schedule(tuple(int(x) for x in start), tuple(cancelled))
    comp = start + o
    tel = int((comp - arr).sum())
    return SimResult(
        policy=policy.name,
        schedule=sched,
        tel=tel,
        avg_latency=tel / n,
        makespan=int(comp.max()),
        peak_memory=_peak_memory(instance, sched),
        rounds_decided=rounds,
        evictions=len(cancelled),
        decision_seconds=decision_seconds,
        decision_times=times,
    )


def check_decision(policy: Policy, dec: Decision, when: str, running: dict[int, int], state: np.ndarray) -> None:
    """Raise :class:`PolicyError` if ``dec`` evicts a request that is not running (or the policy is
    non-preemptive) or starts one that is not waiting.  ``state``: 0 future, 1 waiting, 2 running,
    3 done (evicted requests count as waiting again).  Shared by both simulators."""
    for i in dec.evict:
        if not policy.preemptive:
            raise PolicyError(f"{policy.name}: evicted request {i} at {when} but the policy is non-preemptive")
        if i not in running:
            raise PolicyError(f"{policy.name}: evicted request {i} at {when}, which is not running")
    evicted = set(dec.evict)
    started: set[int] = set()
    for i in dec.start:
        st = 2 if i in started else 1 if i in evicted else int(state[i])
        started.add(i)
        if st != 1:
            what = {0: "has not arrived", 2: "is already running", 3: "is already done"}[st]
            raise PolicyError(f"{policy.name}: started request {i} at {when}, which {what}")


def _peak_memory(instance: Instance, schedule: Schedule) -> int:
    from kvlib.core.model import memory_profile

    return int(memory_profile(instance, schedule).max())
