"""The table of ``irscales scores`` as columns (issue 49): per (measure, system), a row per topic and the mean
over topics (topic ``all``), each with its interval-scaled value and, with ``phi``, exact φ and K. Columns, not a
frame: the command writes csv and tsv from them without loading pandas (:func:`irscales.cli._output.delimited`)."""

from __future__ import annotations

import numpy as np

from irscales.cli._output import exact_mean
from irscales.correlation import system_means
from irscales.evaluation import Evaluation
from irscales.evaluation._frame import shown_phi

__all__ = ["scores_table", "OBJECT_COLUMNS"]

#: Columns of exact values (integers, decimals, None): kept as Python objects in a frame.
OBJECT_COLUMNS = ("phi", "K")


def scores_table(ev: Evaluation, *, ranked: bool, phi: bool, per_topic: bool) -> dict[str, np.ndarray]:
    """Columns ``system, topic, measure, value`` (with ``ranked`` also ``interval``, with ``phi`` also ``phi``
    and ``K``): measures in their order, systems in theirs, each system's topics (``per_topic``) then its mean
    (``all``). The mean of ``value`` is the float mean over topics, of ``interval`` that of the interval-scaled
    values, of ``phi`` the exact mean (:func:`irscales.cli._output.exact_mean`); NaN / None where a measure has
    no interval-scaled values."""
    S, T = len(ev.systems), len(ev.topics)
    rows = T + 1 if per_topic else 1  # per (measure, system)
    systems = np.repeat(np.array(ev.systems, dtype=object), rows)
    topics = np.tile(np.array([*ev.topics, "all"] if per_topic else ["all"], dtype=object), S)
    cols: dict[str, list[np.ndarray]] = {"system": [], "topic": [], "measure": [], "value": []}
    if ranked:
        cols["interval"] = []
        if phi:
            cols["phi"], cols["K"] = [], []
    for lab in ev.measures:
        cols["system"].append(systems)
        cols["topic"].append(topics)
        cols["measure"].append(np.full(S * rows, lab, dtype=object))
        v = ev.scores(lab)  # (T, S)
        cols["value"].append(_with_means(v, v.mean(axis=0), per_topic, float))
        if not ranked:
            continue
        iv = ev.interval_values(lab) if ev.scales.get(lab) is not None else None
        if iv is None:
            cols["interval"].append(np.full(S * rows, np.nan))
        else:
            cols["interval"].append(_with_means(iv.unit_float(), [float(x) for x in system_means(iv.unit)],
                                                per_topic, float))
        if phi:
            if iv is None:
                cols["phi"].append(np.full(S * rows, None, dtype=object))
                cols["K"].append(np.full(S * rows, None, dtype=object))
            else:
                cols["phi"].append(_with_means(shown_phi(iv.phi), [exact_mean(iv.phi[:, s]) for s in range(S)],
                                               per_topic, object))
                k = np.full(S * rows, iv.plan.K, dtype=object)
                k[rows - 1::rows] = ev.scales[lab].K
                cols["K"].append(k)
    return {name: np.concatenate(parts) for name, parts in cols.items()}


def _with_means(per_topic_values: np.ndarray, means, per_topic: bool, dtype) -> np.ndarray:
    """A column of one measure: per system its T values (a (T, S) array) then its mean, or only the means."""
    T, S = per_topic_values.shape
    means = np.asarray(means, dtype=dtype).reshape(S, 1)
    if not per_topic:
        return means.reshape(-1)
    return np.concatenate([np.asarray(per_topic_values, dtype=dtype).T, means], axis=1).reshape(-1)
