"""Quadratic forms behind A_min's log-scale bound (003 Section 4, Lemma 2 - Corollary 1, Lemma 3).

We do not have 003's text; the matrices here are **our reconstruction**, each
labelled by how it was obtained:

``B_u`` (derived by us): the heavy-load fluid limit of H-SF's TEL.  Lengths
    ``k = 1..u`` (``l = 1``), fractions ``x_k`` of ``n`` requests, ``n/M -> oo``.
    With every request at ``t = 0`` and the look-ahead test, H-SF runs the
    ``k``-requests in synchronised batches of ``M/(s+k)`` every ``k`` rounds,
    i.e. ``w_k = k (s + k)`` memory-rounds per request.  Class ``k`` finishes
    between ``T_{k-1}`` and ``T_k = sum_{j<=k} n x_j w_j / M`` (uniformly), so
    ``TEL ~ (n^2/M) x^T B x`` with ``B_ij = w_{min(i,j)} / 2`` (cross terms
    ``2 b_ij = w_min``).  ``B`` is a "min-matrix", so ``B^-1`` is tridiagonal.
``A_u`` (a *candidate*, not derived): ``A_ij = (ij/2) g(ln i - ln j)`` with
    Lemma 3's kernel ``g(d) = 2 e^-|d| - e^-2|d|``, i.e. ``A_ij = m^2 - m^3/(2 M)``
    for ``m = min(i,j)``, ``M = max(i,j)``.  It has ``A_kk = B_kk`` (A_min is
    optimal on a single length) and is positive definite by Lemma 3's
    argument.  Whether it is 003's ``A_u`` is exactly what the chapter tests
    (it is not: ``tr(B^-1 A) != H_u``).  The chapter also *measures* ``A`` from
    simulations of :class:`kvlib.intervals.AMin`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import sympy as sp


def hsf_weights(u: int, s=0) -> np.ndarray:
    """``w_k = k (s + k)``, ``k = 1..u``: memory-rounds per request in H-SF's batches."""
    k = np.arange(1, u + 1, dtype=float)
    return k * (s + k)


def B_matrix(u: int, s=0) -> np.ndarray:
    """``B_ij = w_{min(i,j)} / 2`` (our fluid limit of H-SF's TEL, in units ``n^2/M``)."""
    w = hsf_weights(u, s)
    idx = np.arange(u)
    return w[np.minimum.outer(idx, idx)] / 2.0


def A_candidate(u: int) -> np.ndarray:
    """``A_ij = (ij/2) g(ln i - ln j)`` = ``m^2 - m^3/(2M)`` (candidate, ``s = 0``)."""
    k = np.arange(1, u + 1, dtype=float)
    m = np.minimum.outer(k, k)
    M = np.maximum.outer(k, k)
    return m**2 - m**3 / (2 * M)


def B_sym(u: int, s=0) -> sp.Matrix:
    """Exact ``B_u`` (SymPy rationals)."""
    return sp.Matrix(u, u, lambda i, j: sp.Rational((min(i, j) + 1) * (s + min(i, j) + 1), 2))


def A_sym(u: int) -> sp.Matrix:
    def entry(i, j):
        m, M = sp.Integer(min(i, j) + 1), sp.Integer(max(i, j) + 1)
        return m**2 - m**3 / (2 * M)

    return sp.Matrix(u, u, entry)


def B_inv_tridiagonal(u: int, s=0) -> sp.Matrix:
    """Closed form of ``B^-1``: with ``d_k = (w_k - w_{k-1})/2`` (``w_0 = 0``),
    ``(B^-1)_kk = 1/d_k + 1/d_{k+1}`` (last: ``1/d_u``), ``(B^-1)_{k,k+1} = -1/d_{k+1}``."""
    w = [sp.Integer(0)] + [sp.Integer(k) * (s + k) for k in range(1, u + 1)]
    d = [None] + [(w[k] - w[k - 1]) / 2 for k in range(1, u + 1)]
    Binv = sp.zeros(u, u)
    for k in range(1, u + 1):
        Binv[k - 1, k - 1] = 1 / d[k] + (1 / d[k + 1] if k < u else 0)
        if k < u:
            Binv[k - 1, k] = Binv[k, k - 1] = -1 / d[k + 1]
    return Binv


def trace_formula(u: int) -> sp.Rational:
    """``tr(B^-1 A)`` for the candidate via the tridiagonal form:
    ``1 + sum_{k=2}^u (3k - 2) / (k (2k - 1))`` (derived in the chapter)."""
    return 1 + sum(sp.Rational(3 * k - 2, k * (2 * k - 1)) for k in range(2, u + 1))


def B_inv_times_A_trace(u: int) -> float:
    """Numerical ``tr(B^-1 A)`` using the tridiagonal inverse (O(u), no solve)."""
    if u == 1:
        return 1.0
    k = np.arange(2, u + 1, dtype=float)
    return 1.0 + float(np.sum((3 * k - 2) / (k * (2 * k - 1))))


def largest_generalized(A: np.ndarray, B: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest ``lambda`` with ``A v = lambda B v`` and its vector (normalised, largest |entry| positive)."""
    u = A.shape[0]
    vals, vecs = sla.eigh(A, B, subset_by_index=[u - 1, u - 1])
    v = vecs[:, 0]
    if v[np.argmax(np.abs(v))] < 0:
        v = -v
    return float(vals[0]), v


def rayleigh(A: np.ndarray, B: np.ndarray, x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    return float(x @ A @ x / (x @ B @ x))


def max_over_simplex(A: np.ndarray, B: np.ndarray, x0: np.ndarray | None = None, iters: int = 2000) -> tuple[float, np.ndarray]:
    """``max_{x >= 0} x^T A x / x^T B x`` by a projected fixed-point (multiplicative) ascent.

    Used only to compare with the unconstrained eigenvalue; returns the best value found.
    """
    u = A.shape[0]
    x = np.full(u, 1.0 / u) if x0 is None else np.maximum(np.asarray(x0, float), 1e-12)
    best, bx = rayleigh(A, B, x), x.copy()
    for _ in range(iters):
        lam = rayleigh(A, B, x)
        Ax, Bx = A @ x, B @ x
        # multiplicative update keeps x >= 0; ratio > 1 where the gradient of the quotient is positive
        x = x * np.maximum(Ax, 1e-300) / np.maximum(lam * Bx, 1e-300)
        x /= x.sum()
        r = rayleigh(A, B, x)
        if r > best:
            best, bx = r, x.copy()
    return best, bx


def amax_theorem1_bound(alpha):
    """003 Theorem 1 (quoted in our issue): ``CR(A_max) <= alpha^-1 (1 + alpha^-1) / 2``."""
    return (1 / alpha) * (1 + 1 / alpha) / 2


def amax_theorem2_ratio(alpha):
    """003 Theorem 2 (quoted): the instance's ratio tends to ``alpha^-1 (1 + alpha^-1/2) / 2``."""
    return (1 / alpha) * (1 + alpha**-0.5) / 2
