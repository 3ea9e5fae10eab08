"""Tests of irscales.data._gop_index: model formulas checked by hand and against scalar
re-implementations, indexing (stop lists, stemmers, n-grams as matrices), scoring and the trec_eval
ordering; no data needed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from irscales.data import _gop_index as gop_index
from irscales.data import smart


LOG2E = 1 / math.log(2)


def log2(x):
    return math.log(x, 2)


def test_bm25_by_hand():
    # N = 3 documents, the unit in 1 of them once, document of average length:
    # idf = ln(1 + 2.5/1.5) = ln(8/3); tf part = 1·2.2/(1 + 1.2) = 1
    w = gop_index.term_weights("BM25", [1], [10], [1], [1], N=3, avgdl=10.0, total=30.0)
    assert w[0] == pytest.approx(math.log(8 / 3), rel=1e-15)


def test_pl2_inl2_by_hand():
    # tf = 2 in a document of average length: tfn = 2·log2(1 + 1) = 2; F = 2, N = 4: λ = 1/2
    args = dict(tf=[2], dl=[5], df=[1], cf=[2], N=4, avgdl=5.0, total=20.0)
    pl2 = (2 * log2(2 / 0.5) + (0.5 - 2) * LOG2E + 0.5 * log2(2 * math.pi * 2)) / 3
    assert gop_index.term_weights("PL2", **args)[0] == pytest.approx(pl2, rel=1e-14)
    inl2 = 2 * log2(5 / 1.5) / 3
    assert gop_index.term_weights("InL2", **args)[0] == pytest.approx(inl2, rel=1e-14)
    # IFB2: (F+1)/(n_t (tfn+1)) · tfn · log2((N+1)/(F+0.5)) = 1 · 2 · log2(2)
    assert gop_index.term_weights("IFB2", **args)[0] == pytest.approx(2.0, rel=1e-14)


def test_dph_dlh_single_term_document_is_finite():
    # a document made of the unit alone (f = 1): DPH weight 0, DLH13 drops the undefined half-term
    dph = gop_index.term_weights("DPH", [3], [3], [1], [3], N=10, avgdl=3.0, total=30.0)
    dlh = gop_index.term_weights("DLH13", [3], [3], [1], [3], N=10, avgdl=3.0, total=30.0)
    assert dph[0] == 0.0
    assert dlh[0] == pytest.approx(3 * log2(10) / 3.5, rel=1e-14)


# scalar re-implementations written from the papers' formulas, one document/unit at a time
def _ref(model, tf, dl, df, F, N, avgdl, total):
    tfn = tf * log2(1 + avgdl / dl)
    if model == "BM25":
        return math.log(1 + (N - df + 0.5) / (df + 0.5)) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))
    if model == "BM25b":
        return math.log(1 + (N - df + 0.5) / (df + 0.5)) * tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * dl / avgdl))
    if model == "TF_IDF":
        return 1.2 * tf / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl)) * log2(N / df + 1)
    if model.startswith("LMDir"):
        mu = float(model[5:])
        return math.log(1 + tf / (mu * F / total))
    if model.startswith("LMJM"):
        lam = float(model[4:])
        return math.log(((1 - lam) * tf / dl + lam * F / total) / (lam * F / total))
    if model == "PL2":
        lam = F / N
        return (tfn * log2(tfn / lam) + (lam - tfn) * LOG2E + 0.5 * log2(2 * math.pi * tfn)) / (tfn + 1)
    if model == "InL2":
        return tfn / (tfn + 1) * log2((N + 1) / (df + 0.5))
    b = (F + 1) / (df * (tfn + 1))
    if model == "InB2":
        return b * tfn * log2((N + 1) / (df + 0.5))
    if model == "In_expB2":
        return b * tfn * log2((N + 1) / (N * (1 - ((N - 1) / N) ** F) + 0.5))
    if model == "IFB2":
        return b * tfn * log2((N + 1) / (F + 0.5))
    if model == "BB2":
        t = min(tfn, F - 0.5)

        def s(n, m):
            return (m + 0.5) * log2(n / m) + (n - m) * log2(m)
        return b * (-log2(N - 1) - LOG2E + s(N + F - 1, N + F - t - 2) - s(F, F - t))
    f = tf / dl
    if model == "DLH13":
        return (tf * log2(tf * avgdl / dl * N / F) + 0.5 * log2(2 * math.pi * tf * (1 - f))) / (tf + 0.5)
    if model == "DPH":
        return (1 - f) ** 2 / (tf + 1) * (tf * log2(tf * avgdl / dl * N / F) + 0.5 * log2(2 * math.pi * tf * (1 - f)))
    raise KeyError(model)


CASES = [(1, 10, 1, 1), (3, 10, 2, 5), (2, 40, 5, 9), (7, 25, 3, 20), (1, 3, 7, 30), (4, 8, 4, 4)]


@pytest.mark.parametrize("model", [m for m in gop_index.MODELS if "ltc" not in m])
def test_term_weights_match_scalar_formulas(model):
    N, avgdl, total = 50, 20.0, 1000.0
    tf, dl, df, F = (np.array(x, float) for x in zip(*CASES))
    got = gop_index.term_weights(model, tf, dl, df, F, N, avgdl, total)
    want = [_ref(model, *c, N, avgdl, total) for c in CASES]
    np.testing.assert_allclose(got, want, rtol=1e-13)


def _tiny(docs: dict[str, str], queries: dict[str, str], qrels) -> smart.SmartCollection:
    q = pd.DataFrame(qrels, columns=["topic", "docno", "rel"])
    return smart.SmartCollection("tiny", docs, queries, q, q["rel"].to_numpy(), 1)


TINY = _tiny({"1": "the flow of heated gas flows", "2": "heat flow", "10": "shock shock waves",
              "9": "the gas", "3": "unrelated words only"},
             {"1": "gas flow", "2": "shock wave heating"}, [("1", "1", 1), ("2", "10", 1)])


def test_unit_matrix_stop_stem_ngrams():
    w = gop_index.word_counts(TINY, ["1", "2"])
    vocab = {v: i for i, v in enumerate(w.vocab)}
    M = gop_index._unit_matrix(w.vocab, frozenset({"the", "of"}), "porter").toarray()
    assert M[vocab["the"]].sum() == 0 and M[vocab["of"]].sum() == 0
    assert (M[vocab["flow"]] == M[vocab["flows"]]).all() and M[vocab["flow"]].sum() == 1
    for lug in ("lancaster", "lovins", "snowball"):  # words of one family share a unit
        L = gop_index._unit_matrix(["connection", "connected", "the"], frozenset({"the"}), lug).toarray()
        assert (L[0] == L[1]).all() and L[0].sum() == 1 and L[2].sum() == 0, lug
    G = gop_index._unit_matrix(["aaaa", "ab"], frozenset(), "3grams").toarray()
    assert G.tolist() == [[2, 0], [0, 1]]  # 'aaa' twice in 'aaaa'; 'ab' shorter than 3 is one unit
    idx = gop_index.build_index(w, "lucene", "none")
    assert idx.dl.tolist() == [4, 2, 3, 1, 3]  # 'the', 'of' removed
    assert idx.N == 5 and idx.avgdl == pytest.approx(13 / 5)


@pytest.mark.parametrize("model", gop_index.MODELS)
def test_score_equals_brute_force(model):
    w = gop_index.word_counts(TINY, ["1", "2"])
    idx = gop_index.build_index(w, "none", "porter")
    S, match = gop_index.score(idx, model)
    X, Q = idx.X.toarray(), idx.Q.toarray()
    D, T = X.shape[0], Q.shape[0]
    ref = np.zeros((D, T))
    for d in range(D):
        for t in range(T):
            for u in np.flatnonzero((X[d] > 0) & (Q[t] > 0)):
                args = (X[d, u], idx.dl[d], idx.df[u], idx.cf[u], idx.N, idx.avgdl, idx.total)
                if model == "lnc.ltc":
                    wd = (1 + math.log(X[d, u])) / math.sqrt(sum((1 + math.log(x)) ** 2 for x in X[d] if x))
                    ref[d, t] += wd * (1 + math.log(Q[t, u])) * math.log(idx.N / idx.df[u])
                elif model == "ltc.ltc":
                    idf = np.log(idx.N / np.maximum(idx.df, 1))
                    nd = math.sqrt(sum(((1 + math.log(x)) * idf[v]) ** 2 for v, x in enumerate(X[d]) if x))
                    ref[d, t] += (1 + math.log(X[d, u])) * idf[u] / nd * (1 + math.log(Q[t, u])) * idf[u]
                else:
                    ref[d, t] += Q[t, u] * _ref(model, *args)
            if model.startswith("LMDir"):
                mu = float(model[5:])
                ref[d, t] += Q[t].sum() * math.log(mu / (idx.dl[d] + mu))
    assert match.tolist() == ((X > 0).astype(int) @ (Q > 0).astype(int).T > 0).tolist()
    np.testing.assert_allclose(S[match], ref[match], rtol=1e-12, atol=1e-12)


def test_dirichlet_is_rank_equivalent_to_query_likelihood():
    w = gop_index.word_counts(TINY, ["1", "2"])
    idx = gop_index.build_index(w, "none", "none")
    S, match = gop_index.score(idx, "LMDir500")
    X, Q = idx.X.toarray(), idx.Q.toarray()
    pc = idx.cf / idx.total
    inv = pc > 0  # units of the query absent from the collection are dropped by both
    full = np.log((X[:, inv] + 500 * pc[inv]) / (idx.dl[:, None] + 500)) @ Q[:, inv].T  # log p(q|d)
    diff = (full - S)[:, 0][match[:, 0]]
    assert np.ptp(diff) < 1e-12  # a constant per query: same ranking


def test_rank_breaks_ties_like_trec_eval():
    docnos = ["10", "9", "2", "100", "3"]
    S = np.array([[1.0], [1.0], [1.0], [2.0], [0.5]])
    match = np.array([[True], [True], [True], [True], [False]])
    order, L = gop_index.rank(S, match, docnos, depth=4)
    # score descending, then docno descending in byte order: '9' > '2' > '10'
    assert [docnos[i] for i in order[0]] == ["100", "9", "2", "10"] and L.tolist() == [4]
    order, L = gop_index.rank(S, match, docnos, depth=6)
    assert order[0, 4:].tolist() == [-1, -1] and L.tolist() == [4]


def test_grid_size_and_labels():
    systems = gop_index.grid_systems()
    n_lugs = len(gop_index.available_lugs())
    assert len(systems) == 4 * n_lugs * 17 >= 500
    assert len({s.name for s in systems}) == len(systems)
    with pytest.raises(KeyError, match="unknown model"):
        gop_index.grid_systems(models=["BM26"])
    with pytest.raises(KeyError, match="unknown stop list"):
        gop_index.stoplist("german")


def _rank_by_lexsort(S, match, docnos, depth):
    """trec_eval's order as two sort keys (the reading rank() used before issue 49: a lexsort)."""
    key = gop_index.strcmp_ranks(np.asarray(docnos, dtype=object))
    St = np.where(match, gop_index.as_trec_scores(S), -np.inf).T
    order = np.lexsort((np.broadcast_to(-key, St.shape), -St), axis=-1)[:, :depth]
    lengths = np.minimum(match.sum(0), depth)
    order = np.where(np.arange(order.shape[1])[None, :] < lengths[:, None], order, -1)
    return np.pad(order, ((0, 0), (0, depth - order.shape[1])), constant_values=-1), lengths


@pytest.mark.parametrize("seed", range(6))
def test_rank_by_one_key_is_the_lexsort_of_score_and_docno(seed):
    """rank() sorts one unsigned key (the float32 score's bits, then the docno): the same order as sorting by
    score descending then docno descending, with ties, -0.0 against 0.0, negative scores, doubles equal in
    float32, unmatched documents and depths below and above the number of documents."""
    rng = np.random.default_rng(seed)
    D, T = 300, 7
    S = rng.choice(np.array([-2.5, -1e-3, -0.0, 0.0, 1e-3, 0.5, 0.5 + 2**-40, 1.0, 3.25]), size=(D, T))
    S = np.where(rng.random((D, T)) < 0.5, S, rng.normal(size=(D, T)))
    match = rng.random((D, T)) < 0.8
    docnos = [f"D{rng.integers(0, 10**6)}-{i}" for i in range(D)]
    for depth in (5, 100, 400):
        got, ref = gop_index.rank(S, match, docnos, depth), _rank_by_lexsort(S, match, docnos, depth)
        assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])


@pytest.mark.parametrize("model", ["BM25", "LMDir500", "lnc.ltc", "PL2"])
def test_scores_are_the_bits_of_sparse_times_sparse(model):
    """score() multiplies the weights by a dense query matrix: every score is the double that sparse times sparse
    (the route before issue 49) summed, bit for bit."""
    w = gop_index.word_counts(TINY, ["1", "2"])
    idx = gop_index.build_index(w, "none", "none")
    S, match = gop_index.score(idx, model)
    X, Q = idx.X, idx.Q
    qcols = np.unique(Q.indices)
    Xq, Qq = X[:, qcols].tocsr(), Q[:, qcols].tocsr()
    W = Xq.copy()
    W.data = np.random.default_rng(1).random(len(W.data))  # any weights: the summation order is the point
    dense = W @ Qq.T.toarray()
    sparse = np.asarray((W @ Qq.T).todense())
    assert np.array_equal(dense.view(np.uint64), sparse.view(np.uint64))

    rng = np.random.default_rng(2)  # and at a size where sums hold hundreds of terms
    W = sp.random(1000, 400, density=0.3, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    Qb = sp.random(60, 400, density=0.5, format="csr", random_state=rng, data_rvs=rng.random)
    dense, sparse = W @ Qb.T.toarray(), np.asarray((W @ Qb.T).todense())
    assert np.array_equal(dense.view(np.uint64), sparse.view(np.uint64))
    assert S.shape == match.shape == (X.shape[0], Q.shape[0]) and match.dtype == bool
