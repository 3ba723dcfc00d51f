"""The five synthetic distributions of 002 Table EC.1 (Appendix EC.4.2), with 002's parameters.

002 Appendix EC.4.2 fixes ``M = 100``, ``s_max = o_max = 50`` and lists, for ``s_i`` and ``o_i``
alike (drawn independently):

* Uniform: ``U(1, 51)``, read as NumPy's ``integers(1, 51)``, i.e. uniform on ``1..50``;
* Normal: mean 25, standard deviation 8.33, clipped to ``[1, 50]``;
* Binomial: ``Bin(49, 1/2) + 1`` (so ``1..50``);
* Exponential: rate 0.2 (scale 5), clipped to ``[1, 50]``;
* Mixed (``n = 200`` in 002's table): ``s`` is with probability 0.8 exponential with scale 10
  and with probability 0.2 lognormal with ``mu = ln 40``, ``sigma = 0.25``; values above 50
  are redrawn uniformly on ``[40, 50]``; ``o`` is exponential with scale 5 clipped to ``[1, 50]``.

002 does not say how a continuous draw becomes a token count; we round to the nearest integer
(``numpy.rint``) and then clip to ``[1, 50]`` (a careful reader's choice: token counts are
integers and the stated range is ``[1, 50]``).  For Mixed, the 80/20 split is drawn per request
(a Bernoulli(0.2) choice of the lognormal branch), our reading of "80% ... 20% ...".
"""

from __future__ import annotations

import numpy as np

EC1_DISTRIBUTIONS = ("Uniform", "Normal", "Binomial", "Exponential", "Mixed")

#: 002 Table EC.1's number of requests per instance (Mixed has twice as many).
EC1_N = {"Uniform": 100, "Normal": 100, "Binomial": 100, "Exponential": 100, "Mixed": 200}


def _tokens(x: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(x), 1, 50).astype(np.int64)


def ec1_sample(dist: str, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(s, o)`` of ``k`` requests from distribution ``dist`` (one of :data:`EC1_DISTRIBUTIONS`),
    with 002 Appendix EC.4.2's parameters (see the module docstring); integers in ``[1, 50]``."""
    if dist == "Uniform":
        return rng.integers(1, 51, k), rng.integers(1, 51, k)
    if dist == "Normal":
        return _tokens(rng.normal(25, 8.33, k)), _tokens(rng.normal(25, 8.33, k))
    if dist == "Binomial":
        return rng.binomial(49, 0.5, k) + 1, rng.binomial(49, 0.5, k) + 1
    if dist == "Exponential":
        return _tokens(rng.exponential(5, k)), _tokens(rng.exponential(5, k))
    if dist == "Mixed":
        lognormal = rng.random(k) < 0.2
        s = np.where(lognormal, rng.lognormal(np.log(40), 0.25, k), rng.exponential(10, k))
        s = np.where(s > 50, rng.uniform(40, 50, k), s)
        return _tokens(s), _tokens(rng.exponential(5, k))
    raise ValueError(f"ec1_sample: unknown distribution {dist!r} (known: {', '.join(EC1_DISTRIBUTIONS)})")
