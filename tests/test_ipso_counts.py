"""Exact category counts of all pairs of binary SERPs (irscales.ipso._counts): enumeration, DP and
closed form agree; MM23 Table 2 values by hand."""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import numpy as np
import pytest

from irscales import ipso


def test_counts_three_routes_agree_up_to_12():
    dp = ipso.count_categories(200)
    for k in range(1, 201):
        assert dp.row(k) == ipso.closed_form_counts(k), k
    for k in range(1, 13):
        ex = ipso.enumerate_counts(k, block=min(k, 7))
        for d in range(1, k + 1):
            assert ex.row(d) == dp.row(d), (k, d)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
def test_enumeration_equals_algorithm1_on_explicit_grid(k):
    g = ipso.relation_grid(ipso.all_serps(k))
    assert list(np.bincount(g.ravel(), minlength=4)) == list(ipso.enumerate_counts(k).counts[-1])


def test_dp_with_probabilities_equals_weighted_enumeration():
    q1, q2 = Fr(1, 3), Fr(3, 5)
    w = (q1 * (1 - q2), q1 * q2 + (1 - q1) * (1 - q2), (1 - q1) * q2)
    for k in (1, 2, 4, 6):
        s = ipso.all_serps(k)
        g = ipso.relation_grid(s)
        n1 = s.sum(1)
        pa = [q1 ** int(x) * (1 - q1) ** (k - int(x)) for x in n1]
        pb = [q2 ** int(x) * (1 - q2) ** (k - int(x)) for x in n1]
        tot = [Fr(0)] * 4
        for i in range(len(s)):
            for j in range(len(s)):
                tot[g[i, j]] += pa[i] * pb[j]
        assert list(ipso.count_categories(k, w).counts[-1]) == tot
        assert sum(tot) == 1


def test_closed_form_small_values():
    # k = 3: Fig. 2 has 8 equal cells, 2 non-separable cells, 27 + 27 separable
    assert ipso.closed_form_counts(3) == {"=": 8, "ni": 27, "ns": 27, "**": 2}
    assert ipso.count_categories(1000).row(1000) == ipso.closed_form_counts(1000)


def test_count_errors():
    with pytest.raises(ValueError, match="k must be in 1..16"):
        ipso.enumerate_counts(17)
    with pytest.raises(ValueError, match="weights"):
        ipso.count_categories(3, (1, 2))
    with pytest.raises(ValueError, match="positive integer"):
        ipso.count_categories(0)


def test_table2_exact_values_by_hand():
    f = ipso.count_categories(10).fractions(10)
    assert f["equal"] == Fr(1, 1024)
    assert f["separable"] == Fr(2 * (math.comb(21, 10) - 1024), 4**10)
    assert f["nonsep"] == Fr(344168, 4**10)


def test_category_counts_depth_checked():
    c = ipso.count_categories(5)
    with pytest.raises(ValueError, match="depth must be in 1..5"):
        c.row(6)
    with pytest.raises(ValueError, match="depth must be in 1..5"):
        c.fractions(0)


def test_enumeration_in_two_processes_gives_the_same_counts():
    one = ipso.enumerate_counts(9, block=5)
    two = ipso.enumerate_counts(9, block=5, workers=2)
    assert (one.counts == two.counts).all()
