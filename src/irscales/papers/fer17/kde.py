"""The GoP validation of Fer17 §3.4: Gaussian kernel density estimates (eq. 6) and the
Kullback–Leibler divergence between two of them (eq. 7).

Two routes. :func:`kde` / :func:`kl_divergence` are our reading of the text (per-system means, the
sum of eq. 7 over 512 points of normalised densities), used where no original systems exist (two
halves of a simulated GoP). :func:`ksdensity` / :func:`kl_divergence_matters` follow the authors'
own MATLAB code (``kdestimationTest.m`` and ``klDivergenceTest.m`` of ``gridofpoints/trec-jasist2017``,
MATTERS ``kdEstimation`` and ``klDivergence``): every per-topic score, MATLAB ``ksdensity`` on
``xi = -0.1:0.01:1.1``, trapezoidal integral of p ln(p/q). With the authors' Grid of Points that
route reproduces Table 1 (:mod:`irscales.papers.fer17.real_gop`)."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

__all__ = ["BANDWIDTH", "kde", "kl_divergence", "kde_curve", "distribution_summary", "MATTERS_GRID",
           "KSDENSITY_CUTOFF", "KSDENSITY_BLOCK", "ksdensity", "kl_divergence_trapz", "kl_divergence_matters"]

#: Fer17 §3.4: "We use Gaussian kernel with a bandwidth b = 0.015".
BANDWIDTH = 0.015


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
    # log(px) − log(py), not log(px / py): the ratio overflows where py is subnormal but not 0
    return float(np.sum(px[pos] * (np.log(px[pos]) - np.log(py[pos]))))


def kde_curve(x: ArrayLike, bandwidth: float = BANDWIDTH, n_points: int = 401,
              lo: float | None = None, hi: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The KDE of eq. (6) on ``n_points`` equally spaced points from ``lo`` to ``hi`` (default: the
    sample's range widened by 4 bandwidths, where the density has fallen below 0.04% of its peak; an
    odd ``n_points`` puts the centre of that range on the grid). Returns (grid, density)."""
    xs = np.asarray(x, dtype=float).ravel()
    if xs.size == 0:
        raise ValueError("kde_curve needs a non-empty sample")
    lo = float(xs.min()) - 4 * bandwidth if lo is None else lo
    hi = float(xs.max()) + 4 * bandwidth if hi is None else hi
    if not hi > lo:
        raise ValueError(f"kde_curve: the grid needs lo < hi, got {lo} and {hi}")
    grid = np.linspace(lo, hi, n_points)
    return grid, kde(xs, grid, bandwidth)


def distribution_summary(performance: Mapping[str, ArrayLike], bandwidth: float = BANDWIDTH) -> pd.DataFrame:
    """One side of Fer17 Fig. 1 / Table 1 in numbers: for each measure (``name -> per-system mean
    scores``, e.g. :func:`system_performance`) the number of systems, mean, standard deviation
    (ddof = 1), minimum, quartiles, maximum and the mode of the KDE (eq. 6, on :func:`kde_curve`'s
    grid). Table 1 itself (a KL divergence, eq. 7) needs both sides."""
    rows = {}
    for name, v in performance.items():
        x = np.asarray(v, dtype=float).ravel()
        if x.size == 0:
            raise ValueError(f"distribution_summary: no systems for {name!r}")
        grid, dens = kde_curve(x, bandwidth)
        q25, q50, q75 = np.quantile(x, [0.25, 0.5, 0.75])
        rows[name] = {"systems": x.size, "mean": x.mean(), "std": x.std(ddof=1) if x.size > 1 else np.nan,
                      "min": x.min(), "q25": q25, "median": q50, "q75": q75, "max": x.max(),
                      "kde_mode": grid[int(np.argmax(dens))]}
    return pd.DataFrame.from_dict(rows, orient="index")


# ----------------------------------------------------------------------------- the authors' MATLAB route

#: The evaluation points of the authors' KDE, MATLAB ``xi = -0.1:0.01:1.1`` (121 points; their
#: ``kdestimationTest.m`` in ``gridofpoints/trec-jasist2017``). Built from integers so every point is
#: the double nearest to k/100, as MATLAB's colon operator gives.
MATTERS_GRID = np.arange(-10, 111) / 100.0

#: MATLAB ``ksdensity``'s normal kernel is cut at 4 bandwidths when the problem is large
#: (``statkskernelinfo``: cutoff 4 for ``'normal'``).
KSDENSITY_CUTOFF = 4.0
#: Up to this many (data × evaluation) points ``ksdensity`` sums every kernel; above it, only the
#: data points near each evaluation point (``statkscompute``'s ``blocksize``).
KSDENSITY_BLOCK = 30_000


def ksdensity(x: ArrayLike, xi: ArrayLike, bandwidth: float = BANDWIDTH) -> np.ndarray:
    r"""MATLAB's ``ksdensity(x, xi, 'bandwidth', b, 'function', 'pdf')`` with the default normal
    kernel and unbounded support, as the Fer17 authors call it (MATTERS ``kdEstimation``).

    The estimate is eq. (6), :math:`\hat f(x) = \frac{1}{m b}\sum_i K((x - X_i)/b)`, with three
    MATLAB conventions kept on purpose:

    - NaN values of ``x`` are dropped (``ksdensity`` ignores them; two cells of the authors'
      ``twist_T09`` grid are NaN);
    - when ``len(x) · len(xi)`` ≤ :data:`KSDENSITY_BLOCK` every kernel is summed;
    - above that (every Fer17 sample: 6,450 original scores or 214,200 GoP scores × 121 points),
      ``statkscompute``'s selective loop sums, for each evaluation point v, the sorted data from the
      first point ≥ v − 4b up to and including the first point > v + 4b (or the last point). The
      cut matters for Table 1: far from the data both densities are a handful of kernels, and the
      divergence of eq. (7) there changes AP's T08 value in the 4th decimal.
    """
    xs = np.asarray(x, dtype=float).ravel()
    xs = np.sort(xs[~np.isnan(xs)])
    pts = np.asarray(xi, dtype=float).ravel()
    if xs.size == 0:
        raise ValueError("ksdensity needs at least one value that is not NaN")
    if not bandwidth > 0:
        raise ValueError(f"bandwidth must be positive, got {bandwidth}")
    n = xs.size
    norm = 1.0 / (np.sqrt(2 * np.pi) * n * bandwidth)
    if n * pts.size <= KSDENSITY_BLOCK:
        u = (pts[:, None] - xs[None, :]) / bandwidth
        return np.exp(-0.5 * u * u).sum(1) * norm
    half = KSDENSITY_CUTOFF * bandwidth
    start = np.minimum(np.searchsorted(xs, pts - half, side="left"), n - 1)
    end = np.maximum(start, np.minimum(np.searchsorted(xs, pts + half, side="right"), n - 1))
    out = np.empty(pts.size)
    for k, (v, a, b) in enumerate(zip(pts, start, end)):
        u = (v - xs[a:b + 1]) / bandwidth
        out[k] = np.exp(-0.5 * u * u).sum()
    return out * norm


def kl_divergence_trapz(p: ArrayLike, q: ArrayLike, xi: ArrayLike) -> float:
    r"""D_KL(P‖Q) = ∫ p ln(p/q) dx by the trapezoidal rule on the points ``xi`` (MATTERS
    ``klDivergence(xi, q, p)``: ``trapz(xi, p .* log(p ./ q))`` with NaN terms — p = 0 — set to 0).
    Natural logarithm, densities not renormalised on the grid. p > 0 where q = 0 gives +∞."""
    p, q, x = (np.asarray(a, dtype=float).ravel() for a in (p, q, xi))
    if not (p.size == q.size == x.size):
        raise ValueError(f"p, q and xi must have the same length, got {p.size}, {q.size}, {x.size}")
    with np.errstate(divide="ignore", invalid="ignore"):
        t = p * np.log(p / q)
    t[np.isnan(t)] = 0.0
    return float(np.trapezoid(t, x))


def kl_divergence_matters(x: ArrayLike, y: ArrayLike, bandwidth: float = BANDWIDTH,
                          xi: ArrayLike = MATTERS_GRID) -> float:
    """D_KL(X‖Y) of Fer17 eq. (7) the way the authors computed Table 1: both KDEs by
    :func:`ksdensity` on :data:`MATTERS_GRID`, then :func:`kl_divergence_trapz`. For Table 1, X is
    the original TREC systems and Y the GoP ("the information lost when the GoP systems are used to
    approximate an original set of systems", §3.4); each sample is every per-topic score of its
    systems (the score matrix flattened, as ``ap_T08{:,:}(:)`` in the authors' code), not the
    per-system means."""
    return kl_divergence_trapz(ksdensity(x, xi, bandwidth), ksdensity(y, xi, bandwidth), xi)
