"""Graded measures and their interval-scaled versions on real runs (issue 30), in the form FFF21's
table functions take (:class:`irscales.papers.fff21.ranked.RankedScores`).

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

φ, K and the route come from :func:`irscales.interval.plan` and :func:`irscales.interval.interval_values`
— exactly what ``irscales.evaluate(..., ranked=True, ties=..., phi=True)`` returns (tested), through the
adapter FFF21's tables share (:func:`irscales.papers.fff21.ranked.interval_phis`) — one plan per measure and
tie strategy, so a measure whose scale is out of reach at N is left out with the planner's reason
instead of stopping the others. Builds over the budget are refused unless ``build=True``.

Exactness (the route's ``grounds`` and ``basis``, :class:`irscales.enumeration.routes.Route`): every φ is exact; what that rests on is stated per cell — a
proof (closed forms; RBP and gRBP: no ties, or p = 1/b), an enumeration of all runs, or, for counted DCG beyond
the depth an enumeration checked, the assumption of no Q-linear relation among the 1/ln m (Schanuel's
conjecture; :func:`irscales.interval.dcg_proven_depth`). The original scores are exact too: Fractions for
the rational measures, and for nDCG integer vectors over the logarithms
(:class:`irscales.enumeration._dcg.ExactDCG`), so system means and τ are exact. The significance tests
take Fractions for the rational measures (nDCG too while N ≤ its log base); beyond it nDCG is
irrational and they take floats snapped to one per exact value
(:func:`irscales.papers.fff21.ranked.snapped_by_phi`: equal values equal, order exact), as FFF21's own
tables do — only the magnitudes of differences the signed-rank test ranks are then floats, tied by
MATLAB's rule (``float_scores`` names those measures).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from irscales import measures as M
from irscales.data import Collection
from irscales.enumeration.ties import TIES
from irscales.options import UNQ, Settings
from irscales.interval import OverBudgetError, plan, uses_grades
from irscales.papers.fff21.ranked import RankedScores, exact_scores, interval_phis

__all__ = ["GRADED", "BINARY", "COUNTERPART", "ORDER", "RECALL_BASED", "graded_measures", "measures", "GradedScores",
           "graded_ranked_scores", "EXACT_KINDS"]

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


#: The graded measures over grades 0..c (gains = grades; gP and gRBP normalised by the top grade c), and gDCG,
#: the scale of gnDCG (FFF21 §5.2.2): the one set every graded table, figure and curve of the papers takes.
_GRADED_MEASURES = {
    "gP": lambda c: M.GP(max_gain=c), "gRBP_p05": lambda c: M.GRBP(p=0.5, max_gain=c),
    "gRBP_p08": lambda c: M.GRBP(p=0.8, max_gain=c), "gnDCG_b02": lambda c: M.NDCG(base=2, gains="graded"),
    "gnDCG_b10": lambda c: M.NDCG(base=10, gains="graded"), "gDCG_b02": lambda c: M.DCG(base=2, gains="graded"),
    "gDCG_b10": lambda c: M.DCG(base=10, gains="graded")}


def graded_measures(c: int, names: Sequence[str] = GRADED) -> dict[str, M.Measure]:
    """The graded measures ``names`` (:data:`GRADED`, or the scales gDCG_b02 / gDCG_b10) for grades 0..c, in
    the order given."""
    unknown = [n for n in names if n not in _GRADED_MEASURES]
    if unknown:
        raise ValueError(f"unknown graded measure(s) {unknown}; choose from {list(_GRADED_MEASURES)}")
    return {n: _GRADED_MEASURES[n](c) for n in names}


def measures(c: int) -> dict[str, M.Measure]:
    """The measures of :data:`ORDER` for grades 0..c: :func:`graded_measures` and their binary counterparts."""
    both = {**graded_measures(c), **{k: M.parse(k) for k in BINARY}}
    return {k: both[k] for k in ORDER}


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
    ties = tuple(dict.fromkeys((UNQ, *ties)))
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
                found, notes = plan([(name, m)], N, Settings(ties=t, cache=cache, build=build), grades=c)
                p = found[name]
            except OverBudgetError as e:
                p, notes = None, [str(e)]
            if p is None:
                rows.append({**row, "exact": "not computed", "basis": notes[0] if notes else "no route"})
                continue
            rows.append({**row, "K": p.K, "route": p.kind, "exact": p.route.grounds, "basis": p.route.basis})
            plans[t] = p
        if set(plans) != set(ties):
            continue  # FFF21's tables need every tie strategy of a measure; the exactness rows say why not
        phis = interval_phis(plans, collection)
        for t in ties:
            ranked[t][name] = phis[t]
        # irrational nDCG: one float per exact value (ties and order exact; differences are floats)
        original[name], ex, snapped = exact_scores(m, collection, N, phis[UNQ], f"{track}_{N:02d} {name}")
        if ex is not None:
            exact[name] = ex
        if snapped:
            floats.add(name)
    rs = RankedScores(track=track, N=int(N), simulated=False, systems=collection.systems, topics=collection.topics,
                      original=original, ranked=ranked, min_rb=int(collection.rb.min(initial=0)), exact=exact)
    table = pd.DataFrame(rows)
    table["K"] = pd.array([r["K"] for r in rows], dtype=object)  # exact ints (3^30 and beyond), None if none
    return GradedScores(rs, table, c, frozenset(floats))
