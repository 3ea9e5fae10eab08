"""The IPSO sign test (irscales.ipso._sign_test, MM23 §3) against scipy, the per-pair rule and
hand-worked cases; agreement categories (irscales.ipso.agreement)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from irscales import ipso
from irscales import data as collections
from irscales.ipso import Relation

EQ, NI, NS, NX = (int(r) for r in Relation)


@pytest.fixture(scope="module")
def small():
    """12 systems x 40 topics x 20 ranks of the simulated Robust-like preset."""
    col = collections.load_preset("sim-r04", depth=20, seed=3)
    return col.subset(systems=list(range(0, 110, 9))[:12], topics=list(range(40)))


@pytest.mark.parametrize("k, n", [(0, 0), (0, 5), (3, 10), (7, 10), (10, 10), (12, 40), (25, 40)])
def test_binomial_matches_scipy(k, n):
    want = 1.0 if n == 0 else stats.binomtest(k, n, 0.5).pvalue
    assert ipso.sign_test_pvalues([k], [n - k])[0][0] == pytest.approx(want, rel=1e-12)


def test_ipso_sign_test_hand_case():
    a = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, 0, 0]])
    b = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]])
    r = ipso.ipso_sign_test(a, b, 3)
    # topic 1: B adds a relevant doc → ni; 2: B moves it up → ni; 3: equal; 4: B behind, then ahead → **
    assert (r.ni, r.ns, r.equal, r.nonseparable) == (2, 0, 1, 1)
    assert r.pvalue == pytest.approx(0.5)


@pytest.mark.parametrize("x, y", [(0, 0), (3, 0), (81, 109), (5, 5), (0, 20), (117, 109), (14, 3)])
def test_sign_test_pvalues_against_binomial(x, y):
    p, sig = ipso.sign_test_pvalues([x], [y], alpha=0.05)
    if x + y:
        assert p[0] == pytest.approx(stats.binomtest(x, x + y).pvalue, rel=1e-9)
    assert bool(sig[0]) == (p[0] < 0.05)


def test_sign_test_decision_is_exact_at_alpha():
    # n = 1: p = 1; choose alpha equal to an exact dyadic p to test the strict inequality
    # 0 vs 3: p = 2/8 = 0.25 exactly; p < 0.25 must be False, p < 0.2500001 True
    assert not ipso.sign_test_pvalues([0], [3], alpha=0.25)[1][0]
    assert ipso.sign_test_pvalues([0], [3], alpha=0.2500001)[1][0]
    with pytest.raises(ValueError, match="alpha"):
        ipso.sign_test_pvalues([0], [3], alpha=1.5)
    with pytest.raises(ValueError, match=">= 0"):
        ipso.sign_test_pvalues([-1], [3])


def test_sign_test_pvalues_keep_shape_and_need_no_table():
    """Many topics, no table of every n up to the largest (it was O(n²) Fractions: 10^5 topics would not fit)."""
    x = np.array([[40_000, 50_000], [3, 0]])
    y = np.array([[60_000, 50_000], [0, 3]])
    p, sig = ipso.sign_test_pvalues(x, y)
    assert p.shape == sig.shape == (2, 2)
    assert p[0, 0] < 1e-100 and sig[0, 0] and p[0, 1] == pytest.approx(stats.binomtest(50_000, 100_000).pvalue)
    assert p[1, 0] == p[1, 1] == 0.25 and not sig[1].any()


def test_ipso_sign_tests_against_corroboration_loop(small):
    b = small.binary()
    r = ipso.pair_relations(b)
    for k in (5, 20):
        ip = ipso.ipso_sign_tests(r, k)
        for row in range(0, r.n_pairs, 5):
            i, j = r.first[row], r.second[row]
            ref = ipso.ipso_sign_test(b[i], b[j], k)  # B = j against A = i
            assert (ip.ni[row], ip.ns[row]) == (ref.ns, ref.ni)
            assert (ip.equal[row], ip.nonsep[row]) == (ref.equal, ref.nonseparable)
            assert ip.pvalue[row] == pytest.approx(ref.pvalue, rel=1e-12)


def test_topic_subset_of_sign_test(small):
    r = ipso.pair_relations(small.binary())
    sub = small.subset(topics=list(range(10)))
    r_sub = ipso.pair_relations(sub.binary())
    a = ipso.ipso_sign_tests(r, 10, topics=np.arange(10))
    c = ipso.ipso_sign_tests(r_sub, 10)
    assert np.array_equal(a.ni, c.ni) and np.array_equal(a.pvalue, c.pvalue)


def test_sign_test_one_sided_against_scipy_and_by_hand():
    assert ipso.sign_test_one_sided(3, 0) == Fraction(1, 8)      # P(X ≥ 3), X ~ B(3, 1/2)
    assert ipso.sign_test_one_sided(1, 2) == Fraction(4, 8)      # P(X ≥ 2) = (3 + 1) / 8
    assert float(ipso.sign_test_one_sided(117, 109)) == pytest.approx(
        stats.binomtest(117, 226, alternative="greater").pvalue)


def test_agreement_categories():
    cat = ipso.agreement([True, False, True, False], [True, False, False, True])
    assert [ipso.AGREEMENT[c] for c in cat] == ["Both: Yes", "Both: No", "Metric: Yes", "Metric: No"]
    with pytest.raises(ValueError, match="shapes"):
        ipso.agreement([True], [True, False])
