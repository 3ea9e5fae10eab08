"""FFF21 Tables 2, 4, 5–6 for graded measures on real runs (issue 30), from FFF21's own table
functions (:mod:`irscales.papers.fff21.tables`, :mod:`irscales.papers.fff21.significance_tables`) applied to
:class:`~irscales.papers.fff21.graded_scores.GradedScores`, in long form with the exactness of every cell.

* :func:`table2` — Kendall τ_b between the system means of each measure and of its interval-scaled version,
  for each tie strategy (FFF21 Table 2 is ``unq``, Table 3 ``mid``; ``min`` and ``max`` beside them);
* :func:`table4` — τ between every two measures (Msr) and between their interval-scaled versions (RnkMsr),
  Δ% = (RnkMsr − Msr)/Msr · 100, ``unq`` as FFF21;
* :func:`table56` — under each of FFF21's eight tests, the system pairs significant with M (Sig) and those
  that change when M is replaced by its interval-scaled version (S2NS, NS2S), ``unq`` as FFF21; Table 5 =
  measures free of the recall base, Table 6 = nDCG; ``scores`` says whether the tests saw exact scores or,
  for nDCG beyond its log base, floats (one per exact value; the signed-rank test ties the magnitudes of
  their differences by MATLAB's rule, as FFF21's).

Every row carries ``exact``: the weakest basis of the φ it uses (``proof``, ``enumeration``,
``conditional`` — Schanuel's conjecture for counted DCG beyond the enumerated depth — or ``not
computed`` with the reason in ``basis``); system means and τ are exact (exact scores, exact φ); the
significance decisions are those of :mod:`irscales.stats._significance` on exact input, but for the
original nDCG beyond its log base (``scores``). Files are written
under ``figures/beyond/`` with :data:`TAG` in their name: real data, beyond the papers.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from irscales._atomic import write_atomic
from irscales.enumeration.ties import TIES
from irscales.papers.fff21 import significance_tables as ST
from irscales.papers.fff21 import tables as T
from irscales.papers.fff21.graded_data import LABEL
from irscales.papers.fff21.graded_scores import COUNTERPART, EXACT_KINDS, GRADED, ORDER, RECALL_BASED, GradedScores
from irscales.paths import figures_dir
from irscales.stats import _significance as SG
from irscales.options import DEFAULT_TIES

__all__ = ["TAG", "table2", "table2_grid", "table4", "table56", "exactness", "weakest", "save", "output_dir"]

#: Every file name of these outputs ends with it (:func:`irscales.papers.items.figure_route` reads it).
TAG = "beyond_real"


def weakest(kinds: Sequence[str]) -> str:
    """The weakest basis among ``kinds`` (``not computed`` if any is)."""
    order = list(EXACT_KINDS) + ["not computed"]
    return max(kinds, key=order.index) if len(kinds) else "not computed"


def _basis(gs: GradedScores, measure: str, ties: str) -> tuple[str, str]:
    e = gs.exactness
    row = e[(e.measure == measure) & (e.ties == ties)]
    if row.empty:
        return "not computed", "not asked"
    return str(row["exact"].iloc[0]), str(row["basis"].iloc[0])


def _kind(measure: str) -> str:
    return "graded" if measure in GRADED else "binary (lenient)"


def table2(results: Sequence[GradedScores], dataset: str) -> pd.DataFrame:
    """FFF21 Tables 2–3 for every measure, N and tie strategy of ``results`` (one data set): columns
    ``dataset``, ``N``, ``measure``, ``relevance`` (graded / binary (lenient)), ``counterpart``, ``ties``,
    ``tau`` (NaN when not computed), ``exact``, ``basis``."""
    rows = []
    for gs in results:
        rs = gs.scores
        for ties in rs.ranked:
            taus = T.table2([rs], ties=ties).iloc[0] if rs.measures else pd.Series(dtype=float)
            for m in ORDER:
                if m not in set(gs.exactness.measure):
                    continue
                kind, basis = _basis(gs, m, ties)
                other = COUNTERPART.get(m) or next(g for g, b in COUNTERPART.items() if b == m)
                rows.append({"dataset": dataset, "N": rs.N, "measure": m, "relevance": _kind(m), "counterpart": other,
                             "ties": ties, "tau": float(taus[m]) if m in taus.index else np.nan, "exact": kind,
                             "basis": basis})
    return pd.DataFrame(rows)


def table2_grid(long: pd.DataFrame) -> pd.DataFrame:
    """:func:`table2` as FFF21 prints it: one row per measure (graded, then its binary counterpart), one
    column per (N, ties)."""
    g = long.pivot_table(index="measure", columns=["N", "ties"], values="tau", aggfunc="first", dropna=False)
    ties = [t for t in TIES if t in set(long["ties"])]
    cols = [(n, t) for n in sorted(set(long["N"])) for t in ties]
    return g.reindex(index=[m for m in ORDER if m in set(long["measure"])], columns=cols)


def table4(gs: GradedScores, dataset: str, ties: str = DEFAULT_TIES) -> pd.DataFrame:
    """FFF21 Table 4 on one (data set, N): every pair of the computed measures in :data:`ORDER`
    (``Msr``, ``RnkMsr``, ``Delta%``), with ``exact`` (the weaker basis of the two measures' φ)."""
    have = [m for m in ORDER if m in gs.scores.measures]
    f = T.table4(gs.scores, pairs=list(combinations(have, 2)), ties=ties).reset_index()
    a_b = f["Measure"].str.split(" vs ", expand=True)
    f.insert(0, "dataset", dataset)
    f.insert(1, "N", gs.scores.N)
    f["exact"] = [weakest([_basis(gs, a, ties)[0], _basis(gs, b, ties)[0]]) for a, b in zip(a_b[0], a_b[1])]
    return f


def table56(gs: GradedScores, dataset: str, tests: Sequence[str] = SG.TESTS, ties: str = DEFAULT_TIES) -> pd.DataFrame:
    """FFF21 Tables 5–6 on one (data set, N): :func:`irscales.papers.fff21.significance_tables.table56` for
    the computed measures in :data:`ORDER`, with ``dataset``, ``N``, ``table`` (5: free of the recall
    base, 6: nDCG) and ``exact`` (the basis of the measure's φ)."""
    have = [m for m in ORDER if m in gs.scores.measures]
    f = ST.table56(gs.scores, measures=have, tests=tests, ties=ties)
    f.insert(1, "dataset", dataset)
    f.insert(2, "N", gs.scores.N)
    f.insert(3, "table", [6 if m in RECALL_BASED else 5 for m in f["measure"]])
    f["exact"] = [_basis(gs, m, ties)[0] for m in f["measure"]]
    f["scores"] = ["float (irrational)" if m in gs.float_scores else "exact" for m in f["measure"]]
    return f


def exactness(results: Sequence[GradedScores], dataset: str) -> pd.DataFrame:
    """The exactness rows of ``results`` (one per measure, N and tie strategy) with the data set."""
    out = pd.concat([gs.exactness for gs in results], ignore_index=True)
    out.insert(0, "dataset", dataset)
    return out


def output_dir(directory: str | Path | None = None) -> Path:
    """``figures/beyond/`` (or ``directory``), created."""
    d = Path(directory) if directory is not None else figures_dir("beyond")
    d.mkdir(parents=True, exist_ok=True)
    return d


def save(frame: pd.DataFrame, name: str, directory: str | Path | None = None) -> Path:
    """Write ``frame`` as ``graded_<name>_beyond_real.csv`` (6 decimals), its first line a comment with
    :data:`~irscales.papers.fff21.graded_data.LABEL` (read back with ``pd.read_csv(..., comment="#")``)."""
    path = output_dir(directory) / f"graded_{name}_{TAG}.csv"
    write_atomic(path, f"# {LABEL}: {name}\n" + frame.to_csv(index=False, float_format="%.6f"))
    return path
