"""The all-systems procedures of FFF21 §7.3 (:mod:`irscales.stats._tukey`): hand-worked ANOVA,
Kruskal–Wallis and Friedman cases, scipy/statsmodels cross-checks, and MATLAB's studentized-range
critical value."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from irscales.stats import _significance as sg

from irscales.stats._tukey import as190_cdf, studentized_range_critical


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


# ------------------------------------------------------- MATLAB's studentized-range critical value



@pytest.mark.parametrize("q, k, df", [(3.5, 3, 10), (4.6, 10, 60), (5.0, 20, 120), (3.0, 4, 5)])
def test_as190_cdf_agrees_with_scipy_for_df_up_to_120(q, k, df):
    # AS 190 integrates over the chi-square distribution of the variance up to df = 120
    assert abs(as190_cdf(q, df, k) - st.studentized_range.cdf(q, k, df)) < 2e-5


def test_as190_cdf_treats_df_above_120_as_infinite():
    # the convention behind FFF21's Tukey rows: MATLAB's stdrcdf drops the chi-square integral above df 120
    assert as190_cdf(6.24, 6321, 129) == as190_cdf(6.24, math.inf, 129)
    assert abs(as190_cdf(6.24, math.inf, 129) - st.studentized_range.cdf(6.24, 129, math.inf)) < 1e-5
    assert abs(as190_cdf(6.24, 6321, 129) - st.studentized_range.cdf(6.24, 129, 6321)) > 1e-4


def test_matlab_critical_value_for_fff21_t08():
    exact = studentized_range_critical(0.05, 129, 129 * 49)
    matlab = studentized_range_critical(0.05, 129, 129 * 49, "matlab")
    assert exact == pytest.approx(st.studentized_range.ppf(0.95, 129, 129 * 49))
    # the df = ∞ quantile, found to the stopping rule of MATLAB's stdrinv (|cdf − 0.95| < 1e-5·0.95)
    assert matlab == pytest.approx(st.studentized_range.ppf(0.95, 129, math.inf), rel=1e-5)
    assert -0.07 < (matlab / exact - 1) * 100 < -0.05  # "about 0.05–0.1% smaller" (issue 15)
    assert studentized_range_critical(0.05, 129, 49 * 128, "matlab") == matlab  # two-way df: the same value


@pytest.mark.parametrize("k, df", [(3, 10), (5, 30), (10, 60), (30, 100)])
def test_matlab_critical_value_is_accurate_for_small_df(k, df):
    assert studentized_range_critical(0.05, k, df, "matlab") == pytest.approx(
        studentized_range_critical(0.05, k, df), rel=1e-4)


def test_critical_value_errors():
    with pytest.raises(ValueError, match="convention must be one of"):
        studentized_range_critical(0.05, 3, 10, "spss")
    with pytest.raises(ValueError, match="k ≥ 2 groups"):
        studentized_range_critical(0.05, 1, 10)
    with pytest.raises(NotImplementedError, match="alpha ≥ 0.01"):
        studentized_range_critical(0.001, 3, 10, "matlab")


# ------------------------------------------- issue 38: all pairs' p-values at once (studentized_range_sf)


@pytest.mark.parametrize("k, df", [(2, 5), (3, 20), (10, 200), (10, 1e6), (40, 1131), (129, 6272)])
def test_studentized_range_sf_is_scipys(k, df):
    from irscales.stats._tukey import studentized_range_sf
    q = np.array([0.0, 0.3, 1.7, 2.9, 3.6, 4.4, 5.2, 6.1, 7.3, 9.0, np.nan, np.inf])
    got = studentized_range_sf(q, k, df)
    want = st.studentized_range.sf(np.nan_to_num(q, posinf=1e300), k, df)
    assert np.isnan(got[-2]) and got[-1] == 0.0
    np.testing.assert_allclose(got[:-2], want[:-2], rtol=0, atol=1e-9)


def test_tukey_p_values_and_decisions_are_those_of_scipy_per_pair():
    rng = np.random.default_rng(38)
    s = rng.random((30, 14)) + np.linspace(0, 0.5, 14)
    res = sg.anova2_tukey(s, pvalues=True)
    want = st.studentized_range.sf(res.statistic, 14, res.omnibus["df"][1])
    np.testing.assert_allclose(res.pvalue, want, rtol=0, atol=1e-9)
    crit = studentized_range_critical(0.05, 14, res.omnibus["df"][1])
    np.testing.assert_array_equal(res.significant, res.statistic > crit)
    assert ((res.pvalue <= 0.05) == res.significant)[np.abs(res.statistic - crit) > 1e-3].all()
