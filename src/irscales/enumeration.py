"""Enumeration of all runs REL^N and the scale of a measure (FFF21 §5).

The *scale* of a measure M for run length N is the sorted set of distinct values M takes over all
runs r ∈ REL^N, with their multiplicities. From it FFF21 eq. (2) defines the ranked
("interval-scaled") measure

    φ(m) = |{x ∈ M(REL^N) : x ≤ m}|,          M_R = φ(M)           (FFF21 §5, tie strategy ``unq``)

and §7.1.3 the rank transforms over all runs with ties at their ``min``, ``max`` or ``mid`` rank.

How the engine works
--------------------
Runs are numbered by their *run id* Σ_i rel_i (c+1)^{N−i} (rank 1 is the most significant digit, so
ids follow the strong top-heaviness order of FFP19 eq. 4). A run splits into its top half
(ranks 1..h, id ``a``) and bottom half (ranks h+1..N, id ``b``); for every supported measure the value
is ``A[a] + B_g[b]`` for a group ``g`` of top halves (one group for additive measures such as P, RBP,
DCG; the popcount of the top half for SP, since SP = SP_top + SP_bottom + k·Σ_{bottom, rel} 1/i; two
groups for RR). Tables of size (c+1)^h are tiny; half runs with the same exact half value are merged
into one entry with a multiplicity (ranks 1..9 of DCG_b10 all weigh 1, so its top-half table shrinks
from 2^15 to 352 entries), and the entry pairs whose values lie in a key range [t0, t1) are found
per bottom entry by binary search in the sorted top entries. The key axis is cut into chunks that
fit a memory budget; each chunk (a pure function of the parameters and its range) is sorted and
reduced to distinct values + counts and stored as ``.npy`` files (read back with ``mmap_mode='r'``)
under :func:`irscales.paths.cache_dir`, listed in a manifest with SHA-256 checksums.

Exact ties
----------
* *Integer mode* (P, R, RR, SP/AP, RBP p = a/b while Σ a^{i−1} b^{N−i} fits in 62 bits, RBTO): the key
  is an exact integer: P, R: number of relevant documents; RR: N + 1 − rank of the first relevant one;
  SP·lcm(1..N); RBP·b^{N−1}/(1−p) = Σ rel_i a^{i−1} b^{N−i}. Ties are integer equalities.
* *Float mode* (DCG, nDCG, and RBP when its integer key exceeds 62 bits, e.g. p = 0.8 at N ≥ 28):
  values are summed in float64 with an error bound δ (see :attr:`_Kernel.delta`); runs whose floats
  are within δ form near-tie clusters. Each run also carries an exact integer *identity* with
  "same identity ⇒ same value":

  - RBP with rational p on binary runs: the run id. Binary RBP never ties: a tie would make p = a/b
    a root of a polynomial with coefficients in {−1, 0, 1} and constant term ±1, impossible for a
    rational in (0, 1) by the rational root theorem (b would divide the leading coefficient ±1).
  - DCG with an integer log base B (JK discount w_i = 1/max(1, log_B i), or w_i = 1/log_2(i+1)):
    write every rank's argument as a perfect power i = m^k with m not a perfect power; then
    w_i = u_m / k with u_m = ln B / ln m, and the weights below the base equal 1 = u_{m_B}/k_B.
    DCG = Σ_m (Σ_{i: root(i)=m} g_i / k_i) u_m, so the vector of rational coefficients over the
    u_m is the identity (packed into an int64 in mixed radix). Equal vectors ⇒ equal values.

  A cluster with a single identity is one value. A cluster with several identities is adjudicated
  exactly: Fractions for RBP; for DCG, Decimal evaluation of Σ c_m u_m at 60 then 120 significant
  digits, accepted only when every gap between distinct identities exceeds the evaluation error.
  Whether distinct coefficient vectors can ever give equal DCG (a Q-linear relation among
  1/ln m) is not known to be impossible (it would follow from Schanuel's conjecture), so it is
  *checked*, never assumed: an unresolvable cluster raises :class:`TieUndecidable`.

What the engine finds about ties (binary runs; ``data/derived/distinct_counts.csv``)
-----------------------------------------------------------------------------------
* P, R: N + 1 values, C(N, k) runs each. RR: N + 1 values (1/k for 2^{N−k} runs, 0 once).
* RBP with any rational p: no ties, 2^N values (proof above).
* DCG_b02 (JK discount): the only ties swap ranks 1 and 2 (w_1 = w_2 = 1), so 3·2^{N−2} values,
  multiplicity ≤ 2, for every N checked (up to 30) — FFF21 §5.1's 24, 768, 24,576 for N = 5, 10, 15.
  The log2(i+1) discount gives no ties at all (2^N values), so FFF21 used the JK discount.
* DCG_b10: ranks 1..10 weigh 1, so N + 1 values (the P scale) for N ≤ 10 and 11·2^{N−10} beyond.
* AP (SP): many ties: 810, 644,203, 18,269,373 and 426,591,837 values for N = 10, 20, 25, 30.
* FFF21 §5's closed forms φ(m) = 2^N m (RBP, p = 1/2) and φ(m) = N + 1 − 1/m (RR) count from 0;
  eq. (2) gives one more (φ of the empty run's value 0 is 1).
* Rounding values to 8 decimals (FFF21 fn. 9 rounds averages so) merges distinct values from N ≈ 14
  on (RBP_p08: 16,382 instead of 16,384 at N = 14); ``np.unique`` on raw floats splits equal DCG
  values (3,307 instead of 3,072 at N = 12). At N = 30 distinct AP values can be 1/lcm(1..30) ≈ 4e-13
  apart and ~10^5 RBP_p08 / DCG_b02 values per 10^9 runs lie within the float error bound δ of a
  neighbour; they are separated exactly (Fractions, Decimal).

Recall-base dependent measures (FFF21 §5.2.2)
---------------------------------------------
R = count/RB, AP = SP/RB and nDCG = DCG/IDCG(min(RB, N)) divide a recall-base-free numerator by a
positive constant of the topic, so on one topic their order and their ties are those of the
numerator: φ_R = φ_P, φ_AP = φ_SP, φ_nDCG = φ_DCG for every RB > 0 (tested in
``tests/test_enumeration.py::test_recall_base_independence``). The engine therefore enumerates the
numerator once and only rescales ``values``. All (c+1)^N runs are enumerated whatever RB, including
runs with more relevant documents than RB (R, AP, nDCG > 1 there): this keeps one scale per run
length, as FFF21 does (its Example 13 maps the same four runs for RB = 2 and RB = 3), and FFF21 never
restricts REL^N by the recall base. With RB = 0 these measures are 0 for every run (a one-value
scale).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from irscales import measures as M
from irscales.exact import to_fraction
from irscales.paths import cache_dir

if TYPE_CHECKING:
    import pandas as pd

    from irscales.counting import CountedScale

__all__ = [
    "Scale", "scale", "TieUndecidable", "CacheError", "run_ids", "runs_from_ids", "brute_force_scale",
    "distinct_counts_table", "KERNEL_VERSION", "supported", "rank_values", "prune_cache",
    "max_enumerable_depth", "BuildCost", "build_cost", "dcg_root_coefficients",
]

KERNEL_VERSION = "3"  # bump when a kernel or the chunk format changes: old caches read as stale
_BYTES_PER_RUN = 96  # peak bytes per enumerated (top, bottom) pair in a chunk task (keys, sort buffers)


class TieUndecidable(ArithmeticError):
    """Two runs with different exact identities could not be separated numerically."""


class CacheError(RuntimeError):
    """A cache directory is unusable (not a scale cache, or written by other parameters)."""


# ----------------------------------------------------------------------------------- run ids


def run_ids(rel, c: int = 1) -> np.ndarray:
    """Run id Σ_i rel_i (c+1)^{N−i} of each run (rank 1 most significant); rel shape (..., N).

    Binary measures read ``rel > 0`` when c = 1.
    """
    a = np.asarray(rel)
    if a.ndim == 0:
        raise ValueError("run_ids needs runs of shape (..., N), got a scalar")
    a = (a > 0).astype(np.int64) if c == 1 else a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() > c):
        raise ValueError(f"grades must lie in 0..{c}, found {a.min()}..{a.max()}")
    n = a.shape[-1]
    if (c + 1) ** n > 2**62:
        raise ValueError(f"(c+1)^N = {c + 1}^{n} runs do not fit 62-bit run ids")
    w = np.array([(c + 1) ** (n - 1 - i) for i in range(n)], dtype=np.int64)
    return a @ w


def runs_from_ids(ids, N: int, c: int = 1) -> np.ndarray:
    """Inverse of :func:`run_ids`: relevance arrays (..., N) of dtype int8."""
    ids = np.asarray(ids, dtype=np.int64)
    base = c + 1
    pw = np.array([base ** (N - 1 - i) for i in range(N)], dtype=np.int64)
    return ((ids[..., None] // pw) % base).astype(np.int8)


# ------------------------------------------------------------------------------ exact helpers


def _perfect_root(n: int) -> tuple[int, int]:
    """(m, k) with m**k == n and k maximal (m not a perfect power); n ≥ 2."""
    for k in range(int(math.log2(n)), 1, -1):
        m = round(n ** (1.0 / k))
        for cand in (m - 1, m, m + 1):
            if cand >= 2 and cand**k == n:
                return _perfect_root(cand)[0], k * _perfect_root(cand)[1]
    return n, 1


def _dcg_roots(m: M.DCG, N: int):
    """Rank i's discount as u_r/k (see the module docstring): ([(r, k)] per rank, sorted roots,
    {r: lcm of its k}, log base)."""
    B = m.base
    if float(B) != int(B) or int(B) < 2:
        raise NotImplementedError(f"exact DCG ties need an integer log base ≥ 2, got base={B!r}")
    B = int(B)
    if m.discount == "jk":
        unit = _perfect_root(B)
        cls = [unit if i < B else _perfect_root(i) for i in range(1, N + 1)]
        logbase = B
    else:  # log2p1: w_i = 1/log2(i + 1) = u_{root(i+1)}/k with u_m = ln 2 / ln m
        cls = [_perfect_root(i + 1) for i in range(1, N + 1)]
        logbase = 2
    roots = sorted({r for r, _ in cls})
    lcms = {r: math.lcm(*[k for rr, k in cls if rr == r]) for r in roots}
    return cls, roots, lcms, logbase


def dcg_root_coefficients(m: M.DCG, N: int) -> tuple[tuple[int, ...], tuple[int, ...], np.ndarray, int]:
    """DCG's exact form: w_i = Σ_r W[i, r] / lcm[r] · u_r with u_r = ln B / ln roots[r] (integer
    log base B; the engine's identity). Returns (roots, lcm, W (N, R) int64, B); a binary run's
    DCG is then the integer vector rel @ W over the u_r."""
    cls, roots, lcms, logbase = _dcg_roots(m, N)
    w = np.zeros((N, len(roots)), np.int64)
    for i, (r, k) in enumerate(cls):
        w[i, roots.index(r)] = lcms[r] // k
    return tuple(roots), tuple(lcms[r] for r in roots), w, logbase


def _rational_p(p: float) -> Fraction:
    return to_fraction(p)


@dataclass
class _Group:
    """Runs whose value is a_key[i] + b_key[j]: the distinct top halves (sorted by key) and the
    distinct bottom halves of one group, with how many half runs share each entry."""

    a_ids: np.ndarray  # all top-half run ids in this group
    a_pos: np.ndarray  # for each of a_ids, its entry in a_key
    a_key: np.ndarray  # int64 or float64, sorted, distinct entries
    a_mult: np.ndarray  # half runs per entry
    b_pos: np.ndarray  # for every bottom-half id, its entry in b_key
    b_key: np.ndarray
    b_mult: np.ndarray
    a_ident: np.ndarray | None = None  # float mode: exact identity parts of the entries
    b_ident: np.ndarray | None = None

    @property
    def pairs(self) -> int:
        return len(self.a_key) * len(self.b_key)


def _dedupe(key: np.ndarray, ident: np.ndarray | None):
    """Distinct half runs: (entry of each input, entry keys sorted, multiplicities, identities).

    Int mode dedupes on the exact key; float mode on the exact identity (equal identity ⇒ equal
    exact value), keeping the smallest float of each identity so the result is deterministic.
    """
    by = key if ident is None else ident
    u, inv, mult = np.unique(by, return_inverse=True, return_counts=True)
    if ident is None:
        return inv, u, mult, None
    fk = np.full(len(u), np.inf)
    np.minimum.at(fk, inv, key)
    order = np.argsort(fk, kind="stable")
    rank = np.empty(len(u), np.int64)
    rank[order] = np.arange(len(u))
    return rank[inv], fk[order], mult[order], u[order]


def _gains(digits: np.ndarray, graded: bool) -> np.ndarray:
    return digits.astype(np.int64) if graded else (digits > 0).astype(np.int64)


def supported(measure: M.Measure) -> bool:
    """Whether the chunked engine has a kernel for this measure."""
    return isinstance(measure, (M.P, M.R, M.SP, M.AP, M.RR, M.RBP, M.GRBP, M.DCG, M.RBTO, M.GP))


class _Kernel:
    """Half tables of one (measure, N, c); built once per process (see :func:`_kernel`).

    ``mode`` is ``"int"`` (exact int64 keys) or ``"float"`` (float64 keys + int64 identities).
    """

    def __init__(self, measure: M.Measure, N: int, c: int, int_bits: int = 62):
        if N < 1:
            raise ValueError(f"run length N must be ≥ 1, got {N}")
        if c < 1:
            raise ValueError(f"the number of relevance grades above 0 must be c ≥ 1, got {c}")
        if not supported(measure):
            raise NotImplementedError(
                f"no enumeration kernel for {measure!r}; supported: P, R, SP, AP, RR, RBP, gRBP, DCG, nDCG,"
                " RBTO, gP (use brute_force_scale for small N)")
        if (c + 1) ** N > 2**62:
            raise ValueError(f"{c + 1}^{N} runs exceed the 62-bit run ids of the engine")
        self.measure, self.N, self.c = measure, N, c
        self.base = c + 1
        self.h = (N + 1) // 2
        self.nb = self.base ** (N - self.h)
        na = self.base**self.h
        a_dig = runs_from_ids(np.arange(na), self.h, c)
        b_dig = runs_from_ids(np.arange(self.nb), N - self.h, c)
        self.denominator: Fraction = Fraction(1)  # int mode: value = key / denominator
        m = measure
        # grades enter as gains only for graded measures; binary ones read rel > 0 (lenient, FFF21 §6)
        graded = c > 1 and (m.gains == "graded" if isinstance(m, M.DCG) else not m.binary)
        if isinstance(m, (M.SP, M.AP)):
            self._init_sp(a_dig, b_dig)
        elif isinstance(m, M.RR):
            self._init_rr(a_dig, b_dig)
        elif isinstance(m, (M.P, M.R, M.GP)):
            w = [1] * N
            if isinstance(m, M.GP):
                graded = c > 1
                self.denominator = Fraction(N) * to_fraction(m.max_gain)
            elif isinstance(m, M.P):
                if m.k is not None:
                    w = [1 if i < m.k else 0 for i in range(N)]
                self.denominator = Fraction(m.k if m.k is not None else N)
            self._init_additive_int(a_dig, b_dig, w, graded)
        elif isinstance(m, M.RBTO):
            self.denominator = Fraction(1)
            if m.c != c:
                raise ValueError(f"{m!r} enumerated with c={c}: use the same number of grades")
            self._init_additive_int(a_dig, b_dig, [self.base ** (N - 1 - i) for i in range(N)], True)
        elif isinstance(m, (M.RBP, M.GRBP)):
            p = _rational_p(m.p)
            a, b = p.numerator, p.denominator
            w = [a**i * b ** (N - 1 - i) for i in range(N)]
            gmax = c if graded else 1
            self.denominator = Fraction(b ** (N - 1)) / (1 - p)
            if isinstance(m, M.GRBP):
                self.denominator *= to_fraction(m.max_gain)
            if sum(w) * gmax < 2**int_bits:  # int_bits < 62 only in tests, to exercise the float path
                self._init_additive_int(a_dig, b_dig, w, graded)
            elif graded:
                raise NotImplementedError(
                    f"{m!r} with {c + 1} grades at N={N}: exact keys exceed 62 bits (graded RBP can tie,"
                    " so the binary no-tie argument does not apply); use N ≤ 25")
            else:
                wf = [float(Fraction(x) / self.denominator) for x in w]
                self._py_weights = w
                self._init_float(a_dig, b_dig, wf, ident=[self.base ** (N - 1 - i) for i in range(N)],
                                 graded=False, vmax=sum(wf))
                self.exact_of_ident = self._rbp_exact
        elif isinstance(m, M.DCG):  # DCG and nDCG (the numerator; see the module docstring)
            self._init_dcg(a_dig, b_dig, graded)
        self.is_int = self.mode == "int"

    # -- kernels ---------------------------------------------------------------------------------

    def _init_additive_int(self, a_dig, b_dig, w, graded):
        self.mode = "int"
        wa = np.array(w[: self.h], dtype=np.int64)
        wb = np.array(w[self.h :], dtype=np.int64)
        ak = _gains(a_dig, graded) @ wa
        bk = _gains(b_dig, graded) @ wb
        self.groups = [self._group(np.arange(len(ak)), ak, bk)]

    def _group(self, a_ids, ak, bk, ai=None, bi=None) -> _Group:
        a_pos, a_key, a_mult, a_ident = _dedupe(ak, ai)
        b_pos, b_key, b_mult, b_ident = _dedupe(bk, bi)
        return _Group(np.asarray(a_ids, np.int64), a_pos, a_key, a_mult, b_pos, b_key, b_mult, a_ident, b_ident)

    def _init_sp(self, a_dig, b_dig):
        self.mode = "int"
        N, h = self.N, self.h
        L = math.lcm(*range(1, N + 1))
        if N * L >= 2**62:
            raise ValueError(f"SP·lcm(1..N) overflows 62 bits at N={N}")
        self.denominator = Fraction(L)
        inv = np.array([L // i for i in range(1, N + 1)], dtype=np.int64)
        ab = (a_dig > 0).astype(np.int64)
        bb = (b_dig > 0).astype(np.int64)
        sp_a = (ab * np.cumsum(ab, axis=1) * inv[:h]).sum(1)
        k_a = ab.sum(1)
        sp_b = (bb * np.cumsum(bb, axis=1) * inv[h:]).sum(1)
        s_b = (bb * inv[h:]).sum(1)  # Σ_{bottom, relevant} L/i: each top-half hit adds this
        ids = np.arange(len(sp_a))
        self.groups = [self._group(ids[k_a == k], sp_a[k_a == k], sp_b + k * s_b) for k in range(h + 1)]

    def _init_rr(self, a_dig, b_dig):
        self.mode = "int"
        N, h = self.N, self.h
        self.denominator = Fraction(1)  # key = N + 1 − first; value = 1/(N + 1 − key), see _display

        def key(d, offset):
            if d.shape[1] == 0:  # N = 1: the bottom half is empty
                return np.zeros(len(d), np.int64)
            b = d > 0
            first = np.argmax(b, axis=1) + 1 + offset
            return np.where(b.any(1), N + 1 - first, 0).astype(np.int64)

        ka, kb = key(a_dig, 0), key(b_dig, h)
        ids = np.arange(len(ka))
        zero = ka == 0
        self.groups = [self._group(ids[zero], ka[zero], kb),
                       self._group(ids[~zero], ka[~zero], np.zeros_like(kb))]

    def _init_float(self, a_dig, b_dig, wf, ident, graded, vmax):
        self.mode = "float"
        wf = np.asarray(wf, dtype=float)
        ident = np.asarray(ident, dtype=np.int64)
        ga, gb = _gains(a_dig, graded), _gains(b_dig, graded)
        ak = ga.astype(float) @ wf[: self.h]
        bk = gb.astype(float) @ wf[self.h :]
        ai = ga @ ident[: self.h]
        bi = gb @ ident[self.h :]
        # Error bound: weights carry a relative error ≤ 3ε (a log, a division, a product), a sum of
        # N non-negative terms adds ≤ (N − 1)ε·Σ (any order, FMA or not), the a + b join one more ε:
        # |fl(value) − value| ≤ (N + 3)ε·vmax. δ is 16 times (N + 4)ε·vmax, so floats farther apart
        # than δ are ordered correctly, and each float is within δ/16 of its exact value.
        self.delta = 16.0 * (self.N + 4) * np.finfo(float).eps * max(vmax, 1.0)
        self.groups = [self._group(np.arange(len(ak)), ak, bk, ai, bi)]

    def _init_dcg(self, a_dig, b_dig, graded):
        m, N = self.measure, self.N
        gmax = self.c if graded else 1
        cls, roots, lcms, coef, radix, stride, s, logbase = _dcg_layout(m, N, gmax)
        if s >= 2**62:
            raise NotImplementedError(f"{m!r} at N={N}, c={self.c}: the exact identity needs more than 62 bits")
        ident = [coef[i] * stride[cls[i][0]] for i in range(N)]
        wf = M.dcg_discount(N, m.base, m.discount)
        self._dcg = (roots, lcms, radix, stride, logbase)
        self._init_float(a_dig, b_dig, wf, ident, graded, vmax=float(gmax * wf.sum()))
        self.exact_of_ident = self._dcg_exact

    # -- exact adjudication (float mode) ------------------------------------------------------------

    def _rbp_exact(self, idents: Sequence[int], digits: int = 0) -> list:
        out = []
        for rid in idents:
            bits = runs_from_ids(np.array([rid]), self.N, self.c)[0]
            out.append(Fraction(sum(w for w, x in zip(self._py_weights, bits) if x), 1) / self.denominator)
        return out

    def _dcg_exact(self, idents: Sequence[int], digits: int = 60) -> list:
        roots, lcms, radix, stride, logbase = self._dcg
        with localcontext() as ctx:
            ctx.prec = digits + 10
            lnb = Decimal(logbase).ln()
            u = {r: lnb / Decimal(r).ln() for r in roots}
            out = []
            for ident in idents:
                v = Decimal(0)
                for r in roots:
                    cm = (int(ident) // stride[r]) % radix[r]
                    if cm:
                        v += Decimal(cm) / Decimal(lcms[r]) * u[r]
                out.append(+v)
        return out

    def adjudicate(self, idents: list[int]) -> list[int]:
        """Sort distinct identities by exact value; returns them in increasing order."""
        uniq = sorted(set(int(x) for x in idents))
        if len(uniq) == 1:
            return uniq
        for digits in (60, 120):
            vals = self.exact_of_ident(uniq, digits)
            order = sorted(range(len(uniq)), key=lambda i: vals[i])
            if isinstance(vals[0], Fraction):
                if any(vals[order[i]] == vals[order[i + 1]] for i in range(len(order) - 1)):
                    raise AssertionError("binary RBP produced a tie between distinct runs")  # proven impossible
                return [uniq[i] for i in order]
            tol = Decimal(10) ** (-(digits - 5))
            if all(vals[order[i + 1]] - vals[order[i]] > tol for i in range(len(order) - 1)):
                return [uniq[i] for i in order]
        raise TieUndecidable(
            f"{self.measure!r}, N={self.N}: identities {uniq} have values within 1e-115 of each other; "
            "distinct exact coefficient vectors could not be separated")

    # -- enumeration of a key range ------------------------------------------------------------------

    def key_bounds(self) -> tuple:
        lo = min(g.a_key[0] + g.b_key.min() for g in self.groups if len(g.a_key))
        hi = max(g.a_key[-1] + g.b_key.max() for g in self.groups if len(g.a_key))
        return lo, hi

    def gather(self, t0, t1):
        """Keys, identities (float mode) and multiplicities of all (top, bottom) entry pairs with
        key in [t0, t1) (None = unbounded); a pair stands for a_mult·b_mult runs."""
        keys, idents, mults = [], [], []
        slack = 0 if self.is_int else self.delta
        for g in self.groups:
            if not len(g.a_key):
                continue
            lo = (np.zeros(len(g.b_key), np.int64) if t0 is None
                  else np.searchsorted(g.a_key, t0 - g.b_key - slack, "left"))
            hi = (np.full(len(g.b_key), len(g.a_key), np.int64) if t1 is None
                  else np.searchsorted(g.a_key, t1 - g.b_key + slack, "left"))
            n = np.maximum(hi - lo, 0)
            tot = int(n.sum())
            if tot == 0:
                continue
            bidx = np.repeat(np.arange(len(g.b_key)), n)
            apos = np.arange(tot) + np.repeat(lo - np.concatenate([[0], np.cumsum(n)[:-1]]), n)
            k = g.a_key[apos] + g.b_key[bidx]
            sel = None
            if not self.is_int:  # membership decided by the float sum itself, consistently
                sel = np.ones(tot, bool)
                if t0 is not None:
                    sel &= k >= t0
                if t1 is not None:
                    sel &= k < t1
                apos, bidx, k = apos[sel], bidx[sel], k[sel]
                idents.append(g.a_ident[apos] + g.b_ident[bidx])
            keys.append(k)
            mults.append(g.a_mult[apos] * g.b_mult[bidx])
        dt = np.int64 if self.is_int else np.float64
        cat = (lambda xs, d: np.concatenate(xs) if xs else np.empty(0, d))
        return cat(keys, dt), (cat(idents, np.int64) if not self.is_int else None), cat(mults, np.int64)

    def keys_of_ids(self, ids: np.ndarray):
        """Keys (float mode: also identities) of the given run ids, computed as in :meth:`gather`."""
        ids = np.asarray(ids, dtype=np.int64)
        if np.any((ids < 0) | (ids >= self.base**self.N)):
            raise ValueError(f"run ids must lie in [0, {self.base ** self.N})")
        if not hasattr(self, "_a_group"):
            na = self.base**self.h
            self._a_group = np.full(na, -1, np.int64)
            self._a_pos = np.zeros(na, np.int64)
            for gi, g in enumerate(self.groups):
                self._a_group[g.a_ids] = gi
                self._a_pos[g.a_ids] = g.a_pos
        a, b = ids // self.nb, ids % self.nb
        gi, pa = self._a_group[a], self._a_pos[a]
        key = np.zeros(ids.shape, dtype=np.int64 if self.is_int else float)
        ident = None if self.is_int else np.zeros(ids.shape, np.int64)
        for j, g in enumerate(self.groups):
            s = gi == j
            pb = g.b_pos[b[s]]
            key[s] = g.a_key[pa[s]] + g.b_key[pb]
            if ident is not None:
                ident[s] = g.a_ident[pa[s]] + g.b_ident[pb]
        return key, ident

    def float_of_ids(self, ids: np.ndarray) -> np.ndarray:
        """Float values of run ids (display)."""
        key, _ = self.keys_of_ids(ids)
        return key.astype(float) / float(self.denominator) if self.is_int else key

    # -- one chunk: sorted distinct values with counts --------------------------------------------

    def reduce_chunk(self, t0, t1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct keys in [t0, t1) in increasing exact order, their multiplicities, and (float
        mode) the (position, identity) pairs of the entries that came from multi-identity clusters,
        which :meth:`Scale.phi_runs` needs to place a run exactly among near-equal values."""
        k, ident, mult = self.gather(t0, t1)
        no_multi = np.empty((0, 2), np.int64)
        if self.is_int:
            if np.all(mult == 1):
                u, cnt = np.unique(k, return_counts=True)
                return u, cnt.astype(np.int64), no_multi
            order = np.argsort(k)
            k, mult = k[order], mult[order]
            starts = np.flatnonzero(np.concatenate([[True], k[1:] != k[:-1]])) if len(k) else np.empty(0, np.int64)
            return k[starts], np.add.reduceat(mult, starts) if len(k) else mult, no_multi
        # the order inside a near-tie cluster is irrelevant (clusters are reduced to identity sets),
        # so sorting the floats alone suffices
        order = np.argsort(k)
        k, ident, mult = k[order], ident[order], mult[order]
        del order
        if not len(k):
            return k, np.empty(0, np.int64), no_multi
        new_cluster = np.concatenate([[True], np.diff(k) > self.delta])
        starts = np.nonzero(new_cluster)[0]
        imin = np.minimum.reduceat(ident, starts)
        imax = np.maximum.reduceat(ident, starts)
        sizes = np.add.reduceat(mult, starts)  # runs per cluster
        vals = k[starts]  # smallest float of a one-identity cluster (deterministic)
        out_v, out_c, multi = [], [], []
        prev, n_out = 0, 0
        for ci in np.nonzero(imin != imax)[0]:  # clusters with several identities: exact order
            out_v.append(vals[prev:ci])
            out_c.append(sizes[prev:ci])
            n_out += ci - prev
            s, e = starts[ci], (starts[ci + 1] if ci + 1 < len(starts) else len(k))
            ids_c, inv_c = np.unique(ident[s:e], return_inverse=True)
            counts = dict(zip(ids_c.tolist(), np.bincount(inv_c, weights=mult[s:e]).astype(np.int64).tolist()))
            mins: dict = {}
            for x, i in zip(k[s:e].tolist(), ident[s:e].tolist()):
                mins[i] = min(mins.get(i, x), x)
            ordered = self.adjudicate(list(counts))
            # floats of exactly ordered values must be non-decreasing for searchsorted
            out_v.append(np.maximum.accumulate(np.array([mins[i] for i in ordered])))
            out_c.append(np.array([counts[i] for i in ordered], dtype=np.int64))
            multi.extend((n_out + j, i) for j, i in enumerate(ordered))
            n_out += len(ordered)
            prev = ci + 1
        out_v.append(vals[prev:])
        out_c.append(sizes[prev:])
        multi_arr = np.array(multi, dtype=np.int64).reshape(-1, 2)
        return np.concatenate(out_v), np.concatenate(out_c).astype(np.int64), multi_arr

    def snap(self, t: float) -> float:
        """A float cut point near t lying in a gap wider than 2δ between run values."""
        lo, hi = self.key_bounds()
        eps = max((hi - lo) * 2.0**-24, 64 * self.delta)
        for _ in range(60):
            k, _, _ = self.gather(t - eps, t + eps)
            if len(k) > 200_000:
                eps /= 8
                continue
            pts = np.unique(np.concatenate([[t - eps], k, [t + eps]]))
            gaps = np.diff(pts)
            j = int(np.argmax(gaps))
            if gaps[j] > 4 * self.delta:
                return float(pts[j] + gaps[j] / 2)
            eps *= 4
        raise TieUndecidable(f"no gap wider than 4δ near {t} for {self.measure!r}, N={self.N}")


def _dcg_layout(m: M.DCG, N: int, gmax: int):
    """The exact DCG identity of the module docstring: for each rank its perfect-power class, the
    mixed-radix packing of the coefficient vector, and ``size`` = the number of identities."""
    cls, roots, lcms, logbase = _dcg_roots(m, N)
    coef = [lcms[r] // k for r, k in cls]  # rank i adds g_i · coef_i to the coefficient of u_r
    radix = {r: gmax * sum(coef[i] for i in range(N) if cls[i][0] == r) + 1 for r in roots}
    stride, size = {}, 1
    for r in roots:
        stride[r] = size
        size *= radix[r]
    return cls, roots, lcms, coef, radix, stride, size, logbase


@functools.lru_cache(maxsize=8)
def _kernel(measure: M.Measure, N: int, c: int) -> _Kernel:
    return _Kernel(measure, N, c)


def rank_values(x, ties: str = "unq") -> np.ndarray:
    """Rank transform of a finite sample (FFF21 §5's worked example; §7.1.3's strategies).

    ``unq``: φ(m) = |{distinct x_j ≤ m}| (eq. 2); ``min``/``max``/``mid``: rank among all entries with
    ties at their lowest / highest / average rank. Values are compared exactly as given (use
    :class:`fractions.Fraction` objects, or integers, for exact ties).
    """
    if ties not in _TIES:
        raise ValueError(f"ties must be one of {_TIES}, got {ties!r}")
    arr = np.asarray(x, dtype=object).reshape(-1)
    u = sorted(set(arr.tolist()))
    where = {v: i for i, v in enumerate(u)}
    idx = np.array([where[v] for v in arr.tolist()], dtype=np.int64)
    if ties == "unq":
        return (idx + 1).reshape(np.shape(x))
    cnt = np.bincount(idx, minlength=len(u))
    upto = np.cumsum(cnt)
    below = upto - cnt
    out = {"min": below + 1, "max": upto, "mid": (below + 1 + upto) / 2.0}[ties]
    return out[idx].reshape(np.shape(x))


def _chunk_task(measure: M.Measure, N: int, c: int, t0, t1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pure chunk task: distinct keys in [t0, t1), counts, multi-identity entries (see reduce_chunk)."""
    return _kernel(measure, N, c).reduce_chunk(t0, t1)


# ------------------------------------------------------------------------------------- cache


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _file_mode() -> int:
    """0o666 minus the umask: what open() would give (mkstemp makes private 0o600 files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _atomic_save(arr: np.ndarray, path: Path) -> str:
    """Write arr as .npy via a temporary file + fsync + rename; returns its SHA-256."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    os.chmod(tmp, _file_mode())
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, arr, allow_pickle=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return _sha256(path)


def _atomic_json(obj, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="manifest.", suffix=".tmp")
    os.chmod(tmp, _file_mode())
    with os.fdopen(fd, "w") as fh:
        json.dump(obj, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _counts_dtype(cnt: np.ndarray):
    mx = int(cnt.max()) if len(cnt) else 0
    for dt in (np.uint8, np.uint16, np.uint32):
        if mx <= np.iinfo(dt).max:
            return dt
    return np.uint64


def _jsonable(x):
    return int(x) if isinstance(x, (int, np.integer)) else (None if x is None else float(x))


# --------------------------------------------------------------------------------------- Scale


_TIES = ("unq", "min", "max", "mid")


class _Chunk:
    """One stored piece of a scale: distinct keys in increasing order and their counts.

    ``keys``/``counts`` may be memory-mapped arrays; ``counts is None`` means all ones (a measure
    without ties stores no counts file).
    """

    def __init__(self, keys, counts=None, n_runs: int | None = None, multi=None):
        self._keys, self._counts = keys, counts
        self.multi = np.empty((0, 2), np.int64) if multi is None else multi
        self.n_distinct = len(keys)
        self.n_runs = int(n_runs if n_runs is not None else
                          (self.n_distinct if counts is None else np.asarray(counts).sum(dtype=np.int64)))
        self.first = keys[0] if self.n_distinct else None
        self.last = keys[-1] if self.n_distinct else None

    def keys(self) -> np.ndarray:
        return np.asarray(self._keys)

    def counts(self) -> np.ndarray:
        if self._counts is None:
            return np.ones(self.n_distinct, np.int64)
        return np.asarray(self._counts, dtype=np.int64)


class _IdRangeChunk(_Chunk):
    """Keys = run ids lo..hi−1, one run each (closed form of measures ordered like the run id)."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self._counts = None
        self.multi = np.empty((0, 2), np.int64)
        self.n_distinct = self.n_runs = hi - lo
        self.first, self.last = lo, hi - 1

    def keys(self) -> np.ndarray:
        return np.arange(self.lo, self.hi, dtype=np.int64)


@dataclass
class Scale:
    """All distinct values of a measure over REL^N with their multiplicities (FFF21 §5), in chunks.

    ``keys`` are the exact keys (int mode: integers; float mode: float64 in exact order) and
    ``values`` float64 values for display (for recall-base measures: the numerator divided by the
    topic's normaliser, see the module docstring). :meth:`phi` and :meth:`phi_runs` give the ranked
    measure, :meth:`quantiles` the values for "all possible values" plots; both work chunk by chunk.
    """

    measure: M.Measure
    N: int
    c: int
    mode: str
    chunks: list
    rb: float | None = None
    ideal: np.ndarray | None = None
    method: str = "engine"
    directory: Path | None = None
    key_kind: str = "key"  # "key" (kernel keys) or "runid" (closed form: keys are run ids)
    _norm: float = field(default=1.0, repr=False)
    _denominator: Fraction = field(default=Fraction(1), repr=False)

    def __post_init__(self):
        self.chunks = [ch for ch in self.chunks if ch.n_distinct]
        self._ndist = np.array([ch.n_distinct for ch in self.chunks], dtype=np.int64)
        self._nruns = np.array([ch.n_runs for ch in self.chunks], dtype=np.int64)
        self._off_d = np.concatenate([[0], np.cumsum(self._ndist)])
        self._off_r = np.concatenate([[0], np.cumsum(self._nruns)])
        self._last_key = np.array([ch.last for ch in self.chunks])
        self._first_val = np.array([self._disp(np.array([ch.first]))[0] for ch in self.chunks])
        self._last_val = np.array([self._disp(np.array([ch.last]))[0] for ch in self.chunks])
        self._cache: dict = {}

    def __repr__(self) -> str:
        return (f"Scale({self.measure.key}, N={self.N}, c={self.c}, n_distinct={self.n_distinct}, "
                f"n_runs={self.n_runs}, mode={self.mode!r}, method={self.method!r})")

    # -- sizes and arrays ----------------------------------------------------------------------
    @property
    def n_distinct(self) -> int:
        """|M(REL^N)|, the number of distinct values (φ of the largest value)."""
        return int(self._off_d[-1])

    @property
    def n_runs(self) -> int:
        return int(self._off_r[-1])

    def _disp(self, keys) -> np.ndarray:
        keys = np.asarray(keys)
        if self.key_kind == "runid":
            v = _kernel(_numerator(self.measure), self.N, self.c).float_of_ids(keys)
        elif isinstance(_numerator(self.measure), M.RR):
            v = np.where(keys > 0, 1.0 / np.maximum(self.N + 1 - keys, 1), 0.0)
        elif self.mode == "int":
            v = keys.astype(float) / float(self._denominator)
        else:
            v = keys.astype(float)
        return v / self._norm

    def _check_size(self):
        if self.n_distinct > 200_000_000:
            raise MemoryError(f"{self!r}: too many values to hold at once; iterate iter_chunks() "
                              "or use phi()/quantiles(), which work chunk by chunk")

    @property
    def keys(self) -> np.ndarray:
        self._check_size()
        return np.concatenate([ch.keys() for ch in self.chunks])

    @property
    def values(self) -> np.ndarray:
        """Sorted distinct values (float64, for display; the exact order is that of the keys)."""
        return self._disp(self.keys)

    @property
    def counts(self) -> np.ndarray:
        """Multiplicity of each distinct value: the number of runs taking it."""
        self._check_size()
        return np.concatenate([ch.counts() for ch in self.chunks])

    def iter_chunks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(values, counts) chunk by chunk, in increasing order, in bounded memory."""
        for ch in self.chunks:
            yield self._disp(ch.keys()), ch.counts()

    def exact_values(self) -> list[Fraction]:
        """Exact values of a rational measure (int mode) as Fractions (small scales only)."""
        if self.mode != "int" or self.key_kind != "key":
            raise M.NotRationalError(f"{self!r}: exact values are available for integer-key scales only")
        norm = Fraction(1)
        if self.rb is not None and isinstance(self.measure, M.R):
            norm = Fraction(self.rb) / self.N  # the numerator is P = count/N
        elif self.rb is not None and self.measure.needs_rb:
            norm = Fraction(self.rb)
        if isinstance(_numerator(self.measure), M.RR):
            return [Fraction(0) if k == 0 else Fraction(1, self.N + 1 - int(k)) for k in self.keys]
        return [Fraction(int(k)) / self._denominator / norm for k in self.keys.tolist()]

    # -- ranks -----------------------------------------------------------------------------------
    def _cum(self, ci: int) -> np.ndarray:
        key = ("cum", ci)
        if key not in self._cache:
            if len(self._cache) > 8:
                self._cache.clear()
            self._cache[key] = np.cumsum(self.chunks[ci].counts())
        return self._cache[key]

    def _ranks(self, chunk: np.ndarray, pos: np.ndarray, ties: str) -> np.ndarray:
        """Ranks of the scale entries (chunk, position): ``unq`` = FFF21 eq. (2); ``min``/``max``/
        ``mid`` = rank among all runs sorted by value with ties at their min/max/average rank."""
        if ties not in _TIES:
            raise ValueError(f"ties must be one of {_TIES}, got {ties!r}")
        if ties == "unq":
            return (self._off_d[chunk] + pos + 1).astype(np.int64)
        below = np.empty(len(pos), np.int64)
        upto = np.empty(len(pos), np.int64)
        for ci in np.unique(chunk):
            s = chunk == ci
            cum = self._cum(int(ci))
            upto[s] = self._off_r[ci] + cum[pos[s]]
            below[s] = self._off_r[ci] + np.where(pos[s] > 0, cum[np.maximum(pos[s] - 1, 0)], 0)
        if ties == "min":
            return below + 1
        if ties == "max":
            return upto
        return (below + 1 + upto) / 2.0

    def phi(self, values, ties: str = "unq", rtol: float = 1e-12) -> np.ndarray:
        """Ranked measure φ of float values of this measure (FFF21 eq. 2 with ``ties="unq"``).

        Each value must lie within ``rtol``·max(1, |largest value|) of exactly one value of the scale;
        otherwise ``ValueError`` says which input failed (not a value of the measure, or floats too
        close to tell two scale values apart — then use the exact :meth:`phi_runs`). That happens
        for long runs: at N = 30 distinct AP values can be 1/lcm(1..30) ≈ 4e-13 apart, distinct
        RBP_p08 values closer still, so float measure values cannot be ranked reliably there.
        """
        v = np.asarray(values, dtype=float)
        shape = v.shape
        v = v.reshape(-1)
        if not np.all(np.isfinite(v)):
            raise ValueError("phi: values must be finite numbers")
        tol = rtol * max(1.0, float(np.abs(self._last_val).max()), float(np.abs(self._first_val).max()))
        ci0 = np.clip(np.searchsorted(self._last_val, v - tol, "left"), 0, len(self.chunks) - 1)
        chunk = np.empty(len(v), np.int64)
        pos = np.empty(len(v), np.int64)
        for ci in np.unique(ci0):
            s = np.nonzero(ci0 == ci)[0]
            hits = np.zeros(len(s), np.int64)
            for cj in (ci, ci + 1):  # a window [v − tol, v + tol] can reach into the next chunk
                if cj >= len(self.chunks):
                    continue
                vals = self._disp(self.chunks[cj].keys())
                lo = np.searchsorted(vals, v[s] - tol, "left")
                hi = np.searchsorted(vals, v[s] + tol, "right")
                n = hi - lo
                one = (n >= 1) & (hits == 0)
                chunk[s[one]], pos[s[one]] = cj, lo[one]
                hits += n
            if (hits == 0).any():
                i = s[np.nonzero(hits == 0)[0][0]]
                raise ValueError(f"phi: value {v[i]!r} (input index {i}) is not a value of "
                                 f"{self.measure.key} at N={self.N} (tolerance {tol:g})")
            if (hits > 1).any():
                i = s[np.nonzero(hits > 1)[0][0]]
                raise ValueError(f"phi: value {v[i]!r} (input index {i}) lies within {tol:g} of several values"
                                 f" of {self.measure.key}; floats cannot tell them apart: use phi_runs(rel)")
        return self._ranks(chunk, pos, ties).reshape(shape)

    def phi_runs(self, rel, ties: str = "unq") -> np.ndarray:
        """Exact ranked measure of runs ``rel`` of shape (..., N) (grades 0..c), from exact keys."""
        rel = np.asarray(rel)
        if rel.ndim == 0 or rel.shape[-1] != self.N:
            raise ValueError(f"phi_runs: runs must have shape (..., {self.N}), got {rel.shape}")
        shape = rel.shape[:-1]
        ids = run_ids(rel.reshape(-1, self.N), self.c)
        ker = _kernel(_numerator(self.measure), self.N, self.c)
        if self.key_kind == "runid":
            key, ident = ids, None
        else:
            key, ident = ker.keys_of_ids(ids)
        chunk = np.minimum(np.searchsorted(self._last_key, key, "left"), len(self.chunks) - 1)
        pos = np.empty(len(key), np.int64)
        for ci in np.unique(chunk):
            s = np.nonzero(chunk == ci)[0]
            kc = self.chunks[ci].keys()
            if ident is None:  # exact integer keys
                p = np.searchsorted(kc, key[s], "left")
                if np.any(p >= len(kc)) or np.any(kc[np.minimum(p, len(kc) - 1)] != key[s]):
                    raise CacheError(f"{self!r}: a run's exact key is missing from the scale (corrupt cache?)")
                pos[s] = p
                continue
            # float mode. A run's float is within δ/16 of its exact value and its entry's stored float
            # within [−δ/16, +δ/8 + δ/16] of it (the maximum.accumulate of reduce_chunk), so the entry
            # lies in [key − δ/2, key + δ/2]. Entries of one-identity clusters are > δ apart, so at most
            # one of them is that close; entries of multi-identity clusters are told apart by the
            # identities stored with them.
            lo = np.searchsorted(kc, key[s] - ker.delta / 2, "left")
            hi = np.searchsorted(kc, key[s] + ker.delta / 2, "right")
            multi = self.chunks[ci].multi
            mpos = dict(zip(multi[:, 1].tolist(), multi[:, 0].tolist())) if len(multi) else {}
            mset = set(mpos.values())
            easy = (hi - lo == 1) & ~np.isin(lo, multi[:, 0])
            pos[s[easy]] = lo[easy]
            for j in np.nonzero(~easy)[0].tolist():
                i = int(s[j])
                p = mpos.get(int(ident[i]))
                if p is not None and lo[j] <= p < hi[j]:
                    pos[i] = p
                    continue
                single = [q for q in range(int(lo[j]), int(hi[j])) if q not in mset]
                if len(single) != 1:
                    raise TieUndecidable(f"phi_runs: cannot place run {rel.reshape(-1, self.N)[i].tolist()}"
                                         f" among {hi[j] - lo[j]} near-equal scale values (corrupt cache?)")
                pos[i] = single[0]
        return self._ranks(chunk, pos, ties).reshape(shape)

    def quantiles(self, q) -> np.ndarray:
        """Values at run quantiles q ∈ [0, 1]: the value of the run at position ⌊q·(n_runs − 1)⌋
        when all runs are sorted by value (x axis of FFF21 Figs. 3–5), chunk by chunk."""
        q = np.asarray(q, dtype=float)
        if np.any((q < 0) | (q > 1)) or not np.all(np.isfinite(q)):
            raise ValueError("quantiles: q must lie in [0, 1]")
        r = np.floor(q.reshape(-1) * (self.n_runs - 1)).astype(np.int64)
        chunk = np.searchsorted(self._off_r[1:], r, "right")
        out = np.empty(len(r))
        for ci in np.unique(chunk):
            s = chunk == ci
            j = np.searchsorted(self._cum(int(ci)), r[s] - self._off_r[ci], "right")
            out[s] = self._disp(self.chunks[ci].keys()[j])
        return out.reshape(q.shape)

    def to_frame(self) -> pd.DataFrame:
        """Distinct values, counts and φ (unq) as a pandas DataFrame (small scales)."""
        import pandas as pd
        return pd.DataFrame({"value": self.values, "count": self.counts,
                             "phi": np.arange(1, self.n_distinct + 1)})


def _numerator(m: M.Measure) -> M.Measure:
    """The recall-base-free measure whose scale a recall-base dependent one shares (module doc)."""
    if isinstance(m, M.AP):
        return M.SP()
    if isinstance(m, M.R):
        return M.P()
    if isinstance(m, M.NDCG):
        return M.DCG(base=m.base, discount=m.discount, gains=m.gains)
    return m


def _normaliser(m: M.Measure, N: int, rb, ideal) -> float:
    """The positive constant a recall-base dependent measure divides its numerator by."""
    if not m.needs_rb:
        return 1.0
    if isinstance(m, M.NDCG):
        w = M.dcg_discount(N, m.base, m.discount)
        if ideal is not None:
            g = -np.sort(-np.asarray(ideal, dtype=float))[:N]
            idcg = float(g @ w[: len(g)])
        elif rb is not None:
            idcg = float(w[: min(int(rb), N)].sum())
        else:
            return 1.0
        if idcg <= 0:
            raise ValueError(f"{m!r}: the ideal DCG is 0 (rb={rb!r}); every run scores 0, there is no scale")
        return idcg
    if rb is None:
        return 1.0
    if rb <= 0:
        raise ValueError(f"{m!r}: rb={rb!r} leaves no scale (every run scores 0); pass rb > 0")
    if isinstance(m, M.R):
        return float(rb) / N  # the numerator P is count/N; R = count/rb
    return float(rb)


# ------------------------------------------------------------------------------------- builders


def _closed_form(measure: M.Measure, N: int) -> tuple[list, str] | None:
    """Closed-form scales: (chunks, key kind), or None.

    * P (and R): values k/N with multiplicity C(N, k).
    * RR: 0 once, and 1/k for the 2^{N−k} runs whose first relevant document is at rank k.
    * RBP with p ≤ 1/2 (binary): rank i outweighs all later ranks together,
      p^{i−1} ≥ Σ_{j>i} p^{j−1} = p^i (1 − p^{N−i})/(1 − p) as p/(1 − p) ≤ 1, strictly since the sum
      is finite; so runs are ordered by their run id (the binary number rel_1 rel_2 … rel_N), every
      run has its own value, and φ(run) = run id + 1. (FFF21 §5 states φ(m) = 2^N m for p = 1/2; with
      eq. (2) counting the empty run's value 0 as φ = 1 it is 2^N m + 1, see the tests.)
    """
    if isinstance(measure, M.P) and measure.k is None:
        return [_Chunk(np.arange(N + 1, dtype=np.int64),
                       np.array([math.comb(N, k) for k in range(N + 1)], np.int64))], "key"
    if isinstance(measure, M.RR):
        keys = np.arange(N + 1, dtype=np.int64)  # key N + 1 − k ↔ first relevant at rank k
        counts = np.array([1] + [2 ** (k - 1) for k in range(1, N + 1)], dtype=np.int64)
        return [_Chunk(keys, counts)], "key"
    if isinstance(measure, M.RBP) and _rational_p(measure.p) <= Fraction(1, 2):
        step = 1 << 22
        return [_IdRangeChunk(lo, min(lo + step, 2**N)) for lo in range(0, 2**N, step)], "runid"
    return None


def scale(measure: M.Measure | str, N: int, *, c: int = 1, rb: float | None = None, ideal=None,
          method: str = "auto", cache: bool | str | Path = True, memory_mb: int = 1024,
          workers: int | None = None, client=None, progress: bool | None = None,
          verify: str = "full") -> Scale | CountedScale:
    """The scale of ``measure`` over all (c+1)^N runs of length N (FFF21 §5).

    measure   a :class:`irscales.measures.Measure` or its name (``"RBP_p08"``)
    N, c      run length, highest grade (c = 1: binary runs)
    rb        recall base for R, AP, nDCG (only rescales ``values``; φ does not depend on it)
    method    ``"auto"`` (closed form when one exists, else engine; beyond the engine's depth a
              :class:`irscales.counting.CountedScale` where φ can be counted), ``"engine"``,
              ``"closed"``, ``"count"`` (always the counted scale: sizes and ``phi_runs`` only)
    cache     True (under :func:`irscales.paths.cache_dir`), a directory, or False (in memory)
    memory_mb peak memory budget of the chunk tasks (all workers together)
    workers   local processes (default: 2 when more than one chunk); ignored with ``client``
    client    a ``dask.distributed.Client``: chunk tasks are submitted to it
    progress  tqdm bar (default: only when stderr is a terminal)
    verify    ``"full"`` (SHA-256 of cached chunks), ``"size"`` (shape only) when reading a cache
    """
    if isinstance(measure, str):
        measure = M.parse(measure)
    if not isinstance(measure, M.Measure):
        raise TypeError(f"scale: measure must be a Measure or a measure name, got {type(measure).__name__}")
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"scale: N must be a positive integer, got {N!r}")
    if method not in ("auto", "engine", "closed", "count"):
        raise ValueError(f"scale: method must be 'auto', 'engine', 'closed' or 'count', got {method!r}")
    limit, why = max_enumerable_depth(measure, c)
    if method == "count" or (method == "auto" and N > limit):  # issue 20: φ counted, nothing stored
        from irscales.counting import CountedScale, countable, counting_depth
        if countable(measure, N, c):
            return CountedScale(measure, N, rb=rb, c=c)
        if method == "count":
            raise ValueError(f"scale: {measure.key} is not counted at N={N}: {counting_depth(measure, c)[1]}")
    _refuse_beyond(measure, N, limit, why)
    num = _numerator(measure)
    norm = _normaliser(measure, N, rb, ideal)
    if isinstance(measure, M.R):
        norm = (float(rb) if rb is not None else float(N)) / N
    closed = _closed_form(num, N) if c == 1 else None
    if method == "closed" and closed is None:
        raise ValueError(f"scale: no closed form for {measure!r} (closed forms: P, R, RR, RBP p ≤ 1/2)")
    ker = _kernel(num, N, c)
    common = dict(measure=measure, N=N, c=c, mode=ker.mode, rb=rb, ideal=ideal, _norm=norm,
                  _denominator=ker.denominator)
    if closed is not None and method != "engine":
        common["mode"] = "int"  # closed forms have exact integer keys (counts, ranks or run ids)
        return Scale(chunks=closed[0], key_kind=closed[1], method="closed", **common)
    chunks, directory = _run_engine(ker, cache, memory_mb, workers, client, progress, verify)
    return Scale(chunks=chunks, method="engine", directory=directory, **common)


def _plan(ker: _Kernel, memory_mb: int, workers: int) -> list:
    """Chunk ranges [t0, t1) of the key axis, each holding about memory_mb/workers worth of runs.

    The unit of work is a pair (distinct top half, distinct bottom half) of one group (see
    :class:`_Group`). Cut points are quantiles of the keys of a fixed pseudo-random sample of pairs
    (seeded, so the plan is reproducible; it is also stored in the manifest), aiming at 80% of the
    budget so that sampling error does not push a chunk over it. Float cut points are moved into gaps wider than
    4δ between run values, so that no near-tie cluster is split between two chunks.
    """
    total = sum(g.pairs for g in ker.groups)  # (top, bottom) entry pairs, the unit of work
    per = max(1 << 12, int(0.8 * memory_mb * 2**20 / (_BYTES_PER_RUN * max(workers, 1))))
    n = max(1, -(-total // per))
    if n == 1:
        return [(None, None)]
    rng = np.random.default_rng(20210101)
    size = max(1 << 16, 256 * n)
    sizes = np.array([g.pairs for g in ker.groups], dtype=float)
    gi = rng.choice(len(ker.groups), size=size, p=sizes / sizes.sum())
    keys = []
    for j, g in enumerate(ker.groups):
        m = int((gi == j).sum())
        if m:
            keys.append(g.a_key[rng.integers(0, len(g.a_key), m)] + g.b_key[rng.integers(0, len(g.b_key), m)])
    keys = np.sort(np.concatenate(keys))
    qs = keys[(np.arange(1, n) * len(keys)) // n]
    cuts = [None]
    for t in qs:
        t = int(t) if ker.is_int else ker.snap(float(t))
        if cuts[-1] is None or t > cuts[-1]:
            cuts.append(t)
    cuts.append(None)
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]


def _params(ker: _Kernel) -> dict:
    return {"measure": repr(ker.measure), "N": ker.N, "c": ker.c, "kernel_version": KERNEL_VERSION,
            "mode": ker.mode, "numpy": np.__version__.split(".")[0]}


def _cache_path(ker: _Kernel, cache) -> Path | None:
    if cache is False or cache is None:
        return None
    root = cache_dir() if cache is True else Path(cache)
    tag = hashlib.sha256(json.dumps(_params(ker), sort_keys=True).encode()).hexdigest()[:12]
    return root / "scales" / f"{ker.measure.key}_N{ker.N}_c{ker.c}_{tag}"


_VERIFIED: set = set()  # (path, size, mtime, sha256) of files whose checksum this process checked


def _load_chunk(d: Path, entry: dict, verify: str) -> _Chunk | None:
    """The stored chunk, or None when a file is missing, truncated or fails its checksum."""
    arrs = {}
    for name in ("keys", "counts", "multi"):
        if entry.get(name) is None:  # no counts file: every count is 1; no multi file: none
            arrs[name] = None
            continue
        p = d / entry[name]
        if not p.exists():
            return None
        if verify == "full":
            st = p.stat()
            stamp = (str(p), st.st_size, st.st_mtime_ns, entry[name + "_sha256"])
            if stamp not in _VERIFIED:  # hash each file once per process (N = 30: ~19 GB)
                if _sha256(p) != entry[name + "_sha256"]:
                    return None
                _VERIFIED.add(stamp)
        try:
            a = np.load(p, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError, EOFError):
            return None
        want = entry["n_multi"] if name == "multi" else entry["n_distinct"]
        if len(a) != want or a.ndim != (2 if name == "multi" else 1):
            return None
        arrs[name] = a
    if arrs["keys"] is None:
        return None
    multi = None if arrs["multi"] is None else np.asarray(arrs["multi"])
    return _Chunk(arrs["keys"], arrs["counts"], n_runs=entry["n_runs"], multi=multi)


def _run_engine(ker, cache, memory_mb, workers, client, progress, verify):
    if verify not in ("full", "size"):
        raise ValueError(f"verify must be 'full' or 'size', got {verify!r}")
    d = _cache_path(ker, cache)
    if d is None:
        return _run_engine_locked(ker, None, memory_mb, workers, client, progress, verify)
    d.mkdir(parents=True, exist_ok=True)
    import fcntl

    # one writer per cache folder: a second process computing the same scale waits, then reads it
    with open(d / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _run_engine_locked(ker, d, memory_mb, workers, client, progress, verify)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run_engine_locked(ker, d, memory_mb, workers, client, progress, verify):
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    manifest = None
    if d is not None:
        mp = d / "manifest.json"
        if mp.exists():
            try:
                manifest = json.loads(mp.read_text())
            except json.JSONDecodeError:
                manifest = None
            if manifest is not None and manifest.get("params") != _params(ker):
                manifest = None  # stale: written by other parameters or another kernel version
    if manifest is None:
        plan = _plan(ker, memory_mb, workers)
        manifest = {"params": _params(ker), "chunks": [
            {"t0": _jsonable(a), "t1": _jsonable(b), "done": False} for a, b in plan]}
        if d is not None:
            _atomic_json(manifest, d / "manifest.json")
    entries = manifest["chunks"]
    results: dict[int, tuple] = {}
    todo = []
    for i, e in enumerate(entries):
        if e.get("done") and d is not None:
            got = _load_chunk(d, e, verify)
            if got is not None:
                results[i] = got
                continue
            e["done"] = False  # corrupt or missing: recompute
        todo.append(i)

    def store(i, res):
        keys, cnt, multi = res
        n_runs = int(cnt.sum(dtype=np.int64))
        cnt = None if (len(cnt) == 0 or cnt.max() == 1) else cnt.astype(_counts_dtype(cnt))
        if d is None:
            results[i] = _Chunk(keys, cnt, n_runs=n_runs, multi=multi)
            return
        e = entries[i]
        for name, arr in (("keys", keys), ("counts", cnt), ("multi", multi if len(multi) else None)):
            if arr is None:
                e[name] = e[name + "_sha256"] = None
            else:
                e[name] = f"chunk{i:05d}_{name}.npy"
                e[name + "_sha256"] = _atomic_save(arr, d / e[name])
        e["n_distinct"], e["n_runs"], e["n_multi"], e["done"] = int(len(keys)), n_runs, int(len(multi)), True
        _atomic_json(manifest, d / "manifest.json")  # the chunk counts as done only after this
        results[i] = _load_chunk(d, e, "size")

    bar = _progress(len(todo), progress, f"{ker.measure.key} N={ker.N}")
    args = [(ker.measure, ker.N, ker.c, _unjson(entries[i]["t0"], ker), _unjson(entries[i]["t1"], ker))
            for i in todo]
    try:
        if client is not None:
            futs = [client.submit(_chunk_task, *a, pure=True) for a in args]
            for i, f in zip(todo, futs):
                store(i, f.result())
                bar.update(1)
        elif workers <= 1 or len(todo) <= 1:
            for i, a in zip(todo, args):
                store(i, _chunk_task(*a))
                bar.update(1)
        else:
            from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
            import multiprocessing as mp_
            # fork: workers inherit the imported modules (spawn would re-import a user's __main__)
            ctx = mp_.get_context("fork" if "fork" in mp_.get_all_start_methods() else "spawn")
            with ProcessPoolExecutor(workers, mp_context=ctx) as ex:
                # at most workers + 1 chunks in flight, so finished results never pile up in memory
                pending, queue = {}, list(zip(todo, args))[::-1]
                while queue or pending:
                    while queue and len(pending) < workers + 1:
                        i, a = queue.pop()
                        pending[ex.submit(_chunk_task, *a)] = i
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        store(pending.pop(f), f.result())
                        bar.update(1)
    finally:
        bar.close()
    return [results[i] for i in range(len(entries))], d


def prune_cache(root: str | Path | None = None, dry_run: bool = False) -> list[Path]:
    """Remove scale caches written by another kernel version (or without a readable manifest).

    Such folders are never read (their parameters do not match), but a version bump leaves them on
    disk; N = 30 scales take several GB each. Returns the folders removed (or that would be).
    """
    import shutil

    base = (cache_dir() if root is None else Path(root)) / "scales"
    gone = []
    for d in sorted(base.iterdir()) if base.is_dir() else []:
        try:
            version = json.loads((d / "manifest.json").read_text())["params"]["kernel_version"]
        except (OSError, ValueError, KeyError, TypeError):
            version = None
        if version != KERNEL_VERSION:
            gone.append(d)
            if not dry_run:
                shutil.rmtree(d)
    return gone


def _unjson(x, ker):
    if x is None:
        return None
    return int(x) if ker.is_int else float(x)


def _progress(total: int, progress: bool | None, desc: str):
    if progress is None:
        progress = sys.stderr.isatty() and total > 1
    from tqdm import tqdm  # plain bar: tqdm.auto warns (with a path) in kernels without ipywidgets
    return tqdm(total=total, desc=desc, disable=not progress, leave=False)


# ------------------------------------------------------------------------------ limits and costs

_TABLE_MAX = 2**20  # half-run tables (c+1)^⌈N/2⌉ entries: 2^20 (binary N = 40) take ~0.5 GB to build
# engine wall time per enumerated run on 2 cores, from the N = 30 benchmark (docs/benchmarks.md: AP via SP
# 81 s, RBP_p08 149 s, DCG_b02 380 s for 2^30 runs), rounded up
_SECONDS_PER_RUN = {M.SP: 1e-7, M.RBP: 1.5e-7}
_SECONDS_PER_RUN_DEFAULT = 4e-7
_BYTES_PER_VALUE = 8.5  # cache bytes per distinct value (N = 30: RBP_p08 8.1 GB for 2^30 values)


def _refuse_beyond(measure: M.Measure, N: int, limit: int, why: str) -> None:
    """Refuse, with the reason, a run length beyond what the engine can enumerate for ``measure``."""
    if N > limit:
        if limit == 0:
            raise NotImplementedError(why)
        raise ValueError(f"no scale of {measure.key} at N={N} (at most N={limit}): {why}")


def max_enumerable_depth(measure: M.Measure, c: int = 1) -> tuple[int, str]:
    """The largest run length N whose scale (and ranked version) this engine can compute for
    ``measure`` with grades 0..c, and the reason it cannot go further. 0 when it has no kernel.

    This is what is *representable*; the time and disk a build takes are :func:`build_cost`'s.
    """
    num = _numerator(measure)
    if not supported(num):
        return 0, (f"no enumeration kernel for {measure!r}; supported: P, R, SP, AP, RR, RBP, gRBP, DCG, "
                   "nDCG, RBTO, gP")
    h = 0
    while (c + 1) ** (h + 1) <= _TABLE_MAX:
        h += 1
    best, why = 2 * h, (f"the exact keys use tables of all {c + 1}^⌈N/2⌉ half runs, which beyond N = {2 * h} "
                        "need more than ~0.5 GB")
    if isinstance(num, M.SP):
        n = 1
        while (n + 1) * math.lcm(*range(1, n + 2)) < 2**62:
            n += 1
        if n <= best:
            best, why = n, f"exact AP keys are SP·lcm(1..N), which must fit 62 bits (N ≤ {n})"
    elif isinstance(num, M.DCG):
        try:
            _dcg_layout(num, 1, 1)
        except NotImplementedError as e:
            return 0, f"{measure!r}: {e}"
        graded = c > 1 and num.gains == "graded"
        n = 0
        while n < best and _dcg_layout(num, n + 1, c if graded else 1)[6] < 2**62:
            n += 1
        if n < best:
            best, why = n, f"the exact identity that separates tied DCG values must fit 62 bits (N ≤ {n})"
    elif isinstance(num, (M.RBP, M.GRBP)) and c > 1 and not num.binary:
        p = _rational_p(num.p)
        n = 0
        while n < best and sum(p.numerator**i * p.denominator ** (n - i) for i in range(n + 1)) * c < 2**62:
            n += 1
        if n < best:
            best, why = n, f"graded RBP can tie, so its exact integer keys must fit 62 bits (N ≤ {n})"
    return best, why


@dataclass(frozen=True)
class BuildCost:
    """What computing a scale will cost: 0 when it is a closed form or already cached."""

    measure: M.Measure
    N: int
    runs: int  # runs the engine enumerates (0: closed form or complete cache)
    seconds: float  # estimated wall time on 2 cores (docs/benchmarks.md)
    bytes: int  # upper bound on the cache written (one entry per distinct value)
    directory: Path | None  # where the cache goes
    cached: bool

    def __str__(self) -> str:
        if not self.runs:
            return f"{self.measure.key} at N={self.N}: {'cached' if self.cached else 'closed form'}, no build"
        return (f"{self.measure.key} at N={self.N}: enumerates {self.runs:,} runs once, about "
                f"{_human_seconds(self.seconds)} and up to {_human_bytes(self.bytes)} of cache in "
                f"{self.directory or 'memory'}")


def _human_seconds(s: float) -> str:
    if s < 1:
        return "under 1 s"
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"


def _human_bytes(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1000 or unit == "TB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000
    return ""  # pragma: no cover


def build_cost(measure: M.Measure, N: int, *, c: int = 1, cache: bool | str | Path = True) -> BuildCost:
    """Estimated cost of ``scale(measure, N, c=c, cache=cache)`` before running it (so a caller can
    ask first): closed forms and complete caches cost nothing; otherwise all (c+1)^N runs are
    enumerated once (time from the N = 30 benchmark) and at most one cache entry per run is written.
    Raises like :func:`scale` when N is beyond :func:`max_enumerable_depth`."""
    _refuse_beyond(measure, N, *max_enumerable_depth(measure, c))
    num = _numerator(measure)
    if c == 1 and _closed_form(num, N) is not None:
        return BuildCost(measure, N, 0, 0.0, 0, None, False)
    ker = _kernel(num, N, c)
    d = _cache_path(ker, cache)
    done = False
    if d is not None and (d / "manifest.json").exists():
        try:
            man = json.loads((d / "manifest.json").read_text())
            done = man.get("params") == _params(ker) and all(e.get("done") for e in man["chunks"])
        except (OSError, ValueError, KeyError, TypeError):
            done = False
    if done:
        return BuildCost(measure, N, 0, 0.0, 0, d, True)
    runs = (c + 1) ** N
    rate = _SECONDS_PER_RUN.get(type(num), _SECONDS_PER_RUN_DEFAULT)
    return BuildCost(measure, N, runs, runs * rate, int(runs * _BYTES_PER_VALUE) if d else 0, d, False)


# ----------------------------------------------------------------------------------- brute force


def brute_force_scale(measure: M.Measure, N: int, c: int = 1, rb=None, exact: bool = True) -> tuple[list, list]:
    """Reference scale by evaluating the measure on every run (small N only).

    Returns (distinct values, counts); with ``exact=True`` the values are Fractions from
    :meth:`Measure.exact` (rational measures), else floats from the vectorised measure
    (no tie handling: for cross-checks of float paths only).
    """
    if (c + 1) ** N > 2**20:
        raise ValueError(f"brute force over {(c + 1) ** N} runs is too large; use scale()")
    rel = runs_from_ids(np.arange((c + 1) ** N), N, c)
    if exact:
        vals = measure.exact(rel, rb=rb)
        u: dict = {}
        for v in vals.tolist():
            u[v] = u.get(v, 0) + 1
        ks = sorted(u)
        return ks, [u[k] for k in ks]
    v = measure(rel, rb=rb)
    u, cnt = np.unique(v, return_counts=True)
    return list(u), list(cnt)


# ------------------------------------------------------------------------------ distinct counts


def distinct_counts_table(Ns: Iterable[int] = (4, 5, 10, 15, 20, 25, 30),
                          measures: dict[str, M.Measure] | None = None,
                          out: str | Path | None = None, **kwargs) -> pd.DataFrame:
    """Number of distinct values of each measure at each run length (FFF21 §5.1, Figs. 3–5).

    Writes a CSV with columns ``measure, N, n_runs, n_distinct, max_count, mode, method`` to ``out``
    (default ``data/derived/distinct_counts.csv`` in a source checkout) and returns the frame.
    Recall-base measures are counted on one topic: their counts do not depend on RB > 0 (module
    docstring). ``kwargs`` go to :func:`scale` (cache, memory_mb, workers, ...).
    """
    import pandas as pd

    from irscales.paths import repo_root

    measures = measures or M.FFF21_MEASURES
    rows = []
    for N in Ns:
        for name, m in measures.items():
            s = scale(m, N, rb=N if m.needs_rb else None, **kwargs)
            max_count = max(int(ch.counts().max()) if ch._counts is not None else 1 for ch in s.chunks)
            rows.append({"measure": name, "N": N, "n_runs": s.n_runs, "n_distinct": s.n_distinct,
                         "max_count": max_count, "mode": s.mode, "method": s.method})
    df = pd.DataFrame(rows)
    if out is None:
        root = repo_root()
        out = (root / "data" / "derived" / "distinct_counts.csv") if root else Path("distinct_counts.csv")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=False)
    return df


def _main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="distinct values of the FFF21 measures over all runs")
    ap.add_argument("--N", type=int, nargs="+", default=[4, 5, 10, 15, 20, 25])
    ap.add_argument("--measures", nargs="+", default=None, help="paper keys, e.g. RBP_p08 DCG_b02")
    ap.add_argument("--out", default=None)
    ap.add_argument("--memory-mb", type=int, default=1024)
    ap.add_argument("--cache", default=None, help="cache folder (default: irscales.paths.cache_dir())")
    a = ap.parse_args(argv)
    ms = {k: M.parse(k) for k in a.measures} if a.measures else None
    df = distinct_counts_table(a.N, ms, a.out, memory_mb=a.memory_mb, cache=Path(a.cache) if a.cache else True)
    print(df.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
