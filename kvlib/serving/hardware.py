"""KV-cache sizing arithmetic (004 Section 7).

The earlier version of Jaillet et al. (arXiv:2502.07115v1, called "004" in this
project) sizes the KV cache of Llama-2-70B served on two 80 GB A100 GPUs in its
Section 7 and works with a memory limit of 16,492 tokens.  This module does the
arithmetic behind such a number so that it can be checked:

* :func:`kv_bytes_per_token` -- bytes of KV cache one token occupies:
  ``2 * L * H * D`` for multi-head attention (the factor 2 counts K and V), and
  ``2 * L * (H * n_kv_heads / n_heads) * D`` with grouped-query attention;
* :func:`kv_capacity_tokens` -- how many tokens fit in the memory left after the
  weights: ``floor((total - weights) / per_token)``;
* :func:`sizing_table` -- the capacity under every natural reading of the stated
  numbers (GB or GiB, K and V or one of them, MHA or GQA, both GPUs or one GPU),
  to see which reading (if any) gives 16,492.

None of the readings in :func:`sizing_table` gives 16,492; see the chapter
"The model" of the book for the discussion.  The later version of the paper
(arXiv:2502.07115v5, "001") attributes 16,492 to private communication.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "GB",
    "GiB",
    "LLAMA2_70B",
    "A100_80GB_BYTES_GB",
    "N_GPUS",
    "TOTAL_GPU_GB",
    "PAPER_KV_CAPACITY_TOKENS",
    "ModelShape",
    "kv_bytes_per_token",
    "kv_capacity_tokens",
    "sizing_table",
]

#: One decimal gigabyte (10**9 bytes).
GB: int = 10**9
#: One binary gibibyte (2**30 bytes).
GiB: int = 2**30


@dataclass(frozen=True)
class ModelShape:
    """Shape of a decoder-only transformer as far as KV-cache sizing goes (004 Section 7).

    Attributes
    ----------
    name:
        Human-readable model name.
    n_layers:
        Number of transformer layers ``L``.
    hidden:
        Hidden (model) dimension ``H``.
    n_heads:
        Number of query heads.
    n_kv_heads:
        Number of key/value heads (equal to ``n_heads`` for multi-head attention,
        smaller with grouped-query attention).
    dtype_bytes:
        Bytes per stored number ``D`` (2 for fp16/bf16).
    weight_gb:
        Size of the weights in the paper's units ("GB"), i.e. the number the
        paper states, not converted.
    """

    name: str
    n_layers: int
    hidden: int
    n_heads: int
    n_kv_heads: int
    dtype_bytes: int
    weight_gb: int


#: Llama-2-70B as used in 004 Section 7: L = 80 layers, H = 8192, 64 query heads,
#: 8 KV heads (grouped-query attention), fp16 (D = 2 bytes), ~140 GB of weights.
LLAMA2_70B = ModelShape(
    name="Llama-2-70B",
    n_layers=80,
    hidden=8192,
    n_heads=64,
    n_kv_heads=8,
    dtype_bytes=2,
    weight_gb=140,
)

#: Memory of one A100 GPU in the paper's units ("80 GB").
A100_80GB_BYTES_GB: int = 80
#: Number of A100 GPUs in 004 Section 7.
N_GPUS: int = 2
#: Total GPU memory of the setup, in the paper's units: 2 x 80 = 160 "GB".
TOTAL_GPU_GB: int = N_GPUS * A100_80GB_BYTES_GB
#: The KV-cache capacity (in tokens) the paper works with.
PAPER_KV_CAPACITY_TOKENS: int = 16492


def _check_positive(name: str, value: object) -> None:
    """Raise ``ValueError``/``TypeError`` unless ``value`` is a positive real number."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a positive number, got {value!r}")
    if not math.isfinite(float(value)) or value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def kv_bytes_per_token(
    n_layers: int,
    hidden: int,
    dtype_bytes: int | float,
    n_kv_heads: int | None = None,
    n_heads: int | None = None,
) -> int | float:
    """Bytes of KV cache used by one token (004 Section 7).

    Multi-head attention stores one key and one value vector of size ``H`` per
    layer, hence ``2 * L * H * D`` bytes (the 2 counts K and V).  With
    grouped-query attention only ``n_kv_heads`` of the ``n_heads`` heads carry
    their own keys and values, so the per-layer width is ``H * n_kv_heads /
    n_heads`` and the total is ``2 * L * (H * n_kv_heads / n_heads) * D``.

    Parameters
    ----------
    n_layers:
        Number of layers ``L``.
    hidden:
        Hidden dimension ``H``.
    dtype_bytes:
        Bytes per number ``D`` (2 for fp16).  May be fractional (e.g. 0.5 for 4-bit).
    n_kv_heads, n_heads:
        Give both for grouped-query attention, or neither for multi-head attention.

    Returns
    -------
    int or float
        Bytes per token; an ``int`` when all inputs are integers.

    Raises
    ------
    ValueError
        If an input is not positive (the message names the parameter), if only one
        of ``n_kv_heads``/``n_heads`` is given, if ``n_kv_heads > n_heads``, or if
        ``hidden * n_kv_heads`` is not divisible by ``n_heads``.

    Examples
    --------
    >>> kv_bytes_per_token(80, 8192, 2)            # Llama-2-70B, MHA reading
    2621440
    >>> kv_bytes_per_token(80, 8192, 2, n_kv_heads=8, n_heads=64)  # with GQA
    327680
    """
    _check_positive("n_layers", n_layers)
    _check_positive("hidden", hidden)
    _check_positive("dtype_bytes", dtype_bytes)
    if (n_kv_heads is None) != (n_heads is None):
        raise ValueError(
            "give both n_kv_heads and n_heads (grouped-query attention) or neither "
            f"(multi-head attention); got n_kv_heads={n_kv_heads!r}, n_heads={n_heads!r}"
        )
    kv_width: int | Fraction = hidden
    if n_kv_heads is not None and n_heads is not None:
        _check_positive("n_kv_heads", n_kv_heads)
        _check_positive("n_heads", n_heads)
        if n_kv_heads > n_heads:
            raise ValueError(
                f"n_kv_heads ({n_kv_heads}) must not exceed n_heads ({n_heads})"
            )
        width = Fraction(hidden) * Fraction(n_kv_heads) / Fraction(n_heads)
        if width.denominator != 1:
            raise ValueError(
                f"hidden * n_kv_heads ({hidden} * {n_kv_heads}) is not divisible by "
                f"n_heads ({n_heads})"
            )
        kv_width = int(width)
    result = 2 * n_layers * kv_width * dtype_bytes
    return result


def kv_capacity_tokens(
    total_gpu_bytes: int | float,
    weight_bytes: int | float,
    per_token_bytes: int | float,
) -> int:
    """Number of tokens whose KV cache fits next to the weights (004 Section 7).

    ``floor((total_gpu_bytes - weight_bytes) / per_token_bytes)``, computed exactly
    (with :class:`fractions.Fraction`, so ``160e9`` and ``140e9`` give no rounding
    surprises).  Activation memory and fragmentation are ignored, as in the paper.

    Raises
    ------
    ValueError
        If an input is not positive (the message names the parameter) or if the
        weights do not fit (``weight_bytes >= total_gpu_bytes``).

    Examples
    --------
    >>> kv_capacity_tokens(160 * GB, 140 * GB, 2621440)
    7629
    """
    _check_positive("total_gpu_bytes", total_gpu_bytes)
    _check_positive("weight_bytes", weight_bytes)
    _check_positive("per_token_bytes", per_token_bytes)
    free = Fraction(total_gpu_bytes) - Fraction(weight_bytes)
    if free <= 0:
        raise ValueError(
            f"weight_bytes ({weight_bytes!r}) must be smaller than total_gpu_bytes "
            f"({total_gpu_bytes!r}): no memory is left for the KV cache"
        )
    return int(free // Fraction(per_token_bytes))


def sizing_table(
    model: ModelShape = LLAMA2_70B,
    gpu_gb: int = A100_80GB_BYTES_GB,
    n_gpus: int = N_GPUS,
    target: int = PAPER_KV_CAPACITY_TOKENS,
) -> "pd.DataFrame":
    """Capacity (tokens) under each natural reading of 004 Section 7's numbers.

    The readings vary, independently:

    * ``unit``: "GB" means 10**9 bytes, "GiB" means 2**30 bytes, for both the GPU
      memory and the weights; two mixed readings (memory in one unit, weights in
      the other) are added for the MHA/K+V/two-GPU case;
    * ``kv``: "K+V" (factor 2, the correct count) or "K only" (factor 1, forgetting V);
    * ``attention``: "MHA" (all 64 heads store K/V) or "GQA" (8 KV heads of 64);
    * ``scope``: "2 GPUs" (160 - 140 in the chosen unit) or "1 GPU" (80 - 70: one
      GPU's leftover memory holding the whole per-token cache).

    Returns
    -------
    pandas.DataFrame
        One row per reading with columns ``unit``, ``kv``, ``attention``,
        ``scope``, ``per_token_bytes``, ``free_bytes``, ``capacity_exact``
        (the unfloored quotient), ``capacity_tokens`` (floored),
        ``matches_target`` and ``ratio_to_target``; ``target`` defaults to 16,492.
    """
    import pandas as pd

    _check_positive("gpu_gb", gpu_gb)
    _check_positive("n_gpus", n_gpus)
    _check_positive("target", target)
    units = {"GB": GB, "GiB": GiB}
    rows = []

    def add(unit: str, mem_unit: int, w_unit: int, kv: str, attention: str, scope: str) -> None:
        factor = 2 if kv == "K+V" else 1
        if attention == "MHA":
            per_kv = kv_bytes_per_token(model.n_layers, model.hidden, model.dtype_bytes)
        else:
            per_kv = kv_bytes_per_token(
                model.n_layers,
                model.hidden,
                model.dtype_bytes,
                n_kv_heads=model.n_kv_heads,
                n_heads=model.n_heads,
            )
        per_token = per_kv * factor // 2  # kv_bytes_per_token counts K and V
        gpus = n_gpus if scope.startswith(f"{n_gpus} ") else 1
        total = gpus * gpu_gb * mem_unit
        weights = Fraction(model.weight_gb * w_unit * gpus, n_gpus)
        free = Fraction(total) - weights
        cap = kv_capacity_tokens(total, weights, per_token)
        rows.append(
            {
                "unit": unit,
                "kv": kv,
                "attention": attention,
                "scope": scope,
                "per_token_bytes": int(per_token),
                "free_bytes": int(free),
                "capacity_exact": float(free / per_token),
                "capacity_tokens": cap,
                "matches_target": cap == target,
                "ratio_to_target": cap / target,
            }
        )

    for unit, u in units.items():
        for kv in ("K+V", "K only"):
            for attention in ("MHA", "GQA"):
                for scope in (f"{n_gpus} GPUs", "1 GPU"):
                    add(unit, u, u, kv, attention, scope)
    add("GiB memory, GB weights", GiB, GB, "K+V", "MHA", f"{n_gpus} GPUs")
    add("GB memory, GiB weights", GB, GiB, "K+V", "MHA", f"{n_gpus} GPUs")
    return pd.DataFrame(rows)
