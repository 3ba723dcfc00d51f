"""The figures of the chapter ``mcsf_ratio`` (MC-SF's constant ratio).

Each function draws one glued figure from frames the chapter already holds and returns the
Matplotlib figure (the chapter glues and closes it with :func:`kvlib.book.gluing.glue_figure`):

* :func:`looseness_figure` (``fig_loose``) -- how loose Lemma 4.4 and the lower bounds are on the
  random instances, and MC-SF / OPT;
* :func:`identical_figure` (``fig_ident``) -- identical requests: MC-SF / OPT on the exact grid,
  MC-SF / our LP on the dense grid;
* :func:`batch_dual_figure` (``fig_b3``) -- our volume-LP route: batch bound over the dual against rho,
  and the open region simulated;
* :func:`timing_figure` (``fig_time``) -- MC-SF's decision times against M and the queue length;
* :func:`regret_opt_figure` (``fig_regret_opt``) and :func:`regret_figure` (``fig_regret``) -- the
  regret against the certified optimum, and the gap to a lower bound under Poisson arrivals.

Matplotlib is imported inside the functions (importing the module stays cheap).
"""

from __future__ import annotations

__all__ = ["looseness_figure", "identical_figure", "batch_dual_figure", "timing_figure", "regret_opt_figure",
           "regret_figure"]


def _plt():
    import matplotlib.pyplot as plt

    return plt


def looseness_figure(df):
    """Three panels over the random instances (:func:`kvlib.book.chapters.mcsf_ratio.values.chain_ratios`):
    Lemma 4.4's bound / MC-SF against OPT, OPT over LB2 and over OS against OPT, and a histogram of
    MC-SF / OPT (against the certified lower end of OPT)."""
    fig, axes = _plt().subplots(1, 3, figsize=(11, 2.9))
    axes[0].scatter(df.opt_upper, df.L44_loose, s=12)
    axes[0].set(xscale="log", yscale="log", xlabel="OPT", ylabel="Lemma 4.4 bound / MC-SF",
                title="Lemma 4.4 looseness")
    axes[1].scatter(df.opt_upper, df.L47_loose, s=12, label="OPT / LB₂ (ours)")
    axes[1].scatter(df.opt_upper, df.OS_loose, s=12, label="OPT / OS")
    axes[1].set(xscale="log", xlabel="OPT", ylabel="ratio", title="lower bounds")
    axes[1].legend(fontsize=10)
    axes[2].hist(df.ratio_ub, bins=20)
    axes[2].set(xlabel="MC-SF / OPT (certified lower bound)", ylabel="instances", title="MC-SF / OPT")
    fig.tight_layout()
    return fig


def identical_figure(idf, ddf):
    """Left: MC-SF / certified OPT against the load ``n(s + o)/M`` on the exact grid ``idf``
    (:func:`kvlib.book.chapters.mcsf_ratio.values.identical_frame`); right: MC-SF / our LP against ``o/M`` on the
    dense grid ``ddf``, one series per load ``q``; the paper's ratio 4 dashed."""
    fig, ax = _plt().subplots(1, 2, figsize=(10, 3.0))
    ax[0].scatter(idf.n * (idf.s + idf.o) / idf.M, idf.ratio_opt, s=8)
    ax[0].axhline(4, color="r", ls="--", label="paper's ratio 4")
    ax[0].set(xlabel="n (s + o) / M", ylabel="MC-SF / OPT", title="identical requests, certified OPT")
    ax[0].legend(fontsize=10)
    for qn, grp in ddf.groupby("q"):
        ax[1].scatter(grp.o / grp.M, grp.ratio_lp, s=8, label=f"q = {qn}")
    ax[1].axhline(4, color="r", ls="--")
    ax[1].set(xscale="log", xlabel="o / M", ylabel="MC-SF / our LP", title="dense grid (upper bound on ratio)")
    ax[1].legend(fontsize=10)
    fig.tight_layout()
    return fig


def batch_dual_figure(b3, sdf3):
    """Left: the largest batch bound over our dual per ``(s, o, M)`` of the closed-form grid ``b3``
    (:func:`kvlib.theory.identical_grids.batch_dual_grid`) against rho, by ``k``; right: the open region
    ``sdf3`` (:func:`kvlib.book.chapters.mcsf_ratio.rows.open_region_row` rows), batch bound and MC-SF over the dual."""
    fig, ax = _plt().subplots(1, 2, figsize=(10, 3.0))
    for lab, grp in (("k = 1", b3[b3.k == 1]), ("k = 2", b3[b3.k == 2]), ("k >= 3", b3[b3.k >= 3])):
        ax[0].scatter(grp.rho, grp["U/D"], s=6, label=lab)
    ax[0].axhline(4, color="r", ls="--", label="4")
    ax[0].axvline(3, color="k", ls=":", lw=1)
    ax[0].set(xlabel=r"$\rho = oM/(k\,\mathrm{vol}_o)$", ylabel=r"$\sup_n U / D(T^*)$", title="batch bound / dual")
    ax[0].legend(fontsize=10)
    ax[1].scatter(sdf3.n, sdf3["U / D"], s=8, label="U / D (batch bound)")
    ax[1].scatter(sdf3.n, sdf3["MC-SF / D"], s=8, label="MC-SF / D (simulated)")
    ax[1].axhline(4, color="r", ls="--")
    ax[1].set(xlabel="n", ylabel="ratio to the dual", title=r"$k = 1$ with staggering, $\rho > 3$")
    ax[1].legend(fontsize=10)
    fig.tight_layout()
    return fig


def timing_figure(rows):
    """Left: mean and largest decision time against ``M`` (log-log, with a slope-2 line through the first
    point); right: every decision time against the number of waiting requests, one series per ``M``.
    ``rows`` are :func:`kvlib.book.chapters.mcsf_ratio.values.timing_rows`."""
    import pandas as pd

    tdf = pd.DataFrame(rows)
    fig, ax = _plt().subplots(1, 2, figsize=(10, 2.9))
    ax[0].loglog(tdf.M, tdf["mean us"], "o-", label="mean")
    ax[0].loglog(tdf.M, tdf["max us"], "s-", label="max")
    ax[0].loglog(tdf.M, tdf["mean us"].iloc[0] * (tdf.M / tdf.M.iloc[0]) ** 2, "k--", label="slope 2 (M^2)")
    ax[0].set(xlabel="M", ylabel="decision time (us)")
    ax[0].legend(fontsize=10)
    for r in rows:
        ax[1].scatter(r["waiting"], 1e6 * r["times"], s=3, label=f"M = {r['M']}")
    ax[1].set(xlabel="waiting requests", ylabel="decision time (us)", yscale="log")
    ax[1].legend(fontsize=10, loc="upper left")
    fig.tight_layout()
    return fig


def regret_opt_figure(ro_sum):
    """The regret ``(TEL - OPT)/n`` against the horizon per regime, its certified interval shaded
    (:func:`kvlib.book.chapters.mcsf_ratio.values.regret_opt_summary`)."""
    fig, ax = _plt().subplots(figsize=(6, 2.8))
    for reg, grp in ro_sum.groupby("regime", sort=False):
        ax.fill_between(grp["T"], grp.regret_lo, grp.regret_hi, alpha=0.3)
        ax.plot(grp["T"], grp.regret_lo, "o-", label=f"{reg}")
    ax.set(xscale="log", xlabel="horizon T (rounds)", ylabel="(MC-SF - OPT) / n", title="regret, certified OPT")
    ax.legend(fontsize=10)
    fig.tight_layout()
    return fig


def regret_figure(rdf):
    """MC-SF's average latency minus the lower bound's against the horizon, one line per load
    (:func:`kvlib.book.chapters.mcsf_ratio.values.regret_summary`)."""
    fig, ax = _plt().subplots(figsize=(6, 2.8))
    for load, grp in rdf.groupby("load"):
        ax.plot(grp["T"], grp["gap"], "o-", label=f"load {load}")
    ax.set(xscale="log", yscale="log", xlabel="horizon T", ylabel="avg latency: MC-SF - lower bound")
    ax.legend(fontsize=10)
    fig.tight_layout()
    return fig
