"""The box of an evaluation's bracketed interval-scaled values (issue 51): per (topic, system) the proven
bounds (φ_lo − 1)/(K − 1) ≤ value ≤ (φ_hi − 1)/(K − 1) (:class:`irscales.interval.IntervalValues`), and what
is known exactly of their order within a topic — the keys of :class:`irscales.certified.ScoreBox`.

φ ranks the values of one scale, the same for every topic (FFF21 §5.2.2: the recall base and the ideal ranking
do not enter), by the measure's value or its numerator (SP for AP, DCG for nDCG), which within one topic orders
the runs as the measure does. So within a topic equal measure values share φ and a larger value has a larger φ
(every tie rule gives distinct values distinct φ): a rational measure's exact values are *ordered* keys. A
measure without exact values (DCG, nDCG) gets the run itself as key: φ is a function of the run's relevance
vector, so equal runs share φ; their order is left to the brackets. Ordered keys are checked against the
brackets (a larger key must allow a larger φ, equal keys must have one bracket); should they disagree, the
runs are the keys instead, which is sound whatever the measure.
"""

from __future__ import annotations

import numpy as np

from irscales.certified import ScoreBox
from irscales.interval import IntervalValues, normalised, scaled_runs

__all__ = ["run_keys", "keys_agree", "interval_box"]


def run_keys(iv: IntervalValues, collection) -> np.ndarray:
    """(T, S) integers, equal exactly where two runs are the same relevance vector over the scale's N ranks
    (:func:`irscales.interval.scaled_runs`, the runs φ is computed from)."""
    runs = np.ascontiguousarray(scaled_runs(iv.plan, collection))  # (S, T, ≤ N), one width for all
    ids: dict[bytes, int] = {}
    s, t = runs.shape[:2]
    out = np.empty((t, s), dtype=np.int64)
    for a in range(s):
        for b in range(t):
            out[b, a] = ids.setdefault(runs[a, b].tobytes(), len(ids))
    return out


def keys_agree(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether ordered ``keys`` are consistent with the brackets [lo, hi] in every topic: equal keys, equal
    brackets; a larger key, a bracket reaching above the smaller key's lower end (lo_a < hi_b)."""
    for t in range(keys.shape[0]):
        order = sorted(range(keys.shape[1]), key=lambda s: keys[t, s])
        run_lo = None  # the largest lower end among strictly smaller keys
        group_lo, prev = None, None
        for s in order:
            k = keys[t, s]
            if prev is not None and k == keys[t, prev]:
                if lo[t, s] != lo[t, prev] or hi[t, s] != hi[t, prev]:
                    return False
            else:
                if group_lo is not None:
                    run_lo = group_lo if run_lo is None else max(run_lo, group_lo)
                group_lo = lo[t, s]
                if run_lo is not None and not run_lo < hi[t, s]:
                    return False
            prev = s
    return True


def interval_box(iv: IntervalValues, collection, exact_values: np.ndarray | None) -> ScoreBox | None:
    """The :class:`~irscales.certified.ScoreBox` of bracketed interval values (None for an exact route), with the
    measure's ``exact_values`` (T, S; Fractions, or None where it has none) as ordered keys where they agree
    with the brackets, else the runs as keys (module docstring)."""
    if iv.plan.exact or iv.phi_lo is None:
        return None
    lo, hi = normalised(iv.phi_lo, iv.plan.K), normalised(iv.phi_hi, iv.plan.K)
    if exact_values is not None:
        keys = np.asarray(exact_values, dtype=object)
        if keys.shape == lo.shape and keys_agree(keys, iv.phi_lo, iv.phi_hi):
            return ScoreBox(lo, hi, keys, ordered=True)
    return ScoreBox(lo, hi, run_keys(iv, collection), ordered=False)
