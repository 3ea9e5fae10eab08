"""Writing a file whole or not at all (issue 37): the one writer of every file irscales makes.

The bytes go to a temporary file in the target's folder (same file system, so the rename is atomic),
are flushed and fsynced, and the temporary file is renamed over the target (``os.replace``). On any
failure (a full disk, no permission, an interrupt) the temporary file is removed and the target is as
it was: an old file is never truncated. Errors are an ``OSError`` with the same errno (ENOSPC for a
full disk) whose ``filename`` is the target, so the one-line message names the file that could not be
written. A target that exists and is not a regular file (``-o /dev/stdout``, a FIFO) is written in
place: there is nothing to replace there. A symbolic link keeps pointing where it did: its target is
replaced.
"""

from __future__ import annotations

import gzip as gzip_
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO, Callable, Union

__all__ = ["write_atomic", "file_mode"]

Content = Union[bytes, str, Callable[[BinaryIO], object]]


_UMASK_LOCK = threading.Lock()


def file_mode() -> int:
    """0o666 minus the umask: what ``open()`` would give (``mkstemp`` makes private 0o600 files). The umask can
    only be read by setting it: the lock keeps writer threads from restoring each other's 0."""
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return 0o666 & ~mask


def _gzipped(data: bytes) -> Callable[[BinaryIO], None]:
    def write(raw: BinaryIO) -> None:
        with gzip_.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
            fh.write(data)
    return write


def _put(fh: BinaryIO, content: Content, encoding: str) -> None:
    if callable(content):
        content(fh)
    else:
        fh.write(content.encode(encoding) if isinstance(content, str) else content)


def write_atomic(path: str | os.PathLike, content: Content, *, encoding: str = "utf-8", gzip: bool = False,
                 durable: bool = True) -> Path:
    """Write ``content`` (bytes, text in ``encoding``, or a function writing to a binary file object) to
    ``path`` atomically (see the module docstring); returns the path written. The folder must exist.
    ``gzip``: compress bytes or text with mtime 0, so the same content gives the same file. ``durable=False``
    skips the ``fsync`` before the rename (a reader still never sees half a file from a live writer, but a
    power cut may leave an empty or partial one): for cache entries that carry their own checksum and are
    made again when it fails (an fsync each costs milliseconds: 10,000 small run files, issue 49)."""
    path = Path(path)
    if gzip:
        content = _gzipped(content.encode(encoding) if isinstance(content, str) else content)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OSError(e.errno, f"cannot write it: {e.strerror or e}", str(path)) from e
    if st is not None and not stat.S_ISREG(st.st_mode):
        try:  # a device or a FIFO: written in place
            with open(path, "wb") as fh:
                _put(fh, content, encoding)
        except OSError as e:
            raise OSError(e.errno, f"cannot write it: {e.strerror or e}", str(path)) from e
        return path
    target = Path(os.path.realpath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            # an existing file keeps its permissions; a new one gets what open() would give it
            os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else file_mode())
            _put(fh, content, encoding)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise OSError(e.errno, f"cannot write it: {e.strerror or e}", str(path)) from e
    finally:
        if tmp is not None:  # a failure or an interrupt: nothing left behind
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return path
