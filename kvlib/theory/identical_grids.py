"""Grids of identical-request instances for 001 Theorem 4.3's second part and our volume-LP route to the ratio 4.

The chapter "MC-SF's constant ratio" checks the ratio 4 for ``n`` identical requests ``(s, o)``
at ``t = 0`` on four grids; each grid is one function here, returning a
:class:`pandas.DataFrame` with one row per case.  The quantities come from
:mod:`kvlib.theory.ratio` (batch closed form, staggering criterion, LP (9) value, our dual
D(T*) and rho); MC-SF is simulated and its schedule checked by
:func:`kvlib.core.checker.check_schedule`.

* :func:`exact_grid`: every ``M <= M_max``, ``s`` in ``s_values``, every ``o <= M - s``, ``n <= n_max``;
* :func:`dense_grid`: larger ``M``, a few ``s, o`` and ``n = q M`` (the LP-based ratio);
* :func:`batch_dual_grid`: our Lemma V.2's batch bound over the dual, ``sup_n U / D(T*)``, by closed forms;
* :func:`open_region`: the case ``rho > 3`` (one request per batch, staggering), MC-SF simulated.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np
import pandas as pd

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance
from kvlib.core.simulate import simulate
from kvlib.policies import make_policy
from kvlib.theory.ratio import (identical_batch_tel, identical_dual, identical_lp_value, identical_ratio_table,
                                identical_rho, identical_stagger_possible)


def mcsf_identical_tel(n: int, s: int, o: int, M: int) -> int:
    """MC-SF's TEL on ``n`` identical requests ``(s, o)`` at 0 (simulated; schedule checked)."""
    inst = Instance.at_zero([s] * n, [o] * n, M)
    res = simulate(inst, make_policy("mc-sf"))
    check_schedule(inst, res.schedule).raise_if_invalid()
    return int(res.tel)


def exact_grid(M_max: int, n_max: int, s_values: Sequence[int] = (1, 2, 3), M_min: int = 4,
               batch_formula: Optional[Callable[[int, int, int, int], int]] = None) -> pd.DataFrame:
    """Rows ``M, s, o, n, mcsf, batch, stagger, LP`` for ``M_min <= M <= M_max``, ``s`` in ``s_values``,
    ``1 <= o <= M - s``, ``1 <= n <= n_max`` (in that nesting order).

    ``batch`` is :func:`kvlib.theory.ratio.identical_batch_tel`; if ``batch_formula(n, s, o, M)`` is given
    (e.g. the chapter's SymPy sum) it must agree on every case, else ``AssertionError`` names the case.
    """
    rows = []
    for M in range(M_min, M_max + 1):
        for s in s_values:
            for o in range(1, M - s + 1):
                for n in range(1, n_max + 1):
                    batch = identical_batch_tel(n, s, o, M)
                    if batch_formula is not None and batch_formula(n, s, o, M) != batch:
                        raise AssertionError(f"batch formula differs at n={n}, s={s}, o={o}, M={M}")
                    rows.append({"M": M, "s": s, "o": o, "n": n, "mcsf": mcsf_identical_tel(n, s, o, M),
                                 "batch": batch, "stagger": identical_stagger_possible(s, o, M),
                                 "LP": identical_lp_value(n, s, o, M)})
    return pd.DataFrame(rows)


def dense_grid(memories: Sequence[int], s_values: Sequence[int] = (1, 2, 5, 10),
               q_values: Sequence[float] = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)) -> pd.DataFrame:
    """Rows ``M, s, o, q, n, tel, ratio_lp`` (MC-SF TEL / LP (9)) for ``o`` in ``{1, 2, 3, 5, 8, 13, 21,
    (M-s)//2, M-s}`` and ``n = max(1, round(q M))``; TEL by the batch form where MC-SF cannot stagger
    (exact there), else simulated."""
    rows = []
    for M in memories:
        for s in s_values:
            for o in sorted({1, 2, 3, 5, 8, 13, 21, (M - s) // 2, M - s} - {0}):
                if s + o > M:
                    continue
                for qn in q_values:
                    n = max(1, int(round(qn * M)))
                    tel = (identical_batch_tel(n, s, o, M) if not identical_stagger_possible(s, o, M)
                           else mcsf_identical_tel(n, s, o, M))
                    rows.append({"M": M, "s": s, "o": o, "q": qn, "n": n, "tel": tel,
                                 "ratio_lp": tel / identical_lp_value(n, s, o, M)})
    return pd.DataFrame(rows)


def batch_dual_grid(s_values: Sequence[int], o_max: int, n_small: int = 120,
                    q_grid: Optional[np.ndarray] = None) -> tuple[pd.DataFrame, int]:
    """Our Lemma V.2 by closed forms: for ``s`` in ``s_values``, 40 geometric ``o`` in ``1..o_max``, twelve ``M``
    around multiples of ``m = s + o``, and ``n`` in ``1..n_small`` plus ``round(q M)`` for ``q`` in ``q_grid``
    (default 60 geometric values in ``[1e-4, 4]``): the worst ``U / D(T*)`` over ``n``.

    Returns ``(table, points)``; rows ``s, o, M, k, rho, stagger, n_worst, q_worst, U/D, U/D at q >= 1``;
    ``points`` is the number of ``(s, o, M, n)`` combinations the grid stands for, ``rows * (n_small + len(q_grid))``.
    """
    o_grid = np.unique(np.round(np.geomspace(1, o_max, 40)).astype(np.int64))
    q_grid = np.geomspace(1e-4, 4.0, 60) if q_grid is None else np.asarray(q_grid, float)
    recs = []
    for s in np.asarray(s_values, dtype=np.int64):
        for o in o_grid:
            m = int(s + o)
            for M in sorted({m, m + 1, m + int(s), m + int(s) + 1, 2 * m - 1, 2 * m, 2 * m + 1, 3 * m - 1, 3 * m,
                             5 * m - 1, 10 * m - 1, 40 * m}):
                n = np.unique(np.r_[np.arange(1, n_small + 1), np.maximum(1, np.round(q_grid * M)).astype(np.int64)])
                U, D, rho = identical_ratio_table(s, o, M, n)
                i = int(np.argmax(U / D))
                recs.append({"s": int(s), "o": int(o), "M": M, "k": M // m, "rho": float(rho[0]),
                             "stagger": M % m > s, "n_worst": int(n[i]), "q_worst": float(n[i] / M),
                             "U/D": float(U[i] / D[i]),
                             "U/D at q >= 1": float((U / D)[n >= M].max()) if (n >= M).any() else np.nan})
    return pd.DataFrame(recs), len(recs) * (n_small + len(q_grid))


def open_region(outputs: Sequence[int], ns: Sequence[int], s_values: Sequence[int] = (1, 2)) -> pd.DataFrame:
    """The region our Lemma V.2 leaves open (``rho > 3``): ``M`` in ``{2m-1, 2m-2, floor(7m/4)}`` with
    ``m = s + o``, cases with ``rho <= 3`` skipped; rows ``s, o, M, n, rho, MC-SF / D, U / D``."""
    rows = []
    for s in s_values:
        for o in outputs:
            m = s + o
            for M in (2 * m - 1, 2 * m - 2, (7 * m) // 4):
                if identical_rho(s, o, M) <= 3:
                    continue
                for n in ns:
                    d = float(identical_dual(n, s, o, M).value)
                    rows.append({"s": s, "o": o, "M": M, "n": n, "rho": float(identical_rho(s, o, M)),
                                 "MC-SF / D": mcsf_identical_tel(n, s, o, M) / d,
                                 "U / D": identical_batch_tel(n, s, o, M) / d})
    return pd.DataFrame(rows)
