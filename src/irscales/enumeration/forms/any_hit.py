"""The ``any_hit`` form: value = 1 if a relevant document is retrieved, else 0 (Succ; Succ@k is Succ over its k
ranks, as P@k is P's, FFF21 §5.1). A two-valued scale: over the 2^N binary runs of length N the value 0 is the empty
run's alone, 1 the 2^N − 1 others'. So FFF21 eq. (2) gives φ_unq = 1 + value and K = 2: the interval value
(φ − 1)/(K − 1) is Succ itself (a two-valued scale is trivially interval); §7.1.3's ``min``/``max``/``mid`` rank
the runs: φ_min = 1, 2; φ_max = 1, 2^N; K = 2^N.

* kernel: integer key any(run), two groups of top halves (with and without a relevant document);
* closed form (binary runs): keys 0, 1 with multiplicities 1, 2^N − 1;
* count: the same at any N (nothing but whether a rank is relevant is read, so the padding is never allocated).
"""
from __future__ import annotations

import math

import numpy as np

from irscales import measures as M
from irscales.enumeration._cache import Chunk
from irscales.enumeration.digit_sums import by_value
from irscales.enumeration.forms.base import Form, closed_count_cost, register
from irscales.enumeration.ties import exact_ints, tie_ranks
from irscales.options import UNQ

__all__ = ["AnyHit"]


def phi_any_hit(bits: np.ndarray, N: int, ties: str) -> np.ndarray:
    """φ of binary runs ``bits`` (n, L ≤ N) of length N: the empty run is 1 with every strategy; a run with a hit
    has the empty run below it and 2^N − 1 runs tied with it (φ_unq = 2, φ_min = 2, φ_max = 2^N)."""
    hit = bits.any(axis=1).astype(np.int64)
    if ties == UNQ:
        return exact_ints(1 + hit)
    below = by_value([0, 1], hit)
    upto = by_value([1, 1 << N], hit)
    return tie_ranks(below, upto, None, ties)


class AnyHit(Form):
    """Whether a relevant document is retrieved (module docstring)."""

    name = "any_hit"
    has_kernel = True

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        ka = (a_dig > 0).any(axis=1).astype(np.int64)
        kb = (b_dig > 0).any(axis=1).astype(np.int64) if b_dig.shape[1] else np.zeros(len(b_dig), np.int64)
        ids = np.arange(len(ka))
        hit = ka == 1  # a hit on top: 1 whatever the bottom half; none: the bottom half's
        ker.set_groups("int", [ker.group(ids[~hit], ka[~hit], kb), ker.group(ids[hit], ka[hit], np.zeros_like(kb))])

    def has_closed_form(self, m: M.Measure) -> bool:
        return not m.numerator().reads_grades

    def closed_form(self, m: M.Measure, N: int) -> tuple[list, str]:
        return [Chunk(np.array([0, 1], np.int64), np.array([1, 2**N - 1], np.int64))], "key"

    def counting_depth(self, m, c, ties):
        if c != 1:
            return super().counting_depth(m, c, ties)
        return math.inf, "closed form (whether a relevant document is retrieved: two values)"

    def count(self, m, runs, N, c, ties, progress, workers):
        return {t: phi_any_hit(runs, N, t) for t in ties}

    def pads_lazily(self, m, c):
        return c == 1 and not m.numerator().reads_grades

    def n_distinct(self, m, N, c):
        return 2

    def count_family(self, m, c):
        return "closed" if c == 1 else "none"

    def count_cost(self, m, N, c, ties, runs):
        return closed_count_cost(N, c, ties, runs) if c == 1 else super().count_cost(m, N, c, ties, runs)


ANY_HIT = register(AnyHit())
