"""Batch-time model (kvlib.serving.batchtime): monotone, matches Vidur's profile, embedded == refit."""

from pathlib import Path

import numpy as np
import pytest

from kvlib.serving.batchtime import EMBEDDED, N_LAYERS, default_model, fit_from_csv, profile_points

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
have_shared = pytest.mark.skipif(not (SHARED / "a100_llama2_70b_mlp.csv").exists(), reason="../shared/data absent")


def test_monotone_in_every_argument():
    m = default_model()
    base = m.batch_ms(100, 50, 5000)
    assert m.batch_ms(200, 50, 5000) > base
    assert m.batch_ms(100, 60, 5000) > base
    assert m.batch_ms(100, 50, 6000) > base
    T = np.arange(1, 5000)
    t = m.batch_ms(np.zeros_like(T), T, T * 100)
    assert np.all(np.diff(t) > 0)


def test_empty_batch_and_scale():
    m = default_model()
    assert m.batch_ms(0, 0, 0) == 0.0
    # one decode token: weights-bound, roughly 140 GB / (2 * 2 TB/s) = 35 ms plus overheads
    assert 35.0 < m.batch_ms(0, 1, 100) < 80.0
    assert "mlp_sha256" in m.provenance and m.provenance["origin"] == "embedded coefficients"


def test_vectorised_equals_scalar():
    m = default_model()
    P = np.array([0, 10, 300]); D = np.array([1, 5, 0]); K = np.array([50, 600, 0])
    v = m.batch_ms(P, D, K)
    assert np.allclose(v, [m.batch_ms(p, d, k) for p, d, k in zip(P, D, K)])


@have_shared
def test_refit_reproduces_embedded():
    m = fit_from_csv(SHARED)
    for k in ("layer_c0", "layer_c1", "layer_c2", "emb_e0", "emb_e1", "allreduce_d0", "allreduce_d1"):
        assert getattr(m, k) == pytest.approx(EMBEDDED[k], rel=1e-6), k
    assert m.layer_knee == EMBEDDED["layer_knee"]
    assert m.provenance["mlp_sha256"] == EMBEDDED["provenance"]["mlp_sha256"]


@have_shared
def test_matches_profile_on_sample_points():
    m = default_model()
    T, y = profile_points(SHARED)
    for tok in (1, 64, 256, 1024, 4096):
        meas = float(np.median(y[T == tok]))
        assert m.layer_linear_ms(tok) == pytest.approx(meas, rel=0.2), tok
    rel = np.abs(m.layer_linear_ms(T) - y) / y
    assert np.median(rel) < 0.05


def test_missing_files_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="a100_llama2_70b_mlp.csv"):
        fit_from_csv(tmp_path)
