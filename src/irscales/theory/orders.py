"""Orders on judged runs, their covers and rank functions, and FFP17's vector difference Δ.

A *judged run* is an integer array of relevance degrees δ(r̂_i) ∈ {0, …, c} (rank 1 first); run
spaces are arrays of shape ``(n_runs, N)``. Three orders are implemented, each as a small frozen
object with vectorised ``leq``, ``rank`` (the rank function ρ) and ``covers``:

:class:`SetBased`
    FFP19 §4, eq. (1): runs are compared by the number of documents at the highest relevance
    degree where their counts differ. On multisets of degrees (FFP19's R(N)) it is a total
    order; its rank function is eq. (2), ρ(r̂) = Σ_j C(δ(r̂_j) + N − j, N − j + 1) with the degrees
    sorted decreasingly (= :class:`irscales.measures.SBTO`, eq. 3).
:class:`StrongTopHeaviness`
    FFP19 §5, eq. (4): lexicographic order, rank 1 most important. Total on REL^N with rank
    function eq. (5), ρ(r̂) = Σ_i δ(r̂_i)(c + 1)^{N−i} (= :class:`irscales.measures.RBTO`, eq. 6).
:class:`WeakTopHeaviness`
    FFP17 eq. (1): r̂ ⪯ ŝ ⇔ Σ_{j≤k} r̂_j ≤ Σ_{j≤k} ŝ_j for every depth k (Replacement + Swap;
    MM23's Rules 1 and 2 for binary runs). For c > 1 we read it level by level: for every degree
    a ≥ 1 the cumulative counts of documents with degree ≥ a must dominate (which is what
    "replace by a more relevant document" and "swap a more relevant one forward" generate).
    Binary rank function ρ(r̂) = Σ_k R̂[k] = Σ_i (N − i + 1) r̂_i (FFP17 §3.2: Δ[N] is the natural
    distance).

FFP17 Def. 2: for r̂ ⪯ ŝ, Δ_ŝr̂[i] = Σ_{j≤i} (i − j + 1)(ŝ_j − r̂_j), the cumulative sums of the
cumulative sums of ŝ − r̂ (:func:`delta`). Def. 3 orders intervals componentwise
(:func:`interval_leq`).

Enumeration here is deliberately simple (whole spaces in memory, fine for (c+1)^N ≤ ~10^4 runs);
the chunked engine for large N is :mod:`irscales.enumeration`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from irscales.measures.total_order import rbto_rank, sbto_rank

__all__ = [
    "RunOrder", "SetBased", "StrongTopHeaviness", "WeakTopHeaviness", "binary_runs", "graded_runs", "multiset_runs",
    "delta",
]

MAX_RUNS = 1 << 16
"""Largest run space the in-memory helpers build (pairwise matrices grow as its square)."""


class NotGradedError(ValueError):
    """The poset has maximal chains of different lengths, so it has no rank function."""


# ------------------------------------------------------------------------------ run spaces


def _check_space(n: int, c: int, count: int) -> None:
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"run length N must be a positive integer, got {n!r}")
    if not isinstance(c, (int, np.integer)) or c < 1:
        raise ValueError(f"the top relevance degree c must be a positive integer, got {c!r}")
    if count > MAX_RUNS:
        raise ValueError(
            f"REL^N with N={n}, c={c} has {count} runs, more than the in-memory limit {MAX_RUNS}; "
            "use irscales.enumeration for large spaces"
        )


def graded_runs(N: int, c: int = 1) -> np.ndarray:
    """All (c+1)^N runs of {0..c}^N, row k being k written in base c+1 (rank 1 most significant).

    Row order is therefore the strong top-heaviness order, and row index = RBTO (FFP19 eq. 6).
    """
    _check_space(N, c, (c + 1) ** N)
    k = np.arange((c + 1) ** N, dtype=np.int64)
    powers = (c + 1) ** np.arange(N - 1, -1, -1, dtype=np.int64)
    return ((k[:, None] // powers) % (c + 1)).astype(np.int64)


def binary_runs(N: int) -> np.ndarray:
    """All 2^N binary runs (see :func:`graded_runs`)."""
    return graded_runs(N, 1)


def multiset_runs(N: int, c: int = 1) -> np.ndarray:
    """FFP19's R(N) for set-based measures: the C(N+c, N) multisets of degrees, each written with
    its degrees sorted decreasingly, rows in the set-based total order (row index = SBTO)."""
    _check_space(N, c, math.comb(N + c, N))
    rows = [sorted(t, reverse=True) for t in itertools.combinations_with_replacement(range(c + 1), N)]
    runs = np.array(rows, dtype=np.int64).reshape(-1, N)
    return runs[np.argsort(SetBased(c).key(runs), kind="stable")]


def as_runs(runs, c: int | None = None, what: str = "runs") -> np.ndarray:
    """``runs`` as an int64 array of relevance degrees ``(..., N)``: booleans and integral floats
    are accepted; negative degrees, degrees above ``c`` (when given) and fractions raise
    ``ValueError`` naming ``what``."""
    a = np.asarray(runs)
    if a.ndim == 0:
        raise ValueError(f"{what}: expected an array of shape (..., N), got a scalar")
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise ValueError(f"{what}: relevance degrees must be integers, got dtype {a.dtype}")
    a = a.astype(np.int64, copy=False)
    if a.size and a.min() < 0:
        raise ValueError(f"{what}: relevance degrees must be ≥ 0, found {int(a.min())}")
    if c is not None and a.size and a.max() > c:
        raise ValueError(f"{what}: degree {int(a.max())} exceeds the top degree c={c} of this order")
    return a


def cumsums(runs) -> np.ndarray:
    """R̂[k] = Σ_{j≤k} r̂_j along the last axis (FFP17 §3.2)."""
    return np.cumsum(as_runs(runs), axis=-1)


# -------------------------------------------------------------------------------- the orders


@dataclass(frozen=True)
class RunOrder:
    """An order on runs with degrees 0..c (abstract; see the module docstring)."""

    c: int = 1
    name: ClassVar[str] = ""
    total: ClassVar[bool] = False

    def __post_init__(self):
        if not isinstance(self.c, (int, np.integer)) or self.c < 1:
            raise ValueError(f"{type(self).__name__} needs an integer top degree c ≥ 1, got {self.c!r}")

    def leq(self, r, s) -> np.ndarray:
        """r ⪯ s, broadcast over leading axes."""
        raise NotImplementedError

    def rank(self, runs) -> np.ndarray:
        """The rank function ρ of the (graded) order, int64 (object for huge values)."""
        raise NotImplementedError

    def leq_matrix(self, runs) -> np.ndarray:
        """M[i, j] = runs[i] ⪯ runs[j] for a run space of shape (n, N)."""
        runs = self._space(runs)
        return self.leq(runs[:, None, :], runs[None, :, :])

    def covers(self, runs) -> tuple[np.ndarray, np.ndarray]:
        """Index arrays (lo, hi): runs[hi] covers runs[lo] (lo ≺ hi, nothing strictly between).

        Uses ρ: in a graded poset, t covers s iff s ⪯ t and ρ(t) = ρ(s) + 1 (checked against the
        transitive reduction in the tests).
        """
        runs = self._space(runs)
        rho = self.rank(runs)
        le = self.leq_matrix(runs) & (rho[None, :] - rho[:, None] == 1)
        lo, hi = np.nonzero(le)
        return lo, hi

    def _space(self, runs) -> np.ndarray:
        a = as_runs(runs, self.c)
        if a.ndim != 2:
            raise ValueError(f"a run space must have shape (n_runs, N), got {a.shape}")
        if a.shape[0] > MAX_RUNS:
            raise ValueError(f"{a.shape[0]} runs exceed the in-memory limit {MAX_RUNS}")
        return a

    def __str__(self) -> str:
        return f"{self.name}(c={self.c})"


@dataclass(frozen=True)
class SetBased(RunOrder):
    """FFP19 eq. (1): compare the counts of the highest degree at which they differ.

    A total order on multisets (FFP19's R(N)); on ordered runs of REL^N it is a total preorder
    (runs with the same multiset of degrees are equivalent).
    """

    name: ClassVar[str] = "set-based"
    total: ClassVar[bool] = True

    def key(self, runs) -> np.ndarray:
        """Σ_k n_k (N+1)^{k−1}, n_k = #documents of degree k: comparing keys compares the count
        vectors lexicographically from the top degree down, i.e. eq. (1)."""
        a = as_runs(runs, self.c)
        n = a.shape[-1]
        counts = np.stack([(a == k).sum(-1) for k in range(1, self.c + 1)], axis=-1)
        w = (n + 1) ** np.arange(self.c, dtype=np.int64)
        return counts @ w

    def leq(self, r, s) -> np.ndarray:
        return self.key(r) <= self.key(s)

    def rank(self, runs) -> np.ndarray:
        """FFP19 eq. (2): ρ(r̂) = Σ_j C(δ(r̂_j) + N − j, N − j + 1), degrees sorted decreasingly
        (:func:`irscales.measures.total_order.sbto_rank`, = SBTO)."""
        return sbto_rank(as_runs(runs, self.c), self.c)


@dataclass(frozen=True)
class StrongTopHeaviness(RunOrder):
    """FFP19 eq. (4): r̂ ≺ ŝ iff r̂[k] ≺ ŝ[k] at the first rank k where they differ."""

    name: ClassVar[str] = "strong top-heaviness"
    total: ClassVar[bool] = True

    def rank(self, runs) -> np.ndarray:
        """FFP19 eq. (5): ρ(r̂) = Σ_i δ(r̂_i)(c + 1)^{N−i}, the run read as a base-(c+1) number
        (:func:`irscales.measures.total_order.rbto_rank`, = RBTO)."""
        return rbto_rank(as_runs(runs, self.c), self.c)

    def leq(self, r, s) -> np.ndarray:
        return self.rank(r) <= self.rank(s)


@dataclass(frozen=True)
class WeakTopHeaviness(RunOrder):
    """FFP17 eq. (1): cumulative (per-level) counts dominate at every depth. A partial order."""

    name: ClassVar[str] = "weak top-heaviness"
    total: ClassVar[bool] = False

    def level_cumsums(self, runs) -> np.ndarray:
        """C[..., a-1, k] = #{j ≤ k : r̂_j ≥ a} for a = 1..c."""
        a = as_runs(runs, self.c)
        levels = np.stack([(a >= k) for k in range(1, self.c + 1)], axis=-2).astype(np.int64)
        return np.cumsum(levels, axis=-1)

    def leq(self, r, s) -> np.ndarray:
        return np.all(self.level_cumsums(r) <= self.level_cumsums(s), axis=(-2, -1))

    def leq_matrix(self, runs) -> np.ndarray:
        runs = self._space(runs)
        cs = self.level_cumsums(runs).reshape(runs.shape[0], -1)
        out = np.ones((runs.shape[0], runs.shape[0]), dtype=bool)
        for col in cs.T:  # column by column keeps memory at n^2 booleans
            out &= col[:, None] <= col[None, :]
        return out

    def rank(self, runs) -> np.ndarray:
        """Binary: ρ(r̂) = Σ_i (N − i + 1) r̂_i (FFP17 §3.2). For c > 1 the poset's rank is
        computed from its covers on the whole space {0..c}^N (:func:`poset_rank`), which raises
        :class:`NotGradedError` if it is not graded."""
        a = as_runs(runs, self.c)
        n = a.shape[-1]
        if self.c == 1:
            return a @ np.arange(n, 0, -1, dtype=np.int64)
        full = _weak_graded_rank(n, self.c)
        idx = StrongTopHeaviness(self.c).rank(a)
        return full[idx]

    def covers(self, runs) -> tuple[np.ndarray, np.ndarray]:
        if self.c == 1:
            return super().covers(runs)
        runs = self._space(runs)
        return transitive_reduction(self.leq_matrix(runs))


@lru_cache(maxsize=16)
def _weak_graded_rank(n: int, c: int) -> np.ndarray:
    space = graded_runs(n, c)
    if space.shape[0] > 4096:
        raise ValueError(f"rank of the graded weak order is computed on the whole space; "
                         f"{space.shape[0]} runs is too many (N={n}, c={c})")
    return poset_rank(WeakTopHeaviness(c).leq_matrix(space))


# ---------------------------------------------------------------------- generic poset helpers


def transitive_reduction(leq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cover pairs (lo, hi) of a partial order given by its ⪯ matrix (O(n^3); small n only)."""
    leq = np.asarray(leq, dtype=bool)
    if leq.ndim != 2 or leq.shape[0] != leq.shape[1]:
        raise ValueError(f"a ⪯ matrix must be square, got shape {leq.shape}")
    lt = leq & ~np.eye(leq.shape[0], dtype=bool)
    if np.any(lt & lt.T):
        raise ValueError("the relation is not antisymmetric (two distinct elements are ⪯ each other)")
    m = lt.astype(np.int32)
    between = (m @ m) > 0
    return np.nonzero(lt & ~between)


def poset_rank(leq: np.ndarray) -> np.ndarray:
    """Rank function of a finite graded poset with a least element, from its ⪯ matrix.

    ρ = length of the longest chain from the minimum; raises :class:`NotGradedError` if some
    cover does not raise ρ by exactly one (then maximal chains have different lengths).
    """
    lo, hi = transitive_reduction(leq)
    n = leq.shape[0]
    below = np.asarray(leq, dtype=bool).sum(0)  # number of elements ⪯ each one: a linear extension
    order = np.argsort(below, kind="stable")
    rho = np.zeros(n, dtype=np.int64)
    by_hi = [[] for _ in range(n)]
    for a, b in zip(lo.tolist(), hi.tolist()):
        by_hi[b].append(a)
    for v in order:
        if by_hi[v]:
            rho[v] = 1 + max(rho[u] for u in by_hi[v])
    bad = rho[hi] - rho[lo] != 1
    if np.any(bad):
        k = int(np.argmax(bad))
        raise NotGradedError(
            f"not graded: element {int(hi[k])} covers {int(lo[k])} but their longest-chain ranks are "
            f"{int(rho[hi[k]])} and {int(rho[lo[k]])}"
        )
    return rho


# ------------------------------------------------------------------------- FFP17 Δ, Def. 2/3


def delta(r, s, check: bool = True) -> np.ndarray:
    """FFP17 Def. 2: Δ_ŝr̂[i] = Σ_{j≤i} (i − j + 1)(ŝ_j − r̂_j), for r̂ ⪯ ŝ (weak top-heaviness).

    Equals the cumulative sums T of t = Ŝ − R̂ (FFP17 §3.2); T[N] is the natural distance
    ρ(ŝ) − ρ(r̂). Vectorised over leading axes. ``check`` raises if some pair is not comparable
    (r̂ ⋠ ŝ), naming the first offending pair.
    """
    r = as_runs(r, what="r")
    s = as_runs(s, what="s")
    if r.shape[-1] != s.shape[-1]:
        raise ValueError(f"runs of different lengths: {r.shape[-1]} and {s.shape[-1]}")
    t = np.cumsum(s - r, axis=-1)
    if check:
        bad = np.any(t < 0, axis=-1)
        if np.any(bad):
            idx = tuple(int(x) for x in np.argwhere(np.atleast_1d(bad))[0])
            rr = np.broadcast_to(r, np.broadcast_shapes(r.shape, s.shape))
            ss = np.broadcast_to(s, rr.shape)
            sel = idx if rr.ndim > 1 else ()
            raise ValueError(
                f"Δ_sr is defined for r ⪯ s (FFP17 Def. 2), but at index {idx} r={rr[sel].tolist()} "
                f"is not below s={ss[sel].tolist()} in the weak top-heaviness order"
            )
    return np.cumsum(t, axis=-1)


def relation_str(order: RunOrder, r, s) -> str:
    """``"r ≺ s"``, ``"s ≺ r"``, ``"r ~ s"`` (equivalent) or ``"r ∥ s"`` (incomparable) under ``order``."""
    a, b = bool(order.leq(r, s)), bool(order.leq(s, r))
    return {(True, False): "r ≺ s", (False, True): "s ≺ r", (True, True): "r ~ s"}.get((a, b), "r ∥ s")


def interval_leq(d1, d2) -> np.ndarray:
    """FFP17 Def. 3: Δ1 ⪯_d Δ2 iff Δ1[i] ≤ Δ2[i] for every i (vectorised)."""
    d1, d2 = np.asarray(d1), np.asarray(d2)
    if d1.shape[-1] != d2.shape[-1]:
        raise ValueError(f"Δ vectors of different lengths: {d1.shape[-1]} and {d2.shape[-1]}")
    return np.all(d1 <= d2, axis=-1)
