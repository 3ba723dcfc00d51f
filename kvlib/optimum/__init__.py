"""The hindsight optimum: the time-indexed IP and its solve pipeline, CP-SAT,
certified lower bounds and brute force for tiny instances.

:mod:`~kvlib.optimum.exact` (``solve``: certified interval of OPT; ``solve_ip``: the IP in HiGHS),
:mod:`~kvlib.optimum.pipeline` (the default solve: bounds, LP, reduced-cost fixing, CP-SAT event model),
:mod:`~kvlib.optimum.timelp` (time-indexed LP with conflict-family rows),
:mod:`~kvlib.optimum.bounds` (volume, separation and peak-conflict bounds),
:mod:`~kvlib.optimum.cpsat` (CP-SAT model, run in a child process),
:mod:`~kvlib.optimum.bruteforce` (exhaustive search).
"""

from kvlib.optimum.bounds import peak_conflict_bound, separation_lower_bound, volume_lower_bound
from kvlib.optimum.bruteforce import brute_force_opt, enumerate_opt
from kvlib.optimum.exact import (InfeasibleIncumbentError, InvalidThreadsError, InvalidTimeLimitError,
                                 SolveArgumentError, SolveResult, solve, solve_ip)
from kvlib.optimum.pipeline import solve_pipeline

__all__ = ["peak_conflict_bound", "separation_lower_bound", "volume_lower_bound", "brute_force_opt", "enumerate_opt",
           "SolveResult", "solve", "solve_ip", "solve_pipeline", "SolveArgumentError", "InvalidTimeLimitError",
           "InvalidThreadsError", "InfeasibleIncumbentError"]
