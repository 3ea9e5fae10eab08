"""One data layer for runs and qrels: :class:`Collection` (issue 7).

A collection holds, for S systems and T topics:

- ``rel``: relevance arrays ``[system, topic, rank]`` of grades (int8, or int16 when a grade exceeds
  127: :func:`irscales.data.trec.grade_dtype`; never narrowed further) of the first ranks of runs of
  length N = :attr:`Collection.depth`, padded with not relevant documents when a run is shorter than N
  (FFF21 §5.1). The padding is held virtually (issue 27 item 7): ``rel`` may stop at the longest run
  (``padded_to`` = N is then larger than ``rel.shape[-1]``), so reading runs of 1,000 documents at
  N = 10^6 costs what reading them at N = 1,000 does. :meth:`Collection.rel_at` and
  :meth:`Collection.binary` (the lenient mapping rel > 0, FFF21 §6) give the padded ``N``-rank view
  (an array of that size: meant for small N), :meth:`Collection.evaluate` computes measures on the
  stored ranks whenever the padding cannot change their value;
- ``judgments``: int64 ``[topic, grade]``, the number of judged documents of each grade (column
  0 = judged not relevant), from which come the recall base ``rb`` (documents with grade > 0) and
  the ideal run of nDCG (the judged grades in decreasing order);
- ``run_lengths``: int64 ``[system, topic]``, documents each run retrieved before the cut;
- ``judged`` (read from runs and qrels; None otherwise): int64 ``[system, topic]``, the documents among each
  run's first min(N, run length) ranks that the qrels judge at any grade, counted in the same reading as
  ``rel`` (judged@N, :mod:`irscales.data._judged`);
- names of topics and systems, optional labels (systems: stop list / LUG / model; topics: track,
  corpus) and a provenance string: ``"simulated: <preset> seed=<s> depth=<N>"`` or
  ``"trec: <runs> + <qrels>"``. :attr:`Collection.is_simulated` tells which; simulated results
  must say "simulated" in titles and file names (:meth:`Collection.label`); results on other data
  name their data (:attr:`Collection.data_label`: a public grid such as ``gop-cranfield``, or ``trec``).

Sources: :meth:`Collection.from_trec` (a directory of NIST run files or a list, plus qrels),
:func:`irscales.data.presets.load_preset` (simulated presets and the public grid), :meth:`Collection.load`
(``.npz`` + ``.json`` written by :meth:`Collection.save`). :meth:`Collection.to_trec` exports any
collection as TREC files that read back to identical arrays.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Literal, Mapping, Sequence

import numpy as np

from irscales._atomic import write_atomic
from irscales.data import trec as trec_io
from irscales._padding import padded as _padded
from irscales.measures import AP, DCG, ERR, GR, GRBP, NDCG, P, R, RBP, RR, SP, Cut, Measure, RPrec, Succ
from irscales.options import EVERY_DOCUMENT, READING_DEFAULTS, default_depth

__all__ = ["Collection"]

PathLike = str | os.PathLike


def _as_index(sel, names: Sequence[str], what: str) -> np.ndarray:
    """Indices for a selection given as names, integer positions or a boolean mask."""
    if sel is None:
        return np.arange(len(names))
    arr = np.asarray(list(sel) if not isinstance(sel, np.ndarray) else sel)
    if arr.dtype == bool:
        if arr.shape != (len(names),):
            raise ValueError(f"boolean {what} mask has shape {arr.shape}, expected ({len(names)},)")
        return np.flatnonzero(arr)
    if arr.size == 0:
        raise ValueError(f"empty {what} selection")
    if arr.dtype.kind in "iu":
        if arr.min() < -len(names) or arr.max() >= len(names):
            raise IndexError(f"{what} index out of range 0..{len(names) - 1}")
        return arr.astype(np.int64)
    pos = {n: i for i, n in enumerate(names)}
    missing = [str(x) for x in arr if str(x) not in pos]
    if missing:
        raise KeyError(f"unknown {what}(s): {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}")
    return np.array([pos[str(x)] for x in arr], dtype=np.int64)


@dataclass(frozen=True, eq=False, kw_only=True)
class Collection:
    """Runs and judgments of one test collection (see the module docstring)."""

    rel: np.ndarray
    judgments: np.ndarray
    run_lengths: np.ndarray
    topics: tuple[str, ...]
    systems: tuple[str, ...]
    provenance: str
    max_grade: int = 1
    topic_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    system_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    padded_to: int | None = None  # the run length N when rel holds fewer ranks (module docstring)
    judged: np.ndarray | None = None  # [system, topic] judged documents in the top min(N, run length)

    def __post_init__(self):
        S, T = len(self.systems), len(self.topics)
        if self.rel.ndim != 3 or self.rel.shape[:2] != (S, T):
            raise ValueError(f"rel has shape {self.rel.shape}, expected ({S}, {T}, depth)")
        if self.judgments.shape != (T, self.max_grade + 1):
            raise ValueError(f"judgments has shape {self.judgments.shape}, expected ({T}, {self.max_grade + 1})")
        if self.run_lengths.shape != (S, T):
            raise ValueError(f"run_lengths has shape {self.run_lengths.shape}, expected ({S}, {T})")
        if self.judged is not None and (self.judged.shape != (S, T) or (self.judged < 0).any()
                                        or (self.judged > np.minimum(self.run_lengths, self.depth)).any()):
            raise ValueError(f"judged must be ({S}, {T}) counts within each run's top min(N, run length)")
        if (self.judgments < 0).any():
            raise ValueError("judgment counts must be >= 0")
        if not 0 <= self.max_grade <= trec_io.MAX_GRADE:
            raise ValueError(f"max_grade must lie in 0..{trec_io.MAX_GRADE}, got {self.max_grade}")
        if self.rel.dtype.kind not in "iu":
            raise ValueError(f"rel must hold integer grades, got dtype {self.rel.dtype}")
        lo, hi = int(self.rel.min(initial=0)), int(self.rel.max(initial=0))
        if lo < 0 or hi > self.max_grade:
            raise ValueError(f"grades in rel must lie in 0..{self.max_grade}, found {lo}..{hi}")
        for what, labels, n in (("topic", self.topic_labels, T), ("system", self.system_labels, S)):
            for k, v in labels.items():
                if len(v) != n:
                    raise ValueError(f"{what} label {k!r} has {len(v)} values for {n} {what}s")
        if len(set(self.topics)) != T or len(set(self.systems)) != S:
            raise ValueError("topic and system names must be unique")
        W = self.rel.shape[-1]
        if self.padded_to is not None:
            if isinstance(self.padded_to, bool) or not isinstance(self.padded_to, (int, np.integer)) \
                    or self.padded_to < W:
                raise ValueError(f"padded_to must be an integer >= the {W} ranks rel holds, got {self.padded_to!r}")
            if self.padded_to > W and (self.run_lengths > W).any():  # ranks W+1.. are unknown, not padding
                raise ValueError(f"rel holds {W} ranks but some run retrieved {int(self.run_lengths.max())} "
                                 f"documents: it cannot be padded to {self.padded_to}")

    def __repr__(self) -> str:
        S, T, N = self.shape
        labels = sorted(list(self.topic_labels) + list(self.system_labels))
        return (f"Collection({S} systems x {T} topics, depth {N}, grades 0..{self.max_grade}, "
                f"labels {labels}; {self.provenance})")

    # ------------------------------------------------------------------ basic views
    @property
    def depth(self) -> int:
        """The run length N (``rel`` may hold fewer ranks: the rest is padding, see the module docstring)."""
        return int(self.rel.shape[-1] if self.padded_to is None else self.padded_to)

    @property
    def shape(self) -> tuple[int, int, int]:
        """(systems, topics, depth): the shape of :meth:`rel_at`'s padded view."""
        S, T, _ = self.rel.shape
        return S, T, self.depth

    @property
    def is_simulated(self) -> bool:
        return self.provenance.startswith("simulated")

    @property
    def rb(self) -> np.ndarray:
        """Recall base per topic: judged documents with grade > 0 (trec_eval's num_rel)."""
        return self.judgments[:, 1:].sum(1)

    def label(self, name: str) -> str:
        """``name`` prefixed with ``simulated_`` for a simulated collection (for titles/file names)."""
        return f"simulated_{name}" if self.is_simulated else name

    @property
    def data_label(self) -> str:
        """What the data are, for titles and file names: ``simulated``, the public preset
        (``gop-cranfield``, ``gop-combined`` …: real runs on a public collection) or ``trec``."""
        kind, _, rest = self.provenance.partition(":")
        if self.is_simulated:
            return "simulated"
        if kind.strip() == "public" and rest.split():
            return rest.split()[0]
        return kind.strip() or "unknown"

    def rel_at(self, depth: int | None = None, pad: bool = True) -> np.ndarray:
        """Grades at cut-off ``depth`` (default: :attr:`depth`), an array of ``depth`` ranks (padding
        made real: meant for small depths, refused past :func:`~irscales._padding.pad_bytes_limit`; :meth:`evaluate` avoids
        it). Deeper than :attr:`depth` is exact only when every run is that short (padding, FFF21 §5.1);
        otherwise it is an error. ``pad=False``: only the stored ranks among the first ``depth`` (the
        others are not relevant)."""
        depth = self.depth if depth is None else depth
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        depth = self._checked(depth)
        return _padded(self.rel, depth if pad else min(depth, self.rel.shape[-1]))

    def _checked(self, depth: int) -> int:
        """``depth``, after refusing a depth beyond the ranks the runs were cut at."""
        if depth > self.depth and (self.run_lengths > self.rel.shape[-1]).any():
            raise ValueError(f"this collection holds ranks 1..{self.depth} only; re-read or re-simulate "
                             f"it with depth >= {depth}")
        return depth

    def binary(self, depth: int | None = None, pad: bool = True) -> np.ndarray:
        """Lenient binary relevance (grade > 0), FFF21 §6, of :meth:`rel_at` (the stored ranks are
        mapped first, so the padded array is allocated once; ``pad`` as there)."""
        depth = self.depth if depth is None else depth
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        depth = self._checked(depth)
        stored = trec_io.lenient_binary(self.rel[..., :min(depth, self.rel.shape[-1])])
        return _padded(stored, depth) if pad else stored

    def ideal(self, depth: int | None = None) -> np.ndarray:
        """Ideal run per topic: judged grades in decreasing order, cut at ``depth``; shape [T, N]."""
        return _ideal(self.judgments, self.max_grade, self.depth if depth is None else depth)

    @property
    def total_gain(self) -> np.ndarray:
        """Total gain per topic Σ_g g · (judged documents of grade g): the recall base of gR (FFP19 §4.2)."""
        return self.judgments @ np.arange(self.max_grade + 1)

    def evaluate(self, measure: Measure, depth: int | None = None, exact: bool = False) -> np.ndarray:
        """The score matrix ``(T, S)`` of ``measure`` at cut-off ``depth`` (default :attr:`depth`) —
        one row per topic, one column per system, the orientation of every score matrix in irscales —
        passing the topic's recall base (the total gain for gR) and, for graded gains, its ideal run.
        ``exact=True`` returns :meth:`Measure.exact` Fractions (rational measures only; meant for
        small slices).

        Runs are padded to ``depth`` only as far as the measure's value can depend on it
        (:func:`_evaluation_width`; the same values bit for bit, tested on every measure), and what
        must be padded is computed in blocks of at most :data:`_BLOCK_CELLS` ranks, so memory follows
        the runs' real length, not ``depth``; the blocks keep the measures' float temporaries small
        whatever the size of the collection (the same values bit for bit, tested)."""
        depth = self._checked(self.depth if depth is None else depth)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        m, width = measure, depth
        if depth > self.rel.shape[-1]:
            m, width = _evaluation_width(measure, self.rel.shape[-1], depth, int(self.rb.max(initial=0)))
        graded = getattr(m, "gains", "binary") == "graded"
        rb = self.total_gain if m.divides_by == "total_gain" else self.rb
        # a cut measure pads the run to its k (Cut._top), so its ideal run holds k ranks: trec_eval's ndcg_cut_k
        # divides by the ideal DCG@k whatever the run's length or the depth (issue 47)
        ideal_width = max(width, m.k) if isinstance(m, Cut) else width
        S, T, _ = self.rel.shape
        tb = max(1, min(T, _BLOCK_CELLS // width))
        sb = max(1, min(S, _BLOCK_CELLS // (tb * width)))
        out = None
        for t0 in range(0, T, tb):
            ts = slice(t0, t0 + tb)
            ideal = _ideal(self.judgments[ts], self.max_grade, ideal_width)[None] if graded else None
            for s0 in range(0, S, sb):
                rel = _padded(self.rel[s0:s0 + sb, ts], width)
                r = rb[None, ts]
                v = (m.exact(rel, rb=np.broadcast_to(r, rel.shape[:-1]), ideal=ideal) if exact
                     else m(rel, rb=r, ideal=ideal))
                if out is None:
                    out = np.empty((T, S), dtype=v.dtype)
                out[ts, s0:s0 + sb] = v.T
        return out

    # ------------------------------------------------------------------ slicing
    def subset(self, topics=None, systems=None) -> "Collection":
        """The collection restricted to some topics and systems (names, positions or masks),
        in the order given; provenance records the selection."""
        ti = _as_index(topics, self.topics, "topic")
        si = _as_index(systems, self.systems, "system")
        note = []
        if topics is not None:
            note.append(f"{len(ti)} of {len(self.topics)} topics")
        if systems is not None:
            note.append(f"{len(si)} of {len(self.systems)} systems")
        return replace(
            self, rel=self.rel[np.ix_(si, ti)], judgments=self.judgments[ti],
            run_lengths=self.run_lengths[np.ix_(si, ti)],
            judged=None if self.judged is None else self.judged[np.ix_(si, ti)],
            topics=tuple(self.topics[i] for i in ti), systems=tuple(self.systems[i] for i in si),
            provenance=self.provenance + (f" [subset: {', '.join(note)}]" if note else ""),
            topic_labels={k: tuple(v[i] for i in ti) for k, v in self.topic_labels.items()},
            system_labels={k: tuple(v[i] for i in si) for k, v in self.system_labels.items()})

    def where(self, **labels: str | Sequence[str]) -> "Collection":
        """Subset by labels, e.g. ``where(track=['T13', 'T14', 'T15'])`` or ``where(model='bm25')``."""
        tmask = np.ones(len(self.topics), bool)
        smask = np.ones(len(self.systems), bool)
        for k, v in labels.items():
            want = {v} if isinstance(v, str) else set(v)
            if k in self.topic_labels:
                tmask &= np.isin(np.array(self.topic_labels[k], dtype=object), list(want))
            elif k in self.system_labels:
                smask &= np.isin(np.array(self.system_labels[k], dtype=object), list(want))
            else:
                known = sorted(list(self.topic_labels) + list(self.system_labels))
                raise KeyError(f"no label {k!r}; this collection has {known}")
        if not tmask.any() or not smask.any():
            raise ValueError(f"no topic or system matches {labels}")
        return self.subset(topics=tmask if not tmask.all() else None,
                           systems=smask if not smask.all() else None)

    # ------------------------------------------------------------------ save / load
    def save(self, path: PathLike) -> Path:
        """Write ``<path>.npz`` (compressed arrays) and ``<path>.json`` (names, labels, provenance)."""
        base = Path(path)
        base = base.with_suffix("") if base.suffix in (".npz", ".json") else base
        base.parent.mkdir(parents=True, exist_ok=True)
        extra = {} if self.judged is None else {"judged": self.judged}
        write_atomic(base.with_suffix(".npz"), lambda fh: np.savez_compressed(
            fh, rel=self.rel, judgments=self.judgments, run_lengths=self.run_lengths, **extra))
        meta = {"format": _SAVE_FORMAT, "provenance": self.provenance,
                "max_grade": self.max_grade, "topics": list(self.topics), "systems": list(self.systems),
                "topic_labels": {k: list(v) for k, v in self.topic_labels.items()},
                "system_labels": {k: list(v) for k, v in self.system_labels.items()},
                "padded_to": None if self.padded_to is None else int(self.padded_to)}
        meta["sha256"] = _saved_digest(base.with_suffix(".npz").read_bytes(), meta)
        write_atomic(base.with_suffix(".json"), json.dumps(meta, indent=1))
        return base

    @classmethod
    def load(cls, path: PathLike) -> "Collection":
        """A collection written by :meth:`save`. The SHA-256 stored with it covers the arrays and every
        field of the ``.json``: a changed byte of either is an error, never a silently different
        collection (files of the first format, without a checksum, are read as they are)."""
        base = Path(path)
        base = base.with_suffix("") if base.suffix in (".npz", ".json") else base
        try:
            text = base.with_suffix(".json").read_text()
            raw = base.with_suffix(".npz").read_bytes()
        except FileNotFoundError as e:
            raise FileNotFoundError(f"no saved collection at {base}(.json/.npz): {e.filename} is missing") from None
        try:
            meta = json.loads(text)
        except ValueError as e:
            raise ValueError(f"{base}.json is not a saved irscales Collection (not JSON: {e})") from None
        fmt = meta.get("format") if isinstance(meta, dict) else None
        if fmt not in (_SAVE_FORMAT, "irscales.Collection/1"):
            raise ValueError(f"{base}.json is not a saved irscales Collection")
        if fmt == _SAVE_FORMAT and meta.get("sha256") != _saved_digest(raw, meta):
            raise ValueError(f"{base}.npz/.json: the saved collection is damaged (its SHA-256 does not match: a "
                             "file was changed after Collection.save); save it again")
        try:
            arrays = np.load(io.BytesIO(raw))
            return cls(rel=arrays["rel"], judgments=arrays["judgments"], run_lengths=arrays["run_lengths"],
                       topics=tuple(meta["topics"]), systems=tuple(meta["systems"]),
                       provenance=meta["provenance"], max_grade=int(meta["max_grade"]),
                       topic_labels={k: tuple(v) for k, v in meta["topic_labels"].items()},
                       system_labels={k: tuple(v) for k, v in meta["system_labels"].items()},
                       padded_to=meta.get("padded_to"),
                       judged=arrays["judged"] if "judged" in arrays.files else None)
        except (KeyError, OSError, EOFError, zipfile.BadZipFile) as e:
            raise ValueError(f"{base}.npz/.json: not a readable saved collection ({type(e).__name__}: {e})") from None

    # ------------------------------------------------------------------ TREC
    @classmethod
    def from_trec(cls, runs: PathLike | Sequence[PathLike], qrels, depth: int | None = None, *,
                  max_grade: int | None = None, negative: Literal["error", "zero"] = READING_DEFAULTS["negative"],
                  on_missing_topic: Literal["skip", "error"] = READING_DEFAULTS["on_missing_topic"],
                  on_no_relevant: Literal["skip", "error", "keep"] = READING_DEFAULTS["on_no_relevant"],
                  on_uneven_topics: Literal["empty", "pad", "error"] = READING_DEFAULTS["on_uneven_topics"],
                  on_repeated_lines: Literal["error", "drop"] = READING_DEFAULTS["on_repeated_lines"],
                  score_precision: Literal["float32", "float64"] = READING_DEFAULTS["score_precision"],
                  cache: bool | PathLike = True,
                  system_labels: Mapping[str, Sequence[str]] | None = None,
                  progress: bool | None = None) -> "Collection":
        """Read run files (a directory of NIST ``input.*`` files, gz allowed, or a list) and qrels
        (a file, or a frame from :func:`irscales.data.trec.read_qrels` or
        :func:`irscales.data.trec.qrels_from_ir_datasets`); the policies are those of
        :func:`irscales.data.trec.relevance_arrays`, ``on_repeated_lines`` that of
        :func:`irscales.data.trec.read_trec`; the defaults are :data:`irscales.options.READING`'s.

        ``score_precision`` decides which scores tie before the docno breaks the tie:
        ``"float32"`` (default) as trec_eval <= 9.x and pytrec_eval, which FFF21's TREC-8 numbers
        need; ``"float64"`` as trec_eval >= 10.0 and the official TREC-8 per-topic evaluations.
        ``cache``: the cache of parsed runs of :func:`irscales.data.trec.read_trec` (``False`` = off).
        Systems are named by run tag, or all by file (without ``.gz``) when files share a tag
        (:mod:`irscales.data.run_names`: different files are never merged).

        ``rel`` holds the ranks of the longest run cut at ``depth`` and ``padded_to`` is ``depth``
        (see the module docstring): reading at a depth far beyond the runs costs what reading at
        their length does. ``depth=None`` (default, :func:`irscales.options.default_depth`): every
        document, the run length N being the longest run's (as trec_eval and :func:`irscales.evaluate`)."""
        files = trec_io.find_runs(runs)
        d = trec_io.read_trec(files, qrels, EVERY_DOCUMENT if depth is None else depth, max_grade=max_grade,
                              negative=negative, on_missing_topic=on_missing_topic, on_no_relevant=on_no_relevant,
                              on_uneven_topics=on_uneven_topics, on_repeated_lines=on_repeated_lines,
                              score_precision=score_precision, cache=cache, pad=False, progress=progress)
        if depth is None:
            depth = default_depth(False, int(d.run_lengths.max(initial=0)))
        src = str(runs) if isinstance(runs, (str, os.PathLike)) else f"{len(files)} run files"
        qsrc = qrels.attrs.get("path", "qrels frame") if hasattr(qrels, "attrs") else str(qrels)
        return cls(rel=d.rel, judgments=d.judgments, run_lengths=d.run_lengths,
                   topics=tuple(d.topics), systems=tuple(d.systems),
                   provenance=f"trec: {src} + {qsrc} depth={depth}"
                   + ("" if score_precision == "float32" else f" scores={score_precision}"),
                   max_grade=d.judgments.shape[1] - 1,
                   system_labels={k: tuple(v) for k, v in (system_labels or {}).items()}, padded_to=depth,
                   judged=d.judged)

    def to_trec(self, directory: PathLike, gz: bool = False) -> tuple[Path, Path]:
        """Write the collection as TREC files: ``runs/input.<system>[.gz]`` and ``qrels.txt``.

        Document names are synthetic (``<topic>-g<grade>-<i>`` judged relevant, ``<topic>-n-<i>``
        judged not relevant, ``<topic>-u-<i>`` unjudged) and scores are ``depth − rank + 1``, so
        reading the files back (at this depth) gives identical ``rel`` and ``judgments``. Only the
        top ``depth`` documents are written (a run shorter than that is written short).
        Returns (runs directory, qrels path).
        """
        d = Path(directory)
        rundir = d / "runs"
        rundir.mkdir(parents=True, exist_ok=True)
        S, T, N = self.rel.shape
        G = self.max_grade
        topics = np.array(self.topics, dtype=object)
        # qrels: every judged document, grades 0..G
        qt, qd, qr = [], [], []
        for t, name in enumerate(self.topics):
            for g in range(G + 1):
                n = int(self.judgments[t, g])
                kind = "n-" if g == 0 else f"g{g}-"
                qt += [name] * n
                qd += [f"{name}-{kind}{i:05d}" for i in range(n)]
                qr += [g] * n
        qpath = d / "qrels.txt"
        trec_io.write_qrels(qpath, qt, qd, qr)
        lengths = np.minimum(self.run_lengths, N)
        pool = np.maximum(self.judgments[:, 0] * 4, N)  # judged + unjudged not relevant documents
        ranks = np.arange(N)
        empty = [n for n, L in zip(self.systems, lengths) if not L.any()]
        if empty:
            raise ValueError(f"system(s) {', '.join(map(repr, empty[:5]))} retrieve no document for any "
                             "topic; an empty run file is not valid TREC input")
        for s, sname in enumerate(self.systems):
            r = self.rel[s].astype(np.int64)  # [T, N]
            keep = ranks[None, :] < lengths[s][:, None]
            # the j-th document of grade g in a run is judged document (offset + j) mod n_g:
            # distinct within the run, and always an existing judgment of that grade
            occ = np.zeros_like(r)
            for g in range(G + 1):
                m = r == g
                occ[m] = (np.cumsum(m, axis=1) - 1)[m]
            off = (np.arange(T) * 7919 + s * 104729)[:, None]
            n_g = np.take_along_axis(self.judgments, r, axis=1) if G >= 0 else None
            bad = (r > 0) & (occ >= n_g)
            if bad.any():
                t = int(np.argwhere(bad)[0][0])
                raise ValueError(f"system {sname!r} retrieves more documents of some grade than topic "
                                 f"{self.topics[t]!r} has judged; cannot export it as TREC files")
            idx = np.where(r > 0, (off + occ) % np.maximum(n_g, 1), (off + occ) % pool[:, None])
            judged0 = idx < self.judgments[:, 0][:, None]
            docs = np.where(r > 0, np.char.add(np.char.add("-g", r.astype(str)), "-"),
                            np.where(judged0, "-n-", "-u-"))
            docno = np.char.add(np.char.add(topics[:, None].astype(str), docs),
                                np.char.zfill(idx.astype(str), 5))
            score = (N - ranks)[None, :].repeat(T, 0)
            tt = np.broadcast_to(topics[:, None], (T, N))
            name = f"input.{sname}" + (".gz" if gz else "")
            trec_io.write_run(rundir / name, tt[keep], docno[keep], score[keep].astype(float), sname)
        return rundir, qpath


_SAVE_FORMAT = "irscales.Collection/2"
_BLOCK_CELLS = 2**18  # ranks evaluated at a time (int8: 256 KB; the measures' float temporaries: 2 MB each, issue 32)

# measures whose value at run length N, on runs whose ranks beyond W are not relevant, is the same on
# W ranks, bit for bit (tests/test_collection.py checks every measure of the registry): integer counts,
# the first relevant rank, or sums accumulated rank by rank (measures.base.seq_dot) to which a
# not-relevant rank adds 0.0. Exact types: NDCG is a DCG whose ideal run needs more ranks.
_PADDING_FREE = (R, Succ, RPrec, RR, RBP, GR, GRBP, DCG, Cut)
_SP_LCM_MAX_N = 40  # up to this N, SP and AP divide one integer sum by lcm(1..N) (measures.binary._LCM_MAX_N)


def _evaluation_width(m: Measure, width: int, depth: int, top_rb: int) -> tuple[Measure, int]:
    """(measure, E): ``m`` at run length ``depth`` on runs of which only ranks 1..``width`` may be
    relevant equals the returned measure on those runs padded to E ranks only, bit for bit. E is
    ``depth`` for a measure not known to allow less (F1, gP, ERR's pairwise sum, SBTO/RBTO, others)."""
    kind = type(m)
    if kind in _PADDING_FREE or (kind is P and m.k is not None):
        return m, width
    if kind is P:  # P at N is P@N (same count, same division), which looks at the stored ranks only
        return P(k=depth), width
    if kind in (SP, AP):  # the lcm(1..N) sum changes with N; the rank-by-rank sum beyond it does not
        return m, depth if depth <= _SP_LCM_MAX_N else max(width, _SP_LCM_MAX_N + 1)
    if kind is NDCG:  # DCG is padding-free; the ideal run holds the topic's relevant documents only
        return m, min(depth, max(width, top_rb))
    return m, depth


def _ideal(judgments: np.ndarray, G: int, n: int) -> np.ndarray:
    """Ideal runs [T, n] from judgment counts [T, G+1]: the document at rank i (0-based) has grade G - k,
    k the number of levels g with at_least[t, g] <= i, at_least[t, g] = documents with grade >= G - g.
    One searchsorted over all topics: row t is shifted by t·span, span above any count or rank."""
    T = len(judgments)
    at_least = np.cumsum(judgments[:, :0:-1], axis=1)  # [T, G], nondecreasing along each row
    span = n + int(at_least.max(initial=0)) + 1
    shift = np.arange(T, dtype=np.int64)[:, None] * span
    below = np.searchsorted((at_least + shift).ravel(), np.arange(n)[None, :] + shift, side="right")
    k = below - np.arange(T, dtype=np.int64)[:, None] * G  # rows before t hold t·G smaller entries
    return (G - k).astype(trec_io.grade_dtype(G))


def _saved_digest(npz: bytes, meta: dict) -> str:
    """SHA-256 of a saved collection: its arrays' file and every field of its metadata but this one."""
    h = hashlib.sha256(npz)
    h.update(json.dumps({k: v for k, v in meta.items() if k != "sha256"}, sort_keys=True).encode())
    return h.hexdigest()


def data_label(collections: Iterable[Collection]) -> str:
    """One :attr:`Collection.data_label` for collections analysed together: ``simulated`` if any is
    simulated, else their common label (``gop-cranfield``, ``trec`` …), else the labels joined by
    ``+`` in first-seen order."""
    labels = [c.data_label for c in collections]
    if not labels:
        raise ValueError("data_label: no collections")
    if "simulated" in labels:
        return "simulated"
    return "+".join(dict.fromkeys(labels))
