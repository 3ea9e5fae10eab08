"""A public Grid of Points on Cranfield, CISI and CACM (issue 11; Fer17 §3 built the first one).

Fer17 ran every combination of stop list × lexical unit generator (LUG) × retrieval model on
TREC collections. Their runs cannot be shared; this module builds the same kind of grid on the
public collections read by :mod:`irscales.data.smart` (found or fetched by :mod:`irscales.data.datasets`),
so that every run-based analysis has real runs and real judgments, reproducible by anyone.

The retrieval side (components, text processing, scoring: :mod:`irscales.data._gop_index`) makes
4 × 9 × 17 = 612 systems per collection (576 without Krovetz); this module builds their runs on a
collection into a :class:`~irscales.data.collection.Collection`, caches it, and writes TREC files.
The presets ``gop-cranfield``, ``gop-cisi``, ``gop-cacm``, ``gop-combined`` are loaded by
:func:`irscales.data.presets.load_preset`.

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

import argparse
import hashlib
import json
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Literal, Sequence

import numpy as np

from irscales import paths
from irscales._progress import bar, iterate
from irscales.data import datasets
from irscales.data import smart
from irscales.data import trec
from irscales.data.collection import Collection
from irscales.data._gop_index import (DEPTH, LUGS, MODELS, STOPLISTS, Index, System, as_trec_scores,
                                      available_lugs, build_index, grid_systems, rank, score, term_weights,
                                      word_counts)
from irscales.measures import AP, P

__all__ = ["System", "grid_systems", "baseline", "build", "load", "write_runs"]

_VERSION = "gop-2"  # bump when anything that changes runs changes; part of the cache key


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
        try:
            return Collection.load(cpath)
        except (ValueError, OSError) as e:  # a damaged cache entry (checksum): built again, not trusted
            warnings.warn(f"{e}; building the grid again", stacklevel=2)
    topics = coll.judged_topics
    words = word_counts(coll, topics)
    Mq, J, G = _qrels_matrix(coll, topics, words.docnos, grades)
    S_, T = len(systems), len(topics)
    rel = np.zeros((S_, T, DEPTH), np.int8)
    lengths = np.zeros((S_, T), np.int64)
    pos = {s.name: i for i, s in enumerate(systems)}
    pairs: dict[tuple[str, str], list[System]] = {}
    for s in systems:
        pairs.setdefault((s.stop, s.lug), []).append(s)
    shown_bar = bar(S_, f"GoP {name}", progress)
    tix = np.arange(T)[:, None]
    for (stop, lug), group in pairs.items():
        index = build_index(words, stop, lug)
        for s in group:
            S, match = score(index, s.model)
            order, L = rank(S, match, words.docnos)
            i = pos[s.name]
            rel[i] = np.where(order >= 0, Mq[tix, np.maximum(order, 0)], 0)
            lengths[i] = L
            shown_bar.update()
    shown_bar.close()
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
    return replace(c, rel=np.ascontiguousarray(c.rel_at(depth)), padded_to=None, judged=None,  # counted at c.depth
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


def write_runs(name: str, systems: Sequence[System | str], directory: str | Path,
               depth: int = DEPTH, grades: Literal["graded", "binary"] = "graded",
               gz: bool = False, progress: bool = False) -> tuple[list[Path], Path]:
    """Write systems of the grid on collection ``name`` as TREC run files
    ``<directory>/runs/input.<system>[.gz]`` (depth ``depth``; judged queries) and the qrels as
    ``<directory>/qrels.txt``. Returns (run files, qrels path). The whole grid of a collection
    is ~140 million lines for Cranfield: use ``gz=True`` for it."""
    coll = datasets.load(name)
    topics = coll.judged_topics
    words = word_counts(coll, topics)
    d = Path(directory)
    files = []
    by_pair: dict[tuple[str, str], Index] = {}
    for s in iterate(systems, len(systems), f"TREC {name}", progress):
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
        trec.write_run(path, tt, dd, np.concatenate(ss) if ss else [], s.name)
        files.append(path)
    q = coll.qrels if grades == "graded" else coll.binary_qrels()
    q = q[q["topic"].isin(set(topics))]
    qpath = d / "qrels.txt"
    trec.write_qrels(qpath, q["topic"], q["docno"], q["rel"])
    return files, qpath


def baseline(name: str = "cranfield", stop: str = "lucene", lug: str = "porter",
             model: str = "BM25") -> dict[str, float]:
    """MAP and P@10 (binary qrels, depth 1000) of one configuration, for the sanity check."""
    c = build(name, [System(stop, lug, model)], grades="binary", cache=False, progress=False)  # type: ignore[arg-type]
    return {"MAP": float(c.evaluate(AP()).mean()), "P@10": float(c.evaluate(P(k=10), depth=10).mean())}


def main(argv: list[str] | None = None) -> int:
    """``python -m irscales.data.gop [corpus ...] [--trec DIR [--gz]]``: build (or find cached) grids
    and print a summary; with ``--trec``, also write every run as TREC files under DIR/<corpus>/."""
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
