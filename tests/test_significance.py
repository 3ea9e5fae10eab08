"""Significance procedures of FFF21 §2.5/§7.3: a hand-worked case for each, scipy/statsmodels
cross-checks one pair at a time, exactness of ties, invariances, and the Tables 5–6 comparison."""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import numpy as np
import pandas as pd
import pytest

from irscales.exact import CommonScale
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales.stats import significance as sg


def pvals_and_sig(res):
    return res.pvalue, res.significant


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


Y3 = np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 9.0]])  # 2 topics x 3 systems


def test_anova1_hand_worked():
    # means 1.5, 3.5, 7; grand 4; SS_sys = 2(6.25 + 0.25 + 9) = 31; SS_err = 0.5 + 0.5 + 8 = 9
    res = sg.anova1_tukey(Y3)
    assert res.omnibus["ss_system"] == pytest.approx(31) and res.omnibus["ss_error"] == pytest.approx(9)
    assert res.omnibus["statistic"] == pytest.approx(15.5 / 3)
    assert res.omnibus["pvalue"] == pytest.approx(0.10672687103068279, rel=1e-9)
    # Tukey: se = sqrt(3/2); q(0,2) = 5.5/se = 4.49 < q_.95(3, 3) = 5.9096
    assert res.statistic[1] == pytest.approx(5.5 / math.sqrt(1.5))
    assert res.omnibus["q_critical"] == pytest.approx(5.909598453393468, rel=1e-6)
    assert not res.significant.any()


def test_anova2_hand_worked():
    # residuals ±0.5, ±0.5, ∓1 -> SS_err = 3, df_err = 2, MSE = 1.5; F_sys = 15.5/1.5
    res = sg.anova2_tukey(Y3)
    assert res.omnibus["ss_error"] == pytest.approx(3) and res.omnibus["mse"] == pytest.approx(1.5)
    assert res.omnibus["statistic"] == pytest.approx(31 / 3)
    assert res.omnibus["pvalue"] == pytest.approx(0.08823529411764705, rel=1e-9)
    assert res.statistic[1] == pytest.approx(5.5 / math.sqrt(0.75))  # 6.35 < q_.95(3, 2) = 8.33
    assert res.omnibus["q_critical"] == pytest.approx(8.330782645637044, rel=1e-6)
    assert not res.significant.any()


def test_anova2_matches_statsmodels_ols():
    smf = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.stats.anova import anova_lm
    rng = np.random.default_rng(5)
    y = rng.normal(size=(7, 5)) + np.arange(5) * 0.4 + rng.normal(size=(7, 1))
    df = pd.DataFrame({"y": y.ravel(), "topic": np.repeat(np.arange(7), 5), "system": np.tile(np.arange(5), 7)})
    table = anova_lm(smf.ols("y ~ C(topic) + C(system)", df).fit())
    res = sg.anova2_tukey(y)
    assert res.omnibus["statistic"] == pytest.approx(table.loc["C(system)", "F"], rel=1e-10)
    assert res.omnibus["topic_statistic"] == pytest.approx(table.loc["C(topic)", "F"], rel=1e-10)
    assert res.omnibus["mse"] == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-10)


def test_kruskal_wallis_hand_worked():
    # pooled ranks are the values 1..6; mean ranks 1.5, 3.5, 5.5; v = 6*7/12 = 3.5
    s = np.array([[1, 3, 5], [2, 4, 6]])
    res = sg.kruskal_wallis_tukey(s)
    assert res.omnibus["statistic"] == pytest.approx(2 * 8 / 3.5)
    assert res.omnibus["pvalue"] == pytest.approx(0.10170139230422684, rel=1e-9)
    assert res.statistic[1] == pytest.approx(4 / math.sqrt(3.5 / 2))  # 3.02 < q_.95(3, ∞) = 3.3145
    assert not res.significant.any()


def test_friedman_hand_worked():
    # three topics rank the systems identically: mean ranks 1, 2, 3; σ² = 1; χ² = 3*(1+0+1) = 6
    s = np.array([[1, 2, 3], [10, 20, 30], [0.1, 0.5, 0.9]])
    res = sg.friedman_tukey(s)
    assert res.omnibus["statistic"] == pytest.approx(6)
    assert res.omnibus["pvalue"] == pytest.approx(0.04978706836786395, rel=1e-9)
    # q(0,2) = 2/sqrt(1/3) = 3.46 > 3.3145 (significant); q(0,1) = q(1,2) = 1.73 (not)
    assert list(res.significant) == [False, True, False]
    assert res.statistic[1] == pytest.approx(2 * math.sqrt(3))
    # p-value of the range of k = 3 normal means (df = ∞), integrated independently:
    # P(Q > q) = 1 - k ∫ φ(z) [Φ(z) − Φ(z − q)]^(k−1) dz
    from scipy.integrate import quad
    q = 2 * math.sqrt(3)
    cdf = 3 * quad(lambda z: st.norm.pdf(z) * (st.norm.cdf(z) - st.norm.cdf(z - q)) ** 2, -12, 12)[0]
    assert res.pvalue[1] == pytest.approx(1 - cdf, rel=1e-6)


# --------------------------------------------------------------------------- cross-checks


@pytest.fixture(scope="module")
def tied_scores():
    rng = np.random.default_rng(2024)
    return rng.integers(0, 6, size=(25, 9)).astype(float)  # many ties and zero differences


@pytest.fixture(scope="module")
def continuous_scores():
    rng = np.random.default_rng(99)
    return rng.normal(size=(20, 7)) + np.linspace(0, 1.2, 7)


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


def test_omnibus_statistics_match_scipy(tied_scores):
    s = tied_scores
    assert sg.anova1_tukey(s).omnibus["pvalue"] == pytest.approx(st.f_oneway(*s.T).pvalue, rel=1e-10)
    assert sg.kruskal_wallis_tukey(s).omnibus["statistic"] == pytest.approx(st.kruskal(*s.T).statistic, rel=1e-10)
    assert sg.friedman_tukey(s).omnibus["statistic"] == pytest.approx(
        st.friedmanchisquare(*s.T).statistic, rel=1e-10)


def test_one_way_tukey_matches_statsmodels_and_scipy(continuous_scores):
    from statsmodels.stats.multicomp import pairwise_tukeyhsd
    s = continuous_scores
    t, n_sys = s.shape
    res = sg.anova1_tukey(s, pvalues=True)
    sm = pairwise_tukeyhsd(s.T.ravel(), np.repeat(np.arange(n_sys), t), alpha=0.05)
    np.testing.assert_array_equal(res.significant, sm.reject)
    np.testing.assert_allclose(res.pvalue, sm.pvalues, atol=2e-3)  # statsmodels' p-values are interpolated
    sp = st.tukey_hsd(*s.T)
    i, j = sg.pairs(n_sys)
    np.testing.assert_allclose(res.pvalue, sp.pvalue[i, j], rtol=1e-8, atol=1e-12)
    np.testing.assert_array_equal(res.significant, sp.pvalue[i, j] < 0.05)
    assert 0 < res.n_significant < len(i)  # the fixture is informative: some pairs each way


# --------------------------------------------------------------------------- exactness and invariances


def test_exact_fractions_decide_ties_floats_cannot():
    # Scores k/5 (as computed from P@5, say). |0.6-0.4| and |0.2-0.0| are both 1/5 exactly, but the
    # doubles differ by more than MATLAB's eps(x)+eps(y) tolerance; Fractions tie them.
    ex = np.array([[Fr(3, 5), Fr(2, 5)], [Fr(1, 5), Fr(0)], [Fr(1), Fr(4, 5)], [Fr(0), Fr(1, 5)]], dtype=object)
    res = sg.signed_rank_test(ex)
    # exact: d = 1/5, 1/5, 1/5, -1/5: four tied ranks 2.5; W- = 2.5; P(W <= 2.5) = 5/16
    assert res.statistic[0] == 7.5 and res.pvalue[0] == 2 * 5 / 16
    as_int = sg.signed_rank_test(np.array([[3, 2], [1, 0], [5, 4], [0, 1]]))
    assert as_int.pvalue[0] == res.pvalue[0]


def test_fraction_and_float_inputs_agree_when_floats_are_exact(tied_scores):
    s = tied_scores / 4  # quarters: exactly representable, differences exact too
    ex = np.vectorize(Fr, otypes=[object])(s)
    a, b = sg.significance_tests(s, pvalues=False), sg.significance_tests(ex, pvalues=False)
    for key in sg.TESTS:
        np.testing.assert_array_equal(a[key].significant, b[key].significant)
        np.testing.assert_allclose(a[key].statistic, b[key].statistic, rtol=1e-12, equal_nan=True)


def test_fraction_paths_scaled_integers_and_python_fractions_agree(monkeypatch):
    rng = np.random.default_rng(4)
    k = rng.integers(0, 31, size=(12, 6))
    ex = np.vectorize(lambda v: Fr(int(v), 30), otypes=[object])(k)
    ex[:, 5] = ex[:, 4] + Fr(1, 30)  # a constant difference: t = inf exactly
    scaled = sg.significance_tests(ex)
    assert sg._prepare(ex).scaled is not None
    monkeypatch.setattr(sg, "common_denominator",  # too large for int64: the Python-Fraction path
                        lambda values, headroom_bits=1: CommonScale(np.zeros(np.shape(values), dtype=object), 1))
    assert sg._prepare(ex).scaled is None
    slow = sg.significance_tests(ex)
    for key in sg.TESTS:
        np.testing.assert_array_equal(scaled[key].significant, slow[key].significant)
        np.testing.assert_array_equal(scaled[key].statistic, slow[key].statistic)
    assert scaled["ttest"].statistic[-1] == -np.inf  # pair (4, 5): d = -1/30 on every topic


def test_common_denominator_gives_up_on_overflow():
    big = np.array([[Fr(1, 2**40 + 15), Fr(1, 2**40 + 17)], [Fr(0), Fr(1)]], dtype=object)
    assert sg._prepare(big).scaled is None
    assert sg.sign_test(big).pvalue.shape == (1,)


@settings(max_examples=25, deadline=None)
@given(hs.integers(0, 2**32 - 1), hs.sampled_from(["cube", "exp", "log1p"]))
def test_ordinal_tests_invariant_under_increasing_transform(seed, kind):
    """Sign, rank-sum, Kruskal–Wallis and Friedman see only the order of the scores (FFF21 §2.5)."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 5, size=(8, 6)) / 4
    f = {"cube": lambda v: v ** 3, "exp": np.exp, "log1p": np.log1p}[kind]
    tests = ("sign", "ranksum", "kruskalwallis", "friedman")
    a = sg.significance_tests(s, tests=tests, pvalues=False)
    b = sg.significance_tests(f(s), tests=tests, pvalues=False)
    for key in tests:
        np.testing.assert_array_equal(a[key].significant, b[key].significant)
        np.testing.assert_allclose(a[key].statistic, b[key].statistic, rtol=1e-12)


@settings(max_examples=20, deadline=None)
@given(hs.integers(0, 2**32 - 1))
def test_decisions_do_not_depend_on_system_order(seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 4, size=(10, 5)).astype(float)
    perm = rng.permutation(5)
    names = [f"s{k}" for k in range(5)]
    a = sg.significance_tests(s, systems=names, pvalues=False)
    b = sg.significance_tests(s[:, perm], systems=[names[k] for k in perm], pvalues=False)
    for key in sg.TESTS:
        pa = {frozenset(p) for p in a[key].significant_pairs()}
        pb = {frozenset(p) for p in b[key].significant_pairs()}
        assert pa == pb, key


def test_affine_transform_changes_nothing():
    rng = np.random.default_rng(8)
    s = rng.normal(size=(15, 6)) + np.arange(6) * 0.3
    a = sg.significance_tests(s)
    b = sg.significance_tests(3 * s + 1)
    change = sg.compare_significance(a, b).to_frame()
    assert (change["s2ns"] == 0).all() and (change["ns2s"] == 0).all()
    assert change["sig"].sum() > 0


# --------------------------------------------------------------------------- Tables 5–6 comparison


def _fake(test: str, sig: list[bool]) -> sg.PairwiseTest:
    n = len(sig)
    return sg.PairwiseTest(test, 0.05, ("a", "b", "c", "d"), *sg.pairs(4), np.zeros(n), np.zeros(n),
                           np.array(sig), "x")


def test_compare_significance_counts():
    orig = sg.SignificanceResult({"ttest": _fake("ttest", [True, True, True, True, False, False])})
    rank = sg.SignificanceResult({"ttest": _fake("ttest", [True, False, True, True, True, True])})
    row = sg.compare_significance(orig, rank).to_frame().iloc[0]
    # Sig = 4; S2NS = 1 (pair 2); NS2S = 2 (pairs 5, 6); Δ% = 3/4
    assert (row["sig"], row["s2ns"], row["ns2s"]) == (4, 1, 2)
    assert row["s2ns_ratio"] == 0.25 and row["ns2s_ratio"] == 0.5 and row["delta"] == 0.75
    assert "75.00\\%" in sg.compare_significance(orig, rank).to_latex()


def test_significance_changes_and_grand_mean():
    rng = np.random.default_rng(21)
    s = rng.integers(0, 11, size=(20, 8)) / 10 + np.linspace(0, 0.3, 8)
    same = sg.significance_changes(s, 2 * s - 1)       # affine: nothing changes
    assert (same.frame["s2ns"] + same.frame["ns2s"] == 0).all()
    squashed = sg.significance_changes(s, s ** 4)      # order-preserving, not affine
    f = squashed.frame.set_index("test")
    for key in ("sign", "ranksum", "kruskalwallis", "friedman"):  # ordinal tests cannot change
        assert f.loc[key, "s2ns"] == 0 and f.loc[key, "ns2s"] == 0
    mean, sd = sg.grand_mean_delta([same, squashed])
    deltas = pd.concat([same.frame["delta"], squashed.frame["delta"]]).dropna()
    assert mean == pytest.approx(deltas.mean()) and sd == pytest.approx(deltas.std(ddof=1))


def test_compare_significance_rejects_mismatch():
    orig = sg.SignificanceResult({"ttest": _fake("ttest", [True] * 6)})
    other = sg.SignificanceResult({"sign": _fake("sign", [True] * 6)})
    with pytest.raises(ValueError, match="only one"):
        sg.compare_significance(orig, other)


def test_result_frames():
    res = sg.significance_tests(np.array([[1, 3, 5], [2, 4, 9], [0, 5, 7.0]]), systems=["A", "B", "C"])
    frame = res.to_frame()
    assert list(frame["test"]) == list(sg.TESTS)
    pf = res.pairs_frame()
    assert list(pf.columns[:2]) == ["system_a", "system_b"] and len(pf) == 3
    one = res["ttest"].to_frame()
    assert list(one["system_a"]) == ["A", "A", "B"]
    assert "system" in res["anova1"].to_latex()


def test_bad_input_messages():
    with pytest.raises(ValueError, match="matrix"):
        sg.sign_test(np.zeros(5))
    with pytest.raises(ValueError, match="at least 2 topics"):
        sg.sign_test(np.zeros((1, 5)))
    with pytest.raises(ValueError, match="NaN"):
        sg.paired_t_test(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="infinite"):
        sg.paired_t_test(np.array([[1.0, np.inf], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="3 system names given for 2"):
        sg.sign_test(np.zeros((3, 2)), systems=["a", "b", "c"])
    with pytest.raises(ValueError, match="alpha"):
        sg.sign_test(np.zeros((3, 2)), alpha=1.5)
    with pytest.raises(ValueError, match="unknown test"):
        sg.significance_tests(np.zeros((3, 2)), tests=("sign", "welch"))


# --------------------------------------------------------------------------- speed at TREC-8 scale


def test_all_eight_tests_run_at_trec8_scale():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 31, size=(50, 129)) / 30  # P@30-like scores: 129 systems, 50 topics
    res = sg.significance_tests(s)  # default: rank-test Tukey p-values computed, ANOVA ones skipped
    assert all(len(res[k].significant) == 8256 for k in sg.TESTS)
    # speed is measured in benchmarks/bench_significance.py (docs/benchmarks.md), not asserted here


def test_binomial_table_matches_scipy():
    from scipy import stats

    table = sg.binomial_two_sided_table(30)
    for n in range(1, 31):
        for k in range(n + 1):
            p = table[n, min(k, n - k)]
            assert float(p) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12)
