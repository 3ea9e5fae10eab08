"""The IPSO sign test (MM23 §3 "Statistical Testing"): the one implementation.

Over topics, count those where system A is non-inferior to B (``ni``) and those where it is
non-superior (``ns``), ignoring equal and non-separable topics, and test H0 |ni| = |ns| with the
exact two-tailed binomial (sign) test

.. math:: p = \\min\\Bigl(1,\\ 2 \\cdot 2^{-n} \\sum_{m \\le \\min(x, y)} \\binom{n}{m}\\Bigr),\\quad n = x + y

computed by :func:`irscales.stats._pairwise.sign_pvalues`, the metric sign test's own (O(T) memory, one exact
tail sum per distinct pair of counts). Significant iff p < α (MM23's rule; the metric test's is p ≤ α), decided on
exact rationals.

* :func:`sign_test_pvalues` — the test on arrays of counts (vectorised);
* :func:`ipso_sign_tests` — every system pair of :class:`~irscales.ipso._runs.PairRelations` at one depth;
* :func:`ipso_sign_test` — one pair of runs (B against A), as MM23's reporting rule uses it;
* :func:`sign_test_one_sided` — the one-tailed tail probability, to check the paper's worked examples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from irscales.exact import to_fraction
from irscales.ipso._compare import Relation, compare
from irscales.ipso._runs import PairRelations
from irscales.stats._pairwise import sign_pvalues

__all__ = ["sign_test_pvalues", "sign_test_one_sided", "IPSOSignTests", "ipso_sign_tests",
           "IPSOSignTest", "ipso_sign_test"]


def _alpha(alpha: float) -> Fraction:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return to_fraction(float(alpha), "alpha")


def sign_test_pvalues(x: ArrayLike, y: ArrayLike, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    r"""Two-tailed exact sign test of counts ``x`` against ``y`` (arrays of non-negative ints):

    .. math:: p = \min\Bigl(1,\ 2 \cdot 2^{-n} \sum_{m \le \min(x, y)} \binom{n}{m}\Bigr),\quad n = x + y

    (p = 1 when n = 0). Returns (p as floats, p < α decided on exact rationals).
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    if (x < 0).any() or (y < 0).any():
        raise ValueError("sign-test counts must be >= 0")
    return sign_pvalues(x + y, np.minimum(x, y), _alpha(alpha), strict=True)  # MM23: "p < α"


def sign_test_one_sided(x: int, y: int) -> Fraction:
    """Exact one-tailed sign test P(X ≥ max(x, y)) for X ~ Binomial(x + y, 1/2)."""
    n, hi = x + y, max(x, y)
    return Fraction(sum(math.comb(n, m) for m in range(hi, n + 1)), 2**n)


@dataclass(frozen=True, kw_only=True)
class IPSOSignTests:
    """IPSO sign test of every pair at one depth: counts over topics, p-value, decision."""

    equal: np.ndarray
    ni: np.ndarray
    ns: np.ndarray
    nonsep: np.ndarray
    pvalue: np.ndarray
    significant: np.ndarray
    depth: int
    alpha: float


def ipso_sign_tests(rels: PairRelations, k: int, alpha: float = 0.05,
                    topics: np.ndarray | None = None) -> IPSOSignTests:
    """MM23 §3: per pair, H0 |ni| = |ns| over topics (equal and non-separable topics are
    ignored), exact two-tailed sign test; ``topics`` (indices or mask) restricts the topic set."""
    a = rels.at(k)
    if topics is not None:
        a = a[:, np.asarray(topics)]
    c = [(a == r).sum(1) for r in Relation]
    p, sig = sign_test_pvalues(c[Relation.NI], c[Relation.NS], alpha)
    return IPSOSignTests(equal=c[0], ni=c[1], ns=c[2], nonsep=c[3], pvalue=p, significant=sig, depth=int(k),
                         alpha=float(alpha))


@dataclass(frozen=True)
class IPSOSignTest:
    """IPSO relation counts of B against A over topics, and the sign test on ni vs ns."""

    equal: int
    ni: int
    ns: int
    nonseparable: int
    pvalue: float

    @property
    def n_topics(self) -> int:
        """Number of topics compared (all four categories)."""
        return self.equal + self.ni + self.ns + self.nonseparable


def ipso_sign_test(rel_a: ArrayLike, rel_b: ArrayLike, k: int) -> IPSOSignTest:
    """IPSO sign test (MM23 §3) of one pair: ``rel_a``, ``rel_b`` of shape (topics, ranks), B against A."""
    c = compare(np.asarray(rel_b), np.asarray(rel_a), k=k).counts()
    p, _ = sign_test_pvalues(c["ni"], c["ns"])
    return IPSOSignTest(equal=c["="], ni=c["ni"], ns=c["ns"], nonseparable=c["**"], pvalue=float(p))
