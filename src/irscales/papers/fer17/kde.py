"""The GoP validation of Fer17 §3.4: Gaussian kernel density estimates (eq. 6) of per-system mean
scores and the Kullback–Leibler divergence between two of them (eq. 7)."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

__all__ = ["BANDWIDTH", "kde", "kl_divergence", "kde_curve", "distribution_summary"]

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
