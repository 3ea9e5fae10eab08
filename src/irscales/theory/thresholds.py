"""Thresholds on a measure's parameter, bracketed on exact rationals: the p at which a property
switches (bisection on a predicate) and a root of an integer polynomial in p (FFP19 §5's gRBP
crossing, FFP17's RBP onset)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

__all__ = ["p_threshold"]


def p_threshold(violates: Callable[[Fraction], bool], lo: Fraction, hi: Fraction,
                width: Fraction = Fraction(1, 2**40)) -> tuple[Fraction, Fraction]:
    """Bisection, on exact rationals, for the p at which ``violates(p)`` switches from False to True.

    Needs ``violates(lo)`` False and ``violates(hi)`` True; returns (lo, hi) with hi − lo ≤ width,
    violates(lo) False and violates(hi) True. (The predicate is assumed to switch once in
    [lo, hi]; the tests check this on a grid for the cases used.)
    """
    lo, hi, width = Fraction(lo), Fraction(hi), Fraction(width)
    if not lo < hi:
        raise ValueError(f"need lo < hi, got lo={lo}, hi={hi}")
    if violates(lo):
        raise ValueError(f"bisection needs no violation at lo={lo} (there is one)")
    if not violates(hi):
        raise ValueError(f"bisection needs a violation at hi={hi} (there is none)")
    while hi - lo > width:
        mid = (lo + hi) / 2
        if violates(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def poly_root(coeffs: list[int], lo: Fraction, hi: Fraction,
              width: Fraction = Fraction(1, 2**64)) -> tuple[Fraction, Fraction]:
    """A root of Σ_k coeffs[k] p^k in [lo, hi] (sign change required), bracketed exactly."""
    def f(p: Fraction) -> Fraction:
        return sum((Fraction(a) * p**k for k, a in enumerate(coeffs)), Fraction(0))

    lo, hi = Fraction(lo), Fraction(hi)
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo, lo
    if fhi == 0:
        return hi, hi
    if (flo > 0) == (fhi > 0):
        raise ValueError(f"the polynomial {coeffs} has the same sign at {lo} and {hi}")
    while hi - lo > width:
        mid = (lo + hi) / 2
        fm = f(mid)
        if fm == 0:
            return mid, mid
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return lo, hi
