"""Online scheduling policies of 001/004 (Jaillet et al.).

Every policy sees the system only through :class:`~kvlib.core.protocol.PolicyContext` and
answers each decision time with a :class:`~kvlib.core.protocol.Decision` (see that module).
The queues and the eq. (5) admission they share are in :mod:`kvlib.policies.base`.

Tie-breaking: every ordering key ends with the request id, so the result is a
deterministic function of the instance.  With ``tie_break="random"`` a random
permutation drawn from the simulation's seeded generator replaces the id as the
secondary key (so equal keys are broken at random, reproducibly per seed).

Policies (registry :data:`POLICIES`):

========================= ==================================================
``mc-sf``                 001 Algorithm 1, MC-SF: keep running requests; sort
                          waiting requests by ``o`` and start the longest
                          prefix that keeps eq. (5) at every future
                          completion time.
``mc-benchmark``          001 Algorithm 2, MC-Benchmark: scan waiting
                          requests in arrival order, start each one for which
                          eq. (5) still holds (one that does not fit does not
                          block later ones).
``fcfs``                  First-come-first-served with the same eq. (5) test:
                          the longest prefix in arrival order (head-of-line
                          blocking).
``alpha-greedy``          001 Section 5.2, alpha-protection greedy: start
                          waiting requests in arrival order while the next
                          round's usage, counting ``s + 1`` for a new prompt,
                          stays ``<= (1 - alpha) M``; when the running set
                          would exceed ``M`` next round, clear all of it.
``alpha-beta-clearing``   the same admission; on overflow clear each running
                          request independently with probability ``beta``
                          (repeated until the next round fits).
========================= ==================================================
"""

from __future__ import annotations

import heapq

import numpy as np

from kvlib.core.protocol import Decision, Policy, PolicyContext, Running
from kvlib.policies.base import LookaheadPrefix, LookaheadScan, _QueuePolicy, _by_arrival, by_output


class AlphaProtection(_QueuePolicy):
    """001 Section 5.2 baselines: alpha-protection greedy and beta-clearing.

    Admission: in arrival order (prefix), while next-round usage of running plus
    new requests (a new prompt counts ``s + 1``) is ``<= (1 - alpha) M``.
    Overflow: if the running set alone would hold more than ``M`` at ``t + 1``,
    clear it — all of it (``beta = 1``, greedy) or each request independently
    with probability ``beta``, repeated until it fits.  Cleared requests lose
    their progress and rejoin the queue at their arrival position.
    """

    preemptive = True
    every_round = True

    def __init__(self, alpha: float, beta: float = 1.0, tie_break: str = "index") -> None:
        super().__init__(tie_break)
        if not 0.0 <= alpha < 1.0:
            raise ValueError(f"alpha must be in [0, 1), got {alpha}")
        if not 0.0 < beta <= 1.0:
            raise ValueError(f"beta must be in (0, 1], got {beta}")
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.name = "alpha-greedy" if beta == 1.0 else "alpha-beta-clearing"
        self.clearings = 0

    def key(self, i: int) -> tuple:
        return (int(self.ctx.arrival[i]),)

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        cap = (1.0 - self.alpha) * ctx.memory
        too_big = np.flatnonzero(ctx.prompt + 1 > cap)
        if len(too_big):
            i = int(too_big[0])
            raise ValueError(
                f"alpha = {self.alpha}: request {i} needs s + 1 = {int(ctx.prompt[i]) + 1} tokens to start but "
                f"(1 - alpha) M = {cap:g}; it could never be admitted"
            )

    def decide(self, t: int, running: Running) -> Decision:
        ctx = self.ctx
        ids = running.ids
        hold = ctx.prompt[ids] + (t + 1 - running.starts)
        keep = np.ones(len(ids), dtype=bool)
        evict: list[int] = []
        if hold.sum() > ctx.memory:
            self.clearings += 1
            if self.beta >= 1.0:
                keep[:] = False
            else:
                while hold[keep].sum() > ctx.memory:
                    keep &= ctx.rng.random(len(ids)) >= self.beta
            evict = ids[~keep].tolist()
            for i in evict:
                self._push(int(i))
        used = int(hold[keep].sum())
        cap = (1.0 - self.alpha) * ctx.memory
        started: list[int] = []
        heap = self._heap
        while heap:
            i = heap[0][-1]
            need = int(ctx.prompt[i]) + 1
            if used + need > cap:
                break
            heapq.heappop(heap)
            used += need
            started.append(i)
        return Decision(start=started, evict=evict)


def mc_sf(tie_break: str = "index") -> Policy:
    """MC-SF, 001 Algorithm 1 (ties: arrival then id, or random with ``tie_break='random'``)."""
    return LookaheadPrefix(by_output, "mc-sf", tie_break)


def mc_benchmark(tie_break: str = "index") -> Policy:
    """MC-Benchmark, 001 Algorithm 2: arrival order, each request started if eq. (5) holds."""
    return LookaheadScan(_by_arrival, "mc-benchmark", tie_break)


def fcfs(tie_break: str = "index") -> Policy:
    """FCFS with the eq. (5) test: longest prefix in arrival order."""
    return LookaheadPrefix(_by_arrival, "fcfs", tie_break)

def alpha_greedy(alpha: float = 0.25, tie_break: str = "index") -> Policy:
    """Alpha-protection greedy, 001 Section 5.2."""
    return AlphaProtection(alpha, 1.0, tie_break)


def alpha_beta_clearing(alpha: float = 0.25, beta: float = 0.5, tie_break: str = "index") -> Policy:
    """Alpha-protection beta-clearing, 001 Section 5.2."""
    return AlphaProtection(alpha, beta, tie_break)
