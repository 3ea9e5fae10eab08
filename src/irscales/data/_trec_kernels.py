"""The compiled kernels of the fast run-file reader (:mod:`irscales.data._trec_fast` says what each does and
how it is tested): plain Python compiled by numba once per installation, by ``make install`` (:mod:`irscales.warm`),
which also compiles them ahead of time into an extension module beside this file (:mod:`irscales._aot`): a process
runs that one, without importing numba, while it was built from this file as it is."""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path

import numpy as np

from irscales import _aot
from irscales._jit_cache import compiled_noted, numba_module
from irscales.data._trec_parse import FIELD_SPACE

__all__ = ["CLASSES", "POW10", "STATUS_OK", "AOT_MODULE", "build_ahead", "ahead_kernels", "jit_kernels", "kernels",
           "kernels_loaded"]

# byte classes of the tokenizer (numba reads these globals as constants); NUL, refused in the data by
# check_text, is the zero padding that ends every scan
_FIELD, _BLANK, _LINE, _STOP = 0, 1, 2, 3
_CLASSES = np.zeros(256, np.uint8)
_CLASSES[list(FIELD_SPACE)] = _BLANK
_CLASSES[10], _CLASSES[0] = _LINE, _STOP
_POW10 = np.array([10.0**k for k in range(23)])  # exact doubles

# why a kernel leaves a file to the general path (for debugging; the general path words the error)
# (int64 scalars, not ints: numba's ahead-of-time compiler types an int global as its literal value, and then a
# variable cannot hold two of them)
_OK, _NUL, _SEVENTH_FIELD, _SHORT_LINE, _BAD_SCORE, _SECOND_TAG, _DUPLICATE = map(np.int64, range(7))
CLASSES, POW10, STATUS_OK = _CLASSES, _POW10, _OK  # the public names the reader uses


# Plain Python, compiled by kernels() (numba resolves the helpers through this module's globals, which
# kernels() rebinds to their compiled versions first; all live in this file, so numba's cache, keyed by the
# file, is renewed whenever any of them changes).
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
    float32 when ``single``, docno descending), and ``grade``, the grade each of them was judged, -1 when
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
    grade[:] = -1  # not judged; a judged document gets its grade, 0 included (judged@N counts those)
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


_NAMES = ("tokenize", "order", "judgment_table")
_U1, _I2, _I4, _I8, _U8, _F8 = (np.dtype(c) for c in ("u1", "i2", "i4", "i8", "u8", "f8"))
#: The arguments of each kernel as the reader passes them (:mod:`irscales._aot`'s ``ArgSpec``): the ahead-of-time
#: module is compiled for these, and runs only calls that match them.
SIGNATURES = {
    "tokenize": ((_U1, 1, False), "int", "int", (_U1, 1, False), (_F8, 1, False), (_I4, 1, False), (_I8, 1, False),
                 (_I4, 1, False), (_U8, 1, False), (_U8, 1, False), (_U8, 1, False), (_F8, 1, False),
                 (_I8, 1, False), (_I8, 1, False), (_I4, 1, False)),
    "order": ((_U1, 1, False), (_I4, 1, False), "int", (_I8, 1, False), (_I4, 1, False), (_U8, 1, False),
              (_U8, 1, False), (_U8, 1, False), (_F8, 1, False), "bool", (_I8, 1, False), (_I8, 1, False),
              (_I8, 1, False), (_U8, 1, False), (_U8, 2, False), (_U1, 1, True), (_I8, 1, False), (_F8, 1, False),
              (_I8, 1, False), (_I2, 1, False)),
    "judgment_table": ((_I8, 1, False), "int", (_U1, 1, True), (_I8, 1, False), (_I8, 1, False), (_I2, 1, False)),
}
AOT_MODULE = "irscales.data._trec_kernels_aot"


@functools.lru_cache(maxsize=1)
def _compiled():
    numba = numba_module()

    g = globals()
    # helpers inlined where they are called: a call would pass (and reference-count) its arrays
    for name in ("_key", "_equal", "_slot", "_same", "_docno_after", "_decimal", "_before", "_sort"):
        g[name] = numba.njit(inline="always")(g[f"{name}_py"])
    return compiled_noted("the run-file reader", 30, (_tokenize_py, _order_py, _judgment_table_py), nogil=True)


def jit_kernels():
    """The (tokenize, order, judgment table) kernels compiled by numba, or loaded from numba's cache, once per
    process (reading threads may ask at the same time)."""
    with _COMPILE:
        return _compiled()


@functools.lru_cache(maxsize=1)
def ahead_kernels():
    """The (tokenize, order, judgment table) kernels of the module compiled ahead of time, each checking its
    arguments (:class:`irscales._aot.Checked`), when it was built from this file as it is now; else None. Whether
    :func:`kernels` gives them is :data:`USE_AHEAD`'s."""
    found = _aot.load(AOT_MODULE, Path(__file__), SIGNATURES, lambda name: jit_kernels()[_NAMES.index(name)])
    return None if found is None else tuple(found[name] for name in _NAMES)


#: False: :func:`kernels` gives numba's kernels even when the module compiled ahead of time is there (the warm-up
#: compiles those first; the tests compare the two; ``IRSCALES_AHEAD=0`` in the environment, to compare or to
#: rule the module out).
USE_AHEAD = os.environ.get("IRSCALES_AHEAD", "1") != "0"


def kernels():
    """The (tokenize, order, judgment table) kernels: compiled ahead of time when that module was built from this
    file as it is now (:mod:`irscales._aot`; no numba loaded), else :func:`jit_kernels`."""
    return (USE_AHEAD and ahead_kernels()) or jit_kernels()


def kernels_loaded() -> bool:
    """Whether the compiled reader costs nothing more to use in this process: built ahead of time, or loaded
    through numba already."""
    return (USE_AHEAD and ahead_kernels() is not None) or _compiled.cache_info().currsize > 0


def build_ahead() -> Path | None:
    """Compile the kernels ahead of time (:func:`irscales._aot.build`) for the signatures numba compiled them
    with, unless the module there was built from this file as it is (None); the caller has read runs through
    :func:`jit_kernels` (:mod:`irscales.warm`). Returns the module's path."""
    ahead_kernels.cache_clear()
    if ahead_kernels() is not None:
        return None
    jit = jit_kernels()
    path = _aot.build(AOT_MODULE, Path(__file__),
                      {name: (k.py_func, k) for name, k in zip(_NAMES, jit)}, SIGNATURES)
    ahead_kernels.cache_clear()
    return path
