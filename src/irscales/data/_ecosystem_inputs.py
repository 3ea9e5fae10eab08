"""Runs and qrels as the IR ecosystem holds them, read into the frames and dicts :mod:`irscales.data._frames`
reads (issue 41), so that they take the very path files take afterwards.

Recognised, next to files, frames and nested dicts (which pass through unchanged):

* ranx ``Qrels`` and ``Run`` objects (a run keeps its ``name``), lists of ``Run`` and ``{name: Run}``;
* iterables or iterators of namedtuples with the fields ``query_id, doc_id, relevance`` (qrels: ir_measures'
  ``Qrel``, ir_datasets' ``TrecQrel``, whose ``iteration`` is ignored) or ``query_id, doc_id, score`` (one
  run: ir_measures' ``ScoredDoc``, ``ir_measures.read_trec_run``), and ``{name: [ScoredDoc, …]}`` for several;
* an ir_datasets dataset (anything with ``qrels_iter()``) for qrels.

PyTerrier's result frames (``qid, docno, score``) and qrels frames (``qid, docno, label``) are frames:
:mod:`irscales.data._frames` reads their columns. Every id of every route is read by :mod:`irscales.data._ids`. No ecosystem package is imported here: objects are known by
their module and fields, so irscales imports without ranx, ir_datasets or ir_measures.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from irscales._lazy_modules import is_frame, pandas as pd  # imported on first use (issue 49)

__all__ = ["ecosystem_qrels", "ecosystem_runs"]

_QREL_FIELDS = ("query_id", "doc_id", "relevance")
_RUN_FIELDS = ("query_id", "doc_id", "score")


def _is_ranx(x: Any, cls: str) -> bool:
    return type(x).__name__ == cls and type(x).__module__.split(".")[0] == "ranx"


def _ranx_dict(x: Any) -> dict:
    """A ranx object's ``{query_id: {doc_id: value}}`` as plain dicts (ranx holds numba typed dicts); the ids are
    read with every other route's (:mod:`irscales.data._ids`)."""
    return {q: dict(docs) for q, docs in x.to_dict().items()}


def _peek(x: Any) -> tuple[Any, Iterable | None]:
    """The first item of a list, tuple or iterator, and the items again (an iterator, consumed by peeking, is
    chained back); (None, None) for anything else or when empty."""
    if isinstance(x, (list, tuple)):  # a sequence is read twice without harm
        return (x[0], x) if len(x) else (None, None)
    if not isinstance(x, Iterator):  # arrays, strings, frames: not ours to read (their own errors follow)
        return None, None
    it = x
    try:
        first = next(it)
    except StopIteration:
        return None, None
    return first, itertools.chain([first], it)


def _tuples_frame(items: Iterable, fields: tuple[str, ...], what: str) -> pd.DataFrame:
    rows = []
    for i, t in enumerate(items):
        if not all(hasattr(t, f) for f in fields):
            raise ValueError(f"{what}: item {i} is {type(t).__name__}; expected namedtuples with the fields "
                             f"{', '.join(fields)}")
        rows.append(tuple(getattr(t, f) for f in fields))
    return pd.DataFrame(rows, columns=list(fields))


def _has_fields(t: Any, fields: tuple[str, ...]) -> bool:
    return hasattr(t, "_fields") and all(f in t._fields for f in fields)


def _scored_docs(r: Any) -> bool:
    """Whether ``r`` is a list or tuple of ScoredDoc namedtuples (an iterator is read by :func:`_named_run`)."""
    return isinstance(r, Iterator) or (isinstance(r, (list, tuple)) and len(r) > 0 and _has_fields(r[0], _RUN_FIELDS))


def _named_run(name: Any, r: Any) -> Any:
    """One run of ``{name: run}``: ScoredDoc namedtuples (a list, tuple or iterator) as a frame; anything else as
    given (a frame or a nested dict; frames.run_frames says what else it refuses)."""
    first, items = _peek(r)
    if items is None or not _has_fields(first, _RUN_FIELDS):
        return r if not isinstance(r, Iterator) else list(items or [])
    return _tuples_frame(items, _RUN_FIELDS, f"run {name!r}")


def ecosystem_qrels(qrels: Any) -> Any:
    """Qrels from ranx (``Qrels``), ir_datasets (a dataset, or its ``qrels_iter()``) or ir_measures (``Qrel``
    namedtuples) as a frame ``query_id, doc_id, relevance`` or nested dict; anything else unchanged."""
    if _is_ranx(qrels, "Qrels"):
        return _ranx_dict(qrels)
    if hasattr(qrels, "qrels_iter") and not isinstance(qrels, Mapping) and not is_frame(qrels):
        qrels = qrels.qrels_iter()
    first, items = _peek(qrels)
    if items is None:
        return qrels
    if not _has_fields(first, _QREL_FIELDS):
        if isinstance(first, tuple) and hasattr(first, "_fields"):
            raise ValueError(f"qrels: namedtuples {type(first).__name__}({', '.join(first._fields)}); expected "
                             f"the fields {', '.join(_QREL_FIELDS)} (ir_measures' Qrel, ir_datasets' TrecQrel)")
        return items if isinstance(items, (list, tuple)) else list(items)
    return _tuples_frame(items, _QREL_FIELDS, "qrels")


def ecosystem_runs(runs: Any) -> Any:
    """Runs from ranx (a ``Run`` or a list of them; each keeps its ``name``) or ir_measures (``ScoredDoc``
    namedtuples: one run) as ``{name: nested dict}`` or a frame ``query_id, doc_id, score``; anything else
    (files, frames, dicts, lists of files) unchanged."""
    if _is_ranx(runs, "Run"):
        return {runs.name or "run": _ranx_dict(runs)}
    if isinstance(runs, Mapping) and any(_is_ranx(r, "Run") or _scored_docs(r) for r in runs.values()):
        return {name: _ranx_dict(r) if _is_ranx(r, "Run") else _named_run(name, r) for name, r in runs.items()}
    first, items = _peek(runs)
    if items is None:
        return runs
    if _is_ranx(first, "Run"):
        out: dict[str, dict] = {}
        for i, r in enumerate(items):
            if not _is_ranx(r, "Run"):
                raise ValueError(f"runs: item {i} is {type(r).__name__}; a list of ranx runs holds only ranx.Run")
            name = r.name or f"run{i + 1}"
            if name in out:
                raise ValueError(f"two runs are named {name!r}; give each ranx.Run its own name")
            out[name] = _ranx_dict(r)
        return out
    if _has_fields(first, _RUN_FIELDS):
        return _tuples_frame(items, _RUN_FIELDS, "runs")
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        raise ValueError(f"runs: namedtuples {type(first).__name__}({', '.join(first._fields)}); expected the "
                         f"fields {', '.join(_RUN_FIELDS)} (ir_measures' ScoredDoc)")
    return items if isinstance(items, (list, tuple)) else list(items)
