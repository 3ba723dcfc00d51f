"""kvlib: scheduling LLM inference under KV-cache memory limits.

Modules, one concept each: :mod:`kvlib.model` (requests, instances, schedules),
:mod:`kvlib.checker` (independent validation), :mod:`kvlib.lookahead`
(001 eq. (5)), :mod:`kvlib.policies` (online policies), :mod:`kvlib.simulate`
(the discrete-time engine), :mod:`kvlib.instances` (random families),
:mod:`kvlib.traces` (files), :mod:`kvlib.hardware` (KV-cache sizing).
"""

from .checker import CheckReport, ScheduleInvalid, check_schedule
from .model import (
    Instance,
    InstanceError,
    Request,
    Schedule,
    ScheduleError,
    average_latency,
    completion_times,
    latencies,
    makespan,
    memory_profile,
    total_latency,
)
from .policies import POLICIES, make_policy
from .simulate import PolicyError, SimResult, SimulationStalled, simulate

__version__ = "0.1.0"

__all__ = [
    "CheckReport", "ScheduleInvalid", "check_schedule", "Instance", "InstanceError", "Request", "Schedule",
    "ScheduleError", "average_latency", "completion_times", "latencies", "makespan", "memory_profile",
    "total_latency", "POLICIES", "make_policy", "PolicyError", "SimResult", "SimulationStalled", "simulate",
]
