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

__all__ = ["MEASURE_NAMES", "fer17_measures", "score_matrices", "system_performance", "INTEGER_SCALE", "kde", "kl_divergence",
           "BANDWIDTH", "save_figure", "plot_kde", "plot_size_curves", "plot_romp", "plot_across_collections",
           "SOURCE_NAMES", "qualitative_anova_items", "recompute_published_anova"]

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


def system_performance(collection: Collection, names: Sequence[str] = MEASURE_NAMES) -> dict[str, np.ndarray]:
    """The performance distribution of a set of systems (Fer17 §3.4, Fig. 1, Table 1): each system's
    mean score over the topics, ``name -> (S,)``; its KDE (eq. 6) is compared with the GoP systems'
    by KL divergence (eq. 7). On the real TREC-8 runs (``irscales.paths.trec_track("T08")``, read
    at full depth) this is the "original systems" side of Fig. 1 and Table 1; the GoP side needs the
    TIPSTER corpus."""
    return {n: m.mean(axis=0) for n, m in score_matrices(collection, names).items()}


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


# --------------------------------------------------------------------------- figures (Fer17 Figs. 1, 3, 6, 8, 9, 11, 14)


def save_figure(fig, stem: str) -> list[str]:
    """Write ``fig`` as PNG and PDF to ``figures/fer17/`` reproducibly and close it; returns the
    file names (relative). Put "simulated" in ``stem`` when the data are simulated."""
    from .paths import figures_dir
    from .plots import save_figure as _save

    return [p.name for p in _save(fig, figures_dir("fer17"), stem)]


def plot_kde(samples: Mapping[str, ArrayLike], title: str = "", bandwidth: float = BANDWIDTH):
    """Estimated PDFs of several samples (Fer17 Fig. 1), one line each, with D_KL of the first
    against each other in the legend. Returns the Figure."""
    import matplotlib.pyplot as plt

    items = list(samples.items())
    if not items:
        raise ValueError("plot_kde needs at least one sample")
    allv = np.concatenate([np.asarray(v, float).ravel() for _, v in items])
    grid = np.linspace(allv.min() - 4 * bandwidth, allv.max() + 4 * bandwidth, 400)
    fig, ax = plt.subplots(figsize=(4.5, 3))
    first = items[0][1]
    for k, (name, v) in enumerate(items):
        lab = name if k == 0 else f"{name} (D_KL(first‖this) = {kl_divergence(first, v, bandwidth):.4f})"
        ax.plot(grid, kde(v, grid, bandwidth), ls="-" if k == 0 else "--", label=lab)
    ax.set_xlabel("score")
    ax.set_ylabel("density")
    ax.legend(fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


def plot_size_curves(data, pair: str, topic_sizes: Sequence[int] | None = None,
                     variants: Sequence[str] = ("allQ",), title: str = ""):
    """Mean τ and τ_AP of one measure pair against system size, one panel per topic size, with a
    95% normal confidence band over the H samples (Fer17 Figs. 3 and 8). Returns the Figure."""
    import matplotlib.pyplot as plt

    d = data[data["pair"] == pair]
    if d.empty:
        raise ValueError(f"no rows for measure pair {pair!r}")
    tsizes = sorted(d["topics"].unique()) if topic_sizes is None else list(topic_sizes)
    fig, axes = plt.subplots(1, len(tsizes), figsize=(3 * len(tsizes), 3), sharey=True, squeeze=False)
    styles = {("tau", "allQ"): ("tab:blue", "-"), ("tau_ap", "allQ"): ("tab:green", "--"),
              ("tau", "no1Q"): ("tab:red", "-."), ("tau_ap", "no1Q"): ("tab:orange", ":")}
    for ax, t in zip(axes[0], tsizes):
        for v in variants:
            for resp in ("tau", "tau_ap"):
                g = d[(d["topics"] == t) & (d["variant"] == v)].groupby("systems")[resp]
                m, se = g.mean(), g.std(ddof=1) / np.sqrt(g.size())
                x = np.arange(len(m))
                color, ls = styles[(resp, v)]
                ax.plot(x, m.to_numpy(), color=color, ls=ls, label=f"{'τ' if resp == 'tau' else 'τ_AP'} {v}")
                ax.fill_between(x, (m - 1.96 * se).to_numpy(), (m + 1.96 * se).to_numpy(), color=color, alpha=0.2)
                ax.set_xticks(x, [str(s) for s in m.index], rotation=90)
        ax.set_title(f"{t} topics", fontsize="small")
        ax.set_xlabel("systems")
    axes[0][0].set_ylabel("correlation")
    axes[0][-1].legend(fontsize="x-small")
    if title:
        fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig


def plot_romp(a, b, labels: tuple[str, str] = ("τ", "τ_AP"), title: str = ""):
    """Two Rankings of Measure Pairs side by side (parallel coordinates, left) and the two curves
    centred on their means (right), as Fer17 Figs. 6, 9 and 14. ``a``, ``b``: Series indexed by
    measure pair. Returns the Figure."""
    import matplotlib.pyplot as plt

    b = b.reindex(a.index)
    ra = a.rank(ascending=False, method="first")
    rb = b.rank(ascending=False, method="first")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 0.25 * len(a) + 2))
    for p in a.index:
        ax1.plot([0, 1], [ra[p], rb[p]], color="tab:gray" if ra[p] != rb[p] else "tab:blue", lw=1)
    ax1.set_yticks(ra.to_numpy(), list(ra.index), fontsize="x-small")
    ax1.invert_yaxis()
    ax1b = ax1.twinx()
    ax1b.set_ylim(ax1.get_ylim())
    ax1b.set_yticks(rb.to_numpy(), list(rb.index), fontsize="x-small")
    ax1.set_xticks([0, 1], [f"RoMP by {labels[0]}", f"RoMP by {labels[1]}"])
    order = a.sort_values(ascending=False).index
    x = np.arange(len(order))
    ax2.plot(x, (a - a.mean())[order].to_numpy(), "-o", ms=3, label=f"{labels[0]} (centred)")
    ax2.plot(x, (b - b.mean())[order].to_numpy(), "--s", ms=3, label=f"{labels[1]} (centred)")
    ax2.set_xticks(x, list(order), rotation=90, fontsize="x-small")
    ax2.legend(fontsize="small")
    if title:
        fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    return fig


def plot_across_collections(data, response: str = "tau", title: str = ""):
    """Mean correlation of every measure pair on each topic set (Fer17 Fig. 11, left): one line per
    pair, topic sets on the x axis in data order. Returns the Figure."""
    import matplotlib.pyplot as plt

    m = data.groupby(["pair", "topic_set"], observed=True, sort=False)[response].mean().unstack("topic_set")
    fig, ax = plt.subplots(figsize=(6, 4))
    x = np.arange(m.shape[1])
    for p, row in m.iterrows():
        ax.plot(x, row.to_numpy(), marker=".", lw=1, label=str(p))
    ax.set_xticks(x, [str(c) for c in m.columns])
    ax.set_ylabel(f"mean {response}")
    ax.legend(fontsize="xx-small", ncol=2, bbox_to_anchor=(1.02, 1), loc="upper left")
    if title:
        ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- published-vs-reproduced helpers

#: Our ANOVA term names -> the source names of Fer17 Tables 2, 3, 7 and 8.
SOURCE_NAMES = {"subject": "Subject", "pair": "Measure Pair", "topics": "Topic Size", "systems": "System Size",
                "pair*topics": "Measure Pair*Topic Size", "pair*systems": "Measure Pair*System Size",
                "topics*systems": "Topic Size*System Size", "corpus": "Corpus",
                "topic_set(corpus)": "Topic Set(Corpus)", "pair*corpus": "Measure Pair*Corpus",
                "pair*topic_set(corpus)": "Measure Pair*Topic Set(Corpus)"}


def qualitative_anova_items(table, tab: str, alpha: float = 0.05) -> dict[str, str]:
    """Items ``<tab>/<source>/significant`` (yes/no at ``alpha``) and ``<tab>/<source>/effect_class``
    (Fer17 §2.6 ω² class) from an ANOVA table of :func:`irscales.anova.balanced_anova` — the
    qualitative findings that can be compared between the paper's TREC data and ours."""
    out = {}
    for term, row in table.iterrows():
        if term in ("Error", "Total", "subject") or term not in SOURCE_NAMES:
            continue
        src = SOURCE_NAMES[term]
        out[f"{tab}/{src}/significant"] = "yes" if row["p_value"] < alpha else "no"
        out[f"{tab}/{src}/effect_class"] = row["effect"]
    return out


def recompute_published_anova(published, tables: Sequence[str] = ("table2", "table3", "table7", "table8"),
                              alpha: float = 0.05) -> tuple[dict[str, float], dict[str, float]]:
    """Recompute the derived columns of Fer17's printed ANOVA tables from their printed inputs:
    MS = SS/DF, F = MS/MS_error, p from the F distribution at the printed F and DF, ω² from eq. (3)
    at the printed F and DF with N = total DF + 1, and power (:func:`irscales.anova.power`) at that
    ω². ``published`` is :func:`irscales.published.load` ``("fer17")``. Returns (item -> value,
    item -> tolerance): a reproduction *from published inputs*, not from data. MS and F are computed
    from SS printed to 4 decimals, so their tolerance is that rounding error propagated plus half a
    unit of the printed last place; the other items use the default printed-precision match."""
    from scipy import stats

    from .anova import omega_squared, power
    from .published import _parse_number

    raw = {r.item: str(r.value) for r in published.itertuples(index=False)}
    val = {k: _parse_number(v)[0] for k, v in raw.items()}
    out: dict[str, float] = {}
    tol: dict[str, float] = {}
    r = 0.5e-4  # SS are printed to 4 decimals
    for tab in tables:
        try:
            df_err, ss_err = val[f"{tab}/Error/DF"], val[f"{tab}/Error/SS"]
            n_total = int(val[f"{tab}/Total/DF"]) + 1
        except KeyError as e:
            raise KeyError(f"published data lack {e.args[0]!r}: not Fer17's CSV?") from None
        ms_err = ss_err / df_err
        out[f"{tab}/Error/MS"] = ms_err
        for src in SOURCE_NAMES.values():
            key = f"{tab}/{src}"
            if f"{key}/DF" not in val:
                continue
            dfv, ssv, fv = val[f"{key}/DF"], val[f"{key}/SS"], val[f"{key}/F"]
            out[f"{key}/MS"] = ssv / dfv
            out[f"{key}/F"] = (ssv / dfv) / ms_err
            tol[f"{key}/MS"] = r / dfv + r
            tol[f"{key}/F"] = out[f"{key}/F"] * (r / ssv + r / ss_err) + r
            p = float(stats.f.sf(fv, dfv, df_err))
            out[f"{key}/p"] = p
            printed = raw.get(f"{key}/p", "")
            if "e" in printed.lower():  # scientific notation: half a unit of the mantissa's last digit
                mant, exp = printed.lower().split("e")
                digits = len(mant.split(".")[1]) if "." in mant else 0
                tol[f"{key}/p"] = 0.5 * 10.0 ** (int(exp) - digits)
            if src != "Subject":
                w2 = omega_squared(fv, dfv, n_total)
                out[f"{key}/omega2"] = w2
                out[f"{key}/power"] = power(w2, dfv, df_err, n_total, alpha)
    return out, tol
