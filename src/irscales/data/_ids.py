"""Topic and document ids: one reading for every input route (issue 47).

Files, frames, nested dicts, ranx, ir_datasets and ir_measures objects, PyTerrier frames and the ir_measures
provider read their ids here, so an id means the same topic (or document) whichever way it came:

* an id is a string or an integer (Python's or numpy's; a pandas categorical column holds either). Anything
  else (a float, a bool, None, NaN, bytes) is refused where it is read, naming its row;
* a string is the id as written. TREC files hold only strings, and trec_eval compares them byte by byte
  (``strcmp``): ``'01'`` and ``'1'`` written in files are two topics, as there;
* an integer is its decimal digits: ``101``, ``np.int64(101)``, a category ``101`` and ``'101'`` are one topic;
* an integer and a string that spells an integer otherwise (``1`` and ``'01'``, ``'+1'``, ``'-0'``) cannot be
  matched — is ``'01'`` the integer 1 or a topic of its own? Wherever integer ids meet such a string (in one
  column, or the qrels against the runs) the reading stops with an error naming both, never two topics or an
  unjudged document in silence.

Frames record what their columns held (:data:`KINDS`, in ``attrs``), so the check runs where qrels and runs
meet (:func:`check_spellings`) without reading the ids again.
"""

from __future__ import annotations

import re
from numbers import Integral
from typing import Any, Iterable, Sequence

import numpy as np

from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)

__all__ = ["KINDS", "is_id", "id_text", "odd_spelling", "id_strings", "kind_of", "check_column", "check_spellings",
           "check_texts", "id_representatives"]

#: The ``attrs`` key of a frame's id kinds: ``{"topic": "string" | "integer" | "mixed", "docno": …}``; a frame
#: without it (read from a file) holds strings.
KINDS = "id_kinds"

_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_WORDS = {"topic": "query id", "docno": "document id"}


def is_id(v: Any) -> bool:
    """A string or an integer (Python or numpy), not a bool: 401.0 would be the id '401.0'."""
    return isinstance(v, str) or (isinstance(v, (Integral, np.integer)) and not isinstance(v, (bool, np.bool_)))


def id_text(v: Any) -> str:
    """The id as the string every route compares: a string as written, an integer as its decimal digits
    (``np.int64(101)`` → ``'101'``). ``v`` is an id (:func:`is_id`)."""
    return str(v) if isinstance(v, str) else str(int(v))


def odd_spelling(s: str) -> bool:
    """Whether ``s`` reads as an integer but is not how that integer is written (``'01'``, ``'+1'``, ``'-0'``)."""
    return bool(_INTEGER.fullmatch(s)) and str(int(s)) != s


def id_strings(values: np.ndarray) -> tuple[np.ndarray, str]:
    """Ids (an object array of strings and integers, each :func:`is_id`) as strings (:func:`id_text`), and
    what they were: ``"string"``, ``"integer"`` or ``"mixed"``."""
    kind = pd.api.types.infer_dtype(values, skipna=False)
    if kind in ("string", "integer"):  # str() is id_text on either, without a Python loop
        return pd.Series(values, dtype=object).astype(str).to_numpy(dtype=object), kind
    texts = np.array([id_text(v) for v in values], dtype=object)
    has_int = any(not isinstance(v, str) for v in values)
    has_str = any(isinstance(v, str) for v in values)
    return texts, ("mixed" if has_int and has_str else "integer" if has_int else "string")


def kind_of(frame: pd.DataFrame, col: str) -> str:
    """What ``frame``'s column ``col`` held (:data:`KINDS`); a frame read from a file holds strings."""
    return frame.attrs.get(KINDS, {}).get(col, "string")


def check_column(values: np.ndarray, texts: np.ndarray, kind: str, where) -> None:
    """In one column of ``kind`` ``"mixed"``, refuse a string that spells an integer otherwise (``'01'`` beside
    integers); ``where(row)`` names a row for the error."""
    if kind != "mixed":
        return
    for i, v in enumerate(values):
        if isinstance(v, str) and odd_spelling(v):
            example = next(x for x in values if not isinstance(x, str))
            raise ValueError(f"{where(i)}: {v!r} is a string that spells the integer {int(v)} otherwise, beside "
                             f"integer ids (e.g. {int(example)}) in the same column: the two cannot be matched; "
                             "give every id as a string or every id as an integer")


def check_spellings(frames: Sequence[pd.DataFrame], cols: Iterable[str] = ("topic", "docno")) -> None:
    """Refuse ids that integer ids of another input cannot be matched with: where some frame's column holds
    integers, no other frame's column may hold a string spelling an integer otherwise (``'01'`` against 1).
    Frames name themselves by ``attrs['path']`` (the qrels) or ``attrs['system']`` (a run)."""
    for col in cols:
        ints = next((f for f in frames if kind_of(f, col) != "string"), None)
        if ints is None:
            continue
        example = next((x for x in ints[col] if _INTEGER.fullmatch(x)), "")  # one of its integers, as digits
        for f in frames:
            if kind_of(f, col) == "string":  # integers are written one way; a mixed column was checked when read
                check_texts(pd.unique(f[col].to_numpy(dtype=object)), col, _name(f), _name(ints), example)


def check_texts(texts: Iterable[str], col: str, where: str, integers: str, example: str = "") -> None:
    """Refuse a string id (``col``: ``"topic"`` or ``"docno"``) of ``where`` that spells an integer otherwise,
    when ``integers`` (an input's name) gives those ids as integers (``example``: one of them)."""
    odd = next((s for s in texts if odd_spelling(s)), None)
    if odd is not None:
        eg = f" (e.g. {example})" if example else ""
        raise ValueError(f"{where}: {_WORDS[col]} {odd!r} spells the integer {int(odd)} otherwise, and {integers} "
                         f"gives its {_WORDS[col]}s as integers{eg}: the two cannot be matched; give the ids of every "
                         "input as strings, or every one as integers")


def _name(frame: pd.DataFrame) -> str:
    system = frame.attrs.get("system")
    return f"run {system!r}" if system is not None else str(frame.attrs.get("path", "<qrels>"))


def id_representatives(values: Iterable[Any], what: str) -> dict[str, Any]:
    """``{id_text(v): v}`` with the first value given for each id: the id as its caller wrote it, for outputs
    that must name it so (ir_measures matches query ids by ``==``). Two values of different types that are one
    id here (``101`` and ``'101'``) are refused: the caller would count them as two."""
    out: dict[str, Any] = {}
    for v in values:
        if not is_id(v):
            raise ValueError(f"{what}: {v!r} ({type(v).__name__}) is not an id; expected a string or an integer")
        first = out.setdefault(id_text(v), v)
        if isinstance(first, str) != isinstance(v, str):
            raise ValueError(f"{what}: {first!r} and {v!r} are one topic here ({id_text(v)!r}) but two for "
                             "ir_measures, which compares query ids by value; give the query ids one type")
    return out
