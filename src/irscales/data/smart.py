"""Parsers for the SMART-format public test collections Cranfield, CISI and CACM (issue 11).

The three collections come from the University of Glasgow IR group's test-collection pages
(``cran/``, ``cisi/``, ``cacm/``); :mod:`irscales.data.datasets` finds or fetches the files, this
module reads them. Records follow the SMART convention: a line ``.I <id>`` opens a record and
lines ``.T`` (title), ``.A`` (authors), ``.B`` (source), ``.W`` (text), ``.X`` (cross references),
``.K``, ``.C``, ``.N`` … open its fields, whose text runs to the next marker.

Irregularities handled (each one checked by ``tests/test_smart.py`` on the shipped files):

- line endings: Cranfield's files use CRLF, the others LF; both are read;
- a field repeated within one record (Cranfield documents 576 and 578 hold two ``.W``): the texts
  are joined in file order, nothing is dropped;
- Cranfield's query numbering: the ``.I`` numbers of ``cran.qry`` run 1, 2, 4, 8, 9 … 365 while
  ``cranqrel`` numbers the queries 1…225 in *file order*; queries are renamed 1…225 accordingly;
- CACM's ``query.text`` ends with an empty record ``.I 0``, which is dropped (64 queries remain);
- CISI and CACM queries without judgments (36 of 112, 12 of 64) are kept in ``queries`` but are
  not judged topics (:attr:`SmartCollection.judged_topics`);
- Cranfield grades. ``cranqrel`` uses Cleverdon's codes 1 (complete answer) … 4 (minimum
  interest) and -1 (no interest; also read this way by ir_datasets). The graded qrels used here
  reverse them so that larger is better, as trec_eval expects: **grade = 5 − code** for codes
  1–4 (4 = complete answer, 1 = minimum interest) and **grade 0** (judged not relevant) for -1.
  Binary qrels: code 1–4 → 1, -1 → 0 (the customary reading: every listed reference is
  relevant). CISI and CACM list relevant documents only: grade 1 for each line.

Which text is indexed: documents use title + text (``.T`` and ``.W``; CACM also ``.K`` keywords
when present); authors, sources and cross references are left out, as in the usual experiments
on these collections. Queries use ``.W`` (and ``.T`` for the CISI queries that have one).

Validation is by content (:data:`EXPECTED`): numbers of documents, queries, judged queries and
judgment lines; a mismatch raises :class:`SmartFormatError` naming the file and what differs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping

import numpy as np
import pandas as pd

__all__ = ["SmartCollection", "SmartFormatError", "read_collection"]

PathLike = str | os.PathLike

NAMES = ("cranfield", "cisi", "cacm")

# file names inside each collection's folder (as distributed by Glasgow)
FILES: dict[str, dict[str, str]] = {
    "cranfield": {"docs": "cran.all.1400", "queries": "cran.qry", "qrels": "cranqrel"},
    "cisi": {"docs": "CISI.ALL", "queries": "CISI.QRY", "qrels": "CISI.REL"},
    "cacm": {"docs": "cacm.all", "queries": "query.text", "qrels": "qrels.text",
             "stopwords": "common_words"},
}

# content checks: documents, queries (after cleaning), judged queries, judgment lines
EXPECTED: dict[str, dict[str, int]] = {
    "cranfield": {"documents": 1400, "queries": 225, "judged_queries": 225, "judgments": 1837},
    "cisi": {"documents": 1460, "queries": 112, "judged_queries": 76, "judgments": 3114},
    "cacm": {"documents": 3204, "queries": 64, "judged_queries": 52, "judgments": 796},
}

_MARKER = re.compile(r"^\.([A-Z])(?:\s+(.*?))?\s*$")  # ".I 12", ".W", ".T " (CISI: trailing blank)


class SmartFormatError(ValueError):
    """A SMART file is malformed or its content is not what the collection should hold."""

    def __init__(self, path: PathLike | None, line: int | None, what: str):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {what}")
        self.path, self.line, self.what = path, line, what


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found")
    raw = path.read_bytes()
    # latin-1 never fails; the files are ASCII except a few stray bytes
    return raw.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")


def parse_records(path: PathLike) -> list[tuple[str, dict[str, str], int]]:
    """Records of a SMART file: ``(id, {field letter: text}, line of its .I)`` in file order.

    A repeated field's texts are joined with a newline. Text before the first ``.I`` is an error;
    so is a ``.I`` without an id.
    """
    path = Path(path)
    records: list[tuple[str, dict[str, str], int]] = []
    cur: dict[str, list[str]] | None = None
    cur_id, cur_line, fld = "", 0, None
    for n, line in enumerate(_read_text(path).split("\n"), start=1):
        m = _MARKER.match(line)
        if m and m.group(1) == "I":
            if cur is not None:
                records.append((cur_id, {k: "\n".join(v).strip() for k, v in cur.items()}, cur_line))
            if not m.group(2):
                raise SmartFormatError(path, n, "'.I' without a record id")
            cur, cur_id, cur_line, fld = {}, m.group(2).strip(), n, None
        elif m and not (m.group(2) or "").strip():
            if cur is None:
                raise SmartFormatError(path, n, f"field marker {line.strip()!r} before the first '.I'")
            fld = m.group(1)
            cur.setdefault(fld, [])
        else:
            if cur is None:
                if line.strip():
                    raise SmartFormatError(path, n, "text before the first '.I' record")
                continue
            if fld is None:
                if line.strip():
                    raise SmartFormatError(path, n, "text after '.I' before any field marker")
                continue
            cur[fld].append(line)
    if cur is not None:
        records.append((cur_id, {k: "\n".join(v).strip() for k, v in cur.items()}, cur_line))
    return records


@dataclass(frozen=True)
class SmartCollection:
    """One parsed collection.

    ``docs``      docno → indexed text (title + body), in file order;
    ``queries``   topic id → text, every query of the file (ids as the qrels use them);
    ``qrels``     frame ``topic, docno, rel`` (str, str, int): the graded qrels (module docstring);
    ``raw_grades`` the grades as written in the judgments file (Cranfield: codes -1, 1–4);
    ``stopwords`` the collection's own stop list, if it ships one (CACM ``common_words``).
    """

    name: str
    docs: Mapping[str, str]
    queries: Mapping[str, str]
    qrels: pd.DataFrame
    raw_grades: np.ndarray
    max_grade: int
    stopwords: tuple[str, ...] = ()
    source: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def judged_topics(self) -> list[str]:
        """Queries with at least one relevant judged document, in query-file order."""
        rel = set(self.qrels.loc[self.qrels["rel"] > 0, "topic"])
        return [q for q in self.queries if q in rel]

    def binary_qrels(self) -> pd.DataFrame:
        """The binary qrels: grade > 0 → 1 (for Cranfield: codes 1–4 relevant, -1 not)."""
        out = self.qrels.copy()
        out["rel"] = (out["rel"] > 0).astype(np.int64)
        out.attrs.update(self.qrels.attrs)
        return out

    def counts(self) -> dict[str, int]:
        return {"documents": len(self.docs), "queries": len(self.queries),
                "judged_queries": len(self.judged_topics), "judgments": len(self.qrels)}

    def __repr__(self) -> str:
        c = self.counts()
        return (f"SmartCollection({self.name}: {c['documents']} documents, {c['queries']} queries, "
                f"{c['judged_queries']} judged, {c['judgments']} judgments; {self.source})")


def _doc_text(fields: dict[str, str], name: str) -> str:
    keys = ("T", "W", "K") if name == "cacm" else ("T", "W")
    return "\n".join(fields[k] for k in keys if fields.get(k))


def _read_qrels(path: Path, name: str, qmap: Mapping[str, str] | None) -> tuple[pd.DataFrame, np.ndarray]:
    rows: list[tuple[str, str, int]] = []
    for n, line in enumerate(_read_text(path).split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) not in (3, 4):
            raise SmartFormatError(path, n, f"expected 3 or 4 columns, found {len(parts)}")
        try:
            q, d = str(int(parts[0])), str(int(parts[1]))
        except ValueError:
            raise SmartFormatError(path, n, f"query and document numbers must be integers: {line.strip()!r}") from None
        if name == "cranfield":
            try:
                code = int(parts[2])
            except ValueError:
                raise SmartFormatError(path, n, f"relevance code must be an integer: {parts[2]!r}") from None
            if code not in (-1, 1, 2, 3, 4):
                raise SmartFormatError(path, n, f"Cranfield relevance code {code} is not one of -1, 1, 2, 3, 4")
        else:
            code = 1  # CISI/CACM list relevant documents only; the other columns are always 0
        if qmap is not None:
            if q not in qmap:
                raise SmartFormatError(path, n, f"query number {q} is beyond the {len(qmap)} queries of the query file")
        rows.append((q, d, code))
    df = pd.DataFrame(rows, columns=["topic", "docno", "code"])
    dup = df.duplicated(["topic", "docno"], keep=False)
    if dup.any():
        r = df[dup].iloc[0]
        raise SmartFormatError(path, None, f"document {r.docno} judged twice for query {r.topic}")
    raw = df["code"].to_numpy(np.int64)
    if name == "cranfield":
        rel = np.where(raw > 0, 5 - raw, 0)
    else:
        rel = raw
    out = pd.DataFrame({"topic": df["topic"], "docno": df["docno"], "rel": rel.astype(np.int64)})
    out.attrs.update(path=str(path))
    return out, raw


def read_collection(name: Literal["cranfield", "cisi", "cacm"], folder: PathLike,
                    validate: bool = True) -> SmartCollection:
    """Read one collection from ``folder`` (holding the files of :data:`FILES`).

    ``validate`` compares the counts with :data:`EXPECTED` and raises :class:`SmartFormatError`
    when they differ (a truncated download, a different edition). It also checks that every
    judged document exists and that ids are unique.
    """
    if name not in FILES:
        raise KeyError(f"unknown collection {name!r}; choose one of {', '.join(NAMES)}")
    folder = Path(folder)
    files = FILES[name]
    missing = [f for f in files.values() if not (folder / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{name}: file(s) {', '.join(missing)} missing in {folder}")
    notes: list[str] = []

    dpath = folder / files["docs"]
    docs: dict[str, str] = {}
    for rid, flds, line in parse_records(dpath):
        if rid in docs:
            raise SmartFormatError(dpath, line, f"document id {rid} appears twice")
        docs[rid] = _doc_text(flds, name)

    qpath = folder / files["queries"]
    qrecs = parse_records(qpath)
    empty = [r for r in qrecs if not any(v.strip() for v in r[1].values())]
    if empty:
        notes.append(f"dropped {len(empty)} empty query record(s): .I {', '.join(r[0] for r in empty)}")
    qrecs = [r for r in qrecs if r not in empty]
    qmap: dict[str, str] | None = None
    queries: dict[str, str] = {}
    if name == "cranfield":
        # cranqrel numbers the queries 1..225 in file order, not by their .I numbers
        qmap = {}
        for i, (rid, flds, line) in enumerate(qrecs, start=1):
            qmap[str(i)] = rid
            queries[str(i)] = flds.get("W", "")
        notes.append("Cranfield queries renamed 1..225 in file order (the qrels' numbering)")
    else:
        for rid, flds, line in qrecs:
            q = str(int(rid))
            if q in queries:
                raise SmartFormatError(qpath, line, f"query id {rid} appears twice")
            queries[q] = "\n".join(flds[k] for k in ("T", "W") if flds.get(k))
    rpath = folder / files["qrels"]
    qrels, raw = _read_qrels(rpath, name, qmap)
    unknown_q = sorted(set(qrels["topic"]) - set(queries), key=int)
    if unknown_q:
        raise SmartFormatError(rpath, None, f"judgments for query ids absent from the query file: {unknown_q[:5]}")
    unknown_d = sorted(set(qrels["docno"]) - set(docs), key=int)
    if unknown_d:
        raise SmartFormatError(rpath, None, f"judgments for document ids absent from the collection: {unknown_d[:5]}")
    stop: tuple[str, ...] = ()
    if "stopwords" in files:
        stop = tuple(w.strip().lower() for w in _read_text(folder / files["stopwords"]).split() if w.strip())
    coll = SmartCollection(name=name, docs=docs, queries=queries, qrels=qrels, raw_grades=raw,
                           max_grade=4 if name == "cranfield" else 1, stopwords=stop,
                           source=str(folder), notes=tuple(notes))
    if validate:
        got, want = coll.counts(), EXPECTED[name]
        bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
        if bad:
            what = "; ".join(f"{k}: found {g}, expected {w}" for k, (g, w) in bad.items())
            raise SmartFormatError(folder, None, f"{name} content check failed ({what}); "
                                   "is the copy complete and the original edition?")
    return coll
