"""Tests of irscales.simulate: determinism, preset shapes, the properties the analyses rely on
(issue 7), and the exactness of the order-statistics sampler."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from irscales import simulate as sm


@pytest.fixture(scope="module")
def gop():
    return sm.simulate("sim-gop", depth=30, seed=0)


def test_deterministic_from_seed():
    a = sm.simulate("sim-t08", depth=20, seed=5)
    b = sm.simulate("sim-t08", depth=20, seed=5)
    c = sm.simulate("sim-t08", depth=20, seed=6)
    np.testing.assert_array_equal(a.rel, b.rel)
    np.testing.assert_array_equal(a.judgments, b.judgments)
    assert not np.array_equal(a.rel, c.rel)
    # an explicit Generator gives the same as the seed it was made from
    d = sm.simulate("sim-t08", depth=20, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.rel, d.rel)


@pytest.mark.parametrize("name, topics, systems, max_grade", [
    ("sim-t08", 50, 129, 1), ("sim-t26", 50, 75, 2), ("sim-t27", 50, 72, 2), ("sim-r04", 249, 110, 1),
])
def test_preset_shapes(name, topics, systems, max_grade):
    s = sm.simulate(name, depth=30, seed=0)
    assert s.rel.shape == (systems, topics, 30)
    assert s.max_grade == max_grade and s.judgments.shape == (topics, max_grade + 1)
    assert s.rel.max() == max_grade  # graded presets really use grade 2; binary ones never do
    assert len(set(s.topics)) == topics and len(set(s.systems)) == systems


def test_robust04_topic_ids():
    s = sm.simulate("sim-r04", depth=1, seed=0)
    assert s.topics[0] == "301" and "672" not in s.topics and s.topics[-1] == "700"


def test_runs_never_exceed_judgments():
    # a run cannot retrieve more documents of a grade than the topic has (else no TREC export)
    for name in ("sim-t26", "sim-r04"):
        s = sm.simulate(name, depth=100, seed=1)
        for g in range(1, s.max_grade + 1):
            assert ((s.rel == g).sum(-1) <= s.judgments[None, :, g]).all()


def test_recall_bases_vary_and_include_small_topics(gop):
    rb = gop.judgments[:, 1:].sum(1)
    for cut in (5, 10, 20, 30):
        assert (rb < cut).sum() >= 3, cut
    assert rb.max() > 200 and rb.min() >= 1
    for name in ("sim-t08", "sim-t26", "sim-t27"):
        rb = sm.simulate(name, depth=1, seed=0).judgments[:, 1:].sum(1)
        assert (rb < 30).any() and (rb > 100).any(), name


def test_short_runs_are_padded(gop):
    short = gop.run_lengths < 30
    assert short.any()
    s, t = np.nonzero(short)
    r = np.arange(30)[None, :] >= gop.run_lengths[s, t][:, None]
    assert (gop.rel[s, t][r] == 0).all()


def test_wide_spread_and_top_heavy():
    s = sm.simulate("sim-t08", depth=30, seed=0)
    m = sm.marginals(s)["systems"]
    p10 = m["mean_P@10"]
    assert p10.max() - p10.min() > 0.4
    assert np.corrcoef(m["effect"], p10)[0, 1] > 0.9
    # good systems put relevant documents at the top: precision decreases with rank
    good = np.argsort(-p10.to_numpy())[:20]
    by_rank = (s.rel[good] > 0).mean(axis=(0, 1))
    assert by_rank[:5].mean() > by_rank[-5:].mean() + 0.1


def test_gop_is_a_full_factorial_with_labels(gop):
    assert gop.rel.shape == (1326, 349, 30)
    labs = gop.system_labels
    combos = set(zip(labs["stop"], labs["lug"], labs["model"]))
    assert len(combos) == 1326
    assert {len(set(labs[k])) for k in ("stop", "lug", "model")} == {6, 13, 17}
    tracks = gop.topic_labels["track"]
    assert {t: tracks.count(t) for t in set(tracks)} == {
        "T07": 50, "T08": 50, "T09": 50, "T10": 50, "T13": 49, "T14": 50, "T15": 50}
    assert len(set(gop.topic_labels["corpus"])) == 3


def test_gop_component_effects_are_visible(gop):
    m = sm.marginals(gop)["systems"]
    by_lug = m.groupby("lug")["mean_P@10"].mean()
    stemmers = by_lug[["krovetz", "lovins", "porter", "snowballPorter", "weakPorter"]].mean()
    ngrams = by_lug[[f"{n}grams" for n in range(4, 11)]].mean()
    assert stemmers > ngrams + 0.05
    # model effects: a two-way layout explains most of the variance of the system means
    by_model = m.groupby("model")["mean_P@10"].mean()
    assert by_model.max() - by_model.min() > 0.1
    # corpus effects: the same system differs across corpora (interaction), not just a shift
    e = gop.latent
    assert not np.allclose(e["system_effect_gov2"] - e["system_effect_wt10g"],
                           (e["system_effect_gov2"] - e["system_effect_wt10g"]).mean())


def test_top_normals_match_brute_force():
    # the k largest of n iid N(m, 1), sampled through order statistics, against brute force
    rng = np.random.default_rng(123)
    n, k, reps = 40, 3, 4000
    fast = sm._top_normals(rng, n, k, np.full(reps, 0.5))
    brute = -np.sort(-rng.normal(0.5, 1, (reps, n)), axis=1)[:, :k]
    assert (np.diff(fast, axis=1) <= 0).all()
    for j in range(k):
        assert stats.ks_2samp(fast[:, j], brute[:, j]).pvalue > 0.001, j
    assert sm._top_normals(rng, 2, 5, np.zeros(3)).shape == (3, 2)
    assert sm._top_normals(rng, 0, 5, np.zeros(3)).shape == (3, 0)


def test_marginals_frames():
    s = sm.simulate("sim-t26", depth=10, seed=0)
    m = sm.marginals(s)
    assert len(m["topics"]) == 50 and len(m["systems"]) == 75
    assert (m["topics"]["rb"] == s.judgments[:, 1:].sum(1)).all()
    assert (m["topics"]["highly_relevant"] <= m["topics"]["rb"]).all()


def test_bad_arguments():
    with pytest.raises(KeyError, match="unknown preset 'sim-nope'; choose one of sim-t08"):
        sm.simulate("sim-nope")
    with pytest.raises(ValueError, match="depth must be >= 1"):
        sm.simulate("sim-t08", depth=0)


def test_plot_marginals_says_simulated(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = sm.simulate("sim-t27", depth=20, seed=0)
    fig = sm.plot_marginals(s)
    assert len(fig.axes) == 4
    assert fig._suptitle.get_text().startswith("simulated collection sim-t27 (seed=0, depth=20)")
    rb_counts = sum(p.get_height() for p in fig.axes[0].patches)
    assert rb_counts == 50  # every topic's recall base is in the histogram
    fig.savefig(tmp_path / "simulated_marginals.png")
    plt.close(fig)
    assert (tmp_path / "simulated_marginals.png").stat().st_size > 0
