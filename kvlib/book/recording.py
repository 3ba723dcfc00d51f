"""A policy wrapper that records, before every decision, how many requests wait and run.

Used by the chapter "MC-SF's constant ratio" to relate MC-SF's per-round decision time
(001 Proposition 4.2) to the queue it scans.  The wrapper forwards every call of the
:class:`kvlib.core.protocol.Policy` protocol to the wrapped policy and changes no decision.
"""

from __future__ import annotations

from kvlib.core.protocol import Policy


class QueueRecorder(Policy):
    """Wraps a policy; ``waiting[k]`` / ``running[k]`` are the queue lengths before its ``k``-th decision."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.preemptive, self.every_round = inner.name, inner.preemptive, inner.every_round
        self.waiting: list[int] = []
        self.running: list[int] = []

    def reset(self, ctx):
        self.inner.reset(ctx)

    def on_arrival(self, t, ids):
        self.inner.on_arrival(t, ids)

    def on_complete(self, t, ids):
        self.inner.on_complete(t, ids)

    def waiting_count(self):
        return self.inner.waiting_count()

    def decide(self, t, running):
        self.waiting.append(self.inner.waiting_count())
        self.running.append(len(running.ids))
        return self.inner.decide(t, running)
