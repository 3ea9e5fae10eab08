"""Significance procedures of FFF21 §2.5/§7.3 run together (:mod:`irscales.stats._significance`) on
prepared scores (:mod:`irscales.stats._results`): exactness of ties, invariances, input checks, and
the Tables 5–6 comparison. Each procedure's own cases: tests/test_pairwise.py, tests/test_tukey.py."""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pandas as pd
import pytest

from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales.exact import CommonScale
from irscales.stats import _results as results
from irscales.stats import _significance as sg



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
    assert sg.prepare_scores(ex).scaled is not None
    real = results.common_denominator
    monkeypatch.setattr(results, "common_denominator",  # too large for int64: the Python-int path
                        lambda values, headroom_bits=1: CommonScale(real(values).ints.astype(object), 30))
    assert sg.prepare_scores(ex).scaled is None and sg.prepare_scores(ex).integers.dtype == object
    slow = sg.significance_tests(ex)
    for key in sg.TESTS:
        np.testing.assert_array_equal(scaled[key].significant, slow[key].significant)
        np.testing.assert_array_equal(scaled[key].statistic, slow[key].statistic)
    assert scaled["ttest"].statistic[-1] == -np.inf  # pair (4, 5): d = -1/30 on every topic


def test_common_denominator_gives_up_on_overflow():
    big = np.array([[Fr(1, 2**40 + 15), Fr(1, 2**40 + 17)], [Fr(0), Fr(1)]], dtype=object)
    assert sg.prepare_scores(big).scaled is None
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


def _same_results(a: sg.SignificanceResult, b: sg.SignificanceResult) -> None:
    for key in a.tests:
        np.testing.assert_array_equal(a[key].statistic, b[key].statistic, err_msg=key)
        np.testing.assert_array_equal(a[key].pvalue, b[key].pvalue, err_msg=key)
        np.testing.assert_array_equal(a[key].significant, b[key].significant, err_msg=key)


@settings(max_examples=30, deadline=None)
@given(hs.integers(0, 2**32 - 1), hs.integers(1, 2**70), hs.integers(-2**80, 2**80), hs.integers(1, 2**40),
       hs.sampled_from([10, 64, 1000]))
def test_exact_scores_give_bit_identical_statistics_under_every_positive_affine_map(seed, num, shift, den, bits):
    # φ and (φ − 1)/(K − 1) (issues 27, 28): interval scales admit positive affine maps, and every
    # statistic, p-value and decision must be the same float for both, at any magnitude
    rng = np.random.default_rng(seed)
    phi = np.vectorize(int, otypes=[object])(rng.integers(1, 2**20, size=(9, 4))) * (2 ** bits // 2**20 + 1)
    phi[:, 3] = phi[:, 2] + 7  # a constant difference
    a = sg.significance_tests(phi, pvalues=True)
    mapped = np.vectorize(lambda x: Fr(num, den) * x + shift, otypes=[object])(phi)
    _same_results(a, sg.significance_tests(mapped, pvalues=True))
    assert a["ttest"].statistic[-1] == -np.inf


def test_ranked_values_near_two_to_the_thousand_do_not_overflow():
    # issue 27 item 2: φ of RBP_p05 at depth 1000 is ~2^1000; its floats squared overflowed and the t
    # test said p = 1. The same differences on a small scale give the reference p-value.
    rng = np.random.default_rng(3)
    small = rng.integers(0, 1000, size=(50, 2))
    small[:, 1] += 400
    huge = small.astype(object) * 2**990 + 2**999
    with np.errstate(over="raise"):  # no overflow anywhere
        got = sg.significance_tests(huge, pvalues=True)
    ref = sg.significance_tests(small, pvalues=True)
    _same_results(got, ref)
    assert got["ttest"].pvalue[0] < 1e-6 and got["ttest"].significant[0]


def test_integers_beyond_two_to_the_53_stay_apart():
    # distinct int64 values that share a double: the tests still see them as different
    base = 2**60
    x = np.array([[base, base + 1], [base + 2, base + 3], [base + 4, base + 5]], dtype=np.int64)
    assert float(x[0, 0]) == float(x[0, 1])
    res = sg.significance_tests(x, tests=("sign", "ttest"))
    assert res["sign"].statistic[0] == 0  # system 1 above system 0 on every topic: n₊ = 0
    assert res["ttest"].statistic[0] == -np.inf  # d = −1 exactly on every topic


# --------------------------------------------------------------------------- Tables 5–6 comparison


def _fake(test: str, sig: list[bool]) -> sg.PairwiseTest:
    n = len(sig)
    first, second = sg.pairs(4)
    return sg.PairwiseTest(test=test, alpha=0.05, systems=("a", "b", "c", "d"), first=first, second=second,
                           statistic=np.zeros(n), pvalue=np.zeros(n), significant=np.array(sig), statistic_name="x")


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


@settings(max_examples=60, deadline=None, derandomize=True)
@given(hs.lists(hs.integers(-2**400, 2**400), min_size=6, max_size=6), hs.integers(1, 10**30))
def test_big_ints_and_their_fractions_read_alike(xs, den):
    """Python ints beyond int64 (φ at depth 100 and beyond) are read as integers, without a Fraction per entry
    (issue 49): the unit image is the correctly rounded float of the Fraction (x − min)/(max − min), the same
    bits as for the same values given as Fractions, and for those values over any common denominator."""
    a = np.array(xs, dtype=object).reshape(3, 2)
    as_fr = np.vectorize(Fr, otypes=[object])(a)
    over = np.vectorize(lambda x: Fr(x, den), otypes=[object])(a)
    got = results.unit_image(a)
    lo, hi = min(xs), max(xs)
    want = [0.0] * 6 if lo == hi else [float(Fr(x - lo, hi - lo)) for x in xs]
    assert got.ravel().tolist() == want
    assert results.unit_image(as_fr).tobytes() == got.tobytes() == results.unit_image(over).tobytes()
    p, q = results.prepare_scores(a), results.prepare_scores(as_fr)
    assert p.values.tobytes() == q.values.tobytes() == got.tobytes() == results.prepare_scores(over).values.tobytes()
    assert np.array_equal(p.codes, q.codes)
    assert p.integers.tolist() == q.integers.tolist() and all(type(x) is int for x in p.exact.ravel().tolist())
