"""AP's φ beyond the exact counts: proven lower and upper bounds from a rounded count over ranks (issues 42, 51;
FFF21 eq. 2, §5.2.2, §7.1.3).

φ_AP = φ_SP (:func:`irscales.enumeration._runs.numerator`), SP(r) = Σ_k k/i_k over the ranks i_1 < i_2 < … of the
relevant documents; φ_min = 1 + #{runs of REL^N with SP < m}, φ_max = #{SP ≤ m}, φ_mid their mean.

**The bracket (proven: :mod:`irscales.enumeration._bracket_ap_kernels`).** On an integer grid D every hit costs
⌊k·D/i⌋; one forward count of all 2^N runs by (hits h, cost F) gives, for every grid cell x at once,
HI(x) = #{F ≤ x} ⊇ {SP ≤ x/D} and LO(x) = #{F + h ≤ x} ⊆ {SP < x/D} (plus the empty run), because
D·SP − h < F ≤ D·SP. A value m is then a lookup: its runs up to and below lie in [LO(⌊D·m⌋), HI(⌊D·m⌋)], those
below also under HI(⌈D·m⌉ − 1). Floats carry a proven rounding factor; finer grids nest inside coarser ones.

**Refinement (:mod:`irscales.enumeration._bracket_ap_plan`).** A pilot at a coarse grid counts every value; then a
ladder of grids D0·2^k counts the values still wider than the target, each pass covering the range up to the
largest of them, within a time budget (:data:`BUDGET_S`) and a memory cap, planned from the pilot without the
target, so that a tighter target never ends wider (proof there). Values with few runs up to them are counted
exactly by a walk (:func:`count_exact`). The error the budget reaches is reported with the bounds (``reachable``).

*Where it reaches (measured, Robust 2004 runs, docs/benchmarks.md).* N ≤ 200: every run within 1 % in seconds.
Deeper the realistic runs sit in the far lower tail (at N = 1000 SP ≈ 1–45 against 250 for a random run), where
the count is steep (d ln F/dm ≈ 5–15) and a run near m has ~100 hits, each moving its cost by up to one grid unit:
1 % needs grids of ~10^5 per unit of SP (hours). A proven factor is reachable: hi ≤ 2·lo (``rel_error=1.0``) at
N = 1000 for the 500 values of 10 runs × 50 topics in minutes (:func:`irscales.enumeration._bracket_ap_reach.
reachable_error` gives the calibrated error per N). Deterministic knapsack counting has the same wall
(Štefankovič, Vempala and Vigoda, SIAM J. Comput. 2012: O(n³/ε·log(n/ε)) for n items).

**Distinct values (ties unq).** The number of *distinct* SP values ≤ m has no known deterministic
bracket: counting runs does not count values (AP's ties have no known structure). Exact φ_unq comes from
:mod:`irscales.enumeration._ap_count` (all keys deduplicated to N = 24, pair enumeration for runs with few
runs up to them to N = 40); otherwise the proven but loose bounds 1 (or the exact count) ≤ φ_unq ≤ φ_max
are returned and :func:`bracket_kind` says that they do not meet 1 %. A statistical estimate at 1 % with
99.9 % confidence is out of reach too: :func:`irscales.enumeration._ap_count.phi_unq_estimate`'s Hoeffding
bound needs j ≥ ln(2000)/(2·(0.01·E[1/mult])²) ≈ 2·10^5 sampled runs below each value, each with its
multiplicity counted exactly (only possible to N = 40; ~0.4 ms a run at N = 30): ~80 s per value.
"""
from __future__ import annotations

import functools
import math
import time
import warnings
from fractions import Fraction

import numpy as np

from irscales import measures as M
from irscales.enumeration import _ap_count as ap_count
from irscales.enumeration._bracket_ap_kernels import count_walk, kernels
from irscales.enumeration._bracket_ap_plan import Sweep, sweep
from irscales.enumeration.ties import TIES
from irscales.exact import to_fraction
from irscales.options import DEFAULT_MAX_REL_ERROR, DEFAULT_TIES, UNQ

__all__ = ["BRACKET_MAX_N", "BUDGET_S", "sp_exact", "count_exact", "count_bounds", "phi_bounds",
           "phi_bounds_ties", "bracket_kind", "rel_width", "check_ap_measure", "check_ap_depth"]

#: 2^N counts stay finite in float64 (2^1023 is the largest power) with room for the rounding factor.
BRACKET_MAX_N = 1020
#: Seconds the refinement of one set of runs may take (as long as an exact route may before a bracket replaces it,
#: :data:`irscales.enumeration.routes.EXACT_SECONDS_PROHIBITIVE`).
BUDGET_S = 300.0
_U = 2.0**-53
_UNQ_ENUMERATED = 1 << 20  # φ_unq by enumerating the keys up to a value with at most this many runs
_UNQ_BUDGET_S = 60.0  # seconds of those enumerations


def check_ap_measure(measure: M.Measure | str, N: int | None = None) -> M.Measure:
    """The measure (a string is parsed; a cut-off ``AP@k`` is AP at N = k), which must be AP or SP."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    if m.uncut is not m:  # cut at k ranks: the uncut measure over REL^k (irscales.interval.scale_target)
        if N is not None and N != m.k:
            raise ValueError(f"{m.key} is the measure at N={m.k}, not N={N} (its ranks beyond {m.k} never count)")
        m = m.uncut
    if m.numerator() != M.SP():  # AP (numerator SP) and SP itself: the bracket counts SP's own arithmetic
        raise ValueError(f"the AP bracket counts AP/SP only, got {measure!r}")
    return m


def check_ap_depth(N: int) -> None:
    if not 1 <= N <= BRACKET_MAX_N:
        raise ValueError(f"the AP bracket counts 1 ≤ N ≤ {BRACKET_MAX_N} ranks (2^N must stay finite in float64), "
                         f"got N={N}")


def sp_exact(bits, N: int) -> tuple[list[int], int]:
    """Exact SP of binary runs (n, L ≤ N) as integer keys K = SP·L over L = lcm(1..N) (Python ints), and L."""
    b = np.asarray(bits) > 0
    L = math.lcm(*range(1, N + 1))
    inv = [L // i for i in range(1, N + 1)]
    keys = []
    for row in b:
        ranks = np.flatnonzero(row)
        keys.append(sum((k + 1) * inv[i] for k, i in enumerate(ranks.tolist())))
    return keys, L


def count_exact(K: int, L: int, N: int, node_cap: int = 20_000_000) -> tuple[int, int] | None:
    """Exact (below, up to) of the value m = K/L over REL^N by the walk of
    :func:`irscales.enumeration._bracket_ap_kernels.count_walk`, None when it needs more than ``node_cap`` nodes.
    Float partial sums of d ≤ N terms k/j (each rounded within u = 2^-53) are within 2·N·u·(m + 1) of the exact
    SP, so tol = 4·N·u·(m + 1) decides every run outside the band exactly; the runs inside it are compared with m
    in exact rationals."""
    m = Fraction(K, L)
    mf = float(m)
    tol = 4 * N * _U * (mf + 1)
    below, n_amb, used, amb, nodes = count_walk(N, mf, tol, node_cap)
    if nodes < 0:
        return None
    equal, pos = 0, 0
    for _ in range(n_amb):
        d = int(amb[pos])
        ranks = amb[pos + 1: pos + 1 + d].tolist()
        pos += d + 1
        sp = sum((Fraction(k + 1, j) for k, j in enumerate(ranks)), Fraction(0))
        if sp < m:
            below += 1
        elif sp == m:
            equal += 1
    return int(below), int(below) + equal


@functools.lru_cache(maxsize=4)
def count_bounds(keys: tuple[int, ...], L: int, N: int, rel_error: float, *, budget_s: float = BUDGET_S,
                 progress=None) -> Sweep:
    """Proven integer bounds on the runs of REL^N with SP < m and ≤ m for each m = K/L (``keys``, any order;
    K = 0 is exact), refined by :func:`irscales.enumeration._bracket_ap_plan.sweep` until below + 1 and up-to
    are both within ``rel_error`` for every value (then φ_min = below + 1, φ_max = up-to and φ_mid, their mean,
    are too), the plan ends or ``budget_s`` seconds are spent. A :class:`~irscales.enumeration._bracket_ap_plan.
    Sweep` in the order of ``keys``. Cached: the tie strategies of one set of runs share one computation."""
    check_ap_depth(N)
    full = 2**N
    pos = sorted(set(K for K in keys if K > 0))
    kernels()  # compiled or loaded once, before any timing
    got = sweep(pos, L, N, rel_error, budget_s, exact=lambda K: count_exact(K, L, N), progress=progress)
    at = {K: j for j, K in enumerate(pos)}
    out = Sweep([], [], [], [], got.reachable, got.passes, got.stopped)
    for K in keys:
        if K == 0:  # SP = 0 only without hits: exactly one run, none below
            b = (0, 0, 1, 1)
        elif K in at:
            j = at[K]
            b = (got.b_lo[j], got.b_hi[j], got.u_lo[j], got.u_hi[j])
        else:
            b = (0, full, 1, full)
        for lst, v in zip((out.b_lo, out.b_hi, out.u_lo, out.u_hi), b):
            lst.append(v)
    return out


def _tie_bounds(b_lo: int, b_hi: int, u_lo: int, u_hi: int, ties: str):
    """Bounds on φ under ties min/max/mid from bounds on the runs below and up to (φ is monotone in both)."""
    if ties == "min":
        return b_lo + 1, b_hi + 1
    if ties == "max":
        return u_lo, u_hi
    return Fraction(b_lo + 1 + u_lo, 2), Fraction(b_hi + 1 + u_hi, 2)


def _as_runs(rel, N: int) -> tuple[np.ndarray, tuple]:
    a = np.asarray(rel)
    if a.ndim == 0 or a.shape[-1] > N:
        raise ValueError(f"phi_bounds: runs of shape (..., L ≤ N={N}) expected, got shape {a.shape}")
    flat = a.reshape(-1, a.shape[-1]) > 0
    return flat, a.shape[:-1]


def _object(values: list, shape) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def phi_bounds(measure: M.Measure | str, rel, ties: str = DEFAULT_TIES, *, N: int, c: int = 1,
               rel_error: float = DEFAULT_MAX_REL_ERROR, progress: bool | None = None, budget_s: float = BUDGET_S
               ) -> tuple[np.ndarray, np.ndarray]:
    """Proven bounds lo ≤ φ ≤ hi of AP (= φ of SP) for binary runs ``rel`` (..., L ≤ N; ranks beyond L not
    relevant) at N: object arrays of Python ints (ties mid: Fractions). min/max/mid: the rounded count (module
    docstring), hi ≤ (1 + rel_error)·lo unless ``budget_s`` runs out (then a ``RuntimeWarning`` naming the error
    reachable in it);
    unq: exact to N = 24 (and for low values to 40), else 1 or the exact value ≤ φ_unq ≤ φ_max."""
    return phi_bounds_ties(measure, rel, (ties,), N=N, c=c, rel_error=rel_error, progress=progress,
                           budget_s=budget_s)[ties]


def phi_bounds_ties(measure: M.Measure | str, rel, ties=TIES, *, N: int, c: int = 1,
                    rel_error: float = DEFAULT_MAX_REL_ERROR, progress: bool | None = None, budget_s: float = BUDGET_S
                    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """:func:`phi_bounds` for several tie strategies at once, tie → (lo, hi): one count of runs serves min,
    max and mid (and unq's upper bound)."""
    check_ap_measure(measure, N)
    ties = tuple(ties)
    if c != 1:
        raise ValueError(f"AP is binary: c = 1 expected, got c={c}")
    check_ap_depth(N)
    flat, shape = _as_runs(rel, N)
    bits = np.zeros((len(flat), N), dtype=bool)
    bits[:, : flat.shape[1]] = flat
    out = {}
    reachable = ""
    ranked = [t for t in ties if t != UNQ]
    if ranked or (N > ap_count.FULL_MAX_N and UNQ in ties):
        keys, L = sp_exact(bits, N)
        uq = tuple(sorted(set(keys)))
        got = count_bounds(uq, L, N, rel_error, budget_s=budget_s, progress=progress)
        reachable = f"; about {got.reachable:.2g} is reachable in it" if math.isfinite(got.reachable) else ""
        where = [{K: j for j, K in enumerate(uq)}[K] for K in keys]
        for t in set(ranked) | ({"max"} if UNQ in ties else set()):
            pairs = [_tie_bounds(got.b_lo[j], got.b_hi[j], got.u_lo[j], got.u_hi[j], t) for j in where]
            out[t] = [p[0] for p in pairs], [p[1] for p in pairs]
    if UNQ in ties:
        out[UNQ] = _unq_bounds(bits, N, out.get("max", (None, None))[1], min(budget_s, _UNQ_BUDGET_S))
    target = to_fraction(rel_error)
    result = {}
    for t in ties:
        lo, hi = out[t]
        wide = sum(b > (1 + target) * a for a, b in zip(lo, hi))
        if wide:
            why = bracket_kind(N, t) + (f"; budget {budget_s:g} s{reachable}" if t != UNQ else "")
            warnings.warn(f"phi_bounds: AP at N={N} ({t}): {wide} of {len(lo)} runs keep bounds wider than "
                          f"rel_error={rel_error} ({why}); they are valid but wider", RuntimeWarning, stacklevel=3)
        result[t] = _object(lo, shape), _object(hi, shape)
    return result


def _unq_bounds(bits: np.ndarray, N: int, hi_max: list | None, budget_s: float) -> tuple[list, list]:
    """φ_unq exact to N = 24; beyond, 1 ≤ φ_unq ≤ φ_max's upper bound ``hi_max``, and to N = 40 the values
    with at most :data:`_UNQ_ENUMERATED` runs up to them exact (their distinct keys enumerated), lowest
    first, while ``budget_s`` lasts."""
    if N <= ap_count.FULL_MAX_N:
        exact = [int(v) for v in ap_count.phi_unq_exact(bits)]
        return exact, list(exact)
    start = time.perf_counter()
    hi = list(hi_max)
    lo = [1] * len(bits)
    if N <= ap_count.AP_MAX_N:
        keys = ap_count.sp_keys(bits)
        value: dict[int, int] = {}
        for r in sorted(range(len(bits)), key=lambda r: hi[r]):
            if hi[r] > _UNQ_ENUMERATED or time.perf_counter() - start > budget_s:
                break
            t = int(keys[r])
            if t not in value:
                value[t] = ap_count.unq_enumerated(t, N)
            lo[r] = hi[r] = value[t]
    return lo, hi


def bracket_kind(N: int, ties: str) -> str:
    """Whether φ at N under ``ties`` comes out exact, within a proven bracket, or only loosely bounded."""
    if ties == UNQ:
        return "exact" if N <= ap_count.FULL_MAX_N else "proven (loose: 1 % not reached; no bracket of distinct values)"
    return "proven"


def rel_width(lo, hi) -> float:
    """Largest hi/lo − 1 over the bounds (0 when every bound is exact)."""
    worst = 0.0
    for a, b in zip(np.ravel(lo), np.ravel(hi)):
        if b != a:
            worst = max(worst, float(Fraction(b) / Fraction(a)) - 1)
    return worst
