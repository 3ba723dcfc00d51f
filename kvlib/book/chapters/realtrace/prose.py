"""Settings and constants that the prose of the real-trace chapter (notebooks/realtrace.py) restates.

Every number a page shows is glued from the code that uses it (book/check_numbers.py): the memory limit,
the reference round, vLLM's benchmark filter, the LP's size budget, the assumed attention's constants,
the mixed workload's shares, the example batches of the batch-time model, the paper's Table 1 values
and the shortened checksums.  :func:`setting_values` reads each from the module that uses it, so the
text follows the code; nothing here runs a simulation or is executed by a stored table's rows.
"""

from __future__ import annotations

import inspect

from kvlib.book.chapters.realtrace.page import short_hash

__all__ = ["SHA_DIGITS", "BATCH_EXAMPLES", "setting_values", "paper_table1_values", "share_status"]

#: Hex digits of a SHA-256 shown in the tables (:func:`kvlib.book.chapters.realtrace.page.short_hash`).
SHA_DIGITS = int(inspect.signature(short_hash).parameters["digits"].default)

#: The example batches the prose times with the batch-time model: decode requests and the cached
#: tokens they hold, and the prompt of a batch with one prefill (tokens).
BATCH_EXAMPLES = {"decode_n": 200, "decode_kv": 16_000, "prefill_tokens": 2_000}


def setting_values() -> dict:
    """``{glue key: value}`` of the settings and constants the prose restates (the chapter's memory limit
    M is glued as ``rt_memory`` with the table of every policy)."""
    from kvlib.policies.wyz_lp import default_nonzeros
    from kvlib.serving import batchtime as bt
    from kvlib.serving.gpus import REFERENCE_BATCH
    from kvlib.serving.realtime import PAPER_MEMORY
    from kvlib.serving.sharegpt import VLLM_FILTER
    from kvlib.serving.workloads import mixed_002

    short = float(inspect.signature(mixed_002).parameters["frac_lmsys"].default)
    return {
        "rt_ref_tokens": int(PAPER_MEMORY),
        "rt_sha_digits": SHA_DIGITS,
        "rt_ex_decode_n": BATCH_EXAMPLES["decode_n"],
        "rt_ex_decode_kv": BATCH_EXAMPLES["decode_kv"],
        "rt_ex_prefill": BATCH_EXAMPLES["prefill_tokens"],
        "rt_kv_bytes": int(bt.KV_BYTES_PER_TOKEN_PER_LAYER),
        "rt_hbm_tbs": bt.HBM_BYTES_PER_S / 1e12,
        "rt_attn_tflops": bt.ATTN_FLOPS_PER_S / 1e12,
        "rt_tp": int(bt.TP),
        "rt_ref_batch": int(REFERENCE_BATCH),
        "rt_lp_nnz_max_m": default_nonzeros(10**9) / 1e6,
        "rt_sg_min_tokens": int(VLLM_FILTER["min_tokens"]),
        "rt_sg_max_prompt": int(VLLM_FILTER["max_prompt_tokens"]),
        "rt_sg_max_total": int(VLLM_FILTER["max_total_tokens"]),
        "rt_mix_short_pct": round(100 * short),
        "rt_mix_long_pct": round(100 * (1 - short)),
    }


def paper_table1_values() -> dict:
    """001 Appendix C Table 1's average latencies (s) of MC-SF, MC-Benchmark and Benchmark α = 0.3, the
    paper's numbers (:data:`kvlib.book.chapters.realtrace.rows.PAPER_TABLE1`), for the findings, the
    introduction and the errata page."""
    from kvlib.book.chapters.realtrace.rows import PAPER_TABLE1

    return {"rt_paper_t1_sf": PAPER_TABLE1["MC-SF"][0], "rt_paper_t1_mb": PAPER_TABLE1["MC-Benchmark"][0],
            "rt_paper_t1_a3": PAPER_TABLE1["Benchmark α = 0.3"][0]}


def share_status(held: int, cells: int) -> str:
    """The findings' verdict on a set of re-run claims (the three GPUs, ShareGPT V3): "reproduced" when
    every decided verdict holds or matches, "not reproduced" when none does, else "partly reproduced";
    "not checked" without a decided verdict."""
    held, cells = int(held), int(cells)
    if held < 0 or held > cells:
        raise ValueError(f"share_status: held = {held} must lie between 0 and cells = {cells}")
    if cells == 0:
        return "not checked"
    return "reproduced" if held == cells else "not reproduced" if held == 0 else "partly reproduced"
