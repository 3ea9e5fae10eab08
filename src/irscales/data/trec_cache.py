"""Reading many run files: each parsed run, already in trec_eval's order, is kept in a cache keyed
by the SHA-256 of the file's bytes and the score precision (:func:`parsed_runs_cache`, under
``IRSCALES_CACHE``), and files are parsed by :data:`READ_THREADS` threads with a progress bar.

A cache entry is never trusted blindly (issue 27 item 5). Its name is the SHA-256 of every byte of the
file (of its gunzipped content for a ``.gz`` file), the precision and the entry format; the entry holds
that key again, the parsed run (names as UTF-8 text, codes as integers) and, last, the SHA-256 of all
that. On load the checksum, the key, the format and the code ranges are checked: any mismatch (a
flipped byte, an edited or swapped entry) means the file is parsed again, with a one-line warning, and
the entry rewritten. Entries are written to a temporary file and renamed; a failed write (a full disk)
removes the temporary file and warns once per folder with the entry's path, and reading goes on
without the cache. A file holding a NUL byte is refused before the cache is consulted
(:func:`irscales.data.trec_parse.check_text`), so an entry can neither hide that error nor lose the
byte."""

from __future__ import annotations

import hashlib
import io
import os
import queue
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from irscales.data.trec_fast import Scratch, fast_run, read_padded
from irscales.data.trec_order import ParsedRun, trec_order
from irscales.data.trec_parse import parse_run_file
from irscales.paths import cache_dir

__all__ = ["parsed_runs_cache", "parsed_run", "parsed_runs", "READ_THREADS"]

_CACHE_FORMAT = "irscales.parsed-run/3"
_FIELDS = ("format", "key", "system", "topics", "docnos", "t_code", "d_code")
_DIGEST = 32  # bytes of the SHA-256 that ends an entry
_UNWRITABLE_LOCK = threading.Lock()


def _cache_key(data, precision: str) -> str:
    return f"{hashlib.sha256(data).hexdigest()}-{precision}"


def _cache_file(cache: Path, key: str) -> Path:
    return cache / f"{key}-v3.parsed"


def _text(names) -> np.ndarray:
    """Names as one UTF-8 text, one a line (a name read from a run file holds no line end)."""
    return np.frombuffer("\n".join(map(str, names)).encode("utf-8"), dtype=np.uint8)


def _names(blob: np.ndarray) -> np.ndarray:
    return np.array(blob.tobytes().decode("utf-8").split("\n"), dtype=object)


def _load_cached(f: Path, key: str, path: str) -> ParsedRun | None:
    """The cached parsed run; None when absent; a warning and None when it does not check out."""
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
                fh = io.BytesIO(memoryview(raw)[:-_DIGEST])
                z = {k: np.load(fh, allow_pickle=False) for k in _FIELDS}
                if str(z["format"]) == _CACHE_FORMAT and str(z["key"]) == key and fh.tell() == len(raw) - _DIGEST:
                    p = ParsedRun(z["system"].tobytes().decode("utf-8"), path, _names(z["topics"]),
                                  _names(z["docnos"]), z["t_code"], z["d_code"])
                    n = len(p.t_code)
                    if n and len(p.d_code) == n and 0 <= p.t_code.min() and p.t_code.max() < len(p.topics) \
                            and 0 <= p.d_code.min() and p.d_code.max() < len(p.docnos):
                        return p
            except (ValueError, KeyError, EOFError, UnicodeDecodeError):
                pass
    warnings.warn(f"the parsed-run cache entry {f} is damaged ({why}); parsing {path} again", stacklevel=4)
    return None


def _store_cached(f: Path, key: str, p: ParsedRun, unwritable: set | None) -> None:
    """Write the entry atomically; on failure remove the temporary file and warn (once per folder)."""
    if unwritable is not None and f.parent in unwritable:
        return
    # unique per process and thread: two files with the same bytes may be parsed at once
    tmp = f.with_name(f"{f.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        f.parent.mkdir(parents=True, exist_ok=True)
        body = io.BytesIO()
        for x in (np.array(_CACHE_FORMAT), np.array(key), _text([p.system]), _text(p.topics), _text(p.docnos),
                  p.t_code, p.d_code):
            np.save(body, x, allow_pickle=False)
        payload = body.getbuffer()
        with open(tmp, "wb") as fh:
            fh.write(payload)
            fh.write(hashlib.sha256(payload).digest())
        os.replace(tmp, f)  # atomic: a reader never sees half a file
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        with _UNWRITABLE_LOCK:  # threads failing at once: the first one warns
            first = unwritable is None or f.parent not in unwritable
            if unwritable is not None:
                unwritable.add(f.parent)
        if first:
            warnings.warn(f"cannot write the parsed-run cache entry {f} ({e.strerror or e}); continuing without "
                          "the cache", stacklevel=4)
    except BaseException:  # an interrupt: no temporary file left behind
        tmp.unlink(missing_ok=True)
        raise


def parsed_run(path: Path, precision: str, cache: Path | None, scratch: Scratch | None = None,
               unwritable: set | None = None) -> ParsedRun:
    """A run file in trec_eval's order, from the cache of parsed runs when the same bytes were
    parsed before (see the module docstring). ``unwritable``: folders whose writes failed (shared by
    the files of one read, so a full disk warns once)."""
    b = read_padded(path, scratch or Scratch())
    key = _cache_key(b.array, precision) if cache is not None else None
    f = _cache_file(cache, key) if cache is not None else None
    if f is not None:
        hit = _load_cached(f, key, str(path))
        if hit is not None:
            return hit
    fast = fast_run(b)
    if fast is not None:
        tag, t, topics, d, docnos, score = fast
        p = trec_order(tag, str(path), topics, t, docnos, d, score, precision, docnos_sorted=True)
    else:
        df, (t, topics, d, docnos) = parse_run_file(path, b.array.tobytes())
        p = trec_order(str(df["tag"].iloc[0]), str(path), topics, t, docnos, d, df["score"].to_numpy(), precision)
    if f is not None:
        _store_cached(f, key, p, unwritable)
    return p


def parsed_runs_cache() -> Path | None:
    """Folder of the cache of parsed runs: ``<IRSCALES_CACHE>/parsed-runs`` (None if it cannot be made)."""
    try:
        return cache_dir() / "parsed-runs"
    except OSError:
        return None


READ_THREADS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4)


def parsed_runs(files: list[Path], precision: str, cache: Path | None, progress: bool | None):
    """Parsed runs in the order of ``files``, parsed by up to :data:`READ_THREADS` threads (reading,
    hashing and most numpy work release the GIL) with at most two files a thread in flight, so
    memory stays bounded; the first bad file, in order, raises."""
    delay = 0.0
    if progress is None:  # on a terminal, a bar once reading has taken a second (10 big runs take 12 s)
        progress, delay = sys.stderr is not None and sys.stderr.isatty(), 1.0
    from tqdm import tqdm  # plain bar: tqdm.auto warns in kernels without ipywidgets

    bar = tqdm(total=len(files), desc="reading runs", unit="file", file=sys.stderr, leave=False,
               disable=not progress, delay=delay)
    threads = min(READ_THREADS, len(files))
    scratch = queue.SimpleQueue()  # one reusable buffer per thread, dropped at the end
    for _ in range(threads):
        scratch.put(Scratch())
    unwritable: set = set()  # cache folders whose writes failed: warned once, not retried

    def parse(f: Path) -> ParsedRun:
        buf = scratch.get()
        try:
            return parsed_run(f, precision, cache, buf, unwritable)
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
