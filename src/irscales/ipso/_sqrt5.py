"""Exact comparisons of metric scores (MM23 Table 1): arithmetic in Q(√5) for RBP at the golden
ratio persistence, and the exact sign of a score difference."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from irscales.exact import to_fraction

__all__ = ["QSqrt5", "PHI", "golden_rbp_exact", "exact_sign"]


@dataclass(frozen=True)
class QSqrt5:
    """a + b·√5 with rational a, b: exact arithmetic for RBP at the golden-ratio persistence."""

    a: Fraction
    b: Fraction = Fraction(0)

    def __add__(self, o: "QSqrt5") -> "QSqrt5":
        return QSqrt5(self.a + o.a, self.b + o.b)

    def __sub__(self, o: "QSqrt5") -> "QSqrt5":
        return QSqrt5(self.a - o.a, self.b - o.b)

    def __mul__(self, o: "QSqrt5") -> "QSqrt5":
        return QSqrt5(self.a * o.a + 5 * self.b * o.b, self.a * o.b + self.b * o.a)

    def sign(self) -> int:
        """Exact sign of a + b√5 (compare a² with 5b² when the signs of a and b differ)."""
        sa, sb = (self.a > 0) - (self.a < 0), (self.b > 0) - (self.b < 0)
        if sa == sb or sb == 0:
            return sa
        if sa == 0:
            return sb
        lhs, rhs = self.a * self.a, 5 * self.b * self.b
        return sa if lhs > rhs else (sb if lhs < rhs else 0)

    def __float__(self) -> float:
        return float(self.a) + float(self.b) * math.sqrt(5)


PHI = QSqrt5(Fraction(-1, 2), Fraction(1, 2))  # (√5 − 1)/2 ≈ 0.618, φ² = 1 − φ


def golden_rbp_exact(serp: Sequence[int]) -> QSqrt5:
    """RBP(φ) = (1 − φ) Σ_i r_i φ^{i−1} with φ = (√5 − 1)/2, exactly in Q(√5) (MM23 Table 1)."""
    total, w = QSqrt5(Fraction(0)), QSqrt5(Fraction(1))
    for r in serp:
        total = total + QSqrt5(to_fraction(r, "SERP gain", bools=True)) * w
        w = w * PHI
    return (QSqrt5(Fraction(1)) - PHI) * total


def exact_sign(x1: object, x2: object, k: int) -> int:
    """Sign of x1 − x2 decided exactly.

    Fractions, ints and :class:`QSqrt5` compare exactly. Floats (log-discounted measures) are
    accepted only when |x1 − x2| exceeds a bound on the rounding error of a k-term sum of
    terms ≤ max(|x1|, |x2|, 1), so that the float sign is provably the true sign; otherwise this
    raises rather than guess a tie.
    """
    if isinstance(x1, QSqrt5) or isinstance(x2, QSqrt5):
        q1 = x1 if isinstance(x1, QSqrt5) else QSqrt5(to_fraction(x1, "score", bools=True))
        q2 = x2 if isinstance(x2, QSqrt5) else QSqrt5(to_fraction(x2, "score", bools=True))
        return (q1 - q2).sign()
    if isinstance(x1, (Fraction, int)) and isinstance(x2, (Fraction, int)):
        d = Fraction(x1) - Fraction(x2)
        return (d > 0) - (d < 0)
    f1, f2 = float(x1), float(x2)
    bound = 4 * (k + 2) * np.finfo(float).eps * max(abs(f1), abs(f2), 1.0)
    if abs(f1 - f2) <= bound:
        raise ValueError(
            f"scores {f1!r} and {f2!r} are within rounding error ({bound:.1e}); their order "
            "cannot be decided from floats — use an exact (rational) form of the measure"
        )
    return 1 if f1 > f2 else -1
