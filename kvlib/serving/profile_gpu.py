"""Profile the kernels of one Llama-2-70B tensor-parallel-2 layer on the local GPU (``kvlib profile``).

Writes a file in the format of the shipped kernel timings
(``../shared/data/h100_llama2_70b_tp2_kernels.csv``; columns
:data:`kvlib.serving.measured.KERNEL_COLUMNS`) that
:func:`kvlib.serving.measured.measured_model` reads (``kernels_csv=``).

The layer is one GPU's shard under tensor parallelism 2: hidden size 8,192;
32 query heads and 4 KV heads of dimension 128; MLP width 14,336 (gate and up
projections fused); random bf16 weights.  Operators: ``input_layernorm``
(RMS norm), ``attn_pre_proj`` (fused QKV projection, 8,192 -> 5,120),
``attn_post_proj`` (4,096 -> 8,192), ``mlp_up_proj`` (8,192 -> 28,672),
``mlp_act`` (SiLU of the gate times the up half), ``mlp_down_proj``
(14,336 -> 8,192), ``add`` (a residual addition) and
``layer_without_attention`` (all of them in one call: two norms, the four
projections, the activation and two additions), each by ``num_tokens``;
``attn_decode`` (PyTorch's scaled-dot-product attention, ``batch_size``
requests, one query token each, ``kv_len`` cached tokens each, grouped-query
heads) and ``attn_prefill`` (one causal prompt of ``prompt_len`` tokens).

Protocol (as the shipped files): per operator and size, 7 repeats of 20
back-to-back calls timed with CUDA events (after 3 warm-up calls); a repeat's
time is the mean of its 20 calls; the row records the median and the minimum of
the 7 repeat times (ms).

``device="cpu"`` times with the wall clock instead (a check of the tool on a
machine without a GPU, not a GPU profile; the ``gpu`` column then says CPU).

PyTorch is imported only inside :func:`profile`: everything else here (the
size grids, the timing statistics, the file writer) runs without it.  Install
it with the ``profile`` extra (``pip install 'kvlib[profile]'``).
"""

from __future__ import annotations

import csv
import io
import statistics
from typing import Callable, Iterable

from kvlib.core.errors import KvlibError
from kvlib.serving.measured import KERNEL_COLUMNS

__all__ = [
    "TorchMissingError",
    "NoGpuError",
    "TOKEN_GRID",
    "DECODE_BATCHES",
    "DECODE_KV",
    "PREFILL_LENS",
    "REPEATS",
    "CALLS",
    "require_torch",
    "repeat_stats",
    "rows_csv_text",
    "profile",
]

#: Token counts of the non-attention operators (the shipped files' grid).
TOKEN_GRID = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024, 1536, 2048,
              3072, 4096)
DECODE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
DECODE_KV = (64, 256, 512, 1024, 2048, 4096)
PREFILL_LENS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
REPEATS = 7
CALLS = 20
WARMUP = 3

HIDDEN = 8192
Q_HEADS = 32
KV_HEADS = 4
HEAD_DIM = 128
MLP = 14336


class TorchMissingError(KvlibError, ImportError):
    """PyTorch is not installed (``kvlib profile`` needs the ``profile`` extra)."""


class NoGpuError(KvlibError, RuntimeError):
    """No CUDA GPU is visible to PyTorch."""


def require_torch():
    """Import and return :mod:`torch`, or raise :class:`TorchMissingError` naming the ``profile`` extra."""
    try:
        import torch
    except ImportError as e:
        raise TorchMissingError(
            f"kvlib profile needs PyTorch, which is not installed ({e}); install the profile extra: "
            "pip install 'kvlib[profile]' (or pip install 'torch>=2.1')") from None
    return torch


def repeat_stats(repeat_totals_ms: Iterable[float], calls: int = CALLS) -> tuple[float, float]:
    """(median, min) over repeats of the mean time of one call, from each repeat's total time of ``calls``
    back-to-back calls."""
    means = [t / calls for t in repeat_totals_ms]
    if not means:
        raise ValueError("repeat_stats: no repeats")
    return statistics.median(means), min(means)


def rows_csv_text(rows: Iterable[dict]) -> str:
    """The kernel-timing CSV text (columns :data:`KERNEL_COLUMNS`; sizes that do not apply left empty)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(KERNEL_COLUMNS), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({c: r.get(c, "") for c in KERNEL_COLUMNS})
    return buf.getvalue()


def _timer(torch, fn: Callable[[], object], repeats: int, calls: int, cuda: bool = True) -> tuple[float, float]:
    for _ in range(WARMUP):
        fn()
    totals = []
    if not cuda:  # --device cpu: wall clock (checks the tool itself; not a GPU profile)
        import time

        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            totals.append(1e3 * (time.perf_counter() - t0))
        return repeat_stats(totals, calls)
    torch.cuda.synchronize()
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        totals.append(start.elapsed_time(end))
    return repeat_stats(totals, calls)


def profile(*, device: str = "cuda", repeats: int = REPEATS, calls: int = CALLS, tokens=TOKEN_GRID,
            batches=DECODE_BATCHES, kv_lens=DECODE_KV, prompt_lens=PREFILL_LENS,
            progress: Callable[[str], None] | None = None) -> list[dict]:
    """Measure every operator at every size on ``device``; returns the rows (dicts keyed by the columns)."""
    torch = require_torch()
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError) as e:
        raise NoGpuError(f"kvlib profile: --device {device!r} is not a PyTorch device ({e})") from None
    cuda = dev.type == "cuda"
    if cuda and not torch.cuda.is_available():
        raise NoGpuError("kvlib profile: no CUDA GPU visible to PyTorch (torch.cuda.is_available() is False)")
    import torch.nn.functional as F

    dt = torch.bfloat16
    gen = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape):
        return torch.randn(*shape, device=dev, dtype=dt, generator=gen) * 0.02

    w_norm = torch.ones(HIDDEN, device=dev, dtype=dt)
    w_qkv = rand(HIDDEN, (Q_HEADS + 2 * KV_HEADS) * HEAD_DIM)
    w_o = rand(Q_HEADS * HEAD_DIM, HIDDEN)
    w_up = rand(HIDDEN, 2 * MLP)
    w_down = rand(MLP, HIDDEN)

    def rms(x):
        v = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(v + 1e-5)).to(dt) * w_norm

    def act(u):
        g, up = u.split(MLP, dim=-1)
        return F.silu(g) * up

    name = torch.cuda.get_device_name(dev) if cuda else f"CPU ({dev})"
    head = {"gpu": name, "torch": torch.__version__, "cuda": torch.version.cuda or ""}
    rows: list[dict] = []

    def add_row(op, stats, **size):
        rows.append(dict(head, op=op, time_ms_median=stats[0], time_ms_min=stats[1], **size))
        if progress is not None:
            progress(f"{op} {size}: {stats[0]:.4f} ms")

    with torch.inference_mode():
        for T in tokens:
            x = rand(T, HIDDEN)
            r = rand(T, HIDDEN)
            a_in = rand(T, Q_HEADS * HEAD_DIM)
            u = rand(T, 2 * MLP)
            m = rand(T, MLP)

            def layer(x=x, r=r):
                h = rms(x)
                qkv = h @ w_qkv
                o = qkv[:, : Q_HEADS * HEAD_DIM] @ w_o
                x2 = o + r
                h2 = rms(x2)
                d = act(h2 @ w_up) @ w_down
                return d + x2

            ops = {
                "input_layernorm": lambda x=x: rms(x),
                "attn_pre_proj": lambda x=x: x @ w_qkv,
                "attn_post_proj": lambda a=a_in: a @ w_o,
                "mlp_up_proj": lambda x=x: x @ w_up,
                "mlp_act": lambda u=u: act(u),
                "mlp_down_proj": lambda m=m: m @ w_down,
                "add": lambda x=x, r=r: x + r,
                "layer_without_attention": layer,
            }
            for op, fn in ops.items():
                add_row(op, _timer(torch, fn, repeats, calls, cuda), num_tokens=T)
        gqa = Q_HEADS // KV_HEADS

        def sdpa(q, k, v, causal):
            try:
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
            except TypeError:  # torch < 2.5: no enable_gqa, expand the KV heads
                k = k.repeat_interleave(gqa, dim=1)
                v = v.repeat_interleave(gqa, dim=1)
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        for B in batches:
            for L in kv_lens:
                q = rand(B, Q_HEADS, 1, HEAD_DIM)
                k = rand(B, KV_HEADS, L, HEAD_DIM)
                v = rand(B, KV_HEADS, L, HEAD_DIM)
                add_row("attn_decode", _timer(torch, lambda q=q, k=k, v=v: sdpa(q, k, v, False), repeats, calls, cuda),
                        batch_size=B, kv_len=L)
                del q, k, v
        for P in prompt_lens:
            q = rand(1, Q_HEADS, P, HEAD_DIM)
            k = rand(1, KV_HEADS, P, HEAD_DIM)
            v = rand(1, KV_HEADS, P, HEAD_DIM)
            add_row("attn_prefill", _timer(torch, lambda q=q, k=k, v=v: sdpa(q, k, v, True), repeats, calls, cuda),
                    prompt_len=P)
    return rows
