"""Independent parts of an instance: where a gap in the arrivals leaves nothing waiting (ours).

If some schedule finishes every request that arrives before time ``A`` by ``A``, the requests that
arrive before ``A`` and those that arrive at or after ``A`` can be solved apart:

* **lower bounds add up.**  Restricting any feasible schedule to a subset of the requests keeps it
  feasible (memory only drops), so ``OPT(I) >= OPT(I_1) + OPT(I_2)`` and the sum of certified lower
  bounds of the parts is a certified lower bound of the whole;
* **schedules combine** when the first part's schedule ends by ``A``: the parts then never hold memory
  at the same time.  The union is checked by :func:`kvlib.core.checker.check_schedule` anyway, and a
  union that fails is replaced by a schedule of the whole instance.

Each part is shifted to start at time 0, so what a solver builds over time (time-indexed models, the
list scheduler's profile) grows with the part's own span, not with the arrival times: a request
arriving at ``10**9`` after the others are done costs what it would cost at time 0.

The cut points come from MC-SF's schedule (001 Algorithm 1; :mod:`kvlib.policies.jaillet`): a cut goes
before every arrival time by which MC-SF has completed every earlier request.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.model import Instance

__all__ = ["independent_parts", "part_instance"]


def independent_parts(instance: Instance, starts=None) -> list[np.ndarray]:
    """Request ids of the independent parts, in arrival order (one part when there is no cut).

    ``starts``: a feasible schedule to read the cuts from (default: MC-SF's).  A cut goes before an
    arrival time ``A`` when every request arriving before ``A`` completes by ``A`` in that schedule.
    """
    if starts is None:
        from kvlib.core.simulate import simulate
        from kvlib.policies import make_policy

        starts = simulate(instance, make_policy("mc-sf"), seed=0).schedule.start_array()
    a = instance.arrival
    comp = np.asarray(starts, dtype=np.int64) + instance.output
    order = np.argsort(a, kind="stable")
    a_sorted = a[order]
    done_by = np.maximum.accumulate(comp[order])  # latest completion among the first k requests
    # a cut between positions k-1 and k: a new arrival time, and everything before it done by then
    cut = np.flatnonzero((a_sorted[1:] > a_sorted[:-1]) & (done_by[:-1] <= a_sorted[1:])) + 1
    return [np.sort(part) for part in np.split(order, cut)]


def part_instance(instance: Instance, ids: np.ndarray) -> tuple[Instance, int]:
    """The requests ``ids`` as an instance of their own, shifted so that the first arrives at 0;
    returns ``(instance, offset)`` (add ``offset`` to its start times to get the original times)."""
    ids = np.asarray(ids, dtype=np.int64)
    offset = int(instance.arrival[ids].min())
    sub = Instance.from_arrays(instance.arrival[ids] - offset, instance.prompt[ids], instance.output[ids],
                               instance.memory)
    return sub, offset
