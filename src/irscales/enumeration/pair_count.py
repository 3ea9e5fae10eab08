"""Counting pairs of double-double half sums below thresholds, weighted: graded DCG φ by meet in the middle (FFF21 §8).

Binary DCG uses the exact fixed-point count of :mod:`irscales.enumeration.fixed_count` (unweighted, 8-byte
sums, cache-blocked); graded DCG needs the items' multiplicities as weights and keeps this pass.

For the JK discount with integer base B the value of a canonical run is c + x + y, with x a sum of
weights 1/log_B(i) over the relevant ranks of the top part and y over the bottom part
(:mod:`irscales.enumeration.counting` has the structure; :mod:`irscales.enumeration.meet` the split).
Runs below a query are then #{(x, y) : x + y < t} for t = value(query) − c, c = 0..B. A threshold
costs one pass over the top entries whose bottom count is neither 0 nor all (Θ(2^{N/2}) work per
query, which no split avoids: every top entry in the window has its own boundary in the bottom table).
This module makes that pass cheap and exact:

* every weight and every half sum is held as a double-double (hi + lo, ≈ 106 bits): the weights from
  40-digit decimal logarithms, the sums by error-free additions;
* a pass runs over the top entries in compiled code (numba, threads over thresholds): the position of
  t − x among the bottom sums comes from a bucket index over the float64 parts (``cum[k]`` = number of
  bottom sums whose bucket ``floor(y·inv)`` is below k; the bucket function is monotone, so this count
  is exact in floats), then the neighbours within the float band (8ε·vmax: the float parts are within
  2ε·vmax of the true sums) are decided in double-double, whose error is below 64(N + 4)ε²·vmax;
* the pairs left within that tolerance (in practice only a query's own value, c = c_q) are returned
  to be decided exactly (:func:`irscales.enumeration.dcg.log_sum_sign`).

Tests: ``tests/test_pair_count.py`` (tables, brute force, compiled = plain code) and ``tests/test_counting.py``
(every count against the enumeration engine's φ).
"""
from __future__ import annotations

import functools
from decimal import Decimal, localcontext

import numpy as np

__all__ = ["EPS", "FLAG_SLOTS", "dd_of", "dd_add", "dd_weights", "dd_table", "dd_item_table", "item_weights",
           "count_below"]

EPS = 2.0**-52  # a bound on the relative rounding error of one float64 operation
FLAG_SLOTS = 8  # pairs per threshold left for the exact decision; more: the threshold is redone in Python


def dd_of(v: Decimal) -> tuple[float, float]:
    """A decimal as a double-double (hi, lo): hi its nearest float, lo the nearest float to the rest."""
    h = float(v)
    return h, float(v - Decimal(h))


def dd_weights(B: int, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
    """Double-double JK weights 1/log_B(i) for ranks first..last (1-based, inclusive; 1 below rank B + 1)."""
    with localcontext() as ctx:
        ctx.prec = 40
        lnB = Decimal(B).ln()
        dd = [dd_of(Decimal(1) if i <= B else lnB / Decimal(i).ln()) for i in range(first, last + 1)]
    return np.array([h for h, _ in dd], dtype=float), np.array([lo for _, lo in dd], dtype=float)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def dd_add(ah, al, bh, bl):
    """Double-double (ah + al) + (bh + bl), elementwise; error ≤ ε²·(|a| + |b|)."""
    s, e = _two_sum(ah, bh)
    e = e + (al + bl)
    h = s + e
    return h, e - (h - s)


def dd_table(B: int, first: int, last: int, buckets_per_entry: int = 4):
    """All 2^L subset sums of the weights of ranks first..last as double-doubles, sorted by their float
    part: (hi, lo, subset of each entry (bit j ↔ rank first + j), cum, inv) with the bucket index
    ``cum[k]`` = #{entries with floor(hi·inv) < k}, k = 0..n_buckets + 1. Each rank is an item of
    :func:`dd_item_table` taking 0 or its weight, so an entry's index is its subset's bits."""
    wh, wl = dd_weights(B, first, last)
    return dd_item_table(tuple(((0.0, 0.0), (a, b)) for a, b in zip(wh.tolist(), wl.tolist())), buckets_per_entry)


@functools.lru_cache(maxsize=4)
def dd_item_table(items: tuple[tuple[tuple[float, float], ...], ...], buckets_per_entry: int = 4):
    """The sums of one value from each item (values given as double-doubles (hi, lo)), all
    Π_t k_t combinations, sorted by float part with the bucket index of :func:`dd_table`; an entry's
    index is Σ_t j_t·Π_{s<t} k_s for value j_t of item t."""
    h, l = np.zeros(1), np.zeros(1)
    for vals in items:
        vh = np.array([v[0] for v in vals])[:, None]
        vl = np.array([v[1] for v in vals])[:, None]
        nh, nl = dd_add(np.broadcast_to(h, (len(vals), len(h))), np.broadcast_to(l, (len(vals), len(h))), vh, vl)
        h, l = nh.ravel(), nl.ravel()
    return _sorted_table(h, l, buckets_per_entry)


def item_weights(order: np.ndarray, mults: list[np.ndarray]) -> np.ndarray:
    """Π_t mults[t][j_t] for each entry of a :func:`dd_item_table` (``order``: the entries' indices)."""
    w = np.ones(len(order), np.int64)
    rest = order.copy()
    for m in mults:
        rest, j = np.divmod(rest, len(m))
        w *= np.asarray(m, dtype=np.int64)[j]
    return w


def _sorted_table(h: np.ndarray, l: np.ndarray, buckets_per_entry: int):
    order = np.argsort(h, kind="stable")
    h, l = h[order], l[order]
    n_b = buckets_per_entry * len(h)
    inv = n_b / max(float(h[-1]), 1.0)
    key = np.floor(h * inv).astype(np.int64)  # the kernel computes the same float product
    cum = np.searchsorted(key, np.arange(n_b + 2), "left").astype(np.int32 if len(h) < 2**31 else np.int64)
    return h, l, order.astype(np.int64), cum, inv


def _dd_diff_py(xh, xl, yh, yl, th, tl):
    """(x + y) − t for double-doubles x, y, t: two error-free sums, then the small parts."""
    s1 = xh + yh
    bb = s1 - xh
    e1 = (xh - (s1 - bb)) + (yh - bb)
    d = s1 - th
    bb = d - s1
    e2 = (s1 - (d - bb)) + (-th - bb)
    return d + (e1 + e2 + xl + yl - tl)


def _flag_py(flags, nflag, k, i, j):
    if nflag[k] < flags.shape[1]:
        flags[k, nflag[k], 0] = i
        flags[k, nflag[k], 1] = j
    nflag[k] += 1


def _count_below_py(top_h, top_l, bot_h, bot_l, cum, inv, t_h, t_l, full, stop, band, tol, flags, nflag,
                    w_top, cw_bot, weighted, out_w):
    """Σ over tops i in [full_k, stop_k) of #{bottoms j : x_i + y_j < t_k} for each threshold k, pairs
    within ``tol`` excluded and written to ``flags[k]`` (``nflag[k]`` of them; > FLAG_SLOTS: overflow).
    ``weighted``: also Σ w_top[i]·w_bot[j] over the same pairs into ``out_w`` (``cw_bot``: prefix sums of
    the bottom weights)."""
    n = len(t_h)
    nb = len(bot_h)
    nbk = len(cum) - 2
    out = np.zeros(n, np.int64)
    for k in prange(n):
        th = t_h[k]
        tl = t_l[k]
        s = 0
        sw = 0
        for i in range(full[k], stop[k]):
            xh = top_h[i]  # the low part is read only for the rare neighbours within the band
            target = th - xh
            if target <= 0.0:
                pos = 0
            else:
                b = int(np.floor(target * inv))
                if b > nbk:
                    pos = nb
                else:
                    pos = cum[b]
                    while pos < cum[b + 1] and bot_h[pos] < target:
                        pos += 1
            # neighbours within the float band: decided in double-double (below iff diff < 0), or flagged
            cnt = pos
            wadj = 0
            j = pos - 1
            while j >= 0 and bot_h[j] >= target - band:
                diff = _dd_diff(xh, top_l[i], bot_h[j], bot_l[j], th, tl)
                if diff >= -tol:  # counted by the float, not surely below
                    cnt -= 1
                    if weighted:
                        wadj -= cw_bot[j + 1] - cw_bot[j]
                    if diff <= tol:
                        _flag(flags, nflag, k, i, j)
                j -= 1
            j = pos
            while j < nb and bot_h[j] < target + band:
                diff = _dd_diff(xh, top_l[i], bot_h[j], bot_l[j], th, tl)
                if diff < -tol:  # not counted by the float, surely below
                    cnt += 1
                    if weighted:
                        wadj += cw_bot[j + 1] - cw_bot[j]
                elif diff <= tol:
                    _flag(flags, nflag, k, i, j)
                j += 1
            s += cnt
            if weighted:
                sw += w_top[i] * (cw_bot[pos] + wadj)
        out[k] = s
        if weighted:
            out_w[k] = sw
    return out


# plain Python until _kernel compiles them (the kernel then runs as written, only compiled and threaded)
prange = range
_dd_diff = _dd_diff_py
_flag = _flag_py


@functools.lru_cache(maxsize=1)
def _kernel():
    import numba

    # the kernel's globals are read when it is compiled: bind the compiled helpers and prange first
    g = globals()
    g["prange"] = numba.prange
    g["_dd_diff"] = numba.njit(cache=True, inline="always")(_dd_diff_py)
    g["_flag"] = numba.njit(cache=True, inline="always")(_flag_py)
    return numba.njit(cache=True, parallel=True)(_count_below_py)


def count_below(top: tuple, bot: tuple, t_h: np.ndarray, t_l: np.ndarray, vmax: float, N: int,
                threads: int | None = None, slots: int | None = None, weights: tuple | None = None,
                ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    """For thresholds t = t_h + t_l (double-double): (number of pairs (top entry, bottom entry) whose
    sum is surely below t, their weighted number Σ w_top·w_bot when ``weights`` = (w_top, w_bot) are
    given per sorted entry (int64; else None), flagged pairs (n, slots, 2) as sorted (top, bottom)
    indices, number of flagged pairs per threshold). Pairs whose sum is within the double-double
    tolerance of t are not counted but flagged, all of them: a threshold with more than ``slots``
    (default FLAG_SLOTS) is counted again with room for every one."""
    kernel = _kernel()
    import numba

    if threads:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    top_h, top_l = top[0], top[1]
    bot_h, bot_l, cum, inv = bot[0], bot[1], bot[3], bot[4]
    band = 8 * EPS * max(vmax, 1.0)
    tol = 64 * (N + 4) * EPS * EPS * max(vmax, 1.0)
    t_h = np.ascontiguousarray(t_h, dtype=np.float64)
    t_l = np.ascontiguousarray(t_l, dtype=np.float64)
    ymax = float(bot_h[-1])
    full = np.searchsorted(top_h, t_h - ymax - band, "left").astype(np.int64)
    stop = np.searchsorted(top_h, t_h + band, "left").astype(np.int64)
    if weights is None:
        w_top = cw_bot = np.zeros(1, np.int64)
    else:
        w_top = np.ascontiguousarray(weights[0], dtype=np.int64)
        cw_bot = np.concatenate([[0], np.cumsum(weights[1], dtype=np.int64)])

    def run(sel: np.ndarray, slots: int):
        flags = np.zeros((len(sel), slots, 2), np.int64)
        nflag = np.zeros(len(sel), np.int64)
        out_w = np.zeros(len(sel), np.int64)
        inside = kernel(top_h, top_l, bot_h, bot_l, cum, inv, t_h[sel], t_l[sel], full[sel], stop[sel], band, tol,
                        flags, nflag, w_top, cw_bot, weights is not None, out_w)
        return inside, out_w, flags, nflag

    inside, out_w, flags, nflag = run(np.arange(len(t_h)), slots or FLAG_SLOTS)
    over = np.nonzero(nflag > flags.shape[1])[0]
    if len(over):  # more pairs at a threshold than flag slots: count those again with room for all
        i2, w2, f2, n2 = run(over, int(nflag[over].max()))
        flags = np.concatenate([flags, np.zeros((len(flags), f2.shape[1] - flags.shape[1], 2), np.int64)], 1)
        inside[over], out_w[over], flags[over], nflag[over] = i2, w2, f2, n2
    weighted = None
    if weights is not None:  # tops below ``full`` pair with every bottom
        cw_top = np.concatenate([[0], np.cumsum(w_top, dtype=np.int64)])
        weighted = out_w + cw_top[full] * cw_bot[-1]
    return inside + full * len(bot_h), weighted, flags, nflag
