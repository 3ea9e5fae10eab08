"""Tests of irscales.enumeration._dcg (exact arithmetic of log-discounted sums) and
irscales.enumeration.ties (counts of runs → unq/min/max/mid ranks)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import measures as M
from irscales.enumeration import TieUndecidable
from irscales.enumeration._dcg import (
    QLog3, dcg_layout, dcg_root_coefficients, log_sum, log_sum_sign, perfect_root, qlog3_dcg)
from irscales.enumeration._runs import runs_from_ids
from irscales.enumeration.ties import rank_values, tie_ranks


def test_perfect_root():
    assert perfect_root(2) == (2, 1)
    assert perfect_root(16) == (2, 4)
    assert perfect_root(27) == (3, 3)
    assert perfect_root(64) == (2, 6)
    assert perfect_root(36) == (6, 2)
    assert perfect_root(10) == (10, 1)


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=-5, max_value=5, max_denominator=50), st.integers(-4, 4))
def test_qlog3_sign_matches_floats(a, b):
    x = QLog3(a, F(b))
    f = float(a) + b / math.log2(3)
    if abs(f) > 1e-9:
        assert x.sign() == (1 if f > 0 else -1)
    else:  # a + b/log2 3 = 0 only when a = b = 0 (irrationality)
        assert a == 0 and b == 0 and x.sign() == 0


def test_qlog3_equality_and_hash_are_consistent():
    a = QLog3(F(1, 2), F(1)) + QLog3(F(1), F(0))
    b = QLog3(F(3, 2), F(1))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert str(b) == "3/2 + 1/log2(3)" and str(QLog3(F(0), F(1))) == "1/log2(3)"


def test_qlog3_dcg_is_the_root_coefficient_form():
    for r in runs_from_ids(np.arange(16), 4).tolist():
        x = qlog3_dcg(r)
        assert abs(float(x) - float(M.DCG(base=2)(np.array([r]))[0])) < 1e-12
    assert str(qlog3_dcg([1, 1, 1, 1])) == "5/2 + 1/log2(3)"
    with pytest.raises(ValueError, match="N ≤ 4 only"):
        qlog3_dcg([1, 0, 0, 0, 1])


@pytest.mark.parametrize("m", [M.DCG(base=2), M.DCG(base=10), M.DCG(discount="log2p1")], ids=str)
def test_root_coefficients_and_layout_give_the_discounts(m):
    N = 12
    roots, lcm, w, B = dcg_root_coefficients(m, N)
    u = np.array([math.log(B) / math.log(r) / l for r, l in zip(roots, lcm)])
    assert np.allclose(w @ u, M.dcg_discount(N, m.base, m.discount))
    lay = dcg_layout(m, N, 1)
    rel = runs_from_ids(np.arange(2**N), N)
    ident = rel.astype(np.int64) @ np.array([lay.coef[i] * lay.stride[lay.cls[i][0]] for i in range(N)])
    for i in (0, 1, 5, 777, 2**N - 1):
        assert abs(float(lay.value(ident[i], 30)) - float(m(rel[i:i + 1])[0])) < 1e-12


def test_log_sum_and_its_sign():
    assert abs(log_sum({3: F(1, 2), 2: 1}, 2, 40) - Decimal(1 + 0.5 / math.log2(3))) < Decimal("1e-15")
    assert log_sum_sign({}, 2) == 0 and log_sum_sign({2: 0}, 2) == 0
    assert log_sum_sign({3: 1, 2: F(-1, 2)}, 2) == 1  # 1/log2 3 ≈ 0.63 > 1/2
    assert log_sum_sign({3: -1, 2: F(1, 2)}, 2) == -1
    with pytest.raises(TieUndecidable):
        log_sum_sign({4: 1, 2: F(-1, 2)}, 2)  # ln 2/ln 4 = 1/2 exactly: a tie no digits separate


def test_tie_ranks_from_counts():
    below, upto, unq = np.array([0, 1, 4]), np.array([1, 4, 6]), np.array([1, 2, 3])
    assert tie_ranks(below, upto, unq, "unq").tolist() == [1, 2, 3]
    assert tie_ranks(below, upto, unq, "min").tolist() == [1, 2, 5]
    assert tie_ranks(below, upto, unq, "max").tolist() == [1, 4, 6]
    assert tie_ranks(below, upto, unq, "mid").tolist() == [1.0, 3.0, 5.5]
    big = np.array([2**70, 0], dtype=object)
    assert tie_ranks(big, big + 2, None, "mid").tolist() == [F(2 * 2**70 + 3, 2), F(3, 2)]
    with pytest.raises(ValueError, match="ties must be one of"):
        tie_ranks(below, upto, unq, "dense")


def test_rank_values_strategies():
    x = [F(1, 2), 0, F(1, 2), 1]
    assert rank_values(x).tolist() == [2, 1, 2, 3]
    assert rank_values(x, "min").tolist() == [2, 1, 2, 4]
    assert rank_values(x, "max").tolist() == [3, 1, 3, 4]
    assert rank_values(x, "mid").tolist() == [2.5, 1.0, 2.5, 4.0]
