"""The per-pair significance tests of FFF21 §2.5, vectorised across the S(S-1)/2 system pairs
(no multiple-comparison adjustment, as in FFF21 Tables 5–6), following MATLAB's ``signtest``,
``ranksum``, ``signrank`` and ``ttest`` (see :mod:`irscales.stats._significance` for the conventions).

- :func:`sign_test`         sign test, ties discarded, exact binomial;
- :func:`rank_sum_test`     Wilcoxon rank-sum (Mann–Whitney) test, normal approximation;
- :func:`signed_rank_test`  Wilcoxon signed-rank test, zero differences discarded;
- :func:`paired_t_test`     paired Student's t test.

Each takes a ``(T, S)`` score matrix (or :class:`~irscales.stats._results.PreparedScores`) and
returns a :class:`~irscales.stats._results.PairwiseTest`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from irscales.ranks import average_ranks, dense_ranks
from irscales.stats._results import PairwiseTest, check_alpha, pairs, prepare_scores

__all__ = ["binomial_two_sided_table", "sign_pvalues", "sign_test", "rank_sum_test", "signed_rank_test", "paired_t_test"]


@lru_cache(maxsize=64)
def binomial_two_sided_table(n_max: int) -> np.ndarray:
    r"""Exact two-sided sign-test p-values: ``P[n, m] = min(1, 2·2^{-n} Σ_{k ≤ m} C(n, k))`` for
    0 ≤ m ≤ n ≤ n_max (Fractions; ``P[0, 0] = 1``; entries with m > n/2 are 1): O(n_max²) memory, the
    reference the tests check :func:`sign_pvalues` against. No test reads it: every sign test (this module's,
    the IPSO sign test of :mod:`irscales.ipso._sign_test`) computes its p-values in O(T) memory instead.
    """
    out = np.full((n_max + 1, n_max + 1), Fraction(1), dtype=object)
    for n in range(1, n_max + 1):
        acc = 0
        for m in range(n // 2 + 1):
            acc += math.comb(n, m)
            out[n, m] = min(Fraction(2 * acc, 2**n), Fraction(1))
    out.flags.writeable = False
    return out


#: Up to this many untied topics a sign-test p-value is the exact tail sum, correctly rounded; beyond it scipy's
#: binomial tail (relative error ~1e-15), with the decision re-checked exactly where p is within 1e-9 of α.
_EXACT_SIGN_N = 1000


def _exact_two_sided(n: int, m: int) -> Fraction:
    """min(1, 2·2^{-n} Σ_{k ≤ m} C(n, k)), in O(m) integer steps and O(1) memory beyond the integers."""
    acc, term = 0, 1
    for k in range(m + 1):
        acc += term
        term = term * (n - k) // (k + 1)
    return min(Fraction(2 * acc, 2**n), Fraction(1))


@lru_cache(maxsize=1 << 16)
def _sign_pvalue(n: int, m: int, alpha: Fraction, strict: bool) -> tuple[float, bool]:
    """(p, the decision p ≤ α, or p < α when ``strict``, made exactly) of the two-sided sign test with
    m = min(n₊, n₋) of n untied topics."""
    if n <= _EXACT_SIGN_N:
        exact = _exact_two_sided(n, m)
        return float(exact), (exact < alpha if strict else exact <= alpha)
    p = min(1.0, 2.0 * float(stats.binom.cdf(m, n, 0.5)))
    if abs(p - float(alpha)) > 1e-9 * float(alpha):
        return p, (p < alpha if strict else p <= alpha)
    exact = _exact_two_sided(n, m)
    return p, (exact < alpha if strict else exact <= alpha)


def sign_pvalues(n: ArrayLike, m: ArrayLike, alpha: Fraction, strict: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided sign tests of n untied topics with m = min(n₊, n₋), elementwise over arrays of the same
    shape: (p as floats, the decision p ≤ α, or p < α when ``strict``, made exactly). One computation per
    distinct (n, m) pair, O(n) memory each: no table of every n up to the largest."""
    n, m = np.asarray(n, dtype=np.int64), np.asarray(m, dtype=np.int64)
    p = np.empty(n.shape)
    sig = np.empty(n.shape, dtype=bool)
    if n.size:
        uniq, inv = np.unique(np.stack([n.ravel(), m.ravel()]), axis=1, return_inverse=True)
        found = [_sign_pvalue(nn, mm, alpha, strict) for nn, mm in zip(uniq[0].tolist(), uniq[1].tolist())]
        p.ravel()[:] = np.array([f[0] for f in found])[inv.ravel()]
        sig.ravel()[:] = np.array([f[1] for f in found], dtype=bool)[inv.ravel()]
    return p, sig


def sign_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None) -> PairwiseTest:
    r"""Sign test for every system pair, ties discarded, exact binomial (FFF21 §2.5).

    For systems x, y over topics: n₊ = #{x_t > y_t}, n₋ = #{x_t < y_t}, n = n₊ + n₋ (tied topics
    are discarded). Under H₀ n₊ ~ Binomial(n, 1/2); two-sided p-value as MATLAB ``signtest``:

    .. math:: p = \min\Bigl(1,\; 2 \cdot 2^{-n} \sum_{k=0}^{\min(n_+, n_-)} \binom{n}{k}\Bigr)

    (p = 1 when n = 0). Significant iff p ≤ α, decided in integer arithmetic. Statistic: n₊. Memory O(T)
    per pair, no table: the exact tail sum up to n = 1,000, scipy's binomial tail beyond (re-checked exactly
    where p is within 1e-9 of α).
    (MATLAB switches to a normal approximation for n ≥ 100 topics; we stay exact.)
    """
    sc = prepare_scores(scores, systems)
    a = check_alpha(alpha)
    i, j = pairs(sc.values.shape[1])
    cx, cy = sc.codes[:, i], sc.codes[:, j]
    npos = (cx > cy).sum(axis=0)
    nneg = (cx < cy).sum(axis=0)
    p, sig = sign_pvalues(npos + nneg, np.minimum(npos, nneg), a)  # MATLAB's signtest: significant when p ≤ α
    return PairwiseTest(test="sign", alpha=float(alpha), systems=sc.systems, first=i, second=j,
                        statistic=npos.astype(float), pvalue=p, significant=sig, statistic_name="n_positive")


def rank_sum_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None) -> PairwiseTest:
    r"""Wilcoxon rank-sum (Mann–Whitney) test for every system pair (FFF21 §2.5).

    The 2T scores of x and y are ranked together (average ranks for ties); W = sum of the ranks of
    x. Normal approximation with tie and continuity corrections, as MATLAB ``ranksum`` uses for
    these sample sizes (it is exact only when T < 10):

    .. math::
        E[W] = \frac{T(2T+1)}{2},\quad
        \mathrm{Var}[W] = \frac{T^2}{12}\Bigl(2T + 1 - \frac{\sum (t^3 - t)}{2T(2T-1)}\Bigr),\quad
        z = \frac{W - E[W] - \tfrac12 \operatorname{sign}(W - E[W])}{\sqrt{\mathrm{Var}[W]}}

    p = 2Φ(−|z|); p = 1 if all 2T scores are tied. Significant iff p ≤ α. Statistic: W.
    The test treats the two systems' scores as independent samples (it ignores the pairing).
    """
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
    i, j = pairs(sc.values.shape[1])
    t = sc.values.shape[0]
    pooled = np.concatenate([sc.codes[:, i].T, sc.codes[:, j].T], axis=1)  # (P, 2T)
    ranks, tie_sum = average_ranks(pooled)
    w = ranks[:, :t].sum(axis=1)
    n = 2 * t
    mean = t * (n + 1) / 2.0
    var = t * t * ((n + 1) - tie_sum / (n * (n - 1))) / 12.0
    wc = w - mean
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (wc - 0.5 * np.sign(wc)) / np.sqrt(var)
    p = np.where(var > 0, 2.0 * stats.norm.sf(np.abs(z)), 1.0)
    return PairwiseTest(test="ranksum", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=w,
                        pvalue=p, significant=p <= alpha, statistic_name="W")


def _signrank_exact_counts(r2: np.ndarray, n: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """#{sign patterns with Σ chosen doubled ranks ≤ w2} for each row (exact integers).

    ``r2``: (P, K) doubled ranks (integers), only the first ``n[p]`` entries of row p used.
    """
    p_rows, kmax = r2.shape
    total = int(r2.sum(axis=1).max()) + 1 if p_rows else 1
    counts = np.zeros((p_rows, total), dtype=np.int64)
    counts[:, 0] = 1
    grid = np.arange(total)[None, :]
    for k in range(kmax):
        shift = np.where(k < n, r2[:, k], 0)
        src = grid - shift[:, None]
        moved = np.where(src >= 0, np.take_along_axis(counts, np.clip(src, 0, None), axis=1), 0)
        counts = counts + np.where((k < n)[:, None], moved, 0)
    cum = np.cumsum(counts, axis=1)
    return np.take_along_axis(cum, np.clip(w2, 0, total - 1)[:, None].astype(np.int64), axis=1)[:, 0]


def signed_rank_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None,
                     method: str = "auto",
                     decimals: int | None = None) -> PairwiseTest:
    r"""Wilcoxon signed-rank test for every system pair, zero differences discarded (FFF21 §2.5).

    d_t = x_t − y_t; topics with d_t = 0 are discarded, leaving n. The |d_t| are ranked (average
    ranks for ties; see the module docstring for how float ties are decided); W₊ / W₋ = sum of the
    ranks of the positive / negative differences, w = min(W₊, W₋). As MATLAB ``signrank``:

    - ``method="auto"``: exact for n ≤ 15, normal approximation otherwise;
    - exact: p = min(1, 2·P(W ≤ w)), P over the 2ⁿ equally likely sign patterns of the observed
      (tied) ranks, counted exactly;
    - approximate (no continuity correction):

      .. math:: z = \frac{w - n(n+1)/4}{\sqrt{n(n+1)(2n+1)/24 - \sum(t^3 - t)/48}},\quad p = 2\Phi(z)

    ``method`` may also be ``"exact"`` or ``"approx"`` for every pair. p = 1 when n = 0.
    Significant iff p ≤ α (exact p compared in integer arithmetic). Statistic: W₊.

    Ties among |d_t| with float scores: MATLAB's rule (|d| within eps(x) + eps(y), chained along
    the sorted order) by default; ``decimals=k`` instead rounds the |d_t| to k decimals and ties
    equal results. Neither is exact for scores like k/30 (their doubles are not k/30); pass
    Fractions for exact ties.
    """
    if method not in ("auto", "exact", "approx"):
        raise ValueError(f"method must be 'auto', 'exact' or 'approx', got {method!r}")
    sc = prepare_scores(scores, systems)
    a = check_alpha(alpha)
    i, j = pairs(sc.values.shape[1])
    cx, cy = sc.codes[:, i].T, sc.codes[:, j].T           # (P, T)
    nonzero = cx != cy
    pos = cx > cy
    n = nonzero.sum(axis=1)
    if sc.scaled is not None:  # exact integer arithmetic on a common denominator
        mag = dense_ranks(np.abs(sc.scaled[:, i].T - sc.scaled[:, j].T)).astype(float)
        tol = None
    elif sc.exact is not None:
        diff = np.abs(sc.exact[:, i].T - sc.exact[:, j].T)  # exact Fractions
        mag = dense_ranks(diff).astype(float)
        tol = None
    else:
        x, y = sc.values[:, i].T, sc.values[:, j].T
        mag = np.abs(x - y)
        if decimals is None:
            tol = np.spacing(np.abs(x)) + np.spacing(np.abs(y))  # MATLAB signrank: eps(x) + eps(y)
        else:
            mag, tol = np.round(mag, decimals), None
    # Discarded zeros go to the end of every row, so the other ranks are their ranks among nonzeros.
    mag = np.where(nonzero, mag, np.inf)
    if tol is not None:
        tol = np.where(nonzero, tol, 0.0)
    ranks, tie_sum = average_ranks(mag, tol)
    ranks = np.where(nonzero, ranks, 0.0)
    w_pos = (ranks * pos).sum(axis=1)
    w_neg = ranks.sum(axis=1) - w_pos
    w = np.minimum(w_pos, w_neg)
    # The discarded zeros form one tie group (all at +inf) of size z; remove its z³ − z.
    z_cnt = (~nonzero).sum(axis=1).astype(np.int64)
    tie_sum = tie_sum - (z_cnt ** 3 - z_cnt)
    nf = n.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (w - nf * (nf + 1) / 4) / np.sqrt(nf * (nf + 1) * (2 * nf + 1) / 24 - tie_sum / 48)
        p = np.where(n > 0, 2.0 * stats.norm.cdf(z), 1.0)
    p = np.where(np.isnan(p), 1.0, np.minimum(p, 1.0))  # all |d| tied in one group of n: var 0, w = mean
    sig = p <= alpha
    use_exact = (n <= 15) if method == "auto" else np.full(n.shape, method == "exact")
    use_exact &= n > 0
    if use_exact.any():
        rows = np.flatnonzero(use_exact)
        # Put the nonzero ranks first in each row; doubled ranks are integers.
        order = np.argsort(~nonzero[rows], axis=1, kind="stable")
        r2 = np.rint(2 * np.take_along_axis(ranks[rows], order, axis=1)).astype(np.int64)
        w2 = np.rint(2 * w[rows]).astype(np.int64)
        cnt = _signrank_exact_counts(r2, n[rows], w2)
        for k, row in enumerate(rows):
            frac = min(Fraction(2 * int(cnt[k]), 2 ** int(n[row])), Fraction(1))
            p[row] = float(frac)
            sig[row] = frac <= a
    return PairwiseTest(test="signrank", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=w_pos,
                        pvalue=p, significant=sig, statistic_name="W_plus")


def _unit_differences(de: np.ndarray) -> np.ndarray:
    """Exact integer paired differences (T, P) (int64, or Python ints in an object array) divided by each pair's largest |d|, rounded
    once to float. t is invariant under this scaling; unlike differences of float images it keeps
    every difference to full relative precision, never overflows (φ at depth 1000 is ~2^1000), and
    is the same float matrix for every positive affine transform of the scores."""
    if de.dtype != object:
        m = np.abs(de).max(axis=0)
        if int(m.max(initial=0)) < 2**53:
            # C order as below: numpy's sums depend on the memory layout, the floats must not
            return np.ascontiguousarray(de.astype(float) / np.where(m == 0, 1, m).astype(float))
        de = de.astype(object)
    out = np.zeros(de.shape)
    for k in range(de.shape[1]):
        col = [int(x) for x in de[:, k].tolist()]
        m = max(abs(x) for x in col)
        if m:
            out[:, k] = [x / m for x in col]  # int / int: correctly rounded
    return out


def paired_t_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None) -> PairwiseTest:
    r"""Paired Student's t test for every system pair (FFF21 §2.5), as MATLAB ``ttest(x, y)``.

    d_t = x_t − y_t over all T topics (zeros kept):

    .. math:: t = \frac{\bar d}{s_d / \sqrt{T}},\quad s_d^2 = \frac{1}{T-1}\sum_t (d_t - \bar d)^2,
              \quad p = 2\,P(T_{T-1} > |t|)

    If all d_t are equal: t = ±∞ and p = 0 when d̄ ≠ 0; p = NaN (not significant) when x = y on
    every topic. Significant iff p ≤ α. Statistic: t.
    """
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
    i, j = pairs(sc.values.shape[1])
    t = sc.values.shape[0]
    same = (sc.codes[:, i] == sc.codes[:, j]).all(axis=0)  # identical systems, decided exactly
    # Constant differences: exact when the input is exact, otherwise as the float differences say.
    if sc.integers is not None:  # exact differences (on the common denominator)
        de = sc.integers[:, i] - sc.integers[:, j]
        const = (de == de[0:1, :]).all(axis=0)
        d = _unit_differences(de)
    else:
        d = sc.values[:, i] - sc.values[:, j]                 # (T, P)
        const = (d == d[0:1, :]).all(axis=0)
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tstat = mean / (sd / math.sqrt(t))
    with np.errstate(invalid="ignore"):
        tstat = np.where(const, np.where(same, np.nan, np.sign(mean) * np.inf), tstat)
    p = 2.0 * stats.t.sf(np.abs(tstat), t - 1)
    sig = np.where(np.isnan(p), False, p <= alpha)
    return PairwiseTest(test="ttest", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=tstat,
                        pvalue=p, significant=sig, statistic_name="t")

