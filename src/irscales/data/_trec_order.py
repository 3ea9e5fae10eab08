"""Parsed runs in trec_eval's order (issue 2 item 5): within a topic, score descending at the
chosen precision (``score_precision``, issue 15 item 3), then docno descending in byte order
(``strcmp``). See :mod:`irscales.data.trec` for the conventions."""

from __future__ import annotations

import numpy as np

from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)

__all__ = ["SCORE_PRECISIONS", "ParsedRun", "check_precision", "strcmp_ranks", "trec_order", "parsed_frame"]

_FIXED_WIDTH_SORT_BYTES = 2**29  # above this, docnos are sorted as Python strings (see strcmp_ranks)
SCORE_PRECISIONS = ("float32", "float64")


def check_precision(score_precision: str) -> None:
    """Refuse a ``score_precision`` other than ``'float32'`` or ``'float64'``."""
    if score_precision not in SCORE_PRECISIONS:
        raise ValueError(f"score_precision must be 'float32' (trec_eval <= 9, pytrec_eval) or 'float64' "
                         f"(trec_eval >= 10), got {score_precision!r}")


class ParsedRun:
    """One run file in trec_eval's order: rows grouped by topic (``t_code`` into ``topics``), within
    a topic by score descending at the chosen precision, then docno descending (``d_code`` into
    ``docnos``, which are sorted in strcmp order, so a larger code is a larger docno)."""

    __slots__ = ("system", "path", "topics", "docnos", "t_code", "d_code")

    def __init__(self, system, path, topics, docnos, t_code, d_code):
        self.system, self.path = system, path
        self.topics, self.docnos, self.t_code, self.d_code = topics, docnos, t_code, d_code


def strcmp_ranks(names: np.ndarray) -> np.ndarray:
    """Rank of each string in code-point order (= strcmp order of the UTF-8 bytes)."""
    width = max(map(len, names)) if len(names) else 1
    if width * len(names) * 4 <= _FIXED_WIDTH_SORT_BYTES:
        order = np.argsort(np.asarray(names, dtype=str), kind="stable")  # a fixed-width array sorts in C
    else:  # very long docnos (URLs): sort the Python strings rather than allocate > 512 MB
        order = np.argsort(np.asarray(names, dtype=object), kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank


def _descending_score_codes(score: np.ndarray, precision: str) -> tuple[np.ndarray, int]:
    """Integer codes, smaller for higher scores at the given precision (equal scores, including
    -0.0 and +0.0, get equal codes), and the number of possible codes."""
    if precision == "float32":
        bits = (score.astype(np.float32) + np.float32(0.0)).view(np.int32).astype(np.int64)  # -0.0 -> +0.0
        ordered = np.where(bits < 0, -1 - (bits & 0x7FFFFFFF), bits)  # increasing with the float value
        return (2**31 - 1) - ordered, 2**32
    uniq, inv = np.unique(score.astype(np.float64), return_inverse=True)
    return (len(uniq) - 1) - inv.reshape(-1), max(len(uniq), 1)


def trec_order(system: str, path: str, topics: np.ndarray, t: np.ndarray, docnos: np.ndarray,
               d: np.ndarray, score: np.ndarray, precision: str, docnos_sorted: bool = False) -> ParsedRun:
    """The run as a :class:`ParsedRun`: rows sorted by topic code, score descending at
    ``precision``, then docno descending."""
    if docnos_sorted:  # d already ranks the docnos in strcmp order
        sorted_docnos = np.asarray(docnos, dtype=object)
    else:
        drank = strcmp_ranks(docnos)
        sorted_docnos = np.empty(len(docnos), dtype=object)
        sorted_docnos[drank] = docnos
        d = drank[d]
    order = _presorted_order(t, d, score, precision)
    if order is None:
        # (topic, score descending), then docno descending inside groups of equal score: two stable
        # integer sorts, the second on nearly sorted keys (files are usually written in this order)
        codes, width = _descending_score_codes(score, precision)
        key = t * width + codes
        order = np.argsort(key, kind="stable")
        k = key[order]
        group = np.cumsum(np.r_[False, k[1:] != k[:-1]]) if len(k) else k
        nd = max(len(docnos), 1)
        order = order[np.argsort(group * nd + (nd - 1 - d[order]), kind="stable")]
    if isinstance(order, slice):
        t_out, d_out = t, d
    else:
        t_out, d_out = t[order], d[order]
    return ParsedRun(system, path, np.asarray(topics, dtype=object), sorted_docnos,
                     t_out.astype(np.int32), d_out.astype(np.int32))


def _presorted_order(t: np.ndarray, d: np.ndarray, score: np.ndarray, precision: str):
    """The order for a run already grouped by topic code and sorted by score descending (at the
    precision) in file order, as most run files are: ``slice(None)`` when equal scores are also in
    docno descending order, else a sort inside the groups of equal scores only; None when the rows
    are not in that order (the caller sorts them all)."""
    if len(t) < 2:
        return slice(None)
    s = score.astype(np.float32 if precision == "float32" else np.float64)
    step = np.diff(t)
    same = step == 0
    if (step < 0).any() or (same & (s[1:] > s[:-1])).any():
        return None
    tie = same & (s[1:] == s[:-1])  # -0.0 == +0.0, as in the general path
    if not (tie & (d[1:] > d[:-1])).any():
        return slice(None)
    group = np.cumsum(np.r_[0, ~tie])
    nd = int(d.max()) + 1
    return np.argsort(group * nd + (nd - 1 - d), kind="stable")


def parsed_frame(r: pd.DataFrame, i: int, precision: str) -> ParsedRun:
    """A frame from :func:`irscales.data.trec.read_run` (the ``i``-th run given) as a :class:`ParsedRun`."""
    name = str(r.attrs.get("system", f"run{i}"))
    path = str(r.attrs.get("path", f"<run {name}>"))
    t, topics = pd.factorize(r["topic"].astype(str).to_numpy(dtype=object))
    d, docnos = pd.factorize(r["docno"].astype(str).to_numpy(dtype=object))
    return trec_order(name, path, np.asarray(topics, dtype=object), t.astype(np.int64),
                      np.asarray(docnos, dtype=object), d.astype(np.int64), r["score"].to_numpy(float), precision)
