"""The universe of binary SERPs (irscales.ipso._grid): Hasse covers, grids, score axes and τ."""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

from irscales import ipso
from irscales.correlation import kendall_tau
from irscales.ipso import Relation

NX = Relation.NONSEP


def test_hasse_k3_edges():
    s = ipso.all_serps(3)
    edges = {("".join(map(str, s[i])), "".join(map(str, s[j]))) for i, j in ipso.hasse_edges(s)}
    assert edges == {("111", "110"), ("110", "101"), ("101", "011"), ("101", "100"),
                     ("011", "010"), ("100", "010"), ("010", "001"), ("001", "000")}


def test_axis_order_ties_and_errors():
    sc = np.array([Fr(1), Fr(0), Fr(1)], dtype=object)
    assert list(ipso.axis_order(sc)) == [1, 0, 2]
    assert list(ipso.axis_order(sc, "lex_desc")) == [2, 0, 1]
    with pytest.raises(ValueError, match="rounding"):
        ipso.axis_order(np.array([0.3, 0.1 + 0.2]))
    with pytest.raises(ValueError, match="tie_break"):
        ipso.axis_order(sc, "random")


def test_diagonal_blocks_and_grid_symmetry():
    g6 = ipso.relation_grid(ipso.all_serps(6))
    assert ipso.diagonal_blocks(g6, ipso.relation_grid(ipso.all_serps(3))) == 8
    assert ipso.diagonal_blocks(g6, np.zeros((8, 8), dtype=np.int8)) == 0
    assert (g6 == NX).sum() == 2 * ipso.closed_form_counts(6)["**"] // 2


def test_axis_order_snap_merges_float_near_ties():
    v = np.array([0.3, 0.1 + 0.2, 0.2])
    assert list(ipso.axis_order(v, float_ties="snap")) == [1, 2, 0]


def test_axis_tau_is_exact_kendall_tau_of_permutations():
    rng = np.random.default_rng(4)
    for n in (2, 5, 17):
        r, c = rng.permutation(n), rng.permutation(n)
        t = ipso.axis_tau(r, c)
        assert isinstance(t, Fr) and float(t) == pytest.approx(kendall_tau(r, c), abs=1e-15)
    with pytest.raises(ValueError, match="permutations"):
        ipso.axis_tau([0, 0, 1], [0, 1, 2])
