"""kvlib's named exceptions (re-exported from :mod:`kvlib.core.errors`)."""

from kvlib.core.errors import (  # noqa: F401
    InstanceError,
    KvlibError,
    ParameterError,
    PolicyError,
    ScheduleError,
    SimulationStalled,
    UnknownPolicyError,
)

__all__ = [
    "KvlibError", "InstanceError", "ScheduleError", "ParameterError", "UnknownPolicyError",
    "PolicyError", "SimulationStalled",
]
