"""Interval-prediction policies of Chen, Ye, Zhou (003).

Model (003 Section 2): every request has the same prompt size ``s`` (the
policies below do not need this, but the paper's analysis does), all arrive at
``t = 0``, and each true output length ``o_i`` is unknown to the scheduler but
known to lie in ``[l_i, u_i]``.  A running request may be *evicted*
(cancelled): it loses the tokens it generated and returns to the queue; its
true ``o_i`` is unchanged.  The engine (:func:`kvlib.core.simulate.simulate` with
``reveal_output=False``) hides ``o_i``, tells the policy about completions
through ``on_complete`` and records cancelled runs in ``Schedule.cancelled``.

Policies (registry names in brackets).  Where 003's pseudo-code is not quoted
in our issue the details are **our reading** and are marked so:

``HindsightSF`` [``h-sf``]  003 Algorithm 3: knows the true ``o``; longest
    prefix of the queue sorted by ``o`` that keeps the look-ahead test (001
    eq. (5)).  Must be simulated with ``reveal_output=True``.
``AMax`` [``a-max``]  003 Algorithm 1: treats every ``o_i`` as ``u_i``;
    longest prefix by ``u_i`` (random order among equals) keeping the
    look-ahead test with lengths ``u_i``.  Never evicts (it cannot overflow,
    since ``o_i <= u_i``); it learns completions from the engine.
``AMaxBatch`` (not registered)  a synchronous-batch reading of Algorithm 1 used only to
    examine 003 Theorem 2: admits only when nothing is running.
``AMin`` [``a-min``]  003 Algorithm 2: lower bounds ``L_i`` start at ``l_i``.
    Each round: if the running set would exceed ``M`` at ``t + 1``, evict in
    increasing order of the lower bound ``L_i`` (random among equals) until it
    fits; an evicted request's bound is raised to the tokens it had generated
    (the bound is refined *at eviction*, as the issue quotes the algorithm).
    Then admit waiting requests greedily in increasing ``L_i`` (random among
    equals) while the look-ahead test holds with lengths ``L_i``.
    *Our reading* of the admission test: a running request is assumed to need
    ``max(L_i, tokens generated + 1)`` tokens, which keeps the next round
    feasible.  This literal reading reproduces 003 Theorem 6's two-point ratio
    ``(3 - alpha)/2`` in heavy-load simulations (chapter ``amin``).
``AMinProgress`` (not registered)  the previous session's reading: the
    eviction order uses ``max(L_i, tokens generated)`` for running requests, so
    requests that have run past their bound are protected and fresh ones are
    evicted first.  Kept for comparison: it does *not* reproduce Theorem 6.
``AMinMulti`` [``a-min-multi``]  003 Algorithm 5 (*our reading*): A_min with
    per-request intervals; the upper bound caps the estimate
    (``min(u_i, ...)``) and breaks ties in the admission order.
``ALower`` [``a-l``]  003 Algorithm 6 (*our reading*): like A_min but the
    estimate is never refined (always ``l_i``) and evictions are in random
    order.
``ARandom`` [``a-random``]  003 Algorithm 4 (*our reading*): like A_min
    (refined lower bounds, admission by increasing bound) but evicts in
    uniformly random order.

Tie-breaking uses the generator of the simulation (``ctx.rng``), so a run is
a deterministic function of the instance and ``seed``.
"""

from __future__ import annotations

import heapq

import numpy as np

from kvlib.core.lookahead import FutureMemory
from kvlib.core.model import Instance, InstanceError, Request
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running

__all__ = [
    "HindsightSF",
    "AMax",
    "AMaxBatch",
    "AMin",
    "AMinProgress",
    "AMinMulti",
    "ALower",
    "ARandom",
    "INTERVAL_POLICIES",
    "make_interval_policy",
    "interval_instance",
    "check_intervals",
    "run_interval",
]


# --------------------------------------------------------------------------- instances


class _ZeroPromptInstance(Instance):
    """An :class:`Instance` that also admits prompt size 0 (003 Theorem 2 uses ``s = 0``).

    Only created explicitly through :func:`interval_instance(..., allow_zero_prompt=True)`;
    the core :class:`Instance` keeps rejecting ``s = 0``.
    """

    def __post_init__(self) -> None:
        reqs = tuple(self.requests)
        if any((r.prompt if isinstance(r, Request) else r[1]) < 0 for r in reqs):
            raise InstanceError("prompt sizes must be >= 0")
        # validate with prompt + 1 (same checks), then restore the true prompts
        shifted = tuple(
            Request(*(r if not isinstance(r, Request) else (r.arrival, r.prompt, r.output))) for r in reqs
        )
        probe = Instance(tuple(Request(r.arrival, r.prompt + 1, r.output) for r in shifted), int(self.memory) + 1)
        del probe
        object.__setattr__(self, "requests", shifted)
        object.__setattr__(self, "memory", int(self.memory))
        for name, col in (("arrival", 0), ("prompt", 1), ("output", 2)):
            arr = np.array([(r.arrival, r.prompt, r.output)[col] for r in shifted], dtype=np.int64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)


def interval_instance(output, memory: int, prompt: int = 1, *, allow_zero_prompt: bool = False) -> Instance:
    """All requests at ``t = 0`` with the same prompt ``s`` (003 Section 2).

    ``prompt = 0`` (003 Theorem 2) is accepted only with ``allow_zero_prompt=True``,
    which returns an explicit :class:`_ZeroPromptInstance`; requests then hold
    ``t - p`` tokens (the engine and the independent checker need no change).
    """
    output = np.asarray(output, dtype=np.int64)
    n = len(output)
    if prompt == 0:
        if not allow_zero_prompt:
            raise InstanceError("prompt size 0 needs allow_zero_prompt=True (003 Theorem 2's s = 0)")
        return _ZeroPromptInstance(tuple(Request(0, 0, int(o)) for o in output), int(memory))
    return Instance.at_zero([prompt] * n, output.tolist(), memory)


def check_intervals(output, lower, upper, lines=None, source: str = "") -> None:
    """Raise :class:`InstanceError` unless ``1 <= lower <= output <= upper`` (naming the line)."""
    output, lower, upper = (np.asarray(x, dtype=np.int64) for x in (output, lower, upper))
    where = (lambda i: f"{source}, line {int(lines[i])}") if lines is not None else (lambda i: f"request {i}")
    for i in range(len(output)):
        lo, hi, o = int(lower[i]), int(upper[i]), int(output[i])
        if lo < 1:
            raise InstanceError(f"{where(i)}: lower = {lo} must be >= 1")
        if lo > hi:
            raise InstanceError(f"{where(i)}: lower = {lo} exceeds upper = {hi}")
        if not lo <= o <= hi:
            raise InstanceError(f"{where(i)}: output = {o} is outside its interval [lower, upper] = [{lo}, {hi}]")


# --------------------------------------------------------------------------- policies


class _HeapPolicy(Policy):
    """Waiting queue as a heap of ``(key..., random, id)``; fresh random tie-breaks per push."""

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        self._heap: list[tuple] = []

    def key(self, i: int) -> tuple:
        raise NotImplementedError

    def _push(self, i: int) -> None:
        heapq.heappush(self._heap, self.key(i) + (float(self.ctx.rng.random()), int(i)))

    def on_arrival(self, t: int, ids: np.ndarray) -> None:
        for i in ids.tolist():
            self._push(i)

    def waiting_count(self) -> int:
        return len(self._heap)

    def _admit_prefix(self, fm: FutureMemory, length) -> list[int]:
        s = self.ctx.prompt
        started: list[int] = []
        heap = self._heap
        while heap:
            i = heap[0][-1]
            if not fm.try_add(int(s[i]), int(length(i))):
                break
            heapq.heappop(heap)
            started.append(i)
        return started

    def _admit_known(self, t: int, running: Running, lengths: np.ndarray) -> Decision:
        """Admit the longest prefix keeping eq. (5) when every output is taken to be ``lengths``."""
        ctx = self.ctx
        ids = running.ids
        fm = FutureMemory(t, ctx.memory, ctx.prompt[ids], running.starts, running.starts + lengths[ids])
        return Decision(start=self._admit_prefix(fm, lambda i: lengths[i]))


class HindsightSF(_HeapPolicy):
    """003 Algorithm 3 (H-SF): shortest true output first, longest prefix keeping eq. (5)."""

    name = "h-sf"
    hindsight = True

    def reset(self, ctx: PolicyContext) -> None:
        if ctx.output is None:
            raise ValueError("h-sf is a hindsight policy: simulate it with reveal_output=True")
        super().reset(ctx)

    def key(self, i: int) -> tuple:
        return (int(self.ctx.output[i]),)

    def decide(self, t: int, running: Running) -> Decision:
        return self._admit_known(t, running, self.ctx.output)


class _IntervalPolicy(_HeapPolicy):
    hindsight = False

    def reset(self, ctx: PolicyContext) -> None:
        if ctx.lower is None or ctx.upper is None:
            raise ValueError(f"{self.name} needs interval predictions (lower and upper)")
        super().reset(ctx)


class AMax(_IntervalPolicy):
    """003 Algorithm 1 (A_max): every output treated as its upper bound ``u_i``."""

    name = "a-max"

    def key(self, i: int) -> tuple:
        return (int(self.ctx.upper[i]),)

    def decide(self, t: int, running: Running) -> Decision:
        return self._admit_known(t, running, self.ctx.upper)


class AMaxBatch(AMax):
    """A *synchronous-batch* reading of 003 Algorithm 1 (comparison only, not registered): like
    :class:`AMax` but new requests are admitted only when nothing is running, so memory freed by
    an early completion is not reused before the whole batch has finished."""

    name = "a-max-batch"

    def decide(self, t: int, running: Running) -> Decision:
        if len(running.ids):
            return Decision(start=[])
        return super().decide(t, running)


class AMin(_IntervalPolicy):
    """003 Algorithm 2 (A_min): adaptive lower bounds, ordered eviction, greedy admission."""

    name = "a-min"
    preemptive = True
    every_round = True
    #: refine the estimate by the tokens generated (False: A_l keeps l_i)
    refine = True
    #: eviction order: "bound" (increasing lower bound) or "random"
    eviction = "bound"
    #: cap estimates by u_i (multi-interval variant)
    cap_upper = False
    #: eviction order by max(L_i, tokens generated) instead of the stored L_i (AMinProgress)
    evict_by_progress = False

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        self.bound = np.asarray(ctx.lower, dtype=np.int64).copy()
        self.evictions = 0

    def key(self, i: int) -> tuple:
        if self.cap_upper:
            return (int(self.bound[i]), int(self.ctx.upper[i]))
        return (int(self.bound[i]),)

    def _est(self, est: np.ndarray, ids: np.ndarray) -> np.ndarray:
        if self.cap_upper:
            return np.minimum(est, self.ctx.upper[ids])
        return est

    def decide(self, t: int, running: Running) -> Decision:
        ctx = self.ctx
        rng = ctx.rng
        ids, starts = running.ids, running.starts
        done = t - starts  # tokens generated so far by each running request
        cur = np.maximum(self.bound[ids], done) if self.refine else self.bound[ids]
        hold = ctx.prompt[ids] + done + 1  # tokens at t + 1 if kept
        keep = np.ones(len(ids), dtype=bool)
        evict: list[int] = []
        excess = int(hold.sum()) - ctx.memory
        if excess > 0:
            if self.eviction == "bound":
                key = cur if self.evict_by_progress else self.bound[ids]
                order = np.lexsort((rng.random(len(ids)), key))
            else:
                order = rng.permutation(len(ids))
            for j in order:
                if excess <= 0:
                    break
                keep[j] = False
                excess -= int(hold[j])
                i = int(ids[j])
                if self.refine:
                    self.bound[i] = max(int(self.bound[i]), int(done[j]))
                evict.append(i)
            self.evictions += len(evict)
        k_ids, k_starts = ids[keep], starts[keep]
        est = self._est(np.maximum(cur[keep], done[keep] + 1), k_ids)
        fm = FutureMemory(t, ctx.memory, ctx.prompt[k_ids], k_starts, k_starts + est)
        if self.cap_upper:
            length = lambda i: min(int(self.bound[i]), int(ctx.upper[i]))  # noqa: E731
        else:
            length = lambda i: int(self.bound[i])  # noqa: E731
        started = self._admit_prefix(fm, length)
        for i in evict:  # evicted requests rejoin the queue after this round's admissions
            self._push(i)
        return Decision(start=started, evict=evict)


class AMinProgress(AMin):
    """A_min with the eviction order by ``max(L_i, tokens generated)`` (previous reading; comparison only)."""

    name = "a-min-progress"
    evict_by_progress = True


class AMinMulti(AMin):
    """003 Algorithm 5 (multi-interval A_min), our reading: estimates capped by ``u_i``."""

    name = "a-min-multi"
    cap_upper = True


class ALower(AMin):
    """003 Algorithm 6 (A_l), our reading: fixed estimate ``l_i``, random eviction."""

    name = "a-l"
    refine = False
    eviction = "random"


class ARandom(AMin):
    """003 Algorithm 4 (A_random), our reading: A_min with uniformly random eviction."""

    name = "a-random"
    eviction = "random"


INTERVAL_POLICIES = {
    "h-sf": HindsightSF,
    "a-max": AMax,
    "a-min": AMin,
    "a-min-multi": AMinMulti,
    "a-l": ALower,
    "a-random": ARandom,
}


def make_interval_policy(name: str) -> Policy:
    return INTERVAL_POLICIES[name]()


def _factory(cls):
    def make() -> Policy:
        return cls()

    make.__doc__ = cls.__doc__
    return make


h_sf = _factory(HindsightSF)
a_max = _factory(AMax)
a_min = _factory(AMin)
a_min_multi = _factory(AMinMulti)
a_l = _factory(ALower)
a_random = _factory(ARandom)


def run_interval(instance: Instance, policy, lower, upper, *, seed: int = 0, **kw):
    """Simulate an interval policy (name or object) with the true ``o`` hidden (revealed to H-SF only)."""
    from kvlib.core.simulate import simulate

    if isinstance(policy, str):
        policy = make_interval_policy(policy)
    n = instance.n
    lower = np.broadcast_to(np.asarray(lower, dtype=np.int64), (n,)).copy()
    upper = np.broadcast_to(np.asarray(upper, dtype=np.int64), (n,)).copy()
    return simulate(
        instance,
        policy,
        seed=seed,
        reveal_output=bool(getattr(policy, "hindsight", False)),
        lower=lower,
        upper=upper,
        **kw,
    )
