"""Fer17 §3.4 on original TREC systems (irscales.papers.fer17.system_performance): a hand-made collection and,
when IRSCALES_TREC has them, the real TREC-8 runs checked against trec_eval (pytrec_eval)."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from irscales.papers import fer17
from irscales.data import trec as io
from irscales.data.collection import Collection


def test_system_performance_is_the_mean_over_topics():
    rng = np.random.default_rng(0)
    rel = rng.integers(0, 3, size=(4, 3, 25)).astype(np.int8)
    judgments = np.array([[40, 5, 3], [40, 8, 1], [40, 2, 6]], dtype=np.int64)
    c = Collection(rel=rel, judgments=judgments, run_lengths=np.full((4, 3), 25, dtype=np.int64),
                   topics=("q1", "q2", "q3"), systems=("a", "b", "c", "d"), provenance="simulated: hand seed=0 depth=25",
                   max_grade=2)
    perf = fer17.system_performance(c, ["AP", "P@10"])
    sc = fer17.score_matrices(c, ["AP", "P@10"])
    assert perf["AP"].shape == (4,) and np.array_equal(perf["AP"], sc["AP"].mean(axis=0))
    assert np.allclose(perf["P@10"], (rel[:, :, :10] > 0).mean(axis=(1, 2)))
    assert fer17.kl_divergence(perf["AP"], perf["AP"]) == 0.0


@pytest.mark.data
def test_original_t08_systems_agree_with_trec_eval():
    from irscales.paths import trec_track

    t = trec_track("T08")
    if t is None:
        pytest.skip("TREC-8 runs not found: set IRSCALES_TREC to a folder with T08/runs and T08/qrels*")
    files = [f for f in io.find_runs(t.runs) if f.name.split(".")[1] in ("uwmt8a0", "CL99XT", "ok8amxc")]
    c = Collection.from_trec(files, t.qrels, depth=1000)
    perf = fer17.system_performance(c, ["AP", "P@10"])
    q = io.read_qrels(t.qrels)
    qd: dict = {}
    for tp, d, r in q[["topic", "docno", "rel"]].itertuples(index=False):
        qd.setdefault(tp, {})[d] = int(r)
    for f in files:
        run = io.read_run(f)
        rd: dict = {}
        for tp, d, s in run[["topic", "docno", "score"]].itertuples(index=False):
            rd.setdefault(tp, {})[d] = float(s)
        ev = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10"}).evaluate(rd)
        j = c.systems.index(run.attrs["system"])
        assert perf["AP"][j] == pytest.approx(np.mean([v["map"] for v in ev.values()]), abs=1e-12)
        assert perf["P@10"][j] == pytest.approx(np.mean([v["P_10"] for v in ev.values()]), abs=1e-12)


# ---------------------------------------------------------------- Fig. 1, original-systems side (issue 15)

def test_kde_curve_grid_and_density():
    grid, dens = fer17.kde_curve([0.2, 0.4], bandwidth=0.1, n_points=5)
    np.testing.assert_allclose(grid, [-0.2, 0.05, 0.3, 0.55, 0.8])  # range ± 4 bandwidths
    # at 0.3 both points are one bandwidth away: (φ(1) + φ(1)) / (2 · 0.1), φ the standard normal density
    phi = lambda u: np.exp(-u * u / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    assert dens[2] == pytest.approx(phi(1) / 0.1, rel=1e-12)
    assert dens[0] == pytest.approx((phi(4) + phi(6)) / 0.2, rel=1e-12)
    assert dens[1] == pytest.approx(dens[3], rel=1e-12)  # symmetric around the sample's centre 0.3
    g2, _ = fer17.kde_curve([0.5], lo=0.0, hi=1.0, n_points=3)
    np.testing.assert_array_equal(g2, [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="non-empty"):
        fer17.kde_curve([])
    with pytest.raises(ValueError, match="lo < hi"):
        fer17.kde_curve([0.5], lo=1.0, hi=0.0)


def test_distribution_summary_hand_computed():
    s = fer17.distribution_summary({"AP": [0.1, 0.2, 0.3, 0.6], "P@10": np.array([0.5])})
    ap = s.loc["AP"]
    assert ap["systems"] == 4 and ap["mean"] == pytest.approx(0.3) and ap["median"] == pytest.approx(0.25)
    assert ap["std"] == pytest.approx(np.sqrt((0.04 + 0.01 + 0 + 0.09) / 3))
    assert ap["min"] == 0.1 and ap["max"] == 0.6 and ap["q25"] == pytest.approx(0.175)
    # the KDE's mode lies in the dense part of the sample (0.1–0.3), not at the outlier 0.6
    assert 0.1 <= ap["kde_mode"] <= 0.3
    assert s.loc["P@10", "kde_mode"] == pytest.approx(0.5, abs=1e-9) and np.isnan(s.loc["P@10", "std"])
    with pytest.raises(ValueError, match="no systems for 'AP'"):
        fer17.distribution_summary({"AP": []})


def test_plot_original_beside_gop_draws_each_side():
    import matplotlib.pyplot as plt

    orig = {"AP": [0.1, 0.2, 0.25], "nDCG@20": [0.3, 0.5, 0.4]}
    gop = {"AP": [0.15, 0.3], "nDCG@20": [0.35, 0.45]}
    fig = fer17.plot_original_beside_gop(orig, gop, title="Fer17 Fig. 1: TREC-8 original systems (real)")
    axes = np.array(fig.axes).reshape(2, 2)
    assert "TREC-8 original systems (real): AP" == axes[0, 0].get_title()
    assert axes[1, 1].get_title() == "GoP (simulated): nDCG@20"
    assert fig._suptitle.get_text() == "Fer17 Fig. 1: TREC-8 original systems (real)"
    for (r, m) in enumerate(("AP", "nDCG@20")):
        for c, d in enumerate((orig, gop)):
            x, y = axes[r, c].lines[0].get_data()
            np.testing.assert_allclose(y, fer17.kde(d[m], x))  # the curve is eq. (6) of that side
        assert axes[r, 0].get_xlim() == axes[r, 1].get_xlim()  # one x range per row
    plt.close(fig)
    fig = fer17.plot_original_beside_gop(orig)  # the original side alone
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(KeyError, match=r"GoP \(simulated\): no scores for \['nDCG@20'\]"):
        fer17.plot_original_beside_gop(orig, {"AP": [0.1]})


def test_table1_t08_notes_say_where_both_halves_come_from():
    """Both halves of T08's divergences are public now (issue 29): the notes say so; what the other
    rows still miss is said by the report (tests/test_items.py), not by an outdated note."""
    from irscales.papers import published

    pub = published.load("fer17")
    t08 = pub[pub.item.str.startswith("table1/T08/")]
    assert len(t08) == 8
    assert t08.note.str.contains("authors' published Grid of Points").all()
    assert t08.note.str.contains("129 TREC-8 Ad hoc runs").all() and t08.note.str.contains("notebook 03b").all()
    assert not pub.note.str.contains("not available").any()


@pytest.mark.data
def test_real_t08_original_systems_side():
    import matplotlib.pyplot as plt
    from irscales.paths import trec_track

    t = trec_track("T08")
    if t is None:
        pytest.skip("TREC-8 runs not found: set IRSCALES_TREC to a folder with T08/runs and T08/qrels*")
    c = Collection.from_trec(t.runs, t.qrels, depth=1000)
    perf = fer17.labelled(fer17.system_performance(c, ["AP", "gnDCG_b10@20"]))
    summary = fer17.distribution_summary(perf)
    assert list(summary["systems"]) == [129, 129]
    assert summary.loc["AP", "mean"] == pytest.approx(perf["AP"].mean(), rel=1e-12)
    # the median system's MAP agrees with trec_eval (pytrec_eval) on its own run file
    j = int(np.argsort(perf["AP"])[64])
    run = None
    for f in io.find_runs(t.runs):
        if f.name.split(".")[1] == c.systems[j]:
            run = io.read_run(f)
            break
    assert run is not None and run.attrs["system"] == c.systems[j]
    q = io.read_qrels(t.qrels)
    qd: dict = {}
    for tp, d, r in q[["topic", "docno", "rel"]].itertuples(index=False):
        qd.setdefault(tp, {})[d] = int(r)
    rd: dict = {}
    for tp, d, s in run[["topic", "docno", "score"]].itertuples(index=False):
        rd.setdefault(tp, {})[d] = float(s)
    ev = pytrec_eval.RelevanceEvaluator(qd, {"map"}).evaluate(rd)
    assert perf["AP"][j] == pytest.approx(np.mean([v["map"] for v in ev.values()]), abs=1e-12)
    fig = fer17.plot_original_beside_gop(perf, title="Fer17 Fig. 1: TREC-8 original systems (real)")
    assert [a.get_title() for a in fig.axes] == ["TREC-8 original systems (real): AP",
                                                 "TREC-8 original systems (real): nDCG@20"]
    plt.close(fig)
