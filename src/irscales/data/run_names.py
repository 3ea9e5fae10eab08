"""How systems read from run files are named (issue 30): by their run tag, or by their file when
files share a tag.

A TREC run file names its system in the tag column, and the tags of a track's runs are normally
distinct (``input.uwmt8a0`` holds ``uwmt8a0``), so systems are named by tag. Real collections also
hold several files with one tag: the CLEF eHealth 2018 baselines tag six Indri runs ``indri`` and
three Terrier runs ``BM25b0.75``. Those are different runs, never to be merged, so:

* every tag distinct → each system is named by its tag (unchanged: the paper reproductions rely on it);
* two or more files share a tag → **every** system of the read is named by its file (its name, without
  a trailing ``.gz``), with a one-line warning naming the shared tags; one rule for the whole
  collection, so a name never depends on which other runs happened to be read with it;
* runs that do not come from files (frames without a path) and share a tag, or files that share both
  a tag and a file name (two folders), are an error saying so.
"""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Sequence

from irscales.data._trec_parse import TrecFormatError

__all__ = ["system_names"]


def file_system_name(path: str) -> str:
    """The system name of a run file: its file name without a trailing ``.gz``."""
    name = Path(path).name
    return name[:-3] if name.endswith(".gz") and len(name) > 3 else name


def system_names(tags: Sequence[str], paths: Sequence[str]) -> list[str]:
    """Names of the systems whose run tags are ``tags``, read from ``paths`` (one per run, in order):
    the tags when they are distinct, else every file's :func:`file_system_name` (module docstring)."""
    counts = Counter(tags)
    shared = {t: n for t, n in counts.items() if n > 1}
    if not shared:
        return list(tags)
    for tag, path in zip(tags, paths):
        if tag in shared and (not path or str(path).startswith("<")):
            raise TrecFormatError(path or None, None, f"run tag {tag!r} is shared by {shared[tag]} runs and this one "
                                  "is not read from a file; give each run its own name")
    names = [file_system_name(p) for p in paths]
    seen: dict[str, str] = {}
    for name, path in zip(names, paths):
        if name in seen:
            raise TrecFormatError(path, None, f"runs share run tags and are therefore named by file, but this file "
                                  f"and {seen[name]} are both named {name!r}; rename one of them")
        seen[name] = path
    listed = ", ".join(f"{t!r} ×{n}" for t, n in sorted(shared.items(), key=lambda x: (-x[1], x[0])))
    warnings.warn(f"{sum(shared.values())} run files share run tags ({listed}): every system is named by its file "
                  f"(e.g. {names[tags.index(next(iter(shared)))]!r}), not by its tag", stacklevel=2)
    return names
