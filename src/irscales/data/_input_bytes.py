"""The bytes of a run or qrels file, bounded (issue 37): what may be read, how much, and compression.

* A file is a regular file or a pipe (a FIFO, a shell's ``<(zcat run.gz)``); a device (``/dev/zero``,
  ``/dev/urandom``) or a socket never ends and is refused, naming the path.
* At most :data:`MAX_TEXT_BYTES` of text per file; a pipe is read up to that and no further.
* A gzipped file is decompressed as a stream, a megabyte at a time, and stops at the first byte over
  its bound: :data:`MAX_TEXT_BYTES`, and :data:`MAX_RATIO` bytes of text per compressed byte once the
  text passes :data:`RATIO_FLOOR` (a decompression bomb: 2 MB of gzipped zeros expand to 2 GB; real
  runs expand about 6 times, the TREC-8 runs at most 5.9; deflate's own limit is 1032).
* Other compressions (bz2, xz, zip, zstd, 7z, lz4, compress) are recognised by their magic bytes and
  named: only gzip is read.

Errors are :class:`InputError`, one line: ``path: what``.
"""

from __future__ import annotations

import os
import stat
import zlib
from typing import BinaryIO

from irscales._clipping import clip_words

__all__ = ["InputError", "MAX_TEXT_BYTES", "MAX_RATIO", "RATIO_FLOOR", "check_readable", "refuse_compressed",
           "read_bounded", "gunzip", "GZIP_MAGIC", "kind_of"]

#: The most text read from one file (4 GiB: a run of 1,000 documents for each of 40,000 topics at about
#: 100 bytes a line is 4 GB, an order above the TREC-8 runs, the largest of which is 3.5 MB).
MAX_TEXT_BYTES = 4 * 2**30
#: Text bytes per compressed byte beyond which a gzipped file is taken for a decompression bomb, once
#: its text passes :data:`RATIO_FLOOR` (below that, any ratio: a few KB of repeated lines compress well).
MAX_RATIO = 100
RATIO_FLOOR = 64 * 2**20
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 2**20

# magic bytes of the compressions a user may have: named instead of reported as "a NUL byte"
_MAGIC = [(b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"), (b"PK\x03\x04", "zip"), (b"(\xb5/\xfd", "zstd"),
          (b"7z\xbc\xaf\x27\x1c", "7z"), (b"\x04\x22\x4d\x18", "lz4"), (b"\x1f\x9d", "compress (.Z)")]


class InputError(ValueError):
    """An input that cannot be read as text; ``str(e)`` is one line: ``path:line: what was wrong``."""

    def __init__(self, path, line: int | None, what: str):
        self.path = None if path is None else str(path)
        self.line = line
        self.what = what = clip_words(what)  # a 64 kB token quoted whole would make a 64 kB line
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {what}")


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: "a regular file", "a FIFO", "a character device" …"""
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def check_readable(path, fd: int, what: str = "a run or qrels file") -> int:
    """The size of the open file ``fd`` (0 for a pipe); a device or socket, or a file larger than
    :data:`MAX_TEXT_BYTES`, is refused with an :class:`InputError` naming ``path``."""
    st = os.fstat(fd)
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):  # a pipe ends; a device never does
        raise InputError(path, None, f"is {kind_of(st.st_mode)}, not a file: expected {what}")
    if st.st_size > MAX_TEXT_BYTES:
        raise InputError(path, None, f"{st.st_size:,} bytes: more than the {MAX_TEXT_BYTES:,} bytes read from one "
                         "file (irscales.data._input_bytes.MAX_TEXT_BYTES)")
    return st.st_size


def refuse_compressed(path, head: bytes) -> None:
    """Refuse a file compressed other than with gzip (by its first bytes), naming the compression."""
    for magic, name in _MAGIC:
        if head.startswith(magic) and (name != "bz2" or head[3:4].isdigit()):
            raise InputError(path, None, f"compressed with {name}; only gzip is read (decompress it first)")


def read_bounded(fh: BinaryIO, path, limit: int = MAX_TEXT_BYTES) -> bytearray:
    """The rest of ``fh`` (a pipe: it has no size), at most ``limit`` bytes."""
    out = bytearray()
    while True:
        piece = fh.read(min(_CHUNK, limit + 1 - len(out)))
        if not piece:
            return out
        out += piece
        if len(out) > limit:
            raise InputError(path, None, f"more than {limit:,} bytes of text: not read further "
                             "(irscales.data._input_bytes.MAX_TEXT_BYTES)")


def gunzip(path, data) -> bytearray:
    """The text of the gzipped bytes ``data`` (one or more members), decompressed a megabyte at a time
    and refused past its bound (see the module docstring), naming ``path``."""
    data = memoryview(data)
    limit = min(MAX_TEXT_BYTES, max(RATIO_FLOOR, MAX_RATIO * len(data)))
    out = bytearray()
    d, pending, pos = zlib.decompressobj(31), b"", 0
    try:
        while True:
            if not pending and pos < len(data):
                pending, pos = data[pos: pos + _CHUNK], pos + _CHUNK
            piece = d.decompress(pending, _CHUNK)  # at most a megabyte of text per call
            pending = d.unconsumed_tail
            if len(out) + len(piece) > limit:
                raise InputError(path, None, _too_much(limit, len(data)))
            out += piece
            if d.eof:
                pending = d.unused_data + bytes(pending)
                if not pending and pos >= len(data):
                    return out
                if not (pending + data[pos: pos + 2].tobytes()).startswith(GZIP_MAGIC):
                    raise InputError(path, None, "cannot read file: bytes after the end of the gzip data")
                d = zlib.decompressobj(31)  # the next member
            elif not piece and not pending and pos >= len(data):
                raise InputError(path, None, "cannot read file: the gzip data ends early (a truncated file?)")
    except zlib.error as e:
        raise InputError(path, None, f"cannot read file: not valid gzip data ({e})") from None


def _too_much(limit: int, compressed: int) -> str:
    if limit == MAX_TEXT_BYTES:
        return (f"gzipped text of more than {limit:,} bytes: not read further "
                "(irscales.data._input_bytes.MAX_TEXT_BYTES)")
    return (f"gzipped text of more than {limit:,} bytes from {compressed:,} compressed bytes (over {MAX_RATIO} "
            "times its size: a decompression bomb?); not read further (irscales.data._input_bytes.MAX_RATIO)")
