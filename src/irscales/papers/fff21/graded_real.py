"""Beyond FFF21: graded relevance on real runs (issue 30) in one call — notebook 08's entry.

:func:`compute` reads each data set of :mod:`irscales.papers.fff21.graded_data` once (cut at the
largest N), computes the graded measures, their binary counterparts and their interval-scaled versions
at every N (:mod:`irscales.papers.fff21.graded_scores`) and FFF21's Tables 2, 4, 5–6 on them
(:mod:`irscales.papers.fff21.graded_tables`), with judged@N for the depth-10 pool; :func:`write` saves
the tables as CSV and :func:`findings` states what they show, computed from them. Nothing here is a
reproduction: no paper printed these numbers (:data:`~irscales.papers.fff21.graded_data.LABEL`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

from irscales.enumeration.ties import TIES
from irscales.papers.fff21 import graded_data as D
from irscales.papers.fff21 import graded_tables as GT
from irscales.papers.fff21.graded_scores import COUNTERPART, GradedScores, graded_ranked_scores
from irscales.options import UNQ

__all__ = ["QUICK_N", "FULL_N", "BeyondGraded", "compute", "write", "findings", "reliability", "unreliable"]

#: Run lengths of the notebook's quick default (CI) and of ``full=True``.
QUICK_N = (5, 10)
FULL_N = (5, 10, 20, 30)


@dataclass
class BeyondGraded:
    """The data sets read, the scores per data set and N, and the long tables over all of them."""

    Ns: tuple[int, ...]
    data: dict[str, D.GradedData]
    results: dict[str, list[GradedScores]]
    judged: pd.DataFrame
    exactness: pd.DataFrame
    table2: pd.DataFrame
    table4: pd.DataFrame
    table56: pd.DataFrame
    skipped: dict[str, str] = field(default_factory=dict)


def compute(names: Sequence[str] = tuple(D.DATASETS), Ns: Sequence[int] = QUICK_N, *, ties: Sequence[str] = TIES,
            build: bool = False, cache: bool = True, scale_cache: bool = False) -> BeyondGraded:
    """Everything for the data sets ``names`` found in the shared folder (the absent ones are in
    ``skipped`` with the reason) at run lengths ``Ns``. ``build``: consent to scale builds over the
    budget (none is needed for these measures up to N = 32: all are counted); without it a measure whose
    only route is such a build is left out at that N, with the planner's reason in the exactness table.
    ``cache``: the cache of parsed runs; ``scale_cache``: whether scales may be read from (and built into)
    the scale cache — off by default, so every measure here is counted and the route of a cell, hence what
    its exactness rests on, does not depend on what a cache happens to hold."""
    Ns = tuple(sorted(set(int(n) for n in Ns)))
    data, results, skipped = {}, {}, {}
    j, ex, t2, t4, t56 = [], [], [], [], []
    for name in names:
        if not D.available(name):
            skipped[name] = D.missing_reason(name)
            continue
        d = data[name] = D.load(name, depth=max(Ns), cache=cache)
        res = results[name] = [graded_ranked_scores(d.collection, N, d.track, ties=ties, build=build,
                                                    cache=scale_cache) for N in Ns]
        j.append(D.judged_at(d, Ns))
        ex.append(GT.exactness(res, name))
        t2.append(GT.table2(res, name))
        t4 += [GT.table4(gs, name) for gs in res]
        t56 += [GT.table56(gs, name) for gs in res]

    def cat(parts):
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return BeyondGraded(Ns, data, results, cat(j), cat(ex), cat(t2), cat(t4), cat(t56), skipped)


def write(r: BeyondGraded, directory: str | Path | None = None) -> list[Path]:
    """The tables as ``figures/beyond/graded_<table>_beyond_real.csv`` (one file per table over all data
    sets and N, the N in the name: quick and full runs keep their own files)."""
    n = "_".join(map(str, r.Ns))
    return [GT.save(frame, f"{key}_N{n}", directory) for key, frame in
            (("judged", r.judged), ("exactness", r.exactness), ("table2", r.table2), ("table4", r.table4),
             ("table56", r.table56)) if not frame.empty]


def reliability(judged: pd.DataFrame) -> list[str]:
    """One sentence per data set on how far its judgments reach (judged@N, and the cut-offs where some
    system has fewer than :data:`~irscales.papers.fff21.graded_data.UNRELIABLE_JUDGED` of its documents judged)."""
    out = []
    for name, f in judged.groupby("dataset", sort=False):
        cells = ", ".join(f"judged@{k} = {v:.3f}" for k, v in zip(f["k"], f["judged@k"]))
        bad = f[~f["reliable"].astype(bool)]
        share = f"{D.UNRELIABLE_JUDGED:.0%}"
        if len(bad):
            tail = "; ".join(f"at N = {r['k']}, {r['systems below']} of {r['systems']} systems have fewer than {share} "
                             f"of their top N judged (lowest {r['lowest system']:.3f})" for _, r in bad.iterrows())
            tail += (": their unjudged documents count as not relevant, so their scores there are lower bounds and "
                     "comparisons involving them less reliable")
        else:
            tail = f"every system has at least {share} of its top N judged at every N"
        pool = " (pool of depth 10: deeper ranks are judged only where a pooled run had them in its top 10)" \
            if name == "clef2018" else ""
        out.append(f"{name}: {cells}{pool}; {tail}.")
    return out


def unreliable(judged: pd.DataFrame) -> str:
    """A caption line naming the cut-offs some system's judgments do not reach ("" when there is none)."""
    bad = judged[~judged["reliable"].astype(bool)] if not judged.empty else judged
    if bad.empty:
        return ""
    cells = "; ".join(f"{r['dataset']} at N = {r['k']}: {r['systems below']} of {r['systems']} systems (lowest "
                      f"{r['lowest system']:.3f})" for _, r in bad.iterrows())
    return (f"Unreliable cut-offs, fewer than {D.UNRELIABLE_JUDGED:.0%} of a system's top N judged (unjudged = not "
            f"relevant): {cells}.")


def findings(r: BeyondGraded) -> list[str]:
    """What the tables show, computed from them (for the notebook and the report)."""
    out = reliability(r.judged) if not r.judged.empty else []
    t2 = r.table2.dropna(subset=["tau"])
    for name, f in t2.groupby("dataset", sort=False):
        unq = f[f["ties"] == UNQ].set_index(["N", "measure"])["tau"]
        lower = [(n, g) for (n, g) in unq.index if g in COUNTERPART and (n, COUNTERPART[g]) in unq.index
                 and unq[(n, g)] < unq[(n, COUNTERPART[g])]]
        pairs = [(n, g) for (n, g) in unq.index if g in COUNTERPART and (n, COUNTERPART[g]) in unq.index]
        worst = f.loc[f["tau"].idxmin()]
        out.append(f"{name}: τ(M, interval version) < 1 in {int((f['tau'] < 1).sum())} of {len(f)} cells (measure × "
                   f"N × tie strategy); the lowest is {worst['tau']:.4f} ({worst['measure']}, N = {worst['N']}, "
                   f"{worst['ties']}); with ties unq the graded measure is further from its interval version than "
                   f"its binary counterpart in {len(lower)} of {len(pairs)} (N, pair) cells.")
    for name, f in r.table56.groupby("dataset", sort=False):
        changed = f["s2ns"] + f["ns2s"]
        g = f[f["measure"].isin(COUNTERPART)]
        b = f[~f["measure"].isin(COUNTERPART)]
        out.append(f"{name}: replacing a measure by its interval version changes the decision on "
                   f"{int(changed.sum()):,} (measure, test, N, system pair) cases of {int(f['sig'].sum()):,} "
                   f"significant ones — graded measures {int((g['s2ns'] + g['ns2s']).sum())}, binary ones "
                   f"{int((b['s2ns'] + b['ns2s']).sum())}; under the four tests that assume only an ordinal scale "
                   f"{int(changed[f['ordinal']].sum())}.")
    missing = r.exactness[r.exactness["exact"] == "not computed"]
    if len(missing):
        cells = sorted({(m, n) for m, n in zip(missing["measure"], missing["N"])}, key=lambda x: (x[1], x[0]))
        out.append("Not computed: " + ", ".join(f"{m} at N = {n}" for m, n in cells) + " (no exact route within "
                   "the budget: the exactness table gives the planner's reason).")
    cond = r.exactness[r.exactness["exact"] == "conditional"]
    if len(cond):
        cells = sorted({(m, n) for m, n in zip(cond["measure"], cond["N"])}, key=lambda x: (x[1], x[0]))
        out.append("Exact under Schanuel's conjecture only: " + ", ".join(f"{m} at N = {n}" for m, n in cells) + ".")
    return out
