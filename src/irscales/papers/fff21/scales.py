"""FFF21 Figures 3–5 and §5.1: all possible values of P, RR, RBP and DCG over all 2^N binary runs.

For each run length N the enumeration engine (:func:`irscales.enumeration.scale`) lists every
distinct value of a measure with its multiplicity and decides ties exactly. The figures are drawn
by :func:`irscales.figures.all_values_grid`; where ties occur is :func:`irscales.figures.tie_summary`.

Entry points, in the notebook's order: :func:`build_scales`, :func:`scales_table`,
:func:`plot_figures`, :func:`figure3_claims`, :func:`figure4_claims`, :func:`figure5_claims`,
:func:`dcg_conventions`, :func:`ties_table`, then :func:`route` for the published comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from irscales._atomic import write_atomic
from irscales import enumeration as E
from irscales import measures as M
from irscales.figures import all_values_grid, tie_summary, write_figure
from irscales.papers import published
from irscales.papers.fff21.record import Part, line
from irscales.papers.printing import yes_no

__all__ = ["FIGURES", "FIGURE_TITLES", "FigureScales", "build_scales", "scales_table", "plot_figures",
           "figure3_claims", "figure4_claims", "figure5_claims", "dcg_conventions", "ties_table", "route"]

#: The measures of each of Figs. 3–5, and the figures' titles.
FIGURES = {"fig3": ("P", "RBP_p05", "RR"), "fig4": ("RBP_p03", "RBP_p05", "RBP_p08"), "fig5": ("DCG_b02", "DCG_b10")}
FIGURE_TITLES = {"fig3": "FFF21 Fig. 3: all possible values of P, RBP (p = 0.5) and RR",
                 "fig4": "FFF21 Fig. 4: all possible values of RBP, p = 0.3, 0.5, 0.8",
                 "fig5": "FFF21 Fig. 5: all possible values of DCG, log base 2 and 10"}


@dataclass(frozen=True)
class FigureScales:
    """The exact scales of Figs. 3–5: ``scales[key, N]`` for every measure of :data:`FIGURES` and
    every run length of ``Ns``."""

    Ns: tuple
    scales: dict

    def get(self, key: str, N: int, **kw) -> E.Scale:
        """The scale of ``key`` at ``N``: the one built for the figures, or a new one (with ``kw``)."""
        return self.scales[key, N] if (key, N) in self.scales and not kw else E.scale(key, N, **{"build": True, **kw})

    @property
    def stem(self) -> str:
        """The run lengths in file names: ``N5-10-15-20``."""
        return "N" + "-".join(str(N) for N in self.Ns)


def build_scales(Ns) -> FigureScales:
    """The stored scale of every measure of Figs. 3–5 at every run length of ``Ns``. Building them is the
    point of this reproduction, so builds over the budget go ahead (``build=True``; N = 30: minutes and
    ~19 GB of cache, ``docs/benchmarks.md``), with a progress bar on a terminal."""
    Ns = tuple(Ns)
    return FigureScales(Ns, {(k, N): E.scale(k, N, method="scale", build=True) for ks in FIGURES.values() for k in ks
                             for N in Ns})


def scales_table(fs: FigureScales) -> pd.DataFrame:
    """One row per scale: runs, distinct values, how ties were decided and by which method."""
    return pd.DataFrame([{"measure": k, "N": N, "runs 2^N": s.n_runs, "distinct values": s.n_distinct,
                          "ties decided by": "integer keys" if s.mode == "int" else "floats + exact identities",
                          "method": s.method} for (k, N), s in sorted(fs.scales.items())])


def plot_figures(fs: FigureScales, out: str | Path, max_points: int = 2001) -> str:
    """Figs. 3–5 (``<fig>_all_values_<stem>``, PNG and PDF, in ``out``); returns the saved lines."""
    lines = []
    for fig_id, keys in FIGURES.items():
        fig = all_values_grid({k: {N: fs.scales[k, N] for N in fs.Ns} for k in keys}, max_points=max_points,
                              title=f"{FIGURE_TITLES[fig_id]} over all $2^N$ binary runs (exhaustive), "
                                    f"N = {', '.join(map(str, fs.Ns))}")
        for p in write_figure(fig, out, f"{fig_id}_all_values_{fs.stem}"):
            lines.append(line("saved", f"{p.parent.name}/{p.name}"))
    return "\n".join(lines)


def _all_runs(N: int) -> np.ndarray:
    return E.runs_from_ids(np.arange(2**N, dtype=np.int64), N)


def _label(x: Fraction, decimals: int) -> Fraction:
    """An axis label: the fraction ``x`` printed to ``decimals`` decimals (half away from zero; x ≥ 0)."""
    q = Fraction(10) ** decimals
    return Fraction(math.floor(x * q + Fraction(1, 2))) / q


def figure3_claims(fs: FigureScales) -> Part:
    """§7.1.1 on Fig. 3: the shares of P's values at N = 5, RBP_p05 one value per run and
    equi-spaced (engine's integer keys, N ≤ 20), RR's clusters above and below 0.2 (N = 5, 10, 20,
    30; closed form checked against the engine up to N = 20). ``data``: ``eq_N`` and ``rbp05``
    (the engine's RBP_p05 scales) for :func:`figure4_claims`. The shares are read off the figure (§7.1.1:
    the x labels give the fraction of runs up to that point), so each comes with the readings of labels
    printed to one and two decimals (``readings``; the resolution the comparison holds them to is a hand
    label, ``data/published/readings.csv``)."""
    items: dict[str, object] = {}
    notes: dict[str, str] = {}
    p5 = fs.get("P", 5)
    share = {float(v): Fraction(int(c), p5.n_runs) for v, c in zip(p5.values, p5.counts)}
    lines = [pd.DataFrame({"P": list(share), "runs": [int(c) for c in p5.counts],
                           "share": [str(s) for s in share.values()],
                           "share %": [float(100 * s) for s in share.values()],
                           "cumulative %": np.cumsum([float(100 * s) for s in share.values()])}).to_string(index=False)]
    ends = list(np.cumsum([share[v] for v in share]))  # the x labels at the cluster ends: runs up to that point
    readings: dict[str, dict[str, float]] = {}
    for i, v in enumerate(share):
        if v not in (0.2, 0.4, 0.6, 0.8):
            continue
        item = f"fig3/P/N=5/share_at_{v}"
        items[item] = float(100 * share[v])
        notes[item] = (f"exact share C(5,k)/2^5 = {share[v]} = {float(100 * share[v])}%, the difference of the x "
                       "labels at its cluster's ends, " + " and ".join(f"{e} = {float(100 * e):g}%"
                                                                       for e in ends[i - 1:i + 1]))
        readings[item] = {"exact share": items[item], **{
            f"x labels printed to {d} decimal{'s' if d > 1 else ''} "
            f"({float(_label(ends[i], d)):.{d}f} − {float(_label(ends[i - 1], d)):.{d}f})":
                float(100 * (_label(ends[i], d) - _label(ends[i - 1], d))) for d in (1, 2)}}
    items["fig3/P/N=5/runs_at_0.0"] = share[0.0] * p5.n_runs
    items["fig3/P/N=5/runs_at_1.0"] = share[1.0] * p5.n_runs

    # RBP p = 1/2 through the engine's exact integer keys Σ rel_i 2^{N-i}, not the closed form
    eq_N = [N for N in sorted(set(fs.Ns) | {5, 10, 20}) if N <= 20]
    rbp05 = {N: E.scale("RBP_p05", N, method="engine") for N in eq_N}
    ok = {N: s.mode == "int" and s.n_distinct == s.n_runs and len(set(np.diff(s.keys).tolist())) == 1
          for N, s in rbp05.items()}
    lines.append(line("RBP_p05: one value per run, equi-spaced (exact integer keys):", ok))
    items["fig3/RBP_p05/distinct_equispaced"] = yes_no(all(ok.values()))
    notes["fig3/RBP_p05/distinct_equispaced"] = (f"checked on the exact integer keys of the engine for N = "
                                                 f"{', '.join(map(str, eq_N))} (N = 30: closed form φ = 2^N m + 1 only)")
    rows = []
    for N in (5, 10, 20, 30):
        rr = fs.get("RR", N)
        ex = rr.exact_values()
        if N <= 20:  # the closed form against the engine
            eng = E.scale("RR", N, method="engine")
            if not (eng.exact_values() == ex and np.array_equal(eng.counts, rr.counts)):
                raise AssertionError(f"RR closed form differs from the engine at N = {N}")
        hi = sum(1 for v in ex if Fraction(1, 5) <= v <= 1)
        lo = sum(1 for v in ex if v < Fraction(1, 5))
        items[f"fig3/RR/clusters_[0.2,1]/N={N}"] = hi
        items[f"fig3/RR/clusters_[0,0.2)/N={N}"] = lo
        rows.append({"N": N, "clusters in [0.2, 1]": hi, "clusters in [0, 0.2)": lo,
                     "largest value below 0.2": str(max(v for v in ex if v < Fraction(1, 5))),
                     "runs with RR < 0.2": int(sum(c for v, c in zip(ex, rr.counts) if v < Fraction(1, 5)))})
    return Part(items, notes, text="\n".join(lines), table=pd.DataFrame(rows), data={"eq_N": eq_N, "rbp05": rbp05},
                readings=readings)


def figure4_claims(fs: FigureScales, fig3: Part) -> Part:
    """§7.1.1 on Fig. 4: the largest RBP values 1 − p^N (the all-ones run; checked against the
    scale where enumerated) and "full range" read as ≥ 0.95; φ(RBP_p03) = φ(RBP_p05) on every run
    (N of ``fig3.data["eq_N"]``); RBP_p08 without ties. ``table``: the RBP maxima."""
    items: dict[str, object] = {}
    notes: dict[str, str] = {}
    eq_N, rbp05 = fig3.data["eq_N"], fig3.data["rbp05"]
    rows = []
    for N in sorted(set(fs.Ns) | {5, 10, 20, 30}):
        row = {"N": N}
        for k, m in (("RBP_p03", M.RBP(p=0.3)), ("RBP_p05", M.RBP(p=0.5)), ("RBP_p08", M.RBP(p=0.8))):
            top = m.exact(np.ones((1, N), dtype=int))[0]          # exact 1 - p^N
            if (k, N) in fs.scales:
                smax = fs.scales[k, N].quantiles(1.0)
                if not (abs(smax - float(top)) <= 1e-12 and fs.scales[k, N].quantiles(0.0) == 0.0):
                    raise AssertionError(f"{k} at N = {N}: the scale's range is not [0, 1 − p^N]")
            row[f"max {k}"] = round(float(top), 4)
        row["RBP_p08 max from"] = "scale" if ("RBP_p08", N) in fs.scales else "all-ones run"
        rows.append(row)
        if N in (5, 10, 20, 30):
            items[f"fig4/RBP_p08/full_range/N={N}"] = yes_no(row["max RBP_p08"] >= 0.95)
            notes[f"fig4/RBP_p08/full_range/N={N}"] = (
                f"max RBP_p08 = 1 − 0.8^{N} = {row['max RBP_p08']:.4f} ('full range' read as ≥ 0.95, which N = 15, "
                f"not drawn in the paper, also reaches: {float(M.RBP(p=0.8).exact(np.ones((1, 15), dtype=int))[0]):.4f})")
    ranges = pd.DataFrame(rows)
    lines = [ranges.to_string(index=False)]

    # same order: the exact ranked measures phi agree on every run (both through the engine's kernels)
    same = {}
    for N in eq_N:
        runs = _all_runs(N)
        phi03 = E.scale("RBP_p03", N, method="engine").phi_runs(runs)
        same[N] = bool(np.array_equal(phi03, rbp05[N].phi_runs(runs)))
    lines.append(line("phi(RBP_p03) == phi(RBP_p05) on every run:", same))
    items["fig4/RBP_p03_same_order_as_RBP_p05"] = yes_no(all(same.values()))
    notes["fig4/RBP_p03_same_order_as_RBP_p05"] = f"every run compared for N = {', '.join(map(str, eq_N))}"

    no_ties = {N: tie_summary(fs.scales["RBP_p08", N])["n_tied_values"] == 0 for N in fs.Ns}
    lines.append(line("RBP_p08 without ties:", no_ties))
    items["fig4/RBP_p08_no_ties"] = yes_no(all(no_ties.values()))
    notes["fig4/RBP_p08_no_ties"] = f"exact scales for N = {', '.join(map(str, fs.Ns))}"
    return Part(items, notes, text="\n".join(lines), table=ranges)


def figure5_claims(fs: FigureScales, out: str | Path) -> Part:
    """Fig. 5 and §5.1: DCG_b10 counts the relevant documents for N ≤ 10; the distinct values and
    ties of DCG_b02 and DCG_b10 (written to ``out/fig5_dcg_distinct_and_ties_<stem>.csv``) against
    the plateau counts 3·2^(N−2) and (min(N,10)+1)·2^max(N−10,0)."""
    items: dict[str, object] = {}
    lines = []
    for N in (5, 10):
        d10 = fs.get("DCG_b10", N)
        runs = _all_runs(N)
        counts_rel = (np.array_equal(d10.values, np.arange(N + 1.0))
                      and np.array_equal(d10.counts, [math.comb(N, k) for k in range(N + 1)])
                      and np.array_equal(d10.phi_runs(runs), fs.get("P", N).phi_runs(runs)))
        items[f"fig5/DCG_b10_counts_relevant/N={N}"] = yes_no(counts_rel)
        lines.append(line(f"N = {N}: DCG_b10 values {d10.values.tolist()} = number of relevant documents; "
                          "φ = φ_P on every run:", counts_rel))
    rows = []
    for N in sorted(set(fs.Ns) | {5, 10, 15}):
        row = {"N": N, "runs": 2**N}
        for k in ("DCG_b02", "DCG_b10"):
            t = tie_summary(fs.get(k, N))
            row[f"{k} distinct"] = t["n_distinct"]
            row[f"{k} tied values"] = t["n_tied_values"]
            row[f"{k} runs in ties"] = t["runs_in_ties"]
            row[f"{k} tie sizes"] = (str(t["tie_sizes"]) if len(t["tie_sizes"]) <= 3
                                     else f"{len(t['tie_sizes'])} sizes, max {t['largest_tie']}")
        # only the plateau of weight-1 ranks ties: 3·2^(N−2) values for b = 2, (min(N,10)+1)·2^(N−10)⁺ for b = 10
        row["DCG_b02 = 3·2^(N−2)"] = row["DCG_b02 distinct"] == 3 * 2 ** (N - 2)
        row["DCG_b10 = (min(N,10)+1)·2^max(N−10,0)"] = row["DCG_b10 distinct"] == (min(N, 10) + 1) * 2 ** max(N - 10, 0)
        rows.append(row)
        if N in (5, 10, 15):
            items[f"s5.1/DCG_b02_distinct/N={N}"] = row["DCG_b02 distinct"]
    table = pd.DataFrame(rows)
    path = Path(out) / f"fig5_dcg_distinct_and_ties_{fs.stem}.csv"
    write_atomic(path, table.to_csv(index=False))
    lines += [line("saved", f"{path.parent.name}/{path.name}"), table.T.to_string(header=False)]
    return Part(items, text="\n".join(lines), table=table)


def dcg_conventions(fs: FigureScales) -> pd.DataFrame:
    """Distinct DCG_b02 values under other conventions (N ≤ 20): exact, the float DCG summed rank by
    rank (:class:`irscales.measures.DCG`) under ``np.unique`` and rounded to 4 and 3 decimals, and
    the exact count with the discount 1/log2(i + 1)."""
    rows = []
    for N in sorted({N for N in set(fs.Ns) | {5, 10, 15} if N <= 20}):
        v = M.DCG(base=2)(_all_runs(N))
        rows.append({"N": N, "exact (JK log2)": fs.get("DCG_b02", N).n_distinct,
                     "float (rank by rank), np.unique": len(np.unique(v)),
                     "rounded 4 dp": len(np.unique(np.round(v, 4))), "rounded 3 dp": len(np.unique(np.round(v, 3))),
                     "exact, discount 1/log2(i+1)": E.scale(M.DCG(base=2, discount="log2p1"), N).n_distinct})
    return pd.DataFrame(rows)


def ties_table(fs: FigureScales, out: str | Path) -> Part:
    """Where ties occur (§7.1.1): per measure and N, distinct and tied values, the share of runs in
    ties, the largest tie and the tied values per tenth of the range; written to
    ``out/ties_all_values_<stem>.csv``."""
    rows = []
    for k in ("DCG_b02", "DCG_b10", "RBP_p08", "P", "RR"):
        for N in fs.Ns:
            t = tie_summary(fs.scales[k, N], bins=10)
            rows.append({"measure": k, "N": N, "distinct": t["n_distinct"], "tied values": t["n_tied_values"],
                         "share of runs in ties": round(t["runs_in_ties"] / t["n_runs"], 4),
                         "largest tie": t["largest_tie"],
                         "tied values per tenth of the range": " ".join(str(b["n_tied_values"]) for b in t["by_bin"])})
    table = pd.DataFrame(rows)
    path = Path(out) / f"ties_all_values_{fs.stem}.csv"
    write_atomic(path, table.to_csv(index=False))
    return Part(text=line("saved", f"{path.parent.name}/{path.name}"), table=table)


def route(items) -> dict[str, str]:
    """Route of each reproduced item of ``data/published/fff21.csv``: worked examples and footnotes
    recompute the paper's printed inputs ("printed"); the rest is exact enumeration or theory
    ("exhaustive")."""
    kind = published.load("fff21").set_index("item")["kind"]
    return {item: "printed" if kind[item] == "example" or item.startswith("fn") else "exhaustive" for item in items}
