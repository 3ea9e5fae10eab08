"""The paired randomisation (permutation) test of Smucker, Allan and Carterette (2007), vectorised across the
S(S-1)/2 system pairs: under H₀ the two systems' scores on a topic are exchangeable, so each paired
difference d_t keeps or flips its sign with probability ½.

Statistic: the mean difference d̄ = mean_t(x_t − y_t). Its null distribution is enumerated exactly over all
2^T sign patterns when T ≤ ``exact_up_to`` (20 by default), otherwise sampled with ``permutations`` random
sign patterns (10,000 by default) from ``numpy.random.default_rng(seed)`` (seed 0 by default), the same
patterns for every pair. The two-sided p-value is scipy's ``permutation_test`` convention:
p = min(1, 2·min(P[D ≥ d̄], P[D ≤ d̄])), a null value counted as equal within a relative 1e-14 of d̄; when
sampled, each tail is (count + 1)/(permutations + 1) (the observed pattern is one of them, so p > 0).
Identical systems (every d_t = 0) get p = 1.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike

from irscales.options import EXACT_FLIPS_UP_TO, PERMUTATIONS as DEFAULT_PERMUTATIONS
from irscales.stats._results import PairwiseTest, check_alpha, pairs, prepare_scores

__all__ = ["randomisation_test", "sign_patterns", "EXACT_UP_TO", "PERMUTATIONS", "CELLS"]

#: Exact enumeration of the 2^T sign patterns up to this many topics; sampled sign patterns beyond it, by default.
EXACT_UP_TO, PERMUTATIONS = EXACT_FLIPS_UP_TO, DEFAULT_PERMUTATIONS
_RTOL = 1e-14          # scipy.stats.permutation_test's tolerance for a null value equal to the observed one
CELLS = 2**22          # null values computed at once (memory: 32 MiB of floats)


def sign_patterns(t: int, exact: bool, permutations: int, seed: int, step: int):
    """Blocks of at most ``step`` ±1 sign patterns (rows): all 2^t of them, or ``permutations`` random ones."""
    if exact:
        for a in range(0, 2**t, step):
            codes = np.arange(a, min(a + step, 2**t), dtype=np.int64)
            yield 1 - 2 * ((codes[:, None] >> np.arange(t)) & 1).astype(float)
        return
    rng = np.random.default_rng(seed)
    signs = 1 - 2 * rng.integers(0, 2, size=(permutations, t)).astype(np.int8)
    for a in range(0, permutations, step):
        yield signs[a:a + step].astype(float)


def randomisation_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None, *,
                       permutations: int = PERMUTATIONS, seed: int = 0,
                       exact_up_to: int = EXACT_UP_TO) -> PairwiseTest:
    """The paired randomisation test for every system pair (see the module docstring). Significant iff
    p ≤ α. Statistic: the mean difference (on the float image of exact scores: a positive affine map,
    which leaves p unchanged). ``omnibus`` records ``exact``, ``permutations`` (the number of null
    values) and ``seed`` (None when exact)."""
    if permutations < 1:
        raise ValueError(f"permutations must be at least 1, got {permutations}")
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
    i, j = pairs(sc.values.shape[1])
    t = sc.values.shape[0]
    d = sc.values[:, i] - sc.values[:, j]                      # (T, P)
    same = (sc.codes[:, i] == sc.codes[:, j]).all(axis=0)
    obs = d.mean(axis=0)
    gamma = np.abs(_RTOL * obs)
    exact = t <= exact_up_to
    n = 2**t if exact else permutations
    ge = np.zeros(len(i), dtype=np.int64)
    le = np.zeros(len(i), dtype=np.int64)
    for signs in sign_patterns(t, exact, permutations, seed, max(1, CELLS // max(len(i), t))):
        null = signs @ d / t                                   # (block, P)
        ge += (null >= obs - gamma).sum(axis=0)
        le += (null <= obs + gamma).sum(axis=0)
    extra = 0 if exact else 1
    p_ge, p_le = (ge + extra) / (n + extra), (le + extra) / (n + extra)
    p = np.where(same, 1.0, np.minimum(1.0, 2 * np.minimum(p_ge, p_le)))
    return PairwiseTest(test="randomisation", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=obs,
                        pvalue=p, significant=p <= alpha, statistic_name="mean_difference",
                        omnibus={"exact": exact, "permutations": int(n), "seed": None if exact else int(seed)})
