"""Fer17's measures (§3.3) on a :class:`~irscales.collections.Collection`, and the GoP validation
of §3.4 (Gaussian KDE, eq. 6, and Kullback–Leibler divergence, eq. 7).

Measures (Fer17 §3.3), with the readings we had to choose written down:

===========  ======================================================================================
``AP``       average precision, lenient binary mapping (grade > 0 is relevant), recall base = RB
``P@10``     precision at 10
``R-prec``   precision at rank RB
``RBP``      rank-biased precision, p = 0.8, binary
``nDCG``     graded gains 0/5/10 (binary tracks: 0/5), log10 discount, over the whole run: the DCG
             stops growing after the last relevant retrieved document, which is what "calculated up
             to the last relevant retrieved document" says; the ideal run is the topic's judged
             documents in decreasing grade, cut at the run depth. The discount is Järvelin and
             Kekäläinen's (w_i = 1 for i < 10, 1/log10 i after), as MATTERS, the paper's toolkit,
             uses. Gains 0/5/10 are 5 × the grade; nDCG is invariant to scaling all gains, so grades
             are used.
``nDCG@20``  the same at cut-off 20 (ideal run cut at 20)
``ERR``      Chapelle et al.'s ERR with R_i = (2^{g_i} − 1)/2^{g_max}. "The same gains as nDCG"
             is read as the same relevance *grades* (0/1/2, i.e. gains 0/5/10 mapped linearly onto
             grades); putting 5 and 10 in the exponent would make a relevant document stop only 3%
             of users. g_max is the highest grade of the topic's *track* (1 for the binary tracks
             T07/T08, 2 for the graded ones), since the paper evaluates each GoP on its own.
===========  ======================================================================================

Twist (Fer17 ref. [32]) is not implemented: the paper gives no formula, and we could not establish a
citable definition from the material we have. Fer17's 8 measures give 28 pairs; ours give 7 and 21
pairs, so degrees of freedom of the measure-pair factor differ from the paper's (27 → 20).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .collections import Collection
from .measures import AP, ERR, NDCG, P, RBP, Measure, RPrec

__all__ = ["MEASURE_NAMES", "fer17_measures", "score_matrices", "INTEGER_SCALE", "kde", "kl_divergence",
           "BANDWIDTH"]

#: The Fer17 §3.3 measures we implement, in the paper's order (Twist left out: see the module docstring).
MEASURE_NAMES = ("AP", "P@10", "R-prec", "RBP", "nDCG", "nDCG@20", "ERR")

#: Measures whose per-topic values times this factor are integers: the sampling design ranks systems
#: by exact integer sums for them (P@10 = hits/10), so their ties are decided exactly.
INTEGER_SCALE: Mapping[str, int] = {"P@10": 10}

#: Fer17 §3.4: "We use Gaussian kernel with a bandwidth b = 0.015".
BANDWIDTH = 0.015


def fer17_measures(max_grade: int = 2) -> dict[str, tuple[Measure, int | None]]:
    """The measures of Fer17 §3.3 as ``name -> (measure, cut-off or None for the full run)``.

    ``max_grade`` is g_max of ERR (the highest grade of the track being evaluated).
    """
    if max_grade < 1:
        raise ValueError(f"max_grade must be >= 1, got {max_grade}")
    return {
        "AP": (AP(), None),
        "P@10": (P(k=10), None),
        "R-prec": (RPrec(), None),
        "RBP": (RBP(0.8), None),
        "nDCG": (NDCG(base=10, discount="jk", gains="graded"), None),
        "nDCG@20": (NDCG(base=10, discount="jk", gains="graded"), 20),
        "ERR": (ERR(max_grade=max_grade), None),
    }


def score_matrices(collection: Collection, names: Sequence[str] = MEASURE_NAMES,
                   group_by: str | None = "track") -> dict[str, np.ndarray]:
    """Score matrices ``M_k`` of Fer17 §1/§4.1: ``name -> (T topics, S systems)`` float array.

    Topics are evaluated group by group (``group_by``, a topic label such as ``"track"``; ``None``
    or a collection without that label: all topics at once) so that ERR's g_max is the group's own
    highest judged grade, and memory stays bounded by one group.
    """
    unknown = [n for n in names if n not in MEASURE_NAMES]
    if unknown:
        raise KeyError(f"unknown Fer17 measure(s) {unknown}; choose from {', '.join(MEASURE_NAMES)}")
    if collection.depth < 20:
        raise ValueError(f"the collection's depth is {collection.depth}; nDCG@20 and P@10 need at least 20")
    T, S = len(collection.topics), len(collection.systems)
    out = {n: np.empty((T, S)) for n in names}
    if group_by is not None and group_by in collection.topic_labels:
        lab = np.array(collection.topic_labels[group_by], dtype=object)
        groups = [np.flatnonzero(lab == g) for g in dict.fromkeys(lab)]
    else:
        groups = [np.arange(T)]
    for idx in groups:
        sub = collection.subset(topics=idx) if len(idx) < T else collection
        judged = np.flatnonzero(sub.judgments.sum(0) > 0)
        gmax = max(1, int(judged.max()) if judged.size else 1)
        ms = fer17_measures(gmax)
        for n in names:
            m, cut = ms[n]
            out[n][idx] = sub.evaluate(m, depth=cut).T
    return out


def kde(x: ArrayLike, grid: ArrayLike, bandwidth: float = BANDWIDTH) -> np.ndarray:
    r"""Gaussian kernel density estimate of the sample ``x`` at the points ``grid`` (Fer17 eq. 6):

    .. math:: \hat f_X(x) = \frac{1}{m b} \sum_{i=1}^m K\Bigl(\frac{x - X_i}{b}\Bigr), \quad
              K(u) = e^{-u^2/2}/\sqrt{2\pi}
    """
    xs = np.asarray(x, dtype=float).ravel()
    g = np.asarray(grid, dtype=float)
    if xs.size == 0:
        raise ValueError("kde needs a non-empty sample")
    if not np.isfinite(xs).all():
        raise ValueError("kde: the sample has NaN or infinite values")
    if not bandwidth > 0:
        raise ValueError(f"bandwidth must be positive, got {bandwidth}")
    u = (g[..., None] - xs) / bandwidth
    return np.exp(-0.5 * u * u).sum(-1) / (xs.size * bandwidth * np.sqrt(2 * np.pi))


def kl_divergence(x: ArrayLike, y: ArrayLike, bandwidth: float = BANDWIDTH, n_points: int = 512) -> float:
    r"""Kullback–Leibler divergence D_KL(X‖Y) between the KDEs of two samples (Fer17 eq. 7):

    .. math:: D_{KL}(X\|Y) = \sum_x \ln\frac{\hat f_X(x)}{\hat f_Y(x)} \hat f_X(x)

    Fer17 does not say where the sum over x is taken. We take ``n_points`` equally spaced points
    from min − 4b to max + 4b of both samples and normalise each density on them to sum to 1, so the
    sum is the divergence of two discrete distributions and does not depend on the spacing (a raw
    sum of densities would scale with 1/spacing). Points where f̂_Y underflows to 0 while f̂_X does
    not make the divergence infinite, as the definition says. Not symmetric.
    """
    xs, ys = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    if xs.size == 0 or ys.size == 0:
        raise ValueError("kl_divergence needs two non-empty samples")
    lo = min(xs.min(), ys.min()) - 4 * bandwidth
    hi = max(xs.max(), ys.max()) + 4 * bandwidth
    grid = np.linspace(lo, hi, n_points)
    fx, fy = kde(xs, grid, bandwidth), kde(ys, grid, bandwidth)
    px, py = fx / fx.sum(), fy / fy.sum()
    pos = px > 0
    if (py[pos] == 0).any():
        return float("inf")
    return float(np.sum(px[pos] * np.log(px[pos] / py[pos])))
