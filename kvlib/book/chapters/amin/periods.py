"""A_min's periods: 003 Lemma 1 and Proposition 1 measured on simulated schedules.

003 Section 4.1 (Observation 1) splits a run of A_min (Algorithm 2) into periods ``tau_i``: in
``tau_i`` the requests input carry the lower bound ``i``; ``b_ij``, ``c_ij``, ``d_ij`` count the
requests of true length ``j`` input, completed and deleted (evicted) in ``tau_i``.  The paper's
Lemma 1 states ``E[c_ij | b_ij] = (s+i)/(s+j) b_ij``; its Proposition 1 states
``E[c_ij] = (s+l)/(s+j) x_j n`` for ``i = l`` and ``x_j n/(s+j)`` for ``l < i <= j``.

Our measurement.  A run (a start of a request, ending in completion or eviction) belongs to period
``tau_i`` when the request's stored bound at its start is ``i``.  :class:`kvlib.policies.cyz.AMin`
sets the bound to ``l_i`` and raises it at each eviction to ``max(bound, tokens generated)``, so
the bound of every run follows from the schedule's cancelled runs alone
(:func:`run_table`; :func:`final_bounds` lets a test compare with the policy's own state).
``b_ij`` is read two ways, because the paper's text does not say whether a request input twice
in one period counts twice: *inputs* (every run) and *requests* (distinct requests with a run in
the period).  ``c_ij`` (completions) is the same under both readings.

Every schedule is validated by the independent checker.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from kvlib.core.checker import check_schedule
from kvlib.core.model import Schedule
from kvlib.policies.cyz import AMinProgress, interval_instance, run_interval
from kvlib.theory import rayleigh as ry

__all__ = ["run_table", "final_bounds", "period_counts", "periods_row", "periods_frame", "periods_keys"]


def run_table(schedule: Schedule, output, lower) -> pd.DataFrame:
    """One row per run of ``schedule`` (cancelled runs and final runs): ``request``, ``start``,
    ``rounds``, ``completed``, ``o`` (true length) and ``bound`` (the stored lower bound at the
    start, replayed with A_min's update rule ``max(bound, tokens generated)``)."""
    o = np.asarray(output, dtype=np.int64)
    lo = np.broadcast_to(np.asarray(lower, dtype=np.int64), o.shape)
    runs = [(int(i), int(p), int(r), False) for i, p, r in schedule.cancelled]
    runs += [(i, int(p), int(o[i]), True) for i, p in enumerate(schedule.starts)]
    runs.sort(key=lambda t: (t[0], t[1]))
    bound: dict[int, int] = {}
    rows = []
    for i, p, r, done in runs:
        b = bound.get(i, int(lo[i]))
        rows.append((i, p, r, done, int(o[i]), b))
        if not done:
            bound[i] = max(b, r)
    return pd.DataFrame(rows, columns=["request", "start", "rounds", "completed", "o", "bound"])


def final_bounds(runs: pd.DataFrame, lower) -> np.ndarray:
    """The stored bound of every request after its last run, from :func:`run_table`'s rows (a
    completed request keeps the bound of its completing run)."""
    last = runs.sort_values(["request", "start"]).groupby("request").tail(1)
    out = np.array(np.broadcast_to(np.asarray(lower, dtype=np.int64), (int(runs.request.max()) + 1,)))
    out[last.request.to_numpy()] = last.bound.to_numpy()
    return out


def period_counts(runs: pd.DataFrame) -> pd.DataFrame:
    """``b_ij`` (inputs and distinct requests), ``c_ij`` and ``d_ij`` per period ``i`` (stored bound)
    and true length ``j``."""
    g = runs.groupby(["bound", "o"])
    out = g.agg(b_inputs=("completed", "size"), c=("completed", "sum"), b_requests=("request", "nunique"))
    out["d"] = out.b_inputs - out.c
    return out.reset_index().rename(columns={"bound": "i", "o": "j"})


def periods_row(*, scale: int, K: int, M: int, load: int, s: int, run_seed: int, seed: int,
                policy: str = "a-min") -> dict:
    """One simulated A_min run on lengths uniform on ``scale * {1..K}`` (``l = scale``,
    ``u = K scale``), ``n = load M`` requests at 0, prompt ``s``; lengths from
    ``default_rng([seed, run_seed, M, scale, K])``, policy seed ``run_seed``.

    Returns per length ``j`` (lists, in increasing ``j``): ``first_share`` = ``c_lj / (x_j n)``
    against Proposition 1's ``(s+l)/(s+j)`` (``prop1_first``); ``first_frac_inputs`` and
    ``first_frac_requests`` = ``c_lj / b_lj`` under the two readings of ``b``, against Lemma 1's
    ``(s+l)/(s+j)``; ``first_inputs_per_request`` = ``b_lj (inputs) / (x_j n)``.  Over all periods:
    ``lemma1_dev_inputs`` / ``lemma1_dev_requests`` = the ``b``-weighted mean of
    ``|c_ij/b_ij - (s+i)/(s+j)|``; ``prop1_later_dev`` = the ``x_j n``-weighted mean over
    ``l < i <= j`` of ``|c_ij (s+j)/(x_j n) - 1|``.  Also ``ratio`` (A_min / H-SF) and ``lemma2``
    (003 Lemma 2 on the empirical lengths, :func:`ry.lemma2_ratio`).

    ``policy``: ``"a-min"`` (Algorithm 2 as kvlib reads it) or ``"a-min-progress"``
    (:class:`kvlib.policies.cyz.AMinProgress`, the reading that evicts by ``max(bound, tokens
    generated)``; same bound updates, so the same replay applies)."""
    if policy not in ("a-min", "a-min-progress"):
        raise ValueError(f"policy must be 'a-min' or 'a-min-progress', got {policy!r}")
    if scale < 1 or K < 2:
        raise ValueError(f"need scale >= 1 and K >= 2, got scale={scale}, K={K}")
    sup = scale * np.arange(1, K + 1)
    n = load * M
    o = np.random.default_rng([seed, run_seed, M, scale, K]).choice(sup, size=n)
    if s == 0:
        inst = interval_instance(o, M, 0, allow_zero_prompt=True)
    else:
        inst = interval_instance(o, M, s)
    l, u = int(sup[0]), int(sup[-1])
    res = run_interval(inst, AMinProgress() if policy == "a-min-progress" else "a-min", l, u, seed=run_seed)
    rep = check_schedule(inst, res.schedule, allow_cancellation=True)
    if not (rep.valid and rep.tel == res.tel):
        raise AssertionError(f"A_min schedule rejected or TEL {res.tel} != checker's {rep.tel}: {rep.violations[:3]}")
    hres = run_interval(inst, "h-sf", l, u, seed=run_seed)
    hrep = check_schedule(inst, hres.schedule)
    if not (hrep.valid and hrep.tel == hres.tel):
        raise AssertionError(f"H-SF schedule rejected: {hrep.violations[:3]}")
    runs = run_table(res.schedule, o, l)
    cnt = period_counts(runs)
    xn = {int(j): int((o == j).sum()) for j in sup}
    first = cnt[cnt.i == l].set_index("j")
    js = [int(j) for j in sup[1:]]
    pred = lambda i, j: (s + i) / (s + j)  # noqa: E731
    cnt["pred"] = pred(cnt.i, cnt.j)
    w_in = cnt.b_inputs / cnt.b_inputs.sum()
    w_rq = cnt.b_requests / cnt.b_requests.sum()
    later = cnt[(cnt.i > l) & (cnt.i <= cnt.j)].copy()
    later["dev"] = (later.c * (s + later.j) / later.j.map(xn) - 1).abs()
    later_w = later.j.map(xn)
    # Prop. 1 for l < i <= j asks for a completion in every period; periods with none count as dev 1
    full = [(i, j) for j in js for i in range(l + 1, j + 1)]
    missing = len(set(full) - set(zip(later.i, later.j)))
    xs = np.array([xn[int(j)] / n for j in sup])
    return dict(
        n=n, l=l, u=u, js=js,
        first_share=[float(first.c.get(j, 0)) / xn[j] for j in js],
        prop1_first=[pred(l, j) for j in js],
        first_frac_inputs=[float(first.c.get(j, 0) / first.b_inputs.get(j, 1)) for j in js],
        first_frac_requests=[float(first.c.get(j, 0) / first.b_requests.get(j, 1)) for j in js],
        first_inputs_per_request=[float(first.b_inputs.get(j, 0)) / xn[j] for j in js],
        lemma1_dev_inputs=float((w_in * (cnt.c / cnt.b_inputs - cnt.pred).abs()).sum()),
        lemma1_dev_requests=float((w_rq * (cnt.c / cnt.b_requests - cnt.pred).abs()).sum()),
        prop1_later_dev=float(((later.dev * later_w).sum() + missing) / (later_w.sum() + missing)),
        evictions=len(res.schedule.cancelled),
        ratio=res.tel / hres.tel,
        lemma2=float(ry.lemma2_ratio(xs, sup, s=s)),
    )


def periods_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Stored :func:`periods_row` rows as one row per (configuration, ``j``), means over run seeds."""
    import json

    recs = []
    for _, r in rows.iterrows():
        get = (lambda v: json.loads(v) if isinstance(v, str) else v)
        js = get(r.js)
        for k, j in enumerate(js):
            recs.append(dict(policy=r.get("policy", "a-min"), scale=int(r.scale), M=int(r.M), load=int(r.load), s=int(r.s), j=int(j),
                             first_share=get(r.first_share)[k], prop1_first=get(r.prop1_first)[k],
                             frac_inputs=get(r.first_frac_inputs)[k], frac_requests=get(r.first_frac_requests)[k],
                             inputs_per_request=get(r.first_inputs_per_request)[k]))
    df = pd.DataFrame(recs)
    keys = ["policy", "scale", "M", "load", "s", "j"]
    out = df.groupby(keys).mean().reset_index()
    out["runs"] = df.groupby(keys).size().to_numpy()
    return out


def periods_keys(scales, memories, prompts, policies, seeds: int, seed: int, *, K: int = 4, load: int = 10) -> list[dict]:
    """Store keys of :func:`periods_row`: every scale, memory, prompt size and policy, ``seeds`` run
    seeds each (prompt sizes are multiples of the scale: ``s = p * scale`` for ``p`` in ``prompts``)."""
    return [dict(scale=int(c), K=K, M=int(M), load=load, s=int(p) * int(c), run_seed=r, seed=seed, policy=pol)
            for pol in policies for c in scales for M in memories for p in prompts for r in range(seeds)]
