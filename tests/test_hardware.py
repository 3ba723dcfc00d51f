"""Tests for kvlib.serving.hardware: the KV-cache sizing arithmetic of 004 Section 7.

Hand computations used below (Llama-2-70B: L = 80 layers, H = 8192, fp16 D = 2 bytes,
64 query heads, 8 KV heads; weights 140 GB; two 80 GB A100s = 160 GB):

* per-token bytes, multi-head attention:  2 * 80 * 8192 * 2 = 2,621,440 bytes
* per-token bytes, GQA (8 of 64 heads):    2 * 80 * (8192 * 8 / 64) * 2
                                          = 2 * 80 * 1024 * 2 = 327,680 bytes (1/8 of MHA)
* free memory, decimal GB:  160e9 - 140e9 = 20e9 bytes
      MHA: 20e9 / 2,621,440 = 7629.39453125  -> 7629 tokens
      GQA: 20e9 /   327,680 = 61035.15625    -> 61035 tokens (8x; floor(8 * 7629.39...) = 61035)
* free memory, binary GiB:  (160 - 140) * 2**30 = 21,474,836,480 bytes
      MHA: 21,474,836,480 / 2,621,440 = 8192 exactly (2**34 / (5 * 2**19) ... = 8192)
      GQA: 21,474,836,480 /   327,680 = 65536 exactly
* dropping the factor 2 for V ("K only"), MHA:
      GB:  20e9 / 1,310,720 = 15258.789... -> 15258
      GiB: 20 * 2**30 / 1,310,720 = 16384 exactly
  -- the closest of all readings to 16,492, and still not equal.
* 16,492 tokens at 2,621,440 bytes/token would need 43,232,788,480 bytes
  (43.23 GB = 40.26 GiB) of free memory, not 20 GB.
"""

from __future__ import annotations

import math

import pytest

from kvlib.serving.hardware import (
    GB,
    LLAMA2_70B,
    PAPER_KV_CAPACITY_TOKENS,
    TOTAL_GPU_GB,
    GiB,
    kv_bytes_per_token,
    kv_capacity_tokens,
    sizing_table,
)

MHA_BYTES = 2 * 80 * 8192 * 2  # 2,621,440
GQA_BYTES = 2 * 80 * 1024 * 2  # 327,680


def test_constants():
    assert (LLAMA2_70B.n_layers, LLAMA2_70B.hidden) == (80, 8192)
    assert (LLAMA2_70B.n_heads, LLAMA2_70B.n_kv_heads) == (64, 8)
    assert LLAMA2_70B.dtype_bytes == 2
    assert LLAMA2_70B.weight_gb == 140
    assert TOTAL_GPU_GB == 160
    assert PAPER_KV_CAPACITY_TOKENS == 16492
    assert GB == 1_000_000_000 and GiB == 1_073_741_824


def test_bytes_per_token_mha():
    assert MHA_BYTES == 2_621_440
    assert kv_bytes_per_token(80, 8192, 2) == 2_621_440
    assert isinstance(kv_bytes_per_token(80, 8192, 2), int)


def test_bytes_per_token_gqa():
    assert GQA_BYTES == 327_680
    assert kv_bytes_per_token(80, 8192, 2, n_kv_heads=8, n_heads=64) == 327_680
    # n_kv_heads == n_heads is plain multi-head attention
    assert kv_bytes_per_token(80, 8192, 2, n_kv_heads=64, n_heads=64) == MHA_BYTES


def test_bytes_per_token_fractional_dtype():
    # 4-bit cache: 0.5 bytes per number -> a quarter of fp16
    assert kv_bytes_per_token(80, 8192, 0.5) == MHA_BYTES / 4


def test_capacity_decimal_gb():
    # (160e9 - 140e9) / 2,621,440 = 7629.39453125 -> 7629
    assert kv_capacity_tokens(160e9, 140e9, MHA_BYTES) == 7629
    assert kv_capacity_tokens(160 * GB, 140 * GB, MHA_BYTES) == 7629
    # GQA multiplies the capacity by 8: 20e9 / 327,680 = 61035.15625 -> 61035
    assert kv_capacity_tokens(160 * GB, 140 * GB, GQA_BYTES) == 61035


def test_capacity_binary_gib():
    # 20 * 2**30 / 2,621,440 = 8192 exactly; with GQA 65536 exactly
    assert kv_capacity_tokens(160 * GiB, 140 * GiB, MHA_BYTES) == 8192
    assert kv_capacity_tokens(160 * GiB, 140 * GiB, GQA_BYTES) == 65536


def test_capacity_is_floor_and_exact():
    assert kv_capacity_tokens(10, 1, 3) == 3
    assert kv_capacity_tokens(10, 1, 9) == 1
    assert kv_capacity_tokens(7.0, 1.0, 2.0) == 3
    # an exact multiple is not rounded down: 20 * 2**30 / 2,621,440 = 8192.0 -> 8192
    assert kv_capacity_tokens(160.0 * GiB, 140.0 * GiB, float(MHA_BYTES)) == 8192


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n_layers=0, hidden=8192, dtype_bytes=2), "n_layers"),
        (dict(n_layers=80, hidden=-1, dtype_bytes=2), "hidden"),
        (dict(n_layers=80, hidden=8192, dtype_bytes=0), "dtype_bytes"),
        (dict(n_layers=80, hidden=8192, dtype_bytes=2, n_kv_heads=0, n_heads=64), "n_kv_heads"),
        (dict(n_layers=80, hidden=8192, dtype_bytes=2, n_kv_heads=8, n_heads=-64), "n_heads"),
    ],
)
def test_bytes_per_token_rejects_non_positive(kwargs, name):
    with pytest.raises(ValueError, match=name):
        kv_bytes_per_token(**kwargs)


def test_bytes_per_token_rejects_bad_gqa():
    with pytest.raises(ValueError, match="n_heads"):
        kv_bytes_per_token(80, 8192, 2, n_kv_heads=8)
    with pytest.raises(ValueError, match="n_kv_heads"):
        kv_bytes_per_token(80, 8192, 2, n_kv_heads=128, n_heads=64)
    with pytest.raises(ValueError, match="divisible"):
        kv_bytes_per_token(80, 10, 2, n_kv_heads=1, n_heads=3)


def test_rejects_non_numbers():
    with pytest.raises(TypeError, match="n_layers"):
        kv_bytes_per_token(True, 8192, 2)
    with pytest.raises(TypeError, match="hidden"):
        kv_bytes_per_token(80, "8192", 2)
    with pytest.raises(ValueError, match="dtype_bytes"):
        kv_bytes_per_token(80, 8192, math.nan)


@pytest.mark.parametrize(
    "args, name",
    [
        ((0, 140e9, MHA_BYTES), "total_gpu_bytes"),
        ((160e9, -1, MHA_BYTES), "weight_bytes"),
        ((160e9, 140e9, 0), "per_token_bytes"),
    ],
)
def test_capacity_rejects_non_positive(args, name):
    with pytest.raises(ValueError, match=name):
        kv_capacity_tokens(*args)


def test_capacity_rejects_weights_not_fitting():
    with pytest.raises(ValueError, match="weight_bytes"):
        kv_capacity_tokens(140e9, 160e9, MHA_BYTES)
    with pytest.raises(ValueError, match="weight_bytes"):
        kv_capacity_tokens(140e9, 140e9, MHA_BYTES)


def test_sizing_table_values():
    df = sizing_table()
    assert len(df) == 2 * 2 * 2 * 2 + 2

    def cap(unit, kv, attention, scope):
        sel = df[
            (df.unit == unit) & (df.kv == kv) & (df.attention == attention) & (df.scope == scope)
        ]
        assert len(sel) == 1
        return int(sel.capacity_tokens.iloc[0])

    # the correct reading (K and V, both GPUs): 7629 (GB) / 8192 (GiB); GQA: 61035 / 65536
    assert cap("GB", "K+V", "MHA", "2 GPUs") == 7629
    assert cap("GiB", "K+V", "MHA", "2 GPUs") == 8192
    assert cap("GB", "K+V", "GQA", "2 GPUs") == 61035
    assert cap("GiB", "K+V", "GQA", "2 GPUs") == 65536
    # one GPU's 10 GB holding everything halves the capacity: 20e9/2 / 2,621,440 = 3814.69 -> 3814
    assert cap("GB", "K+V", "MHA", "1 GPU") == 3814
    # forgetting V doubles it: 15258 (GB), 16384 (GiB)
    assert cap("GB", "K only", "MHA", "2 GPUs") == 15258
    assert cap("GiB", "K only", "MHA", "2 GPUs") == 16384
    # mixed units: (160 * 2**30 - 140e9) / 2,621,440 = 12130.24 -> 12130;
    #              (160e9 - 140 * 2**30) / 2,621,440 = 3691.16  -> 3691
    assert cap("GiB memory, GB weights", "K+V", "MHA", "2 GPUs") == 12130
    assert cap("GB memory, GiB weights", "K+V", "MHA", "2 GPUs") == 3691


def test_no_reading_gives_16492():
    df = sizing_table()
    assert not df.matches_target.any()
    assert (df.capacity_tokens != 16492).all()
    # the nearest reading is "K only, MHA, GiB, 2 GPUs" = 16384 = 2**14
    nearest = df.loc[(df.capacity_tokens - 16492).abs().idxmin()]
    assert int(nearest.capacity_tokens) == 16384
    assert (nearest.unit, nearest.kv, nearest.attention) == ("GiB", "K only", "MHA")


def test_sizing_table_target_match_flag():
    df = sizing_table(target=7629)
    hits = df[df.matches_target]
    assert set(hits.capacity_tokens) == {7629}
    assert len(hits) == 2  # GB K+V MHA 2 GPUs, and GB K-only MHA 1 GPU
