"""Tests for irscales.theory.setbased: every claim of FFF21 §3.4.1–§3.4.4 checked by enumeration of
S[N, K], hand-computed S[2, 2] values, Example 11, and a cross-check against irscales.measures
on binary runs built from the triples."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import measures as M
from irscales.theory import setbased as sb

SMALL = [(N, K) for N in range(1, 7) for K in range(1, 7)]


# --------------------------------------------------------------------- §3.4, hand-worked S[2,2]


def test_s22_is_the_papers_set():
    """§3.4.1 lists S[2,2] as nine triples."""
    printed = {(0, 1, 1), (0, 1, 2), (0, 2, 1), (0, 2, 2), (1, 2, 1), (1, 2, 2), (1, 1, 1), (1, 1, 2), (2, 2, 2)}
    runs = sb.universe(2, 2)
    assert len(runs) == 9 and set(runs) == printed


def test_s22_values_printed_in_the_paper():
    assert sb.prec((1, 2, 1)) == sb.prec((1, 2, 2)) == F(1, 2) and sb.prec((1, 1, 2)) == 1
    assert sb.recall((1, 2, 1)) == 1 and sb.recall((1, 1, 2)) == F(1, 2)
    assert sb.f1((1, 2, 1)) == F(2, 3) == sb.f1((1, 1, 2))


# ----------------------------------------------------------------------------- §3.4.1 Precision


@pytest.mark.parametrize("K", range(1, 7))
def test_precision_images_small_N(K):
    assert sb.image("P", sb.universe(1, K)) == [0, 1]
    assert sb.image("P", sb.universe(2, K)) == [0, F(1, 2), 1]
    expected3 = [0, F(1, 3), F(1, 2), 1] if K == 1 else [0, F(1, 3), F(1, 2), F(2, 3), 1]
    assert sb.image("P", sb.universe(3, K)) == expected3
    assert sb.is_equispaced(sb.image("P", sb.universe(2, K)))
    assert not sb.is_equispaced(expected3)


@pytest.mark.parametrize("N,K", SMALL)
def test_precision_is_interval_on_S_NK_iff_N_le_2(N, K):
    im = sb.image("P", sb.universe(N, K))
    assert sb.is_equispaced(im) == (N <= 2)
    if N >= 3:  # the three smallest values are 0, 1/N, 1/(N-1)
        assert im[:3] == [0, F(1, N), F(1, N - 1)]


# -------------------------------------------------------------------------------- §3.4.2 Recall


@pytest.mark.parametrize("N,K", SMALL)
def test_recall_is_interval_on_S_NK_iff_K_le_2(N, K):
    im = sb.image("R", sb.universe(N, K))
    assert sb.is_equispaced(im) == (K <= 2)
    if K == 1:
        assert im == [0, 1]
    if K == 2:
        assert im == [0, F(1, 2), 1]
    if K > 2:  # two smallest non-zero values 1/K and 1/(K-1)
        assert im[1:3] == [F(1, K), F(1, K - 1)]


@pytest.mark.parametrize("N,K", SMALL)
def test_precision_and_recall_reverse_some_pair_iff_N_K_ge_2(N, K):
    c = sb.compare_orders("P", "R", sb.universe(N, K))
    assert (c.discordant > 0) == (N >= 2 and K >= 2)
    assert c.n_pairs == len(sb.universe(N, K)) * (len(sb.universe(N, K)) - 1) // 2
    if N >= 2 and K >= 2:
        assert c.tau_b < 1


def test_precision_recall_reversal_example():
    """[1,2,1] vs [1,1,2]: Prec 1/2 < 1, Recall 1 > 1/2."""
    pairs = sb.disagreeing_pairs("P", "R", sb.universe(2, 2))
    rev = pairs[pairs["how"] == "reversed"]
    assert [(tuple(a), tuple(b)) for a, b in zip(rev["a"], rev["b"])] == [((1, 1, 2), (1, 2, 1))]


def test_reversal_condition_of_section_3_4_2():
    """Prec[a] < Prec[b] and Recall[a] > Recall[b]  ⇔  n2/n1 < r2/r1 < RB2/RB1 (r1, r2 > 0)."""
    runs = [x for x in sb.universe(5, 5) if x[0] > 0]
    for a, b in itertools.permutations(runs, 2):
        (r1, n1, b1), (r2, n2, b2) = a, b
        lhs = sb.prec(a) < sb.prec(b) and sb.recall(a) > sb.recall(b)
        rhs = F(n2, n1) < F(r2, r1) < F(b2, b1)
        assert lhs == rhs, (a, b)
    # the paper's instance: r1 = r2, n1 = 2 n2, RB2 = 2 RB1
    a, b = (1, 4, 2), (1, 2, 4)
    assert sb.prec(a) < sb.prec(b) and sb.recall(a) > sb.recall(b)


# ------------------------------------------------------------------------------------ §3.4.3 F1


def test_f1_images_small():
    assert sb.image("F1", sb.universe(1, 1)) == [0, 1]
    assert sb.image("F1", sb.universe(2, 1)) == sb.image("F1", sb.universe(1, 2)) == [0, F(2, 3), 1]
    assert sb.image("F1", sb.universe(2, 2)) == [0, F(1, 2), F(2, 3), 1]


@pytest.mark.parametrize("N,K", SMALL)
def test_f1_is_interval_only_on_S11(N, K):
    im = sb.image("F1", sb.universe(N, K))
    assert sb.is_equispaced(im) == (N == K == 1)
    if N >= 3 or K >= 3:
        assert im[:3] == [0, F(2, N + K), F(2, N + K - 1)]


@pytest.mark.parametrize("N,K", SMALL)
def test_f1_order_versus_precision_and_recall(N, K):
    """§3.4.3 says F1 orders S[N,K] unlike both Prec and Recall when N ≥ 3 or K ≥ 3. Enumeration
    shows this holds when N ≥ 2 and K ≥ 2, but on S[N,1] F1 orders exactly like Prec, and on
    S[1,K] exactly like Recall (with one possible relevant document both are decreasing in n,
    resp. RB). The notebook reports this as a qualified claim."""
    runs = sb.universe(N, K)
    pf, rf = sb.compare_orders("P", "F1", runs), sb.compare_orders("R", "F1", runs)
    if N >= 2 and K >= 2:
        assert not pf.same_order and not rf.same_order
    if K == 1:
        assert pf.same_order
    if N == 1:
        assert rf.same_order


# ------------------------------------------------------------------------------ §3.4.4 summary


@pytest.mark.parametrize("n,K", [(n, K) for n in range(1, 6) for K in range(1, 6)])
def test_fixed_length_precision_stays_interval(n, K):
    runs = sb.universe([n], K)
    assert sb.is_equispaced(sb.image("P", runs))
    if K >= 3 and n >= 2:
        assert not sb.is_equispaced(sb.image("R", runs))
        assert sb.compare_orders("P", "R", runs).discordant > 0


@pytest.mark.parametrize("N,rb", [(N, rb) for N in range(1, 6) for rb in range(1, 6)])
def test_fixed_recall_base_recall_stays_interval(N, rb):
    runs = sb.universe(N, [rb])
    assert sb.is_equispaced(sb.image("R", runs))
    if N >= 3 and rb >= 2:
        assert not sb.is_equispaced(sb.image("P", runs))
        assert sb.compare_orders("P", "R", runs).discordant > 0


@pytest.mark.parametrize("n,rb", [(n, rb) for n in range(1, 7) for rb in range(1, 7)])
def test_on_S_n_RB_all_three_are_the_same_interval_scale(n, rb):
    """On S_{n,RB} the three measures are affine in r, hence equi-spaced and τ = 1."""
    runs = sb.universe([n], [rb])
    for m in sb.MEASURES:
        assert sb.is_equispaced(sb.image(m, runs))
    for m1, m2 in itertools.combinations(sb.MEASURES, 2):
        assert sb.compare_orders(m1, m2, runs).same_order


# ---------------------------------------------------------------------- Example 11 (§3.3)


def test_example11_recall_scales():
    ims = [sb.image("R", sb.universe([3], [rb])) for rb in (1, 2, 3)]
    assert ims == [[0, 1], [0, F(1, 2), 1], [0, F(1, 3), F(2, 3), 1]]
    union = sorted(set().union(*ims))
    assert union == [0, F(1, 3), F(1, 2), F(2, 3), 1] and not sb.is_equispaced(union)
    grid = sb.common_grid(ims)
    assert grid == [F(k, 6) for k in range(7)]
    assert set(grid) - set(union) == {F(1, 6), F(5, 6)}  # impossible values


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.fractions(min_value=0, max_value=3, max_denominator=12), min_size=1, max_size=5),
                min_size=1, max_size=4))
def test_common_grid_is_the_coarsest_equispaced_superset(images):
    grid = sb.common_grid(images)
    vals = {v for im in images for v in im}
    assert vals <= set(grid) and sb.is_equispaced(grid)
    if len(grid) > 1:  # coarsest: a grid with twice the step misses some value
        step = grid[1] - grid[0]
        coarser = {grid[0] + 2 * i * step for i in range(len(grid))}
        assert not vals <= coarser or len(vals) == 1


# -------------------------------------------------------------------------- cross-checks, errors


@pytest.mark.parametrize("N,K", [(4, 3), (3, 5)])
def test_agrees_with_measures_module_on_binary_runs(N, K):
    for r, n, rb in sb.universe(N, K):
        run = np.array([1] * r + [0] * (n - r))
        assert M.P().exact(run) == sb.prec((r, n, rb))
        assert M.R().exact(run, rb=rb) == sb.recall((r, n, rb))
        assert M.F1().exact(run, rb=rb) == sb.f1((r, n, rb))


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8))
def test_universe_size(N, K):
    expected = sum(min(n, rb) + 1 for n in range(1, N + 1) for rb in range(1, K + 1))
    assert len(sb.universe(N, K)) == len(set(sb.universe(N, K))) == expected


def test_tau_b_counts_add_up_and_match_definition():
    """By hand on S[2,2], (P, R): four runs at (0,0); A = (1,1) twice; B = (1,1/2); C = (1/2,1);
    D = (1/2,1/2). Concordant: 4·5 zero-vs-nonzero + 2 A-vs-D = 22; reversed: B-C; tied by P only:
    2 A-B + C-D = 3; tied by R only: 2 A-C + B-D = 3; tied by both: 6 among zeros + A-A = 7."""
    c = sb.compare_orders("P", "R", sb.universe(2, 2))
    assert (c.concordant, c.discordant, c.tied_first_only, c.tied_second_only, c.tied_both) == (22, 1, 3, 3, 7)
    assert c.n_pairs == 36
    assert c.tau_b == pytest.approx((22 - 1) / ((22 + 1 + 3) * (22 + 1 + 3)) ** 0.5)


def test_clear_errors():
    with pytest.raises(ValueError, match=r"need 0 ≤ r ≤ min\(n, RB\) = 1"):
        sb.prec((2, 1, 3))
    with pytest.raises(ValueError, match="n ≥ 1 and RB ≥ 1"):
        sb.recall((0, 0, 1))
    with pytest.raises(ValueError, match="triple"):
        sb.f1((1, 2))
    with pytest.raises(ValueError, match="unknown set-based measure 'AP'"):
        sb.image("AP", sb.universe(2, 2))
    with pytest.raises(ValueError, match="K \\(recall bases\\) must be ≥ 1"):
        sb.universe(2, 0)
