"""Statistical significance tests between IR systems, as FFF21 §2.5 and §7.3 use them.

Input: a score matrix ``scores`` of shape ``(T, S)`` (T topics = rows, S systems = columns), of
floats or an object array of :class:`fractions.Fraction` (``Measure.exact``). Every procedure
decides, for each of the ``S(S-1)/2`` system pairs ``(i, j)``, ``i < j`` (in
:func:`numpy.triu_indices` order), whether the two systems are significantly different at level
α (0.05 by default, as in FFF21).

Per pair (no multiple-comparison adjustment, as in FFF21 Tables 5–6), vectorised across pairs:

- ``sign``          Sign test, ties discarded, exact binomial.
- ``ranksum``       Wilcoxon rank-sum (Mann–Whitney) test, normal approximation.
- ``signrank``      Wilcoxon signed-rank test, zero differences discarded.
- ``ttest``         paired Student's t test.

Over all systems at once, an omnibus test followed by Tukey-type comparisons of all pairs:

- ``anova1``        one-way ANOVA (system) + Tukey HSD.
- ``kruskalwallis`` Kruskal–Wallis + Tukey-type comparison of mean ranks.
- ``anova2``        two-way ANOVA topic + system (Tague-Sutcliffe & Blustein) + Tukey HSD on systems.
- ``friedman``      Friedman + Tukey-type comparison of mean ranks.

FFF21 ran these in MATLAB; where textbooks differ (continuity corrections, exact vs approximate
p-values, the variance used for rank comparisons, ``p <= α`` vs ``p < α``) we follow MATLAB's
``signtest``, ``ranksum``, ``signrank``, ``ttest``, ``anova1``/``anova2``, ``kruskalwallis``,
``friedman`` and ``multcompare`` (Tukey–Kramer critical values), and say so in each docstring.
These are the only implementations in the library: MM23's reporting rule
(:mod:`irscales.corroboration`, ``irscales ipso``), ``irscales compare`` and :mod:`irscales.ipso_runs`
call them, so the same scores give the same p-value everywhere (issue 18).

Exactness: whether two scores are tied (sign test, all rank-based tests) is decided on exact
order codes (:func:`irscales.ranks.dense_ranks`), so equal Fractions always tie. For the
signed-rank test the *magnitudes* of the differences must also be compared: with Fractions this is
exact; with floats equal magnitudes can differ in the last bit (0.3−0.1 vs 0.5−0.3), so, as
MATLAB's ``signrank`` does, two magnitudes are tied when they differ by at most
``eps(x) + eps(y)`` of the scores that produced them. Exact binomial / signed-rank tail counts are
compared with α in integer arithmetic. Parametric statistics (t, F, Tukey's q) are computed in
floating point; no tie decision depends on them. Fractions sharing a common denominator that fits
in 64 bits (P@30: 30) are handled as scaled integers, others as Python Fractions (slower).

Tukey-type decisions use the studentized-range critical value; per-pair p-values are optional
(``pvalues=``) because scipy needs minutes for the 8,256 pairs of a TREC-8-sized track.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence
from fractions import Fraction

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from irscales.exact import common_denominator
from irscales.ranks import average_ranks, dense_ranks

__all__ = [
    "TESTS", "TEST_LABELS", "ORDINAL_TESTS", "PairwiseTest", "SignificanceResult", "SignificanceChange",
    "sign_test", "rank_sum_test", "signed_rank_test", "paired_t_test", "anova1_tukey",
    "kruskal_wallis_tukey", "anova2_tukey", "friedman_tukey", "significance_tests",
    "compare_significance", "significance_changes", "grand_mean_delta", "pairs", "binomial_two_sided_table",
]

#: Test keys in the order of FFF21 Tables 5–6.
TESTS = ("sign", "ranksum", "signrank", "ttest", "anova1", "kruskalwallis", "anova2", "friedman")
#: Row labels of FFF21 Tables 5–6.
TEST_LABELS = {
    "sign": "Sign Test", "ranksum": "Wilcoxon Rank Sum Test", "signrank": "Wilcoxon Signed Rank Test",
    "ttest": "Student's t Test", "anova1": "One-way ANOVA", "kruskalwallis": "Kruskal-Wallis Test",
    "anova2": "Two-way ANOVA", "friedman": "Friedman Test",
}
#: Tests that assume only an ordinal scale (grey rows of FFF21 Tables 5–6, §2.5).
ORDINAL_TESTS = frozenset({"sign", "ranksum", "kruskalwallis", "friedman"})


# --------------------------------------------------------------------------- input handling


@dataclass(frozen=True)
class _Scores:
    values: np.ndarray          # (T, S) float
    codes: np.ndarray           # (T, S) int64, exact order codes over the whole matrix
    exact: np.ndarray | None    # (T, S) object Fractions, or None for float input
    systems: tuple[str, ...]
    scaled: np.ndarray | None = None  # (T, S) int64 = exact · L (common denominator), if it fits


def _prepare(scores: ArrayLike, systems: Sequence[str] | None = None) -> _Scores:
    if isinstance(scores, _Scores):  # prepared once by significance_tests for all its procedures
        return scores
    a = np.asarray(scores)
    if a.ndim != 2:
        raise ValueError(f"scores must be a (T topics, S systems) matrix, got shape {a.shape}")
    t, s = a.shape
    if t < 2 or s < 2:
        raise ValueError(f"scores must have at least 2 topics and 2 systems, got shape {a.shape}")
    codes = dense_ranks(a)  # also rejects NaN and non-numbers, with the index of the culprit
    if a.dtype == object:
        exact = np.vectorize(Fraction, otypes=[object])(a)
        values = a.astype(float)
    else:
        exact = None
        values = a.astype(float)
        if not np.isfinite(values).all():
            where = tuple(int(i) for i in np.argwhere(~np.isfinite(values))[0])
            raise ValueError(f"scores contain an infinite value at (topic, system) = {where}")
    if systems is None:
        names = tuple(str(k) for k in range(s))
    else:
        names = tuple(str(x) for x in systems)
        if len(names) != s:
            raise ValueError(f"{len(names)} system names given for {s} systems (columns of scores)")
        if len(set(names)) != s:
            raise ValueError("system names must be distinct")
    scaled = None
    if exact is not None:  # exact · L in int64 when |a − b| stays below 2**62
        common = common_denominator(exact, headroom_bits=2)
        scaled = common.ints if common.fits_int64() else None
    return _Scores(values, codes, exact, names, scaled)


def _alpha(alpha: float) -> Fraction:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return Fraction(repr(float(alpha)))


def pairs(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of all system pairs, in the order every result uses."""
    return np.triu_indices(n_systems, 1)


# --------------------------------------------------------------------------- result objects


@dataclass(frozen=True)
class PairwiseTest:
    """Outcome of one procedure for every system pair (arrays of length S(S-1)/2).

    ``statistic`` is the per-pair statistic named by ``statistic_name``; ``pvalue`` its two-sided
    p-value (NaN where undefined or not computed); ``significant`` the decision at ``alpha``.
    ``omnibus`` holds the overall test of the all-systems procedures (statistic, df, p-value).
    """

    test: str
    alpha: float
    systems: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    significant: np.ndarray
    statistic_name: str
    omnibus: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return TEST_LABELS[self.test]

    @property
    def n_significant(self) -> int:
        return int(self.significant.sum())

    def significant_pairs(self) -> set[tuple[str, str]]:
        """The significantly different pairs, as (system, system) names."""
        sig = np.flatnonzero(self.significant)
        return {(self.systems[self.first[k]], self.systems[self.second[k]]) for k in sig}

    def to_frame(self) -> pd.DataFrame:
        """One row per system pair: system_a, system_b, statistic, pvalue, significant."""
        return pd.DataFrame({
            "test": self.test,
            "system_a": np.asarray(self.systems, dtype=object)[self.first],
            "system_b": np.asarray(self.systems, dtype=object)[self.second],
            self.statistic_name: self.statistic,
            "pvalue": self.pvalue,
            "significant": self.significant,
        })

    def to_latex(self) -> str:
        return self.to_frame().to_latex(index=False, float_format="%.4g")


@dataclass(frozen=True)
class SignificanceResult:
    """Several procedures run on one score matrix: ``tests[key]`` is a :class:`PairwiseTest`."""

    tests: dict[str, PairwiseTest]

    def __getitem__(self, key: str) -> PairwiseTest:
        return self.tests[key]

    @property
    def systems(self) -> tuple[str, ...]:
        return next(iter(self.tests.values())).systems

    def to_frame(self) -> pd.DataFrame:
        """Summary: one row per test with its label, omnibus result and number of significant pairs."""
        rows = []
        for key, res in self.tests.items():
            rows.append({
                "test": key, "label": res.label, "pairs": len(res.significant),
                "significant": res.n_significant,
                "omnibus_statistic": res.omnibus.get("statistic", np.nan),
                "omnibus_pvalue": res.omnibus.get("pvalue", np.nan),
            })
        return pd.DataFrame(rows)

    def pairs_frame(self) -> pd.DataFrame:
        """All tests' per-pair decisions: one row per pair, one boolean column per test."""
        first = next(iter(self.tests.values()))
        names = np.asarray(first.systems, dtype=object)
        out = pd.DataFrame({"system_a": names[first.first], "system_b": names[first.second]})
        for key, res in self.tests.items():
            out[key] = res.significant
        return out

    def to_latex(self) -> str:
        return self.to_frame().to_latex(index=False, float_format="%.4g")


# --------------------------------------------------------------------------- per-pair tests


def _pair_arrays(sc: _Scores):
    i, j = pairs(sc.values.shape[1])
    return i, j


@lru_cache(maxsize=64)
def binomial_two_sided_table(n_max: int) -> np.ndarray:
    r"""Exact two-sided sign-test p-values: ``P[n, m] = min(1, 2·2^{-n} Σ_{k ≤ m} C(n, k))`` for
    0 ≤ m ≤ n ≤ n_max (Fractions; ``P[0, 0] = 1``; entries with m > n/2 are 1). Shared by the
    sign test here and the IPSO sign tests (:mod:`irscales.ipso_runs`, :mod:`irscales.corroboration`).
    """
    out = np.full((n_max + 1, n_max + 1), Fraction(1), dtype=object)
    for n in range(1, n_max + 1):
        acc = 0
        for m in range(n // 2 + 1):
            acc += math.comb(n, m)
            out[n, m] = min(Fraction(2 * acc, 2**n), Fraction(1))
    out.flags.writeable = False
    return out


def sign_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None) -> PairwiseTest:
    r"""Sign test for every system pair, ties discarded, exact binomial (FFF21 §2.5).

    For systems x, y over topics: n₊ = #{x_t > y_t}, n₋ = #{x_t < y_t}, n = n₊ + n₋ (tied topics
    are discarded). Under H₀ n₊ ~ Binomial(n, 1/2); two-sided p-value as MATLAB ``signtest``:

    .. math:: p = \min\Bigl(1,\; 2 \cdot 2^{-n} \sum_{k=0}^{\min(n_+, n_-)} \binom{n}{k}\Bigr)

    (p = 1 when n = 0). Significant iff p ≤ α, decided in integer arithmetic. Statistic: n₊.
    (MATLAB switches to a normal approximation for n ≥ 100 topics; we stay exact.)
    """
    sc = _prepare(scores, systems)
    a = _alpha(alpha)
    i, j = _pair_arrays(sc)
    cx, cy = sc.codes[:, i], sc.codes[:, j]
    npos = (cx > cy).sum(axis=0)
    nneg = (cx < cy).sum(axis=0)
    n = npos + nneg
    k = np.minimum(npos, nneg)
    p_exact = binomial_two_sided_table(sc.values.shape[0])
    p_table = np.vectorize(float, otypes=[float])(p_exact)
    sig_table = p_exact <= a  # MATLAB's signtest: significant when p ≤ α
    return PairwiseTest("sign", float(alpha), sc.systems, i, j, npos.astype(float), p_table[n, k],
                        sig_table[n, k], "n_positive")


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
    sc = _prepare(scores, systems)
    _alpha(alpha)
    i, j = _pair_arrays(sc)
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
    return PairwiseTest("ranksum", float(alpha), sc.systems, i, j, w, p, p <= alpha, "W")


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
    sc = _prepare(scores, systems)
    a = _alpha(alpha)
    i, j = _pair_arrays(sc)
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
    return PairwiseTest("signrank", float(alpha), sc.systems, i, j, w_pos, p, sig, "W_plus")


def paired_t_test(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None) -> PairwiseTest:
    r"""Paired Student's t test for every system pair (FFF21 §2.5), as MATLAB ``ttest(x, y)``.

    d_t = x_t − y_t over all T topics (zeros kept):

    .. math:: t = \frac{\bar d}{s_d / \sqrt{T}},\quad s_d^2 = \frac{1}{T-1}\sum_t (d_t - \bar d)^2,
              \quad p = 2\,P(T_{T-1} > |t|)

    If all d_t are equal: t = ±∞ and p = 0 when d̄ ≠ 0; p = NaN (not significant) when x = y on
    every topic. Significant iff p ≤ α. Statistic: t.
    """
    sc = _prepare(scores, systems)
    _alpha(alpha)
    i, j = _pair_arrays(sc)
    t = sc.values.shape[0]
    d = sc.values[:, i] - sc.values[:, j]                 # (T, P)
    same = (sc.codes[:, i] == sc.codes[:, j]).all(axis=0)  # identical systems, decided exactly
    # Constant differences: exact when the input is exact, otherwise as the float differences say.
    if sc.scaled is not None:
        de = sc.scaled[:, i] - sc.scaled[:, j]
        const = (de == de[0:1, :]).all(axis=0)
    elif sc.exact is not None:
        # Only pairs whose float differences are (nearly) constant can be exactly constant.
        const = np.zeros(d.shape[1], dtype=bool)
        cand = np.flatnonzero(np.ptp(d, axis=0) <= 1e-9 * (1.0 + np.abs(d).max(axis=0)))
        for k in cand:
            de = sc.exact[:, i[k]] - sc.exact[:, j[k]]
            const[k] = all(v == de[0] for v in de)
    else:
        const = (d == d[0:1, :]).all(axis=0)
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tstat = mean / (sd / math.sqrt(t))
    with np.errstate(invalid="ignore"):
        tstat = np.where(const, np.where(same, np.nan, np.sign(mean) * np.inf), tstat)
    p = 2.0 * stats.t.sf(np.abs(tstat), t - 1)
    sig = np.where(np.isnan(p), False, p <= alpha)
    return PairwiseTest("ttest", float(alpha), sc.systems, i, j, tstat, p, sig, "t")


# --------------------------------------------------------------------------- all-systems procedures


# With finite df, above this many pairs the studentized-range p-values are skipped unless asked
# for: scipy integrates numerically, ~1–30 ms each (minutes for 8,256 pairs); the decisions use
# the critical value instead. With df = ∞ (rank procedures) they are cheap and always computed.
_AUTO_PVALUES = 100


@lru_cache(maxsize=256)
def _q_critical(alpha: float, k: int, df: float) -> float:
    """Studentized-range quantile q_{1−α}(k, df); cached because it costs ~0.1–0.4 s per call."""
    return float(stats.studentized_range.ppf(1 - alpha, k, df))


def _tukey(means: np.ndarray, se: float, k: int, df: float, alpha: float, pvalues: bool | None):
    """Tukey–Kramer comparison of all pairs of ``means`` with standard error ``se`` of one mean.

    q_ij = |m_i − m_j| / se; significant iff q_ij > q_{1−α}(k, df), the studentized-range
    quantile (MATLAB ``multcompare``: the interval for m_i − m_j excludes 0).
    """
    i, j = pairs(len(means))
    diff = np.abs(means[i] - means[j])
    with np.errstate(invalid="ignore", divide="ignore"):
        q = diff / se if se > 0 else np.where(diff > 0, np.inf, np.nan)
    crit = _q_critical(float(alpha), int(k), float(df))
    sig = np.where(np.isnan(q), False, q > crit)
    if pvalues is None:
        pvalues = math.isinf(df) or len(q) <= _AUTO_PVALUES
    if pvalues:
        p = np.where(np.isnan(q), np.nan, stats.studentized_range.sf(np.nan_to_num(q, posinf=1e300), k, df))
    else:
        p = np.full(q.shape, np.nan)
    return i, j, q, p, sig, float(crit)


def anova1_tukey(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None,
                 pvalues: bool | None = None) -> PairwiseTest:
    r"""One-way ANOVA with the system as factor, then Tukey HSD on all pairs (FFF21 §7.3).

    Model y_ij = μ + α_j + ε_ij (topics are replicates). With T topics, S systems, ȳ_j the mean of
    system j and ȳ the grand mean:

    .. math::
        SS_{sys} = T\sum_j(\bar y_j - \bar y)^2,\quad SS_{err} = \sum_{ij}(y_{ij} - \bar y_j)^2,\quad
        F = \frac{SS_{sys}/(S-1)}{SS_{err}/(S(T-1))}

    Tukey HSD: q_ij = |ȳ_i − ȳ_j| / sqrt(MSE/T), significant iff q_ij > q_{1−α}(S, S(T−1)).
    ``pvalues``: compute the per-pair studentized-range p-values (``None``: only for ≤ 100 pairs;
    scipy needs ~1–30 ms each). Decisions use the critical value and never need them; pairs
    without a computed p-value get NaN.
    """
    sc = _prepare(scores, systems)
    _alpha(alpha)
    y = sc.values
    t, s = y.shape
    means = y.mean(axis=0)
    grand = y.mean()
    ss_sys = t * ((means - grand) ** 2).sum()
    ss_err = ((y - means) ** 2).sum()
    df_sys, df_err = s - 1, s * (t - 1)
    mse = ss_err / df_err
    f = (ss_sys / df_sys) / mse if mse > 0 else np.inf
    omni = {"statistic": f, "df": (df_sys, df_err), "pvalue": float(stats.f.sf(f, df_sys, df_err)),
            "ss_system": ss_sys, "ss_error": ss_err, "mse": mse}
    i, j, q, p, sig, crit = _tukey(means, math.sqrt(mse / t), s, df_err, alpha, pvalues)
    omni["q_critical"] = crit
    return PairwiseTest("anova1", float(alpha), sc.systems, i, j, q, p, sig, "q", omni)


def anova2_tukey(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None,
                 pvalues: bool | None = None) -> PairwiseTest:
    r"""Two-way ANOVA topic + system (Tague-Sutcliffe & Blustein), Tukey HSD on systems (FFF21 §7.3).

    Model y_ij = μ + τ_i + α_j + ε_ij, one observation per (topic i, system j), no interaction.
    With topic means ȳ_i·, system means ȳ_·j, grand mean ȳ:

    .. math::
        SS_{err} = \sum_{ij}(y_{ij} - \bar y_{i\cdot} - \bar y_{\cdot j} + \bar y)^2,\quad
        df_{err} = (T-1)(S-1),\quad
        F_{sys} = \frac{T\sum_j(\bar y_{\cdot j} - \bar y)^2/(S-1)}{SS_{err}/df_{err}}

    Tukey HSD on the system effect with the two-way error term: q_ij = |ȳ_·i − ȳ_·j| / sqrt(MSE/T),
    significant iff q_ij > q_{1−α}(S, (T−1)(S−1)) (MATLAB ``multcompare`` on ``anova2``/``anovan``
    stats for the system factor).
    """
    sc = _prepare(scores, systems)
    _alpha(alpha)
    y = sc.values
    t, s = y.shape
    sys_means = y.mean(axis=0)
    top_means = y.mean(axis=1)
    grand = y.mean()
    resid = y - top_means[:, None] - sys_means[None, :] + grand
    ss_err = (resid ** 2).sum()
    ss_sys = t * ((sys_means - grand) ** 2).sum()
    ss_top = s * ((top_means - grand) ** 2).sum()
    df_sys, df_top, df_err = s - 1, t - 1, (t - 1) * (s - 1)
    mse = ss_err / df_err
    with np.errstate(divide="ignore", invalid="ignore"):
        f_sys = (ss_sys / df_sys) / mse if mse > 0 else np.inf
        f_top = (ss_top / df_top) / mse if mse > 0 else np.inf
    omni = {"statistic": f_sys, "df": (df_sys, df_err), "pvalue": float(stats.f.sf(f_sys, df_sys, df_err)),
            "topic_statistic": f_top, "topic_pvalue": float(stats.f.sf(f_top, df_top, df_err)),
            "ss_system": ss_sys, "ss_topic": ss_top, "ss_error": ss_err, "mse": mse}
    i, j, q, p, sig, crit = _tukey(sys_means, math.sqrt(mse / t), s, df_err, alpha, pvalues)
    omni["q_critical"] = crit
    return PairwiseTest("anova2", float(alpha), sc.systems, i, j, q, p, sig, "q", omni)


def kruskal_wallis_tukey(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None,
                         pvalues: bool | None = None) -> PairwiseTest:
    r"""Kruskal–Wallis test, then Tukey-type comparison of mean ranks (FFF21 §7.3; MATLAB).

    All N = T·S scores are ranked together (average ranks for ties); R̄_j is the mean rank of system
    j, Σ(t³ − t) the tie sum. As MATLAB ``kruskalwallis``:

    .. math::
        v = \frac{N(N+1)}{12} - \frac{\sum(t^3 - t)}{12(N-1)},\quad
        H = \frac{T\sum_j (\bar R_j - \tfrac{N+1}{2})^2}{v} \sim \chi^2_{S-1}

    Multiple comparisons as MATLAB ``multcompare`` on ``kruskalwallis`` stats (Tukey–Kramer, infinite
    df): the variance of R̄_j is v/T, so q_ij = |R̄_i − R̄_j| / sqrt(v/T), significant iff
    q_ij > q_{1−α}(S, ∞).
    """
    sc = _prepare(scores, systems)
    _alpha(alpha)
    t, s = sc.codes.shape
    ranks, tie_sum = average_ranks(sc.codes.T.reshape(1, -1))
    ranks = ranks.reshape(s, t)
    n = t * s
    mean_ranks = ranks.mean(axis=1)
    v = n * (n + 1) / 12.0 - float(tie_sum[0]) / (12.0 * (n - 1))
    h = t * ((mean_ranks - (n + 1) / 2.0) ** 2).sum() / v if v > 0 else 0.0
    omni = {"statistic": h, "df": s - 1, "pvalue": float(stats.chi2.sf(h, s - 1)), "rank_variance": v,
            "mean_ranks": mean_ranks}
    i, j, q, p, sig, crit = _tukey(mean_ranks, math.sqrt(max(v, 0.0) / t), s, np.inf, alpha, pvalues)
    omni["q_critical"] = crit
    return PairwiseTest("kruskalwallis", float(alpha), sc.systems, i, j, q, p, sig, "q", omni)


def friedman_tukey(scores: ArrayLike, alpha: float = 0.05, systems: Sequence[str] | None = None,
                   pvalues: bool | None = None) -> PairwiseTest:
    r"""Friedman test, then Tukey-type comparison of mean ranks (FFF21 §7.3; MATLAB).

    Systems are ranked within each topic (average ranks for ties); R̄_j is the mean rank of system
    j over the T topics and Σ(t³ − t) the tie sum over all topics. As MATLAB ``friedman``:

    .. math::
        \sigma^2 = \frac{S(S+1)}{12} - \frac{\sum(t^3 - t)}{12\,T\,(S-1)},\quad
        \chi^2_r = \frac{T\sum_j(\bar R_j - \tfrac{S+1}{2})^2}{\sigma^2} \sim \chi^2_{S-1}

    Multiple comparisons as MATLAB ``multcompare`` on ``friedman`` stats (Tukey–Kramer, infinite df):
    q_ij = |R̄_i − R̄_j| / sqrt(σ²/T), significant iff q_ij > q_{1−α}(S, ∞).
    """
    sc = _prepare(scores, systems)
    _alpha(alpha)
    t, s = sc.codes.shape
    ranks, tie_sum = average_ranks(sc.codes)
    mean_ranks = ranks.mean(axis=0)
    sigma2 = s * (s + 1) / 12.0 - float(tie_sum.sum()) / (12.0 * t * (s - 1))
    chi = t * ((mean_ranks - (s + 1) / 2.0) ** 2).sum()
    chi = chi / sigma2 if (chi > 0 and sigma2 > 0) else 0.0
    omni = {"statistic": chi, "df": s - 1, "pvalue": float(stats.chi2.sf(chi, s - 1)), "sigma2": sigma2,
            "mean_ranks": mean_ranks}
    i, j, q, p, sig, crit = _tukey(mean_ranks, math.sqrt(max(sigma2, 0.0) / t), s, np.inf, alpha, pvalues)
    omni["q_critical"] = crit
    return PairwiseTest("friedman", float(alpha), sc.systems, i, j, q, p, sig, "q", omni)


_PROCEDURES = {
    "sign": sign_test, "ranksum": rank_sum_test, "signrank": signed_rank_test, "ttest": paired_t_test,
    "anova1": anova1_tukey, "kruskalwallis": kruskal_wallis_tukey, "anova2": anova2_tukey,
    "friedman": friedman_tukey,
}


def significance_tests(scores: ArrayLike, tests: Sequence[str] = TESTS, alpha: float = 0.05,
                       systems: Sequence[str] | None = None,
                       pvalues: bool | None = None) -> SignificanceResult:
    """Run several procedures (keys of :data:`TESTS`) on one ``(T, S)`` score matrix.

    ``pvalues``: whether the Tukey-type procedures compute studentized-range p-values for every
    pair (their decisions use the critical value and do not need them). ``None`` (default): always
    for the rank procedures (infinite df, cheap), and for the ANOVAs only up to 100 pairs, because
    scipy takes minutes for TREC-scale 8,256 pairs with finite df.
    """
    unknown = [k for k in tests if k not in _PROCEDURES]
    if unknown:
        raise ValueError(f"unknown test(s) {unknown}; choose from {list(TESTS)}")
    scores = _prepare(scores, systems)  # exact order codes once, not once per procedure
    systems = scores.systems
    out = {}
    for key in tests:
        fn = _PROCEDURES[key]
        if key in ("anova1", "anova2", "kruskalwallis", "friedman"):
            out[key] = fn(scores, alpha=alpha, systems=systems, pvalues=pvalues)
        else:
            out[key] = fn(scores, alpha=alpha, systems=systems)
    return SignificanceResult(out)


# --------------------------------------------------------------------------- original vs ranked


@dataclass(frozen=True)
class SignificanceChange:
    """How significance decisions change from an original measure to its ranked version.

    Per test (FFF21 §7.3, Tables 5–6): ``sig`` = significant pairs with the original measure;
    ``s2ns`` = pairs significant with the original and not with the ranked one; ``ns2s`` = the
    reverse; ratios relative to ``sig``; ``delta`` = (S2NS + NS2S) / Sig (NaN when Sig = 0).
    """

    frame: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def to_latex(self) -> str:
        f = self.frame
        shown = pd.DataFrame({
            "Test": f["label"],
            "Sig": f["sig"],
            "S2NS (%)": [f"{a} ({r:.2%})" for a, r in zip(f["s2ns"], f["s2ns_ratio"])],
            "NS2S (%)": [f"{a} ({r:.2%})" for a, r in zip(f["ns2s"], f["ns2s_ratio"])],
            "Delta%": [f"{d:.2%}" for d in f["delta"]],
        })
        return shown.to_latex(index=False).replace("%", r"\%")


def compare_significance(original: SignificanceResult, ranked: SignificanceResult) -> SignificanceChange:
    """Sig, S2NS, NS2S and Δ% between the tests on an original and on a ranked measure (FFF21 §7.3).

    Both results must come from the same systems and the same tests.
    """
    if original.systems != ranked.systems:
        raise ValueError("the two results are on different systems; compare the same runs")
    missing = set(original.tests) ^ set(ranked.tests)
    if missing:
        raise ValueError(f"tests present in only one of the two results: {sorted(missing)}")
    rows = []
    for key, o in original.tests.items():
        r = ranked.tests[key]
        sig = int(o.significant.sum())
        s2ns = int((o.significant & ~r.significant).sum())
        ns2s = int((~o.significant & r.significant).sum())
        ratio = (lambda c: c / sig if sig else np.nan)
        rows.append({"test": key, "label": TEST_LABELS[key], "ordinal": key in ORDINAL_TESTS,
                     "pairs": len(o.significant), "sig": sig, "s2ns": s2ns, "s2ns_ratio": ratio(s2ns),
                     "ns2s": ns2s, "ns2s_ratio": ratio(ns2s), "delta": ratio(s2ns + ns2s),
                     "sig_ranked": int(r.significant.sum())})
    return SignificanceChange(pd.DataFrame(rows))


def significance_changes(original_scores: ArrayLike, ranked_scores: ArrayLike, tests: Sequence[str] = TESTS,
                         alpha: float = 0.05, systems: Sequence[str] | None = None) -> SignificanceChange:
    """Run ``tests`` on a measure's and on its ranked version's ``(T, S)`` scores and compare them:
    one block of FFF21 Table 5/6 (Tukey p-values are skipped: decisions do not need them)."""
    orig = significance_tests(original_scores, tests=tests, alpha=alpha, systems=systems, pvalues=False)
    rank = significance_tests(ranked_scores, tests=tests, alpha=alpha, systems=systems, pvalues=False)
    return compare_significance(orig, rank)


def grand_mean_delta(changes: Iterable[SignificanceChange]) -> tuple[float, float]:
    """Mean and standard deviation of Δ% over several :class:`SignificanceChange` (FFF21 §7.3: "the
    grand mean across all the tracks, measures, and significance tests", reported as 25% ± 11%).

    Tests with Sig = 0 (Δ% undefined) are left out. The standard deviation is the sample one
    (ddof = 1), as MATLAB's ``std``.
    """
    deltas = np.concatenate([np.asarray(c.frame["delta"], dtype=float) for c in changes])
    deltas = deltas[~np.isnan(deltas)]
    if deltas.size == 0:
        raise ValueError("no defined Δ% values (every test had Sig = 0)")
    return float(deltas.mean()), float(deltas.std(ddof=1)) if deltas.size > 1 else float("nan")
