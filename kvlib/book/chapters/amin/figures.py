"""Figures of the A_min chapter (notebooks/amin.py; 003, Chen, Ye and Zhou) and the numbers behind them.

Each ``*_figure`` function draws one figure of the page from values the chapter computed or read from
its stored tables and returns the Matplotlib figure (the chapter glues and closes it,
:func:`kvlib.book.gluing.glue_figure`):

* :func:`theorem1_figure`: A_max's worst simulated ratio against 003 Theorem 1's bound and Theorem 2's
  limit (``fig-amin-thm1``);
* :func:`figure1_figure`: 003 Figure 1, the largest generalized eigenvalue of Corollary 1's pair against
  ``u`` with two log fits (:func:`figure1_fits`) and ``H_u`` (``fig-amin-fig1``); :func:`figure1_table`,
  :func:`figure1_facts` and :func:`simplex_comparison` give its table and glued numbers;
* :func:`figure2_figure`: 003 Figure 2's bounds beside the simulated A_l and A_min (``fig-amin-fig2``);
* :func:`geometric_figure`: 003 Figure 3's quotients (``fig-amin-geo``), from
  :func:`kvlib.book.chapters.amin.algebra.geometric_quotients`.

Matplotlib and SciPy's optimiser are imported inside the functions (importing this module is cheap).
"""

from __future__ import annotations

import numpy as np

from kvlib.theory import rayleigh as ry

__all__ = ["theorem1_figure", "PAPER_FIT", "log_curve", "figure1_fits", "figure1_figure", "figure1_table",
           "figure1_facts", "simplex_comparison", "figure2_figure", "geometric_figure"]

#: 003's fit of its Figure 1, ``a log(u + b) + c``.
PAPER_FIT = (0.2555, 0.2793, 1.1587)


def theorem1_figure(alphas, worst):
    """A_max's ratio to H-SF against ``u/l = 1/alpha``: 003 Theorem 1's bound, Theorem 2's limit, our
    synchronous-batch limit (curves over ``alpha`` in ``[0.15, 1]``) and the worst simulated ratio
    ``worst[i]`` at ``alphas[i]`` (points)."""
    import matplotlib.pyplot as plt

    if len(alphas) != len(worst):
        raise ValueError(f"theorem1_figure: {len(alphas)} alphas but {len(worst)} worst ratios")
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ag = np.linspace(0.15, 1, 100)
    ax.plot(1 / ag, ry.amax_theorem1_bound(ag), label=r"Theorem 1 bound (paper's)")
    ax.plot(1 / ag, ry.amax_theorem2_ratio(ag), "--", label=r"Theorem 2 limit (paper's)")
    ax.plot(1 / ag, ry.thm2_batch_ratio_limit(ag), ":", label=r"synchronous-batch $\mathcal{A}_{\max}$ (ours)")
    ax.plot([1 / a for a in alphas], worst, "o", label=r"worst simulated $\mathcal{A}_{\max}$ / H-SF")
    ax.set_xlabel(r"$\alpha^{-1} = u/l$")
    ax.set_ylabel("ratio to H-SF")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def log_curve(u, a, b, c):
    """``a log(u + b) + c``, the form of 003's fit of Figure 1."""
    return a * np.log(u + b) + c


def figure1_fits(us, lam) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares fits of :func:`log_curve` to ``lam`` against ``us``: over all points (``b > -0.99``)
    and over ``u >= 10`` (``b > -9.9``), both started at 003's values."""
    from scipy.optimize import curve_fit

    us = np.asarray(us)
    lam = np.asarray(lam)
    big = us >= 10
    popt, _ = curve_fit(log_curve, us.astype(float), lam, p0=(0.25, 0.3, 1.1), bounds=([0, -0.99, -10], [10, 100, 10]))
    popt10, _ = curve_fit(log_curve, us[big].astype(float), lam[big], p0=(0.25, 0.3, 1.1),
                          bounds=([0, -9.9, -10], [10, 100, 10]))
    return popt, popt10


def _harmonic(us) -> np.ndarray:
    return np.array([np.sum(1.0 / np.arange(1, u + 1)) for u in us])


def figure1_figure(us, lam, popt):
    """003 Figure 1 recomputed: ``lam`` against ``us`` (log axis), our fit ``popt`` (:func:`figure1_fits`),
    003's fit :data:`PAPER_FIT` and ``H_u``."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    ax.semilogx(us, lam, "o", ms=4, label=r"$\lambda_{\max}(A_u,B_u)$ (Corollary 1)")
    ax.semilogx(us, log_curve(us, *popt), "-", label=f"our fit {popt[0]:.4f} log(u{popt[1]:+.4f}){popt[2]:+.4f}")
    ax.semilogx(us, log_curve(us, *PAPER_FIT), "--", label="paper's fit 0.2555 log(u+0.2793)+1.1587")
    ax.semilogx(us, _harmonic(us), ":", label=r"$H_u = \mathrm{tr}(B_u^{-1}A_u)$")
    ax.set_xlabel("u")
    ax.set_ylabel("ratio")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def figure1_table(us, lam, vmin):
    """The points of Figure 1 with reader-facing headers: ``u``, ``λₘₐₓ``, the paper's fit, ``H_u`` and
    the smallest entry of the maximising vector over its largest."""
    import pandas as pd

    return pd.DataFrame({"u": us, "λₘₐₓ": lam, "paper's fit": log_curve(us, *PAPER_FIT), "Hᵤ": _harmonic(us),
                         "min entry of v / max": vmin})


def figure1_facts(us, lam, vmin, popt, popt10) -> dict:
    """Glue of the Figure 1 section: both fits as text and ``R^2`` of the first, the values at the largest
    ``u`` (``fig1_umax``, ``fig1_lam_umax``, ``fig1_paper_umax``, ``fig1_H_umax``, ``fig1_loose`` = ``H_u``
    over the eigenvalue), the largest distance to the paper's fit for ``u >= 10``, ``u < 10`` and
    ``u >= 100``, and whether the maximising vectors are nonnegative (``fig1_nonneg``, ``fig1_minv``)."""
    us = np.asarray(us)
    lam = np.asarray(lam)
    if len(us) != len(lam) or len(us) != len(vmin) or not len(us):
        raise ValueError("figure1_facts: us, lam and vmin must be non-empty and of one length")
    paper = log_curve(us, *PAPER_FIT)
    Hu = _harmonic(us)
    big = us >= 10
    return {
        "fig1_fit": f"{popt[0]:.4f} log(u {popt[1]:+.4f}) {popt[2]:+.4f}",
        "fig1_r2": float(1 - np.sum((lam - log_curve(us, *popt)) ** 2) / np.sum((lam - lam.mean()) ** 2)),
        "fig1_fit10": f"{popt10[0]:.4f} log(u {popt10[1]:+.4f}) {popt10[2]:+.4f}",
        "fig1_lam_umax": float(lam[-1]), "fig1_paper_umax": float(paper[-1]), "fig1_H_umax": float(Hu[-1]),
        "fig1_umax": int(us[-1]),
        "fig1_dev10": float(np.max(np.abs(lam[big] - paper[big]))),
        "fig1_dev_small": float(np.max(np.abs(lam[~big] - paper[~big]))),
        "fig1_dev100": float(np.max(np.abs(lam[us >= 100] - paper[us >= 100]))),
        "fig1_nonneg": str(bool(min(vmin) >= -1e-10)), "fig1_minv": float(min(vmin)),
        "fig1_loose": float(Hu[-1] / lam[-1])}


def simplex_comparison(us=(5, 20, 80), iters: int = 300):
    """Per ``u`` in ``us``: the largest generalized eigenvalue of ``(A_u, B_u)``, the maximum of the
    quotient over ``x >= 0`` reached by ``ry.max_over_simplex`` (``iters`` steps from ``|v|``) and the
    smallest entry of the eigenvector ``v``, with reader-facing headers."""
    import pandas as pd

    rows = []
    for u in us:
        A, B = ry.A_matrix(u), ry.B_matrix(u)
        lv, v = ry.largest_generalized(A, B)
        mx, _ = ry.max_over_simplex(A, B, x0=np.abs(v), iters=iters)
        rows.append({"u": u, "λₘₐₓ": lv, "max over x ≥ 0": mx, "min entry of v": v.min()})
    return pd.DataFrame(rows)


def figure2_figure(worst, memories, astar):
    """003 Figure 2's bounds (Theorem 6's ``(3 - alpha)/2``, Theorem 7's bound, the threshold ``astar``)
    beside the worst simulated ratios of A_l and A_min per memory in ``memories`` (``worst`` as
    :func:`kvlib.theory.cyz_experiments.sweep_worst` returns it, indexed by ``(M, alpha)``)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for M in memories:
        sub = worst.loc[M]
        ax.plot(sub.index, sub["a-l"], "o-", label=rf"$\mathcal{{A}}_{{\ell}}$, M={M}")
        ax.plot(sub.index, sub["a-min"], "s:", label=rf"$\mathcal{{A}}_{{\min}}$, M={M}")
    ag = np.linspace(0.18, 0.75, 200)
    ax.plot(ag, ry.theorem6_bound(ag), "k--", lw=1, label=r"$(3-\alpha)/2$ (paper's Thm 6, $\mathcal{A}_{\min}$)")
    ax.plot(ag, ry.theorem7_bound(ag), "k-.", lw=1, label=r"paper's Thm 7 bound ($\mathcal{A}_{\ell}$)")
    ax.axvline(float(astar), c="grey", lw=0.8, ls=":")
    ax.set_xlabel(r"$\alpha = l/u$")
    ax.set_ylabel("worst simulated ratio to H-SF")
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig


def geometric_figure(curves: dict):
    """003 Figure 3 recomputed from the ``curves`` of :func:`kvlib.book.chapters.amin.algebra.geometric_quotients`:
    ``R(q)`` for ``G(p)`` and Theorem 8's formula for ``LG(p)`` (lines) against the truncated matrices
    (points), with the limit ``10 - 12 ln 2`` and the paper's bounds 1.7 and 14/9."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.0))
    ax.plot(curves["qgrid"], curves["R"], "-", label="closed form R(q), G(p)")
    ax.plot(curves["qs"], curves["geo"], "o", label="G(p), truncated matrices")
    ax.plot(curves["qgrid"], curves["LG"], "-", label="LG(p): paper's Thm 8 formula")
    ax.plot(curves["qs"], curves["lg_num"], "s", ms=4, label="LG(p), truncated matrices (u = 1500)")
    ax.axhline(curves["lim"], ls=":", c="k", label=r"$10-12\ln 2$ ($q\to1$)")
    ax.axhline(1.7, ls="--", c="r", label="1.7 (paper's Fig. 3 bound)")
    ax.axhline(14 / 9, ls="-.", c="g", label="14/9 (paper's Thm 8)")
    ax.set_xlabel("q")
    ax.set_ylabel("ratio")
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig
