"""The chunk cache of the enumeration engine: stored pieces of a scale, atomic saves, checksums.

Each chunk of the key axis (a pure function of the parameters and its range) is reduced to its
distinct keys + counts and stored as ``.npy`` files (read back with ``mmap_mode='r'``) under
:func:`irscales.paths.cache_dir` ``/scales/<measure>_N<N>_c<c>_<hash>``, listed in ``manifest.json``
with SHA-256 checksums. Files are written to a temporary name, fsynced and renamed, so a crash never
leaves a chunk that reads as complete; a failed write (a full disk) removes its temporary file and
raises an ``OSError`` naming the file.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from irscales._atomic import write_atomic
from irscales.paths import cache_dir

__all__ = ["KERNEL_VERSION", "Chunk", "IdRangeChunk", "params", "params_for", "cache_path", "cache_path_for",
           "load_chunk", "atomic_save",
           "atomic_json", "counts_dtype", "jsonable", "prune_cache", "VERIFIED"]

KERNEL_VERSION = "3"  # bump when a kernel or the chunk format changes: old caches read as stale


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def atomic_save(arr: np.ndarray, path: Path) -> str:
    """Write arr as .npy via a temporary file + fsync + rename; returns its SHA-256."""
    write_atomic(path, lambda fh: np.save(fh, arr, allow_pickle=False))
    return _sha256(path)


def atomic_json(obj, path: Path) -> None:
    """Write ``obj`` as JSON to ``path`` atomically (temporary file + fsync + rename)."""
    text = json.dumps(obj, indent=1, sort_keys=True).encode()
    write_atomic(path, text)


def counts_dtype(cnt: np.ndarray):
    """The smallest unsigned dtype holding every count."""
    mx = int(cnt.max()) if len(cnt) else 0
    for dt in (np.uint8, np.uint16, np.uint32):
        if mx <= np.iinfo(dt).max:
            return dt
    return np.uint64


def jsonable(x):
    """A chunk bound as JSON: int (integer keys), float, or None (unbounded)."""
    return int(x) if isinstance(x, (int, np.integer)) else (None if x is None else float(x))


class Chunk:
    """One stored piece of a scale: distinct keys in increasing order and their counts.

    ``keys``/``counts`` may be memory-mapped arrays; ``counts is None`` means all ones (a measure
    without ties stores no counts file).
    """

    def __init__(self, keys, counts=None, n_runs: int | None = None, multi=None):
        self._keys, self._counts = keys, counts
        self.multi = np.empty((0, 2), np.int64) if multi is None else multi
        self.n_distinct = len(keys)
        self.n_runs = int(n_runs if n_runs is not None else
                          (self.n_distinct if counts is None else np.asarray(counts).sum(dtype=np.int64)))
        self.first = keys[0] if self.n_distinct else None
        self.last = keys[-1] if self.n_distinct else None

    def keys(self) -> np.ndarray:
        return np.asarray(self._keys)

    def counts(self) -> np.ndarray:
        if self._counts is None:
            return np.ones(self.n_distinct, np.int64)
        return np.asarray(self._counts, dtype=np.int64)

    def max_count(self) -> int:
        """The largest multiplicity in this chunk (1 when no counts are stored)."""
        return 1 if self._counts is None else int(np.asarray(self._counts).max())


class IdRangeChunk(Chunk):
    """Keys = run ids lo..hi−1, one run each (closed form of measures ordered like the run id)."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self._counts = None
        self.multi = np.empty((0, 2), np.int64)
        self.n_distinct = self.n_runs = hi - lo
        self.first, self.last = lo, hi - 1

    def keys(self) -> np.ndarray:
        return np.arange(self.lo, self.hi, dtype=np.int64)


def params(ker) -> dict:
    """What a cache was written for (``ker``: a :class:`~irscales.enumeration._kernels.Kernel`): a cache is read only
    when these match."""
    return params_for(ker.measure, ker.N, ker.c, ker.mode)


def params_for(measure, N: int, c: int, mode: str) -> dict:
    """:func:`params` from the kernel's parameters (``mode``: :func:`~irscales.enumeration._kernels.kernel_mode`),
    without building the kernel."""
    return {"measure": repr(measure), "N": N, "c": c, "kernel_version": KERNEL_VERSION,
            "mode": mode, "numpy": np.__version__.split(".")[0]}


def cache_path(ker, cache) -> Path | None:
    """The cache folder of a kernel (:class:`~irscales.enumeration._kernels.Kernel`; None: ``cache`` False or None, in
    memory)."""
    return cache_path_for(ker.measure, ker.N, ker.c, ker.mode, cache)


def cache_path_for(measure, N: int, c: int, mode: str, cache) -> Path | None:
    """:func:`cache_path` from the kernel's parameters, without building the kernel."""
    if cache is False or cache is None:
        return None
    root = cache_dir() if cache is True else Path(cache)
    tag = hashlib.sha256(json.dumps(params_for(measure, N, c, mode), sort_keys=True).encode()).hexdigest()[:12]
    return root / "scales" / f"{measure.key}_N{N}_c{c}_{tag}"


VERIFIED: set = set()  # (path, size, mtime, sha256) of files whose checksum this process checked


def load_chunk(d: Path, entry: dict, verify: str) -> Chunk | None:
    """The stored chunk, or None when a file is missing, truncated or fails its checksum."""
    arrs = {}
    for name in ("keys", "counts", "multi"):
        if entry.get(name) is None:  # no counts file: every count is 1; no multi file: none
            arrs[name] = None
            continue
        p = d / entry[name]
        if not p.exists():
            return None
        if verify == "full":
            st = p.stat()
            stamp = (str(p), st.st_size, st.st_mtime_ns, entry[name + "_sha256"])
            if stamp not in VERIFIED:  # hash each file once per process (N = 30: ~19 GB)
                if _sha256(p) != entry[name + "_sha256"]:
                    return None
                VERIFIED.add(stamp)
        try:
            a = np.load(p, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError, EOFError):
            return None
        want = entry["n_multi"] if name == "multi" else entry["n_distinct"]
        if len(a) != want or a.ndim != (2 if name == "multi" else 1):
            return None
        arrs[name] = a
    if arrs["keys"] is None:
        return None
    if verify == "full" and not _runs_agree(d, entry, arrs["counts"]):
        return None  # the manifest's run count is not the files' (an edited or foreign manifest)
    multi = None if arrs["multi"] is None else np.asarray(arrs["multi"])
    return Chunk(arrs["keys"], arrs["counts"], n_runs=entry["n_runs"], multi=multi)


def _runs_agree(d: Path, entry: dict, counts) -> bool:
    """Whether the manifest's ``n_runs`` is the number of runs the chunk's files hold (checked once per
    process and file, like the checksums): the manifest itself carries no checksum, and φ adds these up."""
    stamp = ("n_runs", str(d / entry["keys"]), entry.get("counts_sha256"), entry.get("n_runs"))
    if stamp in VERIFIED:
        return True
    held = entry["n_distinct"] if counts is None else int(np.asarray(counts).sum(dtype=np.int64))
    if not isinstance(entry.get("n_runs"), int) or held != entry["n_runs"]:
        return False
    VERIFIED.add(stamp)
    return True

def prune_cache(root: str | Path | None = None, dry_run: bool = False) -> list[Path]:
    """Remove scale caches written by another kernel version (or without a readable manifest).

    Such folders are never read (their parameters do not match), but a version bump leaves them on
    disk; N = 30 scales take several GB each. Returns the folders removed (or that would be).
    """
    base = (cache_dir() if root is None else Path(root)) / "scales"
    gone = []
    for d in sorted(base.iterdir()) if base.is_dir() else []:
        try:
            version = json.loads((d / "manifest.json").read_text())["params"]["kernel_version"]
        except (OSError, ValueError, KeyError, TypeError):
            version = None
        if version != KERNEL_VERSION:
            gone.append(d)
            if not dry_run:
                shutil.rmtree(d)
    return gone

