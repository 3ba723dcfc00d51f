"""The chapter "Sorted-F and the ratio 48" (notebooks/sortedf.py; 002): row functions (rows), Table EC.1 distributions (synthetic), proof (chain), experiments and page helpers."""
