"""Every erratum entry against the hypotheses of the theorem it concerns (book/errata.md).

Two kinds of test:

* the computations an independent reading of the page asked for (instances inside or outside each
  theorem's regime, both sides of failing steps for every optimal schedule, the maximum of 003
  Theorem 2's expression, 003 Lemma 2 at positive prompts), with ``kvlib.theory.errata_checks``;
* a walk over the page and ``book/mission.yml``: every entry (and every ``differs: erratum`` row)
  names an instance that is checked here by a function encoding the theorem's hypotheses, says
  "outside" where one lies outside them, carries a verdict of the required form, and every figure of
  its folded "How this is checked" line occurs in the source of the test that line names; a figure the
  page glues from chapters/errata_values.ipynb is named there by its key, shown in the entry, and
  compared by that test with ``kvlib.book.chapters.errata_values.values``.
"""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from kvlib.book import mission as mission_mod
from kvlib.book.chapters.errata_values import values as EV  # the figures the errata page glues
from kvlib.core.model import Instance
from kvlib.theory import errata_checks as ec

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "book" / "errata.md").read_text()


def _entries() -> dict[str, str]:
    """label -> text (from its label line to the next label), for the errata entries proper."""
    body = PAGE[:PAGE.index("(errata-not-reproduced)=")]
    parts = re.split(r"^\((errata-[\w-]+)\)=\n", body, flags=re.M)
    out = {}
    for label, text in zip(parts[1::2], parts[2::2]):
        if text.startswith("### "):
            out[label] = text
    return out


ENTRIES = _entries()


def _wyz_family():
    from kvlib.theory import wyz_chain_paper as wc
    return [wc.random_instance(seed=7, trial=t, n=n, memory=M) for n in (2, 3, 4, 5) for M in (12, 16) for t in range(12)]


# --------------------------------------------------------------------------------------------
# The computations
# --------------------------------------------------------------------------------------------

def test_002_theorem1_family_inside_the_regime():
    """002 Theorem 1 inside the standing assumption: M = j^4, M requests (sqrt(M) - 1, 1) and M^(5/4)
    requests (1, 2).  MC-SF / (a checked schedule) is 1.68 at M = 256, 2.37 at 1296, 3.05 at 4096, and
    grows at every step j = 2..8; the largest size over M falls from 3/16 to 63/4096."""
    rows = [ec.theorem1_family(j) for j in range(2, 9)]
    ratios = [r["ratio_lower"] for r in rows]
    assert all(b > a for a, b in zip(ratios, ratios[1:]))
    got = {r["M"]: f"{float(r['ratio_lower']):.2f}" for r in rows}
    assert (got[256], got[1296], got[4096]) == ("1.68", "2.37", "3.05")
    V = EV.values_002()
    assert (V["w1-family-256"], V["w1-family-1296"], V["w1-family-4096"]) == (got[256], got[1296], got[4096])
    assert (V["w1-family-share-first"], V["w1-family-share-last"]) == ("3/16", "63/4096")
    assert V["w1-family-grows"] == "grows at every step"
    v = ec.regime_002([r["instance"] for r in rows])
    assert v.inside and "3/16" in v.why and "63/4096" in v.why
    assert all(ec.theorem1_002(r["instance"]).inside for r in rows)
    # the chapter's family (sqrt(M) requests (M - 1, 1)) meets Theorem 1's hypothesis but not the assumption
    from kvlib.theory.adversary import heavy_short_instance, wyz_thm1_instance
    heavy = [heavy_short_instance(M) for M in (16, 64, 256, 1024)]
    assert not ec.regime_002(heavy).inside and all(ec.theorem1_002(i).inside for i in heavy)
    # the proof's own construction is inside it
    assert ec.regime_002([wyz_thm1_instance(M) for M in (16, 64, 256)]).inside
    with pytest.raises(ValueError, match="j must be at least 2"):
        ec.theorem1_family(1)


def test_002_theorem5_inside_and_outside_the_regime():
    """002 Theorem 5: on s = (1, 1, 6), o = (5, 5, 1), M = 12 the line after the epsilon line is 31/2
    against TEL(group) = 11; k copies with M = 12 k (inside the regime): expression 11k + 1, true
    TEL(separate) 13k, TEL(group) 11k for k = 1..20.  The hand instance, the 96 seeded instances and
    002's Table EC.1 instances (M = 100, sizes up to 50) lie outside the regime; 2k requests (1, 1)
    with M = 4k lie inside."""
    hand = ec.theorem5_copies(1)
    assert hand["epsilon_line"] == Fraction(31, 2) and hand["tel_group"] == 11 and hand["tel_separate"] == 13
    V = EV.values_002()
    assert (V["w5-eps-line"], V["w5-tel-group"], V["w5-copies-ratio"]) == ("31/2", 11, "13/11")
    fam = [ec.theorem5_copies(k) for k in range(1, 21)]
    for k, r in enumerate(fam, start=1):
        assert (r["expression"], r["tel_separate"], r["tel_group"]) == (11 * k + 1, 13 * k, 11 * k)
        assert r["tel_separate"] - r["expression"] == 2 * k - 1 and len(r["groups"]) == 1
    assert ec.regime_002([r["instance"] for r in fam]).inside
    assert not ec.regime_002(hand["instance"]).inside
    assert not ec.regime_002(_wyz_family()).inside
    import numpy as np
    from kvlib.book.chapters.sortedf.synthetic import EC1_DISTRIBUTIONS, ec1_sample
    for d in EC1_DISTRIBUTIONS:
        s, o = ec1_sample(d, np.random.default_rng(0), 100)
        assert not ec.regime_002(Instance.at_zero(s.tolist(), o.tolist(), 100)).inside
    assert ec.regime_002([Instance.at_zero([1] * (2 * k), [1] * (2 * k), 4 * k) for k in (1, 2, 5, 50)]).inside


def test_002_lemma2_no_room_inside_the_regime():
    """002 Lemma 2's critical inequality with no room, k copies of 50 requests (1, 1) and 30 requests
    (1, 3) with M = 100 k (k = 1, 2, 4): q = 0 and both sides 1/(50k); inside the regime."""
    from kvlib.theory import wyz_chain_paper as wc
    from kvlib.theory.wyz_errata import lemma2_steps

    insts = []
    for k in (1, 2, 4):
        inst = Instance.at_zero([1] * (80 * k), [1] * (50 * k) + [3] * (30 * k), 100 * k)
        _, _, bl = wc.sf_run(inst)
        (st,) = lemma2_steps(inst.prompt, inst.output, 100 * k, bl)
        assert st["q"] == 0 and st["critical_lhs"] == st["critical_rhs"] == Fraction(1, 50 * k) and st["ec3"]
        insts.append(inst)
    assert ec.regime_002(insts).inside


def test_002_theorem7_failing_steps_for_every_optimal_schedule():
    """002 Theorem 7's display, for every optimal schedule: on s = (6, 2), o = (4, 5), M = 12 (one
    optimal schedule) the last '=' has 102 against 6 TEL = 78; on s = (4, 6, 3), o = (5, 5, 6), M = 12
    (two optimal schedules, OPT 31) the '<=' before it has 106 against 96 and the last '=' 96 against
    186 on both.  Over the 96 seeded instances the last '=' fails for every optimal schedule on 61 (for
    one at least on 67), the '<=' on 10 (13).  Hand instances outside the regime; family (b) inside."""
    d = ec.theorem7_over_optima([6, 2], [4, 5], 12)
    assert d["opt"] == 13 and d["n_optimal"] == 1 and d["eq_fails_all"] and not any(r["le_fails"] for r in d["schedules"])
    assert [(r["E8"], r["E9"]) for r in d["schedules"]] == [(102, 78)]
    e = ec.theorem7_over_optima([4, 6, 3], [5, 5, 6], 12)
    assert e["opt"] == 31 and e["n_optimal"] == 2 and e["le_fails_all"] and e["eq_fails_all"]
    assert {r["starts"] for r in e["schedules"]} == {(0, 5, 10), (5, 0, 10)}
    assert all((r["E7"], r["E8"], r["E9"]) == (106, 96, 186) for r in e["schedules"])
    assert ec.theorem7_family_counts(_wyz_family()) == {"le_all": 10, "le_some": 13, "eq_all": 61, "eq_some": 67,
                                                      "n": 96}
    V = EV.values_002()
    assert (V["w7-d-left"], V["w7-d-right"], V["w7-e-opt"]) == (102, 78, 31)
    assert (V["w7-e-le-left"], V["w7-e-le-right"], V["w7-e-eq-right"]) == (106, 96, 186)
    assert V["w7-e-starts"] == "(0, 5, 10) and (5, 0, 10)"
    assert V["w5-family-n"] == len(_wyz_family()) == 96
    assert (V["w7-eq-all"], V["w7-eq-some"], V["w7-le-all"], V["w7-le-some"]) == (61, 67, 10, 13)
    assert not ec.regime_002(Instance.at_zero([6, 2], [4, 5], 12)).inside
    assert ec.regime_002([Instance.at_zero([3] * k + [1] * k, [6] * k + [3] * k, 12 * k) for k in (1, 2, 5, 10)]).inside


def test_003_theorem2_maximum_over_a_over_b():
    """003 Theorem 2's proof expression f(r), r = a/b: maximum at r = 1 + sqrt(2 + 2 alpha); 4.530 at
    alpha = 1/4, 10.54 at 1/9, 120.4 at 1/100 (stated formula 6, 18, 550); alpha f(r*) -> (1 + sqrt 2)/2;
    f < (3 - alpha)/(2 alpha) for every r (order 1/alpha).  The proof's s = 0 is outside 003's model."""
    r = ec.theorem2_maximum()
    al, rr = r["symbols"]
    assert sp.simplify(r["r_star"] - (1 + sp.sqrt(2 + 2 * al))) == 0
    fmt = {a: f"{float(v[0]):.4g}" for a, v in r["values"].items()}
    assert [fmt[sp.Rational(1, 4)], fmt[sp.Rational(1, 9)], fmt[sp.Rational(1, 100)]] == ["4.53", "10.54", "120.4"]
    assert f"{float(r['values'][sp.Rational(1, 4)][0]):.3f}" == "4.530"
    assert [r["values"][a][2] for a in (sp.Rational(1, 4), sp.Rational(1, 9), sp.Rational(1, 100))] == [6, 18, 550]
    assert [r["values"][a][1] for a in (sp.Rational(1, 4), sp.Rational(1, 9))] == [3, sp.Rational(9, 2)]
    assert sp.simplify(r["alpha_f_max_limit"] - (1 + sp.sqrt(2)) / 2) == 0
    assert f"{float(r['alpha_f_max_limit']):.3f}" == "1.207"
    # (3 - alpha)/(2 alpha) - f = (1 - alpha)((r - 1)^2 + 2 + 2 alpha r) / (2 alpha (r^2 + 2 alpha r + 1)) > 0
    gap = sp.simplify((3 - al) / (2 * al) - r["f"])
    assert sp.simplify(gap - (1 - al) * ((rr - 1) ** 2 + 2 + 2 * al * rr) / (2 * al * (rr ** 2 + 2 * al * rr + 1))) == 0
    assert not ec.model_003(0, [1, 4], 1, 4).inside
    V = EV.values_003()
    assert [V[f"c2-max-{a}"] for a in ("a4", "a9", "a100")] == ["4.530", "10.54", "120.4"]
    assert [V[f"c2-stated-{a}"] for a in ("a4", "a9", "a100")] == ["6", "18", "550"]
    assert V["c2-limit"] == "1.207"


@pytest.mark.parametrize("s, value, key", [(0, "1.3750", "c6-lemma2-s0"), (1, "1.3859", "c6-lemma2-s1"),
                                           (2, "1.3953", "c6-lemma2-s2"), (4, "1.4107", "c6-lemma2-s4"),
                                           (8, "1.4325", "c6-lemma2-s8"), (16, "1.4571", "c6-lemma2-s16")])
def test_003_theorem6_lemma2_at_positive_prompts(s, value, key):
    """003 Lemma 2 on {8, 32} (alpha = 1/4, bound 1.375) maximised over the share of l: 1.3750 at s = 0,
    1.3859, 1.3953, 1.4107, 1.4325, 1.4571 at s = 1, 2, 4, 8, 16; every s >= 1 inside 003's model and
    D_2, s = 0 outside."""
    m = ec.lemma2_two_point_max(8, 32, s)
    assert f"{m['value']:.4f}" == value and m["bound"] == Fraction(11, 8)
    assert (m["excess"] > 0) == (s > 0) and abs(m["excess"]) < Fraction(1, 10) + (s > 8) * Fraction(1, 10)
    assert ec.model_003(s, [8, 32], 8, 32, two_point=True).inside == (s > 0)
    assert float(EV.values_003()[key]) == float(value) and EV.values_003()["c6-bound"] == "1.375"


def test_003_lemma2_depends_on_s_over_l_only_and_matches_the_exact_evaluator():
    """Lemma 2 on {8, 32} with s = 8 is the same rational function as on {1, 4} with s = 1 (the
    normalisation l = 1 is without loss of generality, s = 0 is not); the SymPy form agrees with
    kvlib.theory.cyz_errata.lemma2_ratio_exact; towards s/l -> infinity the maximum approaches 1.5."""
    from kvlib.theory.cyz_errata import lemma2_ratio_exact

    a, t = ec.lemma2_two_point(8, 32, 8)
    b, t1 = ec.lemma2_two_point(1, 4, 1)
    assert sp.simplify(a - b.subs(t1, t)) == 0
    assert a.subs(t, 3) == sp.Rational(*lemma2_ratio_exact({8: Fraction(3), 32: Fraction(1)}, 8).as_integer_ratio())
    assert f"{ec.lemma2_two_point_max(1, 4, 1)['value']:.4f}" == "1.4325"
    assert 1.4999 < ec.lemma2_two_point_max(1, 4, 1000)["value"] < 1.5
    with pytest.raises(ValueError, match="0 < l < u"):
        ec.lemma2_two_point(4, 4, 1)


def test_004_lemma54_ii_fails_inside_s_over_M():
    """004 Lemma 5.4 (ii) with s = 1, M = 2k + 2, A at 0 (o = k + 2), B at 1 (o = k): fails for every
    even k from 2 to 20 (M = 6 to 42): the optimum completes B at k + 1, Off-Couple at k + 4 after
    t_hat = k + 3.  The family is inside s/M -> 0; the single instance (k = 2) and the chapter's
    draws (M = 6) are not."""
    rows = [ec.lemma54_family(k) for k in range(2, 21, 2)]
    for k, r in zip(range(2, 21, 2), rows):
        assert not r["ii"] and r["opt_starts"] == (1, 1) and r["mcsf_starts"] == (0, 4)
        assert (r["off_B"], r["oc_B"], r["t_hat"]) == (k + 1, k + 4, k + 3)
    assert (rows[0]["M"], rows[-1]["M"]) == (6, 42)
    v = ec.s_over_M_004([r["instance"] for r in rows])
    assert v.inside and "1/6" in v.why and "1/42" in v.why
    assert not ec.s_over_M_004(rows[0]["instance"]).inside
    from kvlib.book.chapters.mcsf_ratio.offcouple_rows import REGIMES
    assert {g["M"] for g in REGIMES.values()} == {6} and {g["s"] for g in REGIMES.values()} == {1}


def test_hypothesis_functions_reject_bad_input():
    with pytest.raises(ValueError, match="empty family"):
        ec.regime_002([])
    with pytest.raises(ValueError, match="member 0 is a int"):
        ec.regime_002([3])
    with pytest.raises(ValueError, match="need 0 < l < u"):
        ec.model_003(1, [2], 3, 2)
    with pytest.raises(ValueError, match="true lengths"):
        ec.predictions_004([1], [1, 2], 1)
    with pytest.raises(ValueError, match="arrival_model"):
        ec.section51_001(Instance.at_zero([1] * 40, [1] * 40, 40), 3)


# --------------------------------------------------------------------------------------------
# The walk over every entry
# --------------------------------------------------------------------------------------------

def _at0(s, o, M):
    return Instance.at_zero(list(s), list(o), M)


def _section51(model: int):
    import numpy as np
    from kvlib.core.instances import section51
    return ec.section51_001(section51(np.random.default_rng(0), model), model)


def _t42_family():
    return ec.s_over_M_004([_at0([1] * 4, [M // 2 - 2, M // 2 - 2, M // 2, M // 2], M) for M in (10, 12, 20, 30, 40, 50)])


def _copies(s, o, M, ks):
    return ec.regime_002([_at0(list(s) * k, list(o) * k, M * k) for k in ks])


def _b3_argmax():
    """The instance (n, s, o, M) at which the page's largest Lemma B.2 ratio on the grid is attained."""
    text = EV.values_001()["b3-grid-argmax-exact"]  # "n = 24, s = 1, o = 14, M = 30"
    got = dict(part.split(" = ") for part in text.split(", "))
    return tuple(int(got[k]) for k in ("n", "s", "o", "M"))


def _ec7():
    from kvlib.theory.cyz_errata import EC7_INSTANCE
    return ec.model_003(EC7_INSTANCE["s"], EC7_INSTANCE["o"], EC7_INSTANCE["l"], EC7_INSTANCE["u"])


# label -> [(text that names the instance on the page, verdict of the hypothesis function, declared inside)]
INSTANCES = {
    "errata-001-lemma-4-4": [("$o = (1, 2)$, $M = 6$", lambda: ec.theorem43_001(_at0([1, 1], [1, 2], 6)), True)],
    "errata-001-b3": [("$n = 3$ identical requests with $s = o = 1$ and $M = 4$", lambda: ec.b3_setting_001(3, 1, 1, 4), True),
                      ("$n = 10$, $s = o = 1$", lambda: ec.b3_setting_001(10, 1, 1, 4), True),
                      ("b3-grid-argmax-exact", lambda: ec.b3_setting_001(*_b3_argmax()), True)],
    "errata-001-am1": [("Arrival Model 1 instances of the paper's", lambda: _section51(1), True)],
    "errata-001-am2": [("draws of the paper's", lambda: _section51(2), True)],
    "errata-004-theorem-4-2": [("$(M/2-2, M/2-2, M/2, M/2)$", _t42_family, True),
                               ("$M = 5$, $s = 1$, outputs $(1, 1, 3, 3)$",
                                lambda: ec.s_over_M_004(_at0([1] * 4, [1, 1, 3, 3], 5)), False)],
    "errata-004-kv-sizing": [("Llama-2-70B on two A100 GPUs", lambda: ec.kv_sizing_004(80, 8192, 2, 20), True)],
    "errata-004-lemma-5-4": [("$M = 2k + 2$", lambda: ec.s_over_M_004([ec.lemma54_family(k)["instance"] for k in (2, 4, 8, 20)]), True),
                             ("two requests, $s = 1$, $M = 6$",
                              lambda: ec.s_over_M_004(Instance.from_arrays([0, 1], [1, 1], [4, 2], 6)), False)],
    "errata-004-lemmas-5-5-5-6": [("$\\mathrm{Binomial}(2, 1/2)$ arrivals per round, outputs uniform on 1 to 4",
                                   lambda: ec.stochastic_004(2, Fraction(1, 2), [1, 2, 3, 4]), True)],
    "errata-004-theorem-6-2": [("$M = 1024$, $\\varepsilon = 1/4$", lambda: ec.theorem62_004(1024, Fraction(1, 4)), True)],
    "errata-004-theorem-6-4": [("$M = 1000$, $\\varepsilon = 1/10$", lambda: ec.theorem64_004(1, Fraction(1, 10)), True)],
    "errata-004-section-8-1": [("$\\hat o = 3$, $\\delta = 1$, true output $4$",
                                lambda: ec.predictions_004([4, 4], [3, 3], 1), True)],
    "errata-002-theorem-1": [("$M^{5/4}$ requests", lambda: ec.regime_002([ec.theorem1_family(j)["instance"] for j in (2, 4, 6)]), True),
                             ("$\\sqrt M$ requests $(M-1, 1)$", lambda: ec.regime_002(
                                 [__import__("kvlib.theory.adversary", fromlist=["x"]).heavy_short_instance(M) for M in (16, 64, 256)]), False)],
    "errata-002-theorem-ec1": [("$X = M$ requests $(1, \\sqrt M - 1)$", lambda: ec.regime_002(
        [__import__("kvlib.theory.adversary", fromlist=["x"]).wyz_ec1_instance(M) for M in (16, 64, 256)]), True)],
    "errata-002-np-hardness": [("items $(3, 3, 4)$ with $T = 10$", lambda: ec.three_partition_002([3, 3, 4], 10), True),
                               ("Items $(1, 1, 2, 2)$", lambda: ec.partition_002([1, 1, 2, 2], 3), True)],
    "errata-002-theorem-5": [("$k$ copies of the instance", lambda: _copies([1, 1, 6], [5, 5, 1], 12, (1, 2, 5, 20)), True),
                             ("$s = (1, 1, 6)$, $o = (5, 5, 1)$, $M = 12$", lambda: ec.regime_002(_at0([1, 1, 6], [5, 5, 1], 12)), False),
                             ("seeded small instances", lambda: ec.regime_002(_wyz_family()), False)],
    "errata-002-lemma-2": [("$k$ copies with $M = 100k$", lambda: _copies([1] * 80, [1] * 50 + [3] * 30, 100, (1, 2, 4)), True),
                           ("seeded small", lambda: ec.regime_002(_wyz_family()), False)],
    "errata-002-theorem-7": [("$s = (6, 2)$, $o = (4, 5)$, $M = 12$", lambda: ec.regime_002(_at0([6, 2], [4, 5], 12)), False),
                             ("copies of $(s, o) = (3, 6)$ and $(1, 3)$ with $M = 12k$",
                              lambda: _copies([3, 1], [6, 3], 12, (1, 2, 5, 10)), True)],
    "errata-002-theorem-8": [("$s = (1, 1, 1)$, $o = (1, 4, 4)$, $M = 7$",
                              lambda: ec.regime_002(_at0([1, 1, 1], [1, 4, 4], 7)), False)],
    "errata-003-theorem-2": [("takes $s = 0$", lambda: ec.model_003(0, [1, 4], 1, 4), False)],
    "errata-003-theorem-6": [("$s = 1, 2, 4, 8, 16$", lambda: ec.model_003(1, [8, 32], 8, 32, two_point=True), True),
                             ("At $s = 0$ (outside", lambda: ec.model_003(0, [8, 32], 8, 32, two_point=True), False)],
    "errata-003-theorem-8": [("With $s = 1$ (inside the model)", lambda: ec.model_003(1, range(1, 301), 1, 300), True)],
    "errata-003-proposition-ec1": [("$n = 3$, $s = 1$, $o = (1, 1, 2)$", lambda: ec.model_003(1, [1, 1, 2], 1, 2), True),
                                   ("$o = (2, 2, 2, 4)$, $s = 2$", _ec7, True)],
    "errata-003-theorem-ec1": [("$\\ell = 1$, $u = 3$, $s = 1$, $n = 3$, $M = 5$", lambda: ec.model_003(1, [1, 2, 3], 1, 3), True)],
}

VERDICT = re.compile(r"\*\*Verdict\*\*: (?:the proofs? fails? at .+?, the statements? (?:is|are) not refuted"
                     r"|a counterexample to the statement itself"
                     r"|(?:a )?reported (?:number|average|numbers)s?)", re.S)


def _mission_labels() -> set[str]:
    rows = mission_mod.load(ROOT / "book" / "mission.yml")
    return {r.erratum for r in rows if r.status == "differs: erratum"}


def test_every_entry_and_every_erratum_row_is_registered():
    labels = set(ENTRIES)
    assert labels == set(INSTANCES), (sorted(labels - set(INSTANCES)), sorted(set(INSTANCES) - labels))
    assert _mission_labels() <= labels


@pytest.mark.parametrize("label", sorted(INSTANCES))
def test_entry_names_its_instances_and_they_are_checked_against_the_hypotheses(label):
    text = " ".join(ENTRIES[label].split())
    assert INSTANCES[label], f"{label}: names no instance"
    for snippet, check, inside in INSTANCES[label]:
        assert " ".join(snippet.split()) in text, f"{label}: the instance {snippet!r} is not named on the page"
        v = check()
        assert isinstance(v, ec.Verdict), f"{label}: {snippet!r} is not checked by a hypothesis function"
        assert v.inside == inside, f"{label}: {snippet!r}: declared inside={inside}, the hypotheses say {v}"
        if not inside:
            assert "outside" in text, f"{label}: {snippet!r} lies outside the hypotheses and the entry does not say so"


@pytest.mark.parametrize("label", sorted(INSTANCES))
def test_entry_has_a_verdict_of_the_required_form(label):
    assert VERDICT.search(re.sub(r"\n>\s*", " ", ENTRIES[label])), f"{label}: no verdict 'the proof fails at ..., the statement is not refuted'" \
                                           f" or 'a counterexample to the statement itself'"


def _test_sources() -> dict[str, str]:
    out = {}
    for path in (ROOT / "tests").glob("test_*.py"):
        src = path.read_text()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                decos = "".join(ast.get_source_segment(src, d) + "\n" for d in node.decorator_list)
                out[f"tests/{path.name}::{node.name}"] = decos + ast.get_source_segment(src, node)
    return out


SOURCES = _test_sources()
REF = re.compile(r"`(tests/test_\w+\.py)::(test_\w+)`")


def _dropdown(text: str) -> str:
    m = re.search(r":::\{dropdown\} How this is checked\n(.*?)\n:::", text, re.S)
    return m.group(1) if m else ""


GLUE = re.compile(r"\{glue:\w+\}`/chapters/errata_values\.ipynb::([\w-]+)(?::[^`]*)?`")
KEY = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")


def _parenthesis(text: str) -> str | None:
    """The text inside the parenthesis that opens ``text`` (balanced, so "(items $(3, 3, 4)$, ...)" is
    read whole), or None when ``text`` does not start with one."""
    text = text.lstrip()
    if not text.startswith("("):
        return None
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return text[1:i]
    return text[1:]


def _compared(key: str, src: str) -> bool:
    """Whether a test's source looks the glued value ``key`` up: literally, or by an f-string such as
    ``f"w7-b-k{k}"`` that builds it."""
    if f'"{key}"' in src:
        return True
    return any(key.startswith(pre) and key.endswith(suf) and len(key) > len(pre) + len(suf)
               for pre, suf in re.findall(r'f"([\w-]+)\{[^}]*\}([\w-]*)"', src))


def _forms(fig: str) -> list[str]:
    plain = fig.replace(",", "")
    forms = [fig, plain, fig.replace(",", "_")]
    if "/" in plain:
        a, b = plain.split("/")
        forms += [f"Fraction({a}, {b})", f"Rational({a}, {b})", f"{a} / {b}", f"({a}, {b})"]
    return forms


def test_every_test_the_page_names_exists():
    names = REF.findall(PAGE)
    assert len(names) >= 40
    missing = [f"{f}::{n}" for f, n in names if f"{f}::{n}" not in SOURCES]
    assert not missing, missing


@pytest.mark.parametrize("label", sorted(INSTANCES))
def test_figures_of_the_folded_line_are_computed_by_the_test_it_names(label):
    """Each figure in the parenthesis after a test name is in that test's source (its code or its
    docstring) and in the entry's text above the folded line."""
    drop = _dropdown(ENTRIES[label])
    assert drop, f"{label}: no folded 'How this is checked' line"
    body = " ".join(ENTRIES[label][:ENTRIES[label].index(":::{dropdown}")].split())
    pieces = re.split(r"(`tests/test_\w+\.py::test_\w+`)", drop)
    checked = 0
    for ref, after in zip(pieces[1::2], pieces[2::2]):
        inside = _parenthesis(" ".join(after.split()))
        if inside is None:
            continue
        key = ref.strip("`")
        src = SOURCES[key]
        for gk in KEY.findall(inside):  # a figure glued from the page's computations, named by its key
            assert gk in GLUE.findall(body), f"{label}: the folded line names {gk}, which the entry does not show"
            assert _compared(gk, src), f"{label}: {gk} is not compared with a computation in {key}"
            checked += 1
        words = re.sub(r"`[^`]*`", "", inside)
        for fig in re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:/\d+)?(?![\w])", words):
            fig = fig.rstrip(",")
            assert any(f in src for f in _forms(fig)), f"{label}: {fig} is not in {key}"
            assert any(f in body for f in (fig, fig.replace(",", "{,}"))), f"{label}: {fig} is not in the entry's text"
            checked += 1
    assert checked or label in {"errata-001-am2"}, f"{label}: no figure bound to a test"


def test_every_glued_figure_is_computed_and_bound_to_a_test():
    """Every figure the page glues from its computations (chapters/errata_values.ipynb) is a key of
    kvlib.book.chapters.errata_values.values.all_values, and the entry that shows it names it in its folded
    line (where the walk above checks that the named test compares it)."""
    keys = set(EV.all_values())
    on_page = set(GLUE.findall(PAGE))
    assert len(on_page) >= 100 and on_page <= keys, sorted(on_page - keys)
    unbound = []
    for label, text in ENTRIES.items():
        drop = _dropdown(text)
        unbound += [f"{label}: {k}" for k in set(GLUE.findall(text)) if f"`{k}`" not in drop]
    assert not unbound, unbound
    # the notebook glues every key the page uses (it glues all of all_values)
    nb = (ROOT / "notebooks" / "errata_values.py").read_text()
    assert "glue_all(values)" in nb and "PAPERS.items()" in nb
    with pytest.raises(ValueError, match="not rational"):
        EV.frac(sp.sqrt(2))
