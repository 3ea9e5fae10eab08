"""Tie strategies of the ranked measure: from counts of runs to ranks (FFF21 eq. 2, §7.1.3).

Every ranked version is read off three numbers of a value m: its rank among the distinct values
(φ_unq, eq. 2), the runs strictly below it and the runs up to it. :func:`tie_ranks` turns them into
the ``unq``/``min``/``max``/``mid`` ranks, for the stored scale (:class:`~irscales.enumeration.Scale`),
the counted one (:mod:`irscales.enumeration.counting`) and finite samples (:func:`rank_values`).
(:mod:`irscales.ranks` has no counts-to-ranks primitive, so it lives here.)

Exact φ, one representation for the whole enumeration layer (stored, closed-form and counted φ)
-----------------------------------------------------------------------------------------------
φ never passes through float64 rounding:

* ``unq``, ``min``, ``max`` are integers: an ``int64`` array when every value fits in int64, otherwise an
  object array of Python ints (:func:`exact_ints`). The dtype depends on the values, not on N alone.
* ``mid`` = (below + 1 + up to)/2 is an integer or a half: a ``float64`` array when every 2·φ_mid < 2^53
  (then every value, an integer or a half below 2^52, is exactly representable), otherwise an object
  array of :class:`fractions.Fraction` (:func:`mid_ranks`).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from irscales.options import DEFAULT_TIES, TIES, UNQ, check_choice  # TIES re-exported: the tie rules (home: options)

__all__ = ["TIES", "tie_ranks", "rank_values"]

#: The strategies that rank a run among all runs (``unq`` ranks its value among the distinct values).
RUN_TIES = TIES[1:]
#: Integers below this are exact in float64 (a 53-bit significand), and so are their halves below 2^52.
FLOAT_EXACT = 2**53
_INT64 = 2**63


def _python_ints(a: np.ndarray) -> list[int]:
    return [int(x) for x in np.asarray(a).ravel().tolist()]


def _object_array(values: list, shape) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values  # element by element: numpy never converts a Python int or Fraction here
    return out.reshape(shape)


def exact_ints(a) -> np.ndarray:
    """Integers ``a`` (an integer array, or an object array of ints) as ``int64`` when every value fits,
    otherwise as an object array of Python ints; never rounded."""
    arr = np.asarray(a)
    if arr.dtype != object:
        if not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"exact_ints: expected integers, got dtype {arr.dtype}")
        if arr.dtype == np.uint64 and arr.size and int(arr.max()) >= _INT64:
            return _object_array(_python_ints(arr), arr.shape)
        return arr.astype(np.int64, copy=False)
    vals = _python_ints(arr)
    if all(-_INT64 <= v < _INT64 for v in vals):
        return np.array(vals, dtype=np.int64).reshape(arr.shape)
    return _object_array(vals, arr.shape)


def _plus(a, k: int) -> np.ndarray:
    """a + k without int64 overflow (object array of Python ints when it could overflow)."""
    arr = np.asarray(a)
    if arr.dtype != object and (arr.size == 0 or int(arr.max()) < _INT64 - abs(k)):
        return arr.astype(np.int64, copy=False) + k
    return _object_array([v + k for v in _python_ints(arr)], arr.shape)


def mid_ranks(lo, upto) -> np.ndarray:
    """(lo + upto)/2 exactly: float64 when every lo + upto < 2^53 (halves then exact), else an object
    array of :class:`~fractions.Fraction`."""
    a, b = np.asarray(lo), np.asarray(upto)
    if a.dtype != object and b.dtype != object and (a.size == 0 or max(int(a.max()), int(b.max())) < 2**61):
        s = a.astype(np.int64) + b.astype(np.int64)
        if s.size == 0 or (int(s.max()) < FLOAT_EXACT and int(s.min()) > -FLOAT_EXACT):
            return s / 2.0
    sums = [x + y for x, y in zip(_python_ints(a), _python_ints(b))]
    if all(-FLOAT_EXACT < v < FLOAT_EXACT for v in sums):
        return np.array(sums, dtype=np.int64).reshape(a.shape) / 2.0
    return _object_array([Fraction(v, 2) for v in sums], a.shape)


def check_ties(ties: str) -> None:
    """Raise :class:`irscales.options.ArgumentError` (a ``ValueError``) unless ``ties`` is one of :data:`TIES`:
    the check of the enumeration layer's public entry points (``phi_runs``, ``Scale.phi``, :func:`rank_values`,
    ``choose_route``); what they call takes the rule as checked."""
    check_choice("ties", ties, TIES)


def tie_ranks(below: np.ndarray, upto: np.ndarray, unq: np.ndarray, ties: str) -> np.ndarray:
    """The rank of values with ``below`` runs strictly below, ``upto`` runs up to and including them,
    and distinct-value rank ``unq``: ``unq`` → unq; ``min`` → below + 1; ``max`` → upto; ``mid`` →
    (below + 1 + upto)/2. Exact, in the representation of the module docstring: integers as int64 or
    Python ints (:func:`exact_ints`), ``mid`` as float64 halves below 2^52 or Fractions (:func:`mid_ranks`)."""
    if ties == UNQ:
        return exact_ints(unq)
    if ties == "min":
        return exact_ints(_plus(below, 1))
    if ties == "max":
        return exact_ints(upto)
    if ties == "mid":
        return mid_ranks(_plus(below, 1), upto)
    check_ties(ties)  # not a rule: say which are
    raise AssertionError("unreachable")


def rank_values(x, ties: str = DEFAULT_TIES) -> np.ndarray:
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
