"""The result type of the certified solves and the checks of their arguments (kvlib.optimum.exact, .pipeline)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.errors import ParameterError
from kvlib.core.model import Instance, Schedule

class SolveArgumentError(ParameterError):
    """An argument of :func:`solve` is invalid; the message names the parameter (a kvlib
    :class:`~kvlib.core.errors.ParameterError`, hence also a ``ValueError``)."""


class InvalidTimeLimitError(SolveArgumentError):
    """``time_limit`` is not a positive finite number."""


class InvalidThreadsError(SolveArgumentError):
    """``threads`` is not an integer in ``1..MAX_THREADS``."""


class InfeasibleIncumbentError(SolveArgumentError):
    """The ``incumbent`` passed to :func:`solve` is not a feasible schedule (or its TEL is wrong)."""


#: a solve that stops unproved has "reached its time limit" only when at most this many seconds ...
TIME_LIMIT_SLACK_S = 1.5
#: ... or this share of the limit (whichever is more) was left: the clean-up reserves of the steps
TIME_LIMIT_SLACK_SHARE = 0.1


def time_spent(seconds: float, time_limit: float) -> bool:
    """Whether a solve that ran ``seconds`` spent its ``time_limit`` (up to the steps' clean-up slack)."""
    return float(seconds) >= float(time_limit) - max(TIME_LIMIT_SLACK_S, TIME_LIMIT_SLACK_SHARE * float(time_limit))


def unproved_status(seconds: float, time_limit: float, notes: bool = True) -> str:
    """The status of an unproved solve: "Time limit reached" only when the time was spent (:func:`time_spent`);
    else "Not proved" with the time used (``notes``: the skipped steps and why follow in the notes)."""
    if time_spent(seconds, time_limit):
        return "Time limit reached"
    return (f"Not proved: the steps that could run ended after {seconds:.1f} s of the {float(time_limit):g} s "
            f"limit{' (skipped steps and why below)' if notes else ''}")


#: largest ``threads`` accepted by :func:`solve`.
MAX_THREADS = 256


def _validate_solve_args(time_limit, threads) -> None:
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.integer, np.floating)):
        raise InvalidTimeLimitError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if not math.isfinite(float(time_limit)) or float(time_limit) <= 0:
        raise InvalidTimeLimitError(f"time_limit must be a positive finite number of seconds, got {time_limit!r}")
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise InvalidThreadsError(f"threads must be an integer in 1..{MAX_THREADS}, got {threads!r}")
    if not 1 <= int(threads) <= MAX_THREADS:
        raise InvalidThreadsError(f"threads must be an integer in 1..{MAX_THREADS}, got {threads}")


def _check_incumbent(instance: Instance, incumbent) -> tuple[np.ndarray, int, str]:
    """Validate a caller's ``(starts, tel, source)`` (or a bare start vector) with the checker."""
    if isinstance(incumbent, tuple) and len(incumbent) == 3 and np.ndim(incumbent[0]) == 1:
        starts, tel, source = incumbent
    else:
        starts, tel, source = incumbent, None, "caller"
    try:
        starts = np.asarray(starts, dtype=np.int64)
    except (TypeError, ValueError):
        raise InfeasibleIncumbentError(f"incumbent: start times must be integers, got {starts!r}") from None
    if starts.shape != (instance.n,):
        raise InfeasibleIncumbentError(f"incumbent: expected {instance.n} start times, got shape {starts.shape}")
    rep = check_schedule(instance, Schedule(tuple(int(p) for p in starts)))
    if not rep.valid:
        raise InfeasibleIncumbentError("incumbent is not a feasible schedule: " + "; ".join(rep.violations[:3]))
    if tel is not None and int(tel) != int(rep.tel):
        raise InfeasibleIncumbentError(f"incumbent: stated TEL {tel} differs from the checker's {rep.tel}")
    return starts, int(rep.tel), str(source)


@dataclass
class SolveResult:
    """A certified interval for the optimal TEL.

    ``lower <= OPT <= upper``; ``starts`` is a schedule of TEL ``upper`` checked
    by :func:`kvlib.core.checker.check_schedule`; ``optimal`` iff ``lower == upper``.
    """

    lower: int
    upper: int
    optimal: bool
    starts: tuple[int, ...]
    status: str
    seconds: float
    incumbent: int = 0  #: TEL of the heuristic warm start
    incumbent_source: str = ""
    horizon: int = 0
    num_vars: int = 0
    num_rows: int = 0
    formulation: str = "plain"
    extra: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """Relative gap ``(upper - lower) / upper`` (0 when optimal)."""
        return (self.upper - self.lower) / self.upper if self.upper else 0.0

    def as_dict(self) -> dict:
        return {
            "lower": int(self.lower),
            "upper": int(self.upper),
            "optimal": bool(self.optimal),
            "starts": [int(p) for p in self.starts],
            "seconds": float(self.seconds),
            "status": self.status,
            "gap": self.gap,
            "incumbent": int(self.incumbent),
            "incumbent_source": self.incumbent_source,
            "horizon": int(self.horizon),
            "formulation": self.formulation,
        }


#: Alias kept for callers that name the certified-interval result "Bounds"; it is the same class.
Bounds = SolveResult
