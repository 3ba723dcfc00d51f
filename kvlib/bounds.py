"""Lower bounds on the hindsight optimum that need no solver, and a sound horizon.

``volume_lower_bound`` (the memory-volume argument behind 001 Lemma 4.7)
--------------------------------------------------------------------------
Order any feasible schedule's completions ``c_(1) <= ... <= c_(n)``.  By time
``c_(k)`` at least ``k`` requests have completed, so

* ``c_(k) >= (a + o)_(k)``, the ``k``-th smallest ``a_i + o_i`` (each completed
  request has ``c_i >= a_i + o_i``, so ``k`` of the values ``a_i + o_i`` are
  ``<= c_(k)``);
* ``c_(k) >= a_min + ceil(W_k / M)``, where ``W_k`` is the sum of the ``k``
  smallest work volumes ``w_i = s_i o_i + o_i (o_i + 1) / 2``: the ``k``
  completed requests held exactly ``w_i`` token-rounds each, all at times in
  ``(a_min, c_(k)]``, and at most ``M`` tokens are held per time.

Hence ``TEL = sum_k c_(k) - sum_i a_i >= sum_k max(...) - sum_i a_i``.  The
time-indexed LP relaxation implies these volume inequalities (they are sums of
its memory rows), so this bound is never better than the LP; it is free.

``latest_starts`` (a provably sufficient horizon)
-------------------------------------------------
Two arguments, both about *optimal* schedules (proofs in the chapter
"The hindsight optimum"):

1. Left shift: in an optimal schedule every time in ``(A, C_max]`` is occupied
   by some run (``A = max a_i``), else shifting every later run one step left
   is feasible and lowers TEL.  So ``C_max <= A + sum_i o_i``.
2. Incumbent: if some schedule has TEL ``U`` then an optimal schedule has
   ``c_i - a_i = TEL - TEL(others) <= U - LB(I \\ {i})``, because the other
   requests' runs form a feasible schedule of the instance without ``i``.

So an optimal schedule exists (all of them, in fact) with
``p_i <= min(A + sum o, a_i + U - LB(I \\ {i})) - o_i``.
"""

from __future__ import annotations

import numpy as np

from .model import Instance


def work_volumes(instance: Instance) -> np.ndarray:
    """Token-rounds ``w_i = s_i o_i + o_i (o_i + 1) / 2`` held by each request over its run."""
    s, o = instance.prompt, instance.output
    return s * o + o * (o + 1) // 2


def _volume_bound_arrays(a: np.ndarray, s: np.ndarray, o: np.ndarray, M: int) -> int:
    if len(a) == 0:
        return 0
    w = np.sort(s * o + o * (o + 1) // 2)
    W = np.cumsum(w)
    vol = int(a.min()) + -(-W // M)  # ceil division
    ao = np.sort(a + o)
    ck = np.maximum(vol, ao)
    return int(ck.sum() - a.sum())


def volume_lower_bound(instance: Instance) -> int:
    """A lower bound on the optimal TEL from completion order statistics and memory volume."""
    return _volume_bound_arrays(instance.arrival, instance.prompt, instance.output, instance.memory)


def volume_lower_bound_without(instance: Instance) -> np.ndarray:
    """``LB(I \\ {i})`` for every ``i`` (the volume bound of the instance with request ``i`` removed)."""
    a, s, o, M = instance.arrival, instance.prompt, instance.output, instance.memory
    out = np.empty(instance.n, dtype=np.int64)
    mask = np.ones(instance.n, dtype=bool)
    for i in range(instance.n):
        mask[i] = False
        out[i] = _volume_bound_arrays(a[mask], s[mask], o[mask], M)
        mask[i] = True
    return out


def left_shift_horizon(instance: Instance) -> int:
    """``A + sum_i o_i``: no optimal schedule completes a request later (argument 1 above)."""
    return int(instance.arrival.max() + instance.output.sum())


def latest_starts(instance: Instance, upper: int | None = None) -> np.ndarray:
    """Latest start ``L_i`` such that every optimal schedule has ``p_i <= L_i``.

    ``upper`` is the TEL of any feasible schedule (``None``: only the left-shift
    horizon is used).  Every schedule with TEL ``<= upper`` that is optimal
    satisfies the bound, so an incumbent of value ``upper`` need not satisfy
    it; callers keep the incumbent separately.
    """
    a, o = instance.arrival, instance.output
    latest_c = np.full(instance.n, left_shift_horizon(instance), dtype=np.int64)
    if upper is not None:
        latest_c = np.minimum(latest_c, a + int(upper) - volume_lower_bound_without(instance))
    return np.maximum(latest_c - o, a)
