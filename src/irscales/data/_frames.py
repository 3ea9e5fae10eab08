"""Runs and qrels held in memory, read into the frames that TREC files become (:mod:`irscales.data.trec`),
so that they take the very same path afterwards: trec_eval's document order, the same reading options,
the same checks and the same one-line errors.

Accepted forms (the ones ir_measures, ranx and pytrec_eval users already have):

* a pandas frame with the ir_measures columns ``query_id, doc_id, score`` (runs) and
  ``query_id, doc_id, relevance`` (qrels), ranx's ``q_id, doc_id, score`` (runs and qrels: ranx calls a
  grade a score) or TREC's own names ``topic, docno, score`` / ``topic, docno, rel``. A run frame with a
  ``run`` (or ``system``) column holds several runs, one per value;
* pytrec_eval-style nested dicts ``{query_id: {doc_id: score}}`` (one run) and
  ``{query_id: {doc_id: grade}}`` (qrels);
* a mapping ``{run name: frame or nested dict}`` for several runs;
* a list of run frames, each naming its runs: a ``run`` column, or ``attrs['system']`` (what
  :func:`irscales.data.trec.read_run` sets). A frame without a name is refused: runs are told apart by name.

Every column is checked before it is read: ids and run names are strings or integers (a missing one —
None, NaN — or a float is refused: ``str`` would make it the id ``'nan'``), and two run names that read
as the same string (``1`` and ``"1"``) are refused rather than merged. Ids are read by
:mod:`irscales.data._ids`, as on every other route: an integer (numpy's, a category's) is its digits, so 101 and
``'101'`` are one topic, and ``'01'`` beside integer ids is an error; each frame records what its id columns held
(``attrs['id_kinds']``) for the check where qrels and runs meet. A bad entry is an error that says
where it is (``<runs frame>:row 12: …``, ``<qrels dict>: topic '401', document 'd7': …``), never a
silent drop.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np

from irscales.data._ids import KINDS, check_column, id_strings, is_id
from irscales.data.trec import read_qrels, validated_qrels  # the checks every qrels file gets
from irscales.data._trec_parse import first_duplicate
from irscales._lazy_modules import is_frame, pandas as pd  # imported on first use (issue 49)

__all__ = ["QRELS_COLUMNS", "RUN_COLUMNS", "is_in_memory", "is_frame_list", "qrels_frame", "run_frames"]

#: Column names read as TREC's (topic, docno, rel): ir_measures, ranx (``q_id``, a grade named ``score``), TREC.
QRELS_COLUMNS = {"topic": ("query_id", "q_id", "topic", "qid"), "docno": ("doc_id", "docno", "docid"),
                 "rel": ("relevance", "rel", "grade", "label", "score")}
#: Column names read as TREC's (topic, docno, score); ``system`` splits one frame into several runs.
RUN_COLUMNS = {"topic": ("query_id", "q_id", "topic", "qid"), "docno": ("doc_id", "docno", "docid"),
               "score": ("score",), "system": ("run", "system", "run_id", "name")}


def is_in_memory(x: Any) -> bool:
    """Whether ``x`` is runs or qrels given in memory (a frame, a mapping, a list of frames) rather than files."""
    return is_frame(x) or isinstance(x, Mapping) or is_frame_list(x)


def is_frame_list(x: Any) -> bool:
    """Whether ``x`` is a list or tuple holding at least one frame (a mix with files is refused later)."""
    return isinstance(x, (list, tuple)) and any(is_frame(r) for r in x)


#: What each column holds, for the errors.
_WORDS = {"topic": "a query id", "docno": "a document id", "system": "a run name"}


def _label_ok(v: Any) -> bool:
    """An id or a run name: a string or an integer (:func:`irscales.data._ids.is_id`)."""
    return is_id(v)


def _bad_label(v: Any, name: str, word: str) -> str:
    missing = v is None or (isinstance(v, (float, np.floating)) and v != v) or v is pd.NA or v is pd.NaT
    if missing:
        return f"{name} is missing ({v!r}); expected {word} (a string or an integer)"
    return f"{name} {v!r} ({type(v).__name__}) is not {word}; expected a string or an integer"


def _labels(df: pd.DataFrame, col: str, what: str, nested: bool) -> None:
    """Refuse a missing or non-string, non-integer id or run name, naming its column and row."""
    vals = df[col].to_numpy(dtype=object)
    if pd.api.types.infer_dtype(vals, skipna=False) in ("string", "integer"):
        return  # the common case, without a Python loop over the rows
    for i, v in enumerate(vals):
        if not _label_ok(v):
            raise ValueError(f"{_where(what, df, i, nested)}: {_bad_label(v, _name(df, col), _WORDS[col])}")


def _name(df: pd.DataFrame, col: str) -> str:
    """The user's name of one of our columns (``doc_id`` for ``docno``)."""
    return df.attrs.get("columns", {}).get(col, col)


def _columns(df: pd.DataFrame, names: dict, what: str, optional: tuple[str, ...] = ()) -> dict[str, str]:
    found = {}
    for ours, theirs in names.items():
        hit = next((c for c in theirs if c in df.columns), None)
        if hit is None and ours not in optional:
            raise ValueError(f"{what}: no {ours} column; expected one of {', '.join(theirs)} "
                             f"(columns found: {', '.join(map(str, df.columns)) or 'none'})")
        if hit is not None:
            found[ours] = hit
    return found


def _nested(d: Mapping, what: str, value_name: str) -> pd.DataFrame:
    """``{query_id: {doc_id: value}}`` as a long frame (topic, docno, value)."""
    topics, docnos, values = [], [], []
    for q, docs in d.items():
        if not _label_ok(q):
            raise ValueError(f"{what}: {_bad_label(q, 'a key (query id)', _WORDS['topic'])}")
        if not isinstance(docs, Mapping):
            raise ValueError(f"{what}: topic {q!r} maps to {type(docs).__name__}; expected "
                             f"{{doc_id: {value_name}}} (pytrec_eval's nested dicts)")
        for doc, v in docs.items():
            if not _label_ok(doc):
                raise ValueError(f"{what}: topic {q!r}: {_bad_label(doc, 'a key (document id)', _WORDS['docno'])}")
            topics.append(q)  # read to strings with every other route's ids (_ids)
            docnos.append(doc)
            values.append(v)
    return pd.DataFrame({"topic": pd.Series(topics, dtype=object), "docno": pd.Series(docnos, dtype=object),
                         value_name: pd.Series(values, dtype=object)})


def _where(what: str, df: pd.DataFrame, row: int, nested: bool) -> str:
    if nested:
        return f"{what}: topic {df['topic'].iloc[row]!r}, document {df['docno'].iloc[row]!r}"
    pos = int(df["_pos"].iloc[row]) if "_pos" in df else row
    return f"{what}: row {pos} (iloc)"


def _ids(df: pd.DataFrame, what: str, nested: bool) -> dict[str, str]:
    """The id columns as strings, read by :mod:`irscales.data._ids`; returns what each held (its ``KINDS``)."""
    kinds = {}
    for col in ("topic", "docno"):
        _labels(df, col, what, nested)
        raw = df[col].to_numpy(dtype=object)
        texts, kind = id_strings(raw)
        check_column(raw, texts, kind, lambda row: _where(what, df, row, nested))
        s = pd.Series(texts, index=df.index, dtype=object)
        bad = s.str.contains(r"\s|\x00", regex=True) | (s == "")
        if bad.any():
            row = int(np.argmax(bad.to_numpy()))
            raise ValueError(f"{_where(what, df, row, nested)}: {_name(df, col)} {df[col].iloc[row]!r} is empty or holds "
                             "whitespace or a NUL byte, which a TREC file cannot hold")
        df[col] = texts
        kinds[col] = kind
    return kinds


def _numbers(df: pd.DataFrame, col: str, what: str, nested: bool, integer: bool) -> np.ndarray:
    vals = df[col].to_numpy(dtype=object)
    out = np.empty(len(vals), dtype=np.int64 if integer else float)
    for i, v in enumerate(vals):
        ok = isinstance(v, (Real, np.number)) and not isinstance(v, (bool, np.bool_))
        if ok and integer:
            ok = isinstance(v, (Integral, np.integer)) or float(v).is_integer()
        if ok and not np.isfinite(float(v)):
            ok = False
        if not ok:
            kind = "an integer grade" if integer else "a finite number"
            raise ValueError(f"{_where(what, df, i, nested)}: {_name(df, col)} {v!r} is not {kind}")
        out[i] = int(v) if integer else float(v)
    return out


def qrels_frame(qrels: pd.DataFrame | Mapping | str, *, negative: str = "error",
                max_grade: int | None = None) -> pd.DataFrame:
    """Qrels as :func:`irscales.data.trec.read_qrels` returns them (columns ``topic, docno, rel``,
    checked the same way: integer grades, negative grades per ``negative``, no document judged twice).
    ``qrels``: a frame, a nested dict, or a file path."""
    if not is_in_memory(qrels):
        return read_qrels(qrels, max_grade=max_grade, negative=negative)
    if is_frame_list(qrels):
        raise ValueError("qrels: expected one frame (query_id, doc_id, relevance), got a list of frames; "
                         "concatenate them (pandas.concat)")
    nested = isinstance(qrels, Mapping)
    what = "<qrels dict>" if nested else "<qrels frame>"
    if nested:
        df = _nested(qrels, what, "rel")
    else:
        cols = _columns(qrels, QRELS_COLUMNS, what)
        df = pd.DataFrame({k: qrels[v].to_numpy(dtype=object) for k, v in cols.items()})
        df.attrs["columns"] = cols
    if df.empty:
        raise ValueError(f"{what}: no judgments")
    kinds = _ids(df, what, nested)
    df["rel"] = _numbers(df, "rel", what, nested, integer=True)
    out = validated_qrels(df, what, np.arange(len(df)), max_grade, negative, unit="row")
    out.attrs[KINDS] = kinds  # where the runs meet the qrels, integer ids are matched (ids.check_spellings)
    return out


def _one_run(df: pd.DataFrame, name: str, what: str, nested: bool) -> pd.DataFrame:
    if df.empty:
        raise ValueError(f"{what}: run {name!r} retrieved no document")
    kinds = _ids(df, what, nested)
    out = pd.DataFrame({"topic": df["topic"].to_numpy(dtype=object), "docno": df["docno"].to_numpy(dtype=object),
                        "score": _numbers(df, "score", what, nested, integer=False)})
    if "_pos" in df:
        out["_pos"] = df["_pos"].to_numpy()
    out.attrs["columns"] = df.attrs.get("columns", {})
    t, _ = pd.factorize(out["topic"])
    d, docs = pd.factorize(out["docno"])
    dup = first_duplicate(t, d, len(docs))
    if dup is not None:
        row, first = dup
        raise ValueError(f"{_where(what, out, row, nested)}: document {out['docno'].iloc[row]!r} is retrieved "
                         f"twice for topic {out['topic'].iloc[row]!r}")
    out = out.drop(columns="_pos", errors="ignore")
    out.attrs.update(system=name, path=what, **{KINDS: kinds})
    return out


def _frame_runs(runs: pd.DataFrame, what: str, name: str | None) -> list[pd.DataFrame]:
    cols = _columns(runs, RUN_COLUMNS, what, optional=("system",))
    df = pd.DataFrame({k: runs[v].to_numpy(dtype=object) for k, v in cols.items()})
    df.attrs["columns"] = cols
    df["_pos"] = np.arange(len(df))  # errors name the row of the frame given
    if name is not None or "system" not in df:  # a name given by the mapping wins over a run column
        return [_one_run(df, name or "run", what, False)]
    _labels(df, "system", what, False)
    _distinct_names(pd.unique(df["system"]), f"{what}: {cols['system']} column")
    names = pd.unique(df["system"].astype(str))
    return [_one_run(df[df["system"].astype(str) == n].reset_index(drop=True), str(n), f"{what} run {n!r}", False)
            for n in names]


def _distinct_names(names, where: str) -> None:
    """Refuse two run names that are one string (``1`` and ``"1"``): merged, they would be one run."""
    seen: dict[str, Any] = {}
    for n in names:  # distinct values (pd.unique), so a repeated string is two names
        first = seen.setdefault(str(n), n)
        if first is not n:
            raise ValueError(f"{where}: run names {first!r} and {n!r} are both the run '{n}'; give the runs "
                             "distinct names")


def run_frames(runs: pd.DataFrame | Mapping) -> list[pd.DataFrame]:
    """Runs given in memory as frames like :func:`irscales.data.trec.read_run`'s (``topic, docno,
    score``; ``attrs['system']`` the run's name), one per run, in the order given (a frame's ``run``
    column: in order of first appearance)."""
    if isinstance(runs, pd.DataFrame):
        return _frame_runs(runs, "<runs frame>", None)
    if is_frame_list(runs):
        return _listed_runs(runs)
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError(f"runs: expected a frame, a nested dict or a mapping of run names, got "
                         f"{'an empty mapping' if isinstance(runs, Mapping) else type(runs).__name__}")
    first = next(iter(runs.values()))
    if isinstance(first, Mapping) and all(not isinstance(v, Mapping) for v in first.values()):
        return [_one_run(_nested(runs, "<run dict>", "score"), "run", "<run dict>", True)]  # one run
    out = []
    for name, r in runs.items():
        if not _label_ok(name):
            raise ValueError(f"runs: {_bad_label(name, 'a key (run name)', _WORDS['system'])}")
        what = f"<run {name!r}>"
        if isinstance(r, pd.DataFrame):
            out.extend(_frame_runs(r, what, str(name)))
        elif isinstance(r, Mapping):
            out.append(_one_run(_nested(r, what, "score"), str(name), what, True))
        else:
            raise ValueError(f"run {name!r}: expected a frame or a nested dict {{query_id: {{doc_id: score}}}}, "
                             f"got {type(r).__name__}")
    return out


def _listed_runs(runs: list | tuple) -> list[pd.DataFrame]:
    """A list of frames, each naming its runs (a ``run`` column, or ``attrs['system']``)."""
    out = []
    for i, r in enumerate(runs):
        what = f"<runs[{i}]>"
        if not isinstance(r, pd.DataFrame):
            raise ValueError(f"{what}: a list of runs holds frames or files, not both; got a frame and a "
                             f"{type(r).__name__}")
        has_column = any(c in r.columns for c in RUN_COLUMNS["system"])
        name = None if has_column else r.attrs.get("system")
        if not has_column and not (isinstance(name, str) and name):
            raise ValueError(f"{what}: a frame in a list of runs needs its name: a {RUN_COLUMNS['system'][0]} "
                             "column or attrs['system'] (or pass {name: frame})")
        out.extend(_frame_runs(r, what, name))
    return out
