"""Re-runs say exactly what changed: every parameter of a chapter's parameters cell is compared with the
book's run (also those the chapter does not hand to its store), a re-run's banner labels each table
"read" or "computed live" by what happened, and a re-run without --mode says which mode it used and why.
"""

from __future__ import annotations

from pathlib import Path

from _helpers import load_module

ROOT = Path(__file__).resolve().parent.parent


_load = load_module


rc = _load("kvbook_run_chapters_labels", ROOT / "book" / "run_chapters.py")


def test_every_parameter_of_the_cell_is_compared():
    from kvlib.book.params import book_parameters, differences, notebook_values

    book = book_parameters("lowerbounds", "full")
    # what lowerbounds hands its store leaves out thm62_M and the exhaustive search's sizes
    given = {k: book[k] for k in ("seed", "thm41_M", "tp_trials")}
    namespace = {**book, "thm62_M": [256], "search_equal_prompt_max_M": 5, "search_general_max_M": 4, "x": 1}
    values = notebook_values("lowerbounds", given, namespace)
    assert "x" not in values and values["seed"] == book["seed"]
    names = {n for n, _, _ in differences("lowerbounds", "full", {"mode": "full", **values})}
    assert names == {"thm62_M", "search_equal_prompt_max_M", "search_general_max_M"}
    # without the notebook's namespace only what the store was given is compared (the old behaviour)
    assert not differences("lowerbounds", "full", {"mode": "full", **given})


def _table(name, rows, now):
    return {"table": name, "rows": rows, "computed_now": now, "path": f"results/lowerbounds/{name}.csv",
            "label": f"{rows} rows"}


def test_tables_are_labelled_by_what_happened():
    assert rc.table_origin(_table("a", 10, 0)) == "read"
    assert rc.table_origin(_table("a", 10, 10)) == "computed live"
    assert rc.table_origin(_table("a", 10, 4)) == "mixed"
    text = rc.downloads_text("lowerbounds", [_table("thm41", 12, 0), _table("tp", 8, 8), _table("wyz", 10, 3)])
    read, _, live = text.partition("Computed for this page, not stored:")
    assert "thm41.csv" in read and "tp.csv" not in text and "wyz.csv" not in text
    assert "1 table computed live (8 rows)" in live
    assert "1 table partly read (7 rows read from the store, 3 computed live)" in live
    # a page that read everything lists no live table
    assert "Computed for this page" not in rc.downloads_text("lowerbounds", [_table("thm41", 12, 0)])


def test_live_banner_names_every_changed_parameter_and_the_mode():
    log = {"tables": {"tp": _table("tp", 8, 8)}, "differences": [["seed", 3, 0]]}
    diffs = [["seed", 3, 0], ["thm62_M", [256], [256, 576, 1024, 2304]]]
    text = rc.banner_cell("full", "live", log, name="lowerbounds", rerun={"seed": 3},
                          mode_note=" (full mode: --mode full was given)", differences=diffs).source
    assert "`thm62_M`" in text and "`seed`" in text and "--mode full was given" in text
    assert "Stored tables read by this page" not in text and "1 table computed live (8 rows)" in text


def test_a_rerun_without_mode_says_which_mode_and_why():
    args = rc.parse_args(["--only", "model", "-p", "seed", "1", "--out", "/tmp/kvbook-x"])
    assert args.mode == "quick" and not args.mode_given
    note = rc.mode_note(args)
    assert "--mode was not given" in note and "--mode full" in note
    text = rc.banner_cell("quick", "off", {}, name="model", rerun={"seed": 1}, mode_note=f" (quick mode: {note})").source
    assert "--mode was not given" in text
    full = rc.parse_args(["--only", "model", "--mode", "full", "-p", "seed", "1", "--out", "/tmp/kvbook-x"])
    assert full.mode_given and rc.mode_note(full) == "--mode full was given"
