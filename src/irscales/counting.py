"""The ranked measure φ by *counting* runs instead of enumerating them (issue 20; FFF21 §8).

FFF21 eq. (2) needs, for a run r, only φ_unq(r) = |{x ∈ M(REL^N) : x ≤ M(r)}|, and §7.1.3's
``min``/``max``/``mid`` need the number of runs below and up to M(r). Where the structure of a
measure tells its ties, these numbers can be *counted* without storing the scale, at any N the
arithmetic allows:

* P (and R, whose scale is P's, see :mod:`irscales.enumeration`): k relevant documents in N ranks;
  φ_unq = k + 1, runs below = Σ_{j<k} C(N, j), runs up to = Σ_{j≤k} C(N, j). Any N.
* RR: first relevant document at rank f (none: value 0); φ_unq = N + 2 − f (1 for none), runs
  below 1/f = 2^{N−f} (the runs with a later first hit and the empty run), 2^{N−f} runs tie. Any N.
* RBP with rational p = a/b (lowest terms). Its exact key K(r) = Σ_i rel_i a^{i−1} b^{N−i}
  (= RBP·b^{N−1}/(1 − p)) orders runs exactly as RBP does.

  **No ties, any N.** Suppose runs r ≠ s had K(r) = K(s). Then Σ_{i=1}^{N} d_i a^{i−1} b^{N−i} = 0
  with d_i = rel_i(r) − rel_i(s) ∈ {−1, 0, 1}. Every term with i < N holds the factor b^{N−i}, so
  modulo b the sum is d_N a^{N−1} ≡ 0; gcd(a, b) = 1 makes a^{N−1} invertible modulo b, so
  b | d_N, and b ≥ 2 (p < 1) with |d_N| ≤ 1 gives d_N = 0. Dividing the remaining sum by b leaves
  Σ_{i=1}^{N−1} d_i a^{i−1} b^{N−1−i} = 0, the same statement for N − 1; by induction every d_i = 0,
  i.e. r = s. Hence all 2^N values are distinct and φ_unq = φ_min = φ_max = φ_mid = 1 + #{runs
  below}. (``tests/test_counting.py`` also checks it exhaustively for N ≤ 20.)

  - p ≤ 1/2: rank i outweighs all later ranks, runs are ordered by their run id, φ = run id + 1
    (the engine's closed form), any N.
  - p > 1/2: *meet in the middle*. Split the ranks into a top part of h = ⌊N/2⌋ ranks and a bottom
    part of N − h (one rank less on top from N = 46 on, see :func:`_split`);
    K = b^{N−h}·V_h(top) + a^h·V_{N−h}(bottom) with V_L(x) = Σ_{i≤L} x_i a^{i−1}
    b^{L−i} an exact int64. The half tables (2^h and 2^{N−h} keys) are sorted once. For a query value,
    top halves far enough below it count all 2^{N−h} bottoms, those above it none; for each top
    half in between a search in the sorted bottom table (bucket index + steps) counts the bottoms below the
    threshold. Searches run on float64 images of the exact integers with a proven error band;
    pairs inside the band are compared exactly with Python integers, so every count is exact.
    Limits: V_L < 2^62 (int64 keys; L ≤ 26 for p = 0.8) and 2^L ≤ 2^26 table entries (memory:
    20 bytes each; 1.6 GB at N = 50, 3 GB while building), i.e. N ≤ 52 for RBP_p08.

* DCG and nDCG with the JK discount and an integer log base B (DCG_b02, DCG_b10; nDCG's order and
  ties are DCG's): ranks 1..B all weigh 1, so every run has the value of its *canonical* run, the
  number c = rel_1 + … + rel_B and the ranks after B; C(B, c) runs share it (FFF21 §5.1's
  3·2^{N−2} values for B = 2). The values of the canonical runs below a query are counted by meet in
  the middle over ranks B+1..N, once per c, on float64 sums with an error band; pairs inside the band
  are decided exactly (equal coefficient vectors over the u_m = ln B / ln m of
  :mod:`irscales.enumeration` are a tie, otherwise a 60- then 120-digit evaluation, else
  :class:`irscales.enumeration.TieUndecidable`).

  *What is proven.* Counting canonical runs counts distinct values only if distinct canonical runs
  never tie. Two kinds of ties are possible: (a) rational ones inside one class m (ranks m, m^2, …
  weigh u_m, u_m/2, …): the first one is 1/log2 4 = 1/log2 8 + 1/log2 64 for B = 2, found by
  :func:`_dcg_new_tie_depth` by exhaustive search, so counting stops one rank before it; (b) ties
  across classes, a Q-linear relation among the 1/ln m: impossible if Schanuel's conjecture holds,
  not proven. The engine's enumeration found none for N ≤ 30 (every near-tie adjudicated), so counted
  φ is proven by computation up to N = 30 (and equal to the engine's there, tested) and exact
  *conditionally on (b)* beyond; every comparison with the query run itself is checked.
  Cost grows as (B + 1)·2^{(N−B)/2} per run (the top halves within the bottom part's range are
  most of them): fine to N ≈ 40, memory-bound at 2^26-entry tables.

* Graded RBP (gRBP, FFP19 §5) over grades 0..c (G = c + 1 grades, gains = grades) with p = a/b in
  lowest terms: K(r) = Σ_i g_i a^{i−1} b^{N−i}, g_i ∈ {0..c}.

  **No ties when b > c, ties when b ≤ c (N ≥ 2).** If K(r) = K(s), the differences
  d_i = g_i(r) − g_i(s) now lie in {−c..c}; modulo b the sum is d_N a^{N−1} ≡ 0, so b | d_N as
  above, and |d_N| ≤ c < b forces d_N = 0; the induction goes through unchanged, so all (c+1)^N
  values are distinct. When b ≤ c the runs (a, 0, …) and (0, b, …) are both in the grade range
  (a < b ≤ c) and tie: a·b^{N−1} = b·a·b^{N−2} (:func:`graded_rbp_tie`). So p = 1/2 ties from
  three grades on ((1, 0) and (0, 2): 1 = 2·½), p = 0.8 = 4/5 from six. FFP19 §5 places the
  threshold at p = G'/(G'+1) with G' the smallest normalised gain gap (1/c for gains = grades,
  i.e. p = 1/(c+1)): below it gRBP is ordinal (strong top-heaviness; no ties), at it interval (the
  base-(c+1) rank, RBTO), above it neither — and only above it can ties appear: p = 1/2 > 1/3 for
  c = 2 ties, while p = 0.8 is above the threshold too but has b = 5 > c, no ties, and its φ is
  counted here by the same meet in the middle over (c+1)-ary half tables, up to N = 2L with
  c·V_L < 2^62 and (c+1)^L ≤ 2^MAX_HALF (N ≤ 32 for G = 3, 26 for G = 4).

* gP over grades 0..c (FFP19 §4.2; gains = grades): its value is t/(N·c) with t = Σ g_i the grade sum, so
  φ_unq = t + 1, and the runs with sum j are the coefficient of x^j in (1 + x + … + x^c)^N (exact
  integers). Any N, any c.

AP is not counted here (yet): its ranked version still needs the stored scale of
:func:`irscales.enumeration.scale`.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from fractions import Fraction

import numpy as np

from irscales import measures as M
from irscales.exact import to_fraction

__all__ = ["counting_depth", "countable", "phi_runs", "ranked_runs", "n_distinct", "CountedScale", "MAX_HALF",
           "graded_rbp_tie"]

MAX_HALF = 26  # half tables of 2^26 int64 + float64 entries (1 GB): the memory bound of the RBP count
_TIES = ("unq", "min", "max", "mid")
_EPS = 2.0**-52  # a bound on the relative rounding error of one float64 operation


def _numerator(m: M.Measure) -> M.Measure:
    from irscales.enumeration import _numerator as num  # R → P (same order and ties on one topic)
    return num(m)


def _rbp_half_bound(p: Fraction, c: int = 1) -> int:
    """Largest half length L with c·V_L = c·Σ_{i≤L} a^{i−1} b^{L−i} < 2^62 and (c+1)^L ≤ 2^MAX_HALF."""
    a, b = p.numerator, p.denominator
    L = 0
    while (c + 1) ** (L + 1) <= 2**MAX_HALF and c * sum(a**i * b ** (L - i) for i in range(L + 1)) < 2**62:
        L += 1
    return L


def graded_rbp_tie(p, c: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Two runs of length 2 over grades 0..c with the same graded RBP at p = a/b (lowest terms), or
    None when there are none at any N (b > c; proof in the module docstring). Runs of length N > 2
    extended by zeros tie as well."""
    q = to_fraction(p)
    a, b = q.numerator, q.denominator
    if not 0 < q < 1:
        raise ValueError(f"graded RBP needs 0 < p < 1, got p={p!r}")
    return ((a, 0), (0, b)) if b <= c else None


def counting_depth(measure: M.Measure | str, c: int = 1) -> tuple[int, str]:
    """The largest run length N at which φ of ``measure`` is counted exactly here (``math.inf``:
    any N), and why not further. 0 when this module cannot count the measure."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    if type(m) is M.GP and c >= 1:
        return math.inf, "closed form (sum of grades; counts are coefficients of (1 + x + … + x^c)^N)"
    if type(m) is M.GRBP and c >= 1:
        p = to_fraction(m.p)
        if graded_rbp_tie(p, c) is not None:
            return 0, (f"graded RBP with p = {p} ties over grades 0..{c} (denominator {p.denominator} ≤ {c}), "
                       "so counting runs does not count distinct values")
        L = _rbp_half_bound(p, c)
        return 2 * L, (f"meet in the middle needs both half tables of {c + 1}^⌈N/2⌉ exact int64 keys; beyond "
                       f"N = {2 * L} they exceed 2^{MAX_HALF} entries or 62 bits")
    if c != 1:
        return 0, "counting covers binary runs only (graded: gP, and gRBP without ties)"
    num = _numerator(m)
    if isinstance(num, M.P) and num.k is None and type(num) is M.P:
        return math.inf, "closed form (binomial counts)"
    if type(num) is M.RR:
        return math.inf, "closed form (rank of the first relevant document)"
    if type(num) is M.RBP:
        p = to_fraction(num.p)
        if p <= Fraction(1, 2):
            return math.inf, "closed form (p ≤ 1/2: runs are ordered by their run id)"
        L = _rbp_half_bound(p)
        why = (f"meet in the middle needs both half tables of 2^⌈N/2⌉ exact int64 keys; beyond N = {2 * L} "
               + ("they exceed the memory bound of 2^%d entries" % MAX_HALF if L == MAX_HALF
                  else f"the keys Σ a^(i−1) b^(L−i) of p = {p} exceed 62 bits"))
        return 2 * L, why
    if type(num) is M.DCG and num.discount == "jk" and num.gains == "binary" and float(num.base) == int(num.base) \
            and int(num.base) >= 2:
        B = int(num.base)
        tie = _dcg_new_tie_depth(B)
        mem = B + 2 * MAX_HALF
        if tie - 1 <= mem:
            return tie - 1, (f"from N = {tie} on ranks of one class tie in new ways ({_dcg_new_tie_example(B)}), "
                             "so canonical runs no longer count distinct values")
        return mem, f"meet in the middle over ranks {B + 1}..N needs half tables of at most 2^{MAX_HALF} entries"
    return 0, f"no counting rule for {m!r} (counted: P, R, RR, RBP with rational p, DCG/nDCG with the JK discount)"


def countable(measure: M.Measure | str, N: int, c: int = 1) -> bool:
    """Whether φ of ``measure`` at run length N is counted here (no scale built)."""
    return 1 <= N <= counting_depth(measure, c)[0]


# ------------------------------------------------------------------------------- closed forms


def _bits(rel: np.ndarray) -> np.ndarray:
    return (np.asarray(rel) > 0)


def _as_ints(x: np.ndarray, big: bool) -> np.ndarray:
    return x.astype(object) if big else x.astype(np.int64)


def _finish(below: np.ndarray, ties_count: np.ndarray, unq: np.ndarray, ties: str) -> np.ndarray:
    if ties == "unq":
        return unq
    if ties == "min":
        return below + 1
    if ties == "max":
        return below + ties_count
    lo, hi = below + 1, below + ties_count
    return (lo + hi) / 2 if lo.dtype != object else np.array([Fraction(int(x) + int(y), 2) for x, y in
                                                               zip(lo, hi)], dtype=object)


def _phi_p(bits: np.ndarray, N: int, ties: str) -> np.ndarray:
    k = bits.sum(axis=1)
    big = N > 61
    cum = [0]
    for j in range(N + 1):
        cum.append(cum[-1] + math.comb(N, j))
    cum_a = np.array(cum, dtype=object if big else np.int64)
    comb_a = np.array([math.comb(N, j) for j in range(N + 1)], dtype=object if big else np.int64)
    return _finish(cum_a[k], comb_a[k], (k + 1).astype(np.int64), ties)


def _phi_rr(bits: np.ndarray, N: int, ties: str) -> np.ndarray:
    any_ = bits.any(axis=1)
    first = np.where(any_, np.argmax(bits, axis=1) + 1, N + 1)  # N + 1: no relevant document
    big = N > 61
    pw = np.array([2 ** (N - f) if f <= N else 0 for f in range(N + 2)], dtype=object if big else np.int64)
    cnt = np.array([2 ** (N - f) if f <= N else 1 for f in range(N + 2)], dtype=object if big else np.int64)
    below = pw[first]  # 2^{N−f} runs below 1/f; none below 0
    return _finish(below, cnt[first], (N + 2 - first).astype(np.int64), ties)


@functools.lru_cache(maxsize=16)
def _grade_sum_counts(N: int, c: int) -> tuple[int, ...]:
    """Number of runs of length N over grades 0..c with each grade sum 0..cN: (1 + x + … + x^c)^N."""
    poly = [1]
    for _ in range(N):
        nxt = [0] * (len(poly) + c)
        for j, v in enumerate(poly):
            for g in range(c + 1):
                nxt[j + g] += v
        poly = nxt
    return tuple(poly)


def _phi_gp(grades: np.ndarray, N: int, c: int, ties: str) -> np.ndarray:
    t = grades.sum(axis=1)
    cnt = _grade_sum_counts(N, c)
    big = (c + 1) ** N >= 2**62
    cum = np.array([0] + list(itertools.accumulate(cnt)), dtype=object if big else np.int64)
    cnt_a = np.array(cnt, dtype=object if big else np.int64)
    return _finish(cum[t], cnt_a[t], (t + 1).astype(np.int64), ties)


def _run_id_big(bits: np.ndarray) -> np.ndarray:
    N = bits.shape[1]
    if N <= 62:
        return bits.astype(np.int64) @ (np.int64(1) << np.arange(N - 1, -1, -1, dtype=np.int64))
    return np.array([int("".join("1" if x else "0" for x in row), 2) for row in bits], dtype=object)


# --------------------------------------------------------------------- RBP, meet in the middle


@functools.lru_cache(maxsize=3)
def _half_table(a: int, b: int, L: int, c: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Sorted exact keys V_L(x) = Σ_{i≤L} x_i a^{i−1} b^{L−i} of all (c+1)^L runs x of length L,
    their float64 images (each within 2^-52 relative of the key; non-decreasing), and a bucket index
    for fast searches: ``start[k]`` = number of floats below k·width, k = 0..2^L."""
    w = [a**i * b ** (L - 1 - i) for i in range(L)]
    if c * sum(w) >= 2**62:
        raise OverflowError(f"V_{L} for p = {a}/{b} exceeds 62 bits")
    v = np.zeros(1, np.int64)
    for wi in w:  # v, v + wi, … are each sorted: the stable sort (timsort) merges c + 1 runs in O(n log c)
        v = np.sort(np.concatenate([v + np.int64(g * wi) for g in range(c + 1)]), kind="stable")
    vf = v.astype(np.float64)  # int → float rounding is monotone, so the floats stay sorted
    return (v, vf) + _bucket_index(vf)


def _bucket_index(vf: np.ndarray) -> tuple[np.ndarray, float]:
    """``start[k]`` = number of sorted floats below k·width, k = 0..len(vf), for :func:`_search`."""
    width = max(float(vf[-1]), 1.0) / len(vf)
    return np.searchsorted(vf, np.arange(len(vf) + 1) * width, "left").astype(np.int32), width


def _search(vf: np.ndarray, start: np.ndarray, width: float, t: np.ndarray, band: float):
    """For thresholds t: ``np.searchsorted(vf, t − band, "left")``, and which thresholds have a float
    in [t − band, t + band) (undecided by floats). The bucket index gives a position with only smaller
    floats before it, then each search steps forward while vf[pos] < t − band (~1 step on average)."""
    n = len(vf)
    tl = t - band
    # shrinking the quotient by 1e-12 keeps the edge k·width ≤ t − band despite rounding (t ≤ 0: k = 0),
    # so start[k] never passes the answer
    k = tl * (1 / width) * (1 - 1e-12)
    np.clip(k, 0, len(start) - 1, out=k)
    pos = start[k.astype(np.int64)].astype(np.int64)
    v = vf.take(pos, mode="clip")
    v[pos >= n] = np.inf
    act = np.nonzero(v < tl)[0]
    while act.size:
        pos[act] += 1
        p = pos[act]
        vv = vf.take(p, mode="clip")
        vv[p >= n] = np.inf
        v[act] = vv
        act = act[vv < tl[act]]
    return pos, v < t + band


def _half_keys(bits: np.ndarray, a: int, b: int) -> np.ndarray:
    L = bits.shape[1]
    w = np.array([a**i * b ** (L - 1 - i) for i in range(L)], dtype=np.int64)
    return bits.astype(np.int64) @ w


def _split(N: int, n_queries: int = 1 << 20) -> int:
    """Top ranks of the split. A query scans the top halves within the bottom part's range of its
    value, about (2p)^h of them, so one rank less on top is ~1/(2p) faster while the bottom table
    doubles (its build: ~3 s and 3 GB at peak for 2^26): used from N = 46 on for 1,000 queries or
    more, while the bottom keeps at most 2^MAX_HALF entries."""
    h = N // 2
    return h - 1 if N >= 46 and n_queries >= 1000 and N - h + 1 <= MAX_HALF else h


def _below_rbp(bits: np.ndarray, p: Fraction, progress: bool = False, workers: int | None = None,
               c: int = 1) -> np.ndarray:
    """Exact number of runs over grades 0..c with a smaller (graded) RBP than each row of ``bits``
    (shape (n, N); binary for c = 1)."""
    a, b = p.numerator, p.denominator
    N = bits.shape[1]
    h = _split(N, len(np.unique(bits, axis=0))) if c == 1 else N // 2
    qx = _half_keys(bits[:, :h], a, b) if h else np.zeros(len(bits), np.int64)
    qy = _half_keys(bits[:, h:], a, b)
    pairs, inv = np.unique(np.stack([qx, qy], 1), axis=0, return_inverse=True)
    if h:
        _half_table(a, b, h, c)  # built before forking, so worker processes share the tables
    _half_table(a, b, N - h, c)
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    step = 64
    parts = [pairs[i:i + step] for i in range(0, len(pairs), step)]
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(pairs), desc=f"RBP p={p} N={N} (counting)", leave=False)
    out = []
    try:
        if workers > 1 and N >= 36 and len(parts) > 1:
            import multiprocessing as mp_
            from concurrent.futures import ProcessPoolExecutor
            ctx = mp_.get_context("fork" if "fork" in mp_.get_all_start_methods() else "spawn")
            with ProcessPoolExecutor(workers, mp_context=ctx) as ex:
                for part, res in zip(parts, ex.map(_below_pairs, parts, *zip(*[(a, b, N, h, c)] * len(parts)))):
                    out.append(res)
                    if bar is not None:
                        bar.update(len(part))
        else:
            for part in parts:
                out.append(_below_pairs(part, a, b, N, h, c))
                if bar is not None:
                    bar.update(len(part))
    finally:
        if bar is not None:
            bar.close()
    res = np.concatenate(out) if out else np.empty(0, np.int64)
    return res[inv.reshape(-1)]


def _below_pairs(pairs: np.ndarray, a: int, b: int, N: int, h: int, c: int = 1) -> np.ndarray:
    """Runs below each query given by its (top key, bottom key) pair for a split after rank h."""
    Lb = N - h
    xt, vt = _half_table(a, b, h, c)[:2] if h else (np.zeros(1, np.int64), np.zeros(1))
    yt, wt, start, width = _half_table(a, b, Lb, c)
    B1, A1 = b**Lb, a**h  # K = B1·V_h(top) + A1·V_{N−h}(bottom)
    rho = float(Fraction(A1, B1))  # bottom → top units, relative error ≤ ε
    n_bot = (c + 1) ** Lb
    ymax = float(yt[-1])
    umax = float(xt[-1]) + rho * ymax
    # Error bounds (ε = 2^-52 per operation, all quantities ≥ 0): a table float is within ε of its
    # key; u_q = fl(x_q + fl(ρ·y_q)) is within 5ε·umax of the exact x_q + ρy_q; the threshold
    # t = fl(fl(u_q − x)/ρ) within (7ε·umax + 2ε·umax)/ρ of (u_q − x)/ρ. Bands of 16ε·umax (top) and
    # 16ε·umax/ρ (bottom) therefore contain every comparison the floats cannot decide.
    band_top = 16 * _EPS * umax
    band_bot = 16 * _EPS * umax / rho
    out = np.empty(len(pairs), np.int64)
    for i, (x_q, y_q) in enumerate(pairs.tolist()):
        k_q = B1 * x_q + A1 * y_q
        u_q = float(x_q) + rho * float(y_q)
        full = int(np.searchsorted(vt, u_q - rho * ymax - band_top, "left"))
        stop = int(np.searchsorted(vt, u_q + band_top, "left"))
        total = full * n_bot
        if stop > full:
            t = ((u_q - vt[full:stop]) / rho)[::-1]  # increasing: searches with sorted keys
            lo, undecided = _search(wt, start, width, t, band_bot)
            total += int(lo.sum())
            amb = np.nonzero(undecided)[0]
            if len(amb):  # bottoms within the band: decided exactly
                n = np.searchsorted(wt, t[amb] + band_bot, "left") - lo[amb]
                top_idx = np.repeat((stop - 1 - amb), n)  # undo the reversal
                bot_idx = np.arange(int(n.sum())) + np.repeat(lo[amb] - np.concatenate([[0], np.cumsum(n)[:-1]]), n)
                xs = xt[top_idx].astype(object) * B1 + yt[bot_idx].astype(object) * A1
                total += int(np.count_nonzero(xs < k_q))
        out[i] = total
    return out


# ------------------------------------------------------------------ DCG, canonical runs + middle


def _dcg_classes(B: int, N: int) -> list[tuple[int, Fraction]]:
    """For ranks 1..N of the JK discount with base B: (class root m, weight in units of u_m), so that
    w_i = weight·u_m with u_m = ln B / ln m (the engine's exact identity, :func:`_dcg_layout`)."""
    from irscales.enumeration import _perfect_root

    r0, kB = _perfect_root(B)
    out = []
    for i in range(1, N + 1):
        if i <= B:  # w_i = 1 = u_{r0}/kB
            out.append((r0, Fraction(1, kB)))
        else:
            m, k = _perfect_root(i)
            out.append((m, Fraction(1, k)))
    return out


@functools.lru_cache(maxsize=8)
def _dcg_tie_scan(B: int, n_max: int = 400) -> tuple[int, str]:
    """The first N at which two canonical runs (c = Σ_{i≤B} rel_i, ranks after B) have the same
    rational coefficient vector, i.e. tie for certain, and an example; (n_max + 1, "") if none."""
    for N in range(B + 1, n_max + 1):
        cls = _dcg_classes(B, N)
        m_new = cls[N - 1][0]  # only the class of the new rank can gain a tie
        ranks = [i + 1 for i in range(B, N) if cls[i][0] == m_new]
        unit = m_new == cls[0][0]
        seen: dict = {}
        for c in range(B + 1 if unit else 1):
            for mask in range(1 << len(ranks)):
                sub = [ranks[j] for j in range(len(ranks)) if mask >> j & 1]
                tot = c * cls[0][1] + sum((cls[r - 1][1] for r in sub), Fraction(0))
                if tot in seen:
                    (c0, s0) = seen[tot]
                    what = lambda c_, s_: " + ".join(  # noqa: E731
                        ([f"{c_} of ranks 1..{B}"] if c_ else []) + [f"rank {r}" for r in s_]) or "nothing"
                    return N, f"{what(c0, s0)} weighs as much as {what(c, sub)}"
                seen[tot] = (c, sub)
    return n_max + 1, ""


def _dcg_new_tie_depth(B: int) -> int:
    return _dcg_tie_scan(B)[0]


def _dcg_new_tie_example(B: int) -> str:
    return _dcg_tie_scan(B)[1]


@functools.lru_cache(maxsize=4)
def _dcg_table(B: int, first: int, last: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Float DCG sums over ranks first..last (1-based, inclusive) of all 2^L subsets, sorted, with the
    subset of each (bit j ↔ rank first + j) and the bucket index of :func:`_search`."""
    w = M.dcg_discount(max(last, 1), B, "jk")[first - 1:last]
    v = np.zeros(1)
    for wi in w:  # entry index = subset bits, lowest bit = rank ``first``
        v = np.concatenate([v, v + wi])
    order = np.argsort(v, kind="stable")
    vs = v[order]
    return (vs, order) + _bucket_index(vs)


def _dcg_exact_order(B: int, cls, vec_a: dict, vec_b: dict) -> int:
    """Sign of value(a) − value(b) for coefficient vectors {class root: Fraction} (0: same vector)."""
    from decimal import Decimal, localcontext

    from irscales.enumeration import TieUndecidable

    d = {m: vec_a.get(m, 0) - vec_b.get(m, 0) for m in set(vec_a) | set(vec_b)}
    d = {m: x for m, x in d.items() if x}
    if not d:
        return 0
    for digits in (60, 120):
        with localcontext() as ctx:
            ctx.prec = digits + 10
            lnb = Decimal(B).ln()
            v = sum((Decimal(x.numerator) / Decimal(x.denominator) * lnb / Decimal(m).ln() for m, x in d.items()),
                    Decimal(0))
            if abs(v) > Decimal(10) ** (-(digits - 5)):
                return 1 if v > 0 else -1
    raise TieUndecidable(f"DCG base {B}: coefficient vectors {vec_a} and {vec_b} could not be separated")


def _dcg_vector(cls, c: int, ranks: list[int]) -> dict:
    vec: dict = {}
    if c:
        vec[cls[0][0]] = c * cls[0][1]
    for r in ranks:
        m, w = cls[r - 1]
        vec[m] = vec.get(m, 0) + w
    return vec


def _phi_dcg(bits: np.ndarray, B: int, ties: str, progress: bool = False) -> np.ndarray:
    N = bits.shape[1]
    U = min(B, N)
    R = N - U
    h = R // 2
    cls = _dcg_classes(B, N)
    top = _dcg_table(B, U + 1, U + h)
    bot = _dcg_table(B, U + h + 1, N)
    t_vs, t_ord = top[0], top[1]
    b_vs, b_ord, start, width = bot
    n_bot = len(b_vs)
    w_rest = M.dcg_discount(N, B, "jk")[U:]
    vmax = U + float(w_rest.sum())
    # every float here is a sum of at most N non-negative weights (each within 4ε relative of its
    # exact value: a log, two divisions) plus one subtraction: within (N + 4)ε·vmax of the exact
    # value, a pair's sum within 2(N + 4)ε·vmax; the band is 16(N + 4)ε·vmax
    band = 16 * (N + 4) * _EPS * max(vmax, 1.0)
    canon = np.concatenate([bits[:, :U].sum(1, keepdims=True), bits[:, U:]], 1).astype(np.int64)
    rows, inv = np.unique(canon, axis=0, return_inverse=True)
    below_unq = np.empty(len(rows), dtype=object)
    below_runs = np.empty(len(rows), dtype=object)
    tie = np.empty(len(rows), dtype=object)
    from tqdm import tqdm

    for qi, row in enumerate(tqdm(rows.tolist(), desc=f"DCG base {B} N={N} (counting)", leave=False,
                                  disable=not progress)):
        c_q, rest = row[0], row[1:]
        q_ranks = [U + 1 + j for j, x in enumerate(rest) if x]
        vec_q = _dcg_vector(cls, c_q, q_ranks)
        x_f = c_q + float(np.dot(np.asarray(rest, float), w_rest)) if R else float(c_q)
        unq, runs = 0, 0
        for c in range(U + 1):
            y = x_f - c
            full = int(np.searchsorted(t_vs, y - b_vs[-1] - band, "left"))
            stop = int(np.searchsorted(t_vs, y + band, "left"))
            cnt = full * n_bot
            if stop > full:
                t = (y - t_vs[full:stop])[::-1]
                lo, undecided = _search(b_vs, start, width, t, band)
                cnt += int(lo.sum())
                for j in np.nonzero(undecided)[0].tolist():
                    i_top = stop - 1 - j
                    hi = int(np.searchsorted(b_vs, t[j] + band, "left"))
                    tb = int(t_ord[i_top])
                    r_top = [U + 1 + k for k in range(h) if tb >> k & 1]
                    for jb in range(int(lo[j]), hi):
                        bb = int(b_ord[jb])
                        r_bot = [U + h + 1 + k for k in range(R - h) if bb >> k & 1]
                        cnt += _dcg_exact_order(B, cls, _dcg_vector(cls, c, r_top + r_bot), vec_q) < 0
            unq += cnt
            runs += math.comb(U, c) * cnt
        below_unq[qi], below_runs[qi], tie[qi] = unq, runs, math.comb(U, c_q)
    inv = inv.reshape(-1)
    big = N > 61
    unq_a = (below_unq[inv] + 1).astype(object if big else np.int64)
    return _finish(below_runs[inv].astype(object if big else np.int64), tie[inv].astype(object if big else np.int64),
                   unq_a, ties)


# --------------------------------------------------------------------------------- interface


def phi_runs(measure: M.Measure | str, rel, ties: str = "unq", *, progress: bool = False,
             workers: int | None = None, c: int = 1) -> np.ndarray:
    """Exact ranked measure φ (FFF21 eq. 2 for ``ties="unq"``; §7.1.3's min/max/mid) of runs
    ``rel`` of shape (..., N), counted without a scale; N is the last axis. Runs are binary (c = 1),
    or graded 0..c for gRBP (the scale of all (c+1)^N runs). Equal to
    :meth:`irscales.enumeration.Scale.phi_runs` wherever both exist (tested).

    int64 results (Python ints in an object array when they can exceed 2^62; ``mid`` gives halves).
    Raises ``ValueError`` when the measure cannot be counted at this N (see :func:`counting_depth`).
    """
    m = M.parse(measure) if isinstance(measure, str) else measure
    if ties not in _TIES:
        raise ValueError(f"ties must be one of {_TIES}, got {ties!r}")
    rel = np.asarray(rel)
    if rel.ndim == 0 or rel.shape[-1] < 1:
        raise ValueError(f"phi_runs: runs must have shape (..., N) with N ≥ 1, got {rel.shape}")
    N = rel.shape[-1]
    limit, why = counting_depth(m, c)
    if N > limit:
        raise ValueError(f"φ of {m.key} is not counted at N={N}" + (f" (at most N={limit})" if limit else "")
                         + f": {why}")
    shape = rel.shape[:-1]
    if type(m) in (M.GRBP, M.GP):
        g = rel.reshape(-1, N)
        if g.size and (g.min() < 0 or g.max() > c or not np.array_equal(g, np.round(g))):
            raise ValueError(f"phi_runs: {m.key} over grades 0..{c} needs integer grades in 0..{c}, "
                             f"found {g.min()}..{g.max()}")
        if type(m) is M.GP:
            return _phi_gp(g.astype(np.int64), N, c, ties).reshape(shape)
        out = _below_rbp(g.astype(np.int64), to_fraction(m.p), progress, workers, c) + 1  # no ties (module doc)
        return (out.astype(float) if ties == "mid" else out).reshape(shape)
    bits = _bits(rel.reshape(-1, N))
    num = _numerator(m)
    if isinstance(num, M.P):
        out = _phi_p(bits, N, ties)
    elif isinstance(num, M.RR):
        out = _phi_rr(bits, N, ties)
    elif isinstance(num, M.DCG):
        out = _phi_dcg(bits, int(num.base), ties, progress)
    else:
        p = to_fraction(num.p)
        below = _run_id_big(bits) if p <= Fraction(1, 2) else _below_rbp(bits, p, progress, workers)
        out = below + 1  # no ties: every tie strategy gives the same rank
        if ties == "mid":
            out = out.astype(float) if out.dtype != object else out
    return out.reshape(shape)


def n_distinct(measure: M.Measure | str, N: int, c: int = 1) -> int:
    """|M(REL^N)| for a counted measure: N + 1 for P, R, RR; 2^N for RBP (no ties, module doc);
    (B + 1)·2^{N−B} for DCG/nDCG with base B (distinct canonical runs, module doc)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    limit, why = counting_depth(m, c)
    if not 1 <= N <= limit:
        raise ValueError(f"{m.key} is not counted at N={N}: {why}")
    if type(m) is M.GRBP:
        return (c + 1) ** N  # no ties when counted (module doc)
    if type(m) is M.GP:
        return c * N + 1
    num = _numerator(m)
    if isinstance(num, M.DCG):  # canonical runs: (B + 1)·2^{N−B} values (3·2^{N−2} for B = 2)
        B = min(int(num.base), N)
        return (B + 1) * 2 ** (N - B)
    return 2**N if isinstance(num, M.RBP) else N + 1


class CountedScale:
    """What :func:`irscales.enumeration.scale` returns for a counted measure beyond the engine's reach:
    the sizes of the scale and the exact :meth:`phi_runs`, with nothing stored (``method="count"``)."""

    method = "count"
    mode = "count"
    directory = None

    def __init__(self, measure: M.Measure, N: int, rb: float | None = None, c: int = 1):
        if not countable(measure, N, c):
            raise ValueError(f"{measure.key} is not counted at N={N}: {counting_depth(measure, c)[1]}")
        self.measure, self.N, self.c, self.rb = measure, N, c, rb

    def __repr__(self) -> str:
        return f"CountedScale({self.measure.key}, N={self.N}, n_distinct={self.n_distinct})"

    @property
    def n_runs(self) -> int:
        return (self.c + 1) ** self.N

    @property
    def n_distinct(self) -> int:
        return n_distinct(self.measure, self.N, self.c)

    def phi_runs(self, rel, ties: str = "unq") -> np.ndarray:
        rel = np.asarray(rel)
        if rel.ndim == 0 or rel.shape[-1] != self.N:
            raise ValueError(f"phi_runs: runs must have shape (..., {self.N}), got {rel.shape}")
        return phi_runs(self.measure, rel, ties, c=self.c)


def ranked_runs(measure: M.Measure | str, rel, ties: str = "unq", *, progress: bool = False, c: int = 1,
                **scale_kwargs) -> np.ndarray:
    """φ of runs ``rel`` (..., N): counted when :func:`countable`, else from the engine's scale
    (``scale_kwargs`` go to :func:`irscales.enumeration.scale`; it may build and cache the scale)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    N = np.asarray(rel).shape[-1]
    if countable(m, N, c):
        return phi_runs(m, rel, ties, progress=progress, c=c)
    from irscales.enumeration import scale
    return scale(m, N, c=c, progress=progress, **scale_kwargs).phi_runs(rel, ties)

