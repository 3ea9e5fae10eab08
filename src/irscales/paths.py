"""Where things live: the optional shared folder, caches, figures.

Settings come from environment variables so notebooks, the CLI and CI agree:

``IRSCALES_SHARED``  optional folder with inputs that cannot be redistributed, such as real TREC
                     runs in its ``trec/`` sub-folder (no default). Nothing from it is copied
                     into the repository, and nothing the tests, notebooks or report need lives
                     there: the public collections ship in ``data/collections/``
                     (:mod:`irscales.data.datasets`); tests that use it skip when it is absent.
``IRSCALES_CACHE``   cache of enumerated scales (default: ``data/cache`` in the repository, or
                     ``~/.cache/irscales`` for an installed package).
``IRSCALES_FIGURES`` output folder for figures and tables (default: ``figures`` in the repository).
``IRSCALES_GOP``     the authors' published Grid of Points (MATTERS ``.mat`` files, one folder per
                     track: ``T07/ap_T07.mat`` …, :mod:`irscales.data.matters`); default: the
                     ``gop/trec-jasist2017/`` folder of ``IRSCALES_SHARED`` when it exists.
``IRSCALES_SCORES``  per-topic score tables of submitted runs (``T07-adhoc/adhoc7_ap.csv.gz`` …,
                     :mod:`irscales.data._run_scores`); default: ``scores/`` of ``IRSCALES_SHARED``.
``IRSCALES_TREC``    your own TREC data, one sub-folder per track named as in the papers (``T08``,
                     ``T26``, ``T27``, ``R04``), each holding ``runs/`` (NIST run files, ``.gz``
                     allowed) and one qrels file (a name starting with ``qrels``); default: the
                     ``trec/`` folder of ``IRSCALES_SHARED`` when that is set and the folder exists.
                     Never copied anywhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "shared_dir", "cache_dir", "figures_dir", "published_dir", "MissingSharedData", "trec_track", "gop_dir",
    "scores_dir",
]

_PKG = Path(__file__).resolve().parent


def repo_root() -> Path | None:
    """The source checkout holding this package, if it is run from one."""
    cand = _PKG.parent.parent
    return cand if (cand / "pyproject.toml").exists() and (cand / "src" / "irscales").exists() else None


class MissingSharedData(FileNotFoundError):
    """An optional shared input (e.g. real TREC runs) is not where the settings say."""


def shared_dir(required: bool = False) -> Path | None:
    """The ``IRSCALES_SHARED`` folder, or None when the setting is absent (it has no default: a
    user's clone needs nothing beside it). ``required``: absent or missing is an error."""
    env = os.environ.get("IRSCALES_SHARED")
    p = Path(env).expanduser() if env else None
    if required and (p is None or not p.is_dir()):
        raise MissingSharedData(
            f"shared folder not found{f' at {p}' if p else ''}; set IRSCALES_SHARED to the folder holding "
            "the optional inputs (e.g. real TREC runs in its trec/ sub-folder)"
        )
    return p


def cache_root() -> Path:
    """Where the cache lives (``IRSCALES_CACHE``, else ``data/cache`` in a checkout, else
    ``~/.cache/irscales``), without creating it."""
    env = os.environ.get("IRSCALES_CACHE")
    if env:
        return Path(env).expanduser()
    root = repo_root()
    return root / "data" / "cache" if root else Path.home() / ".cache" / "irscales"


def cache_dir() -> Path:
    """:func:`cache_root`, created if needed."""
    p = cache_root()
    p.mkdir(parents=True, exist_ok=True)
    return p


def figures_dir(paper: str | None = None) -> Path:
    env = os.environ.get("IRSCALES_FIGURES")
    if env:
        p = Path(env).expanduser()
    else:
        root = repo_root()
        p = root / "figures" if root else Path.cwd() / "figures"
    if paper:
        p = p / paper
    p.mkdir(parents=True, exist_ok=True)
    return p


def published_dir() -> Path:
    root = repo_root()
    if root is None:
        raise FileNotFoundError("data/published/ is only available from a source checkout of irscales")
    return root / "data" / "published"


#: Track names of the papers that :func:`trec_track` looks for (FFF21: T08, T26, T27; MM23: R04).
TREC_TRACKS = ("T08", "T26", "T27", "R04")


@dataclass(frozen=True)
class TrecTrack:
    """Where one track's real data is: the folder of run files and the qrels file."""

    name: str
    runs: Path
    qrels: Path


def trec_dir() -> Path | None:
    """The folder of the ``IRSCALES_TREC`` setting (default: ``$IRSCALES_SHARED/trec`` when that is
    set and exists), or None when there is none. An ``IRSCALES_TREC`` that is set but not a folder is an error."""
    env = os.environ.get("IRSCALES_TREC")
    if env:
        p = Path(env).expanduser()
        if not p.is_dir():
            raise MissingSharedData(f"IRSCALES_TREC={env}: not a folder (expected one sub-folder per track, "
                                    f"e.g. {p / 'T08' / 'runs'} and {p / 'T08' / 'qrels.txt'})")
        return p
    shared = shared_dir()
    p = shared / "trec" if shared else None
    return p if p is not None and p.is_dir() else None


def trec_track(name: str) -> TrecTrack | None:
    """The runs and qrels of track ``name`` (``"T08"``) under :func:`trec_dir`, or None when the track
    is not there (it then stays simulated). A track folder without ``runs/`` or without exactly one
    qrels file raises :class:`MissingSharedData` saying what is expected."""
    root = trec_dir()
    if root is None or not (root / name).is_dir():
        return None
    d = root / name
    runs = d / "runs"
    qrels = sorted(f for f in d.iterdir() if f.is_file() and f.name.lower().startswith("qrels"))
    if not runs.is_dir() or not any(runs.iterdir()):
        raise MissingSharedData(f"{d}: expected the track's run files in {runs}/ (input.<tag>[.gz])")
    if len(qrels) != 1:
        found = ", ".join(f.name for f in qrels) or "none"
        raise MissingSharedData(f"{d}: expected exactly one qrels file (a name starting with 'qrels'), found {found}")
    return TrecTrack(name, runs, qrels[0])


def trec_tracks(names: tuple[str, ...] = TREC_TRACKS) -> dict[str, TrecTrack]:
    """The tracks of ``names`` found under :func:`trec_dir` (the others stay simulated)."""
    found = {n: trec_track(n) for n in names}
    return {n: t for n, t in found.items() if t is not None}


#: How the qrels of a track are named in the ``qrels/`` folder of :func:`trec_dir` (a file whose name
#: starts with ``qrels`` and contains the key), as distributed by TREC / ``anserini-tools``.
TREC_QRELS_KEYS = {"T07": "adhoc.351-400", "T08": "adhoc.401-450", "T26": "core17", "T27": "core18"}


def trec_qrels(name: str) -> Path | None:
    """The real qrels file of track ``name`` (``"T26"``) under :func:`trec_dir`, or None when there is
    none: the track folder's one ``qrels*`` file (``T26/qrels…``), else the file of ``qrels/`` whose
    name holds :data:`TREC_QRELS_KEYS` of the track (``qrels/qrels.core17.txt.gz``). Unlike
    :func:`trec_track` it needs no runs: the simulated presets take recall bases from it
    (``irscales.data.load_preset("sim-t26", qrels=trec_qrels("T26"))``). Two candidates are an error."""
    root = trec_dir()
    if root is None:
        return None
    d = root / name
    found = sorted(f for f in d.iterdir() if f.is_file() and f.name.lower().startswith("qrels")) if d.is_dir() else []
    where = d
    key = TREC_QRELS_KEYS.get(name)
    if not found and key and (root / "qrels").is_dir():
        where = root / "qrels"
        found = sorted(f for f in where.iterdir() if f.is_file() and f.name.lower().startswith("qrels")
                       and key in f.name.lower())
    if len(found) > 1:
        raise MissingSharedData(f"{where}: more than one qrels file for {name} ({', '.join(f.name for f in found)}); "
                                "keep exactly one")
    return found[0] if found else None


def _setting_or_shared(env: str, sub: str, what: str) -> Path | None:
    value = os.environ.get(env)
    if value:
        p = Path(value).expanduser()
        if not p.is_dir():
            raise MissingSharedData(f"{env}={value}: not a folder (expected {what})")
        return p
    shared = shared_dir()
    p = shared / sub if shared else None
    return p if p is not None and p.is_dir() else None


def gop_dir() -> Path | None:
    """The authors' Grid of Points on T07–T10 (``IRSCALES_GOP``, default
    ``$IRSCALES_SHARED/gop/trec-jasist2017``): one folder per track holding ``<measure>_<track>.mat``;
    None when absent. A set ``IRSCALES_GOP`` that is not a folder is an error."""
    return _setting_or_shared("IRSCALES_GOP", "gop/trec-jasist2017", "one folder per track, e.g. T08/ap_T08.mat")


def scores_dir() -> Path | None:
    """Per-topic score tables of submitted runs (``IRSCALES_SCORES``, default
    ``$IRSCALES_SHARED/scores``), e.g. ``T07-adhoc/adhoc7_ap.csv.gz``; None when absent."""
    return _setting_or_shared("IRSCALES_SCORES", "scores", "e.g. T07-adhoc/adhoc7_ap.csv.gz")
