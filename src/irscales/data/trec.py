"""TREC run and qrels files → relevance arrays ``[system, topic, rank]``.

File formats (whitespace separated, one record a line, ``.gz`` read transparently):

run    ``topic Q0 docno rank score tag`` (6 columns)
qrels  ``topic iteration docno rel`` (4 columns; ``rel`` an integer grade, 0 = not relevant)

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

Errors. Bad input raises :class:`TrecFormatError`, whose message reads ``path:line: what was
wrong``. Files are parsed with pandas' C reader; only when it reports a problem are the lines
re-read one by one to name the first bad line, so valid large inputs stay fast.

Speed. :func:`read_trec` (and ``Collection.from_trec``, the CLI) first try a numpy path on each
run file's bytes (``_fast_run``: fields located with one scan, read as 8-byte words, scores
converted exactly as ``float()`` does, ids factorized by their words); anything it does not
recognise as well formed (tabs, CR, blank lines, exotic numbers, duplicates, ...) goes to the
general path above, which names the bad line. Files are read by :data:`READ_THREADS` threads with a
progress bar on stderr. Each parsed run, already in trec_eval's order, is kept in a cache keyed by
the SHA-256 of the file's bytes and the score precision (:func:`parsed_runs_cache`, under
``IRSCALES_CACHE``; ``cache=False`` turns it off), so reading the same files again costs a read, a
hash and a load. ``benchmarks/bench_trec_input.py`` and docs/benchmarks.md compare these paths with
pytrec_eval end to end.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io as _io
import os
import queue
import re
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "TrecFormatError", "RelevanceData", "read_run", "read_qrels", "find_runs", "relevance_arrays",
    "read_trec", "write_run", "write_qrels", "lenient_binary", "recall_bases", "qrels_from_ir_datasets",
    "MAX_GRADE", "SCORE_PRECISIONS", "grade_dtype", "parsed_runs_cache",
]

PathLike = str | os.PathLike

_FIXED_WIDTH_SORT_BYTES = 2**29  # above this, docnos are sorted as Python strings (see relevance_arrays)

MAX_GRADE = 32767  # int16: grades are stored in int8 when <= 127, else int16 (see grade_dtype)
SCORE_PRECISIONS = ("float32", "float64")
# an integer column written as an integer, optionally with a zero fraction ('2', '-1', '2.0')
_INT_TOKEN = r"[+-]?[0-9]+(?:\.0*)?"
_INT_LIMIT = 2.0**53  # integers beyond this are not exact in the float64 the C reader parses

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


def _read_bytes(path: Path) -> bytes:
    """The file's bytes (gunzipped when it starts with the gzip magic), checked to be UTF-8."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise TrecFormatError(path, None, "file not found") from None
    except IsADirectoryError:
        raise TrecFormatError(path, None, "is a directory, expected a file") from None
    except PermissionError:
        raise TrecFormatError(path, None, "permission denied: cannot read this file") from None
    except (OSError, EOFError) as e:  # truncated gzip and the like
        raise TrecFormatError(path, None, f"cannot read file: {e}") from None
    try:
        data.isascii() or data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise TrecFormatError(path, line, f"not UTF-8 text (byte {data[e.start]:#x})") from None
    return data


def _int_token_ok(tok: str, integral_float: bool = False) -> bool:
    """An integer written as an integer ('2', '2.0'); ``integral_float`` also accepts any number
    with an integral value ('2e0', as the C reader does for the ignored rank column)."""
    if integral_float:
        try:
            v = float(tok) if "_" not in tok else 0.5
        except ValueError:
            return False
        return np.isfinite(v) and v.is_integer() and abs(v) < _INT_LIMIT
    return re.fullmatch(_INT_TOKEN, tok) is not None


def _slow_scan(path: Path, text: str, ncols: int, kind: str, numeric: dict[int, str]) -> None:
    """Re-read line by line and raise at the first bad line (called only after the fast path
    found a problem, so the cost of per-line Python is paid only on bad input)."""
    names = RUN_COLUMNS if kind == "run" else QRELS_COLUMNS
    for no, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != ncols:
            raise TrecFormatError(
                path, no, f"expected {ncols} whitespace-separated columns in a {kind} line, found "
                f"{len(parts)}: {line.strip()[:80]!r}")
        for col, what in numeric.items():
            tok = parts[col]
            if what == "int" and not _int_token_ok(tok, integral_float=True):
                raise TrecFormatError(path, no, f"{names[col]} must be an integer, got {tok!r}")
            if what == "grade" and not _int_token_ok(tok):
                raise TrecFormatError(path, no, f"{names[col]} must be an integer, got {tok!r}")
            if what == "float":
                try:
                    v = float(tok) if "_" not in tok else None  # the C reader refuses '1_0'
                except ValueError:
                    v = None
                if v is None:
                    raise TrecFormatError(path, no, f"{names[col]} must be a number, got {tok!r}")
                if not np.isfinite(v):
                    raise TrecFormatError(path, no, f"{names[col]} must be finite, got {tok!r}")


def _line_numbers(text: str) -> np.ndarray:
    """1-based line number of each non-blank line (pandas skips blank lines)."""
    lines = text.splitlines()
    return np.array([i for i, ln in enumerate(lines, start=1) if ln.strip()], dtype=np.int64)


_NOT_SIMPLE = (b"\t", b"\r", b"\x0b", b"\x0c")  # single bytes: each test is one memchr


def _parse_fast(data: bytes, ncols: int, numeric: dict[int, str], sep: str) -> pd.DataFrame | None:
    """pandas' C reader: numbers parsed in C (float64), text as strings; None if anything looks
    unusual (the caller then retries with a general separator, and finally scans line by line to
    name the bad line). Grades ('grade') are read as text and checked to be integer tokens."""
    # the second column (Q0 / iteration) is never used: with single spaces, whose count the caller
    # checked, it is not even converted (usecols would hide extra fields on a line otherwise)
    cols = [i for i in range(ncols) if i != 1] if sep == " " else list(range(ncols))
    dtype = {i: (np.float64 if numeric.get(i) in ("float", "int") else str) for i in cols}
    try:
        df = pd.read_csv(_io.BytesIO(data), sep=sep, header=None, dtype=dtype, na_filter=False,
                         quoting=csv.QUOTE_NONE, engine="c", encoding="utf-8",
                         usecols=cols if sep == " " else None)
    except (pd.errors.ParserError, ValueError, TypeError):
        return None
    if list(df.columns) != cols or len(df) == 0:
        return None
    for i in cols:
        what = numeric.get(i)
        if what in ("float", "int"):
            v = df[i].to_numpy()
            if not np.isfinite(v).all() or (what == "int" and ((v % 1 != 0) | (np.abs(v) >= _INT_LIMIT)).any()):
                return None
            continue
        col = df[i].to_numpy(dtype=object)
        if i in (ncols - 1, 0) and (col == "").any():  # a short line, or a leading separator
            return None
        if what == "grade" and not df[i].str.fullmatch(_INT_TOKEN).all():
            return None
    return df


def _read_table(path: Path, ncols: int, kind: str, numeric: dict[int, str],
                data: bytes | None = None) -> pd.DataFrame:
    data = _read_bytes(path) if data is None else data
    if not data.strip():
        raise TrecFormatError(path, 1, f"empty file: expected {kind} lines")
    # single spaces (what most TREC tools write) parse fastest; tabs, runs of blanks, CR or blanks at
    # the ends of lines take the general path
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    simple = data.count(b" ") == (ncols - 1) * lines and not any(x in data for x in _NOT_SIMPLE)
    df = _parse_fast(data, ncols, numeric, " ") if simple else None
    if df is None:
        df = _parse_fast(data, ncols, numeric, r"\s+")
    if df is None:
        _slow_scan(path, data.decode("utf-8"), ncols, kind, numeric)
        raise TrecFormatError(path, None, f"cannot parse as a {kind} file")  # pragma: no cover
    names = RUN_COLUMNS if kind == "run" else QRELS_COLUMNS
    df = df[[i for i in range(ncols) if i != 1]]
    df.columns = [names[i] for i in range(ncols) if i != 1]
    df.attrs["_data"] = data  # bytes: pandas' copies of attrs share them
    return df


def _int_column(col: pd.Series) -> np.ndarray:
    """Integer values of a validated category column of integer tokens."""
    if col.dtype == np.float64:  # the rank column: integral floats below 2^53
        return col.to_numpy().astype(np.int64)
    # grades: validated integer tokens, converted exactly; beyond ±2^62 clipped (an error follows)
    return np.array([max(-2**62, min(2**62, int(x.split(".")[0]))) for x in col.to_numpy(dtype=object)],
                    dtype=np.int64)


def _first_duplicate(t: np.ndarray, d: np.ndarray, nd: int) -> tuple[int, int] | None:
    """(row, first row) of the first (topic, docno) pair seen twice, rows in file order."""
    key = t.astype(np.int64) * max(nd, 1) + d
    if len(key) and int(key.max()) < max(1 << 22, 8 * len(key)):  # a count per key is cheaper than a sort
        if int(np.bincount(key).max()) < 2:
            return None
    order = np.argsort(key, kind="stable")
    sk = key[order]
    dup = np.flatnonzero(sk[1:] == sk[:-1])
    if not len(dup):
        return None
    row = int(order[dup + 1].min())
    first = int(order[np.searchsorted(sk, key[row])])
    return row, first


def _duplicate_error(path, text: str | None, lines, row: int, first: int, topic, docno, what: str,
                     unit: str = "line") -> TrecFormatError:
    if lines is None:
        lines = _line_numbers(text)
    return TrecFormatError(path, int(lines[row]), f"duplicate {what} for topic {topic!r}, document "
                           f"{docno!r} (first at {unit} {int(lines[first])})")


class _ParsedRun:
    """One run file in trec_eval's order: rows grouped by topic (``t_code`` into ``topics``), within
    a topic by score descending at the chosen precision, then docno descending (``d_code`` into
    ``docnos``, which are sorted in strcmp order, so a larger code is a larger docno)."""

    __slots__ = ("system", "path", "topics", "docnos", "t_code", "d_code")

    def __init__(self, system, path, topics, docnos, t_code, d_code):
        self.system, self.path = system, path
        self.topics, self.docnos, self.t_code, self.d_code = topics, docnos, t_code, d_code


def _strcmp_ranks(names: np.ndarray) -> np.ndarray:
    """Rank of each string in code-point order (= strcmp order of the UTF-8 bytes)."""
    width = max(map(len, names)) if len(names) else 1
    if width * len(names) * 4 <= _FIXED_WIDTH_SORT_BYTES:
        order = np.argsort(np.asarray(names, dtype=str), kind="stable")  # a fixed-width array sorts in C
    else:  # very long docnos (URLs): sort the Python strings rather than allocate > 512 MB
        order = np.argsort(np.asarray(names, dtype=object), kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank


def _descending_score_codes(score: np.ndarray, precision: str) -> tuple[np.ndarray, int]:
    """Integer codes, smaller for higher scores at the given precision (equal scores, including
    -0.0 and +0.0, get equal codes), and the number of possible codes."""
    if precision == "float32":
        bits = (score.astype(np.float32) + np.float32(0.0)).view(np.int32).astype(np.int64)  # -0.0 -> +0.0
        ordered = np.where(bits < 0, -1 - (bits & 0x7FFFFFFF), bits)  # increasing with the float value
        return (2**31 - 1) - ordered, 2**32
    uniq, inv = np.unique(score.astype(np.float64), return_inverse=True)
    return (len(uniq) - 1) - inv.reshape(-1), max(len(uniq), 1)


def _trec_order(system: str, path: str, topics: np.ndarray, t: np.ndarray, docnos: np.ndarray,
                d: np.ndarray, score: np.ndarray, precision: str, docnos_sorted: bool = False) -> _ParsedRun:
    if docnos_sorted:  # d already ranks the docnos in strcmp order
        sorted_docnos = np.asarray(docnos, dtype=object)
    else:
        drank = _strcmp_ranks(docnos)
        sorted_docnos = np.empty(len(docnos), dtype=object)
        sorted_docnos[drank] = docnos
        d = drank[d]
    order = _presorted_order(t, d, score, precision)
    if order is None:
        # (topic, score descending), then docno descending inside groups of equal score: two stable
        # integer sorts, the second on nearly sorted keys (files are usually written in this order)
        codes, width = _descending_score_codes(score, precision)
        key = t * width + codes
        order = np.argsort(key, kind="stable")
        k = key[order]
        group = np.cumsum(np.r_[False, k[1:] != k[:-1]]) if len(k) else k
        nd = max(len(docnos), 1)
        order = order[np.argsort(group * nd + (nd - 1 - d[order]), kind="stable")]
    if isinstance(order, slice):
        t_out, d_out = t, d
    else:
        t_out, d_out = t[order], d[order]
    return _ParsedRun(system, path, np.asarray(topics, dtype=object), sorted_docnos,
                      t_out.astype(np.int32), d_out.astype(np.int32))


def _presorted_order(t: np.ndarray, d: np.ndarray, score: np.ndarray, precision: str):
    """The order for a run already grouped by topic code and sorted by score descending (at the
    precision) in file order, as most run files are: ``slice(None)`` when equal scores are also in
    docno descending order, else a sort inside the groups of equal scores only; None when the rows
    are not in that order (the caller sorts them all)."""
    if len(t) < 2:
        return slice(None)
    s = score.astype(np.float32 if precision == "float32" else np.float64)
    step = np.diff(t)
    same = step == 0
    if (step < 0).any() or (same & (s[1:] > s[:-1])).any():
        return None
    tie = same & (s[1:] == s[:-1])  # -0.0 == +0.0, as in the general path
    if not (tie & (d[1:] > d[:-1])).any():
        return slice(None)
    group = np.cumsum(np.r_[0, ~tie])
    nd = int(d.max()) + 1
    return np.argsort(group * nd + (nd - 1 - d), kind="stable")


def _check_precision(score_precision: str) -> None:
    if score_precision not in SCORE_PRECISIONS:
        raise ValueError(f"score_precision must be 'float32' (trec_eval <= 9, pytrec_eval) or 'float64' "
                         f"(trec_eval >= 10), got {score_precision!r}")


_CACHE_FORMAT = "irscales.parsed-run/2"
_CACHE_FIELDS = ("format", "system", "topics", "docnos", "t_code", "d_code")


def _cache_file(cache: Path, data, precision: str) -> Path:
    return cache / f"{hashlib.sha256(data).hexdigest()}-{precision}.parsed"


def _load_cached(f: Path, path: str) -> _ParsedRun | None:
    """A cached parsed run: six .npy arrays one after the other (no zip: faster to write and read);
    a truncated or foreign file fails to load and the run is parsed again."""
    try:
        with open(f, "rb") as fh:
            z = {k: np.load(fh, allow_pickle=False) for k in _CACHE_FIELDS}
            if str(z["format"]) != _CACHE_FORMAT or fh.read(1):
                return None
        if len(z["t_code"]) != len(z["d_code"]) or (len(z["t_code"]) and (
                z["t_code"].max() >= len(z["topics"]) or z["d_code"].max() >= len(z["docnos"]))):
            return None
        return _ParsedRun(str(z["system"]), path, z["topics"].astype(object), z["docnos"].astype(object),
                          z["t_code"], z["d_code"])
    except (OSError, ValueError, KeyError, EOFError):  # absent, partial or foreign: parse again
        return None


def _store_cached(f: Path, p: _ParsedRun) -> None:
    try:
        f.parent.mkdir(parents=True, exist_ok=True)
        # unique per process and thread: two files with the same bytes may be parsed at once
        tmp = f.with_name(f"{f.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        with open(tmp, "wb") as fh:
            for x in (np.array(_CACHE_FORMAT), np.array(p.system), p.topics.astype(str), p.docnos.astype(str),
                      p.t_code, p.d_code):
                np.save(fh, x, allow_pickle=False)
        os.replace(tmp, f)  # atomic: a reader never sees half a file
    except OSError as e:
        warnings.warn(f"cannot write the parsed-run cache {f.parent} ({e}); continuing without it", stacklevel=4)


def _parse_run_file(path: Path, data: bytes | None = None) -> tuple[pd.DataFrame, tuple]:
    """A validated run frame (text columns as strings, float64 scores) and the integer codes of its
    topics and docnos: (topic codes, topics, docno codes, docnos)."""
    df = _read_table(path, 6, "run", {3: "int", 4: "float"}, data)
    t, topics = pd.factorize(df["topic"].to_numpy(dtype=object))
    d, docnos = pd.factorize(df["docno"].to_numpy(dtype=object))
    dup = _first_duplicate(t, d, len(docnos))
    if dup is not None:
        row, first = dup
        raise _duplicate_error(path, df.attrs["_data"].decode("utf-8"), None, row, first,
                               df["topic"].iloc[row], df["docno"].iloc[row], "document")
    tags = df["tag"].to_numpy(dtype=object)
    if (tags != tags[0]).any():
        second = int(np.argmax(tags != tags[0]))
        raise TrecFormatError(
            path, int(_line_numbers(df.attrs["_data"].decode("utf-8"))[second]),
            f"run tag {df['tag'].iloc[second]!r} differs from {df['tag'].iloc[0]!r} on the first line; "
            "one run per file")
    return df, (t.astype(np.int64), np.asarray(topics, dtype=object), d.astype(np.int64),
                np.asarray(docnos, dtype=object))


def _parsed_run(path: Path, precision: str, cache: Path | None, scratch: _Scratch | None = None) -> _ParsedRun:
    """A run file in trec_eval's order, from the cache of parsed runs when the same bytes were
    parsed before (the key is the SHA-256 of the file's content and the precision)."""
    b = _read_padded(path, scratch or _Scratch())
    f = _cache_file(cache, b.array, precision) if cache is not None else None
    if f is not None:
        hit = _load_cached(f, str(path))
        if hit is not None:
            return hit
    fast = _fast_run(b)
    if fast is not None:
        tag, t, topics, d, docnos, score = fast
        p = _trec_order(tag, str(path), topics, t, docnos, d, score, precision, docnos_sorted=True)
    else:
        df, (t, topics, d, docnos) = _parse_run_file(path, b.array.tobytes())
        p = _trec_order(str(df["tag"].iloc[0]), str(path), topics, t, docnos, d, df["score"].to_numpy(), precision)
    if f is not None:
        _store_cached(f, p)
    return p


def _parsed_frame(r: pd.DataFrame, i: int, precision: str) -> _ParsedRun:
    name = str(r.attrs.get("system", f"run{i}"))
    path = str(r.attrs.get("path", f"<run {name}>"))
    t, topics = pd.factorize(r["topic"].astype(str).to_numpy(dtype=object))
    d, docnos = pd.factorize(r["docno"].astype(str).to_numpy(dtype=object))
    return _trec_order(name, path, np.asarray(topics, dtype=object), t.astype(np.int64),
                       np.asarray(docnos, dtype=object), d.astype(np.int64), r["score"].to_numpy(float), precision)


# ----------------------------------------------------------- fast path for well-formed run files
#
# Most run files are single-space separated with one record per line. For those, the fields are
# located in the file's bytes with numpy, read as 8-byte words (no Python object per field),
# numbers are converted exactly and ids factorized through their words. Whatever is unusual (tabs,
# CR, blank lines, a BOM, exotic numbers, duplicates, mixed tags, ...) makes it return None, and the
# general path above, which accepts the same inputs, decides and names the first bad line.

# a decimal number as both pandas' C reader and Python's float() read it
_FLOAT_TOKEN = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_POW10_F = np.array([10.0**k for k in range(23)])  # exact doubles
_POW10_I = 10 ** np.arange(19, dtype=np.int64)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
_PAD = 16  # zero bytes before and after the data: loads of 8 bytes may start before a field
_U = np.uint64
_B30, _B7F, _B80 = _U(0x3030303030303030), _U(0x7F7F7F7F7F7F7F7F), _U(0x8080808080808080)


class _Bytes:
    """A file's bytes in a zero-padded buffer (``size`` bytes from offset ``_PAD``), with 8-byte
    little-endian loads at any offset. The buffer may be a scratch buffer reused from file to file."""

    def __init__(self, buf: np.ndarray, size: int):
        self.buf, self.size = buf, size
        buf[:_PAD] = 0
        buf[_PAD + size: 2 * _PAD + size] = 0
        # an unaligned uint64 view starting at every byte (stride 1): loads without copies
        self.u64 = np.ndarray((2 * _PAD + size - 7,), dtype="<u8", buffer=buf, strides=(1,))

    @classmethod
    def of(cls, data: bytes) -> _Bytes:
        buf = np.empty(len(data) + 2 * _PAD + 1, dtype=np.uint8)
        buf[_PAD: _PAD + len(data)] = np.frombuffer(data, dtype=np.uint8)
        return cls(buf, len(data))

    @property
    def array(self) -> np.ndarray:
        return self.buf[_PAD: _PAD + self.size]

    def token(self, start: int, end: int) -> bytes:
        return self.buf[_PAD + start: _PAD + end].tobytes()

    def word(self, pos: np.ndarray) -> np.ndarray:
        return self.u64[pos + _PAD]

    def field_word(self, start: np.ndarray, length: np.ndarray, k: int) -> np.ndarray:
        """Bytes 8k..8k+7 of each field, zero beyond its end."""
        return self.word(start + 8 * k) & _LOW_BYTES[np.clip(length - 8 * k, 0, 8)]


class _Scratch:
    """A buffer reused from file to file by one reader (no fresh pages to fault in for each file)."""

    def __init__(self):
        self.buf = np.empty(0, dtype=np.uint8)

    def get(self, size: int) -> np.ndarray:
        if len(self.buf) < size:
            self.buf = np.empty(max(size, len(self.buf) * 5 // 4), dtype=np.uint8)
        return self.buf


def _read_padded(path: Path, scratch: _Scratch) -> _Bytes:
    """The file's bytes like :func:`_read_bytes` (same errors), read straight into ``scratch``."""
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return _Bytes.of(_read_bytes(path))
            size = os.fstat(fh.fileno()).st_size
            fh.seek(0)
            buf = scratch.get(size + 2 * _PAD + 1)
            view, got = memoryview(buf)[_PAD: _PAD + size], 0
            while got < size:
                k = fh.readinto(view[got:])
                if not k:
                    break
                got += k
            if got < size or fh.read(1):  # the file changed while read: read it the plain way
                return _Bytes.of(_read_bytes(path))
    except IsADirectoryError:
        raise TrecFormatError(path, None, "is a directory, expected a file") from None
    except OSError:
        return _Bytes.of(_read_bytes(path))  # the same errors, worded once
    b = _Bytes(buf, size)
    if size and b.array.max() >= 0x80:
        _read_bytes(path)  # not ASCII: check the UTF-8 (and name the line) the usual way
    return b


def _factorize_words(words: list[np.ndarray], longest: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes (in order of first appearance) and a row holding each distinct value of a field given
    as 8-byte words (zero beyond its end), exactly: no NUL byte occurs in a field, so the zero
    padding of a shorter field differs from the bytes of a longer one. The codes so far and the next
    word share one integer key when they fit in 63 bits, else the word is factorized on its own."""
    codes, uniq = pd.factorize(words[0])
    for k in range(1, len(words)):
        bits = 8 * min(longest - 8 * k, 8)
        if len(uniq).bit_length() + bits <= 63:
            key = (codes.astype(np.uint64) << _U(bits)) | words[k]
        else:
            c, u = pd.factorize(words[k])
            key = codes.astype(np.int64) * len(u) + c
        codes, uniq = pd.factorize(key)
    rep = np.empty(len(uniq), dtype=np.int64)
    rep[codes] = np.arange(len(codes))  # any row of each value will do
    return codes.astype(np.int64), rep


def _high_bytes(k: np.ndarray) -> np.ndarray:
    """Words whose ``k`` highest bytes are 0xFF (k in 0..8)."""
    return ~_LOW_BYTES[8 - k]


def _flags_not(x: np.ndarray, byte: int, below: int = 1) -> np.ndarray:
    """0x80 in each byte of ``x`` whose value minus ``byte`` is not in 0..below-1, else 0 (SWAR,
    exact: no carry crosses a byte)."""
    v = x ^ _U(byte * 0x0101010101010101)
    return (((v & _B7F) + _U((0x80 - below) * 0x0101010101010101)) | v) & _B80


def _digits8(w: np.ndarray) -> np.ndarray:
    """Value of 8 ASCII digits in a little-endian word, the first byte most significant
    (simdjson's parse_eight_digits_unrolled)."""
    w = ((w & _U(0x0F0F0F0F0F0F0F0F)) * _U(2561)) >> _U(8)
    w = ((w & _U(0x00FF00FF00FF00FF)) * _U(6553601)) >> _U(16)
    return ((w & _U(0x0000FFFF0000FFFF)) * _U(42949672960001)) >> _U(32)


def _exact_decimals(b: _Bytes, start: np.ndarray, length: np.ndarray) -> np.ndarray | None:
    """float() of each field, or None when a field is not a finite decimal number.

    A field of at most 15 digits with an optional sign and point is m / 10^q with m < 2^53 and
    q <= 15, both exact doubles, so the single IEEE division is the correctly rounded value, which
    is what float() returns (Clinger's fast path). Other fields (exponents, more digits) go
    through float() itself. The last 8 (or 16) bytes of each field are read right-aligned as one
    (or two) words, and checked and converted 8 bytes at a time."""
    end = start + length
    two = int(length.max()) > 8
    words = [b.word(end - 16), b.word(end - 8)] if two else [b.word(end - 8)]
    inside = [_high_bytes(np.clip(length - 8, 0, 8)), _high_bytes(np.minimum(length, 8))] if two else \
        [_high_bytes(length)]
    other = [_flags_not(w, 48, 10) & m for w, m in zip(words, inside)]  # 0x80 on bytes that are not digits
    dots = [~_flags_not(w, 46) & o for w, o in zip(words, other)]  # 0x80 on points
    ndot = sum(np.bitwise_count(x) for x in dots)
    nother = sum(np.bitwise_count(x) for x in other)
    first = b.buf[start + _PAD]  # the field's first byte
    sign = (first == 45) | (first == 43)
    ndig = length - ndot - sign
    simple = (nother == ndot + sign) & (ndot <= 1) & (ndig >= 1) & (ndig <= 15)
    if two:
        simple &= length <= 16
    # bytes that are not digits (point, sign, outside the field) read as '0'
    digits = []
    for w, m, o in zip(words, inside, other):
        z = ((o | (~m & _B80)) >> _U(7)) * _U(0xFF)
        w = (w & ~z) | (_B30 & z)
        if not two:
            # drop the point: the bytes before it (the integer part) move up one place
            below = _LOW_BYTES[np.minimum(np.bitwise_count(dots[0] - _U(1)) // 8, 8)]
            w = np.where(ndot == 1, (w & ~below & ~(below << _U(8))) | ((w & below) << _U(8)) | _U(0x30), w)
        digits.append(_digits8(w))
    if two:
        A = (digits[0] * _U(10**8) + digits[1]).astype(np.int64)
        # the point read as a zero digit at place q (the number of digits after it): remove it
        point = np.bitwise_count((dots[0] | dots[1]) - _U(1)).astype(np.int64) // 8  # its byte in its word
        q = np.where(dots[1] != 0, 7, 15) - point
        q[ndot != 1] = 0
        m = np.where(ndot == 1, A // _POW10_I[q + 1] * _POW10_I[q] + A % _POW10_I[q], A)
    else:
        m = digits[0].astype(np.int64)
        q = np.where(ndot == 1, 7 - np.bitwise_count(dots[0] - _U(1)).astype(np.int64) // 8, 0)
    val = m / _POW10_F[q]
    val[first == 45] *= -1.0  # '-0' is -0.0, as float('-0')
    for i in np.flatnonzero(~simple).tolist():
        tok = b.token(start[i], end[i])
        if not _FLOAT_TOKEN.fullmatch(tok):
            return None
        v = float(tok)
        if not np.isfinite(v):
            return None
        val[i] = v
    return val


def _all_integers(b: _Bytes, start: np.ndarray, length: np.ndarray) -> bool:
    """Every field is an integer as the general path reads the rank column ('2', '-1', '2.0', '2e0')."""
    w = b.word(start + length - 8)  # the last 8 bytes, right-aligned
    simple = (length <= 8) & ((_flags_not(w, 48, 10) & _high_bytes(np.minimum(length, 8))) == 0)
    for i in np.flatnonzero(~simple).tolist():
        tok = b.token(start[i], start[i] + length[i])
        if not _FLOAT_TOKEN.fullmatch(tok) or not _int_token_ok(tok.decode("ascii"), integral_float=True):
            return False
    return True


_FAST_BLOCK = 8192  # lines handled at a time: the temporaries stay in cache and need no new pages


def _fast_run(data: bytes | _Bytes):
    """(tag, topic codes, topics, docno codes, docnos, scores) of a well-formed run file, with
    docnos in strcmp order (a larger code is a larger docno); None when the general path must decide."""
    b = data if isinstance(data, _Bytes) else _Bytes.of(data)
    a = b.array
    if not len(a) or (len(a) >= 3 and a[:3].tobytes() == b"\xef\xbb\xbf"):
        return None  # empty, or a byte order mark (pandas drops it)
    if a[-1] != 10:  # a last line without a line end: add one in the padding
        b = _Bytes(b.buf, b.size + 1)  # every buffer has room for it
        b.buf[_PAD + b.size - 1] = 10
        a = b.array
    sep = np.flatnonzero(a <= 32)  # blanks and control bytes
    n = len(sep) // 6
    if n == 0 or len(sep) != 6 * n:
        return None  # not 6 fields a line (or blank lines)
    sep = (sep.astype(np.int32) if len(a) < 2**31 else sep).reshape(n, 6)
    tag = None
    score = np.empty(n)
    words: dict[int, list[list[np.ndarray]]] = {0: [], 2: []}  # topic, docno: words of each block
    longest = {0: 0, 2: 0}
    for i in range(0, n, _FAST_BLOCK):
        sp = sep[i: i + _FAST_BLOCK].T.astype(np.int64)  # one contiguous row per column
        kind = a[sp]
        if (kind[:5] != 32).any() or (kind[5] != 10).any():
            return None  # tabs, CR, other control bytes, or a line not of 6 fields
        start = np.empty_like(sp)
        start[0, 0] = sep[i - 1, 5] + 1 if i else 0
        np.add(sp[5, :-1], 1, out=start[0, 1:])
        np.add(sp[:5], 1, out=start[1:])
        length = np.subtract(sp, start, out=sp)
        if length.min() == 0:
            return None  # empty fields or leading blanks
        if tag is None:
            tag = b.token(start[5, 0], start[5, 0] + length[5, 0])
            tag_words = [b.field_word(start[5, :1], length[5, :1], k) for k in range(-(-len(tag) // 8))]
            # a short tag: the 8 bytes before each line end must be '<space><tag>' (right-aligned)
            short = len(tag) <= 7 and int.from_bytes(b" " + tag, "little") << (8 * (7 - len(tag)))
            tail = _high_bytes(np.array(len(tag) + 1)) if short else None
        if short:
            if (((b.word(start[5] + length[5] - 8) ^ _U(short)) & tail) != 0).any():
                return None  # one tag a file: the general path names the line that differs
        elif (length[5] != len(tag)).any() or any((b.field_word(start[5], length[5], k) != w).any()
                                                  for k, w in enumerate(tag_words)):
            return None
        if not _all_integers(b, start[3], length[3]):
            return None
        val = _exact_decimals(b, start[4], length[4])
        if val is None:
            return None
        score[i: i + _FAST_BLOCK] = val
        for c in (0, 2):
            top = int(length[c].max())
            longest[c] = max(longest[c], top)
            words[c].append([b.field_word(start[c], length[c], k) for k in range(-(-top // 8))])
    ids = {}
    for c in (0, 2):
        cols = [np.concatenate([w[k] if k < len(w) else np.zeros(len(w[0]), dtype=np.uint64) for w in words[c]])
                for k in range(-(-longest[c] // 8))]
        if c == 0:  # topics come in runs of equal lines: factorize the first line of each run
            heads = np.flatnonzero(np.r_[True, np.logical_or.reduce([w[1:] != w[:-1] for w in cols])])
            code, rep = _factorize_words([w[heads] for w in cols], longest[c])
            code, rep = np.repeat(code, np.diff(np.r_[heads, n])), heads[rep]
        else:
            code, rep = _factorize_words(cols, longest[c])
        ids[c] = code, np.stack([w[rep] for w in cols], axis=1)  # the words of each distinct value
    t, topic_words = ids[0]
    d, doc_words = ids[2]
    if _has_duplicate(t, d, len(topic_words), len(doc_words)):
        return None
    # docnos in byte order, which is strcmp's and, for UTF-8, code point order: the words read
    # big-endian compare as the bytes do (zero padding sorts first, as the end of a C string)
    order = np.lexsort(doc_words.byteswap().T[::-1])
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return tag.decode("utf-8"), t, _words_to_str(topic_words), rank[d], _words_to_str(doc_words[order]), score


def _words_to_str(words: np.ndarray) -> np.ndarray:
    """Object array of the strings held as zero-padded 8-byte words, one row each."""
    raw = np.ascontiguousarray(words).view(f"S{8 * words.shape[1]}").ravel()
    try:
        return raw.astype(f"U{8 * words.shape[1]}").astype(object)  # ASCII, converted in C
    except UnicodeDecodeError:
        return np.array(b"\n".join(raw.tolist()).decode("utf-8").split("\n"), dtype=object)


def _has_duplicate(t: np.ndarray, d: np.ndarray, nt: int, nd: int) -> bool:
    if nt * nd <= 8 * len(t) + 2**16:
        return bool(np.bincount(t * nd + d, minlength=nt * nd).max() > 1)
    return _first_duplicate(t, d, nd) is not None


def read_run(path: PathLike) -> pd.DataFrame:
    """Read one TREC run file (6 columns, optionally gzipped).

    Returns a frame with columns ``topic`` (str), ``docno`` (str), ``rank`` (int), ``score``
    (float), ``tag`` (str), in file order; ``frame.attrs['system']`` is the run tag and
    ``frame.attrs['path']`` the file. A file must hold one run tag, and a document at most once
    per topic (trec_eval refuses duplicates too).
    """
    path = Path(path)
    df, _ = _parse_run_file(path)
    out = pd.DataFrame({"topic": df["topic"].to_numpy(dtype=object), "docno": df["docno"].to_numpy(dtype=object),
                        "rank": _int_column(df["rank"]), "score": df["score"].to_numpy(np.float64),
                        "tag": df["tag"].to_numpy(dtype=object)})
    out.attrs.update(system=str(df["tag"].iloc[0]), path=str(path))
    return out


def read_qrels(path: PathLike, max_grade: int | None = None,
               negative: Literal["error", "zero"] = "error") -> pd.DataFrame:
    """Read a TREC qrels file (4 columns: topic, iteration, docno, integer grade).

    ``max_grade`` declares the scale 0..max_grade; a grade above it is an error, and so is any
    grade above :data:`MAX_GRADE`. Negative grades (some tracks mark junk pages with -1, -2) are an
    error unless ``negative='zero'``, which reads them as judged not relevant, as trec_eval does. A
    document judged twice for a topic is an error. Returns columns ``topic``, ``docno`` (str) and
    ``rel`` (int64), in file order.
    """
    path = Path(path)
    df = _read_table(path, 4, "qrels", {3: "grade"})
    text = df.attrs["_data"].decode("utf-8")
    out = pd.DataFrame({"topic": df["topic"].to_numpy(dtype=object), "docno": df["docno"].to_numpy(dtype=object),
                        "rel": _int_column(df["rel"])})
    return _validated_qrels(out, path, _LazyLines(text), max_grade, negative)


class _LazyLines:
    """Line numbers of the non-blank lines, computed only when an error needs them."""

    def __init__(self, text: str):
        self.text = text

    def __getitem__(self, i):
        return _line_numbers(self.text)[i]


def _validated_qrels(df: pd.DataFrame, path, lines, max_grade: int | None, negative: str,
                     unit: str = "line") -> pd.DataFrame:
    if negative not in ("error", "zero"):
        raise ValueError(f"negative must be 'error' or 'zero', got {negative!r}")
    t, _ = pd.factorize(df["topic"].to_numpy(dtype=object))
    d, docs = pd.factorize(df["docno"].to_numpy(dtype=object))
    dup = _first_duplicate(t, d, len(docs))
    if dup is not None:
        row, first = dup
        raise _duplicate_error(path, None, lines, row, first, df["topic"].iloc[row], df["docno"].iloc[row],
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

    ``rel``        ``[system, topic, rank]`` grades at depth N, padded with 0; int8 when every grade
                   is at most 127, else int16 (:func:`grade_dtype`).
    ``judgments``  int64 ``[topic, grade]``: number of judged documents of each grade 0..G.
    ``run_lengths`` int64 ``[system, topic]``: documents each run retrieved (before the cut).
    """

    rel: np.ndarray
    topics: list[str]
    systems: list[str]
    judgments: np.ndarray
    run_lengths: np.ndarray
    sources: list[str]


def grade_dtype(max_grade: int) -> np.dtype:
    """The integer type that stores grades 0..max_grade: int8 up to 127, int16 up to :data:`MAX_GRADE`."""
    if not 0 <= max_grade <= MAX_GRADE:
        raise ValueError(f"grades must lie in 0..{MAX_GRADE}, got a largest grade of {max_grade}")
    return np.dtype(np.int8 if max_grade <= np.iinfo(np.int8).max else np.int16)


def _topic_key(t: str):
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
) -> RelevanceData:
    """Relevance arrays ``[system, topic, rank]`` at cut-off ``depth`` (issue 2 item 5).

    ``runs`` are frames from :func:`read_run` (a list, or any iterable: they are consumed one at
    a time, so memory stays bounded by one run and the output); ``qrels`` from :func:`read_qrels`.
    Topics are those of the runs, numeric ids in numeric order, then other ids as strings.
    ``score_precision`` decides which scores tie (see the module docstring).

    on_missing_topic  a run topic that has no judgments: ``'error'`` or ``'skip'`` it (warning).
    on_no_relevant    a topic whose judgments hold no relevant document: ``'error'``, ``'skip'``
                      (warning) or ``'keep'`` (pytrec_eval reports such a topic with every
                      measure 0, so keeping it lowers averages).
    on_uneven_topics  systems whose topic sets differ: ``'error'``, or ``'pad'`` the missing
                      topics with empty runs (all not relevant, like ``trec_eval -c``).
    """
    _check_precision(score_precision)
    parsed = (r if isinstance(r, _ParsedRun) else _parsed_frame(r, i, score_precision) for i, r in enumerate(runs))
    return _relevance_arrays(parsed, qrels, depth, on_missing_topic=on_missing_topic,
                             on_no_relevant=on_no_relevant, on_uneven_topics=on_uneven_topics, max_grade=max_grade)


def _relevance_arrays(runs: Iterable[_ParsedRun], qrels: pd.DataFrame, depth: int, *, on_missing_topic: str,
                      on_no_relevant: str, on_uneven_topics: str, max_grade: int | None) -> RelevanceData:
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    for name, val, allowed in (("on_missing_topic", on_missing_topic, ("error", "skip")),
                               ("on_no_relevant", on_no_relevant, ("error", "skip", "keep")),
                               ("on_uneven_topics", on_uneven_topics, ("error", "pad"))):
        if val not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {val!r}")
    qpath = qrels.attrs.get("path", "<qrels>")

    # every judged topic gets a row; topics no run retrieves are dropped at the end
    qtopics = sorted(pd.unique(qrels["topic"].astype(str)), key=_topic_key)
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
    seen: dict[str, str] = {}
    rels: list[np.ndarray] = []
    lens: list[np.ndarray] = []
    absent: set[str] = set()
    T = len(qtopics)
    for p in runs:
        if p.system in seen:
            raise TrecFormatError(p.path, None, f"run tag {p.system!r} is also the tag of {seen[p.system]}; "
                                  "system names must be unique")
        seen[p.system] = p.path
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
        rel_s = np.zeros((T, depth), dtype=dtype)
        rel_s[tg, rank] = grades(tg, d)
        rels.append(rel_s)
        lens.append(length)
    if not systems:
        raise ValueError("no runs given")
    rel = np.stack(rels)
    run_lengths = np.stack(lens)
    del rels

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
    if len(kept) < T:
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


def parsed_runs_cache() -> Path | None:
    """Folder of the cache of parsed runs: ``<IRSCALES_CACHE>/parsed-runs`` (None if it cannot be made)."""
    from irscales.paths import cache_dir

    try:
        return cache_dir() / "parsed-runs"
    except OSError:
        return None


PROGRESS_FILES = 10
READ_THREADS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4)


def _parsed_runs(files: list[Path], precision: str, cache: Path | None, progress: bool | None):
    """Parsed runs in the order of ``files``, parsed by up to :data:`READ_THREADS` threads (reading,
    hashing and most numpy work release the GIL) with at most two files a thread in flight, so
    memory stays bounded; the first bad file, in order, raises."""
    if progress is None:
        progress = len(files) > PROGRESS_FILES and sys.stderr is not None and sys.stderr.isatty()
    from tqdm import tqdm  # plain bar: tqdm.auto warns in kernels without ipywidgets

    bar = tqdm(total=len(files), desc="reading runs", unit="file", file=sys.stderr, leave=False,
               disable=not progress)
    threads = min(READ_THREADS, len(files))
    scratch = queue.SimpleQueue()  # one reusable buffer per thread, dropped at the end
    for _ in range(threads):
        scratch.put(_Scratch())

    def parse(f: Path) -> _ParsedRun:
        buf = scratch.get()
        try:
            return _parsed_run(f, precision, cache, buf)
        finally:
            scratch.put(buf)

    try:
        if threads <= 1:
            for f in files:
                yield parse(f)
                bar.update()
            return
        with ThreadPoolExecutor(threads, thread_name_prefix="irscales-read") as pool:
            pending = []
            try:
                for f in files:
                    pending.append(pool.submit(parse, f))
                    if len(pending) > 2 * threads:
                        yield pending.pop(0).result()
                        bar.update()
                while pending:
                    yield pending.pop(0).result()
                    bar.update()
            finally:
                for fut in pending:  # an error or an interrupt: start nothing more
                    fut.cancel()
    finally:
        bar.close()


def read_trec(runs: PathLike | Iterable[PathLike], qrels: PathLike | pd.DataFrame, depth: int, *,
              max_grade: int | None = None, negative: Literal["error", "zero"] = "error",
              score_precision: Literal["float32", "float64"] = "float32",
              cache: bool | PathLike = True, progress: bool | None = None, **policies) -> RelevanceData:
    """Read run files (a directory or a list) and qrels (a file, or a frame from
    :func:`read_qrels` / :func:`qrels_from_ir_datasets`) into :class:`RelevanceData`;
    ``policies`` are those of :func:`relevance_arrays`.

    ``score_precision``: ``"float32"`` (trec_eval <= 9, pytrec_eval; default) or ``"float64"``
    (trec_eval >= 10); see the module docstring.
    ``cache``: parsed runs are kept in :func:`parsed_runs_cache` (or the folder given), keyed by
    the SHA-256 of each file's bytes, so reading the same files again skips parsing (about a
    quarter of the size of the run files; delete the folder to reclaim it). ``False`` turns it off.
    ``progress``: a bar of files read on stderr (default: when stderr is a terminal and there are
    more than :data:`PROGRESS_FILES` files). Files are parsed by :data:`READ_THREADS` threads.
    """
    _check_precision(score_precision)
    if isinstance(qrels, pd.DataFrame):
        q = qrels
        if max_grade is not None and len(q) and int(q["rel"].max()) > max_grade:
            raise TrecFormatError(q.attrs.get("path"), None, f"grade {int(q['rel'].max())} is outside "
                                  f"the declared scale 0..{max_grade}")
    else:
        q = read_qrels(qrels, max_grade=max_grade, negative=negative)
    folder = (parsed_runs_cache() if cache is True else Path(cache)) if cache is not False else None
    parsed = _parsed_runs(find_runs(runs), score_precision, folder, progress)
    return _relevance_arrays(parsed, q, depth, max_grade=max_grade, on_missing_topic=policies.pop("on_missing_topic", "error"),
                             on_no_relevant=policies.pop("on_no_relevant", "skip"),
                             on_uneven_topics=policies.pop("on_uneven_topics", "error"), **policies)


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
