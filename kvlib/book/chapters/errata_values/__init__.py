"""The errata page's figures (``book/errata.md`` glues them from the executed notebook
``notebooks/errata_values.py``); see :mod:`kvlib.book.chapters.errata.values`."""
