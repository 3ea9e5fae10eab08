"""FFF21 Table 2 at the cut-offs researchers report, N = 100 and 1000 (issue 42, item 4; notebook 09):
beyond the papers, which stop at N = 30.

For each FFF21 measure M (:data:`irscales.papers.fff21.ranked.PAPER_ORDER`) at run length N, Kendall's τ_b
between the system means of M and of its interval version (φ(M) − 1)/(K − 1) (FFF21 eq. 2, §7.1), both
from ``irscales.evaluate(qrels, runs, M, depth=N, ranked=True, ties=...)`` — the one API, so each cell takes
whatever route the planner has at N: an exact one (closed forms, counting) or a bracket of φ with a proven
relative error (``Evaluation.scale_table()``: ``exact``, ``max_rel_error``). A measure the planner refuses at N
keeps its row with the planner's reason (never a hidden cell).

For a bracketed cell, lo ≤ φ ≤ hi per (topic, system) (``IntervalValues.phi_lo`` / ``phi_hi``; the interval
value itself is from the bracket's lower midpoint, :func:`irscales.enumeration.bounded.lower_midpoint`), K is
exact, so each system's mean interval value lies in [mean of (lo − 1)/(K − 1), mean of (hi − 1)/(K − 1)]
(:func:`irscales.certified.mean_bounds`). ``tau_min`` / ``tau_max`` bound τ over *every* choice of φ inside the
brackets (:func:`irscales.certified.kendall_tau_range`, a proven outer bound; ``tau`` lies in it): where they
are equal the brackets cannot move τ; ``undecided_pairs`` counts the pairs of systems whose order the brackets
leave open. ``max_rel_error`` is the route's target, ``achieved_rel_error`` the largest hi/lo − 1 over the cell's
runs (``Evaluation.scale_table``).

Means are exact: ``Evaluation.decision_values`` (Fractions for rational measures; DCG/nDCG floats ordered
exactly where close, :func:`irscales.evaluation.ordered_means`) and Fractions for the interval values.
"""

from __future__ import annotations

import math
import tempfile
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from irscales.certified import Bounds, kendall_tau_range, mean_bounds
from irscales.correlation import kendall_tau, system_means
from irscales.data import load_preset
from irscales.evaluation import Evaluation, at_cutoffs, evaluate, measure_specs, ordered_means
from irscales.interval import NoIntervalScaleError
from irscales.papers.fff21.ranked import PAPER_ORDER
from irscales.paths import trec_track
from irscales.options import UNQ

__all__ = ["Source", "t08_source", "Cell", "table2_cells", "table2_frame", "top_k_frame", "points_frame", "judged_frame",
           "system_ranks", "log10_unit", "tag", "FOLDER", "findings"]

#: Folder of the notebook's files under the figures folder.
FOLDER = "cutoffs"


@dataclass(frozen=True)
class Source:
    """Runs and qrels as ``evaluate`` takes them, and what they are (``simulated``: the fallback when the
    shared TREC-8 data is absent; every title, caption and file name then says so)."""

    qrels: object
    runs: object
    simulated: bool
    systems: int

    @property
    def label(self) -> str:
        return "simulated TREC-8 runs" if self.simulated else "real TREC-8 runs"

    @property
    def kind(self) -> str:
        return "beyond_simulated" if self.simulated else "beyond_real"


def t08_source(depth: int, systems: int = 0, workdir: str | Path | None = None) -> Source:
    """The 129 real TREC-8 Ad hoc runs of the shared folder (the first ``systems`` run files in name order;
    0: all), or, when the shared data is absent, the simulated preset ``sim-t08`` at ``depth`` written as
    TREC files under ``workdir`` (a temporary folder by default) so that it is read by the same path."""
    t = trec_track("T08")
    if t is not None:
        files = sorted(p for p in Path(t.runs).iterdir() if p.is_file())
        files = files[:systems] if systems else files
        return Source(t.qrels, files, False, len(files))
    col = load_preset("sim-t08", depth=depth)
    if systems:
        col = col.subset(systems=list(range(min(systems, len(col.systems)))))
    d = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="irscales-sim-t08-"))
    runs, qrels = col.to_trec(d)
    return Source(qrels, runs, True, len(col.systems))


@dataclass
class Cell:
    """One (measure, N, ties) cell: the route and its exactness, τ_b between the system means of the measure
    and of its interval version, and the range of τ_b over every φ inside the brackets (``tau_min``, ``tau_max``,
    ``undecided_pairs``; NaN / −1 where exact); ``reason`` when the
    planner has no route. ``value``/``unit``/``log10``: (topics × systems) measure values, interval values
    (floats) and log10 of the interval values (−inf at 0), for the figures."""

    measure: str
    N: int
    ties: str
    route: str = "none"
    exact: bool = False
    max_rel_error: float = float("nan")
    achieved_rel_error: float = float("nan")
    tau: float = float("nan")
    tau_min: float = float("nan")
    tau_max: float = float("nan")
    undecided_pairs: int = -1
    bounds: str = "none"
    caveat: str = ""
    reason: str = ""
    means: np.ndarray | None = field(default=None, repr=False)
    unit_means: np.ndarray | None = field(default=None, repr=False)
    value: np.ndarray | None = field(default=None, repr=False)
    log10: np.ndarray | None = field(default=None, repr=False)


def log10_unit(phi: np.ndarray, K: int) -> np.ndarray:
    """log10((φ − 1)/(K − 1)) without underflow (K up to 2^1000 and beyond): from the integers, −inf at φ = 1."""
    def one(p) -> float:
        num = 2 * p - 2  # 2(φ − 1): an integer for φ a half-integer (ties mid)
        return -math.inf if num <= 0 else math.log10(int(num)) - math.log10(2) - math.log10(K - 1)
    return np.vectorize(one, otypes=[float])(np.asarray(phi, dtype=object))


def _unit(phi: np.ndarray, K: int) -> np.ndarray:
    """(φ − 1)/(K − 1) of every entry, exact."""
    return np.vectorize(lambda p: Fraction(p - 1) / (K - 1) if K > 1 else Fraction(0), otypes=[object])(phi)


def _tau(a: np.ndarray, b: np.ndarray) -> float:
    return float(kendall_tau(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))


def _evaluate(source: Source, labels: list[str], N: int, ties: str) -> tuple[Evaluation | None, dict[str, str]]:
    """``evaluate`` on the labels that have an interval version at N; the others with the planner's reason.
    Its warnings (judged@N, brackets wider than the target) are kept in ``Evaluation.notes``, not shown twice."""
    refused: dict[str, str] = {}
    labels = list(labels)
    given = {lab: g for g, (lab, _) in zip(labels, at_cutoffs(measure_specs(labels), N))}  # AP@N → AP
    while labels:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the same lines are in ev.notes (table2_cells' notes)
                return evaluate(source.qrels, source.runs, labels, depth=N, ranked=True, ties=ties, phi=True,
                                progress=False), refused
        except NoIntervalScaleError as e:
            for lab, why, _ in e.missing:
                refused[given.get(lab, lab)] = why
            for lab in e.none:
                refused[given.get(lab, lab)] = "no interval-scaled version"
            if not set(refused) & set(labels):
                raise
            labels = [x for x in labels if x not in refused]
    return None, refused


def _cell(ev: Evaluation, lab: str, N: int, ties: str) -> Cell:
    """The cell of measure ``lab`` as the paper names it (``AP``; evaluate's label carries N: ``AP@100``)."""
    row = ev.scale_table().set_index("measure").loc[ev.given.get(lab, lab)]
    iv = ev.interval_values(lab)
    K = int(iv.plan.K)
    means, _ = ordered_means(ev.collection, ev.measures[ev.given.get(lab, lab)], N, ev.decision_values(lab), lab)
    unit_means = system_means(iv.unit)
    c = Cell(lab, N, ties, route=str(row["route"]), exact=bool(row["exact"]), caveat=str(row["caveat"] or ""),
             max_rel_error=float(iv.plan.max_rel_error), achieved_rel_error=float(row["max_rel_error"]),
             tau=_tau(means, unit_means), means=means, unit_means=unit_means,
             value=np.asarray(ev.values(lab), dtype=float), log10=log10_unit(iv.phi, K))
    if not iv.plan.exact:  # a bracket: τ over every φ inside it (each system's mean interval value in its bounds)
        c.bounds = "IntervalValues.phi_lo/phi_hi"
        r = kendall_tau_range(np.asarray(means, dtype=object),
                              mean_bounds(Bounds(_unit(iv.phi_lo, K), _unit(iv.phi_hi, K))))
        if not r.lo <= c.tau <= r.hi:  # φ's lower midpoint is inside its bracket: a proven range must hold τ
            raise AssertionError(f"{lab} at N = {N}: τ = {c.tau} outside its range [{r.lo}, {r.hi}]")
        c.tau_min, c.tau_max, c.undecided_pairs = r.lo, r.hi, r.undecided
    return c


def table2_cells(source: Source, N: int, measures: Sequence[str] = PAPER_ORDER, fallback_ties: str = "mid",
                 notes: list[str] | None = None, judged: dict[int, pd.Series] | None = None) -> list[Cell]:
    """FFF21 Table 2 (ties ``unq``) at run length N for ``measures``; a measure without an ``unq`` route at N
    gets a second cell with ``fallback_ties`` (FFF21 Table 3's ``mid``) when it has a route there. ``notes``:
    a list that receives evaluate's notes (judged@N, brackets wider than the target), each once; ``judged``: a dict
    that receives judged@N per system at key N (``Evaluation.judged``)."""
    ev, refused = _evaluate(source, list(measures), N, UNQ)
    cells = {lab: _cell(ev, lab, N, UNQ) for lab in (ev.given if ev is not None else ())}
    out = []
    extra = {}
    ev2 = None
    if refused and fallback_ties:
        ev2, refused2 = _evaluate(source, list(refused), N, fallback_ties)
        extra = {lab: _cell(ev2, lab, N, fallback_ties) for lab in (ev2.given if ev2 is not None else ())}
        extra.update({lab: Cell(lab, N, fallback_ties, reason=why) for lab, why in refused2.items()})
    if judged is not None and ev is not None:
        judged[N] = ev.judged()
    if notes is not None:
        for n in (n for e in (ev, ev2) if e is not None for n in e.notes):
            if n not in notes:
                notes.append(n)
    for lab in measures:
        out.append(cells.get(lab) or Cell(lab, N, UNQ, reason=refused[lab]))
        if lab in extra:
            out.append(extra[lab])
    return out


def table2_frame(cells: Sequence[Cell]) -> pd.DataFrame:
    """One row per cell: measure, N, ties, route, exact, max_rel_error (the route's target, 0 when exact),
    achieved_rel_error (the largest hi/lo − 1 over the cell's runs, proven), tau, tau_min and tau_max (the range
    of τ over every φ inside the brackets, :func:`irscales.certified.kendall_tau_range`), undecided_pairs (pairs
    of systems the brackets leave in either order), stable (the range is the one value τ: the brackets cannot
    move it; '' where exact or not computed), bounds, caveat (what the values rest on beyond a proof: DCG's
    distinct values on Schanuel's conjecture; ``Evaluation.scale_table``), reason."""
    rows = []
    for c in cells:
        bracketed = c.route != "none" and c.bounds != "none"
        stable = str(c.tau_min == c.tau == c.tau_max) if bracketed else ""
        rows.append({"measure": c.measure, "N": c.N, "ties": c.ties, "route": c.route, "exact": c.exact,
                     "max_rel_error": c.max_rel_error, "achieved_rel_error": c.achieved_rel_error,
                     "tau": c.tau, "tau_min": c.tau_min, "tau_max": c.tau_max,
                     "undecided_pairs": c.undecided_pairs if bracketed else pd.NA, "stable": stable,
                     "bounds": c.bounds, "caveat": c.caveat, "reason": c.reason})
    return pd.DataFrame(rows)


def system_ranks(means: np.ndarray) -> np.ndarray:
    """Rank of each system, 1 = the highest mean (ties share the best rank)."""
    vals = list(means)
    return np.array([1 + sum(v > x for v in vals) for x in vals])


def top_k_frame(cells: Sequence[Cell], systems: Sequence[str], ks: Sequence[int] = (1, 5, 10)) -> pd.DataFrame:
    """How the ranking of systems changes from M to its interval version, per computed cell: τ, for each k the
    systems of M's top k still in the interval version's top k, the largest rank move and the system making it
    (``moved``: its rank by M → by the interval version; 1 = best)."""
    rows = []
    for c in cells:
        if c.means is None:
            continue
        r0, r1 = system_ranks(c.means), system_ranks(c.unit_means)
        row = {"measure": c.measure, "N": c.N, "ties": c.ties, "tau": c.tau}
        for k in ks:
            row[f"top{k} kept"] = int(np.sum((r0 <= k) & (r1 <= k)))
        move = np.abs(r0 - r1)
        j = int(np.argmax(move))  # the first system in collection order among those moving most
        row.update({"largest move": int(move[j]),
                    "moved": f"{systems[j]}: {r0[j]} → {r1[j]}" if move[j] else ""})
        rows.append(row)
    return pd.DataFrame(rows)


def points_frame(cells: Sequence[Cell]) -> pd.DataFrame:
    """Summary of where the real (system, topic) runs sit on the interval scale, per computed cell: the share at
    the scale's bottom (interval value 0: no relevant document retrieved) and the quantiles of log10 of the
    interval value over the others."""
    rows = []
    for c in cells:
        if c.log10 is None:
            continue
        x = c.log10.ravel()
        pos = x[np.isfinite(x)]
        q = np.quantile(pos, [0.1, 0.5, 0.9]) if pos.size else [math.nan] * 3
        rows.append({"measure": c.measure, "N": c.N, "ties": c.ties, "runs": x.size,
                     "at 0": float(np.mean(~np.isfinite(x))), "log10 p10": q[0], "log10 median": q[1],
                     "log10 p90": q[2]})
    return pd.DataFrame(rows)


def judged_frame(judged: dict[int, pd.Series], threshold: float = 0.9) -> pd.DataFrame:
    """Per N: the mean judged@N over systems, the lowest, and how many systems are below ``threshold`` (their
    unjudged documents count as not relevant: TREC-8's pool is 100 deep)."""
    return pd.DataFrame([{"N": N, "mean judged@N": float(j.mean()), "lowest": float(j.min()),
                          "systems below": int((j < threshold).sum()), "systems": len(j), "threshold": threshold}
                         for N, j in sorted(judged.items())])


def tag(Ns: Sequence[int], source: Source, full_systems: int = 129) -> str:
    """File name tag: ``N100_1000_beyond_real`` (``N100_20systems_beyond_real`` on a subset of 20 systems;
    ``beyond_simulated`` when simulated: :func:`irscales.papers.items.figure_route` reads the route from it)."""
    sub = "" if source.systems >= full_systems else f"_{source.systems}systems"
    return f"N{'_'.join(map(str, Ns))}{sub}_{source.kind}"


def findings(t2: pd.DataFrame, label: str, judged: pd.DataFrame | None = None) -> list[str]:
    """Sentences computed from a Table 2 frame (:func:`table2_frame`) and judged@N (:func:`judged_frame`)."""
    out = []
    for r in (judged.itertuples(index=False) if judged is not None else ()):
        out.append(f"judged@{r.N}: {r[1]:.3f} on average, {r[3]} of {r[4]} systems below {r[5]:g} (lowest "
                   f"{r.lowest:.3f}): their unjudged documents count as not relevant.")
    for N, f in t2.groupby("N", sort=True):
        done = f[f["route"] != "none"]
        unq = done[done["ties"] == UNQ]
        none = f[(f["route"] == "none") & (f["ties"] == UNQ)]["measure"].tolist()
        below = unq[unq["tau"] < 1]
        lowest = unq.loc[unq["tau"].idxmin()] if len(unq) else None
        s = (f"N = {N} ({label}): τ with ties unq for {len(unq)} of {f['measure'].nunique()} measures, "
             f"{len(below)} below 1")
        if lowest is not None:
            s += f"; the lowest is {lowest['tau']:.4f} ({lowest['measure']})"
        bracketed = done[done["bounds"] != "none"]
        if len(bracketed):
            stable = bracketed[bracketed["stable"].astype(str) == "True"]
            moving = bracketed[bracketed["stable"].astype(str) != "True"]
            s += (f"; {len(bracketed)} bracketed (achieved relative error of φ up to "
                  f"{bracketed['achieved_rel_error'].max():.3g}, target {bracketed['max_rel_error'].max():.3g}): over "
                  f"every φ inside the brackets τ is one value for {len(stable)} of them")
            if len(moving):
                w = moving.assign(width=moving["tau_max"] - moving["tau_min"]).sort_values("width", kind="stable")
                widest = w.iloc[-1]
                s += (f" and a range for {len(moving)}, at most {widest['width']:.4f} wide ({widest['measure']}: "
                      f"{widest['tau_min']:.4f} to {widest['tau_max']:.4f}, {int(widest['undecided_pairs'])} pairs of "
                      "systems in either order)")
        if none:
            s += f"; no unq route: {', '.join(none)}"
        out.append(s + ".")
    return out
