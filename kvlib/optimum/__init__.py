"""The hindsight optimum: the time-indexed IP and its solve pipeline, CP-SAT,
certified lower bounds and brute force for tiny instances.

:mod:`~kvlib.optimum.exact` (``solve``: certified interval of OPT),
:mod:`~kvlib.optimum.bounds` (volume, separation and peak-conflict bounds),
:mod:`~kvlib.optimum.cpsat` (CP-SAT model, run in a child process),
:mod:`~kvlib.optimum.bruteforce` (exhaustive search).
"""

from kvlib.optimum.bounds import peak_conflict_bound, separation_lower_bound, volume_lower_bound
from kvlib.optimum.bruteforce import brute_force_opt, enumerate_opt
from kvlib.optimum.exact import SolveResult, solve

__all__ = ["peak_conflict_bound", "separation_lower_bound", "volume_lower_bound", "brute_force_opt", "enumerate_opt",
           "SolveResult", "solve"]
