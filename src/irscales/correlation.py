"""Rank correlation between evaluation measures: Kendall's τ (overall, topic-by-topic) and τ_AP.

Everything here is a pure function of score arrays; nothing loads data.

Conventions
    A *score matrix* has shape ``(T, S)``: one row per topic, one column per system (FFF21 §3.3,
    Fer17 §1: "Φ is a T×S matrix"). A *ranking* is any array ``(..., S)`` of scores; larger is
    better, and the last axis holds the systems. Many rankings are handled at once: every function
    here is vectorised over the leading axes (e.g. ``(H, S)`` for H sampled ranking pairs).

Exactness
    Ties decide Kendall's τ, so they are decided exactly. Scores may be floats, integers, or an
    object array of :class:`fractions.Fraction` (what ``Measure.exact`` returns); Fractions are
    replaced by order-preserving integer codes (:func:`irscales.ranks.dense_ranks`) before any comparison, so two
    equal rationals are always a tie. Float scores are compared as given (``a < b`` on doubles, never
    through a tolerance): equal floats are a tie, different floats are not. Means over topics are
    exact when the scores are Fractions (:func:`system_means`); for floats the topics are summed in
    sorted order, so two systems with the same multiset of scores get bit-identical means.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Mapping

import numpy as np
from numpy.typing import ArrayLike

from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)
from irscales.ranks import dense_ranks

__all__ = ["kendall_tau", "tau_ap", "tau_ap_symmetric", "topic_by_topic_tau", "measure_pair_taus", "system_means"]

# Upper bound on the elements of one (chunk, S, S) comparison block, to bound memory (~20 MB int8).
_BLOCK = 20_000_000


def break_ties_by_order(values: ArrayLike) -> np.ndarray:
    """Strict integer scores (larger = better) that keep the order of ``values`` and break each tie
    by order of appearance: of two equal values, the one earlier on the last axis ranks higher.

    This is what ranking by a stable descending sort does (MATLAB's ``sort(x, 'descend')`` is
    stable), and it is how Fer17 ranks measure pairs before computing tauCorr and apCorr (§4.2.5):
    with it, Table 4's τ_AP tie at 0.8125 gives the printed tauCorr = 0.9735 and apCorr = 0.8815;
    averaging over the tie does not (0.9775 and 0.8938). Vectorised over leading axes: ``(..., S)``
    gives ``(..., S)`` with the values S − 1 (top) down to 0 in every row.
    """
    a = _ordinal(values, "ranking", min_systems=1)
    s = a.shape[-1]
    flat = a.reshape(-1, s)
    if not np.issubdtype(flat.dtype, np.floating):
        flat = flat.astype(np.int64)
    order = np.argsort(-flat, axis=-1, kind="stable")  # descending, equal values keep their order
    out = np.empty(flat.shape, dtype=np.int64)
    np.put_along_axis(out, order, np.broadcast_to(np.arange(s - 1, -1, -1), flat.shape).copy(), axis=-1)
    return out.reshape(a.shape)


def _ordinal(values, what: str, min_systems: int = 2) -> np.ndarray:
    """Scores as an array on which ``<`` and ``==`` are the exact order (codes for Fractions)."""
    a = np.asarray(values)
    if a.ndim == 0:
        raise ValueError(f"{what} must have at least one axis (the systems), got a scalar")
    if a.shape[-1] < min_systems:
        raise ValueError(f"{what} has {a.shape[-1]} systems on its last axis; need at least {min_systems}")
    if a.dtype == object:
        return dense_ranks(a)
    if not np.issubdtype(a.dtype, np.number) or np.issubdtype(a.dtype, np.complexfloating):
        raise ValueError(f"{what} must hold real numbers, got dtype {a.dtype}")
    if np.issubdtype(a.dtype, np.floating) and np.isnan(a).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(a))[0])
        raise ValueError(f"{what} contains NaN at index {where}; a missing score cannot be ranked")
    return a


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = np.asarray(x), np.asarray(y)
    if xa.shape != ya.shape:
        raise ValueError(f"the two rankings must have the same shape, got {xa.shape} and {ya.shape}")
    # Each side is only ever compared with itself, so separate code spaces are fine.
    return _ordinal(xa, "first ranking"), _ordinal(ya, "second ranking")


def system_means(scores: ArrayLike, decimals: int | None = None) -> np.ndarray:
    """Mean score of each system over the topics: ``Φ̄_j = (1/T) Σ_i Φ_ij`` (FFF21 §3.3).

    ``scores`` has shape ``(..., T, S)``. For an object array of Fractions or ints, and for integers
    whose sums could exceed 2^53, the means are exact Fractions (object array); for floats and smaller
    integers they are floats (exact for such integers), summed over topics in sorted order so that
    the result depends only on the multiset of a system's scores.

    ``decimals``: round the means to this many decimal digits, as FFF21 §7.1 footnote 9 does ("we
    rounded averages to 8 decimal digits"). Fractions are rounded exactly (half to even); floats with
    :func:`numpy.round`.
    """
    a = np.asarray(scores)
    if a.ndim < 2:
        raise ValueError(f"scores must have shape (..., T topics, S systems), got shape {a.shape}")
    n_topics = a.shape[-2]
    if n_topics == 0:
        raise ValueError("scores have no topics (axis -2 is empty); a mean over zero topics is undefined")
    if np.issubdtype(a.dtype, np.integer) and a.size and \
            max(abs(int(a.min())), abs(int(a.max()))) * n_topics >= 2**53:
        a = a.astype(object)  # float sums would round: ranked values φ beyond 2^53 / T (issue 27)
    if a.dtype == object:
        _ordinal(a, "scores", min_systems=1)  # validates the entries
        sums = a.sum(axis=-2)
        out = np.empty(sums.shape, dtype=object)
        for idx, s in np.ndenumerate(sums):
            m = Fraction(s) / n_topics
            out[idx] = round(m, decimals) if decimals is not None else m
        return out
    a = _ordinal(a, "scores", min_systems=1).astype(float)
    means = np.sort(a, axis=-2).sum(axis=-2) / n_topics
    return np.round(means, decimals) if decimals is not None else means


@dataclass(frozen=True)
class KendallCounts:
    """Pair counts behind Kendall's τ, each of shape ``(...)``.

    ``concordant`` (P), ``discordant`` (Q), ``ties_x`` (T: pairs tied in the first ranking only),
    ``ties_y`` (U: tied in the second only) and ``ties_both`` (tied in both; they enter neither T
    nor U). ``P + Q + T + U + ties_both = S(S-1)/2``.
    """

    concordant: np.ndarray
    discordant: np.ndarray
    ties_x: np.ndarray
    ties_y: np.ndarray
    ties_both: np.ndarray

    @property
    def tau(self) -> np.ndarray:
        """τ = (P − Q) / sqrt((P + Q + T)(P + Q + U)); NaN where a ranking is entirely tied."""
        p, q = self.concordant.astype(float), self.discordant.astype(float)
        den = np.sqrt((p + q + self.ties_x) * (p + q + self.ties_y))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (p - q) / np.where(den > 0, den, 1.0), np.nan)


def _signs(a: np.ndarray) -> np.ndarray:
    """sign(a_j − a_k) for every pair, as int8 of shape (..., S, S), via comparisons (exact)."""
    left, right = a[..., :, None], a[..., None, :]
    return (left > right).astype(np.int8) - (left < right).astype(np.int8)


def _counts_pairwise(xr: np.ndarray, yr: np.ndarray) -> np.ndarray:
    """(5, R) counts by comparing all S² pairs: O(S²) per ranking, fastest for small S."""
    n, s = xr.shape
    out = np.zeros((5, n), dtype=np.int64)
    step = max(1, _BLOCK // (s * s))
    for lo in range(0, n, step):
        sx, sy = _signs(xr[lo:lo + step]), _signs(yr[lo:lo + step])
        prod = sx * sy
        zx, zy = sx == 0, sy == 0
        # Each unordered pair appears twice in the full S×S block; the diagonal is tied in both.
        out[0, lo:lo + step] = (prod > 0).sum(axis=(-2, -1)) // 2
        out[1, lo:lo + step] = (prod < 0).sum(axis=(-2, -1)) // 2
        out[2, lo:lo + step] = (zx & ~zy).sum(axis=(-2, -1)) // 2
        out[3, lo:lo + step] = (~zx & zy).sum(axis=(-2, -1)) // 2
        out[4, lo:lo + step] = ((zx & zy).sum(axis=(-2, -1)) - s) // 2
    return out


def _dense_rows(a: np.ndarray) -> np.ndarray:
    """Dense ranks 0.. within each row (equal values share a rank; decided by ==)."""
    order = np.argsort(a, axis=-1, kind="stable")
    srt = np.take_along_axis(a, order, axis=-1)
    new = np.ones(srt.shape, dtype=np.int64)
    new[:, 0] = 0
    new[:, 1:] = srt[:, 1:] != srt[:, :-1]
    out = np.empty(a.shape, dtype=np.int64)
    np.put_along_axis(out, order, np.cumsum(new, axis=-1), axis=-1)
    return out


def _tied_pairs(sorted_keys: np.ndarray) -> np.ndarray:
    """Σ t(t−1)/2 over groups of equal values, per row of an already sorted array."""
    n = sorted_keys.shape[-1]
    idx = np.broadcast_to(np.arange(n), sorted_keys.shape)
    starts = np.ones(sorted_keys.shape, dtype=bool)
    starts[:, 1:] = sorted_keys[:, 1:] != sorted_keys[:, :-1]
    first = np.maximum.accumulate(np.where(starts, idx, 0), axis=-1)
    return (idx - first).sum(axis=-1)  # element k has k − first earlier equals


def _counts_sorted(xr: np.ndarray, yr: np.ndarray) -> np.ndarray:
    """(5, R) counts in O(S log S) per ranking: sort by (x, y), count inversions of y with a
    Fenwick tree run on all rankings at once (Knight's algorithm, vectorised across rows)."""
    n, s = xr.shape
    dx, dy = _dense_rows(xr), _dense_rows(yr)
    key = dx * s + dy                          # lexicographic (x, y), exact on dense ranks
    order = np.argsort(key, axis=-1, kind="stable")
    ys = np.take_along_axis(dy, order, axis=-1)
    n1 = _tied_pairs(np.sort(dx, axis=-1))
    n2 = _tied_pairs(np.sort(dy, axis=-1))
    n3 = _tied_pairs(np.take_along_axis(key, order, axis=-1))
    size = 1 << int(s).bit_length()           # power of two > s: the tree's root node
    steps = int(s).bit_length() + 1
    tree = np.zeros((n, size + 2), dtype=np.int64)  # column size + 1 absorbs finished updates
    rows = np.arange(n)
    disc = np.zeros(n, dtype=np.int64)
    for j in range(s):
        v = ys[:, j] + 1                       # 1-based position of y in the tree
        i, le = v.copy(), np.zeros(n, dtype=np.int64)
        for _ in range(steps):                 # prefix count of earlier y <= current y
            le += tree[rows, i]
            i -= i & -i
        disc += j - le                         # earlier elements with a larger y: discordant
        i = v
        for _ in range(steps):
            tree[rows, i] += 1
            i = np.where(i <= size, i + (i & -i), size + 1)
            i = np.minimum(i, size + 1)
    n0 = s * (s - 1) // 2
    return np.stack([n0 - n1 - n2 + n3 - disc, disc, n1 - n3, n2 - n3, n3])


# Above this many systems the sorting algorithm beats comparing all pairs (measured, 2 cores).
_SORTED_FROM = 200


def kendall_counts(x: ArrayLike, y: ArrayLike,
                   method: Literal["auto", "pairwise", "sorted"] = "auto") -> KendallCounts:
    """Concordant, discordant and tied pairs of two rankings (vectorised over leading axes).

    ``x`` and ``y`` have the same shape ``(..., S)``; systems are on the last axis. ``method``:
    ``"pairwise"`` compares all S² pairs (fast for small S), ``"sorted"`` counts discordances by
    sorting and a Fenwick tree in O(S log S) (Knight 1966); ``"auto"`` picks by S. Both are exact
    integer counts and agree (tested).
    """
    if method not in ("auto", "pairwise", "sorted"):
        raise ValueError(f"method must be 'auto', 'pairwise' or 'sorted', got {method!r}")
    xa, ya = _pair(x, y)
    lead = xa.shape[:-1]
    s = xa.shape[-1]
    xr, yr = xa.reshape(-1, s), ya.reshape(-1, s)
    if method == "sorted" or (method == "auto" and s >= _SORTED_FROM):
        out = _counts_sorted(xr, yr)
    else:
        out = _counts_pairwise(xr, yr)
    return KendallCounts(*(c.reshape(lead) for c in out))


def kendall_tau(x: ArrayLike, y: ArrayLike, ties: Literal["b", "order"] = "b") -> np.ndarray | float:
    r"""Kendall's τ between two rankings, exactly as FFF21 §3.3 and Fer17 eq. (1) define it.

    .. math:: \tau(X, Y) = \frac{P - Q}{\sqrt{(P + Q + T)(P + Q + U)}}

    P concordant pairs, Q discordant pairs, T pairs tied only in X, U pairs tied only in Y; a pair
    tied in both rankings counts in neither T nor U. This is Kendall's **τ_b** (Kendall 1948), the
    variant MATLAB's ``corr(..., 'type', 'Kendall')`` and :func:`scipy.stats.kendalltau` (default
    ``variant='b'``) compute. Reading T and U as *all* pairs tied in X (resp. Y), joint ties
    included, would give a different number whenever a pair is tied in both; the paper's sentence
    ("the number of ties, respectively, in the first and in the second ranking") is the textbook
    description of τ_b, so τ_b it is.

    ``ties="order"`` first breaks every tie of each ranking by order of appearance
    (:func:`break_ties_by_order`), so τ = 1 − 2Q/C(S, 2) with Q the discordant pairs: Fer17's
    tauCorr between two Rankings of Measure Pairs (§4.2.5).

    Vectorised: ``x``, ``y`` of shape ``(..., S)`` give τ of shape ``(...)`` (a float for 1-D
    input). NaN where one ranking has all systems tied (τ is undefined there).
    """
    if ties not in ("b", "order"):
        raise ValueError(f"ties must be 'b' or 'order', got {ties!r}")
    if ties == "order":
        x, y = _pair(x, y)
        x, y = break_ties_by_order(x), break_ties_by_order(y)
    tau = kendall_counts(x, y).tau
    return float(tau) if np.ndim(tau) == 0 else tau


#: Largest denominator a float score is read back as (:func:`rational_score`): P@k, recall, RR and AP on
#: short runs have far smaller ones; rationals this small are ≥ 10^-12 apart, far beyond a double's error.
RATIONAL_DENOMINATOR = 10**6
#: Relative distance under which two float means may be one exact value (or two, tied by rounding).
_NEAR = 1e-9


def rational_score(x: float) -> Fraction:
    """A float score as the rational it was computed as: the closest fraction with denominator at most
    :data:`RATIONAL_DENOMINATOR` when it rounds back to the same double (0.30000000000000004 is not
    3/10, 0.3 is; the double of 1/3 is 1/3); otherwise the double's own exact value."""
    f = Fraction(float(x))
    q = f.limit_denominator(RATIONAL_DENOMINATOR)
    return q if float(q) == float(x) else f


def exact_tied_means(scores: ArrayLike) -> np.ndarray:
    """System means (:func:`system_means`) whose order and ties are exact for float scores: where two
    float means of a row are within a relative 1e-9 of each other (floating point could make or break a
    tie there: P@10 hit counts summed in another order), those systems' means are recomputed exactly
    from the scores read as rationals (:func:`rational_score`) — an object array mixing the other floats
    and these Fractions, which compare exactly. Exact and integer inputs are returned as
    :func:`system_means` gives them."""
    a = np.asarray(scores)
    means = system_means(a)
    if means.dtype == object or not np.issubdtype(a.dtype, np.floating) or means.shape[-1] < 2:
        return means
    out = means.astype(object)
    n_topics = a.shape[-2]
    changed = False
    for lead in np.ndindex(means.shape[:-1]):
        row = means[lead]
        order = np.argsort(row, kind="stable")
        srt = row[order]
        tol = _NEAR * max(1.0, float(np.abs(srt).max()))
        close = np.flatnonzero(np.diff(srt) <= tol)
        for j in sorted({int(order[k]) for k in close} | {int(order[k + 1]) for k in close}):
            col = a[lead + (slice(None), j)]
            out[lead + (j,)] = sum((rational_score(v) for v in col), Fraction(0)) / n_topics
            changed = True
    return out if changed else means


def overall_tau(scores_x: ArrayLike, scores_y: ArrayLike, decimals: int | None = None) -> np.ndarray | float:
    """Overall τ (FFF21 §3.3): rank systems by their mean over topics under each measure, then τ.

    ``scores_x``, ``scores_y``: score matrices ``(..., T, S)`` of two measures on the same topics and
    systems (object arrays of Fractions give exact means; see :func:`system_means`). Float scores are
    ranked by :func:`exact_tied_means`: systems whose means are equal in exact arithmetic are tied, as
    they are with Fractions. ``decimals=8`` reproduces FFF21's rounding of the means (§7.1, footnote 9)
    instead.
    """
    xa, ya = np.asarray(scores_x), np.asarray(scores_y)
    if xa.shape != ya.shape:
        raise ValueError(f"the two score matrices must have the same shape, got {xa.shape} and {ya.shape}")
    if decimals is not None:
        return kendall_tau(system_means(xa, decimals), system_means(ya, decimals))
    return kendall_tau(exact_tied_means(xa), exact_tied_means(ya))


def topic_by_topic_tau(scores_x: ArrayLike, scores_y: ArrayLike) -> np.ndarray:
    """Topic-by-topic τ (FFF21 §3.3): τ between the two measures' rankings of systems on each topic.

    ``(..., T, S)`` score matrices give τ of shape ``(..., T)``; NaN on a topic where one measure
    ties all systems.
    """
    xa, ya = np.asarray(scores_x), np.asarray(scores_y)
    if xa.ndim < 2:
        raise ValueError(f"score matrices must have shape (..., T topics, S systems), got {xa.shape}")
    return np.asarray(kendall_tau(xa, ya))


def _tau_ap_average(rr: np.ndarray, oo: np.ndarray) -> np.ndarray:
    """Expected τ_AP over uniformly random tie-breaking of both rankings, in closed form.

    For system u let its tie group in X occupy 1-based positions a..a+g−1 (u lands on each with
    probability 1/g, and then the r group-mates above it are a uniform subset). By linearity,
    E[C/(i−1)] = (1/g) Σ_r (c_u + r·m_u/(g−1)) / (a+r−1), where c_u counts systems in strictly higher
    X groups that Y ranks above u and m_u the group-mates Y ranks above u, a pair tied in Y counting
    1/2 (its random order in Y is right half the time). With p = a+r−1 the sums over r are
    harmonic-number differences; the top position (p = 0) contributes nothing.
    """
    n, s = rr.shape
    harm = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, s + 1))])
    out = np.empty(n)
    step = max(1, _BLOCK // (s * s))
    for lo in range(0, n, step):
        r, o = rr[lo:lo + step], oo[lo:lo + step]
        ref_gt = r[:, None, :] > r[:, :, None]                 # [u, v]: Y ranks v above u
        ref_tie = r[:, None, :] == r[:, :, None]
        corr = ref_gt + 0.5 * ref_tie
        higher = o[:, None, :] > o[:, :, None]                  # [u, v]: v in a higher X group
        same = o[:, None, :] == o[:, :, None]
        np.einsum("kii->ki", same)[:] = False                   # u is not its own group-mate
        np.einsum("kii->ki", corr)[:] = 0.0
        c = (higher * corr).sum(axis=-1)
        m = (same * corr).sum(axis=-1)
        a = higher.sum(axis=-1) + 1                             # first position of u's group
        g = same.sum(axis=-1) + 1
        lo_p = np.maximum(a - 1, 1)
        hi_p = a + g - 2                                        # positions p = a−1 .. a+g−2
        s1 = np.where(hi_p >= lo_p, harm[np.maximum(hi_p, 0)] - harm[lo_p - 1], 0.0)
        n_terms = np.maximum(hi_p - lo_p + 1, 0)
        s2 = n_terms - (a - 1) * s1                             # Σ r/p = Σ (p − a + 1)/p
        with np.errstate(invalid="ignore", divide="ignore"):
            mates = np.where(g > 1, m / np.maximum(g - 1, 1) * s2, 0.0)
        expected = (c * s1 + mates) / g
        out[lo:lo + step] = 2.0 / (s - 1) * expected.sum(axis=-1) - 1.0
    return out


def tau_ap(reference: ArrayLike, other: ArrayLike,
           ties: Literal["raise", "average", "order"] = "raise") -> np.ndarray | float:
    r"""AP correlation τ_AP of ``other`` with ``reference`` as the reference ranking (Fer17 eq. 2).

    .. math:: \tau_{AP}(Y, X) = \frac{2}{m - 1} \sum_{i=2}^{m} \frac{C(i)}{i - 1} - 1

    with Y = ``reference``, X = ``other``, m systems. Following Yilmaz, Aslam & Robertson (SIGIR
    2008), positions i are those of X (systems sorted by decreasing score in ``other``) and C(i) is
    the number of systems above position i in X that Y also places above the system at position i.
    (Fer17's sentence says "the item at rank i in Y", which cannot be meant literally: i indexes X.)
    Not symmetric; Fer17 uses it with the first measure of a pair as the reference — call
    ``tau_ap(first, second)``. τ_AP ∈ [−1, 1]; 1 iff the orders agree.

    Ties: τ_AP is undefined with ties (Fer17 §2.2). ``ties="raise"`` (default) raises a
    ``ValueError`` naming the first ranking with tied systems. ``ties="average"`` returns the
    average of τ_AP over all ways of breaking the ties of both rankings uniformly at random — what
    Fer17 §2.2 reports its ref. [71] estimating by sampling orders — computed exactly in closed form
    (see ``_tau_ap_average``); without ties it equals the plain τ_AP. ``ties="order"`` breaks the
    ties of both rankings by order of appearance (:func:`break_ties_by_order`), Fer17's apCorr
    convention (§4.2.5).

    Vectorised: ``(..., S)`` arrays give ``(...)``.
    """
    if ties not in ("raise", "average", "order"):
        raise ValueError(f"ties must be 'raise', 'average' or 'order', got {ties!r}")
    ref, oth = _pair(reference, other)
    if ties == "order":
        ref, oth = break_ties_by_order(ref), break_ties_by_order(oth)
    s = ref.shape[-1]
    lead = ref.shape[:-1]
    rr, oo = ref.reshape(-1, s), oth.reshape(-1, s)
    if ties == "average":
        res = _tau_ap_average(rr, oo).reshape(lead)
        return float(res) if res.ndim == 0 else res
    for name, arr in (("reference", rr), ("other", oo)):
        srt = np.sort(arr, axis=-1)
        tied = (srt[:, 1:] == srt[:, :-1]).any(axis=-1)
        if tied.any():
            row = int(np.argmax(tied))
            where = np.unravel_index(row, lead) if lead else ()
            raise ValueError(f"τ_AP is undefined with ties: the {name} ranking at index {tuple(map(int, where))} "
                             "has tied systems")
    key = oo if np.issubdtype(oo.dtype, np.floating) else oo.astype(np.int64)
    order = np.argsort(-key, axis=-1)  # no ties here, so the sort kind does not matter
    ref_in_x = np.take_along_axis(rr, order, axis=-1)
    weights = np.zeros(s)
    weights[1:] = 1.0 / np.arange(1, s)  # 1/(i-1) for 1-based positions i = 2..m
    below = np.tril(np.ones((s, s), dtype=bool), k=-1)  # [i, j] true for j above i (j < i)
    out = np.empty(rr.shape[0])
    step = max(1, _BLOCK // (s * s))
    for lo in range(0, rr.shape[0], step):
        blk = ref_in_x[lo:lo + step]
        correct = (blk[:, None, :] > blk[:, :, None]) & below  # system j above i in X and in Y
        c = correct.sum(axis=-1)
        out[lo:lo + step] = 2.0 / (s - 1) * (c * weights).sum(axis=-1) - 1.0
    res = out.reshape(lead)
    return float(res) if res.ndim == 0 else res


def tau_ap_symmetric(x: ArrayLike, y: ArrayLike,
                     ties: Literal["raise", "average", "order"] = "raise") -> np.ndarray | float:
    """Symmetric τ_AP of Yilmaz et al. (2008): the average of τ_AP(x, y) and τ_AP(y, x)."""
    res = (np.asarray(tau_ap(x, y, ties)) + np.asarray(tau_ap(y, x, ties))) / 2.0
    return float(res) if res.ndim == 0 else res


def measure_pair_taus(original: Mapping[str, ArrayLike], ranked: Mapping[str, ArrayLike] | None = None,
                      decimals: int | None = None) -> pd.DataFrame:
    """Overall τ between every pair of measures, and between their ranked versions (FFF21 Table 4).

    ``original`` (and ``ranked``) map a measure name to its ``(T, S)`` score matrix; all on the same
    topics and systems. One row per unordered pair, in the order of the mapping: ``tau`` for the
    measures, ``tau_ranked`` for their ranked versions and ``delta`` = (tau_ranked − tau)/tau, the
    "Δ%" column of Table 4 (as a fraction).
    """
    names = list(original)
    if ranked is not None and set(ranked) != set(names):
        raise ValueError(f"ranked versions given for {sorted(ranked)} but measures are {sorted(names)}")
    means = {k: system_means(np.asarray(v), decimals) for k, v in original.items()}
    rmeans = {k: system_means(np.asarray(v), decimals) for k, v in ranked.items()} if ranked else {}
    shapes = {np.asarray(v).shape for v in original.values()}
    if len(shapes) != 1:
        raise ValueError(f"all score matrices must have the same shape, got {sorted(shapes)}")
    rows = []
    for a_idx, a in enumerate(names):
        for b in names[a_idx + 1:]:
            row = {"measure_a": a, "measure_b": b, "tau": kendall_tau(means[a], means[b])}
            if ranked:
                row["tau_ranked"] = kendall_tau(rmeans[a], rmeans[b])
                row["delta"] = (row["tau_ranked"] - row["tau"]) / row["tau"] if row["tau"] else np.nan
            rows.append(row)
    return pd.DataFrame(rows)
