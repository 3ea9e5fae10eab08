"""The fast path for run files: one compiled pass over a file's bytes (issue 32).

A run file is read the way trec_eval reads it (:mod:`irscales.data.trec_parse`): lines end at ``\n``,
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
               :func:`irscales.data.trec_parse.int_token_ok`.
``_order``     trec_eval's order: rows grouped by topic, then score descending at the precision asked
               (float32 or float64; -0.0 ties +0.0) and docno descending in byte order, sorting only what
               is out of order (files are usually written by score, so only groups of tied scores, and a
               group in the opposite order is reversed); a document seen twice in a topic is found with a
               hash set; each document's grade is looked up in its topic's judgments (:class:`Judgments`,
               built by ``_judgment_table``: one small hash table per topic). Equal hashes are confirmed
               by the words, the length and the bytes beyond the 16th.

Anything else (a line not of six fields, a second run tag, a duplicate, a byte order mark, a score outside
the decimal grammar or not finite ...) makes :func:`scan_run` or :func:`trec_rows` return None and the
general path (:func:`irscales.data.trec_parse.parse_run_file`), which accepts the same inputs, decides and
names the first bad line (``path:line: what``). The kernels are plain Python compiled on first use
(``cache=True``: once per installation, about 15 s); ``tests/test_trec_fast.py`` runs them with numba's
bounds checking on and compares them with the general path and a plain Python reading of trec_eval's rule.
"""

from __future__ import annotations

import functools
import gzip
import mmap
import os
import re
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from irscales.data.trec_order import ParsedRun
from irscales.data.trec_parse import (FIELD_SPACE, TrecFormatError, check_text, int_token_ok, open_error,
                                      parse_run_file)

__all__ = ["Scratch", "Padded", "read_file", "file_text", "ScannedRun", "Judgments", "scan_run", "trec_rows",
           "parsed_run", "kernels_loaded"]

# a decimal number as both pandas' C reader and Python's float() read it
_FLOAT_TOKEN = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PAD = 16  # zero bytes after the data (and before it): every scan stops at the first zero byte

# byte classes of the tokenizer (numba reads these globals as constants); NUL, refused in the data by
# check_text, is the zero padding that ends every scan
_FIELD, _BLANK, _LINE, _STOP = 0, 1, 2, 3
_CLASSES = np.zeros(256, np.uint8)
_CLASSES[list(FIELD_SPACE)] = _BLANK
_CLASSES[10] = _LINE
_CLASSES[0] = _STOP
_POW10 = np.array([10.0**k for k in range(23)])  # exact doubles

# why a kernel leaves a file to the general path (for debugging; the general path words the error)
_OK, _NUL, _SEVENTH_FIELD, _SHORT_LINE, _BAD_SCORE, _SECOND_TAG, _DUPLICATE = range(7)


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
    :func:`irscales.data.trec_parse.read_bytes` (missing file, directory, permission ...)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            buf = scratch.get(size + 2 * _PAD + 1)
            view, got = memoryview(buf)[_PAD: _PAD + size + 1], 0
            while got <= size:  # one byte more than the size: a file that grew is read again
                k = fh.readinto(view[got:])
                if not k:
                    break
                got += k
            if got != size:  # the file changed while read, or is a pipe (its size is 0): read the rest
                b = Padded.of(bytes(view[:got]) + fh.read(), scratch)
            else:
                b = Padded(buf, size)
    except OSError as e:
        raise open_error(path, e) from None
    if b.size >= 2 and b.buf[_PAD] == 0x1F and b.buf[_PAD + 1] == 0x8B:
        return b.array.tobytes(), None
    return b.array, b


def file_text(path: Path, raw, text: Padded | None, scratch: Scratch) -> Padded:
    """The text of a file read by :func:`read_file` (gunzipped), checked: UTF-8 without NUL bytes
    (:func:`irscales.data.trec_parse.check_text`, which names the line)."""
    if text is None:
        try:
            data = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:  # truncated gzip and the like
            raise TrecFormatError(path, None, f"cannot read file: {e}") from None
        text = Padded.of(data, scratch)
    a = text.array
    if text.size and (a.max() >= 0x80 or not a.all()):
        check_text(path, a.tobytes())  # not ASCII, or a NUL byte: check (and name the line)
    return text


# ------------------------------------------------------------------------------------ kernels
# Plain Python, compiled by _kernels() (numba resolves the helpers through this module's globals, which
# _kernels() rebinds to their compiled versions first; all live in this file, so numba's cache, keyed
# by the file, is renewed whenever any of them changes).


def _key_py(buf, pos, length):
    """(hash, w0, w1) of a field: its bytes 0-7 and 8-15 as big-endian words, zero beyond its end (they
    compare as the bytes do, and a shorter field sorts first, as strcmp's end of string: no NUL byte in a
    field), and a 64-bit hash of the words, the length and the bytes beyond 16 (FNV-1a), finished by
    murmur's mixer (the low bits index the tables). Equal fields have equal keys; fields with equal
    lengths and words are equal up to their 16th byte (:func:`_equal_py`)."""
    n0, n1 = min(length, 8), min(max(length - 8, 0), 8)
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    for k in range(n0):
        w0 = (w0 << np.uint64(8)) | np.uint64(buf[pos + k])
    for k in range(n1):
        w1 = (w1 << np.uint64(8)) | np.uint64(buf[pos + 8 + k])
    if n0 < 8:  # a field holds at least one byte: shifts of 8..56 bits
        w0 <<= np.uint64(8 * (8 - n0))
    if 0 < n1 < 8:
        w1 <<= np.uint64(8 * (8 - n1))
    h = np.uint64(0xCBF29CE484222325) ^ np.uint64(length)
    for k in range(pos + 16, pos + length):
        h = (h ^ np.uint64(buf[k])) * np.uint64(0x100000001B3)
    h ^= w0 * np.uint64(0x9E3779B97F4A7C15)
    h ^= (w1 ^ (w1 >> np.uint64(29))) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h, w0, w1


def _equal_py(a, pa, la, aw0, aw1, b, pb, lb, bw0, bw1):
    """Whether two fields (position, length and words of each, in buffers a and b) hold the same bytes."""
    return la == lb and aw0 == bw0 and aw1 == bw1 and (la <= 16 or _same(a, pa + 16, b, pb + 16, la - 16))


def _slot_py(h, mask):
    return np.int64(h & np.uint64(mask))


def _same_py(a, pa, b, pb, length):
    for k in range(length):
        if a[pa + k] != b[pb + k]:
            return False
    return True


def _docno_after_py(buf, pa, la, pb, lb, start):
    """Whether docno a comes after docno b in byte order (strcmp: a prefix comes first), their bytes
    before ``start`` being equal."""
    for k in range(start, min(la, lb)):
        x, y = buf[pa + k], buf[pb + k]
        if x != y:
            return x > y
    return la > lb


def _decimal_py(buf, s, length, pow10):
    """(0, value) for a score the fast path converts, (1, 0.0) for one of the decimal grammar that
    ``float()`` converts, (2, 0.0) for one outside the grammar (see the module docstring)."""
    p, e = s, s + length
    neg = buf[p] == 45
    if neg or buf[p] == 43:
        p += 1
    m, sig, digits, frac = 0, 0, 0, 0
    point = False
    while p < e:
        c = buf[p]
        if 48 <= c <= 57:
            if sig or c != 48:
                if sig < 18:
                    m = m * 10 + (int(c) - 48)
                sig += 1
            digits += 1
            if point:
                frac += 1
        elif c == 46 and not point:
            point = True
        else:
            break
        p += 1
    if digits == 0:
        return 2, 0.0
    exp = 0
    if p < e and (buf[p] == 101 or buf[p] == 69):
        p += 1
        eneg = p < e and buf[p] == 45
        if p < e and (buf[p] == 45 or buf[p] == 43):
            p += 1
        ed = 0
        while p < e and 48 <= buf[p] <= 57:
            if exp < 100000:
                exp = exp * 10 + (int(buf[p]) - 48)
            ed += 1
            p += 1
        if ed == 0:
            return 2, 0.0
        if eneg:
            exp = -exp
    if p != e:
        return 2, 0.0
    if m == 0 and sig == 0:
        v = 0.0
    else:
        E = exp - frac
        if sig > 18 or m > 9007199254740992 or E < -22 or E > 22:
            return 1, 0.0
        v = m * pow10[E] if E >= 0 else m / pow10[-E]
    return 0, -v if neg else v


def _tokenize_py(buf, lo, hi, classes, pow10, t_code, doc_pos, doc_len, doc_hash, doc_w0, doc_w1, score, odd,
                 odd_pos, odd_len):
    """Rows of the run text in buf[lo:hi] (buf[hi] is 0), see the module docstring, written to the row
    arrays given (at least :func:`_max_rows` items; ``odd*`` twice that): each row's topic code, docno
    position, length, hash and words, and score; and the rows whose score (2·row) or rank (2·row + 1)
    Python reads, with the position and length of that field. Returns (status, rows, topics, each
    topic's position and length, the tag's position and length, odd fields)."""
    t_pos = np.empty(16, np.int64)
    t_len = np.empty(16, np.int32)
    t_hash = np.empty(16, np.uint64)
    slots = np.full(32, -1, np.int32)
    status, n, nt, nodd, prev = 0, 0, 0, 0, -1
    tag_pos, tag_len = 0, -1
    i = lo
    while True:
        c = classes[buf[i]]
        while c == _BLANK:
            i += 1
            c = classes[buf[i]]
        if c == _LINE:
            i += 1
            continue
        if c == _STOP:
            if i < hi:
                status = _NUL
            break
        # the six fields, written out: a loop over them costs the reader three times as much
        s0 = i
        while classes[buf[i]] == _FIELD:
            i += 1
        e0 = i
        while classes[buf[i]] == _BLANK:
            i += 1
        s1 = i
        while classes[buf[i]] == _FIELD:
            i += 1
        e1 = i
        while classes[buf[i]] == _BLANK:
            i += 1
        s2 = i
        while classes[buf[i]] == _FIELD:
            i += 1
        e2 = i
        while classes[buf[i]] == _BLANK:
            i += 1
        s3 = i
        while classes[buf[i]] == _FIELD:
            i += 1
        e3 = i
        while classes[buf[i]] == _BLANK:
            i += 1
        s4 = i
        while classes[buf[i]] == _FIELD:
            i += 1
        e4 = i
        while classes[buf[i]] == _BLANK:
            i += 1
        s5 = i
        while classes[buf[i]] == _FIELD:
            i += 1
        e5 = i
        c = classes[buf[i]]
        while c == _BLANK:
            i += 1
            c = classes[buf[i]]
        # a field ends at a blank or at the line's end: an empty field is a line of fewer fields
        if s1 == e1 or s2 == e2 or s3 == e3 or s4 == e4 or s5 == e5:
            status = _SHORT_LINE
            break
        if c == _FIELD:
            status = _SEVENTH_FIELD
            break
        ln = e0 - s0
        if prev >= 0 and ln == t_len[prev] and _same(buf, s0, buf, t_pos[prev], ln):
            code = prev
        else:
            h = _key(buf, s0, ln)[0]
            mask = len(slots) - 1
            k = _slot(h, mask)
            while True:
                j = slots[k]
                if j < 0:
                    if nt == len(t_pos):
                        t_pos = np.concatenate((t_pos, np.empty(nt, np.int64)))
                        t_len = np.concatenate((t_len, np.empty(nt, np.int32)))
                        t_hash = np.concatenate((t_hash, np.empty(nt, np.uint64)))
                    t_pos[nt], t_len[nt], t_hash[nt] = s0, ln, h
                    code = nt
                    nt += 1
                    if 2 * nt > len(slots):  # keep the table at most half full
                        slots = np.full(4 * len(slots), -1, np.int32)
                        mask = len(slots) - 1
                        for q in range(nt):
                            k = _slot(t_hash[q], mask)
                            while slots[k] >= 0:
                                k = (k + 1) & mask
                            slots[k] = q
                    else:
                        slots[k] = code
                    break
                if t_hash[j] == h and t_len[j] == ln and _same(buf, s0, buf, t_pos[j], ln):
                    code = j
                    break
                k = (k + 1) & mask
            prev = code
        t_code[n] = code
        doc_pos[n], doc_len[n] = s2, e2 - s2
        doc_hash[n], doc_w0[n], doc_w1[n] = _key(buf, s2, e2 - s2)
        p = s3 + (buf[s3] == 43 or buf[s3] == 45)
        plain = 1 <= e3 - p <= 15
        while plain and p < e3:
            plain = 48 <= buf[p] <= 57
            p += 1
        if not plain:
            odd[nodd], odd_pos[nodd], odd_len[nodd] = 2 * n + 1, s3, e3 - s3
            nodd += 1
        kind, v = _decimal(buf, s4, e4 - s4, pow10)
        if kind == 2:
            status = _BAD_SCORE
            break
        score[n] = v
        if kind == 1:
            odd[nodd], odd_pos[nodd], odd_len[nodd] = 2 * n, s4, e4 - s4
            nodd += 1
        if tag_len < 0:
            tag_pos, tag_len = s5, e5 - s5
        elif e5 - s5 != tag_len or not _same(buf, s5, buf, tag_pos, tag_len):
            status = _SECOND_TAG
            break
        n += 1
        if c == _LINE:
            i += 1
        elif i < hi:
            status = _NUL
            break
        else:
            break
    return status, n, nt, t_pos[:nt], t_len[:nt], tag_pos, tag_len, nodd


def _before_py(buf, x, y, key, pos, ln, w0, w1):
    """Whether row x comes before row y in trec_eval's order (within a topic): score key descending,
    then docno descending (its first 16 bytes as two words, then the rest)."""
    if key[x] != key[y]:
        return key[x] > key[y]
    if w0[x] != w0[y]:
        return w0[x] > w0[y]
    if w1[x] != w1[y]:
        return w1[x] > w1[y]
    return _docno_after(buf, pos[x], ln[x], pos[y], ln[y], 16)


def _sort_py(buf, perm, a, b, key, pos, ln, w0, w1, tmp):
    """Sort perm[a:b] into trec_eval's order: nothing when it is in order, a reversal when it is in the
    opposite order (tied scores are often written by docno ascending), else insertion sort of runs of 16
    and merges."""
    ahead, behind = True, True
    for k in range(a, b - 1):
        if _before(buf, perm[k + 1], perm[k], key, pos, ln, w0, w1):
            ahead = False
        else:
            behind = False
        if not (ahead or behind):
            break
    if ahead:
        return
    if behind:
        for k in range((b - a) // 2):
            perm[a + k], perm[b - 1 - k] = perm[b - 1 - k], perm[a + k]
        return
    for s in range(a, b, 16):
        for k in range(s + 1, min(s + 16, b)):
            x = perm[k]
            j = k
            while j > s and _before(buf, x, perm[j - 1], key, pos, ln, w0, w1):
                perm[j] = perm[j - 1]
                j -= 1
            perm[j] = x
    w = 16
    while w < b - a:
        for lo in range(a, b, 2 * w):
            mid, hi = min(lo + w, b), min(lo + 2 * w, b)
            i, j, k = lo, mid, lo - a
            while i < mid and j < hi:
                if _before(buf, perm[j], perm[i], key, pos, ln, w0, w1):
                    tmp[k] = perm[j]
                    j += 1
                else:
                    tmp[k] = perm[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = perm[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = perm[j]
                j += 1
                k += 1
        perm[a:b] = tmp[:b - a]
        w *= 2


def _order_py(buf, t_code, nt, doc_pos, doc_len, doc_hash, w0, w1, score, single, t_judged, j_start, j_size,
              j_slots, j_doc, j_buf, j_pos, key, perm, grade):
    """Writes ``perm``, the rows in trec_eval's order (by topic code, score descending, compared as
    float32 when ``single``, docno descending), and ``grade``, the grade each of them was judged, 0 when
    not judged (topic code t is topic ``t_judged[t]`` of :class:`Judgments`, -1: not judged at all);
    ``key`` receives the scores as compared. Returns the status, _DUPLICATE for a document seen twice in a
    topic."""
    n = len(t_code)
    for r in range(n):
        key[r] = np.float64(np.float32(score[r])) if single else score[r]
    starts = np.zeros(nt + 1, np.int64)
    for r in range(n):
        starts[t_code[r] + 1] += 1
    for t in range(nt):
        starts[t + 1] += starts[t]
    grouped = True
    for r in range(1, n):
        if t_code[r] < t_code[r - 1]:
            grouped = False
            break
    if grouped:
        for r in range(n):
            perm[r] = r
    else:  # a stable counting sort by topic code
        fill = starts[:nt].copy()
        for r in range(n):
            perm[fill[t_code[r]]] = r
            fill[t_code[r]] += 1
    grade[:] = 0
    biggest = 1
    for t in range(nt):
        biggest = max(biggest, starts[t + 1] - starts[t])
    size = 16
    while size < 2 * biggest:
        size *= 2
    mask = size - 1
    seen = np.full(size, -1, np.int64)
    used = np.empty(biggest, np.int64)
    tmp = np.empty(biggest, np.int64)
    for t in range(nt):
        a, b = starts[t], starts[t + 1]
        duplicate = False
        for k in range(a, b):  # a document seen twice in this topic
            r = perm[k]
            h = doc_hash[r]
            s = _slot(h, mask)
            while seen[s] >= 0:
                o = seen[s]
                if doc_hash[o] == h and _equal(buf, doc_pos[o], doc_len[o], w0[o], w1[o],
                                               buf, doc_pos[r], doc_len[r], w0[r], w1[r]):
                    duplicate = True
                    break
                s = (s + 1) & mask
            if duplicate:
                break
            seen[s] = r
            used[k - a] = s
        if duplicate:
            return _DUPLICATE
        for k in range(b - a):
            seen[used[k]] = -1
        by_score = True
        for k in range(a, b - 1):
            if key[perm[k]] < key[perm[k + 1]]:
                by_score = False
                break
        if by_score:  # only groups of tied scores can be out of order
            k = a
            while k < b:
                g = k + 1
                while g < b and key[perm[g]] == key[perm[k]]:
                    g += 1
                if g - k > 1:
                    _sort(buf, perm, k, g, key, doc_pos, doc_len, w0, w1, tmp)
                k = g
        else:
            _sort(buf, perm, a, b, key, doc_pos, doc_len, w0, w1, tmp)
    for t in range(nt):  # the join: each topic's judgments are one small table, which stays in cache
        tq = t_judged[t]
        if tq < 0:
            continue
        base, mask = j_start[tq], j_size[tq] - 1
        for k in range(starts[t], starts[t + 1]):
            r = perm[k]
            h = doc_hash[r]
            s = _slot(h, mask)
            tag = h >> np.uint64(32)
            while j_slots[base + s] != 0:  # a slot: the hash's high 32 bits, judgment index + 1
                if j_slots[base + s] >> np.uint64(32) == tag:
                    j = np.int64(j_slots[base + s] & np.uint64(0xFFFFFFFF)) - 1
                    # a judgment's words, and its length and grade, in one place (one cache line)
                    length = np.int64(j_doc[j, 2] >> np.uint64(16))
                    if w0[r] == j_doc[j, 0] and w1[r] == j_doc[j, 1] and doc_len[r] == length and (
                            length <= 16 or _same(buf, doc_pos[r] + 16, j_buf, j_pos[j] + 16, length - 16)):
                        grade[k] = np.int16(j_doc[j, 2] & np.uint64(0xFFFF))
                        break
                s = (s + 1) & mask
    return _OK


def _judgment_table_py(j_topic, n_topics, j_buf, j_pos, j_len, j_grade):
    """Per topic an open-addressing table (a power of two of slots, at most half full) of its judged
    docnos: slots j_start[t] .. j_start[t] + j_size[t] - 1 hold the high 32 bits of a judgment's hash and
    its index + 1 (0: empty), 8 bytes a slot so that a topic's table stays in cache; and each judgment's
    words (:func:`_key_py`), length and grade in one row."""
    n = len(j_topic)
    count = np.zeros(n_topics, np.int64)
    for j in range(n):
        count[j_topic[j]] += 1
    j_size = np.empty(n_topics, np.int64)
    j_start = np.zeros(n_topics, np.int64)
    total = 0
    for t in range(n_topics):
        size = 8
        while size < 2 * count[t]:
            size *= 2
        j_size[t], j_start[t] = size, total
        total += size
    slots = np.zeros(total, np.uint64)
    j_doc = np.empty((n, 3), np.uint64)  # words, then length << 16 | grade
    for j in range(n):
        h, j_doc[j, 0], j_doc[j, 1] = _key(j_buf, j_pos[j], j_len[j])
        j_doc[j, 2] = (np.uint64(j_len[j]) << np.uint64(16)) | np.uint64(j_grade[j])
        t = j_topic[j]
        mask = j_size[t] - 1
        s = _slot(h, mask)
        while slots[j_start[t] + s] != 0:
            s = (s + 1) & mask
        slots[j_start[t] + s] = ((h >> np.uint64(32)) << np.uint64(32)) | np.uint64(j + 1)
    return j_start, j_size, slots, j_doc


_key, _equal, _slot, _same, _docno_after, _decimal, _before, _sort = (
    _key_py, _equal_py, _slot_py, _same_py, _docno_after_py, _decimal_py, _before_py, _sort_py)
_COMPILE = threading.Lock()


@functools.lru_cache(maxsize=1)
def _compiled():
    import numba

    g = globals()
    # helpers inlined where they are called: a call would pass (and reference-count) its arrays
    for name in ("_key", "_equal", "_slot", "_same", "_docno_after", "_decimal", "_before", "_sort"):
        g[name] = numba.njit(inline="always")(g[f"{name}_py"])
    kernel = numba.njit(cache=True, nogil=True)
    return kernel(_tokenize_py), kernel(_order_py), kernel(_judgment_table_py)


def _kernels():
    """The compiled (tokenize, order, judgment table) kernels, compiled or loaded from numba's cache once
    per process (reading threads may ask at the same time)."""
    with _COMPILE:
        return _compiled()


def kernels_loaded() -> bool:
    """Whether this process has loaded the compiled reader already (then using it costs nothing more)."""
    return _compiled.cache_info().currsize > 0


# ------------------------------------------------------------------------------------ the API


class Judgments:
    """Judgments in the hash tables the kernels probe: judgment j is document ``docnos[j]`` of topic
    ``topic[j]`` (0 .. n_topics - 1) with grade ``grade[j]``; one (topic, docno) at most once."""

    def __init__(self, topic: np.ndarray, docnos, grade: np.ndarray, n_topics: int):
        encoded = [str(d).encode("utf-8") for d in docnos]
        self.len = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        self.pos = np.cumsum(self.len) - self.len
        self.buf = np.frombuffer(b"".join(encoded) + b"\0", dtype=np.uint8)
        self.grade = np.asarray(grade, dtype=np.int16)
        if len(encoded) >= 2**32 - 1:
            raise ValueError(f"{len(encoded):,} judgments: at most 2^32 - 2 are supported")
        if self.len.max(initial=0) >= 2**47:
            raise ValueError("a docno of 2^47 bytes or more")
        self.start, self.size, self.slots, self.doc = _kernels()[2](np.asarray(topic, dtype=np.int64), n_topics,
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
    not plain integers (:func:`irscales.data.trec_parse.int_token_ok`); False when a score is not finite or
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
    status, n, nt, t_pos, t_len, tag_pos, tag_len, nodd = _kernels()[0](
        text.buf, _PAD, _PAD + text.size, _CLASSES, _POW10, t_code, doc_pos, doc_len, doc_hash, w0, w1, score, odd,
        odd_pos, odd_len)
    if status != _OK or n == 0:
        return None
    score = score[:n]
    if nodd and not _read_odd(text, odd[:nodd], odd_pos[:nodd], odd_len[:nodd], score):
        return None
    return ScannedRun(text, text.token(tag_pos, tag_len).decode("utf-8"), _names(text, t_pos, t_len), t_code[:n],
                      doc_pos[:n], doc_len[:n], doc_hash[:n], w0[:n], w1[:n], score)


def trec_rows(run: ScannedRun, precision: str, judgments: Judgments | None = None,
              judged_topic: np.ndarray | None = None, scratch: Scratch | None = None):
    """(rows in trec_eval's order, the grade of each of them in ``judgments``, 0 when not judged), or
    None when a document occurs twice in a topic (the general path names the line). ``judged_topic``:
    the judgments' topic of each topic of the run (-1: none). The arrays are views of ``scratch``'s."""
    j = judgments if judgments is not None else _no_judgments()
    tq = (np.full(len(run.topics), -1, np.int64) if judged_topic is None
          else np.asarray(judged_topic, dtype=np.int64))
    n = len(run.t_code)
    key, perm, grade = (scratch or Scratch()).arrays(n, key=np.float64, perm=np.int64, grade=np.int16)
    key, perm, grade = key[:n], perm[:n], grade[:n]
    status = _kernels()[1](run.text.buf, run.t_code, len(run.topics), run.doc_pos, run.doc_len, run.doc_hash,
                           run.doc_w0, run.doc_w1, run.score, precision == "float32", tq, j.start, j.size, j.slots,
                           j.doc, j.buf, j.pos, key, perm, grade)
    return None if status != _OK else (perm, grade)


def parsed_run(path: Path, precision: str, scratch: Scratch | None = None) -> ParsedRun:
    """A run file in trec_eval's order as a :class:`~irscales.data.trec_order.ParsedRun` (docno names
    included; the reading of :func:`irscales.data.trec.read_trec` never makes them): by the fast path,
    else by the general path, which names a bad line."""
    from irscales.data.trec_order import trec_order

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
