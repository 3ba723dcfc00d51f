"""The chapter "MC-SF's constant ratio" (notebooks/mcsf_ratio.py): row functions (rows, offcouple_rows), values, figures and page helpers."""
