"""Independent schedule checker.

Written separately from every policy and from :mod:`kvlib.core.model`'s helpers: it
recomputes memory with its own sweep over start/stop events in exact Python
integers (``usage(t) = A(t) + t K(t)`` where ``A`` sums ``s_i - p`` and ``K``
counts the runs occupying ``t``; both change only at events, and between events
usage grows, so its maximum is at a segment's last time), so a bug in a
policy's look-ahead code cannot hide itself here.  Work and memory grow with the
number of runs, not with the time values.

What is verified (001 Section 2; 003 Section 2 for cancellations):

1. one start time per request, each an integer ``>= a_i``;
2. non-preemption: every request has exactly one completing run of ``o_i``
   consecutive rounds; cancelled runs (only if ``allow_cancellation``) name a
   valid request, start at or after its arrival, stop before completing
   (``0 <= rounds < o_i``), and do not overlap each other or the final run;
3. memory: at every integer time the tokens held are ``<= M``;
4. TEL, makespan and peak memory recomputed from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvlib.core.model import Instance, Schedule, require_pair


@dataclass
class CheckReport:
    """Outcome of :func:`check_schedule`. ``valid`` is True iff ``violations`` is empty."""

    valid: bool
    violations: list[str] = field(default_factory=list)
    tel: int | None = None
    makespan: int | None = None
    peak_memory: int | None = None

    def raise_if_invalid(self) -> "CheckReport":
        if not self.valid:
            shown = "; ".join(self.violations[:5])
            more = f" (+{len(self.violations) - 5} more)" if len(self.violations) > 5 else ""
            raise ScheduleInvalid(f"schedule rejected: {shown}{more}")
        return self


class ScheduleInvalid(AssertionError):
    """Raised by :meth:`CheckReport.raise_if_invalid`."""


def check_schedule(
    instance: Instance,
    schedule: Schedule,
    *,
    allow_cancellation: bool = False,
    max_violations: int = 20,
) -> CheckReport:
    """Verify ``schedule`` against ``instance``; never raises on a bad schedule (arguments that are not
    an Instance and a Schedule raise :class:`~kvlib.core.errors.ScheduleError` naming the argument)."""
    require_pair(instance, schedule)
    v: list[str] = []
    n = instance.n
    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    M = int(instance.memory)

    starts = list(schedule.starts)
    if len(starts) != n:
        return CheckReport(False, [f"schedule has {len(starts)} start times for {n} requests"])

    all_runs: list[tuple[int, int, int]] = []
    for i, p in enumerate(starts):
        if p < a[i]:
            v.append(f"request {i} starts at {p} before its arrival {a[i]}")
        all_runs.append((i, p, o[i]))

    if schedule.cancelled and not allow_cancellation:
        v.append(f"schedule has {len(schedule.cancelled)} cancelled runs but the model is non-preemptive")
    per_request: dict[int, list[tuple[int, int]]] = {}
    for k, (i, p, r) in enumerate(schedule.cancelled):
        if not 0 <= i < n:
            v.append(f"cancelled run {k} names unknown request {i}")
            continue
        if p < a[i]:
            v.append(f"cancelled run {k} of request {i} starts at {p} before its arrival {a[i]}")
        if not 0 <= r < o[i]:
            v.append(f"cancelled run {k} of request {i} did {r} rounds; must be in [0, {o[i]})")
            continue
        per_request.setdefault(i, []).append((p, p + r))
        all_runs.append((i, p, r))
    for i, spans in per_request.items():
        spans = sorted(spans + [(starts[i], starts[i] + o[i])])
        for (p1, e1), (p2, _) in zip(spans, spans[1:]):
            if p2 < e1:
                v.append(f"request {i} has overlapping runs: one occupies ({p1}, {e1}], the next starts at {p2}")
        if spans[-1][0] != starts[i]:
            v.append(f"request {i}: a cancelled run starts after its completing run at {starts[i]}")

    if min(p for _, p, _ in all_runs) < 0:
        v.append("negative start time")
        return CheckReport(False, v)
    # Event sweep in exact Python integers (independent of kvlib.core.model.memory_steps): the runs
    # occupying t change only at t = p + 1 (enter) and t = p + r + 1 (leave); between events
    # usage(t) = A + t K grows with t, so its largest value on a segment is at the segment's last time.
    events: dict[int, list[int]] = {}
    for i, p, r in all_runs:
        if r <= 0:
            continue
        lo, hi = p + 1, p + r  # occupies lo..hi inclusive
        e = events.setdefault(lo, [0, 0])
        e[0] += s[i] - p
        e[1] += 1
        e = events.setdefault(hi + 1, [0, 0])
        e[0] -= s[i] - p
        e[1] -= 1
    A = K = 0
    peak = 0
    over_times = 0
    times = sorted(events)
    for t0, t1 in zip(times, times[1:]):
        A += events[t0][0]
        K += events[t0][1]
        if K == 0:
            continue
        top = A + (t1 - 1) * K  # usage at the segment's last time t1 - 1
        peak = max(peak, top)
        if top > M:
            first = max(t0, (M - A) // K + 1)  # first t in the segment with A + t K > M
            room = max(0, max_violations - over_times)
            for tt in range(first, min(t1, first + room)):
                use = A + tt * K
                v.append(f"memory {use} exceeds M = {M} at time {tt} (by {use - M})")
            over_times += t1 - first
    if over_times > max_violations:
        v.append(f"... memory exceeded at {over_times - max_violations} further times")

    completion = [starts[i] + o[i] for i in range(n)]
    tel = sum(completion[i] - a[i] for i in range(n))
    return CheckReport(
        valid=not v,
        violations=v,
        tel=int(tel),
        makespan=int(max(completion)),
        peak_memory=int(peak),
    )
