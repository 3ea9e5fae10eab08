"""Runs padded to a depth (FFF21 §5.1: a shorter run counts as followed by non-relevant documents), with the
size of the padded array checked before it is allocated (issue 37).

A collection stores its runs only as long as the longest one (:class:`~irscales.data.collection.Collection`'s
``padded_to``); :func:`padded` makes the padding real, and refuses an array of more than
:func:`pad_bytes_limit` bytes with its size and the depth that fits, instead of allocating gigabytes. The same
limit bounds the other memory that grows with the depth: exact interval-scaled values, whose numbers have up
to N bits (:func:`irscales.interval.interval_values`).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["PAD_BYTES_LIMIT", "PAD_LIMIT_ENV", "PaddingTooLarge", "pad_bytes_limit", "padded", "size"]

#: Arrays whose size follows the depth (runs padded to it; exact values of N bits) larger than this are refused
#: before they are allocated; the environment variable :data:`PAD_LIMIT_ENV` (bytes) sets another limit.
PAD_BYTES_LIMIT = 2_000_000_000
PAD_LIMIT_ENV = "IRSCALES_MAX_DEPTH_BYTES"


def padded(rel: np.ndarray, depth: int) -> np.ndarray:
    """The first ``depth`` ranks of ``rel``, padded with zeros (not relevant) when it holds fewer; refused,
    before anything is allocated, when the padded array would exceed :func:`pad_bytes_limit`."""
    if depth <= rel.shape[-1]:
        return rel if depth == rel.shape[-1] else rel[..., :depth]
    runs = int(np.prod(rel.shape[:-1], dtype=np.int64))  # one per (system, topic)
    need, limit = runs * depth * rel.itemsize, pad_bytes_limit()
    if need > limit:
        fits = limit // max(1, runs * rel.itemsize)
        raise PaddingTooLarge(
            f"padding the runs to depth {depth:,} would allocate {size(need)} ({runs:,} runs (system x "
            f"topic) x {depth:,} ranks), over the limit of {size(limit)} ({PAD_LIMIT_ENV}); the runs "
            f"hold at most {rel.shape[-1]:,} documents, the ranks beyond are padding: a depth up to "
            f"{max(fits, rel.shape[-1]):,} fits")
    return np.concatenate([rel, np.zeros(rel.shape[:-1] + (depth - rel.shape[-1],), dtype=rel.dtype)], axis=-1)


def pad_bytes_limit() -> int:
    """The limit on padded run arrays: :data:`PAD_LIMIT_ENV` when set, else :data:`PAD_BYTES_LIMIT`."""
    raw = os.environ.get(PAD_LIMIT_ENV)
    if raw is None or not raw.strip():
        return PAD_BYTES_LIMIT
    try:
        return int(float(raw))
    except ValueError:
        raise ValueError(f"{PAD_LIMIT_ENV}={raw!r}: expected a number of bytes") from None


class PaddingTooLarge(ValueError):
    """Runs padded to a depth whose array would exceed :func:`pad_bytes_limit` (nothing was allocated)."""


def size(n: float) -> str:
    """Bytes for a message, in the largest unit (kB, MB, GB) that leaves a number of at least 1."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"
