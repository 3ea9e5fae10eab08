"""Reading many run files: each parsed run, already in trec_eval's order, is kept in a cache keyed
by the SHA-256 of the file's bytes and the score precision (:func:`parsed_runs_cache`, under
``IRSCALES_CACHE``), and files are parsed by :data:`READ_THREADS` threads with a progress bar."""

from __future__ import annotations

import hashlib
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

__all__ = ["parsed_runs_cache", "parsed_run", "parsed_runs", "PROGRESS_FILES", "READ_THREADS"]

_CACHE_FORMAT = "irscales.parsed-run/2"
_CACHE_FIELDS = ("format", "system", "topics", "docnos", "t_code", "d_code")


def _cache_file(cache: Path, data, precision: str) -> Path:
    return cache / f"{hashlib.sha256(data).hexdigest()}-{precision}.parsed"


def _load_cached(f: Path, path: str) -> ParsedRun | None:
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
        return ParsedRun(str(z["system"]), path, z["topics"].astype(object), z["docnos"].astype(object),
                         z["t_code"], z["d_code"])
    except (OSError, ValueError, KeyError, EOFError):  # absent, partial or foreign: parse again
        return None


def _store_cached(f: Path, p: ParsedRun) -> None:
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

def parsed_run(path: Path, precision: str, cache: Path | None, scratch: Scratch | None = None) -> ParsedRun:
    """A run file in trec_eval's order, from the cache of parsed runs when the same bytes were
    parsed before (the key is the SHA-256 of the file's content and the precision)."""
    b = read_padded(path, scratch or Scratch())
    f = _cache_file(cache, b.array, precision) if cache is not None else None
    if f is not None:
        hit = _load_cached(f, str(path))
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
        _store_cached(f, p)
    return p


def parsed_runs_cache() -> Path | None:
    """Folder of the cache of parsed runs: ``<IRSCALES_CACHE>/parsed-runs`` (None if it cannot be made)."""
    try:
        return cache_dir() / "parsed-runs"
    except OSError:
        return None


PROGRESS_FILES = 10
READ_THREADS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 4)


def parsed_runs(files: list[Path], precision: str, cache: Path | None, progress: bool | None):
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
        scratch.put(Scratch())

    def parse(f: Path) -> ParsedRun:
        buf = scratch.get()
        try:
            return parsed_run(f, precision, cache, buf)
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
