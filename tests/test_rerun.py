"""Re-running a chapter as a reader would: it never changes the stored results nor the book's pages.

Needs the book extras (papermill, jupytext, jupyter-book): skipped by the README's test command and
run by ``.ci/run`` after ``pip install -e ".[book,test]"``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
papermill = pytest.importorskip("papermill")
pytest.importorskip("jupytext")


def _git_status(*paths: str) -> str:
    r = subprocess.run(["git", "status", "--porcelain", "--", *paths], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout")
    return r.stdout


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else {}


#: sizes that make the recipe's run of lowerbounds' tables take seconds, not minutes (the recipe's own
#: parameters, seed 3 and tp_trials 2, are kept: their rows are not the stored ones)
SMALL_LOWERBOUNDS = "{tp_m: [2], thm41_M: [16], thm41_exact_M: [16], wyz_M: [9], heavy_M: [16], exact_time_limit: 1}"


def _through_first_table(nb_path: Path) -> int:
    """Cut the chapter after its first cell that computes stored tables (``store.table(``): its parameters,
    its Store and every table it computes, none of the sections that only read them. Returns the cells kept."""
    nb = json.loads(nb_path.read_text())
    src = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in nb["cells"]]
    last = next(i for i, s in enumerate(src) if "store.table(" in s)
    nb["cells"] = nb["cells"][:last + 1]
    nb_path.write_text(json.dumps(nb))
    return last + 1


def test_the_introductions_papermill_recipe_leaves_results_untouched(tmp_path):
    """The recipe that once rewrote 11 committed files of results/lowerbounds/ (seed 0 -> 3, 156 -> 111
    rows): run as the introduction gives it, from the repository root, it must leave results/ as it was
    and say which parameters differ from the book's run.  The chapter is cut after its tables cell and
    run at small sizes (SMALL_LOWERBOUNDS): its Store is the one the whole chapter uses, and every table
    with rows for seed 3 (not stored) is computed, so a write would show here as in the full run."""
    before = _git_status("results")
    snap = _snapshot(ROOT / "results")
    nb, out = tmp_path / "lb.ipynb", tmp_path / "lb_out.ipynb"
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("KVBOOK_")}
    env.update(TQDM_DISABLE="1", PYTHONWARNINGS="ignore")
    subprocess.run([sys.executable, "-m", "jupytext", "--to", "ipynb", "notebooks/lowerbounds.py", "-o", str(nb)],
                   cwd=ROOT, check=True, capture_output=True, env=env)
    assert _through_first_table(nb) >= 3  # the parameters, the set-up (the Store) and the tables
    r = subprocess.run([sys.executable, "-m", "papermill", str(nb), str(out), "-p", "mode", "full", "-p", "seed", "3",
                        "-p", "tp_trials", "2", "-y", SMALL_LOWERBOUNDS, "--no-progress-bar"],
                       cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert _git_status("results") == before
    assert _snapshot(ROOT / "results") == snap
    text = "".join("".join(o.get("text", "")) for c in json.loads(out.read_text())["cells"]
                   for o in c.get("outputs", []))
    assert "differ from the book's full-mode run" in text and "seed = 3 (book: 0)" in text
    assert "tp_trials = 2 (book: 5)" in text
    # every parameter of the cell takes part, also those the chapter does not hand to its store
    for name in ("thm62_M", "search_equal_prompt_max_M", "search_general_max_M"):
        assert f"{name} = " in text, name


def test_run_chapters_reruns_one_chapter_with_an_override_into_a_scratch_folder(tmp_path):
    """``run_chapters.py --only model -p seed 1 --out DIR``: the page lands in DIR, the book's chapters/
    and results/ are not touched, and the parameter is the one asked for."""
    before = _git_status("results")
    chapters = _snapshot(ROOT / "chapters")
    out = tmp_path / "rerun"
    r = subprocess.run([sys.executable, "book/run_chapters.py", "--only", "model", "-p", "seed", "1",
                        "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert (out / "chapters" / "model.ipynb").is_file()
    page = out / "_build" / "html" / "chapters" / "model.html"
    assert page.is_file() and "page:" in r.stdout
    meta = json.loads((out / "chapters" / "model.ipynb").read_text())["metadata"]["kvbook"]
    assert meta["parameters"]["seed"] == 1
    assert _git_status("results") == before
    assert _snapshot(ROOT / "chapters") == chapters


@pytest.mark.parametrize("args,needle", [
    (["--only", "model", "-p", "seedx", "3", "--out", "/tmp/x"], "no parameter 'seedx'; its parameters are: mode, seed"),
    (["--only", "model", "-p", "seed", "x", "--out", "/tmp/x"], "parameter 'seed': expected int"),
    (["--only", "model", "-p", "seed", "1"], "give --out DIR"),
    (["--only", "model", "-p", "seed", "1", "--out", "chapters"], "outside the repository"),
    (["--only", "model", "hindsight", "--out", "/tmp/x"], "one chapter"),
    (["--only", "model", "--out", "/tmp/x", "--store", "write"], "never writes the results store"),
    (["--only", "model", "-p", "mode", "full", "--out", "/tmp/x"], "--mode quick|full"),
])
def test_bad_overrides_are_named(args, needle):
    r = subprocess.run([sys.executable, "book/run_chapters.py", *args], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and needle in r.stderr, r.stderr
