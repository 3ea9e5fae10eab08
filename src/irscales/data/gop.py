"""A public Grid of Points on Cranfield, CISI and CACM (issue 11; Fer17 §3 built the first one).

Fer17 ran every combination of stop list × lexical unit generator (LUG) × retrieval model on
TREC collections. Their runs cannot be shared; this module builds the same kind of grid on the
public collections read by :mod:`irscales.data.smart` (found or fetched by :mod:`irscales.data.datasets`),
so that every run-based analysis has real runs and real judgments, reproducible by anyone.

Components (:data:`STOPLISTS`, :data:`LUGS`, :data:`MODELS`):

- stop lists: ``none``; ``lucene`` (Lucene's classic 33-word English default, written out below
  as a list of words); ``stopwords-en`` (the ``stop-words`` package's English list);
  ``cacm-common`` (CACM's own ``common_words``, read from the collection files);
- LUGs: ``none``; ``porter`` and ``snowball`` (PyStemmer: Porter's original algorithm and the
  Snowball English stemmer); ``krovetz`` (krovetzstemmer; skipped with a note when the package
  is missing); ``lovins`` (package ``stemming``); ``lancaster`` (NLTK's Paice/Husk Lancaster
  stemmer; no NLTK data needed); ``3grams``, ``4grams``, ``5grams`` (character n-grams within
  each word; a word shorter than n is one unit);
- models: BM25 (two parameter settings), three TF-IDF variants, query likelihood with
  Dirichlet (μ = 500, 2000) and Jelinek–Mercer (λ = 0.15, 0.7) smoothing, and eight
  divergence-from-randomness models (PL2, InL2, InB2, In_expB2, BB2, IFB2 of Amati & van
  Rijsbergen 2002; DLH13 and DPH of Amati 2006/2007). Formulas are in :func:`term_weights`.

That is 4 × 9 × 17 = 612 systems per collection (576 without Krovetz).

Text processing. Text is lower-cased and split into maximal runs of ``[a-z0-9]``. Stop words
are removed from the words, then the LUG maps each remaining word to its units. Because both
steps act on words, an index is a product of sparse matrices: word counts ``X_w`` [docs ×
words] times a unit matrix ``M`` [words × units] (stemmer: one 1 per word; n-grams: the number
of times each n-gram occurs in the word; stop words: a zero row). Every index of the grid is
built this way from one tokenisation of the collection.

Scoring. A model's score of document d for query q is Σ_t qtf(t) · w(t, d) over the query's
units t (plus, for Dirichlet, a document-length term), computed for all documents and queries
as one sparse product. A run retrieves the documents that hold at least one query unit, sorted
by score descending and, on equal scores, by document number descending in byte order (what
trec_eval does with a TREC file). Scores are rounded to single precision first
(:func:`as_trec_scores`): pytrec_eval compares scores as floats, and without the rounding two
documents whose scores differ past float32 precision were ordered differently by it (seen on
Cranfield). The files hold exactly the rounded values, so they reproduce the ranking.
Runs are cut at depth 1000.

The cache (``<cache>/gop/<corpus>-<grades>-<hash>.npz`` + ``.json``, :meth:`irscales.data.collection.Collection.save`)
holds the relevance arrays at depth 1000; :func:`write_runs` writes any system's run in TREC
format, recomputing it from the index (a fraction of a second).

Sanity baseline (:func:`baseline`): BM25 + Porter with the Lucene stop list, binary qrels, depth
1000, gives MAP 0.3065 and P@10 0.2342 on Cranfield (225 queries), MAP 0.2169 / P@10 0.3526 on
CISI (76 judged queries) and MAP 0.3465 / P@10 0.3577 on CACM (52). We found no peer-reviewed
table of BM25 on these collections in this session's sources; the public reference points we could
read are the Cranfield project of Masaryk University's PV211 course (target: at least 22% MAP for
an unsupervised ranked system) and the Cranfield relevance test of the Narsil search library
(floors MAP ≥ 0.27, P@10 ≥ 0.21, nDCG@10 ≥ 0.32 for its BM25 engine). Our values sit in that
range; ``tests/test_gop.py::test_cranfield_bm25_baseline_in_published_range`` keeps MAP in
[0.25, 0.45] and P@10 in [0.18, 0.32]. This is an order-of-magnitude check, not a reproduction.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Literal, Sequence

import numpy as np
import scipy.sparse as sp

from irscales import paths
from irscales.data import datasets
from irscales.data import smart
from irscales.data.collection import Collection

__all__ = ["STOPLISTS", "LUGS", "MODELS", "System", "grid_systems", "Index", "build_index",
           "term_weights", "score", "rank", "as_trec_scores", "build", "load", "load_combined", "write_runs",
           "PRESET_NAMES", "load_preset", "baseline", "available_lugs"]

DEPTH = 1000
_VERSION = "gop-2"  # bump when anything that changes runs changes; part of the cache key

PRESET_NAMES = ("gop-cranfield", "gop-cisi", "gop-cacm", "gop-combined")

# Lucene's classic English stop set (StopAnalyzer.ENGLISH_STOP_WORDS_SET), a list of words
_LUCENE = ("a an and are as at be but by for if in into is it no not of on or such that the "
           "their then there these they this to was will with").split()

STOPLISTS = ("none", "lucene", "stopwords-en", "cacm-common")
LUGS = ("none", "porter", "snowball", "krovetz", "lovins", "lancaster", "3grams", "4grams", "5grams")
MODELS = ("BM25", "BM25b", "TF_IDF", "lnc.ltc", "ltc.ltc", "LMDir500", "LMDir2000", "LMJM0.15",
          "LMJM0.7", "PL2", "InL2", "InB2", "In_expB2", "BB2", "IFB2", "DLH13", "DPH")

_TOKEN = re.compile(r"[a-z0-9]+")


# ----------------------------------------------------------------------------- components


@lru_cache(maxsize=None)
def stoplist(name: str) -> frozenset[str]:
    """The words of stop list ``name`` (lower case)."""
    if name == "none":
        return frozenset()
    if name == "lucene":
        return frozenset(_LUCENE)
    if name == "stopwords-en":
        try:
            from stop_words import get_stop_words
        except ImportError:
            raise ImportError("stop list 'stopwords-en' needs the package stop-words "
                              "(pip install stop-words)") from None
        return frozenset(w.lower() for w in get_stop_words("en"))
    if name == "cacm-common":
        return frozenset(datasets.load("cacm").stopwords)
    raise KeyError(f"unknown stop list {name!r}; choose one of {', '.join(STOPLISTS)}")


def _stemmer(name: str) -> Callable[[list[str]], list[str]]:
    """A function stemming a list of words, for LUG ``name`` (imports lazily)."""
    try:
        if name in ("porter", "snowball"):
            import Stemmer

            st = Stemmer.Stemmer("porter" if name == "porter" else "english")
            return st.stemWords
        if name == "krovetz":
            import krovetzstemmer

            ks = krovetzstemmer.Stemmer()
            return lambda ws: [ks.stem(w) for w in ws]
        if name == "lovins":
            from stemming import lovins

            def _lovins(w: str) -> str:
                # the package's Lovins indexes past the start of some short words; such a word
                # is kept unstemmed (Lovins removes no ending leaving a stem under 2 letters)
                try:
                    return lovins.stem(w)
                except IndexError:
                    return w

            return lambda ws: [_lovins(w) for w in ws]
        if name == "lancaster":
            from nltk.stem import LancasterStemmer

            ls = LancasterStemmer()
            return lambda ws: [ls.stem(w) for w in ws]
    except ImportError as e:
        pkg = {"porter": "PyStemmer", "snowball": "PyStemmer", "krovetz": "krovetzstemmer",
               "lovins": "stemming", "lancaster": "nltk"}[name]
        raise ImportError(f"LUG {name!r} needs the package {pkg} (pip install {pkg}): {e}") from None
    raise KeyError(f"unknown stemmer {name!r}")


def available_lugs() -> tuple[str, ...]:
    """The LUGs of :data:`LUGS` whose packages are installed (Krovetz needs a C++ build)."""
    out = []
    for name in LUGS:
        if name == "none" or name.endswith("grams"):
            out.append(name)
            continue
        try:
            _stemmer(name)
            out.append(name)
        except ImportError:
            pass
    return tuple(out)


@dataclass(frozen=True)
class System:
    """One point of the grid."""

    stop: str
    lug: str
    model: str

    @property
    def name(self) -> str:
        return f"{self.stop}.{self.lug}.{self.model}"


def grid_systems(stops: Sequence[str] = STOPLISTS, lugs: Sequence[str] | None = None,
                 models: Sequence[str] = MODELS) -> list[System]:
    """Every combination, stop-major then LUG then model (the order of the collections' systems)."""
    lugs = available_lugs() if lugs is None else tuple(lugs)
    for what, given, allowed in (("stop list", stops, STOPLISTS), ("LUG", lugs, LUGS), ("model", models, MODELS)):
        bad = [x for x in given if x not in allowed]
        if bad:
            raise KeyError(f"unknown {what}(s) {bad}; choose from {', '.join(allowed)}")
    return [System(s, l, m) for s in stops for l in lugs for m in models]


# ----------------------------------------------------------------------------- indexing


@dataclass
class _Words:
    """One tokenisation of a collection: word counts of documents and queries."""

    vocab: list[str]
    Xw: sp.csr_matrix  # docs × words
    Qw: sp.csr_matrix  # queries × words
    docnos: list[str]
    topics: list[str]


def _count_matrix(texts: Iterable[str], index: dict[str, int]) -> sp.csr_matrix:
    rows, cols = [], []
    n = 0
    for i, text in enumerate(texts):
        ids = [index.setdefault(w, len(index)) for w in _TOKEN.findall(text.lower())]
        rows.append(np.full(len(ids), i, dtype=np.int64))
        cols.append(np.asarray(ids, dtype=np.int64))
        n = i + 1
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    m = sp.coo_matrix((np.ones(len(r), np.float64), (r, c)), shape=(n, max(len(index), 1)))
    return m


def _words(coll: smart.SmartCollection, topics: Sequence[str]) -> _Words:
    index: dict[str, int] = {}
    docnos = list(coll.docs)
    X = _count_matrix((coll.docs[d] for d in docnos), index)
    Q = _count_matrix((coll.queries[t] for t in topics), index)
    V = len(index)
    X = sp.csr_matrix((X.data, (X.row, X.col)), shape=(X.shape[0], V))
    Q = sp.csr_matrix((Q.data, (Q.row, Q.col)), shape=(Q.shape[0], V))
    X.sum_duplicates()
    Q.sum_duplicates()
    vocab = [""] * V
    for w, i in index.items():
        vocab[i] = w
    return _Words(vocab, X, Q, docnos, list(topics))


_STEMS: dict[str, dict[str, str]] = {}


def _unit_matrix(vocab: list[str], stop: frozenset[str], lug: str) -> sp.csr_matrix:
    """[words × units] matrix of stop list + LUG (module docstring)."""
    keep = [i for i, w in enumerate(vocab) if w not in stop]
    words = [vocab[i] for i in keep]
    if lug == "none":
        units = words
        rows, per = np.asarray(keep, np.int64), None
    elif lug.endswith("grams"):
        n = int(lug[0])
        units, rr = [], []
        for i, w in zip(keep, words):
            grams = [w] if len(w) <= n else [w[j:j + n] for j in range(len(w) - n + 1)]
            units += grams
            rr += [i] * len(grams)
        rows = np.asarray(rr, np.int64)
    else:
        # stems are memoised per LUG: the grid stems the same words once per stop list
        memo = _STEMS.setdefault(lug, {})
        todo = [w for w in words if w not in memo]
        if todo:
            memo.update(zip(todo, _stemmer(lug)(todo)))
        units = [memo[w] for w in words]
        rows = np.asarray(keep, np.int64)
    uindex: dict[str, int] = {}
    cols = np.fromiter((uindex.setdefault(u, len(uindex)) for u in units), np.int64, len(units))
    M = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(vocab), max(len(uindex), 1)))
    M.sum_duplicates()  # an n-gram twice in a word counts twice
    return M


@dataclass
class Index:
    """Document and query unit counts of one (stop list, LUG) pair, with collection statistics.

    ``X`` [docs × units] counts; ``Q`` [queries × units] counts; ``dl`` document lengths (units);
    ``df`` document frequencies; ``cf`` collection frequencies; ``N`` documents; ``avgdl``.
    """

    X: sp.csr_matrix
    Q: sp.csr_matrix
    docnos: list[str]
    topics: list[str]

    def __post_init__(self):
        self.X = sp.csr_matrix(self.X)
        self.Q = sp.csr_matrix(self.Q)
        self.X.eliminate_zeros()
        self.Q.eliminate_zeros()
        self.N = self.X.shape[0]
        self.dl = np.asarray(self.X.sum(1)).ravel()
        self.df = np.bincount(self.X.indices, minlength=self.X.shape[1]).astype(np.float64)
        self.cf = np.asarray(self.X.sum(0)).ravel()
        self.avgdl = float(self.dl.mean()) if self.N else 0.0
        self.total = float(self.cf.sum())


def build_index(words: _Words, stop: str, lug: str) -> Index:
    M = _unit_matrix(words.vocab, stoplist(stop), lug)
    return Index((words.Xw @ M).tocsr(), (words.Qw @ M).tocsr(), words.docnos, words.topics)


# ----------------------------------------------------------------------------- models

_LOG2E = 1.0 / math.log(2.0)


def _log2(x):
    return np.log2(x)


def term_weights(model: str, tf: np.ndarray, dl: np.ndarray, df: np.ndarray, cf: np.ndarray,
                 N: int, avgdl: float, total: float, c: float = 1.0) -> np.ndarray:
    """Weight w(t, d) of a unit t in a document d with tf ≥ 1, elementwise (float64).

    ``tf`` occurrences of t in d, ``dl`` length of d, ``df`` (n_t) documents holding t,
    ``cf`` (F) occurrences of t in the collection, ``N`` documents, ``avgdl`` mean length,
    ``total`` tokens in the collection. The score is Σ_t qtf · w(t, d) (plus a document term
    for Dirichlet, :func:`score`). DFR models use normalisation 2 with c = 1:
    tfn = tf · log2(1 + c·avgdl/dl).

    BM25 (Robertson et al.; k1 = 1.2, b = 0.75; ``BM25b``: k1 = 0.9, b = 0.4):
        idf · tf (k1+1) / (tf + k1 (1 − b + b dl/avgdl)),  idf = ln(1 + (N − n_t + 0.5)/(n_t + 0.5)).
    TF_IDF (Terrier's): Robertson tf (k1 = 1.2, b = 0.75) · log2(N/n_t + 1), with
        Robertson tf = k1 tf / (tf + k1 (1 − b + b dl/avgdl)).
    lnc.ltc (SMART): document (1 + ln tf)/‖d‖ (cosine over the document's units); query
        (1 + ln qtf)·ln(N/n_t) — here w = (1 + ln tf)/‖d‖ · ln(N/n_t) and qtf enters as
        (1 + ln qtf) (:func:`score`).
    ltc.ltc: document (1 + ln tf)·ln(N/n_t)/‖d‖_idf, query as lnc.ltc.
    LMDir<μ> (Zhai & Lafferty 2001, rank-equivalent form): ln(1 + tf/(μ p_C)), p_C = F/total;
        plus |q| ln(μ/(dl + μ)) per document.
    LMJM<λ> (Jelinek–Mercer): ln(1 + (1 − λ) (tf/dl) / (λ p_C)).
    PL2 (Amati & van Rijsbergen 2002, Poisson + Laplace): with λ = F/N,
        1/(tfn + 1) · [tfn log2(tfn/λ) + (λ − tfn) log2 e + 0.5 log2(2π tfn)].
    InL2: 1/(tfn + 1) · tfn · log2((N + 1)/(n_t + 0.5)).
    InB2: (F + 1)/(n_t (tfn + 1)) · tfn · log2((N + 1)/(n_t + 0.5)).
    In_expB2: (F + 1)/(n_t (tfn + 1)) · tfn · log2((N + 1)/(n_e + 0.5)),
        n_e = N (1 − ((N − 1)/N)^F).
    BB2 (Bose–Einstein + Bernoulli): (F + 1)/(n_t (tfn + 1)) · [−log2(N − 1) − log2 e
        + s(N + F − 1, N + F − tfn − 2) − s(F, F − tfn)], s(n, m) = (m + 0.5) log2(n/m) + (n − m) log2 m.
    IFB2: (F + 1)/(n_t (tfn + 1)) · tfn · log2((N + 1)/(F + 0.5)).
    DLH13 (Amati 2006, parameter free), f = tf/dl:
        [tf log2((tf avgdl/dl)(N/F)) + 0.5 log2(2π tf (1 − f))]/(tf + 0.5).
    DPH (Amati et al. 2007), f = tf/dl:
        (1 − f)²/(tf + 1) · [tf log2((tf avgdl/dl)(N/F)) + 0.5 log2(2π tf (1 − f))].
    For DLH13 and DPH a document made of t alone (f = 1) makes log2(1 − f) undefined: DPH's factor
    (1 − f)² is 0 there, so its weight is 0; for DLH13 the undefined half-term is dropped.
    BB2's Stirling terms follow Terrier's implementation. Normalisation 2 can make tfn exceed F
    (a rare unit in a short document), where s(F, F − tfn) is undefined (Terrier returns NaN);
    we cap tfn at F − 0.5 inside the Bose–Einstein part only (the factor (F + 1)/(n_t (tfn + 1))
    keeps the uncapped tfn).
    """
    tf = np.asarray(tf, np.float64)
    dl = np.asarray(dl, np.float64)
    df = np.asarray(df, np.float64)
    F = np.asarray(cf, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if model in ("BM25", "BM25b"):
            k1, b = (1.2, 0.75) if model == "BM25" else (0.9, 0.4)
            idf = np.log1p((N - df + 0.5) / (df + 0.5))
            return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
        if model == "TF_IDF":
            k1, b = 1.2, 0.75
            return k1 * tf / (tf + k1 * (1 - b + b * dl / avgdl)) * _log2(N / df + 1)
        if model.startswith("LMDir"):
            mu = float(model[5:])
            return np.log1p(tf / (mu * F / total))
        if model.startswith("LMJM"):
            lam = float(model[4:])
            return np.log1p((1 - lam) * (tf / dl) / (lam * F / total))
        if model in ("DLH13", "DPH"):
            f = tf / dl
            half = np.where(f < 1, 0.5 * _log2(2 * np.pi * tf * np.maximum(1 - f, 1e-300)), 0.0)
            core = tf * _log2((tf * avgdl / dl) * (N / F)) + half
            if model == "DLH13":
                return core / (tf + 0.5)
            return np.where(f < 1, (1 - f) ** 2 / (tf + 1) * core, 0.0)
        tfn = tf * _log2(1 + c * avgdl / dl)
        if model == "PL2":
            lam = F / N
            return (tfn * _log2(tfn / lam) + (lam - tfn) * _LOG2E + 0.5 * _log2(2 * np.pi * tfn)) / (tfn + 1)
        if model == "InL2":
            return tfn * _log2((N + 1) / (df + 0.5)) / (tfn + 1)
        b2 = (F + 1) / (df * (tfn + 1))
        if model == "InB2":
            return b2 * tfn * _log2((N + 1) / (df + 0.5))
        if model == "In_expB2":
            ne = N * (1 - ((N - 1) / N) ** F)
            return b2 * tfn * _log2((N + 1) / (ne + 0.5))
        if model == "IFB2":
            return b2 * tfn * _log2((N + 1) / (F + 0.5))
        if model == "BB2":
            def s(n, m):
                return (m + 0.5) * _log2(n / m) + (n - m) * _log2(m)
            t = np.minimum(tfn, F - 0.5)  # tfn > F leaves the binomial undefined (see docstring)
            return b2 * (-_log2(N - 1) - _LOG2E + s(N + F - 1, N + F - t - 2) - s(F, F - t))
    raise KeyError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")


def score(index: Index, model: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores [docs × queries] of ``model`` and the mask of documents holding a query unit."""
    X, Q = index.X, index.Q
    qcols = np.unique(Q.indices)
    Xq = X[:, qcols].tocsr()
    Qq = Q[:, qcols].tocsr()
    rows = np.repeat(np.arange(X.shape[0]), np.diff(Xq.indptr))
    cols = qcols[Xq.indices]
    if model in ("lnc.ltc", "ltc.ltc"):
        idf_all = np.log(index.N / np.maximum(index.df, 1))
        logtf = 1 + np.log(X.data)
        full_cols = X.indices
        vals = logtf if model == "lnc.ltc" else logtf * idf_all[full_cols]
        full_rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        norm = np.sqrt(np.bincount(full_rows, weights=vals ** 2, minlength=X.shape[0]))
        d = 1 + np.log(Xq.data)
        if model == "ltc.ltc":
            d = d * idf_all[cols]
        w = d / norm[rows]
        qw = sp.csr_matrix(((1 + np.log(Qq.data)) * idf_all[qcols[Qq.indices]], Qq.indices, Qq.indptr),
                           shape=Qq.shape)
    else:
        w = term_weights(model, Xq.data, index.dl[rows], index.df[cols], index.cf[cols], index.N,
                         index.avgdl, index.total)
        qw = Qq
    W = sp.csr_matrix((w, Xq.indices, Xq.indptr), shape=Xq.shape)
    S = np.asarray((W @ qw.T).todense())
    B = sp.csr_matrix((np.ones_like(Xq.data), Xq.indices, Xq.indptr), shape=Xq.shape)
    match = np.asarray((B @ (Qq.T > 0).astype(np.float64)).todense()) > 0
    if model.startswith("LMDir"):
        mu = float(model[5:])
        qlen = np.asarray(Qq.sum(1)).ravel()
        S = S + np.log(mu / (index.dl + mu))[:, None] * qlen[None, :]
    return S, match


def as_trec_scores(S: np.ndarray) -> np.ndarray:
    """Scores rounded to single precision (returned as float64).

    pytrec_eval compares run scores in single precision: two documents whose double scores differ
    only beyond float32's 24 bits are a tie for it, broken by docno. Rounding first makes every
    such tie a tie here too, and the rounded values are exact in any TREC file we write."""
    return np.asarray(S, np.float64).astype(np.float32).astype(np.float64)


@lru_cache(maxsize=8)
def _docno_key(docnos: tuple[str, ...]) -> np.ndarray:
    """Rank of each docno in byte order (trec_eval's strcmp tie-break)."""
    order = sorted(range(len(docnos)), key=lambda i: docnos[i].encode())
    key = np.empty(len(docnos), np.int64)
    key[order] = np.arange(len(docnos))
    return key


def rank(S: np.ndarray, match: np.ndarray, docnos: Sequence[str], depth: int = DEPTH) -> tuple[np.ndarray, np.ndarray]:
    """Top-``depth`` document indices per query [queries × depth] (−1 past the run's end) and run
    lengths, by score descending then docno descending in byte order (trec_eval's order)."""
    key = _docno_key(tuple(docnos))
    S = as_trec_scores(S)
    St = np.where(match, S, -np.inf).T  # [queries × docs]
    if not np.isfinite(St[match.T]).all():
        raise FloatingPointError("a retrieved document has a non-finite score")
    D = S.shape[0]
    order = np.lexsort((np.broadcast_to(-key, St.shape), -St), axis=-1)[:, :depth]
    lengths = np.minimum(match.sum(0), depth)
    order = np.where(np.arange(order.shape[1])[None, :] < lengths[:, None], order, -1)
    if order.shape[1] < depth:
        order = np.pad(order, ((0, 0), (0, depth - order.shape[1])), constant_values=-1)
    del D
    return order, lengths.astype(np.int64)


# ----------------------------------------------------------------------------- the grid


def _qrels_matrix(coll: smart.SmartCollection, topics: Sequence[str], docnos: Sequence[str],
                  grades: str) -> tuple[np.ndarray, np.ndarray, int]:
    q = coll.qrels if grades == "graded" else coll.binary_qrels()
    G = coll.max_grade if grades == "graded" else 1
    tpos = {t: i for i, t in enumerate(topics)}
    dpos = {d: i for i, d in enumerate(docnos)}
    M = np.zeros((len(topics), len(docnos)), np.int8)
    J = np.zeros((len(topics), G + 1), np.int64)
    for t, d, r in q[["topic", "docno", "rel"]].itertuples(index=False):
        if t in tpos:
            M[tpos[t], dpos[d]] = r
            J[tpos[t], r] += 1
    return M, J, G


def _cache_key(name: str, systems: Sequence[System], grades: str, coll: smart.SmartCollection) -> str:
    h = hashlib.sha256(json.dumps([_VERSION, name, grades, coll.counts(), [s.name for s in systems]]).encode())
    return h.hexdigest()[:16]


def _progress(it, total: int, desc: str, show: bool | None):
    """A progress bar on stderr; ``show=None``: only when stderr is a terminal (so notebooks and
    logs stay deterministic)."""
    if show is None:
        show = sys.stderr.isatty()
    if not show:
        return it
    try:
        from tqdm import tqdm

        return tqdm(it, total=total, desc=desc, file=sys.stderr, leave=False)
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return it


def build(name: Literal["cranfield", "cisi", "cacm"], systems: Sequence[System] | None = None,
          grades: Literal["graded", "binary"] = "graded", cache: bool = True,
          progress: bool | None = None) -> Collection:
    """The grid on collection ``name`` as a :class:`~irscales.data.collection.Collection` at depth
    1000 (judged queries only; system labels ``stop``, ``lug``, ``model``; topic label
    ``corpus``). ``grades``: Cranfield's graded qrels (0–4) or binary (CISI and CACM are binary
    either way). Cached under ``<cache>/gop/`` keyed by components, grades and content counts.
    """
    systems = grid_systems() if systems is None else list(systems)
    coll = datasets.load(name)
    key = _cache_key(name, systems, grades, coll)
    cpath = paths.cache_dir() / "gop" / f"{name}-{grades}-{key}"
    if cache and cpath.with_suffix(".npz").exists():
        return Collection.load(cpath)
    topics = coll.judged_topics
    words = _words(coll, topics)
    Mq, J, G = _qrels_matrix(coll, topics, words.docnos, grades)
    S_, T = len(systems), len(topics)
    rel = np.zeros((S_, T, DEPTH), np.int8)
    lengths = np.zeros((S_, T), np.int64)
    pos = {s.name: i for i, s in enumerate(systems)}
    pairs: dict[tuple[str, str], list[System]] = {}
    for s in systems:
        pairs.setdefault((s.stop, s.lug), []).append(s)
    bar = _progress(range(S_), S_, f"GoP {name}", progress)
    it = iter(bar)
    tix = np.arange(T)[:, None]
    for (stop, lug), group in pairs.items():
        index = build_index(words, stop, lug)
        for s in group:
            S, match = score(index, s.model)
            order, L = rank(S, match, words.docnos)
            i = pos[s.name]
            rel[i] = np.where(order >= 0, Mq[tix, np.maximum(order, 0)], 0)
            lengths[i] = L
            next(it, None)
    if hasattr(bar, "close"):
        bar.close()
    out = Collection(rel=rel, judgments=J, run_lengths=lengths, topics=tuple(topics),
                     systems=tuple(s.name for s in systems),
                     provenance=f"public: gop-{name} ({grades} qrels) depth={DEPTH}",  # no paths: notebooks print it
                     max_grade=G, topic_labels={"corpus": (name,) * T},
                     system_labels={"stop": tuple(s.stop for s in systems),
                                    "lug": tuple(s.lug for s in systems),
                                    "model": tuple(s.model for s in systems)})
    if cache:
        cpath.parent.mkdir(parents=True, exist_ok=True)
        out.save(cpath)
    return out


def _cut(c: Collection, depth: int) -> Collection:
    if depth == c.depth:
        return c
    if not 1 <= depth <= c.depth:
        raise ValueError(f"depth must lie in 1..{c.depth}, got {depth}")
    from dataclasses import replace

    return replace(c, rel=np.ascontiguousarray(c.rel[:, :, :depth]),
                   provenance=c.provenance.rsplit(" depth=", 1)[0] + f" depth={depth}")


def load(name: str, depth: int = DEPTH, grades: Literal["graded", "binary"] = "graded",
         systems: Sequence[System] | None = None, progress: bool | None = None) -> Collection:
    """The grid of one collection (:func:`build`, from the cache when built), cut at ``depth``."""
    return _cut(build(name, systems, grades, progress=progress), depth)  # type: ignore[arg-type]


def load_combined(depth: int = DEPTH, parts: int = 2, seed: int = 0,
                  systems: Sequence[System] | None = None, progress: bool | None = None) -> Collection:
    """The multi-corpus grid (Fer17 RQ3): the same systems on the three collections, binary
    qrels. Topics are named ``<corpus>:<id>``; labels ``corpus`` and ``track``: each collection's
    judged queries are shuffled (``numpy.random.default_rng(seed)``) and split into ``parts``
    topic sets of (nearly) equal size, ``<corpus>-1`` … ``<corpus>-<parts>``."""
    if parts < 1:
        raise ValueError(f"parts must be >= 1, got {parts}")
    rng = np.random.default_rng(seed)
    cs = [load(n, depth, "binary", systems, progress) for n in smart.NAMES]
    rel = np.concatenate([c.rel for c in cs], axis=1)
    J = np.concatenate([c.judgments for c in cs], axis=0)
    L = np.concatenate([c.run_lengths for c in cs], axis=1)
    topics, corpus, track = [], [], []
    for n, c in zip(smart.NAMES, cs):
        T = len(c.topics)
        part = np.empty(T, np.int64)
        part[rng.permutation(T)] = np.arange(T) % parts
        topics += [f"{n}:{t}" for t in c.topics]
        corpus += [n] * T
        track += [f"{n}-{p + 1}" for p in part]
    c0 = cs[0]
    return Collection(rel=rel, judgments=J, run_lengths=L, topics=tuple(topics), systems=c0.systems,
                      provenance=f"public: gop-combined (binary qrels; parts={parts} seed={seed}) depth={depth}",
                      max_grade=1, topic_labels={"corpus": tuple(corpus), "track": tuple(track)},
                      system_labels=dict(c0.system_labels))


def load_preset(name: str, depth: int = 100, seed: int = 0) -> Collection:
    """Presets ``gop-cranfield``, ``gop-cisi``, ``gop-cacm`` (graded qrels for Cranfield) and
    ``gop-combined`` (:func:`load_combined`, split seeded by ``seed``), cut at ``depth``."""
    if name not in PRESET_NAMES:
        raise KeyError(f"unknown preset {name!r}; choose one of {', '.join(PRESET_NAMES)}")
    if name == "gop-combined":
        return load_combined(depth=depth, seed=seed)
    return load(name[4:], depth=depth)


def write_runs(name: str, systems: Sequence[System | str], directory: str | Path,
               depth: int = DEPTH, grades: Literal["graded", "binary"] = "graded",
               gz: bool = False, progress: bool = False) -> tuple[list[Path], Path]:
    """Write systems of the grid on collection ``name`` as TREC run files
    ``<directory>/runs/input.<system>[.gz]`` (depth ``depth``; judged queries) and the qrels as
    ``<directory>/qrels.txt``. Returns (run files, qrels path). The whole grid of a collection
    is ~140 million lines for Cranfield: use ``gz=True`` for it."""
    from irscales.data import trec as trec_io

    coll = datasets.load(name)
    topics = coll.judged_topics
    words = _words(coll, topics)
    d = Path(directory)
    files = []
    by_pair: dict[tuple[str, str], Index] = {}
    for s in _progress(systems, len(systems), f"TREC {name}", progress):
        if isinstance(s, str):
            parts = s.split(".", 1)
            stop, rest = parts[0], parts[1]
            lug, model = rest.split(".", 1)
            s = System(stop, lug, model)
        if (s.stop, s.lug) not in by_pair:
            by_pair[(s.stop, s.lug)] = build_index(words, s.stop, s.lug)
        S, match = score(by_pair[(s.stop, s.lug)], s.model)
        order, L = rank(S, match, words.docnos, depth)
        tt, dd, ss = [], [], []
        for t, topic in enumerate(topics):
            idx = order[t, :L[t]]
            tt += [topic] * len(idx)
            dd += [words.docnos[i] for i in idx]
            ss.append(as_trec_scores(S[idx, t]))
        path = d / "runs" / (f"input.{s.name}" + (".gz" if gz else ""))
        trec_io.write_run(path, tt, dd, np.concatenate(ss) if ss else [], s.name)
        files.append(path)
    q = coll.qrels if grades == "graded" else coll.binary_qrels()
    q = q[q["topic"].isin(set(topics))]
    qpath = d / "qrels.txt"
    trec_io.write_qrels(qpath, q["topic"], q["docno"], q["rel"])
    return files, qpath


def baseline(name: str = "cranfield", stop: str = "lucene", lug: str = "porter",
             model: str = "BM25") -> dict[str, float]:
    """MAP and P@10 (binary qrels, depth 1000) of one configuration, for the sanity check."""
    from irscales.measures import AP, P

    c = build(name, [System(stop, lug, model)], grades="binary", cache=False, progress=False)  # type: ignore[arg-type]
    return {"MAP": float(c.evaluate(AP()).mean()), "P@10": float(c.evaluate(P(k=10), depth=10).mean())}


def main(argv: list[str] | None = None) -> int:
    """``python -m irscales.data.gop [corpus ...] [--trec DIR [--gz]]``: build (or find cached) grids
    and print a summary; with ``--trec``, also write every run as TREC files under DIR/<corpus>/."""
    import argparse
    import time

    ap = argparse.ArgumentParser(prog="python -m irscales.data.gop", description=main.__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=list(smart.NAMES), help=f"among {', '.join(smart.NAMES)}")
    ap.add_argument("--trec", metavar="DIR", help="write every run of the grid as TREC files under DIR/<corpus>/")
    ap.add_argument("--gz", action="store_true", help="gzip the TREC run files")
    args = ap.parse_args(argv)
    bad = [n for n in args.corpora if n not in smart.NAMES]
    if bad:
        print(f"unknown collection(s) {bad}; choose among {', '.join(smart.NAMES)}", file=sys.stderr)
        return 2
    for n in args.corpora:
        t0 = time.perf_counter()
        try:
            c = build(n, progress=True)  # type: ignore[arg-type]
            if args.trec:
                write_runs(n, grid_systems(), Path(args.trec) / n, gz=args.gz, progress=True)
        except (datasets.DataUnavailable, smart.SmartFormatError, ImportError) as e:
            print(f"{n}: {e}", file=sys.stderr)
            return 1
        print(f"{n}: {c!r} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
