"""The ``geometric`` form: value = Σ_i g_i·p^{i−1}·(1 − p)/g_max for a rational persistence p = a/b (RBP, gRBP;
FFF21 §6, FFP19 §5), read exactly as the integer key K = Σ_i g_i·a^{i−1}·b^{N−i} (the measure's
:meth:`~irscales.measures.Measure.integer_weights`).

* kernel: the integer keys while Σ_i a^{i−1} b^{N−i}·g_max < 2^62; beyond, binary RBP in float mode with the run id
  as its identity (binary RBP never ties); graded RBP can tie, so it stops there;
* closed form (binary runs, p ≤ 1/2): rank i outweighs all later ranks, runs are ordered by their run id;
* count (:mod:`irscales.enumeration.counting`, where the no-tie proofs are): binary runs and graded runs with
  b > c have no ties, φ = 1 + runs below, counted by a meet in the middle (:func:`irscales.enumeration.meet.below_rbp`);
  graded runs with p = 1/b ≤ 1/c tie, every integer key is a value, counted digit by digit with carries
  (:mod:`irscales.enumeration.digit_sums`);
* bracket: a counting knapsack, one item per rank with options g·p^{i−1} (exact rationals), K = (c + 1)^N.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from irscales import measures as M
from irscales.enumeration.bracket import FLOAT_LOG2_COUNT, MAX_BITS, SECONDS_PER_CELL, Item, exact_counts, outward
from irscales.enumeration._cache import IdRangeChunk
from irscales.enumeration.digit_sums import carry_counts, graded_rbp_tie
from irscales.enumeration.forms.base import KnapsackForm, closed_count_cost, register
from irscales.enumeration.meet import MAX_HALF, below_rbp, rbp_half_bound
from irscales.enumeration._runs import runs_from_ids
from irscales.enumeration.ties import exact_ints, tie_ranks
from irscales.exact import to_fraction
from irscales.options import UNQ

__all__ = ["Geometric"]

_SECONDS_PER_RUN = 1.5e-7  # engine, binary RBP (docs/benchmarks.md: RBP_p08 at N = 30, 149 s for 2^30 runs)


def run_id_big(bits: np.ndarray, N: int | None = None) -> np.ndarray:
    """Run ids Σ rel_i 2^{N−i} of runs whose ranks beyond ``bits``' L are not relevant: int64 up to N = 62,
    else Python ints (packed bytes, O(L) per run)."""
    L = bits.shape[1]
    N = L if N is None else N
    if N <= 62:
        return bits.astype(np.int64) @ (np.int64(1) << np.arange(N - 1, N - L - 1, -1, dtype=np.int64))
    shift = N - L - (-L % 8)  # packbits pads L up to whole bytes, with zeros at the end
    packed = np.packbits(bits.astype(bool), axis=1)  # big-endian bits
    ids = [int.from_bytes(row.tobytes(), "big") for row in packed]
    return exact_ints(np.array([i << shift if shift >= 0 else i >> -shift for i in ids] + [None], dtype=object)[:-1])


def no_ties(below: np.ndarray, ties: str) -> np.ndarray:
    """φ of a measure without ties (RBP with rational p, gRBP with b > c): one run per value, so every
    tie strategy gives 1 + runs below."""
    below = exact_ints(below)
    upto = tie_ranks(below, None, None, "min")
    return tie_ranks(below, upto, upto, ties)


@dataclass(frozen=True)
class GeometricKnapsack:
    """The knapsack of RBP (``graded`` False: binary runs) or gRBP over grades 0..c: one item per rank i with
    options g·p^{i−1}, g = 0..c (:class:`irscales.enumeration.bracket.Knapsack`). Without ties (binary, or b > c)
    runs are values: K = (c + 1)^N."""

    p: Fraction
    graded: bool
    bits = 12

    def depth(self, c: int, ties: str | None) -> tuple[float, str]:
        p = self.p
        if self.graded and ties in (None, UNQ) and p.denominator <= c:
            return 0, f"graded RBP with p = {p} ties over grades 0..{c}: distinct values are not runs"
        depth = int(1 + (FLOAT_LOG2_COUNT - 40) / -math.log2(p)) if p < 1 else 0
        return depth, (f"weights p^(i−1) must stay normal float64 numbers with 40 bits of grid below them "
                       f"(p^(N−1) ≥ 2^−{FLOAT_LOG2_COUNT - 40})")

    def cost(self, N: int, c: int, ties: str, n_runs: int) -> tuple[float, int]:
        cells = 80 * (c + 1) * 2**16 * 2  # the head: ranks down to the grid width; 2^16 cells typical
        grids = min(n_runs, 40)
        return grids * cells * SECONDS_PER_CELL + n_runs * 2e-4, 3 * 8 * 2**MAX_BITS  # three float arrays at worst

    def k(self, N: int, c: int, ties: str) -> int:
        return (c + 1) ** N

    def conditional(self, ties: str) -> bool:
        return False

    def distinct(self, ties: str) -> bool:
        return False

    def items(self, N: int, c: int, distinct: bool) -> tuple[Item, ...]:
        return _items(self.p, N, c)

    def values(self, rows: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
        L = rows.shape[1]
        lo, hi = np.empty(len(rows)), np.empty(len(rows))
        a, b = self.p.numerator, self.p.denominator
        coef = [a**i * b ** (L - 1 - i) for i in range(L)]  # Σ g_i p^(i−1) = Σ g_i a^(i−1) b^(L−i) / b^(L−1)
        den = b ** (L - 1)
        for r, row in enumerate(rows):
            nz = np.flatnonzero(row)
            lo[r], hi[r] = outward(Fraction(sum(int(row[i]) * coef[i] for i in nz), den))
        return lo, hi

    def exact_counter(self, N, c, distinct, items, rows, lo_v, hi_v):
        """Exact options as integers Σ g·a^i·b^(N−1−i) (the value times b^(N−1))."""
        a, b = self.p.numerator, self.p.denominator
        options = [[g * a**i * b ** (N - 1 - i) for g in range(c + 1)] for i in range(N)]

        def target(row: np.ndarray):
            return sum(int(row[i]) * options[i][1] for i in np.flatnonzero(row))

        def sign(s, t):
            return (s > t) - (s < t)

        return lambda q: exact_counts(items, options, lambda s, x: s + x, 0, sign, float(lo_v[q]), float(hi_v[q]),
                                      target(rows[q]))


@lru_cache(maxsize=16)
def _items(p: Fraction, N: int, c: int) -> tuple[Item, ...]:
    return tuple(Item.of([g * p**i for g in range(c + 1)]) for i in range(N))


class Geometric(KnapsackForm):
    """Σ_i g_i·a^{i−1}·b^{N−i} for p = a/b (module docstring)."""

    name = "geometric"
    has_kernel = True

    # -- kernel -----------------------------------------------------------------------------------------------------

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        m, N, c = ker.measure.numerator(), ker.N, ker.c
        w, d = m.integer_weights(N, c)
        gmax = c if graded else 1
        if sum(w) * gmax < 2**int_bits:  # int_bits < 62 only in tests, to exercise the float path
            ker.additive_int(a_dig, b_dig, w, graded, d)
        elif graded:
            raise NotImplementedError(
                f"{m!r} with {c + 1} grades at N={N}: exact keys exceed 62 bits (graded RBP can tie,"
                " so the binary no-tie argument does not apply); use N ≤ 25")
        else:
            def exact(idents, digits: int = 0) -> list:  # the run id is the identity: its exact RBP
                out = []
                for rid in idents:
                    bits = runs_from_ids(np.array([rid]), N, c)[0]
                    out.append(Fraction(sum(x for x, r in zip(w, bits) if r), 1) / d)
                return out

            wf = [float(Fraction(x) / d) for x in w]
            ker.float_keys(a_dig, b_dig, wf, [ker.base ** (N - 1 - i) for i in range(N)], False, sum(wf), exact, d)

    def kernel_mode(self, m, N, c, int_bits=62):
        num = m.numerator()
        w = sum(num.integer_weights(N, c)[0])
        return "int" if w * (c if c > 1 and num.reads_grades else 1) < 2**int_bits else "float"

    def engine_depth(self, m, c, best, why):
        num = m.numerator()
        if not (c > 1 and num.reads_grades):
            return best, why
        p = to_fraction(num.p)
        n = 0
        while n < best and sum(p.numerator**i * p.denominator ** (n - i) for i in range(n + 1)) * c < 2**62:
            n += 1
        if n < best:
            return n, f"graded RBP can tie, so its exact integer keys must fit 62 bits (N ≤ {n})"
        return best, why

    def build_rate(self, m):
        return super().build_rate(m) if m.numerator().reads_grades else _SECONDS_PER_RUN

    # -- closed form --------------------------------------------------------------------------------------------------

    def has_closed_form(self, m):
        num = m.numerator()
        return not num.reads_grades and to_fraction(num.p) <= Fraction(1, 2)

    def closed_form(self, m, N):
        step = 1 << 22
        return [IdRangeChunk(lo, min(lo + step, 2**N)) for lo in range(0, 2**N, step)], "runid"

    def closed_chunks(self, m, N):
        return max(1, 2**N >> 22)

    # -- count --------------------------------------------------------------------------------------------------------

    def counting_depth(self, m, c, ties):
        num = m.numerator()
        if num.reads_grades and c >= 1:
            p = to_fraction(num.p)
            if graded_rbp_tie(p, c) is not None and p.numerator == 1:
                return math.inf, f"p = 1/{p.denominator}: every integer key Σ g_i b^(N−i) is a value (digit_sums)"
            if graded_rbp_tie(p, c) is not None:
                return 0, (f"graded RBP with p = {p} ties over grades 0..{c} (denominator {p.denominator} ≤ {c}), "
                           "so counting runs does not count distinct values (counted only for p = 1/b)")
            L = rbp_half_bound(p, c)
            return 2 * L, (f"meet in the middle needs both half tables of {c + 1}^⌈N/2⌉ exact int64 keys; beyond "
                           f"N = {2 * L} they exceed 2^{MAX_HALF} entries or 62 bits")
        if c != 1:
            return super().counting_depth(m, c, ties)
        p = to_fraction(num.p)
        if p <= Fraction(1, 2):
            return math.inf, "closed form (p ≤ 1/2: runs are ordered by their run id)"
        L = rbp_half_bound(p)
        why = (f"meet in the middle needs both half tables of 2^⌈N/2⌉ exact int64 keys; beyond N = {2 * L} "
               + ("they exceed the memory bound of 2^%d entries" % MAX_HALF if L == MAX_HALF
                  else f"the keys Σ a^(i−1) b^(L−i) of p = {p} exceed 62 bits"))
        return 2 * L, why

    def count(self, m, runs, N, c, ties, progress, workers):
        num = m.numerator()
        p = to_fraction(num.p)
        if num.reads_grades:
            if graded_rbp_tie(num.p, c) is not None:  # p = 1/b with b ≤ c: keys are digits with carries
                counts = carry_counts(runs, p.denominator, c)
                return {t: tie_ranks(*counts, t) for t in ties}
            below = below_rbp(runs, p, progress, workers, c)
            return {t: no_ties(below, t) for t in ties}  # no ties when counted (counting's docstring)
        below = run_id_big(runs, N) if p <= Fraction(1, 2) else below_rbp(runs, p, progress, workers)
        return {t: no_ties(below, t) for t in ties}

    def pads_lazily(self, m, c):
        num = m.numerator()
        return not num.reads_grades and c == 1 and to_fraction(num.p) <= Fraction(1, 2)

    def n_distinct(self, m, N, c):
        num = m.numerator()
        if num.reads_grades:  # no ties when counted by meet in the middle; p = 1/b ≤ 1/c: 0..M_N
            b = to_fraction(num.p).denominator
            return c * (b**N - 1) // (b - 1) + 1 if graded_rbp_tie(num.p, c) is not None else (c + 1) ** N
        return 2**N

    def count_family(self, m, c):
        num = m.numerator()
        if num.reads_grades:
            return "digits" if graded_rbp_tie(num.p, c) is not None else "rbp"
        if c != 1:
            return "none"
        return "closed" if to_fraction(num.p) <= Fraction(1, 2) else "rbp"

    def count_cost(self, m, N, c, ties, runs):
        fam, p = self.count_family(m, c), to_fraction(m.numerator().p)
        if fam == "closed":
            return closed_count_cost(N, c, ties, runs)
        if fam == "digits":  # carry_counts: N·(c+1)·(carries) numpy steps over the runs (7 ms: N = 10, 768 runs)
            steps = N * (c + 1) * (c // (p.denominator - 1) + 1)
            return 2e-4 + steps * (3e-5 + runs * 5e-8), 64 * runs * (c + 2)
        if fam == "rbp":
            h = N // 2
            entries = (c + 1) ** h + (c + 1) ** (N - h)
            window = max(1.0, float(((c + 1) * p) ** h))
            return 1.5e-7 * entries + runs * 5e-8 * window, 40 * entries
        return super().count_cost(m, N, c, ties, runs)

    def count_basis(self, m, N, c):
        if graded_rbp_tie(m.numerator().p, c) is not None:
            return "proof", ("counted; ties, every integer key a value, carries (proof in "
                             "irscales.enumeration.digit_sums)")
        return "proof", "counted; no ties (proof in irscales.enumeration.counting)"

    # -- bracket ------------------------------------------------------------------------------------------------------

    def knapsack(self, m: M.Measure, c: int) -> GeometricKnapsack | None:
        num = m.numerator()
        if num.reads_grades or c == 1:  # RBP is binary: over graded runs it has no knapsack of its own
            return GeometricKnapsack(to_fraction(num.p), num.reads_grades)
        return None


GEOMETRIC = register(Geometric())
