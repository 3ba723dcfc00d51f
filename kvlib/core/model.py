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


from kvlib.core.errors import InstanceError, ScheduleError  # noqa: E402  (re-exported here)

#: Largest value accepted for a time, a token count or ``M``: ``2**53`` (every
#: integer up to it is exact as a float, and sums of up to ~10^6 of them stay
#: inside ``int64``).  Larger values are rejected with a named error instead of
#: overflowing somewhere inside numpy.
MAX_VALUE = 2**53


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


def _as_int(value: object, what: str, error: type = InstanceError) -> int:
    """``value`` as a Python int in ``[-MAX_VALUE, MAX_VALUE]``; ``error`` (naming ``what``) otherwise."""
    if isinstance(value, (bool, np.bool_)):
        raise error(f"{what} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        v = int(value)
    elif isinstance(value, (float, np.floating)) and float(value).is_integer():
        v = int(value)
    else:
        raise error(f"{what} must be an integer, got {value!r}")
    if abs(v) > MAX_VALUE:
        raise error(f"{what} = {value!r} is too large (kvlib accepts values up to 2**53 = {MAX_VALUE})")
    return v


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
        if isinstance(self.requests, (str, bytes)) or not hasattr(self.requests, "__iter__"):
            raise InstanceError(f"requests must be a sequence of (arrival, prompt, output), got "
                                f"{type(self.requests).__name__}")
        object.__setattr__(self, "requests", tuple(self.requests))  # a generator or list is read once
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
        cols = []
        for name, x in (("arrival", arrival), ("prompt", prompt), ("output", output)):
            arr = np.asarray(x)
            if arr.ndim != 1:
                raise InstanceError(f"column {name} must be one-dimensional, got shape {arr.shape}")
            cols.append(arr)
        a, s, o = cols
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
        # exact Python integers: with outputs near 2**53 a single term exceeds 64 bits
        return sum(r.prompt * r.output + r.output * (r.output + 1) // 2 for r in self.requests)


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
        try:
            starts = tuple(self.starts)
        except TypeError:
            raise ScheduleError(f"starts must be a sequence of integers, got {self.starts!r}") from None
        object.__setattr__(
            self, "starts",
            tuple(_as_int(p, f"start time of request {i}", ScheduleError) for i, p in enumerate(starts)),
        )
        runs = []
        for k, run in enumerate(self.cancelled):
            try:
                i, p, r = run
            except (TypeError, ValueError):
                raise ScheduleError(
                    f"cancelled run {k}: expected (request, start, rounds_done), got {run!r}"
                ) from None
            runs.append((_as_int(i, f"cancelled run {k}: request", ScheduleError),
                         _as_int(p, f"cancelled run {k}: start", ScheduleError),
                         _as_int(r, f"cancelled run {k}: rounds_done", ScheduleError)))
        object.__setattr__(self, "cancelled", tuple(runs))

    def start_array(self) -> np.ndarray:
        return np.asarray(self.starts, dtype=np.int64)


def require_pair(instance: object, schedule: object) -> None:
    """Raise :class:`ScheduleError` unless ``instance`` is an :class:`Instance` and ``schedule`` a
    :class:`Schedule` (the functions that read a schedule name the argument instead of failing deep
    inside with an AttributeError)."""
    if not isinstance(instance, Instance):
        raise ScheduleError(f"instance must be a kvlib Instance, got {type(instance).__name__}")
    if not isinstance(schedule, Schedule):
        raise ScheduleError(f"schedule must be a kvlib Schedule (Schedule(starts)), got {type(schedule).__name__}")


def completion_times(instance: Instance, schedule: Schedule) -> np.ndarray:
    """``c_i = p_i + o_i`` for every request."""
    require_pair(instance, schedule)
    p = schedule.start_array()
    if len(p) != instance.n:
        raise ScheduleError(f"schedule has {len(p)} start times for {instance.n} requests")
    return p + instance.output


def latencies(instance: Instance, schedule: Schedule) -> np.ndarray:
    """End-to-end latency ``c_i - a_i`` of every request."""
    return completion_times(instance, schedule) - instance.arrival


def total_latency(instance: Instance, schedule: Schedule) -> int:
    """Total end-to-end latency (TEL), the objective of 001 eq. (1), as an exact Python integer (a sum of
    latencies near 2**53 overflows 64 bits)."""
    require_pair(instance, schedule)
    if len(schedule.starts) != instance.n:
        raise ScheduleError(f"schedule has {len(schedule.starts)} start times for {instance.n} requests")
    return sum(schedule.starts) + sum(r.output - r.arrival for r in instance.requests)


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


#: :func:`memory_profile` refuses to build a dense array longer than this (use ``times=`` or :func:`memory_steps`).
DENSE_PROFILE_LIMIT = 10_000_000


@dataclass(frozen=True)
class MemorySteps:
    """Event-based memory profile: ``O(number of runs)`` storage, whatever the time values.

    The set of runs occupying ``t`` changes only at event times ``times[j]``
    (a run ``(i, p, r)`` enters at ``p + 1`` and leaves after ``p + r``).  On
    ``[times[j], times[j+1] - 1]`` the usage is ``offset[j] + t * live[j]``: it
    grows by one token per live run per round, so its maximum over the segment
    is at the segment's last time.  Before ``times[0]`` and from ``times[-1]``
    on, nothing is held.
    """

    times: np.ndarray  # sorted distinct event times
    offset: np.ndarray  # sum over live runs of (s_i - p)
    live: np.ndarray  # number of live runs

    def at(self, t) -> np.ndarray:
        """Usage at the integer time(s) ``t`` (vectorised)."""
        t = np.asarray(t)
        j = np.searchsorted(self.times, t, side="right") - 1
        jj = np.maximum(j, 0)
        val = self.offset[jj] + t * self.live[jj] if len(self.times) else np.zeros_like(t)
        return np.where(j >= 0, val, 0)

    def segment_peaks(self) -> tuple[np.ndarray, np.ndarray]:
        """``(last_time, usage)`` of every segment where something is held (its maximum)."""
        if len(self.times) < 2:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        last = self.times[1:] - 1
        use = self.offset[:-1] + last * self.live[:-1]
        keep = self.live[:-1] > 0
        return last[keep], use[keep]

    def peak(self) -> int:
        """Largest usage at any time (0 if nothing runs)."""
        _, use = self.segment_peaks()
        return int(use.max()) if len(use) else 0


def memory_steps(instance: Instance, schedule: Schedule) -> MemorySteps:
    """The event-based profile of ``schedule`` (cancelled runs included); ``O(k log k)`` for ``k`` runs."""
    require_pair(instance, schedule)
    p = schedule.start_array()
    if len(p) != instance.n:
        raise ScheduleError(f"schedule has {len(p)} start times for {instance.n} requests")
    s = instance.prompt
    ids = np.arange(instance.n, dtype=np.int64)
    r = instance.output
    if schedule.cancelled:
        c = np.asarray(schedule.cancelled, dtype=np.int64).reshape(-1, 3)
        ids = np.concatenate([ids, c[:, 0]])
        p = np.concatenate([p, c[:, 1]])
        r = np.concatenate([r, c[:, 2]])
    return _steps(s[ids], p, r)


def _steps(s: np.ndarray, p: np.ndarray, r: np.ndarray) -> MemorySteps:
    """Events of runs ``(s, p, r)``: enter at ``p+1`` with ``(s - p, +1)``, leave at ``p+r+1``."""
    keep = r > 0
    s, p, r = s[keep], p[keep], r[keep]
    if len(p) == 0:
        z = np.zeros(0, dtype=np.int64)
        return MemorySteps(z, z, z)
    t0 = int(p.min())  # work relative to t0 so that offset + t * live stays small
    span = int((p + r).max()) - t0 + 1
    dtype = np.int64 if span * len(p) < 2**62 and int(s.max()) < 2**61 // len(p) else object
    q = (p - t0).astype(dtype)
    w = s.astype(dtype) - q
    ev_t = np.concatenate([q + 1, q + r.astype(dtype) + 1])
    ev_w = np.concatenate([w, -w])
    ev_k = np.concatenate([np.ones(len(q), dtype=np.int64), -np.ones(len(q), dtype=np.int64)])
    order = np.argsort(ev_t.astype(np.int64) if dtype is object else ev_t, kind="stable")
    ev_t, ev_w, ev_k = ev_t[order], ev_w[order], ev_k[order]
    last = np.r_[ev_t[1:] != ev_t[:-1], True]
    times = ev_t[last]
    offset = np.cumsum(ev_w)[last]
    live = np.cumsum(ev_k)[last]
    # back to absolute times: usage = offset + (t - t0) * live = (offset - t0 * live) + t * live
    if dtype is object:
        times = np.array([int(x) + t0 for x in times], dtype=object)
        offset = np.array([int(a) - t0 * int(b) for a, b in zip(offset, live)], dtype=object)
        live = live.astype(object)
    else:
        times = times + t0
        offset = offset - t0 * live
    return MemorySteps(times, offset, live)


def memory_profile(instance: Instance, schedule: Schedule, times=None) -> np.ndarray:
    """Tokens held at the integer times ``times`` (default: every ``t = 0..makespan``, index = time).

    ``profile[t] = sum over runs occupying t of (s_i + t - p)``.  Computed from
    the event-based :func:`memory_steps`, so memory grows with the number of
    requests (and ``len(times)``), not with the time values.  The dense default
    is refused (:class:`ScheduleError`) when it would exceed
    :data:`DENSE_PROFILE_LIMIT` entries; pass ``times`` or use :func:`memory_steps`.
    """
    steps = memory_steps(instance, schedule)
    if times is None:
        horizon = max(makespan(instance, schedule), max((p + r for _, p, r in schedule.cancelled), default=0))
        if horizon + 1 > DENSE_PROFILE_LIMIT:
            raise ScheduleError(
                f"a dense memory profile would have {horizon + 1} entries (makespan {horizon}); pass times=... "
                "or use kvlib.core.model.memory_steps, whose size grows with the number of requests"
            )
        times = np.arange(horizon + 1, dtype=np.int64)
    return np.asarray(steps.at(np.asarray(times, dtype=np.int64)), dtype=np.int64)


def peak_memory(instance: Instance, schedule: Schedule) -> int:
    """Largest number of tokens held at any time (event-based, ``O(n log n)``)."""
    return memory_steps(instance, schedule).peak()
