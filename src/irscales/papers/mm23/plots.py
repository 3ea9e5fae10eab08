"""MM23's figures: Figs 1–4 (exhaustive, k ≤ 6) and Figs 5–8 (runs). matplotlib is imported
lazily inside each function. Colours: dark blue ``=``, yellow ``ni``, light blue ``ns``, red ``**``
(MM23 Fig. 2); the agreement categories of Figs 7–8 in dark green, light green, mustard, grey."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from irscales.ipso import AGREEMENT, LABELS, Relation, all_serps, axis_order, axis_tau, compare, hasse_edges, relation_grid
from irscales.papers.mm23.conventions import FIG3_LABELS, FIG3_PANES, FIG4_S1, FIG4_S2, TEST_LABELS, metric_labels
from irscales.papers.mm23.part_a import fig3_scores
from irscales.papers.mm23.part_b import triangle

if TYPE_CHECKING:  # annotations only
    from irscales.data.collection import Collection
    from irscales.ipso import PairRelations
    import matplotlib.axes
    import matplotlib.colors
    import matplotlib.figure

__all__ = ["RELATION_COLORS", "AGREEMENT_COLORS", "RELATION_LEGEND", "relation_cmap", "relation_handles", "plot_grid", "plot_hasse", "plot_fig3",
           "plot_fig4", "plot_fig7", "plot_pair_topics", "plot_triangle", "plot_fig8"]

#: MM23 Fig. 2: dark blue =, yellow ni, light blue ns, red **
RELATION_COLORS = {
    Relation.EQUAL: "#1f3b8c", Relation.NI: "#f2d024", Relation.NS: "#9cc9ef", Relation.NONSEP: "#d62728",
}
#: dark green, light green, mustard, grey (MM23 Figs 7–8), in the order of :data:`irscales.ipso.AGREEMENT`
AGREEMENT_COLORS = ("#1b7837", "#a6dba0", "#d4a017", "#999999")


#: Legend entry of each relation of a grid's row SERP S1 to its column SERP S2, in MM23 §2's words
#: (≽ / ≼ stand for the paper's ⪰ / ⪯, which the default font draws exactly like ≥ / ≤).
RELATION_LEGEND = {
    Relation.EQUAL: "=  equal",
    Relation.NI: "ni  S1 non-inferior to S2 (S1 ≽ S2)",
    Relation.NS: "ns  S1 non-superior to S2 (S1 ≼ S2)",
    Relation.NONSEP: "**  non-separable (a metric may order them either way)",
}


def relation_handles() -> list:
    """Legend patches of the four relation colours (MM23 Fig. 2), labelled by :data:`RELATION_LEGEND`."""
    from matplotlib.patches import Patch

    return [Patch(fc=RELATION_COLORS[r], ec="0.3", lw=0.5, label=RELATION_LEGEND[r]) for r in Relation]


def relation_cmap() -> "matplotlib.colors.ListedColormap":
    """Colour map of the four relation codes (MM23 Fig. 2), for ``imshow(…, vmin=-0.5, vmax=3.5)``."""
    from matplotlib.colors import ListedColormap

    return ListedColormap([RELATION_COLORS[r] for r in Relation])


def _bits(s) -> str:
    return "".join(str(int(x)) for x in s)


def plot_grid(serps_rows: np.ndarray, serps_cols: np.ndarray | None = None, ax: "matplotlib.axes.Axes | None" = None,
              annotate: bool = True, title: str | None = None, legend: bool = True) -> "matplotlib.axes.Axes":
    """MM23 Fig. 2 / Fig. 3 pane: cell (i, j) coloured by relation of row SERP i (S1) to column SERP j (S2).

    ``annotate``: every SERP on the axes and the relation in every cell (Fig. 2); otherwise only the
    first and the last SERP of each axis are named (Fig. 3's 64 × 64). ``legend``: the four colours
    explained under the grid (:func:`relation_handles`)."""
    import matplotlib.pyplot as plt

    cols = serps_rows if serps_cols is None else serps_cols
    g = relation_grid(serps_rows, cols)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    ax.imshow(g, cmap=relation_cmap(), vmin=-0.5, vmax=3.5, interpolation="nearest")
    n, m = g.shape
    if annotate:
        for i in range(n):
            for j in range(m):
                ax.text(j, i, LABELS[g[i, j]], ha="center", va="center", fontsize=8,
                        color="white" if g[i, j] in (0, 3) else "black")
        ax.set_yticks(range(n), [_bits(s) for s in serps_rows], fontfamily="monospace")
        ax.set_xticks(range(m), ["\n".join(_bits(s)) for s in cols], fontfamily="monospace")
        ax.xaxis.tick_top()
        ax.xaxis.set_label_position("top")
        ax.set_ylabel("row SERP S1 (rank 1 first)", fontsize=8)
        ax.set_xlabel("column SERP S2 (rank 1 at top)", fontsize=8)
    else:
        ax.set_yticks([0, n - 1], [_bits(serps_rows[0]), _bits(serps_rows[-1])], fontfamily="monospace", fontsize=7)
        ax.set_xticks([0, m - 1], [_bits(cols[0]), _bits(cols[-1])], fontfamily="monospace", fontsize=7)
    ax.grid(False)
    if legend:
        ax.legend(handles=relation_handles(), loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2,
                  fontsize=8, frameon=False, title="row SERP S1 vs column SERP S2", title_fontsize=8)
    if title:
        ax.set_title(title)
    return ax


def plot_hasse(k: int = 3, ax: "matplotlib.axes.Axes | None" = None,
               highlight: Sequence[Sequence[int]] = ((1, 0, 0), (0, 1, 1))) -> "matplotlib.axes.Axes":
    """MM23 Fig. 1: Hasse diagram of ⪰ on the 2^k binary SERPs; an arrow S1 → S2 means S1 ⪰ S2.

    Rows hold the SERPs with the same number of relevant documents (Prec@k is constant on a row,
    as MM23 §2 notes), the more top-heavy to the left.
    """
    import matplotlib.pyplot as plt

    serps = all_serps(k)
    edges = hasse_edges(serps)
    level = serps.sum(1)
    dx, w, h = 1.6, 0.55, 0.16
    pos = {}
    for lv in range(k + 1):
        members = sorted((i for i in range(len(serps)) if level[i] == lv), key=lambda i: -i)
        for x, i in enumerate(members):
            pos[i] = ((x - (len(members) - 1) / 2) * dx, lv)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 * max(math.comb(k, k // 2), 2) + 1, 1.2 * (k + 1)))
    for i, j in edges:
        (x1, y1), (x2, y2) = pos[i], pos[j]
        if y1 == y2:  # same number of relevant: a Rule-2 swap, drawn sideways
            sgn = 1 if x2 > x1 else -1
            start, end = (x1 + sgn * w, y1), (x2 - sgn * w, y2)
        else:
            start, end = (x1, y1 - h), (x2, y2 + h)
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color="0.25", lw=1.2))
    hl = {tuple(x) for x in highlight}
    for i, (x, y) in pos.items():
        face = "#d62728" if tuple(serps[i].tolist()) in hl else "white"
        ax.text(x, y, "[" + ",".join(map(str, serps[i])) + "]", ha="center", va="center",
                fontfamily="monospace", bbox=dict(boxstyle="round", fc=face, ec="0.3"))
    span = max(abs(x) for x, _ in pos.values()) + dx / 2 + 0.3
    ax.set_xlim(-span, span)
    ax.set_ylim(-0.5, k + 0.5)
    ax.axis("off")
    return ax


def plot_fig3(k: int = 6, tie_break: str = "lex") -> tuple["matplotlib.figure.Figure", dict]:
    """MM23 Fig. 3: four panes of all 2^k × 2^k pairs, axes ordered by (rows, cols) =
    (RBP(0.5), RBP(0.5)), (RBP(0.5), NDCG), (AP, RBP(0.5)), (AP, NDCG) (:data:`FIG3_PANES`). Returns
    (figure, τs keyed by the paper's (row, column) axis labels)."""
    import matplotlib.pyplot as plt

    serps = all_serps(k)
    sc = fig3_scores(serps)
    pos = {name: axis_order(v, tie_break) for name, v in sc.items()}
    fig = plt.figure(figsize=(9, 10.6), layout="constrained")
    grid = fig.add_gridspec(3, 2, height_ratios=[1, 1, 0.2])
    taus = {}
    for pane, ((r, c), tag) in enumerate(zip(FIG3_PANES, "abcd")):
        ax = fig.add_subplot(grid[pane // 2, pane % 2])
        rows = serps[np.argsort(pos[r])]
        cols = serps[np.argsort(pos[c])]
        tau = axis_tau(pos[r], pos[c])
        taus[(FIG3_LABELS[r], FIG3_LABELS[c])] = tau
        plot_grid(rows, cols, ax=ax, annotate=False, legend=False,
                  title=f"({tag}) rows by {FIG3_LABELS[r]}, columns by {FIG3_LABELS[c]}, τ = {float(tau):.3f}")
        ax.title.set_fontsize(10)
        ax.set_ylabel(f"row SERP S1, by {FIG3_LABELS[r]} score (lowest at top)", fontsize=8)
        ax.set_xlabel(f"column SERP S2, by {FIG3_LABELS[c]} score (lowest at left)", fontsize=8)
    fig.suptitle(f"MM23 Fig. 3: all {len(serps)} × {len(serps)} pairs of SERPs of length k = {k}"
                 " (1 = relevant, rank 1 first)", fontsize=11)
    key = fig.add_subplot(grid[2, :])
    key.axis("off")
    key.legend(handles=relation_handles(), loc="upper center", ncol=2, fontsize=8, frameon=False,
               title="cell colour: relation of the row SERP S1 to the column SERP S2 (MM23 Fig. 2's colours)",
               title_fontsize=8)
    key.text(0.5, 0.0, "Every pane has the same number of cells of each colour; red cells are pairs on which two"
             " metrics may disagree, not pairs on which they do.\nτ: Kendall's τ between the row and the column"
             f" position of each SERP (the {len(serps)} dark-blue cells); ties on an axis broken in"
             f" lexicographic order ({tie_break!r}).", transform=key.transAxes, ha="center", va="bottom",
             fontsize=7.5, color="0.25")
    return fig, taus


def plot_fig4(s1: Sequence | None = None, s2: Sequence | None = None, title: str | None = None) -> "matplotlib.figure.Figure":
    """MM23 Fig. 4: two SERPs rank by rank, the running difference Σ(S1 − S2) and the relation at
    every depth (colours as in Fig. 2). Defaults to the Fig. 4 pair (:data:`FIG4_S1`, :data:`FIG4_S2`)."""
    import matplotlib.pyplot as plt

    s1 = np.asarray(FIG4_S1 if s1 is None else s1)
    s2 = np.asarray(FIG4_S2 if s2 is None else s2)
    r = compare(s1, s2)
    k = len(s1)
    depth = np.arange(1, k + 1)
    rel = [Relation(int(r.at(d))) for d in depth]
    cumul = np.cumsum(s1.astype(float) - s2.astype(float))
    fig, (top, mid, bot) = plt.subplots(3, 1, figsize=(7, 4.6), sharex=True,
                                        gridspec_kw={"height_ratios": [1.2, 2, 0.8]})
    top.imshow(np.vstack([s1, s2]).astype(float), cmap="Greys", vmin=0, vmax=1.6, aspect="auto",
               extent=(0.5, k + 0.5, 1.5, -0.5))
    for i in depth:
        for row, s in enumerate((s1, s2)):
            top.text(i, row, f"{s[i - 1]:g}", ha="center", va="center", fontsize=9,
                     color="white" if s[i - 1] else "black")
    top.set_yticks([0, 1], ["S1", "S2"])
    top.set_title(title or "MM23 Fig. 4: comparing two SERPs depth by depth (Algorithm 1)", fontsize=10)
    mid.bar(depth, cumul, color=["#2c7fb8" if c > 0 else ("#d95f0e" if c < 0 else "0.6") for c in cumul])
    mid.axhline(0, color="0.3", lw=0.8)
    mid.set_ylabel("Σ (S1 − S2)")
    lim = max(1.0, float(np.abs(cumul).max())) + 0.5
    mid.set_ylim(-lim, lim)
    bot.imshow(np.array([[int(x) for x in rel]]), cmap=relation_cmap(), vmin=-0.5, vmax=3.5, aspect="auto",
               extent=(0.5, k + 0.5, 0.5, -0.5))
    for i, x in zip(depth, rel):
        bot.text(i, 0, x.label, ha="center", va="center", fontsize=9,
                 color="white" if x in (Relation.EQUAL, Relation.NONSEP) else "black")
    bot.set_yticks([0], ["relation"])
    bot.set_xticks(depth)
    bot.set_xlabel("depth k")
    fig.tight_layout()
    return fig



def plot_fig7(frame: pd.DataFrame, title: str = "") -> "matplotlib.figure.Figure":
    """Stacked bars (one per depth) of the agreement categories of :func:`~irscales.papers.mm23.fig7`'s
    frame; panes = tests × metrics, labelled with the paper's names."""
    import matplotlib.pyplot as plt

    frame = frame.assign(metric=[metric_labels(int(d), generic=True)[m] for m, d in zip(frame["measure"], frame["depth"])])
    metrics = list(dict.fromkeys(frame["metric"]))
    tests = list(dict.fromkeys(frame["test"]))
    depths = sorted(set(frame["depth"]))
    fig, axes = plt.subplots(len(tests), len(metrics), figsize=(2.1 * len(metrics), 2.3 * len(tests)),
                             sharey=True, squeeze=False)
    for r, t in enumerate(tests):
        for c, m in enumerate(metrics):
            ax = axes[r, c]
            sub = frame[(frame["test"] == t) & (frame["metric"] == m)]
            bottom = np.zeros(len(depths))
            for cat, color in zip(AGREEMENT, AGREEMENT_COLORS):
                v = np.array([sub[(sub["depth"] == d) & (sub["category"] == cat)]["fraction"].sum()
                              for d in depths])
                ax.bar(range(len(depths)), v, bottom=bottom, color=color, label=cat, width=0.8)
                bottom += v
            ax.set_xticks(range(len(depths)), [f"k={d}" for d in depths], fontsize=7)
            ax.set_ylim(0, 1)
            if r == 0:
                ax.set_title(m, fontsize=9)
            if c == 0:
                ax.set_ylabel(TEST_LABELS[t], fontsize=9)
    axes[0, -1].legend(fontsize=6, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig



def plot_pair_topics(frame: pd.DataFrame, title: str = "", pieces: int = 1) -> "matplotlib.figure.Figure":
    """Draw :func:`pair_topics` as MM23 Figs 5–6: per row the IPSO relation at each depth
    (colours of MM23 Figs 2 and 4) and the six metric differences (dark blue equal, yellow
    A higher, light blue B higher); ``pieces`` > 1 splits the rows side by side (Fig. 6)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    rel_cols = [c for c in frame.columns if c.startswith("rel@")]
    sign_cols = [c for c in frame.columns if c.startswith("sign ")]
    code = {r.label: int(r) for r in Relation}
    R = np.vectorize(code.__getitem__)(frame[rel_cols].to_numpy()) if len(frame) else np.zeros((0, len(rel_cols)))
    # metric cells: 0 equal (dark blue), 1 A higher (yellow), 2 B higher (light blue)
    Mv = frame[sign_cols].to_numpy().astype(int)
    Mc = np.where(Mv == 0, 0, np.where(Mv > 0, 1, 2))
    n = len(frame)
    per = math.ceil(n / pieces) if n else 1
    annotate = per <= 60
    # annotated rows need room for their numbers; unannotated ones only for their colours, so that
    # Fig. 6's 249 topics stay one readable screen high
    fig, axes = plt.subplots(1, pieces, figsize=(7.5 * pieces if annotate else 5.0 * pieces,
                                                 (0.22 if annotate else 0.04) * per + 1.6),
                             squeeze=False, layout="constrained")
    cm = relation_cmap()
    cm3 = ListedColormap([RELATION_COLORS[Relation.EQUAL], RELATION_COLORS[Relation.NI], RELATION_COLORS[Relation.NS]])
    gap = 1
    for p, ax in enumerate(axes[0]):
        lo, hi = p * per, min(n, (p + 1) * per)
        rows = np.arange(lo, hi)
        k = R.shape[1]
        ax.imshow(R[rows], cmap=cm, vmin=-0.5, vmax=3.5, aspect="auto", interpolation="nearest",
                  extent=(-0.5, k - 0.5, len(rows) - 0.5, -0.5))
        x0 = k + gap
        ax.imshow(Mc[rows], cmap=cm3, vmin=-0.5, vmax=2.5, aspect="auto", interpolation="nearest",
                  extent=(x0 - 0.5, x0 + len(sign_cols) * 1.6 - 0.5, len(rows) - 0.5, -0.5))
        if annotate:
            dcols = [c.replace("sign ", "d ") for c in sign_cols]
            for rr, t in enumerate(rows):
                for j, dc in enumerate(dcols):
                    val = frame[dc].iloc[t]
                    ax.text(x0 + (j + 0.5) * 1.6 - 0.5, rr, f"{val:+.2f}" if Mv[t, j] else "0",
                            ha="center", va="center", fontsize=5.5,
                            color="white" if Mc[t, j] == 0 else "black")
            ax.set_yticks(range(len(rows)), [f"{frame['topic'].iloc[t]} {frame['serp_A'].iloc[t]} "
                                             f"{frame['serp_B'].iloc[t]}" for t in rows],
                          fontfamily="monospace", fontsize=6)
        else:
            ax.set_yticks([])
            ax.set_ylabel(f"topics, rows {lo + 1}–{hi} of {n}", fontsize=8)
        ax.set_xlim(-0.5, x0 + len(sign_cols) * 1.6 - 0.5)
        ax.set_xticks(list(range(k)) + [x0 + (j + 0.5) * 1.6 - 0.5 for j in range(len(sign_cols))],
                      [str(i + 1) for i in range(k)] + [c.replace("sign ", "") for c in sign_cols],
                      fontsize=7, rotation=90)
        ax.xaxis.tick_top()
    if title:
        fig.suptitle(title, fontsize=10)
    return fig



def plot_triangle(frame: pd.DataFrame, ax: "matplotlib.axes.Axes | None" = None, title: str = "") -> "matplotlib.axes.Axes":
    """One dot per pair at (rank_a, rank_b), coloured by agreement category (MM23 Fig. 8)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    n = int(frame[["rank_a", "rank_b"]].to_numpy().max(initial=2))
    size = min(60.0, (250.0 / n) ** 2)  # squares that nearly fill their cell at any number of systems
    for cat, color in zip(AGREEMENT, AGREEMENT_COLORS):
        sub = frame[frame["category"] == cat]
        ax.scatter(sub["rank_a"], sub["rank_b"], s=size, marker="s", color=color, label=f"{cat} ({len(sub)})",
                   linewidths=0)
    ax.set_xlim(0, n + 1)
    ax.set_ylim(0, n + 1)
    ax.set_aspect("equal")
    ax.set_xlabel("rank of the better system (mean score)")
    ax.set_ylabel("rank of the other system")
    ax.legend(fontsize=6, loc="lower right", markerscale=3)
    if title:
        ax.set_title(title, fontsize=9)
    return ax



def plot_fig8(col: "Collection", rels: "PairRelations", data: str, sim: str = "", n_topics: int = 50,
              alphas: Sequence[float] = (0.05, 0.01)) -> tuple["matplotlib.figure.Figure", list[str]]:
    """MM23 Fig. 8: :func:`~irscales.papers.mm23.triangle` panes (Prec@10, k = 10, Student t vs the
    IPSO sign test) on all topics and on the first ``n_topics``, at each of ``alphas``; returns the
    figure and one summary line per pane (category shares, share of significant pairs)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 10))
    panes = [(tp, alpha) for tp in (None, col.topics[:n_topics]) for alpha in alphas]
    lines = []
    for ax, tag, (tp, alpha) in zip(axes.ravel(), "abcd", panes):
        tri = triangle(col, 10, "ttest", alpha, topics=tp, rels=rels)
        n_t = len(col.topics) if tp is None else len(tp)
        share = tri["category"].value_counts(normalize=True).reindex(AGREEMENT, fill_value=0)
        lines.append(f"({tag}) {n_t} topics, p < {alpha}: " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in share.items())
                     + f"; Prec@10 significant {100 * tri['metric_sig'].mean():.1f}%, IPSO significant "
                     f"{100 * tri['ipso_sig'].mean():.1f}%")
        plot_triangle(tri, ax=ax, title=f"({tag}) {sim}{n_t} topics, p < {alpha}")
    fig.suptitle(f"MM23 Fig. 8 ({data} data): Prec@10, k = 10, Student t vs IPSO sign test")
    fig.tight_layout()
    return fig, lines
