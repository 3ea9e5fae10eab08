"""Reading many run files: each run, joined with the qrels (its :class:`~irscales.data._trec_arrays.RunHits`:
the documents it retrieved per topic, the rank and grade of those judged relevant and a bit per document
saying whether it is judged at all, for judged@N), is kept in a cache
keyed by the SHA-256 of every byte of the file, the score precision and the SHA-256 of the judgments
(:func:`parsed_runs_cache`, under ``IRSCALES_CACHE``), and files are read by :data:`READ_THREADS` threads
with a progress bar.

Reading a file a second time with the same qrels therefore costs loading an entry of a few kilobytes: no
parsing, and no compiled code (issue 32); and while the file is as it was when hashed, not even reading its
bytes: its digest comes from its status (:mod:`irscales.data._file_digests`, issue 49), else the file is read
and hashed again. The qrels are cached likewise (:mod:`irscales.data._qrels_cache`). A gzipped file is
hashed as stored, so a second reading does not even gunzip it (equal stored bytes are equal text). A new
qrels file, or a new precision, means the files are parsed again (a parse is fast,
:mod:`irscales.data._trec_fast`); entries hold no docnos, so the cache is a small fraction of the runs'
size (issue 32: no larger than the gzipped runs).

A cache entry is never trusted blindly (issue 27 item 5). Its name is its key; the entry holds the key
again, the joined run (names as UTF-8 text, codes as integers) and, last, the SHA-256 of all that. On
load the checksum, the key, the format and the ranges of the codes are checked: any mismatch (a flipped
byte, an edited or swapped entry) means the file is parsed again, with a one-line warning, and the entry
rewritten. Entries are written to a temporary file and renamed; a failed write (a full disk) removes the
temporary file and warns once per folder with the entry's path, and reading goes on without the cache.
An entry is written only for a file read without error, so no entry exists for a file holding a NUL
byte or text that is not UTF-8 (refused with their line, :func:`irscales.data._trec_parse.check_text`):
an entry can neither hide that error nor lose the byte."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import stat
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from irscales._atomic import write_atomic
from irscales.data._file_digests import known_digest, remember_digest, stamp
from irscales.data._input_bytes import GZIP_MAGIC
from irscales.data._trec_arrays import QrelsIndex, RunHits
from irscales.data._trec_fast import Scratch, file_text, kernels_loaded, read_file, scan_run, trec_rows
from irscales.data._trec_order import trec_order
from irscales.data._trec_parse import parse_run_file
from irscales.paths import cache_dir
from irscales._progress import bar as progress_bar

__all__ = ["parsed_runs_cache", "judged_run", "judged_runs", "READ_THREADS", "COMPILED_READER_BYTES",
           "COMPILED_READER_FILES", "THREADED_BYTES_PER_FILE", "CACHED_BYTES"]

_CACHE_FORMAT = "irscales.judged-run/5"
# an entry: one line of JSON (format, key, system, topics, hits), then the arrays below as little-endian
# bytes, then the SHA-256 of all that
_ARRAYS = (("lengths", "<i8"), ("hit_topic", "<i4"), ("hit_rank", "<i4"), ("hit_grade", "<i2"), ("judged", "|u1"))
_DIGEST = 32  # bytes of the SHA-256 that ends an entry
_UNWRITABLE_LOCK = threading.Lock()


def _cache_key(digest: str, precision: str, qrels_digest: str) -> str:
    return f"{digest}-{precision}-{qrels_digest}"


def _cache_file(cache: Path, key: str) -> Path:
    return cache / f"{key}-v5.judged"


def _load_cached(f: Path, key: str, path: str) -> RunHits | None:
    """The cached judged run; None when absent; a warning and None when it does not check out."""
    try:
        raw = f.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        warnings.warn(f"cannot read the parsed-run cache entry {f} ({e.strerror or e}); parsing {path} again",
                      stacklevel=4)
        return None
    why = "truncated"
    if len(raw) > _DIGEST:
        why = "checksum mismatch"
        if hashlib.sha256(memoryview(raw)[:-_DIGEST]).digest() == raw[-_DIGEST:]:
            why = "not a parsed run of this file"
            try:
                h = _decoded(raw[:-_DIGEST], key, path)
                if h is not None and _consistent(h):
                    return h
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                pass
    warnings.warn(f"the parsed-run cache entry {f} is damaged ({why}); parsing {path} again", stacklevel=4)
    return None


def _encoded(key: str, p: RunHits) -> bytes:
    head = json.dumps({"format": _CACHE_FORMAT, "key": key, "system": p.system, "topics": [str(t) for t in p.topics],
                       "hits": len(p.hit_topic), "documents": int(p.lengths.sum())}, ensure_ascii=True)  # one line: JSON escapes line ends
    return b"".join([head.encode("ascii"), b"\n"] + [np.ascontiguousarray(getattr(p, name), dtype=dt).tobytes()
                                                      for name, dt in _ARRAYS])


def _decoded(body: bytes, key: str, path: str) -> RunHits | None:
    """The entry's run, or None when it is of another format or key or its size does not add up."""
    end = body.index(b"\n")
    head = json.loads(body[:end])
    if head.get("format") != _CACHE_FORMAT or head.get("key") != key:
        return None
    sizes = {"lengths": len(head["topics"]), "hit_topic": head["hits"], "hit_rank": head["hits"],
             "hit_grade": head["hits"], "judged": (int(head["documents"]) + 7) // 8}
    arrays, at = {}, end + 1
    for name, dt in _ARRAYS:
        n = int(sizes[name])
        arrays[name] = np.frombuffer(body, dtype=dt, count=n, offset=at).astype(dt[1:])
        at += n * np.dtype(dt).itemsize
    if at != len(body) or not isinstance(head["system"], str):
        return None
    return RunHits(head["system"], path, np.array(head["topics"], dtype=object), **arrays)


def _consistent(h: RunHits) -> bool:
    """Codes in range: a topic per length, hits on existing topics within their lengths, grades > 0, a judged
    bit per document."""
    T, n = len(h.topics), len(h.hit_topic)
    if (h.lengths.dtype != np.int64 or h.hit_topic.dtype != np.int32 or h.hit_rank.dtype != np.int32
            or h.hit_grade.dtype != np.int16 or h.lengths.shape != (T,) or not T or h.lengths.min() < 0
            or len(h.hit_rank) != n or len(h.hit_grade) != n or h.judged.dtype != np.uint8
            or len(h.judged) != (int(h.lengths.sum()) + 7) // 8):
        return False
    return not n or bool(h.hit_topic.min() >= 0 and h.hit_topic.max() < T and h.hit_rank.min() >= 0
                         and (h.hit_rank < h.lengths[h.hit_topic]).all() and h.hit_grade.min() > 0)


def _store_cached(f: Path, key: str, p: RunHits, unwritable: set | None) -> None:
    """Write the entry atomically; on failure remove the temporary file and warn (once per folder)."""
    if unwritable is not None and f.parent in unwritable:
        return
    try:
        f.parent.mkdir(parents=True, exist_ok=True)
        payload = _encoded(key, p)
        # a reader never sees half a file; no fsync: a torn entry fails its checksum and is parsed again
        write_atomic(f, payload + hashlib.sha256(payload).digest(), durable=False)
    except OSError as e:
        with _UNWRITABLE_LOCK:  # threads failing at once: the first one warns
            first = unwritable is None or f.parent not in unwritable
            if unwritable is not None:
                unwritable.add(f.parent)
        if first:
            why = os.strerror(e.errno) if e.errno else e  # the cause, without the writer's wording
            warnings.warn(f"cannot write the parsed-run cache entry {f} ({why}); continuing without "
                          "the cache", stacklevel=4)


def judged_run(path: Path, precision: str, judged: QrelsIndex, cache: Path | None, scratch: Scratch | None = None,
               unwritable: set | None = None, compiled: bool = True) -> RunHits:
    """A run file joined with the qrels ``judged``, from the cache when the same bytes were read before with
    the same precision and judgments (see the module docstring; a file below :data:`CACHED_BYTES` is parsed
    every time). ``unwritable``: folders whose writes
    failed (shared by the files of one read, so a full disk warns once). ``compiled``: parse with the
    compiled reader (else with the general path, which gives the same result; see :func:`judged_runs`)."""
    scratch = scratch or Scratch()
    if judged.docno_kind != "string":
        # integer docnos given in memory: every run docno must be seen by name (QrelsIndex.run_hits), and the
        # cache's key cannot tell these qrels from the same ids given as strings
        cache, compiled = None, False
    before = stamp(path) if cache is not None else None
    known = known_digest(cache, path, before) if before is not None and before[1][2] >= CACHED_BYTES else None
    if known is not None:  # unchanged since it was hashed (irscales.data._file_digests): its entry, unread
        key = _cache_key(known, precision, judged.digest)
        hit = _load_cached(_cache_file(cache, key), key, str(path))
        if hit is not None:
            return hit
    raw, text = read_file(path, scratch)
    key = None
    if cache is not None and len(raw) >= CACHED_BYTES:  # a smaller file costs less to parse than its entry
        digest = hashlib.sha256(raw).hexdigest()
        key = _cache_key(digest, precision, judged.digest)
        if digest != known:  # bytes the index did not vouch for: maybe read before all the same
            remember_digest(cache, path, before, digest)
            hit = _load_cached(_cache_file(cache, key), key, str(path))
            if hit is not None:
                return hit
    text = file_text(path, raw, text, scratch)
    run = scan_run(text, scratch) if compiled else None
    rows = (trec_rows(run, precision, judged.table(), judged.topic_codes(run.topics), scratch)
            if run is not None else None)
    if rows is not None:
        perm, grade = rows
        h = judged.hits(run.tag, str(path), run.topics, run.t_code, grade, perm)
    else:  # the general path decides, and names a bad line
        df, (t, topics, d, docnos) = parse_run_file(path, text.array.tobytes())
        h = judged.run_hits(trec_order(str(df["tag"].iloc[0]), str(path), topics, t, docnos, d,
                                       df["score"].to_numpy(), precision))
    if key is not None:
        _store_cached(_cache_file(cache, key), key, h, unwritable)
    return h


def parsed_runs_cache() -> Path | None:
    """Folder of the cache of parsed runs: ``<IRSCALES_CACHE>/parsed-runs`` (None if it cannot be made)."""
    try:
        return cache_dir() / "parsed-runs"
    except OSError:
        return None


READ_THREADS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4)
#: Below this much run text (a gzipped file counted 4 times its size) the general path parses, unless the
#: compiled reader costs nothing more: compiled ahead of time (:mod:`irscales._aot`, as ``make install`` builds
#: it), or loaded already. Loading it through numba costs about 0.5-0.9 s and 100 MB once, the general path
#: about 30 ms per MiB more than the compiled one (measured on the TREC-8 runs, issue 32); so without the module
#: compiled ahead of time a two-run ``irscales compare`` does not pay for numba.
COMPILED_READER_BYTES = 32 * 2**20
#: From this many files on the compiled reader parses whatever their size: the general path costs a few
#: milliseconds per file (pandas' reader, the join by names), so 10,000 small files took it tens of seconds
#: (issue 49), against the reader's one-time 0.9 s.
COMPILED_READER_FILES = 300
#: Files of fewer bytes than this on average are read by the calling thread alone: handing a small file to a
#: thread costs more (the GIL, the queue) than reading it (10,000 files of two lines: 8 s of 12, issue 49).
THREADED_BYTES_PER_FILE = 2**20
#: A file of fewer bytes than this (as stored) is parsed on every read, never cached: creating, renaming and
#: later opening an entry costs more than parsing it (10,000 files of two lines: 25 of 57 s went to creating
#: entries on a loaded machine, issue 49).
CACHED_BYTES = 2**16


def _stored_bytes(files: list[Path]) -> int:
    total = 0
    for f in files:
        try:
            total += os.stat(f).st_size
        except OSError:  # reported with its path when the file is read
            pass
    return total


def _text_bytes(files: list[Path]) -> int:
    total = 0
    for f in files:
        try:
            st = os.stat(f)
            if not stat.S_ISREG(st.st_mode):  # a pipe's bytes are read once, by the reader; a device is refused
                continue
            with open(f, "rb") as fh:
                gz = fh.read(2) == GZIP_MAGIC
            total += st.st_size * (4 if gz else 1)
        except OSError:  # reported with its path when the file is read
            pass
    return total


def judged_runs(files: list[Path], precision: str, judged: QrelsIndex, cache: Path | None, progress: bool | None):
    """The runs of ``files`` joined with the qrels (:class:`~irscales.data._trec_arrays.RunHits`), in order,
    read by up to :data:`READ_THREADS` threads (reading, hashing and the compiled reader release the GIL):
    the calling thread reads every ``READ_THREADS``-th file and a pool of ``READ_THREADS - 1`` threads the
    others, at most two files a thread ahead, so memory stays bounded (and a thread fewer means a malloc
    arena fewer: 20 MB less at the peak on the TREC-8 runs), or by the calling thread alone when the files are
    small (:data:`THREADED_BYTES_PER_FILE`); the first bad file, in order, raises. Files
    are parsed by the compiled reader when they hold :data:`COMPILED_READER_BYTES` of text or more or are
    :data:`COMPILED_READER_FILES` files or more, or
    when it is loaded already; else by the general path."""
    # auto: on a terminal, a bar once reading has taken a second (10 big runs took 12 s)
    bar = progress_bar(len(files), "reading runs", progress, unit="file", delay=1.0 if progress is None else 0.0)
    stored = _stored_bytes(files)
    threads = min(READ_THREADS, len(files)) if stored >= THREADED_BYTES_PER_FILE * len(files) else 1
    # the text is at least the stored bytes: enough of those decides without opening every file for its magic
    compiled = (kernels_loaded() or len(files) >= COMPILED_READER_FILES or stored >= COMPILED_READER_BYTES
                or _text_bytes(files) >= COMPILED_READER_BYTES)
    scratch = queue.SimpleQueue()  # one reusable buffer per thread, dropped at the end
    for _ in range(threads):
        scratch.put(Scratch())
    unwritable: set = set()  # cache folders whose writes failed: warned once, not retried

    def parse(f: Path) -> RunHits:
        buf = scratch.get()
        try:
            return judged_run(f, precision, judged, cache, buf, unwritable, compiled)
        finally:
            scratch.put(buf)

    try:
        if threads <= 1:
            for f in files:
                yield parse(f)
                bar.update()
            return
        with ThreadPoolExecutor(threads - 1, thread_name_prefix="irscales-read") as pool:
            pending: dict[int, object] = {}
            ahead = 0  # the next file that may go to the pool
            try:
                for i, f in enumerate(files):
                    while ahead < len(files) and ahead <= i + 2 * threads:
                        if ahead % threads:
                            pending[ahead] = pool.submit(parse, files[ahead])
                        ahead += 1
                    yield parse(f) if i % threads == 0 else pending.pop(i).result()
                    bar.update()
            finally:
                for fut in pending.values():  # an error or an interrupt: start nothing more
                    fut.cancel()
    finally:
        bar.close()
