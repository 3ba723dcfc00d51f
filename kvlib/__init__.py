"""kvlib: scheduling LLM inference under KV-cache memory limits.

Modules, one concept each: :mod:`kvlib.model` (requests, instances, schedules),
:mod:`kvlib.checker` (independent validation), :mod:`kvlib.lookahead`
(001 eq. (5)), :mod:`kvlib.policies` (online policies and their registry),
:mod:`kvlib.simulate` (the discrete-time engine), :mod:`kvlib.instances`
(random families), :mod:`kvlib.adversary` (lower-bound constructions),
:mod:`kvlib.traces` (request files), :mod:`kvlib.workloads` (real and
LMSYS-like workloads), :mod:`kvlib.hardware` (KV-cache sizing),
:mod:`kvlib.batchtime` (Llama-2-70B batch-time model), :mod:`kvlib.realtime`
(continuous-time simulation), :mod:`kvlib.exact` and :mod:`kvlib.bounds`
(hindsight IP, certified bounds), :mod:`kvlib.bruteforce` (exact search for
tiny instances), :mod:`kvlib.ratio` (001 Theorem 4.3 quantities),
:mod:`kvlib.sortedf` and :mod:`kvlib.lp` (002's Sorted-F, Sorted-LP, LP-Swap),
:mod:`kvlib.intervals` and :mod:`kvlib.rayleigh` (003's interval policies and
Rayleigh-quotient objects), :mod:`kvlib.sweeps` (parallel runs),
:mod:`kvlib.plotting` (pictures).
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
