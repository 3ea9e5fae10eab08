"""Run files that list a document twice for a topic: copies without the repeated lines (issue 30).

trec_eval refuses a run holding one document twice for a topic ("duplicate docs"), and so does
:func:`irscales.data.trec.read_trec` (``path:line: duplicate document``). Some real submissions do it:
nine of the 24 public CLEF eHealth 2018 runs repeat 750–1,224 lines each, every repeat the same
(topic, document, score) as an earlier line. Such a repeat carries no information, and evaluators that
read runs into dictionaries (pytrec_eval, ranx, ir_measures) collapse it silently. Here it is an
explicit step instead: :func:`without_repeats` gives the list of files to read, in which every file
with repeats is replaced by a copy without them (the first line of each (topic, document) is kept;
the document then takes the rank of that line and the documents below move up one rank), together
with a table of what was dropped. A repeat with a *different* score is an error naming both lines:
which rank the document takes would then be a guess.

Copies are written once under ``<IRSCALES_CACHE>/runs-without-repeats/<SHA-256 of the file's
bytes>/`` with the original file name (so systems named by file keep their names,
:mod:`irscales.data.run_names`), gzipped when the original was; what the scan of a file found is kept
beside them (``<SHA-256>.json``), so a file is scanned once.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Iterable, Sequence

from irscales._atomic import write_atomic
from irscales.data._trec_parse import TrecFormatError, read_bytes
from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)
from irscales.paths import cache_dir

__all__ = ["without_repeats"]


def repeated_lines(path: str | os.PathLike, data: bytes | None = None) -> tuple[list[int], int]:
    """The 0-based line indices of ``path`` (its bytes ``data``) that repeat the (topic, document) of an
    earlier line with the same score, and the number of topics holding such a repeat. Lines with fewer
    than 6 fields are left to the reader (which names them). Raises :class:`TrecFormatError` when a
    repeat has a different score."""
    data = read_bytes(Path(path)) if data is None else data
    seen: dict[tuple[bytes, bytes], tuple[int, bytes]] = {}
    drop, topics = [], set()
    for i, line in enumerate(data.split(b"\n")):
        f = line.split()
        if len(f) < 6:
            continue
        key = (f[0], f[2])
        if key not in seen:
            seen[key] = (i, f[4])
            continue
        first, score = seen[key]
        if score != f[4] and _number(score) != _number(f[4]):
            raise TrecFormatError(path, i + 1, f"document {f[2].decode(errors='replace')!r} is listed again for topic "
                                  f"{f[0].decode(errors='replace')!r} with another score (first at line {first + 1}, "
                                  f"score {score.decode(errors='replace')}): its rank would be a guess")
        drop.append(i)
        topics.add(f[0])
    return drop, len(topics)


def _number(token: bytes) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def without_repeats(files: Iterable[str | os.PathLike], folder: str | os.PathLike | None = None) \
        -> tuple[list[Path], pd.DataFrame]:
    """The run files to read: each file of ``files`` as it is, or, when it repeats a (topic, document,
    score) line, its copy without the repeats (module docstring) in ``folder`` (default: the cache).
    Also a table with one row per file: ``file``, ``repeats_dropped``, ``topics_with_repeats``, ``read_from``."""
    base = Path(folder) if folder is not None else cache_dir() / "runs-without-repeats"
    out, rows = [], []
    for f in map(Path, files):
        data = read_bytes(f)
        key = hashlib.sha256(data).hexdigest()
        target, found = base / key / f.name, _scanned(base / f"{key}.json")
        if found is None or (found[0] and not target.exists()):
            drop, topics = repeated_lines(f, data)
            if drop:
                _write_without(target, data, drop, gz=_is_gzip(f))
            found = (len(drop), topics)
            _remember(base / f"{key}.json", found)
        target = target if found[0] else f
        out.append(target)
        rows.append({"file": f.name, "repeats_dropped": found[0], "topics_with_repeats": found[1],
                     "read_from": str(target)})
    return out, pd.DataFrame(rows, columns=["file", "repeats_dropped", "topics_with_repeats", "read_from"])


def _scanned(record: Path) -> tuple[int, int] | None:
    """(repeats dropped, topics with repeats) of a file scanned before (its record, by the SHA-256 of its
    bytes), or None."""
    try:
        r = json.loads(record.read_text())
        return int(r["repeats_dropped"]), int(r["topics_with_repeats"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember(record: Path, found: tuple[int, int]) -> None:
    """Keep what a scan found (a failed write only costs a scan next time)."""
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(record, json.dumps({"repeats_dropped": found[0], "topics_with_repeats": found[1]}))
    except OSError:
        pass


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _write_without(target: Path, data: bytes, drop: Sequence[int], gz: bool) -> None:
    """Write ``data`` without the lines ``drop`` to ``target`` atomically (deterministic gzip bytes)."""
    skip = set(drop)
    kept = b"\n".join(line for i, line in enumerate(data.split(b"\n")) if i not in skip)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, kept, gzip=gz)
