"""All-systems procedures of FFF21 §7.3: an omnibus test, then Tukey-type comparisons of all pairs,
as MATLAB's ``anova1``/``anova2``, ``kruskalwallis``, ``friedman`` and ``multcompare``
(Tukey–Kramer critical values); and the studentized-range critical values they use.

- :func:`anova1_tukey`          one-way ANOVA (system) + Tukey HSD;
- :func:`kruskal_wallis_tukey`  Kruskal–Wallis + Tukey-type comparison of mean ranks;
- :func:`anova2_tukey`          two-way ANOVA topic + system (Tague-Sutcliffe & Blustein) + Tukey HSD;
- :func:`friedman_tukey`        Friedman + Tukey-type comparison of mean ranks;
- :func:`studentized_range_critical`  q_{1−α}(k, df), exact (scipy) or as MATLAB computes it;
- :func:`studentized_range_sf`  P(Q > q) for an array of q at once (the per-pair p-values).

Each procedure returns a :class:`~irscales.stats._results.PairwiseTest` whose ``omnibus`` holds the
overall test. Decisions use the critical value; per-pair p-values are optional (``pvalues=``); they
come from :func:`studentized_range_sf`, seconds for the 8,256 pairs of a TREC-8-sized track where
scipy's ``studentized_range.sf`` (one double integral per pair) needs minutes.
"""

from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special, stats

from irscales.ranks import average_ranks
from irscales.stats._results import PairwiseTest, check_alpha, pairs, prepare_scores

__all__ = ["CRITICAL_CONVENTIONS", "PVALUES_UP_TO", "as190_cdf", "studentized_range_critical",
           "studentized_range_sf", "tukey_pairs", "anova1_tukey", "anova2_tukey", "kruskal_wallis_tukey", "friedman_tukey"]


# ------------------------------------------------------------ studentized-range critical values

#: ``"exact"``: the studentized-range quantile (scipy); ``"matlab"``: MATLAB ``multcompare``'s.
CRITICAL_CONVENTIONS = ("exact", "matlab")


def as190_cdf(q: float, df: float, k: int) -> float:
    """P(Q ≤ q) for the studentized range of k means, df error degrees of freedom, as MATLAB's
    ``stdrcdf`` computes it: Algorithm AS 190 (Lund & Lund 1983, with the 1985 corrections), a sum
    of the integrand over a fixed 31 × 31 grid (node spacing 0.45), and *no integration over the
    chi-square distribution of the variance when df > 120*: the df = ∞ distribution is used there.
    """
    g = 0.45 / k ** 0.2
    gk = 0.5 * math.log(k) + g * np.arange(-15, 16)
    pz = stats.norm.cdf(-gk)
    if df > 120:
        w0 = math.log(k * g / math.sqrt(2 * math.pi)) - 0.5 * gk**2
        return float(np.sum(np.exp(w0) * (stats.norm.cdf(q - gk) - pz) ** (k - 1)))
    h = 0.45 / math.sqrt(df)
    v2 = 0.5 * df
    c = math.log(math.sqrt(2 / math.pi) * k * g * h) - v2 + v2 * math.log(v2) - math.lgamma(v2)
    hj = h * np.arange(-15, 16)
    ehj = np.exp(hj)
    vw = df * (hj + 0.5 * (1 - ehj**2))
    x = stats.norm.cdf(q * ehj[:, None] - gk[None, :]) - pz[None, :]
    return float(np.sum(np.exp(c - 0.5 * gk[None, :] ** 2 + vw[:, None]) * x ** (k - 1)))


def _as190_start(p: float, df: float, k: int) -> float:
    """AS 190.2: the initial approximation of the quantile (meant for 0.8 < p < 0.995)."""
    t = float(stats.norm.ppf(0.5 + 0.5 * p))
    if df < 120:
        t += 0.25 * (t**3 + t) / df
    c = 0.8843 - 0.2368 * t
    if df < 120:
        c += -1.214 / df + 1.208 * t / df
    return t * (c * math.log(k - 1) + 1.4142)


def _matlab_quantile(p: float, df: float, k: int) -> float:
    """MATLAB ``stdrinv`` (AS 190 with its secant search): stop as soon as the cdf at the best
    point is within 1e-5·p of p and return the last secant estimate."""
    q1 = _as190_start(p, df, k)
    p1 = as190_cdf(q1, df, k)
    x = q1
    if abs(p1 - p) < 1e-5 * p:
        return x
    p2 = max(0.75 * p, p - 0.75 * (p1 - p)) if p1 > p else p + (p - p1) * (1 - p) / (1 - p1) * 0.75
    q2 = _as190_start(p2, df, k)
    for _ in range(19):
        p2 = as190_cdf(q2, df, k)
        e1, e2 = p1 - p, p2 - p
        d = e2 - e1
        x = (e2 * q1 - e1 * q2) / d if abs(d) > 1e-6 * p else (q1 + q2) / 2
        if abs(e1) >= abs(e2):
            q1, p1 = q2, p2
        if abs(p1 - p) < 1e-5 * p:
            break
        q2 = x
    return x


@functools.lru_cache(maxsize=256)
def studentized_range_critical(alpha: float, k: int, df: float, convention: str = "exact") -> float:
    r"""The Tukey HSD critical value q_{1−α}(k, df) of the studentized range (pairs differ when
    |m_i − m_j| / SE(mean) exceeds it).

    ``"exact"``   scipy's quantile (numerical integration to full accuracy).
    ``"matlab"``  what MATLAB's ``multcompare`` uses with ``'tukey-kramer'`` (FFF21 ran its tests in
                  MATLAB): ``stdrinv`` = AS 190 (:func:`as190_cdf`), which treats every df > 120 as
                  ∞, then capped by the Dunn–Šidák bound t_{1−α'/2}(df)·√2 with α' = 1 − (1 − α)^{1/C(k,2)}.
                  For FFF21's T08 (k = 129 systems, df = 6,321) it is 6.23861 instead of 6.24253
                  (−0.063%); for df ≤ 120 it agrees with the exact value to about 1e-5.
    """
    if convention not in CRITICAL_CONVENTIONS:
        raise ValueError(f"critical value convention must be one of {CRITICAL_CONVENTIONS}, got {convention!r}")
    if not 0 < alpha < 1 or k < 2 or not df > 0:
        raise ValueError(f"need 0 < alpha < 1, k ≥ 2 groups and df > 0; got alpha={alpha}, k={k}, df={df}")
    if convention == "exact":
        return float(stats.studentized_range.ppf(1 - alpha, k, df))
    if alpha < 0.01:  # MATLAB switches to an upper-tail integrand there, not implemented here
        raise NotImplementedError("the 'matlab' critical value is implemented for alpha ≥ 0.01")
    q = _matlab_quantile(1 - alpha, df, int(k))
    a = 1 - (1 - alpha) ** (1 / math.comb(int(k), 2))
    ub = float(stats.norm.ppf(1 - a / 2) if math.isinf(df) else stats.t.ppf(1 - a / 2, df)) * math.sqrt(2)
    return min(q, ub)


def _gauss_legendre(lo: float, hi: float, panels: int, nodes: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of composite Gauss–Legendre quadrature on [lo, hi]."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(lo, hi, panels + 1)
    a, b = edges[:-1, None], edges[1:, None]
    return ((b - a) / 2 * x + (a + b) / 2).ravel(), ((b - a) / 2 * w).ravel()


@functools.lru_cache(maxsize=64)
def _range_nodes(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """z nodes, Φ(z) and the weights k·φ(z)·Φ(z)^{k−1} of the range integral for k means; below the
    lower end the weight (a bound on the integrand) is under 1e-20."""
    def log_weight(z: float) -> float:
        return math.log(k) - 0.5 * z * z - 0.5 * math.log(2 * math.pi) + (k - 1) * float(special.log_ndtr(z))
    lo = -8.5 if log_weight(-8.5) > -46 else optimize.brentq(lambda z: log_weight(z) + 46, -8.5, 8.5)
    z, wz = _gauss_legendre(lo, 8.5, 6)
    weight = wz * np.exp([log_weight(x) for x in z])
    return z, special.ndtr(z), weight


def _range_sf(w: np.ndarray, k: int) -> np.ndarray:
    """P(R > w) for the range R of k standard normals, elementwise (df = ∞):
    k ∫ φ(z) [Φ(z)^{k−1} − (Φ(z) − Φ(z − w))^{k−1}] dz, the bracket written so as to keep small tails."""
    z, pz, weight = _range_nodes(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = -np.expm1((k - 1) * np.log1p(-special.ndtr(z - w[..., None]) / pz))
    return (tail * weight).sum(axis=-1)


def studentized_range_sf(q: ArrayLike, k: int, df: float) -> np.ndarray:
    r"""P(Q > q) of the studentized range of k means with df error degrees of freedom, for every q at once.

    .. math:: P(Q > q) = \int_0^\infty f_{df}(s)\, P(R > q s)\, ds

    with R the range of k standard normals and s ~ χ_df/√df (df ≥ 100,000: s = 1, as scipy), by fixed
    composite Gauss–Legendre quadrature (6 × 16 nodes over the range's integrand, 4 × 16 over s between
    its 1e-16 quantiles). Agrees with ``scipy.stats.studentized_range.sf`` (which integrates each q
    adaptively to about 1e-11) within 1e-9; NaN stays NaN, +∞ gives 0.
    """
    q = np.asarray(q, dtype=float)
    out = np.full(q.shape, np.nan)
    out[np.isposinf(q)] = 0.0
    ok = np.isfinite(q)
    qs = q[ok]
    chunk = 256
    if df >= 100_000:
        parts = [_range_sf(qs[a:a + chunk], k) for a in range(0, len(qs), chunk)]
    else:
        dist = stats.chi(df, scale=1 / math.sqrt(df))
        s, ws = _gauss_legendre(float(dist.ppf(1e-16)), float(dist.isf(1e-16)), 4)
        ws = ws * dist.pdf(s)
        parts = [_range_sf(qs[a:a + chunk, None] * s, k) @ ws for a in range(0, len(qs), chunk)]
    out[ok] = np.clip(np.concatenate(parts), 0, 1) if parts else qs
    return out


# --------------------------------------------------------------------------- all-systems procedures


#: With finite df, above this many pairs the studentized-range p-values are skipped unless asked for (about
#: 0.3 ms each with :func:`studentized_range_sf`); the decisions use the critical value instead. With df = ∞
#: (rank procedures) they are always computed.
PVALUES_UP_TO = 100


def tukey_pairs(means: np.ndarray, se: float | np.ndarray, critical: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All pairs i < j of ``means`` (:func:`~irscales.stats._results.pairs` order), compared at once: the
    differences d_ij = m_i − m_j, the statistics |d_ij| / se (``se``: one standard error, or one per pair as
    Tukey–Kramer's with unequal sizes) and the decisions statistic > ``critical``. A zero standard error makes
    a nonzero difference infinitely significant and a zero one undecided (NaN, not significant).
    Returns ``(i, j, d, statistic, significant)``."""
    i, j = pairs(len(means))
    diff = means[i] - means[j]
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.where(se == 0, np.where(diff != 0, np.inf, np.nan), np.abs(diff) / se)
    return i, j, diff, stat, np.where(np.isnan(stat), False, stat > critical)


def _tukey(means: np.ndarray, se: float, k: int, df: float, alpha: float, pvalues: bool | None):
    """Tukey–Kramer comparison of all pairs of ``means`` with standard error ``se`` of one mean.

    q_ij = |m_i − m_j| / se; significant iff q_ij > q_{1−α}(k, df), the studentized-range
    quantile (MATLAB ``multcompare``: the interval for m_i − m_j excludes 0).
    """
    crit = studentized_range_critical(float(alpha), int(k), float(df))
    i, j, _, q, sig = tukey_pairs(means, se, crit)
    if pvalues is None:
        pvalues = math.isinf(df) or len(q) <= PVALUES_UP_TO
    if pvalues:
        p = studentized_range_sf(q, k, df)
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
    ``pvalues``: compute the per-pair studentized-range p-values (``None``: only up to
    :data:`PVALUES_UP_TO` pairs; ~0.3 ms each). Decisions use the critical value and never need them; pairs
    without a computed p-value get NaN.
    """
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
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
    return PairwiseTest(test="anova1", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=q, pvalue=p,
                        significant=sig, statistic_name="q", omnibus=omni)


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
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
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
    return PairwiseTest(test="anova2", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=q, pvalue=p,
                        significant=sig, statistic_name="q", omnibus=omni)


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
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
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
    return PairwiseTest(test="kruskalwallis", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=q,
                        pvalue=p, significant=sig, statistic_name="q", omnibus=omni)


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
    sc = prepare_scores(scores, systems)
    check_alpha(alpha)
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
    return PairwiseTest(test="friedman", alpha=float(alpha), systems=sc.systems, first=i, second=j, statistic=q,
                        pvalue=p, significant=sig, statistic_name="q", omnibus=omni)
