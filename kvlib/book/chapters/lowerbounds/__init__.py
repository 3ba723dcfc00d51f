"""The chapter "Lower-bound instances" (notebooks/lowerbounds.py): row functions (rows) and page helpers (page)."""
