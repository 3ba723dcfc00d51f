"""Helpers used by the book's chapters only: figures (:mod:`~kvlib.book.figures`),
parallel sweeps (:mod:`~kvlib.book.sweeps`), tables (:mod:`~kvlib.book.tables`), glue
(:mod:`~kvlib.book.gluing`), provenance of a build (:mod:`~kvlib.book.provenance`), the
001 Section 5.1 trials (:mod:`~kvlib.book.section51_trials`), checked policy runs (:mod:`~kvlib.book.runs`),
statistics (:mod:`~kvlib.book.stats`), a queue-recording policy wrapper (:mod:`~kvlib.book.recording`),
wall-clock timing (:mod:`~kvlib.book.timing`) and the results store (:mod:`~kvlib.book.store`,
with :mod:`~kvlib.book.fingerprint`, the record of the code a stored table's rows ran).  Each chapter's
own code is in ``kvlib.book.chapters.NAME``."""
