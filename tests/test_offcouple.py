"""kvlib.theory.offcouple: 004 Section 5 (Theorem 5.3's proof objects, Algorithm 3 Off-Couple)."""

from fractions import Fraction

import numpy as np
import pytest

from kvlib.core.checker import check_schedule
from kvlib.core.model import Instance, Schedule
from kvlib.optimum.bruteforce import brute_force_opt
from kvlib.theory import offcouple as oc


def _hand():
    # A: arrives 0, o = 4; B: arrives 1, o = 2; s = 1, M = 6 (checked by hand in the docstring of the test below)
    return Instance.from_arrays([0, 1], [1, 1], [4, 2], 6)


def test_residual_opt_matches_brute_force_from_the_empty_state():
    for k in range(12):
        inst = oc.stochastic_instance(np.random.default_rng([11, k]), T=5, M=8, s=1, B=2, p=0.5, o_max=4)
        if inst.n > 7:
            continue
        assert oc.residual_opt(inst, {}, 0)[0] == brute_force_opt(inst)[0]


def test_residual_opt_respects_the_state_and_rejects_bad_input():
    inst = _hand()
    tel, starts = oc.residual_opt(inst, {0: 0}, 1)
    assert starts[0] == 0 and starts[1] >= 1 and tel == 9  # with A started at 0, B cannot complete before 6
    with pytest.raises(ValueError, match="request 0 starts at 2"):
        oc.residual_opt(inst, {0: 2}, 1)
    with pytest.raises(ValueError, match="request 5"):
        oc.residual_opt(inst, {5: 0}, 1)


def test_hand_instance_lemma54_ii_fails():
    """MC-SF starts A at 0 (the only request waiting); B then fits only at 4 (at 1, 2, 3 the pair would hold
    7 or 8 tokens at some round), so TEL(MC-SF) = 4 + 5 = 9.  The optimum starts both at 1 (rounds 2-3 hold
    4 and 6 tokens): TEL 5 + 2 = 7.  Off-Couple from t = 0 must run MC-SF's batch {A} at 0, so t_hat = 5
    (OFF completes A at 5); OFF completes B at 3 <= t_hat, OC at 6 > t_hat: Lemma 5.4 (ii) fails."""
    inst = _hand()
    tel, on = oc.mcsf_starts(inst)
    assert (tel, on) == (9, (0, 4))
    opt, off = oc.residual_opt(inst, {}, 0)
    assert (opt, off) == (7, (1, 1))
    assert check_schedule(inst, Schedule(off)).tel == 7
    cr = oc.off_couple(inst, 0, on, off)
    assert cr.t_hat == 5 and cr.starts == (0, 4)
    chk = oc.lemma54_checks(inst, cr, off)
    assert chk["lemma54_i"] and chk["lemma54_iii"]
    assert not chk["lemma54_ii"] and not chk["same_state"]
    tr = oc.coupling_trace(inst)
    assert tr["cp_sum"] == tr["mcsf"] - tr["opt"] == 2


def test_replication_overflows_memory_on_a_seeded_instance():
    # the overloaded draw of the chapter's coupling table (stochastic_instance, M = 6, s = 1, Bernoulli(0.95))
    inst = Instance.from_arrays(list(range(8)), [1] * 8, [1, 3, 3, 4, 3, 1, 4, 3], 6)
    _, on = oc.mcsf_starts(inst)
    fixed = {i: p for i, p in enumerate(on) if p < 5}
    _, off = oc.residual_opt(inst, fixed, 5, upper=on)
    cr = oc.off_couple(inst, 5, on, off)
    chk = oc.lemma54_checks(inst, cr, off)
    assert not chk["lemma54_i"] and not chk["same_state"]
    assert not check_schedule(inst, Schedule(cr.starts)).valid


def test_telescoping_identity_on_seeded_draws():
    for k in range(6):
        inst = oc.stochastic_instance(np.random.default_rng([3, k]), T=6, M=6, s=1, B=1, p=0.95, o_max=4)
        tr = oc.coupling_trace(inst)
        assert tr["cp_sum"] == tr["mcsf"] - tr["opt"]
        assert all(r["CP"] >= 0 for r in tr["rows"])
        # where OC is feasible it is a continuation of the online state at t + 1, so L^OC - L^OFF >= CP
        assert all(r["bound"] for r in tr["rows"] if r["lemma54_i"])


def test_off_couple_rejects_an_off_schedule_from_another_state():
    inst = _hand()
    with pytest.raises(ValueError, match="request 0"):
        oc.off_couple(inst, 1, (0, 4), (1, 1))


def test_hoeffding_display_is_true_but_its_bad_event_is_not_rare():
    rows = [oc.hoeffding_display(1, Fraction(1, 2), Fraction(1, 2), 20, T) for T in (10, 100, 1000)]
    assert all(r["holds"] for r in rows)
    assert rows[-1]["bound"] > 0.99 and rows[-1]["prob"] > 0.3  # bound near 1; the event keeps probability ~ 1/2
    with pytest.raises(ValueError, match="p, q"):
        oc.hoeffding_display(1, Fraction(0), Fraction(1, 2), 5, 5)


def test_stochastic_instance_rejects_bad_parameters():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="does not fit"):
        oc.stochastic_instance(rng, T=5, M=4, s=1, B=1, p=0.5, o_max=4)
    with pytest.raises(ValueError, match="p must be"):
        oc.stochastic_instance(rng, T=5, M=8, s=1, B=1, p=1.5, o_max=4)
    with pytest.raises(ValueError, match="x="):
        oc.min_output_display(_hand(), 9, 4)
