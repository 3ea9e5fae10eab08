"""Ranks of values: the one place where ties are turned into integers.

* :func:`dense_ranks` — order-preserving integer codes over a whole array (0 = smallest; equal
  values, equal codes). With exact input (Fractions, ints) the comparison is exact.
* :func:`phi_of_image` — FFF21 eq. (2) on an explicit image: φ(m) = |{x ∈ image : x ≤ m}|.
* :func:`average_ranks` — 1-based average ranks along the last axis with the tie correction
  Σ(t³ − t), optionally with MATLAB ``tiedrank``'s tolerance (rank-based significance tests).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["dense_ranks", "phi_of_image", "average_ranks"]


def dense_ranks(values: ArrayLike) -> np.ndarray:
    """Order-preserving integer codes of ``values`` over the whole array (dense ranks from 0).

    ``a < b`` ⇔ ``code(a) < code(b)`` and ``a == b`` ⇔ ``code(a) == code(b)`` for every pair of
    entries, wherever they are in the array. For an object array of Fractions/ints the comparison is
    exact rational arithmetic; for a float array it is IEEE comparison of the stored doubles.

    Raises ``ValueError`` for NaN or for entries that are not numbers.
    """
    a = np.asarray(values)
    if a.dtype == object:
        flat = a.ravel().tolist()
        try:
            uniq = sorted(set(flat))
        except TypeError as exc:
            raise ValueError(f"scores must be numbers (Fractions, ints or floats): {exc}") from None
        if any(v != v for v in uniq):  # NaN is the only value not equal to itself
            raise ValueError("scores contain NaN; a missing score cannot be ranked")
        index = {v: k for k, v in enumerate(uniq)}
        return np.fromiter((index[v] for v in flat), dtype=np.int64, count=len(flat)).reshape(a.shape)
    if not np.issubdtype(a.dtype, np.number) or np.issubdtype(a.dtype, np.complexfloating):
        raise ValueError(f"scores must be real numbers, got dtype {a.dtype}")
    if np.issubdtype(a.dtype, np.floating) and np.isnan(a).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(a))[0])
        raise ValueError(f"scores contain NaN (first at index {where}); a missing score cannot be ranked")
    _, inv = np.unique(a, return_inverse=True)
    return inv.reshape(a.shape).astype(np.int64)


def phi_of_image(values: Iterable) -> dict:
    """FFF21 eq. (2): φ(m) = |{x ∈ M(REL^N) : x ≤ m}| for every m of the image (exact values)."""
    image = sorted(set(values))
    return {m: k + 1 for k, m in enumerate(image)}


def average_ranks(a: np.ndarray, tol: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) along the last axis and the per-row tie sum Σ(t³ − t).

    Ties: equal values, or, with ``tol``, sorted neighbours with ``a[k] + tol[k] >= a[k+1]``
    (MATLAB ``tiedrank`` with a tolerance; ties chain along the sorted order).
    """
    n = a.shape[-1]
    order = np.argsort(a, axis=-1, kind="stable")
    srt = np.take_along_axis(a, order, axis=-1)
    if tol is None:
        same = srt[..., 1:] == srt[..., :-1]
    else:
        tol_s = np.take_along_axis(tol, order, axis=-1)
        same = srt[..., :-1] + tol_s[..., :-1] >= srt[..., 1:]
    idx = np.broadcast_to(np.arange(n), srt.shape)
    starts = np.ones(srt.shape, dtype=bool)
    starts[..., 1:] = ~same
    ends = np.ones(srt.shape, dtype=bool)
    ends[..., :-1] = ~same
    first = np.maximum.accumulate(np.where(starts, idx, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, idx, n - 1), -1), axis=-1), -1)
    size = last - first + 1
    ranks_sorted = (first + last) / 2.0 + 1.0
    ranks = np.empty(a.shape, dtype=float)
    np.put_along_axis(ranks, order, ranks_sorted, axis=-1)
    # Σ over elements of (t² − 1) equals Σ over tie groups of (t³ − t).
    tie_sum = (size.astype(np.int64) ** 2 - 1).sum(axis=-1)
    return ranks, tie_sum
