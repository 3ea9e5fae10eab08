"""Runs as integers, the errors of the engine, and the recall-base-free numerator (FFF21 §5, §5.2.2).

* :func:`run_ids` / :func:`runs_from_ids` — a run's id Σ_i rel_i (c+1)^{N−i} (rank 1 most
  significant, so ids follow the strong top-heaviness order of FFP19 eq. 4) and back.
* :func:`numerator` — R = count/RB, AP = SP/RB and nDCG = DCG/IDCG divide a recall-base-free
  numerator (P, SP, DCG) by a positive constant of the topic, so on one topic their order and ties
  are the numerator's: φ_R = φ_P, φ_AP = φ_SP, φ_nDCG = φ_DCG for every RB > 0. The engine, the
  counting and the ranked scores all rank a measure on the scale of its numerator.
* :func:`normaliser` — that positive constant, which only rescales the displayed values.
"""
from __future__ import annotations

import numpy as np

from irscales import measures as M

__all__ = ["TieUndecidable", "CacheError", "run_ids", "runs_from_ids", "numerator", "normaliser"]


class TieUndecidable(ArithmeticError):
    """Two runs with different exact identities could not be separated numerically."""


class CacheError(RuntimeError):
    """A cache directory is unusable (not a scale cache, or written by other parameters)."""


def run_ids(rel, c: int = 1) -> np.ndarray:
    """Run id Σ_i rel_i (c+1)^{N−i} of each run (rank 1 most significant); rel shape (..., N).

    Binary measures read ``rel > 0`` when c = 1.
    """
    a = np.asarray(rel)
    if a.ndim == 0:
        raise ValueError("run_ids needs runs of shape (..., N), got a scalar")
    a = (a > 0).astype(np.int64) if c == 1 else a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() > c):
        raise ValueError(f"grades must lie in 0..{c}, found {a.min()}..{a.max()}")
    n = a.shape[-1]
    if (c + 1) ** n > 2**62:
        raise ValueError(f"(c+1)^N = {c + 1}^{n} runs do not fit 62-bit run ids")
    w = np.array([(c + 1) ** (n - 1 - i) for i in range(n)], dtype=np.int64)
    return a @ w


def runs_from_ids(ids, N: int, c: int = 1) -> np.ndarray:
    """Inverse of :func:`run_ids`: relevance arrays (..., N) of dtype int8."""
    ids = np.asarray(ids, dtype=np.int64)
    base = c + 1
    pw = np.array([base ** (N - 1 - i) for i in range(N)], dtype=np.int64)
    return ((ids[..., None] // pw) % base).astype(np.int8)


def numerator(m: M.Measure) -> M.Measure:
    """The recall-base-free measure whose scale a recall-base dependent one shares (FFF21 §5.2.2), as the measure
    declares it (:meth:`irscales.measures.Measure.numerator`): R → P, AP → SP, nDCG → DCG; others are their own."""
    return m.numerator()


def normaliser(m: M.Measure, N: int, rb, ideal) -> float:
    """The positive constant a recall-base dependent measure divides its :func:`numerator` by."""
    if not m.needs_rb:
        return 1.0
    if m.divides_by == "ideal":
        w = M.dcg_discount(N, m.base, m.discount)
        if ideal is not None:
            g = -np.sort(-np.asarray(ideal, dtype=float))[:N]
            idcg = float(g @ w[: len(g)])
        elif rb is not None:
            idcg = float(w[: min(int(rb), N)].sum())
        else:
            return 1.0
        if idcg <= 0:
            raise ValueError(f"{m!r}: the ideal DCG is 0 (rb={rb!r}); every run scores 0, there is no scale")
        return idcg
    if rb is None:
        return 1.0
    if rb <= 0:
        raise ValueError(f"{m!r}: rb={rb!r} leaves no scale (every run scores 0); pass rb > 0")
    if m.divides_by == "rb/N":
        return float(rb) / N  # the numerator P is count/N; R = count/rb
    return float(rb)
