"""The sampling designs of RQ1–RQ3 (Fer17 §4.1, §5.1, §6.1; irscales.papers.fer17.sampling): hand-computed
cases, cross-checks against scipy and brute force, properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales.stats import _anova as anova
from irscales.papers.fer17 import sampling


# --------------------------------------------------------------------------- sampling primitives


def test_draw_samples_distinct_and_seeded():
    a = sampling.draw_samples(np.random.default_rng(7), 30, 10, 50)
    b = sampling.draw_samples(np.random.default_rng(7), 30, 10, 50)
    assert a.shape == (50, 10) and np.array_equal(a, b)
    assert all(len(set(r)) == 10 for r in a) and a.min() >= 0 and a.max() < 30
    with pytest.raises(ValueError, match="cannot draw 11 distinct items out of 10"):
        sampling.draw_samples(np.random.default_rng(0), 10, 11, 3)
    with pytest.raises(TypeError, match="Generator"):
        sampling.draw_samples(np.random.RandomState(0), 10, 2, 3)


def test_draw_samples_uniform_inclusion():
    # each item is in a sample of 3 out of 6 with probability 1/2
    a = sampling.draw_samples(np.random.default_rng(11), 6, 3, 20_000)
    freq = np.bincount(a.ravel(), minlength=6) / 20_000
    np.testing.assert_allclose(freq, 0.5, atol=0.02)


def test_integer_measures_tie_exactly_where_float_sums_do_not():
    # two systems whose P@10 sums are exactly equal (0.1+0.2+0.3 = 0+0.3+0.3 = 0.6) but whose
    # float sums differ in the last bit: the ranking key must tie them, as the exact Fractions do
    s = np.array([[0.1, 0.0], [0.2, 0.3], [0.3, 0.3]])
    assert s[:, 0].sum() != s[:, 1].sum()  # the float trap this guards against
    stack = np.stack([s, s])
    tidx, sidx = np.array([[0, 1, 2]]), np.array([[0, 1]])
    keys = sampling.ranking_keys(stack, ["P@10", "AP"], tidx, sidx)
    assert keys[0, 0, 0] == keys[0, 0, 1] == 6
    assert keys[1, 0, 0] != keys[1, 0, 1]  # plain floats are compared as given
    with pytest.raises(ValueError, match="not integers"):
        sampling.ranking_keys(stack + 0.01, ["P@10", "AP"], tidx, sidx)


def test_pair_correlations_against_scipy_and_brute_force_tau_ap():
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 3, size=(3, 4, 4)).astype(float)  # ties on purpose
    labels, tau, tap = sampling.pair_correlations(keys, ["A", "B", "C"])
    assert labels == ["A vs B", "A vs C", "B vs C"]
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        for h in range(4):
            x, y = keys[i, h], keys[j, h]
            want = st.kendalltau(x, y).statistic
            if np.isnan(want):
                assert np.isnan(tau[p, h])
            else:
                assert tau[p, h] == pytest.approx(want)
            assert tap[p, h] == pytest.approx(brute_tau_ap_average(x, y))


def brute_tau_ap_average(ref, oth):
    """τ_AP averaged over all tie-breakings of both rankings, by enumeration (Yilmaz et al. 2008)."""
    s = len(ref)
    vals = []
    for pr in itertools.permutations(range(s)):
        r = np.lexsort((np.array(pr), ref))  # ascending, ties by pr
        rank_r = np.empty(s, int)
        rank_r[r] = np.arange(s)
        if any(ref[a] < ref[b] and rank_r[a] > rank_r[b] for a in range(s) for b in range(s)):
            continue
        for po in itertools.permutations(range(s)):
            order = sorted(range(s), key=lambda k: (-oth[k], po[k]))
            c = 0.0
            for i in range(1, s):
                c += sum(rank_r[order[j]] > rank_r[order[i]] for j in range(i)) / i
            vals.append(2 / (s - 1) * c - 1)
    return float(np.mean(vals))


# --------------------------------------------------------------------------- designs



def test_correlation_design_matches_a_direct_recomputation(random_scores):
    scores = random_scores()
    df = sampling.correlation_design(scores, np.random.default_rng(42), topic_sizes=(3, 5),
                                     system_sizes=(4, 9), n_samples=6, progress=False)
    assert len(df) == 3 * 2 * 2 * 6 and set(df.variant) == {"allQ"}
    # replay the generator: per cell, topics then systems
    rng = np.random.default_rng(42)
    names = list(scores)
    for t, s in [(3, 4), (3, 9), (5, 4), (5, 9)]:
        tidx = sampling.draw_samples(rng, 12, t, 6)
        sidx = sampling.draw_samples(rng, 15, s, 6)
        cell = df[(df.topics == t) & (df.systems == s)]
        for h in range(6):
            # rounding to 12 decimals makes exactly equal P@10 means tie, as they must (plain float
            # means split some of them: the reason the design sums integers)
            means = {n: scores[n][np.ix_(tidx[h], sidx[h])].mean(0).round(12) for n in names}
            for a, b in sampling.measure_pairs(names):
                row = cell[(cell.subject == h) & (cell.pair == f"{a} vs {b}")]
                assert row.tau.item() == pytest.approx(st.kendalltau(means[a], means[b]).statistic)
                assert np.isfinite(row.tau_ap.item())


def test_correlation_design_is_deterministic_and_feeds_the_anova(random_scores):
    scores = random_scores()
    kw = dict(topic_sizes=(3, 6), system_sizes=(5, 10), n_samples=5, progress=False)
    d1 = sampling.correlation_design(scores, np.random.default_rng(1), **kw)
    d2 = sampling.correlation_design(scores, np.random.default_rng(1), **kw)
    pd.testing.assert_frame_equal(d1, d2)
    tab = anova.balanced_anova(d1, "tau", anova.CROSSED_TERMS)
    assert tab.loc["subject", "DF"] == 4 and tab.loc["pair", "DF"] == 2
    assert tab.loc["topics", "DF"] == 1 and tab.loc["systems", "DF"] == 1
    assert tab.loc["Total", "DF"] == len(d1) - 1


def test_no1q_removes_the_lowest_map_quartile():
    # RBP agrees with AP on the top 6 systems and reverses the bottom 2 (the first quartile of 8):
    # allQ has discordant pairs, no1Q none
    S = 8
    ap = np.tile(np.arange(S, dtype=float), (4, 1)) / 10
    rbp = ap.copy()
    rbp[:, [0, 1]] = rbp[:, [1, 0]]
    df = sampling.correlation_design({"AP": ap, "RBP": rbp, "nDCG": ap}, np.random.default_rng(0),
                                     topic_sizes=(4,), system_sizes=(8,), n_samples=3, no1q=True, progress=False)
    allq, no1q = df[df.variant == "allQ"], df[df.variant == "no1Q"]
    with_rbp = allq.pair.astype(str).str.contains("RBP")
    assert (allq.tau[with_rbp] < 1).all() and (allq.tau[~with_rbp] == 1).all()
    assert (no1q.tau == 1).all() and (no1q.tau_ap == 1).all()
    # allQ curve (1, x, x) vs the flat no1Q curve (1, 1, 1): centred difference has RMSE > 0
    x = allq[with_rbp].tau.mean()
    tab = sampling.rq2_table(df)
    assert tab.loc[(4, 8), "RMSE"] == pytest.approx(np.sqrt(((1 - x) * 2 / 3) ** 2 / 3 + 2 * ((1 - x) / 3) ** 2 / 3))


def test_design_errors(random_scores):
    scores = random_scores()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="topic sizes \\[20\\]"):
        sampling.correlation_design(scores, rng, topic_sizes=(20,), system_sizes=(5,), n_samples=2)
    with pytest.raises(ValueError, match="'AP' must be a measure"):
        sampling.correlation_design({"P@10": scores["P@10"], "RBP": scores["RBP"]}, rng, (3,), (5,), 2, no1q=True)
    bad = dict(scores, RBP=np.full((12, 15), np.nan))
    with pytest.raises(ValueError, match="RBP"):
        sampling.correlation_design(bad, rng, (3,), (5,), 2)
    with pytest.raises(ValueError, match="same shape"):
        sampling.correlation_design(dict(scores, RBP=np.zeros((3, 3))), rng, (3,), (5,), 2)


def test_rq3_design_same_systems_on_every_topic_set(random_scores):
    s1 = random_scores(T=10, S=30, seed=1)
    s2 = random_scores(T=8, S=30, seed=2)
    colls = {"A1": ("corpA", s1), "A2": ("corpA", s1), "B1": ("corpB", s2), "B2": ("corpB", s2)}
    df = sampling.rq3_design(colls, np.random.default_rng(3), n_systems=12, n_samples=5, progress=False)
    assert len(df) == 4 * 3 * 5
    # identical topic sets on the same system samples give identical correlations
    a1 = df[df.topic_set == "A1"].tau.to_numpy()
    a2 = df[df.topic_set == "A2"].tau.to_numpy()
    np.testing.assert_array_equal(a1, a2)
    tab = anova.balanced_anova(df, "tau", anova.NESTED_TERMS)
    assert tab.loc["corpus", "DF"] == 1 and tab.loc["topic_set(corpus)", "DF"] == 2
    with pytest.raises(ValueError, match="same systems"):
        sampling.rq3_design({"A": ("c", s1), "B": ("c", random_scores(S=20))}, np.random.default_rng(0), 5, 2)


def test_romp_comparison_hand_cases():
    idx = ["p1", "p2", "p3", "p4"]
    x = pd.Series([0.9, 0.8, 0.7, 0.6], index=idx)
    same = sampling.romp_comparison(x, x - 0.1)  # translated curve: same RoMP, RMSE 0
    assert same == pytest.approx({"tauCorr": 1.0, "apCorr": 1.0, "swaps": 0, "RMSE": 0.0})
    swap = sampling.romp_comparison(x, pd.Series([0.8, 0.9, 0.7, 0.6], index=idx))
    # one discordant pair of 6: τ = (5 − 1)/6; τ_AP: C = (0, 2, 3) → 2/3 (0 + 1 + 1) − 1 = 1/3
    assert swap["tauCorr"] == pytest.approx(4 / 6)
    assert swap["apCorr"] == pytest.approx(1 / 3)
    assert swap["RMSE"] == pytest.approx(math.sqrt(2 * 0.1 ** 2 / 4))
    assert swap["swaps"] == 1


def test_romp_comparison_breaks_ties_by_order_as_fer17():
    # Four measure pairs a, b, c, d. RoMP x: a > b > c > d. y ties b and c (like Table 4's τ_AP tie
    # at 0.8125): y = (0.2, 0.3, 0.3, 0.1). By order of appearance b stays above c, so y's RoMP is
    # b, c, a, d: discordant pairs (a,b) and (a,c) -> swaps = 2, tauCorr = 1 − 2·2/6 = 1/3;
    # apCorr (x reference), positions of y: C(2) = 1, C(3) = 0, C(4) = 3 -> 2/3 (1 + 0 + 1) − 1 = 1/3.
    # Averaged ties instead: τ_b = (3 − 2)/sqrt(6·5) = 1/√30 and τ_AP = (1/3 + (−1/3))/2 = 0.
    idx = ["a", "b", "c", "d"]
    x = pd.Series([0.4, 0.3, 0.2, 0.1], index=idx)
    y = pd.Series([0.2, 0.3, 0.3, 0.1], index=idx)
    order = sampling.romp_comparison(x, y)
    assert order["tauCorr"] == pytest.approx(1 / 3) and order["apCorr"] == pytest.approx(1 / 3)
    assert order["swaps"] == 2
    avg = sampling.romp_comparison(x, y, ties="average")
    assert avg["tauCorr"] == pytest.approx(1 / math.sqrt(30)) and avg["apCorr"] == pytest.approx(0.0, abs=1e-12)
    assert avg["RMSE"] == order["RMSE"]
    # the tie in the reference RoMP: y as reference, b above c; x's positions: C = 0, 1, 3 ->
    # 2/3 (0 + 1/2 + 1) − 1 = 0 (averaged: −1/6)
    assert sampling.romp_comparison(y, x)["apCorr"] == pytest.approx(0.0, abs=1e-12)
    assert sampling.romp_comparison(y, x, ties="average")["apCorr"] == pytest.approx(-1 / 6)
    with pytest.raises(ValueError, match="ties must be"):
        sampling.romp_comparison(x, y, ties="random")


def test_pair_table_layout():
    eff = pd.Series({"AP vs RBP": 0.7, "AP vs ERR": 0.5, "RBP vs ERR": 0.6})
    t = sampling.pair_table(eff, ["AP", "RBP", "ERR"])
    assert t.loc["AP", "RBP"] == 0.7 and t.loc["RBP", "ERR"] == 0.6 and t.loc["AP", "AP"] == 1.0
    assert np.isnan(t.loc["ERR", "AP"])


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.lists(hs.integers(0, 10), min_size=5, max_size=5), min_size=1, max_size=6))
def test_p10_ranking_keys_order_like_exact_fraction_means(hits):
    # P@10 = hits/10 per topic: the keys must order (and tie) systems exactly as Fraction means do
    from fractions import Fraction

    h = np.array(hits)                      # (T, 5 systems)
    s = h / 10
    keys = sampling.ranking_keys(np.stack([s, s]), ["P@10", "AP"], np.arange(len(h))[None], np.arange(5)[None])[0, 0]
    exact = [sum(Fraction(int(x), 10) for x in h[:, j]) / len(h) for j in range(5)]
    for a in range(5):
        for b in range(5):
            assert (keys[a] < keys[b]) == (exact[a] < exact[b])
            assert (keys[a] == keys[b]) == (exact[a] == exact[b])
