"""Tables in a total order, so that a table written twice from the same rows is the same bytes.

A sort on one value column leaves rows with equal values in whatever order they arrived (and pandas'
default quicksort does not even keep that), so a report rebuilt from the same numbers in another row order
would print tied rows differently — and, when it cuts at k rows, show a different row at the cut.
:func:`in_order` sorts by the value, then by the row's labels, stably; :func:`top_rows` also cuts at k rows
and says how many more rows tie with the last one shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import pandas as pd

__all__ = ["top_rows", "in_order"]


def in_order(frame: pd.DataFrame, by: str | Sequence[str] = (), labels: Sequence[str] | None = None, *,
             ascending: bool = True, orders: Mapping[str, Sequence] | None = None) -> pd.DataFrame:
    """``frame`` sorted by ``by`` (descending with ``ascending=False``), then by ``labels`` ascending (default:
    every other column), with a stable sort; the index is reset. A label column named in ``orders`` follows
    that sequence (a paper's measure order; values it does not list come after, as text); other label columns
    compare as numbers when numeric, else as text."""
    by = [by] if isinstance(by, str) else list(by)
    labels = [c for c in frame.columns if c not in by] if labels is None else list(labels)
    missing = [c for c in by + labels if c not in frame.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} to order by; columns: {', '.join(map(str, frame.columns))}")
    orders = orders or {}
    keyed = frame.assign(**{f"__label_{i}": _label_key(frame[c], orders.get(c)) for i, c in enumerate(labels)})
    keys = by + [f"__label_{i}" for i in range(len(labels))]
    if not keys:
        return frame.reset_index(drop=True)
    out = keyed.sort_values(keys, ascending=[ascending] * len(by) + [True] * len(labels), kind="mergesort",
                            na_position="last")
    return out.drop(columns=keys[len(by):]).reset_index(drop=True)


def _label_key(col: pd.Series, order: Sequence | None = None) -> pd.Series:
    """Numbers as numbers (5 before 10); anything else as text, so a column mixing types still has one order;
    with ``order``, the position in it first (as zero-padded text, so that one key column stays one type)."""
    if order is not None:
        pos = {str(v): i for i, v in enumerate(order)}
        width = len(str(len(pos)))
        return col.astype(str).map(lambda v: f"{pos[v]:0{width}d}" if v in pos else f"{len(pos):0{width}d} {v}")
    return col if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col) else col.astype(str)


@dataclass(frozen=True)
class TopRows:
    """The first ``k`` rows of a table in total order (``frame``) and how many further rows have the same
    value as the last one shown (``more_tied``: 0 when the cut separates distinct values)."""

    frame: pd.DataFrame
    more_tied: int

    def note(self) -> str:
        """'' or a clause saying how many more rows tie at the cut."""
        if not self.more_tied:
            return ""
        return (f"{self.more_tied} more row{'s tie' if self.more_tied > 1 else ' ties'} with the last one shown "
                "(not shown)")


def top_rows(frame: pd.DataFrame, by: str, k: int, labels: Sequence[str] | None = None, *,
             ascending: bool = False) -> TopRows:
    """The ``k`` rows with the largest ``by`` (smallest with ``ascending=True``), ties broken by ``labels``
    (:func:`in_order`), and the number of rows beyond the cut that tie with the k-th."""
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    ordered = in_order(frame, by, labels, ascending=ascending)
    shown = ordered.iloc[:k]
    if k == 0 or len(ordered) <= k:
        return TopRows(shown, 0)
    last = ordered[by].iloc[k - 1]
    rest = ordered[by].iloc[k:]
    tied = int((rest == last).sum()) if pd.notna(last) else int(rest.isna().sum())
    return TopRows(shown, tied)
