"""Exact score comparisons (irscales.ipso._sqrt5): Q(√5) arithmetic and exact signs."""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import pytest

from irscales import ipso
from irscales.measures import RBP


def test_qsqrt5_and_golden_rbp():
    phi = ipso.PHI
    assert (phi * phi + phi - ipso.QSqrt5(Fr(1))).sign() == 0  # φ² + φ = 1
    assert abs(float(phi) - (math.sqrt(5) - 1) / 2) < 1e-15
    assert ipso.QSqrt5(Fr(-2), Fr(1)).sign() == 1 and ipso.QSqrt5(Fr(3), Fr(-1)).sign() == 1
    assert ipso.QSqrt5(Fr(2), Fr(-1)).sign() == -1
    assert (ipso.golden_rbp_exact([1, 0, 0]) - ipso.golden_rbp_exact([0, 1, 1])).sign() == 0
    assert abs(float(ipso.golden_rbp_exact([1, 1, 0])) - float(RBP(p=float(phi))([1, 1, 0]))) < 1e-12


def test_exact_sign_refuses_float_near_ties():
    assert ipso.exact_sign(Fr(1, 3), Fr(1, 3), 3) == 0
    assert ipso.exact_sign(1.0, 0.5, 3) == 1
    with pytest.raises(ValueError, match="rounding error"):
        ipso.exact_sign(0.1 + 0.2, 0.3, 3)
