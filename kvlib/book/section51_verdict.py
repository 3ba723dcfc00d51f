"""Verdicts on 001 Section 5.1's reported ratios, computed from the stored certified intervals.

The hindsight chapter, the errata page (through the chapter's glue) and the mission table (through
:func:`mission_verdict`) all read the verdicts from here, so they cannot disagree.

For every trial OPT lies in ``[lower, upper]`` (``lower`` from the exact pipeline, ``upper`` the
best checked schedule of the pipeline or the primal search, see
:func:`kvlib.book.section51_trials.combine_with_pipeline`), so ``MC-SF / OPT`` lies in
``[ratio_lo, ratio_hi] = [mcsf / upper, mcsf / lower]``.  The paper reports statistics of 200 draws
of its own; ours are 200 draws of the same distribution.  Each verdict therefore states where the
paper's number lies relative to our certified interval *and* whether sampling could explain it:

* **average**: the paper's average is the mean of ``MC-SF / OPT`` over its draws, hence at least the
  mean of ``ratio_lo`` over its draws.  That mean is, to a normal approximation, distributed as
  ours with the same variance, so the chance that draws alone put it at or below the paper's
  average is ``p = Phi((paper - mean_lo) / (sd_lo * sqrt(1/N + 1/200)))`` (two independent sample
  means).  Symmetrically with ``ratio_hi`` above.
* **worst**: the paper's worst is the maximum over its draws, at least the maximum of ``ratio_lo``.
  If a share ``q`` of our trials has ``ratio_lo`` above it, 200 draws all stay at or below it with
  probability about ``(1 - q) ** 200``.
* **best**: the paper's best is a minimum; ours is certified in ``[min ratio_lo, min ratio_hi]``.
* **exact matches** (MC-SF = OPT): ours lie between the trials where MC-SF equals the certified
  lower bound and the trials where no checked schedule beats MC-SF.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from kvlib.optimum.exact import PAPER_SECTION51

__all__ = ["PAPER_TRIALS", "SIGNIFICANCE", "position", "intervals", "load_stored", "load_stored_inclusive", "verdicts",
           "mission_verdict", "refuted_words", "readings_sentence"]

#: trials per arrival model in 001 Section 5.1
PAPER_TRIALS = 200
#: a paper's statistic outside our certified interval is called refuted when sampling explains it
#: with probability below this
SIGNIFICANCE = 0.01


def intervals(res):
    """``res`` (combined rows, ``model`` as ``"AM1"``/``"AM2"``) with ``ratio_lo``, ``ratio_hi``,
    ``match`` (MC-SF = OPT proved) and ``beaten`` (a checked schedule beats MC-SF)."""
    res = res.copy()
    res["ratio_lo"] = res.mcsf / res.upper
    res["ratio_hi"] = res.mcsf / res.lower
    res["match"] = res.mcsf == res.lower
    res["beaten"] = res.mcsf > res.upper
    return res


def load_stored(root: str | Path = ".", *, check: bool = True):
    """The stored full-mode rows of ``results/hindsight/section51.csv`` and ``section51_search.csv``
    combined (read-only), as :func:`intervals` returns them."""
    import pandas as pd

    from kvlib.book.section51_trials import combine_with_pipeline

    base = Path(root) / "results" / "hindsight"
    pipe = pd.read_csv(base / "section51.csv")
    search = pd.read_csv(base / "section51_search.csv")
    res = combine_with_pipeline(pipe, search, check=check).assign(model=lambda d: "AM" + d.model.astype(str))
    return intervals(res)


def load_stored_inclusive(res, root: str | Path = ".", *, check: bool = True):
    """The stored rows of 001 Section 5.1 under the start-inclusive reading of the memory rule
    (``results/hindsight/section51_inclusive.csv`` joined to ``res``, :func:`load_stored`'s rows), as
    :func:`intervals` returns them; ``None`` while that table is not stored complete."""
    import pandas as pd

    from kvlib.book.section51_trials import combine_inclusive
    from kvlib.book.store import stored_complete, table_paths

    results = Path(root) / "results"
    if not stored_complete("hindsight", "section51_inclusive", results):
        return None
    csv_path, _ = table_paths("hindsight", "section51_inclusive", results)
    incl = pd.read_csv(csv_path).assign(model=lambda d: "AM" + d.model.astype(str))
    return intervals(combine_inclusive(res, incl, check=check))


def refuted_words(v: dict) -> str:
    """What :func:`verdicts`'s dict ``v`` refutes, in words."""
    parts = [k for k in ("average", "worst") if v[f"{k}_refuted"]]
    return ("the average and the worst case refuted" if len(parts) == 2 else
            f"the {parts[0]} {'case ' if parts[0] == 'worst' else ''}refuted" if parts else "nothing refuted")


def readings_sentence(book: dict, inclusive: dict) -> str:
    """Whether the verdict on one arrival model depends on the reading of 001 Section 3's memory rule:
    ``book`` and ``inclusive`` are :func:`verdicts`'s dicts under the book's (start-exclusive) reading and the
    start-inclusive one."""
    r1, r2 = refuted_words(book), refuted_words(inclusive)
    same = (book["average_refuted"], book["worst_refuted"]) == (inclusive["average_refuted"],
                                                                inclusive["worst_refuted"])
    return (f"the verdict does not depend on which reading of the memory rule is used ({r1} under both)" if same else
            f"the verdict depends on which reading of the memory rule is used: {r1} under the book's reading, "
            f"{r2} under the start-inclusive one")


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _fmt_p(p: float) -> str:
    return "below 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.2f}"


def position(paper: float, lo: float, hi: float) -> str:
    """Where the paper's number lies against our interval ``[lo, hi]`` at the three decimals the book shows:
    ``"below"``, ``"inside"`` or ``"above"``."""
    if paper < round(lo, 3):
        return "below"
    return "above" if paper > round(hi, 3) else "inside"


def verdicts(res, model: str) -> dict:
    """Verdicts for arrival model ``model`` (``"AM1"`` or ``"AM2"``) on rows from :func:`intervals`.

    Returns a dict with the numbers (``trials``, ``avg_lo``, ``avg_hi``, ``worst_lo``, ``worst_hi``,
    ``best_lo``, ``best_hi``, ``matches_lo``, ``matches_hi``, ``above_paper_worst``, ``p_avg``,
    ``p_worst``), the paper's (``paper``: its dict from :data:`kvlib.optimum.exact.PAPER_SECTION51`)
    and one verdict sentence per statistic (``average``, ``worst``, ``best``, ``matches``), plus
    ``average_refuted`` and ``worst_refuted`` (bools).
    """
    d = res[res.model == model]
    if not len(d):
        raise ValueError(f"no rows for arrival model {model!r}")
    paper = PAPER_SECTION51[model]
    n = len(d)
    lo, hi = d.ratio_lo.to_numpy(float), d.ratio_hi.to_numpy(float)
    avg_lo, avg_hi = float(lo.mean()), float(hi.mean())
    se = math.sqrt(1.0 / n + 1.0 / PAPER_TRIALS)
    sd_lo = float(lo.std(ddof=1)) if n > 1 else 0.0
    sd_hi = float(hi.std(ddof=1)) if n > 1 else 0.0
    pa = float(paper["average"])
    out = dict(trials=n, paper=paper, avg_lo=avg_lo, avg_hi=avg_hi, worst_lo=float(lo.max()), worst_hi=float(hi.max()),
               best_lo=float(lo.min()), best_hi=float(hi.min()), matches_lo=int(d.match.sum()),
               matches_hi=int((~d.beaten).sum()))
    # the average
    where = position(pa, avg_lo, avg_hi)
    if where == "below":
        p = _phi((pa - avg_lo) / (sd_lo * se)) if sd_lo > 0 else 0.0
        refuted = p < SIGNIFICANCE
        out["average"] = (f"below our certified interval [{avg_lo:.3f}, {avg_hi:.3f}]; "
                          + (f"draws alone would put it there with probability {_fmt_p(p)}: refuted for Algorithm 1 "
                             "against true optima" if refuted else
                             f"draws alone would put it there with probability {_fmt_p(p)}, so sampling can explain "
                             "it: not refuted"))
    elif where == "above":
        p = _phi((avg_hi - pa) / (sd_hi * se)) if sd_hi > 0 else 0.0
        refuted = p < SIGNIFICANCE
        out["average"] = (f"above our certified interval [{avg_lo:.3f}, {avg_hi:.3f}]; draws alone would put it "
                          f"there with probability {_fmt_p(p)}" + (": refuted" if refuted else ": not refuted"))
    else:
        p, refuted = 1.0, False
        out["average"] = (f"inside our certified interval [{avg_lo:.3f}, {avg_hi:.3f}] (width "
                          f"{avg_hi - avg_lo:.3f}): consistent, not confirmed")
    out["p_avg"], out["average_refuted"] = p, refuted
    # the worst case
    pw = float(paper["worst"])
    above = int((np.round(lo, 3) > pw).sum())
    p_none = (1.0 - above / n) ** PAPER_TRIALS
    out["above_paper_worst"], out["p_worst"] = above, p_none
    out["worst_refuted"] = bool(above and p_none < SIGNIFICANCE)
    if above:
        out["worst"] = (f"our certified lower end exceeds it in {above} of {n} trials, so {PAPER_TRIALS} draws would "
                        f"all stay at or below it with probability {_fmt_p(p_none)}"
                        + (": refuted" if out["worst_refuted"] else ": unlikely but not refuted"))
    elif pw > round(out["worst_hi"], 3):
        out["worst"] = (f"above our certified worst case [{out['worst_lo']:.3f}, {out['worst_hi']:.3f}]: a paper "
                        "draw worse than all of ours, possible but not seen here")
    else:
        out["worst"] = (f"inside our certified worst case [{out['worst_lo']:.3f}, {out['worst_hi']:.3f}]: "
                        "consistent")
    # the best case
    pb = float(paper["best"])
    out["best"] = (f"inside our certified best case [{out['best_lo']:.3f}, {out['best_hi']:.3f}]: consistent"
                   if round(out["best_lo"], 3) <= pb <= round(out["best_hi"], 3) else
                   f"outside our certified best case [{out['best_lo']:.3f}, {out['best_hi']:.3f}]; a minimum over "
                   "other draws can differ: not a refutation by itself")
    # exact matches
    pm = str(paper["exact matches"])
    if out["matches_lo"] == out["matches_hi"] == 0:
        ours = f"a checked schedule beats MC-SF in every one of our {n} trials, so MC-SF equals OPT in none"
    elif out["matches_lo"] == out["matches_hi"]:
        ours = (f"MC-SF equals OPT in exactly {out['matches_lo']} of our {n} trials (proved there; a checked "
                "schedule beats it in the others)")
    else:
        ours = (f"MC-SF equals OPT in between {out['matches_lo']} (proved) and {out['matches_hi']} (not beaten by "
                f"any checked schedule) of our {n} trials")
    out["matches"] = (f"the paper reports no count; {ours}" if pm == "not reported" else
                      f"the paper reports {pm}; {ours}")
    return out


def mission_verdict(res, model: str) -> tuple[str, str]:
    """``(status, sentence)`` of the mission table's row for 001 Section 5.1, arrival model ``model``:
    ``"differs: erratum"`` when the paper's average or worst case is refuted (see :func:`verdicts`),
    else ``"not checked"`` (our intervals cannot confirm a number they contain)."""
    v = verdicts(res, model)
    refuted = [k for k in ("average", "worst") if v[f"{k}_refuted"]]
    status = "differs: erratum" if refuted else "not checked"
    sentence = (f"The paper's average ({v['paper']['average']:.3f}) lies {v['average']}; "
                f"the paper's worst ({v['paper']['worst']:.3f}): {v['worst']}; exact matches: {v['matches']}.")
    return status, sentence
