"""Machine checks of scale properties of a measure over a whole run space.

Three checkers, each returning a :class:`ScaleCheck` (verdict, violation rate, smallest
counterexample):

:func:`check_ordinal`
    Is M an ordinal scale for an order ⪯ on runs (a homomorphism of the order)? FFP19 §4.2:
    r̂ ⪯ ŝ ⇔ M(r̂) ≤ M(ŝ). We check the part that makes sense for partial orders too:
    r̂ ≺ ŝ ⇒ M(r̂) < M(ŝ) (``strict=False``: ⇒ M(r̂) ≤ M(ŝ)), and equivalent runs (a preorder,
    e.g. the set-based order on ordered runs) must get equal values. For a total order this is
    exactly FFP19's ⇔. Checked pairs: every strictly comparable (or equivalent) pair.
:func:`check_interval`
    Is M an interval scale, i.e. M = aρ + b with a > 0, ρ the rank function of the order
    (FFP19 §2, steps 5–6)? On a connected graded poset this holds iff every cover r̂ ⋖ ŝ has the
    same positive step M(ŝ) − M(r̂). Checked pairs: unordered pairs of covers (intervals of
    natural length 1, which Theorem 1 says must get equal differences).
:func:`check_interval_like`
    FFP17 §3.2: for all pairs of intervals [r̂, ŝ], [û, v̂] of the weak top-heaviness order with
    Δ_ŝr̂ ⪯_d Δ_v̂û (Def. 2/3), M(ŝ) − M(r̂) ≤ M(v̂) − M(û). ``equal_mass=True`` keeps only
    intervals whose endpoints have the same number of relevant documents (FFP17's conclusion).
    Checked pairs: ordered pairs of distinct intervals with comparable Δ.

Exactness. Ties decide these verdicts, so values are compared exactly whenever possible:
rational measures (``Measure.exact``, Fractions or integers passed in) are put on a common
denominator and compared as integers. Irrational measures (DCG, nDCG) are compared as floats with
the tolerance :data:`FLOAT_TIE`: two differences within it are a tie. That this decides exactly
is proved for DCG in ``tests/test_scales.py`` (every integer combination of the DCG weights that
can occur for N ≤ 8, c ≤ 2 is either exactly 0 or farther than 1e-6 from 0).

Violation rate = violations / checked pairs. Smallest counterexample: ordinal — the violating
pair of runs closest in ρ (then lowest run indices); interval — the lowest cover (by ρ of its
bottom) and the lowest cover whose step differs from it; interval-like — the violating pair of
intervals with the smallest total natural length Δ[N]. Across N, :func:`first_failure` takes the
smallest N.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from irscales.measures import Measure
from irscales.theory.orders import RunOrder, WeakTopHeaviness, NotGradedError, _as_runs

__all__ = [
    "FLOAT_TIE", "MeasureValues", "ScaleCheck", "measure_values", "check_ordinal", "check_interval",
    "check_interval_like", "first_failure", "intervals", "checks_frame", "p_threshold", "poly_root",
    "grbp_difference_poly", "poly_str", "contribution_terms", "terms_str", "Case", "ffp19_cases",
    "run_case", "ffp19_summary", "interval_like_rates", "rbp_interval_like_threshold",
    "relation_str", "vec_str", "min_gain_gap", "ffp19_section5", "ffp19_reproduced", "interval_agrees",
    "mass_gap_triples", "save_figure", "plot_vs_rank", "plot_interval_like_rates",
]

MeasureLike = Measure | Callable[[np.ndarray], np.ndarray] | np.ndarray
"""A measure object, a callable ``runs -> values``, or precomputed values (one per run)."""

FLOAT_TIE = 1e-9
"""Float differences of irrational measures closer than this are ties (see module docstring)."""


# ------------------------------------------------------------------------------ exact values


@dataclass(frozen=True)
class MeasureValues:
    """Values of a measure on a run space, as comparison keys.

    ``keys`` are integers (int64, or Python ints in an object array when they are huge) equal to
    value × ``denominator`` when ``exact``; otherwise floats compared with tolerance ``tol``.
    """

    label: str
    keys: np.ndarray
    exact: bool
    denominator: int = 1
    tol: float = 0.0

    def value(self, i: int) -> Fraction | float:
        k = self.keys[i]
        return Fraction(int(k), self.denominator) if self.exact else float(k)


def _to_keys(vals: np.ndarray, label: str) -> MeasureValues:
    if vals.dtype.kind in "iu":
        return MeasureValues(label, vals.astype(np.int64), True)
    if vals.dtype == object:
        fr = [Fraction(v) if isinstance(v, (int, Fraction, np.integer)) else None for v in vals.tolist()]
        if any(f is None for f in fr):
            bad = next(v for v, f in zip(vals.tolist(), fr) if f is None)
            raise TypeError(f"{label}: exact values must be ints or Fractions, found {type(bad).__name__}")
        den = math.lcm(*(f.denominator for f in fr)) if fr else 1
        ints = [f.numerator * (den // f.denominator) for f in fr]
        big = max((abs(x) for x in ints), default=0)
        # differences of differences need 4x headroom in int64
        keys = np.array(ints, dtype=np.int64) if big < 2**60 else np.array(ints, dtype=object)
        return MeasureValues(label, keys, True, den)
    if vals.dtype.kind == "f":
        if not np.all(np.isfinite(vals)):
            raise ValueError(f"{label}: values contain NaN or infinity")
        return MeasureValues(label, vals.astype(float), False, 1, FLOAT_TIE)
    raise TypeError(f"{label}: cannot compare values of dtype {vals.dtype}")


def measure_values(measure: MeasureLike, runs: np.ndarray, *, rb=None, label: str | None = None) -> MeasureValues:
    """Values of ``measure`` on ``runs`` (shape (n, N)) as exact comparison keys when possible.

    ``measure`` is an :class:`irscales.measures.Measure` (exact path if it is rational), a
    callable ``runs -> values``, or an array of precomputed values aligned with ``runs``.
    """
    runs = np.asarray(runs)
    if isinstance(measure, (str, bytes)):
        raise TypeError(f"pass a measure object (e.g. irscales.measures.parse({measure!r})), not a string")
    if isinstance(measure, Measure):
        lab = label or measure.key
        if measure.rational:
            kw = {"rb": rb} if measure.needs_rb else {}
            return _to_keys(np.asarray(measure.exact(runs, **kw), dtype=object).reshape(-1), lab)
        vals = measure(runs, rb=rb) if measure.needs_rb else measure(runs)
        return _to_keys(np.asarray(vals, dtype=float).reshape(-1), lab)
    if callable(measure):
        lab = label or getattr(measure, "__name__", "measure")
        vals = np.asarray(measure(runs))
    else:
        lab = label or "values"
        vals = np.asarray(measure)
    if vals.shape != (runs.shape[0],):
        raise ValueError(f"{lab}: expected one value per run, shape ({runs.shape[0]},), got {vals.shape}")
    return _to_keys(vals, lab)


# ----------------------------------------------------------------------------------- results


@dataclass
class ScaleCheck:
    """The outcome of one check on one run space."""

    prop: str  # "ordinal" | "interval" | "interval-like" (+ restriction)
    measure: str
    order: str
    N: int
    holds: bool
    n_checked: int
    n_violations: int
    exact: bool
    counterexample: dict | None = None
    details: dict = field(default_factory=dict)

    @property
    def violation_rate(self) -> float:
        return self.n_violations / self.n_checked if self.n_checked else 0.0

    def row(self) -> dict:
        return {
            "property": self.prop, "measure": self.measure, "order": self.order, "N": self.N,
            "holds": self.holds, "checked": self.n_checked, "violations": self.n_violations,
            "rate": self.violation_rate, "exact": self.exact,
            "counterexample": _fmt_cex(self.counterexample),
        }

    def __str__(self) -> str:
        v = "holds" if self.holds else "fails"
        s = (f"{self.measure} {self.prop} for {self.order}, N={self.N}: {v} "
             f"({self.n_violations}/{self.n_checked} violating pairs)")
        return s if self.holds else f"{s}; e.g. {_fmt_cex(self.counterexample)}"


def _fmt_cex(cex: dict | None) -> str:
    if not cex:
        return ""
    return "; ".join(f"{k}={_fmt_val(v)}" for k, v in cex.items())


def _fmt_val(v) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(str(x) for x in v) + ")"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def checks_frame(checks: list[ScaleCheck]) -> pd.DataFrame:
    """One row per check (for notebooks and reports)."""
    return pd.DataFrame([c.row() for c in checks])


# ------------------------------------------------------------------------------- comparisons


def _gt(a, b, tol: float):
    """a > b, exactly for integer keys, beyond ``tol`` for floats."""
    return a > b + tol if tol else a > b


def _eq(a, b, tol: float):
    return np.abs(a - b) <= tol if tol else a == b


def _argsort_exact(a: np.ndarray) -> np.ndarray:
    """Stable argsort; object arrays (huge exact integers) are sorted by Python comparison, since a
    detour through floats could misorder values that differ beyond double precision."""
    if a.dtype == object:
        return np.array(sorted(range(len(a)), key=a.__getitem__), dtype=np.int64)
    return np.argsort(a, kind="stable")


def _space(runs, order: RunOrder | None = None) -> np.ndarray:
    a = _as_runs(runs, order.c if order is not None else None)
    if a.ndim != 2 or a.shape[0] == 0:
        raise ValueError(f"a run space must be a non-empty array of shape (n_runs, N), got {a.shape}")
    return a


def _rank_or_none(order: RunOrder, runs: np.ndarray):
    try:
        return np.asarray(order.rank(runs))
    except NotGradedError:
        return None


# ----------------------------------------------------------------------------------- ordinal


def check_ordinal(measure: MeasureLike, order: RunOrder, runs: np.ndarray, *, strict: bool = True, rb=None,
                  label: str | None = None) -> ScaleCheck:
    """Is ``measure`` an ordinal scale for ``order`` on the run space ``runs``? (module docstring)"""
    runs = _space(runs, order)
    mv = measure_values(measure, runs, rb=rb, label=label)
    le = order.leq_matrix(runs)
    lt = le & ~le.T
    eqv = le & le.T
    np.fill_diagonal(eqv, False)
    eqv = np.triu(eqv)  # each unordered equivalent pair once
    k = mv.keys
    n = len(k)
    n_checked = int(lt.sum() + eqv.sum())
    viol = np.zeros((n, n), dtype=bool)
    step = 512  # row blocks keep the object-array path and memory bounded
    for a in range(0, n, step):
        kr = k[a:a + step, None]
        bad = ~_gt(k[None, :], kr, mv.tol) if strict else _gt(kr, k[None, :], mv.tol)
        viol[a:a + step] = (lt[a:a + step] & bad) | (eqv[a:a + step] & ~_eq(kr, k[None, :], mv.tol))
    nv = int(viol.sum())
    cex = None
    if nv:
        i, j = np.nonzero(viol)
        rho = _rank_or_none(order, runs)
        dist = np.abs(rho[j] - rho[i]).astype(float) if rho is not None else np.zeros(len(i))
        best = np.lexsort((j, i, dist))[0]
        a, b = int(i[best]), int(j[best])
        rel = "≺" if lt[a, b] else "~"
        cex = {"r": tuple(runs[a].tolist()), "s": tuple(runs[b].tolist()), "order": f"r {rel} s",
               f"{mv.label}(r)": mv.value(a), f"{mv.label}(s)": mv.value(b)}
    return ScaleCheck("ordinal" if strict else "ordinal (weak)", mv.label, str(order), runs.shape[1],
                      nv == 0, n_checked, nv, mv.exact, cex)


# ---------------------------------------------------------------------------------- interval


def check_interval(measure: MeasureLike, order: RunOrder, runs: np.ndarray, *, rb=None, label: str | None = None) -> ScaleCheck:
    """Is ``measure`` = aρ + b (a > 0) on ``runs``, ρ the order's rank function? (module docstring)

    ``runs`` must be the whole space the order is graded on (e.g. :func:`graded_runs` for the
    strong order, :func:`multiset_runs` for the set-based one), so that covers are covers.
    """
    runs = _space(runs, order)
    mv = measure_values(measure, runs, rb=rb, label=label)
    rho = _rank_or_none(order, runs)
    if rho is not None:
        levels = np.unique(rho)
        if levels[0] != 0 or len(levels) != int(levels[-1]) + 1:
            raise ValueError(f"check_interval needs a whole run space (ranks 0..max without gaps); the "
                             f"{len(runs)} runs given have {len(levels)} distinct ranks between "
                             f"{int(levels[0])} and {int(levels[-1])}")
    lo, hi = order.covers(runs)
    if len(lo) == 0:
        return ScaleCheck("interval", mv.label, str(order), runs.shape[1], True, 0, 0, mv.exact)
    srt = np.lexsort((hi, lo, rho[lo] if rho is not None else lo))
    lo, hi = lo[srt], hi[srt]
    steps = mv.keys[hi] - mv.keys[lo]
    # group equal steps (exact ints, or floats within tol) to count unequal pairs of covers
    order_s = _argsort_exact(steps)
    ss = steps[order_s]
    new = np.ones(len(ss), dtype=bool)
    new[1:] = ~_eq(ss[1:], ss[:-1], mv.tol)
    sizes = np.diff(np.append(np.flatnonzero(new), len(ss)))
    n = len(steps)
    n_checked = n * (n - 1) // 2
    n_unequal = n_checked - int(sum(int(g) * (int(g) - 1) // 2 for g in sizes))
    positive = bool(_gt(ss[0], 0, mv.tol))  # smallest step
    cex = None
    nv = n_unequal
    if n_unequal:
        other = int(np.flatnonzero(~_eq(steps, steps[0], mv.tol))[0])
        cex = _cover_pair(runs, mv, lo, hi, 0, other)
    elif not positive:
        nv = max(n_checked, 1)  # constant but non-positive step: every pair fails a > 0
        cex = _cover_pair(runs, mv, lo, hi, 0, None)
    return ScaleCheck("interval", mv.label, str(order), runs.shape[1], nv == 0, n_checked, nv,
                      mv.exact, cex, {"covers": n, "distinct_steps": len(sizes)})


def _cover_pair(runs, mv, lo, hi, a, b) -> dict:
    out = {"cover1": f"{_fmt_val(tuple(runs[lo[a]].tolist()))}⋖{_fmt_val(tuple(runs[hi[a]].tolist()))}",
           "step1": _val_diff(mv, hi[a], lo[a])}
    if b is not None:
        out.update({"cover2": f"{_fmt_val(tuple(runs[lo[b]].tolist()))}⋖{_fmt_val(tuple(runs[hi[b]].tolist()))}",
                    "step2": _val_diff(mv, hi[b], lo[b])})
    return out


def _val_diff(mv: MeasureValues, i, j):
    d = mv.value(int(i)) - mv.value(int(j))
    # a float difference within the tie tolerance is exactly 0 (module docstring); show it as such
    return 0.0 if not mv.exact and abs(d) <= mv.tol else d


# ----------------------------------------------------------------------------- interval-like


def intervals(runs: np.ndarray, *, equal_mass: bool = False, c: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All intervals [r̂, ŝ] (r̂ ≺ ŝ, weak top-heaviness) of a run space: (lo, hi, Δ) with Δ of shape
    (n_intervals, N) from FFP17 Def. 2. ``equal_mass`` keeps Σ r̂ = Σ ŝ."""
    runs = _space(runs)
    le = WeakTopHeaviness(c).leq_matrix(runs)
    np.fill_diagonal(le, False)
    lo, hi = np.nonzero(le)
    if equal_mass:
        keep = runs[lo].sum(1) == runs[hi].sum(1)
        lo, hi = lo[keep], hi[keep]
    d = np.cumsum(np.cumsum(runs[hi] - runs[lo], axis=1), axis=1)
    return lo, hi, d


def check_interval_like(measure: MeasureLike, runs: np.ndarray, *, equal_mass: bool = False, rb=None, c: int = 1,
                        label: str | None = None) -> ScaleCheck:
    """FFP17 interval-like check over all ordered pairs of comparable intervals (module docstring).

    Algorithm: intervals are grouped by their Δ vector; for each class D2 the intervals of all
    classes D1 ⪯_d D2 (D2 included) are gathered in increasing order of their M-difference, and a
    binary search counts those with a larger difference than each interval of D2. Cost
    O(#classes × #intervals), about a second for N = 8.
    """
    runs = _space(runs)
    mv = measure_values(measure, runs, rb=rb, label=label)
    lo, hi, d = intervals(runs, equal_mass=equal_mass, c=c)
    prop = "interval-like" + (" (equal #relevant)" if equal_mass else "")
    N = runs.shape[1]
    if len(lo) < 2:
        return ScaleCheck(prop, mv.label, "weak top-heaviness Δ", N, True, 0, 0, mv.exact)
    diff = mv.keys[hi] - mv.keys[lo]
    classes, cls = np.unique(d, axis=0, return_inverse=True)
    cls = cls.reshape(-1)
    nclass = len(classes)
    cmp = np.ones((nclass, nclass), dtype=bool)  # cmp[a, b] = class a ⪯_d class b
    for col in classes.T:
        cmp &= col[:, None] <= col[None, :]
    srt = _argsort_exact(diff)
    sorted_diff = diff[srt]
    sorted_cls = cls[srt]
    length = d[:, -1]  # natural length of each interval
    n_checked = n_viol = 0
    best = None  # (total length, i, j)
    members = [np.flatnonzero(cls == b) for b in range(nclass)]
    for b in range(nclass):
        mask = cmp[sorted_cls, b]
        gathered = sorted_diff[mask]
        js = members[b]
        n_checked += len(js) * (len(gathered) - 1)
        thr = diff[js] + mv.tol if mv.tol else diff[js]
        # number of gathered differences > thr (exact for ints; searchsorted on object works too)
        cnt = len(gathered) - np.searchsorted(gathered, thr, side="right")
        nv = int(cnt.sum())
        if nv:
            n_viol += nv
            jstar = js[int(_argsort_exact(diff[js])[0])]
            g_idx = srt[mask]
            bad = g_idx[_gt(diff[g_idx], diff[jstar], mv.tol)]
            i = int(bad[np.lexsort((bad, length[bad]))[0]])
            cand = (int(length[i] + length[jstar]), i, int(jstar))
            if best is None or cand < best:
                best = cand
    cex = None
    if best is not None:
        _, i, j = best
        cex = {"r": tuple(runs[lo[i]].tolist()), "s": tuple(runs[hi[i]].tolist()),
               "u": tuple(runs[lo[j]].tolist()), "v": tuple(runs[hi[j]].tolist()),
               "Δ_sr": tuple(d[i].tolist()), "Δ_vu": tuple(d[j].tolist()),
               f"{mv.label}(s)-{mv.label}(r)": _val_diff(mv, hi[i], lo[i]),
               f"{mv.label}(v)-{mv.label}(u)": _val_diff(mv, hi[j], lo[j])}
    return ScaleCheck(prop, mv.label, "weak top-heaviness Δ", N, n_viol == 0, n_checked, n_viol,
                      mv.exact, cex, {"intervals": len(lo), "delta_classes": nclass})


# -------------------------------------------------------------------------------------- scans


def first_failure(check: Callable[[int], ScaleCheck], ns) -> tuple[ScaleCheck | None, list[ScaleCheck]]:
    """Run ``check(N)`` for N in ``ns`` (increasing); return the first failing check (the smallest
    counterexample over N) and all checks made."""
    done = []
    for n in ns:
        res = check(n)
        done.append(res)
        if not res.holds:
            return res, done
    return None, done


# ------------------------------------------------------------------- thresholds on parameters


def p_threshold(violates: Callable[[Fraction], bool], lo: Fraction, hi: Fraction,
                width: Fraction = Fraction(1, 2**40)) -> tuple[Fraction, Fraction]:
    """Bisection, on exact rationals, for the p at which ``violates(p)`` switches from False to True.

    Needs ``violates(lo)`` False and ``violates(hi)`` True; returns (lo, hi) with hi − lo ≤ width,
    violates(lo) False and violates(hi) True. (The predicate is assumed to switch once in
    [lo, hi]; the tests check this on a grid for the cases used.)
    """
    lo, hi, width = Fraction(lo), Fraction(hi), Fraction(width)
    if not lo < hi:
        raise ValueError(f"need lo < hi, got lo={lo}, hi={hi}")
    if violates(lo):
        raise ValueError(f"bisection needs no violation at lo={lo} (there is one)")
    if not violates(hi):
        raise ValueError(f"bisection needs a violation at hi={hi} (there is none)")
    while hi - lo > width:
        mid = (lo + hi) / 2
        if violates(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def poly_root(coeffs: list[int], lo: Fraction, hi: Fraction,
              width: Fraction = Fraction(1, 2**64)) -> tuple[Fraction, Fraction]:
    """A root of Σ_k coeffs[k] p^k in [lo, hi] (sign change required), bracketed exactly."""
    def f(p: Fraction) -> Fraction:
        return sum((Fraction(a) * p**k for k, a in enumerate(coeffs)), Fraction(0))

    lo, hi = Fraction(lo), Fraction(hi)
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo, lo
    if fhi == 0:
        return hi, hi
    if (flo > 0) == (fhi > 0):
        raise ValueError(f"the polynomial {coeffs} has the same sign at {lo} and {hi}")
    while hi - lo > width:
        mid = (lo + hi) / 2
        fm = f(mid)
        if fm == 0:
            return mid, mid
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return lo, hi


def grbp_difference_poly(r, s, gains=None) -> list[int]:
    """Integer coefficients of Σ_i (g(r̂_i) − g(ŝ_i)) p^{i−1}: gRBP_p(r̂) − gRBP_p(ŝ) divided by
    (1 − p)/g_max (FFP19 §5), so its sign for p in (0, 1) decides which run gRBP prefers."""
    r = _as_runs(r, what="r").reshape(-1)
    s = _as_runs(s, what="s").reshape(-1)
    if r.shape != s.shape:
        raise ValueError(f"runs of different lengths: {r.shape[0]} and {s.shape[0]}")
    g = np.arange(max(int(r.max(initial=0)), int(s.max(initial=0))) + 1) if gains is None else np.asarray(gains)
    return [int(x) for x in (g[r] - g[s])]


def poly_str(coeffs: list[int], var: str = "p") -> str:
    """``[1, 0, 2, 0, 1]`` -> ``1 + 2p^2 + p^4`` (the paper's way of writing gRBP polynomials)."""
    parts = []
    for k, a in enumerate(coeffs):
        if a == 0:
            continue
        mono = "" if k == 0 else (var if k == 1 else f"{var}^{k}")
        coef = str(abs(a)) if (abs(a) != 1 or k == 0) else ""
        sign = "-" if a < 0 else "+"
        parts.append((sign, coef + mono))
    if not parts:
        return "0"
    out = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    for sign, term in parts[1:]:
        out += f" {sign} {term}"
    return out


def contribution_terms(measure: str, run, *, max_grade: int = 1, base: int = 2) -> list:
    """Per-rank contributions of a run, as the papers write them out (FFP19 §5 example):

    ``"DCG"``  g_i / log_b(i) for i ≥ b (g_i for i < b), as strings ``"2/log2 3"`` or numbers;
    ``"ERR"``  (1/i) R_i Π_{j<i}(1 − R_j), R_i = (2^{g_i} − 1)/2^{max_grade}, as Fractions;
    ``"SP"``   precision at each relevant rank (lenient: grade > 0), as Fractions (= RB·AP terms).
    Zero contributions are left out.
    """
    run = [int(x) for x in _as_runs(run, what="run").reshape(-1)]
    terms: list = []
    if measure == "DCG":
        for i, g in enumerate(run, start=1):
            if g == 0:
                continue
            if i < base:
                terms.append(Fraction(g))
            else:
                lb = math.log(i, base)
                if abs(lb - round(lb)) < 1e-12:  # log_b(i) is an integer: a rational weight
                    terms.append(Fraction(g, round(lb)))
                else:
                    terms.append(f"{g}/log{base} {i}")
        return terms
    if measure == "ERR":
        cont = Fraction(1)
        for i, g in enumerate(run, start=1):
            r = Fraction(2**g - 1, 2**max_grade)
            if r:
                terms.append(cont * r / i)
            cont *= 1 - r
        return terms
    if measure == "SP":
        hits = 0
        for i, g in enumerate(run, start=1):
            if g > 0:
                hits += 1
                terms.append(Fraction(hits, i))
        return terms
    raise ValueError(f"contribution_terms knows 'DCG', 'ERR' and 'SP', not {measure!r}")


def terms_str(terms: list) -> str:
    """Join contributions as the paper prints them: ``1 + 2/log2 3 + 1/log2 5``."""
    return " + ".join(str(t) for t in terms) if terms else "0"


# ------------------------------------------------------------------------- FFP19 §6 as checks


@dataclass(frozen=True)
class Case:
    """One row of FFP19's §6 summary as a computation: a measure, an order, and its run spaces.

    ``item`` is the item prefix in ``data/published/ffp19.csv`` (``<item>/ordinal``,
    ``<item>/interval``); ``values(runs)`` returns exact values (Fractions) or floats.
    """

    item: str
    label: str
    values: Callable[[np.ndarray], np.ndarray]
    order: RunOrder
    space: Callable[[int], np.ndarray]
    relevance: str


def _mk(m: Measure, **kw) -> Callable[[np.ndarray], np.ndarray]:
    def f(runs: np.ndarray) -> np.ndarray:
        if m.rational:
            return m.exact(runs, **kw)
        return m(runs, **kw)
    return f


def _with_gains(m: Measure, gains) -> Callable[[np.ndarray], np.ndarray]:
    g = np.asarray(gains)

    def f(runs: np.ndarray) -> np.ndarray:
        return m.exact(g[runs]) if m.rational else m(g[runs])
    return f


def ffp19_cases() -> list[Case]:
    """The measure/order/space combinations behind FFP19's §6 summary (binary: c = 1; graded:
    c = 2 with gains δ(a_i) = i unless stated; G = min gap / g(a_c), FFP19 §5).

    Parameter choices: "p < 1/2" is checked at p = 3/10, "p > 1/2" at 4/5; for gRBP with linear
    gains G = 1/2, so G/(G+1) = 1/3 and "p <" / "p >" use 1/4 and 1/2; the non-linear gain
    (0, 1, 3) has G = 1/3 and is checked at its own G/(G+1) = 1/4. Recall-based measures use
    RB = N (RB·N for gR), any positive constant gives the same verdicts.
    """
    from irscales.measures import AP, DCG, ERR, F1, GP, GR, GRBP, P, R, RBP
    from irscales.theory.orders import SetBased, StrongTopHeaviness, graded_runs, multiset_runs

    sb1, sb2 = SetBased(1), SetBased(2)
    st1, st2 = StrongTopHeaviness(1), StrongTopHeaviness(2)

    def ms1(n): return multiset_runs(n, 1)
    def ms2(n): return multiset_runs(n, 2)
    def g1(n): return graded_runs(n, 1)
    def g2(n): return graded_runs(n, 2)

    def with_rb(m, scale=1):
        def f(runs):
            return m.exact(runs, rb=scale * runs.shape[1])
        return f

    F = Fraction
    return [
        Case("s6/P", "P", _mk(P()), sb1, ms1, "binary"),
        Case("s6/R", "R (RB=N)", with_rb(R()), sb1, ms1, "binary"),
        Case("s6/F", "F1 (RB=N)", with_rb(F1()), sb1, ms1, "binary"),
        Case("s6/gP", "gP", _mk(GP(max_gain=2)), sb2, ms2, "graded"),
        Case("s6/gR", "gR (RB=2N)", with_rb(GR(), 2), sb2, ms2, "graded"),
        Case("s6/RBP_p<1/2", "RBP p=3/10", _mk(RBP(p=F(3, 10))), st1, g1, "binary"),
        Case("s6/RBP_p=1/2", "RBP p=1/2", _mk(RBP(p=F(1, 2))), st1, g1, "binary"),
        Case("s6/RBP_p>1/2", "RBP p=4/5", _mk(RBP(p=F(4, 5))), st1, g1, "binary"),
        Case("s6/AP", "AP (RB=N)", with_rb(AP()), st1, g1, "binary"),
        Case("s6/gRBP_p<G/(G+1)", "gRBP p=1/4", _mk(GRBP(p=F(1, 4), max_gain=2)), st2, g2, "graded"),
        Case("s6/gRBP_p=G/(G+1)", "gRBP p=1/3", _mk(GRBP(p=F(1, 3), max_gain=2)), st2, g2, "graded"),
        Case("s6/gRBP_p=G/(G+1)_nonlinear_gain", "gRBP p=1/4, g=(0,1,3)",
             _with_gains(GRBP(p=F(1, 4), max_gain=3), [0, 1, 3]), st2, g2, "graded"),
        Case("s6/gRBP_p>G/(G+1)", "gRBP p=1/2", _mk(GRBP(p=F(1, 2), max_gain=2)), st2, g2, "graded"),
        Case("s6/DCG", "DCG b=2 (graded gains)", _mk(DCG(base=2, gains="graded")), st2, g2, "graded"),
        Case("s6/ERR", "ERR", _mk(ERR(max_grade=2)), st2, g2, "graded"),
    ]


def run_case(case: Case, ns) -> dict:
    """Ordinal and interval checks of one case for every N in ``ns``; the verdict is "yes" when the
    property holds for every N checked. Rates are those of the largest N; the counterexample is
    the smallest one at the smallest failing N."""
    out: dict = {"item": case.item, "measure": case.label, "order": str(case.order),
                 "relevance": case.relevance, "N checked": f"{min(ns)}..{max(ns)}"}
    for prop, fn in (("ordinal", check_ordinal), ("interval", check_interval)):
        first, last = None, None
        for n in ns:
            runs = case.space(n)
            res = fn(case.values, case.order, runs, label=case.label)
            last = res
            if first is None and not res.holds:
                first = res
        out[prop] = "yes" if first is None else "no"
        out[f"{prop} first failing N"] = str(first.N) if first else "-"
        out[f"{prop} rate at largest N"] = last.violation_rate
        out[f"{prop} counterexample"] = _fmt_cex(first.counterexample) if first else ""
        out[f"{prop} exact"] = last.exact
    return out


def ffp19_summary(n_binary=range(1, 9), n_graded=range(1, 6)) -> pd.DataFrame:
    """FFP19 §6 recomputed: one row per :func:`ffp19_cases` case (binary cases over ``n_binary``,
    graded c = 2 cases over ``n_graded``)."""
    rows = []
    for case in ffp19_cases():
        ns = list(n_binary) if case.relevance == "binary" else list(n_graded)
        rows.append(run_case(case, ns))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------- FFP17 §3.3 rates


def interval_like_rates(measures: dict[str, MeasureLike], ns, *, rb=None) -> pd.DataFrame:
    """Exhaustive FFP17 interval-like violation rates on {0,1}^N for every N in ``ns``, over all
    comparable pairs of intervals and over equal-#relevant intervals only.

    ``measures`` maps labels to measures (or callables / value arrays as in
    :func:`measure_values`); ``rb`` (default N) is passed to measures that need a recall base.
    """
    from irscales.theory.orders import binary_runs

    rows = []
    for n in ns:
        runs = binary_runs(n)
        for lab, m in measures.items():
            for em in (False, True):
                res = check_interval_like(m, runs, equal_mass=em, rb=n if rb is None else rb, label=lab)
                rows.append({"N": n, "measure": lab, "restriction": "equal #relevant" if em else "none",
                             "intervals": res.details.get("intervals", 0), "checked": res.n_checked,
                             "violations": res.n_violations, "rate": res.violation_rate,
                             "interval-like": res.holds, "exact": res.exact,
                             "counterexample": _fmt_cex(res.counterexample)})
    return pd.DataFrame(rows)


def rbp_interval_like_threshold(n: int, *, equal_mass: bool = False, lo=Fraction(1, 2),
                                hi=Fraction(99, 100), width=Fraction(1, 2**12)):
    """Bracket (lo, hi) of the p at which RBP_p starts violating FFP17's interval-like property on
    {0,1}^N (exact values at rational p), or None when RBP_p with p = ``hi`` has no violation."""
    from irscales.measures import RBP
    from irscales.theory.orders import binary_runs

    runs = binary_runs(n)

    def violates(p: Fraction) -> bool:
        return not check_interval_like(RBP(p=p), runs, equal_mass=equal_mass, label="RBP").holds

    if not violates(Fraction(hi)):
        return None
    return p_threshold(violates, Fraction(lo), Fraction(hi), width)


# -------------------------------------------------------- FFP19 §5 / FFP17 examples reproduced


def relation_str(order: RunOrder, r, s) -> str:
    """``"r ≺ s"``, ``"s ≺ r"``, ``"r ~ s"`` (equivalent) or ``"r ∥ s"`` (incomparable)."""
    a, b = bool(order.leq(r, s)), bool(order.leq(s, r))
    return {(True, False): "r ≺ s", (False, True): "s ≺ r", (True, True): "r ~ s"}.get((a, b), "r ∥ s")


def vec_str(v) -> str:
    """``(0,1,2)``: the compact vector form used in ``data/published/ffp17.csv``."""
    return "(" + ",".join(str(int(x)) for x in np.asarray(v).reshape(-1)) + ")"


def _yes(b) -> str:
    return "yes" if bool(b) else "no"


def min_gain_gap(gains) -> Fraction:
    """FFP19 §5: G = min_j (g(a_j) − g(a_{j−1})) / g(a_c)."""
    g = [Fraction(x) for x in gains]
    if any(b <= a for a, b in itertools.pairwise(g)) or g[0] != 0:
        raise ValueError(f"gains must start at 0 and increase strictly, got {list(gains)}")
    return min(b - a for a, b in itertools.pairwise(g)) / g[-1]


def ffp19_section5(r, s, gains=(0, 1, 2)) -> dict:
    """FFP19 §5's counterexample recomputed for runs ``r``, ``s`` (degrees 0..c): the order, the
    per-rank terms of DCG_2, ERR, RB·AP (lenient), the 2gRBP polynomials, and the exact p above which
    gRBP_p prefers r (a root of Σ_i (g(r_i) − g(s_i)) p^{i−1} after removing the factor p^k)."""
    from irscales.measures import ERR, SP
    from irscales.theory.orders import StrongTopHeaviness

    r = _as_runs(r, what="r").reshape(-1)
    s = _as_runs(s, what="s").reshape(-1)
    c = len(gains) - 1
    pair = np.stack([r, s])
    dcg = [sum(_term_value(t) for t in contribution_terms("DCG", x)) for x in (r, s)]
    err = ERR(max_grade=c).exact(pair)
    sp = SP().exact(pair)
    g = np.asarray(gains)
    coef = grbp_difference_poly(r, s, gains)
    while coef and coef[0] == 0:  # divide by p: the root at 0 is not a crossing in (0, 1)
        coef = coef[1:]
    lo, hi = poly_root(coef, Fraction(0), Fraction(1)) if coef else (None, None)
    scale = int(g[-1] // min(gains[1:])) if all(int(x) == x for x in gains) else 1
    return {
        "order": relation_str(StrongTopHeaviness(c), r, s),
        "DCG2(r)": terms_str(contribution_terms("DCG", r)),
        "DCG2(s)": terms_str(contribution_terms("DCG", s)),
        "DCG2 r>s": _yes(dcg[0] > dcg[1]),
        "ERR(r)": terms_str(contribution_terms("ERR", r, max_grade=c)),
        "ERR(s)": terms_str(contribution_terms("ERR", s, max_grade=c)),
        "ERR r>s": _yes(err[0] > err[1]),
        "RB·AP(r)": terms_str(contribution_terms("SP", r)),
        "RB·AP(s)": terms_str(contribution_terms("SP", s)),
        "RB·AP r>s": _yes(sp[0] > sp[1]),
        f"{scale}gRBP(r)": f"(1 - p)({poly_str([int(x) for x in g[r]])})",
        f"{scale}gRBP(s)": f"(1 - p)({poly_str([int(x) for x in g[s]])})",
        "gRBP threshold": (lo, hi),
        "G": min_gain_gap(gains),
    }


def _term_value(t) -> float:
    if isinstance(t, Fraction):
        return float(t)
    g, rest = t.split("/log")
    b, i = rest.split(" ")
    return int(g) / math.log(int(i), int(b))


def ffp19_reproduced(summary: pd.DataFrame, section5: dict, gp_order: str) -> dict:
    """Items of ``data/published/ffp19.csv`` from :func:`ffp19_summary`, :func:`ffp19_section5` and
    the relation of FFP19 §4.2's gP pair (``gp_order``). Verdicts the paper does not state (e.g.
    "P is ordinal", implied by "interval") are left out, so every key is a published item."""
    from irscales.papers.published import load

    printed = set(load("ffp19")["item"])
    rep: dict = {}
    for row in summary.itertuples(index=False):
        for prop in ("ordinal", "interval"):
            key = f"{row.item}/{prop}"
            if key in printed:
                rep[key] = getattr(row, prop)
    s5 = section5
    lo, hi = s5["gRBP threshold"]
    rep.update({
        "s5/example/order": s5["order"], "s5/DCG2(r)": s5["DCG2(r)"], "s5/DCG2(s)": s5["DCG2(s)"],
        "s5/DCG2/r>s": s5["DCG2 r>s"], "s5/ERR(r)": s5["ERR(r)"], "s5/ERR(s)": s5["ERR(s)"],
        "s5/ERR/r>s": s5["ERR r>s"], "s5/2gRBP(r)": s5["2gRBP(r)"], "s5/2gRBP(s)": s5["2gRBP(s)"],
        "s5/gRBP_threshold": float((lo + hi) / 2), "s5/G": s5["G"],
        "s5/RB·AP(r)": s5["RB·AP(r)"], "s5/RB·AP(s)": s5["RB·AP(s)"], "s5/RB·AP/r>s": s5["RB·AP r>s"],
        "s4.2/gP_example/order": gp_order,
    })
    return rep


def interval_agrees(measure: MeasureLike, r, s, u, v, rb=None) -> bool:
    """M(s) − M(r) ≤ M(v) − M(u), exactly for rational measures (FFP17 §3.3 examples)."""
    runs = np.stack([_as_runs(x).reshape(-1) for x in (r, s, u, v)])
    mv = measure_values(measure, runs, rb=rb)
    k = mv.keys
    return not bool(_gt(k[1] - k[0], k[3] - k[2], mv.tol))


def mass_gap_triples(n: int, gap: int = 2, measures: dict | None = None) -> pd.DataFrame:
    """FFP17's last example, searched for: all r̂ ≺ ŝ ≺ û in {0,1}^N with Σû = Σŝ = Σr̂ + ``gap``
    and Δ_ŝr̂ ⪯_d Δ_ûŝ with at least one strict entry. For each triple: the p above which RBP_p
    violates (M(ŝ) − M(r̂) > M(û) − M(ŝ)) — the largest root in (0, 1) of
    Σ_j p^{j−1}((ŝ − r̂) − (û − ŝ))_j, computed per distinct polynomial with numpy and then refined
    exactly — and whether each measure in ``measures`` (default: DCG b=2 and DCG log2(i+1))
    violates."""
    from irscales.measures import DCG
    from irscales.theory.orders import binary_runs

    measures = measures or {"DCG_b02": DCG(), "DCG_log2p1": DCG(discount="log2p1")}
    runs = binary_runs(n)
    mass = runs.sum(1)
    cs = np.cumsum(runs, 1)
    le = WeakTopHeaviness(1).leq_matrix(runs)
    vals = {k: measure_values(m, runs) for k, m in measures.items()}
    out = []
    for s in range(len(runs)):
        rs = np.flatnonzero(le[:, s] & (mass == mass[s] - gap))
        us = np.flatnonzero(le[s, :] & (mass == mass[s]))
        us = us[us != s]
        if not len(rs) or not len(us):
            continue
        d_sr = np.cumsum(cs[s] - cs[rs], 1)
        d_us = np.cumsum(cs[us] - cs[s], 1)
        ok = np.all(d_sr[:, None] <= d_us[None], -1) & np.any(d_sr[:, None] < d_us[None], -1)
        i, j = np.nonzero(ok)
        if len(i):
            out.append((np.full(len(i), s), rs[i], us[j]))
    if not out:
        return pd.DataFrame(columns=["r", "s", "u", "rbp_threshold", *measures])
    s_idx, r_idx, u_idx = (np.concatenate(x) for x in zip(*out))
    e = (runs[s_idx] - runs[r_idx]) - (runs[u_idx] - runs[s_idx])
    ue, inv = np.unique(e, axis=0, return_inverse=True)
    thr = np.array([_largest_root_01([int(x) for x in row]) for row in ue])[inv.reshape(-1)]
    df = pd.DataFrame({"r": r_idx, "s": s_idx, "u": u_idx, "rbp_threshold": thr})
    for k, mv in vals.items():
        kk = mv.keys
        df[k] = _gt(kk[s_idx] - kk[r_idx], kk[u_idx] - kk[s_idx], mv.tol)
    return df


def _largest_root_01(coeffs: list[int]) -> float:
    """Largest p in (0, 1) where Σ coeffs[k] p^k changes sign (float; 0 if none). Used for the
    distribution over many triples; single thresholds are bracketed exactly with :func:`poly_root`."""
    while coeffs and coeffs[-1] == 0:
        coeffs = coeffs[:-1]
    while coeffs and coeffs[0] == 0:
        coeffs = coeffs[1:]
    if len(coeffs) < 2:
        return 0.0
    c = np.array(coeffs[::-1], dtype=float)
    roots = np.roots(c)
    real = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
    real = real[(real > 1e-9) & (real < 1 - 1e-9)]
    for x in real[::-1]:
        if np.sign(np.polyval(c, x - 1e-7)) != np.sign(np.polyval(c, x + 1e-7)):
            return float(x)
    return 0.0


# ------------------------------------------------------------------------------------- figures


def save_figure(fig, paper: str, name: str) -> list[str]:
    """Write ``fig`` as PNG and PDF to ``figures/<paper>/`` (see :func:`irscales.paths.figures_dir`);
    returns the relative names (no absolute paths, so notebook outputs are stable)."""
    from irscales.paths import figures_dir
    from irscales.figures import fit_tick_labels

    d = figures_dir(paper)
    fit_tick_labels(fig)
    out = []
    for ext in ("png", "pdf"):
        fig.savefig(d / f"{name}.{ext}", dpi=150, bbox_inches="tight", metadata={"CreationDate": None} if ext == "pdf" else None)
        out.append(f"{paper}/{name}.{ext}")
    return out


def plot_vs_rank(measures: dict[str, MeasureLike], order: RunOrder, runs: np.ndarray, ax=None, title: str = ""):
    """Each measure (min-max normalised) against the rank function ρ of ``order``: a straight line
    is an interval scale (FFP19 §2), a monotone curve an ordinal one."""
    import matplotlib.pyplot as plt

    runs = _space(runs, order)
    rho = np.asarray(order.rank(runs), dtype=float)
    srt = np.argsort(rho, kind="stable")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for lab, m in measures.items():
        mv = measure_values(m, runs, label=lab)
        v = np.array([float(mv.value(i)) for i in range(len(runs))])
        span = v.max() - v.min()
        ax.plot(rho[srt], (v[srt] - v.min()) / (span if span else 1), lw=1, label=lab)
    ax.set_xlabel(f"ρ ({order})")
    ax.set_ylabel("measure, min-max normalised")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return ax


def plot_interval_like_rates(rates: pd.DataFrame, title: str = ""):
    """Violation rate against N, one panel per restriction (output of :func:`interval_like_rates`)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True, layout="constrained")
    for ax, restr in zip(axes, ["none", "equal #relevant"]):
        sub = rates[rates.restriction == restr]
        for lab, g in sub.groupby("measure", sort=False):
            ax.plot(g["N"], 100 * g["rate"], marker="o", ms=3, label=lab)
        ax.set_title("all comparable intervals" if restr == "none" else "endpoints with equal #relevant")
        ax.set_xlabel("N")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylabel("violating pairs of comparable intervals (%)")
    axes[1].legend(fontsize=8)
    fig.suptitle(title)
    return fig
