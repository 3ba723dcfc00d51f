"""Small row functions for the results store (:mod:`kvlib.book.store`) that several chapters share.

A row function takes one row's key parameters as keyword arguments and returns a flat ``dict``
of output columns; it must be deterministic in its arguments (every random draw seeded from
them) so that :func:`kvlib.book.store.verify_table` can recompute it.
"""

from __future__ import annotations

import hashlib

import numpy as np

from kvlib.core.instances import section51
from kvlib.core.model import Instance
from kvlib.book.runs import run_checked

__all__ = ["instance_hash", "policy_tel_row"]


def instance_hash(inst: Instance) -> str:
    """First 16 hex digits of the SHA-256 of an instance (M, then a, s, o of every request)."""
    h = hashlib.sha256()
    h.update(str(int(inst.memory)).encode())
    for arr in (inst.arrival, inst.prompt, inst.output):
        h.update(np.asarray(arr, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def policy_tel_row(*, policy: str, arrival_model: int, seed: int, trial: int) -> dict:
    """TEL of a registered policy on trial ``trial`` of a 001 Section 5.1 family, checked by the checker.

    The instance is ``section51(default_rng([seed, trial]), arrival_model)``.
    """
    inst = section51(np.random.default_rng([seed, trial]), arrival_model)
    res, _ = run_checked(inst, policy)
    return {"n": int(inst.n), "M": int(inst.memory), "instance": instance_hash(inst), "tel": int(res.tel),
            "makespan": int(res.makespan)}
