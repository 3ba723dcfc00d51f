"""The policy registry: every policy by name, for the CLI, the chapters and the tests.

This module imports the policy families; none of them imports it.
"""

from __future__ import annotations

import inspect
from typing import Callable

from kvlib.core.protocol import Policy
import kvlib.policies.cyz as cyz
from kvlib.policies.jaillet import (
    alpha_beta_clearing, alpha_beta_clearing_redraw, alpha_greedy, fcfs, mc_benchmark, mc_benchmark_scan, mc_sf,
)
from kvlib.policies.wyz import mc_sf2, sorted_f as _sorted_f
from kvlib.policies.wyz_lp import lp_swap as _lp_swap, sorted_lp as _sorted_lp


#: name -> (factory, one-line description).  Factories take keyword options.
POLICIES: dict[str, tuple[Callable[..., Policy], str]] = {
    "mc-sf": (mc_sf, "MC-SF, 001 Algorithm 1: shortest output first, longest prefix keeping eq. (5)"),
    "mc-benchmark": (mc_benchmark, "MC-Benchmark, 001 Algorithm 2: arrival order, longest prefix keeping eq. (5)"),
    "fcfs": (fcfs, "FCFS with the eq. (5) check: alias of mc-benchmark (001 Algorithm 2), labelled fcfs"),
    "mc-benchmark-scan": (mc_benchmark_scan,
                          "ours: arrival order, start every request keeping eq. (5), skipping those that do not fit"),
    "mc-sf2": (mc_sf2, "MC-SF2, 002 Theorem EC.1: shortest s+o first, longest prefix keeping eq. (5)"),
    "alpha-greedy": (alpha_greedy, "001 Sec. 5.2: admit below (1-alpha)M, clear all on overflow (--alpha)"),
    "alpha-beta-clearing": (
        alpha_beta_clearing,
        "001 Sec. 5.2/App. C: admit below (1-alpha)M; on overflow clear each w.p. beta, one draw "
        "(all if still over M) (--alpha, --beta)",
    ),
    "alpha-beta-clearing-redraw": (
        alpha_beta_clearing_redraw,
        "ours: alpha-beta-clearing with draws repeated until memory fits (--alpha, --beta)",
    ),
    # 003 interval policies (kvlib.policies.cyz; they need lower,upper columns)
    "h-sf": (cyz.h_sf,
             "003 Alg. 3, H-SF: hindsight shortest-first (knows the true o)"),
    "a-max": (cyz.a_max,
              "003 Alg. 1, A_max: every o treated as its upper bound (needs lower,upper)"),
    "a-min": (cyz.a_min,
              "003 Alg. 2, A_min: adaptive lower bounds, ordered eviction (needs lower,upper)"),
    "a-min-multi": (cyz.a_min_multi,
                    "003 Alg. 5, multi-interval A_min (our reading; needs lower,upper)"),
    "a-l": (cyz.a_l,
            "003 Alg. 6, A_l: fixed lower bounds, random eviction (our reading; needs lower,upper)"),
    "a-random": (cyz.a_random,
                 "003 Alg. 4, A_random: A_min with random eviction (our reading; needs lower,upper)"),
}

POLICIES.update({
    "sorted-f": (_sorted_f, "Sorted-F, 002 Alg. 1: Phase-1 batches minimising F=sum o/|X|^2, then eq. (5) prefix "
                 "(--selector dp|scaled-dp|swap|quantile, --phase1-constraint peak|lookahead, --epsilon, --B, --samples)"),
    "sorted-lp": (_sorted_lp, "Sorted-LP, 002 Alg. 6: order by LP-relaxation completion time, then eq. (5) prefix (--time-step)"),
    "lp-swap": (_lp_swap, "LP-Swap, 002 Alg. 7: swap-search Phase 1 seeded by the LP order (--time-step, --phase1-constraint)"),
})


def make_policy(name: str, **options) -> Policy:
    """Instantiate a registered policy by name, passing only the options it accepts."""
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name!r}; known: {', '.join(sorted(POLICIES))}")
    factory = POLICIES[name][0]
    params = inspect.signature(factory).parameters
    accepted = {k: v for k, v in options.items() if k in params and v is not None}
    return factory(**accepted)
