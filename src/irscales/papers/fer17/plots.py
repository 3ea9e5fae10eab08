"""Fer17's figures: KDEs (Fig. 1), correlation against topic and system sizes (Figs. 3, 8), measure-pair
main effects (Figs. 4, 12 left), RoMP comparisons (Figs. 6, 9, 14) and correlations across topic sets
(Fig. 11). Every function returns the matplotlib Figure; the caller saves it
(:func:`irscales.figures.write_figure` / :func:`irscales.figures.save_figure`), with "simulated"
in the title and file name when the data are."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from irscales.figures import RESPONSE_LABELS, styled
from irscales.papers.fer17.kde import BANDWIDTH, kde, kde_curve, kl_divergence

__all__ = ["plot_kde", "plot_original_beside_gop", "plot_size_curves", "plot_romp", "plot_across_collections",
           "plot_pair_effects"]


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

