"""TREC run and qrels files → relevance arrays ``[system, topic, rank]``.

File formats (whitespace separated, one record a line, ``.gz`` read transparently):

run    ``topic Q0 docno rank score tag`` (6 columns)
qrels  ``topic iteration docno rel`` (4 columns; ``rel`` an integer grade, 0 = not relevant)

Lines and fields are read as trec_eval reads them (issue 27 item 10; :mod:`irscales.data._trec_parse`):
a line ends at ``\n`` only, and line numbers in errors count ``\n``; fields are separated by C's
``isspace`` bytes (space, tab, CR, VT, FF); any other character, NBSP, U+0085 or U+2028 included, is
part of a field. Blank lines are skipped. A NUL byte anywhere is an error naming its line (trec_eval
would cut a field at it; no reading is safe), and so is text that is not UTF-8.

Ordering (issue 2 item 5). trec_eval ignores the rank column: within a topic it sorts by score
descending and breaks ties on equal scores by docno *descending* in byte order (``strcmp``).
We do the same; ``tests/test_trec.py::test_tie_break_matches_pytrec_eval`` checks it empirically
against pytrec_eval, which wraps trec_eval's C code.

Score precision (issue 15 item 3) is a setting, ``score_precision``:

``"float32"`` (default)  scores are compared in single precision, as trec_eval up to 9.x and
                         pytrec_eval store them (``float sim``): two scores that differ only beyond
                         float32 (100000.1546100 and 100000.1476190) are tied, and the docno decides.
                         FFF21's TREC-8 tables are reproduced with this convention.
``"float64"``            scores are compared as doubles, as trec_eval >= 10.0 (``double sim``) and the
                         official TREC-8 per-topic evaluations do.

Grades. trec_eval reads grades as integers and counts negative ones as judged not relevant. We
keep grades in ``int8`` when they fit and ``int16`` otherwise, up to :data:`MAX_GRADE` = 32767;
a larger grade is refused with ``path:line`` (per-grade counts are kept for every grade level
0..G, as trec_eval does, so a grade of 10^9 would need gigabytes). A grade is written as an
integer (``2`` or ``2.0``); ``1.5`` or ``1e3`` (which trec_eval's ``atol`` would read as 1) are
errors, never silently truncated.

Relevance arrays. ``rel[s, t, i]`` is the grade of the document at rank ``i + 1`` of system ``s``
for topic ``t``. Unjudged documents count as not relevant (grade 0); a run retrieving fewer than
N documents is padded with not relevant documents (FFF21 §5.1). The lenient binary mapping is
``rel > 0`` (FFF21 §6: anything above not relevant is relevant); the recall base of a topic is
the number of its judged documents with grade > 0 (trec_eval's ``num_rel``).

Systems are named by their run tag; when two or more files share a tag (the CLEF eHealth 2018
baselines tag six different runs ``indri``), every system of the read is named by its file instead,
without ``.gz``, and a warning names the shared tags: runs are never merged
(:mod:`irscales.data.run_names`).

Errors. Bad input raises :class:`TrecFormatError`, whose message reads ``path:line: what was
wrong``. A document listed twice for a topic is an error naming both lines, as trec_eval refuses
it; when the second line repeats the first one's score too, the message names
``on_repeated_lines='drop'``, which reads the file without such exact repeats (:func:`read_trec`). The
reading options and their defaults are :data:`irscales.options.READING`'s. Qrels of four fields a line
with plain integer grades are read without pandas by :func:`read_trec` (the same values, tested), others
with pandas' C reader (:func:`read_qrels`); only when it reports a problem are the lines re-read one by one
to name the first bad line, so valid large inputs stay fast.

Speed (issue 32). :func:`read_trec` (and ``Collection.from_trec``, the CLI) read each run file with one
compiled pass over its bytes (:mod:`irscales.data._trec_fast`: fields, topics, exact scores, trec_eval's
order and each document's grade, looked up in per-topic hash tables of the judgments); anything it does
not decide (a bad line, a duplicate, a second run tag, a byte order mark ...) goes to the general path
(pandas' reader, :mod:`irscales.data._trec_parse`), which names the bad line. Only the relevant documents'
ranks and grades are kept of each run, never its text. Files are read by ``READ_THREADS`` threads with a
progress bar on stderr. Each run joined with the qrels is kept in a cache keyed by the SHA-256 of every
byte of the file, the score precision and the SHA-256 of the judgments (:func:`parsed_runs_cache`, under
``IRSCALES_CACHE``; ``cache=False`` turns it off), so reading the same files again with the same qrels
costs the load of a few kilobytes per run, and of the qrels' entry (:mod:`irscales.data._qrels_cache`): a file
unchanged since it was hashed is not even read (its digest from its status, :mod:`irscales.data._file_digests`);
each entry carries its own SHA-256, checked on load (a damaged entry is read again with a warning:
:mod:`irscales.data._trec_cache`).
``benchmarks/bench_trec_peers.py`` and docs/benchmarks.md compare reading and evaluating with
pytrec_eval, ir_measures, ranx and trec_eval end to end.

Modules. This module is the public API; the work is split by concern: :mod:`irscales.data._trec_parse`
(the general parser and its ``path:line`` errors), :mod:`irscales.data._trec_fast` (the compiled reader),
:mod:`irscales.data._trec_order` (trec_eval's order of parsed runs), :mod:`irscales.data._trec_cache` (the
cache of judged runs and the threaded reader), :mod:`irscales.data._qrels_cache` (the cache of qrels),
:mod:`irscales.data._file_digests` (a file's digest from its status) and :mod:`irscales.data._trec_arrays` (the
join with the qrels and the relevance arrays). Qrels in the usual layout are read without pandas
(:func:`irscales.data._trec_parse.qrels_columns`).
"""

from __future__ import annotations

import csv
import os
import tempfile
import warnings
from pathlib import Path
from typing import Iterable, Literal, Sequence

import numpy as np

from irscales._atomic import write_atomic
from irscales.data._ids import id_text, is_id
from irscales.data._qrels_cache import qrels_index
from irscales.data.run_repeats import without_repeats
from irscales.data._trec_arrays import QrelsIndex, RelevanceData, assemble, check_depth_and_policies, relevance_arrays
from irscales.data._trec_cache import judged_runs, parsed_runs_cache
from irscales.data._trec_order import SCORE_PRECISIONS, check_precision
from irscales.data._trec_parse import (MAX_GRADE, LazyLines, PathLike, TrecFormatError, first_duplicate,
                                       duplicate_error, grade_dtype, int_column, parse_run_file, qrels_columns,
                                       read_table, stored_bytes, text_bytes)
from irscales._lazy_modules import is_frame, pandas as pd  # imported on first use (issue 49)
from irscales.options import READING_DEFAULTS, READING_OPTIONS

__all__ = [
    "TrecFormatError", "RelevanceData", "read_run", "read_qrels", "read_trec", "find_runs", "write_run",
    "write_qrels",
]


def read_run(path: PathLike) -> pd.DataFrame:
    """Read one TREC run file (6 columns, optionally gzipped).

    Returns a frame with columns ``topic`` (str), ``docno`` (str), ``rank`` (int), ``score``
    (float), ``tag`` (str), in file order; ``frame.attrs['system']`` is the run tag and
    ``frame.attrs['path']`` the file. A file must hold one run tag, and a document at most once
    per topic (trec_eval refuses duplicates too).
    """
    path = Path(path)
    df, _ = parse_run_file(path)
    out = pd.DataFrame({"topic": df["topic"].to_numpy(dtype=object), "docno": df["docno"].to_numpy(dtype=object),
                        "rank": int_column(df["rank"]), "score": df["score"].to_numpy(np.float64),
                        "tag": df["tag"].to_numpy(dtype=object)})
    out.attrs.update(system=str(df["tag"].iloc[0]), path=str(path))
    return out


def read_qrels(path: PathLike, max_grade: int | None = None,
               negative: Literal["error", "zero"] = READING_DEFAULTS["negative"], *,
               stored: bytes | None = None) -> pd.DataFrame:
    """Read a TREC qrels file (4 columns: topic, iteration, docno, integer grade).

    ``max_grade`` declares the scale 0..max_grade; a grade above it is an error, and so is any
    grade above :data:`MAX_GRADE`. Negative grades (some tracks mark junk pages with -1, -2) are an
    error unless ``negative='zero'``, which reads them as judged not relevant, as trec_eval does. A
    document judged twice for a topic is an error. Returns columns ``topic``, ``docno`` (str) and
    ``rel`` (int64), in file order. ``stored``: the file's bytes as stored, read already (the cache of qrels
    hashes the bytes it parses).
    """
    path = Path(path)
    df = read_table(path, 4, "qrels", {3: "grade"}, None if stored is None else text_bytes(path, stored))
    text = df.attrs["_data"].decode("utf-8")
    out = pd.DataFrame({"topic": df["topic"].to_numpy(dtype=object), "docno": df["docno"].to_numpy(dtype=object),
                        "rel": int_column(df["rel"])})
    return validated_qrels(out, path, LazyLines(text), max_grade, negative)


def validated_qrels(df: pd.DataFrame, path, lines, max_grade: int | None, negative: str,
                    unit: str = "line") -> pd.DataFrame:
    """Qrels columns ``topic, docno, rel`` checked as every qrels source is (no document judged twice,
    negative grades per ``negative``, grades within ``max_grade``); ``lines[i]`` locates row i in errors
    (a line of ``path``, or a record / row, per ``unit``). Negative grades become 0 with ``'zero'``."""
    if negative not in ("error", "zero"):
        raise ValueError(f"negative must be 'error' or 'zero', got {negative!r}")
    t, _ = pd.factorize(df["topic"].to_numpy(dtype=object))
    d, docs = pd.factorize(df["docno"].to_numpy(dtype=object))
    dup = first_duplicate(t, d, len(docs))
    if dup is not None:
        row, first = dup
        raise duplicate_error(path, None, lines, row, first, df["topic"].iloc[row], df["docno"].iloc[row],
                              "judgment", unit)
    rel = df["rel"].to_numpy()
    if negative == "error" and (rel < 0).any():
        row = int(np.argmax(rel < 0))
        raise TrecFormatError(path, int(lines[row]),
                              f"negative grade {int(rel[row])} (pass negative='zero' to read it as judged not relevant)")
    limit = MAX_GRADE if max_grade is None else max_grade
    if (rel > limit).any():
        row = int(np.argmax(rel > limit))
        what = (f"outside the declared scale 0..{max_grade}" if max_grade is not None else
                f"above {MAX_GRADE}, the largest grade irscales stores (int16; a count is kept for every "
                "grade level)")
        shown = int(rel[row]) if rel[row] < 2**62 else "beyond 2^62"
        raise TrecFormatError(path, int(lines[row]), f"grade {shown} is {what}")
    out = df[["topic", "docno", "rel"]].reset_index(drop=True)
    out["rel"] = np.maximum(out["rel"].to_numpy(np.int64), 0)
    out.attrs.update(path=str(path))
    return out


def qrels_from_ir_datasets(dataset, max_grade: int | None = None,
                           negative: Literal["error", "zero"] = READING_DEFAULTS["negative"]) -> pd.DataFrame:
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
    recs = [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()]
    where = f"ir_datasets:{name}"
    if not recs:
        raise TrecFormatError(where, None, "no qrels records")
    for i, (q, d, r) in enumerate(recs, start=1):
        if not isinstance(r, (int, np.integer)):
            raise TrecFormatError(where, i, f"relevance must be an integer, got {r!r}")
        bad = next((x for x in (q, d) if not is_id(x)), None)
        if bad is not None:
            raise TrecFormatError(where, i, f"id {bad!r} ({type(bad).__name__}) is not a string or an integer")
    recs = [(id_text(q), id_text(d), r) for q, d, r in recs]  # the ids every route reads (irscales.data._ids)
    for col, what in ((0, "query_id"), (1, "doc_id")):
        i = _first_unwritable([x[col] for x in recs])
        if i is not None:
            raise TrecFormatError(where, i + 1, f"{what} {recs[i][col]!r} is empty or holds whitespace or a NUL "
                                  "byte: no run file can name it (fields are separated by whitespace)")
    df = pd.DataFrame(recs, columns=["topic", "docno", "rel"])
    df["rel"] = df["rel"].astype(np.int64)
    return validated_qrels(df, where, np.arange(1, len(df) + 1), max_grade, negative, unit="record")


def find_runs(source: PathLike | Iterable[PathLike]) -> list[Path]:
    """Run files of a directory (every non-hidden regular file, or link to one, sorted by name; NIST
    names such as ``input.xyz`` or ``input.xyz.gz`` included) or an explicit list of files.

    In a directory, a symbolic link whose target is missing is an error naming it (it stands for a
    run the user meant to be read, like an unreadable file); other entries that are not files
    (sub-folders, sockets …) are skipped with a warning naming them; hidden entries (``.name``) are
    skipped silently."""
    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        try:
            entries = sorted(p for p in Path(source).iterdir() if not p.name.startswith("."))
            files, other = [], []
            for p in entries:
                if p.is_file():
                    files.append(p)
                elif p.is_symlink() and not p.exists():
                    raise TrecFormatError(p, None, f"symbolic link to a missing file ({os.readlink(p)}): "
                                          "expected a run file")
                else:
                    other.append(p.name)
        except OSError as e:  # e.g. an unreadable directory
            raise TrecFormatError(source, None, f"cannot list this directory: {e.strerror or e}") from None
        if not files:
            raise TrecFormatError(source, None, "no run files in this directory"
                                  + (f" (only {', '.join(other[:5])}{', …' if len(other) > 5 else ''}, "
                                     "which are not files)" if other else ""))
        if other:
            warnings.warn(f"{source}: skipped {len(other)} entr{'y' if len(other) == 1 else 'ies'} that "
                          f"{'is not a file' if len(other) == 1 else 'are not files'} "
                          f"({', '.join(other[:5])}{', …' if len(other) > 5 else ''})", stacklevel=2)
        return files
    if isinstance(source, (str, os.PathLike)):
        return [Path(source)]
    files = [Path(p) for p in source]
    if not files:
        raise ValueError("no run files given")
    return files


def read_trec(runs: PathLike | Iterable[PathLike], qrels: PathLike | pd.DataFrame, depth: int, *,
              max_grade: int | None = None, negative: Literal["error", "zero"] = READING_DEFAULTS["negative"],
              score_precision: Literal["float32", "float64"] = READING_DEFAULTS["score_precision"],
              on_repeated_lines: Literal["error", "drop"] = READING_DEFAULTS["on_repeated_lines"],
              cache: bool | PathLike = True, progress: bool | None = None, pad: bool = True,
              **policies) -> RelevanceData:
    """Read run files (a directory or a list) and qrels (a file, or a frame from
    :func:`read_qrels` / :func:`qrels_from_ir_datasets`) into :class:`RelevanceData`;
    ``policies`` are those of :func:`relevance_arrays`.

    ``score_precision``: ``"float32"`` (trec_eval <= 9, pytrec_eval; default) or ``"float64"``
    (trec_eval >= 10); see the module docstring.
    ``on_repeated_lines``: a line repeating an earlier line's topic, document and score is an error
    (``"error"``, default, as trec_eval) or dropped (``"drop"``: the file is read from its copy without the
    repeats, :func:`irscales.data.run_repeats.without_repeats`, with a warning counting them per file). A
    document listed again with another score is an error either way, naming both lines.
    ``cache``: runs joined with the qrels are kept in :func:`parsed_runs_cache` (or the folder given),
    keyed by the SHA-256 of each file's bytes, the precision and the judgments, so reading the same files
    again with the same qrels skips parsing (a few kilobytes per run: the ranks and grades of its relevant
    documents; delete the folder to reclaim it). ``False`` turns it off.
    ``progress``: a bar of files read on stderr (default: on a terminal, once reading has taken a
    second). Files are parsed by
    :data:`irscales.data._trec_cache.READ_THREADS` threads.
    ``pad``: ``rel`` holds ``depth`` ranks (default), or with ``False`` only as many as the longest run
    cut at ``depth``, the ranks beyond being not relevant (what ``Collection.from_trec`` reads: memory
    follows the runs' real length, not ``depth``).
    """
    check_precision(score_precision)
    READING_OPTIONS["on_repeated_lines"].check(on_repeated_lines)
    folder = (parsed_runs_cache() if cache is True else Path(cache)) if cache is not False else None
    if is_frame(qrels):
        if max_grade is not None and len(qrels) and int(qrels["rel"].max()) > max_grade:
            raise TrecFormatError(qrels.attrs.get("path"), None, f"grade {int(qrels['rel'].max())} is outside "
                                  f"the declared scale 0..{max_grade}")
    else:  # a file: its index from the cache of qrels when it was read before (irscales.data._qrels_cache)
        judged = qrels_index(Path(qrels), f"{negative}-{max_grade}",
                             lambda raw: _qrels_file(Path(qrels), raw, max_grade, negative), folder)
    policies = {k: READING_DEFAULTS[k] for k in ("on_missing_topic", "on_no_relevant", "on_uneven_topics")} | policies
    check_depth_and_policies(depth, **policies)
    if is_frame(qrels):
        judged = QrelsIndex(qrels, max_grade)
    files = find_runs(runs)
    if on_repeated_lines == "error":
        return assemble(judged_runs(files, score_precision, judged, folder, progress), judged, depth, pad=pad,
                        **policies)
    with tempfile.TemporaryDirectory(prefix="irscales-repeats-") as tmp:  # copies kept only with the cache
        copies = _without_repeats(files, None if folder is not None else Path(tmp))
        return assemble(_named_as(judged_runs(copies, score_precision, judged, folder, progress), files), judged,
                        depth, pad=pad, **policies)


def _qrels_file(path: Path, stored: bytes | None, max_grade: int | None, negative: str) -> QrelsIndex:
    """The :class:`QrelsIndex` of a qrels file (``stored``: its bytes, read already): well-formed text is read
    without pandas (:func:`irscales.data._trec_parse.qrels_columns`, the index :func:`read_qrels`' frame makes);
    anything else, and a document judged twice, a negative grade or one out of range, by :func:`read_qrels`,
    which names the line."""
    stored = stored_bytes(path) if stored is None else stored
    columns = qrels_columns(text_bytes(path, stored)) if negative in ("error", "zero") else None
    if columns is not None:
        topics, docnos, rel = columns
        (t, topic_names), (d, docno_names) = _factorized(topics), _factorized(docnos)
        if (first_duplicate(t, d, len(docno_names)) is None and rel.max() <= (MAX_GRADE if max_grade is None
                                                                              else max_grade)
                and (negative == "zero" or rel.min() >= 0)):
            return QrelsIndex.of_judgments(str(path), t, topic_names, d, docno_names, np.maximum(rel, 0), max_grade)
    return QrelsIndex(read_qrels(path, max_grade=max_grade, negative=negative, stored=stored), max_grade)


def _factorized(names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct names in their order of first appearance), as ``pd.factorize``."""
    index = {x: i for i, x in enumerate(dict.fromkeys(names))}
    return np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names)), np.array(list(index),
                                                                                                  dtype=object)


def _without_repeats(files: list[Path], folder: Path | None) -> list[Path]:
    """The files to read with ``on_repeated_lines='drop'``, and a warning per file whose repeats are dropped."""
    copies, report = without_repeats(files, folder)
    for f, row in zip(files, report.itertuples(index=False)):
        if row.repeats_dropped:
            warnings.warn(f"{f}: dropped {row.repeats_dropped} repeated line(s) (the topic, document and score of "
                          f"an earlier line) in {row.topics_with_repeats} topic(s)", stacklevel=4)
    return copies


def _named_as(hits, files: list[Path]):
    """Judged runs read from copies, named by the files they copy (messages and ``sources`` name those)."""
    for h, f in zip(hits, files):
        h.path = str(f)
        yield h


# ---------------------------------------------------------------------------------- writing


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text, gzip=path.suffix == ".gz")


def write_run(path: PathLike, topic: Sequence[str], docno: Sequence[str], score: Sequence[float],
              tag: str) -> None:
    """Write a 6-column run file; ranks are numbered 1.. within each topic in the given order.
    Scores are written with 17 significant digits so reading them back gives the same doubles."""
    topic = np.asarray(topic, dtype=object)
    _check_fields(path, topic=topic, docno=docno, tag=[tag])
    start = np.r_[True, topic[1:] != topic[:-1]] if len(topic) else np.zeros(0, bool)
    grp = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    rank = np.arange(len(topic)) - first[grp] + 1 if len(topic) else np.zeros(0, int)
    df = pd.DataFrame({"t": topic, "q": "Q0", "d": np.asarray(docno, dtype=object), "r": rank,
                       "s": [f"{x:.17g}" for x in np.asarray(score, dtype=float)], "tag": tag})
    _write(Path(path), df.to_csv(sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE))


def write_qrels(path: PathLike, topic: Sequence[str], docno: Sequence[str], rel: Sequence[int]) -> None:
    """Write a 4-column qrels file (iteration column 0)."""
    _check_fields(path, topic=topic, docno=docno)
    df = pd.DataFrame({"t": np.asarray(topic, dtype=object), "i": 0,
                       "d": np.asarray(docno, dtype=object), "r": np.asarray(rel, dtype=np.int64)})
    _write(Path(path), df.to_csv(sep=" ", header=False, index=False, quoting=csv.QUOTE_NONE))


def _first_unwritable(values) -> int | None:
    """Index of the first value that is empty or holds a field separator (C isspace), a line end or a
    NUL byte: written to a TREC file it would read back as something else; None if there is none."""
    vals = [str(v) for v in values]
    bad = " \t\n\r\x0b\x0c\x00"
    joined = "".join(vals)
    if all(vals) and not any(c in joined for c in bad):  # one pass in C for the usual case
        return None
    return next((i for i, v in enumerate(vals) if not v or any(c in v for c in bad)), None)


def _check_fields(path, **columns) -> None:
    for name, values in columns.items():
        i = _first_unwritable(values)
        if i is not None:
            raise ValueError(f"cannot write {path}: {name} {list(values)[i]!r} (row {i + 1}) is empty or holds "
                             "whitespace or a NUL byte, so the file would not read back to it")


# ---------------------------------------------------------------------------------- helpers


def lenient_binary(rel: np.ndarray) -> np.ndarray:
    """Lenient binary mapping (FFF21 §6): grade > 0 → 1, else 0."""
    return (np.asarray(rel) > 0).astype(np.int8)


def recall_bases(qrels: pd.DataFrame) -> pd.Series:
    """Recall base per topic: number of judged documents with grade > 0 (trec_eval's num_rel)."""
    return (qrels["rel"] > 0).groupby(qrels["topic"]).sum().astype(np.int64).rename("rb")
