"""The fast path for run files: one compiled pass over a file's bytes (issue 32).

A run file is read the way trec_eval reads it (:mod:`irscales.data._trec_parse`): lines end at ``\n``,
fields are separated by C's ``isspace`` bytes (space, tab, CR, VT, FF), blank lines are skipped. Compiled
kernels (numba, ``nogil``, so files are read in parallel by threads) do all the work of a well-formed file:

``_tokenize``  one scan: the six fields of each line; the topic code (a hash table of the topics),
               where the docno is, its first 16 bytes as two big-endian words (they order docnos as
               ``strcmp`` does) and a 64-bit hash, the score converted exactly, and the checks (six fields
               a line, one run tag a file, the rank an integer). A score of at most 18 significant digits
               with a decimal exponent |E| <= 22 and a mantissa m <= 2^53 is m·10^E or m / 10^-E: one
               IEEE operation on two exact doubles, hence the correctly rounded value, which is what
               ``float()`` returns (Clinger's fast path). Other numbers of the decimal grammar (17
               digits, large exponents) are converted by numpy, all at once, as ``float()`` does
               (tested), and ranks other than plain integers are checked by
               :func:`irscales.data._trec_parse.int_token_ok`.
``_order``     trec_eval's order: rows grouped by topic, then score descending at the precision asked
               (float32 or float64; -0.0 ties +0.0) and docno descending in byte order, sorting only what
               is out of order (files are usually written by score, so only groups of tied scores, and a
               group in the opposite order is reversed); a document seen twice in a topic is found with a
               hash set; each document's grade is looked up in its topic's judgments (:class:`Judgments`,
               built by ``_judgment_table``: one small hash table per topic). Equal hashes are confirmed
               by the words, the length and the bytes beyond the 16th.

Anything else (a line not of six fields, a second run tag, a duplicate, a byte order mark, a score outside
the decimal grammar or not finite ...) makes :func:`scan_run` or :func:`trec_rows` return None and the
general path (:func:`irscales.data._trec_parse.parse_run_file`), which accepts the same inputs, decides and
names the first bad line (``path:line: what``). The kernels are plain Python compiled once per installation
(numba's cache; ``make install`` compiles them, :mod:`irscales.warm`); ``tests/test_trec_fast.py`` runs them
with numba's bounds checking on and compares them with the general path and a plain Python reading of
trec_eval's rule.
"""

from __future__ import annotations

import mmap
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from irscales.data._input_bytes import (GZIP_MAGIC, MAX_TEXT_BYTES, InputError, check_readable, gunzip, read_bounded,
                                        refuse_compressed)
from irscales.data._trec_kernels import CLASSES, POW10, STATUS_OK, kernels, kernels_loaded
from irscales.data._trec_order import ParsedRun, trec_order
from irscales.data._trec_parse import check_text, int_token_ok, open_error, parse_run_file

__all__ = ["Scratch", "Padded", "read_file", "file_text", "ScannedRun", "Judgments", "scan_run", "trec_rows",
           "parsed_run", "kernels_loaded"]

# a decimal number as both pandas' C reader and Python's float() read it
_FLOAT_TOKEN = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PAD = 16  # zero bytes after the data (and before it): every scan stops at the first zero byte



# ------------------------------------------------------------------------------------ bytes


def _mapped(n: int, dtype) -> np.ndarray:
    """An array of ``n`` items in its own anonymous memory map: its pages are resident only once written
    and go back to the system when it is dropped. (From the C heap, buffers that grow from file to file
    while pandas' reader has raised glibc's mmap threshold stay in each reading thread's malloc arena: 100 MB
    more at the peak on the 129 TREC-8 runs with two threads, issue 32.)"""
    dtype = np.dtype(dtype)
    return np.frombuffer(mmap.mmap(-1, max(n, 1) * dtype.itemsize), dtype=dtype, count=max(n, 1))


class Scratch:
    """Buffers reused from file to file by one reader: the file's bytes and the kernels' arrays (no fresh
    pages to fault in for each file, and nothing left behind by it)."""

    def __init__(self):
        self.buf = np.empty(0, dtype=np.uint8)
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, size: int) -> np.ndarray:
        if len(self.buf) < size:
            self.buf = _mapped(max(size, len(self.buf) * 5 // 4), np.uint8)
        return self.buf

    def arrays(self, n: int, **dtypes) -> list[np.ndarray]:
        """An array of at least ``n`` items of each given dtype (by name), reused from file to file."""
        out = []
        for name, dtype in dtypes.items():
            a = self._arrays.get(name)
            if a is None or len(a) < n:
                a = self._arrays[name] = _mapped(max(n, 0 if a is None else len(a) * 5 // 4), dtype)
            out.append(a)
        return out


class Padded:
    """A file's bytes at offset ``_PAD`` of a buffer with ``_PAD`` zero bytes on both sides (the kernels'
    scans stop at the first zero byte after the data; the buffer may be a :class:`Scratch` one)."""

    def __init__(self, buf: np.ndarray, size: int):
        self.buf, self.size = buf, size
        buf[:_PAD] = 0
        buf[_PAD + size: 2 * _PAD + size] = 0

    @classmethod
    def of(cls, data: bytes, scratch: Scratch | None = None) -> Padded:
        buf = (scratch or Scratch()).get(len(data) + 2 * _PAD)
        buf[_PAD: _PAD + len(data)] = np.frombuffer(data, dtype=np.uint8)
        return cls(buf, len(data))

    @property
    def array(self) -> np.ndarray:
        return self.buf[_PAD: _PAD + self.size]

    def token(self, start: int, length: int) -> bytes:
        return self.buf[start: start + length].tobytes()


def read_file(path: Path, scratch: Scratch) -> tuple[np.ndarray | bytes, Padded | None]:
    """The file's bytes as stored, and (a plain file) the same bytes as :class:`Padded` text in
    ``scratch``; a gzipped file's text comes from :func:`file_text`. Errors are those of
    :func:`irscales.data._trec_parse.read_bytes` (missing file, directory, permission ...)."""
    try:
        with open(path, "rb") as fh:
            size = check_readable(path, fh.fileno())  # a device never ends: refused
            buf = scratch.get(size + 2 * _PAD + 1)
            view, got = memoryview(buf)[_PAD: _PAD + size + 1], 0
            while got <= size:  # one byte more than the size: a file that grew is read again
                k = fh.readinto(view[got:])
                if not k:
                    break
                got += k
            if got != size:  # the file changed while read, or is a pipe (its size is 0): read the rest, bounded
                b = Padded.of(bytes(view[:got]) + read_bounded(fh, path, MAX_TEXT_BYTES - got), scratch)
            else:
                b = Padded(buf, size)
        head = b.token(_PAD, min(b.size, 16))
        if head[:2] == GZIP_MAGIC:
            return b.array.tobytes(), None
        refuse_compressed(path, head)
    except (OSError, InputError) as e:
        raise open_error(path, e) from None
    return b.array, b


def file_text(path: Path, raw, text: Padded | None, scratch: Scratch) -> Padded:
    """The text of a file read by :func:`read_file` (gunzipped), checked: UTF-8 without NUL bytes
    (:func:`irscales.data._trec_parse.check_text`, which names the line)."""
    if text is None:
        try:
            data = gunzip(path, raw)  # streamed and bounded: a decompression bomb stops at its bound
        except InputError as e:
            raise open_error(path, e) from None
        text = Padded.of(data, scratch)
    a = text.array
    if text.size and (a.max() >= 0x80 or not a.all()):
        check_text(path, a.tobytes())  # not ASCII, or a NUL byte: check (and name the line)
    return text


# ------------------------------------------------------------------------------------ the API


class Judgments:
    """Judgments in the hash tables the kernels probe: judgment j is document ``docnos[j]`` of topic
    ``topic[j]`` (0 .. n_topics - 1) with grade ``grade[j]``; one (topic, docno) at most once."""

    def __init__(self, topic: np.ndarray, docnos, grade: np.ndarray, n_topics: int):
        names = [str(d) for d in docnos]
        joined = "".join(names)
        if joined.isascii():  # a byte a character: the lengths of the names (86,830 docnos: 5 ms against 13)
            self.len = np.fromiter(map(len, names), dtype=np.int64, count=len(names))
            data = joined.encode("ascii")
        else:
            encoded = [n.encode("utf-8") for n in names]
            self.len = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
            data = b"".join(encoded)
        self.pos = np.cumsum(self.len) - self.len
        self.buf = np.frombuffer(data + b"\0", dtype=np.uint8)
        self.grade = np.asarray(grade, dtype=np.int16)
        if len(names) >= 2**32 - 1:
            raise ValueError(f"{len(names):,} judgments: at most 2^32 - 2 are supported")
        if self.len.max(initial=0) >= 2**47:
            raise ValueError("a docno of 2^47 bytes or more")
        self.start, self.size, self.slots, self.doc = kernels()[2](np.asarray(topic, dtype=np.int64), n_topics,
                                                                    self.buf, self.pos, self.len, self.grade)


_NONE = None


def _no_judgments() -> Judgments:
    global _NONE
    if _NONE is None:
        _NONE = Judgments(np.zeros(0, np.int64), [], np.zeros(0, np.int16), 0)
    return _NONE


@dataclass(eq=False)
class ScannedRun:
    """A run file as :func:`scan_run` read it: rows in file order, fields as positions in ``text.buf``."""

    text: Padded
    tag: str
    topics: np.ndarray  # names (object); t_code indexes them, in order of first appearance
    t_code: np.ndarray
    doc_pos: np.ndarray
    doc_len: np.ndarray
    doc_hash: np.ndarray
    doc_w0: np.ndarray
    doc_w1: np.ndarray
    score: np.ndarray

    def docno(self, row: int) -> str:
        return self.text.token(int(self.doc_pos[row]), int(self.doc_len[row])).decode("utf-8")


def _names(text: Padded, pos: np.ndarray, length: np.ndarray) -> np.ndarray:
    return np.array([text.token(int(p), int(n)).decode("utf-8") for p, n in zip(pos.tolist(), length.tolist())],
                    dtype=object)


def _read_odd(text: Padded, odd: np.ndarray, pos: np.ndarray, length: np.ndarray, score: np.ndarray) -> bool:
    """Scores of the decimal grammar the kernel left to Python (``float()``'s conversion, done by numpy's
    for all of them at once, which gives the same doubles: ``tests/test_trec_fast.py``) and ranks that are
    not plain integers (:func:`irscales.data._trec_parse.int_token_ok`); False when a score is not finite or
    a rank not an integer (the general path then names the line)."""
    is_score = odd % 2 == 0
    rows, pos_s, len_s = odd[is_score] // 2, pos[is_score], length[is_score]
    for i in range(0, len(rows), 4096):  # in blocks: the temporaries stay small
        p, k = pos_s[i: i + 4096], len_s[i: i + 4096]
        width = np.arange(int(k.max()))
        chars = text.buf[np.minimum(p[:, None] + width, len(text.buf) - 1)]
        chars[width >= k[:, None]] = 0
        v = chars.view(f"S{len(width)}").ravel().astype(np.float64)
        if not np.isfinite(v).all():
            return False
        score[rows[i: i + 4096]] = v
    for p, k in zip(pos[~is_score].tolist(), length[~is_score].tolist()):
        tok = text.token(p, k)
        if not (_FLOAT_TOKEN.fullmatch(tok) and int_token_ok(tok.decode("ascii"), integral_float=True)):
            return False
    return True


def _max_rows(size: int) -> int:
    """Rows a text of ``size`` bytes holds at most: a line holds at least 11 bytes and a line end."""
    return size // 12 + 2


def scan_run(text: Padded, scratch: Scratch | None = None) -> ScannedRun | None:
    """The rows of a run file's text, or None when the general path must decide (module docstring). Its
    arrays are views of ``scratch``'s, valid until it reads another file."""
    a = text.array
    if not text.size or (text.size >= 3 and a[:3].tobytes() == b"\xef\xbb\xbf"):
        return None  # empty, or a byte order mark (pandas drops it)
    scratch = scratch or Scratch()
    cap = _max_rows(text.size)
    t_code, doc_pos, doc_len, doc_hash, w0, w1, score = scratch.arrays(
        cap, t_code=np.int32, doc_pos=np.int64, doc_len=np.int32, doc_hash=np.uint64, doc_w0=np.uint64,
        doc_w1=np.uint64, score=np.float64)
    odd, odd_pos, odd_len = scratch.arrays(2 * cap, odd=np.int64, odd_pos=np.int64, odd_len=np.int32)
    status, n, nt, t_pos, t_len, tag_pos, tag_len, nodd = kernels()[0](
        text.buf, _PAD, _PAD + text.size, CLASSES, POW10, t_code, doc_pos, doc_len, doc_hash, w0, w1, score, odd,
        odd_pos, odd_len)
    if status != STATUS_OK or n == 0:
        return None
    score = score[:n]
    if nodd and not _read_odd(text, odd[:nodd], odd_pos[:nodd], odd_len[:nodd], score):
        return None
    return ScannedRun(text, text.token(tag_pos, tag_len).decode("utf-8"), _names(text, t_pos, t_len), t_code[:n],
                      doc_pos[:n], doc_len[:n], doc_hash[:n], w0[:n], w1[:n], score)


def trec_rows(run: ScannedRun, precision: str, judgments: Judgments | None = None,
              judged_topic: np.ndarray | None = None, scratch: Scratch | None = None):
    """(rows in trec_eval's order, the grade of each of them in ``judgments``, -1 when not judged), or
    None when a document occurs twice in a topic (the general path names the line). ``judged_topic``:
    the judgments' topic of each topic of the run (-1: none). The arrays are views of ``scratch``'s."""
    j = judgments if judgments is not None else _no_judgments()
    tq = (np.full(len(run.topics), -1, np.int64) if judged_topic is None
          else np.asarray(judged_topic, dtype=np.int64))
    n = len(run.t_code)
    key, perm, grade = (scratch or Scratch()).arrays(n, key=np.float64, perm=np.int64, grade=np.int16)
    key, perm, grade = key[:n], perm[:n], grade[:n]
    status = kernels()[1](run.text.buf, run.t_code, len(run.topics), run.doc_pos, run.doc_len, run.doc_hash,
                           run.doc_w0, run.doc_w1, run.score, precision == "float32", tq, j.start, j.size, j.slots,
                           j.doc, j.buf, j.pos, key, perm, grade)
    return None if status != STATUS_OK else (perm, grade)


def parsed_run(path: Path, precision: str, scratch: Scratch | None = None) -> ParsedRun:
    """A run file in trec_eval's order as a :class:`~irscales.data._trec_order.ParsedRun` (docno names
    included; the reading of :func:`irscales.data.trec.read_trec` never makes them): by the fast path,
    else by the general path, which names a bad line."""
    scratch = scratch or Scratch()
    raw, text = read_file(Path(path), scratch)
    text = file_text(Path(path), raw, text, scratch)
    run = scan_run(text, scratch)
    rows = trec_rows(run, precision, scratch=scratch) if run is not None else None
    if rows is None:
        df, (t, topics, d, docnos) = parse_run_file(Path(path), text.array.tobytes())
        return trec_order(str(df["tag"].iloc[0]), str(path), topics, t, docnos, d, df["score"].to_numpy(), precision)
    perm, _ = rows
    docnos, d_code = np.unique(np.array([run.docno(r) for r in perm.tolist()], dtype=object), return_inverse=True)
    # np.unique sorts in code-point order, which is the strcmp order of the UTF-8 bytes
    return ParsedRun(run.tag, str(path), run.topics, docnos, run.t_code[perm].astype(np.int32),
                     d_code.astype(np.int32))
