"""How a number is shown to a reader: one rule, six significant digits (``%.6g``: 0.123457, 1.23457e+06).

For text meant to be read — the command line's tables, Markdown and LaTeX, the report's notes and pages, a
counterexample in a message. Files meant to be read back (CSV, the comparison files) keep every digit (the
shortest round-trip repr), so that equal values stay equal and distinct ones distinct — except the committed
derived tables under ``figures/``, which store ten significant digits (:mod:`irscales.stored`, issue 52).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

__all__ = ["SIGNIFICANT_DIGITS", "significant", "as_text"]

SIGNIFICANT_DIGITS = 6


def significant(x: Real) -> str:
    """``x`` (a float, numpy float or Fraction) to :data:`SIGNIFICANT_DIGITS` significant digits."""
    return f"{float(x):.{SIGNIFICANT_DIGITS}g}"


def as_text(v: object) -> str:
    """A value as text: a float (Python or numpy) by :func:`significant`, anything else as it prints."""
    return significant(v) if isinstance(v, (float, np.floating)) else str(v)
