"""The discrete-time model of Jaillet et al. (001, Section 2).

Conventions (the same as the integer program 001 eq. (1)-(4)):

* Time is slotted, ``t = 0, 1, 2, ...``.  Request ``i`` arrives at ``a_i`` with
  prompt size ``s_i`` and output length ``o_i``.
* A request started at ``p_i >= a_i`` is processed for ``o_i`` consecutive
  rounds.  Its ``j``-th round ends at time ``p_i + j`` (``j = 1..o_i``) and the
  request then holds ``s_i + j`` tokens of KV cache.  We say the request
  *occupies* time ``t`` when ``p_i < t <= p_i + o_i``, holding ``s_i + t - p_i``.
* The request completes at ``c_i = p_i + o_i``; its latency is ``c_i - a_i``.
* Feasibility: at every integer time ``t`` the tokens held sum to at most ``M``.

This is the form of the look-ahead inequality (001 eq. (5)): the memory of
request ``i`` at a future time ``t'`` is ``(s_i + t' - p_i) 1{o_i >= t' - p_i}``
for ``t' > p_i``.  A request started at ``t`` therefore first counts at ``t+1``
with ``s_i + 1`` tokens, which is how the alpha-protection baselines of 001
Section 5.2 count a new prompt.

Cancellation (Chen-Ye-Zhou, 003 Section 2): a running request may be evicted;
it loses the tokens it generated and returns to the queue.  A cancelled run that
started at ``p`` and completed ``r`` rounds occupies times ``p+1 .. p+r`` exactly
as an ordinary run would.  The final (uninterrupted) run defines completion.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np


class InstanceError(ValueError):
    """An instance (or a file describing one) is invalid; the message names the culprit."""


class ScheduleError(ValueError):
    """A schedule is malformed (wrong length, unknown request, ...)."""


@dataclass(frozen=True)
class Request:
    """One inference request: arrival ``a``, prompt size ``s``, output length ``o``."""

    arrival: int
    prompt: int
    output: int

    @property
    def peak(self) -> int:
        """Tokens held in the last round, ``s + o``."""
        return self.prompt + self.output


def _as_int(value: object, what: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise InstanceError(f"{what} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    raise InstanceError(f"{what} must be an integer, got {value!r}")


@dataclass(frozen=True)
class Instance:
    """A set of requests and the KV-cache memory limit ``M`` (001 Section 2).

    Arrays ``arrival``, ``prompt``, ``output`` are read-only ``int64`` views of the
    requests, indexed by request id ``0..n-1`` (the order given).
    """

    requests: tuple[Request, ...]
    memory: int
    arrival: np.ndarray = field(init=False, repr=False, compare=False)
    prompt: np.ndarray = field(init=False, repr=False, compare=False)
    output: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        memory = _as_int(self.memory, "memory limit M")
        if memory <= 0:
            raise InstanceError(f"memory limit M must be positive, got {memory}")
        if len(self.requests) == 0:
            raise InstanceError("instance has no requests")
        reqs = []
        for i, r in enumerate(self.requests):
            if not isinstance(r, Request):
                try:
                    a, s, o = r  # type: ignore[misc]
                except (TypeError, ValueError):
                    raise InstanceError(f"request {i}: expected (arrival, prompt, output), got {r!r}") from None
                r = Request(a, s, o)
            a = _as_int(r.arrival, f"request {i}: arrival")
            s = _as_int(r.prompt, f"request {i}: prompt size")
            o = _as_int(r.output, f"request {i}: output length")
            if a < 0:
                raise InstanceError(f"request {i}: arrival must be >= 0, got {a}")
            if s <= 0:
                raise InstanceError(f"request {i}: prompt size must be positive, got {s}")
            if o <= 0:
                raise InstanceError(f"request {i}: output length must be positive, got {o}")
            if s + o > memory:
                raise InstanceError(
                    f"request {i}: prompt + output = {s} + {o} = {s + o} exceeds the memory limit M = {memory}; "
                    "it can never run"
                )
            reqs.append(Request(a, s, o))
        object.__setattr__(self, "requests", tuple(reqs))
        object.__setattr__(self, "memory", memory)
        for name, col in (("arrival", 0), ("prompt", 1), ("output", 2)):
            arr = np.array([(r.arrival, r.prompt, r.output)[col] for r in reqs], dtype=np.int64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @classmethod
    def from_arrays(
        cls,
        arrival: Sequence[int] | np.ndarray,
        prompt: Sequence[int] | np.ndarray,
        output: Sequence[int] | np.ndarray,
        memory: int,
    ) -> "Instance":
        """Build an instance from three equal-length columns."""
        a, s, o = (np.asarray(x) for x in (arrival, prompt, output))
        if not (len(a) == len(s) == len(o)):
            raise InstanceError(
                f"columns have different lengths: arrival {len(a)}, prompt {len(s)}, output {len(o)}"
            )
        return cls(tuple(Request(x, y, z) for x, y, z in zip(a.tolist(), s.tolist(), o.tolist())), memory)

    @classmethod
    def at_zero(cls, prompt: Sequence[int], output: Sequence[int], memory: int) -> "Instance":
        """All requests arrive at ``t = 0`` (the setting of 001 Section 4 and 002)."""
        return cls.from_arrays([0] * len(prompt), prompt, output, memory)

    @property
    def n(self) -> int:
        return len(self.requests)

    def __len__(self) -> int:
        return len(self.requests)

    def total_work(self) -> int:
        """Sum over requests of the token-rounds ``sum_j (s_i + j)`` (the memory volume)."""
        s, o = self.prompt, self.output
        return int(np.sum(s * o + o * (o + 1) // 2))


@dataclass(frozen=True)
class Schedule:
    """Start times of the final (uninterrupted) run of every request.

    ``starts[i]`` is the start ``p_i`` of the run that completes request ``i`` at
    ``p_i + o_i``.  ``cancelled`` lists earlier, evicted runs as triples
    ``(request, start, rounds_done)``; each such run occupies times
    ``start+1 .. start+rounds_done`` (003's cancellation model).  It is empty for
    the non-preemptive model of 001 and 002.
    """

    starts: tuple[int, ...]
    cancelled: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "starts", tuple(int(p) for p in self.starts))
        object.__setattr__(
            self, "cancelled", tuple((int(i), int(p), int(r)) for i, p, r in self.cancelled)
        )

    def start_array(self) -> np.ndarray:
        return np.asarray(self.starts, dtype=np.int64)


def completion_times(instance: Instance, schedule: Schedule) -> np.ndarray:
    """``c_i = p_i + o_i`` for every request."""
    p = schedule.start_array()
    if len(p) != instance.n:
        raise ScheduleError(f"schedule has {len(p)} start times for {instance.n} requests")
    return p + instance.output


def latencies(instance: Instance, schedule: Schedule) -> np.ndarray:
    """End-to-end latency ``c_i - a_i`` of every request."""
    return completion_times(instance, schedule) - instance.arrival


def total_latency(instance: Instance, schedule: Schedule) -> int:
    """Total end-to-end latency (TEL), the objective of 001 eq. (1)."""
    return int(latencies(instance, schedule).sum())


def average_latency(instance: Instance, schedule: Schedule) -> float:
    return total_latency(instance, schedule) / instance.n


def makespan(instance: Instance, schedule: Schedule) -> int:
    """Time at which the last request completes."""
    return int(completion_times(instance, schedule).max())


def runs(instance: Instance, schedule: Schedule) -> Iterable[tuple[int, int, int]]:
    """All runs ``(request, start, rounds)``: cancelled ones, then the final runs."""
    yield from schedule.cancelled
    for i, p in enumerate(schedule.starts):
        yield i, p, int(instance.output[i])


def memory_profile(instance: Instance, schedule: Schedule) -> np.ndarray:
    """Tokens held at every integer time ``t = 0..makespan`` (index = time).

    ``profile[t] = sum over runs occupying t of (s_i + t - p)``.
    """
    horizon = max(makespan(instance, schedule), max((p + r for _, p, r in schedule.cancelled), default=0))
    prof = np.zeros(horizon + 1, dtype=np.int64)
    s = instance.prompt
    for i, p, r in runs(instance, schedule):
        if r > 0:
            prof[p + 1 : p + r + 1] += s[i] + np.arange(1, r + 1, dtype=np.int64)
    return prof
