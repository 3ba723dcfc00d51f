"""Proof objects of 003 Sections 4-5: Lemma 2, Corollary 1's matrices, Lemma 3, Theorems 6-8.

All objects are the paper's (Chen, Ye, Zhou, 003), each function citing its
statement.  Notation: a fraction ``x_k`` of the ``n`` requests has output
length ``k``; prompt size ``s``; interval ``[l, u]``, ``alpha = l/u``; every
ratio is the paper's heavy-load limit "``+ O(1/M)``".

``lemma2_forms`` / ``lemma2_ratio``  003 Lemma 2 in its general form (any
    ``s >= 0`` and ``l``): A_min's fluid TEL over H-SF's, both in units
    ``n^2/(2M)``.
``corollary1_A_sym`` / ``corollary1_B_sym``  003 Corollary 1 (``s = 0``,
    ``l = 1``): ``a_ij = (m^2/(ij)) ((i+j)^2/2 - m^2)`` with ``m = min(i,j)``,
    ``b_ij = m^2``; ``CR(A_min) = max_x x^T A_u x / x^T B_u x``.
``A_matrix`` / ``B_matrix`` / ``A_sym`` / ``B_sym``  the same two matrices
    each **halved** (TELs in units ``n^2/M``; ``B`` also with prompt ``s``):
    ``a_ij/2 = mM/4 + m^2/2 - m^3/(4M)`` (``M = max(i,j)``), ``b_ij/2 = m^2/2``.
    Halving both leaves the Rayleigh quotient, the generalized eigenvalues
    (003 Figure 1), the maximising vectors and ``tr(B^-1 A) = H_u`` (the trace
    identity of 003 Section 4.1, Part 2) unchanged.  ``A = (vv^T + VGV)/4`` with
    ``v = (1..u)`` and ``G`` Lemma 3's kernel ``g(d) = 2e^-|d| - e^-2|d|``.
``theorem6_*``  003 Theorem 6 (two-point lengths, A_min, ``s = 0``).
``theorem7_*``  003 Theorem 7 (two-point lengths, A_l): its piecewise bound and
    the closed forms in its proof.
``lg_*``, ``theorem8_*``  003 Section 5.3: the linearly weighted geometric
    law ``LG(p)``, ``P(o = k) = k p^2 q^(k-1)``, and Theorem 8's closed form.
``geometric_forms_sym``  our closed form for the geometric law ``G(p)`` of 003
    Section 5.2 (the paper gives none; its Figure 3, left, is numerical).
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
    """003 Corollary 1's ``B_u`` halved, with prompt ``s``: ``B_ij = w_{min(i,j)} / 2``, ``w_k = k (s + k)``.

    At ``s = 0`` this is ``b_ij / 2 = min(i,j)^2 / 2``; for any ``s``, ``x^T B x`` is the denominator of
    003 Lemma 2 halved (H-SF's fluid TEL in units ``n^2/M``)."""
    w = hsf_weights(u, s)
    idx = np.arange(u)
    return w[np.minimum.outer(idx, idx)] / 2.0


def A_matrix(u: int) -> np.ndarray:
    """003 Corollary 1's ``A_u`` halved (``s = 0``, ``l = 1``): ``mM/4 + m^2/2 - m^3/(4M)``,
    ``m = min(i,j)``, ``M = max(i,j)``."""
    k = np.arange(1, u + 1, dtype=float)
    m = np.minimum.outer(k, k)
    M = np.maximum.outer(k, k)
    return m * M / 4 + m**2 / 2 - m**3 / (4 * M)


def lemma3_kernel(u: int) -> np.ndarray:
    """``G_ij = g(ln i - ln j)``, ``g(d) = 2 e^-|d| - e^-2|d|`` (003 Lemma 3)."""
    k = np.arange(1, u + 1, dtype=float)
    r = np.minimum.outer(k, k) / np.maximum.outer(k, k)  # e^{-|ln i - ln j|}
    return 2 * r - r**2


def a_entry(i, j):
    """Exact entry of :func:`A_matrix` (003 Corollary 1's ``a_ij`` halved; SymPy-friendly: integers, or
    symbols with ``i <= j``)."""
    m, M = (i, j) if (not isinstance(i, (int, np.integer)) or i <= j) else (j, i)
    return m * M / sp.Integer(4) + m**2 / sp.Integer(2) - m**3 / (4 * M)


def trace_Binv_A_u(u: int) -> float:
    """``tr(B_u^-1 A_u)`` of 003 Corollary 1's pair in O(u) floats (per-length terms; ``s = 0``).

    003 Section 4.1, Part 2 shows it equals the harmonic number ``H_u``."""
    k = np.arange(2, u + 1, dtype=float)
    f = lambda m, M: m * M / 4 + m**2 / 2 - m**3 / (4 * M)  # noqa: E731
    return 1.0 + float(np.sum(2 / (2 * k - 1) * (f(k, k) - 2 * f(k - 1, k) + f(k - 1, k - 1))))


def B_sym(u: int, s=0) -> sp.Matrix:
    """Exact :func:`B_matrix` (003 Corollary 1's ``B_u`` halved; prompt ``s``; SymPy rationals)."""
    return sp.Matrix(u, u, lambda i, j: sp.Rational((min(i, j) + 1) * (s + min(i, j) + 1), 2))


def A_sym(u: int) -> sp.Matrix:
    """Exact :func:`A_matrix` (003 Corollary 1's ``A_u`` halved; SymPy rationals)."""
    return sp.Matrix(u, u, lambda i, j: a_entry(sp.Integer(min(i, j) + 1), sp.Integer(max(i, j) + 1)))


def A_candidate_sym(u: int) -> sp.Matrix:
    """``m^2 - m^3/(2M)``: **not** 003's matrix - a discarded guess, which fails the trace identity
    ``tr(B^-1 A) = H_u``.  Kept only because the ``amin`` chapter shows that failure."""
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
    """003 Lemma 2 at ``s = 0`` through Corollary 1's kernel: ``x^T A x / x^T B x`` for a length
    distribution ``x`` on ``support`` (default ``1..len(x)``), with ``A``, ``B`` the halved entries
    of :func:`A_matrix` / :func:`B_matrix` evaluated at the support points (homogeneous of degree 2
    in the lengths).  Equals :func:`lemma2_ratio` with ``s = 0`` and ``l = min(support)`` on integer
    supports (tests/test_rayleigh.py)."""
    x = np.asarray(x, dtype=float)
    k = np.arange(1, len(x) + 1, dtype=float) if support is None else np.asarray(support, dtype=float)
    m = np.minimum.outer(k, k)
    M = np.maximum.outer(k, k)
    A = m * M / 4 + m**2 / 2 - m**3 / (4 * M)
    return float(x @ A @ x / (x @ (m**2 / 2) @ x))


def lambda_max(u: int, *, dense_max: int = 300) -> tuple[float, np.ndarray]:
    """Largest generalized eigenvalue of 003 Corollary 1's ``(A_u, B_u)`` (both halved, which leaves it
    unchanged) and its vector (003 Figure 1).

    Up to ``u = dense_max`` a dense symmetric eigensolver on the whitened matrix
    (:func:`largest_generalized`); beyond, Lanczos (``scipy.sparse.linalg.eigsh``, tolerance
    ``1e-12``) on the same whitened matrix, so no dense inverse is formed, started from the all-ones
    vector (ARPACK's own start is random and unseeded, which changed the last digits from run to run).
    The vector is ``C^-T y`` (suffix differences), normalised so its largest entry in absolute value is
    positive.
    """
    if u < 1:
        raise ValueError(f"u must be a positive integer, got {u!r}")
    A = A_matrix(u)
    if u <= dense_max:
        return largest_generalized(A)
    from scipy.sparse.linalg import eigsh

    W = whitened(A)
    vals, vecs = eigsh(W, k=1, which="LA", tol=1e-12, v0=np.ones(W.shape[0]))
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
    ``x_k = (1-q) q^(k-1)``, ``k >= 1`` (003's ``G(p)``, Section 5.2; ``s = 0``, Corollary 1's halved
    matrices).  The paper gives no formula for ``G(p)``; this derivation is ours.

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
    """003 Theorem 1: ``CR(A_max) <= alpha^-1 (1 + alpha^-1) / 2 + O(1/M)``."""
    return (1 / alpha) * (1 + 1 / alpha) / 2


def amax_theorem2_ratio(alpha):
    """003 Theorem 2's claimed lower bound ``CR(A_max) >= alpha^-1 (1 + alpha^{-1/2}) / 2``
    (the exponent ``-1/2`` is the paper's, also in its Section 1.1)."""
    return (1 / alpha) * (1 + alpha**-0.5) / 2


def thm2_hsf_tel(l: int, u: int, a: int, b: int) -> int:
    """Exact H-SF TEL on Theorem 2's instance (``s = 0``, ``M = l u``, ``a u`` requests of length
    ``l`` then ``b l`` of length ``u``): ``a`` batches of ``u`` short ones every ``l`` rounds, then
    ``b`` batches of ``l`` long ones every ``u`` rounds (derived by us; equals the simulation)."""
    return l * u * a * (a + 1) // 2 + l * (b * a * l + u * b * (b + 1) // 2)


def thm2_batch_amax_tel(l: int, u: int, a: int, b: int) -> float:
    """TEL of a *synchronous-batch* A_max on Theorem 2's instance: batches of ``M/u = l`` requests,
    each batch holding the memory ``u`` rounds (as if every batch contained a long request and
    no freed memory were reused before the batch ends).  Ours: neither 003 Algorithm 1 nor the
    model of Theorem 2's proof (``l = M/u`` workers serving one request each, in random order)."""
    batches = (a * u + b * l) / l
    return l * u * batches * (batches + 1) / 2


def thm2_batch_ratio_limit(alpha):
    """``a, b -> oo`` with ``a/b = alpha^{1/2}``: batch-model TEL / H-SF TEL
    ``= (1 + alpha^{1/2})^2 / (alpha (1 + alpha + 2 alpha^{3/2}))``."""
    r = np.sqrt(alpha)
    return (1 + r) ** 2 / (alpha * (1 + alpha + 2 * alpha * r))


# ------------------------------------------------------------------ 003 Lemma 2, general s (Section 4.1, Part 1)


def lemma2_forms(x, l: int, s=0):
    """Numerator and denominator of 003 Lemma 2, literally, for any prompt ``s`` and lower bound ``l``.

    ``x`` lists the fractions of lengths ``l, l+1, ..., u`` (``u = l + len(x) - 1``); entries may be
    numbers or SymPy expressions (``s`` too).  With ``delta(k) = s + l`` for ``k = l`` and 1 otherwise:

    ``num = sum_k delta(k) (sum_{i>=k} i x_i) (delta(k) sum_{i>=k} x_i/(s+i) + 2 sum_{i>k} (i-k) x_i/(s+i))``,
    ``den = sum_k k (s+k) x_k (x_k + 2 sum_{i>k} x_i)``,

    both ``2M/n^2`` times a TEL: A_min's (fluid, from Proposition 1) and H-SF's.  ``den`` is
    ``2 x^T B x`` with :func:`B_matrix` ``(u, s)`` restricted to ``l..u``.  (The statement's
    denominator writes index ``i`` for ``k``; we use ``k`` as in its proof.)
    """
    x = list(x)
    ks = range(l, l + len(x))
    X = dict(zip(ks, x))
    num = 0
    den = 0
    for k in ks:
        d = (s + l) if k == l else 1
        tail_i = sum(i * X[i] for i in ks if i >= k)
        tail_inv = sum(X[i] / (s + i) for i in ks if i >= k)
        tail_gap = sum((i - k) * X[i] / (s + i) for i in ks if i > k)
        num += d * tail_i * (d * tail_inv + 2 * tail_gap)
        den += k * (s + k) * X[k] * (X[k] + 2 * sum(X[i] for i in ks if i > k))
    return num, den


def lemma2_ratio(x, support=None, s: float = 0, l: int | None = None) -> float:
    """003 Lemma 2: ``CR(A_min)`` (without the ``O(1/M)``) for length fractions ``x`` on ``support``.

    ``support`` (default ``1..len(x)``) are integer lengths; ``l`` is the interval's lower bound,
    i.e. A_min's initial estimate (default ``min(support)``; must be ``<= min(support)``).  The sums
    run over every integer ``k = l..u`` as in the paper (vectorised version of :func:`lemma2_forms`).
    """
    x = np.asarray(x, dtype=float)
    sup = np.arange(1, len(x) + 1) if support is None else np.asarray(support)
    if sup.shape != x.shape:
        raise ValueError(f"lemma2_ratio: x has {len(x)} entries but support has {len(sup)}")
    if not np.all(sup == np.round(sup)) or sup.min() < 1:
        raise ValueError(f"lemma2_ratio: support must be positive integers, got {sup.tolist()}")
    sup = sup.astype(np.int64)
    l = int(sup.min()) if l is None else int(l)
    if l < 1 or l > sup.min():
        raise ValueError(f"lemma2_ratio: l = {l} must satisfy 1 <= l <= min(support) = {int(sup.min())}")
    if s < 0:
        raise ValueError(f"lemma2_ratio: prompt size s = {s} must be >= 0")
    u = int(sup.max())
    k = np.arange(l, u + 1, dtype=float)
    X = np.zeros(len(k))
    np.add.at(X, sup - l, x)

    def suffix(v):  # sum_{i >= k} v_i
        return np.cumsum(v[::-1])[::-1]

    def after(v):  # sum_{i > k} v_i
        return np.concatenate([suffix(v)[1:], [0.0]])

    inv = X / (s + k)
    delta = np.ones(len(k))
    delta[0] = s + l
    gap = after(k * inv) - k * after(inv)
    num = float(np.sum(delta * suffix(k * X) * (delta * suffix(inv) + 2 * gap)))
    den = float(np.sum(k * (s + k) * X * (X + 2 * after(X))))
    return num / den


# ------------------------------------------------------------------ 003 Corollary 1 (the paper's scale)


def corollary1_A_sym(u: int) -> sp.Matrix:
    """003 Corollary 1's ``A_u`` exactly as printed: ``a_ij = m^2/(ij) ((i+j)^2/2 - m^2)``, ``m = min(i,j)``
    (``s = 0``, ``l = 1``).  Equals ``2 *`` :func:`A_sym`."""
    def entry(i, j):
        i, j = sp.Integer(i + 1), sp.Integer(j + 1)
        m = sp.Min(i, j)
        return m**2 / (i * j) * ((i + j) ** 2 / 2 - m**2)

    return sp.Matrix(u, u, entry)


def corollary1_B_sym(u: int) -> sp.Matrix:
    """003 Corollary 1's ``B_u`` exactly as printed: ``b_ij = min(i,j)^2``.  Equals ``2 *`` :func:`B_sym`."""
    return sp.Matrix(u, u, lambda i, j: sp.Integer(min(i, j) + 1) ** 2)


# ------------------------------------------------------------------ 003 Theorem 6 (two-point, A_min)


def theorem6_bound(alpha):
    """003 Theorem 6: ``CR(A_min) <= (3 - alpha)/2 + O(1/M)`` on two-point lengths ``{l, u}`` (proved at ``s = 0``)."""
    return (3 - alpha) / 2


def theorem6_ratio(alpha, t):
    """The two-point ratio in the proof of 003 Theorem 6 (``s = 0``): ``1 + alpha (1-alpha^2) t /
    (alpha^2 t^2 + 2 alpha^2 t + 1)`` with ``t = x_l / x_u``; its maximum is at ``t = 1/alpha``."""
    return 1 + alpha * (1 - alpha**2) * t / (alpha**2 * t**2 + 2 * alpha**2 * t + 1)


# ------------------------------------------------------------------ 003 Theorem 7 (two-point, A_l)


def theorem7_bound(alpha):
    """003 Theorem 7's piecewise bound on ``CR(A_l)`` (two-point lengths, ``alpha = l/u``):
    ``1 + alpha/(2(1-alpha))`` for ``0 < alpha <= 1/2`` and ``1 + 2 alpha^2`` for ``1/2 <= alpha <= 1``
    (the branches agree at 1/2).  Works on floats, arrays and SymPy numbers."""
    if isinstance(alpha, sp.Basic):
        return sp.Piecewise((1 + alpha / (2 * (1 - alpha)), alpha <= sp.Rational(1, 2)), (1 + 2 * alpha**2, True))
    a = np.asarray(alpha, dtype=float)
    if np.any((a <= 0) | (a > 1)):
        raise ValueError(f"theorem7_bound: alpha must lie in (0, 1], got {alpha}")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(a <= 0.5, 1 + a / (2 * (1 - a)), 1 + 2 * a**2)
    return float(out) if out.ndim == 0 else out


def theorem7_tels(alpha, x_l, x_u):
    """The two TELs of 003 Theorem 7's proof (eqs. (1)-(2) there), divided by ``u^2/2``:
    A_l: ``alpha^2 x_l^2 + 3 alpha^2 x_l x_u + (2 alpha^2 + 1) x_u^2``; H-SF:
    ``alpha^2 x_l^2 + 2 alpha^2 x_l x_u + x_u^2``."""
    a2 = alpha**2
    return a2 * x_l**2 + 3 * a2 * x_l * x_u + (2 * a2 + 1) * x_u**2, a2 * x_l**2 + 2 * a2 * x_l * x_u + x_u**2


def theorem7_ratio(alpha, t):
    """``1 + h(t)``, ``h(t) = (alpha^2 t + 2 alpha^2) / (alpha^2 t^2 + 2 alpha^2 t + 1)`` with ``t = x_l/x_u``
    (003 Theorem 7's proof, eq. (3))."""
    return 1 + (alpha**2 * t + 2 * alpha**2) / (alpha**2 * t**2 + 2 * alpha**2 * t + 1)


def theorem7_worst_t(alpha):
    """The maximiser of :func:`theorem7_ratio` over ``t >= 0``: ``1/alpha - 2`` if ``alpha <= 1/2``, else 0
    (where ``h'(t) = 0``; at it ``h = alpha/(2(1-alpha))``, the first branch of the bound).  Ours: the
    paper's proof states the bound, not the maximiser."""
    return max(1 / alpha - 2, 0.0)


def theorem7_threshold() -> sp.Expr:
    """``alpha* = (3 - sqrt 5)/2``: where Theorem 7's first branch meets Theorem 6's ``(3-alpha)/2``
    (003 Section 5.1; ``alpha^2 - 3 alpha + 1 = 0``)."""
    a = sp.Symbol("alpha", positive=True)
    return [r for r in sp.solve(sp.Eq(1 + a / (2 * (1 - a)), (3 - a) / 2), a) if r < 1][0]


# ------------------------------------------------------------------ 003 Section 5.3: LG(p) and Theorem 8


def lg_pmf(k, q):
    """003 Section 5.3's linearly weighted geometric law ``LG(p)``: ``P(o = k) = k p^2 q^(k-1)``,
    ``q = 1 - p``, ``k = 1, 2, ...``."""
    return k * (1 - q) ** 2 * q ** (k - 1)


def lg_weights(u: int, q: float) -> np.ndarray:
    """``lg_pmf`` on ``1..u`` (a truncation; the mass beyond ``u`` is dropped)."""
    k = np.arange(1, u + 1, dtype=float)
    return lg_pmf(k, q)


def _geo_moment(e: int, q):
    """``sum_{j>=0} j^e q^j`` in closed form."""
    if e == 0:
        return 1 / (1 - q)
    j = sp.Dummy("j")
    return _power_series(j**e, j, q)


def _geo_tail_poly(d: int, k: sp.Symbol, q):
    """``P_d(k)`` with ``sum_{i>=k} i^d q^(i-1) = q^(k-1) P_d(k)`` (a polynomial in ``k``)."""
    return sp.expand(sum(sp.binomial(d, e) * k ** (d - e) * _geo_moment(e, q) for e in range(d + 1)))


def lg_forms_sym(q: sp.Symbol | None = None) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """003 Theorem 8's proof: Lemma 2's sums (``s = 0``, ``l = 1``, ``u -> oo``) for the unnormalised
    ``LG`` weights ``x_i = i q^(i-1)``, in closed form; returns ``(num, den, num/den)``.

    ``num = sum_k (sum_{i>=k} i^2 q^(i-1)) (sum_{i>=k} q^(i-1) + 2 sum_{i>k} (i-k) q^(i-1))`` and
    ``den = sum_k k^3 q^(k-1) (k q^(k-1) + 2 sum_{i>k} i q^(i-1))`` (the proof prints the factor 2 on
    the first term of ``den``; the closed form it states is that of the sum written here).  Each
    inner tail is ``q^(k-1)`` times a polynomial in ``k``, so each outer sum is a power series in
    ``q^2``: the result is rational in ``q`` (003: ``(1+3q+6q^2+3q^3+q^4)/((1-q)^6(1+q)^2)`` and
    ``(1+2q+11q^2+8q^3+11q^4+2q^5+q^6)/((1-q)^6(1+q)^4)``).
    """
    q = sp.Symbol("q", positive=True) if q is None else q
    k = sp.Symbol("k", integer=True, positive=True)
    P0, P1, P2 = (_geo_tail_poly(d, k, q) for d in range(3))
    gap = q / (1 - q) ** 2  # sum_{i>k} (i-k) q^(i-1) = q^(k-1) * gap
    # num: sum_k q^(2k-2) P2(k) (P0 + 2 gap)
    num = _power_series(sp.expand(P2 * (P0 + 2 * gap)), k, q**2) / q**2
    # den: sum_k [k^4 q^(2k-2) + 2 k^3 q^(k-1) q^k P1(k+1)]
    den = _power_series(k**4, k, q**2) / q**2 + 2 * _power_series(sp.expand(k**3 * P1.subs(k, k + 1)), k, q**2) / q
    num, den = sp.factor(sp.simplify(num)), sp.factor(sp.simplify(den))
    return num, den, sp.factor(sp.simplify(num / den))


def theorem8_ratio(q):
    """003 Theorem 8: ``CR(A_min)`` under ``LG(p)`` (``u, M -> oo``):
    ``(1+q)^2 (1+3q+6q^2+3q^3+q^4) / (1+2q+11q^2+8q^3+11q^4+2q^5+q^6)``."""
    return (1 + q) ** 2 * (1 + 3 * q + 6 * q**2 + 3 * q**3 + q**4) / (
        1 + 2 * q + 11 * q**2 + 8 * q**3 + 11 * q**4 + 2 * q**5 + q**6)


#: 003 Theorem 8's bound: the limit of :func:`theorem8_ratio` as ``q -> 1``
THEOREM8_BOUND = sp.Rational(14, 9)
