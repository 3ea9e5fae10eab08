"""The ``discounted`` form: DCG = Σ_i g_i·w_i with a log discount (DCG; nDCG's numerator; FFF21 §6), the JK
discount w_i = 1/max(1, log_B i) or trec_eval's 1/log2(i + 1). With an integer log base B every rank weighs
u_m/k for its class root m (i, or i + 1, = m^k) and u_m = ln B / ln m, so a run's value is Σ_m q_m·u_m with one
rational class coefficient q_m per root (:mod:`irscales.enumeration._dcg`).

* kernel: float keys with the packed coefficient vector as the exact identity; near ties adjudicated in
  ``Decimal`` (:meth:`irscales.enumeration._kernels.Kernel.adjudicate`);
* count (:mod:`irscales.enumeration.counting`, where the caveats are): canonical runs counted by a meet in the
  middle over ranks B+1..N (binary, JK discount), class-coefficient tuples (graded); distinct tuples are distinct
  values unless the 1/ln m are Q-linearly dependent (Schanuel's conjecture), checked by enumeration up to
  :func:`dcg_proven_depth`;
* bracket: a counting knapsack with one item per rank (runs) or per class (distinct values, ``unq``), logarithms in
  ``Decimal`` at 50 digits, widened outwards.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import numpy as np

from irscales import measures as M
from irscales.enumeration.bracket import (KNAPSACK_MAX_N, MAX_BITS, MAX_LOG2_COUNT, SECONDS_PER_CELL, Item, exact_counts,
                                          outward)
from irscales.enumeration._dcg import dcg_layout, log_sum_sign, rank_classes
from irscales.enumeration.forms.base import KnapsackForm, register
from irscales.enumeration.meet import (MAX_HALF, dcg_below, dcg_class_items, dcg_tie_scan, graded_dcg_below,
                                       graded_dcg_depth)
from irscales.enumeration.ties import tie_ranks
from irscales.options import UNQ

__all__ = ["Discounted"]

_DIGITS = 50

#: Counted DCG beyond these N relies on the conjecture stated in :mod:`irscales.enumeration.counting` (no tie
#: across discount classes): the largest N at which an enumeration of all (c+1)^N runs found none, per (log base,
#: grades c). Binary: the engine's scales up to N = 30; graded: the engine's scales the tests compare the count with
#: (tests/test_counting.py: base 2 with four grades at N = 11), and for three grades every distinct
#: class-coefficient tuple of all 3^17 runs (:func:`irscales.enumeration.meet.class_gap`: smallest gap 1.1e-9 in
#: base 2, 2.5e-6 in base 10, far above the float error; tests/test_counting.py). Up to N = base every rank
#: weighs 1 (one class).
_DCG_PROVEN_N = {1: 30}
_GRADED_DCG_PROVEN_N = {(2, 2): 17, (2, 3): 11, (10, 2): 17}


def dcg_proven_depth(measure: M.Measure, c: int) -> int:
    """The largest run length N at which counted φ of a DCG/nDCG with the JK discount over grades 0..c is
    proven exact by enumeration (no tie across discount classes among all (c+1)^N runs); beyond it, it is
    exact if Schanuel's conjecture holds (:mod:`irscales.enumeration.counting`)."""
    base = int(measure.base) if float(measure.base) == int(measure.base) else 0
    if c == 1:
        return max(_DCG_PROVEN_N[1], base)
    return max(_GRADED_DCG_PROVEN_N.get((base, c), 0), base)


# ------------------------------------------------------------------------------------------------ the knapsack


@lru_cache(maxsize=8)
def _rank_weights(discount: str, base: int, N: int) -> tuple[tuple[int, int], ...]:
    return tuple(rank_classes(M.DCG(base=base, discount=discount), N)[0])


@lru_cache(maxsize=256)
def _unit(logbase: int, m: int) -> Decimal:
    """u_m = ln B / ln m at :data:`_DIGITS` digits (1 exactly for m = B)."""
    if m == logbase:
        return Decimal(1)
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return Decimal(logbase).ln() / Decimal(m).ln()


def _logbase(discount: str, base: int) -> int:
    return 2 if discount == "log2p1" else base


def _rank_decimals(discount: str, base: int, N: int) -> list[Decimal]:
    """w_i = u_m / k per rank at :data:`_DIGITS` digits."""
    B = _logbase(discount, base)
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return [_unit(B, m) / k for m, k in _rank_weights(discount, base, N)]


@lru_cache(maxsize=16)
def _class_values(discount: str, base: int, N: int, c: int) -> tuple[tuple[int, tuple[Fraction, ...]], ...]:
    """Per class root m: the distinct coefficients q = Σ g_i/k_i over its ranks and grades 0..c, sorted."""
    by_root: dict[int, list[int]] = {}
    for m, k in _rank_weights(discount, base, N):
        by_root.setdefault(m, []).append(k)
    out = []
    for m, ks in by_root.items():
        vals = {Fraction(0)}
        for k in ks:
            vals = {v + Fraction(g, k) for v in vals for g in range(c + 1)}
        out.append((m, tuple(sorted(vals))))
    return tuple(out)


@lru_cache(maxsize=16)
def _items(discount: str, base: int, N: int, c: int, distinct: bool) -> tuple[Item, ...]:
    """The knapsack at N over grades 0..c: per rank (runs) or per class (distinct values)."""
    if distinct:
        B = _logbase(discount, base)
        with localcontext() as ctx:
            ctx.prec = _DIGITS
            return tuple(Item.of([Decimal(q.numerator) / Decimal(q.denominator) * _unit(B, m) for q in qs])
                         for m, qs in _class_values(discount, base, N, c))
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return tuple(Item.of([g * w for g in range(c + 1)]) for w in _rank_decimals(discount, base, N))


def _add_coefficient(acc: dict, x: tuple[int, Fraction]) -> dict:
    if not x[1]:
        return acc
    out = dict(acc)
    out[x[0]] = out.get(x[0], 0) + x[1]
    return out


@dataclass(frozen=True)
class DiscountedKnapsack:
    """The knapsack of DCG/nDCG with the ``discount`` and integer log ``base`` (:class:`~irscales.enumeration.bracket.
    Knapsack`): one item per rank with options g·w_i for runs; for distinct values (``unq``) one item per class
    with its distinct coefficients q·u_m, K = Π_m #coefficients (distinct under Schanuel's conjecture)."""

    discount: str
    base: int
    graded: bool
    bits = 14

    def depth(self, c: int, ties: str | None) -> tuple[float, str]:
        depth = min(KNAPSACK_MAX_N, int(MAX_LOG2_COUNT / math.log2(c + 1)))
        return depth, (f"counts are summed in scaled float64: (c + 1)^N < 2^{MAX_LOG2_COUNT}; offered to N = "
                       f"{KNAPSACK_MAX_N} (measured at N = 1000: docs/benchmarks.md)")

    def cost(self, N: int, c: int, ties: str, n_runs: int) -> tuple[float, int]:
        if ties == UNQ:  # two per class: len() of each (root, coefficients) pair, not of the coefficients
            opts = sum(len(v) for v in _class_values(self.discount, self.base, N, c))
        else:
            opts = N * (c + 1)
        cells = opts * 2**18 * 2
        grids = min(n_runs, 12)
        return grids * cells * SECONDS_PER_CELL + n_runs * 2e-4, 3 * 8 * 2**MAX_BITS  # three float arrays at worst

    def k(self, N: int, c: int, ties: str) -> int:
        if ties != UNQ:
            return (c + 1) ** N
        return math.prod(len(qs) for _, qs in _class_values(self.discount, self.base, N, c))

    def conditional(self, ties: str) -> bool:
        return ties == UNQ

    def distinct(self, ties: str) -> bool:
        return ties == UNQ

    def items(self, N: int, c: int, distinct: bool) -> tuple[Item, ...]:
        return _items(self.discount, self.base, N, c, distinct)

    def values(self, rows: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
        L = rows.shape[1]
        lo, hi = np.empty(len(rows)), np.empty(len(rows))
        w = _rank_decimals(self.discount, self.base, N)[:L]
        with localcontext() as ctx:
            ctx.prec = _DIGITS
            for r, row in enumerate(rows):
                nz = np.flatnonzero(row)
                lo[r], hi[r] = outward(sum((int(row[i]) * w[i] for i in nz), Decimal(0)))
        return lo, hi

    def exact_counter(self, N, c, distinct, items, rows, lo_v, hi_v):
        """Exact options as (class root, coefficient) pairs, compared by the sign of a log sum."""
        if distinct:
            options = [[(m, q) for q in qs] for m, qs in _class_values(self.discount, self.base, N, c)]
        else:
            ranks = _rank_weights(self.discount, self.base, N)
            options = [[(m, Fraction(g, k)) for g in range(c + 1)] for m, k in ranks]
        B = _logbase(self.discount, self.base)
        ranks = _rank_weights(self.discount, self.base, N)

        def target(row: np.ndarray):
            t: dict = {}
            for i in np.flatnonzero(row):
                t = _add_coefficient(t, (ranks[i][0], Fraction(int(row[i]), ranks[i][1])))
            return t

        def sign(s, t):
            return log_sum_sign({r: s.get(r, 0) - t.get(r, 0) for r in set(s) | set(t)}, B)

        return lambda q: exact_counts(items, options, _add_coefficient, {}, sign, float(lo_v[q]), float(hi_v[q]),
                                      target(rows[q]))


# --------------------------------------------------------------------------------------------------- the form


class Discounted(KnapsackForm):
    """Σ_i g_i·w_i with a log discount (module docstring)."""

    name = "discounted"
    has_kernel = True

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        m, N = ker.measure, ker.N
        gmax = ker.c if graded else 1
        lay = dcg_layout(m, N, gmax)
        if lay.size >= 2**62:
            raise NotImplementedError(f"{m!r} at N={N}, c={ker.c}: the exact identity needs more than 62 bits")
        ident = [lay.coef[i] * lay.stride[lay.cls[i][0]] for i in range(N)]
        wf = M.dcg_discount(N, m.base, m.discount)

        def exact(idents, digits: int = 60) -> list:
            return [lay.value(ident, digits) for ident in idents]

        ker.float_keys(a_dig, b_dig, wf, ident, graded, float(gmax * wf.sum()), exact)

    def kernel_mode(self, m, N, c, int_bits=62):
        return "float"

    def engine_depth(self, m, c, best, why):
        num = m.numerator()
        try:
            dcg_layout(num, 1, 1)
        except NotImplementedError as e:
            return 0, f"{m!r}: {e}"
        graded = c > 1 and num.reads_grades
        n = 0
        while n < best and dcg_layout(num, n + 1, c if graded else 1).size < 2**62:
            n += 1
        if n < best:
            return n, f"the exact identity that separates tied DCG values must fit 62 bits (N ≤ {n})"
        return best, why

    def distinct_bound(self, m, N, c):
        """Binary DCG with the JK discount and an integer base B: (B + 1)·2^{N−B} values (FFF21 §5.1)."""
        num = m.numerator()
        runs = (c + 1) ** N
        B = num.integer_log_base if c == 1 and not num.reads_grades else None
        if B is not None and N > B:
            return min(runs, (B + 1) * 2 ** (N - B))
        return runs

    def counting_depth(self, m, c, ties):
        num = m.numerator()
        B = num.integer_log_base
        if B is not None and num.reads_grades:
            depth = graded_dcg_depth(B, c)
            if ties != UNQ and (c + 1) ** depth >= 2**62:  # runs below are int64 sums in the kernel
                return int(61 / math.log2(c + 1)), "runs below a value are counted in int64: (c + 1)^N < 2^62"
            return depth, (
                f"meet in the middle over the class coefficients of ranks 1..N needs two tables of at most "
                f"2^{MAX_HALF} sums for grades 0..{c}")
        if c != 1 or B is None:
            return super().counting_depth(m, c, ties)
        tie, example = dcg_tie_scan(B)
        mem = B + 2 * MAX_HALF
        if tie - 1 <= mem:
            return tie - 1, (f"from N = {tie} on ranks of one class tie in new ways ({example}), "
                             "so canonical runs no longer count distinct values")
        return mem, f"meet in the middle over ranks {B + 1}..N needs half tables of at most 2^{MAX_HALF} entries"

    def count(self, m, runs, N, c, ties, progress, workers):
        num = m.numerator()
        if num.reads_grades:
            counts = graded_dcg_below(runs, int(num.base), c, progress, workers)
        else:
            counts = dcg_below(runs, int(num.base), progress)
        return {t: tie_ranks(*counts, t) for t in ties}

    def n_distinct(self, m, N, c):
        num = m.numerator()
        if num.reads_grades:  # distinct class-coefficient tuples
            return math.prod(len(v) for _, _, v, _ in dcg_class_items(int(num.base), N, c))
        B = min(int(num.base), N)  # canonical runs: (B + 1)·2^{N−B} values (3·2^{N−2} for B = 2)
        return (B + 1) * 2 ** (N - B)

    def count_family(self, m, c):
        return "gdcg" if m.numerator().reads_grades else "dcg"

    def count_cost(self, m, N, c, ties, runs):
        if self.count_family(m, c) == "dcg":
            B = int(m.numerator().base)
            half = 2.0 ** (max(N - B, 0) / 2)
            return 8e-7 * half + runs * 1e-4 * 2 ** ((N - 30) / 2.5), int(320 * half)
        half = float(c + 1) ** (N / 2)
        return runs * 40e-3 * half / 3**15, int(40 * half)

    def count_basis(self, m, N, c):
        num = m.numerator()
        if num.integer_log_base is not None and N <= num.integer_log_base:
            return "proof", "counted; every rank up to the log base weighs 1 (a sum of gains)"
        depth = dcg_proven_depth(num, c)
        if N <= depth:
            return "enumeration", (f"counted; no tie across discount classes among all {(c + 1) ** N:,} runs, checked "
                                   f"by enumeration up to N = {depth}")
        runs = "runs" if c == 1 else f"runs over {c + 1} grades"
        return "conditional", (f"exact if no Q-linear relation among the 1/ln m exists (Schanuel's conjecture); "
                               f"proven by enumeration of all {runs} up to N = {depth} (irscales.enumeration.counting)")

    def knapsack(self, m: M.Measure, c: int) -> DiscountedKnapsack | None:
        num = m.numerator()
        if float(num.base) == int(num.base) and int(num.base) >= 2 and (num.reads_grades or c == 1):
            return DiscountedKnapsack(num.discount, int(num.base), num.reads_grades)
        return None


DISCOUNTED = register(Discounted())
