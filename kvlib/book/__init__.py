"""Helpers used by the book's chapters only: figures (:mod:`~kvlib.book.figures`),
parallel sweeps (:mod:`~kvlib.book.sweeps`), checked policy runs (:mod:`~kvlib.book.runs`),
statistics (:mod:`~kvlib.book.stats`), glue helpers (:mod:`~kvlib.book.gluing`), a queue-recording
policy wrapper (:mod:`~kvlib.book.recording`), Table EC.1's synthetic distributions
(:mod:`~kvlib.book.synthetic`) and wall-clock timing (:mod:`~kvlib.book.timing`)."""
