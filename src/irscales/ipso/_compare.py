"""Algorithm 1 of Moffat & Mackenzie (MM23 §2): the innate pairwise order of two SERPs.

Two SERPs ``S1``, ``S2`` of length k (binary relevance, or real-valued gains on a ratio scale,
MM23 §4 "graded relevance") are compared by walking the ranks keeping

    cumul_i = Σ_{j ≤ i} (S1[j] − S2[j])

and recording whether ``cumul`` was ever > 0 (S1 ahead) and ever < 0 (S2 ahead). Then

* neither: ``=`` equal (S1 ⪰ S2 and S2 ⪰ S1);
* only > 0: ``ni``, S1 is non-inferior to S2 (S1 ⪰ S2 by Rules 1 and 2);
* only < 0: ``ns``, S1 is non-superior to S2 (S1 ⪯ S2);
* both: ``**`` non-separable — a metric is free to order the pair either way.

The depth at which each category first holds (MM23 Fig. 4) follows from the first depth where
``cumul > 0`` and the first where ``cumul < 0``; :class:`IPSOResult` keeps both, so one call
gives the relation at every depth ≤ k.

Exactness
    Ties (``cumul == 0``) decide the category, so they are decided exactly: integer and boolean
    input is used as is; float gains are read through their shortest decimal representation
    (``0.2`` means 1/5, :func:`irscales.exact.to_fraction`) and put on a common integer
    denominator (:func:`irscales.exact.common_denominator`); :class:`fractions.Fraction` input is
    exact. Floating-point summation is never used for a category.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike

from irscales.exact import common_denominator, to_fraction

__all__ = ["Relation", "LABELS", "IPSOResult", "compare", "compare_reference"]


class Relation(IntEnum):
    """IPSO category of S1 relative to S2 (code = 1·[ever ahead] + 2·[ever behind])."""

    EQUAL = 0
    NI = 1  # S1 ⪰ S2 (non-inferior)
    NS = 2  # S1 ⪯ S2 (non-superior)
    NONSEP = 3  # non-separable

    @property
    def label(self) -> str:
        """The paper's cell label (MM23 Fig. 2): ``=``, ``ni``, ``ns``, ``**``."""
        return ("=", "ni", "ns", "**")[self.value]

    @property
    def words(self) -> str:
        """The category in words, as in the text of MM23 §2."""
        return ("equal", "non-inferior", "non-superior", "non-separable")[self.value]


#: The cell label of each relation code (index = :class:`Relation` value).
LABELS = np.array([r.label for r in Relation])


# ------------------------------------------------------------------------ exact input handling


def _exact_ints(a1: np.ndarray, a2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays as int64 on one common scale, so prefix sums and ties are exact.

    Float values mean their shortest decimal (0.2 -> 1/5); the common denominator is the lcm of
    the denominators of the distinct values (:func:`irscales.exact.common_denominator`), which
    stays small for gain scales such as {0, 0.2, 0.8, 1}.
    """
    if a1.dtype.kind in "biu" and a2.dtype.kind in "biu":
        if a1.dtype.kind == "u" and a1.dtype.itemsize == 8 or a2.dtype.kind == "u" and a2.dtype.itemsize == 8:
            return a1.astype(np.int64), a2.astype(np.int64)  # refuse silent wrap-around below
        return a1, a2
    both = np.concatenate([a1.reshape(-1), a2.reshape(-1)])
    if both.dtype.kind == "f":
        bad = ~np.isfinite(both)
        if bad.any():
            raise ValueError(f"SERP gains must be finite numbers, found {both[bad][0]!r}")
        uniq = np.unique(both)
    elif both.dtype.kind == "O":
        uniq = np.array(sorted(set(both.tolist())), dtype=object)
    else:
        raise TypeError(f"SERPs must hold numbers (binary labels or gains), got dtype {both.dtype}")
    for u in uniq.tolist():
        if isinstance(u, (float, np.floating)) and not math.isfinite(u):
            raise ValueError(f"SERP gains must be finite numbers, found {u!r}")
    fr = np.array([to_fraction(u, "SERP gain", bools=True) for u in uniq.tolist()], dtype=object)
    scale = common_denominator(fr)
    scaled = [int(x) for x in scale.ints.tolist()]
    k = max(a1.shape[-1], 1)
    if max((abs(s) for s in scaled), default=0) * k >= 2**62:
        raise ValueError(
            "SERP gains need more than 64-bit integers on a common scale (common denominator "
            f"{scale.denominator}); round the gains to fewer decimals"
        )
    table = np.array(scaled, dtype=np.int64)
    if both.dtype.kind == "O":
        lookup = {u: i for i, u in enumerate(uniq.tolist())}
        idx1 = np.vectorize(lookup.__getitem__, otypes=[np.int64])(a1) if a1.size else a1.astype(np.int64)
        idx2 = np.vectorize(lookup.__getitem__, otypes=[np.int64])(a2) if a2.size else a2.astype(np.int64)
    else:
        idx1 = np.searchsorted(uniq, a1.astype(uniq.dtype))
        idx2 = np.searchsorted(uniq, a2.astype(uniq.dtype))
    return table[idx1], table[idx2]


def _as_serps(s, name: str) -> np.ndarray:
    a = np.asarray(s)
    if a.ndim == 0:
        raise ValueError(f"{name} must be a SERP (a vector of relevance values), got a scalar")
    if a.dtype.kind not in "biufO":
        raise TypeError(f"{name} must hold numbers (binary labels or gains), got dtype {a.dtype}")
    return a


def _fit(a: np.ndarray, k: int) -> np.ndarray:
    """Cut to k ranks or pad with 0 (not relevant), as for a SERP shorter than the depth."""
    n = a.shape[-1]
    if n >= k:
        return a[..., :k]
    pad = np.zeros(a.shape[:-1] + (k - n,), dtype=a.dtype)
    if a.dtype == object:
        pad[...] = 0
    return np.concatenate([a, pad], axis=-1)


# ------------------------------------------------------------------------------- Algorithm 1


@dataclass(frozen=True)
class IPSOResult:
    """IPSO relations of a batch of SERP pairs (shape = the broadcast batch shape).

    ``first_pos``/``first_neg`` are the first depths (1-based) at which S1 is strictly ahead /
    behind in cumulative gain, 0 if never within k. From them the relation at any depth d ≤ k
    follows (:meth:`at`): ``=`` before the first of the two, ``ni``/``ns`` from the first, ``**``
    from the second (MM23 Fig. 4: once non-separable, always non-separable).
    """

    relation: np.ndarray
    first_pos: np.ndarray
    first_neg: np.ndarray
    k: int

    def at(self, depth: int) -> np.ndarray:
        """Relation codes (:class:`Relation`) at depth ``depth`` (1 ≤ depth ≤ k)."""
        if not 1 <= depth <= self.k:
            raise ValueError(f"depth must be in 1..{self.k}, got {depth}")
        pos = (self.first_pos > 0) & (self.first_pos <= depth)
        neg = (self.first_neg > 0) & (self.first_neg <= depth)
        return (pos.astype(np.int8) + 2 * neg.astype(np.int8)).astype(np.int8)

    @property
    def separable_from(self) -> np.ndarray:
        """Depth at which ``=`` first gives way (to ni or ns); 0 if the pair is equal to depth k."""
        fp = np.where(self.first_pos > 0, self.first_pos, self.k + 1)
        fn = np.where(self.first_neg > 0, self.first_neg, self.k + 1)
        m = np.minimum(fp, fn)
        return np.where(m <= self.k, m, 0)

    @property
    def nonseparable_from(self) -> np.ndarray:
        """Depth from which the pair is non-separable; 0 if it is not by depth k."""
        both = (self.first_pos > 0) & (self.first_neg > 0)
        return np.where(both, np.maximum(self.first_pos, self.first_neg), 0)

    def labels(self) -> np.ndarray:
        """The relation as the paper's labels ``=``, ``ni``, ``ns``, ``**``."""
        return LABELS[self.relation]

    def counts(self) -> dict[str, int]:
        """Number of pairs per category, keyed by the labels ``=``, ``ni``, ``ns``, ``**``."""
        c = np.bincount(np.asarray(self.relation).reshape(-1), minlength=4)
        return {r.label: int(c[r]) for r in Relation}


def compare(s1: ArrayLike, s2: ArrayLike, k: int | None = None) -> IPSOResult:
    """Algorithm 1 of MM23 (§2), vectorised over batches of SERP pairs.

    ``s1`` and ``s2`` have shape ``(..., n)`` (last axis = ranks, rank 1 first) and broadcast
    against each other. Values are binary labels or real-valued gains (MM23 §4); ties are decided
    exactly (see the module docstring). With ``k`` both are cut to k ranks or padded with zeros
    (missing = not relevant); without it they must have the same length.
    """
    a1, a2 = _as_serps(s1, "s1"), _as_serps(s2, "s2")
    if k is None:
        if a1.shape[-1] != a2.shape[-1]:
            raise ValueError(
                f"SERPs of different lengths ({a1.shape[-1]} and {a2.shape[-1]}); pass k= to cut "
                "or zero-pad both to a common depth"
            )
        k = a1.shape[-1]
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"depth k must be a positive integer, got {k!r}")
    k = int(k)
    a1, a2 = _fit(a1, k), _fit(a2, k)
    try:
        shape = np.broadcast_shapes(a1.shape[:-1], a2.shape[:-1])
    except ValueError:
        raise ValueError(
            f"SERP batches of shapes {a1.shape[:-1]} and {a2.shape[:-1]} do not broadcast"
        ) from None
    i1, i2 = _exact_ints(a1, a2)
    # the narrowest integer type that holds every prefix sum (speed; values stay exact)
    bound = k * max(int(np.abs(i1).max(initial=0)), int(np.abs(i2).max(initial=0)), 1)
    if 2 * bound >= 2**63:
        raise ValueError(f"SERP values too large: prefix sums up to {bound} overflow 64-bit integers")
    dt = np.int16 if 2 * bound < 2**15 else (np.int32 if 2 * bound < 2**31 else np.int64)
    cumul = np.cumsum(np.subtract(i1, i2, dtype=dt), axis=-1, dtype=dt)
    pos, neg = cumul > 0, cumul < 0
    any_pos, any_neg = pos.any(-1), neg.any(-1)
    first_pos = np.where(any_pos, pos.argmax(-1) + 1, 0)
    first_neg = np.where(any_neg, neg.argmax(-1) + 1, 0)
    rel = (any_pos.astype(np.int8) + 2 * any_neg.astype(np.int8)).astype(np.int8)
    return IPSOResult(
        np.broadcast_to(rel, shape), np.broadcast_to(first_pos, shape),
        np.broadcast_to(first_neg, shape), k,
    )


def compare_reference(s1: Sequence, s2: Sequence, k: int) -> Relation:
    """One pair, one Python loop: the shape of the authors' published reference code
    (pad both SERPs to k, walk the ranks, update the flags). Kept as a cross-check and as the
    baseline of the speed benchmark; use :func:`compare` for real work."""
    a = list(s1)[:k] + [0] * max(0, k - len(s1))
    b = list(s2)[:k] + [0] * max(0, k - len(s2))
    acc, pos, neg = 0, False, False
    for i in range(k):
        acc += a[i]
        acc -= b[i]
        if acc < 0:
            neg = True
        if acc > 0:
            pos = True
    return Relation(int(pos) + 2 * int(neg))
