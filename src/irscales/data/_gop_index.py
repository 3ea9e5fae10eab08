"""The retrieval side of the public Grid of Points (:mod:`irscales.data.gop`): stop lists, lexical
unit generators (LUGs), indexes, term weights of the retrieval models, scoring and ranking.

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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from irscales.data import datasets
from irscales.data import smart
from irscales.data._trec_order import strcmp_ranks

__all__ = ["DEPTH", "STOPLISTS", "LUGS", "MODELS", "stoplist", "available_lugs", "System", "grid_systems",
           "Words", "word_counts", "Index", "build_index", "term_weights", "score", "as_trec_scores", "rank"]

DEPTH = 1000

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
class Words:
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


def word_counts(coll: smart.SmartCollection, topics: Sequence[str]) -> Words:
    """The one tokenisation of a collection every index of the grid is built from: word counts of
    its documents and of the queries ``topics``."""
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
    return Words(vocab, X, Q, docnos, list(topics))


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

    @cached_property
    def query_units(self) -> tuple[np.ndarray, sp.csr_matrix, sp.csr_matrix, np.ndarray]:
        """(the units some query holds, ``X`` and ``Q`` on those units, [docs × queries] whether the document
        holds a unit of the query): the same for every model of this index (:func:`score`), so made once."""
        qcols = np.unique(self.Q.indices)
        Xq = self.X[:, qcols].tocsr()
        Qq = self.Q[:, qcols].tocsr()
        B = sp.csr_matrix((np.ones_like(Xq.data), Xq.indices, Xq.indptr), shape=Xq.shape)
        return qcols, Xq, Qq, np.asarray((B @ (Qq.T > 0).astype(np.float64)).todense()) > 0


def build_index(words: Words, stop: str, lug: str) -> Index:
    """The index of one (stop list, LUG) pair: ``X_w @ M`` and ``Q_w @ M`` (module docstring)."""
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
    X = index.X
    qcols, Xq, Qq, match = index.query_units
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
    # sparse times dense: each score summed over the document's units in the same order as sparse times
    # sparse did, only 7x faster (every score of the grid the same bits: tests/test_gop_index.py)
    S = W @ qw.T.toarray()
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
    """Rank of each docno in byte order (trec_eval's strcmp tie-break), kept for the next run."""
    return strcmp_ranks(np.asarray(docnos, dtype=object))


def rank(S: np.ndarray, match: np.ndarray, docnos: Sequence[str], depth: int = DEPTH) -> tuple[np.ndarray, np.ndarray]:
    """Top-``depth`` document indices per query [queries × depth] (−1 past the run's end) and run
    lengths, by score descending then docno descending in byte order (trec_eval's order)."""
    key = _docno_key(tuple(docnos))
    if not np.isfinite(S[match]).all():
        raise FloatingPointError("a retrieved document has a non-finite score")
    D = S.shape[0]
    # one unsigned key per document, sorted ascending: the float32 score descending (its bits made to sort as
    # the floats do; + 0 makes -0.0 the tie of 0.0 it is), then the docno descending; a lexsort of the two
    # gives the same order (tests/test_gop_index.py), 4x slower
    St = np.where(match, S.astype(np.float32), np.float32(-np.inf)).T + np.float32(0)  # [queries × docs]
    bits = St.view(np.uint32)
    ascending = np.where(bits >> np.uint32(31), ~bits, bits | np.uint32(0x80000000))
    composite = ((~ascending).astype(np.uint64) << np.uint64(32)) | (D - 1 - key).astype(np.uint64)[None, :]
    order = np.argsort(composite, axis=-1)[:, :depth]
    lengths = np.minimum(match.sum(0), depth)
    order = np.where(np.arange(order.shape[1])[None, :] < lengths[:, None], order, -1)
    if order.shape[1] < depth:
        order = np.pad(order, ((0, 0), (0, depth - order.shape[1])), constant_values=-1)
    del D
    return order, lengths.astype(np.int64)
