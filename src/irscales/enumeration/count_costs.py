"""What counting φ costs (:mod:`irscales.enumeration.counting`): the family of a measure's count and the rough
estimates that the planner (:mod:`irscales.enumeration.routes`) compares with a scale build."""

from __future__ import annotations

import math
from fractions import Fraction

from irscales import measures as M
from irscales.enumeration.digit_sums import graded_rbp_tie
from irscales.enumeration.runs import numerator
from irscales.enumeration.ties import RUN_TIES
from irscales.exact import to_fraction
from irscales.options import UNQ

__all__ = ["family", "count_cost"]


def family(m: M.Measure, c: int) -> str:
    """How φ of ``m`` is counted: ``closed`` (P, R, RR, RBP p ≤ 1/2, gP), ``rbp`` (meet in the middle,
    binary or graded), ``dcg``, ``gdcg`` (graded DCG), ``ap`` (SP/AP), or ``none``."""
    num = numerator(m)
    form, graded = num.form, num.reads_grades  # declared by the measure (irscales.measures.Measure.form)
    if form == "grade_sum" and graded:
        return "closed"
    if form == "geometric" and graded:
        return "digits" if graded_rbp_tie(num.p, c) is not None else "rbp"
    if form == "discounted":
        return "gdcg" if graded else "dcg"
    if c != 1:
        return "none"
    if form == "sp":
        return "ap"
    if form in ("grade_sum", "first_hit"):
        return "closed"
    if form == "geometric":
        return "closed" if to_fraction(num.p) <= Fraction(1, 2) else "rbp"
    return "none"


def count_cost(measure: M.Measure | str, N: int, c: int = 1, ties: str | None = None,
               runs: int = 10_000) -> tuple[float, int]:
    """Rough cost of :func:`phi_runs` for ``runs`` runs of length N: (seconds, peak bytes of its tables).

    An order of magnitude for choosing a route and for messages, fitted to ``docs/benchmarks.md``
    (2 cores; simulated uniform runs, the widest meet-in-the-middle windows): closed forms take
    ~10 ns per rank and run plus, for min/max/mid, the walk of :func:`grade_sum_prefix`; RBP p > 1/2
    builds half tables of (c+1)^{N/2} keys (~0.15 µs and 40 bytes each) and scans ~((c+1)p)^{N/2} of them
    per run (50 ns each: RBP_p08 at N = 50, 6,450 runs, ≈ 47 s); binary DCG ≈ 0.1 ms per run at N = 30,
    ×2 every 2.5 ranks, plus its tables (14 s at N = 50); graded DCG ≈ 40 ms per run at N = 30 with three
    grades, ×(c+1) every two ranks; AP min/max/mid ≈ 0.4 ms per run at N = 30, ×2^0.76 per rank, plus
    ≈ 2.5 µs per entry of its bottom table (2^20 entries at N = 30 and 40); AP unq deduplicates all 2^N
    keys (≈ 1.5 µs each: 31 s at N = 24 on the contended machine). Not a promise: real runs are usually
    cheaper (sparser)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    runs = max(int(runs), 1)
    fam = family(m, c)
    if fam == "closed":
        bits = N * math.log2(c + 1)
        walk = 0.0 if ties == UNQ else (c * N / 2) * c * (bits / 64) * 2e-8
        return 1e-3 + runs * N * 1e-8 + walk, int(runs * max(8, bits / 8))
    if fam == "digits":  # carry_counts: N·(c+1)·(carries) numpy steps over the runs (7 ms: N = 10, 768 runs)
        steps = N * (c + 1) * (c // (to_fraction(m.p).denominator - 1) + 1)
        return 2e-4 + steps * (3e-5 + runs * 5e-8), 64 * runs * (c + 2)
    if fam == "rbp":
        p = to_fraction(m.p)
        h = N // 2
        entries = (c + 1) ** h + (c + 1) ** (N - h)
        window = max(1.0, float(((c + 1) * p) ** h))
        return 1.5e-7 * entries + runs * 5e-8 * window, 40 * entries
    if fam == "dcg":
        B = int(numerator(m).base)
        half = 2.0 ** (max(N - B, 0) / 2)
        return 8e-7 * half + runs * 1e-4 * 2 ** ((N - 30) / 2.5), int(320 * half)
    if fam == "gdcg":
        half = float(c + 1) ** (N / 2)
        return runs * 40e-3 * half / 3**15, int(40 * half)
    if fam == "ap":
        if ties in RUN_TIES:
            tables = 2 ** min(N - N // 3, 20)  # the bottom table (2^20 entries at N = 30 and 40: 2-3 s)
            return 1e-3 + 2.5e-6 * tables + runs * 0.4e-3 * 2 ** (0.76 * (N - 30)), 48 * tables
        return 1e-3 + 1.5e-6 * 2**N + runs * 1e-6, 24 * 2**N
    return math.inf, 0
