"""Online policies, one module per paper's family, and the registry that names them.

:mod:`~kvlib.policies.base` (queues, eq. (5) admission), :mod:`~kvlib.policies.jaillet`
(001/004: MC-SF, MC-Benchmark, FCFS, alpha-protection baselines),
:mod:`~kvlib.policies.wyz` (002: Sorted-F and its selectors, MC-SF2),
:mod:`~kvlib.policies.wyz_lp` (002: Sorted-LP, LP-Swap and their LP),
:mod:`~kvlib.policies.cyz` (003: interval policies), :mod:`~kvlib.policies.registry`
(``POLICIES``, ``make_policy``).  The families import only :mod:`kvlib.core` and
:mod:`~kvlib.policies.base`; only the registry imports the families.
"""

from kvlib.core.protocol import Decision, Policy, PolicyContext, Running
from kvlib.policies.base import LookaheadPrefix, LookaheadScan, TracedLookaheadPrefix, by_output
from kvlib.policies.jaillet import AlphaProtection, alpha_beta_clearing, alpha_greedy, fcfs, mc_benchmark, mc_sf
from kvlib.policies.registry import POLICIES, make_policy

__all__ = [
    "Decision", "Policy", "PolicyContext", "Running", "LookaheadPrefix", "LookaheadScan", "TracedLookaheadPrefix",
    "by_output", "AlphaProtection", "alpha_beta_clearing", "alpha_greedy", "fcfs", "mc_benchmark", "mc_sf",
    "POLICIES", "make_policy",
]
