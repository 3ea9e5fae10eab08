"""irscales.formatting: the one rule for a number shown to a reader (issue 40)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from irscales.formatting import SIGNIFICANT_DIGITS, as_text, significant


def test_six_significant_digits_for_every_kind_of_number():
    assert SIGNIFICANT_DIGITS == 6
    assert significant(0.123456789) == "0.123457" == significant(np.float64(0.123456789))
    assert significant(Fraction(1, 3)) == "0.333333" and significant(np.float32(0.5)) == "0.5"
    assert significant(1234567.0) == "1.23457e+06" and significant(2.0) == "2"


def test_as_text_formats_floats_only():
    assert as_text(0.123456789) == "0.123457" and as_text(np.float32(0.25)) == "0.25"
    assert as_text(7) == "7" and as_text("AP") == "AP" and as_text((0, 1)) == "(0, 1)"
