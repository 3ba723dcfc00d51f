"""The papers' proof objects: 001 Theorem 4.3 quantities (:mod:`~kvlib.theory.ratio`),
003's Rayleigh quotients (:mod:`~kvlib.theory.rayleigh`), lower-bound
constructions and instance families (:mod:`~kvlib.theory.adversary`) and the
adversarial instance search shared by chapters (:mod:`~kvlib.theory.search`).
"""
