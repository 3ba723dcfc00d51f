"""Our variant of 002 Theorem 3's proof chain measured over many instances: one row per link.

The variant (:mod:`kvlib.policies.wyz`, comment before ``pow2_up``) replaces 002's group, align and
Optimal_align objects, which are not schedules, by feasible batched schedules; 002's own objects
are :mod:`kvlib.theory.wyz_chain_paper`.

The per-instance TELs come from :func:`kvlib.policies.wyz.proof_chain` (columns ``Sorted-F``,
``separate``, ``group``, ``align``, ``Optimal_align``, ``OPT``); the links are
:data:`kvlib.policies.wyz.CHAIN_LINKS` ``(label, numerator, denominator, claimed bound)``.
Theorems 4 and 7 claim ``<=`` (a violation is a ratio above the bound), Theorems 5 and 6 claim
``<`` (a violation is a ratio at or above it); the variant's bridge align / Optimal_align is not a
theorem of 002 (002's Theorem 8 compares its own, different objects) and has no bound.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from kvlib.policies.wyz import CHAIN_LINKS

#: What each link's measurement can show in our variant of the transformed schedules.
LINK_NOTE = {
    "Thm 4: SF / separate": "checkable",
    "Thm 5: separate / group": "checkable",
    "Thm 6: group / align": "holds by construction (ratio <= 1)",
    "bridge: align / Optimal_align": "not a theorem of 002; >= 1 by construction",
    "Thm 7: Optimal_align / OPT": "checkable",
}


def link_table(chain: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Per link: claimed bound, instances with both TELs, max / mean ratio, violations, max reverse ratio, status.

    Returns ``(table indexed by link label, {label: the per-instance ratios})``.
    """
    rows, ratios = [], {}
    for label, num, den, const in CHAIN_LINKS:
        sub = chain.dropna(subset=[num, den])
        r = (sub[num] / sub[den]).astype(float)
        ratios[label] = r
        strict = not (label.startswith("Thm 4") or label.startswith("Thm 7"))
        viol = 0 if const is None else int(((r >= const) if strict else (r > const)).sum())
        rows.append({"link": label, "claimed bound": "-" if const is None else const, "instances": len(sub),
                     "max ratio": r.max(), "mean ratio": r.mean(), "violations": viol,
                     "max reverse ratio": (1 / r).max(), "status": LINK_NOTE[label]})
    return pd.DataFrame(rows).set_index("link"), ratios


def telescoped(chain: pd.DataFrame) -> pd.DataFrame:
    """The instances with ``OPT`` and ``Optimal_align``, with the product of the four bounded links and
    ``SF / OPT``; raises ``AssertionError`` unless the five links multiply to TEL(Sorted-F) / OPT on each."""
    full = chain.dropna(subset=["OPT", "Optimal_align"]).copy()
    full["product of the four bounded links"] = np.prod(
        [(full[num] / full[den]).to_numpy(float) for _, num, den, c in CHAIN_LINKS if c is not None], axis=0)
    full["SF / OPT"] = full["Sorted-F"] / full["OPT"]
    if not np.allclose(full["SF / OPT"], full["product of the four bounded links"] * full["align"] / full["Optimal_align"]):
        raise AssertionError("the proof-chain links do not telescope to TEL(Sorted-F) / OPT")
    return full
