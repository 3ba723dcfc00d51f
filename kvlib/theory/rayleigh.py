"""Quadratic forms behind A_min's log-scale bound (003 Section 4, Lemma 2 - Corollary 1, Lemma 3).

We do not have 003's text; the matrices here are **our reconstruction**, each
labelled by how it was obtained.  Lengths ``k = 1..u`` (``l = 1``), prompt
``s = 0`` (as in 003 Theorem 2), a fraction ``x_k`` of ``n`` requests has length
``k`` and ``n/M -> oo``; TELs are in units ``n^2/M``.

``B_u`` (derived by us, and matched by simulation): the heavy-load fluid limit
    of H-SF's TEL.  With every request at ``t = 0`` and the look-ahead test,
    H-SF runs the ``k``-requests in synchronised batches of ``M/(s+k)`` every
    ``k`` rounds, i.e. ``w_k = k (s + k)`` memory-rounds per request, so
    ``TEL ~ x^T B x`` with ``B_ij = w_{min(i,j)} / 2``.  ``B`` is a
    "min-matrix" ``sum_k (Δw_k/2) 1_{>=k} 1_{>=k}^T``, so
    ``B^-1 = D^T diag(2/Δw_k) D`` (``D`` the first-difference operator) is
    tridiagonal.
``A_u`` (reconstructed from quoted facts, *not* derived from A_min's dynamics):
    ``a_ij = m M / 4 + m^2 / 2 - m^3 / (4 M)`` with ``m = min(i,j)``,
    ``M = max(i,j)`` (``s = 0``), i.e. ``A = (1/4)(v v^T + V G V)`` with
    ``v = V 1 = (1..u)`` and ``G_ij = g(ln i - ln j)``, Lemma 3's kernel
    ``g(d) = 2 e^-|d| - e^-2|d|``.  It is the unique matrix of this shape with
    ``a_kk = b_kk`` (one length: A_min loses nothing, as our simulation shows)
    and whose two-point Rayleigh quotient is 003 Theorem 6's ``(3 - alpha)/2``;
    it then *also* satisfies ``tr(B_u^-1 A_u) = H_u`` for every ``u``, is
    positive definite by Lemma 3, and its largest generalized eigenvalue
    follows 003's Figure 1 fit - independent checks, made in the chapter.
``A_candidate`` (the previous session's guess ``m^2 - m^3/(2M)``) is kept for
    comparison only; it fails the trace identity.
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


def A_matrix(u: int) -> np.ndarray:
    """Reconstructed ``A_u``: ``a_ij = mM/4 + m^2/2 - m^3/(4M)`` (``s = 0``, our reconstruction)."""
    k = np.arange(1, u + 1, dtype=float)
    m = np.minimum.outer(k, k)
    M = np.maximum.outer(k, k)
    return m * M / 4 + m**2 / 2 - m**3 / (4 * M)


def A_candidate(u: int) -> np.ndarray:
    """The previous candidate ``m^2 - m^3/(2M)`` (fails ``tr(B^-1 A) = H_u``; comparison only)."""
    k = np.arange(1, u + 1, dtype=float)
    m = np.minimum.outer(k, k)
    M = np.maximum.outer(k, k)
    return m**2 - m**3 / (2 * M)


def lemma3_kernel(u: int) -> np.ndarray:
    """``G_ij = g(ln i - ln j)``, ``g(d) = 2 e^-|d| - e^-2|d|`` (003 Lemma 3)."""
    k = np.arange(1, u + 1, dtype=float)
    r = np.minimum.outer(k, k) / np.maximum.outer(k, k)  # e^{-|ln i - ln j|}
    return 2 * r - r**2


def a_entry(i, j):
    """Exact entry of the reconstructed ``A`` (SymPy-friendly: works on integers and symbols with i <= j)."""
    m, M = (i, j) if (not isinstance(i, (int, np.integer)) or i <= j) else (j, i)
    return m * M / sp.Integer(4) + m**2 / sp.Integer(2) - m**3 / (4 * M)


def trace_reconstructed(u: int) -> float:
    """``tr(B_u^-1 A_u)`` of the reconstructed pair in O(u) floats (per-length terms; ``s = 0``)."""
    k = np.arange(2, u + 1, dtype=float)
    f = lambda m, M: m * M / 4 + m**2 / 2 - m**3 / (4 * M)  # noqa: E731
    return 1.0 + float(np.sum(2 / (2 * k - 1) * (f(k, k) - 2 * f(k - 1, k) + f(k - 1, k - 1))))


def B_sym(u: int, s=0) -> sp.Matrix:
    """Exact ``B_u`` (SymPy rationals)."""
    return sp.Matrix(u, u, lambda i, j: sp.Rational((min(i, j) + 1) * (s + min(i, j) + 1), 2))


def A_sym(u: int) -> sp.Matrix:
    """Exact reconstructed ``A_u`` (SymPy rationals)."""
    return sp.Matrix(u, u, lambda i, j: a_entry(sp.Integer(min(i, j) + 1), sp.Integer(max(i, j) + 1)))


def A_candidate_sym(u: int) -> sp.Matrix:
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


def second_differences(A: np.ndarray) -> np.ndarray:
    """``A_kk - 2 A_{k,k-1} + A_{k-1,k-1}`` for ``k = 1..u`` (``A_{0,*} = 0``)."""
    dg = np.diag(A).astype(float)
    sub = np.concatenate([[0.0], np.diag(A, -1)])
    prev = np.concatenate([[0.0], dg[:-1]])
    return dg - 2 * sub + prev


def trace_Binv_A(A: np.ndarray, s=0) -> float:
    """``tr(B^-1 A) = sum_k (2/Δw_k)(A_kk - 2A_{k,k-1} + A_{k-1,k-1})`` (tridiagonal ``B^-1``; O(u))."""
    u = A.shape[0]
    w = np.concatenate([[0.0], hsf_weights(u, s)])
    return float(np.sum(2.0 / np.diff(w) * second_differences(A)))


def trace_terms_sym(u: int) -> list:
    """Exact per-length terms ``(2/Δw_k)(a_kk - 2a_{k,k-1} + a_{k-1,k-1})`` of ``tr(B^-1 A)`` (``s = 0``)."""
    out = []
    for k in range(1, u + 1):
        K = sp.Integer(k)
        dd = a_entry(K, K) - (2 * a_entry(K - 1, K) - a_entry(K - 1, K - 1) if k > 1 else 0)
        out.append(sp.nsimplify(2 / (2 * K - 1) * dd))
    return out


def whitened(A: np.ndarray, s=0) -> np.ndarray:
    """``C^-1 A C^-T`` with ``B = C C^T``, ``C^-1 = diag(Δw/2)^-1/2 D``: same eigenvalues as ``B^-1 A``."""
    u = A.shape[0]
    w = np.concatenate([[0.0], hsf_weights(u, s)])
    r = 1.0 / np.sqrt(np.diff(w) / 2.0)
    DA = A - np.vstack([np.zeros((1, u)), A[:-1]])  # D A
    DAD = DA - np.hstack([np.zeros((u, 1)), DA[:, :-1]])  # D A D^T
    return r[:, None] * DAD * r[None, :]


def largest_generalized(A: np.ndarray, B: np.ndarray | None = None, s=0) -> tuple[float, np.ndarray]:
    """Largest ``lambda`` with ``A v = lambda B v`` and its vector (normalised, largest |entry| positive).

    With ``B = None`` the min-matrix ``B_u`` (prompt ``s``) is used through its tridiagonal
    inverse (fast for large ``u``)."""
    u = A.shape[0]
    if B is None:
        S = whitened(A, s)
        vals, vecs = sla.eigh(S, subset_by_index=[u - 1, u - 1])
        y = vecs[:, 0]
        w = np.concatenate([[0.0], hsf_weights(u, s)])
        z = y / np.sqrt(np.diff(w) / 2.0)  # v = C^-T y = D^T diag(.)^-1/2 y: suffix sums
        v = z - np.concatenate([z[1:], [0.0]])
    else:
        vals, vecs = sla.eigh(A, B, subset_by_index=[u - 1, u - 1])
        v = vecs[:, 0]
    if v[np.argmax(np.abs(v))] < 0:
        v = -v
    return float(vals[0]), v


def rayleigh(A: np.ndarray, B: np.ndarray, x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    return float(x @ A @ x / (x @ B @ x))


def max_over_simplex(A: np.ndarray, B: np.ndarray, x0: np.ndarray | None = None, iters: int = 2000) -> tuple[float, np.ndarray]:
    """``max_{x >= 0} x^T A x / x^T B x`` by a multiplicative ascent (a lower estimate of the maximum)."""
    u = A.shape[0]
    x = np.full(u, 1.0 / u) if x0 is None else np.maximum(np.asarray(x0, float), 1e-12)
    best, bx = rayleigh(A, B, x), x.copy()
    for _ in range(iters):
        lam = rayleigh(A, B, x)
        Ax, Bx = A @ x, B @ x
        x = x * np.maximum(Ax, 1e-300) / np.maximum(lam * Bx, 1e-300)
        x /= x.sum()
        r = rayleigh(A, B, x)
        if r > best:
            best, bx = r, x.copy()
    return best, bx


def cr_amin(x, support=None) -> float:
    """Lemma 2 as reconstructed: ``x^T A x / x^T B x`` for a length distribution ``x`` on ``support``
    (default ``1..len(x)``), ``s = 0``; ``A``, ``B`` are homogeneous of degree 2 in the lengths."""
    x = np.asarray(x, dtype=float)
    k = np.arange(1, len(x) + 1, dtype=float) if support is None else np.asarray(support, dtype=float)
    m = np.minimum.outer(k, k)
    M = np.maximum.outer(k, k)
    A = m * M / 4 + m**2 / 2 - m**3 / (4 * M)
    return float(x @ A @ x / (x @ (m**2 / 2) @ x))


def lambda_max(u: int, *, dense_max: int = 300) -> tuple[float, np.ndarray]:
    """Largest generalized eigenvalue of the reconstructed ``(A_u, B_u)`` and its vector (003 Figure 1).

    Up to ``u = dense_max`` a dense symmetric eigensolver on the whitened matrix
    (:func:`largest_generalized`); beyond, Lanczos (``scipy.sparse.linalg.eigsh``, tolerance
    ``1e-12``) on the same whitened matrix, so no dense inverse is formed.  The vector is
    ``C^-T y`` (suffix differences), normalised so its largest entry in absolute value is positive.
    """
    if u < 1:
        raise ValueError(f"u must be a positive integer, got {u!r}")
    A = A_matrix(u)
    if u <= dense_max:
        return largest_generalized(A)
    from scipy.sparse.linalg import eigsh

    vals, vecs = eigsh(whitened(A), k=1, which="LA", tol=1e-12)
    lv, y = float(vals[0]), vecs[:, 0]
    wk = np.concatenate([[0.0], hsf_weights(u)])
    z = y / np.sqrt(np.diff(wk) / 2.0)
    v = z - np.concatenate([z[1:], [0.0]])
    v = v if v[np.argmax(np.abs(v))] > 0 else -v
    return lv, v


def lambda_max_curve(us, *, dense_max: int = 300) -> tuple[np.ndarray, list[float]]:
    """:func:`lambda_max` for every ``u`` in ``us``: the eigenvalues and, per ``u``, the smallest entry
    of the maximising vector relative to its largest (``>= 0`` means the maximum over ``x >= 0``,
    the competitive ratio, equals the eigenvalue)."""
    lam, vmin = [], []
    for u in us:
        lv, v = lambda_max(int(u), dense_max=dense_max)
        lam.append(lv)
        vmin.append(float(v.min() / np.abs(v).max()))
    return np.array(lam), vmin


# ------------------------------------------------------------------ geometric lengths (003 Figure 3, Theorem 8)


def _power_series(poly_in_k: sp.Expr, k: sp.Symbol, base: sp.Expr) -> sp.Expr:
    """``sum_{k>=1} poly(k) base^k`` in closed form (``|base| < 1``), by ``(r d/dr)^d r/(1-r)``."""
    r = sp.Dummy("r")
    total = sp.Integer(0)
    for (deg,), coeff in sp.Poly(sp.expand(poly_in_k), k).terms():
        f = r / (1 - r)
        for _ in range(deg):
            f = sp.together(r * sp.diff(f, r))
        total += coeff * f.subs(r, base)
    return total


def geometric_forms_sym(q: sp.Symbol | None = None) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Closed forms of ``x^T A x``, ``x^T B x`` and their quotient for geometric lengths
    ``x_k = (1-q) q^(k-1)``, ``k >= 1`` (``s = 0``, reconstructed ``A``; our derivation).

    Both double sums are split into the diagonal and ``2 sum_{m<K}``.  The inner sum
    ``sum_{m<K} m^d q^m`` is the full moment minus the tail ``q^K P_d(K)`` (``P_d`` a
    polynomial in ``K``), so every outer sum is a power series ``sum K^e r^K`` except the
    ``m^3/(4K)`` part of ``A``, whose ``1/K`` gives ``-log(1-q)`` and ``-log(1-q^2)``.  Hence the
    quotient is **not** rational in ``q``; with ``log(1-q^2) = log(1-q) + log(1+q)`` it is
    ``(1+q)^2 (q(3q+2) - (q^2+4q+1) log(1+q)) / (q (1+q^2))``.
    """
    q = sp.Symbol("q", positive=True) if q is None else q
    K, j = sp.symbols("K j", integer=True, positive=True)

    def moment(d: int) -> sp.Expr:  # sum_{m>=1} m^d q^m
        return _power_series(K**d, K, q)

    def tail(d: int) -> sp.Expr:  # sum_{m>=K} m^d q^m = q^K * tail(d), a polynomial in K
        out = sp.Integer(0)
        for (e,), c in sp.Poly(sp.expand((K + j) ** d), j).terms():
            out += c * (_power_series(j**e, j, q) if e > 0 else 1 / (1 - q))
        return sp.expand(out)

    def cross(d: int, e: int) -> sp.Expr:  # sum_{K>=1} q^K K^e sum_{m<K} m^d q^m, e in {0, 1, -1}
        G, P = moment(d), tail(d)
        if e >= 0:
            return G * _power_series(K**e, K, q) - _power_series(sp.expand(P * K**e), K, q**2)
        out = G * (-sp.log(1 - q))
        for (deg,), c in sp.Poly(P, K).terms():
            out -= c * (-sp.log(1 - q**2) if deg == 0 else _power_series(K ** (deg - 1), K, q**2))
        return out

    pref = ((1 - q) / q) ** 2  # x_k = (1-q)/q * q^k
    diag = _power_series(K**2 / 2, K, q**2)  # a_kk = b_kk = k^2/2
    xAx = pref * (diag + 2 * (cross(1, 1) / 4 + cross(2, 0) / 2 - cross(3, -1) / 4))
    xBx = pref * (diag + cross(2, 0))
    ratio = sp.factor(sp.expand(sp.simplify(xAx / xBx).subs(sp.log(1 - q**2), sp.log(1 - q) + sp.log(1 + q))))
    return sp.simplify(xAx), sp.factor(sp.simplify(xBx)), ratio


def geometric_ratio_truncated(q: float, *, u_min: int = 200, u_max: int = 20000) -> float:
    """Rayleigh quotient ``x^T A x / x^T B x`` of geometric lengths ``x_k = (1-q) q^(k-1)`` on the
    truncated matrices ``A_u``, ``B_u`` (numerical counterpart of :func:`geometric_forms_sym`).

    ``u = min(u_max, max(u_min, ceil(40 / (1 - q))))``, so the neglected tail mass ``q^u`` is below
    ``e^-40`` unless ``u_max`` binds.  ``q`` must lie in ``(0, 1)``.
    """
    if not 0 < q < 1:
        raise ValueError(f"q must lie in (0, 1), got {q!r}")
    u = int(min(u_max, max(u_min, np.ceil(40 / (1 - q)))))
    kk = np.arange(1, u + 1.0)
    return rayleigh(A_matrix(u), B_matrix(u), (1 - q) * q ** (kk - 1))


def exponential_pair_expectation(kernel) -> sp.Expr:
    """``E kernel(min(X, Y), max(X, Y))`` for ``X, Y`` iid ``Exp(1)``, exactly (SymPy), for a kernel
    homogeneous of degree 2 -- the ``q -> 1`` limit of geometric lengths (our derivation).

    ``S = X + Y ~ Gamma(2)`` (``E S^2 = 6``) is independent of ``U = X/S ~ U(0, 1)``, and
    ``min = S min(U, 1-U)``, ``max = S max(U, 1-U)``; homogeneity gives
    ``E g(min, max) = 6 * 2 * int_0^{1/2} g(u, 1-u) du``.  ``kernel(m, M)`` must accept SymPy
    expressions.
    """
    u = sp.Symbol("u", positive=True)
    return 6 * 2 * sp.integrate(kernel(u, 1 - u), (u, 0, sp.Rational(1, 2)))


# ------------------------------------------------------------------ A_max (003 Theorems 1-2)


def amax_theorem1_bound(alpha):
    """003 Theorem 1 (quoted in our issue): ``CR(A_max) <= alpha^-1 (1 + alpha^-1) / 2``."""
    return (1 / alpha) * (1 + 1 / alpha) / 2


def amax_theorem2_ratio(alpha):
    """003 Theorem 2 (quoted): the instance's ratio tends to ``alpha^-1 (1 + alpha^-1/2) / 2``
    (read as ``alpha^{-1/2}``; at ``alpha = 1/4`` both readings give 6)."""
    return (1 / alpha) * (1 + alpha**-0.5) / 2


def thm2_hsf_tel(l: int, u: int, a: int, b: int) -> int:
    """Exact H-SF TEL on Theorem 2's instance (``s = 0``, ``M = l u``, ``a u`` requests of length
    ``l`` then ``b l`` of length ``u``): ``a`` batches of ``u`` short ones every ``l`` rounds, then
    ``b`` batches of ``l`` long ones every ``u`` rounds (derived by us; equals the simulation)."""
    return l * u * a * (a + 1) // 2 + l * (b * a * l + u * b * (b + 1) // 2)


def thm2_batch_amax_tel(l: int, u: int, a: int, b: int) -> float:
    """TEL of a *synchronous-batch* A_max on Theorem 2's instance: batches of ``M/u = l`` requests,
    each batch holding the memory ``u`` rounds (as if every batch contained a long request and
    no freed memory were reused before the batch ends).  A pessimistic model, not our A_max."""
    batches = (a * u + b * l) / l
    return l * u * batches * (batches + 1) / 2


def thm2_batch_ratio_limit(alpha):
    """``a, b -> oo`` with ``a/b = alpha^{1/2}``: batch-model TEL / H-SF TEL
    ``= (1 + alpha^{1/2})^2 / (alpha (1 + alpha + 2 alpha^{3/2}))``."""
    r = np.sqrt(alpha)
    return (1 + r) ** 2 / (alpha * (1 + alpha + 2 * alpha * r))
