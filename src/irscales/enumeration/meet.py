"""Meet in the middle: exact counts of the runs below a query run, without the scale (FFF21 §8).

The counting of φ (:mod:`irscales.enumeration.counting`, whose docstring has the proofs) needs, for
RBP with p > 1/2 and for DCG with the JK discount, the number of runs whose value is below a query's.
Both split the ranks in two parts with sorted half tables; searches run on images with a proven
error band (float64 for RBP, exact fixed-point integers for DCG)
and the pairs inside the band are decided exactly (Python integers for RBP; the exact log sums of
:mod:`irscales.enumeration._dcg` for DCG).
"""
from __future__ import annotations

import functools
import math
import os
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

import numpy as np

from irscales import measures as M
from irscales.enumeration import _fixed_count as fixed_count
from irscales.enumeration._dcg import coefficient_vector, log_sum_sign, rank_weights
from irscales.enumeration._workers import worker_pool
from irscales._progress import bar as progress_bar

__all__ = ["below_rbp", "dcg_below", "graded_dcg_below"]

MAX_HALF = 26  # half tables of 2^26 int64 + float64 entries (1 GB): the memory bound of the RBP count
EPS = 2.0**-52  # a bound on the relative rounding error of one float64 operation


def rbp_half_bound(p: Fraction, c: int = 1) -> int:
    """Largest half length L with c·V_L = c·Σ_{i≤L} a^{i−1} b^{L−i} < 2^62 and (c+1)^L ≤ 2^MAX_HALF."""
    a, b = p.numerator, p.denominator
    L = 0
    while (c + 1) ** (L + 1) <= 2**MAX_HALF and c * sum(a**i * b ** (L - i) for i in range(L + 1)) < 2**62:
        L += 1
    return L



# --------------------------------------------------------------------- RBP, meet in the middle


@functools.lru_cache(maxsize=3)
def half_table(a: int, b: int, L: int, c: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Sorted exact keys V_L(x) = Σ_{i≤L} x_i a^{i−1} b^{L−i} of all (c+1)^L runs x of length L,
    their float64 images (each within 2^-52 relative of the key; non-decreasing), and a bucket index
    for fast searches: ``start[k]`` = number of floats below k·width, k = 0..2^L. A build advances the
    bar :func:`below_rbp` shows while it builds (:func:`half_table_work` units)."""
    w = [a**i * b ** (L - 1 - i) for i in range(L)]
    if c * sum(w) >= 2**62:
        raise OverflowError(f"V_{L} for p = {a}/{b} exceeds 62 bits")
    bar = _TABLE_BAR.get()
    v = np.zeros(1, np.int64)
    for wi in w:  # v, v + wi, … are each sorted: the stable sort (timsort) merges c + 1 runs in O(n log c)
        v = np.sort(np.concatenate([v + np.int64(g * wi) for g in range(c + 1)]), kind="stable")
        if bar is not None:
            bar.update(len(v))
    vf = v.astype(np.float64)  # int → float rounding is monotone, so the floats stay sorted
    return (v, vf) + bucket_index(vf, bar)


def half_table_work(L: int, c: int = 1) -> int:
    """The units of work :func:`half_table` reports while it builds: the entries of each merge step, and
    twice the table's entries for its bucket index (which costs about as much as the merges)."""
    return sum((c + 1) ** k for k in range(1, L + 1)) + 2 * (c + 1) ** L


# the bar of the tables below_rbp is building (a context variable: another thread's build reports nothing)
_TABLE_BAR: ContextVar = ContextVar("irscales_half_table_bar", default=None)
_BUCKET_STEP = 1 << 22  # bucket edges searched at once: the bar moves, and the temporaries stay at 32 MB


def bucket_index(vf: np.ndarray, bar: Any = None) -> tuple[np.ndarray, float]:
    """``start[k]`` = number of sorted floats below k·width, k = 0..len(vf), for :func:`search` (``bar``:
    advanced by 2 per entry)."""
    width = max(float(vf[-1]), 1.0) / len(vf)
    start = np.empty(len(vf) + 1, np.int32)
    for i in range(0, len(start), _BUCKET_STEP):
        j = min(len(start), i + _BUCKET_STEP)
        start[i:j] = np.searchsorted(vf, np.arange(i, j) * width, "left")
        if bar is not None:
            bar.update(2 * (min(j, len(vf)) - i))
    return start, width


def search(vf: np.ndarray, start: np.ndarray, width: float, t: np.ndarray, band: float):
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


def half_keys(bits: np.ndarray, a: int, b: int) -> np.ndarray:
    L = bits.shape[1]
    w = np.array([a**i * b ** (L - 1 - i) for i in range(L)], dtype=np.int64)
    return bits.astype(np.int64) @ w


def split(N: int, n_queries: int = 1 << 20, c: int = 1, p: Fraction | None = None) -> int:
    """Top ranks of the split. A query scans the top halves within the bottom part's range of its
    value, about ((c+1)p)^h of them, so one rank less on top is ~(c+1)p times faster while the bottom
    table grows (c+1)-fold. Binary: one rank less from N = 46 on for 1,000 queries or more (the
    bottom's build: ~3 s and 3 GB at peak for 2^26), while the bottom keeps at most 2^MAX_HALF
    entries. Graded (c > 1, p = a/b with (c+1)p > 1): a rank moves while the scans it saves,
    n_queries·((c+1)p)^h, exceed ten times the entries of the larger bottom table (an entry costs
    about ten scanned ones to build), the bottom keeps at most 2^(MAX_HALF−2) entries and its keys
    fit (:func:`rbp_half_bound`)."""
    h = N // 2
    if c == 1:
        return h - 1 if N >= 46 and n_queries >= 1000 and N - h + 1 <= MAX_HALF else h
    if p is not None and (c + 1) * p > 1:
        L = rbp_half_bound(p, c)
        while (h > 0 and (c + 1) ** (N - h + 1) <= 2 ** (MAX_HALF - 2) and N - h + 1 <= L
               and n_queries * ((c + 1) * p) ** h > 10 * (c + 1) ** (N - h + 1)):
            h -= 1
    return h


def below_rbp(bits: np.ndarray, p: Fraction, progress: bool = False, workers: int | None = None,
               c: int = 1) -> np.ndarray:
    """Exact number of runs over grades 0..c with a smaller (graded) RBP than each row of ``bits``
    (shape (n, N); binary for c = 1)."""
    a, b = p.numerator, p.denominator
    N = bits.shape[1]
    h = split(N, len(np.unique(bits, axis=0)), c, p)
    qx = half_keys(bits[:, :h], a, b) if h else np.zeros(len(bits), np.int64)
    qy = half_keys(bits[:, h:], a, b)
    pairs, inv = np.unique(np.stack([qx, qy], 1), axis=0, return_inverse=True)
    # the tables are built before forking, so worker processes share them; a bar shows the build (25 s
    # for RBP_p08 at N = 50), tables kept from an earlier count fill it at once
    lengths = [L for L in (h, N - h) if L]
    with progress_bar(sum(half_table_work(L, c) for L in lengths), f"RBP p={p} N={N} (tables)", progress,
                      unit="entry", unit_scale=True) as bar:
        token = _TABLE_BAR.set(bar)
        try:
            for L in lengths:
                half_table(a, b, L, c)
        finally:
            _TABLE_BAR.reset(token)
        bar.update(max(0, bar.total - bar.n))
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    step = 64
    parts = [pairs[i:i + step] for i in range(0, len(pairs), step)]
    out = []
    with progress_bar(len(pairs), f"RBP p={p} N={N} (counting)", progress, unit="run") as bar:
        if workers > 1 and N >= 36 and len(parts) > 1:
            with worker_pool(workers) as ex:  # forked: the tables are shared; workers end with this process
                for part, res in zip(parts, ex.map(below_pairs, parts, *zip(*[(a, b, N, h, c)] * len(parts)))):
                    out.append(res)
                    bar.update(len(part))
        else:
            for part in parts:
                out.append(below_pairs(part, a, b, N, h, c))
                bar.update(len(part))
    res = np.concatenate(out) if out else np.empty(0, np.int64)
    return res[inv.reshape(-1)]


def below_pairs(pairs: np.ndarray, a: int, b: int, N: int, h: int, c: int = 1) -> np.ndarray:
    """Runs below each query given by its (top key, bottom key) pair for a split after rank h."""
    Lb = N - h
    xt, vt = half_table(a, b, h, c)[:2] if h else (np.zeros(1, np.int64), np.zeros(1))
    yt, wt, start, width = half_table(a, b, Lb, c)
    B1, A1 = b**Lb, a**h  # K = B1·V_h(top) + A1·V_{N−h}(bottom)
    rho = float(Fraction(A1, B1))  # bottom → top units, relative error ≤ ε
    n_bot = (c + 1) ** Lb
    ymax = float(yt[-1])
    umax = float(xt[-1]) + rho * ymax
    # Error bounds (ε = 2^-52 per operation, all quantities ≥ 0): a table float is within ε of its
    # key; u_q = fl(x_q + fl(ρ·y_q)) is within 5ε·umax of the exact x_q + ρy_q; the threshold
    # t = fl(fl(u_q − x)/ρ) within (7ε·umax + 2ε·umax)/ρ of (u_q − x)/ρ. Bands of 16ε·umax (top) and
    # 16ε·umax/ρ (bottom) therefore contain every comparison the floats cannot decide.
    band_top = 16 * EPS * umax
    band_bot = 16 * EPS * umax / rho
    out = np.empty(len(pairs), np.int64)
    for i, (x_q, y_q) in enumerate(pairs.tolist()):
        k_q = B1 * x_q + A1 * y_q
        u_q = float(x_q) + rho * float(y_q)
        full = int(np.searchsorted(vt, u_q - rho * ymax - band_top, "left"))
        stop = int(np.searchsorted(vt, u_q + band_top, "left"))
        total = full * n_bot
        if stop > full:
            t = ((u_q - vt[full:stop]) / rho)[::-1]  # increasing: searches with sorted keys
            lo, undecided = search(wt, start, width, t, band_bot)
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


@functools.lru_cache(maxsize=8)
def dcg_tie_scan(B: int, n_max: int = 400) -> tuple[int, str]:
    """The first N at which two canonical runs (c = Σ_{i≤B} rel_i, ranks after B) have the same
    rational coefficient vector, i.e. tie for certain, and an example; (n_max + 1, "") if none."""
    for N in range(B + 1, n_max + 1):
        cls = rank_weights(B, N)
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


def _exact_sign(B: int, vec_a: dict, vec_b: dict) -> int:
    """Sign of value(a) − value(b) for coefficient vectors {class root: Fraction} (0: same vector)."""
    d = {m: vec_a.get(m, 0) - vec_b.get(m, 0) for m in set(vec_a) | set(vec_b)}
    return log_sum_sign({m: x for m, x in d.items() if x}, B)


def dcg_below(bits: np.ndarray, B: int, progress: bool = False, workers: int | None = None,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For binary runs ``bits`` (n, N) and DCG/nDCG with the JK discount and base B: (runs below,
    runs up to, φ_unq) of each run, counted over canonical runs (:mod:`irscales.enumeration.counting`):
    for c = 0..U relevant documents among the U = min(B, N) ranks of weight 1, the canonical runs
    below are the pairs (top, bottom) of the remaining ranks with x + y < value − c, counted in exact
    fixed point by :func:`irscales.enumeration._fixed_count.count_pairs_below`; the few pairs it leaves
    (within its proven band of the threshold) are decided exactly."""
    N = bits.shape[1]
    U = min(B, N)
    R = N - U
    cls = rank_weights(B, N)
    F = fixed_count.frac_bits(U + sum(math.log(B) / math.log(i) for i in range(U + 1, N + 1)) + 1.0)
    W = fixed_count.fixed_weights(B, U + 1, N, F)
    canon = np.concatenate([bits[:, :U].sum(1, keepdims=True), bits[:, U:]], 1).astype(np.int64)
    rows, inv = np.unique(canon, axis=0, return_inverse=True)
    rest = rows[:, 1:] @ W if R else np.zeros(len(rows), np.int64)
    q_idx = np.repeat(np.arange(len(rows)), U + 1)
    c_of = np.tile(np.arange(U + 1), len(rows))
    t = rest[q_idx] + (rows[q_idx, 0] - c_of) * (np.int64(1) << np.int64(F))
    Lb = fixed_count.bottom_ranks(R, len(t))
    h = R - Lb  # top: ranks U+1..U+h (the larger weights); bottom: the deepest Lb ranks
    # the tables (30 s at N = 50 on the TREC-8 runs): a bar moving after each of the three steps; the bottom
    # table is fixed_count.bottom_table in two steps, so that the bar also moves between its sums and its index
    with progress_bar((1 << h) + (2 << Lb), f"DCG base {B} N={N} (tables)", progress, unit="sum",
                      unit_scale=True) as bar:
        top, top_mask = fixed_count.sorted_sums(W[:h])
        bar.update(1 << h)
        values, _ = fixed_count.sorted_sums(W[h:], with_masks=False, pad=2)
        bar.update(1 << Lb)
        bot = fixed_count.BottomTable(values, 1 << Lb)
        bar.update(1 << Lb)
    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    tol = R * fixed_count.TOL_SCALE
    counts, _, flags = fixed_count.count_pairs_below(top, bot, t, tol, workers,
                                                  f"DCG base {B} N={N} (counting)" if progress else None)
    res = counts.astype(object)
    qt = rows[:, 1:h + 1] @ W[:h] if h else np.zeros(len(rows), np.int64)
    qb = rest - qt
    bv = bot.values

    def unique_at(arr: np.ndarray, i: int, n: int) -> bool:
        return (i == 0 or arr[i - 1] != arr[i]) and (i + 1 >= n or arr[i + 1] != arr[i])

    names: dict[int, list[int]] = {}
    for k, i, j in flags.tolist():
        row = int(q_idx[k])
        c = int(c_of[k])
        if (c == rows[row, 0] and top[i] == qt[row] and bv[j] == qb[row]
                and unique_at(top, i, len(top)) and unique_at(bv, j, bot.n)):
            continue  # the query's own subsets (the only ones with these sums): equal value
        v = int(bv[j])
        if v not in names:
            names[v] = fixed_count.subsets_with_sum(W[h:], v)
        first = int(np.searchsorted(bv[:bot.n], v, "left"))
        tb, bb = int(top_mask[i]), names[v][j - first]
        ranks = [U + 1 + r for r in range(h) if tb >> r & 1] + [U + h + 1 + r for r in range(Lb) if bb >> r & 1]
        r_q = rows[row].tolist()
        vec_q = coefficient_vector(cls, r_q[0], [U + 1 + x for x, y in enumerate(r_q[1:]) if y])
        res[k] += _exact_sign(B, coefficient_vector(cls, c, ranks), vec_q) < 0
    per_c = res.reshape(len(rows), U + 1)
    cs = np.arange(U + 1)
    binom = np.array([math.comb(U, c) for c in cs], dtype=object)
    below_unq = per_c.sum(1)
    below_runs = (per_c * binom).sum(1)
    tie = binom[rows[:, 0]]
    inv = inv.reshape(-1)
    big = N > 61
    dt = object if big else np.int64
    return below_runs[inv].astype(dt), (below_runs[inv] + tie[inv]).astype(dt), (below_unq[inv] + 1).astype(dt)


# ------------------------------------------------------- graded DCG: class coefficients + middle


@functools.lru_cache(maxsize=16)
def dcg_class_items(B: int, N: int, c: int) -> tuple[tuple[int, tuple[int, ...], tuple[Fraction, ...], tuple[int, ...]], ...]:
    """Graded DCG (JK discount, integer base B, gains = grades 0..c) as items: one per class root m of
    ranks 1..N (:func:`irscales.enumeration._dcg.rank_weights`; the ranks 1..B of weight 1 and B², B³ … are
    the class of B), with the distinct values of its coefficient Σ_r g_r·weight_r in units of u_m over
    every grade assignment, sorted, and how many assignments give each: (m, ranks, values, multiplicities).
    Two runs have equal DCG when every class coefficient is equal; distinct coefficient tuples differ in
    value unless the u_m are Q-linearly dependent (Schanuel's conjecture says no; the assumption of the
    binary count beyond N = 30)."""
    cls = rank_weights(B, N)
    by_root: dict[int, list[int]] = {}
    for r, (m, _) in enumerate(cls, start=1):
        by_root.setdefault(m, []).append(r)
    items = []
    for m, ranks in by_root.items():
        count: dict = {Fraction(0): 1}
        for r in ranks:
            w = cls[r - 1][1]
            nxt: dict = {}
            for v, k in count.items():
                for g in range(c + 1):
                    nxt[v + g * w] = nxt.get(v + g * w, 0) + k
            count = nxt
        vals = tuple(sorted(count))
        items.append((m, tuple(ranks), vals, tuple(count[v] for v in vals)))
    return tuple(items)


def class_gap(B: int, N: int, c: int) -> tuple[float, float]:
    """(smallest gap, error bound) between the DCG values of distinct class-coefficient tuples of
    :func:`dcg_class_items` — all (c + 1)^N runs, one value per tuple, in float64 (Σ_m q_m·u_m) and sorted.
    A smallest gap above twice the bound (a generous float error of any value: 8 × terms × largest value × 2⁻⁵²,
    for u_m's two logarithms and division, the product and the running sum)
    proves that no two distinct tuples tie, i.e. no tie across discount classes at this N (the assumption of
    counted graded DCG, :mod:`irscales.enumeration.counting`). Memory: 8 bytes per tuple (28.5 million for
    B = 2, N = 17, c = 2)."""
    items = dcg_class_items(B, N, c)
    parts = sorted((np.array([float(v) * (1.0 if m == B else math.log(B) / math.log(m)) for v in vals])
                    for m, _, vals, _ in items), key=len, reverse=True)
    acc = np.zeros(1)
    for a in parts:
        acc = (acc[:, None] + a[None, :]).ravel()
    acc.sort()
    gap = float(np.diff(acc).min()) if acc.size > 1 else math.inf
    return gap, 8 * len(parts) * float(acc[-1]) * 2.0**-52


def graded_dcg_split(sizes: list[int]) -> int:
    """Number of items in the top table: the split that makes the larger table smallest."""
    total = math.prod(sizes)
    best, h, top = None, 0, 1
    for k in range(len(sizes) + 1):
        big = max(top, total // top)
        if best is None or big < best:
            best, h = big, k
        if k < len(sizes):
            top *= sizes[k]
    return h


@functools.lru_cache(maxsize=16)
def graded_dcg_depth(B: int, c: int, n_max: int = 200) -> int:
    """Largest N whose two tables of class-coefficient sums hold at most 2^MAX_HALF entries each."""
    best = 0
    for N in range(1, n_max + 1):
        sizes = [len(v) for _, _, v, _ in dcg_class_items(B, N, c)]
        h = graded_dcg_split(sizes)
        if max(math.prod(sizes[:h]), math.prod(sizes[h:])) > 2**MAX_HALF:
            break
        best = N
    return best


def graded_dcg_below(grades: np.ndarray, B: int, c: int, progress: bool = False,
                     workers: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For runs over grades 0..c (rows of ``grades``, shape (n, N)) and graded DCG/nDCG with the JK
    discount and base B: (runs below, runs up to, φ_unq) of each run. Distinct values are the class
    coefficient tuples (:func:`dcg_class_items`), a tuple's runs the product of its items' multiplicities;
    both are counted by meet in the middle over the items in exact fixed point with
    :func:`irscales.enumeration._fixed_count.count_pairs_below` (an item's values within one unit each, so
    pairs more than one unit per item from a threshold are decided); pairs it leaves are decided exactly."""
    N = grades.shape[1]
    items = dcg_class_items(B, N, c)
    sizes = [len(v) for _, _, v, _ in items]
    h = graded_dcg_split(sizes)
    vmax = sum(float(vals[-1]) * (1.0 if m == B else math.log(B) / math.log(m)) for m, _, vals, _ in items)
    F = fixed_count.frac_bits(vmax + 1.0)
    fx = [fixed_count.fixed_log_terms(B, [(q, m) for q in vals], F) for m, _, vals, _ in items]
    top, top_order = fixed_count.item_table(fx[:h])
    bot_values, bot_order = fixed_count.item_table(fx[h:])
    bot = fixed_count.item_bottom_table(bot_values)
    del bot_values
    mults = [np.array(k, dtype=np.int64) for _, _, _, k in items]
    w_top, w_bot = fixed_count.item_weights(top_order, mults[:h]), fixed_count.item_weights(bot_order, mults[h:])
    cls = rank_weights(B, N)
    grades = np.asarray(grades, dtype=np.int64)
    # each run's coefficient per item as its index among the item's values (integer keys over the
    # common denominator of the item's weights); the queries are the distinct index tuples
    idx = np.empty((len(grades), len(items)), np.int64)
    for t, (m, ranks, vals, _) in enumerate(items):
        w = [cls[r - 1][1] for r in ranks]
        L = math.lcm(*(x.denominator for x in w))
        keys = grades[:, [r - 1 for r in ranks]] @ np.array([int(x * L) for x in w], dtype=np.int64)
        idx[:, t] = np.searchsorted(np.array([int(q * L) for q in vals], dtype=np.int64), keys)
    idx, inv = np.unique(idx, axis=0, return_inverse=True)
    thr = np.zeros(len(idx), np.int64)
    tie = np.ones(len(idx), dtype=object)
    for t in range(len(items)):
        thr += fx[t][idx[:, t]]
        tie = tie * mults[t].astype(object)[idx[:, t]]
    radix = np.array([math.prod(sizes[:t]) for t in range(len(items))], dtype=object)
    flat_top = (idx[:, :h].astype(object) * radix[:h]).sum(1) if h else np.zeros(len(idx), dtype=object)
    flat_bot = (idx[:, h:].astype(object) * (radix[h:] // (radix[h] if h < len(items) else 1))).sum(1)

    def decode(flat: int, part: range) -> dict:
        vec: dict = {}
        for t in part:
            flat, j = divmod(flat, sizes[t])
            if items[t][2][j]:
                vec[items[t][0]] = items[t][2][j]
        return vec

    if workers is None:
        workers = min(2, os.cpu_count() or 1)
    cnt, wc, flags = fixed_count.count_pairs_below(
        top, bot, thr, len(items) * fixed_count.TOL_SCALE, workers,
        f"graded DCG base {B} N={N} (counting)" if progress else None, weights=(w_top, w_bot))
    res, resw = cnt.astype(object), wc.astype(object)
    for k, i, j in flags.tolist():
        if int(top_order[i]) == flat_top[k] and int(bot_order[j]) == flat_bot[k]:
            continue  # the query's own coefficients: equal value
        q = idx[k]
        vec_q = {items[t][0]: items[t][2][q[t]] for t in range(len(items)) if items[t][2][q[t]]}
        vec = {**decode(int(top_order[i]), range(h)), **decode(int(bot_order[j]), range(h, len(items)))}
        if _exact_sign(B, vec, vec_q) < 0:
            res[k] += 1
            resw[k] += int(w_top[i]) * int(w_bot[j])
    unq, below = res + 1, resw
    inv = inv.reshape(-1)
    dt = object if (c + 1) ** N >= 2**62 else np.int64
    return below[inv].astype(dt), (below + tie)[inv].astype(dt), unq[inv].astype(dt)
