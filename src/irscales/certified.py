"""Scores known only within bounds, and what follows from them soundly: their means and the range of
Kendall's τ_b they allow.

A score known to lie in a closed interval [lo, hi] (a bracket of φ with a proven error, a value printed
rounded, a float with an error bound) is a :class:`Bounds`; an exact score is the point lo = hi. Every
function here returns a statement that holds for *every* choice of values inside the bounds ("certified"),
never for one choice; where the exact extreme is too costly, an outer bound (wider, still sound) whose
construction the function's docstring proves.

* :class:`ScoreBox` — a (topics, systems) matrix of such scores, with what is known of their order within a
  topic (the box the significance tests of :mod:`irscales.stats.proven` decide over).
* :func:`mean_bounds` — the mean over topics of per-topic bounds: [mean(lo), mean(hi)], exact (Fractions);
  the mean is increasing in every argument, so these are the exact extremes.
* :func:`rank_range` — each system's best and worst rank by mean (1 = the highest) over every point of the bounds.
* :func:`kendall_tau_range` — the smallest and largest Kendall τ_b (:func:`irscales.correlation.kendall_tau`,
  FFF21 §3.3, Fer17 eq. 1) between two score vectors whose entries are anywhere in their bounds; an outer
  bound computed pair by pair, equal to the point τ (bit for bit) when both vectors are exact.
* :func:`tau_ap_range` — the same for the symmetric AP correlation τ_AP (Fer17 eq. 2, Yilmaz et al. 2008),
  item by item.

The significance tests over bounds are in :mod:`irscales.stats.proven` (issue 51).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike

from irscales.correlation import system_means, tau_ap_symmetric
from irscales.ranks import dense_ranks

__all__ = ["Bounds", "ScoreBox", "mean_bounds", "rank_range", "kendall_tau_range", "tau_ap_range"]


@dataclass(frozen=True)
class Bounds:
    """Values known to lie in [``lo``, ``hi``] entrywise (same shape; lo ≤ hi, checked exactly: ints,
    Fractions and floats compare as the numbers they are)."""

    lo: np.ndarray
    hi: np.ndarray

    def __post_init__(self):
        lo, hi = np.asarray(self.lo), np.asarray(self.hi)
        if lo.shape != hi.shape:
            raise ValueError(f"bounds: lo and hi must have the same shape, got {lo.shape} and {hi.shape}")
        codes = dense_ranks(np.concatenate([lo.astype(object).ravel(), hi.astype(object).ravel()]))
        n = lo.size
        bad = np.flatnonzero(codes[:n] > codes[n:])
        if bad.size:
            i = np.unravel_index(int(bad[0]), lo.shape)
            raise ValueError(f"bounds: lo > hi at index {tuple(int(k) for k in i)} ({lo[i]!r} > {hi[i]!r})")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @classmethod
    def point(cls, values: ArrayLike) -> "Bounds":
        """Exact values: lo = hi = ``values``."""
        v = np.asarray(values)
        return cls(v, v)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.lo.shape

    @property
    def exact(self) -> bool:
        """Whether every entry is a point (lo == hi)."""
        return bool(all(a == b for a, b in zip(self.lo.ravel().tolist(), self.hi.ravel().tolist())))


def as_bounds(x) -> Bounds:
    """``x`` as :class:`Bounds`: a Bounds as it is, a pair ``(lo, hi)`` of arrays, or an array of exact values."""
    if isinstance(x, Bounds):
        return x
    if isinstance(x, tuple) and len(x) == 2:
        return Bounds(np.asarray(x[0]), np.asarray(x[1]))
    return Bounds.point(x)


@dataclass(frozen=True)
class ScoreBox:
    """(T topics, S systems) scores known to lie in [``lo``, ``hi``] (exact: ints or Fractions, object arrays).
    ``keys`` (optional, (T, S)): within a topic, equal keys mean equal scores; with ``ordered`` the keys'
    order is also the scores' strict order. ``mid`` (optional): the values shown for these scores (a point of
    the brackets, e.g. their midpoints), which need not follow the keys' order (two distinct values may share a
    midpoint): a statement proven over the box must hold for them too, so the keys' order then constrains only
    the pairs whose shown values follow it (:func:`irscales.stats.proven.pair_box`). ``exact``: every entry a
    point (lo = hi)."""

    lo: np.ndarray
    hi: np.ndarray
    keys: np.ndarray | None = None
    ordered: bool = False
    mid: np.ndarray | None = None

    def __post_init__(self):
        lo, hi = np.asarray(self.lo, dtype=object), np.asarray(self.hi, dtype=object)
        if lo.ndim != 2 or lo.shape != hi.shape:
            raise ValueError(f"a score box is two (topics, systems) matrices of one shape, got {lo.shape} and "
                             f"{hi.shape}")
        for name in ("keys", "mid"):
            if getattr(self, name) is not None and np.shape(getattr(self, name)) != lo.shape:
                raise ValueError(f"{name} must have the scores' shape {lo.shape}, got {np.shape(getattr(self, name))}")
        bad = np.argwhere(lo > hi)
        if self.mid is not None:
            mid = np.asarray(self.mid, dtype=object)
            bad = np.concatenate([bad, np.argwhere((mid < lo) | (mid > hi))])
            object.__setattr__(self, "mid", mid)
        if len(bad):
            t, s = (int(x) for x in bad[0])
            raise ValueError(f"score box: lo ≤ mid ≤ hi fails at (topic, system) = ({t}, {s})")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @property
    def exact(self) -> bool:
        return bool((self.lo == self.hi).all())

    def permuted(self, perm: Sequence[int]) -> "ScoreBox":
        """The same box with the systems (columns) in the order ``perm``."""
        keys = None if self.keys is None else np.asarray(self.keys)[:, perm]
        mid = None if self.mid is None else self.mid[:, perm]
        return ScoreBox(self.lo[:, perm], self.hi[:, perm], keys, self.ordered, mid)

    def shown(self, mid: np.ndarray) -> "ScoreBox":
        """The same box with the values shown ``mid`` (checked to lie in it)."""
        return ScoreBox(self.lo, self.hi, self.keys, self.ordered, mid)


def _exact(a: np.ndarray) -> np.ndarray:
    """Entries as exact rationals (floats by their exact binary value), object array."""
    return np.vectorize(lambda v: v if isinstance(v, (int, Fraction)) else Fraction(v), otypes=[object])(a) \
        if a.size else a.astype(object)


def mean_bounds(b: Bounds) -> Bounds:
    """Bounds of the per-system mean over topics of (T, S) bounds: [mean_t lo, mean_t hi] per system
    (:func:`irscales.correlation.system_means` of each side, FFF21 §3.3), as exact Fractions — float entries
    are taken at their exact binary value, so no rounding widens or narrows the result. Sound and tight: the
    mean is increasing in each entry, so its smallest value over the box is at all lo, its largest at all hi."""
    b = as_bounds(b)
    return Bounds(system_means(_exact(b.lo)), system_means(_exact(b.hi)))


def rank_range(b) -> tuple[np.ndarray, np.ndarray]:
    """Per system (1-D bounds of their scores, e.g. :func:`mean_bounds`), the best and the worst rank over every
    point of the bounds, rank 1 the highest and ties sharing the best rank (as a rank by mean is read): best =
    1 + #{others surely above: lo_other > hi}, worst = 1 + #{others possibly above: hi_other > lo}. Both are
    attained (move the system to its hi and every other to its lo, or the reverse), so the range is exact.
    Exact comparisons (:func:`irscales.ranks.dense_ranks`)."""
    b = as_bounds(b)
    if b.lo.ndim != 1:
        raise ValueError(f"rank_range: one score per system (1-D), got shape {b.shape}")
    lo, hi = _codes(b)
    best = 1 + (lo[None, :] > hi[:, None]).sum(axis=1)
    above = hi[None, :] > lo[:, None]
    np.fill_diagonal(above, False)  # a system is never above itself
    worst = 1 + above.sum(axis=1)
    return best, worst


class _Range:
    """What a range of a coefficient offers: its width and whether a value lies in it (``lo`` ≤ τ ≤ ``hi``)."""

    lo: float
    hi: float

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def __contains__(self, tau: float) -> bool:
        return bool(self.lo <= tau <= self.hi)


@dataclass(frozen=True, kw_only=True)
class TauRange(_Range):
    """The range of Kendall's τ_b over a box of scores (:func:`kendall_tau_range`): ``lo`` ≤ τ ≤ ``hi`` at every
    point of the box where τ is defined (NaN: nowhere). ``concordant`` / ``discordant``: pairs of systems
    concordant (discordant) at every point; ``tied``: pairs that add nothing to P − Q at every point (tied in
    either ranking); ``undecided``: the others, whose sign the bounds leave open. ``exact``: both inputs were
    points, so ``lo == hi`` is τ itself."""

    lo: float
    hi: float
    concordant: int
    discordant: int
    tied: int
    undecided: int
    exact: bool


def _codes(b: Bounds) -> tuple[np.ndarray, np.ndarray]:
    """Order-preserving integer codes of the lo and hi ends (one code space for both, exact comparisons)."""
    n = b.lo.size
    c = dense_ranks(np.concatenate([b.lo.astype(object), b.hi.astype(object)]))
    return c[:n], c[n:]


def _signs(lo: np.ndarray, hi: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the pairs (i, j), j > i: can v_i > v_j, v_i = v_j, v_i < v_j hold for some values in the bounds?"""
    lj, hj = lo[i + 1:], hi[i + 1:]
    return hi[i] > lj, (lo[i] <= hj) & (lj <= hi[i]), lo[i] < hj


def _tau(s: int, dx: int, dy: int) -> float:
    """τ_b = (P − Q)/sqrt((P+Q+T)(P+Q+U)) from P − Q and the pairs untied in x (P+Q+U) and in y (P+Q+T),
    in the floating-point operations of :attr:`irscales.correlation.KendallCounts.tau`."""
    den = np.sqrt(float(dy) * float(dx))
    return float(s) / float(den) if den > 0 else float("nan")


def _best(c: dict[str, int], untie_x: int, untie_y: int) -> float:
    """The largest τ_b of the pairwise relaxation (counts of pair classes, :func:`kendall_tau_range`; ``untie_x``
    / ``untie_y``: the pairs that can be untied in x / y at all). Where its best configuration leaves a ranking
    entirely tied (S* = 0, nothing can be concordant or must be discordant), every defined τ has S ≤ −1:
    τ ≤ −1/sqrt(untie_x·untie_y); NaN where no point has τ defined (a ranking always tied)."""
    s = c["conc"] - c["disc"]
    dx = dy = c["conc"] + c["disc"]
    if s > 0:  # fewest untied pairs: a joint tie where one exists, else the one tie there is
        dx += c["need_x"]
        dy += c["need_y"]
    else:  # most untied pairs, balanced between the rankings (the product (dx)(dy) is largest)
        dx += c["only_x"]
        dy += c["only_y"]
        k = c["either"]
        t = min(max((k + dy - dx) // 2, 0), k)
        t = max((t, min(t + 1, k)), key=lambda t2: (dx + t2) * (dy + k - t2))  # the integer optimum
        dx, dy = dx + t, dy + k - t
    if dx == 0 or dy == 0:
        return -1 / float(np.sqrt(float(untie_x) * float(untie_y))) if untie_x and untie_y else float("nan")
    return _tau(s, dx, dy)


def kendall_tau_range(x, y) -> TauRange:
    r"""The range of Kendall's τ_b between two score vectors known within bounds: ``x`` and ``y`` (shape (S,),
    the systems; each an array of exact values, a pair (lo, hi) or :class:`Bounds`) may take any values in
    their bounds, and the result holds for every such choice. τ_b is
    :func:`irscales.correlation.kendall_tau`'s (FFF21 §3.3, Fer17 eq. 1, the variant of FFF21 Table 2):

    .. math:: \tau_b = \frac{P - Q}{\sqrt{(P + Q + T)(P + Q + U)}}

    with P, Q concordant and discordant pairs, T (U) the pairs tied in x (y) only, so P + Q + T is the number
    D_y of pairs untied in y and P + Q + U the number D_x untied in x.

    **Pairwise relaxation.** For a pair (j, k), the bounds allow a sign set σ_x ⊆ {−1, 0, +1} of x_j − x_k
    (+1 iff hi_j > lo_k, −1 iff lo_j < hi_k, 0 iff the closed intervals meet) and likewise σ_y. Each point of
    the box picks one (s_x, s_y) ∈ σ_x × σ_y per pair, contributing s_x·s_y to S = P − Q, [s_x ≠ 0] to D_x and
    [s_y ≠ 0] to D_y. Choosing per pair *independently* (ignoring that the values of one system are shared by
    all its pairs) gives a superset of the configurations the box can produce, so the extremes of
    τ = S / sqrt(D_x·D_y) over the relaxation bound those over the box: the range is **sound** (an outer
    bound; exact when the per-pair choices are jointly realisable, e.g. when no pair is undecided).

    **The relaxation's maximum, exactly** (the minimum is −max of (x, −y)). Every configuration has
    |S| ≤ P + Q ≤ min(D_x, D_y). With that, exchange arguments on one pair show:

    1. making a pair concordant (S + 1, D_x and D_y up by at most 1) never lowers τ:
       for S ≥ 0, (1 + 1/S)² ≥ (1 + 1/D_x)(1 + 1/D_y); for S < 0 the numerator shrinks in size while the
       denominator grows — so every pair that *can* be concordant is;
    2. replacing a discordant choice by any tied one (S + 1, D_x or D_y or both down by 1) never lowers τ:
       for S = −s < 0, (1 − 1/s)² ≤ (1 − 1/D_x)(1 − 1/D_y) since s ≤ D_x, D_y; trivially for S ≥ 0 — so a pair
       is discordant only where it can be nothing else;
    3. S is then fixed, S* = #(can be concordant) − #(must be discordant); among the tied choices of the other
       pairs, τ is largest with D_x·D_y smallest when S* > 0 (a joint tie where possible; a pair whose only tie
       is in x alone or in y alone has one choice) and largest when S* < 0 (untied in x or in y where possible;
       pairs that may be untied in either are split to balance D_x and D_y, which maximises the product).

    Where that configuration leaves a ranking entirely tied (τ undefined; only possible with S* = 0 and no pair
    that can be concordant or must be discordant), every point where τ is defined has a discordant pair, so
    S ≤ −1 and τ ≤ −1/sqrt(A_x·A_y), A_x (A_y) the pairs that can be untied in x (y) at all; NaN where one of
    them is 0 (τ is defined nowhere in the box, as for an all-tied exact ranking).
    With exact inputs every σ is a single sign, the one configuration is the data's, and ``lo == hi`` is
    :func:`~irscales.correlation.kendall_tau` bit for bit (the same integer counts, the same float operations).
    Comparisons are exact (ints, Fractions, floats through :func:`irscales.ranks.dense_ranks`); O(S²) time in
    pairs of numpy vectors, no S×S matrix.
    """
    bx, by = as_bounds(x), as_bounds(y)
    if bx.lo.ndim != 1 or bx.shape != by.shape:
        raise ValueError(f"kendall_tau_range: x and y must be 1-D of the same length (systems), got {bx.shape} and "
                         f"{by.shape}")
    if bx.shape[0] < 2:
        raise ValueError(f"kendall_tau_range: need at least 2 systems, got {bx.shape[0]}")
    exact = bx.exact and by.exact
    xlo, xhi = _codes(bx)
    ylo, yhi = _codes(by)
    keys = ("conc", "disc", "need_x", "need_y", "only_x", "only_y", "either")
    up, down = dict.fromkeys(keys, 0), dict.fromkeys(keys, 0)  # the relaxation of (x, y) and of (x, −y)
    sure_c = sure_d = tied = untie_x = untie_y = 0
    for i in range(len(xlo) - 1):
        xp, x0, xm = _signs(xlo, xhi, i)
        yp, y0, ym = _signs(ylo, yhi, i)
        can_c, can_d = (xp & yp) | (xm & ym), (xp & ym) | (xm & yp)
        z00, z10, z01 = x0 & y0, (xp | xm) & y0, x0 & (yp | ym)  # the tied choices: both, y only, x only
        has_z = z00 | z10 | z01
        untie_x += int(np.sum(xp | xm))
        untie_y += int(np.sum(yp | ym))
        sure_c += int(np.sum(can_c & ~can_d & ~has_z))
        sure_d += int(np.sum(can_d & ~can_c & ~has_z))
        tied += int(np.sum(has_z & ~can_c & ~can_d))
        for c, pos, neg in ((up, can_c, can_d), (down, can_d, can_c)):
            z = has_z & ~pos  # tied at the optimum (rule 2); pairs that can be `pos` are (rule 1)
            c["conc"] += int(np.sum(pos))
            c["disc"] += int(np.sum(~pos & ~has_z))
            c["need_x"] += int(np.sum(z & ~z00 & z10))  # S* > 0: a tie only in y leaves x untied
            c["need_y"] += int(np.sum(z & ~z00 & ~z10))  # a tie only in x leaves y untied
            c["only_x"] += int(np.sum(z & z10 & ~z01))  # S* ≤ 0: untie where possible
            c["only_y"] += int(np.sum(z & z01 & ~z10))
            c["either"] += int(np.sum(z & z10 & z01))
    hi, lo = _best(up, untie_x, untie_y), 0.0 - _best(down, untie_x, untie_y)  # 0.0 − 0.0 is 0.0, not −0.0
    n_pairs = len(xlo) * (len(xlo) - 1) // 2
    return TauRange(lo=lo, hi=hi, concordant=sure_c, discordant=sure_d, tied=tied,
                    undecided=n_pairs - sure_c - sure_d - tied, exact=exact)


@dataclass(frozen=True)
class TauApRange(_Range):
    """The range of the symmetric τ_AP over a box of scores (:func:`tau_ap_range`): ``lo`` ≤ τ_AP ≤ ``hi`` at
    every point of the box without tied systems (τ_AP is undefined with ties). ``exact``: both inputs were
    points (``lo == hi`` is :func:`irscales.correlation.tau_ap_symmetric`, NaN where they tie)."""

    lo: float
    hi: float
    exact: bool


def _tau_ap_one(xlo, xhi, ylo, yhi) -> tuple[Fraction, Fraction]:
    """Bounds of Σ_u C(u)/A(u) of τ_AP with positions from x (the ``other`` ranking of
    :func:`irscales.correlation.tau_ap`) and y the reference, over the box (codes; module :func:`tau_ap_range`)."""
    lo_sum, hi_sum = Fraction(0), Fraction(0)
    for u in range(len(xlo)):
        xs, xp = xlo > xhi[u], xhi > xlo[u]  # v surely / possibly above u in x (strictly: no ties)
        ys, yp = ylo > yhi[u], yhi > ylo[u]
        xs[u] = xp[u] = ys[u] = yp[u] = False
        opt = xp & ~xs
        den = int(xs.sum()) + int((opt & ~ys).sum())
        lo_sum += Fraction(int((xs & ys).sum()), den) if den else 0
        add = int((opt & yp).sum())
        den = int(xs.sum()) + add
        hi_sum += Fraction(int((xs & yp).sum()) + add, den) if den else 0
    return lo_sum, hi_sum


def tau_ap_range(x, y) -> TauApRange:
    r"""The range of the symmetric τ_AP (:func:`irscales.correlation.tau_ap_symmetric`, the mean of
    τ_AP(x, y) and τ_AP(y, x), Fer17 eq. 2) between two score vectors known within bounds (as
    :func:`kendall_tau_range` takes them), over every point of the box where no two systems tie.

    .. math:: \tau_{AP}(Y, X) = \frac{2}{m - 1} \sum_{u \ne \mathrm{top}(X)} \frac{|A_X(u) \cap A_Y(u)|}{|A_X(u)|} - 1

    with A_X(u) the systems above u in X (|A_X(u)| = its position − 1). **Item by item**: the bounds allow, for
    each v, that v be surely / possibly above u in X (lo_v > hi_u / hi_v > lo_u) and in Y. The fraction of u is
    smallest with only the sure members of A_X(u) that are surely in A_Y(u) in the numerator and every possible
    member of A_X(u) that may be outside A_Y(u) in the denominator (each such member adds 0/1); largest with
    every possible member that may be in A_Y(u) counted in both (each adds 1/1). An item that may be the top of
    X has no term: its lower bound is 0 (the fractions are ≥ 0), its upper bound the largest fraction. Choosing
    per item independently relaxes the box, so the range is **sound** (an outer bound), computed in exact
    Fractions and widened by 1e-12 so that it holds the floating-point τ_AP of any point. Exact inputs give
    the point value (NaN with ties), bit for bit.
    """
    bx, by = as_bounds(x), as_bounds(y)
    if bx.lo.ndim != 1 or bx.shape != by.shape:
        raise ValueError(f"tau_ap_range: x and y must be 1-D of the same length (systems), got {bx.shape} and "
                         f"{by.shape}")
    m = bx.shape[0]
    if m < 2:
        raise ValueError(f"tau_ap_range: need at least 2 systems, got {m}")
    if bx.exact and by.exact:
        try:
            v = float(tau_ap_symmetric(np.asarray(bx.lo), np.asarray(by.lo)))
        except ValueError:  # tied systems: τ_AP is undefined
            v = float("nan")
        return TauApRange(v, v, True)
    xlo, xhi = _codes(bx)
    ylo, yhi = _codes(by)
    a_lo, a_hi = _tau_ap_one(ylo, yhi, xlo, xhi)  # τ_AP(x, y): positions from y, x the reference
    b_lo, b_hi = _tau_ap_one(xlo, xhi, ylo, yhi)  # τ_AP(y, x)
    k = Fraction(2, m - 1)
    lo, hi = (k * (a_lo + b_lo) - 2) / 2, (k * (a_hi + b_hi) - 2) / 2
    return TauApRange(max(-1.0, float(lo) - 1e-12), min(1.0, float(hi) + 1e-12), False)
