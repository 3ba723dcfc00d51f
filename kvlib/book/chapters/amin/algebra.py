"""Symbolic and numerical checks of the A_min chapter (notebooks/amin.py; 003, Chen, Ye and Zhou).

The chapter narrates these checks; this module carries them out, on the proof objects of
:mod:`kvlib.theory.rayleigh` (``ry``) and :mod:`kvlib.theory.memory_scaling`:

* Theorem 2's proof: its own bound at ``a/b = alpha^(1/2)`` and where the synchronous-batch limit
  meets the paper's formula (:func:`theorem2_algebra`);
* Theorem EC.1, eq. (EC.6): the proof's last maximisation (:func:`ec6_algebra`);
* Corollary 1: H-SF's fluid TEL as ``x^T B_u x`` (:func:`hsf_form_identity`), the tridiagonal
  ``B_u^-1`` (:func:`tridiagonal_inverse_ok`), the cross term that Theorem 6 forces
  (:func:`a_entry_from_theorem6`), Corollary 1's own matrices (:func:`corollary1_halved`), the TEL
  expression ``T_A`` (:func:`amin_form_identity`), the trace identity (:func:`trace_term_facts`,
  :func:`trace_table`, :func:`trace_numerics`) and Lemma 3 (:func:`lemma3_transform`,
  :func:`min_eigenvalues`);
* Section 5: Theorem 6's critical points (:func:`theorem6_critical_points`), Theorem 7's threshold
  (:func:`theorem7_threshold_facts`) and the geometric and ``LG(p)`` quotients
  (:func:`geometric_quotients`).

Functions named ``*_facts``, ``*_algebra`` and ``*_transform`` return ``{glue name: value}`` for
:func:`kvlib.book.gluing.glue_all`; formulas shown as display math come as IPython ``Math`` objects
(IPython is imported only when one is made).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from kvlib.theory import rayleigh as ry

__all__ = ["display_math", "theorem2_algebra", "ec6_algebra", "hsf_form_identity", "tridiagonal_inverse_ok",
           "a_entry_from_theorem6", "corollary1_halved", "amin_form_identity", "trace_term_facts",
           "trace_table", "trace_numerics", "lemma3_transform", "min_eigenvalues", "theorem6_critical_points",
           "theorem7_threshold_facts", "geometric_quotients"]


def display_math(latex: str):
    """``IPython.display.Math(latex)``, for a ``{glue:math}`` directive."""
    from IPython.display import Math

    return Math(latex)


def theorem2_algebra() -> dict:
    """003 Theorem 2: the proof's own bound ``(u/l)(au + bl)(a + b)/(ua^2 + 2lab + ub^2)`` at
    ``a/b = alpha^(1/2)`` (``u = 1``, ``l = alpha = sigma^2``, ``a = sigma``, ``b = 1``) for ``alpha = 1/4``
    and ``1/9`` (``thm2_proof_a4``, ``thm2_proof_a9``, exact, as text); the values of ``alpha`` where the
    synchronous-batch limit equals the paper's formula (``thm2_coinc``); and the formula with
    ``alpha^-1/2`` in place of ``alpha^(-1/2)`` at ``alpha = 1/9`` (``thm2_formula_a9_half``)."""
    sig = sp.Symbol("sigma", positive=True)  # sigma = sqrt(alpha)
    coinc = sp.solve(sp.Eq((1 + sig) ** 2 / (sig**2 * (1 + sig**2 + 2 * sig**3)), (1 + 1 / sig) / (2 * sig**2)), sig)
    out = {"thm2_formula_a9_half": float(9 * (1 + 9 / 2) / 2),
           "thm2_coinc": ", ".join(str(c**2) for c in sorted(coinc))}

    def proof_bound(x):
        return (1 / x**2) * (x + x**2) * (x + 1) / (x**2 + 2 * x**3 + 1)

    for key, inv in (("a4", 4), ("a9", 9)):
        out[f"thm2_proof_{key}"] = str(sp.nsimplify(proof_bound(1 / sp.sqrt(sp.Integer(inv)))))
    return out


def ec6_algebra(grid: int = 49) -> dict:
    """003 Theorem EC.1, eq. (EC.6): the maximum of the proof's last quotient at ``s = 0``
    (``ec6_max``, display math), whether it equals ``(1 + 1/alpha)/2`` (``ec6_ok``), and whether with a
    prompt (``s = u``) it stays below :func:`kvlib.theory.memory_scaling.ec6_bound` on ``grid`` values
    of ``alpha`` in ``[0.02, 0.98]`` (``ec6_s1_ok``); the checks as the text ``"True"``/``"False"``."""
    from kvlib.theory import memory_scaling as ms

    val, arg = ms.ec6_proof_maximum(0)
    a = sp.Symbol("alpha", positive=True)
    ok = sp.simplify(val - (1 + 1 / a) / 2) == 0
    val1, _ = ms.ec6_proof_maximum(1)
    s1_ok = all(float(val1.subs(a, av)) <= float(ms.ec6_bound(av)) for av in np.linspace(0.02, 0.98, grid))
    return {"ec6_max": display_math(r"\max_{t \ge 0} = " + sp.latex(val) + r"\quad\text{at } t = " + sp.latex(arg)),
            "ec6_ok": str(bool(ok)), "ec6_s1_ok": str(bool(s1_ok))}


def hsf_form_identity(u: int = 4) -> bool:
    """H-SF's fluid TEL with all requests at 0 and prompt ``s`` (symbolic), ``sum_k x_k (sum_{j<k} x_j w_j
    + x_k w_k / 2)`` with ``w_k = k(s + k)``, equals ``x^T B x`` with ``b_ij = w_min(i,j) / 2``, and its
    cross terms are ``2 b_ij`` (lengths ``1..u``)."""
    x = sp.symbols(f"x1:{u + 1}")
    xv = sp.Matrix(x)
    s = sp.Symbol("s", nonnegative=True)
    w = [k * (s + k) for k in range(1, u + 1)]
    tel = sum(x[k] * (sum(x[j] * w[j] for j in range(k)) + x[k] * w[k] / 2) for k in range(u))
    B = sp.Matrix(u, u, lambda i, j: w[min(i, j)] / 2)
    ident = sp.expand(tel - (xv.T * B * xv)[0]) == 0
    cross = all(sp.expand(tel).coeff(x[i]).coeff(x[j]) == 2 * B[i, j] for i in range(u) for j in range(i + 1, u))
    return bool(ident and cross)


def tridiagonal_inverse_ok(u_max: int, prompts=(0, 3)) -> bool:
    """``ry.B_sym(u, s).inv() == ry.B_inv_tridiagonal(u, s)`` exactly for every ``u <= u_max`` and every
    prompt ``s`` in ``prompts``."""
    return all(ry.B_sym(u, s).inv() == ry.B_inv_tridiagonal(u, s) for s in prompts for u in range(1, u_max + 1))


def a_entry_from_theorem6() -> dict:
    """The cross term ``a_lu`` that Theorem 6's two-point value forces: SymPy's largest root ``lambda``
    of ``det(A - lambda B) = 0`` for the 2x2 pencil with ``a_ll = b_ll = l^2/2``, ``a_uu = b_uu = u^2/2``,
    ``b_lu = l^2/2`` (``lam_big_latex``), its solution of ``lambda = (3 - l/u)/2`` (``a_lu_latex``), both
    display math, and whether that solution is ``ry.a_entry`` (``a_formula_ok``, as text)."""
    l_, u_, a_, lam_ = sp.symbols("l u a lambda", positive=True)
    A2 = sp.Matrix([[l_**2 / 2, a_], [a_, u_**2 / 2]])
    B2 = sp.Matrix([[l_**2 / 2, l_**2 / 2], [l_**2 / 2, u_**2 / 2]])
    roots = sp.solve(sp.Eq((A2 - lam_ * B2).det(), 0), lam_)
    at = {l_: 1, u_: 2, a_: 1}
    lam_big = [r for r in roots if sp.simplify(r.subs(at) - max(rr.subs(at) for rr in roots)) == 0][0]
    a_sol = sp.solve(sp.Eq(lam_big, (3 - l_ / u_) / 2), a_)
    a_sol = [sp.factor(v) for v in a_sol if v.subs({l_: 1, u_: 2}) > 0][0]
    m_, M_ = sp.symbols("m M", positive=True)
    same = sp.simplify(a_sol.subs({l_: m_, u_: M_}) - ry.a_entry(m_, M_)) == 0
    return {"lam_big_latex": display_math(r"\lambda = " + sp.latex(sp.simplify(lam_big))),
            "a_lu_latex": display_math(r"a_{lu} = " + sp.latex(a_sol)), "a_formula_ok": str(same)}


def corollary1_halved(u_max: int) -> bool:
    """003 Corollary 1's matrices (``ry.corollary1_A_sym``, ``ry.corollary1_B_sym``) are twice ours
    (``ry.A_sym``, ``ry.B_sym``) entrywise for every ``u <= u_max``."""
    return all(ry.corollary1_A_sym(u) == 2 * ry.A_sym(u) and ry.corollary1_B_sym(u) == 2 * ry.B_sym(u)
               for u in range(1, u_max + 1))


def amin_form_identity(u: int = 4) -> bool:
    """The TEL expression ``T_A(x) = (sum_k k x_k)^2 / 4 + sum_k x_k (sum_{j<k} x_j (j^2 - j^3/(2k)) +
    x_k k^2/4)`` equals ``x^T A_u x`` (``ry.A_sym``) and its cross terms are ``2 a_ij`` (lengths ``1..u``)."""
    x = sp.symbols(f"x1:{u + 1}")
    xv = sp.Matrix(x)
    TA = sp.Rational(1, 4) * sum((k + 1) * x[k] for k in range(u)) ** 2 + sum(
        x[k] * (sum(x[j] * ((j + 1) ** 2 - sp.Rational((j + 1) ** 3, 2 * (k + 1))) for j in range(k))
                + x[k] * sp.Rational((k + 1) ** 2, 4))
        for k in range(u))
    A = ry.A_sym(u)
    ident = sp.expand(TA - (xv.T * A * xv)[0]) == 0
    cross = all(sp.expand(TA).coeff(x[i]).coeff(x[j]) == 2 * A[i, j] for i in range(u) for j in range(i + 1, u))
    return bool(ident and cross)


def trace_term_facts() -> dict:
    """The ``k``-th term ``(2/(2k-1)) (a_kk - 2a_{k,k-1} + a_{k-1,k-1})`` of ``tr(B_u^-1 A_u)`` for symbolic
    ``k >= 2`` (``trace_term``, display math) and the first term ``2 a_11`` (``trace_first``)."""
    k = sp.Symbol("k", positive=True)
    term = sp.simplify(2 / (2 * k - 1) * (ry.a_entry(k, k) - 2 * ry.a_entry(k - 1, k) + ry.a_entry(k - 1, k - 1)))
    first = ry.a_entry(sp.Integer(1), sp.Integer(1)) * 2  # k = 1: (2/Δw_1) a_11
    return {"trace_term": display_math(r"\frac{2}{2k-1}\left(a_{kk}-2a_{k,k-1}+a_{k-1,k-1}\right) = " + sp.latex(term)),
            "trace_first": int(first)}


def trace_table(u_max: int):
    """One row per ``u = 1..u_max``: ``tr(B_u^-1 A_u)`` and ``H_u`` exactly (as text), whether they are equal,
    and the trace for the rejected candidate ``ry.A_candidate_sym`` (as text)."""
    import pandas as pd

    rows = []
    for u in range(1, u_max + 1):
        h = sum(sp.Rational(1, k) for k in range(1, u + 1))
        t_new = (ry.B_sym(u).inv() * ry.A_sym(u)).trace()
        t_old = (ry.B_sym(u).inv() * ry.A_candidate_sym(u)).trace()
        rows.append(dict(u=u, trace_A=str(t_new), H_u=str(h), equal=(t_new == h), trace_old_candidate=str(t_old)))
    return pd.DataFrame(rows)


def trace_numerics(big_u: int, u_dense: int) -> dict:
    """``|tr(B^-1 A) - H_u|`` by the ``O(u)`` formula ``ry.trace_Binv_A_u`` at ``u = big_u``
    (``tr_big_err``) and by a dense solve at ``u = u_dense`` (``tr_dense_err``), with the two sizes."""
    H_big = float(np.sum(1.0 / np.arange(1, big_u + 1, dtype=float)))
    tr_dense = float(np.trace(np.linalg.solve(ry.B_matrix(u_dense), ry.A_matrix(u_dense))))
    H_dense = float(np.sum(1.0 / np.arange(1, u_dense + 1)))
    return {"tr_big_u": int(big_u), "tr_big_err": float(abs(ry.trace_Binv_A_u(big_u) - H_big)),
            "tr_dense_u": int(u_dense), "tr_dense_err": float(abs(tr_dense - H_dense))}


def lemma3_transform() -> dict:
    """003 Lemma 3: the Fourier transform ``2 int_0^oo g(d) cos(xi d) dd`` of ``g(d) = 2e^-|d| - e^-2|d|``
    (``gft``, display math) and whether it equals ``12/((1 + xi^2)(4 + xi^2))`` (``gft_ok``, as text)."""
    d, xi = sp.symbols("d xi", real=True)
    gft = sp.simplify(2 * sp.integrate((2 * sp.exp(-d) - sp.exp(-2 * d)) * sp.cos(xi * d), (d, 0, sp.oo), conds="none"))
    ok = sp.simplify(gft - 12 / ((1 + xi**2) * (4 + xi**2))) == 0
    return {"gft": display_math(r"\hat g(\xi) = " + sp.latex(sp.factor(gft))), "gft_ok": str(ok)}


def min_eigenvalues(us=(5, 50, 500)):
    """Smallest eigenvalues of Lemma 3's kernel matrix ``G`` and of ``A_u``, ``B_u`` (NumPy), one row per
    ``u`` in ``us`` (columns ``u``, ``min eig G``, ``min eig Aᵤ``, ``min eig Bᵤ``)."""
    import pandas as pd

    return pd.DataFrame([{"u": u, "min eig G": float(np.linalg.eigvalsh(ry.lemma3_kernel(u))[0]),
                          "min eig Aᵤ": float(np.linalg.eigvalsh(ry.A_matrix(u))[0]),
                          "min eig Bᵤ": float(np.linalg.eigvalsh(ry.B_matrix(u))[0])} for u in us])


def theorem6_critical_points() -> dict:
    """003 Theorem 6: the critical points ``p`` of ``R(p) = x^T A x / x^T B x`` at ``x = (p, 1 - p)`` on
    ``{l, u}`` (``l = alpha``, ``u = 1``), with ``R`` there and whether ``p`` is interior at ``alpha`` = 1/10,
    1/2, 9/10 (``t6_crit``, a display-math array); whether exactly one interior point attains
    ``(3 - alpha)/2`` (``t6_ok``, as text) and that point (``t6_pstar``, display math)."""
    p = sp.Symbol("p", positive=True)
    al = sp.Symbol("alpha", positive=True)  # l = alpha, u = 1 (homogeneity)
    xx = sp.Matrix([p, 1 - p])
    A2 = sp.Matrix([[al**2 / 2, ry.a_entry(al, sp.Integer(1))], [ry.a_entry(al, sp.Integer(1)), sp.Rational(1, 2)]])
    B2 = sp.Matrix([[al**2 / 2, al**2 / 2], [al**2 / 2, sp.Rational(1, 2)]])
    Rp = sp.simplify((xx.T * A2 * xx)[0] / (xx.T * B2 * xx)[0])
    vals = []
    for cr in sp.solve(sp.diff(Rp, p), p):
        cr = sp.simplify(cr)
        interior = all(0 < cr.subs(al, av) < 1 for av in (sp.Rational(1, 10), sp.Rational(1, 2), sp.Rational(9, 10)))
        vals.append((cr, sp.simplify(Rp.subs(p, cr)), interior))
    best = [v for v in vals if v[2] and sp.simplify(v[1] - (3 - al) / 2) == 0]
    rows = r"\\ ".join(f"{sp.latex(cr)} & {sp.latex(v)} & \\text{{{'yes' if ok else 'no'}}}" for cr, v, ok in vals)
    return {"t6_crit": display_math(r"\begin{array}{lll}\text{critical } p & R(p) & \text{interior}\\ \hline "
                            + rows + r"\end{array}"),
            "t6_ok": str(len(best) == 1),
            "t6_pstar": display_math(r"p^* = " + (sp.latex(best[0][0]) if best else r"\text{none}"))}


def theorem7_threshold_facts(astar) -> dict:
    """003 Theorem 7's threshold ``astar`` (``ry.theorem7_threshold``) as display math (``astar``) and a
    float (``astar_f``), and whether it is ``(3 - sqrt 5)/2``, a root of ``alpha^2 - 3 alpha + 1`` and the
    two branches of the bound meet at ``alpha = 1/2`` (``astar_ok``, as text)."""
    ok = sp.simplify(astar - (3 - sp.sqrt(5)) / 2) == 0 and sp.expand(astar**2 - 3 * astar + 1) == 0
    half = sp.Rational(1, 2)
    meet = 1 + half / (2 * (1 - half)) == 1 + 2 * half**2
    return {"astar": display_math(r"\alpha^* = " + sp.latex(astar)), "astar_f": float(astar), "astar_ok": str(bool(ok and meet))}


def geometric_quotients(qs) -> tuple[dict, dict]:
    """003 Sections 5.2-5.3: the quotient of Corollary 1's forms for geometric lengths ``G(p)`` (our closed
    form ``R(q)``, ``ry.geometric_forms_sym``) and for ``LG(p)`` (Lemma 2's sums, ``ry.lg_forms_sym``,
    against the paper's Theorem 8 formula), checked symbolically, on a grid of 199 values of ``q`` and
    against the truncated matrices at the values ``qs``.

    Returns ``(facts, curves)``: ``facts`` the values to glue (display math ``geo_xBx``, ``geo_R``,
    ``geo_lim_sym``, ``lg_R``, ``lg_lim_sym``; the limit ``geo_lim``; the checks as text; ``lg_max`` and
    the numerical errors ``geo_num_err``, ``lg_num_err``), ``curves`` what :func:`kvlib.book.chapters.amin.figures.
    geometric_figure` draws (``qgrid``, ``R``, ``LG``, ``qs``, ``geo``, ``lg_num``, ``lim``)."""
    xAx_g, xBx_g, R_g = ry.geometric_forms_sym()
    q = sorted(R_g.free_symbols, key=str)[0]
    lim1 = sp.limit(R_g, q, 1, "-")
    lim_ok = sp.simplify(lim1 - (10 - 12 * sp.log(2))) == 0
    qgrid = np.linspace(0.005, 0.995, 199)
    Rvals = np.array([float(R_g.subs(q, g)) for g in qgrid])
    assert sp.limit(R_g, q, 0, "+") == 1
    # the closed form, written compactly (over two lines, to fit the column) and checked against SymPy's
    geo_N = 3 * q**2 + 2 * q - (q**2 + 4 * q + 1) * sp.log(1 + q)
    assert sp.simplify(R_g - (q + 1)**2 * geo_N / (q * (q**2 + 1))) == 0
    facts = {
        "geo_xBx": display_math(r"x^\top B x = " + sp.latex(xBx_g)),
        "geo_R": display_math(r"\begin{aligned} R(q) &= \frac{x^\top A x}{x^\top B x} = \frac{(q+1)^2\, N(q)}{q\,(q^2+1)}, \\"
                      r" N(q) &= " + sp.latex(geo_N) + r"\end{aligned}"),
        "geo_lim_sym": display_math(r"\lim_{q\to1^-} R(q) = " + sp.latex(lim1)),
        "geo_lim": float(lim1), "geo_lim_ok": str(lim_ok),
        "geo_increasing": str(bool(np.all(np.diff(Rvals) > 0)))}
    # Theorem 8: Lemma 2's sums for LG(p) in closed form, against the paper's rational function and 14/9
    _, _, R_lg = ry.lg_forms_sym(q)
    lg_same = sp.simplify(R_lg - ry.theorem8_ratio(q)) == 0
    lim_lg = sp.limit(R_lg, q, 1, "-")
    LGvals = np.array([float(ry.theorem8_ratio(g)) for g in qgrid])
    facts.update({
        "lg_R": display_math(r"\mathrm{LG}(p):\ \frac{x^\top A x}{x^\top B x} = " + sp.latex(sp.factor(R_lg))),
        "lg_lim_sym": display_math(r"\mathrm{LG}(p):\ \lim_{q\to1^-} \frac{x^\top A x}{x^\top B x} = " + sp.latex(lim_lg)),
        "lg_same": str(bool(lg_same and lim_lg == ry.THEOREM8_BOUND)), "lg_max": float(LGvals.max()),
        "lg_increasing": str(bool(np.all(np.diff(LGvals) > 0) and LGvals.max() < float(ry.THEOREM8_BOUND)))})
    # the closed forms against the truncated matrices (independent numerics)
    geo = [ry.geometric_ratio_truncated(qq) for qq in qs]
    lg_num = [ry.rayleigh(ry.A_matrix(1500), ry.B_matrix(1500), ry.lg_weights(1500, qq)) for qq in qs]
    facts["geo_num_err"] = float(max(abs(g - float(R_g.subs(q, qq))) for qq, g in zip(qs, geo)))
    facts["lg_num_err"] = float(max(abs(g - float(ry.theorem8_ratio(qq))) for qq, g in zip(qs, lg_num)))
    # Independent check of the G(p) limit: as q -> 1 the scaled geometric lengths become Exp(1);
    # cont(g) = E g(min(X, Y), max(X, Y)), X, Y iid Exp(1).
    cont = ry.exponential_pair_expectation
    lim_cont = sp.simplify(cont(lambda m, Mx: m * Mx / 4 + m**2 / 2 - m**3 / (4 * Mx)) / cont(lambda m, Mx: m**2 / 2))
    facts["geo_lim_cont_ok"] = str(sp.simplify(lim_cont - lim1) == 0)
    curves = dict(qgrid=qgrid, R=Rvals, LG=LGvals, qs=list(qs), geo=geo, lg_num=lg_num, lim=float(lim1))
    return facts, curves
