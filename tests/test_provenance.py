"""kvlib.book.provenance (status page, data-file table) and kvlib.book.gluing."""

from __future__ import annotations

import hashlib
import json
import subprocess

import nbformat
import numpy as np
import pytest

from kvlib.book import provenance as pv
from kvlib.book.gluing import plain


def test_find_root_and_git(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "chapters.yml").write_text("model: {}\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert pv.find_root(deep) == tmp_path.resolve()
    with pytest.raises(FileNotFoundError, match="book/chapters.yml"):
        pv.find_root(tmp_path.parent / "definitely-not-here")
    assert pv.git(tmp_path, "rev-parse", "HEAD") is None or len(pv.git(tmp_path, "rev-parse", "HEAD")) == 40
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert pv.git(tmp_path, "status", "--porcelain") is not None
    assert pv.git(tmp_path, "no-such-subcommand") is None


def test_small_formatters():
    assert [pv.yes_no(True), pv.yes_no(False), pv.yes_no(None)] == ["yes", "no", "unknown"]
    assert pv.fmt_params({"mode": "quick", "seed": 0, "M": [1, 2]}) == "mode='quick', seed=0, M=[1, 2]"
    assert pv.fmt_params({}) == "" and pv.fmt_params(None) == ""
    assert pv.version("numpy") == np.__version__
    assert pv.version("no-such-distribution-kvbook") == "not installed"


def test_data_files_checksums(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"x,y\n1,2\n")
    extra = tmp_path / "user.csv"
    extra.write_bytes(b"prompt,output\n")
    df = pv.data_files(tmp_path, ["a.csv", "missing.csv"], extra=[extra, tmp_path / "gone.csv"])
    assert list(df.file) == ["a.csv", "missing.csv", str(extra), str(tmp_path / "gone.csv")]
    assert list(df.present) == [True, False, True, False]
    assert df.sha256[0] == hashlib.sha256(b"x,y\n1,2\n").hexdigest()
    assert df.sha256[1] == "-" and df.sha256[3] == "-"
    assert list(pv.data_files(None, ["a.csv"]).present) == [False]


def test_chapter_rows_and_notes(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"parameters": {"mode": "quick", "seed": 0}, "duration": 1.234}
    nbformat.write(nb, tmp_path / "model.ipynb")
    manifest = {"mode": "quick", "git_sha": "abcdef1234567890",
                "chapters": {"model": {"git_sha": "abcdef1234567890", "git_dirty": True, "wall_time_s": 2.5,
                                       "started": "s", "finished": "f"}}}
    rows = pv.chapter_rows(["model", "status", "amin"], tmp_path, json.loads(json.dumps(manifest)))
    assert [r["chapter"] for r in rows] == ["model", "amin"]
    m, a = rows
    assert m["executed"] == "yes" and m["mode"] == "quick" and m["parameters"] == "mode='quick', seed=0"
    assert m["papermill duration (s)"] == 1.23 and m["wall time (s)"] == 2.5
    assert m["commit"] == "abcdef123456 (dirty)"
    assert a["executed"] == "NO" and a["mode"] == "unknown" and a["commit"] == "unknown"
    notes = pv.provenance_notes(rows, manifest, "quick")
    assert notes == ["- chapter `amin` has not been executed",
                     "- chapter `amin` ran in mode 'unknown', the book in 'quick'",
                     "- chapter `amin` ran at commit unknown, the runner at abcdef123456"]


def test_plain_converts_numpy_scalars():
    assert type(plain(np.float64(1.5))) is float
    assert type(plain(np.int64(3))) is int
    assert type(plain(np.bool_(True))) is bool
    assert plain("x") == "x"


def test_glue_figure_closes_the_figure(monkeypatch):
    import sys
    import types

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kvlib.book.gluing import glue_figure, glue_value

    # a stand-in for myst_nb.glue (the book extra is not needed to test what kvlib hands to it)
    calls = []
    fake = types.ModuleType("myst_nb")
    fake.glue = lambda name, value, display=True: calls.append((name, value, display))
    monkeypatch.setitem(sys.modules, "myst_nb", fake)
    fig, ax = plt.subplots()
    n_before = len(plt.get_fignums())
    glue_figure("test-fig", fig)
    assert len(plt.get_fignums()) == n_before - 1
    glue_value("test-value", np.int64(3))
    assert calls[0] == ("test-fig", fig, False)
    name, value, display = calls[1]
    assert (name, value, display) == ("test-value", 3, False) and type(value) is int  # NumPy scalar made plain
