"""Tests of irscales.data.gop on the shipped public collections (skipped when absent): a tiny grid
whose TREC files pytrec_eval scores exactly as we do, the cache, the combined grid, BM25 against
bm25s. The model formulas and indexing are tested in tests/test_gop_index.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from irscales.data import datasets
from irscales.data import gop
from irscales.data import _gop_index as gop_index
from irscales.data import trec as io
from irscales.measures import AP, NDCG, RR, P

pytestmark = pytest.mark.data  # reads the public collections or the shared folder


def _mirror_or_skip(name: str = "cranfield"):
    try:
        datasets.locate(name)
    except datasets.DataUnavailable as e:
        pytest.skip(f"public collection absent: {e}")


# ----------------------------------------------------------------------------- on the shipped collections

SAMPLE = [gop.System("lucene", "porter", "BM25"), gop.System("none", "4grams", "DPH"),
          gop.System("stopwords-en", "lovins", "LMDir2000"), gop.System("cacm-common", "snowball", "BB2"),
          gop.System("none", "krovetz" if "krovetz" in gop.available_lugs() else "porter", "lnc.ltc")]


@pytest.fixture(scope="module")
def tiny_grid(tmp_path_factory):
    _mirror_or_skip("cranfield")
    _mirror_or_skip("cacm")  # the cacm-common stop list
    c = gop.build("cranfield", SAMPLE, cache=False, progress=False)
    d = tmp_path_factory.mktemp("gop")
    # two systems at the full depth, the others at depth 100 (compared at that cut-off), to keep
    # the test fast
    full, qrels = gop.write_runs("cranfield", SAMPLE[:2], d / "full")
    short, _ = gop.write_runs("cranfield", SAMPLE[2:], d / "short", depth=100)
    return c, [(f, 1000) for f in full] + [(f, 100) for f in short], qrels


def test_tiny_grid_is_a_labelled_collection(tiny_grid):
    c, _, _ = tiny_grid
    assert c.shape == (5, 225, 1000) and c.max_grade == 4 and not c.is_simulated
    assert c.system_labels["model"] == ("BM25", "DPH", "LMDir2000", "BB2", "lnc.ltc")
    assert c.system_labels["lug"][1] == "4grams"
    assert (c.run_lengths <= 1000).all() and (c.run_lengths > 0).mean() > 0.99
    assert c.judgments.sum() == 1837 and (c.judgments[:, 1:].sum(1) > 0).all()


def test_measures_equal_pytrec_eval(tiny_grid):
    c, files, qrels = tiny_grid
    q = io.read_qrels(qrels)
    qd: dict = {}
    for t, d, r in q.itertuples(index=False):
        qd.setdefault(t, {})[d] = int(r)
    names = {"map", "P_10", "ndcg_cut_10", "recip_rank", "ndcg"}
    ev = pytrec_eval.RelevanceEvaluator(qd, names)
    assert [f.name for f, _ in files] == [f"input.{s}" for s in c.systems]
    for s, (f, depth) in enumerate(files):
        ours = {"map": c.evaluate(AP(), depth=depth), "P_10": c.evaluate(P(k=10), depth=10),
                "ndcg_cut_10": c.evaluate(NDCG(discount="log2p1", gains="graded"), depth=10),
                "ndcg": c.evaluate(NDCG(discount="log2p1", gains="graded"), depth=depth),
                "recip_rank": c.evaluate(RR(), depth=depth)}
        run = io.read_run(f)
        rd: dict = {}
        for t, d, sc in run[["topic", "docno", "score"]].itertuples(index=False):
            rd.setdefault(t, {})[d] = float(sc)
        res = ev.evaluate(rd)
        for m, arr in ours.items():
            ref = np.array([res[t][m] if t in res else 0.0 for t in c.topics])
            np.testing.assert_allclose(arr[:, s], ref, rtol=1e-12, atol=1e-12, err_msg=f"{c.systems[s]} {m}")


def test_cranfield_bm25_baseline_in_published_range():
    _mirror_or_skip("cranfield")
    b = gop.baseline("cranfield")
    # see the gop module docstring for the sources of this range
    assert 0.25 <= b["MAP"] <= 0.45 and 0.18 <= b["P@10"] <= 0.32, b


def test_presets_and_combined(tmp_path, monkeypatch):
    _mirror_or_skip("cranfield")
    _mirror_or_skip("cisi")
    _mirror_or_skip("cacm")
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path))
    two = SAMPLE[:2]
    c = gop.load_combined(depth=50, parts=2, seed=3, systems=two, progress=False)
    assert c.shape == (2, 225 + 76 + 52, 50) and c.max_grade == 1
    tracks = pd.Series(c.topic_labels["track"]).value_counts().to_dict()
    assert tracks == {"cranfield-1": 113, "cranfield-2": 112, "cisi-1": 38, "cisi-2": 38,
                      "cacm-1": 26, "cacm-2": 26}
    assert c.topics[0] == "cranfield:1" and c.topic_labels["corpus"][-1] == "cacm"
    # the cache is used: a second load gives the same arrays
    again = gop.load("cisi", depth=50, grades="binary", systems=two, progress=False)
    assert (again.rel == c.where(corpus="cisi").rel).all()
    assert list((tmp_path / "gop").glob("cisi-binary-*.npz"))


def test_missing_data_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_COLLECTIONS", str(tmp_path / "none"))
    monkeypatch.setattr(datasets, "archive_dir", lambda: tmp_path / "no-archives")
    monkeypatch.setattr(datasets, "external_dir", lambda: tmp_path / "ext")
    with pytest.raises(datasets.DataUnavailable, match="make data"):
        gop.build("cisi", SAMPLE[:1], cache=False, progress=False)
    assert gop.main(["cisi"]) == 1
    assert gop.main(["trec8"]) == 2


# ----------------------------------------------------------------------------- bm25s cross-check


@pytest.mark.parametrize("model, k1, b", [("BM25", 1.2, 0.75), ("BM25b", 0.9, 0.4)])
def test_bm25_equals_bm25s_on_cranfield(model, k1, b):
    """Our BM25 against bm25s (method 'lucene': the same idf, tf part without the (k1 + 1)
    factor, float32 scores) on the Cranfield index with the Lucene stop list and Porter."""
    bm25s = pytest.importorskip("bm25s")
    _mirror_or_skip("cranfield")
    coll = datasets.load("cranfield")
    w = gop_index.word_counts(coll, coll.judged_topics[:40])
    idx = gop_index.build_index(w, "lucene", "porter")
    qbin = idx.Q.copy()
    qbin.data[:] = 1  # bm25s scores each distinct query token once
    S, match = gop_index.score(gop_index.Index(idx.X, qbin, idx.docnos, idx.topics[:40]), model)
    X = idx.X.tocsr()
    corpus = [[str(u) for u, n in zip(X.indices[X.indptr[d]:X.indptr[d + 1]],
                                      X.data[X.indptr[d]:X.indptr[d + 1]]) for _ in range(int(n))]
              for d in range(X.shape[0])]
    r = bm25s.BM25(method="lucene", k1=k1, b=b)
    r.index(corpus, show_progress=False)
    for t in range(qbin.shape[0]):
        toks = [str(u) for u in qbin.indices[qbin.indptr[t]:qbin.indptr[t + 1]]]
        ref = np.asarray(r.get_scores(toks), np.float64)
        np.testing.assert_allclose(S[:, t] / (k1 + 1), ref, rtol=2e-6, atol=1e-6)


def test_trec_files_read_back_to_the_same_arrays(tiny_grid):
    from irscales.data.collection import Collection

    c, files, qrels = tiny_grid
    full = [f for f, depth in files if depth == 1000]
    back = Collection.from_trec(full, qrels, depth=1000)
    mine = c.subset(systems=list(back.systems))
    assert back.topics == mine.topics
    assert (back.rel == mine.rel).all() and (back.run_lengths == mine.run_lengths).all()
    assert (back.judgments == mine.judgments).all()


def test_a_damaged_cached_grid_is_built_again(tmp_path, monkeypatch):
    # issue 27 item 5: cached grids are saved collections with a checksum; a changed byte is not trusted
    _mirror_or_skip("cisi")
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path))
    one = SAMPLE[:1]
    c = gop.load("cisi", depth=50, grades="binary", systems=one, progress=False)
    (npz,) = (tmp_path / "gop").glob("cisi-binary-*.npz")
    raw = bytearray(npz.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    npz.write_bytes(raw)
    with pytest.warns(UserWarning, match="saved collection is damaged.*building the grid again"):
        again = gop.load("cisi", depth=50, grades="binary", systems=one, progress=False)
    assert (again.rel == c.rel).all()
    assert gop.load("cisi", depth=50, grades="binary", systems=one, progress=False).rel.tobytes() == c.rel.tobytes()
