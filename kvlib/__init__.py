"""kvlib: scheduling LLM inference under KV-cache memory limits.

Subpackages, one room per concept (each imports only those listed before it):

* :mod:`kvlib.core` -- the model, the independent checker, 001 eq. (5) look-ahead, the policy protocol and the discrete simulator.
* :mod:`kvlib.policies` -- online policies by paper (``jaillet`` 001/004, ``wyz``/``wyz_lp`` 002, ``cyz`` 003) and their registry.
* :mod:`kvlib.optimum` -- the hindsight optimum: time-indexed IP, CP-SAT, certified lower bounds, brute force.
* :mod:`kvlib.serving` -- continuous-time simulation, batch-time model, workloads and traces, KV-cache sizing.
* :mod:`kvlib.theory` -- proof objects: ratio quantities, Rayleigh quotients, adversaries, instance search.
* :mod:`kvlib.book` -- figure and sweep helpers used by the book's chapters only.

:mod:`kvlib.cli` is the ``kvlib`` command.
"""

from kvlib.core import (
    CheckReport,
    ScheduleInvalid,
    check_schedule,
    PolicyError,
    SimResult,
    SimulationStalled,
    simulate,
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
from kvlib.policies import POLICIES, make_policy

__version__ = "0.1.0"

__all__ = [
    "CheckReport", "ScheduleInvalid", "check_schedule", "Instance", "InstanceError", "Request", "Schedule",
    "ScheduleError", "average_latency", "completion_times", "latencies", "makespan", "memory_profile",
    "total_latency", "POLICIES", "make_policy", "PolicyError", "SimResult", "SimulationStalled", "simulate",
]
