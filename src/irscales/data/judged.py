"""How far the judgments reach into the runs: judged@k (issue 36 item 5).

Unjudged documents count as not relevant (trec_eval's convention, FFF21 §5.1), so where a run's top k holds
many documents the qrels never judged, its scores are lower bounds and comparisons involving it are less
reliable (a pool of depth 10 judges ranks 11.. only where another pooled run had the document in its top 10).

**Definition.** judged@k of a run on a topic is the fraction of ranks 1..k that hold a document appearing in
the topic's qrels, whatever its grade (0 included); a rank past the end of a short run counts as judged: it
holds no document, and padding is a not-relevant non-document (FFF21 §5.1), nothing a judgment could change.
A system's judged@k is its mean over topics. The *judged indicator* is a :class:`Collection` read from the same
runs with every judged document at grade 1 (:func:`indicator_qrels`), so ``rel > 0`` marks a judged document;
its ``rel`` is the same join as the scores' (one reading, one order of documents).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from irscales.options import DEFAULT_JUDGED_THRESHOLD  # re-exported: a warning below this judged@k (home: options)

if TYPE_CHECKING:  # the command line reads the threshold below without loading the data layer
    from irscales.data.collection import Collection

__all__ = ["DEFAULT_JUDGED_THRESHOLD", "indicator_qrels", "judged_fraction", "below_threshold", "judged_warning"]

_NAMED = 5  # systems named in a warning; the rest are counted


def indicator_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """Qrels (``topic, docno, rel``) with every judged document at grade 1: read with the runs, ``rel`` is then
    the judged indicator."""
    return qrels.assign(rel=1)


def judged_fraction(indicator: Collection, k: int) -> np.ndarray:
    """judged@k of every (system, topic) run, shape (S, T), from the judged indicator (module docstring).
    Only the stored ranks are looked at: those beyond hold no document in any run, so they count as judged
    without an (S, T, k) array (k = 10^6 would be gigabytes)."""
    ind = indicator.rel_at(k, pad=False) > 0  # (S, T, L ≤ k)
    L = ind.shape[-1]
    present = np.arange(L)[None, None, :] < np.minimum(indicator.run_lengths, L)[..., None]
    return ((ind | ~present).sum(axis=2) + (k - L)) / k


def below_threshold(per_system: pd.Series, threshold: float) -> pd.Series:
    """The systems whose judged@k is below ``threshold``, lowest first."""
    return per_system[per_system < threshold].sort_values(kind="stable")


def judged_warning(per_system: pd.Series, k: int, threshold: float) -> str:
    """'' or one line naming (at most five of) the systems below ``threshold`` judged@k."""
    low = below_threshold(per_system, threshold)
    if low.empty:
        return ""
    named = ", ".join(f"{s} {v:.3f}" for s, v in low.iloc[:_NAMED].items())
    more = f" and {len(low) - _NAMED} more" if len(low) > _NAMED else ""
    return (f"judged@{k}: {len(low)} of {len(per_system)} systems have fewer than {threshold:.0%} of their top {k} "
            f"documents judged ({named}{more}); unjudged documents count as not relevant, so their scores are "
            "lower bounds")
