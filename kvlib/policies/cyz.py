"""Interval-prediction policies of Chen, Ye, Zhou (003).

Model (003 Section 2): every request has the same prompt size ``s``, all arrive
at ``t = 0``, and each true output length ``o_i`` is unknown to the scheduler but
known to lie in ``[l_i, u_i]``.  A running request may be *evicted*
(cancelled): it loses the tokens it generated and returns to the queue; its
true ``o_i`` is unchanged.  The engine (:func:`kvlib.core.simulate.simulate` with
``reveal_output=False``) hides ``o_i``, tells the policy about completions
through ``on_complete`` and records cancelled runs in ``Schedule.cancelled``.
A request started at ``p`` holds ``s + (t' - p)`` tokens at ``t' = p+1..p+o``,
which is 003's eq. (1)/(3) convention; the admission test of every policy below
is 003 eq. (3) (= 001 eq. (5)), evaluated by :class:`FutureMemory` with the
lengths the policy believes.

The paper's algorithms (registry names in brackets); each class docstring lists
the reading choices the paper's text leaves open:

``AMax`` [``a-max``]  003 Algorithm 1 (Section 3.2).
``AMin`` [``a-min``]  003 Algorithm 2 (Section 4).
``HindsightSF`` [``h-sf``]  003 Algorithm 3 (Section 3.1, Appendix EC.2).
``ARandom`` [``a-random``]  003 Algorithm 4 (Appendix EC.1/EC.3): the
    auxiliary *hindsight* policy of the analysis of A_max (knows ``o``).
``AMinMulti`` [``a-min-multi``]  003 Algorithm 5 (Section 4.2): Algorithm 2
    with each request's initial bound at the left end of its bin.
``ALower`` [``a-l``]  003 Algorithm 6 (Section 5.1): "promote-l", FIFO.

Our own variants, **not** algorithms of 003 (kept for comparison):

``AMinRandomEvict`` [``a-min-random-evict``]  A_min with uniformly random
    eviction order (formerly registered as ``a-random``).
``ALowerRandomEvict`` [``a-l-random-evict``]  A_min without refinement
    (estimate always ``l_i``) and random eviction (formerly ``a-l``).
``AMinProgress`` (not registered)  A_min whose eviction order uses
    ``max(L_i, tokens generated)``; contradicts Algorithm 2's prose (the
    bound changes only at cancellation); kept because the ``amin`` chapter
    compares it with A_min.
``AMaxBatch`` (not registered)  a synchronous-batch variant of Algorithm 1
    (admits only when nothing runs), used by the ``amin`` chapter to examine
    003 Theorem 2; neither Algorithm 1 nor the model of Theorem 2's proof.

Randomness: every random choice (tie-breaks, samples, permutations) is drawn
from the simulation's generator ``ctx.rng``, so a run is a deterministic
function of the instance and ``seed``.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from kvlib.core.errors import ParameterError, PolicyError
from kvlib.core.lookahead import FutureMemory, earliest_fit, wake_time
from kvlib.core.model import Instance, InstanceError, Request
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running

__all__ = [
    "HindsightSF",
    "AMax",
    "AMaxBatch",
    "AMin",
    "AMinProgress",
    "AMinMulti",
    "AMinRandomEvict",
    "ALower",
    "ALowerRandomEvict",
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

    def _idle_known(self, t: int, running: Running, until: int, lengths: np.ndarray) -> int:
        """:meth:`~kvlib.core.protocol.Policy.idle_until` of :meth:`_admit_known`'s prefix rule: the first
        time the head of the queue passes eq. (3) with the running set fixed
        (:func:`kvlib.core.lookahead.wake_time`), capped at the first believed completion."""
        if not self._heap:
            return t + 1
        ctx = self.ctx
        ids = running.ids
        fm = FutureMemory(t, ctx.memory, ctx.prompt[ids], running.starts, running.starts + lengths[ids])
        i = self._heap[0][-1]
        return wake_time(fm, int(ctx.prompt[i]), int(lengths[i]), until)

    def _admit_known(self, t: int, running: Running, lengths: np.ndarray) -> Decision:
        """Admit the longest prefix keeping eq. (3) when every output is taken to be ``lengths``."""
        ctx = self.ctx
        ids = running.ids
        fm = FutureMemory(t, ctx.memory, ctx.prompt[ids], running.starts, running.starts + lengths[ids])
        return Decision(start=self._admit_prefix(fm, lambda i: lengths[i]))


class HindsightSF(_HeapPolicy):
    """003 Algorithm 3 (H-SF; Section 3.1 and Appendix EC.2): the hindsight benchmark.

    Knows the true ``o``.  Each round it starts a largest-cardinality set of
    waiting requests keeping eq. (3) at every future time; the prose of Section
    3.1 describes it as shortest-job-first.  Implementation: the longest prefix
    of the queue sorted by ``o`` that keeps eq. (3).  Never evicts.  Simulate
    with ``reveal_output=True``.

    Reading choices (the text leaves them open):

    * *Largest cardinality = shortest prefix.*  With equal prompts (003's model)
      the ``k`` shortest waiting requests use pointwise the least memory, so the
      longest feasible prefix by ``o`` is a largest feasible set.  With unequal
      prompts (003 Section 6) the prefix by ``o`` is the prose's rule and need
      not have the largest cardinality; we keep the prefix.
    * *Ties* among equal ``o`` (not specified): uniformly random, one key drawn
      from ``ctx.rng`` when the request joins the queue.
    """

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

    def idle_until(self, t: int, running: Running, until: int) -> int:
        if type(self).decide is not HindsightSF.decide:
            return t + 1
        return self._idle_known(t, running, until, self.ctx.output)


def check_upper_fits(name: str, ctx: PolicyContext,
                     how: str = "admits a request only with its upper bound in memory") -> None:
    """For a policy that admits a request only with its upper bound ``u_i`` in memory (A_max; A_l once it
    promotes a request): a request with ``s_i + u_i > M`` could never start.  Raises a :class:`ParameterError`
    naming the request and ``upper`` before the run (it used to stall, or raise a bare ``ValueError``)."""
    over = np.flatnonzero(np.asarray(ctx.prompt) + np.asarray(ctx.upper) > ctx.memory)
    if len(over):
        i = int(over[0])
        s, u = int(ctx.prompt[i]), int(ctx.upper[i])
        more = f" (and {len(over) - 1} more request(s))" if len(over) > 1 else ""
        raise ParameterError(
            f"{name}: request {i}: prompt + upper = {s} + {u} = {s + u} exceeds M = {ctx.memory}{more}; {name} "
            f"{how}, so it could never be admitted (lower upper[{i}] or raise M)")


class _IntervalPolicy(_HeapPolicy):
    hindsight = False

    def reset(self, ctx: PolicyContext) -> None:
        if ctx.lower is None or ctx.upper is None:
            raise ValueError(f"{self.name} needs interval predictions (lower and upper)")
        super().reset(ctx)


class AMax(_IntervalPolicy):
    """003 Algorithm 1 (A_max; Section 3.2): every output treated as its upper bound.

    Each round, with every length (running or new) taken to be ``u``, find the
    largest ``m_t`` such that some ``m_t`` waiting requests can start keeping
    eq. (3) at every future time, and start ``m_t`` waiting requests sampled
    uniformly at random.  Never evicts (``o_i <= u_i``, so the pessimistic test
    cannot overflow); completions are observed when they happen and free memory.

    Implementation: a queue keyed by ``(u_i, uniform, id)`` and its longest
    prefix keeping eq. (3) with lengths ``u_i``.  With the common interval
    ``[l, u]`` of Algorithm 1 all candidates look alike, so the largest
    cardinality is the longest prefix, and the prefix of a uniformly ordered
    queue is a uniform ``m_t``-subset: the paper's rule.

    Reading choices:

    * *Per-request intervals* (003 Experiments 2-3): Algorithm 1 is written for
      one common interval.  We order by ``u_i`` ascending (our reading of
      "largest cardinality"; with equal prompts the prefix by ``u_i`` is a
      largest feasible set under the lengths ``u_i``).
    * *Randomness*: the uniform sample is realised by one uniform key per
      request drawn from ``ctx.rng`` when it joins the queue (a request joins
      once: A_max never evicts); given the history the order of the remaining
      requests stays uniform, so each round's sample is uniform as in the text.
      ``permutation`` (a sequence of request ids, first to last) fixes that order
      instead, for 003's permutation coupling of A_max with A_random (Definition
      EC.4) and to enumerate all orders exactly; the default draws it as above.
    """

    name = "a-max"

    def __init__(self, permutation=None) -> None:
        self.permutation = None if permutation is None else [int(i) for i in permutation]

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        check_upper_fits(self.name, ctx)
        self._rank = None
        if self.permutation is not None:
            n = len(ctx.arrival)
            if sorted(self.permutation) != list(range(n)):
                raise ValueError(f"a-max: permutation must list each request id 0..{n - 1} once, "
                                 f"got {self.permutation}")
            self._rank = np.empty(n, dtype=np.int64)
            self._rank[np.asarray(self.permutation, dtype=np.int64)] = np.arange(n)

    def key(self, i: int) -> tuple:
        if self._rank is not None:
            return (int(self.ctx.upper[i]), int(self._rank[i]))
        return (int(self.ctx.upper[i]),)

    def decide(self, t: int, running: Running) -> Decision:
        return self._admit_known(t, running, self.ctx.upper)

    def idle_until(self, t: int, running: Running, until: int) -> int:
        if type(self).decide is not AMax.decide:
            return t + 1
        return self._idle_known(t, running, until, self.ctx.upper)


class AMaxBatch(AMax):
    """A *synchronous-batch* variant of 003 Algorithm 1 (ours; comparison only, not registered): like
    :class:`AMax` but new requests are admitted only when nothing is running, so memory freed by
    an early completion is not reused before the whole batch has finished.  It is neither
    Algorithm 1 nor the model used in the proof of 003 Theorem 2."""

    name = "a-max-batch"

    def decide(self, t: int, running: Running) -> Decision:
        if len(running.ids):
            return Decision(start=[])
        return super().decide(t, running)


class ARandom(_HeapPolicy):
    """003 Algorithm 4 (auxiliary A_random; Appendix EC.1 and EC.3): a *hindsight* device.

    003 builds it only for the analysis of A_max (Theorem EC.1, Definition
    EC.3's permutation coupling) and says it is not meant to be practical.  It
    knows the true ``o``; it draws one uniformly random permutation of the
    ``n`` requests at the start; each round it goes through the waiting
    requests in permutation order and adds them while eq. (3) (true lengths)
    holds at every future time.  It never evicts (the lengths are known).
    Simulate with ``reveal_output=True`` (:func:`run_interval` does so).

    Reading choices:

    * *"Until no further addition is possible"*: ``rule="prefix"`` (default)
      stops at the first request in permutation order that does not fit, so
      requests start in permutation order, the "corresponding order" that the
      coupling argument of Appendix EC.1 (Definitions EC.1, EC.3) needs.
      ``rule="scan"`` skips a request that does not fit and tries the later
      ones (a greedy scan); it may start requests out of permutation order.
    * *Randomness*: the permutation is ``ctx.rng.permutation(n)`` (position of
      each request), drawn once in ``reset``.  ``permutation`` fixes it instead
      (a sequence of request ids, first to last) - for Definition EC.3's
      coupling of the same permutation under two memories, and to enumerate
      all orders exactly in tests.
    * *Intervals* are not used (the policy knows ``o``).
    """

    name = "a-random"
    hindsight = True

    def __init__(self, rule: str = "prefix", permutation=None) -> None:
        if rule not in ("prefix", "scan"):
            raise ValueError(f"a-random: rule must be 'prefix' or 'scan', got {rule!r}")
        self.rule = rule
        self.permutation = None if permutation is None else [int(i) for i in permutation]

    def reset(self, ctx: PolicyContext) -> None:
        if ctx.output is None:
            raise ValueError("a-random (003 Algorithm 4) knows the true o: simulate it with reveal_output=True")
        super().reset(ctx)
        n = len(ctx.arrival)
        if self.permutation is None:
            order = ctx.rng.permutation(n)
        else:
            order = np.asarray(self.permutation, dtype=np.int64)
            if sorted(order.tolist()) != list(range(n)):
                raise ValueError(f"a-random: permutation must list each request id 0..{n - 1} once, "
                                 f"got {self.permutation}")
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[order] = np.arange(n)

    def key(self, i: int) -> tuple:
        return (int(self.rank[i]),)

    def decide(self, t: int, running: Running) -> Decision:
        if self.rule == "prefix":
            return self._admit_known(t, running, self.ctx.output)
        ctx = self.ctx
        ids = running.ids
        fm = FutureMemory(t, ctx.memory, ctx.prompt[ids], running.starts, running.starts + ctx.output[ids])
        started, kept = [], []
        for entry in sorted(self._heap):
            i = entry[-1]
            (started if fm.try_add(int(ctx.prompt[i]), int(ctx.output[i])) else kept).append(entry)
        self._heap = kept  # a sorted list is a valid heap
        return Decision(start=[e[-1] for e in started])

    def idle_until(self, t: int, running: Running, until: int) -> int:
        if type(self).decide is not ARandom.decide or self.rule != "prefix":
            return t + 1
        return self._idle_known(t, running, until, self.ctx.output)


class AMin(_IntervalPolicy):
    """003 Algorithm 2 (A_min; Section 4): adaptive lower bounds, ordered eviction, sorted admission.

    Only the lower bounds are used.  Each request carries a bound ``L_i``
    (003's auxiliary lower bound), initially ``l_i``.  Each round ``t``:

    1. *Eviction.*  If the running set would hold more than ``M`` at ``t + 1``
       (every running request one token more), running requests are removed
       in increasing order of their stored ``L_i`` (uniformly random among
       equals) until the memory at ``t + 1`` fits.  A removed request loses its
       tokens, and ``L_i`` becomes the number of tokens it had generated.
    2. *Admission.*  The waiting requests sorted by ``L_i`` (random among
       equals); the longest prefix such that eq. (3) holds when each new
       request is assumed to have length ``L_i``.

    The bound changes only at cancellation (003 Section 4's prose says so).

    Reading choices (left open by the text):

    * *Length assumed for a running request in eq. (3).*  Eq. (3) is written
      with true lengths; a request that has already run past ``L_i`` would be
      treated as finished.  We use ``max(L_i, a_i + 1)`` (``a_i`` tokens
      generated), the least length consistent with "still running".
    * *When an evicted request rejoins the queue.*  The pseudocode's
      ``R_{t+1} = R_t \\ I_t`` never puts evicted requests back; the prose
      speaks of "restartable requests".  We re-queue them *after* this round's
      admission (they can restart from round ``t + 1``).  Rejoining in the same
      round gives other schedules (tests/test_intervals.py pins our choice).
    * *Bound update.*  The text overwrites ``L_i`` by the tokens generated, which
      could lower it for a restarted request evicted early; we take
      ``max(L_i, tokens generated)`` (equal to the text whenever the run lasted
      at least ``L_i`` tokens).
    * *Tie-breaking and randomness.*  The paper redraws ties at every sort; we
      draw one uniform key from ``ctx.rng`` per queue entry (admission) and a
      fresh uniform vector per eviction.  With equal prompts both give the same
      schedule distribution.
    * *Eviction test.*  "Projected memory at ``t + 1``" is the tokens held at
      ``t + 1`` by the running set, ``sum (s + a_i + 1)``.
    """

    name = "a-min"
    preemptive = True
    every_round = True
    #: refine the estimate by the tokens generated (False: ALowerRandomEvict keeps l_i)
    refine = True
    #: eviction order: "bound" (increasing lower bound) or "random"
    eviction = "bound"
    #: eviction order by max(L_i, tokens generated) instead of the stored L_i (AMinProgress)
    evict_by_progress = False

    def reset(self, ctx: PolicyContext) -> None:
        super().reset(ctx)
        self.bound = np.asarray(ctx.lower, dtype=np.int64).copy()
        self.evictions = 0

    def key(self, i: int) -> tuple:
        return (int(self.bound[i]),)

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
        est = np.maximum(cur[keep], done[keep] + 1)
        fm = FutureMemory(t, ctx.memory, ctx.prompt[k_ids], k_starts, k_starts + est)
        started = self._admit_prefix(fm, lambda i: int(self.bound[i]))
        for i in evict:  # evicted requests rejoin the queue after this round's admissions
            self._push(i)
        return Decision(start=started, evict=evict)

    def idle_until(self, t: int, running: Running, until: int) -> int:
        """Exact skip for rounds without eviction or admission.  With the running set fixed, a request
        whose assumed length ``max(L_i, tokens + 1)`` has not yet been reached keeps its completion
        ``p_i + L_i`` (a fixed check-point of eq. (3)); one that has is assumed to end at the next round,
        so every running request counts at ``t' + 1``, where the usage is the eviction test's
        ``sum (s_i + t' - p_i + 1)``.  Hence: an eviction first happens when that sum exceeds ``M``; the
        head of the queue fits at ``t'`` iff it fits the fixed check-points
        (:func:`kvlib.core.lookahead.earliest_fit`) and ``sum + s_h + 1 <= M`` at ``t' + 1``, a condition
        that only gets harder as ``t'`` grows.  Capped at the first fixed check-point, where a request's
        assumed length starts to move."""
        if type(self).decide is not AMin.decide or not len(running.ids):
            return t + 1
        ctx = self.ctx
        ids, starts = running.ids, running.starts
        s = ctx.prompt[ids]
        K = len(ids)
        W = int((s - starts).sum()) + K  # usage at t' + 1 is W + K t'
        M = ctx.memory
        until = min(until, (M - W) // K)  # the last t' without an eviction
        ends = starts + self.bound[ids]
        fm = FutureMemory(t, M, s, starts, ends)  # the runs whose assumed length is still L_i
        if len(fm.cps):
            until = min(until, int(fm.cps[0]) - 1)
        if until <= t or not self._heap:
            return max(t + 1, until + 1)
        h = self._heap[0][-1]
        sh, lh = int(ctx.prompt[h]), int(self.bound[h])
        last = until
        if bool((ends <= t + 1).any()):  # some request is past its assumed length: the check at t' + 1
            last = min(until, (M - sh - 1 - W) // K)
        hit = earliest_fit(fm, sh, lh, last) if last > t else None
        return until + 1 if hit is None else hit


class AMinProgress(AMin):
    """Ours, not 003's: A_min with the eviction order by ``max(L_i, tokens generated)``.

    This contradicts 003 Section 4's statement that the bound changes only at
    cancellation; kept (not registered) because the ``amin`` chapter compares it
    with :class:`AMin`."""

    name = "a-min-progress"
    evict_by_progress = True


class AMinMulti(AMin):
    """003 Algorithm 5 (revised A_min under multiple prediction intervals; Section 4.2).

    Disjoint sorted bins ``[l_1,u_1], ..., [l_m,u_m]`` (``u_j <= l_{j+1}``); each
    request's initial bound is the left end of its bin.  Apart from that
    initialisation the pseudocode is Algorithm 2 line by line, and the ``u_j``
    are never used - so this class *is* :class:`AMin`, run with ``lower`` = the
    left end of each request's bin (every reading choice of :class:`AMin`
    applies).  It exists under its own name so that runs can cite Algorithm 5.

    Reading choices: the pseudocode's initialisation "``tilde o_i <- l_j``" is
    read as ``l_i`` (the request's own bin end, as its input line defines).
    Algorithm 5 is not defined for overlapping intervals; there this class
    still runs A_min with initial bounds ``l_i``.
    """

    name = "a-min-multi"


class AMinRandomEvict(AMin):
    """Ours, not 003's: A_min (refined lower bounds, admission by increasing bound) but evictions in
    uniformly random order (``ctx.rng.permutation``).  This was registered as ``a-random`` before;
    003's Algorithm 4 is :class:`ARandom`."""

    name = "a-min-random-evict"
    eviction = "random"


class ALowerRandomEvict(AMin):
    """Ours, not 003's: overflow-triggered eviction in uniformly random order, and the estimate is
    never refined (always ``l_i``), so an evicted long request competes again as a short one.  This
    was registered as ``a-l`` before; 003's Algorithm 6 is :class:`ALower`."""

    name = "a-l-random-evict"
    refine = False
    eviction = "random"


class ALower(Policy):
    """003 Algorithm 6 (A_l, "promote-l"; Section 5.1 and Appendix EC.5), for two-point lengths.

    Setting: ``o_i in {l, u}`` (003's family ``D_2``).  A FIFO queue; every
    estimate starts at ``l``.  Each round ``t``:

    1. every running request that still has estimate ``l``, has generated ``l``
       tokens and has not finished (so it is long) is removed: its tokens are
       lost, its estimate becomes ``u`` and it goes to the back of the queue;
    2. from the front of the queue, requests are started while eq. (3) holds,
       each request (running or new) taken at its estimate; the first one
       that does not fit stops the round (a prefix, no skipping).

    A request restarted with estimate ``u`` runs to completion.  Because a
    fresh request never runs past ``l`` tokens and a promoted one has estimate
    ``u >= o``, memory never overflows: there are no overflow evictions.
    Deterministic (no random choice).

    Reading choices:

    * *When a request is removed.*  The pseudocode says "more than ``l``
      tokens"; the prose says "as soon as [it] generates ``l`` tokens".  With
      the admission test using ``l`` for fresh requests, waiting for ``l + 1``
      tokens can overflow ``M``, so we remove at exactly ``l`` tokens (the
      engine has already retired the requests that finished at ``l``).
    * *Who is removed.*  Only requests whose estimate is still ``l``: read
      literally, the pseudocode would also remove promoted requests after
      ``l`` tokens, forever.
    * *Initial queue order.*  Not specified; the index (arrival) order.
    * *Several removals in one round* go to the back in order of (start time,
      id), which keeps the FIFO order among them.
    * *Same-round restart.*  Removal precedes admission in the pseudocode, so
      a removed request can restart in the same round if everything in front
      of it fits.
    * *Per-request intervals.*  We use each request's ``[l_i, u_i]`` (003 uses
      one common ``{l, u}``).  If ``o_i`` lies strictly inside the interval the
      policy is still feasible (the promoted estimate ``u_i`` is an upper
      bound), but that is outside 003's setting.
    """

    name = "a-l"
    preemptive = True
    every_round = True
    hindsight = False
    #: remove a fresh request once it has generated ``l_i + removal_extra`` tokens; 0 is our reading,
    #: 1 the pseudocode's literal "more than l tokens" (which can overflow M; kept for the test that shows it)
    removal_extra = 0

    def reset(self, ctx: PolicyContext) -> None:
        if ctx.lower is None or ctx.upper is None:
            raise ValueError(f"{self.name} needs interval predictions (lower and upper)")
        check_upper_fits(self.name, ctx, "admits a request it has promoted only with its upper bound in memory")
        super().reset(ctx)
        self.queue: deque[int] = deque()
        self.est = np.asarray(ctx.lower, dtype=np.int64).copy()
        self.promoted = np.zeros(len(ctx.arrival), dtype=bool)
        self.evictions = 0

    def on_arrival(self, t: int, ids: np.ndarray) -> None:
        self.queue.extend(sorted(int(i) for i in ids))

    def waiting_count(self) -> int:
        return len(self.queue)

    def decide(self, t: int, running: Running) -> Decision:
        ctx = self.ctx
        ids, starts = running.ids, running.starts
        done = t - starts
        lower = ctx.lower[ids]
        remove = ~self.promoted[ids] & (done >= lower + self.removal_extra)
        removed = sorted(zip(starts[remove].tolist(), ids[remove].tolist()))
        evict = [int(i) for _, i in removed]
        for i in evict:
            self.est[i] = int(ctx.upper[i])
            self.promoted[i] = True
            self.queue.append(i)
        self.evictions += len(evict)
        keep = ~remove
        k_ids, k_starts = ids[keep], starts[keep]
        fm = FutureMemory(t, ctx.memory, ctx.prompt[k_ids], k_starts, k_starts + self.est[k_ids])
        started: list[int] = []
        q = self.queue
        while q and fm.try_add(int(ctx.prompt[q[0]]), int(self.est[q[0]])):
            started.append(q.popleft())
        if q and not started and not len(k_ids):
            i = q[0]
            raise PolicyError(f"a-l: request {i} (estimate {int(self.est[i])}) needs s + estimate = "
                              f"{int(ctx.prompt[i] + self.est[i])} > M = {ctx.memory}; it could never be admitted "
                              "(unreachable after reset's check of upper: a kvlib bug)")
        return Decision(start=started, evict=evict)

    def idle_until(self, t: int, running: Running, until: int) -> int:
        """After a round that removed and started nothing: the first time the queue's head passes eq. (3)
        with the running set fixed (:func:`kvlib.core.lookahead.wake_time`), capped before the first
        check-point ``p_i + est_i``.  A fresh request is removed at ``p_i + l_i`` tokens at the earliest, which
        is its check-point, so no removal is skipped."""
        if type(self).decide is not ALower.decide or not len(running.ids):
            return t + 1
        ctx = self.ctx
        ids, starts = running.ids, running.starts
        fm = FutureMemory(t, ctx.memory, ctx.prompt[ids], starts, starts + self.est[ids])
        if not self.queue:
            return max(t + 1, min(until + 1, int(fm.cps[0]) if len(fm.cps) else until + 1))
        h = self.queue[0]
        return wake_time(fm, int(ctx.prompt[h]), int(self.est[h]), until)


INTERVAL_POLICIES = {
    "h-sf": HindsightSF,
    "a-max": AMax,
    "a-min": AMin,
    "a-min-multi": AMinMulti,
    "a-l": ALower,
    "a-random": ARandom,
    "a-min-random-evict": AMinRandomEvict,
    "a-l-random-evict": ALowerRandomEvict,
}


def make_interval_policy(name: str) -> Policy:
    if name not in INTERVAL_POLICIES:
        raise KeyError(f"unknown interval policy {name!r}; known: {', '.join(sorted(INTERVAL_POLICIES))}")
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
a_min_random_evict = _factory(AMinRandomEvict)
a_l_random_evict = _factory(ALowerRandomEvict)


def a_random(rule: str = "prefix") -> Policy:
    """003 Algorithm 4 (A_random); ``rule`` is ``"prefix"`` (default) or ``"scan"`` (see :class:`ARandom`)."""
    return ARandom(rule=rule)


def run_interval(instance: Instance, policy, lower, upper, *, seed: int = 0, **kw):
    """Simulate an interval policy (name or object) with the true ``o`` hidden (revealed to the
    hindsight policies H-SF and A_random only)."""
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
