"""Online scheduling policies of 001 (Jaillet et al.) and 002 (Wang-Ye-Zhou).

Every policy sees the system only through :class:`PolicyContext` (what is
known about each request: arrival, prompt size and the output length the policy
is allowed to know) and the running set at each decision time; the simulator
(:mod:`kvlib.simulate`) hides everything else.  A policy answers each decision
time ``t`` with a :class:`Decision`: requests to evict (cancellation models
only) and requests to start at ``t``.

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
``mc-sf2``                002 Theorem EC.1: the longest prefix by ``s + o``
                          (shortest total size first) under eq. (5).
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
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .lookahead import FutureMemory


@dataclass
class PolicyContext:
    """What a policy may know.  Arrays are indexed by request id.

    ``output`` is the output length the policy is told (the true one in the
    settings of 001 and 002; a prediction otherwise).  ``lower``/``upper`` are
    interval predictions (003) and may be ``None``.
    """

    memory: int
    arrival: np.ndarray
    prompt: np.ndarray
    output: np.ndarray | None
    rng: np.random.Generator
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None


@dataclass
class Running:
    """The running set at a decision time: request ids and their start times."""

    ids: np.ndarray
    starts: np.ndarray


@dataclass
class Decision:
    start: list[int] = field(default_factory=list)
    evict: list[int] = field(default_factory=list)


class Policy:
    """Base class.  Subclasses override :meth:`decide` (and usually the hooks)."""

    name: str = "policy"
    #: True if the policy may evict running requests (clearing / cancellation).
    preemptive: bool = False
    #: True if the policy must be consulted every round even when nobody waits
    #: (e.g. to clear on overflow).
    every_round: bool = False

    def reset(self, ctx: PolicyContext) -> None:
        self.ctx = ctx

    def on_arrival(self, t: int, ids: np.ndarray) -> None:  # pragma: no cover - default no-op
        pass

    def on_complete(self, t: int, ids: np.ndarray) -> None:  # pragma: no cover - default no-op
        pass

    def decide(self, t: int, running: Running) -> Decision:
        raise NotImplementedError

    def waiting_count(self) -> int:
        raise NotImplementedError


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
    """Start the longest prefix of the ordered queue that keeps eq. (5) (001 Algorithm 1)."""

    def _admit(self, fm: FutureMemory, t: int, i: int, s: int, o: int) -> bool:
        """One eq. (5) test; adds the request to ``fm`` if it passes."""
        return fm.try_add(s, o)

    def decide(self, t: int, running: Running) -> Decision:
        fm = self._future(t, running)
        s, o = self.ctx.prompt, self.ctx.output
        started: list[int] = []
        heap = self._heap
        while heap:
            i = heap[0][-1]
            if not self._admit(fm, t, i, int(s[i]), int(o[i])):
                break
            heapq.heappop(heap)
            started.append(i)
        return Decision(start=started)


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
    """Scan the whole ordered queue, starting every request that still fits eq. (5) (001 Algorithm 2).

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


def by_output(ctx: PolicyContext, i: int) -> tuple:
    """MC-SF's order (001 Algorithm 1): output length, then arrival."""
    return (int(ctx.output[i]), int(ctx.arrival[i]))


def _by_arrival(ctx: PolicyContext, i: int) -> tuple:
    return (int(ctx.arrival[i]),)


def _by_total(ctx: PolicyContext, i: int) -> tuple:
    return (int(ctx.prompt[i] + ctx.output[i]),)


def mc_sf(tie_break: str = "index") -> Policy:
    """MC-SF, 001 Algorithm 1 (ties: arrival then id, or random with ``tie_break='random'``)."""
    return LookaheadPrefix(by_output, "mc-sf", tie_break)


def mc_benchmark(tie_break: str = "index") -> Policy:
    """MC-Benchmark, 001 Algorithm 2: arrival order, each request started if eq. (5) holds."""
    return LookaheadScan(_by_arrival, "mc-benchmark", tie_break)


def fcfs(tie_break: str = "index") -> Policy:
    """FCFS with the eq. (5) test: longest prefix in arrival order."""
    return LookaheadPrefix(_by_arrival, "fcfs", tie_break)


def mc_sf2(tie_break: str = "index") -> Policy:
    """MC-SF2, 002 Theorem EC.1: longest prefix by ``s + o`` under eq. (5)."""
    return LookaheadPrefix(lambda c, i: (int(c.prompt[i] + c.output[i]), int(c.arrival[i])), "mc-sf2", tie_break)


def alpha_greedy(alpha: float = 0.25, tie_break: str = "index") -> Policy:
    """Alpha-protection greedy, 001 Section 5.2."""
    return AlphaProtection(alpha, 1.0, tie_break)


def alpha_beta_clearing(alpha: float = 0.25, beta: float = 0.5, tie_break: str = "index") -> Policy:
    """Alpha-protection beta-clearing, 001 Section 5.2."""
    return AlphaProtection(alpha, beta, tie_break)


#: name -> (factory, one-line description).  Factories take keyword options.
def _interval_policy(class_name: str) -> Callable[[], Policy]:
    """Factory for a 003 policy of :mod:`kvlib.intervals`, imported on first use (that module imports this one)."""

    def factory() -> Policy:
        from . import intervals

        return getattr(intervals, class_name)()

    factory.__name__ = class_name
    return factory


POLICIES: dict[str, tuple[Callable[..., Policy], str]] = {
    "mc-sf": (mc_sf, "MC-SF, 001 Algorithm 1: shortest output first, longest prefix keeping eq. (5)"),
    "mc-benchmark": (mc_benchmark, "MC-Benchmark, 001 Algorithm 2: arrival order, start every request keeping eq. (5)"),
    "fcfs": (fcfs, "FCFS with the eq. (5) check: longest prefix in arrival order"),
    "mc-sf2": (mc_sf2, "MC-SF2, 002 Theorem EC.1: shortest s+o first, longest prefix keeping eq. (5)"),
    "alpha-greedy": (alpha_greedy, "001 Sec. 5.2: admit below (1-alpha)M, clear all on overflow (--alpha)"),
    "alpha-beta-clearing": (
        alpha_beta_clearing,
        "001 Sec. 5.2: admit below (1-alpha)M, clear each w.p. beta on overflow (--alpha, --beta)",
    ),
    # 003 interval policies (kvlib.intervals; need lower,upper columns; imported lazily)
    "h-sf": (_interval_policy("HindsightSF"),
             "003 Alg. 3, H-SF: hindsight shortest-first (knows the true o)"),
    "a-max": (_interval_policy("AMax"),
              "003 Alg. 1, A_max: every o treated as its upper bound (needs lower,upper)"),
    "a-min": (_interval_policy("AMin"),
              "003 Alg. 2, A_min: adaptive lower bounds, ordered eviction (needs lower,upper)"),
    "a-min-multi": (_interval_policy("AMinMulti"),
                    "003 Alg. 5, multi-interval A_min (our reading; needs lower,upper)"),
    "a-l": (_interval_policy("ALower"),
            "003 Alg. 6, A_l: fixed lower bounds, random eviction (our reading; needs lower,upper)"),
    "a-random": (_interval_policy("ARandom"),
                 "003 Alg. 4, A_random: A_min with random eviction (our reading; needs lower,upper)"),
}

# 002 Sorted-F family (kvlib.sortedf, kvlib.lp), imported after POLICIES exists (those modules import this one).
from .lp import lp_swap as _lp_swap, sorted_lp as _sorted_lp  # noqa: E402
from .sortedf import sorted_f as _sorted_f  # noqa: E402

POLICIES.update({
    "sorted-f": (_sorted_f, "Sorted-F, 002 Alg. 1: Phase-1 batches minimising F=sum o/|X|^2, then eq. (5) prefix "
                 "(--selector dp|scaled-dp|swap|quantile, --phase1-constraint peak|lookahead, --epsilon, --B, --samples)"),
    "sorted-lp": (_sorted_lp, "Sorted-LP, 002 Alg. 6: order by LP-relaxation completion time, then eq. (5) prefix (--time-step)"),
    "lp-swap": (_lp_swap, "LP-Swap, 002 Alg. 7: swap-search Phase 1 seeded by the LP order (--time-step, --phase1-constraint)"),
})


def make_policy(name: str, **options) -> Policy:
    """Instantiate a registered policy by name, passing only the options it accepts."""
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name!r}; known: {', '.join(sorted(POLICIES))}")
    factory = POLICIES[name][0]
    import inspect

    params = inspect.signature(factory).parameters
    accepted = {k: v for k, v in options.items() if k in params and v is not None}
    return factory(**accepted)
