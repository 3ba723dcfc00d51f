"""Measured batch-time model (kvlib.serving.measured) and the GPU profiler's file handling (no PyTorch needed)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kvlib.core.errors import InstanceError, ParameterError
from kvlib.serving import batchtime, measured, profile_gpu
from kvlib.serving.measured import (
    EMBEDDED,
    HARDWARE,
    KERNEL_COLUMNS,
    attention_curve,
    comparison_summary,
    derived_vs_measured,
    fit_decode,
    fit_hardware,
    fit_kernels,
    fit_knee,
    fit_prefill,
    measured_model,
    read_kernels,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
have_shared = pytest.mark.skipif(not all((SHARED / f).exists() for h in HARDWARE.values() for f in h.values()),
                                 reason="../shared/data absent")
COEFS = ("layer_c0", "layer_c1", "layer_c2", "emb_e0", "emb_e1", "allreduce_d0", "allreduce_d1")


# --------------------------------------------------------------------------- embedded == refit


@have_shared
@pytest.mark.parametrize("hw", list(HARDWARE))
def test_embedded_coefficients_equal_a_refit_from_the_csvs(hw):
    fit = fit_hardware(hw, SHARED)
    emb = EMBEDDED[hw]
    for k in COEFS:
        assert fit["base"][k] == pytest.approx(emb["base"][k], rel=1e-9, abs=1e-15), k
    assert fit["base"]["layer_knee"] == emb["base"]["layer_knee"]
    for part in ("decode", "prefill"):
        assert fit[part]["form"] == emb[part]["form"]
        for k in "abc":
            assert fit[part][k] == pytest.approx(emb[part][k], rel=1e-6, abs=1e-15), (part, k)
    fp, ep = fit["provenance"], emb["provenance"]
    assert fp["quality"] == ep["quality"]
    for name in HARDWARE[hw]:
        key = name.removesuffix("_csv") + "_sha256"
        assert fp[key] == ep[key]
    if hw == "a100":
        assert fp["derived_vs_measured"] == ep["derived_vs_measured"]
    refit = measured_model(hw, data_dir=SHARED)
    assert refit.provenance["origin"] == f"fitted from {SHARED}"
    assert refit.batch_ms(300, 64, 64 * 1500) == pytest.approx(measured_model(hw).batch_ms(300, 64, 64 * 1500), rel=1e-6)


@have_shared
def test_embedded_sha256_agree_with_sha256sums():
    sums = dict(reversed(line.split()) for line in (SHARED / "SHA256SUMS").read_text().splitlines() if line.strip())
    for hw, files in HARDWARE.items():
        for name, f in files.items():
            assert EMBEDDED[hw]["provenance"][name.removesuffix("_csv") + "_sha256"] == sums[f], (hw, f)


@have_shared
def test_a100_base_is_batchtime_fit_and_fit_knee_is_the_same_procedure():
    """a100's non-attention and all-reduce are batchtime.py's own fit; fit_knee (used for kernel files) gives the
    same coefficients as batchtime.fit_from_csv on Vidur's A100 rows."""
    for k in COEFS:
        assert EMBEDDED["a100"]["base"][k] == batchtime.EMBEDDED[k]
    T, y = batchtime.profile_points(SHARED)
    coef, q = fit_knee(T, y)
    assert coef["layer_knee"] == batchtime.EMBEDDED["layer_knee"]
    for k in ("layer_c0", "layer_c1", "layer_c2"):
        assert coef[k] == pytest.approx(batchtime.EMBEDDED[k], rel=1e-9)
    assert q["r2"] == pytest.approx(batchtime.EMBEDDED["provenance"]["layer_r2"], abs=1e-4)


def test_h200_states_its_stand_ins_and_fit_quality_is_recorded():
    p = EMBEDDED["h200"]["provenance"]
    assert "h100_pairwise_nvlink_all_reduce.csv" in p["stand_ins"]["allreduce"]
    assert EMBEDDED["h200"]["base"]["allreduce_d1"] == EMBEDDED["h100"]["base"]["allreduce_d1"]
    for hw in HARDWARE:
        q = EMBEDDED[hw]["provenance"]["quality"]
        assert set(q) == {"layer", "allreduce", "decode_attention", "prefill_attention"}
        for op in ("layer", "decode_attention", "prefill_attention"):
            assert 0.9 < q[op]["r2"] <= 1.0 and 0 <= q[op]["median_rel_err"] <= q[op]["max_rel_err"] < 0.7, (hw, op)


# --------------------------------------------------------------------------- the model


@pytest.mark.parametrize("hw", list(HARDWARE))
def test_monotone_nonnegative_and_empty(hw):
    # the straight-line attention is monotone; the measured surface follows the profiles' own dips
    # (tests/test_serving_like_for_like.py bounds them)
    m = measured_model(hw, attention="line")
    assert m.batch_ms(0, 0, 0) == 0.0
    for part in ("decode", "prefill"):
        assert all(m.__getattribute__(part)[k] >= 0 for k in "abc")
    D = np.arange(1, 513)
    t = m.batch_ms(0, D, D * 1000)
    assert np.all(np.diff(t) >= 0) and np.all(t > 0)
    K = np.arange(16, 2_000_000, 997)
    assert np.all(np.diff(m.batch_ms(0, 16, K)) >= 0)
    P = np.arange(1, 8192)
    assert np.all(np.diff(m.batch_ms(P, 0, 0)) > 0)


@pytest.mark.parametrize("hw", list(HARDWARE))
def test_breakdown_sums_to_total_and_vectorised_equals_scalar(hw):
    m = measured_model(hw)
    P = np.array([0, 10, 2000]); D = np.array([1, 5, 0]); K = np.array([50, 600, 0])
    v = m.batch_ms(P, D, K)
    assert np.allclose(v, [m.batch_ms(p, d, k) for p, d, k in zip(P, D, K)])
    b = m.breakdown(300, 16, 16492)
    assert b["total_ms"] == pytest.approx(sum(x for k, x in b.items() if k != "total_ms"))
    assert b["decode_attention_ms"] == pytest.approx(80 * float(m.decode_attention_ms(16, 16492)))


def test_derived_fallback_is_batchtime_exactly():
    d = measured_model("a100", attention="derived")
    ref = batchtime.default_model()
    for args in [(0, 16, 16492), (2000, 0, 0), (300, 40, 9000), (1, 1, 1)]:
        assert d.batch_ms(*args) == pytest.approx(ref.batch_ms(*args), rel=1e-12)


def test_measured_a100_round_differs_from_derived():
    """The default round (16 requests, 16,492 cached tokens): measured attention is slower than the assumption."""
    m, d = measured_model("a100"), measured_model("a100", attention="derived")
    dm, dd = m.breakdown(0, 16, 16492), d.breakdown(0, 16, 16492)
    assert dm["decode_attention_ms"] > 1.5 * dd["decode_attention_ms"]
    assert dm["non_attention_ms"] == dd["non_attention_ms"]


def test_bad_hardware_and_attention_are_named_errors():
    with pytest.raises(ParameterError, match="unknown hardware 'tpu'; known: a100, h100, h200"):
        measured_model("tpu")
    with pytest.raises(ParameterError, match="only for hardware 'a100'"):
        measured_model("h100", attention="derived")
    with pytest.raises(ParameterError, match="must be 'measured', 'line' or 'derived'"):
        measured_model("a100", attention="guess")
    with pytest.raises(FileNotFoundError, match="no such file"):
        measured.fit_hardware("a100", "/nonexistent-dir")


# --------------------------------------------------------------------------- fits recover known curves


def test_fits_recover_known_linear_and_roofline_curves():
    B, kv = np.meshgrid([1, 2, 4, 8, 16, 32, 64, 128, 256], [64, 256, 512, 1024, 2048, 4096])
    B, kv = B.ravel().astype(float), kv.ravel().astype(float)
    lin = {"form": "linear", "a": 0.02, "b": 3e-5, "c": 1.2e-6}
    coef, q = fit_decode(B, kv, attention_curve("linear", lin, B, B * kv))
    assert coef["form"] == "linear" and q["max_rel_err"] < 1e-6
    for k in "abc":
        assert coef[k] == pytest.approx(lin[k], rel=1e-6)
    roof = {"form": "roofline", "a": 0.03, "b": 0.0, "c": 7e-7}
    coef, q = fit_decode(B, kv, attention_curve("roofline", roof, B, B * kv))
    assert coef["form"] == "roofline" and q["max_rel_err"] < 1e-4
    assert coef["a"] == pytest.approx(0.03, rel=1e-4) and coef["c"] == pytest.approx(7e-7, rel=1e-4)
    P = np.array([16, 32, 64, 128, 256, 512, 1024, 2048, 4096], dtype=float)
    coef, q = fit_prefill(P, 0.01 + 8e-5 * P + 1.2e-7 * P * P)
    assert coef["form"] == "linear" and coef["c"] == pytest.approx(1.2e-7, rel=1e-6)
    with pytest.raises(InstanceError, match="positive finite"):
        fit_prefill(P, np.r_[0.0, np.ones(8)])
    with pytest.raises(InstanceError, match="at least 4 are needed"):
        fit_prefill(P[:2], np.ones(2))


def _synthetic_rows(layer=lambda T: 0.4 + 0.0015 * np.maximum(T - 128, 0), scale=1.0):
    rows = []
    head = {"gpu": "Synthetic GPU", "torch": "0", "cuda": "0"}
    for T in profile_gpu.TOKEN_GRID:
        for op in measured.KERNEL_OPS[:8]:
            t = float(layer(T)) if op == "layer_without_attention" else 0.01 + 1e-5 * T
            rows.append(dict(head, op=op, num_tokens=T, time_ms_median=t * scale, time_ms_min=0.9 * t * scale))
    for B in profile_gpu.DECODE_BATCHES:
        for L in profile_gpu.DECODE_KV:
            t = max(0.03, 7e-7 * B * L)
            rows.append(dict(head, op="attn_decode", batch_size=B, kv_len=L, time_ms_median=t * scale, time_ms_min=t))
    for P in profile_gpu.PREFILL_LENS:
        t = 0.01 + 8e-5 * P + 1e-8 * P * P
        rows.append(dict(head, op="attn_prefill", prompt_len=P, time_ms_median=t * scale, time_ms_min=t))
    return rows


def test_a_profile_file_round_trips_into_a_model(tmp_path):
    """kvlib profile's writer -> read_kernels -> fit_kernels, on a synthetic profile (no PyTorch, no GPU)."""
    f = tmp_path / "mine.csv"
    f.write_text(profile_gpu.rows_csv_text(_synthetic_rows()))
    assert f.read_text().splitlines()[0] == ",".join(KERNEL_COLUMNS)
    k = read_kernels(f)
    assert len(k) == 24 * 8 + 54 + 9
    m = measured_model(kernels_csv=f, attention="line")  # the straight-line fit (the default: the grid surface)
    assert m.hardware == "kernels:Synthetic GPU" and m.decode["form"] == "roofline"
    assert m.decode["c"] == pytest.approx(7e-7, rel=1e-3) and m.prefill["form"] == "linear"
    assert m.base.layer_knee == 128 and m.base.layer_c2 == pytest.approx(0.0015, rel=1e-6)
    assert m.base.allreduce_d1 == EMBEDDED["h100"]["base"]["allreduce_d1"]  # stand-in, stated
    assert "h100" in m.provenance["stand_ins"]["allreduce"]
    q = m.provenance["quality"]
    assert q["layer"]["max_rel_err"] < 1e-6 and q["prefill_attention"]["max_rel_err"] < 1e-6
    # twice as slow a GPU: every fitted time doubles
    g = tmp_path / "slow.csv"
    g.write_text(profile_gpu.rows_csv_text(_synthetic_rows(scale=2.0)))
    s = measured_model(kernels_csv=g, attention="line")
    assert float(s.decode_attention_ms(64, 64 * 4096)) == pytest.approx(2 * float(m.decode_attention_ms(64, 64 * 4096)),
                                                                         rel=1e-3)


@have_shared
def test_the_shipped_h100_kernel_file_gives_the_embedded_h100_attention(tmp_path):
    f = tmp_path / "copy.csv"
    shutil.copy(SHARED / "h100_llama2_70b_tp2_kernels.csv", f)
    m = measured_model(kernels_csv=f, attention="line")
    for part in ("decode", "prefill"):
        for k in "abc":
            assert getattr(m, part)[k] == pytest.approx(EMBEDDED["h100"][part][k], rel=1e-6, abs=1e-15)
    assert m.provenance["gpu"] == "NVIDIA H100 80GB HBM3"


BAD_KERNEL_FILES = [
    ("missing column", "gpu,op,num_tokens\nX,add,1\n", "missing column(s) torch"),
    ("unknown op", ",".join(KERNEL_COLUMNS) + "\nX,0,0,softmax,1,,,,0.1,0.1\n", "line 2: unknown op 'softmax'"),
    ("negative time", ",".join(KERNEL_COLUMNS) + "\nX,0,0,add,1,,,,-0.1,0.1\n", "line 2, column time_ms_median"),
    ("decode without kv", ",".join(KERNEL_COLUMNS) + "\nX,0,0,attn_decode,,4,,,0.1,0.1\n", "column kv_len"),
    ("header only", ",".join(KERNEL_COLUMNS) + "\n", "no rows"),
    ("empty file", "", "not a readable CSV"),
]


@pytest.mark.parametrize("case", BAD_KERNEL_FILES, ids=[c[0] for c in BAD_KERNEL_FILES])
def test_bad_kernel_files_are_named(tmp_path, case):
    _, text, msg = case
    f = tmp_path / "k.csv"
    f.write_text(text)
    with pytest.raises(InstanceError, match=None) as e:
        read_kernels(f)
    assert msg in str(e.value) and str(f) in str(e.value)


def test_kernel_file_path_errors_and_missing_attention(tmp_path):
    with pytest.raises(InstanceError, match="no such kernel-timing file"):
        read_kernels(tmp_path / "nope.csv")
    with pytest.raises(InstanceError, match="is a directory"):
        read_kernels(tmp_path)
    f = tmp_path / "noattn.csv"
    f.write_text(profile_gpu.rows_csv_text([r for r in _synthetic_rows() if r["op"] != "attn_prefill"]))
    with pytest.raises(InstanceError, match="needs attn_decode and attn_prefill rows"):
        fit_kernels(f)


# --------------------------------------------------------------------------- derived vs measured


@have_shared
def test_derived_attention_against_vidur_measured_a100_rows():
    rows = derived_vs_measured(SHARED, model=measured_model("a100", attention="line"))  # as fitted (shares)
    assert list(rows.columns) == ["kind", "batch", "kv", "measured_ms", "derived_ms", "rel_err", "share", "source"]
    assert rows.source.iloc[0].startswith("measured")
    dec = rows[rows.kind == "decode"]
    assert len(dec) == 10240 and len(rows[rows.kind == "prefill"]) == 84
    assert (rows.rel_err < 0).all()  # the assumption underestimates every measured row
    s = comparison_summary(rows)
    assert s == EMBEDDED["a100"]["provenance"]["derived_vs_measured"]
    assert 0.3 < s["decode"]["median_abs_rel_err"] < 0.45 and s["decode"]["max_abs_rel_err"] > 0.99
    assert s["decode"]["worst"]["batch"] == 1 and s["decode"]["worst"]["kv"] == 32
    # even at the largest cache (128 requests x 4,032 tokens) the assumed bandwidth is too high
    big = dec[(dec.batch == 128) & (dec.kv == dec.kv.max())].iloc[0]
    assert -0.3 < big.rel_err < -0.1
    assert 0.3 < big.share < 0.5


def test_derived_vs_measured_without_files_uses_the_embedded_fit():
    rows = derived_vs_measured(None)
    assert rows.source.iloc[0] == "embedded A100 fit (no attention file)"
    assert len(rows) == 128 * 126 + 64
    assert (rows.rel_err < 0).all() and ((rows.share > 0) & (rows.share < 1)).all()


# --------------------------------------------------------------------------- profiler without PyTorch


def test_repeat_stats_protocol():
    med, mn = profile_gpu.repeat_stats([20.0, 22.0, 18.0, 40.0, 21.0, 19.0, 20.5], calls=20)
    assert med == pytest.approx(1.025) and mn == pytest.approx(0.9)
    with pytest.raises(ValueError, match="no repeats"):
        profile_gpu.repeat_stats([])


@have_shared
def test_writer_header_and_grids_match_the_shipped_files():
    k = pd.read_csv(SHARED / "h100_llama2_70b_tp2_kernels.csv")
    assert tuple(k.columns) == KERNEL_COLUMNS
    assert tuple(int(x) for x in sorted(k.num_tokens.dropna().unique())) == profile_gpu.TOKEN_GRID
    assert tuple(int(x) for x in sorted(k.batch_size.dropna().unique())) == profile_gpu.DECODE_BATCHES
    assert tuple(int(x) for x in sorted(k.kv_len.dropna().unique())) == profile_gpu.DECODE_KV
    assert tuple(int(x) for x in sorted(k.prompt_len.dropna().unique())) == profile_gpu.PREFILL_LENS
    assert set(k.op) == set(measured.KERNEL_OPS)


def test_missing_torch_is_a_named_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(profile_gpu.TorchMissingError, match=r"profile extra: pip install 'kvlib\[profile\]'"):
        profile_gpu.require_torch()
    with pytest.raises(profile_gpu.TorchMissingError):
        profile_gpu.profile()


def test_profile_module_imports_without_torch():
    import subprocess

    code = "import sys; sys.modules['torch'] = None; import kvlib.serving.profile_gpu, kvlib.cli; print('ok')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_profile_runs_on_cpu_when_torch_is_installed(tmp_path, monkeypatch):
    """The measuring code itself (shapes, operators, the writer) on a tiny grid and a shrunken layer (a bf16
    Llama-2-70B shard takes minutes on a CPU); skipped where PyTorch is absent."""
    pytest.importorskip("torch")
    for name, v in (("HIDDEN", 256), ("MLP", 384), ("Q_HEADS", 4), ("KV_HEADS", 2), ("HEAD_DIM", 32)):
        monkeypatch.setattr(profile_gpu, name, v)
    rows = profile_gpu.profile(device="cpu", repeats=2, calls=1, tokens=(1, 4, 8, 16), batches=(1, 2),
                               kv_lens=(16, 32, 64), prompt_lens=(8, 16, 32, 64))
    assert len(rows) == 4 * 8 + 2 * 3 + 4
    assert all(r["time_ms_median"] >= r["time_ms_min"] > 0 for r in rows)
    f = tmp_path / "cpu.csv"
    f.write_text(profile_gpu.rows_csv_text(rows))
    m = measured_model(kernels_csv=f)
    assert m.hardware == "kernels:CPU (cpu)" and m.batch_ms(0, 2, 64) > 0


@pytest.mark.parametrize("hw", list(HARDWARE))
def test_measured_model_drives_the_continuous_time_simulator(hw):
    """Drop-in for BatchTimeModel in kvlib.serving.realtime (it calls batch_ms(prefill, decode, kv, sumsq));
    faster hardware gives shorter rounds on the same schedule-independent first round."""
    from kvlib.policies import make_policy
    from kvlib.serving.realtime import simulate_realtime
    from kvlib.serving.workloads import lmsys_like, poisson_arrivals

    rng = np.random.default_rng(0)
    w = lmsys_like(rng, 60, arrival_s=poisson_arrivals(rng, 60, 40.0))
    m = measured_model(hw)
    r = simulate_realtime(w, make_policy("mc-sf"), memory=3000, model=m)
    assert r.completed and np.all(r.batch_ms > 0)
    ref = simulate_realtime(w, make_policy("mc-sf"), memory=3000, model=measured_model("a100"))
    assert r.batch_ms[0] <= ref.batch_ms[0] * (1 + 1e-12)


def test_scalar_batch_time_equals_the_vectorised_one_to_the_last_bit():
    """batch_ms on one batch takes a plain-float path (the real-time simulator's hot loop); it must give
    the vectorised breakdown's value exactly, on every GPU, with and without prompt counts."""
    import numpy as np

    from kvlib.serving.measured import measured_model

    rng = np.random.default_rng(0)
    for hw in ("a100", "h100", "h200"):
        m = measured_model(hw)
        for _ in range(3000):
            P = float(rng.choice([0, rng.integers(1, 5000)]))
            D, K = float(rng.integers(0, 300)), float(rng.integers(0, 200_000))
            ss = None if rng.random() < 0.5 else float(P * P / max(1, rng.integers(1, 4)))
            npr = float(rng.integers(1, 4)) if P > 0 and rng.random() < 0.5 else None
            assert m.batch_ms(P, D, K, ss, npr) == m.breakdown(P, D, K, ss, npr)["total_ms"], (hw, P, D, K, ss, npr)
        assert m.batch_ms(0, 0, 0) == 0.0
        assert m.batch_ms(np.int64(7), np.int64(3), np.int64(900)) == m.breakdown(7, 3, 900)["total_ms"]
