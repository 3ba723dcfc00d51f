"""The scheduling model and everything that does not depend on a particular policy.

Requests, instances and schedules (:mod:`~kvlib.core.model`), the independent
checker (:mod:`~kvlib.core.checker`), 001 eq. (5) look-ahead
(:mod:`~kvlib.core.lookahead`), the policy protocol (:mod:`~kvlib.core.protocol`),
the discrete-time engine (:mod:`~kvlib.core.simulate`), random instance families
(:mod:`~kvlib.core.instances`), request files (:mod:`~kvlib.core.traces`) and
HiGHS plumbing (:mod:`~kvlib.core.highs`), kvlib's named exceptions
(:mod:`~kvlib.core.errors`) and the plain reference engine used as a test oracle
(:mod:`~kvlib.core.reference`).  Nothing here imports another
subpackage of kvlib.
"""

from kvlib.core.checker import CheckReport, ScheduleInvalid, check_schedule
from kvlib.core.errors import (
    InstanceError,
    KvlibError,
    ParameterError,
    PolicyError,
    ScheduleError,
    SimulationStalled,
    UnknownPolicyError,
)
from kvlib.core.lookahead import FutureMemory
from kvlib.core.model import (
    Instance,
    MemorySteps,
    Request,
    Schedule,
    average_latency,
    completion_times,
    latencies,
    makespan,
    memory_profile,
    memory_steps,
    peak_memory,
    total_latency,
)
from kvlib.core.protocol import Decision, Policy, PolicyContext, Running
from kvlib.core.simulate import SimResult, simulate

__all__ = [
    "CheckReport", "ScheduleInvalid", "check_schedule", "FutureMemory", "Instance", "InstanceError", "Request",
    "Schedule", "ScheduleError", "average_latency", "completion_times", "latencies", "makespan", "memory_profile",
    "total_latency", "Decision", "Policy", "PolicyContext", "Running", "PolicyError", "SimResult",
    "SimulationStalled", "simulate", "KvlibError", "ParameterError", "UnknownPolicyError", "MemorySteps",
    "memory_steps", "peak_memory",
]
