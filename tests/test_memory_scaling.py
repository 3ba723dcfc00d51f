"""kvlib.theory.memory_scaling: 003's Definitions EC.1-EC.2, Proposition EC.1, eq. (EC.7) and
Theorem EC.1 (Appendix EC.1 and EC.3 of Chen, Ye and Zhou)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp

from kvlib.policies.cyz import interval_instance
from kvlib.theory import memory_scaling as ms

# 003 Example EC.1: M = 7, s = 1, o = (1, 2, 3, 4); batch k = start time k.
I1 = (0, 2, 0, 3)  # ({1,3}, {}, {2}, {4})
I2 = (1, 1, 0, 3)  # ({3}, {1,2}, {}, {4})
I3 = (0, 0, 0, 2)  # ({1,2,3}, {}, {4})


def test_example_ec1_definitions():
    assert ms.corresponding_order(I1, I2)
    assert ms.corresponding_order(I1, I3) and ms.corresponding_order(I2, I3)
    assert not ms.delayed(I1, I2) and not ms.delayed(I2, I1)
    assert ms.delayed(I3, I1) and ms.delayed(I3, I2)
    assert not ms.corresponding_order((0, 1), (1, 0))


def test_example_ec1_packing():
    inst = interval_instance([1, 2, 3, 4], 7, 1)
    assert all(ms.feasible(inst, I) for I in (I1, I2, I3))
    assert ms.optimally_packed(inst, I3)
    # I2 starts jobs 1 and 2 at 1 although job 1 fits at 0 beside job 3
    assert not ms.optimally_packed(inst, I2)


def test_bad_input_named():
    with pytest.raises(ValueError, match="2 and 3 requests"):
        ms.corresponding_order((0, 1), (0, 1, 2))
    with pytest.raises(ValueError, match=">= 0"):
        ms.delayed((0, -1), (0, 0))
    with pytest.raises(ValueError, match="beta"):
        ms.coupling_row(n=4, l=1, u=4, s=1, M=12, beta=1.0, perms=2, seed=0)
    with pytest.raises(ValueError, match="cannot hold"):
        ms.coupling_row(n=4, l=1, u=4, s=1, M=12, beta=0.3, perms=2, seed=0)
    with pytest.raises(ValueError, match="n <= 7"):
        ms.coupled_expectations(list(range(1, 9)), 1, 20, 10, 1, 8)


def test_proposition_ec1_example():
    ex = ms.proposition_ec1_example()
    assert (ex["tel_M"], ex["tel_betaM"]) == (4, 9)
    assert ex["starts_betaM"] == (2, 3, 0)
    assert ex["feasible"] and ex["packed"] and ex["same_order"]
    assert not ex["holds"]


def test_coupled_expectations_four_requests():
    # the coupled means at M and M/2; with lengths 1..4 (alpha <= 1/4) this is Proposition EC.1's
    # inequality at beta = 1/2, not eq. (EC.7) itself (test_errata.py::test_003_ec7_inside_hypotheses)
    r = ms.coupled_expectations((1, 2, 3, 4), 1, 10, 5, 1, 4)
    assert (r["E_tel_M"], r["E_tel_small"]) == (Fraction(10), Fraction(121, 6))
    assert r["quotient"] == Fraction(121, 60) and not r["holds"]
    # a case where it holds: one length only
    assert ms.coupled_expectations((2, 2, 2), 1, 6, 3, 1, 4)["holds"]


def test_coupling_row_deterministic_and_consistent():
    kw = dict(n=8, l=1, u=4, s=1, M=12, beta=0.5, perms=6, seed=0)
    a, b = ms.coupling_row(**kw), ms.coupling_row(**kw)
    assert a == b
    assert 0 <= a["violations_meeting_hypotheses"] <= a["violations"] <= 6
    assert a["small_M"] == 6 and a["inv_beta"] == 2.0
    assert a["max_ratio"] >= a["mean_ratio"] * 0.999 or a["violations"] == 0


def test_theorem_ec1_part1_exact():
    amax = ms.theorem_ec1_part1("a-max")
    assert amax["sup_all"] == Fraction(12, 7) and amax["argmax_all"] == (1, 2, 3)
    assert amax["sup_ends"] == Fraction(5, 3) and not amax["holds"]
    arand = ms.theorem_ec1_part1("a-random")
    assert arand["sup_all"] == Fraction(53, 42) and arand["argmax_all"] == (1, 2, 3)
    assert arand["sup_ends"] == Fraction(11, 10) and not arand["holds"]
    with pytest.raises(ValueError, match="policy"):
        ms.theorem_ec1_part1("a-min")


def test_ec6_proof_maximum():
    a = sp.Symbol("alpha", positive=True)
    val, arg = ms.ec6_proof_maximum(0)
    assert sp.simplify(val - (1 + 1 / a) / 2) == 0 and sp.simplify(arg - 1 / a) == 0
    val1, _ = ms.ec6_proof_maximum(1)
    for av in (sp.Rational(1, 10), sp.Rational(1, 3), sp.Rational(4, 5)):
        assert float(val1.subs(a, av)) <= float(ms.ec6_bound(av)) + 1e-12


def test_a_random_two_point_row_below_ec6():
    r = ms.a_random_two_point_row(l=2, u=8, s=0, M=40, load=5, p=0.8, rep=0, seed=0)
    assert r["n"] == 200 and r["ec6"] == pytest.approx(2.5)
    assert 1.0 <= r["ratio"] <= r["ec6"]


# --------------------------------------------------------------------------- Lemma EC.1


def test_amax_permutation_fixes_the_order():
    from kvlib.policies.cyz import AMax

    inst = interval_instance([2, 1, 2], 5, 1)
    for perm in ((2, 0, 1), (1, 2, 0), (0, 1, 2)):
        _, st = ms.checked_run(inst, AMax(permutation=perm), 1, 2)
        assert [st[i] for i in perm] == sorted(st[i] for i in perm)
    assert ms.checked_run(inst, AMax(permutation=(2, 0, 1)), 1, 2) == (8, [1, 2, 0])
    with pytest.raises(ValueError, match="permutation"):
        ms.checked_run(inst, AMax(permutation=(0, 0, 1)), 1, 2)


def test_lemma_ec1_two_requests_by_hand():
    # o = (1, 2), s = 1, l = 1, u = 2, M = 6: A_max starts both at 0 (2 (s + u) = 6), TEL 1 + 2 = 3 for
    # both orders; A_random under alpha M = 3 runs one at a time: TEL 1 + 3 = 4 or 2 + 3 = 5.
    r = ms.lemma_ec1_coupling((1, 2), 1, 6, 1, 2)
    assert r["small_M"] == 3 and r["perms"] == 2
    assert r["E_tel_max"] == 3 and r["E_tel_random"] == Fraction(9, 2)
    assert r["holds"] and r["tel_worse"] == 0 and r["start_later"] == 0


def test_lemma_ec1_holds_on_small_grids():
    rows = ms.lemma_ec1_summary([(3, 1, 3, 1, 12), (4, 1, 2, 1, 6), (4, 2, 4, 0, 8)])
    for row in rows:
        assert row["ec8_holds"] == row["instances"] > 0
        assert row["tel_worse"] == 0 and row["start_later"] == 0
        assert row["max_quotient"] <= 1
    assert rows[1]["pairs"] == 5 * 24


def test_lemma_ec1_bad_input():
    with pytest.raises(ValueError, match="alpha M"):
        ms.lemma_ec1_coupling((1, 2), 1, 5, 1, 2)  # 5/2 is not an integer
    with pytest.raises(ValueError, match=r"\[l, u\]"):
        ms.lemma_ec1_coupling((1, 3), 1, 6, 1, 2)
