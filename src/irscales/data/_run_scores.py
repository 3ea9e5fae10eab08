"""Per-topic score tables of submitted runs: score matrices without rankings (issue 29).

Some tracks publish only the evaluation of their runs, not the runs: a CSV per measure with one
column per run and one row per topic, posted in anonymised form (columns ``run1`` … ``runK``)
together with a key. The layout read here is that of ``julian-urbano/sigir2019-statistical`` and
``…-standardization`` (the folder of the ``IRSCALES_SCORES`` setting, see :mod:`irscales.paths`)::

    <folder>/<name>_<measure>.csv.gz   header run1,run2,…; one row of scores per topic
    <folder>/<name>_columns.txt        "<column><TAB><run tag>" per line
    <folder>/<name>_rows.txt           one topic id per line, in row order

:func:`read_run_scores` returns a ``topics × runs`` DataFrame labelled with the real topic ids and
run tags. Score matrices feed the analyses that need no rankings (Fer17 Table 1's original-systems
side of T07: AP and P@10), never interval scales or IPSO.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

__all__ = ["RunScoresError", "read_run_scores"]


class RunScoresError(ValueError):
    """A score table whose files disagree or do not follow the layout of the module docstring."""


def _lines(path: Path) -> list[str]:
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing (expected beside the score tables)")
    return [ln.rstrip("\r\n") for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


def read_run_scores(folder: str | Path, name: str, measure: str) -> pd.DataFrame:
    """The ``topics × runs`` scores of ``<folder>/<name>_<measure>.csv.gz`` (e.g. ``T07-adhoc``,
    ``adhoc7``, ``ap``), columns renamed to run tags by ``<name>_columns.txt`` and rows to topics by
    ``<name>_rows.txt``. Every column must be named in the key and every row have a topic; a
    missing or non-numeric score is an error naming the file, line and column."""
    folder = Path(folder)
    path = folder / f"{name}_{measure}.csv.gz"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such score table")
    key = {}
    for k, ln in enumerate(_lines(folder / f"{name}_columns.txt"), start=1):
        parts = ln.split("\t")
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise RunScoresError(f"{folder / f'{name}_columns.txt'}:{k}: expected '<column><TAB><run tag>', got {ln!r}")
        key[parts[0].strip()] = parts[1].strip()
    topics = [t.strip() for t in _lines(folder / f"{name}_rows.txt")]
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    unknown = [c for c in frame.columns if c not in key]
    if unknown:
        raise RunScoresError(f"{path}:1: column(s) {', '.join(unknown[:5])} not in {name}_columns.txt")
    if len(frame) != len(topics):
        raise RunScoresError(f"{path}: {len(frame)} rows of scores but {len(topics)} topics in {name}_rows.txt")
    values = frame.apply(pd.to_numeric, errors="coerce")
    bad = values.isna() & (frame != "nan")
    if bad.any().any():
        r, c = next((r, c) for c in frame.columns for r in range(len(frame)) if bad.iloc[r][c])
        raise RunScoresError(f"{path}:{r + 2}: column {c}: expected a number, got {frame.iloc[r][c]!r}")
    values.columns = pd.Index([key[c] for c in frame.columns], name="run")
    values.index = pd.Index(topics, name="topic")
    if values.columns.duplicated().any():
        raise RunScoresError(f"{folder / f'{name}_columns.txt'}: two columns map to the same run tag")
    return values
