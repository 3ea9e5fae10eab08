"""Fer17 on the authors' own Grid of Points (issue 29): Table 1 and Fig. 1 on real data, and the
real-data analogue of RQ1–RQ3 on the real T07–T10 grids.

Data (all optional, found through :mod:`irscales.paths`):

- the GoP: per-topic scores of 4,284 Terrier systems on T07, T08, T09, T10 published by the
  authors' group (``gridofpoints/trec-jasist2017``, MATTERS files read by
  :mod:`irscales.data.matters`): 6 stop lists × 14 LUGs × 17 models × 3 query forms, the eight
  measures of Fer17 §3.3 with its gains and log10 discount;
- the original systems: the 129 TREC-8 Ad hoc runs (``paths.trec_track("T08")``), evaluated here with
  Fer17's measures in MATTERS' conventions (:data:`~irscales.papers.fer17.measures.TABLE1_MEASURES`),
  and T07's AP and P@10 of all 103 runs from the published score tables
  (:mod:`irscales.data._run_scores`); no other original runs of T07–T10 are public.

**Table 1** (§3.4) is the KL divergence D_KL(original ‖ GoP) of eq. (7). Computed the way the
authors' own code does it (:func:`irscales.papers.fer17.kde.kl_divergence_matters`: every
per-topic score, MATLAB ``ksdensity`` with b = 0.015 on −0.1:0.01:1.1, trapezoidal integral) on
the **whole published grid** — all 4,284 systems, 3-grams and the three query forms included — it
gives every printed value of rows T07 (AP, P@10) and T08 (all eight columns) to the 4th decimal.
Fer17 §3.2 describes 1,326 systems (no 3-grams, one query form, which it does not name); no such
subset reproduces the printed divergences (:func:`grid_variants` lists them), so for Table 1 the
validation evidently used the whole grid. That is our reading, chosen because it reproduces.

The RQ1–RQ3 analogue on these grids is :mod:`irscales.papers.fer17.analogue`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from irscales import paths
from irscales.data import Collection
from irscales.data.matters import read_measures
from irscales.data._run_scores import read_run_scores
from irscales.figures import styled
from irscales.papers import printing, published
from irscales.papers.fer17.kde import BANDWIDTH, MATTERS_GRID, kl_divergence_matters, ksdensity
from irscales.papers.fer17.measures import TABLE1_MEASURES, label, score_matrices

__all__ = ["GOP_FILES", "TRACKS", "CORPORA", "ANALOGUE_LABEL", "GopTrack", "load_gop",
           "original_t08", "original_t07", "table1", "table1_items", "table1_comparison", "grid_variants",
           "table1_with_paper", "plot_fig1_panel", "REAL_ROUTE_NOTE"]

#: The measure files of the published grid by Fer17 measure key (``<prefix>_<track>.mat``).
GOP_FILES = {"AP": "ap", "P@10": "p10", "Rprec": "rprec", "RBP_p08": "rbp", "gnDCG_b10": "ndcg",
             "gnDCG_b10@20": "ndcg20", "ERR": "err", "Twist": "twist"}
#: The tracks of the published grid and their corpora (Fer17 §3.1).
TRACKS = ("T07", "T08", "T09", "T10")
CORPORA = {"T07": "TIPSTER", "T08": "TIPSTER", "T09": "WT10g", "T10": "WT10g"}
#: How every RQ1–RQ3 result on these grids is labelled (:mod:`irscales.papers.fer17.analogue`).
ANALOGUE_LABEL = "real-data analogue: real GoP on T07–T10, not the paper's GOV2 grid"
#: The note of every Table 1 item reproduced here.
REAL_ROUTE_NOTE = ("real data: D_KL(original ‖ GoP), KDE of every per-topic score as the authors' MATLAB code "
                   "(ksdensity, b = 0.015, normal kernel cut at 4 bandwidths as for large samples, "
                   "xi = -0.1:0.01:1.1, trapz, natural log); GoP = all 4,284 systems of the authors' published "
                   "grid (gridofpoints/trec-jasist2017); originals: 129 TREC-8 runs evaluated with MATTERS' "
                   "conventions, TREC-7 AP/P@10 score tables of all 103 runs")


@dataclass(frozen=True)
class GopTrack:
    """The published grid of one track: ``scores`` (measure key → ``topics × systems`` DataFrame,
    all on the same topics and systems) and ``components`` (system → stop, lug, model, ltr, query)."""

    track: str
    scores: Mapping[str, pd.DataFrame]
    components: pd.DataFrame

    @property
    def systems(self) -> list[str]:
        return list(self.components.index)

    def select(self, query: str | Sequence[str] | None = None, three_grams: bool = True) -> "GopTrack":
        """The systems of one or more query forms (``None``: all three), with or without the 3-gram
        LUG (Fer17 §3.2's grid has none)."""
        c = self.components
        mask = np.ones(len(c), bool)
        if query is not None:
            qs = [query] if isinstance(query, str) else list(query)
            unknown = sorted(set(qs) - set(c["query"]))
            if unknown:
                raise KeyError(f"{self.track}: no query form {unknown}; the grid has {sorted(set(c['query']))}")
            mask &= c["query"].isin(qs).to_numpy()
        if not three_grams:
            mask &= (c["lug"] != "3grams").to_numpy()
        keep = c.index[mask]
        return GopTrack(self.track, {k: v.loc[:, keep] for k, v in self.scores.items()}, c.loc[keep])

    def matrices(self, labels: bool = False) -> dict[str, np.ndarray]:
        """``measure → (topics, systems)`` arrays, keyed by measure key (``labels``: the paper's labels)."""
        return {(label(k) if labels else k): v.to_numpy() for k, v in self.scores.items()}


def load_gop(track: str, folder: str | Path | None = None, measures: Sequence[str] = TABLE1_MEASURES) -> GopTrack:
    """The published grid of ``track`` (``T07`` … ``T10``) from ``folder`` (default
    :func:`irscales.paths.gop_dir`), checked to hold the same topics and systems in every file."""
    root = Path(folder) if folder is not None else paths.gop_dir()
    if root is None:
        raise paths.MissingSharedData("the authors' Grid of Points was not found: set IRSCALES_GOP (or IRSCALES_SHARED "
                                      "with gop/trec-jasist2017/) to the folder holding T07/ap_T07.mat …")
    unknown = [m for m in measures if m not in GOP_FILES]
    if unknown:
        raise KeyError(f"no grid file for measure(s) {unknown}; the grid has {list(GOP_FILES)}")
    files = read_measures(root / track, [GOP_FILES[m] for m in measures])
    scores = {m: files[GOP_FILES[m]].scores for m in measures}
    first = next(iter(scores.values()))
    for m, s in scores.items():
        if not (s.index.equals(first.index) and s.columns.equals(first.columns)):
            raise ValueError(f"{root / track}: the {GOP_FILES[m]} file does not hold the same topics and systems as "
                             f"the {GOP_FILES[measures[0]]} file")
    return GopTrack(track, scores, files[GOP_FILES[measures[0]]].components())


def original_t08(collection: Collection | None = None, measures: Sequence[str] = TABLE1_MEASURES) -> dict[str, np.ndarray]:
    """The original TREC-8 systems' per-topic scores (``measure key → (50, 129)``): the runs at depth
    1,000 (``paths.trec_track("T08")`` unless ``collection`` is given) evaluated with Fer17's
    measures in MATTERS' conventions (:func:`irscales.papers.fer17.measures.score_matrices`)."""
    if collection is None:
        t08 = paths.trec_track("T08")
        if t08 is None:
            raise paths.MissingSharedData("the TREC-8 runs were not found: set IRSCALES_TREC (README: Your own TREC data)")
        collection = Collection.from_trec(t08.runs, t08.qrels, depth=1000)
    return score_matrices(collection, measures, group_by=None)


def original_t07(folder: str | Path | None = None) -> dict[str, np.ndarray]:
    """The original TREC-7 systems' AP and P@10 (``(50, 103)`` each) from the published score tables
    (``<scores>/T07-adhoc/adhoc7_{ap,p10}.csv.gz``; default folder :func:`irscales.paths.scores_dir`)."""
    root = Path(folder) if folder is not None else paths.scores_dir()
    if root is None:
        raise paths.MissingSharedData("the TREC-7 score tables were not found: set IRSCALES_SCORES (or IRSCALES_SHARED "
                                      "with scores/T07-adhoc/)")
    return {"AP": read_run_scores(root / "T07-adhoc", "adhoc7", "ap").to_numpy(),
            "P@10": read_run_scores(root / "T07-adhoc", "adhoc7", "p10").to_numpy()}


def table1(original: Mapping[str, Mapping[str, np.ndarray]], gop: Mapping[str, GopTrack],
           bandwidth: float = BANDWIDTH) -> pd.DataFrame:
    """Fer17 Table 1 on real data: D_KL(original ‖ GoP) (eq. 7, :func:`kl_divergence_matters`) for
    every track of ``original`` and every measure it has; rows ``"T08 vs T08gop"`` as printed,
    columns the paper's labels in Table 1's order, NaN where no original systems exist."""
    cols = [label(m) for m in TABLE1_MEASURES]
    rows = {}
    for track, orig in original.items():
        row = dict.fromkeys(cols, np.nan)
        for m, x in orig.items():
            row[label(m)] = kl_divergence_matters(np.ravel(x), gop[track].scores[m].to_numpy().ravel(), bandwidth)
        rows[f"{track} vs {track}gop"] = row
    return pd.DataFrame.from_dict(rows, orient="index")[cols]


def table1_with_paper(t1: pd.DataFrame) -> pd.DataFrame:
    """:func:`table1` to 4 decimals with the printed row of each track under it (``"T08 vs T08gop
    (paper)"``), as strings; cells without original systems are blank."""
    pub = published.load("fer17").set_index("item")["value"]
    paper = pd.DataFrame({c: [pub.get(f"table1/{str(r).split()[0]}/{c}", "") for r in t1.index] for c in t1.columns},
                         index=[f"{r} (paper)" for r in t1.index])
    return pd.concat([t1.map(lambda v: "" if pd.isna(v) else f"{v:.4f}"), paper]).sort_index()


def table1_items(t1: pd.DataFrame) -> dict[str, float]:
    """The cells of :func:`table1` as items of ``data/published/fer17.csv`` (``table1/T08/AP`` …)."""
    out = {}
    for row, vals in t1.iterrows():
        track = str(row).split(" ")[0]
        for col, v in vals.items():
            if pd.notna(v):
                out[f"table1/{track}/{col}"] = float(v)
    return out


def table1_comparison(t1: pd.DataFrame, variants: pd.DataFrame | None = None) -> published.Comparison:
    """:func:`irscales.papers.published.compare` of the real-data Table 1 with the paper, route
    ``real``; each note says how the value was computed and, for a cell that differs, by how much
    and what the other grid subsets give (``variants`` from :func:`grid_variants`)."""
    items = table1_items(t1)
    pub = published.load("fer17")
    printed = dict(zip(pub["item"], pub["value"]))
    notes = {}
    for item, v in items.items():
        note = REAL_ROUTE_NOTE
        if not printing.agreement(printed[item], v).reproduced:
            note += f"; differs by {v - float(printed[item]):+.5f}"
        if variants is not None and item in variants.columns:
            fer17_grid = variants[item][[r for r in variants.index if "(1,326)" in r]]
            best = fer17_grid.sub(float(printed[item])).abs().idxmin()
            note += f"; the closest 1,326-system subset ({best}) gives {variants.loc[best, item]:.4f}"
        notes[item] = note
    return published.compare("fer17", items, notes=notes, route="real", published=pub)


#: The grid subsets :func:`grid_variants` tries: label → (query forms or None for all, 3-grams kept).
_VARIANTS = {**{f"{q}, no 3-grams (1,326)": (q, False) for q in ("short", "medium", "long")},
             **{f"{q}, with 3-grams (1,428)": (q, True) for q in ("short", "medium", "long")},
             "all query forms, no 3-grams (3,978)": (None, False),
             "all query forms, with 3-grams (4,284)": (None, True)}


def grid_variants(original: Mapping[str, Mapping[str, np.ndarray]], gop: Mapping[str, GopTrack],
                  bandwidth: float = BANDWIDTH) -> pd.DataFrame:
    """Which systems of the published grid give the printed Table 1: one row per subset (each query
    form alone, with and without 3-grams, and all three pooled), one column per Table 1 item, plus
    ``cells matching`` (items equal to the printed value at its precision) and ``max |difference|``."""
    pub = published.load("fer17")
    printed = dict(zip(pub["item"], pub["value"]))
    rows = {}
    for name, (query, grams) in _VARIANTS.items():
        sub = {t: g.select(query, three_grams=grams) for t, g in gop.items()}
        rows[name] = table1_items(table1(original, sub, bandwidth))
    out = pd.DataFrame.from_dict(rows, orient="index")
    items = list(out.columns)
    out["cells matching"] = [sum(printing.agreement(printed[i], out.loc[r, i]).reproduced for i in items) for r in out.index]
    out["max |difference|"] = [max(abs(out.loc[r, i] - float(printed[i])) for i in items) for r in out.index]
    return out


def plot_fig1_panel(original: np.ndarray, gop: np.ndarray, track: str, measure: str, kl: float,
                    bandwidth: float = BANDWIDTH, xi: np.ndarray = MATTERS_GRID):
    """One panel of Fer17 Fig. 1 on real data: the estimated PDF (:func:`ksdensity` on
    :data:`MATTERS_GRID`) of the GoP's per-topic scores (solid blue) and of the original TREC
    systems' (dashed red), with their D_KL in the title, as the paper draws them. Returns the Figure."""
    import matplotlib.pyplot as plt  # matplotlib is imported only by the functions that draw

    o, g = np.ravel(original), np.ravel(gop)
    with styled():
        fig, ax = plt.subplots(figsize=(5.2, 3.2), layout="constrained")
        ax.plot(xi, ksdensity(g, xi, bandwidth), "-", color="tab:blue", label=f"{track} GoP ({g.size:,} scores)")
        ax.plot(xi, ksdensity(o, xi, bandwidth), "--", color="tab:red", label=f"{track} original ({o.size:,} scores)")
        ax.set_xlim(0, 1)
        ax.set_xlabel(measure)
        ax.set_ylabel("estimated PDF")
        ax.legend()
        ax.set_title(f"Fer17 Fig. 1 (real data): {measure} on {track}, KLD = {kl:.4f}")
    return fig
