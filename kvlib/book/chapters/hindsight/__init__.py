"""The chapter "The hindsight optimum" (notebooks/hindsight.py): row functions (rows, search), benchmark summaries (bench, scaling) and page helpers (page)."""
