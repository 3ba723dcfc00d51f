"""Exact optimum of tiny instances by enumeration of start times (independent of :mod:`kvlib.optimum.exact`).

Used by the chapter "MC-SF's constant ratio" as the second, solver-free proof
of optimality when testing 004 Theorem 4.2 (MC-SF exactly optimal when all
requests arrive at ``t = 0``).

:func:`brute_force_opt` is a depth-first branch and bound over schedules:

* Requests are placed one at a time in order of their start times, so start
  times are non-decreasing along a branch; every schedule is reached (sort its
  requests by start time, ties by index).  Interchangeable requests (equal
  ``(a, s, o)``) are placed in index order only, which loses no TEL value.
* Start times range over ``[max(a_i, previous start), H - o_i]`` with ``H`` the
  left-shift horizon ``max a + sum o`` of :mod:`kvlib.optimum.bounds` (some optimal
  schedule has every completion ``<= H``: before the last completion no time
  in ``(max a, C_max]`` is idle, else shifting all later runs one step left is
  feasible and lowers TEL).
* Memory is checked on the partial profile (adding runs only increases
  usage, so an infeasible partial schedule has no feasible completion).
* Bound: a request not yet placed starts no earlier than the current start, so
  ``TEL >= placed TEL + sum_{unplaced} (max(p, a_i) + o_i - a_i)``.

It makes no use of any policy except for an optional initial upper bound (a
checked schedule, never trusted for optimality).  :func:`enumerate_opt` is the
naive version (every start vector in a box, for ``n <= 4``) for the tests.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule


#: :func:`brute_force_opt` refuses an instance with more placement orders than this unless ``force=True``: the
#: orders of its requests up to interchangeable ones, ``n! / prod(c_k!)`` over the groups of equal ``(a, s, o)``
#: (the search places interchangeable requests in index order only).  ``10!``: ten distinct requests take about
#: a minute, twelve (``12!``) run for hours; twelve requests of two kinds (``12! / (6! 6!) = 924``) are instant.
BRUTE_FORCE_MAX_ORDERS = math.factorial(10)


def placement_orders(instance: Instance) -> int:
    """``n! / prod(c_k!)``: the orders of the requests up to interchangeable ones (equal ``(a, s, o)``)."""
    counts: dict[tuple[int, int, int], int] = {}
    for key in zip(instance.arrival.tolist(), instance.prompt.tolist(), instance.output.tolist()):
        counts[key] = counts.get(key, 0) + 1
    orders = math.factorial(instance.n)
    for c in counts.values():
        orders //= math.factorial(c)
    return orders


def _horizon(instance: Instance) -> int:
    return int(instance.arrival.max() + instance.output.sum())


def brute_force_opt(instance: Instance, upper: int | None = None, node_limit: int = 5_000_000,
                    sf_ordered: bool = False, *, force: bool = False):
    """Optimal TEL and one optimal start vector, by branch and bound.

    ``upper``: the TEL of a known feasible schedule (strict improvement is
    searched; if none exists and no schedule was found, the search is repeated
    without the cut-off).  Raises ``RuntimeError`` after ``node_limit`` nodes.
    Returns ``(tel, starts, nodes)``; ``starts`` is checked by the checker.

    ``sf_ordered=True`` restricts the search to *shortest-first ordered*
    schedules (``o_i < o_j`` implies ``p_i <= p_j``), the form an exchange
    argument toward MC-SF would produce.

    More than :data:`BRUTE_FORCE_MAX_ORDERS` placement orders (:func:`placement_orders`; e.g. more than ten
    distinct requests) raise :class:`~kvlib.core.errors.ParameterError` before any search (the run would take
    hours; ``node_limit`` counts nodes, not seconds) unless ``force=True``.
    """
    from kvlib.core.errors import ParameterError

    if not isinstance(instance, Instance):
        raise ParameterError(f"instance must be a kvlib Instance, got {type(instance).__name__}")
    n = instance.n
    if not force and placement_orders(instance) > BRUTE_FORCE_MAX_ORDERS:
        raise ParameterError(f"brute_force_opt: n = {n} requests have {placement_orders(instance):,} placement "
                             f"orders (up to interchangeable requests), more than BRUTE_FORCE_MAX_ORDERS = "
                             f"{BRUTE_FORCE_MAX_ORDERS:,} (ten distinct requests); the search would run for hours: "
                             "use kvlib.optimum.exact.solve, or pass force=True to search anyway")
    a = [int(x) for x in instance.arrival]
    s = [int(x) for x in instance.prompt]
    o = [int(x) for x in instance.output]
    M = int(instance.memory)
    H = _horizon(instance)
    usage = np.zeros(H + 2, dtype=np.int64)
    # twin[i] = previous index with the same (a, s, o), or -1
    twin = [-1] * n
    for i in range(n):
        for j in range(i - 1, -1, -1):
            if (a[j], s[j], o[j]) == (a[i], s[i], o[i]):
                twin[i] = j
                break
    ramp = {oi: np.arange(1, oi + 1, dtype=np.int64) for oi in set(o)}
    best = [upper + 1 if upper is not None else 10**18, None]
    starts = [-1] * n
    nodes = [0]

    def dfs(placed: int, last: int, tel: int) -> None:
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise RuntimeError(f"brute force: more than {node_limit} nodes")
        if placed == n:
            if sf_ordered and any(o[i] < o[j] and starts[i] > starts[j] for i in range(n) for j in range(n)):
                return
            if tel < best[0]:
                best[0] = tel
                best[1] = list(starts)
            return
        for i in range(n):
            if starts[i] >= 0 or (twin[i] >= 0 and starts[twin[i]] < 0):
                continue
            lo = max(a[i], last)
            for p in range(lo, H - o[i] + 1):
                # bound: i completes at p + o_i, the others no earlier than max(p, a_j) + o_j
                rest = 0
                for j in range(n):
                    if starts[j] < 0 and j != i:
                        rest += max(p, a[j]) + o[j] - a[j]
                if tel + p + o[i] - a[i] + rest >= best[0]:
                    break  # later p only worse
                seg = usage[p + 1 : p + o[i] + 1]
                if np.any(seg + s[i] + ramp[o[i]] > M):
                    continue
                seg += s[i] + ramp[o[i]]
                starts[i] = p
                dfs(placed + 1, p, tel + p + o[i] - a[i])
                starts[i] = -1
                seg -= s[i] + ramp[o[i]]

    dfs(0, 0, 0)
    if best[1] is None:
        if upper is not None:
            return brute_force_opt(instance, None, node_limit, sf_ordered, force=force)
        raise RuntimeError("brute force found no feasible schedule")  # pragma: no cover
    sched = Schedule(tuple(best[1]))
    rep = check_schedule(instance, sched)
    if not rep.valid or rep.tel != best[0]:  # pragma: no cover - defensive
        raise AssertionError("brute force produced a schedule the checker rejects")
    return int(best[0]), tuple(best[1]), nodes[0]


def enumerate_opt(instance: Instance) -> tuple[int, tuple[int, ...]]:
    """Naive optimum: every start vector in ``[a_i, H - o_i]`` checked by the checker (``n <= 4``)."""
    if instance.n > 4:
        raise ValueError("enumerate_opt is for n <= 4")
    H = _horizon(instance)
    ranges = [range(int(instance.arrival[i]), H - int(instance.output[i]) + 1) for i in range(instance.n)]
    best = (10**18, ())
    for p in itertools.product(*ranges):
        rep = check_schedule(instance, Schedule(p))
        if rep.valid and rep.tel < best[0]:
            best = (rep.tel, tuple(p))
    return best
