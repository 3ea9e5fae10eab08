"""How many of a comparison table's decisions the brackets prove (issue 51, item 5; notebook 09): on the TREC-8
runs at N = 100 and 1000, each measure's interval-scaled values bracketed within ``max_rel_error`` (the planner's
bracket of φ, :func:`irscales.evaluate`), and every pair's decision of the comparison table
(:meth:`irscales.evaluation.Evaluation.compare`) either proven for every φ inside the brackets or undecided
(:mod:`irscales.stats.proven`). How the count of undecided decisions falls as the brackets tighten is the
question: a looser ``max_rel_error`` is cheaper, a tighter one proves more.

One :func:`irscales.evaluate` per (N, max_rel_error, measure) with ties ``unq`` as FFF21 Table 2, else
``mid`` as its Table 3 (AP has no ``unq`` route beyond N = 24; :data:`irscales.options.UNQ`); a measure the
planner refuses at N, or whose bracket fails there, keeps its rows with the reason (AP beyond N = 200 and
binary nDCG / DCG at N = 1000 with ties ``mid`` wait for issue 51 items 3–4). The original scale's decisions are exact (proven as computed) and are the reference: how many of
them the interval scale proves, keeps undecided or turns.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from irscales.comparison import PROVEN
from irscales.evaluation import Evaluation, evaluate
from irscales.interval import NoIntervalScaleError
from irscales.options import UNQ
from irscales.papers.fff21.cutoffs import Source

__all__ = ["COUNTS", "ERRORS", "MEASURES", "TESTS", "decision_rows", "decisions_frame", "plot_decisions",
           "decision_findings"]

#: The targets of the brackets' relative error of φ compared.
ERRORS = (0.01, 0.02, 0.05, 0.1)
#: The measures whose interval values are bracketed at N = 100 and 1000 (named without a cut-off: at N).
MEASURES = ("RBP_p08", "DCG_b02", "nDCG_b02", "AP")
#: The comparison's tests compared: its default (t, Holm), FFF21's Tukey HSD, the sign test.
TESTS = ("t", "tukey", "sign")


def _reason(e: Exception) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]


def _evaluate(source: Source, lab: str, N: int, max_rel_error: float, fallback: str) -> tuple[Evaluation, str]:
    """``evaluate`` of one measure with ties unq, else ``fallback`` where unq has no route; and the ties used."""
    for ties in (UNQ, fallback):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # judged@N and the brackets' notes: the table says what they are
                return evaluate(source.qrels, source.runs, lab, depth=N, ranked=True, ties=ties,
                                max_rel_error=max_rel_error, progress=False), ties
        except NoIntervalScaleError:
            if ties != UNQ:
                raise
    raise AssertionError("unreachable")


def decision_rows(source: Source, N: int, max_rel_error: float, measures: Sequence[str] = MEASURES,
                  tests: Sequence[str] = TESTS, fallback: str = "mid") -> list[dict]:
    """One row per (measure, test) at run length N and target ``max_rel_error``: the ties (unq, else
    ``fallback``), the route and the achieved relative error of the brackets, the pairs, the decisions on the
    original scale (significant) and on the interval scale (proven significant, proven not significant,
    undecided), and how many undecided pairs are significant on the original scale; ``reason`` where the
    measure has no bracket here."""
    rows = []
    for m in measures:
        base = {"N": N, "max_rel_error": max_rel_error, "measure": m}
        try:
            ev, ties = _evaluate(source, f"{m}@{N}", N, max_rel_error, fallback)
        except Exception as e:  # noqa: BLE001 — a refusal or a failing bracket is a row of the table, with its reason
            rows += [{**base, "ties": fallback, "test": t, "route": "none", "reason": _reason(e)} for t in tests]
            continue
        base["ties"] = ties
        st = ev.scale_table().iloc[0]
        for t in tests:
            table = ev.compare(test=t)
            p = table.pairs_frame()
            o, i = p[p.scale == "original"], p[p.scale == "interval"]
            proven = (i["proven"] == PROVEN).to_numpy()
            sig_o = o["significant"].to_numpy()
            rows.append({**base, "test": t, "route": str(st["route"]), "exact": bool(st["exact"]),
                         "achieved_rel_error": float(st["max_rel_error"]), "systems": len(ev.systems),
                         "topics": len(ev.topics), "pairs": len(i),
                         "significant_original": int(sig_o.sum()),
                         "proven_significant": int((proven & i["significant"].to_numpy()).sum()),
                         "proven_not_significant": int((proven & ~i["significant"].to_numpy()).sum()),
                         "undecided": int((~proven).sum()),
                         "undecided_significant_original": int((~proven & sig_o).sum()), "reason": ""})
    return rows


#: The columns of counts (integers; empty on a refused measure's rows).
COUNTS = ("systems", "topics", "pairs", "significant_original", "proven_significant", "proven_not_significant",
           "undecided", "undecided_significant_original")


def decisions_frame(source: Source, Ns: Sequence[int], errors: Sequence[float] = ERRORS,
                    measures: Sequence[str] = MEASURES, tests: Sequence[str] = TESTS,
                    fallback: str = "mid") -> pd.DataFrame:
    """:func:`decision_rows` for every N and target, with ``undecided_share`` (undecided / pairs)."""
    rows = [r for N in Ns for e in errors for r in decision_rows(source, N, e, measures, tests, fallback)]
    f = pd.DataFrame(rows)
    # counts stay integers (a refused measure's row has none: empty, not NaN, which would make every count a float)
    for c in COUNTS:
        if c in f:
            f[c] = f[c].astype("Int64")
    if "exact" in f:
        f["exact"] = f["exact"].astype("boolean")
    f["undecided_share"] = f["undecided"] / f["pairs"]
    return f


def plot_decisions(frame: pd.DataFrame, label: str):
    """Share of undecided decisions against the brackets' target relative error, one panel per (N, test), one
    line per measure; the title says whether the runs are real or simulated."""
    f = frame[frame["route"] != "none"]
    panels = [(n, t) for n in sorted(set(f["N"])) for t in dict.fromkeys(f["test"])]
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(3.2 * max(1, len(panels)), 3.0), squeeze=False)
    measures = list(dict.fromkeys(frame["measure"]))
    for ax, (n, t) in zip(axes.ravel(), panels):
        g = f[(f["N"] == n) & (f["test"] == t)]
        for k, m in enumerate(measures):  # styles apart: nDCG is ranked on DCG's scale, their lines may coincide
            h = g[g["measure"] == m].sort_values("max_rel_error")
            if len(h):
                ax.plot(h["max_rel_error"], 100 * h["undecided_share"], marker="os^D"[k % 4], ms=4 - 0.5 * (k % 4),
                        ls=("-", "--", ":", "-.")[k % 4], color=f"C{k}", label=m)
        ax.set_ylim(bottom=0)
        ax.set_xscale("log")
        ax.set_xticks(sorted(set(f["max_rel_error"])), [f"{x:g}" for x in sorted(set(f["max_rel_error"]))])
        ax.minorticks_off()
        ax.set_title(f"N = {n}, {t} test", fontsize=9)
        ax.set_xlabel("max_rel_error of φ (target)", fontsize=8)
        ax.tick_params(labelsize=7)
    axes.ravel()[0].set_ylabel("undecided decisions (% of pairs)", fontsize=8)
    axes.ravel()[0].legend(fontsize=7)
    missing = sorted(set(frame.loc[frame["route"] == "none", "measure"] + " @ N = " +
                         frame.loc[frame["route"] == "none", "N"].astype(str)))
    fig.suptitle(f"Comparison decisions proven over the brackets of φ — {label}"
                 + (f"\n(no bracket: {', '.join(missing)})" if missing else ""), fontsize=9)
    fig.tight_layout()
    return fig


def decision_findings(frame: pd.DataFrame, label: str) -> list[str]:
    """Sentences computed from :func:`decisions_frame`."""
    out = []
    f = frame[frame["route"] != "none"]
    for (n, t), g in f.groupby(["N", "test"], sort=True):
        parts = []
        for m, h in g.groupby("measure", sort=False):
            h = h.sort_values("max_rel_error")
            tight, loose = h.iloc[0], h.iloc[-1]
            parts.append(f"{m} {int(tight.undecided)} of {int(tight.pairs)} undecided at {tight.max_rel_error:g} "
                         f"({int(tight.undecided_significant_original)} of them significant on the original scale), "
                         f"{int(loose.undecided)} at {loose.max_rel_error:g}")
        out.append(f"N = {n}, {t} test ({label}): " + "; ".join(parts) + ".")
    none = frame[frame["route"] == "none"].drop_duplicates(["N", "measure"])
    for r in none.itertuples():
        out.append(f"N = {r.N}: {r.measure} has no bracket here ({r.reason}).")
    return out
