"""Brute-force reference scales: evaluate the measure on every run (small N only; cross-checks of
the engine and of the counting)."""
from __future__ import annotations

import numpy as np

from irscales import measures as M
from irscales.enumeration._runs import runs_from_ids

__all__ = ["brute_force_scale"]


def brute_force_scale(measure: M.Measure, N: int, c: int = 1, rb=None, exact: bool = True) -> tuple[list, list]:
    """Reference scale by evaluating the measure on every run (small N only).

    Returns (distinct values, counts); with ``exact=True`` the values are Fractions from
    :meth:`Measure.exact` (rational measures), else floats from the vectorised measure
    (no tie handling: for cross-checks of float paths only).
    """
    if (c + 1) ** N > 2**20:
        raise ValueError(f"brute force over {(c + 1) ** N} runs is too large; use scale()")
    rel = runs_from_ids(np.arange((c + 1) ** N), N, c)
    if exact:
        vals = measure.exact(rel, rb=rb)
        u: dict = {}
        for v in vals.tolist():
            u[v] = u.get(v, 0) + 1
        ks = sorted(u)
        return ks, [u[k] for k in ks]
    v = measure(rel, rb=rb)
    u, cnt = np.unique(v, return_counts=True)
    return list(u), list(cnt)
