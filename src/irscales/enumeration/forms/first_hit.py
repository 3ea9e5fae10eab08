"""The ``first_hit`` form: value = 1 / the rank of the first relevant document, 0 if none (RR, FFF21 §6).

* kernel: integer key N + 1 − f for a first relevant rank f (0: none), two groups of top halves (with and
  without a relevant document);
* closed form (binary runs): 0 once, 1/k for the 2^{N−k} runs whose first relevant document is at rank k;
* count: φ_unq = N + 2 − f (1 for none); 2^{N−f} runs lie below 1/f and 2^{N−f} tie with it, any N
  (:mod:`irscales.enumeration.counting`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from irscales import measures as M
from irscales.enumeration._cache import Chunk
from irscales.enumeration.digit_sums import by_value
from irscales.enumeration.forms.base import Form, closed_count_cost, register
from irscales.enumeration.ties import exact_ints, tie_ranks
from irscales.options import UNQ

__all__ = ["FirstHit"]


def phi_first_hit(bits: np.ndarray, N: int, ties: str) -> np.ndarray:
    """φ of binary runs ``bits`` (n, L ≤ N) by their first relevant rank f (N + 1: none): φ_unq = N + 2 − f;
    2^{N−f} runs below 1/f (a later first hit or none) and 2^{N−f} runs tie, so up to = 2^{N−f+1}; the value 0
    has none below and one run."""
    any_ = bits.any(axis=1)
    first = np.where(any_, np.argmax(bits, axis=1) + 1, N + 1).astype(np.int64)
    if ties == UNQ:
        return exact_ints(N + 2 - first)
    uf, inv = np.unique(first, return_inverse=True)
    below = by_value([1 << (N - f) if f <= N else 0 for f in uf.tolist()], inv)
    upto = by_value([1 << (N - f + 1) if f <= N else 1 for f in uf.tolist()], inv)
    return tie_ranks(below, upto, None, ties)


class FirstHit(Form):
    """1 / the first relevant rank (module docstring)."""

    name = "first_hit"
    has_kernel = True

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        N, h = ker.N, ker.h

        def key(d, offset):  # key = N + 1 − first; value = 1/(N + 1 − key), see float_values
            if d.shape[1] == 0:  # N = 1: the bottom half is empty
                return np.zeros(len(d), np.int64)
            b = d > 0
            first = np.argmax(b, axis=1) + 1 + offset
            return np.where(b.any(1), N + 1 - first, 0).astype(np.int64)

        ka, kb = key(a_dig, 0), key(b_dig, h)
        ids = np.arange(len(ka))
        zero = ka == 0
        ker.set_groups("int", [ker.group(ids[zero], ka[zero], kb), ker.group(ids[~zero], ka[~zero], np.zeros_like(kb))])

    def has_closed_form(self, m: M.Measure) -> bool:
        return not m.numerator().reads_grades

    def closed_form(self, m: M.Measure, N: int) -> tuple[list, str]:
        keys = np.arange(N + 1, dtype=np.int64)  # key N + 1 − k ↔ first relevant at rank k
        counts = np.array([1] + [2 ** (k - 1) for k in range(1, N + 1)], dtype=np.int64)
        return [Chunk(keys, counts)], "key"

    def float_values(self, keys, N, mode, denominator):
        return np.where(keys > 0, 1.0 / np.maximum(N + 1 - keys, 1), 0.0)

    def exact_values(self, keys, N, denominator, norm):
        return [Fraction(0) if k == 0 else Fraction(1, N + 1 - int(k)) for k in keys]

    def counting_depth(self, m, c, ties):
        if c != 1:
            return super().counting_depth(m, c, ties)
        return math.inf, "closed form (rank of the first relevant document)"

    def count(self, m, runs, N, c, ties, progress, workers):
        return {t: phi_first_hit(runs, N, t) for t in ties}

    def pads_lazily(self, m, c):
        return c == 1 and not m.numerator().reads_grades

    def n_distinct(self, m, N, c):
        return N + 1

    def count_family(self, m, c):
        return "closed" if c == 1 else "none"

    def count_cost(self, m, N, c, ties, runs):
        return closed_count_cost(N, c, ties, runs) if c == 1 else super().count_cost(m, N, c, ties, runs)


FIRST_HIT = register(FirstHit())
