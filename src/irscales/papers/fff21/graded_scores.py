"""Graded measures and their interval-scaled versions on real runs (issue 30), in the form FFF21's
table functions take (:class:`irscales.enumeration.ranked.RankedScores`).

FFF21 §6 binarises graded judgments (lenient: grade > 0 is relevant) and ranks each binary measure
over the 2^N binary runs. Here every graded measure M over grades 0..c (gains = grades) is ranked over
all (c+1)^N graded runs, φ(M(r)) = |{x ∈ M(REL_c^N) : x ≤ M(r)}| (FFF21 eq. 2; ``min``/``max``/``mid``
rank the runs, §7.1.3), and its binary (lenient) counterpart beside it over the 2^N binary runs, so the
effect of the grades is visible:

=============  =======================  ==========================================
graded         binary counterpart       φ of the graded measure, three grades
=============  =======================  ==========================================
gP             P                        closed form (grade sums), any N
gRBP_p05       RBP_p05                  ties (p = 1/2, b = 2 ≤ c), yet every key a value: counted, any N
gRBP_p08       RBP_p08                  counted, no ties (b = 5 > c), N ≤ 32
gnDCG_b02      nDCG_b02                 counted by class coefficients, N ≤ 34
gnDCG_b10      nDCG_b10                 counted by class coefficients, N ≤ 39
=============  =======================  ==========================================

φ comes from :func:`irscales.interval.plan` and :func:`irscales.interval.interval_values` — exactly what
``irscales.evaluate(..., ranked=True, ties=..., phi=True)`` returns (tested) — one plan per measure and
tie strategy, so a measure whose scale is out of reach at N is left out with the planner's reason
instead of stopping the others. Builds over the budget are refused unless ``build=True``.

Exactness (:func:`exactness_basis`): every φ is exact; what that rests on is stated per cell — a
proof (closed forms; RBP and gRBP: no ties, or p = 1/b), an enumeration of all runs, or, for counted DCG beyond
the depth an enumeration checked, the assumption of no Q-linear relation among the 1/ln m (Schanuel's
conjecture; :func:`irscales.interval.dcg_proven_depth`). The original scores are exact too: Fractions for
the rational measures, and for nDCG integer vectors over the logarithms
(:class:`irscales.enumeration.dcg.ExactDCG`), so system means and τ are exact. The significance tests
take Fractions for the rational measures (nDCG too while N ≤ its log base); beyond it nDCG is
irrational and they take floats snapped to one per exact value
(:func:`irscales.enumeration.ranked.snapped_by_phi`: equal values equal, order exact), as FFF21's own
tables do — only the magnitudes of differences the signed-rank test ranks are then floats, tied by
MATLAB's rule (``float_scores`` names those measures).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
import pandas as pd

from irscales import measures as M
from irscales.data import Collection
from irscales.enumeration.counting import graded_rbp_tie
from irscales.enumeration.dcg import exact_dcg
from irscales.enumeration.ranked import RankedScores, snapped_by_phi
from irscales.enumeration.ties import TIES
from irscales.interval import (IntervalPlan, OverBudgetError, dcg_proven_depth, interval_values, plan, scaled_runs,
                               uses_grades)

__all__ = ["GRADED", "BINARY", "COUNTERPART", "ORDER", "RECALL_BASED", "measures", "GradedScores",
           "graded_ranked_scores", "exactness_basis", "EXACT_KINDS"]

#: The graded measures (gains = grades) and their binary (lenient) counterparts, pair by pair.
GRADED = ("gP", "gRBP_p05", "gRBP_p08", "gnDCG_b02", "gnDCG_b10")
BINARY = ("P", "RBP_p05", "RBP_p08", "nDCG_b02", "nDCG_b10")
COUNTERPART = dict(zip(GRADED, BINARY))
#: Column order of the tables: each graded measure, then its binary counterpart.
ORDER = tuple(x for pair in zip(GRADED, BINARY) for x in pair)
#: Measures that depend on the recall base (FFF21 Table 6; the others are Table 5's).
RECALL_BASED = ("gnDCG_b02", "gnDCG_b10", "nDCG_b02", "nDCG_b10")
#: What an exact φ rests on, from the strongest: a proof, an enumeration of all runs, a conjecture.
EXACT_KINDS = ("proof", "enumeration", "conditional")


def measures(c: int) -> dict[str, M.Measure]:
    """The measures of :data:`ORDER` for grades 0..c (graded ones normalised by the top grade c)."""
    graded = {"gP": M.GP(max_gain=c), "gRBP_p05": M.GRBP(p=0.5, max_gain=c), "gRBP_p08": M.GRBP(p=0.8, max_gain=c),
              "gnDCG_b02": M.NDCG(base=2, gains="graded"), "gnDCG_b10": M.NDCG(base=10, gains="graded")}
    binary = {k: M.parse(k) for k in BINARY}
    both = {**graded, **binary}
    return {k: both[k] for k in ORDER}


def exactness_basis(m: M.Measure, N: int, c: int, kind: str, caveat: str) -> tuple[str, str]:
    """(kind, basis) of an exact φ of ``m`` at run length N over grades 0..c reached by route ``kind``
    (``closed``, ``count``, ``cached``, ``build``) with the planner's ``caveat``: kind is one of
    :data:`EXACT_KINDS`, basis says why in words."""
    if caveat:
        return "conditional", caveat
    if kind in ("cached", "build"):
        return "enumeration", f"enumerated: all {(c + 1) ** N:,} runs of length {N} over {c + 1} grades"
    if kind == "closed":
        return "proof", "closed-form scale"
    if isinstance(m, M.DCG) and N <= m.base:
        return "proof", "counted; every rank up to the log base weighs 1 (a sum of gains)"
    if isinstance(m, M.DCG):
        return "enumeration", (f"counted; no tie across discount classes among all {(c + 1) ** N:,} runs, checked "
                               f"by enumeration up to N = {dcg_proven_depth(m, c)}")
    if isinstance(m, M.GRBP) and graded_rbp_tie(m.p, c) is not None:
        return "proof", "counted; ties, every integer key a value, carries (proof in irscales.enumeration.digit_sums)"
    if isinstance(m, (M.GRBP, M.RBP)):
        return "proof", "counted; no ties (proof in irscales.enumeration.counting)"
    return "proof", "counted; closed form"


@dataclass(frozen=True)
class GradedScores:
    """The measures and their interval-scaled versions on one (data set, N): ``scores`` (FFF21's
    :class:`RankedScores`: the measures whose φ exists for every tie strategy asked, ``ranked[ties]``
    holding φ) and ``exactness``, one row per (measure, ties): ``K``, ``route``, ``exact`` (a kind of
    :data:`EXACT_KINDS`, or ``not computed``) and ``basis`` (why, or the planner's reason)."""

    scores: RankedScores
    exactness: pd.DataFrame
    grades: int
    float_scores: frozenset = frozenset()  # measures whose original scores are floats (irrational nDCG)

    @property
    def row(self) -> str:
        return self.scores.row


def _exact_phi(phi: np.ndarray, ties: str) -> np.ndarray:
    """φ of :func:`interval_values` (Python ints, halves for ``mid``) as FFF21's tables hold it
    (:class:`~irscales.enumeration.ranked.RankedScores`): int64, or float64 halves for ``mid``, when every 2φ
    is below 2^53 (exact); else the exact Python ints and Fractions in an object array."""
    flat = phi.ravel().tolist()
    if 2 * max((abs(x) for x in flat), default=0) >= 2**53:
        return np.array([Fraction(x) if ties == "mid" else int(x) for x in flat] + [None], dtype=object)[:-1] \
            .reshape(phi.shape)
    if ties == "mid":
        return np.array([float(Fraction(x)) for x in flat]).reshape(phi.shape)
    return np.array([int(x) for x in flat], dtype=np.int64).reshape(phi.shape)


def _phis(plans: dict[str, IntervalPlan], collection: Collection, N: int) -> dict[str, np.ndarray]:
    """tie → exact φ (T, S) of the plans of one measure: :func:`interval_values` (what ``evaluate`` returns),
    with the counted tie strategies taken from one count (:meth:`Route.phi_runs_ties`, the same values)."""
    counted = [t for t, p in plans.items() if p.kind == "count"]
    out = {}
    if counted:
        p = plans[counted[0]]
        shared = p.route.phi_runs_ties(scaled_runs(p, collection, N), counted)
        out = {t: _exact_phi(np.asarray(shared[t]).T, t) for t in counted}
    for t, p in plans.items():
        if t not in out:
            out[t] = _exact_phi(interval_values(p, collection, N).phi, t)
    return out


def _small_ndcg(m: M.NDCG, collection: Collection, N: int, floats: np.ndarray, ideal) -> np.ndarray:
    """nDCG at N ≤ its log base as Fractions (T, S): every discount is 1, so DCG is the sum of the gains and
    the ideal DCG that of the ideal run (graded) or min(RB, N) (binary); checked against ``floats``."""
    gains = collection.rel_at(N).astype(np.int64) if m.gains == "graded" else collection.binary(N).astype(np.int64)
    num = gains.sum(axis=-1).T  # (T, S)
    den = (np.asarray(ideal, dtype=np.int64)[:, :N].sum(axis=1) if ideal is not None
           else np.minimum(collection.rb, N)).astype(np.int64)
    out = np.array([[Fraction(int(a), int(d)) if d else Fraction(0) for a in row] for row, d in zip(num, den)],
                   dtype=object)
    if np.abs(np.vectorize(float, otypes=[float])(out) - floats).max(initial=0) > 1e-12:
        raise ArithmeticError(f"{m.key} at N = {N}: the exact form disagrees with the measure's floats")
    return out


def graded_ranked_scores(collection: Collection, N: int, track: str, *, names: Sequence[str] = ORDER,
                         ties: Sequence[str] = TIES, build: bool = False, cache: bool = True) -> GradedScores:
    """The measures ``names`` (of :data:`ORDER`) and their interval-scaled versions on ``collection`` cut
    at N, for the tie strategies ``ties`` (``unq`` is always computed: it tells exact nDCG ties), with
    the row label ``<track>_<N>`` of FFF21's tables (module docstring)."""
    if collection.is_simulated:
        raise ValueError("graded_ranked_scores is for real runs; simulated collections have their own tables")
    c = int(collection.max_grade)
    if c < 1:
        raise ValueError(f"{collection.provenance}: no relevant grade in the qrels")
    ties = tuple(dict.fromkeys(("unq", *ties)))
    ms = measures(c)
    unknown = [n for n in names if n not in ms]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}; choose from {list(ORDER)}")
    original, ranked, exact, rows, floats = {}, {t: {} for t in ties}, {}, [], set()
    for name in names:
        m = ms[name]
        grades = c if uses_grades(m) else 1
        plans = {}
        for t in ties:
            row = {"measure": name, "N": N, "grades": grades + 1, "ties": t, "K": None, "route": "none"}
            try:
                found, notes = plan([(name, m)], N, grades=c, ties=t, cache=cache, build=build)
                p = found[name]
            except OverBudgetError as e:
                p, notes = None, [str(e)]
            if p is None:
                rows.append({**row, "exact": "not computed", "basis": notes[0] if notes else "no route"})
                continue
            kind, basis = exactness_basis(p.measure, p.N, p.c, p.kind, p.caveat)
            rows.append({**row, "K": p.K, "route": p.kind, "exact": kind, "basis": basis})
            plans[t] = p
        phis = _phis(plans, collection, N)
        if set(phis) != set(ties):
            continue  # FFF21's tables need every tie strategy of a measure; the exactness rows say why not
        for t in ties:
            ranked[t][name] = phis[t]
        if m.rational:
            original[name] = collection.evaluate(m, N, exact=True)
            continue
        vals = np.asarray(collection.evaluate(m, N), dtype=float)  # (T, S)
        ideal = collection.ideal(N) if m.gains == "graded" else None
        exact[name] = exact_dcg(m, collection.rel_at(N), collection.rb, N, vals, ideal=ideal)
        if N <= m.base:  # every rank weighs 1: nDCG = (sum of gains) / (ideal sum), rational
            original[name] = _small_ndcg(m, collection, N, vals, ideal)
        else:  # irrational: one float per exact value (ties and order exact; differences are floats)
            original[name] = snapped_by_phi(vals, phis["unq"], f"{track}_{N:02d} {name}", collection.topics)
            floats.add(name)
    rs = RankedScores(track=track, N=int(N), simulated=False, systems=collection.systems, topics=collection.topics,
                      original=original, ranked=ranked, min_rb=int(collection.rb.min(initial=0)), exact=exact)
    table = pd.DataFrame(rows)
    table["K"] = pd.array([r["K"] for r in rows], dtype=object)  # exact ints (3^30 and beyond), None if none
    return GradedScores(rs, table, c, frozenset(floats))
