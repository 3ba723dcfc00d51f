"""Building blocks shared by the policies of every paper: a waiting queue with a
deterministic (or seeded random) tie-break, and admission by 001 eq. (5).

Tie-breaking: every ordering key ends with the request id, so the result is a
deterministic function of the instance.  With ``tie_break="random"`` a random
permutation drawn from the simulation's seeded generator replaces the id as the
secondary key (so equal keys are broken at random, reproducibly per seed).
"""

from __future__ import annotations

import heapq
from typing import Callable

import numpy as np

from kvlib.core.lookahead import FutureMemory, LiveProfile, earliest_fit, wake_time
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running


class _QueuePolicy(Policy):
    """Waiting requests kept in a heap ordered by ``key(i) + (tiebreak, i)``."""

    tie_break: str = "index"

    def __init__(self, tie_break: str = "index") -> None:
        if tie_break not in ("index", "random"):
            raise ValueError(f"tie_break must be 'index' or 'random', got {tie_break!r}")
        self.tie_break = tie_break

    def key(self, i: int) -> tuple:
        raise NotImplementedError

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        n = len(ctx.arrival)
        if self.tie_break == "random":
            self._tb = ctx.rng.permutation(n)
        else:
            self._tb = np.arange(n)
        self._heap: list[tuple] = []

    def _push(self, i: int) -> None:
        heapq.heappush(self._heap, self.key(i) + (int(self._tb[i]), i))

    def on_arrival(self, t: int, ids: np.ndarray) -> None:
        for i in ids.tolist():
            self._push(i)

    def waiting_count(self) -> int:
        return len(self._heap)

    def _future(self, t: int, running: Running) -> FutureMemory:
        ctx = self.ctx
        ids = running.ids
        return FutureMemory(t, ctx.memory, ctx.prompt[ids], running.starts, running.starts + ctx.output[ids])


class _OrderedPolicy(_QueuePolicy):
    """A queue ordered by a key function ``order(ctx, i)`` (then the tie-break, then the id)."""

    def __init__(self, order: Callable[[PolicyContext, int], tuple], name: str, tie_break: str = "index") -> None:
        super().__init__(tie_break)
        self._order = order
        self.name = name

    def key(self, i: int) -> tuple:
        return self._order(self.ctx, i)


class LookaheadPrefix(_OrderedPolicy):
    """Start the longest prefix of the ordered queue that keeps eq. (5).

    Running requests are kept; waiting requests are tried in queue order and the
    first one that fails eq. (5) stops the round ("Break the for loop").  Ordered by
    output length this is 001 Algorithm 1 (MC-SF); by arrival time, 001 Algorithm 2
    (MC-Benchmark).
    """

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        self._live: LiveProfile | None = None  # the running set's check-point profile, kept across rounds
        self._run_start: dict[int, int] = {}  # running request -> start time (what this policy started)

    def _admit(self, fm: FutureMemory, t: int, i: int, s: int, o: int) -> bool:
        """One eq. (5) test; adds the request to ``fm`` if it passes."""
        return fm.try_add(s, o)

    def on_complete(self, t: int, ids: np.ndarray) -> None:
        """Take completed runs off the kept profile: only those completing before their believed end
        ``p + o`` (told outputs longer than the true ones) change check-points after ``t``."""
        live, starts, ctx = self._live, self._run_start, self.ctx
        if live is not None and t >= live.t:
            live.advance(t)
        for i in ids.tolist():
            p = starts.pop(i, None)
            if live is None:
                continue
            if p is None:  # not a run this policy started: rebuild at the next decision
                self._live = live = None
                continue
            e = p + int(ctx.output[i])
            if e > t:
                live.remove(int(ctx.prompt[i]), p, e)

    def _profile(self, t: int, running: Running) -> LiveProfile:
        """The kept profile moved on to ``t``; rebuilt from ``running`` (as :meth:`_future`) when there is
        none yet or it does not describe ``running`` (another engine, a run this policy did not start)."""
        live = self._live
        if live is not None and live.t <= t and len(running) == len(self._run_start):
            live.advance(t)
            return live
        ctx = self.ctx
        ids = running.ids
        live = LiveProfile(t, ctx.memory, ctx.prompt[ids], running.starts, running.starts + ctx.output[ids])
        self._live = live
        self._run_start = dict(zip(ids.tolist(), running.starts.tolist()))
        return live

    def decide(self, t: int, running: Running) -> Decision:
        fm = self._profile(t, running)
        s, o = self.ctx.prompt, self.ctx.output
        started: list[int] = []
        heap = self._heap
        while heap:
            i = heap[0][-1]
            if not self._admit(fm, t, i, int(s[i]), int(o[i])):
                break
            heapq.heappop(heap)
            started.append(i)
        run_start = self._run_start
        for i in started:
            run_start[i] = t
        return Decision(start=started)

    def idle_until(self, t: int, running: Running, until: int) -> int:
        """The first time the head of the queue passes eq. (5) with the running set fixed (exact:
        :func:`kvlib.core.lookahead.wake_time`), capped at the first check-point, where the test's
        running set changes; subclasses that change ``decide`` or ``_admit`` are consulted every round."""
        if type(self).decide is not LookaheadPrefix.decide or type(self)._admit is not LookaheadPrefix._admit \
                or not self._heap:
            return t + 1
        i = self._heap[0][-1]
        return wake_time(self._profile(t, running), int(self.ctx.prompt[i]), int(self.ctx.output[i]), until)


class TracedLookaheadPrefix(LookaheadPrefix):
    """:class:`LookaheadPrefix` that records every eq. (5) test it makes (for teaching).

    ``steps`` gets one dict per tested candidate: decision time ``t``, request
    ``i``, its ``s`` and ``o``, the check-points ``c`` (future completion times)
    with the usage ``U(c)`` they would have if the candidate were added, and
    whether it was admitted.
    """

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        self.steps: list[dict] = []

    def _admit(self, fm: FutureMemory, t: int, i: int, s: int, o: int) -> bool:
        trial = fm.copy()
        trial.add(s, o)
        ok = fm.try_add(s, o)
        self.steps.append({
            "t": t, "request": i, "s": s, "o": o,
            "checkpoints": trial.cps.tolist(), "usage": trial.U.tolist(),
            "max usage": int(trial.U.max()), "admitted": ok,
        })
        return ok


class LookaheadScan(_OrderedPolicy):
    """Scan the whole ordered queue, starting every request that still fits eq. (5).

    Unlike :class:`LookaheadPrefix` (001 Algorithms 1 and 2) a request that does not
    fit does not stop the round: it is skipped and the scan goes on.  This variant is
    ours (``mc-benchmark-scan`` in arrival order; 002's planned policies also use it).

    The queue is kept as a sorted id array so that each round is one vectorised
    pass per admitted request (:meth:`FutureMemory.fits_mask`).
    """

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        self._queue = np.zeros(0, dtype=np.int64)

    def _full_key(self, i: int) -> tuple:
        return self.key(i) + (int(self._tb[i]), i)

    def on_arrival(self, t: int, ids: np.ndarray) -> None:
        batch = sorted(ids.tolist(), key=self._full_key)
        if not batch:
            return
        if len(self._queue) == 0 or self._full_key(int(self._queue[-1])) <= self._full_key(batch[0]):
            self._queue = np.concatenate([self._queue, np.asarray(batch, dtype=np.int64)])
        else:
            merged = sorted(self._queue.tolist() + batch, key=self._full_key)
            self._queue = np.asarray(merged, dtype=np.int64)

    def waiting_count(self) -> int:
        return len(self._queue)

    def decide(self, t: int, running: Running) -> Decision:
        ids = self._queue
        if len(ids) == 0:
            return Decision()
        fm = self._future(t, running)
        s = self.ctx.prompt[ids]
        o = self.ctx.output[ids]
        chosen: list[int] = []
        pos = 0
        while pos < len(ids):
            hit = np.flatnonzero(fm.fits_mask(s[pos:], o[pos:]))
            if len(hit) == 0:
                break
            j = pos + int(hit[0])
            fm.add(int(s[j]), int(o[j]))
            chosen.append(j)
            pos = j + 1
        if not chosen:
            return Decision()
        self._queue = np.delete(ids, chosen)
        return Decision(start=ids[chosen].tolist())


    #: above this many (distinct request shapes) x (check-points), :meth:`idle_until` promises nothing
    IDLE_WORK = 20_000

    def idle_until(self, t: int, running: Running, until: int) -> int:
        """The first time any waiting request passes eq. (5) alone with the running set fixed (what makes
        ``decide`` start something), capped at the first check-point; every round when the queue holds
        too many distinct ``(s, o)`` shapes for the exact answer to be cheap."""
        if type(self).decide is not LookaheadScan.decide or len(self._queue) == 0:
            return t + 1
        fm = self._future(t, running)
        if len(fm.cps):
            until = min(until, int(fm.cps[0]) - 1)
        shapes = set(zip(self.ctx.prompt[self._queue].tolist(), self.ctx.output[self._queue].tolist()))
        if len(shapes) * (len(fm.cps) + 1) > self.IDLE_WORK:
            return t + 1
        wake = until + 1
        for s, o in shapes:
            hit = earliest_fit(fm, s, o, wake - 1)
            if hit is not None:
                wake = hit
                if wake == t + 1:
                    break
        return wake


def by_output(ctx: PolicyContext, i: int) -> tuple:
    """MC-SF's order (001 Algorithm 1): output length, then arrival."""
    return (int(ctx.output[i]), int(ctx.arrival[i]))


def _by_arrival(ctx: PolicyContext, i: int) -> tuple:
    """MC-Benchmark's order (001 Algorithm 2): arrival time."""
    return (int(ctx.arrival[i]),)


def _by_total(ctx: PolicyContext, i: int) -> tuple:
    return (int(ctx.prompt[i] + ctx.output[i]),)
