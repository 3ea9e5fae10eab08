"""Tests of irscales.cli._output's writer without pandas (issue 49): :func:`delimited` writes what pandas'
``to_csv(index=False)`` writes, byte for byte, for every kind of column the command line's tables hold — floats
(NaN, ±inf, -0.0, the extremes, values that print in exponent form), exact integers of any size, decimals, None,
and text that needs quoting."""

from __future__ import annotations

import sys
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.cli._output import delimited

FLOATS = [0.0, -0.0, 1.0, 0.1, 1 / 3, 1e-5, 1e-4, 1e15, 1e16, 123456789012345680.0, 5e-324, 2.2250738585072014e-308,
          1.7976931348623157e308, float("inf"), -float("inf"), float("nan"), -2.5, 0.0007407792801060435]
TEXT = ["401", "all", "map@1000", "a,b", 'say "x"', "tab\there", "semi;colon", "é", " lead", "line\nend", ""]


def _pandas(columns: dict, sep: str) -> str:
    return pd.DataFrame(columns).to_csv(index=False, sep=sep)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_the_scores_columns_as_pandas_writes_them(sep):
    n = len(FLOATS)
    columns = {"system": np.array([TEXT[i % len(TEXT)] for i in range(n)], dtype=object),
               "topic": np.array([str(i) for i in range(n)], dtype=object),
               "value": np.array(FLOATS), "interval": np.array(FLOATS[::-1]),
               "phi": np.array([10**40, 7, None, Decimal("35.5"), "12.25", float("nan"), -3] * 3, dtype=object)[:n],
               "K": np.array([2**70, None] * n, dtype=object)[:n]}
    assert delimited(columns, sep) == _pandas(columns, sep)


def test_a_number_of_thirty_thousand_digits():
    if hasattr(sys, "set_int_max_str_digits"):
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)  # as the command line does
    try:
        columns = {"phi": np.array([3**60_000, 1], dtype=object), "v": np.array([0.5, np.nan])}
        assert delimited(columns, ",") == _pandas(columns, ",")
    finally:
        if hasattr(sys, "set_int_max_str_digits"):
            sys.set_int_max_str_digits(old)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6)), min_size=1,
                max_size=30), st.sampled_from([",", "\t"]))
def test_random_floats_and_text(rows, sep):
    columns = {"name": np.array([t for _, t in rows], dtype=object), "value": np.array([v for v, _ in rows])}
    assert delimited(columns, sep) == _pandas(columns, sep)
