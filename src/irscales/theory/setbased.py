"""Precision, Recall and F1 on the universe S[N, K] of set-based runs (FFF21 §3.4).

A run is a triple ``[r, n, RB]``: r relevant documents retrieved, run length n, recall base RB,
with 1 ≤ n, 1 ≤ RB and 0 ≤ r ≤ n ∧ RB (FFF21 §3.4). ``S[N, K]`` is the union of the sets
``S_{n,RB}`` over 1 ≤ n ≤ N, 1 ≤ RB ≤ K. On it

    Prec[r, n, RB] = r / n          (§3.4.1)
    Recall[r, n, RB] = r / RB       (§3.4.2)
    F1[r, n, RB] = 2r / (n + RB)    (§3.4.3)

This module computes exactly (Fractions) the image of each measure, whether it is equi-spaced
(the necessary condition for an interval scale used throughout §3.4), and the pairs of runs two
measures order differently, so that every claim of §3.4.1–§3.4.4 can be checked by enumeration.
It also gives the smallest common equi-spaced grid of several images (Example 11).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from irscales.correlation import KendallCounts, kendall_counts

__all__ = ["universe", "prec", "recall", "f1", "compare_orders", "OrderComparison"]

Run = tuple[int, int, int]
"""``(r, n, RB)``: relevant retrieved, run length, recall base."""


def check_run(run: Sequence[int]) -> Run:
    """Validate a triple [r, n, RB]; raise ValueError saying which condition fails."""
    if len(run) != 3:
        raise ValueError(f"a set-based run is a triple [r, n, RB], got {list(run)!r}")
    r, n, rb = (int(x) for x in run)
    if (r, n, rb) != tuple(run):
        raise ValueError(f"[r, n, RB] must be integers, got {list(run)!r}")
    if n < 1 or rb < 1:
        raise ValueError(f"[{r}, {n}, {rb}]: need n ≥ 1 and RB ≥ 1 (FFF21 §3.4)")
    if not 0 <= r <= min(n, rb):
        raise ValueError(f"[{r}, {n}, {rb}]: need 0 ≤ r ≤ min(n, RB) = {min(n, rb)} (FFF21 §3.4)")
    return (r, n, rb)


def _range(x: int | Iterable[int], what: str) -> list[int]:
    vals = list(range(1, x + 1)) if isinstance(x, int) else sorted(set(int(v) for v in x))
    if not vals or vals[0] < 1:
        raise ValueError(f"{what} must be ≥ 1 (got {x!r})")
    return vals


def universe(N: int | Iterable[int], K: int | Iterable[int]) -> list[Run]:
    """All runs [r, n, RB] with n in 1..N and RB in 1..K (FFF21 §3.4, S[N, K]).

    ``N`` or ``K`` may also be an explicit collection of lengths / recall bases, e.g.
    ``universe([5], 3)`` is the union of S_{5,1}, S_{5,2}, S_{5,3} (fixed length, §3.4.4).
    Runs are listed by n, then RB, then r.
    """
    ns, rbs = _range(N, "N (run lengths)"), _range(K, "K (recall bases)")
    return [(r, n, rb) for n in ns for rb in rbs for r in range(min(n, rb) + 1)]


def prec(run: Sequence[int]) -> Fraction:
    """Prec[r, n, RB] = r / n (FFF21 §3.4.1)."""
    r, n, _ = check_run(run)
    return Fraction(r, n)


def recall(run: Sequence[int]) -> Fraction:
    """Recall[r, n, RB] = r / RB (FFF21 §3.4.2)."""
    r, _, rb = check_run(run)
    return Fraction(r, rb)


def f1(run: Sequence[int]) -> Fraction:
    """F1[r, n, RB] = 2 / (Prec⁻¹ + Recall⁻¹) = 2r / (n + RB) (FFF21 §3.4.3); 0 when r = 0."""
    r, n, rb = check_run(run)
    return Fraction(2 * r, n + rb)


MEASURES: dict[str, Callable[[Sequence[int]], Fraction]] = {"P": prec, "R": recall, "F1": f1}


def _measure(m: str | Callable) -> Callable:
    if callable(m):
        return m
    try:
        return MEASURES[m]
    except KeyError:
        raise ValueError(f"unknown set-based measure {m!r}; use one of {sorted(MEASURES)}") from None


def image(measure: str | Callable, runs: Iterable[Sequence[int]]) -> list[Fraction]:
    """Sorted distinct values of the measure on the runs."""
    f = _measure(measure)
    return sorted({f(run) for run in runs})


def gaps(values: Sequence[Fraction]) -> list[Fraction]:
    """Differences between consecutive sorted distinct values."""
    v = sorted(set(values))
    return [b - a for a, b in zip(v, v[1:])]


def is_equispaced(values: Sequence[Fraction]) -> bool:
    """Are the distinct values equally spaced? (exact; one or two values are trivially so)."""
    return len(set(gaps(values))) <= 1


def _sign(x) -> int:
    return (x > 0) - (x < 0)


@dataclass(frozen=True, kw_only=True)
class OrderComparison:
    """How two measures order the unordered pairs of a set of runs.

    ``concordant``/``discordant``: strictly ordered by both, same / opposite direction;
    ``tied_first_only``/``tied_second_only``: tied by one measure only (T and U of FFF21 §3.3);
    ``tied_both``: tied by both. Kendall's τ_b = (P − Q) / √((P + Q + T)(P + Q + U)).
    """

    first: str
    second: str
    n_pairs: int
    concordant: int
    discordant: int
    tied_first_only: int
    tied_second_only: int
    tied_both: int

    @property
    def same_order(self) -> bool:
        """True when the two weak orders coincide (no discordant pair, same ties)."""
        return self.discordant == self.tied_first_only == self.tied_second_only == 0

    @property
    def tau_b(self) -> float:
        """Kendall's τ_b of the two orders (:class:`irscales.correlation.KendallCounts`)."""
        counts = KendallCounts(*(np.asarray(x) for x in (self.concordant, self.discordant, self.tied_first_only,
                                                          self.tied_second_only, self.tied_both)))
        return float(counts.tau)


def compare_orders(m1: str | Callable, m2: str | Callable, runs: Sequence[Sequence[int]]) -> OrderComparison:
    """Count concordant, discordant and tied pairs of ``runs`` under two measures (exact)."""
    f, g = _measure(m1), _measure(m2)
    a = np.array([f(x) for x in runs], dtype=object)
    b = np.array([g(x) for x in runs], dtype=object)
    n1 = m1 if isinstance(m1, str) else getattr(m1, "__name__", "m1")
    n2 = m2 if isinstance(m2, str) else getattr(m2, "__name__", "m2")
    if len(runs) < 2:
        return OrderComparison(first=n1, second=n2, n_pairs=0, concordant=0, discordant=0, tied_first_only=0,
                               tied_second_only=0, tied_both=0)
    k = kendall_counts(a, b)
    counts = [int(x) for x in (k.concordant, k.discordant, k.ties_x, k.ties_y, k.ties_both)]
    concordant, discordant, tied_first_only, tied_second_only, tied_both = counts
    return OrderComparison(first=n1, second=n2, n_pairs=sum(counts), concordant=concordant, discordant=discordant,
                           tied_first_only=tied_first_only, tied_second_only=tied_second_only, tied_both=tied_both)


def disagreeing_pairs(m1: str | Callable, m2: str | Callable, runs: Sequence[Sequence[int]]) -> pd.DataFrame:
    """The pairs of runs the two measures order differently (reversed, or tied by only one),
    with both measures' exact values; one row per pair, ``a`` before ``b`` in ``runs`` order."""
    f, g = _measure(m1), _measure(m2)
    n1 = m1 if isinstance(m1, str) else getattr(m1, "__name__", "m1")
    n2 = m2 if isinstance(m2, str) else getattr(m2, "__name__", "m2")
    rows = []
    for x, y in itertools.combinations(runs, 2):
        s, t = _sign(f(x) - f(y)), _sign(g(x) - g(y))
        if s != t:
            kind = "reversed" if s * t == -1 else f"tied by {n1 if s == 0 else n2} only"
            rows.append({"a": list(x), "b": list(y), f"{n1}(a)": f(x), f"{n1}(b)": f(y),
                         f"{n2}(a)": g(x), f"{n2}(b)": g(y), "how": kind})
    return pd.DataFrame(rows, columns=["a", "b", f"{n1}(a)", f"{n1}(b)", f"{n2}(a)", f"{n2}(b)", "how"])


def common_grid(images: Iterable[Iterable[Fraction]]) -> list[Fraction]:
    """Smallest equi-spaced grid from min to max containing every value of every image (FFF21
    Example 11, option 2: the step is the gcd of all differences, i.e. based on the least common
    denominator)."""
    vals = sorted({Fraction(v) for im in images for v in im})
    if len(vals) < 2:
        return vals
    step = Fraction(0)
    for v in vals[1:]:
        d = v - vals[0]
        # gcd of two fractions = gcd(numerators) / lcm(denominators), in lowest terms
        step = Fraction(math.gcd(step.numerator * d.denominator, d.numerator * step.denominator),
                        step.denominator * d.denominator) if step else d
    k = int((vals[-1] - vals[0]) / step)
    return [vals[0] + i * step for i in range(k + 1)]


def summary(Ns: Iterable[int], Ks: Iterable[int]) -> pd.DataFrame:
    """One row per S[N, K]: size, image size and equi-spacing of P, R, F1, and for each pair of
    measures whether they order the runs the same way, the number of reversed pairs and τ_b."""
    rows = []
    for N in Ns:
        for K in Ks:
            runs = universe(N, K)
            row: dict = {"N": N, "K": K, "|S|": len(runs)}
            for m in MEASURES:
                im = image(m, runs)
                row[f"|{m}(S)|"] = len(im)
                row[f"{m} equi-spaced"] = is_equispaced(im)
            for m1, m2 in (("P", "R"), ("P", "F1"), ("R", "F1")):
                c = compare_orders(m1, m2, runs)
                row[f"{m1}~{m2} same order"] = c.same_order
                row[f"{m1}~{m2} reversed"] = c.discordant
                row[f"{m1}~{m2} tau_b"] = round(c.tau_b, 4)
            rows.append(row)
    return pd.DataFrame(rows)
