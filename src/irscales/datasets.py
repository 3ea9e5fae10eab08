"""Getting the public collections Cranfield, CISI and CACM (issue 11, item 1).

Where the files are looked for, in order:

1. the mirror folder given by the setting ``IRSCALES_COLLECTIONS`` (default:
   ``<shared>/collections`` with ``<shared>`` from :func:`irscales.paths.shared_dir`), holding
   one sub-folder per collection (``cranfield/``, ``cisi/``, ``cacm/``) with the files of
   :data:`irscales.smart.FILES`;
2. ``data/external/<name>/`` in the repository (``~/.cache/irscales/external`` for an installed
   package), where :func:`download` puts them.

:func:`download` fetches the archives from the canonical source, the University of Glasgow IR
group's test-collection pages (:data:`SOURCES`), and extracts only the files the parsers need.
With neither a mirror nor a network, :class:`DataUnavailable` says what is missing and how to get
it. Whatever the source, :func:`load` validates the content (counts of documents, queries, judged
queries, judgments; :data:`irscales.smart.EXPECTED`), not the bytes of one particular copy.

Files of the collections are never copied into the repository's tracked tree (``data/external``
is a download cache).
"""

from __future__ import annotations

import io
import os
import tarfile
import urllib.error
import urllib.request
from pathlib import Path

from . import paths, smart

__all__ = ["DataUnavailable", "SOURCES", "mirror_dir", "external_dir", "locate", "download", "load",
           "available"]

SOURCES: dict[str, str] = {
    "cranfield": "http://ir.dcs.gla.ac.uk/resources/test_collections/cran/cran.tar.gz",
    "cisi": "http://ir.dcs.gla.ac.uk/resources/test_collections/cisi/cisi.tar.gz",
    "cacm": "http://ir.dcs.gla.ac.uk/resources/test_collections/cacm/cacm.tar.gz",
}


class DataUnavailable(FileNotFoundError):
    """A public collection is neither in the mirror nor downloaded, and cannot be fetched."""


def mirror_dir() -> Path:
    """The mirror folder: ``$IRSCALES_COLLECTIONS``, else ``<shared>/collections``."""
    env = os.environ.get("IRSCALES_COLLECTIONS")
    return Path(env).expanduser() if env else paths.shared_dir() / "collections"


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
    """The folder holding collection ``name``'s files (mirror first, then ``data/external``).

    Raises :class:`DataUnavailable` with instructions when neither has them.
    """
    _check_name(name)
    tried = []
    for base in (mirror_dir(), external_dir()):
        folder = base / name
        tried.append(str(folder))
        if _complete(folder, name):
            return folder
    files = ", ".join(smart.FILES[name].values())
    raise DataUnavailable(
        f"collection {name!r} not found (looked in {' and '.join(tried)}, for {files}). "
        f"Get it with `make data` or `python -m irscales.datasets {name}` on a machine with a network "
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
    :func:`external_dir`) and return that folder. Only the files of :data:`irscales.smart.FILES`
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
                        (folder / base).write_bytes(fh.read())
    except tarfile.TarError as e:
        raise DataUnavailable(f"{url} is not a readable tar archive ({e})") from None
    if not _complete(folder, name):
        missing = [f for f in wanted if not (folder / f).is_file()]
        raise DataUnavailable(f"the archive {url} lacks {', '.join(sorted(missing))}")
    return folder


def load(name: str, fetch: bool = False, validate: bool = True) -> smart.SmartCollection:
    """Parse collection ``name`` (:func:`irscales.smart.read_collection`), found by
    :func:`locate`; with ``fetch=True`` a missing collection is downloaded first."""
    try:
        folder = locate(name)
    except DataUnavailable:
        if not fetch:
            raise
        folder = download(name)
    return smart.read_collection(name, folder, validate=validate)  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    """``python -m irscales.datasets [name ...]``: find or fetch and validate the collections."""
    import sys

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
