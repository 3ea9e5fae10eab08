"""The interval-scaled version of a measure on a collection of runs, as a person reads it (issue 28).

FFF21 eq. (2) maps a measure M at run length N onto an interval scale by φ(m) = |{x ∈ M(REL^N) : x ≤ m}|
(ties ``unq``; §7.1.3's ``min``/``max``/``mid`` rank the runs instead of the values). Raw φ runs from 1 to
K — K the number of distinct values of M over all (c+1)^N runs for ``unq``, the number of runs (c+1)^N for
``min``/``max``/``mid`` — and K grows like 2^N, so raw positions are unreadable (4·10^8 at N = 30). The
admissible affine map of an interval scale

    interval = (φ − 1) / (K − 1)                                    (onto [0, 1]; 0 for K = 1)

keeps every meaningful statement (differences, their ratios, means, every t / ANOVA statistic) and makes
the values comparable across N. It is what irscales reports by default, with K beside it; raw φ on request.
Both are exact: φ as integers, the normalised value as a Fraction (floats only for display).

**What the value says** (:func:`scale_over`): the position of the run's value among the values of the measure's
*numerator* over all (c+1)^N runs of length N — 0 the lowest value any run of length N takes, 1 the highest. AP
is ranked by SP (AP × RB), nDCG by DCG, R by the number of relevant documents retrieved: FFF21 §5.2.2 gives
every topic the same scale, whatever its recall base, so that means over topics are meaningful. The recall
base and the ideal ranking do not enter, so a perfect run is 1 only on a topic with at least N relevant
documents: a perfect AP on a topic with few relevant documents sits low on the scale (the README's worked
example). Where the interval scale is an affine image of the measure itself (P and P@k with ties
``unq``, RBP with p = 1/2) :func:`affine_image` says so.

:func:`plan` chooses, for each measure, the scale its interval version comes from (a measure cut at k ranks
takes φ over REL^k; graded measures over the (c+1)^N runs of the qrels' grades) and the route
(:func:`irscales.enumeration.routes.choose_route`: closed form, counting, cached or built scale), refusing
up front a build over the budget without consent; :func:`interval_values` carries it out.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import numpy as np

from irscales import measures as M
from irscales._padding import PAD_LIMIT_ENV, PaddingTooLarge, pad_bytes_limit, size
from irscales.enumeration.bounded import lower_midpoint, reach_within, reachable_error
from irscales.enumeration.counting import dcg_proven_depth  # re-exported: what counted DCG's exactness rests on
from irscales.enumeration.providers import deepest, reach
from irscales.enumeration.routes import OverBudget, Route, choose_route
from irscales.enumeration._runs import numerator
from irscales.enumeration.ties import TIES
from irscales.exact import to_fraction
from irscales.options import UNQ, Settings

__all__ = [
    "IntervalPlan", "IntervalValues", "plan", "interval_values", "scale_over", "OverBudgetError",
    "NoIntervalScaleError",
]

#: What an interval-scaled value is, in every legend (the command line's, the comparison table's): the
#: scale is the same for every topic, so the recall base and the ideal ranking do not enter (FFF21 §5.2.2).
INTERVAL_LEGEND = ("interval: the interval-scaled value (FFF21 eq. 2): the position phi of the run's value on the "
                   "measure's scale over all runs of length N, normalised to [0, 1] by (phi - 1)/(K - 1), 0 the "
                   "lowest value any run of length N takes and 1 the highest. The scale is the same for every topic "
                   "(FFF21: so that means over topics are meaningful): AP is ranked by SP = AP x RB and nDCG by DCG, "
                   "so the recall base and the ideal ranking do not enter, and a perfect run on a topic with fewer "
                   "than N relevant documents is below 1")


class OverBudgetError(ValueError):
    """One or more interval versions need a scale build over the budget; ``builds`` are the estimates
    (with their cheaper options), worded for the API or the command line."""

    def __init__(self, builds: list[OverBudget], cli: bool):
        self.builds = builds
        parts = []
        for e in builds:
            cheaper = "; ".join(e.cheaper(cli=cli))
            parts.append(f"{e.cost}{_free_space(e.cost.directory)}" + (f" (cheaper: {cheaper})" if cheaper else ""))
        consent = "pass --build-scales to build it" if cli else "pass build=True to build it"
        super().__init__("the interval-scaled values need a one-time scale build: " + "; ".join(parts)
                         + f"; {consent}, or use a smaller {'--depth' if cli else 'depth'}")


class NoIntervalScaleError(ValueError):
    """Interval-scaled values were asked (``ranked=True``) for measures that have none at this depth:
    ``missing`` (label, how far its routes reach, the deepest N) have one at a smaller N; ``none`` have no
    interval version at all (no scale over all runs, no counting rule). Worded for the API or, through
    :meth:`message`, for the command line (``optional``: whether leaving out the interval values is an option)."""

    def __init__(self, depth: int, missing: list[tuple[str, str, int | None]], none: list[str],
                 builds: list[OverBudget] | None = None):
        self.depth, self.missing, self.none, self.builds = depth, missing, none, builds or []
        super().__init__(self.message(cli=False, optional=True))

    def message(self, cli: bool, optional: bool) -> str:
        parts = []
        if self.missing:
            reach = "; ".join(f"{lab} ({why})" for lab, why, _ in self.missing)
            deepest = [n for _, _, n in self.missing if n is not None]
            parts.append(f"no interval-scaled values for {reach}"
                         + (f": use depth {min(deepest)} or less" if deepest else ""))
        if self.none:
            them = "it" if len(self.none) == 1 else "them"
            leave = (" or leave out --ranked" if cli else " or pass ranked=False") if optional else ""
            parts.append(f"{', '.join(self.none)} {'has' if len(self.none) == 1 else 'have'} no interval-scaled "
                         f"version (no scale over all runs and no counting rule): drop {them}{leave}")
        if self.builds:
            parts.append(str(OverBudgetError(self.builds, cli)))
        return "; ".join(parts)


def _reach(m: M.Measure, target: M.Measure, n: int, c: int, ties: str, rel_error: float
           ) -> tuple[str, int | None]:
    """How far the routes to ``target``'s scale reach (the engine's scale, φ counted with ``ties`` and with
    the other tie strategies, φ bracketed within ``rel_error``), and the deepest run length that works for ``m``
    (None: ``m`` is cut at k ranks, so a smaller depth does not help)."""
    engine, why_engine = reach("build", target, c, ties)
    counted, why_counted = reach("count", target, c, ties)
    bounded, why_bounded = reach_within(target, c, ties, rel_error)
    exact_n = max(engine, counted)
    deepest_n = max(exact_n, bounded)
    text = (f"deepest N = {exact_n}" + (f" with a scale build: {why_engine}" if engine > counted else
                                        f", counted: {why_counted}")
            + (f"; {counted} counted without one" if 0 < counted < engine else ""))
    if bounded > exact_n:
        text += f"; bracketed to N = {bounded}, not further: {why_bounded}"
    elif n > exact_n:
        text += f"; no bracket beyond: {why_bounded}"
    wider_error = reachable_error(target, n, c, ties)
    if n > max(bounded, exact_n) and math.isfinite(wider_error):
        text += (f"; at N = {n} the proven bracket reaches about {wider_error:g} within its budget: pass "
                 f"max_rel_error={wider_error:g} or more")
    others = [t for t in TIES if t != ties and reach("count", target, c, t)[0] > counted]
    if others:
        further = max(reach("count", target, c, t)[0] for t in others)
        text += f"; ties={' or '.join(repr(t) for t in others)} counted to N = {further}"
    wider = sorted((t for t in TIES if t != ties and reach_within(target, c, t, rel_error)[0] > max(bounded, exact_n)),
                   key=lambda t: t != "mid")  # mid first: the tie strategy between min and max
    if wider:
        text += (f"; ties={' or '.join(repr(t) for t in wider)} bracketed within the target to "
                 f"N = {max(reach_within(target, c, t, rel_error)[0] for t in wider)}")
    if getattr(m, "k", None) is None:
        return text, deepest_n
    return f"over its {n} ranks: {text}; name a cut-off of at most {deepest_n}", None


def scale_over(p: IntervalPlan, measure: M.Measure) -> str:
    """What the interval value of ``measure`` is a position over, in words: the runs of the scale, the
    quantity they are ranked by, and what does not enter (FFF21 §5.2.2: one scale for every topic)."""
    runs = f"all {p.c + 1}^{p.N} {'binary runs' if p.c == 1 else 'runs'} of length {p.N}" \
        + ("" if p.c == 1 else f" over grades 0..{p.c}")
    base = measure.uncut
    num = numerator(p.measure)
    name, divides_by = base.family, base.divides_by  # the measure declares what its numerator is divided by
    if divides_by == "rb":
        return f"{runs} ranked by {num.key} = {name} x RB; recall base not used"
    if divides_by == "rb/N":
        return (f"{runs} ranked by {num.key} = {name} x RB/{p.N}, a factor that changes from topic to topic (no "
                f"copy of {name}); recall base not used")
    if divides_by == "ideal":
        return f"{runs} ranked by {num.key} = {name} x ideal DCG; ideal ranking not used"
    return runs if num == p.measure else f"{runs} ranked by {num.key}"


def bracket_words(p: IntervalPlan, achieved: float = 0.0) -> str:
    """'' for exact values; for a route that brackets φ, what its values are, in every legend (the command line's,
    the report's, the LaTeX caption): ``bracketed within a proven 1 % (not exact)`` — the larger of the target and
    the ``achieved`` relative error e, from e = 1 on as the factor ``a proven factor 2`` (upper ≤ 2 × lower, issue
    51); without "proven" where the bracket's count rests on a conjecture (the route's caveat says which)."""
    if p.exact:
        return ""
    e = max(p.max_rel_error, achieved)
    within = f"{e * 100:.3g} %" if e < 1 else f"factor {1 + e:.3g}"
    return f"bracketed within {'a proven ' if p.route.proven else ''}{within} (not exact)"


def affine_image(p: IntervalPlan, measure: M.Measure) -> str:
    """'' or why the interval value is an affine image of the measure's own value at this N (the interval
    column then repeats the measure up to a constant factor): P over its k ranks with ties ``unq`` (φ − 1
    relevant documents, K = k + 1: the value itself), RBP with p = 1/2 (no two runs tie, φ − 1 is the
    run read as a binary number: 2^N/(2^N − 1) times RBP) and, with ties ``unq``, any measure of two values over
    the runs that is its own numerator (K = 2: Succ, whose interval value is itself; not AP at N = 1, whose value
    divides by the recall base). R is not one: its interval value is P at N, R
    times RB/N, a factor that changes from topic to topic."""
    if type(p.measure) is M.P and type(measure) is M.P and p.ties == UNQ and p.c == 1:
        return f"= {p.label}: P is already an interval scale at this N"
    if type(p.measure) is M.RBP and type(measure) is M.RBP and to_fraction(measure.p) == Fraction(1, 2) \
            and p.c == 1:
        return f"= {p.label} x 2^{p.N}/(2^{p.N} - 1): RBP with p = 1/2 is already an interval scale"
    if p.ties == UNQ and p.K == 2 and numerator(p.measure) == p.measure:  # Succ: (φ − 1)/(K − 1) maps 0, 1 to 0, 1
        return f"= {p.label} rescaled onto 0, 1: a scale of two values is already an interval scale"
    return ""


@dataclass(frozen=True, kw_only=True)
class IntervalPlan:
    """How the interval version of one measure is obtained: its scale's ``measure`` at run length ``N``
    over grades 0..``c``, the ``route`` (closed / count / cached / build), the tie strategy, K (the
    size of φ's range, :meth:`Route.K`) and ``caveat`` (what the exactness rests on, when it is not a proof:
    the route's ``basis``). ``exact`` and ``max_rel_error`` are the route's (0 when exact; else the target of
    its bracket)."""

    label: str
    measure: M.Measure
    N: int
    c: int
    ties: str
    route: Route
    K: int
    caveat: str = ""

    @property
    def kind(self) -> str:
        return self.route.kind

    @property
    def exact(self) -> bool:
        """Whether φ is computed (True) or bracketed within :attr:`max_rel_error`."""
        return self.route.exact

    @property
    def max_rel_error(self) -> float:
        return self.route.max_rel_error

    @property
    def basis(self) -> str:
        """What the exactness of the route rests on (a proof, an enumeration up to some N, a conjecture)."""
        return self.route.basis


@dataclass(frozen=True, kw_only=True)
class IntervalValues:
    """φ of every (topic, system) and its normalisation, exact; ``phi`` and ``unit`` are (T, S) object
    arrays of Python ints / Fractions (``mid``: halves). On a route that brackets φ, ``phi_lo`` ≤ φ ≤ ``phi_hi``
    are the proven bounds, ``phi`` the lower midpoint of each bracket
    (:func:`irscales.enumeration.bounded.lower_midpoint`) and ``max_rel_error`` the largest hi/lo − 1 over the
    values (≥ |phi − φ|/φ); on an exact route ``phi_lo`` and ``phi_hi`` are ``phi`` and ``max_rel_error`` is 0.
    ``wide``: how many values are bracketed wider than the plan's target."""

    plan: IntervalPlan
    phi: np.ndarray
    unit: np.ndarray
    phi_lo: np.ndarray | None = None
    phi_hi: np.ndarray | None = None
    max_rel_error: float = 0.0
    wide: int = 0

    def unit_float(self) -> np.ndarray:
        """The normalised values as floats, each the nearest double (for display and plots)."""
        return np.vectorize(float, otypes=[float])(self.unit) if self.unit.size else np.zeros(self.unit.shape)


def uses_grades(m: M.Measure) -> bool:
    """Whether a measure reads grades (its interval version is over the qrels' graded runs)."""
    return m.reads_grades


def scale_target(m: M.Measure, depth: int) -> tuple[M.Measure, int]:
    """The measure and run length whose scale gives ``m``'s interval version: a measure named with a cut-off k
    is taken at N = k whatever ``depth`` (issue 48; it takes the same distinct values over REL^N, N ≥ k, as the
    uncut one over REL^k, so φ is the same); any other at N = ``depth``."""
    if m.uncut is not m:  # a Cut, or P@k: the whole-run measure over its k ranks
        return m.uncut, m.k
    return m, depth


def plan(specs: Sequence[tuple[str, M.Measure]], depth: int, settings: Settings, *, grades: int | None,
         require: bool = False, cli: bool = False, bounded: bool = False
         ) -> tuple[dict[str, IntervalPlan | None], list[str]]:
    """For each (label, measure): its :class:`IntervalPlan`, or None with a note saying why (the second
    value: the notes). ``depth``: the run length of the measures named without a cut-off (:func:`scale_target`);
    ``settings``: the tie rule, cache, consent to a build and ``max_rel_error`` (checked where they were given,
    :class:`irscales.options.Settings`). ``grades``: the collection's largest grade c (graded measures are scaled
    over the
    (c+1)^N runs of grades 0..c; binary ones over 2^N); None before the qrels are read (graded measures
    are then left out silently, to be planned later). Builds over the budget without ``build`` are
    refused together, up front (:class:`OverBudgetError`); ``require``: a missing version is an error, for every
    such measure at once (:class:`NoIntervalScaleError`, which names the over-budget builds too, and, where a
    build is the only exact route and no bracket reaches, why not). ``bounded``: whether a route that brackets φ
    may serve (``evaluate`` and the CLI: yes; a table that states exact values: no, the default), within
    ``max_rel_error`` (:func:`~irscales.enumeration.routes.choose_route`)."""
    ties, cache, build = settings.ties, settings.cache, settings.build
    out: dict[str, IntervalPlan | None] = {}
    notes, over = [], []
    missing: list[tuple[str, str, int | None]] = []
    none: list[str] = []
    for label, m in specs:
        graded = uses_grades(m)
        target, n = scale_target(m, depth)
        if graded and grades is None:  # planned once the qrels are read, unless no grades would give it a scale
            if require and not any(deepest(target, c) for c in (1, 2)):
                none.append(label)
            continue
        c = max(1, grades) if graded else 1
        try:
            route = choose_route(target, n, c=c, ties=ties, cache=cache, build=build,
                                 max_rel_error=settings.max_rel_error, method="auto" if bounded else "exact")
        except OverBudget as e:
            over.append(e)
            out[label] = None
            if require and bounded and reach_within(target, c, ties, settings.max_rel_error)[0] < n:
                missing.append((label, *_reach(m, target, n, c, ties, settings.max_rel_error)))  # why no bracket
            continue
        except NotImplementedError as e:  # no kernel and no counting rule: no interval version at any N
            notes.append(f"no interval-scaled {label} at N = {n}: {e}")
            none.append(label)
            out[label] = None
            continue
        except ValueError as e:  # the planner's reason: how far each route reaches
            notes.append(f"no interval-scaled {label} at N = {n}: {e}")
            missing.append((label, *_reach(m, target, n, c, ties, settings.max_rel_error)))
            out[label] = None
            continue
        out[label] = IntervalPlan(label=label, measure=target, N=n, c=c, ties=ties, route=route, K=route.K(ties),
                                  caveat="" if route.proven else route.basis)
    if require and (missing or none):
        raise NoIntervalScaleError(depth, missing, none, over)
    if over:
        raise OverBudgetError(over, cli)
    return out, notes


def normalised(phi: np.ndarray, K: int) -> np.ndarray:
    """(φ − 1)/(K − 1) as exact Fractions (object array; 0 when K = 1)."""
    phi = np.asarray(phi)
    if K <= 1:
        return np.full(phi.shape, Fraction(0), dtype=object)
    return np.vectorize(lambda x: (Fraction(x) - 1) / (K - 1), otypes=[object])(phi)


def scaled_runs(p: IntervalPlan, collection) -> np.ndarray:
    """The runs (S, T, ≤ N) of ``collection`` that ``p``'s scale ranks: binary (lenient) for a binary scale, else
    the grades; the first ``p.N`` ranks, N the plan's (a measure cut at k ranks is ranked over REL^k). Only the
    stored ranks: the rest is padding, which ``p.route`` adds where it must (at N = 10^6 the padded runs of a
    TREC track would be 6 GB)."""
    return collection.binary(p.N, pad=False) if p.c == 1 else collection.rel_at(p.N, pad=False)


def interval_values(p: IntervalPlan, collection, progress: bool | None = None) -> IntervalValues:
    """φ and (φ − 1)/(K − 1) of the runs of ``collection`` at the plan's N (graded runs when ``p.c`` > 1), as
    (T, S) matrices, exact. Refused before any work when those exact numbers would exceed the memory limit of
    :mod:`irscales._padding` (φ of RBP_p05 at N = 10^6 has 10^6 bits a run)."""
    runs = len(collection.systems) * len(collection.topics)
    need = 4 * runs * (-(-int(p.K).bit_length() // 8) + 32)  # φ, its Fraction's two terms, a temporary
    if need > pad_bytes_limit():
        raise PaddingTooLarge(
            f"the interval-scaled values of {p.measure.key} at N = {p.N:,} are exact numbers of up to "
            f"{int(p.K).bit_length():,} bits: {runs:,} runs (system x topic) need about {size(need)}, over "
            f"the limit of {size(pad_bytes_limit())} ({PAD_LIMIT_ENV}); use a smaller depth, or its plain "
            "values only")
    runs_ = scaled_runs(p, collection)
    if p.exact:
        exact = _exact_numbers(p.route.phi_runs(runs_, p.ties, progress=progress)).T
        return IntervalValues(plan=p, phi=exact, unit=normalised(exact, p.K), phi_lo=exact, phi_hi=exact)
    lo, hi = (_exact_numbers(x).T for x in p.route.phi_bounds(runs_, p.ties, progress=progress))
    phi = np.frompyfunc(lower_midpoint, 2, 1)(lo, hi).astype(object) if lo.size else lo
    widths = [Fraction(b) / Fraction(a) - 1 for a, b in zip(lo.ravel(), hi.ravel())]
    target = to_fraction(p.max_rel_error)  # the one reading: 0.01 is 1/100
    return IntervalValues(plan=p, phi=phi, unit=normalised(phi, p.K), phi_lo=lo, phi_hi=hi,
                          max_rel_error=float(max(widths, default=0)),
                          wide=sum(w > target for w in widths))


def _exact_numbers(phi) -> np.ndarray:
    """φ as an object array of Python ints, or Fractions for halves (float64 halves are exact below 2^53:
    :mod:`irscales.enumeration.ties`)."""
    phi = np.asarray(phi)
    if phi.dtype.kind == "f":
        return np.vectorize(Fraction, otypes=[object])(phi)
    exact = phi.astype(object) if phi.dtype != object else phi
    return np.vectorize(lambda x: x if isinstance(x, Fraction) else int(x), otypes=[object])(exact)


def _free_space(directory: Path | None) -> str:
    """' (N GB free there)' for the nearest existing parent of ``directory``."""
    d = directory
    while d is not None and not d.exists() and d != d.parent:
        d = d.parent
    if d is None:
        return ""
    try:
        return f" ({shutil.disk_usage(d).free / 1e9:.1f} GB free there)"
    except OSError:
        return ""
