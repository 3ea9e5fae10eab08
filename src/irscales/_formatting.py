"""How a number is shown to a reader: one rule, six significant digits (``%.6g``: 0.123457, 1.23457e+06), more
where a column holds distinct values that would print alike (:func:`column_format`, :func:`column_numbers`:
tables never show two different means as the same number, issue 48).

For text meant to be read — the command line's tables, Markdown and LaTeX, the report's notes and pages, a
counterexample in a message. Files meant to be read back (CSV, the comparison files) keep every digit (the
shortest round-trip repr), so that equal values stay equal and distinct ones distinct — except the committed
derived tables under ``figures/``, which store ten significant digits (:mod:`irscales.stored`, issue 52).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Callable, Iterable

import numpy as np

__all__ = ["SIGNIFICANT_DIGITS", "significant", "as_text", "column_format", "column_numbers"]

#: Beyond 17 significant digits every two distinct doubles already print apart.
_MOST = 17

SIGNIFICANT_DIGITS = 6


def significant(x: Real) -> str:
    """``x`` (a float, numpy float or Fraction) to :data:`SIGNIFICANT_DIGITS` significant digits."""
    return f"{float(x):.{SIGNIFICANT_DIGITS}g}"


def as_text(v: object) -> str:
    """A value as text: a float (Python or numpy) by :func:`significant`, anything else as it prints."""
    return significant(v) if isinstance(v, (float, np.floating)) else str(v)


def _distinct(values: Iterable) -> list[float]:
    return sorted({float(v) for v in values if isinstance(v, (Real, np.floating)) and math.isfinite(float(v))})


def column_format(values: Iterable, at_least: int = SIGNIFICANT_DIGITS) -> Callable[[Real], str]:
    """A formatter for one column: ``at_least`` significant digits, more where the column's distinct values
    would otherwise print alike (0.00324825 and 0.00324826 need eight)."""
    xs = _distinct(values)
    digits = next((d for d in range(at_least, _MOST + 1) if len({f"{x:.{d}g}" for x in xs}) == len(xs)), _MOST)
    return lambda x: "NaN" if x != x else f"{float(x):.{digits}g}"


def column_numbers(values: Iterable, at_least: int = 4, significant_digits: int = 3,
                   most_decimals: int = 8) -> Callable[[Real], str]:
    """A formatter for a column of means: a fixed point with ``at_least`` decimals, more so that its largest value
    keeps ``significant_digits`` (interval means of 0.000–0.064 are not all 0.0000) and that distinct values never
    print alike; where that needs more than ``most_decimals`` decimals (nDCG@100's interval means over all 5^100
    graded runs are about 1e-20), scientific notation with as many significant digits as keep them apart (the
    exponent says the scale)."""
    xs = _distinct(values)
    top = max((abs(x) for x in xs), default=0.0)
    first = at_least if top == 0 else max(at_least, significant_digits - 1 - math.floor(math.log10(top)))
    for d in range(first, most_decimals + 1):
        if len({f"{x:.{d}f}" for x in xs}) == len(xs):
            return lambda x, d=d: f"{float(x):.{d}f}"
    d = next((d for d in range(significant_digits - 1, _MOST) if len({f"{x:.{d}e}" for x in xs}) == len(xs)), _MOST)
    return lambda x: f"{float(x):.{d}e}"
