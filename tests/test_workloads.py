"""Workloads (kvlib.serving.workloads): LMSYS-like fit, loaders, clear errors."""

from pathlib import Path

import numpy as np
import pytest

from kvlib.core.model import InstanceError
from kvlib.serving.workloads import (
    FALLBACK_LABEL, LMSYS_TARGETS, SYNTHETIC_LABEL, load_arxiv, load_splitwise, load_user_csv,
    lmsys_fit_table, lmsys_like, mixed_002, poisson_arrivals, rescale_trace, resolve_shared_dir,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
have_shared = pytest.mark.skipif(not (SHARED / "splitwise_conv.csv").exists(), reason="../shared/data absent")


def test_lmsys_fit_matches_published_statistics():
    t = lmsys_fit_table()
    for _, r in t.iterrows():
        assert r["mean (fit)"] == pytest.approx(r["mean (published)"], rel=1e-3)
        assert r["median (fit)"] == r["median (published)"]
        assert r["variance (fit)"] == pytest.approx(r["variance (published)"], rel=1e-3)


def test_lmsys_like_sample_in_range_and_deterministic():
    w1 = lmsys_like(np.random.default_rng(3), 5000)
    w2 = lmsys_like(np.random.default_rng(3), 5000)
    assert np.array_equal(w1.prompt, w2.prompt) and np.array_equal(w1.output, w2.output)
    assert w1.label == SYNTHETIC_LABEL
    for arr, key in ((w1.prompt, "prompt"), (w1.output, "output")):
        assert arr.min() >= LMSYS_TARGETS[key]["lo"] and arr.max() <= LMSYS_TARGETS[key]["hi"]
        assert abs(arr.mean() - LMSYS_TARGETS[key]["mean"]) < 0.1 * LMSYS_TARGETS[key]["mean"]


def test_user_csv_and_errors(tmp_path):
    p = tmp_path / "u.csv"
    p.write_text("prompt,output\n3,4\n5,6\n")
    w = load_user_csv(p)
    assert w.prompt.tolist() == [3, 5] and w.output.tolist() == [4, 6] and w.sha256
    p.write_text("prompt,out\n3,4\n")
    with pytest.raises(InstanceError, match=r"line 1: missing column\(s\) output"):
        load_user_csv(p)
    p.write_text("prompt,output\n3,4\n5,x\n")
    with pytest.raises(InstanceError, match=r"u.csv, line 3, column output: 'x' is not a number"):
        load_user_csv(p)
    p.write_text("prompt,output\n3,4.5\n")
    with pytest.raises(InstanceError, match="line 2, column output.*not an integer"):
        load_user_csv(p)
    p.write_text("prompt,output\n0,4\n")
    with pytest.raises(InstanceError, match="line 2, column prompt: token count must be positive"):
        load_user_csv(p)
    p.write_text("")
    with pytest.raises(InstanceError, match="empty"):
        load_user_csv(p)
    with pytest.raises(InstanceError, match="no such file"):
        load_user_csv(tmp_path / "nope.csv")


def test_missing_trace_error_and_fallback(tmp_path):
    with pytest.raises(InstanceError, match="splitwise_conv.csv: no such file"):
        load_splitwise(tmp_path)
    w = load_arxiv(tmp_path, fallback=True, fallback_n=300)
    assert w.label == FALLBACK_LABEL and w.n == 300 and w.sha256 is None
    assert resolve_shared_dir(tmp_path / "nothing") is None


def test_splitwise_unsorted_names_line(tmp_path):
    (tmp_path / "splitwise_conv.csv").write_text("arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,2\n5,1,2\n4,1,1\n")
    with pytest.raises(InstanceError, match="line 4, column arrived_at"):
        load_splitwise(tmp_path)


@have_shared
def test_real_traces_load_with_sha():
    s = load_splitwise(SHARED)
    assert s.n == 19366 and len(s.sha256) == 64 and np.all(np.diff(s.arrival_s) >= 0)
    r = rescale_trace(s, 20.0)
    assert (r.n - 1) / r.arrival_s.max() == pytest.approx(20.0)
    a = load_arxiv(SHARED)
    assert a.n == 28257
    m = mixed_002(np.random.default_rng(0), 500, a)
    assert m.n == 500 and m.is_arxiv.sum() == 100 and np.all(m.arrival_s == 0)


def test_poisson_rate():
    a = poisson_arrivals(np.random.default_rng(0), 20000, 50.0)
    assert np.all(np.diff(a) >= 0) and 20000 / a[-1] == pytest.approx(50.0, rel=0.05)
