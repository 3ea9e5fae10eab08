"""Fer17's measures (§3.3) on a :class:`~irscales.data.collection.Collection`, and the GoP validation
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

from irscales.data.collection import Collection
from irscales.measures import AP, ERR, NDCG, P, RBP, Measure, RPrec
from irscales.figures import RESPONSE_LABELS, styled

__all__ = ["MEASURE_NAMES", "fer17_measures", "score_matrices", "system_performance", "INTEGER_SCALE", "kde", "kl_divergence",
           "BANDWIDTH", "kde_curve", "distribution_summary", "save_figure", "plot_kde", "plot_original_beside_gop", "plot_size_curves", "plot_romp", "plot_across_collections",
           "SOURCE_NAMES", "qualitative_anova_items", "recompute_published_anova", "PRINTED_NOTE",
           "printed_pair_effects", "printed_romp_items", "printed_rq2_items", "printed_anova_class_items",
           "printed_marginal_changes", "RATIO_CLAIMS", "RATIO_READING", "printed_ratio_items",
           "printed_ordering_items", "plot_pair_effects", "printed_input_items"]

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
            out[n][idx] = sub.evaluate(m, depth=cut)
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


def distribution_summary(performance: Mapping[str, ArrayLike], bandwidth: float = BANDWIDTH) -> "pd.DataFrame":
    """One side of Fer17 Fig. 1 / Table 1 in numbers: for each measure (``name -> per-system mean
    scores``, e.g. :func:`system_performance`) the number of systems, mean, standard deviation
    (ddof = 1), minimum, quartiles, maximum and the mode of the KDE (eq. 6, on :func:`kde_curve`'s
    grid). Table 1 itself (a KL divergence, eq. 7) needs both sides."""
    import pandas as pd

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


# --------------------------------------------------------------------------- figures (Fer17 Figs. 1, 3, 6, 8, 9, 11, 14)


def save_figure(fig, stem: str) -> list[str]:
    """Write ``fig`` as PNG and PDF to ``figures/fer17/`` reproducibly and close it; returns the
    file names (relative). Put "simulated" in ``stem`` when the data are simulated."""
    from irscales.paths import figures_dir
    from irscales.figures import write_figure

    return [p.name for p in write_figure(fig, figures_dir("fer17"), stem)]


def plot_kde(samples: Mapping[str, ArrayLike], title: str = "", bandwidth: float = BANDWIDTH):
    """Estimated PDFs of several samples (Fer17 Fig. 1), one line each, with D_KL of the first
    against each other in the legend. Returns the Figure."""
    import matplotlib.pyplot as plt

    items = list(samples.items())
    if not items:
        raise ValueError("plot_kde needs at least one sample")
    allv = np.concatenate([np.asarray(v, float).ravel() for _, v in items])
    grid = np.linspace(allv.min() - 4 * bandwidth, allv.max() + 4 * bandwidth, 400)
    with styled():
        fig, ax = plt.subplots(figsize=(5.2, 3.2), layout="constrained")
        first = items[0][1]
        for k, (name, v) in enumerate(items):
            lab = name if k == 0 else f"{name} (D_KL(first‖this) = {kl_divergence(first, v, bandwidth):.4f})"
            ax.plot(grid, kde(v, grid, bandwidth), ls="-" if k == 0 else "--", label=lab)
        ax.set_xlabel("score")
        ax.set_ylabel("density")
        ax.legend()
        if title:
            ax.set_title(title)
    return fig


def plot_original_beside_gop(original: Mapping[str, ArrayLike], gop: Mapping[str, ArrayLike] | None = None,
                             measures: Sequence[str] = ("AP", "nDCG@20"),
                             original_label: str = "TREC-8 original systems (real)",
                             gop_label: str = "GoP (simulated)", title: str = "", bandwidth: float = BANDWIDTH):
    """Fer17 Fig. 1 as two sides: one row per measure, the KDE (eq. 6) of the original systems'
    mean scores on the left and the GoP's on the right (``gop=None``: the left column only), on the
    same x range per row, with a rug of the systems. No divergence is drawn: when one side is real
    and the other simulated, their D_KL (Table 1) would compare different things. Returns the Figure."""
    import matplotlib.pyplot as plt

    sides = [(original_label, original)] + ([(gop_label, gop)] if gop is not None else [])
    for label, d in sides:
        missing = [m for m in measures if m not in d]
        if missing:
            raise KeyError(f"{label}: no scores for {missing}")
    with styled():
        fig, axes = plt.subplots(len(measures), len(sides), figsize=(4.6 * len(sides), 2.8 * len(measures)),
                                 squeeze=False, layout="constrained")
        for r, m in enumerate(measures):
            allv = np.concatenate([np.asarray(d[m], float).ravel() for _, d in sides])
            lo, hi = allv.min() - 4 * bandwidth, allv.max() + 4 * bandwidth
            for c, (label, d) in enumerate(sides):
                x = np.asarray(d[m], float).ravel()
                grid, dens = kde_curve(x, bandwidth, lo=lo, hi=hi)
                ax = axes[r][c]
                ax.plot(grid, dens, color=f"C{c}", label=f"{label}, {x.size} systems")
                ax.plot(x, np.full(x.size, -0.03 * dens.max()), "|", color=f"C{c}", ms=6, alpha=0.5)
                ax.set_xlim(lo, hi)
                ax.set_xlabel(f"mean {m} over topics")
                ax.set_ylabel("density")
                ax.set_title(f"{label}: {m}", fontsize=9)
        if title:
            fig.suptitle(title)
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
    with styled():
        fig, axes = plt.subplots(1, len(tsizes), figsize=(max(6.0, 2.6 * len(tsizes)), 3.2), sharey=True,
                                 squeeze=False, layout="constrained")
        _size_panels(axes[0], d, tsizes, variants)
        axes[0][0].set_ylabel("correlation")
        axes[0][-1].legend()
        if title:
            fig.suptitle(title)
    return fig


def _size_panels(axes, d, tsizes, variants) -> None:
    styles = {("tau", "allQ"): ("tab:blue", "-"), ("tau_ap", "allQ"): ("tab:green", "--"),
              ("tau", "no1Q"): ("tab:red", "-."), ("tau_ap", "no1Q"): ("tab:orange", ":")}
    for ax, t in zip(axes, tsizes):
        for v in variants:
            for resp in ("tau", "tau_ap"):
                g = d[(d["topics"] == t) & (d["variant"] == v)].groupby("systems")[resp]
                m, se = g.mean(), g.std(ddof=1) / np.sqrt(g.size())
                x = np.arange(len(m))
                color, ls = styles[(resp, v)]
                ax.plot(x, m.to_numpy(), color=color, ls=ls, label=f"{'τ' if resp == 'tau' else 'τ_AP'} {v}")
                ax.fill_between(x, (m - 1.96 * se).to_numpy(), (m + 1.96 * se).to_numpy(), color=color, alpha=0.2)
                ax.set_xticks(x, [str(s) for s in m.index])
        ax.set_title(f"{t} topics")
        ax.set_xlabel("systems")


def plot_romp(a, b, labels: tuple[str, str] = ("τ", "τ_AP"), title: str = ""):
    """Two Rankings of Measure Pairs side by side (parallel coordinates, left) and the two curves
    centred on their means (right), as Fer17 Figs. 6, 9 and 14. ``a``, ``b``: Series indexed by
    measure pair. Returns the Figure."""
    import matplotlib.pyplot as plt

    b = b.reindex(a.index)
    ra = a.rank(ascending=False, method="first")
    rb = b.rank(ascending=False, method="first")
    with styled():
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 0.22 * len(a) + 2.4), layout="constrained")
        for p in a.index:
            ax1.plot([0, 1], [ra[p], rb[p]], color="tab:gray" if ra[p] != rb[p] else "tab:blue", lw=1)
        ax1.grid(False)
        ax1.set_yticks(ra.to_numpy(), list(ra.index), fontsize=7.5)
        ax1.invert_yaxis()
        ax1b = ax1.twinx()
        ax1b.set_ylim(ax1.get_ylim())
        ax1b.set_yticks(rb.to_numpy(), list(rb.index), fontsize=7.5)
        ax1.set_xticks([0, 1], [f"RoMP by {labels[0]}", f"RoMP by {labels[1]}"])
        ax1.set_xlim(-0.08, 1.08)
        order = a.sort_values(ascending=False).index
        x = np.arange(len(order))
        ax2.plot(x, (a - a.mean())[order].to_numpy(), "-o", ms=3, label=f"{labels[0]} (centred)")
        ax2.plot(x, (b - b.mean())[order].to_numpy(), "--s", ms=3, label=f"{labels[1]} (centred)")
        ax2.set_xticks(x, list(order), rotation=90, fontsize=7.5)
        ax2.legend()
        if title:
            fig.suptitle(title)
    return fig


def plot_across_collections(data, response: str = "tau", title: str = ""):
    """Mean correlation of every measure pair on each topic set (Fer17 Fig. 11, left): one line per
    pair, topic sets on the x axis in data order. Returns the Figure."""
    import matplotlib.pyplot as plt

    m = data.groupby(["pair", "topic_set"], observed=True, sort=False)[response].mean().unstack("topic_set")
    with styled():
        fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
        x = np.arange(m.shape[1])
        markers = "os^vDP*X"
        for i, (p, row) in enumerate(m.iterrows()):
            ax.plot(x, row.to_numpy(), marker=markers[i // 10 % len(markers)], ms=3, lw=1, label=str(p))
        ax.set_xticks(x, [str(c) for c in m.columns])
        ax.set_xlabel("topic set")
        ax.set_ylabel(f"mean {RESPONSE_LABELS.get(response, response)}")
        ax.legend(title="measure pair", ncol=2, bbox_to_anchor=(1.01, 1), loc="upper left", borderaxespad=0)
        if title:
            ax.set_title(title)
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
    (Fer17 §2.6 ω² class) from an ANOVA table of :func:`irscales.stats.anova.balanced_anova` — the
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
    at the printed F and DF with N = total DF + 1, and power (:func:`irscales.stats.anova.power`) at that
    ω². ``published`` is :func:`irscales.papers.published.load` ``("fer17")``. Returns (item -> value,
    item -> tolerance): a reproduction *from published inputs*, not from data. MS and F are computed
    from SS printed to 4 decimals, so their tolerance is that rounding error propagated plus half a
    unit of the printed last place; the other items use the default printed-precision match."""
    from scipy import stats

    from irscales.stats.anova import omega_squared, power
    from irscales.papers.published import _parse_number

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


# --------------------------------------------------------------------------- from the paper's printed tables

#: Note prefix of every item recomputed from the paper's own printed numbers (the report reads it).
PRINTED_NOTE = "recomputed from the paper's printed"


def _printed_values(published) -> dict[str, float]:
    from irscales.papers.published import _parse_number

    return {r.item: _parse_number(str(r.value))[0] for r in published.itertuples(index=False)}


def printed_pair_effects(published, table: str) -> "pd.DataFrame":
    """The measure-pair main effects printed in Fer17 Table 4 (``table="table4"``) or Table 9
    (``"table9"``) as a DataFrame indexed by pair label (``"AP vs P@10"``), columns ``tau`` and
    ``tau_ap``, in the order the table prints them (row by row) — the order that breaks ties."""
    import pandas as pd

    cols = {}
    for resp in ("tau", "tau_ap"):
        pre = f"{table}/{resp}/"
        rows = [(str(r.item)[len(pre):], str(r.value)) for r in published.itertuples(index=False)
                if str(r.item).startswith(pre)]
        if not rows:
            raise KeyError(f"published data have no {pre}* items: not Fer17's CSV, or no {table}?")
        cols[resp] = pd.Series([float(v) for _, v in rows], index=[k for k, _ in rows])
    if not cols["tau"].index.equals(cols["tau_ap"].index):
        raise ValueError(f"{table}: the τ and τ_AP rows do not list the same measure pairs in the same order")
    return pd.DataFrame(cols)


def printed_romp_items(published) -> dict[str, float]:
    """§4.2.5 (Table 4: τ vs τ_AP RoMP) and §6.2.5 (Table 4 vs Table 9, for τ and for τ_AP) from the
    printed tables, through :func:`irscales.stats.sampling.romp_comparison` with Fer17's tie-by-order
    convention: items ``s4.2.5/{tauCorr, apCorr, romp_swaps, RMSE}`` and ``s6.2.5/<resp>/{tauCorr,
    apCorr, RMSE}``."""
    from irscales.stats.sampling import romp_comparison

    t4, t9 = printed_pair_effects(published, "table4"), printed_pair_effects(published, "table9")
    r = romp_comparison(t4["tau"], t4["tau_ap"])
    out = {"s4.2.5/tauCorr": r["tauCorr"], "s4.2.5/apCorr": r["apCorr"], "s4.2.5/romp_swaps": r["swaps"],
           "s4.2.5/RMSE": r["RMSE"]}
    for resp in ("tau", "tau_ap"):
        r = romp_comparison(t4[resp], t9[resp])
        out.update({f"s6.2.5/{resp}/{k}": r[k] for k in ("tauCorr", "apCorr", "RMSE")})
    return out


def printed_rq2_items(published, cell: tuple[int, int] = (50, 100)) -> dict[str, float]:
    """§5.2.2 from the printed Tables 5 (τ) and 6 (τ_AP): the grand mean of each row kind (tauCorr,
    apCorr, RMSE) over all (t, s) cells, and the values of the cell (t, s) = ``cell`` that the text
    and Fig. 9 discuss, plus the swaps that cell's tauCorr implies (1 − 2·swaps/C(n, 2), n the pairs
    of Table 4). Items ``s5.2.2/<resp>/grand/<stat>`` and ``s5.2.2/<resp>/t<t>_s<s>/<stat>``."""
    val = _printed_values(published)
    n_pairs = len(printed_pair_effects(published, "table4"))
    out = {}
    for tab, resp in (("table5", "tau"), ("table6", "tau_ap")):
        t, s = cell
        # tauCorr of two strict RoMP is 1 − 2·swaps/C(n, 2): the swaps the text counts in Fig. 9
        out[f"s5.2.2/{resp}/t{t}_s{s}/swaps"] = (1.0 - val[f"{tab}/t{t}/s{s}/tauCorr"]) * n_pairs * (n_pairs - 1) / 4
        for stat in ("tauCorr", "apCorr", "RMSE"):
            cells = [v for k, v in val.items() if k.startswith(f"{tab}/") and k.endswith(f"/{stat}")]
            if not cells:
                raise KeyError(f"published data have no {tab}/*/{stat} items")
            out[f"s5.2.2/{resp}/grand/{stat}"] = float(np.mean(cells))
            t, s = cell
            out[f"s5.2.2/{resp}/t{t}_s{s}/{stat}"] = val[f"{tab}/t{t}/s{s}/{stat}"]
    return out


def printed_anova_class_items(published, tables: Sequence[str] = ("table2", "table3", "table7", "table8"),
                              alpha: float = 0.05) -> dict[str, str]:
    """``<tab>/<source>/significant`` (printed p < ``alpha``) and ``<tab>/<source>/effect_class``
    (§2.6 class of the printed ω², :func:`irscales.stats.anova.effect_size_class`) for every effect row of
    the printed ANOVA tables."""
    from irscales.stats.anova import effect_size_class

    val = _printed_values(published)
    out = {}
    for tab in tables:
        for src in SOURCE_NAMES.values():
            key = f"{tab}/{src}"
            if f"{key}/omega2" not in val:
                continue
            out[f"{key}/significant"] = "yes" if val[f"{key}/p"] < alpha else "no"
            out[f"{key}/effect_class"] = effect_size_class(val[f"{key}/omega2"])
    return out


def printed_marginal_changes(published) -> tuple[dict[str, float], dict[str, float]]:
    """§4.2.3's percentage differences between the printed marginal means: for every published item
    ``s4.2.3/change/<resp>/<a>_vs_<b>`` the relative difference |m_a − m_b| / m_b in percent, from
    the printed ``s4.2.3/<resp>/<a>`` and ``s4.2.3/<resp>/<b>``. Returns (item -> value, item ->
    tolerance): the means are printed to 4 decimals, so the tolerance is that rounding propagated
    plus half a unit of the printed percentage's last place."""
    from irscales.papers.published import _parse_number

    val = _printed_values(published)
    out, tol = {}, {}
    for r in published.itertuples(index=False):
        item = str(r.item)
        if not item.startswith("s4.2.3/change/"):
            continue
        resp, pair = item.split("/")[2:4]
        a, b = pair.split("_vs_")
        ma, mb = val[f"s4.2.3/{resp}/{a}"], val[f"s4.2.3/{resp}/{b}"]
        out[item] = abs(ma - mb) / mb * 100.0
        h = 0.5e-4  # half a unit of the means' 4th decimal
        _, decimals, _ = _parse_number(str(r.value))
        tol[item] = 100.0 * (h / mb + h * ma / mb ** 2) + 0.5 * 10.0 ** -decimals
    return out, tol


#: §4.2.2 / §6.2.2 ratio claims: item -> ((table, source) of the numerator ω², (table, source) of
#: the denominator ω²). Which effects the text compares; the claimed numbers are in the CSV.
RATIO_CLAIMS = {
    "s4.2.2/ratio/topic_size_over_measure_pair/tau": (("table2", "Topic Size"), ("table2", "Measure Pair")),
    "s4.2.2/ratio/topic_size_over_measure_pair/tau_ap": (("table3", "Topic Size"), ("table3", "Measure Pair")),
    "s4.2.2/ratio/system_size/tau_ap_over_tau": (("table3", "System Size"), ("table2", "System Size")),
    "s4.2.2/ratio/pair_topic_size/tau_over_tau_ap": (("table2", "Measure Pair*Topic Size"),
                                                     ("table3", "Measure Pair*Topic Size")),
    "s6.2.2/ratio/corpus/tau_ap_over_tau": (("table8", "Corpus"), ("table7", "Corpus")),
    "s6.2.2/ratio/topic_set_over_corpus/tau": (("table7", "Topic Set(Corpus)"), ("table7", "Corpus")),
    "s6.2.2/ratio/topic_set_over_corpus/tau_ap": (("table8", "Topic Set(Corpus)"), ("table8", "Corpus")),
    "s6.2.2/ratio/pair_corpus_over_corpus/tau": (("table7", "Measure Pair*Corpus"), ("table7", "Corpus")),
    "s6.2.2/ratio/pair_corpus_over_corpus/tau_ap": (("table8", "Measure Pair*Corpus"), ("table8", "Corpus")),
    "s6.2.2/ratio/pair_topic_set_over_topic_set/tau": (("table7", "Measure Pair*Topic Set(Corpus)"),
                                                       ("table7", "Topic Set(Corpus)")),
    "s6.2.2/ratio/pair_topic_set_over_topic_set/tau_ap": (("table8", "Measure Pair*Topic Set(Corpus)"),
                                                          ("table8", "Topic Set(Corpus)")),
    "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau": (("table7", "Measure Pair*Topic Set(Corpus)"),
                                                             ("table2", "Measure Pair*Topic Size")),
    "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau_ap": (("table8", "Measure Pair*Topic Set(Corpus)"),
                                                                ("table3", "Measure Pair*Topic Size")),
}

#: How loosely a verbal ratio claim is read, as a tolerance in units of the claimed number's last
#: written digit: "slightly less than"/"a little bit more than" one unit of it, "about 25" half of 5
#: (a round number); every other "about k" the default, half a unit of k's last digit.
RATIO_READING = {"s4.2.2/ratio/topic_size_over_measure_pair/tau": 1.0,
                 "s4.2.2/ratio/topic_size_over_measure_pair/tau_ap": 1.0,
                 "s4.2.2/ratio/system_size/tau_ap_over_tau": 1.0,
                 "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau": 2.5,
                 "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau_ap": 2.5}


def printed_ratio_items(published) -> tuple[dict[str, float], dict[str, float]]:
    """The ratio claims of §4.2.2 and §6.2.2 (:data:`RATIO_CLAIMS`) recomputed from the printed ω²
    of Tables 2, 3, 7 and 8. Returns (item -> ratio, item -> tolerance from :data:`RATIO_READING`)."""
    from irscales.papers.published import _parse_number

    val = _printed_values(published)
    printed = {str(r.item): str(r.value) for r in published.itertuples(index=False)}
    out, tol = {}, {}
    for item, ((tn, sn), (td, sd)) in RATIO_CLAIMS.items():
        if item not in printed:
            raise KeyError(f"published data lack the claim {item!r}")
        out[item] = val[f"{tn}/{sn}/omega2"] / val[f"{td}/{sd}/omega2"]
        if item in RATIO_READING:
            _, decimals, _ = _parse_number(printed[item])
            tol[item] = RATIO_READING[item] * 10.0 ** -decimals
    return out, tol


def printed_ordering_items(published) -> dict[str, str]:
    """Orderings the text states, checked on the printed tables: topic size ω² above system size ω²
    (Tables 2, 3); system size ω² larger for τ_AP (Table 3) than for τ (Table 2); τ_AP below τ for
    every measure pair (Table 4); topic set ω² above corpus ω² (Tables 7, 8)."""
    val = _printed_values(published)
    w = lambda tab, src: val[f"{tab}/{src}/omega2"]  # noqa: E731
    yes = lambda c: "yes" if c else "no"  # noqa: E731
    t4 = printed_pair_effects(published, "table4")
    return {
        "s4.2.2/topic_size_omega2_gt_system_size": yes(all(w(t, "Topic Size") > w(t, "System Size")
                                                            for t in ("table2", "table3"))),
        "s4.2.2/system_size_omega2_tau_ap_gt_tau": yes(w("table3", "System Size") > w("table2", "System Size")),
        "s4.2.1/tau_ap_below_tau": yes(bool((t4["tau_ap"] < t4["tau"]).all())),
        "s6.2.2/topic_set_omega2_gt_corpus": yes(all(w(t, "Topic Set(Corpus)") > w(t, "Corpus")
                                                     for t in ("table7", "table8"))),
    }


def plot_pair_effects(effects, title: str = ""):
    """Main effects of the measure-pair factor (Fer17 Figs. 4 and 12, left): τ and τ_AP of every
    measure pair, in the order given. ``effects``: DataFrame with columns ``tau`` and ``tau_ap``
    indexed by pair (e.g. :func:`printed_pair_effects`). Returns the Figure."""
    import matplotlib.pyplot as plt

    with styled():
        fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True, layout="constrained")
        x = np.arange(len(effects))
        for ax, resp, color in ((axes[0], "tau", "tab:blue"), (axes[1], "tau_ap", "tab:green")):
            ax.plot(x, effects[resp].to_numpy(), ":o", color=color, ms=3)
            ax.set_ylabel(f"mean {RESPONSE_LABELS[resp]}")
        axes[1].set_xticks(x, [str(p) for p in effects.index], rotation=90, fontsize=7.5)
        axes[1].set_xlabel("measure pair")
        if title:
            fig.suptitle(title)
    return fig


def printed_input_items(published) -> tuple[dict[str, object], dict[str, float], dict[str, str]]:
    """Everything of Fer17 that follows from numbers the paper itself prints, in one place: the
    ANOVA columns (:func:`recompute_published_anova`), §4.2.5 and §6.2.5 (:func:`printed_romp_items`),
    §5.2.2 (:func:`printed_rq2_items`), significance and ω² classes
    (:func:`printed_anova_class_items`), §4.2.3's percentage differences
    (:func:`printed_marginal_changes`), the ratio claims (:func:`printed_ratio_items`) and the
    stated orderings (:func:`printed_ordering_items`). Returns (item -> value, item -> tolerance,
    item -> note); every note starts with :data:`PRINTED_NOTE` and ends with the item's CSV note."""
    csv_notes = {str(r.item): str(r.note) for r in published.itertuples(index=False)}
    values: dict[str, object] = {}
    tol: dict[str, float] = {}
    what: dict[str, str] = {}

    def add(vals, tolerances, source):
        values.update(vals)
        tol.update(tolerances)
        what.update({k: source for k in vals})

    add(*recompute_published_anova(published), "SS, DF and F of Tables 2, 3, 7, 8")
    add(printed_romp_items(published), {}, "Tables 4 and 9 (ties broken by order of appearance)")
    add(printed_rq2_items(published), {}, "Tables 5 and 6")
    add(printed_anova_class_items(published), {}, "p-values and ω² of Tables 2, 3, 7, 8")
    add(*printed_marginal_changes(published), "marginal means of §4.2.3")
    add(*printed_ratio_items(published), "ω² of Tables 2, 3, 7, 8")
    add(printed_ordering_items(published), {}, "Tables 2, 3, 4, 7, 8")
    notes = {k: f"{PRINTED_NOTE} {src}" + (f"; {csv_notes[k]}" if csv_notes.get(k) else "")
             for k, src in what.items()}
    return values, tol, notes
