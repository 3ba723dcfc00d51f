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
from kvlib.policies.wyz_lp import (
    lp_swap as _lp_swap,
    lp_swap_ours as _lp_swap_ours,
    sorted_lp as _sorted_lp,
    sorted_lp_completion as _sorted_lp_completion,
)


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
                    "003 Alg. 5, multi-interval A_min: Alg. 2 started from each request's bin lower end (needs lower,upper)"),
    "a-l": (cyz.a_l,
            "003 Alg. 6, A_l (promote-l): FIFO; a request unfinished after l tokens is requeued at the back "
            "with estimate u (two-point lengths; needs lower,upper)"),
    "a-random": (cyz.a_random,
                 "003 Alg. 4, auxiliary A_random: knows the true o, one random permutation, admission in that order, "
                 "never evicts (simulate with the true o revealed)"),
    "a-min-random-evict": (cyz.a_min_random_evict,
                           "ours, not 003's: A_min with uniformly random eviction order (needs lower,upper)"),
    "a-l-random-evict": (cyz.a_l_random_evict,
                         "ours, not 003's: fixed estimates l_i, random eviction on overflow (needs lower,upper)"),
    # 002 Sorted-F family (kvlib.policies.wyz, kvlib.policies.wyz_lp)
    "sorted-f": (_sorted_f, "Sorted-F, 002 Alg. 1: Phase-1 batches minimising F=sum o/|X|^2, then eq. (5) prefix "
                 "(--selector: auto (default: exact DP where it fits, else swap) | dp (Alg. 2) | scaled-dp (Alg. 3) "
                 "| swap (Alg. 4) | quantile (Alg. 5) | exact | scaled-dp-ours | swap-ours | quantile-ours; "
                 "--phase1-constraint peak|lookahead, --epsilon, --B, --samples)"),
    "sorted-lp": (_sorted_lp, "Sorted-LP, 002 Alg. 6: order by LP expected start time y, then eq. (5) prefix (--time-step)"),
    "sorted-lp-completion": (_sorted_lp_completion,
                             "Sorted-LP by LP completion time y+o (our variant, not 002 Alg. 6), then eq. (5) prefix "
                             "(--time-step)"),
    "lp-swap": (_lp_swap, "LP-Swap, 002 Alg. 7: first-fit in y order + Alg. 4 swaps per batch, then eq. (5) prefix "
                "(--time-step)"),
    "lp-swap-ours": (_lp_swap_ours, "LP-Swap variant (ours, not 002 Alg. 7): completion order, best-F prefix start, "
                     "add/remove/swap search (--time-step, --phase1-constraint)"),
}


def _check_option(name: str, key: str, value):
    """Range checks for the options policies share; :class:`ParameterError` naming the option."""
    import math

    from kvlib.core.errors import ParameterError

    def number(v, integer: bool):
        if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__index__") \
                and not hasattr(v, "__float__"):
            raise ParameterError(f"{name}: option {key} must be a number, got {v!r}")
        x = float(v)
        if not math.isfinite(x):
            raise ParameterError(f"{name}: option {key} must be finite, got {v!r}")
        if integer and not x.is_integer():
            raise ParameterError(f"{name}: option {key} must be an integer, got {v!r}")
        return x

    ranges = {
        # key: (integer, test, description)
        "alpha": (False, lambda x: 0.0 <= x < 1.0, "in [0, 1)"),
        "beta": (False, lambda x: 0.0 < x <= 1.0, "in (0, 1]"),
        "epsilon": (False, lambda x: 0.0 < x <= 1.0, "in (0, 1]"),
        "B": (True, lambda x: x >= 1, ">= 1"),
        "samples": (True, lambda x: x >= 1, ">= 1"),
        "time_step": (True, lambda x: x >= 1, ">= 1"),
        "max_nonzeros": (True, lambda x: x >= 1, ">= 1"),
        "seed": (True, lambda x: 0 <= x < 2**63, "a non-negative integer"),
    }
    if key in ranges:
        integer, ok, what = ranges[key]
        x = number(value, integer)
        if not ok(x):
            raise ParameterError(f"{name}: option {key} must be {what}, got {value!r}")
    elif key == "tie_break" and value not in ("index", "random"):
        raise ParameterError(f"{name}: option tie_break must be 'index' or 'random', got {value!r}")


def policy_options(name: str) -> list[str]:
    """The keyword options the policy ``name`` accepts (its factory's parameters)."""
    return list(inspect.signature(POLICIES[name][0]).parameters)


def make_policy(name: str, **options) -> Policy:
    """Instantiate a registered policy by name with keyword options.

    ``None`` values mean "the policy's default" and are dropped.  An unknown
    name raises :class:`~kvlib.core.errors.UnknownPolicyError`; an option the
    policy does not take (a misspelling, or one that belongs to another policy)
    or a value out of range raises :class:`~kvlib.core.errors.ParameterError`
    naming it.
    """
    import difflib

    from kvlib.core.errors import KvlibError, ParameterError, UnknownPolicyError

    if not isinstance(name, str) or name not in POLICIES:
        close = difflib.get_close_matches(str(name), list(POLICIES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownPolicyError(f"unknown policy {name!r}{hint}; known: {', '.join(sorted(POLICIES))}")
    factory = POLICIES[name][0]
    params = inspect.signature(factory).parameters
    given = {k: v for k, v in options.items() if v is not None}
    foreign = [k for k in given if k not in params]
    if foreign:
        accepted = ", ".join(params) or "none"
        owners = {k: [p for p in POLICIES if k in inspect.signature(POLICIES[p][0]).parameters] for k in foreign}
        detail = "; ".join(
            f"{k} is an option of {', '.join(v)}" if v else
            f"{k} is not an option of any policy"
            + (f" (did you mean {difflib.get_close_matches(k, list(params), n=1)[0]!r}?)"
               if difflib.get_close_matches(k, list(params), n=1) else "")
            for k, v in owners.items()
        )
        raise ParameterError(f"policy {name} does not take option(s) {', '.join(foreign)} ({detail}); "
                             f"{name} takes: {accepted}")
    for k, v in given.items():
        _check_option(name, k, v)
    try:
        return factory(**given)
    except KvlibError:
        raise
    except (ValueError, TypeError) as e:
        raise ParameterError(f"policy {name}: {e}") from None
