"""Figures of the chapter "Real-trace experiments in continuous time" (notebooks/realtrace.py).

Each function draws one figure of the page from frames the chapter already holds (stored rows, the
batch-time model, live memory traces) and returns the Matplotlib figure, laid out and not yet shown; the
chapter glues it (:func:`kvlib.book.gluing.glue_figure`).  The numbers the prose quotes from the same
data are computed in :mod:`kvlib.book.chapters.realtrace.values`, not here.
"""

from __future__ import annotations

import numpy as np

#: Legend and tick-label size (pt): at least 8 px once the page scales a figure to its column.
FONT = 10

__all__ = ["batchtime_figure", "fig3_curves", "fig3_figure", "memory_figure", "sweep_curve", "sweeps_figure",
           "mixed002_figure", "SOURCES", "STATISTICS", "per_source_figure", "intervals003_figure"]


def batchtime_figure(model, shared=None):
    """The batch-time model in three panels: the per-layer time of the non-attention operators (fit f, with
    Vidur's profile points when ``shared`` holds the profile files), decode-only batches, and batches with
    one prefill."""
    import matplotlib.pyplot as plt

    from kvlib.serving.batchtime import profile_points

    fig, ax = plt.subplots(1, 3, figsize=(10, 3.8))
    T = np.arange(1, 4097)
    if shared and (shared / "a100_llama2_70b_mlp.csv").exists():
        Tm, ym = profile_points(shared)
        ax[0].plot(Tm, ym, ".", ms=3, label="Vidur profile (median)")
    ax[0].plot(T, model.base.layer_linear_ms(T), "-", label="fit f(T)")
    ax[0].set(xscale="log", yscale="log", xlabel="tokens in batch T", ylabel="ms per layer",
              title="non-attention operators")
    ax[0].legend(fontsize=FONT)
    D = np.arange(1, 401)
    for kv_per in (100, 500, 2000):
        ax[1].plot(D, model.batch_ms(0, D, D * kv_per), label=f"{kv_per} cached / request")
    ax[1].set(xlabel="decode requests D", ylabel="ms per batch", title="decode-only batches")
    ax[1].legend(fontsize=FONT)
    Pp = np.arange(0, 4001, 50)
    for d in (0, 50, 150):
        ax[2].plot(Pp, model.batch_ms(Pp, d, d * 200, Pp**2), label=f"P + {d} decodes")
    ax[2].set(xlabel="prefill tokens P", ylabel="ms per batch", title="batches with a prefill")
    ax[2].legend(fontsize=FONT)
    for a_ in ax:
        a_.tick_params(labelsize=FONT)
    fig.tight_layout()
    return fig


def fig3_curves(F3, rate, order):
    """Mean average latency at ``rate`` per number of requests (index) and configuration (columns, in
    ``order``; configurations without a row are left out)."""
    sub = F3[F3.rate == rate].groupby(["name", "n"])["avg_latency"].mean().unstack(0)
    return sub[[c for c in order if c in sub.columns]]


def fig3_figure(F3, rates, order):
    """001 Figure 3: average latency against the number of requests, one panel per rate."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(9, 4.2), sharey=False)
    for j, r in enumerate(rates):
        sub = fig3_curves(F3, r, order)
        for c in sub.columns:
            y = sub[c].dropna()
            top = c == "MC-SF"  # drawn last and thicker: the benchmarks' curves lie on it at small sizes
            ax[j].plot(y.index, y.values, "o-", label=c, zorder=4 if top else 2, lw=2.4 if top else 1.2,
                       ms=5 if top else 3.5, color="k" if top else None)
        ax[j].set(title=f"λ = {r:g}/s", xlabel="number of requests", ylabel="average latency (s)")
        ax[j].tick_params(labelsize=FONT)
    seen = {}  # one legend for both panels, every configuration drawn in either, in ``order``
    for a_ in ax:
        for h, lab in zip(*a_.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    labels = [c for c in order if c in seen]
    fig.legend([seen[c] for c in labels], labels, loc="lower center", ncol=4, fontsize=FONT, frameon=False)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    return fig


def memory_figure(mem, memory: int):
    """KV tokens held over time, one panel per run of ``mem`` (rows of ``run_specs`` with ``keep_trace``),
    with the capacity ``memory`` dotted."""
    import matplotlib.pyplot as plt

    from kvlib.book.chapters.realtrace.rows import paper_name

    fig, axs = plt.subplots(2, 2, figsize=(9, 4.0), sharey=True)
    ax = axs.ravel()
    for a_, (_, r) in zip(ax, mem.iterrows()):
        ts, held = r["trace"]
        a_.plot(ts, held, lw=0.6)
        a_.axhline(memory, color="k", ls=":", lw=0.8)
        a_.set(title=paper_name(r["policy"], r["opts"].get("alpha"), r["opts"].get("beta")) + f", λ = {r['rate']:g}/s"
               + ("" if r["completed"] else "\nendless clearing: stopped"),
               xlabel="time (s)")
    ax[0].set_ylabel("KV tokens held")
    ax[2].set_ylabel("KV tokens held")
    for a_ in ax:
        a_.tick_params(labelsize=FONT)
    fig.tight_layout()
    return fig


def _all_or_nan(v):
    """Mean latency of a point, NaN (not drawn) if any of its runs was stopped as an endless loop."""
    return float(v.mean()) if len(v) and v.notna().all() else float("nan")


def sweep_curve(d, swept: str, fixed_value: float, grid):
    """Mean latency per grid point of the sweep of ``swept`` ("alpha" or "beta") at the other parameter's
    ``fixed_value``, NaN where a run of the point was stopped as an endless loop."""
    other = "beta" if swept == "alpha" else "alpha"
    return d[(d[other] == fixed_value) & d[swept].isin(grid)].groupby(swept)["avg_latency"].agg(_all_or_nan)


def sweeps_figure(SW, rates, alphas, betas, fixed):
    """001 Figures 7-8 and 10-11: latency of alpha-protection beta-clearing against alpha (left) and beta
    (right), one row per rate, one curve per ``fixed`` value of the other parameter."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(2, 2, figsize=(9, 6.0))
    for j, r in enumerate(rates):
        d = SW[SW.rate == r] if len(SW) else SW
        for b in fixed:
            e = sweep_curve(d, "alpha", b, alphas)
            ax[j, 0].plot(e.index, e.values, "o-", label=f"β = {b:g}")
        for a in fixed:
            e = sweep_curve(d, "beta", a, betas)
            ax[j, 1].plot(e.index, e.values, "o-", label=f"α = {a:g}")
        ax[j, 0].set(xlabel="α", ylabel="average latency (s)",
                     title=f"α sweep, λ = {r:g}/s (001 Fig. {7 if j == 0 else 10})")
        ax[j, 1].set(xlabel="β", ylabel="average latency (s)",
                     title=f"β sweep, λ = {r:g}/s (001 Fig. {8 if j == 0 else 11})")
    for a_ in ax.ravel():
        a_.legend(fontsize=FONT)
        a_.tick_params(labelsize=FONT)
    fig.tight_layout()
    return fig


def mixed002_figure(M2, order, column: str, ylabel: str, *, height: float = 3.2, log: bool = False):
    """One curve per scheduler of ``order`` (names in ``M2``): ``column`` against the number of requests
    (002 Figure 8 with ``avg_latency``, the scheduler times with ``scheduler_s`` and ``log=True``)."""
    import matplotlib.pyplot as plt

    from kvlib.book.chapters.realtrace.page import policy_display

    fig, ax = plt.subplots(figsize=(7, height))
    for nm in order:
        d = M2[M2.name == nm]
        ax.plot(d.n, d[column], "o-", label=policy_display(nm))
    if log:
        ax.set(xlabel="number of requests", ylabel=ylabel, yscale="log")
    else:
        ax.set(xlabel="number of requests", ylabel=ylabel)
    ax.legend(fontsize=FONT, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.tick_params(labelsize=FONT)
    fig.tight_layout()
    return fig


#: The sources of the mixed 002 workload: (shown name, column prefix of the stored rows).
SOURCES = (("LMSYS-like", "lmsys"), ("arXiv", "arxiv"))
#: The per-request latency statistics stored per source.
STATISTICS = ("mean", "median", "p90")


def per_source_figure(big, n: int):
    """Mean, median and 90th percentile of the per-request latency, by source (one panel each), one bar per
    scheduler (rows of ``big``, indexed by name) at ``n`` requests."""
    import matplotlib.pyplot as plt

    from kvlib.book.chapters.realtrace.page import policy_display

    fig, ax = plt.subplots(1, 2, figsize=(8, 3.6), sharey=True)
    xs = np.arange(len(STATISTICS))
    for j, (src, tag) in enumerate(SOURCES):
        wd = 0.8 / max(len(big), 1)
        for i, (nm, r) in enumerate(big.iterrows()):
            ax[j].bar(xs + i * wd, [r[f"{tag}_{st}"] for st in STATISTICS], wd, label=policy_display(nm))
        ax[j].set_xticks(xs + 0.4 - wd / 2, STATISTICS)
        ax[j].set(title=f"{src} requests ({int(big.iloc[0][f'{tag}_count'])} of {n})")
        ax[j].tick_params(labelsize=FONT)
    ax[0].set_ylabel("latency (s)")
    ax[1].legend(fontsize=FONT, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def intervals003_figure(M3):
    """003 Figures 5-7: average latency of each policy against the number of requests, one panel per
    prediction (``M3`` with ``pred`` as shown)."""
    import matplotlib.pyplot as plt

    from kvlib.book.chapters.realtrace.page import policy_math

    fig, axs = plt.subplots(2, 3, figsize=(10, 5.6))
    ax = axs.ravel()
    ax[-1].axis("off")
    for a_, (pr, d) in zip(ax, M3.groupby("pred", sort=False)):
        for p, e in d.groupby("policy"):
            a_.plot(e.n, e.avg_latency, "o-", label=policy_math(p))
        a_.set(title=f"prediction {pr}", xlabel="requests", ylabel="average latency (s)")
        a_.tick_params(labelsize=FONT)
    handles, labels = ax[0].get_legend_handles_labels()
    ax[-1].legend(handles, labels, loc="center", fontsize=FONT + 1, title="policy")
    fig.tight_layout()
    return fig
