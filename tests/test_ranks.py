"""irscales.ranks: ties become integers in one place."""
from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given
from hypothesis import strategies as hs

from irscales.ranks import average_ranks, dense_ranks, phi_of_image


def test_dense_ranks_exact_where_floats_merge():
    a = np.array([Fr(1, 3), Fr(1, 3) + Fr(1, 10**30), Fr(1, 3)], dtype=object)
    assert dense_ranks(a).tolist() == [0, 1, 0]
    assert dense_ranks(a.astype(float)).tolist() == [0, 0, 0]


def test_phi_of_image_is_fff21_eq2():
    assert phi_of_image([Fr(1, 2), 0, Fr(1, 2), 1]) == {0: 1, Fr(1, 2): 2, 1: 3}


@given(hs.lists(hs.integers(0, 5), min_size=1, max_size=25))
def test_average_ranks_match_scipy(xs):
    r, ties = average_ranks(np.array([xs], dtype=float))
    np.testing.assert_allclose(r[0], st.rankdata(xs))
    _, counts = np.unique(xs, return_counts=True)
    assert ties[0] == int((counts ** 3 - counts).sum())


def test_dense_ranks_refuse_nan():
    with pytest.raises(ValueError, match="NaN"):
        dense_ranks(np.array([0.1, np.nan]))
