"""Helpers of the model chapter (notebooks/model.py).

:func:`policy_tels` runs a few look-ahead policies on random instances of 001 Section 5.1's
Arrival Model 1.  Instance ``k`` is drawn from ``numpy.random.default_rng([seed, 1, k])``, exactly
as :func:`kvlib.book.chapters.hindsight.rows.best_policy_trial` draws Arrival Model 1 trial ``k`` (the hindsight
chapter's solver-free scan), so both chapters count on the same instances.
"""

from __future__ import annotations

import numpy as np

from kvlib.core.checker import check_schedule
from kvlib.core.instances import section51
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy

__all__ = ["MODEL_POLICIES", "am1_instance", "policy_tels", "smallest_counts"]

#: the policies of the model chapter's comparison (the hindsight chapter's scan uses the same four)
MODEL_POLICIES = ("mc-sf", "mc-benchmark", "mc-benchmark-scan", "mc-sf2")


def am1_instance(seed: int, k: int):
    """Arrival Model 1 instance ``k`` of 001 Section 5.1 (paper ranges), seeded by ``[seed, 1, k]``."""
    return section51(np.random.default_rng([int(seed), 1, int(k)]), 1)


def policy_tels(seed: int, n_instances: int, policies=MODEL_POLICIES):
    """One row per (instance, policy): ``instance``, ``n``, ``M``, ``policy``, ``TEL`` (a DataFrame).

    Every schedule is re-checked by the independent checker; a rejected one raises ``AssertionError``.
    """
    import pandas as pd

    records = []
    for k in range(int(n_instances)):
        inst = am1_instance(seed, k)
        for name in policies:
            res = simulate(inst, make_policy(name), seed=0)
            rep = check_schedule(inst, res.schedule)
            if not (rep.valid and rep.tel == res.tel):
                raise AssertionError(f"{name} on instance {k}: {rep.violations[:3]}")
            records.append({"instance": k, "n": int(inst.n), "M": int(inst.memory), "policy": name,
                            "TEL": int(res.tel)})
    return pd.DataFrame(records)


def smallest_counts(wide, policy: str = "mc-sf") -> dict:
    """How often ``policy`` has the smallest TEL in ``wide`` (one row per instance, one column per policy).

    ``best`` counts ties as ``policy``'s (non-strict, as the hindsight chapter's "best policy" column
    does), ``strict`` does not, ``ties`` is their difference.
    """
    others = wide.drop(columns=[policy]).min(axis=1)
    best = int((wide[policy] <= others).sum())
    strict = int((wide[policy] < others).sum())
    return {"best": best, "strict": strict, "ties": best - strict, "instances": int(len(wide))}
