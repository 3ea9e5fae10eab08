"""Fer17 measures (§3.3), KDE/KL validation (§3.4) and the sampling designs of RQ1–RQ3 (§4.1, §5.1,
§6.1): hand-computed cases, cross-checks against scipy and brute force, properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales.stats import anova
from irscales.papers import fer17
from irscales.stats import sampling
from irscales.data.collection import Collection


# --------------------------------------------------------------------------- fixtures built in code


def tiny_collection() -> Collection:
    """2 systems x 2 topics, depth 20. Topic 'b1' is on a binary track, 'g1' on a graded one."""
    N = 20
    rel = np.zeros((2, 2, N), dtype=np.int8)
    rel[0, 0, [0, 2]] = 1          # s0 on b1: relevant at ranks 1 and 3
    rel[1, 0, [1]] = 1             # s1 on b1: relevant at rank 2
    rel[0, 1, [0]] = 2             # s0 on g1: highly relevant at 1, relevant at 12
    rel[0, 1, [11]] = 1
    rel[1, 1, [1, 2]] = 1          # s1 on g1: relevant at 2 and 3
    judgments = np.array([[10, 4, 0],    # b1: RB = 4
                          [10, 2, 1]])   # g1: RB = 3, one highly relevant
    return Collection(rel=rel, judgments=judgments, run_lengths=np.full((2, 2), N),
                      topics=("b1", "g1"), systems=("s0", "s1"), provenance="simulated: hand-built",
                      max_grade=2, topic_labels={"track": ("TB", "TG"), "corpus": ("c1", "c2")})


def jk10(i: int) -> float:  # Järvelin–Kekäläinen log10 discount, 1-based rank
    return 1.0 if i < 10 else 1.0 / math.log10(i)


def test_fer17_measures_hand_computed():
    sc = fer17.score_matrices(tiny_collection())
    assert list(sc) == list(fer17.MEASURE_NAMES)
    assert all(v.shape == (2, 2) for v in sc.values())  # (topics, systems)
    # AP: s0 on b1 = (1/1 + 2/3)/4; s1 on g1 = (1/2 + 2/3)/3
    assert sc["AP"][0, 0] == pytest.approx((1 + 2 / 3) / 4)
    assert sc["AP"][1, 1] == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert sc["P@10"][0, 0] == pytest.approx(0.2) and sc["P@10"][1, 0] == pytest.approx(0.1)
    # R-prec: s0 on g1, RB = 3: one relevant in the top 3
    assert sc["R-prec"][1, 0] == pytest.approx(1 / 3)
    assert sc["RBP"][0, 0] == pytest.approx(0.2 * (1 + 0.8 ** 2))
    # nDCG on g1, s0: gains 10 at rank 1, 5 at rank 12; ideal 10, 5, 5 (0/5/10 scale cancels)
    dcg = 10 * jk10(1) + 5 * jk10(12)
    idcg = 10 * jk10(1) + 5 * jk10(2) + 5 * jk10(3)
    assert sc["nDCG"][1, 0] == pytest.approx(dcg / idcg)
    # nDCG@20 equals nDCG here (everything happens in the top 20) ...
    assert sc["nDCG@20"][1, 0] == pytest.approx(dcg / idcg)
    # ERR: g_max is the track's own highest grade: 1 on the binary track (R = 1/2), 2 on the graded
    assert sc["ERR"][0, 0] == pytest.approx(0.5 + 0.5 * 0.5 / 3)
    assert sc["ERR"][0, 1] == pytest.approx(0.5 / 2)
    assert sc["ERR"][1, 0] == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 12)


def test_ndcg_full_run_differs_from_cutoff_20():
    col = tiny_collection()
    rel2 = np.concatenate([col.rel, np.zeros((2, 2, 20), np.int8)], axis=-1)
    rel2[1, 1, 29] = 2  # a highly relevant document at rank 30: counts in nDCG, not in nDCG@20
    col2 = Collection(rel=rel2, judgments=col.judgments, run_lengths=np.full((2, 2), 40), topics=col.topics,
                      systems=col.systems, provenance=col.provenance, max_grade=2, topic_labels=col.topic_labels)
    sc = fer17.score_matrices(col2)
    assert sc["nDCG"][1, 1] > sc["nDCG@20"][1, 1]


def test_fer17_measure_errors():
    with pytest.raises(KeyError, match="Twist"):
        fer17.score_matrices(tiny_collection(), names=("AP", "Twist"))
    with pytest.raises(ValueError, match="max_grade"):
        fer17.fer17_measures(0)


# --------------------------------------------------------------------------- KDE and KL (§3.4)


def test_kde_matches_scipy_gaussian_kde():
    x = np.random.default_rng(3).beta(2, 5, 200)
    grid = np.linspace(-0.1, 1.1, 301)
    ref = st.gaussian_kde(x, bw_method=fer17.BANDWIDTH / x.std(ddof=1))(grid)
    np.testing.assert_allclose(fer17.kde(x, grid), ref, rtol=1e-10)
    assert np.trapezoid(fer17.kde(x, grid), grid) == pytest.approx(1.0, abs=1e-6)


def test_kl_hand_cases():
    x = np.array([0.1, 0.2, 0.3])
    assert fer17.kl_divergence(x, x) == pytest.approx(0.0, abs=1e-12)
    # two point masses 0.5 apart: KL of N(0, b²) vs N(d, b²) is d²/(2b²) = 555.6 — far beyond any
    # grid effect; the discrete version on a fine grid matches the continuous one closely.
    far = fer17.kl_divergence([0.3], [0.35], n_points=4096)
    assert far == pytest.approx(0.05 ** 2 / (2 * fer17.BANDWIDTH ** 2), rel=1e-3)
    a, b = np.array([0.1, 0.1, 0.5]), np.array([0.1, 0.4, 0.5])
    assert fer17.kl_divergence(a, b) != pytest.approx(fer17.kl_divergence(b, a))  # not symmetric
    with pytest.raises(ValueError, match="non-empty"):
        fer17.kl_divergence([], [0.1])


@settings(max_examples=30, deadline=None)
@given(hs.lists(hs.floats(0, 1), min_size=1, max_size=20), hs.lists(hs.floats(0, 1), min_size=1, max_size=20))
def test_kl_is_nonnegative(x, y):
    assert fer17.kl_divergence(x, y) >= -1e-12


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


def random_scores(T=12, S=15, seed=0, names=("AP", "P@10", "RBP")):
    rng = np.random.default_rng(seed)
    base = rng.random((T, S))
    out = {}
    for k, n in enumerate(names):
        v = np.clip(base + rng.normal(0, 0.2 * (k + 1), (T, S)), 0, 1)
        out[n] = np.round(v * 10) / 10 if n == "P@10" else v
    return out


def test_correlation_design_matches_a_direct_recomputation():
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


def test_correlation_design_is_deterministic_and_feeds_the_anova():
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


def test_design_errors():
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


def test_rq3_design_same_systems_on_every_topic_set():
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


def test_romp_comparison_reproduces_fer17_printed_4_2_5_and_6_2_5():
    # From the printed Tables 4 and 9 (data/published/fer17.csv): tie-by-order gives §4.2.5's and
    # §6.2.5's printed tauCorr / apCorr; averaged ties do not (0.9775 / 0.8938 for §4.2.5).
    from irscales.papers import published

    pub = published.load("fer17")
    got = fer17.printed_romp_items(pub)
    printed = dict(zip(pub.item, pub.value))
    for item in ("s4.2.5/tauCorr", "s4.2.5/apCorr", "s4.2.5/romp_swaps", "s4.2.5/RMSE",
                 "s6.2.5/tau/tauCorr", "s6.2.5/tau/apCorr", "s6.2.5/tau_ap/tauCorr", "s6.2.5/tau_ap/apCorr"):
        assert published.matches(printed[item], got[item]), item
    t4 = fer17.printed_pair_effects(pub, "table4")
    avg = sampling.romp_comparison(t4["tau"], t4["tau_ap"], ties="average")
    assert not published.matches(printed["s4.2.5/tauCorr"], avg["tauCorr"])
    assert not published.matches(printed["s4.2.5/apCorr"], avg["apCorr"])


def test_pair_table_layout():
    eff = pd.Series({"AP vs RBP": 0.7, "AP vs ERR": 0.5, "RBP vs ERR": 0.6})
    t = sampling.pair_table(eff, ["AP", "RBP", "ERR"])
    assert t.loc["AP", "RBP"] == 0.7 and t.loc["RBP", "ERR"] == 0.6 and t.loc["AP", "AP"] == 1.0
    assert np.isnan(t.loc["ERR", "AP"])


# --------------------------------------------------------------------------- published-vs-reproduced helpers


def test_recompute_published_anova_reproduces_fer17_printed_columns():
    from irscales.papers import published

    values, tol = fer17.recompute_published_anova(published.load("fer17"))
    cmp = published.compare("fer17", values, tolerances=tol)
    f = cmp.frame.set_index("item")
    # ω² from eq. (3) at the printed F, DF: 10 of the 11 effect rows of Tables 2 and 7 (helper of anova.py)
    assert f.loc["table2/Measure Pair/omega2", "match"] and f.loc["table7/Measure Pair*Topic Set(Corpus)/omega2", "match"]
    assert not f.loc["table2/Topic Size*System Size/omega2", "match"]  # 0.00028 vs printed 0.0002
    # F = (SS/DF)/MS_err from the printed SS, within their rounding
    assert f.loc["table2/Measure Pair/F", "match"] and f.loc["table8/Corpus/F", "match"]
    # p in scientific notation is matched at the mantissa's precision, not to ±0.5
    assert tol["table2/Topic Size*System Size/p"] == pytest.approx(0.5e-7)
    assert not f.loc["table2/Topic Size*System Size/p", "match"]  # 1.62e-05 from F = 2.0079, printed 1.69e-05
    # power of a zero effect is α, not the printed 0.8043
    assert values["table2/Measure Pair*System Size/power"] == pytest.approx(0.05)
    done = cmp.frame[cmp.frame.status != "not reproduced"]
    assert len(done) == 126 and int(done.match.sum()) == 114  # the 12 differences are listed in the notebook


def test_qualitative_anova_items_from_a_table():
    rng = np.random.default_rng(0)
    rows = [(h, p, t, s) for h in range(5) for p in "ab" for t in (1, 2) for s in (1, 2)]
    d = pd.DataFrame(rows, columns=["subject", "pair", "topics", "systems"])
    d["tau"] = (d.pair == "b") * 1.0 + rng.normal(0, 0.01, len(d))  # only the pair effect is real
    items = fer17.qualitative_anova_items(anova.balanced_anova(d, "tau"), "table2")
    assert items["table2/Measure Pair/significant"] == "yes"
    assert items["table2/Measure Pair/effect_class"] == "large"
    assert "table2/Subject/significant" not in items
    assert set(items) >= {f"table2/{fer17.SOURCE_NAMES[k]}/effect_class" for k in anova.CROSSED_TERMS[1:]}


def test_plots_return_figures(tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.setenv("IRSCALES_FIGURES", str(tmp_path))
    scores = random_scores()
    df = sampling.correlation_design(scores, np.random.default_rng(0), (3, 5), (6, 8), 4, no1q=True, progress=False)
    fig = fer17.plot_size_curves(df, "AP vs RBP", variants=("allQ", "no1Q"), title="simulated")
    assert len(fig.axes) == 2
    names = fer17.save_figure(fig, "test_simulated")
    assert names == ["test_simulated.png", "test_simulated.pdf"] and (tmp_path / "fer17" / "test_simulated.png").exists()
    m = df.groupby(["variant", "pair"], observed=True).tau.mean()
    fer17.save_figure(fer17.plot_romp(m.loc["allQ"], m.loc["no1Q"]), "romp_simulated")
    fer17.save_figure(fer17.plot_kde({"a": [0.1, 0.2], "b": [0.2, 0.3]}), "kde_simulated")
    with pytest.raises(ValueError, match="no rows"):
        fer17.plot_size_curves(df, "X vs Y")


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


def _mini_published(rows) -> pd.DataFrame:
    return pd.DataFrame([(i, "", "", v, "trec", "") for i, v in rows],
                        columns=["item", "location", "context", "value", "kind", "note"])


def test_printed_marginal_changes_hand_case():
    pub = _mini_published([("s4.2.3/tau/t=10", "0.5000"), ("s4.2.3/tau/t=30", "0.6000"),
                           ("s4.2.3/tau_ap/s=10", "0.8000"), ("s4.2.3/tau_ap/s=50", "0.7800"),
                           ("s4.2.3/change/tau/t=30_vs_t=10", "20.00%"),
                           ("s4.2.3/change/tau_ap/s=50_vs_s=10", "2.50%")])
    val, tol = fer17.printed_marginal_changes(pub)
    assert val["s4.2.3/change/tau/t=30_vs_t=10"] == pytest.approx(20.0)      # 0.1 / 0.5
    assert val["s4.2.3/change/tau_ap/s=50_vs_s=10"] == pytest.approx(2.5)    # |−0.02| / 0.8, a magnitude
    # means rounded to 4 decimals: 100 (0.00005/0.5 + 0.00005·0.6/0.25) = 0.022, plus 0.005
    assert tol["s4.2.3/change/tau/t=30_vs_t=10"] == pytest.approx(0.022 + 0.005)


def test_printed_items_from_fer17_tables():
    from irscales.papers import published

    pub = published.load("fer17")
    printed = dict(zip(pub.item, pub.value))
    cls = fer17.printed_anova_class_items(pub)
    assert cls["table2/Measure Pair*Topic Size/effect_class"] == "small"      # printed ω² 0.0283
    assert cls["table8/Corpus/effect_class"] == "medium"                      # printed ω² 0.0634
    assert cls["table2/Measure Pair*System Size/significant"] == "no"         # printed p 1.0000
    assert len(cls) == 2 * (6 + 6 + 5 + 5)
    assert all(published.matches(printed[k], v) for k, v in cls.items())
    rq2 = fer17.printed_rq2_items(pub)
    assert all(published.matches(printed[k], v) for k, v in rq2.items()) and len(rq2) == 14
    ratios, tol = fer17.printed_ratio_items(pub)
    bad = sorted(k for k, v in ratios.items() if not published.matches(printed[k], v, tol.get(k)))
    # §6.2.2 "about 25 times": Table 7 / Table 2 ω² is 0.5686 / 0.0283 = 20.1 (τ_AP: 26.3 holds)
    assert bad == ["s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau"]
    assert ratios[bad[0]] == pytest.approx(0.5686 / 0.0283)
    assert set(fer17.printed_ordering_items(pub).values()) == {"yes"}
    fig = fer17.plot_pair_effects(fer17.printed_pair_effects(pub, "table9"), title="t")
    assert len(fig.axes) == 2 and len(fig.axes[0].lines[0].get_xdata()) == 28
    import matplotlib.pyplot as plt
    plt.close(fig)
