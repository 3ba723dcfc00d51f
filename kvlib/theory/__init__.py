"""The papers' proof objects: 001 Theorem 4.3 quantities (:mod:`~kvlib.theory.ratio`),
003's Rayleigh quotients (:mod:`~kvlib.theory.rayleigh`), lower-bound
constructions and instance families (:mod:`~kvlib.theory.adversary`) and the
adversarial instance search shared by chapters (:mod:`~kvlib.theory.search`), the exhaustive
search over tiny instances (:mod:`~kvlib.theory.smallest`), 001 Theorem 4.3's chain per instance
(:mod:`~kvlib.theory.chain43`) and its identical-request grids (:mod:`~kvlib.theory.identical_grids`),
002 Theorem 3's proof with 002's own objects (:mod:`~kvlib.theory.wyz_chain_paper`) and our variant's
chain links (:mod:`~kvlib.theory.chain48`), and 004 Theorem 5.3's regret gap
(:mod:`~kvlib.theory.regret`).
"""
