"""Exact arithmetic shared by the whole library: reading numbers as rationals, and putting many
rationals on one integer scale.

Interval-scaled values are decided by ties, so every comparison that matters is done on exact
numbers (:class:`fractions.Fraction`, or integers on a common denominator), never on rounded floats.

* :func:`to_fraction` — the rational a user meant: ``0.8`` is 4/5 (its shortest decimal repr), not
  the nearest double 3602879701896397/4503599627370496.
* :func:`to_fractions` — the same, element-wise over an array, keeping its shape.
* :func:`common_denominator` — rationals as integers ``x·L`` with ``L`` the lcm of their
  denominators, in int64 when that leaves the head-room asked for, so that sums and differences
  are exact integer arithmetic.
"""
from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational, Real
from typing import NamedTuple

import numpy as np

__all__ = ["to_fraction", "to_fractions", "CommonScale", "common_denominator"]


def to_fraction(x, where: str = "value", *, bools: bool = False) -> Fraction:
    """``x`` as a :class:`~fractions.Fraction`: ints and rationals exactly, floats by their shortest
    decimal representation (``0.1`` → 1/10). Booleans are refused unless ``bools=True`` (then
    they are 0 and 1, as binary relevance labels). ``where`` names the value in error messages."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (bool, np.bool_)):
        if bools:
            return Fraction(int(x))
        raise TypeError(f"{where}: expected a number, got the boolean {x!r}")
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, Rational):
        return Fraction(x.numerator, x.denominator)
    if isinstance(x, (float, np.floating, Real)):
        f = float(x)
        if not math.isfinite(f):
            raise ValueError(f"{where}: expected a finite number, got {x!r}")
        return Fraction(repr(f))  # the decimal the user wrote, not the nearest double
    raise TypeError(f"{where}: expected a number, got {type(x).__name__} {x!r}")


def to_fractions(values, where: str = "values", *, bools: bool = False) -> np.ndarray:
    """Element-wise :func:`to_fraction` over an array-like: an object array of the same shape."""
    a = np.asarray(values, dtype=object)
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        out[idx] = to_fraction(v, f"{where}[{', '.join(map(str, idx))}]" if idx else where, bools=bools)
    return out


class CommonScale(NamedTuple):
    """Rationals on one integer scale: ``value = ints / denominator`` element-wise. ``ints`` is
    int64 when it fits the head-room asked for, otherwise an object array of Python ints."""
    ints: np.ndarray
    denominator: int

    def fits_int64(self) -> bool:
        return self.ints.dtype == np.int64


def common_denominator(values, headroom_bits: int = 1, *, exact_only: bool = False) -> CommonScale:
    """``values`` (Fractions, ints, or floats read by :func:`to_fraction`) as integers ``x·L`` on the
    least common denominator ``L``.

    The integers are int64 when ``|x·L| < 2**(63 − headroom_bits)``: with ``headroom_bits = 1``
    any difference of two of them is exact in int64; sums of k terms need ``log2(k)`` more bits.
    Otherwise they are an object array of Python ints (still exact). With ``exact_only=True`` a
    float input is refused instead of read as its shortest decimal.
    """
    a = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    flat = a.ravel().tolist()
    if exact_only:
        bad = next((v for v in flat if isinstance(v, (float, np.floating))), None)
        if bad is not None:
            raise TypeError(f"expected exact numbers (Fractions or ints), found the float {bad!r}")
    if all(type(v) is int for v in flat):  # Python ints (φ beyond int64): their own integers, L = 1
        den, ints = 1, flat
    else:
        fr = [to_fraction(v) for v in flat]
        den = math.lcm(*(f.denominator for f in fr)) if fr else 1
        ints = [f.numerator * (den // f.denominator) for f in fr]
    big = max((abs(i) for i in ints), default=0)
    dtype = np.int64 if big < 2 ** (63 - headroom_bits) else object
    return CommonScale(np.array(ints, dtype=dtype).reshape(a.shape), den)
