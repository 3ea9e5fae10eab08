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

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from irscales.exact import common_denominator
from irscales._formatting import as_text
from irscales.measures import Measure
from irscales.theory.orders import NotGradedError, RunOrder, WeakTopHeaviness, as_runs

__all__ = ["ScaleCheck", "measure_values", "check_ordinal", "check_interval", "check_interval_like", "checks_frame"]

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
        bad = next((v for v in vals.tolist() if not isinstance(v, (int, Fraction, np.integer))), None)
        if bad is not None:
            raise TypeError(f"{label}: exact values must be ints or Fractions, found {type(bad).__name__}")
        # differences of differences need 4x headroom in int64
        keys, den = common_denominator(vals, headroom_bits=3)
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


@dataclass(kw_only=True)
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
            "counterexample": format_counterexample(self.counterexample),
        }

    def __str__(self) -> str:
        v = "holds" if self.holds else "fails"
        s = (f"{self.measure} {self.prop} for {self.order}, N={self.N}: {v} "
             f"({self.n_violations}/{self.n_checked} violating pairs)")
        return s if self.holds else f"{s}; e.g. {format_counterexample(self.counterexample)}"


def format_counterexample(cex: dict | None) -> str:
    """A counterexample dict as ``key=value; …`` (runs as ``(0,1,1)``, floats to 6 digits)."""
    if not cex:
        return ""
    return "; ".join(f"{k}={_fmt_val(v)}" for k, v in cex.items())


def _fmt_val(v) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(str(x) for x in v) + ")"
    return as_text(v)


def checks_frame(checks: list[ScaleCheck]) -> pd.DataFrame:
    """One row per check (for notebooks and reports)."""
    return pd.DataFrame([c.row() for c in checks])


# ------------------------------------------------------------------------------- comparisons


def greater(a, b, tol: float):
    """a > b, exactly for integer keys (``tol = 0``), beyond ``tol`` for floats (:class:`MeasureValues`)."""
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
    a = as_runs(runs, order.c if order is not None else None)
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
        bad = ~greater(k[None, :], kr, mv.tol) if strict else greater(kr, k[None, :], mv.tol)
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
    return ScaleCheck(prop="ordinal" if strict else "ordinal (weak)", measure=mv.label, order=str(order),
                      N=runs.shape[1],
                      holds=nv == 0, n_checked=n_checked, n_violations=nv, exact=mv.exact, counterexample=cex)


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
        return ScaleCheck(prop="interval", measure=mv.label, order=str(order), N=runs.shape[1], holds=True, n_checked=0,
                          n_violations=0, exact=mv.exact)
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
    positive = bool(greater(ss[0], 0, mv.tol))  # smallest step
    cex = None
    nv = n_unequal
    if n_unequal:
        other = int(np.flatnonzero(~_eq(steps, steps[0], mv.tol))[0])
        cex = _cover_pair(runs, mv, lo, hi, 0, other)
    elif not positive:
        nv = max(n_checked, 1)  # constant but non-positive step: every pair fails a > 0
        cex = _cover_pair(runs, mv, lo, hi, 0, None)
    return ScaleCheck(prop="interval", measure=mv.label, order=str(order), N=runs.shape[1], holds=nv == 0,
                      n_checked=n_checked, n_violations=nv,
                      exact=mv.exact, counterexample=cex, details={"covers": n, "distinct_steps": len(sizes)})


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
        return ScaleCheck(prop=prop, measure=mv.label, order="weak top-heaviness Δ", N=N, holds=True, n_checked=0,
                          n_violations=0, exact=mv.exact)
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
            bad = g_idx[greater(diff[g_idx], diff[jstar], mv.tol)]
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
    return ScaleCheck(prop=prop, measure=mv.label, order="weak top-heaviness Δ", N=N, holds=n_viol == 0,
                      n_checked=n_checked, n_violations=n_viol,
                      exact=mv.exact, counterexample=cex, details={"intervals": len(lo), "delta_classes": nclass})


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


def interval_agrees(measure: MeasureLike, r, s, u, v, rb=None) -> bool:
    """M(s) − M(r) ≤ M(v) − M(u), exactly for rational measures (FFP17 §3.3 examples)."""
    runs = np.stack([as_runs(x).reshape(-1) for x in (r, s, u, v)])
    mv = measure_values(measure, runs, rb=rb)
    k = mv.keys
    return not bool(greater(k[1] - k[0], k[3] - k[2], mv.tol))

