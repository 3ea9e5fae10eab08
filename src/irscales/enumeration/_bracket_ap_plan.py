"""The planner of AP's bracket (issue 51): which grids to count, for which values, within a time budget and a
memory cap, so that a tighter target never ends wider (:func:`sweep`).

Each pass of :func:`irscales.enumeration._bracket_ap_kernels.grid_counts` at grid D serves every value up to its
range at once; its cost grows with D and, steeply, with the range (more hits, longer rows). Real runs need fine
grids at low SP (the far lower tail, where the count is steep) and coarse grids at high SP, so a pass per value
band is far cheaper than one pass at the finest grid.

**The sweep.** Grids form a ladder D_k = D0·2^k (nested: a finer grid's bounds lie inside a coarser one's,
:mod:`~irscales.enumeration._bracket_ap_kernels`). Level 0, the *pilot*, counts every value at D0 (the largest power
of two up to N whose pass takes at most :data:`PILOT_SHARE` of the budget and fits the memory cap); the values with
at most :data:`EXACT_RUNS` runs up to them are then counted exactly by the walk. Level k ≥ 1 counts the range
[0, M_k], M_k = min(B_k, the largest value still wider than the target). Every value keeps the intersection of
the brackets of all passes that covered it (the largest lower bound, the smallest upper one: all proven).

*Budget and cap (target-independent).* From the pilot's widths w0 each value gets κ = D0·ln(1 + w0) (the width
shrinks about as 1/D: predicted ln(1 + w) ≈ :data:`SAFETY`·κ/D at the next levels). ω*, the *reachable error*, is
the least ω whose predicted sweep — level k covering the values predicted wider than ω after level k − 1,
within the cell cap — fits the budget left after the pilot at :data:`SECONDS_PER_ADDITION`; B_k is that sweep's
range at level k. Neither depends on the target, and the cost of any target's sweep is at most that of ω*'s.

**Monotone (proof).** For targets ε₁ ≤ ε₂ and one budget, every value's bracket under ε₁ lies inside its bracket
under ε₂, or is already within ε₁. By induction on the levels: suppose it holds after level k − 1. Let q be a value
with M_k(ε₁) < q ≤ M_k(ε₂) (covered at level k under ε₂ only). Then q ≤ B_k, and q is not wider than ε₁ under ε₁
(else M_k(ε₁) ≥ q): it is within ε₁ and stays so (brackets only shrink). Every other value is covered at level k
under ε₁ whenever it is under ε₂, so the passes covering it under ε₂ are among those under ε₁, and its bracket under
ε₁ — the intersection over more passes — lies inside (a pass's bounds on a value depend on its grid and the value
only, not on the range it covers: :meth:`~irscales.enumeration._bracket_ap_kernels.Layout.roundings`). The pilot and the exact walk do not depend on the target.
This holds as planned; only the wall-clock guard (a pass is not started when the seconds spent plus its predicted
seconds exceed the budget: the machine may be slower than :data:`SECONDS_PER_ADDITION`) can stop a sweep earlier
than its plan, and with it the proof.
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from irscales.enumeration._bracket_ap_kernels import Layout, ceil_count, floor_count, grid_counts
from irscales.exact import to_fraction

__all__ = ["SECONDS_PER_ADDITION", "MAX_CELLS", "PILOT_SHARE", "SAFETY", "EXACT_RUNS", "MAX_GRID", "Sweep", "sweep",
           "width"]

#: Seconds per addition of the forward kernel on one core of the 2-core machine (measured 0.9 ns idle; docs/benchmarks.md).
SECONDS_PER_ADDITION = 1e-9
#: Cells of one pass (512 MB of float64).
MAX_CELLS = 1 << 26
#: The pilot's share of the budget.
PILOT_SHARE = 1 / 32
#: Predicted ln(1 + width) at a grid D: SAFETY·κ/D (measured widths shrink a little slower than 1/D).
SAFETY = 1.5
#: Values with at most this many runs up to them are counted exactly by the walk (a grid cannot reach 1 % of 3).
EXACT_RUNS = 2_000_000
#: The finest grid (costs ⌊k·D/i⌋ and D·h² stay far inside int64).
MAX_GRID = 1 << 40


def width(b_lo: int, b_hi: int, u_lo: int, u_hi: int) -> Fraction:
    """hi/lo − 1 of the bracket of a value: the larger of φ_min's (below + 1) and φ_max's (up to); φ_mid's is at
    most that."""
    return max(Fraction(b_hi + 1, b_lo + 1), Fraction(u_hi, u_lo)) - 1


@dataclass
class Sweep:
    """Bounds on the runs below (``b_lo``, ``b_hi``) and up to (``u_lo``, ``u_hi``) each value, proven; the
    ``reachable`` error ω* the plan was sized for, the ``passes`` made (grid, range in grid units, predicted and
    measured seconds) and why the sweep ended (``stopped``: ``target``, ``plan``, ``time``)."""

    b_lo: list[int]
    b_hi: list[int]
    u_lo: list[int]
    u_hi: list[int]
    reachable: float = 0.0
    passes: list[tuple[int, int, float, float]] = field(default_factory=list)
    stopped: str = "target"
    walks: tuple[int, float] = (0, 0.0)  # values counted exactly, seconds
    planning: float = 0.0  # seconds

    def widths(self) -> list[Fraction]:
        return [width(*b) for b in zip(self.b_lo, self.b_hi, self.u_lo, self.u_hi)]


@functools.lru_cache(maxsize=4096)
def _cost(N: int, D: int, M: int) -> tuple[float, int]:
    """(predicted seconds, cells) of a pass."""
    lay = Layout(N, D, M)
    return lay.additions() * SECONDS_PER_ADDITION, lay.cells


def _fit(N: int, D: int, keys: Sequence[int], L: int, top: int, seconds: float) -> int:
    """The largest index j ≤ top whose pass at D over [0, keys[j]] fits ``seconds`` and the cell cap (−1: none)."""
    def ok(j: int) -> bool:
        s, cells = _cost(N, D, keys[j] * D // L)
        return s <= seconds and cells <= MAX_CELLS

    if top < 0 or not ok(0):
        return -1
    lo, hi = 0, top
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


def _plan(N: int, D0: int, keys: Sequence[int], L: int, kappa: np.ndarray, seconds: float
          ) -> tuple[float, list[int]]:
    """(the reachable error, [B_1, B_2, …] as indices into ``keys``): the ranges per level of the sweep of the least
    ω that fits ``seconds`` (module doc), and the widest width that sweep predicts (ω, or more for values whose
    grid is stopped by the cell cap). ``kappa``: κ per value (0: exact, never refined)."""
    caps = []  # per level k ≥ 1: the largest index within the cell cap
    D = D0
    while D * 2 <= MAX_GRID:
        D *= 2
        j = _fit(N, D, keys, L, len(keys) - 1, math.inf)
        if j < 0:
            break
        caps.append(j)
    idx = np.arange(len(keys))
    log_kappa = np.where(kappa > 0, kappa, 0.0)

    def ranges(omega: float) -> list[int]:
        out, Dp = [], D0
        for k, cap in enumerate(caps):
            s = 1.0 if k == 0 else SAFETY
            wide = idx[(log_kappa * s > math.log1p(omega) * Dp) & (idx <= cap)]
            if not len(wide):
                break
            out.append(int(wide[-1]))
            Dp *= 2
        return out

    def cost(omega: float) -> float:
        return sum(_cost(N, D0 << (k + 1), keys[j] * (D0 << (k + 1)) // L)[0] for k, j in enumerate(ranges(omega)))

    def widest(rng: list[int]) -> float:
        level = np.zeros(len(keys), dtype=np.int64)  # the finest level covering each value
        for k, j in enumerate(rng, start=1):
            level[: j + 1] = k
        s = np.where(level > 0, SAFETY, 1.0)
        return float(np.expm1(log_kappa * s / (D0 * 2.0**level)).max(initial=0.0))

    lo, hi = 1e-6, 1e6
    if cost(hi) > seconds:
        return math.inf, []
    if cost(lo) > seconds:
        for _ in range(60):  # geometric bisection: cost is non-increasing in ω
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if cost(mid) <= seconds else (mid, hi)
        lo = hi
    rng = ranges(lo)
    return max(lo, widest(rng)), rng


def sweep(keys: Sequence[int], L: int, N: int, rel_error: float, budget_s: float, *,
          exact: Callable[[int], tuple[int, int] | None] | None = None, progress: bool | None = None) -> Sweep:
    """Proven bounds on the runs of REL^N with SP below and up to each value K/L (``keys``: distinct positive
    integers, ascending), refined level by level until every value is within ``rel_error`` (hi ≤ (1 + ε)·lo for
    the runs up to and for one plus the runs below), the plan's ranges end or ``budget_s`` seconds are spent
    (module doc). ``exact(K)``: (below, up to) counted exactly, or None (over its own node cap)."""
    n = len(keys)
    full = 2**N
    res = Sweep([0] * n, [full] * n, [1] * n, [full] * n)
    if not n:
        return res
    target = to_fraction(rel_error)
    start = time.perf_counter()

    def count(D: int, top: int) -> None:
        t0 = time.perf_counter()
        M = keys[top] * D // L
        LO, HI, lay = grid_counts(N, D, M, progress)
        for j in range(top + 1):
            K = keys[j]
            x_le, x_lt = K * D // L, (K * D - 1) // L
            lo = floor_count(LO[x_le], lay.roundings(x_le))
            res.u_lo[j] = max(res.u_lo[j], lo)
            res.b_lo[j] = max(res.b_lo[j], lo)
            res.u_hi[j] = min(res.u_hi[j], ceil_count(HI[x_le], lay.roundings(x_le)))
            res.b_hi[j] = min(res.b_hi[j], ceil_count(HI[x_lt], lay.roundings(x_lt)))
        res.passes.append((D, M, _cost(N, D, M)[0], time.perf_counter() - t0))

    D0 = 1 << max(0, math.ceil(math.log2(N)))
    while D0 > 1 and _fit(N, D0, keys, L, n - 1, budget_s * PILOT_SHARE) < n - 1:
        D0 //= 2
    top = _fit(N, D0, keys, L, n - 1, math.inf)
    if top < 0:
        res.stopped, res.reachable = "plan", math.inf
        return res
    count(D0, top)
    t0, walked = time.perf_counter(), 0
    if exact is not None:  # the values with few runs up to them, whatever the target
        for j in range(top + 1):
            if 0 < width(res.b_lo[j], res.b_hi[j], res.u_lo[j], res.u_hi[j]) and res.u_hi[j] <= EXACT_RUNS:
                got = exact(keys[j])
                if got is not None:
                    walked += 1
                    res.b_lo[j] = res.b_hi[j] = got[0]
                    res.u_lo[j] = res.u_hi[j] = got[1]
    res.walks = (walked, time.perf_counter() - t0)
    t0 = time.perf_counter()
    w0 = res.widths()
    kappa = np.array([D0 * math.log1p(float(w)) if j <= top else 0.0 for j, w in enumerate(w0)])
    res.reachable, ranges = _plan(N, D0, keys, L, kappa, budget_s * (1 - 2 * PILOT_SHARE))
    res.planning = time.perf_counter() - t0
    res.stopped = "plan"
    for k, B in enumerate(ranges, start=1):
        pending = [j for j, w in enumerate(res.widths()) if w > target and j <= B]
        if not pending:
            res.stopped = "target" if all(w <= target for w in res.widths()) else "plan"
            break
        D = D0 << k
        if time.perf_counter() - start + _cost(N, D, keys[pending[-1]] * D // L)[0] > budget_s:
            res.stopped = "time"
            break
        count(D, pending[-1])
    else:
        if all(w <= target for w in res.widths()):
            res.stopped = "target"
    return res
