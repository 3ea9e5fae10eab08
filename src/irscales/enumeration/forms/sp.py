"""The ``sp`` form: SP = Σ_i rel_i·(Σ_{j≤i} rel_j)/i, the sum of precisions at the relevant ranks — SP itself and
AP's numerator (AP = SP/RB orders and ties runs as SP, FFF21 §5.2.2). Binary runs only.

* kernel: exact integer keys SP·lcm(1..N), one group per number of hits in the top half (SP = SP_top +
  SP_bottom + k·Σ_{bottom, relevant} 1/i), N·lcm(1..N) < 2^62;
* count (:mod:`irscales.enumeration._ap_count`): runs below / up to a value by a meet in the middle conditioned on
  the top half's hits, proven exact to N = 40 (ties min/max/mid); φ_unq by deduplicating all 2^N keys, N ≤ 24;
* bracket (:mod:`irscales.enumeration._bracket_ap`, :mod:`irscales.enumeration._bracket_ap_reach`): a rounded count
  over ranks read at every grid cell at once, refined by a monotone planner within a time budget, ties min/max/mid to
  N = 1020 within the error reachable at that N (1 % to a few hundred ranks; about 0.16 at N = 1000, or any wider
  error the caller asks, issue 51).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from irscales.enumeration import _bracket_ap as bracket_ap, _bracket_ap_reach as bracket_ap_reach
from irscales.enumeration._ap_count import AP_MAX_N, FULL_MAX_N, n_distinct_sp, phi_ap
from irscales.enumeration.forms.base import Form, register
from irscales.enumeration.ties import RUN_TIES
from irscales.options import UNQ

__all__ = ["SumOfPrecisions"]

#: What the AP bracket rests on (the bounded route's basis).
AP_BASIS = ("φ bracketed by proven lower and upper counts of a rounded count over ranks "
            "(irscales.enumeration._bracket_ap; FFF21 eq. 2, §7.1.3)")
_SECONDS_PER_RUN = 6e-7  # the shared machine's rate (issue 37: N = 27 took 80 s; loaded builds 2.3-4.0e-7 s/run)


class SumOfPrecisions(Form):
    """SP (module docstring)."""

    name = "sp"
    has_kernel = True

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        N, h = ker.N, ker.h
        L = math.lcm(*range(1, N + 1))
        if N * L >= 2**62:
            raise ValueError(f"SP·lcm(1..N) overflows 62 bits at N={N}")
        inv = np.array([L // i for i in range(1, N + 1)], dtype=np.int64)
        ab = (a_dig > 0).astype(np.int64)
        bb = (b_dig > 0).astype(np.int64)
        sp_a = (ab * np.cumsum(ab, axis=1) * inv[:h]).sum(1)
        k_a = ab.sum(1)
        sp_b = (bb * np.cumsum(bb, axis=1) * inv[h:]).sum(1)
        s_b = (bb * inv[h:]).sum(1)  # Σ_{bottom, relevant} L/i: each top-half hit adds this
        ids = np.arange(len(sp_a))
        ker.set_groups("int", [ker.group(ids[k_a == k], sp_a[k_a == k], sp_b + k * s_b) for k in range(h + 1)],
                       Fraction(L))

    def engine_depth(self, m, c, best, why):
        n = 1
        while (n + 1) * math.lcm(*range(1, n + 2)) < 2**62:
            n += 1
        if n <= best:
            return n, f"exact AP keys are SP·lcm(1..N), which must fit 62 bits (N ≤ {n})"
        return best, why

    def build_rate(self, m):
        return super().build_rate(m) if m.numerator().reads_grades else _SECONDS_PER_RUN

    def counting_depth(self, m, c, ties):
        if c != 1:
            return super().counting_depth(m, c, ties)
        if ties in RUN_TIES:
            return AP_MAX_N, f"exact keys SP·lcm(1..N) must fit int64 (N·lcm(1..N) < 2^62, N ≤ {AP_MAX_N})"
        return FULL_MAX_N, (f"AP's ties have no known structure: φ_unq is exact by deduplicating all 2^N keys, done "
                            f"up to N = {FULL_MAX_N} (ties min/max/mid are counted to N = {AP_MAX_N}; an estimate "
                            "of φ_unq: irscales.enumeration._ap_count.phi_unq_estimate)")

    def count(self, m, runs, N, c, ties, progress, workers):
        return {t: phi_ap(runs, t, progress) for t in ties}

    def n_distinct(self, m, N, c):
        return n_distinct_sp(N)  # exact deduplication of all 2^N keys (N ≤ FULL_MAX_N)

    def count_family(self, m, c):
        return "ap" if c == 1 else "none"

    def count_cost(self, m, N, c, ties, runs):
        if c != 1:
            return super().count_cost(m, N, c, ties, runs)
        if ties in RUN_TIES:
            tables = 2 ** min(N - N // 3, 20)  # the bottom table (2^20 entries at N = 30 and 40: 2-3 s)
            return 1e-3 + 2.5e-6 * tables + runs * 0.4e-3 * 2 ** (0.76 * (N - 30)), 48 * tables
        return 1e-3 + 1.5e-6 * 2**N + runs * 1e-6, 24 * 2**N

    def count_basis(self, m, N, c):
        return "proof", "counted; exact keys SP·lcm(1..N) (irscales.enumeration._ap_count)"

    def bracket_depth(self, m, c, ties):
        if c != 1:
            return 0, f"AP is binary: no bracket over grades 0..{c}"
        return bracket_ap_reach.bracket_depth(m, c, ties)

    def bracket_depth_within(self, m, c, ties, rel_error):
        if c != 1:
            return self.bracket_depth(m, c, ties)
        return bracket_ap_reach.bracket_depth(m, c, ties, rel_error)

    def bracket_error(self, m, N, c, ties):
        if c != 1 or ties == UNQ or N > bracket_ap.BRACKET_MAX_N:
            return math.inf
        return bracket_ap_reach.reachable_error(N)

    def bracket_cost(self, m, N, c, ties, n_runs):
        return bracket_ap_reach.bracket_cost(m, N, c, ties, n_runs)

    def k_bounds(self, m, N, c, ties):
        return bracket_ap_reach.k_bounds(m, N, c, ties)

    def phi_bounds_ties(self, m, rel, ties, *, N, c, rel_error, progress):
        return bracket_ap.phi_bounds_ties(m, rel, tuple(ties), N=N, c=c, rel_error=rel_error, progress=progress)

    def bracket_basis(self, m, c, ties):
        return AP_BASIS, True


SP_FORM = register(SumOfPrecisions())
