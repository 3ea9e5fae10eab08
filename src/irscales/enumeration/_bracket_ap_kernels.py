"""The compiled kernels of AP's bracket (:mod:`irscales.enumeration._bracket_ap`, issue 51): one forward count of
the runs of REL^N by (hits, rounded SP), read at its end as proven lower and upper counts for every grid cell at
once, and the exact walk over the far lower tail.

**The count (FFF21 eq. 2, §5.2.2: φ_AP = φ_SP).** SP(r) = Σ_k k/i_k over the ranks i_1 < i_2 < … of the relevant
documents. Fix an integer grid D and give the k-th hit at rank i the *floor cost* ⌊k·D/i⌋ (exact integers). A
run's cost F(r) = Σ_k ⌊k·D/i_k⌋ then satisfies, with h(r) its number of hits,

    D·SP(r) − h(r) < F(r) ≤ D·SP(r)          (each floor drops less than 1; F = D·SP = 0 without hits)

The forward programme C(i, h, s) = #{prefixes of ranks 1..i with h hits and cost s} is
C(i, h + 1, s + ⌊(h + 1)·D/i⌋) += C(i − 1, h, s), rank by rank, h descending (so row h still holds rank i − 1
when row h + 1 reads it). At i = N its rows give, for every integer x, the two counts

    HI(x) = Σ_h #{F ≤ x, h hits}        ⊇ {SP ≤ x/D}      (SP ≤ x/D ⇒ F ≤ D·SP ≤ x)
    LO(x) = Σ_h #{F + h ≤ x, h hits}    ⊆ {SP < x/D} ∪ {the empty run}   (F + h > D·SP for h ≥ 1)

so for a value m: #{SP ≤ m} and #{SP < m} (m > 0) both lie in [LO(⌊D·m⌋), HI(⌊D·m⌋)], and #{SP < m} ≤
HI(⌈D·m⌉ − 1). One pass answers every value up to M = ⌊D·max m⌋ by a lookup (the states with cost above M are
dropped: costs only grow). The width HI/LO − 1 is the share of runs whose cost lies within h of the query, so
it shrinks about as 1/D.

*Nesting.* For an integer a ≥ 1 the grid a·D is never looser: ⌊a·y⌋ ≥ a·⌊y⌋ gives F_{aD} ≥ a·F_D, so
F_{aD} ≤ ⌊a·D·m⌋ implies F_D ≤ ⌊D·m⌋ (HI shrinks); ⌊a·y⌋ ≤ a·⌊y⌋ + a − 1 gives F_{aD} + h ≤ a·(F_D + h), so
F_D + h ≤ ⌊D·m⌋ implies F_{aD} + h ≤ ⌊a·D·m⌋ (LO grows). The planner's grids D0·2^k are nested
(:mod:`irscales.enumeration._bracket_ap_plan`).

*Pruning.* Row h is kept for costs base_h..M, base_h = Σ_{k≤h} ⌊k·D/(N − h + k)⌋ (the least cost of h hits among
N ranks, :func:`least_costs`; every prefix with h hits costs at least that); at rank i a row is read only
from ⌈D·h(h + 1)/(2(i − 1))⌉ − h on (h hits among ranks 1..i − 1 cost at least Σ_k (k·D/(i − 1) − 1)): the
cells skipped are zero.

*Float rounding (proven factor).* Counts are float64 sums of non-negative terms from the exact 1.0: a cell
passes through at most N additions (one per rank), a row's prefix sum up to x through at most x more and the sum
over the rows whose least cost is ≤ x through one more per row, so HI(x) and LO(x) are within (1 ± u)^a,
a = N + x + #rows + 3 (:meth:`Layout.roundings`), u = 2^-53, of their exact values: c ≥ ĉ·(1 − a·u) and
c ≤ ĉ/(1 − a·u), taken as exact integers (:func:`floor_count`, :func:`ceil_count`). Neither the floats (cells above
x never flow down to x) nor a depend on the range M of the pass: a value's bounds from a grid are a function of
the grid and the value alone.
Below 2^53 the float is the exact count (rounding is monotone: no partial sum behind it reached 2^53, and
integer sums below 2^53 are exact). Counts stay below 2^N·(1 + a·u) < 2^1024 for N ≤ 1020.
"""
from __future__ import annotations

import functools

import numpy as np

from irscales._jit_cache import compiled_noted
from irscales._progress import bar

__all__ = ["least_costs", "Layout", "grid_counts", "floor_count", "ceil_count", "count_walk", "maxcomp", "kernels"]

_U_DEN = 2**53  # 1/u: float64 rounds an addition within a relative 2^-53


def _forward_py(N, D, M, base, off, hcap, G, i_from, i_to, run):
    """Ranks i_from..i_to of the forward programme (module doc), in place on the ragged rows of G (row h: costs
    base[h]..M at G[off[h]:]; the empty prefix G[off[0]] = 1 before rank 1); ``run`` = 0 only counts the
    additions it would make. Returns that count."""
    adds = 0
    for i in range(i_from, i_to + 1):
        top = min(i - 1, hcap - 1)
        for h in range(top, -1, -1):
            w = ((h + 1) * D) // i
            if w > M:
                continue
            s0 = 0
            if h > 0:
                s0 = (D * h * (h + 1) + 2 * (i - 1) - 1) // (2 * (i - 1)) - h
                if s0 < base[h]:
                    s0 = base[h]
            if s0 + w < base[h + 1]:
                s0 = base[h + 1] - w
            s1 = M - w
            if s1 < s0:
                continue
            adds += s1 - s0 + 1
            if run:
                a = off[h] - base[h]
                b = off[h + 1] - base[h + 1] + w
                for s in range(s0, s1 + 1):
                    G[b + s] += G[a + s]
    return adds


def _read_py(M, base, off, size, hcap, G, LO, HI):
    """HI(x) and LO(x) for x = 0..M from the final rows (module doc): each row's prefix sum in place, then
    summed over rows, h ascending."""
    for h in range(hcap + 1):
        a = off[h]
        for j in range(1, size[h]):
            G[a + j] += G[a + j - 1]
        b = base[h]
        for x in range(b, M + 1):
            HI[x] += G[a + x - b]
        for x in range(b + h, M + 1):
            LO[x] += G[a + x - h - b]


def _walk_py(N, m, tol, maxc, node_cap, amb_cap):
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
            if N - i + 1 <= 60 and s + maxc[i, d] < m - tol:
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
def kernels():
    """(forward programme, read-out, walk), compiled or loaded from numba's cache (nogil: a caller may thread)."""
    return compiled_noted("the AP bracket kernels", 8, (_forward_py, _read_py, _walk_py), nogil=True)


@functools.lru_cache(maxsize=64)
def least_costs(N: int, D: int) -> np.ndarray:
    """least[h] = Σ_{k≤h} ⌊k·D/(N − h + k)⌋, the least floor cost of any h hits among N ranks (the k-th hit costs
    least at the latest rank it can take, N − h + k), for h = 0..N; non-decreasing in h."""
    out = np.zeros(N + 1, dtype=np.int64)
    for h in range(1, N + 1):
        k = np.arange(1, h + 1, dtype=np.int64)
        out[h] = (k * D // (N - h + k)).sum()
    return out


class Layout:
    """The rows of one pass: grid D, largest query cost M, rows h = 0..hcap (least cost ≤ M), their first costs,
    sizes and offsets (module doc)."""

    def __init__(self, N: int, D: int, M: int):
        self.N, self.D, self.M = N, D, M
        least = least_costs(N, D)
        self.hcap = int(np.searchsorted(least, M, "right")) - 1  # rows with least[h] ≤ M
        self.base = least[: self.hcap + 1].copy()
        self.size = (M - self.base + 1).astype(np.int64)
        self.off = np.concatenate([[0], np.cumsum(self.size)[:-1]]).astype(np.int64)

    @property
    def cells(self) -> int:
        return int(self.size.sum())

    def roundings(self, x: int) -> int:
        """a of the module doc for HI(x) and LO(x): the float roundings their counts pass through, at most — N in the
        programme, x in a row's prefix sum, one per row with least cost ≤ x; none depends on M, so a value's bounds
        from a grid are the same whatever range the pass covers."""
        return self.N + x + int(np.searchsorted(self.base, x, "right")) + 3

    def additions(self) -> int:
        """The additions the pass makes, exactly (the kernel run dry)."""
        return int(kernels()[0](self.N, self.D, self.M, self.base, self.off, self.hcap, np.zeros(1), 1, self.N, 0))


def grid_counts(N: int, D: int, M: int, progress: bool | None = False) -> tuple[np.ndarray, np.ndarray, Layout]:
    """(LO, HI, layout): float counts LO(x), HI(x) for x = 0..M at grid D (module doc) and the pass's layout, whose
    :meth:`Layout.roundings` (x) bounds the roundings behind them (:func:`floor_count`, :func:`ceil_count` turn
    them into proven integers); ``progress``: a bar over ranks. LO(x) and HI(x) are the same floats for any
    M ≥ x (cells above x never flow down)."""
    lay = Layout(N, D, M)
    forward, read, _ = kernels()
    G = np.zeros(lay.cells)
    G[0] = 1.0  # the empty prefix: row 0, cost 0
    step = max(1, N // 50)
    with bar(N, f"AP bracket N={N} D={D}", progress, unit="rank", delay=1.0) as pb:
        for i in range(1, N + 1, step):
            forward(N, D, M, lay.base, lay.off, lay.hcap, G, i, min(N, i + step - 1), 1)
            pb.update(min(step, N - i + 1))
    LO, HI = np.zeros(M + 1), np.zeros(M + 1)
    read(M, lay.base, lay.off, lay.size, lay.hcap, G, LO, HI)
    return LO, HI, lay


def floor_count(x: float, a: int) -> int:
    """The exact count is at least this: ⌊x̂·(2^53 − a)/2^53⌋; x̂ itself below 2^53 (module doc)."""
    v = int(x)
    return v if v < _U_DEN else v * (_U_DEN - a) // _U_DEN


def ceil_count(x: float, a: int) -> int:
    """The exact count is at most this: ⌈x̂·2^53/(2^53 − a)⌉; x̂ itself below 2^53 (module doc)."""
    v = int(x)
    return v if v < _U_DEN else -(-v * _U_DEN // (_U_DEN - a))


@functools.lru_cache(maxsize=2)
def maxcomp(N: int) -> np.ndarray:
    """maxcomp[i, h] ≥ the largest SP added by ranks i..N entered with h hits, Σ_{j≥i} (h + j − i + 1)/j,
    raised by a relative and an absolute 1e-9 over its float rounding (≲ N·2^-53 of terms ≤ N)."""
    inv = 1.0 / np.arange(1, N + 1)
    H = np.concatenate([np.cumsum(inv[::-1])[::-1], [0.0, 0.0]])  # H[i−1] = Σ_{j≥i} 1/j
    i = np.arange(1, N + 2)[:, None]
    h = np.arange(N + 1)[None, :]
    out = np.zeros((N + 2, N + 1))
    out[1:] = (h * H[i - 1] + (N - i + 1) - (i - 1) * H[i - 1]) * (1 + 1e-9) + 1e-9
    return out


def count_walk(N: int, m: float, tol: float, node_cap: int):
    """The walk of :func:`_walk_py` for SP value ``m`` (float) within ``tol``: (below, ambiguous, used, amb,
    nodes), nodes = −1 past ``node_cap``."""
    return kernels()[2](N, m, tol, maxcomp(N), node_cap, max(1024, 64 * N))
