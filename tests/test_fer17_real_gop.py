"""irscales.papers.fer17.real_gop on the authors' published Grid of Points (skipped when the shared
folder is absent): our measures reproduce the grid's own values wherever a run is determined by
the file, and Table 1's T07 row is reproduced from the published score tables. The T08 row (which
reads the 129 TREC-8 runs) is computed by notebooks/03b_fer17_real_gop.ipynb."""

from __future__ import annotations

import numpy as np
import pytest

from irscales import paths
from irscales.data import read_qrels
from irscales.papers import printing, published
from irscales.papers.fer17 import analogue, real_gop
from irscales.papers.fer17.measures import TABLE1_MEASURES, fer17_measures

pytestmark = pytest.mark.data  # reads the public collections or the shared folder


@pytest.fixture(scope="module")
def grid():
    if paths.gop_dir() is None:
        pytest.skip("the authors' Grid of Points is absent (IRSCALES_GOP / IRSCALES_SHARED/gop/trec-jasist2017)")
    return {t: real_gop.load_gop(t) for t in ("T07", "T08")}


@pytest.mark.parametrize("track", ["T07", "T08"])
def test_our_measures_give_the_grids_values_where_the_run_is_known(grid, track):
    """A cell with AP·RB = 1/r, ERR = 1/(2r) and RBP = 0.2·0.8^(r−1) is a run whose only relevant
    document (of the 1,000 it retrieves) is at rank r: every measure of it follows from the topic's
    judgments, and ours must equal the grid's (MATTERS') value for all eight."""
    qpath = paths.trec_qrels(track)
    if qpath is None:
        pytest.skip(f"the {track} qrels are absent (IRSCALES_TREC)")
    q = read_qrels(qpath)
    g = grid[track]
    ap, err, rbp = (g.scores[k] for k in ("AP", "ERR", "RBP_p08"))
    ms = fer17_measures(max_grade=1)
    checked = 0
    for topic in ap.index:
        judged = q[q["topic"] == topic]
        rb = int((judged["rel"] > 0).sum())
        ideal = np.zeros(1000, np.int64)
        ideal[:min(rb, 1000)] = 1
        for r in range(1, 21):
            hit = (np.isclose(ap.loc[topic] * rb * r, 1.0, rtol=0, atol=1e-12)
                   & np.isclose(err.loc[topic], 0.5 / r, rtol=0, atol=1e-12)
                   & np.isclose(rbp.loc[topic], 0.2 * 0.8 ** (r - 1), rtol=0, atol=1e-12))
            if not hit.any():
                continue
            run = np.zeros((1, 1000), np.int64)
            run[0, r - 1] = 1
            systems = ap.columns[hit]
            for key in TABLE1_MEASURES:
                m, cut = ms[key]
                rel = run[:, :cut] if cut else run
                ours = m(rel, rb=rb, ideal=ideal[: rel.shape[-1]])[0]
                theirs = g.scores[key].loc[topic, systems].to_numpy()
                assert np.allclose(theirs, ours, rtol=1e-12, atol=1e-15), (topic, r, key, ours, theirs[:3])
            checked += 1
    assert checked >= 50  # (topic, rank) cases: 63 on T07, 81 on T08 when written


def test_table1_t07_row_is_reproduced(grid):
    if paths.scores_dir() is None:
        pytest.skip("the shared score tables are absent (IRSCALES_SCORES / IRSCALES_SHARED/scores)")
    t1 = real_gop.table1({"T07": real_gop.original_t07()}, grid)
    pub = published.load("fer17").set_index("item")["value"]
    items = real_gop.table1_items(t1)
    assert sorted(items) == ["table1/T07/AP", "table1/T07/P@10"]
    for item, v in items.items():
        assert printing.agreement(pub[item], v).reproduced, (item, v, pub[item])
    # one query form alone (Fer17's 1,326 systems) does not give the printed divergences
    short = real_gop.table1({"T07": real_gop.original_t07()}, {"T07": grid["T07"].select("short", three_grams=False)})
    assert not printing.agreement(pub["table1/T07/AP"], short.loc["T07 vs T07gop", "AP"]).reproduced


def test_analogue_sets_hold_fer17s_1326_systems(grid):
    sets, dropped = analogue.analogue_sets(grid, "short")
    assert set(sets) == {"T07", "T08"} and sets["T07"][0] == "TIPSTER" and dropped == []
    scores = sets["T08"][1]
    assert list(scores) == ["AP", "P@10", "R-prec", "RBP", "nDCG", "nDCG@20", "ERR", "Twist"]
    assert all(v.shape == (50, 1326) for v in scores.values())
    with pytest.raises(KeyError, match="no query form"):
        grid["T07"].select("title")


def test_the_reports_twist_t09_quirk_is_what_the_file_holds():
    """The data quirk the report states (items.DATA_QUIRKS) is checked against the authors' file."""
    import re

    from irscales.data.matters import read_measure
    from irscales.papers.items import DATA_QUIRKS

    if paths.gop_dir() is None:
        pytest.skip("the authors' Grid of Points is absent (IRSCALES_GOP / IRSCALES_SHARED/gop/trec-jasist2017)")
    found = sorted(paths.gop_dir().rglob("twist_T09.mat"))
    if not found:
        pytest.skip("twist_T09.mat is absent")
    s = read_measure(found[0]).scores
    neg = s < 0
    m = re.search(r"holds (\d+) negative Twist values, all on topic (\d+) \(down to −(\d\.\d+)\), and (\d+) NaN",
                  DATA_QUIRKS["real_gop"])
    assert m is not None
    assert int(neg.values.sum()) == int(m[1]) and list(s.index[neg.any(axis=1)]) == [m[2]]
    assert f"{-float(np.nanmin(s.values)):.4f}" == m[3] and int(np.isnan(s.values).sum()) == int(m[4])
