"""Row functions of the chapter "Lower-bound instances" for the results store (:mod:`kvlib.book.store`).

Each function computes one row of one stored table from its key parameters alone (no shared
random state: every draw is seeded from the key), and returns a flat ``dict`` of output
columns.  Column classes, as the chapter passes them to :meth:`kvlib.book.store.Store.table`:

* exact: instance hashes (:func:`kvlib.book.rows.instance_hash`), policy TELs, our explicit OPT
  upper bounds, volume lower bounds, our closed forms (all integers);
* interval: ``lower``/``upper`` of a certified optimum under a solver time limit
  (:func:`kvlib.optimum.certify.certify`);
* timing: ``seconds``; ignore: ``proved`` (whether the interval closed within the time limit
  depends on the machine).

Tables:

``thm41``      :func:`thm41_row`: the adaptive adversary of 001 Theorem 4.1 (the paper's instance,
               :func:`kvlib.theory.adversary.thm41_adversary`) against one policy at one ``M``.
``thm41_opt``  :func:`thm41_opt_row`: certified OPT of the ``b = 0`` instance at one ``M``.
``wyz``        :func:`wyz_row`: 002 Theorem 1 (``family="thm1"``) or Theorem EC.1
               (``family="ec1"``) instance at one ``M``: the TELs of four policies, explicit OPT
               upper bound, volume lower bound, our closed form for MC-SF (Theorem 1 only).
``wyz_opt``    :func:`wyz_opt_row`: certified OPT of one of those instances.
``heavy``      :func:`heavy_row`: our heavy/light variant of 002 Theorem 1 (not the paper's).
``tp``         :func:`three_partition_row`: one random 3-Partition instance (yes or no) through
               our corrected reduction for 002 Theorem 2 (``M = T + 3``), with its certified OPT.
``tp_paper``   :func:`three_partition_paper_row`: the same instance through 002's own reduction
               (``M = T``), with its certified OPT.

The exhaustive search for the smallest instances on which MC-SF is not optimal
(:func:`kvlib.theory.smallest.smallest_non_optimal`) takes a few seconds even at the full-mode
sizes, so the chapter runs it live.
"""

from __future__ import annotations

import math
import time

import numpy as np

from kvlib.book.rows import instance_hash
from kvlib.core.checker import check_schedule
from kvlib.core.simulate import simulate
from kvlib.optimum.bounds import volume_lower_bound
from kvlib.optimum.certify import certify
from kvlib.policies import make_policy
from kvlib.theory import adversary as adv

__all__ = ["thm41_row", "thm41_opt_row", "wyz_row", "wyz_opt_row", "heavy_row", "three_partition_row",
           "three_partition_paper_row", "thm41_keys", "WYZ_POLICIES", "WYZ_FAMILIES"]

#: policies whose TEL the ``wyz`` table records (each also an OPT upper bound)
WYZ_POLICIES = ("mc-sf", "mc-sf2", "fcfs", "mc-benchmark")
#: 002's two families: Theorem 1 (MC-SF) and Theorem EC.1 (MC-SF2)
WYZ_FAMILIES = {"thm1": adv.wyz_thm1_instance, "ec1": adv.wyz_ec1_instance}


def _certified(inst, time_limit: float) -> dict:
    t0 = time.perf_counter()
    res = certify(inst, method="ip", time_limit=float(time_limit), threads=1)
    return {"lower": int(res.lower), "upper": int(res.upper), "proved": bool(res.proved),
            "seconds": round(time.perf_counter() - t0, 3)}


# --------------------------------------------------------------------------- 001 Theorem 4.1


def thm41_keys(Ms, policies, *, seed: int, planned: set[str] = frozenset(), planned_max_M: int | None = None):
    """Keys of the ``thm41`` table, ``M``-major (small ``M`` first), skipping the policies in
    ``planned`` (those that plan with an LP/IP) above ``planned_max_M``."""
    return [dict(M=int(M), policy=p, seed=int(seed)) for M in Ms for p in policies
            if not (p in planned and planned_max_M is not None and M > planned_max_M)]


def thm41_row(*, M: int, policy: str, seed: int) -> dict:
    """The adaptive adversary of 001 Theorem 4.1 (the paper's instance) against ``policy`` at memory ``M``.

    Columns: ``n``; ``b`` (start of the long request when alone) and ``b_full`` (its start in the
    full instance: equal for an online policy); ``r`` (release of the short requests); ``tel``
    (the policy's TEL, checked); ``opt_upper`` and ``opt_upper_from`` (best explicit schedule of
    :func:`kvlib.theory.adversary.thm41_opt_upper`, or the policy's own TEL if smaller);
    ``opt_lower`` (volume bound); ``closed_form_alg`` / ``closed_form_short_first`` (our closed
    forms of :func:`kvlib.theory.adversary.thm41_tel_formula`, ``None`` unless ``M = (2k)^2``,
    ``k >= 2``, ``b = 0``); ``instance`` (hash of the full instance).
    """
    run = adv.thm41_adversary(policy, int(M), seed=int(seed))
    k = adv.thm41_h(M)
    closed = adv.thm41_tel_formula(M) if ((2 * k) ** 2 == M and k >= 2 and run.b == 0) else None
    return {"n": int(run.instance.n), "b": int(run.b), "b_full": int(run.b_full), "r": int(run.r),
            "tel": int(run.alg_tel), "opt_upper": int(run.opt_upper), "opt_upper_from": run.opt_upper_name,
            "opt_lower": int(run.lower),
            "closed_form_alg": None if closed is None else int(closed["alg"]),
            "closed_form_short_first": None if closed is None else int(closed["short_first"]),
            "instance": instance_hash(run.instance)}


def thm41_opt_row(*, M: int, time_limit: float) -> dict:
    """Certified OPT (IP of :mod:`kvlib.optimum.exact` under ``time_limit`` seconds) of the ``b = 0``
    instance of 001 Theorem 4.1 at memory ``M``, beside our best explicit schedule (``explicit_upper``,
    ``explicit_from``)."""
    inst = adv.thm41_instance(int(M), 0)
    ub, name, _ = adv.thm41_opt_upper(inst)
    out = {"n": int(inst.n), "instance": instance_hash(inst), "explicit_upper": int(ub), "explicit_from": name}
    out.update(_certified(inst, time_limit))
    return out


# --------------------------------------------------------------------------- 002 Theorem 1 / EC.1


def _family(family: str):
    try:
        return WYZ_FAMILIES[family]
    except KeyError:
        raise ValueError(f"family must be one of {sorted(WYZ_FAMILIES)}, got {family!r}") from None


def wyz_row(*, family: str, M: int, seed: int) -> dict:
    """002 Theorem 1 (``family="thm1"``) or EC.1 (``"ec1"``) instance at memory ``M``.

    Columns: ``n``, ``instance`` (hash); ``tel_<policy>`` for each of :data:`WYZ_POLICIES` (each
    schedule checked); ``tel_pipelined`` (Theorem 1 only: the (1, 2) requests pipelined, then the
    rest, :func:`kvlib.theory.adversary.pipelined_y_schedule`; ``None`` for EC.1); ``opt_upper``
    (the least of these TELs); ``opt_lower`` (volume bound); ``closed_form_mcsf`` (Theorem 1 with
    ``M = m^2``, ``3 | m``: :func:`kvlib.theory.adversary.wyz_thm1_mcsf_tel`; else ``None``).
    """
    inst = _family(family)(int(M))
    out = {"n": int(inst.n), "instance": instance_hash(inst)}
    tels = []
    for p in WYZ_POLICIES:
        res = simulate(inst, make_policy(p), seed=int(seed))
        check_schedule(inst, res.schedule).raise_if_invalid()
        out["tel_" + p.replace("-", "_")] = int(res.tel)
        tels.append(int(res.tel))
    pipe = None
    if family == "thm1":
        pipe = int(check_schedule(inst, adv.pipelined_y_schedule(inst, range(M, inst.n), range(M)))
                   .raise_if_invalid().tel)
        tels.append(pipe)
    out["tel_pipelined"] = pipe
    out["opt_upper"] = min(tels)
    out["opt_lower"] = int(volume_lower_bound(inst))
    m = math.isqrt(int(M))
    out["closed_form_mcsf"] = (int(adv.wyz_thm1_mcsf_tel(M)) if family == "thm1" and m * m == M and m % 3 == 0
                               else None)
    return out


def wyz_opt_row(*, family: str, M: int, time_limit: float) -> dict:
    """Certified OPT (IP under ``time_limit`` seconds) of the 002 Theorem 1 / EC.1 instance at ``M``."""
    inst = _family(family)(int(M))
    out = {"n": int(inst.n), "instance": instance_hash(inst)}
    out.update(_certified(inst, time_limit))
    return out


def heavy_row(*, M: int) -> dict:
    """Our heavy/light variant (:func:`kvlib.theory.adversary.heavy_short_instance`, not a paper's
    construction): MC-SF's TEL, the best of three other policies and the light-first earliest-fit
    schedule as OPT upper bound, and the volume lower bound."""
    inst = adv.heavy_short_instance(int(M))
    m = math.isqrt(int(M))
    tel = int(simulate(inst, make_policy("mc-sf")).tel)
    ub = min(int(simulate(inst, make_policy(p)).tel) for p in ("mc-sf2", "fcfs", "mc-benchmark"))
    light_first = adv.earliest_fit(inst, list(range(m, inst.n)) + list(range(m)))
    ub = min(ub, int(check_schedule(inst, light_first).raise_if_invalid().tel))
    return {"n": int(inst.n), "instance": instance_hash(inst), "tel_mc_sf": tel, "opt_upper": ub,
            "opt_lower": int(volume_lower_bound(inst))}


# --------------------------------------------------------------------------- 002 Theorem 2


def _three_partition_draw(m: int, yes: bool, trial: int, B: int, seed: int) -> list[int]:
    rng = np.random.default_rng([int(seed), int(m), int(bool(yes)), int(trial)])
    return adv.random_three_partition(rng, int(m), int(B), yes=bool(yes))


def three_partition_row(*, m: int, yes: bool, trial: int, B: int, seed: int, time_limit: float) -> dict:
    """One random 3-Partition instance with ``3m`` numbers and target ``B`` (a yes-instance if
    ``yes``), drawn with ``default_rng([seed, m, yes, trial])``, through our corrected reduction for
    002 Theorem 2 (:func:`kvlib.theory.adversary.three_partition_instance_ours`, ``M = B + 3``).

    Columns: ``b`` (the numbers, space-separated), ``instance`` (hash), ``target`` (``3m(m+1)/2``),
    ``has_triples`` (a 3-partition exists), ``tel_triples`` (TEL of the schedule built from it,
    checked; ``None`` without one), and the certified interval ``lower``/``upper`` of OPT.
    """
    b = _three_partition_draw(m, yes, trial, B, seed)
    inst = adv.three_partition_instance_ours(b, int(B))
    triples = adv.find_three_partition(b, int(B))
    built = None
    if triples is not None:
        built = int(check_schedule(inst, adv.three_partition_schedule(triples)).raise_if_invalid().tel)
    out = {"b": " ".join(map(str, b)), "instance": instance_hash(inst),
           "target": int(adv.three_partition_target(int(m))), "has_triples": triples is not None,
           "tel_triples": built}
    out.update(_certified(inst, time_limit))
    return out


def three_partition_paper_row(*, m: int, yes: bool, trial: int, B: int, seed: int, time_limit: float) -> dict:
    """The instance of :func:`three_partition_row` (same draw) through 002's own reduction for
    Theorem 2 (:func:`kvlib.theory.adversary.three_partition_instance`: ``(x_i, 1)``, ``M = T = B``).

    Columns: ``b``, ``instance`` (hash), ``target`` (``3m(m+1)/2``), ``has_triples``;
    ``triples_fit`` (whether the schedule of the proof's Case 1, one triple per round, passes the
    checker; ``None`` without a 3-partition); ``max_per_round`` (the most requests any round can
    hold: the smallest items, counted with their generated token); and the certified interval
    ``lower``/``upper`` of OPT.
    """
    b = _three_partition_draw(m, yes, trial, B, seed)
    inst = adv.three_partition_instance(b, int(B))
    triples = adv.find_three_partition(b, int(B))
    fit = None
    if triples is not None:
        fit = bool(check_schedule(inst, adv.three_partition_schedule(triples)).valid)
    w = sorted(x + 1 for x in b)
    most = int(np.searchsorted(np.cumsum(w), int(B), side="right"))
    out = {"b": " ".join(map(str, b)), "instance": instance_hash(inst),
           "target": int(adv.three_partition_target(int(m))), "has_triples": triples is not None,
           "triples_fit": fit, "max_per_round": most}
    out.update(_certified(inst, time_limit))
    return out
