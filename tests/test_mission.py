"""kvlib.book.mission: the mission table's data file book/mission.yml, its validation and rendering."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
import yaml

from kvlib.book import mission as m

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list(yaml.safe_load((ROOT / "book" / "chapters.yml").read_text()))

GOOD = """
chapters:
  model: The model
rows:
  - paper: "001"
    item: Algorithm 1 (MC-SF)
    chapter: model
    status: reproduced
    note: fine
  - paper: "004"
    item: Theorem 4.2
    chapter: errata
    status: "differs: erratum"
    erratum: errata-004-theorem-4-2
    note: a <b> & c
"""


def _load(text, tmp_path, **kw):
    p = tmp_path / "mission.yml"
    p.write_text(text)
    return m.load(p, **kw)


def test_the_book_file_is_valid_and_counts_add_up():
    rows = m.load(chapters=CHAPTERS)
    assert len(rows) >= 60
    counts = m.counts(rows)
    assert set(counts) == set(m.STATUSES) and sum(counts.values()) == len(rows)
    assert all(counts[s] > 0 for s in m.STATUSES)
    assert {r.paper for r in rows} == set(m.PAPERS)
    summ = m.summary(rows)
    assert summ.iloc[-1]["all"] == len(rows)
    assert list(summ["paper"]) == ["001", "002", "003", "004", "all"]


def test_every_erratum_label_exists_on_the_errata_page_and_every_entry_is_listed():
    page = (ROOT / "book" / "errata.md").read_text()
    labels = set(re.findall(r"^\((errata-[\w-]+)\)=", page, flags=re.M))
    rows = m.load(chapters=CHAPTERS)
    used = {r.erratum for r in rows if r.erratum}
    assert used <= labels, sorted(used - labels)
    # each entry (a label with a paper id and a name) is the erratum of at least one row
    entries = {lab for lab in labels if re.fullmatch(r"errata-00\d-.+", lab)}
    assert entries <= used, sorted(entries - used)


def test_erratum_rows_point_at_errata_of_their_paper():
    for r in m.load(chapters=CHAPTERS):
        if r.status == "differs: erratum":
            assert r.erratum.startswith(f"errata-{r.paper}-"), r


def test_load_small_file_and_render(tmp_path):
    rows = _load(GOOD, tmp_path, chapters=["model", "status"])
    assert [r.item for r in rows] == ["Algorithm 1 (MC-SF)", "Theorem 4.2"]
    assert rows[0].line == 5
    html = m.render_html(rows, {"model": "The model"})
    assert '<a href="../chapters/model.html">The model</a>' in html
    assert '<a href="errata.html#errata-004-theorem-4-2">differs: erratum</a>' in html
    assert "a &lt;b&gt; &amp; c" in html
    assert html.count("<tr>") == 3  # header + two rows
    other = m.render_html(rows, chapter_href="{chapter}.html", errata_href="../book/errata.html#{erratum}",
                          errata_page="../book/errata.html")
    assert 'href="model.html"' in other and 'href="../book/errata.html"' in other
    md = m.render_markdown(rows, {"model": "The model"})
    assert md.splitlines()[0] == "| paper | item | chapter | status | note |"
    assert len(md.splitlines()) == 4 and "| The model |" in md


@pytest.mark.parametrize("change, message", [
    (("status: reproduced", "status: done"), r"row 1 \(paper 001, item 'Algorithm 1 \(MC-SF\)', line 5\): unknown status 'done'"),
    (("    chapter: model\n", ""), r"row 1 .*missing 'chapter'"),
    (("    chapter: model\n", "    chapter: ''\n"), r"row 1 .*missing 'chapter'"),
    (("chapter: model\n    status", "chapter: nowhere\n    status"), r"row 1 .*unknown chapter 'nowhere'"),
    (("chapter: model\n    status", "chapter: \"-\"\n    status"), r"row 1 .*only allowed with status 'not checked'"),
    (("paper: \"001\"", "paper: \"005\""), r"row 1 .*unknown paper '005'"),
    (("paper: \"001\"", "paper: 1"), r"row 1 .*'paper' must be a string"),
    (("    erratum: errata-004-theorem-4-2\n", ""), r"row 2 \(paper 004, item 'Theorem 4.2'.*needs an 'erratum' label"),
    (("note: fine", "note: ratio $x$"), r"row 1 .*contains '\$'"),
    (("note: fine", "note: fine\n    colour: red"), r"row 1 .*unknown key\(s\) \['colour'\]"),
    (('status: "differs: erratum"', "status: differs: erratum"), r"(?s)not valid YAML.*quote values"),
])
def test_bad_rows_are_named(tmp_path, change, message):
    old, new = change
    assert old in GOOD
    with pytest.raises(m.MissionError, match=message):
        _load(GOOD.replace(old, new, 1), tmp_path)


def test_duplicate_rows_are_named(tmp_path):
    text = GOOD + """  - paper: "001"
    item: Algorithm 1 (MC-SF)
    chapter: model
    status: not checked
    note: again
"""
    with pytest.raises(m.MissionError, match=r"row 3 \(paper 001, item 'Algorithm 1 \(MC-SF\)', line 16\): duplicate of row 1"):
        _load(text, tmp_path)


def test_chapter_list_must_exist(tmp_path):
    with pytest.raises(m.MissionError, match=r"\['model'\] are listed under 'chapters' but do not exist"):
        _load(GOOD, tmp_path, chapters=["amin"])


def test_missing_file_and_top_level_keys(tmp_path):
    with pytest.raises(m.MissionError, match="mission file not found"):
        m.load(tmp_path / "nope.yml")
    with pytest.raises(m.MissionError, match="missing top-level key 'rows'"):
        _load("chapters: {model: The model}\n", tmp_path)
    with pytest.raises(m.MissionError, match=r"unknown top-level key\(s\) \['extra'\]"):
        _load(GOOD + "extra: 1\n", tmp_path)


# ---- e001 ----
# The notes' checkable claims (counts of configurations, runs, trials, instances, sizes) against the
# stored tables in results/ (read with pandas, never written).  Each check builds the note's phrase
# from the table and asserts that the note contains it; a guard makes sure every count-like phrase
# of every note is either checked here or exempted with the reason it is not a stored-table claim.

RESULTS = ROOT / "results"
COUNT_PHRASE = re.compile(
    r"\b\d[\d,]*(?:\s*(?:-|to)\s*\d[\d,]*)?\s+(?:runs?|trials?|seeds?|requests?|rows?|instances?|conversations?"
    r"|rounds?|configurations?|alphas?|bins?|grids?)\b"
    r"|\b(?:[nTMsq]) *(?:=|≤|<=) *\d[\d,]*(?:\s*-\s*\d+)?"
    r"|\b[Aa]ll (?:two|three|four|five|six|seven|eight|nine|ten)\b"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten) (?:runs?|trials?|seeds?|small grids|alphas|bins|rates)\b")


def _table(path: str) -> pd.DataFrame:
    return pd.read_csv(RESULTS / path)  # read-only


def _words(k: int) -> str:
    return ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"][k]


def _span(lo, hi, sep="-") -> str:
    return f"{int(lo):,}{sep}{int(hi):,}"


def _claims_001_am1():
    from kvlib.book.section51_verdict import load_stored, verdicts

    res = load_stored(ROOT, check=False)
    d = res[res.model == "AM1"]
    c = _table("hindsight/certified_small.csv").query("model == 1")
    v = verdicts(res, "AM1")
    # the verdicts themselves are computed into the note (mission.apply_verdicts); the written part states
    # only what the rows are
    return {f"{d.trial.nunique()} trials": d.trial.nunique() == len(d) == 200 and (d.time_limit == 30).all(),
            f"n = {_span(c.n.min(), c.n.max())}": True,
            "in five seeded random orders (a Fisher test rules out draws)": _tie_orders_rule_out_draws(5)}


def _tie_orders_rule_out_draws(draws: int) -> bool:
    """The tie-break table drew ``draws`` random orders per trial, and the Fisher test of the paper's exact
    matches against the most favourable reading is below 0.01."""
    from kvlib.book.chapters.hindsight.page import PAPER_MATCHES, PAPER_TRIALS, tie_summary
    from kvlib.book.chapters.hindsight.rows import match_count_test

    ties = _table("hindsight/tiebreak.csv")
    best = int(tie_summary(ties, draws)["equal to the best found"].max())
    return bool((ties.draws == draws).all()) and match_count_test(PAPER_MATCHES, PAPER_TRIALS, best, len(ties)) < 0.01


def _claims_001_am2():
    from kvlib.book.section51_verdict import load_stored, verdicts

    res = load_stored(ROOT, check=False)
    d = res[res.model == "AM2"]
    c = _table("hindsight/certified_small.csv").query("model == 2")
    v = verdicts(res, "AM2")
    (h,) = d.horizon_range.unique()
    return {f"{d.trial.nunique()} trials": d.trial.nunique() == len(d) == 200,
            "T = 40-60 rounds": h == "[40,60]",
            f"{_span(d.n.min(), d.n.max(), ' to ')} requests": True,
            f"T = {_span(c['size'].min(), c['size'].max())} rounds": True,
            "Certified intervals": v["trials"] == 200}


def _claims_001_table1():
    d = _table("realtrace/table1.csv")
    cfg = d.groupby(["policy", "alpha", "beta"], dropna=False)
    runs = cfg.seed.nunique()
    return {f"All {_words(cfg.ngroups)} of the paper's rows are run": cfg.ngroups == 8,
            f"{int(runs.iloc[0])} runs each": runs.nunique() == 1 and (cfg.size() == runs).all(),
            f"{len(d)} rows": bool(d.valid.all() and (d.n_requests == 1000).all() and (d.rate == 50).all())}


def _claims_001_sweeps():
    d = _table("realtrace/sweeps.csv")
    hi = d[d.rate == 50].groupby(["alpha", "beta"]).avg_latency.mean()
    beta_min = {a: hi.xs(a, level="alpha").idxmin() for a in (0.1, 0.2)}
    alpha_min = {b: hi.xs(b, level="beta").idxmin() for b in (0.1, 0.2)}
    (n_req,) = d.n_requests.unique()
    seeds = d.groupby(["rate", "alpha", "beta"]).seed.nunique()
    return {f"{n_req:,} requests": True,
            f"{int(seeds.iloc[0])} seeds": seeds.nunique() == 1,
            f"β minimisers ({beta_min[0.1]:g} with α = 0.1, {beta_min[0.2]:g} with α = 0.2)": True,
            f"α minimiser ({alpha_min[0.1]:g})": alpha_min[0.1] == alpha_min[0.2]}


def _claims_001_alpha():
    from kvlib.book.chapters.realtrace.rows import PAPER_ALPHA_001
    from kvlib.book.chapters.realtrace.values import alpha_spread, alpha_spread_verdict

    d = _table("realtrace/alpha_grid.csv")
    hi, lo = (alpha_spread_verdict(alpha_spread(d, r), PAPER_ALPHA_001[w]) for r, w in ((50, "high"), (10, "low")))
    return {"The threshold moves from seed to seed": d.seed.nunique() > 1,
            "the paper's value lies within our seeds' range at high demand but not at low demand":
                (hi, lo) == ("matches", "differs")}


def _claims_003_experiment1():
    from kvlib.book.chapters.realtrace.gpus import intervals_cell

    d3 = _table("realtrace/intervals003.csv")
    runs = [d3[d3.pred == "wide"]] + [g[g.pred == "wide"] for _, g in _table("realtrace/gpu_intervals003.csv")
                                      .groupby("hardware")]
    return {"Aₘᵢₙ beats Aₘₐₓ at every size on A100, H100 and H200":
                len(runs) == 3 and all(intervals_cell(r, "amin_amax").startswith("holds") for r in runs),
            "stays well above H-SF": all(intervals_cell(r, "amin_hsf").startswith("fails") for r in runs)}


def _claims_004_regret():
    d = _table("mcsf_ratio/regret_opt.csv")
    return {f"T ≤ {d['T'].max()}": True}


def _claims_002_thm4():
    d = _table("sortedf/chain_sweep.csv")
    return {f"n = {d.n.max()} instances": d.n.nunique() == 1}


def _claims_002_table3():
    d = _table("sortedf/table3.csv")
    return {f"n = {d.n.max():,}": True}


def _claims_002_fig8():
    d = _table("sortedf/section7.csv")
    return {f"{_span(d.n.min(), d.n.max(), ' to ')} requests": True}


def _claims_003_thm7():
    from kvlib.theory import cyz_experiments as cx

    d = _table("amin/fig2_sweep.csv")
    w = cx.sweep_worst(d, ["a-l"])
    Mmax = int(w.index.get_level_values("M").max())
    q = w.loc[Mmax, "a-l"] / w.loc[Mmax, "theorem7"]
    return {"n = 10M": (d.load == 10).all(), f"M = {Mmax}": True,
            f"{q.min():.3f} to {q.max():.3f} across {_words(len(q))} alphas": True,
            f"at most {100 * (q.max() - 1):.2f} %": True}


def _claims_003_cor2():
    d = _table("amin/corollary2.csv")
    (edges,) = d.edges.unique()
    e = [int(x) for x in edges.strip("[]").split(",")]
    return {f"{_words(len(e) - 1)} bins": True, f"λₘₐₓ(A{'₀₁₂₃₄₅₆₇₈₉'[e[-1]] if e[-1] < 10 else e[-1]}, B{'₀₁₂₃₄₅₆₇₈₉'[e[-1]] if e[-1] < 10 else e[-1]})": True}


TABLE_CLAIMS = {
    ("001", "Section 5.1, Figure 2 left (Arrival Model 1)"): _claims_001_am1,
    ("001", "Section 5.1, Figure 2 right (Arrival Model 2)"): _claims_001_am2,
    ("001", "Table 1 (1,000 requests, 50 runs)"): _claims_001_table1,
    ("001", "Section 5.2, smallest loop-free α (0.21 and 0.24)"): _claims_001_alpha,
    ("003", "Section 6, Experiment 1 (Aₘᵢₙ nearly identical to H-SF with [1, 1000])"): _claims_003_experiment1,
    ("001", "Figures 7, 8, 10, 11 (α and β sweeps)"): _claims_001_sweeps,
    ("004", "Theorem 5.3 (constant regret)"): _claims_004_regret,
    ("002", "Theorem 4 (Sorted-F below Sorted-F separate)"): _claims_002_thm4,
    ("002", "Table 3 (properties of the selectors)"): _claims_002_table3,
    ("002", "Section 7, Figure 8 (mixed LMSYS and arXiv requests)"): _claims_002_fig8,
    ("003", "Theorem 7 (Aₗ bound)"): _claims_003_thm7,
    ("003", "Corollary 2 (disjoint intervals)"): _claims_003_cor2,
}

# count-like phrases that are not claims about a stored table, and why
NOT_TABLE_CLAIMS = {
    ("001", "Lemma B.2"): {"n = 3": "an instance; tests/test_thm43_paper.py::test_b3_smallest_display_counterexample",
                           "M = 4": "same instance"},
    ("001", "Section 5.1, Figure 2 left (Arrival Model 1)"): {"200 trials": "also the paper's count (114 of 200)"},
    ("001", "Figure 5 (prompt and output lengths)"): {"10,000 conversations": "the paper's sample size"},
    ("001", "Figures 6 and 9 (MC-SF memory over time)"): {"one run": "computed live by the chapter (not stored)"},
    ("004", "Theorem 4.2 (MC-SF exactly optimal at t = 0)"): {
        "s = 1": "the family's prompt; tests/test_errata.py::test_004_theorem42_family_with_small_s_over_M"},
    ("004", "Algorithm 3 (Off-Couple) and Lemma 5.4"): {
        "M = 6": "the chapter's coupling draws (kvlib.book.chapters.mcsf_ratio.offcouple_rows.REGIMES); "
                 "tests/test_errata_hypotheses.py::test_004_lemma54_ii_fails_inside_s_over_M"},
    ("004", "Section 8.2 (b), 200 s cap and more than 8 A100s"): {
        "10,000 requests": "the paper's size; the arithmetic is checked in test_mission_section82b_arithmetic"},
    ("002", "Theorem EC.2 (makespan NP-hard, from Partition)"): {"M = 2": "the reduction's memory 2T (a formula)"},
    ("002", "Theorem 8 (the bridge)"): {
        "M = 7": "an instance; tests/test_wyz_chain_paper.py",
        "M = 14": "k copies of it; tests/test_errata.py::test_002_theorem8_every_optimal_schedule_as_the_instance_grows",
        "M = 21": "same test (three and four copies)"},
    ("002", "Appendix EC.4.2 Key Observations 1-3"): {"1 instances": "observation 1 of the Table EC.1 instances"},
    ("003", "Lemma 2 (Aₘᵢₙ's ratio as a quotient)"): {"s = 0": "a parameter of the formula"},
    ("003", "Theorem 6 (two-point bound (3 - α)/2)"): {"s = 0": "a parameter", "s = 8": "tests/test_errata.py"},
    ("003", "Theorem 7 (Aₗ bound)"): {"s = 0": "the sweep's prompt (kvlib.theory.cyz_experiments.sweep_row)",
                                      "n = 10": "part of 'n = 10M', checked"},
    ("003", "Proposition EC.1 (latency scaling under reduced memory)"): {"M = 6": "an instance; tests/test_errata.py",
                                                                        "s = 2": "the EC.7 instance; tests/test_errata.py::test_003_ec7_inside_hypotheses"},
    ("003", "Theorem EC.1 (worst case at the end points; A-random bound)"): {"n = 3": "an instance; tests/test_errata.py",
                                                                           "M = 5": "same instance"},
    ("003", "Theorem 2 (Aₘₐₓ lower bound)"): {"s = 0": "the proof's prompt size (003 Appendix EC.2)"},
    ("003", "Theorem 8 and Figure 3 right (LG(p) lengths)"): {
        "s = 0": "the proof's prompt size", "s = 1": "tests/test_errata.py::test_003_theorem8_lemma2_with_prompt"},
    ("003", "Figure 4 (length histograms)"): {"2,000 conversations": "the paper's sample size"},
}


@pytest.mark.parametrize("key", sorted(TABLE_CLAIMS), ids=lambda k: f"{k[0]}-{k[1][:30]}")
def test_mission_notes_agree_with_the_stored_tables(key):
    notes = {(r.paper, r.item): r.note for r in m.load(chapters=CHAPTERS)}
    assert key in notes, f"mission row {key} not found (renamed? update TABLE_CLAIMS)"
    for phrase, ok in TABLE_CLAIMS[key]().items():
        assert phrase in notes[key], (key, phrase, notes[key])
        assert ok, (key, phrase)


def test_every_count_in_a_mission_note_is_checked_or_exempted():
    unclassified = []
    for r in m.load(chapters=CHAPTERS):
        key = (r.paper, r.item)
        checked = list(TABLE_CLAIMS[key]()) if key in TABLE_CLAIMS else []
        exempt = list(NOT_TABLE_CLAIMS.get(key, {}))
        for hit in COUNT_PHRASE.findall(r.note):
            hit = hit.rstrip(",")
            if not any(hit in p for p in checked) and not any(hit in p or p in hit for p in exempt):
                unclassified.append((r.paper, r.item, hit))
    assert not unclassified, unclassified
    # the exemptions name phrases that are still in the notes
    notes = {(r.paper, r.item): r.note for r in m.load(chapters=CHAPTERS)}
    stale = [(k, p) for k, ps in NOT_TABLE_CLAIMS.items() for p in ps if k not in notes or p not in notes[k]]
    assert not stale, stale


def test_mission_section82b_arithmetic():
    """004 Section 8.2 (b) row: a slope of 1/6 s per request exceeds the 200 s cap at 1,200 requests,
    well before 10,000 (where it would be about 1,667 s)."""
    slope, cap = Fraction(1, 6), 200
    assert cap / slope == 1200 and slope * 10_000 > 8 * cap
