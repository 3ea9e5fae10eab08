"""Innate pairwise SERP orderings (IPSO) — Moffat & Mackenzie, MM23 §2–§3.

Two SERPs ``S1``, ``S2`` of length k (binary relevance, or real-valued gains on a ratio scale,
MM23 §4 "graded relevance") are compared by Algorithm 1 (MM23 §2): walk the ranks keeping

    cumul_i = Σ_{j ≤ i} (S1[j] − S2[j])

and record whether ``cumul`` was ever > 0 (S1 ahead) and ever < 0 (S2 ahead). Then

* neither: ``=`` equal (S1 ⪰ S2 and S2 ⪰ S1);
* only > 0: ``ni``, S1 is non-inferior to S2 (S1 ⪰ S2 by Rules 1 and 2);
* only < 0: ``ns``, S1 is non-superior to S2 (S1 ⪯ S2);
* both: ``**`` non-separable — a metric is free to order the pair either way.

The depth at which each category first holds (MM23 Fig. 4) follows from the first depth where
``cumul > 0`` and the first where ``cumul < 0``; :class:`IPSOResult` keeps both, so one call
gives the relation at every depth ≤ k.

Exactness
    Ties (``cumul == 0``) decide the category, so they are decided exactly: integer and boolean
    input is used as is; float gains are read through their shortest decimal representation
    (``0.2`` means 1/5, as in :mod:`irscales.measures`) and scaled to a common integer
    denominator; :class:`fractions.Fraction` input is exact. Floating-point summation is never
    used for a category.

Counting all pairs (MM23 Table 2)
    Three independent routes: :func:`enumerate_counts` applies the Algorithm-1 recurrence to
    every one of the 4^k pairs (prefix tree, chunked); :func:`count_categories` is a dynamic
    programme over the running difference and the two flags (O(k²) exact integers, any k);
    :func:`closed_form_counts` is the formula it reduces to for uniform bits,
    ``#(S1 ⪰ S2, S1 ≠ S2) = C(2k+1, k) − 2^k``; :func:`monte_carlo` samples uniform pairs as the
    paper did, with Wilson confidence intervals.

Conventions that reproduce the paper (MM23 Table 1 and Fig. 3)
    On an exhaustive universe there is no recall base: AP@k is normalised by k (SP/k; any
    constant gives the same order), NDCG@k uses the 1/log2(i+1) discount with an ideal of k
    relevant documents, and ties on a Fig. 3 axis are broken by ascending lexicographic
    (= RBP(0.5)) order. Of the readings tried (:func:`fig3_convention_taus`) only this one gives
    the paper's τ = 0.796, 0.786, 0.976 (exactly 401/504, 11/14, 41/42).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pandas as pd

__all__ = [
    "Relation", "LABELS", "IPSOResult", "compare", "compare_reference", "all_serps",
    "relation_grid", "hasse_edges", "CategoryCounts", "enumerate_counts", "count_categories",
    "closed_form_counts", "MonteCarloResult", "monte_carlo", "default_workers", "exact_sign",
    "QSqrt5", "PHI", "golden_rbp_exact", "table1", "TABLE1_METRICS", "fig3_scores",
    "fig3_convention_taus", "axis_order", "axis_tau", "diagonal_blocks", "plot_hasse", "plot_grid",
    "plot_fig3", "reproduce_part_a", "save_figure", "save_table2", "FIG4_S1", "FIG4_S2",
    "GRADED_EXAMPLE", "TABLE2_DEPTHS", "plot_fig4", "table2_sampling_gap", "table2_notes", "JONES_K",
]


class Relation(IntEnum):
    """IPSO category of S1 relative to S2 (code = 1·[ever ahead] + 2·[ever behind])."""

    EQUAL = 0
    NI = 1  # S1 ⪰ S2 (non-inferior)
    NS = 2  # S1 ⪯ S2 (non-superior)
    NONSEP = 3  # non-separable

    @property
    def label(self) -> str:
        """The paper's cell label (MM23 Fig. 2): ``=``, ``ni``, ``ns``, ``**``."""
        return ("=", "ni", "ns", "**")[self.value]

    @property
    def words(self) -> str:
        """The category in words, as in the text of MM23 §2."""
        return ("equal", "non-inferior", "non-superior", "non-separable")[self.value]


LABELS = np.array([r.label for r in Relation])


# ------------------------------------------------------------------------ exact input handling


def _to_fraction(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (bool, np.bool_)):
        return Fraction(int(x))
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    f = float(x)
    if not math.isfinite(f):
        raise ValueError(f"SERP gains must be finite numbers, found {x!r}")
    return Fraction(repr(f))


def _exact_ints(a1: np.ndarray, a2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays as int64 on one common scale, so prefix sums and ties are exact.

    Float values mean their shortest decimal (0.2 -> 1/5); the common denominator is the lcm of
    the denominators of the distinct values, which stays small for gain scales such as
    {0, 0.2, 0.8, 1}.
    """
    if a1.dtype.kind in "biu" and a2.dtype.kind in "biu":
        if a1.dtype.kind == "u" and a1.dtype.itemsize == 8 or a2.dtype.kind == "u" and a2.dtype.itemsize == 8:
            return a1.astype(np.int64), a2.astype(np.int64)  # refuse silent wrap-around below
        return a1, a2
    both = np.concatenate([a1.reshape(-1), a2.reshape(-1)])
    if both.dtype.kind == "f":
        bad = ~np.isfinite(both)
        if bad.any():
            raise ValueError(f"SERP gains must be finite numbers, found {both[bad][0]!r}")
        uniq = np.unique(both)
    elif both.dtype.kind == "O":
        uniq = np.array(sorted(set(both.tolist())), dtype=object)
    else:
        raise TypeError(f"SERPs must hold numbers (binary labels or gains), got dtype {both.dtype}")
    fr = [_to_fraction(u) for u in uniq.tolist()]
    den = 1
    for f in fr:
        den = math.lcm(den, f.denominator)
    scaled = [int(f * den) for f in fr]
    k = max(a1.shape[-1], 1)
    if max((abs(s) for s in scaled), default=0) * k >= 2**62:
        raise ValueError(
            "SERP gains need more than 64-bit integers on a common scale (common denominator "
            f"{den}); round the gains to fewer decimals"
        )
    table = np.array(scaled, dtype=np.int64)
    if both.dtype.kind == "O":
        lookup = {u: i for i, u in enumerate(uniq.tolist())}
        idx1 = np.vectorize(lookup.__getitem__, otypes=[np.int64])(a1) if a1.size else a1.astype(np.int64)
        idx2 = np.vectorize(lookup.__getitem__, otypes=[np.int64])(a2) if a2.size else a2.astype(np.int64)
    else:
        idx1 = np.searchsorted(uniq, a1.astype(uniq.dtype))
        idx2 = np.searchsorted(uniq, a2.astype(uniq.dtype))
    return table[idx1], table[idx2]


def _as_serps(s, name: str) -> np.ndarray:
    a = np.asarray(s)
    if a.ndim == 0:
        raise ValueError(f"{name} must be a SERP (a vector of relevance values), got a scalar")
    if a.dtype.kind not in "biufO":
        raise TypeError(f"{name} must hold numbers (binary labels or gains), got dtype {a.dtype}")
    return a


def _fit(a: np.ndarray, k: int) -> np.ndarray:
    """Cut to k ranks or pad with 0 (not relevant), as for a SERP shorter than the depth."""
    n = a.shape[-1]
    if n >= k:
        return a[..., :k]
    pad = np.zeros(a.shape[:-1] + (k - n,), dtype=a.dtype)
    if a.dtype == object:
        pad[...] = 0
    return np.concatenate([a, pad], axis=-1)


# ------------------------------------------------------------------------------- Algorithm 1


@dataclass(frozen=True)
class IPSOResult:
    """IPSO relations of a batch of SERP pairs (shape = the broadcast batch shape).

    ``first_pos``/``first_neg`` are the first depths (1-based) at which S1 is strictly ahead /
    behind in cumulative gain, 0 if never within k. From them the relation at any depth d ≤ k
    follows (:meth:`at`): ``=`` before the first of the two, ``ni``/``ns`` from the first, ``**``
    from the second (MM23 Fig. 4: once non-separable, always non-separable).
    """

    relation: np.ndarray
    first_pos: np.ndarray
    first_neg: np.ndarray
    k: int

    def at(self, depth: int) -> np.ndarray:
        """Relation codes (:class:`Relation`) at depth ``depth`` (1 ≤ depth ≤ k)."""
        if not 1 <= depth <= self.k:
            raise ValueError(f"depth must be in 1..{self.k}, got {depth}")
        pos = (self.first_pos > 0) & (self.first_pos <= depth)
        neg = (self.first_neg > 0) & (self.first_neg <= depth)
        return (pos.astype(np.int8) + 2 * neg.astype(np.int8)).astype(np.int8)

    @property
    def separable_from(self) -> np.ndarray:
        """Depth at which ``=`` first gives way (to ni or ns); 0 if the pair is equal to depth k."""
        fp = np.where(self.first_pos > 0, self.first_pos, self.k + 1)
        fn = np.where(self.first_neg > 0, self.first_neg, self.k + 1)
        m = np.minimum(fp, fn)
        return np.where(m <= self.k, m, 0)

    @property
    def nonseparable_from(self) -> np.ndarray:
        """Depth from which the pair is non-separable; 0 if it is not by depth k."""
        both = (self.first_pos > 0) & (self.first_neg > 0)
        return np.where(both, np.maximum(self.first_pos, self.first_neg), 0)

    def labels(self) -> np.ndarray:
        """The relation as the paper's labels ``=``, ``ni``, ``ns``, ``**``."""
        return LABELS[self.relation]

    def counts(self) -> dict[str, int]:
        c = np.bincount(np.asarray(self.relation).reshape(-1), minlength=4)
        return {r.label: int(c[r]) for r in Relation}


def compare(s1, s2, k: int | None = None) -> IPSOResult:
    """Algorithm 1 of MM23 (§2), vectorised over batches of SERP pairs.

    ``s1`` and ``s2`` have shape ``(..., n)`` (last axis = ranks, rank 1 first) and broadcast
    against each other. Values are binary labels or real-valued gains (MM23 §4); ties are decided
    exactly (see the module docstring). With ``k`` both are cut to k ranks or padded with zeros
    (missing = not relevant); without it they must have the same length.
    """
    a1, a2 = _as_serps(s1, "s1"), _as_serps(s2, "s2")
    if k is None:
        if a1.shape[-1] != a2.shape[-1]:
            raise ValueError(
                f"SERPs of different lengths ({a1.shape[-1]} and {a2.shape[-1]}); pass k= to cut "
                "or zero-pad both to a common depth"
            )
        k = a1.shape[-1]
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"depth k must be a positive integer, got {k!r}")
    k = int(k)
    a1, a2 = _fit(a1, k), _fit(a2, k)
    try:
        shape = np.broadcast_shapes(a1.shape[:-1], a2.shape[:-1])
    except ValueError:
        raise ValueError(
            f"SERP batches of shapes {a1.shape[:-1]} and {a2.shape[:-1]} do not broadcast"
        ) from None
    i1, i2 = _exact_ints(a1, a2)
    # the narrowest integer type that holds every prefix sum (speed; values stay exact)
    bound = k * max(int(np.abs(i1).max(initial=0)), int(np.abs(i2).max(initial=0)), 1)
    if 2 * bound >= 2**63:
        raise ValueError(f"SERP values too large: prefix sums up to {bound} overflow 64-bit integers")
    dt = np.int16 if 2 * bound < 2**15 else (np.int32 if 2 * bound < 2**31 else np.int64)
    cumul = np.cumsum(np.subtract(i1, i2, dtype=dt), axis=-1, dtype=dt)
    pos, neg = cumul > 0, cumul < 0
    any_pos, any_neg = pos.any(-1), neg.any(-1)
    first_pos = np.where(any_pos, pos.argmax(-1) + 1, 0)
    first_neg = np.where(any_neg, neg.argmax(-1) + 1, 0)
    rel = (any_pos.astype(np.int8) + 2 * any_neg.astype(np.int8)).astype(np.int8)
    return IPSOResult(
        np.broadcast_to(rel, shape), np.broadcast_to(first_pos, shape),
        np.broadcast_to(first_neg, shape), k,
    )


def compare_reference(s1: Sequence, s2: Sequence, k: int) -> Relation:
    """One pair, one Python loop: the shape of the authors' published reference code
    (pad both SERPs to k, walk the ranks, update the flags). Kept as a cross-check and as the
    baseline of the speed benchmark; use :func:`compare` for real work."""
    a = list(s1)[:k] + [0] * max(0, k - len(s1))
    b = list(s2)[:k] + [0] * max(0, k - len(s2))
    acc, pos, neg = 0, False, False
    for i in range(k):
        acc += a[i]
        acc -= b[i]
        if acc < 0:
            neg = True
        if acc > 0:
            pos = True
    return Relation(int(pos) + 2 * int(neg))


# ----------------------------------------------------------------------- the universe of SERPs


def all_serps(k: int) -> np.ndarray:
    """All 2^k binary SERPs, shape (2^k, k), in lexicographic order (r1 most significant).

    Lexicographic order is the order of RBP(0.5) scores (MM23 §2 "Other score orderings").
    """
    if not 1 <= k <= 24:
        raise ValueError(f"all_serps enumerates 2^k SERPs; k must be in 1..24, got {k}")
    idx = np.arange(2**k, dtype=np.int64)
    return ((idx[:, None] >> np.arange(k - 1, -1, -1)) & 1).astype(np.int8)


def relation_grid(rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
    """Relation codes of every (row SERP, column SERP) pair: shape (len(rows), len(cols))
    (MM23 Figs 2 and 3: the row SERP is S1)."""
    rows = np.asarray(rows)
    cols = rows if cols is None else np.asarray(cols)
    return compare(rows[:, None, :], cols[None, :, :]).relation.copy()


def hasse_edges(serps: np.ndarray) -> list[tuple[int, int]]:
    """Covering pairs (i, j) of the partial order ⪰ on distinct SERPs: serps[i] ⪰ serps[j],
    i ≠ j, with no SERP strictly between (MM23 Fig. 1; arrows implied by transitivity dropped)."""
    g = relation_grid(serps)
    strict = g == Relation.NI
    via = (strict.astype(np.int64) @ strict.astype(np.int64)) > 0
    cover = strict & ~via
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(cover))]


# ------------------------------------------------------------------- Table 2: counting all pairs


@dataclass(frozen=True)
class CategoryCounts:
    """Exact category counts of all SERP pairs at depths 1..k (row d−1 is depth d).

    ``counts[:, r]`` counts relation ``Relation(r)``; row d−1 sums to 4^d (all pairs of binary
    d-SERPs), or to 1 when :func:`count_categories` is run on probabilities.
    """

    counts: np.ndarray  # object array (k, 4) of Python ints or Fractions
    method: str

    @property
    def k(self) -> int:
        return self.counts.shape[0]

    def _check(self, depth: int) -> None:
        if not 1 <= depth <= self.k:
            raise ValueError(f"depth must be in 1..{self.k} for these counts, got {depth}")

    def row(self, depth: int) -> dict[str, object]:
        """Counts at ``depth`` keyed by the paper's labels ``=``, ``ni``, ``ns``, ``**``."""
        self._check(depth)
        r = self.counts[depth - 1]
        return {Relation(i).label: r[i] for i in range(4)}

    def fractions(self, depth: int) -> dict[str, Fraction]:
        """Exact fractions of equal / separable (ni + ns) / non-separable pairs at ``depth``."""
        self._check(depth)
        r = [Fraction(x) for x in self.counts[depth - 1]]
        tot = sum(r)
        return {"equal": r[0] / tot, "separable": (r[1] + r[2]) / tot, "nonsep": r[3] / tot}

    def to_frame(self, depths: Sequence[int] | None = None) -> pd.DataFrame:
        depths = list(depths) if depths is not None else list(range(1, self.k + 1))
        rows = []
        for d in depths:
            f = self.fractions(d)
            rows.append({"k": d, **{c: float(v) for c, v in f.items()}})
        return pd.DataFrame(rows).set_index("k")


_STEPS = np.array([1, 0, 0, -1], dtype=np.int8)  # (a_i, b_i) = (1,0), (0,0), (1,1), (0,1)


def enumerate_counts(k: int, block: int = 11, workers: int = 1) -> CategoryCounts:
    """Exhaustive count over all 4^k pairs of binary k-SERPs (MM23 Table 2, k ≤ 15).

    Every pair is visited: the pairs form a 4-ary tree of prefixes (rank i adds one of the four
    bit pairs (a_i, b_i)), and Algorithm 1's state (cumul, ever ahead, ever behind) of a pair at
    depth i is computed from its own parent prefix. No two pairs are merged, so each leaf is
    one pair; the level-d tallies are the counts of all 4^d pairs of d-SERPs. Memory is bounded by
    expanding the last ``block`` ranks per prefix of the first k − block ranks (4^block states);
    with ``workers`` > 1 the prefixes are shared out among that many processes.
    """
    if not 1 <= k <= 16:
        raise ValueError(f"exhaustive enumeration visits 4^k pairs; k must be in 1..16, got {k}")
    block = max(1, min(block, k))
    outer = k - block
    counts = np.zeros((k, 4), dtype=np.int64)
    cum = np.zeros(1, dtype=np.int8)
    flg = np.zeros(1, dtype=np.uint8)
    for d in range(outer):  # the outer prefixes, kept whole (4^outer states)
        cum, flg = _expand(cum, flg)
        counts[d] = np.bincount(flg, minlength=4)
    prefixes = list(zip(cum.tolist(), flg.tolist()))
    parts = [(prefixes[i::max(workers, 1)], k - outer) for i in range(max(workers, 1))]
    if workers > 1 and len(prefixes) > 1:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            tallies = list(ex.map(_enumerate_below, parts))
    else:
        tallies = [_enumerate_below(p) for p in parts]
    for t in tallies:
        counts[outer:] += t
    obj = np.empty((k, 4), dtype=object)
    obj[...] = [[int(x) for x in r] for r in counts]
    return CategoryCounts(obj, "exhaustive")


def _enumerate_below(args) -> np.ndarray:
    """Tallies at the next ``depth`` levels below each given prefix state (cumul, flags)."""
    prefixes, depth = args
    out = np.zeros((depth, 4), dtype=np.int64)
    for c0, f0 in prefixes:
        c = np.array([c0], dtype=np.int8)
        f = np.array([f0], dtype=np.uint8)
        for d in range(depth):
            c, f = _expand(c, f)
            out[d] += np.bincount(f, minlength=4)
    return out


def _expand(cum: np.ndarray, flg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One rank of Algorithm 1 for every child (4 per prefix) of every prefix pair."""
    c = (cum[:, None] + _STEPS[None, :]).reshape(-1)
    f = (np.repeat(flg, 4) | (c > 0).astype(np.uint8) | ((c < 0).astype(np.uint8) << 1))
    return c, f


def count_categories(k: int, weights: tuple = (1, 2, 1)) -> CategoryCounts:
    """Exact category counts at depths 1..k by dynamic programming, O(k²) (MM23 Table 2).

    The running difference ``cumul`` of a pair moves by +1, 0, −1 at each rank with weights
    ``weights = (w_plus, w_zero, w_minus)``: for all pairs of binary SERPs these are the numbers
    of bit pairs (1, 2, 1) and the counts are of the 4^k pairs; with relevance probabilities
    q1, q2 per rank they are the probabilities (q1(1−q2), q1q2 + (1−q1)(1−q2), (1−q1)q2) (pass
    Fractions for exact values). States: equal (cumul = 0, never moved); ahead-only with
    cumul = c ≥ 0; behind-only with cumul = −c ≤ 0; non-separable (absorbing).
    """
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if len(weights) != 3:
        raise ValueError(f"weights must be (w_plus, w_zero, w_minus), got {weights!r}")
    wp, w0, wm = weights
    if min(wp, w0, wm) < 0:
        raise ValueError(f"weights must be non-negative, got {weights!r}")
    k = int(k)
    zero = (wp + w0 + wm) * 0
    eq = zero + 1  # the empty prefix: one pair, equal
    nonsep = zero
    ahead = np.full(k + 2, zero, dtype=object)  # ahead[c]: ever ahead, never behind, cumul = c
    behind = np.full(k + 2, zero, dtype=object)  # behind[c]: ever behind, never ahead, cumul = −c
    symmetric = wp == wm  # then behind == ahead at every depth (swap S1 and S2)
    wsum = wp + w0 + wm
    out = np.empty((k, 4), dtype=object)
    for d in range(1, k + 1):
        top = d + 1  # |cumul| ≤ d
        bh = ahead if symmetric else behind
        nonsep = nonsep * wsum + ahead[0] * wm + bh[0] * wp
        na = ahead[:top] * w0
        na[1:top] += ahead[: top - 1] * wp
        na[: top - 1] += ahead[1:top] * wm
        na[1] += eq * wp
        if not symmetric:
            nb = behind[:top] * w0
            nb[1:top] += behind[: top - 1] * wm
            nb[: top - 1] += behind[1:top] * wp
            nb[1] += eq * wm
            behind[:top] = nb
        ahead[:top] = na
        eq = eq * w0
        n_ahead = sum(ahead[:top].tolist(), zero)
        n_behind = n_ahead if symmetric else sum(behind[:top].tolist(), zero)
        out[d - 1] = [eq, n_ahead, n_behind, nonsep]
    return CategoryCounts(out, "dp")


def closed_form_counts(k: int) -> dict[str, int]:
    """Counts of the 4^k pairs of binary k-SERPs in closed form.

    ``= : 2^k``; ``ni = ns = C(2k+1, k) − 2^k``; ``** : 4^k − 2·C(2k+1, k) + 2^k``.
    Why: a rank's step (+1, 0, 0, −1) is two half-steps of a simple ±½ walk of length 2k, so
    "cumul never < 0 to depth k" is "the simple walk never reaches −1 (in half-step units, −2)",
    which by the reflection principle has C(2k, k) + C(2k, k+1) = C(2k+1, k) paths.
    """
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    eq = 2**k
    ni = math.comb(2 * k + 1, k) - eq
    return {"=": eq, "ni": ni, "ns": ni, "**": 4**k - 2 * ni - eq}


# --------------------------------------------------------------------------- Monte Carlo


@lru_cache(maxsize=None)
def _block_tables(b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every one of the 4^b bit patterns of b ranks of a pair: net change of cumul, and its
    highest and lowest prefix value within the block. Index bits 0..b−1 are S1's ranks, bits
    b..2b−1 are S2's (a bijection, so a uniform index is a uniform pair block)."""
    m = 4**b
    idx = np.arange(m, dtype=np.int64)
    c = np.zeros(m, dtype=np.int64)
    hi = np.full(m, -(10**6), dtype=np.int64)
    lo = np.full(m, 10**6, dtype=np.int64)
    for j in range(b):
        c = c + ((idx >> j) & 1) - ((idx >> (b + j)) & 1)
        hi = np.maximum(hi, c)
        lo = np.minimum(lo, c)
    return c.astype(np.int16), hi.astype(np.int16), lo.astype(np.int16)


def _mc_task(args) -> np.ndarray:
    """Simulate n uniform pairs with one child generator; counts (len(depths), 4)."""
    seed_seq, n, depths, chunk = args
    rng = np.random.Generator(np.random.PCG64(seed_seq))
    depths = list(depths)
    kmax = depths[-1]
    dt = np.int8 if kmax < 127 else np.int16
    # blocks of ≤ 8 ranks, cut so that every requested depth ends a block
    plan, at = [], 0
    for d in depths:
        while at < d:
            b = min(8, d - at)
            plan.append((b, at + b == d))
            at += b
    tabs = {b: tuple(t.astype(dt) for t in _block_tables(b)) for b, _ in plan}
    # compact at the first block end at or after ranks 16, 48, 160, …: about half, two thirds, … have
    # settled by then (non-separable fraction ≈ 1 − 4/√(πk)), and enough blocks remain to gain
    ends = np.cumsum([b for b, _ in plan])
    marks = [16 * (2 ** (2 * i) + 2 ** i) // 2 for i in range(8)]  # 16, 48, 160, 576, …
    compact_after = {int(np.searchsorted(ends, t)) for t in marks if t <= ends[-1]}
    compact_after = {j for j in compact_after if j < len(plan) - 2}
    out = np.zeros((len(depths), 4), dtype=np.int64)
    done = 0
    while done < n:
        m = min(chunk, n - done)
        c = np.zeros(m, dtype=dt)
        hi = np.zeros(m, dtype=dt)
        lo = np.zeros(m, dtype=dt)
        settled = 0  # pairs already non-separable: no later rank can change that (MM23 §2)
        di = 0
        for j, (b, checkpoint) in enumerate(plan):
            net, thi, tlo = tabs[b]
            # the block's bits of the pairs still undecided; a uniform 2b-bit index is a
            # uniform pair of b-rank blocks
            ix = rng.integers(0, 4**b, size=len(c), dtype=np.uint16).astype(np.intp)
            tmp = c + thi.take(ix)
            np.maximum(hi, tmp, out=hi)
            np.add(c, tlo.take(ix), out=tmp)
            np.minimum(lo, tmp, out=lo)
            c += net.take(ix)
            if not (checkpoint or j in compact_after):
                continue
            code = (hi > 0).astype(np.int8) + 2 * (lo < 0).astype(np.int8)
            if checkpoint:
                out[di] += np.bincount(code, minlength=4)
                out[di, Relation.NONSEP] += settled
                di += 1
            if j in compact_after:  # drop the settled pairs (only where that pays for the copy)
                keep = np.flatnonzero(code != Relation.NONSEP)
                settled += len(c) - len(keep)
                c, hi, lo = c.take(keep), hi.take(keep), lo.take(keep)
        done += m
    return out


@dataclass(frozen=True)
class MonteCarloResult:
    """Category counts of ``n`` uniformly random SERP pairs at each depth (prefixes of the same
    pairs), with estimates and Wilson score intervals."""

    depths: tuple[int, ...]
    counts: np.ndarray  # (len(depths), 4) int64
    n: int

    def to_frame(self, z: float = 1.959963984540054) -> pd.DataFrame:
        """Per depth: estimated fractions, standard errors and ``z``-level Wilson intervals of
        equal / separable / non-separable."""
        rows = []
        for d, c in zip(self.depths, self.counts):
            groups = {"equal": c[0], "separable": c[1] + c[2], "nonsep": c[3]}
            row = {"k": d}
            for g, x in groups.items():
                p = x / self.n
                lo, hi = _wilson(int(x), self.n, z)
                row[g] = p
                row[f"{g}_se"] = math.sqrt(p * (1 - p) / self.n)
                row[f"{g}_lo"], row[f"{g}_hi"] = lo, hi
            rows.append(row)
        return pd.DataFrame(rows).set_index("k")


def _wilson(x: int, n: int, z: float) -> tuple[float, float]:
    p = x / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def monte_carlo(
    depths: Sequence[int],
    n_pairs: int,
    rng: np.random.Generator,
    *,
    workers: int = 1,
    task_size: int = 2**24,
    chunk: int = 2**18,
) -> MonteCarloResult:
    """Estimate the category fractions at each depth from ``n_pairs`` uniform random SERP pairs
    (each bit 0 or 1 with probability ½, independently — MM23 §3, Table 2 for k ≥ 20).

    All depths are read from the same pairs (depth d uses their first d ranks). The pairs are
    split into tasks of ``task_size``, each with its own generator spawned from ``rng``, so the
    result depends on ``rng`` and ``task_size`` only, not on ``workers`` (processes).
    Each pair's bits are drawn 8 ranks at a time and Algorithm 1 is advanced through a lookup
    table of the block's net change and extreme prefix values. A pair that has become
    non-separable stays so at every greater depth (MM23 §2), so its later bits are not drawn.
    """
    ds = sorted(set(int(d) for d in depths))
    if not ds or ds[0] < 1 or ds[-1] > 30000:
        raise ValueError(f"depths must be positive integers ≤ 30000, got {list(depths)!r}")
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be positive, got {n_pairs}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("pass an explicit numpy.random.Generator as rng (np.random.default_rng(seed))")
    n_tasks = -(-n_pairs // task_size)
    seeds = rng.bit_generator.seed_seq.spawn(n_tasks) if hasattr(rng.bit_generator, "seed_seq") else None
    if seeds is None:  # pragma: no cover - every numpy BitGenerator has a seed sequence
        raise TypeError("rng's bit generator cannot spawn independent streams")
    tasks = [(seeds[i], min(task_size, n_pairs - i * task_size), tuple(ds), chunk) for i in range(n_tasks)]
    if workers > 1 and n_tasks > 1:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            parts = list(ex.map(_mc_task, tasks))
    else:
        parts = [_mc_task(t) for t in tasks]
    return MonteCarloResult(tuple(ds), np.sum(parts, axis=0), int(n_pairs))


def default_workers() -> int:
    """Processes to use for Monte Carlo: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------- exact score comparisons


@dataclass(frozen=True)
class QSqrt5:
    """a + b·√5 with rational a, b: exact arithmetic for RBP at the golden-ratio persistence."""

    a: Fraction
    b: Fraction = Fraction(0)

    def __add__(self, o: "QSqrt5") -> "QSqrt5":
        return QSqrt5(self.a + o.a, self.b + o.b)

    def __sub__(self, o: "QSqrt5") -> "QSqrt5":
        return QSqrt5(self.a - o.a, self.b - o.b)

    def __mul__(self, o: "QSqrt5") -> "QSqrt5":
        return QSqrt5(self.a * o.a + 5 * self.b * o.b, self.a * o.b + self.b * o.a)

    def sign(self) -> int:
        """Exact sign of a + b√5 (compare a² with 5b² when the signs of a and b differ)."""
        sa, sb = (self.a > 0) - (self.a < 0), (self.b > 0) - (self.b < 0)
        if sa == sb or sb == 0:
            return sa
        if sa == 0:
            return sb
        lhs, rhs = self.a * self.a, 5 * self.b * self.b
        return sa if lhs > rhs else (sb if lhs < rhs else 0)

    def __float__(self) -> float:
        return float(self.a) + float(self.b) * math.sqrt(5)


PHI = QSqrt5(Fraction(-1, 2), Fraction(1, 2))  # (√5 − 1)/2 ≈ 0.618, φ² = 1 − φ


def golden_rbp_exact(serp: Sequence[int]) -> QSqrt5:
    """RBP(φ) = (1 − φ) Σ_i r_i φ^{i−1} with φ = (√5 − 1)/2, exactly in Q(√5) (MM23 Table 1)."""
    total, w = QSqrt5(Fraction(0)), QSqrt5(Fraction(1))
    for r in serp:
        total = total + QSqrt5(_to_fraction(r)) * w
        w = w * PHI
    return (QSqrt5(Fraction(1)) - PHI) * total


def exact_sign(x1, x2, k: int) -> int:
    """Sign of x1 − x2 decided exactly.

    Fractions, ints and :class:`QSqrt5` compare exactly. Floats (log-discounted measures) are
    accepted only when |x1 − x2| exceeds a bound on the rounding error of a k-term sum of
    terms ≤ max(|x1|, |x2|, 1), so that the float sign is provably the true sign; otherwise this
    raises rather than guess a tie.
    """
    if isinstance(x1, QSqrt5) or isinstance(x2, QSqrt5):
        q1 = x1 if isinstance(x1, QSqrt5) else QSqrt5(_to_fraction(x1))
        q2 = x2 if isinstance(x2, QSqrt5) else QSqrt5(_to_fraction(x2))
        return (q1 - q2).sign()
    if isinstance(x1, (Fraction, int)) and isinstance(x2, (Fraction, int)):
        d = Fraction(x1) - Fraction(x2)
        return (d > 0) - (d < 0)
    f1, f2 = float(x1), float(x2)
    bound = 4 * (k + 2) * np.finfo(float).eps * max(abs(f1), abs(f2), 1.0)
    if abs(f1 - f2) <= bound:
        raise ValueError(
            f"scores {f1!r} and {f2!r} are within rounding error ({bound:.1e}); their order "
            "cannot be decided from floats — use an exact (rational) form of the measure"
        )
    return 1 if f1 > f2 else -1


def _table1_metrics(k: int) -> dict[str, object]:
    # imported inside: measures is only needed for Table 1, not by Algorithm 1
    from irscales.measures import AP, NDCG, RBP, RR, P, Succ

    return {
        f"Prec@{k}": lambda s: P(k=k).exact(s)[()],
        f"RBP(0.8)@{k}": lambda s: RBP(p=0.8).exact(s)[()],
        # AP@k on an exhaustive universe: the recall base is unknown, so AP is normalised by k
        # (any constant gives the same order; this is the reading that reproduces Fig. 3's τ)
        f"AP@{k}": lambda s: AP().exact(s, rb=k)[()],
        # NDCG@k with trec_eval's 1/log2(i+1) discount, ideal = k relevant documents
        f"NDCG@{k}": lambda s: float(NDCG(discount="log2p1")(s, rb=k)),
        f"Succ@{k}": lambda s: Succ(k=k).exact(s)[()],
        f"RBP((sqrt5-1)/2)@{k}": golden_rbp_exact,
        f"RR@{k}": lambda s: RR().exact(s)[()],
        f"RBP(0.5)@{k}": lambda s: RBP(p=0.5).exact(s)[()],
    }


TABLE1_METRICS = tuple(_table1_metrics(3))


def table1(s1: Sequence[int] = (1, 0, 0), s2: Sequence[int] = (0, 1, 1)) -> pd.DataFrame:
    """MM23 Table 1: for each metric, is M(s1) <, = or > M(s2)? Decided exactly.

    Defaults are the single non-separable pair of k = 3, [1,0,0] vs [0,1,1].
    """
    if len(s1) != len(s2):
        raise ValueError(f"the two SERPs must have the same length, got {len(s1)} and {len(s2)}")
    k = len(s1)
    rows = []
    for name, f in _table1_metrics(k).items():
        m1, m2 = f(np.asarray(s1)), f(np.asarray(s2))
        sgn = exact_sign(m1, m2, k)
        rows.append({"metric": name, "M(s1)": float(m1), "M(s2)": float(m2),
                     "ordering": "<=>"[sgn + 1]})
    return pd.DataFrame(rows).set_index("metric")


# --------------------------------------------------------------------- Figure 3 axis orderings


def fig3_scores(serps: np.ndarray) -> dict[str, np.ndarray]:
    """The three axis metrics of MM23 Fig. 3 on binary SERPs, in exactly comparable form.

    ``RBP(0.5)``: exact Fractions. ``AP``: SP/k as exact Fractions (AP@k normalised by k;
    normalising by the number of relevant documents in the SERP does not reproduce the paper's
    τ). ``NDCG``: float nDCG@k with the 1/log2(i+1) discount and an ideal of k relevant
    documents; :func:`axis_order` checks that no two distinct values are within rounding error.
    """
    from irscales.measures import NDCG, RBP, SP

    k = serps.shape[-1]
    return {
        "RBP(0.5)": RBP(p=0.5).exact(serps),
        "AP": SP().exact(serps) / k,
        "NDCG": NDCG(discount="log2p1")(serps, rb=k),
    }


def fig3_convention_taus(k: int = 6) -> pd.DataFrame:
    """τ of Fig. 3's panes (b), (c), (d) under each reading of the paper's AP, NDCG and axis
    tie-breaking, to show which reading reproduces the published τ (MM23 §2).

    AP@k normalised by k (``"k"``) or by the number of relevant documents in the SERP
    (``"nrel"``); NDCG@k with the 1/log2(i+1) discount (``"log2p1"``) or Järvelin–Kekäläinen's
    base-2 discount (``"jk2"``), ideal = k relevant (``"k"``) or = the SERP's own relevant count
    sorted to the top (``"nrel"``); ties on an axis broken by ascending or descending lexicographic
    order. RBP(0.5) has no ties.
    """
    from irscales.measures import NDCG, SP

    serps = all_serps(k)
    nrel = serps.sum(1)
    sp = SP().exact(serps)
    aps = {
        "k": sp / k,
        "nrel": np.array([x / int(n) if n else Fraction(0) for x, n in zip(sp, nrel)], dtype=object),
    }
    ndcgs = {}
    for disc, m in (("log2p1", NDCG(discount="log2p1")), ("jk2", NDCG(base=2))):
        ndcgs[(disc, "k")] = m(serps, rb=k)
        ndcgs[(disc, "nrel")] = m(serps, rb=nrel)
    rbp = fig3_scores(serps)["RBP(0.5)"]
    rows = []
    for tb in ("lex", "lex_desc"):
        pr = axis_order(rbp, tb)
        for an, a in aps.items():
            pa = axis_order(a, tb)
            for (dn, ideal), v in ndcgs.items():
                pn = axis_order(v, tb, float_ties="snap")
                rows.append({
                    "AP normalised by": an, "NDCG discount": dn, "NDCG ideal": ideal, "ties": tb,
                    "tau_b": float(axis_tau(pr, pn)), "tau_c": float(axis_tau(pa, pr)),
                    "tau_d": float(axis_tau(pa, pn)),
                })
    return pd.DataFrame(rows)


def axis_order(scores: np.ndarray, tie_break: str = "lex", float_ties: str = "error") -> np.ndarray:
    """Axis position (0 = lowest score) of each SERP for an increasing-score axis.

    ``scores[i]`` belongs to ``all_serps(k)[i]``. Ties are broken by lexicographic (= RBP(0.5))
    order, ascending (``"lex"``) or descending (``"lex_desc"``); ``"lex"`` reproduces MM23's
    Fig. 3 τ values. Float scores must be separated by more than rounding error, else ValueError;
    with ``float_ties="snap"`` scores that close are *assumed* tied instead (used only for the
    alternative readings in :func:`fig3_convention_taus`, e.g. nDCG = 1 for every ideal SERP).
    """
    n = len(scores)
    lex = np.arange(n) if tie_break == "lex" else -np.arange(n)
    if tie_break not in ("lex", "lex_desc"):
        raise ValueError(f"tie_break must be 'lex' or 'lex_desc', got {tie_break!r}")
    vals = np.asarray(scores)
    if vals.dtype == object:
        order = sorted(range(n), key=lambda i: (vals[i], lex[i]))
    else:
        v = vals.astype(float)
        srt = np.sort(v)
        gaps = np.diff(srt)
        tol = 1e-12 * max(1.0, float(np.abs(v).max()))
        amb = (gaps > 0) & (gaps <= tol)
        if amb.any():
            if float_ties != "snap":
                raise ValueError("two float scores are within rounding error; cannot order them exactly")
            # map each run of near-equal sorted values onto the run's first value
            grp = np.concatenate([[0], np.cumsum(gaps > tol)])
            rep = srt[np.searchsorted(grp, grp, side="left")]
            v = rep[np.searchsorted(srt, v)]
        order = list(np.lexsort((lex, v)))
    pos = np.empty(n, dtype=np.int64)
    pos[np.asarray(order)] = np.arange(n)
    return pos


def axis_tau(rows_pos: np.ndarray, cols_pos: np.ndarray) -> Fraction:
    """Kendall τ of the diagonal ("equal", dark-blue) cells of a Fig. 3 pane: the concordance of
    each SERP's row position with its column position, exactly, as a Fraction (no ties, since
    axis positions are a permutation)."""
    r, c = np.asarray(rows_pos), np.asarray(cols_pos)
    n = len(r)
    dr = np.sign(r[:, None] - r[None, :])
    dc = np.sign(c[:, None] - c[None, :])
    s = int((dr * dc)[np.triu_indices(n, 1)].sum())
    return Fraction(s, n * (n - 1) // 2)


# ------------------------------------------------------------------------------------ plots

_COLORS = {  # MM23 Fig. 2: dark blue =, yellow ni, light blue ns, red **
    Relation.EQUAL: "#1f3b8c", Relation.NI: "#f2d024", Relation.NS: "#9cc9ef", Relation.NONSEP: "#d62728",
}


def _cmap():
    from matplotlib.colors import ListedColormap

    return ListedColormap([_COLORS[r] for r in Relation])


def _bits(s) -> str:
    return "".join(str(int(x)) for x in s)


def plot_grid(serps_rows: np.ndarray, serps_cols: np.ndarray | None = None, ax=None,
              annotate: bool = True, title: str | None = None):
    """MM23 Fig. 2 / Fig. 3 pane: cell (i, j) coloured by relation of row SERP i to column SERP j."""
    import matplotlib.pyplot as plt

    cols = serps_rows if serps_cols is None else serps_cols
    g = relation_grid(serps_rows, cols)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    ax.imshow(g, cmap=_cmap(), vmin=-0.5, vmax=3.5, interpolation="nearest")
    n, m = g.shape
    if annotate:
        for i in range(n):
            for j in range(m):
                ax.text(j, i, LABELS[g[i, j]], ha="center", va="center", fontsize=8,
                        color="white" if g[i, j] in (0, 3) else "black")
        ax.set_yticks(range(n), [_bits(s) for s in serps_rows], fontfamily="monospace")
        ax.set_xticks(range(m), ["\n".join(_bits(s)) for s in cols], fontfamily="monospace")
        ax.xaxis.tick_top()
    else:
        ax.set_xticks([])
        ax.set_yticks([])
    if title:
        ax.set_title(title)
    return ax


def plot_hasse(k: int = 3, ax=None, highlight: Sequence[Sequence[int]] = ((1, 0, 0), (0, 1, 1))):
    """MM23 Fig. 1: Hasse diagram of ⪰ on the 2^k binary SERPs; an arrow S1 → S2 means S1 ⪰ S2.

    Rows hold the SERPs with the same number of relevant documents (Prec@k is constant on a row,
    as MM23 §2 notes), the more top-heavy to the left.
    """
    import matplotlib.pyplot as plt

    serps = all_serps(k)
    edges = hasse_edges(serps)
    level = serps.sum(1)
    dx, w, h = 1.6, 0.55, 0.16
    pos = {}
    for lv in range(k + 1):
        members = sorted((i for i in range(len(serps)) if level[i] == lv), key=lambda i: -i)
        for x, i in enumerate(members):
            pos[i] = ((x - (len(members) - 1) / 2) * dx, lv)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 * max(math.comb(k, k // 2), 2) + 1, 1.2 * (k + 1)))
    for i, j in edges:
        (x1, y1), (x2, y2) = pos[i], pos[j]
        if y1 == y2:  # same number of relevant: a Rule-2 swap, drawn sideways
            sgn = 1 if x2 > x1 else -1
            start, end = (x1 + sgn * w, y1), (x2 - sgn * w, y2)
        else:
            start, end = (x1, y1 - h), (x2, y2 + h)
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color="0.25", lw=1.2))
    hl = {tuple(x) for x in highlight}
    for i, (x, y) in pos.items():
        face = "#d62728" if tuple(serps[i].tolist()) in hl else "white"
        ax.text(x, y, "[" + ",".join(map(str, serps[i])) + "]", ha="center", va="center",
                fontfamily="monospace", bbox=dict(boxstyle="round", fc=face, ec="0.3"))
    span = max(abs(x) for x, _ in pos.values()) + dx / 2 + 0.3
    ax.set_xlim(-span, span)
    ax.set_ylim(-0.5, k + 0.5)
    ax.axis("off")
    return ax


def plot_fig3(k: int = 6, tie_break: str = "lex"):
    """MM23 Fig. 3: four panes of all 2^k × 2^k pairs, axes ordered by (rows, cols) =
    (RBP(0.5), RBP(0.5)), (RBP(0.5), NDCG), (AP, RBP(0.5)), (AP, NDCG). Returns (figure, τs)."""
    import matplotlib.pyplot as plt

    serps = all_serps(k)
    sc = fig3_scores(serps)
    pos = {name: axis_order(v, tie_break) for name, v in sc.items()}
    panes = [("RBP(0.5)", "RBP(0.5)"), ("RBP(0.5)", "NDCG"), ("AP", "RBP(0.5)"), ("AP", "NDCG")]
    fig, axes = plt.subplots(2, 2, figsize=(9, 9))
    taus = {}
    for ax, (r, c), tag in zip(axes.ravel(), panes, "abcd"):
        rows = serps[np.argsort(pos[r])]
        cols = serps[np.argsort(pos[c])]
        tau = axis_tau(pos[r], pos[c])
        taus[(r, c)] = tau
        plot_grid(rows, cols, ax=ax, annotate=False,
                  title=f"({tag}) {r} rows, {c} cols, τ = {float(tau):.3f}")
    fig.tight_layout()
    return fig, taus


def plot_fig4(s1: Sequence | None = None, s2: Sequence | None = None, title: str | None = None):
    """MM23 Fig. 4: two SERPs rank by rank, the running difference Σ(S1 − S2) and the relation at
    every depth (colours as in Fig. 2). Defaults to the Fig. 4 pair (:data:`FIG4_S1`, :data:`FIG4_S2`)."""
    import matplotlib.pyplot as plt

    s1 = np.asarray(FIG4_S1 if s1 is None else s1)
    s2 = np.asarray(FIG4_S2 if s2 is None else s2)
    r = compare(s1, s2)
    k = len(s1)
    depth = np.arange(1, k + 1)
    rel = [Relation(int(r.at(d))) for d in depth]
    cumul = np.cumsum(s1.astype(float) - s2.astype(float))
    fig, (top, mid, bot) = plt.subplots(3, 1, figsize=(7, 4.6), sharex=True,
                                        gridspec_kw={"height_ratios": [1.2, 2, 0.8]})
    top.imshow(np.vstack([s1, s2]).astype(float), cmap="Greys", vmin=0, vmax=1.6, aspect="auto",
               extent=(0.5, k + 0.5, 1.5, -0.5))
    for i in depth:
        for row, s in enumerate((s1, s2)):
            top.text(i, row, f"{s[i - 1]:g}", ha="center", va="center", fontsize=9,
                     color="white" if s[i - 1] else "black")
    top.set_yticks([0, 1], ["S1", "S2"])
    top.set_title(title or "MM23 Fig. 4: comparing two SERPs depth by depth (Algorithm 1)", fontsize=10)
    mid.bar(depth, cumul, color=["#2c7fb8" if c > 0 else ("#d95f0e" if c < 0 else "0.6") for c in cumul])
    mid.axhline(0, color="0.3", lw=0.8)
    mid.set_ylabel("Σ (S1 − S2)")
    lim = max(1.0, float(np.abs(cumul).max())) + 0.5
    mid.set_ylim(-lim, lim)
    bot.imshow(np.array([[int(x) for x in rel]]), cmap=_cmap(), vmin=-0.5, vmax=3.5, aspect="auto",
               extent=(0.5, k + 0.5, 0.5, -0.5))
    for i, x in zip(depth, rel):
        bot.text(i, 0, x.label, ha="center", va="center", fontsize=9,
                 color="white" if x in (Relation.EQUAL, Relation.NONSEP) else "black")
    bot.set_yticks([0], ["relation"])
    bot.set_xticks(depth)
    bot.set_xlabel("depth k")
    fig.tight_layout()
    return fig


# ------------------------------------------------------------ published-vs-reproduced (Part A)

FIG4_S1 = (1, 0, 1, 1, 0, 0, 1, 0, 0, 0)
FIG4_S2 = (1, 0, 1, 0, 0, 1, 1, 0, 1, 1)
"""The Fig. 4 pair as given in the authors' example code (the figure in the text is an image)."""

GRADED_EXAMPLE = {
    "S1": (1.0, 0.8, 0.0, 0.2, 1.0), "S2": (0.8, 0.8, 0.0, 0.2, 0.8), "S3": (1.0, 0.2, 0.0, 0.8, 1.0),
}
"""The real-valued gain SERPs of MM23 §4 (ratio scale {0, 0.2, 0.8, 1})."""

TABLE2_DEPTHS = (5, 10, 15, 20, 50, 100)
JONES_K = 10
"""Depth of the exhaustive lists of Jones et al. (2015) that MM23 §6 counts (all zeros excluded)."""


def diagonal_blocks(grid: np.ndarray, block: np.ndarray) -> int:
    """How many of the aligned diagonal blocks of ``grid`` equal ``block`` (MM23 §2, Fig. 3a)."""
    b, n = block.shape[0], grid.shape[0]
    return sum(
        bool(np.array_equal(grid[i : i + b, i : i + b], block)) for i in range(0, n - b + 1, b)
    )


def _fmt_values(vals) -> str:
    return ", ".join(str(v) for v in sorted(set(vals)))


def reproduce_part_a(table2: CategoryCounts | None = None) -> dict[str, object]:
    """Every Part-A item of ``data/published/mm23.csv`` recomputed (keys = its items).

    Table 2 values are the exact fractions (in %) from :func:`count_categories` (or from the
    ``table2`` counts given, which must reach depth 100).
    """
    from irscales.measures import RR, P

    out: dict[str, object] = {}
    t1 = table1()
    for m, row in t1.iterrows():
        out[f"table1/{m}"] = row["ordering"]
    s3 = all_serps(3)
    g3 = relation_grid(s3)
    out["fig1/k3/serps"] = len(s3)
    out["fig2/k3/cells"] = g3.size
    out["fig2/k3/equal_cells"] = int((g3 == Relation.EQUAL).sum())
    out["fig2/k3/nonsep_cells"] = int((g3 == Relation.NONSEP).sum())
    out["fig2/k3/nonsep_pairs"] = int((g3 == Relation.NONSEP).sum()) // 2
    prec = P(k=3).exact(s3).tolist()
    rr = RR().exact(s3).tolist()
    i101, i011 = 0b101, 0b011
    out["s2/prec3/n_values"] = len(set(prec))
    out["s2/prec3/values"] = _fmt_values(prec)
    out["s2/prec3/equal_101_011"] = "yes" if prec[i101] == prec[i011] else "no"
    out["s2/rr3/n_values"] = len(set(rr))
    out["s2/rr3/values"] = _fmt_values(rr)
    out["s2/rr3/equal_101_011"] = "yes" if rr[i101] == rr[i011] else "no"
    from irscales.measures import RBP

    out["s2/rbp05_k3/n_values"] = len(set(RBP(p=0.5).exact(s3).tolist()))
    out["s2/golden_ratio"] = float(PHI)
    lex_ok = all(
        list(axis_order(RBP(p=0.5).exact(all_serps(k)))) == list(range(2**k)) for k in (3, 6)
    )
    out["s2/lex_is_rbp05_order"] = "yes" if lex_ok else "no"
    s6 = all_serps(6)
    g6 = relation_grid(s6)
    out["fig3/k6/cells"] = g6.size
    for kk, name in ((3, "k3"), (4, "k4"), (5, "k5")):
        out[f"fig3/a/{name}_blocks_on_diagonal"] = diagonal_blocks(g6, relation_grid(all_serps(kk)))
    sc = fig3_scores(s6)
    pos = {n: axis_order(v) for n, v in sc.items()}
    for tag, (r, c) in zip("abcd", [("RBP(0.5)", "RBP(0.5)"), ("RBP(0.5)", "NDCG"),
                                     ("AP", "RBP(0.5)"), ("AP", "NDCG")]):
        out[f"fig3/{tag}/tau"] = float(axis_tau(pos[r], pos[c]))
    f4 = compare(FIG4_S1, FIG4_S2)
    out["fig4/separable_from"] = int(f4.separable_from)
    out["fig4/equal_until"] = int(f4.separable_from) - 1
    out["fig4/nonseparable_from"] = int(f4.nonseparable_from)
    out["fig4/relation_k5"] = Relation(int(f4.at(5))).words
    out["fig4/relation_k10"] = Relation(int(f4.at(10))).words
    ge = GRADED_EXAMPLE
    for a, b in (("S1", "S2"), ("S1", "S3"), ("S2", "S3")):
        out[f"s4/graded/{a}_vs_{b}"] = Relation(int(compare(ge[a], ge[b]).relation)).words
    out["s6/jones_lists_k10"] = int((all_serps(JONES_K).sum(1) > 0).sum())
    counts = table2 if table2 is not None else count_categories(max(TABLE2_DEPTHS))
    for k in TABLE2_DEPTHS:
        for col, v in counts.fractions(k).items():
            out[f"table2/k{k}/{col}"] = 100 * float(v)
    return out


def table2_sampling_gap(counts: CategoryCounts, published: pd.DataFrame,
                        samples: Sequence[int] = (10**9, 10**6)) -> pd.DataFrame:
    """Printed Table 2 against the exact fractions, in standard errors of Monte Carlo samples.

    One row per (k, column) of Table 2 (``published``: ``data/published/mm23.csv``): exact %, printed
    %, printed − exact (percentage points) and, for each sample size n, that gap in units of the
    standard error √(p(1−p)/n) of an n-pair estimate at the exact p (MM23 used n = 10^9 for k ≥ 20),
    and how many of those standard errors the printed rounding (half a unit in the last printed
    place) can account for.
    """
    from irscales.papers.published import parse_number

    pub = published.set_index("item")
    rows = []
    for k in TABLE2_DEPTHS:
        if k > counts.k:
            continue
        exact = counts.fractions(k)
        for col in ("equal", "separable", "nonsep"):
            item = f"table2/k{k}/{col}"
            if item not in pub.index:
                continue
            printed, decimals, _ = parse_number(pub.loc[item, "value"])
            p = float(exact[col])
            row = {"item": item, "k": k, "column": col, "exact %": 100 * p, "printed %": printed,
                   "printed decimals": decimals, "printed − exact (points)": printed - 100 * p}
            for n in samples:
                se = 100 * math.sqrt(p * (1 - p) / n)
                row[f"SE of {n:.0e} pairs (points)"] = se
                row[f"gap in SE of {n:.0e}"] = (printed - 100 * p) / se if se else float("nan")
                row[f"rounding in SE of {n:.0e}"] = 0.5 * 10.0 ** -decimals / se if se else float("nan")
            rows.append(row)
    return pd.DataFrame(rows).set_index("item")


def table2_notes(gap: pd.DataFrame, counts: CategoryCounts, samples: Sequence[int] = (10**9, 10**6)) -> dict[str, str]:
    """Notes for the Table 2 items that differ from the exact values, saying by how much and why
    (from :func:`table2_sampling_gap`): sampling rows in standard errors of the paper's 10^9-pair
    sample and of a 10^6-pair one; exhaustive rows with the exact count they should round to."""
    big, small = samples
    notes = {}
    for item, r in gap.iterrows():
        exact, printed, decimals = r["exact %"], r["printed %"], int(r["printed decimals"])
        if abs(exact - printed) <= 0.5 * 10.0 ** -decimals * (1 + 1e-9):  # agrees at the printed precision
            continue
        k = int(r["k"])
        if k > 15:
            z_big, z_small = r[f"gap in SE of {big:.0e}"], r[f"gap in SE of {small:.0e}"]
            notes[item] = (
                f"paper's estimate from {big:.0e} random pairs; the exact value is {exact:.4f}% "
                f"(exact counting, checked against enumeration): the printed value is {abs(z_big):.0f} standard "
                f"errors of a {big:.0e}-pair sample {'below' if z_big < 0 else 'above'} it (printed rounding "
                f"accounts for at most {r[f'rounding in SE of {big:.0e}']:.1f}), but only {abs(z_small):.1f} SE of a "
                f"{small:.0e}-pair sample").replace("1e+09", "10^9").replace("1e+06", "10^6")
        else:
            col = str(r["column"])
            row = counts.row(k)
            n = {"equal": row["="], "separable": row["ni"] + row["ns"], "nonsep": row["**"]}[col]
            notes[item] = (f"exhaustive: {n:,} of 4^{k} pairs = {exact:.4f}%, which rounds to "
                           f"{exact:.{decimals}f}%; the printed row sums to "
                           f"{gap.loc[[f'table2/k{k}/{c}' for c in ('equal', 'separable', 'nonsep')], 'printed %'].sum():.2f}%")
    return notes


def save_figure(fig, stem: str, paper: str = "mm23") -> list[str]:
    """Write ``fig`` as PNG and PDF to ``figures/<paper>/`` (no timestamps in the PDF, so files
    are reproducible); returns the file names relative to the figures folder."""
    from irscales.paths import figures_dir
    from irscales.figures import fit_tick_labels

    d = figures_dir(paper)
    fit_tick_labels(fig)
    names = []
    for ext in ("png", "pdf"):
        path = d / f"{stem}.{ext}"
        meta = {"CreationDate": None} if ext == "pdf" else {"Software": None}
        fig.savefig(path, dpi=150, bbox_inches="tight", metadata=meta)
        names.append(f"{paper}/{path.name}")
    return names


def save_table2(exact_percent: pd.DataFrame, mc: pd.DataFrame | None = None, n_pairs: int | None = None,
                seed: int | None = None, paper: str = "mm23") -> list[str]:
    """Write Table 2 to ``figures/<paper>/``: the exact fractions (``table2_exact.csv``) and, if
    given, the Monte Carlo estimates from simulated pairs
    (``table2_montecarlo_simulated_<n>pairs.csv``); returns the names written."""
    from irscales.paths import figures_dir

    d = figures_dir(paper)
    exact_percent.to_csv(d / "table2_exact.csv", float_format="%.6f")
    names = [f"{paper}/table2_exact.csv"]
    if mc is not None:
        name = f"table2_montecarlo_simulated_{n_pairs}pairs_seed{seed}.csv"
        mc.to_csv(d / name, float_format="%.8f")
        names.append(f"{paper}/{name}")
    return names
