"""The plain discrete-time engine: a test oracle for :func:`kvlib.core.simulate.simulate`.

Same protocol and the same five steps per time ``t`` as the fast engine (see
:mod:`kvlib.core.simulate`), written the obvious way: completions found by
scanning the running set, memory summed over the running set at every time the
engine visits: every time at which something runs (it never jumps over
such a time), at ``t`` and, after decisions, at ``t + 1``.  It is
``O(running)`` per round, ``O(makespan)`` rounds, and is not meant for large inputs; ``tests`` run both
engines on random instances and require identical schedules.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.errors import PolicyError, SimulationStalled
from kvlib.core.model import Schedule
from kvlib.core.protocol import Policy, PolicyContext, Running


def simulate_reference(instance, policy: Policy, *, seed: int = 0, known_output=None, lower=None, upper=None,
                       reveal_output: bool = True, max_rounds: int | None = None):
    """Run ``policy`` on ``instance`` with the plain engine; returns ``(schedule, rounds_decided)``."""
    from kvlib.core.simulate import _reset, check_decision, validate_inputs

    seed, told, lower, upper, max_rounds = validate_inputs(
        instance, policy, seed=seed, known_output=known_output, lower=lower, upper=upper,
        reveal_output=reveal_output, max_rounds=max_rounds)
    n, M = instance.n, instance.memory
    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    ctx = PolicyContext(memory=M, arrival=instance.arrival, prompt=instance.prompt, output=told,
                        rng=np.random.default_rng(seed), lower=lower, upper=upper)
    _reset(policy, ctx)
    pending = sorted(range(n), key=lambda i: (a[i], i))  # arrival order, stable
    nxt_arr = 0
    state = np.zeros(n, dtype=np.int8)
    start = [-1] * n
    running: dict[int, int] = {}
    cancelled: list[tuple[int, int, int]] = []
    done = rounds = 0
    t = a[pending[0]]
    while done < n:
        held = sum(s[i] + t - p for i, p in running.items())
        if held > M:
            raise PolicyError(f"{policy.name}: memory {held} > M = {M} at t={t}")
        fin = [i for i, p in running.items() if p + o[i] <= t]
        if fin:
            for i in fin:
                del running[i]
                state[i] = 3
            done += len(fin)
            policy.on_complete(t, np.asarray(fin, dtype=np.int64))
            if done == n:
                break
        arrived = []
        while nxt_arr < n and a[pending[nxt_arr]] <= t:
            arrived.append(pending[nxt_arr])
            nxt_arr += 1
        if arrived:
            state[arrived] = 1
            policy.on_arrival(t, np.asarray(arrived, dtype=np.int64))
        waiting = policy.waiting_count()
        if waiting == 0 and not (policy.every_round and running):
            if running:  # step one round at a time while something runs (memory is checked at every time)
                t += 1
                continue
            if nxt_arr >= n:
                raise PolicyError(f"{policy.name}: nothing waits or runs at t={t} but {n - done} not done")
            t = max(t + 1, a[pending[nxt_arr]])
            continue
        rounds += 1
        if rounds > max_rounds:
            raise SimulationStalled(f"{policy.name}: more than {max_rounds} decision rounds at t={t}")
        dec = policy.decide(t, Running(np.asarray(list(running), dtype=np.int64),
                                       np.asarray(list(running.values()), dtype=np.int64)))
        check_decision(policy, dec, f"t={t}", running, state)
        for i in dec.evict:
            p = running.pop(int(i))
            cancelled.append((int(i), p, t - p))
            state[i] = 1
        for i in dec.start:
            state[i] = 2
            running[int(i)] = t
            start[int(i)] = t
        held = sum(s[i] + t + 1 - p for i, p in running.items())
        if held > M:
            raise PolicyError(f"{policy.name}: memory {held} > M = {M} at t={t + 1}")
        if not running and not dec.start and waiting:
            raise PolicyError(f"{policy.name}: {waiting} requests wait at t={t}, nothing runs, none started")
        t += 1
    return Schedule(tuple(start), tuple(cancelled)), rounds
