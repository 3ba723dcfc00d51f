"""Presentation helpers of the chapter ``mcsf_ratio`` (MC-SF's constant ratio): readable tables.

The chapter only narrates; these functions turn computed frames into the tables a reader sees:

* :func:`step_table` -- the steps of 001 Theorem 4.3's proof (:func:`kvlib.theory.thm43_paper.summarize_steps`)
  in the paper's order, each with what it checks in plain words;
* :func:`range_summary` -- min / median / max of chosen columns, one row per quantity, each with its
  own number format (integer counts stay integers), instead of a raw ``DataFrame.describe()``;
* :func:`label_md` -- a stored table's provenance label with its file path as a code literal;
* :func:`source_md` -- the same in a few words, for a figure caption after the full label was given;
* :func:`table_sources` -- both for one stored table, as the glue keys ``lab_KEY`` and ``src_KEY``;
* :func:`words` -- a list in prose (``50, 100 and 200 tokens``);
* :func:`schedules_table` and :func:`completions_table` -- schedules of one instance side by side
  (starts, TEL, and the memory profile or the completion times), checked by :mod:`kvlib.core.checker`.

Nothing here computes a result; no stored table depends on this module.
"""

from __future__ import annotations

import re

__all__ = ["STEP_WORDS", "STEP_ORDER", "step_table", "range_summary", "label_md", "source_md", "table_sources",
           "words", "schedules_table", "completions_table"]

#: What each step of :mod:`kvlib.theory.thm43_paper` checks, in words (plain text: no TeX).
#: o-bar is the largest output of a group (written ō), o-underbar the smallest (written o̲).
STEP_WORDS: dict[str, str] = {
    "L45": "Lemma 4.5: span of a group ≤ (192/M)·Σ n(o) vol(o) + 5ō",
    "L45.vol_lo": "Lemma 4.5, proof: 4·vol(o) ≥ vol(ō) within a group",
    "L45.peak_full": "every interval but the last has peak > M − (s + ō) (stated without proof)",
    "L45.vol_cap": "memory of a group over its span ≤ |U(ℓ)|·vol(ō)",
    "C46": "Claim 4.6 on every triple of full intervals",
    "C46.proof": "Claim 4.6 on the triples the proof uses",
    "C46.only_group": "only the group's requests run at the chosen time (stated without proof)",
    "C46.k": "k ≥ peak / (s + ō)",
    "C46.kvol": "memory of the group over the triple ≥ k·vol(o̲)",
    "L44.latency": "Lemma 4.4, proof: each latency in U(ℓ) ≤ t(ℓ+1) + ō(ℓ)",
    "L44.sum": "TEL ≤ Σ |U(ℓ)|·(t(ℓ+1) + ō(ℓ))",
    "L44.gap_span": "t(ℓ+1) − t(ℓ) ≤ span of group ℓ + 1",
    "L44.gap": "t(ℓ+1) − t(ℓ) ≤ (192/M)|U(ℓ)| vol(ō) + 5ō + 1",
    "L44.gap6": "(192/M)|U(ℓ)| vol(ō) + 5ō + 1 ≤ (192/M)|U(ℓ)| vol(ō) + 6ō",
    "L44.t": "t(ℓ+1) ≤ the telescoped sum of those bounds",
    "eq8": "display (8) as printed: TEL ≤ (192/M)A + 6B",
    "eq8.corrected": "display (8) with the dropped term Σ |U(ℓ)|·ō(ℓ)",
    "L44.A_same": "A ≤ 8X, same-group terms (first step)",
    "L44.A_same2": "A ≤ 8X, same-group terms (second step)",
    "L44.A_cross": "A ≤ 8X, terms across groups",
    "L44.A_l": "A ≤ 8X, per group",
    "L44.A": "A ≤ 8X",
    "L44.B_sum": "Σ of ō(ℓ') over ℓ' ≤ ℓ is at most 2ō(ℓ)",
    "L44.B": "B ≤ 4Y",
    "L44": "Lemma 4.4: TEL ≤ (1536/M)X + 24Y",
    "LP9": "LP (9) value ≤ OPT",
    "LP9.greedy": "LP (9): HiGHS value = exact greedy fill",
    "LP9.sorted": "LP (9): first slots t*(o) non-decreasing",
    "C48": "Claim 4.8: t*(o+1) ≥ (1/M)·Σ of n vol over outputs ≤ o",
    "eq10.a": "display (10), first step: Σ t·a(o, t) ≥ t*(o)·n(o)",
    "eq10": "display (10): lower bound on the LP value",
    "eq10.identity": "right side of (10) = (X − Σ n(o)² vol(o))/M",
    "eq11": "display (11): OPT ≥ Σ n(o)² vol(o) / (4M)",
    "OPT.Y": "OPT ≥ Y",
    "eq12": "display (12): 6·OPT ≥ X/M + Y",
    "L47": "Lemma 4.7: OPT ≥ X/(6M) + Y/6",
    "T43": "Theorem 4.3: TEL ≤ 9216·OPT",
    "B3.mcsf": "MC-SF ≤ full-batch TEL (first line of (15))",
    "B3.chain": "the chain (15)-(17), line by line",
    "B3.chain_end": "end of the chain: TEL ≤ o(s+o)n²/M + 5on/8",
    "B3.weak": "dual objective ≤ value of the LP (18)-(21)",
    "B3.primal": "value of the LP (18)-(21) ≤ OPT",
    "B3.dual_le_opt": "dual objective ≤ OPT",
    "B2.display_le_opt": "the display before Lemma B.2 ≤ OPT",
    "T43.identical": "TEL ≤ 4·OPT",
    "B1": "Lemma B.1: (23) holds at every time",
    "B1.base": "Lemma B.1, base case t = 0",
    "B1.step": "Lemma B.1, induction step (increment ≤ 1)",
    "B1.support": "λ vanishes within the horizon",
    "B2.display": "display before Lemma B.2: dual objective ≥ the display",
    "B2": "Lemma B.2 as printed: ratio to the display ≤ 4",
    "B2.corrected": "Lemma B.2 with the exact dual objective: ratio ≤ 4",
}

#: The paper's order: Lemma 4.5 and Claim 4.6, Lemma 4.4, LP (9) and Lemma 4.7, Theorem 4.3, Appendix B.3.
STEP_ORDER: tuple[str, ...] = tuple(STEP_WORDS)


def step_table(steps):
    """The frame of :func:`kvlib.theory.thm43_paper.summarize_steps` in the paper's order, with a column
    ``what it checks`` and the ratio column as text (``-`` where a step has no ratio).  Unknown steps
    (none today) go last, with an empty description."""
    import pandas as pd

    rank = {s: k for k, s in enumerate(STEP_ORDER)}
    df = steps.copy()
    df["_rank"] = df["step"].map(lambda s: rank.get(s, len(rank)))
    df = df.sort_values(["_rank", "step"], kind="stable").drop(columns="_rank").reset_index(drop=True)
    ratio = df["largest lhs / rhs"].map(lambda v: "-" if v != v else f"{v:.4g}")
    return pd.DataFrame({"step": df["step"], "what it checks": df["step"].map(lambda s: STEP_WORDS.get(s, "")),
                         "applies on": df["instances"].astype(int), "holds on": df["holds on"].astype(int),
                         "largest left / right": ratio})


def step_words(step: str) -> str:
    """A step of 001 Theorem 4.3's proof in words (its short name only where :data:`STEP_WORDS` has none)."""
    return STEP_WORDS.get(step) or f"step {step}"


def range_summary(frame, spec):
    """Min, median and max of some columns of ``frame``, one row per quantity.

    ``spec`` is a list of ``(quantity, column, format)``; the format is a ``str.format`` spec such as
    ``"{:,.0f}"`` (counts) or ``"{:.3f}"``.  Every cell is a string, so each row keeps its format."""
    import pandas as pd

    rows = []
    for quantity, column, fmt in spec:
        s = frame[column].astype(float)
        rows.append({"quantity": quantity, "min": fmt.format(s.min()), "median": fmt.format(s.median()),
                     "max": fmt.format(s.max())})
    return pd.DataFrame(rows)


_PATH = re.compile(r"(results/[A-Za-z0-9_./-]+\.csv)")


def label_text(label: str) -> str:
    """A stored table's label (:attr:`kvlib.book.store.Table.label`) as Markdown text, its path in
    backticks, so that the table's file name reads as a code literal."""
    return _PATH.sub(r"`\1`", label)


def source_text(table) -> str:
    """Where a table's rows come from, in a few words of Markdown: ``stored table
    `results/CHAPTER/NAME.csv``` when they were read from the store, ``N rows computed live`` when the
    table was computed while the page was built (store policy ``off``).  ``table`` is a
    :class:`kvlib.book.store.Table` (only its ``policy``, ``path`` and ``n_rows`` are used)."""
    if table.policy == "off":
        return f"{table.n_rows} rows computed live"
    return f"stored table `{table.path}`"


def label_md(label: str):
    """:func:`label_text` as an IPython ``Markdown`` object (for ``{glue:md}``)."""
    from IPython.display import Markdown

    return Markdown(label_text(label))


def source_md(table):
    """:func:`source_text` as an IPython ``Markdown`` object (for ``{glue:md}``)."""
    from IPython.display import Markdown

    return Markdown(source_text(table))


def table_sources(key: str, table) -> dict:
    """The provenance of a stored table for the prose: ``{"lab_KEY": label_md(table.label),
    "src_KEY": source_md(table)}`` (the full label, and the few words for a later caption)."""
    return {f"lab_{key}": label_md(table.label), f"src_{key}": source_md(table)}


def words(xs, unit: str = "") -> str:
    """A list in prose: ``[50, 100, 200]`` -> ``"50, 100 and 200"``, followed by ``unit`` if given.
    Integers get thousands separators; other items are written with ``str``.  Raises ``ValueError``
    on an empty list."""
    xs = [f"{x:,}" if isinstance(x, int) else str(x) for x in xs]
    if not xs:
        raise ValueError("words: nothing to list")
    return (", ".join(xs[:-1]) + " and " + xs[-1] if len(xs) > 1 else xs[0]) + (f" {unit}" if unit else "")


def _checked_tel(instance, starts) -> int:
    from kvlib.core.checker import check_schedule
    from kvlib.core.model import Schedule

    return check_schedule(instance, Schedule(starts)).tel


def schedules_table(instance, schedules: dict):
    """One row per named schedule (``name -> starts``) of ``instance``: its starts, its TEL (from the
    independent checker) and the memory held at ``t = 0, 1, ...`` up to the makespan
    (:func:`kvlib.core.model.memory_profile`, 0 at ``t = 0``)."""
    import pandas as pd

    from kvlib.core.model import Schedule, memory_profile

    return pd.DataFrame([{"schedule": name, "starts": str(st), "TEL": _checked_tel(instance, st),
                          "memory (tokens) at t = 0, 1, 2, ...":
                              str([int(x) for x in memory_profile(instance, Schedule(st))])}
                         for name, st in schedules.items()])


def completions_table(instance, schedules: dict, who: str = "A, B"):
    """One row per named schedule (``name -> starts``) of ``instance``: its starts (column header
    ``starts (WHO)``), completion times ``start + output`` and TEL (from the independent checker)."""
    import pandas as pd

    return pd.DataFrame([{"schedule": name, f"starts ({who})": str(st),
                          "completions": str(tuple(int(p + o) for p, o in zip(st, instance.output))),
                          "TEL": _checked_tel(instance, st)} for name, st in schedules.items()])
