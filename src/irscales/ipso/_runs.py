"""IPSO on a set of runs: Algorithm 1 for every system pair on every topic (MM23 §3
"Separability In Practice"), vectorised over all S(S−1)/2 system pairs × T topics.

Pairs and orientation
    Pairs are ``(A, B) = (i, j)``, ``i < j``, in :func:`irscales.stats._significance.pairs` order. The
    IPSO relation of a pair on a topic is Algorithm 1 (:func:`irscales.ipso.compare`) with S1 = A's
    SERP and S2 = B's SERP: ``ni`` means A ⪰ B (A non-inferior), ``ns`` A ⪯ B. Relevance arrays are
    ``[system, topic, rank]``: a collection's lenient binary relevance (grade ≥ 1 relevant,
    unjudged not relevant) unless ``gains="graded"`` (grades as integer gains, MM23 §4).

Depths
    :func:`pair_relations` keeps, per pair and topic, the first rank at which A is strictly ahead
    and the first at which it is behind in cumulative gain (integers), so the relation at *every*
    depth k ≤ N follows without recomputation (:meth:`PairRelations.at`). Categories are decided
    in integer arithmetic; there are no floating-point ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from irscales.ipso._compare import Relation, compare_reference

if TYPE_CHECKING:  # annotations only
    from irscales.data.collection import Collection

__all__ = ["PairRelations", "pair_relations", "pair_relations_reference", "relations_of"]


@dataclass(frozen=True, kw_only=True)
class PairRelations:
    """IPSO relations of every system pair on every topic, at every depth ≤ ``depth``.

    ``first_pos[p, t]`` / ``first_neg[p, t]``: first rank (1-based) at which system
    ``first[p]`` (A) is strictly ahead / behind ``second[p]`` (B) in cumulative gain on topic t;
    0 if never within ``depth``.
    """

    first_pos: np.ndarray
    first_neg: np.ndarray
    first: np.ndarray
    second: np.ndarray
    depth: int
    systems: tuple[str, ...]
    topics: tuple[str, ...]

    @property
    def n_pairs(self) -> int:
        """Number of system pairs, S(S − 1)/2."""
        return int(self.first.shape[0])

    def _check(self, k: int) -> int:
        if not isinstance(k, (int, np.integer)) or not 1 <= k <= self.depth:
            raise ValueError(f"depth k must be an integer in 1..{self.depth} (the depth of these "
                             f"relations), got {k!r}")
        return int(k)

    def at(self, k: int) -> np.ndarray:
        """Relation codes (:class:`~irscales.ipso.Relation`) at depth k, shape (pairs, topics)."""
        k = self._check(k)
        pos = (self.first_pos > 0) & (self.first_pos <= k)
        neg = (self.first_neg > 0) & (self.first_neg <= k)
        return pos.astype(np.int8) + 2 * neg.astype(np.int8)

    def counts(self, k: int) -> dict[str, int]:
        """Number of (pair, topic) SERP pairs per category at depth k (``=``, ``ni``, ``ns``, ``**``)."""
        c = np.bincount(self.at(k).reshape(-1), minlength=4)
        return {r.label: int(c[r]) for r in Relation}

    def sign_counts(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Per pair: (|ni|, |ns|) over topics at depth k."""
        a = self.at(k)
        return (a == Relation.NI).sum(1), (a == Relation.NS).sum(1)

    def pair_index(self, a: int, b: int) -> tuple[int, bool]:
        """Row of the pair of systems a, b (positions) and whether it is stored as (b, a)."""
        if a == b:
            raise ValueError("a system pair needs two different systems")
        lo, hi = min(a, b), max(a, b)
        S = len(self.systems)
        row = lo * S - lo * (lo + 1) // 2 + (hi - lo - 1)  # position in triu_indices order
        return row, a > b


def _validate_rel(rel) -> np.ndarray:
    a = np.asarray(rel)
    if a.ndim != 3:
        raise ValueError(f"relevance must have shape (systems, topics, ranks), got shape {a.shape}")
    if a.shape[0] < 2:
        raise ValueError(f"need at least 2 systems to form pairs, got {a.shape[0]}")
    if a.shape[1] < 1 or a.shape[2] < 1:
        raise ValueError(f"need at least one topic and one rank, got shape {a.shape}")
    if a.dtype.kind not in "biu":
        raise TypeError(f"relevance must be binary labels or integer grades, got dtype {a.dtype} "
                        "(real-valued gains: use irscales.ipso.compare on each pair)")
    if a.dtype.kind == "i" and a.size and a.min() < 0:
        idx = tuple(int(x) for x in np.argwhere(a < 0)[0])
        raise ValueError(f"relevance must be >= 0; found {int(a[idx])} at (system, topic, rank) = {idx}")
    return a


def pair_relations(rel: ArrayLike, systems: Sequence[str] | None = None,
                   topics: Sequence[str] | None = None) -> PairRelations:
    """Algorithm 1 of MM23 for all system pairs × topics of ``rel`` (systems, topics, ranks).

    Works on per-system prefix sums C_s[t, i] = Σ_{r ≤ i} rel_s[t, r]: for a pair (A, B),
    cumul_i = C_A[t, i] − C_B[t, i] (MM23 Algorithm 1), so the cumulative sums are computed once
    per system, not once per pair. One system A at a time against all B > A bounds the memory
    to (S × T × N) integers.
    """
    a = _validate_rel(rel)
    S, T, N = a.shape
    systems = tuple(str(x) for x in systems) if systems is not None else tuple(map(str, range(S)))
    topics = tuple(str(x) for x in topics) if topics is not None else tuple(map(str, range(T)))
    if len(systems) != S or len(topics) != T:
        raise ValueError(f"{len(systems)} system names and {len(topics)} topic names for relevance "
                         f"of shape {a.shape}")
    bound = int(a.max(initial=0)) * N
    dt = np.int16 if bound < 2**15 - 1 else (np.int32 if bound < 2**31 - 1 else np.int64)
    C = np.cumsum(a, axis=-1, dtype=dt)
    first, second = np.triu_indices(S, 1)
    rank_dt = np.int16 if N < 2**15 else np.int32
    fp = np.zeros((first.size, T), dtype=rank_dt)
    fn = np.zeros((first.size, T), dtype=rank_dt)
    off = 0
    for s in range(S - 1):
        d = C[s][None] - C[s + 1:]  # (S − s − 1, T, N): cumul of (s, later systems)
        pos, neg = d > 0, d < 0
        n = S - s - 1
        fp[off:off + n] = np.where(pos.any(-1), pos.argmax(-1) + 1, 0)
        fn[off:off + n] = np.where(neg.any(-1), neg.argmax(-1) + 1, 0)
        off += n
    return PairRelations(first_pos=fp, first_neg=fn, first=first, second=second, depth=N, systems=systems,
                         topics=topics)


def pair_relations_reference(rel: ArrayLike, k: int) -> np.ndarray:
    """Relation codes (pairs, topics) at depth k by one :func:`ipso.compare_reference` call per
    pair and topic (a plain loop, for cross-checks on small data)."""
    a = _validate_rel(rel)
    S, T, _ = a.shape
    out = []
    for i, j in zip(*np.triu_indices(S, 1)):
        out.append([int(compare_reference(a[i, t].tolist(), a[j, t].tolist(), k)) for t in range(T)])
    return np.array(out, dtype=np.int8).reshape(-1, T)


def relations_of(col: "Collection", gains: str = "binary") -> PairRelations:
    """:func:`pair_relations` of every system pair of ``col`` on its binary (lenient) relevance or,
    with ``gains="graded"``, its grades."""
    if gains not in ("binary", "graded"):
        raise ValueError(f"gains must be 'binary' or 'graded', got {gains!r}")
    rel = col.binary() if gains == "binary" else col.rel_at()
    return pair_relations(rel, col.systems, col.topics)

