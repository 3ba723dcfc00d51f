"""kvlib's named exceptions, in one place.

Every error kvlib raises on bad input or a failed run is a :class:`KvlibError`,
whose message names the culprit (file, line, column, request, parameter).  Each
class also derives from the built-in exception callers caught before these
classes existed (``ValueError``, ``RuntimeError``, ``KeyError``), so old
``except`` clauses keep working.

========================= =====================================================
:class:`InstanceError`    an instance, or a file describing one, is invalid
:class:`ScheduleError`    a schedule is malformed (length, non-integer start)
:class:`ParameterError`   a parameter / option is out of range or not applicable
:class:`UnknownPolicyError` no policy is registered under that name
:class:`PolicyError`      a policy made an illegal decision (or broke M)
:class:`SimulationStalled` a simulation reached its round limit
========================= =====================================================
"""

from __future__ import annotations


class KvlibError(Exception):
    """Base class of every kvlib error; the message names the culprit."""


class InstanceError(KvlibError, ValueError):
    """An instance (or a file describing one) is invalid; the message names the culprit."""


class ScheduleError(KvlibError, ValueError):
    """A schedule is malformed (wrong length, non-integer start, unknown request, ...)."""


class ParameterError(KvlibError, ValueError):
    """A parameter or option is invalid (out of range, NaN, wrong length, not accepted by the policy)."""


class UnknownPolicyError(ParameterError, KeyError):
    """No policy is registered under the requested name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class PolicyError(KvlibError, RuntimeError):
    """The policy made an illegal decision (names policy, time and request)."""


class SimulationStalled(KvlibError, RuntimeError):
    """The simulation exceeded ``max_rounds`` (e.g. an endless clearing loop)."""


__all__ = [
    "KvlibError", "InstanceError", "ScheduleError", "ParameterError", "UnknownPolicyError",
    "PolicyError", "SimulationStalled",
]
