"""Helpers used by the book's chapters only: figures (:mod:`~kvlib.book.figures`),
parallel sweeps (:mod:`~kvlib.book.sweeps`)."""
