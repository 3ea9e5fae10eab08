"""Tie strategies of the ranked measure: from counts of runs to ranks (FFF21 eq. 2, §7.1.3).

Every ranked version is read off three numbers of a value m: its rank among the distinct values
(φ_unq, eq. 2), the runs strictly below it and the runs up to it. :func:`tie_ranks` turns them into
the ``unq``/``min``/``max``/``mid`` ranks, for the stored scale (:class:`~irscales.enumeration.Scale`),
the counted one (:mod:`irscales.enumeration.counting`) and finite samples (:func:`rank_values`).
(:mod:`irscales.ranks` has no counts-to-ranks primitive, so it lives here.)
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["TIES", "check_ties", "tie_ranks", "rank_values"]

#: The tie strategies: FFF21 eq. (2) (``unq``) and §7.1.3's min, max and mid rank.
TIES = ("unq", "min", "max", "mid")


def check_ties(ties: str) -> None:
    """Raise ``ValueError`` unless ``ties`` is one of :data:`TIES`."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")


def tie_ranks(below: np.ndarray, upto: np.ndarray, unq: np.ndarray, ties: str) -> np.ndarray:
    """The rank of values with ``below`` runs strictly below, ``upto`` runs up to and including them,
    and distinct-value rank ``unq``: ``unq`` → unq; ``min`` → below + 1; ``max`` → upto; ``mid`` →
    (below + 1 + upto)/2 (float64, or exact Fractions when the counts are Python ints)."""
    check_ties(ties)
    if ties == "unq":
        return unq
    if ties == "min":
        return below + 1
    if ties == "max":
        return upto
    lo = below + 1
    if np.asarray(lo).dtype == object:
        return np.array([Fraction(int(x) + int(y), 2) for x, y in zip(lo, upto)], dtype=object)
    return (lo + upto) / 2.0


def rank_values(x, ties: str = "unq") -> np.ndarray:
    """Rank transform of a finite sample (FFF21 §5's worked example; §7.1.3's strategies).

    ``unq``: φ(m) = |{distinct x_j ≤ m}| (eq. 2); ``min``/``max``/``mid``: rank among all entries with
    ties at their lowest / highest / average rank. Values are compared exactly as given (use
    :class:`fractions.Fraction` objects, or integers, for exact ties).
    """
    check_ties(ties)
    arr = np.asarray(x, dtype=object).reshape(-1)
    u = sorted(set(arr.tolist()))
    where = {v: i for i, v in enumerate(u)}
    idx = np.array([where[v] for v in arr.tolist()], dtype=np.int64)
    cnt = np.bincount(idx, minlength=len(u))
    upto = np.cumsum(cnt)
    out = tie_ranks(upto - cnt, upto, np.arange(1, len(u) + 1), ties)
    return out[idx].reshape(np.shape(x))
