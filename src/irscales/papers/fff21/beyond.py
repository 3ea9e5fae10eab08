"""Beyond FFF21 (issue 20; FFF21 §8): scales too large to enumerate, and graded relevance.

* :func:`value_curve` — FFF21 Figs. 3–5 plot every value of a measure over REL^N in increasing
  order. Where φ is *counted* (:mod:`irscales.enumeration.counting`) the 2^50 values cannot be listed, but a
  uniform sample of runs can be placed at their exact position φ among all distinct values: the
  points lie on the curve of the figure (same x = position, y = value), exactly.
  :func:`counted_curves` does it for several measures and run lengths.
* :func:`graded_values` — every distinct value of a graded measure over all (c+1)^N runs (the
  enumeration engine, G = c + 1 grades), for the same figures on graded scales; :func:`graded_summary`
  counts their values and ties.
* :func:`graded_ranked_taus` — FFF21 Table 2 for graded measures: Kendall τ_b between the system
  means of a graded measure and of its ranked version φ on a collection with graded judgments (the
  public Grid of Points on Cranfield, grades 0..4).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from irscales.enumeration import counting as C
from irscales import enumeration as E
from irscales import measures as M
from irscales.data.collection import Collection
from irscales.correlation import kendall_tau
from irscales.enumeration._dcg import exact_dcg
from irscales.figures import write_figure
from irscales.options import Settings
from irscales.interval import plan
from irscales.papers.fff21.graded_scores import graded_measures
from irscales.ranks import dense_ranks

__all__ = ["value_curve", "counted_curves", "graded_values", "graded_summary", "TAU_MEASURES", "graded_ranked_taus",
           "plot_value_curves"]

#: The graded measures of :func:`graded_ranked_taus` (notebook 07), in its row order.
TAU_MEASURES = ("gnDCG_b02", "gRBP_p08", "gRBP_p05", "gP")


def _phi(measure: M.Measure, rel: np.ndarray, c: int, **scale_kwargs) -> tuple[np.ndarray, int, str]:
    """φ (unq) of runs ``rel`` over grades 0..c, the number K of distinct values, and how φ was obtained: the
    API's plan (:func:`irscales.interval.plan`: route and K, as ``evaluate`` takes them). The notebook's
    computations are its consent to the scale builds they need (``build=True`` unless given)."""
    kw = dict(scale_kwargs)
    settings = Settings(cache=kw.pop("cache", True), build=kw.pop("build", True))  # ties: the default, eq. (2)
    p = plan([(measure.key, measure)], rel.shape[-1], settings, grades=c, require=True)[0][measure.key]
    return p.route.phi_runs(rel, **kw), p.K, "counted" if p.kind == "count" else "enumerated"


def value_curve(measure: M.Measure | str, N: int, n_runs: int = 2000, seed: int = 0, c: int = 1,
                **scale_kwargs) -> pd.DataFrame:
    """A seeded uniform sample of ``n_runs`` runs of length N (grades 0..c) plus the empty and the
    full run, with their value and exact position φ among the distinct values of the measure over all
    (c+1)^N runs (counted where :func:`irscales.enumeration.counting.countable`, else from the engine's scale).

    Columns: ``phi`` (1-based rank, Python ints beyond 2^62), ``n_distinct``, ``position`` =
    (φ − 1)/(n_distinct − 1) in [0, 1], ``value`` (float64, for plotting), ``method``."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    rng = np.random.default_rng(seed)
    rel = np.concatenate([np.zeros((1, N), np.int64), np.full((1, N), c, np.int64),
                          rng.integers(0, c + 1, size=(n_runs, N))])
    rel = np.unique(rel, axis=0)
    phi, n, how = _phi(m, rel, c, **scale_kwargs)
    kw = {"ideal": np.full((len(rel), N), c)} if getattr(m, "gains", "binary") == "graded" and m.needs_rb else {}
    value = np.asarray(m(rel, rb=np.full(len(rel), N), **kw), dtype=float)
    pos = np.array([float(int(x) - 1) / max(int(n) - 1, 1) for x in phi])
    out = pd.DataFrame({"phi": list(phi), "n_distinct": n, "position": pos, "value": value, "method": how})
    return out.sort_values("position", kind="stable").reset_index(drop=True)


def counted_curves(N_values, names=("RBP_p08", "DCG_b02", "RBP_p05", "RR"), n_runs: int = 300,
                   seed: int = 0) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """:func:`value_curve` of each measure of ``names`` at each N of ``N_values`` where φ can be
    counted (:func:`irscales.enumeration.counting.counting_depth`), ``n_runs`` sampled runs each (DCG's
    300 runs at N = 50 take about 10 s on the 2-core machine, ``docs/benchmarks.md``).

    Returns the curves (label ``"<name>, N = <N>"`` → frame) and one row per (measure, N): counted,
    distinct values, and why not when the measure cannot be counted at N."""
    curves, rows = {}, []
    for N in N_values:
        for name in names:
            limit, why = C.counting_depth(name)
            if N > limit:
                rows.append({"measure": name, "N": N, "counted": False, "distinct values": None, "why not": why})
                continue
            df = value_curve(name, N, n_runs, seed=seed)
            curves[f"{name}, N = {N}"] = df
            rows.append({"measure": name, "N": N, "counted": True, "distinct values": int(df.n_distinct[0]),
                         "why not": ""})
    return curves, pd.DataFrame(rows)


def graded_values(measure: M.Measure | str, N: int, c: int, **scale_kwargs) -> pd.DataFrame:
    """Every distinct value of ``measure`` over all (c+1)^N runs with grades 0..c (the enumeration
    engine), in increasing order, with the number of runs taking it: columns ``value``, ``count``."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    s = E.scale(m, N, c=c, method="engine", **{"build": True, **scale_kwargs})  # every value: the stored scale
    return pd.DataFrame({"value": np.asarray(s.values, dtype=float), "count": np.asarray(s.counts)})


def graded_summary(values: dict[str, pd.DataFrame], measures: dict[str, M.Measure], N: int, c: int) -> pd.DataFrame:
    """One row per graded scale (``values``: key → :func:`graded_values` frame): runs (c+1)^N,
    distinct values, runs per value (> 1: ties) and, for graded RBP, a tie between two runs of
    length 2 (:func:`irscales.enumeration.counting.graded_rbp_tie`; None when p has no ties over grades 0..c)."""
    return pd.DataFrame([{"measure": k, "N": N, "grades": c + 1, "runs": (c + 1) ** N,
                          "distinct values": len(v), "runs / values": (c + 1) ** N / len(v),
                          "tie example (length 2)": str(C.graded_rbp_tie(measures[k].p, c)) if k.startswith("gRBP") else ""}
                         for k, v in values.items()])


def graded_ranked_taus(collection: Collection, N: int, measures: dict[str, M.Measure] | None = None,
                       **scale_kwargs) -> pd.DataFrame:
    """Kendall τ_b between the system means of each graded measure and of its ranked version φ (FFF21
    Table 2, graded) on ``collection`` cut at N, over the (c+1)^N runs of its grades 0..c
    (c = ``collection.max_grade``). φ is counted where possible (gP, gRBP without ties or with p = 1/b, gnDCG),
    else enumerated.

    Exactness: rational measures (gRBP, gP) are averaged exactly (one Fraction per (topic, φ)); φ means
    are integer sums; DCG/nDCG with an integer log base (gnDCG_b02) are summed as integer vectors over
    the logarithms and compared exactly (:class:`irscales.enumeration._dcg.ExactDCG`, each topic divided
    by its ideal DCG). Other measures fall back to float means of one value per (topic, φ).
    Topics without any relevant document are dropped (no nDCG).
    One row per measure: ``tau``, ``systems``, ``topics``, ``N``, ``grades``, ``distinct`` (values of
    the scale), ``phi`` (counted / enumerated)."""
    c = int(collection.max_grade)
    measures = graded_measures(c, TAU_MEASURES) if measures is None else measures
    keep = np.nonzero(collection.rb > 0)[0]
    coll = collection.subset(topics=keep) if len(keep) < len(collection.topics) else collection
    rel = coll.rel_at(N).astype(np.int64)  # (S, T, N)
    S, T = rel.shape[:2]
    rows = []
    for name, m in measures.items():
        phi, n, how = _phi(E.numerator(m), rel, c, **scale_kwargs)
        phi = np.asarray(phi, dtype=np.int64).reshape(S, T)
        vals = np.asarray(coll.evaluate(m, depth=N), dtype=float).T  # (S, T), as rel
        key = phi * T + np.arange(T)[None, :]
        _, first, inv = np.unique(key.ravel(), return_index=True, return_inverse=True)
        inv = inv.reshape(S, T)
        if m.rational:  # exact means: one Fraction per (topic, φ), summed per system
            reps = rel.reshape(S * T, N)[first]
            ex = m.exact(reps, rb=coll.rb[first % T]).tolist()
            means = dense_ranks([sum((ex[i] for i in row), Fraction(0)) for row in inv.tolist()])
        elif (ex := exact_dcg(m, rel, coll.rb, N, vals.T, ideal=coll.ideal(N))) is not None:  # irrational: DCG/nDCG
            means = ex.mean_codes()  # exact: integer vectors over the logarithms, sums compared exactly
        else:
            means = vals.ravel()[first][inv].mean(axis=1)
        tau = float(kendall_tau(means, dense_ranks([sum(row) for row in phi.tolist()])))
        rows.append({"measure": name, "tau": tau, "systems": S, "topics": T, "N": N, "grades": c + 1,
                     "distinct": int(n), "phi": how})
    return pd.DataFrame(rows).set_index("measure")


def plot_value_curves(curves: dict[str, pd.DataFrame], title: str, directory: str | Path | None = None,
                      stem: str | None = None, exhaustive: dict | None = None):
    """FFF21 Figs. 3–5 style: value against position among all distinct values, one panel per curve
    (sampled runs at exact positions, :func:`value_curve`), or, for ``exhaustive`` entries
    (label → :func:`graded_values` frame), every distinct value. With ``directory`` the figure is
    written as ``directory/stem.png`` (:func:`irscales.figures.write_figure`, 110 dpi) and closed."""
    import matplotlib.pyplot as plt

    items = [(k, v, False) for k, v in curves.items()] + [(k, v, True) for k, v in (exhaustive or {}).items()]
    fig, axes = plt.subplots(1, len(items), figsize=(3.6 * len(items), 3.2), squeeze=False)
    for ax, (label, df, full) in zip(axes[0], items):
        if full:
            x = np.arange(len(df)) / max(len(df) - 1, 1)
            ax.plot(x, df["value"], ".", ms=1)
            ax.set_title(f"{label}\nall {len(df):,} values", fontsize=9)
        else:
            ax.plot(df["position"], df["value"], ".", ms=2)
            ax.set_title(f"{label}\n{len(df):,} runs of {int(df['n_distinct'].iloc[0]):.3g} values", fontsize=9)
        ax.set_xlabel("position among distinct values")
    axes[0][0].set_ylabel("value")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    if directory is not None:
        write_figure(fig, directory, stem, formats=("png",), dpi=110)
    return fig
