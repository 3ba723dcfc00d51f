"""ShareGPT V3 as a real-conversation workload (kvlib.serving.sharegpt) and the chapter's rows on it."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pytest

from kvlib.core.model import InstanceError
from kvlib.serving.sharegpt import (FALLBACK_FIT, REAL_CONVERSATIONS, SHAREGPT_CSV, build_sharegpt_workload,
                                    is_sharegpt_spec, load_sharegpt, vllm_keep)
from kvlib.serving.experiments import build_any_workload
from kvlib.serving.workloads import FALLBACK_LABEL

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
have_sharegpt = pytest.mark.skipif(not (SHARED / SHAREGPT_CSV).exists(), reason="../shared/data/ShareGPT absent")
HEADER = "id,turns,prompt_tokens,output_tokens,prompt_words,output_words\n"


def _write(tmp_path, text: str) -> Path:
    p = tmp_path / SHAREGPT_CSV
    p.write_text(text)
    return p


def test_loader_keeps_vllm_filter_and_records_sha(tmp_path):
    rows = ["a,2,10,20,7,15",      # kept
            "b,2,0,20,0,15",       # empty prompt: dropped (zero counts are allowed in the file)
            "c,2,3,20,2,15",       # prompt under 4 tokens
            "d,2,1025,5,700,3",    # prompt over 1,024 tokens
            "e,2,1000,1049,600,700",  # prompt + output over 2,048 tokens
            "f,4,1024,1024,800,700"]  # exactly at both limits: kept
    p = _write(tmp_path, HEADER + "\n".join(rows) + "\n")
    w = load_sharegpt(tmp_path)
    assert w.prompt.tolist() == [10, 1024] and w.output.tolist() == [20, 1024]
    assert w.sha256 == hashlib.sha256(p.read_bytes()).hexdigest() and SHAREGPT_CSV in w.label
    words = load_sharegpt(tmp_path, unit="words")  # the same conversations, counted in words
    assert words.prompt.tolist() == [7, 800] and words.output.tolist() == [15, 700]
    assert "(words)" in words.label and np.all(words.arrival_s == 0)


@pytest.mark.parametrize("text, match", [
    ("", "file is empty"),
    (HEADER, "no rows"),
    ("id,turns,prompt_tokens,output_tokens,prompt_words\na,2,10,20,7\n", r"line 1: missing column\(s\) output_words"),
    (HEADER + "a,2,10,20,7,15\nb,2,10,2x,7,15\n", r"line 3, column output_tokens: '2x' is not a number"),
    (HEADER + "a,2,10,20,7,15\nb,2,10,20,7.5,15\n", r"line 3, column prompt_words: 7.5 is not an integer"),
    (HEADER + "a,2,-10,20,7,15\n", r"line 2, column prompt_tokens: must be >= 0, got '-10'"),
    (HEADER + "a,2,2,20,7,15\n", "no conversation passes vLLM's filter"),
])
def test_bad_input_names_file_column_and_line(tmp_path, text, match):
    _write(tmp_path, text)
    with pytest.raises(InstanceError, match=match) as e:
        load_sharegpt(tmp_path)
    assert SHAREGPT_CSV in str(e.value)


def test_missing_file_unit_and_fallback(tmp_path):
    with pytest.raises(InstanceError, match=f"{SHAREGPT_CSV}: no such file"):
        load_sharegpt(tmp_path)
    with pytest.raises(ValueError, match="unit"):
        load_sharegpt(tmp_path, unit="characters", fallback=True)
    for unit in ("tokens", "words"):
        w = load_sharegpt(None, unit=unit, fallback=True, fallback_n=4000, seed=1)
        assert w.label == FALLBACK_LABEL and w.sha256 is None and w.n == 4000
        for arr, what in ((w.prompt, "prompt"), (w.output, "output")):
            lo, hi, median, mean = FALLBACK_FIT[(unit, what)][:4]
            assert lo <= arr.min() and arr.max() <= hi
            assert abs(np.median(arr) - median) <= 0.1 * median and abs(arr.mean() - mean) <= 0.1 * mean


def test_vllm_keep_limits():
    keep = vllm_keep([4, 3, 1024, 1025, 100], [4, 4, 1024, 4, 1949], [1, 1, 1, 1, 1], [1, 1, 1, 1, 0])
    assert keep.tolist() == [True, False, True, False, False]  # the last: an empty reply in words


def test_spec_workloads(tmp_path):
    rows = [f"r{i},2,{10 + i},{20 + i},{5 + i},{9 + i}" for i in range(50)]
    _write(tmp_path, HEADER + "\n".join(rows) + "\n")
    spec = {"workload": "sharegpt", "unit": "words", "n": 20, "rate": 5.0, "seed": 3, "shared_dir": str(tmp_path)}
    a, b = build_sharegpt_workload(spec), build_sharegpt_workload(spec)
    assert np.array_equal(a.prompt, b.prompt) and np.array_equal(a.arrival_s, b.arrival_s)
    assert a.n == 20 and len(set(a.prompt.tolist())) == 20  # drawn without replacement
    assert set(a.prompt.tolist()) <= set(range(5, 55)) and np.all(np.diff(a.arrival_s) > 0)
    assert a.sharegpt_sha256 and a.short_source == "ShareGPT"
    z = build_sharegpt_workload({**spec, "at_zero": True})
    assert np.array_equal(z.prompt, a.prompt) and np.all(z.arrival_s == 0)
    with pytest.raises(InstanceError, match="arxiv"):  # a shared directory without the arXiv file: no stand-in
        build_sharegpt_workload({"workload": "mixed002", "short": "sharegpt", "n": 10, "seed": 0,
                             "shared_dir": str(tmp_path)})
    m = build_sharegpt_workload({"workload": "mixed002", "short": "sharegpt", "n": 50, "seed": 0, "shared_dir": None})
    assert m.is_arxiv.sum() == 10 and m.short_source == "ShareGPT" and m.sharegpt_sha256 is None
    with pytest.raises(ValueError, match="short"):
        is_sharegpt_spec({"workload": "mixed002", "short": "lmsys-chat"})
    with pytest.raises(ValueError, match="tokens"):
        build_sharegpt_workload({"workload": "mixed002", "short": "sharegpt", "unit": "words", "n": 10, "seed": 0})
    assert not is_sharegpt_spec({"workload": "lmsys"}) and build_any_workload(
        {"workload": "lmsys", "n": 5, "seed": 0}).label.startswith("synthetic")
    assert build_any_workload(spec).sharegpt_sha256 == a.sharegpt_sha256  # run_spec's builder sends it here
    with pytest.raises(ValueError, match="does not read ShareGPT"):
        build_sharegpt_workload({"workload": "lmsys", "n": 5, "seed": 0})


def test_rows_on_the_stand_in_name_the_source():
    from kvlib.book.chapters.realtrace.rows import realtrace_row

    row = realtrace_row(workload="mixed002", short="sharegpt", policy="mc-sf", n=50, seed=1, data="embedded")
    assert row["sharegpt_count"] + row["arxiv_count"] == 50 and row["arxiv_count"] == 10
    assert "lmsys_count" not in row and row["sharegpt_sha256"] == "" and not math.isnan(row["sharegpt_mean"])
    w = realtrace_row(workload="sharegpt", unit="words", policy="mc-sf", n=60, rate=50.0, seed=1, data="embedded")
    t = realtrace_row(workload="sharegpt", unit="tokens", policy="mc-sf", n=60, rate=50.0, seed=1, data="embedded")
    assert w["completed"] and w["n_requests"] == 60 and w["instance"] != t["instance"]
    assert "ShareGPT V3" in REAL_CONVERSATIONS and "not the papers' LMSYS sample" in REAL_CONVERSATIONS


@have_sharegpt
def test_the_shared_file(monkeypatch):
    from kvlib.book.chapters.realtrace.rows import realtrace_row

    sha = hashlib.sha256((SHARED / SHAREGPT_CSV).read_bytes()).hexdigest()
    listed = (SHARED / "SHA256SUMS").read_text()
    assert f"{sha}  {SHAREGPT_CSV}" in listed
    t, w = load_sharegpt(SHARED), load_sharegpt(SHARED, unit="words")
    assert t.n == w.n == 9774 and t.sha256 == sha  # the README's count for vLLM's filter
    assert t.prompt.max() <= 1024 and (t.prompt + t.output).max() <= 2048 and w.prompt.min() >= 1
    assert np.median(t.output) == 287.0  # far longer replies than LMSYS's (median 43 tokens)
    monkeypatch.setenv("KVBOOK_SHARED_DIR", str(SHARED))
    row = realtrace_row(workload="sharegpt", unit="words", policy="mc-sf", n=100, rate=10.0, seed=0, data="shared")
    assert row["data_sha256"] == sha and row["sharegpt_sha256"] == sha
    mixed = realtrace_row(workload="mixed002", short="sharegpt", policy="mc-sf", n=50, seed=0, data="shared")
    assert mixed["sharegpt_sha256"] == sha and mixed["data_sha256"] != sha  # the arXiv file's
