"""The tidy frame of an :class:`~irscales.evaluation.Evaluation`: one row per (system, topic, measure), with
its interval-scaled values and, when asked, exact φ and K as a table shows them."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

import numpy as np

from irscales.data.collection import Collection
from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)
from irscales.measures import Measure

if TYPE_CHECKING:
    from irscales.interval import IntervalValues

__all__ = ["shown_phi", "tidy_frame"]


def shown_phi(phi: np.ndarray) -> np.ndarray:
    """Exact φ as a table shows it: Python ints, and the halves of ties ``mid`` as exact Decimals (35.5)."""
    def one(x):
        if isinstance(x, Fraction) and x.denominator != 1:
            return Decimal(x.numerator) / Decimal(x.denominator)  # a half: a finite decimal, exact at this precision
        return int(x)
    with localcontext() as ctx:
        ctx.prec = 100_000
        return np.vectorize(one, otypes=[object])(phi)


def tidy_frame(col: Collection, specs: Sequence[tuple[str, Measure]], values: dict[str, np.ndarray],
               ivals: dict[str, IntervalValues], ranked: bool, phi: bool) -> pd.DataFrame:
    """One row per (system, topic, measure): ``value``; with ``ranked`` ``interval`` (nearest double), with
    ``phi`` also exact ``phi`` and ``K``."""
    S, T = len(col.systems), len(col.topics)
    parts = []
    for lab, _ in specs:
        v = values[lab]  # (T, S)
        part = {"system": np.repeat(np.array(col.systems, dtype=object), T),
                "topic": np.tile(np.array(col.topics, dtype=object), S),
                "measure": np.full(S * T, lab, dtype=object), "value": v.T.reshape(-1)}
        if ranked:
            iv = ivals.get(lab)
            part["interval"] = iv.unit_float().T.reshape(-1) if iv is not None else np.full(S * T, np.nan)
            if phi:
                part["phi"] = (shown_phi(iv.phi).T.reshape(-1) if iv is not None else np.full(S * T, None, dtype=object))
                part["K"] = np.full(S * T, iv.plan.K if iv is not None else None, dtype=object)
        parts.append(pd.DataFrame(part))
    return pd.concat(parts, ignore_index=True)

