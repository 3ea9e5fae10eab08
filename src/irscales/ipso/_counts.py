"""Counting the IPSO categories of all pairs of binary SERPs of length k (MM23 §3, Table 2).

Three independent exact routes: :func:`enumerate_counts` applies the Algorithm-1 recurrence to
every one of the 4^k pairs (prefix tree, chunked); :func:`count_categories` is a dynamic
programme over the running difference and the two flags (O(k²) exact integers, any k);
:func:`closed_form_counts` is the formula it reduces to for uniform bits,
``#(S1 ⪰ S2, S1 ≠ S2) = C(2k+1, k) − 2^k``. Sampled estimates are in
:mod:`irscales.ipso._montecarlo`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from irscales.ipso._compare import Relation

__all__ = ["CategoryCounts", "enumerate_counts", "count_categories", "closed_form_counts"]


@dataclass(frozen=True)
class CategoryCounts:
    """Exact category counts of all SERP pairs at depths 1..k (row d−1 is depth d).

    ``counts[:, r]`` counts relation ``Relation(r)``; row d−1 sums to 4^d (all pairs of binary
    d-SERPs), or to 1 when :func:`count_categories` is run on probabilities.
    """

    counts: np.ndarray  # object array (k, 4) of Python ints or Fractions
    method: str

    @property
    def k(self) -> int:
        """Deepest depth counted."""
        return self.counts.shape[0]

    def _check(self, depth: int) -> None:
        if not 1 <= depth <= self.k:
            raise ValueError(f"depth must be in 1..{self.k} for these counts, got {depth}")

    def row(self, depth: int) -> dict[str, object]:
        """Counts at ``depth`` keyed by the paper's labels ``=``, ``ni``, ``ns``, ``**``."""
        self._check(depth)
        r = self.counts[depth - 1]
        return {Relation(i).label: r[i] for i in range(4)}

    def fractions(self, depth: int) -> dict[str, Fraction]:
        """Exact fractions of equal / separable (ni + ns) / non-separable pairs at ``depth``."""
        self._check(depth)
        r = [Fraction(x) for x in self.counts[depth - 1]]
        tot = sum(r)
        return {"equal": r[0] / tot, "separable": (r[1] + r[2]) / tot, "nonsep": r[3] / tot}

    def to_frame(self, depths: Sequence[int] | None = None) -> pd.DataFrame:
        """Exact fractions (:meth:`fractions`) as floats, one row per depth (default: all)."""
        depths = list(depths) if depths is not None else list(range(1, self.k + 1))
        rows = []
        for d in depths:
            f = self.fractions(d)
            rows.append({"k": d, **{c: float(v) for c, v in f.items()}})
        return pd.DataFrame(rows).set_index("k")


_STEPS = np.array([1, 0, 0, -1], dtype=np.int8)  # (a_i, b_i) = (1,0), (0,0), (1,1), (0,1)


def enumerate_counts(k: int, block: int = 11, workers: int = 1) -> CategoryCounts:
    """Exhaustive count over all 4^k pairs of binary k-SERPs (MM23 Table 2, k ≤ 15).

    Every pair is visited: the pairs form a 4-ary tree of prefixes (rank i adds one of the four
    bit pairs (a_i, b_i)), and Algorithm 1's state (cumul, ever ahead, ever behind) of a pair at
    depth i is computed from its own parent prefix. No two pairs are merged, so each leaf is
    one pair; the level-d tallies are the counts of all 4^d pairs of d-SERPs. Memory is bounded by
    expanding the last ``block`` ranks per prefix of the first k − block ranks (4^block states);
    with ``workers`` > 1 the prefixes are shared out among that many processes.
    """
    if not 1 <= k <= 16:
        raise ValueError(f"exhaustive enumeration visits 4^k pairs; k must be in 1..16, got {k}")
    block = max(1, min(block, k))
    outer = k - block
    counts = np.zeros((k, 4), dtype=np.int64)
    cum = np.zeros(1, dtype=np.int8)
    flg = np.zeros(1, dtype=np.uint8)
    for d in range(outer):  # the outer prefixes, kept whole (4^outer states)
        cum, flg = _expand(cum, flg)
        counts[d] = np.bincount(flg, minlength=4)
    prefixes = list(zip(cum.tolist(), flg.tolist()))
    parts = [(prefixes[i::max(workers, 1)], k - outer) for i in range(max(workers, 1))]
    if workers > 1 and len(prefixes) > 1:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            tallies = list(ex.map(_enumerate_below, parts))
    else:
        tallies = [_enumerate_below(p) for p in parts]
    for t in tallies:
        counts[outer:] += t
    obj = np.empty((k, 4), dtype=object)
    obj[...] = [[int(x) for x in r] for r in counts]
    return CategoryCounts(obj, "exhaustive")


def _enumerate_below(args) -> np.ndarray:
    """Tallies at the next ``depth`` levels below each given prefix state (cumul, flags)."""
    prefixes, depth = args
    out = np.zeros((depth, 4), dtype=np.int64)
    for c0, f0 in prefixes:
        c = np.array([c0], dtype=np.int8)
        f = np.array([f0], dtype=np.uint8)
        for d in range(depth):
            c, f = _expand(c, f)
            out[d] += np.bincount(f, minlength=4)
    return out


def _expand(cum: np.ndarray, flg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One rank of Algorithm 1 for every child (4 per prefix) of every prefix pair."""
    c = (cum[:, None] + _STEPS[None, :]).reshape(-1)
    f = (np.repeat(flg, 4) | (c > 0).astype(np.uint8) | ((c < 0).astype(np.uint8) << 1))
    return c, f


def count_categories(k: int, weights: tuple = (1, 2, 1)) -> CategoryCounts:
    """Exact category counts at depths 1..k by dynamic programming, O(k²) (MM23 Table 2).

    The running difference ``cumul`` of a pair moves by +1, 0, −1 at each rank with weights
    ``weights = (w_plus, w_zero, w_minus)``: for all pairs of binary SERPs these are the numbers
    of bit pairs (1, 2, 1) and the counts are of the 4^k pairs; with relevance probabilities
    q1, q2 per rank they are the probabilities (q1(1−q2), q1q2 + (1−q1)(1−q2), (1−q1)q2) (pass
    Fractions for exact values). States: equal (cumul = 0, never moved); ahead-only with
    cumul = c ≥ 0; behind-only with cumul = −c ≤ 0; non-separable (absorbing).
    """
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if len(weights) != 3:
        raise ValueError(f"weights must be (w_plus, w_zero, w_minus), got {weights!r}")
    wp, w0, wm = weights
    if min(wp, w0, wm) < 0:
        raise ValueError(f"weights must be non-negative, got {weights!r}")
    k = int(k)
    zero = (wp + w0 + wm) * 0
    eq = zero + 1  # the empty prefix: one pair, equal
    nonsep = zero
    ahead = np.full(k + 2, zero, dtype=object)  # ahead[c]: ever ahead, never behind, cumul = c
    behind = np.full(k + 2, zero, dtype=object)  # behind[c]: ever behind, never ahead, cumul = −c
    symmetric = wp == wm  # then behind == ahead at every depth (swap S1 and S2)
    wsum = wp + w0 + wm
    out = np.empty((k, 4), dtype=object)
    for d in range(1, k + 1):
        top = d + 1  # |cumul| ≤ d
        bh = ahead if symmetric else behind
        nonsep = nonsep * wsum + ahead[0] * wm + bh[0] * wp
        na = ahead[:top] * w0
        na[1:top] += ahead[: top - 1] * wp
        na[: top - 1] += ahead[1:top] * wm
        na[1] += eq * wp
        if not symmetric:
            nb = behind[:top] * w0
            nb[1:top] += behind[: top - 1] * wm
            nb[: top - 1] += behind[1:top] * wp
            nb[1] += eq * wm
            behind[:top] = nb
        ahead[:top] = na
        eq = eq * w0
        n_ahead = sum(ahead[:top].tolist(), zero)
        n_behind = n_ahead if symmetric else sum(behind[:top].tolist(), zero)
        out[d - 1] = [eq, n_ahead, n_behind, nonsep]
    return CategoryCounts(out, "dp")


def closed_form_counts(k: int) -> dict[str, int]:
    """Counts of the 4^k pairs of binary k-SERPs in closed form.

    ``= : 2^k``; ``ni = ns = C(2k+1, k) − 2^k``; ``** : 4^k − 2·C(2k+1, k) + 2^k``.
    Why: a rank's step (+1, 0, 0, −1) is two half-steps of a simple ±½ walk of length 2k, so
    "cumul never < 0 to depth k" is "the simple walk never reaches −1 (in half-step units, −2)",
    which by the reflection principle has C(2k, k) + C(2k, k+1) = C(2k+1, k) paths.
    """
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    eq = 2**k
    ni = math.comb(2 * k + 1, k) - eq
    return {"=": eq, "ni": ni, "ns": ni, "**": 4**k - 2 * ni - eq}
