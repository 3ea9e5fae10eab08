"""The cache of qrels files read before (issue 49): the :class:`~irscales.data._trec_arrays.QrelsIndex` of a qrels
file — its topics, judged documents and grades as codes, and their SHA-256 — kept beside the judged runs
(:func:`irscales.data._trec_cache.parsed_runs_cache`), keyed by the SHA-256 of the file's bytes as stored and the
reading options that change what is read (``negative``, ``max_grade``).

Reading the TREC-8 qrels (1.8 MB, 86,830 judgments) costs 0.3 s of CPU with pandas' reader and the checks (no
document judged twice, grades in range); loading its entry costs milliseconds and no pandas. The file's digest
comes from its status when it is unchanged since it was hashed (:mod:`irscales.data._file_digests`), else from
its bytes, read once and parsed from the same bytes. An entry is written only for a file read without error
(a bad file is read, and refused with its line, every time), carries its own SHA-256 and is checked on load
(format, key, sizes, codes in range); one that does not check out is ignored, with a warning, and the file read
again.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Callable

import numpy as np

from irscales._atomic import write_atomic
from irscales.data._file_digests import known_digest, remember_digest, stamp
from irscales.data._trec_arrays import QrelsIndex
from irscales.data._trec_parse import MAX_GRADE, stored_bytes

__all__ = ["qrels_index"]

_FORMAT = "irscales.qrels-index/1"
_CODES = ("q_t", "q_d", "rel")  # int64 arrays of one item per judgment, after the docnos
_DIGEST = 32


def _key(digest: str, options: str) -> str:
    return f"{digest}-{options}"


def _entry(cache: Path, key: str) -> Path:
    return cache / f"{key}-v1.qrels"


def _encoded(key: str, idx: QrelsIndex) -> bytes:
    c = idx.codes()
    names = "\n".join(c["docnos"]).encode("utf-8")
    head = json.dumps({"format": _FORMAT, "key": key, "topics": list(c["topics"]), "docnos": len(c["docnos"]),
                       "docno_bytes": len(names), "judgments": len(c["rel"]), "max_grade": int(c["max_grade"]),
                       "digest": c["digest"]}, ensure_ascii=True)
    arrays = [np.ascontiguousarray(c[k], "<i8").tobytes() for k in _CODES]
    body = b"".join([head.encode("ascii"), b"\n", names, *arrays])
    return body + hashlib.sha256(body).digest()


def _decoded(raw: bytes, key: str, path: str) -> QrelsIndex | None:
    """The entry's index, or None when it does not check out (checksum, format, key, sizes, codes in range)."""
    if len(raw) <= _DIGEST or hashlib.sha256(memoryview(raw)[:-_DIGEST]).digest() != raw[-_DIGEST:]:
        return None
    try:
        end = raw.index(b"\n")
        head = json.loads(raw[:end])
        if head.get("format") != _FORMAT or head.get("key") != key:
            return None
        at = end + 1 + int(head["docno_bytes"])
        docnos = raw[end + 1: at].decode("utf-8").split("\n") if head["docnos"] else []
        n = int(head["judgments"])
        codes = {}
        for k in _CODES:
            codes[k] = np.frombuffer(raw, "<i8", count=n, offset=at).astype(np.int64)
            at += 8 * n
        topics, g = [str(t) for t in head["topics"]], int(head["max_grade"])
        if (at != len(raw) - _DIGEST or len(docnos) != int(head["docnos"]) or not 1 <= g <= MAX_GRADE
                or not isinstance(head["digest"], str)):
            return None
        if n and (codes["q_t"].min() < 0 or codes["q_t"].max() >= len(topics) or codes["q_d"].min() < 0
                  or codes["q_d"].max() >= len(docnos) or codes["rel"].min() < 0 or codes["rel"].max() > g):
            return None
        return QrelsIndex.of_codes(path, topics, np.array(docnos, dtype=object), max_grade=g, digest=head["digest"],
                                   **codes)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def _load(cache: Path, key: str, path: str) -> QrelsIndex | None:
    f = _entry(cache, key)
    try:
        raw = f.read_bytes()
    except OSError:  # absent (or unreadable: the qrels are read instead)
        return None
    idx = _decoded(raw, key, path)
    if idx is None:
        warnings.warn(f"the qrels cache entry {f} is damaged; reading {path} again", stacklevel=4)
    return idx


def _store(cache: Path, key: str, idx: QrelsIndex) -> None:
    try:
        cache.mkdir(parents=True, exist_ok=True)
        write_atomic(_entry(cache, key), _encoded(key, idx), durable=False)  # checked on load: no fsync
    except OSError:  # a full disk or a read-only cache: read from the file next time
        pass


def qrels_index(path: Path, options: str, read: Callable[[bytes | None], QrelsIndex], cache: Path | None) -> QrelsIndex:
    """The :class:`QrelsIndex` of a qrels file, from the cache ``cache`` when the file's bytes were read before with
    the same ``options`` (the reading options that change the index, as text: part of the key), else ``read(raw)``
    (:func:`irscales.data.trec.read_trec`: the qrels read from their stored bytes ``raw``, None for "read the file";
    the cache then keeps the index). ``cache`` None: no cache, ``read(None)``."""
    if cache is None:
        return read(None)
    before = stamp(path)
    known = known_digest(cache, path, before)
    if known is not None:  # unchanged since it was hashed: its entry, without reading it
        idx = _load(cache, _key(known, options), str(path))
        if idx is not None:
            return idx
    raw = stored_bytes(path)
    digest = hashlib.sha256(raw).hexdigest()
    key = _key(digest, options)
    if digest != known:  # bytes the index did not vouch for: maybe read before all the same
        remember_digest(cache, path, before, digest)
        idx = _load(cache, key, str(path))
        if idx is not None:
            return idx
    idx = read(raw)
    _store(cache, key, idx)
    return idx
