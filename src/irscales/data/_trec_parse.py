"""The general TREC file parser: pandas' C reader, and a line-by-line scan that names the first
bad line (``path:line: what was wrong``) only when the C reader reports a problem, so valid large
inputs stay fast. Formats, grades and errors are described in :mod:`irscales.data.trec`.

Lines and fields are trec_eval's (issue 27 item 10): a line ends at ``\n`` and only there, so line
numbers count ``\n`` bytes; fields are separated by the bytes C's ``isspace`` accepts in the C locale
(:data:`FIELD_SPACE`: space, tab, CR, VT, FF). Every other byte is part of a field: control bytes such
as ``\x1c``, and non-ASCII characters such as NBSP (U+00A0), NEL (U+0085) or U+2028 that Python's
``str.split`` and ``str.splitlines`` would treat as blanks or line ends. A NUL byte is refused
(:func:`check_text`): trec_eval reads a field up to it (``d\0x`` is ``d``) while a Python string
keeps it, so no reading of it is safe."""

from __future__ import annotations

import csv
import io as _io
import os
import re
from pathlib import Path

import numpy as np

from irscales.data._input_bytes import (GZIP_MAGIC, MAX_TEXT_BYTES, InputError, check_readable, gunzip, read_bounded,
                                        refuse_compressed)
from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)

__all__ = [
    "PathLike", "TrecFormatError", "MAX_GRADE", "RUN_COLUMNS", "QRELS_COLUMNS", "FIELD_SPACE", "grade_dtype",
    "check_text", "read_bytes", "stored_bytes", "text_bytes", "open_error",
    "int_token_ok", "line_numbers", "LazyLines", "read_table", "qrels_columns", "int_column", "first_duplicate",
    "duplicate_error", "parse_run_file",
]

PathLike = str | os.PathLike

MAX_GRADE = 32767  # int16: grades are stored in int8 when <= 127, else int16 (see grade_dtype)
# an integer column written as an integer, optionally with a zero fraction ('2', '-1', '2.0')
_INT_TOKEN = r"[+-]?[0-9]+(?:\.0*)?"
_INT_LIMIT = 2.0**53  # integers beyond this are not exact in the float64 the C reader parses
# what the C reader reads as a number, with float()'s spellings of infinity and NaN (refused as not finite)
_FLOAT_OK = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.I)

# C isspace() in the C locale, without the line end: what separates fields on a line for trec_eval
# (bytes.split() splits on exactly these and \n)
FIELD_SPACE = b" \t\r\x0b\x0c"

RUN_COLUMNS = ("topic", "q0", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ("topic", "iteration", "docno", "rel")


class TrecFormatError(InputError):
    """Bad TREC input; ``str(e)`` is one line: ``path:line: what was wrong``."""


def grade_dtype(max_grade: int) -> np.dtype:
    """The integer type that stores grades 0..max_grade: int8 up to 127, int16 up to :data:`MAX_GRADE`."""
    if not 0 <= max_grade <= MAX_GRADE:
        raise ValueError(f"grades must lie in 0..{MAX_GRADE}, got a largest grade of {max_grade}")
    return np.dtype(np.int8 if max_grade <= np.iinfo(np.int8).max else np.int16)


def read_bytes(path: Path) -> bytes:
    """The file's bytes (gunzipped when it starts with the gzip magic), checked by :func:`check_text`;
    bounded, and devices and other compressions refused, as :mod:`irscales.data._input_bytes` says."""
    return text_bytes(path, stored_bytes(path))


def stored_bytes(path: Path) -> bytes:
    """The file's bytes as stored (bounded; a device refused), for :func:`text_bytes`."""
    try:
        with open(path, "rb") as fh:
            size = check_readable(path, fh.fileno())
            # a regular file in one read (its size is known and bounded); a pipe, or a file still growing,
            # piece by piece up to the bound
            data = fh.read(size + 1) if size else b""
            if not size or len(data) > size:
                data = bytes(data) + read_bounded(fh, path, MAX_TEXT_BYTES - len(data))
    except (OSError, InputError) as e:
        raise open_error(path, e) from None
    return data


def text_bytes(path: Path, data: bytes) -> bytes:
    """The text of a file's stored bytes: gunzipped when they start with the gzip magic (other compressions
    refused), checked by :func:`check_text`."""
    try:
        if data[:2] == GZIP_MAGIC:
            data = gunzip(path, data)
        else:
            refuse_compressed(path, bytes(data[:16]))
    except (OSError, InputError) as e:
        raise open_error(path, e) from None
    if not isinstance(data, bytes):
        data = bytes(data)
    check_text(path, data)
    return data


def open_error(path: Path, e: Exception) -> TrecFormatError:
    """The one-line error for a file that cannot be opened or read (missing, a directory, no permission,
    a dangling link, a device, a truncated gzip or a decompression bomb ...)."""
    if isinstance(e, InputError):
        return e if isinstance(e, TrecFormatError) else TrecFormatError(e.path, e.line, e.what)
    if isinstance(e, FileNotFoundError):
        if _dangling(path):
            return TrecFormatError(path, None, f"symbolic link to a missing file ({os.readlink(path)}): "
                                   "expected a run or qrels file")
        return TrecFormatError(path, None, "file not found")
    if isinstance(e, IsADirectoryError):
        return TrecFormatError(path, None, "is a directory, expected a file")
    if isinstance(e, PermissionError):
        return TrecFormatError(path, None, "permission denied: cannot read this file")
    return TrecFormatError(path, None, f"cannot read file: {e}")


def _dangling(path: Path) -> bool:
    try:
        return Path(path).is_symlink() and not Path(path).exists()
    except OSError:
        return False


def check_text(path, data: bytes) -> None:
    """Refuse bytes that are not UTF-8 text, and NUL bytes (see the module docstring), naming the line."""
    nul = data.find(b"\0")
    try:
        data.isascii() or data.decode("utf-8")
    except UnicodeDecodeError as e:
        if nul < 0 or nul > e.start:
            line = data[: e.start].count(b"\n") + 1
            raise TrecFormatError(path, line, f"not UTF-8 text (byte {data[e.start]:#x})") from None
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        column = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise TrecFormatError(path, line, f"NUL byte (\\x00) at byte {column} of the line: expected text "
                              "(trec_eval would cut the field there, so no reading of it is safe)")


def int_token_ok(tok: str, integral_float: bool = False) -> bool:
    """An integer written as an integer ('2', '2.0'); ``integral_float`` also accepts any number
    with an integral value ('2e0', as the C reader does for the ignored rank column)."""
    if integral_float:
        if not _FLOAT_OK.fullmatch(tok):  # float() alone also takes '1_0' and non-ASCII digits
            return False
        v = float(tok)
        return np.isfinite(v) and v.is_integer() and abs(v) < _INT_LIMIT
    return re.fullmatch(_INT_TOKEN, tok) is not None


def _slow_scan(path: Path, data: bytes, ncols: int, kind: str, numeric: dict[int, str]) -> None:
    """Re-read line by line and raise at the first bad line (called only after the fast path
    found a problem, so the cost of per-line Python is paid only on bad input). Lines end at \\n,
    fields are split on :data:`FIELD_SPACE` (``bytes.split``), as trec_eval reads them."""
    names = RUN_COLUMNS if kind == "run" else QRELS_COLUMNS
    for no, raw in enumerate(data.split(b"\n"), start=1):
        parts = [p.decode("utf-8") for p in raw.split()]
        if not parts:
            continue
        if len(parts) != ncols:
            shown = raw.strip(FIELD_SPACE).decode("utf-8")[:80]
            raise TrecFormatError(
                path, no, f"expected {ncols} whitespace-separated columns in a {kind} line, found "
                f"{len(parts)}: {shown!r}")
        for col, what in numeric.items():
            tok = parts[col]
            if what == "int" and not int_token_ok(tok, integral_float=True):
                raise TrecFormatError(path, no, f"{names[col]} must be an integer, got {tok!r}")
            if what == "grade" and not int_token_ok(tok):
                raise TrecFormatError(path, no, f"{names[col]} must be an integer, got {tok!r}")
            if what == "float":
                try:
                    v = float(tok) if _FLOAT_OK.fullmatch(tok) else None  # float() alone takes '1_0', '٣'
                except ValueError:
                    v = None
                if v is None:
                    raise TrecFormatError(path, no, f"{names[col]} must be a number, got {tok!r}")
                if not np.isfinite(v):
                    raise TrecFormatError(path, no, f"{names[col]} must be finite, got {tok!r}")


def line_numbers(text: str | bytes) -> np.ndarray:
    """1-based line number of each non-blank line (pandas skips blank lines): lines end at \\n only
    and a blank line holds only :data:`FIELD_SPACE` bytes (see the module docstring)."""
    lines = text.split(b"\n" if isinstance(text, bytes) else "\n")
    blank = FIELD_SPACE if isinstance(text, bytes) else FIELD_SPACE.decode("ascii")
    return np.array([i for i, ln in enumerate(lines, start=1) if ln.strip(blank)], dtype=np.int64)


_NOT_SIMPLE = (b"\t", b"\r", b"\x0b", b"\x0c")  # single bytes: each test is one memchr
# pandas' C reader splits fields on space and tab only and ends lines at CR too: the other field
# separators of trec_eval become spaces before it reads (the line count does not change)
_TO_SPACE = bytes.maketrans(b"\r\x0b\x0c", b"   ")


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
        if what == "grade" and _plain_ints(col) is None and not df[i].str.fullmatch(_INT_TOKEN).all():
            return None
    return df


def read_table(path: Path, ncols: int, kind: str, numeric: dict[int, str],
               data: bytes | None = None) -> pd.DataFrame:
    """A validated frame of a run (6 columns) or qrels (4) file without its second column;
    ``numeric`` maps a column to ``'int'``, ``'float'`` or ``'grade'``."""
    data = read_bytes(path) if data is None else data
    if not data.strip():
        raise TrecFormatError(path, 1, f"empty file: expected {kind} lines")
    # single spaces (what most TREC tools write) parse fastest; tabs, runs of blanks, CR or blanks at
    # the ends of lines take the general path
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    simple = data.count(b" ") == (ncols - 1) * lines and not any(x in data for x in _NOT_SIMPLE)
    df = _parse_fast(data, ncols, numeric, " ") if simple else None
    if df is None:
        spaced = data.translate(_TO_SPACE) if any(x in data for x in _NOT_SIMPLE[1:]) else data
        df = _parse_fast(spaced, ncols, numeric, r"\s+")
    if df is None:
        _slow_scan(path, data, ncols, kind, numeric)
        raise TrecFormatError(path, None, f"cannot parse as a {kind} file")  # pragma: no cover
    names = RUN_COLUMNS if kind == "run" else QRELS_COLUMNS
    df = df[[i for i in range(ncols) if i != 1]]
    df.columns = [names[i] for i in range(ncols) if i != 1]
    df.attrs["_data"] = data  # bytes: pandas' copies of attrs share them
    return df


_PLAIN_INTS = re.compile(r"(?:[+-]?[0-9]{1,18}\n)*[+-]?[0-9]{1,18}")


_PLAIN_INT_BYTES = re.compile(rb"(?:[+-]?[0-9]{1,18}\n)*[+-]?[0-9]{1,18}")
_BLANK = np.zeros(256, bool)
_BLANK[list(FIELD_SPACE + b"\n")] = True


def qrels_columns(data: bytes) -> tuple[list[str], list[str], np.ndarray] | None:
    """(topics, docnos, grades) of qrels text, one item per judgment in file order, read without pandas (issue 49)
    when every non-blank line holds four fields (``bytes.split``'s, as trec_eval reads them) and every grade is
    an integer of at most 18 digits written plainly; None for anything else (a byte order mark, a line of other
    than four fields, a grade ``2.0`` …), which :func:`read_table` reads, or refuses naming the line. Equal to
    what :func:`read_table` reads wherever it gives them (``tests/test_trec_parse.py``)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None
    a = np.frombuffer(data, np.uint8)
    blank = _BLANK[a]
    starts = ~blank
    starts[1:] &= blank[:-1]  # where a field begins
    line = np.searchsorted(np.flatnonzero(a == 10), np.flatnonzero(starts))  # its line (0-based)
    fields = np.bincount(line)
    if not len(line) or not ((fields == 4) | (fields == 0)).all():
        return None
    tokens = data.split()
    if _PLAIN_INT_BYTES.fullmatch(b"\n".join(tokens[3::4])) is None:
        return None
    grades = np.fromiter(map(int, tokens[3::4]), dtype=np.int64, count=len(tokens) // 4)
    topics, docnos = (b"\n".join(tokens[k::4]).decode("utf-8").split("\n") for k in (0, 2))  # no field holds a \n
    return topics, docnos, grades


def _plain_ints(tokens) -> np.ndarray | None:
    """The values of tokens that are all plain integers of at most 18 digits (what qrels hold: one regular
    expression over all of them, then int()), else None."""
    tokens = list(tokens)
    if not tokens or _PLAIN_INTS.fullmatch("\n".join(tokens)) is None:
        return None
    return np.fromiter(map(int, tokens), dtype=np.int64, count=len(tokens))


def int_column(col: pd.Series) -> np.ndarray:
    """Integer values of a validated category column of integer tokens."""
    if col.dtype == np.float64:  # the rank column: integral floats below 2^53
        return col.to_numpy().astype(np.int64)
    plain = _plain_ints(col.to_numpy(dtype=object))
    if plain is not None:
        return plain
    # grades: validated integer tokens, converted exactly; beyond ±2^62 clipped (an error follows)
    return np.array([max(-2**62, min(2**62, int(x.split(".")[0]))) for x in col.to_numpy(dtype=object)],
                    dtype=np.int64)


def first_duplicate(t: np.ndarray, d: np.ndarray, nd: int) -> tuple[int, int] | None:
    """(row, first row) of the first (topic, docno) pair seen twice, rows in file order."""
    key = t.astype(np.int64) * max(nd, 1) + d
    if len(key) < 2:
        return None
    # no repeat, the usual case: a count per key where the keys are dense, else one sort (the qrels of TREC-8,
    # 86,830 keys up to 3.3 million: 0.5 ms against 15 ms for the counts' 26 MB, issue 49)
    if int(key.max()) < 2 * len(key):
        if int(np.bincount(key).max()) < 2:
            return None
    else:
        s = np.sort(key)
        if not (s[1:] == s[:-1]).any():
            return None
    order = np.argsort(key, kind="stable")
    sk = key[order]
    dup = np.flatnonzero(sk[1:] == sk[:-1])
    if not len(dup):
        return None
    row = int(order[dup + 1].min())
    first = int(order[np.searchsorted(sk, key[row])])
    return row, first


def duplicate_error(path, text: str | None, lines, row: int, first: int, topic, docno, what: str,
                    unit: str = "line") -> TrecFormatError:
    """The error naming the line of a (topic, docno) pair seen twice and the line it was first seen on."""
    if lines is None:
        lines = line_numbers(text)
    return TrecFormatError(path, int(lines[row]), f"duplicate {what} for topic {topic!r}, document "
                           f"{docno!r} (first at {unit} {int(lines[first])})")


def parse_run_file(path: Path, data: bytes | None = None) -> tuple[pd.DataFrame, tuple]:
    """A validated run frame (text columns as strings, float64 scores) and the integer codes of its
    topics and docnos: (topic codes, topics, docno codes, docnos)."""
    df = read_table(path, 6, "run", {3: "int", 4: "float"}, data)
    t, topics = pd.factorize(df["topic"].to_numpy(dtype=object))
    d, docnos = pd.factorize(df["docno"].to_numpy(dtype=object))
    dup = first_duplicate(t, d, len(docnos))
    if dup is not None:
        row, first = dup
        e = duplicate_error(path, df.attrs["_data"].decode("utf-8"), None, row, first,
                            df["topic"].iloc[row], df["docno"].iloc[row], "document")
        score = df["score"].to_numpy(np.float64)
        if score[row] == score[first]:  # an exact repeat carries nothing: it may be dropped (run_repeats)
            raise TrecFormatError(path, e.line, f"{e.what} with the same score; trec_eval refuses a document "
                                  "listed twice: pass evaluate(..., on_repeated_lines='drop') to drop exact repeats")
        raise TrecFormatError(path, e.line, f"{e.what} with another score ({float(score[first])!r} there, "
                              f"{float(score[row])!r} here): its rank would be a guess")
    tags = df["tag"].to_numpy(dtype=object)
    if (tags != tags[0]).any():
        second = int(np.argmax(tags != tags[0]))
        raise TrecFormatError(
            path, int(line_numbers(df.attrs["_data"].decode("utf-8"))[second]),
            f"run tag {df['tag'].iloc[second]!r} differs from {df['tag'].iloc[0]!r} on the first line; "
            "one run per file")
    return df, (t.astype(np.int64), np.asarray(topics, dtype=object), d.astype(np.int64),
                np.asarray(docnos, dtype=object))


class LazyLines:
    """Line numbers of the non-blank lines, computed only when an error needs them."""

    def __init__(self, text: str):
        self.text = text

    def __getitem__(self, i):
        return line_numbers(self.text)[i]
