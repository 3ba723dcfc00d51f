"""The real-trace chapter (notebooks/realtrace.py): row functions (rows, data), plan, hardware comparison (gpus), values, figures and page helpers."""
