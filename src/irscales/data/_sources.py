"""What runs and qrels given as files may be (:func:`irscales.evaluation.load_collection`): a path, or a list of
paths; anything else — a numpy array, a number, a list mixing frames and files — is refused with one line that
says what is accepted (issue 37), instead of pathlib's TypeError. Runs and qrels held in memory are read by
:mod:`irscales.data._frames`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["RUNS_ACCEPTED", "run_source", "qrels_source"]


#: What ``runs`` may be, for the error that refuses anything else.
RUNS_ACCEPTED = ("a run file, a folder of runs or a list of files; a frame (query_id, doc_id, score [, run]); "
                 "a list of frames each naming its runs; {query_id: {doc_id: score}}; or {name: frame or dict}")


def run_source(runs: Any) -> Any:
    """Runs given as files: a path, or a list of paths (one folder: its files)."""
    if isinstance(runs, (str, os.PathLike)):
        return runs
    if not isinstance(runs, (list, tuple)) or not runs:
        got = "an empty list" if isinstance(runs, (list, tuple)) else type(runs).__name__
        raise ValueError(f"runs: expected {RUNS_ACCEPTED}; got {got}")
    bad = next((r for r in runs if not isinstance(r, (str, os.PathLike))), None)
    if bad is not None:
        raise ValueError(f"runs: a list of runs holds files (paths), got a {type(bad).__name__}; expected "
                         f"{RUNS_ACCEPTED}")
    files = [Path(r) for r in runs]
    return files[0] if len(files) == 1 and files[0].is_dir() else files


def qrels_source(qrels: Any) -> Any:
    """Qrels given as a file: a path (a frame or a dict is read by :func:`irscales.data._frames.qrels_frame`)."""
    if not isinstance(qrels, (str, os.PathLike)):
        raise ValueError(f"qrels: expected a qrels file, a frame (query_id, doc_id, relevance) or "
                         f"{{query_id: {{doc_id: grade}}}}; got {type(qrels).__name__}")
    return qrels
