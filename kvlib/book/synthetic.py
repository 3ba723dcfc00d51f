"""The five synthetic distributions of the chapter's reproduction of 002 Table EC.1 (Appendix EC.4.2).

002 uses ``M = 100``, ``s_max = o_max = 50`` and five distributions (Uniform, Normal, Binomial,
Exponential, Mixed); the paper's parameters of the distributions were not available, so the
parameters here are ours (the chapter "Sorted-F and the ratio 48" tabulates and justifies them).
``s`` and ``o`` are drawn independently from the same distribution, integers in ``[1, 50]``.
"""

from __future__ import annotations

import numpy as np

EC1_DISTRIBUTIONS = ("Uniform", "Normal", "Binomial", "Exponential", "Mixed")


def ec1_sample(dist: str, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(s, o)`` of ``k`` requests from distribution ``dist`` (one of :data:`EC1_DISTRIBUTIONS`).

    Uniform on ``1..50``; Normal ``N(25, 10^2)`` rounded, clipped to ``[1, 50]``; Binomial
    ``Bin(50, 1/2)`` clipped below at 1; Exponential ``1 + round(Exp(mean 10))`` clipped at 50;
    Mixed: each request short (``s, o`` uniform on ``1..10``) or long (``30..50``) with probability 1/2.
    """
    if dist == "Uniform":
        return rng.integers(1, 51, k), rng.integers(1, 51, k)
    if dist == "Normal":
        f = lambda: np.clip(np.rint(rng.normal(25, 10, k)), 1, 50).astype(int)
        return f(), f()
    if dist == "Binomial":
        return np.maximum(rng.binomial(50, 0.5, k), 1), np.maximum(rng.binomial(50, 0.5, k), 1)
    if dist == "Exponential":
        f = lambda: np.minimum(1 + np.rint(rng.exponential(10, k)), 50).astype(int)
        return f(), f()
    if dist == "Mixed":
        short = rng.random(k) < 0.5
        s = np.where(short, rng.integers(1, 11, k), rng.integers(30, 51, k))
        o = np.where(short, rng.integers(1, 11, k), rng.integers(30, 51, k))
        return s, o
    raise ValueError(f"ec1_sample: unknown distribution {dist!r} (known: {', '.join(EC1_DISTRIBUTIONS)})")
