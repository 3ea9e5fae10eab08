"""The SHA-256 of a file's bytes without reading them, while the file is unchanged since they were hashed: an
index validated by the file's status, as git's index is (issue 49).

The caches of judged runs and of qrels (:mod:`irscales.data._trec_cache`, :mod:`irscales.data._qrels_cache`) are
keyed by the SHA-256 of each file's bytes as stored. Hashing the 254 MB of the TREC-8 runs costs 0.2 s of CPU,
a sixth of a call on runs read before; this index gives the digest of a file from its status alone. One entry
per file (named by the SHA-256 of its absolute path, under ``<cache>/digests``) records the file's identity
and status, the digest and when the read that hashed them began:

    device, inode, size, mtime_ns, ctime_ns, hashed_from_ns, sha256

**When an entry is written** (:func:`remember_digest`): the file's status was taken before the read and again
after it, and the two agree; and the read began at least :data:`QUIET_NS` (2 s) after the file's last change
(``hashed_from_ns ≥ max(mtime_ns, ctime_ns) + QUIET_NS``, git's "racily clean" rule). A file changed in the
last two seconds is hashed on every read until it has been quiet that long.

**When an entry is trusted** (:func:`known_digest`): it checks out (its own SHA-256, its format, the same path),
the file's status now is the one recorded, field for field, and the rule above holds for what it records.

**Why it cannot give the digest of other bytes.** The kernel stamps every change of a file's bytes with the
current time: ``mtime`` for writes, and ``ctime`` for any change at all — writes, ``truncate``, ``utime``
(``touch -d``, which sets ``mtime`` back), a new file in the place of an old one. No call sets ``ctime`` to a
chosen value. Timestamps come from the system clock at the file system's granularity (nanoseconds on ext4,
xfs, btrfs and tmpfs; one second on some older ones; two on FAT). Suppose the bytes changed after the entry
was written. (a) During the read: the change is stamped at or after the read began, less the granularity,
which is after the recorded ``ctime`` (the read began 2 s after it, more than any granularity), so the
status taken after the read differs from the one before: no entry. (b) After the read: its ``ctime`` is
likewise later than the recorded one, so the status no longer matches: the entry is not trusted, the file is
read and hashed again. (c) A file replaced by another (a rename over it, or deleted and made again, which may
reuse the inode number): the new file's ``ctime`` is that of its making, later than the recorded one. Same
size and a restored ``mtime`` change nothing: the test is on ``ctime`` too (``tests/test_file_digests.py``
changes a file in place, keeps its size and sets its ``mtime`` back, and checks that it is hashed again; and
that a file written just now is hashed on every read). What this rests on, as for git and make: the clock
that stamps the files agrees with this machine's within the 2 s (a network file system whose server clock
lags more, or a clock set back by more than that, could in principle stamp a change with the very time
recorded). A damaged entry, or one of another file, is never trusted: the file is hashed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from time import time_ns

from irscales._atomic import write_atomic

__all__ = ["QUIET_NS", "Stamp", "digests_folder", "stamp", "known_digest", "remember_digest"]

_FORMAT = "irscales.file-digest/1"
#: A file is hashed until it has been quiet this long (nanoseconds): more than any file system's granularity.
QUIET_NS = 2 * 10**9

Stamp = tuple[int, tuple[int, int, int, int, int]]  # (time the read began, the file's status then)


def digests_folder(cache: Path) -> Path:
    """Where the index of a cache folder lives."""
    return cache / "digests"


def _status(path: Path) -> tuple[int, int, int, int, int] | None:
    """(device, inode, size, mtime_ns, ctime_ns) of a regular file; None for anything else (a pipe is read
    once; a file that cannot be read is reported by its reader)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def stamp(path: Path) -> Stamp | None:
    """The time and the file's status, taken before it is read (for :func:`remember_digest`)."""
    now = time_ns()
    status = _status(path)
    return None if status is None else (now, status)


def _quiet(hashed_from: int, status: tuple[int, int, int, int, int]) -> bool:
    return hashed_from >= max(status[3], status[4]) + QUIET_NS


def _entry(folder: Path, path: Path) -> tuple[Path, str]:
    where = os.path.abspath(path)
    return digests_folder(folder) / hashlib.sha256(where.encode("utf-8", "surrogateescape")).hexdigest(), where


def known_digest(folder: Path, path: Path, now: Stamp | None) -> str | None:
    """The SHA-256 (hex) of the file's bytes when the index vouches for it (module docstring), else None.
    ``now``: :func:`stamp` of the file, taken just before."""
    if now is None:
        return None
    f, where = _entry(folder, path)
    try:
        raw = f.read_bytes()
        body, check = raw.rstrip(b"\n").rsplit(b"\n", 1)
        if hashlib.sha256(body).hexdigest().encode("ascii") != check:
            return None
        e = json.loads(body)
        recorded = tuple(e["status"])
        if (e["format"] == _FORMAT and e["path"] == where and recorded == now[1]
                and _quiet(int(e["hashed_from_ns"]), recorded) and isinstance(e["sha256"], str)):
            return e["sha256"]
    except (OSError, ValueError, KeyError, TypeError):  # absent or damaged: hashed again
        pass
    return None


def remember_digest(folder: Path, path: Path, before: Stamp | None, digest: str) -> None:
    """Record ``digest`` for the file when its status after the read is ``before``'s and the read began long
    enough after its last change (module docstring); a failed write is ignored (the file is hashed next time)."""
    if before is None:
        return
    hashed_from, status = before
    if _status(path) != status or not _quiet(hashed_from, status):
        return
    f, where = _entry(folder, path)
    body = json.dumps({"format": _FORMAT, "path": where, "status": list(status), "hashed_from_ns": hashed_from,
                       "sha256": digest}, ensure_ascii=True).encode("ascii")
    try:
        f.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(f, body + b"\n" + hashlib.sha256(body).hexdigest().encode("ascii") + b"\n", durable=False)
    except OSError:
        pass
