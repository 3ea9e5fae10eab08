"""The fast path for well-formed run files (read by :func:`irscales.data.trec.read_trec`).

Most run files are single-space separated with one record per line. For those, the fields are
located in the file's bytes with numpy, read as 8-byte words (no Python object per field),
numbers are converted exactly and ids factorized through their words. Whatever is unusual (tabs,
CR, blank lines, a BOM, exotic numbers, duplicates, mixed tags, ...) makes it return None, and the
general path (:mod:`irscales.data.trec_parse`), which accepts the same inputs, decides and names
the first bad line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from irscales.data.trec_parse import TrecFormatError, first_duplicate, int_token_ok, read_bytes

__all__ = ["Scratch", "read_padded", "fast_run"]

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
    little-endian loads. The buffer may be a scratch buffer reused from file to file.

    Bounds (issue 27 item 4): ``u64`` covers the data and the zero padding on both sides and nothing
    else, so a load may start at -_PAD .. size + _PAD - 8 and any other raises. Every load of this
    module starts at most 16 bytes before a field's end (right-aligned loads of a number) or inside a
    field, at most at its end (:meth:`field_word`): with ``_PAD`` >= 16 each stays in that range
    whatever the lengths of the fields, and reads the file's bytes or zeros, never a previous file's."""

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
        """Bytes 8k..8k+7 of each field, zero beyond its end. A field shorter than 8k bytes is
        loaded at its end instead (and masked to zero): no load starts past a field, however much
        longer than it the longest field of the block is."""
        return self.word(start + np.minimum(8 * k, length)) & _LOW_BYTES[np.clip(length - 8 * k, 0, 8)]


class Scratch:
    """A buffer reused from file to file by one reader (no fresh pages to fault in for each file)."""

    def __init__(self):
        self.buf = np.empty(0, dtype=np.uint8)

    def get(self, size: int) -> np.ndarray:
        if len(self.buf) < size:
            self.buf = np.empty(max(size, len(self.buf) * 5 // 4), dtype=np.uint8)
        return self.buf


def read_padded(path: Path, scratch: Scratch) -> _Bytes:
    """The file's bytes like :func:`read_bytes` (same errors: not UTF-8, NUL bytes), read straight into
    ``scratch``."""
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return _Bytes.of(read_bytes(path))
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
                return _Bytes.of(read_bytes(path))
    except IsADirectoryError:
        raise TrecFormatError(path, None, "is a directory, expected a file") from None
    except OSError:
        return _Bytes.of(read_bytes(path))  # the same errors, worded once
    b = _Bytes(buf, size)
    if size and (b.array.max() >= 0x80 or not b.array.all()):
        read_bytes(path)  # not ASCII, or a NUL byte: check (and name the line) the usual way
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
        if not _FLOAT_TOKEN.fullmatch(tok) or not int_token_ok(tok.decode("ascii"), integral_float=True):
            return False
    return True


_FAST_BLOCK = 8192  # lines handled at a time: the temporaries stay in cache and need no new pages


def fast_run(data: bytes | _Bytes):
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
    return first_duplicate(t, d, nd) is not None
