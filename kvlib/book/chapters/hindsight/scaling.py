"""The summary table of ``benchmarks/exact_scaling.py`` as the hindsight chapter shows it.

Certified solves of 001 Section 5.1-style instances at fixed ``n``, several solvers, one time limit."""

from __future__ import annotations

import pandas as pd

REQUIRED = ("model", "n", "seed", "solver", "optimal", "gap", "seconds")


def _require(rows: pd.DataFrame, columns, what: str) -> None:
    """Raise ``ValueError`` naming the columns of ``columns`` that ``rows`` (``what`` rows) lack."""
    missing = [c for c in columns if c not in rows.columns]
    if missing:
        raise ValueError(f"{what} rows lack the column(s) {missing}")


def _cell(g: pd.DataFrame, counted: bool = False) -> str:
    """One solver's runs at one (model, n).  ``counted``: the row has runs on several seeds (of any
    solver), so even a single run is written as a count ("0/1 proved; gap ...") and a solver run on
    fewer seeds than the others says so instead of looking like a summary over all of them."""
    runs, proved = len(g), int(g.optimal.astype(bool).sum())
    if runs == 1 and counted:
        return (f"1/1 proved in {g.seconds.iloc[0]:.0f} s" if proved
                else f"0/1 proved; gap {100 * float(g.gap.iloc[0]):.1f}%")
    if runs == 1:
        return f"proved in {g.seconds.iloc[0]:.0f} s" if proved else f"{100 * float(g.gap.iloc[0]):.1f}%"
    if proved == runs:
        return f"{proved}/{runs} proved, median {g.seconds.median():.0f} s"
    gaps = 100 * g.gap.astype(float)
    return f"{proved}/{runs} proved; gap mean {gaps.mean():.1f}%, max {gaps.max():.1f}%"


def scaling_table(rows: pd.DataFrame, solvers: list[str]) -> pd.DataFrame:
    """One row per (arrival model, n), one column per solver (in the order given): with one seed, the time
    to proof or the final gap ``(upper - lower) / upper``; with several (column ``seeds``: seeds run by any
    solver), each cell counts its own runs ("k/N proved") with the median time to proof or the mean and
    max gap; "not run" where a solver has no row.  Raises ``ValueError`` naming a missing column."""
    _require(rows, REQUIRED, "exact-scaling")
    unknown = sorted(set(rows.solver) - set(solvers))
    if unknown:
        raise ValueError(f"exact-scaling rows name solver(s) {unknown} not among {solvers}")
    out = []
    for (model, n), g in rows.groupby(["model", "n"], sort=True):
        rec = {"arrival model": model, "n": int(n)}
        rec["seeds"] = int(g.seed.nunique())
        for s in solvers:
            gs = g[g.solver == s]
            rec[s] = _cell(gs, rec["seeds"] > 1) if len(gs) else "not run"
        out.append(rec)
    return pd.DataFrame(out, columns=["arrival model", "n", "seeds", *solvers])


def _outcome(r) -> str:
    if bool(r["optimal"]):
        return f"proved in {float(r['seconds']):.0f} s"
    return f"gap {100 * float(r['gap']):.1f}%"


def longer_limit_table(short: pd.DataFrame, long: pd.DataFrame, solver: str = "pipeline") -> pd.DataFrame:
    """The same instances solved with two time limits, one row per instance of ``long`` (rows of
    ``solver`` only): the outcome under each limit ("proved in X s" or the final gap), the certified
    TEL (``OPT = v`` or the interval ``[lower, upper]``) and MC-SF / OPT (a value when proved, else the
    interval ``[MC-SF / upper, MC-SF / lower]``) from the longer run.  The two outcome columns are
    named after the limits.  Raises ``ValueError`` naming a missing column or a mixed time limit."""
    need = (*REQUIRED, "lower", "upper", "mcsf", "time_limit")
    for name, rows in (("short", short), ("long", long)):
        _require(rows, need, f"{name} exact-scaling")
    short = short[short.solver == solver]
    long = long[long.solver == solver]
    limits = []
    for name, rows in (("short", short), ("long", long)):
        lim = sorted(set(float(x) for x in rows.time_limit))
        if len(lim) != 1:
            raise ValueError(f"{name} rows of {solver!r} must have one time limit, found {lim or 'none'}")
        limits.append(lim[0])
    if limits[0] >= limits[1]:
        raise ValueError(f"the long time limit ({limits[1]:g} s) must exceed the short one ({limits[0]:g} s)")
    cols = [f"{limits[0]:g} s", f"{limits[1]:g} s"]
    index = {(r.model, int(r.n), int(r.seed)): r for r in short.itertuples(index=False)}
    out = []
    for r in long.sort_values(["n", "model", "seed"]).to_dict("records"):
        s = index.get((r["model"], int(r["n"]), int(r["seed"])))
        lo, up, mcsf = int(r["lower"]), int(r["upper"]), int(r["mcsf"])
        out.append({"arrival model": r["model"], "n": int(r["n"]), "seed": int(r["seed"]),
                    cols[0]: _outcome(s._asdict()) if s is not None else "not run",
                    cols[1]: _outcome(r),
                    "certified TEL": f"OPT = {up}" if lo >= up else f"[{lo}, {up}]",
                    "MC-SF / OPT": f"{mcsf / up:.4f}" if lo >= up else f"[{mcsf / up:.4f}, {mcsf / max(lo, 1):.4f}]"})
    return pd.DataFrame(out, columns=["arrival model", "n", "seed", *cols, "certified TEL", "MC-SF / OPT"])


LP_REQUIRED = ("model", "n", "seed", "method", "budget", "bound", "separation_lb", "converged", "nonzeros")


def lp_method_pairs(rows: pd.DataFrame, methods=("full", "colgen")) -> pd.DataFrame:
    """``benchmarks/lp_colgen.py`` rows side by side: one row per (budget, ``n``, model, seed) run with both
    ``methods``, columns ``(quantity, method)`` for bound, separation bound, converged and non-zeros.
    Raises ``ValueError`` naming a missing column or method."""
    _require(rows, LP_REQUIRED, "LP-method")
    unknown = sorted(set(methods) - set(rows.method))
    if unknown:
        raise ValueError(f"LP-method rows have no run of method(s) {unknown}")
    wide = rows.pivot_table(index=["budget", "n", "model", "seed"], columns="method",
                            values=["bound", "separation_lb", "converged", "nonzeros"], aggfunc="first")
    return wide.dropna(subset=[("bound", m) for m in methods])


def lp_method_table(rows: pd.DataFrame, methods=("full", "colgen")) -> pd.DataFrame:
    """``benchmarks/lp_colgen.py`` summarised per (budget, ``n``): the same strengthened time-indexed LP solved
    whole (``full``) and by column generation (``colgen``) within the same budget, on instances run with both.
    Columns: instances, the non-zeros of the whole LP (median), per method ("whole" / "CG") how many runs
    converged and the mean bound above the separation bound (``bound / separation - 1``, in %; negative
    where the LP ended below it), then on how many instances column generation ended higher / equal /
    lower than the whole LP.  Raises ``ValueError`` naming a missing column or method."""
    a, b = methods
    wide = lp_method_pairs(rows, methods)
    out = []
    for (budget, n), g in wide.groupby(level=["budget", "n"], sort=True):
        sep = g[("separation_lb", a)].astype(float)
        ba, bb = g[("bound", a)].astype(float), g[("bound", b)].astype(float)
        out.append({
            "budget": f"{float(budget):g} s", "n": int(n), "instances": len(g),
            "non-zeros (median)": f"{g[('nonzeros', a)].astype(float).median():,.0f}",
            "converged: whole / CG": f"{int(g[('converged', a)].astype(bool).sum())} / "
                                     f"{int(g[('converged', b)].astype(bool).sum())}",
            "above separation: whole / CG": f"{100 * (ba / sep - 1).mean():+.1f}% / {100 * (bb / sep - 1).mean():+.1f}%",
            "CG vs whole: higher / equal / lower": f"{int((bb > ba).sum())} / {int((bb == ba).sum())} / "
                                                   f"{int((bb < ba).sum())}",
        })
    return pd.DataFrame(out)


LIFT_REQUIRED = ("model", "n", "seed", "conditional", "opt", "value", "status", "pairs", "seconds")
LIFT_LABELS = {"none": "LP", "completion": "lift at completions", "run": "lift at every round"}


def lift_table(rows: pd.DataFrame) -> pd.DataFrame:
    """``benchmarks/lp_lifted.py`` as one row per instance (``n``, arrival model, seed; in that order): the proved optimum, the
    strengthened LP over the same columns and each level-one lift (value, and in brackets the share of the
    LP's gap ``OPT - LP`` it closes), the LP's gap in % of ``OPT``, and the pair variables of the lift.  A lift
    that did not finish shows its solver status and time.  Instances without an LP row are left out.  Raises
    ``ValueError`` naming a missing column."""
    _require(rows, LIFT_REQUIRED, "lifted-LP")
    out = []
    for (n, model, seed), g in rows.groupby(["n", "model", "seed"], sort=True):
        by = {r.conditional: r for r in g.itertuples()}
        if "none" not in by or by["none"].status != "Optimal":
            continue
        base, opt = float(by["none"].value), int(by["none"].opt)
        row = {"model": model, "n": int(n), "seed": int(seed), "OPT": opt, "LP": f"{base:.2f}",
               "LP gap": f"{100 * (opt - base) / opt:.1f}%"}
        for c in ("completion", "run"):
            r = by.get(c)
            if r is None:
                row[LIFT_LABELS[c]] = "no result"
            elif r.status != "Optimal":
                row[LIFT_LABELS[c]] = f"{r.status.lower()} after {float(r.seconds):.0f} s"
            else:
                closed = (float(r.value) - base) / (opt - base) if opt > base else 0.0
                row[LIFT_LABELS[c]] = f"{float(r.value):.2f} ({100 * closed:.0f}%)"
        pairs = [int(r.pairs) for r in g.itertuples() if r.conditional != "none"]
        row["pairs"] = f"{max(pairs):,}" if pairs else "-"
        out.append(row)
    return pd.DataFrame(out)


def lift_closed(rows: pd.DataFrame, conditional: str) -> pd.DataFrame:
    """Per instance with both an LP and a solved ``conditional`` lift: ``n``, the LP's gap and the share of
    it the lift closes (fractions).  Raises ``ValueError`` naming a missing column or an unknown lift."""
    _require(rows, LIFT_REQUIRED, "lifted-LP")
    if conditional not in ("completion", "run"):
        raise ValueError(f"conditional must be 'completion' or 'run', got {conditional!r}")
    ok = rows[rows.status == "Optimal"]
    wide = ok.pivot_table(index=["model", "n", "seed"], columns="conditional", values=["value", "opt"],
                          aggfunc="first")
    if ("value", "none") not in wide or ("value", conditional) not in wide:
        return pd.DataFrame(columns=["n", "lp_gap", "closed"])
    wide = wide.dropna(subset=[("value", "none"), ("value", conditional)])
    opt = wide[("opt", "none")].astype(float)
    base = wide[("value", "none")].astype(float)
    lift = wide[("value", conditional)].astype(float)
    res = pd.DataFrame({"n": wide.index.get_level_values("n"), "lp_gap": ((opt - base) / opt).to_numpy(),
                        "closed": ((lift - base) / (opt - base).where(opt > base, 1.0)).to_numpy()})
    return res.reset_index(drop=True)


BEYOND_REQUIRED = ("model", "n", "seed", "ub", "ub_proved", "lp", "targets", "destructive", "bb", "bb_nodes",
                   "event_seconds", "bb_time_limit")


def _target_cell(targets, lp: int, limit: float) -> str:
    """What the destructive search of one instance proved above the LP (``benchmarks/beyond_lp.py``)."""
    if not targets:
        return "no target below the best TEL"
    proved = [t for t in targets if str(t["status"]).startswith("INFEASIBLE")]
    cell = f"+{100 * proved[-1]['fraction']:g}% ({proved[-1]['target']})" if proved else "nothing"
    open_ = [t for t in targets if not str(t["status"]).startswith("INFEASIBLE")]
    if open_:
        cell += f"; {open_[0]['target']} (+{100 * open_[0]['fraction']:g}%) open after {limit:g} s"
    return cell


def beyond_lp_table(rows: pd.DataFrame) -> pd.DataFrame:
    """``benchmarks/beyond_lp.py`` as one row per instance (``n``, arrival model, seed; in that order): the
    best TEL of any committed run (``OPT`` when proved), the LP bound and its gap in % of that TEL, the
    largest target ``T`` the event model proved (``OPT >= T``) and the first one it left open, HiGHS's
    branch-and-bound bound and its nodes, and (where run) the TEL of the long CP-SAT search.  Raises
    ``ValueError`` naming a missing column."""
    _require(rows, BEYOND_REQUIRED, "beyond-LP")
    out = []
    for r in rows.sort_values(["n", "model", "seed"]).itertuples():
        ub, lp = int(r.ub), int(r.lp)
        row = {"model": r.model, "n": int(r.n), "seed": int(r.seed),
               "best TEL": f"{ub} (optimal)" if bool(r.ub_proved) else str(ub), "LP": lp,
               "LP gap": f"{100 * (ub - lp) / ub:.1f}%",
               "event model above the LP": _target_cell(r.targets, lp, float(r.event_seconds)),
               f"B&B after {float(r.bb_time_limit):g} s": f"{int(r.bb)} (+{int(r.bb) - lp}; {int(r.bb_nodes)} nodes)"}
        if "upper_long" in rows.columns:
            row["long CP-SAT search"] = "-" if pd.isna(r.upper_long) else \
                f"{int(r.upper_long)} in {float(r.upper_time_limit):g} s"
        out.append(row)
    return pd.DataFrame(out)


def beyond_lp_counts(rows: pd.DataFrame) -> dict:
    """Counts of ``benchmarks/beyond_lp.py`` for the text: ``instances``; ``raised`` (instances where the
    event model proved some target above the LP) and ``raised_max`` (the largest such rise, in % of the LP);
    ``targets_open`` (instances where the first target stayed open); ``bb_raised`` (where branch and bound ended above the LP)
    and ``bb_max`` (its largest rise in % of the LP), ``bb_nodes_max`` (the most nodes it explored) and
    ``bb_root_only`` (instances where it ended without a node beyond the root);
    ``long_runs``, ``long_better`` and ``long_worse`` (long
    CP-SAT searches and how many ended below / above the best TEL).  Raises ``ValueError`` naming a missing
    column."""
    _require(rows, BEYOND_REQUIRED, "beyond-LP")
    lp = rows.lp.astype(float)
    rise = (rows.bb.astype(float) - lp) / lp
    dest = (rows.destructive.astype(float) - lp) / lp
    first_open = [bool(t) and not str(t[0]["status"]).startswith("INFEASIBLE") for t in rows.targets]
    out = {"instances": int(len(rows)), "raised": int((rows.destructive > rows.lp).sum()),
           "raised_max": float(100 * dest.max()) if len(rows) else 0.0, "targets_open": int(sum(first_open)),
           "bb_raised": int((rows.bb > rows.lp).sum()), "bb_max": float(100 * rise.max()) if len(rows) else 0.0,
           "bb_nodes_max": int(rows.bb_nodes.max()) if len(rows) else 0,
           "bb_root_only": int((rows.bb_nodes.astype(int) == 0).sum()),
           "long_runs": 0, "long_better": 0, "long_worse": 0}
    if "upper_long" in rows.columns:
        run = rows.dropna(subset=["upper_long"])
        out.update(long_runs=int(len(run)), long_better=int((run.upper_long < run.ub).sum()),
                   long_worse=int((run.upper_long > run.ub).sum()))
    return out


PAIRED_REQUIRED = ("model", "n", "seed", "lower", "upper", "optimal", "gap")


def paired_solver_table(first: pd.DataFrame, second: pd.DataFrame, labels: tuple[str, str]) -> pd.DataFrame:
    """Two solvers on the same instances (``model``, ``n``, ``seed``), one row per ``n``: instances, proved by
    each, mean gap of each (cells "first / second"), and on how many the second one's lower bound is higher /
    lower and its schedule better / worse.  Instances that only one of the two ran are left out.  Raises
    ``ValueError`` naming a missing column."""
    _require(first, PAIRED_REQUIRED, labels[0])
    _require(second, PAIRED_REQUIRED, labels[1])
    both = first.merge(second, on=["model", "n", "seed"], suffixes=("_a", "_b"))
    pair = f"{labels[0]} / {labels[1]}"
    out = []
    for n, g in both.groupby("n", sort=True):
        out.append({"n": int(n), "instances": int(len(g)),
                    f"proved ({pair})": f"{int(g.optimal_a.astype(bool).sum())} / {int(g.optimal_b.astype(bool).sum())}",
                    f"mean gap ({pair})": f"{100 * g.gap_a.mean():.1f}% / {100 * g.gap_b.mean():.1f}%",
                    f"{labels[1]}: lower bound higher / lower":
                        f"{int((g.lower_b > g.lower_a).sum())} / {int((g.lower_b < g.lower_a).sum())}",
                    f"{labels[1]}: schedule better / worse":
                        f"{int((g.upper_b < g.upper_a).sum())} / {int((g.upper_b > g.upper_a).sum())}"})
    return pd.DataFrame(out)
