"""Exact bisection of a parameter threshold and exact bracketing of a polynomial root."""

from __future__ import annotations

from fractions import Fraction

import pytest

from irscales.theory.thresholds import p_threshold, poly_root


def test_p_threshold_and_poly_root():
    lo, hi = p_threshold(lambda p: p > Fraction(1, 3), 0, 1, Fraction(1, 2**30))
    assert lo <= Fraction(1, 3) < hi and hi - lo <= Fraction(1, 2**30)
    with pytest.raises(ValueError, match="no violation at lo"):
        p_threshold(lambda p: True, 0, 1)
    with pytest.raises(ValueError, match="violation at hi"):
        p_threshold(lambda p: False, 0, 1)
    a, b = poly_root([-2, 0, 1], Fraction(1), Fraction(2))  # √2
    assert a * a < 2 < b * b and b - a < Fraction(1, 2**60)
    with pytest.raises(ValueError, match="same sign"):
        poly_root([1, 0, 1], 0, 1)
