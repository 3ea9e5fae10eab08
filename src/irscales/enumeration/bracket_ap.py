"""AP's φ beyond the exact counts: proven lower and upper bounds from a rounded dynamic programme over
ranks (issue 42; FFF21 eq. 2, §5.2.2, §7.1.3).

φ_AP = φ_SP (:func:`irscales.enumeration.runs.numerator`), SP(r) = Σ_k k/i_k over the ranks i_1 < i_2 < …
of the relevant documents. A hit at rank i after h hits adds (h + 1)/i, so with

    f(i, h, s) = #{completions of ranks i..N, entered with h hits, whose added SP is ≤ s}

f(N + 1, h, s) = [s ≥ 0] and f(i, h, s) = f(i + 1, h, s) + f(i + 1, h + 1, s − (h + 1)/i); the runs up to a
value m are f(1, 0, m), those below it f(1, 0, m⁻) (added SP < m). f is non-decreasing in s (every term is).

**The bracket (proven).** Fix an integer grid D (the residual in units of 1/D) and give a hit the
integer cost ⌈(h + 1)·D/i⌉ (the *upper-cost* programme, ``lo``) or ⌊(h + 1)·D/i⌋ (``hi``): exact integer
arithmetic. A run's upper cost Σ_k ⌈k·D/i_k⌉ ≥ D·SP and its lower cost Σ_k ⌊k·D/i_k⌋ ≤ ⌊D·SP⌋. Hence

    lo_upto(m)  = #{runs: upper cost ≤ ⌊D·m⌋}      ⊆ {SP ≤ m},   hi_upto(m)  = #{lower cost ≤ ⌊D·m⌋}     ⊇ {SP ≤ m},
    lo_below(m) = #{runs: upper cost ≤ ⌈D·m⌉ − 1}  ⊆ {SP < m},   hi_below(m) = #{lower cost ≤ ⌈D·m⌉ − 1} ⊇ {SP < m}

(D·SP < D·m gives ⌊D·SP⌋ ≤ ⌈D·m⌉ − 1). Both programmes are the recurrence above on integer residuals, so
each count is computed exactly up to float rounding, and a finer grid tightens both sides (each hit
moves a run's cost by less than one unit: lo ≥ #{SP ≤ m − H/D}, hi ≤ #{SP ≤ m + H/D}, H its hits).

*State pruning.* A row h (h hits so far) is kept for residuals 0..M_h, M_h = M − Σ_{k≤h} ⌊k·D/(N − h + k)⌋
(the least lower cost of any h hits; upper costs are larger): a state with h hits and a larger residual
is never reached from a query ≤ M = ⌊D·max m⌋; at rank i, h hits among ranks 1..i − 1 cost at least
Σ_k ⌊k·D/(i − 1)⌋ ≥ D·h(h + 1)/(2(i − 1)) − h, which cuts the rows further level by level (a row's cut
only shrinks as i falls, so every reached state reads updated cells). A hit into an empty row (M_h < 0)
is dropped, and a read beyond M_{h+1} is clamped: both happen only in states that no query reaches, and
the value of a query is a sum over the states it reaches, so every reached state keeps its exact count.

*Float rounding (proven factor).* The counts are float64 sums of non-negative terms starting from the
exact 1.0; every addition rounds to nearest (relative error ≤ u = 2^-53), so a count after the N levels
is within (1 ± u)^N of the exact count of its programme, and (1 + u)^N ≤ 1/(1 − N·u). The float F̂ is an
integer (floats ≥ 2^53 are integers; below, sums of integers are exact), so the integer bounds
⌊F̂·(2^53 − N)/2^53⌋ ≤ count ≤ ⌈F̂·2^53/(2^53 − N)⌉ are exact integer arithmetic. When F̂ < 2^53 it is
the exact count: rounding to nearest is monotone, so no operand and no exact partial sum behind F̂
reached 2^53, and integer sums below 2^53 are exact. 2^N < 2^1024 keeps
every count finite up to :data:`BRACKET_MAX_N`.

**Adaptive grids.** One pass of the programme serves every query ≤ M at once (the table f(1, 0, ·)).
The passes refine D (starting at N, so every lower cost of a hit is ≥ 1) and keep the queries not yet
within ``rel_error``; each query keeps the tightest bounds of all passes (max of the lows, min of the
highs: all proven). The width shrinks about as 1/D, so a query asks for D·(1.3·ln(hi/lo)/ln(1 + ε)),
×2 to ×16 a pass; the largest pending value sets a pass's range, and the top values the remaining
``budget_s`` cannot carry are dropped (their bounds stay proven, only wider). Values with at most
:data:`_EXACT_RUNS` runs up to them (φ small: a grid cannot reach 1 % of a count like 3) are counted
exactly instead (:func:`count_exact`). Cost of a pass: Σ_i Σ_h (M_h + 1) additions, two programmes.

*Where it stops (measured, Robust 2004 runs, docs/benchmarks.md).* N ≤ 100: every run within 1 % in
seconds; N = 200 in 10–40 s (machine load); N = 300 misses 1 % for 93 % of the runs in 60 s. At N = 1000 the
realistic runs sit in the far lower tail (SP ≈ 1–45 against 250 for a random run), where F(m) is steep
(d ln F/dm ≈ 5–15) and a run below m has ~100 hits, each shifting its cost by up to one grid unit: the
median run (SP ≈ 10.8) needs D ≈ 1.4·10^5, 1.4·10^8 cells (1.2 GB) and ~550 s for its pass, SP ≈ 33
about 1,800 s; in 60 s the widths hi/lo − 1 reach 5–8 % for SP < 5, 50–100 % for SP 5–45 and factors
50–1,700 above. Deterministic knapsack counting has the same
wall (Štefankovič, Vempala and Vigoda, SIAM J. Comput. 2012: O(n³/ε·log(n/ε)) for n items).

**Distinct values (ties unq).** The number of *distinct* SP values ≤ m has no known deterministic
bracket: counting runs does not count values (AP's ties have no known structure). Exact φ_unq comes from
:mod:`irscales.enumeration.ap_count` (all keys deduplicated to N = 24, pair enumeration for runs with few
runs up to them to N = 40); otherwise the proven but loose bounds 1 (or the exact count) ≤ φ_unq ≤ φ_max
are returned and :func:`bracket_kind` says that they do not meet 1 %. A statistical estimate at 1 % with
99.9 % confidence is out of reach too: :func:`irscales.enumeration.ap_count.phi_unq_estimate`'s Hoeffding
bound needs j ≥ ln(2000)/(2·(0.01·E[1/mult])²) ≈ 2·10^5 sampled runs below each value, each with its
multiplicity counted exactly (only possible to N = 40; ~0.4 ms a run at N = 30): ~80 s per value.
"""
from __future__ import annotations

import functools
import math
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np

from irscales import measures as M
from irscales.enumeration import ap_count
from irscales.enumeration.ties import TIES
from irscales.jit_cache import compiled_noted
from irscales.progress import bar as progress_bar
from irscales.exact import to_fraction
from irscales.options import DEFAULT_MAX_REL_ERROR, DEFAULT_TIES, UNQ

__all__ = ["BRACKET_MAX_N", "sp_exact", "Grid", "count_grid", "count_exact", "count_bounds", "phi_bounds",
           "phi_bounds_ties", "bracket_kind", "rel_width", "check_ap_measure", "check_ap_depth"]

#: 2^N counts stay finite in float64 (2^1023 is the largest power) with room for the rounding factor.
BRACKET_MAX_N = 1020
_U_DEN = 2**53  # 1/u: float64 rounds an addition within a relative 2^-53
_OPS_PER_S = 4e8  # additions per second of the kernel on one core of the 2-core machine (measured: ~4–6e8)
_MAX_CELLS = 1 << 26  # residual cells of one programme (512 MB of float64; two run at once)
_UNQ_ENUMERATED = 1 << 20  # φ_unq by enumerating the keys up to a value with at most this many runs
_EXACT_RUNS = 2_000_000  # values with at most this many runs up to them are counted exactly (a walk)


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


def _levels_py(N, i_hi, i_lo, G, off, size, hcap, D, top, up):
    """Levels i = i_hi down to i_lo + 1 of the rounded programme, in place on the ragged rows of G (row h:
    G[off[h]:off[h] + size[h]], residuals 0..size[h] − 1; ``top`` = M, the largest query residual). Row
    h + 1 still holds level i + 1 while row h is updated, since h ascends. ``up``: hit cost ⌊(h+1)·D/i⌋ (the
    upper bound), else ⌈(h+1)·D/i⌉."""
    for i in range(i_hi, i_lo, -1):
        hmax = min(i - 1, hcap)
        for h in range(hmax + 1):
            num = (h + 1) * D
            w = num // i if up else (num + i - 1) // i
            # h hits among ranks 1..i−1 cost at least Σ_k ⌊k·D/(i−1)⌋ ≥ D·h(h+1)/(2(i−1)) − h: a larger
            # residual is never reached at this level
            n = size[h]
            if h > 0:
                n = min(n, top - (D * h * (h + 1)) // (2 * (i - 1)) + h + 1)
            if w >= n:
                continue
            a = off[h]
            if h + 1 > hcap:
                continue  # the next row is empty: no run with h + 1 hits reaches a query ≤ M
            b = off[h + 1]
            last = size[h + 1] - 1
            stop = min(n, last + w + 1)
            for g in range(w, stop):
                G[a + g] += G[b + g - w]
            for g in range(stop, n):
                G[a + g] += G[b + last]
    return G


def _dfs_py(N, m, tol, maxcomp, node_cap, amb_cap):
    """Runs of REL^N with SP < m − tol (counted) and within tol of m (their hit ranks written to ``amb``),
    by a depth-first walk over the next hit's rank; a node whose every completion stays below m − tol adds
    its 2^(ranks left) runs at once. Returns (below, ambiguous runs, ranks written, nodes; nodes > node_cap
    or a full ``amb`` stops early and returns nodes = −1)."""
    sval = np.zeros(N + 2)
    last = np.zeros(N + 2, np.int64)
    jn = np.zeros(N + 2, np.int64)
    path = np.zeros(N + 1, np.int64)
    amb = np.zeros(amb_cap, np.int64)
    below, n_amb, used, nodes = 0, 0, 0, 0
    d = 0
    entering = True
    while d >= 0:
        if entering:
            entering = False
            nodes += 1
            if nodes > node_cap:
                return below, n_amb, used, amb, -1
            i = last[d] + 1
            s = sval[d]
            if N - i + 1 <= 60 and s + maxcomp[i, d] < m - tol:
                below += 1 << (N - i + 1)
                d -= 1
                continue
            if s < m - tol:
                below += 1
            else:  # |s − m| ≤ tol: decided exactly by the caller
                if used + d + 1 > amb_cap:
                    return below, n_amb, used, amb, -1
                amb[used] = d
                for k in range(d):
                    amb[used + 1 + k] = path[k]
                used += d + 1
                n_amb += 1
            jn[d] = N
        if jn[d] <= last[d]:
            d -= 1
            continue
        j = jn[d]
        jn[d] -= 1
        s2 = sval[d] + (d + 1) / j
        if s2 > m + tol:  # earlier ranks add more: no further candidate fits
            jn[d] = last[d]
            continue
        path[d] = j
        d += 1
        sval[d] = s2
        last[d] = j
        entering = True
    return below, n_amb, used, amb, nodes


@functools.lru_cache(maxsize=1)
def _kernels():
    return compiled_noted("the AP bracket kernels", 8, (_levels_py, _dfs_py), nogil=True)


def _kernel():
    return _kernels()[0]


@functools.lru_cache(maxsize=2)
def _maxcomp(N: int) -> np.ndarray:
    """maxcomp[i, h] ≥ the largest SP added by ranks i..N entered with h hits, Σ_{j≥i} (h + j − i + 1)/j,
    raised by a relative and an absolute 1e-9 over its float rounding (≲ N·2^-53 of terms ≤ N)."""
    inv = 1.0 / np.arange(1, N + 1)
    H = np.concatenate([np.cumsum(inv[::-1])[::-1], [0.0, 0.0]])  # H[i−1] = Σ_{j≥i} 1/j
    i = np.arange(1, N + 2)[:, None]
    h = np.arange(N + 1)[None, :]
    out = np.zeros((N + 2, N + 1))
    out[1:] = (h * H[i - 1] + (N - i + 1) - (i - 1) * H[i - 1]) * (1 + 1e-9) + 1e-9
    return out


_U = 2.0**-53


def count_exact(K: int, L: int, N: int, node_cap: int = 20_000_000) -> tuple[int, int] | None:
    """Exact (below, up to) of the value m = K/L over REL^N by the walk of :func:`_dfs_py`, None when it
    needs more than ``node_cap`` nodes. Float partial sums of d ≤ N terms k/j (each rounded within u =
    2^-53) are within 2·N·u·(m + 1) of the exact SP, so tol = 4·N·u·(m + 1) decides every run outside the
    band exactly; the runs inside it are compared with m in exact rationals."""
    m = Fraction(K, L)
    mf = float(m)
    tol = 4 * N * _U * (mf + 1)
    below, n_amb, used, amb, nodes = _kernels()[1](N, mf, tol, _maxcomp(N), node_cap, max(1024, 64 * N))
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


@functools.lru_cache(maxsize=8)
def _least_costs(N: int, D: int) -> np.ndarray:
    """least[h] = Σ_{k≤h} ⌊k·D/(N − h + k)⌋, the least lower cost of any h hits among N ranks (the k-th hit
    costs least at the latest rank it can take, N − h + k), for h = 0..N; non-decreasing in h."""
    out = np.zeros(N + 1, dtype=np.int64)
    for h in range(1, N + 1):
        k = np.arange(1, h + 1, dtype=np.int64)
        out[h] = (k * D // (N - h + k)).sum()
    return out


class Grid:
    """Rows of one rounded programme: grid D, largest residual M, row sizes and offsets (see module)."""

    def __init__(self, N: int, D: int, M: int):
        self.N, self.D, self.M = N, D, M
        least = _least_costs(N, D)
        self.hcap = int(np.searchsorted(least, M, "right")) - 1  # rows with M − least[h] ≥ 0
        self.size = (M - least[: self.hcap + 1] + 1).astype(np.int64)
        self.off = np.concatenate([[0], np.cumsum(self.size)[:-1]]).astype(np.int64)

    @property
    def cells(self) -> int:
        return int(self.size.sum())

    def additions(self) -> int:
        """Additions of one programme (an upper estimate: every row over every level it exists at)."""
        return int((self.size * (self.N - np.arange(self.hcap + 1))).sum())


def count_grid(N: int, D: int, M: int, up: bool, progress=None) -> np.ndarray:
    """Float counts of the rounded programme at grid D for the residuals 0..M (``up``: the lower hit costs,
    an upper bound; else the upper costs, a lower bound), exact up to the factor (1 ± 2^-53)^N."""
    grid = Grid(N, D, M)
    G = np.ones(grid.cells, dtype=np.float64)
    kernel = _kernel()
    bar = progress_bar(N, f"AP bracket N={N} D={D}", progress, delay=1.0)
    step = max(1, N // 50)
    for i_hi in range(N, 0, -step):
        i_lo = max(0, i_hi - step)
        kernel(N, i_hi, i_lo, G, grid.off, grid.size, grid.hcap, D, M, up)
        bar.update(i_hi - i_lo)
    bar.close()
    return G[: grid.size[0]].copy()


def _floor_int(x: float, N: int) -> int:
    v = int(x)
    return v if v < _U_DEN else v * (_U_DEN - N) // _U_DEN


def _ceil_int(x: float, N: int) -> int:
    v = int(x)
    return v if v < _U_DEN else -(-v * _U_DEN // (_U_DEN - N))


@functools.lru_cache(maxsize=4)
def count_bounds(keys: tuple[int, ...], L: int, N: int, rel_error: float, *, budget_s: float = 60.0,
                 progress=None) -> tuple[list[int], list[int], list[int], list[int]]:
    """Proven integer bounds (below_lo, below_hi, upto_lo, upto_hi) on the runs of REL^N with SP < m and
    ≤ m for each m = K/L, refining the grid until below + 1 and up-to are both within ``rel_error`` for every
    query (then φ_min = below + 1, φ_max = up-to and φ_mid, their mean, are too) or ``budget_s`` seconds are
    spent (module docstring). Cached: the three tie strategies of one set of runs share one computation."""
    check_ap_depth(N)
    n = len(keys)
    b_lo, b_hi = [0] * n, [2**N] * n
    u_lo, u_hi = [1] * n, [2**N] * n  # the empty run has SP 0 ≤ m
    target = to_fraction(rel_error)
    pending = []
    for j, K in enumerate(keys):
        if K == 0:  # SP = 0 only without hits: exactly one run, none below
            b_hi[j], u_hi[j] = 0, 1
        else:
            pending.append(j)
    _kernels()  # compiled or loaded once, before two threads ask for it
    start = time.perf_counter()
    rate = _OPS_PER_S
    need = {j: N for j in pending}  # the grid each query asks for next
    while pending:
        pending.sort(key=lambda j: keys[j])
        D = need[pending[-1]]
        while pending:  # the largest value sets the pass's range: drop the top ones the budget cannot carry
            grid = Grid(N, D, keys[pending[-1]] * D // L)
            fits = (time.perf_counter() - start + 3 * grid.additions() / rate <= budget_s  # 1.5× margin
                    and grid.cells <= _MAX_CELLS)
            if fits:
                break
            if D > N // 16 and need[pending[-1]] == N:  # a first pass: a coarser grid before giving up
                D = max(1, D // 2)
                continue
            pending.pop()
            D = need[pending[-1]] if pending else D
        if not pending:
            break
        t0 = time.perf_counter()
        Mx = keys[pending[-1]] * D // L
        with ThreadPoolExecutor(2) as pool:  # the kernel releases the GIL: both programmes at once
            hi_job = pool.submit(count_grid, N, D, Mx, True, False)
            lo = count_grid(N, D, Mx, False, progress)
            hi = hi_job.result()
        rate = max(1e7, 2 * grid.additions() / max(time.perf_counter() - t0, 1e-3))
        still = []
        for j in pending:
            K = keys[j]
            gu, gb = K * D // L, -(-K * D // L) - 1
            u_lo[j] = max(u_lo[j], _floor_int(lo[gu], N))
            u_hi[j] = min(u_hi[j], _ceil_int(hi[gu], N))
            if gb >= 0:
                b_lo[j] = max(b_lo[j], _floor_int(lo[gb], N))
                b_hi[j] = min(b_hi[j], _ceil_int(hi[gb], N))
            if b_hi[j] + 1 <= (1 + target) * (b_lo[j] + 1) and u_hi[j] <= (1 + target) * u_lo[j]:
                continue
            if u_hi[j] <= _EXACT_RUNS and time.perf_counter() - start < budget_s:  # few runs up to it: exact
                got = count_exact(K, L, N)
                if got is not None:
                    b_lo[j] = b_hi[j] = got[0]
                    u_lo[j] = u_hi[j] = got[1]
                    continue
            # the width shrinks about as 1/D: ask for the grid that would reach the target, ×2 to ×16
            f = math.log(max(Fraction(b_hi[j] + 1, b_lo[j] + 1), Fraction(u_hi[j], u_lo[j]))) / math.log1p(rel_error)
            need[j] = D * min(16, max(2, math.ceil(1.3 * f)))
            still.append(j)
        pending = still
    return b_lo, b_hi, u_lo, u_hi


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
               rel_error: float = DEFAULT_MAX_REL_ERROR, progress: bool | None = None, budget_s: float = 60.0
               ) -> tuple[np.ndarray, np.ndarray]:
    """Proven bounds lo ≤ φ ≤ hi of AP (= φ of SP) for binary runs ``rel`` (..., L ≤ N; ranks beyond L not
    relevant) at N: object arrays of Python ints (ties mid: Fractions). min/max/mid: the rounded programme
    (module docstring), hi ≤ (1 + rel_error)·lo unless ``budget_s`` runs out (then a ``RuntimeWarning``);
    unq: exact to N = 24 (and for low values to 40), else 1 or the exact value ≤ φ_unq ≤ φ_max."""
    return phi_bounds_ties(measure, rel, (ties,), N=N, c=c, rel_error=rel_error, progress=progress,
                           budget_s=budget_s)[ties]


def phi_bounds_ties(measure: M.Measure | str, rel, ties=TIES, *, N: int, c: int = 1,
                    rel_error: float = DEFAULT_MAX_REL_ERROR, progress: bool | None = None, budget_s: float = 60.0
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
    ranked = [t for t in ties if t != UNQ]
    if ranked or (N > ap_count.FULL_MAX_N and UNQ in ties):
        keys, L = sp_exact(bits, N)
        uq = tuple(sorted(set(keys)))
        b_lo, b_hi, u_lo, u_hi = count_bounds(uq, L, N, rel_error, budget_s=budget_s, progress=progress)
        where = [{K: j for j, K in enumerate(uq)}[K] for K in keys]
        for t in set(ranked) | ({"max"} if UNQ in ties else set()):
            pairs = [_tie_bounds(b_lo[j], b_hi[j], u_lo[j], u_hi[j], t) for j in where]
            out[t] = [p[0] for p in pairs], [p[1] for p in pairs]
    if UNQ in ties:
        out[UNQ] = _unq_bounds(bits, N, out.get("max", (None, None))[1], budget_s)
    target = to_fraction(rel_error)
    result = {}
    for t in ties:
        lo, hi = out[t]
        wide = sum(b > (1 + target) * a for a, b in zip(lo, hi))
        if wide:
            warnings.warn(f"phi_bounds: AP at N={N} ({t}): {wide} of {len(lo)} runs keep bounds wider than "
                          f"rel_error={rel_error} ({bracket_kind(N, t)}; budget {budget_s:g} s); they are valid "
                          "but wider", RuntimeWarning, stacklevel=3)
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
