"""The ``grade_sum`` form: value = Σ_i g_i / d, the sum of the grades over a constant (P, gP; R and gR's numerator P
counts the relevant documents). FFF21 §5, FFP19 §4.2.

* kernel: integer keys Σ g_i (the measure's :meth:`~irscales.measures.Measure.integer_weights`: all 1);
* closed form (binary runs): k relevant documents in N ranks, values k/N with multiplicity C(N, k);
* count: φ_unq = t + 1 for the grade sum t, runs below and up to it the coefficients of (1 + x + … + x^c)^N
  (:func:`irscales.enumeration.digit_sums.phi_grade_sums`), any N, any c.
"""
from __future__ import annotations

import math

import numpy as np

from irscales import measures as M
from irscales.enumeration._cache import Chunk
from irscales.enumeration.digit_sums import phi_grade_sums
from irscales.enumeration.forms.base import Form, closed_count_cost, register

__all__ = ["GradeSum"]


class GradeSum(Form):
    """Σ_i g_i / d (module docstring)."""

    name = "grade_sum"
    has_kernel = True

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        w, d = ker.measure.numerator().integer_weights(ker.N, ker.c)
        ker.additive_int(a_dig, b_dig, w, graded, d)

    def has_closed_form(self, m: M.Measure) -> bool:
        return not m.numerator().reads_grades

    def closed_form(self, m: M.Measure, N: int) -> tuple[list, str]:
        return [Chunk(np.arange(N + 1, dtype=np.int64), np.array([math.comb(N, k) for k in range(N + 1)], np.int64))], \
            "key"

    def counting_depth(self, m, c, ties):
        if m.numerator().reads_grades and c >= 1:
            return math.inf, "closed form (sum of grades; counts are coefficients of (1 + x + … + x^c)^N)"
        if c != 1:
            return super().counting_depth(m, c, ties)
        return math.inf, "closed form (binomial counts)"

    def count(self, m, runs, N, c, ties, progress, workers):
        top = c if m.numerator().reads_grades else 1  # binary runs: the relevant documents
        return {t: phi_grade_sums(runs.sum(axis=1, dtype=np.int64), N, top, t) for t in ties}

    def pads_lazily(self, m, c):
        return m.numerator().reads_grades or c == 1

    def n_distinct(self, m, N, c):
        return c * N + 1 if m.numerator().reads_grades else N + 1

    def count_family(self, m, c):
        return "closed" if m.numerator().reads_grades or c == 1 else "none"

    def count_cost(self, m, N, c, ties, runs):
        return closed_count_cost(N, c, ties, runs) if self.count_family(m, c) == "closed" else super().count_cost(
            m, N, c, ties, runs)


GRADE_SUM = register(GradeSum())
