"""TREC run and qrels files → relevance arrays ``[system, topic, rank]``.

File formats (whitespace separated, one record a line, ``.gz`` read transparently):

run    ``topic Q0 docno rank score tag`` (6 columns)
qrels  ``topic iteration docno rel`` (4 columns; ``rel`` an integer grade, 0 = not relevant)

Ordering (issue 2 item 5). trec_eval ignores the rank column: within a topic it sorts by score
descending and breaks ties on equal scores by docno *descending* in byte order (``strcmp``).
Scores are compared in single precision, as trec_eval stores them (``float sim``): two scores
that differ only beyond float32 are tied.
We do the same; ``tests/test_io.py::test_tie_break_matches_pytrec_eval`` checks it empirically
against pytrec_eval, which wraps trec_eval's C code.

Relevance arrays. ``rel[s, t, i]`` is the grade of the document at rank ``i + 1`` of system ``s``
for topic ``t``. Unjudged documents count as not relevant (grade 0); a run retrieving fewer than
N documents is padded with not relevant documents (FFF21 §5.1). The lenient binary mapping is
``rel > 0`` (FFF21 §6: anything above not relevant is relevant); the recall base of a topic is
the number of its judged documents with grade > 0 (trec_eval's ``num_rel``).

Errors. Bad input raises :class:`TrecFormatError`, whose message reads ``path:line: what was
wrong``. Files are parsed with pandas' C reader; only when it reports a problem are the lines
re-read one by one to name the first bad line, so valid large inputs stay fast.
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "TrecFormatError", "RelevanceData", "read_run", "read_qrels", "find_runs", "relevance_arrays",
    "read_trec", "write_run", "write_qrels", "lenient_binary", "recall_bases", "qrels_from_ir_datasets",
]

PathLike = str | os.PathLike

_FIXED_WIDTH_SORT_BYTES = 2**29  # above this, docnos are sorted as Python strings (see relevance_arrays)

RUN_COLUMNS = ("topic", "q0", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ("topic", "iteration", "docno", "rel")


class TrecFormatError(ValueError):
    """Bad TREC input; ``str(e)`` is one line: ``path:line: what was wrong``."""

    def __init__(self, path: PathLike | None, line: int | None, what: str):
        self.path = None if path is None else str(path)
        self.line = line
        self.what = what
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {what}")


# ----------------------------------------------------------------------------- reading files


def _open_text(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise TrecFormatError(path, None, "file not found") from None
    except (OSError, EOFError) as e:  # truncated gzip and the like
        raise TrecFormatError(path, None, f"cannot read file: {e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise TrecFormatError(path, line, f"not UTF-8 text (byte {data[e.start]:#x})") from None


def _slow_scan(path: Path, text: str, ncols: int, kind: str, numeric: dict[int, str]) -> None:
    """Re-read line by line and raise at the first bad line (called only after the fast path
    found a problem, so the cost of per-line Python is paid only on bad input)."""
    for no, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != ncols:
            raise TrecFormatError(
                path, no, f"expected {ncols} whitespace-separated columns in a {kind} line, found "
                f"{len(parts)}: {line.strip()[:80]!r}")
        for col, what in numeric.items():
            name = (RUN_COLUMNS if kind == "run" else QRELS_COLUMNS)[col]
            try:
                v = float(parts[col])  # as the fast path: '3' and '3.0' are both the integer 3
            except ValueError:
                v = None
            if what == "float" and v is None:
                raise TrecFormatError(path, no, f"{name} must be a number, got {parts[col]!r}")
            if what == "float" and not np.isfinite(v):
                raise TrecFormatError(path, no, f"{name} must be finite, got {parts[col]!r}")
            if what == "int" and (v is None or not np.isfinite(v) or not v.is_integer()):
                raise TrecFormatError(path, no, f"{name} must be an integer, got {parts[col]!r}")


def _line_numbers(text: str) -> np.ndarray:
    """1-based line number of each non-blank line (pandas skips blank lines)."""
    lines = text.splitlines()
    return np.array([i for i, ln in enumerate(lines, start=1) if ln.strip()], dtype=np.int64)


def _read_table(path: Path, ncols: int, kind: str, numeric: dict[int, str]) -> tuple[pd.DataFrame, str]:
    text = _open_text(path)
    if not text.strip():
        raise TrecFormatError(path, 1, f"empty file: expected {kind} lines")
    # numeric columns are parsed by the C reader itself (far faster than converting strings)
    dtype = {i: (np.float64 if i in numeric else str) for i in range(ncols)}
    try:
        df = pd.read_csv(_io.StringIO(text), sep=r"\s+", header=None, dtype=dtype, na_filter=False,
                         quoting=csv.QUOTE_NONE, engine="c")
    except (pd.errors.ParserError, ValueError, TypeError):
        df = None
    if df is not None and df.shape[1] == ncols:
        last = df.iloc[:, -1]
        short = (last == "").to_numpy() if (ncols - 1) not in numeric else np.zeros(len(df), bool)
    if df is None or df.shape[1] != ncols or short.any():
        _slow_scan(path, text, ncols, kind, numeric)
        raise TrecFormatError(path, None, f"cannot parse as a {kind} file")  # pragma: no cover
    df.columns = list(RUN_COLUMNS if kind == "run" else QRELS_COLUMNS)
    for col, what in numeric.items():
        name = df.columns[col]
        vals = df[name].to_numpy(dtype=float)
        bad = ~np.isfinite(vals) if what == "float" else (~np.isfinite(vals) | (vals % 1 != 0))
        if bad.any():
            _slow_scan(path, text, ncols, kind, numeric)
            row = int(np.argmax(bad))  # pragma: no cover - the slow scan raises first
            raise TrecFormatError(path, int(_line_numbers(text)[row]), f"bad {name} {vals[row]!r}")
        if what == "int":
            df[name] = vals.astype(np.int64)
    return df, text


def _check_duplicates(df: pd.DataFrame, path, lines: np.ndarray, what: str, unit: str = "line") -> None:
    """``lines[i]`` is the line (or record) number of row i, used only to report an error."""
    dup = df.duplicated(["topic", "docno"], keep="first").to_numpy()
    if dup.any():
        row = int(np.argmax(dup))
        first = int(np.flatnonzero(
            (df["topic"] == df["topic"].iloc[row]).to_numpy() & (df["docno"] == df["docno"].iloc[row]).to_numpy()
        )[0])
        raise TrecFormatError(
            path, int(lines[row]), f"duplicate {what} for topic {df['topic'].iloc[row]!r}, document "
            f"{df['docno'].iloc[row]!r} (first at {unit} {int(lines[first])})")


class _LazyLines:
    """Line numbers of the non-blank lines, computed only when an error needs them."""

    def __init__(self, text: str):
        self.text = text

    def __getitem__(self, i):
        return _line_numbers(self.text)[i]


def read_run(path: PathLike) -> pd.DataFrame:
    """Read one TREC run file (6 columns, optionally gzipped).

    Returns a frame with columns ``topic`` (str), ``docno`` (str), ``rank`` (int), ``score``
    (float), ``tag`` (str), in file order; ``frame.attrs['system']`` is the run tag and
    ``frame.attrs['path']`` the file. A file must hold one run tag, and a document at most once
    per topic (trec_eval refuses duplicates too).
    """
    path = Path(path)
    df, text = _read_table(path, 6, "run", {3: "int", 4: "float"})
    _check_duplicates(df, path, _LazyLines(text), "document")
    tags = pd.unique(df["tag"])
    if len(tags) != 1:
        second = int(np.argmax((df["tag"] != tags[0]).to_numpy()))
        raise TrecFormatError(
            path, int(_line_numbers(text)[second]),
            f"run tag {tags[1]!r} differs from {tags[0]!r} on the first line; one run per file")
    out = df[["topic", "docno", "rank", "score", "tag"]].reset_index(drop=True)
    out.attrs.update(system=str(tags[0]), path=str(path))
    return out


def read_qrels(path: PathLike, max_grade: int | None = None,
               negative: Literal["error", "zero"] = "error") -> pd.DataFrame:
    """Read a TREC qrels file (4 columns: topic, iteration, docno, integer grade).

    ``max_grade`` declares the scale 0..max_grade; a grade above it is an error. Negative grades
    (some tracks mark junk pages with -1, -2) are an error unless ``negative='zero'``, which
    reads them as not relevant, as trec_eval does. A document judged twice for a topic is an error.
    Returns columns ``topic``, ``docno`` (str) and ``rel`` (int), in file order.
    """
    path = Path(path)
    df, text = _read_table(path, 4, "qrels", {3: "int"})
    return _validated_qrels(df, path, _LazyLines(text), max_grade, negative)


def _validated_qrels(df: pd.DataFrame, path, lines, max_grade: int | None, negative: str,
                     unit: str = "line") -> pd.DataFrame:
    if negative not in ("error", "zero"):
        raise ValueError(f"negative must be 'error' or 'zero', got {negative!r}")
    _check_duplicates(df, path, lines, "judgment", unit)
    rel = df["rel"].to_numpy()
    if negative == "error" and (rel < 0).any():
        row = int(np.argmax(rel < 0))
        raise TrecFormatError(path, int(lines[row]),
                              f"negative grade {int(rel[row])} (pass negative='zero' to read it as not relevant)")
    if max_grade is not None and (rel > max_grade).any():
        row = int(np.argmax(rel > max_grade))
        raise TrecFormatError(path, int(lines[row]),
                              f"grade {int(rel[row])} is outside the declared scale 0..{max_grade}")
    out = df[["topic", "docno", "rel"]].reset_index(drop=True)
    out["rel"] = np.maximum(out["rel"].to_numpy(), 0)
    out.attrs.update(path=str(path))
    return out


def qrels_from_ir_datasets(dataset, max_grade: int | None = None,
                           negative: Literal["error", "zero"] = "error") -> pd.DataFrame:
    """Qrels of an ir_datasets dataset (optional extra: ``pip install ir_datasets``; its data must
    already be downloaded where ir_datasets looks for it). ``dataset`` is an ir_datasets id such as
    ``"trec-robust04"`` or a loaded dataset object (anything with ``qrels_iter()`` yielding records
    with ``query_id``, ``doc_id``, ``relevance``). Same checks and result as :func:`read_qrels`;
    errors name the record number: ``ir_datasets:<id>:<record>: what``.
    """
    name = dataset if isinstance(dataset, str) else getattr(dataset, "dataset_id", lambda: "dataset")()
    if isinstance(dataset, str):
        try:
            import ir_datasets
        except ImportError:
            raise ImportError("reading qrels from ir_datasets needs the optional package ir_datasets "
                              "(pip install ir_datasets)") from None
        dataset = ir_datasets.load(dataset)
    if not hasattr(dataset, "qrels_iter"):
        raise TypeError(f"{name!r} has no qrels (no qrels_iter())")
    recs = [(str(q.query_id), str(q.doc_id), q.relevance) for q in dataset.qrels_iter()]
    where = f"ir_datasets:{name}"
    if not recs:
        raise TrecFormatError(where, None, "no qrels records")
    for i, (_, _, r) in enumerate(recs, start=1):
        if not isinstance(r, (int, np.integer)):
            raise TrecFormatError(where, i, f"relevance must be an integer, got {r!r}")
    df = pd.DataFrame(recs, columns=["topic", "docno", "rel"])
    df["rel"] = df["rel"].astype(np.int64)
    return _validated_qrels(df, where, np.arange(1, len(df) + 1), max_grade, negative, unit="record")


def find_runs(source: PathLike | Iterable[PathLike]) -> list[Path]:
    """Run files of a directory (every non-hidden regular file, sorted by name; NIST names such
    as ``input.xyz`` or ``input.xyz.gz`` included) or an explicit list of files."""
    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        try:
            files = sorted(p for p in Path(source).iterdir() if p.is_file() and not p.name.startswith("."))
        except OSError as e:  # e.g. an unreadable directory
            raise TrecFormatError(source, None, f"cannot list this directory: {e.strerror or e}") from None
        if not files:
            raise TrecFormatError(source, None, "no run files in this directory")
        return files
    if isinstance(source, (str, os.PathLike)):
        return [Path(source)]
    files = [Path(p) for p in source]
    if not files:
        raise ValueError("no run files given")
    return files


# ------------------------------------------------------------------------ relevance arrays


@dataclass
class RelevanceData:
    """Relevance arrays and what measures need about each topic.

    ``rel``        int8 ``[system, topic, rank]`` grades at depth N, padded with 0.
    ``judgments``  int64 ``[topic, grade]``: number of judged documents of each grade 0..G.
    ``run_lengths`` int64 ``[system, topic]``: documents each run retrieved (before the cut).
    """

    rel: np.ndarray
    topics: list[str]
    systems: list[str]
    judgments: np.ndarray
    run_lengths: np.ndarray
    sources: list[str]


def _topic_key(t: str):
    """Numeric topic ids in numeric order (2 before 10), then the others as strings."""
    return (0, int(t), t) if t.isdigit() else (1, 0, t)


def _warn_or_raise(policy: str, path, what: str) -> None:
    if policy == "error":
        raise TrecFormatError(path, None, what)
    warnings.warn(what, stacklevel=3)


def relevance_arrays(
    runs: Iterable[pd.DataFrame],
    qrels: pd.DataFrame,
    depth: int,
    *,
    on_missing_topic: Literal["error", "skip"] = "error",
    on_no_relevant: Literal["error", "skip", "keep"] = "skip",
    on_uneven_topics: Literal["error", "pad"] = "error",
    max_grade: int | None = None,
) -> RelevanceData:
    """Relevance arrays ``[system, topic, rank]`` at cut-off ``depth`` (issue 2 item 5).

    ``runs`` are frames from :func:`read_run` (a list, or any iterable: they are consumed in
    chunks of about a million lines, so memory stays bounded by the chunk and the output);
    ``qrels`` from :func:`read_qrels`. Topics are those of the runs, numeric ids in numeric
    order, then other ids as strings.

    on_missing_topic  a run topic that has no judgments: ``'error'`` or ``'skip'`` it (warning).
    on_no_relevant    a topic whose judgments hold no relevant document: ``'error'``, ``'skip'``
                      (warning) or ``'keep'`` (pytrec_eval reports such a topic with every
                      measure 0, so keeping it lowers averages).
    on_uneven_topics  systems whose topic sets differ: ``'error'``, or ``'pad'`` the missing
                      topics with empty runs (all not relevant, like ``trec_eval -c``).
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    for name, val, allowed in (("on_missing_topic", on_missing_topic, ("error", "skip")),
                               ("on_no_relevant", on_no_relevant, ("error", "skip", "keep")),
                               ("on_uneven_topics", on_uneven_topics, ("error", "pad"))):
        if val not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
    qpath = qrels.attrs.get("path", "<qrels>")

    # every judged topic gets a row; topics no run retrieves are dropped at the end
    qtopics = sorted(pd.unique(qrels["topic"]), key=_topic_key)
    tindex = pd.Index(qtopics)
    q_t = tindex.get_indexer(qrels["topic"]).astype(np.int64)
    q_rel = qrels["rel"].to_numpy(np.int64)
    gmax = int(q_rel.max()) if len(q_rel) else 0
    if max_grade is not None:
        if gmax > max_grade:
            raise TrecFormatError(qpath, None, f"grade {gmax} is outside the declared scale 0..{max_grade}")
        gmax = max_grade
    judgments = np.zeros((len(qtopics), max(gmax, 1) + 1), dtype=np.int64)
    np.add.at(judgments, (q_t, q_rel), 1)
    q_doc = qrels["docno"].to_numpy(dtype=object)

    systems: list[str] = []
    paths: list[str] = []
    seen: dict[str, str] = {}
    blocks: list[tuple[np.ndarray, np.ndarray]] = []  # (rel [s, Tq, depth], lengths [s, Tq]) per chunk
    absent: set[str] = set()
    chunk: list[pd.DataFrame] = []
    rows = 0

    def flush() -> None:
        nonlocal chunk, rows
        if chunk:
            blocks.append(_chunk_arrays(chunk, tindex, q_t, q_doc, q_rel, depth, absent))
        chunk, rows = [], 0

    for i, r in enumerate(runs):
        name = str(r.attrs.get("system", f"run{i}"))
        path = str(r.attrs.get("path", f"<run {name}>"))
        if name in seen:
            raise TrecFormatError(path, None, f"run tag {name!r} is also the tag of {seen[name]}; "
                                  "system names must be unique")
        seen[name] = path
        systems.append(name)
        paths.append(path)
        chunk.append(r)
        rows += len(r)
        if rows >= _CHUNK_ROWS:
            flush()
    flush()
    if not systems:
        raise ValueError("no runs given")
    rel = np.concatenate([b[0] for b in blocks], axis=0)
    run_lengths = np.concatenate([b[1] for b in blocks], axis=0)

    if absent:
        ab = sorted(absent, key=_topic_key)
        ex = ", ".join(ab[:5]) + (", …" if len(ab) > 5 else "")
        _warn_or_raise(on_missing_topic, qpath,
                       f"{len(ab)} run topic(s) have no judgments in the qrels ({ex})"
                       + ("; pass on_missing_topic='skip' to drop them" if on_missing_topic == "error"
                          else "; skipped"))
    keep = (run_lengths > 0).any(0)  # judged topics some run retrieved
    norel = keep & (judgments[:, 1:].sum(1) == 0)
    if norel.any() and on_no_relevant != "keep":
        names = [qtopics[i] for i in np.flatnonzero(norel)]
        ex = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        _warn_or_raise(on_no_relevant, qpath,
                       f"{len(names)} topic(s) have no relevant document ({ex})"
                       + ("; pass on_no_relevant='skip' or 'keep'" if on_no_relevant == "error" else "; skipped"))
        keep &= ~norel
    if not keep.any():
        raise TrecFormatError(qpath, None, "no topic is both in the runs and (with a relevant document) in the qrels")
    kept = np.flatnonzero(keep)
    topics = [qtopics[i] for i in kept]
    rel, run_lengths, judgments = rel[:, kept], run_lengths[:, kept], judgments[kept]
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
                         run_lengths=run_lengths, sources=paths)


_CHUNK_ROWS = 1_000_000


def _chunk_arrays(runs: list[pd.DataFrame], tindex: pd.Index, q_t: np.ndarray, q_doc: np.ndarray,
                  q_rel: np.ndarray, depth: int, absent: set[str]) -> tuple[np.ndarray, np.ndarray]:
    """Arrays for a chunk of runs over all judged topics, in one vectorised pass: integer codes
    for topic and docno, docno codes ranked in strcmp order so that sorting them descending is
    trec_eval's tie-break, then a sorted-key lookup of the grades."""
    T = len(tindex)
    sizes = np.array([len(r) for r in runs], dtype=np.int64)
    sys_code = np.repeat(np.arange(len(runs), dtype=np.int64), sizes)
    top = np.concatenate([r["topic"].to_numpy(dtype=object) for r in runs])
    doc = np.concatenate([r["docno"].to_numpy(dtype=object) for r in runs])
    score = np.concatenate([r["score"].to_numpy(float) for r in runs])
    t_code = tindex.get_indexer(top)
    ok = t_code >= 0
    if not ok.all():
        absent.update(pd.unique(top[~ok]))
    t_code = t_code[ok].astype(np.int64)
    sys_code, score, doc = sys_code[ok], score[ok], doc[ok]

    codes, uniq = pd.factorize(np.concatenate([doc, q_doc]))
    width = max(map(len, uniq)) if len(uniq) else 1
    if width * len(uniq) * 4 <= _FIXED_WIDTH_SORT_BYTES:
        # code-point order = strcmp order of the UTF-8 bytes; a fixed-width array sorts in C
        order_u = np.argsort(np.asarray(uniq, dtype=str), kind="stable")
    else:  # very long docnos (URLs): sort the Python strings rather than allocate > 512 MB
        order_u = np.argsort(np.asarray(uniq, dtype=object), kind="stable")
    rank_u = np.empty(len(uniq), dtype=np.int64)
    rank_u[order_u] = np.arange(len(uniq))
    codes = rank_u[codes]
    d_code, qd_code = codes[: len(doc)], codes[len(doc):]

    # trec_eval keeps scores as C floats: scores equal in single precision tie (then docno decides)
    order = np.lexsort((-d_code, -score.astype(np.float32), t_code, sys_code))
    sys_code, t_code, d_code = sys_code[order], t_code[order], d_code[order]
    group = sys_code * T + t_code
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if len(group) else np.zeros(0, np.int64)
    counts = np.diff(np.r_[starts, len(group)])
    rank = np.arange(len(group)) - np.repeat(starts, counts)
    run_lengths = np.zeros((len(runs), T), dtype=np.int64)
    run_lengths[sys_code[starts], t_code[starts]] = counts

    sel = rank < depth
    sys_code, t_code, d_code, rank = sys_code[sel], t_code[sel], d_code[sel], rank[sel]
    ndocs = max(len(uniq), 1)
    qkey = q_t * ndocs + qd_code
    qo = np.argsort(qkey, kind="stable")
    qkey, qrel = qkey[qo], q_rel[qo]
    rkey = t_code * ndocs + d_code
    grade = np.zeros(len(rkey), dtype=np.int64)
    if len(qkey):
        pos = np.minimum(np.searchsorted(qkey, rkey), len(qkey) - 1)
        hit = qkey[pos] == rkey
        grade[hit] = qrel[pos[hit]]
    rel = np.zeros((len(runs), T, depth), dtype=np.int8)
    rel[sys_code, t_code, rank] = grade
    return rel, run_lengths


def read_trec(runs: PathLike | Iterable[PathLike], qrels: PathLike | pd.DataFrame, depth: int, *,
              max_grade: int | None = None, negative: Literal["error", "zero"] = "error",
              **policies) -> RelevanceData:
    """Read run files (a directory or a list) and qrels (a file, or a frame from
    :func:`read_qrels` / :func:`qrels_from_ir_datasets`) into :class:`RelevanceData`;
    ``policies`` are those of :func:`relevance_arrays`."""
    if isinstance(qrels, pd.DataFrame):
        q = qrels
        if max_grade is not None and len(q) and int(q["rel"].max()) > max_grade:
            raise TrecFormatError(q.attrs.get("path"), None, f"grade {int(q['rel'].max())} is outside "
                                  f"the declared scale 0..{max_grade}")
    else:
        q = read_qrels(qrels, max_grade=max_grade, negative=negative)
    frames = (read_run(p) for p in find_runs(runs))  # a generator: runs are read chunk by chunk
    return relevance_arrays(frames, q, depth, max_grade=max_grade, **policies)


# ---------------------------------------------------------------------------------- writing


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        # mtime=0 keeps the bytes deterministic
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
            fh.write(text.encode("utf-8"))
    else:
        path.write_text(text, encoding="utf-8")


def write_run(path: PathLike, topic: Sequence[str], docno: Sequence[str], score: Sequence[float],
              tag: str) -> None:
    """Write a 6-column run file; ranks are numbered 1.. within each topic in the given order.
    Scores are written with 17 significant digits so reading them back gives the same doubles."""
    topic = np.asarray(topic, dtype=object)
    start = np.r_[True, topic[1:] != topic[:-1]] if len(topic) else np.zeros(0, bool)
    grp = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    rank = np.arange(len(topic)) - first[grp] + 1 if len(topic) else np.zeros(0, int)
    df = pd.DataFrame({"t": topic, "q": "Q0", "d": np.asarray(docno, dtype=object), "r": rank,
                       "s": [f"{x:.17g}" for x in np.asarray(score, dtype=float)], "tag": tag})
    _write(Path(path), df.to_csv(sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE))


def write_qrels(path: PathLike, topic: Sequence[str], docno: Sequence[str], rel: Sequence[int]) -> None:
    """Write a 4-column qrels file (iteration column 0)."""
    df = pd.DataFrame({"t": np.asarray(topic, dtype=object), "i": 0,
                       "d": np.asarray(docno, dtype=object), "r": np.asarray(rel, dtype=np.int64)})
    _write(Path(path), df.to_csv(sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE))


# ---------------------------------------------------------------------------------- helpers


def lenient_binary(rel: np.ndarray) -> np.ndarray:
    """Lenient binary mapping (FFF21 §6): grade > 0 → 1, else 0."""
    return (np.asarray(rel) > 0).astype(np.int8)


def recall_bases(qrels: pd.DataFrame) -> pd.Series:
    """Recall base per topic: number of judged documents with grade > 0 (trec_eval's num_rel)."""
    return (qrels["rel"] > 0).groupby(qrels["topic"]).sum().astype(np.int64).rename("rb")
