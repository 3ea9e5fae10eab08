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

from irscales.comparison import _pair_index, comparison_table, corrected
from irscales.comparison._render import markers
from irscales.stats._significance import pairs


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


def test_markers_and_pair_positions():
    assert markers(26)[:3] == ("a", "b", "c") and markers(26)[-1] == "z"
    assert markers(27)[:2] == ("1", "2") and markers(129)[-1] == "129"  # past 26: numbers, never "aa"
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
    assert r"AP\_x" in tex and r"\textsuperscript{abd}" in tex and r"a\textbar{}1" in tex
    assert r"\caption{Means" in tex and r"$(\varphi - 1)/(K - 1)$" in tex and r"\label{tab:irscales-comparison}" in tex
    back = pd.read_csv(pd.io.common.StringIO(csv))
    assert list(back["system"]) == ["a|1", "b", "c", "d"]  # one row per system, nothing else
    assert list(back.columns[:4]) == ["marker", "system", "AP_x", "AP_x better_than"]
    assert np.array_equal(back["AP_x"].to_numpy(float), t.frame.query("scale == 'original'")["mean"].to_numpy(float))
    assert "Letters" not in csv and "#" not in csv


@pytest.mark.parametrize("kw, msg", [
    (dict(test="anova"), "test must be one of"), (dict(correction="fdr"), "correction must be one of"),
    (dict(baseline="zz"), "baseline 'zz' is not one of the runs"),
])
def test_bad_options(kw, msg):
    with pytest.raises(ValueError, match=msg):
        comparison_table({"M": _scores()}, {}, ["a", "b", "c", "d"], **kw)


# ------------------------------------------------------------------- issue 38: the table you paste


def _many(S: int, T: int = 25, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.random((T, 1)) + rng.normal(0, 0.05, (T, S)) + np.linspace(0, 0.4, S), 0, None)


def test_past_26_systems_markers_are_numbers_with_ranges():
    s = _many(30)
    t = comparison_table({"M": s}, {}, [f"s{k}" for k in range(30)], correction="none", order="given")
    f = t.to_frame().set_index("system")
    assert f.loc["s0", "letter"] == "1" and f.loc["s29", "letter"] == "30"
    beats = f.loc["s29", "better_than"]
    assert beats.startswith("1,2,3,") and "aa" not in beats
    pairs_ = t.pairs_frame()
    want = sorted(int(x[1:]) + 1 for x in pairs_[(pairs_.better == "s29")][["system_a", "system_b"]].stack()
                  if x != "s29")
    assert [int(x) for x in beats.split(",")] == want
    assert "Numbers: significantly better than the systems with those numbers" in t.legend
    assert "1–" in str(t) and r"\textsuperscript{1--" in t.to_latex()


def test_the_pairs_frame_has_raw_and_adjusted_p_values_and_effect_sizes():
    s = _many(4)
    t = comparison_table({"M": s}, {"M": s ** 2}, list("abcd"), correction="holm")
    p = t.pairs_frame()
    assert len(p) == 2 * 6 and set(p.scale) == {"original", "interval"}
    for scale in ("original", "interval"):
        q = p[p.scale == scale]
        adj, _ = corrected(q["p_value"].to_numpy(), 0.05, "holm")
        np.testing.assert_array_equal(q["p_adjusted"].to_numpy(), adj)
        x = s if scale == "original" else s ** 2
        d = x[:, 0] - x[:, 1]
        row = q.iloc[0]
        assert (row.system_a, row.system_b) == ("a", "b")
        assert row.mean_difference == pytest.approx(d.mean(), rel=1e-12)
        assert row.effect_size_dz == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert row.p_value == pytest.approx(__import__("scipy").stats.ttest_rel(x[:, 0], x[:, 1]).pvalue, rel=1e-9)


def test_markdown_escapes_names_that_would_be_html_or_break_the_row():
    s = _many(4)
    t = comparison_table({"M": s}, {}, ["<h>", "a&b", "x|y", "two\nlines"])
    md = t.to_markdown()
    assert "&lt;h&gt;" in md and "a&amp;b" in md and r"x\|y" in md and "two<br>lines" in md
    assert "<h>" not in md
    body = [ln for ln in md.splitlines() if ln.startswith("| ")]
    assert len(body) == 1 + 4  # header + one line per system
    assert len(str(t).split("\n\n")[0].splitlines()) == 1 + 4


def test_the_csv_has_one_row_per_system_even_for_awkward_names():
    s = _many(4)
    names = ["#1", "a,b", 'q"t', "n\nl"]
    t = comparison_table({"M": s}, {"M": s}, names, baseline="#1")
    back = pd.read_csv(pd.io.common.StringIO(t.to_csv()))
    assert list(back["system"]) == names and len(back) == 4
    assert {"M baseline_mark", "M differs", "M (interval)"} <= set(back.columns)


def test_randomisation_test_in_the_table_says_how_it_was_run():
    s = _many(4, T=12)
    t = comparison_table({"M": s}, {}, list("abcd"), test="randomisation")
    assert "exact over all 2^T sign flips" in t.legend
    t = comparison_table({"M": _many(4, T=30)}, {}, list("abcd"), test="randomisation", permutations=500, seed=3)
    assert "500 random sign flips, seed 3" in t.legend
    assert (t.pairs_frame()["p_value"] >= 1 / 501).all()


def test_past_26_systems_rows_go_by_decreasing_mean_and_lists_become_ranges():
    s = _many(30)[:, np.random.default_rng(1).permutation(30)]  # runs in no particular order
    names = [f"s{k}" for k in range(30)]
    t = comparison_table({"M": s}, {"M": s ** 2}, names, correction="none")
    given = comparison_table({"M": s}, {"M": s ** 2}, names, correction="none", order="given")
    means = s.mean(axis=0)
    assert list(t.systems) == [names[k] for k in np.argsort(-means, kind="stable")]
    assert "Rows in decreasing order of the mean M (original scale)." in t.legend
    # the same decisions, only renumbered
    key = ["measure", "scale", "system_a", "system_b"]
    a = t.pairs_frame()
    a[["system_a", "system_b"]] = np.sort(a[["system_a", "system_b"]].to_numpy(), axis=1)
    b = given.pairs_frame()
    b[["system_a", "system_b"]] = np.sort(b[["system_a", "system_b"]].to_numpy(), axis=1)
    m = a.merge(b, on=key)
    assert len(m) == len(a) and (m.significant_x == m.significant_y).all() and (m.better_x == m.better_y).all()
    from irscales.comparison._render import _ranges
    top = t.to_frame().query("scale == 'original'").iloc[0]
    groups = _ranges(top.better_than)
    assert top.letter == "1" and len(groups) == 1 and groups[0].endswith("–30")  # beats everyone below it
    sorted_groups = sum(len(_ranges(x)) for x in t.frame.better_than)
    assert sorted_groups < sum(len(_ranges(x)) for x in given.frame.better_than)


def test_bad_order():
    with pytest.raises(ValueError, match="order must be one of"):
        comparison_table({"M": _scores()}, {}, ["a", "b", "c", "d"], order="best")


def test_the_figure_has_both_scales_per_measure_and_flags_in_red():
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    s = _scores(0)
    interval = np.vectorize(lambda x: Fraction(x).limit_denominator(10**6) ** 8, otypes=[object])(s)
    t = comparison_table({"M": s, "N": s}, {"M": interval}, ["a", "b", "c", "d"])
    fig = t.plot()
    assert [ax.get_title() for ax in fig.axes] == ["M", "M (interval)", "N"]
    labels = {x.get_text(): x.get_color() for x in fig.axes[0].get_yticklabels()}
    assert labels["b b ≠"] == "tab:red" and labels["a a"] != "tab:red"  # b: the flagged system (see above)
    ci = t.to_frame().set_index(["system", "measure", "scale"]).loc[("c", "M", "original"), "ci95"]
    x = s[:, 2]
    assert ci == pytest.approx(__import__("scipy").stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / len(x) ** 0.5)
    plt.close(fig)
