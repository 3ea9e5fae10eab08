"""MM23 Figs 5–6: one system pair over the topics — the IPSO relation at every depth and the
sign of each metric's score difference, decided exactly.

* :func:`fig5_pair` — "the best Robust run and the 25th percentile run according to Prec@10",
  "1/4 of the way up the triangle's left edge": the best system by mean Prec@10 and the system at
  0-based position round((S − 1)/4) of that order.
* :func:`pair_topics` — the rows of the figures, in the paper's five groups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from irscales.ipso import LABELS, Relation, compare, exact_sign
from irscales.measures import Measure, P
from irscales.papers.mm23.conventions import GROUPS, metric_labels, metrics_at

if TYPE_CHECKING:
    from irscales.data.collection import Collection

__all__ = ["order_by_mean", "fig5_pair", "exact_values", "pair_topics", "mandated_signs"]


def order_by_mean(col: "Collection", measure: Measure, depth: int, topics: Sequence[str] | None = None) -> np.ndarray:
    """System positions by decreasing mean score (exact Fractions for rational measures, so ties
    are true ties), ties kept in collection order."""
    sub = col if topics is None else col.subset(topics=topics)
    if getattr(measure, "rational", False):
        vals = sub.evaluate(measure, depth, exact=True)
        means = [sum(column, Fraction(0)) for column in vals.T]
        keys = sorted(range(len(means)), key=lambda s: (-means[s], s))
        return np.array(keys, dtype=np.int64)
    means = sub.evaluate(measure, depth).mean(0)
    return np.argsort(-means, kind="stable")


def fig5_pair(col: "Collection", depth: int = 10, quantile: float = 0.25) -> tuple[int, int]:
    """MM23 Figs 5–6 pair (system positions): the best system by mean Prec@depth and the one at
    0-based position round(quantile · (S − 1)) of that order (see the module docstring)."""
    order = order_by_mean(col, P(k=depth), depth)
    return int(order[0]), int(order[int(round(quantile * (len(order) - 1)))])


def exact_values(col: "Collection", measure: Measure, depth: int, systems: Sequence[int]) -> np.ndarray:
    """Per-topic scores of two systems in exactly comparable form, one row per system."""
    sub = col.subset(systems=list(systems))
    if getattr(measure, "rational", False):
        return sub.evaluate(measure, depth, exact=True).T
    return sub.evaluate(measure, depth).T


def _exact_diff_sign(x1, x2, same_serp: bool, k: int) -> int:
    """Sign of M(A) − M(B) on one topic, decided exactly (:func:`irscales.ipso.exact_sign`)."""
    if same_serp:  # identical SERPs (and recall base) score identically under any metric
        return 0
    return exact_sign(x1, x2, k)


def pair_topics(col: "Collection", a: int, b: int, depth: int = 10, topics=None,
                metrics: Mapping[str, object] | None = None) -> pd.DataFrame:
    """MM23 Figs 5–6: systems ``a`` (A) and ``b`` (B) (positions) on each topic at ``depth``.

    Columns: topic, SERPs of A and B (bit strings), relation at every depth 1..k (``rel@i``),
    final relation, group (:data:`GROUPS`), the number of ``**`` cells, the length of the leading
    ``=`` zone, and for each metric the difference M(A) − M(B) (float) and its sign (decided
    exactly: Fractions for rational metrics, float NDCG only where far from rounding error).

    Row order (MM23 §3, Fig. 5): the five groups top to bottom; within a group by the number of
    ``**`` cells, then by the length of the leading ``=`` zone. Directions are our reading of
    "wrapping around": the first group has most ``**`` at the top, the last at the bottom; ``ns``
    rows end next to the ``=`` group with their longest ``=`` zones, ``ni`` rows start with them.
    """
    sub = col if topics is None else col.subset(topics=topics)
    bits = sub.binary(depth)
    A, B = bits[a], bits[b]
    r = compare(A, B)
    ms = metrics if metrics is not None else metrics_at(depth)
    labels = metric_labels(depth, generic=True)
    codes = np.stack([r.at(i) for i in range(1, depth + 1)], axis=1)  # (T, k)
    rel = r.relation
    fp, fn = r.first_pos, r.first_neg
    group = np.where(rel == Relation.NS, 1, np.where(rel == Relation.EQUAL, 2, np.where(rel == Relation.NI, 3,
                     np.where(fn < fp, 0, 4))))
    n_nonsep = (codes == Relation.NONSEP).sum(1)
    lead_eq = (codes == Relation.EQUAL).sum(1)
    df = pd.DataFrame({"topic": list(sub.topics),
                       "serp_A": ["".join(map(str, s)) for s in A.tolist()],
                       "serp_B": ["".join(map(str, s)) for s in B.tolist()]})
    for i in range(depth):
        df[f"rel@{i + 1}"] = LABELS[codes[:, i]]
    df["relation"] = LABELS[rel]
    df["group"] = np.array(GROUPS, dtype=object)[group]
    df["n_**"] = n_nonsep
    df["leading_="] = lead_eq
    same = (A == B).all(1)
    for name, m in ms.items():
        label = labels.get(name, name.replace(f"@{depth}", "@k"))
        v = exact_values(sub, m, depth, [a, b])
        df[f"d {label}"] = np.asarray(v[0], float) - np.asarray(v[1], float)
        df[f"sign {label}"] = [_exact_diff_sign(v[0][t], v[1][t], bool(same[t]), depth) for t in range(len(same))]
    # sort keys: group, then ** count, then leading = zone (directions as in the docstring)
    k1 = np.where(group == 0, -n_nonsep, np.where(group == 4, n_nonsep, 0))
    k2 = np.where(group == 1, lead_eq, np.where(group == 3, -lead_eq, np.where(group == 4, -lead_eq, lead_eq)))
    order = np.lexsort((k2, k1, group))
    return df.iloc[order].reset_index(drop=True)



def mandated_signs(frame: pd.DataFrame) -> dict[str, bool]:
    """MM23's central claim on :func:`pair_topics` rows: is every metric difference M(A) − M(B)
    ≥ 0 on ``ni`` topics, ≤ 0 on ``ns`` topics and = 0 on ``=`` topics? Keyed ``"ni >= 0"`` …"""
    signs = frame[[c for c in frame.columns if c.startswith("sign ")]]
    out = {}
    for rel, need, ok in (("ni", ">= 0", lambda s: s >= 0), ("ns", "<= 0", lambda s: s <= 0),
                          ("=", "== 0", lambda s: s == 0)):
        out[f"{rel} {need}"] = bool(ok(signs[frame["relation"] == rel]).all().all())
    return out
