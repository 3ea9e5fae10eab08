"""Pack Cranfield, CISI and CACM into data/collections/<name>.tar.xz (issue 17).

Usage: ``python scripts/pack_collections.py SOURCE_DIR`` where SOURCE_DIR holds ``cranfield/``,
``cisi/`` and ``cacm/`` as distributed by the University of Glasgow IR group. Only the files
:mod:`irscales.data.smart` reads (plus Cranfield's ``cranqrel.readme``) are packed, byte for byte,
under ``<name>/``; member order, times and owners are fixed so the archive is reproducible.
Prints the SHA-256 of every member and archive for data/collections/PROVENANCE.md.
"""

from __future__ import annotations

import hashlib
import io
import sys
import tarfile
from pathlib import Path

from irscales.data import datasets


def pack(source: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for name, members in datasets.ARCHIVE_MEMBERS.items():
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:xz", format=tarfile.USTAR_FORMAT,
                          preset=9) as tar:
            for f in members:
                data = (source / name / f).read_bytes()
                info = tarfile.TarInfo(f"{name}/{f}")
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(data))
                print(f"{name}/{f}  {len(data)} bytes  sha256 {hashlib.sha256(data).hexdigest()}")
        out = dest / f"{name}.tar.xz"
        out.write_bytes(buf.getvalue())
        print(f"{out.name}  {len(buf.getvalue())} bytes  sha256 {hashlib.sha256(buf.getvalue()).hexdigest()}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/pack_collections.py SOURCE_DIR")
    pack(Path(sys.argv[1]), Path(__file__).resolve().parent.parent / "data" / "collections")
