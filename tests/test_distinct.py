"""irscales._distinct: the sorted distinct values by a sort are np.unique's, for every dtype it takes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

from irscales._distinct import distinct


@settings(max_examples=80, deadline=None, derandomize=True)
@given(hnp.arrays(hs.sampled_from([np.int8, np.int32, np.int64, np.uint64, np.bool_]),
                  hnp.array_shapes(min_dims=0, max_dims=3, max_side=20)))
def test_distinct_is_np_unique_for_integers(a):
    got, want = distinct(a), np.unique(a)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("a", [np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, np.iinfo(np.int64).min]),
                               np.array([np.iinfo(np.uint64).max, 0, np.iinfo(np.uint64).max], np.uint64),
                               np.full((3, 4), 7, np.int32), np.array([5]), np.array([[3, 1], [1, 2]])])
def test_the_extremes_of_the_sort_path(a):
    """The ends of each integer range, all equal, one value, two dimensions: np.unique's array."""
    got, want = distinct(a), np.unique(a)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()
