"""Twist (Ferro, Silvello, Keskustalo, Pirkola, Järvelin, JASIST 67(3), 2016; Fer17 §3.3 ref. [32]),
the effort-based measure of the Fer17 measure set, as MATTERS computes it (its ``twist.m``, the
toolkit the paper's Grid of Points was evaluated with).

Relative position (Cumulated Relative Position, Angelini et al. CLEF 2012). Let the ideal run be the
topic's judged grades in decreasing order cut at the run depth N, and for every grade g let
[min_g, max_g] be the ranks it occupies there. A document of grade g at rank i has the relative
position

.. math:: RP(i) = i - max_g \\text{ if } i > max_g, \\quad i - min_g \\text{ if } i < min_g, \\quad 0 \\text{ otherwise}

(a grade absent from the ideal run gives 0). The full-scale run is the ideal run reversed, with its
own RP computed against the same ranges; CRP is the cumulated sum of RP along the run.

Twist τ = (ρ + σ)/2 of two summary indicators:

- recovery ratio ρ: let x_i = +1 where CRP(i) > 0 and −1 otherwise, and c the first rank with
  x_c ≠ x_{c+1}; ρ = RB / max(RB, c); when x never changes sign, ρ = 1 if CRP is 0 everywhere (the
  ideal run) and 0 otherwise;
- space ratio σ, the harmonic mean of f = 1 − ΣRP⁺(run)/ΣRP⁺(full scale) and
  b = 1 − ΣRP⁻(run)/ΣRP⁻(full scale) (sums of the positive and of the negative relative positions).

A run that retrieves no relevant document (grade > 0) scores 0; a topic without relevant documents
(RB = 0) gives NaN, as in MATTERS. With binary relevance and RB ≤ N/2, τ lies in [0, 1]; otherwise
(three or more grades, or a recall base over half the depth) the full-scale run is not the run of
largest displacement in every class, so f or b, and τ, can be negative — the authors' ``twist_T09``
grid holds 302 such cells (down to −0.0056). 0/0 in σ (e.g. a run equal to the full-scale run) is NaN, as
MATLAB computes it (two cells of the authors' ``twist_T09`` grid file are NaN). RB is the topic's
full recall base (documents with grade > 0), not cut at N.

MATTERS pads runs and the ideal run with not relevant documents to N = 1000 (the paper's depth)
and maps the grades to weights 0, 5, 10 — only equality of grades matters here. Checked against
the authors' published grid: a run that retrieves one relevant document, at rank 1, has ρ = 0,
f = 1, b = 2/(RB + 1), so τ = 2/(RB + 3), which is what ``twist_T08`` holds for every such cell
(``tests/test_twist.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from irscales.measures.base import Measure, broadcast_topic

__all__ = ["Twist"]


def _ranges(ideal: np.ndarray, G: int) -> tuple[np.ndarray, np.ndarray]:
    """(min_g, max_g) of every grade 0..G in each ideal run, 1-based; 0 where the grade is absent.
    Shape ``ideal.shape[:-1] + (G + 1,)``."""
    N = ideal.shape[-1]
    ranks = np.arange(1, N + 1)
    lo = np.zeros(ideal.shape[:-1] + (G + 1,), np.int64)
    hi = np.zeros_like(lo)
    for g in range(G + 1):
        hit = ideal == g
        has = hit.any(-1)
        lo[..., g] = np.where(has, np.where(hit, ranks, N + 1).min(-1), 0)
        hi[..., g] = np.where(has, np.where(hit, ranks, 0).max(-1), 0)
    return lo, hi


def relative_positions(rel: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """RP(i) of every document of every run (module docstring) against the ideal runs ``ideal``
    (same last-axis length, broadcast against ``rel``); int64, shape of ``rel``. The rank ranges
    are found on ``ideal`` as given (e.g. one per topic) and only then broadcast to the runs."""
    rel = np.asarray(rel).astype(np.int64)
    ideal = np.asarray(ideal).astype(np.int64)
    if ideal.shape[-1] != rel.shape[-1]:
        raise ValueError(f"ideal runs have {ideal.shape[-1]} ranks, the runs {rel.shape[-1]}")
    G = int(max(rel.max(initial=0), ideal.max(initial=0)))
    lo, hi = _ranges(ideal, G)
    shape = np.broadcast_shapes(rel.shape[:-1], ideal.shape[:-1])
    rel = np.broadcast_to(rel, shape + rel.shape[-1:])
    lo_i = np.take_along_axis(np.broadcast_to(lo, shape + lo.shape[-1:]), rel, axis=-1)
    hi_i = np.take_along_axis(np.broadcast_to(hi, shape + hi.shape[-1:]), rel, axis=-1)
    i = np.arange(1, rel.shape[-1] + 1)
    present = lo_i > 0
    return np.where(present & (i > hi_i), i - hi_i, np.where(present & (i < lo_i), i - lo_i, 0))


@dataclass(frozen=True, repr=False)
class Twist(Measure, names=("Twist",)):
    """Twist τ = (ρ + σ)/2 (module docstring). Needs the recall base (``rb``) and the ideal run
    (``ideal``: the judged grades in decreasing order, as :meth:`irscales.data.Collection.ideal`
    gives; :meth:`~irscales.data.Collection.evaluate` passes both)."""

    family: ClassVar[str] = "Twist"
    needs_rb: ClassVar[bool] = True
    binary: ClassVar[bool] = False
    gains: ClassVar[str] = "graded"  # grades are classes here: Collection.evaluate passes the ideal run

    def _compute(self, rel, rb=None, ideal=None):
        if ideal is None:
            raise ValueError("Twist needs the ideal run of each topic (pass ideal=...)")
        N = rel.shape[-1]
        ideal = _fit(np.asarray(ideal), N)
        rbv = broadcast_topic(rb, rel, "rb")
        rp = relative_positions(rel, ideal)
        full = relative_positions(ideal[..., ::-1], ideal)  # one full-scale run per ideal run
        pos_full, neg_full = np.where(full > 0, full, 0).sum(-1), np.where(full < 0, full, 0).sum(-1)
        crp = np.cumsum(rp, axis=-1)
        x = np.where(crp > 0, 1, -1)
        change = x[..., 1:] != x[..., :-1]
        any_change = change.any(-1)
        # 1-based rank c with x_c != x_{c+1} (a run of one rank has none: argmax of nothing)
        first = np.argmax(change, axis=-1) + 1 if change.shape[-1] else np.ones(change.shape[:-1], dtype=np.int64)
        # σ = 2fb/(f + b) with f = A/P, b = B/M (A = P − ΣRP⁺, B = M − ΣRP⁻ of the run; P, M those of
        # the full scale) is 2AB / (A·M + B·P): one division of exact integers, so σ is correctly
        # rounded and 0/0 (NaN) is exact, not the ±1e15 a rounded f + b ≈ 0 would give
        A = pos_full - np.where(rp > 0, rp, 0).sum(-1)
        B = neg_full - np.where(rp < 0, rp, 0).sum(-1)
        num, den = 2 * A * B, A * neg_full + B * pos_full
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.where(any_change, rbv / np.maximum(rbv, first), np.where((crp == 0).all(-1), 1.0, 0.0))
            ok = (den != 0) & (pos_full != 0) & (neg_full != 0)  # else 0/0 or ±∞/∞ in MATLAB: NaN
            sigma = np.where(ok, num / np.where(ok, den, 1), np.nan)
        tau = (rho + sigma) / 2
        tau = np.where((rel > 0).any(-1), tau, 0.0)
        return np.where(rbv > 0, tau, np.nan)

    def exact(self, rel, rb=None, ideal=None) -> np.ndarray:
        """Exact values (Fractions; NaN as ``float('nan')``) by a rank-by-rank loop written apart from
        the vectorised path, for tests."""
        rel = np.asarray(rel)
        if rel.ndim == 0:
            raise ValueError("a relevance array needs at least one axis (the ranks), got a scalar")
        if ideal is None or rb is None:
            raise ValueError("Twist needs the recall base and the ideal run (pass rb=..., ideal=...)")
        N = rel.shape[-1]
        ideal = np.broadcast_to(_fit(np.asarray(ideal), N), rel.shape)
        rbs = np.broadcast_to(np.asarray(rb, dtype=object), rel.shape[:-1])
        flat, fi, fr = rel.reshape(-1, N), ideal.reshape(-1, N), rbs.reshape(-1)
        out = np.empty(flat.shape[0], dtype=object)
        for k in range(flat.shape[0]):
            out[k] = _twist_one([int(v) for v in flat[k]], [int(v) for v in fi[k]], int(fr[k]))
        return out.reshape(rel.shape[:-1])


def _fit(ideal: np.ndarray, N: int) -> np.ndarray:
    """The ideal run sorted in decreasing grade, cut or padded with 0 to N ranks."""
    ideal = -np.sort(-ideal.astype(np.int64), axis=-1)[..., :N]
    if ideal.shape[-1] < N:
        ideal = np.concatenate([ideal, np.zeros(ideal.shape[:-1] + (N - ideal.shape[-1],), np.int64)], axis=-1)
    return ideal


def _rp_one(run: list[int], ideal: list[int]) -> list[int]:
    out = []
    for i, g in enumerate(run, start=1):
        where = [j for j, h in enumerate(ideal, start=1) if h == g]
        if not where:
            out.append(0)
        elif i > where[-1]:
            out.append(i - where[-1])
        elif i < where[0]:
            out.append(i - where[0])
        else:
            out.append(0)
    return out


def _twist_one(run: list[int], ideal: list[int], rb: int):
    if rb == 0:
        return float("nan")
    if not any(g > 0 for g in run):
        return Fraction(0)
    rp = _rp_one(run, ideal)
    full = _rp_one(ideal[::-1], ideal)
    crp, s = [], 0
    for v in rp:
        s += v
        crp.append(s)
    signs = [1 if c > 0 else -1 for c in crp]
    c = next((i for i in range(1, len(signs)) if signs[i] != signs[i - 1]), None)
    if c is None:
        rho = Fraction(1) if all(v == 0 for v in crp) else Fraction(0)
    else:
        rho = Fraction(rb, max(rb, c))
    pos_full, neg_full = sum(v for v in full if v > 0), sum(v for v in full if v < 0)
    pos_run, neg_run = sum(v for v in rp if v > 0), sum(v for v in rp if v < 0)
    if pos_full == 0 or neg_full == 0:  # f or b is 0/0 or ±∞: σ is NaN in MATLAB
        return float("nan")
    f, b = 1 - Fraction(pos_run, pos_full), 1 - Fraction(neg_run, neg_full)
    if f + b == 0:  # 0/0 (f = b = 0, e.g. the full-scale run itself) or x/0
        return float("nan")
    return (rho + 2 * f * b / (f + b)) / 2
