"""The comparison table of many runs (:mod:`irscales.comparison`): corrections against statsmodels,
letters, † / ‡, the ≠ flag, exactness on the interval scale, and its renderings."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from statsmodels.stats.multitest import multipletests

from irscales.comparison import _letters, _pair_index, comparison_table, corrected
from irscales.stats.significance import pairs


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.floats(0, 1), min_size=1, max_size=40), hs.sampled_from([0.01, 0.05, 0.1]),
       hs.sampled_from(["holm", "bonferroni"]))
def test_corrections_agree_with_statsmodels(p, alpha, method):
    p = np.array(p)
    adj, sig = corrected(p, alpha, method)
    rej, ref, _, _ = multipletests(p, alpha=alpha, method=method)
    np.testing.assert_allclose(adj, ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(sig, adj <= alpha)
    # statsmodels decides on unrounded products; both agree wherever p·m is not exactly at α
    clear = np.abs(ref - alpha) > 1e-12
    np.testing.assert_array_equal(sig[clear], rej[clear])


def test_undefined_p_values_are_not_counted_in_the_family():
    adj, sig = corrected(np.array([0.01, np.nan, 0.02]), 0.05, "bonferroni")
    assert np.isnan(adj[1]) and not sig[1] and adj[0] == 0.02 and adj[2] == 0.04


def test_letters_and_pair_positions():
    assert _letters(28)[:3] == ("a", "b", "c") and _letters(28)[25:] == ("z", "aa", "ab")
    i, j = pairs(7)
    for k, (a, b) in enumerate(zip(i, j)):
        assert _pair_index(a, b, 7) == k == _pair_index(b, a, 7)


def _scores(seed=0, T=30):
    rng = np.random.default_rng(seed)
    base = rng.random((T, 1))
    # c clearly above a and b; d ties a in distribution
    return np.clip(base + rng.normal(0, 0.05, (T, 4)) + np.array([0.0, 0.02, 0.3, 0.0]), 0, None)


def test_letters_say_which_systems_a_system_beats():
    s = _scores()
    t = comparison_table({"M": s}, {"M": None}, ["a1", "b1", "c1", "d1"])
    f = t.to_frame().set_index("system")
    assert f.loc["c1", "better_than"] == "abd"
    assert f.loc["a1", "better_than"] == "" and not f["differs"].any()
    assert "M: no interval-scaled version here" in t.legend


def test_interval_scale_conclusions_that_differ_are_flagged():
    s = _scores(0)
    # an order-preserving but far from affine transform: here b's win over a is lost on the other scale
    interval = np.vectorize(lambda x: Fraction(x).limit_denominator(10**6) ** 8, otypes=[object])(s)
    t = comparison_table({"M": s}, {"M": interval}, ["a", "b", "c", "d"])
    f = t.to_frame()
    o = f[f.scale == "original"].set_index("system")
    r = f[f.scale == "interval"].set_index("system")
    want = o["better_than"] != r["better_than"]
    assert list(want[want].index) == ["b"]
    assert (o["differs"] == want).all() and (r["differs"] == want).all()
    assert "≠" in str(t) and " ≠" in t.to_markdown() and r"$\neq$" in t.to_latex()


def test_the_interval_scale_gives_the_same_table_for_phi_and_its_normalisation():
    # issue 28: (φ − 1)/(K − 1) is a positive affine map of φ: identical decisions, markers and flags
    rng = np.random.default_rng(7)
    K = 2**60 + 3
    phi = rng.integers(1, 2**40, size=(25, 5)).astype(object) * 2**20 + np.array([0, 3, 9, 1, 2]) * 2**56
    norm = np.vectorize(lambda x: Fraction(x - 1, K - 1), otypes=[object])(phi)
    rel = rng.integers(0, 2, size=(5, 25, 10))
    a = comparison_table({"M": phi}, {"M": phi}, list("vwxyz"), baseline="v", rel=rel, depth=10)
    b = comparison_table({"M": phi}, {"M": norm}, list("vwxyz"), baseline="v", rel=rel, depth=10)
    fa, fb = a.to_frame(), b.to_frame()
    for col in ("better_than", "baseline_mark", "differs"):
        assert list(fa[col]) == list(fb[col])
    assert not fb["differs"].any()
    pa, pb = a.pairs, b.pairs
    np.testing.assert_array_equal(pa["p_adjusted"], pb["p_adjusted"])


def test_baseline_marks_and_the_ipso_corroboration():
    T, N = 40, 10
    rng = np.random.default_rng(3)
    rel = rng.integers(0, 2, size=(3, T, N))
    rel[1] = rel[0]
    rel[1][:, 0] = 1  # b: a's runs with a relevant first document, never worse, often better (IPSO)
    rel[2] = rel[0][:, ::-1]
    from irscales.measures import AP
    s = AP()(rel, rb=np.full((1, T), 5)).T
    t = comparison_table({"AP": s}, {}, ["a", "b", "c"], baseline="a", rel=rel, depth=N, test="wilcoxon")
    f = t.to_frame().set_index("system")
    assert f.loc["b", "baseline_mark"] == "†‡" and f.loc["a", "baseline_mark"] == ""
    assert "‡: and the IPSO sign test agrees" in t.legend and "comparisons with the baseline a" in t.legend
    assert set(t.pairs.system_a) == {"a"}  # the family: the baseline's pairs only


def test_tukey_needs_no_correction_and_says_so():
    t = comparison_table({"M": _scores()}, {}, ["a", "b", "c", "d"], test="tukey")
    assert "Tukey's HSD" in t.legend and "correction" not in t.legend
    assert t.to_frame().set_index("system").loc["c", "better_than"] == "abd"


def test_renderings_carry_the_marks_and_the_legend():
    s = _scores()
    t = comparison_table({"AP_x": s}, {"AP_x": s ** 2}, ["a|1", "b", "c", "d"])
    md, tex, csv = t.to_markdown(), t.to_latex(), t.to_csv()
    assert "| a | a\\|1 |" in md and "<sup>abd</sup>" in md and "Letters:" in md
    assert r"AP\_x (interval)" in tex and r"$^{abd}$" in tex and r"a\textbar{}1" in tex and r"\caption{Means" in tex
    back = pd.read_csv(pd.io.common.StringIO(csv), comment="#", keep_default_na=False)
    assert list(back.columns) == ["system", "letter", "measure", "scale", "mean", "better_than", "baseline_mark",
                                  "differs"]
    assert np.array_equal(back["mean"].to_numpy(float), t.frame["mean"].to_numpy(float))
    assert "# Letters" not in csv and csv.count("\n# ") == len(t.legend.splitlines())


@pytest.mark.parametrize("kw, msg", [
    (dict(test="anova"), "test must be one of"), (dict(correction="fdr"), "correction must be one of"),
    (dict(baseline="zz"), "baseline 'zz' is not one of the runs"),
])
def test_bad_options(kw, msg):
    with pytest.raises(ValueError, match=msg):
        comparison_table({"M": _scores()}, {}, ["a", "b", "c", "d"], **kw)
