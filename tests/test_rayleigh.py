"""Reconstructed quadratic forms of 003 Section 4 (kvlib.theory.rayleigh): B_u, A_u, trace identity, Theorem 6."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlib.theory import rayleigh as ry
from kvlib.policies.cyz import interval_instance, run_interval


@pytest.mark.parametrize("s", [0, 2])
def test_B_inverse_is_the_tridiagonal_closed_form(s):
    for u in range(1, 7):
        assert ry.B_sym(u, s).inv() == ry.B_inv_tridiagonal(u, s)


def test_trace_identity_exact_and_per_length():
    for u in range(1, 7):
        H = sum(sp.Rational(1, k) for k in range(1, u + 1))
        assert (ry.B_sym(u).inv() * ry.A_sym(u)).trace() == H
    assert ry.trace_terms_sym(8) == [sp.Rational(1, k) for k in range(1, 9)]
    # the previous candidate fails it (so this test can tell the two apart)
    assert (ry.B_sym(3).inv() * ry.A_candidate_sym(3)).trace() != sp.Rational(11, 6)


def test_trace_identity_numerically_large_u():
    u = 20000
    assert ry.trace_reconstructed(u) == pytest.approx(np.sum(1.0 / np.arange(1, u + 1)), rel=1e-12)
    A = ry.A_matrix(300)
    assert ry.trace_Binv_A(A) == pytest.approx(np.trace(np.linalg.solve(ry.B_matrix(300), A)), rel=1e-9)


def test_A_is_quarter_of_rank_one_plus_lemma3_kernel_and_positive_definite():
    u = 60
    v = np.arange(1, u + 1.0)
    A = ry.A_matrix(u)
    assert np.allclose(A, (np.outer(v, v) + v[:, None] * ry.lemma3_kernel(u) * v[None, :]) / 4)
    assert np.linalg.eigvalsh(A)[0] > 0
    assert np.allclose(np.diag(A), np.diag(ry.B_matrix(u)))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30))
def test_two_point_quotient_is_theorem6(l, extra):
    u = l + extra
    sup = np.array([l, u], dtype=float)
    m, M = np.minimum.outer(sup, sup), np.maximum.outer(sup, sup)
    A = m * M / 4 + m**2 / 2 - m**3 / (4 * M)
    lam = sla.eigh(A, m**2 / 2, eigvals_only=True)[-1]
    assert lam == pytest.approx((3 - l / u) / 2, rel=1e-10)
    p = u / (l + u)  # SymPy's maximiser 1/(alpha + 1)
    assert ry.cr_amin([p, 1 - p], sup) == pytest.approx(lam, rel=1e-10)


def test_whitened_eigenvalue_matches_dense_generalized():
    A = ry.A_matrix(80)
    lam_dense, v_dense = ry.largest_generalized(A, ry.B_matrix(80))
    lam_fast, v_fast = ry.largest_generalized(A)
    assert lam_fast == pytest.approx(lam_dense, rel=1e-10)
    assert np.allclose(v_fast / np.linalg.norm(v_fast), v_dense / np.linalg.norm(v_dense), atol=1e-8)
    assert v_fast.min() >= 0


def test_cr_amin_is_scale_invariant_and_one_on_a_single_length():
    x = np.array([0.2, 0.3, 0.5])
    assert ry.cr_amin(x, [1, 2, 3]) == pytest.approx(ry.cr_amin(x, [2, 4, 6]))
    assert ry.cr_amin([1.0], [7]) == pytest.approx(1.0)


def test_theorem2_hsf_closed_form_equals_simulation():
    l, u, a, b = 2, 8, 2, 4
    o = np.array([l] * (a * u) + [u] * (b * l))
    inst = interval_instance(o, l * u, 0, allow_zero_prompt=True)
    assert run_interval(inst, "h-sf", l, u).tel == ry.thm2_hsf_tel(l, u, a, b)
    assert ry.thm2_batch_ratio_limit(0.25) == pytest.approx(ry.amax_theorem2_ratio(0.25))
    assert ry.thm2_batch_ratio_limit(1 / 9) == pytest.approx(13.5)


def test_geometric_closed_form_matches_truncated_matrices_and_its_limit():
    import sympy as sp

    _, xBx, R = ry.geometric_forms_sym()
    q = sorted(R.free_symbols, key=str)[0]
    for qq in (0.2, 0.5, 0.8):
        u = 1500
        k = np.arange(1, u + 1.0)
        x = (1 - qq) * qq ** (k - 1)
        assert float(R.subs(q, qq)) == pytest.approx(ry.rayleigh(ry.A_matrix(u), ry.B_matrix(u), x), rel=1e-10)
        assert float(xBx.subs(q, qq)) == pytest.approx(x @ ry.B_matrix(u) @ x, rel=1e-10)
    assert sp.simplify(sp.limit(R, q, 1, "-") - (10 - 12 * sp.log(2))) == 0
    assert sp.limit(R, q, 0, "+") == 1
    grid = np.linspace(0.01, 0.99, 99)
    vals = np.array([float(R.subs(q, g)) for g in grid])
    assert np.all(np.diff(vals) > 0) and vals.max() < 10 - 12 * np.log(2)
