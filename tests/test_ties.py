"""Exact φ representation (irscales.enumeration.ties, issue 27 item 7): int64 when every value fits, else
Python ints; mid as float64 halves below 2^52, else Fractions; never rounded through float64."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irscales.enumeration.ties import FLOAT_EXACT, exact_ints, mid_ranks, tie_ranks


def test_exact_ints_downcasts_only_when_every_value_fits():
    assert exact_ints(np.array([1, 2**62], dtype=object)).dtype == np.int64
    big = exact_ints(np.array([1, 2**63], dtype=object))
    assert big.dtype == object and big.tolist() == [1, 2**63] and type(big[0]) is int
    assert exact_ints(np.array([2**64 - 1], dtype=np.uint64)).tolist() == [2**64 - 1]
    assert exact_ints(np.array([[3, 4]], dtype=np.int32)).dtype == np.int64
    with pytest.raises(TypeError, match="expected integers"):
        exact_ints(np.array([1.5]))


def test_min_and_max_never_overflow_int64():
    below = np.array([2**63 - 1, 5], dtype=np.int64)
    got = tie_ranks(below, below, None, "min")
    assert got.dtype == object and got.tolist() == [2**63, 6]
    assert tie_ranks(np.array([2**62]), np.array([2**62 + 1]), None, "min").dtype == np.int64


def test_mid_is_float_only_while_exact():
    lo, up = np.array([1, 2]), np.array([2, 4])
    assert mid_ranks(lo, up).dtype == np.float64 and mid_ranks(lo, up).tolist() == [1.5, 3.0]
    edge = np.array([FLOAT_EXACT // 2])  # lo + up = 2^53: not below 2^53
    got = mid_ranks(edge, edge)
    assert got.dtype == object and got.tolist() == [F(FLOAT_EXACT, 2)]
    below = np.array([FLOAT_EXACT // 2 - 1])
    assert mid_ranks(below, below).dtype == np.float64


@given(st.lists(st.tuples(st.integers(0, 2**70), st.integers(0, 2**70)), min_size=1, max_size=20))
def test_every_tie_strategy_is_exact(pairs):
    """Property: whatever the sizes, each strategy equals the exact integer / rational arithmetic."""
    below = np.array([min(a, b) for a, b in pairs] + [None], dtype=object)[:-1]
    upto = np.array([max(a, b) + 1 for a, b in pairs] + [None], dtype=object)[:-1]
    mins, maxs, mids = (tie_ranks(below, upto, None, t) for t in ("min", "max", "mid"))
    for b, u, x, y, z in zip(below, upto, mins, maxs, mids):
        assert x == b + 1 and y == u and F(z) == F(b + 1 + u, 2)
    assert mins.dtype == (np.int64 if max(b + 1 for b in below) < 2**63 else object)
    assert mids.dtype == (np.float64 if max(b + 1 + u for b, u in zip(below, upto)) < FLOAT_EXACT else object)
