"""How a committed derived table stores a float: ten significant digits (issue 52).

The last bits of a float that comes out of a sum of floats, a transcendental function (``exp``, ``log``), a
special function (a p-value) or linear algebra depend on the machine and on the order of work: numpy's float64
``exp`` is its own AVX-512 kernel on a CPU that has AVX-512 and the C library's ``exp`` on one that does not
(they differ by an ulp on a few per cent of arguments), BLAS and LAPACK pick their kernels by CPU, and a
reordered sum rounds differently. Fer17's Table 1 divergences moved by one ulp that way (0.03300550640404276
on an AVX-512 machine, 0.033005506404042755 through the C library's ``exp``), and a committed table that
stores every digit then changes with the machine that wrote it.

So the tables under ``figures/`` and ``data/derived/`` store each float rounded to :data:`SIGNIFICANT_DIGITS`
significant digits (:func:`stored_float`, written as the shortest text that reads back as the rounded
double). A value moves across a ten-digit rounding boundary only when it lies that close to one: for a change
of a few ulps (another ``exp``, another pairwise blocking) about one value in 10^5, for 1e-13 relative (a sum
of thousands of terms taken one by one instead of pairwise) about one in 10^3; ``tests/test_stored.py``
recomputes Table 1's divergences both ways to show that the committed ones are not such values. Integral
floats below 2^53 (counts) are exact and kept whole. Computations keep every digit; only the stored text is
rounded, ten digits being far beyond any printed value the tables are compared with (two to five digits).
"""

from __future__ import annotations

import math
import os
import re
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd

from irscales._atomic import write_atomic

__all__ = ["write_csv", "stored_float", "stored_frame"]

#: Significant digits of a non-integral float in a committed derived table.
SIGNIFICANT_DIGITS = 10

#: The largest double of ten significant digits (1.797693135e308, the nearest to the largest double, is inf).
_LARGEST = 1.797693134e308
_FLOAT_LITERAL = re.compile(r"-?(?:(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)")


def stored_float(x: Real) -> float:
    """``x`` rounded to :data:`SIGNIFICANT_DIGITS` significant digits (the double nearest that decimal); an
    integral float below 2^53 (a count), ±inf and NaN are returned as they are."""
    v = float(x)
    if not math.isfinite(v) or (v.is_integer() and abs(v) < 2.0 ** 53):
        return v
    r = float(f"{v:.{SIGNIFICANT_DIGITS}g}")
    return r if math.isfinite(r) else math.copysign(_LARGEST, v)  # above it, the nearest decimal overflows


def stored_literal(text: str) -> str:
    """A computed float written as text (its ``repr``: ``0.03300550640404276``) as a table stores it
    (``0.0330055064``); other text (``3``, ``1/2``, ``yes``) is returned unchanged. Only for computed
    values: a printed value's text (``0.0330``) is the paper's and is never rewritten."""
    s = str(text)
    if not _FLOAT_LITERAL.fullmatch(s.strip()):
        return s
    return repr(stored_float(float(s)))


def _round_column(col: pd.Series) -> pd.Series:
    if pd.api.types.is_float_dtype(col.dtype):
        return col.map(lambda v: v if pd.isna(v) else stored_float(v)).astype(col.dtype)
    if col.dtype == object:
        return col.map(lambda v: stored_float(v) if isinstance(v, (float, np.floating)) else v)
    return col


def stored_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every float (of a float column, or a float in a column of objects, index
    included) rounded by :func:`stored_float`; text and integers untouched."""
    out = frame.copy()
    for c in out.columns:
        out[c] = _round_column(out[c])
    if isinstance(out.index, pd.MultiIndex):
        out.index = pd.MultiIndex.from_arrays([_round_column(out.index.get_level_values(i).to_series())
                                               for i in range(out.index.nlevels)], names=out.index.names)
    elif pd.api.types.is_float_dtype(out.index.dtype) or out.index.dtype == object:
        out.index = pd.Index(_round_column(out.index.to_series()), name=out.index.name)
    return out


def csv_text(frame: pd.DataFrame, **to_csv) -> str:
    """``frame.to_csv(**to_csv)`` of :func:`stored_frame` (``float_format`` may only round further)."""
    return stored_frame(frame).to_csv(**to_csv)


def write_csv(frame: pd.DataFrame, path: str | os.PathLike, **to_csv) -> Path:
    """Write :func:`csv_text` of ``frame`` to ``path`` atomically; returns the path."""
    return write_atomic(Path(path), csv_text(frame, **to_csv))
