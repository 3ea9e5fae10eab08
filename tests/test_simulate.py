"""Tests of irscales.data.simulate: determinism, preset shapes, the properties the analyses rely on
(issue 7), and the exactness of the order-statistics sampler."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from irscales.data import simulate as sm


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


# ---------------------------------------------------------------- recall bases from real qrels (issue 15)

def _fingerprint(c) -> str:
    import hashlib

    h = hashlib.sha256()
    for a in (c.rel, c.judgments, c.run_lengths):
        h.update(a.tobytes())
    return h.hexdigest()


def test_default_presets_unchanged_by_the_qrels_option():
    # digests of the arrays before qrels= existed: stored notebook outputs depend on them
    from irscales.data import load_preset

    assert _fingerprint(load_preset("sim-t26", depth=20, seed=3)) == \
        "12e5d720a4f024684b0f617f894b3ab52ce30d3b9c0af93a1c47826f91fd2a94"
    assert _fingerprint(load_preset("sim-t27", depth=20, seed=3, qrels=None)) == \
        "8e4b94f8aa78e5bf6d9786dc5fcd68d8d6229789c9da385f0a3fcb47ecd2a4a2"


def _write_qrels(path, rows):
    path.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in rows))
    return path


def test_recall_bases_and_grades_from_qrels(tmp_path):
    from irscales.data import load_preset

    # topic 10: 2 highly relevant, 1 relevant, 2 not (one judged -1: not relevant, as trec_eval);
    # topic 9: 1 relevant, 1 not; topic 11: no relevant document (left out)
    rows = [("10", "a", 2), ("10", "b", 2), ("10", "c", 1), ("10", "d", 0), ("10", "e", -1),
            ("9", "a", 1), ("9", "b", 0), ("11", "a", 0)]
    q = _write_qrels(tmp_path / "qrels.core17.txt", rows)
    topics, counts = sm.qrels_grade_counts(q, 2)
    assert topics == ["9", "10"]
    np.testing.assert_array_equal(counts, [[1, 1, 0], [2, 1, 2]])
    c = load_preset("sim-t26", depth=5, seed=1, qrels=q)
    assert c.topics == ("9", "10") and len(c.systems) == 75
    np.testing.assert_array_equal(c.judgments, counts)
    assert c.is_simulated and c.data_label == "simulated"
    assert c.provenance == ("simulated: sim-t26 seed=1 depth=5, recall bases and grades from the real qrels "
                            "qrels.core17.txt")
    for g in (1, 2):  # runs never retrieve more documents of a grade than the qrels have
        assert ((c.rel == g).sum(-1) <= c.judgments[None, :, g]).all()
    assert (c.rel == 2).any()  # the simulated runs do find the real highly relevant documents
    # the runs stay simulated: they depend on the seed, the judgments do not
    d = load_preset("sim-t26", depth=5, seed=2, qrels=q)
    np.testing.assert_array_equal(d.judgments, c.judgments)
    assert not np.array_equal(d.rel, c.rel)
    np.testing.assert_array_equal(load_preset("sim-t26", depth=5, seed=1, qrels=q).rel, c.rel)


@pytest.mark.data
def test_qrels_option_errors(tmp_path):
    from irscales.data import load_preset

    graded = _write_qrels(tmp_path / "qrels.g", [("1", "a", 2)])
    with pytest.raises(ValueError, match=r"qrels.g: grades up to 2, but the preset's scale is 0..1"):
        load_preset("sim-t08", depth=5, qrels=graded)
    with pytest.raises(ValueError, match="single-track preset; sim-gop has 7 tracks"):
        sm.simulate("sim-gop", depth=5, qrels=graded)
    with pytest.raises(ValueError, match="no topic has a relevant document"):
        sm.qrels_grade_counts(_write_qrels(tmp_path / "qrels.none", [("1", "a", 0)]), 2)
    with pytest.raises(ValueError, match="public collection with its own qrels"):
        load_preset("gop-cranfield", qrels=graded)


@pytest.mark.data
def test_real_core17_qrels_when_present():
    from irscales.data import trec as io
    from irscales.data import load_preset
    from irscales.paths import trec_qrels

    f = trec_qrels("T26")
    if f is None:
        pytest.skip("TREC 2017 Common Core qrels not found: put qrels.core17* in $IRSCALES_TREC/qrels/")
    c = load_preset("sim-t26", depth=10, seed=0, qrels=f)
    q = io.read_qrels(f, negative="zero")
    rb = q[q.rel > 0].groupby("topic").size()
    assert len(c.topics) == len(rb) == 50
    np.testing.assert_array_equal(c.rb, rb.loc[list(c.topics)].to_numpy())
    hr = q[q.rel == 2].groupby("topic").size().reindex(list(c.topics), fill_value=0)
    np.testing.assert_array_equal(c.judgments[:, 2], hr.to_numpy())
    assert c.provenance.startswith("simulated: sim-t26") and "real qrels qrels.core17" in c.provenance
