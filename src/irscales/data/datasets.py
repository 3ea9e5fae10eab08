"""Getting the public collections Cranfield, CISI and CACM (issues 11 and 17).

Where the files are looked for, in order:

1. the mirror folder given by the setting ``IRSCALES_COLLECTIONS`` (only when it is set), holding
   one sub-folder per collection (``cranfield/``, ``cisi/``, ``cacm/``) with the files of
   :data:`irscales.data.smart.FILES`;
2. the archives shipped with the repository, ``data/collections/<name>.tar.xz`` (the default on
   every checkout): checked against ``data/collections/SHA256SUMS`` and extracted once into
   ``<cache>/collections/<name>-<sha12>/`` (:func:`irscales.paths.cache_dir`);
3. ``data/external/<name>/`` in the repository (``~/.cache/irscales/external`` for an installed
   package), where :func:`download` puts them.

:func:`download` fetches the archives from the canonical source, the University of Glasgow IR
group's test-collection pages (:data:`SOURCES`), and extracts only the files the parsers need.
With none of these, :class:`DataUnavailable` says what is missing and how to get it. Whatever the
source, :func:`load` validates the content (counts of documents, queries, judged queries,
judgments; :data:`irscales.data.smart.EXPECTED`). Source, licence statement and checksums of the
shipped archives: ``data/collections/PROVENANCE.md``.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from irscales._atomic import write_atomic
from irscales import paths
from irscales.data import smart

__all__ = ["DataUnavailable", "available", "load"]

SOURCES: dict[str, str] = {
    "cranfield": "http://ir.dcs.gla.ac.uk/resources/test_collections/cran/cran.tar.gz",
    "cisi": "http://ir.dcs.gla.ac.uk/resources/test_collections/cisi/cisi.tar.gz",
    "cacm": "http://ir.dcs.gla.ac.uk/resources/test_collections/cacm/cacm.tar.gz",
}


# members of the shipped archives, under "<name>/": what smart reads, plus the source's readme
ARCHIVE_MEMBERS: dict[str, tuple[str, ...]] = {
    "cranfield": (*smart.FILES["cranfield"].values(), "cranqrel.readme"),
    "cisi": tuple(smart.FILES["cisi"].values()),
    "cacm": tuple(smart.FILES["cacm"].values()),
}


class DataUnavailable(FileNotFoundError):
    """A public collection is in none of the mirror, the shipped archives (or one is damaged) and
    the download folder, and cannot be fetched."""


def mirror_dir() -> Path | None:
    """The mirror folder ``$IRSCALES_COLLECTIONS``, or None when the setting is absent."""
    env = os.environ.get("IRSCALES_COLLECTIONS")
    return Path(env).expanduser() if env else None


def archive_dir() -> Path | None:
    """``data/collections`` of the source checkout (the shipped archives), if there is one."""
    root = paths.repo_root()
    return root / "data" / "collections" if root else None


def archive_path(name: str) -> Path | None:
    """The shipped archive of collection ``name``, if present."""
    d = archive_dir()
    p = d / f"{name}.tar.xz" if d else None
    return p if p and p.is_file() else None


def checksums() -> dict[str, str]:
    """path (relative to ``data/collections``) -> SHA-256, read from ``SHA256SUMS``."""
    d = archive_dir()
    f = d / "SHA256SUMS" if d else None
    if f is None or not f.is_file():
        return {}
    out = {}
    for n, line in enumerate(f.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or len(parts[0]) != 64:
            raise ValueError(f"{f}:{n}: expected '<sha256>  <path>', found {line!r}")
        out[parts[1].lstrip("*")] = parts[0]
    return out


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def extract_archive(name: str) -> Path | None:
    """Extract the shipped archive of ``name`` (once) and return the folder, or None when the
    checkout has no archive. The archive and every member must match ``SHA256SUMS``; a mismatch
    is a :class:`DataUnavailable` naming the file (a corrupted or edited copy is never read)."""
    arc = archive_path(name)
    if arc is None:
        return None
    sums = checksums()
    payload = arc.read_bytes()
    digest = _sha256(payload)
    if sums.get(arc.name) != digest:
        raise DataUnavailable(f"{arc}: SHA-256 {digest} does not match data/collections/SHA256SUMS "
                              f"({sums.get(arc.name, 'no entry')}); restore the file with git")
    folder = paths.cache_dir() / "collections" / f"{name}-{digest[:12]}"
    if _complete(folder, name):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{name}-"))  # renamed when complete
    try:
        with tarfile.open(fileobj=io.BytesIO(payload), mode="r:xz") as tar:
            for f in ARCHIVE_MEMBERS[name]:
                fh = tar.extractfile(f"{name}/{f}")
                data = fh.read() if fh else b""
                if sums.get(f"{name}/{f}") != _sha256(data):
                    raise DataUnavailable(f"{arc}: member {name}/{f} does not match data/collections/SHA256SUMS")
                (tmp / f).write_bytes(data)
        try:
            tmp.rename(folder)
        except OSError:  # another process extracted it first
            if not _complete(folder, name):
                raise
    except (KeyError, tarfile.TarError) as e:
        raise DataUnavailable(f"{arc} is not a readable archive of {name} ({e}); restore it with git") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def external_dir() -> Path:
    """Where :func:`download` stores the collections (``data/external`` in a checkout)."""
    root = paths.repo_root()
    return root / "data" / "external" if root else Path.home() / ".cache" / "irscales" / "external"


def _check_name(name: str) -> None:
    if name not in smart.FILES:
        raise KeyError(f"unknown collection {name!r}; choose one of {', '.join(smart.NAMES)}")


def _complete(folder: Path, name: str) -> bool:
    return all((folder / f).is_file() for f in smart.FILES[name].values())


def locate(name: str) -> Path:
    """The folder holding collection ``name``'s files: the ``IRSCALES_COLLECTIONS`` mirror if set
    and complete, else the shipped archive (extracted), else ``data/external``.

    Raises :class:`DataUnavailable` with instructions when none has them.
    """
    _check_name(name)
    tried = []
    mirror = mirror_dir()
    if mirror is not None:
        tried.append(str(mirror / name))
        if _complete(mirror / name, name):
            return mirror / name
    shipped = extract_archive(name)
    if shipped is not None:
        return shipped
    tried.append(f"{archive_dir() or 'data/collections'}/{name}.tar.xz")
    folder = external_dir() / name
    tried.append(str(folder))
    if _complete(folder, name):
        return folder
    files = ", ".join(smart.FILES[name].values())
    raise DataUnavailable(
        f"collection {name!r} not found (looked in {', '.join(tried)}, for {files}). "
        f"Get it with `make data` or `python -m irscales.data.datasets {name}` on a machine with a network "
        f"(source: {SOURCES[name]}), or point IRSCALES_COLLECTIONS at a folder with a '{name}/' "
        "sub-folder holding those files.")


def available(name: str) -> bool:
    """True when :func:`locate` finds the collection without downloading."""
    try:
        locate(name)
        return True
    except DataUnavailable:
        return False


def download(name: str, dest: Path | None = None, timeout: float = 30.0) -> Path:
    """Fetch collection ``name`` from :data:`SOURCES` into ``dest/<name>`` (default
    :func:`external_dir`) and return that folder. Only the files of :data:`irscales.data.smart.FILES`
    are extracted (by base name, never outside the folder). No network → :class:`DataUnavailable`.
    """
    _check_name(name)
    folder = (Path(dest) if dest else external_dir()) / name
    if _complete(folder, name):
        return folder
    url = SOURCES[name]
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 (fixed http URL)
            payload = resp.read()
    except (urllib.error.URLError, OSError, TimeoutError) as e:
        raise DataUnavailable(
            f"cannot download {name!r} from {url} ({e}); copy the files "
            f"{', '.join(smart.FILES[name].values())} into {folder} or set IRSCALES_COLLECTIONS "
            "to a mirror folder") from None
    wanted = set(smart.FILES[name].values())
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(payload), mode="r:*") as tar:
            for member in tar.getmembers():
                base = Path(member.name).name
                if member.isfile() and base in wanted:
                    fh = tar.extractfile(member)
                    if fh is not None:
                        write_atomic(folder / base, fh.read())
    except tarfile.TarError as e:
        raise DataUnavailable(f"{url} is not a readable tar archive ({e})") from None
    if not _complete(folder, name):
        missing = [f for f in wanted if not (folder / f).is_file()]
        raise DataUnavailable(f"the archive {url} lacks {', '.join(sorted(missing))}")
    return folder


def load(name: str, fetch: bool = False, validate: bool = True) -> smart.SmartCollection:
    """Parse collection ``name`` (:func:`irscales.data.smart.read_collection`), found by
    :func:`locate`; with ``fetch=True`` a missing collection is downloaded first."""
    try:
        folder = locate(name)
    except DataUnavailable:
        if not fetch:
            raise
        folder = download(name)
    return smart.read_collection(name, folder, validate=validate)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    """``python -m irscales.data.datasets [name ...]``: find or fetch and validate the collections."""
    names = (argv if argv is not None else sys.argv[1:]) or list(smart.NAMES)
    status = 0
    for n in names:
        try:
            c = load(n, fetch=True)
            print(f"{n}: ok, {c.counts()} from {c.source}")
        except (DataUnavailable, smart.SmartFormatError, KeyError) as e:
            print(f"{n}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
