"""Counting pairs of fixed-point half sums below thresholds: DCG φ by meet in the middle (FFF21 §8).

The value of a binary run under DCG with the JK discount and integer base B is c + x + y: c relevant
documents among the U = min(B, N) ranks of weight 1, x and y sums of the weights 1/log_B(i) over the
relevant ranks of a top and a bottom part of the remaining R = N − U ranks
(:mod:`irscales.enumeration.counting` has the structure and the tie argument). Runs below a query are
#{(x, y) : x + y < t} for the thresholds t = value(query) − c, c = 0..U. Graded DCG counts the same way over
class items (:func:`item_table`), weighted by their multiplicities.

**Exactness.** Every weight is held as the integer W_i = round(2^F·w_i), from 50-digit decimal logarithms,
so |W_i − 2^F·w_i| < 1 (the rounding ≤ 1/2 plus the decimals' error 2^61·10^-49). A half sum is then an
exact int64 (F is chosen so that every sum, threshold and sentinel stays below 2^62), and for any two runs
a, b with integer parts c_a, c_b the integer D = Σ (a_i − b_i)·W_i + (c_a − c_b)·2^F differs from
2^F·(value(a) − value(b)) by less than the number of ranks where they differ, at most R. Hence D < −R
proves a below b, D > R proves a above b, and only the pairs with |D| ≤ R are left to the exact decision
(:func:`irscales.enumeration._dcg.log_sum_sign`): for the real TREC-8 runs at N = 50, 5,639 pairs over
16,140 thresholds, 5,380 of them a query's own value (skipped) and 259 decided at 60 digits
(docs/benchmarks.md). The counts are comparisons of exact integers: no float is involved.

**Speed.** A threshold costs one bottom-table position per top entry inside its window (the tops whose
t − x lies within the bottom's range), and DCG's weights decay slowly, so the window is most of the top
table. The split is therefore unbalanced (:func:`bottom_ranks`: a large bottom table, a small top one) and
the count is blocked: the bottom table is cut into blocks of :data:`BLOCK` sums that stay in the CPU's
cache while every threshold takes its positions in them, through a per-block bucket index of 16-bit
offsets, each threshold walking down the sorted top table block after block. Work: (build + one pass)
over the bottom table, plus #thresholds × window lookups, all in cache.
"""
from __future__ import annotations

import functools
import math
import os
import time
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from irscales._jit_cache import note_compiling, numba_module
from irscales._progress import bar as progress_bar

__all__ = ["BLOCK", "MAX_BOTTOM", "TOL_SCALE", "FLAG_ROOM", "STEP_SECONDS", "frac_bits", "fixed_log_terms",
           "fixed_weights", "sorted_sums", "bottom_ranks",
           "BottomTable", "bottom_table", "item_table", "item_bottom_table", "item_weights", "count_pairs_below",
           "subsets_with_sum"]

BLOCK = 1 << 15  # bottom sums per cache block (256 KiB of int64 + 64 KiB of index)
MAX_BOTTOM = 29  # at most 2^29 bottom sums: 4 GiB of int64 + 1 GiB of index (5.4 GB peak RSS measured at N = 50)
SENTINEL = 1 << 62  # above every sum (F keeps them below 2^61)
TOL_SCALE = 1  # tests widen the exact-decision band with it; 1 is the proven band
STEP_SECONDS = 1.0  # a count's calls of the kernel take about 1 to 4 s each (the progress bar moves between)
FLAG_ROOM = 64  # undecided pairs a thread keeps per threshold group beyond K / threads (more: counted again)


def frac_bits(vmax: float) -> int:
    """Fraction bits F with (vmax + 1)·2^F ≤ 2^61: every sum and threshold fits with room to spare."""
    return 61 - max(1, math.ceil(math.log2(vmax + 1.0)))


def fixed_log_terms(B: int, terms: list[tuple[Fraction | int, int]], F: int) -> np.ndarray:
    """round(2^F·q·u_m) for each (q, m), u_m = ln B / ln m (u_B = 1), from 50-digit logarithms: each
    within one unit of 2^F·q·u_m, the bound the count's band rests on. int64."""
    with localcontext() as ctx:
        ctx.prec = 50
        lnB = Decimal(B).ln()
        scale = Decimal(2) ** F
        out = []
        for q, m in terms:
            q = Fraction(q)
            u = Decimal(1) if m == B else lnB / Decimal(m).ln()
            out.append(int((Decimal(q.numerator) / Decimal(q.denominator) * u * scale).to_integral_value()))
        return np.array(out, dtype=np.int64)


def fixed_weights(B: int, first: int, last: int, F: int) -> np.ndarray:
    """round(2^F / log_B(i)) for ranks first..last (1-based, inclusive; weight 1 up to rank B), int64."""
    return fixed_log_terms(B, [(1, B if i <= B else i) for i in range(first, last + 1)], F)


def _sorted_sums_py(W, values, masks, with_masks):
    """All 2^L subset sums of W sorted, in ``values`` (length 2^L; its mask, bit j ↔ W[j], in ``masks``):
    the sorted sums of the first r weights and the same plus W[r] are merged from the back, in place
    (a write at i + j + 1 never overwrites an entry still to be read)."""
    values[0] = 0
    if with_masks:
        masks[0] = 0
    s = 1
    for r in range(len(W)):
        w = W[r]
        bit = np.uint64(1) << np.uint64(r)
        i = s - 1
        j = s - 1
        p = 2 * s - 1
        while j >= 0:
            a = values[i] if i >= 0 else -SENTINEL
            b = values[j] + w
            if a > b:
                values[p] = a
                if with_masks:
                    masks[p] = masks[i]
                i -= 1
            else:
                values[p] = b
                if with_masks:
                    masks[p] = masks[j] | bit
                j -= 1
            p -= 1
        s *= 2


def _block_index_py(bot, nb, S, sh, idx):
    """Per block g of S sums: a shift sh[g] with (hi − lo) >> sh[g] < S, hi the next block's first sum (the
    last sum for the last block), and idx[g, u] = number of the block's sums below lo + (u << sh[g])."""
    nblk = len(sh)
    for g in prange(nblk):
        s0 = g * S
        e0 = min(nb, s0 + S)
        lo = bot[s0]
        hi = bot[e0] if e0 < nb else bot[nb - 1]
        k = 0
        while ((hi - lo) >> k) >= S:
            k += 1
        sh[g] = k
        p = s0
        for u in range(S + 1):
            edge = lo + (u << k)
            while p < e0 and bot[p] < edge:
                p += 1
            idx[g, u] = p - s0


def _count_blocks_py(top, bot, nb, S, sh, idx, s_thr, span, g_start, g_stop, ngroups, cap, part, flags, nfl,
                     weighted, wt, cwt, cwb, wb_total, part_w):
    """For thresholds s_thr (sorted): part[grp, k] += #{(i, j): top[i] + bot[j] < s_thr[k]} over the bottom
    blocks g_start..g_stop−1 (split into ``ngroups`` runs of blocks, one per thread), plus every bottom
    for the tops past the last block; every pair with a sum in [s, s + span] goes to ``flags[grp]`` as
    (k, i, j), ``nfl[grp]`` of them (more than ``cap``: only counted). ``weighted``: also
    part_w[grp, k] += Σ wt[i]·wb[j] over the same pairs (``cwt``, ``cwb``: prefix sums of the weights,
    ``wb_total`` = Σ wb; a scalar, since numba may hoist an invariant read like cwb[nb] out of its branch
    and the unweighted call passes one-entry arrays)."""
    K = len(s_thr)
    nblk_all = len(sh)
    per = (g_stop - g_start + ngroups - 1) // ngroups
    for grp in prange(ngroups):
        g0 = g_start + grp * per
        g1 = min(g_stop, g0 + per)
        if g0 >= g1:
            continue
        # I[k]: tops whose z = s − top is above this block's first sum; nxt[k] the largest of them
        I = np.empty(K, np.int64)
        nxt = np.empty(K, np.int64)
        lo0 = bot[g0 * S]
        for k in range(K):
            I[k] = np.searchsorted(top, s_thr[k] - lo0)
            nxt[k] = top[I[k] - 1] if I[k] > 0 else -SENTINEL
        out = part[grp]
        for g in range(g0, g1):
            s0 = g * S
            e0 = min(nb, s0 + S)
            lo = bot[s0]
            hi = bot[e0] if e0 < nb else bot[nb - 1]
            kk = sh[g]
            for k in range(K):
                s = s_thr[k]
                tv = nxt[k]
                if tv < s - hi:  # no top has its boundary in this block
                    continue
                i = I[k] - 1
                acc = 0
                acc_w = 0
                while True:
                    z = s - tv  # lo < z ≤ hi: its position is in this block
                    p = idx[g, (z - lo) >> kk] + s0
                    q = p + (bot[p] < z) + (bot[p + 1] < z)
                    while bot[q] < z:
                        q += 1
                    acc += q
                    if weighted:
                        acc_w += wt[i] * cwb[q]
                    if bot[q] <= z + span:
                        r = q
                        while r < nb and bot[r] <= z + span:
                            f = nfl[grp]
                            if f < cap:
                                flags[grp, f, 0] = k
                                flags[grp, f, 1] = i
                                flags[grp, f, 2] = r
                            nfl[grp] = f + 1
                            r += 1
                    i -= 1
                    if i < 0:
                        tv = -SENTINEL
                        break
                    tv = top[i]
                    if tv < s - hi:
                        break
                out[k] += acc
                if weighted:
                    part_w[grp, k] += acc_w
                I[k] = i + 1
                nxt[k] = tv
            if g == nblk_all - 1:
                for k in range(K):  # z above the last sum: every bottom counts
                    out[k] += I[k] * nb
                    if weighted:
                        part_w[grp, k] += cwt[I[k]] * wb_total


# plain Python until _kernels compiles them (the kernels then run as written, only compiled and threaded)
prange = range


@functools.lru_cache(maxsize=1)
def _kernels():
    numba = numba_module()

    g = globals()
    g["prange"] = numba.prange
    compiled = (numba.njit(cache=True)(_sorted_sums_py), numba.njit(cache=True, parallel=True)(_block_index_py),
                numba.njit(cache=True, parallel=True)(_count_blocks_py))
    note_compiling("the counting kernels", 10, compiled)
    return compiled


def sorted_sums(W: np.ndarray, with_masks: bool = True, pad: int = 0) -> tuple[np.ndarray, np.ndarray | None]:
    """All 2^len(W) subset sums of the int64 weights W, sorted, and (``with_masks``) each sum's subset
    (bit j ↔ W[j], uint64); ``pad`` SENTINEL entries follow the sums (the count reads past the end)."""
    n = 1 << len(W)
    values = np.empty(n + pad, np.int64)  # the kernel writes every sum
    values[n:] = SENTINEL
    masks = np.zeros(n if with_masks else 1, np.uint64)
    _kernels()[0](np.ascontiguousarray(W, dtype=np.int64), values, masks, with_masks)
    return values, (masks if with_masks else None)


def bottom_ranks(R: int, n_thresholds: int) -> int:
    """Ranks in the bottom table: the count costs about 20 ns per bottom sum (build, index, one pass) plus
    2.5 ns per threshold and top entry (half of the tops are in a window, ~5 ns a lookup), minimised at
    2^(2L) = K·2^R / 8; at least half of the ranks, at most :data:`MAX_BOTTOM` and at most what a
    quarter of this machine's memory holds (≈ 11 bytes a bottom sum with its index)."""
    best = (math.log2(max(n_thresholds, 1)) + R - 3) / 2
    return int(min(R, MAX_BOTTOM, _memory_ranks(), max(math.ceil(R / 2), round(best))))


def _memory_ranks() -> int:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no sysconf: the fixed cap alone
        return MAX_BOTTOM
    return max(1, int(math.log2(total / 4 / 11)))


class BottomTable:
    """Sorted bottom sums (``values``: n sums, then two SENTINEL entries) with the per-block index."""

    def __init__(self, values: np.ndarray, n: int, block: int | None = None):
        self.values = values
        self.n = n
        self.block = min(block or BLOCK, self.n)
        nblk = -(-self.n // self.block)
        self.sh = np.zeros(nblk, np.int64)  # the shifts and offsets are filled in by the compiled builder
        self.idx = np.empty((nblk, self.block + 1), np.uint16 if self.block < 2**16 else np.int64)
        _kernels()[1](self.values, self.n, self.block, self.sh, self.idx)

    @property
    def n_blocks(self) -> int:
        return len(self.sh)


def bottom_table(W: np.ndarray, block: int | None = None) -> BottomTable:
    """The :class:`BottomTable` of all subset sums of the int64 weights W (blocks of ``block`` sums,
    default :data:`BLOCK`)."""
    values, _ = sorted_sums(np.asarray(W, dtype=np.int64), with_masks=False, pad=2)
    return BottomTable(values, 1 << len(W), block)


def item_table(items: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The sums of one value from each item (int64 values), all Π_t k_t combinations, sorted, and each
    sum's index Σ_t j_t·Π_{s<t} k_s for value j_t of item t."""
    v = np.zeros(1, np.int64)
    for vals in items:
        v = (np.asarray(vals, dtype=np.int64)[:, None] + v[None, :]).ravel()
    order = np.argsort(v, kind="stable")
    return v[order], order.astype(np.int64)


def item_bottom_table(sorted_values: np.ndarray, block: int | None = None) -> BottomTable:
    """The :class:`BottomTable` of sorted int64 sums (an :func:`item_table`'s)."""
    return BottomTable(np.concatenate([sorted_values, [SENTINEL, SENTINEL]]).astype(np.int64), len(sorted_values),
                       block)


def item_weights(order: np.ndarray, mults: list[np.ndarray]) -> np.ndarray:
    """Π_t mults[t][j_t] for each entry of an :func:`item_table` (``order``: the entries' indices)."""
    w = np.ones(len(order), np.int64)
    rest = order.copy()
    for m in mults:
        rest, j = np.divmod(rest, len(m))
        w *= np.asarray(m, dtype=np.int64)[j]
    return w


def count_pairs_below(top: np.ndarray, bot: BottomTable, t: np.ndarray, tol: int, threads: int | None = None,
                      progress: str | None = None, cap: int | None = None, weights: tuple | None = None,
                      ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """For int64 thresholds t (any order): the number of pairs (top entry, bottom sum) with a sum below
    t − tol; their weighted number Σ w_top·w_bot when ``weights`` = (w_top, w_bot) are given per sorted
    entry (int64; else None); and every pair with a sum within [t − tol, t + tol] as rows (threshold
    index, top index, bottom index) — the pairs whose comparison with t the fixed point cannot decide.
    ``top``: sorted int64. ``progress``: a tqdm description (bottom blocks done). ``cap``: room for undecided
    pairs per thread group and call (default: the call's thresholds / groups + FLAG_ROOM; more: that call again)."""
    count = _kernels()[2]
    import numba

    if threads:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    t = np.asarray(t, dtype=np.int64)
    order = np.argsort(t, kind="stable")
    s_thr = np.ascontiguousarray(t[order] - tol)
    K = len(t)
    span = 2 * tol
    ngroups = 4 * numba.get_num_threads()
    cap = cap if cap is not None else K // ngroups + FLAG_ROOM
    top = np.ascontiguousarray(top, dtype=np.int64)
    weighted = weights is not None
    if weighted:
        wt = np.ascontiguousarray(weights[0], dtype=np.int64)
        cwt = np.concatenate([[0], np.cumsum(wt)]).astype(np.int64)
        cwb = np.concatenate([[0], np.cumsum(np.asarray(weights[1], dtype=np.int64))]).astype(np.int64)
    else:
        wt = cwt = cwb = np.zeros(1, np.int64)
    total = np.zeros(K, np.int64)
    total_w = np.zeros(K, np.int64)
    found = []
    nblk = bot.n_blocks
    # The work per block varies a hundredfold (the sparse tails of the sums: the first few blocks took 26 s of
    # 70 on the TREC-8 runs at N = 50, and 32 equal calls left the bar at 0 % for 40 s), so each call takes
    # a stretch of blocks and a slice of the thresholds sized by time: while calls take under STEP_SECONDS,
    # twice the thresholds (up to all), then twice the blocks; above 4 × that, half the blocks (down to one
    # per thread group), then half the thresholds. The bar moves every few seconds, for a few dozen calls.
    g, step, kc = 0, ngroups, max(1, K // 16)
    with progress_bar(nblk, progress or "", progress is not None, unit="block", unit_scale=True) as bar:
        while g < nblk:
            g_stop = min(nblk, g + step)
            k0 = 0
            while k0 < K:
                k1 = min(K, k0 + kc)
                started = time.perf_counter()
                c = cap if cap is not None else (k1 - k0) // ngroups + FLAG_ROOM
                while True:
                    part = np.zeros((ngroups, k1 - k0), np.int64)
                    part_w = np.zeros((ngroups, k1 - k0), np.int64)
                    flags = np.zeros((ngroups, c, 3), np.int64)
                    nfl = np.zeros(ngroups, np.int64)
                    count(top, bot.values, bot.n, bot.block, bot.sh, bot.idx, s_thr[k0:k1], span, g, g_stop, ngroups,
                          c, part, flags, nfl, weighted, wt, cwt, cwb, int(cwb[bot.n]) if weighted else 0, part_w)
                    if nfl.max() <= c:
                        break
                    c = int(nfl.max())  # more undecided pairs than room: this stretch again with room for all
                total[k0:k1] += part.sum(0)
                if weighted:
                    total_w[k0:k1] += part_w.sum(0)
                for grp in range(ngroups):
                    if nfl[grp]:
                        f = flags[grp, :nfl[grp]].copy()
                        f[:, 0] += k0
                        found.append(f)
                bar.update((g_stop - g) * (k1 - k0) / K)
                took = time.perf_counter() - started
                if took < STEP_SECONDS:
                    kc, step = (min(K, 2 * kc), step) if kc < K else (kc, 2 * step)
                elif took > 4 * STEP_SECONDS:
                    kc, step = (kc, step // 2) if step > ngroups else (max(1, kc // 2), step)
                k0 = k1
            g = g_stop
    # the kernel visits the tops with z = s − top above the smallest bottom sum; those just below it
    # (z ≥ bot[0] − span) count nothing but can still have bottoms within the band
    b0, bv = int(bot.values[0]), bot.values
    lo_i = np.searchsorted(top, s_thr - b0, "left")
    hi_i = np.searchsorted(top, s_thr - b0 + span, "right")
    for k in np.nonzero(hi_i > lo_i)[0].tolist():
        for i in range(int(lo_i[k]), int(hi_i[k])):
            z = int(s_thr[k]) - int(top[i])
            r = 0
            while r < bot.n and bv[r] <= z + span:
                found.append(np.array([[k, i, r]], np.int64))
                r += 1
    counts = np.empty(K, np.int64)
    counts[order] = total
    wcounts = None
    if weighted:
        wcounts = np.empty(K, np.int64)
        wcounts[order] = total_w
    fl = np.concatenate(found) if found else np.zeros((0, 3), np.int64)
    fl[:, 0] = order[fl[:, 0]]
    return counts, wcounts, fl


def subsets_with_sum(W: np.ndarray, value: int) -> list[int]:
    """Every subset (bit j ↔ W[j]) of the int64 weights W whose sum is ``value``, ascending: meet in the
    middle over two halves of W (used to name the rare bottom sums left to the exact decision)."""
    W = np.asarray(W, dtype=np.int64)
    h = len(W) // 2
    lv, lm = sorted_sums(W[:h])
    rv, rm = sorted_sums(W[h:])
    need = value - lv
    a = np.searchsorted(rv, need, "left")
    b = np.searchsorted(rv, need, "right")
    out = []
    for i in np.nonzero(b > a)[0].tolist():
        out += [int(lm[i]) | int(rm[j]) << h for j in range(a[i], b[i])]
    return sorted(out)
