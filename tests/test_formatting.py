"""irscales._formatting: the one rule for a number shown to a reader (issue 40)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from irscales._formatting import SIGNIFICANT_DIGITS, as_text, significant


def test_six_significant_digits_for_every_kind_of_number():
    assert SIGNIFICANT_DIGITS == 6
    assert significant(0.123456789) == "0.123457" == significant(np.float64(0.123456789))
    assert significant(Fraction(1, 3)) == "0.333333" and significant(np.float32(0.5)) == "0.5"
    assert significant(1234567.0) == "1.23457e+06" and significant(2.0) == "2"


def test_as_text_formats_floats_only():
    assert as_text(0.123456789) == "0.123457" and as_text(np.float32(0.25)) == "0.25"
    assert as_text(7) == "7" and as_text("AP") == "AP" and as_text((0, 1)) == "(0, 1)"


def test_a_column_never_prints_distinct_values_alike():
    """Issue 48: interval means of 0.000–0.064 printed as 0.0000 in 4-decimal tables."""
    from irscales._formatting import column_format, column_numbers

    small = [0.00324825, 0.064, 0.0, 0.00324826]
    f = column_numbers(small)
    assert len({f(x) for x in small}) == 4 and f(0.064).startswith("0.0640")
    assert column_numbers([0.2513, 0.2871])(0.2513) == "0.2513"  # four decimals where they suffice
    assert column_numbers([0.25131, 0.25132])(0.25131) == "0.25131"
    tiny = [3.79e-20, 1.74e-19, 1.44e-19, 1.4400001e-19]  # nDCG@100 over 5^100 graded runs
    g = column_numbers(tiny)
    assert len({g(x) for x in tiny}) == 4 and g(3.79e-20).endswith("e-20")  # scientific: the exponent says the scale
    h = column_format([0.00324825, 0.003248251])
    assert h(0.00324825) != h(0.003248251) and h(float("nan")) == "NaN"
    assert column_format([0.5, 0.25])(0.5) == "0.5"  # six significant digits, as significant()
