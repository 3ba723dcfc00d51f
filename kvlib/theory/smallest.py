"""Exhaustive search over tiny all-at-zero instances: where is a policy not optimal?

:func:`at_zero_instances` enumerates, for a given ``n`` and ``M``, every multiset of requests at
``t = 0`` that fit alone (``s + o <= M``), either with one prompt size for all (001's setting) or
with varying prompts; :func:`policy_vs_opt` compares a policy's TEL with the optimum certified
by :func:`kvlib.optimum.certify.certify` (branch and bound, no solver; when a caller-supplied
lower bound meets the policy's TEL no search runs); :func:`smallest_non_optimal` returns the
non-optimal instances of the smallest ``(n, M)`` that has any.  Used by "MC-SF's constant ratio"
(004 Theorem 4.2's sweep) and "Lower-bound instances".
"""

from __future__ import annotations

import itertools
from typing import Callable, Iterator, Optional, Sequence

from kvlib.core.model import Instance
from kvlib.core.simulate import simulate
from kvlib.optimum.certify import certify
from kvlib.policies import make_policy


def at_zero_instances(n: int, M: int, *, equal_prompt: bool = True, prompts: Optional[Sequence[int]] = None,
                      o_max: Optional[int] = None) -> Iterator[Instance]:
    """Every all-at-zero instance with ``n`` requests and memory ``M`` whose requests fit alone, once per multiset.

    ``equal_prompt``: one prompt ``s`` for all (``s`` in ``prompts``, default ``1..M-1``), outputs a
    non-decreasing tuple in ``1..min(o_max, M - s)``; else a multiset of types ``(s, o)`` with
    ``s + o <= M`` (``o <= o_max``) in lexicographic order.  Order: by ``s``, then outputs lexicographically.
    """
    if n < 1 or M < 2:
        raise ValueError(f"at_zero_instances: need n >= 1 and M >= 2, got n={n}, M={M}")
    if equal_prompt:
        for s in (range(1, M) if prompts is None else prompts):
            top = M - s if o_max is None else min(o_max, M - s)
            for outs in itertools.combinations_with_replacement(range(1, top + 1), n):
                yield Instance.at_zero([s] * n, list(outs), M)
    else:
        types = [(s, o) for s in (range(1, M) if prompts is None else prompts)
                 for o in range(1, (M - s if o_max is None else min(o_max, M - s)) + 1)]
        for c in itertools.combinations_with_replacement(types, n):
            yield Instance.at_zero([t[0] for t in c], [t[1] for t in c], M)


def policy_vs_opt(instance: Instance, policy: str = "mc-sf", *,
                  lower_bound: Optional[Callable[[Instance], float]] = None, node_limit: int = 5_000_000) -> dict:
    """The policy's TEL and starts, and the certified optimum (``OPT``, its starts) of a tiny instance.

    ``lower_bound(instance)``: a proved lower bound on OPT; when the policy's TEL meets it, OPT is
    that TEL without search.  Otherwise :func:`kvlib.optimum.certify.certify` runs the branch and bound
    with the policy's schedule as the cut-off (raises ``RuntimeError`` beyond ``node_limit`` nodes).
    """
    res = simulate(instance, make_policy(policy))
    cert = certify(instance, method="bruteforce", incumbent=res.schedule.starts,
                   lower_bound=None if lower_bound is None else lower_bound(instance), node_limit=node_limit)
    return {"tel": int(res.tel), "starts": tuple(res.schedule.starts), "OPT": cert.upper,
            "optimal starts": cert.starts, "certified by": cert.method}


def smallest_non_optimal(policy: str = "mc-sf", *, equal_prompt: bool, max_n: int, max_M: int,
                         label: str = "MC-SF") -> list[dict]:
    """All instances of :func:`at_zero_instances` where ``policy`` is not optimal, for the first ``(n, M)``
    (``n = 2..max_n`` outer, ``M = 2..max_M`` inner) that has any; ``[]`` if none in range.  Rows: ``n, M, prompts, outputs, TEL(label), OPT, optimal starts``."""
    for n in range(2, max_n + 1):
        for M in range(2, max_M + 1):
            found = []
            for inst in at_zero_instances(n, M, equal_prompt=equal_prompt):
                r = policy_vs_opt(inst, policy)
                if r["OPT"] < r["tel"]:
                    found.append({"n": n, "M": M, "prompts": inst.prompt.tolist(), "outputs": inst.output.tolist(),
                                  f"TEL({label})": r["tel"],
                                  "OPT": r["OPT"], "optimal starts": r["optimal starts"]})
            if found:
                return found
    return []
