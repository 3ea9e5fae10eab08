"""The per-pair tests of FFF21 §2.5 (:mod:`irscales.stats._pairwise`): a hand-worked case for each,
scipy cross-checks one pair at a time and the exact binomial table."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as st

from irscales.stats import _significance as sg


# --------------------------------------------------------------------------- hand-worked cases


def test_sign_test_hand_worked():
    x = [3, 2, 5, 1, 4, 4]
    y = [1, 1, 2, 2, 0, 4]   # signs + + + - + 0: n+ = 4, n- = 1, the tie is discarded (n = 5)
    z = [0, 0, 0, 0, 0, 0]   # x > z on all 6 topics
    res = sg.sign_test(np.array([x, y, z]).T)
    # pair (x, y): p = 2 (C(5,0) + C(5,1)) / 2^5 = 12/32
    assert res.pvalue[0] == 12 / 32 and not res.significant[0]
    # pair (x, z): p = 2 / 2^6 = 1/32 <= 0.05
    assert res.pvalue[1] == 1 / 32 and res.significant[1]
    assert res.statistic[0] == 4
    # pair (y, z): y > z on 5 topics, tied (0 = 0) on the fifth: n = 5, p = 2/32
    assert res.pvalue[2] == 2 / 32 and not res.significant[2]


def test_sign_test_p_equal_to_alpha_is_significant_exactly():
    # n = 5, all positive: p = 2/32 = 1/16 exactly; MATLAB's rule is h = (p <= alpha).
    s = np.array([[1, 1, 1, 1, 1], [0, 0, 0, 0, 0]]).T
    assert sg.sign_test(s, alpha=1 / 16).significant[0]
    assert not sg.sign_test(s, alpha=0.0624).significant[0]


def test_rank_sum_hand_worked():
    # x = 1,2,3 ; y = 4,5,6: W = 6, E = 10.5, Var = 9*7/12 = 5.25, z = (-4.5 + 0.5)/sqrt(5.25)
    res = sg.rank_sum_test(np.array([[1, 2, 3], [4, 5, 6]]).T)
    assert res.statistic[0] == 6
    assert res.pvalue[0] == pytest.approx(0.08085559837005224, rel=1e-12)
    # ties: x = 1,1,2 ; y = 2,3,3 -> ranks 1.5 1.5 3.5 | 3.5 5.5 5.5; W = 6.5; Σ(t³-t) = 18
    # Var = 9/12 (7 - 18/30) = 4.8; z = (-4 + 0.5)/sqrt(4.8)
    res = sg.rank_sum_test(np.array([[1, 1, 2], [2, 3, 3]]).T)
    assert res.statistic[0] == 6.5
    assert res.pvalue[0] == pytest.approx(0.11014892418594692, rel=1e-12)


def test_signed_rank_hand_worked():
    y = np.zeros(5)
    x = np.array([1, -2, 3, 4, 0])  # the zero is discarded: n = 4, W+ = 1+3+4 = 8, W- = 2
    s = np.array([x, y]).T
    res = sg.signed_rank_test(s)  # n <= 15: exact, P(W <= 2) = #{∅,{1},{2}}/16
    assert res.statistic[0] == 8 and res.pvalue[0] == 2 * 3 / 16
    approx = sg.signed_rank_test(s, method="approx")  # z = (2 - 5)/sqrt(4*5*9/24)
    assert approx.pvalue[0] == pytest.approx(0.27332167829229814, rel=1e-12)
    # ties: d = 1, 1, -1, 2 -> ranks 2, 2, 2, 4; W- = 2. Exact over the tied ranks: sums <= 2 are
    # ∅ and the three single 2s: p = 2*4/16. Approx: Var = 7.5 - (27-3)/48 = 7.
    s = np.array([[1, 1, -1, 2], [0, 0, 0, 0]]).T
    assert sg.signed_rank_test(s).pvalue[0] == 0.5
    assert sg.signed_rank_test(s, method="approx").pvalue[0] == pytest.approx(0.25683925795785656, rel=1e-12)


def test_paired_t_hand_worked_and_degenerate_pairs():
    # d = 1,2,3,4: mean 2.5, s = sqrt(5/3), t = 2.5/(s/2) = 3.873, df = 3
    x = np.array([2, 4, 6, 8.0])
    s = np.array([x, x - [1, 2, 3, 4], x - 1, x]).T
    res = sg.paired_t_test(s)
    assert res.statistic[0] == pytest.approx(2.5 / (math.sqrt(5 / 3) / 2))
    assert res.pvalue[0] == pytest.approx(0.030466291662170977, rel=1e-10)
    assert res.significant[0]
    # pair (x, x-1): constant difference -> t = inf, p = 0; pair (x, x): identical -> NaN, not significant
    assert res.statistic[1] == np.inf and res.pvalue[1] == 0 and res.significant[1]
    assert np.isnan(res.pvalue[2]) and not res.significant[2]


# --------------------------------------------------------------------------- cross-checks



def test_per_pair_tests_match_scipy_one_pair_at_a_time(tied_scores, continuous_scores):
    for s in (tied_scores, continuous_scores):
        i, j = sg.pairs(s.shape[1])
        sign = sg.sign_test(s).pvalue
        rsum = sg.rank_sum_test(s).pvalue
        srank = sg.signed_rank_test(s, method="approx").pvalue
        tt = sg.paired_t_test(s).pvalue
        for k, (a, b) in enumerate(zip(i, j)):
            x, y = s[:, a], s[:, b]
            npos, nneg = int((x > y).sum()), int((x < y).sum())
            assert sign[k] == pytest.approx(st.binomtest(npos, npos + nneg).pvalue, rel=1e-12)
            assert rsum[k] == pytest.approx(
                st.mannwhitneyu(x, y, method="asymptotic", use_continuity=True).pvalue, rel=1e-10)
            assert srank[k] == pytest.approx(
                st.wilcoxon(x, y, zero_method="wilcox", correction=False, method="approx").pvalue, rel=1e-10)
            assert tt[k] == pytest.approx(st.ttest_rel(x, y).pvalue, rel=1e-10)


def test_signed_rank_exact_matches_scipy_without_ties():
    rng = np.random.default_rng(1)
    s = rng.normal(size=(12, 6))
    res = sg.signed_rank_test(s)
    for k, (a, b) in enumerate(zip(*sg.pairs(6))):
        assert res.pvalue[k] == pytest.approx(st.wilcoxon(s[:, a], s[:, b], method="exact").pvalue, rel=1e-12)


def test_binomial_table_matches_scipy():
    from scipy import stats

    table = sg.binomial_two_sided_table(30)
    for n in range(1, 31):
        for k in range(n + 1):
            p = table[n, min(k, n - k)]
            assert float(p) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12)


# ------------------------------------------------ issue 38: the sign test without its T × T table


def test_sign_test_p_values_are_the_tables_on_small_cases():
    from irscales.stats._pairwise import sign_pvalues
    table = sg.binomial_two_sided_table(60)
    n, m = np.array([(n, m) for n in range(61) for m in range(n // 2 + 1)]).T
    for alpha in (0.05, 0.01, 0.1, 0.25):  # 0.25 is a p-value itself (n = 3, m = 0): ≤ and < differ there
        a = Fraction(repr(alpha))
        for strict in (False, True):
            p, sig = sign_pvalues(n, m, a, strict)
            want = table[n, m]
            assert list(p) == [float(x) for x in want]
            assert list(sig) == [bool(x < a if strict else x <= a) for x in want], (alpha, strict)
    rng = np.random.default_rng(11)
    s = np.round(rng.random((40, 6)) + np.linspace(0, 0.2, 6), 1)  # many ties
    res = sg.sign_test(s)
    i, j = sg.pairs(6)
    npos = (s[:, i] > s[:, j]).sum(axis=0)
    nneg = (s[:, i] < s[:, j]).sum(axis=0)
    want = [float(table[a + b, min(a, b)]) for a, b in zip(npos, nneg)]
    assert list(res.pvalue) == want


def test_sign_test_beyond_the_exact_range_agrees_with_the_exact_sum():
    from irscales.stats._pairwise import _exact_two_sided, _sign_pvalue
    for n, m in [(1001, 450), (5000, 2400), (5000, 2500), (20000, 9800)]:
        p, _ = _sign_pvalue(n, m, Fraction(1, 20), False)
        assert p == pytest.approx(float(_exact_two_sided(n, m)), rel=1e-10)
    # α exactly at an attainable p: decided on the exact sum, both ways, and p < α (strict) is not p ≤ α
    exact = _exact_two_sided(2000, 955)
    assert _sign_pvalue(2000, 955, exact, False)[1]
    assert not _sign_pvalue(2000, 955, exact * (1 - Fraction(1, 10**12)), False)[1]
    assert not _sign_pvalue(2000, 955, exact, True)[1]
    assert _sign_pvalue(2000, 955, exact * (1 + Fraction(1, 10**12)), True)[1]


def test_sign_test_over_many_topics_needs_no_quadratic_memory():
    rng = np.random.default_rng(2)
    s = rng.random((20_000, 3)) + np.array([0, 0.005, 0.02])
    res = sg.sign_test(s)
    n1 = int((s[:, 1] > s[:, 0]).sum())
    assert res.pvalue[0] == pytest.approx(st.binomtest(n1, 20_000).pvalue, rel=1e-9)
