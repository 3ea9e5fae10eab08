r"""Significance decisions proven over a box of scores: every (topic, system) score known only to lie in
[lo, hi] (a bracket of φ with a proven error, issue 51), and each pair's decision either **proven** — the same
at every point of the box — or **undecided**.

For a pair (a, b) of systems the paired differences range over d_t ∈ [lo_a,t − hi_b,t, hi_a,t − lo_b,t]
(exact: one topic's d_t depends on its two scores only, so the box of the pair's differences is exactly this
product of intervals). Optional *keys* (:class:`ScoreBox`) tighten it: scores with equal keys in one topic are
equal (d_t = 0), and with ``ordered`` keys the order of the keys within a topic is the scores' strict order
(the sign of d_t is known; :class:`irscales.certified.ScoreBox`). The keys of φ are the measure's exact values within a topic (φ ranks the values
of one scale, FFF21 §5.2.2: equal values share φ, a larger value has the larger φ) or, where the measure
has no exact values, the relevance vector (equal vectors share φ).

Each test returns :class:`ProvenTest`: the range [p_lo, p_hi] of its p-value over the box (its statistic's
outer bounds mapped through the p-value, which is monotone in it), and the exact range of the mean difference.
Every bound is an outer bound: wider than the true range is allowed (more "undecided"), narrower never.

* t test (:func:`proven_t_test`): t² = (T − 1) S² / (T·SS), S = Σd, SS = ‖C d‖² (C the centring
  projection). S lies in [Σ lo_d, Σ hi_d] exactly; with d = m + r∘u (m the midpoints, r the half-widths,
  |u| ≤ 1) the triangle inequality and ‖C‖ ≤ 1 give ‖C m‖ − ‖r‖ ≤ ‖C d‖ ≤ ‖C m‖ + ‖r‖, and also
  SS = Σd² − S²/T ≤ Σ max(lo_d², hi_d²) − min S²/T. All of it in exact integers (the scores on one common
  denominator), square roots bounded by integer square roots rounded outward.
* sign test (:func:`proven_sign_test`): per topic the signs d_t can take; every reachable (n₊, n₋) is
  enumerated (a reachability grid), and p ranges over the exact sign-test p-values there.
* randomisation test (:func:`proven_randomisation_test`): for each of the same sign flips ε (the seeded
  ones, or all 2^T) the events "null ≥ observed" and "null ≤ observed" read Σ_{ε_t = −1} d_t ≤ 0 and ≥ 0;
  each is surely true, surely false or open over the box (the interval of that sum, with a margin that
  covers float rounding), and p is monotone in the two counts.
* Wilcoxon signed-rank (:func:`proven_signed_rank_test`): where every sign is fixed, bounds of each rank
  (surely smaller / larger magnitudes), hence of W₊, w and of the tie correction, through the normal
  approximation (n > 15); a pair with an open sign, or with n ≤ 15 and magnitudes that may tie or swap, is
  **undecided** whatever its p.
* Tukey's HSD after the two-way ANOVA (:func:`proven_tukey`): q² = df·S²/(T·SSE), SSE = ‖P y‖² with P the
  orthogonal projection onto the residuals of topic + system; ‖P y_mid‖ ± ‖r‖ bounds ‖P y‖ (‖P‖ ≤ 1).

Multiple comparisons (:func:`proven_corrected`): Holm, Bonferroni and no correction reject more when any
p-value falls (they are monotone), so the set rejected at p_hi (every p at its largest) is rejected at every
point and the set not rejected at p_lo is rejected nowhere: R(p_hi) ⊆ R(p) ⊆ R(p_lo).

Float soundness: integer and Fraction arithmetic wherever the values are rational; where a float enters
(square roots, the t and studentized-range tails, the randomisation sums), the bound is widened by a relative
margin (:data:`MARGIN`) far above the rounding error of both this computation and the point computation it
must contain.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from irscales.certified import ScoreBox
from irscales.exact import common_denominator
from irscales.stats._pairwise import sign_pvalues
from irscales.stats._randomisation import CELLS, EXACT_UP_TO, PERMUTATIONS, sign_patterns
from irscales.stats._results import check_alpha, pairs
from irscales.stats._tukey import studentized_range_critical, studentized_range_sf

__all__ = ["ProvenTest", "proven_test", "proven_corrected"]

#: Relative margin by which every float bound is widened outward (rounding errors are below 1e-12 here).
MARGIN = 1e-9


@dataclass(frozen=True, kw_only=True)
class PairBox:
    """The box of every pair's paired differences (T, P), on one integer scale: d = ``lo`` … ``hi`` / ``unit``
    (object arrays of Python ints), P pairs in :func:`irscales.stats._results.pairs` order. ``sign``: the sign
    of d_t where the keys fix it (+1, −1, 0), else 2 (open)."""

    lo: np.ndarray
    hi: np.ndarray
    unit: int
    sign: np.ndarray
    first: np.ndarray
    second: np.ndarray
    size: np.ndarray  # per pair: the largest |score| of its two systems over the topics (the floats' scale)

    @property
    def n_topics(self) -> int:
        return self.lo.shape[0]


def pair_box(box: ScoreBox) -> PairBox:
    """Every pair's differences as a box (module docstring): [lo_a − hi_b, hi_a − lo_b], tightened by the keys
    (equal keys: d = 0; ordered keys: d ≥ 0 or d ≤ 0 as they say, the sign strict). With the values shown
    (``box.mid``) the box keeps them inside: equal keys fix d = 0 where their values shown are equal, the keys'
    order constrains d only where the values shown follow it, strictly only where they are apart (a point
    with d = 0 is then in the box, so an outcome proven over it holds for the values shown too)."""
    t, s = box.lo.shape
    both = common_denominator(np.concatenate([box.lo, box.hi], axis=1), exact_only=True)
    ints = both.ints.astype(object)
    lo, hi = ints[:, :s], ints[:, s:]
    i, j = pairs(s)
    dlo, dhi = lo[:, i] - hi[:, j], hi[:, i] - lo[:, j]
    sign = np.full(dlo.shape, 2, dtype=np.int8)
    sign[np.asarray(dlo > 0, dtype=bool)] = 1
    sign[np.asarray(dhi < 0, dtype=bool)] = -1
    sign[np.asarray((dlo == 0) & (dhi == 0), dtype=bool)] = 0
    if box.keys is not None:
        k = np.asarray(box.keys, dtype=object)
        same = np.asarray(k[:, i] == k[:, j], dtype=bool)
        if box.mid is not None:  # the values shown must be a point of the box: equal keys, equal values shown
            m = box.mid
            same &= np.asarray(m[:, i] == m[:, j], dtype=bool)
        sign[same] = 0
        dlo, dhi = np.where(same, 0, dlo), np.where(same, 0, dhi)
        if box.ordered:
            up, down = np.asarray(k[:, i] > k[:, j], dtype=bool), np.asarray(k[:, i] < k[:, j], dtype=bool)
            if box.mid is None:
                sign[up], sign[down] = 1, -1
            else:  # the keys' order where the values shown follow it: strict where they are apart, else d ≥ 0
                mi, mj = box.mid[:, i], box.mid[:, j]
                sign[up & np.asarray(mi > mj, dtype=bool)] = 1
                sign[down & np.asarray(mi < mj, dtype=bool)] = -1
                up &= np.asarray(mi >= mj, dtype=bool)
                down &= np.asarray(mi <= mj, dtype=bool)
            dlo = np.where(up & np.asarray(dlo < 0, dtype=bool), 0, dlo)
            dhi = np.where(down & np.asarray(dhi > 0, dtype=bool), 0, dhi)
    mag = np.maximum(np.abs(lo), np.abs(hi)).max(axis=0)
    return PairBox(lo=dlo.astype(object), hi=dhi.astype(object), unit=both.denominator, sign=sign, first=i, second=j,
                   size=np.maximum(mag[i], mag[j]))


@dataclass(frozen=True, kw_only=True)
class ProvenTest:
    """A test over a box, per pair: ``p_lo`` ≤ p ≤ ``p_hi`` at every point (floats; NaN where no p-value is
    computed), ``statistic_lo`` / ``statistic_hi`` bounds of |statistic| (the test's), the exact range of the
    mean difference a − b (``diff_lo``, ``diff_hi``: Fractions of the scores' unit), and ``zero_not_significant``:
    whether a zero mean difference is never significant in this test (t, randomisation, Tukey). ``sure`` /
    ``possible`` (set by Tukey, whose decision is on its statistic): significant at every point / at some;
    None where the decision is ``p ≤ α`` on the p-values (:func:`proven_corrected`). ``open_pairs``: pairs that
    are undecided whatever their p (Wilcoxon with an open sign or rank)."""

    test: str
    p_lo: np.ndarray
    p_hi: np.ndarray
    statistic_lo: np.ndarray
    statistic_hi: np.ndarray
    diff_lo: np.ndarray
    diff_hi: np.ndarray
    zero_not_significant: bool
    sure: np.ndarray | None = None
    possible: np.ndarray | None = None
    open_pairs: np.ndarray | None = None


def _sums(pb: PairBox) -> tuple[np.ndarray, np.ndarray]:
    return pb.lo.sum(axis=0), pb.hi.sum(axis=0)


def _mean_diffs(pb: PairBox) -> tuple[np.ndarray, np.ndarray]:
    """Exact bounds of the mean difference per pair (Fractions of the scores' unit)."""
    slo, shi = _sums(pb)
    den = pb.unit * pb.n_topics
    return (np.array([Fraction(int(x), den) for x in slo], dtype=object),
            np.array([Fraction(int(x), den) for x in shi], dtype=object))


def _abs_range(slo: np.ndarray, shi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest |S| for S in [slo, shi] (object ints)."""
    straddle = np.asarray((slo <= 0) & (shi >= 0), dtype=bool)
    a, b = np.abs(slo), np.abs(shi)
    small = np.where(straddle, 0, np.where(np.asarray(a < b, dtype=bool), a, b))
    big = np.where(np.asarray(a > b, dtype=bool), a, b)
    return small, big


def _sqrt_up(x: int) -> int:
    """⌈√x⌉ for an integer x ≥ 0."""
    r = math.isqrt(x)
    return r if r * r == x else r + 1


def _norm_bounds(a: int, b: int) -> tuple[int, int]:
    """Integer bounds of (√a − √b)₊² and (√a + √b)² (a, b ≥ 0 integers): a + b ∓ 2√(ab), √(ab) rounded
    outward."""
    root = _sqrt_up(a * b)
    low = 0 if a <= b else max(0, a + b - 2 * root)
    return low, a + b + 2 * root


def _float(x: Fraction) -> float:
    """x ≥ 0 as the nearest float, +∞ beyond the float range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


def _float_down(x: Fraction) -> float:
    """A float ≤ x (x ≥ 0)."""
    return _float(x) * (1 - MARGIN)


def _float_up(x: Fraction) -> float:
    """A float ≥ x (x ≥ 0)."""
    return _float(x) * (1 + MARGIN)


def proven_t_test(pb: PairBox) -> ProvenTest:
    """The paired t test (:func:`irscales.stats._pairwise.paired_t_test`) over the box: the range of |t| and of
    p = 2·P(T_{T−1} > |t|) (see the module docstring for the bounds; all in exact integers but the final
    square root and tail, widened by :data:`MARGIN`). A pair whose differences may all be equal and nonzero
    may have |t| = ∞ (p = 0); one whose differences may all be 0 may be identical (p undefined, not
    significant: p = 1 as the comparison reads it)."""
    t = pb.n_topics
    slo, shi = _sums(pb)
    small, big = _abs_range(slo, shi)
    m, r = pb.lo + pb.hi, pb.hi - pb.lo  # doubled midpoints and widths: t is scale-invariant
    sm = m.sum(axis=0)
    a = t * (m * m).sum(axis=0) - sm * sm          # T·‖C m‖²
    b = t * (r * r).sum(axis=0)                    # T·‖r‖²
    sq = np.where(np.asarray(np.abs(pb.lo) > np.abs(pb.hi), dtype=bool), pb.lo * pb.lo, pb.hi * pb.hi)
    alt = 4 * (t * sq.sum(axis=0) - small * small)  # T·Σ max(lo², hi²) − min S², doubled: ≥ T·‖C d‖²·4
    t_lo, t_hi = np.zeros(len(a)), np.zeros(len(a))
    for k in range(len(a)):
        q_lo, q_hi = _norm_bounds(int(a[k]), int(b[k]))
        q_hi = min(q_hi, int(alt[k]))
        s_small, s_big = 2 * int(small[k]), 2 * int(big[k])  # doubled |S|
        t_lo[k] = (math.inf if q_hi == 0 else math.sqrt(_float_down(Fraction((t - 1) * s_small ** 2, q_hi)))
                   ) if s_small else 0.0
        t_hi[k] = (math.inf if q_lo == 0 else math.sqrt(_float_up(Fraction((t - 1) * s_big ** 2, q_lo)))
                   ) if s_big else 0.0
    t_lo *= 1 - MARGIN
    t_hi *= 1 + MARGIN
    p_hi = np.minimum(1.0, 2.0 * stats.t.sf(t_lo, t - 1) * (1 + MARGIN))
    p_lo = 2.0 * stats.t.sf(t_hi, t - 1) * (1 - MARGIN)
    diff_lo, diff_hi = _mean_diffs(pb)
    return ProvenTest(test="ttest", p_lo=p_lo, p_hi=p_hi, statistic_lo=t_lo, statistic_hi=t_hi, diff_lo=diff_lo,
                      diff_hi=diff_hi, zero_not_significant=True)


def _reachable(sign_sets: list[tuple[bool, bool, bool]], t: int) -> np.ndarray:
    """(n₊, n₋) reachable when each topic picks one sign of its set (pos, zero, neg): a (T+1, T+1) grid."""
    grid = np.zeros((t + 1, t + 1), dtype=bool)
    grid[0, 0] = True
    for pos, zero, neg in sign_sets:
        new = grid.copy() if zero else np.zeros_like(grid)
        if pos:
            new[1:, :] |= grid[:-1, :]
        if neg:
            new[:, 1:] |= grid[:, :-1]
        grid = new
    return grid


def proven_sign_test(pb: PairBox, alpha: float = 0.05) -> ProvenTest:
    """The sign test (:func:`irscales.stats._pairwise.sign_test`, ties discarded) over the box: per topic the
    signs d_t can take (fixed where the keys or the bracket fix it), every reachable (n₊, n₋), and p over them
    — the exact p-values of those counts, so ``p_lo`` / ``p_hi`` are p-values the point test can return."""
    a = check_alpha(alpha)
    t = pb.n_topics
    pos = np.asarray((pb.sign == 1) | ((pb.sign == 2) & (pb.hi > 0)), dtype=bool)
    neg = np.asarray((pb.sign == -1) | ((pb.sign == 2) & (pb.lo < 0)), dtype=bool)
    zero = np.asarray((pb.sign == 0) | ((pb.sign == 2) & (pb.lo <= 0) & (pb.hi >= 0)), dtype=bool)
    n_pairs = pos.shape[1]
    p_lo, p_hi = np.empty(n_pairs), np.empty(n_pairs)
    s_lo, s_hi = np.empty(n_pairs), np.empty(n_pairs)
    for k in range(n_pairs):
        sure_p = int((pos[:, k] & ~zero[:, k] & ~neg[:, k]).sum())
        sure_n = int((neg[:, k] & ~zero[:, k] & ~pos[:, k]).sum())
        open_ = np.flatnonzero((pos[:, k].astype(int) + zero[:, k] + neg[:, k]) > 1)
        grid = _reachable([(pos[u, k], zero[u, k], neg[u, k]) for u in open_], t)
        npos, nneg = np.nonzero(grid)
        npos, nneg = npos + sure_p, nneg + sure_n
        p, _ = sign_pvalues(npos + nneg, np.minimum(npos, nneg), a)
        p_lo[k], p_hi[k] = p.min(), p.max()
        s_lo[k], s_hi[k] = npos.min(), npos.max()
    diff_lo, diff_hi = _mean_diffs(pb)
    return ProvenTest(test="sign", p_lo=p_lo, p_hi=p_hi, statistic_lo=s_lo, statistic_hi=s_hi, diff_lo=diff_lo,
                      diff_hi=diff_hi, zero_not_significant=False)


def _scaled_floats(x: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Object ints (T, P) as floats x / 2^bits[p] (each within 2^-60 of its value, relative to 2^bits)."""
    shift = np.maximum(bits - 62, 0)
    out = np.empty(x.shape)
    for k in range(x.shape[1]):
        sh = int(shift[k])
        out[:, k] = [math.ldexp(float(int(v) >> sh), sh - int(bits[k])) for v in x[:, k]]
    return out


def proven_randomisation_test(pb: PairBox, *, permutations: int = PERMUTATIONS, seed: int = 0,
                              exact_up_to: int = EXACT_UP_TO) -> ProvenTest:
    """The paired randomisation test (:func:`irscales.stats._randomisation.randomisation_test`) over the box, on
    the same sign flips (all 2^T when T ≤ ``exact_up_to``, else ``permutations`` from ``seed``). For a flip
    flipping the topics F, "null ≥ observed" is Σ_F d_t ≤ 0 and "null ≤ observed" is Σ_F d_t ≥ 0 (both when
    the sum is 0); over the box Σ_F d_t lies in [Σ_F lo, Σ_F hi]. An event is sure where the interval is
    on its side by more than a margin (float sums on each pair's scale, error ≤ T²·2^-52) or is the point 0
    (every flipped d_t fixed at 0), possible where the interval reaches its side; p = min(1, 2·min(P≥, P≤)) is
    increasing in both counts, so sure counts give p_lo and possible counts p_hi."""
    t = pb.n_topics
    n_pairs = pb.lo.shape[1]
    mag = np.maximum(np.abs(pb.lo), np.abs(pb.hi))
    big = mag.max(axis=0) if t else np.zeros(n_pairs, dtype=object)
    bits = np.array([max(int(v).bit_length(), 1) for v in big], dtype=np.int64)
    lo, hi = _scaled_floats(pb.lo, bits), _scaled_floats(pb.hi, bits)
    free = np.asarray((pb.lo != 0) | (pb.hi != 0), dtype=float)  # topics whose d_t is not fixed at 0
    # open within 1e-10 of the pair's largest |d| plus 1e-12 of its largest |score| (the point test's floats
    # differ from exact sums by about T·2^-53 of the scores, and it counts a null within 1e-14 as equal)
    rel = np.array([_float(Fraction(int(z), 2**int(b))) for z, b in zip(pb.size, bits)])
    delta = (max(1e-10, 8.0 * t * t * 2.0**-52) + 1e-12 * t * rel)[None, :]
    exact = t <= exact_up_to
    n = 2**t if exact else permutations
    counts = {k: np.zeros(n_pairs, dtype=np.int64) for k in ("ge_sure", "ge_poss", "le_sure", "le_poss")}
    for signs in sign_patterns(t, exact, permutations, seed, max(1, CELLS // max(n_pairs, t))):
        flipped = (signs < 0).astype(float)
        s_lo, s_hi = flipped @ lo, flipped @ hi
        zero = (flipped @ free) == 0
        counts["ge_sure"] += ((s_hi < -delta) | zero).sum(axis=0)
        counts["ge_poss"] += (s_lo <= delta).sum(axis=0)
        counts["le_sure"] += ((s_lo > delta) | zero).sum(axis=0)
        counts["le_poss"] += (s_hi >= -delta).sum(axis=0)
    extra = 0 if exact else 1

    def p_of(ge, le):
        return np.minimum(1.0, 2 * np.minimum((ge + extra) / (n + extra), (le + extra) / (n + extra)))

    p_lo, p_hi = p_of(counts["ge_sure"], counts["le_sure"]), p_of(counts["ge_poss"], counts["le_poss"])
    dlo, dhi = _mean_diffs(pb)
    small = np.array([0.0 if a <= 0 <= b else float(min(abs(a), abs(b))) for a, b in zip(dlo, dhi)])
    large = np.array([float(max(abs(a), abs(b))) for a, b in zip(dlo, dhi)])
    return ProvenTest(test="randomisation", p_lo=p_lo, p_hi=p_hi, statistic_lo=small, statistic_hi=large, diff_lo=dlo,
                      diff_hi=dhi, zero_not_significant=True)


def _signrank_bounds(a: list, b: list, pos: list[bool]) -> tuple[float, float] | None:
    """p range of the signed-rank test's normal approximation (n > 15) for fixed signs ``pos`` and magnitudes in
    [a_t, b_t] (:func:`proven_signed_rank_test`); None where n ≤ 15 (the exact null distribution is left open)."""
    n = len(a)
    if n <= 15:
        return None
    total = n * (n + 1) // 2
    # the rank of t (an average rank for ties) lies between 1 + #{surely smaller} and n − #{surely larger}
    a_s, b_s = sorted(a), sorted(b)
    r_lo = [1 + bisect.bisect_left(b_s, x) for x in a]  # b_u < a_t (never t itself: b_t ≥ a_t)
    r_hi = [bisect.bisect_right(a_s, x) for x in b]      # n − #{a_u > b_t}
    n_pos = sum(pos)
    w_lo = max(sum(r for r, p in zip(r_lo, pos) if p), n_pos * (n_pos + 1) // 2)
    w_hi = min(sum(r for r, p in zip(r_hi, pos) if p), total - (n - n_pos) * (n - n_pos + 1) // 2)

    def small(w):
        return min(w, total - w)

    w_min = min(small(w_lo), small(w_hi))
    w_max = small(min(max(Fraction(total, 2), w_lo), w_hi))
    # ties: only among magnitudes whose intervals meet; a component of c meeting intervals adds at most c³ − c
    ties, comp, reach = 0, 0, None
    for x, y in sorted(zip(a, b)):
        if reach is not None and x <= reach:
            comp, reach = comp + 1, max(reach, y)
        else:
            ties += comp ** 3 - comp
            comp, reach = 1, y
    ties += comp ** 3 - comp
    base = Fraction(n * (n + 1) * (2 * n + 1), 24)
    mu = Fraction(n * (n + 1), 4)
    z_lo = float(w_min - mu) / math.sqrt(float(base - Fraction(ties, 48)))
    z_hi = float(w_max - mu) / math.sqrt(float(base))
    p_lo = 2.0 * stats.norm.cdf(z_lo * (1 + MARGIN) - MARGIN) * (1 - MARGIN)
    p_hi = min(1.0, 2.0 * stats.norm.cdf(min(0.0, z_hi * (1 - MARGIN) + MARGIN)) * (1 + MARGIN))
    return p_lo, p_hi


def proven_signed_rank_test(pb: PairBox, p_mid: np.ndarray | None = None) -> ProvenTest:
    """The Wilcoxon signed-rank test (:func:`irscales.stats._pairwise.signed_rank_test`) over the box. Where the
    sign of some d_t is open, the pair is open (``open_pairs``: undecided whatever its p). Where every sign is
    fixed, the n nonzero |d_t| lie in intervals [a_t, b_t]: if every two are disjoint or the same point, W₊
    and the ties are one value over the box and p is the point's (``p_mid``); otherwise, for n > 15 (the
    normal approximation the point test uses there), each rank lies between 1 + #{u: b_u < a_t} and
    n − #{u: a_u > b_t} (an average rank of a tie group too), so W₊ lies between the sums over the positive
    topics (and [n₊(n₊+1)/2, n(n+1)/2 − n₋(n₋+1)/2]); w = min(W₊, W₋) ranges over the image of that interval,
    and with tie term Σ(g³ − g) between 0 and Σ over the groups of meeting intervals (c³ − c),
    p = 2Φ((w − n(n+1)/4)/σ) is increasing in w and in σ (w ≤ n(n+1)/4): p_lo at the smallest w and σ, p_hi at
    the largest. For n ≤ 15 with meeting intervals the pair is open."""
    t, n_pairs = pb.lo.shape
    fixed_sign = np.asarray(pb.sign != 2, dtype=bool)
    open_ = ~fixed_sign.all(axis=0)
    mid = np.full(n_pairs, np.nan) if p_mid is None else np.asarray(p_mid, dtype=float)
    p_lo, p_hi = np.where(open_, 0.0, mid), np.where(open_, 1.0, mid)
    for k in np.flatnonzero(~open_):
        nz = np.flatnonzero(pb.sign[:, k] != 0)
        pos = [bool(pb.sign[u, k] == 1) for u in nz]
        a = [max(int(pb.lo[u, k]), 0) if p else max(-int(pb.hi[u, k]), 0) for u, p in zip(nz, pos)]
        b = [int(pb.hi[u, k]) if p else -int(pb.lo[u, k]) for u, p in zip(nz, pos)]
        spans = sorted(zip(a, b))
        if all(b0 < a1 or a0 == b0 == a1 == b1 for (a0, b0), (a1, b1) in zip(spans, spans[1:])):
            continue  # W₊, n and the ties are fixed: the point's p everywhere
        bounds = _signrank_bounds(a, b, pos)
        if bounds is None:
            open_[k], p_lo[k], p_hi[k] = True, 0.0, 1.0
        else:
            p_lo[k], p_hi[k] = bounds
    nan = np.full(n_pairs, np.nan)
    diff_lo, diff_hi = _mean_diffs(pb)
    return ProvenTest(test="signrank", p_lo=p_lo, p_hi=p_hi, statistic_lo=nan, statistic_hi=nan, diff_lo=diff_lo,
                      diff_hi=diff_hi, zero_not_significant=False, open_pairs=open_)


def proven_tukey(box: ScoreBox, pb: PairBox, alpha: float = 0.05, pvalues: bool = False) -> ProvenTest:
    """Tukey's HSD after the two-way ANOVA (:func:`irscales.stats._tukey.anova2_tukey`) over the box. With y the
    (T, S) scores, q_ij² = df·S_ij²/(T·SSE), S_ij = Σ_t d_t, df = (T − 1)(S − 1), SSE = ‖P y‖² for P the
    orthogonal projection onto the residuals of the topic and system effects. With y = y_m + r∘u (midpoints,
    half-widths, |u| ≤ 1), ‖P y_m‖ − ‖r‖ ≤ ‖P y‖ ≤ ‖P y_m‖ + ‖r‖; S_ij's range is exact. Integers throughout
    (T·S·P y_m is an integer matrix on the common denominator), then q against the critical value
    q_{1−α}(S, df) with :data:`MARGIN`: ``sure`` where q_lo > crit, ``possible`` where q_hi > crit."""
    t, s = box.lo.shape
    both = common_denominator(np.concatenate([box.lo, box.hi], axis=1), exact_only=True)
    if both.denominator != pb.unit:
        raise ValueError("the pair box is not on the score box's scale")
    ints = both.ints.astype(object)
    m, r = ints[:, :s] + ints[:, s:], ints[:, s:] - ints[:, :s]  # doubled
    e = t * s * m - t * m.sum(axis=1)[:, None] - s * m.sum(axis=0)[None, :] + m.sum()  # T·S·P m
    a = int((e * e).sum())                    # (TS)²‖P m‖²
    b = (t * s) ** 2 * int((r * r).sum())      # (TS)²‖r‖²
    sse_lo, sse_hi = _norm_bounds(a, b)        # (TS)²·4·SSE bounds
    df = (t - 1) * (s - 1)
    slo, shi = _sums(pb)
    small, big = _abs_range(slo, shi)
    crit = studentized_range_critical(float(alpha), int(s), float(df))
    n_pairs = len(slo)
    q_lo, q_hi = np.zeros(n_pairs), np.zeros(n_pairs)
    scale = df * (t * s) ** 2
    for k in range(n_pairs):
        s_small, s_big = 2 * int(small[k]), 2 * int(big[k])
        q_lo[k] = (math.inf if sse_hi == 0 else math.sqrt(_float_down(Fraction(scale * s_small ** 2, t * sse_hi)))
                   ) if s_small else 0.0
        q_hi[k] = (math.inf if sse_lo == 0 else math.sqrt(_float_up(Fraction(scale * s_big ** 2, t * sse_lo)))
                   ) if s_big else 0.0
    q_lo *= 1 - MARGIN
    q_hi *= 1 + MARGIN
    sure, possible = q_lo > crit * (1 + MARGIN), q_hi > crit * (1 - MARGIN)  # the point test: q > crit
    if pvalues:
        p_hi = np.minimum(1.0, studentized_range_sf(q_lo, s, df) * (1 + MARGIN))
        p_lo = studentized_range_sf(q_hi, s, df) * (1 - MARGIN)
    else:
        p_lo = p_hi = np.full(n_pairs, np.nan)
    diff_lo, diff_hi = _mean_diffs(pb)
    return ProvenTest(test="anova2", p_lo=p_lo, p_hi=p_hi, statistic_lo=q_lo, statistic_hi=q_hi, diff_lo=diff_lo,
                      diff_hi=diff_hi, zero_not_significant=True, sure=sure, possible=possible)


def proven_corrected(p_lo: np.ndarray, p_hi: np.ndarray, family: np.ndarray, alpha: float, method: str,
                     corrected) -> tuple[np.ndarray, np.ndarray]:
    """Significant at every point (``sure``) and at some point (``possible``) after the correction
    ``corrected(p, alpha, method)`` (:func:`irscales.comparison.corrected`: Holm, Bonferroni, none — each
    rejects a superset when any p falls): sure = rejected at p_hi, possible = rejected at p_lo. Pairs outside
    ``family`` are never significant; NaN in the family reads as 1 (undefined: not significant), as the
    comparison reads it."""
    def adj(p):
        p = np.where(family, p, np.nan)
        return corrected(np.where(family & np.isnan(p), 1.0, p), alpha, method)[1]
    return adj(p_hi), adj(p_lo)


def outcomes(test: ProvenTest, sure: np.ndarray, possible: np.ndarray) -> dict[str, np.ndarray]:
    """Per pair, whether each outcome can occur somewhere in the box: ``not`` (not significant), ``a`` / ``b``
    (significant, the first / second system better: its mean larger), ``none`` (significant with equal means);
    ``proven``: exactly one can. ``open_pairs`` of the test count as undecided."""
    dlo = np.array([x > 0 for x in test.diff_lo], dtype=bool)   # a surely better in mean
    dhi = np.array([x < 0 for x in test.diff_hi], dtype=bool)   # b surely better
    can_zero = ~dlo & ~dhi
    out = {"not": ~sure, "a": possible & ~dhi, "b": possible & ~dlo,
           "none": possible & can_zero & (not test.zero_not_significant)}
    if test.zero_not_significant:  # S = 0 is never significant: "a" needs a positive S, "b" a negative one
        out["a"] &= np.array([x > 0 for x in test.diff_hi], dtype=bool)
        out["b"] &= np.array([x < 0 for x in test.diff_lo], dtype=bool)
    n = out["not"].astype(int) + out["a"] + out["b"] + out["none"]
    out["proven"] = n == 1
    if test.open_pairs is not None:
        out["proven"] &= ~test.open_pairs
    return out


def proven_test(box: ScoreBox, test: str, alpha: float = 0.05, *, permutations: int = PERMUTATIONS, seed: int = 0,
                pvalues: bool = False, p_mid: np.ndarray | None = None) -> ProvenTest:
    """The test ``test`` (a key: ``ttest``, ``sign``, ``signrank``, ``randomisation``, ``anova2``) over ``box``
    (``p_mid``: the signed-rank test's p-values at a point of the box, :func:`proven_signed_rank_test`)."""
    pb = pair_box(box)
    if test == "ttest":
        return proven_t_test(pb)
    if test == "sign":
        return proven_sign_test(pb, alpha)
    if test == "signrank":
        return proven_signed_rank_test(pb, p_mid)
    if test == "randomisation":
        return proven_randomisation_test(pb, permutations=permutations, seed=seed)
    if test == "anova2":
        return proven_tukey(box, pb, alpha, pvalues)
    raise ValueError(f"no proven version of the test {test!r}")
