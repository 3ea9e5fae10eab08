"""Figures of graded measures on real runs (issue 30), every one titled with
:data:`~irscales.papers.fff21.graded_data.LABEL` ("real data, beyond the papers") and saying how exact
each cell is.

* :func:`value_curves` / :func:`real_points` / :func:`plot_all_values` — FFF21 Figs. 3–5 for the graded
  scales (gP, gRBP_p05, gRBP_p08, gDCG_b02, gDCG_b10 over three grades): every distinct value (N ≤
  :data:`EXHAUSTIVE_N`, enumerated) or a seeded sample of runs at their exact position (counted), with
  under it a histogram of the exact positions (φ − 1)/(K − 1) of the real (topic, run) cells of each
  data set on the same scale;
* :func:`plot_tau` — Tables 2–3 as a heat map: τ between each measure and its interval version, per
  N and tie strategy, the colour 1 − τ on a log scale (white: τ = 1);
* :func:`plot_table4` — Table 4 as one τ matrix per (data set, N): below the diagonal the measures,
  above it their interval versions;
* Tables 5–6: :func:`irscales.papers.fff21.significance_tables.plot_significance_changes` (log colour
  scale, 8 pt numbers), with the exactness line as its note.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from irscales import measures as M
from irscales.data import Collection
from irscales.figures import write_figure
from irscales.enumeration import counting as C
from irscales.enumeration._runs import numerator
from irscales.interval import dcg_proven_depth
from irscales.papers.fff21 import beyond
from irscales.papers.fff21 import graded_data as D
from irscales.papers.fff21.graded_data import LABEL
from irscales.papers.fff21.graded_scores import GRADED, ORDER, GradedScores, graded_measures
from irscales.papers.fff21.graded_tables import TAG, output_dir
from irscales.options import UNQ

__all__ = ["EXHAUSTIVE_N", "SCALES", "value_curves", "real_points", "plot_all_values", "plot_tau", "plot_table4",
           "exactness_note", "save"]

#: Run lengths whose graded scale is drawn value by value (all 3^N runs enumerated); beyond, sampled runs.
EXHAUSTIVE_N = 10
#: The graded measure → the measure whose scale ranks it (nDCG is ranked on the scale of DCG, FFF21 §5.2.2).
SCALES = {g: numerator(m).key for g, m in graded_measures(1).items()}
_MARK = {"conditional": "†", "enumeration": "", "proof": "", "not computed": ""}
_COLOURS = ("tab:orange", "tab:blue", "tab:green")
_BINS = 20


def _scale_measure(name: str, c: int) -> M.Measure:
    return graded_measures(c, (name,))[name]


def value_curves(Ns: Sequence[int], c: int, n_runs: int = 400, seed: int = 0) -> dict[tuple[str, int], object]:
    """(graded measure, N) → its scale's values: a frame with ``position`` and ``value`` (every distinct
    value for N ≤ :data:`EXHAUSTIVE_N`, ``method`` "enumerated"; else ``n_runs`` seeded runs at their
    exact position, "counted"), or a string saying why there is none."""
    out: dict[tuple[str, int], object] = {}
    for g in GRADED:
        m = _scale_measure(SCALES[g], c)
        for N in Ns:
            if N <= EXHAUSTIVE_N:
                v = beyond.graded_values(m, N, c, cache=False, workers=1)
                out[g, N] = pd.DataFrame({"position": np.arange(len(v)) / max(len(v) - 1, 1),
                                          "value": v["value"].to_numpy(), "method": "enumerated"})
            elif C.countable(m, N, c):
                out[g, N] = beyond.value_curve(m, N, n_runs, seed=seed, c=c)
            else:
                out[g, N] = f"not counted at N = {N}: {C.counting_depth(m, c)[1]}"
    return out


def real_points(gs: GradedScores, collection: Collection) -> dict[str, pd.DataFrame]:
    """graded measure → the (topic, run) cells of ``collection`` at N on its scale: ``position`` =
    (φ_unq − 1)/(K − 1) (exact φ of ``gs``) and ``value`` of the scale's measure (DCG for nDCG)."""
    rs, N, c = gs.scores, gs.scores.N, gs.grades
    out = {}
    for g in GRADED:
        if g not in rs.measures:
            continue
        e = gs.exactness
        K = int(e[(e.measure == g) & (e.ties == UNQ)]["K"].iloc[0])
        phi = np.asarray(rs.ranked[UNQ][g], dtype=float).ravel()  # (T, S), below 2^53 (checked when built)
        value = np.asarray(collection.evaluate(_scale_measure(SCALES[g], c), N), dtype=float).ravel()
        out[g] = pd.DataFrame({"position": (phi - 1) / max(K - 1, 1), "value": value})
    return out


def plot_all_values(curves: Mapping[tuple[str, int], object], points: Mapping[str, Mapping[int, Mapping]],
                    Ns: Sequence[int]):
    """One panel per (graded scale, N): the curve of :func:`value_curves` in grey and, under it, a histogram
    of the positions of the real (topic, run) cells of each data set (``points``: data set → N →
    :func:`real_points`), one colour each, its tallest bin at full height. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(GRADED), len(Ns), figsize=(3.0 * len(Ns) + 0.6, 2.3 * len(GRADED) + 1.2),
                             squeeze=False, constrained_layout=True)
    for i, g in enumerate(GRADED):
        for j, N in enumerate(Ns):
            ax = axes[i, j]
            cur = curves.get((g, N))
            if isinstance(cur, pd.DataFrame):
                style = "-" if cur["method"].iloc[0] == "enumerated" else "."
                ax.plot(cur["position"], cur["value"], style, color="0.55", lw=1, ms=1.5,
                        label=f"all values ({cur['method'].iloc[0]})")
            else:
                ax.text(0.5, 0.5, textwrap.fill(str(cur), 40), ha="center", va="center", fontsize=7, color="0.3",
                        transform=ax.transAxes)
            lo, hi = ax.get_ylim() if isinstance(cur, pd.DataFrame) else (0.0, 1.0)
            band = 0.14 * (hi - lo)
            for k, (name, byN) in enumerate(points.items()):
                pts = byN.get(N, {}).get(g)
                if pts is not None:  # under the curve: how the real (topic, run) cells spread over the scale
                    y0 = lo - (k + 1) * 1.25 * band
                    h, edges = np.histogram(pts["position"], bins=_BINS, range=(0.0, 1.0))
                    ax.bar(edges[:-1], h / max(h.max(), 1) * band, width=1 / _BINS, align="edge", bottom=y0,
                           color=_COLOURS[k % 3], alpha=0.75,
                           label=f"{name}: (topic, run) cells per 1/{_BINS} of the scale")
                    ax.set_ylim(y0 - 0.1 * band, None)
            if isinstance(cur, pd.DataFrame):  # the histograms sit below the scale: no value ticks there
                vmin = float(cur["value"].min())
                ax.set_yticks([t for t in ax.get_yticks() if vmin - 1e-9 * max(1.0, abs(hi)) <= t <= hi])
            ax.set_title(f"{g}" + (f" (scale of {SCALES[g]})" if SCALES[g] != g else "") + f", N = {N}", fontsize=8)
            if i == len(GRADED) - 1:
                ax.set_xlabel("position (φ − 1)/(K − 1)", fontsize=8)
            if j == 0:
                ax.set_ylabel("value", fontsize=8)
    handles = {}
    for ax in axes.ravel():
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=len(handles), fontsize=8,
               markerscale=3)
    fig.suptitle(textwrap.fill(f"{LABEL}: all possible values of graded measures over three grades (FFF21 Figs. "
                               "3-5 style); under each curve, how the real (topic, run) cells spread over the scale "
                               "(histograms, tallest bin full height)", 110), fontsize=10)
    return fig


def exactness_note(kinds: pd.Series, scores: pd.Series | None = None) -> str:
    """The caption line on exactness for cells whose bases are ``kinds`` (and, for Tables 5–6, whose
    original scores are ``scores``: "exact" or "float (irrational)")."""
    parts = ["Every φ is exact: closed forms, counts with proofs or enumerations of all runs"]
    if (kinds == "conditional").any():
        depth = dcg_proven_depth(M.NDCG(base=2, gains="graded"), 2)
        parts.append(f"† counted graded nDCG beyond N = {depth} (the depth an enumeration of all runs over three "
                     "grades checked): exact if no Q-linear relation among the 1/ln m (Schanuel's conjecture)")
    if (kinds == "not computed").any():
        parts.append("hatched: not computed (no exact route within the budget; the exactness CSV says why)")
    if scores is not None and (scores != "exact").any():
        parts.append("nDCG beyond its log base is irrational: the tests see one float per exact value, and the "
                     "signed-rank test ties the magnitudes of their differences by MATLAB's rule, as FFF21's")
    return "; ".join(parts) + "."


def _hatch(ax, r: int, col: int) -> None:
    import matplotlib.pyplot as plt

    ax.add_patch(plt.Rectangle((col - 0.5, r - 0.5), 1, 1, fc="0.88", ec="0.6", hatch="///", lw=0))


def plot_tau(tables: Mapping[str, pd.DataFrame], note: str = ""):
    """FFF21 Tables 2–3 as heat maps, one panel (row) per data set (``tables``: data set → graded
    :func:`~irscales.papers.fff21.graded_tables.table2` frame): rows the measures, columns (N, ties); the
    cell prints τ, its colour is 1 − τ on a log scale from 0.01 (palest below; white: τ = 1). ``note``: one
    more caption sentence (e.g. :func:`irscales.papers.fff21.graded_real.unreliable`)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap, LogNorm
    from matplotlib import colormaps

    cols = {k: sorted({(int(n), t) for n, t in zip(f["N"], f["ties"])}, key=lambda x: (x[0], _TIE_ORDER[x[1]]))
            for k, f in tables.items()}
    gap = max(float(np.nanmax(1 - f["tau"].to_numpy(float), initial=0)) for f in tables.values())
    norm = LogNorm(vmin=1e-2, vmax=max(0.1, gap), clip=True)
    cmap = ListedColormap(colormaps["OrRd"](np.linspace(0.1, 1.0, 256)))
    width = max(len(c) for c in cols.values())
    fig, axes = plt.subplots(len(tables), 1, figsize=(max(0.62 * width + 2.6, 8.0), 4.0 * len(tables) + 1.4),
                             squeeze=False, constrained_layout=True)  # one data set per row: pages are narrow
    im = None
    for ax, (name, f) in zip(axes[:, 0], tables.items()):
        rows = [m for m in ORDER if m in set(f["measure"])]
        cell = {(r.measure, int(r.N), r.ties): r for r in f.itertuples()}
        grid = np.full((len(rows), len(cols[name])), np.nan)
        for a, m in enumerate(rows):
            for b, (n, t) in enumerate(cols[name]):
                r = cell.get((m, n, t))
                if r is None or np.isnan(r.tau):
                    _hatch(ax, a, b)
                    continue
                grid[a, b] = r.tau
                dark = 1 - r.tau > 0 and norm(1 - r.tau) > 0.6
                ax.text(b, a, f"{r.tau:.3f}{_MARK[r.exact]}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
        im = ax.imshow(np.ma.masked_where(~(1 - grid > 0), 1 - grid), cmap=cmap, norm=norm, aspect="auto")
        ax.set_xticks(range(len(cols[name])), [f"N={n}\n{t}" for n, t in cols[name]], fontsize=7)
        ax.set_yticks(range(len(rows)), rows, fontsize=8)
        for lab, m in zip(ax.get_yticklabels(), rows):
            lab.set_fontweight("bold" if m in GRADED else "normal")
        ax.grid(False)
        ax.set_title(f"{name}: {D.DATASETS[name][1]}" if name in D.DATASETS else name, fontsize=9)
    cb = fig.colorbar(im, ax=axes, shrink=0.6, extend="min", format="{x:g}",
                      ticks=[t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if t <= norm.vmax])
    cb.set_label("1 − τ (log scale, under 0.01 palest; white: τ = 1)", fontsize=8)
    cb.ax.tick_params(labelsize=8)
    fig.suptitle(f"{LABEL}: Kendall τ between each measure and its interval-scaled version (FFF21 Tables 2-3: "
                 "unq, mid; also min, max)", fontsize=10)
    kinds = pd.concat([f["exact"] for f in tables.values()])
    fig.supxlabel(textwrap.fill("Bold: graded measures over three grades; below each its binary (lenient) "
                                "counterpart. " + exactness_note(kinds) + (f" {note}" if note else ""),
                                int(fig.get_figwidth() * 17)),
                  fontsize=8, color="0.2")
    return fig


_TIE_ORDER = {UNQ: 0, "min": 1, "max": 2, "mid": 3}


def plot_table4(tables: Mapping[str, pd.DataFrame], note: str = ""):
    """FFF21 Table 4 as τ matrices, one panel per key of ``tables`` (e.g. "CLEF18, N = 10" → a graded
    :func:`~irscales.papers.fff21.graded_tables.table4` frame): below the diagonal τ between the measures
    (Msr), above it between their interval versions (RnkMsr); numbers with two decimals. ``note``: one more
    caption sentence."""
    import matplotlib.pyplot as plt

    lo = min(float(np.nanmin(f[["Msr", "RnkMsr"]].to_numpy(float))) for f in tables.values())
    vmin = np.floor(min(lo, 0.9) * 10) / 10
    n = len(tables)
    ncol = min(n, 2)
    nrow = -(-n // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.4 * ncol + 1.0, 5.0 * nrow + 0.8), squeeze=False,
                             constrained_layout=True)
    im = None
    for ax, (name, f) in zip(axes.ravel(), tables.items()):
        pairs = f["Measure"].str.split(" vs ", expand=True)
        ms = [m for m in ORDER if m in set(pairs[0]) | set(pairs[1])]
        idx = {m: i for i, m in enumerate(ms)}
        grid = np.full((len(ms), len(ms)), np.nan)
        for (a, b), msr, rnk, ex in zip(pairs.itertuples(index=False, name=None), f["Msr"], f["RnkMsr"], f["exact"]):
            i, j = sorted((idx[a], idx[b]))
            grid[j, i], grid[i, j] = msr, rnk
            for (r, col), v in (((j, i), msr), ((i, j), rnk)):
                ax.text(col, r, f"{v:.2f}" + (_MARK[ex] if (r, col) == (i, j) else ""), ha="center", va="center",
                        fontsize=7, color="white" if v < vmin + 0.45 * (1 - vmin) else "black")
        im = ax.imshow(grid, cmap="viridis", vmin=vmin, vmax=1.0, aspect="equal")
        ax.set_xticks(range(len(ms)), ms, rotation=90, fontsize=7)
        ax.set_yticks(range(len(ms)), ms, fontsize=7)
        ax.grid(False)
        ax.set_title(f"{name}\nbelow the diagonal: measures; above: their interval versions", fontsize=8)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    cb = fig.colorbar(im, ax=axes, shrink=0.6)
    cb.set_label("Kendall τ between two measures' system rankings", fontsize=8)
    fig.suptitle(f"{LABEL}: τ among the measures and among their interval-scaled versions (FFF21 Table 4, unq)",
                 fontsize=10)
    kinds = pd.concat([f["exact"] for f in tables.values()])
    fig.supxlabel(textwrap.fill(exactness_note(kinds) + (f" {note}" if note else ""), 150), fontsize=8,
                  color="0.2")
    return fig


def save(fig, name: str, Ns: Sequence[int], directory: str | Path | None = None) -> list[str]:
    """Write ``fig`` as ``figures/beyond/graded_<name>_N<Ns>_beyond_real.png`` (shown inline in a notebook,
    :func:`irscales.figures.write_figure`), close it and return its name under the figures folder
    (``beyond/…png``: no machine path in a notebook's output)."""
    stem = f"graded_{name}_N{'_'.join(map(str, Ns))}_{TAG}"
    d = output_dir(directory)
    return [f"{d.name}/{p.name}" for p in write_figure(fig, d, stem, formats=("png",))]
