"""Where things live: the optional shared folder, caches, figures.

Settings come from environment variables so notebooks, the CLI and CI agree:

``IRSCALES_SHARED``  optional folder with inputs that cannot be redistributed, such as real TREC
                     runs (default: ``../shared`` beside the repository). Nothing from it is copied
                     into the repository, and nothing the tests, notebooks or report need lives
                     there: the public collections ship in ``data/collections/``
                     (:mod:`irscales.datasets`); tests that use it skip when it is absent.
``IRSCALES_CACHE``   cache of enumerated scales (default: ``data/cache`` in the repository, or
                     ``~/.cache/irscales`` for an installed package).
``IRSCALES_FIGURES`` output folder for figures and tables (default: ``figures`` in the repository).
"""

from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def repo_root() -> Path | None:
    """The source checkout holding this package, if it is run from one."""
    cand = _PKG.parent.parent
    return cand if (cand / "pyproject.toml").exists() and (cand / "src" / "irscales").exists() else None


class MissingSharedData(FileNotFoundError):
    """An optional shared input (e.g. real TREC runs) is not where the settings say."""


def shared_dir(required: bool = False) -> Path:
    env = os.environ.get("IRSCALES_SHARED")
    if env:
        p = Path(env).expanduser()
    else:
        root = repo_root()
        p = (root.parent / "shared") if root else Path.cwd() / "shared"
    if required and not p.is_dir():
        raise MissingSharedData(
            f"shared folder not found at {p}; set IRSCALES_SHARED to the folder holding the "
            "optional inputs (e.g. real TREC runs)"
        )
    return p


def shared_path(*parts: str) -> Path:
    """A path under the shared folder, with a clear error when it is absent."""
    p = shared_dir().joinpath(*parts)
    if not p.exists():
        raise MissingSharedData(
            f"{'/'.join(parts)} not found under the shared folder {shared_dir()} "
            "(set IRSCALES_SHARED to the folder that holds it)"
        )
    return p


def cache_dir() -> Path:
    env = os.environ.get("IRSCALES_CACHE")
    if env:
        p = Path(env).expanduser()
    else:
        root = repo_root()
        p = root / "data" / "cache" if root else Path.home() / ".cache" / "irscales"
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
