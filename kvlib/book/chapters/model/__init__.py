"""The chapter "The model" (notebooks/model.py): its page helpers (page)."""
