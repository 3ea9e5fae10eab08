"""irscales.exact: rationals read as the user meant them, and put on one integer scale."""
from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from irscales.exact import common_denominator, to_fraction, to_fractions


@pytest.mark.parametrize("x, want", [(0.8, Fr(4, 5)), (1, Fr(1)), (np.int16(3), Fr(3)), (Fr(2, 3), Fr(2, 3)),
                                     (np.float32(0.5), Fr(1, 2)), (0.1, Fr(1, 10))])
def test_to_fraction_reads_the_decimal_written(x, want):
    assert to_fraction(x) == want


@pytest.mark.parametrize("x, err", [(float("nan"), ValueError), (float("inf"), ValueError), ("1", TypeError),
                                    (True, TypeError)])
def test_to_fraction_refuses_non_numbers(x, err):
    with pytest.raises(err, match="gain"):
        to_fraction(x, "gain")


def test_booleans_only_on_request():
    assert to_fraction(np.True_, bools=True) == 1
    assert to_fractions(np.array([[True, False]]), bools=True).tolist() == [[Fr(1), Fr(0)]]


@given(hs.lists(hs.fractions(max_denominator=10**6), min_size=1, max_size=30))
def test_common_denominator_is_exact(xs):
    c = common_denominator(xs)
    assert [Fr(int(i), c.denominator) for i in c.ints.tolist()] == xs
    assert all(Fr(x).denominator == 1 or c.denominator % Fr(x).denominator == 0 for x in xs)


def test_common_denominator_falls_back_to_python_ints():
    c = common_denominator([Fr(1, 2**40 + 15), Fr(1, 2**40 + 17), Fr(1)], headroom_bits=2)
    assert not c.fits_int64() and c.ints.dtype == object
    assert Fr(int(c.ints[2]), c.denominator) == 1


def test_exact_only_refuses_floats():
    with pytest.raises(TypeError, match="float"):
        common_denominator([Fr(1, 3), 0.5], exact_only=True)
