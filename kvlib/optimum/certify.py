"""One certified optimum for the chapters: an interval ``lower <= OPT <= upper`` with a checked schedule.

:func:`certify` is the single entry point the chapters use for "what is OPT of this small
instance, and is it proved?".  It chooses between the two independent exact methods of
:mod:`kvlib.optimum`:

* ``"bruteforce"``: the branch and bound of :func:`kvlib.optimum.bruteforce.brute_force_opt`
  (no solver; exact or an error after ``node_limit`` nodes), for tiny instances;
* ``"ip"``: :func:`kvlib.optimum.exact.solve` (HiGHS on the time-indexed IP of 001 eq. (1)-(4)),
  which never raises on a time limit and returns a certified interval;
* ``"auto"``: brute force when ``n <= brute_force_max_n``, else the IP.

A caller may pass a feasible schedule it already has (``incumbent``, e.g. MC-SF's) and a
certified lower bound it already has (``lower_bound``, e.g. the order-statistic bound of
:func:`kvlib.theory.ratio.order_statistic_bound`); when the two meet, OPT is proved without
any search (method ``"bound"``).  The incumbent is validated by
:func:`kvlib.core.checker.check_schedule` before it is used, and so is the schedule returned:
``Certified.starts`` always has TEL ``Certified.upper``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.optimum.exact import solve

METHODS = ("auto", "bruteforce", "ip")


@dataclass(frozen=True)
class Certified:
    """A certified interval for the optimal TEL of one instance.

    ``lower <= OPT <= upper``; ``proved`` iff ``lower == upper``; ``starts`` is a schedule of TEL
    ``upper`` accepted by :func:`kvlib.core.checker.check_schedule`; ``method`` names what closed
    (or bounded) it: ``"bound"``, ``"bruteforce"`` or ``"ip"``.
    """

    lower: int
    upper: int
    proved: bool
    starts: tuple[int, ...]
    method: str
    seconds: float = 0.0

    @property
    def opt(self) -> int | None:
        """The optimum when proved, else ``None``."""
        return self.upper if self.proved else None


def _checked_tel(instance: Instance, starts: Sequence[int], what: str) -> int:
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in starts)))
    if not rep.valid:
        raise ValueError(f"certify: the {what} is not a feasible schedule of the instance: {rep.violations[:3]}")
    return int(rep.tel)


def certify(
    instance: Instance,
    *,
    method: str = "auto",
    time_limit: float = 60.0,
    threads: int = 1,
    incumbent: Sequence[int] | None = None,
    lower_bound: float | None = None,
    brute_force_max_n: int = 5,
    node_limit: int = 5_000_000,
) -> Certified:
    """Certified interval for OPT (total end-to-end latency) of ``instance``.

    ``method``: ``"auto"`` (brute force if ``instance.n <= brute_force_max_n``, else the IP),
    ``"bruteforce"`` or ``"ip"``.  ``time_limit`` and ``threads`` are passed to
    :func:`kvlib.optimum.exact.solve` (IP only); ``node_limit`` to
    :func:`kvlib.optimum.bruteforce.brute_force_opt` (which raises ``RuntimeError`` beyond it).
    ``incumbent``: start times of a feasible schedule (checked; its TEL is an upper bound and
    the brute force's cut-off).  ``lower_bound``: a lower bound on OPT that the caller has
    proved (it is trusted; a fractional bound is rounded up, TEL being an integer).  If the
    incumbent's TEL equals ``lower_bound`` the result is proved with ``method == "bound"``
    and no search runs.
    """
    if method not in METHODS:
        raise ValueError(f"certify: method must be one of {METHODS}, got {method!r}")
    if time_limit <= 0:
        raise ValueError(f"certify: time_limit must be positive, got {time_limit!r}")
    inc_tel = None if incumbent is None else _checked_tel(instance, incumbent, "incumbent")
    lb = None if lower_bound is None else int(-(-lower_bound // 1))
    if inc_tel is not None and lb is not None:
        if lb > inc_tel:
            raise ValueError(f"certify: lower_bound {lower_bound} exceeds the incumbent's TEL {inc_tel}")
        if lb == inc_tel:
            return Certified(inc_tel, inc_tel, True, tuple(int(p) for p in incumbent), "bound")
    if method == "auto":
        method = "bruteforce" if instance.n <= brute_force_max_n else "ip"
    if method == "bruteforce":
        tic = time.perf_counter()
        tel, starts, _ = brute_force_opt(instance, upper=inc_tel, node_limit=node_limit)
        lower, upper, best, seconds = tel, tel, tuple(starts), time.perf_counter() - tic
    else:
        res = solve(instance, time_limit=time_limit, threads=threads)
        lower, upper, best, seconds = int(res.lower), int(res.upper), tuple(res.starts), float(res.seconds)
        if inc_tel is not None and inc_tel < upper:
            upper, best = inc_tel, tuple(int(p) for p in incumbent)
        if lb is not None:
            lower = max(lower, lb)
    if _checked_tel(instance, best, "schedule found") != upper:  # pragma: no cover - defensive
        raise AssertionError("certify: the returned schedule's TEL differs from the upper bound")
    return Certified(lower, upper, lower == upper, best, method, seconds)
