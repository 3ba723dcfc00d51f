"""The policy protocol: what a policy may know and how it answers the engine.

Every policy sees the system only through :class:`PolicyContext` (what is known
about each request: arrival, prompt size and the output length the policy is
allowed to know) and the running set at each decision time; the simulator
(:mod:`kvlib.core.simulate`) hides everything else.  A policy answers each
decision time ``t`` with a :class:`Decision`: requests to evict (cancellation
models only) and requests to start at ``t``.  The concrete policies live in
:mod:`kvlib.policies`; this module imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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
    """The running set at a decision time: request ids and their start times (in start order).

    The engines may hand a view whose arrays are built when first read; it is valid for the call it is
    passed to.  ``len(running)`` is the number of running requests."""

    ids: np.ndarray
    starts: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


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

    def idle_until(self, t: int, running: Running, until: int) -> int:
        """Asked after :meth:`decide` at ``t`` started and evicted nothing while requests wait: the
        first time in ``t + 1 .. until`` at which ``decide`` could do something if no request arrives or
        completes before then, or ``until + 1`` if it would do nothing up to ``until``.  The engine skips
        the rounds in between (:mod:`kvlib.core.simulate`), so the answer must be exact or early, never
        late.  The default, ``t + 1``, promises nothing: the policy is consulted every round."""
        return t + 1
