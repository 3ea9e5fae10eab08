"""ANOVA for correlation experiments (Fer17 §2.5–2.6, eqs. 3–5, 8, 9): SS tables, ω², power, Tukey.

Data come as a long :class:`pandas.DataFrame`: one row per observation (e.g. one τ value), one
column per factor, one response column. Model terms are strings:

``"pair"``                    a main effect;
``"pair*topics"``             the interaction of two (or more) factors;
``"topic_set(corpus)"``       factor ``topic_set`` nested within ``corpus`` (Fer17 eq. 9);
``"pair*topic_set(corpus)"``  its interaction with ``pair``.

Fer17's crossed model (eq. 8) is ``CROSSED_TERMS`` and its nested model (eq. 9) ``NESTED_TERMS``.

Two fitters, which agree on balanced data (tested):

- :func:`balanced_anova` computes sums of squares from cell means (every cell of the design has the
  same number of observations, as in Fer17's designs). It handles Fer17's 196,000 observations in
  about a second; a dummy-coded least-squares fit would need a 196,000 × 600 design matrix.
- :func:`ols_anova` fits the same terms with statsmodels OLS (``anova_lm``, type II sums of squares),
  for unbalanced data or as a cross-check.

Both add ω² (eq. 3) and power (noncentral F, α = 0.05) to every row.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from irscales.figures import RESPONSE_LABELS, styled
from irscales.stats._results import pairs
from irscales.stats._tukey import CRITICAL_CONVENTIONS, studentized_range_critical, tukey_pairs

__all__ = [
    "CROSSED_TERMS", "NESTED_TERMS", "omega_squared", "effect_size_class", "power", "omega_squared_for_power",
    "balanced_anova",
    "ols_anova", "tukey_levels", "marginal_means", "main_effects_plot", "interaction_plot",
    "FACTOR_LABELS", "CRITICAL_CONVENTIONS", "studentized_range_critical",
]

#: Fer17 eq. (8): subject + measure pair + topic size + system size + two-way interactions.
CROSSED_TERMS = ("subject", "pair", "topics", "systems", "pair*topics", "pair*systems", "topics*systems")
#: Fer17 eq. (9): subject + measure pair + corpus + topic set within corpus + interactions with pair.
NESTED_TERMS = ("subject", "pair", "corpus", "topic_set(corpus)", "pair*corpus", "pair*topic_set(corpus)")


def omega_squared(f: float | np.ndarray, df: float | np.ndarray, n_total: int) -> np.ndarray | float:
    r"""ω̂² effect size of a factor, Fer17 eq. (3):

    .. math:: \hat\omega^2_{\langle fact\rangle} = \frac{df_{fact}(F_{fact} - 1)}{df_{fact}(F_{fact} - 1) + N}

    with N the total number of observations. Negative estimates are reported as 0 (Fer17 §2.6).
    """
    f, df = np.asarray(f, dtype=float), np.asarray(df, dtype=float)
    if n_total <= 0:
        raise ValueError(f"n_total must be positive, got {n_total}")
    num = df * (f - 1.0)
    res = np.maximum(num / (num + n_total), 0.0)
    return float(res) if res.ndim == 0 else res


def effect_size_class(omega2: float) -> str:
    """Fer17 §2.6 rule of thumb: ≥ 0.14 large, 0.06–0.14 medium, 0.01–0.06 small, else negligible."""
    if omega2 >= 0.14:
        return "large"
    if omega2 >= 0.06:
        return "medium"
    if omega2 >= 0.01:
        return "small"
    return "negligible"


def power(omega2: float | np.ndarray, df_effect: float, df_error: float, n_total: int,
          alpha: float = 0.05) -> np.ndarray | float:
    r"""Power of the F test of an effect of size ω̂² (Fer17 eq. 5 and §2.6).

    Fer17 computes φ = sqrt(N ω̂²/(1 − ω̂²)) (eq. 5) and reads the power from G*Power. G*Power's
    "ANOVA: fixed effects, special, main effects and interactions" uses Cohen's f² = ω²/(1 − ω²),
    noncentrality λ = f²·N = φ², numerator df = df_effect and denominator df = df_error; the power is

    .. math:: 1 - \beta = P\bigl(F'_{df_{eff},\,df_{err};\,\lambda} > F_{1-\alpha;\,df_{eff},\,df_{err}}\bigr)

    which is what this computes (scipy's noncentral F). Note λ = N ω²/(1 − ω²) = df_eff (F − 1)
    when ω² comes from eq. (3).
    """
    w = np.asarray(omega2, dtype=float)
    if np.any((w < 0) | (w >= 1)):
        raise ValueError("omega2 must be in [0, 1)")
    lam = n_total * w / (1.0 - w)
    crit = stats.f.ppf(1.0 - alpha, df_effect, df_error)
    res = np.where(lam > 0, stats.ncf.sf(crit, df_effect, df_error, np.maximum(lam, 1e-300)), alpha)
    return float(res) if res.ndim == 0 else res


def omega_squared_for_power(target: float, df_effect: float, df_error: float, n_total: int,
                            alpha: float = 0.05) -> float | None:
    r"""The effect size ω² at which the F test has power ``target`` (the inverse of :func:`power` in ω²):
    the root of 1 − β(ω²) = target, found by bisection (Brent) on [0, 1), where the power rises strictly
    from α at ω² = 0 towards 1. ``None`` where no ω² gives it: a target ≤ α (the power of a null effect is
    α) or ≥ 1 (the power stays below 1). Since λ = N ω²/(1 − ω²) grows with N, a smaller sample size needs a
    larger ω² for the same power: at the sample size ``n_total`` this is the smallest ω² any
    ``n' ≤ n_total`` (error df moving with it) allows.
    """
    if not alpha < target < 1:
        return None
    from scipy.optimize import brentq

    def gap(w: float) -> float:
        return float(power(w, df_effect, df_error, n_total, alpha)) - target
    hi = 0.5
    while gap(hi) < 0:  # the power at ω² → 1 is 1, so some ω² below 1 reaches any target < 1
        hi = (1.0 + hi) / 2
        if hi > 1 - 1e-15:
            return None
    return float(brentq(gap, 0.0, hi, xtol=1e-15, rtol=1e-12))


# --------------------------------------------------------------------------- model terms


@dataclass(frozen=True)
class _Term:
    label: str
    factors: frozenset  # all factors whose cells define the term (nesting factors included)


_NESTED = re.compile(r"^(\w+)\((\w+)\)$")


def _parse_terms(terms, columns) -> tuple[list[_Term], dict[str, str]]:
    """Terms and the nesting map {nested factor: parent}."""
    parent: dict[str, str] = {}
    parsed = []
    for t in terms:
        factors = set()
        for part in str(t).split("*"):
            part = part.strip()
            m = _NESTED.match(part)
            if m:
                child, par = m.groups()
                if parent.get(child, par) != par:
                    raise ValueError(f"factor {child!r} is nested in two different factors")
                parent[child] = par
                factors |= {child, par}
            elif re.fullmatch(r"\w+", part):
                factors.add(part)
            else:
                raise ValueError(f"cannot read model term {t!r}: use 'a', 'a*b' or 'a(b)'")
        missing = sorted(factors - set(columns))
        if missing:
            raise ValueError(f"term {t!r} uses factors {missing} that are not columns of the data")
        parsed.append(_Term(str(t), frozenset(factors)))
    return parsed, parent


def _valid(subset: frozenset, parent: dict[str, str]) -> bool:
    """A margin is a term of the hierarchy only if every nested factor in it comes with its parent."""
    return all(parent[f] in subset for f in subset if f in parent)


def _check_orthogonal(codes: dict[str, np.ndarray], parent: dict[str, str]) -> None:
    """Every combination of levels occurs equally often (nested factors only within their parent).

    Then all margins have proportional cell counts, the terms are orthogonal and the sums of
    squares below are exact (as for Fer17's designs: eq. 9 nests 2, 2 and 3 topic sets in 3 corpora).
    """
    factors = sorted(codes)
    units: list[list[str]] = []
    for f in factors:
        if f in parent or f in parent.values():
            continue
        units.append([f])
    for child, par in parent.items():
        if par in parent:
            raise ValueError(f"nesting deeper than one level ({child} in {par} in {parent[par]}) is not supported")
    for par in sorted(set(parent.values())):
        units.append([par] + sorted(c for c, p in parent.items() if p == par))
    expected = 1
    for unit in units:
        expected *= len(set(zip(*(codes[f] for f in unit))))
    cells = pd.Series(np.ones(len(codes[factors[0]]))).groupby([codes[f] for f in factors]).size()
    if len(cells) != expected or cells.nunique() != 1:
        raise ValueError(f"unbalanced design: {len(cells)} of {expected} level combinations observed, holding "
                         f"between {cells.min()} and {cells.max()} observations each; use ols_anova for "
                         "unbalanced data")


def balanced_anova(data: pd.DataFrame, response: str, terms: Sequence[str] = CROSSED_TERMS,
                   alpha: float = 0.05) -> pd.DataFrame:
    r"""ANOVA table of a balanced design from cell means (Fer17 Tables 2–3 and 7–8 layout).

    For a set of factors A let M(A) = Σ_obs (ȳ_A(obs) − ȳ)², the between-cells sum of squares of the
    cross-classification by A. In a balanced design the sum of squares of term A is

    .. math:: SS(A) = M(A) - \sum_{B \subsetneq A} SS(B)

    over the sub-margins B of A that are terms of the hierarchy (a nested factor never appears
    without its parent), and df(A) = #cells(A) − 1 − Σ df(B). Error = Total − Σ terms.
    F = MS / MS_error; ω² from eq. (3) with N = number of observations; power as :func:`power`.

    M(A) weights each cell by its size. The decomposition is exact when every combination of factor
    levels (nested factors only within their parent) occurs equally often, which makes the terms
    orthogonal; the model must also be hierarchical (every sub-margin of a term is itself a term).
    Otherwise a ``ValueError`` says what is wrong.
    """
    if response not in data.columns:
        raise ValueError(f"response column {response!r} not in the data (columns: {list(data.columns)})")
    parsed, parent = _parse_terms(terms, data.columns)
    y = data[response].to_numpy(dtype=float)
    if not np.isfinite(y).all():
        raise ValueError(f"response {response!r} has missing or infinite values")
    n = len(y)
    grand = y.mean()
    codes = {f: pd.factorize(data[f], sort=True)[0] for t in parsed for f in t.factors}
    _check_orthogonal(codes, parent)
    by_set = {t.factors: t for t in parsed}
    ss: dict[frozenset, float] = {frozenset(): 0.0}
    dfs: dict[frozenset, int] = {frozenset(): 0}
    for t in sorted(parsed, key=lambda t: len(t.factors)):
        subs = [frozenset(c) for r in range(1, len(t.factors)) for c in itertools.combinations(sorted(t.factors), r)]
        subs = [b for b in subs if _valid(b, parent)]
        absent = [sorted(b) for b in subs if b not in by_set]
        if absent:
            raise ValueError(f"term {t.label!r} needs its lower-order terms {absent} in the model (hierarchical model)")
        key = np.zeros(n, dtype=np.int64)
        for f in sorted(t.factors):  # mixed-radix cell number of the factors' level codes
            key = key * (int(codes[f].max()) + 1) + codes[f]
        cell = pd.Series(y).groupby(key)
        counts, means = cell.size().to_numpy(), cell.mean().to_numpy()
        m = float((counts * (means - grand) ** 2).sum())
        ss[t.factors] = m - sum(ss[b] for b in subs)
        dfs[t.factors] = len(means) - 1 - sum(dfs[b] for b in subs)
    ss_total = float(((y - grand) ** 2).sum())
    df_total = n - 1
    ss_err = ss_total - sum(ss[t.factors] for t in parsed)
    df_err = df_total - sum(dfs[t.factors] for t in parsed)
    if df_err <= 0:
        raise ValueError("no degrees of freedom left for the error term: the model is saturated")
    return _table([(t.label, ss[t.factors], dfs[t.factors]) for t in parsed], ss_err, df_err, ss_total,
                  df_total, n, alpha)


def _table(rows, ss_err, df_err, ss_total, df_total, n, alpha) -> pd.DataFrame:
    ms_err = ss_err / df_err
    out = []
    for label, ss_, df_ in rows:
        ms = ss_ / df_
        f = ms / ms_err if ms_err > 0 else np.inf
        w2 = omega_squared(f, df_, n)
        out.append({"source": label, "SS": ss_, "DF": df_, "MS": ms, "F": f,
                    "p_value": float(stats.f.sf(f, df_, df_err)), "omega2": w2,
                    "effect": effect_size_class(w2), "power": power(w2, df_, df_err, n, alpha)})
    out.append({"source": "Error", "SS": ss_err, "DF": df_err, "MS": ms_err})
    out.append({"source": "Total", "SS": ss_total, "DF": df_total})
    return pd.DataFrame(out).set_index("source")


def ols_anova(data: pd.DataFrame, response: str, terms: Sequence[str] = CROSSED_TERMS,
              alpha: float = 0.05) -> pd.DataFrame:
    """The same ANOVA table from statsmodels OLS fits: sequential (type I) sums of squares.

    Term k's SS is the drop in residual SS when it is added to the model with terms 1..k−1, and its
    DF the drop in residual DF (statsmodels uses the rank, so the aliased columns of a nested term
    ``a(b)``, written ``C(b):C(a)``, are handled). For orthogonal designs this equals
    :func:`balanced_anova`; for unbalanced data it depends on the order of ``terms``, as type I SS
    do. One OLS fit per term with a dense design matrix: for small and medium data.
    """
    import statsmodels.formula.api as smf

    if response not in data.columns:
        raise ValueError(f"response column {response!r} not in the data (columns: {list(data.columns)})")
    parsed, _ = _parse_terms(terms, data.columns)
    pieces = []
    for t in parsed:
        parts = []
        for part in t.label.split("*"):
            m = _NESTED.match(part.strip())
            parts += [f"C({m.group(2)})", f"C({m.group(1)})"] if m else [f"C({part.strip()})"]
        pieces.append(":".join(dict.fromkeys(parts)))
    y = data[response].to_numpy(dtype=float)
    ss_total = float(((y - y.mean()) ** 2).sum())
    prev_rss, prev_df = ss_total, len(y) - 1
    rows = []
    for k, t in enumerate(parsed):
        with warnings.catch_warnings():
            # nested terms alias some dummy columns by construction; the rank-based DF handle it
            warnings.filterwarnings("ignore", message="The design matrix is rank-deficient")
            fit = smf.ols(f"{response} ~ " + " + ".join(pieces[:k + 1]), data=data).fit()
        rows.append((t.label, prev_rss - float(fit.ssr), int(round(prev_df - fit.df_resid))))
        prev_rss, prev_df = float(fit.ssr), fit.df_resid
    return _table(rows, prev_rss, int(round(prev_df)), ss_total, len(y) - 1, len(y), alpha)


def marginal_means(data: pd.DataFrame, response: str, factors: str | Sequence[str]) -> pd.Series:
    """Mean response per level (or level combination) of ``factors``: the main-effects and
    interaction plots of Fer17 (Figs. 4–6, 12–14) plot these."""
    factors = [factors] if isinstance(factors, str) else list(factors)
    missing = [f for f in factors + [response] if f not in data.columns]
    if missing:
        raise ValueError(f"columns {missing} not in the data")
    return data.groupby(factors, sort=True)[response].mean()


def tukey_levels(data: pd.DataFrame, response: str, factor: str, ms_error: float, df_error: float,
                 alpha: float = 0.05) -> pd.DataFrame:
    r"""Tukey HSD between the levels of one factor, Fer17 eq. (4).

    Levels u and v differ significantly when

    .. math:: |t| = \frac{|\hat\mu_u - \hat\mu_v|}{\sqrt{MS_{error}(1/n_u + 1/n_v)}} > \frac{q_{1-\alpha;\,k,\,df}}{\sqrt 2}

    with μ̂ the marginal means, n the level sizes, k the number of levels and q the studentized
    range quantile. Fer17 writes df = N − k (one-way); for a multi-factor model pass the model's
    error mean square and df (``table.loc["Error", ["MS", "DF"]]``), which is what MATLAB's
    ``multcompare`` does after ``anovan``.
    """
    if factor not in data.columns or response not in data.columns:
        raise ValueError(f"columns {factor!r} and {response!r} must be in the data")
    g = data.groupby(factor, sort=True)[response]
    means, sizes = g.mean(), g.size()
    k = len(means)
    if k < 2:
        raise ValueError(f"factor {factor!r} has {k} level; Tukey HSD needs at least 2")
    crit = studentized_range_critical(alpha, k, df_error) / math.sqrt(2)
    m, n = means.to_numpy(dtype=float), sizes.to_numpy()
    u, v = pairs(k)
    u, v, diff, t, significant = tukey_pairs(m, np.sqrt(ms_error * (1 / n[u] + 1 / n[v])), crit)
    return pd.DataFrame({"level_u": means.index[u], "level_v": means.index[v], "mean_u": m[u], "mean_v": m[v],
                         "diff": diff, "abs_t": t, "critical": crit, "significant": significant})


#: Axis names of the design factors in the plots.
FACTOR_LABELS = {"pair": "measure pair", "topics": "topics (t)", "systems": "systems (s)", "topic_set": "topic set"}


def main_effects_plot(data: pd.DataFrame, response: str, factors: Sequence[str], title: str = ""):
    """Main-effects plot (Fer17 Figs. 4, 12): the marginal mean of ``response`` at each level of each
    factor, one panel per factor, each panel as wide as its number of levels needs (the 21 measure
    pairs get room for their labels). Returns the matplotlib Figure (the caller saves it; say
    "simulated" in ``title`` when the data are)."""
    import matplotlib.pyplot as plt

    factors = list(factors)
    means = [marginal_means(data, response, f) for f in factors]
    widths = [max(len(m), 4) for m in means]
    with styled():
        fig, axes = plt.subplots(1, len(factors), figsize=(max(6.0, 0.3 * sum(widths) + 1.5), 3.4), sharey=True,
                                 squeeze=False, width_ratios=widths, layout="constrained")
        for ax, f, m in zip(axes[0], factors, means):
            ax.plot(range(len(m)), m.to_numpy(), marker="o")
            ax.set_xticks(range(len(m)), [str(v) for v in m.index])
            ax.set_xlim(-0.5, len(m) - 0.5)
            ax.set_xlabel(FACTOR_LABELS.get(f, f.replace("_", " ")))
        axes[0][0].set_ylabel(f"mean {RESPONSE_LABELS.get(response, response)}")
        if title:
            fig.suptitle(title)
    return fig


def interaction_plot(data: pd.DataFrame, response: str, x: str, trace: str, title: str = ""):
    """Interaction plot (Fer17 Figs. 5–6, 13–14): mean ``response`` per level of ``x`` (horizontal
    axis), one line per level of ``trace``; the legend sits outside the axes so it hides no line.
    Returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    m = marginal_means(data, response, [trace, x]).unstack(x)
    with styled():
        fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
        markers = "os^vDP*X"
        for i, (level, row) in enumerate(m.iterrows()):
            ax.plot(range(m.shape[1]), row.to_numpy(), marker=markers[i // 10 % len(markers)], ms=3, lw=1,
                    label=str(level))
        ax.set_xticks(range(m.shape[1]), [str(v) for v in m.columns])
        ax.set_xlabel(FACTOR_LABELS.get(x, x.replace("_", " ")))
        ax.set_ylabel(f"mean {RESPONSE_LABELS.get(response, response)}")
        ax.legend(title=FACTOR_LABELS.get(trace, trace.replace("_", " ")), ncol=2 if len(m) > 8 else 1,
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        if title:
            ax.set_title(title)
    return fig
