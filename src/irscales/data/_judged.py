"""How far the judgments reach into the runs: judged@k (issue 36 item 5), as ir_measures defines ``Judged@k``
(issue 47 item 4).

Unjudged documents count as not relevant (trec_eval's convention, FFF21 §5.1), so where a run's top k holds
many documents the qrels never judged, its scores are lower bounds and comparisons involving it are less
reliable (a pool of depth 10 judges ranks 11.. only where another pooled run had the document in its top 10).

**Definition** (ir_measures' judged provider, ``Judged@k``: the judged documents of the top k divided by
min(k, L)). judged@k of a run on a topic is the fraction of its first min(k, L) documents (L: the documents it
retrieved for the topic) that appear in the topic's qrels, whatever their grade (0 included). A rank the run
does not have is neither judged nor unjudged: it does not count, so a run is never better judged for being
short (the padding of FFF21 §5.1 is for the measures, not for this count). A topic where the run retrieved
nothing has judged@k 0 (ir_measures' default for a topic of the qrels the run lacks, as every measure is 0
there, trec_eval -c), and a system's judged@k is its mean over the topics. :func:`judged_at` reads it from a
collection read from
runs (:attr:`Collection.judged`, counted in the same pass as the grades); the *judged indicator*, a
:class:`Collection` read with every judged document at grade 1 (:func:`indicator_qrels`, ``rel > 0`` marks a
judged document), gives it at any k (:func:`judged_fraction`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

from irscales.options import DEFAULT_JUDGED_THRESHOLD  # re-exported: a warning below this judged@k (home: options)

if TYPE_CHECKING:  # the command line reads this module's constants without loading the data layer or pandas
    import pandas as pd

    from irscales.data.collection import Collection

__all__ = ["DEFAULT_JUDGED_THRESHOLD", "JUDGED_CONVENTION", "indicator_qrels", "judged_fraction", "judged_at",
           "below_threshold", "judged_warning"]

_NAMED = 5  # systems named in a warning; the rest are counted

#: The convention in a few words, for every legend and help text that reports judged@N.
JUDGED_CONVENTION = ("ir_measures' Judged@k: judged documents among a run's top min(k, its length), over that "
                     "number; ranks a short run does not have do not count")


def indicator_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """Qrels (``topic, docno, rel``) with every judged document at grade 1: read with the runs, ``rel`` is then
    the judged indicator."""
    return qrels.assign(rel=1)


def judged_fraction(indicator: Collection, k: int) -> np.ndarray:
    """judged@k of every (system, topic) run, shape (S, T), from the judged indicator (module docstring):
    judged documents among the first min(k, L) ranks over min(k, L); 0 where the run retrieved nothing."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    ind = indicator.rel_at(k, pad=False) > 0  # (S, T, min(k, stored ranks)): the stored ranks only
    return _fraction(ind.sum(axis=2), np.minimum(indicator.run_lengths, k))


def judged_at(col: Collection, k: int | None = None) -> np.ndarray:
    """judged@k, shape (S, T), of a collection read from runs (:attr:`Collection.judged`, counted in the reading
    at its depth N); ``k`` (default N) must leave every run's top min(k, L) as read: k >= N, or k at least the
    longest run."""
    if col.judged is None:
        raise ValueError("judged@N is not known for this collection: it was not read from runs and qrels")
    k = col.depth if k is None else int(k)
    if k < col.depth and k < int(col.run_lengths.max(initial=0)):
        raise ValueError(f"judged@{k}: the judged documents were counted in the top {col.depth} ranks; read the "
                         f"runs at depth {k}")
    return _fraction(col.judged, np.minimum(col.run_lengths, k))


def _fraction(judged: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    return judged / np.maximum(ranks, 1)  # no rank: no judged document, 0


def below_threshold(per_system: pd.Series, threshold: float) -> pd.Series:
    """The systems whose judged@k is below ``threshold``, lowest first."""
    return per_system[per_system < threshold].sort_values(kind="stable")


def judged_warning(per_system: Mapping[str, float] | pd.Series, k: int, threshold: float) -> str:
    """'' or one line naming (at most five of) the systems below ``threshold`` judged@k, lowest first (ties in
    the given order, as :func:`below_threshold`); ``per_system``: judged@k by system (a mapping or a Series)."""
    low = sorted((v, i, s) for i, (s, v) in enumerate(per_system.items()) if v < threshold)
    if not low:
        return ""
    named = ", ".join(f"{s} {v:.3f}" for v, _, s in low[:_NAMED])
    more = f" and {len(low) - _NAMED} more" if len(low) > _NAMED else ""
    return (f"judged@{k}: {len(low)} of {len(per_system)} systems have fewer than {threshold:.0%} of their top {k} "
            f"documents judged ({named}{more}); unjudged documents count as not relevant, so their scores are "
            "lower bounds")
