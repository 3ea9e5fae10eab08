"""Relevance arrays ``[system, topic, rank]`` from parsed runs and qrels (issue 2 item 5), with
the per-topic judgments measures need; the conventions are those of :mod:`irscales.data.trec`."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable, Literal

import numpy as np
import pandas as pd

from irscales.data.run_names import system_names
from irscales.data.trec_order import ParsedRun, check_precision, parsed_frame
from irscales.data.trec_parse import MAX_GRADE, TrecFormatError, grade_dtype

__all__ = ["RelevanceData", "relevance_arrays", "topic_key"]


@dataclass
class RelevanceData:
    """Relevance arrays and what measures need about each topic.

    ``rel``        ``[system, topic, rank]`` grades of ranks 1..W, padded with 0; int8 when every grade
                   is at most 127, else int16 (:func:`grade_dtype`). W is the run length ``depth``
                   (``pad=True``), or the longest run cut at ``depth`` (``pad=False``): ranks W+1..depth
                   are then not relevant, held virtually (issue 27 item 7).
    ``judgments``  int64 ``[topic, grade]``: number of judged documents of each grade 0..G.
    ``run_lengths`` int64 ``[system, topic]``: documents each run retrieved (before the cut).
    ``depth``      the run length N the runs are cut at (and padded to).
    """

    rel: np.ndarray
    topics: list[str]
    systems: list[str]
    judgments: np.ndarray
    run_lengths: np.ndarray
    sources: list[str]
    depth: int | None = None

    def __post_init__(self):
        if self.depth is None:
            self.depth = int(self.rel.shape[-1])


def topic_key(t: str) -> tuple[int, int, str]:
    """Numeric topic ids in numeric order (2 before 10), then the others as strings."""
    return (0, int(t), t) if t.isdigit() else (1, 0, t)


def _warn_or_raise(policy: str, path, what: str) -> None:
    if policy == "error":
        raise TrecFormatError(path, None, what)
    warnings.warn(what, stacklevel=3)


class _GradeLookup:
    """Grade of (topic index, judged-document index), 0 when not judged: a dense table when small,
    else a search in the sorted keys."""

    _DENSE_CELLS = 2**24

    def __init__(self, q_t: np.ndarray, q_d: np.ndarray, q_rel: np.ndarray, n_topics: int, n_docs: int,
                 dtype: np.dtype):
        self.n_docs, self.dtype = n_docs, dtype
        if n_topics * (n_docs + 1) <= self._DENSE_CELLS:
            self.table = np.zeros((n_topics, n_docs + 1), dtype=dtype)  # last column: not judged
            self.table[q_t, q_d] = q_rel
        else:
            self.table = None
            key = q_t * n_docs + q_d
            order = np.argsort(key, kind="stable")
            self.key, self.rel = key[order], q_rel[order].astype(dtype)

    def __call__(self, t: np.ndarray, d: np.ndarray) -> np.ndarray:
        if self.table is not None:
            return self.table[t, np.where(d >= 0, d, self.n_docs)]
        out = np.zeros(len(t), dtype=self.dtype)
        if len(self.key):
            key = t * self.n_docs + d
            pos = np.minimum(np.searchsorted(self.key, key), len(self.key) - 1)
            hit = (d >= 0) & (self.key[pos] == key)
            out[hit] = self.rel[pos[hit]]
        return out


def relevance_arrays(
    runs: Iterable[pd.DataFrame],
    qrels: pd.DataFrame,
    depth: int,
    *,
    on_missing_topic: Literal["error", "skip"] = "error",
    on_no_relevant: Literal["error", "skip", "keep"] = "skip",
    on_uneven_topics: Literal["error", "pad"] = "error",
    max_grade: int | None = None,
    score_precision: Literal["float32", "float64"] = "float32",
    pad: bool = True,
) -> RelevanceData:
    """Relevance arrays ``[system, topic, rank]`` at cut-off ``depth`` (issue 2 item 5).

    ``runs`` are frames from :func:`read_run` (a list, or any iterable: they are consumed one at
    a time, so memory stays bounded by one run and the output); ``qrels`` from :func:`read_qrels`.
    Topics are those of the runs (with ``on_uneven_topics='pad'``: of the qrels), numeric ids in
    numeric order, then other ids as strings. ``score_precision`` decides which scores tie (see the
    module docstring). ``pad``: ``rel`` holds ``depth`` ranks; ``False``: only as many as the longest
    run (cut at ``depth``) retrieved, so memory follows the runs' real length, not ``depth``
    (:class:`RelevanceData`).

    on_missing_topic  a run topic that has no judgments: ``'error'`` or ``'skip'`` it (warning).
    on_no_relevant    a topic whose judgments hold no relevant document: ``'error'``, ``'skip'``
                      (warning) or ``'keep'`` (pytrec_eval reports such a topic with every
                      measure 0, so keeping it lowers averages).
    on_uneven_topics  systems whose topic sets differ: ``'error'``, or ``'pad'`` the missing
                      topics with empty runs (all not relevant), as ``trec_eval -c`` does: every
                      topic of the qrels is then evaluated, also one that no run retrieved
                      (``on_no_relevant`` still decides about topics without a relevant document).
    """
    check_precision(score_precision)
    parsed = (r if isinstance(r, ParsedRun) else parsed_frame(r, i, score_precision) for i, r in enumerate(runs))
    return _relevance_arrays(parsed, qrels, depth, on_missing_topic=on_missing_topic,
                             on_no_relevant=on_no_relevant, on_uneven_topics=on_uneven_topics, max_grade=max_grade,
                             pad=pad)


def _relevance_arrays(runs: Iterable[ParsedRun], qrels: pd.DataFrame, depth: int, *, on_missing_topic: str,
                      on_no_relevant: str, on_uneven_topics: str, max_grade: int | None,
                      pad: bool = True) -> RelevanceData:
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    for name, val, allowed in (("on_missing_topic", on_missing_topic, ("error", "skip")),
                               ("on_no_relevant", on_no_relevant, ("error", "skip", "keep")),
                               ("on_uneven_topics", on_uneven_topics, ("error", "pad"))):
        if val not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
    qpath = qrels.attrs.get("path", "<qrels>")

    # every judged topic gets a row; topics no run retrieves are dropped at the end
    qtopics = sorted(pd.unique(qrels["topic"].astype(str)), key=topic_key)
    tindex = pd.Index(qtopics, dtype=object)
    q_t = tindex.get_indexer(qrels["topic"].astype(str)).astype(np.int64)
    q_rel = qrels["rel"].to_numpy(np.int64)
    if len(q_rel) and q_rel.min() < 0:  # a frame not made by read_qrels
        row = int(np.argmax(q_rel < 0))
        raise TrecFormatError(qpath, None, f"negative grade {int(q_rel[row])} in qrels row {row + 1}; read the "
                              "qrels with read_qrels(..., negative='zero') to count it as judged not relevant")
    gmax = int(q_rel.max()) if len(q_rel) else 0
    if gmax > (MAX_GRADE if max_grade is None else max_grade):
        row = int(np.argmax(q_rel == gmax))
        raise TrecFormatError(qpath, None, f"grade {gmax} (qrels row {row + 1}) is outside the "
                              f"{'declared' if max_grade is not None else 'supported'} scale "
                              f"0..{MAX_GRADE if max_grade is None else max_grade}")
    if max_grade is not None:
        gmax = max_grade
    dtype = grade_dtype(gmax)
    judgments = np.zeros((len(qtopics), max(gmax, 1) + 1), dtype=np.int64)
    np.add.at(judgments, (q_t, q_rel), 1)
    q_d, q_docs = pd.factorize(qrels["docno"].astype(str).to_numpy(dtype=object))
    dindex = {doc: i for i, doc in enumerate(q_docs.tolist())}  # a dict: no dtype inference per run
    grades = _GradeLookup(q_t, q_d.astype(np.int64), q_rel, len(qtopics), len(q_docs), dtype)

    systems: list[str] = []
    paths: list[str] = []
    hits: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per run: (topic, rank, grade) of grades > 0
    lens: list[np.ndarray] = []
    absent: set[str] = set()
    T = len(qtopics)
    for p in runs:
        systems.append(p.system)
        paths.append(p.path)
        tmap = tindex.get_indexer(p.topics)
        if (tmap < 0).any():
            absent.update(p.topics[tmap < 0].tolist())
        counts = np.bincount(p.t_code, minlength=len(p.topics))
        rank = np.arange(len(p.t_code)) - (np.cumsum(counts) - counts)[p.t_code]
        length = np.zeros(T, dtype=np.int64)
        length[tmap[tmap >= 0]] = counts[tmap >= 0]
        tg = tmap[p.t_code]
        d = np.array([dindex.get(x, -1) for x in p.docnos.tolist()], dtype=np.int64)[p.d_code]
        if (tmap < 0).any() or counts.max() > depth:
            sel = np.flatnonzero((tg >= 0) & (rank < depth))
            tg, rank, d = tg[sel], rank[sel], d[sel]
        g = grades(tg, d)
        rel_docs = np.flatnonzero(g)  # only judged relevant documents are kept: memory follows them
        hits.append((tg[rel_docs], rank[rel_docs], g[rel_docs]))
        lens.append(length)
    if not systems:
        raise ValueError("no runs given")
    systems = system_names(systems, paths)  # by tag, or by file when files share a tag (issue 30)
    run_lengths = np.stack(lens)

    if absent:
        ab = sorted(absent, key=topic_key)
        ex = ", ".join(ab[:5]) + (", …" if len(ab) > 5 else "")
        _warn_or_raise(on_missing_topic, qpath,
                       f"{len(ab)} run topic(s) have no judgments in the qrels ({ex})"
                       + ("; pass on_missing_topic='skip' to drop them" if on_missing_topic == "error"
                          else "; skipped"))
    # judged topics some run retrieved; with 'pad', every judged topic, as trec_eval -c (issue 27 item 9)
    keep = (run_lengths > 0).any(0) if on_uneven_topics == "error" else np.ones(T, dtype=bool)
    norel = keep & (judgments[:, 1:].sum(1) == 0)
    if norel.any() and on_no_relevant != "keep":
        names = [qtopics[i] for i in np.flatnonzero(norel)]
        ex = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        _warn_or_raise(on_no_relevant, qpath,
                       f"{len(names)} topic(s) have no relevant document ({ex})"
                       + ("; pass on_no_relevant='skip' or 'keep'" if on_no_relevant == "error" else "; skipped"))
        keep &= ~norel
    if not (keep & (run_lengths > 0).any(0)).any():
        raise TrecFormatError(qpath, None, "no topic is both in the runs and (with a relevant document) in the qrels")
    kept = np.flatnonzero(keep)
    topics = [qtopics[i] for i in kept]
    if len(kept) < T:
        run_lengths, judgments = run_lengths[:, kept], judgments[kept]
    width = depth if pad else max(1, min(depth, int(run_lengths.max(initial=0))))
    rel = np.zeros((len(systems), len(kept), width), dtype=dtype)
    new_index = np.full(T, -1, dtype=np.int64)
    new_index[kept] = np.arange(len(kept))
    for s, (tg, rank, g) in enumerate(hits):
        tk = new_index[tg]
        on = tk >= 0
        rel[s, tk[on], rank[on]] = g[on]
    del hits
    if on_uneven_topics == "error":
        # checked on the topics kept, so a topic dropped above cannot make the runs uneven
        for s in range(len(systems)):
            missing = [topics[i] for i in np.flatnonzero(run_lengths[s] == 0)]
            if missing:
                ex = ", ".join(missing[:5])
                raise TrecFormatError(
                    paths[s], None, f"system {systems[s]!r} has no results for {len(missing)} topic(s) "
                    f"that other runs have ({ex}{', …' if len(missing) > 5 else ''}); pass "
                    "on_uneven_topics='pad' to count them as empty runs")
    return RelevanceData(rel=rel, topics=topics, systems=systems, judgments=judgments,
                         run_lengths=run_lengths, sources=paths, depth=depth)
