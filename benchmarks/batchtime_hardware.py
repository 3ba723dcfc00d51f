"""Batch time of Llama-2-70B (tensor parallel 2) per hardware, and derived vs measured attention on A100.

    python benchmarks/batchtime_hardware.py [--data ../shared/data]

Prints, for a100, h100 and h200 (kvlib.serving.measured, embedded coefficients), the time of a few
representative batches (1, 16, 64 and 200 decoding requests at 500 and 2,000 cached tokens per request; the
default round of kvlib convert, 16 requests holding 16,492 tokens; one 2,000-token prefill) with the attention
share, then the fit quality per operator, then batchtime.py's derived attention against Vidur's measured A100
attention (from the profile file when --data holds it, else from the embedded fit).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kvlib.serving.measured import EMBEDDED, HARDWARE, comparison_summary, derived_vs_measured, measured_model

BATCHES = [(0, d, d * kv) for d in (1, 16, 64, 200) for kv in (500, 2000)] + [(0, 16, 16492), (2000, 0, 0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    args = ap.parse_args()

    print("batch time (ms, whole model) and attention's share of it")
    head = f"{'prefill':>8} {'decode':>7} {'cached':>10} " + " ".join(f"{h:>16}" for h in HARDWARE)
    print(head)
    models = {h: measured_model(h) for h in HARDWARE}
    for P, D, K in BATCHES:
        cells = []
        for h, m in models.items():
            b = m.breakdown(P, D, K)
            share = (b["decode_attention_ms"] + b["prefill_attention_ms"]) / b["total_ms"]
            cells.append(f"{b['total_ms']:9.2f} ({share:4.0%})")
        print(f"{P:>8,} {D:>7,} {K:>10,} " + " ".join(f"{c:>16}" for c in cells))
    d = measured_model("a100", attention="derived")
    print(f"a100 with batchtime.py's derived attention, default round: {d.batch_ms(0, 16, 16492):.2f} ms")

    print("\nfit quality per operator (R^2, median / max relative error, rows)")
    for h in HARDWARE:
        q = EMBEDDED[h]["provenance"]["quality"]
        for op, v in q.items():
            extra = f" / {v['max_rel_err']:.3f}" if "max_rel_err" in v else ""
            med = f"{v['median_rel_err']:.3f}" if "median_rel_err" in v else "  -  "
            form = {"decode_attention": EMBEDDED[h]["decode"]["form"],
                    "prefill_attention": EMBEDDED[h]["prefill"]["form"]}.get(op, "")
            print(f"  {h} {op:<18} R^2 {v['r2']:.4f}  {med}{extra}  n={v['n_rows']}  {form}")
        if "stand_ins" in EMBEDDED[h]["provenance"]:
            for k, v in EMBEDDED[h]["provenance"]["stand_ins"].items():
                print(f"  {h} stand-in for {k}: {v}")

    print("\nA100: batchtime.py's derived attention vs Vidur's measured attention (per layer)")
    rows = derived_vs_measured(args.data if Path(args.data).exists() else None)
    print(f"source: {rows.source.iloc[0]}")
    for kind, s in comparison_summary(rows).items():
        w = s["worst"]
        print(f"  {kind:<8} rows {s['n_rows']:>6}  |rel err| median {s['median_abs_rel_err']:.3f} max "
              f"{s['max_abs_rel_err']:.3f} (batch {w['batch']}, {'kv' if kind == 'decode' else 'prompt'} {w['kv']}: "
              f"measured {w['measured_ms']} ms, derived {w['derived_ms']} ms); underestimated "
              f"{s['share_of_underestimated']:.0%} of rows; attention up to {s['max_share']:.0%} of a batch")
    dec = rows[rows.kind == "decode"]
    print("  decode, by total cached tokens (batch x kv): median relative error (derived - measured) / measured")
    tot = dec.batch * dec.kv
    for lo, hi in [(0, 4096), (4096, 32768), (32768, 131072), (131072, 600000)]:
        g = dec[(tot >= lo) & (tot < hi)]
        print(f"    {lo:>7,} <= tokens < {hi:>7,}: {g.rel_err.median():+.3f} over {len(g):>5} rows; measured "
              f"attention {g.share.median():.1%} of the batch (median)")


if __name__ == "__main__":
    main()
