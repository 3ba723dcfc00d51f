"""Helpers used by the book's chapters only: figures (:mod:`~kvlib.book.figures`),
parallel sweeps (:mod:`~kvlib.book.sweeps`), tables (:mod:`~kvlib.book.tables`), glue
(:mod:`~kvlib.book.gluing`), provenance of a build (:mod:`~kvlib.book.provenance`), the
001 Section 5.1 trials (:mod:`~kvlib.book.section51`), checked policy runs (:mod:`~kvlib.book.runs`),
statistics (:mod:`~kvlib.book.stats`), a queue-recording policy wrapper (:mod:`~kvlib.book.recording`),
Table EC.1's synthetic distributions (:mod:`~kvlib.book.synthetic`) and wall-clock timing
(:mod:`~kvlib.book.timing`)."""
