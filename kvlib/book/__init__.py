"""Helpers used by the book's chapters only: figures (:mod:`~kvlib.book.figures`),
parallel sweeps (:mod:`~kvlib.book.sweeps`), tables (:mod:`~kvlib.book.tables`), glue
(:mod:`~kvlib.book.gluing`), provenance of a build (:mod:`~kvlib.book.provenance`) and the
001 Section 5.1 trials (:mod:`~kvlib.book.section51`)."""
